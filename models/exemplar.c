/* models/exemplar.c: the Exemplar check and shortfall diagnosis of exemplar.h.
 * See docs/throughput-model.md §6.
 *
 * Every factor is solved in log space: f(x) = log T(e^x) - log T_target, where
 * T is tp_predict's step time with the compute (or communication) slowdown e^x
 * and the layout fixed to the one the model used for the row, so that a
 * slowdown never changes the layout. T is monotone in either factor (a slower
 * compute also widens the windows communication hides behind, but never by more
 * than it adds), so one bracketed root exists when the ends straddle the
 * target; GSL's Brent solver finds it. The group fits minimise a
 * one-dimensional sum of squares: a coarse grid first (the objective need not
 * be unimodal far from the optimum), then GSL's Brent minimiser inside the best
 * grid cell.
 *
 * This file owns the verdict rule and the diagnosis and nothing about I/O: rows
 * arrive parsed (io/calib_rows.c) and the command formats the result. It must
 * never change the throughput model's parameters (it only queries tp_predict
 * with slowdowns) and never trust a GSL solver's "success" without checking
 * that the root reproduces the target (deps-notes.md 5: GSL can report success
 * on a wrong answer). */
#include "models/exemplar.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_roots.h>

#include "sim/mem.h"

/* Search ranges of the factors (log space). A compute factor outside [0.1, 100]
 * or a communication factor outside [1e-3, 1e4] is reported as "none reproduces
 * the measurement". Wide on purpose: a factor at either end means the
 * measurement is outside what any plausible slowdown explains (a 10x faster
 * GPU, a network 1e4 times slower), which is worth reporting as such rather
 * than as a number. */
#define EX_A_LO 0.1
#define EX_A_HI 100.0
#define EX_B_LO 1e-3
#define EX_B_HI 1e4
/* Group fits: the grid [0.25, 20] in 61 log-spaced points. 61 points give a
 * grid ratio of about 1.075 between neighbours over [0.25, 20], fine enough
 * that the Brent polish starts inside the right basin, at a cost of 61 model
 * evaluations per row and fit. */
#define EX_G_LO 0.25
#define EX_G_HI 20.0
#define EX_G_N 61

const char *exemplar_verdict_name(int v)
{
    return v == EXEMPLAR_PASS           ? "pass"
           : v == EXEMPLAR_FAIL         ? "fail"
           : v == EXEMPLAR_INCONCLUSIVE ? "inconclusive"
                                        : "";
}

const char *exemplar_cause_name(int c)
{
    return c == EXEMPLAR_CAUSE_COMPUTE ? "compute"
           : c == EXEMPLAR_CAUSE_COMM  ? "communication"
                                       : "";
}

const char *exemplar_ref_name(int k)
{
    return k == EXEMPLAR_REF_PUBLISHED ? "published"
           : k == EXEMPLAR_REF_MODEL   ? "model"
                                       : "";
}

const char *exemplar_basis_name(int b)
{
    return b == EXEMPLAR_BASIS_GROUP ? "group"
           : b == EXEMPLAR_BASIS_ROW ? "row"
                                     : "";
}

/* The last "YY.MM[.P]" of an id as (yy, mm, p); 0 if none. Release ids embed a
 * date-like "YY.MM[.P]" among other digits ("24.04.01", "nemo-25.02"); the last
 * one wins because prefixes often hold other numbers (a model size, a GPU
 * count). A digit preceded by a digit is skipped so that "124.04" is not read
 * as "24.04". */
static int last_version(const char *s, int v[3])
{
    int found = 0;
    const char *p = s;
    while (*p) {
        int a, b, c = 0, n = 0, k = 0;
        if (!isdigit((unsigned char)*p) ||
            (p > s && isdigit((unsigned char)p[-1])) ||
            sscanf(p, "%d.%d%n", &a, &b, &n) != 2) {
            p++;
            continue;
        }
        if (p[n] != '.' || sscanf(p + n, ".%d%n", &c, &k) != 1)
            c = k = 0;
        v[0] = a;
        v[1] = b;
        v[2] = c;
        found = 1;
        p += n + k; /* past this version, so "04.01" is not read again */
    }
    return found;
}

