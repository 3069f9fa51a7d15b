/* cli/cmd_exemplar.c: `factorysim exemplar MEASURED.csv`: a user's measured
 * training throughput checked row by row against the Exemplar bar (95% of the
 * published reference row, else of the calibrated model's prediction), with the
 * compute-or-communication diagnosis of models/exemplar.h. The reference table
 * defaults to data/calibration/megatron_throughput.csv.
 *
 * The command reads two CSVs, hands parsed rows to models/exemplar.c and
 * formats what comes back; the verdict and the diagnosis are never decided
 * here. Its exit status is part of the contract (help text, cli.h): 3 means
 * "checked and failed", 1 "could not judge", and an error always outranks a
 * failure so that a CI job never reads a half-judged file as a clean fail.
 * Machine-readable output names the reference file by its base name only, so
 * the JSON does not change with the data home's absolute path. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/datadir.h"
#include "io/json.h"
#include "io/site_calib_file.h"
#include "models/exemplar.h"
#include "models/site_calib.h"
#include "sim/mem.h"

static const char exemplar_help[] =
    "Usage: factorysim exemplar MEASURED.csv [OPTIONS]\n"
    "\n"
    "Compares measured rows (the columns of megatron_throughput.csv; extra\n"
    "columns ignored; the measurement is tokens_per_sec_per_gpu, else\n"
    "tokens_per_sec_total, else step_time_s) with their reference: the\n"
    "published row of the same configuration (same release preferred, else\n"
    "the newest), else the calibrated model's prediction and its 80%\n"
    "interval. Verdict (the Exemplar criterion): pass when measured >= 0.95 x\n"
    "reference; against the model, inconclusive when 0.95 x the interval\n"
    "straddles the measurement. A failing row's shortfall is attributed to\n"
    "compute or communication: the factor slowing the model's compute, or its\n"
    "communication, that reproduces the measured step times of all rows on\n"
    "the same GPU type, taken to be one cluster (one row alone cannot tell;\n"
    "it is then attributed to the smaller change, marked basis 'row'). A row\n"
    "that cannot be handled gets blank results and a FILE:LINE reason on\n"
    "stderr.\n"
    "\n"
    "Exit status: 0 when every row passed (inconclusive rows count as passed\n"
    "unless --strict); 3 when any row failed (or, with --strict, was\n"
    "inconclusive); 1 when any row could not be judged (an error outranks a\n"
    "failure); 2 on a usage error.\n"
    "\n"
    "Options:\n"
    "  --reference FILE     published reference rows (default: the copy in\n"
    "                       data/calibration/megatron_throughput.csv)\n"
    "  --calibration FILE   calibration file (default: built-in)\n"
    "  --format F           table (default), json or csv\n"
    "  --strict             an inconclusive row fails the check (exit 3)\n"
    "  --write-site-calibration FILE  fit the cluster's compute and\n"
    "                       communication speeds per GPU type (and class x\n"
    "                       precision) from the rows, a Bayesian update of\n"
    "                       the model's spread, and write them to FILE for\n"
    "                       predict --site-calibration / site.calibration\n"
    "  -h, --help           this help\n";

/* The copy in the data home (io/datadir.h). Static string. Resolved through the
 * data home so that an installed binary finds its own copy; the table prints a
 * fixed "built-in ..." label instead of this path, for the same reason as
 * above. */
static const char *default_reference(void)
{
    static char buf[4096];
    const char *rel = "data/calibration/megatron_throughput.csv";
    if (datadir_path(rel, buf, sizeof buf) != 0)
        return rel; /* home too long: name the file at least */
    return buf;
}

/* Used for JSON only: the base name identifies the reference table without
 * tying the output to where the data home is installed. */
static const char *basename_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Output cells of one row; blank where the row failed. One row's output as
 * strings, in output column order: the table, the CSV and the JSON are all
 * printed from the same cells, so the three formats cannot disagree on a value
 * or its rounding. */
