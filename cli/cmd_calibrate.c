/* cli/cmd_calibrate.c: `factorysim calibrate DATA.csv`: fits the throughput
 * model (models/calib.h) on measured rows, cross-validates it two ways,
 * prints the accuracy table beside the lookup baseline and the nested
 * coverage of the 80 % interval (models/calib_cover.h), writes the
 * calibration file and a parity plot. See docs/throughput-model.md. */
#include <getopt.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/csv.h"
#include "io/json.h"
#include "io/plot.h"
#include "models/calib.h"
#include "models/calib_cover.h"
#include "models/llm.h"
#include "sim/mem.h"

static const char calibrate_help[] =
    "Usage: factorysim calibrate DATA.csv [OPTIONS]\n"
    "\n"
    "Fits the throughput model's free parameters to measured rows (the\n"
    "columns of megatron_throughput.csv) with GSL nonlinear least squares,\n"
    "cross-validates leaving one configuration out and one model out,\n"
    "prints MAPE of tokens/s/GPU per GPU type and model class beside the\n"
    "median-efficiency lookup baseline, the coverage of the 80 % interval\n"
    "under leave-one-configuration-out with its spread computed without the\n"
    "held-out configuration (nested), and writes the calibration file.\n"
    "A release x class factor is fitted only where two or more models of\n"
    "the class ran in the release, and kept only where leaving each model\n"
    "out, its rows are predicted better with the factor fitted on the\n"
    "others than without it; the cells left at 0 are named, with why.\n"
    "A row that cannot be read is reported as FILE:LINE and left out of\n"
    "the fit; it makes the exit status 1.\n"
    "\n"
    "Options:\n"
    "  --out FILE     calibration file (default: the built-in\n"
    "                 models/calibration.cfg)\n"
    "  --plots DIR    write DIR/parity.png (predicted vs measured)\n"
    "  --plot-format F  png (default), svg or pdf\n"
    "  --no-cv        skip cross-validation (fast; intervals from in-sample)\n"
    "  --predictions FILE  write DATA.csv back, one row per input row, with\n"
    "                 the measured tokens/s/GPU as the fit takes it, the\n"
    "                 in-sample, leave-one-configuration-out and\n"
    "                 leave-one-model-out predictions (and the\n"
    "                 --nested-lomo one), and each row's status\n"
    "                 (used, excluded, skipped: why, unreadable, no\n"
    "                 measurement)\n"
    "  --nested-lomo  also leave-one-model-out with the whole fit, the\n"
    "                 release x class selection included, redone in each\n"
    "                 fold (the LOMO column reuses the full fit's selection,\n"
    "                 which read its folds); one cold fit per model, about\n"
    "                 4 min on the bundled data\n"
    "  --format F     table (default) or json\n"
    "  -h, --help     this help\n";

/* Accuracy groups: all, three classes, then GPUs. */
#define N_COLS 6
enum { C_IN, C_LOCO, C_LOMO, B_IN, B_LOCO, B_LOMO };
static const char *col_names[N_COLS] = {"model_in_sample", "model_loco",
                                        "model_lomo",      "lookup_in_sample",
                                        "lookup_loco",     "lookup_lomo"};

typedef struct acc_row {
    char name[32];
    size_t n;
    double mape[N_COLS];
    double mse[N_COLS]; /* mean signed error, % (pred / measured - 1) */
    size_t cov_n;       /* rows with a held-out interval (LOCO) */
    double cov_nested;  /* fraction inside the 80 % interval, spread
                           computed without the held-out configuration */
    double cov_plain;   /* same, spread from every configuration */
    double mape_nested, mse_nested; /* --nested-lomo, % (NAN: not run) */
} acc_row;

/* Groups: 0 all, 1-3 classes, 4 .. 4+n_gpus-1 GPUs, then the two
 * micro-batch groups of issue 18 (TP_MB_FEW). mb = micro-batches per step
 * of the row's layout. */
static int in_group(const calib_row *r, int g, const char *gpu, int n_gpus,
                    int mb)
{
    if (g == 0)
        return 1;
    if (g <= 3)
        return (int)r->llm->cls == g - 1;
    if (g < 4 + n_gpus)
        return strcmp(r->gpu->name, gpu) == 0;
    return g == 4 + n_gpus ? mb <= TP_MB_FEW : mb > TP_MB_FEW;
}

