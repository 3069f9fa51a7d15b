/* tests/test_power_cmd.c: `factorysim power` end to end: every example
 * scenario runs and its totals close (supply = load + stored + curtailed +
 * losses, and the bus form, to 1e-9), the JSON parses, the steps CSV sums
 * to the totals, a bad --set names its key with exit 1, output is
 * reproducible, a year of the Las Vegas EPW gives a Nevada capacity factor,
 * and an hourly CSV made from that file gives the same year.
 * The JSON is parsed with jansson (a test-only use: the project's own
 * code reaches jansson through io/json.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "io/epw.h"
#include "power_testutil.h"

#define LV "data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw"
#define OUT_N (1 << 16)

static char tmpdir[64];
static char out[OUT_N], errbuf[8192];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fs-power-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs `power ARGS --format json` and returns the parsed totals object
 * (*root OUT, caller json_decref's). */
static json_t *run_json(const char *args, json_t **root)
{
    char cmd[4096];
    json_error_t je;
    snprintf(cmd, sizeof cmd, "power %s --format json", args);
    int st = fs_run(cmd, out, sizeof out, errbuf, sizeof errbuf);
    if (st != 0)
        fail_msg("power %s: exit %d: %s", args, st, errbuf);
    *root = json_loads(out, 0, &je);
    if (!*root)
        fail_msg("power %s: JSON does not parse: %s (line %d)", args, je.text,
                 je.line);
    json_t *t = json_object_get(*root, "totals");
    assert_non_null(t);
    return t;
}

static double num(json_t *t, const char *key)
{
    json_t *v = json_object_get(t, key);
    if (!v)
        fail_msg("no key %s", key);
    if (json_is_null(v))
        return NAN;
    return json_number_value(v);
}

static void check_totals(const char *what, json_t *t)
{
    double gen = num(t, "solar_mwh") + num(t, "wind_mwh") +
                 num(t, "geothermal_mwh") + num(t, "hydro_mwh") +
                 num(t, "grid_mwh");
    double supply = gen + num(t, "battery_withdrawn_mwh");
    double sinks = num(t, "facility_mwh") + num(t, "battery_stored_mwh") +
                   num(t, "curtailed_mwh") + num(t, "battery_loss_mwh");
    (void)what;
    assert_true(num(t, "facility_mwh") > 0);
    assert_close(supply, sinks, 1e-9);
    assert_close(num(t, "supply_mwh"), supply, 1e-12);
    /* Bus form: generation + discharge = load + charge + curtailed. */
    assert_close(gen + num(t, "battery_discharge_mwh"),
                 num(t, "facility_mwh") + num(t, "battery_charge_mwh") +
                     num(t, "curtailed_mwh"),
                 1e-9);
    /* Losses are what conversion takes on both sides. */
    assert_close(num(t, "battery_loss_mwh") + 1,
                 num(t, "battery_charge_mwh") - num(t, "battery_stored_mwh") +
                     num(t, "battery_withdrawn_mwh") -
                     num(t, "battery_discharge_mwh") + 1,
                 1e-9);
    assert_true(num(t, "balance_worst_step_rel") <= 1e-9);
    assert_true(num(t, "facility_mwh") <= num(t, "demand_mwh") * (1 + 1e-12));
    /* Mean of a constant PUE may round a hair below the min. */
    assert_true(num(t, "pue_min") >= 1.0 &&
                num(t, "pue_min") <= num(t, "pue_mean") * (1 + 1e-12) &&
                num(t, "pue_mean") <= num(t, "pue_max") * (1 + 1e-12));
    assert_close(num(t, "pue_mean"), num(t, "facility_mwh") / num(t, "it_mwh"),
                 1e-12);
    assert_within(num(t, "renewable_fraction"), 0, 1 + 1e-12);
    assert_true(num(t, "ambient_min_c") <= num(t, "ambient_max_c"));
    assert_true(num(t, "shortfall_mwh") >= 0 &&
                num(t, "time_short_hours") >= num(t, "time_unserved_hours"));
}

