/* tests/test_exemplar.c: promises of models/exemplar.h on the committed
 * calibration (models/calibration.cfg) and reference table
 * (data/calibration/megatron_throughput.csv), and the `exemplar` command's
 * outputs and error paths. Measured rows are made from published rows by
 * slowing the model's own compute (or communication) by a known factor, so
 * the right diagnosis is known. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/exemplar.h"
#include "tests/cli_util.h"
#include "tests/testutil.h"
#include "tests/tp_refs.h"

#define REF_CSV TP_REFS_CSV

typedef struct fixture {
    catalog *cat;
    tp_model *m;
    csvt *t;
    calib_row *refs;
    unsigned char *ok;
    size_t n;
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

/* Indices of the published GB200 (or gpu) rows of one release that the
 * model runs: dense, MoE and hybrid models with different communication
 * shares. Returns how many (at most max). */
static size_t pick(const fixture *f, const char *gpu, const char *release,
                   size_t *idx, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n && k < max; i++) {
        exemplar_row e;
        if (!f->ok[i] || strcmp(f->refs[i].gpu->name, gpu) != 0 ||
            strcmp(f->refs[i].release, release) != 0)
            continue;
        if (exemplar_compare(f->m, &f->refs[i], f->refs, f->n, &e) != SIM_OK ||
            !e.has_model)
            continue;
        idx[k++] = i;
    }
    return k;
}

/* Measured copies of rows idx[], slowed through the model by compute factor
 * a or communication factor b (0 = none), compared and diagnosed. */
static void slowed(const fixture *f, const size_t *idx, size_t k, double a,
                   double b, calib_row *meas, exemplar_row *ex,
                   exemplar_group **g, size_t *ng)
{
    for (size_t j = 0; j < k; j++) {
        exemplar_row e0;
        tp_query q;
        tp_result r;
        meas[j] = f->refs[idx[j]];
        meas[j].q.release = meas[j].release;
        assert_int_equal(exemplar_compare(f->m, &meas[j], f->refs, f->n, &e0),
                         SIM_OK);
        q = e0.q;
        q.compute_slowdown = a;
        q.comm_slowdown = b;
        assert_int_equal(tp_predict(f->m, &q, &r), SIM_OK);
        meas[j].meas_tps =
            f->refs[idx[j]].meas_tps * e0.step_model_s / r.step_time_s;
        assert_int_equal(
            exemplar_compare(f->m, &meas[j], f->refs, f->n, &ex[j]), SIM_OK);
    }
    exemplar_diagnose(f->m, ex, NULL, k, g, ng);
}

static void test_exemplar_published_copy_passes_with_ratio_1(void **state)
{
    fixture *f = *state;
    size_t n_pub = 0;
    for (size_t i = 0; i < f->n; i++) {
        exemplar_row e;
        if (!f->ok[i])
            continue;
        assert_int_equal(exemplar_compare(f->m, &f->refs[i], f->refs, f->n, &e),
                         SIM_OK);
        assert_int_equal(e.ref_kind, EXEMPLAR_REF_PUBLISHED);
        assert_string_equal(f->refs[e.ref_index].release, f->refs[i].release);
        assert_close(e.ratio, 1.0, 1e-12);
        assert_int_equal(e.verdict, EXEMPLAR_PASS);
        n_pub++;
    }
    assert_true(n_pub >= 500);
}

static void test_exemplar_ten_percent_slow_fails(void **state)
{
    fixture *f = *state;
    size_t idx[1];
    calib_row r;
    exemplar_row e;
    assert_int_equal(pick(f, "GB200", "26.04", idx, 1), 1);
    r = f->refs[idx[0]];
    r.q.release = r.release;
    r.meas_tps *= 0.90;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_close(e.ratio, 0.90, 1e-12);
    assert_int_equal(e.verdict, EXEMPLAR_FAIL);
    /* Both factors reproduce one row: a compute factor near 1/0.9. */
    assert_true(e.compute_factor > 1.0 && e.compute_factor < 1.0 / 0.9 + 0.01);
    r.meas_tps = f->refs[idx[0]].meas_tps * 0.951; /* the bar is 95% */
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.verdict, EXEMPLAR_PASS);
    r.meas_tps = f->refs[idx[0]].meas_tps * 0.949;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.verdict, EXEMPLAR_FAIL);
}

