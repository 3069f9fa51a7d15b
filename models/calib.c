/* models/calib.c: the GSL fit, cross-validation and lookup baseline of
 * calib.h.
 *
 * The unconstrained vector x holds, in order: the free global parameters
 * (fit_par[], transformed by logit or log), one log factor per calibrated
 * GPU, then one log factor per release x class measured on two or more
 * models (a one-model cell would be that model's own factor; it stays 0)
 * and, after a cold fit's selection (models/calib_select.c), supported
 * when each model is left out (the others stay 0 and the fit is redone).
 * The Jacobian is a forward
 * difference computed here rather than by GSL so that a GPU or release
 * column re-predicts only the rows it touches (a few percent of the rows);
 * this makes a fit ~4x cheaper than GSL's generic finite differences.
 */
#include "models/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "models/flops.h"
#include "sim/mem.h"

double calib_row_peak_fraction(const calib_row *r)
{
    double f, peak;
    if (!r->gpu || !r->llm || !(r->meas_tps > 0) ||
        (unsigned)r->prec.fmt >= NUM_FMT_N)
        return 0;
    peak = r->gpu->peak_flops[r->prec.fmt];
    /* Model FLOPs of the run actually made: a proxy's layers_run layers. */
    f = flops_per_token(
        r->llm, r->q.seq_len > 0 ? r->q.seq_len : r->llm->default_seq_len,
        r->q.layers_run, NULL);
    return peak > 0 && f > 0 ? r->meas_tps * f / peak : 0;
}

/* Free global parameters and whether each is a fraction (logit) or a
 * positive quantity (log). ETA_ATTN stays at 1 (issue 18): with the
 * softmax exponentials charged at the SFU rate (models/tp_attn.c) the
 * attention core is the two hardware rates; fitted beside them it went to
 * its bound 1 (sd 0.65) and leave-one-model-out got worse. ETA_HBM and the link
 * efficiencies stay fixed: they are not separable from the elementwise passes
 * and overlaps. The DP window stays at 1 (Megatron's bucketed overlap,
 * models/tp_comm.c): fitted, it went to 0.12 to slow rows whose error is their
 * model's (GPT-OSS 120B, Nemotron-4 15B: docs/throughput-model.md §4), not
 * DP's. */
static const int fit_par[] = {
    TP_ETA_BF16,     TP_ETA_FP8,       TP_ETA_FP4,   TP_ETA_SSM,
    TP_GEMM_SAT,     TP_ELEM_PASSES,   TP_Q_FP8T,    TP_Q_FP8B,
    TP_Q_FP4,        TP_MOE_PERM,      TP_T_LAYER,   TP_OVL_TP,
    TP_OVL_CP,       TP_OVL_EP,        TP_OVL_PP,    TP_T_MOE_LAYER,
    TP_T_MOE_EXPERT, TP_CG_FULL_FIXED, TP_OVL_EP_ON,
};
#define N_FIT ((int)(sizeof fit_par / sizeof fit_par[0]))

static int is_fraction(int k)
{
    return k <= TP_ETA_SSM || (k >= TP_OVL_TP && k <= TP_OVL_PP) ||
           k == TP_OVL_EP_ON;
}

static double to_x(int k, double v)
{
    if (is_fraction(k)) {
        if (v < 1e-6)
            v = 1e-6;
        if (v > 1 - 1e-6)
            v = 1 - 1e-6;
        return log(v / (1 - v));
    }
    return log(v > 1e-30 ? v : 1e-30);
}

static double from_x(int k, double x)
{
    if (x > 40)
        x = 40;
    if (x < -60)
        x = -60;
    return is_fraction(k) ? 1.0 / (1.0 + exp(-x)) : exp(x);
}

/* d value / d x, for the standard errors. */
static double dvdx(int k, double v)
{
    return is_fraction(k) ? v * (1 - v) : v;
}

/* ---------------------------------------------------------------- nlls */

typedef struct nlls_ctx {
    calib_resid_fn f;
    void *ctx;
} nlls_ctx;

