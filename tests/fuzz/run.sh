#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs libFuzzer targets for a while each, then their regression inputs.
#   run.sh FUZZDIR SRCDIR SECONDS NAME...
# FUZZDIR holds the fuzz_NAME programs; the seeds are SRCDIR/tests/fuzz/
# corpus/NAME/, inputs found are kept in FUZZDIR/work/NAME/, a crash in
# FUZZDIR/crash/NAME-*.  Every file directly in SRCDIR/tests/fuzz/regress/
# NAME/ runs once (pending/ below it holds findings not fixed yet, left
# out).  One line per target; the exit status is 1 when anything crashed.
fuzzdir=$1 srcdir=$2 seconds=$3
shift 3
status=0
LSAN_OPTIONS=suppressions=$srcdir/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
export LSAN_OPTIONS
for name in "$@"; do
	bin=$fuzzdir/fuzz_$name
	work=$fuzzdir/work/$name
	crash=$fuzzdir/crash
	log=$fuzzdir/log/$name.log
	# Temp dirs of a target (its daemon, its sshd) live here, emptied
	# first: an aborted run cannot remove its own.
	TMPDIR=$fuzzdir/tmp/$name
	export TMPDIR
	rm -rf "$TMPDIR"
	mkdir -p "$work" "$crash" "$fuzzdir/log" "$TMPDIR"
	seeds=$srcdir/tests/fuzz/corpus/$name
	# libFuzzer needs each corpus dir to exist.
	[ -d "$seeds" ] || seeds=
	(cd "$fuzzdir" && "$bin" -max_total_time="$seconds" -timeout=20 \
	    -print_final_stats=1 -artifact_prefix="$crash/$name-" \
	    "$work" $seeds) >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc -eq 0 ]; then
		echo "fuzz $name: ${execs:-?} executions in ${seconds}s, ok"
	else
		repro=$(sed -n "s/.*Test unit written to //p" "$log" | tail -n 1)
		echo "fuzz $name: FAILED (exit $rc) after ${execs:-?} executions"
		sed -n '/^==[0-9]*==ERROR\|^oracle:\|^SUMMARY/p' "$log" | head -n 5
		echo "fuzz $name: reproducer ${repro:-(none written)}; log $log"
		echo "fuzz $name: rerun with $bin ${repro:-FILE}"
		status=1
	fi
	regress=$srcdir/tests/fuzz/regress/$name
	[ -d "$regress" ] || continue
	files=$(find "$regress" -maxdepth 1 -type f | sort)
	n=$(echo "$files" | grep -c .)
	rlog=$fuzzdir/log/$name-regress.log
	# shellcheck disable=SC2086  # one argument per file; names have no blanks
	if [ "$n" -eq 0 ]; then
		:
	elif (cd "$fuzzdir" && FUZZ_STRICT=1 "$bin" $files) >"$rlog" 2>&1
	then
		echo "regress $name: $n inputs, ok"
	else
		echo "regress $name: FAILED; log $rlog"
		sed -n '/^==[0-9]*==ERROR\|^oracle:\|^SUMMARY\|^Running: /p' \
		    "$rlog" | tail -n 6
		status=1
	fi
	# Findings reported but not fixed yet: shown, never a failure.
	for f in $(find "$regress/pending" -maxdepth 1 -type f 2>/dev/null |
	    sort); do
		if (cd "$fuzzdir" && FUZZ_STRICT=1 "$bin" "$f") >/dev/null 2>&1
		then
			echo "pending $name: $(basename "$f") passes now:" \
			    "move it up to regress/$name/"
		else
			echo "pending $name: $(basename "$f") still fails" \
			    "(known, not fixed yet)"
		fi
	done
done
exit $status
