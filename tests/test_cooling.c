/* tests/test_cooling.c: PUE curves, the partial-load term and water use
 * (models/cooling.h), checked point by point and as annual means over every
 * built-in climate against the LBNL 2024 bands they are scaled to
 * (data/facts/facts-more.md 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "io/epw.h"
#include "models/climate.h"
#include "models/cooling.h"
#include "sim/rng.h"
#include "testutil.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define RENO "data/weather/USA_NV_Reno-Tahoe.Intl.AP.724880_TMY3.epw"

/* Annual PUE at constant IT load (= the mean of the hourly PUE) and water
 * in L per kWh of IT. */
static void annual(const climate_year *y, cooling_type t, double *pue,
                   double *wue_l_kwh)
{
    cooling_cfg c;
    double p = 0, w = 0;
    cooling_cfg_default(&c, t);
    for (int h = 0; h < CLIMATE_HOURS; h++) {
        p += cooling_pue(&c, y->h[h].t_db_c, y->h[h].t_wb_c);
        w += cooling_water_l_per_j(&c, y->h[h].t_db_c) * 3.6e6;
    }
    *pue = p / CLIMATE_HOURS;
    if (wue_l_kwh)
        *wue_l_kwh = w / CLIMATE_HOURS;
}

static void synth(const char *name, climate_year *y)
{
    sim_err e = {0};
    gsl_rng *r = rng_stream_new(NULL, 42, 0, rng_stream_id("climate"));
    assert_int_equal(climate_synthesize(climate_builtin(name), r, y, &e),
                     SIM_OK);
    gsl_rng_free(r);
}

/* A cited band: [lo, hi]. Where LBNL publishes only a median the band is
 * median +- 0.04, the half-width of its narrowest published P5-P95 (DLC
 * cold plate in zone 3B, 1.057-1.140). */
typedef struct band {
    double lo, hi;
} band;

static band med(double m)
{
    return (band){m - 0.04, m + 0.04};
}

static void in_band(const char *site, cooling_type t, double pue, band b)
{
    if (!(pue >= b.lo && pue <= b.hi))
        fail_msg("%s %s: annual PUE %.4f outside [%.3f, %.3f]", site,
                 cooling_type_name(t), pue, b.lo, b.hi);
}

static void test_cooling_pue_curves(void **state)
{
    (void)state;
    cooling_cfg a, d, l;
    cooling_cfg_default(&a, COOLING_AIR_ECONOMIZER);
    cooling_cfg_default(&d, COOLING_AIR_ADIABATIC);
    cooling_cfg_default(&l, COOLING_LIQUID_DRY);
    assert_close(cooling_pue(&a, 30, 10), 1.125, 1e-12);
    assert_close(cooling_pue(&a, 30, 20.75), 1.125 + 0.175 / 2, 1e-12);
    assert_close(cooling_pue(&a, 40, 27), 1.35, 1e-12);
    assert_close(cooling_pue(&a, 45, 35), 1.40, 1e-12);
    assert_close(cooling_pue(&d, 10, 5), 1.158, 1e-12);
    assert_close(cooling_pue(&d, 40, 15), 1.158 + 0.006 * 25, 1e-12);
    assert_close(cooling_pue(&d, 30, 23), 1.35, 1e-12);
    assert_close(cooling_pue(&l, 35, 20), 1.095, 1e-12);
    assert_close(cooling_pue(&l, 40, 20), 1.095 + 0.5 / 5, 1e-12);
    assert_close(cooling_pue(&l, 50, 20), 1.095 + 1.0 / 5, 1e-12);
    /* PUE never below 1 and never falls as it gets hotter. */
    for (double t = -20; t < 50; t += 0.5) {
        assert_true(cooling_pue(&l, t + 0.5, 10) >= cooling_pue(&l, t, 10));
        assert_true(cooling_pue(&d, t + 0.5, t / 2 + 0.5) >=
                    cooling_pue(&d, t, t / 2));
        assert_true(cooling_pue(&a, t, t / 2 + 0.5) >=
                    cooling_pue(&a, t, t / 2));
        assert_true(cooling_pue(&a, t, t / 2) >= 1.0);
    }
    sim_err e;
    a.pue_base = 0.9;
    assert_int_equal(cooling_cfg_check(&a, &e), SIM_EINVAL);
    cooling_cfg_default(&a, COOLING_AIR_ECONOMIZER);
    a.fixed_frac = 0.2; /* more than the whole overhead */
    assert_int_equal(cooling_cfg_check(&a, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "fixed_frac"));
}

/* Names as the scenario key spells them, and back. */
static void test_cooling_names_round_trip(void **state)
{
    (void)state;
    cooling_type t;
    assert_string_equal(cooling_type_name(COOLING_AIR_ECONOMIZER),
                        "air-economizer");
    assert_string_equal(cooling_type_name(COOLING_AIR_ADIABATIC), "adiabatic");
    assert_string_equal(cooling_type_name(COOLING_LIQUID_DRY),
                        "liquid-dry-cooler");
    for (int i = 0; i < COOLING_N; i++) {
        assert_int_equal(
            cooling_type_parse(cooling_type_name((cooling_type)i), &t), 0);
        assert_int_equal(t, i);
    }
    assert_int_equal(cooling_type_parse("liquid-dry", &t), -1);
}

