/* tests/test_profile.c: the hourly weather CSV reader (io/profile.h) and
 * climate_load_for_scenario (io/climate_load.h): a profile written from the
 * Las Vegas EPW reads back hour for hour, timestamps and leap years, Erbs
 * splitting of GHI, the documented defaults, and every error with its
 * FILE:LINE. Full-year files are generated into a temporary folder; the small
 * broken files are in tests/data/profile/. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/catalog_cfg.h"
#include "io/climate_load.h"
#include "io/epw.h"
#include "io/profile.h"
#include "io/scenario_cfg.h"
#include "app/runcase.h"
#include "models/catalog.h"
#include "models/scenario.h"
#include "models/solar.h"
#include "power_testutil.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define BAD "tests/data/profile/"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fs-profile-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp(const char *name)
{
    static char p[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

enum {
    W_DEW = 1,
    W_RH = 2,
    W_P = 4,
    W_GHI = 8,
    W_DNI_DHI = 16,
    W_WIND = 32,
    W_TS = 64
};

/* Writes y as a profile with the columns in flags; n_extra_rows more rows
 * repeat the last hour (to make a too-long file). ts_year: the year of the
 * timestamps (a leap year writes Feb 29 rows, copies of Feb 28). */
static void write_profile(const char *path, const climate_year *y, int flags,
                          int ts_year, int n_extra_rows)
{
    static const int md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s,dry_bulb_c", flags & W_TS ? "timestamp" : "hour");
    if (flags & W_DEW)
        fprintf(f, ",dew_point_c");
    if (flags & W_RH)
        fprintf(f, ",rh_pct");
    if (flags & W_P)
        fprintf(f, ",pressure_pa");
    if (flags & W_GHI)
        fprintf(f, ",ghi_w_m2");
    if (flags & W_DNI_DHI)
        fprintf(f, ",dni_w_m2,dhi_w_m2");
    if (flags & W_WIND)
        fprintf(f, ",wind_m_s");
    fprintf(f, "\r\n"); /* CRLF must be accepted */
    int leap = ts_year % 4 == 0 && (ts_year % 100 != 0 || ts_year % 400 == 0);
    size_t i = 0;
    for (int m = 0; m < 12; m++) {
        int nd = md[m] + (m == 1 && leap && (flags & W_TS));
        for (int d = 0; d < nd; d++)
            for (int h = 0; h < 24; h++) {
                size_t k = m == 1 && d == 28 ? i - 24 + (size_t)h
                                             : i; /* Feb 29 copy */
                const climate_hour *w = &y->h[k];
                if (flags & W_TS)
                    fprintf(f, "%04d-%02d-%02d %02d:00", ts_year, m + 1, d + 1,
                            h);
                else
                    fprintf(f, "%zu", i);
                fprintf(f, ",%.9g", w->t_db_c);
                if (flags & W_DEW)
                    fprintf(f, ",%.9g", w->t_dp_c);
                if (flags & W_RH)
                    fprintf(f, ",%.9g", 100 * w->rh);
                if (flags & W_P)
                    fprintf(f, ",%.9g", w->p_pa);
                if (flags & W_GHI)
                    fprintf(f, ",%.9g", w->ghi_w_m2);
                if (flags & W_DNI_DHI)
                    fprintf(f, ",%.9g,%.9g", w->dni_w_m2, w->dhi_w_m2);
                if (flags & W_WIND)
                    fprintf(f, ",%.9g", w->wind_m_s);
                fprintf(f, "\r\n");
                if (!(m == 1 && d == 28))
                    i++;
            }
    }
    for (int e = 0; e < n_extra_rows; e++)
        fprintf(f, "%zu,%.9g\n", i + (size_t)e, y->h[CLIMATE_HOURS - 1].t_db_c);
    fclose(f);
}

static climate_year *lv_year(void)
{
    climate_year *y = climate_year_new();
    sim_err err;
    assert_int_equal(epw_read(LV, y, &err), SIM_OK);
    return y;
}

