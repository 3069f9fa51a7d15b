/* tests/test_recipe.c: the software recipe as an input (models/tp_recipe.c,
 * io/calib_rows.c): the names of the recipe values, the full-iteration CUDA
 * graph term computed by hand, and the CSV columns: parsed into tp_query,
 * refused with FILE:LINE when unknown, and kept out of the configuration key
 * (a recipe change of one layout stays in one cross-validation fold); the
 * dispatcher's token copies and fixed time computed by hand; the EP
 * all-to-all overlap by what the recipe states. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/calib_rows.h"
#include "io/csv.h"
#include "models/precision.h"
#include "models/throughput.h"
#include "models/throughput_int.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

static void test_recipe_names_parse_and_round_trip(void **state)
{
    int ok;
    (void)state;
    assert_int_equal(tp_cuda_graph_parse(""), TP_CG_DEFAULT);
    assert_int_equal(tp_cuda_graph_parse("none"), TP_CG_NONE);
    assert_int_equal(tp_cuda_graph_parse("partial"), TP_CG_PARTIAL);
    assert_int_equal(tp_cuda_graph_parse("FULL"), TP_CG_FULL);
    assert_int_equal(tp_cuda_graph_parse("graphs"), -1);
    assert_string_equal(tp_cuda_graph_name(TP_CG_FULL), "full");
    assert_int_equal(tp_moe_dispatcher_parse("flex-hybridep"),
                     TP_DISPATCH_HYBRIDEP);
    assert_int_equal(tp_moe_dispatcher_parse("flex-deepep"),
                     TP_DISPATCH_DEEPEP);
    assert_int_equal(tp_moe_dispatcher_parse("allgather"),
                     TP_DISPATCH_ALLGATHER);
    assert_int_equal(tp_moe_dispatcher_parse("flex"), -1);
    assert_string_equal(tp_moe_dispatcher_name(TP_DISPATCH_ALLTOALL),
                        "alltoall");
    /* A stated "none" is not the unstated default: it discards nothing. */
    assert_int_equal(tp_recompute_modules_parse("none", &ok), TP_RECMOD_STATED);
    assert_int_equal(ok, 1);
    assert_int_equal(tp_recompute_modules_parse("", &ok), 0u);
    assert_int_equal(ok, 1);
    assert_int_equal(tp_recompute_modules_parse("mla_up_proj;moe_act", &ok),
                     TP_RECMOD_STATED | TP_RECMOD_MLA_UP_PROJ |
                         TP_RECMOD_MOE_ACT);
    assert_int_equal(ok, 1);
    assert_int_equal(tp_recompute_modules_parse("moe layernorm,core_attn", &ok),
                     TP_RECMOD_STATED | TP_RECMOD_MOE | TP_RECMOD_LAYERNORM |
                         TP_RECMOD_CORE_ATTN);
    assert_int_equal(ok, 1);
    tp_recompute_modules_parse("mlp;attn", &ok);
    assert_int_equal(ok, 0);
}

/* One GPU, pp 1, m micro-batches: the step holds m x (every layer's fixed
 * time) once, so full-iteration graphs with cg_full_fixed = 0.25 remove
 * exactly m x 0.75 x the fixed times; partial, none and unstated keep
 * them. Dense: Llama 3 8B, 32 layers x t_layer_s 1 ms x 4 micro-batches x
 * 0.75 = 96 ms. */
static void test_recipe_full_cuda_graph_removes_fixed_time_dense(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_query q;
    tp_result r0, r1, rp, rn;
    (void)state;
    tp_model_init(&m);
    m.p[TP_T_LAYER] = 1e-3;
    m.p[TP_CG_FULL_FIXED] = 0.25;
    q = one_gpu_query(&g, &a, 4, 4096, TP_RECOMPUTE_FULL);
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    q.cuda_graph = TP_CG_FULL;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.cuda_graph = TP_CG_PARTIAL;
    assert_int_equal(tp_predict(&m, &q, &rp), SIM_OK);
    q.cuda_graph = TP_CG_NONE;
    assert_int_equal(tp_predict(&m, &q, &rn), SIM_OK);
    assert_int_equal(r0.microbatches, 4);
    assert_close(r0.step_time_s - r1.step_time_s, 4 * 32 * 1e-3 * 0.75, 1e-9);
    assert_close(r0.t_compute_s - r1.t_compute_s, 4 * 32 * 1e-3 * 0.75, 1e-9);
    assert_close(rp.step_time_s, r0.step_time_s, 1e-12);
    assert_close(rn.step_time_s, r0.step_time_s, 1e-12);
    /* The neutral value changes nothing. */
    m.p[TP_CG_FULL_FIXED] = 1.0;
    q.cuda_graph = TP_CG_FULL;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_close(r1.step_time_s, r0.step_time_s, 1e-12);
}

