/* tests/test_solar.c: sun position, clear sky, POA and PV yield. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "io/epw.h"
#include "models/solar.h"
#include "power_testutil.h"
#include "sim/rng.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define RENO "data/weather/USA_NV_Reno-Tahoe.Intl.AP.724880_TMY3.epw"

static void test_solar_declination_at_solstices(void **state)
{
    (void)state;
    solar_pos p;
    /* June 21 (day 171, 0-based) noon UTC and Dec 21 (day 354). */
    solar_position(171 * 24 + 12, 0, 0, 0, &p);
    assert_within(p.decl_deg, 23.40, 23.45);
    solar_position(354 * 24 + 12, 0, 0, 0, &p);
    assert_within(p.decl_deg, -23.45, -23.40);
    /* Earth-sun distance: perihelion in early January -> more irradiance. */
    solar_pos jan, jul;
    solar_position(3 * 24, 0, 0, 0, &jan);
    solar_position(185 * 24, 0, 0, 0, &jul);
    assert_within(jan.dni_extra_w_m2, 1400, 1410);
    assert_within(jul.dni_extra_w_m2, 1314, 1320);
}

static void test_solar_zero_at_night(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(epw_read(LV, y, &e), SIM_OK);
    solar_cfg c;
    solar_cfg_default(&c, 1e6);
    static double p[CLIMATE_HOURS];
    solar_year(&c, y, p, NULL);
    int night = 0;
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        solar_pos sp;
        double up = solar_position_hour((double)i, y->lat_deg, y->lon_deg,
                                        y->tz_h, &sp);
        if (up == 0) {
            night++;
            assert_true(p[i] == 0.0);
        }
        assert_true(p[i] >= 0 && p[i] <= solar_p_ac0_w(&c) * (1 + 1e-12));
    }
    assert_true(night > 3500); /* ~half the year is night */
    /* And directly: a sun below the horizon gives nothing. */
    solar_pos down = {95, 270, 1361, 0};
    solar_out o;
    solar_plant(&c, &down, 500, 500, 100, 20, 2, &o);
    assert_true(o.p_ac_w == 0 && o.poa_w_m2 == 0);
    climate_year_free(y);
}

static void test_solar_peaks_near_solar_noon(void **state)
{
    (void)state;
    /* Las Vegas, March 20, clear sky, fixed tilt facing south: the
     * minute of peak output is within 20 min of local mean solar noon,
     * 12:00 - (lon - 15 tz) x 4 min (the equation of time is ~ -7 min). */
    solar_cfg c;
    solar_cfg_default(&c, 1e6);
    c.tracking = SOLAR_FIXED;
    c.tilt_deg = 30;
    double lat = 36.08, lon = -115.15, tz = -8;
    double best = -1, best_h = 0;
    for (int k = 0; k < 24 * 60; k++) {
        double hoy = 78 * 24 + k / 60.0;
        solar_pos p;
        solar_position(hoy, lat, lon, tz, &p);
        double ghi = solar_clearsky_haurwitz(p.zenith_deg), dni, dhi;
        solar_decompose_erbs(ghi, &p, &dni, &dhi);
        solar_out o;
        solar_plant(&c, &p, ghi, dni, dhi, 20, 2, &o);
        if (o.poa_w_m2 > best) {
            best = o.poa_w_m2;
            best_h = k / 60.0;
        }
    }
    double noon = 12.0 - (lon - 15 * tz) * 4 / 60.0;
    assert_true(fabs(best_h - noon) < 20.0 / 60.0);
    assert_true(best > 800);
}

