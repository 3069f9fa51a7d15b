/* cli/cmd_report.c: `factorysim report`: a stored run as a site-proposal bundle
 * in a folder: the charts (io/plot_charts.h) and a summary in Markdown and CSV
 * (scenario, capacity, energy mix, and per job the time to train, energy,
 * carbon and cost with their P10-P90 ranges).
 *
 * Conversions happen here only (days, MWh, MW, tCO2e). The summary carries no
 * wall-clock time or absolute path, so the same run gives the same bytes.
 * Everything that can be checked is checked before the first file is written;
 * summaries are written to a temporary file and renamed.
 *
 * The command reads only what the database stored (it never re-runs a
 * scenario), so a report describes exactly the run it names, months later.
 * Chart drawing lives in app/report_charts.c; this file owns the summary's
 * wording and columns. Fields are looked up by name in the resfield table, so
 * the summary follows the table's units and labels; a field renamed there must
 * be renamed here too (see job_sum).
 *
 * Issue 25: report.html (app/report_doc.h, io/report_html.h) holds every
 * chart as inline SVG and report.pdf every chart on a page; both are drawn
 * here in extra passes over the same chart list (app/report_render.h),
 * after the charts in the asked format, so a failure there never costs the
 * charts or summaries already written. */
#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/csv.h"
#include "io/db.h"
#include "io/json.h"
#include "app/opt_spec.h"
#include "app/sweep_table.h"
#include "app/compare.h"
#include "app/compare_doc.h"
#include "app/report_charts.h"
#include "app/report_doc.h"
#include "app/report_render.h"
#include "io/plot.h"
#include "models/resfield.h"
#include "sim/mem.h"

static const char report_help[] =
    "Usage: factorysim report --db FILE --out DIR [OPTIONS]\n"
    "\n"
    "Writes a site-proposal bundle for a stored run into DIR (which must\n"
    "exist): report.html (one self-contained page: tables, the\n"
    "assumptions the run used, calibration accuracy and every chart as\n"
    "inline SVG; prints to PDF), report.pdf (every chart, one a page, when\n"
    "PLplot has its pdfcairo device), summary.md, summary.csv, charts.json\n"
    "(every chart's file, title, axis labels and legend) and the charts\n"
    "power, monthly_energy, typical_day, power_heatmap, load_duration,\n"
    "battery_soc and\n"
    "battery_heatmap (when the site has a battery), jobs_gantt,\n"
    "time_to_train_<N> (one per job), energy_by_source and\n"
    "power_dynamics (a minute of site power at 100 Hz with and without\n"
    "smoothing, and its spectrum; when the analysis ran). The series\n"
    "charts need the time series stored with the run; the timeline shows\n"
    "interruptions and pauses when the event log was stored.\n"
    "\n"
    "Options:\n"
    "  --db FILE        results database (default output/factorysim.db)\n"
    "  --run ID         run to report (default: the latest)\n"
    "  --runs LIST      runs to compare, comma-separated, each a run id,\n"
    "                   scenario name or sweep case key as `compare` takes\n"
    "                   them: the bundle reports the first and adds the\n"
    "                   compare chart and compare.csv (docs/compare.md)\n"
    "  --out DIR        output folder (required; made if missing, as mkdir "
    "-p)\n"
    "  --format F       chart format: png (default), svg or pdf\n"
    "  --metric NAME    sweep chart metric: site.NAME or JOB.NAME (default: "
    "the\n"
    "                   first job's time_to_train_days)\n"
    "  --by KEY         sweep chart x axis: a swept key (default: the first)\n"
    "  --constraint 'METRIC.STAT<=VALUE' (or >=) the sweep chart's reference\n"
    "                   line; the chart then shows METRIC (default: the first\n"
    "                   constraint of the newest optimize problem stored on\n"
    "                   the sweep, if any)\n"
    "  --optimize ID    chart stored optimize problem ID (its id is printed\n"
    "                   by optimize); without --run the run reported is the\n"
    "                   problem's best design\n"
    "  -h, --help       this help\n"
    "\n"
    "When the run is a case of a sweep, the bundle also has "
    "sweep_<KEY>.<ext>:\n"
    "the metric against the swept key over every case of that sweep, P50\n"
    "with the P10-P90 band (docs/sweeps.md). When the run is a design an\n"
    "optimize problem evaluated (the newest such problem), or with\n"
    "--optimize ID, it also has optimize.<ext>: every evaluated design,\n"
    "feasible or not, the best design, the Pareto front and the constraint\n"
    "lines (docs/optimize.md).\n";