int exemplar_release_newer(const char *a, const char *b)
{
    int va[3], vb[3], ha = last_version(a ? a : "", va),
                      hb = last_version(b ? b : "", vb);
    if (!ha)
        return 0;
    if (!hb)
        return 1;
    for (int k = 0; k < 3; k++)
        if (va[k] != vb[k])
            return va[k] > vb[k];
    return 0;
}

/* Same configuration: everything that defines the run, not who ran it. Names
 * compare case-insensitively because rows come from hand-typed CSV files; the
 * release, source and measured value are left out so that the same
 * configuration measured twice matches. */
static int same_config(const calib_row *a, const calib_row *b)
{
    const tp_query *p = &a->q, *q = &b->q;
    return strcasecmp(a->llm->name, b->llm->name) == 0 &&
           strcasecmp(a->gpu->name, b->gpu->name) == 0 &&
           a->prec.recipe == b->prec.recipe && p->n_gpus == q->n_gpus &&
           p->gbs == q->gbs && p->layout.mbs == q->layout.mbs &&
           p->seq_len == q->seq_len && p->layout.tp == q->layout.tp &&
           p->layout.pp == q->layout.pp && p->layout.cp == q->layout.cp &&
           p->layout.ep == q->layout.ep && p->layout.etp == q->layout.etp &&
           p->layout.vp == q->layout.vp && p->layout.fsdp == q->layout.fsdp &&
           p->layers_run == q->layers_run;
}

/* An exact release match wins immediately; otherwise the newest published
 * release of the same configuration is the reference, since a newer software
 * stack is what an operator is expected to reach. */
long exemplar_match(const calib_row *row, const calib_row *refs, size_t n_refs)
{
    long best = -1;
    for (size_t i = 0; i < n_refs; i++) {
        const calib_row *r = &refs[i];
        if (r->meas_tps <= 0 || !r->llm || !r->gpu || !same_config(row, r))
            continue;
        if (row->release[0] && strcasecmp(row->release, r->release) == 0)
            return (long)i;
        if (best < 0 || exemplar_release_newer(r->release, refs[best].release))
            best = (long)i;
    }
    return best;
}

/* Step time with slowdowns (0 = none); NAN if the model fails. NAN, not an
 * error code, so that the root and minimiser callbacks can pass it straight
 * through: GSL callbacks return a double only. */
static double step_with(const tp_model *m, const tp_query *q0, double a,
                        double b)
{
    tp_query q = *q0;
    tp_result r;
    q.compute_slowdown = a;
    q.comm_slowdown = b;
    if (tp_predict(m, &q, &r) != SIM_OK || !(r.step_time_s > 0))
        return NAN;
    return r.step_time_s;
}

typedef struct root_ctx {
    const tp_model *m;
    const tp_query *q;
    int comm; /* 0: compute factor, 1: communication factor */
    double log_target;
} root_ctx;

static double root_f(double x, void *p)
{
    root_ctx *c = p;
    double t = c->comm ? step_with(c->m, c->q, 0, exp(x))
                       : step_with(c->m, c->q, exp(x), 0);
    return isfinite(t) ? log(t) - c->log_target : (double)NAN;
}

