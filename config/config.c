/* SPDX-License-Identifier: MIT */
/*
 * Loading a configuration file: read it whole, feed it to inih line by line
 * through a reader that counts lines, and collect every error with its
 * FILE:LINE before deciding whether the file is usable.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"

void
config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

/* Copies an optional string. */
static char *
config_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* Holders of a host (the pool) keep their own copy across reloads. */
void
config_host_copy(struct config_host *dst, const struct config_host *src)
{
	*dst = *src;
	dst->name = config_dup(src->name);
	dst->address = config_dup(src->address);
	dst->user = config_dup(src->user);
	dst->identity = config_dup(src->identity);
	dst->passphrase_file = config_dup(src->passphrase_file);
	dst->known_hosts = config_dup(src->known_hosts);
	dst->group = config_dup(src->group != NULL ? src->group :
	    CONFIG_DEFAULT_GROUP);
	dst->workdir = config_dup(src->workdir);
	dst->power_cycle = config_dup(src->power_cycle);
}

void
config_host_release(struct config_host *h)
{
	free(h->name);
	free(h->address);
	free(h->user);
	free(h->identity);
	free(h->passphrase_file);
	free(h->known_hosts);
	free(h->group);
	free(h->workdir);
	free(h->power_cycle);
}

void
config_benchmark_release(struct config_benchmark *b)
{
	size_t i;

	free(b->name);
	free(b->build);
	free(b->artifact);
	free(b->install);
	free(b->reboot);
	free(b->boot_check);
	free(b->expect_kernel);
	free(b->run);
	free(b->collect);
	free(b->result_file);
	free(b->arch);
	free(b->build_inputs);
	free(b->kconfig);
	free(b->compiler);
	free(b->params);
	free(b->describe);
	free(b->confirm_groups);
	free(b->fixups);
	for (i = 0; i < b->nmetrics; i++)
		free(b->metrics[i].name);
	free(b->metrics);
}

static void
config_sweep_release(struct config_sweep *w)
{
	free(w->name);
	free(w->benchmark);
	config_sweep_names_free(&w->metrics);
	free(w->group);
	free(w->tag_pattern);
	free(w->start);
	free(w->confirm_groups);
	free(w->fixups);
}

void
config_release(struct config *cfg)
{
	size_t i;

	if (config_retire(cfg))
		return;
	free(cfg->path);
	free(cfg->daemon.socket);
	free(cfg->daemon.socket_group);
	free(cfg->daemon.database);
	free(cfg->daemon.workdir);
	free(cfg->daemon.operators);
	free(cfg->daemon.admin_group);
	free(cfg->daemon.report_hook);
	free(cfg->daemon.message_id_domain);
	free(cfg->daemon.report_reported_by);
	free(cfg->daemon.report_closes);
	free(cfg->daemon.report_link);
	free(cfg->repo.commit_url);
	free(cfg->repo.path);
	free(cfg->repo.url);
	free(cfg->repo.watch_refs);
	free(cfg->repo.identity);
	free(cfg->repo.known_hosts);
	for (i = 0; i < cfg->nhosts; i++)
		config_host_release(&cfg->hosts[i]);
	free(cfg->hosts);
	for (i = 0; i < cfg->nbenchmarks; i++)
		config_benchmark_release(&cfg->benchmarks[i]);
	free(cfg->benchmarks);
	for (i = 0; i < cfg->nsweeps; i++)
		config_sweep_release(&cfg->sweeps[i]);
	free(cfg->sweeps);
	for (i = 0; i < cfg->nlabs; i++)
		config_lab_release(&cfg->labs[i]);
	free(cfg->labs);
	config_init(cfg);
}

void
config_errors_release(struct config_errors *errs)
{
	size_t i;

	if (errs == NULL)
		return;
	for (i = 0; i < errs->n; i++)
		free(errs->msgs[i]);
	free(errs->msgs);
	errs->msgs = NULL;
	errs->n = 0;
}

/*
 * Hosts, benchmarks, sweeps and metrics all start with their name, so one
 * search serves them all.
 */
