# SPDX-License-Identifier: MIT
# bisectd build.  Every library comes through pkg-config; `make deps` installs
# the Debian packages when they are missing (`make`, `make demo` and
# `make test` run it; `make install` never does: it builds and copies).

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
SYSCONFDIR ?= /etc
DESTDIR ?=
BUILD   ?= build
CC      ?= cc

PKGS      = libgit2 libssh2 sqlite3 libuv jansson inih libcurl yaml-0.1
TEST_PKGS = criterion zlib
DEB_PKGS  = pkg-config gcc make git libgit2-dev libssh2-1-dev libsqlite3-dev \
            libuv1-dev libjansson-dev libinih-dev libcriterion-dev zlib1g-dev \
            libcurl4-openssl-dev libyaml-dev openssh-server openssh-client \
            groff-base
# make test also renders the HTML report in a real browser, and runs the
# fuzz targets (tests/fuzz/) built with clang.
TEST_DEB_PKGS = chromium clang
# make demo-kernel builds Debian's kernel source and boots it in QEMU.
KDEMO_DEB_PKGS = linux-source-6.1 qemu-system-x86 ccache flex bison bc \
            libelf-dev cpio xz-utils libc6-dev perl

WARN    = -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wmissing-prototypes \
          -Wstrict-prototypes -Wpointer-arith -Wvla
CSTD    = -std=gnu11 -D_GNU_SOURCE
OPT     ?= -O2 -g
INCS    = -I. 

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS   = $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