static void lv_site(profile_site *s, const climate_year *y)
{
    profile_site_default(s, y->lat_deg, y->lon_deg, y->tz_h, y->elevation_m);
    s->name = "test site";
}

static void test_profile_epw_round_trip_matches_hour_for_hour(void **state)
{
    (void)state;
    climate_year *y = lv_year(), *z = climate_year_new();
    profile_site site;
    profile_info info;
    sim_err err;
    const char *p = tmp("full.csv");
    lv_site(&site, y);
    write_profile(p, y, W_DEW | W_P | W_GHI | W_DNI_DHI | W_WIND, 0, 0);
    assert_int_equal(profile_read(p, &site, z, &info, &err), SIM_OK);
    assert_int_equal(info.rows, CLIMATE_HOURS);
    assert_true(info.has_irradiance && info.has_dni_dhi && info.has_humidity &&
                info.has_pressure && info.has_wind);
    assert_int_equal(z->from_file, 1);
    assert_string_equal(z->name, "test site");
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        assert_close(z->h[i].t_db_c, y->h[i].t_db_c, 1e-9);
        assert_close(z->h[i].t_dp_c, y->h[i].t_dp_c, 1e-9);
        assert_close(z->h[i].t_wb_c, y->h[i].t_wb_c, 1e-6);
        assert_close(z->h[i].ghi_w_m2, y->h[i].ghi_w_m2, 1e-9);
        assert_close(z->h[i].dni_w_m2, y->h[i].dni_w_m2, 1e-9);
        assert_close(z->h[i].dhi_w_m2, y->h[i].dhi_w_m2, 1e-9);
        assert_close(z->h[i].wind_m_s, y->h[i].wind_m_s, 1e-9);
        assert_close(z->h[i].p_pa, y->h[i].p_pa, 1e-9);
    }
    /* The same plant gives the same year on either copy. */
    solar_cfg c;
    solar_annual a, b;
    solar_cfg_default(&c, 1e6);
    solar_year(&c, y, NULL, &a);
    solar_year(&c, z, NULL, &b);
    assert_close(a.cf_ac, b.cf_ac, 1e-9);
    climate_year_free(y);
    climate_year_free(z);
}

static void test_profile_timestamps_drop_feb_29(void **state)
{
    (void)state;
    climate_year *y = lv_year(), *z = climate_year_new();
    profile_site site;
    profile_info info;
    sim_err err;
    const char *p = tmp("leap.csv");
    lv_site(&site, y);
    write_profile(p, y, W_TS | W_RH | W_GHI, 2024, 0);
    assert_int_equal(profile_read(p, &site, z, &info, &err), SIM_OK);
    assert_int_equal(info.rows, 8784);
    /* Mar 1 00:00 is hour 59 x 24 of the non-leap year. */
    assert_close(z->h[59 * 24].t_db_c, y->h[59 * 24].t_db_c, 1e-9);
    assert_close(z->h[CLIMATE_HOURS - 1].t_db_c, y->h[CLIMATE_HOURS - 1].t_db_c,
                 1e-9);
    /* RH round trip: dew point within 0.01 K of the file's. */
    for (size_t i = 0; i < CLIMATE_HOURS; i += 97)
        assert_within(z->h[i].t_dp_c - fmin(y->h[i].t_dp_c, y->h[i].t_db_c),
                      -0.01, 0.01);
    climate_year_free(y);
    climate_year_free(z);
}

