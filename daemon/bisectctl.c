/*
 * bisectctl: a thin client over the control protocol.  Each command is a
 * row that turns arguments into a request and prints the reply for people;
 * --json prints the reply line as the daemon sent it.
 *
 * Exit status: 0 ok, 1 the daemon answered with an error, 2 the daemon
 * could not be reached, 64 a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "daemon/client.h"
#include "daemon/next.h"
#include "daemon/proto.h"

#define EXIT_OK		0
#define EXIT_ERROR	1
#define EXIT_UNREACHED	2
#define EXIT_USAGE	64

struct ctlcmd {
	const char	*name;
	const char	*args;		/* usage text after the name */
	const char	*help;
	/* Runs without a daemon; gets the command's own argc/argv. */
	int		(*offline)(int, char **);
	int		 minargs, maxargs;
	/* Adds fields from argv (argv[0] is the command) to req. */
	int		(*build)(int, char **, json_t *);
	void		(*print)(const json_t *);
};

static void	print_pong(const json_t *);
static void	print_version(const json_t *);
static void	print_json(const json_t *);
static void	print_hosts(const json_t *);
static void	print_reload(const json_t *);
static int	build_hosts(int, char **, json_t *);
static int	build_raw(int, char **, json_t *);

static const struct ctlcmd ctlcmds[] = {
	{ "ping", "", "check that the daemon answers",
	    NULL, 0, 0, NULL, print_pong },
	{ "version", "", "the daemon's version and uptime",
	    NULL, 0, 0, NULL, print_version },
	{ "config", "", "the configuration in effect, without secrets",
	    NULL, 0, 0, NULL, print_json },
	{ "hosts", "[GROUP]", "configured hosts and their state",
	    NULL, 0, 1, build_hosts, print_hosts },
	{ "reload", "", "reload the configuration file (as SIGHUP does)",
	    NULL, 0, 0, NULL, print_reload },
	{ "raw", "JSON", "send one request object as is, print the reply",
	    NULL, 1, 1, build_raw, print_json },
	{ "next", "--repo DIR --bad REV --good REV ...",
	    "offline: the next commit to test (no daemon)",
	    next_main, 0, -1, NULL, NULL },
};

/* Generated from the table, so the help never misses a command. */
static void __attribute__((noreturn))
usage(void)
{
	size_t i;

	fprintf(stderr, "usage: bisectctl [-s socket] [--json] command "
	    "[args]\ncommands:\n");
	for (i = 0; i < sizeof(ctlcmds) / sizeof(ctlcmds[0]); i++)
		fprintf(stderr, "  %-8s %-36s %s\n", ctlcmds[i].name,
		    ctlcmds[i].args, ctlcmds[i].help);
	fprintf(stderr, "socket: -s, else $BISECTD_SOCKET, else %s\n",
	    client_default_socket());
	exit(EXIT_USAGE);
}

/* Missing strings print as "-" rather than crashing the output. */
static const char *
str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "-";
}

/* Printers turn replies into text; this one has nothing to add. */
static void
print_pong(const json_t *r)
{
	(void)r;
	printf("pong\n");
}

/* One line, as a person would want it in a terminal. */
static void
print_version(const json_t *r)
{
	printf("bisectd %s (protocol %lld), pid %lld, up %llds\n",
	    str(r, "version"),
	    (long long)json_integer_value(json_object_get(r, "protocol")),
	    (long long)json_integer_value(json_object_get(r, "pid")),
	    (long long)json_integer_value(json_object_get(r, "uptime_s")));
}

/* Pretty JSON without the envelope: what a person wants to read. */
static void
print_json(const json_t *r)
{
	json_t *copy = json_deep_copy(r);
	char *s;

	json_object_del(copy, "ok");
	json_object_del(copy, "id");
	s = json_dumps(copy, JSON_INDENT(2));
	if (s != NULL)
		printf("%s\n", s);
	free(s);
	json_decref(copy);
}

/* Cells of the hosts table, one row per host; roles joined with commas. */
static void
hosts_row(const json_t *h, char cells[6][128])
{
	const json_t *roles = json_object_get(h, "roles"), *v;
	size_t i, n = 0;

	snprintf(cells[0], 128, "%s", str(h, "name"));
	snprintf(cells[1], 128, "%s", str(h, "address"));
	snprintf(cells[2], 128, "%lld",
	    (long long)json_integer_value(json_object_get(h, "port")));
	snprintf(cells[3], 128, "%s", str(h, "group"));
	cells[4][0] = '\0';
	json_array_foreach(roles, i, v)
		n += (size_t)snprintf(cells[4] + n, n < 128 ? 128 - n : 0,
		    "%s%s", i ? "," : "", json_string_value(v));
	if (cells[4][0] == '\0')
		strcpy(cells[4], "-");
	snprintf(cells[5], 128, "%s", str(h, "state"));
}

