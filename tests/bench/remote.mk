# SPDX-License-Identifier: MIT
# make bench-remote: 10, 50 and 200 concurrent SSH sessions streaming output
# against loopback sshd instances, through remote/ on one libuv loop and
# through one OpenSSH ssh client per session; CPU seconds and memory per
# session side by side with their ratios, and a round trip on the loaded
# loop (tests/bench/remote_bench.c).  Release build (no sanitizers).
#   make bench-remote REMOTE_BENCH_ARGS='--sessions 10,100 --bytes 4000000'
REMOTE_BENCH_ARGS ?=
REMOTE_BENCH_OBJ = $(BUILD)/obj/tests/bench/remote_bench.o \
	$(BUILD)/obj/tests/support/sshd.o $(BUILD)/obj/tests/support/tst.o

$(BUILD)/bench/remote_bench: $(REMOTE_BENCH_OBJ) $(BUILD)/libbisectd.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lpthread

bench-remote: $(BUILD)/bench/remote_bench
	$(BUILD)/bench/remote_bench $(REMOTE_BENCH_ARGS)
