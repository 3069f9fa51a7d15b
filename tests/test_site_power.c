/* tests/test_site_power.c: the site's power over time on the engine:
 * exact integration, a year's energy balance, outages shifting load. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "io/epw.h"
#include "models/site_power.h"
#include "power_testutil.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define KWH 3.6e6

typedef struct demand_ctx {
    dispatch_job job[4];
    size_t n;
    double base[4];
} demand_ctx;

static int fixed_demand(void *ctx, const site_power *sp, double t_s,
                        const dispatch_job **jobs, size_t *n,
                        const double **base)
{
    (void)sp;
    (void)t_s;
    demand_ctx *d = ctx;
    *jobs = d->job;
    *n = d->n;
    *base = d->base;
    return SIM_OK;
}

static site_power_module module(double it_cap, cooling_type ct, double pue)
{
    site_power_module m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "m");
    load_cfg_default(&m.load, it_cap);
    m.system = (load_system){8, 1100, 14500};
    m.n_systems = 30;
    cooling_cfg_default(&m.cooling, ct);
    if (ct == COOLING_CONSTANT)
        m.cooling.pue_base = pue;
    return m;
}

static void test_site_power_constant_load_integrates_exactly(void **state)
{
    (void)state;
    site_power_cfg c;
    site_power_cfg_default(&c);
    supply_cfg g;
    supply_cfg_default(&g, SRC_GRID, 10e6);
    site_power_module m = module(500e3, COOLING_CONSTANT, 1.0);
    c.source = &g;
    c.n_source = 1;
    c.module = &m;
    c.n_module = 1;
    sim_err e;
    site_power *sp = site_power_new(&c, 1, 0, &e);
    assert_non_null(sp);
    demand_ctx d = {{{0, 300e3, 123.456e3, 50e3, 0.9, 0}}, 1, {0}};
    sim s;
    sim_init(&s);
    assert_int_equal(site_power_run(sp, &s, 7 * 86400.0, fixed_demand, &d, &e),
                     SIM_OK);
    const site_power_totals *t = site_power_get_totals(sp);
    double p = 300e3 + 123.456e3;
    assert_int_equal(t->steps, 7 * 96);
    assert_close(t->it_j, p * 7 * 86400.0, 1e-12);
    assert_close(t->gen_j[SRC_GRID], p * 7 * 86400.0, 1e-12);
    assert_close(t->carbon_g, p * 7 * 86400.0 * 481 / KWH, 1e-12);
    assert_true(t->time_short_s == 0);
    sim_fini(&s);
    site_power_free(sp);
}

/* Partial load at site level: the same module at half its design IT pays
 * fixed_frac more PUE than at design load (cooling.h), and its water is
 * the WUE times the IT served. Constant cooling with a fixed part, so the
 * expectation is exact whatever the weather. */
static void test_site_power_partial_load_raises_pue(void **state)
{
    (void)state;
    site_power_cfg c;
    supply_cfg g;
    double pue[2];
    sim_err e;
    for (int k = 0; k < 2; k++) {
        site_power_cfg_default(&c);
        supply_cfg_default(&g, SRC_GRID, 10e6);
        site_power_module m = module(500e3, COOLING_CONSTANT, 1.15);
        m.cooling.fixed_frac = 0.04;
        m.cooling.wue_dry_l_kwh = 0.5;
        c.source = &g;
        c.n_source = 1;
        c.module = &m;
        c.n_module = 1;
        site_power *sp = site_power_new(&c, 1, 0, &e);
        assert_non_null(sp);
        load_demand nom;
        site_power_module_nominal(sp, 0, &nom);
        double ovh = load_module_overhead_w(&m.load, &m.system, m.n_systems);
        double design = nom.gpu_w + nom.other_w + ovh;
        /* k = 0: every system training; k = 1: half of them, the rest
         * switched off (base = overhead only), so IT = design / 2. */
        double share = k == 0 ? 1.0
                              : 0.5 * (design) / (nom.gpu_w + nom.other_w) -
                                    ovh / (nom.gpu_w + nom.other_w);
        dispatch_job j = {0,
                          nom.gpu_w * share,
                          nom.other_w * share,
                          nom.idle_w * share,
                          nom.gpu_frac_tdp,
                          0};
        const dispatch_out *o;
        double base = ovh;
        assert_int_equal(site_power_step(sp, 0, &j, 1, &base, &o, &e), SIM_OK);
        const site_power_totals *t = site_power_get_totals(sp);
        pue[k] = t->facility_j / t->it_j;
        assert_close(t->it_j / 900.0, k == 0 ? design : design / 2, 1e-9);
        assert_close(t->water_m3, 0.5 * t->it_j / 3.6e6 * 1e-3, 1e-12);
        site_power_free(sp);
    }
    assert_close(pue[0], 1.15, 1e-12);
    assert_close(pue[1], 1.15 + 0.04, 1e-12);
}

