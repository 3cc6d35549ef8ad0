/* fuzz.h — what every harness shares: the libFuzzer entry point (also
 * called by replay.c, the corpus runner for builds without libFuzzer), a
 * NUL-terminated copy of the input, and an invariant check that aborts, so
 * that libFuzzer and the replay test both see a broken promise as a crash. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
        char *t = malloc(size + 1);
        if (!t)
                abort();
        memcpy(t, data, size);
        t[size] = '\0';
        return t;
}

#define fuzz_check(cond) do {                                                   \
        if (!(cond)) {                                                          \
                fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
                abort();                                                        \
        }                                                                       \
} while (0)
