/* tests/test_power_keys.c: issue 20's assumptions as scenario keys (the
 * `power` group and modules.[].cooling_*; models/scenkeys.c). Each key is
 * moved away from its default on a real scenario and the result must move
 * the way the physics says: GPU power by step phase changes a job's energy
 * and never its time; a phase the step does not have changes nothing; the
 * fixed part of the cooling overhead raises PUE where modules run below
 * design load; water scales with its WUE and falls with a higher
 * evaporation threshold; the cap curve's shape moves throttled throughput.
 * The keys' extremes are walked by tests/test_scenkeys.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/load.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

static test_world W;

/* Two Spark Air modules (544 GPUs) and a 384-GPU job spanning both over a
 * link thinned to an eighth, so its data-parallel communication is exposed
 * (tests/test_site.c uses the same cut for the same reason). */
#define SCN "tests/data/run/two-groups.cfg"
#define THIN "fabric.links.[0].bandwidth_gbps=6400.0"

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

/* One replication of SCN with the thin link and up to two more --set. */
static res_rep *run_with(const char *set1, const char *set2)
{
    const char *sets[3] = {THIN, set1, set2};
    size_t n = 1 + (set1 ? 1u : 0u) + (set2 ? 1u : 0u);
    scenario *s = load_scn(&W, SCN, sets, n);
    res_rep *r = run_reps(&W, s, 1, 0, 0);
    scenario_free(s);
    return r;
}

/* Exposed communication at a higher fraction of TDP: the job draws more,
 * takes exactly as long (power does not feed back into the step time
 * without a shortage: 100 MW of grid). */
static void test_power_comm_frac_raises_energy_not_time(void **state)
{
    res_rep *a = run_with(NULL, NULL);
    res_rep *b = run_with("power.gpu_comm_frac=0.5", NULL);
    (void)state;
    assert_true(a[0].jobs[0].run_time_s > 0);
    assert_true(a[0].jobs[0].run_time_s == b[0].jobs[0].run_time_s);
    assert_true(b[0].jobs[0].gpu_energy_j > a[0].jobs[0].gpu_energy_j * 1.01);
    assert_true(b[0].jobs[0].it_energy_j > a[0].jobs[0].it_energy_j);
    /* Only the GPUs' share moved: the non-GPU part is the same. */
    assert_close(b[0].jobs[0].it_energy_j - b[0].jobs[0].gpu_energy_j,
                 a[0].jobs[0].it_energy_j - a[0].jobs[0].gpu_energy_j, 1e-9);
    free_reps(a, 1);
    free_reps(b, 1);
}

/* The compute level by format: this job runs BF16, so its key raises the
 * energy and the FP8 key leaves every byte of the job's energy alone; the
 * bubble key does nothing to a job without pipeline stages (pp = 1). */
static void test_power_fraction_follows_the_step_phases(void **state)
{
    res_rep *a = run_with(NULL, NULL);
    res_rep *bf = run_with("power.gpu_compute_frac_bf16=1.0", NULL);
    res_rep *f8 = run_with("power.gpu_compute_frac_fp8=0.5", NULL);
    res_rep *bu = run_with("power.gpu_bubble_frac=0.9", NULL);
    (void)state;
    assert_true(bf[0].jobs[0].gpu_energy_j > a[0].jobs[0].gpu_energy_j);
    assert_true(bf[0].jobs[0].run_time_s == a[0].jobs[0].run_time_s);
    assert_true(f8[0].jobs[0].gpu_energy_j == a[0].jobs[0].gpu_energy_j);
    assert_true(bu[0].jobs[0].gpu_energy_j == a[0].jobs[0].gpu_energy_j);
    free_reps(a, 1);
    free_reps(bf, 1);
    free_reps(f8, 1);
    free_reps(bu, 1);
}

/* Idle GPUs and the module overhead are site IT outside the job: 160 of
 * the 544 GPUs never train, and the site idles after the job. */
