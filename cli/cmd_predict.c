/* cli/cmd_predict.c: `factorysim predict`: one configuration from options, or
 * every row of a CSV (--csv), through the calibrated throughput model
 * (models/throughput.h, models/calibration.cfg by default).
 *
 * The command translates options and CSV rows into tp_query and prints
 * tp_result; it holds no model logic (layout choice, memory fit and the
 * interval are tp_predict's). It must never print a partial CSV under the final
 * name: --out is written to OUT.tmp and renamed only when every byte was
 * written, so a failed run leaves the old file (or none), never a truncated
 * one. Unknown names (GPU, model, precision, release) are usage errors that
 * list the valid ones, since they come from the user's typing. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "io/run_out.h"
#include "io/site_calib_file.h"
#include "models/llm.h"
#include "sim/mem.h"

static const char predict_help[] =
    "Usage: factorysim predict --gpu G --model M --precision P --gpus N "
    "[OPTIONS]\n"
    "       factorysim predict --csv IN.csv [--out OUT.csv [--accuracy]] "
    "[--site-calibration FILE]\n"
    "\n"
    "Predicts step time, tokens/s/GPU and model TFLOP/s/GPU (FLOPs formula of\n"
    "docs/throughput-model.md) with an 80% interval and the step breakdown.\n"
    "Every layout field not given (tp, pp, vp, cp, ep, etp, mbs, recompute,\n"
    "distributed optimizer) is chosen: the fastest layout that fits in HBM\n"
    "(docs/throughput-model.md section 7); the output names the fields it "
    "chose.\n"
    "--csv takes rows with the columns of megatron_throughput.csv (blank\n"
    "layout cells are chosen) and writes them back with predicted_* and\n"
    "layout_* columns; a row that cannot be predicted gets blank predictions,\n"
    "a FILE:LINE reason on stderr and exit status 1. With --out, --accuracy\n"
    "prints how the predictions compare with the rows' measured throughput\n"
    "(tokens_per_sec_per_gpu, else tokens_per_sec_total, else step_time_s):\n"
    "MAPE and mean of predicted / measured - 1 and how many measurements\n"
    "fall inside the predicted 80% interval, all rows and by micro-batches\n"
    "per step (data/validation/mlperf_training.csv is such a set).\n"
    "\n"
    "Options:\n"
    "  --gbs N --mbs N --seq N   global batch [sequences], micro-batch, "
    "length\n"
    "  --tp N --pp N --cp N --ep N --vp N   parallel layout (0 = choose)\n"
    "  --etp N                   expert tensor parallel size (each expert's\n"
    "                            weights split over N GPUs): 1 or tp when\n"
    "                            not given\n"
    "  --recompute M             none, selective or full (default: choose)\n"
    "  --distributed-optimizer on|off   (default: choose)\n"
    "  --fsdp                    parameters sharded (FSDP)\n"
    "  --release R               software release (e.g. 26.04); default "
    "newest\n"
    "  --cuda-graph G            none, partial or full (full-iteration CUDA\n"
    "                            graphs); default: the calibrated recipe\n"
    "  --moe-dispatcher D        alltoall, allgather, flex-deepep or\n"
    "                            flex-hybridep (what the EP exchange sends);\n"
    "                            default alltoall\n"
    "  --moe-a2a-overlap on|off  the recipe overlaps the EP all-to-all with\n"
    "                            the adjacent micro-batch (Megatron\n"
    "                            overlap_moe_expert_parallel_comm); default:\n"
    "                            the calibrated recipe\n"
    "  --recompute-modules L     Megatron recompute_modules, ';'-separated\n"
    "                            (what selective recompute drops)\n"
    "  --dp-link-gbps X          bandwidth the DP group crosses [Gb/s per "
    "GPU]\n"
    "  --calibration FILE        calibration file (default: built-in)\n"
    "  --site-calibration FILE   the cluster's speeds (exemplar\n"
    "                            --write-site-calibration): compute and\n"
    "                            communication times divided by them, the\n"
    "                            interval from their posterior\n"
    "  --accuracy                with --csv and --out: MAPE and mean error of\n"
    "                            the predictions against the rows' measured\n"
    "                            throughput, and how many fall inside the\n"
    "                            80% interval, on stdout\n"
    "  --format F                table (default) or json\n"
    "  -h, --help                this help\n";

/* The JSON carries SI names and the step breakdown so that scripts can use it;
 * the table is for a person and flags the two things that change how much to
 * trust the number: extrapolation beyond the calibration's GPUs and a layout
 * that does not fit in HBM.
 *
 * Both forms name the release used, even when it was defaulted, so a saved
 * prediction says which calibration produced it. The table first states the
 * configuration as the model resolved it (gbs and seq may have been defaulted),
 * then the layout (with the first and last stages' layer counts under pipeline
 * parallelism, since the last also holds the output layer and an uneven split
 * explains a bubble), then the numbers. The breakdown lists exposed times only:
 * communication hidden behind compute is not counted, and the printed line says
 * so. */
