#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes the git history `make demo-kernel` bisects: Debian's linux-source
# tree as one commit, then small commits in several subsystems (notes,
# documentation, harmless changes, two merged topic branches), one of which
# makes getppid() re-read the parent SPIN times: a slowdown in a system call.
# Prints "good SHA", "bad SHA" and "culprit SHA".  Only this script edits the
# tree; nothing in the tree is run.
# Usage: sh history.sh TARBALL DEST [SPIN]
set -eu

tarball=${1:?usage: history.sh TARBALL DEST [SPIN]}
dest=${2:?usage: history.sh TARBALL DEST [SPIN]}
spin=${3:-32}
n=0

mkdir -p "$dest"
tar -xJf "$tarball" -C "$dest" --strip-components=1
cd "$dest"
git init -q -b master .
git config gc.auto 0
git config core.autocrlf false

# Sets a fixed date and one of a few authors for the next commit, so that
# the same tarball always gives the same history.
who() {
	n=$((n + 1))
	case $((n % 4)) in
	0) name="Ada Example <ada@example.org>" ;;
	1) name="Ben Sample <ben@example.org>" ;;
	2) name="Chloe Probe <chloe@example.org>" ;;
	*) name="Dan Trace <dan@example.org>" ;;
	esac
	GIT_AUTHOR_DATE="@$((1670760000 + n * 3600)) +0000"
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	GIT_AUTHOR_NAME=${name% <*}
	GIT_AUTHOR_EMAIL=${name#*<}
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
	GIT_COMMITTER_NAME="Demo Maintainer"
	GIT_COMMITTER_EMAIL="maintainer@example.org"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE GIT_AUTHOR_NAME \
	    GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
}

# Works on branch $1 from now on, with an index file of its own: the
# branches touch different files, so one work tree holds them all, and no
# command has to look at the 70000 files of the tree again.
on() {
	branch=$1
	if [ "$1" = master ]; then
		unset GIT_INDEX_FILE
	else
		GIT_INDEX_FILE=$dest/.git/index-$1
		export GIT_INDEX_FILE
	fi
}

# Starts branch $1 at the current branch's tip and works on it.
branch() {
	git update-ref "refs/heads/$1" "refs/heads/$branch"
	cp "${GIT_INDEX_FILE:-$dest/.git/index}" "$dest/.git/index-$1"
	on "$1"
}

# One commit of what is staged, on the current branch.
commit() {
	who
	c=$(git commit-tree "$(git write-tree)" -p "refs/heads/$branch" "$@")
	git update-ref "refs/heads/$branch" "$c"
}

# Merges topic branch $1 into master with a merge commit.
merge() {
	on master
	who
	tree=$(git merge-tree --write-tree master "$1")
	c=$(git commit-tree "$tree" -p master -p "$1" -m "Merge branch '$1'")
	git update-ref refs/heads/master "$c"
	git read-tree "$tree"
	git update-ref -d "refs/heads/$1"
	rm -f "$dest/.git/index-$1"
}

# Appends a comment to a C or assembler file, after its last line, so
# that no line of code moves.
note() {
	[ -f "$1" ] || { echo "history.sh: no $1" >&2; exit 1; }
	printf '\n/*\n * %s\n */\n' "$2" >>"$1"
	git update-index -- "$1"
	commit -m "$3" -m "$2"
}

# Appends a paragraph to a documentation file.
doc() {
	[ -f "$1" ] || { echo "history.sh: no $1" >&2; exit 1; }
	printf '\n%s\n' "$2" >>"$1"
	git update-index -- "$1"
	commit -m "$3" -m "$2"
}

# Replaces one exact line of a file; fails unless it occurs exactly once.
edit() {
	c=$(grep -cxF -- "$2" "$1" || true)
	[ "$c" = 1 ] || { echo "history.sh: '$2' in $1: $c times" >&2; exit 1; }
	FROM=$2 TO=$3 perl -pi -e '$_ = "$ENV{TO}\n" if $_ eq "$ENV{FROM}\n"' "$1"
	git update-index -- "$1"
	commit -m "$4"
}

# Debian's .gitignore ignores every top-level entry: add the tree anyway.
git add -A -f
who
c=$(git commit-tree "$(git write-tree)" -m "Linux $(sed -n 's/^VERSION = //p' Makefile).$(sed -n 's/^PATCHLEVEL = //p' Makefile).$(sed -n 's/^SUBLEVEL = //p' Makefile) (Debian linux-source)" \
    -m "The whole tree of $(basename "$tarball") as one commit.")
git update-ref refs/heads/master "$c"
on master
good=$c

doc Documentation/process/howto.rst "Benchmarks that move by a few percent are bisected with several runs per commit." \
    "docs: howto: say how performance changes are bisected"
note mm/mmap.c "The VMA tree is walked under mmap_lock; see Documentation/mm." \
    "mm/mmap: point at the locking documentation"
note lib/string.c "These helpers are used before the console is up; keep them free of printk()." \
    "lib/string: note that the helpers run before the console"
