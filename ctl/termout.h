/* SPDX-License-Identifier: MIT */
/*
 * bisectctl's text output, made safe for a terminal.  Commit subjects,
 * error messages from test machines and labs, and names a client sent all
 * reach bisectctl's output; an escape sequence among them would drive the
 * operator's terminal (set its title, clear it, rewrite what it shows).
 *
 * termout_open() puts a filter in front of a stream's descriptor: C0
 * controls other than newline and tab, DEL, the C1 controls in UTF-8
 * (c2 80 to c2 9f) and the invisible characters that reorder or hide
 * text (U+202E and the other bidi controls: see bd_utf8_control) become
 * '?'; everything else is written unchanged.
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
 * The filter itself: n bytes of src into dst (room for n + 3 bytes), the
 * number written.  An incomplete UTF-8 character that ends src is held
 * in *held (start with 0; nonzero while bytes are held) until the next
 * call shows what it is; a final call with n == 0 writes held bytes out.
 */
size_t	 termout_filter(char *dst, const char *src, size_t n, int *held);

#endif
