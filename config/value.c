/* SPDX-License-Identifier: MIT */
/*
 * Value parsers for the key tables in section.c: one function per kind of
 * value, each strict about syntax and range so that a typo is an error at
 * load time and never a surprise at run time.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "common/decimal.h"
#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "common/names.h"
#include "config/internal.h"

const struct name_value config_host_key_words[] = {
	{ "strict", CONFIG_HOST_KEY_STRICT },
	{ "accept-new", CONFIG_HOST_KEY_ACCEPT_NEW },
	{ NULL, 0 },
};

const struct name_value config_verify_words[] = {
	{ "revert", CONFIG_VERIFY_REVERT },
	{ "none", CONFIG_VERIFY_NONE },
	{ NULL, 0 },
};

const struct name_value config_auto_fixups_words[] = {
	{ "search", CONFIG_AUTO_FIXUPS_SEARCH },
	{ "none", CONFIG_AUTO_FIXUPS_NONE },
	{ NULL, 0 },
};

const struct name_value config_role_words[] = {
	{ "build", CONFIG_ROLE_BUILD },
	{ "test", CONFIG_ROLE_TEST },
	{ NULL, 0 },
};

/* The words of a metric's kind after its colon. */
static const struct {
	const char		*name;
	enum config_metric_kind	 kind;
	enum config_direction	 direction;
} config_metric_kinds[] = {
	{ "higher", CONFIG_METRIC_NUMERIC, CONFIG_HIGHER_IS_BETTER },
	{ "lower", CONFIG_METRIC_NUMERIC, CONFIG_LOWER_IS_BETTER },
	{ "pass-fail", CONFIG_METRIC_PASS_FAIL, CONFIG_LOWER_IS_BETTER },
};

/*
 * The time span units of systemd.time(7) from a millisecond up, with its
 * spellings; a month is 30.44 days and a year 365.25 days, as there.
 */
static const struct {
	const char	*unit;
	uint64_t	 ms;
} config_duration_units[] = {
	{ "ms", 1 }, { "msec", 1 },
	{ "s", 1000 }, { "sec", 1000 }, { "second", 1000 },
	{ "seconds", 1000 },
	{ "m", 60 * 1000 }, { "min", 60 * 1000 }, { "minute", 60 * 1000 },
	{ "minutes", 60 * 1000 },
	{ "h", 3600 * 1000 }, { "hr", 3600 * 1000 }, { "hour", 3600 * 1000 },
	{ "hours", 3600 * 1000 },
	{ "d", 86400 * 1000 }, { "day", 86400 * 1000 },
	{ "days", 86400 * 1000 },
	{ "w", 7 * 86400 * 1000 }, { "week", 7 * 86400 * 1000 },
	{ "weeks", 7 * 86400 * 1000 },
	{ "M", 2629800ULL * 1000 }, { "month", 2629800ULL * 1000 },
	{ "months", 2629800ULL * 1000 },
	{ "y", 31557600ULL * 1000 }, { "year", 31557600ULL * 1000 },
	{ "years", 31557600ULL * 1000 },
};

/* Enum keys share one lookup and one message listing the accepted words. */
static int
config_enum_parse(const struct name_value *table, const char *key,
    const char *value, int *out, struct bd_error *err)
{
	const struct name_value *e;
	char words[128] = "";

	if (name_find(table, value, out) == 0)
		return 0;
	for (e = table; e->name != NULL; e++) {
		if (e != table)
			strncat(words, e[1].name == NULL ? " or " : ", ",
			    sizeof(words) - strlen(words) - 1);
		strncat(words, e->name, sizeof(words) - strlen(words) - 1);
	}
	return bd_error_set(err, -EINVAL, "unknown %s '%s' (expected %s)",
	    key, value, words);
}

/* Names end up in commands, JSON and messages: keep them plain. */
int
config_name_valid(const char *s)
{
	size_t i;

	if (s[0] == '\0' || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (i >= CONFIG_NAME_MAX)
			return 0;
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) == NULL)
			return 0;
	}
	return 1;
}

