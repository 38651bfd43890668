/* SPDX-License-Identifier: MIT */
/*
 * The job template renderer and the artifact_url template: placeholders
 * shell-quoted where they land in a step command and YAML-escaped
 * everywhere, then the result checked to be YAML.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "config/config.h"
#include "config/internal.h"

#define LAB_TEMPLATE_MAX	(256 * 1024)
#define LAB_SHORT_LEN		12

/* Growing output buffer of the renderer. */
struct lab_buf {
	char	*p;
	size_t	 n, cap;
};

static void
lab_put(struct lab_buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void
lab_puts(struct lab_buf *b, const char *s)
{
	lab_put(b, s, strlen(s));
}

/* Characters a shell word may hold unquoted. */
static int
lab_shell_safe(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", *s) == NULL)
			return 0;
	return 1;
}

/* 'v' with every ' written as '\'' so the shell sees one word. */
static void
lab_shell_quote(struct lab_buf *b, const char *v)
{
	if (lab_shell_safe(v)) {
		lab_puts(b, v);
		return;
	}
	lab_puts(b, "'");
	for (; *v != '\0'; v++)
		if (*v == '\'')
			lab_puts(b, "'\\''");
		else
			lab_put(b, v, 1);
	lab_puts(b, "'");
}

/* Text that may sit inside a plain YAML scalar and stay what it is. */
static int
lab_plain_safe(const char *s)
{
	size_t n = strlen(s);

	if (strpbrk(s, "\n\r\t") != NULL || strstr(s, ": ") != NULL ||
	    strstr(s, " #") != NULL)
		return 0;
	return n == 0 || (s[n - 1] != ':' && s[n - 1] != ' ');
}

/* How the scalar a placeholder sits in is written. */
enum lab_scalar { LAB_PLAIN, LAB_SINGLE, LAB_DOUBLE };

static void
lab_yaml_double(struct lab_buf *b, const char *v)
{
	char esc[8];

	for (; *v != '\0'; v++) {
		if (*v == '"' || *v == '\\') {
			esc[0] = '\\';
			esc[1] = *v;
			lab_put(b, esc, 2);
		} else if ((unsigned char)*v < 0x20) {
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*v);
			lab_puts(b, esc);
		} else
			lab_put(b, v, 1);
	}
}

/*
 * Writes v where the scalar style is style; whole says the placeholder is
 * the scalar's only content, so it can be made a double-quoted string.
 */
static int
lab_yaml_value(struct lab_buf *b, const char *v, enum lab_scalar style,
    int whole, int at_start, const char *name, int line,
    struct bd_error *err)
{

	switch (style) {
	case LAB_DOUBLE:
		lab_yaml_double(b, v);
		return 0;
	case LAB_SINGLE:
		for (; *v != '\0'; v++)
			lab_puts(b, *v == '\'' ? "''" : (char[]){ *v, 0 });
		return 0;
	case LAB_PLAIN:
		break;
	}
	/* Numbers stay numbers: {priority} is never quoted. */
	if (whole && strcmp(name, "priority") != 0) {
		lab_puts(b, "\"");
		lab_yaml_double(b, v);
		lab_puts(b, "\"");
		return 0;
	}
	if (!lab_plain_safe(v) || (at_start && strchr("'\"-?:,[]{}#&*!|>%@`",
	    v[0]) != NULL))
		return bd_error_set(err, -EINVAL, "job template line %d: the "
		    "value of {%s} cannot be placed inside this unquoted "
		    "text; quote the scalar", line, name);
	return 0;
}

/* Offset of the scalar on a line: after indentation, "- " and "key: ". */
static size_t
lab_scalar_start(const char *line, size_t len)
{
	size_t i = 0, k;

	while (i < len && line[i] == ' ')
		i++;
	while (i + 1 < len && line[i] == '-' && line[i + 1] == ' ')
		for (i += 2; i < len && line[i] == ' '; i++)
			;
	if (i < len && line[i] != '\'' && line[i] != '"' && line[i] != '{')
		for (k = i; k + 1 < len; k++) {
			if (line[k] == ':' && line[k + 1] == ' ') {
				for (i = k + 2; i < len && line[i] == ' '; i++)
					;
				break;
			}
			if (line[k] == '{' || line[k] == ' ')
				break;
		}
	return i;
}

/* The placeholder values of one rendering, by name. */
struct lab_vars {
	const char	*name;
	const char	*value;
};

static const char *
lab_var(const struct lab_vars *vars, const char *name, size_t n)
{
	for (; vars->name != NULL; vars++)
		if (strlen(vars->name) == n && strncmp(vars->name, name, n) == 0)
			return vars->value;
	return NULL;
}

/* Indentation of a line, or -1 for a blank or comment line. */
static int
lab_indent(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && line[i] == ' ')
		i++;
	return i == len || line[i] == '#' ? -1 : (int)i;
}

