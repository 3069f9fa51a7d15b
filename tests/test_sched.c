/* tests/test_sched.c: placement and backfill (models/sched.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/sched.h"
#include "tests/testutil.h"

/* "best fit: the module with the fewest free systems that still fits" */
static void test_sched_single_module_best_fit(void **state)
{
    sched_module m[4] = {
        {1, 0, 0, 10}, {1, 0, 0, 4}, {1, 0, 0, 6}, {1, 1, 0, 5}};
    int take[4];
    (void)state;
    assert_int_equal(sched_place(m, 4, 0, 5, 1, take), 1);
    assert_int_equal(take[2], 5);
    assert_int_equal(take[0] + take[1] + take[3], 0);
    /* Offline modules and other GPU types are never used. */
    m[2].online = 0;
    assert_int_equal(sched_place(m, 4, 0, 5, 1, take), 1);
    assert_int_equal(take[0], 5);
}

/* Spanning takes the largest free counts first, inside one fabric group;
 * allow_span = 0 refuses. */
static void test_sched_span_largest_first_within_group(void **state)
{
    sched_module m[5] = {
        {1, 0, 0, 3}, {1, 0, 0, 5}, {1, 0, 1, 6}, {1, 0, 0, 4}, {0, 0, 0, 9}};
    int take[5];
    (void)state;
    assert_int_equal(sched_place(m, 5, 0, 8, 0, take), 0);
    /* Group 0 has 12 free, group 1 has 6: group 0, modules 1 (5) then 3 (3 of
     * 4). */
    assert_int_equal(sched_place(m, 5, 0, 8, 1, take), 2);
    assert_int_equal(take[1], 5);
    assert_int_equal(take[3], 3);
    assert_int_equal(take[0] + take[2] + take[4], 0);
    /* More than any group holds: not placed, take stays zero. */
    assert_int_equal(sched_place(m, 5, 0, 13, 1, take), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(take[i], 0);
    /* Isolated modules (group < 0) are never spanned. */
    m[1].group = -1;
    m[3].group = -1;
    assert_int_equal(sched_place(m, 5, 0, 8, 1, take), 0);
}

/* The shadow time is when enough systems free up; extra counts the rest. */
static void test_sched_shadow_and_backfill_rule(void **state)
{
    sched_running r[4] = {
        {500.0, 0, 4}, {100.0, 0, 2}, {300.0, 0, 3}, {50.0, 1, 10}};
    double shadow;
    int extra;
    (void)state;
    /* 1 free now, head needs 5: +2 at 100 (3), +3 at 300 (6 >= 5). */
    assert_int_equal(sched_shadow(r, 4, 0, 1, 5, &shadow, &extra), 1);
    assert_close(shadow, 300.0, 0);
    assert_int_equal(extra, 1);
    /* A job ending before the shadow time may start; a longer one only if
     * it fits in the extra systems. */
    assert_true(sched_may_backfill(250.0, 1, shadow, extra));
    assert_true(sched_may_backfill(900.0, 1, shadow, extra));
    assert_false(sched_may_backfill(900.0, 2, shadow, extra));
    /* Never enough: no reservation. */
    assert_int_equal(sched_shadow(r, 4, 0, 1, 50, &shadow, &extra), 0);
    assert_true(isinf(shadow));
}

int main(void)
{
    const struct CMUnitTest sched_tests[] = {
        cmocka_unit_test(test_sched_single_module_best_fit),
        cmocka_unit_test(test_sched_span_largest_first_within_group),
        cmocka_unit_test(test_sched_shadow_and_backfill_rule),
    };
    return cmocka_run_group_tests_name("sched", sched_tests, NULL, NULL);
}
