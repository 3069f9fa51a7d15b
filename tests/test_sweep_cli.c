/* tests/test_sweep_cli.c: `factorysim sweep` from the command line:
 * results identical for --jobs 1 and --jobs 2 (stored rows compared byte
 * for byte, ids and timestamps aside), resume skips stored cases, SIGINT
 * stops cleanly and SIGKILL loses at most the cases in flight (both for
 * real: the binary is forked, signalled and rerun, and the final database
 * equals an uninterrupted run's), and the CLI's errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/cli_util.h"
#include "tests/sweep_util.h"
#include "tests/testutil.h"

static char out1[1 << 18], out2[1 << 18], err[1 << 16];

#define SMALL "tests/data/sweep/small.cfg"
/* 2 x 2 x 2 = 8 cases of 2 replications, every stored part exercised. */
#define GRID8                                                                  \
    "--set energy.battery.capacity_mwh=4,8 --set modules.[0].count=1:2:1 "     \
    "--set simulation.seed=1,2 --series first --events --quiet"
/* 16 cases of 4 replications, slow enough to be interrupted. */
#define GRID16                                                                 \
    "--set energy.solar.capacity_mw=2:5:1 --set "                              \
    "energy.battery.capacity_mwh=4:10:2 "                                      \
    "--replications 4"

static const char *tpath(const char *name)
{
    static char p[8][128];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "/tmp/factorysim-sweep-%ld-%s", (long)getpid(),
             name);
    return p[k];
}

static void rm_db(const char *p)
{
    char s[160];
    remove(p);
    snprintf(s, sizeof s, "%s-wal", p);
    remove(s);
    snprintf(s, sizeof s, "%s-shm", p);
    remove(s);
}

/* Dumps path and checks it has n cases. */
static char *dump_n(const char *path, size_t *len, long n)
{
    char *d = NULL;
    long got = sweep_dump(path, &d, len, NULL);
    if (got != n)
        fail_msg("%s: %ld cases stored, expected %ld", path, got, n);
    return d;
}

/* "Results identical whatever N": the stored rows and the summary. */
static void test_sweep_cli_jobs_1_and_2_store_identical_results(void **state)
{
    const char *a = tpath("j1.db"), *b = tpath("j2.db");
    char args[1024], *da, *db_;
    size_t la, lb;
    (void)state;
    rm_db(a);
    rm_db(b);
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID8 " --jobs 1 --format csv --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID8 " --jobs 2 --format csv --db %s", b);
    assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
    assert_string_equal(out1, out2);
    assert_non_null(
        strstr(out1, "case_index,case_key,energy.battery.capacity_mwh,"));
    da = dump_n(a, &la, 8);
    db_ = dump_n(b, &lb, 8);
    assert_int_equal(la, lb);
    assert_true(la > 100000); /* steps and events are in it */
    assert_true(memcmp(da, db_, la) == 0);
    free(da);
    free(db_);
    /* The seed axis changes the numbers: cases are not all alike. */
    {
        char *l1 = strstr(out1, "\n0,"), *l2 = strstr(out1, "\n1,");
        assert_non_null(l1);
        assert_non_null(l2);
        assert_true(strncmp(strchr(l1 + 1, ',') + 60, strchr(l2 + 1, ',') + 60,
                            40) != 0);
    }
    rm_db(a);
    rm_db(b);
}

/* Counts "complete" sweep cases in path (-1 on error). */
static long cases_in(const char *path)
{
    char *d = NULL;
    size_t n;
    long k = sweep_dump(path, &d, &n, NULL);
    free(d);
    return k;
}

/* "Running the same sweep again skips finished cases": nothing is run
 * again, a deleted case is run again alone, and the database ends equal
 * to the first run's. */
