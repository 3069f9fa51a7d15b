/* models/throughput.h: step time of one data-parallel LLM training step on
 * a GPU cluster, with its breakdown; the pure, cheap query the site
 * simulation calls whenever a job is placed, throttled or resumed.
 *
 * Model (docs/throughput-model.md): per micro-batch and pipeline stage, every
 * GEMM costs a roofline time 2MKN / (eta_fmt * sat(M,N) * peak_fmt) +
 * bytes / (eta_hbm * HBM bandwidth); the attention scores' GEMMs at the
 * BF16 peak plus their softmax exponentials at the GPU's special-function
 * rate (models/tp_attn.h); the Mamba scan at a calibrated fraction of the
 * BF16 peak; a fixed time per layer covers
 * launch and synchronization. Communication: tensor-, context- and
 * expert-parallel traffic inside the NVLink domain or across the scale-out
 * fabric and pipeline point-to-point, each with a calibrated overlapped
 * fraction; data-parallel gradient reduce-scatter + parameter all-gather
 * over the slowest link the DP group crosses (tp_query.dp_link_bps) in
 * buckets hidden as Megatron hides them (behind the last micro-batch's
 * backward and the first one's forward, models/tp_comm.c). The bubble is
 * (pp-1)/vp micro-batch times (interleaved 1F1B). Parameters belong to
 * formats, recipes, GPUs, releases x model class and physical effects, never
 * to a model or a row (tp_model).
 *
 * Invariants (tested): the breakdown sums to step_time_s; halving the
 * bandwidth a DP group crosses raises t_dp_s and the step time, a layout
 * inside one NVLink domain is unaffected; the bubble is (pp-1)/(vp m) of the
 * ideal step (Narayanan et al. 2021). tp_predict is pure, thread-safe,
 * never allocates; a given layout costs O(layers kinds) (~1 us); choosing
 * searches the space of docs/throughput-model.md §7 with pruning that
 * cannot lose the optimum (measured by `bench predict`).
 */
#ifndef MODELS_THROUGHPUT_H
#define MODELS_THROUGHPUT_H

#include "models/gpu.h"
#include "models/llm.h"
#include "models/precision.h"
#include "sim/err.h"

/* Parallel layout. Every field 0 means "choose it": tp_predict searches the
 * fields left 0 (docs/throughput-model.md §7) and keeps the fastest layout
 * that fits in HBM, the given fields fixed; tp_result.chosen names what it
 * chose. Nothing is silently 1. */
typedef struct tp_layout {
    int tp;        /* tensor parallel size, >= 1 (0 = choose) */
    int pp;        /* pipeline stages, >= 1 (0 = choose) */
    int cp;        /* context parallel size, >= 1 (0 = choose) */
    int ep;        /* expert parallel size, >= 1 (1 for dense models; 0 =
                      choose) */
    int vp;        /* virtual stages per GPU (interleaving), >= 1 (0 =
                      choose) */
    int fsdp;      /* 1 when parameters are sharded (FSDP), else 0 (never
                      chosen) */
    int mbs;       /* micro-batch [sequences], >= 1 (0 = choose) */
    int recompute; /* activation recomputation, tp_recompute (0 = choose) */
    int distopt;   /* distributed optimizer, tp_distopt (0 = choose) */
    int etp;       /* expert tensor parallel size (Megatron's
                      expert_tensor_parallel_size): each expert's weights
                      split over etp GPUs, its routed tokens gathered over
                      them. >= 1; 1 for dense models and when tp is 1;
                      0 = choose 1 or tp (what Megatron-Bridge recipes set
                      and Megatron's default). Last, so positional
                      initializers that stop before it leave it 0. */
} tp_layout;

/* Activation recomputation (Korthikanti et al. 2022). */
typedef enum tp_recompute {
    TP_RECOMPUTE_CHOOSE = 0,
    TP_RECOMPUTE_NONE = 1,      /* every activation kept */
    TP_RECOMPUTE_SELECTIVE = 2, /* Megatron's layernorm, moe_act and
                                   mla_up_proj modules recomputed */
    TP_RECOMPUTE_FULL = 3       /* only each layer's input kept */
} tp_recompute;

/* Megatron's distributed optimizer (optimizer state sharded over DP). */
typedef enum tp_distopt {
    TP_DISTOPT_CHOOSE = 0,
    TP_DISTOPT_OFF = 1,
    TP_DISTOPT_ON = 2
} tp_distopt;

