/* tests/test_site_power_scn.c: a resolved scenario mapped onto the power
 * model (models/site_power_scn.h): modules per group with their
 * commissioning, the battery's usable energy, the solar plant, the shortage
 * policy, firm hydro and availability, the SOH draw, the diurnal range, and
 * a weather file that must be loaded. Uses the example scenarios. */
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
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/scenario.h"
#include "models/site_power_scn.h"
#include "power_testutil.h"

#define NEVADA "scenarios/nevada-solar.cfg"
#define NORWAY "scenarios/norway-hydro.cfg"
#define ICELAND "scenarios/iceland-geothermal.cfg"

/* Loads path with overrides (NULL-terminated) and maps it (normals only). */
static site_power *load(const char *path, const char *const *sets,
                        scenario **sc)
{
    catalog *cat = NULL;
    scenario *s = NULL;
    site_power *sp = NULL;
    sim_err err;
    size_t n = 0;
    while (sets && sets[n])
        n++;
    assert_int_equal(catalog_load(NULL, &cat, &err), SIM_OK);
    if (scenario_load(path, cat, sets, n, &s, &err) != SIM_OK)
        fail_msg("%s: %s", path, err.msg);
    catalog_free(cat);
    if (site_power_from_scenario(s, NULL, s->sim.seed, 0, 0, &sp, &err) !=
        SIM_OK)
        fail_msg("%s: %s", path, err.msg);
    *sc = s;
    return sp;
}

static void test_site_power_scn_nevada_modules_battery_solar(void **state)
{
    (void)state;
    scenario *s;
    site_power *sp = load(NEVADA, NULL, &s);
    const site_power_totals *t = site_power_get_totals(sp);

    /* One power module per module group, each with its systems' nominal
     * training power: count x units x 8 GPUs at 0.90 TDP. */
    for (size_t g = 0; g < s->n_modules; g++) {
        const scen_module *m = &s->modules[g];
        load_demand d;
        site_power_module_nominal(sp, g, &d);
        assert_close(d.gpu_w,
                     (double)m->count * m->units * m->system->gpus *
                         m->gpu->tdp_w * 0.9,
                     1e-3);
        assert_true(d.gpu_w + d.other_w <= m->it_capacity_w);
    }
    /* spark-b (2 modules) comes online on 2027-04-01, 31 days in. */
    assert_true(site_power_module_base_it_w(sp, 0, 0, 0) > 0);
    assert_true(site_power_module_base_it_w(sp, 1, 0, 0) == 0);
    assert_true(site_power_module_base_it_w(sp, 1, 31 * 86400.0, 0) > 0);
    assert_true(site_power_module_base_it_w(sp, 2, 31 * 86400.0, 0) ==
                0); /* no 3rd group */

    /* Battery: 805 packs whose usable energy at commissioning averages the
     * scenario's 63 MWh (the mean of 805 draws: sd 0.25%). */
    assert_int_equal(site_power_n_batteries(sp), 1);
    const battery *b = site_power_battery(sp, 0);
    assert_int_equal(battery_n_packs(b), 805);
    assert_close(battery_capacity_j(b), 63 * 3.6e9, 0.01);
    assert_close(battery_soc(b), 0.5, 1e-12);
    assert_within(t->battery_soh0, 0.69, 0.71);
    /* Solar: 30 MWdc at DC/AC 1.34. */
    assert_close(t->solar_p_dc0_w, 30e6, 1e-12);
    assert_close(t->solar_p_ac0_w, 30e6 / 1.34, 1e-12);
    assert_int_equal(site_power_n_sources(sp), 0); /* off-grid */
    assert_close(site_power_step_s(sp), 900, 1e-12);
    site_power_free(sp);
    scenario_free(s);
}

/* At midnight on Mar 1 (no sun) with a battery limited to power_mw, the
 * six spark-a modules at nominal load are short; returns the step. */
