/* tests/fuzz/fuzz_calibfile.c: libFuzzer harness for the calibration file
 * reader (tp_model_load, io/calib_file.c over libconfig), which `run`,
 * `predict` and `sweep` take through --calibration FILE. A model that
 * loads must predict a known configuration (Llama 3.1 70B on 64 H100 in
 * FP8, a row of tests/data/tp_rows.csv) without crashing. */
#include "fuzz_util.h"

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/throughput.h"

static catalog *cat;
static calib_row row;
static int have_row;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    csvt *t = NULL;
    calib_row *rows = NULL;
    unsigned char *ok = NULL;
    size_t n = 0, n_bad = 0;
    sim_err e;
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    fuzz_quiet_stdio();
    sim_err_clear(&e);
    if (catalog_load(NULL, &cat, &e) != SIM_OK ||
        tpc_read_rows("tests/data/tp_rows.csv", cat, &t, &rows, &ok, &n, &n_bad,
                      NULL, &e) != SIM_OK) {
        char buf[2100];
        fprintf(stdout, "fuzz: setup: %s (run from the repository root)\n",
                sim_err_format(&e, buf, sizeof buf));
        abort();
    }
    if (n > 0 && ok[0]) {
        row = rows[0];
        row.q.release = NULL;
        have_row = 1;
    }
    csvt_free(t);
    free(rows);
    free(ok);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("calibration.cfg", data, size);
    tp_model *m = NULL;
    sim_err e;
    int rc;

    sim_err_clear(&e);
    rc = tp_model_load(path, &m, &e);
    fuzz_expect(rc, &e, "tp_model_load");
    if (rc == SIM_OK && have_row) {
        tp_result r;
        (void)tp_predict(m, &row.q, &r);
    }
    tp_model_free(m);
    return 0;
}
