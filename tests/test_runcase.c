/* tests/test_runcase.c: the one run layer (app/runcase.h): which
 * replications keep their series, that keeping a series never changes a
 * result, the seed and replication overrides, the ready step's place in the
 * order, and a sweep case equal to the same case run alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "app/runcase.h"
#include "app/sweep_exec.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/resfield.h"
#include "models/sweep.h"

#define SMALL "tests/data/sweep/small.cfg"

/* 1 when every site and job field of a and b is the same double (NAN
 * equal to NAN). */
static int same_results(const res_rep *a, const res_rep *b)
{
    if (a->n_jobs != b->n_jobs || a->replication != b->replication)
        return 0;
    for (size_t f = 0; f < resfield_n_site; f++) {
        double x = resfield_get(&a->site, &resfield_site[f]);
        double y = resfield_get(&b->site, &resfield_site[f]);
        if (memcmp(&x, &y, sizeof x) != 0)
            return 0;
    }
    for (size_t j = 0; j < a->n_jobs; j++)
        for (size_t f = 0; f < resfield_n_job; f++) {
            double x = resfield_get(&a->jobs[j], &resfield_job[f]);
            double y = resfield_get(&b->jobs[j], &resfield_job[f]);
            if (memcmp(&x, &y, sizeof x) != 0)
                return 0;
        }
    return 1;
}

static void base_in(runcase_in *in)
{
    memset(in, 0, sizeof *in);
    in->scenario_path = SMALL;
}

/* runcase.h "Series kept": FIRST keeps replication 0's series only, ALL
 * every one, NONE none; "Recording never changes the simulation". */
static void
test_runcase_series_first_keeps_rep0_only_and_changes_nothing(void **state)
{
    runcase_in in;
    runcase_out none, first, all;
    sim_err e;
    (void)state;
    base_in(&in);
    in.replications = 3;
    in.series = RUNCASE_SERIES_NONE;
    assert_int_equal(runcase_run(&in, &none, &e), SIM_OK);
    in.series = RUNCASE_SERIES_FIRST;
    in.events = 1;
    assert_int_equal(runcase_run(&in, &first, &e), SIM_OK);
    in.series = RUNCASE_SERIES_ALL;
    assert_int_equal(runcase_run(&in, &all, &e), SIM_OK);
    assert_int_equal(none.n_reps, 3);
    assert_int_equal(first.n_reps, 3);
    for (size_t r = 0; r < 3; r++) {
        assert_int_equal(none.reps[r].n_steps, 0);
        assert_int_equal(none.reps[r].n_events, 0);
        assert_true(first.reps[r].n_events > 0);
        if (r == 0)
            assert_true(first.reps[r].n_steps > 0);
        else
            assert_int_equal(first.reps[r].n_steps, 0);
        assert_int_equal(all.reps[r].n_steps, first.reps[0].n_steps);
        assert_true(same_results(&none.reps[r], &first.reps[r]));
        assert_true(same_results(&none.reps[r], &all.reps[r]));
    }
    /* The scenario has failures on: replications differ, so the check
     * above compared something that could have differed. */
    assert_false(same_results(&none.reps[0], &none.reps[1]));
    runcase_out_free(&none);
    runcase_out_free(&first);
    runcase_out_free(&all);
}

/* runcase.h step 6: in->seed replaces simulation.seed, and
 * in->replications 0 means the scenario's. */
static void test_runcase_seed_and_replications_override(void **state)
{
    runcase_in in;
    runcase_out a, b, c;
    sim_err e;
    const char *ov[] = {"simulation.seed=12345"};
    (void)state;
    base_in(&in);
    assert_int_equal(runcase_run(&in, &a, &e), SIM_OK);
    assert_int_equal(a.n_reps, (size_t)a.s->sim.replications);
    assert_int_equal(a.seed, 11);
    in.seed_set = 1;
    in.seed = 12345;
    assert_int_equal(runcase_run(&in, &b, &e), SIM_OK);
    assert_int_equal(b.seed, 12345);
    assert_false(same_results(&a.reps[0], &b.reps[0]));
    /* The same seed through an override gives the same results. */
    base_in(&in);
    in.overrides = ov;
    in.n_overrides = 1;
    assert_int_equal(runcase_run(&in, &c, &e), SIM_OK);
    assert_int_equal(c.seed, 12345);
    assert_true(same_results(&b.reps[0], &c.reps[0]));
    runcase_out_free(&a);
    runcase_out_free(&b);
    runcase_out_free(&c);
}

typedef struct ready_probe {
    int called;
    size_t n_reps_seen; /* out->n_reps when called: no replication yet */
    int fail;
} ready_probe;

