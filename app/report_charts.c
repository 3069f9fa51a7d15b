/* app/report_charts.c: the report's chart list (see report_charts.h). One
 * draw function per chart; each picks what it needs from the stored run:
 * the series of the first replication that stored one, the event log of the
 * first that stored one, summaries across replications. It draws only from
 * what is stored (never reruns a case) and never writes anything but the
 * chart files into the report folder. */
#include "app/report_charts.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/opt_chart.h"
#include "app/sweep_table.h"
#include "io/cfg.h"
#include "io/plot_charts.h"
#include "io/plot_compare.h"
#include "io/plot_views.h"
#include "models/resfield.h"
#include "models/scenkeys.h"
#include "sim/mem.h"

/* Charts past REPORT_MAX_CHARTS are still drawn, only not listed (see
 * report_charts.h); the fixed arrays keep report_out one allocation. */
void report_out_add(report_out *o, const char *file, const char *what)
{
    if (o->n >= REPORT_MAX_CHARTS)
        return;
    snprintf(o->file[o->n], sizeof o->file[0], "%s", file);
    snprintf(o->what[o->n], sizeof o->what[0], "%s", what);
    o->meta[o->n] = *plot_last_meta();
    o->n++;
}

void report_out_skip(report_out *o, const char *what, const char *why)
{
    if (o->n_skipped >= REPORT_MAX_CHARTS)
        return;
    snprintf(o->skipped[o->n_skipped++], sizeof o->skipped[0],
             "%.120s (%.170s)", what, why);
}

/* Sets file = base.ext and path = dir/file. */
static void name(const report_out *o, const char *base, char *file, size_t nf,
                 char *path, size_t np)
{
    snprintf(file, nf, "%s.%s", base, o->ext);
    snprintf(path, np, "%s/%s", o->dir, file);
}

/* Notes the outcome of one drawing: drawn, or nothing to draw (SIM_EINVAL,
 * noted as not drawn). Returns what the caller should return. */
static int noted(int rc, report_out *o, const char *file, const char *what,
                 sim_err *e)
{
    if (rc == SIM_OK)
        report_out_add(o, file, what);
    else if (rc == SIM_EINVAL)
        report_out_skip(o, what, e->msg);
    if (rc == SIM_EINVAL)
        sim_err_clear(e);
    return rc == SIM_EINVAL ? SIM_OK : rc;
}

/* The first replication that stored a series (NULL if none), and its
 * index. */
static const res_rep *series_rep(const db_run *r, size_t *k)
{
    for (size_t i = 0; i < r->n_reps; i++)
        if (r->reps[i].n_steps > 0) {
            *k = i;
            return &r->reps[i];
        }
    return NULL;
}

/* The date a key of the stored configuration holds ("YYYY-MM-DD"), as days
 * since 1970-01-01, searching from *from; advances *from past it. The stored
 * text is the resolved configuration libconfig wrote, so a plain search for
 * KEY = "DATE" finds it; 0 when absent. */
static int find_date(const char *text, const char *key, const char **from,
                     int64_t *days)
{
    const char *p = text ? strstr(*from ? *from : text, key) : NULL;
    const char *q;
    char d[11];
    if (!p)
        return 0;
    q = strchr(p, '"');
    *from = p + strlen(key);
    if (!q || strlen(q) < 12 || q[11] != '"')
        return 0;
    memcpy(d, q + 1, 10);
    d[10] = '\0';
    return cfg_parse_date(d, days) == 0;
}

/* The scenario's start as Unix seconds (NAN when the stored configuration
 * has no start date, as hand-made fixtures). */
static double start_unix_s(const db_run *r)
{
    const char *from = NULL;
    int64_t days;
    return find_date(r->meta.config_text, "start_date", &from, &days)
               ? (double)days * 86400.0
               : (double)NAN;
}

/* "SCENARIO" or "SCENARIO (case: solar capacity 10 MW)", so a chart from a
 * sweep case says which case it is, in words rather than key paths. */
static void who(const db_run *r, char *buf, size_t n)
{
    if (r->meta.case_key) {
        char c[400];
        scen_case_label(r->meta.case_key, c, sizeof c);
        snprintf(buf, n, "%.150s (case: %.200s)", r->meta.scenario, c);
    } else {
        snprintf(buf, n, "%s", r->meta.scenario);
    }
}

