/* app/sweep_table.c: one sweep's cases read back from the results store and
 * summarized (see sweep_table.h). Cost: one db_load_run per case (without
 * steps or events), one case in memory at a time. It reads only what is
 * stored (never runs a case, so `sweep` after an interruption and `report`
 * see the same table) and never prints to stdout itself: the writers take
 * the caller's FILE. */
#include "app/sweep_table.h"
#include "app/opt_spec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "io/json.h"
#include "io/plot_sweep.h"
#include "models/resfield.h"
#include "models/scenkeys.h"
#include "sim/mem.h"

static const char *const default_specs[] = {"#0.time_to_train_days",
                                            "site.renewable_fraction",
                                            "site.co2_t", "site.cost_usd"};

/* Resolves one metric name against the jobs of the sweep. "#0.NAME" is
 * the first job (the default). NAME is a result field's display name or
 * its SI name (models/resfield.h): the value is shown in the unit named. */
int sweep_metric_parse(const char *spec, const db_run_meta *m,
                       sweep_metric_ref *out, sim_err *err)
{
    const char *dot = strrchr(spec, '.');
    const resfield *t;
    int k, disp = 0;
    memset(out, 0, sizeof *out);
    if (!dot || strncmp(spec, "site.", 5) == 0) {
        const char *nm = dot ? spec + 5 : spec;
        k = resfield_find(resfield_site, resfield_n_site, nm, &disp);
        if (k < 0 || !(resfield_site[k].outputs & RESFIELD_RUN))
            return sim_err_set(
                err, SIM_EUSAGE, "--metric", 0,
                "%s: not a site metric (expected site.NAME with a NAME of "
                "docs/results-schema.md, e.g. site.co2_t, or JOB.NAME, e.g. "
                "%s.%s)",
                spec, m->n_jobs ? m->jobs[0].name : "JOB",
                resfield_job[0].disp_name);
        t = &resfield_site[k];
        out->site = 1;
        snprintf(out->name, sizeof out->name, "site.%s", nm);
    } else {
        size_t jl = (size_t)(dot - spec);
        size_t j = m->n_jobs;
        k = resfield_find(resfield_job, resfield_n_job, dot + 1, &disp);
        if (k < 0 || !(resfield_job[k].outputs & RESFIELD_RUN))
            return sim_err_set(
                err, SIM_EUSAGE, "--metric", 0,
                "%s: '%s' is not a job metric (expected e.g. %s, %s)", spec,
                dot + 1, resfield_job[0].disp_name, resfield_job[3].disp_name);
        if (jl == 2 && strncmp(spec, "#0", 2) == 0 && m->n_jobs)
            j = 0;
        for (size_t i = 0; i < m->n_jobs && j == m->n_jobs; i++)
            if (strlen(m->jobs[i].name) == jl &&
                strncmp(m->jobs[i].name, spec, jl) == 0)
                j = i;
        if (j == m->n_jobs)
            return sim_err_set(
                err, SIM_EUSAGE, "--metric", 0,
                "%s: no job named '%.*s' in the scenario (expected one of "
                "the jobs, e.g. %s)",
                spec, (int)jl, spec,
                m->n_jobs ? m->jobs[0].name : "none: use site.NAME");
        t = &resfield_job[k];
        out->site = 0;
        out->job = j;
        snprintf(out->name, sizeof out->name, "%s.%s", m->jobs[j].name,
                 dot + 1);
    }
    out->field = t;
    out->disp = disp;
    out->unit = disp ? t->disp_unit : t->unit;
    return SIM_OK;
}

/* Splits case key "k1=v1;k2=v2" into keys (when keys is not NULL) and
 * values; returns the count. */
static size_t split_key(const char *ck, char **keys, char **vals, size_t max)
{
    size_t n = 0;
    const char *p = ck;
    while (*p && n < max) {
        const char *semi = strchr(p, ';');
        const char *eq = strchr(p, '=');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        if (!eq || eq > p + len)
            eq = p + len;
        if (keys)
            keys[n] = strndup(p, (size_t)(eq - p));
        vals[n] = eq < p + len ? strndup(eq + 1, (size_t)(p + len - eq - 1))
                               : sim_xstrdup("");
        n++;
        p = semi ? semi + 1 : p + len;
    }
    return n;
}

/* Grid order: case_index is the case's place in the grid (models/sweep.h),
 * unique within one sweep key, so the sort is total. */
