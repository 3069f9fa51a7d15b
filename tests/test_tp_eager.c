/* tests/test_tp_eager.c: promises of models/tp_eager.h, the element-wise
 * work Megatron runs outside its fused kernels: the bytes of one GPT-OSS
 * 120B micro-batch computed by hand, what recomputation and tensor
 * parallelism change, nothing for a model without the features, and what
 * the bytes add to a step at the GPU's achieved HBM bandwidth. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/flops.h"
#include "models/throughput.h"
#include "models/throughput_int.h"
#include "models/tp_eager.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

/* mbs 4 x 4096 tokens on one GPU of tp 1, no recomputation, BF16 routing
 * probabilities (the all-to-all dispatcher):
 *   MoE, per layer: 16384 x 4 = 65536 routed copies, each 2880 x (12 + 16)
 *   = 80,640 B of bias work and 5760 x (8 + 15) = 132,480 B of clamp
 *   work: 36 x 65536 x 213,120 = 502,813,163,520 B;
 *   RoPE, per layer: 16384 tokens x (64 + 8) heads x 64 x 2 B x (12 + 14 -
 *   2 - 2) passes = 3,321,888,768 B, x 36 = 119,587,995,648 B.
 * Total 622,401,159,168 B (0.10 s at 6.4 TB/s). FP32 probabilities (a flex
 * dispatcher): the bias's 2880 x (28 + 40) instead, 894,192,058,368 B. */
static void test_tp_eager_gptoss_micro_batch_by_hand(void **state)
{
    llm_arch a = gptoss();
    llm_layers nl;
    (void)state;
    flops_layers(&a, 0, &nl);
    assert_true(nl.moe == 36 && nl.attn == 36);
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0),
        622401159168.0, 1e-12);
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 1, 0),
        894192058368.0, 1e-12);
    /* Each feature alone. */
    a.activation_clamp = a.rope_unfused = 0;
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0),
        36.0 * 65536 * 80640, 1e-12);
    a = gptoss();
    a.expert_bias = a.rope_unfused = 0;
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0),
        36.0 * 65536 * 132480, 1e-12);
    a = gptoss();
    a.expert_bias = a.activation_clamp = 0;
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0),
        119587995648.0, 1e-12);
    /* Megatron clamps only a gated unit's halves. */
    a = gptoss();
    a.expert_bias = a.rope_unfused = 0;
    a.gated_linear_unit = 0;
    assert_true(tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE,
                               0, 0, 0) == 0.0);
}

/* A recipe on the fused grouped MLP (full-iteration CUDA graphs) adds the
 * bias and clamps inside its kernels: only RoPE is left. */
static void test_tp_eager_fused_grouped_mlp_keeps_only_rope(void **state)
{
    llm_arch a = gptoss();
    llm_layers nl;
    (void)state;
    flops_layers(&a, 0, &nl);
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 1, 1),
        119587995648.0, 1e-12);
}

/* A model without the features costs nothing, whatever its shape. */
static void test_tp_eager_nothing_without_the_features(void **state)
{
    llm_arch a = qwen30(), d = llama8();
    llm_layers nl;
    (void)state;
    flops_layers(&a, 0, &nl);
    assert_true(tp_eager_bytes(&a, &nl, 8192, 8192, 1, 1, TP_RECOMPUTE_FULL, 0,
                               1, 0) == 0.0);
    flops_layers(&d, 0, &nl);
    assert_true(tp_eager_bytes(&d, &nl, 8192, 4096, 2, 1,
                               TP_RECOMPUTE_SELECTIVE, 0, 0, 0) == 0.0);
}

/* Recomputation repeats forward parts: selective with the default modules
 * (moe_act among them) the clamp's 8 B, selective "moe" the bias's 12 B
 * too, full every forward part including RoPE's 12 - 2 passes; a recipe
 * that states it recomputes nothing (TP_RECMOD_STATED alone) repeats none. */