/* The site calibration in use (its file name, never a path), "" none: set
 * once by cmd_predict before print_one. */
static char site_shown[256];

/* One published-row record as JSON, null when there is none. */
/* An on|off option's value: 2 for "on", 1 for "off" (the ON/OFF values of
 * tp_distopt and tp_a2a_overlap), 0 for anything else. */
_Static_assert(TP_DISTOPT_ON == 2 && TP_DISTOPT_OFF == 1 &&
                   TP_A2A_OVL_ON == 2 && TP_A2A_OVL_OFF == 1,
               "on_off() returns both enums' values");
static int on_off(const char *s)
{
    return strcmp(s, "on") == 0 ? 2 : strcmp(s, "off") == 0 ? 1 : 0;
}

static jv *rows_json(const tp_model_rows *e)
{
    jv *o;
    if (!e)
        return jv_null();
    o = jv_obj();
    jv_set(o, "n", jv_int(e->n));
    jv_set(o, "loco_mean_error_pct", jv_num(e->loco_mean_error_pct));
    jv_set(o, "loco_mape_pct", jv_num(e->loco_mape_pct));
    return o;
}

/* The model's own published rows (tp_model_rows): how far this model was
 * from them when each was held out. It is what a planner needs to read the
 * number: a model whose rows sit 25 % below the prediction will most likely
 * do so again, whatever the interval says; the interval is the class's
 * and the GPU's, not the model's. */
static void print_rows(const tp_model *m, const tp_query *q)
{
    const tp_model_rows *all = tp_model_rows_of(m, q->llm->name, NULL),
                        *one = tp_model_rows_of(m, q->llm->name, q->gpu->name);
    if (!m->n_model_rows)
        return; /* a calibration without cross-validation: nothing known */
    if (!all) {
        printf("published   none: the calibration used no rows of %s\n",
               q->llm->name);
        return;
    }
    printf("published   predicted/measured - 1 on this model's calibration "
           "rows, each held out:\n"
           "            every GPU %d rows, mean %+.1f %%, MAPE %.1f %%; ",
           all->n, all->loco_mean_error_pct, all->loco_mape_pct);
    if (one)
        printf("%s %d rows, mean %+.1f %%, MAPE %.1f %%\n", q->gpu->name,
               one->n, one->loco_mean_error_pct, one->loco_mape_pct);
    else
        printf("%s none\n", q->gpu->name);
}

/* Whether m has a factor for release x cls (tp_model_release_fitted);
 * *f (may be NULL) gets the factor on compute time, exp(log factor). */
static int release_factor(const tp_model *m, const char *release, int cls,
                          double *f)
{
    int k = tp_model_release(m, release);
    if (!tp_model_release_fitted(m, k, cls))
        return 0;
    if (f)
        *f = exp(m->rel_log[k][cls]);
    return 1;
}

