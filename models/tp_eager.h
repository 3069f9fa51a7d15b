/* models/tp_eager.h: element-wise work Megatron runs outside its fused
 * kernels for three model features, as HBM traffic (docs/throughput-model.md
 * §2, "Eager element-wise work").
 *
 * Megatron fuses a layer's element-wise work into a few kernels, which the
 * fitted elem_passes carries for every model alike. Three features take
 * paths of plain PyTorch operators instead, each a full read and write of
 * a large tensor, in the Megatron-LM of every Megatron-Bridge release
 * v0.2.0-v0.6.0 (submodule commits 0d8e0714 .. cd4afffa):
 *   - expert biases (llm_arch.expert_bias): TEGroupedMLP._apply_bias
 *     (moe/experts.py) splits fc2's output per expert and adds the bias
 *     weighted by each copy's routing probability (t + b * p, cat, .to),
 *     in the probabilities' dtype: FP32 under the flex dispatchers, which
 *     upcast them, BF16 otherwise;
 *   - a clamped quick-GeGLU (llm_arch.activation_clamp): both halves of
 *     fc1's output are clamped and concatenated before the fused
 *     activation kernel (fusions/fused_bias_geglu.py,
 *     weighted_bias_quick_geglu_impl; the SwiGLU clamp is inside its fused
 *     kernel, so a clamped SwiGLU model is not flagged);
 *   - rotary embeddings on the unfused path (llm_arch.rope_unfused): YaRN
 *     with an attention scale other than 1 takes apply_rotary_pos_emb's
 *     element-wise path (models/common/embeddings/rope_utils.py) even when
 *     apply_rope_fusion is set.
 * A recipe that captures the whole iteration in CUDA graphs cannot run the
 * bias path (its .tolist() reads token counts on the host); those recipes
 * run Transformer Engine's fused grouped MLP, which adds the bias and
 * clamps inside its kernels (Megatron-Bridge v0.5.0 overrides.py:
 * cutedsl_fused_grouped_mlp -> use_transformer_engine_op_fuser), so only
 * RoPE remains. Bytes are per operator, read and written, in the dtypes
 * the code uses, forward and autograd backward (counted by a reviewer
 * running the code with PyTorch's operator log). Pure, O(1).
 */
#ifndef MODELS_TP_EAGER_H
#define MODELS_TP_EAGER_H

#include "models/flops.h"
#include "models/llm.h"

/* Bytes per element of one routed copy's fc2 output (width w), forward and
 * backward, of the bias path: t + b * p, cat and .to with FP32
 * probabilities 28 + 40, with BF16 probabilities 12 + 16. */
#define TP_EAGER_BIAS32_FWD_B 28.0
#define TP_EAGER_BIAS32_BWD_B 40.0
#define TP_EAGER_BIAS16_FWD_B 12.0
#define TP_EAGER_BIAS16_BWD_B 16.0

/* Bytes per element of fc1's GLU output (width 2F): forward two clamps
 * (2+2 each over half) and the concatenation (2+2) = 8; backward the
 * clamps' masks (ge, le, logical_and, where; le, where) and the chunk's
 * concatenation = 15. */
#define TP_EAGER_CLAMP_FWD_B 8.0
#define TP_EAGER_CLAMP_BWD_B 15.0

/* Passes (one read or write of the tensor) over a token's q and k heads,
 * BF16, of unfused RoPE: forward 12 (x cos 2, negate 1, concatenation 2,
 * x sin 2, sum 3, the pass-through concatenation 2), backward 14; less
 * the 2 + 2 of the fused kernel the other models run, which elem_passes
 * already carries. */
#define TP_EAGER_ROPE_FWD_PASSES 12.0
#define TP_EAGER_ROPE_BWD_PASSES 14.0
#define TP_EAGER_ROPE_FUSED_PASSES 2.0 /* each way */

/* HBM bytes per micro-batch on one GPU, forward + backward (+ the forward
 * again where recomputation repeats it), of a's eager element-wise work:
 * nl its layer counts, T tokens per micro-batch on this GPU (mbs x seq /
 * cp), Ts its sequence-parallel share (T / tp) that the router sees, tp and
 * etp the tensor-parallel degrees, recompute the layout's tp_recompute
 * mode and mods the TP_RECMOD_* modules the recipe recomputes (0 = the
 * default set): full recomputation repeats every forward part, selective
 * moe_act or moe the clamp's, selective moe the bias's too. fp32_probs 1
 * under a flex dispatcher; fused_mlp 1 when the recipe runs the fused
 * grouped MLP (full-iteration CUDA graphs): no bias or clamp work. 0 for a
 * model with none of the features. */
double tp_eager_bytes(const llm_arch *a, const llm_layers *nl, double T,
                      double Ts, int tp, int etp, int recompute, unsigned mods,
                      int fp32_probs, int fused_mlp);

#endif
