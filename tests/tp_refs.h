/* tests/tp_refs.h: the published reference rows with the catalog and the
 * shipped calibration, loaded once per test group. The exemplar, layout and
 * site-calibration tests all start from this trio, so the loading and the
 * freeing live here once; each test keeps its own fixture struct and passes
 * the fields to fill. */
#ifndef TESTS_TP_REFS_H
#define TESTS_TP_REFS_H

#include <stdlib.h>

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"

#define TP_REFS_CSV "data/calibration/megatron_throughput.csv"

/* Loads the catalog, models/calibration.cfg and the rows of csv (bad rows
 * are left out silently: the tests count on the good ones). Returns 0, or
 * -1 when any of the three cannot be read (cmocka's setup convention). */
static inline int tp_refs_load(const char *csv, catalog **cat, tp_model **m,
                               csvt **t, calib_row **rows, unsigned char **ok,
                               size_t *n)
{
    size_t n_bad;
    sim_err e;
    return catalog_load(NULL, cat, &e) != SIM_OK ||
                   tp_model_load("models/calibration.cfg", m, &e) != SIM_OK ||
                   tpc_read_rows(csv, *cat, t, rows, ok, n, &n_bad, NULL, &e) !=
                       SIM_OK
               ? -1
               : 0;
}

/* Frees what tp_refs_load filled (any of them may be NULL). */
static inline void tp_refs_free(catalog *cat, tp_model *m, csvt *t,
                                calib_row *rows, unsigned char *ok)
{
    free(rows);
    free(ok);
    csvt_free(t);
    tp_model_free(m);
    catalog_free(cat);
}

#endif
