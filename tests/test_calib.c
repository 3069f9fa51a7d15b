/* tests/test_calib.c: the GSL fit wrapper on NIST StRD BoxBOD (certified
 * values, two starts, SSR checked), the calibration file round trip, and
 * the file's validation: version 2 only, no unknown or missing key, no
 * empty file, each refusal at FILE:LINE with the remedy. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "io/calib_file.h"
#include "models/calib.h"
#include "tests/testutil.h"
#include "tests/tp_refs.h"

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

/* Scratch files go to build/tests/, which a sanitizer build in a fresh
 * checkout (build-asan/) has not made. */
static int make_scratch(void **state)
{
    (void)state;
    mkdir("build", 0755);
    mkdir("build/tests", 0755);
    return 0;
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
    m.gpu_n_max[0] = 2048;   /* the straggler term's reference scale */
    m.gpu_spread[0] = 1.375; /* its interval multiplier */
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
        tp_query q = {.gpu = &g,
                      .llm = &a,
                      .prec = {PREC_BF16, NUM_BF16},
                      .n_gpus = 16,
                      .gbs = 128,
                      .seq_len = 8192,
                      .layout = {1, 1, 1, 1, 1, 0, 1, 0, 0}};
        assert_int_equal(tp_predict(&m, &q, &r1), SIM_OK);
        assert_int_equal(tp_predict(back, &q, &r2), SIM_OK);
        assert_close(r1.step_time_s, r2.step_time_s, 1e-9);
    }
    assert_int_equal(back->gpu_n_max[0], 2048);
    assert_close(back->gpu_spread[0], 1.375, 1e-12);
    tp_model_free(back);
    tp_model_free(NULL);
    remove(path);
}

static void bundled_with(const char *path, const char *find, const char *repl);

static void test_calib_file_errors_name_file_and_line(void **state)
{
    tp_model *m = NULL;
    sim_err e;
    (void)state;
    /* eta_bf16's line, whatever the fitted value: the rest of it becomes a
     * comment. */
    bundled_with("build/tests/calib_bad.cfg", "eta_bf16 = { value = ",
                 "eta_bf16 = { value = \"high\"; sd = 0.1; "
                 "unit = \"fraction\"; }; # ");
    assert_int_equal(tp_model_load("build/tests/calib_bad.cfg", &m, &e),
                     SIM_ECONFIG);
    assert_int_equal(e.line, 12);
    assert_non_null(strstr(e.msg, "params.eta_bf16.value"));
    assert_null(m);
    assert_int_equal(tp_model_load("build/tests/nope.cfg", &m, &e), SIM_EIO);
    remove("build/tests/calib_bad.cfg");
}

/* Writes the bundled calibration file to path with the first occurrence of
 * find replaced by repl (find NULL: the file as it is). */
static void bundled_with(const char *path, const char *find, const char *repl)
{
    size_t n;
    unsigned char *text = test_slurp("models/calibration.cfg", &n);
    char *at;
    FILE *f = fopen(path, "w");
    assert_non_null(text);
    assert_non_null(f);
    at = find ? strstr((char *)text, find) : NULL;
    if (find)
        assert_non_null(at);
    if (at) {
        fwrite(text, 1, (size_t)(at - (char *)text), f);
        fputs(repl, f);
        fputs(at + strlen(find), f);
    } else {
        fputs((char *)text, f);
    }
    fclose(f);
    free(text);
}

/* Writes the bundled calibration file to path without the text from the
 * first occurrence of find through the first end after it (whatever the
 * fitted values in between). */
static void bundled_cut(const char *path, const char *find, const char *end)
{
    size_t n;
    unsigned char *text = test_slurp("models/calibration.cfg", &n);
    char *at, *stop;
    FILE *f = fopen(path, "w");
    assert_non_null(text);
    assert_non_null(f);
    at = strstr((char *)text, find);
    assert_non_null(at);
    stop = strstr(at, end);
    assert_non_null(stop);
    fwrite(text, 1, (size_t)(at - (char *)text), f);
    fputs(stop + strlen(end), f);
    fclose(f);
    free(text);
}

/* Loads path, expecting a refusal at line with a message containing want
 * and the remedy. */
static void expect_refused(const char *path, int line, const char *want)
{
    tp_model *m = NULL;
    sim_err e;
    assert_int_equal(tp_model_load(path, &m, &e), SIM_ECONFIG);
    assert_null(m);
    assert_string_equal(e.file, path);
    if (!strstr(e.msg, want) ||
        !strstr(e.msg, "rerun `factorysim calibrate`") || e.line != line)
        fail_msg("got %s:%d: %s; expected line %d and '%s'", e.file, e.line,
                 e.msg, line, want);
    remove(path);
}

