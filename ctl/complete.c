/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/client.h"
#include "ctl/complete.h"

extern char **environ;

/* Where the values of an argument come from. */
enum complete_src {
	COMPLETE_NONE = 0,
	COMPLETE_REVS,		/* the daemon's repository */
	COMPLETE_IDS,		/* list */
	COMPLETE_BENCHMARKS,	/* config */
	COMPLETE_METRICS,
	COMPLETE_GROUPS,
	COMPLETE_HOSTS,
	COMPLETE_SWEEPS,
};

/* Request fields by what fills them; the rest complete as files. */
static const struct {
	const char		*field;
	enum complete_src	 src;
} complete_fields[] = {
	{ "good", COMPLETE_REVS },
	{ "bad", COMPLETE_REVS },
	{ "commit", COMPLETE_REVS },
	{ "bisection", COMPLETE_IDS },
	{ "benchmark", COMPLETE_BENCHMARKS },
	{ "metric", COMPLETE_METRICS },
	{ "group", COMPLETE_GROUPS },
	{ "on", COMPLETE_GROUPS },
	{ "host", COMPLETE_HOSTS },
	{ "name", COMPLETE_SWEEPS },
};

/* The state of one completion: the daemon's answers, asked for once. */
struct complete {
	const char	*sock;
	const char	*benchmark;	/* --benchmark already given */
	json_t		*config;	/* NULL: not asked yet */
	json_t		*list;
};

/* One answer of the daemon, or an empty object when it gives none. */
static json_t *
complete_ask(const char *sock, const char *cmd)
{
	struct client c;
	struct bd_error err;
	json_t *req = json_pack("{s:s}", "cmd", cmd), *reply = NULL;
	char *line = NULL;

	client_init(&c);
	bd_error_clear(&err);
	if (client_call(&c, sock, req, &line, &reply, &err) != CLIENT_OK) {
		json_decref(reply);
		reply = NULL;
	}
	free(line);
	client_release(&c);
	json_decref(req);
	return reply != NULL ? reply : json_object();
}

/* The configuration in effect, asked for at most once. */
static json_t *
complete_config(struct complete *cp)
{
	if (cp->config == NULL)
		cp->config = complete_ask(cp->sock, "config");
	return json_object_get(cp->config, "config");
}

/* Prints member key of each object of array, each value once. */
static void
complete_names(const json_t *array, const char *key)
{
	json_t *seen = json_object(), *e;
	const char *s;
	size_t i;

	json_array_foreach(array, i, e) {
		s = json_string_value(json_object_get(e, key));
		if (s == NULL || json_object_get(seen, s) != NULL)
			continue;
		json_object_set_new(seen, s, json_true());
		printf("%s\n", s);
	}
	json_decref(seen);
}

/*
 * The refs of the repository the daemon uses, by git itself (an argument
 * vector, read-only); a repository the user cannot read gives none.
 */
static void
complete_revs(struct complete *cp)
{
	const char *path = json_string_value(json_object_get(json_object_get(
	    complete_config(cp), "repo"), "path"));
	char *argv[] = { "git", "-C", (char *)path, "for-each-ref",
	    "--format=%(refname:short)", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	if (path == NULL)
		return;
	fflush(stdout);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
	    O_WRONLY, 0);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ) == 0)
		while (waitpid(pid, &st, 0) < 0)
			;
	posix_spawn_file_actions_destroy(&fa);
}

