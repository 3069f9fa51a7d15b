/* models/throughput.c: the step-time model of throughput.h.
 *
 * One evaluation walks the layer kinds of one pipeline stage once: for each
 * kind it sums roofline GEMM times (forward; backward = 2x forward, dgrad +
 * wgrad), attention and scan times, and the bytes each collective moves,
 * then combines them per micro-batch and per step. Ranks are ordered
 * tp-cp-ep-dp-pp (Megatron's default), so a group of size g and stride st
 * spans g*st consecutive ranks and stays inside one NVLink domain when
 * g*st <= nvlink_domain. Choosing a layout enumerates a fixed grid in a fixed
 * order and keeps the first fastest one that fits in HBM, so the choice is
 * reproducible. See docs/throughput-model.md for every equation.
 */
#include "models/throughput.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/flops.h"
#include "models/throughput_int.h"

/* Assumptions (docs/throughput-model.md §4), user-overridable through the
 * calibration file or the query where noted. */
#define TP_NVLINK_LAT_S 3e-6   /* assumption: NVLink collective step */
#define TP_SCALEOUT_LAT_S 8e-6 /* assumption: RDMA collective step */
/* assumption: scale-out bandwidth of a GPU without a NIC figure */
#define TP_DEFAULT_SCALEOUT_BPS 400e9
#define TP_OPT_BYTES 30.0 /* assumption: Adam bytes moved per param */
#define TP_HBM_FILL                                                            \
    0.9 /* assumption: usable fraction of HBM (the                             \
           reserve: CUDA context, NCCL buffers, allocator                      \
           fragmentation) */
/* Assumptions: no dropout (the Megatron-Bridge recipes of every catalog
 * model set hidden_dropout = attention_dropout = 0), so no masks; fused
 * (flash) attention, so no s x s scores (§7). */
#define TP_ACT_FLAGS 0u
#define TP_TOKENS_PER_STEP 4194304.0 /* assumption: default batch, tokens */
#define TP_Z80 1.2815515655446004    /* standard normal 90% quantile */

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
    {"ovl_dp", "fraction"},
    {"ovl_pp", "fraction"},
    {"bw_nvlink", "fraction"},
    {"bw_scaleout", "fraction"},
    {"t_moe_layer_s", "s"},
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
    m->p[TP_ETA_ATTN] = 0.45;
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
    m->p[TP_OVL_DP] = 0.9;
    m->p[TP_OVL_PP] = 0.8;
    m->p[TP_BW_NVLINK] = 0.7;
    m->p[TP_BW_SCALEOUT] = 0.8;
    m->p[TP_T_MOE_LAYER] = 200e-6;
    m->sigma_log[0] = m->sigma_log[1] = m->sigma_log[2] = 0.15;
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

