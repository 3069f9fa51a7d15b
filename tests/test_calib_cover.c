/* tests/test_calib_cover.c: nested leave-one-configuration-out coverage of
 * the 80 % interval (models/calib_cover.h) on rows whose held-out log
 * errors are chosen by hand, so that every width and every in/out verdict
 * is computed on paper below: the held-out configuration's own rows never
 * set its width (unlike the plain figure), other classes never do, and a
 * row without a prediction or without another row of its class is not
 * counted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/calib_cover.h"
#include "sim/mem.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

/* Class dense: configuration X has two rows with log errors +0.1 and
 * -0.1, configuration Y one row with +0.2; class moe: configuration Z,
 * +0.05, alone in its class; a fifth row (dense, configuration W) has no
 * prediction. Measured 1000 tokens/s/GPU each, prediction 1000 exp(l).
 *
 * Nested widths (calib_spread80, Q80 / z): X's rows see only Y: Q80 of
 * {0.2} = 0.2, sigma 0.2 / z, z sigma = 0.2 >= 0.1, both inside; Y sees
 * X: Q80 of {0.1, 0.1} = 0.1, z sigma = 0.1 < 0.2, outside. (Leaving out
 * the row alone instead of its configuration would give X1 Q80 of
 * {0.1, 0.2}: h = 0.8, 0.1 + 0.8 x 0.1 = 0.18.) Nested coverage 2 of 3;
 * Z and W are not counted.
 * Plain: sigma_log[dense] = Q80 of {0.1, 0.1, 0.2} / z: h = 2 x 0.8 =
 * 1.6, 0.1 + 0.6 x 0.1 = 0.16 (what calibrate writes), z sigma = 0.16:
 * X inside, Y outside; Z against sigma_log[moe] = 0.1 (0.1282 >= 0.05)
 * inside: 3 of 4. */
static void test_calib_cover_leaves_the_held_out_configuration_out(void **state)
{
    gpu_spec g = h100();
    llm_arch dense = llama8(), moe = llama8();
    calib_row rows[5];
    static const double l[5] = {0.1, -0.1, 0.2, 0.05, 0};
    static const char *cfgs[5] = {"X", "X", "Y", "Z", "W"};
    double pred[5], sd[5];
    signed char cov[5], plain[5];
    unsigned char sel[5] = {1, 1, 1, 0, 1};
    size_t n_t = 0;
    tp_model m;
    (void)state;
    moe.cls = LLM_MOE;
    tp_model_init(&m);
    m.sigma_extrap = 0; /* the widening is tp_log_sd's, tested there */
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 5; i++) {
        rows[i].gpu = &g;
        rows[i].llm = i == 3 ? &moe : &dense;
        rows[i].meas_tps = 1000;
        snprintf(rows[i].config, sizeof rows[i].config, "%s", cfgs[i]);
        pred[i] = i == 4 ? 0 : 1000 * exp(l[i]);
    }
    m.sigma_log[0] = calib_spread80(rows, 5, pred, LLM_DENSE, NULL, NULL);
    assert_close(m.sigma_log[0], 0.16 / CALIB_COVER_Z80, 1e-12);
    m.sigma_log[1] = 0.1;
    calib_cover_loco(rows, 5, pred, &m, CALIB_COVER_Z80, sd, cov, plain);
    assert_close(sd[0], 0.2 / CALIB_COVER_Z80, 1e-12);
    assert_close(sd[1], 0.2 / CALIB_COVER_Z80, 1e-12);
    assert_close(sd[2], 0.1 / CALIB_COVER_Z80, 1e-12);
    assert_true(isnan(sd[3]) && isnan(sd[4]));
    assert_int_equal(cov[0], 1);
    assert_int_equal(cov[1], 1);
    assert_int_equal(cov[2], 0);
    assert_int_equal(cov[3], -1);
    assert_int_equal(cov[4], -1);
    assert_int_equal(plain[0], 1);
    assert_int_equal(plain[1], 1);
    assert_int_equal(plain[2], 0);
    assert_int_equal(plain[3], 1);
    assert_int_equal(plain[4], -1);
    assert_close(calib_cover_fraction(cov, NULL, 5, &n_t), 2.0 / 3.0, 1e-12);
    assert_int_equal(n_t, 3);
    assert_close(calib_cover_fraction(plain, NULL, 5, &n_t), 3.0 / 4.0, 1e-12);
    assert_int_equal(n_t, 4);
    /* The dense subset only (sel drops Z). */
    assert_close(calib_cover_fraction(plain, sel, 5, &n_t), 2.0 / 3.0, 1e-12);
    assert_int_equal(n_t, 3);
}

