/* io/calib_file.c: the libconfig adapter for models/calibration.cfg (see
 * calib_file.h). Writing prints the libconfig syntax directly so that reals
 * keep 10 significant digits (libconfig 1.5's writer keeps 6); reading goes
 * through libconfig with auto-conversion on, and every key that is present
 * must have the right type, else FILE:LINE: key: message.
 */
#include "io/calib_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/cfg.h"
#include "io/datadir.h"
#include "sim/mem.h"

const char *tp_model_default_path(void)
{
    static char buf[4096];
    if (datadir_path("models/calibration.cfg", buf, sizeof buf) != 0)
        return "models/calibration.cfg"; /* home too long: say where */
    return buf;
}

/* The top level and each group's keys: exactly those tp_model_save writes.
 * accuracy is informational (written, not read) and may be absent;
 * model_rows is read when present (a fit without cross-validation has
 * none, and files written before it lack it). */
static const char *const top_keys[] = {
    "version",   "params",       "gpus",   "releases", "default_release",
    "sigma_log", "dp_latency_s", "domain", "accuracy", "model_rows",
    NULL};
static const char *const model_rows_keys[] = {
    "model", "gpu", "n", "loco_mean_error_pct", "loco_mape_pct", NULL};
/* The calibration set's domain (version 3): predictions outside it are
 * flagged extrapolated (models/throughput.h TP_EXTRAP_*). */
static const char *const domain_keys[] = {
    "active_params_min", "active_params_max", "experts_max", "seq_max", NULL};
static const char *const param_keys[] = {"value", "sd", "unit", NULL};
static const char *const gpu_keys[] = {"name",       "log_factor", "sd",
                                       "n_gpus_max", "spread",     NULL};
static const char *const rel_keys[] = {
    "id", "dense", "moe", "hybrid", "dense_sd", "moe_sd", "hybrid_sd", NULL};
static const char *const sigma_keys[] = {"dense", "moe", "hybrid",
                                         "extrapolated", NULL};
static const char *const cls_keys[TP_NCLASS] = {"dense", "moe", "hybrid"};
static const char *const cls_sd_keys[TP_NCLASS] = {"dense_sd", "moe_sd",
                                                   "hybrid_sd"};

/* A calibrated number: always required, finite, in [lo, hi]. */
static int num(cfg_reader *r, const config_setting_t *g, const char *key,
               double lo, double hi, double *out)
{
    return cfg_double(r, g, key, 1, 0, lo, hi, 1, out);
}

/* A key missing from the top level has no setting to take a line from; it
 * is reported at line 1, the file as a whole. */
static int top_missing(cfg_reader *r, const char *key, const char *expected)
{
    return sim_err_set(r->err, SIM_ECONFIG, r->top_file, 1,
                       "%s: missing key (expected %s)", key, expected);
}

/* The version comes first, so that a file of another format is named as
 * such rather than by the first key it lacks. */
static int check_version(cfg_reader *r, const config_setting_t *root)
{
    config_setting_t *v = config_setting_get_member(root, "version");
    long long ver;
    int rc;
    if (config_setting_length(root) == 0)
        return sim_err_set(r->err, SIM_ECONFIG, r->top_file, 1,
                           "empty calibration file (got no settings, "
                           "expected version = %d and the groups params, "
                           "gpus, releases and sigma_log)",
                           TP_CALIB_FILE_VERSION);
    if (!v)
        return sim_err_set(r->err, SIM_ECONFIG, r->top_file, 1,
                           "version: missing key (got a file without a "
                           "format version, expected version = %d)",
                           TP_CALIB_FILE_VERSION);
    if ((rc = cfg_int(r, root, "version", 1, 0, 0, 1000000, &ver)) != SIM_OK)
        return rc;
    if (ver != TP_CALIB_FILE_VERSION)
        return cfg_fail(r, v, NULL,
                        "unsupported calibration file format (got version "
                        "%lld, expected %d)",
                        ver, TP_CALIB_FILE_VERSION);
    return SIM_OK;
}