static void test_solar_las_vegas_single_axis_in_range(void **state)
{
    (void)state;
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(epw_read(LV, y, &e), SIM_OK);
    solar_cfg c;
    solar_cfg_default(&c, 100e6);
    solar_annual a;
    solar_year(&c, y, NULL, &a);
    /* Nevada plants 28-32% AC (facts-more.md 5). */
    assert_within(a.cf_ac, 0.28, 0.32);
    assert_close(a.cf_dc, a.cf_ac / c.dc_ac_ratio, 1e-12);
    /* A fixed array at latitude tilt yields less than the tracker. */
    solar_cfg f = c;
    f.tracking = SOLAR_FIXED;
    f.tilt_deg = 36;
    solar_annual af;
    solar_year(&f, y, NULL, &af);
    assert_true(af.cf_ac < a.cf_ac - 0.02);
    /* Summer months beat winter months. */
    assert_true(a.month_cf_ac[5] > a.month_cf_ac[11] + 0.1);

    /* The stochastic model for the same site lands within 3 points. */
    double sum = 0;
    for (uint64_t s = 1; s <= 3; s++) {
        gsl_rng *r = rng_stream_new(NULL, s, 0, rng_stream_id("climate"));
        climate_year *z = climate_year_new();
        assert_int_equal(
            climate_synthesize(climate_builtin("las-vegas"), r, z, &e), SIM_OK);
        solar_annual az;
        solar_year(&c, z, NULL, &az);
        assert_true(fabs(az.cf_ac - a.cf_ac) < 0.03);
        sum += az.cf_ac;
        climate_year_free(z);
        gsl_rng_free(r);
    }
    assert_true(fabs(sum / 3 - a.cf_ac) < 0.03);
    climate_year_free(y);
}

static void test_solar_clipping_and_temperature(void **state)
{
    (void)state;
    solar_cfg c;
    solar_cfg_default(&c, 1000.0);
    double dc;
    /* 1000 W/m^2 at 25 C: DC = P_dc0 (1 - losses); AC clips at P_ac0. */
    double ac = solar_ac_from_poa(&c, 1000, 25, &dc);
    assert_close(dc, 1000.0 * (1 - 0.1408), 1e-12);
    assert_close(ac, 1000.0 / 1.34, 1e-12);
    /* Hotter cells give less DC, by gamma per K. */
    double dc_hot;
    solar_ac_from_poa(&c, 500, 45, &dc_hot);
    assert_close(dc_hot, 500.0 * (1 - 0.0037 * 20) * (1 - 0.1408), 1e-12);
    sim_err e;
    c.dc_ac_ratio = 0.1;
    assert_int_equal(solar_cfg_check(&c, &e), SIM_EINVAL);
}

static void test_solar_erbs_limits(void **state)
{
    (void)state;
    assert_close(solar_erbs_fraction(0.1), 0.991, 1e-12);
    assert_close(solar_erbs_fraction(0.9), 0.165, 1e-12);
    /* Continuous at kt = 0.22 within 1e-3 (the published fit). */
    assert_true(fabs(solar_erbs_fraction(0.22) -
                     solar_erbs_fraction(0.2200001)) < 1e-3);
}

/* Annual relative error and hourly RMSE (over the mean hourly power) of the
 * plant of data/reference/solar/README.md (1 W_dc, DC/AC 1.34; fixed tilt =
 * |latitude| facing south, or the backtracking single-axis tracker) on epw
 * against column col of the pvlib reference file ref. */
static void ref_compare(const char *epw, const char *ref, const char *col,
                        solar_sky sky, double *annual_rel, double *rmse_rel)
{
    climate_year *y = climate_year_new();
    sim_err e;
    assert_int_equal(epw_read(epw, y, &e), SIM_OK);
    csvt *t = NULL;
    assert_int_equal(csvt_read(ref, &t, &e), SIM_OK);
    int k = csvt_col(t, col);
    assert_true(k >= 0);
    assert_int_equal(t->n_rows, CLIMATE_HOURS);
    solar_cfg c;
    solar_cfg_default(&c, 1.0);
    c.sky = sky;
    if (strncmp(col, "fixed", 5) == 0) {
        c.tracking = SOLAR_FIXED;
        c.tilt_deg = fabs(y->lat_deg);
        c.azimuth_deg = 180.0;
    }
    static double p[CLIMATE_HOURS];
    solar_year(&c, y, p, NULL);
    double sum = 0, sum_ref = 0, sq = 0;
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        double r = strtod(t->rows[i][k], NULL);
        sum += p[i];
        sum_ref += r;
        sq += (p[i] - r) * (p[i] - r);
    }
    *annual_rel = sum / sum_ref - 1.0;
    *rmse_rel = sqrt(sq / CLIMATE_HOURS) / (sum_ref / CLIMATE_HOURS);
    print_message("%s %s: annual %+.3f %%, hourly RMSE %.2f %% of mean\n", ref,
                  col, 100 * *annual_rel, 100 * *rmse_rel);
    csvt_free(t);
    climate_year_free(y);
}

/* Issue 20: with the Perez sky (the default) both cities and both mounts
 * agree with pvlib's Perez chain within 1 % a year and 3 % hourly RMSE. */