/* The factor reproducing target step time, or NAN if none in [lo, hi]. */
static double solve_factor(const tp_model *m, const tp_query *q, int comm,
                           double target_s, double lo, double hi)
{
    root_ctx c = {m, q, comm, log(target_s)};
    gsl_function F = {root_f, &c};
    double xl = log(lo), xh = log(hi), fl = root_f(xl, &c), fh = root_f(xh, &c),
           x = NAN;
    gsl_root_fsolver *s;
    /* No sign change: no factor in [lo, hi] reproduces the target, which the
     * header reports as "none" (NAN) rather than as the nearest end. */
    if (!isfinite(fl) || !isfinite(fh) || fl * fh > 0)
        return NAN;
    if (fl == 0)
        return lo;
    if (fh == 0)
        return hi;
    s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return NAN;
    if (gsl_root_fsolver_set(s, &F, xl, xh) == GSL_SUCCESS) {
        /* Brent halves the bracket at worst every few iterations; 200 is far
         * above what a 1e-10 interval in log space needs from a bracket of at
         * most ln(1e7), so the cap only guards against a callback that
         * misbehaves. */
        for (int it = 0; it < 200; it++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            x = gsl_root_fsolver_root(s);
            if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
                                       gsl_root_fsolver_x_upper(s), 1e-10,
                                       1e-10) == GSL_SUCCESS)
                break;
        }
    }
    gsl_root_fsolver_free(s);
    /* Check the result, not only the solver: it must reproduce the target. */
    if (!isfinite(x) || fabs(root_f(x, &c)) > 1e-6)
        return NAN;
    return exp(x);
}

/* Order matters: the reference is matched before the model runs so that a row
 * the model cannot run still gets a verdict against a published reference; the
 * layout the model chose is then frozen into q before any factor is solved, so
 * that all factors describe the same configuration; and the factors are solved
 * last because they are the costly part (dozens of tp_predict calls each).
 * Every output field is set on every path (NAN when unknown), so callers can
 * print a row without checking which path it took.
 *
 * A release the model was not calibrated for falls back to the newest
 * calibrated one and says so (release_fallback) rather than failing the row.
 * Against the model the reference is an interval: a row passes only if it
 * clears 95 % of the optimistic end, fails only if it misses 95 % of the
 * pessimistic end, and is inconclusive in between, so the model's uncertainty
 * never turns into a false verdict. */
int exemplar_compare(const tp_model *m, const calib_row *row,
                     const calib_row *refs, size_t n_refs, exemplar_row *out)
{
    tp_result r;
    tp_query q;
    long k;
    double comm;

    memset(out, 0, sizeof *out);
    out->ref_index = -1;
    out->compute_factor = out->comm_factor = NAN;
    if (!row || !row->gpu || !row->llm) {
        snprintf(out->why, sizeof out->why, "row has no GPU or model");
        return SIM_EINVAL;
    }
    if (!(row->meas_tps > 0)) {
        snprintf(out->why, sizeof out->why,
                 "no measured value (expected tokens_per_sec_per_gpu, "
                 "tokens_per_sec_total or step_time_s > 0)");
        return SIM_EINVAL;
    }
    q = row->q;
    if (q.release && tp_model_release(m, q.release) < 0) {
        q.release = NULL;
        out->release_fallback = 1;
    }
    k = refs ? exemplar_match(row, refs, n_refs) : -1;
    out->meas_tps = row->meas_tps;
    if (tp_predict(m, &q, &r) != SIM_OK) {
        snprintf(out->why, sizeof out->why, "model cannot run it: %.150s",
                 r.why);
        if (k < 0)
            return SIM_EINVAL;
    } else {
        out->has_model = 1;
        /* Fix what the model chose, so that slowdowns keep the layout. */
        q.layout = r.layout;
        q.gbs = r.gbs;
        q.seq_len = r.seq_len;
        q.compute_slowdown = q.comm_slowdown = 0;
        out->step_model_s = r.step_time_s;
        comm = r.t_tp_s + r.t_cp_s + r.t_ep_s + r.t_pp_s + r.t_dp_s;
        out->comm_share = comm / r.step_time_s;
    }
    out->q = q;
    if (k >= 0) {
        out->ref_kind = EXEMPLAR_REF_PUBLISHED;
        out->ref_index = k;
        out->ref_tps = out->ref_low_tps = out->ref_high_tps = refs[k].meas_tps;
        out->verdict = row->meas_tps >= EXEMPLAR_BAR * out->ref_tps
                           ? EXEMPLAR_PASS
                           : EXEMPLAR_FAIL;
    } else {
        out->ref_kind = EXEMPLAR_REF_MODEL;
        out->ref_tps = r.tokens_per_sec_per_gpu;
        out->ref_low_tps = r.low_tokens_per_sec_per_gpu;
        out->ref_high_tps = r.high_tokens_per_sec_per_gpu;
        out->verdict = row->meas_tps >= EXEMPLAR_BAR * out->ref_high_tps
                           ? EXEMPLAR_PASS
                       : row->meas_tps < EXEMPLAR_BAR * out->ref_low_tps
                           ? EXEMPLAR_FAIL
                           : EXEMPLAR_INCONCLUSIVE;
    }
    out->ratio = row->meas_tps / out->ref_tps;
    out->step_model_s = out->has_model ? out->step_model_s : (double)NAN;
    out->comm_share = out->has_model ? out->comm_share : (double)NAN;
    if (!out->has_model)
        return SIM_OK;
    /* The measured shortfall relative to the reference, applied to the
     * model's own breakdown of the configuration. */
    out->step_target_s = out->step_model_s * out->ref_tps / row->meas_tps;
    out->compute_factor =
        solve_factor(m, &q, 0, out->step_target_s, EX_A_LO, EX_A_HI);
    out->comm_factor =
        solve_factor(m, &q, 1, out->step_target_s, EX_B_LO, EX_B_HI);
    return SIM_OK;
}

