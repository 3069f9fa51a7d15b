/* tests/test_throughput.c: promises of models/throughput.h on hand-built
 * GPUs and LLMs (figures from data/catalog/gpu_specs.csv). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "models/precision.h"
#include "models/throughput.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

static gpu_spec gb200(void)
{
    gpu_spec g = h100();
    strcpy(g.name, "GB200");
    g.peak_flops[NUM_BF16] = 2500e12;
    g.peak_flops[NUM_FP8] = 5000e12;
    g.peak_flops[NUM_FP4] = 10000e12;
    g.hbm_bytes = 186e9;
    g.hbm_Bps = 8e12;
    g.nvlink_Bps = 900e9;
    g.nvlink_domain = 72;
    return g;
}

/* Llama 3.1 70B (models.csv). */
static llm_arch llama70(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    strcpy(a.name, "Llama 3.1 70B");
    a.cls = LLM_DENSE;
    a.num_layers = 80;
    a.hidden_size = 8192;
    a.ffn_hidden_size = 28672;
    a.num_attention_heads = 64;
    a.num_kv_heads = 8;
    a.head_dim = 128;
    a.vocab_size = 128256;
    a.gated_linear_unit = 1;
    a.default_seq_len = 8192;
    return a;
}

static double sum_breakdown(const tp_result *r)
{
    return r->t_compute_s + r->t_tp_s + r->t_cp_s + r->t_ep_s + r->t_dp_s +
           r->t_pp_s + r->t_bubble_s + r->t_optimizer_s;
}

static void test_throughput_breakdown_sums_to_step_time(void **state)
{
    tp_model m;
    gpu_spec g = h100(), gb = gb200();
    llm_arch a = llama70(), q3 = qwen30();
    tp_layout lys[] = {{4, 4, 2, 1, 5, 0, 1, 0, 0, 0},
                       {8, 1, 1, 1, 1, 0, 1, 0, 0, 0},
                       {2, 8, 1, 1, 4, 1, 1, 0, 0, 0}};
    tp_result r;
    (void)state;
    tp_model_init(&m);
    for (size_t i = 0; i < 3; i++) {
        tp_query q = {.gpu = &g,
                      .llm = &a,
                      .prec = {PREC_FP8_TENSOR, NUM_FP8},
                      .n_gpus = 256,
                      .gbs = 512,
                      .seq_len = 8192,
                      .layout = lys[i]};
        assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
        assert_true(r.step_time_s > 0);
        assert_close(sum_breakdown(&r), r.step_time_s, 1e-12);
    }
    {
        tp_query q = {.gpu = &gb,
                      .llm = &q3,
                      .prec = {PREC_FP8_BLOCK, NUM_FP8},
                      .n_gpus = 128,
                      .gbs = 1024,
                      .seq_len = 4096,
                      .layout = {1, 2, 1, 16, 1, 0, 2, 0, 0}};
        assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
        assert_true(r.t_ep_s > 0);
        assert_close(sum_breakdown(&r), r.step_time_s, 1e-12);
    }
}

/* "halving the bandwidth a DP group crosses raises t_dp_s and the step
 * time, a layout inside one NVLink domain is unaffected" */
static void test_throughput_halving_scaleout_slows_dp_crossing_it(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama70();
    tp_result full, half;
    tp_query q = {.gpu = &g,
                  .llm = &a,
                  .prec = {PREC_BF16, NUM_BF16},
                  .n_gpus = 64,
                  .gbs = 16,
                  .seq_len = 8192,
                  .layout = {8, 1, 1, 1, 1, 0, 1, 0, 0}};
    (void)state;
    tp_model_init(&m);
    q.dp_link_bps = 400e9;
    assert_int_equal(tp_predict(&m, &q, &full), SIM_OK);
    assert_true(full.dp_crosses_scaleout);
    q.dp_link_bps = 200e9;
    assert_int_equal(tp_predict(&m, &q, &half), SIM_OK);
    assert_true(half.t_dp_raw_s > 1.9 * full.t_dp_raw_s);
    assert_true(half.t_dp_s > full.t_dp_s);
    assert_true(half.step_time_s > full.step_time_s);
    assert_close(half.t_compute_s, full.t_compute_s, 1e-12);
}

