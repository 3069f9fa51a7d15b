/* tests/test_catalog.c: the built-in catalog (the models/ .cfg files) against
 * the shared data it was built from, SI conversion, lookups and load errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/catalog_cfg.h"
#include "models/catalog.h"
#include "models/flops.h"

#define assert_close(a, b, rel)                                                \
    do {                                                                       \
        double a_ = (a), b_ = (b), r_ = (rel);                                 \
        if (!(fabs(a_ - b_) <= r_ * fmax(fabs(a_), fabs(b_))))                 \
            fail_msg("%.17g != %.17g (rel tol %g)", a_, b_, r_);               \
    } while (0)

static catalog *cat;

static int setup(void **state)
{
    sim_err e;
    char buf[2048];
    (void)state;
    if (catalog_load("models", &cat, &e) != SIM_OK) {
        fprintf(stderr, "%s\n", sim_err_format(&e, buf, sizeof buf));
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

/* Splits a CSV line's first n fields (the gpu_specs.csv columns before the
 * quoted notes have no commas). */
static int split(char *line, char **f, int n)
{
    int k = 0;
    char *p = line;
    while (k < n && p) {
        f[k++] = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
    }
    return k;
}

static void test_catalog_gpus_match_gpu_specs_csv(void **state)
{
    FILE *f = fopen("data/catalog/gpu_specs.csv", "r");
    char line[8192];
    int checked = 0;
    (void)state;
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *c[12];
        const gpu_spec *g;
        if (split(line, c, 12) < 12)
            continue;
        g = catalog_gpu(cat, c[0]);
        if (!g) {
            /* The only non-GPU row is the HGX Rubin 8-GPU system. */
            assert_string_equal(c[0], "HGX-Rubin-NVL8");
            continue;
        }
        if (c[2][0])
            assert_close(g->peak_flops[NUM_BF16], atof(c[2]) * 1e12, 1e-12);
        if (c[3][0])
            assert_close(g->peak_flops[NUM_FP8], atof(c[3]) * 1e12, 1e-12);
        if (c[4][0])
            assert_close(g->peak_flops[NUM_FP4], atof(c[4]) * 1e12, 1e-12);
        /* HBM GB are binary (NVML totals, io/catalog_cfg.c). */
        assert_close(g->hbm_bytes, atof(c[5]) * 1073741824.0, 1e-12);
        assert_close(g->hbm_Bps, atof(c[6]) * 1e12, 1e-12);
        if (c[7][0])
            assert_close(g->tdp_w, atof(c[7]), 1e-12);
        /* NVLink: CSV is GB/s both directions; stored per direction. */
        assert_close(g->nvlink_Bps, atof(c[8]) * 1e9 / 2, 1e-12);
        assert_int_equal(g->nvlink_domain, atoi(c[9]));
        if (c[10][0])
            assert_close(g->scaleout_bps, atof(c[10]) * 1e9, 1e-12);
        checked++;
    }
    fclose(f);
    assert_int_equal(checked, 9);
    assert_int_equal(catalog_n_gpus(cat), 9);
}

static void test_catalog_vera_rubin_is_announced_and_filled(void **state)
{
    const gpu_spec *vr = catalog_gpu(cat, "vr200");
    const gpu_spec *gb = catalog_gpu(cat, "GB300");
    (void)state;
    assert_non_null(vr);
    assert_non_null(gb);
    assert_int_equal(vr->announced, 1);
    assert_int_equal(gb->announced, 0);
    /* Blank in the CSV, filled as marked assumptions. */
    assert_true(vr->peak_flops[NUM_FP8] > gb->peak_flops[NUM_FP8]);
    assert_true(vr->tdp_w > 0);
    assert_non_null(
        strstr(catalog_cite(cat, "gpus", (size_t)(vr - catalog_gpu_at(cat, 0)),
                            "assumed"),
               "tdp_w"));
    assert_string_equal(catalog_cite(cat, "gpus", 0, "assumed"), "");
}