/* GSL may pass vectors with a stride (its finite-difference Jacobian writes
 * f into a column view of J), so values go through contiguous copies. */
static int call_strided(int (*f)(const double *, void *, double *), void *ctx,
                        const gsl_vector *x, gsl_vector *r)
{
    double xs[256],
        *xb = x->size <= 256 ? xs : sim_xmalloc(x->size * sizeof *xb);
    double *rb = sim_xmalloc(r->size * sizeof *rb);
    int bad;
    for (size_t j = 0; j < x->size; j++)
        xb[j] = gsl_vector_get(x, j);
    /* A point outside the domain gets huge residuals rather than an error
     * status: GSL then rejects the trial step and shrinks the trust region,
     * whereas an error status would end the iteration. */
    bad = f(xb, ctx, rb);
    for (size_t i = 0; i < r->size; i++)
        gsl_vector_set(r, i, bad || !isfinite(rb[i]) ? 1e100 : rb[i]);
    if (xb != xs)
        free(xb);
    free(rb);
    return GSL_SUCCESS;
}

static int nlls_f(const gsl_vector *x, void *data, gsl_vector *r)
{
    nlls_ctx *c = data;
    return call_strided(c->f, c->ctx, x, r);
}

int calib_nlls(calib_resid_fn f, void *ctx, size_t n, size_t p, double *x,
               int max_iter, double *covar, calib_nlls_info *info, sim_err *err)
{
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_parameters prm =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w;
    gsl_vector_view x0 = gsl_vector_view_array(x, p);
    nlls_ctx c = {f, ctx};
    double *r0 = sim_xmalloc(n * sizeof *r0), ssr0 = 0, ssr;
    int status, gi = 0;
    gsl_vector *res;

    memset(info, 0, sizeof *info);
    if (f(x, ctx, r0)) {
        free(r0);
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "fit: start outside the domain");
    }
    for (size_t i = 0; i < n; i++)
        ssr0 += r0[i] * r0[i];
    free(r0);
    if (!isfinite(ssr0))
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "fit: residuals not finite at start");
    info->ssr0 = ssr0;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = nlls_f;
    fdf.n = n;
    fdf.p = p;
    fdf.params = &c;
    prm.trs = gsl_multifit_nlinear_trs_lmaccel;
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, n, p);
    if (!w)
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "fit: cannot allocate workspace");
    status = gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver((size_t)max_iter, 1e-10, 1e-10,
                                             0.0, NULL, NULL, &gi, w);
    info->status = status;
    info->info = gi;
    info->iters = (int)gsl_multifit_nlinear_niter(w);
    res = gsl_multifit_nlinear_residual(w);
    gsl_blas_ddot(res, res, &ssr);
    info->ssr = ssr;
    {
        gsl_vector *xs = gsl_multifit_nlinear_position(w);
        int finite = isfinite(ssr);
        for (size_t j = 0; j < p; j++)
            finite = finite && isfinite(gsl_vector_get(xs, j));
        /* GSL_EMAXITER still leaves a usable, improved point: accept it
         * when finite and not worse than the start (checked below). */
        if ((status != GSL_SUCCESS && status != GSL_EMAXITER) || !finite ||
            ssr > ssr0 * (1 + 1e-12)) {
            gsl_multifit_nlinear_free(w);
            return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                               "fit failed: %s (SSR %g from %g)",
                               gsl_strerror(status), ssr, ssr0);
        }
        for (size_t j = 0; j < p; j++)
            x[j] = gsl_vector_get(xs, j);
    }
    if (covar) {
        gsl_matrix_view cv = gsl_matrix_view_array(covar, p, p);
        double s2 = n > p ? ssr / (double)(n - p) : 1.0;
        gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0,
                                   &cv.matrix);
        gsl_matrix_scale(&cv.matrix, s2);
    }
    gsl_multifit_nlinear_free(w);
    return SIM_OK;
}

/* ----------------------------------------------------------- model fit */

