/* models/calib.h: calibration of the throughput model (models/throughput.h)
 * on measured rows with GSL nonlinear least squares, its cross-validation,
 * and the per-(GPU, precision, model) median-efficiency lookup baseline.
 *
 * The fit minimizes sum_i log(pred_i / measured_i)^2 over the free
 * parameters in an unconstrained form (logit for fractions, log for positive
 * quantities), plus ridge terms that pull each release x class and each GPU
 * factor toward 0 with sd CALIB_PRIOR_SD (an assumption: software releases
 * and GPUs differ by tens of percent, not by factors). Trust-region
 * Levenberg-Marquardt with geodesic acceleration, two starts (defaults and a
 * data-derived one); the result is checked for finiteness, SSR and convergence,
 * not only for the driver's status. Cross-validation refits with a group left
 * out: a configuration (every column except release, source, status, notes and
 * measured values) or a model. Costs: one fit ~ iterations x (params + 1)
 * x rows predictions.
 */
#ifndef MODELS_CALIB_H
#define MODELS_CALIB_H

#include <stddef.h>

#include "models/throughput.h"
#include "sim/err.h"

#define CALIB_PRIOR_SD 0.3

/* Relative disagreement between a row's published throughput and
 * gbs x seq / step time above which the step time is taken (rounding in
 * the tables stays below 1 %). */
#define CALIB_STEP_MISMATCH 0.03

/* One measured (or to-be-predicted) row, resolved against the catalog. */
typedef struct calib_row {
    int line; /* line in its CSV file */
    const gpu_spec *gpu;
    const llm_arch *llm;
    precision prec;
    char release[40];   /* tp_release_id of the row's release, "" none */
    tp_query q;         /* the query (q.release points into release) */
    int seq_assumed;    /* 1: seq_len blank, default_seq_len used */
    unsigned blank;     /* bit TP_FIELD_k: that layout cell was blank (the
                           query holds 1 there, as published rows mean;
                           `predict --csv` chooses it instead) */
    double meas_tps;    /* measured tokens/s/GPU; 0 = none */
    char config[512];   /* configuration key (LOCO groups) */
    int meas_from_step; /* 1: the row's throughput column contradicts its
                           own step time by more than CALIB_STEP_MISMATCH,
                           so meas_tps comes from the step time (the
                           quantity the sources measure; io/calib_rows.h) */
    int anomalous;      /* 1: the source itself marks the measurement as a
                           known performance regression (notes say
                           "regression" and "known issue"); calibrate leaves
                           it out (docs/throughput-model.md §4, the rule) */
} calib_row;

/* Measured model FLOP/s per GPU over the GPU's dense peak for the row's
 * precision format: meas_tps x flops_per_token (training, the row's
 * sequence length and layers run) / gpu->peak_flops[prec.fmt]. Above 1 the
 * measurement is physically impossible (no GPU beats its dense peak; a
 * cluster total typed into the per-GPU column gives about num_gpus x the
 * true value). The 521 published rows of megatron_throughput.csv span
 * 0.044 .. 0.561. Returns 0 when the row has no measurement, the GPU no
 * peak for the format or the model no FLOPs. Pure. */
double calib_row_peak_fraction(const calib_row *r);

/* A residual function for calib_nlls: fills r[0..n-1] at x[0..p-1].
 * Returns 0, or nonzero when x is outside the domain. */
typedef int (*calib_resid_fn)(const double *x, void *ctx, double *r);

typedef struct calib_nlls_info {
    double ssr0; /* sum of squared residuals at the start */
    double ssr;  /* at the solution */
    int iters;   /* iterations */
    int info;    /* GSL stopping reason: 1 small step, 2 small gradient */
    int status;  /* GSL driver status */
} calib_nlls_info;

/* Minimizes |f(x)|^2 from the start in x (IN start, OUT solution) with GSL's
 * trust-region LM + geodesic acceleration (finite-difference Jacobian).
 * covar (p*p, OUT, may be NULL) receives the covariance (J^T J)^-1 scaled
 * by SSR/(n-p). Errors: SIM_ENUMERIC when the driver fails, or the
 * solution or SSR is not finite, or SSR rose above its start. */
int calib_nlls(calib_resid_fn f, void *ctx, size_t n, size_t p, double *x,
               int max_iter, double *covar, calib_nlls_info *info,
               sim_err *err);

/* Fit result summary. */
typedef struct calib_fit_info {
    size_t n_rows;     /* rows used */
    size_t n_free;     /* free parameters */
    double ssr;        /* log-residual SSR, ridge terms included */
    double rms_log;    /* rms log residual over rows */
    int iters, starts; /* iterations of the best start, starts tried */
    int n_rel_fitted;  /* release x class factors fitted (and kept) */
    /* Release x class cells measured on one model only: no factor (0),
     * since it would be that model's own. */
    int n_rel_one_model;
    struct {
        int rel, cls;          /* m->releases index, llm_class */
        const llm_arch *model; /* the one model measured */
    } rel_one_model[TP_MAX_RELEASES * TP_NCLASS];
    /* Cold fits: every cell of two or more models, tested by leaving each
     * model out (release-then-class order): n of the held-out models' rows
     * of the cell compared, their rms log error with the cell's factor
     * fitted on the other models and without it, and whether it was kept
     * (rms_with < rms_without over n >= 1 rows). */
    int n_rel_tested;
    struct {
        int rel, cls, n, kept;
        double rms_with, rms_without;
    } rel_tested[TP_MAX_RELEASES * TP_NCLASS];
    int n_sel_failed; /* of those leave-one-model-out refits, how many
                         failed (their rows gave no evidence) */
} calib_fit_info;

