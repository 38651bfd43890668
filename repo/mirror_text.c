/* SPDX-License-Identifier: MIT */
/*
 * What the mirror shows of the text an upstream or a configuration gives
 * it: urls without the user-info a token may sit in, ref names as valid
 * UTF-8, and whether libgit2 can store a ref by a name at all.  Pure
 * functions, fuzzed by tests/fuzz/fuzz_mirror.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"

/* libgit2's buffer for a normalized ref name (refs.h GIT_REFNAME_MAX). */
#define MIRROR_REFNAME_MAX	1024

/*
 * Where the user-info of url starts and how long it is with its '@'
 * ("user:pw@"), or 0 when url has none: only "scheme://" urls have one,
 * ending at the last '@' before the path.
 */
static size_t
mirror_userinfo(const char *url, const char **startp)
{
	const char *scheme, *end, *at = NULL, *p;

	if ((scheme = strstr(url, "://")) == NULL)
		return 0;
	scheme += 3;
	end = scheme + strcspn(scheme, "/?#");
	for (p = scheme; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return 0;
	*startp = scheme;
	return (size_t)(at + 1 - scheme);
}

char *
mirror_url_shown(const char *url)
{
	const char *start;
	size_t n = mirror_userinfo(url, &start);
	char *s;

	if (n == 0)
		return xstrdup(url);
	xasprintf(&s, "%.*s%s", (int)(start - url), url, start + n);
	return s;
}

/*
 * Replaces every copy of what in s by with, in place, searching again
 * from the start after each: a removal can join a new copy together.
 * with is shorter than what, so s shrinks and the loop ends.  Returns
 * whether anything was replaced.
 */
static int
mirror_cut(char *s, const char *what, const char *with)
{
	size_t n = strlen(what), wn = strlen(with);
	char *p;
	int cut = 0;

	if (n == 0 || wn >= n)
		return 0;
	while ((p = strstr(s, what)) != NULL) {
		memcpy(p, with, wn);
		memmove(p + wn, p + n, strlen(p + n) + 1);
		cut = 1;
	}
	return cut;
}

/* A %XX of a url as its byte; 0 when s holds none. */
static int
mirror_hex(const char *s)
{
	static const char digits[] = "0123456789abcdef";
	const char *a, *b;

	if (s[0] != '%' || s[1] == '\0' || s[2] == '\0' ||
	    (a = strchr(digits, s[1] | 0x20)) == NULL ||
	    (b = strchr(digits, s[2] | 0x20)) == NULL)
		return 0;
	return (int)((a - digits) * 16 + (b - digits));
}

/* The password as a url writes it percent-decoded (caller frees). */
static char *
mirror_decode(const char *pw)
{
	char *dec = xstrdup(pw);
	size_t i, k;
	int c;

	for (i = 0, k = 0; pw[i] != '\0'; k++)
		if ((c = mirror_hex(pw + i)) != 0) {
			dec[k] = (char)c;
			i += 3;
		} else
			dec[k] = pw[i++];
	dec[k] = '\0';
	return dec;
}

void
mirror_url_scrub(char *msg, const char *url)
{
	const char *start, *pw = "";
	size_t n = mirror_userinfo(url, &start);
	char *info, *raw, *dec;
	int again;

	if (n == 0)
		return;
	info = xstrndup(start, n);		/* "user:pw@" */
	raw = xstrndup(start, n - 1);		/* "user:pw" */
	if (strchr(raw, ':') != NULL)
		pw = strchr(raw, ':') + 1;
	dec = mirror_decode(pw);
	/*
	 * "user:pw@" goes, so a url in msg reads as mirror_url_shown's;
	 * then the password alone, as written and decoded: "***" stands for
	 * a long one, a short one just goes.
	 */
	do {
		again = mirror_cut(msg, info, "");
		again |= mirror_cut(msg, pw, strlen(pw) > 3 ? "***" : "");
		again |= mirror_cut(msg, dec, strlen(dec) > 3 ? "***" : "");
	} while (again);
	free(dec);
	free(raw);
	free(info);
}

char *
mirror_ref_shown(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t left = strlen(name), o = 0;
	char *s = xmalloc(left * 4 + 1);
	int n;

	while (left > 0) {
		n = bd_utf8_char(p, left);
		if (n > 0 && *p != '\\') {
			memcpy(s + o, p, (size_t)n);
			o += (size_t)n;
		} else {
			n = 1;
			o += (size_t)snprintf(s + o, 5, "\\x%02x", *p);
		}
		p += n;
		left -= (size_t)n;
	}
	s[o] = '\0';
	return s;
}

json_t *
mirror_ref_json(const char *name)
{
	char *s = mirror_ref_shown(name);
	json_t *j = json_string(s);

	free(s);
	return j != NULL ? j : json_null();
}

int
mirror_ref_storable(const char *name, struct bd_error *err)
{
	char buf[MIRROR_REFNAME_MAX];

	if (strncmp(name, "refs/", 5) != 0)
		return bd_error_set(err, -EINVAL, "not under refs/");
	if (git_reference_normalize_name(buf, sizeof(buf), name,
	    GIT_REFERENCE_FORMAT_NORMAL) < 0)
		return bd_error_set(err, strlen(name) >= sizeof(buf) ?
		    -ENAMETOOLONG : -EINVAL, "%s", strlen(name) >= sizeof(buf) ?
		    "longer than libgit2 stores" : "not a valid ref name");
	return 0;
}