typedef struct fit_ctx {
    const calib_row *rows;
    size_t *idx; /* rows used */
    size_t n_use;
    tp_model m;      /* scratch model */
    int n_gpu, n_rc; /* GPU and release x class columns */
    int rc_rel[TP_MAX_RELEASES * TP_NCLASS],
        rc_cls[TP_MAX_RELEASES * TP_NCLASS];
    int *row_gpu, *row_rel; /* per used row: GPU index, release index */
} fit_ctx;

static void x_to_model(fit_ctx *c, const double *x)
{
    for (int j = 0; j < N_FIT; j++)
        c->m.p[fit_par[j]] = from_x(fit_par[j], x[j]);
    for (int g = 0; g < c->n_gpu; g++)
        c->m.gpu_log[g] = x[N_FIT + g];
    for (int k = 0; k < c->n_rc; k++)
        c->m.rel_log[c->rc_rel[k]][c->rc_cls[k]] = x[N_FIT + c->n_gpu + k];
}

static double row_resid(const fit_ctx *c, size_t i)
{
    const calib_row *r = &c->rows[c->idx[i]];
    tp_result res;
    if (tp_predict(&c->m, &r->q, &res) != SIM_OK ||
        !(res.tokens_per_sec_per_gpu > 0))
        return NAN;
    return log(res.tokens_per_sec_per_gpu / r->meas_tps);
}

static int fit_f(const double *x, void *ctx, double *r)
{
    fit_ctx *c = ctx;
    size_t p0 = (size_t)(N_FIT + c->n_gpu + c->n_rc);
    x_to_model(c, x);
    for (size_t i = 0; i < c->n_use; i++)
        if (!isfinite(r[i] = row_resid(c, i)))
            return 1;
    for (size_t j = N_FIT; j < p0; j++)
        r[c->n_use + j - N_FIT] = x[j] / CALIB_PRIOR_SD;
    return 0;
}

static int fit_df(const gsl_vector *xv, void *data, gsl_matrix *J)
{
    fit_ctx *c = data;
    size_t p = xv->size, n = J->size1;
    double *x = sim_xmalloc(p * sizeof *x), *r0 = sim_xmalloc(n * sizeof *r0);
    const double hstep = 1e-5;
    memcpy(x, xv->data, p * sizeof *x);
    if (fit_f(x, c, r0)) {
        free(x);
        free(r0);
        return GSL_EDOM;
    }
    gsl_matrix_set_zero(J);
    for (size_t j = 0; j < p; j++) {
        double save = x[j];
        int jj = (int)j;
        x[j] = save + hstep;
        x_to_model(c, x);
        for (size_t i = 0; i < c->n_use; i++) {
            double ri;
            if (jj >= N_FIT && jj < N_FIT + c->n_gpu &&
                c->row_gpu[i] != jj - N_FIT)
                continue;
            if (jj >= N_FIT + c->n_gpu) {
                int k = jj - N_FIT - c->n_gpu;
                const calib_row *rw = &c->rows[c->idx[i]];
                if (c->row_rel[i] != c->rc_rel[k] ||
                    (int)rw->llm->cls != c->rc_cls[k])
                    continue;
            }
            ri = row_resid(c, i);
            if (!isfinite(ri)) {
                free(x);
                free(r0);
                return GSL_EDOM;
            }
            gsl_matrix_set(J, i, j, (ri - r0[i]) / hstep);
        }
        if (jj >= N_FIT)
            gsl_matrix_set(J, c->n_use + j - N_FIT, j, 1.0 / CALIB_PRIOR_SD);
        x[j] = save;
    }
    x_to_model(c, x);
    free(x);
    free(r0);
    return GSL_SUCCESS;
}

static int fit_fg(const gsl_vector *x, void *data, gsl_vector *r)
{
    return call_strided(fit_f, data, x, r);
}