static void test_power_cmd_example_scenarios_close_their_balance(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("scenarios/*.cfg", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 4);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        json_t *root, *t = run_json(g.gl_pathv[i], &root);
        check_totals(g.gl_pathv[i], t);
        double days = json_number_value(json_object_get(root, "horizon_days"));
        double step = json_number_value(json_object_get(root, "step_min"));
        assert_int_equal(json_integer_value(json_object_get(root, "steps")),
                         (json_int_t)(days * 1440 / step + 0.5));
        json_decref(root);
    }
    globfree(&g);
}

static void test_power_cmd_nevada_figures(void **state)
{
    (void)state;
    json_t *root, *t = run_json("scenarios/nevada-solar.cfg", &root);
    /* Off-grid: no grid, a solar plant whose spring-summer AC factor is
     * above the annual 28-32 %, batteries that cycle about daily. */
    assert_true(num(t, "grid_mwh") == 0);
    assert_within(num(t, "solar_capacity_factor"), 0.30, 0.45);
    assert_within(num(t, "battery_cycles"), 60, 180);
    assert_true(num(t, "battery_soh_final") < num(t, "battery_soh_initial"));
    assert_within(num(t, "pue_max"), 1.09, 1.40);
    /* Cooling water: air-economizer modules in Las Vegas, between the dry
     * cooler's 0.05 and the evaporative 2.72 L per kWh of IT. */
    assert_within(num(t, "water_m3"), 0.05e-3 * num(t, "it_mwh") * 1e3,
                  2.72e-3 * num(t, "it_mwh") * 1e3);
    assert_within(num(t, "renewable_fraction"), 0.95, 1.0);
    json_decref(root);
    /* Norway on hydro: 100 % renewable, 24 g/kWh. */
    t = run_json("scenarios/norway-hydro.cfg", &root);
    assert_close(num(t, "carbon_g_per_kwh"), 24.0, 1e-9);
    assert_close(num(t, "renewable_fraction"), 1.0, 1e-12);
    assert_true(json_is_null(json_object_get(t, "solar_capacity_factor")));
    assert_true(json_is_null(json_object_get(t, "battery_cycles")));
    json_decref(root);
}

/* Issue 20: the battery enclosure. On the Las Vegas year (March to
 * August), the default ambient-rise enclosure wears the packs faster than
 * an HVAC one held at 25 C, and the HVAC's electricity is part of the
 * facility load the site serves (the balance still closes). */
static void test_power_cmd_battery_enclosure_hvac_paid(void **state)
{
    (void)state;
    json_t *ra, *rh;
    json_t *a = run_json("scenarios/nevada-solar-tmy.cfg", &ra);
    json_t *h = run_json("scenarios/nevada-solar-tmy.cfg --set "
                         "'energy.battery.thermal.mode=\"hvac\"'",
                         &rh);
    check_totals("ambient-rise", a);
    check_totals("hvac", h);
    assert_true(num(a, "battery_hvac_mwh") == 0);
    assert_true(num(h, "battery_hvac_mwh") > 0);
    assert_true(num(a, "battery_soh_final") <
                num(h, "battery_soh_final") - 0.01);
    /* The HVAC energy is facility load, not IT: the facility energy grows
     * by at least the part of it that was served. */
    assert_true(num(h, "facility_mwh") - num(a, "facility_mwh") >
                0.9 * num(h, "battery_hvac_mwh"));
    assert_true(num(h, "battery_hvac_mwh") <= num(h, "facility_mwh"));
    json_decref(ra);
    json_decref(rh);
}

/* Column c of a CSV line (0-based), as a number. */
static double csv_col(const char *line, int c)
{
    const char *p = line;
    for (int i = 0; i < c && p; i++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return p ? atof(p) : (double)NAN;
}

/* Index of name in the header line, or -1. */
static int csv_head(const char *line, const char *name)
{
    char buf[1024], *tok, *save = NULL;
    int i = 0;
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "\r\n")] = '\0';
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), i++)
        if (strcmp(tok, name) == 0)
            return i;
    return -1;
}

/* The steps CSV sums to the totals; its generation columns come from the
 * source registry, wind included (norway-hydro with 10 MW of wind). */
