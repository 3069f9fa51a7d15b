/* tests/test_cli.c: the command-line shell's contract: --help, --version,
 * exit 0 / 1 / 2, errors on stderr as "factorysim: ...", bench output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "io/json.h"
#include "tests/cli_util.h"
#include "tests/testutil.h"

static char out[65536], err[65536];

static void test_cli_version_and_help_exit_zero(void **state)
{
    (void)state;
    assert_int_equal(fs_run("--version", out, sizeof out, NULL, 0), 0);
    assert_true(strncmp(out, "factorysim ", 11) == 0);
    assert_int_equal(fs_run("--help", out, sizeof out, NULL, 0), 0);
    assert_non_null(strstr(out, "Commands:"));
    assert_non_null(strstr(out, "bench"));
    assert_int_equal(fs_run("bench --help", out, sizeof out, NULL, 0), 0);
    assert_non_null(strstr(out, "--lookahead"));
}

static void test_cli_usage_errors_exit_two(void **state)
{
    (void)state;
    assert_int_equal(fs_run("", out, sizeof out, err, sizeof err), 2);
    assert_int_equal(
        fs_run("no-such-command", out, sizeof out, err, sizeof err), 2);
    assert_non_null(
        strstr(err, "factorysim: unknown command 'no-such-command'"));
    assert_int_equal(
        fs_run("bench phold --lps zero", out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "factorysim: --lps: expected"));
    assert_int_equal(
        fs_run("bench phold --remote 2", out, sizeof out, err, sizeof err), 2);
    assert_int_equal(
        fs_run("bench phold --format xml", out, sizeof out, err, sizeof err),
        2);
    assert_non_null(strstr(err, "table|json|csv"));
    assert_int_equal(
        fs_run("bench phold --bogus", out, sizeof out, err, sizeof err), 2);
    assert_string_equal(out, "");
}

/* `--format json` prints {"events": N, "wall_s": S, "events_per_sec": R}
 * on one line, and the event count is the same for the same seed. */
static void test_cli_bench_phold_json_one_line(void **state)
{
    static char first[65536];
    long long ev1 = -1, ev2 = -2;
    double wall = -1, rate = -1;
    const char *args =
        "bench phold --lps 16 --start-events 4 --end 50 --seed 9 --format json";
    (void)state;
    assert_int_equal(fs_run(args, out, sizeof out, NULL, 0), 0);
    snprintf(first, sizeof first, "%s", out);
    assert_int_equal(
        sscanf(first,
               "{\"events\": %lld, \"wall_s\": %lf, \"events_per_sec\": %lf}",
               &ev1, &wall, &rate),
        3);
    assert_int_equal(strchr(first, '\n') - first, (long)strlen(first) - 1);
    assert_true(ev1 > 16 * 4 && wall >= 0 && rate >= 0);
    assert_int_equal(fs_run(args, out, sizeof out, NULL, 0), 0);
    assert_int_equal(sscanf(out, "{\"events\": %lld,", &ev2), 1);
    assert_int_equal(ev1, ev2);
}

/* solar --tz defaults to round(lon/15), the nearest whole hour, as
 * documented (and as site.utc_offset_h): -115.2 / 15 = -7.68 gives UTC-8
 * (truncation gave -7); -112.4 / 15 = -7.49 gives -7. */
static void test_cli_solar_tz_rounds_lon_over_15(void **state)
{
    (void)state;
    assert_int_equal(fs_run("solar --lat 36.1 --lon -115.2 --format json", out,
                            sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "\"tz_h\": -8.0"));
    assert_int_equal(fs_run("solar --lat 36.1 --lon -112.4 --format json", out,
                            sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "\"tz_h\": -7.0"));
    assert_int_equal(fs_run("solar --lat 36.1 --lon 172.6", out, sizeof out,
                            err, sizeof err),
                     0);
    assert_non_null(strstr(out, "UTC+12.0"));
    /* An explicit --tz is kept as given. */
    assert_int_equal(fs_run("solar --lat 36.1 --lon -115.2 --tz -7 --format "
                            "json",
                            out, sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "\"tz_h\": -7.0"));
}

/* battery --format json is exactly {"years", "capacity_retained_fraction",
 * "efc"} (issue 20), one entry a year, and reproduces BLAST-Lite's 5-year
 * cycle-a-day row (data/reference/battery/README.md: 0.6704) within a
 * point; the Nevada SOC history at 35 C gives its 0.8220 within half a
 * point. */
static void test_cli_battery_json_contract(void **state)
{
    (void)state;
    assert_int_equal(fs_run("battery --soc-min 0 --soc-max 1 --years 5 "
                            "--format json",
                            out, sizeof out, err, sizeof err),
                     0);
    jv *j = NULL;
    sim_err e;
    assert_int_equal(jv_parse(out, &j, &e), SIM_OK);
    assert_int_equal(jv_len(j), 3);
    const jv *y = jv_get(j, "years"),
             *q = jv_get(j, "capacity_retained_fraction"),
             *c = jv_get(j, "efc");
    assert_non_null(y);
    assert_non_null(q);
    assert_non_null(c);
    assert_int_equal(jv_len(y), 5);
    assert_int_equal(jv_len(q), 5);
    assert_int_equal(jv_len(c), 5);
    double y5, q5, efc5;
    assert_int_equal(jv_number(jv_at(y, 4), &y5), 1);
    assert_int_equal(jv_number(jv_at(q, 4), &q5), 1);
    assert_int_equal(jv_number(jv_at(c, 4), &efc5), 1);
    assert_true(y5 == 5.0);
    assert_true(fabs(q5 - 0.6704) < 0.01);
    assert_true(fabs(efc5 - 1476.6) < 15);
    jv_free(j);
    assert_int_equal(fs_run("battery --soc-csv "
                            "data/reference/battery/nevada_soc_1y.csv "
                            "--years 1 --temp-c 35 --format json",
                            out, sizeof out, err, sizeof err),
                     0);
    assert_int_equal(jv_parse(out, &j, &e), SIM_OK);
    double q1;
    assert_int_equal(
        jv_number(jv_at(jv_get(j, "capacity_retained_fraction"), 0), &q1), 1);
    assert_true(fabs(q1 - 0.8220) < 0.005);
    jv_free(j);
}

int main(void)
{
    const struct CMUnitTest cli_tests[] = {
        cmocka_unit_test(test_cli_version_and_help_exit_zero),
        cmocka_unit_test(test_cli_usage_errors_exit_two),
        cmocka_unit_test(test_cli_bench_phold_json_one_line),
        cmocka_unit_test(test_cli_solar_tz_rounds_lon_over_15),
        cmocka_unit_test(test_cli_battery_json_contract),
    };
    return cmocka_run_group_tests_name("cli", cli_tests, NULL, NULL);
}
