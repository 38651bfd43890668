# SPDX-License-Identifier: MIT
# Every table of a Markdown file names the command that prints it: a
# backquoted command (`sim ...`, `make ...`, `build/bench/sim ...` or
# `bisectctl ...`) in its header row or in the lines just above it (the
# paragraph the table follows, blank lines between them allowed).  Tables inside fenced code blocks are
# output, not tables.  Prints FILE:LINE for every table that names none
# and exits 1; run by tests/support/checkdocs.sh on docs/statistics.md.
# Usage: awk -f tests/support/doctables.awk FILE...
# Written for POSIX awk: it runs under mawk and gawk alike.

function names_command(text,    span) {
	while (match(text, /`[^`]+`/)) {
		span = substr(text, RSTART + 1, RLENGTH - 2)
		if (span ~ /^(make|sim|build\/bench\/sim|bisectctl)( |$)/)
			return 1
		text = substr(text, RSTART + RLENGTH)
	}
	return 0
}

FNR == 1 {
	fence = 0
	intable = 0
	npara = 0
	gap = 0
}

/^[ \t]*(```|~~~)/ {
	fence = !fence
	intable = 0
	npara = 0
	next
}

fence {
	next
}

/^[ \t]*\|/ {
	gap = 0
	if (!intable) {
		intable = 1
		tables++
		above = ""
		for (i = 1; i <= npara; i++)
			above = above " " para[i]
		if (!names_command(above " " $0)) {
			printf "%s:%d: this table names no command that prints it" \
			    " (a backquoted `sim ...`, `make ...` or `bisectctl ...`" \
			    " in its header row or in the lines just above)\n",
			    FILENAME, FNR
			bad++
		}
	}
	npara = 0	# a table is no paragraph for the next one
	next
}

# The last paragraph seen: a line after a blank one starts a new one.
{
	intable = 0
	if ($0 ~ /^[ \t]*$/) {
		gap = 1
		next
	}
	if (gap)
		npara = 0
	gap = 0
	para[++npara] = $0
}

END {
	if (bad > 0) {
		printf "%d of %d tables name no command\n", bad, tables
		exit 1
	}
}
