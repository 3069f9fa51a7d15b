/* tests/test_run_cli.c: `factorysim run` from the command line: the JSON
 * contract of issue 6, byte-identical output for a seed, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "models/resfield.h"
#include "tests/cli_util.h"
#include "tests/testutil.h"

static char a[1 << 20], b[1 << 20], err[65536];

/* "The same seed gives byte-identical output", in every format. */
static void test_run_cli_same_seed_same_bytes(void **state)
{
    const char *fmts[] = {"json", "csv", "table"};
    (void)state;
    for (int k = 0; k < 3; k++) {
        char args[256];
        snprintf(args, sizeof args,
                 "run scenarios/nevada-solar.cfg --no-db --replications 3 "
                 "--seed 5 --format %s",
                 fmts[k]);
        assert_int_equal(fs_run(args, a, sizeof a, NULL, 0), 0);
        assert_int_equal(fs_run(args, b, sizeof b, NULL, 0), 0);
        assert_true(strlen(a) > 1000);
        assert_string_equal(a, b);
    }
    /* Another seed changes the numbers. */
    assert_int_equal(fs_run("run scenarios/nevada-solar.cfg --no-db "
                            "--replications 3 --seed 6 --format csv",
                            b, sizeof b, NULL, 0),
                     0);
    assert_int_equal(fs_run("run scenarios/nevada-solar.cfg --no-db "
                            "--replications 3 --seed 5 --format csv",
                            a, sizeof a, NULL, 0),
                     0);
    assert_true(strcmp(a, b) != 0);
}

/* The JSON object has the keys issue 6 names, with mean/p10/p50/p90/min/
 * max for each job metric, and no absolute path. */
static void test_run_cli_json_contract(void **state)
{
    const char *keys[] = {
        "\"scenario\": \"nevada-solar\"", "\"seed\": 42", "\"replications\": 2",
        "\"jobs\": [", "\"metrics\": {", "\"time_to_train_days\": {",
        "\"gpu_hours\": {", "\"it_energy_mwh\": {",
        "\"facility_energy_mwh\": {", "\"renewable_fraction\": {",
        "\"co2_t\": {", "\"cost_usd\": {", "\"interruptions\": {",
        "\"goodput\": {", "\"site\": {",
        "\"p10\":", "\"p50\":", "\"p90\":", "\"min\":", "\"max\":", "\"mean\":",
        /* issue 17: the layout each job ran with */
        "\"layout\": {", "\"recompute\": \"", "\"distributed_optimizer\": true",
        "\"etp\": 1,", /* issue 18: the dense 405B job's experts: none */
        "\"chosen\": [\n          \"vp\",\n          "
        "\"cp\","};
    (void)state;
    assert_int_equal(fs_run("run scenarios/nevada-solar.cfg --no-db "
                            "--replications 2 --format json",
                            a, sizeof a, NULL, 0),
                     0);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strstr(a, keys[k]))
            fail_msg("missing %s", keys[k]);
    assert_null(strstr(a, "/work/"));
}

/* Bad input: a missing file, a bad override, a usage error. */
static void test_run_cli_errors(void **state)
{
    (void)state;
    assert_int_equal(fs_run("run tests/data/run/no-such.cfg --no-db", a,
                            sizeof a, err, sizeof err),
                     1);
    assert_non_null(strstr(err, "factorysim: "));
    assert_int_equal(
        fs_run("run tests/data/run/grid-one-job.cfg --set jobs.[0].gpus=-3", a,
               sizeof a, err, sizeof err),
        1);
    assert_non_null(strstr(err, "jobs.[0].gpus"));
    assert_string_equal(a, "");
    assert_int_equal(fs_run("run", a, sizeof a, err, sizeof err), 2);
    assert_int_equal(
        fs_run("run tests/data/run/grid-one-job.cfg --replications 0", a,
               sizeof a, err, sizeof err),
        2);
}

/* `run --db FILE` stores every run (issue 7): the second run gets the
 * next id, and the results printed do not depend on storing. */
static void test_run_cli_stores_runs(void **state)
{
    char path[64], args[256];
    (void)state;
    snprintf(path, sizeof path, "/tmp/factorysim-run-%ld.db", (long)getpid());
    remove(path);
    snprintf(args, sizeof args,
             "run tests/data/run/grid-one-job.cfg --format csv --db %s", path);
    assert_int_equal(fs_run(args, a, sizeof a, err, sizeof err), 0);
    assert_non_null(strstr(err, "stored as run 1 in"));
    assert_int_equal(fs_run(args, b, sizeof b, err, sizeof err), 0);
    assert_non_null(strstr(err, "stored as run 2 in"));
    assert_string_equal(a, b);
    assert_int_equal(
        fs_run("run tests/data/run/grid-one-job.cfg --format csv --no-db", b,
               sizeof b, NULL, 0),
        0);
    assert_string_equal(a, b);
    /* A database path in a folder that cannot be created. */
    assert_int_equal(
        fs_run("run tests/data/run/grid-one-job.cfg --db /proc/nope/x.db", a,
               sizeof a, err, sizeof err),
        1);
    assert_non_null(strstr(err, "factorysim: /proc/nope/x.db"));
    assert_string_equal(a, "");
    remove(path);
    snprintf(args, sizeof args, "%s-wal", path);
    remove(args);
    snprintf(args, sizeof args, "%s-shm", path);
    remove(args);
}

