# SPDX-License-Identifier: MIT
# make bench-sim: the bisection engine against planted culprits and the
# 0-day, Pinpoint and naive baselines (tests/bench/sim.c), then the
# two-culprit row (tests/bench/sim_multi.c).  Release build.
# TRIALS sets the trials per row of the standard table (30: about two
# minutes on one core; TRIALS=100 for the figures in docs/statistics.md).
# SIM_ARGS passes options, e.g. SIM_ARGS='--full' or a single row:
#   make bench-sim SIM_ARGS='--noise t3 --d 2 --trials 500 --seed 7'
SIM_SRC = tests/bench/sim.c tests/bench/sim_world.c tests/bench/sim_base.c \
          tests/bench/sim_stats.c tests/bench/sim_goals.c \
          tests/bench/sim_multi.c tests/bench/sim_infogain.c \
          tests/bench/sim_engine.c
SIM_ARGS ?=
TRIALS ?= 30

$(BUILD)/bench/sim: $(SIM_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

bench-sim: $(BUILD)/bench/sim
	$(BUILD)/bench/sim --trials $(TRIALS) $(SIM_ARGS)

-include $(SIM_SRC:%.c=$(BUILD)/obj/%.d)

# The unit tests check the simulator's statistics too (tests/unit/stats_test.c).
# The object is appended after the libraries on the link line; the few
# library functions it calls (stats_h2, stats_norm_cdf, xcalloc) are in
# members that the unit tests pull in anyway.
$(BUILD)/asan/tests/run-tests: $(BUILD)/asan/tests/bench/sim_stats.o
