/* tests/test_climate.c: synthetic years from monthly normals and the
 * psychrometric functions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "models/climate.h"
#include "power_testutil.h"
#include "sim/rng.h"

static void test_climate_synthetic_keeps_monthly_means(void **state)
{
    (void)state;
    const char *sites[] = {"las-vegas", "reykjavik", "stavanger", "oslo"};
    for (int s = 0; s < 4; s++) {
        climate_monthly n = *climate_builtin(sites[s]);
        n.t_anom_sd_k = 0; /* the seasonal + diurnal shape alone */
        gsl_rng *r = rng_stream_new(NULL, 7, 0, 1);
        climate_year *y = climate_year_new();
        sim_err e;
        assert_int_equal(climate_synthesize(&n, r, y, &e), SIM_OK);
        climate_stats st;
        climate_year_stats(y, &st);
        for (int m = 0; m < 12; m++)
            assert_true(fabs(st.t_month_mean_c[m] - n.t_mean_c[m]) < 0.05);
        /* The diurnal cycle spans the month's range. */
        double lo = 1e9, hi = -1e9;
        for (size_t i = 15 * 24; i < 16 * 24; i++) {
            lo = fmin(lo, y->h[i].t_db_c);
            hi = fmax(hi, y->h[i].t_db_c);
        }
        assert_true(fabs((hi - lo) - n.t_range_k[0]) <
                    0.1 * n.t_range_k[0] + 0.2);
        climate_year_free(y);
        gsl_rng_free(r);
    }
}

static void test_climate_same_seed_same_year(void **state)
{
    (void)state;
    climate_year *a = climate_year_new(), *b = climate_year_new(),
                 *c = climate_year_new();
    sim_err e;
    gsl_rng *r1 = rng_stream_new(NULL, 42, 0, rng_stream_id("climate"));
    gsl_rng *r2 = rng_stream_new(NULL, 42, 0, rng_stream_id("climate"));
    gsl_rng *r3 = rng_stream_new(NULL, 43, 0, rng_stream_id("climate"));
    const climate_monthly *n = climate_builtin("Las-Vegas");
    assert_non_null(n);
    assert_int_equal(climate_synthesize(n, r1, a, &e), SIM_OK);
    assert_int_equal(climate_synthesize(n, r2, b, &e), SIM_OK);
    assert_int_equal(climate_synthesize(n, r3, c, &e), SIM_OK);
    assert_int_equal(memcmp(a->h, b->h, sizeof a->h), 0);
    assert_true(memcmp(a->h, c->h, sizeof a->h) != 0);
    climate_year_free(a);
    climate_year_free(b);
    climate_year_free(c);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    gsl_rng_free(r3);
}

static void test_climate_synthetic_las_vegas_irradiance(void **state)
{
    (void)state;
    /* Annual GHI near the TMY files' (EPW 2032, Daggett 2127 kWh/m^2),
     * zero at night, and a clear-day share near the chain's 83%. */
    gsl_rng *r = rng_stream_new(NULL, 3, 0, 9);
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(climate_synthesize(climate_builtin("las-vegas"), r, y, &e),
                     SIM_OK);
    climate_stats st;
    climate_year_stats(y, &st);
    assert_within(st.ghi_kwh_m2, 1950, 2250);
    assert_true(y->h[0].ghi_w_m2 == 0 && y->h[23].ghi_w_m2 == 0);
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        assert_true(y->h[i].ghi_w_m2 >= 0 && y->h[i].dni_w_m2 >= 0 &&
                    y->h[i].dhi_w_m2 >= 0);
        assert_true(y->h[i].t_dp_c <= y->h[i].t_db_c);
        assert_true(y->h[i].t_wb_c <= y->h[i].t_db_c + 1e-9);
    }
    assert_true(st.ghi_month_wh_m2_day[5] > 2 * st.ghi_month_wh_m2_day[11]);
    climate_year_free(y);
    gsl_rng_free(r);
}

static void test_climate_psychrometrics(void **state)
{
    (void)state;
    /* 20 C, 50% RH, sea level: wet bulb 13.7 C (psychrometric chart). */
    double dp = climate_dew_point(20.0, 0.5);
    assert_within(dp, 9.2, 9.4);
    assert_close(climate_rh(20.0, dp), 0.5, 1e-9);
    double wb = climate_wet_bulb(20.0, dp, 101325.0);
    assert_within(wb, 13.5, 13.9);
    /* Saturated air: wet bulb = dry bulb. */
    assert_close(climate_wet_bulb(25.0, 25.0, 101325.0), 25.0, 1e-12);
    assert_within(climate_pressure_pa(648.0), 93500, 94100);
}

static void test_climate_bad_normals_rejected(void **state)
{
    (void)state;
    climate_monthly n = *climate_builtin("oslo");
    n.rh[3] = 1.5;
    sim_err e;
    climate_year *y = climate_year_new();
    gsl_rng *r = rng_stream_new(NULL, 1, 0, 1);
    assert_int_equal(climate_synthesize(&n, r, y, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "rh[3]"));
    assert_null(climate_builtin("atlantis"));
    climate_year_free(y);
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_climate_synthetic_keeps_monthly_means),
        cmocka_unit_test(test_climate_same_seed_same_year),
        cmocka_unit_test(test_climate_synthetic_las_vegas_irradiance),
        cmocka_unit_test(test_climate_psychrometrics),
        cmocka_unit_test(test_climate_bad_normals_rejected),
    };
    return cmocka_run_group_tests_name("climate", tests, NULL, NULL);
}
