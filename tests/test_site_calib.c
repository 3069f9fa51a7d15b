/* tests/test_site_calib.c: a site calibration (models/site_calib.h) recovers
 * a known truth. Measured rows are published rows of
 * data/calibration/megatron_throughput.csv (read by the same row reader as
 * `exemplar`) slowed through the model's own compute or communication by a
 * known speed, so the right answer is known; the file round trip and its
 * refusals are tested too (io/site_calib_file.h), and the CLI flags. */
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
#include "io/site_calib_file.h"
#include "models/exemplar.h"
#include "models/site_calib.h"
#include "tests/cli_util.h"
#include "tests/testutil.h"
#include "tests/tp_refs.h"

#define REF_CSV TP_REFS_CSV
#define MAXR 600

typedef struct fixture {
    catalog *cat;
    tp_model *m;
    csvt *t;
    calib_row *refs;
    unsigned char *ok;
    size_t n;
    calib_row meas[MAXR];
    exemplar_row ex[MAXR];
    int line[MAXR];
    site_calib sc;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || tp_refs_load(REF_CSV, &f->cat, &f->m, &f->t, &f->refs, &f->ok,
                           &f->n) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tp_refs_free(f->cat, f->m, f->t, f->refs, f->ok);
    free(f);
    return 0;
}

/* A row filter: GPU name, class (-1 any), recipe (-1 any). */
static int want(const calib_row *r, const char *gpu, int cls, int recipe)
{
    return strcmp(r->gpu->name, gpu) == 0 &&
           (cls < 0 || (int)r->llm->cls == cls) &&
           (recipe < 0 || (int)r->prec.recipe == recipe);
}

/* Measured copies of the published rows that match (at most max), each
 * slowed through the model by compute speed c and, when multi-node
 * (num_gpus > 8) or all_comm, communication speed mm; compared against the
 * published table (refs 1) or the model (refs 0). Returns how many. */
static size_t slowed(fixture *f, const char *gpu, int cls, int recipe, double c,
                     double mm, int all_comm, int use_refs, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n && k < max; i++) {
        exemplar_row e0;
        tp_query q;
        tp_result r;
        calib_row *x = &f->meas[k];
        if (!f->ok[i] || !want(&f->refs[i], gpu, cls, recipe))
            continue;
        *x = f->refs[i];
        x->q.release = x->release;
        if (exemplar_compare(f->m, x, f->refs, f->n, &e0) != SIM_OK ||
            !e0.has_model)
            continue;
        q = e0.q;
        q.compute_slowdown = 1.0 / c;
        q.comm_slowdown = (all_comm || x->q.n_gpus > 8) ? 1.0 / mm : 1.0;
        assert_int_equal(tp_predict(f->m, &q, &r), SIM_OK);
        x->meas_tps = f->refs[i].meas_tps * e0.step_model_s / r.step_time_s;
        assert_int_equal(exemplar_compare(f->m, x, use_refs ? f->refs : NULL,
                                          use_refs ? f->n : 0, &f->ex[k]),
                         SIM_OK);
        f->line[k] = f->t->line[i];
        k++;
    }
    return k;
}

static const site_calib_entry *entry(const fixture *f, const char *gpu, int cls,
                                     int recipe)
{
    int exact;
    const site_calib_entry *e =
        site_calib_find(&f->sc, gpu, cls, recipe, &exact);
    assert_non_null(e);
    assert_int_equal(exact, 1);
    return e;
}

static int inside(const site_calib_entry *e, int k, double truth)
{
    double med, lo, hi;
    site_calib_speed(e, k, &med, &lo, &hi);
    printf("  speed[%d] = %.4f [%.4f, %.4f] truth %.4f sep %d n %d\n", k, med,
           lo, hi, truth, e->separable, e->n_rows);
    return lo <= truth && truth <= hi;
}

/* Compute 0.90 on every MoE MXFP8 GB200 row: the compute speed comes back
 * within its 80% interval and communication is left near 1; a configuration
 * of the same class that was not measured is predicted slower by what the
 * truth slows it. */