/* MoE: the per-MoE-layer and per-local-expert fixed times go too. Qwen3
 * 30B-A3B on one GPU (128 local experts), 48 MoE layers, t_layer_s 0,
 * t_moe_layer_s 2 ms, t_moe_expert_s 0.1 ms, cg_full_fixed 0: per
 * micro-batch 48 x (2e-3 + 128 x 1e-4) = 0.7104 s, x 2 micro-batches. */
static void test_recipe_full_cuda_graph_removes_fixed_time_moe(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a;
    tp_query q;
    tp_result r0, r1;
    (void)state;
    a = qwen30();
    tp_model_init(&m);
    m.p[TP_T_LAYER] = 0;
    m.p[TP_T_MOE_LAYER] = 2e-3;
    m.p[TP_T_MOE_EXPERT] = 1e-4;
    m.p[TP_CG_FULL_FIXED] = 0;
    q = one_gpu_query(&g, &a, 2, 4096, TP_RECOMPUTE_FULL);
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK);
    q.cuda_graph = TP_CG_FULL;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_close(r0.step_time_s - r1.step_time_s, 2 * 48 * (2e-3 + 128 * 1e-4),
                 1e-9);
}

/* Token copies leaving a GPU per token, by hand. All-to-all: every routed
 * copy on another rank, k (ep-1)/ep. All-gather: ep - 1. Flex: once per
 * other rank holding one of the token's experts; E 128, k 8, ep 8 (16
 * experts per rank): a rank is missed with C(112,8)/C(128,8) =
 * (112 x 111 x ... x 105)/(128 x 127 x ... x 121) = 0.33258..., so
 * 7 x 0.66742 = 4.6719 copies against the all-to-all's 7. k = 1 or one
 * expert per rank: nothing to share, as the all-to-all. */
static void test_ep_copies_out_by_dispatcher(void **state)
{
    double miss = 1.0;
    (void)state;
    for (int i = 0; i < 8; i++)
        miss *= (112.0 - i) / (128.0 - i);
    assert_close(miss, 0.332580, 1e-5);
    assert_close(tp_ep_copies_out(TP_DISPATCH_ALLTOALL, 128, 8, 8, 1), 7.0,
                 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_DEFAULT, 128, 8, 8, 1), 7.0,
                 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_ALLGATHER, 128, 8, 8, 1), 7.0,
                 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_ALLGATHER, 128, 8, 4, 1), 3.0,
                 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 128, 8, 8, 1),
                 7.0 * (1.0 - miss), 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_DEEPEP, 128, 8, 8, 1),
                 7.0 * (1.0 - miss), 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 128, 1, 8, 1), 7.0 / 8,
                 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 64, 4, 64, 1),
                 tp_ep_copies_out(TP_DISPATCH_ALLTOALL, 64, 4, 64, 1), 1e-12);
    assert_close(tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 128, 8, 1, 1), 0.0, 0);
}

/* The dispatcher in a prediction: 8 H100 (one NVLink domain), ep 8, the
 * Qwen3 30B-A3B shape (48 MoE layers, hidden 2048, E 128, k 8), one
 * micro-batch of 4096 tokens, nothing overlapped (ovl_ep 0). Exposed EP
 * time = 4 exchanges x 48 layers x 4096 tokens x 2048 x 2 B x copies /
 * (450e9 x bw_nvlink 0.7) + the NVLink latency, so a flex dispatcher
 * saves exactly that volume at (7 - 4.6719) copies; the compute is the
 * same under every dispatcher. */
