#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the Criterion runner given as arguments and, when a test failed,
# repeats each failure (its assertion lines and its [FAIL] line) after the
# run, followed by the runner's summary line again.  A long parallel run
# prints a failure somewhere in thousands of lines; a reader who sees only
# the end of the output must still learn which test failed and why.
# Exits with the runner's status.
set -u
log=$(mktemp "${TMPDIR:-/tmp}/bisectd-tests.XXXXXX")
rcfile=$(mktemp "${TMPDIR:-/tmp}/bisectd-tests-rc.XXXXXX")
trap 'rm -f "$log" "$rcfile"' EXIT
trap 'exit 130' INT TERM

{ "$@" 2>&1; echo $? >"$rcfile"; } | tee "$log"
rc=$(cat "$rcfile")

# Criterion prints a test's assertion messages as "[----]" lines right
# before its "[FAIL]" line; keep those lines of every failed test.  Lines
# the tests' own servers print may fall in between and are passed over.
awk '
	/^\[----\]/ { held = held $0 "\n"; next }
	/^\[FAIL\]/ { failed = failed held $0 "\n"; held = ""; n++; next }
	/^\[====\] Synthesis:/ { summary = $0 }
	/^\[(PASS|RUN |SKIP|====)\]/ { held = "" }
	END {
		if (n == 0)
			exit
		printf "\n[====] %d failed test(s), repeated from above:\n", n
		printf "%s", failed
		if (summary != "")
			print summary
	}
' "$log"
exit "${rc:-1}"