static void test_calib_bundled_file_is_version_5_and_loads(void **state)
{
    tp_model *m = NULL;
    sim_err e;
    size_t n;
    unsigned char *text = test_slurp("models/calibration.cfg", &n);
    (void)state;
    assert_non_null(text);
    assert_non_null(strstr((char *)text, "\nversion = 5;\n"));
    free(text);
    assert_int_equal(tp_model_load("models/calibration.cfg", &m, &e), SIM_OK);
    assert_true(m->n_gpus > 0 && m->n_releases > 0);
    assert_true(m->default_release >= 0);
    /* The calibration set's domain (extrapolation flags) is read. */
    assert_true(m->dom_active_params_min > 0 &&
                m->dom_active_params_max > m->dom_active_params_min);
    assert_true(m->dom_experts_max > 0 && m->dom_seq_max > 0);
    tp_model_free(m);
}

static void test_calib_file_of_another_version_is_refused(void **state)
{
    (void)state;
    bundled_with("build/tests/calib_v1.cfg", "\nversion = 5;",
                 "\nversion = 1;");
    expect_refused("build/tests/calib_v1.cfg", 9,
                   "version: unsupported calibration file format (got "
                   "version 1, expected 5)");
    /* Version 2 files mean something else by the DP overlap (ovl_dp). */
    bundled_with("build/tests/calib_v2.cfg", "\nversion = 5;",
                 "\nversion = 2;");
    expect_refused("build/tests/calib_v2.cfg", 9, "got version 2, expected 5");
    /* Version 3 files fitted eta_attn with the softmax exponentials inside
     * it; read now, the exponentials would be charged twice. */
    bundled_with("build/tests/calib_v3.cfg", "\nversion = 5;",
                 "\nversion = 3;");
    expect_refused("build/tests/calib_v3.cfg", 9, "got version 3, expected 5");
    /* Version 4 files fitted one EP overlap on every row; now it serves
     * only the recipes that do not state theirs (ovl_ep_on is new). */
    bundled_with("build/tests/calib_v4.cfg", "\nversion = 5;",
                 "\nversion = 4;");
    expect_refused("build/tests/calib_v4.cfg", 9, "got version 4, expected 5");
    /* Files from before versioning have no version at all. */
    bundled_with("build/tests/calib_nover.cfg", "\nversion = 5;", "\n");
    expect_refused("build/tests/calib_nover.cfg", 1,
                   "version: missing key (got a file without a format "
                   "version, expected version = 5)");
}

static void test_calib_file_with_an_unknown_key_is_refused(void **state)
{
    (void)state;
    bundled_with("build/tests/calib_unk.cfg",
                 "dp_latency_s =", "dp_latency_us = 8.0;\ndp_latency_s =");
    expect_refused("build/tests/calib_unk.cfg", 105,
                   "dp_latency_us: unknown key (got 'dp_latency_us'");
    bundled_with("build/tests/calib_unk2.cfg", "eta_hbm = { value",
                 "eta_hbn = { value = 0.8; sd = 0; unit = \"fraction\"; };\n"
                 "  eta_hbm = { value");
    expect_refused("build/tests/calib_unk2.cfg", 17,
                   "params.eta_hbn: unknown key");
    bundled_with("build/tests/calib_unk3.cfg",
                 "log_factor = ", "logfactor = 1.0; log_factor = ");
    expect_refused("build/tests/calib_unk3.cfg", 40,
                   "gpus.[0].logfactor: unknown key");
}

/* A GPU's interval multiplier must be positive (0 would print a zero-width
 * interval as certainty); a file written before per-GPU spreads has none,
 * and reads as 1, the class's spread it was written with. */
