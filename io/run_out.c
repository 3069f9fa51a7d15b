/* io/run_out.c: run results as a table, JSON or CSV (see run_out.h).
 *
 * This file owns the printed shapes of a run's results: which metrics appear
 * (the resfield rows marked RESFIELD_RUN), in which units (the display units),
 * and the summary statistics over replications. It never computes a result and
 * never writes a file name, timestamp or absolute path into JSON or CSV: the
 * bundled scenarios' JSON must be byte-identical across machines and runs
 * (issue 16.6), and the table is for people, so only it may be shaped for the
 * eye. Writers only write to the FILE they are given (stdout for run) and
 * return SIM_EIO on a write error, so the command can exit non-zero instead of
 * reporting success over a truncated document. */
#include "io/run_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "io/json.h"
#include "models/resfield.h"
#include "models/stats.h"
#include "sim/mem.h"
#include "models/site.h"
#include "sim/err.h"

/* The scenario's name is its file name without folder and .cfg, so the same
 * scenario reports the same name wherever it is run from; the full path would
 * make the JSON differ by machine. */
char *run_scenario_name(const scenario *s, char *buf, size_t n)
{
    const char *b = strrchr(s->path, '/');
    size_t len;
    b = b ? b + 1 : s->path;
    snprintf(buf, n, "%s", b);
    len = strlen(buf);
    if (len > 4 && strcmp(buf + len - 4, ".cfg") == 0)
        buf[len - 4] = '\0';
    return buf;
}

/* "finished" counts replications in which the job completed; percentiles of
 * time-to-train skip the others (stats_summarize drops NaN), so this count is
 * what tells a reader how many values a percentile rests on. */
static size_t finished(const res_rep *reps, size_t n, size_t i)
{
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        k += reps[r].jobs[i].completed != 0;
    return k;
}

static jv *summary_json(stat_summary s)
{
    jv *o = jv_obj();
    jv_set(o, "mean", jv_num(s.mean));
    jv_set(o, "p10", jv_num(s.p10));
    jv_set(o, "p50", jv_num(s.p50));
    jv_set(o, "p90", jv_num(s.p90));
    jv_set(o, "min", jv_num(s.min));
    jv_set(o, "max", jv_num(s.max));
    return o;
}

/* The metric loop goes over the resfield tables, so a new result field marked
 * RESFIELD_RUN appears here with no edit; names and units are the display ones,
 * the contract of issue 6. The layout block is recomputed from the throughput
 * model rather than stored, because it is a function of the scenario and the
 * calibration alone; if it cannot be computed it is left out rather than
 * written half-filled. */
/* The last component of a path. */
static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* "modules": the power dynamics per module (issue 21), shaped as "jobs" is:
 * one entry per module with its metrics summarised over the replications
 * that analysed it (display names and units). Left out when no
 * replication did (the analysis was off). */
static void modules_json(jv *root, const res_rep *reps, size_t n)
{
    size_t nm = 0;
    double *x;
    jv *mods;
    for (size_t r = 0; r < n; r++)
        nm = reps[r].n_modules > nm ? reps[r].n_modules : nm;
    if (nm == 0)
        return;
    x = sim_xcalloc(n, sizeof *x);
    mods = jv_arr();
    for (size_t m = 0; m < nm; m++) {
        jv *o = jv_obj(), *met = jv_obj();
        jv_set(o, "module", jv_int((int64_t)m));
        for (size_t k = 0; k < resfield_n_module; k++) {
            size_t c = 0;
            for (size_t r = 0; r < n; r++)
                if (m < reps[r].n_modules)
                    x[c++] = resfield_get_disp(&reps[r].modules[m],
                                               &resfield_module[k]);
            jv_set(met, resfield_module[k].disp_name,
                   summary_json(stats_summarize(x, 1, c)));
        }
        jv_set(o, "metrics", met);
        jv_push(mods, o);
    }
    jv_set(root, "modules", mods);
    free(x);
}