/* The series view of replication k with the site's reference lines: IT
 * capacity from the run, the grid contract as the sum of its grid sources'
 * power. */
static plot_series series_of(const db_run *r, const res_rep *ts, size_t k)
{
    plot_series ps;
    ps.steps = ts->steps;
    ps.dt_s = r->step_dt_s ? r->step_dt_s[k] : NULL;
    ps.n = ts->n_steps;
    ps.t0_unix_s = start_unix_s(r);
    ps.it_capacity_w = r->meta.it_capacity_w;
    ps.contract_w = 0;
    for (size_t i = 0; i < r->meta.n_sources; i++)
        if (r->meta.sources[i].kind &&
            strcmp(r->meta.sources[i].kind, "grid") == 0)
            ps.contract_w += r->meta.sources[i].power_w;
    return ps;
}

typedef int (*view_fn)(const char *, const plot_series *, const char *,
                       sim_err *);

/* The series charts share everything but the drawing function, the file
 * name and the words: find the series, build the title, draw, note. */
static int draw_view(const report_src *s, report_out *o, const char *base,
                     const char *what, const char *subject, view_fn fn,
                     sim_err *e)
{
    char file[80], path[1200], title[1024], w[400];
    size_t k = 0;
    const res_rep *ts = series_rep(s->run, &k);
    plot_series ps;
    if (!ts) {
        report_out_skip(o, what, "no time series stored with this run");
        return SIM_OK;
    }
    ps = series_of(s->run, ts, k);
    who(s->run, w, sizeof w);
    name(o, base, file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: %s (replication %u)", w, subject,
             ts->replication);
    return noted(fn(path, &ps, title, e), o, file, what, e);
}

static int draw_power(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "power",
                     "Power by source (daily means), unserved demand, IT "
                     "capacity and supply contract",
                     "power by source", plot_power_stack, e);
}

static int draw_monthly_energy(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "monthly_energy",
                     "Energy per calendar month by source, with demand and "
                     "unserved energy",
                     "energy per month by source", plot_monthly_energy, e);
}

static int draw_typical_day(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "typical_day",
                     "Typical day of each month: sources, battery charging, "
                     "demand and unserved power by hour",
                     "typical day per month", plot_typical_day, e);
}

static int draw_power_heatmap(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "power_heatmap",
                     "Facility load (and any shortfall) by day and hour",
                     "load by day and hour", plot_power_heatmap, e);
}

static int draw_load_duration(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "load_duration",
                     "Load duration curve against IT capacity and supply "
                     "contract",
                     "load duration curve", plot_load_duration, e);
}

static int draw_battery_heatmap(const report_src *s, report_out *o, sim_err *e)
{
    return draw_view(s, o, "battery_heatmap",
                     "Battery state of charge by day and hour, and its health",
                     "battery state of charge and health", plot_battery_heatmap,
                     e);
}

static int draw_battery_soc(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] = "Battery state of charge and health";
    char file[80], path[1200], title[1024], w[400];
    size_t k = 0;
    const res_rep *ts = series_rep(s->run, &k);
    if (!ts) {
        report_out_skip(o, what, "no time series stored with this run");
        return SIM_OK;
    }
    who(s->run, w, sizeof w);
    name(o, "battery_soc", file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: battery (replication %u)", w,
             ts->replication);
    return noted(plot_battery_soc(path, ts->steps, ts->n_steps,
                                  start_unix_s(s->run), title, e),
                 o, file, what, e);
}

/* Job names in scenario order (caller frees the array, not the names). */
static const char **job_names(const db_run *r)
{
    const char **names = sim_xcalloc(r->meta.n_jobs + 1, sizeof *names);
    for (size_t j = 0; j < r->meta.n_jobs; j++)
        names[j] = r->meta.jobs[j].name;
    return names;
}

/* The timeline of the first replication that stored its event log; without
 * one, the bars come from the job results alone and the chart says so in its
 * title, so missing marks are not read as "no interruptions". Commissioning
 * dates are read from the stored configuration. */
