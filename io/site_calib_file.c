/* io/site_calib_file.c: the libconfig adapter of site_calib_file.h. Writing
 * prints the libconfig syntax directly (10 significant digits, as
 * io/calib_file.c); reading goes through io/cfg.h so that every message
 * carries FILE:LINE. The file stores speeds and marginal sds (what a person
 * reads) plus the correlation; the loader rebuilds the log-space mean and
 * covariance that models/site_calib.h uses. It must never accept a file of
 * another format or version, and never write a partial file under the
 * final name. */
#include "io/site_calib_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/sha2.h>

#include "io/cfg.h"
#include "sim/mem.h"

#define SC_FORMAT "factorysim-site-calibration"

static const char *const top_keys[] = {"format", "version", "source", "factors",
                                       NULL};
static const char *const src_keys[] = {"file", "sha256", "reference", NULL};
static const char *const fac_keys[] = {"gpu",
                                       "class",
                                       "precision",
                                       "rows",
                                       "lines",
                                       "prior_log_sd",
                                       "compute_speed",
                                       "compute_log_sd",
                                       "comm_speed",
                                       "comm_log_sd",
                                       "correlation",
                                       "throughput_factor",
                                       "throughput_log_sd",
                                       "rms_log_residual",
                                       "separable",
                                       NULL};

int site_calib_sha256(const char *path, char hex[65], sim_err *err)
{
    struct sha256_ctx c;
    uint8_t d[SHA256_DIGEST_SIZE], buf[65536];
    size_t k;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot open");
    sha256_init(&c);
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&c, k, buf);
    fclose(f);
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return SIM_OK;
}

int site_calib_save(const site_calib *c, const char *path, sim_err *err)
{
    char tmp[4200];
    FILE *f;
    int bad;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "w")))
        return sim_err_set(err, SIM_EIO, tmp, 0, "cannot write");
    fprintf(f, "# factorysim site calibration: the cluster's compute and "
               "communication speeds\n"
               "# relative to the published reference, a Bayesian update of "
               "the throughput\n"
               "# model's predictive distribution (docs/throughput-model.md "
               "section 9).\n"
               "# Written by `factorysim exemplar --write-site-calibration`; "
               "speeds are\n# posterior medians, *_log_sd the marginal sds of "
               "their logs.\n\n");
    fprintf(f, "format = \"%s\";\nversion = %d;\n", SC_FORMAT,
            SITE_CALIB_FILE_VERSION);
    fprintf(f,
            "source = { file = \"%s\"; sha256 = \"%s\"; reference = "
            "\"%s\"; };\n",
            c->source_file, c->source_sha256, c->reference_file);
    fprintf(f, "factors = (\n");
    for (int j = 0; j < c->n; j++) {
        const site_calib_entry *e = &c->e[j];
        double sc = sqrt(e->cov[0][0]), sm = sqrt(e->cov[1][1]);
        fprintf(f,
                "  { gpu = \"%s\"; class = \"%s\"; precision = \"%s\"; "
                "rows = %d;\n    lines = [",
                e->gpu, site_calib_cls_name(e->cls),
                site_calib_recipe_name(e->recipe), e->n_rows);
        for (int i = 0; i < e->n_lines; i++)
            fprintf(f, "%s%d", i ? ", " : "", e->lines[i]);
        fprintf(f,
                "];\n    prior_log_sd = %.10g;\n"
                "    compute_speed = %.10g; compute_log_sd = %.10g;\n"
                "    comm_speed = %.10g; comm_log_sd = %.10g;\n"
                "    correlation = %.10g; throughput_factor = %.10g;\n"
                "    throughput_log_sd = %.10g;\n"
                "    rms_log_residual = %.10g; separable = %s; }%s\n",
                e->prior_sd, exp(e->mean[0]), sc, exp(e->mean[1]), sm,
                e->cov[0][1] / (sc * sm), exp(e->log_tput), e->log_sd,
                e->rms_resid, e->separable ? "true" : "false",
                j + 1 < c->n ? "," : "");
    }
    fprintf(f, ");\n");
    bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return sim_err_set(err, SIM_EIO, path, 0, "cannot write");
    }
    return SIM_OK;
}

/* A class or precision name back to its index; "*" = -1. */
static int name_index(const char *s, int n, const char *(*name)(int))
{
    if (strcmp(s, "*") == 0)
        return -1;
    for (int k = 0; k < n; k++)
        if (strcasecmp(s, name(k)) == 0)
            return k;
    return -2;
}