/* The layout fields in output order; bit k of tp_result.chosen is field k.
 * Names are the output keys: "tp", "pp", "vp", "cp", "ep", "mbs",
 * "recompute", "distributed_optimizer", "etp". */
enum {
    TP_FIELD_TP = 0,
    TP_FIELD_PP,
    TP_FIELD_VP,
    TP_FIELD_CP,
    TP_FIELD_EP,
    TP_FIELD_MBS,
    TP_FIELD_RECOMPUTE,
    TP_FIELD_DISTOPT,
    TP_FIELD_ETP,
    TP_NFIELDS
};

/* Name of layout field k (above), NULL out of range. */
const char *tp_field_name(int k);

/* Name of a recompute mode ("none", "selective", "full"; "" for CHOOSE or
 * out of range), and the mode of a name (TP_RECOMPUTE_CHOOSE when
 * unknown). */
const char *tp_recompute_name(int mode);
int tp_recompute_parse(const char *name);

/* Writes the names of the fields set in mask as "pp,vp,mbs" into buf
 * (empty when none). Returns buf. */
char *tp_chosen_list(unsigned mask, char *buf, size_t n);

typedef struct tp_query {
    const gpu_spec *gpu;      /* required */
    const llm_arch *llm;      /* required */
    precision prec;           /* recipe and format (precision_parse) */
    int n_gpus;               /* GPUs in the job, >= 1 */
    int gbs;                  /* global batch [sequences]; 0 = 4 Mi tokens
                                 rounded to a power of two (assumption) */
    int seq_len;              /* [tokens]; 0 = llm->default_seq_len */
    tp_layout layout;         /* fields 0: choose them */
    int layers_run;           /* proxy runs: layers actually run; 0 = all */
    const char *release;      /* software release (tp_model releases); NULL =
                                 the model's default (newest) */
    double dp_link_bps;       /* effective per-GPU bandwidth of the slowest link
                                 the DP group crosses [bit/s], per direction;
                                 0 = the GPU's scale-out NIC. When a job spans
                                 modules pass the inter-module fabric's share. */
    double dp_link_latency_s; /* latency of that link [s]; 0 = model default */
    double compute_slowdown;  /* multiplies every compute time (GEMMs,
                                 attention, scan, per-layer, optimizer), as a
                                 slower GPU or software stack would; 0 = 1.
                                 Used by models/exemplar.h to diagnose. */
    double comm_slowdown;     /* multiplies every collective's time before
                                 overlap (TP, CP, EP, PP, DP), as if every link
                                 ran 1/x of its bandwidth and x times its
                                 latency; 0 = 1 */
    double software_efficiency; /* the job's stack against the calibrated
                                   NeMo/Megatron releases: every compute time
                                   is divided by it; 0 = 1 */
    int grad_reduce_fp32;       /* 1: gradients reduced in fp32 (Megatron's
                                   grad_reduce_in_fp32); 0: bf16, as every
                                   Megatron-Bridge benchmark recipe */
    int sharp;                  /* 1: the scale-out fabric reduces in the
                                   network (SHARP; systems.cfg `sharp`) */
    /* The software recipe (issue 18; models/tp_recipe.c,
     * docs/throughput-model.md §2). 0 in each = not stated: the calibrated
     * default (what the rows that do not state it ran). */
    int cuda_graph;             /* tp_cuda_graph */
    int moe_dispatcher;         /* tp_moe_dispatcher: what the EP exchange
                                   sends (tp_comm.c, tp_ep_copies_out) */
    unsigned recompute_modules; /* TP_RECMOD_* bits the recipe recomputes:
                                   what selective recomputation
                                   (layout.recompute) discards and repeats
                                   (models/tp_memory.c); 0 = not stated,
                                   TP_RECMOD_DEFAULT; TP_RECMOD_STATED
                                   alone = stated "none" */
    int moe_a2a_overlap;        /* Megatron's EP all-to-all overlap
                                   (overlap_moe_expert_parallel_comm):
                                   TP_A2A_OVL_*; what share of the EP
                                   exchange may hide (tp_recipe_ep_overlap) */
} tp_query;