/* Fits m on rows with use[i] != 0 (use NULL = all rows with meas_tps > 0).
 * m is IN (start; its release and GPU lists are rebuilt from the rows) and
 * OUT (fitted values and standard errors). warm != 0 starts only from m
 * (for cross-validation refits). A release x class factor is fitted only
 * where two or more models of the class have rows in the release: a cold
 * fit counts the rows it uses, a warm one every row it is given (so a
 * fold keeps the full fit's columns); the other cells are 0 with sd 0 and
 * listed in info->rel_one_model (release-then-class order; model points
 * into the rows' catalog). A cold fit then keeps a factor only where
 * cross-validation supports it as the release's: each model left out in
 * turn (warm refits), its rows of the cell must be predicted better (sum
 * of squared log errors) with the factor fitted on the other models than
 * without it; the cells that fail are held at 0 with sd 0, the fit is
 * redone, and info->rel_tested says how each cell did
 * (calib_select_releases). A warm refit leaves out the cells its start
 * has no factor for (tp_model_release_fitted), so the folds keep the full
 * fit's columns, the dropped cells too. Cost of a cold fit: two fits plus
 * one warm refit per model. On error m is unspecified. Errors:
 * SIM_ENUMERIC, SIM_EINVAL (no rows). */
int calib_fit(const calib_row *rows, size_t n, const unsigned char *use,
              tp_model *m, int warm, calib_fit_info *info, sim_err *err);

/* The selection step of a cold calib_fit (models/calib_select.c): for each
 * release x class cell m has a factor for, leaves each model of the rows
 * (use as in calib_fit) out in turn with a warm refit of m and compares
 * the squared log errors of its rows of the cell predicted with the cell's
 * factor and with 0. Fills info->rel_tested and info->n_sel_failed, sets
 * off[k * TP_NCLASS + cls] for every cell not kept (the caller zeroes off)
 * and returns how many. m is not changed. */
int calib_select_releases(const calib_row *rows, size_t n,
                          const unsigned char *use, const tp_model *m,
                          calib_fit_info *info, unsigned char *off);

/* Leave-one-model-out without the optimism of calib_cv's (whose folds
 * reuse the full fit's selection of release x class cells): each model's
 * rows (meas_tps > 0) are left out in turn and the whole cold calib_fit,
 * selection included, is redone from start on the others; the held-out
 * rows are predicted with it (a release only they ran has no factor
 * there) into pred[0..n-1] [tokens/s/GPU], 0 where not predicted.
 * *n_failed counts the folds whose fit failed (their rows 0). Cost: one
 * cold fit with its selection per model, about 10 s each on the bundled
 * data. Returns SIM_OK, or SIM_ENUMERIC when a fold failed. */
int calib_cv_nested_model(const calib_row *rows, size_t n,
                          const tp_model *start, double *pred, int *n_failed);

/* Cross-validation modes. */
enum { CALIB_CV_CONFIG = 0, CALIB_CV_MODEL = 1 };

/* Leaves each group out in turn (configurations or models), refits from m
 * (warm) and writes the held-out predictions into pred[0..n-1] [tokens/s/GPU]
 * (0 where a row could not be predicted). The refits keep m's columns: the
 * cells calib_fit's selection dropped stay dropped, and the selection is
 * not redone inside a fold, so leave-one-model-out, whose folds the
 * selection read, is somewhat optimistic (docs/throughput-model.md §4,
 * twelfth follow-up, measures by how much). Errors: as calib_fit. */
int calib_cv(const calib_row *rows, size_t n, const tp_model *m, int mode,
             double *pred, sim_err *err);

/* The lookup baseline under the same splits: the median measured fraction of
 * dense peak of the training rows with the same (GPU, precision, model),
 * else (GPU, precision), else GPU, times the held-out row's peak / FLOPs.
 * mode -1 = in-sample. Writes pred[0..n-1]. */
void calib_baseline(const calib_row *rows, size_t n, int mode, double *pred);

/* Fills m's published-row records (tp_model_rows) from rows[0..n-1] and
 * their held-out predictions pred (leave-one-configuration-out; 0 = not
 * predicted, counted as -100 %, as the accuracy table counts it): one
 * record per model over every GPU and one per (model, GPU), sorted by
 * model name, then "" before the GPUs, in strcmp order, so the file does
 * not depend on the rows' order (to its two decimals: the sums do). Call
 * it after calib_fit, whose restarts clear the records. Returns the number
 * of records beyond TP_MAX_MODEL_ROWS that were dropped (0 for the
 * bundled data's 87; every model's every-GPU record is made before any
 * per-GPU one, so per-GPU records go first). Never fails. */
int calib_model_rows(const calib_row *rows, size_t n, const double *pred,
                     tp_model *m);

/* In-sample predictions of m for every row into pred (0 on failure). */
void calib_predict_all(const calib_row *rows, size_t n, const tp_model *m,
                       double *pred);

#endif
