/* app/compare.c: naming, loading and matching the runs of a comparison (see
 * compare.h); the three outputs are in app/compare_out.c.
 *
 * Resolution works on the store's run list (one query, db_list_runs) rather
 * than a query per name: a comparison names a handful of runs and the list is
 * one row per stored run, so a linear scan per name is cheaper than the
 * statements it would replace and keeps the rules in C, in one place. The
 * job matching is a table n_jobs x n_runs of indices into each run's jobs,
 * built once, so every output asks "job j in run r" in O(1) and a missing job
 * is -1 everywhere, never a zero-filled summary. This file never prints: the
 * notes of what a name resolved to are returned for the command to show. */
#include "app/compare.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

const char *const compare_stat_names[4] = {"mean", "p10", "p50", "p90"};

static int all_digits(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* Appends ", ID" (or "ID" first) to buf, keeping it a valid string when
 * full. */
static void add_id(char *buf, size_t n, int64_t id)
{
    size_t len = strlen(buf);
    if (len + 2 < n)
        snprintf(buf + len, n - len, "%s%" PRId64, len ? ", " : "", id);
}

/* The distinct scenario names of the store, for the message of an unknown
 * name: what the user could have meant. */
static void scenario_list(const db_run_row *rows, size_t n, char *buf,
                          size_t nb)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        size_t len = strlen(buf);
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(rows[k].scenario, rows[i].scenario) == 0;
        if (!seen && len + 3 < nb)
            snprintf(buf + len, nb - len, "%s%s", len ? ", " : "",
                     rows[i].scenario);
    }
}

/* The rules are the file note of compare.h, in its order. A scenario name
 * takes the latest plain run because that is what "the Iceland run" means to
 * a planner; sweep cases of the scenario are left to their case keys, since
 * "the latest case" of a sweep is an accident of completion order. A case key
 * found under two sweeps is refused rather than guessed, with the ids, so the
 * user can name the one meant. */
int compare_resolve(const db_run_row *rows, size_t n_rows, const char *name,
                    const char *dbpath, int64_t *id, compare_how *how,
                    char *note, size_t n_note, sim_err *err)
{
    size_t n_scn = 0, n_plain = 0, n_case = 0;
    long latest = -1, case_row = -1;
    const char *case_sweep = NULL;
    int other_sweep = 0;
    char ids[200] = "";
    if (note && n_note)
        note[0] = '\0';
    if (all_digits(name)) {
        int64_t want = strtoll(name, NULL, 10);
        for (size_t i = 0; i < n_rows; i++)
            if (rows[i].id == want) {
                *id = want;
                *how = COMPARE_BY_ID;
                return SIM_OK;
            }
        return sim_err_set(err, SIM_ENOTFOUND, dbpath, 0,
                           "--runs: %s: no run with that id", name);
    }
    for (size_t i = 0; i < n_rows; i++) {
        const db_run_row *w = &rows[i];
        if (strcmp(w->scenario, name) == 0) {
            n_scn++;
            if (!w->sweep_key) {
                n_plain++;
                latest = (long)i; /* rows are in id order */
            }
        }
        if (w->case_key && strcmp(w->case_key, name) == 0) {
            n_case++;
            add_id(ids, sizeof ids, w->id);
            if (!case_sweep)
                case_sweep = w->sweep_key;
            else if (strcmp(case_sweep, w->sweep_key) != 0)
                other_sweep = 1;
            /* Within one sweep a case is stored complete once; an
             * interrupted attempt may precede it. Take the complete one. */
            if (case_row < 0 || !rows[case_row].status ||
                strcmp(rows[case_row].status, "complete") != 0 ||
                (w->status && strcmp(w->status, "complete") == 0))
                case_row = (long)i;
        }
    }
    if (n_scn > 0 && n_case > 0)
        return sim_err_set(err, SIM_ECONFIG, dbpath, 0,
                           "--runs: %s is ambiguous: both a scenario name and "
                           "a sweep case key (runs %s); name the run by id",
                           name, ids);
    if (n_case > 0) {
        if (other_sweep)
            return sim_err_set(err, SIM_ECONFIG, dbpath, 0,
                               "--runs: %s is ambiguous: a case of more than "
                               "one sweep (runs %s); name the run by id",
                               name, ids);
        *id = rows[case_row].id;
        *how = COMPARE_BY_CASE;
        if (note && n_note)
            snprintf(note, n_note,
                     "%s: run %" PRId64 ", a case of a sweep of scenario %s",
                     name, *id, rows[case_row].scenario);
        return SIM_OK;
    }
    if (n_scn > 0) {
        if (latest < 0)
            return sim_err_set(err, SIM_ECONFIG, dbpath, 0,
                               "--runs: %s: only sweep cases of this scenario "
                               "are stored (%zu runs); name one by its case "
                               "key or run id",
                               name, n_scn);
        *id = rows[latest].id;
        *how = COMPARE_BY_SCENARIO;
        if (note && n_note)
            snprintf(note, n_note,
                     "%s: run %" PRId64 ", the latest of %zu stored run%s of "
                     "this scenario",
                     name, *id, n_plain, n_plain == 1 ? "" : "s");
        return SIM_OK;
    }
    {
        char scn[600];
        scenario_list(rows, n_rows, scn, sizeof scn);
        return sim_err_set(err, SIM_ENOTFOUND, dbpath, 0,
                           "--runs: %s: no run id, scenario or sweep case key "
                           "of that name (scenarios stored: %s)",
                           name, n_rows ? scn : "none");
    }
}

