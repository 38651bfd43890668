/*
 * Reports of finished bisections: gathered from the store and the
 * repository into a struct report_input, rendered by bisect/report, stored,
 * and handed to the configured report hook on its standard input with the
 * culprit's author and committer in its environment.
 */
#ifndef DAEMON_REPORTER_H
#define DAEMON_REPORTER_H

struct daemon;
struct bisection;

/* Builds, stores and sends the report of a bisection that has a verdict. */
void	reporter_run(struct daemon *d, struct bisection *b);

#endif
