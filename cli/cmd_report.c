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
 * Chart drawing lives in app/report_charts.c and the summary's wording and
 * columns in app/report_summary.c; this file owns the command: its options,
 * which run and charts, and writing each file through a temporary name.
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
#include "app/report_spread.h"
#include "app/report_summary.h"
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
    report_summary_md(f, c->r, c->cl);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

static int compare_csv_fn(FILE *f, void *ctx)
{
    return compare_write_csv(f, ctx, 0);
}

static int csv_fn(FILE *f, void *ctx)
{
    return report_summary_csv(f, ctx);
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
