/* tests/tp_fixtures.h: the catalog entries the throughput tests build in
 * memory (no files), in one place so every test uses the same figures:
 * H100 SXM (NVIDIA datasheet: 989 / 1979 TFLOP/s dense BF16 / FP8, 80 GB
 * HBM3 at 3.35 TB/s, NVLink 450 GB/s per direction in 8-GPU domains,
 * 400 Gb/s scale-out), Llama 3 8B (Meta's published configuration) and
 * Qwen3 30B-A3B (models.csv). */
#ifndef TESTS_TP_FIXTURES_H
#define TESTS_TP_FIXTURES_H

#include <string.h>

#include "models/gpu.h"
#include "models/llm.h"
#include "models/throughput.h"

static inline gpu_spec h100(void)
{
    gpu_spec g;
    memset(&g, 0, sizeof g);
    strcpy(g.name, "H100");
    g.peak_flops[NUM_BF16] = 989e12;
    g.peak_flops[NUM_FP8] = 1979e12;
    g.hbm_bytes = 80e9; /* decimal, and no exp_per_s: a self-contained
                           fixture, not the catalog's H100 (80 x 2^30 B,
                           3.9e12 exp/s); tests that need those set them */
    g.hbm_Bps = 3.35e12;
    g.nvlink_Bps = 450e9;
    g.nvlink_domain = 8;
    g.scaleout_bps = 400e9;
    return g;
}

static inline llm_arch llama8(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    strcpy(a.name, "Llama 3 8B");
    a.cls = LLM_DENSE;
    a.num_layers = 32;
    a.hidden_size = 4096;
    a.ffn_hidden_size = 14336;
    a.num_attention_heads = 32;
    a.num_kv_heads = 8;
    a.head_dim = 128;
    a.vocab_size = 128256;
    a.gated_linear_unit = 1;
    a.default_seq_len = 8192;
    return a;
}

/* A query on one GPU with every parallel size 1, one micro-batch of one
 * sequence per step unless gbs says more, the distributed optimizer on, in
 * the recompute mode given; the precision is left for the test to parse. */
static inline tp_query one_gpu_query(const gpu_spec *g, const llm_arch *a,
                                     int gbs, int seq_len, int recompute)
{
    tp_query q;
    memset(&q, 0, sizeof q);
    q.gpu = g;
    q.llm = a;
    q.n_gpus = 1;
    q.gbs = gbs;
    q.seq_len = seq_len;
    q.layout = (tp_layout){.tp = 1,
                           .pp = 1,
                           .cp = 1,
                           .ep = 1,
                           .vp = 1,
                           .mbs = 1,
                           .recompute = recompute,
                           .distopt = TP_DISTOPT_ON};
    return q;
}

/* Qwen3 30B-A3B (models.csv). */
static inline llm_arch qwen30(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    strcpy(a.name, "Qwen3 30B-A3B");
    a.cls = LLM_MOE;
    a.num_layers = 48;
    a.hidden_size = 2048;
    a.ffn_hidden_size = 6144;
    a.moe_ffn_hidden_size = 768;
    a.num_attention_heads = 32;
    a.num_kv_heads = 4;
    a.head_dim = 128;
    a.vocab_size = 151936;
    a.num_experts = 128;
    a.experts_per_token = 8;
    a.num_moe_layers = 48;
    a.gated_linear_unit = 1;
    a.default_seq_len = 4096;
    return a;
}

/* GPT-OSS 120B (models/llms.cfg): 36 layers, all attention + MoE, with
 * the eager-path features of models/tp_eager.h. */
static inline llm_arch gptoss(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    strcpy(a.name, "GPT-OSS 120B");
    a.cls = LLM_MOE;
    a.num_layers = 36;
    a.hidden_size = 2880;
    a.ffn_hidden_size = 2880;
    a.moe_ffn_hidden_size = 2880;
    a.num_attention_heads = 64;
    a.num_kv_heads = 8;
    a.head_dim = 64;
    a.vocab_size = 201088;
    a.num_experts = 128;
    a.experts_per_token = 4;
    a.num_attention_layers = 36;
    a.num_moe_layers = 36;
    a.gated_linear_unit = 1;
    a.default_seq_len = 4096;
    a.expert_bias = a.activation_clamp = a.rope_unfused = 1;
    return a;
}

#endif
