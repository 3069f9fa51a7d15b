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

/* Assumptions (docs/throughput-model.md §4), user-overridable through the
 * calibration file or the query where noted. */
#define TP_NVLINK_LAT_S 3e-6   /* assumption: NVLink collective step */
#define TP_SCALEOUT_LAT_S 8e-6 /* assumption: RDMA collective step */
/* assumption: scale-out bandwidth of a GPU without a NIC figure */
#define TP_DEFAULT_SCALEOUT_BPS 400e9
#define TP_OPT_BYTES 30.0 /* assumption: Adam bytes moved per param */
#define TP_HBM_FILL 0.9   /* assumption: usable fraction of HBM */
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

/* Evaluates one layout; fills out (breakdown, memory). */
static int eval_layout(const tp_model *m, const tp_query *q,
                       const tp_layout *ly, int gbs, int mbs, int seq,
                       double relf, double gpuf, tp_result *out)
{
    const gpu_spec *g = q->gpu;
    const llm_arch *a = q->llm;
    const double *p = m->p;
    llm_layers nl;
    ev e;
    int N = q->n_gpus, tp = ly->tp, pp = ly->pp, cp = ly->cp, vp = ly->vp;
    int ep = a->cls == LLM_DENSE || a->num_experts <= 0 ? 1 : ly->ep;
    int dp, domain = g->nvlink_domain > 0 ? g->nvlink_domain : 8, micro;
    double h = a->hidden_size, hd = flops_head_dim(a),
           nh = a->num_attention_heads;
    double qw = nh * hd, kvw = flops_kv_heads(a) * hd,
           glu = a->gated_linear_unit ? 2 : 1;
    double T, Ts, Lst, fwd = 0, t_core = 0, nvl, so, so_dp, lat_dp;
    double vol_tp = 0 /* collectives, then bytes */, vol_cp = 0, vol_ep = 0,
           t_tp, t_cp, t_ep, t_pp, t_mb;
    double Pd, Pe, Pd_loc, Pe_loc, act = 0, mem, t_dp_d, t_dp_e, t_dp, t_opt;
    int fmt = q->prec.fmt;
    double cs = q->comm_slowdown > 0 ? q->comm_slowdown : 1.0; /* comm factor */
    double qb = q->prec.recipe == PREC_FP8_TENSOR  ? p[TP_Q_FP8T]
                : q->prec.recipe == PREC_FP8_BLOCK ? p[TP_Q_FP8B]
                : q->prec.recipe == PREC_NVFP4     ? p[TP_Q_FP4]
                                                   : 0.0;

    if (tp < 1 || pp < 1 || cp < 1 || vp < 1 || ep < 1)
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
    T = (double)mbs * seq / cp; /* tokens per micro-batch per GPU */
    Ts = T / tp;                /* sequence-parallel share */
    Lst = nl.total / pp;        /* layers per stage */

    /* Attention blocks. */
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
            core = 2.0 * T * (seq / 2.0) * nh * (dqk + hd) / tp;
            kvw = nh * (dqk + hd) / 2.0;
        } else {
            f += gemm_t(&e, T, h, (qw + 2 * kvw) / tp) +
                 gemm_t(&e, T, qw / tp, h);
            core = 2.0 * T * (seq / 2.0) * nh * 2 * hd / tp;
        }
        t_core = core / (p[TP_ETA_ATTN] * e.rate16);
        fwd += nl.attn / pp * (f + t_core);
        t_core *= nl.attn / pp * 3.0;
        vol_tp += nl.attn / pp * 4.0;
        vol_cp += nl.attn / pp * 3.0 * (cp - 1) * T * 2 * kvw / tp * 2.0;
        act += nl.attn * (4 * h / tp + (qw + 2 * kvw) / tp + qw / tp);
    }
    /* Dense MLP blocks. */
    if (nl.dense > 0) {
        double F = a->ffn_hidden_size;
        fwd += nl.dense / pp *
               (gemm_t(&e, T, h, glu * F / tp) + gemm_t(&e, T, F / tp, h));
        vol_tp += nl.dense / pp * 4.0;
        act += nl.dense * (2 * h / tp + (glu + 1) * F / tp);
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
        fwd += nl.moe / pp * f;
        if (Fs > 0)
            vol_tp += nl.moe / pp * 4.0;
        vol_ep += nl.moe / pp * 4.0 * Ts * k * w * 2.0 * (ep - 1) / ep;
        act += nl.moe *
               (2 * h / tp + k * (w + (glu + 1) * Fm) + (glu + 1) * Fs / tp);
    }
    /* Mamba-2 blocks. */
    if (nl.mamba > 0) {
        double din = flops_mamba_d_inner(a), Ns = flops_mamba_state(a);
        double nhm = a->mamba_num_heads > 0 ? a->mamba_num_heads : din / 64;
        double scan = 7.0 * T * din / tp * Ns;
        fwd += nl.mamba / pp *
               (gemm_t(&e, T, h,
                       (2 * din + 2 * FLOPS_MAMBA_GROUPS * Ns + nhm) / tp) +
                gemm_t(&e, T, din / tp, h) + scan / (p[TP_ETA_SSM] * e.rate16));
        vol_tp += nl.mamba / pp * 4.0;
        act += nl.mamba * (2 * h / tp + 4 * din / tp);
    }
    /* Output layer, spread evenly over the stages (balanced split). */
    fwd += gemm_t(&e, T, h, (double)flops_vocab(a) / tp) / pp;

    /* One micro-batch on one stage, forward + backward. */
    t_mb = (3.0 * fwd + Lst * p[TP_T_LAYER] + nl.moe / pp * p[TP_T_MOE_LAYER]) *
           relf;
    t_core *= relf;

    /* Tensor parallel: AG + RS of the T x h activation per collective. */
    t_tp = tp > 1 ? coll_t(vol_tp * T * h * 2.0 * (tp - 1) / tp, tp, 1, domain,
                           nvl, so, m->dp_latency_s, (int)(vol_tp + 0.5))
                  : 0.0;
    t_tp = exposed(t_tp * cs, p[TP_OVL_TP], 1e300);
    t_cp = cp > 1 ? coll_t(vol_cp, cp, tp, domain, nvl, so, m->dp_latency_s,
                           (int)(3 * (cp - 1) * nl.attn / pp))
                  : 0.0;
    t_cp = exposed(t_cp * cs, p[TP_OVL_CP], t_core);
    t_ep = ep > 1 ? a2a_t(vol_ep, ep, domain, nvl, so, m->dp_latency_s) : 0.0;
    /* The overlapped all-to-all hides behind at most one micro-batch's
     * compute (the other micro-batch in flight, 1F1B EP overlap). */
    t_ep = exposed(t_ep * cs, p[TP_OVL_EP], t_mb);
    /* Pipeline point-to-point: 2 sends per virtual stage per micro-batch. */
    t_pp = 0.0;
    if (pp > 1) {
        int st = N / pp;
        double vol = 2.0 * vp * Ts * h * 2.0;
        t_pp = st >= domain ? vol / so + 2 * vp * m->dp_latency_s
                            : vol / nvl + 2 * vp * TP_NVLINK_LAT_S;
        t_pp = exposed(t_pp * cs, p[TP_OVL_PP], 1e300);
    }

    /* Data parallel: RS of gradients + AG of parameters (2 bytes each),
     * dense params over dp*cp ranks (stride tp), experts over N/(pp*ep). */
    flops_params(a, q->layers_run, &Pd, &Pe);
    Pd_loc = Pd / (tp * pp);
    Pe_loc = Pe / (ep * pp);
    {
        int gd = dp * cp, ge = N / (pp * ep);
        double fs = ly->fsdp ? 1.5 : 1.0;
        double vd = fs * 2.0 * (gd - 1) / (gd > 0 ? gd : 1) * Pd_loc * 2.0;
        double ve = fs * 2.0 * (ge - 1) / (ge > 0 ? ge : 1) * Pe_loc * 2.0;
        t_dp_d = coll_t(vd, gd, tp, domain, nvl, so_dp, lat_dp,
                        (int)(2 * log2d(gd)));
        t_dp_e = Pe > 0 ? coll_t(ve, ge, ep, domain, nvl, so_dp, lat_dp,
                                 (int)(2 * log2d(ge)))
                        : 0.0;
        out->dp_crosses_scaleout =
            (double)N / pp > domain && (gd > 1 || ge > 1);
        t_dp = (t_dp_d + t_dp_e) * cs;
        out->t_dp_raw_s = t_dp;
        t_dp = exposed(t_dp, p[TP_OVL_DP], t_mb);
        t_opt = (Pd_loc / gd + Pe_loc / ge) * TP_OPT_BYTES / e.bw * relf;
        /* HBM footprint: bf16 weights + fp32 gradients, sharded Adam state,
         * activations of the micro-batches in flight on stage 0. */
        mem = (Pd_loc + Pe_loc) * (ly->fsdp ? 6.0 / (gd > 1 ? gd : 1) : 6.0) +
              (Pd_loc / gd + Pe_loc / ge) * 12.0 +
              act / pp * 2.0 * T * (micro < pp ? micro : pp);
    }

    out->layout = *ly;
    out->layout.ep = ep;
    out->microbatches = micro;
    out->t_compute_s = micro * t_mb;
    out->t_tp_s = micro * t_tp;
    out->t_cp_s = micro * t_cp;
    out->t_ep_s = micro * t_ep;
    out->t_pp_s = micro * t_pp;
    out->t_bubble_s =
        (pp - 1) / (double)vp * (t_mb + t_tp + t_cp + t_ep + t_pp);
    out->t_dp_s = t_dp;
    out->t_optimizer_s = t_opt;
    out->mem_bytes_per_gpu = mem;
    out->step_time_s = out->t_compute_s + out->t_tp_s + out->t_cp_s +
                       out->t_ep_s + out->t_pp_s + out->t_bubble_s +
                       out->t_dp_s + out->t_optimizer_s;
    return SIM_OK;
}

