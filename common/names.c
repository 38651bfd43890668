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
