/* tests/fuzz/fuzz_overrides.h: how a fuzzed scenario carries `--set`
 * overrides: leading lines "//set KEY=VALUE" (a libconfig comment, so the
 * file stays a scenario). Shared by tests/fuzz/fuzz_scenario.c and
 * tests/test_fuzz_regress.c, so a regression input is loaded exactly as the
 * harness loaded it. */
#ifndef TESTS_FUZZ_OVERRIDES_H
#define TESTS_FUZZ_OVERRIDES_H

#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_OVERRIDES 8

/* Copies up to FUZZ_MAX_OVERRIDES leading "//set " lines of text[0..size)
 * into ov[] (each malloc'ed, caller frees); returns how many. */
static inline size_t fuzz_overrides(const char *text, size_t size,
                                    char *ov[FUZZ_MAX_OVERRIDES])
{
    size_t n = 0, off = 0;
    while (n < FUZZ_MAX_OVERRIDES && off + 6 <= size &&
           memcmp(text + off, "//set ", 6) == 0) {
        const char *nl = memchr(text + off, '\n', size - off);
        size_t end = nl ? (size_t)(nl - text) : size;
        size_t len = end - off - 6;
        ov[n] = malloc(len + 1);
        memcpy(ov[n], text + off + 6, len);
        ov[n][len] = '\0';
        n++;
        off = nl ? end + 1 : size;
    }
    return n;
}

#endif