/* Control characters in a command or path are almost always a mistake. */
static int
config_text_check(const char *value, struct bd_error *err)
{
	const unsigned char *p;

	if (*value == '\0')
		return bd_error_set(err, -EINVAL, "empty value");
	for (p = (const unsigned char *)value; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return bd_error_set(err, -EINVAL,
			    "control character 0x%02x in value", *p);
	return 0;
}

/* Stores a copy, replacing a default that was set when the section began. */
static void
config_set_string(void *base, const struct config_key *key, char *copy)
{
	char **field = CONFIG_FIELD(base, key, char *);

	free(*field);
	*field = copy;
}

int
config_value_string(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	(void)ctx;
	if (config_text_check(value, err) < 0)
		return err->code;
	config_set_string(base, key, xstrdup(value));
	return 0;
}

/* Relative paths follow the config file, not the daemon's working directory. */
int
config_value_path(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	char *path;

	if (config_text_check(value, err) < 0)
		return err->code;
	if (value[0] == '/')
		path = xstrdup(value);
	else
		xasprintf(&path, "%s/%s", ctx->basedir, value);
	config_set_string(base, key, path);
	return 0;
}

/*
 * Blank-separated paths, each taken relative to the config file like a
 * path, stored with one blank between them.
 */
int
config_value_paths(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	char *copy, *word, *save = NULL, *out = NULL, *t;

	if (config_text_check(value, err) < 0)
		return err->code;
	copy = xstrdup(value);
	for (word = strtok_r(copy, " \t", &save); word != NULL;
	    word = strtok_r(NULL, " \t", &save)) {
		if (word[0] == '/')
			xasprintf(&t, "%s%s%s", out ? out : "", out ? " " : "",
			    word);
		else
			xasprintf(&t, "%s%s%s/%s", out ? out : "",
			    out ? " " : "", ctx->basedir, word);
		free(out);
		out = t;
	}
	free(copy);
	if (out == NULL)
		return bd_error_set(err, -EINVAL, "no path in value");
	config_set_string(base, key, out);
	return 0;
}

/*
 * Blank-separated names (host groups), each valid as a name and listed
 * once, stored with one blank between them.
 */
int
config_value_names(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	char *copy, *word, *save = NULL, *out = NULL, *t;
	int rc = 0;

	(void)ctx;
	copy = xstrdup(value);
	for (word = strtok_r(copy, " \t", &save); word != NULL;
	    word = strtok_r(NULL, " \t", &save)) {
		if (!config_name_valid(word)) {
			rc = bd_error_set(err, -EINVAL, "invalid name '%s' (up "
			    "to %d letters, digits, '.', '_' or '-')", word,
			    CONFIG_NAME_MAX);
			goto out;
		}
		if (out != NULL && config_names_contain(out, word)) {
			rc = bd_error_set(err, -EINVAL, "'%s' listed twice",
			    word);
			goto out;
		}
		xasprintf(&t, "%s%s%s", out ? out : "", out ? " " : "", word);
		free(out);
		out = t;
	}
	if (out == NULL) {
		rc = bd_error_set(err, -EINVAL, "no name in value");
		goto out;
	}
	config_set_string(base, key, out);
	out = NULL;
out:
	free(out);
	free(copy);
	return rc;
}

/* Whether the blank-separated list holds word. */
int
config_names_contain(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' ||
		    p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

int
config_value_name(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	(void)ctx;
	if (!config_name_valid(value))
		return bd_error_set(err, -EINVAL, "invalid name '%s' (up to %d "
		    "letters, digits, '.', '_' or '-')", value, CONFIG_NAME_MAX);
	config_set_string(base, key, xstrdup(value));
	return 0;
}

/* A sweep's metric follows the benchmark's rule for metric names. */
int
config_value_metric(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	(void)ctx;
	if (!bd_metric_name_valid(value))
		return bd_error_set(err, -EINVAL, "invalid metric name "
		    "'%.64s%s' (%s)", value, strlen(value) > 64 ? "..." : "",
		    CONFIG_METRIC_RULE);
	config_set_string(base, key, xstrdup(value));
	return 0;
}

/* Plain decimal only: no sign, no hex, no trailing text, no overflow. */
static int
config_decimal(const char *s, uint64_t *out)
{
	uint64_t n = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0')
		return -EINVAL;
	*out = n;
	return 0;
}

int
config_value_uint(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	uint64_t n;
	int rc;

	(void)ctx;
	rc = config_decimal(value, &n);
	if (rc == -EINVAL)
		return bd_error_set(err, rc, "'%s' is not a whole number", value);
	if (rc < 0 || n < key->min || n > key->max)
		return bd_error_set(err, -ERANGE, "%s is out of range "
		    "(%ju to %ju)", value, (uintmax_t)key->min,
		    (uintmax_t)key->max);
	*CONFIG_FIELD(base, key, unsigned) = (unsigned)n;
	return 0;
}

/* File modes are written in octal, as chmod takes them. */
int
config_value_mode(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	const char *p;
	unsigned long n = 0;

	(void)ctx;
	if (*value == '\0')
		return bd_error_set(err, -EINVAL, "empty value");
	for (p = value; *p != '\0'; p++) {
		if (*p < '0' || *p > '7')
			return bd_error_set(err, -EINVAL,
			    "'%s' is not an octal mode such as 0660", value);
		n = n * 8 + (unsigned long)(*p - '0');
		if (n > 0777)
			return bd_error_set(err, -ERANGE,
			    "%s is above 0777", value);
	}
	*CONFIG_FIELD(base, key, mode_t) = (mode_t)n;
	return 0;
}

/*
 * One "NUMBER[.FRACTION] [UNIT]" of a time span at *pp, added to *ms; a
 * number without a unit counts seconds.  At most six digits of a fraction
 * count (a millionth of a year is 31 ms); the rest must be digits too.
 */
static int
config_duration_part(const char **pp, uint64_t *ms)
{
	const char *p = *pp, *u;
	uint64_t whole = 0, frac = 0, scale = 1, unit = 1000, add;
	size_t i, n;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > CONFIG_DURATION_MAX_MS)
			return -ERANGE;	/* stops before whole can overflow */
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++)
			if (scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	}
	while (*p == ' ' || *p == '\t')
		p++;
	for (u = p; isalpha((unsigned char)*p); p++)
		;
	if ((n = (size_t)(p - u)) > 0) {
		for (i = 0; i < CONFIG_NITEMS(config_duration_units); i++)
			if (strlen(config_duration_units[i].unit) == n &&
			    strncmp(u, config_duration_units[i].unit, n) == 0)
				break;
		if (i == CONFIG_NITEMS(config_duration_units))
			return -EINVAL;
		unit = config_duration_units[i].ms;
	}
	if (whole > CONFIG_DURATION_MAX_MS / unit)
		return -ERANGE;
	add = whole * unit + frac * unit / scale;
	if (add > CONFIG_DURATION_MAX_MS - *ms)
		return -ERANGE;
	*ms += add;
	*pp = p;
	return 0;
}

