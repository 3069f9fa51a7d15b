/* tests/test_straggler.c: the straggler term beyond the calibrated scale
 * (models/straggler.h): expected maxima of normals against exact values
 * (n = 2, 3) and published tables (n = 100, 1000, Gumbel for large n), the
 * quantile against its definition, the factor's promises (exactly 1 at
 * n <= n_ref and at spread 0, monotone in n, mean close to the ratio of
 * expected maxima), and that no calibration row of the built-in
 * calibration file is slowed (leave-one-configuration-out accuracy cannot
 * change). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>

#include "io/calib_file.h"
#include "models/straggler.h"
#include "sim/rng.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

/* E[M_2] = 1/sqrt(pi) and E[M_3] = 3/(2 sqrt(pi)) (exact, by symmetry of
 * the normal); E[M_4] = 1.0293754 and E[M_5] = 1.1629645 (Harter 1961's
 * table of expected normal order statistics). */
static void test_straggler_expected_max_small_n_exact(void **state)
{
    (void)state;
    assert_near(straggler_expected_max(1), 0.0, 0);
    assert_close(straggler_expected_max(2), 1.0 / sqrt(M_PI), 1e-9);
    assert_close(straggler_expected_max(3), 3.0 / (2.0 * sqrt(M_PI)), 1e-9);
    assert_close(straggler_expected_max(4), 1.0293754, 1e-6);
    assert_close(straggler_expected_max(5), 1.1629645, 1e-6);
}

/* Large n against Harter's table (n = 100: 2.50759, n = 1000: 3.24144)
 * and the Gumbel approximation of the maximum, b_n + gamma a_n with
 * b_n = Phi^-1(1 - 1/n), a_n = 1/(n phi(b_n)): within 1 % at n = 10^4 and
 * 10^5 (the approximation itself converges like 1/log n). */
static void test_straggler_expected_max_large_n_matches_tables(void **state)
{
    (void)state;
    assert_close(straggler_expected_max(100), 2.50759, 1e-5);
    assert_close(straggler_expected_max(1000), 3.24144, 1e-5);
    for (int n = 10000; n <= 100000; n *= 10) {
        double b = gsl_cdf_ugaussian_Qinv(1.0 / n);
        double a = 1.0 / (n * exp(-0.5 * b * b) / sqrt(2 * M_PI));
        assert_close(straggler_expected_max(n), b + M_EULER * a, 0.01);
    }
}

/* q_n(u) is the u-quantile of the max: Phi(q)^n = u. */
static void test_straggler_quantile_is_the_max_distribution(void **state)
{
    static const int ns[] = {1, 7, 256, 4096, 100000};
    static const double us[] = {0.013, 0.37, 0.5, 0.871, 0.9993};
    (void)state;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t k = 0; k < sizeof us / sizeof us[0]; k++) {
            double q = straggler_quantile_max(ns[i], us[k]);
            assert_close(pow(gsl_cdf_ugaussian_P(q), ns[i]), us[k], 1e-9);
        }
}

/* "Exactly 1 when n <= n_ref, n_ref <= 0 or s <= 0". */
static void
test_straggler_factor_is_one_within_the_calibrated_scale(void **state)
{
    (void)state;
    for (double u = 0.05; u < 1; u += 0.1) {
        assert_true(straggler_factor(256, 256, 0.015, u) == 1.0);
        assert_true(straggler_factor(64, 256, 0.015, u) == 1.0);
        assert_true(straggler_factor(16384, 2048, 0.0, u) == 1.0);
        assert_true(straggler_factor(16384, 0, 0.015, u) == 1.0);
    }
    assert_true(straggler_mean_factor(2048, 2048, 0.015) == 1.0);
    assert_true(straggler_mean_factor(100000, 2048, 0.0) == 1.0);
}

/* Monotone: more GPUs beyond n_ref never run faster, draw by draw and on
 * average, and a larger spread slows more. */
