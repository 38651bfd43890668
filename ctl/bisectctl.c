/* SPDX-License-Identifier: MIT */
/*
 * bisectctl: a thin client over the control protocol.  Each command is a
 * row of the protocol table (common/proto_cmd.c: its fields, usage and
 * help; a field's "arg" says which option or argument fills it); the table
 * here adds how the reply prints for people (ctl/print.c) and bisectctl's
 * own arguments.  --json, before or after the command, prints the reply
 * line as the daemon sent it.
 * watch and status --follow keep a connection open and read the daemon's
 * event stream.  Text for people goes through ctl/termout.c, so no
 * control character from a reply reaches the terminal; JSON does not.
 *
 * Exit status: 0 ok, 1 the daemon answered with an error (or a followed
 * bisection ended failed or cancelled), 2 the daemon could not be reached,
 * 3 and 4 a followed bisection ended not reproduced or inconclusive
 * (status --follow, bisect --wait), 64 a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/names.h"
#include "common/proto_cmd.h"
#include "ctl/args.h"
#include "ctl/client.h"
#include "ctl/complete.h"
#include "ctl/next.h"
#include "ctl/print.h"
#include "ctl/report_html.h"
#include "ctl/report_kcidb.h"
#include "ctl/stream.h"
#include "ctl/termout.h"

/* The other exit statuses are enum client_result's values. */
#define EXIT_USAGE	64

/* What the command line chose, besides the request itself. */
struct ctlopts {
	const char	*path;		/* the daemon's socket */
	int		 raw;		/* --json before the command */
	json_t		*local;		/* local arguments, by name */
};

struct ctlcmd;
/* Talks to the daemon for one command; returns the exit status. */
typedef int ctl_session(const struct ctlcmd *, struct ctlopts *, json_t *);

/* What bisectctl adds to a command's row of the protocol table. */
struct ctlside {
	print_fn		*print;		/* NULL: print_json */
	ctl_session		*session;	/* NULL: a single request */
	const struct args_spec	*local;		/* ends with a NULL name */
	/* Runs without a daemon; gets the command's own argc/argv. */
	int			(*offline)(int, char **);
};

/* A command as bisectctl runs it: its row, its side and its arguments. */
struct ctlcmd {
	const struct proto_cmd	*row;
	const struct ctlside	*side;
	struct args_set		 args;
};

static ctl_session	session_once;
static ctl_session	session_report;
static ctl_session	session_backup;
static ctl_session	session_status;
static ctl_session	session_bisect;
static ctl_session	session_watch;
static int		help_main(int, char **);

static const struct args_spec status_local[] = {
	{ .name = "--follow", .field = "follow", .kind = ARGS_TRUE,
	    .local = 1, .help = "show the progress until the bisection ends; "
	    "the exit status tells how" },
	{ .name = NULL }
};
static const struct args_spec bisect_local[] = {
	{ .name = "--wait", .field = "wait", .kind = ARGS_TRUE,
	    .local = 1, .help = "follow the bisection as status --follow "
	    "does, with its exit status" },
	{ .name = NULL }
};
static const struct args_spec report_local[] = {
	{ .name = "--html", .field = "html", .kind = ARGS_STRING, .local = 1,
	    .help = "write one self-contained HTML page with plots to FILE" },
	{ .name = "--kcidb", .field = "kcidb", .kind = ARGS_TRUE, .local = 1,
	    .help = "print a culprit's report as KCIDB I/O data" },
	{ .name = NULL }
};
static const struct args_spec raw_local[] = {
	{ .name = "JSON", .kind = ARGS_OBJECT, .required = 1,
	    .help = "the request, one JSON object with its \"cmd\"" },
	{ .name = NULL }
};