/* The extra columns of --predictions, after the input's own. */
#define N_PX 6
static const char *const px_names[N_PX] = {
    "measured_tokens_per_sec_per_gpu",
    "predicted_tokens_per_sec_per_gpu",
    "predicted_loco_tokens_per_sec_per_gpu",
    "predicted_lomo_tokens_per_sec_per_gpu",
    "predicted_lomo_nested_tokens_per_sec_per_gpu",
    "calibrate_status"};

/* Writes --predictions: DATA.csv's rows in input order, each with the
 * measured value the fit takes, the three predictions (blank when the row
 * was not used, or without cross-validation), the --nested-lomo one
 * (nested, NULL: blank) and why[i], for the n rows
 * read (t's rows). use[i] is the row's index among the used rows, -1 if
 * unused. Written to OUT.tmp and
 * renamed, so a failure leaves no half file. Why a file and not a table:
 * the per-row errors are what an engineer sorts and groups to find where
 * the model misses (docs/throughput-model.md §4). */
static int write_predictions(const char *out, const csvt *t, size_t n,
                             const int *use, char (*why)[160],
                             double *const *pred, int cv, const double *nested,
                             const calib_row *use_rows)
{
    char tmp[4200], buf[N_PX - 1][32];
    const char **cells = sim_xmalloc((t->n_cols + N_PX) * sizeof *cells);
    sim_err e;
    FILE *f;
    int bad;
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    if (cli_make_dirs(out, 0, &e) != SIM_OK) {
        free(cells);
        return cli_report(&e); /* names the folder and why */
    }
    if (!(f = fopen(tmp, "w"))) {
        free(cells);
        return cli_error("%s: cannot write file", out);
    }
    for (size_t c = 0; c < t->n_cols; c++)
        cells[c] = t->header[c];
    for (int k = 0; k < N_PX; k++)
        cells[t->n_cols + (size_t)k] = px_names[k];
    csvt_write_row(f, cells, t->n_cols + N_PX);
    for (size_t i = 0; i < n; i++) {
        int u = use[i];
        for (size_t c = 0; c < t->n_cols; c++)
            cells[c] = t->rows[i][c];
        for (int k = 0; k < N_PX - 1; k++) {
            buf[k][0] = '\0';
            cells[t->n_cols + (size_t)k] = buf[k];
        }
        cells[t->n_cols + N_PX - 1] = why[i];
        /* One decimal, as predict --csv writes its throughputs. */
        if (u >= 0) {
            snprintf(buf[0], sizeof buf[0], "%.1f", use_rows[u].meas_tps);
            snprintf(buf[1], sizeof buf[1], "%.1f", pred[C_IN][u]);
            if (cv) {
                snprintf(buf[2], sizeof buf[2], "%.1f", pred[C_LOCO][u]);
                snprintf(buf[3], sizeof buf[3], "%.1f", pred[C_LOMO][u]);
            }
            if (nested)
                snprintf(buf[4], sizeof buf[4], "%.1f", nested[u]);
        }
        csvt_write_row(f, cells, t->n_cols + N_PX);
    }
    free(cells);
    bad = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || bad || rename(tmp, out) != 0) {
        remove(tmp);
        return cli_error("%s: cannot write file (%s)", out,
                         errno ? strerror(errno) : "write error");
    }
    return CLI_EXIT_OK;
}

/* Prints cell k of a list, "; "-separated and wrapped at 78 columns,
 * each line four spaces in; *col is the column reached (start past 78). */
static void print_cell(int k, const char *cell, int *col)
{
    int len = (int)strlen(cell);
    if (*col + len + 2 > 78) {
        printf("%s\n    ", k ? ";" : "");
        *col = 4;
    } else {
        printf("; ");
        *col += 2;
    }
    printf("%s", cell);
    *col += len;
}

/* The release x class cells left without a factor (calib_fit): not
 * supported when each model is left out (with the held-out rows' rms log
 * error with the factor and without), or measured on one model only, so a
 * reader sees which rows run at the typical stack's speed and why. */
