/* tests/test_evq.c: the calendar queue's promises (sim/evq.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/evq.h"
#include "sim/evq_int.h"
#include "tests/testutil.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

static double unif(uint64_t *s)
{
    return (double)lcg(s) / 9007199254740992.0;
}

static evq_item item(double t, uint64_t key)
{
    evq_item it = {t, key, NULL, NULL, key};
    return it;
}

/* "Entries leave in ascending (t_s, key) order": a hold model with random
 * times, checked against the order rule on every pop, across resizes. */
static void test_evq_pops_in_time_then_key_order(void **state)
{
    evq *q = evq_new();
    uint64_t s = 12345, key = 0;
    evq_item it, prev = item(0, 0);
    (void)state;
    for (int i = 0; i < 5000; i++) {
        evq_item a = item(unif(&s) * 37.5, key++);
        evq_push(q, &a);
    }
    for (int i = 0; i < 155000; i++) {
        assert_true(evq_pop(q, &it));
        assert_true(it.t_s > prev.t_s ||
                    (it.t_s == prev.t_s && it.key > prev.key) || i == 0);
        prev = it;
        if (i < 150000) {
            /* Push later times, sometimes equal to now, sometimes far. */
            double dt = (i % 7 == 0)
                            ? 0.0
                            : (i % 97 == 0 ? 1e4 : -log(1.0 - unif(&s)) * 2.3);
            evq_item a = item(it.t_s + dt, key++);
            evq_push(q, &a);
        }
        if (i % 20011 == 0)
            assert_true(evq_int_valid(q));
    }
    assert_false(evq_pop(q, &it));
    assert_true(evq_int_valid(q));
    evq_free(q);
}

/* "entries with equal t_s and equal priority leave FIFO": many entries at
 * one time leave in key (insertion) order. */
static void test_evq_ties_are_fifo(void **state)
{
    evq *q = evq_new();
    evq_item it;
    (void)state;
    for (uint64_t k = 0; k < 1000; k++) {
        evq_item a = item(4.25, k);
        evq_push(q, &a);
    }
    for (uint64_t k = 0; k < 1000; k++) {
        assert_true(evq_pop(q, &it));
        assert_int_equal(it.key, k);
    }
    assert_false(evq_pop(q, &it));
    evq_free(q);
}

/* "cancel is O(1) through the handle": cancelled entries never leave, and
 * a handle reports gone after pop or cancel, even when the slot is reused. */
static void test_evq_cancel_handle(void **state)
{
    evq *q = evq_new();
    evq_handle h[100];
    evq_item it;
    int seen = 0;
    (void)state;
    for (int i = 0; i < 100; i++) {
        evq_item a = item(1.0 + i * 0.5, (uint64_t)i);
        h[i] = evq_push(q, &a);
        assert_true(h[i] != 0);
    }
    for (int i = 0; i < 100; i += 2)
        assert_int_equal(evq_cancel(q, h[i]), 1);
    assert_int_equal(evq_cancel(q, h[0]), 0); /* twice: gone */
    assert_int_equal(evq_size(q), 50);
    {
        evq_item a = item(1.0, 999); /* reuses a slot */
        evq_handle hn = evq_push(q, &a);
        assert_false(evq_contains(q, h[0]));
        assert_true(evq_contains(q, hn));
        assert_int_equal(evq_cancel(q, hn), 1);
    }
    while (evq_pop(q, &it)) {
        assert_true(it.key % 2 == 1);
        assert_false(evq_contains(q, h[it.key]));
        seen++;
    }
    assert_int_equal(seen, 50);
    assert_int_equal(evq_cancel(q, 0), 0);
    assert_int_equal(evq_cancel(q, ((uint64_t)7 << 32) | 123456), 0);
    assert_true(evq_int_valid(q));
    evq_free(q);
}

/* evq_peek shows the entry evq_pop returns next, and a push after a peek of
 * an earlier time is still found first (the cur_vb pull-back). */
static void test_evq_peek_then_earlier_push(void **state)
{
    evq *q = evq_new();
    evq_item it, pk;
    (void)state;
    for (int i = 0; i < 40; i++) {
        evq_item a = item(100.0 + i * 10.0, (uint64_t)i);
        evq_push(q, &a);
    }
    assert_true(evq_pop(q, &it));
    assert_close(it.t_s, 100.0, 0);
    assert_true(evq_peek(q, &pk));
    assert_close(pk.t_s, 110.0, 0);
    {
        evq_item a = item(100.5, 1000);
        evq_push(q, &a);
    }
    assert_true(evq_pop(q, &it));
    assert_close(it.t_s, 100.5, 0);
    assert_true(evq_int_valid(q));
    evq_free(q);
}

/* Resizing keeps every entry: the bucket count follows the size up and
 * back down, and all entries come out sorted. */
static void test_evq_resize_keeps_entries(void **state)
{
    evq *q = evq_new();
    uint64_t s = 99;
    evq_item it;
    double last = -1;
    size_t n = 0;
    (void)state;
    for (uint64_t k = 0; k < 70000; k++) {
        evq_item a = item(unif(&s) * 1e6, k);
        evq_push(q, &a);
    }
    assert_true(evq_int_nbuckets(q) >= 70000 / 2);
    assert_true(evq_int_valid(q));
    while (evq_pop(q, &it)) {
        assert_true(it.t_s >= last);
        last = it.t_s;
        n++;
    }
    assert_int_equal(n, 70000);
    assert_true(evq_int_nbuckets(q) <= 32);
    evq_free(q);
}

/* Far-apart times (a sparse queue) fall back to the direct search. */
static void test_evq_sparse_times(void **state)
{
    evq *q = evq_new();
    evq_item it;
    double ts[] = {3.0e7, 5.0, 9.9e8, 1.0e3, 0.0};
    double want[] = {0.0, 5.0, 1.0e3, 3.0e7, 9.9e8};
    (void)state;
    for (int i = 0; i < 5; i++) {
        evq_item a = item(ts[i], (uint64_t)i);
        evq_push(q, &a);
    }
    for (int i = 0; i < 5; i++) {
        assert_true(evq_pop(q, &it));
        assert_close(it.t_s, want[i], 0);
    }
    evq_free(q);
}

static void test_evq_free_null_is_noop(void **state)
{
    (void)state;
    evq_free(NULL);
}

int main(void)
{
    const struct CMUnitTest evq_tests[] = {
        cmocka_unit_test(test_evq_pops_in_time_then_key_order),
        cmocka_unit_test(test_evq_ties_are_fifo),
        cmocka_unit_test(test_evq_cancel_handle),
        cmocka_unit_test(test_evq_peek_then_earlier_push),
        cmocka_unit_test(test_evq_resize_keeps_entries),
        cmocka_unit_test(test_evq_sparse_times),
        cmocka_unit_test(test_evq_free_null_is_noop),
    };
    return cmocka_run_group_tests_name("evq", evq_tests, NULL, NULL);
}
