/*
 * bisectctl: a thin client over the control protocol.  Each command is a
 * row that says which arguments become which request members and how the
 * reply prints for people (daemon/ctlprint.c); --json prints the reply line
 * as the daemon sent it.  watch and status --follow keep a connection open
 * and read the daemon's event stream.
 *
 * Exit status: 0 ok, 1 the daemon answered with an error (or a followed
 * bisection ended failed or cancelled), 2 the daemon could not be reached,
 * 64 a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "ctl/client.h"
#include "ctl/print.h"
#include "ctl/stream.h"
#include "ctl/next.h"

/* The other exit statuses are enum client_result's values. */
#define EXIT_USAGE	64

/* How an argument's text is checked and what JSON it becomes. */
enum ctlarg_kind {
	ARG_STRING,		/* a non-empty string, given once */
	ARG_STRINGS,		/* a string; repeated, they form an array */
	ARG_FRACTION,		/* a number strictly between 0 and 1 */
	ARG_COUNT,		/* an integer from 1 to INT_MAX */
	ARG_INT,		/* an integer from INT_MIN to INT_MAX */
	ARG_ID,			/* a bisection id: an integer from 1 */
	ARG_TRUE,		/* an option without a value: true */
	ARG_OBJECT,		/* a JSON object that becomes the request */
};

/*
 * One option (--name) or positional argument.  field is the request
 * member it fills; a local argument is kept for bisectctl (--follow).
 */
struct ctlarg {
	const char		*name;
	const char		*field;
	enum ctlarg_kind	 kind;
	int			 required;
	int			 local;
};

/* What the command line chose, besides the request itself. */
struct ctlopts {
	const char	*path;		/* the daemon's socket */
	int		 raw;		/* --json before the command */
	unsigned	 pflags;	/* PRINT_ bits, e.g. report's --json */
	json_t		*local;		/* local arguments, by name */
};

struct ctlcmd;
/* Talks to the daemon for one command; returns the exit status. */
typedef int ctl_session(const struct ctlcmd *, struct ctlopts *, json_t *);

#define CTL_OWNJSON	0x1	/* --json after the command is its own */

struct ctlcmd {
	const char		*name;
	const char		*args;		/* usage text after the name */
	const char		*help;
	/* Runs without a daemon; gets the command's own argc/argv. */
	int			(*offline)(int, char **);
	struct ctlarg		 pos;		/* at most one; name NULL: none */
	const struct ctlarg	*opts;		/* ends with a NULL name */
	print_fn		*print;
	ctl_session		*session;	/* NULL: one request, one reply */
	unsigned		 flags;
};

static ctl_session	session_once;
static ctl_session	session_status;
static ctl_session	session_watch;

static const struct ctlarg bisect_opts[] = {
	{ "good",		"good",		ARG_STRINGS,	1, 0 },
	{ "bad",		"bad",		ARG_STRING,	1, 0 },
	{ "benchmark",		"benchmark",	ARG_STRING,	1, 0 },
	{ "metric",		"metric",	ARG_STRING,	1, 0 },
	{ "group",		"group",	ARG_STRING,	0, 0 },
	{ "confidence",		"confidence",	ARG_FRACTION,	0, 0 },
	{ "max-samples",	"max_samples",	ARG_COUNT,	0, 0 },
	{ "first-parent",	"first_parent",	ARG_TRUE,	0, 0 },
	{ "priority",		"priority",	ARG_INT,	0, 0 },
	{ NULL, NULL, 0, 0, 0 }
};
static const struct ctlarg status_opts[] = {
	{ "follow",		"follow",	ARG_TRUE,	0, 1 },
	{ NULL, NULL, 0, 0, 0 }
};
static const struct ctlarg samples_opts[] = {
	{ "commit",		"commit",	ARG_STRING,	0, 0 },
	{ NULL, NULL, 0, 0, 0 }
};

#define POS_NONE	{ NULL, NULL, 0, 0, 0 }
#define POS_ID		{ "ID", "bisection", ARG_ID, 1, 0 }
#define POS_HOST	{ "HOST", "host", ARG_STRING, 1, 0 }

