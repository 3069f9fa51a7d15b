/* models/straggler.h: stragglers beyond the calibrated scale (issue 19
 * item 2). A synchronous data-parallel step ends when its slowest GPU
 * does, so a job of N GPUs whose per-GPU step times are t (1 + s z_i),
 * z_i iid standard normal, s the per-GPU speed spread (fraction), steps in
 * t (1 + s M_N) with M_N = max_i z_i. The calibration rows of a GPU type
 * already carry the stragglers of their own scale (up to N_ref GPUs, the
 * GPU's largest row, tp_model.gpu_n_max), so only the part beyond it is
 * applied: a throughput factor
 *
 *     f = (1 + s q_ref(u)) / (1 + s q_N(u)),   q_n(u) = Phi^-1(u^(1/n)),
 *
 * with one uniform u per job and replication: q_n(u) is the u-quantile of
 * M_n, so both maxima sit at the same quantile (comonotone), f = 1 exactly
 * at N <= N_ref or s = 0, f falls monotonically with N for each u, and its
 * mean is close to (1 + s E[M_ref]) / (1 + s E[M_N]), the ratio of the
 * expected slowest-GPU step times. The spread of f across replications is
 * what the maxima's spread adds beyond the reference scale.
 *
 * Units: s and f are fractions; N counts GPUs. All functions are pure and
 * thread-safe; straggler_expected_max integrates numerically (GSL QAGS,
 * ~10 us), the others are closed form.
 */
#ifndef MODELS_STRAGGLER_H
#define MODELS_STRAGGLER_H

/* E[max of n iid standard normals] (0 for n <= 1): the integral of
 * x n phi(x) Phi(x)^(n-1) over the real line. Known values: n = 2
 * 1/sqrt(pi), n = 3 3/(2 sqrt(pi)). */
double straggler_expected_max(int n);

/* The u-quantile of the max of n iid standard normals, u in (0, 1):
 * Phi^-1(u^(1/n)), computed through the upper tail so that n up to 10^7
 * keeps full precision. n <= 1 gives Phi^-1(u). */
double straggler_quantile_max(int n, double u);

/* Throughput factor (<= 1) of a job of n GPUs against the calibrated
 * reference scale n_ref, per-GPU spread s (fraction, e.g. 0.015), at the
 * replication's uniform u in (0, 1). Exactly 1 when n <= n_ref, n_ref <= 0
 * (unknown reference: the term is off) or s <= 0. */
double straggler_factor(int n, int n_ref, double s, double u);

/* The ratio of expected slowest-GPU step times, (1 + s E[M_n_ref]) /
 * (1 + s E[M_n]): the factor's central value; 1 under the same conditions
 * as straggler_factor. */
double straggler_mean_factor(int n, int n_ref, double s);

#endif
