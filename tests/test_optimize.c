/* tests/test_optimize.c: the search of app/optimize.h on synthetic
 * functions, where the full lattice is known exactly: the constrained
 * optimum is found (or one within 1 %) with at most a third of the
 * lattice; no design is evaluated twice; designs near a bound are refined
 * and only those; the Pareto front of two objectives is exactly the
 * non-dominated feasible set of what was evaluated; bad problems are
 * refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/optimize.h"

/* A synthetic problem on a lattice of dims[]: objective and constraint
 * values as functions of the coordinates. */
typedef struct synth {
    size_t na, dims[3];
    int kind; /* 0: cost-like (min a+b s.t. a*b >= c), 1: two objectives */
    size_t calls[2];     /* cases evaluated per level */
    unsigned char *seen; /* level-0 evaluations per case */
    int dup;             /* a case evaluated twice at level 0 */
    double spread;
} synth;

static void coords3(const synth *s, size_t i, double *x)
{
    for (size_t a = s->na; a-- > 0;) {
        x[a] = (double)(i % s->dims[a]);
        i /= s->dims[a];
    }
}

static int synth_eval(void *arg, int level, const size_t *cases, size_t n,
                      opt_vals *out, sim_err *err)
{
    synth *s = arg;
    (void)err;
    for (size_t k = 0; k < n; k++) {
        double x[3] = {0, 0, 0};
        coords3(s, cases[k], x);
        memset(&out[k], 0, sizeof out[k]);
        if (level == 0) {
            s->dup |= s->seen[cases[k]]++ > 0;
        }
        s->calls[level]++;
        if (s->kind == 0) {
            /* cost = 3a + 2b + c (+ a tiny bump), need a * (b + 1) >= 40 */
            out[k].obj[0] =
                3.0 * x[0] + 2.0 * x[1] + 0.5 * x[2] + 0.01 * sin(x[0] * x[1]);
            out[k].con[0] = x[0] * (x[1] + 1.0);
            out[k].spread[0] = s->spread;
        } else {
            out[k].obj[0] = (x[0] - 2) * (x[0] - 2) + x[1];
            out[k].obj[1] = (x[0] - 8) * (x[0] - 8) + (9 - x[1]);
            out[k].con[0] = x[0] + x[1];
            out[k].spread[0] = 0;
        }
    }
    return SIM_OK;
}

/* The full-lattice optimum of kind 0 by brute force. */
static double brute(const synth *s, size_t n_cases)
{
    double best = INFINITY;
    for (size_t i = 0; i < n_cases; i++) {
        double x[3] = {0, 0, 0}, f, c;
        coords3(s, i, x);
        f = 3.0 * x[0] + 2.0 * x[1] + 0.5 * x[2] + 0.01 * sin(x[0] * x[1]);
        c = x[0] * (x[1] + 1.0);
        if (c >= 40.0 && f < best)
            best = f;
    }
    return best;
}

static void run_kind0(size_t na, size_t d)
{
    synth s;
    opt_problem p;
    opt_result r;
    sim_err e;
    int ge = 1;
    double bound = 40.0;
    size_t nc = 1;
    memset(&s, 0, sizeof s);
    s.na = na;
    for (size_t a = 0; a < na; a++) {
        s.dims[a] = d;
        nc *= d;
    }
    s.seen = calloc(nc, 1);
    memset(&p, 0, sizeof p);
    p.n_axes = na;
    p.dims = s.dims;
    p.n_obj = 1;
    p.n_con = 1;
    p.con_ge = &ge;
    p.con_bound = &bound;
    p.reps = 4;
    p.eval = synth_eval;
    p.arg = &s;
    assert_int_equal(opt_search(&p, &r, &e), SIM_OK);
    assert_false(s.dup);
    assert_int_equal(r.n_designs, s.calls[0]);
    assert_true(r.n_designs * 3 <= nc);
    assert_true(r.designs[r.best].feasible);
    assert_true(r.designs[r.best].v.obj[0] <= brute(&s, nc) * 1.01 + 1e-12);
    /* Designs are sorted by case and distinct. */
    for (size_t i = 1; i < r.n_designs; i++)
        assert_true(r.designs[i - 1].case_i < r.designs[i].case_i);
    opt_result_free(&r);
    free(s.seen);
}

/* "Finds the lattice's best feasible design or one within 1 % of it,
 * with at most a third of the designs": 10 x 10 and 8 x 8 x 8. */
static void test_optimize_finds_constrained_optimum(void **state)
{
    (void)state;
    run_kind0(2, 10);
    run_kind0(2, 12);
    run_kind0(3, 8);
}

