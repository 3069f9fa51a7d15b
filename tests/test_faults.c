/* tests/test_faults.c: what factorysim does when the machine lets it down
 * (issue 9.4): standard output on a full disk, output files on a full disk
 * or in a missing folder, report charts that do not fit, a results
 * database that is read-only, full,
 * corrupt, or whose writer is killed. Each case must give a clear
 * "factorysim: ..." message and a nonzero exit, leave no partial output
 * file, and lose no stored run (tests/db_dump.sh compares the rows).
 *
 * A full disk is a file size limit (ulimit -f, SIGXFSZ ignored) in the
 * child shell, which works for any user; when this process may mount (root
 * in a container that allows it) the database cases also run on a small
 * tmpfs that is filled or remounted read-only, the real thing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/cli_util.h"

#define TP_CSV "data/calibration/megatron_throughput.csv"
#define SMALL_RUN "run tests/data/run/grid-one-job.cfg --format csv"
#define BIG_RUN                                                                \
    "run scenarios/nevada-solar.cfg --replications 2 --series all --format "   \
    "csv"

static char dir[96], out[1 << 16], err[1 << 14];

/* Runs the shell script s (with "$FS" the binary), capturing stdout and
 * stderr like fs_run. Returns the exit status, -1 if killed. */
static int sh_run(const char *s, char *o, size_t n_o, char *e, size_t n_e)
{
    char cmd[8192], errpath[256];
    FILE *p;
    size_t len = 0;
    int st;
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "FS='%s'; export FS; exec 2>%s; %s", fs_bin(),
             errpath, s);
    p = popen(cmd, "r");
    assert_non_null(p);
    len = fread(o, 1, n_o - 1, p);
    o[len] = '\0';
    while (fgetc(p) != EOF)
        ;
    st = pclose(p);
    {
        FILE *f = fopen(errpath, "r");
        size_t m = f ? fread(e, 1, n_e - 1, f) : 0;
        e[m] = '\0';
        if (f)
            fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file as a malloc'ed string (NULL when missing). */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0, got;
    *n = 0;
    if (!f)
        return NULL;
    do {
        cap += 1 << 20;
        b = realloc(b, cap + 1);
        got = fread(b + *n, 1, cap - *n, f);
        *n += got;
    } while (*n == cap);
    fclose(f);
    b[*n] = '\0';
    return b;
}

/* Output of a shell command as a malloc'ed string; asserts it exits 0. */
static char *capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    char *b = NULL;
    size_t n = 0, cap = 0, got;
    assert_non_null(p);
    do {
        cap += 1 << 20;
        b = realloc(b, cap + 1);
        got = fread(b + n, 1, cap - n, p);
        n += got;
    } while (got > 0);
    b[n] = '\0';
    assert_int_equal(pclose(p), 0);
    return b;
}

static char *dump(const char *db, int id)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh tests/db_dump.sh %s %d", db, id);
    return capture(cmd);
}

/* PRAGMA integrity_check and the number of runs, as "ok|N". */
static char *db_state(const char *db)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "sqlite3 -batch -noheader %s 'PRAGMA integrity_check;' "
             "'SELECT count(*) FROM runs;' | tr '\\n' '|'",
             db);
    return capture(cmd);
}

static void assert_state(const char *db, const char *want)
{
    char *s = db_state(db);
    if (strcmp(s, want) != 0)
        fail_msg("%s: integrity/runs '%s', expected '%s'", db, s, want);
    free(s);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/factorysim-faults-%ld", (long)getpid());
    mkdir(dir, 0755);
    return 0;
}

