#include <string.h>

#include "common/names.h"

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
