/* tests/test_sweep.c: the sweep grid (models/sweep.h): lists, ranges,
 * float steps, canonical numbers, case order and keys, every usage error;
 * and the result packing that carries cases between MPI ranks
 * (models/respack.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/respack.h"
#include "models/resfield.h"
#include "models/sweep.h"
#include "tests/testutil.h"

static sweep_grid *grid(const char *const *specs, size_t n)
{
    sweep_grid *g = NULL;
    sim_err e;
    sim_err_clear(&e);
    if (sweep_grid_parse(specs, n, &g, &e) != SIM_OK)
        fail_msg("unexpected error: %s", e.msg);
    return g;
}

/* Checks that specs fail with SIM_EUSAGE and a message containing want. */
static void expect_error(const char *const *specs, size_t n, const char *want)
{
    sweep_grid *g = (sweep_grid *)1;
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(sweep_grid_parse(specs, n, &g, &e), SIM_EUSAGE);
    assert_null(g);
    if (!strstr(e.msg, want))
        fail_msg("message '%s' lacks '%s'", e.msg, want);
}

/* "Cases are numbered in row-major order: the first axis varies slowest";
 * keys are "k1=v1;k2=v2". */
static void test_sweep_grid_row_major_cases_and_keys(void **state)
{
    const char *specs[] = {"modules.[0].count=1,2,3",
                           "energy.solar.capacity_mw=0.5:2:0.5"};
    sweep_grid *g = grid(specs, 2);
    char *k, *ov[2];
    (void)state;
    assert_int_equal(g->n_axes, 2);
    assert_int_equal(g->n_cases, 12);
    k = sweep_case_key(g, 0);
    assert_string_equal(k, "modules.[0].count=1;energy.solar.capacity_mw=0.5");
    free(k);
    k = sweep_case_key(g, 5); /* 5 = 1 * 4 + 1 */
    assert_string_equal(k, "modules.[0].count=2;energy.solar.capacity_mw=1");
    free(k);
    k = sweep_case_key(g, 11);
    assert_string_equal(k, "modules.[0].count=3;energy.solar.capacity_mw=2");
    free(k);
    assert_int_equal(sweep_case_value(g, 7, 0), 1);
    assert_int_equal(sweep_case_value(g, 7, 1), 3);
    sweep_case_overrides(g, 7, ov);
    assert_string_equal(ov[0], "modules.[0].count=2");
    assert_string_equal(ov[1], "energy.solar.capacity_mw=2");
    sweep_overrides_free(ov, 2);
    /* Every key is distinct. */
    for (size_t i = 0; i < g->n_cases; i++)
        for (size_t j = 0; j < i; j++) {
            char *a = sweep_case_key(g, i), *b = sweep_case_key(g, j);
            assert_true(strcmp(a, b) != 0);
            free(a);
            free(b);
        }
    assert_int_equal(sweep_axis_index(g, "energy.solar.capacity_mw"), 1);
    assert_int_equal(sweep_axis_index(g, "nope"), -1);
    sweep_grid_free(g);
}

/* "0.5:2:0.5 gives exactly 0.5, 1, 1.5, 2"; float steps that do not
 * divide exactly in binary still reach HI and print as decimals. */
