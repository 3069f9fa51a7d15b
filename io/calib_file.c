/* io/calib_file.c: the libconfig adapter for models/calibration.cfg (see
 * calib_file.h). Writing prints the libconfig syntax directly so that reals
 * keep 10 significant digits (libconfig 1.5's writer keeps 6); reading goes
 * through libconfig with auto-conversion on, and every key that is present
 * must have the right type, else FILE:LINE: key: message.
 */
#include "io/calib_file.h"

#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/datadir.h"
#include "sim/mem.h"

const char *tp_model_default_path(void)
{
    static char buf[4096];
    if (datadir_path("models/calibration.cfg", buf, sizeof buf) != 0)
        return "models/calibration.cfg"; /* home too long: say where */
    return buf;
}

static int bad(sim_err *err, const char *path, const config_setting_t *s,
               const char *key, const char *msg)
{
    return sim_err_set(err, SIM_ECONFIG, path,
                       s ? (int)config_setting_source_line(s) : 0, "%s: %s",
                       key, msg);
}

/* Reads member name of group g as a float into *v if present. */
static int get_f(const config_setting_t *g, const char *name, double *v,
                 const char *path, const char *ctx, sim_err *err)
{
    config_setting_t *s = config_setting_get_member(g, name);
    char key[160];
    if (!s)
        return SIM_OK;
    snprintf(key, sizeof key, "%s.%s", ctx, name);
    if (config_setting_type(s) != CONFIG_TYPE_FLOAT &&
        config_setting_type(s) != CONFIG_TYPE_INT &&
        config_setting_type(s) != CONFIG_TYPE_INT64)
        return bad(err, path, s, key, "expected a number");
    *v = config_setting_get_float(s);
    if (config_setting_type(s) != CONFIG_TYPE_FLOAT)
        *v = (double)config_setting_get_int64(s);
    return SIM_OK;
}