enum {
    O_LINE,
    O_MODEL,
    O_GPU,
    O_PREC,
    O_GPUS,
    O_RELEASE,
    O_MEAS,
    O_REF,
    O_REF_REL,
    O_REF_LINE,
    O_REF_TPS,
    O_REF_LO,
    O_REF_HI,
    O_RATIO,
    O_VERDICT,
    O_STEP,
    O_COMM,
    O_FA,
    O_FB,
    O_CAUSE,
    O_BASIS,
    O_NOTE,
    O_N
};
static const char *const col_names[O_N] = {
    "line",
    "model",
    "gpu",
    "precision",
    "num_gpus",
    "release",
    "measured_tokens_per_sec_per_gpu",
    "reference",
    "reference_release",
    "reference_line",
    "reference_tokens_per_sec_per_gpu",
    "reference_low_tokens_per_sec_per_gpu",
    "reference_high_tokens_per_sec_per_gpu",
    "ratio",
    "verdict",
    "model_step_time_s",
    "model_comm_share",
    "compute_factor",
    "comm_factor",
    "cause",
    "cause_basis",
    "note",
};

/* 160 characters per cell is enough for any value and for the note, which
 * fill() cuts to fit; fixed arrays keep one row a single allocation. */
typedef struct cells {
    char v[O_N][160];
} cells;

/* NaN and infinity become blank cells, which the CSV writer prints empty and
 * print_json turns into null. */
static void fmt_num(char *b, size_t n, const char *f, double x)
{
    if (isfinite(x))
        snprintf(b, n, f, x);
    else
        b[0] = '\0';
}

/* Blank cells mean "not available" in every format (empty CSV cell, JSON null,
 * table blank). The input's own columns are copied for every row, even one that
 * failed, so each output row can be matched to its input line; the column
 * lookups cannot fail because the row reader refuses files without them
 * (io/calib_rows.c). */
static void fill(cells *c, const csvt *t, size_t i, const calib_row *row,
                 int ok, const exemplar_row *e, int done, const calib_row *refs,
                 const csvt *rt)
{
    int col;
    memset(c, 0, sizeof *c);
    snprintf(c->v[O_LINE], sizeof c->v[0], "%d", t->line[i]);
    col = csvt_col(t, "model");
    snprintf(c->v[O_MODEL], sizeof c->v[0], "%s", t->rows[i][col]);
    col = csvt_col(t, "gpu");
    snprintf(c->v[O_GPU], sizeof c->v[0], "%s", t->rows[i][col]);
    col = csvt_col(t, "precision");
    snprintf(c->v[O_PREC], sizeof c->v[0], "%s", t->rows[i][col]);
    col = csvt_col(t, "num_gpus");
    snprintf(c->v[O_GPUS], sizeof c->v[0], "%s", t->rows[i][col]);
    if (ok)
        snprintf(c->v[O_RELEASE], sizeof c->v[0], "%s", row->release);
    if (!done)
        return;
    fmt_num(c->v[O_MEAS], sizeof c->v[0], "%.1f", e->meas_tps);
    snprintf(c->v[O_REF], sizeof c->v[0], "%s", exemplar_ref_name(e->ref_kind));
    if (e->ref_kind == EXEMPLAR_REF_PUBLISHED) {
        snprintf(c->v[O_REF_REL], sizeof c->v[0], "%s",
                 refs[e->ref_index].release);
        snprintf(c->v[O_REF_LINE], sizeof c->v[0], "%d",
                 rt->line[e->ref_index]);
    }
    fmt_num(c->v[O_REF_TPS], sizeof c->v[0], "%.1f", e->ref_tps);
    fmt_num(c->v[O_REF_LO], sizeof c->v[0], "%.1f", e->ref_low_tps);
    fmt_num(c->v[O_REF_HI], sizeof c->v[0], "%.1f", e->ref_high_tps);
    fmt_num(c->v[O_RATIO], sizeof c->v[0], "%.4f", e->ratio);
    snprintf(c->v[O_VERDICT], sizeof c->v[0], "%s",
             exemplar_verdict_name(e->verdict));
    fmt_num(c->v[O_STEP], sizeof c->v[0], "%.5g", e->step_model_s);
    fmt_num(c->v[O_COMM], sizeof c->v[0], "%.4f", e->comm_share);
    fmt_num(c->v[O_FA], sizeof c->v[0], "%.4f", e->compute_factor);
    fmt_num(c->v[O_FB], sizeof c->v[0], "%.4f", e->comm_factor);
    snprintf(c->v[O_CAUSE], sizeof c->v[0], "%s",
             exemplar_cause_name(e->cause));
    snprintf(c->v[O_BASIS], sizeof c->v[0], "%s",
             exemplar_basis_name(e->basis));
    if (!e->has_model)
        snprintf(c->v[O_NOTE], sizeof c->v[0], "no diagnosis: %.140s", e->why);
    else if (e->release_fallback)
        snprintf(c->v[O_NOTE], sizeof c->v[0],
                 "release %.40s not calibrated: model uses the newest",
                 row->release);
}

