/* app/compare_out.c: a comparison (app/compare.h) as a table, CSV or JSON.
 *
 * The three writers walk the same order (site, then each job; within a scope
 * every run field of the result-field registry in registry order; within a
 * field every run, baseline first), so a number found in one output is found
 * in the same place of the others. Values are in each field's display unit,
 * converted here and only here (disp_per of the registry row); percentages
 * are unit-free. Missing values stay missing: a job a run does not have is an
 * empty cell or null, never 0, and a statistic with no finite value is "-" in
 * the table (as `run` prints it) and empty / null in CSV / JSON. Nothing here
 * reads the clock or a path, so the same comparison gives the same bytes. */
#include "app/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "io/json.h"

/* Case key, or "" for a plain run (an empty CSV cell, JSON gets null). */
static const char *case_of(const compare_run *cr)
{
    return cr->run->meta.case_key ? cr->run->meta.case_key : "";
}

/* The four statistics of s in display units (NAN where none). */
static void stats4(const stat_summary *s, double per, double v[4])
{
    const double raw[4] = {s->mean, s->p10, s->p50, s->p90};
    for (int k = 0; k < 4; k++)
        v[k] = s->n > 0 && isfinite(raw[k]) ? raw[k] / per : (double)NAN;
}

/* One table cell: scientific notation only for magnitudes a fixed column
 * cannot show, as io/run_out.c's table does; sign shown for differences. */
static void cell(FILE *f, double v, int sign, int pct)
{
    char b[40];
    if (!isfinite(v))
        snprintf(b, sizeof b, "-");
    else if (pct)
        snprintf(b, sizeof b, sign ? "%+.3g%%" : "%.3g%%", v);
    else if (fabs(v) >= 1e7 || (fabs(v) < 1e-3 && v != 0))
        snprintf(b, sizeof b, sign ? "%+.3e" : "%.3e", v);
    else
        snprintf(b, sizeof b, sign ? "%+.4g" : "%.4g", v);
    fprintf(f, " %11s", b);
}

/* One line per run under a metric's group: the label and [unit] on the
 * baseline's line, the statistics, and for the other runs the differences of
 * the mean and the P50. A missing job leaves every cell blank. */
static void table_group(FILE *f, const compare *c, const resfield *d,
                        const stat_summary *const *s)
{
    char label[120];
    snprintf(label, sizeof label, "%s [%s]", d->label, d->disp_unit);
    for (size_t r = 0; r < c->n_runs; r++) {
        double v[4];
        compare_delta dl;
        fprintf(f, "  %-46s %4zu", r == 0 ? label : "", r + 1);
        if (!s[r]) {
            fputc('\n', f);
            continue;
        }
        stats4(s[r], d->disp_per, v);
        for (int k = 0; k < 4; k++)
            cell(f, v[k], 0, 0);
        if (r > 0) {
            dl = compare_delta_of(s[0], s[r], d->disp_per);
            cell(f, dl.d[0], 1, 0);
            cell(f, dl.pct[0], 1, 1);
            cell(f, dl.d[2], 1, 0);
            cell(f, dl.pct[2], 1, 1);
        }
        fputc('\n', f);
    }
}

static void table_head(FILE *f)
{
    fprintf(f, "  %-46s %4s %11s %11s %11s %11s %11s %11s %11s %11s\n",
            "metric [unit]", "run", "mean", "P10", "P50", "P90", "d mean",
            "d mean %", "d P50", "d P50 %");
}