static void test_site_calib_recovers_compute_090(void **state)
{
    fixture *f = *state;
    size_t k =
        slowed(f, "GB200", LLM_MOE, PREC_FP8_BLOCK, 0.90, 1.0, 1, 1, MAXR);
    const site_calib_entry *e;
    tp_query q;
    tp_result r0, r1, rt;
    assert_true(k >= 5);
    assert_int_equal(
        site_calib_fit(f->m, f->ex, NULL, f->line, k, &f->sc, NULL), SIM_OK);
    e = entry(f, "GB200", LLM_MOE, PREC_FP8_BLOCK);
    assert_int_equal(e->n_rows, (int)k);
    assert_true(inside(e, 0, 0.90));
    assert_true(fabs(exp(e->mean[0]) - 0.90) < 0.02);
    assert_true(e->log_sd < e->prior_sd / 2); /* the rows narrowed it */
    /* The spread the replications draw: the posterior for the measured
     * group, the model's for a class no row measured (dense here). */
    {
        tp_query qq = f->ex[0].q;
        assert_close(site_calib_log_sd(&f->sc, &qq, 0.5), e->log_sd, 1e-12);
        qq.prec.recipe = PREC_BF16;
        assert_close(site_calib_log_sd(&f->sc, &qq, 0.5), 0.5, 1e-12);
    }
    /* An unmeasured configuration: the first row's model at another GPU
     * count, the layout chosen afresh. */
    memset(&q, 0, sizeof q);
    q.gpu = f->ex[0].q.gpu;
    q.llm = f->ex[0].q.llm;
    q.prec = f->ex[0].q.prec;
    q.n_gpus = f->ex[0].q.n_gpus * 2;
    assert_int_equal(tp_predict(f->m, &q, &r0), SIM_OK);
    {
        tp_query qt = q;
        qt.layout = r0.layout;
        qt.gbs = r0.gbs;
        qt.seq_len = r0.seq_len;
        qt.compute_slowdown = 1.0 / 0.90;
        assert_int_equal(tp_predict(f->m, &qt, &rt), SIM_OK);
        q = qt;
        q.compute_slowdown = 0;
    }
    assert_non_null(site_calib_apply(&f->sc, &q));
    assert_int_equal(tp_predict(f->m, &q, &r1), SIM_OK);
    printf("  unmeasured: model %.1f truth %.1f calibrated %.1f sd %.4f\n",
           r0.tokens_per_sec_per_gpu, rt.tokens_per_sec_per_gpu,
           r1.tokens_per_sec_per_gpu, e->log_sd);
    assert_true(r1.tokens_per_sec_per_gpu < 0.95 * r0.tokens_per_sec_per_gpu);
    assert_true(
        fabs(log(r1.tokens_per_sec_per_gpu / rt.tokens_per_sec_per_gpu)) <
        SITE_CALIB_Z80 * e->log_sd + 0.01);
}

/* Communication 0.6 on the multi-node H100 FP8 rows only (a slow scale-out
 * network): the fit blames communication, not compute. */
static void test_site_calib_multinode_comm_is_communication(void **state)
{
    fixture *f = *state;
    size_t k = slowed(f, "H100", -1, PREC_FP8_TENSOR, 1.0, 0.6, 0, 1, MAXR);
    const site_calib_entry *e;
    double cm, cl, ch, mm, ml, mh;
    assert_true(k >= 20);
    assert_int_equal(
        site_calib_fit(f->m, f->ex, NULL, f->line, k, &f->sc, NULL), SIM_OK);
    e = site_calib_find(&f->sc, "H100", -1, -1, NULL);
    assert_non_null(e);
    site_calib_speed(e, 0, &cm, &cl, &ch);
    site_calib_speed(e, 1, &mm, &ml, &mh);
    printf("  compute %.3f [%.3f, %.3f] comm %.3f [%.3f, %.3f] sep %d n %d\n",
           cm, cl, ch, mm, ml, mh, e->separable, e->n_rows);
    assert_true(e->separable);
    assert_true(mh < 0.95);                     /* communication is slow */
    assert_true(fabs(log(cm)) < fabs(log(mm))); /* more than compute */
    assert_true(cl <= 1.0 && 1.0 <= ch + 0.02);
}

