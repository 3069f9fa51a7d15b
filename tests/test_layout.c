/* tests/test_layout.c: the memory model, pipeline schedule and layout
 * chooser of models/throughput.h (issue 17; docs/throughput-model.md §7):
 * published formulas on hand-built models, and the published layouts of
 * data/calibration/megatron_throughput.csv (they ran, so they must fit, and
 * the chooser must never pick a slower one). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/throughput_int.h"
#include "tests/testutil.h"
#include "tests/tp_refs.h"
#include "tests/tp_fixtures.h"

#define REF_CSV TP_REFS_CSV

/* GPT-3-like layer of Korthikanti et al. 2022: MHA, F = 4h, GeLU. */
static llm_arch gpt(void)
{
    llm_arch a;
    memset(&a, 0, sizeof a);
    strcpy(a.name, "GPT test");
    a.cls = LLM_DENSE;
    a.num_layers = 96;
    a.hidden_size = 12288;
    a.ffn_hidden_size = 4 * 12288;
    a.num_attention_heads = 96;
    a.vocab_size = 51200;
    a.default_seq_len = 2048;
    return a;
}

static void test_layout_activations_follow_korthikanti_table_2(void **state)
{
    llm_arch a = gpt();
    llm_layers nl;
    double h = a.hidden_size, as = 96.0 * 2048;
    unsigned k = TP_ACT_DROPOUT | TP_ACT_UNFUSED_ATTN;
    (void)state;
    flops_layers(&a, 0, &nl);
    for (int t = 1; t <= 8; t *= 2) {
        /* Unfused attention, TP + SP, no recomputation: sbh(34 + 5as/h)/t
         * per layer. */
        assert_close(tp_act_bytes_per_token(&a, &nl, t, 1, 1, TP_RECOMPUTE_NONE,
                                            0, 2048, 2, k),
                     h * (34 + 5 * as / h) / t, 1e-12);
        /* TP only: sbh(10 + 24/t + 5as/(ht)). */
        assert_close(tp_act_bytes_per_token(&a, &nl, t, 1, 0, TP_RECOMPUTE_NONE,
                                            0, 2048, 2, k),
                     h * (10 + 24.0 / t + 5 * as / (h * t)), 1e-12);
        /* Fused (flash) attention never stores the scores: 34 sbh / t
         * without recomputation, Korthikanti's selective figure. */
        assert_close(tp_act_bytes_per_token(&a, &nl, t, 1, 1, TP_RECOMPUTE_NONE,
                                            0, 2048, 2, TP_ACT_DROPOUT),
                     34 * h / t, 1e-12);
        /* Selective (Megatron's layernorm, moe_act, mla_up_proj modules)
         * saves nothing more on an MHA + dense MLP layer: both norms are
         * fused into their first GEMM, which keeps its input. */
        assert_close(tp_act_bytes_per_token(&a, &nl, t, 1, 1,
                                            TP_RECOMPUTE_SELECTIVE, 0, 2048, 2,
                                            k),
                     34 * h / t, 1e-12);
        /* Full recomputation keeps the layer input: 2 sbh / t. */
        assert_close(tp_act_bytes_per_token(&a, &nl, t, 1, 1, TP_RECOMPUTE_FULL,
                                            0, 2048, 2, k),
                     2 * h / t, 1e-12);
    }
}

/* One MoE layer of the gpt() family: h hidden, nh heads, E experts of Fm,
 * k routed per token, glu 1 with gated experts. */
static llm_arch moe_layer(int h, int nh, int E, int k, int Fm, int glu)
{
    llm_arch a = gpt();
    a.cls = LLM_MOE;
    a.num_layers = 1;
    a.hidden_size = h;
    a.num_attention_heads = nh;
    a.num_experts = E;
    a.experts_per_token = k;
    a.moe_ffn_hidden_size = Fm;
    a.gated_linear_unit = glu;
    return a;
}

/* Selective recomputation on an MoE layer drops the separate pre-MLP
 * norm's output (h elements per token, "layernorm") and each routed copy's
 * activation output (Fm elements, "moe_act"); on an MLA layer it also drops
 * the up-projected Q, K, V ("mla_up_proj") and the input norm's output. */
