/* io/calib_rows.c: CSV rows -> calib_row (see calib_rows.h). Numbers are
 * parsed strictly (the whole cell must be a number); the configuration key
 * is built from the parsed values plus every other column except release,
 * source, status, notes, the measured values and redundant labels, so that
 * all releases of one configuration group together.
 */
#include "io/calib_rows.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/flops.h"

static const char *required[] = {"model", "gpu", "num_gpus", "precision",
                                 "gbs",   "mbs", "seq_len",  "tp",
                                 "pp",    "cp",  "ep",       "vp"};
static const char *not_config[] = {
    "release", "source", "status", "notes", "tokens_per_sec_per_gpu",
    "model_tflops_per_gpu", "step_time_s", "tokens_per_sec_total", "mfu_pct",
    /* The software recipe is not the
     * configuration: a release that changed
     * its recipe on the same layout stays in
     * the same fold, so cross-validation
     * tests whether the recipe terms carry
     * to configurations they were not fitted
     * on (docs/throughput-model.md §2). */
    "cuda_graph", "moe_dispatcher", "recompute_modules", "moe_a2a_overlap",
    "recipe_source"};
/* Columns the configuration key takes parsed (or drops as redundant). */
static const char *parsed[] = {"etp",
                               "model",
                               "gpu",
                               "precision",
                               "num_gpus",
                               "gbs",
                               "mbs",
                               "seq_len",
                               "tp",
                               "pp",
                               "cp",
                               "ep",
                               "vp",
                               "recompute",
                               "num_layers_run",
                               "fsdp",
                               "model_as_written",
                               "system_as_written",
                               "ga"};

int calib_rows_check(const csvt *t, sim_err *err)
{
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (csvt_col(t, required[i]) < 0)
            return sim_err_set(err, SIM_ECONFIG, t->path, 1,
                               "missing column '%s' (expected the columns of "
                               "megatron_throughput.csv)",
                               required[i]);
    return SIM_OK;
}

/* Case-insensitive substring test (strcasestr is a GNU extension). */
static int strcasestr_(const char *h, const char *n)
{
    size_t ln = strlen(n);
    for (; *h; h++)
        if (strncasecmp(h, n, ln) == 0)
            return 1;
    return 0;
}

static const char *cell(const csvt *t, size_t i, const char *col)
{
    int c = csvt_col(t, col);
    return c < 0 ? "" : t->rows[i][c];
}

/* Parses a cell as a number in [lo, hi]; blank gives def and *blank = 1. */
static int num(const csvt *t, size_t i, const char *col, double lo, double hi,
               double def, double *v, int *blank, sim_err *err)
{
    const char *s = cell(t, i, col);
    char *end;
    double x;
    if (blank)
        *blank = 0;
    while (*s == ' ')
        s++;
    if (!*s) {
        *v = def;
        if (blank)
            *blank = 1;
        return SIM_OK;
    }
    errno = 0;
    x = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (errno || *end || !isfinite(x) || x < lo || x > hi)
        return sim_err_set(
            err, SIM_ECONFIG, t->path, t->line[i],
            "%s: bad number (got '%s', expected a number in [%g, %g])", col, s,
            lo, hi);
    *v = x;
    return SIM_OK;
}

static int inum(const csvt *t, size_t i, const char *col, int lo, int hi,
                int def, int *v, int *blank, sim_err *err)
{
    double x;
    int rc = num(t, i, col, lo, hi, def, &x, blank, err);
    if (rc != SIM_OK)
        return rc;
    if (x != floor(x))
        return sim_err_set(err, SIM_ECONFIG, t->path, t->line[i],
                           "%s: bad number (got '%s', expected an integer)",
                           col, cell(t, i, col));
    *v = (int)x;
    return SIM_OK;
}