int tp_model_gpu(const tp_model *m, const char *name)
{
    for (int i = 0; i < m->n_gpus; i++)
        if (strcasecmp(m->gpus[i], name) == 0)
            return i;
    return -1;
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

/* Rates and constants of one evaluation. */
typedef struct ev {
    double rate;   /* GEMM FLOP/s at saturation */
    double rate16; /* BF16 peak [FLOP/s] (attention, scan) */
    double bw;     /* achieved HBM bandwidth [B/s] */
    double eb;     /* bytes per operand element incl. quantization */
    double sat;    /* half-saturation dimension */
    double elem;   /* elementwise passes per output element */
} ev;

/* Forward time of an M x K x N GEMM (M tokens) [s]: roofline sum of compute
 * at saturated efficiency and operand/result traffic. */
static double gemm_t(const ev *e, double M, double K, double N)
{
    double sat = 1.0 / (1.0 + e->sat / M + e->sat / N);
    double bytes = (M * K + K * N) * e->eb + M * N * 2.0 * (1.0 + e->elem);
    return 2.0 * M * K * N / (e->rate * sat) + bytes / e->bw;
}

static double log2d(double x)
{
    return x > 1 ? log(x) / log(2.0) : 0.0;
}

/* Smooth-free overlap: the overlapped part of t hides behind window. */
static double exposed(double t, double ovl, double window)
{
    double hide = ovl * t;
    if (hide > window)
        hide = window;
    return t - hide;
}

/* Time of a collective moving vol bytes per GPU (ring volume) over a group
 * of g ranks with stride st. Inside one NVLink domain it runs on NVLink;
 * across domains it is hierarchical (NCCL's intra-domain reduce-scatter,
 * inter-domain exchange of a 1/k shard, intra-domain all-gather), k being
 * the group members per domain, so scale-out carries vol / k. */
static double coll_t(double vol, int g, int st, int domain, double nvl,
                     double so, double lat_so, int steps)
{
    double k;
    if (g <= 1)
        return 0.0;
    if ((double)g * st <= domain)
        return vol / nvl + steps * TP_NVLINK_LAT_S;
    k = (double)domain / st;
    if (k < 1)
        k = 1;
    if (k > g)
        k = g;
    return (k > 1 ? vol / nvl : 0.0) + vol / k / so + steps * lat_so;
}

/* All-to-all over g consecutive ranks (stride 1): peers inside the domain
 * over NVLink, the rest over scale-out, concurrently. */
static double a2a_t(double vol, int g, int domain, double nvl, double so,
                    double lat_so)
{
    double f_loc, tl, tr;
    if (g <= 1)
        return 0.0;
    if (g <= domain)
        return vol / nvl + TP_NVLINK_LAT_S;
    f_loc = (double)domain / g;
    tl = vol * f_loc / nvl;
    tr = vol * (1.0 - f_loc) / so;
    return (tl > tr ? tl : tr) + lat_so;
}

static int fail(tp_result *out, int code, const char *msg, int a, int b)
{
    snprintf(out->why, sizeof out->why, msg, a, b);
    return code;
}

/* ---- layout fields, names ---- */

static const char *const field_names[TP_NFIELDS] = {
    "tp", "pp", "vp", "cp", "ep", "mbs", "recompute", "distributed_optimizer"};

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

/* ---- memory model (docs/throughput-model.md §7) ----
 *
 * Activation bytes per token and layer follow Korthikanti et al. 2022
 * ("Reducing Activation Recomputation in Large Transformer Models", §4 and
 * Table 2), written per block so that they hold for GQA, MLA, gated MLPs,
 * MoE and Mamba: a block stores its norm's input (2h), its first GEMM's
 * input (the norm's output) and, with dropout, a 1-byte mask, which tensor
 * parallelism does not split unless sequence parallelism is on, plus 2 bytes
 * per element of every tensor kept inside the block, which it does. For
 * MHA with F = 4h this is their 34h + 5as (attention 11h + 5as plus 2h of
 * layer norm, MLP 19h plus 2h), where 5as is the s x s attention scores,
 * softmax and its dropout mask.
 *
 * What Megatron-LM with Transformer Engine stores differs in three ways,
 * all modelled:
 *  - Fused (flash) attention, the default of every calibrated recipe,
 *    never materialises the s x s scores: the 5as term is absent even
 *    without recomputation (Dao et al. 2022, §3.1; Korthikanti's selective
 *    recomputation is what it does). TP_ACT_UNFUSED_ATTN restores it.
 *  - Selective recomputation is Megatron's output-discarding modules
 *    (transformer_config.py recompute_modules): "layernorm" (the norms
 *    that are separate modules: the MoE pre-MLP norm, which the router
 *    shares with the experts, and the MLA input norm; the others are
 *    fused into their first GEMM by TE's LayerNormLinear and keep their
 *    output for the weight gradient), "moe_act" (the experts' activation
 *    output, fc2's input) and "mla_up_proj" (MLA's Q, K, V, recomputed
 *    from the latents), the modules the Megatron-Bridge MoE recipes set.
 *    For a dense GQA model it stores what "none" stores.
 *  - Full recomputation keeps only each layer's input (2h/t per token with
 *    SP) plus one layer's working set. */

/* Activation bytes per token of one average layer [B]; sp = sequence
 * parallel; s = tokens of a sequence on this GPU (seq / cp); gi = bytes per
 * stored GEMM input element (2 in BF16; 1 when Transformer Engine keeps
 * the FP8 copy it casts for the weight-gradient GEMM); flags TP_ACT_*. */
double tp_act_bytes_per_token(const llm_arch *a, const llm_layers *nl, int tp,
                              int sp, int recompute, double s, double gi,
                              unsigned flags)
{
    double h = a->hidden_size, hd = flops_head_dim(a),
           nh = a->num_attention_heads, g = a->gated_linear_unit ? 2 : 1;
    double L = nl->total > 0 ? nl->total : 1, t = tp, rep = 0, shard = 0,
           scores = 0;
    int sel =
        recompute == TP_RECOMPUTE_SELECTIVE || recompute == TP_RECOMPUTE_CHOOSE;
    /* Outside the GEMMs each block keeps its norm's input (2h, bf16), its
     * first GEMM's input (gi h; gathered without SP) and, with dropout, its
     * output mask (h); a separate norm's output is dropped by selective
     * recomputation ("layernorm"). */
    double drop = flags & TP_ACT_DROPOUT ? h : 0;
    double blk = 2 * h + gi * h + drop, blk_sep = sel ? 2 * h + drop : blk;
    if (nl->attn > 0) {
        double in;
        if (a->kv_lora_rank > 0) {
            double dqk = hd + FLOPS_MLA_ROPE_DIM;
            /* Q and K (qk dims) and V for the fused attention unless
             * "mla_up_proj" recomputes them, the output projection's input,
             * the latent q and kv inputs of the up-projections. */
            in = (sel ? 0 : 2 * (2 * nh * dqk + nh * hd)) + gi * nh * hd +
                 gi * (a->q_lora_rank + a->kv_lora_rank);
            rep += nl->attn * blk_sep;
        } else {
            double qw = nh * hd, kvw = flops_kv_heads(a) * hd;
            /* Q, K, V (bf16, Korthikanti's 4sbh + 2sbh) and the output
             * projection's input (his 2sbh). */
            in = 2 * (qw + 2 * kvw) + gi * qw;
            rep += nl->attn * blk;
        }
        shard += nl->attn * in;
        /* scores 2as, softmax 2as, its dropout mask as (Korthikanti), kept
         * only by an unfused attention without recomputation */
        if (flags & TP_ACT_UNFUSED_ATTN && recompute == TP_RECOMPUTE_NONE)
            scores += nl->attn * 5 * nh * s;
    }
    if (nl->dense > 0) {
        double F = a->ffn_hidden_size;
        rep += nl->dense * blk;
        shard += nl->dense * (2 * g * F + gi * F); /* fc1 out, fc2 in */
    }
    if (nl->moe > 0) {
        double k = a->experts_per_token,
               w = a->moe_latent_size > 0 ? a->moe_latent_size : h,
               Fm = a->moe_ffn_hidden_size,
               Fs = a->shared_expert_ffn_hidden_size;
        rep += nl->moe * blk_sep;
        /* k token copies routed (balanced), each an expert input and its
         * fc1 output and fc2 input (the activation's output, recomputed by
         * "moe_act"); the shared expert like a dense MLP. */
        shard += nl->moe * (k * (gi * w + 2 * g * Fm + (sel ? 0 : gi * Fm)) +
                            (Fs > 0 ? 2 * g * Fs + gi * Fs : 0));
    }
    if (nl->mamba > 0) {
        double din = flops_mamba_d_inner(a), Ns = flops_mamba_state(a);
        double nhm = a->mamba_num_heads > 0 ? a->mamba_num_heads : din / 64;
        rep += nl->mamba * blk;
        shard +=
            nl->mamba * (2 * (2 * din + 2 * FLOPS_MAMBA_GROUPS * Ns + nhm) +
                         2 * din + gi * din);
    }
    if (recompute == TP_RECOMPUTE_FULL)
        return 2.0 * h / (sp ? t : 1.0);
    return (rep / (sp ? t : 1.0) + (shard + scores) / t) / L;
}

/* Micro-batches whose activations pipeline rank r (0 first .. pp-1 last)
 * holds at the peak of the schedule (Narayanan et al. 2021 §2.2;
 * Megatron-LM schedules.py, warm-up counts): 1F1B holds min(pp - r, m);
 * the interleaved schedule warms up (pp - r - 1) * 2 + (vp - 1) * pp + 1
 * chunks of 1/vp stage each, i.e. pp + (pp-1)/vp stages' worth on the first
 * rank (Megatron's 1 + (pp-1)/(pp vp) penalty, theoretical_memory_usage.py)
 * and pp - (pp-1)/vp on the last. Never more than the m micro-batches. */
double tp_inflight(int pp, int vp, int m, int r)
{
    double x;
    if (pp <= 1)
        x = 1;
    else if (vp <= 1)
        x = pp - r;
    else
        x = ((pp - r - 1) * 2.0 + (vp - 1.0) * pp + 1.0) / vp;
    return x < m ? x : m;
}

/* Transformer layers per pipeline stage when the split is uneven
 * (docs/throughput-model.md §7): the last stage also runs the output layer
 * (cost t_out in the unit of one average layer's time t_lay), the others
 * split the rest as evenly as integers allow, which Megatron expresses with
 * num_layers_in_last_pipeline_stage (or account_for_loss_in_pipeline_split
 * when the output layer costs about one layer). Returns the bottleneck
 * stage's time in layers (n of the fullest other stage in *n_other, the
 * last stage's in *n_last; among equal bottlenecks the most even split,
 * i.e. the largest n_last). The other stages hold ceil or floor of
 * (L - n_last)/(pp - 1). O(L/pp). */
double tp_stage_split(int L, int pp, double out_layers, int *n_other,
                      int *n_last)
{
    double best = 1e300;
    if (pp <= 1) {
        *n_other = *n_last = L;
        return L + out_layers;
    }
    *n_other = *n_last = 0;
    for (int nl = 0; nl <= L; nl++) {
        int no = (L - nl + pp - 2) / (pp - 1);
        double t = no > nl + out_layers ? no : nl + out_layers;
        /* Ties go to the larger last stage: the most even split. */
        if (t <= best) {
            best = t;
            *n_other = no;
            *n_last = nl;
        }
        if (nl + out_layers > best)
            break;
    }
    return best;
}

/* What one (tp, pp, cp, ep, mbs, recompute, distopt, fsdp) costs, before
 * vp is fixed: vp only scales the pipeline sends (linearly), divides the
 * bubble and sets the in-flight activations, so the chooser evaluates this
 * once and every vp in a few flops (stage_combine). */
typedef struct stagec {
    int pp, micro, dp_cross;
    double t_mb; /* compute of one micro-batch on the bottleneck stage */
    double t_tp, t_cp, t_ep; /* exposed, per micro-batch */
    double t_pp1; /* exposed pipeline sends per micro-batch at vp = 1 */
    double t_dp, t_dp_raw, t_opt;
    /* Memory of the first rank, the fullest middle one (rank 1) and the
     * last: weights, grads and optimizer state; activations of one
     * micro-batch; one-off activation buffers [B]. */
    double states_first, states_mid, states_last;
    double act_first, act_mid, act_last;
    double fix_first, fix_mid, fix_last;
    int n_first, n_mid, n_last, n_min; /* layers: first, fullest middle,
                                          last, fewest (a stage but the
                                          last) */
} stagec;

/* Bytes per parameter of mixed-precision Adam with 16-bit gradient
 * buffers (bf16 weight 2 + bf16 grad 2 + fp32 main grad, master, m and v
 * 16), by sharding over a DP group of g ranks: 20, or 4 + 16/g with the
 * distributed optimizer (Megatron-LM docs/user-guide/features/
 * dist_optimizer.md, "16-bit parameters, 16-bit gradients"); FSDP shards
 * all 20 (ZeRO-3). Assumption: gradients are reduced in bf16, as every
 * Megatron-Bridge benchmark recipe sets (perf_recipes/_common.py,
 * grad_reduce_in_fp32 = False); fp32 gradients would be Megatron's 18 or
 * 6 + 12/g (theoretical_memory_usage.py). */
static double bytes_per_param(int distopt, int fsdp, int g)
{
    if (g < 1)
        g = 1;
    if (fsdp)
        return 20.0 / g;
    return distopt == TP_DISTOPT_ON ? 4.0 + 16.0 / g : 20.0;
}

/* Evaluates ly without vp; fills *sc. ly's fields are all >= 1 here. */
static int stage_costs(const tp_model *m, const tp_query *q,
                       const tp_layout *ly, int gbs, int seq, double relf,
                       double gpuf, stagec *sc, tp_result *out)
{
    const gpu_spec *g = q->gpu;
    const llm_arch *a = q->llm;
    const double *p = m->p;
    llm_layers nl;
    ev e;
    int N = q->n_gpus, tp = ly->tp, pp = ly->pp, cp = ly->cp, mbs = ly->mbs;
    int ep = a->cls == LLM_DENSE || a->num_experts <= 0 ? 1 : ly->ep;
    int dp, domain = g->nvlink_domain > 0 ? g->nvlink_domain : 8, micro, L;
    double h = a->hidden_size, hd = flops_head_dim(a),
           nh = a->num_attention_heads, V = flops_vocab(a);
    double qw = nh * hd, kvw = flops_kv_heads(a) * hd,
           glu = a->gated_linear_unit ? 2 : 1;
    double T, Ts, fwd = 0, core_all = 0, t_core, nvl, so, so_dp, lat_dp,
                  f_up = 0 /* MLA up-projections, forward */;
    double vol_tp = 0 /* collectives, then bytes */, vol_cp = 0, vol_ep = 0,
           t_tp, t_cp, t_ep, t_pp, t_out, t_lay, t_rec = 0, frac, stage_l;
    double Pd, Pe, Pl_d, Pl_e, Pd_loc, Pe_loc, t_dp_d, t_dp_e, t_dp, t_opt;
    int fmt = q->prec.fmt, nf, nlast, n1;
    /* Stored GEMM inputs: FP8 copies under a quantized recipe. */
    double gin = q->prec.recipe == PREC_BF16 ? 2.0 : 1.0;
    double cs = q->comm_slowdown > 0 ? q->comm_slowdown : 1.0; /* comm factor */
    double qb = q->prec.recipe == PREC_FP8_TENSOR  ? p[TP_Q_FP8T]
                : q->prec.recipe == PREC_FP8_BLOCK ? p[TP_Q_FP8B]
                : q->prec.recipe == PREC_NVFP4     ? p[TP_Q_FP4]
                                                   : 0.0;

    if (tp < 1 || pp < 1 || cp < 1 || ep < 1 || mbs < 1)
        return fail(out, SIM_EINVAL, "layout sizes must be >= 1", 0, 0);
    if (N % (tp * pp * cp))
        return fail(out, SIM_EINVAL, "tp*pp*cp = %d does not divide %d GPUs",
                    tp * pp * cp, N);
    dp = N / (tp * pp * cp);
    if (ep > 1 && (N / pp) % ep)
        return fail(out, SIM_EINVAL,
                    "ep = %d does not divide %d GPUs per stage", ep, N / pp);
    if (gbs % (dp * mbs))
        return fail(out, SIM_EINVAL,
                    "gbs is not a multiple of dp*mbs = %d (dp %d)", dp * mbs,
                    dp);
    if (seq % cp)
        return fail(out, SIM_EINVAL, "seq_len is not a multiple of cp = %d", cp,
                    0);
    micro = gbs / (dp * mbs);

    e.rate = g->peak_flops[fmt] * p[TP_ETA_BF16 + fmt] * gpuf;
    e.rate16 = g->peak_flops[NUM_BF16];
    e.bw = g->hbm_Bps * p[TP_ETA_HBM];
    e.eb = precision_elem_bytes((num_fmt)fmt) + qb;
    e.sat = p[TP_GEMM_SAT];
    e.elem = p[TP_ELEM_PASSES];
    nvl = g->nvlink_Bps * p[TP_BW_NVLINK];
    so = (g->scaleout_bps > 0 ? g->scaleout_bps : TP_DEFAULT_SCALEOUT_BPS) /
         8.0 * p[TP_BW_SCALEOUT];
    so_dp = q->dp_link_bps > 0 ? q->dp_link_bps / 8.0 * p[TP_BW_SCALEOUT] : so;
    lat_dp = q->dp_link_latency_s > 0 ? q->dp_link_latency_s : m->dp_latency_s;

    flops_layers(a, q->layers_run, &nl);
    L = (int)(nl.total + 0.5);
    if (L < 1)
        L = 1;
    if (pp > L)
        return fail(out, SIM_EINVAL, "pp = %d exceeds the %d layers", pp, L);
    T = (double)mbs * seq / cp; /* tokens per micro-batch per GPU */
    Ts = T / tp;                /* sequence-parallel share */

    /* Forward times and collective counts of ALL layers; the stage's share
     * follows from the split below. */
    if (nl.attn > 0) {
        double f = 0, core;
        if (a->kv_lora_rank > 0) {
            double dqk = hd + FLOPS_MLA_ROPE_DIM;
            if (a->q_lora_rank > 0)
                f += gemm_t(&e, T, h, a->q_lora_rank) +
                     gemm_t(&e, T, a->q_lora_rank, nh * dqk / tp);
            else
                f += gemm_t(&e, T, h, nh * dqk / tp);
            f += gemm_t(&e, T, h, a->kv_lora_rank + FLOPS_MLA_ROPE_DIM) +
                 gemm_t(&e, T, a->kv_lora_rank, nh * (hd + hd) / tp) +
                 gemm_t(&e, T, nh * hd / tp, h);
            f_up = gemm_t(&e, T, a->kv_lora_rank, nh * (hd + hd) / tp) +
                   (a->q_lora_rank > 0
                        ? gemm_t(&e, T, a->q_lora_rank, nh * dqk / tp)
                        : 0.0);
            core = 2.0 * T * (seq / 2.0) * nh * (dqk + hd) / tp;
            kvw = nh * (dqk + hd) / 2.0;
        } else {
            f += gemm_t(&e, T, h, (qw + 2 * kvw) / tp) +
                 gemm_t(&e, T, qw / tp, h);
            core = 2.0 * T * (seq / 2.0) * nh * 2 * hd / tp;
        }
        core_all = nl.attn * core / (p[TP_ETA_ATTN] * e.rate16);
        fwd += nl.attn * f + core_all;
        vol_tp += nl.attn * 4.0;
        vol_cp += nl.attn * 3.0 * (cp - 1) * T * 2 * kvw / tp * 2.0;
    }
    if (nl.dense > 0) {
        double F = a->ffn_hidden_size;
        fwd += nl.dense *
               (gemm_t(&e, T, h, glu * F / tp) + gemm_t(&e, T, F / tp, h));
        vol_tp += nl.dense * 4.0;
    }
    /* MoE blocks: sequence-parallel tokens are dispatched to E/ep local
     * experts each (balanced routing, as the benchmarks force). */
    if (nl.moe > 0) {
        double E = a->num_experts > 0 ? a->num_experts : 1,
               k = a->experts_per_token;
        double w = a->moe_latent_size > 0 ? a->moe_latent_size : h;
        double Fm = a->moe_ffn_hidden_size,
               Fs = a->shared_expert_ffn_hidden_size;
        double nloc = E / ep, Me = Ts * k * ep / E, f;
        f = gemm_t(&e, Ts, h, E);
        if (Fs > 0)
            f += gemm_t(&e, T, h, glu * Fs / tp) + gemm_t(&e, T, Fs / tp, h);
        if (a->moe_latent_size > 0)
            f += gemm_t(&e, Ts, h, w) + gemm_t(&e, Ts, w, h);
        f += nloc * (gemm_t(&e, Me, w, glu * Fm) + gemm_t(&e, Me, Fm, w));
        f += p[TP_MOE_PERM] * Ts * k * w * 2.0 / e.bw;
        fwd += nl.moe * f;
        if (Fs > 0)
            vol_tp += nl.moe * 4.0;
        vol_ep += nl.moe * 4.0 * Ts * k * w * 2.0 * (ep - 1) / ep;
    }
    if (nl.mamba > 0) {
        double din = flops_mamba_d_inner(a), Ns = flops_mamba_state(a);
        double nhm = a->mamba_num_heads > 0 ? a->mamba_num_heads : din / 64;
        double scan = 7.0 * T * din / tp * Ns;
        fwd += nl.mamba *
               (gemm_t(&e, T, h,
                       (2 * din + 2 * FLOPS_MAMBA_GROUPS * Ns + nhm) / tp) +
                gemm_t(&e, T, din / tp, h) + scan / (p[TP_ETA_SSM] * e.rate16));
        vol_tp += nl.mamba * 4.0;
    }
    /* Recomputation repeats forward work in the backward pass: full the
     * whole layer; selective the MLA up-projection GEMMs ("mla_up_proj").
     * Its other modules (norms, the experts' activation) are elementwise
     * passes, a small part of the fitted per-layer time, and the fused
     * attention kernels every calibrated row ran recompute the scores in
     * their backward pass anyway (inside the fitted eta_attn). */
    if (ly->recompute == TP_RECOMPUTE_FULL)
        t_rec = fwd;
    else if (ly->recompute == TP_RECOMPUTE_SELECTIVE)
        t_rec = nl.attn * f_up;

    /* One average layer and the output layer, forward + backward [s]. */
    t_lay = (3.0 * fwd + t_rec + nl.total * p[TP_T_LAYER] +
             nl.moe * p[TP_T_MOE_LAYER]) /
            L * relf;
    t_out = 3.0 * gemm_t(&e, T, h, V / tp) * relf;
    stage_l = tp_stage_split(L, pp, t_out / t_lay, &nf, &nlast);
    /* The bottleneck stage sets the pipeline's pace; its collectives are
     * its share of the layers (the fullest stage's layer count). */
    frac = (double)(nf > nlast ? nf : nlast) / L;
    sc->t_mb = stage_l * t_lay;
    t_core = core_all * 3.0 * frac * relf;

    /* Tensor parallel: AG + RS of the T x h activation per collective. */
    vol_tp *= frac;
    t_tp = tp > 1 ? coll_t(vol_tp * T * h * 2.0 * (tp - 1) / tp, tp, 1, domain,
                           nvl, so, m->dp_latency_s, (int)(vol_tp + 0.5))
                  : 0.0;
    sc->t_tp = exposed(t_tp * cs, p[TP_OVL_TP], 1e300);
    t_cp = cp > 1
               ? coll_t(vol_cp * frac, cp, tp, domain, nvl, so, m->dp_latency_s,
                        (int)(3 * (cp - 1) * nl.attn * frac))
               : 0.0;
    sc->t_cp = exposed(t_cp * cs, p[TP_OVL_CP], t_core);
    t_ep = ep > 1 ? a2a_t(vol_ep * frac, ep, domain, nvl, so, m->dp_latency_s)
                  : 0.0;
    /* The overlapped all-to-all hides behind at most one micro-batch's
     * compute (the other micro-batch in flight, 1F1B EP overlap). */
    sc->t_ep = exposed(t_ep * cs, p[TP_OVL_EP], sc->t_mb);
    /* Pipeline point-to-point: 2 sends per virtual stage per micro-batch,
     * so linear in vp (stage_combine multiplies). */
    t_pp = 0.0;
    if (pp > 1) {
        int st = N / pp;
        double vol = 2.0 * Ts * h * 2.0;
        t_pp = st >= domain ? vol / so + 2 * m->dp_latency_s
                            : vol / nvl + 2 * TP_NVLINK_LAT_S;
        t_pp = exposed(t_pp * cs, p[TP_OVL_PP], 1e300);
    }
    sc->t_pp1 = t_pp;

    /* Data parallel: RS of gradients + AG of parameters (2 bytes each),
     * dense params over dp*cp ranks (stride tp), experts over N/(pp*ep). */
    flops_params(a, q->layers_run, &Pd, &Pe);
    Pd_loc = Pd / (tp * pp);
    Pe_loc = Pe / (ep * pp);
    Pl_d = (Pd - 2.0 * h * V) / L; /* per layer, embeddings apart */
    Pl_e = Pe / L;
    {
        int gd = dp * cp, ge = N / (pp * ep);
        double fs = ly->fsdp ? 1.5 : 1.0;
        double vd = fs * 2.0 * (gd - 1) / (gd > 0 ? gd : 1) * Pd_loc * 2.0;
        double ve = fs * 2.0 * (ge - 1) / (ge > 0 ? ge : 1) * Pe_loc * 2.0;
        double bd = bytes_per_param(ly->distopt, ly->fsdp, gd),
               be = bytes_per_param(ly->distopt, ly->fsdp, ge);
        double act_tok = tp_act_bytes_per_token(
            a, &nl, tp, tp > 1, ly->recompute, seq / cp, gin, TP_ACT_FLAGS);
        t_dp_d = coll_t(vd, gd, tp, domain, nvl, so_dp, lat_dp,
                        (int)(2 * log2d(gd)));
        t_dp_e = Pe > 0 ? coll_t(ve, ge, ep, domain, nvl, so_dp, lat_dp,
                                 (int)(2 * log2d(ge)))
                        : 0.0;
        sc->dp_cross = (double)N / pp > domain && (gd > 1 || ge > 1);
        t_dp = (t_dp_d + t_dp_e) * cs;
        sc->t_dp_raw = t_dp;
        sc->t_dp = exposed(t_dp, p[TP_OVL_DP], sc->t_mb);
        /* Adam reads and writes its state once per step: the local shard
         * with the distributed optimizer (or FSDP), everything without. */
        t_opt = ly->distopt == TP_DISTOPT_ON || ly->fsdp
                    ? Pd_loc / gd + Pe_loc / ge
                    : Pd_loc + Pe_loc;
        sc->t_opt = t_opt * TP_OPT_BYTES / e.bw * relf;
        /* Stage memory: its layers' dense (/tp) and expert (/ep) weights
         * with their gradients and optimizer state, the input embedding on
         * the first stage and the output layer on the last (untied, V x h
         * each, /tp); FSDP also holds the gathered weights of two layers
         * (the one computing and the one prefetched). */
        double per_l = Pl_d / tp * bd + Pl_e / ep * be,
               gath = ly->fsdp ? 2 * 2.0 * (Pl_d / tp + Pl_e / ep) : 0;
        /* The first rank holds the most micro-batches in flight, so when
         * the other stages do not split evenly it takes the floor and the
         * middle ranks the ceiling (no slower: the bottleneck is the
         * ceiling either way). Megatron expresses this with
         * account_for_embedding_in_pipeline_split or
         * num_layers_in_first_pipeline_stage; the Llama 3.1 405B recipes
         * set the former. */
        n1 = pp > 1 ? (L - nlast) / (pp - 1) : L;
        sc->states_first = n1 * per_l + h * V / tp * bd + gath;
        sc->states_mid = nf * per_l + gath;
        sc->states_last = nlast * per_l + h * V / tp * bd + gath;
        if (pp == 1)
            sc->states_first = sc->states_last += h * V / tp * bd;
        sc->act_first = n1 * act_tok * T;
        sc->act_mid = nf * act_tok * T;
        sc->act_last = nlast * act_tok * T;
        /* One-off buffers: the embedding's input ids (8 B) and output
         * dropout mask per token per micro-batch in flight are small and
         * folded into fix_first as one micro-batch; the last stage holds
         * one micro-batch's output-layer input and fp32 logits, 4(h + V)/tp
         * per token (Megatron's accounting); full recomputation rebuilds
         * one layer at a time, which needs that layer's working set. */
        sc->fix_first = T * (8.0 + h / tp);
        sc->fix_mid = 0;
        sc->fix_last = T * 4.0 * (h + V) / tp;
        if (ly->recompute == TP_RECOMPUTE_FULL) {
            double w = tp_act_bytes_per_token(a, &nl, tp, tp > 1,
                                              TP_RECOMPUTE_SELECTIVE, seq / cp,
                                              gin, TP_ACT_FLAGS);
            sc->fix_first += w * T;
            sc->fix_mid += w * T;
            sc->fix_last += w * T;
        }
    }
    sc->pp = pp;
    sc->micro = micro;
    sc->n_first = n1;
    sc->n_mid = nf;
    sc->n_last = nlast;
    sc->n_min = pp > 1 ? (L - nlast) / (pp - 1) : L;
    return SIM_OK;
}

/* Peak HBM of the fullest of the first, middle (rank 1) and last ranks
 * with vp [B]; the weights' and activations' parts of it in *states, *act. */
static double stage_mem(const stagec *sc, int vp, double *states, double *act)
{
    double st[3], ac[3], best = -1;
    int n = 0;
    if (sc->pp == 1) {
        st[n] = sc->states_first;
        ac[n++] = sc->act_first + sc->fix_first + sc->fix_last;
    } else {
        st[n] = sc->states_first;
        ac[n++] = sc->act_first * tp_inflight(sc->pp, vp, sc->micro, 0) +
                  sc->fix_first;
        if (sc->pp > 2) {
            st[n] = sc->states_mid;
            ac[n++] = sc->act_mid * tp_inflight(sc->pp, vp, sc->micro, 1) +
                      sc->fix_mid;
        }
        st[n] = sc->states_last;
        ac[n++] =
            sc->act_last * tp_inflight(sc->pp, vp, sc->micro, sc->pp - 1) +
            sc->fix_last;
    }
    for (int k = 0; k < n; k++)
        if (st[k] + ac[k] > best) {
            best = st[k] + ac[k];
            *states = st[k];
            *act = ac[k];
        }
    return best;
}

/* Step time with vp [s] (Narayanan et al. 2021 §2.2: the interleaved
 * bubble is (pp-1)/vp micro-batch times, (pp-1)/(vp m) of the ideal). */
static double stage_step(const stagec *sc, int vp)
{
    double per = sc->t_mb + sc->t_tp + sc->t_cp + sc->t_ep + vp * sc->t_pp1;
    return sc->micro * per + (sc->pp - 1) / (double)vp * per + sc->t_dp +
           sc->t_opt;
}

static void stage_fill(const stagec *sc, const tp_layout *ly, double usable,
                       tp_result *out)
{
    int vp = ly->vp;
    double per = sc->t_mb + sc->t_tp + sc->t_cp + sc->t_ep + vp * sc->t_pp1;
    out->layout = *ly;
    out->microbatches = sc->micro;
    out->t_compute_s = sc->micro * sc->t_mb;
    out->t_tp_s = sc->micro * sc->t_tp;
    out->t_cp_s = sc->micro * sc->t_cp;
    out->t_ep_s = sc->micro * sc->t_ep;
    out->t_pp_s = sc->micro * vp * sc->t_pp1;
    out->t_bubble_s = (sc->pp - 1) / (double)vp * per;
    out->t_dp_s = sc->t_dp;
    out->t_dp_raw_s = sc->t_dp_raw;
    out->t_optimizer_s = sc->t_opt;
    out->dp_crosses_scaleout = sc->dp_cross;
    out->mem_bytes_per_gpu =
        stage_mem(sc, vp, &out->mem_states_bytes, &out->mem_act_bytes);
    out->mem_usable_bytes = usable;
    out->fits = usable <= 0 || out->mem_bytes_per_gpu <= usable;
    out->layers_first = sc->n_first;
    out->layers_last = sc->n_last;
    out->layers_min = sc->n_min;
    out->step_time_s = out->t_compute_s + out->t_tp_s + out->t_cp_s +
                       out->t_ep_s + out->t_pp_s + out->t_bubble_s +
                       out->t_dp_s + out->t_optimizer_s;
}

/* ---- the chooser (docs/throughput-model.md §7) ----
 *
 * Candidates per field: the given value, else tp in {1,2,4,8} (<= the
 * NVLink domain and the heads), cp in {1,2,4,8,16,32} with seq/cp >= 4096,
 * pp every divisor of N/(tp cp) up to min(layers, 128), ep every divisor of
 * the experts dividing N/pp (1 for dense), mbs in {1,2,4,8,16} dividing
 * gbs/dp, vp 1..min(layers/pp, 64) (interleaving needs m >= pp), recompute
 * none/selective/full, distributed optimizer on/off. Exhaustive over that
 * space but for two prunings that cannot lose the optimum:
 *  - the distributed optimizer is never slower (same DP volume, Adam on a
 *    1/g shard) and never larger, so "off" is only tried when given;
 *  - recompute none <= selective <= full in time at every vp, so a slower
 *    mode is skipped once a faster one fits at every vp (memory only
 *    decides fitting; full is not always the smallest: with one layer per
 *    stage its working set can exceed selective's).
 * vp costs a few flops each (stage_step), the rest one stage_costs. */

#define TP_VP_MAX 64
#define TP_PP_MAX 128

typedef struct search {
    const tp_model *m;
    const tp_query *q;
    int gbs, seq;
    double relf, gpuf, usable;
    int found;
    double best_t;
    stagec best_sc;
    tp_layout best;
    /* least-memory fallback of a fully given parallel layout */
    int have_min;
    double min_mem;
    stagec min_sc;
    tp_layout min_ly;
} search;

/* Tries every recompute mode and vp of one (tp, pp, cp, ep, mbs). */
static void try_layout(search *S, tp_layout ly, int L)
{
    const tp_layout *g = &S->q->layout;
    int rc_lo = g->recompute ? g->recompute : TP_RECOMPUTE_NONE,
        rc_hi = g->recompute ? g->recompute : TP_RECOMPUTE_FULL;
    int vmax, vlo;
    tp_result scratch;
    ly.distopt = g->distopt ? g->distopt : TP_DISTOPT_ON;
    if (ly.pp == 1) {
        if (g->vp > 1)
            return;
        vlo = vmax = 1;
    } else if (g->vp) {
        vlo = vmax = g->vp;
    } else {
        vlo = 1;
        vmax = L / ly.pp < TP_VP_MAX ? L / ly.pp : TP_VP_MAX;
        if (vmax < 1)
            vmax = 1;
    }
    for (int rc = rc_lo; rc <= rc_hi; rc++) {
        stagec sc;
        int all_fit = 1;
        ly.recompute = rc;
        if (stage_costs(S->m, S->q, &ly, S->gbs, S->seq, S->relf, S->gpuf, &sc,
                        &scratch) != SIM_OK)
            return;
        for (int vp = vlo; vp <= vmax; vp++) {
            double st, ac, mem, t;
            /* A chosen vp needs a micro-batch per stage (interleaving) and
             * a layer per virtual chunk (the output layer may fill one on
             * the last stage). */
            if (vp > 1 && !g->vp &&
                (sc.micro < ly.pp || vp > sc.n_min || vp > sc.n_last + 1))
                break;
            mem = stage_mem(&sc, vp, &st, &ac);
            if (!S->have_min || mem < S->min_mem) {
                S->have_min = 1;
                S->min_mem = mem;
                S->min_sc = sc;
                S->min_ly = ly;
                S->min_ly.vp = vp;
            }
            if (S->usable > 0 && mem > S->usable) {
                all_fit = 0;
                continue;
            }
            t = stage_step(&sc, vp);
            if (!S->found || t < S->best_t) {
                S->found = 1;
                S->best_t = t;
                S->best_sc = sc;
                S->best = ly;
                S->best.vp = vp;
            }
        }
        if (all_fit)
            break;
    }
}

static int is_divisor(int d, int n)
{
    return d >= 1 && n % d == 0;
}

/* The predictive log-sd of a prediction (throughput.h): the one
 * definition the 80% interval below and the site's per-replication
 * throughput draw (models/site.c) share, so a range from `run` and an
 * interval from `predict` can never disagree about the spread. */
double tp_log_sd(const tp_model *m, const llm_arch *a, const tp_result *r)
{
    int cls = a ? (int)a->cls : 0;
    double sd;
    if (cls < 0 || cls >= TP_NCLASS)
        cls = 0;
    sd = m->sigma_log[cls];
    if (r->extrapolated)
        sd = sqrt(sd * sd + m->sigma_extrap * m->sigma_extrap);
    return sd;
}

int tp_predict(const tp_model *m, const tp_query *q, tp_result *out)
{
    static const int tps[] = {1, 2, 4, 8}, cps[] = {1, 2, 4, 8, 16, 32},
                     mbss[] = {1, 2, 4, 8, 16};
    const gpu_spec *g;
    const llm_arch *a;
    const tp_layout *gl;
    int seq, gbs, rel, gi, cls, N, L, E, dense;
    double relf, gpuf, sd;
    search S;
    llm_layers nl;
    unsigned chosen = 0;

    memset(out, 0, sizeof *out);
    if (!m || !q || !q->gpu || !q->llm)
        return fail(out, SIM_EINVAL, "query needs a model, a GPU and an LLM", 0,
                    0);
    g = q->gpu;
    a = q->llm;
    gl = &q->layout;
    N = q->n_gpus;
    if (N < 1)
        return fail(out, SIM_EINVAL, "n_gpus must be >= 1 (got %d)", N, 0);
    if ((unsigned)q->prec.fmt >= NUM_FMT_N || g->peak_flops[q->prec.fmt] <= 0)
        return fail(out, SIM_EINVAL, "GPU has no dense peak for this format", 0,
                    0);
    if (g->peak_flops[NUM_BF16] <= 0 || g->hbm_Bps <= 0 || g->nvlink_Bps <= 0)
        return fail(out, SIM_EINVAL,
                    "GPU needs BF16 peak, HBM and NVLink bandwidth", 0, 0);
    if (a->hidden_size <= 0 || a->num_layers <= 0 ||
        a->num_attention_heads <= 0)
        return fail(out, SIM_EINVAL, "LLM needs layers, hidden size and heads",
                    0, 0);
    if (gl->tp < 0 || gl->pp < 0 || gl->cp < 0 || gl->ep < 0 || gl->vp < 0 ||
        gl->mbs < 0 || gl->recompute < 0 || gl->recompute > TP_RECOMPUTE_FULL ||
        gl->distopt < 0 || gl->distopt > TP_DISTOPT_ON)
        return fail(out, SIM_EINVAL, "layout sizes must be >= 1 (0 = choose)",
                    0, 0);
    seq = q->seq_len > 0 ? q->seq_len : a->default_seq_len;
    if (seq <= 0)
        return fail(out, SIM_EINVAL, "no sequence length", 0, 0);
    gbs = q->gbs;
    if (gbs <= 0) {
        gbs = 1;
        while ((double)gbs * 2 * seq <= TP_TOKENS_PER_STEP * 1.5)
            gbs *= 2;
        /* A given layout rounds the default batch up to whole dp * mbs. */
        if (gl->tp && gl->pp && gl->cp && gl->mbs) {
            int unit = N / (gl->tp * gl->pp * gl->cp) * gl->mbs;
            if (unit > 0 && gbs % unit)
                gbs = (gbs / unit + 1) * unit;
        }
    }
    cls = (int)a->cls;
    if (cls < 0 || cls >= TP_NCLASS)
        cls = 0;
    if (q->release) {
        rel = tp_model_release(m, q->release);
        if (rel < 0)
            return fail(out, SIM_ENOTFOUND, "unknown release", 0, 0);
    } else {
        rel = m->default_release;
    }
    relf = rel >= 0 ? exp(m->rel_log[rel][cls]) : 1.0;
    if (q->compute_slowdown > 0)
        relf *= q->compute_slowdown;
    gi = tp_model_gpu(m, g->name);
    gpuf = gi >= 0 ? exp(m->gpu_log[gi]) : 1.0;
    flops_layers(a, q->layers_run, &nl);
    L = (int)(nl.total + 0.5);
    dense = a->cls == LLM_DENSE || a->num_experts <= 0;
    E = dense ? 1 : a->num_experts;

    chosen |= gl->tp ? 0 : 1u << TP_FIELD_TP;
    chosen |= gl->pp ? 0 : 1u << TP_FIELD_PP;
    chosen |= gl->vp ? 0 : 1u << TP_FIELD_VP;
    chosen |= gl->cp ? 0 : 1u << TP_FIELD_CP;
    chosen |= gl->ep || dense ? 0 : 1u << TP_FIELD_EP;
    chosen |= gl->mbs ? 0 : 1u << TP_FIELD_MBS;
    chosen |= gl->recompute ? 0 : 1u << TP_FIELD_RECOMPUTE;
    chosen |= gl->distopt ? 0 : 1u << TP_FIELD_DISTOPT;

    memset(&S, 0, sizeof S);
    S.m = m;
    S.q = q;
    S.gbs = gbs;
    S.seq = seq;
    S.relf = relf;
    S.gpuf = gpuf;
    S.usable = g->hbm_bytes > 0 ? TP_HBM_FILL * g->hbm_bytes : 0;

    /* A fully given parallel layout: check it with a precise message. */
    if (gl->tp && gl->pp && gl->cp && (gl->ep || dense) && gl->vp && gl->mbs) {
        stagec sc;
        tp_layout ly = *gl;
        ly.recompute = ly.recompute ? ly.recompute : TP_RECOMPUTE_FULL;
        ly.distopt = ly.distopt ? ly.distopt : TP_DISTOPT_ON;
        if (ly.vp > 1 && ly.pp == 1)
            return fail(out, SIM_EINVAL, "vp = %d needs pp >= 2", ly.vp, 0);
        if (stage_costs(m, q, &ly, gbs, seq, relf, gpuf, &sc, out) != SIM_OK)
            return SIM_EINVAL;
        /* Nothing to choose: this is the one evaluation (the hot path of
         * the site simulation and of calibration). */
        if (gl->recompute && gl->distopt) {
            S.found = 1;
            S.best = ly;
            S.best_sc = sc;
            goto done;
        }
    }

    for (size_t i = 0; i < sizeof tps / sizeof tps[0]; i++) {
        int tp = gl->tp ? gl->tp : tps[i];
        if (!gl->tp &&
            ((tp > g->nvlink_domain && tp > 1) || tp > a->num_attention_heads))
            continue;
        for (size_t j = 0; j < sizeof cps / sizeof cps[0]; j++) {
            int cp = gl->cp ? gl->cp : cps[j];
            int rest, pmax;
            if (!gl->cp && cp > 1 && (seq / cp < 4096 || seq % cp))
                continue;
            if (N % (tp * cp))
                goto next_cp;
            rest = N / (tp * cp);
            pmax = L < TP_PP_MAX ? L : TP_PP_MAX;
            for (int pp = gl->pp ? gl->pp : 1; pp <= (gl->pp ? gl->pp : pmax);
                 pp++) {
                int dp;
                if (!is_divisor(pp, rest))
                    continue;
                dp = rest / pp;
                for (int ep = gl->ep ? gl->ep : 1;
                     ep <= (gl->ep ? gl->ep : E) && ep <= N / pp; ep++) {
                    if (!dense && !gl->ep &&
                        (!is_divisor(ep, E) || (N / pp) % ep))
                        continue;
                    for (size_t k = 0; k < sizeof mbss / sizeof mbss[0]; k++) {
                        tp_layout ly = {tp,
                                        pp,
                                        cp,
                                        dense ? 1 : ep,
                                        0,
                                        gl->fsdp,
                                        gl->mbs ? gl->mbs : mbss[k],
                                        0,
                                        0};
                        if (gbs % (dp * ly.mbs))
                            goto next_mbs;
                        try_layout(&S, ly, L);
                    next_mbs:
                        if (gl->mbs)
                            break;
                    }
                    if (dense)
                        break;
                }
            }
        next_cp:
            if (gl->cp)
                break;
        }
        if (gl->tp)
            break;
    }
    if (!S.found) {
        if (S.have_min && gl->tp && gl->pp && gl->cp && (gl->ep || dense) &&
            gl->vp && gl->mbs) {
            /* The caller said what ran: predict it at its least memory. */
            S.found = 1;
            S.best = S.min_ly;
            S.best_sc = S.min_sc;
        } else {
            return fail(out, SIM_EINVAL,
                        "no layout of %d GPUs fits the batch and HBM", N, 0);
        }
    }
done:
    stage_fill(&S.best_sc, &S.best, S.usable, out);
    out->chosen = chosen;
    out->extrapolated = gi < 0 || g->announced;
    out->gbs = gbs;
    out->seq_len = seq;
    out->flops_per_token = flops_per_token(a, seq, q->layers_run, NULL);
    out->tokens_per_sec_per_gpu = (double)gbs * seq / (out->step_time_s * N);
    out->model_tflops_per_gpu =
        out->tokens_per_sec_per_gpu * out->flops_per_token / 1e12;
    sd = tp_log_sd(m, a, out);
    out->low_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(-TP_Z80 * sd);
    out->high_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(TP_Z80 * sd);
    out->why[0] = '\0';
    return SIM_OK;
}
