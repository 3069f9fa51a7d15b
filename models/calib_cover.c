/* models/calib_cover.c: nested leave-one-configuration-out coverage of the
 * throughput model's 80 % interval (contract in calib_cover.h).
 *
 * Shape: one pass gathers, per class, the sum of squared LOCO log errors
 * and their count; a row's nested sigma then subtracts its own
 * configuration's share, which is gathered by a scan over the rows (the
 * configuration key is a string, and n is a few hundred, so the O(n^2)
 * scan costs under a millisecond and needs no hash table). The
 * extrapolation widening comes from tp_log_sd itself, so the interval
 * tested is exactly the one `predict` prints, only narrower or wider by
 * the class spread. */
#include "models/calib_cover.h"

#include <math.h>
#include <string.h>

/* Log error of row i's held-out prediction, or NAN when there is none. */
static double log_err(const calib_row *r, double pred)
{
    if (!(pred > 0) || !(r->meas_tps > 0))
        return (double)NAN;
    return log(pred / r->meas_tps);
}

void calib_cover_loco(const calib_row *rows, size_t n, const double *pred,
                      const tp_model *m, double z, double *nested_sd,
                      signed char *covered, signed char *plain_covered)
{
    double ss[TP_NCLASS] = {0};
    size_t k[TP_NCLASS] = {0};
    tp_model mc = *m;

    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]);
        int c = (int)rows[i].llm->cls;
        if (isnan(l) || c < 0 || c >= TP_NCLASS)
            continue;
        ss[c] += l * l;
        k[c]++;
    }
    for (size_t i = 0; i < n; i++) {
        double l = log_err(&rows[i], pred[i]), own_ss = 0, sd, sd_plain;
        int c = (int)rows[i].llm->cls;
        size_t own_k = 0;
        tp_result r;
        nested_sd[i] = (double)NAN;
        covered[i] = -1;
        if (plain_covered)
            plain_covered[i] = -1;
        if (isnan(l) || c < 0 || c >= TP_NCLASS)
            continue;
        /* The held-out configuration's own rows (this one included). */
        for (size_t j = 0; j < n; j++) {
            double lj;
            if ((int)rows[j].llm->cls != c ||
                strcmp(rows[j].config, rows[i].config) != 0)
                continue;
            lj = log_err(&rows[j], pred[j]);
            if (!isnan(lj)) {
                own_ss += lj * lj;
                own_k++;
            }
        }
        /* The extrapolation flags of the row's query under m: the domain
         * is the full fit's, as in calib_cv's refits. */
        if (tp_predict(m, &rows[i].q, &r) != SIM_OK)
            r.extrap_why = 0;
        if (plain_covered) {
            sd_plain = tp_log_sd(m, rows[i].llm, &r);
            plain_covered[i] = fabs(l) <= z * sd_plain;
        }
        if (k[c] <= own_k)
            continue;
        mc.sigma_log[c] =
            sqrt(fmax(ss[c] - own_ss, 0) / (double)(k[c] - own_k));
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