/*
 * A time span as systemd.time(7) writes one: "90s", "1h30m", "2d 3h",
 * "1.5h", "500ms", or a bare number of seconds; the parts add up.
 */
int
config_parse_duration(const char *s, uint64_t *ms)
{
	const char *p = s;
	uint64_t sum = 0;
	int rc;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0')
		return -EINVAL;
	while (*p != '\0') {
		if ((rc = config_duration_part(&p, &sum)) < 0)
			return rc;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	*ms = sum;
	return 0;
}

int
config_value_duration(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	uint64_t ms;
	int rc;

	(void)ctx;
	rc = config_parse_duration(value, &ms);
	if (rc == -ERANGE)
		return bd_error_set(err, rc, "'%s' is too long (at most 365d)",
		    value);
	if (rc < 0)
		return bd_error_set(err, rc, "'%s' is not a duration (use "
		    "500ms, 90s, 15min, 1h30m, 2d 3h or a number of seconds)",
		    value);
	if (ms == 0 && !(key->flags & CONFIG_KEY_ZERO_OK))
		return bd_error_set(err, -ERANGE, "must be longer than 0");
	*CONFIG_FIELD(base, key, uint64_t) = ms;
	return 0;
}

/* A fraction such as 0.02, or the same as a percentage, 2%. */
int
config_value_fraction(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	const char *end;
	double d;

	(void)ctx;
	if (!isdigit((unsigned char)value[0]) && value[0] != '.')
		return bd_error_set(err, -EINVAL, "'%s' is not a number", value);
	if (decimal_prefix(value, &d, &end) != 0)
		return bd_error_set(err, -EINVAL, "'%s' is not a number", value);
	if (*end == '%') {
		d /= 100.0;
		end++;
	}
	if (*end != '\0')
		return bd_error_set(err, -EINVAL, "'%s' is not a number", value);
	if (d < 0.0 || d >= 1.0)
		return bd_error_set(err, -ERANGE,
		    "%s is out of range (at least 0, below 1)", value);
	*CONFIG_FIELD(base, key, double) = d;
	return 0;
}

/* Enum fields are int-sized, whatever enum type config.h gives them. */
int
config_value_enum(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	int v;

	(void)ctx;
	if (config_enum_parse(key->words, "value", value, &v, err) < 0)
		return err->code;
	*CONFIG_FIELD(base, key, int) = v;
	return 0;
}

/*
 * Copies the next comma-separated item of *s, without surrounding blanks,
 * into item and moves *s past it (to NULL after the last).  Returns 1 for
 * an item, 0 at the end, or a negative code for an empty or overlong item,
 * so "a,,b" and "a," are errors.  *n counts the items for messages.
 */
int
config_list_next(const char **s, char *item, size_t size, size_t *n,
    struct bd_error *err)
{
	const char *p = *s, *end;
	size_t len;

	if (p == NULL)
		return 0;
	end = strchr(p, ',');
	if (end == NULL)
		end = p + strlen(p);
	*s = *end == ',' ? end + 1 : NULL;
	(*n)++;
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	len = (size_t)(end - p);
	if (len == 0)
		return bd_error_set(err, -EINVAL, "item %zu is empty", *n);
	if (len >= size)
		return bd_error_set(err, -EINVAL, "item %zu is too long", *n);
	memcpy(item, p, len);
	item[len] = '\0';
	return 1;
}

/* A list such as "build,test"; each role at most once. */
int
config_value_roles(const struct config_ctx *ctx, const struct config_key *key,
    void *base, const char *value, struct bd_error *err)
{
	char item[CONFIG_NAME_MAX + 1];
	const char *s = value;
	unsigned roles = 0;
	size_t n = 0;
	int role, rc;

	(void)ctx;
	if (value[0] == '\0')
		return bd_error_set(err, -EINVAL, "empty value (use build, "
		    "test or build,test)");
	while ((rc = config_list_next(&s, item, sizeof(item), &n, err)) > 0) {
		if (config_enum_parse(config_role_words, "role", item, &role,
		    err) < 0)
			return err->code;
		if (roles & (unsigned)role)
			return bd_error_set(err, -EINVAL,
			    "role '%s' listed twice", item);
		roles |= (unsigned)role;
	}
	if (rc < 0)
		return rc;
	*CONFIG_FIELD(base, key, unsigned) = roles;
	return 0;
}

/*
 * RFC 1123 labels.  A name of digits and dots only is meant as an IPv4
 * address and must be one (inet_pton decides), so it is refused here.
 */
static int
config_hostname_valid(const char *s)
{
	size_t len = strlen(s), label = 0, i;
	int alpha = 0;

	if (len == 0 || len > 253)
		return 0;
	for (i = 0; i <= len; i++) {
		if (s[i] == '.' || s[i] == '\0') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)s[i]) && s[i] != '-')
			return 0;
		if (s[i] == '-' && label == 0)
			return 0;
		if (!isdigit((unsigned char)s[i]))
			alpha = 1;
		if (++label > 63)
			return 0;
	}
	return alpha;
}

