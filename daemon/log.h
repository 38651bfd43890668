/*
 * Logging for the daemon and its client: stderr in the foreground, syslog
 * otherwise.  Library modules never log; they return a struct bd_error.
 */
#ifndef DAEMON_LOG_H
#define DAEMON_LOG_H

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

void	log_init(const char *progname, int foreground, enum log_level level);
void	log_set_level(enum log_level level);
/* Parses "error", "warn", "info" or "debug"; returns -1 for anything else. */
int	log_level_parse(const char *name);

/* log_warn appends strerror(errno); log_warnx does not (OpenBSD style). */
void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