int tp_model_load(const char *path, tp_model **out, sim_err *err)
{
    config_t cfg;
    config_setting_t *g, *s;
    tp_model *m;
    const char *str;
    int rc = SIM_OK;
    FILE *f;

    *out = NULL;
    f = fopen(path, "r");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot open calibration file");
    fclose(f);
    config_init(&cfg);
    if (config_read_file(&cfg, path) != CONFIG_TRUE) {
        rc = sim_err_set(err, SIM_ECONFIG, path, config_error_line(&cfg), "%s",
                         config_error_text(&cfg));
        config_destroy(&cfg);
        return rc;
    }
    config_set_auto_convert(&cfg, CONFIG_TRUE);
    m = sim_xcalloc(1, sizeof *m);
    tp_model_init(m);
    if ((g = config_lookup(&cfg, "params")) != NULL) {
        for (int k = 0; k < TP_NPAR && rc == SIM_OK; k++) {
            char ctx[80];
            s = config_setting_get_member(g, tp_param_name(k));
            if (!s)
                continue;
            snprintf(ctx, sizeof ctx, "params.%s", tp_param_name(k));
            if (!config_setting_is_group(s)) {
                rc = bad(err, path, s, ctx,
                         "expected a group { value = X; sd = S; }");
                break;
            }
            rc = get_f(s, "value", &m->p[k], path, ctx, err);
            if (rc == SIM_OK)
                rc = get_f(s, "sd", &m->p_sd[k], path, ctx, err);
            if (rc == SIM_OK && !(m->p[k] >= 0))
                rc = bad(err, path, s, ctx, "value must be >= 0");
        }
    }
    if (rc == SIM_OK && (g = config_lookup(&cfg, "gpus")) != NULL) {
        int n = config_setting_length(g);
        for (int i = 0; i < n && rc == SIM_OK; i++) {
            char ctx[40];
            s = config_setting_get_elem(g, (unsigned)i);
            snprintf(ctx, sizeof ctx, "gpus.[%d]", i);
            if (m->n_gpus >= TP_MAX_GPUS) {
                rc = bad(err, path, s, ctx, "too many GPUs");
                break;
            }
            if (!config_setting_lookup_string(s, "name", &str)) {
                rc = bad(err, path, s, ctx, "missing name");
                break;
            }
            snprintf(m->gpus[m->n_gpus], sizeof m->gpus[0], "%s", str);
            rc = get_f(s, "log_factor", &m->gpu_log[m->n_gpus], path, ctx, err);
            if (rc == SIM_OK)
                rc = get_f(s, "sd", &m->gpu_sd[m->n_gpus], path, ctx, err);
            m->n_gpus++;
        }
    }
    if (rc == SIM_OK && (g = config_lookup(&cfg, "releases")) != NULL) {
        static const char *cls[TP_NCLASS] = {"dense", "moe", "hybrid"};
        static const char *clsd[TP_NCLASS] = {"dense_sd", "moe_sd",
                                              "hybrid_sd"};
        int n = config_setting_length(g);
        for (int i = 0; i < n && rc == SIM_OK; i++) {
            char ctx[40];
            int k = m->n_releases;
            s = config_setting_get_elem(g, (unsigned)i);
            snprintf(ctx, sizeof ctx, "releases.[%d]", i);
            if (k >= TP_MAX_RELEASES) {
                rc = bad(err, path, s, ctx, "too many releases");
                break;
            }
            if (!config_setting_lookup_string(s, "id", &str)) {
                rc = bad(err, path, s, ctx, "missing id");
                break;
            }
            snprintf(m->releases[k], sizeof m->releases[0], "%s", str);
            for (int c = 0; c < TP_NCLASS && rc == SIM_OK; c++) {
                rc = get_f(s, cls[c], &m->rel_log[k][c], path, ctx, err);
                if (rc == SIM_OK)
                    rc = get_f(s, clsd[c], &m->rel_sd[k][c], path, ctx, err);
            }
            m->n_releases++;
        }
    }
    if (rc == SIM_OK && config_lookup_string(&cfg, "default_release", &str)) {
        m->default_release = tp_model_release(m, str);
        if (m->default_release < 0)
            rc = bad(err, path, config_lookup(&cfg, "default_release"),
                     "default_release", "not one of the releases listed");
    }
    if (rc == SIM_OK && (g = config_lookup(&cfg, "sigma_log")) != NULL) {
        rc = get_f(g, "dense", &m->sigma_log[0], path, "sigma_log", err);
        if (rc == SIM_OK)
            rc = get_f(g, "moe", &m->sigma_log[1], path, "sigma_log", err);
        if (rc == SIM_OK)
            rc = get_f(g, "hybrid", &m->sigma_log[2], path, "sigma_log", err);
        if (rc == SIM_OK)
            rc = get_f(g, "extrapolated", &m->sigma_extrap, path, "sigma_log",
                       err);
    }
    if (rc == SIM_OK)
        config_lookup_float(&cfg, "dp_latency_s", &m->dp_latency_s);
    config_destroy(&cfg);
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
    fputs("\nversion = 1;\n\nparams = {\n", f);
    for (int k = 0; k < TP_NPAR; k++)
        fprintf(f, "  %s = { value = %.10e; sd = %.4e; unit = \"%s\"; };\n",
                tp_param_name(k), m->p[k], m->p_sd[k], tp_param_unit(k));
    fputs(
        "};\n\n# log factor on GEMM efficiency per calibrated GPU\ngpus = (\n",
        f);
    for (int i = 0; i < m->n_gpus; i++)
        fprintf(f, "  { name = \"%s\"; log_factor = %.10e; sd = %.4e; }%s\n",
                m->gpus[i], m->gpu_log[i], m->gpu_sd[i],
                i + 1 < m->n_gpus ? "," : "");
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
    if (m->default_release >= 0)
        fprintf(f, "default_release = \"%s\";\n",
                m->releases[m->default_release]);
    fprintf(
        f,
        "\n# log-error sd per class from leave-one-configuration-out; the\n"
        "# 80%% interval is exp(+-1.2816 sd); extrapolated adds in quadrature\n"
        "sigma_log = { dense = %.6e; moe = %.6e; hybrid = %.6e; extrapolated = "
        "%.6e; };\n"
        "dp_latency_s = %.6e;\n",
        m->sigma_log[0], m->sigma_log[1], m->sigma_log[2], m->sigma_extrap,
        m->dp_latency_s);
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
