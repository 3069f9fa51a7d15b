/* models/llm.h: an LLM architecture, one row of the catalog's models
 * (models/llms.cfg, from data/catalog/models.csv).
 *
 * Counts are plain integers; 0 means "not applicable or not given" unless a
 * field says otherwise. Parameter counts are in parameters (not billions).
 */
#ifndef MODELS_LLM_H
#define MODELS_LLM_H

typedef enum llm_class { LLM_DENSE = 0, LLM_MOE = 1, LLM_HYBRID = 2 } llm_class;

/* The class's name as files and outputs spell it ("dense", "moe",
 * "hybrid"); NULL for a value out of range. */
static inline const char *llm_class_name(int cls)
{
    static const char *const names[] = {"dense", "moe", "hybrid"};
    return cls >= 0 && cls < (int)(sizeof names / sizeof *names)
               ? names[cls]
               : (const char *)0;
}

/* Bits of llm_arch.assumed: which fields the catalog filled as marked
 * assumptions because models.csv leaves them blank (see models/llms.cfg). */
enum {
    LLM_ASSUMED_VOCAB = 1u << 0,         /* vocab_size */
    LLM_ASSUMED_MAMBA_STATE = 1u << 1,   /* mamba_state_dim */
    LLM_ASSUMED_ACTIVE_PARAMS = 1u << 2, /* active_params */
    LLM_ASSUMED_TOTAL_PARAMS = 1u << 3,  /* total_params */
    LLM_ASSUMED_KV_LORA = 1u << 4,       /* kv_lora_rank */
    LLM_ASSUMED_LATENT = 1u << 5,        /* moe_latent_size */
    LLM_ASSUMED_OTHER = 1u << 15         /* any other field */
};

typedef struct llm_arch {
    char name[64]; /* as written in models.csv, "Llama 3.1 405B" */
    char id[32];   /* short id, "llama3.1-405b" */
    llm_class cls; /* dense, moe or hybrid (Mamba) */
    int num_layers;
    int hidden_size;
    int ffn_hidden_size;     /* dense MLP width; 0 when no dense MLP */
    int moe_ffn_hidden_size; /* per-expert width */
    int num_attention_heads;
    int num_kv_heads; /* 0 for MLA (see kv_lora_rank) */
    int head_dim;
    int kv_lora_rank; /* MLA; 0 otherwise */
    int q_lora_rank;  /* MLA; 0 otherwise */
    int vocab_size;
    int num_experts;
    int experts_per_token;
    int shared_experts;
    int shared_expert_ffn_hidden_size;
    int dense_layers; /* leading dense layers of an MoE model */
    int num_mamba_layers;
    int num_attention_layers;
    int num_moe_layers;
    int mamba_state_dim;
    int mamba_num_heads;
    int mamba_head_dim;
    int gated_linear_unit; /* 1 for SwiGLU-style MLPs */
    double total_params;   /* [parameters] */
    double active_params;  /* [parameters] per token */
    int default_seq_len;   /* [tokens] */
    unsigned assumed;      /* bit mask of fields filled as assumptions
                              (LLM_ASSUMED_*) */
    int moe_latent_size;   /* LatentMoE: routed experts work in this
                              width instead of hidden_size; 0 = none */
    /* Features Megatron runs outside its fused kernels (models/tp_eager.h),
     * 0 or 1: biases on the experts' linear layers, a clamped quick-GeGLU
     * (clamped before the fused kernel), rotary embeddings on the unfused
     * path (YaRN with an attention scale other than 1). */
    int expert_bias;
    int activation_clamp;
    int rope_unfused;
} llm_arch;

#endif