/* How bisectctl prints and talks for each command of the protocol. */
static const struct ctlside ctl_sides[PROTO_CMD_COUNT] = {
	[PROTO_CMD_PING] = { .print = print_pong },
	[PROTO_CMD_VERSION] = { .print = print_version },
	[PROTO_CMD_CONFIG] = { .print = print_json },
	[PROTO_CMD_HOSTS] = { .print = print_hosts },
	[PROTO_CMD_DRAIN] = { .print = print_drain },
	[PROTO_CMD_UNDRAIN] = { .print = print_drain },
	[PROTO_CMD_RELOAD] = { .print = print_reload },
	[PROTO_CMD_BACKUP] = { .print = print_backup,
	    .session = session_backup },
	[PROTO_CMD_REPO] = { .print = print_repo },
	[PROTO_CMD_FETCH] = { .print = print_fetch },
	[PROTO_CMD_BISECT] = { .print = print_bisect,
	    .session = session_bisect, .local = bisect_local },
	[PROTO_CMD_STATUS] = { .print = print_status,
	    .session = session_status, .local = status_local },
	[PROTO_CMD_LIST] = { .print = print_list },
	[PROTO_CMD_CANCEL] = { .print = print_cancel },
	[PROTO_CMD_VERIFY] = { .print = print_verify },
	[PROTO_CMD_LOG] = { .print = print_log },
	[PROTO_CMD_SAMPLES] = { .print = print_samples },
	[PROTO_CMD_REPORT] = { .print = print_report,
	    .session = session_report, .local = report_local },
	[PROTO_CMD_SWEEPS] = { .print = print_sweeps },
	[PROTO_CMD_SWEEP] = { .print = print_sweep },
	/* PROTO_CMD_STREAMS: the event stream, printed line by line. */
	[PROTO_CMD_WATCH] = { .print = NULL },
};

/* Commands of bisectctl alone, listed after the protocol's. */
static const struct {
	struct proto_cmd	row;
	struct ctlside		side;
} ctl_only[] = {
	{ .row = { .name = "raw", .usage = "JSON",
	    .help = "send one request object as is, print the reply" },
	  .side = { .print = print_json, .local = raw_local } },
	{ .row = { .name = "next",
	    .usage = "--repo DIR --bad REV --good REV ...",
	    .help = "offline: the next commit to test (no daemon)" },
	  .side = { .offline = next_main } },
	{ .row = { .name = "help", .usage = "[COMMAND]",
	    .help = "this list, or one command's usage and help" },
	  .side = { .offline = help_main } },
};

