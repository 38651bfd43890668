#!/bin/sh
# SPDX-License-Identifier: MIT
# The run step of `make demo-kernel`, on a test host over SSH: boot KERNEL in
# QEMU with the benchmark initramfs as /init, check that the booted kernel's
# release names COMMIT (-g and its first 12 hex digits, from
# CONFIG_LOCALVERSION_AUTO), and print the benchmark's JSON line last.
# The accelerator is chosen once, by the first run, and kept in ACCEL_FILE
# for all later runs: KVM when a kernel boots under it, TCG otherwise.
# Exit 75 (EX_TEMPFAIL) when QEMU did not get as far as the benchmark.
# Usage: sh run.sh KERNEL INITRD COMMIT ACCEL_FILE [TIMEOUT_S]
set -eu

kernel=${1:?usage: run.sh KERNEL INITRD COMMIT ACCEL_FILE [TIMEOUT_S]}
initrd=${2:?}
commit=${3:?}
accel_file=${4:?}
timeout_s=${5:-120}
short=$(printf '%.12s' "$commit")
# Beside the kernel, under the demo's temp dir, so that even a run killed
# before its traps can act leaves nothing outside it.
log=$(mktemp "$(dirname "$kernel")/kdemo-console.XXXXXX")
# With LEDGER set, one line per boot for the demo's closing count:
# "run HOST COMMIT SECONDS EXIT".
began=$(date +%s)
trap 'rc=$?; rm -f "$log"; [ -z "${LEDGER:-}" ] || echo "run ${HOST:-?} $commit $(($(date +%s) - began)) $rc" >>"$LEDGER"' EXIT
# A cancelled step (bisectd signals the step's process group) still runs
# the EXIT trap.
trap 'exit 143' TERM INT HUP

# Boots once with accelerator $1 and deadline $2; the console goes to $log.
boot() {
	cpu=max
	[ "$1" = kvm ] && cpu=host
	# --foreground: QEMU stays in this step's process group, so the
	# signal that cancels the step reaches it too.
	timeout --foreground -k 5 "$2" qemu-system-x86_64 -accel "$1" -cpu "$cpu" \
	    -m 128M -smp 1 -nic none -kernel "$kernel" -initrd "$initrd" \
	    -append "console=ttyS0 quiet panic=-1" \
	    -nographic -no-reboot </dev/null >"$log" 2>&1 || true
	grep -q 'BISECTD-BENCH {' "$log"
}

exec 9>>"$accel_file.lock"
flock 9
if [ ! -s "$accel_file" ]; then
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && boot kvm 20; then
		echo kvm >"$accel_file"
	elif boot tcg "$timeout_s"; then
		echo tcg >"$accel_file"
	else
		echo "run.sh: the kernel did not boot to the benchmark under KVM or TCG" >&2
		tail -n 20 "$log" | tr -d '\r' >&2
		exit 75
	fi
fi
flock -u 9
accel=$(cat "$accel_file")

if ! boot "$accel" "$timeout_s"; then
	echo "run.sh: no benchmark line from the kernel ($accel); console:" >&2
	tail -n 20 "$log" | tr -d '\r' >&2
	exit 75
fi
release=$(tr -d '\r' <"$log" | sed -n 's/.*BISECTD-BENCH release \([^ ]*\).*/\1/p' | head -n 1)
case $release in
*-g"$short"|*-g"$short"-dirty)
	;;
*)
	echo "run.sh: booted $release, not a kernel of $short" >&2
	exit 1
	;;
esac
echo "booted $release under $accel"
tr -d '\r' <"$log" | sed -n 's/.*BISECTD-BENCH \({[^}]*}\).*/\1/p' | tail -n 1