/* The boundary rule: only designs whose constraint lies within
 * spread / sqrt(R) of the bound are refined, each once. */
static void test_optimize_refines_only_near_the_bound(void **state)
{
    synth s;
    opt_problem p;
    opt_result r;
    sim_err e;
    int ge = 1;
    double bound = 40.0;
    size_t near = 0;
    (void)state;
    memset(&s, 0, sizeof s);
    s.na = 2;
    s.dims[0] = s.dims[1] = 10;
    s.seen = calloc(100, 1);
    s.spread = 8.0; /* band: 8 / sqrt(4) = 4 */
    memset(&p, 0, sizeof p);
    p.n_axes = 2;
    p.dims = s.dims;
    p.n_obj = 1;
    p.n_con = 1;
    p.con_ge = &ge;
    p.con_bound = &bound;
    p.reps = 4;
    p.eval = synth_eval;
    p.arg = &s;
    assert_int_equal(opt_search(&p, &r, &e), SIM_OK);
    for (size_t i = 0; i < r.n_designs; i++) {
        int nb = fabs(r.designs[i].v.con[0] - 40.0) <= 4.0;
        assert_int_equal(r.designs[i].level, nb);
        near += (size_t)nb;
    }
    assert_true(near > 0);
    assert_int_equal(r.n_refined, near);
    assert_int_equal(s.calls[1], near);
    assert_true(opt_near_bound(41.0, 8.0, 40.0, 4));
    assert_false(opt_near_bound(44.5, 8.0, 40.0, 4));
    assert_false(opt_near_bound(NAN, 8.0, 40.0, 4));
    opt_result_free(&r);
    free(s.seen);
}

/* Two objectives: the front is exactly the non-dominated feasible
 * designs among those evaluated, and it has both ends' designs. */
static void test_optimize_pareto_front(void **state)
{
    synth s;
    opt_problem p;
    opt_result r;
    sim_err e;
    int ge = 0;
    double bound = 14.0;
    (void)state;
    memset(&s, 0, sizeof s);
    s.na = 2;
    s.dims[0] = s.dims[1] = 10;
    s.kind = 1;
    s.seen = calloc(100, 1);
    memset(&p, 0, sizeof p);
    p.n_axes = 2;
    p.dims = s.dims;
    p.n_obj = 2;
    p.n_con = 1;
    p.con_ge = &ge;
    p.con_bound = &bound;
    p.reps = 1;
    p.eval = synth_eval;
    p.arg = &s;
    assert_int_equal(opt_search(&p, &r, &e), SIM_OK);
    assert_true(r.n_pareto >= 2);
    for (size_t i = 0; i < r.n_designs; i++) {
        const opt_design *x = &r.designs[i];
        int dominated = 0, on_front = 0;
        for (size_t j = 0; j < r.n_designs; j++) {
            const opt_design *y = &r.designs[j];
            if (y->feasible && y->v.obj[0] <= x->v.obj[0] &&
                y->v.obj[1] <= x->v.obj[1] &&
                (y->v.obj[0] < x->v.obj[0] || y->v.obj[1] < x->v.obj[1]))
                dominated = 1;
        }
        for (size_t k = 0; k < r.n_pareto; k++)
            on_front |= r.pareto[k] == i;
        assert_int_equal(on_front, x->feasible && !dominated);
    }
    /* The search reached the first objective's lattice optimum among
     * feasible designs: x0 = 2, x1 = 0 gives obj0 = 0. */
    {
        double m = INFINITY;
        for (size_t k = 0; k < r.n_pareto; k++)
            m = fmin(m, r.designs[r.pareto[k]].v.obj[0]);
        assert_true(m == 0.0);
    }
    assert_false(s.dup);
    opt_result_free(&r);
    free(s.seen);
}

static void test_optimize_refuses_bad_problems(void **state)
{
    opt_problem p;
    opt_result r;
    sim_err e;
    size_t dims[1] = {3};
    (void)state;
    memset(&p, 0, sizeof p);
    p.n_axes = 1;
    p.dims = dims;
    p.n_obj = 0;
    assert_int_equal(opt_search(&p, &r, &e), SIM_EINVAL);
    p.n_obj = OPT_MAX_OBJ + 1;
    assert_int_equal(opt_search(&p, &r, &e), SIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimize_finds_constrained_optimum),
        cmocka_unit_test(test_optimize_refines_only_near_the_bound),
        cmocka_unit_test(test_optimize_pareto_front),
        cmocka_unit_test(test_optimize_refuses_bad_problems),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