static int read_params(cfg_reader *r, const config_setting_t *g, tp_model *m)
{
    const char *names[TP_NPAR + 1];
    int rc;
    for (int k = 0; k < TP_NPAR; k++)
        names[k] = tp_param_name(k);
    names[TP_NPAR] = NULL;
    if ((rc = cfg_check_keys(r, g, names)) != SIM_OK)
        return rc;
    for (int k = 0; k < TP_NPAR; k++) {
        config_setting_t *s;
        char unit[32];
        if ((rc = cfg_member(r, g, tp_param_name(k), CONFIG_TYPE_GROUP, 1,
                             &s)) != SIM_OK ||
            (rc = cfg_check_keys(r, s, param_keys)) != SIM_OK ||
            (rc = num(r, s, "value", 0, HUGE_VAL, &m->p[k])) != SIM_OK ||
            (rc = num(r, s, "sd", 0, HUGE_VAL, &m->p_sd[k])) != SIM_OK ||
            (rc = cfg_string(r, s, "unit", 1, "", unit, sizeof unit)) != SIM_OK)
            return rc;
        /* The unit is written for the reader's benefit; a different one
         * means the value is not in the unit the model takes. */
        if (strcmp(unit, tp_param_unit(k)) != 0)
            return cfg_fail(r, s, "unit",
                            "wrong unit (got \"%s\", expected \"%s\")", unit,
                            tp_param_unit(k));
    }
    return SIM_OK;
}

static int read_gpus(cfg_reader *r, const config_setting_t *g, tp_model *m)
{
    int n = config_setting_length(g), rc;
    if (n > TP_MAX_GPUS)
        return cfg_fail(r, g, NULL, "too many GPUs (got %d, expected <= %d)", n,
                        TP_MAX_GPUS);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        double nmax = 0, spread = 1;
        if (!config_setting_is_group(s))
            return cfg_fail(r, s, NULL,
                            "expected a group { name; log_factor; sd; }");
        if ((rc = cfg_check_keys(r, s, gpu_keys)) != SIM_OK ||
            (rc = cfg_string(r, s, "name", 1, "", m->gpus[i],
                             sizeof m->gpus[0])) != SIM_OK ||
            (rc = num(r, s, "log_factor", -HUGE_VAL, HUGE_VAL,
                      &m->gpu_log[i])) != SIM_OK ||
            (rc = num(r, s, "sd", 0, HUGE_VAL, &m->gpu_sd[i])) != SIM_OK ||
            (rc = cfg_double(r, s, "n_gpus_max", 0, 0, 0, 1e7, 1, &nmax)) !=
                SIM_OK ||
            (rc = cfg_double(r, s, "spread", 0, 1, TP_GPU_SPREAD_MIN,
                             TP_GPU_SPREAD_MAX, 1, &spread)) != SIM_OK)
            return rc;
        /* Optional: files written before the straggler term lack it, and
         * 0 (unknown) turns the term off for that GPU rather than guess. */
        m->gpu_n_max[i] = (int)nmax;
        /* Optional too: a file without it was written when the interval's
         * spread was the class's alone, which 1 reproduces. */
        m->gpu_spread[i] = spread;
        m->n_gpus++;
    }
    return SIM_OK;
}

static int read_releases(cfg_reader *r, const config_setting_t *g, tp_model *m)
{
    int n = config_setting_length(g), rc;
    if (n > TP_MAX_RELEASES)
        return cfg_fail(r, g, NULL,
                        "too many releases (got %d, expected <= %d)", n,
                        TP_MAX_RELEASES);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        if (!config_setting_is_group(s))
            return cfg_fail(r, s, NULL,
                            "expected a group { id; dense; moe; hybrid; "
                            "dense_sd; moe_sd; hybrid_sd; }");
        if ((rc = cfg_check_keys(r, s, rel_keys)) != SIM_OK ||
            (rc = cfg_string(r, s, "id", 1, "", m->releases[i],
                             sizeof m->releases[0])) != SIM_OK)
            return rc;
        for (int c = 0; c < TP_NCLASS; c++)
            if ((rc = num(r, s, cls_keys[c], -HUGE_VAL, HUGE_VAL,
                          &m->rel_log[i][c])) != SIM_OK ||
                (rc = num(r, s, cls_sd_keys[c], 0, HUGE_VAL,
                          &m->rel_sd[i][c])) != SIM_OK)
                return rc;
        m->n_releases++;
    }
    return SIM_OK;
}

/* The published-row records (tp_model_rows): one per model and GPU pair,
 * each percentage a mean over n >= 1 rows, so a mean error below -100 %
 * (a prediction below zero) or a negative MAPE is a damaged file. */
