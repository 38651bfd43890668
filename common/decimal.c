/* SPDX-License-Identifier: MIT */
/*
 * Strict decimal numbers: see decimal.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/decimal.h"

/* The number of digits at s. */
static size_t
decimal_digits(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

/*
 * The syntax is checked first and strtod converts only what passed, so
 * strtod's other forms never get a chance.  Underflow to a tiny or zero
 * value is accepted: it is still the number that was written.
 */
int
decimal_prefix(const char *s, double *out, const char **end)
{
	const char *p = s;
	size_t mant, exp;
	char *stop;
	double d;

	*end = s;
	if (*p == '+' || *p == '-')
		p++;
	mant = decimal_digits(p);
	p += mant;
	if (*p == '.') {
		exp = decimal_digits(p + 1);
		mant += exp;
		p += 1 + exp;
	}
	if (mant == 0)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if ((exp = decimal_digits(q)) > 0)
			p = q + exp;
	}
	d = strtod(s, &stop);
	if (stop != p)
		return -EINVAL;
	if (!isfinite(d))
		return -ERANGE;
	*out = d;
	*end = p;
	return 0;
}

/* Most callers take a whole value, not a number inside a longer text. */
int
decimal_parse(const char *s, double *out)
{
	const char *end;
	int rc;

	if ((rc = decimal_prefix(s, out, &end)) != 0)
		return rc;
	return *end == '\0' ? 0 : -EINVAL;
}