static int cmp_row(const void *a, const void *b)
{
    const sweep_row *x = a, *y = b;
    return x->case_index < y->case_index ? -1 : x->case_index > y->case_index;
}

/* Why shaped so: two passes over the run list, the first only counting
 * the sweep's complete cases so the rows are allocated once; the first case
 * met fixes the axes (from its case key) and the metrics (resolved against
 * its jobs), and every later case must match them. Rows arrive in store
 * (completion) order and are sorted by case index at the end, so the table
 * does not depend on worker or rank timing. */
int sweep_table_load(db *d, const char *sweep_key, const char *const *specs,
                     size_t n_specs, sweep_table **out, sim_err *err)
{
    db_run_row *runs = NULL;
    size_t n_runs = 0, n_sw = 0;
    sweep_table *t = NULL;
    int rc;

    *out = NULL;
    if ((rc = db_list_runs(d, &runs, &n_runs, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < n_runs; i++)
        n_sw += runs[i].sweep_key &&
                strcmp(runs[i].sweep_key, sweep_key) == 0 &&
                strcmp(runs[i].status, "complete") == 0;
    if (n_sw == 0) {
        db_run_rows_free(runs, n_runs);
        return sim_err_set(err, SIM_ENOTFOUND, NULL, 0,
                           "no finished case of sweep %s", sweep_key);
    }
    t = sim_xcalloc(1, sizeof *t);
    t->sweep_key = sim_xstrdup(sweep_key);
    t->rows = sim_xcalloc(n_sw, sizeof *t->rows);
    for (size_t i = 0; i < n_runs; i++) {
        db_run_row *w = &runs[i];
        db_run *run = NULL;
        sweep_row *row;
        if (!w->sweep_key || strcmp(w->sweep_key, sweep_key) != 0 ||
            strcmp(w->status, "complete") != 0)
            continue;
        if ((rc = db_load_run(d, w->id, 0, &run, err)) != SIM_OK)
            goto fail;
        if (t->n_rows == 0) {
            /* The first case fixes the axes and the metrics. */
            size_t n = 1;
            for (const char *p = w->case_key; *p; p++)
                n += *p == ';';
            t->axis_keys = sim_xcalloc(n, sizeof *t->axis_keys);
            {
                char **tmp = sim_xcalloc(n, sizeof *tmp);
                t->n_axes = split_key(w->case_key, t->axis_keys, tmp, n);
                for (size_t a = 0; a < t->n_axes; a++)
                    free(tmp[a]);
                free(tmp);
            }
            if (n_specs == 0) {
                specs = default_specs;
                n_specs = run->meta.n_jobs ? 4 : 3;
                if (!run->meta.n_jobs)
                    specs = default_specs + 1;
            }
            t->metrics = sim_xcalloc(n_specs, sizeof *t->metrics);
            for (size_t k = 0; k < n_specs; k++)
                if ((rc = sweep_metric_parse(specs[k], &run->meta,
                                             &t->metrics[k], err)) != SIM_OK) {
                    db_run_free(run);
                    goto fail;
                }
            t->n_metrics = n_specs;
        }
        row = &t->rows[t->n_rows++];
        row->run_id = w->id;
        row->case_index = w->case_index;
        row->mpi_rank = w->mpi_rank;
        row->case_key = sim_xstrdup(w->case_key);
        row->values =
            sim_xcalloc(t->n_axes ? t->n_axes : 1, sizeof *row->values);
        if (split_key(w->case_key, NULL, row->values, t->n_axes) != t->n_axes) {
            db_run_free(run);
            rc = sim_err_set(
                err, SIM_ECONFIG, NULL, 0,
                "run %lld: case key '%s' does not match the sweep's keys",
                (long long)w->id, w->case_key);
            goto fail;
        }
        row->sum = sim_xcalloc(t->n_metrics, sizeof *row->sum);
        for (size_t k = 0; k < t->n_metrics; k++) {
            const sweep_metric_ref *m = &t->metrics[k];
            row->sum[k] =
                m->site ? resfield_site_summary(m->field, run->reps,
                                                run->n_reps, m->disp)
                        : resfield_job_summary(m->field, run->reps, run->n_reps,
                                               m->job, m->disp);
        }
        db_run_free(run);
    }
    db_run_rows_free(runs, n_runs);
    qsort(t->rows, t->n_rows, sizeof *t->rows, cmp_row);
    *out = t;
    return SIM_OK;
fail:
    db_run_rows_free(runs, n_runs);
    sweep_table_free(t);
    return rc;
}

void sweep_table_free(sweep_table *t)
{
    if (!t)
        return;
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t a = 0; a < t->n_axes; a++)
            free(t->rows[r].values[a]);
        free(t->rows[r].values);
        free(t->rows[r].sum);
        free(t->rows[r].case_key);
    }
    for (size_t a = 0; a < t->n_axes; a++)
        free(t->axis_keys[a]);
    free(t->axis_keys);
    free(t->rows);
    free(t->metrics);
    free(t->sweep_key);
    free(t);
}

