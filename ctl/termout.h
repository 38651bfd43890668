/*
 * bisectctl's text output, made safe for a terminal.  Commit subjects,
 * error messages from test machines and labs, and names a client sent all
 * reach bisectctl's output; an escape sequence among them would drive the
 * operator's terminal (set its title, clear it, rewrite what it shows).
 *
 * termout_open() puts a filter in front of a stream's descriptor: C0
 * controls other than newline and tab, DEL, and the C1 controls in UTF-8
 * (c2 80 to c2 9f) become '?'; everything else is written unchanged.
 * bisectctl's main wraps stderr always and stdout unless the command
 * prints JSON, which stays byte for byte as jansson wrote it.
 */
#ifndef CTL_TERMOUT_H
#define CTL_TERMOUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * A new stream writing filtered text to fp's descriptor, buffered as fp
 * is (unbuffered for stderr, by line on a terminal, else fully), or fp
 * itself when no stream can be made.  fp is flushed first and must not be
 * written to afterwards.
 */
FILE	*termout_open(FILE *fp);
/*
 * Writes s unfiltered, for bisectctl's own control sequences (the
 * progress line rewritten in place); on a stream termout_open() did not
 * make, the same as fputs.
 */
void	 termout_raw(FILE *fp, const char *s);
/*
 * The filter itself: n bytes of src into dst (room for n + 1 bytes), the
 * number written.  A c2 that ends src is held in *held (start with 0)
 * until the next call shows whether a C1 control follows; a final call
 * with n == 0 writes a held byte out.
 */
size_t	 termout_filter(char *dst, const char *src, size_t n, int *held);

#endif