static void test_power_idle_and_overhead_raise_site_it(void **state)
{
    res_rep *a = run_with(NULL, NULL);
    res_rep *id = run_with("power.gpu_idle_frac=0.3", NULL);
    res_rep *ov = run_with("power.module_overhead_frac=0.16", NULL);
    (void)state;
    assert_true(id[0].site.it_energy_j > a[0].site.it_energy_j);
    assert_true(ov[0].site.it_energy_j > a[0].site.it_energy_j);
    assert_true(id[0].jobs[0].run_time_s == a[0].jobs[0].run_time_s);
    free_reps(a, 1);
    free_reps(id, 1);
    free_reps(ov, 1);
}

/* The fixed part of the cooling overhead is paid whatever the load: the
 * site runs below design load (the second module commissions on day 10,
 * a third of the GPUs never train, the job ends before the horizon), so a
 * larger fixed part raises the mean PUE; IT energy does not move. */
static void test_cooling_fixed_frac_raises_pue_at_partial_load(void **state)
{
    res_rep *a = run_with(NULL, NULL);
    res_rep *b = run_with("modules.[0].cooling_fixed_frac=0.08",
                          "modules.[1].cooling_fixed_frac=0.08");
    res_rep *z = run_with("modules.[0].cooling_fixed_frac=0",
                          "modules.[1].cooling_fixed_frac=0");
    (void)state;
    assert_true(a[0].site.it_energy_j == b[0].site.it_energy_j);
    assert_true(b[0].site.pue_mean > a[0].site.pue_mean + 0.01);
    assert_true(z[0].site.pue_mean < a[0].site.pue_mean);
    free_reps(a, 1);
    free_reps(b, 1);
    free_reps(z, 1);
}

/* Water = WUE x IT energy in the hours above the threshold: doubling the
 * evaporative WUE doubles it (the air design's dry WUE is 0); a threshold
 * above every Las Vegas summer hour leaves only the dry part; a dry WUE
 * adds water in every hour. */
static void test_cooling_water_keys(void **state)
{
    res_rep *a = run_with(NULL, NULL);
    res_rep *d = run_with("modules.[0].cooling_wue_evap_l_per_kwh=5.44",
                          "modules.[1].cooling_wue_evap_l_per_kwh=5.44");
    res_rep *t = run_with("modules.[0].cooling_evap_threshold_c=60",
                          "modules.[1].cooling_evap_threshold_c=60");
    res_rep *y = run_with("modules.[0].cooling_wue_dry_l_per_kwh=0.1", NULL);
    (void)state;
    assert_true(a[0].site.water_m3 > 0);
    assert_close(d[0].site.water_m3, 2 * a[0].site.water_m3, 1e-9);
    assert_true(t[0].site.water_m3 == 0);
    assert_true(y[0].site.water_m3 > a[0].site.water_m3);
    free_reps(a, 1);
    free_reps(d, 1);
    free_reps(t, 1);
    free_reps(y, 1);
}

/* The design-specific assumptions: an adiabatic assist that fails at a
 * lower wet bulb, and trim chillers with a worse COP on the liquid design,
 * each raise the PUE of a Las Vegas summer (its hottest afternoons pass
 * 35 C dry bulb, where the liquid design's dry cooler needs help). */
static void test_cooling_design_keys_raise_hot_pue(void **state)
{
    res_rep *ad = run_with("modules.[0].cooling=\"adiabatic\"", NULL);
    res_rep *adl = run_with("modules.[0].cooling=\"adiabatic\"",
                            "modules.[0].cooling_adiabatic_wb_limit_c=10");
    res_rep *lq = run_with("modules.[0].cooling=\"liquid-dry-cooler\"", NULL);
    res_rep *lqc = run_with("modules.[0].cooling=\"liquid-dry-cooler\"",
                            "modules.[0].cooling_chiller_cop=1");
    (void)state;
    assert_true(adl[0].site.pue_mean > ad[0].site.pue_mean + 0.01);
    assert_true(lqc[0].site.pue_mean > lq[0].site.pue_mean);
    assert_true(lqc[0].site.it_energy_j == lq[0].site.it_energy_j);
    free_reps(ad, 1);
    free_reps(adl, 1);
    free_reps(lq, 1);
    free_reps(lqc, 1);
}