static int is_pow2_div(int x, int n)
{
    return x >= 1 && n % x == 0;
}

int tp_predict(const tp_model *m, const tp_query *q, tp_result *out)
{
    const gpu_spec *g;
    const llm_arch *a;
    int seq, gbs, mbs, rel, gi, rc, cls;
    double relf, gpuf, sd;

    memset(out, 0, sizeof *out);
    if (!m || !q || !q->gpu || !q->llm)
        return fail(out, SIM_EINVAL, "query needs a model, a GPU and an LLM", 0,
                    0);
    g = q->gpu;
    a = q->llm;
    if (q->n_gpus < 1)
        return fail(out, SIM_EINVAL, "n_gpus must be >= 1 (got %d)", q->n_gpus,
                    0);
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
    seq = q->seq_len > 0 ? q->seq_len : a->default_seq_len;
    if (seq <= 0)
        return fail(out, SIM_EINVAL, "no sequence length", 0, 0);
    mbs = q->mbs > 0 ? q->mbs : 1;
    gbs = q->gbs;
    if (gbs <= 0) {
        gbs = 1;
        while ((double)gbs * 2 * seq <= TP_TOKENS_PER_STEP * 1.5)
            gbs *= 2;
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
    out->extrapolated = gi < 0 || g->announced;

    if (q->layout.tp > 0) {
        tp_layout ly = q->layout;
        if (ly.pp < 1)
            ly.pp = 1;
        if (ly.cp < 1)
            ly.cp = 1;
        if (ly.ep < 1)
            ly.ep = 1;
        if (ly.vp < 1)
            ly.vp = 1;
        if (q->gbs <= 0) {
            int unit = q->n_gpus / (ly.tp * ly.pp * ly.cp) * mbs;
            if (unit > 0 && gbs % unit)
                gbs = (gbs / unit + 1) * unit;
        }
        rc = eval_layout(m, q, &ly, gbs, mbs, seq, relf, gpuf, out);
        if (rc != SIM_OK)
            return rc;
    } else {
        static const int tps[] = {1, 2, 4, 8}, cps[] = {1, 2, 4, 8};
        static const int pps[] = {1, 2, 4, 8, 16, 32}, vps[] = {1, 2, 4};
        tp_result best, cur;
        int found = 0,
            E = a->cls != LLM_DENSE && a->num_experts > 0 ? a->num_experts : 1;
        memset(&best, 0, sizeof best);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++)
                for (size_t k = 0; k < 6; k++)
                    for (size_t l = 0; l < 3; l++)
                        for (int ep = 1; ep <= E && ep <= q->n_gpus; ep *= 2) {
                            tp_layout ly = {tps[i], pps[k], cps[j],
                                            ep,     vps[l], 0};
                            int dp;
                            if (ly.tp > g->nvlink_domain && ly.tp > 1)
                                continue;
                            if (ly.tp > a->num_attention_heads ||
                                ly.pp > a->num_layers)
                                continue;
                            if (ly.cp > 1 && seq / ly.cp < 4096)
                                continue;
                            if (ly.vp > 1 &&
                                (ly.pp == 1 || a->num_layers % (ly.pp * ly.vp)))
                                continue;
                            if (!is_pow2_div(ep, E) ||
                                q->n_gpus % (ly.tp * ly.pp * ly.cp))
                                continue;
                            dp = q->n_gpus / (ly.tp * ly.pp * ly.cp);
                            if (gbs % (dp * mbs))
                                continue;
                            if (eval_layout(m, q, &ly, gbs, mbs, seq, relf,
                                            gpuf, &cur) != SIM_OK)
                                continue;
                            if (cur.mem_bytes_per_gpu >
                                    TP_HBM_FILL * g->hbm_bytes &&
                                g->hbm_bytes > 0)
                                continue;
                            if (!found || cur.step_time_s < best.step_time_s) {
                                best = cur;
                                found = 1;
                            }
                        }
        if (!found)
            return fail(out, SIM_EINVAL,
                        "no layout of %d GPUs fits the batch and HBM",
                        q->n_gpus, 0);
        best.extrapolated = out->extrapolated;
        *out = best;
        out->layout_chosen = 1;
    }
    out->gbs = gbs;
    out->mbs = mbs;
    out->seq_len = seq;
    out->flops_per_token = flops_per_token(a, seq, q->layers_run, NULL);
    out->tokens_per_sec_per_gpu =
        (double)gbs * seq / (out->step_time_s * q->n_gpus);
    out->model_tflops_per_gpu =
        out->tokens_per_sec_per_gpu * out->flops_per_token / 1e12;
    sd = m->sigma_log[cls];
    if (out->extrapolated)
        sd = sqrt(sd * sd + m->sigma_extrap * m->sigma_extrap);
    out->low_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(-TP_Z80 * sd);
    out->high_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(TP_Z80 * sd);
    out->why[0] = '\0';
    return SIM_OK;
}
