/* models/tp_recipe.c: the software recipe as an input of the throughput
 * model (issue 18): the names of the recipe settings a benchmark states
 * (CUDA graphs, MoE dispatcher, recompute modules) and the term that reads
 * them (docs/throughput-model.md §2):
 *
 *  - full-iteration CUDA graphs replay the whole forward-backward step from
 *    one graph, so the host's per-kernel launches and the per-layer host
 *    syncs are gone: the fitted fixed times (t_layer_s, t_moe_layer_s,
 *    t_moe_expert_s) are multiplied by the fitted share cg_full_fixed that
 *    is left (neutral 1). Partial (module-scoped) graphs and unstated
 *    recipes keep the fitted times: they are what most calibration rows
 *    ran.
 *  - the EP all-to-all overlap (moe_a2a_overlap, Megatron's
 *    overlap_moe_expert_parallel_comm): a recipe that states it hides up to
 *    the fitted share ovl_ep_on of the EP exchange behind the adjacent
 *    micro-batch; one that states it off hides nothing; an unstated one
 *    keeps the fitted ovl_ep of the rows that did not say (issue 18,
 *    seventh follow-up).
 *
 * recompute_modules sets what selective recomputation discards (memory,
 * models/tp_memory.c) and repeats (time, models/throughput.c); a stated
 * "none" discards nothing. It does not enter `calibrate`: no row states a
 * recompute mode, so every row runs with none (an always-on charge of the
 * modules inside the fit made it worse: docs/throughput-model.md §2).
 * The EP volume of each dispatcher is the EP model's (tp_comm.c,
 * tp_ep_copies_out).
 *
 * Why here: models/throughput.c holds the step model and is near the file
 * size limit; the recipe's vocabulary and its term are one concept.
 * Pure; never allocates.
 */
#include <string.h>
#include <strings.h>

#include "models/throughput_int.h"

static const char *const cg_names[] = {"", "none", "partial", "full"};
static const char *const disp_names[] = {"", "alltoall", "allgather",
                                         "flex-deepep", "flex-hybridep"};
static const struct {
    const char *name;
    unsigned bit;
} mods[] = {
    {"core_attn", TP_RECMOD_CORE_ATTN},
    {"mlp", TP_RECMOD_MLP},
    {"moe", TP_RECMOD_MOE},
    {"moe_act", TP_RECMOD_MOE_ACT},
    {"layernorm", TP_RECMOD_LAYERNORM},
    {"mla_up_proj", TP_RECMOD_MLA_UP_PROJ},
    {"shared_experts", TP_RECMOD_SHARED},
};

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

int tp_cuda_graph_parse(const char *s)
{
    return lookup(s ? s : "", cg_names, 4);
}

int tp_moe_dispatcher_parse(const char *s)
{
    return lookup(s ? s : "", disp_names, 5);
}

const char *tp_cuda_graph_name(int v)
{
    return v >= 0 && v < 4 ? cg_names[v] : "";
}

const char *tp_moe_dispatcher_name(int v)
{
    return v >= 0 && v < 5 ? disp_names[v] : "";
}

unsigned tp_recompute_modules_parse(const char *s, int *ok)
{
    unsigned bits = 0;
    char word[32];
    *ok = 1;
    if (!s || !s[strspn(s, "; ,")])
        return 0;
    if (strcasecmp(s, "none") == 0)
        return TP_RECMOD_STATED;
    bits = TP_RECMOD_STATED;
    while (*s) {
        size_t n = strcspn(s, "; ,");
        size_t j, nm = sizeof mods / sizeof mods[0];
        if (n == 0) {
            s++;
            continue;
        }
        if (n >= sizeof word) {
            *ok = 0;
            return 0;
        }
        memcpy(word, s, n);
        word[n] = 0;
        for (j = 0; j < nm && strcasecmp(word, mods[j].name) != 0; j++)
            ;
        if (j == nm) {
            *ok = 0;
            return 0;
        }
        bits |= mods[j].bit;
        s += n;
    }
    return bits;
}

double tp_recipe_fixed_factor(const tp_model *m, const tp_query *q)
{
    return q->cuda_graph == TP_CG_FULL ? m->p[TP_CG_FULL_FIXED] : 1.0;
}

/* Megatron overlaps the EP all-to-all only with
 * overlap_moe_expert_parallel_comm (default off), which runs one
 * micro-batch's dispatch and combine beside the adjacent micro-batch's
 * forward and backward (Megatron-LM d98e8a6, moe/README.md "EP A2A
 * Overlap"); without it the exchange sits on the critical path. A step of
 * one micro-batch has no adjacent one, whatever the recipe: nothing hides
 * (no calibration row with experts runs one). */
double tp_recipe_ep_overlap(const tp_model *m, const tp_query *q, int micro)
{
    if (micro < 2)
        return 0.0;
    switch (q->moe_a2a_overlap) {
    case TP_A2A_OVL_ON:
        return m->p[TP_OVL_EP_ON];
    case TP_A2A_OVL_OFF:
        return 0.0;
    default:
        return m->p[TP_OVL_EP];
    }
}