static void test_calib_file_gpu_spread(void **state)
{
    tp_model *m = NULL;
    sim_err e;
    size_t n;
    unsigned char *text;
    int line = 1;
    const char *path = "build/tests/calib_spread0.cfg";
    (void)state;
    assert_int_equal(tp_model_load("models/calibration.cfg", &m, &e), SIM_OK);
    m->gpu_spread[0] = 0;
    assert_int_equal(tp_model_save(m, path, "zero spread", NULL, &e), SIM_OK);
    tp_model_free(m);
    m = NULL;
    text = test_slurp(path, &n);
    assert_non_null(text);
    for (char *c = (char *)text; c < strstr((char *)text, "spread = 0;"); c++)
        line += *c == '\n';
    free(text);
    expect_refused(path, line,
                   "gpus.[0].spread: out of range (got 0, expected [0.01, "
                   "100])");
    bundled_cut("build/tests/calib_nospread.cfg", " spread = ", "; ");
    assert_int_equal(tp_model_load("build/tests/calib_nospread.cfg", &m, &e),
                     SIM_OK);
    assert_close(m->gpu_spread[0], 1.0, 0);
    assert_true(m->gpu_spread[1] != 1.0); /* only the first was cut */
    tp_model_free(m);
    remove("build/tests/calib_nospread.cfg");
}

/* The finding of issue 13: a file with parameters missing was filled with
 * built-in defaults and changed MoE throughput by double-digit percent. */
static void test_calib_file_with_a_missing_key_is_refused(void **state)
{
    (void)state;
    bundled_cut("build/tests/calib_nomoe.cfg", "  t_moe_layer_s = {", "};\n");
    expect_refused("build/tests/calib_nomoe.cfg", 11,
                   "params.t_moe_layer_s: missing key");
    bundled_cut("build/tests/calib_nosd.cfg", "moe_sd = ", "; ");
    expect_refused("build/tests/calib_nosd.cfg", 49,
                   "releases.[0].moe_sd: missing key");
    bundled_with("build/tests/calib_nosig.cfg", "sigma_log = {",
                 "sigma_log_unused = {");
    expect_refused("build/tests/calib_nosig.cfg", 104,
                   "sigma_log_unused: unknown key");
    bundled_with("build/tests/calib_nosig2.cfg", "\nsigma_log = {",
                 "\n#sigma_log = {");
    expect_refused("build/tests/calib_nosig2.cfg", 1, "sigma_log: missing key");
    /* Version 3 requires the domain group and every key in it. */
    bundled_with("build/tests/calib_nodom.cfg", "\ndomain = {",
                 "\n#domain = {");
    expect_refused("build/tests/calib_nodom.cfg", 1, "domain: missing key");
    bundled_cut("build/tests/calib_nodom2.cfg", "experts_max = ", "; ");
    expect_refused("build/tests/calib_nodom2.cfg", 109,
                   "domain.experts_max: missing key");
    bundled_with("build/tests/calib_nodef.cfg", "default_release = \"26.08\";",
                 "");
    expect_refused("build/tests/calib_nodef.cfg", 1,
                   "default_release: missing key");
    /* the first unit in the file is eta_bf16's */
    bundled_with("build/tests/calib_nounit.cfg", "unit = \"fraction\"; };",
                 "unit = \"percent\"; };");
    expect_refused("build/tests/calib_nounit.cfg", 12,
                   "params.eta_bf16.unit: wrong unit (got \"percent\", "
                   "expected \"fraction\")");
}

/* calib_model_rows by hand: model A on H100 predicted 10 % high and on
 * GB200 20 % low, model B on H100 not predicted (-100 %, as the accuracy
 * table counts it). Records per model over every GPU ("") and per GPU,
 * sorted; means and mean absolute values in percent. */
static void test_calib_model_rows_by_model_and_gpu(void **state)
{
    gpu_spec h, gb;
    llm_arch a, b;
    calib_row rows[3];
    double pred[3] = {110.0, 40.0, 0.0};
    tp_model m;
    const tp_model_rows *r;
    (void)state;
    memset(&h, 0, sizeof h);
    memset(&gb, 0, sizeof gb);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    strcpy(h.name, "H100");
    strcpy(gb.name, "GB200");
    strcpy(a.name, "Model B"); /* the names sort the other way round */
    strcpy(b.name, "Model A");
    memset(rows, 0, sizeof rows);
    rows[0].gpu = &h, rows[0].llm = &b, rows[0].meas_tps = 100.0;
    rows[1].gpu = &gb, rows[1].llm = &b, rows[1].meas_tps = 50.0;
    rows[2].gpu = &h, rows[2].llm = &a, rows[2].meas_tps = 70.0;
    tp_model_init(&m);
    assert_int_equal(calib_model_rows(rows, 3, pred, &m), 0);
    assert_int_equal(m.n_model_rows, 5);
    assert_string_equal(m.model_rows[0].model, "Model A");
    assert_string_equal(m.model_rows[0].gpu, "");
    assert_int_equal(m.model_rows[0].n, 2);
    assert_close(m.model_rows[0].loco_mean_error_pct, (10.0 - 20.0) / 2, 1e-12);
    assert_close(m.model_rows[0].loco_mape_pct, (10.0 + 20.0) / 2, 1e-12);
    assert_string_equal(m.model_rows[1].gpu, "GB200");
    assert_close(m.model_rows[1].loco_mean_error_pct, -20.0, 1e-12);
    assert_string_equal(m.model_rows[2].gpu, "H100");
    assert_close(m.model_rows[2].loco_mape_pct, 10.0, 1e-12);
    r = tp_model_rows_of(&m, "model b", NULL); /* case-insensitive */
    assert_non_null(r);
    assert_int_equal(r->n, 1);
    assert_close(r->loco_mean_error_pct, -100.0, 1e-12);
    assert_ptr_equal(tp_model_rows_of(&m, "Model B", "h100"), &m.model_rows[4]);
    assert_null(tp_model_rows_of(&m, "Model B", "GB200"));
    assert_null(tp_model_rows_of(&m, "Model C", ""));
}

