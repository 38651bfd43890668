#!/bin/sh
# SPDX-License-Identifier: MIT
# The build step of `make demo-kernel`, run on a build host over SSH: fetch
# the commit bisectd asks for (revert refs included) into the host's clone,
# check it out, build a bzImage out of tree (tinyconfig plus FRAGMENT) with
# ccache, and copy it to ARTIFACT, a path of its own per commit.  The object
# directory is the host's, so the next commit's build is incremental.
# Only the kernel's own make runs code from the tree.
# Usage: sh build.sh REPO WORKDIR COMMIT ARTIFACT FRAGMENT [JOBS]
set -eu

repo=${1:?usage: build.sh REPO WORKDIR COMMIT ARTIFACT FRAGMENT [JOBS]}
work=${2:?}
commit=${3:?}
artifact=${4:?}
fragment=${5:?}
jobs=${6:-$(nproc)}
src=$work/linux
obj=$work/obj

# With LEDGER set, one line per build for the demo's closing count:
# "build HOST COMMIT SECONDS EXIT".
began=$(date +%s)
trap 'rc=$?; [ -z "${LEDGER:-}" ] || echo "build ${HOST:-?} $commit $(($(date +%s) - began)) $rc" >>"$LEDGER"' EXIT

# One build at a time in the host's clone and object directory.
mkdir -p "$work"
exec 9>>"$work/build.lock"
flock 9

if [ ! -d "$src/.git" ]; then
	git clone -q --shared --no-checkout "$repo" "$src"
fi
git -C "$src" fetch -q origin "$commit"
git -C "$src" -c advice.detachedHead=false checkout -q -f --detach "$commit"

if [ ! -f "$obj/.config" ]; then
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	grep -v '^#' "$fragment" >>"$obj/.config"
	make -s -C "$src" O="$obj" olddefconfig 2>/dev/null
	for sym in $(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "$fragment"); do
		grep -qx "$sym=y" "$obj/.config" || {
			echo "build.sh: $sym did not stay set in .config" >&2
			rm -f "$obj/.config"
			exit 1
		}
	done
fi

# A fixed build time, user and host: the same commit gives the same image.
KBUILD_BUILD_TIMESTAMP=@0 KBUILD_BUILD_USER=bisectd KBUILD_BUILD_HOST=demo \
    make -s -C "$src" O="$obj" -j"$jobs" CC="ccache gcc" bzImage
echo "built $(cat "$obj/include/config/kernel.release")"
mkdir -p "$(dirname "$artifact")"
cp "$obj/arch/x86/boot/bzImage" "$artifact.tmp"
mv "$artifact.tmp" "$artifact"