static int teardown(void **state)
{
    char cmd[256];
    (void)state;
    snprintf(cmd, sizeof cmd, "umount %s/mnt 2>/dev/null; rm -rf %s", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes a throughput CSV whose rows all parse (predict exits 0 on it). */
static const char *good_csv(void)
{
    static char p[256];
    FILE *f;
    snprintf(p, sizeof p, "%s/good.csv", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("model,gpu,num_gpus,precision,gbs,mbs,seq_len,tp,pp,cp,ep,vp\n"
          "Llama 3.1 70B,H100,64,FP8,128,1,8192,4,2,1,,1\n"
          "Llama 3.1 405B,B300,256,BF16,512,1,8192,4,8,2,1,4\n",
          f);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* Standard output on a full disk (/dev/full): every command notices. */
static void test_faults_stdout_on_full_disk_exits_1(void **state)
{
    char s[1024];
    const char *cmds[] = {"check scenarios/nevada-solar.cfg",
                          "catalog gpus",
                          "run tests/data/run/grid-one-job.cfg --no-db",
                          "power scenarios/nevada-solar.cfg",
                          "--version",
                          NULL};
    (void)state;
    for (int i = 0; cmds[i]; i++) {
        snprintf(s, sizeof s, "\"$FS\" %s >/dev/full", cmds[i]);
        if (sh_run(s, out, sizeof out, err, sizeof err) != 1)
            fail_msg("%s > /dev/full: not exit 1 (stderr: %s)", cmds[i], err);
        assert_non_null(strstr(err,
                               "factorysim: writing standard output failed: "
                               "No space left on device"));
    }
    snprintf(s, sizeof s, "\"$FS\" predict --csv %s >/dev/full", good_csv());
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "writing standard output failed"));
    /* The same commands succeed on a real output. */
    snprintf(s, sizeof s, "\"$FS\" predict --csv %s", good_csv());
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "predicted_tokens_per_sec_per_gpu"));
}

/* An output file on a full disk (a 16 KiB file size limit): the file is
 * never left half-written, and an earlier good file is kept as it was. */
static void
test_faults_output_file_on_full_disk_leaves_no_partial_file(void **state)
{
    char s[2048], p[256], tmp[300];
    char *before, *after;
    size_t n_before, n_after;
    (void)state;
    snprintf(p, sizeof p, "%s/pred.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    /* A good earlier output. */
    snprintf(s, sizeof s, "\"$FS\" predict --csv %s --out %s", good_csv(), p);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    before = slurp(p, &n_before);
    assert_non_null(before);
    /* The whole shared table (about 700 rows, 300 KB of output) cannot fit. */
    snprintf(s, sizeof s,
             "ulimit -f 32; trap '' XFSZ; \"$FS\" predict --csv " TP_CSV
             " --out %s",
             p);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(
        strstr(err, "pred.csv: cannot write file (File too large)"));
    after = slurp(p, &n_after);
    assert_non_null(after);
    assert_int_equal(n_after, n_before);
    assert_memory_equal(after, before, n_before);
    assert_false(exists(tmp));
    free(before);
    free(after);

    /* calibrate --out: the calibration file (about 9.6 KB) under a 4 KiB
     * limit; the limit holds for the stderr file too, which carries the
     * reader's notes on the rows (about 750 bytes) before the error. */
    snprintf(p, sizeof p, "%s/cal.cfg", dir);
    snprintf(s, sizeof s,
             "ulimit -f 8; trap '' XFSZ; \"$FS\" calibrate --no-cv " TP_CSV
             " --out %s >/dev/null",
             p);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "cal.cfg: cannot write calibration file"));
    assert_false(exists(p));
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    assert_false(exists(tmp));

    /* power --steps: a year of 15-minute steps is megabytes. */
    snprintf(p, sizeof p, "%s/steps.csv", dir);
    snprintf(s, sizeof s,
             "ulimit -f 64; trap '' XFSZ; \"$FS\" power "
             "scenarios/nevada-solar.cfg --steps %s >/dev/null",
             p);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "steps.csv: write failed (disk full?)"));
    assert_false(exists(p));

    /* run's results to a full file: exit 1 with the reason. */
    snprintf(p, sizeof p, "%s/run.csv", dir);
    snprintf(s, sizeof s,
             "ulimit -f 1; trap '' XFSZ; \"$FS\" " SMALL_RUN " --no-db >%s", p);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "factorysim: writing standard output failed"));
}