/* The run header gives solar capacity as DC (capacity_mw as written) and
 * as AC (the inverter limit, DC / dc_ac_ratio), in the table and JSON. */
/* The run table shows every run-output field of models/resfield.c under its
 * label, in its display unit, and the JSON names it by its display name:
 * the table, the JSON and the unit column come from the one field table. */
static void test_run_cli_every_field_in_its_display_unit(void **state)
{
    (void)state;
    assert_int_equal(fs_run("run tests/data/run/solar-only.cfg --no-db "
                            "--replications 2",
                            a, sizeof a, NULL, 0),
                     0);
    for (int t = 0; t < 2; t++) {
        const resfield *fs = t ? resfield_site : resfield_job;
        size_t n = t ? resfield_n_site : resfield_n_job;
        for (size_t i = 0; i < n; i++) {
            char want[120];
            if (!(fs[i].outputs & RESFIELD_RUN))
                continue;
            snprintf(want, sizeof want, "\n  %-36s %-12s", fs[i].label,
                     fs[i].disp_unit);
            if (!strstr(a, want))
                fail_msg("run table lacks '%s' in %s", fs[i].label,
                         fs[i].disp_unit);
        }
    }
    assert_int_equal(fs_run("run tests/data/run/solar-only.cfg --no-db "
                            "--replications 2 --format json",
                            b, sizeof b, NULL, 0),
                     0);
    for (size_t i = 0; i < resfield_n_site; i++) {
        char want[120];
        snprintf(want, sizeof want, "\"%s\": {", resfield_site[i].disp_name);
        if (!strstr(b, want))
            fail_msg("run JSON lacks %s", want);
    }
}

static void test_run_cli_header_gives_solar_dc_and_ac(void **state)
{
    (void)state;
    assert_int_equal(fs_run("run tests/data/run/solar-only.cfg --no-db "
                            "--set energy.solar.capacity_mw=40 "
                            "--set energy.solar.dc_ac_ratio=1.25",
                            a, sizeof a, NULL, 0),
                     0);
    assert_non_null(strstr(a, "\nsolar 40.00 MW DC (capacity_mw as written), "
                              "32.00 MW AC (inverter limit, DC/AC 1.25)\n"));
    assert_int_equal(fs_run("run tests/data/run/solar-only.cfg --no-db "
                            "--set energy.solar.capacity_mw=40 "
                            "--set energy.solar.dc_ac_ratio=1.25 --format json",
                            a, sizeof a, NULL, 0),
                     0);
    assert_non_null(strstr(a, "\"capacity_dc_w\": 40000000.0"));
    assert_non_null(strstr(a, "\"capacity_ac_w\": 32000000.0"));
    /* A site without solar has no solar line. */
    assert_int_equal(
        fs_run("run tests/data/run/backfill.cfg --no-db", a, sizeof a, NULL, 0),
        0);
    assert_null(strstr(a, "\nsolar "));
}

/* check validates everything run would (issue 12.5): both refuse, by the
 * same code (app/run_check.c), with FILE:LINE: key, and run writes
 * nothing (not even the database's folder). */
static void refused_by_check_and_run(const char *cfg, const char *where)
{
    char args[512], dbdir[128];
    struct stat st;
    snprintf(dbdir, sizeof dbdir, "/tmp/fs-run-check-%ld", (long)getpid());
    snprintf(args, sizeof args, "check %s", cfg);
    assert_int_equal(fs_run(args, a, sizeof a, err, sizeof err), 1);
    assert_non_null(strstr(err, where));
    assert_string_equal(a, "");
    snprintf(args, sizeof args, "run %s --db %s/sub/r.db", cfg, dbdir);
    assert_int_equal(fs_run(args, a, sizeof a, err, sizeof err), 1);
    assert_non_null(strstr(err, where));
    assert_string_equal(a, "");
    assert_int_not_equal(stat(dbdir, &st), 0);
}

