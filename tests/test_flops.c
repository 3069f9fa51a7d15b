/* tests/test_flops.c: the FLOPs formula (models/flops.h) against cases
 * computed by hand from facts.md §6.1 (dense, MoE) and Megatron's hybrid
 * Mamba formula, plus the precision label map. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "models/flops.h"
#include "models/precision.h"
#include "sim/err.h"
#include "tests/testutil.h"

static llm_arch dense_arch(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    a.cls = LLM_DENSE;
    a.num_layers = 2;
    a.hidden_size = 1024;
    a.ffn_hidden_size = 4096;
    a.num_attention_heads = 8;
    a.num_kv_heads = 8;
    a.head_dim = 128;
    a.vocab_size = 32000;
    return a;
}

/* Hand computation, facts.md 6.1 with E = 2 (GELU), causal s/2:
 * MLP 6*h*E*F*L = 6*1024*2*4096*2 = 100,663,296
 * attention L*6*[h*(q+2kv) + q*s/2*2 + q*h]
 *   = 2*6*[1024*3072 + 1024*2048 + 1024*1024] = 75,497,472
 * logits 6*h*V = 6*1024*32000 = 196,608,000; total 372,768,768. */
static void test_flops_dense_matches_megatron_formula(void **state)
{
    llm_arch a = dense_arch();
    llm_flops f;
    (void)state;
    assert_close(flops_per_token(&a, 2048, 0, &f), 372768768.0, 1e-12);
    assert_close(3 * f.mlp, 100663296.0, 1e-12);
    assert_close(3 * (f.attn_gemm + f.attn_core), 75497472.0, 1e-12);
    assert_close(3 * f.logits, 196608000.0, 1e-12);
}

/* MoE: h 512, 4 heads / 2 KV of 128, 8 experts top-2 of 1024 (SwiGLU, E=3),
 * one 512-wide shared expert, router 2*h*experts, vocab 1000, s 1024, 2 MoE
 * layers. Per layer forward:
 *   QKV+O 2*512*(512+512) + 2*512*512 = 1,572,864
 *   scores 2*(1024/2)*4*(128+128) = 1,048,576
 *   router 2*512*8 = 8,192; shared 2*512*512*3 = 1,572,864
 *   routed 2 * 2*512*1024*3 = 6,291,456
 * logits 2*512*1000 = 1,024,000; train = 3*(2*10,493,952 + 1,024,000). */
static void test_flops_moe_counts_active_experts_only(void **state)
{
    llm_arch a;
    llm_flops f;
    (void)state;
    memset(&a, 0, sizeof a);
    a.cls = LLM_MOE;
    a.num_layers = 2;
    a.hidden_size = 512;
    a.moe_ffn_hidden_size = 1024;
    a.num_attention_heads = 4;
    a.num_kv_heads = 2;
    a.head_dim = 128;
    a.vocab_size = 1000;
    a.num_experts = 8;
    a.experts_per_token = 2;
    a.shared_expert_ffn_hidden_size = 512;
    a.num_moe_layers = 2;
    a.gated_linear_unit = 1;
    assert_close(flops_per_token(&a, 1024, 0, &f),
                 3.0 * (2 * 10493952.0 + 1024000.0), 1e-12);
    assert_close(f.moe, 2 * (8192.0 + 1572864.0 + 6291456.0), 1e-12);
    a.num_experts = 64; /* more experts, same top-k: only the router grows */
    assert_close(flops_per_token(&a, 1024, 0, &f) -
                     3.0 * (2 * 10493952.0 + 1024000.0),
                 3.0 * 2 * 2 * 512 * 56, 1e-9);
}

/* Hybrid: 1 attention, 1 MLP, 2 Mamba layers; h 256, 2 heads of 128 (1 KV),
 * MLP 1024 squared-ReLU (E=2), Mamba 8 heads x 64 (d_in 512), state 128,
 * 8 groups (assumption), vocab 500, s 512. Forward per token:
 *   attention 2*256*(256+256) + 2*256*256 + 2*(512/2)*2*(128+128) = 655,360
 *   MLP 2*256*1024*2 = 1,048,576
 *   Mamba each: in 2*256*(1024+2048+8) = 1,576,960; scan 7*512*128 = 458,752;
 *   out 2*512*256 = 262,144 -> 2,297,856
 *   logits 2*256*500 = 256,000; total fwd 6,555,648. */
static void test_flops_hybrid_includes_mamba_terms(void **state)
{
    llm_arch a;
    llm_flops f;
    (void)state;
    memset(&a, 0, sizeof a);
    a.cls = LLM_HYBRID;
    a.num_layers = 4;
    a.hidden_size = 256;
    a.ffn_hidden_size = 1024;
    a.num_attention_heads = 2;
    a.num_kv_heads = 1;
    a.head_dim = 128;
    a.vocab_size = 500;
    a.num_attention_layers = 1;
    a.dense_layers = 1;
    a.num_mamba_layers = 2;
    a.mamba_state_dim = 128;
    a.mamba_num_heads = 8;
    a.mamba_head_dim = 64;
    assert_close(flops_per_token(&a, 512, 0, &f), 3.0 * 6555648.0, 1e-12);
    assert_close(f.mamba_scan, 2 * 458752.0, 1e-12);
}

static void test_flops_proxy_layers_scale_every_kind(void **state)
{
    llm_arch a = dense_arch();
    llm_flops full, half;
    (void)state;
    a.num_layers = 8;
    flops_per_token(&a, 2048, 0, &full);
    flops_per_token(&a, 2048, 4, &half);
    assert_close(half.mlp * 2, full.mlp, 1e-12);
    assert_close(half.logits, full.logits, 1e-12);
}

static void test_precision_every_data_label_maps(void **state)
{
    static const char *labels[] = {
        "BF16",
        "FP8",
        "FP8-CS",
        "FP8-MX",
        "MXFP8",
        "NVFP4",
        "FP8 (per-tensor current scaling)",
        "not stated",
        "not stated (alt quantization granularity)",
        "not stated in stored excerpt (parenthesized variant)"};
    static const num_fmt fmts[] = {NUM_BF16, NUM_FP8, NUM_FP8, NUM_FP8,
                                   NUM_FP8,  NUM_FP4, NUM_FP8, NUM_FP8,
                                   NUM_FP8,  NUM_FP8};
    precision p;
    (void)state;
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        assert_int_equal(precision_parse(labels[i], &p), SIM_OK);
        assert_int_equal(p.fmt, fmts[i]);
    }
    assert_int_equal(precision_parse("not stated", &p), SIM_OK);
    assert_int_equal(p.recipe, PREC_FP8_TENSOR);
    assert_int_equal(precision_parse("FP8-MX", &p), SIM_OK);
    assert_int_equal(p.recipe, PREC_FP8_BLOCK);
    assert_int_equal(precision_parse("FP6", &p), SIM_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest flops_tests[] = {
        cmocka_unit_test(test_flops_dense_matches_megatron_formula),
        cmocka_unit_test(test_flops_moe_counts_active_experts_only),
        cmocka_unit_test(test_flops_hybrid_includes_mamba_terms),
        cmocka_unit_test(test_flops_proxy_layers_scale_every_kind),
        cmocka_unit_test(test_precision_every_data_label_maps),
    };
    return cmocka_run_group_tests_name("flops", flops_tests, NULL, NULL);
}
