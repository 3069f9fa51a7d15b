/* tests/test_db_concurrent.c: many processes writing one results database
 * at once on one host (io/db.h "Concurrency", issue 13.1). Writers are
 * real `factorysim` processes started together: each child waits on a
 * pipe until the parent closes it, so they open a fresh file within
 * microseconds of each other, which is what lost runs before (a writer
 * reading application_id 0 from a file another one was creating, or a
 * BUSY that SQLite returns without waiting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "io/db.h"
#include "tests/cli_util.h"

#define N_WRITERS 8
#define N_TRIALS 20

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-dbc-%ld", (long)getpid());
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

/* Removes path and its -wal and -shm. */
static void rm_db(const char *path)
{
    char p[400];
    remove(path);
    snprintf(p, sizeof p, "%s-wal", path);
    remove(p);
    snprintf(p, sizeof p, "%s-shm", path);
    remove(p);
}

/* Starts n children, child i running "sh -c cmd[i]" with stderr into
 * DIR/err-i.txt, all released at the same moment; waits for all and
 * stores each exit status (-1 if killed) in st[i]. */
static void run_together(size_t n, char cmds[][1024], int *st)
{
    int go[2];
    pid_t pid[N_WRITERS * 2];
    assert_true(n <= N_WRITERS * 2);
    assert_int_equal(pipe(go), 0);
    for (size_t i = 0; i < n; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            char c, errp[320];
            int fd;
            close(go[1]);
            /* Blocks until the parent closes its end: EOF for everyone. */
            while (read(go[0], &c, 1) > 0)
                ;
            snprintf(errp, sizeof errp, "%s/err-%zu.txt", dir, i);
            fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0)
                dup2(fd, 2);
            fd = open("/dev/null", O_WRONLY);
            if (fd >= 0)
                dup2(fd, 1);
            execl("/bin/sh", "sh", "-c", cmds[i], (char *)NULL);
            _exit(127);
        }
    }
    close(go[0]);
    close(go[1]);
    for (size_t i = 0; i < n; i++) {
        int w;
        assert_int_equal(waitpid(pid[i], &w, 0), pid[i]);
        st[i] = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    }
}

/* Prints child i's stderr (when a check is about to fail). */
static void show_err(size_t i)
{
    char p[320], buf[2048];
    FILE *f;
    size_t m;
    snprintf(p, sizeof p, "%s/err-%zu.txt", dir, i);
    f = fopen(p, "r");
    if (!f)
        return;
    m = fread(buf, 1, sizeof buf - 1, f);
    buf[m] = '\0';
    fclose(f);
    print_message("writer %zu: %s\n", i, buf);
}

/* Number of rows of sql (a count) in the database at path, via db.h. */
static long long count_of(const char *path, const char *sql)
{
    char cmd[1024], line[64] = "";
    FILE *f;
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"%s\"", path, sql);
    f = popen(cmd, "r");
    assert_non_null(f);
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    pclose(f);
    return atoll(line);
}

static void assert_integrity_ok(const char *path)
{
    db *d;
    sim_err e;
    assert_int_equal(db_open_readonly(path, &d, &e), SIM_OK);
    assert_int_equal(db_integrity_check(d, &e), SIM_OK);
    db_close(d);
}

/* io/db.h: "any number of processes on one host may open, create and store
 * into one file at once; every run is stored exactly once". Eight `run`
 * processes on a fresh file, twenty times: all exit 0, the file holds
 * exactly eight runs, one per seed, and passes integrity_check. */
static void
test_db_concurrent_writers_on_a_new_file_store_every_run_once(void **state)
{
    char path[320], cmds[N_WRITERS][1024];
    int st[N_WRITERS];
    (void)state;
    snprintf(path, sizeof path, "%s/stress.db", dir);
    for (int t = 0; t < N_TRIALS; t++) {
        rm_db(path);
        for (size_t i = 0; i < N_WRITERS; i++)
            snprintf(cmds[i], sizeof cmds[i],
                     "exec %s run tests/data/run/grid-one-job.cfg --db %s "
                     "--seed %zu --replications 1 --set "
                     "simulation.horizon_days=0.5 --series none --no-events",
                     fs_bin(), path, 100 + i);
        run_together(N_WRITERS, cmds, st);
        for (size_t i = 0; i < N_WRITERS; i++) {
            if (st[i] != 0)
                show_err(i);
            assert_int_equal(st[i], 0);
        }
        assert_int_equal(count_of(path, "SELECT count(*) FROM runs;"),
                         N_WRITERS);
        assert_int_equal(
            count_of(path, "SELECT count(DISTINCT seed) FROM runs;"),
            N_WRITERS);
        assert_int_equal(count_of(path, "SELECT count(*) FROM scenarios;"), 1);
        assert_integrity_ok(path);
    }
}

/* io/db.h DB_ALREADY_STORED and docs/sweeps.md: a sweep case stored
 * meanwhile by another writer is skipped, not an error. Three identical
 * sweeps and two runs start together on a new file: all exit 0, every
 * case is stored exactly once, the runs are there too. */
static void
test_db_concurrent_identical_sweeps_skip_cases_stored_by_another(void **state)
{
    char path[320], cmds[5][1024];
    int st[5];
    (void)state;
    snprintf(path, sizeof path, "%s/sweeps.db", dir);
    rm_db(path);
    for (size_t i = 0; i < 3; i++)
        snprintf(cmds[i], sizeof cmds[i],
                 "exec %s sweep tests/data/sweep/small.cfg --set "
                 "modules.[0].count=1,2 --set energy.solar.capacity_mw=2,4,6 "
                 "--replications 1 --set simulation.horizon_days=3 --jobs 1 "
                 "--db %s --quiet",
                 fs_bin(), path);
    for (size_t i = 3; i < 5; i++)
        snprintf(cmds[i], sizeof cmds[i],
                 "exec %s run tests/data/run/grid-one-job.cfg --db %s "
                 "--seed %zu --replications 1 --set "
                 "simulation.horizon_days=0.5 --series none --no-events",
                 fs_bin(), path, i);
    run_together(5, cmds, st);
    for (size_t i = 0; i < 5; i++) {
        if (st[i] != 0)
            show_err(i);
        assert_int_equal(st[i], 0);
    }
    assert_int_equal(
        count_of(path,
                 "SELECT count(*) FROM runs WHERE sweep_key IS NOT NULL;"),
        6);
    assert_int_equal(count_of(path, "SELECT count(DISTINCT case_key) FROM runs "
                                    "WHERE sweep_key IS NOT NULL;"),
                     6);
    assert_int_equal(
        count_of(path, "SELECT count(*) FROM runs WHERE sweep_key IS NULL;"),
        2);
    assert_integrity_ok(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_db_concurrent_writers_on_a_new_file_store_every_run_once),
        cmocka_unit_test(
            test_db_concurrent_identical_sweeps_skip_cases_stored_by_another),
    };
    return cmocka_run_group_tests_name("db_concurrent", tests, setup, teardown);
}