static int draw_jobs_gantt(const report_src *s, report_out *o, sim_err *e)
{
    const db_run *r = s->run;
    const res_rep *ev = &r->reps[0];
    const char **names = job_names(r);
    char file[80], path[1200], title[1024], w[400];
    double comm[64];
    const char *from = NULL;
    int64_t day, start_day;
    int has_log = 0, rc;
    plot_gantt_ctx ctx;
    for (size_t k = 0; k < r->n_reps; k++)
        if (r->reps[k].n_events > 0) {
            ev = &r->reps[k];
            has_log = 1;
            break;
        }
    ctx.horizon_s = r->meta.horizon_s;
    ctx.t0_unix_s = start_unix_s(r);
    ctx.commission_s = comm;
    ctx.n_commission = 0;
    if (isfinite(ctx.t0_unix_s)) {
        start_day = (int64_t)(ctx.t0_unix_s / 86400.0);
        while (ctx.n_commission < 64 &&
               find_date(r->meta.config_text, "commission_date", &from, &day))
            comm[ctx.n_commission++] = (double)(day - start_day) * 86400.0;
    }
    /* Modules given as days after the start (commission_days = 20.0). */
    for (const char *q = r->meta.config_text;
         q && (q = strstr(q, "commission_days")) != NULL &&
         ctx.n_commission < 64;) {
        char *end;
        double d;
        q += strlen("commission_days");
        while (*q == ' ' || *q == '=' || *q == ':')
            q++;
        d = strtod(q, &end);
        if (end != q && isfinite(d))
            comm[ctx.n_commission++] = d * 86400.0;
    }
    who(r, w, sizeof w);
    name(o, "jobs_gantt", file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: job timeline (replication %u%s)", w,
             ev->replication, has_log ? "" : ", no event log stored");
    rc = noted(plot_gantt(path, names, ev->jobs, r->meta.n_jobs, ev->events,
                          ev->n_events, &ctx, title, e),
               o, file,
               has_log ? "Job timeline with interruptions and pauses"
                       : "Job timeline (no event log stored)",
               e);
    free(names);
    return rc;
}

static int draw_time_to_train(const report_src *s, report_out *o, sim_err *e)
{
    const db_run *r = s->run;
    double *x = sim_xcalloc(r->n_reps + 1, sizeof *x);
    int rc = SIM_OK;
    char ttl[1024], w[400];
    who(r, w, sizeof w);
    snprintf(ttl, sizeof ttl, "%s: time to train", w);
    for (size_t j = 0; j < r->meta.n_jobs && rc == SIM_OK; j++) {
        char base[40], what[200], file[80], path[1200];
        const char *job = r->meta.jobs[j].name;
        for (size_t k = 0; k < r->n_reps; k++)
            x[k] = r->reps[k].jobs[j].time_to_train_s;
        snprintf(base, sizeof base, "time_to_train_%zu", j + 1);
        snprintf(what, sizeof what,
                 "Time to train of %.150s across replications", job);
        name(o, base, file, sizeof file, path, sizeof path);
        rc = noted(plot_time_to_train(path, job, x, r->n_reps, ttl, e), o, file,
                   what, e);
    }
    free(x);
    return rc;
}

static int draw_energy_by_source(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] = "Energy per training run by source";
    const db_run *r = s->run;
    size_t nj = r->meta.n_jobs;
    double *by = sim_xcalloc(nj * SRC_N + 1, sizeof *by);
    stat_summary *fac = sim_xcalloc(nj + 1, sizeof *fac);
    const char **names = job_names(r);
    char w[400];
    int ffac =
        resfield_find(resfield_job, resfield_n_job, "facility_energy_j", NULL);
    char file[80], path[1200], title[1024];
    int rc;
    for (size_t j = 0; j < nj; j++) {
        for (int k = 0; k < SRC_N; k++) {
            char field[48];
            int f;
            snprintf(field, sizeof field, "energy_%s_j", source_table[k].name);
            f = resfield_find(resfield_job, resfield_n_job, field, NULL);
            by[j * SRC_N + (size_t)k] =
                r->job_summary[j * resfield_n_job + (size_t)f].mean;
        }
        fac[j] = r->job_summary[j * resfield_n_job + (size_t)ffac];
    }
    who(r, w, sizeof w);
    snprintf(title, sizeof title,
             "%s: energy per training run by source (mean)", w);
    name(o, "energy_by_source", file, sizeof file, path, sizeof path);
    rc = noted(plot_energy_by_source(path, names, by, fac, nj, title, e), o,
               file, what, e);
    free(by);
    free(fac);
    free(names);
    return rc;
}

