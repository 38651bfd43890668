/* SPDX-License-Identifier: MIT */
/*
 * The evidence in the culprit's own code: perf-profile rows (LKP's
 * perf-profile.self.EVENT.SYMBOL, perf-profile.children.EVENT.SYMBOL and
 * perf-profile.calltrace.EVENT.SYMBOL.CALLER...) whose symbol is a
 * function the culprit's diff touches come first and are marked, and one
 * line says how their share changed.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/report.h"
#include "common/xmalloc.h"

#define TOUCHED_PREFIX	"perf-profile."

static const char *const touched_kinds[] = { "self", "children",
    "calltrace" };

/* At most this many functions are named in the one line. */
#define TOUCHED_LINE_MAX	4

/*
 * The kind ("self", "children", "calltrace"), the event without "-pp"
 * and the symbol of a perf-profile metric; 0 when it is none.
 */
static int
touched_parse(const char *metric, char *kind, size_t klen, char *event,
    size_t elen, const char **sym)
{
	const char *k, *e, *dot;

	if (strncmp(metric, TOUCHED_PREFIX, strlen(TOUCHED_PREFIX)) != 0)
		return 0;
	k = metric + strlen(TOUCHED_PREFIX);
	if ((dot = strchr(k, '.')) == NULL || (size_t)(dot - k) >= klen)
		return 0;
	snprintf(kind, klen, "%.*s", (int)(dot - k), k);
	if (strcmp(kind, "self") != 0 && strcmp(kind, "children") != 0 &&
	    strcmp(kind, "calltrace") != 0)
		return 0;
	e = dot + 1;
	if ((dot = strchr(e, '.')) == NULL || dot[1] == '\0' ||
	    (size_t)(dot - e) >= elen)
		return 0;
	snprintf(event, elen, "%.*s", (int)(dot - e), e);
	if (strlen(event) > 3 && strcmp(event + strlen(event) - 3, "-pp") == 0)
		event[strlen(event) - 3] = '\0';
	*sym = dot + 1;
	return 1;
}

/*
 * The touched function a row's symbol names, or NULL: the symbol itself
 * or with a compiler's suffix (foo.isra.0, foo.constprop.0, foo.cold); a
 * call trace names its innermost function first.
 */
static const char *
touched_function(const struct report_input *in, const char *metric)
{
	char kind[16], event[64];
	const char *sym, *f;
	size_t i, n;

	if (!touched_parse(metric, kind, sizeof(kind), event, sizeof(event),
	    &sym))
		return NULL;
	for (i = 0; i < in->n_touched; i++) {
		if ((f = in->touched[i]) == NULL || *f == '\0')
			continue;
		n = strlen(f);
		if (strncmp(sym, f, n) == 0 && (sym[n] == '\0' ||
		    sym[n] == '.'))
			return f;
	}
	return NULL;
}

/* The headline keeps row 0; touched rows follow it, in table order. */
void
report_touched_sort(const struct report_input *in, struct report_table *t)
{
	struct report_row *rows;
	size_t i, n = 0, start;

	if (in->n_touched == 0 || t->n_rows < 2)
		return;
	start = t->rows[0].headline ? 1 : 0;
	for (i = start; i < t->n_rows; i++)
		t->rows[i].touched = touched_function(in, t->rows[i].metric) !=
		    NULL;
	rows = xreallocarray(NULL, t->n_rows, sizeof(*rows));
	for (i = 0; i < start; i++)
		rows[n++] = t->rows[i];
	for (i = start; i < t->n_rows; i++)
		if (t->rows[i].touched)
			rows[n++] = t->rows[i];
	for (i = start; i < t->n_rows; i++)
		if (!t->rows[i].touched)
			rows[n++] = t->rows[i];
	memcpy(t->rows, rows, t->n_rows * sizeof(*rows));
	free(rows);
}

/* "self cycles 0.59 -> 0.21" of one row. */
static void
touched_change(FILE *fp, const struct report_row *r, bool ascii)
{
	char kind[16], event[64], a[REPORT_FMT_MAX], b[REPORT_FMT_MAX];
	const char *sym;

	touched_parse(r->metric, kind, sizeof(kind), event, sizeof(event),
	    &sym);
	report_fmt_value(a, sizeof(a), r->base.mean);
	report_fmt_value(b, sizeof(b), r->head.mean);
	fprintf(fp, "%s %s %s %s %s", kind, event, a, ascii ? "->" : "\u2192",
	    b);
	if (strcmp(kind, "calltrace") == 0)
		fprintf(fp, " (%s)", sym);
}

/*
 * Maintainers look first at the functions a commit changed; the line
 * names each touched function with a self or children row, and how much
 * of the profile it took on each side.
 */
void
report_touched_write(FILE *fp, const struct report_summary *s)
{
	const struct report_input *in = s->in;
	const struct report_table *t = &s->table;
	const char *f, *done[TOUCHED_LINE_MAX];
	char kind[16], event[64];
	const char *sym;
	size_t i, k, nd = 0, more = 0, shown;
	int pass;
	bool ascii = in->flags & REPORT_ASCII;

	for (i = 0; i < t->n_rows; i++) {
		if (!t->rows[i].touched ||
		    (f = touched_function(in, t->rows[i].metric)) == NULL)
			continue;
		for (k = 0; k < nd && strcmp(done[k], f) != 0; k++)
			;
		if (k < nd)
			continue;
		if (nd == TOUCHED_LINE_MAX) {
			more++;
			continue;
		}
		done[nd++] = f;
	}
	if (nd == 0)
		return;
	fprintf(fp, "the culprit touches ");
	for (k = 0; k < nd; k++) {
		fprintf(fp, "%s%s: ", k ? "; " : "", done[k]);
		/* Self, then children; a call trace where neither is. */
		for (pass = 0, shown = 0; pass < 3 && (pass < 2 ||
		    shown == 0); pass++) {
			for (i = 0; i < t->n_rows; i++) {
				if (!t->rows[i].touched || touched_function(in,
				    t->rows[i].metric) != done[k])
					continue;
				touched_parse(t->rows[i].metric, kind,
				    sizeof(kind), event, sizeof(event), &sym);
				if (strcmp(kind, touched_kinds[pass]) != 0 ||
				    (pass == 2 && shown > 0))
					continue;
				fprintf(fp, "%s", shown ? ", " : "");
				touched_change(fp, &t->rows[i], ascii);
				shown++;
			}
		}
	}
	if (more > 0)
		fprintf(fp, "; and %zu more function%s", more,
		    more == 1 ? "" : "s");
	fprintf(fp, "\n\n");
}

json_t *
report_touched_json(const struct report_input *in)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < in->n_touched; i++)
		if (in->touched[i] != NULL)
			json_array_append_new(a, json_string(in->touched[i]));
	return a;
}