_Static_assert(offsetof(struct config_host, name) == 0, "name first");
_Static_assert(offsetof(struct config_benchmark, name) == 0, "name first");
_Static_assert(offsetof(struct config_sweep, name) == 0, "name first");
_Static_assert(offsetof(struct config_metric, name) == 0, "name first");

const void *
config_named_find(const void *array, size_t n, size_t size, const char *name)
{
	const char *p = array;
	size_t i;

	for (i = 0; i < n; i++, p += size)
		if (strcmp(*(char *const *)(const void *)p, name) == 0)
			return p;
	return NULL;
}

const struct config_host *
config_host_find(const struct config *cfg, const char *name)
{
	return config_named_find(cfg->hosts, cfg->nhosts,
	    sizeof(*cfg->hosts), name);
}

const struct config_benchmark *
config_benchmark_find(const struct config *cfg, const char *name)
{
	return config_named_find(cfg->benchmarks, cfg->nbenchmarks,
	    sizeof(*cfg->benchmarks), name);
}

const struct config_sweep *
config_sweep_find(const struct config *cfg, const char *name)
{
	return config_named_find(cfg->sweeps, cfg->nsweeps,
	    sizeof(*cfg->sweeps), name);
}

const struct config_metric *
config_metric_find(const struct config_benchmark *b, const char *name)
{
	return config_named_find(b->metrics, b->nmetrics, sizeof(*b->metrics),
	    name);
}

/* A group is usable for a bisection only if it can both build and test. */
unsigned
config_group_roles(const struct config *cfg, const char *group)
{
	unsigned roles = 0;
	size_t i;

	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].group, group) == 0)
			roles |= cfg->hosts[i].roles;
	if (config_lab_for_group(cfg, group) != NULL)
		roles |= CONFIG_ROLE_BUILD | CONFIG_ROLE_TEST;
	return roles;
}

/*
 * Collects one message; they are sorted by line at the end because checks
 * that span sections run after the whole file has been read.
 */