static void test_solar_perez_matches_pvlib_reference(void **state)
{
    (void)state;
    static const char *const refs[2][2] = {
        {LV, "data/reference/solar/pvlib_ac_las_vegas.csv"},
        {RENO, "data/reference/solar/pvlib_ac_reno.csv"}};
    static const char *const cols[2] = {"sat_M+perez", "fixed_M+perez"};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double an, rm;
            ref_compare(refs[i][0], refs[i][1], cols[j], SOLAR_SKY_PEREZ, &an,
                        &rm);
            assert_true(fabs(an) < 0.01);
            assert_true(rm < 0.03);
        }
}

/* The isotropic sky is kept and still matches pvlib's isotropic chain (the
 * M columns) as closely as before the Perez model was added. */
static void test_solar_isotropic_matches_pvlib_reference(void **state)
{
    (void)state;
    double an, rm;
    ref_compare(LV, "data/reference/solar/pvlib_ac_las_vegas.csv", "sat_M",
                SOLAR_SKY_ISOTROPIC, &an, &rm);
    assert_true(fabs(an) < 0.005 && rm < 0.02);
    ref_compare(RENO, "data/reference/solar/pvlib_ac_reno.csv", "fixed_M",
                SOLAR_SKY_ISOTROPIC, &an, &rm);
    assert_true(fabs(an) < 0.005 && rm < 0.02);
    /* And the isotropic sky under-predicts every plant against Perez by
     * 3-5 % a year (issue 20: -4.4 % for the Las Vegas tracker), which is
     * what made Perez the default. */
    static const char *const refs[2][2] = {
        {LV, "data/reference/solar/pvlib_ac_las_vegas.csv"},
        {RENO, "data/reference/solar/pvlib_ac_reno.csv"}};
    static const char *const cols[2] = {"sat_M+perez", "fixed_M+perez"};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            ref_compare(refs[i][0], refs[i][1], cols[j], SOLAR_SKY_ISOTROPIC,
                        &an, &rm);
            assert_true(an < -0.025 && an > -0.06);
        }
}

/* Perez pieces: airmass 1 at the zenith and ~2 at 60 deg (Kasten-Young);
 * an overcast sky (eps in the first bin) on a horizontal plane gives back
 * DHI up to the small circumsolar share, and a horizontal surface has no
 * horizon-band term. */
static void test_solar_perez_pieces(void **state)
{
    (void)state;
    assert_close(solar_airmass_kasten_young(0), 0.99972, 1e-4);
    assert_within(solar_airmass_kasten_young(60), 1.99, 2.0);
    assert_true(solar_airmass_kasten_young(90.5) == 0.0);
    solar_pos p = {30.0, 180.0, 1367.0, 0.0};
    /* Horizontal: a = b = cos z, sin tilt = 0 -> exactly DHI. */
    assert_close(solar_perez_sky(&p, 0.0,
                                 cos(30 * 3.14159265358979323846 / 180), 137.5,
                                 612.3),
                 137.5, 1e-9);
    /* Clear sky on a sun-facing 30-deg plane: circumsolar brightening gives
     * more than the isotropic share. */
    double iso = 137.5 * (1 + cos(30 * 3.14159265358979323846 / 180)) / 2;
    assert_true(solar_perez_sky(&p, 30.0, 1.0, 137.5, 812.3) > iso * 1.2);
    assert_true(solar_perez_sky(&p, 30.0, 1.0, 0.0, 812.3) == 0.0);
    assert_int_equal(solar_sky_parse("perez"), SOLAR_SKY_PEREZ);
    assert_int_equal(solar_sky_parse("isotropic"), SOLAR_SKY_ISOTROPIC);
    assert_int_equal(solar_sky_parse("hay-davies"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solar_declination_at_solstices),
        cmocka_unit_test(test_solar_zero_at_night),
        cmocka_unit_test(test_solar_peaks_near_solar_noon),
        cmocka_unit_test(test_solar_las_vegas_single_axis_in_range),
        cmocka_unit_test(test_solar_clipping_and_temperature),
        cmocka_unit_test(test_solar_erbs_limits),
        cmocka_unit_test(test_solar_perez_matches_pvlib_reference),
        cmocka_unit_test(test_solar_isotropic_matches_pvlib_reference),
        cmocka_unit_test(test_solar_perez_pieces),
    };
    return cmocka_run_group_tests_name("solar", tests, NULL, NULL);
}