/* Runs the LM driver with the analytic-structure Jacobian above. */
static int fit_run(fit_ctx *c, double *x, size_t p, int max_iter, double *covar,
                   calib_nlls_info *info, sim_err *err)
{
    size_t n = c->n_use + p - N_FIT;
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_parameters prm =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w;
    gsl_vector_view xv = gsl_vector_view_array(x, p);
    double *r = sim_xmalloc(n * sizeof *r), ssr0 = 0, ssr;
    int status, gi = 0, finite;
    memset(info, 0, sizeof *info);
    if (fit_f(x, c, r)) {
        free(r);
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "fit: a row cannot be predicted at the start");
    }
    for (size_t i = 0; i < n; i++)
        ssr0 += r[i] * r[i];
    free(r);
    info->ssr0 = ssr0;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = fit_fg;
    fdf.df = fit_df;
    fdf.n = n;
    fdf.p = p;
    fdf.params = c;
    prm.trs = gsl_multifit_nlinear_trs_lmaccel;
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, n, p);
    if (!w)
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0, "fit: cannot allocate");
    status = gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver((size_t)max_iter, 1e-6, 1e-8, 1e-9,
                                             NULL, NULL, &gi, w);
    info->status = status;
    info->info = gi;
    info->iters = (int)gsl_multifit_nlinear_niter(w);
    gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
                  gsl_multifit_nlinear_residual(w), &ssr);
    info->ssr = ssr;
    finite = isfinite(ssr);
    for (size_t j = 0; j < p; j++)
        finite = finite &&
                 isfinite(gsl_vector_get(gsl_multifit_nlinear_position(w), j));
    /* GSL_EMAXITER and GSL_ENOPROG leave a usable point no worse than the
     * start (checked here); anything else, or a non-finite result, fails. */
    if ((status != GSL_SUCCESS && status != GSL_EMAXITER &&
         status != GSL_ENOPROG) ||
        !finite || ssr > ssr0 * (1 + 1e-12)) {
        gsl_multifit_nlinear_free(w);
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "fit failed: %s (SSR %g from %g)",
                           gsl_strerror(status), ssr, ssr0);
    }
    for (size_t j = 0; j < p; j++)
        x[j] = gsl_vector_get(gsl_multifit_nlinear_position(w), j);
    if (covar) {
        gsl_matrix_view cv = gsl_matrix_view_array(covar, p, p);
        double s2 =
            c->n_use > p ? ssr / (double)(c->n_use - p + (p - N_FIT)) : 1.0;
        gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0,
                                   &cv.matrix);
        gsl_matrix_scale(&cv.matrix, s2);
    }
    gsl_multifit_nlinear_free(w);
    return SIM_OK;
}

/* Median of v[0..n-1] (reorders v). */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Newest release: the greatest "NN.NN[.NN]" id (dgxc ids sort lower). */
static int newer(const char *a, const char *b)
{
    int a1 = 0, a2 = 0, a3 = 0, b1 = 0, b2 = 0, b3 = 0;
    int na = sscanf(a, "%d.%d.%d", &a1, &a2, &a3),
        nb = sscanf(b, "%d.%d.%d", &b1, &b2, &b3);
    if (na < 2)
        return 0;
    if (nb < 2)
        return 1;
    if (a1 != b1)
        return a1 > b1;
    if (a2 != b2)
        return a2 > b2;
    return a3 > b3;
}

/* The calibration set's domain (extrapolation flags, models/throughput.c):
 * the range of active parameters, the most experts and the longest
 * sequence of the rows used. Set after the fit, from the rows alone: a
 * start that re-initialises the model (the data-derived one) must not be
 * able to drop it when it wins. */
static void fit_domain(const calib_row *rows, const size_t *idx, size_t n,
                       tp_model *m)
{
    m->dom_active_params_min = m->dom_active_params_max = 0;
    m->dom_experts_max = m->dom_seq_max = 0;
    for (size_t i = 0; i < n; i++) {
        const calib_row *r = &rows[idx[i]];
        const llm_arch *a = r->llm;
        double Pd, Pe, act;
        int seq = r->q.seq_len > 0 ? r->q.seq_len : a->default_seq_len;
        flops_params(a, 0, &Pd, &Pe);
        act = Pd + (a->num_experts > 0
                        ? Pe * a->experts_per_token / a->num_experts
                        : Pe);
        if (m->dom_active_params_min <= 0 || act < m->dom_active_params_min)
            m->dom_active_params_min = act;
        if (act > m->dom_active_params_max)
            m->dom_active_params_max = act;
        if (a->num_experts > m->dom_experts_max)
            m->dom_experts_max = a->num_experts;
        if (seq > m->dom_seq_max)
            m->dom_seq_max = seq;
    }
}

