/* app/report_summary.c: the summary of a stored run in Markdown and CSV
 * (`report`'s summary.md and summary.csv): scenario, capacity, energy mix,
 * costs, and per job the time to train, energy, carbon and cost with their
 * P10-P90 ranges.
 *
 * This file owns the summary's wording and columns and nothing else: it
 * reads a loaded db_run (never the database, never a scenario) and writes
 * to a FILE the caller opened (cli/cmd_report.c writes through a temporary
 * file and a rename). Conversions to display units happen here only (days,
 * MWh, MW, tCO2e). Fields are looked up by name in the resfield table, so
 * the summary follows the table's units and labels; a field renamed there
 * must be renamed here too (see job_sum). No wall-clock time or absolute
 * path is written, so the same run gives the same bytes. */
#include "app/report_summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/report_spread.h"
#include "io/csv.h"
#include "models/resfield.h"
#include "sim/mem.h"

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
void report_summary_md(FILE *f, const db_run *r, const report_out *cl)
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
    fprintf(f, " |\n| Horizon | %.4g days |\n", m->horizon_s / S_PER_DAY);
    report_spread_md_solar_row(f, r);
    fputs("\n", f);

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
          "its time to train is left out of the range.\n\n",
          f);
    report_spread_md(f, r);
    fputs("## Charts\n\n", f);
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
int report_summary_csv(FILE *f, const db_run *r)
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