/* Long argument lists wrap under the command, at word boundaries. */
static void
usage_args(FILE *out, const char *args)
{
	const char *p = args, *sp;
	int col = 0, n;

	fprintf(out, "  %-8s", "");
	while (*p != '\0') {
		sp = strchr(p, ' ');
		n = sp != NULL ? (int)(sp - p) : (int)strlen(p);
		if (col > 0 && col + n > 66) {
			fprintf(out, "\n  %-10s", "");
			col = 2;
		}
		fprintf(out, " %.*s", n, p);
		col += n + 1;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* One line of the command list; a long usage wraps under it. */
static void
usage_row(FILE *out, const struct proto_cmd *row)
{
	if (row->flags & PROTO_CMD_HIDDEN)
		return;
	if (strlen(row->usage) <= 36) {
		fprintf(out, "  %-8s %-36s %s\n", row->name, row->usage,
		    row->help);
		return;
	}
	fprintf(out, "  %-8s %-36s %s\n", row->name, "", row->help);
	usage_args(out, row->usage);
}

/* Generated from the tables, so the help never misses a command. */
static void
usage_print(FILE *out)
{
	size_t i;

	fprintf(out, "usage: bisectctl [-s socket] [--json] command "
	    "[args]\ncommands:\n");
	for (i = 0; i < PROTO_CMD_COUNT; i++)
		usage_row(out, &proto_cmd_table[i]);
	for (i = 0; i < sizeof(ctl_only) / sizeof(ctl_only[0]); i++)
		usage_row(out, &ctl_only[i].row);
	fprintf(out, "socket: -s, else $BISECTD_SOCKET, else %s\n",
	    client_default_socket());
}

/* A usage error of bisectctl as a whole. */
static void __attribute__((noreturn))
usage(void)
{
	usage_print(stderr);
	exit(EXIT_USAGE);
}

/*
 * The value an option takes, as the usage line spells it ("REV" after
 * "--good"), so the option list and the synopsis agree.
 */
static int
help_metavar(const char *usage, const char *opt, char *buf, size_t len)
{
	const char *p = usage, *v;
	size_t n, olen = strlen(opt);
	int depth;

	while ((p = strstr(p, opt)) != NULL) {
		if (p[olen] == ' ' && p[olen + 1] != '-' && p[olen + 1] != '[')
			break;
		p += olen;
	}
	if (p == NULL)
		return snprintf(buf, len, "VALUE");
	/* It ends at a space or at the "]" that closes the option's own. */
	v = p + olen + 1;
	for (n = 0, depth = 0; v[n] != '\0' && v[n] != ' '; n++) {
		if (v[n] == '[')
			depth++;
		else if (v[n] == ']' && depth-- == 0)
			break;
	}
	return snprintf(buf, len, "%.*s", (int)n, v);
}

/* One line of a command's option list: the spelling, then its meaning. */
static void
help_arg(FILE *out, const struct ctlcmd *cmd, const struct args_spec *a)
{
	char spell[64], meta[32];

	if (a->kind == ARGS_TRUE || strncmp(a->name, "--", 2) != 0)
		snprintf(spell, sizeof(spell), "%s", a->name);
	else {
		help_metavar(cmd->row->usage, a->name, meta, sizeof(meta));
		snprintf(spell, sizeof(spell), "%s %s", a->name, meta);
	}
	fprintf(out, "  %-20s %s", spell, a->help != NULL ? a->help : "");
	if (a->max > a->min)
		fprintf(out, " (%lld to %lld)", a->min, a->max);
	if (a->required && strncmp(a->name, "--", 2) == 0)
		fprintf(out, " (required)");
	fputc('\n', out);
}

/*
 * `bisectctl help CMD` and `bisectctl CMD --help`: the synopsis, what the
 * command does and every argument with a line on its meaning.
 */
static void
help_cmd(FILE *out, const struct ctlcmd *cmd)
{
	size_t i;

	fprintf(out, "usage: bisectctl %s%s%s\n%s\n", cmd->row->name,
	    *cmd->row->usage != '\0' ? " " : "", cmd->row->usage,
	    cmd->row->help);
	fprintf(out, "arguments:\n");
	if (cmd->args.pos.name != NULL)
		help_arg(out, cmd, &cmd->args.pos);
	for (i = 0; i < cmd->args.nopts; i++)
		help_arg(out, cmd, &cmd->args.opts[i]);
	if (cmd->side->offline == NULL)
		fprintf(out, "  %-20s %s\n", "--json", "print the reply as "
		    "the daemon sent it, as before the command");
	fprintf(out, "  %-20s %s\n", "--help", "this help");
}

/* "did you mean": the nearest command to a misspelt one, or NULL. */
static const char *
ctl_guess_command(const char *word)
{
	struct name_guess g;
	size_t i;

	name_guess_init(&g, word);
	for (i = 0; i < PROTO_CMD_COUNT; i++)
		if (!(proto_cmd_table[i].flags & PROTO_CMD_HIDDEN))
			name_guess_offer(&g, proto_cmd_table[i].name);
	for (i = 0; i < sizeof(ctl_only) / sizeof(ctl_only[0]); i++)
		name_guess_offer(&g, ctl_only[i].row.name);
	return g.best;
}

/* "did you mean": the nearest option of cmd to a misspelt one, or NULL. */
static const char *
ctl_guess_option(const struct ctlcmd *cmd, const char *word)
{
	struct name_guess g;
	size_t i, n = strcspn(word, "=");
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)n, word);
	name_guess_init(&g, buf);
	for (i = 0; i < cmd->args.nopts; i++)
		name_guess_offer(&g, cmd->args.opts[i].name);
	name_guess_offer(&g, "--json");
	name_guess_offer(&g, "--help");
	return g.best;
}

/* A usage error of one command: what is wrong, then its synopsis. */
static int __attribute__((format(printf, 2, 3)))
usage_cmd(const struct ctlcmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bisectctl %s: ", cmd->row->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: bisectctl %s %s\n", cmd->row->name,
	    cmd->row->usage);
	return EXIT_USAGE;
}

/*
 * Finds the command called name, in the protocol table and then among
 * bisectctl's own, and gathers its arguments.  0, or -1 when unknown.
 */
static int
ctl_lookup(const char *name, struct ctlcmd *cmd)
{
	int id;
	size_t i;

	memset(cmd, 0, sizeof(*cmd));
	id = proto_cmd_find(name);
	if (id >= 0) {
		cmd->row = &proto_cmd_table[id];
		cmd->side = &ctl_sides[id];
	}
	for (i = 0; id < 0 && i < sizeof(ctl_only) / sizeof(ctl_only[0]); i++)
		if (strcmp(ctl_only[i].row.name, name) == 0) {
			cmd->row = &ctl_only[i].row;
			cmd->side = &ctl_only[i].side;
		}
	if (cmd->row == NULL)
		return -1;
	args_collect(&cmd->args, cmd->row, cmd->side->local);
	return 0;
}