/* CUDA graphs of a recipe (Megatron cuda_graph_impl / cuda_graph_scope). */
typedef enum tp_cuda_graph {
    TP_CG_DEFAULT = 0, /* not stated: the calibrated default */
    TP_CG_NONE = 1,    /* cuda_graph_impl "none" */
    TP_CG_PARTIAL = 2, /* transformer_engine graphs of some modules (attn,
                          moe_router, moe_preprocess, mamba) */
    TP_CG_FULL = 3     /* the whole forward-backward iteration captured */
} tp_cuda_graph;
/* MoE token dispatcher of a recipe (moe_token_dispatcher_type and
 * moe_flex_dispatcher_backend). */
typedef enum tp_moe_dispatcher {
    TP_DISPATCH_DEFAULT = 0,
    TP_DISPATCH_ALLTOALL = 1,
    TP_DISPATCH_ALLGATHER = 2,
    TP_DISPATCH_DEEPEP = 3,  /* "flex-deepep" */
    TP_DISPATCH_HYBRIDEP = 4 /* "flex-hybridep" */
} tp_moe_dispatcher;
/* EP all-to-all overlap of a recipe (tp_query.moe_a2a_overlap). */
typedef enum tp_a2a_overlap {
    TP_A2A_OVL_DEFAULT = 0, /* not stated: the fitted ovl_ep of the rows
                               that did not state it */
    TP_A2A_OVL_OFF = 1,     /* stated off: the exchange is on the critical
                               path (nothing hidden) */
    TP_A2A_OVL_ON = 2       /* stated on: hidden behind the adjacent
                               micro-batch up to the fitted ovl_ep_on */
} tp_a2a_overlap;
/* Megatron recompute_modules, as bits of tp_query.recompute_modules. */
#define TP_RECMOD_CORE_ATTN 1u    /* "core_attn": attention scores */
#define TP_RECMOD_MLP 2u          /* "mlp": dense MLP GEMMs */
#define TP_RECMOD_MOE 4u          /* "moe": the whole MoE block */
#define TP_RECMOD_MOE_ACT 8u      /* "moe_act": experts' activation */
#define TP_RECMOD_LAYERNORM 16u   /* "layernorm" */
#define TP_RECMOD_MLA_UP_PROJ 32u /* "mla_up_proj": MLA up-projections */
#define TP_RECMOD_SHARED 64u      /* "shared_experts" */
/* A list was given, "none" included: the other bits are all that is
 * recomputed (without it, TP_RECMOD_DEFAULT applies). */
#define TP_RECMOD_STATED 128u
/* Parses a recipe value: "none", "partial", "full" (and "" = default) for
 * CUDA graphs; "alltoall", "allgather", "flex-deepep", "flex-hybridep" for
 * the dispatcher; a list of module names separated by ';', ' ' or ','
 * ("none" = no module) for recompute_modules, whose bits then carry
 * TP_RECMOD_STATED ("" or NULL = not stated, 0). Return -1 (bits: sets *ok
 * = 0) for an unknown value. */
int tp_cuda_graph_parse(const char *s);
int tp_moe_dispatcher_parse(const char *s);
unsigned tp_recompute_modules_parse(const char *s, int *ok);
const char *tp_cuda_graph_name(int v);
const char *tp_moe_dispatcher_name(int v);

typedef struct tp_result {
    double step_time_s;            /* one optimizer step [s] */
    double tokens_per_sec_per_gpu; /* gbs * seq / step / n_gpus */
    double
        model_tflops_per_gpu; /* flops.h formula FLOPs / step / GPU [TFLOP/s] */
    double low_tokens_per_sec_per_gpu;  /* 80% interval, low end */
    double high_tokens_per_sec_per_gpu; /* 80% interval, high end */
    /* Breakdown [s]; the terms sum to step_time_s. */
    double t_compute_s;   /* GEMMs, attention, scan, elementwise, per-layer */
    double t_tp_s;        /* exposed tensor-parallel collectives */
    double t_cp_s;        /* exposed context-parallel KV exchange */
    double t_ep_s;        /* exposed expert-parallel all-to-all */
    double t_dp_s;        /* exposed data-parallel gradient reduction */
    double t_pp_s;        /* exposed pipeline point-to-point */
    double t_bubble_s;    /* pipeline fill and drain */
    double t_optimizer_s; /* optimizer step (HBM-bound) */
    double t_dp_raw_s;    /* DP gradient reduction + parameter gather before
                             overlap [s] */
    int dp_buckets;       /* gradient buckets per model chunk (vp = 1) */
    int dp_crosses_scaleout; /* 1 if the DP group leaves one NVLink domain */
    tp_layout layout;        /* the layout used, every field resolved */
    unsigned chosen;         /* bit TP_FIELD_k set: field k was chosen */
    int gbs, seq_len;        /* the values used (defaults resolved) */
    int microbatches;        /* per step per pipeline */
    int layers_first, layers_last; /* transformer layers on the first and
                                      last pipeline stage (uneven split) */
    int layers_min;                /* ... on the emptiest stage but the last;
                                      a chosen vp never exceeds it */
    double mem_bytes_per_gpu;      /* estimated HBM footprint of the fullest
                                      stage [B] (docs/throughput-model.md §7) */
    double mem_states_bytes;       /* of which weights, gradients, optimizer */
    double mem_act_bytes;          /* of which activations in flight */
    double mem_usable_bytes;       /* HBM less the reserve [B] */
    int fits;               /* 1 if mem_bytes_per_gpu <= mem_usable_bytes;
                               0 only for a fully given layout */
    double flops_per_token; /* training FLOPs per token (flops.h) */
    int extrapolated;       /* 1: any TP_EXTRAP_* reason below holds */
    unsigned extrap_why;    /* bit set of TP_EXTRAP_* reasons */
    char why[160];          /* reason when tp_predict fails, else "" */
} tp_result;