static void test_catalog_every_models_csv_row_by_name(void **state)
{
    FILE *f = fopen("data/catalog/models.csv", "r");
    char line[16384];
    int rows = 0;
    (void)state;
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char *comma = strchr(line, ',');
        const llm_arch *m;
        if (!comma)
            continue;
        *comma = '\0';
        m = catalog_llm(cat, line);
        if (!m)
            fail_msg("models.csv row '%s' is not in the catalog", line);
        assert_string_equal(m->name, line);
        /* ...and by its short id, which is unique. */
        assert_ptr_equal(catalog_llm(cat, m->id), m);
        rows++;
    }
    fclose(f);
    assert_true(rows >= 30);
    assert_int_equal(catalog_n_llms(cat), (size_t)rows);
}

static void test_catalog_llm_ids_and_fields(void **state)
{
    const llm_arch *l = catalog_llm(cat, "llama3.1-405b");
    const llm_arch *d = catalog_llm(cat, "DEEPSEEK-V3-671B");
    const llm_arch *s = catalog_llm(cat, "Nemotron 3 Super 120B-A12B");
    const llm_arch *g = catalog_llm(cat, "grok1-314b");
    (void)state;
    assert_non_null(l);
    assert_string_equal(l->name, "Llama 3.1 405B");
    assert_int_equal(l->num_layers, 126);
    assert_int_equal(l->hidden_size, 16384);
    assert_int_equal(l->num_kv_heads, 8);
    assert_close(l->total_params, 405e9, 1e-12);
    assert_int_equal(l->assumed, 0);
    assert_int_equal(l->cls, LLM_DENSE);
    assert_non_null(d);
    assert_int_equal(d->cls, LLM_MOE);
    assert_int_equal(d->kv_lora_rank, 512);
    assert_int_equal(d->experts_per_token, 8);
    assert_close(d->active_params, 37e9, 1e-12);
    assert_non_null(s);
    assert_int_equal(s->cls, LLM_HYBRID);
    assert_int_equal(s->moe_latent_size, 1024);
    assert_true(s->assumed & LLM_ASSUMED_VOCAB);
    assert_true(s->assumed & LLM_ASSUMED_MAMBA_STATE);
    assert_int_equal(s->mamba_state_dim, 128);
    assert_non_null(g);
    assert_true(g->assumed & LLM_ASSUMED_ACTIVE_PARAMS);
    assert_true(g->active_params > 50e9 && g->active_params < 120e9);
    assert_null(catalog_llm(cat, "llama3.1-406b"));
}

static void test_catalog_module_fits_are_computed_from_power(void **state)
{
    size_t nm = catalog_n_modules(cat);
    const module_type *liq = catalog_module(cat, "spark-liquid");
    const module_type *air = catalog_module(cat, "Spark-Air");
    (void)state;
    assert_true(nm >= 2);
    assert_non_null(liq);
    assert_non_null(air);
    assert_close(liq->it_power_w, 3.5e6, 1e-12);
    assert_close(air->it_power_w, 5e5, 1e-12);
    assert_int_equal(liq->liquid, 1);
    assert_int_equal(liq->containers, 3);
    for (size_t i = 0; i < nm; i++) {
        const module_type *m = catalog_module_at(cat, i);
        for (size_t k = 0; k < m->n_hosts; k++) {
            const system_spec *s = catalog_system(cat, m->hosts[k]);
            assert_non_null(s);
            assert_int_equal(m->max_units[k],
                             (int)floor(m->it_power_w / s->max_power_w + 1e-9));
            assert_true(m->max_units[k] * s->max_power_w <= m->it_power_w);
        }
    }
    /* 3.5 MW / 136 kW GB300 NVL72 racks = 25 racks = 1,800 GPUs. */
    assert_int_equal(catalog_module_fits(liq, "gb300-nvl72"), 25);
    assert_int_equal(catalog_module_fits(air, "hgx-b300"), 34);
    assert_int_equal(catalog_module_fits(air, "gb300-nvl72"), -1);
}