static int read_model_rows(cfg_reader *r, const config_setting_t *g,
                           tp_model *m)
{
    int n = config_setting_length(g), rc;
    if (n > TP_MAX_MODEL_ROWS)
        return cfg_fail(r, g, NULL,
                        "too many model rows (got %d, expected <= %d)", n,
                        TP_MAX_MODEL_ROWS);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        tp_model_rows *e = &m->model_rows[i];
        long long k;
        if (!config_setting_is_group(s))
            return cfg_fail(r, s, NULL,
                            "expected a group { model; gpu; n; "
                            "loco_mean_error_pct; loco_mape_pct; }");
        if ((rc = cfg_check_keys(r, s, model_rows_keys)) != SIM_OK ||
            (rc = cfg_string(r, s, "model", 1, "", e->model,
                             sizeof e->model)) != SIM_OK ||
            (rc = cfg_string(r, s, "gpu", 1, "", e->gpu, sizeof e->gpu)) !=
                SIM_OK ||
            (rc = cfg_int(r, s, "n", 1, 0, 1, 100000000, &k)) != SIM_OK ||
            (rc = num(r, s, "loco_mean_error_pct", -100, HUGE_VAL,
                      &e->loco_mean_error_pct)) != SIM_OK ||
            (rc = num(r, s, "loco_mape_pct", 0, HUGE_VAL, &e->loco_mape_pct)) !=
                SIM_OK)
            return rc;
        if (!e->model[0])
            return cfg_fail(r, s, "model",
                            "empty model name (expected a catalog model)");
        e->n = (int)k;
        if (tp_model_rows_of(m, e->model, e->gpu))
            return cfg_fail(r, s, NULL,
                            "second record for model \"%s\" on %s (expected "
                            "one per model and GPU)",
                            e->model, e->gpu[0] ? e->gpu : "every GPU");
        /* Both are means over the same rows, printed to two decimals. */
        if (fabs(e->loco_mean_error_pct) > e->loco_mape_pct + 0.01)
            return cfg_fail(r, s, NULL,
                            "mean error %g %% larger than the MAPE %g %% (a "
                            "mean cannot exceed the mean of its absolute "
                            "values)",
                            e->loco_mean_error_pct, e->loco_mape_pct);
        m->n_model_rows++;
    }
    /* The per-GPU records split their model's rows: each has the model's
     * every-GPU record, and their counts add up to at most its count (to
     * it exactly unless calibrate dropped records, calib_model_rows). */
    for (int i = 0; i < m->n_model_rows; i++) {
        const tp_model_rows *e = &m->model_rows[i];
        const tp_model_rows *all = tp_model_rows_of(m, e->model, "");
        int sum = 0;
        if (!all)
            return cfg_fail(r, config_setting_get_elem(g, (unsigned)i), NULL,
                            "record for model \"%s\" on %s without the "
                            "model's every-GPU record (gpu = \"\")",
                            e->model, e->gpu);
        if (e != all)
            continue;
        for (int j = 0; j < m->n_model_rows; j++)
            if (m->model_rows[j].gpu[0] &&
                strcasecmp(m->model_rows[j].model, e->model) == 0)
                sum += m->model_rows[j].n;
        if (sum > e->n)
            return cfg_fail(r, config_setting_get_elem(g, (unsigned)i), "n",
                            "%d rows for model \"%s\" on every GPU, but its "
                            "per-GPU records count %d (expected at most as "
                            "many)",
                            e->n, e->model, sum);
    }
    return SIM_OK;
}

