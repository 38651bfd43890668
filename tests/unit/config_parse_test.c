/* SPDX-License-Identifier: MIT */
/*
 * config_parse(): the configuration from text in memory, as the fuzz
 * target feeds it, gives what config_load() gives from the same file.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/config.h"
#include "tests/support/tst.h"

TestSuite(config_parse, .fini = tst_leak_check);

/* The example file, loaded and parsed from memory: the same JSON. */
Test(config_parse, text_gives_what_the_file_gives)
{
	const char *src = getenv("BISECTD_SRCDIR");
	struct config a, b;
	struct config_errors ea, eb;
	char *path, *text;
	json_t *ja, *jb;

	cr_assert_not_null(src);
	cr_assert_gt(asprintf(&path, "%s/config/bisectd.conf.example", src),
	    0);
	text = tst_read_file(path);
	cr_assert_not_null(text);
	cr_assert_eq(config_load(&a, path, &ea), 0);
	cr_assert_eq(config_parse(&b, path, text, strlen(text), &eb), 0);
	ja = config_to_json(&a);
	jb = config_to_json(&b);
	cr_assert(json_equal(ja, jb));
	json_decref(ja);
	json_decref(jb);
	config_errors_release(&ea);
	config_errors_release(&eb);
	config_release(&a);
	config_release(&b);
	free(text);
	free(path);
}

/* Errors name the path given, with line numbers; a NUL is just a byte. */
Test(config_parse, errors_name_the_path_given)
{
	static const char text[] = "[daemon]\nnosuchkey = 1\n\0[x]\n";
	struct config cfg;
	struct config_errors errs;

	cr_assert_eq(config_parse(&cfg, "/nonexistent/b.conf", text,
	    sizeof(text) - 1, &errs), -EINVAL);
	cr_assert_geq(errs.n, 1);
	cr_assert(strncmp(errs.msgs[0], "/nonexistent/b.conf:2:", 22) == 0,
	    "%s", errs.msgs[0]);
	cr_assert_null(cfg.path);
	config_errors_release(&errs);
	config_release(&cfg);
}
