/* tests/test_optimize_cli.c: `factorysim optimize` from the command line
 * against brute force: a full sweep of a 10 x 10 lattice of the small
 * sweep scenario (30 days, 2 replications) gives every design's values;
 * optimize must return the lattice's best feasible design or one within
 * 1 % of its objective while evaluating at most a third of the designs.
 * Its output is byte-identical with --jobs 1 and 2, a rerun evaluates
 * nothing new (every design is a stored sweep case, reused), two
 * objectives give a front of mutually non-dominated designs, the
 * cheapest site (annualized cost) under a carbon cap matches brute force
 * over the same lattice, and bad
 * input is a usage error (exit 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "tests/cli_util.h"
#include "io/json.h"

static char out1[1 << 18], out2[1 << 18], err[1 << 16];

#define SMALL "tests/data/sweep/small.cfg"
#define LATTICE "--replications 2 --seed 5 --quiet"
#define VARY                                                                   \
    "--vary energy.solar.capacity_mw=1:10:1 "                                  \
    "--vary energy.battery.capacity_mwh=4:22:2"
#define GRID                                                                   \
    "--set energy.solar.capacity_mw=1:10:1 "                                   \
    "--set energy.battery.capacity_mwh=4:22:2"
#define PROBLEM                                                                \
    "--objective site.curtailed_mwh.p50 --constraint 'site.co2_t.p50<=11.3'"

static const char *tpath(const char *name)
{
    static char p[8][128];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "/tmp/factorysim-opt-%ld-%s", (long)getpid(),
             name);
    return p[k];
}

/* Runs a shell command into out; returns its exit status. */
static int fs_sh(const char *cmd, char *out, size_t n)
{
    FILE *f = popen(cmd, "r");
    size_t len;
    if (!f)
        return -1;
    len = fread(out, 1, n - 1, f);
    out[len] = '\0';
    return pclose(f) == 0 ? 0 : -1;
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

/* The brute-force table: every case's (solar, battery, objective,
 * constraint) from the sweep's JSON summary. */
typedef struct design {
    double solar, battery, obj, con;
} design;

static size_t sweep_designs(const char *json, design *d, size_t max,
                            const char *obj, const char *con)
{
    jv *root = NULL;
    sim_err e;
    const jv *cases;
    size_t n = 0;
    assert_int_equal(jv_parse(json, &root, &e), SIM_OK);
    cases = jv_get(root, "cases");
    for (size_t i = 0; i < jv_len(cases) && n < max; i++, n++) {
        const jv *c = jv_at(cases, i), *ov = jv_get(c, "overrides"),
                 *m = jv_get(c, "metrics");
        assert_int_equal(
            jv_number(jv_get(ov, "energy.solar.capacity_mw"), &d[n].solar), 1);
        assert_int_equal(
            jv_number(jv_get(ov, "energy.battery.capacity_mwh"), &d[n].battery),
            1);
        assert_int_equal(jv_number(jv_get(jv_get(m, obj), "p50"), &d[n].obj),
                         1);
        assert_int_equal(jv_number(jv_get(jv_get(m, con), "p50"), &d[n].con),
                         1);
    }
    jv_free(root);
    return n;
}

/* 1 when a progress line says level-0 designs were run ("N design(s),
 * K to run" with K > 0; refined batches say "design(s) refined"). */
static int ran_level0(const char *e)
{
    const char *p = e;
    while ((p = strstr(p, " design(s), ")) != NULL) {
        p += strlen(" design(s), ");
        if (*p != '0')
            return 1;
    }
    return 0;
}

/* "Correct against brute force" with a third of the evaluations, the same
 * bytes whatever --jobs, and a rerun that runs nothing. */
static void test_optimize_cli_matches_brute_force(void **state)
{
    const char *a = tpath("full.db"), *b = tpath("o1.db"), *c = tpath("o2.db");
    char args[2048];
    design d[128];
    size_t n, best = SIZE_MAX;
    double solar, battery, evals;
    jv *root = NULL;
    sim_err e;
    (void)state;
    rm_db(a);
    rm_db(b);
    rm_db(c);
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID " " LATTICE
             " --metric site.curtailed_mwh --metric site.co2_t --format json "
             "--jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    n = sweep_designs(out1, d, 128, "site.curtailed_mwh", "site.co2_t");
    assert_int_equal(n, 100);
    for (size_t i = 0; i < n; i++)
        if (d[i].con <= 11.3 && (best == SIZE_MAX || d[i].obj < d[best].obj))
            best = i;
    assert_true(best != SIZE_MAX);
    /* The constraint cuts: some designs are infeasible, and the
     * unconstrained optimum is one of them. */
    {
        size_t umin = 0;
        for (size_t i = 1; i < n; i++)
            umin = d[i].obj < d[umin].obj ? i : umin;
        assert_true(d[umin].con > 11.3);
    }

    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY " " PROBLEM " " LATTICE
             " --format json --jobs 1 --db %s",
             b);
    assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 0);
    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY " " PROBLEM " " LATTICE
             " --format json --jobs 2 --db %s",
             c);
    assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
    assert_string_equal(out1, out2);

    assert_int_equal(jv_parse(out1, &root, &e), SIM_OK);
    assert_int_equal(jv_number(jv_get(root, "evaluations"), &evals), 1);
    assert_true(evals >= 4 && evals <= 100.0 / 3.0);
    {
        const jv *bj = jv_get(root, "best"), *ov = jv_get(bj, "overrides");
        double o50;
        size_t k = SIZE_MAX;
        assert_true(jv_get(bj, "feasible") != NULL);
        assert_non_null(strstr(out1, "\"feasible\": true"));
        assert_int_equal(
            jv_number(jv_get(ov, "energy.solar.capacity_mw"), &solar), 1);
        assert_int_equal(
            jv_number(jv_get(ov, "energy.battery.capacity_mwh"), &battery), 1);
        for (size_t i = 0; i < n; i++)
            if (d[i].solar == solar && d[i].battery == battery)
                k = i;
        assert_true(k != SIZE_MAX);
        /* Its brute-force objective is within 1 % of the optimum. */
        assert_true(d[k].obj <= d[best].obj * 1.01 + 1e-9);
        assert_true(d[k].con <= 11.3);
        assert_int_equal(jv_number(jv_get(jv_get(jv_get(bj, "metrics"),
                                                 "site.curtailed_mwh"),
                                          "p50"),
                                   &o50),
                         1);
        assert_true(isfinite(o50));
        assert_non_null(
            jv_get(jv_get(jv_get(bj, "metrics"), "site.co2_t"), "p10"));
        assert_non_null(jv_get(root, "pareto"));
    }
    jv_free(root);

    /* A rerun reuses every stored design: nothing to run, same bytes. */
    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY " " PROBLEM
             " --replications 2 --seed 5 --format json --jobs 2 --db %s",
             b);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    assert_string_equal(out1, out2);
    assert_non_null(strstr(err, " 0 run now"));
    /* So does optimize on the full sweep's database: the designs are the
     * sweep's cases (same sweep key); only refinements are new. */
    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY " " PROBLEM
             " --replications 2 --seed 5 --format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
    assert_string_equal(out1, out2);
    if (ran_level0(err))
        fail_msg("designs run again on the full sweep's database: %s", err);

    /* Two objectives: a front of feasible, mutually non-dominated
     * designs, from the full sweep's database (nothing new at level 0). */
    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY
             " --objective site.curtailed_mwh.p50 --objective "
             "site.co2_t.p50 --constraint 'site.co2_t.p50 <= 12' " LATTICE
             " --format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
    assert_int_equal(jv_parse(out2, &root, &e), SIM_OK);
    {
        const jv *par = jv_get(root, "pareto");
        size_t np = jv_len(par);
        double f[128][2];
        assert_true(np >= 2 && np <= 128);
        for (size_t i = 0; i < np; i++) {
            const jv *m = jv_get(jv_at(par, i), "metrics");
            assert_int_equal(
                jv_number(jv_get(jv_get(m, "site.curtailed_mwh"), "p50"),
                          &f[i][0]),
                1);
            assert_int_equal(
                jv_number(jv_get(jv_get(m, "site.co2_t"), "p50"), &f[i][1]), 1);
            assert_true(f[i][1] <= 12.0);
        }
        for (size_t i = 0; i < np; i++)
            for (size_t j = 0; j < np; j++)
                assert_false(f[j][0] <= f[i][0] && f[j][1] <= f[i][1] &&
                             (f[j][0] < f[i][0] || f[j][1] < f[i][1]));
    }
    jv_free(root);

    /* The sizing question with the cost fields (issue 22): the
     * cheapest site (annualized cost) under a carbon cap, against brute
     * force over the same stored lattice (the sweep below runs nothing). */
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID " " LATTICE
             " --metric site.annualized_cost_usd --metric site.co2_t "
             "--format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    n = sweep_designs(out1, d, 128, "site.annualized_cost_usd", "site.co2_t");
    assert_int_equal(n, 100);
    best = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (d[i].con <= 11.5 && (best == SIZE_MAX || d[i].obj < d[best].obj))
            best = i;
    assert_true(best != SIZE_MAX);
    assert_true(d[0].con > 11.5); /* the cheapest corner is infeasible */
    snprintf(args, sizeof args,
             "optimize " SMALL " " VARY
             " --objective site.annualized_cost_usd.p50 --constraint "
             "'site.co2_t.p50<=11.5' " LATTICE
             " --format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
    assert_int_equal(jv_parse(out2, &root, &e), SIM_OK);
    assert_int_equal(jv_number(jv_get(root, "evaluations"), &evals), 1);
    assert_true(evals <= 100.0 / 3.0);
    {
        const jv *ov = jv_get(jv_get(root, "best"), "overrides");
        size_t k = SIZE_MAX;
        assert_int_equal(
            jv_number(jv_get(ov, "energy.solar.capacity_mw"), &solar), 1);
        assert_int_equal(
            jv_number(jv_get(ov, "energy.battery.capacity_mwh"), &battery), 1);
        for (size_t i = 0; i < n; i++)
            if (d[i].solar == solar && d[i].battery == battery)
                k = i;
        assert_true(k != SIZE_MAX);
        assert_true(d[k].obj <= d[best].obj * 1.01 + 1e-9);
        assert_true(d[k].con <= 11.5);
    }
    jv_free(root);

    /* Maximise (max:METRIC.STAT): the most renewable site under a cost
     * cap at the lattice's median cost, against brute force. */
    snprintf(args, sizeof args,
             "sweep " SMALL " " GRID " " LATTICE
             " --metric site.renewable_fraction --metric "
             "site.annualized_cost_usd --format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    n = sweep_designs(out1, d, 128, "site.renewable_fraction",
                      "site.annualized_cost_usd");
    assert_int_equal(n, 100);
    {
        double cap, sorted[128], umax = -INFINITY;
        for (size_t i = 0; i < n; i++)
            sorted[i] = d[i].con;
        for (size_t i = 0; i < n; i++) /* insertion sort: 100 values */
            for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                double t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        cap = sorted[n / 2];
        best = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            umax = fmax(umax, d[i].obj);
            if (d[i].con <= cap && (best == SIZE_MAX || d[i].obj > d[best].obj))
                best = i;
        }
        assert_true(best != SIZE_MAX);
        assert_true(umax > d[best].obj); /* the cap cuts the maximum */
        snprintf(args, sizeof args,
                 "optimize " SMALL " " VARY
                 " --objective max:site.renewable_fraction.p50 --constraint "
                 "'site.annualized_cost_usd.p50<=%.17g' " LATTICE
                 " --format json --jobs 2 --db %s",
                 cap, a);
        assert_int_equal(fs_run(args, out2, sizeof out2, err, sizeof err), 0);
        assert_int_equal(jv_parse(out2, &root, &e), SIM_OK);
        assert_int_equal(jv_number(jv_get(root, "evaluations"), &evals), 1);
        assert_true(evals <= 100.0 / 3.0);
        {
            const jv *ov = jv_get(jv_get(root, "best"), "overrides");
            size_t k = SIZE_MAX;
            assert_int_equal(
                jv_number(jv_get(ov, "energy.solar.capacity_mw"), &solar), 1);
            assert_int_equal(
                jv_number(jv_get(ov, "energy.battery.capacity_mwh"), &battery),
                1);
            for (size_t i = 0; i < n; i++)
                if (d[i].solar == solar && d[i].battery == battery)
                    k = i;
            assert_true(k != SIZE_MAX);
            if (!(d[k].obj >= d[best].obj * 0.99 - 1e-12))
                fail_msg("maximise: %g at solar %g battery %g, brute force "
                         "%g at solar %g battery %g",
                         d[k].obj, solar, battery, d[best].obj, d[best].solar,
                         d[best].battery);
            assert_true(d[k].con <= cap);
        }
        jv_free(root);
    }
    rm_db(a);
    rm_db(b);
    rm_db(c);
}