/* The one rule for outputs (issue 12.6): every output path a command is
 * given gets its missing folders made, as mkdir -p; a folder that cannot
 * be made (a file stands in its way) is a clear error and nothing is
 * written. */
static void test_faults_output_paths_get_their_folders_made(void **state)
{
    char s[1024], p[512];
    (void)state;
    snprintf(s, sizeof s, "\"$FS\" predict --csv %s --out %s/mk1/a/p.csv",
             good_csv(), dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk1/a/p.csv", dir);
    assert_true(exists(p));
    snprintf(s, sizeof s,
             "\"$FS\" calibrate --no-cv " TP_CSV " --out %s/mk2/a/c.cfg", dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk2/a/c.cfg", dir);
    assert_true(exists(p));
    snprintf(s, sizeof s,
             "\"$FS\" power scenarios/nevada-solar.cfg --steps %s/mk3/a/s.csv",
             dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk3/a/s.csv", dir);
    assert_true(exists(p));
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s/mk4/a/r.db", dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk4/a/r.db", dir);
    assert_true(exists(p));
    snprintf(s, sizeof s,
             "\"$FS\" export --db %s/mk4/a/r.db --what runs --out "
             "%s/mk5/a/runs.csv",
             dir, dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk5/a/runs.csv", dir);
    assert_true(exists(p));
    snprintf(s, sizeof s, "\"$FS\" report --db %s/mk4/a/r.db --out %s/mk6/a",
             dir, dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/mk6/a/power.png", dir);
    assert_true(exists(p));
}

static void
test_faults_output_folder_that_cannot_be_made_is_a_clear_error(void **state)
{
    char s[1024], p[512];
    (void)state;
    /* A regular file where a folder must go, for every kind of output. */
    snprintf(s, sizeof s, "\"$FS\" predict --csv %s --out %s/p.csv", good_csv(),
             good_csv());
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "good.csv/p.csv: cannot create the folder"));
    assert_non_null(strstr(err, "a file of that name exists"));
    snprintf(s, sizeof s, "\"$FS\" calibrate --no-cv " TP_CSV " --out %s/c.cfg",
             good_csv());
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "good.csv/c.cfg: cannot create the folder"));
    snprintf(s, sizeof s,
             "\"$FS\" power scenarios/nevada-solar.cfg --steps %s/s.csv",
             good_csv());
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "good.csv/s.csv: cannot create the folder"));
    snprintf(s, sizeof s,
             "\"$FS\" " SMALL_RUN " --db tests/data/good/minimal.cfg/r.db");
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "factorysim: tests/data/good/minimal.cfg/r.db: "
                                "cannot create the folder"));
    assert_string_equal(out, "");
    /* A folder the user may not make (/proc refuses everyone). */
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db /proc/nope/r.db");
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "cannot create the folder '/proc/nope'"));
    snprintf(p, sizeof p, "%s/p.csv", good_csv());
    assert_false(exists(p));
}

/* A database that cannot take the next run (full: the shell prefix sets a
 * limit, or fill_cmd fills the disk after run 1) refuses it with a
 * message, prints no results, and keeps run 1 byte for byte; once space is
 * back (free_cmd), the next run is stored as run 2. */
static void full_db_case(const char *db, const char *prefix,
                         const char *fill_cmd, const char *free_cmd)
{
    char s[2048];
    char *r1, *r1_after;
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    r1 = dump(db, 1);
    if (fill_cmd)
        assert_int_equal(system(fill_cmd), 0);
    snprintf(s, sizeof s, "%s \"$FS\" " BIG_RUN " --db %s", prefix, db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    if (!strstr(err, ": disk full ("))
        fail_msg("full database: '%s'", err);
    assert_non_null(strstr(err, "factorysim: "));
    assert_string_equal(out, "");
    if (free_cmd)
        assert_int_equal(system(free_cmd), 0);
    assert_state(db, "ok|1|");
    r1_after = dump(db, 1);
    assert_string_equal(r1, r1_after);
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(err, "stored as run 2"));
    assert_state(db, "ok|2|");
    free(r1);
    free(r1_after);
}