/* Stores one argument in the request (or locally); 0 or a usage exit. */
static int
ctl_store(const struct ctlcmd *cmd, const struct args_spec *a,
    const char *text, json_t *req, json_t *local)
{
	json_t *dst = a->local ? local : req, *v, *arr;
	const char *why = "";

	v = args_value(a, text, &why);
	if (v == NULL)
		return usage_cmd(cmd, "%s: expected %s, not '%s'", a->name,
		    why, text);
	if (a->kind == ARGS_OBJECT) {
		json_object_clear(req);
		json_object_update(req, v);
		json_decref(v);
		return 0;
	}
	if (a->kind == ARGS_STRINGS) {
		arr = json_object_get(dst, a->field);
		if (arr == NULL) {
			arr = json_array();
			json_object_set_new(dst, a->field, arr);
		}
		json_array_append_new(arr, v);
		return 0;
	}
	if (a->kind != ARGS_TRUE && json_object_get(dst, a->field) != NULL) {
		json_decref(v);
		return usage_cmd(cmd, "%s given twice", a->name);
	}
	json_object_set_new(dst, a->field, v);
	return 0;
}

/* Every required argument must be there. */
static int
ctl_required(const struct ctlcmd *cmd, const json_t *req, const json_t *local)
{
	const struct args_spec *a;
	size_t i;

	for (i = 0; i < cmd->args.nopts; i++) {
		a = &cmd->args.opts[i];
		if (a->required && json_object_get(a->local ? local : req,
		    a->field) == NULL)
			return usage_cmd(cmd, "%s is required", a->name);
	}
	return 0;
}

/*
 * Fills req from the command's arguments as the table describes them;
 * argv[0] is the command.  Returns 0 or EXIT_USAGE (message printed).
 */
static int
ctl_parse(const struct ctlcmd *cmd, int argc, char **argv, json_t *req,
    json_t *local)
{
	struct option longopts[ARGS_OPTS_MAX + 1];
	const char *guess;
	size_t n = 0;
	int ch, rc, npos;

	memset(longopts, 0, sizeof(longopts));
	for (n = 0; n < cmd->args.nopts &&
	    n + 1 < sizeof(longopts) / sizeof(longopts[0]); n++) {
		longopts[n].name = cmd->args.opts[n].name + 2;
		longopts[n].has_arg = cmd->args.opts[n].kind == ARGS_TRUE ?
		    no_argument : required_argument;
		longopts[n].val = 256 + (int)n;
	}
	optind = 0;		/* glibc: start over with the new vector */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (ch == ':')
			return usage_cmd(cmd, "%s needs a value",
			    argv[optind - 1]);
		if (ch < 256 && (guess = ctl_guess_option(cmd,
		    argv[optind - 1])) != NULL)
			return usage_cmd(cmd, "unknown option %s; did you "
			    "mean %s?", argv[optind - 1], guess);
		if (ch < 256)
			return usage_cmd(cmd, "unknown option %s",
			    argv[optind - 1]);
		rc = ctl_store(cmd, &cmd->args.opts[ch - 256], optarg, req,
		    local);
		if (rc != 0)
			return rc;
	}
	npos = argc - optind;
	if (npos > (cmd->args.pos.name != NULL ? 1 : 0))
		return usage_cmd(cmd, "unexpected argument '%s'",
		    argv[argc - 1]);
	if (npos == 0 && cmd->args.pos.name != NULL && cmd->args.pos.required)
		return usage_cmd(cmd, "%s is missing", cmd->args.pos.name);
	if (npos == 1) {
		rc = ctl_store(cmd, &cmd->args.pos, argv[optind], req, local);
		if (rc != 0)
			return rc;
	}
	return ctl_required(cmd, req, local);
}

/*
 * Connects and asks; the reply printed raw, for people, or as an error.
 * With keep, an ok reply is also handed to the caller (who owns it).
 */
static int
session_ask(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req,
    json_t **keep)
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
		(cmd->side->print != NULL ? cmd->side->print : print_json)(
		    stdout, reply, req, 0);
	else
		print_error(stderr, reply);
	if (keep != NULL && rc == CLIENT_OK)
		*keep = json_incref(reply);
	free(line);
	json_decref(reply);
	client_release(&c);
	return rc;
}

/* One request, one reply: most commands. */
static int
session_once(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	return session_ask(cmd, o, req, NULL);
}

