/* models/site_calib.h: a site calibration (issue 26): the compute and
 * communication speed of one cluster relative to the published reference,
 * learnt from its own Exemplar rows as a Bayesian update of the throughput
 * model's predictive distribution (docs/throughput-model.md §9).
 *
 * Parameters, per group of rows (GPU type x model class x precision recipe,
 * plus one group per GPU type over all its rows): theta = (log c, log m),
 * c the compute speed (every compute time is divided by c, i.e.
 * tp_query.compute_slowdown = 1/c) and m the communication speed (every
 * collective's time is divided by m). 0.90 = 10% slower than the reference.
 * Prior: theta ~ N(0, s0^2 I), s0 the published model's spread for the
 * rows' queries (tp_log_sd, the mean over the group's rows). Likelihood of
 * row i: log T_target,i = log T_i(theta) + e_i, e_i ~ N(0, s_i^2) with s_i
 * = tp_log_sd of row i (the same spread as noise), T_i the model's step time
 * of the row's configuration with those speeds and T_target,i the model step
 * scaled by reference / measured throughput (models/exemplar.h). The
 * posterior is found by Gauss-Newton on the log posterior (linearised least
 * squares with the prior as pseudo-observations) and summarised by its mean
 * and the inverse Hessian there (Laplace): exact when the step time is
 * log-linear in theta, which it is up to overlap kinks.
 *
 * Identifiability: the rows tell compute from communication apart when the
 * data's information J'WJ is at least half the prior's precision 1/s0^2
 * in every direction (its smallest eigenvalue; the posterior variance
 * there is then at most 2/3 of the prior's); otherwise the entry says
 * "separable = 0" and its marginal sds stay near the prior's (a row
 * narrows only the direction it measures, the joint posterior keeps the
 * rest).
 *
 * Use: site_calib_find picks the entry for a (GPU, class, recipe): the
 * exact group if the rows covered it, else the GPU's all-row group (then
 * only the mean applies; the spread stays the model's, since no row of
 * that class measured it). site_calib_apply sets the query's slowdowns;
 * site_calib_log_sd gives the spread that replaces tp_log_sd.
 *
 * Pure: no I/O (io/site_calib_file.h reads and writes it); fitting allocates
 * only scratch.
 */
#ifndef MODELS_SITE_CALIB_H
#define MODELS_SITE_CALIB_H

#include <stddef.h>

#include "models/exemplar.h"
#include "models/throughput.h"

#define SITE_CALIB_FILE_VERSION 1
#define SITE_CALIB_MAX 64        /* entries in one file */
#define SITE_CALIB_MAX_ROWS 4096 /* source lines recorded */
#define SITE_CALIB_Z80 1.2816    /* 80% interval half-width in sds */

/* One group's posterior. */
typedef struct site_calib_entry {
    char gpu[32];     /* GPU name */
    int cls;          /* llm_class, -1 = every class of the GPU */
    int recipe;       /* prec_recipe, -1 = every recipe */
    int n_rows;       /* rows fitted */
    double prior_sd;  /* s0: prior sd of each log speed */
    double mean[2];   /* posterior mean of (log c, log m) */
    double cov[2][2]; /* posterior covariance */
    double log_sd;    /* posterior sd of the group's log throughput: sqrt(g'
                         cov g), g the rows' mean sensitivity of log
                         throughput to theta; replaces tp_log_sd */
    double log_tput;  /* posterior mean of the group's log throughput
                         change: -g' mean (what the rows measured) */
    double rms_resid; /* rms log residual of the rows at the best fit
                         without the prior: what neither factor explains */
    int separable;    /* 1: rows tell compute from communication apart */
    int n_lines;      /* source lines of the rows (first lines[] used) */
    int lines[64];    /* their line numbers in the source (first 64) */
} site_calib_entry;

typedef struct site_calib {
    char source_file[256]; /* measured CSV, as given (file name only) */
    char source_sha256[65];
    char reference_file[256]; /* reference table's file name */
    int n;
    site_calib_entry e[SITE_CALIB_MAX];
} site_calib;

/* Fits the compared rows (rows[i] with ok[i] && rows[i].has_model) into *out
 * (entries only; the caller fills the source fields). Each group needs >= 1
 * row. Groups with more entries than SITE_CALIB_MAX are dropped (never
 * happens with 16 GPUs x 3 classes x 4 recipes = 48 + 16). line[i] is row
 * i's line in its file. Returns SIM_OK, or SIM_EINVAL when no row could be
 * fitted (why in err). */
int site_calib_fit(const tp_model *m, const exemplar_row *rows,
                   const unsigned char *ok, const int *line, size_t n,
                   site_calib *out, sim_err *err);

/* The entry for (gpu, cls, recipe): the exact group, else the GPU's
 * all-row group (*exact = 0), else NULL. c may be NULL. */
const site_calib_entry *site_calib_find(const site_calib *c, const char *gpu,
                                        int cls, int recipe, int *exact);

/* Applies the entry of q's (GPU, class, recipe) to q: compute_slowdown and
 * comm_slowdown multiplied by 1/c and 1/m. Returns the entry (NULL: none
 * applies, q unchanged). */
const site_calib_entry *site_calib_apply(const site_calib *c, tp_query *q);

/* The spread of a prediction under the site calibration: the entry's
 * posterior log_sd when the group was measured, else model_sd (the
 * published spread). */
double site_calib_log_sd(const site_calib *c, const tp_query *q,
                         double model_sd);

/* Marginal posterior of a speed: k = 0 compute, 1 communication; the
 * median exp(mean) and its 80% interval. */
void site_calib_speed(const site_calib_entry *e, int k, double *median,
                      double *lo, double *hi);

/* Names of a class and recipe index ("moe", "MXFP8"; "*" for -1). */
const char *site_calib_cls_name(int cls);
const char *site_calib_recipe_name(int recipe);

#endif
