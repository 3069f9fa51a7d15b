/* tests/test_oom.c: running out of memory is a clean failure (sim/mem.h,
 * issue 13.4): exit status 1 and "factorysim: out of memory ..." on
 * stderr, never SIGABRT, and nothing half-stored. The memory limit is an
 * address-space limit (ulimit -v, RLIMIT_AS) on the child shell only; a
 * build that cannot start under it at all (AddressSanitizer reserves
 * terabytes of address space) skips the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "tests/cli_util.h"

#define LIMIT_KB 40000 /* a short run needs about 6 MB resident */

static char dir[256], out[1 << 14], err[1 << 14];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-oom-%ld", (long)getpid());
    mkdir(dir, 0755);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs "factorysim ARGS" under ulimit -v LIMIT_KB; returns the exit
 * status, or 128 + signal when a signal ended it. */
static int run_limited(const char *args)
{
    char cmd[4096], errpath[320];
    FILE *f;
    size_t m;
    int st;
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "ulimit -v %d; exec %s %s >/dev/null 2>%s",
             LIMIT_KB, fs_bin(), args, errpath);
    st = system(cmd);
    f = fopen(errpath, "r");
    m = f ? fread(err, 1, sizeof err - 1, f) : 0;
    err[m] = '\0';
    if (f)
        fclose(f);
    /* sh reports a child killed by signal s as exit status 128 + s. */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* sim/mem.h: "Out of memory prints ... and exits with status 1": a run
 * whose every-step series (1000 days x 2 replications) needs far more
 * than the limit exits 1 with the message, and stores no run. */
static void test_oom_run_exits_1_with_a_message_not_abort(void **state)
{
    char args[1024], db[300], cmd[900];
    (void)state;
    if (run_limited("check tests/data/run/grid-one-job.cfg") != 0)
        skip(); /* cannot even start under the limit (sanitizers) */
    snprintf(db, sizeof db, "%s/oom.db", dir);
    snprintf(args, sizeof args,
             "run tests/data/run/grid-one-job.cfg --set "
             "simulation.horizon_days=1000 --replications 2 --series all "
             "--db %s",
             db);
    assert_int_equal(run_limited(args), 1);
    assert_non_null(strstr(err, "factorysim: out of memory allocating"));
    assert_non_null(strstr(err, "raise the memory limit"));
    /* The same run without the limit works (the limit was the cause). */
    snprintf(args, sizeof args,
             "run tests/data/run/grid-one-job.cfg --set "
             "simulation.horizon_days=1000 --replications 2 --series all "
             "--no-db");
    assert_int_equal(fs_run(args, out, sizeof out, NULL, 0), 0);
    snprintf(cmd, sizeof cmd,
             "test ! -s %s || test \"$(sqlite3 %s 'SELECT count(*) FROM "
             "runs;')\" = 0",
             db, db);
    assert_int_equal(system(cmd), 0);
}

/* The same for a sweep on two worker threads: exit 1 and the message. */
static void test_oom_sweep_exits_1_with_a_message_not_abort(void **state)
{
    char args[1024];
    int st;
    (void)state;
    if (run_limited("check tests/data/run/grid-one-job.cfg") != 0)
        skip();
    snprintf(args, sizeof args,
             "sweep tests/data/sweep/small.cfg --set "
             "simulation.horizon_days=600,700 --replications 2 --series all "
             "--jobs 2 --quiet --db %s/sweep.db",
             dir);
    st = run_limited(args);
    print_message("sweep under the limit: %s", err);
    assert_int_equal(st, 1);
    assert_true(strstr(err, "out of memory") != NULL ||
                strstr(err, "cannot start worker threads") != NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_run_exits_1_with_a_message_not_abort),
        cmocka_unit_test(test_oom_sweep_exits_1_with_a_message_not_abort),
    };
    return cmocka_run_group_tests_name("oom", tests, setup, teardown);
}