int run_out_json(FILE *f, const run_info *ri, const scenario *s,
                 const res_rep *reps, size_t n)
{
    jv *root = jv_obj(), *jobs = jv_arr(), *site = jv_obj();
    int rc;
    jv_set(root, "scenario", jv_str(ri->name));
    jv_set(root, "seed", jv_int((int64_t)ri->seed));
    jv_set(root, "replications", jv_int(ri->replications));
    jv_set(root, "site_calibration",
           s->site.calibration[0] ? jv_str(base_name(s->site.calibration))
                                  : jv_null());
    if (s->energy.present[SRC_SOLAR]) {
        jv *so = jv_obj();
        jv_set(so, "capacity_dc_w", jv_num(s->energy.capacity_w[SRC_SOLAR]));
        jv_set(so, "capacity_ac_w", jv_num(s->energy.solar.inverter_limit_w));
        jv_set(so, "dc_ac_ratio", jv_num(s->energy.solar.dc_ac_ratio));
        jv_set(root, "solar", so);
    }
    for (size_t i = 0; i < s->n_jobs; i++) {
        jv *j = jv_obj(), *m = jv_obj();
        jv_set(j, "name", jv_str(s->jobs[i].name));
        jv_set(j, "model", jv_str(s->jobs[i].model->name));
        jv_set(j, "precision", jv_str(s->jobs[i].precision));
        jv_set(j, "gpu", jv_str(s->jobs[i].gpu->name));
        jv_set(j, "gpus", jv_int(s->jobs[i].gpus));
        jv_set(j, "tokens", jv_num(s->jobs[i].tokens));
        jv_set(j, "finished", jv_int((int64_t)finished(reps, n, i)));
        if (ri->tp) {
            tp_result tr;
            sim_err e;
            if (site_job_throughput(s, &s->jobs[i], ri->tp, 0.0, 0.0, &tr,
                                    &e) == SIM_OK) {
                jv *ly = jv_obj();
                run_out_layout_json(ly, &tr);
                jv_set(j, "layout", ly);
            }
        }
        for (size_t k = 0; k < resfield_n_job; k++)
            if (resfield_job[k].outputs & RESFIELD_RUN)
                jv_set(m, resfield_job[k].disp_name,
                       summary_json(resfield_job_summary(&resfield_job[k], reps,
                                                         n, i, 1)));
        jv_set(j, "metrics", m);
        jv_push(jobs, j);
    }
    jv_set(root, "jobs", jobs);
    for (size_t k = 0; k < resfield_n_site; k++)
        if (resfield_site[k].outputs & RESFIELD_RUN)
            jv_set(site, resfield_site[k].disp_name,
                   summary_json(
                       resfield_site_summary(&resfield_site[k], reps, n, 1)));
    if (s->energy.present[SRC_SOLAR])
        jv_set(site, RUN_OUT_SOLAR_P90,
               jv_num(res_solar_p90_exceedance_j(reps, n, s->sim.horizon_s) /
                      3.6e9));
    jv_set(root, "site", site);
    modules_json(root, reps, n);
    rc = jv_write(root, f, 1);
    jv_free(root);
    return rc;
}

/* %.10g rather than JSON's 15 digits: the CSV is for spreadsheets, where ten
 * significant digits are more than any result carries and keep cells short. NaN
 * is an empty cell, which spreadsheets read as missing. */
static int csv_summary_row(FILE *f, const char *scope, const char *name,
                           const resfield *d, stat_summary s)
{
    char num[7][40];
    const char *cells[11];
    double v[6] = {s.mean, s.p10, s.p50, s.p90, s.min, s.max};
    snprintf(num[0], sizeof num[0], "%zu", s.n);
    for (int k = 0; k < 6; k++) {
        if (isfinite(v[k]))
            snprintf(num[k + 1], sizeof num[k + 1], "%.10g", v[k]);
        else
            num[k + 1][0] = '\0';
    }
    cells[0] = scope;
    cells[1] = name;
    cells[2] = d->disp_name;
    cells[3] = d->disp_unit;
    for (int k = 0; k < 7; k++)
        cells[4 + k] = num[k];
    return csvt_write_row(f, cells, 11);
}

