/* models/site_calib.c: fitting and applying a site calibration (see
 * site_calib.h and docs/throughput-model.md §9).
 *
 * This file owns the Bayesian update and the rule that picks an entry for a
 * query; it must never read files (io/site_calib_file.c does), never change
 * the published model's parameters (the cluster's factors ride on
 * tp_query's compute_slowdown / comm_slowdown, which tp_predict already
 * applies), and never report a posterior narrower than the data justify:
 * the covariance is the full 2x2 inverse Hessian, so a direction no row
 * measured keeps the prior's width.
 */
#include "models/site_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/llm.h"
#include "sim/mem.h"

#define SC_H 1e-3    /* finite-difference step in log speed */
#define SC_ITERS 30  /* Gauss-Newton iterations (converges in ~3-5) */
#define SC_THETA 3.0 /* |log speed| cap: a 20x factor is not a slowdown */

const char *site_calib_cls_name(int cls)
{
    const char *n = llm_class_name(cls);
    return n ? n : "*";
}

const char *site_calib_recipe_name(int recipe)
{
    return recipe >= 0 && recipe < PREC_RECIPE_N
               ? precision_recipe_name((prec_recipe)recipe)
               : "*";
}

/* log step time of q at log speeds th; NAN if the model fails. */
static double log_step(const tp_model *m, const tp_query *q0,
                       const double th[2])
{
    tp_query q = *q0;
    tp_result r;
    q.compute_slowdown = exp(-th[0]);
    q.comm_slowdown = exp(-th[1]);
    if (tp_predict(m, &q, &r) != SIM_OK || !(r.step_time_s > 0))
        return NAN;
    return log(r.step_time_s);
}

/* One row as the fit sees it. */
typedef struct sc_row {
    const tp_query *q;
    double y;  /* log target step time */
    double sd; /* noise sd: tp_log_sd of the row's query */
    int line;
} sc_row;

/* Gauss-Newton on -log posterior of one group; fills e's posterior. Shaped
 * as one loop because each iteration needs the Jacobian at the current
 * point (3 model calls per row) and the last iteration's Jacobian is the
 * one the Laplace covariance, the identifiability test and the predictive
 * spread all use, so they are computed from it after the loop. */
static void fit_group(const tp_model *m, const sc_row *rs, size_t n,
                      double prior_scale, site_calib_entry *e)
{
    double th[2] = {0, 0}, s0 = 0, P, H[3], D[3], gm[2] = {0, 0}, ssr = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        s0 += rs[i].sd;
    s0 = n ? s0 / (double)n : 0.1;
    P = prior_scale / (s0 * s0);
    for (int it = 0; it < SC_ITERS; it++) {
        double gr[2] = {-P * th[0], -P * th[1]}, det, d0, d1;
        H[0] = H[2] = P;
        H[1] = 0;
        D[0] = D[1] = D[2] = 0;
        gm[0] = gm[1] = 0;
        ssr = 0;
        used = 0;
        for (size_t i = 0; i < n; i++) {
            double t1[2] = {th[0] + SC_H, th[1]}, t2[2] = {th[0], th[1] + SC_H};
            double f0 = log_step(m, rs[i].q, th), fc = log_step(m, rs[i].q, t1),
                   fm = log_step(m, rs[i].q, t2), w, j0, j1, r;
            if (!isfinite(f0) || !isfinite(fc) || !isfinite(fm))
                continue;
            j0 = (fc - f0) / SC_H;
            j1 = (fm - f0) / SC_H;
            r = rs[i].y - f0;
            w = 1.0 / (rs[i].sd * rs[i].sd);
            D[0] += w * j0 * j0;
            D[1] += w * j0 * j1;
            D[2] += w * j1 * j1;
            gr[0] += w * j0 * r;
            gr[1] += w * j1 * r;
            gm[0] += j0;
            gm[1] += j1;
            ssr += r * r;
            used++;
        }
        H[0] += D[0];
        H[1] += D[1];
        H[2] += D[2];
        det = H[0] * H[2] - H[1] * H[1];
        d0 = (H[2] * gr[0] - H[1] * gr[1]) / det;
        d1 = (H[0] * gr[1] - H[1] * gr[0]) / det;
        if (it == SC_ITERS - 1 || (fabs(d0) < 1e-9 && fabs(d1) < 1e-9))
            break;
        th[0] = fmax(-SC_THETA, fmin(SC_THETA, th[0] + d0));
        th[1] = fmax(-SC_THETA, fmin(SC_THETA, th[1] + d1));
    }
    {
        double det = H[0] * H[2] - H[1] * H[1], tr = D[0] + D[2],
               dd = D[0] * D[2] - D[1] * D[1],
               lmin = 0.5 * (tr - sqrt(fmax(0.0, tr * tr - 4 * dd)));
        e->prior_sd = s0;
        e->mean[0] = th[0];
        e->mean[1] = th[1];
        e->cov[0][0] = H[2] / det;
        e->cov[1][1] = H[0] / det;
        e->cov[0][1] = e->cov[1][0] = -H[1] / det;
        e->n_rows = (int)used;
        e->separable = used > 0 && lmin >= 0.5 / (s0 * s0);
        e->rms_resid = used ? sqrt(ssr / (double)used) : 0;
        if (used) {
            gm[0] /= (double)used;
            gm[1] /= (double)used;
        }
        e->log_tput = -(gm[0] * th[0] + gm[1] * th[1]);
        e->log_sd = sqrt(fmax(0.0, gm[0] * gm[0] * e->cov[0][0] +
                                       2 * gm[0] * gm[1] * e->cov[0][1] +
                                       gm[1] * gm[1] * e->cov[1][1]));
    }
}