static void test_layout_selective_drops_megatron_modules(void **state)
{
    llm_arch a = moe_layer(7168, 128, 256, 8, 2048, 1);
    llm_layers nl;
    double h, k = 8, Fm = 2048, gi = 1, nh, hd, dqk, none, sel;
    (void)state;
    flops_layers(&a, 0, &nl);
    h = a.hidden_size;
    nh = a.num_attention_heads;
    hd = flops_head_dim(&a);
    none = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_NONE, 0, 4096,
                                  gi, 0);
    sel = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_SELECTIVE, 0,
                                 4096, gi, 0);
    assert_true(nl.moe > 0);
    assert_close((none - sel) * nl.total, nl.moe * (gi * h + k * gi * Fm),
                 1e-12);
    a.kv_lora_rank = 512;
    a.q_lora_rank = 1536;
    flops_layers(&a, 0, &nl);
    hd = flops_head_dim(&a);
    dqk = hd + FLOPS_MLA_ROPE_DIM;
    none = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_NONE, 0, 4096,
                                  gi, 0);
    sel = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_SELECTIVE, 0,
                                 4096, gi, 0);
    assert_close((none - sel) * nl.total,
                 nl.moe * (gi * h + k * gi * Fm) +
                     nl.attn * (gi * h + 2 * (2 * nh * dqk + nh * hd)),
                 1e-12);
}

/* A recipe's recompute_modules decide what selective recomputation drops:
 * "moe" checkpoints the whole MoE block, which then keeps only its input
 * (the pre-MLP norm's output, itself discarded with "layernorm"), "mlp"
 * the dense MLP likewise; "core_attn" changes nothing under fused
 * attention (Megatron transformer_layer.py, recompute_modules). */
static void test_layout_recompute_modules_moe_keeps_block_input(void **state)
{
    llm_arch a = moe_layer(2688, 32, 128, 6, 1856, 0);
    llm_layers nl;
    double h, k = 6, Fm = 1856, w, gi = 1, none, sel;
    (void)state;
    flops_layers(&a, 0, &nl);
    h = w = a.hidden_size;
    none = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_NONE, 0, 8192,
                                  gi, 0);
    sel = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_SELECTIVE,
                                 TP_RECMOD_MOE | TP_RECMOD_LAYERNORM |
                                     TP_RECMOD_CORE_ATTN | TP_RECMOD_MOE_ACT,
                                 8192, gi, 0);
    assert_true(nl.moe > 0);
    /* dropped: the norm's output (gi h) and every routed copy's expert
     * input, fc1 output (2 Fm, no gating) and fc2 input */
    assert_close((none - sel) * nl.total,
                 nl.moe * (gi * h + k * (gi * w + 2 * Fm + gi * Fm)), 1e-12);
    /* "moe" alone keeps the norm's output as the block's saved input */
    sel = tp_act_bytes_per_token(&a, &nl, 1, 1, 0, TP_RECOMPUTE_SELECTIVE,
                                 TP_RECMOD_MOE, 8192, gi, 0);
    assert_close((none - sel) * nl.total,
                 nl.moe * ((gi - 2) * h + k * (gi * w + 2 * Fm + gi * Fm)),
                 1e-12);
    /* no list: the default modules, as before the recipe columns */
    assert_close(tp_act_bytes_per_token(&a, &nl, 1, 1, 0,
                                        TP_RECOMPUTE_SELECTIVE, 0, 8192, gi, 0),
                 tp_act_bytes_per_token(&a, &nl, 1, 1, 0,
                                        TP_RECOMPUTE_SELECTIVE,
                                        TP_RECMOD_DEFAULT, 8192, gi, 0),
                 1e-12);
}

static void test_layout_inflight_microbatches_follow_megatron(void **state)
{
    (void)state;
    /* 1F1B: rank r holds min(pp - r, m): the first pp, the last one. */
    assert_close(tp_inflight(8, 1, 64, 0), 8, 1e-15);
    assert_close(tp_inflight(8, 1, 5, 0), 5, 1e-15);
    assert_close(tp_inflight(8, 1, 64, 1), 7, 1e-15);
    assert_close(tp_inflight(8, 1, 64, 7), 1, 1e-15);
    assert_close(tp_inflight(1, 1, 64, 0), 1, 1e-15);
    /* Interleaved: pp (1 + (pp-1)/(pp vp)) (Megatron-LM
     * theoretical_memory_usage.py) on the first stage. */
    for (int pp = 2; pp <= 16; pp *= 2)
        for (int vp = 2; vp <= 8; vp *= 2) {
            assert_close(tp_inflight(pp, vp, 1000, 0),
                         pp * (1 + (pp - 1.0) / (pp * vp)), 1e-12);
            /* rank r warms up (pp - r - 1) 2 + (vp-1) pp + 1 chunks of
             * 1/vp stage (Megatron's schedules.py) */
            for (int r = 1; r < pp; r++)
                assert_close(tp_inflight(pp, vp, 1000, r),
                             ((pp - r - 1) * 2.0 + (vp - 1.0) * pp + 1) / vp,
                             1e-12);
        }
}

