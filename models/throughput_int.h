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
 * kept for the backward pass: tp tensor-parallel ranks, etp expert
 * tensor-parallel ranks (each gathers the routed copies of its group's
 * tokens; 1 without expert TP), sp 1 with sequence
 * parallelism, recompute a tp_recompute mode (CHOOSE counts as SELECTIVE),
 * mods the TP_RECMOD_* modules selective recomputation discards (0 =
 * TP_RECMOD_DEFAULT; core_attn frees no memory under fused attention,
 * which keeps only Q, K, V and the softmax statistics anyway),
 * s tokens of one sequence on this GPU (seq_len / cp), gi bytes per stored
 * GEMM input element (2 BF16, 1 FP8), flags TP_ACT_*. For an MHA layer in
 * BF16 with F = 4h, no gating, dropout and unfused attention it is
 * h(34 + 5as/h)/t with SP and h(10 + 24/t + 5as/(ht)) without (Korthikanti
 * et al. 2022, Table 2); fused attention drops the 5as/h term. */
double tp_act_bytes_per_token(const llm_arch *a, const llm_layers *nl, int tp,
                              int etp, int sp, int recompute, unsigned mods,
                              double s, double gi, unsigned flags);

/* The modules selective recomputation discards when the query names none
 * (tp_query.recompute_modules 0): those the Megatron-Bridge MoE and MLA
 * recipes set. */
#define TP_RECMOD_DEFAULT                                                      \
    (TP_RECMOD_LAYERNORM | TP_RECMOD_MOE_ACT | TP_RECMOD_MLA_UP_PROJ)

/* Micro-batches' worth of a stage's activations held at the schedule's
 * peak on pipeline rank r (0 first .. pp-1 last), with pp stages, vp
 * virtual stages and m micro-batches per step. */
double tp_inflight(int pp, int vp, int m, int r);

/* Uneven split of L layers over pp stages when the last stage also runs an
 * output layer costing out_layers average layers: the bottleneck stage's
 * time in layers; OUT: layers on the fullest other stage and on the last. */
double tp_stage_split(int L, int pp, double out_layers, int *n_other,
                      int *n_last);

/* Latency of one collective step (assumptions, docs §2). */
#define TP_NVLINK_LAT_S 3e-6   /* NVLink */
#define TP_SCALEOUT_LAT_S 8e-6 /* RDMA over the scale-out fabric */

/* ---- models/tp_memory.c ---- */

/* Bytes per parameter of weights, gradients and Adam state sharded over a
 * DP group of g ranks (distopt a tp_distopt, fsdp 0/1, grad32 1 when
 * gradients are kept and reduced in fp32): 20 or 4 + 16/g (bf16
 * gradients), 18 or 6 + 12/g (fp32), all / g with FSDP. */
double tp_bytes_per_param(int distopt, int fsdp, int g, int grad32);

/* ---- models/tp_comm.c ---- */

double tp_log2d(double x); /* log2 x, 0 for x <= 1 */

/* t less the part ovl * t that hides behind window [s]. */
double tp_exposed(double t, double ovl, double window);

/* Collective of vol bytes per GPU (ring volume) over g ranks of stride st:
 * NVLink inside one domain, hierarchical across domains (scale-out
 * carries vol / k, k members per domain), plus steps latencies [s]. */
double tp_coll_t(double vol, int g, int st, int domain, double nvl, double so,
                 double lat_so, int steps);

/* All-to-all of vol bytes per GPU over g consecutive ranks [s]. */
double tp_a2a_t(double vol, int g, int domain, double nvl, double so,
                double lat_so);

/* Data-parallel traffic of one step (docs/throughput-model.md §2, DP). */
typedef struct tp_dp_in {
    double p_dense, p_expert; /* parameters held per GPU [parameters] */
    int g_dense, g_expert;    /* DP group sizes (dp x cp; N / (pp ep)) */
    int st_dense, st_expert;  /* their rank strides (tp; ep) */
    int domain;               /* GPUs per NVLink domain */
    double nvl_Bps, so_Bps;   /* achieved NVLink, scale-out [B/s] */
    double lat_so_s;          /* scale-out latency per step [s] */
    double grad_bytes;        /* per reduced gradient element: 2 or 4 */
    double param_bytes;       /* per gathered parameter: 2, or 1 (+1/32
                                 MXFP8 scales) with fp8_param_gather */
    int distopt, fsdp, sharp; /* tp_distopt; 0/1; 0/1 */
    double bucket_params;     /* Megatron bucket size [parameters] */
} tp_dp_in;

typedef struct tp_dp_cost {
    double t_grad_s;  /* gradient reduce-scatter (all-reduce without the
                         distributed optimizer), before overlap [s] */
    double t_param_s; /* parameter all-gather (0 without it) [s] */
    double buckets;   /* buckets per model chunk at vp = 1 */
} tp_dp_cost;

void tp_dp_cost_of(const tp_dp_in *in, tp_dp_cost *out);