/* One template line; *steps is the indent of an open steps: key or -1. */
static int
lab_render_line(struct lab_buf *b, const char *line, size_t len,
    const struct lab_vars *vars, int *steps, int lineno, struct bd_error *err)
{
	int ind = lab_indent(line, len), cmd = 0, rc;
	size_t start = lab_scalar_start(line, len), i, j, n;
	enum lab_scalar style = LAB_PLAIN;
	const char *v;
	struct lab_buf qv = { NULL, 0, 0 };

	if (ind >= 0 && *steps >= 0) {
		if (ind >= *steps && line[ind] == '-' && ind + 1 < (int)len &&
		    line[ind + 1] == ' ')
			cmd = 1;
		else if (ind <= *steps)
			*steps = -1;
	}
	if (start < len && line[start] == '"')
		style = LAB_DOUBLE;
	else if (start < len && line[start] == '\'')
		style = LAB_SINGLE;
	for (i = 0; i < len; i = j) {
		if (line[i] != '{') {
			for (j = i; j < len && line[j] != '{'; j++)
				;
			lab_put(b, line + i, j - i);
			continue;
		}
		for (n = 1; i + n < len && ((line[i + n] >= 'a' &&
		    line[i + n] <= 'z') || line[i + n] == '_'); n++)
			;
		if (i + n >= len || line[i + n] != '}' ||
		    (v = lab_var(vars, line + i + 1, n - 1)) == NULL) {
			lab_put(b, line + i, 1);
			j = i + 1;
			continue;
		}
		j = i + n + 1;
		qv.n = 0;
		if (cmd)
			lab_shell_quote(&qv, v);
		else
			lab_puts(&qv, v);
		{
			char name[32];
			size_t end = len;

			while (end > start && (line[end - 1] == ' ' ||
			    line[end - 1] == '\r'))
				end--;
			snprintf(name, sizeof(name), "%.*s", (int)(n - 1),
			    line + i + 1);
			rc = lab_yaml_value(b, qv.p ? qv.p : "", style,
			    i == start && j == end, i == start, name, lineno,
			    err);
			if (rc < 0) {
				free(qv.p);
				return rc;
			}
			if (style != LAB_PLAIN || (i == start && j == end &&
			    strcmp(name, "priority") != 0))
				continue;
			lab_puts(b, qv.p ? qv.p : "");
		}
	}
	free(qv.p);
	/* A "steps:" key opens a list of commands. */
	for (i = start; i > 0 && line[i - 1] == ' '; i--)
		;
	if (ind >= 0 && i >= 7 && strncmp(line + i - 7, "steps: ", 7) == 0 &&
	    start == len)
		*steps = ind;
	else if (ind >= 0 && len >= (size_t)ind + 6 &&
	    strncmp(line + ind, "steps:", 6) == 0 &&
	    lab_indent(line + ind + 6, len - ind - 6) < 0)
		*steps = ind;
	else if (ind >= 0 && len >= (size_t)ind + 8 &&
	    strncmp(line + ind, "- steps:", 8) == 0)
		*steps = ind + 2;
	return 0;
}

/* Substitutes vars in text line by line. */
static int
lab_render_text(const char *text, const struct lab_vars *vars, char **out,
    struct bd_error *err)
{
	struct lab_buf b = { NULL, 0, 0 };
	const char *p = text, *nl;
	int steps = -1, lineno = 1, rc;

	lab_puts(&b, "");
	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if ((rc = lab_render_line(&b, p, (size_t)(nl - p), vars, &steps,
		    lineno, err)) < 0) {
			free(b.p);
			return rc;
		}
		if (*nl == '\n') {
			lab_puts(&b, "\n");
			nl++;
		}
		p = nl;
		lineno++;
	}
	*out = b.p;
	return 0;
}

/* Tags as a YAML flow list: [a, b]. */
static char *
lab_tags_list(const char *tags)
{
	struct lab_buf b = { NULL, 0, 0 };
	const char *p = tags ? tags : "", *c;

	lab_puts(&b, "[");
	while (*p != '\0') {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		for (c = p; *c != '\0' && *c != ',' && *c != ' '; c++)
			;
		if (b.n > 1)
			lab_puts(&b, ", ");
		lab_put(&b, p, (size_t)(c - p));
		p = c;
	}
	lab_puts(&b, "]");
	return b.p;
}

/* Fills the variable table of one rendering; frees nothing. */
static void
lab_fill_vars(struct lab_vars *vars, const struct config_lab *lab,
    const struct config_lab_values *v, char *shortc, size_t shortsz,
    char *prio, size_t priosz)
{
	snprintf(shortc, shortsz, "%.*s", LAB_SHORT_LEN,
	    v->commit ? v->commit : "");
	snprintf(prio, priosz, "%u", lab->priority);
	vars[0] = (struct lab_vars){ "commit", v->commit ? v->commit : "" };
	vars[1] = (struct lab_vars){ "short", shortc };
	vars[2] = (struct lab_vars){ "run_id", v->run_id ? v->run_id : "" };
	vars[3] = (struct lab_vars){ "benchmark",
	    v->benchmark ? v->benchmark : "" };
	vars[4] = (struct lab_vars){ "job_name",
	    v->job_name ? v->job_name : "" };
	vars[5] = (struct lab_vars){ "device_type",
	    lab->device_type ? lab->device_type : "" };
	vars[6] = (struct lab_vars){ "priority", prio };
	vars[7] = (struct lab_vars){ NULL, NULL };
}