static void test_layout_bubble_is_narayanan_interleaved_fraction(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = gpt();
    (void)state;
    tp_model_init(&m);
    a.num_layers = 96;
    for (int pp = 2; pp <= 8; pp *= 2)
        for (int vp = 1; vp <= 4; vp++) {
            tp_query q;
            tp_result r;
            double per;
            memset(&q, 0, sizeof q);
            q.gpu = &g;
            q.llm = &a;
            q.prec = (precision){PREC_BF16, NUM_BF16};
            q.n_gpus = 8 * pp * 4;
            q.gbs = 4 * 48;
            q.seq_len = 2048;
            q.layout = (tp_layout){
                8, pp, 1, 1, vp, 0, 1, TP_RECOMPUTE_FULL, TP_DISTOPT_ON, 0};
            assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
            assert_int_equal(r.chosen, 0);
            /* Megatron (Narayanan et al. 2021 §2.2): bubble time fraction
             * of the ideal m micro-batches = (pp - 1) / (vp m). */
            per = r.t_compute_s + r.t_tp_s + r.t_cp_s + r.t_ep_s + r.t_pp_s;
            assert_close(r.t_bubble_s / per, (pp - 1.0) / (vp * r.microbatches),
                         1e-12);
        }
}

/* Brute force: the best bottleneck over every split of L layers into pp
 * stages (the last also running out layers). */
static double brute_split(int L, int pp, double out, int stage, int left,
                          double worst)
{
    double best = 1e300;
    if (stage == pp - 1) {
        double t = left + out;
        return t > worst ? t : worst;
    }
    for (int n = 0; n <= left; n++) {
        double w = n > worst ? n : worst, t;
        if (w >= best)
            break;
        t = brute_split(L, pp, out, stage + 1, left - n, w);
        if (t < best)
            best = t;
    }
    return best;
}

static void test_layout_uneven_split_is_the_best_integer_split(void **state)
{
    (void)state;
    for (int L = 3; L <= 14; L++)
        for (int pp = 1; pp <= 5 && pp <= L; pp++)
            for (double out = 0; out <= 2.5; out += 0.7) {
                int no, nl;
                double t = tp_stage_split(L, pp, out, &no, &nl);
                assert_close(t, brute_split(L, pp, out, 0, L, 0), 1e-12);
                /* the stages hold every layer */
                assert_true(pp == 1 ? no == L && nl == L
                                    : (pp - 1) * no + nl >= L);
            }
    {
        /* Llama 3.1 405B, pp 8, the output layer worth one layer: the
         * other stages hold 16 layers, the last 14 + the output layer. */
        int no, nl;
        assert_close(tp_stage_split(126, 8, 1.0, &no, &nl), 16, 1e-15);
        assert_int_equal(no, 16);
        assert_int_equal(nl, 15); /* the most even of the best splits */
    }
}

static void test_layout_optimizer_bytes_by_sharding_bf16_grads(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = gpt();
    double Pd, Pe;
    (void)state;
    tp_model_init(&m);
    a.num_layers = 8;
    flops_params(&a, 0, &Pd, &Pe);
    for (int d = TP_DISTOPT_OFF; d <= TP_DISTOPT_ON; d++) {
        tp_query q;
        tp_result r;
        double dp = 16, bpp = d == TP_DISTOPT_ON ? 4 + 16 / dp : 20;
        memset(&q, 0, sizeof q);
        q.gpu = &g;
        q.llm = &a;
        q.prec = (precision){PREC_BF16, NUM_BF16};
        q.n_gpus = 8 * 16;
        q.gbs = 64;
        q.seq_len = 2048;
        q.layout = (tp_layout){8, 1, 1, 1, 1, 0, 1, TP_RECOMPUTE_FULL, d, 0};
        assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
        /* pp 1: every weight (embedding and output included) / tp, at
         * 20 B or 4 + 16/dp B per parameter (Megatron, bf16 gradients). */
        assert_close(r.mem_states_bytes, Pd / 8 * bpp, 1e-12);
    }
}

/* The chooser against a brute force over the same space, every field
 * given, on hand-built cases: it never loses the optimum. */
