/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

/* Keeps the failing code and message together so callers can return both. */
int
bd_error_set(struct bd_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	bd_utf8_fix(err->msg);
	return code;
}

/* Resets err before reuse. */
void
bd_error_clear(struct bd_error *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

/*
 * The length of the valid UTF-8 character at s (at most left bytes), 0 when
 * the bytes there start none, or -1 when the character is cut off by the end
 * of the string.  Overlong forms and surrogates are not valid.
 */
int
bd_utf8_char(const unsigned char *s, size_t left)
{
	static const struct {
		unsigned char	 mask, lead;	/* lead byte pattern */
		int		 len;
		unsigned	 min;		/* smallest value, no overlong */
	} forms[] = {
		{ .mask = 0x80, .lead = 0x00, .len = 1, .min = 0 },
		{ .mask = 0xe0, .lead = 0xc0, .len = 2, .min = 0x80 },
		{ .mask = 0xf0, .lead = 0xe0, .len = 3, .min = 0x800 },
		{ .mask = 0xf8, .lead = 0xf0, .len = 4, .min = 0x10000 },
	};
	size_t f, i;
	unsigned cp;

	for (f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
		if ((s[0] & forms[f].mask) == forms[f].lead)
			break;
	if (f == sizeof(forms) / sizeof(forms[0]))
		return 0;
	cp = s[0] & (unsigned char)~forms[f].mask;
	for (i = 1; i < (size_t)forms[f].len; i++) {
		if (i >= left)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < forms[f].min || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return forms[f].len;
}

/*
 * Invisible characters that reorder or hide text (Trojan Source): the
 * bidi embeddings, overrides and isolates, the directional marks, the
 * line and paragraph separators, zero-width and joiner characters, the
 * byte order mark and the interlinear annotations, by their UTF-8 bytes.
 */
static const struct {
	unsigned char	 b0, b1, lo, hi;	/* b0 b1 [lo..hi] */
} bd_utf8_format[] = {
	{ 0xe2, 0x80, 0x8b, 0x8f },	/* U+200B..U+200F */
	{ 0xe2, 0x80, 0xa8, 0xae },	/* U+2028..U+202E */
	{ 0xe2, 0x81, 0xa0, 0xa4 },	/* U+2060..U+2064 */
	{ 0xe2, 0x81, 0xa6, 0xaf },	/* U+2066..U+206F */
	{ 0xef, 0xbb, 0xbf, 0xbf },	/* U+FEFF */
	{ 0xef, 0xbf, 0xb9, 0xbb },	/* U+FFF9..U+FFFB */
};

/* Log lines and bisectctl's output must not carry what drives a terminal. */
int
bd_utf8_control(const unsigned char *s, size_t left)
{
	size_t i;

	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && left >= 2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	if (s[0] == 0xd8 && left >= 2 && s[1] == 0x9c)	/* U+061C */
		return 2;
	for (i = 0; left >= 3 && i < sizeof(bd_utf8_format) /
	    sizeof(bd_utf8_format[0]); i++)
		if (s[0] == bd_utf8_format[i].b0 &&
		    s[1] == bd_utf8_format[i].b1 &&
		    s[2] >= bd_utf8_format[i].lo &&
		    s[2] <= bd_utf8_format[i].hi)
			return 3;
	return 0;
}

/* Byte limits (%.64s, fixed buffers) cut anywhere; JSON needs characters. */
char *
bd_utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t left = strlen(s);
	int n;

	while (left > 0) {
		n = bd_utf8_char(p, left);
		if (n < 0) {
			*p = '\0';
			break;
		}
		if (n == 0) {
			*p = '?';
			n = 1;
		}
		p += n;
		left -= (size_t)n;
	}
	return s;
}

/* One walk serves both: text keeps its lines, a line keeps none. */
static char *
bd_utf8_clean(char *s, int keep_lines)
{
	unsigned char *r, *w;
	size_t left;
	int n;

	bd_utf8_fix(s);
	r = w = (unsigned char *)s;
	left = strlen(s);
	while (left > 0) {
		n = bd_utf8_control(r, left);
		if (n == 0 || (keep_lines && (*r == '\n' || *r == '\t'))) {
			*w++ = *r++;
			left--;
			continue;
		}
		*w++ = '?';
		r += n;
		left -= (size_t)n;
	}
	*w = '\0';
	return s;
}

/* A value that a hook may put into a mail header cannot start a new one. */
char *
bd_utf8_line(char *s)
{
	return bd_utf8_clean(s, 0);
}

/* Text from commits and hosts reaches people; terminals act on controls. */
char *
bd_utf8_text(char *s)
{
	return bd_utf8_clean(s, 1);
}
