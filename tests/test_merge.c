/* tests/test_merge.c: `factorysim merge` and the network file system check
 * (io/db.h db_merge, db_network_fs_name; issue 13.2). Per-task databases
 * are made by real `run` and `sweep --shard` processes; what the merged
 * file holds is compared row by row with tests/db_dump.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "io/db.h"
#include "tests/cli_util.h"

#define RUN_ARGS                                                               \
    "run tests/data/run/grid-one-job.cfg --replications 2 --set "              \
    "simulation.horizon_days=5 --series all"
#define SWEEP_ARGS                                                             \
    "sweep tests/data/sweep/small.cfg --set modules.[0].count=1,2 --set "      \
    "energy.solar.capacity_mw=2,4,6 --replications 1 --set "                   \
    "simulation.horizon_days=3 --jobs 1 --quiet --format csv"

static char dir[256], out[1 << 14], err[1 << 14];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-merge-%ld", (long)getpid());
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

/* DIR/name with any database files of that name removed. */
static const char *fresh(const char *name)
{
    static char p[8][320];
    static int k;
    char cmd[800];
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, "rm -f %s %s-wal %s-shm", p[k], p[k], p[k]);
    assert_int_equal(system(cmd), 0);
    return p[k];
}

/* First line of a shell command's output. */
static void sh_line(const char *cmd, char *line, size_t n)
{
    FILE *f = popen(cmd, "r");
    line[0] = '\0';
    assert_non_null(f);
    if (fgets(line, (int)n, f))
        line[strcspn(line, "\n")] = '\0';
    pclose(f);
}

static long long q_int(const char *db_path, const char *sql)
{
    char cmd[1024], line[64];
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"%s\" 2>/dev/null", db_path, sql);
    sh_line(cmd, line, sizeof line);
    return atoll(line);
}

/* tests/db_dump.sh of run id in db_path into buf. */
static void dump(const char *db_path, long long id, char *buf, size_t n)
{
    char cmd[1024];
    FILE *f;
    size_t m;
    snprintf(cmd, sizeof cmd, "sh tests/db_dump.sh %s %lld", db_path, id);
    f = popen(cmd, "r");
    assert_non_null(f);
    m = fread(buf, 1, n - 1, f);
    buf[m] = '\0';
    assert_int_equal(pclose(f), 0);
    assert_true(m > 0 && m < n - 1);
}

static void run_ok(const char *args)
{
    int st = fs_run(args, out, sizeof out, err, sizeof err);
    if (st != 0)
        print_message("factorysim %s: %s\n", args, err);
    assert_int_equal(st, 0);
}

/* db.h db_merge: "copies every run ... with its scenario, site facts,
 * replications, summaries, time series and event log": the merged run's
 * rows equal the source's, value for value. */
static void test_merge_copies_every_row_of_every_run(void **state)
{
    const char *a = fresh("a.db"), *b = fresh("b.db"), *o = fresh("out.db");
    static char d1[1 << 20], d2[1 << 20];
    char args[1024];
    (void)state;
    snprintf(args, sizeof args, RUN_ARGS " --seed 5 --db %s", a);
    run_ok(args);
    snprintf(args, sizeof args, RUN_ARGS " --seed 6 --db %s", b);
    run_ok(args);
    snprintf(args, sizeof args, RUN_ARGS " --seed 7 --no-events --db %s", b);
    run_ok(args);
    snprintf(args, sizeof args, "merge --db %s %s %s", o, a, b);
    run_ok(args);
    assert_non_null(strstr(out, "3 run(s) added, 0 already there"));
    assert_int_equal(q_int(o, "SELECT count(*) FROM runs;"), 3);
    /* Inputs in the order given, runs in their order: a's 1, b's 1 and 2. */
    dump(a, 1, d1, sizeof d1);
    dump(o, 1, d2, sizeof d2);
    assert_string_equal(d1, d2);
    dump(b, 2, d1, sizeof d1);
    dump(o, 3, d2, sizeof d2);
    assert_string_equal(d1, d2);
    assert_true(q_int(o, "SELECT count(*) FROM timeseries WHERE run_id = 3;") >
                0);
    assert_int_equal(q_int(o, "SELECT count(*) FROM scenarios;"), 1);
    {
        /* db_dump.sh leaves the creation time out; it is copied too. */
        char c1[64], c2[64], cmd[512];
        snprintf(cmd, sizeof cmd,
                 "sqlite3 %s \"SELECT created_utc FROM runs WHERE id = 1;\"",
                 b);
        sh_line(cmd, c1, sizeof c1);
        snprintf(cmd, sizeof cmd,
                 "sqlite3 %s \"SELECT created_utc FROM runs WHERE id = 2;\"",
                 o);
        sh_line(cmd, c2, sizeof c2);
        assert_true(strlen(c1) == 20);
        assert_string_equal(c1, c2);
    }
}

