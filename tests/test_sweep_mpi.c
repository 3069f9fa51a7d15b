/* tests/test_sweep_mpi.c: `mpirun -n 2 bin/factorysim-mpi sweep ...`
 * stores results identical to the single-process sweep (rows compared byte
 * for byte, ids, times and ranks aside), and both ranks ran cases. Skipped
 * when bin/factorysim-mpi or mpirun is missing (build it with `make mpi`),
 * unless FACTORYSIM_REQUIRE_MPI=1 (CI, .ci/run) makes that a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/cli_util.h"
#include "tests/sweep_util.h"
#include "tests/testutil.h"

static char out1[1 << 18], out2[1 << 18];

#define SWEEP_ARGS                                                             \
    "sweep tests/data/sweep/small.cfg --set energy.battery.capacity_mwh=4,8 "  \
    "--set modules.[0].count=1:2:1 --set simulation.seed=1:3:1 --series "      \
    "first "                                                                   \
    "--events --quiet --format csv"

static const char *mpi_bin(void)
{
    const char *b = getenv("FACTORYSIM_MPI_BIN");
    return b && *b ? b : "bin/factorysim-mpi";
}

/* Runs cmd, capturing stdout into out. Returns the exit status. */
static int run_cmd(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    size_t len;
    int st;
    if (!p)
        return -1;
    len = fread(out, 1, n - 1, p);
    out[len] = '\0';
    while (fgetc(p) != EOF)
        ;
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_sweep_mpi_two_ranks_store_what_one_process_stores(void **state)
{
    char a[128], b[128], cmd[2048], *da = NULL, *dbuf = NULL;
    size_t la = 0, lb = 0;
    unsigned ranks_a = 0, ranks_b = 0;
    const char *req = getenv("FACTORYSIM_REQUIRE_MPI");
    (void)state;
    if (access(mpi_bin(), X_OK) != 0 ||
        system("command -v mpirun >/dev/null 2>&1") != 0) {
        if (req && strcmp(req, "1") == 0)
            fail_msg("%s or mpirun missing (make mpi)", mpi_bin());
        skip();
    }
    snprintf(a, sizeof a, "/tmp/factorysim-mpi-%ld-1.db", (long)getpid());
    snprintf(b, sizeof b, "/tmp/factorysim-mpi-%ld-2.db", (long)getpid());
    remove(a);
    remove(b);
    snprintf(cmd, sizeof cmd, "%s " SWEEP_ARGS " --jobs 2 --db %s", fs_bin(),
             a);
    assert_int_equal(run_cmd(cmd, out1, sizeof out1), 0);
    snprintf(cmd, sizeof cmd,
             "mpirun --allow-run-as-root --oversubscribe -n 2 %s " SWEEP_ARGS
             " --jobs 1 --db %s",
             mpi_bin(), b);
    assert_int_equal(run_cmd(cmd, out2, sizeof out2), 0);
    /* One summary, printed by rank 0 only, equal to the plain one. */
    assert_string_equal(out1, out2);
    assert_int_equal(sweep_dump(a, &da, &la, &ranks_a), 12);
    assert_int_equal(sweep_dump(b, &dbuf, &lb, &ranks_b), 12);
    assert_int_equal(ranks_a, 0); /* no rank recorded without MPI */
    assert_int_equal(ranks_b, 3); /* ranks 0 and 1 both ran cases */
    assert_int_equal(la, lb);
    assert_true(memcmp(da, dbuf, la) == 0);
    free(da);
    free(dbuf);
    remove(a);
    remove(b);
}

/* `optimize` under MPI (docs/optimize.md): every batch of designs is
 * spread over the ranks, rank 0 shares the values, and every rank takes
 * the same decisions: the JSON is the same bytes as one process's, both
 * ranks ran designs, and as many designs are stored. */
#define OPT_ARGS                                                               \
    "optimize tests/data/sweep/small.cfg --vary "                              \
    "energy.solar.capacity_mw=1:6:1 --vary "                                   \
    "energy.battery.capacity_mwh=4:14:2 "                                      \
    "--objective site.curtailed_mwh.p50 --constraint 'site.co2_t.p50<=11.5' "  \
    "--replications 2 --format json --quiet"

static void test_sweep_mpi_optimize_same_as_one_process(void **state)
{
    char a[128], b[128], cmd[2048], *da = NULL, *dbuf = NULL;
    size_t la = 0, lb = 0;
    unsigned ranks_b = 0;
    const char *req = getenv("FACTORYSIM_REQUIRE_MPI");
    (void)state;
    if (access(mpi_bin(), X_OK) != 0 ||
        system("command -v mpirun >/dev/null 2>&1") != 0) {
        if (req && strcmp(req, "1") == 0)
            fail_msg("%s or mpirun missing (make mpi)", mpi_bin());
        skip();
    }
    snprintf(a, sizeof a, "/tmp/factorysim-mpiopt-%ld-1.db", (long)getpid());
    snprintf(b, sizeof b, "/tmp/factorysim-mpiopt-%ld-2.db", (long)getpid());
    remove(a);
    remove(b);
    snprintf(cmd, sizeof cmd, "%s " OPT_ARGS " --jobs 2 --db %s", fs_bin(), a);
    assert_int_equal(run_cmd(cmd, out1, sizeof out1), 0);
    snprintf(cmd, sizeof cmd,
             "mpirun --allow-run-as-root --oversubscribe -n 2 %s " OPT_ARGS
             " --jobs 1 --db %s",
             mpi_bin(), b);
    assert_int_equal(run_cmd(cmd, out2, sizeof out2), 0);
    assert_non_null(strstr(out1, "\"evaluations\""));
    assert_string_equal(out1, out2);
    {
        long na = sweep_dump(a, &da, &la, NULL);
        assert_true(na > 4);
        assert_int_equal(sweep_dump(b, &dbuf, &lb, &ranks_b), na);
    }
    assert_int_equal(ranks_b, 3);
    assert_int_equal(la, lb);
    assert_true(memcmp(da, dbuf, la) == 0);
    free(da);
    free(dbuf);
    remove(a);
    remove(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_sweep_mpi_two_ranks_store_what_one_process_stores),
        cmocka_unit_test(test_sweep_mpi_optimize_same_as_one_process),
    };
    return cmocka_run_group_tests_name("sweep_mpi", tests, NULL, NULL);
}