/* More (model, GPU) records than TP_MAX_MODEL_ROWS: 200 models on 2 GPUs
 * need 600. Every model keeps its every-GPU record (n 2), the per-GPU ones
 * fill what is left, and the rest are counted as dropped. */
static void test_calib_model_rows_full_table_keeps_every_model(void **state)
{
    enum { NM = 200 };
    static llm_arch a[NM];
    static calib_row rows[2 * NM];
    static double pred[2 * NM];
    static tp_model m;
    gpu_spec g[2];
    (void)state;
    memset(g, 0, sizeof g);
    strcpy(g[0].name, "H100");
    strcpy(g[1].name, "B200");
    for (int i = 0; i < NM; i++) {
        memset(&a[i], 0, sizeof a[i]);
        snprintf(a[i].name, sizeof a[i].name, "Model %03d", i);
        for (int k = 0; k < 2; k++) {
            calib_row *r = &rows[2 * i + k];
            memset(r, 0, sizeof *r);
            r->llm = &a[i];
            r->gpu = &g[k];
            r->meas_tps = 100;
            pred[2 * i + k] = 105;
        }
    }
    tp_model_init(&m);
    assert_int_equal(calib_model_rows(rows, 2 * NM, pred, &m),
                     NM + 2 * NM - TP_MAX_MODEL_ROWS);
    assert_int_equal(m.n_model_rows, TP_MAX_MODEL_ROWS);
    for (int i = 0; i < NM; i++) {
        const tp_model_rows *r = tp_model_rows_of(&m, a[i].name, "");
        assert_non_null(r);
        assert_int_equal(r->n, 2);
        assert_close(r->loco_mean_error_pct, 5.0, 1e-12);
    }
}

/* The bundled file's line that holds the first occurrence of find. */
static int bundled_line(const char *find)
{
    size_t n;
    unsigned char *text = test_slurp("models/calibration.cfg", &n);
    const char *at, *p;
    int line = 1;
    assert_non_null(text);
    at = strstr((char *)text, find);
    assert_non_null(at);
    for (p = (char *)text; p < at; p++)
        line += *p == '\n';
    free(text);
    return line;
}

/* The published-row records survive a save and a load to the file's two
 * decimals; the bundled file's per-GPU records add up to the every-GPU
 * one; a damaged record is refused at its line. */
