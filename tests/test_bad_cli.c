/* tests/test_bad_cli.c: bad command-line values, each with the exit code
 * and message docs/bad-input.md quotes: usage errors exit 2, a bad
 * --set override is a scenario error (exit 1), and so is a malformed
 * --csv file; nothing reaches stdout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_cli_values_exit_with_their_messages),
    };
    return cmocka_run_group_tests_name("bad_cli", tests, NULL, NULL);
}
