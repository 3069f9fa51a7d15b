/* models/flops.c: the FLOPs formula of flops.h, GEMM by GEMM.
 *
 * Every linear layer contributes 2*K*N forward FLOPs per token (K inputs, N
 * outputs); training multiplies the forward total by 3 (facts.md §6.1,
 * Megatron-LM num_floating_point_operations). Self-attention scores cost
 * 2*(s/2)*heads*(d_qk + d_v) per token under a causal mask. Mamba-2 layers
 * follow Megatron's hybrid formula: in_proj h -> 2*d_in + 2*G*N + heads, a
 * 7*d_in*N scan, out_proj d_in -> h (d_in = mamba heads * head dim).
 *
 * This file owns the only FLOPs count in the project: the throughput model, the
 * calibration and the predictor's MFU all divide by it, so a change here moves
 * every fitted efficiency. It must stay a pure function of the architecture (no
 * catalog lookups, no GPU) and count what Megatron counts, term by term, so
 * that MFU figures compare with published ones. The breakdown is kept per GEMM
 * family (llm_flops) because the throughput model costs attention, MLP, MoE and
 * Mamba work at different efficiencies. */
#include "models/flops.h"

#include <string.h>

/* Defaults mirror Megatron's: head_dim = hidden / heads unless the architecture
 * says otherwise (MLA and some GQA models do), and no kv_heads means plain
 * multi-head attention. */
int flops_head_dim(const llm_arch *a)
{
    if (a->head_dim > 0)
        return a->head_dim;
    return a->num_attention_heads > 0 ? a->hidden_size / a->num_attention_heads
                                      : 0;
}

int flops_kv_heads(const llm_arch *a)
{
    return a->num_kv_heads > 0 ? a->num_kv_heads : a->num_attention_heads;
}

int flops_vocab(const llm_arch *a)
{
    return a->vocab_size > 0 ? a->vocab_size : FLOPS_VOCAB_DEFAULT;
}

/* Mamba's usual expansion factor of 2 when the head layout is not given. */
int flops_mamba_d_inner(const llm_arch *a)
{
    if (a->mamba_num_heads > 0 && a->mamba_head_dim > 0)
        return a->mamba_num_heads * a->mamba_head_dim;
    return 2 * a->hidden_size;
}

int flops_mamba_state(const llm_arch *a)
{
    return a->mamba_state_dim > 0 ? a->mamba_state_dim : FLOPS_MAMBA_STATE;
}

/* Layer counts are doubles because a truncated run (layers_run, as in proxy
 * benchmarks that run a few layers of a large model) scales every family by the
 * same fraction, which need not be whole per family. Hybrids list their
 * families explicitly; dense and MoE models default the missing counts from
 * num_layers so that a catalog row needs only what differs. */
void flops_layers(const llm_arch *a, int layers_run, llm_layers *out)
{
    double L = a->num_layers > 0 ? a->num_layers : 1;
    double f = (layers_run > 0 && layers_run < a->num_layers)
                   ? (double)layers_run / L
                   : 1.0;
    memset(out, 0, sizeof *out);
    if (a->cls == LLM_HYBRID) {
        out->attn = a->num_attention_layers;
        out->dense = a->dense_layers;
        out->moe = a->num_moe_layers;
        out->mamba = a->num_mamba_layers;
    } else {
        out->attn = a->num_attention_layers > 0 ? a->num_attention_layers : L;
        if (a->cls == LLM_MOE) {
            out->dense = a->dense_layers;
            out->moe =
                a->num_moe_layers > 0 ? a->num_moe_layers : L - a->dense_layers;
        } else {
            out->dense = a->dense_layers > 0 ? a->dense_layers : L;
        }
    }
    out->attn *= f;
    out->dense *= f;
    out->moe *= f;
    out->mamba *= f;
    out->total = L * f;
}

/* Per-token forward FLOPs of one attention block's projections. MLA
 * (DeepSeek-V3, Kimi): queries and keys/values go through low-rank projections
 * (q_lora_rank, kv_lora_rank), and each head's query and key carry an extra
 * RoPE part of FLOPS_MLA_ROPE_DIM. Otherwise GQA: Q and O are heads x head_dim
 * wide, K and V kv_heads x head_dim. */
static double attn_proj_flops(const llm_arch *a)
{
    double h = a->hidden_size, nh = a->num_attention_heads;
    double hd = flops_head_dim(a);
    if (a->kv_lora_rank > 0) {
        double dqk = hd + FLOPS_MLA_ROPE_DIM, dv = hd;
        double q = a->q_lora_rank > 0 ? 2 * h * a->q_lora_rank +
                                            2.0 * a->q_lora_rank * nh * dqk
                                      : 2 * h * nh * dqk;
        double kv = 2 * h * (a->kv_lora_rank + FLOPS_MLA_ROPE_DIM) +
                    2.0 * a->kv_lora_rank * nh * (hd + dv);
        return q + kv + 2 * nh * dv * h;
    }
    {
        double q = nh * hd, kv = flops_kv_heads(a) * hd;
        return 2 * h * (q + 2 * kv) + 2 * q * h;
    }
}

