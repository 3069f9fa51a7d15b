/* models/calib_select.c: which release x class factors of a fit the data
 * support as the release's (calib.h, calib_select_releases).
 *
 * A release x class factor claims that a software release runs every model
 * of a class at one speed relative to the typical stack. A claim about the
 * release must carry to a model it was not fitted on, so each fitted cell
 * is tested the way leave-one-model-out tests the whole model: every model
 * is left out in turn (a warm refit of the fit, as calib_cv does) and its
 * rows of the cell are predicted with the factor the other models gave the
 * cell and with none. The score is the fit's own loss, the sum of squared
 * log errors; a cell is kept only where the factor lowers it. Ties and
 * near-ties are not special-cased: the rule is the comparison, fixed before
 * any fit was looked at with it (docs/throughput-model.md §4, twelfth
 * follow-up, says how close some cells are).
 *
 * Cost: one warm refit per model of the rows, about 0.3 s each on the
 * bundled data. It never allocates beyond two row masks, and never prints.
 */
#include "models/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

static int in_use(const calib_row *rows, const unsigned char *use, size_t i)
{
    return (use ? use[i] : 1) && rows[i].meas_tps > 0;
}

int calib_select_releases(const calib_row *rows, size_t n,
                          const unsigned char *use, const tp_model *m,
                          calib_fit_info *info, unsigned char *off)
{
    enum { NC = TP_MAX_RELEASES * TP_NCLASS };
    double sw[NC], s0[NC];
    int cnt[NC], dropped = 0;
    unsigned char *u = sim_xmalloc(n ? n : 1),
                  *done = sim_xcalloc(n ? n : 1, 1);
    memset(sw, 0, sizeof sw);
    memset(s0, 0, sizeof s0);
    memset(cnt, 0, sizeof cnt);
    info->n_sel_failed = 0;
    for (size_t i = 0; i < n; i++) {
        const char *model = rows[i].llm->name;
        calib_fit_info fi;
        sim_err e;
        tp_model *mm;
        int ok;
        if (done[i] || !in_use(rows, use, i))
            continue;
        for (size_t j = 0; j < n; j++)
            u[j] = in_use(rows, use, j) && strcmp(rows[j].llm->name, model);
        mm = sim_xmalloc(sizeof *mm);
        *mm = *m;
        ok = calib_fit(rows, n, u, mm, 1, &fi, &e) == SIM_OK;
        info->n_sel_failed += !ok;
        for (size_t j = 0; j < n; j++) {
            tp_result res;
            double pw, p0, save, lw, l0;
            int k, l, c;
            if (u[j] || !in_use(rows, use, j) ||
                strcmp(rows[j].llm->name, model))
                continue;
            done[j] = 1;
            k = rows[j].release[0] ? tp_model_release(m, rows[j].release) : -1;
            l = (int)rows[j].llm->cls;
            /* A failed refit gives no evidence for or against. */
            if (!ok || !tp_model_release_fitted(m, k, l))
                continue;
            pw = tp_predict(mm, &rows[j].q, &res) == SIM_OK
                     ? res.tokens_per_sec_per_gpu
                     : 0.0;
            save = mm->rel_log[k][l];
            mm->rel_log[k][l] = 0.0;
            p0 = tp_predict(mm, &rows[j].q, &res) == SIM_OK
                     ? res.tokens_per_sec_per_gpu
                     : 0.0;
            mm->rel_log[k][l] = save;
            if (!(pw > 0 && p0 > 0))
                continue;
            lw = log(pw / rows[j].meas_tps);
            l0 = log(p0 / rows[j].meas_tps);
            c = k * TP_NCLASS + l;
            sw[c] += lw * lw;
            s0[c] += l0 * l0;
            cnt[c]++;
        }
        free(mm);
    }
    info->n_rel_tested = 0;
    for (int k = 0; k < m->n_releases; k++)
        for (int l = 0; l < TP_NCLASS; l++) {
            int c = k * TP_NCLASS + l, t;
            if (!tp_model_release_fitted(m, k, l))
                continue; /* not fitted: one model */
            t = info->n_rel_tested++;
            info->rel_tested[t].rel = k;
            info->rel_tested[t].cls = l;
            info->rel_tested[t].n = cnt[c];
            info->rel_tested[t].rms_with = cnt[c] ? sqrt(sw[c] / cnt[c]) : 0;
            info->rel_tested[t].rms_without = cnt[c] ? sqrt(s0[c] / cnt[c]) : 0;
            /* No held-out row, no support: the factor stays unproven. */
            info->rel_tested[t].kept = cnt[c] > 0 && sw[c] < s0[c];
            if (!info->rel_tested[t].kept) {
                off[c] = 1;
                dropped++;
            }
        }
    free(u);
    free(done);
    return dropped;
}

int calib_cv_nested_model(const calib_row *rows, size_t n,
                          const tp_model *start, double *pred, int *n_failed)
{
    unsigned char *u = sim_xmalloc(n ? n : 1),
                  *done = sim_xcalloc(n ? n : 1, 1);
    tp_model *mm = sim_xmalloc(sizeof *mm);
    *n_failed = 0;
    for (size_t i = 0; i < n; i++)
        pred[i] = 0.0;
    for (size_t i = 0; i < n; i++) {
        const char *model = rows[i].llm->name;
        calib_fit_info *fi;
        sim_err e;
        int ok;
        if (done[i] || !(rows[i].meas_tps > 0))
            continue;
        for (size_t j = 0; j < n; j++)
            u[j] = rows[j].meas_tps > 0 && strcmp(rows[j].llm->name, model);
        /* The whole cold fit, selection included, as if the held-out
         * model had never been measured. */
        *mm = *start;
        fi = sim_xmalloc(sizeof *fi);
        ok = calib_fit(rows, n, u, mm, 0, fi, &e) == SIM_OK;
        free(fi);
        *n_failed += !ok;
        for (size_t j = 0; j < n; j++) {
            tp_result res;
            if (u[j] || !(rows[j].meas_tps > 0) ||
                strcmp(rows[j].llm->name, model))
                continue;
            done[j] = 1;
            if (!ok)
                continue;
            /* A release only the held-out model ran is unknown to the
             * fold's fit: it has no factor there, as a one-model cell. */
            if (rows[j].q.release &&
                tp_model_release(mm, rows[j].q.release) < 0 &&
                mm->n_releases < TP_MAX_RELEASES) {
                int k = mm->n_releases++;
                snprintf(mm->releases[k], sizeof mm->releases[k], "%s",
                         rows[j].q.release);
                memset(mm->rel_log[k], 0, sizeof mm->rel_log[k]);
                memset(mm->rel_sd[k], 0, sizeof mm->rel_sd[k]);
            }
            pred[j] = tp_predict(mm, &rows[j].q, &res) == SIM_OK
                          ? res.tokens_per_sec_per_gpu
                          : 0.0;
        }
    }
    free(mm);
    free(u);
    free(done);
    return *n_failed ? SIM_ENUMERIC : SIM_OK;
}
