/* models/reliability.c: checkpoint intervals and failure causes (see
 * reliability.h for the model and sources). */
#include "models/reliability.h"

#include <math.h>

rel_mix rel_mix_llama3(void)
{
    rel_mix m = {{0}};
    m.frac[RES_CAUSE_GPU] = 0.301 + 0.172 + 0.045 + 0.041;
    m.frac[RES_CAUSE_NETWORK] = 0.084;
    m.frac[RES_CAUSE_HOST] =
        1.0 - m.frac[RES_CAUSE_GPU] - m.frac[RES_CAUSE_NETWORK];
    return m;
}

double rel_young_interval_s(double write_s, double mtbi_s)
{
    return sqrt(2.0 * write_s * mtbi_s);
}

double rel_daly_interval_s(double write_s, double mtbi_s)
{
    double x;
    if (write_s >= 2.0 * mtbi_s)
        return mtbi_s;
    x = write_s / (2.0 * mtbi_s);
    return sqrt(2.0 * write_s * mtbi_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) -
           write_s;
}

double rel_expected_segment_s(double rate_per_s, double seg_s, double restart_s)
{
    /* M e^(R/M) (e^(s/M) - 1) = e^(R lambda) expm1(s lambda) / lambda. */
    if (!(rate_per_s > 0))
        return seg_s;
    return exp(restart_s * rate_per_s) * expm1(seg_s * rate_per_s) / rate_per_s;
}

double rel_expected_goodput(double rate_per_s, double interval_s,
                            double write_s, double restart_s)
{
    return interval_s /
           rel_expected_segment_s(rate_per_s, interval_s + write_s, restart_s);
}

res_cause rel_draw_cause(const rel_mix *mix, gsl_rng *r)
{
    double u = gsl_rng_uniform(r), acc = 0.0;
    int last = RES_CAUSE_HOST;
    for (int c = 0; c < RES_CAUSE_N; c++) {
        if (mix->frac[c] <= 0.0)
            continue;
        acc += mix->frac[c];
        last = c;
        if (u < acc)
            return (res_cause)c;
    }
    return (res_cause)last;
}
