# SPDX-License-Identifier: MIT
# make bench-fixup: a change planted inside a broken stretch, named exactly
# with automatic fix-ups, without them, and by git bisect run with skip
# (tests/bench/fixup_bench.c), on the same worlds.  Release build.
# FIXUP_ARGS passes options, e.g. FIXUP_ARGS='--trials 300 --len 8'.
FIXUP_SRC = tests/bench/fixup_bench.c tests/bench/sim_world.c \
            tests/bench/sim_base.c tests/bench/sim_engine.c \
            tests/bench/sim_stats.c
FIXUP_ARGS ?= --trials 100

$(BUILD)/bench/fixup_bench: $(FIXUP_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

bench-fixup: $(BUILD)/bench/fixup_bench
	$(BUILD)/bench/fixup_bench $(FIXUP_ARGS)

-include $(FIXUP_SRC:%.c=$(BUILD)/obj/%.d)