/* ------------------------------------------------------- group fits */

typedef struct grp_ctx {
    const tp_model *m;
    const exemplar_row *rows;
    const size_t *idx;
    size_t n;
    int comm;
} grp_ctx;

/* Sum over the group of squared log residuals at factor e^x. A row whose step
 * time cannot be computed at factor e^x costs a residual of 10 (a factor e^10
 * off), so the minimiser is pushed away from such factors instead of seeing
 * NAN. */
static double grp_ssr(double x, void *p)
{
    grp_ctx *c = p;
    double s = 0;
    for (size_t j = 0; j < c->n; j++) {
        const exemplar_row *r = &c->rows[c->idx[j]];
        double t = c->comm ? step_with(c->m, &r->q, 0, exp(x))
                           : step_with(c->m, &r->q, exp(x), 0);
        double l = isfinite(t) ? log(t / r->step_target_s) : 10.0;
        s += l * l;
    }
    return s;
}

/* Best common factor of the group: *f and its rms log residual. */
static void grp_fit(grp_ctx *c, double *f, double *rms)
{
    double xs[EX_G_N], ys[EX_G_N], lo = log(EX_G_LO), hi = log(EX_G_HI), xb, yb;
    int kb = 0;
    for (int k = 0; k < EX_G_N; k++) {
        xs[k] = lo + (hi - lo) * k / (EX_G_N - 1);
        ys[k] = grp_ssr(xs[k], c);
        if (ys[k] < ys[kb])
            kb = k;
    }
    xb = xs[kb];
    yb = ys[kb];
    /* Brent is only started from a strict interior grid minimum, where the
     * three points bracket a minimum as GSL requires; at the grid's edge the
     * grid value is kept. The polished value is accepted only if it is no
     * worse. */
    if (kb > 0 && kb < EX_G_N - 1 && ys[kb] < ys[kb - 1] &&
        ys[kb] < ys[kb + 1]) {
        gsl_function F = {grp_ssr, c};
        gsl_min_fminimizer *s =
            gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
        if (s && gsl_min_fminimizer_set_with_values(
                     s, &F, xs[kb], ys[kb], xs[kb - 1], ys[kb - 1], xs[kb + 1],
                     ys[kb + 1]) == GSL_SUCCESS) {
            for (int it = 0; it < 100; it++) {
                if (gsl_min_fminimizer_iterate(s) != GSL_SUCCESS)
                    break;
                if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(s),
                                          gsl_min_fminimizer_x_upper(s), 1e-9,
                                          0.0) == GSL_SUCCESS)
                    break;
            }
            if (gsl_min_fminimizer_f_minimum(s) <= yb) {
                xb = gsl_min_fminimizer_x_minimum(s);
                yb = gsl_min_fminimizer_f_minimum(s);
            }
        }
        gsl_min_fminimizer_free(s);
    }
    *f = exp(xb);
    *rms = sqrt(yb / (double)(c->n ? c->n : 1));
}

