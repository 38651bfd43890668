/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <string.h>

#include "common/names.h"
#include "common/xmalloc.h"

/* JSON output and messages need the word back for a stored number. */
const char *
name_of(const struct name_value *table, int value)
{
	for (; table->name != NULL; table++)
		if (table->value == value)
			return table->name;
	return "?";
}

/* A linear walk: these tables hold a handful of words. */
int
name_find(const struct name_value *table, const char *name, int *value)
{
	for (; table->name != NULL; table++)
		if (strcmp(table->name, name) == 0) {
			*value = table->value;
			return 0;
		}
	return -1;
}

/* One rule for every place a metric name enters: see names.h. */
int
bd_metric_name_valid(const char *name)
{
	size_t i;

	if (name[0] == '\0' || name[0] == ' ')
		return 0;
	for (i = 0; name[i] != '\0'; i++) {
		if (i >= BD_METRIC_NAME_MAX || name[i] < 0x20 ||
		    name[i] > 0x7e || name[i] == ',')
			return 0;
	}
	return name[i - 1] != ' ';
}

/* Longer words are not compared: no name in a table is this long. */
#define NAME_GUESS_MAX	64

/*
 * The edit distance with adjacent transpositions ("stauts" is one step
 * from "status"), the commonest typing slip.
 */
static int
name_distance(const char *a, const char *b)
{
	int d[NAME_GUESS_MAX + 1][NAME_GUESS_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;
	int c, v;

	if (la > NAME_GUESS_MAX || lb > NAME_GUESS_MAX)
		return NAME_GUESS_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			v = d[i - 1][j - 1] + c;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Starts a guess for word; see name_guess_offer. */
void
name_guess_init(struct name_guess *g, const char *word)
{
	g->word = word;
	g->best = NULL;
	g->dist = NAME_GUESS_MAX;
}

/*
 * Near enough is at most two edits and at most a third of the candidate,
 * so "ls" suggests nothing for "list" but "lsit" does.
 */
void
name_guess_offer(struct name_guess *g, const char *candidate)
{
	int dist = name_distance(g->word, candidate);

	if (dist == 0 || dist > 2 || dist * 3 > (int)strlen(candidate))
		return;
	if (dist < g->dist) {
		g->best = candidate;
		g->dist = dist;
	}
}

/* Blank-separated lists in the config (fix-ups, groups) as words. */
size_t
names_split(const char *s, char **out, size_t max)
{
	size_t n = 0, len;

	while (s != NULL && n < max) {
		s += strspn(s, " \t");
		if ((len = strcspn(s, " \t")) == 0)
			break;
		if (out != NULL)
			out[n] = xstrndup(s, len);
		n++;
		s += len;
	}
	return n;
}
