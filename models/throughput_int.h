/* models/throughput_int.h: pieces of the memory and pipeline model of
 * models/throughput.c exposed for tests only (docs/throughput-model.md §7).
 */
#ifndef MODELS_THROUGHPUT_INT_H
#define MODELS_THROUGHPUT_INT_H

#include "models/flops.h"
#include "models/throughput.h"

/* Activation bytes per token of one average layer of a (layer counts nl),
 * kept for the backward pass: tp tensor-parallel ranks, sp 1 with sequence
 * parallelism, recompute a tp_recompute mode (CHOOSE counts as SELECTIVE),
 * s tokens of one sequence on this GPU (seq_len / cp), gi bytes per stored
 * GEMM input element (2 BF16, 1 FP8), dropout 1 with dropout masks. For an
 * MHA layer in BF16 with dropout
 * with F = 4h and no gating it is h(34 + 5as/h)/t with SP and
 * h(10 + 24/t + 5as/(ht)) without (Korthikanti et al. 2022, Table 2). */
double tp_act_bytes_per_token(const llm_arch *a, const llm_layers *nl, int tp,
                              int sp, int recompute, double s, double gi,
                              int dropout);

/* Micro-batches' worth of a stage's activations held at the schedule's
 * peak on the first (last = 0) or last (last = 1) pipeline stage, with pp
 * stages, vp virtual stages and m micro-batches per step. */
double tp_inflight(int pp, int vp, int m, int last);

/* Uneven split of L layers over pp stages when the last stage also runs an
 * output layer costing out_layers average layers: the bottleneck stage's
 * time in layers; OUT: layers on the fullest other stage and on the last. */
double tp_stage_split(int L, int pp, double out_layers, int *n_other,
                      int *n_last);

#endif
