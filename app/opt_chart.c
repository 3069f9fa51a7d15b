/* app/opt_chart.c: the chart of a stored optimize problem (opt_chart.h).
 * It re-parses the problem's stored terms with app/opt_spec.h (the very
 * parser `optimize` used), reads each design's statistics from its sweep
 * case through app/sweep_table.h, and hands points to io/plot_opt.h. It
 * never reruns a design and never writes the database. */
#include "app/opt_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/opt_spec.h"
#include "app/sweep_table.h"
#include "io/plot_opt.h"
#include "models/scenkeys.h"
#include "sim/mem.h"

#define MAX_SPECS 32

/* The row of case ci in t, or NULL (linear: a problem has at most a few
 * hundred designs). */
static const sweep_row *row_of(const sweep_table *t, int64_t ci)
{
    for (size_t i = 0; t && i < t->n_rows; i++)
        if (t->rows[i].case_index == ci)
            return &t->rows[i];
    return NULL;
}

/* Index of metric name in specs (added when new). */
static size_t slot(const char **specs, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(specs[i], name) == 0)
            return i;
    specs[*n] = name;
    return (*n)++;
}

/* One axis: a metric statistic (metric >= 0) or a varied key (axis). */
typedef struct axis {
    int is_key;
    size_t metric; /* slot in the specs */
    int stat;
    int maximise;
    size_t key; /* axis of the sweep table */
} axis;

/* The statistic as a chart says it. */
static const char *stat_word(int stat)
{
    static const char *const w[4] = {"mean", "P10", "P50", "P90"};
    return w[stat & 3];
}

/* "P50 of site carbon emissions [t]"; a maximised objective says so. */
static void axis_label(const sweep_table *t, const axis *a, char *buf, size_t n)
{
    char w[256];
    if (a->is_key) {
        scen_key_label(t->axis_keys[a->key], buf, n);
        return;
    }
    sweep_metric_words(&t->metrics[a->metric], w, sizeof w);
    snprintf(buf, n, "%s of %.200s [%s]%s", stat_word(a->stat), w,
             t->metrics[a->metric].unit, a->maximise ? " (maximised)" : "");
}

static double axis_value(const sweep_row *r, const axis *a)
{
    if (!r)
        return (double)NAN;
    if (a->is_key) {
        char *e;
        double v = strtod(r->values[a->key], &e);
        return e == r->values[a->key] ? (double)NAN : v;
    }
    return opt_spec_stat(&r->sum[a->metric], a->stat);
}

/* Why one function: the steps share the parsed problem and the two tables
 * (parse the terms, pick the axes, load, collect points and reference
 * lines, draw), and each is a few lines; one `done:` frees them all. */