static void test_catalog_system_overhead_is_max_minus_gpus(void **state)
{
    (void)state;
    assert_true(catalog_n_systems(cat) >= 6);
    for (size_t i = 0; i < catalog_n_systems(cat); i++) {
        const system_spec *s = catalog_system_at(cat, i);
        const gpu_spec *g = catalog_gpu(cat, s->gpu);
        assert_non_null(g);
        assert_close(s->gpu_power_w, s->gpus * g->tdp_w, 1e-12);
        assert_close(s->overhead_w, s->max_power_w - s->gpus * g->tdp_w, 1e-9);
        assert_true(s->overhead_w >= 0);
        assert_true(catalog_cite(cat, "systems", i, "source")[0] != '\0');
    }
    /* DGX B200: 14.3 kW max, 8 x 1 kW GPUs -> 6.3 kW overhead (facts 1.8). */
    assert_close(catalog_system(cat, "hgx-b200")->overhead_w, 6300.0, 1e-9);
    assert_non_null(catalog_system(cat, "gb300-nvl72"));
    assert_non_null(catalog_system(cat, "vr-nvl72"));
    assert_int_equal(catalog_system(cat, "vr-nvl72")->announced, 1);
}

static void test_catalog_sources_are_si(void **state)
{
    const source_defaults *pv = catalog_source(cat, SRC_SOLAR);
    const source_defaults *bat = catalog_source(cat, SRC_BATTERY);
    const source_defaults *geo = catalog_source(cat, SRC_GEOTHERMAL);
    const source_defaults *hy = catalog_source(cat, SRC_HYDRO);
    (void)state;
    /* IPCC AR5 medians: 48 / 38 / 24 g/kWh, in kg/J. */
    assert_close(pv->carbon_kg_per_j, 48e-3 / 3.6e6, 1e-12);
    assert_close(geo->carbon_kg_per_j, 38e-3 / 3.6e6, 1e-12);
    assert_close(hy->carbon_kg_per_j, 24e-3 / 3.6e6, 1e-12);
    assert_close(pv->losses, 0.1408, 1e-12);
    assert_close(bat->c_rate_max_per_s, 0.2 / 3600.0, 1e-12);
    assert_close(bat->soh_mean, 0.70, 1e-12);
    assert_close(geo->mtbf_s, 728.0 * 3600, 1e-12);
    assert_int_equal(catalog_source_kind("Hydro"), SRC_HYDRO);
    assert_int_equal(catalog_source_kind("coal"), -1);
    assert_string_equal(catalog_source(cat, SRC_GRID)->name, "grid");
}

static void test_catalog_names_lists_valid_ones(void **state)
{
    char buf[4096];
    (void)state;
    catalog_names(cat, "gpus", buf, sizeof buf);
    assert_string_equal(
        buf, "H100, H200, B200, B300, GB200, GB300, VR200, A100, H800");
    catalog_names(cat, "modules", buf, sizeof buf);
    assert_string_equal(buf, "spark-air, spark-liquid");
    catalog_names(cat, "llms", buf, sizeof buf);
    assert_non_null(strstr(buf, "llama3.1-405b"));
    catalog_names(cat, "nonsense", buf, sizeof buf);
    assert_string_equal(buf, "");
    catalog_names(cat, "gpus", buf, 8); /* truncates, stays terminated */
    assert_true(strlen(buf) < 8);
}

static void test_catalog_clone_is_deep(void **state)
{
    catalog *k = catalog_clone(cat);
    (void)state;
    assert_int_equal(catalog_n_gpus(k), catalog_n_gpus(cat));
    assert_ptr_not_equal(catalog_gpu(k, "H100"), catalog_gpu(cat, "H100"));
    assert_memory_equal(catalog_gpu(k, "H100"), catalog_gpu(cat, "H100"),
                        sizeof(gpu_spec));
    assert_string_equal(catalog_cite(k, "llms", 3, "source"),
                        catalog_cite(cat, "llms", 3, "source"));
    catalog_free(k);
    catalog_free(NULL);
}

/* Issue 25: each entry keeps its assumptions as "KEY\tVALUE\tWHY" lines
 * (models/catalog.h catalog_set_assumptions), the value as the file writes
 * it, one line per key of "assumed", kept by a clone. */