static void test_profile_ghi_alone_is_split_by_erbs(void **state)
{
    (void)state;
    climate_year *y = lv_year(), *z = climate_year_new();
    profile_site site;
    profile_info info;
    sim_err err;
    const char *p = tmp("ghi.csv");
    lv_site(&site, y);
    write_profile(p, y, W_DEW | W_GHI, 0, 0);
    assert_int_equal(profile_read(p, &site, z, &info, &err), SIM_OK);
    assert_true(info.has_irradiance && !info.has_dni_dhi);
    double dni_file = 0, dni_erbs = 0;
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        solar_pos sp;
        solar_position_hour((double)i, site.lat_deg, site.lon_deg, site.tz_h,
                            &sp);
        const climate_hour *h = &z->h[i];
        assert_true(h->dhi_w_m2 >= 0 && h->dni_w_m2 >= 0 &&
                    h->dhi_w_m2 <= h->ghi_w_m2 + 1e-9);
        /* Closure: beam on the horizontal + diffuse = global. */
        if (sp.zenith_deg < 87)
            assert_close(h->dhi_w_m2 +
                             h->dni_w_m2 * cos(sp.zenith_deg *
                                               3.14159265358979323846 / 180),
                         h->ghi_w_m2, 1e-9);
        dni_file += y->h[i].dni_w_m2;
        dni_erbs += h->dni_w_m2;
    }
    /* Erbs on a clear desert site lands within 15% of the measured DNI. */
    assert_within(dni_erbs / dni_file, 0.85, 1.15);
    climate_year_free(y);
    climate_year_free(z);
}

static void test_profile_defaults_dew_wind_pressure(void **state)
{
    (void)state;
    climate_year *y = lv_year(), *z = climate_year_new();
    profile_site site;
    profile_info info;
    sim_err err;
    const char *p = tmp("drybulb.csv");
    lv_site(&site, y);
    write_profile(p, y, 0, 0, 0);
    assert_int_equal(profile_read(p, &site, z, &info, &err), SIM_OK);
    assert_false(info.has_irradiance || info.has_humidity || info.has_wind ||
                 info.has_pressure);
    for (size_t d = 0; d < 365; d += 11) {
        double tmin = 1e9;
        for (size_t h = 0; h < 24; h++)
            tmin = fmin(tmin, y->h[24 * d + h].t_db_c);
        for (size_t h = 0; h < 24; h++) {
            const climate_hour *w = &z->h[24 * d + h];
            assert_close(w->t_dp_c, tmin, 1e-12);
            assert_true(w->t_wb_c <= w->t_db_c + 1e-9 &&
                        w->t_wb_c >= w->t_dp_c - 1e-9);
            assert_close(w->wind_m_s, PROFILE_WIND_DEFAULT_M_S, 1e-12);
            assert_close(w->p_pa, climate_pressure_pa(site.elevation_m), 1e-12);
            assert_true(w->ghi_w_m2 == 0 && w->dni_w_m2 == 0);
        }
    }
    climate_year_free(y);
    climate_year_free(z);
}

/* Reads path expecting code at line with msg_part in the message. */
static void expect_error(const char *path, int code, int line,
                         const char *msg_part)
{
    climate_year *z = climate_year_new();
    profile_site site;
    sim_err err;
    profile_site_default(&site, 36, -115, -8, 600);
    sim_err_clear(&err);
    int rc = profile_read(path, &site, z, NULL, &err);
    climate_year_free(z);
    if (rc != code || err.line != line || strcmp(err.file, path) != 0 ||
        !strstr(err.msg, msg_part))
        fail_msg(
            "%s: got rc %d, %s:%d: %s; expected rc %d at line %d with '%s'",
            path, rc, err.file, err.line, err.msg, code, line, msg_part);
}

