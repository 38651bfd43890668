/* SPDX-License-Identifier: MIT */
/*
 * The one reader of decimal numbers for values from outside: lab
 * measurements, configuration values and command-line fractions.
 *
 * strtod also reads hexadecimal floats ("0x1p3" is 8), "inf", "nan" and
 * leading white space; none of these is a measurement anyone printed on
 * purpose, so they are refused here.  A number is an optional sign, digits
 * with at most one decimal point (at least one digit in all), and an
 * optional exponent (e or E, an optional sign, digits): "8", "-0.5", ".5",
 * "5.", "1e-3".
 */
#ifndef COMMON_DECIMAL_H
#define COMMON_DECIMAL_H

/*
 * Reads the number at the start of s into *out and sets *end just past it.
 * Returns 0, -EINVAL when s does not start with a decimal number (*end is
 * then s), or -ERANGE when the number is too large for a double.
 */
int	decimal_prefix(const char *s, double *out, const char **end);
/* The same for the whole of s: anything after the number is -EINVAL. */
int	decimal_parse(const char *s, double *out);

#endif
