/* tests/test_bad_cli.c: bad command-line values, each with the exit code
 * and message docs/bad-input.md quotes: usage errors exit 2, a bad
 * --set override is a scenario error (exit 1), and so is a malformed
 * --csv file; nothing reaches stdout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>

#include "tests/cli_util.h"

static char out[1 << 16], err[1 << 14];

static void test_bad_cli_values_exit_with_their_messages(void **state)
{
    static const struct {
        const char *args;
        int rc;
        const char *msg;
    } cases[] = {
        {"run scenarios/nevada-solar.cfg --seed -1", 2,
         "factorysim: --seed: expected a non-negative integer (got '-1')"},
        {"run scenarios/nevada-solar.cfg --seed 99999999999999999999", 2,
         "factorysim: --seed: expected a non-negative integer (got "
         "'99999999999999999999')"},
        {"run scenarios/nevada-solar.cfg --replications 1e3", 2,
         "factorysim: --replications: expected a non-negative integer (got "
         "'1e3')"},
        {"run scenarios/nevada-solar.cfg --replications 0", 2,
         "factorysim: --replications: expected an integer in [1, 100000] (got "
         "0)"},
        {"run scenarios/nevada-solar.cfg --format xml", 2,
         "factorysim: --format: unknown format 'xml' (expected "
         "table|json|csv)"},
        {"run scenarios/nevada-solar.cfg --bogus", 2,
         "factorysim: unknown option '--bogus'"},
        {"run scenarios/nevada-solar.cfg --set nokey", 1,
         "factorysim: --set: override 'nokey': expected KEY=VALUE"},
        {"run scenarios/nevada-solar.cfg --set modules.[9].count=2", 1,
         "factorysim: --set: modules.[9].count: index 9 out of range (got 9, "
         "expected 0..1)"},
        {"run scenarios/nevada-solar.cfg --set energy.battery.capacity_mwh=nan",
         1,
         "factorysim: --set: energy.battery.capacity_mwh: not a finite number "
         "(got nan"},
        {"predict --gpu B300 --model llama3-70b --precision fp8 --gpus 0", 2,
         "factorysim: --gpus: expected an integer in [1, 16777216] (got 0)"},
        {"sweep scenarios/nevada-solar.cfg --set simulation.seed=1:0:1 --db "
         "/nonexistent-fs/s.db",
         2,
         "factorysim: --set: simulation.seed: range end below its start (got "
         "1:0, "
         "expected HI >= LO)"},
        {"predict --csv tests/data/bad-csv/long-row.csv", 1,
         "factorysim: tests/data/bad-csv/long-row.csv:2: row has more cells "
         "than the header (2)"},
        {"solar --sky hay-davies", 2,
         "factorysim: --sky: expected perez or isotropic (got 'hay-davies')"},
        {"run scenarios/nevada-solar.cfg --set "
         "energy.solar.sky_model=\"klucher\"",
         1,
         "factorysim: --set: energy.solar.sky_model: unknown value (got "
         "\"klucher\", expected one of: \"perez\", \"isotropic\")"},
        {"battery --years 0", 2,
         "factorysim: --years: expected an integer in [1, 50] (got 0)"},
        {"battery --c-rate fast", 2,
         "factorysim: --c-rate: expected a number (got 'fast')"},
        {"battery --soc-min 0.8 --soc-max 0.3", 2,
         "factorysim: --soc-min: must be below --soc-max (got 0.8, expected "
         "< 0.3)"},
        {"battery --cycles-per-day 3 --soc-min 0 --soc-max 1", 2,
         "factorysim: --cycles-per-day, --c-rate: battery duty: 3 cycles a "
         "day from 0 to 1 at 0.2C do not fit in a day (each needs 10 h, "
         "expected <= 8 h)"},
        {"battery --temp-c 25 --epw "
         "data/weather/USA_NV_Reno-Tahoe.Intl.AP.724880_TMY3.epw",
         2, "factorysim: --temp-c and --epw: expected one of them (got both)"},
        {"battery --soc-csv data/reference/battery/nevada_soc_1y.csv "
         "--cycles-per-day 2",
         2, "factorysim: --soc-csv: not with --cycles-per-day"},
        {"battery --soc-csv tests/data/bad-csv/empty.csv", 1,
         "factorysim: tests/data/bad-csv/empty.csv:1: empty file (expected a "
         "header row)"},
        {"battery --soc-csv tests/data/bad-csv/soc-out-of-range.csv", 1,
         "factorysim: tests/data/bad-csv/soc-out-of-range.csv:4: soc_frac: "
         "out of range (got '1.7', expected a number in [0, 1])"},
        {"battery --format csv", 2,
         "factorysim: --format: unknown format 'csv' (expected table|json)"},
        {"predict --csv tests/data/bad-csv/empty.csv", 1,
         "factorysim: tests/data/bad-csv/empty.csv:1: empty file (expected a "
         "header row)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = fs_run(cases[i].args, out, sizeof out, err, sizeof err);
        if (rc != cases[i].rc || !strstr(err, cases[i].msg))
            fail_msg("%s: exit %d, stderr '%s'; expected exit %d and '%s'",
                     cases[i].args, rc, err, cases[i].rc, cases[i].msg);
        assert_string_equal(out, "");
    }
}

/* Issue 13: a seed above 2^63-1 was accepted and printed negative (it is
 * stored as a signed 64-bit integer). Every command taking a seed refuses
 * it as a usage error (exit 2), as it refuses a negative or non-numeric
 * one; 2^63-1 itself is accepted. */