/* Checked for syntax only: resolving here would make -n depend on DNS. */
int
config_value_address(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	struct in6_addr a6;
	struct in_addr a4;

	(void)ctx;
	if (inet_pton(AF_INET, value, &a4) != 1 &&
	    inet_pton(AF_INET6, value, &a6) != 1 &&
	    !config_hostname_valid(value))
		return bd_error_set(err, -EINVAL, "'%s' is neither an IP "
		    "address nor a host name", value);
	config_set_string(base, key, xstrdup(value));
	return 0;
}

/* Looks up the word after NAME: in a metrics item. */
static int
config_metric_kind(const char *word, struct config_metric *m)
{
	size_t i;

	for (i = 0; i < CONFIG_NITEMS(config_metric_kinds); i++) {
		if (strcmp(word, config_metric_kinds[i].name) == 0) {
			m->kind = config_metric_kinds[i].kind;
			m->direction = config_metric_kinds[i].direction;
			return 0;
		}
	}
	return -EINVAL;
}

/* The word after colon, blanks skipped. */
static char *
config_metric_word(char *colon)
{
	char *w = colon + 1;

	while (isspace((unsigned char)*w))
		w++;
	return w;
}

/* Cuts item at colon (blanks before it too) and returns the word after. */
static char *
config_metric_split(char *item, char *colon)
{
	char *w = config_metric_word(colon);

	*colon = '\0';
	while (colon > item && isspace((unsigned char)colon[-1]))
		*--colon = '\0';
	return w;
}