/* Every built-in climate and both bundled TMY3 years, every design, inside
 * its LBNL band: Las Vegas is zone 3B (AE 1.132, P5-P95 1.066-1.209; DLC
 * dry cooler 1.095, 1.057-1.140; dry cooler + adiabatic 1.203), Reno 5B
 * (1.124, 1.170, 1.102), Reykjavik, Stavanger and Oslo the cold zones 7/8
 * (1.127, 1.161, 1.095; no Nordic zone is published, the coldest US zones
 * stand in for them). */
static void test_cooling_annual_pue_in_cited_band(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e = {0};
    struct {
        const char *site, *epw;
        band b[3];
    } cases[] = {
        {"las-vegas", NULL, {{1.066, 1.209}, med(1.203), {1.057, 1.140}}},
        {"LV TMY3", LV, {{1.066, 1.209}, med(1.203), {1.057, 1.140}}},
        {"Reno TMY3", RENO, {med(1.124), med(1.170), med(1.102)}},
        {"reykjavik", NULL, {med(1.127), med(1.161), med(1.095)}},
        {"stavanger", NULL, {med(1.127), med(1.161), med(1.095)}},
        {"oslo", NULL, {med(1.127), med(1.161), med(1.095)}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].epw)
            assert_int_equal(epw_read(cases[i].epw, y, &e), SIM_OK);
        else
            synth(cases[i].site, y);
        for (int t = 0; t < 3; t++) {
            double p;
            annual(y, (cooling_type)t, &p, NULL);
            in_band(cases[i].site, (cooling_type)t, p, cases[i].b[t]);
        }
    }
    climate_year_free(y);
}

/* LBNL's cold-zone medians rank direct liquid (1.095) below air (1.127):
 * the old curves had it the other way round in Iceland and Norway. */
static void test_cooling_liquid_at_or_below_air_in_cold_climates(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    const char *cold[] = {"reykjavik", "stavanger", "oslo"};
    for (int i = 0; i < 3; i++) {
        double air, adi, liq;
        synth(cold[i], y);
        annual(y, COOLING_AIR_ECONOMIZER, &air, NULL);
        annual(y, COOLING_AIR_ADIABATIC, &adi, NULL);
        annual(y, COOLING_LIQUID_DRY, &liq, NULL);
        assert_true(liq <= air);
        assert_true(liq <= adi);
    }
    climate_year_free(y);
}

/* A half-empty module pays the fixed overhead over half the IT: PUE rises
 * by fixed_frac at half load, is the curve at design load, and never
 * falls as the load falls. */
static void test_cooling_partial_load_raises_pue(void **state)
{
    (void)state;
    for (int t = 0; t < 3; t++) {
        cooling_cfg c;
        cooling_cfg_default(&c, (cooling_type)t);
        double full = cooling_pue(&c, 22.5, 12.5);
        assert_close(cooling_pue_load(&c, 22.5, 12.5, 1.0), full, 1e-12);
        assert_close(cooling_pue_load(&c, 22.5, 12.5, 0.5), full + c.fixed_frac,
                     1e-12);
        assert_true(c.fixed_frac > 0.01);
        for (double l = 0.06; l < 1.0; l += 0.01)
            assert_true(cooling_pue_load(&c, 22.5, 12.5, l) >
                        cooling_pue_load(&c, 22.5, 12.5, l + 0.01));
        /* Below COOLING_MIN_LOAD it stops growing (finite at zero IT). */
        assert_close(cooling_pue_load(&c, 22.5, 12.5, 0.0),
                     cooling_pue_load(&c, 22.5, 12.5, COOLING_MIN_LOAD), 1e-12);
    }
}

/* Water: the evaporative designs in the Las Vegas TMY3 year give the cited
 * Nevada annual 1.0 L/kWh (facts-costs.md 5, range 0.5-2.8); the dry
 * cooler 0.05; cold climates almost none. */
static void test_cooling_water_by_design_and_climate(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e = {0};
    double p, w;
    assert_int_equal(epw_read(LV, y, &e), SIM_OK);
    annual(y, COOLING_AIR_ECONOMIZER, &p, &w);
    assert_true(w >= 0.9 && w <= 1.1);
    annual(y, COOLING_AIR_ADIABATIC, &p, &w);
    assert_true(w >= 0.9 && w <= 1.1);
    annual(y, COOLING_LIQUID_DRY, &p, &w);
    assert_close(w, 0.05, 1e-9);
    synth("reykjavik", y);
    annual(y, COOLING_AIR_ECONOMIZER, &p, &w);
    assert_true(w < 0.1);
    climate_year_free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cooling_pue_curves),
        cmocka_unit_test(test_cooling_names_round_trip),
        cmocka_unit_test(test_cooling_annual_pue_in_cited_band),
        cmocka_unit_test(test_cooling_liquid_at_or_below_air_in_cold_climates),
        cmocka_unit_test(test_cooling_partial_load_raises_pue),
        cmocka_unit_test(test_cooling_water_by_design_and_climate),
    };
    return cmocka_run_group_tests_name("cooling", tests, NULL, NULL);
}