/* Long format (one row per scope, name and metric) so that the columns never
 * change when fields are added; run_info is not used because the CSV carries
 * only results, not the run's identity. */
int run_out_csv(FILE *f, const run_info *ri, const scenario *s,
                const res_rep *reps, size_t n)
{
    static const char *const hdr[] = {"scope", "name", "metric", "unit",
                                      "n",     "mean", "p10",    "p50",
                                      "p90",   "min",  "max"};
    int rc = csvt_write_row(f, hdr, 11);
    (void)ri;
    for (size_t i = 0; i < s->n_jobs && rc == SIM_OK; i++)
        for (size_t k = 0; k < resfield_n_job && rc == SIM_OK; k++)
            if (resfield_job[k].outputs & RESFIELD_RUN)
                rc = csv_summary_row(
                    f, "job", s->jobs[i].name, &resfield_job[k],
                    resfield_job_summary(&resfield_job[k], reps, n, i, 1));
    for (size_t k = 0; k < resfield_n_site && rc == SIM_OK; k++)
        if (resfield_site[k].outputs & RESFIELD_RUN)
            rc = csv_summary_row(
                f, "site", s->site.name, &resfield_site[k],
                resfield_site_summary(&resfield_site[k], reps, n, 1));
    if (rc == SIM_OK && s->energy.present[SRC_SOLAR]) {
        /* One figure across replications, not a summary: it fills the
         * mean column; the percentile columns stay empty. */
        resfield d = {0};
        stat_summary one = {n, NAN, NAN, NAN, NAN, NAN, NAN};
        d.disp_name = RUN_OUT_SOLAR_P90;
        d.disp_unit = "MWh";
        one.mean =
            res_solar_p90_exceedance_j(reps, n, s->sim.horizon_s) / 3.6e9;
        rc = csv_summary_row(f, "site", s->site.name, &d, one);
    }
    return rc;
}

/* Scientific notation only for magnitudes a fixed column cannot show (>= 1e7 or
 * < 1e-3); everything else in %g with four digits, which is all a person
 * reading the table needs. */
static void table_row(FILE *f, const resfield *d, stat_summary s)
{
    double v[6] = {s.mean, s.p10, s.p50, s.p90, s.min, s.max};
    fprintf(f, "  %-36s %-12s", d->label, d->disp_unit);
    for (int k = 0; k < 6; k++) {
        if (!isfinite(v[k]))
            fprintf(f, " %11s", "-");
        else if (fabs(v[k]) >= 1e7 || (fabs(v[k]) < 1e-3 && v[k] != 0))
            fprintf(f, " %11.3e", v[k]);
        else
            fprintf(f, " %11.4g", v[k]);
    }
    fputc('\n', f);
}

/* Only the table may show the run's context (description, MW of IT, layout
 * chosen), since it is never compared byte for byte; the metrics still come
 * from the same rows and summaries as the JSON and CSV. */
