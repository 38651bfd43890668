# SPDX-License-Identifier: MIT
# The graph module's tools and benchmark.
#
# tests/fixtures/repogen.c generates git repositories for the graph tests
# and this benchmark; `make test` builds it next to the ASan binaries, where
# the tests find it (dirname of $BISECTCTL_BIN).
#
# make bench-graph: next-commit choice on a 20,000-candidate range of a
# 100,000-commit linux-next-like repository against `git rev-list
# --bisect`, without and with a commit-graph file, and the per-sample
# probability update.  Release build (no sanitizers).  The repository is
# generated once into $(GRAPH_BENCH_DIR) and reused.
#   make bench-graph GRAPH_BENCH_ARGS='--runs 11 --range 40000'
GRAPH_BENCH_DIR  ?= $(BUILD)/bench/graph
GRAPH_BENCH_ARGS ?=

$(BUILD)/repogen: tests/fixtures/repogen.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $<

$(BUILD)/asan/repogen: tests/fixtures/repogen.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $<

$(BUILD)/bench/graph_bench: $(BUILD)/obj/tests/bench/graph_bench.o $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

test: $(BUILD)/asan/repogen

bench-graph: $(BUILD)/bench/graph_bench $(BUILD)/repogen $(BUILD)/bisectctl
	$(BUILD)/bench/graph_bench --repogen $(abspath $(BUILD)/repogen) \
		--bisectctl $(abspath $(BUILD)/bisectctl) \
		--dir $(abspath $(GRAPH_BENCH_DIR)) $(GRAPH_BENCH_ARGS)