/* One row cannot tell compute from communication: it is flagged, the
 * marginal sds stay near the prior's (the joint posterior keeps the
 * unmeasured direction wide), while the throughput it measured narrows. */
static void test_site_calib_one_row_does_not_identify(void **state)
{
    fixture *f = *state;
    size_t k = slowed(f, "GB200", LLM_MOE, PREC_FP8_BLOCK, 0.90, 1.0, 1, 1, 1);
    const site_calib_entry *e;
    assert_int_equal(k, 1);
    assert_int_equal(
        site_calib_fit(f->m, f->ex, NULL, f->line, k, &f->sc, NULL), SIM_OK);
    e = entry(f, "GB200", LLM_MOE, PREC_FP8_BLOCK);
    printf("  one row: sd c %.4f sd m %.4f prior %.4f log_sd %.4f\n",
           sqrt(e->cov[0][0]), sqrt(e->cov[1][1]), e->prior_sd, e->log_sd);
    assert_int_equal(e->separable, 0);
    assert_true(sqrt(e->cov[0][0]) > 0.6 * e->prior_sd);
    assert_true(sqrt(e->cov[1][1]) > 0.9 * e->prior_sd);
    assert_true(e->cov[0][1] < 0); /* either factor explains it */
    assert_true(e->log_sd < e->prior_sd);
}

/* Unslowed rows: against the published rows the fit is the prior (every
 * factor 1); against the model, the model's own error moves predictions by
 * less than its spread. */
static void test_site_calib_unslowed_changes_nothing(void **state)
{
    fixture *f = *state;
    for (int use_refs = 1; use_refs >= 0; use_refs--) {
        size_t k = slowed(f, "GB200", LLM_MOE, PREC_FP8_BLOCK, 1.0, 1.0, 1,
                          use_refs, MAXR);
        assert_int_equal(
            site_calib_fit(f->m, f->ex, NULL, f->line, k, &f->sc, NULL),
            SIM_OK);
        for (size_t i = 0; i < k; i++) {
            tp_query q = f->ex[i].q;
            tp_result r0, r1;
            double sd;
            assert_int_equal(tp_predict(f->m, &q, &r0), SIM_OK);
            sd = tp_log_sd(f->m, q.llm, q.gpu, &r0);
            assert_non_null(site_calib_apply(&f->sc, &q));
            assert_int_equal(tp_predict(f->m, &q, &r1), SIM_OK);
            if (use_refs)
                assert_close(r1.step_time_s, r0.step_time_s, 1e-6);
            else
                assert_true(fabs(log(r1.step_time_s / r0.step_time_s)) < sd);
        }
    }
}

/* The file round-trips (speeds, sds, correlation, lines) and refuses
 * another version, an unknown key and another format with FILE:LINE. */
static void test_site_calib_file_round_trip_and_refusals(void **state)
{
    fixture *f = *state;
    size_t k = slowed(f, "GB200", LLM_MOE, PREC_FP8_BLOCK, 0.90, 1.0, 1, 1, 4);
    site_calib *back = NULL;
    sim_err e;
    const char *path = "build/tests/site_calib_rt.cfg";
    FILE *o;
    assert_int_equal(
        site_calib_fit(f->m, f->ex, NULL, f->line, k, &f->sc, NULL), SIM_OK);
    snprintf(f->sc.source_file, sizeof f->sc.source_file, "m.csv");
    snprintf(f->sc.reference_file, sizeof f->sc.reference_file, "r.csv");
    assert_int_equal(site_calib_sha256(REF_CSV, f->sc.source_sha256, &e),
                     SIM_OK);
    assert_int_equal(strlen(f->sc.source_sha256), 64);
    assert_int_equal(site_calib_save(&f->sc, path, &e), SIM_OK);
    assert_int_equal(site_calib_load(path, &back, &e), SIM_OK);
    assert_int_equal(back->n, f->sc.n);
    for (int j = 0; j < back->n; j++) {
        assert_close(back->e[j].mean[0], f->sc.e[j].mean[0], 1e-8);
        assert_close(back->e[j].cov[0][1], f->sc.e[j].cov[0][1], 1e-7);
        assert_int_equal(back->e[j].lines[0], f->sc.e[j].lines[0]);
        assert_int_equal(back->e[j].cls, f->sc.e[j].cls);
    }
    free(back);
    back = NULL;
    o = fopen(path, "w");
    fputs("format = \"factorysim-site-calibration\";\nversion = 2;\n", o);
    fclose(o);
    assert_int_equal(site_calib_load(path, &back, &e), SIM_ECONFIG);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.msg, "got 2, expected 1"));
    o = fopen(path, "w");
    fputs("format = \"factorysim-site-calibration\";\nversion = 1;\n"
          "colour = 3;\n",
          o);
    fclose(o);
    assert_int_equal(site_calib_load(path, &back, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "colour"));
    assert_int_equal(site_calib_load("models/calibration.cfg", &back, &e),
                     SIM_ECONFIG);
    assert_null(back);
}

