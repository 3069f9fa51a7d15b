/* models/tp_memory.c: the per-GPU memory pieces of the throughput model
 * (docs/throughput-model.md §7): activation bytes per token and layer, the
 * micro-batches in flight per pipeline rank, the bytes per parameter of
 * weights, gradients and optimizer state, and the pipeline's layer split
 * over stages (which sets both a stage's memory and its time).
 *
 * Owns: formulas only, each from a cited source (Korthikanti et al. 2022,
 * Narayanan et al. 2021, Megatron-LM's accounting). It must never decide a
 * layout or price a time (models/throughput.c does; the stage split only
 * counts layers), never allocate and never read a file: these are pure
 * functions the chooser calls in its inner loop.
 * Split out of models/throughput.c (issue 18) so that each concern of the
 * model stays one file of readable size.
 */
#include <math.h>

#include "models/flops.h"
#include "models/throughput_int.h"

/* ---- memory model (docs/throughput-model.md §7) ----
 *
 * Activation bytes per token and layer follow Korthikanti et al. 2022
 * ("Reducing Activation Recomputation in Large Transformer Models", §4 and
 * Table 2), written per block so that they hold for GQA, MLA, gated MLPs,
 * MoE and Mamba: a block stores its norm's input (2h), its first GEMM's
 * input (the norm's output) and, with dropout, a 1-byte mask, which tensor
 * parallelism does not split unless sequence parallelism is on, plus 2 bytes
 * per element of every tensor kept inside the block, which it does. For
 * MHA with F = 4h this is their 34h + 5as (attention 11h + 5as plus 2h of
 * layer norm, MLP 19h plus 2h), where 5as is the s x s attention scores,
 * softmax and its dropout mask.
 *
 * What Megatron-LM with Transformer Engine stores differs in three ways,
 * all modelled:
 *  - Fused (flash) attention, the default of every calibrated recipe,
 *    never materialises the s x s scores: the 5as term is absent even
 *    without recomputation (Dao et al. 2022, §3.1; Korthikanti's selective
 *    recomputation is what it does). TP_ACT_UNFUSED_ATTN restores it.
 *  - Selective recomputation is Megatron's output-discarding modules
 *    (transformer_config.py recompute_modules): "layernorm" (the norms
 *    that are separate modules: the MoE pre-MLP norm, which the router
 *    shares with the experts, and the MLA input norm; the others are
 *    fused into their first GEMM by TE's LayerNormLinear and keep their
 *    output for the weight gradient), "moe_act" (the experts' activation
 *    output, fc2's input) and "mla_up_proj" (MLA's Q, K, V, recomputed
 *    from the latents), the modules the Megatron-Bridge MoE recipes set
 *    (TP_RECMOD_DEFAULT); a recipe's own list (tp_query.recompute_modules)
 *    may add "mlp", "moe" and "shared_experts", which keep only their
 *    block's input. With the default set a dense GQA model stores what
 *    "none" stores.
 *  - Full recomputation keeps only each layer's input (2h/t per token with
 *    SP) plus one layer's working set. */

/* Activation bytes per token of one average layer [B]; sp = sequence
 * parallel; s = tokens of a sequence on this GPU (seq / cp); gi = bytes per
 * stored GEMM input element (2 in BF16; 1 when Transformer Engine keeps
 * the FP8 copy it casts for the weight-gradient GEMM); flags TP_ACT_*. */
