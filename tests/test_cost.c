/* tests/test_cost.c: the cost model (models/cost.h). The capital recovery
 * factor against a hand computation; capital scales linearly with each
 * capacity; a run's breakdown sums to its annualised total; the jobs' cost
 * per run sums to the site's fixed cost of the GPU-time they held plus their
 * energy; the bundled Nevada figures follow from the catalog prices. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/cost.h"
#include "models/scenario.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

static test_world W;

static int setup(void **state)
{
    (void)state;
    world_open(&W);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    world_close(&W);
    return 0;
}

#define SMALL "tests/data/sweep/small.cfg"
#define NEVADA "scenarios/nevada-solar.cfg"
#define KEYS_A "tests/data/keys/base-a.cfg"

static int close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-9;
}

/* Hand computation: 1.07^10 = 1.967151357... so CRF = 0.07 x 1.967151357 /
 * 0.967151357 = 0.1423775027; 1.05^20 = 2.653297705, CRF = 0.0802425872;
 * r = 0 is straight-line 1/n. */
static void test_cost_crf_matches_a_hand_computation(void **state)
{
    (void)state;
    assert_true(close_to(cost_crf(0.07, 10 * COST_YEAR_S), 0.1423775027, 1e-9));
    assert_true(close_to(cost_crf(0.05, 20 * COST_YEAR_S), 0.0802425872, 1e-9));
    assert_true(close_to(cost_crf(0.0, 8 * COST_YEAR_S), 0.125, 1e-15));
    assert_true(close_to(cost_annuity(0.07, 10 * COST_YEAR_S),
                         1.0 / 0.1423775027, 1e-9));
    assert_true(isnan(cost_crf(0.07, 0.0)));
}

/* A run input of nothing measured, so only capital and fixed O&M count. */
static cost_site site_cost(const scenario *s)
{
    cost_run_in in;
    cost_site c;
    memset(&in, 0, sizeof in);
    in.horizon_s = s->sim.horizon_s;
    cost_site_compute(s, &in, &c);
    return c;
}

/* Each energy capacity alone is doubled with --set: its capital item
 * doubles and no other capital item moves; a module group's count adds its
 * systems and shells at the catalog prices. */
static void test_cost_capital_scales_linearly_with_capacities(void **state)
{
    static const struct {
        const char *path, *one, *two;
        cost_item item;
    } cases[] = {
        {NEVADA, "energy.solar.capacity_mw=13.7",
         "energy.solar.capacity_mw=27.4", COST_SOLAR},
        {NEVADA, "energy.battery.capacity_mwh=21.5",
         "energy.battery.capacity_mwh=43", COST_BATTERY},
        /* base A has wind and a grid interconnection priced at $100/kW */
        {KEYS_A, "energy.wind.capacity_mw=1.7", "energy.wind.capacity_mw=3.4",
         COST_WIND},
        {KEYS_A, "energy.grid.import_limit_mw=1.3",
         "energy.grid.import_limit_mw=2.6", COST_GRID},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[] = {cases[i].one}, *b[] = {cases[i].two};
        scenario *s1 = load_scn(&W, cases[i].path, a, 1);
        scenario *s2 = load_scn(&W, cases[i].path, b, 1);
        cost_site c1 = site_cost(s1), c2 = site_cost(s2);
        cost_item k = cases[i].item;
        assert_true(c1.capex_item_usd[k] > 0);
        assert_true(
            close_to(c2.capex_item_usd[k], 2 * c1.capex_item_usd[k], 1e-12));
        assert_true(
            close_to(c2.annual_item_usd[k], 2 * c1.annual_item_usd[k], 1e-12));
        for (int o = 0; o < COST_N; o++)
            if (o != (int)k)
                assert_true(close_to(c1.capex_item_usd[o], c2.capex_item_usd[o],
                                     1e-15));
        scenario_free(s1);
        scenario_free(s2);
    }
    /* Modules by count: the first group (6 of the 8 modules) 3 -> 6 adds 3
     * modules' systems (34 HGX B300 each) and shells (0.5 MW each). */
    {
        const char *a[] = {"modules.[0].count=3"},
                   *b[] = {"modules.[0].count=6"};
        scenario *s1 = load_scn(&W, NEVADA, a, 1);
        scenario *s2 = load_scn(&W, NEVADA, b, 1);
        cost_site c1 = site_cost(s1), c2 = site_cost(s2);
        assert_true(close_to(c2.capex_item_usd[COST_GPUS] -
                                 c1.capex_item_usd[COST_GPUS],
                             3 * 34 * 549e3, 1e-9));
        assert_true(close_to(c2.capex_item_usd[COST_MODULES] -
                                 c1.capex_item_usd[COST_MODULES],
                             3 * 0.5 * 11.7e6, 1e-9));
        scenario_free(s1);
        scenario_free(s2);
    }
}

/* The Nevada capital from the catalog prices by hand: 8 Spark Air modules
 * of 34 HGX B300 at USD 549k, 0.5 MW each at USD 11.7 M/MW, 30 MWdc of
 * single-axis PV at USD 1.10/W, 63 MWh of second-life packs at 0.6 x USD
 * 326/kWh. */
