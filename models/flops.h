/* models/flops.h: model FLOPs and GEMM shapes of one LLM training token.
 *
 * The one FLOPs formula factorysim uses (docs/throughput-model.md §1): the
 * Megatron-LM causal accounting of data/facts/facts.md §6.1, that is
 * 3 x forward (forward + data gradient + weight gradient), every GEMM counted
 * as 2*K*N per token, self-attention scores over the causal half (s/2 keys
 * on average), routed experts counted top-k only, plus Megatron's hybrid
 * Mamba term (in_proj, 7*d_in*state scan, out_proj) and its LatentMoE
 * projections. Activation recomputation is not counted (model FLOPs).
 * Per token, independent of batch size; O(1), never allocates.
 */
#ifndef MODELS_FLOPS_H
#define MODELS_FLOPS_H

#include "models/llm.h"

/* Assumptions for cells models.csv leaves blank; docs/throughput-model.md. */
#define FLOPS_MLA_ROPE_DIM 64      /* assumption: DeepSeek-V3/Kimi rope part */
#define FLOPS_MAMBA_GROUPS 8       /* assumption: Nemotron-H/Nano value */
#define FLOPS_MAMBA_STATE 128      /* assumption: Megatron-Core default */
#define FLOPS_VOCAB_DEFAULT 131072 /* assumption: Nemotron-H vocabulary */

/* Layer counts actually run: proxies run layers_run of num_layers layers,
 * every kind scaled by the same fraction. */
typedef struct llm_layers {
    double attn;  /* self-attention blocks */
    double dense; /* dense MLP blocks */
    double moe;   /* MoE blocks */
    double mamba; /* Mamba-2 blocks */
    double total; /* layers run (num_layers or layers_run) */
} llm_layers;

/* Per-token forward FLOPs by part (multiply by 3 for training). */
typedef struct llm_flops {
    double
        attn_gemm; /* QKV/MLA projections and output projection, all layers */
    double attn_core; /* QK^T and AV, causal, all layers */
    double mlp;       /* dense MLP blocks */
    double moe;       /* router, shared and top-k routed experts, latent proj */
    double mamba_gemm; /* Mamba in_proj and out_proj */
    double mamba_scan; /* 7 * d_in * state per Mamba layer */
    double logits;     /* 2 * h * V */
    double fwd;        /* sum of the above [FLOP/token] */
    double train;      /* 3 * fwd [FLOP/token] */
} llm_flops;

/* Layer counts of a run with layers_run layers (0 = the full model). */
void flops_layers(const llm_arch *a, int layers_run, llm_layers *out);

/* Fills *out for sequence length seq_len [tokens] and layers_run (0 = all).
 * Returns the training FLOPs per token (out->train), or 0 if a or seq_len is
 * invalid. Never allocates. */
double flops_per_token(const llm_arch *a, int seq_len, int layers_run,
                       llm_flops *out);

/* Helpers shared with the throughput model: widths derived from a. */
int flops_head_dim(const llm_arch *a);      /* head_dim or h / heads */
int flops_kv_heads(const llm_arch *a);      /* num_kv_heads or heads */
int flops_vocab(const llm_arch *a);         /* vocab_size or the default */
int flops_mamba_d_inner(const llm_arch *a); /* heads * head_dim or 2h */
int flops_mamba_state(const llm_arch *a);   /* mamba_state_dim or default */

/* Largest relative difference between the parameter count an architecture
 * gives (flops_params, dense + expert) and the total a catalog entry states
 * (total_params_b) before the entry is refused as self-contradictory.
 * Stated totals are model names rounded to one or two significant figures
 * ("5B", "8B", "30B-A3B"), which alone is up to +-10% for a one-digit name.
 * Measured on the 31 bundled models: arch / stated spans 0.963 (Llama 2 7B,
 * really 6.74 B) to 1.068 (Nemotron 8B, total "from the name"), median
 * 1.004; see docs/catalog.md. */
#define FLOPS_PARAMS_REL_TOL 0.10

/* Parameter counts [parameters]: everything except routed experts
 * (*dense_params, embeddings and output layer included) and routed experts
 * (*expert_params), for layers_run layers (0 = all). */
void flops_params(const llm_arch *a, int layers_run, double *dense_params,
                  double *expert_params);

#endif
