/* models/resfield.h: the numeric fields of res_job, res_site and res_step
 * (models/results.h) as tables of (name, unit, offset, type), so that the
 * results store, the exports and the report name every column once.
 *
 * Names are the struct member names, with each energy_by_source_j[k] (and
 * source_w[k]) spelled out as energy_<source>_j (<source>_w) in res_source
 * order. Units are SI strings ("s", "J", "W", "1" for ratios, "USD", "kg",
 * "count", "h", "degC"). Tables are constant and in struct order; their
 * order is the column order of the database tables and of the exports.
 */
#ifndef MODELS_RESFIELD_H
#define MODELS_RESFIELD_H

#include <stddef.h>

#include "models/results.h"

typedef enum resfield_type {
    RESFIELD_DOUBLE = 0, /* double; NAN means "not applicable" */
    RESFIELD_INT = 1,    /* int */
    RESFIELD_INT32 = 2   /* int32_t */
} resfield_type;

typedef struct resfield {
    const char *name; /* column name, unique within its table */
    const char *unit; /* SI unit, "1" for ratios, "count" for counts */
    size_t offset;    /* byte offset in the struct */
    resfield_type type;
    const char *doc; /* one-line meaning */
} resfield;

extern const resfield resfield_job[]; /* res_job: every field */
extern const size_t resfield_n_job;
extern const resfield resfield_site[]; /* res_site: every field */
extern const size_t resfield_n_site;
extern const resfield resfield_step[]; /* res_step: every field, t_s first */
extern const size_t resfield_n_step;

/* The value of field f in the struct at rec, as a double (integers convert
 * exactly). Never fails. */
double resfield_get(const void *rec, const resfield *f);

/* Stores v into field f of the struct at rec (integers: v is rounded to the
 * nearest integer; NAN stores 0). Never fails. */
void resfield_set(void *rec, const resfield *f, double v);

/* Index of the field named name in table t of n fields, or -1. */
int resfield_find(const resfield *t, size_t n, const char *name);

#endif
