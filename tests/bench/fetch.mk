# SPDX-License-Identifier: MIT
# make bench-fetch: the mirror's first clone and an incremental fetch of one
# new tag (repo/mirror.c, libgit2) against `git clone --mirror` and `git
# fetch`, side by side in one run, on the generated 100,000-commit
# linux-next-like repository (tests/fixtures/repogen) served by `git daemon`
# on 127.0.0.1 (tests/bench/fetch_bench.c).  Release build.  The repository
# is generated once into $(FETCH_BENCH_DIR) and reused.
#   make bench-fetch FETCH_BENCH_ARGS='--runs 3 --commits 20000'
FETCH_BENCH_DIR  ?= $(BUILD)/bench/fetch
FETCH_BENCH_ARGS ?=
FETCH_BENCH_OBJ = $(BUILD)/obj/tests/bench/fetch_bench.o \
	$(BUILD)/obj/tests/support/tst.o

$(BUILD)/bench/fetch_bench: $(FETCH_BENCH_OBJ) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

bench-fetch: $(BUILD)/bench/fetch_bench $(BUILD)/repogen
	$(BUILD)/bench/fetch_bench --repogen $(abspath $(BUILD)/repogen) \
		--dir $(abspath $(FETCH_BENCH_DIR)) $(FETCH_BENCH_ARGS)
