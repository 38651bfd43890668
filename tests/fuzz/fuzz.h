/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the libFuzzer targets in tests/fuzz/.
 *
 * Each target is one program built by clang with -fsanitize=fuzzer that
 * defines LLVMFuzzerTestOneInput; an oracle that does not hold calls
 * fuzz_fail(), which prints why and aborts, so libFuzzer keeps the input
 * as a crash reproducer.  Nothing here is used by the daemon.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints "oracle: ..." to stderr and aborts. */
void	fuzz_fail(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
/* 1 when s[0..len) is well-formed UTF-8 (as jansson requires), else 0. */
int	fuzz_utf8_valid(const char *s, size_t len);
/*
 * 1 when the environment has FUZZ_STRICT=1.  An oracle for a finding that
 * is reported but not fixed yet (its reproducer in regress/NAME/pending/)
 * holds only then, so a short run does not stop at it every time.
 */
int	fuzz_strict(void);
/* A NUL-terminated copy of data (caller frees). */
char	*fuzz_strndup(const uint8_t *data, size_t size);

#endif