static void test_bad_cli_seed_above_2_63_minus_1_is_a_usage_error(void **state)
{
    static const char *const cmds[] = {
        "run tests/data/good/minimal.cfg --db %s --seed",
        "sweep tests/data/good/minimal.cfg --db %s --set "
        "simulation.seed=1:2:1 --seed",
        "power tests/data/good/minimal.cfg --seed",
        "bench phold --seed",
        "solar --year-seed",
    };
    static const struct {
        const char *v, *msg;
    } vals[] = {
        {"9223372036854775808",
         ": out of range (got 9223372036854775808, expected an integer in "
         "[0, 9223372036854775807]: seeds are stored as signed 64-bit "
         "integers)"},
        {"18446744073709551615", ": out of range (got 18446744073709551615"},
        {"-1", ": expected a non-negative integer (got '-1')"},
        {"seven", ": expected a non-negative integer (got 'seven')"},
    };
    char args[512], want[512], cmd[256], db[128];
    (void)state;
    snprintf(db, sizeof db, "/tmp/factorysim-seed-%ld.db", (long)getpid());
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
            int rc;
            const char *opt =
                strstr(cmds[i], "--year-seed") ? "--year-seed" : "--seed";
            snprintf(cmd, sizeof cmd, cmds[i], db);
            snprintf(args, sizeof args, "%s %s", cmd, vals[k].v);
            snprintf(want, sizeof want, "factorysim: %s%s", opt, vals[k].msg);
            rc = fs_run(args, out, sizeof out, err, sizeof err);
            if (rc != 2 || strncmp(err, want, strlen(want)) != 0)
                fail_msg("%s: exit %d, stderr '%s'; expected exit 2 and '%s'",
                         args, rc, err, want);
            assert_string_equal(out, "");
        }
    /* Nothing was run, so nothing was stored. */
    assert_int_equal(access(db, F_OK), -1);
    /* The largest seed is a seed, stored and printed as given. */
    snprintf(args, sizeof args,
             "run tests/data/good/minimal.cfg --db %s --format json --seed "
             "9223372036854775807",
             db);
    assert_int_equal(fs_run(args, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "\"seed\": 9223372036854775807"));
    remove(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_cli_values_exit_with_their_messages),
        cmocka_unit_test(test_bad_cli_seed_above_2_63_minus_1_is_a_usage_error),
    };
    return cmocka_run_group_tests_name("bad_cli", tests, NULL, NULL);
}
