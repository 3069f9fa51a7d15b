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
#include "models/tp_attn.h"
#include "models/tp_eager.h"

/* Assumptions (docs/throughput-model.md §4), user-overridable through the
 * calibration file or the query where noted. */
/* assumption: scale-out bandwidth of a GPU without a NIC figure */
#define TP_DEFAULT_SCALEOUT_BPS 400e9
#define TP_OPT_BYTES 30.0 /* assumption: Adam bytes moved per param */
/* assumption: usable fraction of HBM (the reserve: CUDA context, NCCL
 * buffers, allocator fragmentation) */
#define TP_HBM_FILL 0.9
/* Assumptions: no dropout (the Megatron-Bridge recipes of every catalog
 * model set hidden_dropout = attention_dropout = 0), so no masks; fused
 * (flash) attention, so no s x s scores (§7). */
#define TP_ACT_FLAGS 0u
#define TP_TOKENS_PER_STEP 4194304.0 /* assumption: default batch, tokens */
#define TP_Z80 1.2815515655446004    /* standard normal 90% quantile */

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

static int fail(tp_result *out, int code, const char *msg, int a, int b)
{
    snprintf(out->why, sizeof out->why, msg, a, b);
    return code;
}

/* What one (tp, pp, cp, ep, mbs, recompute, distopt, fsdp) costs, before
 * vp is fixed: vp only scales the pipeline sends (linearly), divides the
 * bubble and sets the in-flight activations, so the chooser evaluates this
 * once and every vp in a few flops (stage_combine). */