/* Mounts a tmpfs of size_kb at dir/mnt; 0 when done, -1 when this
 * machine does not allow it. */
static int mount_tmpfs(int size_kb)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/mnt && mount -t tmpfs -o size=%dk tmpfs %s/mnt "
             "2>/dev/null",
             dir, size_kb, dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void umount_tmpfs(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "umount %s/mnt", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_faults_full_disk_keeps_stored_runs(void **state)
{
    char db[256], fill[512], unfill[512];
    (void)state;
    /* A 2 MiB file size limit: run 1 (about 0.7 MB) fits, the big run's
     * series (about 6 MB) does not. */
    snprintf(db, sizeof db, "%s/full-limit.db", dir);
    full_db_case(db, "ulimit -f 4096; trap '' XFSZ;", NULL, NULL);
    /* A real full file system, when mount is allowed: an 8 MiB tmpfs,
     * filled to the last block after run 1. */
    if (mount_tmpfs(8192) == 0) {
        snprintf(db, sizeof db, "%s/mnt/full.db", dir);
        snprintf(fill, sizeof fill,
                 "dd if=/dev/zero of=%s/mnt/fill bs=4k 2>/dev/null; "
                 "[ -s %s/mnt/fill ]",
                 dir, dir);
        snprintf(unfill, sizeof unfill, "rm %s/mnt/fill", dir);
        full_db_case(db, "", fill, unfill);
        umount_tmpfs();
    } else {
        print_message("full disk: mount refused here; file size limit only\n");
    }
}

static void test_faults_read_only_database_refuses_the_run(void **state)
{
    char db[256], s[1024], cmd[512];
    char *r1, *r1_after;
    int on_tmpfs = mount_tmpfs(16384) == 0;
    (void)state;
    /* Without mount, mode bits, which bind every user but root. */
    if (!on_tmpfs && geteuid() == 0) {
        print_message("read-only: root and mount refused; not testable here\n");
        skip();
    }
    snprintf(db, sizeof db, on_tmpfs ? "%s/mnt/ro.db" : "%s/ro.db", dir);
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    r1 = dump(db, 1);
    snprintf(cmd, sizeof cmd, "mount -o remount,ro %s/mnt", dir);
    if (on_tmpfs)
        assert_int_equal(system(cmd), 0);
    else
        assert_int_equal(chmod(db, 0444), 0);
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "database is read-only"));
    assert_string_equal(out, "");
    /* Reading still works: export, and report into a writable folder. */
    snprintf(s, sizeof s, "\"$FS\" export --db %s --what runs --format csv",
             db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "grid-one-job,"));
    snprintf(
        s, sizeof s,
        "mkdir -p %s/ro-report && \"$FS\" report --db %s --out %s/ro-report",
        dir, db, dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "%s/ro-report/summary.md", dir);
    assert_true(exists(cmd));
    snprintf(cmd, sizeof cmd, "mount -o remount,rw %s/mnt", dir);
    if (on_tmpfs)
        assert_int_equal(system(cmd), 0);
    else
        assert_int_equal(chmod(db, 0644), 0);
    assert_state(db, "ok|1|");
    r1_after = dump(db, 1);
    assert_string_equal(r1, r1_after);
    free(r1);
    free(r1_after);
    if (on_tmpfs)
        umount_tmpfs();
}

/* SIGKILL at several points of a run (loading, simulating, storing): the
 * database stays valid, run 1 is untouched, and a killed run is either
 * absent or complete. */