/* One fit: calib_fit without the selection of release x class cells.
 * off (NULL = none) marks cells, by m->releases index x class, held at 0
 * although two or more models ran: those leaving each model out did not
 * support. Why this shape: the GPU/release lists and the calibration
 * domain are rebuilt only for a cold fit (cross-validation refits keep the
 * full fit's, so held-out rows stay predictable), then two starts run and
 * the better one keeps its covariance-based standard errors. */
static int fit_once(const calib_row *rows, size_t n, const unsigned char *use,
                    tp_model *m, int warm, const unsigned char *off,
                    calib_fit_info *info, sim_err *err)
{
    fit_ctx c;
    size_t p;
    double *x, *best = NULL, *covar, best_ssr = INFINITY;
    int rc = SIM_OK, ok = 0, best_iters = 0;
    calib_nlls_info ni;

    memset(&c, 0, sizeof c);
    memset(info, 0, sizeof *info);
    c.rows = rows;
    c.idx = sim_xmalloc((n ? n : 1) * sizeof *c.idx);
    for (size_t i = 0; i < n; i++)
        if ((use ? use[i] : 1) && rows[i].meas_tps > 0)
            c.idx[c.n_use++] = i;
    if (c.n_use == 0) {
        free(c.idx);
        return sim_err_set(err, SIM_EINVAL, NULL, 0, "fit: no measured rows");
    }
    if (!warm) {
        /* Rebuild GPU and release lists from the rows used. */
        m->n_gpus = m->n_releases = 0;
        memset(m->gpu_log, 0, sizeof m->gpu_log);
        memset(m->rel_log, 0, sizeof m->rel_log);
        memset(m->rel_sd, 0, sizeof m->rel_sd);
        for (size_t i = 0; i < c.n_use; i++) {
            const calib_row *r = &rows[c.idx[i]];
            if (tp_model_gpu(m, r->gpu->name) < 0 && m->n_gpus < TP_MAX_GPUS)
                snprintf(m->gpus[m->n_gpus++], sizeof m->gpus[0], "%s",
                         r->gpu->name);
            if (r->release[0] && tp_model_release(m, r->release) < 0 &&
                m->n_releases < TP_MAX_RELEASES)
                snprintf(m->releases[m->n_releases++], sizeof m->releases[0],
                         "%s", r->release);
        }
        m->default_release = -1;
        for (int k = 0; k < m->n_releases; k++)
            if (m->default_release < 0 ||
                newer(m->releases[k], m->releases[m->default_release]))
                m->default_release = k;
    }
    c.m = *m;
    c.n_gpu = m->n_gpus;
    c.row_gpu = sim_xmalloc(c.n_use * sizeof *c.row_gpu);
    c.row_rel = sim_xmalloc(c.n_use * sizeof *c.row_rel);
    {
        /* A release x class factor exists only where at least two models
         * of the class were measured in the release: with one model it
         * would be that model's own factor in that release, which the
         * throughput model does not allow (issue 18). Such rows take the
         * factor 0, the typical stack. A cold fit counts its used rows; a
         * warm (cross-validation) refit counts every row it was given,
         * held-out ones too, and leaves out the cells its start holds at
         * 0 with sd 0 (those calib_fit's selection dropped), so the folds
         * keep the full fit's columns. */
        const llm_arch *first[TP_MAX_RELEASES][TP_NCLASS];
        unsigned char models[TP_MAX_RELEASES][TP_NCLASS];
        memset(first, 0, sizeof first);
        memset(models, 0, sizeof models);
        for (size_t i = 0; i < n; i++) {
            int k =
                rows[i].release[0] ? tp_model_release(m, rows[i].release) : -1;
            int l = rows[i].llm->cls;
            if (k < 0 || !(rows[i].meas_tps > 0) || (!warm && use && !use[i]))
                continue;
            if (!first[k][l]) {
                first[k][l] = rows[i].llm;
                models[k][l] = 1;
            } else if (first[k][l] != rows[i].llm) { /* two or more */
                models[k][l] = 2;
            }
        }
        for (int k = 0; k < m->n_releases; k++)
            for (int l = 0; l < TP_NCLASS; l++)
                if (models[k][l] == 2 &&
                    ((off && off[k * TP_NCLASS + l]) ||
                     (warm && !tp_model_release_fitted(m, k, l)))) {
                    continue; /* held at 0: not supported across models */
                } else if (models[k][l] == 2) {
                    c.rc_rel[c.n_rc] = k;
                    c.rc_cls[c.n_rc++] = l;
                } else if (models[k][l] == 1) {
                    int j = info->n_rel_one_model++;
                    info->rel_one_model[j].rel = k;
                    info->rel_one_model[j].cls = l;
                    info->rel_one_model[j].model = first[k][l];
                }
        info->n_rel_fitted = c.n_rc;
    }
    for (size_t i = 0; i < c.n_use; i++) {
        const calib_row *r = &rows[c.idx[i]];
        c.row_gpu[i] = tp_model_gpu(m, r->gpu->name);
        c.row_rel[i] = r->release[0] ? tp_model_release(m, r->release) : -1;
    }
    p = (size_t)(N_FIT + c.n_gpu + c.n_rc);
    x = sim_xmalloc(p * sizeof *x);
    best = sim_xmalloc(p * sizeof *best);
    covar = sim_xmalloc(p * p * sizeof *covar);
    for (int start = 0; start < (warm ? 1 : 2); start++) {
        tp_model s = *m;
        if (start == 1) {
            /* Data-derived start: scale each format's GEMM efficiency so
             * that its median prediction matches its median measurement. */
            tp_model_init(&s);
            memcpy(s.gpus, m->gpus, sizeof s.gpus);
            s.n_gpus = m->n_gpus;
            memcpy(s.releases, m->releases, sizeof s.releases);
            s.n_releases = m->n_releases;
            s.default_release = m->default_release;
            for (int f = 0; f < NUM_FMT_N; f++) {
                double *ratio = sim_xmalloc(c.n_use * sizeof *ratio);
                size_t k = 0;
                for (size_t i = 0; i < c.n_use; i++) {
                    const calib_row *r = &rows[c.idx[i]];
                    tp_result res;
                    if ((int)r->prec.fmt == f &&
                        tp_predict(&s, &r->q, &res) == SIM_OK)
                        ratio[k++] = r->meas_tps / res.tokens_per_sec_per_gpu;
                }
                if (k) {
                    double v = s.p[TP_ETA_BF16 + f] * median(ratio, k);
                    s.p[TP_ETA_BF16 + f] = v > 0.95 ? 0.95 : v;
                }
                free(ratio);
            }
        }
        for (int j = 0; j < N_FIT; j++)
            x[j] = to_x(fit_par[j], s.p[fit_par[j]]);
        for (int g = 0; g < c.n_gpu; g++)
            x[N_FIT + g] = s.gpu_log[g];
        for (int k = 0; k < c.n_rc; k++)
            x[N_FIT + c.n_gpu + k] = s.rel_log[c.rc_rel[k]][c.rc_cls[k]];
        c.m = s;
        if (fit_run(&c, x, p, warm ? 40 : 300, warm ? NULL : covar, &ni, err) !=
            SIM_OK)
            continue;
        if (ni.ssr < best_ssr) {
            best_ssr = ni.ssr;
            best_iters = ni.iters;
            memcpy(best, x, p * sizeof *x);
            x_to_model(&c, best);
            *m = c.m;
            if (!warm) {
                for (int j = 0; j < N_FIT; j++)
                    m->p_sd[fit_par[j]] = sqrt(covar[(size_t)j * (p + 1)]) *
                                          dvdx(fit_par[j], m->p[fit_par[j]]);
                for (int g = 0; g < c.n_gpu; g++)
                    m->gpu_sd[g] = sqrt(covar[(size_t)(N_FIT + g) * (p + 1)]);
                for (int k = 0; k < c.n_rc; k++) {
                    size_t jj = (size_t)(N_FIT + c.n_gpu + k);
                    m->rel_sd[c.rc_rel[k]][c.rc_cls[k]] =
                        sqrt(covar[jj * p + jj]);
                }
            }
            ok = 1;
        }
        info->starts++;
    }
    if (!ok)
        rc = err && err->code ? err->code : SIM_ENUMERIC;
    else {
        double s = 0;
        c.m = *m;
        for (size_t i = 0; i < c.n_use; i++) {
            double r = row_resid(&c, i);
            s += r * r;
        }
        info->n_rows = c.n_use;
        info->n_free = p;
        info->ssr = best_ssr;
        info->rms_log = sqrt(s / (double)c.n_use);
        info->iters = best_iters;
        if (!warm)
            fit_domain(rows, c.idx, c.n_use, m);
        sim_err_clear(err);
    }
    free(x);
    free(best);
    free(covar);
    free(c.idx);
    free(c.row_gpu);
    free(c.row_rel);
    return rc;
}