/* db.h db_merge: "merging the same file twice stores nothing the second
 * time". */
static void test_merge_twice_stores_nothing_twice(void **state)
{
    const char *a = fresh("a.db"), *o = fresh("out.db");
    char args[1024];
    (void)state;
    snprintf(args, sizeof args, RUN_ARGS " --seed 5 --db %s", a);
    run_ok(args);
    snprintf(args, sizeof args, RUN_ARGS " --seed 6 --db %s", a);
    run_ok(args);
    snprintf(args, sizeof args, SWEEP_ARGS " --db %s", a);
    run_ok(args);
    snprintf(args, sizeof args, "merge --db %s %s %s", o, a, a);
    run_ok(args);
    assert_non_null(strstr(out, "8 run(s) added, 8 already there"));
    run_ok(args);
    assert_non_null(strstr(out, "0 run(s) added, 16 already there"));
    assert_int_equal(q_int(o, "SELECT count(*) FROM runs;"), 8);
    assert_int_equal(q_int(o, "SELECT count(*) FROM site_reps;"),
                     q_int(a, "SELECT count(*) FROM site_reps;"));
    assert_int_equal(q_int(o, "SELECT count(*) FROM timeseries;"),
                     q_int(a, "SELECT count(*) FROM timeseries;"));
    {
        char cmd[512], line[64];
        snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA integrity_check;'", o);
        sh_line(cmd, line, sizeof line);
        assert_string_equal(line, "ok");
    }
}

/* docs/sweeps.md: a sweep split over Slurm tasks with --shard merges into
 * one sweep whose cases are all there: running the whole sweep on the
 * merged file runs nothing and prints what one process would have. */
static void test_merge_sharded_sweep_is_one_resumable_sweep(void **state)
{
    const char *s0 = fresh("s0.db"), *s1 = fresh("s1.db"), *s2 = fresh("s2.db"),
               *o = fresh("out.db"), *one = fresh("one.db");
    static char whole[1 << 14];
    char args[1024];
    (void)state;
    snprintf(args, sizeof args, SWEEP_ARGS " --db %s", one);
    run_ok(args);
    snprintf(whole, sizeof whole, "%s", out);
    snprintf(args, sizeof args, SWEEP_ARGS " --shard 0/3 --db %s", s0);
    run_ok(args);
    snprintf(args, sizeof args, SWEEP_ARGS " --shard 1/3 --db %s", s1);
    run_ok(args);
    snprintf(args, sizeof args, SWEEP_ARGS " --shard 2/3 --db %s", s2);
    run_ok(args);
    assert_int_equal(q_int(s1, "SELECT count(*) FROM runs;"), 2);
    assert_int_equal(q_int(s1, "SELECT min(case_index) FROM runs;"), 1);
    snprintf(args, sizeof args, "merge --db %s %s %s %s", o, s0, s1, s2);
    run_ok(args);
    assert_int_equal(q_int(o, "SELECT count(DISTINCT sweep_key) FROM runs;"),
                     1);
    assert_int_equal(q_int(o, "SELECT count(DISTINCT case_index) FROM runs;"),
                     6);
    snprintf(args, sizeof args, SWEEP_ARGS " --db %s", o);
    {
        char *q = strstr(args, " --quiet");
        memmove(q, q + 8, strlen(q + 8) + 1); /* the progress line, please */
    }
    run_ok(args);
    assert_non_null(strstr(err, "6 case(s), 6 already stored, 0 to run"));
    assert_string_equal(out, whole);
    assert_int_equal(q_int(o, "SELECT count(*) FROM runs;"), 6);
}

/* db.h db_merge: "a killed merge leaves src either fully merged or not at
 * all", and the same command run again finishes the job. Merges of three
 * inputs (about 0.6 s in all here) are killed (SIGKILL) after 30 to 555 ms;
 * after each, every input's runs are all in the output or none, with every
 * time-series row. How many kills landed between inputs is printed. */