static void test_exemplar_model_reference_interval_verdicts(void **state)
{
    fixture *f = *state;
    size_t idx[1];
    calib_row r;
    exemplar_row e;
    assert_int_equal(pick(f, "GB200", "26.04", idx, 1), 1);
    r = f->refs[idx[0]];
    r.q.release = r.release;
    r.q.n_gpus *= 8; /* a scale nobody published */
    r.q.gbs *= 8;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.ref_kind, EXEMPLAR_REF_MODEL);
    assert_true(e.ref_low_tps < e.ref_tps && e.ref_tps < e.ref_high_tps);
    r.meas_tps =
        e.ref_tps; /* the point prediction lies inside 0.95 x interval */
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.verdict, EXEMPLAR_INCONCLUSIVE);
    r.meas_tps = 0.95 * e.ref_high_tps * 1.001;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.verdict, EXEMPLAR_PASS);
    r.meas_tps = 0.95 * e.ref_low_tps * 0.999;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_OK);
    assert_int_equal(e.verdict, EXEMPLAR_FAIL);
}

static void test_exemplar_compute_slowdown_attributed_to_compute(void **state)
{
    fixture *f = *state;
    size_t idx[16], k = pick(f, "GB200", "26.04", idx, 16), ng = 0;
    calib_row meas[16];
    exemplar_row ex[16];
    exemplar_group *g = NULL;
    assert_true(k >= 6);
    slowed(f, idx, k, 1.15, 0, meas, ex, &g, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].cause, EXEMPLAR_CAUSE_COMPUTE);
    assert_close(g[0].a, 1.15, 1e-4);
    assert_true(g[0].rms_a < 1e-6 && g[0].rms_b > 0.01);
    for (size_t j = 0; j < k; j++) {
        assert_int_equal(ex[j].verdict, EXEMPLAR_FAIL); /* 15% slower compute */
        assert_int_equal(ex[j].cause, EXEMPLAR_CAUSE_COMPUTE);
        assert_int_equal(ex[j].basis, EXEMPLAR_BASIS_GROUP);
        assert_close(ex[j].compute_factor, 1.15, 1e-6);
    }
    free(g);
}

static void test_exemplar_comm_slowdown_attributed_to_comm(void **state)
{
    fixture *f = *state;
    size_t idx[16], k = pick(f, "GB200", "26.04", idx, 16), ng = 0, n_fail = 0;
    calib_row meas[16];
    exemplar_row ex[16];
    exemplar_group *g = NULL;
    slowed(f, idx, k, 0, 3.0, meas, ex, &g, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].cause, EXEMPLAR_CAUSE_COMM);
    assert_close(g[0].b, 3.0, 1e-4);
    assert_true(g[0].rms_b < 1e-6 && g[0].rms_a > 0.01);
    for (size_t j = 0; j < k; j++) {
        if (ex[j].verdict != EXEMPLAR_FAIL) {
            /* Rows that barely communicate stay within the bar. */
            assert_true(ex[j].comm_share < 0.05);
            assert_int_equal(ex[j].cause, EXEMPLAR_CAUSE_NONE);
            continue;
        }
        n_fail++;
        assert_int_equal(ex[j].cause, EXEMPLAR_CAUSE_COMM);
        assert_int_equal(ex[j].basis, EXEMPLAR_BASIS_GROUP);
        assert_close(ex[j].comm_factor, 3.0, 1e-6);
    }
    assert_true(n_fail >= 2);
    free(g);
}

/* The topology-file case (seed): B200 (8-GPU NVLink domain) with every
 * collective twice as slow. */