/* Why a prediction is extrapolated (tp_result.extrap_why bits); each
 * reason widens the interval by tp_model.sigma_extrap in quadrature
 * (docs/throughput-model.md §8). */
#define TP_EXTRAP_GPU 1u /* GPU without calibration rows or announced */
#define TP_EXTRAP_SEQ 2u /* sequence >= 32k or above the calibrated max */
#define TP_EXTRAP_PARAMS                                                       \
    4u                       /* active parameters outside the calibrated       \
                                range (x1/2 .. x2) */
#define TP_EXTRAP_EXPERTS 8u /* experts outside the calibrated range */
#define TP_EXTRAP_STACK 16u  /* software_efficiency != 1 */
#define TP_EXTRAP_N 5        /* reasons (bits 0 .. TP_EXTRAP_N - 1) */
#define TP_EXTRAP_SEQ_LONG 32768

/* Reason bit b's short key ("gpu", "seq", "params", "experts", "stack",
 * as JSON lists them) and its sentence for a reader ("GPU not in the
 * calibration data", ...); NULL for a bit out of range. */
const char *tp_extrap_key(unsigned bit);
const char *tp_extrap_text(unsigned bit);

/* Parameters. Indices of tp_model.p; see docs/throughput-model.md §3. */
enum {
    TP_ETA_BF16 = 0,  /* large-GEMM fraction of the BF16 dense peak */
    TP_ETA_FP8,       /* ... of the FP8 dense peak */
    TP_ETA_FP4,       /* ... of the FP4 dense peak */
    TP_ETA_ATTN,      /* attention score GEMMs: fraction of the BF16 peak
                         (fixed at 1, not fitted: models/tp_attn.h) */
    TP_ETA_SSM,       /* Mamba scan: fraction of the BF16 peak */
    TP_ETA_HBM,       /* achieved fraction of HBM bandwidth */
    TP_GEMM_SAT,      /* GEMM half-saturation dimension [elements] */
    TP_ELEM_PASSES,   /* elementwise 2-byte passes per GEMM output element */
    TP_Q_FP8T,        /* quantization bytes per GEMM operand, FP8 tensor */
    TP_Q_FP8B,        /* ... FP8 block (MXFP8) */
    TP_Q_FP4,         /* ... NVFP4 */
    TP_MOE_PERM,      /* MoE permute/unpermute 2-byte passes per token copy */
    TP_T_LAYER,       /* fixed time per layer per micro-batch (fwd+bwd) [s] */
    TP_OVL_TP,        /* overlapped fraction of TP collectives */
    TP_OVL_CP,        /* ... of CP exchange (hidden behind attention) */
    TP_OVL_EP,        /* ... of the EP exchange, recipes that do not state
                         moe_a2a_overlap (models/tp_recipe.c) */
    TP_DP_WINDOW,     /* fraction of the compute window (last micro-batch's
                         backward, first one's forward) that the bucketed DP
                         reduce-scatter / all-gather can hide behind */
    TP_OVL_PP,        /* ... of PP point-to-point */
    TP_BW_NVLINK,     /* achieved fraction of NVLink bandwidth */
    TP_BW_SCALEOUT,   /* achieved fraction of scale-out bandwidth */
    TP_T_MOE_LAYER,   /* extra fixed time per MoE layer per micro-batch
                         (fwd+bwd): router, token-count host sync of
                         dropless routing [s] */
    TP_T_MOE_EXPERT,  /* fixed time per local expert per MoE layer per
                         micro-batch (fwd+bwd): grouped-GEMM setup and the
                         per-expert tails [s] */
    TP_CG_FULL_FIXED, /* share of the fixed per-layer and per-MoE-layer
                         times left when the recipe captures the whole
                         iteration in CUDA graphs (tp_query.cuda_graph
                         TP_CG_FULL): host launch and sync removed */
    TP_OVL_EP_ON,     /* overlapped fraction of the EP exchange when the
                         recipe states the overlap (tp_query.moe_a2a_overlap
                         TP_A2A_OVL_ON); stated off hides none */
    TP_NPAR
};