static void test_faults_killed_run_keeps_earlier_runs(void **state)
{
    /* Kill points as fractions of one whole run's wall time on this
     * machine (measured first), so that loading, simulating and storing are
     * all hit whatever the build (-O2, ASan) or the load. */
    const double frac[] = {0.05, 0.2, 0.4, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 2.0};
    char db[256], s[1024];
    char *r1;
    int runs = 1, killed = 0;
    double t_run_s;
    (void)state;
    snprintf(db, sizeof db, "%s/kill.db", dir);
    {
        struct timespec t0, t1;
        char scratch[256];
        snprintf(scratch, sizeof scratch, "%s/kill-timing.db", dir);
        snprintf(s, sizeof s, "\"$FS\" " BIG_RUN " --db %s >/dev/null",
                 scratch);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        t_run_s = (double)(t1.tv_sec - t0.tv_sec) +
                  1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    }
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    r1 = dump(db, 1);
    for (size_t k = 0; k < sizeof frac / sizeof frac[0]; k++) {
        double d = frac[k] * t_run_s;
        struct timespec nap = {(time_t)d, (long)((d - floor(d)) * 1e9)};
        int st;
        char *state_s, want[64];
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                _exit(126);
            execl(fs_bin(), fs_bin(), "run", "scenarios/nevada-solar.cfg",
                  "--replications", "2", "--series", "all", "--format", "csv",
                  "--db", db, (char *)NULL);
            _exit(127);
        }
        /* The last point is not a kill: the run is left to finish, so that
         * at least one run after the kills is stored whatever the machine's
         * load (a 1.5x kill missed it when other builds slowed the run). */
        if (frac[k] <= 1.0) {
            nanosleep(&nap, NULL);
            kill(pid, SIGKILL);
        }
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (WIFSIGNALED(st))
            killed++;
        else
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        state_s = db_state(db);
        snprintf(want, sizeof want, "ok|%d|", runs + 1);
        if (strcmp(state_s, want) == 0) {
            char *rn;
            runs++; /* finished, or committed just before the kill */
            rn = dump(db, runs);
            assert_non_null(strstr(rn, "'complete'"));
            free(rn);
        } else {
            snprintf(want, sizeof want, "ok|%d|", runs);
            if (strcmp(state_s, want) != 0)
                fail_msg("after a kill at %.0f ms: '%s', expected ok and %d or "
                         "%d runs",
                         1e3 * d, state_s, runs, runs + 1);
        }
        free(state_s);
        {
            char *again = dump(db, 1);
            assert_string_equal(again, r1);
            free(again);
        }
    }
    print_message(
        "kill test: a run takes %.0f ms; %d of %zu runs killed, %d stored\n",
        1e3 * t_run_s, killed, sizeof frac / sizeof frac[0], runs);
    assert_true(killed > 0);
    assert_true(runs > 1); /* the last one (not killed) finished */
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    free(r1);
}

/* A corrupted page, random bytes, a truncated file: refused with a clear
 * message before anything is simulated or written; the file is not
 * touched. */