/* The report's display conversions, kept as named constants so every table row
 * converts the same way. */
#define J_PER_MWH 3.6e9
#define S_PER_DAY 86400.0

/* The job metrics of summary.csv, by field (models/resfield.h): each in its
 * display unit, as columns DISPLAYNAME_mean, ..._p10, ... SI names, the table's
 * keys: the CSV header uses each field's display name and values are divided by
 * its display factor, so units follow the table. */
static const char *const job_metrics[] = {
    "time_to_train_s", "facility_energy_j", "it_energy_j",
    "co2_kg",          "cost_usd",          "renewable_fraction",
    "goodput",         "interruptions",     "gpu_s",
};
#define N_JOB_METRICS (sizeof job_metrics / sizeof job_metrics[0])

static const resfield *job_field(const char *name)
{
    int f = resfield_find(resfield_job, resfield_n_job, name, NULL);
    return f < 0 ? NULL : &resfield_job[f];
}

static const resfield *site_field(const char *name)
{
    int f = resfield_find(resfield_site, resfield_n_site, name, NULL);
    return f < 0 ? NULL : &resfield_site[f];
}

/* No NULL check, unlike site_sum: every name passed is a literal from this
 * file, and each must exist in the job table, since a missing one would index
 * before the array. */
static const stat_summary *job_sum(const db_run *r, size_t j, const char *field)
{
    int f = resfield_find(resfield_job, resfield_n_job, field, NULL);
    return &r->job_summary[j * resfield_n_job + (size_t)f];
}

static const stat_summary *site_sum(const db_run *r, const char *field)
{
    int f = resfield_find(resfield_site, resfield_n_site, field, NULL);
    return f < 0 ? NULL : &r->site_summary[f];
}

/* "12.3 (11.0-14.1)": the P50 and the P10-P90 range, or "n/a". %.4g: four
 * significant digits are more than a planning figure carries and keep the
 * Markdown table narrow; the CSV keeps 15 digits for reuse. */
static const char *range_str(const stat_summary *s, double scale, char *buf,
                             size_t n)
{
    if (!s || s->n == 0)
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.4g (%.4g-%.4g)", s->p50 * scale, s->p10 * scale,
                 s->p90 * scale);
    return buf;
}

/* Markdown table cells must not contain a bare '|'. Names come from user
 * scenarios (job and site names), so they are escaped rather than trusted: a
 * '|' would split a table cell and a newline would end the row. */
static void md_cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

/* Issue 22: the cost model's figures (models/cost.h): capital, the
 * annualised cost and its breakdown by item, LCOE and NPV of the site, then
 * each job's cost per run and its power-shortage shares. A run stored
 * before the cost fields existed has them NULL (n = 0): the section says so
 * instead of printing zeros. */
static void write_md_costs(FILE *f, const db_run_meta *m, const db_run *r)
{
    static const char *const site_rows[] = {
        "capex_usd",
        "annualized_cost_usd",
        "annualized_gpus_usd",
        "annualized_modules_usd",
        "annualized_solar_usd",
        "annualized_battery_usd",
        "annualized_wind_usd",
        "annualized_grid_usd",
        "annualized_om_usd",
        "annualized_energy_usd",
        "lcoe_usd_per_j",
        "npv_usd",
        "battery_replacements",
        "curtailed_fraction",
    };
    char b[96];
    const stat_summary *cx = site_sum(r, "capex_usd");
    fputs("\n## Costs\n\n", f);
    if (!cx || cx->n == 0) {
        fputs("Not costed: the run was stored before the cost model "
              "(docs/cost-model.md).\n",
              f);
        return;
    }
    fputs("Annual figures are per year: capital x capital recovery factor, "
          "O&M, and energy scaled from the horizon (docs/cost-model.md).\n\n"
          "| cost | value |\n|---|---|\n",
          f);
    for (size_t i = 0; i < sizeof site_rows / sizeof site_rows[0]; i++) {
        const resfield *d = site_field(site_rows[i]);
        fprintf(f, "| %s [%s] | %s |\n", d->label, d->disp_unit,
                range_str(site_sum(r, site_rows[i]), 1.0 / d->disp_per, b,
                          sizeof b));
    }
    fputs("\n| job | cost per run [USD] | energy cost [USD] | paused [h] | "
          "paused [%] | throttled [%] |\n|---|---|---|---|---|---|\n",
          f);
    for (size_t j = 0; j < m->n_jobs; j++) {
        fputs("| ", f);
        md_cell(f, m->jobs[j].name);
        fprintf(f, " | %s",
                range_str(job_sum(r, j, "cost_per_run_usd"), 1.0, b, sizeof b));
        fprintf(f, " | %s",
                range_str(job_sum(r, j, "cost_usd"), 1.0, b, sizeof b));
        fprintf(
            f, " | %s",
            range_str(job_sum(r, j, "paused_s"), 1.0 / 3600.0, b, sizeof b));
        fprintf(
            f, " | %s",
            range_str(job_sum(r, j, "paused_fraction"), 100.0, b, sizeof b));
        fprintf(
            f, " | %s |\n",
            range_str(job_sum(r, j, "throttled_fraction"), 100.0, b, sizeof b));
    }
}