/* The spread estimator by hand (GSL's quantile, Hyndman-Fan type 7:
 * h = 0.8 (k - 1), Q = x_floor(h) + frac(h) (x_floor(h)+1 - x_floor(h))).
 * Dense rows, log errors by configuration: A 0.1, B -0.2, C 0.3,
 * D -0.4 and 0.45, E 0.5; G has no prediction; moe row F 3.0.
 * All dense: |l| sorted {0.1 0.2 0.3 0.4 0.45 0.5}, k 6, h 4.0: 0.45.
 * Without D (both its rows): {0.1 0.2 0.3 0.5}, h 2.4: 0.3 + 0.4 x 0.2 =
 * 0.38. Without E: {0.1 0.2 0.3 0.4 0.45}, h 3.2: 0.4 + 0.2 x 0.05 =
 * 0.41. The sign and the moe row's 3.0 never enter dense; moe alone is
 * 3.0; moe without F and hybrid have no row: NAN. (The rms of the dense
 * six, 0.354, would put the mean of squares, not the quantile, in.) */
static void
test_calib_spread80_is_the_q80_over_z_without_the_held_out(void **state)
{
    gpu_spec g = h100();
    llm_arch dense = llama8(), moe = llama8();
    enum { N = 8 };
    calib_row rows[N];
    static const double l[N] = {0.1, -0.2, 0.3, -0.4, 0.45, 0.5, 0, 3.0};
    static const char *cfgs[N] = {"A", "B", "C", "D", "D", "E", "G", "F"};
    double pred[N];
    size_t k = 99;
    (void)state;
    moe.cls = LLM_MOE;
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < N; i++) {
        rows[i].gpu = &g;
        rows[i].llm = i == 7 ? &moe : &dense;
        rows[i].meas_tps = 2000;
        snprintf(rows[i].config, sizeof rows[i].config, "%s", cfgs[i]);
        pred[i] = i == 6 ? 0 : 2000 * exp(l[i]);
    }
    assert_close(calib_spread80(rows, N, pred, LLM_DENSE, NULL, &k),
                 0.45 / CALIB_COVER_Z80, 1e-12);
    assert_int_equal(k, 6);
    assert_close(calib_spread80(rows, N, pred, LLM_DENSE, "D", &k),
                 0.38 / CALIB_COVER_Z80, 1e-12);
    assert_int_equal(k, 4);
    assert_close(calib_spread80(rows, N, pred, LLM_DENSE, "E", &k),
                 0.41 / CALIB_COVER_Z80, 1e-12);
    assert_int_equal(k, 5);
    assert_close(calib_spread80(rows, N, pred, LLM_MOE, NULL, &k),
                 3.0 / CALIB_COVER_Z80, 1e-12);
    assert_int_equal(k, 1);
    assert_true(isnan(calib_spread80(rows, N, pred, LLM_MOE, "F", &k)));
    assert_int_equal(k, 0);
    assert_true(isnan(calib_spread80(rows, N, pred, LLM_HYBRID, NULL, &k)));
    assert_int_equal(k, 0);
}