/* Job names in first-appearance order and the index table; quadratic in the
 * number of jobs, which is tens at most. */
static void match_jobs(compare *c)
{
    size_t cap = 0;
    for (size_t r = 0; r < c->n_runs; r++)
        cap += c->runs[r].run->meta.n_jobs;
    c->jobs = sim_xcalloc(cap + 1, sizeof *c->jobs);
    for (size_t r = 0; r < c->n_runs; r++) {
        const db_run_meta *m = &c->runs[r].run->meta;
        for (size_t j = 0; j < m->n_jobs; j++) {
            size_t k = 0;
            while (k < c->n_jobs && strcmp(c->jobs[k], m->jobs[j].name) != 0)
                k++;
            if (k == c->n_jobs)
                c->jobs[c->n_jobs++] = sim_xstrdup(m->jobs[j].name);
        }
    }
    c->job_at = sim_xcalloc(c->n_jobs * c->n_runs + 1, sizeof *c->job_at);
    c->job_on = sim_xcalloc(c->n_jobs + 1, 1);
    memset(c->job_on, 1, c->n_jobs);
    c->site_on = sim_xcalloc(resfield_n_site, 1);
    c->job_f_on = sim_xcalloc(resfield_n_job, 1);
    for (size_t q = 0; q < resfield_n_site; q++)
        c->site_on[q] = (resfield_site[q].outputs & RESFIELD_RUN) != 0;
    for (size_t q = 0; q < resfield_n_job; q++)
        c->job_f_on[q] = (resfield_job[q].outputs & RESFIELD_RUN) != 0;
    for (size_t k = 0; k < c->n_jobs; k++)
        for (size_t r = 0; r < c->n_runs; r++) {
            const db_run_meta *m = &c->runs[r].run->meta;
            long at = -1;
            for (size_t j = 0; j < m->n_jobs && at < 0; j++)
                if (strcmp(m->jobs[j].name, c->jobs[k]) == 0)
                    at = (long)j;
            c->job_at[k * c->n_runs + r] = at;
        }
}

int compare_load(db *d, const char *dbpath, const char *const *names, size_t n,
                 compare **out, sim_err *err)
{
    db_run_row *rows = NULL;
    size_t n_rows = 0;
    compare *c;
    int rc;
    *out = NULL;
    if (n == 0)
        return sim_err_set(err, SIM_EINVAL, dbpath, 0, "--runs: no run named");
    if ((rc = db_list_runs(d, &rows, &n_rows, err)) != SIM_OK)
        return rc;
    c = sim_xcalloc(1, sizeof *c);
    c->runs = sim_xcalloc(n, sizeof *c->runs);
    for (size_t i = 0; i < n && rc == SIM_OK; i++) {
        compare_run *cr = &c->runs[i];
        cr->given = sim_xstrdup(names[i]);
        c->n_runs = i + 1;
        rc = compare_resolve(rows, n_rows, names[i], dbpath, &cr->id, &cr->how,
                             cr->note, sizeof cr->note, err);
        if (rc == SIM_OK)
            rc = db_load_run(d, cr->id, 0, &cr->run, err);
    }
    db_run_rows_free(rows, n_rows);
    if (rc != SIM_OK) {
        compare_free(c);
        return rc;
    }
    match_jobs(c);
    *out = c;
    return SIM_OK;
}

/* Split here rather than in each command, so `compare --runs` and `report
 * --runs` read a list the same way. An empty item can only be a typo, so it
 * is refused rather than skipped. */
int compare_load_list(db *d, const char *dbpath, const char *list,
                      compare **out, sim_err *err)
{
    size_t cap = 1, n = 0;
    char **v;
    const char *p = list;
    int rc = SIM_OK;
    *out = NULL;
    for (const char *q = list; *q; q++)
        cap += *q == ',';
    v = sim_xcalloc(cap + 1, sizeof *v);
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0) {
            rc = sim_err_set(err, SIM_EUSAGE, NULL, 0,
                             "--runs: empty name in '%s'", list);
            break;
        }
        v[n] = sim_xcalloc(len + 1, 1);
        memcpy(v[n++], p, len);
        if (!e)
            break;
        p = e + 1;
    }
    if (rc == SIM_OK)
        rc = compare_load(d, dbpath, (const char *const *)v, n, out, err);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return rc;
}