static void test_exemplar_b200_comm_slowdown_attributed_to_comm(void **state)
{
    fixture *f = *state;
    size_t idx[16], k = 0, ng = 0;
    calib_row meas[16];
    exemplar_row ex[16];
    exemplar_group *g = NULL;
    k += pick(f, "B200", "26.04", idx, 16);
    k += pick(f, "B200", "26.02", idx + k, 16 - k);
    assert_true(k >= 3);
    slowed(f, idx, k, 0, 2.0, meas, ex, &g, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].cause, EXEMPLAR_CAUSE_COMM);
    assert_close(g[0].b, 2.0, 1e-4);
    free(g);
}

static void test_exemplar_one_row_is_a_weak_call(void **state)
{
    fixture *f = *state;
    size_t idx[1], ng = 0;
    calib_row meas[1];
    exemplar_row ex[1];
    exemplar_group *g = NULL;
    assert_int_equal(pick(f, "GB200", "26.04", idx, 1), 1);
    slowed(f, idx, 1, 1.2, 0, meas, ex, &g, &ng);
    assert_int_equal(ng, 1);
    assert_int_equal(g[0].cause, EXEMPLAR_CAUSE_NONE); /* one row cannot tell */
    assert_int_equal(ex[0].verdict, EXEMPLAR_FAIL);
    assert_int_equal(ex[0].basis, EXEMPLAR_BASIS_ROW);
    /* Either factor reproduces it; the smaller change is named. */
    assert_true(isfinite(ex[0].compute_factor) && isfinite(ex[0].comm_factor));
    assert_int_equal(ex[0].cause, fabs(log(ex[0].compute_factor)) <=
                                          fabs(log(ex[0].comm_factor))
                                      ? EXEMPLAR_CAUSE_COMPUTE
                                      : EXEMPLAR_CAUSE_COMM);
    free(g);
}

static void test_exemplar_release_newer(void **state)
{
    (void)state;
    assert_true(exemplar_release_newer("26.04.01", "26.04"));
    assert_false(exemplar_release_newer("26.04", "26.04.01"));
    assert_true(exemplar_release_newer("25.09", "dgxc v25.05-v25.05.05"));
    assert_true(exemplar_release_newer("dgxc v25.05-v25.05.05",
                                       "dgxc v24.11.1-v25.01.1"));
    assert_false(exemplar_release_newer("26.04", "26.04"));
    assert_true(exemplar_release_newer("25.02", ""));
}

static void test_exemplar_prefers_same_release_else_newest(void **state)
{
    fixture *f = *state;
    size_t n_multi = 0;
    for (size_t i = 0; i < f->n; i++) {
        calib_row r = f->refs[i];
        long k, newest = -1;
        size_t same = 0;
        if (!f->ok[i])
            continue;
        for (size_t j = 0; j < f->n; j++)
            if (f->ok[j] && strcmp(f->refs[j].config, r.config) == 0 &&
                f->refs[j].meas_tps > 0) {
                same++;
                if (newest < 0 ||
                    exemplar_release_newer(f->refs[j].release,
                                           f->refs[newest].release))
                    newest = (long)j;
            }
        if (same < 2)
            continue;
        n_multi++;
        snprintf(r.release, sizeof r.release,
                 "99.99"); /* a release nobody has */
        k = exemplar_match(&r, f->refs, f->n);
        assert_true(k >= 0);
        /* No row of the configuration is newer than the one chosen (rows
         * whose keys differ only in a blank vs "0" cell also match). */
        assert_false(exemplar_release_newer(f->refs[newest].release,
                                            f->refs[k].release));
        assert_int_equal(f->refs[k].q.n_gpus, r.q.n_gpus);
        assert_int_equal(f->refs[k].q.gbs, r.q.gbs);
        assert_int_equal(f->refs[k].prec.recipe, r.prec.recipe);
        assert_string_equal(f->refs[k].llm->name, r.llm->name);
        /* The row's own release, when it has one, comes first. */
        assert_int_equal(exemplar_match(&f->refs[i], f->refs, f->n) >= 0, 1);
        assert_string_equal(
            f->refs[exemplar_match(&f->refs[i], f->refs, f->n)].release,
            f->refs[i].release);
    }
    assert_true(n_multi >= 20);
}