static void print_release_cells(const tp_model *m, const calib_fit_info *fi)
{
    int col, n_drop = 0, j = 0;
    for (int k = 0; k < fi->n_rel_tested; k++)
        n_drop += !fi->rel_tested[k].kept;
    printf("release x class factors: %d fitted\n", fi->n_rel_fitted);
    if (n_drop)
        printf("  %d left at 0, not supported when each model is left out "
               "(rms log\n  error of the held-out rows with / without the "
               "factor):",
               n_drop);
    col = 80;
    for (int k = 0; k < fi->n_rel_tested; k++) {
        char cell[160];
        if (fi->rel_tested[k].kept)
            continue;
        if (fi->rel_tested[k].n)
            snprintf(cell, sizeof cell, "%s %s (%d rows, %.3f / %.3f)",
                     m->releases[fi->rel_tested[k].rel],
                     llm_class_name(fi->rel_tested[k].cls), fi->rel_tested[k].n,
                     fi->rel_tested[k].rms_with, fi->rel_tested[k].rms_without);
        else /* every refit that would have tested it failed */
            snprintf(cell, sizeof cell, "%s %s (untested)",
                     m->releases[fi->rel_tested[k].rel],
                     llm_class_name(fi->rel_tested[k].cls));
        print_cell(j++, cell, &col);
    }
    if (n_drop)
        printf("\n");
    if (fi->n_sel_failed)
        printf("  (%d leave-one-model-out refits of that test failed; their "
               "rows gave no evidence)\n",
               fi->n_sel_failed);
    if (fi->n_rel_one_model)
        printf("  %d left at 0, measured on one model only:",
               fi->n_rel_one_model);
    col = 80;
    for (int k = 0; k < fi->n_rel_one_model; k++) {
        char cell[160];
        snprintf(cell, sizeof cell, "%s %s (%s)",
                 m->releases[fi->rel_one_model[k].rel],
                 llm_class_name(fi->rel_one_model[k].cls),
                 fi->rel_one_model[k].model->name);
        print_cell(k, cell, &col);
    }
    printf(fi->n_rel_one_model ? "\n\n" : "\n");
}

/* A release x class cell as JSON: {"release", "class"}, for the caller
 * to add what it says of the cell. */
static jv *cell_json(const tp_model *m, int rel, int cls)
{
    jv *cell = jv_obj();
    jv_set(cell, "release", jv_str(m->releases[rel]));
    jv_set(cell, "class", jv_str(llm_class_name(cls)));
    return cell;
}

/* Why one long function: calibrating is one pipeline over the same rows
 * (read, keep the evaluable ones, fit, cross-validate leaving one
 * configuration out and one model out, interval widths, accuracy table,
 * then the calibration file and the parity plot), each step using the
 * arrays the earlier ones made; keeping it in order here, with one `done:`
 * that frees them, shows that nothing is written before the fit and the
 * checks passed. The fit itself is models/calib.c. */