/* Reads and validates the whole file into m (see calib_file.h). */
static int read_model(cfg_reader *r, tp_model *m)
{
    config_setting_t *root = config_root_setting(&r->cfg), *g;
    char rel[40];
    int rc;

    if ((rc = check_version(r, root)) != SIM_OK ||
        (rc = cfg_check_keys(r, root, top_keys)) != SIM_OK)
        return rc;
    for (int k = 0; top_keys[k]; k++)
        if (strcmp(top_keys[k], "accuracy") != 0 &&
            strcmp(top_keys[k], "model_rows") != 0 &&
            !config_setting_get_member(root, top_keys[k]))
            return top_missing(r, top_keys[k],
                               strcmp(top_keys[k], "default_release") == 0
                                   ? "the id of one of the releases"
                               : strcmp(top_keys[k], "dp_latency_s") == 0
                                   ? "a latency in seconds"
                                   : "the group or list that `factorysim "
                                     "calibrate` writes");
    if ((rc = cfg_member(r, root, "params", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = read_params(r, g, m)) != SIM_OK ||
        (rc = cfg_member(r, root, "gpus", CONFIG_TYPE_LIST, 1, &g)) != SIM_OK ||
        (rc = read_gpus(r, g, m)) != SIM_OK ||
        (rc = cfg_member(r, root, "releases", CONFIG_TYPE_LIST, 1, &g)) !=
            SIM_OK ||
        (rc = read_releases(r, g, m)) != SIM_OK ||
        (rc = cfg_string(r, root, "default_release", 1, "", rel, sizeof rel)) !=
            SIM_OK)
        return rc;
    /* "" is what a fit without release labels writes: no default. */
    m->default_release = rel[0] ? tp_model_release(m, rel) : -1;
    if (rel[0] && m->default_release < 0)
        return cfg_fail(r, config_setting_get_member(root, "default_release"),
                        NULL, "not one of the releases listed (got \"%s\")",
                        rel);
    if ((rc = cfg_member(r, root, "sigma_log", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, sigma_keys)) != SIM_OK)
        return rc;
    for (int c = 0; c < TP_NCLASS; c++)
        if ((rc = num(r, g, cls_keys[c], 0, HUGE_VAL, &m->sigma_log[c])) !=
            SIM_OK)
            return rc;
    if ((rc = num(r, g, "extrapolated", 0, HUGE_VAL, &m->sigma_extrap)) !=
            SIM_OK ||
        (rc = num(r, root, "dp_latency_s", 0, HUGE_VAL, &m->dp_latency_s)) !=
            SIM_OK)
        return rc;
    {
        double em, sm;
        if ((rc = cfg_member(r, root, "domain", CONFIG_TYPE_GROUP, 1, &g)) !=
                SIM_OK ||
            (rc = cfg_check_keys(r, g, domain_keys)) != SIM_OK ||
            (rc = num(r, g, "active_params_min", 0, HUGE_VAL,
                      &m->dom_active_params_min)) != SIM_OK ||
            (rc = num(r, g, "active_params_max", m->dom_active_params_min,
                      HUGE_VAL, &m->dom_active_params_max)) != SIM_OK ||
            (rc = num(r, g, "experts_max", 0, 1e6, &em)) != SIM_OK ||
            (rc = num(r, g, "seq_max", 0, 1e9, &sm)) != SIM_OK)
            return rc;
        m->dom_experts_max = (int)em;
        m->dom_seq_max = (int)sm;
    }
    if ((rc = cfg_member(r, root, "model_rows", CONFIG_TYPE_LIST, 0, &g)) !=
        SIM_OK)
        return rc;
    return g ? read_model_rows(r, g, m) : SIM_OK;
}

int tp_model_load(const char *path, tp_model **out, sim_err *err)
{
    cfg_reader r;
    tp_model *m;
    int rc;

    *out = NULL;
    memset(&r, 0, sizeof r);
    rc = cfg_read(&r, path, err);
    if (rc == SIM_EIO) {
        cfg_reader_free(&r);
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot open calibration file");
    }
    m = sim_xcalloc(1, sizeof *m);
    tp_model_init(m);
    if (rc == SIM_OK)
        rc = read_model(&r, m);
    cfg_reader_free(&r);
    if (rc != SIM_OK && err) {
        /* Every refusal says what to do: the file is `calibrate`'s output,
         * so the remedy is to write it again, not to patch it by hand. */
        size_t k = strlen(err->msg);
        snprintf(err->msg + k, sizeof err->msg - k,
                 "; rerun `factorysim calibrate` to write a version %d "
                 "calibration file",
                 TP_CALIB_FILE_VERSION);
    }
    if (rc != SIM_OK) {
        free(m);
        return rc;
    }
    *out = m;
    return SIM_OK;
}

int tp_model_default(tp_model **out, sim_err *err)
{
    return tp_model_load(tp_model_default_path(), out, err);
}

int tp_model_save(const tp_model *m, const char *path, const char *header,
                  const char *accuracy_cfg, sim_err *err)
{
    char tmp[4200];
    FILE *f;
    int ok;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot write calibration file");
    if (header) {
        const char *p = header;
        while (*p) {
            size_t k = strcspn(p, "\n");
            fprintf(f, "# %.*s\n", (int)k, p);
            p += k;
            if (*p == '\n')
                p++;
        }
    }
    fprintf(f, "\nversion = %d;\n\nparams = {\n", TP_CALIB_FILE_VERSION);
    for (int k = 0; k < TP_NPAR; k++)
        fprintf(f, "  %s = { value = %.10e; sd = %.4e; unit = \"%s\"; };\n",
                tp_param_name(k), m->p[k], m->p_sd[k], tp_param_unit(k));
    /* One comment line: tests/test_calib.c names lines of this file. */
    fputs("};\n\n# log factor on GEMM efficiency per calibrated GPU "
          "(n_gpus_max: its largest row; spread: its interval "
          "multiplier)\ngpus = (\n",
          f);
    for (int i = 0; i < m->n_gpus; i++)
        fprintf(f,
                "  { name = \"%s\"; log_factor = %.10e; sd = %.4e; "
                "n_gpus_max = %d; spread = %.9g; }%s\n",
                m->gpus[i], m->gpu_log[i], m->gpu_sd[i], m->gpu_n_max[i],
                m->gpu_spread[i], i + 1 < m->n_gpus ? "," : "");
    fputs(");\n\n# log factor on compute time per release x model "
          "class\nreleases = (\n",
          f);
    for (int i = 0; i < m->n_releases; i++)
        fprintf(f,
                "  { id = \"%s\"; dense = %.10e; moe = %.10e; hybrid = %.10e;\n"
                "    dense_sd = %.4e; moe_sd = %.4e; hybrid_sd = %.4e; }%s\n",
                m->releases[i], m->rel_log[i][0], m->rel_log[i][1],
                m->rel_log[i][2], m->rel_sd[i][0], m->rel_sd[i][1],
                m->rel_sd[i][2], i + 1 < m->n_releases ? "," : "");
    fputs(");\n", f);
    /* Always written ("" = none), so that a reader can refuse a file
     * that lacks it. */
    fprintf(f, "default_release = \"%s\";\n",
            m->default_release >= 0 ? m->releases[m->default_release] : "");
    fprintf(
        f,
        "\n# log-error sd per class from leave-one-configuration-out, times "
        "the\n"
        "# GPU's spread: the 80%% interval is exp(+-1.2816 sd); extrapolated "
        "adds in quadrature\n"
        "sigma_log = { dense = %.6e; moe = %.6e; hybrid = %.6e; extrapolated = "
        "%.6e; };\n"
        "dp_latency_s = %.6e;\n"
        "\n# the calibration set's domain: outside it a prediction is flagged\n"
        "# extrapolated (docs/throughput-model.md section 8)\n"
        "domain = { active_params_min = %.6e; active_params_max = %.6e; "
        "experts_max = %d; seq_max = %d; };\n",
        m->sigma_log[0], m->sigma_log[1], m->sigma_log[2], m->sigma_extrap,
        m->dp_latency_s, m->dom_active_params_min, m->dom_active_params_max,
        m->dom_experts_max, m->dom_seq_max);
    if (m->n_model_rows > 0) {
        fputs("\n# how the model did on each catalog model's published rows, "
              "read by\n# predict and reported beside a prediction (never "
              "applied to it):\n# predicted / measured - 1 under "
              "leave-one-configuration-out, mean\n# and mean absolute [%]; "
              "gpu \"\" = every GPU\nmodel_rows = (\n",
              f);
        for (int i = 0; i < m->n_model_rows; i++) {
            const tp_model_rows *e = &m->model_rows[i];
            fprintf(f,
                    "  { model = \"%s\"; gpu = \"%s\"; n = %d; "
                    "loco_mean_error_pct = %.2f; loco_mape_pct = %.2f; }%s\n",
                    e->model, e->gpu, e->n, e->loco_mean_error_pct,
                    e->loco_mape_pct, i + 1 < m->n_model_rows ? "," : "");
        }
        fputs(");\n", f);
    }
    if (accuracy_cfg)
        fprintf(f,
                "\n# informational (not read): MAPE of tokens/s/GPU "
                "[%%]\naccuracy = %s;\n",
                accuracy_cfg);
    ok = ferror(f) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot write calibration file");
    }
    return SIM_OK;
}