/* Same group under the mode? */
static int same_group(const calib_row *a, const calib_row *b, int mode)
{
    if (mode == CALIB_CV_MODEL)
        return strcmp(a->llm->name, b->llm->name) == 0;
    return strcmp(a->config, b->config) == 0;
}

int calib_fit(const calib_row *rows, size_t n, const unsigned char *use,
              tp_model *m, int warm, calib_fit_info *info, sim_err *err)
{
    unsigned char off[TP_MAX_RELEASES * TP_NCLASS];
    calib_fit_info tested;
    int rc;
    if (warm)
        return fit_once(rows, n, use, m, 1, NULL, info, err);
    if ((rc = fit_once(rows, n, use, m, 0, NULL, info, err)) != SIM_OK)
        return rc;
    memset(off, 0, sizeof off);
    if (calib_select_releases(rows, n, use, m, info, off) == 0)
        return SIM_OK;
    /* The same rows, so the same release list and indices. */
    tested = *info;
    if ((rc = fit_once(rows, n, use, m, 0, off, info, err)) != SIM_OK)
        return rc;
    info->n_rel_tested = tested.n_rel_tested;
    memcpy(info->rel_tested, tested.rel_tested, sizeof info->rel_tested);
    return SIM_OK;
}

void calib_predict_all(const calib_row *rows, size_t n, const tp_model *m,
                       double *pred)
{
    for (size_t i = 0; i < n; i++) {
        tp_result res;
        pred[i] = tp_predict(m, &rows[i].q, &res) == SIM_OK
                      ? res.tokens_per_sec_per_gpu
                      : 0.0;
    }
}