static void test_exemplar_no_measurement_is_an_error(void **state)
{
    fixture *f = *state;
    calib_row r = f->refs[0];
    exemplar_row e;
    r.meas_tps = 0;
    assert_int_equal(exemplar_compare(f->m, &r, f->refs, f->n, &e), SIM_EINVAL);
    assert_non_null(strstr(e.why, "no measured value"));
}

/* calib.h: no published row reaches its GPU's dense peak (the bundled
 * table spans 0.044 .. 0.561 of it); the same row with the cluster total in
 * the per-GPU column is num_gpus times higher, above the peak for 512 of
 * the 521 rows (the rest: small MoE models at low utilization on 8-16
 * GPUs, which the check cannot tell from real). */
static void
test_exemplar_published_rows_are_below_peak_and_totals_above(void **state)
{
    fixture *f = *state;
    double hi = 0;
    size_t n = 0, caught = 0;
    for (size_t i = 0; i < f->n; i++) {
        calib_row r;
        double x;
        if (!f->ok[i] || !(f->refs[i].meas_tps > 0))
            continue;
        x = calib_row_peak_fraction(&f->refs[i]);
        assert_true(x > 0 && x < 1);
        hi = x > hi ? x : hi;
        n++;
        r = f->refs[i];
        r.meas_tps *= r.q.n_gpus;
        assert_close(calib_row_peak_fraction(&r), x * r.q.n_gpus, 1e-12);
        caught += calib_row_peak_fraction(&r) > 1;
    }
    assert_int_equal(n, 521);
    assert_int_equal(caught, 512);
    assert_close(hi, 0.561, 0.01);
}

/* ---------------------------------------------------------------- CLI */

/* Issue 13: a measured throughput whose model FLOP/s exceed the GPU's dense
 * peak for its precision passed the check (ratio 64, "pass"). Each such
 * row, whichever column measured it, is now an error for that row
 * (FILE:LINE: reason, blank results, exit 1); a good row beside it is
 * still compared. */
static void
test_exemplar_cli_throughput_above_gpu_peak_is_an_error_not_a_pass(void **state)
{
    static char out[65536], err[8192];
    static const char *const want[] = {
        "factorysim: tests/data/exemplar_above_peak.csv:3: "
        "tokens_per_sec_per_gpu: implausible measurement: model FLOP/s per "
        "GPU above the GB200's dense FP8 peak for MXFP8 (got 244992 "
        "tokens/s/GPU x 4.492e+11 FLOP/token = 1.101e+17 FLOP/s, 22 x the "
        "peak; expected <= 5e+15 FLOP/s; a cluster total typed into the "
        "per-GPU column?)",
        "tests/data/exemplar_above_peak.csv:4: tokens_per_sec_total: "
        "implausible measurement",
        "tests/data/exemplar_above_peak.csv:5: step_time_s: implausible "
        "measurement",
    };
    (void)state;
    assert_int_equal(fs_run("exemplar tests/data/exemplar_above_peak.csv "
                            "--format csv",
                            out, sizeof out, err, sizeof err),
                     1);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(err, want[k]))
            fail_msg("stderr '%s' lacks '%s'", err, want[k]);
    assert_non_null(strstr(out, "\n2,Llama 3 70B,GB200,MXFP8,64,26.04,3828.0,"
                                "published,26.04,93,3828.0,3828.0,3828.0,"
                                "1.0000,pass,"));
    for (int line = 3; line <= 5; line++) {
        char row[80];
        snprintf(row, sizeof row,
                 "\n%d,Llama 3 70B,GB200,MXFP8,64,,,,,,,,,,,,,,,,,\n", line);
        assert_non_null(strstr(out, row));
    }
    assert_null(strstr(out, "64.0000,pass"));
}