static void test_layout_chooser_matches_brute_force(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = gpt();
    tp_query q;
    tp_result best, r;
    double bt = 1e300;
    (void)state;
    tp_model_init(&m);
    a.num_layers = 24;
    a.hidden_size = 6144;
    a.ffn_hidden_size = 4 * 6144;
    a.num_attention_heads = 48;
    memset(&q, 0, sizeof q);
    q.gpu = &g;
    q.llm = &a;
    q.prec = (precision){PREC_BF16, NUM_BF16};
    q.n_gpus = 64;
    q.gbs = 256;
    q.seq_len = 8192;
    assert_int_equal(tp_predict(&m, &q, &best), SIM_OK);
    assert_int_equal(best.chosen,
                     (1u << TP_FIELD_TP) | (1u << TP_FIELD_PP) |
                         (1u << TP_FIELD_VP) | (1u << TP_FIELD_CP) |
                         (1u << TP_FIELD_MBS) | (1u << TP_FIELD_RECOMPUTE) |
                         (1u << TP_FIELD_DISTOPT));
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int pp = 1; pp <= 24; pp++)
            for (int cp = 1; cp <= 2; cp *= 2)
                for (int vp = 1; vp <= 24 / pp; vp++)
                    for (int mbs = 1; mbs <= 16; mbs *= 2)
                        for (int rc = 1; rc <= 3; rc++)
                            for (int d = 1; d <= 2; d++) {
                                q.layout = (tp_layout){tp, pp,  cp, 1, vp,
                                                       0,  mbs, rc, d, 0};
                                if (tp_predict(&m, &q, &r) != SIM_OK || !r.fits)
                                    continue;
                                if (vp > 1 &&
                                    (r.microbatches < pp || vp > r.layers_min ||
                                     vp > r.layers_last + 1))
                                    continue;
                                if (r.step_time_s < bt)
                                    bt = r.step_time_s;
                            }
    assert_true(bt < 1e300);
    assert_close(best.step_time_s, bt, 1e-12);
}

static void test_layout_blank_vp_is_chosen_never_one(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = gpt();
    tp_query q;
    tp_result r, r1;
    (void)state;
    tp_model_init(&m);
    memset(&q, 0, sizeof q);
    q.gpu = &g;
    q.llm = &a;
    q.prec = (precision){PREC_BF16, NUM_BF16};
    q.n_gpus = 1024;
    q.gbs = 1536;
    q.seq_len = 2048;
    q.layout = (tp_layout){8, 8, 1, 1, 0, 0, 1, 0, 0, 0};
    assert_int_equal(tp_predict(&m, &q, &r), SIM_OK);
    assert_true(r.chosen & 1u << TP_FIELD_VP);
    assert_false(r.chosen & 1u << TP_FIELD_TP);
    assert_false(r.chosen & 1u << TP_FIELD_PP);
    assert_int_equal(r.layout.tp, 8);
    assert_int_equal(r.layout.pp, 8);
    assert_true(r.layout.vp > 1); /* interleaving pays here */
    q.layout.vp = 1;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_false(r1.chosen & 1u << TP_FIELD_VP);
    assert_true(r.step_time_s < r1.step_time_s);
    {
        char buf[128];
        assert_string_equal(tp_chosen_list(r.chosen, buf, sizeof buf),
                            "vp,recompute,distributed_optimizer");
    }
}

/* ---- the published layouts ---- */

typedef struct fixture {
    catalog *cat;
    tp_model *m;
    csvt *t;
    calib_row *rows;
    unsigned char *ok;
    size_t n;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || tp_refs_load(REF_CSV, &f->cat, &f->m, &f->t, &f->rows, &f->ok,
                           &f->n) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tp_refs_free(f->cat, f->m, f->t, f->rows, f->ok);
    free(f);
    return 0;
}

/* Published rows with a full layout (tp given) the model can evaluate;
 * the recompute mode, which the rows do not state, is chosen (the fastest
 * that fits, as the run's recipe would pick). */
static int published(const fixture *f, size_t i, tp_result *r)
{
    tp_query q = f->rows[i].q;
    if (f->rows[i].blank & 1u << TP_FIELD_RECOMPUTE)
        q.layout.recompute = TP_RECOMPUTE_CHOOSE;
    return f->ok[i] && q.layout.tp > 0 && tp_predict(f->m, &q, r) == SIM_OK;
}

static void test_layout_published_layouts_fit(void **state)
{
    fixture *f = *state;
    size_t n = 0, fit = 0;
    for (size_t i = 0; i < f->n; i++) {
        tp_result r;
        if (!published(f, i, &r))
            continue;
        n++;
        if (r.fits)
            fit++;
        else
            print_message("does not fit: line %d %s on %d %s: %.1f of %.1f GB"
                          "\n",
                          f->rows[i].line, f->rows[i].llm->name,
                          f->rows[i].q.n_gpus, f->rows[i].gpu->name,
                          r.mem_bytes_per_gpu / GPU_HBM_GB_BYTES,
                          r.mem_usable_bytes / GPU_HBM_GB_BYTES);
    }
    print_message("published layouts that fit: %zu of %zu (%.2f %%)\n", fit, n,
                  100.0 * (double)fit / (double)n);
    assert_true(n >= 500);
    assert_true((double)fit >= 0.98 * (double)n);
}