static int print_one(const tp_model *m, const tp_query *q, const tp_result *r,
                     int fmt, const char *release)
{
    const tp_layout *l = &r->layout;
    if (fmt == CLI_FMT_JSON) {
        jv *o = jv_obj(), *b = jv_obj(), *ly = jv_obj();
        jv_set(o, "gpu", jv_str(q->gpu->name));
        jv_set(o, "model", jv_str(q->llm->name));
        jv_set(o, "precision", jv_str(precision_recipe_name(q->prec.recipe)));
        jv_set(o, "gpus", jv_int(q->n_gpus));
        jv_set(o, "gbs", jv_int(r->gbs));
        jv_set(o, "mbs", jv_int(l->mbs));
        jv_set(o, "seq_len", jv_int(r->seq_len));
        jv_set(o, "release", jv_str(release));
        {
            double f;
            jv_set(o, "release_factor",
                   release_factor(m, release, q->llm->cls, &f) ? jv_num(f)
                                                               : jv_null());
        }
        jv_set(o, "site_calibration",
               site_shown[0] ? jv_str(site_shown) : jv_null());
        run_out_layout_json(ly, r);
        jv_set(o, "layout", ly);
        jv_set(o, "step_time_s", jv_num(r->step_time_s));
        jv_set(o, "tokens_per_sec_per_gpu", jv_num(r->tokens_per_sec_per_gpu));
        jv_set(o, "low_tokens_per_sec_per_gpu",
               jv_num(r->low_tokens_per_sec_per_gpu));
        jv_set(o, "high_tokens_per_sec_per_gpu",
               jv_num(r->high_tokens_per_sec_per_gpu));
        jv_set(o, "model_tflops_per_gpu", jv_num(r->model_tflops_per_gpu));
        jv_set(o, "extrapolated", jv_bool(r->extrapolated));
        {
            jv *why = jv_arr();
            for (int k = 0; k < TP_EXTRAP_N; k++)
                if (r->extrap_why & 1u << k && tp_extrap_key(1u << k))
                    jv_push(why, jv_str(tp_extrap_key(1u << k)));
            jv_set(o, "extrapolated_reasons", why);
        }
        jv_set(b, "compute_s", jv_num(r->t_compute_s));
        jv_set(b, "tp_s", jv_num(r->t_tp_s));
        jv_set(b, "cp_s", jv_num(r->t_cp_s));
        jv_set(b, "ep_s", jv_num(r->t_ep_s));
        jv_set(b, "dp_s", jv_num(r->t_dp_s));
        jv_set(b, "pp_s", jv_num(r->t_pp_s));
        jv_set(b, "bubble_s", jv_num(r->t_bubble_s));
        jv_set(b, "optimizer_s", jv_num(r->t_optimizer_s));
        jv_set(o, "breakdown", b);
        jv_set(o, "mem_bytes_per_gpu", jv_num(r->mem_bytes_per_gpu));
        jv_set(o, "mem_usable_bytes", jv_num(r->mem_usable_bytes));
        jv_set(o, "fits", jv_bool(r->fits));
        if (m->n_model_rows) {
            jv *c = jv_obj();
            jv_set(c, "all_gpus",
                   rows_json(tp_model_rows_of(m, q->llm->name, NULL)));
            jv_set(c, "this_gpu",
                   rows_json(tp_model_rows_of(m, q->llm->name, q->gpu->name)));
            jv_set(o, "published_rows", c);
        } else
            jv_set(o, "published_rows", jv_null());
        jv_write(o, stdout, 1);
        jv_free(o);
        return CLI_EXIT_OK;
    }
    printf("%s on %d x %s, %s, gbs %d, seq %d tokens, release %s\n",
           q->llm->name, q->n_gpus, q->gpu->name,
           precision_recipe_name(q->prec.recipe), r->gbs, r->seq_len, release);
    {
        char ch[128];
        printf("layout      tp %d pp %d vp %d cp %d ep %d etp %d mbs %d "
               "recompute %s distributed_optimizer %s%s\n",
               l->tp, l->pp, l->vp, l->cp, l->ep, l->etp, l->mbs,
               tp_recompute_name(l->recompute),
               l->distopt == TP_DISTOPT_ON ? "on" : "off",
               l->fsdp ? " fsdp" : "");
        printf("chosen      %s\n",
               r->chosen ? tp_chosen_list(r->chosen, ch, sizeof ch)
                         : "(none: every field given)");
        if (l->pp > 1)
            printf("stages      %d layers on the first stage, %d on the "
                   "last (with the output layer)\n",
                   r->layers_first, r->layers_last);
    }
    printf("step time   %10.4f s\n", r->step_time_s);
    printf("throughput  %10.1f tokens/s/GPU  (80%% interval %.1f - %.1f)",
           r->tokens_per_sec_per_gpu, r->low_tokens_per_sec_per_gpu,
           r->high_tokens_per_sec_per_gpu);
    /* Each reason by name: a long-context query on a calibrated GPU once
     * read "GPU not in the calibration data". */
    for (int k = 0, n = 0; k < TP_EXTRAP_N; k++)
        if (r->extrap_why & 1u << k && tp_extrap_text(1u << k))
            printf("%s%s",
                   n++ ? "; " : "  EXTRAPOLATED: ", tp_extrap_text(1u << k));
    printf("\n");
    printf("model FLOPs %10.1f TFLOP/s/GPU\n", r->model_tflops_per_gpu);
    printf("breakdown   compute %.4f s, TP %.4f s, CP %.4f s, EP %.4f s, DP "
           "%.4f s,\n"
           "            PP %.4f s, bubble %.4f s, optimizer %.4f s (exposed "
           "times)\n",
           r->t_compute_s, r->t_tp_s, r->t_cp_s, r->t_ep_s, r->t_dp_s,
           r->t_pp_s, r->t_bubble_s, r->t_optimizer_s);
    /* In the catalog's unit (binary GB, GPU_HBM_GB_BYTES), so that the
     * usable figure reads against the GPU's quoted capacity. */
    printf("memory      %10.1f GB/GPU (weights+optimizer %.1f, activations "
           "%.1f; usable %.1f; GB = 2^30 B as HBM is quoted)%s\n",
           r->mem_bytes_per_gpu / GPU_HBM_GB_BYTES,
           r->mem_states_bytes / GPU_HBM_GB_BYTES,
           r->mem_act_bytes / GPU_HBM_GB_BYTES,
           r->mem_usable_bytes / GPU_HBM_GB_BYTES,
           r->fits ? "" : "  DOES NOT FIT");
    print_rows(m, q);
    return CLI_EXIT_OK;
}