SAN     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# Library code: every module except the two programs' main files.  The
# client (ctl/) is a library of its own: bisectd links without it.
MAINS   = daemon/bisectd.c ctl/bisectctl.c
LIB_SRC = $(sort $(wildcard common/*.c config/*.c store/*.c bisect/*.c remote/*.c repo/*.c \
            sched/*.c sweep/*.c server/*.c) \
            $(filter-out $(MAINS),$(wildcard daemon/*.c)))
CTL_SRC = $(sort $(filter-out $(MAINS),$(wildcard ctl/*.c)))
TEST_SRC = $(sort $(wildcard tests/support/*.c tests/unit/*.c tests/integration/*.c))
BENCH_SRC = $(sort $(wildcard tests/bench/*.c))

OBJ      = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
ASAN_OBJ = $(LIB_SRC:%.c=$(BUILD)/asan/%.o)
CTL_OBJ      = $(CTL_SRC:%.c=$(BUILD)/obj/%.o)
CTL_ASAN_OBJ = $(CTL_SRC:%.c=$(BUILD)/asan/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/asan/%.o)

ALL_CFLAGS = $(CSTD) $(WARN) $(INCS) $(PKG_CFLAGS) -MMD -MP

.PHONY: all programs deps test-deps test layering demo demo-kernel demo-kernel-deps \
        install uninstall check-install clean bench bench-graph bench-sim bench-remote bench-fixup \
        bench-fetch bench-sweep check-deps check-docs check-unit docs fuzz fuzz-build

all: deps programs

# The two programs alone, without the package check: what install builds.
programs: $(BUILD)/bisectd $(BUILD)/bisectctl

# Installs what is missing (as root), or prints the command and fails.
deps:
	@sh tests/support/deps.sh $(DEB_PKGS)

test-deps:
	@sh tests/support/deps.sh $(DEB_PKGS) $(TEST_DEB_PKGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(OPT) -c $< -o $@

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -O1 -g $(SAN) -c $< -o $@

$(BUILD)/libbisectd.a: $(OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libbisectd-asan.a: $(ASAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libbisectctl.a: $(CTL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libbisectctl-asan.a: $(CTL_ASAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bisectd: $(BUILD)/obj/daemon/bisectd.o $(BUILD)/libbisectd.a
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

$(BUILD)/bisectctl: $(BUILD)/obj/ctl/bisectctl.o $(BUILD)/libbisectctl.a $(BUILD)/libbisectd.a
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

$(BUILD)/asan/bisectd: $(BUILD)/asan/daemon/bisectd.o $(BUILD)/libbisectd-asan.a
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS)

$(BUILD)/asan/bisectctl: $(BUILD)/asan/ctl/bisectctl.o $(BUILD)/libbisectctl-asan.a $(BUILD)/libbisectd-asan.a
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS)

$(BUILD)/asan/tests/run-tests: $(TEST_OBJ) $(BUILD)/libbisectctl-asan.a $(BUILD)/libbisectd-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ $(PKG_LIBS) $(TEST_LIBS)

# All Criterion tests in one runner, so one summary line closes the output;
# tests/support/run-tests.sh repeats any failure just above that line.
# FILTER='suite/*' runs a subset; JOBS sets Criterion's worker count.
FILTER ?=
JOBS   ?= 2
# The layering check (bisect/ is pure, who may include whom) runs first and
# stops the run when it fails; `make layering` runs it alone.
layering:
	@sh tests/support/layering.sh $(CURDIR)

test: test-deps $(BUILD)/asan/bisectd $(BUILD)/asan/bisectctl $(BUILD)/asan/tests/run-tests
	@sh tests/support/layering.sh $(CURDIR)
	@sh tests/support/checkdocs.sh $(abspath $(BUILD)/asan)
	@if [ -z '$(FILTER)' ]; then sh tests/support/checkinstall.sh $(MAKE); fi
	@# The fuzz targets run first so that Criterion's summary closes the
	@# output; a fuzz failure still fails the run, after the tests.
	@rm -f $(BUILD)/fuzz.failed; if [ -n '$(FILTER)' ]; then :; \
	elif command -v $(FUZZ_CC) >/dev/null 2>&1; then \
		echo "running the fuzz targets, 10 s each"; \
		$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10 || \
		    touch $(BUILD)/fuzz.failed; \
	else echo "fuzz targets skipped: $(FUZZ_CC) is not installed"; fi
	@echo "running Criterion tests (ASan + UBSan)"
	BISECTD_BIN=$(abspath $(BUILD)/asan/bisectd) \
	BISECTCTL_BIN=$(abspath $(BUILD)/asan/bisectctl) \
	BISECTD_SRCDIR=$(CURDIR) BISECTD_STRICT_JSON=1 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	sh tests/support/run-tests.sh $(BUILD)/asan/tests/run-tests --jobs $(JOBS) --verbose=0 $(if $(FILTER),--filter '$(FILTER)')
	@if [ -f $(BUILD)/fuzz.failed ]; then \
		echo "FAILED: a fuzz target did not build or found a crash (see above)"; exit 1; fi

# bisectd.conf(5) is written from the configuration rows; a test compares.
$(BUILD)/gen-conf5: $(BUILD)/obj/docs/gen/conf5.o $(BUILD)/libbisectd.a
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

docs: $(BUILD)/gen-conf5
	$(BUILD)/gen-conf5 > docs/bisectd.conf.5

# Man pages and the systemd unit, as make test checks them.
check-docs: $(BUILD)/asan/bisectd
	@sh tests/support/checkdocs.sh $(abspath $(BUILD)/asan)

# The unit's systemd-analyze security exposure score (goal: at most 3.0).
# Written every time: the paths come from PREFIX and SYSCONFDIR of this call.
$(BUILD)/bisectd.service: contrib/systemd/bisectd.service.in FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@

FORCE:

check-unit: $(BUILD)/bisectd.service
	systemd-analyze security --offline=true $(abspath $<) | tail -n 1

demo: all
	@sh tests/support/demo.sh $(abspath $(BUILD)) $(CURDIR)

demo-kernel-deps:
	@sh tests/support/deps.sh $(KDEMO_DEB_PKGS)

demo-kernel: all demo-kernel-deps
	@sh tests/support/demo-kernel.sh $(abspath $(BUILD)) $(CURDIR)

# Each benchmark brings its own tests/bench/NAME.mk with a bench-NAME target.
-include $(wildcard tests/bench/*.mk)
include tests/fuzz/fuzz.mk

# What install copies, one SOURCE:DESTINATION:MODE a file, the destination
# under $(DESTDIR); uninstall removes exactly these destinations.  The bash
# completion is installed when the tree has one.
COMPLETION = $(wildcard contrib/bash-completion/bisectctl)
INSTALL_FILES = \
	$(BUILD)/bisectd:$(SBINDIR)/bisectd:0755 \
	$(BUILD)/bisectctl:$(BINDIR)/bisectctl:0755 \
	docs/bisectd.8:$(PREFIX)/share/man/man8/bisectd.8:0644 \
	docs/bisectctl.1:$(PREFIX)/share/man/man1/bisectctl.1:0644 \
	docs/bisectd.conf.5:$(PREFIX)/share/man/man5/bisectd.conf.5:0644 \
	config/bisectd.conf.example:$(PREFIX)/share/doc/bisectd/bisectd.conf.example:0644 \
	$(BUILD)/bisectd.service:$(PREFIX)/lib/systemd/system/bisectd.service:0644 \
	contrib/systemd/bisectd.sysusers:$(PREFIX)/lib/sysusers.d/bisectd.conf:0644 \
	contrib/systemd/bisectd.tmpfiles:$(PREFIX)/lib/tmpfiles.d/bisectd.conf:0644 \
	$(if $(COMPLETION),$(COMPLETION):$(PREFIX)/share/bash-completion/completions/bisectctl:0644)
install_field = $(word $(1),$(subst :, ,$(2)))
define NEWLINE


endef

# Builds and copies, nothing else: no package manager, no users, no
# systemctl (README.md, "Operations", says what to run afterwards).
install: programs $(BUILD)/bisectd.service
	$(foreach f,$(INSTALL_FILES),install -D -m $(call install_field,3,$f) $(call install_field,1,$f) $(DESTDIR)$(call install_field,2,$f)$(NEWLINE))

# Removes the files install copied and the one directory that is bisectd's.
uninstall:
	rm -f $(foreach f,$(INSTALL_FILES),$(DESTDIR)$(call install_field,2,$f))
	-rmdir $(DESTDIR)$(PREFIX)/share/doc/bisectd 2>/dev/null

# install into a temporary DESTDIR, uninstall, and nothing may remain;
# make -n install must show no package manager.
check-install:
	@sh tests/support/checkinstall.sh $(MAKE)

clean:
	rm -rf $(BUILD) build-*

# Header dependencies of every object, the programs' main files included.
MAIN_DEPS = $(MAINS:%.c=$(BUILD)/obj/%.d) $(MAINS:%.c=$(BUILD)/asan/%.d)
-include $(OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(CTL_OBJ:.o=.d) $(CTL_ASAN_OBJ:.o=.d) \
    $(TEST_OBJ:.o=.d) $(MAIN_DEPS)
