# SPDX-License-Identifier: MIT
# make bench-sweep: nightly sweeps of simulated tag series, 20 watched metrics a
# tag, bisectd's sweep statistics beside LKP's non-overlap rule and a
# Perfherder-style t > 7 (tests/bench/sweep_bench.c).  Release build.
#   make bench-sweep SWEEP_ARGS='--noise arrays --d 2 --trials 500'
SWEEP_SRC = tests/bench/sweep_bench.c tests/bench/sim_world.c
SWEEP_ARGS ?=

$(BUILD)/bench/sweep: $(SWEEP_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

bench-sweep: $(BUILD)/bench/sweep
	$(BUILD)/bench/sweep $(SWEEP_ARGS)

-include $(SWEEP_SRC:%.c=$(BUILD)/obj/%.d)