static const struct ctlcmd ctlcmds[] = {
	{ "ping", "", "check that the daemon answers",
	    NULL, POS_NONE, NULL, print_pong, NULL, 0 },
	{ "version", "", "the daemon's version and uptime",
	    NULL, POS_NONE, NULL, print_version, NULL, 0 },
	{ "config", "", "the configuration in effect, without secrets",
	    NULL, POS_NONE, NULL, print_json, NULL, 0 },
	{ "hosts", "[GROUP]", "hosts, their state and current work",
	    NULL, { "GROUP", "group", ARG_STRING, 0, 0 }, NULL,
	    print_hosts, NULL, 0 },
	{ "drain", "HOST", "finish the host's current run, then give it none",
	    NULL, POS_HOST, NULL, print_drain, NULL, 0 },
	{ "undrain", "HOST", "give a drained host work again",
	    NULL, POS_HOST, NULL, print_drain, NULL, 0 },
	{ "reload", "", "reload the configuration file (as SIGHUP does)",
	    NULL, POS_NONE, NULL, print_reload, NULL, 0 },
	{ "bisect", "--good REV [--good REV ...] --bad REV --benchmark NAME "
	    "--metric NAME [--group G] [--confidence C] [--max-samples N] "
	    "[--first-parent] [--priority P]", "start a bisection",
	    NULL, POS_NONE, bisect_opts, print_bisect, NULL, 0 },
	{ "status", "[ID] [--follow]", "a bisection in detail, or all of them",
	    NULL, { "ID", "bisection", ARG_ID, 0, 0 }, status_opts,
	    print_status, session_status, 0 },
	{ "list", "", "all bisections, one line each",
	    NULL, POS_NONE, NULL, print_list, NULL, 0 },
	{ "cancel", "ID", "stop a bisection and its remote work",
	    NULL, POS_ID, NULL, print_cancel, NULL, 0 },
	{ "log", "ID", "the bisection as `git bisect log` lines",
	    NULL, POS_ID, NULL, print_log, NULL, 0 },
	{ "samples", "ID [--commit C]", "the samples of a bisection",
	    NULL, POS_ID, samples_opts, print_samples, NULL, 0 },
	{ "report", "ID [--json]", "the bisection's report (--json: its data)",
	    NULL, POS_ID, NULL, print_report, NULL, CTL_OWNJSON },
	{ "watch", "", "print events as they happen, until interrupted",
	    NULL, POS_NONE, NULL, NULL, session_watch, 0 },
	{ "raw", "JSON", "send one request object as is, print the reply",
	    NULL, { "JSON", NULL, ARG_OBJECT, 1, 0 }, NULL, print_json,
	    NULL, 0 },
	{ "next", "--repo DIR --bad REV --good REV ...",
	    "offline: the next commit to test (no daemon)",
	    next_main, POS_NONE, NULL, NULL, NULL, 0 },
};

/* Long argument lists wrap under the command, at word boundaries. */
static void
usage_args(const char *args)
{
	const char *p = args, *sp;
	int col = 0, n;

	fprintf(stderr, "  %-8s", "");
	while (*p != '\0') {
		sp = strchr(p, ' ');
		n = sp != NULL ? (int)(sp - p) : (int)strlen(p);
		if (col > 0 && col + n > 66) {
			fprintf(stderr, "\n  %-10s", "");
			col = 2;
		}
		fprintf(stderr, " %.*s", n, p);
		col += n + 1;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', stderr);
}

/* Generated from the table, so the help never misses a command. */
static void __attribute__((noreturn))
usage(void)
{
	const struct ctlcmd *cmd;
	size_t i;

	fprintf(stderr, "usage: bisectctl [-s socket] [--json] command "
	    "[args]\ncommands:\n");
	for (i = 0; i < sizeof(ctlcmds) / sizeof(ctlcmds[0]); i++) {
		cmd = &ctlcmds[i];
		if (strlen(cmd->args) <= 36) {
			fprintf(stderr, "  %-8s %-36s %s\n", cmd->name,
			    cmd->args, cmd->help);
			continue;
		}
		fprintf(stderr, "  %-8s %-36s %s\n", cmd->name, "",
		    cmd->help);
		usage_args(cmd->args);
	}
	fprintf(stderr, "socket: -s, else $BISECTD_SOCKET, else %s\n",
	    client_default_socket());
	exit(EXIT_USAGE);
}

/* A usage error of one command: what is wrong, then its synopsis. */
static int __attribute__((format(printf, 2, 3)))
cmd_usage(const struct ctlcmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bisectctl %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: bisectctl %s %s\n", cmd->name, cmd->args);
	return EXIT_USAGE;
}

/* The whole text must be an integer in [lo, hi]; 0 or -1. */
static int
parse_int(const char *s, long long lo, long long hi, long long *vp)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*vp = v;
	return 0;
}

