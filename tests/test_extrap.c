/* tests/test_extrap.c: the extrapolation flags, widened intervals and the
 * job-level software_efficiency of issue 18 (models/throughput.h
 * TP_EXTRAP_*, docs/throughput-model.md §8). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/flops.h"
#include "models/throughput.h"
#include "tests/tp_fixtures.h"

/* A model calibrated on "H100" only, with a domain around an 8B model. */
static tp_model calibrated(void)
{
    tp_model m;
    tp_model_init(&m);
    m.n_gpus = 1;
    strcpy(m.gpus[0], "H100");
    m.sigma_log[LLM_DENSE] = 0.08;
    m.sigma_extrap = 0.15;
    m.dom_active_params_min = 7e9;
    m.dom_active_params_max = 70e9;
    m.dom_experts_max = 256;
    m.dom_seq_max = 16384;
    return m;
}

static tp_query query(const gpu_spec *g, const llm_arch *a)
{
    tp_query q;
    memset(&q, 0, sizeof q);
    q.gpu = g;
    q.llm = a;
    q.prec.recipe = PREC_BF16;
    q.prec.fmt = NUM_BF16;
    q.n_gpus = 8;
    q.gbs = 64;
    q.seq_len = 8192;
    q.layout =
        (tp_layout){1, 1, 1, 1, 1, 0, 1, TP_RECOMPUTE_NONE, TP_DISTOPT_ON, 0};
    return q;
}

/* ln(high / point) of the 80% interval = 1.2816 sd. */
static double half_width(const tp_result *r)
{
    return log(r->high_tokens_per_sec_per_gpu / r->tokens_per_sec_per_gpu);
}

static void test_extrap_inside_the_domain_is_not_flagged(void **state)
{
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_model m = calibrated();
    tp_query q = query(&g, &a);
    tp_result r;
    (void)state;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrapolated, 0);
    assert_int_equal(r.extrap_why, 0);
    assert_true(fabs(half_width(&r) - 1.2815515655 * 0.08) < 1e-9);
}

static void test_extrap_each_reason_flags_and_widens(void **state)
{
    gpu_spec g = h100(), a100 = h100();
    llm_arch a = llama8();
    tp_model m = calibrated();
    tp_query q;
    tp_result r;
    (void)state;
    /* A GPU without calibration rows. */
    strcpy(a100.name, "A100");
    q = query(&a100, &a);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, TP_EXTRAP_GPU);
    assert_true(fabs(half_width(&r) -
                     1.2815515655 * sqrt(0.08 * 0.08 + 0.15 * 0.15)) < 1e-9);
    /* Long context: 32k tokens is extrapolation whatever the domain. */
    q = query(&g, &a);
    q.seq_len = 32768;
    q.gbs = 16;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_true(r.extrap_why & TP_EXTRAP_SEQ);
    /* Active parameters outside 0.5 x min .. 2 x max: a domain of
     * 30e9 .. 70e9 leaves the 8B model (8.0e9 < 15e9) out. */
    m.dom_active_params_min = 30e9;
    q = query(&g, &a);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, TP_EXTRAP_PARAMS);
    /* Two reasons widen twice in quadrature: A100 and the domain. */
    q = query(&a100, &a);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, TP_EXTRAP_GPU | TP_EXTRAP_PARAMS);
    assert_true(fabs(half_width(&r) -
                     1.2815515655 * sqrt(0.08 * 0.08 + 2 * 0.15 * 0.15)) <
                1e-9);
}

static void test_extrap_software_efficiency_scales_compute_only(void **state)
{
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_model m = calibrated();
    tp_query q = query(&g, &a);
    tp_result r1, r2;
    (void)state;
    q.layout.tp = 2; /* so that there is a TP collective to keep */
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_true(r1.t_tp_s > 0);
    q.software_efficiency = 0.5;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    /* Compute (and the optimizer step, an HBM kernel) take twice as long;
     * the collectives keep the fabric's speed. */
    assert_true(fabs(r2.t_compute_s - 2 * r1.t_compute_s) <
                1e-9 * r1.t_compute_s);
    assert_true(fabs(r2.t_tp_s - r1.t_tp_s) < 1e-12 * r1.t_tp_s);
    assert_true(r2.extrap_why == TP_EXTRAP_STACK);
    q.software_efficiency = 1.0;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    assert_int_equal(r2.extrap_why, 0);
    assert_true(r2.step_time_s == r1.step_time_s);
}

