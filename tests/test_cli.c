/* tests/test_cli.c: the command-line shell's contract: --help, --version,
 * exit 0 / 1 / 2, errors on stderr as "factorysim: ...", bench output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest cli_tests[] = {
        cmocka_unit_test(test_cli_version_and_help_exit_zero),
        cmocka_unit_test(test_cli_usage_errors_exit_two),
        cmocka_unit_test(test_cli_bench_phold_json_one_line),
        cmocka_unit_test(test_cli_solar_tz_rounds_lon_over_15),
    };
    return cmocka_run_group_tests_name("cli", cli_tests, NULL, NULL);
}
