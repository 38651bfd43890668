#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that ship beside the C tests: every man page renders without a
# groff warning, every table of docs/statistics.md names the command that
# prints it, the systemd unit passes `systemd-analyze verify` (when
# systemd-analyze exists on this machine), and every tracked source file
# names its license as SPDX in its first lines.  Usage: checkdocs.sh BUILD_DIR
set -u
build=$1
fail=0
for page in docs/*.[0-9]; do
	out=$(groff -ww -z -man "$page" 2>&1)
	if [ -n "$out" ]; then
		echo "FAIL man page $page:"; echo "$out"; fail=1
	else
		echo "ok   man page $page renders without warnings"
	fi
done
if out=$(awk -f tests/support/doctables.awk docs/statistics.md 2>&1); then
	echo "ok   every table of docs/statistics.md names its command"
else
	echo "FAIL docs/statistics.md:"; echo "$out"; fail=1
fi
# Sources as git tracks them (every file found when this is no checkout):
# C, shell, awk and make files and the CI script.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	sources=$(git ls-files)
else
	sources=$(find . -path ./build -prune -o -type f -print | sed 's|^\./||')
fi
missing=$(printf '%s\n' "$sources" |
    grep -E '(\.(c|h|sh|awk|mk)$|(^|/)Makefile$|^\.ci/run$)' |
    while IFS= read -r f; do
	[ -f "$f" ] || continue
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
    done)
if [ -n "$missing" ]; then
	echo "FAIL no SPDX-License-Identifier: MIT in the first lines of:"
	echo "$missing"; fail=1
else
	echo "ok   every source file names its license (SPDX)"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	unit="$build/check/bisectd.service"
	mkdir -p "$build/check"
	# Point ExecStart at the binary just built, so verify finds it.
	sed -e "s|@SBINDIR@|$build|g" -e "s|@SYSCONFDIR@|/etc|g" \
	    contrib/systemd/bisectd.service.in > "$unit"
	if out=$(systemd-analyze verify --man=no "$unit" 2>&1) && [ -z "$out" ]; then
		echo "ok   systemd-analyze verify contrib/systemd/bisectd.service.in"
	else
		echo "FAIL systemd-analyze verify:"; echo "$out"; fail=1
	fi
else
	echo "skip systemd-analyze verify (no systemd-analyze on this machine)"
fi
exit $fail