static site_power *year_site(const climate_year *wx, uint64_t seed, int record)
{
    site_power_cfg c;
    site_power_cfg_default(&c);
    c.weather = wx;
    c.record = record;
    static solar_cfg pv;
    solar_cfg_default(&pv, 12e6);
    static battery_cfg b;
    battery_cfg_default(&b, 805, 78.0 * KWH); /* ~63 MWh new */
    static supply_cfg src[2];
    supply_cfg_default(&src[0], SRC_GEOTHERMAL, 1e6);
    src[0].mtbf_s = 20 * 86400.0;
    supply_cfg_default(&src[1], SRC_GRID, 1.5e6);
    static site_power_module m[2];
    m[0] = module(500e3, COOLING_AIR_ADIABATIC, 0);
    m[1] = module(3.5e6, COOLING_LIQUID_DRY, 0);
    m[1].system = (load_system){72, 1400, 130000};
    m[1].n_systems = 24;
    c.solar = &pv;
    c.n_solar = 1;
    c.battery = &b;
    c.n_battery = 1;
    c.source = src;
    c.n_source = 2;
    c.module = m;
    c.n_module = 2;
    sim_err e;
    site_power *sp = site_power_new(&c, seed, 0, &e);
    assert_non_null(sp);
    return sp;
}

static void nominal(site_power *sp, demand_ctx *d)
{
    d->n = 2;
    for (size_t i = 0; i < 2; i++) {
        load_demand ld;
        site_power_module_nominal(sp, i, &ld);
        d->job[i] = (dispatch_job){i,         ld.gpu_w,        ld.other_w,
                                   ld.idle_w, ld.gpu_frac_tdp, (int)i};
        d->base[i] = site_power_module_base_it_w(sp, i, 0, 1e9);
    }
}

static void test_site_power_energy_balance_over_a_year(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(epw_read(LV, y, &e), SIM_OK);
    site_power *sp = year_site(y, 3, 1);
    demand_ctx d;
    nominal(sp, &d);
    sim s;
    sim_init(&s);
    assert_int_equal(
        site_power_run(sp, &s, 365 * 86400.0, fixed_demand, &d, &e), SIM_OK);
    const site_power_totals *t = site_power_get_totals(sp);
    assert_int_equal(t->steps, 35040);
    assert_true(t->balance_max_rel <= 1e-9);
    /* Bus balance over the year. */
    double supply_j = t->gen_j[SRC_SOLAR] + t->gen_j[SRC_GEOTHERMAL] +
                      t->gen_j[SRC_HYDRO] + t->gen_j[SRC_GRID] + t->discharge_j;
    double sinks = t->facility_j + t->charge_j + t->curtailed_j;
    assert_close(supply_j, sinks, 1e-9);
    /* Every step's record closes too, and respects the grid limit. */
    size_t n;
    const site_power_record *r = site_power_records(sp, &n);
    assert_int_equal(n, 35040);
    for (size_t i = 0; i < n; i++) {
        double a = r[i].gen_w[SRC_SOLAR] + r[i].gen_w[SRC_GEOTHERMAL] +
                   r[i].gen_w[SRC_GRID] + r[i].discharge_w;
        double b = r[i].facility_w + r[i].charge_w + r[i].curtailed_w;
        assert_true(fabs(a - b) <= 1e-9 * fmax(a, 1.0));
        assert_true(r[i].gen_w[SRC_GRID] <= 1.5e6 * (1 + 1e-12));
        assert_true(r[i].soc >= 0.1 - 1e-6 && r[i].soc <= 1 + 1e-9);
        assert_true(r[i].facility_w <= r[i].demand_w * (1 + 1e-12));
    }
    /* A short site: some hours are short, the battery cycles and wears. */
    assert_true(t->time_short_s > 0);
    assert_true(t->battery_efc > 10);
    assert_true(t->battery_soh < t->battery_soh0);
    assert_true(t->pue_max > t->pue_min);
    assert_true(t->outages > 0);
    assert_within(t->gen_j[SRC_SOLAR] / (t->solar_p_ac0_w * 365 * 86400.0),
                  0.28, 0.32);

    /* Same seed, same run; another seed, other outages. */
    site_power *sp2 = year_site(y, 3, 0);
    sim s2;
    sim_init(&s2);
    assert_int_equal(
        site_power_run(sp2, &s2, 365 * 86400.0, fixed_demand, &d, &e), SIM_OK);
    assert_true(site_power_get_totals(sp2)->gen_j[SRC_GRID] ==
                t->gen_j[SRC_GRID]);
    assert_true(site_power_get_totals(sp2)->battery_soh == t->battery_soh);
    sim_fini(&s2);
    site_power_free(sp2);
    sim_fini(&s);
    site_power_free(sp);
    climate_year_free(y);
}