static void test_faults_corrupt_database_is_refused(void **state)
{
    char db[256], bad[256], s[1024];
    char *orig, *after;
    size_t n, n_after;
    uint32_t x = 12345;
    FILE *f;
    (void)state;
    snprintf(db, sizeof db, "%s/good.db", dir);
    snprintf(s, sizeof s,
             "\"$FS\" " SMALL_RUN " --db %s >/dev/null && "
             "sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null",
             db, db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    orig = slurp(db, &n);
    assert_true(n > 5 * 4096);
    for (int kind = 0; kind < 3; kind++) {
        snprintf(bad, sizeof bad, "%s/bad-%d.db", dir, kind);
        f = fopen(bad, "wb");
        assert_non_null(f);
        if (kind == 0) { /* page 3 overwritten with noise */
            char *c = malloc(n);
            memcpy(c, orig, n);
            for (size_t i = 2 * 4096; i < 3 * 4096; i++) {
                x = x * 1664525u + 1013904223u;
                c[i] = (char)(x >> 24);
            }
            fwrite(c, 1, n, f);
            free(c);
        } else if (kind == 1) { /* noise only */
            for (int i = 0; i < 8192; i++) {
                x = x * 1664525u + 1013904223u;
                fputc((int)(x >> 24), f);
            }
        } else { /* cut after 2.5 pages */
            fwrite(orig, 1, 10240, f);
        }
        assert_int_equal(fclose(f), 0);
        {
            size_t n_bad;
            char *before = slurp(bad, &n_bad);
            snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s", bad);
            assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
            if (!strstr(err, "not a factorysim results database"))
                fail_msg("corrupt database %d: '%s'", kind, err);
            assert_string_equal(out, "");
            after = slurp(bad, &n_after);
            assert_int_equal(n_after, n_bad);
            assert_memory_equal(after, before, n_bad);
            free(before);
            free(after);
        }
    }
    free(orig);
}

/* report and export (issue 7) when the output fails: a missing folder, a
 * chart that does not fit (a 35 KiB file size limit, above the 32 KiB
 * SQLite WAL index the report opens; the power chart is
 * about 37 KB since issue 20's PUE by load, the first chart written),
 * standard output on a full disk, a corrupt database. */
static void test_faults_report_and_export_outputs(void **state)
{
    char db[256], s[1024], rep[256];
    (void)state;
    snprintf(db, sizeof db, "%s/report.db", dir);
    snprintf(s, sizeof s, "\"$FS\" " SMALL_RUN " --db %s >/dev/null", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(s, sizeof s, "\"$FS\" report --db %s --out %s/report.db/x", db,
             dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "report.db/x: cannot create the folder"));
    snprintf(rep, sizeof rep, "%s/report-full", dir);
    snprintf(s, sizeof s,
             "mkdir -p %s && ulimit -f 70 && trap '' XFSZ && "
             "\"$FS\" report --db %s --out %s",
             rep, db, rep);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(
        strstr(err, "power.png: chart file incomplete after writing"));
    snprintf(s, sizeof s, "%s/power.png", rep);
    assert_false(exists(s));
    /* Without the limit the same report is written. */
    snprintf(s, sizeof s, "\"$FS\" report --db %s --out %s", db, rep);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 0);
    snprintf(s, sizeof s, "%s/power.png", rep);
    assert_true(exists(s));
    snprintf(s, sizeof s,
             "\"$FS\" export --db %s --what jobs --format csv >/dev/full", db);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "factorysim: "));
    snprintf(s, sizeof s,
             "head -c 10240 %s > %s/cut.db; \"$FS\" export --db %s/cut.db "
             "--what jobs --format csv",
             db, dir, dir);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "not a factorysim results database"));
    assert_string_equal(out, "");
    snprintf(s, sizeof s, "\"$FS\" report --db %s/cut.db --out %s", dir, rep);
    assert_int_equal(sh_run(s, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "not a factorysim results database"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faults_stdout_on_full_disk_exits_1),
        cmocka_unit_test(
            test_faults_output_file_on_full_disk_leaves_no_partial_file),
        cmocka_unit_test(test_faults_output_paths_get_their_folders_made),
        cmocka_unit_test(
            test_faults_output_folder_that_cannot_be_made_is_a_clear_error),
        cmocka_unit_test(test_faults_full_disk_keeps_stored_runs),
        cmocka_unit_test(test_faults_read_only_database_refuses_the_run),
        cmocka_unit_test(test_faults_killed_run_keeps_earlier_runs),
        cmocka_unit_test(test_faults_corrupt_database_is_refused),
        cmocka_unit_test(test_faults_report_and_export_outputs),
    };
    return cmocka_run_group_tests_name("faults", tests, setup, teardown);
}
