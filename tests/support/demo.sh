#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: the main job on an embedded default.  It makes a kernel-like
# repository with a planted slowdown, starts two SSH "test machines" (sshd on
# 127.0.0.1 with keys made here), starts bisectd, asks it to bisect, follows
# the progress and prints the 0-day style report.  Everything lives in one
# temp directory that is removed at the end.
# Usage: sh tests/support/demo.sh ABSOLUTE_BUILD_DIR [SRCDIR]
set -eu

build=${1:?usage: demo.sh BUILD_DIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
demo_name=demo
. "$src/tests/support/demolib.sh"

echo "bisectd demo in $tmp"
say "make a kernel-like repository with a planted slowdown"
sh "$src/tests/fixtures/e2e/make-repo.sh" "$tmp/linux" 6 2:3 2 >"$tmp/revs"
good=$(sed -n 's/^good //p' "$tmp/revs")
bad=$(sed -n 's/^bad //p' "$tmp/revs")
planted=$(sed -n 's/^culprit //p' "$tmp/revs")
git -C "$tmp/linux" log --oneline --graph | head -n 12
echo "... (planted culprit: $planted)"

demo_init
cat >>"$tmp/bisectd.conf" <<EOF

[repo]
path = $tmp/linux

# Build the commit's bench.c on the host, run it, read the JSON line it prints.
[benchmark spin]
build = mkdir -p {workdir}/src-{short} && git -C $tmp/linux archive {commit} | tar -x -C {workdir}/src-{short} && cc -O2 -o {workdir}/src-{short}/bench {workdir}/src-{short}/bench.c
artifact = {workdir}/src-{short}/bench
run = {artifact}
metrics = ops_per_sec:higher, runtime_ms:lower
min_change = 5%
EOF
start_host box1
start_host box2
start_daemon

bisect_follow --good "$good" --bad "$bad" --benchmark spin \
    --metric ops_per_sec --group lab
expect_culprit "$planted"
stop_daemon