/* Issue 18's micro-batch groups: 1..TP_MB_FEW micro-batches per step (where
 * the exposed DP share of a step is largest) and more. calibrate's accuracy
 * table and predict --accuracy group by it (tp_result.microbatches). */
#define TP_MB_FEW 8

#define TP_MAX_RELEASES 48
#define TP_MAX_GPUS 16
#define TP_NCLASS 3
/* The range of a calibration file's per-GPU interval multiplier
 * (tp_model.gpu_spread): `calibrate` writes 1 .. max, the reader accepts
 * min .. max (0 would print a zero-width interval as certainty). */
#define TP_GPU_SPREAD_MIN 0.01
#define TP_GPU_SPREAD_MAX 100.0
#define TP_MAX_MODEL_ROWS 256

/* How the model did on one catalog model's published rows (calibrate
 * writes it, predict reports it): the mean and the mean absolute value of
 * predicted / measured - 1 under leave-one-configuration-out, over the
 * model's rows on every GPU (gpu "") or on one GPU. Reported beside a
 * prediction, never applied to it: a correction per model would be a
 * parameter of one model, which the fit does not have (issue 18). */
typedef struct tp_model_rows {
    char model[64];             /* catalog model name */
    char gpu[32];               /* catalog GPU name, "" = every GPU */
    int n;                      /* rows, >= 1 */
    double loco_mean_error_pct; /* mean of (predicted / measured - 1) [%] */
    double loco_mape_pct;       /* mean of |predicted / measured - 1| [%] */
} tp_model_rows;

/* The calibrated model: plain data, copyable. */
typedef struct tp_model {
    double p[TP_NPAR];    /* parameter values (SI units) */
    double p_sd[TP_NPAR]; /* standard errors from the fit covariance */
    int n_releases;
    char releases[TP_MAX_RELEASES][40];         /* release ids ("26.08", ...) */
    double rel_log[TP_MAX_RELEASES][TP_NCLASS]; /* log compute-time factor
                                    per release x class (dense, moe, hybrid);
                                    0 with rel_sd 0: no factor (not fitted:
                                    tp_model_release_fitted) */
    double rel_sd[TP_MAX_RELEASES][TP_NCLASS];
    int default_release; /* index used when tp_query.release NULL */
    int n_gpus;
    char gpus[TP_MAX_GPUS][32];  /* calibrated GPU names */
    double gpu_log[TP_MAX_GPUS]; /* log GEMM-efficiency factor per GPU */
    double gpu_sd[TP_MAX_GPUS];
    int gpu_n_max[TP_MAX_GPUS];     /* largest num_gpus among the GPU's
                                       calibration rows: the scale whose
                                       stragglers the fit already carries
                                       (models/straggler.h); 0 = unknown */
    double gpu_spread[TP_MAX_GPUS]; /* interval spread multiplier per GPU
                                       (tp_log_sd; 1 = the class's; a
                                       file's in [TP_GPU_SPREAD_MIN,
                                       TP_GPU_SPREAD_MAX]) */
    double sigma_log[TP_NCLASS]; /* log-error sd per class (cross-validated) */
    double sigma_extrap;         /* added in quadrature when extrapolated */
    double dp_latency_s;         /* default link latency [s] (assumption) */
    /* The calibration set's domain (calibrate writes it): a query outside
     * it is flagged extrapolated. 0 = unknown (nothing flagged). */
    double dom_active_params_min, dom_active_params_max; /* [parameters] */
    int dom_experts_max;                                 /* routed experts */
    int dom_seq_max;                                     /* [tokens] */
    int n_model_rows; /* 0 = not known (a fit without cross-validation) */
    tp_model_rows model_rows[TP_MAX_MODEL_ROWS];
} tp_model;