/* One function that writes the document top to bottom in reading order (run,
 * site, energy mix, site metrics, costs, jobs, charts), so the source reads
 * like the output it produces; each section is a few fprintf calls with no
 * state shared between them beyond the run. The chart list comes last and is
 * taken from what report_draw_all actually drew, including the ones it skipped
 * and why, so the document never links a chart that does not exist. */
static void write_md(FILE *f, const db_run *r, const report_out *cl)
{
    const db_run_meta *m = &r->meta;
    const stat_summary *fe = site_sum(r, "facility_energy_j");
    char b[96];
    int64_t gpus_total = 0;

    fputs("# Site proposal: ", f);
    md_cell(f, m->scenario);
    fprintf(f,
            "\n\nRun %" PRId64 ": seed %" PRIu64
            ", %zu of %u replications stored "
            "(status %s), factorysim %s, configuration hash %s (FNV-1a-64).\n"
            "Ranges are P50 (P10-P90) across replications.\n\n",
            r->id, m->seed, r->n_reps, m->replications, m->status, m->version,
            r->config_hash);
    /* A sweep case says which case it is and its overrides, so the bundle can
     * be told apart from its neighbours in the sweep. */
    if (m->sweep_key) {
        fputs("Sweep case: ", f);
        md_cell(f, m->case_key);
        fputs(m->overrides_json ? ", overrides " : "", f);
        md_cell(f, m->overrides_json);
        fputs("\n\n", f);
    }
    fputs("## Site\n\n| | |\n|---|---|\n| Site | ", f);
    md_cell(f, m->site_name ? m->site_name : "(unnamed)");
    fputs(" |\n| Modules | ", f);
    for (size_t i = 0; i < m->n_modules; i++) {
        fprintf(f, "%s%" PRId64 " x ", i ? ", " : "", m->modules[i].count);
        md_cell(f, m->modules[i].type);
    }
    fprintf(f, " |\n| IT capacity | %.4g MW |\n| GPUs | ",
            m->it_capacity_w * 1e-6);
    for (size_t i = 0; i < m->n_gpus; i++) {
        fprintf(f, "%s%" PRId64 " x ", i ? ", " : "", m->gpus[i].count);
        md_cell(f, m->gpus[i].type);
        gpus_total += m->gpus[i].count;
    }
    if (m->n_gpus > 1)
        fprintf(f, " (%" PRId64 " in all)", gpus_total);
    fputs(" |\n| Energy sources | ", f);
    for (size_t i = 0; i < m->n_sources; i++) {
        const db_source_def *s = &m->sources[i];
        fputs(i ? "; " : "", f);
        md_cell(f, s->kind);
        if (s->name && *s->name &&
            (!s->kind || strcmp(s->name, s->kind) != 0)) {
            fputs(" ", f);
            md_cell(f, s->name);
        }
        fprintf(f, " %.4g MW", s->power_w * 1e-6);
        if (s->energy_j > 0)
            fprintf(f, " / %.4g MWh", s->energy_j / J_PER_MWH);
    }
    fprintf(f, " |\n| Horizon | %.4g days |\n\n", m->horizon_s / S_PER_DAY);

    /* Sources are listed in registry order and only when they produced, with
     * shares of the mean facility energy. */
    fputs("## Energy mix (site)\n\n| source | energy [MWh] | share of facility "
          "energy [%] |\n"
          "|---|---|---|\n",
          f);
    for (int k = 0; k < SRC_N; k++) {
        char field[48];
        const stat_summary *s;
        snprintf(field, sizeof field, "energy_%s_j", source_table[k].name);
        s = site_sum(r, field);
        if (!s || !(s->mean > 0))
            continue;
        fprintf(f, "| %s | %s | %.1f |\n", source_table[k].name,
                range_str(s, 1.0 / J_PER_MWH, b, sizeof b),
                fe && fe->mean > 0 ? 100.0 * s->mean / fe->mean : (double)NAN);
    }
    fprintf(f, "| facility total | %s | 100 |\n\n",
            range_str(fe, 1.0 / J_PER_MWH, b, sizeof b));
    fputs("| site metric | value |\n|---|---|\n", f);
    {
        /* Shares are shown in percent; the rest in their display unit. */
        static const struct {
            const char *field;
            int percent;
            /* Shares are shown in percent, everything else in its display unit
             * from the resfield table, so a label and its unit cannot disagree.
             */
        } sm[] = {
            {"it_energy_j", 0},       {"renewable_fraction", 1},
            {"pue_mean", 0},          {"utilization", 1},
            {"curtailed_j", 0},       {"shortfall_j", 0},
            {"time_short_s", 0},      {"battery_cycles", 0},
            {"battery_soh_final", 1}, {"co2_kg", 0},
            {"cost_usd", 0},
        };
        for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++) {
            const resfield *d = site_field(sm[i].field);
            fprintf(f, "| %s [%s] | %s |\n", d->label,
                    sm[i].percent ? "%" : d->disp_unit,
                    range_str(site_sum(r, sm[i].field),
                              sm[i].percent ? 100.0 : 1.0 / d->disp_per, b,
                              sizeof b));
        }
    }
    write_md_costs(f, m, r);
    fputs("\n## Training jobs\n\n| job | model | GPUs | finished | time to "
          "train [days] | "
          "facility energy per run [MWh] | carbon [tCO2e] | energy cost [USD] "
          "| goodput | "
          "interruptions |\n|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (size_t j = 0; j < m->n_jobs; j++) {
        const db_job_def *jd = &m->jobs[j];
        const stat_summary *done = job_sum(r, j, "completed");
        fputs("| ", f);
        md_cell(f, jd->name);
        fputs(" | ", f);
        md_cell(f, jd->model ? jd->model : "");
        if (jd->precision) {
            fputs(" ", f);
            md_cell(f, jd->precision);
        }
        fprintf(f, " | %d ", (int)jd->gpus);
        md_cell(f, jd->gpu_type ? jd->gpu_type : "");
        /* "completed" is 0 or 1 per replication, so its mean times the count of
         * replications is the number that finished. */
        fprintf(f, " | %.0f of %zu | ", done->mean * (double)done->n, done->n);
        fprintf(f, "%s | ",
                range_str(job_sum(r, j, "time_to_train_s"), 1.0 / S_PER_DAY, b,
                          sizeof b));
        fprintf(f, "%s | ",
                range_str(job_sum(r, j, "facility_energy_j"), 1.0 / J_PER_MWH,
                          b, sizeof b));
        fprintf(f, "%s | ",
                range_str(job_sum(r, j, "co2_kg"), 1e-3, b, sizeof b));
        fprintf(f, "%s | ",
                range_str(job_sum(r, j, "cost_usd"), 1.0, b, sizeof b));
        fprintf(f, "%s | ",
                range_str(job_sum(r, j, "goodput"), 1.0, b, sizeof b));
        fprintf(f, "%s |\n",
                range_str(job_sum(r, j, "interruptions"), 1.0, b, sizeof b));
    }
    /* Stated in the document because the time-to-train range would otherwise
     * look better than the run: unfinished replications are not in it. */
    fputs("\nA job that did not finish within the horizon counts in "
          "\"finished\" only; "
          "its time to train is left out of the range.\n\n## Charts\n\n",
          f);
    for (int i = 0; i < cl->n; i++) {
        fputs("![", f);
        md_cell(f, cl->what[i]);
        fprintf(f, "](%s)\n\n", cl->file[i]);
    }
    for (int i = 0; i < cl->n_skipped; i++)
        fprintf(f, "- Not drawn: %s\n", cl->skipped[i]);
}