/* The sweep chart (app/sweep_table.h) over every case of the sweep the run
 * belongs to. One it cannot draw well (more lines than colours tell apart,
 * a default swept key with text values) is noted as not drawn; only a
 * --metric/--by/--constraint the user gave that is wrong stays an error. */
static int draw_sweep(const report_src *s, report_out *o, sim_err *e)
{
    char file[80], path[1200], what[200];
    int rc;
    char *stored_con = NULL;
    if (!s->run->meta.sweep_key)
        return SIM_OK; /* not a sweep case: nothing to note */
    /* Without --constraint (and --metric), the first constraint of the
     * newest optimize problem run on this sweep is the one that matters. */
    if (!s->sw_constraint && !s->sw_metric) {
        int64_t id;
        db_opt_problem *p = NULL;
        if (db_opt_find_sweep(s->d, s->run->meta.sweep_key, &id, e) == SIM_OK &&
            db_opt_load(s->d, id, &p, e) == SIM_OK)
            for (size_t i = 0; i < p->n_terms && !stored_con; i++)
                if (p->terms[i].role == DB_OPT_CONSTRAINT)
                    stored_con = sim_xstrdup(p->terms[i].text);
        db_opt_free(p);
        sim_err_clear(e);
    }
    snprintf(file, sizeof file, "sweep%s%.50s.%s", s->sw_by ? "_" : "",
             s->sw_by ? s->sw_by : "", o->ext);
    for (char *q = file; *q && strcmp(q, o->ext) != 0; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-')
            *q = '_';
    file[strlen(file) - strlen(o->ext) - 1] = '.';
    snprintf(path, sizeof path, "%s/%s", o->dir, file);
    rc = sweep_chart(s->d, s->run->meta.sweep_key, s->run->meta.scenario,
                     s->sw_metric, s->sw_by,
                     s->sw_constraint ? s->sw_constraint
                                      : (s->sw_metric ? NULL : stored_con),
                     path, what, sizeof what, e);
    free(stored_con);
    if (rc == SIM_OK)
        report_out_add(o, file, what);
    else if (rc == SIM_EINVAL || (rc == SIM_EUSAGE && !s->sw_metric &&
                                  !s->sw_by && !s->sw_constraint)) {
        report_out_skip(o, "sweep chart", e->msg);
        sim_err_clear(e);
        rc = SIM_OK;
    }
    return rc;
}

/* How the comparison chart names run k: the scenario when the user named
 * it so, else the scenario with the run id or the case in words, so two
 * runs of one scenario stay apart. */
static void cmp_label(const compare_run *cr, char *buf, size_t n)
{
    const db_run_meta *m = &cr->run->meta;
    if (m->case_key) {
        char c[200];
        scen_case_label(m->case_key, c, sizeof c);
        snprintf(buf, n, "%.40s (%.50s)", m->scenario, c);
    } else if (cr->how == COMPARE_BY_ID) {
        snprintf(buf, n, "run %" PRId64 ": %.60s", cr->id, m->scenario);
    } else {
        snprintf(buf, n, "%.80s", m->scenario);
    }
}

/* report --runs (issue 25): each job's time to train and the site's
 * facility energy and energy cost, P10-P90 with the P50, one colour per
 * run. The fields are looked up in the registry and drawn in their display
 * units with its labels, the same numbers `compare` prints. A job a run
 * does not have, or that never finished there, leaves its lane empty. */
static int draw_compare(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] =
        "Runs compared: time to train per job, site energy and cost";
    static const char *const site_f[] = {"facility_energy_j", "cost_usd"};
    const compare *c = s->cmp;
    const char *site_row[1] = {"site"};
    int ft =
        resfield_find(resfield_job, resfield_n_job, "time_to_train_s", NULL);
    plot_cmp_panel pn[3];
    char xl[3][80], pt[2][100], lab[PLOT_CMP_MAX_RUNS][160], file[80],
        path[1200], title[300];
    const char *labp[PLOT_CMP_MAX_RUNS];
    stat_summary *buf;
    size_t nr;
    int rc;
    if (!c)
        return SIM_OK; /* a one-run report: nothing to note */
    nr = c->n_runs;
    if (nr > PLOT_CMP_MAX_RUNS) {
        report_out_skip(o, what, "more runs than colours tell apart");
        return SIM_OK;
    }
    buf = sim_xcalloc((c->n_jobs + 2) * nr, sizeof *buf);
    for (size_t r = 0; r < nr; r++) {
        cmp_label(&c->runs[r], lab[r], sizeof lab[r]);
        labp[r] = lab[r];
        for (size_t j = 0; j < c->n_jobs; j++) {
            const stat_summary *x = compare_job_stat(c, j, r, (size_t)ft);
            stat_summary *y = &buf[j * nr + r];
            if (x) {
                double per = resfield_job[ft].disp_per;
                *y = *x;
                y->mean /= per, y->p10 /= per, y->p50 /= per, y->p90 /= per;
            }
        }
        for (size_t k = 0; k < 2; k++) {
            int f =
                resfield_find(resfield_site, resfield_n_site, site_f[k], NULL);
            double per = resfield_site[f].disp_per;
            stat_summary *y = &buf[(c->n_jobs + k) * nr + r];
            *y = *compare_site_stat(c, r, (size_t)f);
            y->mean /= per, y->p10 /= per, y->p50 /= per, y->p90 /= per;
        }
    }
    snprintf(xl[0], sizeof xl[0], "%s [%s]", resfield_job[ft].label,
             resfield_job[ft].disp_unit);
    pn[0] = (plot_cmp_panel){"time to train per job", xl[0], c->n_jobs,
                             (const char *const *)c->jobs, buf};
    for (size_t k = 0; k < 2; k++) {
        const resfield *d = &resfield_site[resfield_find(
            resfield_site, resfield_n_site, site_f[k], NULL)];
        snprintf(xl[k + 1], sizeof xl[0], "%s [%s]", d->label, d->disp_unit);
        snprintf(pt[k], sizeof pt[k], "site: %s", d->label);
        pn[k + 1] = (plot_cmp_panel){pt[k], xl[k + 1], 1, site_row,
                                     &buf[(c->n_jobs + k) * nr]};
    }
    snprintf(title, sizeof title,
             "%zu runs compared: P10-P90 across replications, P50 marked", nr);
    name(o, "compare", file, sizeof file, path, sizeof path);
    rc = noted(plot_compare(path, pn, c->n_jobs ? 3 : 0, labp, nr, title, e), o,
               file, what, e);
    free(buf);
    return rc;
}

