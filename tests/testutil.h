/* tests/testutil.h: helpers every cmocka test shares. Include after the
 * four system headers cmocka needs. */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Double comparison with a relative tolerance (cmocka 1.1.5's
 * assert_float_equal casts to float, deps-notes.md 6). */
#define assert_close(a, b, rel)                                                \
    do {                                                                       \
        double a_ = (a), b_ = (b), r_ = (rel);                                 \
        if (!(fabs(a_ - b_) <= r_ * fmax(fabs(a_), fabs(b_))))                 \
            fail_msg("%.17g != %.17g (rel tol %g)", a_, b_, r_);               \
    } while (0)

/* Absolute tolerance version. */
#define assert_near(a, b, abs_tol)                                             \
    do {                                                                       \
        double a_ = (a), b_ = (b), t_ = (abs_tol);                             \
        if (!(fabs(a_ - b_) <= t_))                                            \
            fail_msg("%.17g != %.17g (abs tol %g)", a_, b_, t_);               \
    } while (0)

/* Reads a whole file into a malloc'd, NUL-terminated buffer; *n receives
 * its size. NULL if unreadable. */
static inline unsigned char *test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long len;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)(len > 0 ? len : 0) + 1);
    *n = fread(b, 1, (size_t)(len > 0 ? len : 0), f);
    b[*n] = '\0';
    fclose(f);
    return b;
}

#endif
