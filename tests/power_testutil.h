/* tests/power_testutil.h: helpers for the power-model tests: a double-precision
 * relative-tolerance assertion (cmocka 1.1.5's assert_float_equal casts to
 * float; deps-notes.md 6). */
#ifndef TESTS_POWER_TESTUTIL_H
#define TESTS_POWER_TESTUTIL_H

#include <math.h>

#ifndef assert_close
#define assert_close(a, b, rel)                                                \
    do {                                                                       \
        double a_ = (a), b_ = (b), r_ = (rel);                                 \
        if (!(fabs(a_ - b_) <= r_ * fmax(fabs(a_), fabs(b_))))                 \
            fail_msg("%.17g != %.17g (rel tol %g)", a_, b_, r_);               \
    } while (0)
#endif

#define assert_within(a, lo, hi)                                               \
    do {                                                                       \
        double a_ = (a), l_ = (lo), h_ = (hi);                                 \
        if (!(a_ >= l_ && a_ <= h_))                                           \
            fail_msg("%.17g not in [%g, %g]", a_, l_, h_);                     \
    } while (0)

#endif
