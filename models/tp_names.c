/* models/tp_names.c: the names, defaults and lookups of the throughput
 * model (models/throughput.h): parameter names and units as written in
 * models/calibration.cfg, the uncalibrated defaults, release and GPU
 * lookups, release ids of data labels, layout field and recompute names.
 *
 * Owns: strings and the starting point of a fit. It must never compute a
 * time or a memory figure (models/throughput.c, tp_comm.c, tp_memory.c do).
 * Split out of models/throughput.c (issue 18) to keep that file to the
 * step-time model itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/throughput_int.h"
static const char *const par_names[TP_NPAR][2] = {
    {"eta_bf16", "fraction"},
    {"eta_fp8", "fraction"},
    {"eta_fp4", "fraction"},
    {"eta_attn", "fraction"},
    {"eta_ssm", "fraction"},
    {"eta_hbm", "fraction"},
    {"gemm_sat_dim", "elements"},
    {"elem_passes", "passes"},
    {"quant_fp8_tensor", "bytes"},
    {"quant_fp8_block", "bytes"},
    {"quant_nvfp4", "bytes"},
    {"moe_perm_passes", "passes"},
    {"t_layer_s", "s"},
    {"ovl_tp", "fraction"},
    {"ovl_cp", "fraction"},
    {"ovl_ep", "fraction"},
    {"dp_window", "fraction"},
    {"ovl_pp", "fraction"},
    {"bw_nvlink", "fraction"},
    {"bw_scaleout", "fraction"},
    {"t_moe_layer_s", "s"},
    {"t_moe_expert_s", "s"},
    {"cg_full_fixed", "fraction"},
    {"ovl_ep_on", "fraction"},
};

const char *tp_param_name(int k)
{
    return k >= 0 && k < TP_NPAR ? par_names[k][0] : NULL;
}

const char *tp_param_unit(int k)
{
    return k >= 0 && k < TP_NPAR ? par_names[k][1] : NULL;
}

void tp_model_init(tp_model *m)
{
    memset(m, 0, sizeof *m);
    m->p[TP_ETA_BF16] = 0.75;
    m->p[TP_ETA_FP8] = 0.65;
    m->p[TP_ETA_FP4] = 0.45;
    m->p[TP_ETA_ATTN] = 1.0; /* fixed: models/tp_attn.c, issue 18 */
    m->p[TP_ETA_SSM] = 0.05;
    m->p[TP_ETA_HBM] = 0.8;
    m->p[TP_GEMM_SAT] = 64.0;
    m->p[TP_ELEM_PASSES] = 4.0;
    m->p[TP_Q_FP8T] = 1.0;
    m->p[TP_Q_FP8B] = 1.5;
    m->p[TP_Q_FP4] = 2.0;
    m->p[TP_MOE_PERM] = 6.0;
    m->p[TP_T_LAYER] = 100e-6;
    m->p[TP_OVL_TP] = 0.5;
    m->p[TP_OVL_CP] = 0.8;
    m->p[TP_OVL_EP] = 0.3;
    m->p[TP_DP_WINDOW] = 1.0;
    m->p[TP_OVL_PP] = 0.8;
    m->p[TP_BW_NVLINK] = 0.7;
    m->p[TP_BW_SCALEOUT] = 0.8;
    m->p[TP_T_MOE_LAYER] = 200e-6;
    m->p[TP_T_MOE_EXPERT] = 20e-6;
    m->p[TP_CG_FULL_FIXED] = 1.0; /* neutral: full graphs change nothing */
    m->p[TP_OVL_EP_ON] = 0.5;
    m->sigma_log[0] = m->sigma_log[1] = m->sigma_log[2] = 0.15;
    for (int g = 0; g < TP_MAX_GPUS; g++)
        m->gpu_spread[g] = 1.0; /* the class's spread */
    m->sigma_extrap = 0.15;
    m->dp_latency_s = TP_SCALEOUT_LAT_S;
    m->default_release = -1;
}