/* For normal log errors the estimator is the sd: 20,000 draws of sd 0.1
 * (fixed stream). The sampling sd of the 0.8 quantile of |X| is
 * sqrt(0.8 x 0.2 / n) / f(q), f(q) = 2 phi(1.2816) / 0.1 = 3.51, so
 * 0.00081 in q, 0.63 % in sigma: a 3 % tolerance is about 5 of those.
 * A heavy-tailed sample (90 % sd 0.05, 10 % sd 0.5) shows why the rms is
 * not used: z x rms (0.165) covers 0.9 + 0.1 x P(|Z| < 0.42) = 93 % of
 * it, z x calib_spread80 covers 80 % (by construction, to 1/n). */
static void
test_calib_spread80_is_the_sd_of_a_normal_not_of_heavy_tails(void **state)
{
    enum { N = 20000 };
    gpu_spec g = h100();
    llm_arch dense = llama8();
    calib_row *rows = sim_xcalloc(N, sizeof *rows);
    double *pred = sim_xcalloc(N, sizeof *pred), ss = 0, s, rms;
    size_t in_q = 0, in_rms = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    (void)state;
    gsl_rng_set(r, 19);
    for (int i = 0; i < N; i++) {
        rows[i].gpu = &g;
        rows[i].llm = &dense;
        rows[i].meas_tps = 1000;
        snprintf(rows[i].config, sizeof rows[i].config, "N%d", i % 50);
        pred[i] = 1000 * exp(gsl_ran_gaussian(r, 0.1));
    }
    s = calib_spread80(rows, N, pred, LLM_DENSE, NULL, NULL);
    assert_true(fabs(s / 0.1 - 1) < 0.03);
    for (int i = 0; i < N; i++) {
        double l = gsl_ran_gaussian(r, i % 10 == 0 ? 0.5 : 0.05);
        pred[i] = 1000 * exp(l);
        ss += l * l;
    }
    rms = sqrt(ss / N);
    s = calib_spread80(rows, N, pred, LLM_DENSE, NULL, NULL);
    for (int i = 0; i < N; i++) {
        double a = fabs(log(pred[i] / 1000));
        in_q += a <= CALIB_COVER_Z80 * s * (1 + 1e-12);
        in_rms += a <= CALIB_COVER_Z80 * rms;
    }
    assert_true(fabs((double)in_q / N - 0.8) < 0.001);
    assert_true((double)in_rms / N > 0.9);
    gsl_rng_free(r);
    free(rows);
    free(pred);
}

/* n rows on two GPUs "A" and "B" of one dense model (plus three moe rows
 * on "C" when n is 23): A's log errors 0.01, 0.02, ..., B's twice those,
 * C's 0.3, 0.1, 0.2; signs alternate; each row its own configuration
 * ("A0", "B12", ...) unless cfg says otherwise. */
static void two_gpus(calib_row *rows, double *pred, int n_a, int n_b,
                     gpu_spec *ga, gpu_spec *gb, gpu_spec *gc,
                     const llm_arch *dense, const llm_arch *moe, tp_model *m)
{
    int n = n_a + n_b + (gc ? 3 : 0);
    strcpy(ga->name, "A");
    strcpy(gb->name, "B");
    tp_model_init(m);
    strcpy(m->gpus[0], "A");
    strcpy(m->gpus[1], "B");
    m->n_gpus = 2;
    if (gc) {
        strcpy(gc->name, "C");
        strcpy(m->gpus[2], "C");
        m->n_gpus = 3;
    }
    memset(rows, 0, (size_t)n * sizeof *rows);
    for (int i = 0; i < n; i++) {
        int g = i < n_a ? 0 : i < n_a + n_b ? 1 : 2;
        double l = g == 0   ? 0.01 * (i + 1)
                   : g == 1 ? 0.02 * (i - n_a + 1)
                            : (double[]){0.3, 0.1, 0.2}[i - n_a - n_b];
        rows[i].gpu = g == 0 ? ga : g == 1 ? gb : gc;
        rows[i].llm = g < 2 ? dense : moe;
        rows[i].meas_tps = 1000;
        snprintf(rows[i].config, sizeof rows[i].config, "%c%d", "ABC"[g], i);
        pred[i] = 1000 * exp(i % 2 ? -l : l); /* the sign never enters */
    }
}