int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"plots", required_argument, NULL, 'p'},
        {"plot-format", required_argument, NULL, 'P'},
        {"no-cv", no_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"predictions", required_argument, NULL, 'r'},
        {"nested-lomo", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "calibrate", *out_path = NULL, *plots = NULL,
               *pfmt = "png", *pred_path = NULL;
    int fmt = CLI_FMT_TABLE, o, cv = 1, nested = 0, rc = CLI_EXIT_OK;
    catalog *cat = NULL;
    csvt *t = NULL;
    calib_row *rows = NULL, *use_rows = NULL;
    unsigned char *ok = NULL;
    size_t n = 0, n_bad = 0, nu = 0, n_unpred = 0;
    double *pred[N_COLS] = {NULL}, *pred_nested = NULL;
    tp_model m;
    calib_fit_info fi;
    sim_err err;
    acc_row acc[3 + 1 + TP_MAX_GPUS + 2];
    int *mbs = NULL;
    double *nsd = NULL;
    signed char *cov = NULL, *cov_plain = NULL;
    unsigned char *sel = NULL;
    int *use = NULL;        /* input row -> used row, -1 */
    char(*why)[160] = NULL; /* input row -> its calibrate_status */
    char anom[256] = "";
    size_t k_anom = 0, n_anom = 0;
    int n_acc = 0;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'o':
            out_path = optarg;
            break;
        case 'p':
            plots = optarg;
            break;
        case 'P':
            if (strcmp(optarg, "png") && strcmp(optarg, "svg") &&
                strcmp(optarg, "pdf"))
                return cli_usage_error(
                    cmd, "--plot-format: expected png, svg or pdf (got '%s')",
                    optarg);
            pfmt = optarg;
            break;
        case 'N':
            nested = 1;
            break;
        case 'n':
            cv = 0;
            break;
        case 'r':
            pred_path = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            if (fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs(calibrate_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, "expected one DATA.csv argument");
    if (!out_path)
        out_path = tp_model_default_path();
    sim_err_clear(&err);
    if (catalog_load(NULL, &cat, &err) != SIM_OK)
        return cli_report(&err);
    if (tpc_read_rows(argv[optind], cat, &t, &rows, &ok, &n, &n_bad, cli_report,
                      &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    /* Rows whose published throughput contradicts their own step time
     * are read from the step time (io/calib_rows.h); say which. */
    for (size_t i = 0; i < n; i++)
        if (ok[i] && rows[i].meas_from_step)
            fprintf(stderr,
                    "factorysim: %s:%d: step_time_s: the published throughput "
                    "contradicts the step time by more than %.0f %%; the step "
                    "time is used\n",
                    t->path, rows[i].line, 100 * CALIB_STEP_MISMATCH);
    /* Keep the measured rows the model can evaluate (layout valid). */
    use_rows = sim_xcalloc(n ? n : 1, sizeof *use_rows);
    use = sim_xmalloc((n ? n : 1) * sizeof *use);
    why = sim_xcalloc(n ? n : 1, sizeof *why);
    tp_model_init(&m);
    for (size_t i = 0; i < n; i++) {
        tp_result r;
        tp_query q;
        use[i] = -1;
        snprintf(why[i], sizeof why[i], "%s",
                 !ok[i] ? "unreadable" : "no measurement");
        if (!ok[i] || rows[i].meas_tps <= 0)
            continue;
        if (rows[i].anomalous) {
            snprintf(why[i], sizeof why[i],
                     "excluded: the source marks a known performance "
                     "regression");
            /* One line for all of them (below): stderr stays short. */
            k_anom += (size_t)snprintf(
                anom + k_anom, k_anom < sizeof anom ? sizeof anom - k_anom : 0,
                "%s%d", n_anom ? ", " : "", rows[i].line);
            if (k_anom >= sizeof anom)
                k_anom = sizeof anom - 1;
            n_anom++;
            n_unpred++;
            continue;
        }
        q = rows[i].q;
        q.release = NULL;
        if (tp_predict(&m, &q, &r) != SIM_OK) {
            fprintf(stderr, "factorysim: %s:%d: skipped: %s\n", t->path,
                    rows[i].line, r.why);
            snprintf(why[i], sizeof why[i], "skipped: %.140s", r.why);
            n_unpred++;
            continue;
        }
        snprintf(why[i], sizeof why[i], "used");
        use[i] = (int)nu;
        use_rows[nu] = rows[i];
        use_rows[nu].q.release =
            use_rows[nu].release[0] ? use_rows[nu].release : NULL;
        nu++;
    }
    if (n_anom)
        fprintf(stderr,
                "factorysim: %s: excluded %zu rows whose source marks a known "
                "performance regression: lines %s\n",
                t->path, n_anom, anom);
    if (nu < 2 * TP_NPAR) {
        rc = cli_error("%s: only %zu usable measured rows (need at least %d)",
                       t->path, nu, 2 * TP_NPAR);
        goto done;
    }
    if (calib_fit(use_rows, nu, NULL, &m, 0, &fi, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    /* Each GPU's largest row: the scale whose stragglers the fit already
     * carries (the site's straggler term starts beyond it). */
    for (size_t i = 0; i < nu; i++) {
        int gi = tp_model_gpu(&m, use_rows[i].gpu->name);
        if (gi >= 0 && use_rows[i].q.n_gpus > m.gpu_n_max[gi])
            m.gpu_n_max[gi] = use_rows[i].q.n_gpus;
    }
    for (int c = 0; c < N_COLS; c++)
        pred[c] = sim_xcalloc(nu, sizeof *pred[c]);
    calib_predict_all(use_rows, nu, &m, pred[C_IN]);
    calib_baseline(use_rows, nu, -1, pred[B_IN]);
    calib_baseline(use_rows, nu, CALIB_CV_CONFIG, pred[B_LOCO]);
    calib_baseline(use_rows, nu, CALIB_CV_MODEL, pred[B_LOMO]);
    if (cv) {
        if (calib_cv(use_rows, nu, &m, CALIB_CV_CONFIG, pred[C_LOCO], &err) !=
                SIM_OK ||
            calib_cv(use_rows, nu, &m, CALIB_CV_MODEL, pred[C_LOMO], &err) !=
                SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    if (nested) {
        tp_model start;
        int n_failed;
        tp_model_init(&start); /* the cold fit's start, as above */
        pred_nested = sim_xcalloc(nu, sizeof *pred_nested);
        if (calib_cv_nested_model(use_rows, nu, &start, pred_nested,
                                  &n_failed) != SIM_OK) {
            rc = cli_error("--nested-lomo: %d of the per-model fits failed",
                           n_failed);
            goto done;
        }
    }
    /* Interval widths per class and GPU from the LOCO predictions: the
     * 80th percentile of |log error| / z80, robust to the heavy tails an
     * rms would over-cover with, per class, then a GPU whose rows miss by
     * more than their class's widened so that they are covered about 80 %
     * (models/calib_cover.h, calib_spreads). */
    {
        double sig[TP_NCLASS];
        calib_spreads(use_rows, nu, cv ? pred[C_LOCO] : pred[C_IN], &m, NULL,
                      sig, m.gpu_spread);
        for (int c = 0; c < TP_NCLASS; c++)
            if (!isnan(sig[c]))
                m.sigma_log[c] = sig[c];
    }
    /* Coverage of the 80 % interval under LOCO, nested: each row's
     * interval width leaves its own configuration out
     * (models/calib_cover.h). */
    nsd = sim_xcalloc(nu, sizeof *nsd);
    cov = sim_xcalloc(nu, sizeof *cov);
    cov_plain = sim_xcalloc(nu, sizeof *cov_plain);
    sel = sim_xcalloc(nu, sizeof *sel);
    if (cv)
        calib_cover_loco(use_rows, nu, pred[C_LOCO], &m, CALIB_COVER_Z80, nsd,
                         cov, cov_plain);
    /* How the model did on each model's rows, for predict to report beside
     * its predictions (held out: in-sample would flatter it). */
    if (cv) {
        int lost = calib_model_rows(use_rows, nu, pred[C_LOCO], &m);
        if (lost)
            fprintf(stderr,
                    "factorysim: warning: %d model/GPU records did not fit "
                    "(at most %d); predict will not report them\n",
                    lost, TP_MAX_MODEL_ROWS);
    }
    /* Micro-batches per step of each row's layout (its group below). */
    mbs = sim_xcalloc(nu, sizeof *mbs);
    for (size_t i = 0; i < nu; i++) {
        tp_result r;
        mbs[i] =
            tp_predict(&m, &use_rows[i].q, &r) == SIM_OK ? r.microbatches : 0;
    }
    /* Accuracy table: MAPE and mean signed error per group. */
    for (int g = 0; g < 4 + m.n_gpus + 2; g++) {
        acc_row *a = &acc[n_acc];
        const char *gpu = g >= 4 && g < 4 + m.n_gpus ? m.gpus[g - 4] : NULL;
        static const char *gn[4] = {"all", "dense", "moe", "hybrid"};
        memset(a, 0, sizeof *a);
        snprintf(a->name, sizeof a->name, "%s",
                 g < 4               ? gn[g]
                 : gpu               ? gpu
                 : g == 4 + m.n_gpus ? "mb_1_8"
                                     : "mb_over_8");
        for (size_t i = 0; i < nu; i++) {
            sel[i] =
                (unsigned char)in_group(&use_rows[i], g, gpu, m.n_gpus, mbs[i]);
            if (!sel[i])
                continue;
            a->n++;
            for (int c = 0; c <= N_COLS; c++) {
                double pv = c < N_COLS    ? pred[c][i]
                            : pred_nested ? pred_nested[i]
                                          : 0.0,
                       e = pv > 0 ? pv / use_rows[i].meas_tps - 1 : -1.0;
                *(c < N_COLS ? &a->mape[c] : &a->mape_nested) += fabs(e);
                *(c < N_COLS ? &a->mse[c] : &a->mse_nested) += e;
            }
        }
        if (!a->n)
            continue;
        a->cov_nested =
            cv ? calib_cover_fraction(cov, sel, nu, &a->cov_n) : (double)NAN;
        a->cov_plain =
            cv ? calib_cover_fraction(cov_plain, sel, nu, NULL) : (double)NAN;
        for (int c = 0; c < N_COLS; c++) {
            a->mape[c] *= 100.0 / (double)a->n;
            a->mse[c] *= 100.0 / (double)a->n;
        }
        a->mape_nested =
            pred_nested ? a->mape_nested * 100.0 / (double)a->n : (double)NAN;
        a->mse_nested =
            pred_nested ? a->mse_nested * 100.0 / (double)a->n : (double)NAN;
        n_acc++;
    }
    {
        char hdr[2048], accs[8192];
        size_t k = 0;
        const char *base = strrchr(argv[optind], '/');
        base = base ? base + 1 : argv[optind];
        snprintf(
            hdr, sizeof hdr,
            "models/calibration.cfg: throughput-model calibration "
            "(docs/throughput-model.md).\n"
            "Made by: factorysim calibrate %s (%zu measured rows used of %zu; "
            "%zu\n"
            "unparsable, %zu excluded, %zu with layouts the model cannot "
            "run). Fit: GSL\n"
            "multifit_nlinear, trust-region Levenberg-Marquardt with geodesic\n"
            "acceleration, %d starts (defaults and data-derived), %zu free "
            "parameters,\n"
            "SSR %.6g (ridge terms included), rms log residual %.4f. sd = "
            "standard\n"
            "errors from the fit covariance scaled by SSR/(n-p). %s",
            base, nu, n, n_bad, n_anom, n_unpred - n_anom, fi.starts, fi.n_free,
            fi.ssr, fi.rms_log,
            /* One line: the file's later line numbers are part of tests. */
            cv ? "Spread: sigma_log per class x spread (>= 1) per GPU, "
                 "Q80(|LOCO log error|) / 1.2816."
               : "Spread: sigma_log per class x spread (>= 1) per GPU, "
                 "Q80(|in-sample log error|) / 1.2816 (--no-cv).");
        k += (size_t)snprintf(accs + k, sizeof accs - k, "{\n");
        for (int a = 0; a < n_acc && k < sizeof accs; a++) {
            k += (size_t)snprintf(
                accs + k, sizeof accs - k, "  %s%s = { n = %zu;",
                isdigit((unsigned char)acc[a].name[0]) ? "gpu_" : "",
                acc[a].name, acc[a].n);
            for (int c = 0; c < N_COLS && k < sizeof accs; c++)
                if (cv || (c != C_LOCO && c != C_LOMO))
                    k += (size_t)snprintf(accs + k, sizeof accs - k,
                                          " %s = %.2f;", col_names[c],
                                          acc[a].mape[c]);
            for (int c = C_IN; c <= C_LOMO && k < sizeof accs; c++)
                if (cv || c == C_IN)
                    k += (size_t)snprintf(accs + k, sizeof accs - k,
                                          " %s_mse = %.2f;", col_names[c],
                                          acc[a].mse[c]);
            if (cv && k < sizeof accs && !isnan(acc[a].cov_nested))
                k += (size_t)snprintf(accs + k, sizeof accs - k,
                                      " coverage80_nested_pct = %.1f;",
                                      100 * acc[a].cov_nested);
            if (k < sizeof accs)
                k += (size_t)snprintf(accs + k, sizeof accs - k, " };\n");
        }
        if (k < sizeof accs)
            snprintf(accs + k, sizeof accs - k, "}");
        if (cli_make_dirs(out_path, 0, &err) != SIM_OK ||
            tp_model_save(&m, out_path, hdr, accs, &err) != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    if (pred_path &&
        (rc = write_predictions(pred_path, t, n, use, why, pred, cv,
                                pred_nested, use_rows)) != CLI_EXIT_OK)
        goto done;
    /* Unreadable rows were reported while reading; the fit went on
     * without them, but the input was bad. */
    if (n_bad)
        rc = CLI_EXIT_ERR;
    if (plots) {
        char path[4096];
        snprintf(path, sizeof path, "%s/parity.%s", plots, pfmt);
        if (cli_make_dirs(plots, 1, &err) != SIM_OK ||
            plot_parity(path, use_rows, nu, cv ? pred[C_LOCO] : pred[C_IN],
                        cv ? "Throughput model, leave-one-configuration-out"
                           : "Throughput model, in-sample",
                        &err) != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    if (fmt == CLI_FMT_JSON) {
        jv *root = jv_obj(), *arr = jv_arr(), *par = jv_obj();
        jv_set(root, "rows_used", jv_int((int64_t)nu));
        jv_set(root, "rows_skipped", jv_int((int64_t)(n - nu)));
        jv_set(root, "ssr", jv_num(fi.ssr));
        jv_set(root, "free_parameters", jv_int((int64_t)fi.n_free));
        jv_set(root, "release_factors_fitted", jv_int(fi.n_rel_fitted));
        {
            jv *one = jv_arr();
            for (int k = 0; k < fi.n_rel_one_model; k++) {
                jv *cell = cell_json(&m, fi.rel_one_model[k].rel,
                                     fi.rel_one_model[k].cls);
                jv_set(cell, "model", jv_str(fi.rel_one_model[k].model->name));
                jv_push(one, cell);
            }
            jv_set(root, "release_factors_one_model", one);
        }
        {
            jv *tested = jv_arr();
            for (int k = 0; k < fi.n_rel_tested; k++) {
                jv *cell =
                    cell_json(&m, fi.rel_tested[k].rel, fi.rel_tested[k].cls);
                jv_set(cell, "rows", jv_int(fi.rel_tested[k].n));
                jv_set(cell, "rms_log_error_with",
                       jv_num(fi.rel_tested[k].rms_with));
                jv_set(cell, "rms_log_error_without",
                       jv_num(fi.rel_tested[k].rms_without));
                jv_set(cell, "kept", jv_bool(fi.rel_tested[k].kept));
                jv_push(tested, cell);
            }
            jv_set(root, "release_factors_tested", tested);
            jv_set(root, "release_factor_refits_failed",
                   jv_int(fi.n_sel_failed));
        }
        for (int k = 0; k < TP_NPAR; k++) {
            jv *pv = jv_obj();
            jv_set(pv, "value", jv_num(m.p[k]));
            jv_set(pv, "sd", jv_num(m.p_sd[k]));
            jv_set(pv, "unit", jv_str(tp_param_unit(k)));
            jv_set(par, tp_param_name(k), pv);
        }
        jv_set(root, "params", par);
        /* The interval's spreads as the calibration file writes them:
         * log sd = sigma_log[class] x gpu_spread[GPU]. */
        {
            jv *sg = jv_obj(), *gs = jv_obj();
            for (int c = 0; c < TP_NCLASS; c++)
                jv_set(sg, llm_class_name(c), jv_num(m.sigma_log[c]));
            for (int g = 0; g < m.n_gpus; g++)
                jv_set(gs, m.gpus[g], jv_num(m.gpu_spread[g]));
            jv_set(root, "sigma_log", sg);
            jv_set(root, "gpu_spread", gs);
        }
        for (int a = 0; a < n_acc; a++) {
            jv *r = jv_obj();
            jv_set(r, "group", jv_str(acc[a].name));
            jv_set(r, "n", jv_int((int64_t)acc[a].n));
            for (int c = 0; c < N_COLS; c++)
                jv_set(r, col_names[c],
                       cv || (c != C_LOCO && c != C_LOMO)
                           ? jv_num(acc[a].mape[c])
                           : jv_null());
            for (int c = C_IN; c <= C_LOMO; c++) {
                char key[48];
                snprintf(key, sizeof key, "%s_mse", col_names[c]);
                jv_set(r, key,
                       cv || c == C_IN ? jv_num(acc[a].mse[c]) : jv_null());
            }
            /* Percent, like the MAPE columns; null without cross-validation
             * or when no row of the group has a held-out interval. */
            jv_set(r, "coverage80_nested_pct",
                   isnan(acc[a].cov_nested) ? jv_null()
                                            : jv_num(100 * acc[a].cov_nested));
            jv_set(r, "coverage80_plain_pct",
                   isnan(acc[a].cov_plain) ? jv_null()
                                           : jv_num(100 * acc[a].cov_plain));
            jv_set(r, "coverage_rows", jv_int((int64_t)acc[a].cov_n));
            /* --nested-lomo (jv_num gives null for NAN: not run) */
            jv_set(r, "model_lomo_nested", jv_num(acc[a].mape_nested));
            jv_set(r, "model_lomo_nested_mse", jv_num(acc[a].mse_nested));
            jv_push(arr, r);
        }
        jv_set(root, "mape_pct", arr);
        jv_write(root, stdout, 1);
        jv_free(root);
    } else {
        printf("calibrated on %zu rows (%zu skipped), %zu free parameters, SSR "
               "%.4g, "
               "rms log residual %.4f\nwrote %s\n\n",
               nu, n - nu, fi.n_free, fi.ssr, fi.rms_log, out_path);
        print_release_cells(&m, &fi);
        printf(
            "MAPE and mean signed error (MSE, pred/measured - 1) of "
            "tokens/s/GPU [%%]\n"
            "model: in-sample, "
            "leave-one-configuration-out,"
            " leave-one-model-out\n                            lookup baseline "
            "(median efficiency per GPU, precision, model): same splits\n\n");
        printf("%-9s %5s | %9s %7s %7s | %9s %7s %7s | %7s %7s %7s\n", "group",
               "rows", "model in", "LOCO", "LOMO", "lookup in", "LOCO", "LOMO",
               "MSE in", "LOCO", "LOMO");
        for (int a = 0; a < n_acc; a++) {
            printf("%-9s %5zu | %9.1f", acc[a].name, acc[a].n,
                   acc[a].mape[C_IN]);
            if (cv)
                printf(" %7.1f %7.1f", acc[a].mape[C_LOCO],
                       acc[a].mape[C_LOMO]);
            else
                printf(" %7s %7s", "-", "-");
            printf(" | %9.1f %7.1f %7.1f | %+7.1f", acc[a].mape[B_IN],
                   acc[a].mape[B_LOCO], acc[a].mape[B_LOMO], acc[a].mse[C_IN]);
            if (cv)
                printf(" %+7.1f %+7.1f\n", acc[a].mse[C_LOCO],
                       acc[a].mse[C_LOMO]);
            else
                printf(" %7s %7s\n", "-", "-");
        }
        if (pred_nested) {
            printf("\nleave-one-model-out with the whole fit, the release x "
                   "class selection\nincluded, redone in each fold "
                   "(--nested-lomo; the LOMO column above\nreuses the full "
                   "fit's selection, which read its folds) [%%]\n\n");
            printf("%-9s %5s | %7s %7s\n", "group", "rows", "MAPE", "MSE");
            for (int a = 0; a < n_acc; a++)
                printf("%-9s %5zu | %7.2f %+7.2f\n", acc[a].name, acc[a].n,
                       acc[a].mape_nested, acc[a].mse_nested);
        }
        if (cv) {
            printf("\ncoverage of the 80 %% interval under "
                   "leave-one-configuration-out [%%]\n"
                   "nested: the interval's spread computed without the "
                   "held-out configuration\n"
                   "(target 75-85 overall, 65-95 per GPU and model class); "
                   "plain: spread from all rows\n\n");
            printf("%-9s %5s | %7s %7s\n", "group", "rows", "nested", "plain");
            for (int a = 0; a < n_acc; a++)
                if (!isnan(acc[a].cov_nested))
                    printf("%-9s %5zu | %7.1f %7.1f\n", acc[a].name,
                           acc[a].cov_n, 100 * acc[a].cov_nested,
                           100 * acc[a].cov_plain);
        }
        printf("\ninterval spread (log sd = sigma_log x the GPU's spread): "
               "sigma_log dense %.4f, moe %.4f, hybrid %.4f\n  spread:",
               m.sigma_log[0], m.sigma_log[1], m.sigma_log[2]);
        for (int g = 0; g < m.n_gpus; g++)
            printf("%s %s %.3f", g ? "," : "", m.gpus[g], m.gpu_spread[g]);
        printf("%s\n", m.n_gpus ? "" : " none");
        printf("\nparameters (value +- sd from the fit covariance):\n");
        for (int k = 0; k < TP_NPAR; k++)
            printf("  %-18s %12.5g +- %-10.3g %s%s\n", tp_param_name(k), m.p[k],
                   m.p_sd[k], tp_param_unit(k),
                   m.p_sd[k] > 0 ? "" : " (fixed, assumption)");
    }
done:
    free(use);
    free(why);
    free(mbs);
    free(nsd);
    free(cov);
    free(cov_plain);
    free(sel);
    for (int c = 0; c < N_COLS; c++)
        free(pred[c]);
    free(pred_nested);
    free(use_rows);
    free(rows);
    free(ok);
    csvt_free(t);
    catalog_free(cat);
    return rc;
}