/* The criterion is restated above the table because a verdict is only
 * meaningful with its rule, and the table is what gets pasted into reports. */
static const char *header_text =
    "Exemplar check: pass when measured >= 0.95 x reference (published row of\n"
    "the same configuration, same release preferred, else newest; else the\n"
    "model's prediction: pass above 0.95 x its 80% interval's high end, fail\n"
    "below 0.95 x its low end, inconclusive between). Diagnosis of a failing\n"
    "row: compute factor a (all compute x a) or communication factor b (all\n"
    "collectives x b) that reproduces the measured step time through the\n"
    "model's breakdown; the rows of one GPU type are fitted with one a and\n"
    "with one b, and the clearly better fit names the cause (basis 'group');\n"
    "otherwise the smaller change |log a| vs |log b| (basis 'row': weak).\n";

/* Fixed-width columns with long names cut (%-22.22s) so that rows line up
 * whatever the model names; the model's interval and any note go on their own
 * indented line under the row rather than widening every row. */
static void print_table(const cells *cs, size_t n, const exemplar_group *g,
                        size_t ng, const char *meas, const char *ref)
{
    size_t counts[4] = {0};
    fputs(header_text, stdout);
    printf("measured: %s   reference: %s\n\n", meas, ref);
    printf("%5s %-22s %-6s %-8s %5s %10s %10s %-9s %6s %-12s %5s %7s %7s %s\n",
           "line", "model", "gpu", "precision", "gpus", "measured", "reference",
           "ref", "ratio", "verdict", "comm", "a", "b", "cause");
    printf("%5s %-22s %-6s %-8s %5s %10s %10s %-9s %6s %-12s %5s %7s %7s\n", "",
           "", "", "", "", "tok/s/GPU", "tok/s/GPU", "", "", "", "share", "",
           "");
    for (size_t i = 0; i < n; i++) {
        const cells *c = &cs[i];
        char refk[48];
        snprintf(refk, sizeof refk, "%s",
                 c->v[O_REF][0] == 'p'   ? "published"
                 : c->v[O_REF][0] == 'm' ? "model"
                                         : "");
        printf("%5s %-22.22s %-6.6s %-8.8s %5s %10s %10s %-9s %6s %-12s %5s "
               "%7s %7s %s%s%s%s\n",
               c->v[O_LINE], c->v[O_MODEL], c->v[O_GPU], c->v[O_PREC],
               c->v[O_GPUS], c->v[O_MEAS], c->v[O_REF_TPS], refk, c->v[O_RATIO],
               c->v[O_VERDICT][0] ? c->v[O_VERDICT] : "(error)", c->v[O_COMM],
               c->v[O_FA], c->v[O_FB], c->v[O_CAUSE],
               c->v[O_BASIS][0] ? " (" : "", c->v[O_BASIS],
               c->v[O_BASIS][0] ? ")" : "");
        if (c->v[O_REF][0] == 'm')
            printf("%5s   model 80%% interval %s - %s tokens/s/GPU\n", "",
                   c->v[O_REF_LO], c->v[O_REF_HI]);
        if (c->v[O_NOTE][0])
            printf("%5s   note: %s\n", "", c->v[O_NOTE]);
        /* The totals count rows as printed, so the summary line always matches
         * the table above it; index 3 is the rows that could not be judged. */
        counts[!strcmp(c->v[O_VERDICT], "pass")   ? 0
               : !strcmp(c->v[O_VERDICT], "fail") ? 1
               : c->v[O_VERDICT][0]               ? 2
                                                  : 3]++;
    }
    printf(
        "\n%zu rows: %zu pass, %zu fail, %zu inconclusive, %zu not handled\n",
        n, counts[0], counts[1], counts[2], counts[3]);
    for (size_t k = 0; k < ng; k++)
        printf("%s: %zu rows (%zu failing): one compute factor a = %.3f leaves "
               "rms log "
               "residual %.4f; one communication factor b = %.3f leaves %.4f "
               "-> %s\n",
               g[k].gpu, g[k].n, g[k].n_fail, g[k].a, g[k].rms_a, g[k].b,
               g[k].rms_b,
               g[k].cause ? exemplar_cause_name(g[k].cause)
                          : "not clearly either (rows attributed one by one)");
}