static void test_calib_model_rows_file(void **state)
{
    tp_model m, *back = NULL;
    sim_err e;
    const char *path = "build/tests/calib_rows.cfg";
    int line;
    (void)state;
    tp_model_init(&m);
    m.n_model_rows = 2;
    strcpy(m.model_rows[0].model, "GPT-OSS 120B");
    m.model_rows[0].n = 29;
    m.model_rows[0].loco_mean_error_pct = 25.6149;
    m.model_rows[0].loco_mape_pct = 25.9;
    m.model_rows[1] = m.model_rows[0];
    strcpy(m.model_rows[1].gpu, "GB200");
    m.model_rows[1].n = 7;
    m.model_rows[1].loco_mean_error_pct = -4.004;
    assert_int_equal(tp_model_save(&m, path, NULL, NULL, &e), SIM_OK);
    assert_int_equal(tp_model_load(path, &back, &e), SIM_OK);
    assert_int_equal(back->n_model_rows, 2);
    assert_string_equal(back->model_rows[1].gpu, "GB200");
    assert_int_equal(back->model_rows[1].n, 7);
    assert_close(back->model_rows[0].loco_mean_error_pct, 25.61, 1e-12);
    assert_close(back->model_rows[1].loco_mean_error_pct, -4.0, 1e-12);
    tp_model_free(back);
    /* Without records (a fit without cross-validation) none are written
     * and the file loads with none. */
    m.n_model_rows = 0;
    assert_int_equal(tp_model_save(&m, path, NULL, NULL, &e), SIM_OK);
    assert_int_equal(tp_model_load(path, &back, &e), SIM_OK);
    assert_int_equal(back->n_model_rows, 0);
    tp_model_free(back);
    remove(path);

    assert_int_equal(tp_model_load("models/calibration.cfg", &back, &e),
                     SIM_OK);
    assert_true(back->n_model_rows > 0);
    for (int i = 0; i < back->n_model_rows; i++) {
        const tp_model_rows *all = &back->model_rows[i];
        int n = 0;
        double sum = 0, tol = 0;
        if (all->gpu[0])
            continue;
        for (int j = 0; j < back->n_model_rows; j++)
            if (back->model_rows[j].gpu[0] &&
                strcmp(back->model_rows[j].model, all->model) == 0) {
                n += back->model_rows[j].n;
                sum += back->model_rows[j].n *
                       back->model_rows[j].loco_mean_error_pct;
                tol += back->model_rows[j].n * 0.005; /* rounding */
            }
        assert_int_equal(n, all->n);
        assert_near(sum / n, all->loco_mean_error_pct, (tol / n + 0.005));
    }
    tp_model_free(back);

    line = bundled_line("model_rows = (") + 1; /* its first record */
    bundled_with("build/tests/calib_rows_dup.cfg", "gpu = \"\"; n = ",
                 "gpu = \"\"; n = 1; loco_mean_error_pct = 0; "
                 "loco_mape_pct = 0; }, { model = \"Kimi K2 1T\"; gpu = \"\"; "
                 "n = 1; loco_mean_error_pct = 0; loco_mape_pct = 0; }, "
                 "{ model = \"Kimi K2 1T\"; gpu = \"\"; n = ");
    expect_refused("build/tests/calib_rows_dup.cfg", line,
                   "second record for model \"Kimi K2 1T\" on every GPU");
    bundled_with("build/tests/calib_rows_n.cfg", "gpu = \"\"; n = ",
                 "gpu = \"\"; n = 0; loco_mean_error_pct = 0; "
                 "loco_mape_pct = 0; }, # ");
    expect_refused("build/tests/calib_rows_n.cfg", line, "model_rows.[0].n: ");
    bundled_with("build/tests/calib_rows_low.cfg", "loco_mean_error_pct = ",
                 "loco_mean_error_pct = -150; loco_mape_pct = 1; }, # ");
    expect_refused("build/tests/calib_rows_low.cfg", line,
                   "model_rows.[0].loco_mean_error_pct: ");
    bundled_with("build/tests/calib_rows_mape.cfg",
                 "loco_mape_pct = ", "loco_mape_pct = -1; }, # ");
    expect_refused("build/tests/calib_rows_mape.cfg", line,
                   "model_rows.[0].loco_mape_pct: ");
    bundled_with("build/tests/calib_rows_key.cfg",
                 "loco_mape_pct = ", "loco_mape_pc = ");
    expect_refused("build/tests/calib_rows_key.cfg", line,
                   "model_rows.[0].loco_mape_pc: unknown key");
    bundled_with("build/tests/calib_rows_mean.cfg", "loco_mean_error_pct = ",
                 "loco_mean_error_pct = 9; loco_mape_pct = 1; }, # ");
    expect_refused("build/tests/calib_rows_mean.cfg", line,
                   "model_rows.[0]: mean error 9 % larger than the MAPE 1 %");
    /* The first record is a model's every-GPU one and the next its first
     * per-GPU one (the file's order): renaming the first orphans the
     * second; one row on every GPU is fewer than its per-GPU rows. */
    bundled_with("build/tests/calib_rows_orphan.cfg", "{ model = \"",
                 "{ model = \"Renamed ");
    expect_refused("build/tests/calib_rows_orphan.cfg", line + 1,
                   "model_rows.[1]: record for model ");
    bundled_with("build/tests/calib_rows_sum.cfg", "gpu = \"\"; n = ",
                 "gpu = \"\"; n = 1; loco_mean_error_pct = 0; "
                 "loco_mape_pct = 0; }, # ");
    expect_refused("build/tests/calib_rows_sum.cfg", line,
                   "model_rows.[0].n: 1 rows for model ");
}

