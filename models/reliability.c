/* models/reliability.c: checkpoint intervals and failure causes (see
 * reliability.h for the model and sources). */
#include "models/reliability.h"

#include <math.h>

rel_mix rel_mix_llama3(void)
{
    rel_mix m = { { 0 } };
    m.frac[RES_CAUSE_GPU] = 0.301 + 0.172 + 0.045 + 0.041;
    m.frac[RES_CAUSE_NETWORK] = 0.084;
    m.frac[RES_CAUSE_HOST] = 1.0 - m.frac[RES_CAUSE_GPU] - m.frac[RES_CAUSE_NETWORK];
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
    return sqrt(2.0 * write_s * mtbi_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - write_s;
}

double rel_expected_goodput(double rate_per_s, double interval_s,
                            double write_s, double restart_s)
{
    double seg = interval_s + write_s;
    return interval_s / seg / (1.0 + rate_per_s * (restart_s + seg / 2.0));
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
