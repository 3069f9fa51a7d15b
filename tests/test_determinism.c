/* tests/test_determinism.c: the same question gives the same answer
 * (issue 9.3). A bundled scenario is run with one seed twice into one
 * database and once into another, and every stored row is compared byte
 * for byte, ids and the wall-clock time aside (tests/db_dump.sh); another
 * seed must change them. The --jobs 1 vs --jobs 2 sweep comparison lives
 * with the sweep tests (tests/test_sweep_cli.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/cli_util.h"

#define SCN "scenarios/nevada-solar.cfg"
#define RUN_ARGS "--replications 2 --series all --format csv"

static char out_a[1 << 16], out_b[1 << 16], err[8192];

/* Reads the dump of run id of db into a malloc'ed string. */
static char *dump(const char *db, int id)
{
    char cmd[512];
    FILE *p;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    snprintf(cmd, sizeof cmd, "sh tests/db_dump.sh %s %d", db, id);
    p = popen(cmd, "r");
    assert_non_null(p);
    do {
        if (n + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        got = fread(buf + n, 1, 65536, p);
        n += got;
    } while (got > 0);
    buf[n] = '\0';
    assert_int_equal(pclose(p), 0);
    return buf;
}

static void rm_db(const char *db)
{
    char p[256];
    remove(db);
    snprintf(p, sizeof p, "%s-wal", db);
    remove(p);
    snprintf(p, sizeof p, "%s-shm", db);
    remove(p);
}

/* "Same input + seed -> identical bytes" for what run --db stores: the
 * scenario, run, job, replication, summary, time-series and event rows. */
static void test_determinism_run_stores_identical_rows(void **state)
{
    char a[128], b[128], args[512];
    char *a1, *a2, *b1, *a3;
    (void)state;
    snprintf(a, sizeof a, "/tmp/factorysim-det-a-%ld.db", (long)getpid());
    snprintf(b, sizeof b, "/tmp/factorysim-det-b-%ld.db", (long)getpid());
    rm_db(a);
    rm_db(b);
    snprintf(args, sizeof args, "run " SCN " " RUN_ARGS " --seed 11 --db %s",
             a);
    assert_int_equal(fs_run(args, out_a, sizeof out_a, err, sizeof err), 0);
    assert_int_equal(fs_run(args, out_b, sizeof out_b, err, sizeof err), 0);
    assert_string_equal(out_a, out_b);
    snprintf(args, sizeof args, "run " SCN " " RUN_ARGS " --seed 11 --db %s",
             b);
    assert_int_equal(fs_run(args, out_b, sizeof out_b, err, sizeof err), 0);
    snprintf(args, sizeof args, "run " SCN " " RUN_ARGS " --seed 12 --db %s",
             a);
    assert_int_equal(fs_run(args, out_b, sizeof out_b, err, sizeof err), 0);
    a1 = dump(a, 1);
    a2 = dump(a, 2);
    b1 = dump(b, 1);
    a3 = dump(a, 3);
    /* Two replications of a 180-day site at 15-minute steps: the series
     * alone is over 30,000 rows. */
    assert_true(strlen(a1) > 1000000);
    assert_non_null(strstr(a1, "table timeseries\n"));
    assert_non_null(strstr(a1, "table events\n"));
    assert_string_equal(a1, a2);
    assert_string_equal(a1, b1);
    assert_true(strcmp(a1, a3) != 0);
    free(a1);
    free(a2);
    free(b1);
    free(a3);
    rm_db(a);
    rm_db(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism_run_stores_identical_rows),
    };
    return cmocka_run_group_tests_name("determinism", tests, NULL, NULL);
}