/* The CLI: exemplar writes the file (exit 3: rows fail), predict applies
 * it (slower, narrower interval for the measured class), run names it in
 * its header and JSON; bad paths and files are refused with FILE:LINE. */
static void test_site_calib_cli(void **state)
{
    static char out[65536], err[8192], out2[65536];
    const char *p;
    double t0, t1;
    (void)state;
    assert_int_equal(fs_run("exemplar scenarios/norway-measured.csv "
                            "--write-site-calibration "
                            "build/tests/site_calib_cli.cfg",
                            out, sizeof out, err, sizeof err),
                     3);
    assert_non_null(strstr(out, "GB300 moe MXFP8, 2 rows: throughput x"));
    assert_non_null(strstr(out, "cannot tell compute from communication"));
    assert_non_null(strstr(out, "unexplained residual"));
    /* Same rows, same bytes: the file carries no time. */
    assert_int_equal(fs_run("exemplar scenarios/norway-measured.csv "
                            "--write-site-calibration "
                            "build/tests/site_calib_cli2.cfg",
                            out, sizeof out, err, sizeof err),
                     3);
    {
        FILE *a = fopen("build/tests/site_calib_cli.cfg", "r"),
             *b = fopen("build/tests/site_calib_cli2.cfg", "r");
        static char ta[65536], tb[65536];
        size_t na, nb;
        assert_non_null(a);
        assert_non_null(b);
        na = fread(ta, 1, sizeof ta, a);
        nb = fread(tb, 1, sizeof tb, b);
        fclose(a);
        fclose(b);
        assert_int_equal(na, nb);
        assert_memory_equal(ta, tb, na);
        assert_non_null(strstr(ta, "file = \"norway-measured.csv\""));
        assert_non_null(strstr(ta, "lines = [8, 9]"));
    }
    assert_int_equal(fs_run("predict --gpu GB300 --model \"DeepSeek-V3 671B\" "
                            "--precision MXFP8 --gpus 2048 --format json",
                            out, sizeof out, err, sizeof err),
                     0);
    assert_int_equal(fs_run("predict --gpu GB300 --model \"DeepSeek-V3 671B\" "
                            "--precision MXFP8 --gpus 2048 --format json "
                            "--site-calibration "
                            "scenarios/calibration/norway-site.cfg",
                            out2, sizeof out2, err, sizeof err),
                     0);
    p = strstr(out, "\"tokens_per_sec_per_gpu\":");
    assert_non_null(p);
    t0 = strtod(strchr(p, ':') + 1, NULL);
    p = strstr(out2, "\"tokens_per_sec_per_gpu\":");
    assert_non_null(p);
    t1 = strtod(strchr(p, ':') + 1, NULL);
    assert_true(t1 < 0.97 * t0 && t1 > 0.8 * t0);
    assert_non_null(strstr(out2, "\"site_calibration\": \"norway-site.cfg\""));
    assert_int_equal(fs_run("predict --gpu GB300 --model \"DeepSeek-V3 671B\" "
                            "--precision MXFP8 --gpus 2048 --site-calibration "
                            "models/calibration.cfg",
                            out, sizeof out, err, sizeof err),
                     1);
    assert_non_null(strstr(err, "models/calibration.cfg:1: format: not a site "
                                "calibration"));
    assert_int_equal(fs_run("predict --gpu GB300 --model \"DeepSeek-V3 671B\" "
                            "--precision MXFP8 --gpus 8 --site-calibration",
                            out, sizeof out, err, sizeof err),
                     2);
    assert_int_equal(fs_run("exemplar scenarios/norway-measured.csv "
                            "--write-site-calibration",
                            out, sizeof out, err, sizeof err),
                     2);
    assert_int_equal(fs_run("run tests/data/keys/base-a.cfg --no-db --format "
                            "json",
                            out, sizeof out, err, sizeof err),
                     0);
    assert_non_null(
        strstr(out, "\"site_calibration\": \"site-calibration.cfg\""));
    assert_int_equal(fs_run("run tests/data/keys/base-a.cfg --no-db", out,
                            sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "site calibration site-calibration.cfg"));
}