/* Numeric cells go back to numbers through strtod so JSON consumers get
 * numbers, not strings; they were formatted with fixed precision in fill(),
 * which is the precision the other formats show too. */
/* The site calibration's groups as JSON: speeds are posterior medians
 * with their 80% intervals, as the table prints them. */
static jv *site_calib_json(const site_calib *sc)
{
    jv *arr = jv_arr();
    for (int j = 0; sc && j < sc->n; j++) {
        const site_calib_entry *e = &sc->e[j];
        jv *o = jv_obj();
        double v[3];
        jv_set(o, "gpu", jv_str(e->gpu));
        jv_set(o, "class", jv_str(site_calib_cls_name(e->cls)));
        jv_set(o, "precision", jv_str(site_calib_recipe_name(e->recipe)));
        jv_set(o, "rows", jv_int(e->n_rows));
        for (int k = 0; k < 2; k++) {
            site_calib_speed(e, k, &v[0], &v[1], &v[2]);
            jv_set(o, k ? "comm_speed" : "compute_speed", jv_num(v[0]));
            jv_set(o, k ? "comm_speed_low" : "compute_speed_low", jv_num(v[1]));
            jv_set(o, k ? "comm_speed_high" : "compute_speed_high",
                   jv_num(v[2]));
        }
        jv_set(o, "throughput_factor", jv_num(exp(e->log_tput)));
        jv_set(o, "throughput_log_sd", jv_num(e->log_sd));
        jv_set(o, "separable", jv_bool(e->separable));
        jv_set(o, "rms_log_residual", jv_num(e->rms_resid));
        jv_set(o, "unexplained_residual",
               jv_bool(e->rms_resid > EXEMPLAR_NOISE_SD));
        jv_push(arr, o);
    }
    return arr;
}