static void
test_site_power_forced_outage_shifts_load_to_next_source(void **state)
{
    (void)state;
    /* Geothermal 1 MW carries a 0.8 MW load; when it trips, the grid does. */
    site_power_cfg c;
    site_power_cfg_default(&c);
    c.record = 1;
    supply_cfg src[2];
    supply_cfg_default(&src[0], SRC_GEOTHERMAL, 1e6);
    src[0].mtbf_s = 3 * 86400.0;
    src[0].mttr_s = 12 * 3600.0;
    supply_cfg_default(&src[1], SRC_GRID, 2e6);
    site_power_module m = module(3.5e6, COOLING_CONSTANT, 1.0);
    c.source = src;
    c.n_source = 2;
    c.module = &m;
    c.n_module = 1;
    sim_err e;
    site_power *sp = site_power_new(&c, 9, 0, &e);
    assert_non_null(sp);
    demand_ctx d = {{{0, 0.6e6, 0.2e6, 0.1e6, 0.9, 0}}, 1, {0}};
    sim s;
    sim_init(&s);
    assert_int_equal(site_power_run(sp, &s, 60 * 86400.0, fixed_demand, &d, &e),
                     SIM_OK);
    size_t n, down = 0;
    const site_power_record *r = site_power_records(sp, &n);
    for (size_t i = 0; i < n; i++) {
        if (r[i].gen_w[SRC_GEOTHERMAL] == 0) {
            down++;
            assert_close(r[i].gen_w[SRC_GRID], 0.8e6, 1e-12);
        } else {
            assert_true(r[i].gen_w[SRC_GRID] == 0);
            assert_close(r[i].curtailed_w, 0.2e6, 1e-9);
        }
        assert_true(r[i].shortfall_w == 0);
    }
    const site_power_totals *t = site_power_get_totals(sp);
    assert_true(t->outages >= 5);
    assert_true(down > 0 && down < n);
    /* Availability near mtbf / (mtbf + mttr) = 0.857. */
    assert_within(1.0 - (double)down / (double)n, 0.75, 0.95);
    sim_fini(&s);
    site_power_free(sp);
}

static void test_site_power_synthetic_weather_runs_past_a_year(void **state)
{
    (void)state;
    site_power_cfg c;
    site_power_cfg_default(&c);
    solar_cfg pv;
    solar_cfg_default(&pv, 1e6);
    supply_cfg g;
    supply_cfg_default(&g, SRC_GRID, 5e6);
    site_power_module m = module(500e3, COOLING_AIR_ECONOMIZER, 0);
    c.solar = &pv;
    c.n_solar = 1;
    c.source = &g;
    c.n_source = 1;
    c.module = &m;
    c.n_module = 1;
    c.step_s = 3600;
    sim_err e;
    site_power *sp = site_power_new(&c, 4, 0, &e);
    assert_non_null(sp);
    demand_ctx d = {{{0, 300e3, 100e3, 50e3, 0.9, 0}}, 1, {0}};
    sim s;
    sim_init(&s);
    assert_int_equal(
        site_power_run(sp, &s, 2 * 365 * 86400.0, fixed_demand, &d, &e),
        SIM_OK);
    const site_power_totals *t = site_power_get_totals(sp);
    assert_int_equal(t->steps, 2 * 8760);
    double cf = t->gen_j[SRC_SOLAR] / (t->solar_p_ac0_w * 2 * 365 * 86400.0);
    assert_within(cf, 0.28, 0.36);
    assert_true(t->pue_max > 1.09 && t->pue_min >= 1.09 - 1e-12);
    sim_fini(&s);
    site_power_free(sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_site_power_constant_load_integrates_exactly),
        cmocka_unit_test(test_site_power_partial_load_raises_pue),
        cmocka_unit_test(test_site_power_energy_balance_over_a_year),
        cmocka_unit_test(
            test_site_power_forced_outage_shifts_load_to_next_source),
        cmocka_unit_test(test_site_power_synthetic_weather_runs_past_a_year),
    };
    return cmocka_run_group_tests_name("site_power", tests, NULL, NULL);
}
