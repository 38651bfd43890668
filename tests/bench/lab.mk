# SPDX-License-Identifier: MIT
# make bench-lab: the same `ssh` device run through LAVA (remote/lava on
# the loop) and directly over SSH (remote/exec): the per-run overhead of
# the LAVA path as a ratio to direct SSH, the loop's CPU per job followed,
# and a control-socket stand-in's p99 round trip with 50 jobs in flight,
# beside the idle loop's (tests/bench/lab_bench.c).  Needs the lab of
# tests/support/lava-up.sh: LAVA_CI_DIR (its directory, for the device's
# key and port), BISECTD_TEST_LAVA_URL and BISECTD_TEST_LAVA_TOKEN.
#   make bench-lab LAB_BENCH_ARGS='--runs 4 --inflight 20'
LAB_BENCH_ARGS ?=
LAB_BENCH_OBJ = $(BUILD)/obj/tests/bench/lab_bench.o \
	$(BUILD)/obj/tests/support/lavajob.o

$(BUILD)/bench/lab_bench: $(LAB_BENCH_OBJ) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lpthread

bench-lab: $(BUILD)/bench/lab_bench
	$(BUILD)/bench/lab_bench $(LAB_BENCH_ARGS)
