/* tests/test_scenkeys.c: the scenario-key table (models/scenkeys.h) is the
 * loader's: every numeric key's documented extremes pass the loader, the
 * checks `check` and `run` share, and a one-replication run; a value just
 * outside is refused naming the key and quoting the table's range; --set
 * refuses a key the table lacks; and docs/scenario-reference.md embeds the
 * generated key tables. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/run_check.h"
#include "io/fielddoc.h"
#include "io/scenario_cfg.h"
#include "models/scenkeys.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

static test_world W;

static int setup(void **state)
{
    (void)state;
    world_open(&W);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    world_close(&W);
    return 0;
}

/* How a key's extremes are walked. Most alone; some need a companion
 * setting (a cross-key rule of the table's `rule` column), and some
 * extremes cannot be reached on a small test site: those are named here
 * with the reason, and only their other extreme is walked. */
typedef struct walk_rule {
    const char *path;
    const char *with_lo, *with_hi; /* companion --set for each extreme,
                                      "KEY=V" or "KEY=V;KEY=V" */
    int skip_lo, skip_hi;          /* 1: not walked (reason below) */
    int hi_check_only;             /* 1: the run would take too long */
} walk_rule;

static const walk_rule rules[] = {
    /* ranges bounded further by the site: the GPUs it has, the horizon */
    {"jobs.[].gpus", NULL, NULL, 0, 1, 0}, /* <= GPUs on the site */
    {"jobs.[].hot_spares", NULL, NULL, 0, 1, 0},
    {"jobs.[].tp", NULL, NULL, 0, 1, 0}, /* must divide the job's GPUs */
    {"jobs.[].pp", NULL, NULL, 0, 1, 0},
    {"jobs.[].cp", NULL, NULL, 0, 1, 0},
    {"jobs.[].ep", NULL, NULL, 0, 1, 0},
    {"jobs.[].etp", NULL, NULL, 0, 1, 0}, /* > 1 needs a MoE model */
    {"jobs.[].vp", NULL, NULL, 0, 1, 0},
    {"jobs.[].seq_len", NULL, NULL, 0, 1, 0},      /* must fit in HBM */
    {"jobs.[].global_batch", NULL, NULL, 1, 1, 0}, /* multiple of mbs x dp */
    {"jobs.[].micro_batch", NULL, NULL, 0, 1, 0},
    {"jobs.[].submit_h", NULL, NULL, 0, 1, 0},           /* < horizon */
    {"modules.[].commission_days", NULL, NULL, 0, 1, 0}, /* < horizon */
    {"modules.[].units", NULL, NULL, 0, 1, 0},           /* <= what fits */
    {"modules.[].count", NULL, NULL, 0, 0, 1},
    {"simulation.replications", NULL, NULL, 0, 0, 1},
    {"energy.battery.packs", NULL, NULL, 0, 0, 1},
    {"simulation.horizon_days", "simulation.step_min=1", NULL, 0, 0, 1},
    {"simulation.step_min", NULL, NULL, 0, 0, 0},
    /* cross-key rules */
    {"energy.solar.capacity_mw", NULL, "energy.solar.inverter_limit_mw=74626.9",
     0, 0, 1},
    {"energy.solar.inverter_limit_mw", "energy.solar.capacity_mw=1.34e-6",
     "energy.solar.capacity_mw=1e5", 0, 0, 1},
    {"energy.battery.power_mw", "energy.battery.capacity_mwh=0",
     "energy.battery.capacity_mwh=1e6", 0, 0, 1},
    {"energy.battery.capacity_mwh", "energy.battery.power_mw=0", NULL, 0, 0, 0},
    {"energy.battery.duration_h", "energy.battery.c_rate_max=100", NULL, 0, 0,
     0},
    {"energy.battery.c_rate_max", "energy.battery.power_mw=0.004", NULL, 0, 0,
     0},
    {"energy.battery.reserve_floor_pct", NULL,
     "energy.battery.initial_soc_pct=99", 0, 0, 0},
    {"energy.battery.initial_soc_pct", "energy.battery.reserve_floor_pct=0",
     NULL, 0, 0, 0},
    {"energy.battery.soh_mean", "energy.battery.soh_min=0.05",
     "energy.battery.soh_max=1", 0, 0, 0},
    {"energy.battery.soh_min", NULL,
     "energy.battery.soh_max=1;energy.battery.soh_mean=1", 0, 0, 0},
    {"energy.battery.soh_max",
     "energy.battery.soh_min=0.05;energy.battery.soh_mean=0.05", NULL, 0, 0, 0},
    {"energy.geothermal.mtbf_h", "energy.geothermal.mttr_h=0", NULL, 0, 0, 0},
    {"energy.geothermal.mttr_h", "energy.geothermal.mtbf_h=0", NULL, 0, 0, 0},
    {"energy.hydro.mtbf_h", "energy.hydro.mttr_h=0", NULL, 0, 0, 0},
    {"energy.hydro.mttr_h", "energy.hydro.mtbf_h=0", NULL, 0, 0, 0},
    {"energy.grid.tod_prices.[].start_h", NULL, NULL, 0, 1, 0}, /* < end_h */
    {"energy.grid.tod_prices.[].end_h", NULL, NULL, 1, 0, 0},   /* > start */
    {"jobs.[].checkpoint.interval_min", NULL, NULL, 0, 0, 0},
    {"power.gpu_compute_frac_bf16", "power.gpu_idle_frac=0", NULL, 0, 0, 0},
    {"power.gpu_idle_frac", NULL, "power.gpu_compute_frac_bf16=1.2", 0, 0, 0},
};
#define N_RULES (sizeof rules / sizeof rules[0])

