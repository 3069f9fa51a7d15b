/* models/exemplar.h: a user's measured training throughput checked against
 * the Exemplar bar (pass when measured >= 95% of reference), row by row,
 * with a diagnosis of what a shortfall fits best: compute or communication.
 *
 * Reference of a row: the published row of the reference table with the
 * same configuration (model, GPU, precision recipe, GPU count, gbs, mbs,
 * sequence length, tp, pp, cp, ep, etp, vp, layers run, FSDP; the release,
 * source, status, notes and measured values do not count), preferring the row's
 * own release, else the newest; without one, the calibrated model's prediction
 * (models/throughput.h) with its 80% interval. Verdict against a published
 * row: pass when measured >= 0.95 x reference, else fail; against the model:
 * pass when measured >= 0.95 x the interval's high end, fail below 0.95 x
 * its low end, inconclusive in between.
 *
 * Diagnosis: the model's step-time breakdown of the row, scaled to the
 * reference, is slowed by a compute factor a (every compute time x a) or a
 * communication factor b (every collective x b before overlap,
 * tp_query.compute_slowdown / comm_slowdown) until it reproduces the
 * measured step time. One row alone cannot tell the two apart (either
 * factor fits it exactly), so rows on the same GPU type are fitted
 * together with one a, then with one b: a cluster with a slow
 * communication path slows rows by their communication share (an MoE model
 * more than a dense one), a slow GPU or stack slows every row alike. The
 * group's better fit is the cause when it is clearly better: its sum of
 * squared log residuals is lower by at least EXEMPLAR_CLEAR_CHI2 noise
 * variances (EXEMPLAR_NOISE_SD^2), a likelihood-ratio test; else each
 * failing row is attributed to the factor that needs the smaller change
 * (|log a| vs |log b|), flagged as a one-row (weak) call.
 *
 * Pure: no I/O; never allocates except in exemplar_diagnose's scratch.
 * Cost: a reference search is O(reference rows); a row's factors cost ~100
 * tp_predict calls, a group fit ~100 x its rows.
 */
#ifndef MODELS_EXEMPLAR_H
#define MODELS_EXEMPLAR_H

#include <stddef.h>

#include "models/calib.h"
#include "models/throughput.h"
#include "sim/err.h"

#define EXEMPLAR_BAR 0.95 /* the Exemplar criterion: 95% of reference */
#define EXEMPLAR_NOISE_SD                                                      \
    0.03 /* assumption: sd of a row's log throughput                           \
            between runs and releases (the data's                              \
            median release-to-release spread is 3%) */
#define EXEMPLAR_CLEAR_CHI2                                                    \
    4.0 /* a group fit is clearly better when its                              \
           SSR is lower by >= 4 noise variances                                \
           (likelihood ratio >= e^2 ~ 7.4) */

enum { EXEMPLAR_REF_PUBLISHED = 1, EXEMPLAR_REF_MODEL = 2 };
enum { EXEMPLAR_PASS = 1, EXEMPLAR_FAIL = 2, EXEMPLAR_INCONCLUSIVE = 3 };
enum {
    EXEMPLAR_CAUSE_NONE = 0,
    EXEMPLAR_CAUSE_COMPUTE = 1,
    EXEMPLAR_CAUSE_COMM = 2
};
enum {
    EXEMPLAR_BASIS_NONE = 0,
    EXEMPLAR_BASIS_GROUP = 1,
    EXEMPLAR_BASIS_ROW = 2
};

/* One measured row compared with its reference. */
typedef struct exemplar_row {
    int ref_kind;       /* EXEMPLAR_REF_*, 0 when the row failed */
    long ref_index;     /* published: index into the reference rows */
    double meas_tps;    /* measured tokens/s/GPU */
    double ref_tps;     /* reference tokens/s/GPU */
    double ref_low_tps; /* model reference: 80% interval; published: = ref */
    double ref_high_tps;
    double ratio;          /* meas_tps / ref_tps */
    int verdict;           /* EXEMPLAR_PASS / FAIL / INCONCLUSIVE */
    double step_model_s;   /* model step time of the configuration [s] */
    double step_target_s;  /* model step x ref_tps / meas_tps [s]: the
                              measured shortfall applied to the model */
    double comm_share;     /* exposed communication / model step time */
    double compute_factor; /* a reproducing the measured step; NAN if none */
    double comm_factor;    /* b reproducing it; NAN if none reaches it */
    int cause;             /* EXEMPLAR_CAUSE_*, set for failing rows */
    int basis;             /* EXEMPLAR_BASIS_* of the cause */
    int release_fallback;  /* 1: row's release not calibrated, newest used */
    int has_model;         /* 1: the model ran the configuration (breakdown,
                              factors); a published reference without it
                              still gives ratio and verdict */
    tp_query q;            /* the query used (layout fixed to the model's) */
    char why[200];         /* reason when exemplar_compare fails */
} exemplar_row;

/* One GPU type's rows fitted together. */
typedef struct exemplar_group {
    char gpu[32];    /* GPU name */
    size_t n;        /* rows fitted */
    size_t n_fail;   /* failing rows among them */
    double a, rms_a; /* common compute factor, rms log residual */
    double b, rms_b; /* common communication factor, rms log residual */
    int cause;       /* EXEMPLAR_CAUSE_*; NONE if not clearly better */
} exemplar_group;

/* Index of the published reference of row among refs[0..n_refs-1] (rows
 * with a measured value and the same configuration), preferring row's
 * release, else the newest release (the greatest YY.MM[.P] in the id); -1
 * if none. Pure. */
long exemplar_match(const calib_row *row, const calib_row *refs, size_t n_refs);

/* 1 if release id a is newer than b (compares the last YY.MM[.P] in each
 * id: "26.04.01" > "26.04" > "dgxc v25.05-v25.05.05"); 0 otherwise. */
int exemplar_release_newer(const char *a, const char *b);

/* Compares measured row with its reference into *out (OUT): reference,
 * ratio, verdict, model breakdown and the row's own factors. refs may be
 * NULL (model reference only). When the model cannot run a configuration
 * that has a published reference, the ratio and verdict are still given,
 * has_model is 0 and out->why says why there is no diagnosis.
 * Errors: SIM_EINVAL (no measured value, or neither a published reference
 * nor a model prediction; reason in out->why).
 * Never allocates. */
int exemplar_compare(const tp_model *m, const calib_row *row,
                     const calib_row *refs, size_t n_refs, exemplar_row *out);

/* Fits each GPU type's compared rows (ok[i] != 0) together and sets cause
 * and basis of every failing row. groups (OUT, caller frees, may be NULL)
 * receives one entry per GPU type with a failing row, *n_groups of them.
 * Allocates only scratch and *groups. */
void exemplar_diagnose(const tp_model *m, exemplar_row *rows,
                       const unsigned char *ok, size_t n,
                       exemplar_group **groups, size_t *n_groups);

/* Names: "pass", "fail", "inconclusive"; "compute", "communication", "";
 * "published", "model"; "group", "row", "". */
const char *exemplar_verdict_name(int verdict);
const char *exemplar_cause_name(int cause);
const char *exemplar_ref_name(int kind);
const char *exemplar_basis_name(int basis);

#endif