static void short_step(const char *policy, const char *power_mw, size_t *thr,
                       size_t *pau, size_t *shed)
{
    char pol[64], pw[64];
    snprintf(pol, sizeof pol, "policy.shortage=\"%s\"", policy);
    /* The bundled scenario sizes its 63 MWh battery by duration_h (power_mw
     * and duration_h are exclusive), so the power is set through it. */
    snprintf(pw, sizeof pw, "energy.battery.duration_h=%.17g",
             63.0 / strtod(power_mw, NULL));
    const char *sets[] = {pol, pw, NULL};
    scenario *s;
    site_power *sp = load(NEVADA, sets, &s);
    load_demand d;
    dispatch_job j[6];
    double base[2];
    const dispatch_out *o;
    sim_err err;
    site_power_module_nominal(sp, 0, &d);
    for (int k = 0; k < 6; k++)
        j[k] = (dispatch_job){
            0, d.gpu_w / 6, d.other_w / 6, d.idle_w / 6, d.gpu_frac_tdp, 0};
    base[0] = site_power_module_base_it_w(sp, 0, 0, 6 * 34);
    base[1] = 0;
    assert_int_equal(site_power_step(sp, 0, j, 6, base, &o, &err), SIM_OK);
    assert_true(o->generation_w == 0); /* no sun, no other source */
    *thr = o->n_throttled;
    *pau = o->n_paused;
    *shed = o->n_shed;
    site_power_free(sp);
    scenario_free(s);
}

static void test_site_power_scn_policy_is_mapped(void **state)
{
    (void)state;
    size_t t, p, s;
    short_step("throttle", "2.2", &t, &p, &s);
    assert_true(t == 6 && p == 0 && s == 0);
    short_step("pause", "2.2", &t, &p, &s);
    assert_true(t == 0 && p > 0 && p < 6 && s == 0);
    short_step("shed", "2.2", &t, &p, &s);
    assert_true(t == 0 && p == 0 && s > 0 && s < 6);
}

static void test_site_power_scn_hydro_is_firm_with_monthly_cf(void **state)
{
    (void)state;
    scenario *s;
    site_power *sp = load(NORWAY, NULL, &s);
    assert_int_equal(site_power_n_sources(sp), 2); /* hydro, grid */
    supply *h = site_power_supply(sp, 0);
    assert_int_equal(h->c.kind, SRC_HYDRO);
    double june = 152 * 24 + 12, jan = 100;
    assert_close(supply_available_w(h, june, 900), 16e6, 1e-12);
    /* A contracted MW is firm: a month of full output leaves it available
     * (no Norwegian-fleet capacity-factor budget). */
    supply_deliver(h, june, 16e6 * 29 * 86400.0);
    assert_close(supply_available_w(h, june + 24 * 29 - 12, 900), 16e6, 1e-12);
    assert_close(supply_available_w(h, jan, 900), 0.84 * 16e6, 1e-12);
    assert_close(site_power_supply(sp, 1)->c.capacity_w, 4e6, 1e-12);
    assert_close(site_power_supply(sp, 1)->c.carbon_g_per_j, 30.0 / 3.6e6,
                 1e-12);
    site_power_free(sp);
    scenario_free(s);

    /* availability below the outages' MTBF / (MTBF + MTTR) = 0.95 is a
     * derate while up. */
    const char *sets[] = {"energy.hydro.availability=0.5", NULL};
    sp = load(NORWAY, sets, &s);
    h = site_power_supply(sp, 0);
    assert_close(h->c.derate, 0.5 / 0.95, 1e-12);
    assert_close(supply_available_w(h, june, 900), 16e6 * 0.5 / 0.95, 1e-12);
    site_power_free(sp);
    scenario_free(s);
}

static void test_site_power_scn_geothermal_outages(void **state)
{
    (void)state;
    scenario *s;
    site_power *sp = load(ICELAND, NULL, &s);
    supply *g = site_power_supply(sp, 0);
    assert_int_equal(g->c.kind, SRC_GEOTHERMAL);
    assert_close(g->c.mtbf_s, 728 * 3600.0, 1e-12);
    assert_close(g->c.mttr_s, 72 * 3600.0, 1e-12);
    assert_close(g->c.derate, 1.0, 1e-12); /* 0.91 = 728 / 800 */
    assert_close(g->c.carbon_g_per_j, 38.0 / 3.6e6, 1e-12);
    site_power_free(sp);
    scenario_free(s);
}