static void test_power_cmd_steps_csv_sums_to_totals(void **state)
{
    (void)state;
    char args[512], path[128], line[1024];
    snprintf(path, sizeof path, "%s/steps.csv", tmpdir);
    snprintf(args, sizeof args,
             "scenarios/norway-hydro.cfg --set energy.wind.capacity_mw=10 "
             "--steps %s",
             path);
    json_t *root, *t = run_json(args, &root);
    FILE *f = fopen(path, "r");
    int c_fac, c_hydro, c_wind;
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(
        strstr(line, "t_h,t_db_c,t_wb_c,pue,demand_kw,it_kw,facility_kw,"));
    assert_non_null(strstr(line, ",solar_kw,wind_kw,geothermal_kw,hydro_kw,"
                                 "grid_kw,discharge_kw,"));
    c_fac = csv_head(line, "facility_kw");
    c_hydro = csv_head(line, "hydro_kw");
    c_wind = csv_head(line, "wind_kw");
    assert_true(c_fac >= 0 && c_hydro >= 0 && c_wind >= 0);
    double fac_kwh = 0, hydro_kwh = 0, wind_kwh = 0;
    long rows = 0;
    while (fgets(line, sizeof line, f)) {
        assert_close(csv_col(line, 0), (double)rows * 0.25, 1e-9);
        fac_kwh += csv_col(line, c_fac) * 0.25;
        hydro_kwh += csv_col(line, c_hydro) * 0.25;
        wind_kwh += csv_col(line, c_wind) * 0.25;
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 150 * 96);
    assert_close(fac_kwh / 1e3, num(t, "facility_mwh"), 1e-8);
    assert_close(hydro_kwh / 1e3, num(t, "hydro_mwh"), 1e-8);
    assert_true(num(t, "wind_mwh") > 0);
    assert_close(wind_kwh / 1e3, num(t, "wind_mwh"), 1e-8);
    /* Capacity factor: generation before curtailment over nameplate x
     * hours (10 MW, 150 days). */
    assert_close(num(t, "wind_capacity_factor"),
                 num(t, "wind_mwh") / (10.0 * 150 * 24), 1e-9);
    json_decref(root);
}

static void test_power_cmd_bad_set_names_the_key(void **state)
{
    (void)state;
    int st = fs_run(
        "power scenarios/nevada-solar.cfg --set energy.battery.capacity_mhw=5",
        out, sizeof out, errbuf, sizeof errbuf);
    assert_int_equal(st, 1);
    assert_non_null(
        strstr(errbuf, "--set: energy.battery.capacity_mhw: unknown key"));
    assert_int_equal(out[0], '\0');
    st = fs_run(
        "power scenarios/nevada-solar.cfg --set energy.battery.power_mw=500",
        out, sizeof out, errbuf, sizeof errbuf);
    assert_int_equal(st, 1);
    assert_non_null(strstr(errbuf, "energy.battery.power_mw"));
    st = fs_run("power scenarios/nevada-solar.cfg --format yaml", out,
                sizeof out, errbuf, sizeof errbuf);
    assert_int_equal(st, 2);
    st = fs_run("power", out, sizeof out, errbuf, sizeof errbuf);
    assert_int_equal(st, 2);
    st = fs_run("power tests/data/no-such.cfg", out, sizeof out, errbuf,
                sizeof errbuf);
    assert_int_equal(st, 1);
}

static void test_power_cmd_reproducible_and_seeded(void **state)
{
    (void)state;
    static char a[OUT_N], b[OUT_N];
    const char *cmd = "power scenarios/nevada-solar.cfg --format csv";
    assert_int_equal(fs_run(cmd, a, sizeof a, NULL, 0), 0);
    assert_int_equal(fs_run(cmd, b, sizeof b, NULL, 0), 0);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "metric,value,unit\n"));
    assert_int_equal(
        fs_run("power scenarios/nevada-solar.cfg --format csv --seed 43", b,
               sizeof b, NULL, 0),
        0);
    assert_true(strcmp(a, b) != 0); /* another synthetic year */
}