static void test_straggler_factor_falls_monotonically_with_n(void **state)
{
    static const int ns[] = {257, 512, 1024, 4096, 16384, 65536, 131072};
    (void)state;
    for (double u = 0.01; u < 1; u += 0.07) {
        double prev = 1.0;
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            double f = straggler_factor(ns[i], 256, 0.015, u);
            assert_true(f < prev);
            prev = f;
        }
        assert_true(straggler_factor(16384, 256, 0.03, u) <
                    straggler_factor(16384, 256, 0.015, u));
    }
}

/* Hand-computed central value: n_ref = 256, n = 16384, s = 1.5 %:
 * E[M_256] = 2.82686, E[M_16384] = 3.97135 (an independent trapezoid
 * integration in Python, 4e5 points on [-9, 10]), so
 * (1 + 0.015 x 2.82686) / (1 + 0.015 x 3.97135) = 0.98380. The mean of the
 * per-replication factor over u (midpoint rule, 20000 points) is within
 * 2e-4 of it: comonotone quantiles keep the mean. */
static void
test_straggler_mean_of_draws_matches_ratio_of_expected_maxima(void **state)
{
    double sum = 0, mean_f;
    const int k = 20000;
    (void)state;
    assert_close(straggler_expected_max(256), 2.82686, 1e-5);
    assert_close(straggler_expected_max(16384), 3.97135, 1e-5);
    mean_f = straggler_mean_factor(16384, 256, 0.015);
    assert_close(mean_f, 0.98380, 1e-5);
    for (int i = 0; i < k; i++)
        sum += straggler_factor(16384, 256, 0.015, (i + 0.5) / k);
    assert_near(sum / k, mean_f, 2e-4);
}

/* The built-in calibration names each GPU's largest row; every one of
 * those scales gets factor 1, so no calibration row (whose num_gpus is at
 * most its GPU's n_gpus_max by construction) is slowed, and the
 * leave-one-configuration-out accuracy is unchanged. Files without
 * n_gpus_max read 0: the term is off. */
static void test_straggler_leaves_every_calibration_row_unchanged(void **state)
{
    tp_model *m = NULL;
    sim_err e;
    int known = 0;
    (void)state;
    assert_int_equal(tp_model_load("models/calibration.cfg", &m, &e), SIM_OK);
    for (int g = 0; g < m->n_gpus; g++) {
        known += m->gpu_n_max[g] > 0;
        for (double u = 0.05; u < 1; u += 0.3) {
            assert_true(straggler_factor(m->gpu_n_max[g], m->gpu_n_max[g],
                                         0.015, u) == 1.0);
            if (m->gpu_n_max[g] > 0)
                assert_true(straggler_factor(2 * m->gpu_n_max[g],
                                             m->gpu_n_max[g], 0.015, u) < 1.0);
        }
    }
    /* Every calibrated GPU has rows, so every one has a reference scale. */
    assert_int_equal(known, m->n_gpus);
    tp_model_free(m);
}

/* n replications of grid-one-job.cfg with the job at 1,024 B300 (the
 * calibration's largest B300 row has 256) and the given spread, model
 * uncertainty on (mu 1) or off; failures are off in the scenario and the
 * grid is ample, so each replication's tokens/s/GPU is the rate it trained
 * at. */