/* Expert tensor parallelism (etp), by hand: the Qwen3 30B-A3B shape on 8
 * H100 at tp 2, ep 4, one micro-batch of 4096 tokens, nothing overlapped.
 * - etp 2 adds the expert-TP all-gather and reduce-scatter of the routed
 *   tokens, forward and backward: 4 x 48 MoE layers x 2048 sequence-
 *   parallel tokens x k 8 x hidden 2048 x 2 B x (etp - 1) over NVLink
 *   (450e9 x bw_nvlink 0.7), plus 192 latencies of 3 us; the all-to-all
 *   is the same (ep 4 with stride 2 stays in the 8-GPU domain).
 * - the experts' weights, gradients and Adam state per GPU halve: 48 x 128
 *   experts x 3 x 2048 x 768 parameters over ep 4 (etp 1, expert DP 2)
 *   or ep 4 x etp 2 (expert DP 1), tp_bytes_per_param for each group.
 * - left 0 with tp 2, etp is chosen (1 or tp) and named; a size that does
 *   not divide the GPUs of a stage or the experts' width is refused. */
static void test_layout_expert_tensor_parallel(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = qwen30();
    tp_query q;
    tp_result r1, r2, rc;
    double Pe = 48.0 * 128 * 3 * 2048 * 768, dv;
    (void)state;
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0;
    q = one_gpu_query(&g, &a, 4, 4096, TP_RECOMPUTE_NONE);
    q.n_gpus = 8;
    q.layout.tp = 2;
    q.layout.ep = 4;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    q.layout.etp = 1;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.layout.etp = 2;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    assert_int_equal(r1.microbatches, 1);
    assert_int_equal(r2.layout.etp, 2);
    dv = 4.0 * 48 * 2048 * 8 * 2048 * 2.0 / (450e9 * 0.7) + 192 * 3e-6;
    assert_close(r2.t_ep_s - r1.t_ep_s, dv, 1e-9);
    assert_close(r1.mem_states_bytes - r2.mem_states_bytes,
                 Pe / 4 * tp_bytes_per_param(TP_DISTOPT_ON, 0, 2, 0) -
                     Pe / 8 * tp_bytes_per_param(TP_DISTOPT_ON, 0, 1, 0),
                 1e-6 * Pe);
    /* Chosen, neither fits: the one with less memory. */
    assert_false(r1.fits);
    assert_false(r2.fits);
    q.layout.etp = 0;
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_OK);
    assert_true(rc.chosen & 1u << TP_FIELD_ETP);
    assert_int_equal(rc.layout.etp, 2);
    /* Chosen, both fit (32 experts): the faster of the two. */
    a.num_experts = 32;
    q.layout.etp = 1;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.layout.etp = 2;
    assert_int_equal(tp_predict(&m, &q, &r2), SIM_OK);
    assert_true(r1.fits && r2.fits);
    q.layout.etp = 0;
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_OK);
    assert_int_equal(rc.layout.etp, r1.step_time_s <= r2.step_time_s ? 1 : 2);
    assert_close(rc.step_time_s,
                 r1.step_time_s < r2.step_time_s ? r1.step_time_s
                                                 : r2.step_time_s,
                 1e-15);
    /* The flex and all-gather dispatchers exchange over the 8 consecutive
     * ranks of the expert-TP x EP group at once, with no separate gather:
     * flex sends a token to each of the 2 GPUs of every EP rank holding
     * one of its experts (32 experts here, 8 per EP rank),
     * (8 - 1)(1 - C(24, 8)/C(32, 8)) copies, in one
     * all-to-all (one NVLink latency); all-gather sends 7 (192 steps). */
    q.layout.etp = 2;
    q.moe_dispatcher = TP_DISPATCH_HYBRIDEP;
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_OK);
    {
        double miss = 1, c;
        for (int i = 0; i < 8; i++)
            miss *= (24.0 - i) / (32.0 - i);
        c = 7 * (1 - miss);
        assert_close(tp_ep_copies_out(TP_DISPATCH_HYBRIDEP, 32, 8, 4, 2), c,
                     1e-12);
        assert_close(rc.t_ep_s,
                     4.0 * 48 * 2048 * 2048 * 2.0 * c / (450e9 * 0.7) + 3e-6,
                     1e-9);
    }
    q.moe_dispatcher = TP_DISPATCH_ALLGATHER;
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_OK);
    assert_close(rc.t_ep_s,
                 4.0 * 48 * 2048 * 2048 * 2.0 * 7 / (450e9 * 0.7) + 192 * 3e-6,
                 1e-9);
    q.moe_dispatcher = TP_DISPATCH_DEFAULT;
    /* Refused sizes. */
    q.layout.etp = 4; /* ep 4 x etp 4 = 16 GPUs > 8 */
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_EINVAL);
    assert_string_equal(rc.why, "ep*etp = 16 does not divide 8 GPUs per stage");
    a.moe_ffn_hidden_size = 769;
    q.layout.etp = 2;
    assert_int_equal(tp_predict(&m, &q, &rc), SIM_EINVAL);
    assert_string_equal(rc.why,
                        "etp = 2 does not divide the experts' width 769");
}

