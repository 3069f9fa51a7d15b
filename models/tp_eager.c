/* models/tp_eager.c: HBM traffic of the element-wise work Megatron runs in
 * plain PyTorch for expert biases, clamped GLUs and unfused rotary
 * embeddings (tp_eager.h). A routed copy lives on the GPUs of its expert's
 * tensor-parallel group: Ts x k x etp copies per MoE layer, each with the
 * full fc2 output (before the reduce-scatter) and 1/etp of fc1's.
 */
#include "models/tp_eager.h"

#include "models/throughput_int.h"

double tp_eager_bytes(const llm_arch *a, const llm_layers *nl, double T,
                      double Ts, int tp, int etp, int recompute, unsigned mods,
                      int fp32_probs, int fused_mlp)
{
    unsigned rm = mods ? mods : TP_RECMOD_DEFAULT;
    int full = recompute == TP_RECOMPUTE_FULL,
        sel = recompute == TP_RECOMPUTE_SELECTIVE;
    int rec_act = full || (sel && rm & (TP_RECMOD_MOE_ACT | TP_RECMOD_MOE)),
        rec_moe = full || (sel && rm & TP_RECMOD_MOE), rec_attn = full;
    double b = 0;
    if (nl->moe > 0 && a->num_experts > 0 && !fused_mlp) {
        double copies = Ts * a->experts_per_token * (etp > 0 ? etp : 1);
        double w = a->moe_latent_size > 0 ? a->moe_latent_size : a->hidden_size;
        double f1 = 2.0 * a->moe_ffn_hidden_size / (etp > 0 ? etp : 1);
        double per = 0;
        if (a->expert_bias)
            per += w * (fp32_probs ? TP_EAGER_BIAS32_FWD_B * (1 + rec_moe) +
                                         TP_EAGER_BIAS32_BWD_B
                                   : TP_EAGER_BIAS16_FWD_B * (1 + rec_moe) +
                                         TP_EAGER_BIAS16_BWD_B);
        /* Megatron clamps only a gated unit's halves. */
        if (a->activation_clamp && a->gated_linear_unit)
            per += f1 * (TP_EAGER_CLAMP_FWD_B * (1 + rec_act) +
                         TP_EAGER_CLAMP_BWD_B);
        b += nl->moe * copies * per;
    }
    if (nl->attn > 0 && a->rope_unfused) {
        double heads = (a->num_attention_heads + a->num_kv_heads) / (double)tp;
        double fw = TP_EAGER_ROPE_FWD_PASSES - TP_EAGER_ROPE_FUSED_PASSES;
        b += nl->attn * T * heads * a->head_dim * 2.0 *
             (fw * (1 + rec_attn) + TP_EAGER_ROPE_BWD_PASSES -
              TP_EAGER_ROPE_FUSED_PASSES);
    }
    return b;
}