static void test_catalog_assumptions_keep_value_and_reason(void **state)
{
    size_t i = (size_t)(catalog_gpu(cat, "VR200") - catalog_gpu_at(cat, 0));
    const char *a = catalog_cite(cat, "gpus", i, "assumptions");
    const char *as = catalog_cite(cat, "gpus", i, "assumed");
    catalog *k;
    size_t lines = 0, keys = 1;
    (void)state;
    assert_non_null(strstr(a, "fp8_dense_tflops\t16667\tBlank in "
                              "gpu_specs.csv."));
    assert_non_null(strstr(a, "\ntdp_w\t1800\t"));
    for (const char *p = a; *p; p++)
        lines += *p == '\n';
    for (const char *p = as; *p; p++)
        keys += *p == ',';
    assert_int_equal(lines, keys);
    i = (size_t)catalog_source_kind("geothermal");
    assert_non_null(strstr(catalog_cite(cat, "sources", i, "assumptions"),
                           "mttr_h\t72\tNo forced-outage statistics"));
    assert_string_equal(catalog_cite(cat, "gpus", 0, "assumptions"), "");
    k = catalog_clone(cat);
    assert_string_equal(catalog_cite(k, "sources", i, "assumptions"),
                        catalog_cite(cat, "sources", i, "assumptions"));
    assert_int_equal(catalog_set_assumptions(k, "gpus", "no-such", "x"),
                     SIM_EINVAL);
    catalog_free(k);
}

/* A bad catalog in dir is refused as a whole (no catalog), naming file,
 * line, the key and what was wrong. */
static void assert_catalog_refused(const char *dir, const char *file, int line,
                                   const char *key, const char *why)
{
    catalog *c = NULL;
    sim_err e;
    assert_int_equal(catalog_load(dir, &c, &e), SIM_ECONFIG);
    assert_null(c);
    if (file)
        assert_non_null(strstr(e.file, file));
    assert_int_equal(e.line, line);
    assert_non_null(strstr(e.msg, key));
    assert_non_null(strstr(e.msg, why));
}

static void test_catalog_load_errors_name_file_and_line(void **state)
{
    catalog *c = NULL;
    sim_err e;
    (void)state;
    assert_int_equal(catalog_load("tests/data/no-such-dir", &c, &e), SIM_EIO);
    assert_null(c);
    assert_non_null(strstr(e.file, "no-such-dir/gpus.cfg"));
    assert_catalog_refused("tests/data/catalog-bad", NULL, 12, "gpus.[0].tdp_w",
                           "got -700");
}

/* exp_tera_per_s (issue 18): optional, read in 1e12 exponentials/s; the
 * bundled GPUs carry their cited SFU rates (A100's and VR200's are listed
 * assumptions); a bad value is refused with the file, line, key and value. */
static void test_catalog_exp_rate_read_and_bad_value_refused(void **state)
{
    size_t i = (size_t)(catalog_gpu(cat, "A100") - catalog_gpu_at(cat, 0));
    (void)state;
    assert_true(catalog_gpu(cat, "H100")->exp_per_s == 3.9e12);
    assert_true(catalog_gpu(cat, "B200")->exp_per_s == 5.0e12);
    assert_true(catalog_gpu(cat, "GB300")->exp_per_s == 10.7e12);
    assert_non_null(
        strstr(catalog_cite(cat, "gpus", i, "assumed"), "exp_tera_per_s"));
    assert_catalog_refused(
        "tests/data/catalog-bad-exp", "catalog-bad-exp/gpus.cfg", 14,
        "gpus.[0].exp_tera_per_s", "got -3.9, expected [0, 10000]");
}

/* The eager-path features of models/tp_eager.h: optional flags (absent =
 * 0), set on GPT-OSS 120B only among the bundled models, each with its
 * source; a value other than 0 or 1 is refused with file, line, key and
 * value. */
static void test_catalog_eager_feature_flags(void **state)
{
    const llm_arch *o = catalog_llm(cat, "GPT-OSS 120B");
    int with = 0;
    (void)state;
    assert_non_null(o);
    assert_true(o->expert_bias == 1 && o->activation_clamp == 1 &&
                o->rope_unfused == 1);
    for (size_t i = 0; i < catalog_n_llms(cat); i++) {
        const llm_arch *a = catalog_llm_at(cat, i);
        with += a->expert_bias || a->activation_clamp || a->rope_unfused;
    }
    assert_int_equal(with, 1);
    assert_catalog_refused("tests/data/catalog-bad-eager",
                           "catalog-bad-eager/llms.cfg", 26,
                           "llms.[0].expert_bias", "got 2, expected [0, 1]");
}