static void print_json(const cells *cs, size_t n, const exemplar_group *g,
                       size_t ng, const char *ref, const site_calib *sc)
{
    jv *root = jv_obj(), *arr = jv_arr(), *ga = jv_arr();
    jv_set(root, "criterion", jv_num(EXEMPLAR_BAR));
    jv_set(root, "reference_file", jv_str(basename_of(ref)));
    for (size_t i = 0; i < n; i++) {
        jv *o = jv_obj();
        for (int k = 0; k < O_N; k++) {
            const char *v = cs[i].v[k];
            int numeric = k == O_LINE || k == O_GPUS || k == O_MEAS ||
                          k == O_REF_LINE ||
                          (k >= O_REF_TPS && k <= O_REF_HI) || k == O_RATIO ||
                          (k >= O_STEP && k <= O_FB);
            if (!v[0])
                jv_set(o, col_names[k], jv_null());
            else if (numeric)
                jv_set(o, col_names[k], jv_num(strtod(v, NULL)));
            else
                jv_set(o, col_names[k], jv_str(v));
        }
        jv_push(arr, o);
    }
    jv_set(root, "rows", arr);
    for (size_t k = 0; k < ng; k++) {
        jv *o = jv_obj();
        jv_set(o, "gpu", jv_str(g[k].gpu));
        jv_set(o, "rows", jv_int((int64_t)g[k].n));
        jv_set(o, "failing", jv_int((int64_t)g[k].n_fail));
        jv_set(o, "compute_factor", jv_num(g[k].a));
        jv_set(o, "compute_rms_log", jv_num(g[k].rms_a));
        jv_set(o, "comm_factor", jv_num(g[k].b));
        jv_set(o, "comm_rms_log", jv_num(g[k].rms_b));
        jv_set(o, "cause",
               g[k].cause ? jv_str(exemplar_cause_name(g[k].cause))
                          : jv_null());
        jv_push(ga, o);
    }
    jv_set(root, "groups", ga);
    jv_set(root, "site_calibration", site_calib_json(sc));
    jv_write(root, stdout, 1);
    jv_free(root);
}

/* The site calibration's posterior per group, in words a user can act on:
 * the factor that explains a shortfall with its 80% interval, whether the
 * rows could tell compute from communication apart (else the joint
 * statement only: the throughput factor they measured), and a residual
 * larger than measurement noise (EXEMPLAR_NOISE_SD), which neither factor
 * explains. Goes to stdout after the table, or stderr for json/csv so those
 * stay machine-readable. */
static void print_site_calib(FILE *o, const site_calib *sc)
{
    int unsep = 0;
    fputs("\nSite calibration (posterior median and 80% interval; 1 = the "
          "reference):\n",
          o);
    for (int j = 0; j < sc->n; j++) {
        const site_calib_entry *e = &sc->e[j];
        double c, cl, ch, m, ml, mh,
            tl = exp(e->log_tput - SITE_CALIB_Z80 * e->log_sd),
            th = exp(e->log_tput + SITE_CALIB_Z80 * e->log_sd);
        site_calib_speed(e, 0, &c, &cl, &ch);
        site_calib_speed(e, 1, &m, &ml, &mh);
        fprintf(o,
                "  %s %s %s, %d row%s: throughput x%.3f [%.3f, %.3f]; "
                "compute speed %.3f [%.3f, %.3f], communication speed "
                "%.3f [%.3f, %.3f]\n",
                e->gpu, site_calib_cls_name(e->cls),
                site_calib_recipe_name(e->recipe), e->n_rows,
                e->n_rows == 1 ? "" : "s", exp(e->log_tput), tl, th, c, cl, ch,
                m, ml, mh);
        /* Naming a cause needs both: the rows separate the factors, and
         * the factor's interval excludes 1. Otherwise the joint statement
         * is all the rows support. */
        if (!e->separable) {
            unsep++;
            fprintf(o,
                    "    cannot tell compute from communication apart: "
                    "%s\n",
                    th < 1.0 ? "a shortfall of the throughput as a whole"
                             : "only the throughput as a whole is measured");
        } else if (ch < 1.0 && (mh >= 1.0 || fabs(log(c)) > fabs(log(m))))
            fprintf(o,
                    "    shortfall explained by compute: speed %.3f "
                    "[%.3f, %.3f]\n",
                    c, cl, ch);
        else if (mh < 1.0)
            fprintf(o,
                    "    shortfall explained by communication: speed "
                    "%.3f [%.3f, %.3f]\n",
                    m, ml, mh);
        if (e->rms_resid > EXEMPLAR_NOISE_SD)
            fprintf(o,
                    "    unexplained residual: rms log residual %.3f > "
                    "measurement noise %.3f (neither factor explains the "
                    "rows' differences)\n",
                    e->rms_resid, EXEMPLAR_NOISE_SD);
    }
    if (unsep)
        fprintf(o,
                "  (%d group%s: rows of one kind slow compute and "
                "communication alike; rows with different communication "
                "shares, single- and multi-node, separate them)\n",
                unsep, unsep == 1 ? "" : "s");
}