/* The values an argument filling field may take. */
static void
complete_values(struct complete *cp, const char *field)
{
	enum complete_src src = COMPLETE_NONE;
	json_t *cfg, *b, *l;
	const char *name;
	size_t i;

	for (i = 0; i < sizeof(complete_fields) / sizeof(complete_fields[0]);
	    i++)
		if (strcmp(complete_fields[i].field, field) == 0)
			src = complete_fields[i].src;
	switch (src) {
	case COMPLETE_NONE:
		break;
	case COMPLETE_REVS:
		complete_revs(cp);
		break;
	case COMPLETE_IDS:
		if (cp->list == NULL)
			cp->list = complete_ask(cp->sock, "list");
		json_array_foreach(json_object_get(cp->list, "bisections"), i,
		    l)
			printf("%lld\n", (long long)json_integer_value(
			    json_object_get(l, "id")));
		break;
	case COMPLETE_BENCHMARKS:
		complete_names(json_object_get(complete_config(cp),
		    "benchmarks"), "name");
		break;
	case COMPLETE_METRICS:
		cfg = complete_config(cp);
		json_array_foreach(json_object_get(cfg, "benchmarks"), i, b) {
			name = json_string_value(json_object_get(b, "name"));
			if (cp->benchmark == NULL || (name != NULL &&
			    strcmp(name, cp->benchmark) == 0))
				complete_names(json_object_get(b, "metrics"),
				    "name");
		}
		break;
	case COMPLETE_GROUPS:
		complete_names(json_object_get(complete_config(cp), "hosts"),
		    "group");
		break;
	case COMPLETE_HOSTS:
		complete_names(json_object_get(complete_config(cp), "hosts"),
		    "name");
		break;
	case COMPLETE_SWEEPS:
		complete_names(json_object_get(complete_config(cp), "sweeps"),
		    "name");
		break;
	}
}

/* The option of set spelt word, or NULL. */
static const struct args_spec *
complete_option(const struct args_set *set, const char *word)
{
	size_t i;

	for (i = 0; i < set->nopts; i++)
		if (strcmp(set->opts[i].name, word) == 0)
			return &set->opts[i];
	return NULL;
}

/*
 * After the command: the value of the option just typed, else the options
 * not given yet (a repeatable one always) and the positional argument's
 * values while it is missing.
 */
static void
complete_command(struct complete *cp, const struct args_set *set, int argc,
    char **argv)
{
	const struct args_spec *a;
	char given[ARGS_OPTS_MAX] = { 0 };
	int i, npos = 0;
	size_t k;

	for (i = 0; i < argc; i++) {
		if ((a = complete_option(set, argv[i])) == NULL) {
			npos += argv[i][0] != '-';
			continue;
		}
		given[a - set->opts] = 1;
		if (a->kind == ARGS_TRUE)
			continue;
		if (i + 1 == argc) {
			complete_values(cp, a->field);
			return;
		}
		if (strcmp(a->field, "benchmark") == 0)
			cp->benchmark = argv[i + 1];
		i++;
	}
	for (k = 0; k < set->nopts; k++)
		if (!given[k] || set->opts[k].kind == ARGS_STRINGS)
			printf("%s\n", set->opts[k].name);
	printf("--json\n--help\n");
	if (set->pos.name != NULL && set->pos.field != NULL && npos == 0)
		complete_values(cp, set->pos.field);
}

int
complete_main(const struct complete_ctl *ctl, const char *sock, int argc,
    char **argv)
{
	struct complete cp = { .sock = sock };
	struct args_set set;
	int i;

	for (i = 0; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-s") == 0 ||
		    strcmp(argv[i], "--socket") == 0) {
			if (i + 1 == argc)
				return 0;	/* a file name */
			cp.sock = argv[++i];
		} else if (strncmp(argv[i], "--socket=", 9) == 0)
			cp.sock = argv[i] + 9;
	}
	if (i == argc) {
		for (i = 0; ctl->commands[i] != NULL; i++)
			printf("%s\n", ctl->commands[i]);
		for (i = 0; ctl->globals[i] != NULL; i++)
			printf("%s\n", ctl->globals[i]);
		return 0;
	}
	if (ctl->args(argv[i], &set) == 0)
		complete_command(&cp, &set, argc - i - 1, argv + i + 1);
	json_decref(cp.config);
	json_decref(cp.list);
	fflush(stdout);
	return 0;
}