/* H800 and H200 have no calibration rows but the H100's die: they borrow
 * its fitted factor (catalog key calib_as) and stay flagged. A GPU with the
 * H100's figures under another name then predicts exactly the H100's step;
 * without calib_as it runs at factor 1, slower when the factor is > 0. */
static void test_extrap_calib_as_borrows_the_sibling_factor(void **state)
{
    gpu_spec g = h100(), h800 = h100();
    llm_arch a = llama8();
    tp_model m = calibrated();
    tp_query q;
    tp_result r0, r1, r2;
    (void)state;
    m.gpu_log[0] = 0.2;
    q = query(&g, &a);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    strcpy(h800.name, "H800");
    strcpy(h800.calib_as, "H100");
    q = query(&h800, &a);
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_true(r1.step_time_s == r0.step_time_s);
    assert_int_equal(r1.extrap_why, TP_EXTRAP_GPU);
    h800.calib_as[0] = '\0';
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    assert_true(r2.t_compute_s > r0.t_compute_s * 1.05);
    assert_int_equal(r2.extrap_why, TP_EXTRAP_GPU);
    /* The factor index: own name first, then calib_as, else none. */
    assert_int_equal(tp_model_gpu_factor(&m, &g), 0);
    assert_int_equal(tp_model_gpu_factor(&m, &h800), -1);
    strcpy(h800.calib_as, "h100");
    assert_int_equal(tp_model_gpu_factor(&m, &h800), 0);
}

/* The interval's spread is the class's times the GPU's multiplier
 * (calibration file gpus[].spread): 0.08 x 1.5 on the calibrated H100, and
 * the extrapolation widening on top in quadrature. An H800 that borrows
 * H100's efficiency factor (calib_as) keeps the class's 0.08: its rows'
 * misses were never measured. tp_log_sd without a GPU is the class's. */
static void test_extrap_gpu_spread_scales_the_class_spread(void **state)
{
    gpu_spec g = h100(), h800 = h100();
    llm_arch a = llama8();
    tp_model m = calibrated();
    tp_query q = query(&g, &a);
    tp_result r;
    (void)state;
    m.gpu_spread[0] = 1.5;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, 0);
    assert_true(fabs(half_width(&r) - 1.2815515655 * 0.12) < 1e-9);
    assert_true(fabs(tp_log_sd(&m, &a, &g, &r) - 0.12) < 1e-12);
    assert_true(fabs(tp_log_sd(&m, &a, NULL, &r) - 0.08) < 1e-12);
    q.seq_len = 32768; /* long context: one reason */
    q.gbs = 16;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, TP_EXTRAP_SEQ);
    assert_true(fabs(tp_log_sd(&m, &a, &g, &r) -
                     sqrt(0.12 * 0.12 + 0.15 * 0.15)) < 1e-12);
    strcpy(h800.name, "H800");
    strcpy(h800.calib_as, "H100");
    q = query(&h800, &a);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_int_equal(r.extrap_why, TP_EXTRAP_GPU);
    assert_true(fabs(tp_log_sd(&m, &a, &h800, &r) -
                     sqrt(0.08 * 0.08 + 0.15 * 0.15)) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extrap_inside_the_domain_is_not_flagged),
        cmocka_unit_test(test_extrap_each_reason_flags_and_widens),
        cmocka_unit_test(test_extrap_software_efficiency_scales_compute_only),
        cmocka_unit_test(test_extrap_calib_as_borrows_the_sibling_factor),
        cmocka_unit_test(test_extrap_gpu_spread_scales_the_class_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