/* s / 2: with a causal mask each token attends on average to half the sequence,
 * which is how Megatron counts it (it does not charge the masked half). */
static double attn_core_flops(const llm_arch *a, double s)
{
    double nh = a->num_attention_heads, hd = flops_head_dim(a);
    double dqk = a->kv_lora_rank > 0 ? hd + FLOPS_MLA_ROPE_DIM : hd;
    return 2.0 * (s / 2.0) * nh * (dqk + hd);
}

/* Gate multiplier: gated units have two up projections. */
static double glu(const llm_arch *a)
{
    return a->gated_linear_unit ? 2.0 : 1.0;
}

double flops_per_token(const llm_arch *a, int seq_len, int layers_run,
                       llm_flops *out)
{
    llm_layers n;
    llm_flops f;
    double h, g;
    memset(&f, 0, sizeof f);
    if (out)
        memset(out, 0, sizeof *out);
    if (!a || seq_len <= 0 || a->hidden_size <= 0 || a->num_layers <= 0)
        return 0.0;
    flops_layers(a, layers_run, &n);
    h = a->hidden_size;
    g = glu(a);
    f.attn_gemm = n.attn * attn_proj_flops(a);
    f.attn_core = n.attn * attn_core_flops(a, seq_len);
    /* (g + 1) projections of h x ffn: one or two up projections plus the down
     * projection. */
    f.mlp = n.dense * 2 * h * a->ffn_hidden_size * (g + 1);
    if (n.moe > 0) {
        double w = a->moe_latent_size > 0 ? a->moe_latent_size : h;
        /* Per MoE layer and token: the router (h x experts), the shared expert
         * if any, and experts_per_token routed experts of width moe_ffn; a
         * latent MoE (w != h) adds the down- and up-projections to and from the
         * latent width. */
        double per =
            2 * h * a->num_experts +
            2 * h * a->shared_expert_ffn_hidden_size * (g + 1) +
            a->experts_per_token * 2 * w * a->moe_ffn_hidden_size * (g + 1);
        if (a->moe_latent_size > 0)
            per += 2 * 2 * h * w;
        f.moe = n.moe * per;
    }
    if (n.mamba > 0) {
        double din = flops_mamba_d_inner(a), N = flops_mamba_state(a);
        /* 64 is Mamba-2's default head dimension, used when the catalog gives
         * d_inner but no head count. */
        double nheads = a->mamba_num_heads > 0 ? a->mamba_num_heads : din / 64;
        f.mamba_gemm =
            n.mamba * (2 * h * (2 * din + 2 * FLOPS_MAMBA_GROUPS * N + nheads) +
                       2 * din * h);
        f.mamba_scan = n.mamba * 7 * din * N;
    }
    /* The output layer is counted once per token regardless of layers_run: a
     * truncated proxy run still computes the full logits. */
    f.logits = 2 * h * flops_vocab(a);
    f.fwd = f.attn_gemm + f.attn_core + f.mlp + f.moe + f.mamba_gemm +
            f.mamba_scan + f.logits;
    f.train = 3 * f.fwd;
    if (out)
        *out = f;
    return f.train;
}

/* seq_len 2 is any positive length: only the attention scores depend on it, and
 * they hold no weights, so they are left out of the parameter count. Routed
 * experts are split out because only experts_per_token of them are active per
 * token; the embedding and output head (h x vocab each) are added back since
 * f.logits is not part of the GEMM terms used here. */
void flops_params(const llm_arch *a, int layers_run, double *dense_params,
                  double *expert_params)
{
    llm_flops f;
    llm_layers n;
    double h = a->hidden_size, g = glu(a), w, routed;
    flops_per_token(a, 2, layers_run, &f);
    flops_layers(a, layers_run, &n);
    w = a->moe_latent_size > 0 ? a->moe_latent_size : h;
    /* A linear layer used once per token has K*N weights = its FLOPs / 2. */
    routed =
        n.moe * a->experts_per_token * 2 * w * a->moe_ffn_hidden_size * (g + 1);
    *dense_params = (f.attn_gemm + f.mlp + f.moe - routed + f.mamba_gemm) / 2 +
                    2 * h * flops_vocab(a);
    *expert_params =
        n.moe * (double)a->num_experts * w * a->moe_ffn_hidden_size * (g + 1);
}
