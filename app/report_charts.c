/* app/report_charts.c: the report's chart list (see report_charts.h). One
 * draw function per chart; each picks what it needs from the stored run:
 * the series of the first replication that stored one, the event log of the
 * first that stored one, summaries across replications. It draws only from
 * what is stored (never reruns a case) and never writes anything but the
 * chart files into the report folder. */
#include "app/report_charts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/sweep_table.h"
#include "io/plot_charts.h"
#include "models/resfield.h"
#include "sim/mem.h"

/* Charts past REPORT_MAX_CHARTS are still drawn, only not listed (see
 * report_charts.h); the fixed arrays keep report_out one allocation. */
void report_out_add(report_out *o, const char *file, const char *what)
{
    if (o->n >= REPORT_MAX_CHARTS)
        return;
    snprintf(o->file[o->n], sizeof o->file[0], "%s", file);
    snprintf(o->what[o->n], sizeof o->what[0], "%s", what);
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

static int draw_power(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] =
        "Power over time by source against the facility load";
    char file[80], path[1200], title[256];
    size_t k = 0;
    const res_rep *ts = series_rep(s->run, &k);
    if (!ts) {
        report_out_skip(o, what, "no time series stored with this run");
        return SIM_OK;
    }
    name(o, "power", file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: power by source (replication %u)",
             s->run->meta.scenario, ts->replication);
    return noted(plot_power_stack(path, ts->steps, s->run->step_dt_s[k],
                                  ts->n_steps, title, e),
                 o, file, what, e);
}

static int draw_battery_soc(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] = "Battery state of charge and health";
    char file[80], path[1200], title[256];
    size_t k = 0;
    const res_rep *ts = series_rep(s->run, &k);
    if (!ts) {
        report_out_skip(o, what, "no time series stored with this run");
        return SIM_OK;
    }
    name(o, "battery_soc", file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: battery (replication %u)",
             s->run->meta.scenario, ts->replication);
    return noted(plot_battery_soc(path, ts->steps, ts->n_steps, title, e), o,
                 file, what, e);
}

/* Job names in scenario order (caller frees the array, not the names). */
static const char **job_names(const db_run *r)
{
    const char **names = sim_xcalloc(r->meta.n_jobs + 1, sizeof *names);
    for (size_t j = 0; j < r->meta.n_jobs; j++)
        names[j] = r->meta.jobs[j].name;
    return names;
}

static int draw_jobs_gantt(const report_src *s, report_out *o, sim_err *e)
{
    static const char what[] = "Job timeline with interruptions and pauses";
    const db_run *r = s->run;
    const res_rep *ev = &r->reps[0];
    const char **names = job_names(r);
    char file[80], path[1200], title[256];
    int rc;
    for (size_t k = 0; k < r->n_reps; k++)
        if (r->reps[k].n_events > 0) {
            ev = &r->reps[k];
            break;
        }
    name(o, "jobs_gantt", file, sizeof file, path, sizeof path);
    snprintf(title, sizeof title, "%s: job timeline (replication %u)",
             r->meta.scenario, ev->replication);
    rc = noted(plot_gantt(path, names, ev->jobs, r->meta.n_jobs, ev->events,
                          ev->n_events, r->meta.horizon_s, title, e),
               o, file, what, e);
    free(names);
    return rc;
}

static int draw_time_to_train(const report_src *s, report_out *o, sim_err *e)
{
    const db_run *r = s->run;
    double *x = sim_xcalloc(r->n_reps + 1, sizeof *x);
    int rc = SIM_OK;
    for (size_t j = 0; j < r->meta.n_jobs && rc == SIM_OK; j++) {
        char base[40], what[200], file[80], path[1200];
        const char *job = r->meta.jobs[j].name;
        for (size_t k = 0; k < r->n_reps; k++)
            x[k] = r->reps[k].jobs[j].time_to_train_s;
        snprintf(base, sizeof base, "time_to_train_%zu", j + 1);
        snprintf(what, sizeof what,
                 "Time to train of %.150s across replications", job);
        name(o, base, file, sizeof file, path, sizeof path);
        rc = noted(
            plot_time_to_train(path, job, x, r->n_reps, "Time to train", e), o,
            file, what, e);
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
    int ffac =
        resfield_find(resfield_job, resfield_n_job, "facility_energy_j", NULL);
    char file[80], path[1200], title[256];
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
    snprintf(title, sizeof title,
             "%s: energy per training run by source (mean)", r->meta.scenario);
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
 * --metric/--by the user gave that is wrong stays an error. */
static int draw_sweep(const report_src *s, report_out *o, sim_err *e)
{
    char file[80], path[1200], what[200];
    int rc;
    if (!s->run->meta.sweep_key)
        return SIM_OK; /* not a sweep case: nothing to note */
    snprintf(file, sizeof file, "sweep%s%.50s.%s", s->sw_by ? "_" : "",
             s->sw_by ? s->sw_by : "", o->ext);
    for (char *q = file; *q && strcmp(q, o->ext) != 0; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-')
            *q = '_';
    file[strlen(file) - strlen(o->ext) - 1] = '.';
    snprintf(path, sizeof path, "%s/%s", o->dir, file);
    rc = sweep_chart(s->d, s->run->meta.sweep_key, s->sw_metric, s->sw_by, path,
                     what, sizeof what, e);
    if (rc == SIM_OK)
        report_out_add(o, file, what);
    else if (rc == SIM_EINVAL ||
             (rc == SIM_EUSAGE && !s->sw_metric && !s->sw_by)) {
        report_out_skip(o, "sweep chart", e->msg);
        sim_err_clear(e);
        rc = SIM_OK;
    }
    return rc;
}

const report_chart report_charts[] = {
    {"power", "power delivered by source, stacked, against load and demand",
     draw_power},
    {"battery_soc", "battery state of charge and health", draw_battery_soc},
    {"jobs_gantt", "job timeline: queued, training, recovering, paused",
     draw_jobs_gantt},
    {"time_to_train", "one per job: time to train across replications",
     draw_time_to_train},
    {"energy_by_source", "energy per training run by source, per job",
     draw_energy_by_source},
    {"sweep", "sweep cases only: a metric against a swept key, P10-P90",
     draw_sweep},
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
