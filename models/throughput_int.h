/* models/throughput_int.h: pieces of the memory and pipeline model of
 * models/throughput.c exposed for tests only (docs/throughput-model.md §7).
 */
#ifndef MODELS_THROUGHPUT_INT_H
#define MODELS_THROUGHPUT_INT_H

#include "models/flops.h"
#include "models/throughput.h"

/* Flags of tp_act_bytes_per_token: dropout masks kept (1 byte per block
 * output); attention not fused, so without recomputation it keeps the
 * s x s scores, softmax and its dropout mask (Korthikanti's 5as/h). */
#define TP_ACT_DROPOUT 1u
#define TP_ACT_UNFUSED_ATTN 2u

/* Activation bytes per token of one average layer of a (layer counts nl),
 * kept for the backward pass: tp tensor-parallel ranks, sp 1 with sequence
 * parallelism, recompute a tp_recompute mode (CHOOSE counts as SELECTIVE:
 * Megatron's output-discarding modules layernorm, moe_act, mla_up_proj),
 * s tokens of one sequence on this GPU (seq_len / cp), gi bytes per stored
 * GEMM input element (2 BF16, 1 FP8), flags TP_ACT_*. For an MHA layer in
 * BF16 with F = 4h, no gating, dropout and unfused attention it is
 * h(34 + 5as/h)/t with SP and h(10 + 24/t + 5as/(ht)) without (Korthikanti
 * et al. 2022, Table 2); fused attention drops the 5as/h term. */
double tp_act_bytes_per_token(const llm_arch *a, const llm_layers *nl, int tp,
                              int sp, int recompute, double s, double gi,
                              unsigned flags);

/* Micro-batches' worth of a stage's activations held at the schedule's
 * peak on pipeline rank r (0 first .. pp-1 last), with pp stages, vp
 * virtual stages and m micro-batches per step. */
double tp_inflight(int pp, int vp, int m, int r);

/* Uneven split of L layers over pp stages when the last stage also runs an
 * output layer costing out_layers average layers: the bottleneck stage's
 * time in layers; OUT: layers on the fullest other stage and on the last. */
double tp_stage_split(int L, int pp, double out_layers, int *n_other,
                      int *n_last);

#endif