/* A copy of the Nevada scenario for a full year on a weather file. */
static void year_scenario(const char *path, const char *climate)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(
        f,
        "site = { name = \"Las Vegas, NV\"; latitude_deg = 36.08; "
        "longitude_deg = -115.15;\n"
        "  elevation_m = 648.0; utc_offset_h = -8.0; climate = { %s }; };\n"
        "simulation = { start_date = \"2027-01-01\"; horizon_days = 365.0; "
        "seed = 42; };\n"
        "modules = ( { name = \"spark-a\"; type = \"spark-air\"; count = 6; "
        "hosts = \"hgx-b300\"; } );\n"
        "energy = { solar = { capacity_mw = 30.0; tracking = \"single-axis\"; "
        "};\n"
        "  battery = { capacity_mwh = 63.0; power_mw = 12.0; packs = 805; };\n"
        "  grid = { import_limit_mw = 5.0; }; };\n",
        climate);
    fclose(f);
}

static void test_power_cmd_epw_year_and_hourly_csv_agree(void **state)
{
    (void)state;
    char cwd[1024], clim[2048], p_epw[128], p_csv[128], p_prof[128], args[256];
    climate_year *y = climate_year_new();
    sim_err err;
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(epw_read(LV, y, &err), SIM_OK);
    snprintf(p_prof, sizeof p_prof, "%s/lv.csv", tmpdir);
    FILE *f = fopen(p_prof, "w");
    assert_non_null(f);
    fprintf(f, "hour,dry_bulb_c,dew_point_c,pressure_pa,ghi_w_m2,dni_w_m2,dhi_"
               "w_m2,wind_m_s\n");
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        const climate_hour *h = &y->h[i];
        fprintf(f, "%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", i,
                h->t_db_c, h->t_dp_c, h->p_pa, h->ghi_w_m2, h->dni_w_m2,
                h->dhi_w_m2, h->wind_m_s);
    }
    fclose(f);
    climate_year_free(y);

    snprintf(p_epw, sizeof p_epw, "%s/epw.cfg", tmpdir);
    snprintf(clim, sizeof clim, "epw = \"%s/%s\";", cwd, LV);
    year_scenario(p_epw, clim);
    snprintf(p_csv, sizeof p_csv, "%s/csv.cfg", tmpdir);
    year_scenario(p_csv, "hourly_csv = \"lv.csv\";");

    json_t *r1, *r2, *t1, *t2;
    snprintf(args, sizeof args, "%s", p_epw);
    t1 = run_json(args, &r1);
    snprintf(args, sizeof args, "%s", p_csv);
    t2 = run_json(args, &r2);
    check_totals("epw", t1);
    check_totals("csv", t2);
    /* A year of the Las Vegas TMY3 through single-axis PV (0.7 %/yr
     * degradation included): inside the 28-32 % of Nevada plants. */
    assert_within(num(t1, "solar_capacity_factor"), 0.28, 0.32);
    assert_string_equal(json_string_value(json_object_get(r1, "weather")),
                        "epw");
    assert_string_equal(json_string_value(json_object_get(r2, "weather")),
                        "hourly-csv");
    /* The same hours, so the same year. */
    static const char *const keys[] = {
        "solar_mwh", "grid_mwh",      "facility_mwh",   "curtailed_mwh",
        "pue_max",   "ambient_max_c", "battery_cycles", "co2_t"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        assert_close(num(t1, keys[k]), num(t2, keys[k]), 1e-9);
    json_decref(r1);
    json_decref(r2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_cmd_example_scenarios_close_their_balance),
        cmocka_unit_test(test_power_cmd_nevada_figures),
        cmocka_unit_test(test_power_cmd_battery_enclosure_hvac_paid),
        cmocka_unit_test(test_power_cmd_steps_csv_sums_to_totals),
        cmocka_unit_test(test_power_cmd_bad_set_names_the_key),
        cmocka_unit_test(test_power_cmd_reproducible_and_seeded),
        cmocka_unit_test(test_power_cmd_epw_year_and_hourly_csv_agree),
    };
    return cmocka_run_group_tests_name("power_cmd", tests, setup, teardown);
}