double tp_act_bytes_per_token(const llm_arch *a, const llm_layers *nl, int tp,
                              int etp, int sp, int recompute, unsigned mods,
                              double s, double gi, unsigned flags)
{
    double h = a->hidden_size, hd = flops_head_dim(a),
           nh = a->num_attention_heads, g = a->gated_linear_unit ? 2 : 1;
    double L = nl->total > 0 ? nl->total : 1, t = tp, rep = 0, shard = 0,
           scores = 0;
    int sel =
        recompute == TP_RECOMPUTE_SELECTIVE || recompute == TP_RECOMPUTE_CHOOSE;
    /* The modules selective recomputation discards: the recipe's list, or
     * without one the set the Megatron-Bridge MoE recipes use. */
    unsigned rm = !sel ? 0u : mods ? mods : TP_RECMOD_DEFAULT;
    /* Outside the GEMMs each block keeps its norm's input (2h, bf16), its
     * first GEMM's input (gi h; gathered without SP) and, with dropout, its
     * output mask (h); a separate norm's output is dropped by selective
     * recomputation ("layernorm"). */
    double drop = flags & TP_ACT_DROPOUT ? h : 0;
    double blk = 2 * h + gi * h + drop,
           blk_sep = rm & TP_RECMOD_LAYERNORM ? 2 * h + drop : blk;
    if (nl->attn > 0) {
        double in;
        if (a->kv_lora_rank > 0) {
            double dqk = hd + FLOPS_MLA_ROPE_DIM;
            /* Q and K (qk dims) and V for the fused attention unless
             * "mla_up_proj" recomputes them, the output projection's input,
             * the latent q and kv inputs of the up-projections. */
            in = (rm & TP_RECMOD_MLA_UP_PROJ ? 0
                                             : 2 * (2 * nh * dqk + nh * hd)) +
                 gi * nh * hd + gi * (a->q_lora_rank + a->kv_lora_rank);
            rep += nl->attn * blk_sep;
        } else {
            double qw = nh * hd, kvw = flops_kv_heads(a) * hd;
            /* Q, K, V (bf16, Korthikanti's 4sbh + 2sbh) and the output
             * projection's input (his 2sbh). */
            in = 2 * (qw + 2 * kvw) + gi * qw;
            rep += nl->attn * blk;
        }
        shard += nl->attn * in;
        /* scores 2as, softmax 2as, its dropout mask as (Korthikanti), kept
         * only by an unfused attention without recomputation */
        if (flags & TP_ACT_UNFUSED_ATTN && recompute == TP_RECOMPUTE_NONE)
            scores += nl->attn * 5 * nh * s;
    }
    if (nl->dense > 0) {
        double F = a->ffn_hidden_size;
        /* "mlp" checkpoints the whole MLP, its fused norm included
         * (Megatron transformer_layer.py, _forward_mlp with recompute_mlp):
         * only the block input is kept. */
        if (rm & TP_RECMOD_MLP) {
            rep += nl->dense * (2 * h + drop);
        } else {
            rep += nl->dense * blk;
            shard += nl->dense * (2 * g * F + gi * F); /* fc1 out, fc2 in */
        }
    }
    if (nl->moe > 0) {
        double k = a->experts_per_token,
               w = a->moe_latent_size > 0 ? a->moe_latent_size : h,
               Fm = a->moe_ffn_hidden_size,
               Fs = a->shared_expert_ffn_hidden_size;
        /* k token copies routed (balanced), each an expert input (etp
         * times: the expert-TP group gathers it) and its
         * fc1 output and fc2 input (the activation's output, recomputed by
         * "moe_act"); the shared expert like a dense MLP unless
         * "shared_experts" recomputes it. "moe" checkpoints the whole MoE
         * block (router, experts, shared expert) and keeps only its input,
         * the separate pre-MLP norm's output (2h, bf16; discarded too when
         * "layernorm" recomputes the norm) beside the norm's own input. */
        if (rm & TP_RECMOD_MOE) {
            rep += nl->moe *
                   (rm & TP_RECMOD_LAYERNORM ? 2 * h + drop : 4 * h + drop);
        } else {
            rep += nl->moe * blk_sep;
            shard += nl->moe *
                     (k * (gi * w * (etp > 1 ? etp : 1) + 2 * g * Fm +
                           (rm & TP_RECMOD_MOE_ACT ? 0 : gi * Fm)) +
                      (Fs > 0 && !(rm & TP_RECMOD_SHARED) ? 2 * g * Fs + gi * Fs
                                                          : 0));
        }
    }
    if (nl->mamba > 0) {
        double din = flops_mamba_d_inner(a), Ns = flops_mamba_state(a);
        double nhm = a->mamba_num_heads > 0 ? a->mamba_num_heads : din / 64;
        rep += nl->mamba * blk;
        shard +=
            nl->mamba * (2 * (2 * din + 2 * FLOPS_MAMBA_GROUPS * Ns + nhm) +
                         2 * din + gi * din);
    }
    if (recompute == TP_RECOMPUTE_FULL)
        return 2.0 * h / (sp ? t : 1.0);
    return (rep / (sp ? t : 1.0) + (shard + scores) / t) / L;
}