note fs/ext4/inode.c "Delayed allocation decides block placement at writeback time." \
    "ext4: note where delayed allocation places blocks"
note net/ipv4/tcp.c "The receive path runs in softirq context; the locking above follows from that." \
    "tcp: explain the receive path's context"

# A topic branch of driver notes, merged below.
branch drivers-topic
note drivers/net/dummy.c "The dummy device drops every packet it is given." \
    "net: dummy: say what the device does with packets"
note drivers/gpu/drm/drm_file.c "A file's master is looked up under the device's master mutex." \
    "drm/file: name the lock that protects the master"
edit drivers/net/dummy.c "#define DRV_NAME	\"dummy\"" \
    "#define DRV_NAME	\"dummy\"	/* also the rtnl link kind */" \
    "net: dummy: note that the driver name is the link kind"
note drivers/usb/core/hub.c "Port power is switched only by hubs that support it." \
    "usb: hub: note which hubs switch port power"
on master

note kernel/fork.c "copy_process() does the work; the callers above only choose flags." \
    "fork: say where the work of a fork happens"
doc Documentation/admin-guide/README.rst "Kernels built out of tree keep the source tree clean: make O=dir." \
    "docs: admin-guide: mention out-of-tree builds"
note fs/open.c "do_sys_open() is reached from open(), openat() and openat2()." \
    "fs/open: list the system calls that reach do_sys_open()"
note drivers/tty/serial/8250/8250_core.c "The ports above are probed in the order their platform devices appear." \
    "serial: 8250: note the order ports are probed in"
merge drivers-topic
note kernel/sched/core.c "The run queue lock nests inside the task's pi_lock." \
    "sched/core: state the lock order once more"
note mm/page_alloc.c "The per-CPU lists are drained when a CPU goes offline." \
    "mm/page_alloc: note when the per-CPU lists are drained"
doc Documentation/process/submitting-patches.rst "Measure a performance patch before and after it, on the same machine." \
    "docs: submitting-patches: ask for measurements"
note kernel/printk/printk.c "Records reach the consoles in the order they were stored." \
    "printk: note the order records reach consoles in"
note arch/x86/kernel/setup.c "The memory map is final once e820 has been sanitized." \
    "x86/setup: note when the memory map is final"
note fs/btrfs/ctree.c "Tree balancing happens on the way down, before an insert." \
    "btrfs: note when trees are balanced"

# The planted slowdown: getppid() re-reads the parent SPIN times.
FROM='	rcu_read_lock();
	pid = task_tgid_vnr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
' TO="	/* Re-read the parent until a racing reparent has settled. */
	for (int i = 0; i < $spin; i++) {
		rcu_read_lock();
		pid = task_tgid_vnr(rcu_dereference(current->real_parent));
		rcu_read_unlock();
	}
" perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/ == 1 or
    die "history.sh: getppid() not found in kernel\/sys.c\n"' kernel/sys.c
git update-index -- kernel/sys.c
commit -m "kernel/sys: getppid: re-read the parent to settle a reparenting race" \
    -m "A task reparented while getppid() runs could report its old parent."
culprit=$(git rev-parse master)

note kernel/exit.c "A task's children are reparented before it is released." \
    "exit: note when children are reparented"
doc Documentation/filesystems/vfs.rst "The dentry cache is shrunk under memory pressure like any other cache." \
    "docs: vfs: note how the dentry cache shrinks"
note net/core/dev.c "Receive steering picks the CPU before the protocol handlers run." \
    "net: core: note when receive steering picks the CPU"

# A second topic branch, of documentation and comments.
branch docs-topic
doc Documentation/process/coding-style.rst "Comments say why, not what." \
    "docs: coding-style: one more line about comments"
note fs/namei.c "Path walks start in RCU mode and fall back to references." \
    "namei: note how a path walk starts"
doc Documentation/admin-guide/kernel-parameters.rst "console= may be given more than once." \
    "docs: kernel-parameters: console= may repeat"
on master

note mm/vmscan.c "Reclaim starts from the inactive lists." \
    "mm/vmscan: note where reclaim starts"
note kernel/time/timekeeping.c "The clocksource may change at run time, for instance to jiffies." \
    "timekeeping: note that the clocksource can change"
note drivers/block/loop.c "A loop device takes its block size from the backing file's filesystem." \
    "loop: note where the block size comes from"
merge docs-topic
note kernel/signal.c "Signals to a thread group go to any thread that does not block them." \
    "signal: note which thread a group signal goes to"
note fs/read_write.c "vfs_read() checks the range before the file's own read." \
    "fs/read_write: note the order of checks"
doc Documentation/process/howto.rst "A bisection names a commit; the report says how sure it is." \
    "docs: howto: say what a bisection report contains"
note init/main.c "The initramfs is unpacked before /init runs." \
    "init: note when the initramfs is unpacked"
bad=$(git rev-parse master)

echo "good $good"
echo "bad $bad"
echo "culprit $culprit"