int compare_write_table(FILE *f, const compare *c)
{
    const stat_summary **s = calloc(c->n_runs, sizeof *s);
    int site_head = 0;
    if (!s)
        return SIM_EIO;
    fprintf(f,
            "compare: %zu run%s; differences (d) against run 1, the "
            "baseline\n",
            c->n_runs, c->n_runs == 1 ? "" : "s");
    fprintf(f, "  %4s %6s  %-24s %-24s %10s %5s  %-10s case\n", "run", "id",
            "named", "scenario", "seed", "reps", "status");
    for (size_t r = 0; r < c->n_runs; r++) {
        const compare_run *cr = &c->runs[r];
        const db_run_meta *m = &cr->run->meta;
        /* The case column last and only when there is one, so no line ends
         * in padding. */
        fprintf(f, "  %4zu %6" PRId64 "  %-24s %-24s %10" PRIu64 " %5zu  ",
                r + 1, cr->id, cr->given, m->scenario, m->seed,
                cr->run->n_reps);
        if (m->case_key)
            fprintf(f, "%-10s %s\n", m->status ? m->status : "complete",
                    m->case_key);
        else
            fprintf(f, "%s\n", m->status ? m->status : "complete");
    }
    for (size_t q = 0; q < resfield_n_site; q++) {
        if (c->site_on[q] && !site_head) {
            fputs("\nsite\n", f);
            table_head(f);
            site_head = 1;
        }
        if (!c->site_on[q])
            continue;
        for (size_t r = 0; r < c->n_runs; r++)
            s[r] = compare_site_stat(c, r, q);
        table_group(f, c, &resfield_site[q], s);
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        int first = 1;
        if (!c->job_on[j])
            continue;
        fprintf(f, "\njob %s", c->jobs[j]);
        for (size_t r = 0; r < c->n_runs; r++)
            if (c->job_at[j * c->n_runs + r] < 0) {
                fprintf(f, "%s%zu", first ? " (not in run " : ", ", r + 1);
                first = 0;
            }
        fputs(first ? "\n" : ")\n", f);
        table_head(f);
        for (size_t q = 0; q < resfield_n_job; q++) {
            if (!c->job_f_on[q])
                continue;
            for (size_t r = 0; r < c->n_runs; r++)
                s[r] = compare_job_stat(c, j, r, q);
            table_group(f, c, &resfield_job[q], s);
        }
    }
    free(s);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

/* %.10g as the run CSV: ten significant digits are more than any result
 * carries; empty for a missing or undefined value. */
static const char *num(char *b, size_t n, double v)
{
    if (isfinite(v))
        snprintf(b, n, "%.10g", v);
    else
        b[0] = '\0';
    return b;
}

enum { CSV_FIXED = 9, CSV_NC = CSV_FIXED + 1 + 5 + 8 };

/* One CSV row of metric d of one scope in run r (s NULL: job missing). */
static int csv_row(FILE *f, const compare *c, int with_ids, const char *scope,
                   const char *job, const resfield *d, size_t r,
                   const stat_summary *s, const stat_summary *base)
{
    const compare_run *cr = &c->runs[r];
    const char *cells[CSV_NC];
    char b[CSV_NC][48];
    size_t k = 0;
    cells[k++] = scope;
    cells[k++] = job;
    cells[k++] = d->disp_name;
    cells[k++] = d->disp_unit;
    snprintf(b[k], sizeof b[k], "%zu", r + 1);
    cells[k] = b[k];
    k++;
    cells[k++] = cr->given;
    if (with_ids) {
        snprintf(b[k], sizeof b[k], "%" PRId64, cr->id);
        cells[k] = b[k];
        k++;
    }
    cells[k++] = cr->run->meta.scenario;
    cells[k++] = case_of(cr);
    if (s) {
        double v[4];
        compare_delta dl = compare_delta_of(base, s, d->disp_per);
        stats4(s, d->disp_per, v);
        snprintf(b[k], sizeof b[k], "%zu", s->n);
        cells[k] = b[k];
        k++;
        for (int q = 0; q < 4; q++, k++)
            cells[k] = num(b[k], sizeof b[k], v[q]);
        for (int q = 0; q < 4; q++) {
            cells[k] = num(b[k], sizeof b[k], dl.d[q]);
            k++;
            cells[k] = num(b[k], sizeof b[k], dl.pct[q]);
            k++;
        }
    } else {
        for (int q = 0; q < 13; q++)
            cells[k++] = "";
    }
    return csvt_write_row(f, cells, k);
}

int compare_write_csv(FILE *f, const compare *c, int with_ids)
{
    const char *hdr[CSV_NC];
    size_t k = 0;
    int rc;
    static const char *const head[] = {"scope", "job", "metric",
                                       "unit",  "run", "name"};
    static const char *const tail[] = {
        "scenario",      "case_key",      "n",
        "mean",          "p10",           "p50",
        "p90",           "delta_mean",    "delta_mean_pct",
        "delta_p10",     "delta_p10_pct", "delta_p50",
        "delta_p50_pct", "delta_p90",     "delta_p90_pct"};
    for (size_t i = 0; i < 6; i++)
        hdr[k++] = head[i];
    if (with_ids)
        hdr[k++] = "run_id";
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        hdr[k++] = tail[i];
    rc = csvt_write_row(f, hdr, k);
    for (size_t q = 0; q < resfield_n_site && rc == SIM_OK; q++)
        if (c->site_on[q])
            for (size_t r = 0; r < c->n_runs && rc == SIM_OK; r++)
                rc = csv_row(f, c, with_ids, "site", "", &resfield_site[q], r,
                             compare_site_stat(c, r, q),
                             compare_site_stat(c, 0, q));
    for (size_t j = 0; j < c->n_jobs && rc == SIM_OK; j++)
        for (size_t q = 0; q < resfield_n_job && rc == SIM_OK; q++)
            if (c->job_on[j] && c->job_f_on[q])
                for (size_t r = 0; r < c->n_runs && rc == SIM_OK; r++)
                    rc = csv_row(f, c, with_ids, "job", c->jobs[j],
                                 &resfield_job[q], r,
                                 compare_job_stat(c, j, r, q),
                                 compare_job_stat(c, j, 0, q));
    return rc;
}

/* {"unit", "label", "runs": [...]} of one metric; null for a missing job. */
static jv *json_metric(const compare *c, const resfield *d,
                       const stat_summary *const *s)
{
    jv *m = jv_obj(), *runs = jv_arr();
    jv_set(m, "unit", jv_str(d->disp_unit));
    jv_set(m, "label", jv_str(d->label));
    for (size_t r = 0; r < c->n_runs; r++) {
        jv *o, *dd, *dp;
        double v[4];
        compare_delta dl;
        if (!s[r]) {
            jv_push(runs, jv_null());
            continue;
        }
        o = jv_obj();
        dd = jv_obj();
        dp = jv_obj();
        stats4(s[r], d->disp_per, v);
        dl = compare_delta_of(s[0], s[r], d->disp_per);
        jv_set(o, "n", jv_int((int64_t)s[r]->n));
        for (int k = 0; k < 4; k++) {
            jv_set(o, compare_stat_names[k], jv_num(v[k]));
            jv_set(dd, compare_stat_names[k], jv_num(dl.d[k]));
            jv_set(dp, compare_stat_names[k], jv_num(dl.pct[k]));
        }
        jv_set(o, "delta", dd);
        jv_set(o, "delta_pct", dp);
        jv_push(runs, o);
    }
    jv_set(m, "runs", runs);
    return m;
}

/* Built as one jv tree and written once (jansson keeps key order), rather
 * than streamed: a comparison is a few hundred kB at most, and a tree cannot
 * emit half an object when a later part fails. The run list first, so a
 * reader knows what "runs": [...] positions mean before meeting them. */
int compare_write_json(FILE *f, const compare *c, int with_ids)
{
    static const char *const how[] = {"run id", "scenario", "case key"};
    jv *root = jv_obj(), *runs = jv_arr(), *site = jv_obj(), *sm = jv_obj(),
       *jobs = jv_arr();
    const stat_summary **s = calloc(c->n_runs + 1, sizeof *s);
    int rc;
    if (!s) {
        jv_free(root);
        return SIM_EIO;
    }
    for (size_t r = 0; r < c->n_runs; r++) {
        const compare_run *cr = &c->runs[r];
        const db_run_meta *m = &cr->run->meta;
        jv *o = jv_obj();
        jv_set(o, "run", jv_int((int64_t)r + 1));
        jv_set(o, "name", jv_str(cr->given));
        jv_set(o, "named_by", jv_str(how[cr->how]));
        if (with_ids)
            jv_set(o, "run_id", jv_int(cr->id));
        jv_set(o, "scenario", jv_str(m->scenario));
        jv_set(o, "case_key", jv_str(m->case_key));
        jv_set(o, "config_hash", jv_str(cr->run->config_hash));
        jv_set(o, "seed", jv_int((int64_t)m->seed));
        jv_set(o, "replications", jv_int((int64_t)cr->run->n_reps));
        jv_set(o, "status", jv_str(m->status ? m->status : "complete"));
        jv_push(runs, o);
    }
    jv_set(root, "baseline", jv_int(1));
    jv_set(root, "runs", runs);
    for (size_t q = 0; q < resfield_n_site; q++) {
        if (!c->site_on[q])
            continue;
        for (size_t r = 0; r < c->n_runs; r++)
            s[r] = compare_site_stat(c, r, q);
        jv_set(sm, resfield_site[q].disp_name,
               json_metric(c, &resfield_site[q], s));
    }
    jv_set(site, "metrics", sm);
    jv_set(root, "site", site);
    for (size_t j = 0; j < c->n_jobs; j++) {
        jv *o, *in, *jm;
        if (!c->job_on[j])
            continue;
        o = jv_obj();
        in = jv_arr();
        jm = jv_obj();
        jv_set(o, "name", jv_str(c->jobs[j]));
        for (size_t r = 0; r < c->n_runs; r++)
            jv_push(in, jv_bool(c->job_at[j * c->n_runs + r] >= 0));
        jv_set(o, "in_runs", in);
        for (size_t q = 0; q < resfield_n_job; q++) {
            if (!c->job_f_on[q])
                continue;
            for (size_t r = 0; r < c->n_runs; r++)
                s[r] = compare_job_stat(c, j, r, q);
            jv_set(jm, resfield_job[q].disp_name,
                   json_metric(c, &resfield_job[q], s));
        }
        jv_set(o, "metrics", jm);
        jv_push(jobs, o);
    }
    jv_set(root, "jobs", jobs);
    rc = jv_write(root, f, 1);
    jv_free(root);
    free(s);
    return rc;
}