/* Class spread times GPU multiplier, by hand (Q80 as above). Dense rows on
 * GPU A with |l| 0.01, 0.02, ..., 0.10 and on GPU B twice that; three moe
 * rows on GPU C. Dense: Q80 of the 20 values, sorted .01 .02 .02 .03 .04
 * .04 .05 .06 .06 .07 .08 .08 .09 .10 .10 .12 .14 ..., h = 15.2: 0.12 +
 * 0.2 x 0.02 = 0.124, sigma = 0.124 / z. B's multiplier: Q80 of B (h =
 * 7.2: 0.164) / 0.124 = 1.3226; A's, 0.082 / 0.124 = 0.66, stays 1 (only
 * widened). moe: h = 1.6: 0.2 + 0.6 x 0.1 = 0.26; C has 3 rows (< 10):
 * 1. hybrid has no row: NAN. Coverage: B 8 of 10 where the class spread
 * alone (0.124) covers 6; A all 10 either way. Leaving B's largest row
 * out is the same as removing it, and leaves B 9 rows: multiplier 1. */
static void test_calib_spreads_by_class_and_gpu(void **state)
{
    enum { N = 23 };
    gpu_spec ga = h100(), gb = h100(), gc = h100();
    llm_arch dense = llama8(), moe = llama8();
    calib_row rows[N];
    double pred[N], sig[TP_NCLASS], spr[TP_MAX_GPUS], sig2[TP_NCLASS],
        spr2[TP_MAX_GPUS];
    int in_a = 0, in_b = 0, in_b1 = 0;
    tp_model m;
    (void)state;
    moe.cls = LLM_MOE;
    two_gpus(rows, pred, 10, 10, &ga, &gb, &gc, &dense, &moe, &m);
    calib_spreads(rows, N, pred, &m, NULL, sig, spr);
    assert_close(sig[LLM_DENSE], 0.124 / CALIB_COVER_Z80, 1e-12);
    assert_close(spr[0], 1.0, 0);
    assert_close(spr[1], 0.164 / 0.124, 1e-12);
    assert_close(sig[LLM_MOE], 0.26 / CALIB_COVER_Z80, 1e-12);
    assert_close(spr[2], 1.0, 0);
    assert_true(isnan(sig[LLM_HYBRID]));
    assert_close(spr[3], 1.0, 0);
    for (int i = 0; i < 20; i++) {
        double a = fabs(log(pred[i] / 1000)), k = i < 10 ? spr[0] : spr[1];
        int in = a <= CALIB_COVER_Z80 * sig[LLM_DENSE] * k * (1 + 1e-12);
        *(i < 10 ? &in_a : &in_b) += in;
        in_b1 += i >= 10 && a <= CALIB_COVER_Z80 * sig[LLM_DENSE] * (1 + 1e-12);
    }
    assert_int_equal(in_a, 10);
    assert_int_equal(in_b, 8);
    assert_int_equal(in_b1, 6);
    /* B's largest row (index 19, configuration "B19") left out. */
    calib_spreads(rows, N, pred, &m, "B19", sig, spr);
    {
        calib_row r2[N - 1];
        double p2[N - 1];
        for (int i = 0, k = 0; i < N; i++)
            if (i != 19) {
                r2[k] = rows[i];
                p2[k++] = pred[i];
            }
        calib_spreads(r2, N - 1, p2, &m, NULL, sig2, spr2);
    }
    for (int c = 0; c < 2; c++)
        assert_close(sig[c], sig2[c], 0);
    for (int g = 0; g < 3; g++)
        assert_close(spr[g], spr2[g], 0);
    assert_close(spr[1], 1.0, 0);
}