/* The one prediction path of both forms: the site calibration's speeds (if
 * any) ride on the query's slowdowns, and the interval is rebuilt from the
 * posterior spread of the measured group (the model's spread when the group
 * was not measured). Returns tp_predict's status; *applied says whether the
 * site calibration changed the query. */
static int predict_site(const tp_model *m, const site_calib *sc, tp_query *q,
                        tp_result *r, int *applied)
{
    int a = sc && site_calib_apply(sc, q) != NULL;
    if (applied)
        *applied = a;
    if (tp_predict(m, q, r) != SIM_OK)
        return SIM_EINVAL;
    if (sc) {
        double sd = site_calib_log_sd(sc, q, tp_log_sd(m, q->llm, q->gpu, r));
        r->low_tokens_per_sec_per_gpu =
            r->tokens_per_sec_per_gpu * exp(-SITE_CALIB_Z80 * sd);
        r->high_tokens_per_sec_per_gpu =
            r->tokens_per_sec_per_gpu * exp(SITE_CALIB_Z80 * sd);
    }
    return SIM_OK;
}

/* The summary of predict --csv --out --accuracy: of n_meas rows that carry
 * a measured throughput, n[0] were predicted (n[1] with 1..TP_MB_FEW
 * micro-batches per step, n[2] more); se and sa are the sums of predicted /
 * measured - 1 and of its absolute value over them, in[] how many measured
 * values fall inside the predicted 80 % interval (how honest the interval
 * is on rows the calibration never saw). A row that could not be predicted
 * is counted, not scored: its FILE:LINE reason is on stderr. */
static void print_measured(size_t n_meas, const size_t n[3], const double se[3],
                           const double sa[3], const size_t in[3])
{
    static const char *const name[3] = {"all", "1-8 micro-batches per step",
                                        "more micro-batches"};
    if (!n_meas) {
        printf("no row has a measured throughput (tokens_per_sec_per_gpu, "
               "tokens_per_sec_total or step_time_s)\n");
        return;
    }
    printf("%zu rows with a measured throughput, %zu of them predicted; "
           "predicted / measured - 1:\n",
           n_meas, n[0]);
    for (int g = 0; g < 3; g++)
        if (n[g])
            printf("  %-28s %4zu rows, MAPE %5.1f %%, mean %+5.1f %%, "
                   "inside the 80 %% interval %zu (%.0f %%)\n",
                   name[g], n[g], 100 * sa[g] / (double)n[g],
                   100 * se[g] / (double)n[g], in[g],
                   100.0 * (double)in[g] / (double)n[g]);
}

/* The appended columns, in the order of extra[] below; buf[] is indexed by the
 * same numbers, so the two must change together. */
#define NX 15 /* columns predict --csv appends */

/* One pass over the rows in file order, writing each row as it is predicted, so
 * the output keeps the input's rows and columns untouched and only appends NX
 * columns; a row that cannot be read or predicted keeps its place with blank
 * predictions (and a FILE:LINE reason on stderr, exit 1), so the output still
 * lines up with the input row for row. The output goes to a temporary file
 * renamed at the end (see the file-top note). */