static int read_factor(cfg_reader *r, const config_setting_t *s,
                       site_calib_entry *e)
{
    char cls[16], rec[16];
    long long rows;
    double cs, csd, ms, msd, rho, tf;
    size_t nl = 0;
    double lines[64];
    int rc;
    if (!config_setting_is_group(s))
        return cfg_fail(r, s, NULL, "expected a group { gpu; class; ... }");
    if ((rc = cfg_check_keys(r, s, fac_keys)) != SIM_OK ||
        (rc = cfg_string(r, s, "gpu", 1, "", e->gpu, sizeof e->gpu)) !=
            SIM_OK ||
        (rc = cfg_string(r, s, "class", 1, "", cls, sizeof cls)) != SIM_OK ||
        (rc = cfg_string(r, s, "precision", 1, "", rec, sizeof rec)) !=
            SIM_OK ||
        (rc = cfg_int(r, s, "rows", 1, 0, 1, 1000000, &rows)) != SIM_OK ||
        (rc = cfg_doubles(r, s, "lines", 1, 0, 64, 1, 1e9, 1, lines, &nl)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "prior_log_sd", 1, 0, 1e-6, 10, 1,
                         &e->prior_sd)) != SIM_OK ||
        (rc = cfg_double(r, s, "compute_speed", 1, 0, 0.01, 100, 1, &cs)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "compute_log_sd", 1, 0, 0, 10, 1, &csd)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "comm_speed", 1, 0, 0.01, 100, 1, &ms)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "comm_log_sd", 1, 0, 0, 10, 1, &msd)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "correlation", 1, 0, -1, 1, 1, &rho)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "throughput_factor", 1, 0, 0.01, 100, 1, &tf)) !=
            SIM_OK ||
        (rc = cfg_double(r, s, "throughput_log_sd", 1, 0, 0, 10, 1,
                         &e->log_sd)) != SIM_OK ||
        (rc = cfg_double(r, s, "rms_log_residual", 1, 0, 0, 100, 1,
                         &e->rms_resid)) != SIM_OK ||
        (rc = cfg_bool(r, s, "separable", 1, 0, &e->separable)) != SIM_OK)
        return rc;
    e->cls = name_index(cls, 3, site_calib_cls_name);
    if (e->cls < -1)
        return cfg_fail(r, s, "class",
                        "unknown class (got \"%s\", expected dense, moe, "
                        "hybrid or *)",
                        cls);
    e->recipe = name_index(rec, PREC_RECIPE_N, site_calib_recipe_name);
    if (e->recipe < -1)
        return cfg_fail(r, s, "precision",
                        "unknown precision recipe (got \"%s\", expected BF16, "
                        "FP8, MXFP8, NVFP4 or *)",
                        rec);
    e->n_rows = (int)rows;
    e->n_lines = (int)nl;
    for (size_t i = 0; i < nl; i++)
        e->lines[i] = (int)lines[i];
    e->log_tput = log(tf);
    e->mean[0] = log(cs);
    e->mean[1] = log(ms);
    e->cov[0][0] = csd * csd;
    e->cov[1][1] = msd * msd;
    e->cov[0][1] = e->cov[1][0] = rho * csd * msd;
    return SIM_OK;
}

/* Format and version first, so that another file is named as such rather
 * than by the first key it lacks. */
static int read_all(cfg_reader *r, site_calib *c)
{
    config_setting_t *root = config_root_setting(&r->cfg), *g;
    char fmt[64];
    long long ver;
    int rc, n;
    if (!config_setting_get_member(root, "format"))
        return sim_err_set(r->err, SIM_ECONFIG, r->top_file, 1,
                           "format: not a site calibration (got no format "
                           "key, expected format = \"%s\")",
                           SC_FORMAT);
    if ((rc = cfg_string(r, root, "format", 1, "", fmt, sizeof fmt)) != SIM_OK)
        return rc;
    if (strcmp(fmt, SC_FORMAT) != 0)
        return cfg_fail(r, config_setting_get_member(root, "format"), NULL,
                        "not a site calibration (got \"%s\", expected \"%s\")",
                        fmt, SC_FORMAT);
    if ((rc = cfg_int(r, root, "version", 1, 0, 0, 1000000, &ver)) != SIM_OK)
        return rc;
    if (ver != SITE_CALIB_FILE_VERSION)
        return cfg_fail(r, config_setting_get_member(root, "version"), NULL,
                        "unsupported site calibration version (got %lld, "
                        "expected %d)",
                        ver, SITE_CALIB_FILE_VERSION);
    if ((rc = cfg_check_keys(r, root, top_keys)) != SIM_OK ||
        (rc = cfg_member(r, root, "source", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, src_keys)) != SIM_OK ||
        (rc = cfg_string(r, g, "file", 1, "", c->source_file,
                         sizeof c->source_file)) != SIM_OK ||
        (rc = cfg_string(r, g, "sha256", 1, "", c->source_sha256,
                         sizeof c->source_sha256)) != SIM_OK ||
        (rc = cfg_string(r, g, "reference", 1, "", c->reference_file,
                         sizeof c->reference_file)) != SIM_OK ||
        (rc = cfg_member(r, root, "factors", CONFIG_TYPE_LIST, 1, &g)) !=
            SIM_OK)
        return rc;
    n = config_setting_length(g);
    if (n < 1 || n > SITE_CALIB_MAX)
        return cfg_fail(r, g, NULL,
                        "wrong number of factors (got %d, "
                        "expected 1 to %d)",
                        n, SITE_CALIB_MAX);
    for (int i = 0; i < n; i++) {
        if ((rc = read_factor(r, config_setting_get_elem(g, (unsigned)i),
                              &c->e[i])) != SIM_OK)
            return rc;
        c->n++;
    }
    return SIM_OK;
}

int site_calib_load(const char *path, site_calib **out, sim_err *err)
{
    cfg_reader r;
    site_calib *c = sim_xcalloc(1, sizeof *c);
    int rc;
    memset(&r, 0, sizeof r);
    *out = NULL;
    if ((rc = cfg_read(&r, path, err)) == SIM_OK)
        rc = read_all(&r, c);
    cfg_reader_free(&r);
    if (rc != SIM_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return SIM_OK;
}
