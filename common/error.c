#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

/* Keeps the failing code and message together so callers can return both. */
int
bd_error_set(struct bd_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

/* Resets err before reuse. */
void
bd_error_clear(struct bd_error *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