/* Micro-batches whose activations pipeline rank r (0 first .. pp-1 last)
 * holds at the peak of the schedule (Narayanan et al. 2021 §2.2;
 * Megatron-LM schedules.py, warm-up counts): 1F1B holds min(pp - r, m);
 * the interleaved schedule warms up (pp - r - 1) * 2 + (vp - 1) * pp + 1
 * chunks of 1/vp stage each, i.e. pp + (pp-1)/vp stages' worth on the first
 * rank (Megatron's 1 + (pp-1)/(pp vp) penalty, theoretical_memory_usage.py)
 * and pp - (pp-1)/vp on the last. Never more than the m micro-batches. */
double tp_inflight(int pp, int vp, int m, int r)
{
    double x;
    if (pp <= 1)
        x = 1;
    else if (vp <= 1)
        x = pp - r;
    else
        x = ((pp - r - 1) * 2.0 + (vp - 1.0) * pp + 1.0) / vp;
    return x < m ? x : m;
}

/* Bytes per parameter of mixed-precision Adam by sharding over a DP group
 * of g ranks. With 16-bit gradient buffers (bf16 weight 2 + bf16 grad 2 +
 * fp32 main grad, master, m and v 16): 20, or 4 + 16/g with the
 * distributed optimizer (Megatron-LM docs/user-guide/features/
 * dist_optimizer.md, "16-bit parameters, 16-bit gradients"); with fp32
 * gradient buffers (grad_reduce_in_fp32) Megatron's 18, or 6 + 12/g
 * (theoretical_memory_usage.py); FSDP shards everything (ZeRO-3). Every
 * Megatron-Bridge benchmark recipe reduces in bf16 (perf_recipes/_common.py,
 * grad_reduce_in_fp32 = False), so grad32 is 0 unless a query says so. */
double tp_bytes_per_param(int distopt, int fsdp, int g, int grad32)
{
    double all = grad32 ? 18.0 : 20.0;
    if (g < 1)
        g = 1;
    if (fsdp)
        return all / g;
    if (distopt != TP_DISTOPT_ON)
        return all;
    return grad32 ? 6.0 + 12.0 / g : 4.0 + 16.0 / g;
}

/* Transformer layers per pipeline stage when the split is uneven
 * (docs/throughput-model.md §7): the last stage also runs the output layer
 * (cost t_out in the unit of one average layer's time t_lay), the others
 * split the rest as evenly as integers allow, which Megatron expresses with
 * num_layers_in_last_pipeline_stage (or account_for_loss_in_pipeline_split
 * when the output layer costs about one layer). Returns the bottleneck
 * stage's time in layers (n of the fullest other stage in *n_other, the
 * last stage's in *n_last; among equal bottlenecks the most even split,
 * i.e. the largest n_last). The other stages hold ceil or floor of
 * (L - n_last)/(pp - 1). O(L/pp). */
double tp_stage_split(int L, int pp, double out_layers, int *n_other,
                      int *n_last)
{
    double best = 1e300;
    if (pp <= 1) {
        *n_other = *n_last = L;
        return L + out_layers;
    }
    *n_other = *n_last = 0;
    for (int nl = 0; nl <= L; nl++) {
        int no = (L - nl + pp - 2) / (pp - 1);
        double t = no > nl + out_layers ? no : nl + out_layers;
        /* Ties go to the larger last stage: the most even split. */
        if (t <= best) {
            best = t;
            *n_other = no;
            *n_last = nl;
        }
        if (nl + out_layers > best)
            break;
    }
    return best;
}