static void test_flex_dispatcher_in_a_prediction(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a;
    tp_query q;
    tp_result ra, rh, rd, r0;
    double dv;
    (void)state;
    a = qwen30();
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0;
    q = one_gpu_query(&g, &a, 8, 4096, TP_RECOMPUTE_NONE);
    q.n_gpus = 8;
    q.layout.ep = 8;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r0), SIM_OK); /* unstated */
    q.moe_dispatcher = TP_DISPATCH_ALLTOALL;
    assert_int_equal(tp_predict(&m, &q, &ra), SIM_OK);
    q.moe_dispatcher = TP_DISPATCH_HYBRIDEP;
    assert_int_equal(tp_predict(&m, &q, &rh), SIM_OK);
    q.moe_dispatcher = TP_DISPATCH_DEEPEP;
    assert_int_equal(tp_predict(&m, &q, &rd), SIM_OK);
    assert_int_equal(ra.microbatches, 1);
    dv = 4.0 * 48 * 4096 * 2048 * 2.0 *
         (7.0 - tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 128, 8, 8, 1)) /
         (450e9 * 0.7);
    assert_true(dv > 0.25 * ra.t_ep_s); /* a third of the volume */
    assert_close(ra.t_ep_s - rh.t_ep_s, dv, 1e-12);
    assert_close(ra.step_time_s - rh.step_time_s, dv, 1e-12);
    assert_close(ra.t_compute_s, rh.t_compute_s, 1e-15);
    assert_close(rd.step_time_s, rh.step_time_s, 1e-15);
    assert_close(r0.step_time_s, ra.step_time_s, 1e-15);
}

/* The recipe's EP overlap (tp_recipe_ep_overlap) by hand: Qwen3 30B-A3B on
 * 8 H100, ep 8, all-to-all, 2 micro-batches per step. Stated off, nothing
 * hides: the exposed exchange of a micro-batch is all of it, 4 exchanges x
 * 48 layers x 4096 tokens x 2048 wide x 2 B x 7 copies (k (ep-1)/ep = 8 x
 * 7/8) over NVLink at 0.7 of 450 GB/s, plus one NVLink latency. Unstated,
 * ovl_ep of it hides; stated on, ovl_ep_on, each at most the micro-batch's
 * compute (the other micro-batch in flight). Only the EP time moves. With
 * one micro-batch per step there is no other in flight: nothing hides,
 * whatever the recipe. */
static void test_ep_overlap_by_recipe(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a;
    tp_query q;
    tp_result off, def, on;
    double raw;
    (void)state;
    a = qwen30();
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0.25;
    m.p[TP_OVL_EP_ON] = 0.6;
    q = one_gpu_query(&g, &a, 16, 4096, TP_RECOMPUTE_NONE);
    q.n_gpus = 8;
    q.layout.ep = 8;
    q.moe_dispatcher = TP_DISPATCH_ALLTOALL;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    q.moe_a2a_overlap = TP_A2A_OVL_OFF;
    assert_int_equal(tp_predict(&m, &q, &off), SIM_OK);
    q.moe_a2a_overlap = TP_A2A_OVL_DEFAULT;
    assert_int_equal(tp_predict(&m, &q, &def), SIM_OK);
    q.moe_a2a_overlap = TP_A2A_OVL_ON;
    assert_int_equal(tp_predict(&m, &q, &on), SIM_OK);
    assert_int_equal(off.microbatches, 2);
    raw = off.t_ep_s;
    assert_close(raw,
                 2 * (4.0 * 48 * 4096 * 2048 * 2.0 * 7.0 / (450e9 * 0.7) +
                      TP_NVLINK_LAT_S),
                 1e-12);
    /* Nothing here reaches the window: the compute of a micro-batch is
     * far longer than its exchange. */
    assert_true(off.t_compute_s > raw);
    assert_close(def.t_ep_s, 0.75 * raw, 1e-12);
    assert_close(on.t_ep_s, 0.4 * raw, 1e-12);
    assert_close(off.step_time_s - on.step_time_s, 0.6 * raw, 1e-12);
    assert_close(off.t_compute_s, on.t_compute_s, 1e-15);
    assert_close(tp_recipe_ep_overlap(&m, &q, 2), 0.6, 1e-15);
    assert_close(tp_recipe_ep_overlap(&m, &q, 1), 0.0, 1e-15);
    q.moe_a2a_overlap = TP_A2A_OVL_OFF;
    assert_close(tp_recipe_ep_overlap(&m, &q, 2), 0.0, 1e-15);
    /* One micro-batch per step: the stated-on and unstated recipes expose
     * the whole exchange, as the stated-off one does. */
    q.gbs = 8;
    assert_int_equal(tp_predict(&m, &q, &off), SIM_OK);
    q.moe_a2a_overlap = TP_A2A_OVL_ON;
    assert_int_equal(tp_predict(&m, &q, &on), SIM_OK);
    q.moe_a2a_overlap = TP_A2A_OVL_DEFAULT;
    assert_int_equal(tp_predict(&m, &q, &def), SIM_OK);
    assert_int_equal(on.microbatches, 1);
    assert_close(on.t_ep_s, off.t_ep_s, 1e-15);
    assert_close(def.t_ep_s, off.t_ep_s, 1e-15);
    assert_close(off.t_ep_s, raw / 2, 1e-12);
}