static void test_exemplar_cli_every_row_gives_a_row(void **state)
{
    static char out[65536], err[8192];
    const char *l;
    (void)state;
    assert_int_equal(
        fs_run("exemplar tests/data/exemplar_measured.csv --format csv", out,
               sizeof out, err, sizeof err),
        1);
    /* Header plus six rows, one per input row. */
    {
        int lines = 0;
        for (l = out; *l; l++)
            lines += *l == '\n';
        assert_int_equal(lines, 7);
    }
    assert_non_null(strstr(
        out, "\n2,Llama 3 70B,GB200,MXFP8,64,26.04,3828.0,published,26.04,"));
    assert_non_null(strstr(out, ",1.0000,pass,"));
    assert_non_null(strstr(out, ",0.9000,fail,"));
    assert_non_null(strstr(out, ",model,,,"));
    assert_non_null(
        strstr(out, "\n5,Llama 9 999B,GB200,MXFP8,64,,,,,,,,,,,,,,,,,\n"));
    assert_non_null(strstr(
        err, "tests/data/exemplar_measured.csv:5: model: unknown model"));
    assert_non_null(strstr(err,
                           "tests/data/exemplar_measured.csv:6: "
                           "tokens_per_sec_per_gpu: bad number (got 'fast'"));
    assert_non_null(
        strstr(err, "tests/data/exemplar_measured.csv:7: no measured value"));
}

static void test_exemplar_cli_missing_column(void **state)
{
    char out[4096], err[4096];
    (void)state;
    assert_int_equal(fs_run("exemplar tests/data/exemplar_missing_col.csv", out,
                            sizeof out, err, sizeof err),
                     1);
    assert_non_null(strstr(
        err, "tests/data/exemplar_missing_col.csv:1: missing column 'vp'"));
    assert_string_equal(out, "");
}

static void test_exemplar_cli_reference_option_and_json(void **state)
{
    static char out[65536], err[8192];
    (void)state;
    assert_int_equal(
        fs_run("exemplar tests/data/exemplar_measured.csv --reference nope.csv",
               out, sizeof out, err, sizeof err),
        1);
    assert_non_null(strstr(err, "nope.csv"));
    assert_string_equal(out, "");
    /* The reference given explicitly; JSON names only its file name. */
    assert_int_equal(
        fs_run("exemplar tests/data/exemplar_measured.csv --format json "
               "--reference " REF_CSV,
               out, sizeof out, err, sizeof err),
        1);
    assert_non_null(
        strstr(out, "\"reference_file\": \"megatron_throughput.csv\""));
    assert_non_null(strstr(out, "\"verdict\": \"inconclusive\""));
    assert_int_equal(fs_run("exemplar", out, sizeof out, err, sizeof err), 2);
}

/* The seed's virtualization case (NVIDIA's Exemplar investigation): MoE FP8
 * iterations 12-14% longer than the reference while dense models stayed
 * within 3%. Rows that differ in communication share tell the cause. */
static void test_exemplar_cli_seed_moe_slow_is_communication(void **state)
{
    static char out[16384], err[4096];
    (void)state;
    assert_int_equal(
        fs_run("exemplar tests/data/exemplar_seed_moe_slow.csv --format csv",
               out, sizeof out, err, sizeof err),
        3);
    assert_non_null(strstr(out, "\n2,DeepSeek-V3 671B,"));
    assert_non_null(strstr(out, ",0.8700,fail,"));
    assert_non_null(strstr(out, ",0.8750,fail,"));
    assert_non_null(strstr(out, ",0.9800,pass,"));
    assert_non_null(strstr(out, ",communication,group,"));
    assert_null(strstr(out, ",compute,"));
}

/* The same rows all 8% slow (a capped clock, a slow stack): compute. */
static void test_exemplar_cli_uniform_slow_is_compute(void **state)
{
    static char out[16384], err[4096];
    const char *p;
    int n = 0;
    (void)state;
    assert_int_equal(
        fs_run("exemplar tests/data/exemplar_uniform_slow.csv --format csv",
               out, sizeof out, err, sizeof err),
        3);
    for (p = out; (p = strstr(p, ",fail,")) != NULL; p++)
        n++;
    assert_int_equal(n, 5);
    assert_null(strstr(out, ",communication,"));
    for (p = out, n = 0; (p = strstr(p, ",compute,group,")) != NULL; p++)
        n++;
    assert_int_equal(n, 5);
}