static int predict_csv(const tp_model *m, const site_calib *sc,
                       const catalog *cat, const char *in, const char *out,
                       int accuracy)
{
    csvt *t = NULL;
    calib_row *rows = NULL;
    unsigned char *ok = NULL;
    size_t n, n_bad;
    sim_err err;
    FILE *f = stdout;
    int rc = CLI_EXIT_OK;
    const char *extra[NX] = {"predicted_tokens_per_sec_per_gpu",
                             "predicted_model_tflops_per_gpu",
                             "predicted_step_time_s",
                             "predicted_low_tokens_per_sec_per_gpu",
                             "predicted_high_tokens_per_sec_per_gpu",
                             "layout_tp",
                             "layout_pp",
                             "layout_vp",
                             "layout_cp",
                             "layout_ep",
                             "layout_mbs",
                             "layout_recompute",
                             "layout_distributed_optimizer",
                             "layout_chosen",
                             "layout_etp"};
    const char **cells;
    char buf[NX][96];
    char tmp[4200];
    /* Rows that carry a measurement: predicted / measured - 1, summed and
     * in absolute value, over all of them and per micro-batch group (the
     * groups of calibrate's accuracy table). */
    double se[3] = {0}, sa[3] = {0};
    size_t nm[3] = {0}, ni[3] = {0}, n_meas = 0;

    sim_err_clear(&err);
    if (tpc_read_rows(in, cat, &t, &rows, &ok, &n, &n_bad, cli_report, &err) !=
        SIM_OK)
        return cli_report(&err);
    /* Written beside the target as OUT.tmp and renamed at the end, so a failure
     * never leaves a half-written OUT.csv (see the end of this function). */
    if (out) {
        sim_err derr;
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        if (cli_make_dirs(out, 0, &derr) != SIM_OK) {
            rc = cli_report(&derr);
            goto done;
        }
        f = fopen(tmp, "w");
        if (!f) {
            rc = cli_error("%s: cannot write file", out);
            goto done;
        }
    }
    /* The header is the input's own header plus the NX new names, in input
     * order, so a spreadsheet that read the input reads the output the same
     * way. */
    cells = sim_xmalloc((t->n_cols + NX) * sizeof *cells);
    for (size_t c = 0; c < t->n_cols; c++)
        cells[c] = t->header[c];
    for (int k = 0; k < NX; k++)
        cells[t->n_cols + (size_t)k] = extra[k];
    csvt_write_row(f, cells, t->n_cols + NX);
    /* Rows refused while reading (tpc_read_rows has already reported them)
     * still make the command exit 1, even though every other row is predicted.
     */
    if (n_bad)
        rc = CLI_EXIT_ERR;
    for (size_t i = 0; i < n; i++) {
        tp_result r;
        for (size_t c = 0; c < t->n_cols; c++)
            cells[c] = t->rows[i][c];
        for (int k = 0; k < NX; k++) {
            buf[k][0] = '\0';
            cells[t->n_cols + (size_t)k] = buf[k];
        }
        /* A blank layout cell in the input means "choose", as in the options;
         * the CSV reader gives such cells a placeholder, so they are reset to 0
         * (or CHOOSE) here before predicting. */
        if (ok[i]) {
            /* Blank layout cells are chosen, never 1 (issue 17). */
            tp_query q = rows[i].q;
            tp_layout *ql = &q.layout;
            unsigned bl = rows[i].blank;
            if (bl & 1u << TP_FIELD_PP)
                ql->pp = 0;
            if (bl & 1u << TP_FIELD_VP)
                ql->vp = 0;
            if (bl & 1u << TP_FIELD_CP)
                ql->cp = 0;
            if (bl & 1u << TP_FIELD_EP)
                ql->ep = 0;
            if (bl & 1u << TP_FIELD_MBS)
                ql->mbs = 0;
            if (bl & 1u << TP_FIELD_RECOMPUTE)
                ql->recompute = TP_RECOMPUTE_CHOOSE;
            if (bl & 1u << TP_FIELD_ETP)
                ql->etp = 0;
            n_meas += rows[i].meas_tps > 0;
            if (predict_site(m, sc, &q, &r, NULL) == SIM_OK) {
                const tp_layout *l = &r.layout;
                /* One decimal for throughputs (tokens/s/GPU are in the
                 * thousands) and five significant digits for the step time: the
                 * model's own uncertainty is several percent, so more digits
                 * would only suggest precision it lacks. */
                snprintf(buf[0], sizeof buf[0], "%.1f",
                         r.tokens_per_sec_per_gpu);
                snprintf(buf[1], sizeof buf[1], "%.1f", r.model_tflops_per_gpu);
                snprintf(buf[2], sizeof buf[2], "%.5g", r.step_time_s);
                snprintf(buf[3], sizeof buf[3], "%.1f",
                         r.low_tokens_per_sec_per_gpu);
                snprintf(buf[4], sizeof buf[4], "%.1f",
                         r.high_tokens_per_sec_per_gpu);
                snprintf(buf[5], sizeof buf[5], "%d", l->tp);
                snprintf(buf[6], sizeof buf[6], "%d", l->pp);
                snprintf(buf[7], sizeof buf[7], "%d", l->vp);
                snprintf(buf[8], sizeof buf[8], "%d", l->cp);
                snprintf(buf[9], sizeof buf[9], "%d", l->ep);
                snprintf(buf[10], sizeof buf[10], "%d", l->mbs);
                snprintf(buf[11], sizeof buf[11], "%s",
                         tp_recompute_name(l->recompute));
                snprintf(buf[12], sizeof buf[12], "%d",
                         l->distopt == TP_DISTOPT_ON);
                tp_chosen_list(r.chosen, buf[13], sizeof buf[13]);
                snprintf(buf[14], sizeof buf[14], "%d", l->etp);
                if (rows[i].meas_tps > 0) {
                    double e = r.tokens_per_sec_per_gpu / rows[i].meas_tps - 1;
                    int inside =
                        r.low_tokens_per_sec_per_gpu <= rows[i].meas_tps &&
                        rows[i].meas_tps <= r.high_tokens_per_sec_per_gpu;
                    for (int g = 0; g < 3; g++)
                        if (g == 0 ||
                            (g == 1) == (r.microbatches <= TP_MB_FEW)) {
                            se[g] += e;
                            sa[g] += fabs(e);
                            nm[g]++;
                            ni[g] += (size_t)inside;
                        }
                }
            } else {
                fprintf(stderr, "factorysim: %s:%d: %s\n", t->path, t->line[i],
                        r.why);
                rc = CLI_EXIT_ERR;
            }
        }
        csvt_write_row(f, cells, t->n_cols + NX);
    }
    free(cells);
    if (out) {
        /* ferror first: a write that failed before the last flush leaves
         * fclose returning 0 (a full disk must not pass for success). */
        int bad = ferror(f);
        errno = 0;
        if (fclose(f) != 0 || bad || rename(tmp, out) != 0) {
            remove(tmp);
            rc = cli_error("%s: cannot write file (%s)", out,
                           errno ? strerror(errno) : "write error");
        } else {
            /* With the table in a file, stdout is free for how the
             * predictions compare with the rows' own measurements
             * (validation sets such as data/validation/mlperf_training.csv). */
            if (accuracy)
                print_measured(n_meas, nm, se, sa, ni);
        }
    }
done:
    free(rows);
    free(ok);
    csvt_free(t);
    return rc;
}

