/* sim/fsassert.h: FS_ASSERT, the debug-only check of an invariant a header
 * states (pool counts, tokens saved <= tokens done, energy attribution
 * sums, event order, legal job-state transitions).
 *
 * Why a macro of our own and not <assert.h>: NDEBUG is a switch many
 * packaged builds set or clear for their own reasons, and assert() prints a
 * message the tests cannot rely on. FS_ASSERT is controlled by FS_NDEBUG
 * alone: the release build (`make`) defines it, `make test` and
 * `make asan` do not (Makefile ASSERTS=1, each in its own build folder so
 * objects of the two kinds are never mixed).
 *
 * On failure it prints "FILE:LINE: FUNCTION: assertion failed: EXPR" to
 * stderr and calls abort(). That is the one exception to "library code never
 * prints and never exits" (sim/err.h): a failed FS_ASSERT is a bug in
 * factorysim, never bad input, so there is no caller that could handle it.
 * Bad input must still be refused with a SIM_E* code; never FS_ASSERT
 * something a scenario file can make false.
 *
 * Compiled out, the expression is not evaluated (sizeof only), so it must
 * have no side effects that the program needs; it still has to compile,
 * which keeps variables used only by checks from warning in release.
 */
#ifndef SIM_FSASSERT_H
#define SIM_FSASSERT_H

/* Prints the failure and aborts. Never returns. */
_Noreturn void fs_assert_fail(const char *expr, const char *file, int line,
                              const char *func);

/* Counts an FS_ASSERT that held (thread-safe). */
void fs_assert_note(void);

/* 1 when the library was compiled with FS_ASSERT on, else 0: lets a test
 * find out what the library it links was built with (the header's mode
 * below is only the including file's). */
int fs_assert_enabled(void);

/* How many FS_ASSERT checks held since the process started (always 0 in a
 * release library). Lets a test show the checks ran, not only that nothing
 * failed. */
unsigned long fs_assert_checks(void);

#ifdef FS_NDEBUG
#define FS_ASSERT_ON 0
#define FS_ASSERT(expr) ((void)sizeof((expr) ? 1 : 0))
#else
#define FS_ASSERT_ON 1
#define FS_ASSERT(expr)                                                        \
    ((expr) ? fs_assert_note()                                                 \
            : fs_assert_fail(#expr, __FILE__, __LINE__, __func__))
#endif

#endif