/* The problem is stored (issue 23): its terms as given, seed and
 * replications, every evaluated design once with exactly one best, the
 * best the one printed, a rerun replaces it (still one problem), and
 * merge copies it once. */
static void test_optimize_cli_stores_the_problem(void **state)
{
    const char *a = tpath("store.db");
    char args[2048], sql[1024], q[512];
    const char *p;
    jv *root = NULL;
    sim_err e;
    double evals;
    (void)state;
    rm_db(a);
    snprintf(args, sizeof args,
             "optimize " SMALL " --vary energy.solar.capacity_mw=1:10:3 --vary "
             "energy.battery.capacity_mwh=4:22:6 " PROBLEM " " LATTICE
             " --format json --jobs 2 --db %s",
             a);
    assert_int_equal(fs_run(args, out1, sizeof out1, NULL, 0), 0);
    assert_int_equal(jv_parse(out1, &root, &e), SIM_OK);
    assert_int_equal(jv_number(jv_get(root, "evaluations"), &evals), 1);
    jv_free(root);
    snprintf(sql, sizeof sql,
             "sqlite3 %s \"SELECT id, scenario, seed, replications, "
             "evaluations FROM optimize_problems; SELECT role || ' ' || text "
             "FROM optimize_terms ORDER BY idx; SELECT count(*), sum(best), "
             "count(DISTINCT case_index) FROM optimize_designs; SELECT "
             "case_key FROM optimize_designs WHERE best = 1\"",
             a);
    assert_int_equal(fs_sh(sql, out2, sizeof out2), 0);
    snprintf(q, sizeof q, "1|small|5|2|%.0f\n", evals);
    if (strncmp(out2, q, strlen(q)) != 0)
        fail_msg("stored problem: %s (expected to start %s)", out2, q);
    assert_non_null(strstr(out2, "vary energy.solar.capacity_mw=1:10:3\n"
                                 "vary energy.battery.capacity_mwh=4:22:6\n"
                                 "objective site.curtailed_mwh.p50\n"
                                 "constraint site.co2_t.p50<=11.3\n"));
    snprintf(q, sizeof q, "\n%.0f|1|%.0f\n", evals, evals);
    assert_non_null(strstr(out2, q));
    /* The best design stored is the one printed (the last line). */
    p = strstr(strstr(out2, q) + strlen(q), "energy.solar.capacity_mw=");
    assert_non_null(p);
    {
        double solar = -1, battery = -1, s2, b2;
        const jv *ov;
        assert_int_equal(sscanf(p,
                                "energy.solar.capacity_mw=%lf;energy."
                                "battery.capacity_mwh=%lf",
                                &solar, &battery),
                         2);
        assert_int_equal(jv_parse(out1, &root, &e), SIM_OK);
        ov = jv_get(jv_get(root, "best"), "overrides");
        assert_int_equal(jv_number(jv_get(ov, "energy.solar.capacity_mw"), &s2),
                         1);
        assert_int_equal(
            jv_number(jv_get(ov, "energy.battery.capacity_mwh"), &b2), 1);
        assert_true(s2 == solar && b2 == battery);
        jv_free(root);
    }
    /* A rerun replaces the problem: still one, its designs once. */
    assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
    snprintf(sql, sizeof sql,
             "sqlite3 %s \"SELECT count(*) FROM optimize_problems; "
             "SELECT count(*) FROM optimize_designs\"",
             a);
    assert_int_equal(fs_sh(sql, out2, sizeof out2), 0);
    snprintf(q, sizeof q, "1\n%.0f\n", evals);
    assert_string_equal(out2, q);
    /* merge copies the problem with the runs, once however often. */
    {
        const char *m = tpath("merged.db");
        rm_db(m);
        snprintf(args, sizeof args, "merge --db %s %s %s", m, a, a);
        assert_int_equal(fs_run(args, out2, sizeof out2, NULL, 0), 0);
        snprintf(sql, sizeof sql,
                 "sqlite3 %s \"SELECT count(*) FROM optimize_problems; "
                 "SELECT count(*) FROM optimize_designs; SELECT count(*) "
                 "FROM optimize_terms\"",
                 m);
        assert_int_equal(fs_sh(sql, out2, sizeof out2), 0);
        snprintf(q, sizeof q, "1\n%.0f\n4\n", evals);
        assert_string_equal(out2, q);
        rm_db(m);
    }
    rm_db(a);
}

