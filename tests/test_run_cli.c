/* tests/test_run_cli.c: `factorysim run` from the command line: the JSON
 * contract of issue 6, byte-identical output for a seed, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest run_cli_tests[] = {
        cmocka_unit_test(test_run_cli_same_seed_same_bytes),
        cmocka_unit_test(test_run_cli_json_contract),
        cmocka_unit_test(test_run_cli_errors),
        cmocka_unit_test(test_run_cli_stores_runs),
    };
    return cmocka_run_group_tests_name("run_cli", run_cli_tests, NULL, NULL);
}