typedef struct stagec {
    int pp, micro, dp_cross;
    double t_mb; /* compute of one micro-batch on the bottleneck stage */
    double t_tp, t_cp, t_ep; /* exposed, per micro-batch */
    double t_pp1;  /* exposed pipeline sends per micro-batch at vp = 1 */
    double t_fwd;  /* forward share of t_mb (the gather's window) */
    tp_dp_cost dp; /* DP collectives before overlap */
    double dp_window, t_opt;
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

/* Evaluates ly without vp; fills *sc. ly's fields are all >= 1 here.
 * Why one long function: every term shares the same per-evaluation
 * quantities (tokens per micro-batch, the layer split, rates), and the
 * chooser calls it in its inner loop, so it walks the layer kinds once and
 * hands the collectives to models/tp_comm.c and the memory pieces to
 * models/tp_memory.c rather than recomputing them per concern. */
static int stage_costs(const tp_model *m, const tp_query *q,
                       const tp_layout *ly, int gbs, int seq, double relf,
                       double gpuf, stagec *sc, tp_result *out)
{
    const gpu_spec *g = q->gpu;
    const llm_arch *a = q->llm;
    const double *p = m->p;
    llm_layers nl;
    tp_attn ac;
    ev e, eo /* the output layer's rates (BF16) */;
    int N = q->n_gpus, tp = ly->tp, pp = ly->pp, cp = ly->cp, mbs = ly->mbs;
    int ep = a->cls == LLM_DENSE || a->num_experts <= 0 ? 1 : ly->ep;
    int etp = a->cls == LLM_DENSE || a->num_experts <= 0 ? 1 : ly->etp;
    int dp, domain = g->nvlink_domain > 0 ? g->nvlink_domain : 8, micro, L;
    double h = a->hidden_size, hd = flops_head_dim(a),
           nh = a->num_attention_heads, V = flops_vocab(a),
           E = a->num_experts > 0 ? a->num_experts : 1,
           k = a->experts_per_token;
    double qw = nh * hd, kvw = flops_kv_heads(a) * hd,
           glu = a->gated_linear_unit ? 2 : 1;
    double T, Ts, fwd = 0, core_all = 0, t_core, nvl, so, so_dp, lat_dp,
                  f_up = 0 /* MLA up-projections, forward */, f_mlp = 0,
                  f_moe = 0, f_sh = 0 /* per block, forward */,
                  bwd_attn = 0 /* attention backward less 2 x forward */,
                  f_core = 0 /* attention core, forward */;
    double vol_tp = 0 /* collectives, then bytes */, vol_cp = 0, vol_ep = 0,
           vol_etp = 0 /* ETP gathers of routed tokens [B] */, rep_cp = 1,
           rep_ep = 1 /* their share repeated by recomputation */, t_tp, t_cp,
           t_ep, t_pp, t_out, t_lay, t_rec = 0, frac, stage_l;
    double Pd, Pe, Pl_d, Pl_e, Pd_loc, Pe_loc, t_opt,
        moe_fix = 0, fix, t_eager /* eager element-wise work, tp_eager.h */;
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
    if (etp < 1) /* tp_predict resolves it: 0 here is a caller's bug */
        return fail(out, SIM_EINVAL, "etp must be >= 1 (got %d)", etp, 0);
    if (ep * etp > 1 && (N / pp) % (ep * etp))
        return fail(out, SIM_EINVAL,
                    etp > 1 ? "ep*etp = %d does not divide %d GPUs per stage"
                            : "ep = %d does not divide %d GPUs per stage",
                    ep * etp, N / pp);
    if (etp > 1 && a->moe_ffn_hidden_size % etp) /* the split of fc1, fc2 */
        return fail(out, SIM_EINVAL,
                    "etp = %d does not divide the experts' width %d", etp,
                    (int)a->moe_ffn_hidden_size);
    if (ep > 1 && a->num_experts % ep) /* Megatron requires it */
        return fail(out, SIM_EINVAL, "ep = %d does not divide the %d experts",
                    ep, a->num_experts);
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
        /* The core: score GEMMs plus softmax exponentials (tp_attn.c). */
        tp_attn_core(g, p[TP_ETA_ATTN], core, tp_attn_exps(T, seq, nh / tp),
                     &ac);
        core_all = nl.attn * (ac.fwd_s + ac.bwd_s);
        fwd += nl.attn * (f + ac.fwd_s);
        bwd_attn = nl.attn * (ac.bwd_s - 2.0 * ac.fwd_s);
        f_core = ac.fwd_s;
        vol_tp += nl.attn * 4.0;
        vol_cp += nl.attn * 3.0 * (cp - 1) * T * 2 * kvw / tp * 2.0;
    }
    if (nl.dense > 0) {
        double F = a->ffn_hidden_size;
        f_mlp = gemm_t(&e, T, h, glu * F / tp) + gemm_t(&e, T, F / tp, h);
        fwd += nl.dense * f_mlp;
        vol_tp += nl.dense * 4.0;
    }
    /* MoE blocks: sequence-parallel tokens are dispatched to E/ep local
     * experts each (balanced routing, as the benchmarks force); with expert
     * tensor parallelism each expert's fc1/fc2 are split over etp GPUs
     * that all hold the tokens routed to that expert: the same FLOPs as
     * GEMMs etp x taller and 1/etp as wide, the weights 1/etp. How the
     * tokens get there is the dispatcher's (below: the all-to-all gathers
     * over the expert-TP group after the exchange, the all-gather and flex
     * dispatchers exchange over the whole group at once). The fixed
     * work follows what runs (issue 18): a per-layer part (router top-k,
     * the host sync of dropless routing's token counts), a part per local
     * expert (grouped-GEMM setup and tails) and the permutation passes per
     * routed token copy on this GPU (Ts k), instead of one constant that
     * overcharged models with few local experts or few tokens per GPU. */
    if (nl.moe > 0) {
        double w = a->moe_latent_size > 0 ? a->moe_latent_size : h;
        double Fm = a->moe_ffn_hidden_size,
               Fs = a->shared_expert_ffn_hidden_size;
        double nloc = E / ep, Me = Ts * k * ep / E * etp, f;
        f = gemm_t(&e, Ts, h, E);
        if (Fs > 0)
            f_sh = gemm_t(&e, T, h, glu * Fs / tp) + gemm_t(&e, T, Fs / tp, h);
        f += f_sh;
        if (a->moe_latent_size > 0)
            f += gemm_t(&e, Ts, h, w) + gemm_t(&e, Ts, w, h);
        f += nloc *
             (gemm_t(&e, Me, w, glu * Fm / etp) + gemm_t(&e, Me, Fm / etp, w));
        f += p[TP_MOE_PERM] * Ts * k * w * 2.0 / e.bw;
        fwd += nl.moe * f;
        f_moe = f;
        moe_fix = nl.moe * (p[TP_T_MOE_LAYER] + p[TP_T_MOE_EXPERT] * nloc);
        if (Fs > 0)
            vol_tp += nl.moe * 4.0;
        /* Dispatch and combine, forward and backward: one copy of each
         * token; the exchange multiplies by the copies the dispatcher
         * sends and routes them (tp_ep_exchange_t). Only the all-to-all
         * gathers over the expert-TP group afterwards; the all-gather and
         * flex dispatchers exchange over the whole expert-TP x EP group
         * at once. */
        vol_ep += nl.moe * 4.0 * Ts * w * 2.0;
        if (!tp_ep_grouped(q->moe_dispatcher))
            vol_etp += nl.moe * 4.0 * Ts * k * w * 2.0 * (etp - 1);
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
    /* Recomputation repeats forward work in the backward pass, with the
     * collectives inside it: full the whole layer (TP 4 -> 6 exchanges per
     * layer, CP 3 -> 4, EP 4 -> 6); selective the modules it discards
     * (recompute_modules, else TP_RECMOD_DEFAULT): "core_attn" (the fused
     * kernel and its CP exchange), "mla_up_proj", "mlp", "moe" (Megatron
     * checkpoints the layer with its dispatch and combine: moe_layer.py),
     * "shared_experts"; norms and activations are in the fixed time. */
    if (ly->recompute == TP_RECOMPUTE_FULL) {
        t_rec = fwd;
        vol_tp *= 1.5;
        rep_cp = 4.0 / 3.0;
        rep_ep = 1.5;
    } else if (ly->recompute == TP_RECOMPUTE_SELECTIVE) {
        unsigned rm =
            q->recompute_modules ? q->recompute_modules : TP_RECMOD_DEFAULT;
        /* The MLP's and the shared expert's TP collectives run again. */
        vol_tp +=
            2.0 * ((rm & TP_RECMOD_MLP ? nl.dense : 0) +
                   (f_sh > 0 && rm & (TP_RECMOD_MOE | TP_RECMOD_SHARED) ? nl.moe
                                                                        : 0));
        rep_ep = rm & TP_RECMOD_MOE ? 1.5 : 1.0;
        rep_cp = rm & TP_RECMOD_CORE_ATTN ? 4.0 / 3.0 : 1.0;
        t_rec = (rm & TP_RECMOD_CORE_ATTN ? nl.attn * f_core : 0) +
                (rm & TP_RECMOD_MLA_UP_PROJ ? nl.attn * f_up : 0) +
                (rm & TP_RECMOD_MLP ? nl.dense * f_mlp : 0) +
                (rm & TP_RECMOD_MOE      ? nl.moe * f_moe
                 : rm & TP_RECMOD_SHARED ? nl.moe * f_sh
                                         : 0);
    }
    /* Fixed per-layer times, less under full-iteration CUDA graphs
     * (models/tp_recipe.c). */
    fix = (nl.total * p[TP_T_LAYER] + moe_fix) * tp_recipe_fixed_factor(m, q);

    /* One average layer and the output layer, forward + backward [s]. */
    t_eager = tp_eager_bytes(a, &nl, T, Ts, tp, etp, ly->recompute,
                             q->recompute_modules,
                             q->moe_dispatcher == TP_DISPATCH_DEEPEP ||
                                 q->moe_dispatcher == TP_DISPATCH_HYBRIDEP,
                             q->cuda_graph == TP_CG_FULL) /
              e.bw;
    t_lay = (3.0 * fwd + bwd_attn + t_rec + fix + t_eager) / L * relf;
    /* The output layer runs in BF16 whatever the recipe: Megatron builds it
     * as tensor_parallel.ColumnParallelLinear, out of reach of the FP8/FP4
     * autocast (Megatron-LM d98e8a6, gpt_model.py; fp8_output_proj is an
     * opt-in the rows do not describe). At the recipe's rate every FP8/FP4
     * run of a large-vocabulary model looked too fast (issue 18). */
    eo = e;
    eo.rate = g->peak_flops[NUM_BF16] * p[TP_ETA_BF16] * gpuf;
    eo.eb = precision_elem_bytes(NUM_BF16);
    t_out = 3.0 * gemm_t(&eo, T, h, V / tp) * relf;
    stage_l = tp_stage_split(L, pp, t_out / t_lay, &nf, &nlast);
    /* The bottleneck stage sets the pipeline's pace; its collectives are
     * its share of the layers (the fullest stage's layer count). */
    frac = (double)(nf > nlast ? nf : nlast) / L;
    sc->t_mb = stage_l * t_lay;
    /* The forward share of it: the window of the parameter gather; the
     * rest (backward, recomputation) is that of the gradient reduction. */
    sc->t_fwd = stage_l * (fwd + fix / 3.0) / L * relf;
    t_core = core_all * frac * relf;

    /* Tensor parallel: AG + RS of the T x h activation per collective. */
    vol_tp *= frac;
    t_tp = tp > 1
               ? tp_coll_t(vol_tp * T * h * 2.0 * (tp - 1) / tp, tp, 1, domain,
                           nvl, so, m->dp_latency_s, (int)(vol_tp + 0.5))
               : 0.0;
    sc->t_tp = tp_exposed(t_tp * cs, p[TP_OVL_TP], 1e300);
    t_cp = cp > 1 ? tp_coll_t(vol_cp * rep_cp * frac, cp, tp, domain, nvl, so,
                              m->dp_latency_s,
                              (int)(rep_cp * 3 * (cp - 1) * nl.attn * frac))
                  : 0.0;
    sc->t_cp = tp_exposed(t_cp * cs, p[TP_OVL_CP], t_core);
    {
        tp_ep_in xi = {q->moe_dispatcher,
                       E,
                       k,
                       ep,
                       etp,
                       vol_ep * rep_ep * frac,
                       vol_etp * rep_ep * frac,
                       (int)(rep_ep * 4 * (int)(nl.moe * frac + 0.5) + 0.5),
                       domain,
                       nvl,
                       so,
                       m->dp_latency_s};
        t_ep = tp_ep_exchange_t(&xi);
    }
    /* The overlapped exchange (all-to-all and the ETP gather, both the
     * dispatcher's) hides behind at most one micro-batch's compute (the
     * other micro-batch in flight, 1F1B EP overlap), by the recipe's
     * share (models/tp_recipe.c). */
    sc->t_ep =
        tp_exposed(t_ep * cs, tp_recipe_ep_overlap(m, q, micro), sc->t_mb);
    /* Pipeline point-to-point: 2 sends per virtual stage per micro-batch,
     * so linear in vp (stage_combine multiplies). */
    t_pp = 0.0;
    if (pp > 1) {
        int st = N / pp;
        double vol = 2.0 * Ts * h * 2.0;
        t_pp = st >= domain ? vol / so + 2 * m->dp_latency_s
                            : vol / nvl + 2 * TP_NVLINK_LAT_S;
        t_pp = tp_exposed(t_pp * cs, p[TP_OVL_PP], 1e300);
    }
    sc->t_pp1 = t_pp;

    /* Data parallel (models/tp_comm.c): gradient reduce-scatter and
     * parameter all-gather in buckets, dense parameters over dp*cp ranks
     * (stride tp), experts over N/(pp*ep*etp) (stride ep*etp), bytes by
     * recipe. */
    flops_params(a, q->layers_run, &Pd, &Pe);
    Pd_loc = Pd / (tp * pp);
    Pe_loc = Pe / (ep * etp * pp);
    Pl_d = (Pd - 2.0 * h * V) / L; /* per layer, embeddings apart */
    Pl_e = Pe / L;
    {
        int gd = dp * cp, ge = N / (pp * ep * etp);
        tp_dp_in di;
        double bd = tp_bytes_per_param(ly->distopt, ly->fsdp, gd,
                                       q->grad_reduce_fp32),
               be = tp_bytes_per_param(ly->distopt, ly->fsdp, ge,
                                       q->grad_reduce_fp32);
        double act_tok = tp_act_bytes_per_token(
            a, &nl, tp, etp, tp > 1, ly->recompute, q->recompute_modules,
            seq / cp, gin, TP_ACT_FLAGS);
        di.p_dense = Pd_loc;
        di.p_expert = Pe_loc;
        di.g_dense = gd;
        di.g_expert = Pe > 0 ? ge : 1;
        di.st_dense = tp;
        di.st_expert = ep * etp;
        di.domain = domain;
        di.nvl_Bps = nvl / cs;
        di.so_Bps = so_dp / cs;
        di.lat_so_s = lat_dp * cs;
        di.grad_bytes = q->grad_reduce_fp32 ? 4.0 : 2.0;
        /* fp8_param_gather: Megatron-Bridge's FP8 (tensor scaling) and
         * MXFP8 recipes gather FP8 parameters (MXFP8 with one scale byte
         * per 32 elements); BF16 and NVFP4 gather bf16 (tp_comm.c). */
        di.param_bytes = q->prec.recipe == PREC_FP8_TENSOR  ? 1.0
                         : q->prec.recipe == PREC_FP8_BLOCK ? 1.0 + 1.0 / 32
                                                            : 2.0;
        di.distopt = ly->distopt;
        di.fsdp = ly->fsdp;
        di.sharp = q->sharp;
        di.bucket_params = gd * 1e6 > 40e6 ? gd * 1e6 : 40e6;
        tp_dp_cost_of(&di, &sc->dp);
        sc->dp_cross = (double)N / pp > domain && (gd > 1 || ge > 1);
        sc->dp_window = p[TP_DP_WINDOW];
        /* Adam reads and writes its state once per step: the local shard
         * with the distributed optimizer or FSDP, else everything. */
        t_opt = ly->distopt == TP_DISTOPT_ON || ly->fsdp
                    ? Pd_loc / gd + Pe_loc / ge
                    : Pd_loc + Pe_loc;
        sc->t_opt = t_opt * TP_OPT_BYTES / e.bw * relf;
        /* Stage memory: its layers' dense (/tp) and expert (/ep/etp) weights
         * with their gradients and optimizer state, the input embedding on
         * the first stage and the output layer on the last (untied, V x h
         * each, /tp); FSDP also holds the gathered weights of two layers
         * (the one computing and the one prefetched). */
        double per_l = Pl_d / tp * bd + Pl_e / (ep * etp) * be,
               gath = ly->fsdp ? 2 * 2.0 * (Pl_d / tp + Pl_e / (ep * etp)) : 0;
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
            double w = tp_act_bytes_per_token(a, &nl, tp, etp, tp > 1,
                                              TP_RECOMPUTE_SELECTIVE, 0,
                                              seq / cp, gin, TP_ACT_FLAGS);
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
/* Exposed DP time with vp: the gradient reduction behind the last
 * micro-batch's backward, the parameter gather behind the first one's
 * forward, bucket by bucket and chunk by chunk (tp_dp_exposed). */
static double stage_dp(const stagec *sc, int vp)
{
    double w = sc->dp_window;
    return tp_dp_exposed(sc->dp.t_grad_s, sc->dp.buckets, vp, sc->pp,
                         w * (sc->t_mb - sc->t_fwd)) +
           tp_dp_exposed(sc->dp.t_param_s, sc->dp.buckets, vp, sc->pp,
                         w * sc->t_fwd);
}

static double stage_step(const stagec *sc, int vp)
{
    double per = sc->t_mb + sc->t_tp + sc->t_cp + sc->t_ep + vp * sc->t_pp1;
    return sc->micro * per + (sc->pp - 1) / (double)vp * per +
           stage_dp(sc, vp) + sc->t_opt;
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
    out->t_dp_s = stage_dp(sc, vp);
    out->t_dp_raw_s = sc->dp.t_grad_s + sc->dp.t_param_s;
    out->dp_buckets = (int)sc->dp.buckets;
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
 * the experts dividing N/pp (1 for dense), etp 1 or tp (MoE; ep etp
 * dividing N/pp, etp the experts' width), mbs in {1,2,4,8,16} dividing
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

/* Tries every recompute mode and vp of one (tp, pp, cp, ep, etp, mbs). */
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

/* Why this shape: validation with precise messages first (a query comes
 * from users), then a fully given layout takes the one-evaluation hot path
 * (site simulation, calibration), and only blank fields enter the
 * enumeration; the interval and extrapolation flags come last because
 * they depend on nothing the search chose. */
int tp_predict(const tp_model *m, const tp_query *q, tp_result *out)
{
    static const int tps[] = {1, 2, 4, 8}, cps[] = {1, 2, 4, 8, 16, 32},
                     mbss[] = {1, 2, 4, 8, 16};
    const gpu_spec *g;
    const llm_arch *a;
    const tp_layout *gl;
    int seq, gbs, rel, gi, cls, N, L, E, dense, etp_given;
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
        gl->etp < 0 || gl->mbs < 0 || gl->recompute < 0 ||
        gl->recompute > TP_RECOMPUTE_FULL || gl->distopt < 0 ||
        gl->distopt > TP_DISTOPT_ON)
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
    /* A stack other than the calibrated releases runs every kernel at
     * software_efficiency of theirs (job key, docs §8). */
    if (q->software_efficiency > 0)
        relf /= q->software_efficiency;
    gi = tp_model_gpu_factor(m, g);
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
    /* Expert TP is 1 or tp (what Megatron-Bridge recipes set, and
     * Megatron's default): a choice only for a MoE model and tp not 1. */
    etp_given = dense ? 1 : gl->etp ? gl->etp : gl->tp == 1 ? 1 : 0;
    chosen |= etp_given ? 0 : 1u << TP_FIELD_ETP;

    memset(&S, 0, sizeof S);
    S.m = m;
    S.q = q;
    S.gbs = gbs;
    S.seq = seq;
    S.relf = relf;
    S.gpuf = gpuf;
    S.usable = g->hbm_bytes > 0 ? TP_HBM_FILL * g->hbm_bytes : 0;

    if (!dense && gl->ep > 1 && !is_divisor(gl->ep, E))
        return fail(out, SIM_EINVAL, "ep = %d does not divide the %d experts",
                    gl->ep, E);
    if (dense && gl->etp > 1)
        return fail(out, SIM_EINVAL,
                    "etp = %d needs a MoE model (a dense model has no "
                    "experts: leave it out or give 1)",
                    gl->etp, 0);
    if (!dense && gl->etp > 1 && a->moe_ffn_hidden_size % gl->etp)
        return fail(out, SIM_EINVAL,
                    "etp = %d does not divide the experts' width %d", gl->etp,
                    a->moe_ffn_hidden_size);
    /* A fully given parallel layout: check it with a precise message. */
    if (gl->tp && gl->pp && gl->cp && (gl->ep || dense) && etp_given &&
        gl->vp && gl->mbs) {
        stagec sc;
        tp_layout ly = *gl;
        ly.etp = etp_given;
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
                    /* etp: the given one, else 1 then tp */
                    for (int ie = 0; ie < 2; ie++) {
                        int etp = etp_given ? etp_given : ie ? tp : 1;
                        if ((ie && (etp_given || tp == 1)) ||
                            (N / pp) % (ep * etp) ||
                            (etp > 1 && a->moe_ffn_hidden_size % etp))
                            continue;
                        for (size_t k = 0; k < sizeof mbss / sizeof mbss[0];
                             k++) {
                            tp_layout ly = {.tp = tp,
                                            .pp = pp,
                                            .cp = cp,
                                            .ep = dense ? 1 : ep,
                                            .fsdp = gl->fsdp,
                                            .mbs = gl->mbs ? gl->mbs : mbss[k],
                                            .etp = etp};
                            if (gbs % (dp * ly.mbs))
                                goto next_mbs;
                            try_layout(&S, ly, L);
                        next_mbs:
                            if (gl->mbs)
                                break;
                        }
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
    /* A borrowed factor (calib_as) is still no calibration of this GPU. */
    out->extrap_why = tp_extrap_reasons(
        m, q, a, seq, tp_model_gpu(m, g->name) < 0 || g->announced);
    out->extrapolated = out->extrap_why != 0;
    out->gbs = gbs;
    out->seq_len = seq;
    out->flops_per_token = flops_per_token(a, seq, q->layers_run, NULL);
    out->tokens_per_sec_per_gpu = (double)gbs * seq / (out->step_time_s * N);
    out->model_tflops_per_gpu =
        out->tokens_per_sec_per_gpu * out->flops_per_token / 1e12;
    sd = tp_log_sd(m, a, g, out);
    out->low_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(-TP_Z80 * sd);
    out->high_tokens_per_sec_per_gpu =
        out->tokens_per_sec_per_gpu * exp(TP_Z80 * sd);
    out->why[0] = '\0';
    return SIM_OK;
}
