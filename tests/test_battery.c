/* tests/test_battery.c: state of charge, limits, efficiency, second-life
 * health draws and wear. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "models/battery.h"
#include "power_testutil.h"

#define KWH 3.6e6

static battery *mk(battery_wear w, size_t n, int second_life)
{
    battery_cfg c;
    battery_cfg_default(&c, n, 62.0 * KWH);
    c.wear = w;
    c.second_life = second_life;
    sim_err e;
    battery *b = battery_new(&c, 11, 0, 1000, &e);
    assert_non_null(b);
    return b;
}

static void test_battery_full_cycle_loses_exactly_its_efficiency(void **state)
{
    (void)state;
    battery *b = mk(BATTERY_WEAR_NONE, 805, 1);
    double dt = 900, in = 0, out = 0, p;
    /* Down to the floor first, then count a full cycle floor -> top -> floor.
     */
    while ((p = battery_discharge_limit_w(b, dt)) > 0)
        battery_step(b, 0, p, dt, NULL);
    double start = battery_stored_j(b);
    assert_close(start, 0.10 * battery_capacity_j(b), 1e-12);
    battery_flow f;
    while ((p = battery_charge_limit_w(b, dt)) > 0) {
        battery_step(b, p, 0, dt, &f);
        in += f.in_j;
    }
    assert_close(battery_soc(b), 1.0, 1e-12);
    while ((p = battery_discharge_limit_w(b, dt)) > 0) {
        battery_step(b, 0, p, dt, &f);
        out += f.out_j;
    }
    assert_close(battery_stored_j(b), start, 1e-9);
    assert_close(out / in, 0.88, 1e-12);
    /* 0.5 -> 0.1 first (0.2 EFC), then 0.1 -> 1 -> 0.1 (0.9 EFC). */
    assert_close(battery_efc(b), 1.1, 1e-9);
    battery_free(b);
}

static void test_battery_limits_hold(void **state)
{
    (void)state;
    battery *b = mk(BATTERY_WEAR_LEAF2L, 100, 1);
    double cap = battery_capacity_j(b);
    /* 0.2C: the power limit is 0.2 x capacity per hour. */
    assert_close(battery_charge_limit_w(b, 60), 0.2 * cap / 3600, 1e-12);
    /* Over-asking is clamped to the limit, never past the ceiling. */
    for (int i = 0; i < 200; i++)
        assert_int_equal(battery_step(b, 1e12, 0, 3600, NULL), SIM_OK);
    assert_true(battery_soc(b) <= 1.0 + 1e-12);
    for (int i = 0; i < 200; i++)
        battery_step(b, 0, 1e12, 3600, NULL);
    assert_true(battery_soc(b) >= 0.10 - 1e-12);
    /* At the floor (capacity fade while idle lifts SOC a hair). */
    assert_close(battery_soc(b), 0.10, 1e-4);
    assert_int_equal(battery_step(b, 1, 1, 60, NULL), SIM_EINVAL);
    assert_int_equal(battery_step(b, -1, 0, 60, NULL), SIM_EINVAL);
    battery_free(b);
}

static void test_battery_second_life_health_per_pack(void **state)
{
    (void)state;
    battery *b = mk(BATTERY_WEAR_NONE, 805, 1);
    double sum = 0;
    for (size_t i = 0; i < 805; i++) {
        double s = battery_pack_soh(b, i);
        assert_within(s, 0.60, 0.85);
        sum += s;
    }
    assert_within(sum / 805, 0.69, 0.71);
    /* A pack's draw does not depend on how many packs the bank has. */
    battery *small = mk(BATTERY_WEAR_NONE, 10, 1);
    for (size_t i = 0; i < 10; i++)
        assert_true(battery_pack_soh(small, i) == battery_pack_soh(b, i));
    assert_close(battery_soh(b), sum / 805, 1e-12);
    battery *fresh = mk(BATTERY_WEAR_NONE, 10, 0);
    assert_close(battery_soh(fresh), 1.0, 1e-15);
    battery_free(b);
    battery_free(small);
    battery_free(fresh);
}

static void test_battery_leaf_wear_matches_blast_lite(void **state)
{
    (void)state;
    /* Calendar: a year idle at SOC 0.5, 25 C -> 6.0% (facts-more.md 4). */
    battery *b = mk(BATTERY_WEAR_LEAF2L, 10, 1);
    for (int d = 0; d < 365 * 24; d++)
        battery_step(b, 0, 0, 3600, NULL);
    assert_within(1 - battery_fade(b), 0.057, 0.063);
    battery_free(b);
    /* Cycling: 365 EFC -> 4.4% cycle loss on top of calendar fade. */
    battery_cfg c;
    battery_cfg_default(&c, 10, 62.0 * KWH);
    c.soc_min = 0.0;
    sim_err e;
    battery *cy = battery_new(&c, 11, 0, 1000, &e);
    double dt = 600, p;
    while (battery_efc(cy) < 365) {
        while ((p = battery_charge_limit_w(cy, dt)) > 1e-6 &&
               battery_efc(cy) < 365)
            battery_step(cy, p, 0, dt, NULL);
        while ((p = battery_discharge_limit_w(cy, dt)) > 1e-6 &&
               battery_efc(cy) < 365)
            battery_step(cy, 0, p, dt, NULL);
    }
    double q_cyc = 7.58e-5 * pow(battery_efc(cy), 1.08);
    assert_within(q_cyc, 0.043, 0.045);
    assert_true(1 - battery_fade(cy) > q_cyc);
    battery_free(cy);
}

static void test_battery_energy_accounted(void **state)
{
    (void)state;
    battery *b = mk(BATTERY_WEAR_LEAF2L, 50, 1);
    double s0 = battery_stored_j(b), in = 0, out = 0, loss = 0, fade = 0;
    for (int i = 0; i < 5000; i++) {
        battery_flow f;
        double p = (i / 40) % 2 ? battery_discharge_limit_w(b, 900) * 0.7
                                : battery_charge_limit_w(b, 900) * 0.9;
        if ((i / 40) % 2)
            battery_step(b, 0, p, 900, &f);
        else
            battery_step(b, p, 0, 900, &f);
        in += f.in_j;
        out += f.out_j;
        loss += f.loss_j;
        fade += f.fade_loss_j;
    }
    assert_close(s0 + in - out - loss - fade, battery_stored_j(b), 1e-9);
    assert_true(battery_soh(b) < battery_soh0(b));
    battery_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_battery_full_cycle_loses_exactly_its_efficiency),
        cmocka_unit_test(test_battery_limits_hold),
        cmocka_unit_test(test_battery_second_life_health_per_pack),
        cmocka_unit_test(test_battery_leaf_wear_matches_blast_lite),
        cmocka_unit_test(test_battery_energy_accounted),
    };
    return cmocka_run_group_tests_name("battery", tests, NULL, NULL);
}