static void test_cost_nevada_capital_follows_the_catalog(void **state)
{
    (void)state;
    scenario *s = load_scn(&W, NEVADA, NULL, 0);
    cost_site c = site_cost(s);
    assert_true(close_to(c.capex_item_usd[COST_GPUS], 8 * 34 * 549e3, 1e-12));
    assert_true(
        close_to(c.capex_item_usd[COST_MODULES], 8 * 0.5 * 11.7e6, 1e-12));
    assert_true(close_to(c.capex_item_usd[COST_SOLAR], 30e6 * 1.10, 1e-12));
    assert_true(
        close_to(c.capex_item_usd[COST_BATTERY], 63e3 * 326 * 0.6, 1e-12));
    assert_true(c.capex_item_usd[COST_WIND] == 0);
    assert_true(close_to(c.annual_item_usd[COST_SOLAR],
                         30e6 * 1.10 * cost_crf(0.07, 30 * COST_YEAR_S),
                         1e-12));
    scenario_free(s);
}

/* A run on a grid-connected site (1 MWdc of PV: it imports) with a demand
 * charge, variable O&M and an interconnection cost:
 * the breakdown fields sum to annualized_cost_usd, and the LCOE is the
 * supply's items over the energy served per year. */
static void test_cost_breakdown_sums_to_its_total(void **state)
{
    const char *sets[] = {"costs.var_om_usd_per_mwh=3.5",
                          "costs.grid_usd_per_kw=210",
                          "energy.solar.capacity_mw=1.0"};
    (void)state;
    scenario *s = load_scn(&W, SMALL, sets, 3);
    res_rep *r = run_reps(&W, s, 2, 0, 0);
    for (size_t k = 0; k < 2; k++) {
        const res_site *st = &r[k].site;
        double sum = 0;
        for (int i = 0; i < COST_N; i++) {
            assert_true(st->annualized_item_usd[i] >= 0);
            sum += st->annualized_item_usd[i];
        }
        assert_true(st->annualized_item_usd[COST_GRID] > 0);
        assert_true(st->annualized_item_usd[COST_ENERGY] > 0);
        assert_true(st->grid_peak_w > 0);
        assert_true(close_to(sum, st->annualized_cost_usd, 1e-12));
        assert_true(st->capex_usd > 0);
        assert_true(st->lcoe_usd_per_j > 0);
        assert_true(close_to(st->npv_usd,
                             -st->annualized_cost_usd *
                                 cost_annuity(0.07, 20 * COST_YEAR_S),
                             1e-12));
    }
    free_reps(r, 2);
    scenario_free(s);
}

/* Sum over jobs of cost_per_run_usd = the site's fixed cost per GPU-second
 * (from its own result fields: annualised cost less the purchased energy,
 * whose demand-charge part is fixed, over GPUs x a year) x the GPU-time the
 * jobs held + their energy priced by hand from their energy by source. */
static void test_cost_per_run_sums_to_the_systems_held_plus_energy(void **state)
{
    const char *sets[] = {"costs.demand_usd_per_kw_month=17.5",
                          "energy.solar.capacity_mw=1.0"};
    (void)state;
    scenario *s = load_scn(&W, SMALL, sets, 2);
    res_rep *r = run_reps(&W, s, 2, 0, 0);
    double gpus = (double)scenario_gpus(s, NULL);
    for (size_t k = 0; k < 2; k++) {
        const res_site *st = &r[k].site;
        double demand = st->grid_peak_w * 17.5e-3 * 12.0;
        /* var_om is 0 by default, so the energy item is purchased energy
         * plus the demand charge. */
        double fixed = st->annualized_cost_usd -
                       (st->annualized_item_usd[COST_ENERGY] - demand);
        double rate = fixed / (gpus * COST_YEAR_S), sum = 0, want = 0;
        for (size_t j = 0; j < r[k].n_jobs; j++) {
            const res_job *jb = &r[k].jobs[j];
            double energy = jb->energy_by_source_j[SRC_GRID] * 80.0 / 3.6e9;
            sum += jb->cost_per_run_usd;
            want += jb->gpu_s * rate + energy;
            assert_true(jb->cost_per_run_usd > energy);
            assert_true(jb->paused_fraction >= 0 && jb->paused_fraction <= 1);
            assert_true(jb->throttled_fraction >= 0 &&
                        jb->throttled_fraction + jb->paused_fraction <= 1);
        }
        assert_true(demand > 0);
        assert_true(close_to(sum, want, 1e-9));
    }
    free_reps(r, 2);
    scenario_free(s);
}

/* duration_h sizes the battery's power from its capacity: capacity 0 is no
 * battery, and a capacity sweep never trips the C-rate check. */
static void test_cost_battery_duration_sets_power(void **state)
{
    (void)state;
    for (double mwh = 0; mwh <= 200; mwh += 20) {
        char set[64];
        const char *sets[] = {set};
        snprintf(set, sizeof set, "energy.battery.capacity_mwh=%g", mwh);
        scenario *s = load_scn(&W, NEVADA, sets, 1);
        assert_true(close_to(s->energy.capacity_w[SRC_BATTERY],
                             mwh * 1e6 / 5.25, 1e-12));
        assert_int_equal(s->energy.present[SRC_BATTERY], mwh > 0);
        scenario_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_crf_matches_a_hand_computation),
        cmocka_unit_test(test_cost_capital_scales_linearly_with_capacities),
        cmocka_unit_test(test_cost_nevada_capital_follows_the_catalog),
        cmocka_unit_test(test_cost_breakdown_sums_to_its_total),
        cmocka_unit_test(
            test_cost_per_run_sums_to_the_systems_held_plus_energy),
        cmocka_unit_test(test_cost_battery_duration_sets_power),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