static const walk_rule *rule_of(const char *path)
{
    for (size_t i = 0; i < N_RULES; i++)
        if (strcmp(rules[i].path, path) == 0)
            return &rules[i];
    return NULL;
}

/* The --set form of path with list elements at index 0. */
static void set_path(const char *path, char *buf, size_t n)
{
    size_t k = 0;
    for (const char *p = path; *p && k + 2 < n; p++) {
        buf[k++] = *p;
        if (*p == '[' && p[1] == ']')
            buf[k++] = '0';
    }
    buf[k] = '\0';
}

static void fmt_value(const scen_key *k, double v, char *buf, size_t n)
{
    if (k->type == SK_INT)
        snprintf(buf, n, "%lld%s",
                 v >= 9.2e18 ? 9223372036854775807LL : (long long)v,
                 fabs(v) > 2147483647.0 ? "L" : "");
    else
        snprintf(buf, n, "%.17g", v);
}

/* Which base holds the key (NULL when neither: the test fails). */
static const char *base_of(const scen_key *k)
{
    static const char *const bases[] = {"tests/data/keys/base-a.cfg",
                                        "tests/data/keys/base-b.cfg"};
    char p[300];
    set_path(k->path, p, sizeof p);
    for (int b = 0; b < 2; b++) {
        size_t n = 0;
        char *text = (char *)test_slurp(bases[b], &n), want[120];
        const char *leaf = strrchr(k->path, '.');
        int has;
        snprintf(want, sizeof want, " %s = ", leaf ? leaf + 1 : k->path);
        has = text && strstr(text, want) != NULL;
        free(text);
        if (has)
            return bases[b];
    }
    return NULL;
}

/* Loads base with the sets; 0 on success, else the error in *e. */
static int try_load(const char *base, const char *const *sets, size_t n,
                    scenario **s, sim_err *e)
{
    return scenario_load(base, W.cat, sets, n, s, e);
}

/* The checks run and check share, then (unless check_only) one short
 * replication. Fails the test on any error. */
static void check_and_run(scenario *s, const char *what, int check_only)
{
    run_check_opts o = {1, 0, RUN_CHECK_DEFAULT_MAX_MEMORY_MB};
    run_check_errs *errs = calloc(1, sizeof *errs);
    climate_year *wx = NULL;
    char buf[2400];
    if (run_check_scenario(s, W.tp, &o, &wx, NULL, errs) != SIM_OK)
        fail_msg("%s: check refuses: %s", what,
                 sim_err_format(&errs->e[0], buf, sizeof buf));
    if (!check_only) {
        site_opts so;
        res_rep r;
        sim_err e;
        site_opts_default(&so);
        site_rel_from_scenario(&so.rel, s);
        so.seed = 1;
        so.tp = W.tp;
        so.weather = wx;
        if (site_run(s, &so, &r, &e) != SIM_OK)
            fail_msg("%s: run fails: %s", what,
                     sim_err_format(&e, buf, sizeof buf));
        res_rep_free(&r);
    }
    climate_year_free(wx);
    free(errs);
}