static void
test_check_and_run_refuse_a_job_larger_than_every_fabric_group(void **state)
{
    (void)state;
    refused_by_check_and_run(
        "tests/data/run/bad-larger-than-group.cfg",
        "factorysim: tests/data/run/bad-larger-than-group.cfg:32: "
        "jobs.[0].gpus: job 'too-big' is larger than every fabric group");
}

static void test_check_and_run_refuse_a_layout_that_cannot_fit(void **state)
{
    (void)state;
    refused_by_check_and_run(
        "tests/data/run/bad-no-layout-fits.cfg",
        "factorysim: tests/data/run/bad-no-layout-fits.cfg:28: jobs.[0]: job "
        "'no-fit': cannot predict its throughput on 8 B300: no layout");
}

static void test_check_and_run_refuse_results_beyond_max_memory_mb(void **state)
{
    (void)state;
    /* --no-db keeps no series: a few KiB a replication (a short horizon
     * so that the 100 replications run quickly). */
    assert_int_equal(fs_run("run tests/data/run/grid-one-job.cfg --no-db "
                            "--set simulation.step_min=1 --set "
                            "simulation.horizon_days=0.1 --replications 100 "
                            "--max-memory-mb 1",
                            a, sizeof a, err, sizeof err),
                     0);
    assert_int_equal(fs_run("run tests/data/run/grid-one-job.cfg --db "
                            "/tmp/fs-never/r.db --series all "
                            "--replications 2000 --max-memory-mb 1",
                            a, sizeof a, err, sizeof err),
                     1);
    assert_non_null(strstr(err, "simulation: the results would need about "));
    assert_non_null(strstr(err, "expected <= --max-memory-mb 1"));
    assert_int_equal(fs_run("check tests/data/run/grid-one-job.cfg --series "
                            "all --replications 2000 --max-memory-mb 1",
                            a, sizeof a, err, sizeof err),
                     1);
    assert_non_null(strstr(err, "simulation: the results would need about "));
    assert_int_equal(fs_run("check tests/data/run/grid-one-job.cfg", a,
                            sizeof a, err, sizeof err),
                     0);
}

/* check --format json: the resolved summary and every error as objects,
 * all of them, not just the first. */
static void test_check_json_lists_every_error_as_objects(void **state)
{
    (void)state;
    assert_int_equal(fs_run("check tests/data/run/bad-larger-than-group.cfg "
                            "--format json --series all --replications 100000 "
                            "--max-memory-mb 1",
                            a, sizeof a, err, sizeof err),
                     1);
    assert_non_null(strstr(a, "\"ok\": false"));
    assert_non_null(strstr(a, "\"summary\": {"));
    assert_non_null(strstr(a, "\"memory_estimate_bytes\":"));
    assert_non_null(
        strstr(a, "\"file\": \"tests/data/run/bad-larger-than-group.cfg\""));
    assert_non_null(strstr(a, "\"line\": 32"));
    assert_non_null(strstr(a, "larger than every fabric group"));
    assert_non_null(strstr(a, "the results would need about"));
    assert_int_equal(fs_run("check tests/data/run/grid-one-job.cfg --format "
                            "json",
                            a, sizeof a, err, sizeof err),
                     0);
    assert_non_null(strstr(a, "\"ok\": true"));
    assert_non_null(strstr(a, "\"errors\": []"));
}

/* A calibration that fails to load after the scenario loaded: the JSON
 * summary still gives the memory estimate run would make for the same
 * replications (it was read uninitialised before). */
static void test_check_json_summary_when_calibration_fails(void **state)
{
    char good[64] = "", bad[64] = "";
    const char *p;
    (void)state;
    assert_int_equal(fs_run("check tests/data/run/grid-one-job.cfg --format "
                            "json --replications 7",
                            a, sizeof a, err, sizeof err),
                     0);
    p = strstr(a, "\"memory_estimate_bytes\":");
    assert_non_null(p);
    sscanf(p + 24, " %63[0-9.e+]", good);
    assert_int_equal(fs_run("check tests/data/run/grid-one-job.cfg --format "
                            "json --replications 7 --calibration "
                            "tests/data/no-such-calibration.cfg",
                            a, sizeof a, err, sizeof err),
                     1);
    assert_non_null(strstr(a, "\"ok\": false"));
    assert_non_null(strstr(a, "no-such-calibration.cfg"));
    p = strstr(a, "\"memory_estimate_bytes\":");
    assert_non_null(p);
    sscanf(p + 24, " %63[0-9.e+]", bad);
    assert_true(good[0] != '\0');
    assert_string_equal(good, bad);
}

/* Finds the energy object of source name in a check summary. */
static json_t *source_of(json_t *summary, const char *name)
{
    json_t *e = json_object_get(summary, "energy"), *x;
    size_t i;
    json_array_foreach(e, i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "source")), name) == 0)
            return x;
    }
    return NULL;
}