/*
 * Turns one argument's text into JSON, or NULL with *why saying what was
 * expected; checking here gives a usage error before the daemon is asked.
 */
static json_t *
arg_value(const struct ctlarg *a, const char *text, const char **why)
{
	json_error_t jerr;
	json_t *o;
	long long v;
	double d;
	char *end;

	switch (a->kind) {
	case ARG_STRING:
	case ARG_STRINGS:
		*why = "a non-empty value";
		return *text != '\0' ? json_string(text) : NULL;
	case ARG_FRACTION:
		*why = "a number between 0 and 1, such as 0.99";
		errno = 0;
		d = strtod(text, &end);
		if (*text == '\0' || *end != '\0' || errno != 0 ||
		    !isfinite(d) || d <= 0.0 || d >= 1.0)
			return NULL;
		return json_real(d);
	case ARG_COUNT:
		*why = "a whole number of at least 1";
		return parse_int(text, 1, INT_MAX, &v) == 0 ?
		    json_integer(v) : NULL;
	case ARG_INT:
		*why = "a whole number";
		return parse_int(text, INT_MIN, INT_MAX, &v) == 0 ?
		    json_integer(v) : NULL;
	case ARG_ID:
		*why = "a bisection id (a whole number of at least 1)";
		return parse_int(text, 1, LLONG_MAX, &v) == 0 ?
		    json_integer(v) : NULL;
	case ARG_TRUE:
		return json_true();
	case ARG_OBJECT:
		*why = "a JSON object";
		o = json_loads(text, 0, &jerr);
		if (o != NULL && !json_is_object(o)) {
			json_decref(o);
			o = NULL;
		}
		return o;
	}
	return NULL;
}

/* Stores one argument in the request (or locally); 0 or a usage exit. */
static int
arg_store(const struct ctlcmd *cmd, const struct ctlarg *a, const char *text,
    json_t *req, json_t *local)
{
	json_t *dst = a->local ? local : req, *v, *arr;
	const char *why = "";
	const char *dash = a == &cmd->pos ? "" : "--";

	v = arg_value(a, text, &why);
	if (v == NULL)
		return cmd_usage(cmd, "%s%s: expected %s, not '%s'", dash,
		    a->name, why, text);
	if (a->kind == ARG_OBJECT) {
		json_object_clear(req);
		json_object_update(req, v);
		json_decref(v);
		return 0;
	}
	if (a->kind == ARG_STRINGS) {
		arr = json_object_get(dst, a->field);
		if (arr == NULL) {
			arr = json_array();
			json_object_set_new(dst, a->field, arr);
		}
		json_array_append_new(arr, v);
		return 0;
	}
	if (a->kind != ARG_TRUE && json_object_get(dst, a->field) != NULL) {
		json_decref(v);
		return cmd_usage(cmd, "%s%s given twice", dash, a->name);
	}
	json_object_set_new(dst, a->field, v);
	return 0;
}

/* Every required argument must be there. */
static int
args_check(const struct ctlcmd *cmd, const json_t *req, const json_t *local)
{
	const struct ctlarg *a;

	for (a = cmd->opts; a != NULL && a->name != NULL; a++)
		if (a->required && json_object_get(a->local ? local : req,
		    a->field) == NULL)
			return cmd_usage(cmd, "--%s is required", a->name);
	return 0;
}

/*
 * Fills req from the command's arguments as the table describes them;
 * argv[0] is the command.  Returns 0 or EXIT_USAGE (message printed).
 */