/*
 * A run's values reach the statistics as one (common/agg.h): the mean by
 * default; a pass-fail run fails when any of its values fails (max), and
 * only min or max keep a pass-fail value 0 or 1.
 */
static int
config_metric_agg(struct config_metric *m, const char *name, int agg,
    struct bd_error *err)
{
	if (m->kind == CONFIG_METRIC_PASS_FAIL) {
		if (agg == AGG_MEAN || agg == AGG_MEDIAN)
			return bd_error_set(err, -EINVAL, "metric '%s': a "
			    "pass-fail metric takes :max (any failure fails "
			    "the run, the default) or :min", name);
		m->agg = agg < 0 ? AGG_MAX : (enum agg_kind)agg;
	} else
		m->agg = agg < 0 ? AGG_MEAN : (enum agg_kind)agg;
	return 0;
}

/* Frees a metrics array built by config_value_metrics. */
static void
config_metrics_free(struct config_metric *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

/*
 * "throughput:higher, latency_ms:lower, boot_ok:pass-fail": every metric
 * says which way is better, so a report can never call a gain a regression.
 */
int
config_value_metrics(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err)
{
	struct config_benchmark *b = base;
	struct config_metric *m = NULL;
	char item[BD_METRIC_NAME_MAX + 32], *colon, *kind;
	const char *s = value;
	size_t n = 0, nitems = 0, i;
	int rc, agg;

	(void)ctx; (void)key;
	if (value[0] == '\0')
		return bd_error_set(err, -EINVAL,
		    "empty value (use NAME:higher, NAME:lower or "
		    "NAME:pass-fail, separated by commas)");
	while ((rc = config_list_next(&s, item, sizeof(item), &nitems,
	    err)) > 0) {
		colon = strrchr(item, ':');
		if (colon == NULL) {
			rc = bd_error_set(err, -EINVAL, "'%s' has no kind "
			    "(use %s:higher, %s:lower or %s:pass-fail)",
			    item, item, item, item);
			goto fail;
		}
		m = xreallocarray(m, n + 1, sizeof(*m));
		m[n].name = NULL;
		kind = config_metric_split(item, colon);
		/* NAME:KIND:AGG when the last word is an aggregate and the
		 * one before it a kind (names may hold colons themselves). */
		agg = -1;
		if (name_find(agg_names, kind, &agg) == 0 &&
		    (colon = strrchr(item, ':')) != NULL &&
		    config_metric_kind(config_metric_word(colon),
		    &m[n]) == 0)
			kind = config_metric_split(item, colon);
		else
			agg = -1;
		if (!bd_metric_name_valid(item)) {
			rc = bd_error_set(err, -EINVAL, "invalid metric name "
			    "'%.64s%s' (%s)", item, strlen(item) > 64 ? "..." :
			    "", CONFIG_METRIC_RULE);
			goto fail;
		}
		if (config_metric_kind(kind, &m[n]) < 0) {
			rc = bd_error_set(err, -EINVAL, "metric '%s': unknown "
			    "kind '%s' (expected higher, lower or pass-fail, "
			    "then optionally :mean, :median, :min or :max)",
			    item, kind);
			goto fail;
		}
		if ((rc = config_metric_agg(&m[n], item, agg, err)) < 0)
			goto fail;
		for (i = 0; i < n; i++) {
			if (strcmp(m[i].name, item) == 0) {
				rc = bd_error_set(err, -EINVAL,
				    "metric '%s' listed twice", item);
				goto fail;
			}
		}
		m[n++].name = xstrdup(item);
	}
	if (rc < 0)
		goto fail;
	config_metrics_free(b->metrics, b->nmetrics);
	b->metrics = m;
	b->nmetrics = n;
	return 0;
fail:
	config_metrics_free(m, n);
	return rc;
}