int calib_cv(const calib_row *rows, size_t n, const tp_model *m, int mode,
             double *pred, sim_err *err)
{
    unsigned char *use = sim_xmalloc(n ? n : 1),
                  *done = sim_xcalloc(n ? n : 1, 1);
    calib_fit_info fi;
    size_t n_refit = 0, n_groups = 0;
    for (size_t i = 0; i < n; i++)
        pred[i] = 0.0;
    for (size_t i = 0; i < n; i++) {
        tp_model mm = *m;
        if (done[i])
            continue;
        n_groups++;
        for (size_t j = 0; j < n; j++)
            use[j] = !same_group(&rows[i], &rows[j], mode);
        if (calib_fit(rows, n, use, &mm, 1, &fi, err) != SIM_OK)
            mm = *m; /* keep the full fit (conservative: in-sample) */
        else
            n_refit++;
        for (size_t j = 0; j < n; j++)
            if (!use[j]) {
                tp_result res;
                done[j] = 1;
                pred[j] = tp_predict(&mm, &rows[j].q, &res) == SIM_OK
                              ? res.tokens_per_sec_per_gpu
                              : 0.0;
            }
    }
    free(use);
    free(done);
    sim_err_clear(err);
    if (n_refit < n_groups)
        return sim_err_set(err, SIM_ENUMERIC, NULL, 0,
                           "cross-validation: %zu of %zu refits failed",
                           n_groups - n_refit, n_groups);
    return SIM_OK;
}