/* The cap curve: the defaults are the Zeus table bit for bit (so default
 * runs keep their bytes); a later knee loses throughput sooner; a higher
 * floor throughput gains everywhere below the knee; the floor moves with
 * min_cap_frac; every curve is non-decreasing. */
static void test_cap_curve_shape(void **state)
{
    load_cap_curve d, late, high, low;
    (void)state;
    load_cap_curve_default(&d);
    late = high = low = d;
    late.knee_x = 1.0;
    high.r_min = 0.6;
    low.min_x = 0.3;
    for (double x = 0; x <= 1.1; x += 0.005) {
        assert_true(load_cap_throughput_c(&d, x) == load_cap_throughput(x));
        assert_true(load_cap_throughput_c(NULL, x) == load_cap_throughput(x));
        assert_true(load_cap_throughput_c(&late, x) <=
                    load_cap_throughput(x) + 1e-15);
        assert_true(load_cap_throughput_c(&high, x) >=
                    load_cap_throughput(x) - 1e-15);
        assert_true(load_cap_throughput_c(&late, x + 0.005) >=
                    load_cap_throughput_c(&late, x));
        assert_true(load_cap_throughput_c(&low, x + 0.005) >=
                    load_cap_throughput_c(&low, x));
    }
    assert_true(load_cap_throughput_c(&late, 0.95) < 1.0);
    assert_close(load_cap_throughput_c(&high, 0.42), 0.6, 1e-12);
    assert_close(load_cap_throughput_c(&low, 0.3), 0.38, 1e-12);
    assert_true(load_throttle_throughput_c(&late, 0.8, 0.9) <
                load_throttle_throughput(0.8, 0.9));
    assert_int_equal(load_cap_curve_check(&d, NULL), SIM_OK);
    low.min_x = 0.95;
    assert_int_equal(load_cap_curve_check(&low, NULL), SIM_EINVAL);
}

/* Rules between keys, refused at load time naming the key (check and run
 * share the loader). */
static void test_power_key_rules_refused(void **state)
{
    static const struct {
        const char *set1, *set2, *want;
    } bad[] = {
        {"power.gpu_idle_frac=0.5", "power.gpu_compute_frac_bf16=0.4",
         "power.gpu_idle_frac: above the BF16 compute level"},
        {"power.cap_curve.min_cap_frac=0.8",
         "power.cap_curve.knee_cap_frac=0.7",
         "power.cap_curve.min_cap_frac: not below the knee"},
        {"power.gpu_comm_frac=0", NULL, "power.gpu_comm_frac"},
        {"modules.[0].cooling_fixed_frac=0.2", NULL,
         "modules.[0].cooling_fixed_frac"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *sets[2] = {bad[i].set1, bad[i].set2};
        scenario *s = NULL;
        sim_err e;
        char buf[2400];
        assert_int_not_equal(
            scenario_load(SCN, W.cat, sets, bad[i].set2 ? 2 : 1, &s, &e),
            SIM_OK);
        sim_err_format(&e, buf, sizeof buf);
        if (!strstr(buf, bad[i].want))
            fail_msg("%s: got \"%s\", expected \"%s\"", bad[i].set1, buf,
                     bad[i].want);
        assert_null(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_comm_frac_raises_energy_not_time),
        cmocka_unit_test(test_power_fraction_follows_the_step_phases),
        cmocka_unit_test(test_power_idle_and_overhead_raise_site_it),
        cmocka_unit_test(test_cooling_fixed_frac_raises_pue_at_partial_load),
        cmocka_unit_test(test_cooling_water_keys),
        cmocka_unit_test(test_cooling_design_keys_raise_hot_pue),
        cmocka_unit_test(test_cap_curve_shape),
        cmocka_unit_test(test_power_key_rules_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