static void test_calib_empty_file_is_refused(void **state)
{
    FILE *f;
    (void)state;
    f = fopen("build/tests/calib_empty.cfg", "w");
    fclose(f);
    expect_refused("build/tests/calib_empty.cfg", 1,
                   "empty calibration file (got no settings, expected "
                   "version = 5");
    /* Comments only: still no settings. */
    f = fopen("build/tests/calib_comments.cfg", "w");
    fputs("# a header and nothing else\n", f);
    fclose(f);
    expect_refused("build/tests/calib_comments.cfg", 1,
                   "empty calibration file");
}

/* A warm refit (a cross-validation fold) keeps the full fit's columns,
 * the cells the selection dropped too: on the bundled calibration and
 * rows, 26.02 dense (Llama 3 70B and Llama 3.1 405B ran there; dropped,
 * docs/throughput-model.md §4 twelfth follow-up) stays without a factor
 * when Llama 3 70B is left out and the rest refitted, where counting
 * models alone would give it one from Llama 3.1 405B's rows; 26.04 dense,
 * kept, keeps one. */
static void test_calib_warm_refit_keeps_dropped_cells_out(void **state)
{
    catalog *cat = NULL;
    tp_model *m = NULL, *mm;
    csvt *t = NULL;
    calib_row *rows = NULL;
    unsigned char *ok = NULL, *use;
    size_t n = 0, n_use = 0;
    calib_fit_info fi;
    sim_err e;
    int k_drop, k_keep;
    (void)state;
    assert_int_equal(tp_refs_load(TP_REFS_CSV, &cat, &m, &t, &rows, &ok, &n),
                     0);
    k_drop = tp_model_release(m, "26.02");
    k_keep = tp_model_release(m, "26.04");
    assert_true(k_drop >= 0 && k_keep >= 0);
    assert_false(tp_model_release_fitted(m, k_drop, LLM_DENSE));
    assert_true(tp_model_release_fitted(m, k_keep, LLM_DENSE));
    use = calloc(n, 1);
    assert_non_null(use);
    for (size_t i = 0; i < n; i++) {
        tp_result r;
        /* the rows calibrate uses (predictable, not a known regression),
         * Llama 3 70B left out */
        use[i] = ok[i] && !rows[i].anomalous && rows[i].meas_tps > 0 &&
                 strcmp(rows[i].llm->name, "Llama 3 70B") != 0 &&
                 tp_predict(m, &rows[i].q, &r) == SIM_OK;
        n_use += use[i];
    }
    assert_true(n_use > 400);
    mm = malloc(sizeof *mm);
    assert_non_null(mm);
    *mm = *m;
    assert_int_equal(calib_fit(rows, n, use, mm, 1, &fi, &e), SIM_OK);
    assert_false(tp_model_release_fitted(mm, k_drop, LLM_DENSE));
    assert_true(tp_model_release_fitted(mm, k_keep, LLM_DENSE));
    /* the fold moved the kept factor (it was refitted, not copied) */
    assert_true(mm->rel_log[k_keep][LLM_DENSE] !=
                m->rel_log[k_keep][LLM_DENSE]);
    free(mm);
    free(use);
    tp_refs_free(cat, m, t, rows, ok);
}

int main(void)
{
    const struct CMUnitTest calib_tests[] = {
        cmocka_unit_test(test_calib_boxbod_start1),
        cmocka_unit_test(test_calib_boxbod_start2),
        cmocka_unit_test(test_calib_file_round_trip_keeps_predictions),
        cmocka_unit_test(test_calib_file_errors_name_file_and_line),
        cmocka_unit_test(test_calib_bundled_file_is_version_5_and_loads),
        cmocka_unit_test(test_calib_file_of_another_version_is_refused),
        cmocka_unit_test(test_calib_file_with_an_unknown_key_is_refused),
        cmocka_unit_test(test_calib_file_with_a_missing_key_is_refused),
        cmocka_unit_test(test_calib_file_gpu_spread),
        cmocka_unit_test(test_calib_empty_file_is_refused),
        cmocka_unit_test(test_calib_model_rows_by_model_and_gpu),
        cmocka_unit_test(test_calib_model_rows_file),
        cmocka_unit_test(test_calib_model_rows_full_table_keeps_every_model),
        cmocka_unit_test(test_calib_warm_refit_keeps_dropped_cells_out),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("calib", calib_tests, make_scratch,
                                       NULL);
}
