/* SPDX-License-Identifier: MIT */
/*
 * The mirror's handling of text from an upstream and a configuration
 * (repo/mirror_text.c): ref names and urls.
 *
 * Oracles.  A url's user-info is gone from mirror_url_shown's answer,
 * which is idempotent; after mirror_url_scrub a message holds neither
 * "user:password@", nor the password as written, nor the password
 * percent-decoded, and never grew.  mirror_ref_shown gives valid UTF-8
 * that jansson accepts, equal to the name when the name is UTF-8 without
 * a backslash, and from which undoing the \xNN escapes gives the name
 * back.  mirror_ref_storable accepts only names under refs/ shorter than
 * libgit2's 1024-byte buffer.
 *
 * Input: a url, a newline, then text that is both a ref name and the
 * message around the url ("TEXT url TEXT").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <jansson.h>

#include "common/xmalloc.h"
#include "repo/mirror.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	return 0;
}

/* The user-info of url as mirror_text.c sees it: "user:pw", or NULL. */
static char *
fuzz_userinfo(const char *url)
{
	const char *h = strstr(url, "://"), *end, *at = NULL, *p;

	if (h == NULL)
		return NULL;
	h += 3;
	end = h + strcspn(h, "/?#");
	for (p = h; p < end; p++)
		if (*p == '@')
			at = p;
	return at != NULL ? xstrndup(h, (size_t)(at - h)) : NULL;
}

/* %XX decoded, as a url's password is meant. */
static char *
fuzz_decode(const char *s)
{
	char *d = xstrdup(s), *o = d;
	unsigned c;

	while (*s != '\0')
		if (s[0] == '%' && sscanf(s + 1, "%2x", &c) == 1 && c != 0 &&
		    strspn(s + 1, "0123456789abcdefABCDEF") >= 2) {
			*o++ = (char)c;
			s += 3;
		} else
			*o++ = *s++;
	*o = '\0';
	return d;
}

static void
fuzz_url(const char *url, const char *text)
{
	char *shown = mirror_url_shown(url), *again, *info, *msg, *pw, *dec;
	size_t len;

	again = mirror_url_shown(shown);
	if (strcmp(again, shown) != 0)
		fuzz_fail("mirror_url_shown is not idempotent: %s -> %s",
		    shown, again);
	free(again);
	info = fuzz_userinfo(url);
	if (info != NULL && (again = fuzz_userinfo(shown)) != NULL)
		fuzz_fail("user-info \"%s\" left in %s", again, shown);
	xasprintf(&msg, "%s %s %s", text, url, text);
	len = strlen(msg);
	mirror_url_scrub(msg, url);
	if (strlen(msg) > len)
		fuzz_fail("scrubbing made the message grow");
	if (info != NULL) {
		xasprintf(&again, "%s@", info);
		if (strstr(msg, again) != NULL)
			fuzz_fail("\"%s\" left in %s", again, msg);
		free(again);
		pw = strchr(info, ':');
		if (pw != NULL && pw[1] != '\0') {
			dec = fuzz_decode(pw + 1);
			if (strstr(msg, pw + 1) != NULL ||
			    (dec[0] != '\0' && strstr(msg, dec) != NULL))
				fuzz_fail("the password is left in %s", msg);
			free(dec);
		}
	}
	free(info);
	free(msg);
	free(shown);
}

/* Undoes mirror_ref_shown's escapes. */
static char *
fuzz_unescape(const char *s)
{
	char *d = xstrdup(s), *o = d;
	unsigned c;

	while (*s != '\0')
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &c) ==
		    1) {
			*o++ = (char)c;
			s += 4;
		} else
			*o++ = *s++;
	*o = '\0';
	return d;
}

static void
fuzz_ref(const char *name)
{
	char *shown = mirror_ref_shown(name), *back;
	struct bd_error err;
	json_t *j;

	if (!fuzz_utf8_valid(shown, strlen(shown)))
		fuzz_fail("shown ref name is not UTF-8");
	if ((j = json_string(shown)) == NULL)
		fuzz_fail("jansson refuses the shown ref name");
	json_decref(j);
	if (fuzz_utf8_valid(name, strlen(name)) && strchr(name, '\\') ==
	    NULL && strcmp(shown, name) != 0)
		fuzz_fail("a UTF-8 name was changed: %s", shown);
	back = fuzz_unescape(shown);
	if (strcmp(back, name) != 0)
		fuzz_fail("the escapes do not give the name back");
	free(back);
	free(shown);
	j = mirror_ref_json(name);
	if (!json_is_string(j))
		fuzz_fail("mirror_ref_json gave no string");
	json_decref(j);
	if (mirror_ref_storable(name, &err) == 0 &&
	    (strncmp(name, "refs/", 5) != 0 || strlen(name) >= 1024))
		fuzz_fail("%zu-byte name accepted as storable", strlen(name));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in, *nl, *text;

	if (size > 4096)
		return 0;
	in = fuzz_strndup(data, size);
	if ((nl = strchr(in, '\n')) != NULL) {
		*nl = '\0';
		text = nl + 1;
	} else
		text = in + strlen(in);
	fuzz_url(in, text);
	fuzz_ref(text);
	fuzz_ref(in);
	free(in);
	return 0;
}
