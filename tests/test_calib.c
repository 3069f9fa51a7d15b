/* tests/test_calib.c: the GSL fit wrapper on NIST StRD BoxBOD (certified
 * values, two starts, SSR checked), and the calibration file round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "io/calib_file.h"
#include "models/calib.h"
#include "tests/testutil.h"

/* NIST StRD BoxBOD: y = b1 * (1 - exp(-b2 * x)). */
static const double box_x[6] = {1, 2, 3, 5, 7, 10};
static const double box_y[6] = {109, 149, 149, 191, 213, 224};

static int boxbod_f(const double *b, void *ctx, double *r)
{
    (void)ctx;
    for (int i = 0; i < 6; i++)
        r[i] = b[0] * (1 - exp(-b[1] * box_x[i])) - box_y[i];
    return 0;
}

static void fit_boxbod(double b1, double b2)
{
    double x[2] = {b1, b2}, cov[4];
    calib_nlls_info info;
    sim_err e;
    assert_int_equal(calib_nlls(boxbod_f, NULL, 6, 2, x, 500, cov, &info, &e),
                     SIM_OK);
    assert_close(x[0], 2.1380940889e+02, 1e-6);
    assert_close(x[1], 5.4723748542e-01, 1e-6);
    assert_close(info.ssr, 1.1680088766e+03, 1e-8);
    /* certified standard deviations 1.2354515176E+01, 1.0455993237E-01 */
    assert_close(sqrt(cov[0]), 1.2354515176e+01, 1e-4);
    assert_close(sqrt(cov[3]), 1.0455993237e-01, 1e-4);
}

static void test_calib_boxbod_start1(void **state)
{
    (void)state;
    fit_boxbod(1.0, 1.0);
}

static void test_calib_boxbod_start2(void **state)
{
    (void)state;
    fit_boxbod(100.0, 0.75);
}

static void test_calib_file_round_trip_keeps_predictions(void **state)
{
    tp_model m, *back = NULL;
    gpu_spec g;
    llm_arch a;
    tp_result r1, r2;
    sim_err e;
    const char *path = "build/tests/calib_roundtrip.cfg";
    (void)state;
    tp_model_init(&m);
    m.p[TP_ETA_BF16] = 0.6123456789;
    m.p[TP_T_LAYER] = 1.234567e-4;
    strcpy(m.gpus[0], "H100");
    m.gpu_log[0] = -0.0712345;
    m.n_gpus = 1;
    strcpy(m.releases[0], "26.04");
    m.rel_log[0][0] = 0.0456789;
    m.n_releases = 1;
    m.default_release = 0;
    assert_int_equal(
        tp_model_save(&m, path, "test header\nsecond line", NULL, &e), SIM_OK);
    assert_int_equal(tp_model_load(path, &back, &e), SIM_OK);
    memset(&g, 0, sizeof g);
    strcpy(g.name, "H100");
    g.peak_flops[0] = 989e12;
    g.hbm_bytes = 80e9;
    g.hbm_Bps = 3.35e12;
    g.nvlink_Bps = 450e9;
    g.nvlink_domain = 8;
    g.scaleout_bps = 400e9;
    memset(&a, 0, sizeof a);
    a.num_layers = 32;
    a.hidden_size = 4096;
    a.ffn_hidden_size = 14336;
    a.num_attention_heads = 32;
    a.num_kv_heads = 8;
    a.vocab_size = 128256;
    a.gated_linear_unit = 1;
    a.default_seq_len = 8192;
    {
        tp_query q = {&g,
                      &a,
                      {PREC_BF16, NUM_BF16},
                      16,
                      128,
                      8192,
                      {1, 1, 1, 1, 1, 0, 1, 0, 0},
                      0,
                      NULL,
                      0,
                      0,
                      0,
                      0};
        assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
        assert_int_equal(tp_predict(back, &q, &r2), SIM_OK);
        assert_close(r1.step_time_s, r2.step_time_s, 1e-9);
    }
    tp_model_free(back);
    tp_model_free(NULL);
    remove(path);
}

static void test_calib_file_errors_name_file_and_line(void **state)
{
    tp_model *m = NULL;
    sim_err e;
    FILE *f = fopen("build/tests/calib_bad.cfg", "w");
    (void)state;
    fputs("params = {\n  eta_bf16 = { value = \"high\"; };\n};\n", f);
    fclose(f);
    assert_int_equal(tp_model_load("build/tests/calib_bad.cfg", &m, &e),
                     SIM_ECONFIG);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.msg, "params.eta_bf16.value"));
    assert_null(m);
    assert_int_equal(tp_model_load("build/tests/nope.cfg", &m, &e), SIM_EIO);
    remove("build/tests/calib_bad.cfg");
}

int main(void)
{
    const struct CMUnitTest calib_tests[] = {
        cmocka_unit_test(test_calib_boxbod_start1),
        cmocka_unit_test(test_calib_boxbod_start2),
        cmocka_unit_test(test_calib_file_round_trip_keeps_predictions),
        cmocka_unit_test(test_calib_file_errors_name_file_and_line),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("calib", calib_tests, NULL, NULL);
}
