/* tests/test_tp_attn.c: promises of models/tp_attn.h, the attention core's
 * time: the exponential part computed by hand for one Llama 3 8B layer at
 * sequence 8192 on an H100 (3.9e12 exponentials/s, FlashAttention-3 §3.1),
 * and what it adds to a whole step. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "models/precision.h"
#include "models/throughput.h"
#include "models/tp_attn.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

/* One Llama 3 8B layer, one sequence of 8192 tokens on one GPU (tp 1):
 * 8192 queries x 4096 keys on average (causal) x 32 heads = 2^30
 * exponentials; 2^30 / 3.9e12 = 275.3 us. The score GEMMs: 2 x 8192 x 4096
 * x 32 x (128 + 128) = 549.8 GFLOP at 989 TFLOP/s = 555.9 us. Forward =
 * GEMMs + exps, backward = 2 x GEMMs + exps (P recomputed once). */
static void test_tp_attn_llama3_8b_layer_on_h100_by_hand(void **state)
{
    gpu_spec g = h100();
    tp_attn ac;
    double n_exp, flops = 2.0 * 8192 * 4096 * 32 * 256;
    (void)state;
    g.exp_per_s = 3.9e12;
    n_exp = tp_attn_exps(8192, 8192, 32);
    assert_true(n_exp == 1073741824.0); /* 2^30, exact */
    tp_attn_core(&g, 1.0, flops, n_exp, &ac);
    assert_close(ac.exp_fwd_s, 275.318416e-6, 1e-8);
    assert_close(ac.fwd_s, 555.870388e-6 + 275.318416e-6, 1e-8);
    assert_close(ac.bwd_s, 2 * 555.870388e-6 + 275.318416e-6, 1e-8);
    /* tp 2: half the heads, half the exponentials. */
    assert_true(tp_attn_exps(8192, 8192, 16) == n_exp / 2);
}

/* A GPU without exp_tera_per_s in the catalog (exp_per_s 0) has no
 * exponential part: the core is the GEMMs at eta_attn alone. */
static void test_tp_attn_no_rate_no_exponential_part(void **state)
{
    gpu_spec g = h100();
    tp_attn ac;
    (void)state;
    tp_attn_core(&g, 0.5, 989e12, 1e12, &ac);
    assert_true(ac.exp_fwd_s == 0);
    assert_close(ac.fwd_s, 2.0, 1e-12);
    assert_close(ac.bwd_s, 4.0, 1e-12);
}

/* In a whole step (one GPU, one micro-batch of 8192 tokens) the
 * exponentials add exactly 32 layers x (forward + backward) x 275.3 us:
 * nothing else of the step depends on the rate. */
static void test_tp_attn_step_adds_two_exps_per_score_per_layer(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_query q;
    tp_result r0, r1;
    (void)state;
    tp_model_init(&m);
    q = one_gpu_query(&g, &a, 1, 8192, TP_RECOMPUTE_NONE);
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    g.exp_per_s = 3.9e12;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_close(r1.step_time_s - r0.step_time_s, 32 * 2 * 275.318416e-6, 1e-8);
}

/* Selective recomputation that names "core_attn" runs the fused attention
 * forward again in the backward pass (Megatron checkpoints the kernel):
 * 32 layers x (GEMMs 555.9 us + exps 275.3 us) more than a stated list
 * without it. A stated "none" is not the unstated default
 * (TP_RECMOD_DEFAULT): it recomputes nothing, so it costs what recompute
 * none costs (Llama 3 8B has no MLA up-projection, so the default repeats
 * no GEMM either, and the two agree here). */
static void test_tp_attn_selective_core_attn_repeats_the_forward(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_query q;
    tp_result r0, r1, rn;
    (void)state;
    tp_model_init(&m);
    m.p[TP_T_LAYER] = 0; /* the fixed time is not what is compared */
    g.exp_per_s = 3.9e12;
    q = one_gpu_query(&g, &a, 1, 8192, TP_RECOMPUTE_SELECTIVE);
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    q.recompute_modules = TP_RECMOD_STATED | TP_RECMOD_LAYERNORM;
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    q.recompute_modules |= TP_RECMOD_CORE_ATTN;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_close(r1.step_time_s - r0.step_time_s,
                 32 * (555.870388e-6 + 275.318416e-6), 1e-8);
    q.recompute_modules = TP_RECMOD_STATED;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.layout.recompute = TP_RECOMPUTE_NONE;
    assert_int_equal(tp_predict(&m, &q, &rn), SIM_OK);
    assert_close(r1.step_time_s, rn.step_time_s, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tp_attn_llama3_8b_layer_on_h100_by_hand),
        cmocka_unit_test(test_tp_attn_no_rate_no_exponential_part),
        cmocka_unit_test(test_tp_attn_step_adds_two_exps_per_score_per_layer),
        cmocka_unit_test(test_tp_attn_selective_core_attn_repeats_the_forward),
    };
    return cmocka_run_group_tests_name("tp_attn", tests, NULL, NULL);
}