/* Token copies per token leaving the GPU in one MoE dispatch under
 * dispatcher (tp_moe_dispatcher) with E experts, top-k routing, ep ranks,
 * each expert split over etp GPUs (1 without expert tensor parallelism):
 * the per-rank copies, over every link. A flex exchange that leaves its
 * forwarding domain sends fewer over scale-out (tp_ep_flex_copies). */
double tp_ep_copies_out(int dispatcher, double E, double k, int ep, int etp);

/* 1 when the dispatcher exchanges over the whole expert-TP x EP group at
 * once (all-gather, flex), 0 when it gathers over the expert-TP group after
 * an all-to-all over EP (Megatron's alltoall, the default). */
int tp_ep_grouped(int dispatcher);

/* NVLink peers of DeepEP's normal kernels (deepseek-ai/DeepEP
 * csrc/kernels/legacy/internode.cu: LEGACY_NUM_MAX_NVL_PEERS == 8): a
 * DeepEP group forwards over NVLink within 8 GPUs at most. */
#define TP_DEEPEP_NVL_PEERS 8

/* Token copies per token of a flex dispatcher (TP_DISPATCH_DEEPEP or
 * TP_DISPATCH_HYBRIDEP) with E experts, top-k routing, ep ranks, each
 * expert split over etp GPUs, in NVLink domains of domain GPUs.
 * OUT *c_nvl: copies over NVLink (to this forwarding domain's ranks and
 *             forwarded on arrival), >= 0;
 * OUT *c_so:  copies over the scale-out fabric (once per other forwarding
 *             domain hit), >= 0.
 * The forwarding domain is the NVLink domain (HybridEP) or at most
 * TP_DEEPEP_NVL_PEERS GPUs (DeepEP), shrunk to the largest size that
 * divides ep etp. With the group inside one forwarding domain, *c_so = 0
 * and *c_nvl = tp_ep_copies_out. Expects ep dividing E, k <= E. */
void tp_ep_flex_copies(int dispatcher, double E, double k, int ep, int etp,
                       int domain, double *c_nvl, double *c_so);

/* One micro-batch's MoE exchanges on one GPU. */
typedef struct tp_ep_in {
    int dispatcher;   /* tp_moe_dispatcher */
    double E, k;      /* experts, experts per token */
    int ep;           /* expert-parallel ranks */
    int etp;          /* GPUs each expert is split over (1 = none) */
    double tok_bytes; /* one copy of each token of this GPU, summed over
                         the exchanges (dispatch and combine, forward,
                         backward, recomputation) [B] */
    double etp_bytes; /* the expert-TP gathers after an all-to-all
                         (ignored by a grouped dispatcher) [B] */
    int steps;        /* collectives, for the gathers' latency */
    int domain;       /* NVLink domain [GPUs] */
    double nvl_Bps;   /* achieved NVLink bandwidth per GPU [B/s] */
    double so_Bps;    /* achieved scale-out bandwidth per GPU [B/s] */
    double lat_so_s;  /* scale-out latency per exchange [s] */
} tp_ep_in;

/* Time of the exchanges [s], before overlap: tok_bytes x the dispatcher's
 * copies (tp_ep_copies_out), NVLink inside the domain, scale-out beyond
 * (a flex dispatcher across forwarding domains: tp_ep_flex_copies, both
 * links at once), plus the expert-TP gathers that follow an all-to-all.
 * One latency per call, as tp_a2a_t (not one per exchange: a known
 * understatement of about 8 us per exchange, docs §2). Never fails. */
double tp_ep_exchange_t(const tp_ep_in *in);

/* Exposed part of t_comm spread over the buckets of vp chunks behind a
 * window t_win (one micro-batch's backward or forward on the stage),
 * chunks pp window shares apart; at least one bucket's time. */
double tp_dp_exposed(double t_comm, double buckets, int vp, int pp,
                     double t_win);

/* ---- models/tp_recipe.c ---- */

/* Factor on the fitted fixed per-layer times: cg_full_fixed under
 * full-iteration CUDA graphs, else 1. */
double tp_recipe_fixed_factor(const tp_model *m, const tp_query *q);
/* Share of the EP exchange that may hide behind the other micro-batch in
 * flight, by the recipe's moe_a2a_overlap: ovl_ep_on when it overlaps,
 * 0 when it states it does not, ovl_ep when it does not say; 0 for a step
 * of micro < 2 micro-batches (none other in flight). */
double tp_recipe_ep_overlap(const tp_model *m, const tp_query *q, int micro);

/* The TP_EXTRAP_* reasons (throughput.h) a prediction of a on q's GPU at
 * sequence length seq leaves the calibration set; gpu_uncal 1 when the GPU
 * has no calibration rows of its own (models/tp_extrap.c). */
unsigned tp_extrap_reasons(const tp_model *m, const tp_query *q,
                           const llm_arch *a, int seq, int gpu_uncal);

#endif
