/* models/reliability.c: checkpoint intervals and failure causes (see
 * reliability.h for the model and sources).
 *
 * This file owns the closed-form reliability formulas so that the job model
 * (site.c), the predictor and the docs use one implementation. It must stay
 * pure: no engine, no state, and the only randomness is the draw handed in, so
 * that a cause draw consumes exactly one number from the caller's stream. */
#include "models/reliability.h"

#include <math.h>

rel_mix rel_mix_llama3(void)
{
    rel_mix m = {{0}};
    /* The four GPU shares are the Llama 3 report's GPU-side root causes (faulty
     * GPU 30.1 %, HBM3 17.2 %, SRAM 4.5 %, GPU system processor 4.1 %, facts.md
     * 4.1), kept as a sum so that each term can be checked against the source.
     * Host takes the remainder so that the mix sums to 1 exactly. */
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
    /* Daly (2006) gives tau = M when delta >= 2M: the series expansion below is
     * only valid for delta < 2M, and a checkpoint that takes longer than twice
     * the mean time between interruptions cannot be amortised anyway. */
    if (write_s >= 2.0 * mtbi_s)
        return mtbi_s;
    x = write_s / (2.0 * mtbi_s);
    return sqrt(2.0 * write_s * mtbi_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) -
           write_s;
}

double rel_expected_segment_s(double rate_per_s, double seg_s, double restart_s)
{
    /* M e^(R/M) (e^(s/M) - 1) = e^(R lambda) expm1(s lambda) / lambda. No
     * failures: a segment takes exactly its length; this also avoids 0 / 0 in
     * the formula below. */
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

/* One uniform per draw, whatever the mix, so that the caller's stream advances
 * the same way for every scenario. Zero shares are skipped so that a cause with
 * no weight can never be drawn, and the last positive cause catches u values
 * that rounding leaves above the accumulated sum. */
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
