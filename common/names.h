/* SPDX-License-Identifier: MIT */
/*
 * Name tables: a word and the number it stands for, ended by a NULL name.
 * Every enum that reaches a user (log levels, roles, host states, config
 * words) has exactly one such table, read both ways through these helpers.
 */
#ifndef COMMON_NAMES_H
#define COMMON_NAMES_H

#include <stddef.h>

struct name_value {
	const char	*name;
	int		 value;
};

/* The word for value, or "?" when the table has none. */
const char	*name_of(const struct name_value *table, int value);
/* Sets *value for name and returns 0, or returns -1 when it is unknown. */
int		 name_find(const struct name_value *table, const char *name,
		    int *value);

/*
 * Metric names come from benchmarks (LKP's are like mpstat.cpu.all.idle%,
 * interrupts.CAL:Function_call_interrupts or 90-character perf-profile
 * paths): any printable ASCII up to BD_METRIC_NAME_MAX bytes without a
 * comma (the list separator in the config), not starting or ending with a
 * space.  Config, protocol, store and reports all use this one rule.
 */
#define BD_METRIC_NAME_MAX	255

int		 bd_metric_name_valid(const char *name);

/*
 * "Did you mean": the nearest of the candidates offered to a misspelt
 * word, as git suggests a command.  Borrows word and every candidate.
 */
struct name_guess {
	const char	*word;
	const char	*best;		/* NULL: nothing near enough */
	int		 dist;
};

void		 name_guess_init(struct name_guess *g, const char *word);
/* Considers one candidate; an exact match is never suggested. */
void		 name_guess_offer(struct name_guess *g, const char *candidate);
/*
 * The blank-separated words of s (NULL: none), at most max of them, each
 * a copy in out (when out is not NULL); returns how many.
 */
size_t		 names_split(const char *s, char **out, size_t max);

#endif
