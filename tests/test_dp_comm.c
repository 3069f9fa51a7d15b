/* tests/test_dp_comm.c: the data-parallel communication terms of issue 18
 * (models/tp_comm.c, docs/throughput-model.md §2), every expected value
 * computed by hand in the comments from the formulas Megatron's bucketed
 * overlap implies, never pasted from an output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/flops.h"
#include "models/throughput_int.h"
#include "tests/tp_fixtures.h"

/* 1e9 parameters per GPU, dense DP group of 16 with stride 8 (tp 8) on
 * 8-GPU NVLink domains: one member per domain (k = 1), so every byte goes
 * over scale-out at 40e9 B/s, latency 8e-6 s per step. */
static tp_dp_in base_in(void)
{
    tp_dp_in in;
    memset(&in, 0, sizeof in);
    in.p_dense = 1e9;
    in.g_dense = 16;
    in.st_dense = 8;
    in.g_expert = 1;
    in.st_expert = 1;
    in.domain = 8;
    in.nvl_Bps = 300e9;
    in.so_Bps = 40e9;
    in.lat_so_s = 8e-6;
    in.grad_bytes = 2;
    in.param_bytes = 1;
    in.distopt = TP_DISTOPT_ON;
    in.bucket_params = 40e6;
    return in;
}

static void test_dp_cost_bytes_by_recipe(void **state)
{
    tp_dp_in in = base_in();
    tp_dp_cost c;
    (void)state;
    tp_dp_cost_of(&in, &c);
    /* 25 buckets of 40e6; 2 log2 16 = 8 latency steps per bucket:
     * 25 * 8 * 8e-6 = 1.6e-3 s. Reduce-scatter of bf16 gradients:
     * 15/16 * 1e9 * 2 B = 1.875e9 B / 40e9 = 0.046875 s. All-gather of fp8
     * parameters: 0.9375e9 B / 40e9 = 0.0234375 s. */
    assert_int_equal((int)c.buckets, 25);
    assert_true(fabs(c.t_grad_s - (0.046875 + 1.6e-3)) < 1e-12);
    assert_true(fabs(c.t_param_s - (0.0234375 + 1.6e-3)) < 1e-12);
    /* fp32 gradient reduction doubles the volume: 0.09375 + 1.6e-3. */
    in.grad_bytes = 4;
    tp_dp_cost_of(&in, &c);
    assert_true(fabs(c.t_grad_s - (0.09375 + 1.6e-3)) < 1e-12);
    /* Without the distributed optimizer: one all-reduce of bf16 gradients,
     * 2 * 15/16 * 2e9 B = 3.75e9 B / 40e9 = 0.09375 s, no gather. */
    in.grad_bytes = 2;
    in.distopt = TP_DISTOPT_OFF;
    tp_dp_cost_of(&in, &c);
    assert_true(fabs(c.t_grad_s - (0.09375 + 1.6e-3)) < 1e-12);
    assert_true(c.t_param_s == 0.0);
    /* SHARP reduces in the network: the all-reduce's scale-out volume is
     * sent once (0.046875 s) with 2 latency steps per bucket
     * (25 * 2 * 8e-6 = 4e-4 s). */
    in.sharp = 1;
    tp_dp_cost_of(&in, &c);
    assert_true(fabs(c.t_grad_s - (0.046875 + 4e-4)) < 1e-12);
}

static void test_dp_hierarchical_over_nvlink_then_scaleout(void **state)
{
    tp_dp_in in = base_in();
    tp_dp_cost c;
    (void)state;
    /* Stride 1: 8 members per domain reduce over NVLink first (1.875e9 B
     * / 300e9 = 6.25e-3 s), scale-out carries 1/8 (1.875e9 / 8 / 40e9 =
     * 5.859375e-3 s), plus 25 * 8 * 8e-6 of latency. */
    in.st_dense = 1;
    tp_dp_cost_of(&in, &c);
    assert_true(fabs(c.t_grad_s - (6.25e-3 + 5.859375e-3 + 1.6e-3)) < 1e-12);
    /* Inside one domain (16 x 1 <= 16): NVLink only, 3e-6 per step. */
    in.domain = 16;
    tp_dp_cost_of(&in, &c);
    assert_true(fabs(c.t_grad_s - (6.25e-3 + 25 * 8 * 3e-6)) < 1e-12);
}

