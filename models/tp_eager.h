/* models/tp_eager.h: element-wise work Megatron runs outside its fused
 * kernels for three model features, as HBM traffic (docs/throughput-model.md
 * §2, "Eager element-wise work").
 *
 * Megatron fuses a layer's element-wise work into a few kernels, which the
 * fitted elem_passes carries for every model alike. Three features take
 * paths of plain PyTorch operators instead, each a full read and write of
 * a large tensor (Megatron-LM d98e8a6):
 *   - expert biases (llm_arch.expert_bias): fc2's bias is added per routed
 *     token copy, weighted by its routing probability, in FP32
 *     (moe/experts.py, TEGroupedMLP._apply_bias / _apply_packed_bias:
 *     .float(), repeat_interleave, *, +, .to(bf16) forward; their autograd
 *     backward);
 *   - a clamped GLU (llm_arch.activation_clamp): both halves of fc1's
 *     output are clamped and concatenated before the fused activation
 *     kernel (fusions/fused_bias_geglu.py and fused_bias_swiglu.py,
 *     weighted_bias_*_impl);
 *   - rotary embeddings applied unfused (llm_arch.rope_unfused): YaRN with
 *     an attention scale other than 1 takes apply_rotary_pos_emb's
 *     element-wise path (models/common/embeddings/rope_utils.py) even when
 *     apply_rope_fusion is set.
 * Bytes are counted from those operators' dtypes (BF16 activations, FP32
 * where the code casts): see the constants. Pure, O(1).
 */
#ifndef MODELS_TP_EAGER_H
#define MODELS_TP_EAGER_H

#include "models/flops.h"
#include "models/llm.h"

/* Bytes per element, forward and backward, of one routed copy's fc2 output
 * (width w) under the FP32 bias path: forward .float() 2+4, repeat 4,
 * bias x prob 4+4, + 4+4+4, .to(bf16) 4+2 = 36; backward cast 2+4,
 * grad x prob 4+4, grad . bias for the probability 4+4, the repeat's
 * reduction 4, cast back 4+2 = 32. */
#define TP_EAGER_BIAS_FWD_B 36.0
#define TP_EAGER_BIAS_BWD_B 32.0

/* Bytes per element of fc1's GLU output (width 2F): forward two clamps
 * (2+2 each over half) and the concatenation (2+2) = 8; backward the
 * clamps' masked gradients (grad, saved input, out: 2+2+2 over each half)
 * and the split gradient's copy (2+2) = 10. */
#define TP_EAGER_CLAMP_FWD_B 8.0
#define TP_EAGER_CLAMP_BWD_B 10.0

/* Passes (one read or write of the tensor) over a token's q and k heads,
 * BF16, of unfused RoPE: forward 10 (rotate-half's split, negate and
 * concatenation, x cos, x sin, the sum, the attention scale, the
 * pass-through concatenation), backward 11. */
#define TP_EAGER_ROPE_FWD_PASSES 10.0
#define TP_EAGER_ROPE_BWD_PASSES 11.0

/* HBM bytes per micro-batch on one GPU, forward + backward (+ the forward
 * again where recomputation repeats it), of a's eager element-wise work:
 * nl its layer counts, T tokens per micro-batch on this GPU (mbs x seq /
 * cp), Ts its sequence-parallel share (T / tp) that the router sees, tp and
 * etp the tensor-parallel degrees, recompute the layout's tp_recompute
 * mode and mods the TP_RECMOD_* modules the recipe recomputes (0 = the
 * default set): full recomputation repeats every forward part, selective
 * moe_act or moe the clamp's, selective moe the bias's too. 0 for a model
 * with none of the features. */
double tp_eager_bytes(const llm_arch *a, const llm_layers *nl, double T,
                      double Ts, int tp, int etp, int recompute, unsigned mods);

#endif