/* A flex exchange that leaves the NVLink domain crosses the scale-out
 * fabric once per other domain hit and fans out over NVLink there, by
 * hand. Qwen3 30B-A3B's routing (E 128, k 8) over ep 16 in 8-GPU domains:
 * a rank (8 experts) is missed with C(120,8)/C(128,8) = (120 x ... x 113)
 * / (128 x ... x 121) = 0.587718, hit with p = 0.412282; the other domain
 * (64 experts) is missed with C(64,8)/C(128,8) = 0.0030959, hit with
 * q = 0.996904. Scale-out copies (nd - 1) q = 0.996904 (the flat per-rank
 * exchange sends 8 of its 15 p = 6.1842 copies off the domain, 3.298);
 * NVLink copies nd (d - 1) p = 2 x 7 x p = 5.771949. Inside one domain
 * nothing crosses and NVLink carries tp_ep_copies_out's copies. */
static void test_flex_copies_across_domains(void **state)
{
    double c_nvl, c_so, c_nvl1, c_so1;
    (void)state;
    tp_ep_flex_copies(TP_DISPATCH_HYBRIDEP, 128, 8, 16, 1, 8, &c_nvl, &c_so);
    assert_close(c_so, 0.996904, 1e-6);
    assert_close(c_nvl, 5.771949, 1e-6);
    assert_true(c_so < (16 - 8) * 0.412282);
    tp_ep_flex_copies(TP_DISPATCH_HYBRIDEP, 128, 8, 8, 1, 8, &c_nvl1, &c_so1);
    assert_close(c_so1, 0.0, 0);
    assert_close(c_nvl1, tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 128, 8, 8, 1),
                 1e-12);
    /* Expert TP: ep 8 x etp 2 spans the same 16 ranks in 2 domains; a
     * rank holds slices of 16 experts, a domain 64 experts. */
    tp_ep_flex_copies(TP_DISPATCH_HYBRIDEP, 128, 8, 8, 2, 8, &c_nvl, &c_so);
    assert_close(c_so, 0.996904, 1e-6);
    assert_close(c_nvl, 2 * 7 * 0.667420, 1e-6);
    /* Forwarding domains. DeepEP forwards within 8 GPUs even in a 72-GPU
     * NVLink domain, so ep 16 on an NVL72 crosses the NICs as on H100;
     * HybridEP keeps it on NVLink: the per-rank copies, 15 p. */
    tp_ep_flex_copies(TP_DISPATCH_DEEPEP, 128, 8, 16, 1, 72, &c_nvl, &c_so);
    assert_close(c_so, 0.996904, 1e-6);
    assert_close(c_nvl, 5.771949, 1e-6);
    tp_ep_flex_copies(TP_DISPATCH_HYBRIDEP, 128, 8, 16, 1, 72, &c_nvl, &c_so);
    assert_close(c_so, 0.0, 0);
    assert_close(c_nvl, 15 * 0.412282, 1e-6);
    /* A group that is not a whole number of domains is taken in the
     * largest equal ones: E 96, k 8, ep 12 (8 experts per rank) in 8-GPU
     * domains runs as 2 domains of 6 ranks (48 experts). A rank is missed
     * with C(88,8)/C(96,8) = 0.484739, a domain with C(48,8)/C(96,8) =
     * 0.0028457: c_so = 0.997154, c_nvl = 2 x 5 x 0.515261 = 5.15261. */
    tp_ep_flex_copies(TP_DISPATCH_HYBRIDEP, 96, 8, 12, 1, 8, &c_nvl, &c_so);
    assert_close(c_so, 0.997154, 1e-5);
    assert_close(c_nvl, 5.15261, 1e-5);
}