/* predict --csv applies a site calibration row by row, through the same
 * path as a single predict: the Qwen3 30B-A3B row of the measured group
 * (GB300 MoE MXFP8) gets the single query's point and interval (to the
 * CSV's one decimal), and differs from the uncalibrated CSV (before,
 * --site-calibration with --csv was refused). */
static void test_site_calib_predict_csv_matches_single(void **state)
{
    static char out[65536], err[8192], one[65536];
    const char *row, *p;
    double v[3], w[3];
    (void)state;
    assert_int_equal(fs_run("predict --gpu GB300 --model \"Qwen3 30B-A3B\" "
                            "--precision MXFP8 --gpus 8 --gbs 512 --mbs 8 "
                            "--seq 4096 --tp 1 --pp 1 --cp 1 --ep 8 --release "
                            "26.04.01 --format json --site-calibration "
                            "scenarios/calibration/norway-site.cfg",
                            one, sizeof one, err, sizeof err),
                     0);
    p = strstr(one, "\"tokens_per_sec_per_gpu\":");
    assert_non_null(p);
    w[0] = strtod(strchr(p, ':') + 1, NULL);
    p = strstr(one, "\"low_tokens_per_sec_per_gpu\":");
    assert_non_null(p);
    w[1] = strtod(strchr(p, ':') + 1, NULL);
    p = strstr(one, "\"high_tokens_per_sec_per_gpu\":");
    assert_non_null(p);
    w[2] = strtod(strchr(p, ':') + 1, NULL);
    /* Row 2 cannot be predicted (no layout fits): exit 1, the row blank. */
    assert_int_equal(fs_run("predict --csv scenarios/norway-measured.csv "
                            "--site-calibration "
                            "scenarios/calibration/norway-site.cfg",
                            out, sizeof out, err, sizeof err),
                     1);
    row = strstr(out, "Qwen3 30B-A3B,GB300,8,MXFP8");
    assert_non_null(row);
    /* Columns 15-19 after the input's 14: predicted tokens/s/GPU, TFLOP/s,
     * step time, low, high. */
    p = row;
    for (int c = 0; c < 13; c++)
        p = strchr(p, ',') + 1;
    v[0] = strtod(p + 0, NULL);
    for (int c = 0; c < 3; c++)
        p = strchr(p, ',') + 1;
    v[1] = strtod(p, NULL);
    p = strchr(p, ',') + 1;
    v[2] = strtod(p, NULL);
    for (int k = 0; k < 3; k++)
        assert_true(fabs(v[k] - w[k]) <= 0.051);
    assert_int_equal(fs_run("predict --csv scenarios/norway-measured.csv", out,
                            sizeof out, err, sizeof err),
                     1);
    row = strstr(out, "Qwen3 30B-A3B,GB300,8,MXFP8");
    assert_non_null(row);
    p = row;
    for (int c = 0; c < 13; c++)
        p = strchr(p, ',') + 1;
    assert_true(fabs(strtod(p, NULL) - w[0]) > 0.01 * w[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_site_calib_recovers_compute_090),
        cmocka_unit_test(test_site_calib_multinode_comm_is_communication),
        cmocka_unit_test(test_site_calib_one_row_does_not_identify),
        cmocka_unit_test(test_site_calib_unslowed_changes_nothing),
        cmocka_unit_test(test_site_calib_file_round_trip_and_refusals),
        cmocka_unit_test(test_site_calib_cli),
        cmocka_unit_test(test_site_calib_predict_csv_matches_single),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
