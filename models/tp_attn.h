/* models/tp_attn.h: the attention core of one layer (QK^T, softmax, PV) as
 * the fused FlashAttention kernels run it, and its time on one GPU.
 *
 * Two parts, added (docs/throughput-model.md §2): the tensor-core part, the
 * score FLOPs at eta_attn x the BF16 dense peak (eta_attn fixed at 1, not
 * fitted), and the exponential part, one exp per causal score element per
 * head on the special function units (MUFU.EX2) at gpu_spec.exp_per_s. The
 * forward pass evaluates each exp once; the backward pass recomputes
 * P = exp(S - L) once more (FlashAttention-2, Dao 2023, Algorithm 2;
 * FlashAttention-3, Shah et al. 2024, §3.1). A GPU whose exp_per_s is 0
 * (not in the catalog) has no exponential part. Units: s, FLOP,
 * exponentials. Pure functions, O(1).
 */
#ifndef MODELS_TP_ATTN_H
#define MODELS_TP_ATTN_H

#include "models/gpu.h"

/* Backward tensor-core time per forward one: the model's backward = 2 x
 * forward. FlashAttention's backward runs five score GEMMs to the
 * forward's two (S = QK^T recomputed, dV, dP, dQ, dK: FlashAttention-2,
 * Algorithm 2), but 2.5 fitted the 516 calibration rows worse than 2
 * (LOCO 8.98 vs 8.95 %, LOMO 10.86 vs 10.76 %; issue 18). */
#define TP_ATTN_BWD_MMA 2.0

/* Forward and backward time of one layer's attention core [s]. */
typedef struct tp_attn {
    double fwd_s;     /* forward: tensor + exponential parts */
    double bwd_s;     /* backward: TP_ATTN_BWD_MMA x tensor + one exp each */
    double exp_fwd_s; /* the exponential part of fwd_s (= that of bwd_s) */
} tp_attn;

/* Exponentials of one layer's causal forward pass on one GPU: tokens T of
 * this GPU, each attending to seq / 2 keys on average (causal), over
 * heads_local = n_heads / tp heads: T (seq / 2) heads_local. */
double tp_attn_exps(double T, double seq, double heads_local);

/* Time of a core of flops forward FLOPs (QK^T and PV, causal) and n_exp
 * forward exponentials on GPU g, the tensor cores at eta_attn (in (0, 1])
 * x g's BF16 dense peak; *out receives it. Never fails: a GPU without an
 * exp rate gets no exponential part. */
void tp_attn_core(const gpu_spec *g, double eta_attn, double flops,
                  double n_exp, tp_attn *out);

#endif