static void test_profile_errors_name_file_and_line(void **state)
{
    (void)state;
    expect_error(BAD "bad_column.csv", SIM_ECONFIG, 1,
                 "column 'drybulb_c': unknown");
    expect_error(BAD "no_time.csv", SIM_ECONFIG, 1,
                 "exactly one time column (got neither");
    expect_error(BAD "two_times.csv", SIM_ECONFIG, 1,
                 "exactly one time column (got both");
    expect_error(BAD "no_dry_bulb.csv", SIM_ECONFIG, 1, "dry_bulb_c: missing");
    expect_error(BAD "dew_and_rh.csv", SIM_ECONFIG, 1,
                 "dew_point_c and rh_pct both");
    expect_error(BAD "dni_without_dhi.csv", SIM_ECONFIG, 1,
                 "irradiance columns");
    expect_error(
        BAD "bad_number.csv", SIM_ECONFIG, 4,
        "dry_bulb_c: not a number (got 'warm', expected degC in -70..70)");
    expect_error(BAD "missing_value.csv", SIM_ECONFIG, 3,
                 "ghi_w_m2: missing value");
    expect_error(BAD "out_of_range.csv", SIM_ECONFIG, 5,
                 "dry_bulb_c: out of range (got 85, expected degC in -70..70)");
    expect_error(BAD "out_of_order.csv", SIM_ECONFIG, 4,
                 "hour: hour 2 of the year missing (got hour 3, expected 2");
    /* Rows are local standard time: a daylight-saving clock skips 02:00
     * on 2027-03-14 and repeats 01:00 on 2027-11-07 (US rules), each an
     * error at its own line that says why. */
    expect_error(BAD "dst_spring_gap.csv", SIM_ECONFIG, 1732,
                 "timestamp: hour 1730 of the year missing (got hour 1731, "
                 "expected 1730; rows are local standard time, one per hour: "
                 "a daylight-saving switch skips an hour)");
    expect_error(BAD "dst_autumn_repeat.csv", SIM_ECONFIG, 7444,
                 "timestamp: hour 7441 of the year repeated (got hour 7441, "
                 "expected 7442; rows are local standard time, one per hour: "
                 "a daylight-saving switch repeats an hour)");
    expect_error(BAD "fractional_hour.csv", SIM_ECONFIG, 3,
                 "hour: not a whole number");
    expect_error(BAD "off_hour.csv", SIM_ECONFIG, 3,
                 "timestamp: not at the start of an hour");
    expect_error(BAD "short.csv", SIM_ECONFIG, 4,
                 "too few rows (got 3 hours, expected 8760");
    expect_error(BAD "no-such-file.csv", SIM_EIO, 0, "");
}

static void test_profile_errors_in_full_year_files(void **state)
{
    (void)state;
    climate_year *y = lv_year();
    const char *p = tmp("long.csv");
    write_profile(p, y, 0, 0, 1);
    /* Header + 8760 rows: the extra row is line 8762. */
    expect_error(p, SIM_ECONFIG, 8762, "too many rows");
    /* A second year in the timestamps. */
    p = tmp("twoyears.csv");
    write_profile(p, y, W_TS, 2027, 0);
    {
        FILE *f = fopen(p, "r+");
        char line[64];
        long pos = 0;
        assert_non_null(f);
        for (int k = 0; k < 101; k++) { /* header + 100 rows */
            pos = ftell(f);
            assert_non_null(fgets(line, sizeof line, f));
        }
        fseek(f, pos, SEEK_SET);
        fputs("2028", f); /* row 100 (line 101) now in 2028 */
        fclose(f);
    }
    expect_error(p, SIM_ECONFIG, 101,
                 "timestamp: a second year (got 2028, expected 2027");
    climate_year_free(y);
}