void tp_model_free(tp_model *m)
{
    /* A model is one flat block (io/calib_file.c allocates it). */
    free(m);
}

int tp_model_release(const tp_model *m, const char *id)
{
    for (int i = 0; i < m->n_releases; i++)
        if (strcasecmp(m->releases[i], id) == 0)
            return i;
    return -1;
}

int tp_model_release_fitted(const tp_model *m, int rel, int cls)
{
    return rel >= 0 && rel < m->n_releases && cls >= 0 && cls < TP_NCLASS &&
           (m->rel_log[rel][cls] != 0 || m->rel_sd[rel][cls] != 0);
}

const tp_model_rows *tp_model_rows_of(const tp_model *m, const char *model,
                                      const char *gpu)
{
    if (!gpu)
        gpu = "";
    for (int i = 0; i < m->n_model_rows; i++)
        if (strcasecmp(m->model_rows[i].model, model) == 0 &&
            strcasecmp(m->model_rows[i].gpu, gpu) == 0)
            return &m->model_rows[i];
    return NULL;
}

int tp_model_gpu(const tp_model *m, const char *name)
{
    for (int i = 0; i < m->n_gpus; i++)
        if (strcasecmp(m->gpus[i], name) == 0)
            return i;
    return -1;
}

int tp_model_gpu_factor(const tp_model *m, const gpu_spec *g)
{
    int gi = tp_model_gpu(m, g->name);
    if (gi < 0 && g->calib_as[0])
        gi = tp_model_gpu(m, g->calib_as);
    return gi;
}

char *tp_release_id(const char *label, char *buf, size_t n)
{
    const char *p;
    size_t k;
    if (!n)
        return buf;
    buf[0] = '\0';
    if (!label)
        return buf;
    while (*label == ' ')
        label++;
    if (strncasecmp(label, "NeMo ", 5) == 0) {
        p = label + 5;
        k = strcspn(p, " ");
        snprintf(buf, n, "%.*s", (int)k, p);
        return buf;
    }
    if (strncasecmp(label, "dgxc-benchmarking ", 18) == 0) {
        const char *a = label + 18, *to = strstr(a, " to ");
        size_t ka = strcspn(a, " ");
        if (to) {
            const char *b = to + 4;
            snprintf(buf, n, "dgxc %.*s-%.*s", (int)ka, a, (int)strcspn(b, " "),
                     b);
        } else {
            snprintf(buf, n, "dgxc %.*s", (int)ka, a);
        }
        return buf;
    }
    p = strstr(label, " (");
    k = p ? (size_t)(p - label) : strlen(label);
    snprintf(buf, n, "%.*s", (int)k, label);
    return buf;
}

/* ---- layout fields, names ---- */

static const char *const field_names[TP_NFIELDS] = {
    "tp", "pp", "vp", "cp", "ep", "mbs", "recompute", "distributed_optimizer",
    "etp"};

const char *tp_field_name(int k)
{
    return k >= 0 && k < TP_NFIELDS ? field_names[k] : NULL;
}

static const char *const rc_names[] = {"", "none", "selective", "full"};

const char *tp_recompute_name(int mode)
{
    return mode >= 0 && mode <= TP_RECOMPUTE_FULL ? rc_names[mode] : "";
}

int tp_recompute_parse(const char *name)
{
    for (int k = TP_RECOMPUTE_NONE; k <= TP_RECOMPUTE_FULL; k++)
        if (name && strcasecmp(name, rc_names[k]) == 0)
            return k;
    return TP_RECOMPUTE_CHOOSE;
}

char *tp_chosen_list(unsigned mask, char *buf, size_t n)
{
    size_t k = 0;
    if (!n)
        return buf;
    buf[0] = '\0';
    for (int f = 0; f < TP_NFIELDS; f++)
        if (mask & (1u << f) && k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? "," : "",
                                  field_names[f]);
    return buf;
}