static void
test_throughput_layout_inside_nvlink_domain_ignores_scaleout(void **state)
{
    tp_model m;
    gpu_spec g = gb200();
    llm_arch a = llama70();
    tp_result full, half;
    tp_query q = {.gpu = &g,
                  .llm = &a,
                  .prec = {PREC_BF16, NUM_BF16},
                  .n_gpus = 64,
                  .gbs = 64,
                  .seq_len = 8192,
                  .layout = {4, 2, 1, 1, 1, 0, 1, 0, 0},
                  .dp_link_bps = 400e9};
    (void)state;
    tp_model_init(&m);
    assert_int_equal(tp_predict(&m, &q, &full), SIM_OK);
    assert_false(full.dp_crosses_scaleout);
    assert_true(full.t_dp_raw_s > 0);
    q.dp_link_bps = 200e9;
    assert_int_equal(tp_predict(&m, &q, &half), SIM_OK);
    assert_true(half.step_time_s == full.step_time_s);
    assert_true(half.t_dp_s == full.t_dp_s);
}

static void test_throughput_chooses_layout_when_none_given(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama70();
    tp_result r;
    tp_query q = {.gpu = &g,
                  .llm = &a,
                  .prec = {PREC_FP8_TENSOR, NUM_FP8},
                  .n_gpus = 512,
                  .layout = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    (void)state;
    tp_model_init(&m);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    /* A dense model has no experts: ep and etp are 1, never chosen. */
    assert_int_equal(r.chosen, (1u << TP_NFIELDS) - 1 - (1u << TP_FIELD_EP) -
                                   (1u << TP_FIELD_ETP));
    assert_true(r.layout.tp >= 1 && r.layout.tp <= 8);
    assert_int_equal(512 % (r.layout.tp * r.layout.pp * r.layout.cp), 0);
    assert_true(r.mem_bytes_per_gpu <= 0.9 * g.hbm_bytes);
    assert_int_equal(r.seq_len, 8192);
    assert_true(r.gbs > 0 && r.tokens_per_sec_per_gpu > 0);
    /* 70B with bf16 weights and fp32 gradients cannot fit on one GPU. */
    assert_true(r.layout.tp * r.layout.pp > 1);
}

static void
test_throughput_uncalibrated_gpu_is_extrapolated_with_wider_interval(
    void **state)
{
    tp_model m;
    gpu_spec g = h100(), h200 = h100();
    llm_arch a = llama70();
    tp_result r1, r2;
    tp_query q = {.gpu = &g,
                  .llm = &a,
                  .prec = {PREC_FP8_TENSOR, NUM_FP8},
                  .n_gpus = 64,
                  .gbs = 128,
                  .seq_len = 8192,
                  .layout = {4, 2, 1, 1, 1, 0, 1, 0, 0}};
    (void)state;
    tp_model_init(&m);
    strcpy(m.gpus[0], "H100");
    m.n_gpus = 1;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_int_equal(r1.extrapolated, 0);
    strcpy(h200.name, "H200");
    h200.hbm_Bps = 4.8e12;
    q.gpu = &h200;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    assert_int_equal(r2.extrapolated, 1);
    assert_true(r2.high_tokens_per_sec_per_gpu / r2.low_tokens_per_sec_per_gpu >
                r1.high_tokens_per_sec_per_gpu / r1.low_tokens_per_sec_per_gpu);
    assert_true(r2.tokens_per_sec_per_gpu >=
                r1.tokens_per_sec_per_gpu); /* more HBM bandwidth */
}

static void test_throughput_rejects_bad_queries(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama70();
    tp_result r;
    tp_query q = {.gpu = &g,
                  .llm = &a,
                  .prec = {PREC_NVFP4, NUM_FP4},
                  .n_gpus = 64,
                  .gbs = 128,
                  .seq_len = 8192,
                  .layout = {4, 2, 1, 1, 1, 0, 1, 0, 0}};
    (void)state;
    tp_model_init(&m);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_EINVAL); /* H100 has no FP4 */
    assert_true(strlen(r.why) > 0);
    q.prec.recipe = PREC_BF16;
    q.prec.fmt = NUM_BF16;
    q.layout.tp = 3;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_EINVAL);
    q.layout.tp = 4;
    q.release = "99.99";
    assert_int_equal(tp_predict(&m, &q, &r), SIM_ENOTFOUND);
}