/* Wide format, one row for the site and one per job, with fixed columns first
 * and then six statistics per metric, so a spreadsheet gets every number of the
 * Markdown table plus min and max. Site rows leave the job-only cells blank; a
 * statistic with no finite values is blank, never 0. */
static int write_csv(FILE *f, const db_run *r)
{
    /* Fixed columns, then mean/p10/p50/p90/min/max of each metric, then the
     * mean energy by source. */
    static const char *const stat[6] = {"mean", "p10", "p50",
                                        "p90",  "min", "max"};
    /* The fixed columns identify the row (scope, name) and the run (scenario,
     * seed, replications, capacity), so a CSV row can be used on its own. */
    enum { N_FIXED = 10 };
    size_t nc = N_FIXED + N_JOB_METRICS * 6 + SRC_N, c;
    char(*hdr)[64] = sim_xcalloc(nc, sizeof *hdr);
    char(*buf)[64] = sim_xcalloc(nc, sizeof *buf);
    const char **cells = sim_xcalloc(nc, sizeof *cells);
    const db_run_meta *m = &r->meta;
    int rc;
    static const char *const fixed[N_FIXED] = {
        "scope",          "name",  "scenario",  "seed", "replications",
        "it_capacity_mw", "model", "precision", "gpus", "replications_finished",
    };
    c = 0;
    for (int i = 0; i < N_FIXED; i++)
        cells[c++] = fixed[i];
    for (size_t q = 0; q < N_JOB_METRICS; q++)
        for (int s = 0; s < 6; s++, c++) {
            snprintf(hdr[c], sizeof hdr[c], "%s_%s",
                     job_field(job_metrics[q])->disp_name, stat[s]);
            cells[c] = hdr[c];
        }
    for (int k = 0; k < SRC_N; k++, c++) {
        snprintf(hdr[c], sizeof hdr[c], "energy_%s_mwh_mean",
                 source_table[k].name);
        cells[c] = hdr[c];
    }
    rc = csvt_write_row(f, cells, nc);
    for (size_t row = 0; rc == SIM_OK && row <= m->n_jobs; row++) {
        int site = row == 0;
        size_t j = row - 1;
        c = 0;
        cells[c++] = site ? "site" : "job";
        cells[c++] =
            site ? (m->site_name ? m->site_name : "") : m->jobs[j].name;
        cells[c++] = m->scenario;
        snprintf(buf[3], sizeof buf[3], "%" PRIu64, m->seed);
        cells[c++] = buf[3];
        snprintf(buf[4], sizeof buf[4], "%zu", r->n_reps);
        cells[c++] = buf[4];
        snprintf(buf[5], sizeof buf[5], "%.15g", m->it_capacity_w * 1e-6);
        cells[c++] = buf[5];
        cells[c++] = site ? "" : m->jobs[j].model;
        cells[c++] = site ? "" : m->jobs[j].precision;
        if (site)
            buf[8][0] = '\0';
        else
            snprintf(buf[8], sizeof buf[8], "%d", (int)m->jobs[j].gpus);
        cells[c++] = buf[8];
        if (site) {
            buf[9][0] = '\0';
        } else {
            const stat_summary *d = job_sum(r, j, "completed");
            snprintf(buf[9], sizeof buf[9], "%.0f", d->mean * (double)d->n);
        }
        cells[c++] = buf[9];
        for (size_t q = 0; q < N_JOB_METRICS; q++) {
            const stat_summary *s = site ? site_sum(r, job_metrics[q])
                                         : job_sum(r, j, job_metrics[q]);
            double v[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
            if (s && s->n) {
                v[0] = s->mean;
                v[1] = s->p10;
                v[2] = s->p50;
                v[3] = s->p90;
                v[4] = s->min;
                v[5] = s->max;
            }
            for (int k = 0; k < 6; k++, c++) {
                if (isnan(v[k]))
                    buf[c][0] = '\0';
                else
                    snprintf(buf[c], sizeof buf[c], "%.15g",
                             v[k] / job_field(job_metrics[q])->disp_per);
                cells[c] = buf[c];
            }
        }
        for (int k = 0; k < SRC_N; k++, c++) {
            char field[48];
            const stat_summary *s;
            snprintf(field, sizeof field, "energy_%s_j", source_table[k].name);
            s = site ? site_sum(r, field) : job_sum(r, j, field);
            if (s && s->n)
                snprintf(buf[c], sizeof buf[c], "%.15g", s->mean / J_PER_MWH);
            else
                buf[c][0] = '\0';
            cells[c] = buf[c];
        }
        rc = csvt_write_row(f, cells, nc);
    }
    free(hdr);
    free(buf);
    free(cells);
    return rc;
}

/* Writes text through fn into DIR/name via a temporary file and a rename: a
 * reader (or a rerun) never sees a half-written summary, and a failed write
 * removes the temporary file and leaves any previous summary in place. */
static int write_file(const char *dir, const char *name, void *ctx,
                      int (*fn)(FILE *, void *), sim_err *err)
{
    char path[1200], tmp[1210];
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "wb")))
        return sim_err_set(err, SIM_EIO, path, 0, "cannot write file (%s)",
                           strerror(errno));
    rc = fn(f, ctx);
    if (fclose(f) != 0 || rc != SIM_OK) {
        remove(tmp);
        return sim_err_set(err, SIM_EIO, path, 0, "write failed");
    }
    /* rename replaces the old file atomically on POSIX file systems, so a
     * reader sees the old summary or the new one, never a mix. */
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot rename into place (%s)", strerror(errno));
    }
    return SIM_OK;
}