/* The same in a prediction: 16 H100 (two NVLink domains), ep 16, one
 * micro-batch of 4096 tokens per GPU, nothing overlapped. vol = 4
 * exchanges x 48 layers x 4096 tokens x 2048 x 2 B. HybridEP: the slower
 * link sets the time (scale-out here, NVLink with a 100 x faster fabric),
 * max(vol x 5.771949 / (450e9 x 0.7), vol x 0.996904 / (400e9 / 8 x 0.8)) + 8
 * us (scale-out here); the all-to-all sends k (ep-1)/ep = 7.5 copies, half of
 * them off the domain: max(vol x 3.75 / 315e9, vol x 3.75 / 40e9) + 8 us. */
static void test_flex_across_domains_in_a_prediction(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = qwen30();
    tp_query q;
    tp_result ra, rh;
    double vol = 4.0 * 48 * 4096 * 2048 * 2.0, nvl = 450e9 * 0.7,
           so = 400e9 / 8 * 0.8, th, ta;
    (void)state;
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0;
    q = one_gpu_query(&g, &a, 16, 4096, TP_RECOMPUTE_NONE);
    q.n_gpus = 16;
    q.layout.ep = 16;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    q.moe_dispatcher = TP_DISPATCH_ALLTOALL;
    assert_int_equal(tp_predict(&m, &q, &ra), SIM_OK);
    q.moe_dispatcher = TP_DISPATCH_HYBRIDEP;
    assert_int_equal(tp_predict(&m, &q, &rh), SIM_OK);
    assert_int_equal(rh.microbatches, 1);
    th = fmax(vol * 5.771949 / nvl, vol * 0.996904 / so) + 8e-6;
    ta = fmax(vol * 3.75 / nvl, vol * 3.75 / so) + 8e-6;
    assert_close(rh.t_ep_s, th, 1e-6);
    assert_close(ra.t_ep_s, ta, 1e-12);
    assert_true(ra.t_ep_s > 3.5 * rh.t_ep_s);
    assert_close(ra.t_compute_s, rh.t_compute_s, 1e-15);
    /* With a scale-out fabric 100 x faster, NVLink sets the time:
     * vol x 5.771949 / (450e9 x 0.7) + 8 us. */
    g.scaleout_bps = 40e12;
    assert_int_equal(tp_predict(&m, &q, &rh), SIM_OK);
    th = vol * 5.771949 / nvl + 8e-6;
    assert_true(vol * 0.996904 / (40e12 / 8 * 0.8) < 0.1 * th);
    assert_close(rh.t_ep_s, th, 1e-6);
}

/* Recomputation repeats the forward's collectives. EP: the Qwen3 shape on
 * 8 H100, ep 8, nothing overlapped; full recomputation, or selective with
 * "moe", sends one more forward's dispatch and combine: 6 exchanges per
 * MoE layer instead of 4, so 2 x 48 x 4096 x 2048 x 2 B x 7 copies /
 * (450e9 x 0.7) more (the latency is paid once either way); the default
 * modules (no "moe") send nothing more. TP: Llama 3 8B at tp 2 on 2 GPUs,
 * 32 layers x (attention + MLP) x 4 = 256 collectives, 384 under full
 * recomputation, each 4096 x 4096 x 2 B x 1/2 over NVLink plus its 3 us
 * latency. */
/* Predicts the BF16 query *q on n GPUs without recomputation (*rn) and
 * with full recomputation (*rf); *q is left at full recomputation. */
static void none_and_full(const tp_model *m, tp_query *q, int n, tp_result *rn,
                          tp_result *rf)
{
    q->n_gpus = n;
    assert_int_equal(precision_parse("BF16", &q->prec), SIM_OK);
    q->layout.recompute = TP_RECOMPUTE_NONE;
    assert_int_equal(tp_predict(m, q, rn), SIM_OK);
    q->layout.recompute = TP_RECOMPUTE_FULL;
    assert_int_equal(tp_predict(m, q, rf), SIM_OK);
}