/* The all-to-all's peers at stride etp: the Qwen3 shape on 32 H100 (8 per
 * NVLink domain) at tp 4, ep 8, etp 4. The 8 EP peers sit 4 ranks apart,
 * so only 8 / 4 = 2 of them share a domain: a quarter of the exchange
 * goes over NVLink, three quarters over the 400 Gb/s scale-out (x
 * bw_scaleout 0.8), concurrently, plus one scale-out latency; with etp 1
 * all 8 peers are inside the domain. The volume is the same either way:
 * 4 x 48 layers x 1024 sequence-parallel tokens x 7 copies x 2048 x 2 B. */
static void test_layout_etp_spreads_the_all_to_all(void **state)
{
    tp_model m;
    gpu_spec g = h100();
    llm_arch a = qwen30();
    tp_query q;
    tp_result r1, r4;
    double vol = 4.0 * 48 * 1024 * 7 * 2048 * 2.0, nvl = 450e9 * 0.7,
           so = 400e9 / 8 * 0.8, etp_t, a2a;
    (void)state;
    tp_model_init(&m);
    m.p[TP_OVL_EP] = 0;
    q = one_gpu_query(&g, &a, 8, 4096, TP_RECOMPUTE_FULL);
    q.n_gpus = 32;
    q.layout.tp = 4;
    q.layout.ep = 8;
    assert_int_equal(precision_parse("BF16", &q.prec), SIM_OK);
    q.layout.etp = 1;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.layout.etp = 4;
    assert_int_equal(tp_predict(&m, &q, &r4), SIM_OK);
    assert_int_equal(r1.microbatches, 1);
    /* Full recomputation: 6 exchanges per layer instead of 4. */
    assert_close(r1.t_ep_s, 1.5 * vol / nvl + 3e-6, 1e-9);
    a2a = fmax(1.5 * vol * 0.25 / nvl, 1.5 * vol * 0.75 / so) + m.dp_latency_s;
    etp_t = 1.5 * 4 * 48 * 1024 * 8 * 2048 * 2.0 * 3 / nvl + 288 * 3e-6;
    assert_close(r4.t_ep_s, a2a + etp_t, 1e-9);
}

/* The etp column of the published rows: the dgxc Grok-1 GB200 rows state
 * 8 (the launch script's -et) and fit only because the experts are split;
 * a blank cell (the 2024 Grok-1 H100 rows) is Megatron's default, the
 * row's tp, flagged blank so that predict --csv chooses it; a dense row
 * reads 1. */
static void test_layout_published_etp(void **state)
{
    fixture *f = *state;
    size_t grok_gb = 0, grok_blank = 0, dense = 0;
    for (size_t i = 0; i < f->n; i++) {
        const calib_row *row = &f->rows[i];
        tp_result r;
        tp_query q;
        if (!f->ok[i])
            continue;
        if (strcmp(row->llm->name, "Grok-1 314B") == 0 &&
            strcmp(row->gpu->name, "GB200") == 0) {
            assert_int_equal(row->q.layout.etp, 8);
            assert_true(published(f, i, &r));
            assert_true(r.fits);
            /* Whole experts at pp 1 (etp 1) do not fit 128 GPUs even with
             * full recomputation: 64 layers' expert weights and gradients
             * with Adam sharded over only 16 expert-DP ranks. */
            q = row->q;
            q.layout.etp = 1;
            q.layout.recompute = TP_RECOMPUTE_FULL;
            assert_int_equal(tp_predict(f->m, &q, &r), SIM_OK);
            if (q.n_gpus == 128)
                assert_false(r.fits);
            grok_gb++;
        } else if (strcmp(row->llm->name, "Grok-1 314B") == 0 &&
                   row->blank & 1u << TP_FIELD_ETP) {
            assert_int_equal(row->q.layout.etp, row->q.layout.tp);
            grok_blank++;
        } else if (row->llm->num_experts == 0 && row->q.layout.tp > 0) {
            assert_int_equal(row->q.layout.etp, 1);
            dense++;
        }
    }
    assert_int_equal(grok_gb, 6);
    assert_true(grok_blank >= 28);
    assert_true(dense >= 290);
}