int sweep_table_axis(const sweep_table *t, const char *key)
{
    for (size_t a = 0; a < t->n_axes; a++)
        if (strcmp(t->axis_keys[a], key) == 0)
            return (int)a;
    return -1;
}

/* A swept value as typed JSON: number, boolean or string. */
static jv *value_json(const char *v)
{
    char *e;
    double x = strtod(v, &e);
    size_t n = strlen(v);
    if (*v && *e == '\0' && isfinite(x))
        return jv_num(x);
    if (n >= 2 && v[n - 1] == 'L') {
        char *e2;
        long long y = strtoll(v, &e2, 10);
        if (e2 == v + n - 1)
            return jv_int(y);
    }
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
        return jv_bool(v[0] == 't');
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        char *s = strndup(v + 1, n - 2);
        jv *j = jv_str(s);
        free(s);
        return j;
    }
    return jv_str(v);
}

/* The six statistics of one metric under their names; NAN becomes JSON
 * null in io/json.c, so a job that never finished reads as no value. */
static jv *summary_json(const stat_summary *s)
{
    jv *o = jv_obj();
    jv_set(o, "n", jv_int((int64_t)s->n));
    jv_set(o, "mean", jv_num(s->mean));
    jv_set(o, "p10", jv_num(s->p10));
    jv_set(o, "p50", jv_num(s->p50));
    jv_set(o, "p90", jv_num(s->p90));
    jv_set(o, "min", jv_num(s->min));
    jv_set(o, "max", jv_num(s->max));
    return o;
}

/* {"sweep_key", "cases": [...]}, cases in grid order, each with its
 * overrides typed as the user wrote them (value_json) so a script can
 * filter on numbers without parsing the case key. */
static int write_json(FILE *f, const sweep_table *t)
{
    jv *root = jv_obj(), *cases = jv_arr();
    int rc;
    jv_set(root, "sweep_key", jv_str(t->sweep_key));
    for (size_t r = 0; r < t->n_rows; r++) {
        const sweep_row *w = &t->rows[r];
        jv *c = jv_obj(), *ov = jv_obj(), *ms = jv_obj();
        jv_set(c, "case_index", jv_int(w->case_index));
        jv_set(c, "case_key", jv_str(w->case_key));
        for (size_t a = 0; a < t->n_axes; a++)
            jv_set(ov, t->axis_keys[a], value_json(w->values[a]));
        jv_set(c, "overrides", ov);
        for (size_t k = 0; k < t->n_metrics; k++)
            jv_set(ms, t->metrics[k].name, summary_json(&w->sum[k]));
        jv_set(c, "metrics", ms);
        jv_push(cases, c);
    }
    jv_set(root, "cases", cases);
    rc = jv_write(root, f, 1);
    jv_free(root);
    return rc;
}

/* %.6g, or "-" for NAN (a job that finished in no replication). */
static const char *num(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.6g", v);
    return buf;
}

/* One header row, then one row per case: the case's index and key, its
 * value of each swept key, then six columns per metric (NAME_mean ...
 * NAME_max). Cells go through io/csv.c, which quotes a cell only when it
 * holds a comma, quote or line break. */