/* Group keys are collected in row order, GPU-wide key first for each new
 * GPU, so the file lists a GPU's all-row entry before its class entries and
 * the order depends only on the input. */
int site_calib_fit(const tp_model *m, const exemplar_row *rows,
                   const unsigned char *ok, const int *line, size_t n,
                   site_calib *out, sim_err *err)
{
    sc_row *rs = sim_xcalloc(n ? n : 1, sizeof *rs);
    int *cls = sim_xcalloc(n ? n : 1, sizeof *cls),
        *rec = sim_xcalloc(n ? n : 1, sizeof *rec);
    size_t k = 0;
    memset(out->e, 0, sizeof out->e);
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        tp_result r;
        const exemplar_row *x = &rows[i];
        if ((ok && !ok[i]) || !x->has_model || !(x->step_target_s > 0) ||
            tp_predict(m, &x->q, &r) != SIM_OK)
            continue;
        rs[k].q = &x->q;
        rs[k].y = log(x->step_target_s);
        rs[k].sd = tp_log_sd(m, x->q.llm, x->q.gpu, &r);
        rs[k].line = line ? line[i] : (int)i + 1;
        cls[k] = (int)x->q.llm->cls;
        rec[k] = (int)x->q.prec.recipe;
        k++;
    }
    if (!k) {
        free(rs);
        free(cls);
        free(rec);
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "no row to fit a site calibration from (got no "
                           "row the model could run, expected >= 1)");
    }
    for (size_t i = 0; i < k; i++) {
        for (int pass = 0; pass < 2; pass++) {
            int c = pass ? cls[i] : -1, p = pass ? rec[i] : -1, seen = 0;
            const char *g = rs[i].q->gpu->name;
            for (int j = 0; j < out->n; j++)
                seen |= strcasecmp(out->e[j].gpu, g) == 0 &&
                        out->e[j].cls == c && out->e[j].recipe == p;
            if (seen || out->n >= SITE_CALIB_MAX)
                continue;
            site_calib_entry *e = &out->e[out->n++];
            snprintf(e->gpu, sizeof e->gpu, "%s", g);
            e->cls = c;
            e->recipe = p;
        }
    }
    for (int j = 0; j < out->n; j++) {
        site_calib_entry *e = &out->e[j];
        sc_row *sub = sim_xcalloc(k, sizeof *sub);
        size_t ns = 0;
        for (size_t i = 0; i < k; i++)
            if (strcasecmp(rs[i].q->gpu->name, e->gpu) == 0 &&
                (e->cls < 0 || e->cls == cls[i]) &&
                (e->recipe < 0 || e->recipe == rec[i])) {
                sub[ns++] = rs[i];
                if (e->n_lines < (int)(sizeof e->lines / sizeof e->lines[0]))
                    e->lines[e->n_lines++] = rs[i].line;
            }
        /* The residual the factors cannot explain is measured without the
         * prior (a 1e-6 weight keeps the normal equations regular): with
         * the prior, a few rows' shortfall is partly shrunk back towards 1
         * and would look like an unexplained residual. */
        {
            site_calib_entry free_fit = *e;
            fit_group(m, sub, ns, 1e-6, &free_fit);
            fit_group(m, sub, ns, 1.0, e);
            e->rms_resid = free_fit.rms_resid;
        }
        free(sub);
    }
    free(rs);
    free(cls);
    free(rec);
    return SIM_OK;
}

const site_calib_entry *site_calib_find(const site_calib *c, const char *gpu,
                                        int cls, int recipe, int *exact)
{
    const site_calib_entry *any = NULL;
    if (exact)
        *exact = 0;
    if (!c || !gpu)
        return NULL;
    for (int j = 0; j < c->n; j++) {
        const site_calib_entry *e = &c->e[j];
        if (strcasecmp(e->gpu, gpu) != 0)
            continue;
        if (e->cls == cls && e->recipe == recipe) {
            if (exact)
                *exact = 1;
            return e;
        }
        if (e->cls < 0 && e->recipe < 0)
            any = e;
    }
    return any;
}

static const site_calib_entry *entry_of(const site_calib *c, const tp_query *q,
                                        int *exact)
{
    if (!c || !q->gpu || !q->llm)
        return NULL;
    return site_calib_find(c, q->gpu->name, (int)q->llm->cls,
                           (int)q->prec.recipe, exact);
}

const site_calib_entry *site_calib_apply(const site_calib *c, tp_query *q)
{
    const site_calib_entry *e = entry_of(c, q, NULL);
    if (!e)
        return NULL;
    q->compute_slowdown =
        (q->compute_slowdown > 0 ? q->compute_slowdown : 1.0) *
        exp(-e->mean[0]);
    q->comm_slowdown =
        (q->comm_slowdown > 0 ? q->comm_slowdown : 1.0) * exp(-e->mean[1]);
    return e;
}

double site_calib_log_sd(const site_calib *c, const tp_query *q,
                         double model_sd)
{
    int exact = 0;
    const site_calib_entry *e = entry_of(c, q, &exact);
    return e && exact ? e->log_sd : model_sd;
}

void site_calib_speed(const site_calib_entry *e, int k, double *median,
                      double *lo, double *hi)
{
    double sd = sqrt(e->cov[k][k]);
    *median = exp(e->mean[k]);
    *lo = exp(e->mean[k] - SITE_CALIB_Z80 * sd);
    *hi = exp(e->mean[k] + SITE_CALIB_Z80 * sd);
}