int run_out_table(FILE *f, const run_info *ri, const scenario *s,
                  const res_rep *reps, size_t n)
{
    static const char hdr[] = "  %-36s %-12s %11s %11s %11s %11s %11s %11s\n";
    fprintf(f, "scenario %s: %s\n", ri->name, s->description);
    fprintf(f,
            "site %s, %zu module group(s), %.2f MW IT, seed %llu, %u "
            "replication(s)\n",
            s->site.name, s->n_modules, scenario_it_power_w(s) / 1e6,
            (unsigned long long)ri->seed, ri->replications);
    /* The file name only (never a path), so the header reads the same on
     * every machine. */
    if (s->site.calibration[0])
        fprintf(f,
                "site calibration %s: the cluster's measured compute and "
                "communication speeds applied to its GPU types\n",
                base_name(s->site.calibration));
    /* Solar nameplate both ways (issue 12.8): DC is what the scenario's
     * capacity_mw says, AC is what the inverters can deliver, the figure
     * every energy result is bounded by. */
    if (s->energy.present[SRC_SOLAR])
        fprintf(f,
                "solar %.2f MW DC (capacity_mw as written), %.2f MW AC "
                "(inverter limit, DC/AC %.2f)\n",
                s->energy.capacity_w[SRC_SOLAR] / 1e6,
                s->energy.solar.inverter_limit_w / 1e6,
                s->energy.solar.dc_ac_ratio);
    for (size_t i = 0; i < s->n_jobs; i++) {
        const scen_job *j = &s->jobs[i];
        fprintf(f,
                "\njob %s: %s %s on %d %s, %.3g tokens; finished in %zu of %zu "
                "replication(s)\n",
                j->name, j->model->name, j->precision, j->gpus, j->gpu->name,
                j->tokens, finished(reps, n, i), n);
        if (ri->tp) {
            tp_result tr;
            sim_err e;
            char ch[128];
            const tp_layout *l = &tr.layout;
            if (site_job_throughput(s, j, ri->tp, 0.0, 0.0, &tr, &e) == SIM_OK)
                fprintf(f,
                        "layout: tp %d pp %d vp %d cp %d ep %d etp %d mbs %d "
                        "recompute %s distributed_optimizer %s; chosen: %s\n",
                        l->tp, l->pp, l->vp, l->cp, l->ep, l->etp, l->mbs,
                        tp_recompute_name(l->recompute),
                        l->distopt == TP_DISTOPT_ON ? "on" : "off",
                        tr.chosen ? tp_chosen_list(tr.chosen, ch, sizeof ch)
                                  : "none");
        }
        fprintf(f, hdr, "metric", "unit", "mean", "P10", "P50", "P90", "min",
                "max");
        for (size_t k = 0; k < resfield_n_job; k++)
            if (resfield_job[k].outputs & RESFIELD_RUN)
                table_row(
                    f, &resfield_job[k],
                    resfield_job_summary(&resfield_job[k], reps, n, i, 1));
    }
    fprintf(f, "\nsite %s\n", s->site.name);
    fprintf(f, hdr, "metric", "unit", "mean", "P10", "P50", "P90", "min",
            "max");
    for (size_t k = 0; k < resfield_n_site; k++)
        if (resfield_site[k].outputs & RESFIELD_RUN)
            table_row(f, &resfield_site[k],
                      resfield_site_summary(&resfield_site[k], reps, n, 1));
    if (s->energy.present[SRC_SOLAR])
        fprintf(f, "  %-36s %-12s %11.4g (annual, P10 over %zu years)\n",
                "solar energy exceeded in 90% of years", "MWh",
                res_solar_p90_exceedance_j(reps, n, s->sim.horizon_s) / 3.6e9,
                n);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

void run_out_layout_json(jv *o, const tp_result *r)
{
    const tp_layout *l = &r->layout;
    jv *ch = jv_arr();
    jv_set(o, "tp", jv_int(l->tp));
    jv_set(o, "pp", jv_int(l->pp));
    jv_set(o, "vp", jv_int(l->vp));
    jv_set(o, "cp", jv_int(l->cp));
    jv_set(o, "ep", jv_int(l->ep));
    jv_set(o, "etp", jv_int(l->etp));
    jv_set(o, "mbs", jv_int(l->mbs));
    jv_set(o, "recompute", jv_str(tp_recompute_name(l->recompute)));
    jv_set(o, "distributed_optimizer", jv_bool(l->distopt == TP_DISTOPT_ON));
    jv_set(o, "fsdp", jv_bool(l->fsdp));
    for (int f = 0; f < TP_NFIELDS; f++)
        if (r->chosen & 1u << f)
            jv_push(ch, jv_str(tp_field_name(f)));
    jv_set(o, "chosen", ch);
}