/* Measured fraction of the dense peak of the row's format. */
static double row_eff(const calib_row *r)
{
    double f = flops_per_token(
        r->llm, r->q.seq_len > 0 ? r->q.seq_len : r->llm->default_seq_len,
        r->q.layers_run, NULL);
    return r->meas_tps * f / r->gpu->peak_flops[r->prec.fmt];
}

void calib_baseline(const calib_row *rows, size_t n, int mode, double *pred)
{
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const calib_row *r = &rows[i];
        double med = NAN;
        for (int level = 0; level < 3 && !isfinite(med); level++) {
            size_t k = 0;
            for (size_t j = 0; j < n; j++) {
                const calib_row *s = &rows[j];
                if (s->meas_tps <= 0 || (mode >= 0 && same_group(r, s, mode)))
                    continue;
                if (strcmp(s->gpu->name, r->gpu->name) != 0)
                    continue;
                if (level < 2 && s->prec.fmt != r->prec.fmt)
                    continue;
                if (level < 1 && strcmp(s->llm->name, r->llm->name) != 0)
                    continue;
                v[k++] = row_eff(s);
            }
            med = median(v, k);
        }
        if (isfinite(med)) {
            double f = flops_per_token(
                r->llm,
                r->q.seq_len > 0 ? r->q.seq_len : r->llm->default_seq_len,
                r->q.layers_run, NULL);
            pred[i] = med * r->gpu->peak_flops[r->prec.fmt] / f;
        } else {
            pred[i] = 0.0;
        }
    }
    free(v);
}

/* qsort order of tp_model_rows: model, then every GPU ("") first, then the
 * GPU's name. */
static int rows_cmp(const void *a, const void *b)
{
    const tp_model_rows *x = a, *y = b;
    int c = strcmp(x->model, y->model);
    return c ? c : strcmp(x->gpu, y->gpu);
}

int calib_model_rows(const calib_row *rows, size_t n, const double *pred,
                     tp_model *m)
{
    int dropped = 0;
    m->n_model_rows = 0;
    /* Every model's every-GPU record first, so that a full table drops
     * per-GPU records before any model loses its own. */
    for (int all = 1; all >= 0; all--)
        for (size_t i = 0; i < n; i++) {
            double e = pred[i] > 0 ? pred[i] / rows[i].meas_tps - 1.0 : -1.0;
            const char *gpu = all ? "" : rows[i].gpu->name;
            const tp_model_rows *f =
                tp_model_rows_of(m, rows[i].llm->name, gpu);
            tp_model_rows *r = f ? &m->model_rows[f - m->model_rows] : NULL;
            if (!r) {
                if (m->n_model_rows >= TP_MAX_MODEL_ROWS) {
                    dropped++;
                    continue;
                }
                r = &m->model_rows[m->n_model_rows++];
                memset(r, 0, sizeof *r);
                snprintf(r->model, sizeof r->model, "%s", rows[i].llm->name);
                snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
            }
            r->n++;
            r->loco_mean_error_pct += e;
            r->loco_mape_pct += fabs(e);
        }
    for (int k = 0; k < m->n_model_rows; k++) {
        m->model_rows[k].loco_mean_error_pct *= 100.0 / m->model_rows[k].n;
        m->model_rows[k].loco_mape_pct *= 100.0 / m->model_rows[k].n;
    }
    qsort(m->model_rows, (size_t)m->n_model_rows, sizeof m->model_rows[0],
          rows_cmp);
    return dropped;
}