static void test_scenkeys_documented_extremes_pass_check_and_run(void **state)
{
    size_t walked = 0;
    (void)state;
    for (size_t i = 0; i < scen_n_keys; i++) {
        const scen_key *k = &scen_keys[i];
        const walk_rule *wr = rule_of(k->path);
        const char *base;
        char p[300];
        if (k->type != SK_NUMBER && k->type != SK_INT)
            continue;
        base = base_of(k);
        if (!base)
            fail_msg("%s: no test base sets it (tests/data/keys/)", k->path);
        set_path(k->path, p, sizeof p);
        for (int hi = 0; hi < 2; hi++) {
            char set[400], v[64], what[500];
            const char *sets[3];
            char comp[200];
            size_t n = 0;
            scenario *s = NULL;
            sim_err e;
            if (wr && (hi ? wr->skip_hi : wr->skip_lo))
                continue;
            fmt_value(k, hi ? k->hi : k->lo, v, sizeof v);
            snprintf(set, sizeof set, "%s=%s", p, v);
            sets[n++] = set;
            if (wr && (hi ? wr->with_hi : wr->with_lo)) {
                /* companions: "KEY=V" or "KEY=V;KEY=V" */
                char *semi;
                snprintf(comp, sizeof comp, "%s",
                         hi ? wr->with_hi : wr->with_lo);
                sets[n++] = comp;
                if ((semi = strchr(comp, ';')) != NULL) {
                    *semi = '\0';
                    sets[n++] = semi + 1;
                }
            }
            snprintf(what, sizeof what, "%s (%s)", set, base);
            if (try_load(base, sets, n, &s, &e) != SIM_OK) {
                char buf[2400];
                fail_msg("%s: the loader refuses a documented extreme: %s",
                         what, sim_err_format(&e, buf, sizeof buf));
            }
            check_and_run(s, what, hi && wr && wr->hi_check_only);
            scenario_free(s);
            walked++;
        }
    }
    assert_true(walked > 100);
}

/* Just outside either end is refused, naming the key and quoting the
 * table's range. */
static void test_scenkeys_just_outside_the_range_is_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < scen_n_keys; i++) {
        const scen_key *k = &scen_keys[i];
        const char *base;
        char p[300];
        if (k->type != SK_NUMBER && k->type != SK_INT)
            continue;
        if (k->hi >= 9.2e18)
            continue; /* the seed: above 2^63-1 is no integer we can write */
        base = base_of(k);
        assert_non_null(base);
        set_path(k->path, p, sizeof p);
        for (int hi = 0; hi < 2; hi++) {
            double x = k->type == SK_INT ? (hi ? k->hi + 1 : k->lo - 1)
                                         : nextafter(hi ? k->hi : k->lo,
                                                     hi ? INFINITY : -INFINITY);
            char set[400], v[64], want[200];
            const char *sets[1];
            scenario *s = NULL;
            sim_err e;
            fmt_value(k, x, v, sizeof v);
            snprintf(set, sizeof set, "%s=%s", p, v);
            sets[0] = set;
            if (try_load(base, sets, 1, &s, &e) == SIM_OK) {
                scenario_free(s);
                fail_msg("%s: accepted outside the documented range", set);
            }
            if (!strstr(e.msg, p))
                fail_msg("%s: message does not name the key: %s", set, e.msg);
            if (k->type == SK_INT)
                snprintf(want, sizeof want, "expected [%lld, %lld]",
                         (long long)k->lo, (long long)k->hi);
            else
                snprintf(want, sizeof want, "expected [%g, %g]", k->lo, k->hi);
            if (!strstr(e.msg, want))
                fail_msg("%s: message does not quote %s: %s", set, want, e.msg);
        }
    }
}

static void test_scenkeys_set_refuses_a_key_not_in_the_table(void **state)
{
    const char *sets[] = {"simulation.horizon_dayz=3"};
    scenario *s = NULL;
    sim_err e;
    (void)state;
    assert_int_equal(try_load("tests/data/keys/base-a.cfg", sets, 1, &s, &e),
                     SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "simulation.horizon_dayz: unknown key (got "
                                  "'horizon_dayz', expected one of: "
                                  "start_date, horizon_days, step_min"));
    assert_null(scen_key_find("simulation.horizon_dayz"));
    assert_non_null(scen_key_find("jobs.[12].checkpoint.write_s"));
}

/* docs/scenario-reference.md embeds exactly what `factorysim schema
 * --scenario` prints (`make docs` rewrites it). */
static void test_scenkeys_doc_is_generated_and_current(void **state)
{
    size_t n = 0, m = 0;
    char *doc = (char *)test_slurp("docs/scenario-reference.md", &n), *gen;
    FILE *f = open_memstream(&gen, &m);
    char *want;
    (void)state;
    assert_non_null(doc);
    assert_non_null(f);
    assert_int_equal(fielddoc_scenario_md(f), SIM_OK);
    fclose(f);
    want = malloc(m + 256);
    snprintf(want, m + 256, "%s\n%s%s", FIELDDOC_BEGIN_SCENARIO, gen,
             FIELDDOC_END);
    if (!strstr(doc, want))
        fail_msg("docs/scenario-reference.md is not current: run `make docs`");
    free(want);
    free(gen);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenkeys_documented_extremes_pass_check_and_run),
        cmocka_unit_test(test_scenkeys_just_outside_the_range_is_refused),
        cmocka_unit_test(test_scenkeys_set_refuses_a_key_not_in_the_table),
        cmocka_unit_test(test_scenkeys_doc_is_generated_and_current),
    };
    return cmocka_run_group_tests_name("scenkeys", tests, setup, teardown);
}