static void test_merge_killed_midway_keeps_whole_inputs(void **state)
{
    char in[3][256], o[256];
    char args[2048], cmd[2400];
    long long ts_per_run;
    int n_partial = 0;
    (void)state;
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d.db", i);
        snprintf(in[i], sizeof in[i], "%s", fresh(name));
    }
    snprintf(o, sizeof o, "%s", fresh("kout.db"));
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(args, sizeof args,
                     "run tests/data/run/grid-one-job.cfg --replications 3 "
                     "--series all --seed %d --db %s",
                     40 + i + 10 * k, in[i]);
            run_ok(args);
        }
    ts_per_run = q_int(in[0], "SELECT count(*) FROM timeseries;") / 2;
    assert_true(ts_per_run > 1000);
    for (int t = 0; t < 8; t++) {
        long long total = 0;
        fresh("kout.db");
        snprintf(cmd, sizeof cmd,
                 "%s merge --db %s %s %s %s >/dev/null 2>&1 & p=$!; "
                 "sleep %.3f; kill -9 $p 2>/dev/null; wait $p 2>/dev/null; "
                 "true",
                 fs_bin(), o, in[0], in[1], in[2], 0.03 + 0.075 * t);
        assert_int_equal(system(cmd), 0);
        if (access(o, F_OK) != 0)
            continue; /* killed before it created the file */
        for (int i = 0; i < 3; i++) {
            char sql[256];
            long long n;
            snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM runs WHERE seed IN (%d, %d);",
                     40 + i, 50 + i);
            n = q_int(o, sql);
            assert_true(n == 0 || n == 2);
            total += n;
        }
        if (total > 0 && total < 6)
            n_partial++;
        assert_int_equal(q_int(o, "SELECT count(*) FROM timeseries;"),
                         total * ts_per_run);
        snprintf(args, sizeof args, "merge --db %s %s %s %s", o, in[0], in[1],
                 in[2]);
        run_ok(args);
        assert_int_equal(q_int(o, "SELECT count(*) FROM runs;"), 6);
        assert_int_equal(q_int(o, "SELECT count(*) FROM timeseries;"),
                         6 * ts_per_run);
    }
    print_message("merges killed between inputs: %d of 8\n", n_partial);
}

/* Usage and bad inputs: exit 2 without --db or inputs; exit 1 naming the
 * file for an input that is not a results database or is the output. */
static void test_merge_bad_inputs_are_refused_with_the_file(void **state)
{
    const char *o = fresh("out.db"), *txt = fresh("notes.txt");
    char args[1024];
    FILE *f;
    (void)state;
    assert_int_equal(fs_run("merge a.db", out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--db OUT.db is required"));
    snprintf(args, sizeof args, "merge --db %s", o);
    assert_int_equal(fs_run(args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "no input database given"));
    f = fopen(txt, "w");
    assert_non_null(f);
    fputs("not a database, just words on a page\n", f);
    fclose(f);
    snprintf(args, sizeof args, "merge --db %s %s", o, txt);
    assert_int_equal(fs_run(args, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, txt));
    assert_non_null(strstr(err, "not a factorysim results database"));
    assert_non_null(strstr(err, "merged 0 of 1 input(s)"));
    snprintf(args, sizeof args, "merge --db %s %s", o, o);
    assert_int_equal(fs_run(args, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "is the output database itself"));
    snprintf(args, sizeof args, "merge --db %s %s/missing.db", o, dir);
    assert_int_equal(fs_run(args, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "missing.db: cannot open results database"));
}

/* db.h db_network_fs_name: NFS, Lustre, SMB/CIFS, Ceph, GPFS, BeeGFS are
 * network file systems (refused by db_open); ext4, xfs, btrfs, tmpfs,
 * overlayfs and FUSE are not. */
static void test_merge_network_file_systems_are_recognised(void **state)
{
    (void)state;
    assert_string_equal(db_network_fs_name(0x6969UL), "nfs");
    assert_string_equal(db_network_fs_name(0x0BD00BD0UL), "lustre");
    assert_string_equal(db_network_fs_name(0xFF534D42UL), "cifs");
    assert_string_equal(db_network_fs_name(0xFE534D42UL), "smb2");
    assert_string_equal(db_network_fs_name(0x517BUL), "smb");
    assert_string_equal(db_network_fs_name(0x00C36400UL), "ceph");
    assert_string_equal(db_network_fs_name(0x47504653UL), "gpfs");
    assert_string_equal(db_network_fs_name(0x19830326UL), "beegfs");
    assert_null(db_network_fs_name(0xEF53UL));     /* ext4 */
    assert_null(db_network_fs_name(0x58465342UL)); /* xfs */
    assert_null(db_network_fs_name(0x9123683EUL)); /* btrfs */
    assert_null(db_network_fs_name(0x01021994UL)); /* tmpfs */
    assert_null(db_network_fs_name(0x794C7630UL)); /* overlayfs */
    assert_null(db_network_fs_name(0x65735546UL)); /* fuse */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_copies_every_row_of_every_run),
        cmocka_unit_test(test_merge_twice_stores_nothing_twice),
        cmocka_unit_test(test_merge_sharded_sweep_is_one_resumable_sweep),
        cmocka_unit_test(test_merge_killed_midway_keeps_whole_inputs),
        cmocka_unit_test(test_merge_bad_inputs_are_refused_with_the_file),
        cmocka_unit_test(test_merge_network_file_systems_are_recognised),
    };
    return cmocka_run_group_tests_name("merge", tests, setup, teardown);
}