/* Bad input: the standard message and exit 2, nothing run. */
static void test_optimize_cli_usage_errors(void **state)
{
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"--vary energy.solar.capacity_mw=1:3:1 --objective site.nope.p50",
         "site.nope"},
        {"--vary energy.solar.capacity_mw=1:3:1 --objective site.co2_t.p42",
         "STAT one of mean, p10, p50, p90"},
        {"--vary energy.nope_mw=1:3:1 --objective site.co2_t.p50",
         "energy.nope_mw"},
        {"--vary energy.solar.capacity_mw=3:1:1 --objective site.co2_t.p50",
         "energy.solar.capacity_mw"},
        {"--vary energy.solar.capacity_mw=1,2 --objective site.co2_t.p50",
         "expected a range LO:HI:STEP"},
        {"--vary modules.[0].count=1:3:0.5 --objective site.co2_t.p50",
         "an integer key needs integer"},
        {"--vary energy.solar.capacity_mw=1:3:1 --objective site.co2_t.p50 "
         "--constraint 'site.co2_t.p50=<3'",
         "--constraint"},
        {"--vary energy.solar.capacity_mw=1:3:1 --objective site.co2_t.p50 "
         "--constraint 'site.co2_t.p50<=x'",
         "not a finite number"},
        {"--vary energy.solar.capacity_mw=1:3:1 --objective site.co2_t.p50 "
         "--constraint 'site.co2_t.p50 <=  '",
         "not a finite number"},
        {"--vary energy.solar.capacity_mw=1:3:1 --objective "
         "max:site.co2_t.p42",
         "[max:]METRIC.STAT"},
        {"--vary energy.solar.capacity_mw=1:3:1", "--objective"},
        {"--objective site.co2_t.p50", "--vary"},
    };
    char args[1024];
    const char *db = tpath("bad.db");
    (void)state;
    rm_db(db);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "optimize " SMALL " %s --db %s",
                 bad[i].args, db);
        assert_int_equal(fs_run(args, out1, sizeof out1, err, sizeof err), 2);
        if (!strstr(err, bad[i].says))
            fail_msg("%s: stderr lacks '%s': %s", bad[i].args, bad[i].says,
                     err);
        assert_string_equal(out1, "");
    }
    assert_int_equal(access(db, F_OK), -1); /* no database made */
    assert_int_equal(fs_run("optimize --help", out1, sizeof out1, NULL, 0), 0);
    assert_non_null(strstr(out1, "--vary KEY=LO:HI:STEP"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimize_cli_usage_errors),
        cmocka_unit_test(test_optimize_cli_stores_the_problem),
        cmocka_unit_test(test_optimize_cli_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
