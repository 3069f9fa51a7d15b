/* models/straggler.c: the straggler term beyond the calibrated scale
 * (contract and model in straggler.h; sources in docs/site-model.md).
 *
 * Why quantiles of the maximum and not N normal draws: a job has up to
 * ~10^5 GPUs and a replication needs one slowest GPU, whose distribution
 * is known in closed form (P(M_n <= x) = Phi(x)^n); one uniform per job
 * gives it exactly at any N, in O(1), and the same uniform at both scales
 * keeps f = 1 at the reference scale draw by draw, so no calibration row
 * moves. */
#include "models/straggler.h"

#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_math.h>

typedef struct max_ctx {
    double n;
} max_ctx;

/* x times the density of the max of n normals, n phi(x) Phi(x)^(n-1),
 * through logs so that Phi^(n-1) does not underflow before it should. */
static double max_integrand(double x, void *p)
{
    const max_ctx *c = p;
    double lphi = -0.5 * x * x - 0.5 * log(2.0 * M_PI);
    double lcdf = log(gsl_cdf_ugaussian_P(x));
    return x * exp(log(c->n) + lphi + (c->n - 1.0) * lcdf);
}

double straggler_expected_max(int n)
{
    max_ctx c;
    gsl_function f;
    gsl_integration_workspace *w;
    double res = 0, abserr = 0, lo, hi;
    if (n <= 1)
        return 0.0;
    c.n = (double)n;
    f.function = max_integrand;
    f.params = &c;
    /* The density of M_n lives within a few units of its mode, which is
     * below 6 for n up to 10^8; [-9, 10] loses less than 1e-15 of mass and
     * QAGS on a finite range converges where QAGI struggles with the
     * narrow peak at large n. */
    lo = -9.0;
    hi = 10.0;
    w = gsl_integration_workspace_alloc(200);
    gsl_integration_qags(&f, lo, hi, 0, 1e-10, 200, w, &res, &abserr);
    gsl_integration_workspace_free(w);
    return res;
}

double straggler_quantile_max(int n, double u)
{
    double tail;
    if (n <= 1)
        return gsl_cdf_ugaussian_Pinv(u);
    /* 1 - u^(1/n) = -expm1(log(u) / n): the upper-tail probability, exact
     * even when u^(1/n) rounds to 1. */
    tail = -expm1(log(u) / (double)n);
    return gsl_cdf_ugaussian_Qinv(tail);
}

double straggler_factor(int n, int n_ref, double s, double u)
{
    if (n <= n_ref || n_ref <= 0 || !(s > 0))
        return 1.0;
    return (1.0 + s * straggler_quantile_max(n_ref, u)) /
           (1.0 + s * straggler_quantile_max(n, u));
}

double straggler_mean_factor(int n, int n_ref, double s)
{
    if (n <= n_ref || n_ref <= 0 || !(s > 0))
        return 1.0;
    return (1.0 + s * straggler_expected_max(n_ref)) /
           (1.0 + s * straggler_expected_max(n));
}
