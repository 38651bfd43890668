#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that `make install` builds and copies and nothing else, and that
# `make uninstall` takes back every file it copied.  `make -n install` may
# only compile, link, archive, write the unit and copy; then a real install
# into a temporary DESTDIR must put the daemon in sbin and the rest where
# README.md says, and after `make uninstall` no file may remain there.
# Usage: checkinstall.sh [MAKE]   (from the top of the tree)
set -u
make=${1:-make}
fail=0
dest=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-install.XXXXXX") || exit 1
trap 'rm -rf "$dest"' EXIT
trap 'exit 130' INT TERM

# The first word of every command make would run, without its directory.
if ! dry=$($make --no-print-directory -n install DESTDIR="$dest" 2>&1); then
	echo "FAIL make -n install:"; echo "$dry"; exit 1
fi
others=$(printf '%s\n' "$dry" | awk '
	NF == 0 { next }
	{ w = $1; sub(/.*\//, "", w) }
	w !~ /^(cc|gcc|clang|ar|rm|mkdir|sed|install)$/ { print }')
if [ -n "$others" ]; then
	echo "FAIL make -n install runs more than the build and the copies:"
	printf '%s\n' "$others"; fail=1
else
	echo "ok   make -n install only builds and copies"
fi

if ! out=$($make --no-print-directory install DESTDIR="$dest" PREFIX=/usr \
    2>&1); then
	echo "FAIL make install:"; echo "$out"; exit 1
fi
for f in usr/sbin/bisectd usr/bin/bisectctl usr/share/man/man8/bisectd.8 \
    usr/share/man/man1/bisectctl.1 usr/share/man/man5/bisectd.conf.5 \
    usr/share/doc/bisectd/bisectd.conf.example \
    usr/lib/systemd/system/bisectd.service usr/lib/sysusers.d/bisectd.conf \
    usr/lib/tmpfiles.d/bisectd.conf; do
	if [ ! -f "$dest/$f" ]; then
		echo "FAIL make install did not write /$f"; fail=1
	fi
done
if [ -f contrib/bash-completion/bisectctl ] &&
    [ ! -f "$dest/usr/share/bash-completion/completions/bisectctl" ]; then
	echo "FAIL make install did not write the bash completion"; fail=1
fi
if ! grep -q '^ExecStart=/usr/sbin/bisectd ' \
    "$dest/usr/lib/systemd/system/bisectd.service" 2>/dev/null; then
	echo "FAIL the installed unit does not start /usr/sbin/bisectd"; fail=1
fi
if [ -x "$dest/usr/sbin/bisectd" ] &&
    ! "$dest/usr/sbin/bisectd" --version >/dev/null; then
	echo "FAIL the installed bisectd --version"; fail=1
fi
[ $fail -eq 0 ] && echo "ok   make install DESTDIR=... PREFIX=/usr writes every file"

if ! out=$($make --no-print-directory uninstall DESTDIR="$dest" \
    PREFIX=/usr 2>&1); then
	echo "FAIL make uninstall:"; echo "$out"; exit 1
fi
left=$(find "$dest" ! -type d)
if [ -n "$left" ]; then
	echo "FAIL make uninstall left files behind:"; echo "$left"; fail=1
else
	echo "ok   make uninstall removes every file install wrote"
fi
exit $fail