/* Checks exit like checks (issue 12.7): 0 every row passed, 3 a row
 * failed, 1 a row could not be judged (even beside a failing one), 2 on
 * usage; inconclusive rows give 0 unless --strict (then 3). */
static void test_exemplar_cli_exits_0_pass_3_fail_1_error(void **state)
{
    static char out[65536], err[8192];
    (void)state;
    assert_int_equal(fs_run("exemplar tests/data/exemplar_all_pass.csv", out,
                            sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "1 rows: 1 pass, 0 fail"));
    assert_int_equal(fs_run("exemplar tests/data/exemplar_one_fail.csv", out,
                            sizeof out, err, sizeof err),
                     3);
    assert_non_null(strstr(out, "3 rows: 1 pass, 1 fail, 1 inconclusive"));
    assert_string_equal(err, "");
    /* exemplar_measured.csv has a failing row and rows it cannot judge. */
    assert_int_equal(fs_run("exemplar tests/data/exemplar_measured.csv", out,
                            sizeof out, err, sizeof err),
                     1);
    assert_non_null(strstr(out, "1 fail"));
    assert_int_equal(fs_run("exemplar --bogus tests/data/exemplar_all_pass.csv",
                            out, sizeof out, err, sizeof err),
                     2);
}

static void test_exemplar_cli_inconclusive_passes_unless_strict(void **state)
{
    static char out[65536], err[8192];
    (void)state;
    assert_int_equal(fs_run("exemplar tests/data/exemplar_inconclusive.csv",
                            out, sizeof out, err, sizeof err),
                     0);
    assert_non_null(strstr(out, "inconclusive"));
    assert_int_equal(
        fs_run("exemplar --strict tests/data/exemplar_inconclusive.csv", out,
               sizeof out, err, sizeof err),
        3);
    assert_int_equal(
        fs_run("exemplar --strict tests/data/exemplar_all_pass.csv", out,
               sizeof out, err, sizeof err),
        0);
    assert_int_equal(
        fs_run("exemplar --help", out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "--strict"));
    assert_non_null(strstr(out, "3 when any row failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exemplar_published_copy_passes_with_ratio_1),
        cmocka_unit_test(test_exemplar_ten_percent_slow_fails),
        cmocka_unit_test(test_exemplar_model_reference_interval_verdicts),
        cmocka_unit_test(test_exemplar_compute_slowdown_attributed_to_compute),
        cmocka_unit_test(test_exemplar_comm_slowdown_attributed_to_comm),
        cmocka_unit_test(test_exemplar_b200_comm_slowdown_attributed_to_comm),
        cmocka_unit_test(test_exemplar_one_row_is_a_weak_call),
        cmocka_unit_test(test_exemplar_release_newer),
        cmocka_unit_test(test_exemplar_prefers_same_release_else_newest),
        cmocka_unit_test(test_exemplar_no_measurement_is_an_error),
        cmocka_unit_test(
            test_exemplar_published_rows_are_below_peak_and_totals_above),
        cmocka_unit_test(
            test_exemplar_cli_throughput_above_gpu_peak_is_an_error_not_a_pass),
        cmocka_unit_test(test_exemplar_cli_every_row_gives_a_row),
        cmocka_unit_test(test_exemplar_cli_missing_column),
        cmocka_unit_test(test_exemplar_cli_reference_option_and_json),
        cmocka_unit_test(test_exemplar_cli_seed_moe_slow_is_communication),
        cmocka_unit_test(test_exemplar_cli_uniform_slow_is_compute),
        cmocka_unit_test(test_exemplar_cli_exits_0_pass_3_fail_1_error),
        cmocka_unit_test(test_exemplar_cli_inconclusive_passes_unless_strict),
    };
    return cmocka_run_group_tests_name("exemplar", tests, setup, teardown);
}
