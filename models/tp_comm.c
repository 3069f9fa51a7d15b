/* models/tp_comm.c: the communication terms of the throughput model
 * (docs/throughput-model.md §2): collective times over NVLink and the
 * scale-out fabric, the expert all-to-all, and data-parallel (DP) gradient
 * reduction and parameter gather as Megatron-LM runs them.
 *
 * Owns: how many bytes each collective moves, over which link, and how much
 * of it a compute window hides. It must never decide a layout, never touch
 * compute efficiencies (models/throughput.c owns both), never allocate and
 * never read a file: the chooser calls these in its inner loop.
 *
 * DP as Megatron does it (megatron/core/distributed/, commit d98e8a6 of
 * NVIDIA/Megatron-LM, read for facts only):
 *  - gradients are accumulated over the step's micro-batches without
 *    synchronisation (DistributedDataParallel.no_sync sets
 *    is_last_microbatch = False); in the last micro-batch a backward hook
 *    marks each parameter ready and a bucket's reduce-scatter (all-reduce
 *    without the distributed optimizer) is dispatched as soon as its
 *    gradients are complete (_ParamAndGradBucketGroup.register_grad_ready,
 *    overlap_grad_reduce). So the reduction hides behind the last
 *    micro-batch's backward only, bucket by bucket, and the last bucket
 *    (the first layers, whose gradients come last) is always exposed. With
 *    interleaving each model chunk has its own buffers and its gradients
 *    are complete when the chunk's last backward ends, up to pp chunk
 *    backwards apart, so the earlier chunks' reductions also hide behind
 *    the later chunks' backward work (the schedule allows it);
 *  - with overlap_param_gather a forward pre-hook waits for its bucket's
 *    parameter all-gather and dispatches the next one
 *    (finish_param_sync), so the gather hides behind the first
 *    micro-batch's forward the same way, the first bucket exposed;
 *  - bucket size max(40e6, 1e6 x dp) parameters
 *    (DistributedDataParallel.__init__, DistributedDataParallelConfig.
 *    bucket_size);
 *  - bytes: gradients in the gradient buffer's dtype (bf16, or fp32 with
 *    grad_reduce_in_fp32; Megatron-Bridge's benchmark recipes set False,
 *    perf_recipes/_common.py), parameters gathered in fp8 with
 *    fp8_param_gather, which Megatron-Bridge's FP8 delayed/current-scaling
 *    and MXFP8 recipes set and its subchannel and NVFP4 recipes do not
 *    (src/megatron/bridge/training/mixed_precision.py, commit 067f987);
 *  - hierarchical: a group that leaves the NVLink domain reduces inside the
 *    domain first (NCCL's tree/ring over NVLink), so scale-out carries 1/k
 *    of the volume (k members per domain); in-network reduction (SHARP) on
 *    the scale-out fabric sends each byte of an all-reduce once instead of
 *    the ring's 2(g-1)/g and needs one round trip; a reduce-scatter or
 *    all-gather moves as much either way, so SHARP does not change them.
 */
#include <math.h>

#include "models/throughput_int.h"

double tp_log2d(double x)
{
    return x > 1 ? log(x) / log(2.0) : 0.0;
}

/* Smooth-free overlap: the overlapped part of t hides behind window. */
double tp_exposed(double t, double ovl, double window)
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
 * the group members per domain, so scale-out carries vol / k. so_share
 * scales the scale-out part (1, or 1/2 for an all-reduce reduced in the
 * network). */
