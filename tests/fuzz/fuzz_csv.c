/* tests/fuzz/fuzz_csv.c: libFuzzer harness for the measured/calibration CSV
 * reader: tpc_read_rows (io/csv.c over libcsv, io/calib_rows.c), the
 * function `calibrate`, `predict --csv` and `exemplar` read through, and
 * then, as `predict --csv` does, tp_predict on every row that parsed, with
 * the committed calibration. Row reports are formatted as the commands'
 * would be (quiet_report), then dropped. */
#include "fuzz_util.h"

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/throughput.h"

static catalog *cat;

/* Formats a bad row's report, as cli_report does, without printing it. */
static int quiet_report(const sim_err *e)
{
    char buf[2200];
    sim_err_format(e, buf, sizeof buf);
    return e->code;
}
static tp_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sim_err e;
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    fuzz_quiet_stdio();
    sim_err_clear(&e);
    if (catalog_load(NULL, &cat, &e) != SIM_OK ||
        tp_model_default(&model, &e) != SIM_OK) {
        char buf[2100];
        fprintf(stdout, "fuzz: setup: %s (run from the repository root)\n",
                sim_err_format(&e, buf, sizeof buf));
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("input.csv", data, size);
    csvt *t = NULL;
    calib_row *rows = NULL;
    unsigned char *ok = NULL;
    size_t n = 0, n_bad = 0;
    sim_err e;
    int rc;

    sim_err_clear(&e);
    rc = tpc_read_rows(path, cat, &t, &rows, &ok, &n, &n_bad, quiet_report, &e);
    fuzz_expect(rc, &e, "tpc_read_rows");
    if (rc == SIM_OK) {
        if (!t || n != t->n_rows || n_bad > n) {
            fprintf(stdout, "fuzz: row counts: n %zu, bad %zu\n", n, n_bad);
            abort();
        }
        for (size_t i = 0; i < n; i++) {
            tp_result r;
            if (ok[i] && tp_predict(model, &rows[i].q, &r) == SIM_OK &&
                !(r.tokens_per_sec_per_gpu >= 0)) {
                fprintf(stdout, "fuzz: row %zu: prediction %g\n", i,
                        r.tokens_per_sec_per_gpu);
                abort();
            }
        }
    }
    csvt_free(t);
    free(rows);
    free(ok);
    return 0;
}