/* Long only because of its option table; the order after parsing is the point:
 * cheap argument checks first (exit 2 without touching files), then the catalog
 * and the calibration (exit 1 if unreadable), then the names looked up in them
 * (exit 2 with the valid names listed), and only then the prediction. Every
 * path after the catalog load goes through done, which frees both. */
int cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"model", required_argument, NULL, 'm'},
        {"precision", required_argument, NULL, 'P'},
        {"gpus", required_argument, NULL, 'n'},
        {"gbs", required_argument, NULL, 'B'},
        {"mbs", required_argument, NULL, 'b'},
        {"seq", required_argument, NULL, 's'},
        {"tp", required_argument, NULL, 't'},
        {"pp", required_argument, NULL, 'p'},
        {"cp", required_argument, NULL, 'c'},
        {"ep", required_argument, NULL, 'e'},
        {"vp", required_argument, NULL, 'v'},
        {"etp", required_argument, NULL, 'E'},
        {"fsdp", no_argument, NULL, 'F'},
        {"recompute", required_argument, NULL, 'R'},
        {"distributed-optimizer", required_argument, NULL, 'D'},
        {"release", required_argument, NULL, 'r'},
        {"cuda-graph", required_argument, NULL, 'G'},
        {"moe-dispatcher", required_argument, NULL, 'X'},
        {"moe-a2a-overlap", required_argument, NULL, 'O'},
        {"recompute-modules", required_argument, NULL, 'M'},
        {"dp-link-gbps", required_argument, NULL, 'd'},
        {"calibration", required_argument, NULL, 'C'},
        {"site-calibration", required_argument, NULL, 'T'},
        {"csv", required_argument, NULL, 'i'},
        {"out", required_argument, NULL, 'o'},
        {"accuracy", no_argument, NULL, 'A'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "predict", *gpu = NULL, *model = NULL, *prec = NULL,
               *release = NULL;
    const char *calib = NULL, *csv_in = NULL, *csv_out = NULL,
               *site_path = NULL;
    site_calib *sc = NULL;
    int applied = 0;
    /* 0 means "not given": the model chooses that field. The upper bounds below
     * only guard against absurd typing (2^24 GPUs); the model refuses layouts
     * that do not divide the GPU count. */
    uint32_t v[10] = {0}; /* gpus gbs mbs seq tp pp cp ep vp etp */
    double dp_gbps = 0;
    int fmt = CLI_FMT_TABLE, o, fsdp = 0, rc, recompute = 0, distopt = 0,
        accuracy = 0;
    int cuda_graph = 0, dispatcher = 0, mods_ok = 1, a2a = 0;
    unsigned mods = 0;
    catalog *cat = NULL;
    tp_model *m = NULL;
    sim_err err;
    tp_query q;
    tp_result r;
    char names[2048];

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int bad = 0;
        switch (o) {
        case 'g':
            gpu = optarg;
            break;
        case 'm':
            model = optarg;
            break;
        case 'P':
            prec = optarg;
            break;
        case 'n':
            bad = cli_u32(cmd, "--gpus", optarg, 1, 1u << 24, &v[0]);
            break;
        case 'B':
            bad = cli_u32(cmd, "--gbs", optarg, 1, 1u << 26, &v[1]);
            break;
        case 'b':
            bad = cli_u32(cmd, "--mbs", optarg, 1, 1u << 20, &v[2]);
            break;
        case 's':
            bad = cli_u32(cmd, "--seq", optarg, 1, 1u << 26, &v[3]);
            break;
        case 't':
            bad = cli_u32(cmd, "--tp", optarg, 0, 1024, &v[4]);
            break;
        case 'p':
            bad = cli_u32(cmd, "--pp", optarg, 0, 1024, &v[5]);
            break;
        case 'c':
            bad = cli_u32(cmd, "--cp", optarg, 0, 1024, &v[6]);
            break;
        case 'e':
            bad = cli_u32(cmd, "--ep", optarg, 0, 4096, &v[7]);
            break;
        case 'v':
            bad = cli_u32(cmd, "--vp", optarg, 0, 1024, &v[8]);
            break;
        case 'E':
            bad = cli_u32(cmd, "--etp", optarg, 0, 1024, &v[9]);
            break;
        case 'F':
            fsdp = 1;
            break;
        case 'R':
            recompute = tp_recompute_parse(optarg);
            if (!recompute)
                return cli_usage_error(cmd,
                                       "--recompute: unknown '%s' (expected "
                                       "none, selective or full)",
                                       optarg);
            break;
        case 'D':
            if (!(distopt = on_off(optarg)))
                return cli_usage_error(cmd,
                                       "--distributed-optimizer: unknown '%s' "
                                       "(expected on or off)",
                                       optarg);
            break;
        case 'r':
            release = optarg;
            break;
        case 'G':
            cuda_graph = tp_cuda_graph_parse(optarg);
            if (cuda_graph <= 0)
                return cli_usage_error(cmd,
                                       "--cuda-graph: unknown '%s' (expected "
                                       "none, partial or full)",
                                       optarg);
            break;
        case 'X':
            dispatcher = tp_moe_dispatcher_parse(optarg);
            if (dispatcher <= 0)
                return cli_usage_error(cmd,
                                       "--moe-dispatcher: unknown '%s' "
                                       "(expected alltoall, allgather, "
                                       "flex-deepep or flex-hybridep)",
                                       optarg);
            break;
        case 'O':
            if (!(a2a = on_off(optarg)))
                return cli_usage_error(cmd,
                                       "--moe-a2a-overlap: unknown '%s' "
                                       "(expected on or off)",
                                       optarg);
            break;
        case 'M':
            mods = tp_recompute_modules_parse(optarg, &mods_ok);
            if (!mods_ok)
                return cli_usage_error(
                    cmd,
                    "--recompute-modules: unknown module in '%s' (expected "
                    "none or core_attn, mlp, moe, moe_act, layernorm, "
                    "mla_up_proj, shared_experts separated by ';')",
                    optarg);
            break;
        case 'd':
            bad =
                cli_double(cmd, "--dp-link-gbps", optarg, 1e-3, 1e9, &dp_gbps);
            break;
        case 'C':
            calib = optarg;
            break;
        case 'T':
            site_path = optarg;
            break;
        case 'i':
            csv_in = optarg;
            break;
        case 'o':
            csv_out = optarg;
            break;
        case 'A':
            accuracy = 1;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            bad = fmt < 0;
            break;
        case 'h':
            fputs(predict_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    /* The table goes to stdout without --out, and the summary would mix
     * into it. */
    if (accuracy && (!csv_in || !csv_out))
        return cli_usage_error(cmd, "--accuracy needs --csv and --out");
    /* The one-configuration mode needs the four things a prediction cannot
     * choose; everything else the model chooses or defaults. */
    if (!csv_in && (!gpu || !model || !prec || !v[0]))
        return cli_usage_error(
            cmd, "needs --gpu, --model, --precision and --gpus (or --csv)");
    sim_err_clear(&err);
    if (catalog_load(NULL, &cat, &err) != SIM_OK)
        return cli_report(&err);
    if ((calib ? tp_model_load(calib, &m, &err) : tp_model_default(&m, &err)) !=
        SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    if (site_path) {
        const char *b = strrchr(site_path, '/');
        if (site_calib_load(site_path, &sc, &err) != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
        snprintf(site_shown, sizeof site_shown, "%.255s",
                 b ? b + 1 : site_path);
    }
    if (csv_in) {
        rc = predict_csv(m, sc, cat, csv_in, csv_out, accuracy);
        goto done;
    }
    memset(&q, 0, sizeof q);
    q.gpu = catalog_gpu(cat, gpu);
    q.llm = catalog_llm(cat, model);
    if (!q.gpu || !q.llm) {
        catalog_names(cat, q.gpu ? "llms" : "gpus", names, sizeof names);
        rc = cli_usage_error(cmd, "--%s: unknown %s '%s' (expected one of: %s)",
                             q.gpu ? "model" : "gpu", q.gpu ? "model" : "GPU",
                             q.gpu ? model : gpu, names);
        goto done;
    }
    if (precision_parse(prec, &q.prec) != SIM_OK) {
        rc = cli_usage_error(cmd,
                             "--precision: unknown '%s' (expected one of: %s)",
                             prec, precision_valid_labels());
        goto done;
    }
    /* The valid releases come from the loaded calibration, not a fixed list, so
     * the message stays right when a calibration adds a release. */
    if (release && tp_model_release(m, release) < 0) {
        char buf[2048];
        size_t k = 0;
        buf[0] = '\0';
        for (int i = 0; i < m->n_releases && k < sizeof buf; i++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s",
                                  i ? ", " : "", m->releases[i]);
        rc = cli_usage_error(
            cmd, "--release: unknown '%s' (expected one of: %s)", release, buf);
        goto done;
    }
    q.n_gpus = (int)v[0];
    q.gbs = (int)v[1];
    q.layout.mbs = (int)v[2];
    q.seq_len = (int)v[3];
    q.layout.tp = (int)v[4];
    q.layout.pp = (int)v[5];
    q.layout.cp = (int)v[6];
    q.layout.ep = (int)v[7];
    q.layout.vp = (int)v[8];
    q.layout.etp = (int)v[9];
    q.layout.fsdp = fsdp;
    q.layout.recompute = recompute;
    q.layout.distopt = distopt;
    q.release = release;
    q.cuda_graph = cuda_graph;
    q.moe_dispatcher = dispatcher;
    q.moe_a2a_overlap = a2a;
    q.recompute_modules = mods;
    /* Gb/s on the command line (the unit NIC data sheets use), bits per second
     * inside. */
    q.dp_link_bps = dp_gbps * 1e9;
    if (predict_site(m, sc, &q, &r, &applied) != SIM_OK) {
        rc = cli_error("cannot predict: %s", r.why);
        goto done;
    }
    if (applied && fmt == CLI_FMT_TABLE)
        printf("site calibration: %s (compute time x%.4f, communication "
               "time x%.4f)\n",
               site_shown, q.compute_slowdown, q.comm_slowdown);
    /* A release named on the command line whose factor for this class was
     * not fitted (one model or none measured there) or not kept (leaving
     * each model out did not support it) runs at the typical stack's
     * speed; say so rather than let it pass for calibrated. */
    if (release && fmt == CLI_FMT_TABLE &&
        !release_factor(m, release, q.llm->cls, NULL))
        printf("release %s has no %s factor (kept only where two or more "
               "models ran and\nleaving each model out supported it): the "
               "typical stack\n",
               release, llm_class_name(q.llm->cls));
    rc = print_one(m, &q, &r, fmt,
                   release ? release
                           : (m->default_release >= 0
                                  ? m->releases[m->default_release]
                                  : "none"));
done:
    free(sc);
    tp_model_free(m);
    catalog_free(cat);
    return rc;
}