static res_rep *big_job_reps(test_world *w, const char *spread, int mu,
                             size_t n, scenario **s_out)
{
    const char *sets[] = {"modules.[0].count=4", "jobs.[0].gpus=1024",
                          "jobs.[0].global_batch=1024",
                          "simulation.horizon_days=20", spread};
    scenario *s = load_scn(w, "tests/data/run/grid-one-job.cfg", sets, 5);
    site_opts o;
    sim_err e;
    char buf[2200];
    res_rep *r = calloc(n, sizeof *r);
    site_opts_default(&o);
    site_rel_from_scenario(&o.rel, s);
    o.seed = s->sim.seed;
    o.tp = w->tp;
    o.model_uncertainty = mu;
    if (site_run_reps(s, &o, 0, (uint32_t)n, r, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    *s_out = s;
    return r;
}

/* The site applies the term as promised (models/site.c straggler_draw):
 * without model uncertainty every replication trains at the point
 * prediction times the mean factor (1 + s E[M_256]) / (1 + s E[M_1024]);
 * with it, replication r's rate over the same replication at spread 0
 * (common random numbers: the model draw is the same) is exactly
 * straggler_factor(1024, 256, s, u_r), u_r the first uniform of the
 * stream "straggler/llama70b", and the factors differ between
 * replications; at the calibrated scale (256 GPUs) nothing changes. */
static void test_straggler_site_slows_only_jobs_beyond_the_scale(void **state)
{
    enum { N = 6 };
    test_world w;
    scenario *s, *s0, *s1;
    res_rep *off, *on, *on0;
    tp_result tr;
    sim_err e;
    double point, lo = 1, hi = 0;
    (void)state;
    world_open(&w);
    /* The point prediction at the job's placement: spread 0, no draw. */
    off = big_job_reps(&w, "reliability.gpu_speed_spread_pct=0", 0, 1, &s);
    point = off[0].jobs[0].tokens_per_sec_per_gpu;
    res_rep_free(&off[0]);
    free(off);
    scenario_free(s);
    off = big_job_reps(&w, "reliability.gpu_speed_spread_pct=1.5", 0, 2, &s);
    for (int r = 0; r < 2; r++)
        assert_close(off[r].jobs[0].tokens_per_sec_per_gpu,
                     point * straggler_mean_factor(1024, 256, 0.015), 1e-9);
    on = big_job_reps(&w, "reliability.gpu_speed_spread_pct=1.5", 1, N, &s1);
    on0 = big_job_reps(&w, "reliability.gpu_speed_spread_pct=0", 1, N, &s0);
    for (uint32_t r = 0; r < N; r++) {
        gsl_rng *g = rng_stream_new(NULL, s->sim.seed, r,
                                    rng_stream_id("straggler/llama70b"));
        double u = gsl_rng_uniform_pos(g), f;
        gsl_rng_free(g);
        f = on[r].jobs[0].tokens_per_sec_per_gpu /
            on0[r].jobs[0].tokens_per_sec_per_gpu;
        assert_close(f, straggler_factor(1024, 256, 0.015, u), 1e-9);
        lo = fmin(lo, f);
        hi = fmax(hi, f);
    }
    assert_true(hi < 1.0 && lo < hi);
    for (int r = 0; r < 2; r++)
        res_rep_free(&off[r]);
    for (int r = 0; r < N; r++) {
        res_rep_free(&on[r]);
        res_rep_free(&on0[r]);
    }
    free(off);
    free(on);
    free(on0);
    scenario_free(s);
    scenario_free(s0);
    scenario_free(s1);
    /* 256 GPUs: exactly the point prediction. */
    {
        scenario *t = load_scn(&w, "tests/data/run/grid-one-job.cfg", NULL, 0);
        site_opts o;
        res_rep *r = calloc(1, sizeof *r);
        site_opts_default(&o);
        o.seed = t->sim.seed;
        o.tp = w.tp;
        assert_int_equal(site_run_reps(t, &o, 0, 1, r, &e), SIM_OK);
        assert_int_equal(
            site_job_throughput(t, &t->jobs[0], w.tp, 0, 0, &tr, &e), SIM_OK);
        assert_true(t->reliability.gpu_speed_spread > 0);
        assert_close(r[0].jobs[0].tokens_per_sec_per_gpu,
                     tr.tokens_per_sec_per_gpu, 1e-12);
        res_rep_free(r);
        free(r);
        scenario_free(t);
    }
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straggler_expected_max_small_n_exact),
        cmocka_unit_test(test_straggler_expected_max_large_n_matches_tables),
        cmocka_unit_test(test_straggler_quantile_is_the_max_distribution),
        cmocka_unit_test(
            test_straggler_factor_is_one_within_the_calibrated_scale),
        cmocka_unit_test(test_straggler_factor_falls_monotonically_with_n),
        cmocka_unit_test(
            test_straggler_mean_of_draws_matches_ratio_of_expected_maxima),
        cmocka_unit_test(test_straggler_leaves_every_calibration_row_unchanged),
        cmocka_unit_test(test_straggler_site_slows_only_jobs_beyond_the_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
