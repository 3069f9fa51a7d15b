/* tests/sweep_util.h: comparing what sweeps stored. sweep_dump() turns
 * every sweep case of a database into one byte string, ordered by case
 * key, with everything a case stores except what may differ between equal
 * runs: run ids, creation times and the MPI rank. Two databases hold the
 * same results exactly when their dumps are equal byte for byte. */
#ifndef TESTS_SWEEP_UTIL_H
#define TESTS_SWEEP_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "io/db.h"
#include "models/resfield.h"
#include "models/respack.h"

typedef struct dumpbuf {
    char *p;
    size_t n, cap;
} dumpbuf;

static inline void dump_add(dumpbuf *b, const void *x, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 4096;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}

static inline void dump_str(dumpbuf *b, const char *s)
{
    dump_add(b, s ? s : "(null)", strlen(s ? s : "(null)") + 1);
}

static int dump_cmp_rows(const void *a, const void *b)
{
    const db_run_row *x = a, *y = b;
    return strcmp(x->case_key ? x->case_key : "",
                  y->case_key ? y->case_key : "");
}

/* Dumps path's sweep cases into *out (malloc'd, *n bytes); returns the
 * number of cases, or -1 on error. ranks (may be NULL) gets a bit mask of
 * the MPI ranks (0..31) that ran cases. */
static inline long sweep_dump(const char *path, char **out, size_t *n,
                              unsigned *ranks)
{
    db *d = NULL;
    db_run_row *rows = NULL;
    size_t nr = 0;
    long cases = 0;
    dumpbuf b = {NULL, 0, 0};
    sim_err e;
    if (ranks)
        *ranks = 0;
    if (db_open_readonly(path, &d, &e) != SIM_OK ||
        db_list_runs(d, &rows, &nr, &e) != SIM_OK) {
        db_close(d);
        return -1;
    }
    qsort(rows, nr, sizeof *rows, dump_cmp_rows);
    for (size_t i = 0; i < nr; i++) {
        db_run *r = NULL;
        double *pk;
        size_t len;
        if (!rows[i].sweep_key)
            continue;
        if (db_load_run(d, rows[i].id, DB_LOAD_STEPS | DB_LOAD_EVENTS, &r,
                        &e) != SIM_OK) {
            cases = -1;
            break;
        }
        if (ranks && rows[i].mpi_rank >= 0 && rows[i].mpi_rank < 32)
            *ranks |= 1u << rows[i].mpi_rank;
        dump_str(&b, rows[i].sweep_key);
        dump_str(&b, rows[i].case_key);
        dump_str(&b, rows[i].overrides_json);
        dump_str(&b, rows[i].status);
        dump_str(&b, rows[i].scenario);
        dump_str(&b, rows[i].config_hash);
        dump_str(&b, rows[i].version);
        dump_str(&b, r->meta.config_text);
        dump_add(&b, &rows[i].seed, sizeof rows[i].seed);
        dump_add(&b, &rows[i].replications, sizeof rows[i].replications);
        dump_add(&b, &rows[i].case_index, sizeof rows[i].case_index);
        dump_add(&b, &r->n_reps, sizeof r->n_reps);
        len = respack_size(r->reps, r->n_reps);
        pk = malloc(len * sizeof *pk);
        respack_pack(r->reps, r->n_reps, pk);
        dump_add(&b, pk, len * sizeof *pk);
        free(pk);
        dump_add(&b, r->job_summary,
                 r->meta.n_jobs * resfield_n_job * sizeof *r->job_summary);
        dump_add(&b, r->site_summary,
                 resfield_n_site * sizeof *r->site_summary);
        db_run_free(r);
        cases++;
    }
    db_run_rows_free(rows, nr);
    db_close(d);
    *out = b.p;
    *n = b.n;
    return cases;
}

#endif