static void test_sweep_grid_float_steps_are_canonical(void **state)
{
    const char *s1[] = {"x=0.5:2:0.5"}, *s2[] = {"x=0.1:0.4:0.1"},
               *s3[] = {"x=0:1:0.1"}, *s4[] = {"x=5:5:1"}, *s5[] = {"x=1:10:4"};
    const char *want2[] = {"0.1", "0.2", "0.3", "0.4"};
    sweep_grid *g;
    (void)state;
    g = grid(s1, 1);
    assert_int_equal(g->axes[0].n, 4);
    assert_string_equal(g->axes[0].values[0], "0.5");
    assert_string_equal(g->axes[0].values[1], "1");
    assert_string_equal(g->axes[0].values[2], "1.5");
    assert_string_equal(g->axes[0].values[3], "2");
    assert_close(g->axes[0].numbers[2], 1.5, 1e-15);
    sweep_grid_free(g);
    g = grid(s2, 1);
    assert_int_equal(g->axes[0].n, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(g->axes[0].values[i], want2[i]);
    sweep_grid_free(g);
    g = grid(s3, 1);
    assert_int_equal(g->axes[0].n, 11);
    assert_string_equal(g->axes[0].values[3], "0.3");
    assert_string_equal(g->axes[0].values[10], "1");
    sweep_grid_free(g);
    g = grid(s4, 1); /* a one-value range */
    assert_int_equal(g->axes[0].n, 1);
    assert_string_equal(g->axes[0].values[0], "5");
    sweep_grid_free(g);
    g = grid(s5, 1); /* HI not on the grid: stops below it */
    assert_int_equal(g->axes[0].n, 3);
    assert_string_equal(g->axes[0].values[2], "9");
    sweep_grid_free(g);
}

/* Lists: numbers canonical (30.0 -> 30, 1e3 -> 1000), other values kept
 * with their kind; a list and a range of the same values give the same
 * grid text (and so the same sweep key). */
static void test_sweep_grid_lists_keep_kinds(void **state)
{
    const char *s1[] = {"a=30.0,1e3,-0", "b=true,false", "c=\"x y\",word,12L"};
    const char *s2[] = {"x=0.5,1,1.5,2"}, *s3[] = {"x=0.5:2:0.5"};
    sweep_grid *g = grid(s1, 3), *g2, *g3;
    char *t2, *t3;
    (void)state;
    assert_string_equal(g->axes[0].values[0], "30");
    assert_string_equal(g->axes[0].values[1], "1000");
    assert_string_equal(g->axes[0].values[2], "0");
    assert_int_equal(g->axes[0].kinds[0], SWEEP_NUMBER);
    assert_int_equal(g->axes[1].kinds[0], SWEEP_BOOL);
    assert_true(isnan(g->axes[1].numbers[0]));
    assert_string_equal(g->axes[2].values[0], "\"x y\"");
    assert_int_equal(g->axes[2].kinds[0], SWEEP_TEXT);
    assert_int_equal(g->axes[2].kinds[1], SWEEP_TEXT);
    assert_string_equal(g->axes[2].values[2], "12L");
    assert_int_equal(g->axes[2].kinds[2], SWEEP_NUMBER);
    assert_close(g->axes[2].numbers[2], 12.0, 0);
    assert_int_equal(g->n_cases, 18);
    sweep_grid_free(g);
    g2 = grid(s2, 1);
    g3 = grid(s3, 1);
    t2 = sweep_grid_text(g2);
    t3 = sweep_grid_text(g3);
    assert_string_equal(t2, "x=0.5,1,1.5,2\n");
    assert_string_equal(t2, t3);
    free(t2);
    free(t3);
    sweep_grid_free(g2);
    sweep_grid_free(g3);
}

/* "Bad ranges/keys are usage errors naming the key." */
static void test_sweep_grid_errors_name_the_key(void **state)
{
    const char *none[] = {"x"};
    const char *no_eq[] = {"energy.solar.capacity_mw"}, *no_key[] = {"=1,2"},
               *no_val[] = {"k.v="}, *empty[] = {"k.v=1,,2"},
               *step0[] = {"k.v=1:5:0"}, *stepn[] = {"k.v=1:5:-1"},
               *down[] = {"k.v=5:1:1"}, *two[] = {"k.v=1:5"},
               *four[] = {"k.v=1:2:3:4"}, *nan_[] = {"k.v=a:b:c"},
               *inf_[] = {"k.v=0:1e999:1"}, *many[] = {"k.v=0:1e6:1"},
               *twice[] = {"k.v=1,2", "k.v=3"}, *dupv[] = {"k.v=1,1.0"},
               *cases[] = {"a=1:1000:1", "b=1:1000:1", "c=1:2:1"};
    (void)state;
    expect_error(none, 0, "at least one --set");
    expect_error(no_eq, 1, "expected KEY=");
    expect_error(no_key, 1, "expected KEY=");
    expect_error(no_val, 1, "k.v: no value");
    expect_error(empty, 1, "k.v: empty value");
    expect_error(step0, 1, "k.v: range step must be > 0");
    expect_error(stepn, 1, "k.v: range step must be > 0");
    expect_error(down, 1, "k.v: range end below its start");
    expect_error(two, 1, "k.v: bad range");
    expect_error(four, 1, "k.v: bad range");
    expect_error(nan_, 1, "k.v: bad range 'a:b:c'");
    expect_error(inf_, 1, "k.v: bad range");
    expect_error(many, 1, "k.v: range has too many values");
    expect_error(twice, 2, "k.v: key given twice");
    expect_error(dupv, 1, "k.v: value 1 given twice");
    expect_error(cases, 3, "too many cases");
}

/* Fills a replication with distinct values in every field. */
static void fill_rep(res_rep *r, uint32_t rep, size_t nj, size_t ns, size_t ne)
{
    double v = 1.25 + rep;
    memset(r, 0, sizeof *r);
    r->replication = rep;
    r->n_jobs = nj;
    r->jobs = calloc(nj, sizeof *r->jobs);
    for (size_t j = 0; j < nj; j++)
        for (size_t f = 0; f < resfield_n_job; f++)
            resfield_set(&r->jobs[j], &resfield_job[f],
                         resfield_job[f].type ? (v += 1) : (v *= 1.0001));
    r->jobs[0].end_s = NAN; /* an unfinished job's NAN survives */
    for (size_t f = 0; f < resfield_n_site; f++)
        resfield_set(&r->site, &resfield_site[f], v += 0.1);
    r->n_steps = ns;
    r->steps = ns ? calloc(ns, sizeof *r->steps) : NULL;
    for (size_t s = 0; s < ns; s++)
        for (size_t f = 0; f < resfield_n_step; f++)
            resfield_set(&r->steps[s], &resfield_step[f], v += 0.3);
    r->n_events = ne;
    r->events = ne ? calloc(ne, sizeof *r->events) : NULL;
    for (size_t e = 0; e < ne; e++)
        r->events[e] = (res_event){v += 1, (int32_t)e, (int32_t)(e % RES_EV_N),
                                   2, v * 0.5};
    /* Power dynamics per module and the window: as many as the steps. */
    r->n_modules = ns;
    r->modules = ns ? calloc(ns, sizeof *r->modules) : NULL;
    for (size_t m = 0; m < ns; m++)
        for (size_t f = 0; f < resfield_n_module; f++)
            resfield_set(&r->modules[m], &resfield_module[f], v += 0.7);
    r->n_pd_samples = ns;
    r->pd_samples = ns ? calloc(ns, sizeof *r->pd_samples) : NULL;
    for (size_t i = 0; i < ns; i++)
        for (size_t f = 0; f < resfield_n_pd_sample; f++)
            resfield_set(&r->pd_samples[i], &resfield_pd_sample[f], v += 0.9);
}

/* "unpack(pack(x)) == x field by field"; a truncated buffer is an error. */
static void test_respack_round_trip_is_exact(void **state)
{
    res_rep in[2], *out = NULL;
    size_t n = 0, len, w;
    double *buf;
    sim_err e;
    (void)state;
    fill_rep(&in[0], 0, 2, 3, 4);
    fill_rep(&in[1], 1, 2, 0, 0);
    len = respack_size(in, 2);
    buf = malloc(len * sizeof *buf);
    w = respack_pack(in, 2, buf);
    assert_int_equal(w, len);
    assert_int_equal(respack_unpack(buf, len, &out, &n, &e), SIM_OK);
    assert_int_equal(n, 2);
    for (size_t r = 0; r < 2; r++) {
        assert_int_equal(out[r].replication, in[r].replication);
        assert_int_equal(out[r].n_jobs, in[r].n_jobs);
        assert_int_equal(out[r].n_steps, in[r].n_steps);
        assert_int_equal(out[r].n_events, in[r].n_events);
        for (size_t j = 0; j < in[r].n_jobs; j++)
            for (size_t f = 0; f < resfield_n_job; f++) {
                double a = resfield_get(&in[r].jobs[j], &resfield_job[f]);
                double b = resfield_get(&out[r].jobs[j], &resfield_job[f]);
                assert_true(memcmp(&a, &b, sizeof a) == 0);
            }
        assert_true(memcmp(&in[r].site, &out[r].site, sizeof in[r].site) == 0);
        if (in[r].n_steps)
            assert_true(memcmp(in[r].steps, out[r].steps,
                               in[r].n_steps * sizeof *in[r].steps) == 0);
        for (size_t k = 0; k < in[r].n_events; k++) {
            assert_true(in[r].events[k].t_s == out[r].events[k].t_s);
            assert_int_equal(in[r].events[k].job, out[r].events[k].job);
            assert_int_equal(in[r].events[k].kind, out[r].events[k].kind);
            assert_int_equal(in[r].events[k].cause, out[r].events[k].cause);
            assert_true(in[r].events[k].value == out[r].events[k].value);
        }
        assert_int_equal(out[r].n_modules, in[r].n_modules);
        assert_int_equal(out[r].n_pd_samples, in[r].n_pd_samples);
        if (in[r].n_modules)
            assert_true(memcmp(in[r].modules, out[r].modules,
                               in[r].n_modules * sizeof *in[r].modules) == 0);
        if (in[r].n_pd_samples)
            assert_true(memcmp(in[r].pd_samples, out[r].pd_samples,
                               in[r].n_pd_samples * sizeof *in[r].pd_samples) ==
                        0);
        res_rep_free(&out[r]);
    }
    free(out);
    /* Truncated, or a count that runs past the end: errors. */
    assert_int_equal(respack_unpack(buf, len - 1, &out, &n, &e), SIM_EINVAL);
    assert_null(out);
    buf[2] = 1e9; /* n_jobs of rep 0 */
    assert_int_equal(respack_unpack(buf, len, &out, &n, &e), SIM_EINVAL);
    buf[2] = 1.5;
    assert_int_equal(respack_unpack(buf, len, &out, &n, &e), SIM_EINVAL);
    assert_int_equal(respack_unpack(buf, 0, &out, &n, &e), SIM_EINVAL);
    free(buf);
    res_rep_free(&in[0]);
    res_rep_free(&in[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_grid_row_major_cases_and_keys),
        cmocka_unit_test(test_sweep_grid_float_steps_are_canonical),
        cmocka_unit_test(test_sweep_grid_lists_keep_kinds),
        cmocka_unit_test(test_sweep_grid_errors_name_the_key),
        cmocka_unit_test(test_respack_round_trip_is_exact),
    };
    return cmocka_run_group_tests_name("sweep", tests, NULL, NULL);
}
