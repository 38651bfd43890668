#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the layering rules of docs (design: "who may include whom") on the
# sources, before the tests run: `make test` calls it and stops when it
# fails.  Usage: layering.sh [SOURCE_ROOT]  (default: the tree it is in).
#
#   - bisect/ is the pure core: no <git2.h>, <sqlite3.h>, <uv.h>,
#     <libssh2.h>, <fcntl.h> or <sys/mman.h>, and no open(), openat(),
#     creat(), fopen() or mmap().
#   - Project includes ("dir/file.h") may only name the directories below;
#     a module may always include its own files.  Each room includes only
#     rooms under it: sched/ (bisections, verification, the build cache)
#     under sweep/ (sweeps and the upstream watcher), both under server/
#     (the control socket and its commands), all under daemon/ (the life
#     cycle, reports, hooks).  No module but daemon/ includes daemon/ and
#     none includes ctl/.
#
# Comments and string literals are ignored.  Every violation is printed as
# file:line: what; the exit status is 1 when there is any.

root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2

# module: the other directories its files may include.
rules='common:
config:common
store:common
bisect:common
repo:bisect common
remote:config common
sched:common config store bisect repo remote
sweep:common config store bisect repo remote sched
server:common config store bisect repo remote sched sweep
daemon:common config store bisect repo remote sched sweep server'

# Prints the file with comments and string/char literals blanked, keeping
# line numbers, as "LINE<TAB>TEXT".
strip() {
	awk '
	BEGIN { inc = 0 }
	{
		out = ""; s = $0; i = 1; n = length(s)
		while (i <= n) {
			c = substr(s, i, 1); d = substr(s, i, 2)
			if (inc) {
				if (d == "*/") { inc = 0; i += 2 } else i++
				continue
			}
			if (d == "/*") { inc = 1; i += 2; continue }
			if (d == "//") break
			if (c == "\"" || c == "'\''") {
				q = c; out = out c; i++
				while (i <= n && substr(s, i, 1) != q) {
					if (substr(s, i, 1) == "\\") i++
					i++
				}
				out = out q; i++
				continue
			}
			out = out c; i++
		}
		printf "%d\t%s\n", NR, out
	}' "$1"
}

found=0
checked=0

# report FILE LINE WHAT
report() {
	echo "layering: $1:$2: $3"
	found=$((found + 1))
}

tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT

echo "$rules" | while IFS=: read -r mod allowed; do
	for f in "$mod"/*.c "$mod"/*.h; do
		[ -f "$f" ] || continue
		echo "checked $f"
		# Includes keep their quotes: read them from the raw lines.
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		    while IFS= read -r l; do
			line=${l%%:*}
			inc=$(echo "$l" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
			dir=${inc%%/*}
			[ "$dir" = "$inc" ] && continue		# same directory
			[ "$dir" = "$mod" ] && continue
			case " $allowed " in
			*" $dir "*) ;;
			*) echo "V $f $line $mod/ may not include \"$inc\"" ;;
			esac
		done
		[ "$mod" = bisect ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(git2\|sqlite3\|uv\|libssh2\|fcntl\|sys/mman\)\.h>' "$f" |
		    while IFS= read -r l; do
			echo "V $f ${l%%:*} the pure core includes ${l#*include}"
		done
		strip "$f" | grep -E '(^|[^A-Za-z0-9_])(open|openat|creat|fopen|mmap)[[:space:]]*\(' |
		    while IFS= read -r l; do
			echo "V $f ${l%%	*} the pure core calls a file system function: $(echo "${l#*	}" | sed 's/^[[:space:]]*//')"
		done
	done
done >"$tmp"

while IFS= read -r l; do
	case $l in
	"checked "*) checked=$((checked + 1)) ;;
	V*)
		set -f
		set -- $l
		set +f
		f=$2 line=$3
		shift 3
		report "$f" "$line" "$*"
		;;
	esac
done <"$tmp"

if [ "$found" -gt 0 ]; then
	echo "layering: $found violation(s) in $checked files under $root"
	echo "layering: the rules are at the top of tests/support/layering.sh"
	exit 1
fi
echo "layering: $checked files checked, bisect/ is pure and includes follow the rules"
exit 0