static void test_sweep_cli_resume_skips_stored_cases(void **state)
{
    const char *a = tpath("resume.db");
    char args[1024], cmd[512], *d0, *d1;
    size_t l0, l1;
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args, "sweep " SMALL " " GRID8 " --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    d0 = dump_n(a, &l0, 8);
    /* Again: every case is skipped; the summary is the same. */
    snprintf(args, sizeof args, "sweep " SMALL " " GRID8 " --jobs 2 --db %s",
             a);
    /* --quiet is in GRID8; the count line needs stderr, so drop it here. */
    snprintf(
        args, sizeof args,
        "sweep " SMALL
        " --set energy.battery.capacity_mwh=4,8 --set modules.[0].count=1:2:1 "
        "--set simulation.seed=1,2 --series first --events --jobs 2 --db %s",
        a);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    assert_non_null(strstr(err, "8 case(s), 8 already stored, 0 to run"));
    assert_string_equal(out1, out2);
    assert_int_equal(cases_in(a), 8);
    /* Drop one case (as if it had never finished): only it runs again. */
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s \"PRAGMA foreign_keys=ON; DELETE FROM runs WHERE "
             "case_index = 5;\"",
             a);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cases_in(a), 7);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    assert_non_null(strstr(err, "8 case(s), 7 already stored, 1 to run"));
    d1 = dump_n(a, &l1, 8);
    assert_int_equal(l0, l1);
    assert_true(memcmp(d0, d1, l0) == 0);
    /* Another replication count is another sweep: nothing is skipped. */
    snprintf(
        args, sizeof args,
        "sweep " SMALL
        " --set energy.battery.capacity_mwh=4,8 --set modules.[0].count=1:2:1 "
        "--set simulation.seed=1,2 --replications 1 --jobs 2 --db %s",
        a);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    assert_non_null(strstr(err, "8 case(s), 0 already stored, 8 to run"));
    free(d0);
    free(d1);
    rm_db(a);
}

/* Starts factorysim with args (split at spaces), stdout to /dev/null and
 * stderr to errfile. Returns the pid. */