char *
config_lab_artifact(const struct config_lab *lab,
    const struct config_lab_values *v)
{
	struct lab_vars vars[10];
	struct lab_buf b = { NULL, 0, 0 };
	char shortc[LAB_SHORT_LEN + 1], prio[16];
	const char *p, *val;
	size_t n;

	if (lab->artifact_url == NULL)
		return xstrdup("");
	lab_fill_vars(vars, lab, v, shortc, sizeof(shortc), prio, sizeof(prio));
	vars[7] = (struct lab_vars){ "artifact",
	    v->artifact ? v->artifact : "" };
	vars[8] = (struct lab_vars){ "build_host",
	    v->build_host ? v->build_host : "" };
	vars[9] = (struct lab_vars){ NULL, NULL };
	/* A URL is one plain word: substitute without YAML rules. */
	lab_puts(&b, "");
	for (p = lab->artifact_url; *p != '\0'; p++) {
		for (n = 1; (p[n] >= 'a' && p[n] <= 'z') || p[n] == '_'; n++)
			;
		if (*p == '{' && p[n] == '}' &&
		    (val = lab_var(vars, p + 1, n - 1)) != NULL) {
			lab_puts(&b, val);
			p += n;
		} else
			lab_put(&b, p, 1);
	}
	return b.p;
}

/* The placeholders artifact_url may hold; any other is a typo. */
static const char *const lab_artifact_names[] = {
	"commit", "short", "benchmark", "run_id", "artifact", "build_host",
	"device_type", "priority", "job_name", NULL,
};

int
config_lab_artifact_check(const char *tmpl, char *bad, size_t badsz)
{
	const char *p;
	size_t n, i;

	for (p = tmpl; (p = strchr(p, '{')) != NULL; p++) {
		for (n = 1; (p[n] >= 'a' && p[n] <= 'z') || p[n] == '_'; n++)
			;
		if (p[n] != '}')
			continue;
		for (i = 0; lab_artifact_names[i] != NULL; i++)
			if (strlen(lab_artifact_names[i]) == n - 1 &&
			    strncmp(lab_artifact_names[i], p + 1, n - 1) == 0)
				break;
		if (lab_artifact_names[i] == NULL) {
			snprintf(bad, badsz, "%.*s", (int)(n - 1), p + 1);
			return -1;
		}
	}
	return 0;
}

/* Reads the whole template file (at most LAB_TEMPLATE_MAX bytes). */
static int
lab_read_template(const char *path, char **out, struct bd_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (f == NULL)
		return bd_error_set(err, -errno, "cannot read %s: %s", path,
		    strerror(errno));
	buf = xmalloc(LAB_TEMPLATE_MAX + 1);
	n = fread(buf, 1, LAB_TEMPLATE_MAX + 1, f);
	fclose(f);
	if (n > LAB_TEMPLATE_MAX) {
		free(buf);
		return bd_error_set(err, -EFBIG, "%s is larger than %d bytes",
		    path, LAB_TEMPLATE_MAX);
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		return bd_error_set(err, -EINVAL, "%s holds a NUL byte", path);
	}
	*out = buf;
	return 0;
}

int
config_lab_render(const struct config_lab *lab,
    const struct config_lab_values *v, char **out, struct bd_error *err)
{
	struct lab_vars vars[10];
	char shortc[LAB_SHORT_LEN + 1], prio[16], *text = NULL, *tags, *art;
	int rc;

	*out = NULL;
	if ((rc = lab_read_template(lab->job_template, &text, err)) < 0)
		return rc;
	lab_fill_vars(vars, lab, v, shortc, sizeof(shortc), prio, sizeof(prio));
	art = config_lab_artifact(lab, v);
	tags = lab_tags_list(lab->tags);
	vars[7] = (struct lab_vars){ "artifact_url", art };
	vars[8] = (struct lab_vars){ NULL, NULL };
	rc = lab_render_text(text, vars, out, err);
	/* {tags} is a flow list, placed as it is. */
	if (rc == 0 && strstr(*out, "{tags}") != NULL) {
		struct lab_vars tv[2] = { { "tags", tags }, { NULL, NULL } };
		struct lab_buf b = { NULL, 0, 0 };
		const char *p = *out, *hit;

		lab_puts(&b, "");
		while ((hit = strstr(p, "{tags}")) != NULL) {
			lab_put(&b, p, (size_t)(hit - p));
			lab_puts(&b, tv[0].value);
			p = hit + 6;
		}
		lab_puts(&b, p);
		free(*out);
		*out = b.p;
	}
	if (rc == 0 && (rc = config_yaml_check(*out, strlen(*out), err)) < 0) {
		free(*out);
		*out = NULL;
	}
	free(text);
	free(tags);
	free(art);
	return rc;
}