/*
 * report --html FILE writes the page here, from the report's JSON form, so
 * the daemon serves one shape and the page needs nothing but the file.
 */
static int
session_report(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	const char *path = json_string_value(json_object_get(o->local, "html"));
	int kcidb = json_is_true(json_object_get(o->local, "kcidb"));
	struct client c;
	struct bd_error err;
	json_t *reply, *k;
	char *line, *page = NULL;
	int rc;
	FILE *fp;

	if ((path == NULL && !kcidb) || o->raw)
		return session_once(cmd, o, req);
	client_init(&c);
	bd_error_clear(&err);
	rc = (int)client_call(&c, o->path, req, &line, &reply, &err);
	if (rc == CLIENT_UNREACHED)
		fprintf(stderr, "bisectctl: %s\n", err.msg);
	else if (rc != CLIENT_OK)
		print_error(stderr, reply);
	else if (kcidb) {
		/* KCIDB I/O, indented, for a KCIDB submitter to read. */
		if ((k = report_kcidb(json_object_get(reply, "report"),
		    &err)) == NULL) {
			fprintf(stderr, "bisectctl: %s\n", err.msg);
			rc = CLIENT_ERROR_REPLY;
		} else {
			json_dumpf(k, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(k);
		}
	} else if (report_html_render(json_object_get(reply, "report"),
	    json_string_value(json_object_get(reply, "text")), &page,
	    &err) < 0) {
		fprintf(stderr, "bisectctl: %s\n", err.msg);
		rc = CLIENT_ERROR_REPLY;
	} else if ((fp = fopen(path, "w")) == NULL ||
	    (fputs(page, fp) < 0) | (fclose(fp) != 0)) {
		/* Both run, so the file is closed; no half page stays. */
		fprintf(stderr, "bisectctl: cannot write %s: %s\n", path,
		    strerror(errno));
		if (fp != NULL)
			unlink(path);
		rc = CLIENT_ERROR_REPLY;
	} else
		printf("report written to %s\n", path);
	free(page);
	free(line);
	json_decref(reply);
	client_release(&c);
	return rc;
}

/*
 * The daemon resolves paths against its own working directory, so a
 * relative FILE is made absolute against ours first.
 */
static int
session_backup(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	const char *path = json_string_value(json_object_get(req, "path"));
	char *cwd, *abs;

	if (path != NULL && path[0] != '/') {
		if ((cwd = getcwd(NULL, 0)) == NULL) {
			fprintf(stderr, "bisectctl: getcwd: %s\n",
			    strerror(errno));
			return CLIENT_ERROR_REPLY;
		}
		if (asprintf(&abs, "%s/%s", cwd, path) < 0)
			abort();
		json_object_set_new(req, "path", json_string(abs));
		free(abs);
		free(cwd);
	}
	return session_once(cmd, o, req);
}

/* status prints once, or with --follow until the bisection ends. */
static int
session_status(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	if (!json_is_true(json_object_get(o->local, "follow")))
		return session_once(cmd, o, req);
	if (!json_is_integer(json_object_get(req, "bisection")))
		return usage_cmd(cmd, "--follow needs a bisection ID");
	return stream_follow(o->path, req, o->raw);
}

/*
 * bisect --wait: the reply as bisect prints it, then the new (or the
 * existing) bisection followed as status --follow does, exit status too.
 */
static int
session_bisect(const struct ctlcmd *cmd, struct ctlopts *o, json_t *req)
{
	json_t *reply = NULL, *st;
	int rc;

	if (!json_is_true(json_object_get(o->local, "wait")))
		return session_once(cmd, o, req);
	rc = session_ask(cmd, o, req, &reply);
	fflush(stdout);
	if (rc == CLIENT_OK) {
		st = json_pack("{s:s, s:O}", "cmd", "status", "bisection",
		    json_object_get(reply, "bisection"));
		rc = stream_follow(o->path, st, o->raw);
		json_decref(st);
	}
	json_decref(reply);
	return rc;
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

	req = json_pack("{s:s}", "cmd", cmd->row->name);
	o->local = json_object();
	rc = ctl_parse(cmd, argc, argv, req, o->local);
	if (rc == 0 && cmd->side->session != NULL)
		rc = cmd->side->session(cmd, o, req);
	else if (rc == 0 && (cmd->row->flags & PROTO_CMD_STREAMS))
		rc = session_watch(cmd, o, req);
	else if (rc == 0)
		rc = session_once(cmd, o, req);
	json_decref(o->local);
	json_decref(req);
	return rc;
}

/*
 * `bisectctl help` lists the commands on stdout, `bisectctl help CMD` shows
 * one command's usage and help: asked for, so not an error.
 */
static int
help_main(int argc, char **argv)
{
	struct ctlcmd cmd;

	if (argc == 1) {
		usage_print(stdout);
		return 0;
	}
	if (argc > 2 || ctl_lookup(argv[1], &cmd) < 0) {
		fprintf(stderr, "bisectctl help: %s '%s'\n", argc > 2 ?
		    "unexpected argument" : "unknown command", argv[argc - 1]);
		fprintf(stderr, "usage: bisectctl help [COMMAND]\n");
		return EXIT_USAGE;
	}
	help_cmd(stdout, &cmd);
	return 0;
}

/*
 * Whether the command prints JSON: --json, before or after the command, or a
 * reply shown as pretty JSON.  jansson has escaped what needs escaping
 * there, and a program reading it must get its bytes unchanged.
 */
static int
ctl_prints_json(const struct ctlcmd *cmd, const struct ctlopts *o)
{
	if (o->raw)
		return 1;
	if (cmd->row->flags & PROTO_CMD_STREAMS)
		return 0;
	return cmd->side->print == NULL || cmd->side->print == print_json;
}

/* The arguments of a command, for the completion. */
static int
ctl_complete_args(const char *name, struct args_set *set)
{
	struct ctlcmd cmd;

	if (ctl_lookup(name, &cmd) < 0)
		return -1;
	*set = cmd.args;
	return 0;
}

/*
 * `bisectctl complete -- WORD...`, hidden: the words that may come next,
 * for the bash completion, from the same tables as the help.
 */
static int
ctl_complete(const char *sock, int argc, char **argv)
{
	static const char *const globals[] = { "--json", "--socket",
	    "--help", "--version", NULL };
	const char *names[PROTO_CMD_COUNT + sizeof(ctl_only) /
	    sizeof(ctl_only[0]) + 1];
	struct complete_ctl ctl = { .commands = names, .globals = globals,
	    .args = ctl_complete_args };
	size_t i, n = 0;

	for (i = 0; i < PROTO_CMD_COUNT; i++)
		if (!(proto_cmd_table[i].flags & PROTO_CMD_HIDDEN))
			names[n++] = proto_cmd_table[i].name;
	for (i = 0; i < sizeof(ctl_only) / sizeof(ctl_only[0]); i++)
		names[n++] = ctl_only[i].row.name;
	names[n] = NULL;
	if (argc > 0 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	return complete_main(&ctl, sock, argc, argv);
}

/* Global options first, then the command and its own arguments. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctlopts o;
	struct ctlcmd cmd;
	const char *guess;
	int ch, nargs, i;

	stderr = termout_open(stderr);
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
		case 'h':
			/* Asked for: the list on stdout, not an error. */
			usage_print(stdout);
			return 0;
		case 'V':
			/* The client's own version; `bisectctl version` asks the daemon's. */
			printf("bisectctl %s (protocol %d)\n", BISECTD_VERSION,
			    PROTO_VERSION);
			return 0;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	if (strcmp(argv[0], "complete") == 0)
		return ctl_complete(o.path, argc - 1, argv + 1);
	if (ctl_lookup(argv[0], &cmd) < 0) {
		guess = ctl_guess_command(argv[0]);
		fprintf(stderr, "bisectctl: unknown command %s%s%s%s\n",
		    argv[0], guess != NULL ? "; did you mean " : "",
		    guess != NULL ? guess : "", guess != NULL ? "?" : "");
		fprintf(stderr, "see 'bisectctl --help' for the list\n");
		return EXIT_USAGE;
	}
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 ||
		    (strcmp(argv[i], "-h") == 0 && cmd.side->offline == NULL)) {
			help_cmd(stdout, &cmd);
			return 0;
		}
	if (cmd.side->offline != NULL) {
		stdout = termout_open(stdout);
		return cmd.side->offline(argc, argv);
	}
	/* `bisectctl CMD --json` means what `bisectctl --json CMD` does. */
	for (i = 1, nargs = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") != 0)
			argv[nargs++] = argv[i];
		else
			o.raw = 1;
	}
	argv[nargs] = NULL;
	if (!ctl_prints_json(&cmd, &o))
		stdout = termout_open(stdout);
	return run(&cmd, &o, nargs, argv);
}