static void test_recompute_repeats_the_forward_collectives(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = qwen30(), d = llama8();
    tp_query q;
    tp_result rn, rf, rs, rd;
    double dv;
    (void)state;
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0;
    m.p[TP_OVL_TP] = 0;
    q = one_gpu_query(&g, &a, 8, 4096, TP_RECOMPUTE_NONE);
    q.layout.ep = 8;
    none_and_full(&m, &q, 8, &rn, &rf);
    q.layout.recompute = TP_RECOMPUTE_SELECTIVE;
    q.recompute_modules = TP_RECMOD_STATED | TP_RECMOD_MOE;
    assert_int_equal(tp_predict(&m, &q, &rs), SIM_OK);
    q.recompute_modules = 0; /* the default modules */
    assert_int_equal(tp_predict(&m, &q, &rd), SIM_OK);
    dv = 2.0 * 48 * 4096 * 2048 * 2.0 * 7.0 / (450e9 * 0.7);
    assert_close(rf.t_ep_s - rn.t_ep_s, dv, 1e-12);
    assert_close(rs.t_ep_s - rn.t_ep_s, dv, 1e-12);
    assert_close(rd.t_ep_s, rn.t_ep_s, 1e-15);

    q = one_gpu_query(&g, &d, 1, 4096, TP_RECOMPUTE_NONE);
    q.layout.tp = 2;
    none_and_full(&m, &q, 2, &rn, &rf);
    assert_int_equal(rn.microbatches, 1);
    assert_close(rf.t_tp_s - rn.t_tp_s,
                 128 * (4096.0 * 4096 * 2.0 * 0.5 / (450e9 * 0.7) + 3e-6),
                 1e-9);
    /* Selective "mlp": the 32 MLPs' 2 forward collectives each again. */
    q.layout.recompute = TP_RECOMPUTE_SELECTIVE;
    q.recompute_modules = TP_RECMOD_STATED | TP_RECMOD_MLP;
    assert_int_equal(tp_predict(&m, &q, &rs), SIM_OK);
    assert_close(rs.t_tp_s - rn.t_tp_s,
                 64 * (4096.0 * 4096 * 2.0 * 0.5 / (450e9 * 0.7) + 3e-6), 1e-9);

    /* CP: cp 2 on 2 GPUs, 32 layers x 3 KV exchanges of 2048 tokens x
     * 8 KV heads x 128 x 2 (K, V) x 2 B = 96 exchanges, 128 under full
     * recomputation: 32 more, each 8.39 MB over NVLink plus 3 us. */
    m.p[TP_OVL_CP] = 0;
    q = one_gpu_query(&g, &d, 1, 4096, TP_RECOMPUTE_NONE);
    q.layout.cp = 2;
    none_and_full(&m, &q, 2, &rn, &rf);
    assert_close(rf.t_cp_s - rn.t_cp_s,
                 32 * (2048.0 * 1024 * 2 * 2.0 / (450e9 * 0.7) + 3e-6), 1e-9);
}

/* Megatron requires ep to divide the experts: ep 3 on 3 GPUs for a
 * 128-expert model is refused with a message, whether the rest of the
 * layout is given or chosen. */
static void test_ep_must_divide_the_experts(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = qwen30();
    tp_query q;
    tp_result r;
    (void)state;
    tp_model_init(&m);
    q = one_gpu_query(&g, &a, 3, 4096, TP_RECOMPUTE_FULL);
    q.n_gpus = 3;
    q.layout.ep = 3;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    assert_int_equal(tp_predict(&m, &q, &r), SIM_EINVAL);
    assert_string_equal(r.why, "ep = 3 does not divide the 128 experts");
    q.layout.tp = q.layout.pp = q.layout.mbs = 0;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_EINVAL);
    assert_string_equal(r.why, "ep = 3 does not divide the 128 experts");
    q.layout.ep = 4; /* divides the experts, not the 3 GPUs */
    q.layout.tp = q.layout.pp = q.layout.mbs = 1;
    assert_int_equal(tp_predict(&m, &q, &r), SIM_EINVAL);
    assert_non_null(strstr(r.why, "does not divide 3 GPUs"));
}

static gpu_spec g_h100;
static llm_arch g_llama;

