/* SPDX-License-Identifier: MIT */
/*
 * bisectd.conf(5), written from the key rows themselves: every key with
 * its kind, default, reload class and doc line, so the page cannot drift
 * from what the parser accepts.  docs/bisectd.conf.5 is this output
 * (`make docs` writes it; a test compares).
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"

static const char manpage_head[] =
    ".Dd December 1, 2026\n"
    ".Dt BISECTD.CONF 5\n"
    ".Os\n"
    ".Sh NAME\n"
    ".Nm bisectd.conf\n"
    ".Nd configuration file of bisectd\n"
    ".Sh DESCRIPTION\n"
    "The file is INI: a line\n"
    ".Li [TYPE]\n"
    "or\n"
    ".Li [TYPE NAME]\n"
    "starts a section, and\n"
    ".Li key = value\n"
    "lines set its keys.\n"
    "Blanks around keys and values are ignored.\n"
    "Comments are whole lines starting with\n"
    ".Ql #\n"
    "or\n"
    ".Ql \\&; ;\n"
    "there are no inline comments, so shell commands may use both.\n"
    "Section names are letters, digits,\n"
    ".Ql \\&. ,\n"
    ".Ql _\n"
    "and\n"
    ".Ql - ,\n"
    "at most 64 characters; each named section may be given once.\n"
    "Unknown sections and keys, a key given twice and bad values are errors:\n"
    ".Xr bisectd 8\n"
    "refuses to start with them, and a reload keeps the old configuration.\n"
    "Check a file with\n"
    ".Ic bisectd -n -c Ar file .\n"
    ".Pp\n"
    "Relative paths are taken relative to the directory of the file.\n"
    "Durations are time spans as\n"
    ".Xr systemd.time 7\n"
    "writes them: numbers with units, added up, with or without blanks\n"
    "between them, such as\n"
    ".Li 500ms , 90s , 15min , 1h30m , 2d 3h\n"
    "or\n"
    ".Li 1.5h ;\n"
    "the units are ms (msec), s (sec, second, seconds), m (min, minute,\n"
    "minutes), h (hr, hour, hours), d (day, days), w (week, weeks), M (month,\n"
    "months, 30.44 days) and y (year, years, 365.25 days).\n"
    "A number without a unit counts seconds.\n"
    "At most 365d; no signs.\n"
    "Placeholders in commands\n"
    ".Pf ( Li {commit} , {short} , {workdir} , {host} , {run_id} ,\n"
    ".Li {artifact} )\n"
    "are shell-quoted when substituted.\n"
    ".Pp\n"
    "A key marked\n"
    ".Dq live\n"
    "takes effect when the daemon reloads the file (SIGHUP or\n"
    ".Ic bisectctl reload ) ;\n"
    "one marked\n"
    ".Dq restart\n"
    "only after a restart, and the reload reply names it in\n"
    ".Va restart_needed .\n";

static const char manpage_tail[] =
    ".Sh FILES\n"
    ".Bl -tag -width Ds -compact\n"
    ".It Pa /etc/bisectd.conf\n"
    "the default configuration file\n"
    ".It Pa /usr/share/doc/bisectd/bisectd.conf.example\n"
    "an annotated example with every key\n"
    ".El\n"
    ".Sh SEE ALSO\n"
    ".Xr bisectctl 1 ,\n"
    ".Xr bisectd 8\n";

/* roff would read a leading dot or quote as a request; escape them. */
static void
manpage_text(FILE *fp, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", fp);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", fp);
		else
			fputc(*s, fp);
	}
}

/* Writes the whole page, one section heading per section type. */
void
config_manpage_write(FILE *fp)
{
	struct config_key_info k;
	const char *section = NULL;
	size_t i;

	fputs(manpage_head, fp);
	for (i = 0; config_key_at(i, &k) == 0; i++) {
		if (section == NULL || strcmp(section, k.section) != 0) {
			if (section != NULL)
				fputs(".El\n", fp);
			fprintf(fp, ".Sh SECTION [%s%s]\n.Bl -tag -width Ds\n",
			    k.section, k.named ? " NAME" : "");
			section = k.section;
		}
		fprintf(fp, ".It Ic %s Ar %s\n", k.key, k.kind);
		manpage_text(fp, k.doc);
		fputc('\n', fp);
		if (k.required)
			fputs("Required.\n", fp);
		else if (k.def != NULL) {
			fputs("Default:\n.Ql ", fp);
			manpage_text(fp, k.def);
			fputs(" .\n", fp);
		} else
			fputs("Default: none.\n", fp);
		fprintf(fp, "Reload: %s.\n", k.reload == CONFIG_RELOAD_LIVE ?
		    "live" : "restart");
	}
	if (section != NULL)
		fputs(".El\n", fp);
	fputs(manpage_tail, fp);
}