void
config_error(struct config_ctx *ctx, int line, const char *label,
    const char *key, const char *fmt, ...)
{
	struct config_msg *m;
	char where[64], what[BD_ERROR_MAX];
	va_list ap;

	if (ctx->nmsgs >= CONFIG_MAX_ERRORS) {
		ctx->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	bd_utf8_fix(what);	/* a long value may be cut inside a character */
	if (line > 0)
		snprintf(where, sizeof(where), ":%d", line);
	else
		where[0] = '\0';
	ctx->msgs = xreallocarray(ctx->msgs, ctx->nmsgs + 1, sizeof(*m));
	m = &ctx->msgs[ctx->nmsgs];
	m->line = line;
	m->seq = ctx->nmsgs++;
	xasprintf(&m->text, "%s%s: %s%s%s%s%s", ctx->file, where,
	    label != NULL ? label : "",
	    label != NULL && key != NULL ? " " : "",
	    key != NULL ? key : "",
	    label != NULL || key != NULL ? ": " : "", what);
}

static int
config_msg_cmp(const void *a, const void *b)
{
	const struct config_msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hands the sorted messages to the caller, or frees them if unwanted. */
static void
config_errors_take(struct config_ctx *ctx, struct config_errors *errs)
{
	size_t i;

	if (ctx->nmsgs > 0)
		qsort(ctx->msgs, ctx->nmsgs, sizeof(*ctx->msgs),
		    config_msg_cmp);
	if (errs != NULL) {
		errs->n = ctx->nmsgs + (ctx->dropped > 0);
		errs->msgs = errs->n > 0 ? xcalloc(errs->n, sizeof(char *)) :
		    NULL;
	}
	for (i = 0; i < ctx->nmsgs; i++) {
		if (errs != NULL)
			errs->msgs[i] = ctx->msgs[i].text;
		else
			free(ctx->msgs[i].text);
	}
	if (errs != NULL && ctx->dropped > 0)
		xasprintf(&errs->msgs[i], "%s: %zu more errors not shown",
		    ctx->file, ctx->dropped);
	free(ctx->msgs);
	ctx->msgs = NULL;
}

/*
 * Strict UTF-8 as jansson accepts it (no overlong forms, no surrogates,
 * nothing above U+10FFFF), so config_to_json can emit every value.
 */
static int
config_utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	int k;

	while (i < n) {
		if ((k = bd_utf8_char(s + i, n - i)) <= 0)
			return 0;
		i += (size_t)k;
	}
	return 1;
}

/*
 * Looks at a whole line before inih sees it: checks it and starts sections
 * (inih says nothing about empty sections).  Returns 1 when inih should get
 * an empty line instead, because the line is broken or already reported.
 */
static int
config_line_begin(struct config_ctx *ctx)
{
	const char *line = ctx->buf + ctx->pos, *nl, *s, *e, *close;
	size_t n;

	nl = memchr(line, '\n', ctx->len - ctx->pos);
	n = nl != NULL ? (size_t)(nl - line) : ctx->len - ctx->pos;
	if (n > CONFIG_MAX_LINE) {
		config_error(ctx, ctx->lineno, NULL, NULL,
		    "line longer than %d bytes", CONFIG_MAX_LINE);
		return 1;
	}
	if (memchr(line, '\0', n) != NULL) {
		config_error(ctx, ctx->lineno, NULL, NULL, "NUL byte in line");
		return 1;
	}
	if (!config_utf8_valid((const unsigned char *)line, n)) {
		config_error(ctx, ctx->lineno, NULL, NULL, "not valid UTF-8");
		return 1;
	}
	s = line;
	e = line + n;
	if (ctx->lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;		/* inih skips a byte order mark too */
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e || *s == ';' || *s == '#')
		return 0;
	if (*s == '[') {
		config_section_end(ctx);
		close = memchr(s, ']', (size_t)(e - s));
		if (close == NULL) {
			config_error(ctx, ctx->lineno, NULL, NULL,
			    "section header without ']'");
			config_section_skip(ctx);
			return 1;
		}
		config_section_start(ctx, s + 1, (size_t)(close - s - 1));
		if (close + 1 != e)
			config_error(ctx, ctx->lineno, ctx->label, NULL,
			    "text after ']'");
		return 0;
	}
	while (s < e && *s != '=' && *s != ':')
		s++;
	if (s == e) {
		config_error(ctx, ctx->lineno, NULL, NULL,
		    "expected 'key = value', a [section] or a comment");
		return 1;
	}
	return 0;
}

/*
 * An fgets() for inih over the file in memory.  inih may ask for a line in
 * pieces when it grows its buffer, so lines are counted at their start.
 */
static char *
config_reader(char *str, int num, void *stream)
{
	struct config_ctx *ctx = stream;
	const char *nl;
	size_t n, room;

	if (ctx->pos >= ctx->len || num < 2)
		return NULL;
	if (ctx->at_line_start) {
		ctx->lineno++;
		if (config_line_begin(ctx)) {
			nl = memchr(ctx->buf + ctx->pos, '\n',
			    ctx->len - ctx->pos);
			ctx->pos = nl != NULL ? (size_t)(nl - ctx->buf) + 1 :
			    ctx->len;
			strcpy(str, "\n");
			return str;
		}
	}
	room = (size_t)num - 1;
	nl = memchr(ctx->buf + ctx->pos, '\n', ctx->len - ctx->pos);
	n = nl != NULL ? (size_t)(nl - ctx->buf) + 1 - ctx->pos :
	    ctx->len - ctx->pos;
	if (n > room)
		n = room;
	memcpy(str, ctx->buf + ctx->pos, n);
	str[n] = '\0';
	ctx->pos += n;
	ctx->at_line_start = str[n - 1] == '\n' || ctx->pos == ctx->len;
	return str;
}

/* inih's section argument is ignored: ctx tracks sections itself. */
static int
config_handler(void *user, const char *section, const char *name,
    const char *value)
{
	(void)section;
	config_section_key(user, name, value);
	return 1;
}

/* Reads a regular file of bounded size whole, NUL-terminated. */
static int
config_read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd, rc = 0;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	if (fstat(fd, &st) == -1) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out;
	}
	if (st.st_size > CONFIG_MAX_FILE) {
		rc = -EFBIG;
		goto out;
	}
	*buf = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		r = read(fd, *buf + n, (size_t)st.st_size - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r == 0 ? -EIO : -errno;
			goto out;
		}
		n += (size_t)r;
	}
	(*buf)[n] = '\0';
	*len = n;
