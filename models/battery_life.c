/* models/battery_life.c: the SOC-history driver of battery wear
 * (models/battery_life.h). It owns only the walk over the history and the
 * per-year bookkeeping; the fade formulas stay in models/battery.c
 * (battery_wear_advance) so the site model and this driver can never
 * disagree. It never reads files: the CLI parses CSV and EPW input.
 */
#include "models/battery_life.h"

#include <math.h>

#include "models/climate.h"

int battery_life_run(const battery_cfg *c, const battery_life_in *in,
                     double *q_year, double *efc_year, sim_err *err)
{
    int rc = battery_cfg_check(c, err);
    if (rc != SIM_OK)
        return rc;
    if (!in->soc || in->n_soc < 1 || !(in->dt_s > 0 && isfinite(in->dt_s)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "battery life: empty SOC history or step <= 0 "
                           "(got %zu values, step %g s)",
                           in->n_soc, in->dt_s);
    if (in->years < 1 || in->years > BATTERY_LIFE_MAX_YEARS)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "battery life: years out of range (got %d, "
                           "expected 1..%d)",
                           in->years, BATTERY_LIFE_MAX_YEARS);
    for (size_t i = 0; i < in->n_soc; i++)
        if (!(in->soc[i] >= 0 && in->soc[i] <= 1))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "battery life: SOC value %zu out of range "
                               "(got %g, expected 0..1)",
                               i + 1, in->soc[i]);
    const double year_s = 365.0 * 86400.0;
    battery_wear_state w = {0};
    double q = 1.0, s0 = in->soc[in->n_soc - 1];
    size_t j = 0;
    for (int y = 0; y < in->years; y++) {
        /* Steps are counted, not accumulated in floating point, so a year
         * ends on the same step however long the run. */
        double end_s = (y + 1) * year_s;
        while ((double)(j + 1) * in->dt_s <= end_s + 1e-6) {
            double s1 = in->soc[j % in->n_soc];
            double t_amb = 25.0;
            if (in->t_amb_c) {
                size_t h = (size_t)((double)j * in->dt_s / 3600.0);
                t_amb = in->t_amb_c[h % CLIMATE_HOURS];
            }
            double d_efc = fabs(s1 - s0) / 2.0 * q;
            q = battery_wear_advance(c, &w, in->dt_s, s0, s1,
                                     battery_cell_temp_c(c, t_amb), d_efc);
            s0 = s1;
            j++;
        }
        q_year[y] = q;
        efc_year[y] = w.efc;
    }
    return SIM_OK;
}

/* SOC at time t_s into a cycle of period_s: charge for t_ch_s, rest full
 * for rest_s, discharge for t_ch_s, rest empty for the remainder. */
static double cycle_soc(double t_s, double period_s, double t_ch_s,
                        double rest_s, double lo, double hi)
{
    double t = fmod(t_s, period_s);
    if (t < t_ch_s)
        return lo + (hi - lo) * t / t_ch_s;
    t -= t_ch_s;
    if (t < rest_s)
        return hi;
    t -= rest_s;
    if (t < t_ch_s)
        return hi - (hi - lo) * t / t_ch_s;
    return lo;
}

size_t battery_life_daily_profile(double cycles_per_day, double soc_min,
                                  double soc_max, double c_rate, double dt_s,
                                  double *soc, size_t n_max, sim_err *err)
{
    if (!(soc_min >= 0 && soc_min < soc_max && soc_max <= 1)) {
        sim_err_set(err, SIM_EINVAL, NULL, 0,
                    "battery duty: SOC window out of range (got %g..%g, "
                    "expected 0 <= min < max <= 1)",
                    soc_min, soc_max);
        return 0;
    }
    if (!(cycles_per_day >= 0 && cycles_per_day <= 48) ||
        !(c_rate > 0 && c_rate <= 10) || !(dt_s > 0)) {
        sim_err_set(err, SIM_EINVAL, NULL, 0,
                    "battery duty: out of range (got %g cycles a day, %g C, "
                    "step %g s)",
                    cycles_per_day, c_rate, dt_s);
        return 0;
    }
    double nd = 86400.0 / dt_s;
    size_t n = (size_t)llround(nd);
    if (fabs(nd - (double)n) > 1e-9 || n > n_max || n < 1) {
        sim_err_set(err, SIM_EINVAL, NULL, 0,
                    "battery duty: step %g s does not divide a day", dt_s);
        return 0;
    }
    if (cycles_per_day == 0) {
        for (size_t i = 0; i < n; i++)
            soc[i] = 0.5 * (soc_min + soc_max);
        return n;
    }
    double period_s = 86400.0 / cycles_per_day;
    double t_ch_s = (soc_max - soc_min) / c_rate * 3600.0;
    if (2.0 * t_ch_s > period_s * (1 + 1e-12)) {
        sim_err_set(err, SIM_EINVAL, NULL, 0,
                    "battery duty: %g cycles a day from %g to %g at %gC do "
                    "not fit in a day (each needs %.3g h, expected <= %.3g h)",
                    cycles_per_day, soc_min, soc_max, c_rate,
                    2.0 * t_ch_s / 3600.0, period_s / 3600.0);
        return 0;
    }
    double rest_s = 0.5 * (period_s - 2.0 * t_ch_s);
    for (size_t i = 0; i < n; i++)
        soc[i] = cycle_soc((double)(i + 1) * dt_s, period_s, t_ch_s, rest_s,
                           soc_min, soc_max);
    return n;
}