/* The number a key of the stored (resolved) configuration holds, found as
 * "key = NUMBER" the way find_date finds dates; def when absent. */
static double cfg_number(const char *text, const char *key, double def)
{
    const char *p = text;
    size_t n = strlen(key);
    while (p && (p = strstr(p, key)) != NULL) {
        const char *q = p + n;
        char *end;
        double v;
        p = q;
        if (p - n > text &&
            (isalnum((unsigned char)p[-n - 1]) || p[-n - 1] == '_'))
            continue; /* a longer key ending in this one */
        while (*q == ' ' || *q == '=' || *q == ':')
            q++;
        v = strtod(q, &end);
        if (end != q && isfinite(v))
            return v;
    }
    return def;
}

/* The scenario's smoothing in words, for the legend: each policy key that
 * is set, by its scenario-reference label. */
static void smoothing_words(const db_run *r, char *buf, size_t n)
{
    const char *t = r->meta.config_text;
    double fl = cfg_number(t, "gpu_power_floor_pct", 0);
    double up = cfg_number(t, "gpu_power_ramp_up_w_per_s", 0);
    double dn = cfg_number(t, "gpu_power_ramp_down_w_per_s", 0);
    double hy = cfg_number(t, "gpu_power_ramp_down_hysteresis_s", 0);
    /* "as run" includes the systems' rack storage (catalog), which the
     * stored configuration does not name. */
    size_t k = (size_t)snprintf(buf, n, "as run");
    if (fl > 0 && k < n)
        k += (size_t)snprintf(buf + k, n - k, ", GPU floor %g %%", fl);
    if (up > 0 && k < n)
        k += (size_t)snprintf(buf + k, n - k, ", ramp-up %g W/s", up);
    if (dn > 0 && k < n)
        k += (size_t)snprintf(buf + k, n - k, ", ramp-down %g W/s", dn);
    if (hy > 0 && k < n)
        snprintf(buf + k, n - k, ", hold %g s", hy);
}

/* The representative window of replication 0 (the power_window table) and
 * its spectrum, with the scenario's smoothing and without. */