static void test_throughput_release_ids(void **state)
{
    char b[40];
    (void)state;
    assert_string_equal(
        tp_release_id("NeMo 26.04.01 container (Megatron-Bridge perf summary)",
                      b, sizeof b),
        "26.04.01");
    assert_string_equal(
        tp_release_id("dgxc-benchmarking v24.11.1 to v25.01.1 (3 tags)", b,
                      sizeof b),
        "dgxc v24.11.1-v25.01.1");
    assert_string_equal(
        tp_release_id("dgxc-benchmarking v25.04 (1 tags)", b, sizeof b),
        "dgxc v25.04");
}

/* Megatron's output layer is tensor_parallel.ColumnParallelLinear, not a
 * Transformer Engine module, so it runs in BF16 under FP8 recipes (Megatron-LM
 * d98e8a6, megatron/core/models/gpt/gpt_model.py: TELMHeadColumnParallelLinear
 * only with fp8_output_proj and MXFP8). Doubling the vocabulary of an FP8 run
 * on one GPU (pp 1, no DP traffic) adds, by hand, three BF16 GEMMs of
 * T x h x dV at the default 0.75 of the BF16 peak with the saturation
 * 1/(1 + 64/M + 64/N) and their bytes (weights 2 B, outputs 2 B x (1 + 4
 * passes)) at 0.8 of HBM, and Adam's 30 B over the 2 h dV new embedding
 * and output parameters. */
static double bf16_gemm_s(double M, double K, double N)
{
    double sat = 1.0 / (1.0 + 64.0 / M + 64.0 / N);
    return 2.0 * M * K * N / (0.75 * 989e12 * sat) +
           ((M * K + K * N) * 2.0 + 2.0 * M * N * (1.0 + 4.0)) /
               (0.8 * 3.35e12);
}

static void test_throughput_output_layer_runs_in_bf16_under_fp8(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama8(), b = llama8();
    tp_query q;
    tp_result r1, r2;
    double T = 8192, h = 4096, V = 128256, expect;
    (void)state;
    tp_model_init(&m);
    b.vocab_size = 2 * a.vocab_size;
    q = one_gpu_query(&g, &a, 1, 8192, TP_RECOMPUTE_NONE);
    assert_int_equal(precision_parse("FP8", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.llm = &b;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    expect = 3.0 * (bf16_gemm_s(T, h, 2 * V) - bf16_gemm_s(T, h, V)) +
             2.0 * h * V * 30.0 / (0.8 * 3.35e12);
    assert_close(r2.step_time_s - r1.step_time_s, expect, 1e-9);
}

int main(void)
{
    const struct CMUnitTest throughput_tests[] = {
        cmocka_unit_test(test_throughput_breakdown_sums_to_step_time),
        cmocka_unit_test(test_throughput_halving_scaleout_slows_dp_crossing_it),
        cmocka_unit_test(
            test_throughput_layout_inside_nvlink_domain_ignores_scaleout),
        cmocka_unit_test(test_throughput_chooses_layout_when_none_given),
        cmocka_unit_test(
            test_throughput_uncalibrated_gpu_is_extrapolated_with_wider_interval),
        cmocka_unit_test(test_throughput_rejects_bad_queries),
        cmocka_unit_test(test_throughput_release_ids),
        cmocka_unit_test(test_throughput_output_layer_runs_in_bf16_under_fp8),
    };
    return cmocka_run_group_tests_name("throughput", throughput_tests, NULL,
                                       NULL);
}