double tp_coll_t(double vol, int g, int st, int domain, double nvl, double so,
                 double lat_so, int steps)
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
double tp_a2a_t(double vol, int g, int domain, double nvl, double so,
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

/* One DP group's reduction: a reduce-scatter or all-reduce of P parameters
 * of eb bytes over g ranks with stride st, in nb buckets (each pays the
 * collective's latency steps). An all-reduce with SHARP halves the
 * scale-out part and needs 2 latency steps instead of the ring's. */
static double dp_group_t(const tp_dp_in *in, double P, double eb, int g, int st,
                         int allreduce, double nb)
{
    double ring, vol, t, so = in->so_Bps;
    int steps;
    if (g <= 1 || P <= 0)
        return 0.0;
    ring = (double)(g - 1) / g * (allreduce ? 2.0 : 1.0);
    vol = ring * P * eb;
    steps = (int)(2 * tp_log2d(g));
    if (allreduce && in->sharp && (double)g * st > in->domain) {
        so *= 2.0;
        steps = 2;
    }
    t = tp_coll_t(vol, g, st, in->domain, in->nvl_Bps, so, in->lat_so_s, 0);
    return t +
           nb * steps *
               ((double)g * st <= in->domain ? TP_NVLINK_LAT_S : in->lat_so_s);
}

void tp_dp_cost_of(const tp_dp_in *in, tp_dp_cost *out)
{
    int ar = in->distopt != TP_DISTOPT_ON && !in->fsdp;
    /* FSDP gathers the parameters for the forward and again for the
     * backward: 1.5 x the distributed optimizer's volume, as before. */
    double fs = in->fsdp ? 1.5 : 1.0;
    double bucket = in->bucket_params > 0 ? in->bucket_params : 40e6;
    double nb = ceil((in->p_dense + in->p_expert) / bucket);
    if (nb < 1)
        nb = 1;
    out->buckets = nb;
    out->t_grad_s = fs * (dp_group_t(in, in->p_dense, in->grad_bytes,
                                     in->g_dense, in->st_dense, ar, nb) +
                          dp_group_t(in, in->p_expert, in->grad_bytes,
                                     in->g_expert, in->st_expert, ar, nb));
    out->t_param_s = ar ? 0.0
                        : fs * (dp_group_t(in, in->p_dense, in->param_bytes,
                                           in->g_dense, in->st_dense, 0, nb) +
                                dp_group_t(in, in->p_expert, in->param_bytes,
                                           in->g_expert, in->st_expert, 0, nb));
}

/* Exposed time of t_comm [s] spread over the buckets of vp model chunks,
 * each chunk's buckets becoming ready evenly over that chunk's share of the
 * window (t_win / vp: one micro-batch's backward for gradients, forward
 * for parameters), chunks pp such shares apart (the interleaved schedule's
 * cool-down or warm-up runs pp micro-batches per chunk); the communication
 * stream takes buckets in ready order. The queue finishes at the latest
 * (ready time + work from that bucket on), which is linear inside a chunk,
 * so only each chunk's first and last bucket need checking: O(vp).
 * Measured from the end of the window; never below one bucket (the last
 * gradient bucket, or the first parameter bucket, cannot overlap). */
double tp_dp_exposed(double t_comm, double buckets, int vp, int pp,
                     double t_win)
{
    double tb, G, W, w, nbc, worst = 0;
    if (t_comm <= 0)
        return 0.0;
    if (vp < 1)
        vp = 1;
    tb = t_win / vp;
    G = vp > 1 ? pp * tb : 0.0;
    W = t_comm / vp;
    nbc = ceil(buckets / vp);
    if (nbc < 1)
        nbc = 1;
    w = W / nbc;
    for (int c = 0; c < vp; c++) {
        double first = -c * G - tb + tb / nbc + nbc * w + c * W,
               last = -c * G + w + c * W;
        if (first > worst)
            worst = first;
        if (last > worst)
            worst = last;
    }
    return worst < t_comm ? worst : t_comm;
}

/* 1 - C(E - n, k) / C(E, k): the chance that k experts drawn without
 * replacement from E include one of n given ones. */
static double hit_p(double E, double k, double n)
{
    double miss = 1.0;
    for (int i = 0; i < (int)k; i++)
        miss *= E - n - i > 0 ? (E - n - i) / (E - i) : 0.0;
    return 1.0 - miss;
}

/* Token copies per token that leave the GPU in one dispatch (the combine
 * returns as many), per dispatcher (docs/throughput-model.md §2), with
 * each expert split over etp GPUs (expert tensor parallelism):
 *  - all-to-all (Megatron's MoEAlltoAllTokenDispatcher, and unstated
 *    recipes): it permutes by expert and sends every routed copy whose
 *    expert is on another EP rank, k (ep-1)/ep under balanced routing;
 *    the expert-TP gather that follows is the caller's (throughput.c);
 *  - all-gather: every token of the expert-TP x EP group is gathered (and
 *    the outputs reduce-scattered back), k-independent: ep etp - 1;
 *  - flex (DeepEP, HybridEP): the dispatch layout is per rank (DeepEP's
 *    get_dispatch_layout returns is_token_in_rank [num_tokens, num_ranks],
 *    deepseek-ai/DeepEP deep_ep/buffer.py, now deep_ep/buffers/legacy.py),
 *    so a token goes once to each other rank holding any of its k
 *    experts and the combine reduces a rank's copies before sending them
 *    back. With the k experts drawn without replacement from E spread
 *    evenly, n = E/ep per rank, a given EP rank is missed with
 *    probability C(E-n, k)/C(E, k), so
 *    (ep-1) (1 - C(E-n, k)/C(E, k)) copies leave. Never more than the
 *    all-to-all's: equal when k = 1 or n = 1. With expert TP the flex
 *    dispatcher exchanges over the whole expert-TP x EP group at once
 *    (Megatron's MoEFlexTokenDispatcher, no separate gather): each hit EP
 *    rank's etp GPUs receive the token, (ep etp - 1)(1 - C(E-n, k)/C(E, k)).
 *    These are all the copies; which link carries them, when the group
 *    leaves its forwarding domain, is tp_ep_flex_copies's. */
double tp_ep_copies_out(int dispatcher, double E, double k, int ep, int etp)
{
    int g = ep * (etp > 1 ? etp : 1);
    if (dispatcher == TP_DISPATCH_ALLGATHER)
        return g - 1;
    if (dispatcher != TP_DISPATCH_DEEPEP && dispatcher != TP_DISPATCH_HYBRIDEP)
        return ep <= 1 ? 0.0 : k * (ep - 1) / ep;
    if (g <= 1)
        return 0.0;
    /* Capped for ep > E (n < 1), which the model refuses anyway. */
    return fmin((g - 1) * hit_p(E, k, E / ep), k * (g - 1) / ep);
}

int tp_ep_grouped(int dispatcher)
{
    return dispatcher == TP_DISPATCH_ALLGATHER ||
           dispatcher == TP_DISPATCH_DEEPEP ||
           dispatcher == TP_DISPATCH_HYBRIDEP;
}

/* Flex dispatchers whose group leaves its forwarding domain. Both route
 * hierarchically: a token crosses the scale-out fabric once to each other
 * forwarding domain holding one of its experts, to the GPU of the same
 * local index there, which forwards it over NVLink to that domain's ranks
 * holding its experts; the combine reduces a domain's copies before the
 * one send back (DeepSeek-V3 technical report, arXiv:2412.19437, §3.2.2;
 * DeepEP csrc/kernels/legacy/internode.cu, one RDMA copy per destination
 * node with any hit; DeepEP docs/Hybrid-EP_Implementation.md: "Similar to
 * DeepEP, Hybrid-EP first performs IB communication between peer GPUs",
 * its combine "pre-reduces data within node"). The forwarding domain is
 * the NVLink domain for HybridEP and at most 8 GPUs for DeepEP, whose
 * kernels have 8 NVLink peers (LEGACY_NUM_MAX_NVL_PEERS == 8 in
 * internode.cu), so on an NVL72 a DeepEP group beyond 8 GPUs crosses the
 * NICs. Both libraries need the group to be a whole number of forwarding
 * domains (HybridEP asserts it, DeepEP's layout kernel needs ranks % 8 ==
 * 0); a group that is not is taken in the largest equal domains that fit.
 *
 * The group is the expert-TP x EP group, g = ep etp consecutive ranks over
 * nd = g / d domains of d GPUs. With the k experts drawn without
 * replacement from E (balanced routing), a rank (n = E/ep experts, each
 * split over etp GPUs) is hit with p = hit_p(E, k, n) and a domain
 * (E d / g experts) with q = hit_p(E, k, E d / g):
 *   scale-out copies  (nd - 1) q
 *   NVLink copies     (d - 1) p            to this domain's ranks
 *                   + (nd - 1) q (d - 1) p / q   forwarded on arrival
 *                   = nd (d - 1) p
 * (the forwarding GPU sends on behalf of the token's source; by symmetry
 * every GPU forwards as many copies as its own tokens cause). Never more
 * scale-out copies than the flat per-rank exchange's: q <= d p. A router
 * limiting a token to a few nodes (DeepSeek-V3's group top-k) would send
 * fewer; the benchmarks force balanced routing. */
static int flex_domain(int dispatcher, int g, int domain)
{
    int d = dispatcher == TP_DISPATCH_DEEPEP && domain > TP_DEEPEP_NVL_PEERS
                ? TP_DEEPEP_NVL_PEERS
                : domain;
    if (d >= g)
        return g;
    while (d > 1 && g % d)
        d--;
    return d > 1 ? d : 1;
}

void tp_ep_flex_copies(int dispatcher, double E, double k, int ep, int etp,
                       int domain, double *c_nvl, double *c_so)
{
    int g = ep * (etp > 1 ? etp : 1), d = flex_domain(dispatcher, g, domain);
    double nd = (double)g / d;
    if (nd <= 1) {
        *c_so = 0.0;
        *c_nvl = tp_ep_copies_out(dispatcher, E, k, ep, etp);
        return;
    }
    *c_so = (nd - 1) * hit_p(E, k, E * d / g);
    *c_nvl = nd * (d - 1) * hit_p(E, k, E / ep);
}

/* Expert ranks are ordered etp-ep-dp (Megatron's expert rank generator):
 * the expert-TP group is consecutive and the EP group has stride etp, so
 * domain / etp of an all-to-all's peers share an NVLink domain; the
 * all-gather and flex dispatchers span the ep etp consecutive ranks, and a
 * flex exchange that leaves the domain runs both links at once
 * (tp_ep_flex_copies). */
double tp_ep_exchange_t(const tp_ep_in *in)
{
    int ep = in->ep, etp = in->etp, g = ep * etp, dom = in->domain;
    double c, t;
    if (g <= 1)
        return 0.0;
    if (in->dispatcher == TP_DISPATCH_ALLGATHER) {
        c = tp_ep_copies_out(in->dispatcher, in->E, in->k, ep, etp);
        return tp_coll_t(in->tok_bytes * c, g, 1, dom, in->nvl_Bps, in->so_Bps,
                         in->lat_so_s, in->steps);
    }
    if (tp_ep_grouped(in->dispatcher)) {
        double c_nvl, c_so;
        tp_ep_flex_copies(in->dispatcher, in->E, in->k, ep, etp, dom, &c_nvl,
                          &c_so);
        if (c_so <= 0)
            return tp_a2a_t(in->tok_bytes * c_nvl, g, g, in->nvl_Bps,
                            in->so_Bps, in->lat_so_s);
        t = fmax(in->tok_bytes * c_nvl / in->nvl_Bps,
                 in->tok_bytes * c_so / in->so_Bps);
        return t + in->lat_so_s;
    }
    c = tp_ep_copies_out(in->dispatcher, in->E, in->k, ep, etp);
    t = tp_a2a_t(in->tok_bytes * c, ep, dom / etp > 1 ? dom / etp : 1,
                 in->nvl_Bps, in->so_Bps, in->lat_so_s);
    return t + (etp > 1 ? tp_coll_t(in->etp_bytes, etp, 1, dom, in->nvl_Bps,
                                    in->so_Bps, in->lat_so_s, in->steps)
                        : 0.0);
}