static void test_dp_exposed_bucketed_overlap(void **state)
{
    (void)state;
    /* vp 1: buckets ready evenly over the window, the last one at its end:
     * exposed = max(t - win (1 - 1/nb), t / nb).
     * t 0.048475, 25 buckets, window 0.030: 0.048475 - 0.0288 = 0.019675. */
    assert_true(fabs(tp_dp_exposed(0.048475, 25, 1, 1, 0.030) - 0.019675) <
                1e-12);
    /* A window longer than the traffic leaves one bucket: 0.04 / 4. */
    assert_true(fabs(tp_dp_exposed(0.04, 4, 1, 4, 1.0) - 0.01) < 1e-12);
    /* No window: everything exposed. */
    assert_true(fabs(tp_dp_exposed(0.04, 4, 1, 4, 0.0) - 0.04) < 1e-12);
    /* Interleaved, vp 2, pp 4, t 0.04, 4 buckets (2 per chunk), window
     * 0.02: chunk share tb 0.01, chunks G = 4 x 0.01 apart, W 0.02, w 0.01.
     * Chunk 0: first bucket -0.01 + 0.005 + 0.02 = 0.015, last 0.01;
     * chunk 1: -0.04 - 0.01 + 0.005 + 0.02 + 0.02 = -0.005, last -0.01.
     * Exposed 0.015, against vp 1: -0.02 + 0.005 + 0.04 = 0.025. */
    assert_true(fabs(tp_dp_exposed(0.04, 4, 2, 4, 0.02) - 0.015) < 1e-12);
    assert_true(fabs(tp_dp_exposed(0.04, 4, 1, 4, 0.02) - 0.025) < 1e-12);
}

/* A 1-micro-batch and a 64-micro-batch step of the same layout (tp 8,
 * dp 16 on 128 H100, BF16): the DP traffic hides behind the last
 * micro-batch only, so its exposed time is the same in both and a large
 * share of the short step only. With no window (dp_window 0) it is the
 * whole traffic, computed here by hand from the parameter count. */
static void test_dp_one_and_sixtyfour_microbatch_steps(void **state)
{
    gpu_spec g = h100();
    llm_arch a = llama8();
    tp_model m;
    tp_query q;
    tp_result r1, r64;
    double Pd, Pe, P, so, vol, t_rs, t_ag, lat, nb;
    (void)state;
    tp_model_init(&m);
    memset(&q, 0, sizeof q);
    q.gpu = &g;
    q.llm = &a;
    q.prec.recipe = PREC_BF16;
    q.prec.fmt = NUM_BF16;
    q.n_gpus = 128;
    q.seq_len = 8192;
    q.layout =
        (tp_layout){8, 1, 1, 1, 1, 0, 1, TP_RECOMPUTE_NONE, TP_DISTOPT_ON, 0};
    m.p[TP_DP_WINDOW] = 0.0;
    q.gbs = 16; /* dp 16 x mbs 1: one micro-batch */
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    assert_int_equal(r1.microbatches, 1);
    q.gbs = 16 * 64;
    assert_int_equal(tp_predict(&m, &q, &r64), SIM_OK);
    assert_int_equal(r64.microbatches, 64);
    /* Hand: P = params / tp per GPU; group 16, stride 8 on 8-GPU domains
     * (k = 1): scale-out only at 400e9 / 8 x bw_scaleout B/s; bf16
     * gradients and bf16 parameters (a BF16 recipe gathers bf16); 2 log2
     * 16 = 8 steps per bucket, buckets of max(40e6, 16e6) parameters. */
    flops_params(&a, 0, &Pd, &Pe);
    P = Pd / 8;
    so = 400e9 / 8 * m.p[TP_BW_SCALEOUT];
    nb = ceil(P / 40e6);
    lat = nb * 8 * m.dp_latency_s;
    vol = 15.0 / 16 * P * 2;
    t_rs = vol / so + lat;
    t_ag = vol / so + lat;
    assert_true(fabs(r1.t_dp_s - (t_rs + t_ag)) < 1e-9 * (t_rs + t_ag));
    assert_true(fabs(r64.t_dp_s - r1.t_dp_s) < 1e-12);
    /* The full window hides part of it, the same part in both steps. */
    m.p[TP_DP_WINDOW] = 1.0;
    q.gbs = 16;
    assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
    q.gbs = 16 * 64;
    assert_int_equal(tp_predict(&m, &q, &r64), SIM_OK);
    assert_true(r1.t_dp_s < t_rs + t_ag);
    assert_true(r1.t_dp_s >= (t_rs + t_ag) / nb - 1e-12);
    assert_true(fabs(r64.t_dp_s - r1.t_dp_s) < 1e-12);
    assert_true(r1.t_dp_s / r1.step_time_s > 10 * r64.t_dp_s / r64.step_time_s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dp_cost_bytes_by_recipe),
        cmocka_unit_test(test_dp_hierarchical_over_nvlink_then_scaleout),
        cmocka_unit_test(test_dp_exposed_bucketed_overlap),
        cmocka_unit_test(test_dp_one_and_sixtyfour_microbatch_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