typedef struct md_ctx {
    const db_run *r;
    const report_out *cl;
} md_ctx;

static int md_fn(FILE *f, void *ctx)
{
    md_ctx *c = ctx;
    write_md(f, c->r, c->cl);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

static int compare_csv_fn(FILE *f, void *ctx)
{
    return compare_write_csv(f, ctx, 0);
}

static int csv_fn(FILE *f, void *ctx)
{
    return write_csv(f, ctx);
}

typedef struct html_ctx {
    report_doc_in in;
    sim_err *err;
} html_ctx;

static int html_fn(FILE *f, void *ctx)
{
    html_ctx *h = ctx;
    return report_doc_write(f, &h->in, h->err);
}

/* charts.json (issue 24): every chart drawn with its file, what it shows,
 * title, axis labels with units, colour-scale label and legend entries, as
 * the charts recorded them while drawing (io/plot.h plot_last_meta), so the
 * list cannot disagree with the pictures; then the charts not drawn and
 * why. Keys in a fixed order and no paths or times: same run, same bytes. */
typedef struct json_ctx {
    const report_out *cl;
    const char *pdf_note; /* what became of report.pdf */
    int pdf_pages;        /* 0: not written */
} json_ctx;

static int charts_json_fn(FILE *f, void *ctx)
{
    const json_ctx *jc = ctx;
    const report_out *cl = jc->cl;
    jv *root = jv_obj(), *arr = jv_arr(), *skip = jv_arr(), *pdf = jv_obj();
    int rc;
    for (int i = 0; i < cl->n; i++) {
        const plot_meta *m = &cl->meta[i];
        jv *c = jv_obj(), *leg = jv_arr();
        jv_set(c, "file", jv_str(cl->file[i]));
        jv_set(c, "what", jv_str(cl->what[i]));
        jv_set(c, "title", jv_str(m->title));
        jv_set(c, "x_label", jv_str(m->xlabel));
        jv_set(c, "y_label", jv_str(m->ylabel));
        if (m->zlabel[0])
            jv_set(c, "colour_scale_label", jv_str(m->zlabel));
        for (int k = 0; k < m->n_legend; k++)
            jv_push(leg, jv_str(m->legend[k]));
        jv_set(c, "legend", leg);
        /* The smallest text's height [px] on the page (readability at
         * half width: tests/test_report.c), rounded to 0.1 px. */
        jv_set(c, "min_text_px", jv_num(round(10.0 * m->min_text_px) / 10.0));
        jv_push(arr, c);
    }
    for (int i = 0; i < cl->n_skipped; i++)
        jv_push(skip, jv_str(cl->skipped[i]));
    jv_set(root, "charts", arr);
    jv_set(root, "not_drawn", skip);
    /* Issue 25: the multi-page PDF, or why there is none. */
    jv_set(pdf, "file", jc->pdf_pages ? jv_str("report.pdf") : jv_null());
    jv_set(pdf, "pages", jv_int(jc->pdf_pages));
    jv_set(pdf, "note", jv_str(jc->pdf_note));
    jv_set(root, "pdf", pdf);
    jv_set(root, "html", jv_str("report.html"));
    rc = jv_write(root, f, 1);
    jv_free(root);
    return rc;
}

/* Checks that optimize problem id is stored and, when run_id is given,
 * sets *run_id to the run of its best design (the refined case when the
 * best design was refined). Errors: SIM_ENOTFOUND, SIM_EIO. */
static int best_design_run(db *d, int64_t id, int64_t *run_id, sim_err *err)
{
    db_opt_problem *p = NULL;
    int rc = db_opt_load(d, id, &p, err);
    for (size_t i = 0; rc == SIM_OK && i < p->n_designs; i++)
        if (p->designs[i].best && run_id)
            rc = db_case_run(
                d, p->designs[i].refined ? p->refined_sweep_key : p->sweep_key,
                p->designs[i].case_key, run_id, err);
    db_opt_free(p);
    return rc;
}

/* The order keeps "no partial output" cheap: options, then the database opened
 * read-only and the run loaded (a wrong --db or --run fails here with nothing
 * written), then the sweep options checked against the run, then the folder
 * made, then charts, then the two summaries (which list the charts, so they
 * come after them). A failure after the folder exists leaves the files already
 * finished, each complete, and reports the error. */
int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"run", required_argument, NULL, 'r'},
        {"runs", required_argument, NULL, 'R'},
        {"out", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"metric", required_argument, NULL, 'm'},
        {"by", required_argument, NULL, 'b'},
        {"constraint", required_argument, NULL, 'k'},
        {"optimize", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "report", *dbpath = "output/factorysim.db", *dir = NULL,
               *ext = "png";
    const char *sw_metric = NULL, *sw_by = NULL, *sw_con = NULL, *runs = NULL;
    compare *cmp = NULL;      /* --runs */
    compare_doc *cdoc = NULL; /* its section of report.html */
    int64_t run_id = -1, opt_id = 0;
    uint64_t u;
    int o, rc;
    struct stat sb;
    report_out *cl = NULL; /* made once the inputs are known good */
    char **svg = NULL, pdf_note[400] = "";
    report_src src;
    int pdf_pages = 0;
    db *d;
    db_run *r = NULL;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'd':
            dbpath = optarg;
            break;
        case 'r':
            if (cli_u64(cmd, "--run", optarg, &u) != 0)
                return CLI_EXIT_USAGE;
            if (u < 1 || u > INT64_MAX)
                return cli_usage_error(
                    cmd, "--run must be a run id >= 1 (got %s)", optarg);
            run_id = (int64_t)u;
            break;
        case 'R':
            runs = optarg;
            break;
        case 'o':
            dir = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "png") && strcmp(optarg, "svg") &&
                strcmp(optarg, "pdf"))
                return cli_usage_error(
                    cmd, "--format must be png, svg or pdf (got %s)", optarg);
            ext = optarg;
            break;
        case 'm':
            sw_metric = optarg;
            break;
        case 'b':
            sw_by = optarg;
            break;
        case 'k': {
            opt_spec sp;
            char why[512];
            if (opt_spec_constraint(optarg, &sp, why, sizeof why) < 0)
                return cli_usage_error(cmd, "%s", why);
            sw_con = optarg;
            break;
        }
        case 'O':
            if (cli_u64(cmd, "--optimize", optarg, &u) != 0)
                return CLI_EXIT_USAGE;
            if (u < 1 || u > INT64_MAX)
                return cli_usage_error(
                    cmd, "--optimize must be a problem id >= 1 (got %s)",
                    optarg);
            opt_id = (int64_t)u;
            break;
        case 'h':
            fputs(report_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!dir)
        return cli_usage_error(cmd, "--out DIR is required");
    if (runs && run_id >= 0)
        return cli_usage_error(cmd, "--run and --runs exclude each other "
                                    "(the first of --runs is reported)");
    sim_err_clear(&err);
    /* Read-only: a report must never migrate a database or hold a write lock on
     * it while a sweep may be writing to it. */
    if (db_open_readonly(dbpath, &d, &err) != SIM_OK)
        return cli_report(&err);
    /* --runs: the runs are resolved as `compare` resolves them, and the
     * first is the run the rest of the bundle reports. */
    if (runs) {
        rc = compare_load_list(d, dbpath, runs, &cmp, &err);
        if (rc != SIM_OK) {
            db_close(d);
            return rc == SIM_EUSAGE ? cli_usage_error(cmd, "%s", err.msg)
                                    : cli_report(&err);
        }
        for (size_t i = 0; i < cmp->n_runs; i++)
            if (cmp->runs[i].note[0])
                fprintf(stderr, "factorysim: report: %s\n", cmp->runs[i].note);
        run_id = cmp->runs[0].id;
    }
    /* --optimize ID without --run reports the problem's best design. */
    if (opt_id > 0 && best_design_run(d, opt_id, run_id < 0 ? &run_id : NULL,
                                      &err) != SIM_OK) {
        db_close(d);
        compare_free(cmp);
        return cli_report(&err);
    }
    if ((run_id < 0 && db_latest_run(d, &run_id, &err) != SIM_OK) ||
        db_load_run(d, run_id, DB_LOAD_STEPS | DB_LOAD_EVENTS, &r, &err) !=
            SIM_OK) {
        db_close(d);
        compare_free(cmp);
        return cli_report(&err);
    }
    /* --metric and --by only shape the sweep chart; giving them for a plain run
     * is a usage error rather than silently ignored. */
    if ((sw_metric || sw_by || sw_con) && !r->meta.sweep_key) {
        db_close(d);
        db_run_free(r);
        compare_free(cmp);
        return cli_usage_error(cmd,
                               "--metric/--by/--constraint chart a sweep; "
                               "run %" PRId64 " is not a sweep case",
                               run_id);
    }
    /* The folder is made only once the inputs are known good, so a bad
     * --run or database leaves nothing behind. */
    if (cli_make_dirs(dir, 1, &err) != SIM_OK || stat(dir, &sb) != 0 ||
        !S_ISDIR(sb.st_mode) || access(dir, W_OK) != 0) {
        db_close(d);
        db_run_free(r);
        compare_free(cmp);
        return err.code != SIM_OK
                   ? cli_report(&err)
                   : cli_error("%s: output folder is not writable", dir);
    }
    src = (report_src){r, d, sw_metric, sw_by, sw_con, opt_id, cmp};
    cl = sim_xcalloc(1, sizeof *cl);
    cl->dir = dir;
    cl->ext = ext;
    rc = report_draw_all(&src, cl, &err);
    if (rc == SIM_OK) {
        /* Issue 25: the PDF of the charts and the SVGs report.html holds,
         * drawn while the database is still open (the sweep chart reads
         * it), from the same sources as the charts above. */
        rc = report_render_pdf(&src, cl, pdf_note, sizeof pdf_note, &pdf_pages,
                               &err);
        if (rc == SIM_OK && !(svg = report_render_svgs(&src, cl, &err)))
            rc = SIM_EIO;
    }
    db_close(d);
    if (rc == SIM_OK) {
        md_ctx mc = {r, cl};
        json_ctx jc = {cl, pdf_note, pdf_pages};
        html_ctx hc;
        memset(&hc, 0, sizeof hc);
        hc.in.run = r;
        hc.in.charts = cl;
        hc.in.svg = (const char *const *)svg;
        hc.in.pdf_note = pdf_note;
        /* report --runs: the comparison's tables as a section of the page
         * (its chart is among the charts already). */
        if (cmp) {
            cdoc = compare_doc_new(cmp);
            hc.in.extra = compare_doc_sections(cdoc, &hc.in.n_extra);
        }
        hc.err = &err;
        rc = write_file(dir, "summary.csv", r, csv_fn, &err);
        if (rc == SIM_OK && cmp)
            rc = write_file(dir, "compare.csv", cmp, compare_csv_fn, &err);
        if (rc == SIM_OK)
            rc = write_file(dir, "charts.json", &jc, charts_json_fn, &err);
        if (rc == SIM_OK)
            rc = write_file(dir, "summary.md", &mc, md_fn, &err);
        if (rc == SIM_OK)
            rc = write_file(dir, "report.html", &hc, html_fn, &err);
    }
    for (int i = 0; svg && i < cl->n; i++)
        free(svg[i]);
    free(svg);
    if (rc == SIM_OK) {
        printf("report of run %" PRId64
               " (%s) in %s: summary.md, summary.csv, %scharts.json, "
               "report.html%s",
               run_id, r->meta.scenario, dir, cmp ? "compare.csv, " : "",
               pdf_pages ? ", report.pdf" : "");
        for (int i = 0; i < cl->n; i++)
            printf(", %s", cl->file[i]);
        fputc('\n', stdout);
        for (int i = 0; i < cl->n_skipped; i++) {
            /* A skipped chart (no time series stored, no battery) is printed on
             * both streams: stdout for the record of what the bundle holds,
             * stderr so a user watching the terminal notices. */
            printf("not drawn: %s\n", cl->skipped[i]);
            fprintf(stderr, "factorysim: not drawn: %s\n", cl->skipped[i]);
        }
    }
    db_run_free(r);
    compare_doc_free(cdoc);
    compare_free(cmp);
    free(cl);
    return rc == SIM_OK ? CLI_EXIT_OK : cli_report(&err);
}