/* The next comma-separated item of *p into buf (at most n - 1 bytes);
 * advances *p past it. Returns 0 at the end, -1 for an empty item. */
static int next_item(const char **p, char *buf, size_t n)
{
    const char *e;
    size_t len;
    if (!*p)
        return 0;
    e = strchr(*p, ',');
    len = e ? (size_t)(e - *p) : strlen(*p);
    if (len == 0)
        return -1;
    snprintf(buf, n, "%.*s", (int)len, *p);
    *p = e ? e + 1 : NULL;
    return 1;
}

/* Two passes over each list: names are checked before anything is switched
 * off, so a bad name leaves the selection as it was. */
int compare_select(compare *c, const char *jobs, const char *metrics,
                   sim_err *err)
{
    char item[200];
    const char *p;
    int k;
    if (jobs) {
        for (p = jobs; (k = next_item(&p, item, sizeof item)) != 0;) {
            size_t j = 0;
            if (k < 0)
                return sim_err_set(err, SIM_EUSAGE, NULL, 0,
                                   "--jobs: empty name in '%s'", jobs);
            while (j < c->n_jobs && strcmp(c->jobs[j], item) != 0)
                j++;
            if (j == c->n_jobs)
                return sim_err_set(err, SIM_ENOTFOUND, NULL, 0,
                                   "--jobs: %s: no job of that name in the "
                                   "runs compared",
                                   item);
        }
        memset(c->job_on, 0, c->n_jobs);
        for (p = jobs; next_item(&p, item, sizeof item) > 0;)
            for (size_t j = 0; j < c->n_jobs; j++)
                if (strcmp(c->jobs[j], item) == 0)
                    c->job_on[j] = 1;
    }
    if (metrics) {
        for (p = metrics; (k = next_item(&p, item, sizeof item)) != 0;) {
            if (k < 0)
                return sim_err_set(err, SIM_EUSAGE, NULL, 0,
                                   "--metrics: empty name in '%s'", metrics);
            if (resfield_find(resfield_site, resfield_n_site, item, NULL) < 0 &&
                resfield_find(resfield_job, resfield_n_job, item, NULL) < 0)
                return sim_err_set(err, SIM_EUSAGE, NULL, 0,
                                   "--metrics: %s: no result field of that "
                                   "name (factorysim schema lists them)",
                                   item);
        }
        memset(c->site_on, 0, resfield_n_site);
        memset(c->job_f_on, 0, resfield_n_job);
        for (p = metrics; next_item(&p, item, sizeof item) > 0;) {
            int f = resfield_find(resfield_site, resfield_n_site, item, NULL);
            if (f >= 0)
                c->site_on[f] = 1;
            f = resfield_find(resfield_job, resfield_n_job, item, NULL);
            if (f >= 0)
                c->job_f_on[f] = 1;
        }
    }
    return SIM_OK;
}

void compare_free(compare *c)
{
    if (!c)
        return;
    for (size_t r = 0; r < c->n_runs; r++) {
        free(c->runs[r].given);
        db_run_free(c->runs[r].run);
    }
    for (size_t k = 0; k < c->n_jobs; k++)
        free(c->jobs[k]);
    free(c->runs);
    free(c->jobs);
    free(c->job_at);
    free(c->job_on);
    free(c->site_on);
    free(c->job_f_on);
    free(c);
}

const stat_summary *compare_job_stat(const compare *c, size_t j, size_t r,
                                     size_t f)
{
    long at = c->job_at[j * c->n_runs + r];
    if (at < 0)
        return NULL;
    return &c->runs[r].run->job_summary[(size_t)at * resfield_n_job + f];
}

const stat_summary *compare_site_stat(const compare *c, size_t r, size_t f)
{
    return &c->runs[r].run->site_summary[f];
}

compare_delta compare_delta_of(const stat_summary *base, const stat_summary *x,
                               double scale)
{
    compare_delta o;
    for (int k = 0; k < 4; k++)
        o.d[k] = o.pct[k] = NAN;
    if (!base || !x || base->n == 0 || x->n == 0)
        return o;
    {
        const double b[4] = {base->mean, base->p10, base->p50, base->p90};
        const double v[4] = {x->mean, x->p10, x->p50, x->p90};
        for (int k = 0; k < 4; k++) {
            if (!isfinite(b[k]) || !isfinite(v[k]))
                continue;
            o.d[k] = (v[k] - b[k]) / scale;
            /* Percent of the baseline's magnitude, so a drop is negative
             * whatever the baseline's sign; undefined against zero. */
            if (b[k] != 0)
                o.pct[k] = 100.0 * (v[k] - b[k]) / fabs(b[k]);
        }
    }
    return o;
}
