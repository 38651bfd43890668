/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the print module's files (print*.c): small
 * readers for reply members that never fail, and formatting of shas,
 * times and durations.  Not for other modules.
 */
#ifndef CTL_PRINT_INT_H
#define CTL_PRINT_INT_H

#include <math.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

/* How much of a timestamp a place shows. */
enum timefmt {
	TIME_CLOCK,		/* 14:03:07, for events */
	TIME_MINUTE,		/* 2026-11-29 14:03, for tables */
	TIME_SECOND,		/* 2026-11-29 14:03:07 */
};

/* Missing strings print as "-" rather than crashing the output. */
static inline const char *
str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "-";
}

/* Integers that are missing count as 0, which every caller can show. */
static inline long long
num(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* A sha cut to n digits for tables, where the full one would crowd out. */
static inline const char *
shortsha(const char *sha, size_t n, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)n, sha);
	return buf;
}

/* Local wall-clock time of a millisecond timestamp; "-" when absent. */
static inline const char *
timestr(const json_t *ms, enum timefmt f, char *buf, size_t size)
{
	struct tm tm;
	time_t t;

	if (!json_is_integer(ms) && !json_is_real(ms))
		return "-";
	t = (time_t)(json_number_value(ms) / 1000.0);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, size, f == TIME_CLOCK ? "%H:%M:%S" :
	    f == TIME_MINUTE ? "%Y-%m-%d %H:%M" : "%Y-%m-%d %H:%M:%S",
	    &tm) == 0)
		return "-";
	return buf;
}

/* "45s", "5m00s", "2h05m": the precision a person waiting needs. */
static inline const char *
durstr(double s, char *buf, size_t size)
{
	long long t = llround(s);

	if (t < 60)
		snprintf(buf, size, "%llds", t);
	else if (t < 3600)
		snprintf(buf, size, "%lldm%02llds", t / 60, t % 60);
	else
		snprintf(buf, size, "%lldh%02lldm", t / 3600, t / 60 % 60);
	return buf;
}

#endif