static int
args_parse(const struct ctlcmd *cmd, int argc, char **argv, json_t *req,
    json_t *local)
{
	struct option longopts[16];
	size_t n = 0;
	int ch, rc, npos;

	memset(longopts, 0, sizeof(longopts));
	for (n = 0; cmd->opts != NULL && cmd->opts[n].name != NULL &&
	    n + 1 < sizeof(longopts) / sizeof(longopts[0]); n++) {
		longopts[n].name = cmd->opts[n].name;
		longopts[n].has_arg = cmd->opts[n].kind == ARG_TRUE ?
		    no_argument : required_argument;
		longopts[n].val = 256 + (int)n;
	}
	optind = 0;		/* glibc: start over with the new vector */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (ch == ':')
			return cmd_usage(cmd, "%s needs a value",
			    argv[optind - 1]);
		if (ch < 256)
			return cmd_usage(cmd, "unknown option %s",
			    argv[optind - 1]);
		rc = arg_store(cmd, &cmd->opts[ch - 256], optarg, req, local);
		if (rc != 0)
			return rc;
	}
	npos = argc - optind;
	if (npos > (cmd->pos.name != NULL ? 1 : 0))
		return cmd_usage(cmd, "unexpected argument '%s'",
		    argv[argc - 1]);
	if (npos == 0 && cmd->pos.name != NULL && cmd->pos.required)
		return cmd_usage(cmd, "%s is missing", cmd->pos.name);
	if (npos == 1) {
		rc = arg_store(cmd, &cmd->pos, argv[optind], req, local);
		if (rc != 0)
			return rc;
	}
	return args_check(cmd, req, local);
}

/* Connects and asks; the reply printed raw, for people, or as an error. */
static int
session_once(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	struct client c;
	struct bd_error err;
	json_t *reply;
	char *line;
	int rc;

	client_init(&c);
	bd_error_clear(&err);
	rc = (int)client_call(&c, o->path, req, &line, &reply, &err);
	if (rc == CLIENT_UNREACHED)
		fprintf(stderr, "bisectctl: %s\n", err.msg);
	else if (o->raw)
		printf("%s\n", line);
	else if (rc == CLIENT_OK)
		cmd->print(stdout, reply, req, o->pflags);
	else
		print_error(stderr, reply);
	free(line);
	json_decref(reply);
	client_release(&c);
	return rc;
}

/* status prints once, or with --follow until the bisection ends. */
static int
session_status(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	if (!json_is_true(json_object_get(o->local, "follow")))
		return session_once(cmd, o, req);
	if (!json_is_integer(json_object_get(req, "bisection")))
		return cmd_usage(cmd, "--follow needs a bisection ID");
	return stream_follow(o->path, req, o->raw);
}

/* The event stream until the daemon closes it or the user interrupts. */
static int
session_watch(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	(void)cmd;
	return stream_watch(o->path, req, o->raw);
}

/* Builds the request from the arguments and hands it to the session. */
static int
run(const struct ctlcmd *cmd, struct ctlopts *o, int argc, char **argv)
{
	json_t *req;
	int rc;

	req = json_pack("{s:s}", "cmd", cmd->name);
	o->local = json_object();
	rc = args_parse(cmd, argc, argv, req, o->local);
	if (rc == 0)
		rc = (cmd->session != NULL ? cmd->session :
		    session_once)(cmd, o, req);
	json_decref(o->local);
	json_decref(req);
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
	struct ctlopts o;
	const struct ctlcmd *cmd = NULL;
	int ch, nargs, i;
	size_t k;

	memset(&o, 0, sizeof(o));
	o.path = client_default_socket();
	/* "+": options after the command belong to the command. */
	while ((ch = getopt_long(argc, argv, "+s:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			o.path = optarg;
			break;
		case 'j':
			o.raw = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	for (k = 0; k < sizeof(ctlcmds) / sizeof(ctlcmds[0]); k++)
		if (strcmp(ctlcmds[k].name, argv[0]) == 0)
			cmd = &ctlcmds[k];
	if (cmd == NULL) {
		fprintf(stderr, "bisectctl: unknown command %s\n", argv[0]);
		usage();
	}
	if (cmd->offline != NULL)
		return cmd->offline(argc, argv);
	/*
	 * `bisectctl hosts --json` means what `bisectctl --json hosts` does;
	 * `report ID --json` asks for the report's data instead.
	 */
	for (i = 1, nargs = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") != 0)
			argv[nargs++] = argv[i];
		else if (cmd->flags & CTL_OWNJSON)
			o.pflags |= PRINT_JSON;
		else
			o.raw = 1;
	}
	argv[nargs] = NULL;
	return run(cmd, &o, nargs, argv);
}
