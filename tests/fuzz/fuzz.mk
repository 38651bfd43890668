# SPDX-License-Identifier: MIT
# make fuzz: every libFuzzer target in tests/fuzz/ (one per parser), built
# with clang (-fsanitize=fuzzer,address,undefined) and run FUZZ_SECONDS
# each (default 300) from its seed corpus in tests/fuzz/corpus/NAME/, then
# every reproducer in tests/fuzz/regress/NAME/ once.  make test runs the
# same for 10 s each when clang is installed.  New inputs go to
# $(BUILD)/fuzz/work/NAME/, crashes to $(BUILD)/fuzz/crash/.
#   make fuzz FUZZ_SECONDS=3600 FUZZ_TARGETS='dispatch config'
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?= config dispatch metrics knownhosts proto lava mirror
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(CSTD) $(WARN) $(INCS) $(PKG_CFLAGS) -O1 -g $(FUZZ_SAN) \
                -fsanitize=fuzzer-no-link -MMD -MP \
                -Wno-format-nonliteral
FUZZ_OBJ      = $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
# What a target may need besides the library: the fuzz helpers and, for
# the known_hosts check, the loopback sshd of the remote tests.
FUZZ_SUPPORT  = $(BUILD)/fuzz/obj/tests/fuzz/fuzz.o \
                $(BUILD)/fuzz/obj/tests/support/sshd.o \
                $(BUILD)/fuzz/obj/tests/support/tst.o

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/libbisectd-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_SUPPORT) \
    $(BUILD)/fuzz/libbisectd-fuzz.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) -lpthread

FUZZ_BINS = $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)

# clang itself, when make fuzz is called on its own (make test-deps has it).
fuzz-deps:
	@sh tests/support/deps.sh clang

fuzz-build: deps fuzz-deps $(FUZZ_BINS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(abspath $(BUILD)/fuzz) $(CURDIR) $(FUZZ_SECONDS) \
	    $(FUZZ_TARGETS)

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_SUPPORT:.o=.d) \
    $(FUZZ_TARGETS:%=$(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.d)
# Reached only through the pattern rule: kept so a rebuild stays incremental.
.PHONY: fuzz-deps
.SECONDARY: $(FUZZ_SUPPORT) $(FUZZ_TARGETS:%=$(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o)