/* Name of parameter k ("eta_bf16", ...) as written in calibration.cfg, and
 * its unit ("fraction", "s", "bytes", "elements", "passes"); NULL if k is out
 * of range. */
const char *tp_param_name(int k);
const char *tp_param_unit(int k);

/* Fills m with the uncalibrated physical defaults (every factor 1, no
 * releases, no GPUs): the starting point of a fit and of tests.
 * Never allocates. */
void tp_model_init(tp_model *m);

/* Index of a release id in m, or -1. The id is the short form produced by
 * tp_release_id ("26.04.01", "dgxc v25.05-v25.05.05"). */
int tp_model_release(const tp_model *m, const char *id);

/* Whether m has a fitted factor for release index rel x class cls. A cell
 * the calibration left without one (one model measured there, or not
 * supported when each model was left out; models/calib.h) is 0 with sd 0;
 * a fitted one always has sd > 0 (its covariance includes the ridge
 * prior). 0 for an index out of range. */
int tp_model_release_fitted(const tp_model *m, int rel, int cls);

/* The published-row record of model on gpu (gpu NULL or "": every GPU) in
 * m, or NULL when the calibration has none (the model, or the model on that
 * GPU, had no rows; or the file predates the record). Names compare
 * case-insensitively, as the catalog's. */
const tp_model_rows *tp_model_rows_of(const tp_model *m, const char *model,
                                      const char *gpu);

/* Index of a calibrated GPU in m by name (case-insensitive), or -1. */
int tp_model_gpu(const tp_model *m, const char *name);

/* Index of the calibrated GPU whose efficiency factor g runs at: g's own,
 * else that of g->calib_as (a calibrated GPU of the same die, e.g. H800 and
 * H200 borrow H100's), else -1 (factor 1). Whether g itself has rows, and
 * so whether a prediction is extrapolated, is tp_model_gpu(m, g->name). */
int tp_model_gpu_factor(const tp_model *m, const gpu_spec *g);

/* Writes the short release id of a data label into buf:
 * "NeMo 26.04.01 container (...)" -> "26.04.01";
 * "dgxc-benchmarking v24.11.1 to v25.01.1 (3 tags)" -> "dgxc
 * v24.11.1-v25.01.1". Other labels are copied up to the first " (". Returns
 * buf. */
char *tp_release_id(const char *label, char *buf, size_t n);

/* Predicts one step into *out (OUT). Layout fields left 0 are chosen: the
 * fastest layout that fits in HBM, ties to the first in search order (so the
 * choice is reproducible); when tp, pp, cp, ep, vp and mbs are all given and
 * no recompute/optimizer setting fits, the least-memory one is predicted with
 * out->fits = 0 (the caller said what ran). Returns SIM_OK, or SIM_EINVAL
 * (missing gpu/llm, a GPU without a peak for the format, a layout that does
 * not divide n_gpus or the batch, no layout fits in HBM) or SIM_ENOTFOUND
 * (unknown release), with the reason in out->why. Pure; never allocates;
 * thread-safe. */
int tp_predict(const tp_model *m, const tp_query *q, tp_result *out);

/* The sd of the log of a prediction's error: the spread of the calibrated
 * predictive distribution, log-normal with its median at r's point
 * prediction. It is the class's cross-validated log error times the GPU's
 * spread multiplier (tp_model.sigma_log[class] x gpu_spread[g]: both from
 * leave-one-configuration-out refits, so the error of the fitted parameters
 * is inside them and the covariance p_sd is not added a second time; a GPU
 * without calibration rows, or g NULL, keeps the class's), widened by
 * sigma_extrap in quadrature once per extrapolation reason of r
 * (TP_EXTRAP_* bits). tp_predict's 80% interval is exp(+-1.2816 tp_log_sd)
 * and the site's per-replication throughput draw (models/site.h) uses the
 * same value: one definition of the spread. r must come from tp_predict for
 * a query with the same llm a and gpu g. Pure, never fails. */
double tp_log_sd(const tp_model *m, const llm_arch *a, const gpu_spec *g,
                 const tp_result *r);

/* Frees a model from tp_model_load/tp_model_default (io/calib_file.h).
 * tp_model_free(NULL) is a no-op. */
void tp_model_free(tp_model *m);

#endif