static void test_tp_eager_recomputation_repeats_the_forward(void **state)
{
    llm_arch a = gptoss();
    llm_layers nl;
    double base, copies = 36.0 * 65536, rope_pass = 36.0 * 16384 * 72 * 128;
    (void)state;
    flops_layers(&a, 0, &nl);
    base =
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0);
    assert_close(tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1,
                                TP_RECOMPUTE_SELECTIVE, 0, 0, 0),
                 base + copies * 5760 * 8, 1e-12);
    assert_close(tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1,
                                TP_RECOMPUTE_SELECTIVE, TP_RECMOD_MOE, 0, 0),
                 base + copies * (5760 * 8 + 2880 * 12), 1e-12);
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1, TP_RECOMPUTE_FULL, 0, 0, 0),
        base + copies * (5760 * 8 + 2880 * 12) + rope_pass * 10, 1e-12);
    assert_close(tp_eager_bytes(&a, &nl, 16384, 16384, 1, 1,
                                TP_RECOMPUTE_SELECTIVE, TP_RECMOD_STATED, 0, 0),
                 base, 1e-12);
}

/* Tensor parallelism: RoPE's heads split over tp; the router sees the
 * sequence-parallel share Ts; expert TP (etp) multiplies the copies a GPU
 * holds and divides fc1's width, so the bias work grows with etp and the
 * clamp work stays. */
static void test_tp_eager_tensor_parallel_shares(void **state)
{
    llm_arch a = gptoss();
    llm_layers nl;
    double bias = 2880.0 * 28, clamp = 5760.0 * 23;
    (void)state;
    flops_layers(&a, 0, &nl);
    a.expert_bias = a.activation_clamp = 0;
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 8192, 2, 1, TP_RECOMPUTE_NONE, 0, 0, 0),
        119587995648.0 / 2, 1e-12);
    a = gptoss();
    a.rope_unfused = 0;
    assert_close(
        tp_eager_bytes(&a, &nl, 16384, 8192, 2, 2, TP_RECOMPUTE_NONE, 0, 0, 0),
        36.0 * 8192 * 4 * 2 * (bias + clamp / 2), 1e-12);
}

/* What the bytes add to a step: one GPU, pp 1, an uncalibrated model
 * (factors 1): the step grows by micro-batches x bytes / (eta_hbm x HBM
 * bandwidth), nothing else moves; under full-iteration CUDA graphs (the
 * fused grouped MLP) only RoPE's share is added. */
static void test_tp_eager_adds_bytes_over_hbm_to_the_step(void **state)
{
    gpu_spec g = h100();
    llm_arch a = qwen30(), b;
    tp_model m;
    tp_query q;
    tp_result r0, r1;
    llm_layers nl;
    double bytes, bw;
    (void)state;
    tp_model_init(&m);
    bw = g.hbm_Bps * m.p[TP_ETA_HBM];
    a.expert_bias = a.activation_clamp = a.rope_unfused = 0;
    b = a;
    b.expert_bias = b.activation_clamp = b.rope_unfused = 1;
    q = one_gpu_query(&g, &a, 8, 4096, TP_RECOMPUTE_NONE);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    q.llm = &b;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    flops_layers(&b, 0, &nl);
    bytes =
        tp_eager_bytes(&b, &nl, 4096, 4096, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 0);
    assert_true(bytes > 0);
    assert_close(r1.step_time_s - r0.step_time_s, 8 * bytes / bw, 1e-6);
    q.cuda_graph = TP_CG_FULL;
    q.llm = &a;
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    q.llm = &b;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    bytes =
        tp_eager_bytes(&b, &nl, 4096, 4096, 1, 1, TP_RECOMPUTE_NONE, 0, 0, 1);
    assert_close(r1.step_time_s - r0.step_time_s, 8 * bytes / bw, 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tp_eager_gptoss_micro_batch_by_hand),
        cmocka_unit_test(test_tp_eager_fused_grouped_mlp_keeps_only_rope),
        cmocka_unit_test(test_tp_eager_nothing_without_the_features),
        cmocka_unit_test(test_tp_eager_recomputation_repeats_the_forward),
        cmocka_unit_test(test_tp_eager_tensor_parallel_shares),
        cmocka_unit_test(test_tp_eager_adds_bytes_over_hbm_to_the_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
