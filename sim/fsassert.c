/* sim/fsassert.c: the failure path and the counters of FS_ASSERT (see
 * sim/fsassert.h). Owns nothing else; it must never be called for bad input
 * (that is a SIM_E* return), only for a broken invariant.
 *
 * The counter is a relaxed atomic because sweeps run replications on several
 * threads; it only counts, so no ordering is needed. It exists in every
 * build, but only an asserts-on build ever increments it.
 */
#include "sim/fsassert.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_ulong checks;

_Noreturn void fs_assert_fail(const char *expr, const char *file, int line,
                              const char *func)
{
    fprintf(stderr, "%s:%d: %s: assertion failed: %s\n", file, line, func,
            expr);
    fflush(stderr);
    abort();
}

void fs_assert_note(void)
{
    atomic_fetch_add_explicit(&checks, 1ul, memory_order_relaxed);
}

int fs_assert_enabled(void)
{
    return FS_ASSERT_ON;
}

unsigned long fs_assert_checks(void)
{
    return atomic_load_explicit(&checks, memory_order_relaxed);
}