static void test_layout_chosen_never_slower_than_published(void **state)
{
    fixture *f = *state;
    size_t n = 0, faster = 0;
    double gain = 0;
    for (size_t i = 0; i < f->n; i++) {
        tp_result r, c;
        tp_query q;
        if (!published(f, i, &r) || !r.fits)
            continue;
        q = f->rows[i].q;
        q.layout = (tp_layout){0, 0, 0, 0, 0, q.layout.fsdp, 0, 0, 0, 0};
        assert_int_equal(tp_predict(f->m, &q, &c), SIM_OK);
        assert_true(c.fits);
        if (c.tokens_per_sec_per_gpu < r.tokens_per_sec_per_gpu * (1 - 1e-12))
            print_message("line %d: chosen %.1f < published %.1f\n",
                          f->rows[i].line, c.tokens_per_sec_per_gpu,
                          r.tokens_per_sec_per_gpu);
        assert_true(c.tokens_per_sec_per_gpu >=
                    r.tokens_per_sec_per_gpu * (1 - 1e-12));
        n++;
        faster += c.tokens_per_sec_per_gpu > r.tokens_per_sec_per_gpu * 1.001;
        gain += log(c.tokens_per_sec_per_gpu / r.tokens_per_sec_per_gpu);
    }
    print_message("chosen vs published: %zu rows, %zu predicted faster by "
                  "> 0.1 %%, geometric mean gain %.2f %%\n",
                  n, faster, 100 * (exp(gain / (double)n) - 1));
    assert_true(n >= 490);
}

/* Llama 3 70B on 64 H100 (Megatron-Bridge LLAMA3_70B_PRETRAIN_CONFIG_H100_
 * FP8_CS: tp 4, pp 8, vp 5, mbs 1, gbs 256, seq 8192, no recomputation),
 * by hand per term, h 8192, F 28672, 64 query and 8 KV heads of 128:
 *  - activations per token and layer, FP8 (GEMM inputs kept in 1 byte),
 *    SP over 4: two blocks of norm input 2h + first GEMM input h, /4
 *    = 12288; Q, K, V 2(8192 + 2 x 1024) + proj input 8192 = 28672 and
 *    SwiGLU input 2 x 2F + fc2 input F = 143360, /4 = 43008: 55296 B;
 *  - in flight on rank 1 (the middle rank, 11 of the 80 layers: the last
 *    stage also runs the output layer): ((8 - 1 - 1) 2 + (5 - 1) 8 + 1) / 5
 *    = 9 stages' worth of micro-batches;
 *  - weights, bf16 gradients and Adam sharded over dp 2: 4 + 16/2 = 12 B
 *    per parameter, 855,654,400 per layer (attention 8192 x 10240 + 8192 x
 *    8192, MLP 3 x 8192 x 28672), /4;
 *  - usable: 90 % of 80 x 2^30 B (the catalog's "80 GB" in binary GB;
 *    NVML's total is 81,559 MiB = 79.65 x 2^30 B, so the catalog is 0.4 %
 *    high, inside the 10 % reserve).
 * 11 x 55296 x 8192 x 9 + 11 x 855654400 / 4 x 12 = 44.84e9 + 28.24e9 B,
 * 73.08e9 B of 77.31e9: recompute none fits, so the chooser keeps it. */
static void test_layout_llama3_70b_h100_fits_without_recompute(void **state)
{
    fixture *f = *state;
    const llm_arch *a = catalog_llm(f->cat, "Llama 3 70B");
    const gpu_spec *g = catalog_gpu(f->cat, "H100");
    llm_layers nl;
    tp_query q;
    tp_result r;
    double act, states;
    assert_non_null(a);
    assert_non_null(g);
    flops_layers(a, 0, &nl);
    assert_close(tp_act_bytes_per_token(a, &nl, 4, 1, 1, TP_RECOMPUTE_NONE, 0,
                                        8192, 1, 0),
                 55296, 1e-12);
    assert_close(tp_inflight(8, 5, 256 / 2, 1), 9, 1e-12);
    assert_close(tp_bytes_per_param(TP_DISTOPT_ON, 0, 2, 0), 12, 1e-12);
    act = 11 * 55296.0 * 8192 * 9;
    states = 11 * 855654400.0 / 4 * 12;
    memset(&q, 0, sizeof q);
    q.gpu = g;
    q.llm = a;
    q.prec = (precision){PREC_FP8_TENSOR, NUM_FP8};
    q.n_gpus = 64;
    q.gbs = 256;
    q.seq_len = 8192;
    q.layout = (tp_layout){4, 8, 1, 1, 5, 0, 1, TP_RECOMPUTE_CHOOSE, 0, 0};
    assert_int_equal(tp_predict(f->m, &q, &r), SIM_OK);
    assert_int_equal(r.layout.recompute, TP_RECOMPUTE_NONE);
    assert_true(r.fits);
    assert_close(r.mem_usable_bytes, 0.9 * 80 * 1073741824.0, 1e-12);
    assert_close(r.mem_act_bytes, act, 1e-9);
    /* the norms' 2h parameters per layer are the only part not in the
     * hand count (2e-5 of it) */
    assert_close(r.mem_states_bytes, states, 1e-4);
    assert_close(r.mem_bytes_per_gpu, act + states, 1e-4);
}