static void test_site_power_scn_uniform_soh(void **state)
{
    (void)state;
    const char *sets[] = {"energy.battery.soh_dist=\"uniform\"",
                          "energy.battery.soh_min=0.6",
                          "energy.battery.soh_max=0.8", NULL};
    scenario *s;
    site_power *sp = load(NEVADA, sets, &s);
    const battery *b = site_power_battery(sp, 0);
    double sum = 0, sq = 0, n = (double)battery_n_packs(b);
    for (size_t i = 0; i < battery_n_packs(b); i++) {
        double x = battery_pack_soh(b, i);
        assert_within(x, 0.6, 0.8);
        sum += x;
        sq += x * x;
    }
    double mean = sum / n, sd = sqrt(sq / n - mean * mean);
    /* U(0.6, 0.8): sd 0.0577 (a clipped N(0.7, 0.05) would give < 0.05). */
    assert_within(sd, 0.053, 0.062);
    assert_within(mean, 0.69, 0.71);
    assert_close(battery_capacity_j(b), 63 * 3.6e9, 0.015);
    site_power_free(sp);
    scenario_free(s);
}

/* Mean daily max - min of the synthetic weather over 360 days. */
static double mean_daily_range(site_power *sp)
{
    double sum = 0;
    for (int d = 0; d < 360; d++) {
        double lo = 1e9, hi = -1e9;
        for (int h = 0; h < 24; h++) {
            double t = site_power_weather(sp, (d * 24 + h) * 3600.0)->t_db_c;
            lo = fmin(lo, t);
            hi = fmax(hi, t);
        }
        sum += hi - lo;
    }
    return sum / 360;
}

static void test_site_power_scn_diurnal_range_override(void **state)
{
    (void)state;
    const char *sets[] = {"site.climate.diurnal_range_k=24", NULL};
    scenario *s, *s2;
    site_power *sp = load(NEVADA, NULL, &s), *sp2 = load(NEVADA, sets, &s2);
    double r0 = mean_daily_range(sp), r1 = mean_daily_range(sp2);
    const climate_monthly *lv = climate_builtin("las-vegas");
    double m = 0;
    for (int k = 0; k < 12; k++)
        m += lv->t_range_k[k] / 12;
    assert_close(r1 / r0, 24.0 / m, 0.03);
    site_power_free(sp);
    site_power_free(sp2);
    scenario_free(s);
    scenario_free(s2);
}

static void test_site_power_scn_weather_file_must_be_loaded(void **state)
{
    (void)state;
    char dir[] = "/tmp/fs-scn-XXXXXX", path[64], csv[64];
    catalog *cat = NULL;
    scenario *s = NULL;
    site_power *sp = NULL;
    sim_err err;
    FILE *f;
    assert_non_null(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/w.csv", dir);
    snprintf(path, sizeof path, "%s/s.cfg", dir);
    f = fopen(csv, "w");
    assert_non_null(f);
    fclose(f);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(
        "site = { name = \"x\"; latitude_deg = 36.0; longitude_deg = -115.0;\n"
        "  climate = { hourly_csv = \"w.csv\"; }; };\n"
        "simulation = { start_date = \"2027-01-01\"; horizon_days = 1.0; };\n"
        "modules = ( { name = \"a\"; type = \"spark-air\"; } );\n"
        "energy = { grid = { import_limit_mw = 1.0; }; };\n",
        f);
    fclose(f);
    assert_int_equal(catalog_load(NULL, &cat, &err), SIM_OK);
    assert_int_equal(scenario_load(path, cat, NULL, 0, &s, &err), SIM_OK);
    assert_int_equal(site_power_from_scenario(s, NULL, 1, 0, 0, &sp, &err),
                     SIM_EINVAL);
    assert_null(sp);
    assert_non_null(strstr(err.msg, "was not loaded"));
    scenario_free(s);
    catalog_free(cat);
    remove(csv);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_site_power_scn_nevada_modules_battery_solar),
        cmocka_unit_test(test_site_power_scn_policy_is_mapped),
        cmocka_unit_test(test_site_power_scn_hydro_is_firm_with_monthly_cf),
        cmocka_unit_test(test_site_power_scn_geothermal_outages),
        cmocka_unit_test(test_site_power_scn_uniform_soh),
        cmocka_unit_test(test_site_power_scn_diurnal_range_override),
        cmocka_unit_test(test_site_power_scn_weather_file_must_be_loaded),
    };
    return cmocka_run_group_tests_name("site_power_scn", tests, NULL, NULL);
}
