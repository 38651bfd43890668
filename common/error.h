/* SPDX-License-Identifier: MIT */
/*
 * Errors returned by library modules.
 *
 * Library functions return 0 on success or a negative errno-style code
 * (-EINVAL, -ENOENT, -EIO, ...) and, when the caller passes a struct bd_error,
 * a message that says what went wrong in words a user can act on.  Only
 * daemon/ logs; everything else hands its message to the caller this way.
 */
#ifndef COMMON_ERROR_H
#define COMMON_ERROR_H

#include <errno.h>
#include <stddef.h>

#define BD_ERROR_MAX 512

struct bd_error {
	int	code;			/* negative errno value, 0 when clear */
	char	msg[BD_ERROR_MAX];	/* NUL-terminated message */
};

/*
 * Records code and a printf-style message in err (which may be NULL) and
 * returns code, so that a failing path can say `return bd_error_set(...)`.
 */
int bd_error_set(struct bd_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err so that a reused struct does not show an old message. */
void bd_error_clear(struct bd_error *err);

/*
 * Makes s (NUL-terminated, edited in place) valid UTF-8 for a JSON reply:
 * a character cut at the end by a byte limit is removed, any other byte
 * that starts no valid character becomes '?'.  Returns s.
 */
char *bd_utf8_fix(char *s);
/*
 * The length of the valid UTF-8 character at s (left bytes available,
 * left >= 1), 0 when the bytes there start none, -1 when the end of the
 * string cuts it.  Overlong forms and surrogates are not valid.  The one
 * UTF-8 decoder of the tree.
 */
int	bd_utf8_char(const unsigned char *s, size_t left);
/*
 * The length of the control character at s (left bytes available, left >=
 * 1): 1 for a C0 control or DEL, 2 for a C1 control in UTF-8 (U+0080 to
 * U+009F, bytes c2 80 to c2 9f), 2 or 3 for an invisible format character
 * that reorders or hides text (U+061C, U+200B to U+200F, U+2028 to
 * U+202E, U+2060 to U+2064, U+2066 to U+206F, U+FEFF, U+FFF9 to U+FFFB),
 * 0 for anything else.  Terminals act on these, or show text in another
 * order than its bytes, so text from outside shows none of them to people.
 */
int	bd_utf8_control(const unsigned char *s, size_t left);
/*
 * Makes s (NUL-terminated, edited in place; it never grows) valid UTF-8,
 * as bd_utf8_fix does, with every control character shown as '?'.
 * bd_utf8_line leaves one line for a header or an environment value (no
 * newline, tab or CR); bd_utf8_text keeps newlines and tabs, for text
 * read by people.  Both return s.
 */
char	*bd_utf8_line(char *s);
char	*bd_utf8_text(char *s);

#endif