static int draw_power_dynamics(const report_src *s, report_out *o, sim_err *e)
{
    const db_run *r = s->run;
    const res_rep *rp = NULL;
    char file[80], path[1200], title[1024], w[400], sm[200];
    for (size_t k = 0; k < r->n_reps && !rp; k++)
        if (r->reps[k].n_pd_samples > 0)
            rp = &r->reps[k];
    name(o, "power_dynamics", file, sizeof file, path, sizeof path);
    if (!rp) {
        report_out_skip(o, "Site power at 100 Hz and its spectrum",
                        "no representative window stored (power dynamics "
                        "off, or no job trained)");
        return SIM_OK;
    }
    who(r, w, sizeof w);
    smoothing_words(r, sm, sizeof sm);
    snprintf(title, sizeof title,
             "%s: site power at 100 Hz, with and without smoothing "
             "(replication %u)",
             w, rp->replication);
    return noted(plot_power_dynamics(path, rp->pd_samples, rp->n_pd_samples, sm,
                                     title, e),
                 o, file, "Site power at 100 Hz and its spectrum", e);
}

/* The optimize chart (app/opt_chart.h) of the problem the user named, or
 * of the newest problem that evaluated this run as a design. A run that no
 * problem evaluated is not noted (as a plain run has no sweep chart). */
static int draw_optimize(const report_src *s, report_out *o, sim_err *e)
{
    char file[80], path[1200], what[200];
    int64_t id = s->opt_id;
    int rc;
    if (id <= 0) {
        if (!s->run->meta.sweep_key)
            return SIM_OK;
        rc = db_opt_find_case(s->d, s->run->meta.sweep_key,
                              s->run->meta.case_key, &id, e);
        if (rc == SIM_ENOTFOUND) {
            sim_err_clear(e);
            return SIM_OK;
        }
        if (rc != SIM_OK)
            return rc;
    }
    name(o, "optimize", file, sizeof file, path, sizeof path);
    rc = opt_chart(s->d, id, path, what, sizeof what, e);
    if (rc == SIM_OK)
        report_out_add(o, file, what);
    else if (rc == SIM_EINVAL) {
        report_out_skip(o, "optimize chart", e->msg);
        sim_err_clear(e);
        rc = SIM_OK;
    }
    return rc;
}

const report_chart report_charts[] = {
    {"power",
     "power by source, stacked daily means, unserved demand, IT capacity and "
     "grid contract",
     draw_power},
    {"monthly_energy", "energy per calendar month by source, demand, unserved",
     draw_monthly_energy},
    {"typical_day", "24-hour profile of each month", draw_typical_day},
    {"power_heatmap", "facility load and shortfall by day and hour",
     draw_power_heatmap},
    {"load_duration", "load duration curve with capacity and contract lines",
     draw_load_duration},
    {"battery_soc", "battery state of charge and health", draw_battery_soc},
    {"battery_heatmap", "battery state of charge by day and hour, health",
     draw_battery_heatmap},
    {"jobs_gantt", "job timeline: queued, training, recovering, paused",
     draw_jobs_gantt},
    {"time_to_train", "one per job: time to train across replications",
     draw_time_to_train},
    {"energy_by_source", "energy per training run by source, per job",
     draw_energy_by_source},
    {"power_dynamics",
     "a representative minute of site power at 100 Hz with and without "
     "smoothing, and its spectrum with the 0.1-2 and 3-30 Hz bands",
     draw_power_dynamics},
    {"sweep", "sweep cases only: a metric against a swept key, P10-P90",
     draw_sweep},
    {"optimize",
     "optimize designs only: evaluated designs, Pareto front, best design, "
     "constraint lines",
     draw_optimize},
    {"compare",
     "report --runs only: each job's time to train and the site's energy and "
     "cost, P10-P90 per run",
     draw_compare},
};
const size_t report_n_charts = sizeof report_charts / sizeof report_charts[0];

/* In table order, stopping at the first real failure (a write error):
 * "nothing to draw" was already turned into a note by noted(). */
int report_draw_all(const report_src *s, report_out *o, sim_err *e)
{
    int rc = SIM_OK;
    for (size_t i = 0; i < report_n_charts && rc == SIM_OK; i++) {
        sim_err_clear(e);
        rc = report_charts[i].draw(s, o, e);
    }
    return rc;
}