/* Shaped as one pass over GPU groups: rows are grouped by GPU (a cluster's rows
 * share one hardware and network), each group with a failing row is fitted
 * twice, once with a common compute factor and once with a common communication
 * factor, and the cause is the group's when one fit is clearly better; only
 * otherwise does a row fall back to its own factors. "Clearly" is the
 * likelihood-ratio rule of exemplar.h with known noise: the difference of the
 * two sums of squares (k x rms^2 each) must reach EXEMPLAR_CLEAR_CHI2 noise
 * variances, and a group of one row cannot decide it (k >= 2). done[] marks
 * rows already grouped or not eligible, so each row is visited once and the
 * O(n^2) grouping is quadratic only in the rows of one file. */
void exemplar_diagnose(const tp_model *m, exemplar_row *rows,
                       const unsigned char *ok, size_t n,
                       exemplar_group **groups, size_t *n_groups)
{
    size_t *idx = sim_xmalloc((n ? n : 1) * sizeof *idx);
    unsigned char *done = sim_xcalloc(n ? n : 1, 1);
    exemplar_group *g = NULL;
    size_t ng = 0, cap = 0;

    for (size_t i = 0; i < n; i++) {
        exemplar_row *r = &rows[i];
        r->cause = EXEMPLAR_CAUSE_NONE;
        r->basis = EXEMPLAR_BASIS_NONE;
        if (!(ok ? ok[i] : 1) || !r->ref_kind || !r->has_model)
            done[i] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        grp_ctx c;
        exemplar_group eg;
        size_t k = 0, nf = 0;
        if (done[i])
            continue;
        for (size_t j = i; j < n; j++)
            if (!done[j] &&
                strcasecmp(rows[j].q.gpu->name, rows[i].q.gpu->name) == 0) {
                idx[k++] = j;
                done[j] = 1;
                nf += rows[j].verdict == EXEMPLAR_FAIL;
            }
        if (!nf)
            continue;
        memset(&eg, 0, sizeof eg);
        snprintf(eg.gpu, sizeof eg.gpu, "%s", rows[i].q.gpu->name);
        eg.n = k;
        eg.n_fail = nf;
        c.m = m;
        c.rows = rows;
        c.idx = idx;
        c.n = k;
        c.comm = 0;
        grp_fit(&c, &eg.a, &eg.rms_a);
        c.comm = 1;
        grp_fit(&c, &eg.b, &eg.rms_b);
        if (k >= 2) {
            double dssr =
                (eg.rms_a * eg.rms_a - eg.rms_b * eg.rms_b) * (double)k;
            if (fabs(dssr) >=
                EXEMPLAR_CLEAR_CHI2 * EXEMPLAR_NOISE_SD * EXEMPLAR_NOISE_SD)
                eg.cause =
                    dssr > 0 ? EXEMPLAR_CAUSE_COMM : EXEMPLAR_CAUSE_COMPUTE;
        }
        for (size_t j = 0; j < k; j++) {
            exemplar_row *r = &rows[idx[j]];
            double la = fabs(log(r->compute_factor)),
                   lb = fabs(log(r->comm_factor));
            if (r->verdict != EXEMPLAR_FAIL)
                continue;
            if (eg.cause) {
                r->cause = eg.cause;
                r->basis = EXEMPLAR_BASIS_GROUP;
            } else if (isfinite(la) || isfinite(lb)) {
                r->cause = !isfinite(lb) || (isfinite(la) && la <= lb)
                               ? EXEMPLAR_CAUSE_COMPUTE
                               : EXEMPLAR_CAUSE_COMM;
                r->basis = EXEMPLAR_BASIS_ROW;
            }
        }
        if (groups) {
            sim_grow((void **)&g, &cap, ng + 1, sizeof *g);
            g[ng] = eg;
        }
        ng++;
    }
    free(idx);
    free(done);
    if (groups)
        *groups = g;
    if (n_groups)
        *n_groups = ng;
}