static int write_csv(FILE *f, const sweep_table *t)
{
    static const char *const stat[] = {"mean", "p10", "p50",
                                       "p90",  "min", "max"};
    size_t nc = 2 + t->n_axes + 6 * t->n_metrics;
    char **cells = sim_xcalloc(nc, sizeof *cells);
    int rc = SIM_OK;
    size_t c = 0;
    cells[c++] = sim_xstrdup("case_index");
    cells[c++] = sim_xstrdup("case_key");
    for (size_t a = 0; a < t->n_axes; a++)
        cells[c++] = sim_xstrdup(t->axis_keys[a]);
    for (size_t k = 0; k < t->n_metrics; k++)
        for (size_t s = 0; s < 6; s++) {
            char h[260];
            snprintf(h, sizeof h, "%s_%s", t->metrics[k].name, stat[s]);
            cells[c++] = sim_xstrdup(h);
        }
    if (csvt_write_row(f, (const char *const *)cells, nc) != SIM_OK)
        rc = SIM_EIO;
    for (size_t r = 0; r < t->n_rows && rc == SIM_OK; r++) {
        const sweep_row *w = &t->rows[r];
        for (size_t i = 0; i < nc; i++)
            free(cells[i]);
        c = 0;
        {
            char b[32];
            snprintf(b, sizeof b, "%lld", (long long)w->case_index);
            cells[c++] = sim_xstrdup(b);
        }
        cells[c++] = sim_xstrdup(w->case_key);
        for (size_t a = 0; a < t->n_axes; a++)
            cells[c++] = sim_xstrdup(w->values[a]);
        for (size_t k = 0; k < t->n_metrics; k++) {
            const stat_summary *s = &w->sum[k];
            const double v[6] = {s->mean, s->p10, s->p50,
                                 s->p90,  s->min, s->max};
            for (size_t q = 0; q < 6; q++) {
                char b[64];
                /* 17 digits: the CSV is for machines, and must round-trip. */
                if (isnan(v[q]))
                    b[0] = '\0';
                else
                    snprintf(b, sizeof b, "%.17g", v[q]);
                cells[c++] = sim_xstrdup(b);
            }
        }
        if (csvt_write_row(f, (const char *const *)cells, nc) != SIM_OK)
            rc = SIM_EIO;
    }
    for (size_t i = 0; i < nc; i++)
        free(cells[i]);
    free(cells);
    return rc;
}

/* The terminal view: a numbered legend of the metrics with their units,
 * each swept key's column as wide as its longest value, then P10 / P50 /
 * P90 of each metric; the mean, min and max are in the CSV and JSON only,
 * to keep a line short. */
