/* tests/test_csv.c: the libcsv reader (io/csv.h) and every error path of
 * the throughput-row parser (io/calib_rows.h): missing column, bad number,
 * unknown model, GPU and precision, with FILE:LINE; and which column is
 * the measurement when a row's throughput contradicts its step time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <strings.h>

#include "io/calib_rows.h"
#include "io/csv.h"
#include "tests/testutil.h"

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

static csvt *read_rows(void)
{
    csvt *t = NULL;
    sim_err e;
    assert_int_equal(csvt_read("tests/data/tp_rows.csv", &t, &e), SIM_OK);
    return t;
}

static void test_csv_reads_quoted_cells_and_lines(void **state)
{
    csvt *t = read_rows();
    (void)state;
    memset(&g_llama, 0, sizeof g_llama);
    g_llama.default_seq_len = 8192;
    assert_int_equal(t->n_rows, 6);
    assert_int_equal(t->n_cols, 15);
    assert_string_equal(t->rows[0][14], "a note, with comma\nand a newline");
    assert_int_equal(t->line[0], 2);
    assert_int_equal(t->line[1], 4); /* the quoted newline spans line 3 */
    assert_int_equal(csvt_col(t, "gbs"), 5);
    assert_int_equal(csvt_col(t, "nope"), -1);
    csvt_free(t);
    csvt_free(NULL);
}

static void test_csv_missing_file_and_column(void **state)
{
    csvt *t = NULL;
    sim_err e;
    (void)state;
    assert_int_equal(csvt_read("tests/data/does_not_exist.csv", &t, &e),
                     SIM_EIO);
    assert_null(t);
    assert_int_equal(csvt_read("tests/data/tp_missing_col.csv", &t, &e),
                     SIM_OK);
    assert_int_equal(calib_rows_check(t, &e), SIM_ECONFIG);
    assert_int_equal(e.line, 1);
    assert_non_null(strstr(e.msg, "missing column 'vp'"));
    csvt_free(t);
}

static void test_csv_row_errors_name_line_and_column(void **state)
{
    csvt *t = read_rows();
    calib_row r;
    sim_err e;
    (void)state;
    assert_int_equal(calib_rows_check(t, &e), SIM_OK);
    assert_int_equal(calib_row_parse(t, 0, &lk, &r, &e), SIM_OK);
    assert_close(r.meas_tps, 1200.0, 1e-15);
    assert_string_equal(r.release, "26.04");
    assert_int_equal(r.q.layout.ep, 1);
    assert_int_equal(calib_row_parse(t, 1, &lk, &r, &e), SIM_ECONFIG);
    assert_int_equal(e.line, 4);
    assert_non_null(strstr(e.msg, "gbs: bad number (got '12x8'"));
    assert_string_equal(e.file, "tests/data/tp_rows.csv");
    assert_int_equal(calib_row_parse(t, 2, &lk, &r, &e), SIM_ENOTFOUND);
    assert_int_equal(e.line, 5);
    assert_non_null(strstr(
        e.msg,
        "unknown model (got 'Llama 9 999B', expected one of: Llama 3.1 70B)"));
    assert_int_equal(calib_row_parse(t, 3, &lk, &r, &e), SIM_ENOTFOUND);
    assert_non_null(strstr(e.msg, "unknown GPU (got 'Z100'"));
    assert_int_equal(calib_row_parse(t, 4, &lk, &r, &e), SIM_ENOTFOUND);
    assert_non_null(strstr(e.msg, "precision: unknown precision (got 'FP7'"));
    /* Blank seq_len takes the model default; blank tp asks for a layout. */
    assert_int_equal(calib_row_parse(t, 5, &lk, &r, &e), SIM_OK);
    assert_int_equal(r.seq_assumed, 1);
    assert_int_equal(r.q.seq_len, 8192);
    assert_int_equal(r.q.layout.tp, 0);
    assert_true(r.meas_tps == 0);
    csvt_free(t);
}

/* gbs 128 x seq 8192 = 1,048,576 tokens per step; over 10 s on 64 GPUs
 * that is 1638.4 tokens/s/GPU. A throughput within 3 % of it is kept as
 * printed (1650, +0.7 %); one that contradicts it is the typo and the step
 * time is used: a total printed at half (52428.8 / 64 = 819.2) and a per-GPU
 * figure 5 % high (1720.32). A row with only the step time reads it. */
static void
test_csv_step_time_wins_when_the_row_contradicts_itself(void **state)
{
    csvt *t = NULL;
    calib_row r;
    sim_err e;
    (void)state;
    assert_int_equal(csvt_read("tests/data/tp_rows_step.csv", &t, &e), SIM_OK);
    assert_int_equal(calib_row_parse(t, 0, &lk, &r, &e), SIM_OK);
    assert_close(r.meas_tps, 1650.0, 1e-15);
    assert_int_equal(r.meas_from_step, 0);
    assert_int_equal(calib_row_parse(t, 1, &lk, &r, &e), SIM_OK);
    assert_close(r.meas_tps, 1638.4, 1e-12);
    assert_int_equal(r.meas_from_step, 1);
    assert_int_equal(calib_row_parse(t, 2, &lk, &r, &e), SIM_OK);
    assert_close(r.meas_tps, 1638.4, 1e-12);
    assert_int_equal(r.meas_from_step, 1);
    assert_int_equal(calib_row_parse(t, 3, &lk, &r, &e), SIM_OK);
    assert_close(r.meas_tps, 1638.4, 1e-12);
    assert_int_equal(r.meas_from_step, 0);
    csvt_free(t);
}

int main(void)
{
    const struct CMUnitTest csv_tests[] = {
        cmocka_unit_test(test_csv_reads_quoted_cells_and_lines),
        cmocka_unit_test(test_csv_missing_file_and_column),
        cmocka_unit_test(test_csv_row_errors_name_line_and_column),
        cmocka_unit_test(
            test_csv_step_time_wins_when_the_row_contradicts_itself),
    };
    return cmocka_run_group_tests_name("csv", csv_tests, NULL, NULL);
}
