#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo-kernel`: a bisection of a real kernel.  It makes a git history on
# Debian's linux-source (the tree as one commit, then a few dozen small
# commits, one of which slows getppid() down), starts two SSH hosts on
# 127.0.0.1 (box1 builds and tests, box2 tests), and has bisectd find the
# slowdown: each probed commit is built out of tree (tinyconfig plus
# tests/support/kdemo/kernel.config, ccache) on box1, copied to the test
# host, and booted in QEMU with a static benchmark as /init.  It prints the
# report, the git bisect log, checks the culprit and removes everything it
# made, also on failure.
# Usage: sh tests/support/demo-kernel.sh ABSOLUTE_BUILD_DIR [SRCDIR]
# Environment: TARBALL (default /usr/src/linux-source-6.1.tar.xz), JOBS
# (make -j on the build host, default nproc), CCACHE_DIR (default: a new
# one in the temp directory), KEEP=1 keeps the temp directory.
set -eu

build=${1:?usage: demo-kernel.sh BUILD_DIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
demo_name=demo-kernel
. "$src/tests/support/demolib.sh"

kd=$src/tests/support/kdemo
tarball=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-$(nproc)}
ccache_dir=${CCACHE_DIR:-$tmp/ccache}
began=$(date +%s)

[ -f "$tarball" ] || fail "no $tarball (Debian package linux-source-6.1)"
for c in qemu-system-x86_64 ccache gcc make flex bison bc cpio xz perl; do
	command -v "$c" >/dev/null || fail "$c is missing (make demo-kernel-deps)"
done

echo "bisectd kernel demo in $tmp"
say "make a history on $(basename "$tarball"): the tree, then small commits"
sh "$kd/history.sh" "$tarball" "$tmp/linux" >"$tmp/revs" ||
    fail "could not make the history"
good=$(sed -n 's/^good //p' "$tmp/revs")
bad=$(sed -n 's/^bad //p' "$tmp/revs")
planted=$(sed -n 's/^culprit //p' "$tmp/revs")
git -C "$tmp/linux" log --oneline --graph "$good..$bad"
echo "$(git -C "$tmp/linux" rev-list --count "$good..$bad") commits on top of" \
    "$(git -C "$tmp/linux" log -1 --format='%h %s' "$good")"
echo "planted: $(git -C "$tmp/linux" log -1 --format='%h %s' "$planted")"

say "build the benchmark once, a static /init, into an initramfs"
mkdir -p "$tmp/initramfs"
gcc -static -O2 -o "$tmp/initramfs/init" "$kd/init.c" ||
    fail "could not build the benchmark"
(cd "$tmp/initramfs" && echo init | cpio -o -H newc --quiet) \
    >"$tmp/initramfs.cpio" || fail "could not make the initramfs"
echo "$tmp/initramfs.cpio: /init times getppid() with rdtsc"

demo_init
cat >>"$tmp/bisectd.conf" <<EOF

[repo]
path = $tmp/linux

# build: on a build host, fetch the commit into the host's clone and make a
# bzImage out of tree (O=), tinyconfig plus kernel.config, with ccache; the
# artifact is a path of its own per commit.  run: on a test host, boot it
# in QEMU with the benchmark as /init, check that uname -r names the commit
# (-g{short}), print the benchmark's JSON line.
[benchmark getppid]
build = LEDGER=$tmp/ledger HOST={host} CCACHE_DIR=$ccache_dir CCACHE_BASEDIR=$tmp sh $kd/build.sh $tmp/linux {workdir} {commit} {artifact} $kd/kernel.config $jobs
artifact = {workdir}/kernels/{short}/bzImage
run = LEDGER=$tmp/ledger HOST={host} sh $kd/run.sh {artifact} $tmp/initramfs.cpio {commit} $tmp/accel 120
metrics = getppid_cycles:lower
min_change = 10%
build_timeout = 30m
run_timeout = 5m
EOF
start_host box1 build,test
start_host box2 test
sed -n '/^\[benchmark/,$p' "$tmp/bisectd.conf" | sed "s|$tmp|\$TMP|g"
start_daemon

bisect_follow --good "$good" --bad "$bad" --benchmark getppid \
    --metric getppid_cycles --group lab
expect_culprit "$planted"

# The run step must refuse a kernel built for another commit.
kgood=box1/work/kernels/$(printf '%.12s' "$good")/bzImage
say "sh run.sh $kgood initramfs.cpio $bad ...   # good's kernel as bad's"
rc=0
sh "$kd/run.sh" "$tmp/$kgood" "$tmp/initramfs.cpio" "$bad" "$tmp/accel" 120 ||
    rc=$?
[ "$rc" = 1 ] || fail "run.sh exited $rc, not 1, for good's kernel as bad's"
echo "refused: the booted kernel's release does not name the commit"
samples=$("$bisectctl" --json status "$bisection" |
    sed -n 's/.*"samples": *\([0-9]*\).*/\1/p')
stop_daemon

# Closing lines: the steps' own ledger, the samples bisectd stored.
awk -v samples="${samples:-?}" -v wall=$(($(date +%s) - began)) \
    -v accel="$(cat "$tmp/accel" 2>/dev/null || echo none)" '
	function t(s) { return sprintf("%dm%02ds", s / 60, s % 60) }
	$1 == "build" { b++; bs += $4; if ($5 != 0) bf++ }
	# 143: bisectd cancelled the run (its verdict came first).
	$1 == "run" { r++; rs += $4; if ($5 == 143) rc++; else if ($5 != 0) rf++ }
	END {
		printf "\nbuilds:       %d (%d failed), %s\n", b, bf, t(bs)
		printf "runs:         %d QEMU boots under %s (%d failed, %d cancelled), %s\n", r, accel, rf, rc, t(rs)
		printf "samples:      %s\n", samples
		printf "wall time:    %s for the whole demo\n", t(wall)
		printf "machine time: %s (builds and runs)\n", t(bs + rs)
	}' "$tmp/ledger"