static int write_table(FILE *f, const sweep_table *t)
{
    size_t *wa = sim_xcalloc(t->n_axes ? t->n_axes : 1, sizeof *wa);
    char b[64];
    for (size_t a = 0; a < t->n_axes; a++) {
        wa[a] = strlen(t->axis_keys[a]);
        for (size_t r = 0; r < t->n_rows; r++)
            if (strlen(t->rows[r].values[a]) > wa[a])
                wa[a] = strlen(t->rows[r].values[a]);
    }
    fprintf(f,
            "sweep %s: %zu case(s); each metric as P10 / P50 / P90 over the "
            "replications\n",
            t->sweep_key, t->n_rows);
    for (size_t k = 0; k < t->n_metrics; k++)
        fprintf(f, "  [%zu] %s [%s]\n", k + 1, t->metrics[k].name,
                t->metrics[k].unit);
    fprintf(f, "%5s", "case");
    for (size_t a = 0; a < t->n_axes; a++)
        fprintf(f, "  %*s", (int)wa[a], t->axis_keys[a]);
    for (size_t k = 0; k < t->n_metrics; k++) {
        char h[3][32];
        for (int q = 0; q < 3; q++)
            snprintf(h[q], sizeof h[q], "[%zu] %s", k + 1,
                     q == 0   ? "P10"
                     : q == 1 ? "P50"
                              : "P90");
        fprintf(f, "  %11s %11s %11s", h[0], h[1], h[2]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->n_rows; r++) {
        const sweep_row *w = &t->rows[r];
        fprintf(f, "%5lld", (long long)w->case_index);
        for (size_t a = 0; a < t->n_axes; a++)
            fprintf(f, "  %*s", (int)wa[a], w->values[a]);
        for (size_t k = 0; k < t->n_metrics; k++) {
            fprintf(f, "  %11s", num(b, sizeof b, w->sum[k].p10));
            fprintf(f, " %11s", num(b, sizeof b, w->sum[k].p50));
            fprintf(f, " %11s", num(b, sizeof b, w->sum[k].p90));
        }
        fputc('\n', f);
    }
    free(wa);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

int sweep_table_write(FILE *f, const sweep_table *t, sweep_table_fmt fmt)
{
    if (fmt == SWEEP_TABLE_JSON)
        return write_json(f, t);
    if (fmt == SWEEP_TABLE_CSV)
        return write_csv(f, t);
    return write_table(f, t);
}

/* 1 if every case has the same value of axis k: a key swept over one value
 * (or set alongside a sweep) tells the lines nothing, so it is left out of
 * their labels rather than repeated on every one. */
static int axis_constant(const sweep_table *t, size_t k)
{
    for (size_t r = 1; r < t->n_rows; r++)
        if (strcmp(t->rows[r].values[k], t->rows[0].values[k]) != 0)
            return 0;
    return 1;
}

/* "site carbon emissions", "time to train (submit to end) of llama": the
 * metric in words from the result-field table (issue 24), never its key. */
void sweep_metric_words(const sweep_metric_ref *mr, char *buf, size_t n)
{
    if (mr->site)
        snprintf(buf, n, "site %s", mr->field->label);
    else
        snprintf(
            buf, n, "%s of %.*s", mr->field->label,
            (int)(strchr(mr->name, '.') ? strchr(mr->name, '.') - mr->name : 0),
            mr->name);
}

/* Why shaped so: the chart is the sweep table seen along one axis. The
 * table is loaded with the one metric asked for; each row gives an x (its
 * value of --by, which must be a number) and a y summary, and the values
 * of the other axes name its line, so lines are found by label in one
 * pass (fine for PLOT_SWEEP_MAX_GROUPS lines; a hash would only pay off
 * for charts too crowded to read). Too many lines of one other swept key
 * are thinned to evenly spaced values (the title says so); too many
 * combinations of several keys are refused, not drawn illegibly. A constraint
 * charts its own metric (loaded as a second spec so a --metric spelled
 * differently but naming the same field matches). */
int sweep_chart(db *d, const char *sweep_key, const char *scenario,
                const char *metric, const char *by, const char *constraint,
                const char *path, char *what, size_t what_n, sim_err *err)
{
    opt_spec con;
    char why[512], ref_lab[160];
    const char *specs[2];
    size_t n_specs = 0;
    plot_sweep_ref ref;
    sweep_table *t = NULL;
    double *x = NULL;
    size_t *grp = NULL, ng = 0;
    stat_summary *y = NULL;
    char **names = NULL, title[600], ylab[256], thinned[64] = "";
    size_t n_rows;
    int rc, a, n_other;

    if (constraint &&
        opt_spec_constraint(constraint, &con, why, sizeof why) < 0)
        return sim_err_set(err, SIM_EUSAGE, "--constraint", 0, "%s", why);
    if (metric)
        specs[n_specs++] = metric;
    if (constraint)
        specs[n_specs++] = con.metric;
    if ((rc = sweep_table_load(d, sweep_key, n_specs ? specs : NULL, n_specs,
                               &t, err)) != SIM_OK)
        return rc;
    if (n_specs == 2 && strcmp(t->metrics[0].name, t->metrics[1].name) != 0) {
        rc = sim_err_set(err, SIM_EUSAGE, "--constraint", 0,
                         "%s: the constraint's metric %s is not the charted "
                         "metric %s (leave out --metric, or chart %s)",
                         constraint, t->metrics[1].name, t->metrics[0].name,
                         t->metrics[1].name);
        goto done;
    }
    a = by ? sweep_table_axis(t, by) : 0;
    if (a < 0) {
        char keys[1024] = "";
        for (size_t k = 0; k < t->n_axes; k++)
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s",
                     k ? ", " : "", t->axis_keys[k]);
        rc = sim_err_set(err, SIM_EUSAGE, "--by", 0,
                         "%s: not a swept key (expected one of: %s)", by, keys);
        goto done;
    }
    n_rows = t->n_rows;
    x = sim_xcalloc(t->n_rows + 1, sizeof *x);
    y = sim_xcalloc(t->n_rows + 1, sizeof *y);
    grp = sim_xcalloc(t->n_rows + 1, sizeof *grp);
    names = sim_xcalloc(t->n_rows + 1, sizeof *names);
    for (size_t r = 0; r < t->n_rows; r++) {
        const sweep_row *w = &t->rows[r];
        char *e, label[512] = "";
        size_t g;
        x[r] = strtod(w->values[a], &e);
        if (e == w->values[a] || (*e && strcmp(e, "L") != 0)) {
            rc = sim_err_set(
                err, SIM_EUSAGE, "--by", 0,
                "%s: swept values are not numbers (got %s); chart another key",
                t->axis_keys[a], w->values[a]);
            goto done;
        }
        y[r] = w->sum[0];
        /* The line: the other swept keys' values, in axis order, in words
         * ("battery capacity 40 MWh"), never key paths (issue 24). */
        {
            char raw[512] = "";
            for (size_t k = 0; k < t->n_axes; k++)
                if ((int)k != a && !axis_constant(t, k))
                    snprintf(raw + strlen(raw), sizeof raw - strlen(raw),
                             "%s%s=%s", raw[0] ? ";" : "", t->axis_keys[k],
                             w->values[k]);
            scen_case_label(raw, label, sizeof label);
        }
        for (g = 0; g < ng && strcmp(names[g], label) != 0; g++)
            ;
        if (g == ng)
            names[ng++] = sim_xstrdup(label);
        grp[r] = g;
    }
    n_other = 0;
    for (size_t k = 0; k < t->n_axes; k++)
        n_other += (int)k != a && !axis_constant(t, k);
    if (ng > PLOT_SWEEP_MAX_GROUPS && n_other == 1) {
        /* One other swept key with more values than lines a chart tells
         * apart (a 10 x 10 lattice): draw PLOT_SWEEP_MAX_GROUPS of its
         * values, evenly spaced from the first to the last (lines come in
         * case order, which is the key's value order), and say so in the
         * title, rather than no chart at all. */
        const size_t M = PLOT_SWEEP_MAX_GROUPS;
        size_t *keep = sim_xcalloc(ng, sizeof *keep), m = 0;
        char **kept = sim_xcalloc(M, sizeof *kept);
        for (size_t g = 0; g < ng; g++)
            keep[g] = SIZE_MAX;
        for (size_t i = 0; i < M; i++) {
            size_t g = (2 * i * (ng - 1) + (M - 1)) / (2 * (M - 1));
            keep[g] = i;
            kept[i] = names[g];
        }
        for (size_t r = 0; r < n_rows; r++)
            if (keep[grp[r]] != SIZE_MAX) {
                x[m] = x[r];
                y[m] = y[r];
                grp[m] = keep[grp[r]];
                m++;
            }
        for (size_t g = 0; g < ng; g++)
            if (keep[g] == SIZE_MAX)
                free(names[g]);
        snprintf(thinned, sizeof thinned, " (%zu of %zu lines, evenly spaced)",
                 M, ng);
        memcpy(names, kept, M * sizeof *names);
        free(kept);
        free(keep);
        ng = M;
        n_rows = m;
    }
    if (ng > PLOT_SWEEP_MAX_GROUPS) {
        rc = sim_err_set(err, SIM_EINVAL, path, 0,
                         "%zu combinations of the other swept keys, more "
                         "lines than the %d one chart tells apart; chart "
                         "fewer values or another key with --by",
                         ng, PLOT_SWEEP_MAX_GROUPS);
        goto done;
    }
    /* Words from the tables: the metric's label (models/resfield.h), the
     * job it belongs to, and the swept key's label (models/scenkeys.h). */
    {
        const sweep_metric_ref *mr = &t->metrics[0];
        char what_m[256], xl[256];
        sweep_metric_words(mr, what_m, sizeof what_m);
        scen_key_label(t->axis_keys[a], xl, sizeof xl);
        snprintf(title, sizeof title, "%.120s%s%.150s against %.150s%s",
                 scenario ? scenario : "", scenario ? ": " : "", what_m, xl,
                 thinned);
        snprintf(ylab, sizeof ylab, "%.200s [%.40s]", what_m, mr->unit);
        if (constraint) {
            static const char *const sw[4] = {"mean", "P10", "P50", "P90"};
            snprintf(ref_lab, sizeof ref_lab, "constraint: %s %s %g %s",
                     sw[con.stat & 3], con.ge ? ">=" : "<=", con.bound,
                     mr->unit);
            ref.v = con.bound;
            ref.label = ref_lab;
        }
        rc = plot_sweep(path, x, y, grp, n_rows, (const char *const *)names, ng,
                        constraint ? &ref : NULL, xl, ylab, title, err);
    }
    if (rc == SIM_OK && what)
        snprintf(what, what_n, "Sweep: %s, P50 with the P10-P90 band", title);
done:
    for (size_t g = 0; g < ng; g++)
        free(names[g]);
    free(names);
    free(x);
    free(y);
    free(grp);
    sweep_table_free(t);
    return rc;
}