/* The multiplier stays inside the calibration file's range, so calibrate
 * never writes a file its reader refuses: 50 dense rows on B miss by 1e-4,
 * 10 on A by 0.5. The class Q80 (h = 47.2 among 60) is 1e-4, so A's rows
 * are 5000 class spreads out: clamped to TP_GPU_SPREAD_MAX; B stays 1. */
static void test_calib_spreads_clamp_to_the_file_range(void **state)
{
    enum { N = 60 };
    gpu_spec ga = h100(), gb = h100();
    llm_arch dense = llama8();
    calib_row rows[N];
    double pred[N], sig[TP_NCLASS], spr[TP_MAX_GPUS];
    tp_model m;
    (void)state;
    two_gpus(rows, pred, 10, 50, &ga, &gb, NULL, &dense, NULL, &m);
    for (int i = 0; i < N; i++)
        pred[i] = 1000 * exp(i < 10 ? 0.5 : 1e-4);
    calib_spreads(rows, N, pred, &m, NULL, sig, spr);
    assert_close(sig[LLM_DENSE], 1e-4 / CALIB_COVER_Z80, 1e-9);
    assert_close(spr[0], TP_GPU_SPREAD_MAX, 0);
    assert_close(spr[1], 1.0, 1e-12); /* exactly its class's, to rounding */
}

/* The nested test uses the GPU's multiplier too, computed without the
 * held-out configuration: 12 rows on A and 12 on B (B's errors twice A's),
 * A's rows 0 and 5 one configuration "S" (not adjacent, so the spreads are
 * recomputed when it comes back). Each row's nested sd is calib_spreads'
 * sigma x spread without its configuration; B's multiplier is above 1 for
 * every held-out configuration (11 or 12 rows left, errors twice A's), so
 * an sd that ignored the GPU would differ. */
static void test_calib_cover_nested_uses_the_gpu_spread(void **state)
{
    enum { N = 24 };
    gpu_spec ga = h100(), gb = h100();
    llm_arch dense = llama8();
    calib_row rows[N];
    double pred[N], sd[N], sig[TP_NCLASS], spr[TP_MAX_GPUS];
    signed char cov[N];
    tp_model m;
    (void)state;
    two_gpus(rows, pred, 12, 12, &ga, &gb, NULL, &dense, NULL, &m);
    m.sigma_extrap = 0;
    strcpy(rows[0].config, "S");
    strcpy(rows[5].config, "S");
    calib_cover_loco(rows, N, pred, &m, CALIB_COVER_Z80, sd, cov, NULL);
    for (int i = 0; i < N; i++) {
        int g = i < 12 ? 0 : 1;
        calib_spreads(rows, N, pred, &m, rows[i].config, sig, spr);
        if (g == 1)
            assert_true(spr[1] > 1.2);
        assert_close(sd[i], sig[LLM_DENSE] * spr[g], 1e-12);
        assert_int_equal(cov[i],
                         fabs(log(pred[i] / 1000)) <= CALIB_COVER_Z80 * sd[i]);
    }
}

/* No row tested: NAN, not 0 % (a group without intervals has no
 * coverage, and the table prints nothing for it). */
static void test_calib_cover_fraction_of_nothing_is_nan(void **state)
{
    signed char cov[3] = {-1, -1, -1};
    size_t n_t = 9;
    (void)state;
    assert_true(isnan(calib_cover_fraction(cov, NULL, 3, &n_t)));
    assert_int_equal(n_t, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_calib_cover_leaves_the_held_out_configuration_out),
        cmocka_unit_test(test_calib_cover_fraction_of_nothing_is_nan),
        cmocka_unit_test(test_calib_spreads_by_class_and_gpu),
        cmocka_unit_test(test_calib_cover_nested_uses_the_gpu_spread),
        cmocka_unit_test(test_calib_spreads_clamp_to_the_file_range),
        cmocka_unit_test(
            test_calib_spread80_is_the_q80_over_z_without_the_held_out),
        cmocka_unit_test(
            test_calib_spread80_is_the_sd_of_a_normal_not_of_heavy_tails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