/* An aligned table: widths from the longest cell of each column. */
static void
print_hosts(const json_t *r)
{
	static const char *const head[6] = {
		"NAME", "ADDRESS", "PORT", "GROUP", "ROLES", "STATE"
	};
	const json_t *hosts = json_object_get(r, "hosts"), *h;
	char cells[6][128];
	int width[6], c;
	size_t i;

	for (c = 0; c < 6; c++)
		width[c] = (int)strlen(head[c]);
	json_array_foreach(hosts, i, h) {
		hosts_row(h, cells);
		for (c = 0; c < 6; c++)
			if ((int)strlen(cells[c]) > width[c])
				width[c] = (int)strlen(cells[c]);
	}
	for (c = 0; c < 6; c++)
		printf("%-*s%s", c < 5 ? width[c] : 0, head[c],
		    c < 5 ? "  " : "\n");
	json_array_foreach(hosts, i, h) {
		hosts_row(h, cells);
		for (c = 0; c < 6; c++)
			printf("%-*s%s", c < 5 ? width[c] : 0, cells[c],
			    c < 5 ? "  " : "\n");
	}
	if (json_array_size(hosts) == 0)
		printf("(no hosts configured)\n");
}

/* Names each setting that waits for a restart, so none is missed. */
static void
print_reload(const json_t *r)
{
	const json_t *v;
	size_t i;

	printf("configuration reloaded\n");
	json_array_foreach(json_object_get(r, "restart_needed"), i, v)
		printf("note: %s changed; it takes effect after a restart\n",
		    json_string_value(v));
}

/* The optional positional argument is the group filter. */
static int
build_hosts(int argc, char **argv, json_t *req)
{
	if (argc > 1)
		json_object_set_new(req, "group", json_string(argv[1]));
	return 0;
}

/* The request is the user's object as given; the table's cmd is dropped. */
static int
build_raw(int argc, char **argv, json_t *req)
{
	json_error_t jerr;
	json_t *obj;

	(void)argc;
	obj = json_loads(argv[1], 0, &jerr);
	if (obj == NULL || !json_is_object(obj)) {
		fprintf(stderr, "bisectctl raw: not a JSON object: %s\n",
		    obj == NULL ? jerr.text : argv[1]);
		json_decref(obj);
		return -1;
	}
	json_object_clear(req);
	json_object_update(req, obj);
	json_decref(obj);
	return 0;
}

/* An error reply in words, with any per-item detail the daemon sent. */
static void
print_error(const json_t *reply)
{
	const json_t *e = json_object_get(reply, "error"), *v;
	size_t i;

	fprintf(stderr, "bisectctl: %s: %s\n", str(e, "code"),
	    str(e, "message"));
	json_array_foreach(json_object_get(e, "errors"), i, v)
		fprintf(stderr, "  %s\n", json_string_value(v));
}

/* The common path of every daemon command: request, reply, exit status. */
static int
run(const struct ctlcmd *cmd, const char *path, int raw, int argc,
    char **argv)
{
	struct client c;
	struct bd_error err;
	json_t *req, *reply = NULL;
	char *line = NULL;
	int rc;

	req = json_pack("{s:s}", "cmd", cmd->name);
	if (cmd->build != NULL && cmd->build(argc, argv, req) < 0) {
		json_decref(req);
		return EXIT_USAGE;
	}
	client_init(&c);
	bd_error_clear(&err);
	if (client_connect(&c, path, &err) < 0 ||
	    client_request(&c, req, &line, &reply, &err) < 0) {
		fprintf(stderr, "bisectctl: %s\n", err.msg);
		rc = EXIT_UNREACHED;
		goto out;
	}
	rc = json_is_true(json_object_get(reply, "ok")) ? EXIT_OK :
	    EXIT_ERROR;
	if (raw)
		printf("%s\n", line);
	else if (rc == EXIT_OK)
		cmd->print(reply);
	else
		print_error(reply);
out:
	free(line);
	json_decref(reply);
	json_decref(req);
	client_release(&c);
	return rc;
}

/* Global options first, then the command and its own arguments. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = client_default_socket();
	const struct ctlcmd *cmd = NULL;
	int ch, raw = 0, nargs;
	size_t i;

	/* "+": options after the command belong to the command (next). */
	while ((ch = getopt_long(argc, argv, "+s:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			path = optarg;
			break;
		case 'j':
			raw = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	for (i = 0; i < sizeof(ctlcmds) / sizeof(ctlcmds[0]); i++)
		if (strcmp(ctlcmds[i].name, argv[0]) == 0)
			cmd = &ctlcmds[i];
	if (cmd == NULL) {
		fprintf(stderr, "bisectctl: unknown command %s\n", argv[0]);
		usage();
	}
	if (cmd->offline != NULL)
		return cmd->offline(argc, argv);
	/* `bisectctl hosts --json` means what `bisectctl --json hosts` does. */
	for (i = 1, nargs = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			raw = 1;
		else
			argv[nargs++] = argv[i];
	}
	argc = nargs;
	nargs = argc - 1;
	if (nargs < cmd->minargs || (cmd->maxargs >= 0 &&
	    nargs > cmd->maxargs)) {
		fprintf(stderr, "usage: bisectctl %s %s\n", cmd->name,
		    cmd->args);
		return EXIT_USAGE;
	}
	return run(cmd, path, raw, argc, argv);
}
