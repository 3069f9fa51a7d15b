/* models/calib_cover.h: how honest the throughput model's 80 % interval is
 * under leave-one-configuration-out (issue 19 item 5), with the interval's
 * spread computed WITHOUT the held-out configuration (nested).
 *
 * A row i of configuration k is covered when its held-out prediction's log
 * error |log(pred_i / measured_i)| is at most z x sd_i, where sd_i is
 * tp_log_sd (models/throughput.h) with the class spread sigma_log[class]
 * and the GPU multipliers gpu_spread replaced by calib_spreads over the
 * LOCO log errors of the other configurations' rows (the estimator
 * `calibrate` writes them with, so the nested figure tests the written
 * rule). Rows of the held-out configuration never set their own interval's
 * width, which is what an honest coverage figure needs; the plain
 * (non-nested) figure, spreads from every row, is reported beside it.
 *
 * What "nested" does not repeat: the other rows' LOCO errors come from fits
 * that did include configuration k (a fully nested scheme refits once per
 * pair of configurations, ~K times a LOCO pass, hours here). Their errors
 * are each out-of-sample for their own row, so the leak is one row among
 * hundreds in a fit's data, not the row's own residual. Pure; O(n^2 log n).
 */
#ifndef MODELS_CALIB_COVER_H
#define MODELS_CALIB_COVER_H

#include <stddef.h>

#include "models/calib.h"

/* z of the central 80 % interval of a normal: Phi^-1(0.9). */
#define CALIB_COVER_Z80 1.2815515655446004

/* The class's normal-equivalent log-error spread, robust to heavy tails:
 *   sigma = Q80(|log(pred_i / rows[i].meas_tps)|) / CALIB_COVER_Z80
 * over the rows i of class cls (rows[i].llm->cls) with a prediction
 * (pred[i] > 0), leaving out every row whose configuration key equals
 * excl_config (NULL leaves none out). Q80 is the 0.8 empirical quantile,
 * GSL gsl_stats_quantile_from_sorted_data: with the k values sorted
 * x_0 <= ... <= x_{k-1} and h = 0.8 (k - 1), Q80 = x_floor(h) +
 * (h - floor(h)) (x_floor(h)+1 - x_floor(h)) (Hyndman and Fan type 7).
 *
 * Why not the rms: Q80 is the half-width a split-conformal 80 % interval
 * on these errors would use, so a normal with this sigma (the draws of
 * `predict` and `run`, tp_log_sd) has the same central 80 % interval as
 * the errors themselves; the rms of heavy-tailed errors is set by the few
 * largest and over-covers. For normal errors both estimate the sd.
 * Returns NAN when no row qualifies; *n_used (may be NULL) the count.
 * Allocates one scratch array of n doubles (freed before return). */
double calib_spread80(const calib_row *rows, size_t n, const double *pred,
                      int cls, const char *excl_config, size_t *n_used);

/* The fewest held-out rows a GPU needs for a multiplier of its own
 * (fewer: 1, the class's spread). Our choice, not a measured constant. */
#define CALIB_SPREAD_MIN_ROWS 10

/* The interval's spreads, so that row i's log sd is sigma[c_i] x
 * spread[g_i] (tp_log_sd before its extrapolation widening): c_i the
 * row's class, g_i its GPU's index in m->gpus (-1, multiplier 1, when m
 * has no such GPU). Over the rows with a prediction whose configuration
 * key is not excl_config (NULL leaves none out):
 *   sigma[c]  = Q80(|l_i| : c_i = c) / z                 (calib_spread80)
 *   spread[g] = min(TP_GPU_SPREAD_MAX,
 *                   max(1, Q80(|l_i| / sigma[c_i] : g_i = g) / z))
 * with Q80 and z as in calib_spread80: a GPU whose rows miss by more than
 * their classes' spreads is widened until about 80 % of them are covered;
 * one that misses by less keeps its classes' width (only widened: see
 * docs/throughput-model.md §4 for why). A GPU with fewer than
 * CALIB_SPREAD_MIN_ROWS such rows keeps 1. sigma[c] is NAN for a class
 * without rows; spread[] has TP_MAX_GPUS entries, those past m->n_gpus 1.
 * Allocates scratch (freed before return). */
void calib_spreads(const calib_row *rows, size_t n, const double *pred,
                   const tp_model *m, const char *excl_config,
                   double sigma[TP_NCLASS], double spread[TP_MAX_GPUS]);

/* Per-row interval test under LOCO. pred[0..n-1] are held-out predictions
 * [tokens/s/GPU] from calib_cv(CALIB_CV_CONFIG) (0 = none). m gives the
 * extrapolation widening (sigma_extrap, the domain). For each row:
 * nested_sd[i] and covered[i] (1 inside, 0 outside, -1 no prediction or
 * no other row of its class to set a width); plain_covered[i] the same
 * test with m's spreads as written (may be NULL). Outputs are caller
 * arrays of n. Allocates only calib_spreads' scratch. */
void calib_cover_loco(const calib_row *rows, size_t n, const double *pred,
                      const tp_model *m, double z, double *nested_sd,
                      signed char *covered, signed char *plain_covered);

/* Coverage tally over a subset: the fraction of rows with covered[i] >= 0
 * and sel[i] != 0 (sel NULL = all) that are covered; *n_out the count
 * tested. Returns NAN when none was tested. */
double calib_cover_fraction(const signed char *covered,
                            const unsigned char *sel, size_t n, size_t *n_out);

#endif