static int probe_ready(void *arg, const runcase_out *o, sim_err *err)
{
    ready_probe *p = arg;
    p->called++;
    p->n_reps_seen = o->n_reps;
    if (!o->s || !o->tp)
        return sim_err_set(err, SIM_EINVAL, NULL, 0, "not loaded yet");
    if (p->fail)
        return sim_err_set(err, SIM_EIO, "probe.db", 0, "refused");
    return SIM_OK;
}

/* runcase.h step 5: ready sees the loaded case before any replication;
 * its error stops the run with nothing simulated; a check failure stops
 * it before ready. */
static void
test_runcase_ready_runs_after_checks_before_replications(void **state)
{
    runcase_in in;
    runcase_out o;
    ready_probe p = {0, 99, 0};
    run_check_errs *ce = calloc(1, sizeof *ce);
    const char *tiny[] = {"simulation.replications=2"};
    sim_err e;
    (void)state;
    base_in(&in);
    in.ready = probe_ready;
    in.ready_arg = &p;
    in.check_errs = ce;
    in.max_memory_mb = RUN_CHECK_DEFAULT_MAX_MEMORY_MB;
    assert_int_equal(runcase_run(&in, &o, &e), SIM_OK);
    assert_int_equal(p.called, 1);
    assert_int_equal(p.n_reps_seen, 0);
    assert_int_equal(o.n_reps, 2);
    runcase_out_free(&o);

    p.fail = 1;
    assert_int_equal(runcase_run(&in, &o, &e), SIM_EIO);
    assert_string_equal(e.msg, "refused");
    assert_int_equal(o.n_reps, 0);
    assert_null(o.reps);
    runcase_out_free(&o);

    /* A memory limit the results cannot meet: the check fails, every
     * error is collected, err holds the first, ready is not called. */
    p.called = 0;
    in.overrides = tiny;
    in.n_overrides = 1;
    in.max_memory_mb = 1e-6;
    assert_int_not_equal(runcase_run(&in, &o, &e), SIM_OK);
    assert_int_equal(p.called, 0);
    assert_true(ce->n >= 1);
    assert_string_equal(e.msg, ce->e[0].msg);
    runcase_out_free(&o);
    free(ce);
}

/* A sweep case (app/sweep_exec.h) is the same case as runcase_run with
 * the case's overrides: sweep and run share one run layer. */
static void test_runcase_sweep_case_equals_the_case_run_alone(void **state)
{
    const char *specs[] = {"simulation.seed=5,6"};
    const char *base[] = {"simulation.replications=2"};
    const char *alone[] = {"simulation.replications=2", "simulation.seed=6"};
    sweep_grid *g = NULL;
    catalog *cat = NULL;
    tp_model *tp = NULL;
    sweep_ctx c;
    scenario *s = NULL;
    res_rep *reps = NULL;
    size_t n = 0;
    runcase_in in;
    runcase_out o;
    sim_err e;
    (void)state;
    assert_int_equal(sweep_grid_parse(specs, 1, &g, &e), SIM_OK);
    assert_int_equal(catalog_load(NULL, &cat, &e), SIM_OK);
    assert_int_equal(tp_model_default(&tp, &e), SIM_OK);
    memset(&c, 0, sizeof c);
    c.scenario_path = SMALL;
    c.cat = cat;
    c.tp = tp;
    c.base_ov = base;
    c.n_base = 1;
    c.g = g;
    c.failures = 1;
    c.model_uncertainty = 1;
    assert_int_equal(sweep_case_compute(&c, 1, &s, &reps, &n, &e), SIM_OK);
    base_in(&in);
    in.overrides = alone;
    in.n_overrides = 2;
    assert_int_equal(runcase_run(&in, &o, &e), SIM_OK);
    assert_int_equal(n, o.n_reps);
    for (size_t r = 0; r < n; r++)
        assert_true(same_results(&reps[r], &o.reps[r]));
    runcase_out_free(&o);
    for (size_t r = 0; r < n; r++)
        res_rep_free(&reps[r]);
    free(reps);
    scenario_free(s);
    sweep_grid_free(g);
    tp_model_free(tp);
    catalog_free(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_runcase_series_first_keeps_rep0_only_and_changes_nothing),
        cmocka_unit_test(test_runcase_seed_and_replications_override),
        cmocka_unit_test(
            test_runcase_ready_runs_after_checks_before_replications),
        cmocka_unit_test(test_runcase_sweep_case_equals_the_case_run_alone),
    };
    return cmocka_run_group_tests_name("runcase", tests, NULL, NULL);
}