static const gpu_spec *lk_gpu(void *c, const char *n)
{
    (void)c;
    return strcasecmp(n, "H100") == 0 ? &g_h100 : NULL;
}

static const llm_arch *lk_llm(void *c, const char *n)
{
    (void)c;
    return strcasecmp(n, "Llama 3.1 70B") == 0 ? &g_llama : NULL;
}

static void lk_names(void *c, const char *kind, char *buf, size_t n)
{
    (void)c;
    snprintf(buf, n, "%s",
             strcmp(kind, "gpus") == 0 ? "H100" : "Llama 3.1 70B");
}

static const calib_lookup lk = {lk_gpu, lk_llm, lk_names, NULL};

static void test_recipe_columns_parse_and_stay_out_of_config(void **state)
{
    csvt *t = NULL;
    sim_err e;
    calib_row r0, r1, r2;
    (void)state;
    g_h100 = h100();
    g_llama = llama8();
    strcpy(g_llama.name, "Llama 3.1 70B");
    assert_int_equal(csvt_read("tests/data/tp_rows_recipe.csv", &t, &e),
                     SIM_OK);
    assert_int_equal(calib_row_parse(t, 0, &lk, &r0, &e), SIM_OK);
    assert_int_equal(r0.q.cuda_graph, TP_CG_PARTIAL);
    assert_int_equal(r0.q.moe_dispatcher, TP_DISPATCH_HYBRIDEP);
    assert_int_equal(r0.q.recompute_modules, TP_RECMOD_STATED |
                                                 TP_RECMOD_MLA_UP_PROJ |
                                                 TP_RECMOD_MOE_ACT);
    assert_int_equal(r0.q.moe_a2a_overlap, 1);
    assert_int_equal(calib_row_parse(t, 1, &lk, &r1, &e), SIM_OK);
    assert_int_equal(r1.q.cuda_graph, TP_CG_FULL);
    assert_int_equal(r1.q.moe_dispatcher, TP_DISPATCH_ALLGATHER);
    assert_int_equal(r1.q.recompute_modules, TP_RECMOD_STATED); /* "none" */
    assert_int_equal(r1.q.moe_a2a_overlap, 2);
    assert_int_equal(calib_row_parse(t, 2, &lk, &r2, &e), SIM_OK);
    assert_int_equal(r2.q.cuda_graph, TP_CG_DEFAULT);
    assert_int_equal(r2.q.moe_dispatcher, TP_DISPATCH_DEFAULT);
    assert_int_equal(r2.q.moe_a2a_overlap, 0);
    /* One layout, three recipes and two releases: one configuration. */
    assert_string_equal(r0.config, r1.config);
    assert_string_equal(r0.config, r2.config);
    assert_int_equal(calib_row_parse(t, 3, &lk, &r2, &e), SIM_ECONFIG);
    assert_int_equal(e.line, 5);
    assert_non_null(strstr(e.msg, "cuda_graph: unknown value (got 'graphs'"));
    assert_int_equal(calib_row_parse(t, 4, &lk, &r2, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "moe_dispatcher: unknown value"));
    assert_int_equal(calib_row_parse(t, 5, &lk, &r2, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "recompute_modules: unknown module"));
    assert_int_equal(calib_row_parse(t, 6, &lk, &r2, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "moe_a2a_overlap: bad number"));
    csvt_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recipe_names_parse_and_round_trip),
        cmocka_unit_test(test_recipe_full_cuda_graph_removes_fixed_time_dense),
        cmocka_unit_test(test_recipe_full_cuda_graph_removes_fixed_time_moe),
        cmocka_unit_test(test_ep_copies_out_by_dispatcher),
        cmocka_unit_test(test_flex_dispatcher_in_a_prediction),
        cmocka_unit_test(test_ep_overlap_by_recipe),
        cmocka_unit_test(test_flex_copies_across_domains),
        cmocka_unit_test(test_flex_across_domains_in_a_prediction),
        cmocka_unit_test(test_recompute_repeats_the_forward_collectives),
        cmocka_unit_test(test_ep_must_divide_the_experts),
        cmocka_unit_test(test_recipe_columns_parse_and_stay_out_of_config),
    };
    return cmocka_run_group_tests_name("recipe", tests, NULL, NULL);
}
