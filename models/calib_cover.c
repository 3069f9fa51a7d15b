/* models/calib_cover.c: nested leave-one-configuration-out coverage of the
 * throughput model's 80 % interval (contract in calib_cover.h).
 *
 * Shape: the spread estimator (calib_spreads, on the Q80 of calib_spread80)
 * is the one place that turns held-out log errors into the interval's
 * spreads, sigma_log per class times gpu_spread per GPU; `calibrate` calls
 * it over every row, the nested coverage once per configuration without
 * it. A quantile cannot be updated by subtracting a share as a sum of
 * squares could, so each configuration gathers and sorts again: n is a
 * few hundred, so the O(n^2 log n) work costs milliseconds and needs no
 * hash table or order-statistic tree. The extrapolation widening comes
 * from tp_log_sd itself, so the interval tested is exactly the one
 * `predict` prints, only narrower or wider by the spreads. */
#include "models/calib_cover.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

/* Log error of row i's held-out prediction, or NAN when there is none. */
static double log_err(const calib_row *r, double pred)
{
    if (!(pred > 0) || !(r->meas_tps > 0))
        return (double)NAN;
    return log(pred / r->meas_tps);
}

/* Q80 of a[0..k-1] / z (sorts a), NAN when k is 0. */
static double q80_over_z(double *a, size_t k)
{
    if (!k)
        return (double)NAN;
    gsl_sort(a, 1, k);
    return gsl_stats_quantile_from_sorted_data(a, 1, k, 0.8) / CALIB_COVER_Z80;
}

double calib_spread80(const calib_row *rows, size_t n, const double *pred,
                      int cls, const char *excl_config, size_t *n_used)
{
    double *a, q;
    size_t k = 0;
    if (n_used)
        *n_used = 0;
    if (!n)
        return (double)NAN;
    a = sim_xmalloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]);
        if (isnan(l) || (int)rows[i].llm->cls != cls ||
            (excl_config && strcmp(rows[i].config, excl_config) == 0))
            continue;
        a[k++] = fabs(l);
    }
    q = q80_over_z(a, k);
    free(a);
    if (n_used)
        *n_used = k;
    return q;
}

void calib_spreads(const calib_row *rows, size_t n, const double *pred,
                   const tp_model *m, const char *excl_config,
                   double sigma[TP_NCLASS], double spread[TP_MAX_GPUS])
{
    double *l, *a;
    int *gi;
    for (int c = 0; c < TP_NCLASS; c++)
        sigma[c] = (double)NAN;
    for (int g = 0; g < TP_MAX_GPUS; g++)
        spread[g] = 1.0;
    if (!n)
        return;
    l = sim_xmalloc(n * sizeof *l);
    a = sim_xmalloc(n * sizeof *a);
    gi = sim_xmalloc(n * sizeof *gi);
    for (size_t i = 0; i < n; i++) {
        int c = (int)rows[i].llm->cls;
        l[i] = excl_config && strcmp(rows[i].config, excl_config) == 0
                   ? (double)NAN
                   : fabs(log_err(&rows[i], pred[i]));
        if (c < 0 || c >= TP_NCLASS)
            l[i] = (double)NAN;
        gi[i] = rows[i].gpu ? tp_model_gpu(m, rows[i].gpu->name) : -1;
    }
    for (int c = 0; c < TP_NCLASS; c++)
        sigma[c] = calib_spread80(rows, n, pred, c, excl_config, NULL);
    /* A GPU's rows in units of their class's spread. Only widened: a GPU
     * whose rows the model predicts better than their class keeps the
     * class's width, as the independent MLPerf set covered H100 less when
     * its calibration rows narrowed it (docs/throughput-model.md §4). */
    for (int g = 0; g < m->n_gpus && g < TP_MAX_GPUS; g++) {
        size_t k = 0;
        double s;
        /* l[i] is NAN for a row of no class: the index is checked. */
        for (size_t i = 0; i < n; i++)
            if (!isnan(l[i]) && gi[i] == g && sigma[(int)rows[i].llm->cls] > 0)
                a[k++] = l[i] / sigma[(int)rows[i].llm->cls];
        s = k >= CALIB_SPREAD_MIN_ROWS ? q80_over_z(a, k) : 1.0;
        spread[g] = !(s > 1.0)              ? 1.0
                    : s > TP_GPU_SPREAD_MAX ? TP_GPU_SPREAD_MAX
                                            : s;
    }
    free(gi);
    free(a);
    free(l);
}

void calib_cover_loco(const calib_row *rows, size_t n, const double *pred,
                      const tp_model *m, double z, double *nested_sd,
                      signed char *covered, signed char *plain_covered)
{
    tp_model mc = *m;
    const char *have = NULL; /* configuration whose spreads mc holds */
    double sig[TP_NCLASS];

    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]), sd, sd_plain;
        int c = (int)rows[i].llm->cls;
        tp_result r;
        nested_sd[i] = (double)NAN;
        covered[i] = -1;
        if (plain_covered)
            plain_covered[i] = -1;
        if (isnan(l) || c < 0 || c >= TP_NCLASS)
            continue;
        /* The extrapolation flags of the row's query under m: the domain
         * is the full fit's, as in calib_cv's refits. */
        if (tp_predict(m, &rows[i].q, &r) != SIM_OK)
            r.extrap_why = 0;
        if (plain_covered) {
            sd_plain = tp_log_sd(m, rows[i].llm, rows[i].gpu, &r);
            plain_covered[i] = fabs(l) <= z * sd_plain;
        }
        /* The spreads without the held-out configuration's rows (this one
         * included); a class with no row left has no width to test
         * against. A configuration's rows are usually adjacent: reuse. */
        if (!have || strcmp(have, rows[i].config) != 0) {
            calib_spreads(rows, n, pred, m, rows[i].config, sig, mc.gpu_spread);
            have = rows[i].config;
        }
        if (isnan(sig[c]))
            continue;
        mc.sigma_log[c] = sig[c];
        sd = tp_log_sd(&mc, rows[i].llm, rows[i].gpu, &r);
        nested_sd[i] = sd;
        covered[i] = fabs(l) <= z * sd;
    }
}

double calib_cover_fraction(const signed char *covered,
                            const unsigned char *sel, size_t n, size_t *n_out)
{
    size_t t = 0, in = 0;
    for (size_t i = 0; i < n; i++) {
        if (covered[i] < 0 || (sel && !sel[i]))
            continue;
        t++;
        in += covered[i] == 1;
    }
    if (n_out)
        *n_out = t;
    return t ? (double)in / (double)t : (double)NAN;
}
