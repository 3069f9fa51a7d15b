/* app/tp_common.c: see tp_common.h. What calibrate, predict, exemplar and
 * bench predict share about throughput rows: the catalog seen as a
 * calib_lookup (so io/calib_rows.c needs no catalog internals) and the
 * read-and-parse loop. It must not print or include cli/ (the application
 * layer sits below the commands): a bad row goes to the caller's report
 * function, which the commands set to cli_report. */
#include "app/tp_common.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/mem.h"

static const gpu_spec *lk_gpu(void *ctx, const char *name)
{
    return catalog_gpu(ctx, name);
}

static const llm_arch *lk_llm(void *ctx, const char *name)
{
    return catalog_llm(ctx, name);
}

static void lk_names(void *ctx, const char *kind, char *buf, size_t n)
{
    catalog_names(ctx, kind, buf, n);
}

calib_lookup tpc_lookup(const catalog *c)
{
    calib_lookup lk = {lk_gpu, lk_llm, lk_names, (void *)(uintptr_t)c};
    return lk;
}

int tpc_read_rows(const char *path, const catalog *c, csvt **table,
                  calib_row **rows, unsigned char **ok, size_t *n,
                  size_t *n_bad, int (*report)(const sim_err *e), sim_err *err)
{
    calib_lookup lk = tpc_lookup(c);
    csvt *t;
    int rc;
    *rows = NULL;
    *ok = NULL;
    *n = *n_bad = 0;
    *table = NULL;
    if ((rc = csvt_read(path, &t, err)) != SIM_OK)
        return rc;
    if ((rc = calib_rows_check(t, err)) != SIM_OK) {
        csvt_free(t);
        return rc;
    }
    *rows = sim_xcalloc(t->n_rows ? t->n_rows : 1, sizeof **rows);
    *ok = sim_xcalloc(t->n_rows ? t->n_rows : 1, 1);
    for (size_t i = 0; i < t->n_rows; i++) {
        sim_err e;
        sim_err_clear(&e);
        if (calib_row_parse(t, i, &lk, &(*rows)[i], &e) == SIM_OK) {
            (*ok)[i] = 1;
            (*rows)[i].q.release =
                (*rows)[i].release[0] ? (*rows)[i].release : NULL;
        } else {
            if (report)
                report(&e);
            (*n_bad)++;
        }
    }
    *n = t->n_rows;
    *table = t;
    return SIM_OK;
}
