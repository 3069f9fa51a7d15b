/* tests/test_epw.c: the EPW reader against the reference statistics in
 * data/weather/README.md, and its FILE:LINE errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "io/epw.h"
#include "power_testutil.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define RENO "data/weather/USA_NV_Reno-Tahoe.Intl.AP.724880_TMY3.epw"

static void test_epw_las_vegas_reference_statistics(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(epw_read(LV, y, &e), SIM_OK);
    assert_close(y->lat_deg, 36.08, 1e-12);
    assert_close(y->lon_deg, -115.15, 1e-12);
    assert_close(y->tz_h, -8.0, 1e-12);
    assert_close(y->elevation_m, 648.0, 1e-12);
    climate_stats s;
    climate_year_stats(y, &s);
    assert_close(s.ghi_kwh_m2, 2032.182, 1e-9);
    assert_close(s.dni_kwh_m2, 2591.951, 1e-9);
    assert_close(s.dhi_kwh_m2, 519.734, 1e-9);
    assert_close(s.t_mean_c, 19.835, 5e-5); /* README rounds to 3 decimals */
    assert_close(s.t_max_c, 44.4, 1e-12);
    assert_close(s.t_min_c, -3.3, 1e-12);
    double gmax = 0;
    int over30 = 0, over35 = 0, over40 = 0;
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        gmax = fmax(gmax, y->h[i].ghi_w_m2);
        over30 += y->h[i].t_db_c > 30.0;
        over35 += y->h[i].t_db_c > 35.0;
        over40 += y->h[i].t_db_c > 40.0;
    }
    assert_close(gmax, 1133.0, 1e-12);
    assert_int_equal(over30, 1791);
    assert_int_equal(over35, 754);
    assert_int_equal(over40, 97);
    static const double tm[12] = {7.75,  9.31,  12.89, 19.43, 24.79, 30.22,
                                  33.07, 31.54, 27.50, 19.55, 13.04, 8.27};
    static const double gd[12] = {2915, 3877, 5086, 6919, 7641, 8091,
                                  7851, 7255, 6241, 4569, 3490, 2794};
    for (int m = 0; m < 12; m++) {
        assert_true(fabs(s.t_month_mean_c[m] - tm[m]) <= 0.005 + 1e-9);
        assert_true(fabs(s.ghi_month_wh_m2_day[m] - gd[m]) <= 0.5 + 1e-9);
    }
    /* Wet bulb lies between dew point and dry bulb in every hour. */
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        assert_true(y->h[i].t_wb_c <= y->h[i].t_db_c + 1e-9);
        assert_true(y->h[i].t_wb_c >= y->h[i].t_dp_c - 1e-9);
    }
    climate_year_free(y);
}

static void test_epw_reno_reference_statistics(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(epw_read(RENO, y, &e), SIM_OK);
    climate_stats s;
    climate_year_stats(y, &s);
    assert_close(s.ghi_kwh_m2, 1832.625, 1e-9);
    assert_close(s.t_max_c, 37.8, 1e-12);
    assert_close(s.t_min_c, -19.0, 1e-12);
    assert_close(s.t_mean_c, 11.075, 5e-5);
    climate_year_free(y);
}

static void expect_error(const char *path, int code, int line,
                         const char *needle)
{
    climate_year *y = climate_year_new();
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(epw_read(path, y, &e), code);
    assert_int_equal(e.line, line);
    assert_string_equal(e.file, path);
    if (!strstr(e.msg, needle))
        fail_msg("message '%s' lacks '%s'", e.msg, needle);
    climate_year_free(y);
}

static void test_epw_malformed_lines_give_file_line(void **state)
{
    (void)state;
    expect_error("tests/data/epw_bad_number.epw", SIM_ECONFIG, 11,
                 "field 13 (GHI): not a number (got 'abc'");
    expect_error("tests/data/epw_bad_seq.epw", SIM_ECONFIG, 10,
                 "out of sequence");
    expect_error("tests/data/epw_missing.epw", SIM_ECONFIG, 10,
                 "field 6 (dry bulb): missing value (got 99.9");
    expect_error("tests/data/epw_short.epw", SIM_ECONFIG, 10,
                 "too few data rows (got 2, expected 8760)");
    expect_error("tests/data/epw_bad_header.epw", SIM_ECONFIG, 1, "LOCATION");
    expect_error("tests/data/epw_empty.epw", SIM_ECONFIG, 0, "empty file");
    expect_error("tests/data/no_such_file.epw", SIM_EIO, 0, "cannot open");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epw_las_vegas_reference_statistics),
        cmocka_unit_test(test_epw_reno_reference_statistics),
        cmocka_unit_test(test_epw_malformed_lines_give_file_line),
    };
    return cmocka_run_group_tests_name("epw", tests, NULL, NULL);
}