/* flops.h FLOPS_PARAMS_REL_TOL: every bundled model's architecture gives a
 * parameter count within the tolerance of its stated total, and the
 * measured spread (0.963 Llama 2 7B .. 1.068 Nemotron 8B) is what the
 * header and docs/catalog.md say, so the tolerance is not wider than it
 * has to be by accident. */
static void
test_catalog_every_model_architecture_gives_its_stated_total(void **state)
{
    double lo = 10, hi = 0;
    (void)state;
    assert_true(catalog_n_llms(cat) >= 31);
    for (size_t i = 0; i < catalog_n_llms(cat); i++) {
        const llm_arch *a = catalog_llm_at(cat, i);
        double d, x, q;
        flops_params(a, 0, &d, &x);
        q = (d + x) / a->total_params;
        if (!(fabs(q - 1) <= FLOPS_PARAMS_REL_TOL))
            fail_msg("%s: %.4g B from the architecture vs %.4g B stated",
                     a->name, (d + x) / 1e9, a->total_params / 1e9);
        lo = q < lo ? q : lo;
        hi = q > hi ? q : hi;
    }
    assert_true(fabs(lo - 0.963) < 0.001);
    assert_true(fabs(hi - 1.068) < 0.001);
}

/* calib_as (issue 18): the GH100 siblings borrow the H100's fitted factor;
 * a name that is not another catalog GPU without its own calib_as is
 * refused when the catalog is finished, naming the GPU and the value. */
static void test_catalog_calib_as_names_a_calibrated_sibling(void **state)
{
    catalog *c = catalog_clone(cat);
    gpu_spec g;
    sim_err e;
    (void)state;
    assert_string_equal(catalog_gpu(cat, "H800")->calib_as, "H100");
    assert_string_equal(catalog_gpu(cat, "H200")->calib_as, "H100");
    assert_string_equal(catalog_gpu(cat, "A100")->calib_as, "");
    assert_string_equal(catalog_gpu(cat, "H100")->calib_as, "");
    g = *catalog_gpu(cat, "H800");
    strcpy(g.calib_as, "H9000");
    assert_int_equal(catalog_add_gpu(c, &g, "", "", "", &e), SIM_OK);
    assert_int_equal(catalog_finish(c, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "GPU \"H800\": calib_as"));
    assert_non_null(strstr(e.msg, "got \"H9000\""));
    /* A chain (H800 -> H200 -> H100) is refused too. */
    strcpy(g.calib_as, "H200");
    assert_int_equal(catalog_add_gpu(c, &g, "", "", "", &e), SIM_OK);
    assert_int_equal(catalog_finish(c, &e), SIM_ECONFIG);
    strcpy(g.calib_as, "H100");
    assert_int_equal(catalog_add_gpu(c, &g, "", "", "", &e), SIM_OK);
    assert_int_equal(catalog_finish(c, &e), SIM_OK);
    catalog_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_gpus_match_gpu_specs_csv),
        cmocka_unit_test(test_catalog_vera_rubin_is_announced_and_filled),
        cmocka_unit_test(test_catalog_every_models_csv_row_by_name),
        cmocka_unit_test(test_catalog_llm_ids_and_fields),
        cmocka_unit_test(test_catalog_module_fits_are_computed_from_power),
        cmocka_unit_test(test_catalog_system_overhead_is_max_minus_gpus),
        cmocka_unit_test(test_catalog_sources_are_si),
        cmocka_unit_test(test_catalog_names_lists_valid_ones),
        cmocka_unit_test(test_catalog_clone_is_deep),
        cmocka_unit_test(test_catalog_assumptions_keep_value_and_reason),
        cmocka_unit_test(
            test_catalog_every_model_architecture_gives_its_stated_total),
        cmocka_unit_test(test_catalog_load_errors_name_file_and_line),
        cmocka_unit_test(test_catalog_calib_as_names_a_calibrated_sibling),
        cmocka_unit_test(test_catalog_exp_rate_read_and_bad_value_refused),
        cmocka_unit_test(test_catalog_eager_feature_flags),
    };
    return cmocka_run_group_tests_name("catalog", tests, setup, teardown);
}
