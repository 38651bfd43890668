#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages named as arguments when any is missing.
# As root it runs apt-get itself; otherwise it prints the command and fails.
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	echo "installing missing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q && apt-get install -y -q $missing || {
		echo "apt-get install failed for:$missing" >&2; exit 1; }
else
	echo "missing Debian packages:$missing" >&2
	echo "run:  sudo apt-get install -y$missing" >&2
	exit 1
fi