/* The order is forced by the data: the calibration and both tables are loaded
 * before any row is judged (any load failure ends the command with exit 1
 * before output starts), every row is compared before the diagnosis (the group
 * fits need all rows of a GPU type), and the output is written last so that a
 * format is printed whole. Rows that cannot be read or compared are reported on
 * stderr with FILE:LINE and still appear in the output with blank results. */
int cmd_exemplar(int argc, char **argv)
{
    static const struct option opts[] = {
        {"reference", required_argument, NULL, 'r'},
        {"calibration", required_argument, NULL, 'C'},
        {"format", required_argument, NULL, 'f'},
        {"strict", no_argument, NULL, 'S'},
        {"write-site-calibration", required_argument, NULL, 'W'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "exemplar", *ref_path = NULL, *calib = NULL, *ref_shown,
               *site_out = NULL;
    site_calib *sc = NULL;
    int fmt = CLI_FMT_TABLE, o, rc = CLI_EXIT_OK, strict = 0;
    size_t n_fail = 0, n_inconclusive = 0;
    catalog *cat = NULL;
    tp_model *m = NULL;
    csvt *t = NULL, *rt = NULL;
    calib_row *rows = NULL, *refs = NULL;
    unsigned char *ok = NULL, *rok = NULL, *done = NULL;
    size_t n = 0, n_bad = 0, nr = 0, nr_bad = 0, ng = 0;
    exemplar_row *ex = NULL;
    exemplar_group *groups = NULL;
    cells *cs = NULL;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'r':
            ref_path = optarg;
            break;
        case 'C':
            calib = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            if (fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'S':
            strict = 1;
            break;
        case 'W':
            site_out = optarg;
            break;
        case 'h':
            fputs(exemplar_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, "expected one MEASURED.csv argument");
    /* The table shows the path the user gave, or a fixed label for the built-in
     * table, never the resolved data-home path, so the table reads the same on
     * every machine. */
    ref_shown = ref_path ? ref_path
                         : "built-in data/calibration/megatron_throughput.csv";
    if (!ref_path)
        ref_path = default_reference();
    sim_err_clear(&err);
    if (catalog_load(NULL, &cat, &err) != SIM_OK)
        return cli_report(&err);
    if ((calib ? tp_model_load(calib, &m, &err) : tp_model_default(&m, &err)) !=
            SIM_OK ||
        tpc_read_rows(ref_path, cat, &rt, &refs, &rok, &nr, &nr_bad, cli_report,
                      &err) != SIM_OK ||
        tpc_read_rows(argv[optind], cat, &t, &rows, &ok, &n, &n_bad, cli_report,
                      &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    /* A malformed row in either table makes the exit status 1 even if every
     * other row passes, since the user's file or the reference was not read
     * whole. */
    if (n_bad || nr_bad)
        rc = CLI_EXIT_ERR;
    /* Reference rows that did not parse cannot match: drop their measure. A
     * reference row that failed to parse keeps its slot (row indices must match
     * the reference file's lines) but cannot be matched: exemplar_match skips
     * rows whose measure is 0. */
    for (size_t i = 0; i < nr; i++)
        if (!rok[i])
            refs[i].meas_tps = 0;
    /* done[] marks the rows that got a verdict: exemplar_diagnose uses it as
     * its eligibility mask, and fill() uses it to leave the others blank. */
    ex = sim_xcalloc(n ? n : 1, sizeof *ex);
    done = sim_xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        if (exemplar_compare(m, &rows[i], refs, nr, &ex[i]) != SIM_OK) {
            fprintf(stderr, "factorysim: %s:%d: %s\n", t->path, t->line[i],
                    ex[i].why);
            rc = CLI_EXIT_ERR;
            continue;
        }
        done[i] = 1;
        n_fail += ex[i].verdict == EXEMPLAR_FAIL;
        n_inconclusive += ex[i].verdict == EXEMPLAR_INCONCLUSIVE;
    }
    /* The verdict of the whole check (cli.h): an unjudged row (rc already
     * 1) outranks a failing one, which outranks an inconclusive one. */
    if (rc == CLI_EXIT_OK && (n_fail > 0 || (strict && n_inconclusive > 0)))
        rc = CLI_EXIT_FAILED;
    /* The diagnosis runs after all verdicts and does not change them; it only
     * adds cause and basis to failing rows. */
    exemplar_diagnose(m, ex, done, n, &groups, &ng);
    /* The site calibration is fitted from every judged row (passing ones
     * too: a row at the reference is evidence of speed 1). Its file is
     * written before the report, and a failure to write it is exit 1. */
    {
        int *lines = sim_xcalloc(n ? n : 1, sizeof *lines);
        sim_err e2;
        sim_err_clear(&e2);
        for (size_t i = 0; i < n; i++)
            lines[i] = t->line[i];
        sc = sim_xcalloc(1, sizeof *sc);
        if (site_calib_fit(m, ex, done, lines, n, sc, &e2) != SIM_OK) {
            if (site_out) {
                rc = cli_report(&e2);
                free(lines);
                goto done;
            }
            sc->n = 0;
        }
        free(lines);
        if (site_out) {
            snprintf(sc->source_file, sizeof sc->source_file, "%.255s",
                     basename_of(argv[optind]));
            snprintf(sc->reference_file, sizeof sc->reference_file, "%.255s",
                     basename_of(ref_path));
            if (site_calib_sha256(argv[optind], sc->source_sha256, &e2) !=
                    SIM_OK ||
                site_calib_save(sc, site_out, &e2) != SIM_OK) {
                rc = cli_report(&e2);
                goto done;
            }
        }
    }
    cs = sim_xcalloc(n ? n : 1, sizeof *cs);
    for (size_t i = 0; i < n; i++)
        fill(&cs[i], t, i, &rows[i], ok[i], &ex[i], done[i], refs, rt);
    if (fmt == CLI_FMT_CSV) {
        const char *cells_p[O_N];
        csvt_write_row(stdout, col_names, O_N);
        for (size_t i = 0; i < n; i++) {
            for (int k = 0; k < O_N; k++)
                cells_p[k] = cs[i].v[k];
            csvt_write_row(stdout, cells_p, O_N);
        }
    } else if (fmt == CLI_FMT_JSON) {
        print_json(cs, n, groups, ng, ref_path, sc);
    } else {
        print_table(cs, n, groups, ng, argv[optind], ref_shown);
    }
    /* JSON carries the groups itself; CSV is one row per input row, so
     * the groups go to stderr there. */
    if (sc && sc->n && fmt != CLI_FMT_JSON)
        print_site_calib(fmt == CLI_FMT_TABLE ? stdout : stderr, sc);
    if (site_out)
        fprintf(fmt == CLI_FMT_TABLE ? stdout : stderr,
                "site calibration written to %s\n", site_out);
done:
    free(sc);
    free(cs);
    free(groups);
    free(ex);
    free(done);
    free(rows);
    free(ok);
    free(refs);
    free(rok);
    csvt_free(t);
    csvt_free(rt);
    tp_model_free(m);
    catalog_free(cat);
    return rc;
}