out:
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return rc;
}

/* Relative paths in the file are taken from here, made absolute once. */
static char *
config_basedir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *abs;

	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	abs = realpath(dir, NULL);
	if (abs == NULL)
		return dir;
	free(dir);
	return abs;
}

/* Options are process-wide in Debian's inih, so they are set per load. */
static void
config_ini_options(void)
{
	ini_allow_multiline = false;	/* indented keys are plain keys */
	ini_allow_inline_comments = false; /* ';' in a command is literal */
	ini_allow_no_value = false;
	ini_stop_on_first_error = false;
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = CONFIG_MAX_LINE + 3;
}

/* Both ways in start with an empty config, no errors and a fresh ctx. */
static void
config_start(struct config_ctx *ctx, struct config *cfg, const char *path,
    struct config_errors *errs)
{
	config_init(cfg);
	if (errs != NULL) {
		errs->msgs = NULL;
		errs->n = 0;
	}
	memset(ctx, 0, sizeof(*ctx));
	ctx->cfg = cfg;
	ctx->file = path;
}

/*
 * The file's text is parsed apart from reading it, so that a test or a
 * fuzzer can feed any bytes through the same path as a real file.
 */
int
config_parse(struct config *cfg, const char *path, const char *text,
    size_t len, struct config_errors *errs)
{
	struct config_ctx ctx;
	const char *slash;
	int rc;

	config_start(&ctx, cfg, path, errs);
	ctx.basedir = config_basedir(path);
	slash = strrchr(path, '/');
	xasprintf(&cfg->path, "%s/%s", ctx.basedir,
	    slash != NULL ? slash + 1 : path);
	config_defaults(cfg);

	ctx.buf = text;
	ctx.len = len;
	ctx.at_line_start = 1;
	config_ini_options();
	rc = ini_parse_stream(config_reader, &ctx, config_handler, &ctx);
	if (rc == -2)
		config_error(&ctx, 0, NULL, NULL, "out of memory");
	else if (rc != 0)
		config_error(&ctx, rc, NULL, NULL, "cannot parse this line");
	config_section_end(&ctx);
	config_check_references(&ctx);
	rc = ctx.nmsgs > 0 ? -EINVAL : 0;
	config_errors_take(&ctx, errs);
	free(ctx.sweep_lines);
	free(ctx.basedir);
	if (rc < 0)
		config_release(cfg);
	return rc;
}

int
config_load(struct config *cfg, const char *path,
    struct config_errors *errs)
{
	struct config_ctx ctx;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = config_read_file(path, &buf, &len);
	if (rc == 0) {
		rc = config_parse(cfg, path, buf, len, errs);
		free(buf);
		return rc;
	}
	config_start(&ctx, cfg, path, errs);
	config_error(&ctx, 0, NULL, NULL, "cannot read: %s",
	    rc == -EINVAL ? "not a regular file" : strerror(-rc));
	config_errors_take(&ctx, errs);
	return rc;
}

/*
 * One reader of the params syntax, for the check at load and for the
 * report, so both agree on what a word is.
 */
int
config_params_next(const char **s, const char **key, size_t *klen,
    const char **value, size_t *vlen)
{
	const char *p = *s + strspn(*s, " \t"), *eq;
	size_t len = strcspn(p, " \t");

	*key = p;
	if (len == 0)
		return 0;
	*s = p + len;
	eq = memchr(p, '=', len);
	if (eq == NULL || eq == p)
		return -1;
	*klen = (size_t)(eq - p);
	*value = eq + 1;
	*vlen = len - *klen - 1;
	return 1;
}