int calib_row_parse(const csvt *t, size_t i, const calib_lookup *lk,
                    calib_row *out, sim_err *err)
{
    const char *model = cell(t, i, "model"), *gpu = cell(t, i, "gpu");
    const char *prec = cell(t, i, "precision");
    char names[1024];
    const char *meas_col = "";
    int blank, tp_blank, etp_blank, rc, fsdp = 0, bl[6] = {0};
    double v;
    memset(out, 0, sizeof *out);
    out->line = t->line[i];
    out->llm = lk->llm(lk->ctx, model);
    if (!out->llm) {
        lk->names(lk->ctx, "llms", names, sizeof names);
        return sim_err_set(
            err, SIM_ENOTFOUND, t->path, t->line[i],
            "model: unknown model (got '%s', expected one of: %s)", model,
            names);
    }
    out->gpu = lk->gpu(lk->ctx, gpu);
    if (!out->gpu) {
        lk->names(lk->ctx, "gpus", names, sizeof names);
        return sim_err_set(err, SIM_ENOTFOUND, t->path, t->line[i],
                           "gpu: unknown GPU (got '%s', expected one of: %s)",
                           gpu, names);
    }
    if (precision_parse(prec, &out->prec) != SIM_OK)
        return sim_err_set(
            err, SIM_ENOTFOUND, t->path, t->line[i],
            "precision: unknown precision (got '%s', expected one of: %s)",
            prec, precision_valid_labels());
    out->q.gpu = out->gpu;
    out->q.llm = out->llm;
    out->q.prec = out->prec;
    if ((rc = inum(t, i, "num_gpus", 1, 1 << 24, 0, &out->q.n_gpus, &blank,
                   err)) != SIM_OK)
        return rc;
    if (blank)
        return sim_err_set(
            err, SIM_ECONFIG, t->path, t->line[i],
            "num_gpus: missing value (expected a GPU count >= 1)");
    if ((rc = inum(t, i, "gbs", 1, 1 << 26, 0, &out->q.gbs, NULL, err)) !=
            SIM_OK ||
        (rc = inum(t, i, "mbs", 1, 1 << 20, 1, &out->q.layout.mbs, &bl[5],
                   err)) != SIM_OK ||
        (rc = inum(t, i, "seq_len", 1, 1 << 26, 0, &out->q.seq_len, &blank,
                   err)) != SIM_OK)
        return rc;
    if (blank) {
        out->q.seq_len = out->llm->default_seq_len;
        out->seq_assumed = 1;
    }
    if ((rc = inum(t, i, "tp", 1, 1 << 16, 0, &out->q.layout.tp, &tp_blank,
                   err)) != SIM_OK ||
        (rc = inum(t, i, "pp", 1, 1 << 16, 1, &out->q.layout.pp, &bl[1],
                   err)) != SIM_OK ||
        (rc = inum(t, i, "cp", 1, 1 << 16, 1, &out->q.layout.cp, &bl[3],
                   err)) != SIM_OK ||
        (rc = inum(t, i, "ep", 1, 1 << 16, 1, &out->q.layout.ep, &bl[4],
                   err)) != SIM_OK ||
        (rc = inum(t, i, "vp", 1, 1 << 16, 1, &out->q.layout.vp, &bl[2],
                   err)) != SIM_OK ||
        (rc = inum(t, i, "num_layers_run", 1, 1 << 16, 0, &out->q.layers_run,
                   NULL, err)) != SIM_OK ||
        (rc = inum(t, i, "fsdp", 0, 1 << 24, 0, &fsdp, NULL, err)) != SIM_OK ||
        (rc = inum(t, i, "etp", 1, 1 << 16, 0, &out->q.layout.etp, &etp_blank,
                   err)) != SIM_OK)
        return rc;
    bl[0] = tp_blank;
    for (int f = 0; f < 6; f++)
        if (bl[f])
            out->blank |= 1u << f; /* f is TP_FIELD_TP .. TP_FIELD_MBS */
    /* A blank etp is Megatron's default, the tp size
     * (model_parallel_config.py: expert_tensor_parallel_size None -> tp),
     * for a MoE model whose layout admits it; where ep x tp does not
     * divide a stage's GPUs (or tp the experts' width) Megatron would
     * have refused the default, so the run set it, to 1 as every
     * published recipe that sets it does. `predict --csv` chooses it. */
    if (etp_blank) {
        const tp_layout *l = &out->q.layout;
        int tp = l->tp, per = l->pp > 0 ? out->q.n_gpus / l->pp : 0;
        out->blank |= 1u << TP_FIELD_ETP;
        if (tp_blank)
            out->q.layout.etp = 0;
        else if (out->llm->num_experts > 0 && tp > 1 &&
                 per % (l->ep * tp) == 0 &&
                 out->llm->moe_ffn_hidden_size % tp == 0)
            out->q.layout.etp = tp;
        else
            out->q.layout.etp = 1;
    }
    if (tp_blank) {
        int mbs = out->q.layout.mbs;
        memset(&out->q.layout, 0, sizeof out->q.layout);
        out->q.layout.mbs = mbs;
    }
    out->q.layout.fsdp = fsdp > 0;
    /* Recompute: optional column. A blank cell (or no column) is Megatron's
     * default, none (recompute_granularity unset), as a blank pp is 1: the
     * published tables do not state it, and charging the layout the
     * recomputation the memory model would need charges a cost the run
     * did not pay when it saved memory in ways the model leaves out
     * (docs/throughput-model.md §7). `predict --csv` chooses it. */
    {
        const char *rcs = cell(t, i, "recompute");
        while (*rcs == ' ')
            rcs++;
        if (!*rcs) {
            out->blank |= 1u << TP_FIELD_RECOMPUTE;
            if (!tp_blank)
                out->q.layout.recompute = TP_RECOMPUTE_NONE;
        } else if ((out->q.layout.recompute = tp_recompute_parse(rcs)) ==
                   TP_RECOMPUTE_CHOOSE) {
            return sim_err_set(err, SIM_ECONFIG, t->path, t->line[i],
                               "recompute: unknown mode (got '%s', expected "
                               "none, selective, full or blank)",
                               rcs);
        }
    }
    /* The software recipe (optional columns; blank = not stated, the
     * calibrated default). */
    {
        const char *cg = cell(t, i, "cuda_graph"),
                   *dis = cell(t, i, "moe_dispatcher"),
                   *rm = cell(t, i, "recompute_modules");
        int ok, ov;
        if ((out->q.cuda_graph = tp_cuda_graph_parse(cg)) < 0)
            return sim_err_set(err, SIM_ECONFIG, t->path, t->line[i],
                               "cuda_graph: unknown value (got '%s', "
                               "expected none, partial, full or blank)",
                               cg);
        if ((out->q.moe_dispatcher = tp_moe_dispatcher_parse(dis)) < 0)
            return sim_err_set(err, SIM_ECONFIG, t->path, t->line[i],
                               "moe_dispatcher: unknown value (got '%s', "
                               "expected alltoall, allgather, flex-deepep, "
                               "flex-hybridep or blank)",
                               dis);
        out->q.recompute_modules = tp_recompute_modules_parse(rm, &ok);
        if (!ok)
            return sim_err_set(
                err, SIM_ECONFIG, t->path, t->line[i],
                "recompute_modules: unknown module (got '%s', expected "
                "none or modules of core_attn, mlp, moe, moe_act, "
                "layernorm, mla_up_proj, shared_experts separated by ';')",
                rm);
        if ((rc = inum(t, i, "moe_a2a_overlap", 0, 1, -1, &ov, NULL, err)) !=
            SIM_OK)
            return rc;
        out->q.moe_a2a_overlap = ov + 1;
    }
    /* The exclusion rule, fixed before any fit was looked at: a row whose
     * own source flags it a known regression is not a measurement of the
     * stack it names (issue 18). */
    {
        const char *nt = cell(t, i, "notes");
        out->anomalous =
            strcasestr_(nt, "regression") && strcasestr_(nt, "known issue");
    }
    tp_release_id(cell(t, i, "release"), out->release, sizeof out->release);
    out->q.release = out->release[0] ? out->release : NULL;
    /* Measurement: tokens/s/GPU, else total / GPUs, else from step time. */
    if ((rc = num(t, i, "tokens_per_sec_per_gpu", 0, 1e12, 0, &v, &blank,
                  err)) != SIM_OK)
        return rc;
    if (!blank) {
        out->meas_tps = v;
        meas_col = "tokens_per_sec_per_gpu";
    } else {
        if ((rc = num(t, i, "tokens_per_sec_total", 0, 1e15, 0, &v, &blank,
                      err)) != SIM_OK)
            return rc;
        if (!blank) {
            out->meas_tps = v / out->q.n_gpus;
            meas_col = "tokens_per_sec_total";
        } else {
            if ((rc = num(t, i, "step_time_s", 0, 1e9, 0, &v, &blank, err)) !=
                SIM_OK)
                return rc;
            if (!blank && v > 0 && out->q.gbs > 0)
                out->meas_tps =
                    (double)out->q.gbs * out->q.seq_len / v / out->q.n_gpus;
            meas_col = "step_time_s";
        }
    }
    /* The step time is what the sources measure (dgxc-benchmarking's
     * READMEs: "measured by seconds per iteration"; tokens per second are
     * derived from it by formula), so when a row prints both and they
     * disagree by more than 3 % the derived throughput is the typo and
     * the step time is used (issue 18; the rule names no row: it applies
     * to any row whose own columns contradict each other). */
    out->meas_from_step = 0;
    if (meas_col[0] != 's' && out->meas_tps > 0 && out->q.gbs > 0) {
        double st;
        if ((rc = num(t, i, "step_time_s", 0, 1e9, 0, &st, &blank, err)) !=
            SIM_OK)
            return rc;
        if (!blank && st > 0) {
            double from_step =
                (double)out->q.gbs * out->q.seq_len / st / out->q.n_gpus;
            if (fabs(out->meas_tps / from_step - 1) > CALIB_STEP_MISMATCH) {
                out->meas_tps = from_step;
                out->meas_from_step = 1;
                meas_col = "step_time_s";
            }
        }
    }
    /* A measurement above the dense peak cannot be right; refusing it here
     * keeps it out of every command that reads measured rows (exemplar's
     * verdict, calibrate's fit), not only the one that noticed. */
    if (calib_row_peak_fraction(out) > 1) {
        double f =
            flops_per_token(out->llm, out->q.seq_len, out->q.layers_run, NULL);
        return sim_err_set(
            err, SIM_ECONFIG, t->path, t->line[i],
            "%s: implausible measurement: model FLOP/s per GPU above the "
            "%s's dense %s peak for %s (got %.6g tokens/s/GPU x %.4g "
            "FLOP/token = %.4g FLOP/s, %.3g x the peak; expected <= %.4g "
            "FLOP/s; %s)",
            meas_col, out->gpu->name, precision_fmt_name(out->prec.fmt),
            precision_recipe_name(out->prec.recipe), out->meas_tps, f,
            out->meas_tps * f, calib_row_peak_fraction(out),
            out->gpu->peak_flops[out->prec.fmt],
            meas_col[0] == 's' ? "a step time in the wrong unit?"
            : strstr(meas_col, "total")
                ? "a total over more GPUs than num_gpus?"
                : "a cluster total typed into the per-GPU column?");
    }
    /* Configuration key: the resolved model and GPU, the precision label,
     * the parsed numbers (a blank layout cell and its default are the same
     * configuration; so are fsdp "" and "0"), then every other column raw,
     * except the redundant labels model_as_written, system_as_written and ga
     * (they restate model, GPU, GPU count, batch and layout, and some embed
     * the release, e.g. "Llama 3.1 70b 24.09 BF16", which would split one
     * configuration's releases into different groups). */
    {
        size_t k = 0;
        const tp_query *q = &out->q;
        k += (size_t)snprintf(
            out->config, sizeof out->config,
            "%s|%s|%s|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|", out->llm->name,
            out->gpu->name, prec, q->n_gpus, q->gbs, q->layout.mbs, q->seq_len,
            q->layout.tp, q->layout.pp, q->layout.cp, q->layout.ep,
            q->layout.vp, q->layers_run, fsdp, q->layout.recompute,
            q->layout.etp);
        for (size_t c = 0; c < t->n_cols && k < sizeof out->config; c++) {
            int skip = 0;
            for (size_t j = 0; j < sizeof not_config / sizeof not_config[0];
                 j++)
                skip |= strcmp(t->header[c], not_config[j]) == 0;
            for (size_t j = 0; j < sizeof parsed / sizeof parsed[0]; j++)
                skip |= strcmp(t->header[c], parsed[j]) == 0;
            if (skip)
                continue;
            k += (size_t)snprintf(out->config + k, sizeof out->config - k,
                                  "%s|", t->rows[i][c]);
        }
    }
    return SIM_OK;
}