static pid_t spawn(const char *args, const char *errfile)
{
    static char buf[2048];
    char *argv[64];
    int n = 0;
    pid_t pid;
    snprintf(buf, sizeof buf, "%s", args);
    argv[n++] = (char *)fs_bin();
    for (char *t = strtok(buf, " "); t && n < 63; t = strtok(NULL, " "))
        argv[n++] = t;
    argv[n] = NULL;
    pid = fork();
    if (pid == 0) {
        int o = open("/dev/null", O_WRONLY),
            e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Waits until errfile has at least k progress lines ("cases done"), up to
 * 60 s. Returns 1 if it did. */
static int wait_progress(const char *errfile, int k)
{
    for (int t = 0; t < 6000; t++) {
        FILE *f = fopen(errfile, "r");
        char line[512];
        int n = 0;
        if (f) {
            while (fgets(line, sizeof line, f))
                n += strstr(line, "cases done") != NULL;
            fclose(f);
        }
        if (n >= k)
            return 1;
        {
            struct timespec ts = {0, 10000000L};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t m = f ? fread(buf, 1, n - 1, f) : 0;
    buf[m] = '\0';
    if (f)
        fclose(f);
}

/* The reference: GRID16 uninterrupted (computed once; callers copy). */
static char *reference16(size_t *len)
{
    static char *ref;
    static size_t ref_len;
    const char *r = tpath("ref16.db");
    char args[1024], *d;
    if (ref) {
        *len = ref_len;
        d = malloc(ref_len);
        memcpy(d, ref, ref_len);
        return d;
    }
    rm_db(r);
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID16 " --quiet --jobs 2 --db %s", r);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    ref = dump_n(r, &ref_len, 16);
    rm_db(r);
    return reference16(len);
}

/* Interrupts GRID16 with sig after the first stored case, checks what the
 * process said and kept, resumes, and compares with the reference. */
static void interrupt_and_resume(int sig, const char *name)
{
    const char *a = tpath(name), *ef = tpath("stderr.txt");
    char args[1024], *dref, *d;
    size_t lref, l;
    int st;
    long kept;
    pid_t pid;
    dref = reference16(&lref);
    rm_db(a);
    snprintf(args, sizeof args, "sweep " SMALL " " GRID16 " --jobs 1 --db %s",
             a);
    pid = spawn(args, ef);
    assert_true(pid > 0);
    assert_true(wait_progress(ef, 1));
    kill(pid, sig);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    slurp(ef, err, sizeof err);
    kept = cases_in(a);
    print_message("%s after the first case: %ld of 16 cases kept\n", name,
                  kept);
    if (sig == SIGINT) {
        /* Clean stop: exit 1 and a message with the count. */
        char want[128];
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 1);
        snprintf(want, sizeof want, "interrupted: %ld of 16 cases are stored",
                 kept);
        if (!strstr(err, want))
            fail_msg("stderr lacks '%s':\n%s", want, err);
        assert_non_null(strstr(err, "run the same command again to resume"));
    } else {
        assert_true(WIFSIGNALED(st));
        assert_int_equal(WTERMSIG(st), SIGKILL);
    }
    /* At least the case seen finished is kept; the sweep did not finish. */
    assert_true(kept >= 1);
    assert_true(kept < 16);
    /* Resume: only the missing cases run, and the result is the same as
     * an uninterrupted sweep's. */
    snprintf(args, sizeof args, "sweep " SMALL " " GRID16 " --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    {
        char want[128];
        snprintf(want, sizeof want,
                 "16 case(s), %ld already stored, %ld to run", kept, 16 - kept);
        if (!strstr(err, want))
            fail_msg("stderr lacks '%s':\n%s", want, err);
    }
    d = dump_n(a, &l, 16);
    assert_int_equal(l, lref);
    assert_true(memcmp(d, dref, l) == 0);
    free(d);
    free(dref);
    rm_db(a);
    remove(ef);
}

/* "SIGINT stops cleanly (keep every finished case, exit nonzero with a
 * message saying how many are done)". */
static void test_sweep_cli_sigint_keeps_finished_cases(void **state)
{
    (void)state;
    interrupt_and_resume(SIGINT, "int.db");
}

/* "SIGKILL loses at most the cases in flight". */
static void test_sweep_cli_sigkill_loses_only_cases_in_flight(void **state)
{
    (void)state;
    interrupt_and_resume(SIGKILL, "kill.db");
}

/* Usage errors (exit 2) name the key; a broken scenario is exit 1; no
 * database is created by a usage error. */
/* A case whose results would not fit in --max-memory-mb is refused before
 * anything runs, with the estimate, and nothing is stored; a case whose
 * job could never run (the checks `run` and `check` share) likewise. */
static void test_sweep_cli_refuses_what_run_would(void **state)
{
    const char *a = tpath("mem.db");
    char args[600];
    struct stat sb;
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args,
             "sweep tests/data/keys/base-a.cfg --set "
             "simulation.horizon_days=30,31 --set simulation.step_min=1 "
             "--series all --max-memory-mb 1 --quiet --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 1);
    assert_non_null(strstr(err, "--set simulation.horizon_days=30: "));
    assert_non_null(strstr(err, "the results would need about 6 MiB"));
    assert_int_equal(stat(a, &sb), -1);
    /* The same sweep fits in the default limit. */
    snprintf(args, sizeof args,
             "sweep tests/data/keys/base-a.cfg --set "
             "simulation.horizon_days=3,4 --quiet --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
}

/* Issue 22: a capacity sweep of the bundled Nevada scenario (battery sized
 * by duration_h) runs every case, 0 = no battery, without tripping the
 * C-rate check; the cost fields are --metric names, and a bigger battery
 * costs more capital. */
static void test_sweep_cli_battery_capacity_sweep_runs_every_case(void **state)
{
    const char *a = tpath("cap.db");
    char args[900], *line, *save = NULL;
    double capex_prev = -1;
    long rows = 0;
    size_t dump_len;
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args,
             "sweep scenarios/nevada-solar.cfg --set "
             "energy.battery.capacity_mwh=0:200:20 --replications 1 "
             "--format csv --metric site.capex_usd --metric "
             "llama405b-fp8.paused_fraction --metric "
             "llama405b-fp8.cost_per_run_usd --quiet --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    free(dump_n(a, &dump_len, 11));
    /* CSV: a header, then one row per case in order (index, case key,
     * capacity, then the first metric's mean...); the capex grows with the
     * capacity. */
    for (line = strtok_r(out1, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        double cap, capex;
        long idx;
        if (sscanf(line, "%ld,%*[^,],%lf,%lf", &idx, &cap, &capex) != 3)
            continue;
        assert_int_equal(idx, rows);
        assert_true(fabs(cap - 20.0 * (double)rows) < 1e-9);
        assert_true(capex > capex_prev);
        capex_prev = capex;
        rows++;
    }
    if (rows != 11)
        fail_msg("expected 11 case rows, got %ld:\n%s", rows, out1);
    rm_db(a);
}

static void test_sweep_cli_errors(void **state)
{
    const char *a = tpath("err.db");
    char args[512];
    struct stat sb;
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args,
             "sweep " SMALL " --set energy.battery.capacity_mhw=1,2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "energy.battery.capacity_mhw"));
    assert_int_equal(stat(a, &sb), -1);
    snprintf(args, sizeof args,
             "sweep " SMALL " --set energy.solar.capacity_mw=5:1:1 --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(
        strstr(err, "energy.solar.capacity_mw: range end below its start"));
    snprintf(args, sizeof args,
             "sweep " SMALL " --set energy.solar.capacity_mw=1:3:0 --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(
        strstr(err, "energy.solar.capacity_mw: range step must be > 0"));
    /* A value the scenario refuses is named with its key. */
    snprintf(args, sizeof args,
             "sweep " SMALL " --set jobs.[0].gpus=256,-3 --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "--set jobs.[0].gpus=-3"));
    assert_string_equal(out1, "");
    snprintf(args, sizeof args, "sweep " SMALL " --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "at least one --set"));
    snprintf(args, sizeof args,
             "sweep " SMALL
             " --set simulation.seed=1 --metric site.nope --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "site.nope"));
    snprintf(args, sizeof args,
             "sweep " SMALL
             " --set simulation.seed=1 --metric nojob.co2_t --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "no job named 'nojob'"));
    assert_int_equal(stat(a, &sb), -1);
    assert_int_equal(fs_run("sweep " SMALL " --set simulation.seed=1 --jobs 0",
                            out1, sizeof out1, err, sizeof err),
                     2);
    assert_int_equal(fs_run("sweep", out1, sizeof out1, err, sizeof err), 2);
    assert_int_equal(
        fs_run("sweep tests/data/sweep/none.cfg --set simulation.seed=1", out1,
               sizeof out1, err, sizeof err),
        1);
    assert_int_equal(fs_run("sweep --help", out1, sizeof out1, NULL, 0), 0);
    assert_non_null(strstr(out1, "KEY=LO:HI:STEP"));
}

/* The JSON summary: one object per case with typed overrides and the
 * metrics' summaries; --metric picks the columns. */
static void test_sweep_cli_json_summary(void **state)
{
    const char *a = tpath("json.db");
    char args[512];
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args,
             "sweep " SMALL
             " --set energy.solar.capacity_mw=2,4 --replications 1 --quiet "
             "--metric llama70b.time_to_train_days --metric site.curtailed_mwh "
             "--format json --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    assert_non_null(
        strstr(out1, "\"case_key\": \"energy.solar.capacity_mw=4\""));
    assert_non_null(strstr(out1, "\"energy.solar.capacity_mw\": 4"));
    assert_non_null(strstr(out1, "\"llama70b.time_to_train_days\": {"));
    assert_non_null(strstr(out1, "\"site.curtailed_mwh\": {"));
    assert_non_null(strstr(out1, "\"p90\":"));
    assert_null(strstr(out1, "site.co2_t"));
    rm_db(a);
}

/* Reads the PNG width and height from the IHDR chunk; 0 if not a PNG. */
static int png_size(const char *path, unsigned *w, unsigned *h)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f)
        fclose(f);
    if (n < 24 || memcmp(b, "\x89PNG", 4) != 0)
        return 0;
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 |
         b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 |
         b[23];
    return 1;
}

/* `report` on a sweep case draws the metric against a swept key with its
 * band: a PNG of the chart size, byte-identical SVGs, usage errors for a
 * key that was not swept and for --by on a plain run. */
static void test_sweep_cli_report_draws_the_sweep_chart(void **state)
{
    const char *a = tpath("rep.db");
    char dir[128], args[1024], f1[256], f2[256], cmd[1024];
    unsigned w = 0, h = 0;
    (void)state;
    rm_db(a);
    snprintf(dir, sizeof dir, "/tmp/factorysim-sweep-%ld-rep", (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/a %s/b", dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(
        args, sizeof args,
        "sweep " SMALL
        " --set energy.battery.capacity_mwh=4:10:2 --set modules.[0].count=1,2 "
        "--quiet --db %s",
        a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    snprintf(args, sizeof args,
             "report --db %s --out %s/a --by energy.battery.capacity_mwh "
             "--metric site.co2_t",
             a, dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    assert_non_null(strstr(out1, "sweep_energy_battery_capacity_mwh.png"));
    snprintf(f1, sizeof f1, "%s/a/sweep_energy_battery_capacity_mwh.png", dir);
    assert_true(png_size(f1, &w, &h));
    assert_int_equal(w, 1200);
    assert_int_equal(h, 700);
    /* Default metric and key; SVG twice gives the same bytes. */
    snprintf(args, sizeof args, "report --db %s --out %s/a --format svg", a,
             dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    snprintf(args, sizeof args, "report --db %s --out %s/b --format svg", a,
             dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    snprintf(f1, sizeof f1, "%s/a/sweep.svg", dir);
    snprintf(f2, sizeof f2, "%s/b/sweep.svg", dir);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s && test $(wc -c < %s) -gt 10000",
             f1, f2, f1);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, "report --db %s --out %s/a --by site.name", a,
             dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err,
                           "site.name: not a swept key (expected one of: "
                           "energy.battery.capacity_mwh, modules.[0].count)"));
    /* A plain run has no sweep to chart. */
    snprintf(args, sizeof args,
             "run " SMALL " --replications 1 --series none --db %s", a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    snprintf(args, sizeof args,
             "report --db %s --out %s/a --by modules.[0].count", a, dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
    assert_non_null(strstr(err, "is not a sweep case"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    rm_db(a);
}

/* One other swept key with more values than lines a chart tells apart (a
 * 2 x 10 lattice charted against solar): the chart is drawn with 8 of the
 * 10 battery values, evenly spaced from the first to the last, and its
 * title says so (before, it was listed as not drawn). */
static void test_sweep_cli_report_thins_one_key_to_eight_lines(void **state)
{
    const char *a = tpath("thin.db");
    char dir[128], args[1024], cmd[1024], f[256];
    FILE *js;
    size_t n, legend = 0;
    const char *p;
    (void)state;
    rm_db(a);
    snprintf(dir, sizeof dir, "/tmp/factorysim-sweep-%ld-thin", (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args,
             "sweep " SMALL " --set energy.solar.capacity_mw=2,4 --set "
             "energy.battery.capacity_mwh=4:22:2 --replications 1 --set "
             "simulation.horizon_days=2 --quiet --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    snprintf(args, sizeof args, "report --db %s --out %s", a, dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    assert_null(strstr(err, "not drawn: sweep chart"));
    snprintf(f, sizeof f, "%s/sweep.png", dir);
    assert_int_equal(access(f, F_OK), 0);
    snprintf(f, sizeof f, "%s/charts.json", dir);
    js = fopen(f, "r");
    assert_non_null(js);
    n = fread(out2, 1, sizeof out2 - 1, js);
    out2[n] = '\0';
    fclose(js);
    assert_non_null(strstr(out2, "(8 of 10 lines, evenly spaced)"));
    for (p = out2; (p = strstr(p, "\"battery capacity ")) != NULL; p++)
        legend++;
    assert_int_equal(legend, 8);
    /* The first and last values are among the lines drawn. */
    assert_non_null(strstr(out2, "\"battery capacity 4 MWh\""));
    assert_non_null(strstr(out2, "\"battery capacity 22 MWh\""));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    rm_db(a);
}

/* cmd_report.c (issue 13.6): report always writes the summary; a sweep
 * chart with more lines than one chart tells apart (9 combinations of the
 * other swept keys) is listed as not drawn in summary.md and on stderr,
 * exit 0; with --by a key that leaves fewer lines it is drawn. */
static void
test_sweep_cli_report_too_many_lines_still_writes_summary(void **state)
{
    const char *a = tpath("many.db");
    char dir[128], args[1024], cmd[1024], f[256];
    FILE *md;
    size_t n;
    (void)state;
    rm_db(a);
    snprintf(dir, sizeof dir, "/tmp/factorysim-sweep-%ld-many", (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args,
             "sweep " SMALL " --set energy.solar.capacity_mw=2,4 --set "
             "modules.[0].count=1,2,3 --set "
             "energy.battery.capacity_mwh=8,10,12 --replications 1 --set "
             "simulation.horizon_days=2 --quiet --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    snprintf(args, sizeof args, "report --db %s --out %s", a, dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    assert_non_null(strstr(err, "factorysim: not drawn: sweep chart (9 "
                                "combinations of the other swept keys"));
    snprintf(f, sizeof f, "%s/summary.md", dir);
    md = fopen(f, "r");
    assert_non_null(md);
    n = fread(out2, 1, sizeof out2 - 1, md);
    out2[n] = '\0';
    fclose(md);
    assert_non_null(strstr(out2, "- Not drawn: sweep chart (9 combinations"));
    snprintf(f, sizeof f, "%s/sweep.png", dir);
    assert_int_not_equal(access(f, F_OK), 0);
    snprintf(args, sizeof args,
             "report --db %s --out %s --by modules.[0].count", a, dir);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    snprintf(f, sizeof f, "%s/sweep_modules__0__count.png", dir);
    assert_non_null(strstr(out1, "sweep_modules__0__count.png"));
    assert_int_equal(access(f, F_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    rm_db(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_cli_jobs_1_and_2_store_identical_results),
        cmocka_unit_test(test_sweep_cli_resume_skips_stored_cases),
        cmocka_unit_test(test_sweep_cli_sigint_keeps_finished_cases),
        cmocka_unit_test(test_sweep_cli_sigkill_loses_only_cases_in_flight),
        cmocka_unit_test(test_sweep_cli_errors),
        cmocka_unit_test(test_sweep_cli_refuses_what_run_would),
        cmocka_unit_test(test_sweep_cli_json_summary),
        cmocka_unit_test(test_sweep_cli_battery_capacity_sweep_runs_every_case),
        cmocka_unit_test(test_sweep_cli_report_draws_the_sweep_chart),
        cmocka_unit_test(
            test_sweep_cli_report_too_many_lines_still_writes_summary),
        cmocka_unit_test(test_sweep_cli_report_thins_one_key_to_eight_lines),
    };
    return cmocka_run_group_tests_name("sweep_cli", tests, NULL, NULL);
}