int opt_chart(db *d, int64_t id, const char *path, char *what, size_t what_n,
              sim_err *err)
{
    db_opt_problem *p = NULL;
    sweep_table *t[2] = {NULL, NULL};
    opt_spec obj[8], con[16];
    size_t n_obj = 0, n_con = 0, n_specs = 0, n_refs = 0;
    const char *specs[MAX_SPECS];
    axis ax, ay;
    double *x = NULL, *y = NULL, ref_v[4];
    int *flags = NULL, rc, ref_x[4];
    char xl[300], yl[300], title[600], why[512], ref_lab[4][200];
    plot_opt_ref refs[4];

    if ((rc = db_opt_load(d, id, &p, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < p->n_terms; i++) {
        const db_opt_term *tm = &p->terms[i];
        int bad = 0;
        if (tm->role == DB_OPT_OBJECTIVE && n_obj < 8)
            bad = opt_spec_objective(tm->text, &obj[n_obj++], why, sizeof why);
        else if (tm->role == DB_OPT_CONSTRAINT && n_con < 16)
            bad = opt_spec_constraint(tm->text, &con[n_con++], why, sizeof why);
        if (bad) {
            rc = sim_err_set(err, SIM_EINVAL, "optimize problem", 0,
                             "problem %lld: %s", (long long)id, why);
            goto done;
        }
    }
    if (n_obj == 0) {
        rc = sim_err_set(err, SIM_EINVAL, "optimize problem", 0,
                         "problem %lld has no objective", (long long)id);
        goto done;
    }
    /* The axes, then every constraint's metric (for the lines). */
    memset(&ax, 0, sizeof ax);
    memset(&ay, 0, sizeof ay);
    if (n_obj >= 2) {
        ax.metric = slot(specs, &n_specs, obj[0].metric);
        ax.stat = obj[0].stat;
        ax.maximise = obj[0].maximise;
        ay.metric = slot(specs, &n_specs, obj[1].metric);
        ay.stat = obj[1].stat;
        ay.maximise = obj[1].maximise;
    } else {
        ay.metric = slot(specs, &n_specs, obj[0].metric);
        ay.stat = obj[0].stat;
        ay.maximise = obj[0].maximise;
        if (n_con) {
            ax.metric = slot(specs, &n_specs, con[0].metric);
            ax.stat = con[0].stat;
        } else {
            ax.is_key = 1; /* axis 0 of the table: the first --vary */
        }
    }
    if ((rc = sweep_table_load(d, p->sweep_key, specs, n_specs, &t[0], err)) !=
        SIM_OK)
        goto done;
    rc = sweep_table_load(d, p->refined_sweep_key, specs, n_specs, &t[1], err);
    if (rc == SIM_ENOTFOUND) { /* no design was refined */
        sim_err_clear(err);
        rc = SIM_OK;
    }
    if (rc != SIM_OK)
        goto done;

    x = sim_xcalloc(p->n_designs + 1, sizeof *x);
    y = sim_xcalloc(p->n_designs + 1, sizeof *y);
    flags = sim_xcalloc(p->n_designs + 1, sizeof *flags);
    for (size_t i = 0; i < p->n_designs; i++) {
        const db_opt_design *dz = &p->designs[i];
        const sweep_row *r = row_of(t[dz->refined ? 1 : 0], dz->case_index);
        x[i] = axis_value(r, &ax);
        y[i] = axis_value(r, &ay);
        flags[i] = (dz->feasible ? PLOT_OPT_FEASIBLE : 0) |
                   (dz->best ? PLOT_OPT_BEST : 0) |
                   (dz->pareto ? PLOT_OPT_PARETO : 0);
    }
    axis_label(t[0], &ax, xl, sizeof xl);
    axis_label(t[0], &ay, yl, sizeof yl);
    /* A constraint on an axis's very metric and statistic is a line. */
    for (size_t k = 0; k < n_con && n_refs < 4; k++) {
        const axis *on = NULL;
        if (!ax.is_key && strcmp(specs[ax.metric], con[k].metric) == 0 &&
            ax.stat == con[k].stat)
            on = &ax;
        else if (strcmp(specs[ay.metric], con[k].metric) == 0 &&
                 ay.stat == con[k].stat)
            on = &ay;
        if (!on)
            continue;
        /* The axis names the metric; the legend says the bound. */
        ref_x[n_refs] = on == &ax;
        ref_v[n_refs] = con[k].bound;
        snprintf(ref_lab[n_refs], sizeof ref_lab[0], "constraint: %s %s %g %s",
                 stat_word(con[k].stat), con[k].ge ? ">=" : "<=", con[k].bound,
                 t[0]->metrics[on->metric].unit);
        n_refs++;
    }
    for (size_t k = 0; k < n_refs; k++)
        refs[k] = (plot_opt_ref){ref_x[k], ref_v[k], ref_lab[k]};
    snprintf(title, sizeof title,
             "%.100s: optimize problem %lld (%zu designs evaluated)",
             p->scenario, (long long)id, p->n_designs);
    rc = plot_optimize(path, x, y, flags, p->n_designs, refs, n_refs, xl, yl,
                       title, err);
    if (rc == SIM_OK && what)
        snprintf(what, what_n,
                 "Optimize problem %lld: evaluated designs, feasible or not, "
                 "the best design%s and the constraint lines",
                 (long long)id, n_obj >= 2 ? ", the Pareto front" : "");
done:
    free(x);
    free(y);
    free(flags);
    sweep_table_free(t[0]);
    sweep_table_free(t[1]);
    db_opt_free(p);
    return rc;
}