/* check --format json carries what the run will use for issue 20's models:
 * each module's cooling design and its assumption keys, the solar sky
 * model, the battery enclosure, and the power group (a --set shows). */
static void test_check_json_energy_models(void **state)
{
    json_error_t je;
    json_t *root, *sum, *m0, *m1, *th, *pw;
    (void)state;
    assert_int_equal(fs_run("check tests/data/keys/base-a.cfg --format json "
                            "--set power.gpu_comm_frac=0.3",
                            a, sizeof a, err, sizeof err),
                     0);
    root = json_loads(a, 0, &je);
    assert_non_null(root);
    sum = json_object_get(root, "summary");
    m0 = json_array_get(json_object_get(sum, "modules"), 0);
    m1 = json_array_get(json_object_get(sum, "modules"), 1);
    assert_string_equal(json_string_value(json_object_get(m0, "cooling")),
                        "adiabatic");
    assert_true(json_real_value(json_object_get(m0, "cooling_fixed_frac")) ==
                0.05);
    assert_true(json_real_value(
                    json_object_get(m0, "cooling_evap_threshold_c")) == 25.0);
    assert_true(json_number_value(
                    json_object_get(m0, "cooling_wue_evap_l_per_kwh")) == 2.5);
    assert_true(json_number_value(json_object_get(
                    m0, "cooling_adiabatic_wb_limit_c")) == 20.0);
    /* Module b is liquid: its design's water defaults, its chiller keys. */
    assert_string_equal(json_string_value(json_object_get(m1, "cooling")),
                        "liquid-dry-cooler");
    assert_true(json_number_value(
                    json_object_get(m1, "cooling_wue_evap_l_per_kwh")) == 0.0);
    assert_true(json_number_value(
                    json_object_get(m1, "cooling_wue_dry_l_per_kwh")) == 0.05);
    assert_true(json_number_value(json_object_get(m1, "cooling_fixed_frac")) ==
                0.04);
    assert_true(json_number_value(json_object_get(m1, "cooling_chiller_cop")) ==
                4.5);
    assert_string_equal(json_string_value(json_object_get(
                            source_of(sum, "solar"), "sky_model")),
                        "isotropic");
    th = json_object_get(source_of(sum, "battery"), "thermal");
    assert_string_equal(json_string_value(json_object_get(th, "mode")), "hvac");
    assert_true(
        fabs(json_real_value(json_object_get(th, "ua_w_per_k_per_mwh")) -
             12.0) < 1e-9);
    pw = json_object_get(sum, "power");
    assert_true(json_real_value(json_object_get(pw, "gpu_comm_frac")) == 0.3);
    assert_true(
        json_real_value(json_object_get(json_object_get(pw, "cap_curve"),
                                        "knee_cap_frac")) == 0.95);
    json_decref(root);
    /* The defaults: Perez sky, ambient-rise enclosure at 3 K. */
    assert_int_equal(fs_run("check scenarios/nevada-solar.cfg --format json", a,
                            sizeof a, err, sizeof err),
                     0);
    root = json_loads(a, 0, &je);
    assert_non_null(root);
    sum = json_object_get(root, "summary");
    assert_string_equal(json_string_value(json_object_get(
                            source_of(sum, "solar"), "sky_model")),
                        "perez");
    th = json_object_get(source_of(sum, "battery"), "thermal");
    assert_string_equal(json_string_value(json_object_get(th, "mode")),
                        "ambient-rise");
    assert_true(json_real_value(json_object_get(th, "rise_c")) == 3.0);
    json_decref(root);
}

int main(void)
{
    const struct CMUnitTest run_cli_tests[] = {
        cmocka_unit_test(test_run_cli_same_seed_same_bytes),
        cmocka_unit_test(test_run_cli_json_contract),
        cmocka_unit_test(test_run_cli_errors),
        cmocka_unit_test(test_run_cli_stores_runs),
        cmocka_unit_test(test_run_cli_header_gives_solar_dc_and_ac),
        cmocka_unit_test(test_run_cli_every_field_in_its_display_unit),
        cmocka_unit_test(
            test_check_and_run_refuse_a_job_larger_than_every_fabric_group),
        cmocka_unit_test(test_check_and_run_refuse_a_layout_that_cannot_fit),
        cmocka_unit_test(
            test_check_and_run_refuse_results_beyond_max_memory_mb),
        cmocka_unit_test(test_check_json_lists_every_error_as_objects),
        cmocka_unit_test(test_check_json_summary_when_calibration_fails),
        cmocka_unit_test(test_check_json_energy_models),
    };
    return cmocka_run_group_tests_name("run_cli", run_cli_tests, NULL, NULL);
}