/* Every published Llama 3 70B H100 row with tp 4, pp 8, vp 5 ran without
 * recomputation (the recipe sets none): given its tp, pp and vp, the
 * chooser keeps none. */
static void
test_layout_published_70b_h100_rows_keep_recompute_none(void **state)
{
    fixture *f = *state;
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++) {
        tp_result r;
        const calib_row *c = &f->rows[i];
        if (!f->ok[i] || strcmp(c->llm->name, "Llama 3 70B") != 0 ||
            strcmp(c->gpu->name, "H100") != 0 || c->q.layout.tp != 4 ||
            c->q.layout.pp != 8 || c->q.layout.vp != 5)
            continue;
        assert_true(published(f, i, &r));
        assert_int_equal(r.layout.recompute, TP_RECOMPUTE_NONE);
        n++;
    }
    assert_true(n >= 5);
}

/* A published row's recompute: the optional column is honoured, a blank
 * cell is Megatron's default (none) and flagged blank for `predict --csv`,
 * and an unknown mode is refused with FILE:LINE and the key. */
static void test_layout_published_recompute_column(void **state)
{
    fixture *f = *state;
    const char *path = "build/tests/layout_recompute.csv";
    FILE *o = fopen(path, "w");
    csvt *t;
    calib_lookup lk = tpc_lookup(f->cat);
    calib_row r;
    sim_err e;
    assert_non_null(o);
    fputs("model,gpu,num_gpus,precision,gbs,mbs,seq_len,tp,pp,cp,ep,vp,"
          "recompute,tokens_per_sec_per_gpu\n"
          "Llama 3.1 405B,H100,1024,FP8,1536,1,8192,8,8,2,1,8,full,400\n"
          "Llama 3.1 405B,H100,1024,FP8,1536,1,8192,8,8,2,1,8,,400\n"
          "Llama 3.1 405B,H100,1024,FP8,1536,1,8192,8,8,2,1,8,sometimes,400\n",
          o);
    fclose(o);
    assert_int_equal(csvt_read(path, &t, &e), SIM_OK);
    assert_int_equal(calib_row_parse(t, 0, &lk, &r, &e), SIM_OK);
    assert_int_equal(r.q.layout.recompute, TP_RECOMPUTE_FULL);
    assert_false(r.blank & 1u << TP_FIELD_RECOMPUTE);
    assert_int_equal(calib_row_parse(t, 1, &lk, &r, &e), SIM_OK);
    assert_int_equal(r.q.layout.recompute, TP_RECOMPUTE_NONE);
    assert_true(r.blank & 1u << TP_FIELD_RECOMPUTE);
    assert_int_equal(calib_row_parse(t, 2, &lk, &r, &e), SIM_ECONFIG);
    assert_int_equal(e.line, 4);
    assert_non_null(strstr(e.msg, "recompute: unknown mode (got 'sometimes'"));
    csvt_free(t);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_activations_follow_korthikanti_table_2),
        cmocka_unit_test(test_layout_selective_drops_megatron_modules),
        cmocka_unit_test(test_layout_recompute_modules_moe_keeps_block_input),
        cmocka_unit_test(test_layout_inflight_microbatches_follow_megatron),
        cmocka_unit_test(test_layout_bubble_is_narayanan_interleaved_fraction),
        cmocka_unit_test(test_layout_uneven_split_is_the_best_integer_split),
        cmocka_unit_test(test_layout_optimizer_bytes_by_sharding_bf16_grads),
        cmocka_unit_test(test_layout_chooser_matches_brute_force),
        cmocka_unit_test(test_layout_blank_vp_is_chosen_never_one),
        cmocka_unit_test(test_layout_expert_tensor_parallel),
        cmocka_unit_test(test_layout_etp_spreads_the_all_to_all),
        cmocka_unit_test_setup_teardown(test_layout_published_etp, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_layout_published_layouts_fit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_layout_chosen_never_slower_than_published, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_layout_llama3_70b_h100_fits_without_recompute, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_layout_published_70b_h100_rows_keep_recompute_none, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_layout_published_recompute_column,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