/* A scenario text with the given climate group and energy section. */
static const char *write_scenario(const char *name, const char *climate,
                                  const char *energy)
{
    const char *p = tmp(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(
        f,
        "site = { name = \"CSV site\"; latitude_deg = 36.08; longitude_deg = "
        "-115.15;\n"
        "  elevation_m = 648.0; utc_offset_h = -8.0; climate = { %s }; };\n"
        "simulation = { start_date = \"2027-06-01\"; horizon_days = 2.0; };\n"
        "modules = ( { name = \"a\"; type = \"spark-air\"; count = 1; hosts = "
        "\"hgx-b300\"; } );\n"
        "energy = { %s };\n",
        climate, energy);
    fclose(f);
    return p;
}

static void test_profile_climate_load_for_scenario(void **state)
{
    (void)state;
    climate_year *y = lv_year(), *z = NULL;
    catalog *cat = NULL;
    scenario *s = NULL;
    sim_err err;
    write_profile(tmp("site.csv"), y, W_DEW | W_GHI, 0, 0);
    write_profile(tmp("dry.csv"), y, W_DEW, 0, 0);
    assert_int_equal(catalog_load(NULL, &cat, &err), SIM_OK);

    /* Hourly CSV: the scenario's location, the file's hours. */
    const char *p = write_scenario(
        "csv.cfg", "hourly_csv = \"site.csv\";",
        "solar = { capacity_mw = 5.0; }; grid = { import_limit_mw = 1.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_OK);
    assert_non_null(z);
    assert_close(z->lat_deg, 36.08, 1e-12);
    assert_close(z->tz_h, -8.0, 1e-12);
    assert_string_equal(z->name, "CSV site");
    assert_close(z->h[4000].t_db_c, y->h[4000].t_db_c, 1e-9);
    climate_year_free(z);
    scenario_free(s);

    /* No irradiance with solar present: refused, naming the key. */
    p = write_scenario(
        "dry.cfg", "hourly_csv = \"dry.csv\";",
        "solar = { capacity_mw = 5.0; }; grid = { import_limit_mw = 1.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    z = y;
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_ECONFIG);
    assert_null(z);
    assert_non_null(strstr(err.msg, "site.climate.hourly_csv"));
    scenario_free(s);
    /* No wind column with wind present: refused (the 2 m/s default would
     * pass for a measured year); with the column, the file's wind is the
     * year's. */
    p = write_scenario("calm.cfg", "hourly_csv = \"site.csv\";",
                       "wind = { capacity_mw = 5.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    z = y;
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_ECONFIG);
    assert_null(z);
    assert_non_null(strstr(err.msg, "no wind_m_s column"));
    scenario_free(s);
    write_profile(tmp("windy.csv"), y, W_DEW | W_WIND, 0, 0);
    p = write_scenario("windy.cfg", "hourly_csv = \"windy.csv\";",
                       "wind = { capacity_mw = 5.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_OK);
    assert_close(z->h[4000].wind_m_s, y->h[4000].wind_m_s, 1e-9);
    climate_year_free(z);
    scenario_free(s);
    /* ... but fine without solar. */
    p = write_scenario("dry2.cfg", "hourly_csv = \"dry.csv\";",
                       "grid = { import_limit_mw = 1.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_OK);
    assert_non_null(z);
    climate_year_free(z);
    scenario_free(s);

    /* EPW: the file's own year. Normals: NULL, no error. */
    {
        char cwd[2048], clim[2300];
        assert_non_null(getcwd(cwd, sizeof cwd));
        snprintf(clim, sizeof clim, "epw = \"%s/%s\";", cwd, LV);
        p = write_scenario("epw.cfg", clim,
                           "grid = { import_limit_mw = 1.0; };");
    }
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_OK);
    assert_non_null(z);
    assert_close(z->h[100].ghi_w_m2 + 1, y->h[100].ghi_w_m2 + 1, 1e-12);
    climate_year_free(z);
    scenario_free(s);
    p = write_scenario("normals.cfg", "normals = \"las-vegas\";",
                       "grid = { import_limit_mw = 1.0; };");
    assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
    z = y;
    assert_int_equal(climate_load_for_scenario(s, &z, NULL, &err), SIM_OK);
    assert_null(z);
    scenario_free(s);

    catalog_free(cat);
    climate_year_free(y);
}

/* A multi-year hourly CSV (issue 19.3): three whole timestamped years in
 * one file (2019, leap 2020, 2021; the second 3 K warmer with 80 % of the
 * irradiance, the third with 110 %) are read as three years in file order,
 * the leap day dropped; one year alone is still one year; an incomplete
 * year is refused naming the year and the line where the next begins (or
 * the last line); years out of order are refused; profile_read (one year)
 * still refuses a second year. Through a scenario, climate_load gives all
 * three years (four with a second file), and `run`'s replications draw
 * more than one of them, repeatably. */
static void test_profile_multi_year_csv_is_split_into_years(void **state)
{
    climate_year *y = lv_year(), *y2 = climate_year_new(),
                 *y3 = climate_year_new(), *z = NULL, one;
    profile_site site;
    profile_info info;
    sim_err err;
    size_t n = 0;
    char cmd[1200];
    (void)state;
    memcpy(y2, y, sizeof *y);
    memcpy(y3, y, sizeof *y);
    for (int i = 0; i < CLIMATE_HOURS; i++) {
        y2->h[i].t_db_c += 3.0;
        y2->h[i].t_dp_c += 3.0;
        y2->h[i].ghi_w_m2 *= 0.8;
        y3->h[i].ghi_w_m2 *= 1.1;
    }
    lv_site(&site, y);
    write_profile(tmp("y19.csv"), y, W_TS | W_DEW | W_GHI, 2019, 0);
    write_profile(tmp("y20.csv"), y2, W_TS | W_DEW | W_GHI, 2020, 0);
    write_profile(tmp("y21.csv"), y3, W_TS | W_DEW | W_GHI, 2021, 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && { cat y19.csv; tail -n +2 y20.csv; tail -n +2 y21.csv; "
             "} > multi.csv && { cat y19.csv; tail -n +2 y20.csv | head -n "
             "-5; tail -n +2 y21.csv; } > gap.csv && { cat y19.csv; tail -n "
             "+2 y20.csv; tail -n +2 y21.csv | head -n -1; } > short.csv && "
             "{ cat y20.csv; tail -n +2 y19.csv; } > back.csv",
             tmpdir);
    assert_int_equal(system(cmd), 0);

    assert_int_equal(
        profile_read_years(tmp("multi.csv"), &site, 16, &z, &n, &info, &err),
        SIM_OK);
    assert_int_equal(n, 3);
    for (int i = 0; i < CLIMATE_HOURS; i += 997) {
        assert_close(z[0].h[i].t_db_c, y->h[i].t_db_c, 1e-9);
        assert_close(z[1].h[i].t_db_c, y->h[i].t_db_c + 3.0, 1e-9);
        assert_close(z[2].h[i].ghi_w_m2 + 1, 1.1 * y->h[i].ghi_w_m2 + 1, 1e-9);
    }
    /* Mar 1 00:00 of the leap year is hour 1416 (Feb 29 dropped). */
    assert_close(z[1].h[1416].t_db_c, y->h[1416].t_db_c + 3.0, 1e-9);
    assert_true(z[2].from_file && z[2].lat_deg == site.lat_deg);
    climate_year_free(z);
    z = NULL;
    assert_int_equal(
        profile_read_years(tmp("y21.csv"), &site, 16, &z, &n, NULL, &err),
        SIM_OK);
    assert_int_equal(n, 1);
    climate_year_free(z);
    z = NULL;

    /* 2020 lacks its last 5 hours: refused where 2021 starts (header 1,
     * 8760 rows of 2019, 8784 - 5 of 2020: line 17541). */
    assert_int_equal(
        profile_read_years(tmp("gap.csv"), &site, 16, &z, &n, NULL, &err),
        SIM_ECONFIG);
    assert_null(z);
    assert_int_equal(err.line, 1 + 8760 + 8784 - 5 + 1);
    assert_non_null(strstr(err.msg, "year 2020 is incomplete (got 8755 hours"));
    assert_int_equal(
        profile_read_years(tmp("short.csv"), &site, 16, &z, &n, NULL, &err),
        SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "year 2021 is incomplete (got 8759 hours"));
    assert_int_equal(
        profile_read_years(tmp("back.csv"), &site, 16, &z, &n, NULL, &err),
        SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "years out of order (got 2019 after 2020"));
    assert_int_equal(
        profile_read_years(tmp("multi.csv"), &site, 2, &z, &n, NULL, &err),
        SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "too many years"));
    assert_int_equal(profile_read(tmp("multi.csv"), &site, &one, NULL, &err),
                     SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "a second year"));

    /* Through a scenario: every year of the file, then of the next file. */
    {
        catalog *cat = NULL;
        scenario *s = NULL;
        const char *p;
        assert_int_equal(catalog_load(NULL, &cat, &err), SIM_OK);
        p = write_scenario("multi.cfg", "hourly_csv = \"multi.csv\";",
                           "solar = { capacity_mw = 5.0; }; grid = { "
                           "import_limit_mw = 1.0; };");
        assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
        assert_int_equal(climate_load_for_scenario(s, &z, &n, &err), SIM_OK);
        assert_int_equal(n, 3);
        assert_close(z[1].h[4000].t_db_c, y->h[4000].t_db_c + 3.0, 1e-9);
        climate_year_free(z);
        scenario_free(s);
        p = write_scenario("multi2.cfg",
                           "hourly_csv = [ \"multi.csv\", \"y21.csv\" ];",
                           "solar = { capacity_mw = 5.0; }; grid = { "
                           "import_limit_mw = 1.0; };");
        assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
        assert_int_equal(climate_load_for_scenario(s, &z, &n, &err), SIM_OK);
        assert_int_equal(n, 4);
        assert_close(z[3].h[4000].ghi_w_m2 + 1, 1.1 * y->h[4000].ghi_w_m2 + 1,
                     1e-9);
        climate_year_free(z);
        scenario_free(s);
        p = write_scenario("gap.cfg", "hourly_csv = \"gap.csv\";",
                           "grid = { import_limit_mw = 1.0; };");
        assert_int_equal(scenario_load(p, cat, NULL, 0, &s, &err), SIM_OK);
        z = y;
        assert_int_equal(climate_load_for_scenario(s, &z, &n, &err),
                         SIM_ECONFIG);
        assert_null(z);
        assert_int_equal(n, 0);
        scenario_free(s);
        catalog_free(cat);
    }
    /* run: 12 replications of a 20-day solar site draw the three years;
     * each replication's generation is one of three values, at least two
     * appear, and a rerun gives the same bytes. */
    {
        const char *p = tmp("multi-run.cfg");
        FILE *f = fopen(p, "w");
        runcase_in in;
        runcase_out a, b;
        double seen[3];
        int n_seen = 0;
        assert_non_null(f);
        fprintf(f, "site = { name = \"CSV site\"; latitude_deg = 36.08; "
                   "longitude_deg = -115.15;\n  elevation_m = 648.0; "
                   "utc_offset_h = -8.0;\n  climate = { hourly_csv = "
                   "\"multi.csv\"; }; };\n"
                   "simulation = { start_date = \"2027-06-01\"; horizon_days "
                   "= 20.0; seed = 5; replications = 12; };\n"
                   "modules = ( { name = \"a\"; type = \"spark-air\"; count "
                   "= 1; hosts = \"hgx-b300\"; } );\n"
                   "energy = { grid = { import_limit_mw = 1000.0; }; solar = "
                   "{ capacity_mw = 5.0; }; };\n");
        fclose(f);
        memset(&in, 0, sizeof in);
        in.scenario_path = p;
        assert_int_equal(runcase_run(&in, &a, &err), SIM_OK);
        assert_int_equal(runcase_run(&in, &b, &err), SIM_OK);
        assert_int_equal(a.n_wx, 3);
        for (size_t r = 0; r < a.n_reps; r++) {
            double x = a.reps[r].site.solar_energy_j;
            int k;
            assert_true(x > 0 && x == b.reps[r].site.solar_energy_j);
            for (k = 0; k < n_seen && seen[k] != x; k++)
                ;
            if (k == n_seen) {
                assert_true(n_seen < 3);
                seen[n_seen++] = x;
            }
        }
        assert_true(n_seen >= 2);
        runcase_out_free(&a);
        runcase_out_free(&b);
    }
    climate_year_free(y);
    climate_year_free(y2);
    climate_year_free(y3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_epw_round_trip_matches_hour_for_hour),
        cmocka_unit_test(test_profile_timestamps_drop_feb_29),
        cmocka_unit_test(test_profile_ghi_alone_is_split_by_erbs),
        cmocka_unit_test(test_profile_defaults_dew_wind_pressure),
        cmocka_unit_test(test_profile_errors_name_file_and_line),
        cmocka_unit_test(test_profile_errors_in_full_year_files),
        cmocka_unit_test(test_profile_climate_load_for_scenario),
        cmocka_unit_test(test_profile_multi_year_csv_is_split_into_years),
    };
    return cmocka_run_group_tests_name("profile", tests, setup, teardown);
}
