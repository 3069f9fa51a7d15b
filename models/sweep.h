/* models/sweep.h: the parameter grid of a what-if sweep: the cartesian
 * product of the values given for scenario keys (`sweep --set KEY=...`).
 *
 * An axis is one scenario key (a key path of docs/scenario-reference.md)
 * with its values, given as a list "V1,V2,..." or a range "LO:HI:STEP"
 * (LO, LO+STEP, ... up to HI inclusive, computed as LO + i*STEP, never by
 * accumulation). Numbers are written canonically with %.15g, so 0.5:2:0.5
 * gives exactly 0.5, 1, 1.5, 2 and "30.0" and "30" are the same value;
 * other values (true/false, "text", 12L, bare words) stay as written.
 *
 * Cases are numbered 0 .. n_cases-1 in row-major order: the first axis
 * varies slowest, the last fastest, values in the order given. A case's key
 * is its canonical override list "k1=v1;k2=v2" in axis order, unique in the
 * grid and stable across runs (it is what a resumed sweep matches on).
 *
 * Pure: no I/O, no globals; a grid is read-only after sweep_grid_parse and
 * may be shared by threads. Limits: SWEEP_MAX_VALUES per axis,
 * SWEEP_MAX_CASES in all.
 */
#ifndef MODELS_SWEEP_H
#define MODELS_SWEEP_H

#include <stddef.h>

#include "sim/err.h"

#define SWEEP_MAX_VALUES 10000
#define SWEEP_MAX_CASES 1000000

/* Kinds of a value, for typed output (JSON, charts). */
typedef enum sweep_kind {
    SWEEP_NUMBER = 0, /* a decimal number (%.15g) or a 12L literal */
    SWEEP_BOOL = 1,   /* true / false */
    SWEEP_TEXT = 2    /* anything else, as written ("text", word) */
} sweep_kind;

typedef struct sweep_axis {
    char *key;         /* scenario key path, e.g. "modules.[0].count" */
    size_t n;          /* values, >= 1 */
    char **values;     /* canonical value strings */
    sweep_kind *kinds; /* kind of each value */
    double *numbers;   /* each value as a number (NAN unless SWEEP_NUMBER) */
} sweep_axis;

typedef struct sweep_grid {
    size_t n_axes; /* >= 1 */
    sweep_axis *axes;
    size_t n_cases; /* product of the axes' n, <= SWEEP_MAX_CASES */
} sweep_grid;

/* Parses n specs "KEY=V1,V2,..." or "KEY=LO:HI:STEP" into a grid (OUT,
 * sweep_grid_free). A key may appear once. Errors: SIM_EUSAGE, naming the
 * key and what is wrong: no '=', empty key or value, a malformed range
 * (not three numbers, STEP <= 0, HI < LO, not finite), too many values or
 * cases, a key given twice, a value given twice on one axis. *out is NULL
 * on failure. */
int sweep_grid_parse(const char *const *specs, size_t n, sweep_grid **out,
                     sim_err *err);

/* Frees g. NULL is a no-op. */
void sweep_grid_free(sweep_grid *g);

/* Index into axis a's values of case i (< n_cases). Never fails. */
size_t sweep_case_value(const sweep_grid *g, size_t i, size_t a);

/* The override strings "KEY=VALUE" of case i, one per axis, into
 * ov[0..n_axes-1] (each malloc'd; free with sweep_overrides_free). */
void sweep_case_overrides(const sweep_grid *g, size_t i, char **ov /* OUT */);

/* Frees the n strings of ov (not ov itself). */
void sweep_overrides_free(char **ov, size_t n);

/* Case i's key "k1=v1;k2=v2" (malloc'd, caller frees). */
char *sweep_case_key(const sweep_grid *g, size_t i);

/* The grid as canonical text, one axis a line "KEY=v1,v2,...\n", for the
 * sweep key hash: the same grid gives the same bytes whether given as a
 * list or a range (malloc'd, caller frees). */
char *sweep_grid_text(const sweep_grid *g);

/* Index of the axis for key, or -1. */
int sweep_axis_index(const sweep_grid *g, const char *key);

#endif
