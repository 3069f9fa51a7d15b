/* models/calib_cover.c: nested leave-one-configuration-out coverage of the
 * throughput model's 80 % interval (contract in calib_cover.h).
 *
 * Shape: the spread estimator (calib_spread80) is the one place that turns
 * a class's held-out log errors into sigma_log; `calibrate` calls it over
 * every row, the nested coverage once per row without the row's
 * configuration. A quantile cannot be updated by subtracting a share as a
 * sum of squares could, so each row gathers and sorts its class again:
 * n is a few hundred, so the O(n^2 log n) work costs milliseconds and
 * needs no hash table or order-statistic tree. The
 * extrapolation widening comes from tp_log_sd itself, so the interval
 * tested is exactly the one `predict` prints, only narrower or wider by
 * the class spread. */
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

double calib_spread80(const calib_row *rows, size_t n, const double *pred,
                      int cls, const char *excl_config, size_t *n_used)
{
    double *a, q = (double)NAN;
    size_t k = 0;
    if (n_used)
        *n_used = 0;
    if (!n)
        return q;
    a = sim_xmalloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]);
        if (isnan(l) || (int)rows[i].llm->cls != cls ||
            (excl_config && strcmp(rows[i].config, excl_config) == 0))
            continue;
        a[k++] = fabs(l);
    }
    if (k) {
        gsl_sort(a, 1, k);
        q = gsl_stats_quantile_from_sorted_data(a, 1, k, 0.8) / CALIB_COVER_Z80;
    }
    free(a);
    if (n_used)
        *n_used = k;
    return q;
}

void calib_cover_loco(const calib_row *rows, size_t n, const double *pred,
                      const tp_model *m, double z, double *nested_sd,
                      signed char *covered, signed char *plain_covered)
{
    tp_model mc = *m;

    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]), sd, sd_plain, s;
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
            sd_plain = tp_log_sd(m, rows[i].llm, &r);
            plain_covered[i] = fabs(l) <= z * sd_plain;
        }
        /* The class spread without the held-out configuration's rows (this
         * one included); none left means no width to test against. */
        s = calib_spread80(rows, n, pred, c, rows[i].config, NULL);
        if (isnan(s))
            continue;
        mc.sigma_log[c] = s;
        sd = tp_log_sd(&mc, rows[i].llm, &r);
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
