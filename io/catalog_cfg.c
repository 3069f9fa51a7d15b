/* io/catalog_cfg.c: reads the catalog files models/{gpus,llms,systems,
 * modules,sources}.cfg (and a scenario's `catalog` group) into a catalog.
 * Units in the files are the ones in the key names; everything is converted
 * to SI here, and nowhere else. This adapter only reads: each entry goes in
 * through the add API of models/catalog.h, which owns the rules an entry
 * obeys and what is derived from it, and whose refusals name a key that
 * cfg_fail_rule places at FILE:LINE. It never looks inside the catalog. */
#include "io/catalog_cfg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/cfg.h"
#include "io/datadir.h"
#include "sim/mem.h"

/* Hands an entry's refusal by the model to the file's FILE:LINE. */
#define ADD(call, e)                                                           \
    do {                                                                       \
        sim_err why_;                                                          \
        if ((call) != SIM_OK)                                                  \
            return cfg_fail_rule(r, (e), &why_);                               \
    } while (0)

#define TERA 1e12
#define GIGA 1e9
/* HBM capacities are quoted in binary gigabytes: the totals NVML reports
 * (nvidia-smi memory.total) are H100 "80 GB" 81,559 MiB = 79.65 GiB
 * = 85.52e9 B, H200 "141 GB" 143,771 MiB = 140.40 GiB, A100 "80GB"
 * 81,920 MiB = 80 GiB (Modal, modal-labs/modal-client PR #2797 and
 * thundergolfer.com/blog/nvidia-gpu-memory-capacity); B200 "180 GB" shows
 * 179 GB(iB) (docs.vultr.com, HGX B200 hardware overview). Reading them as
 * 1e9 B under-stated every GPU's memory by 7 % (issue 18): GPU_HBM_GB_BYTES
 * (models/gpu.h). */
#define KILO 1e3
/* g/kWh -> kg/J and USD/MWh -> USD/J */
#define G_PER_KWH (1e-3 / 3.6e6)
#define USD_PER_MWH (1.0 / 3.6e9)
#define HOUR_S 3600.0
#define YEAR_S (365.25 * 86400.0)

/* Reads the citation strings and the `assumptions` list of entry e. The
 * assumed keys are joined into assumed (comma-separated). */
static int read_meta(cfg_reader *r, const config_setting_t *e, int required,
                     const char **source, const char **notes, char *assumed,
                     size_t n)
{
    config_setting_t *m, *a;
    int rc;
    static const char *const akeys[] = {"key", "why", NULL};

    *source = *notes = NULL;
    assumed[0] = '\0';
    if ((m = config_setting_get_member(e, "source"))) {
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return cfg_fail(r, m, NULL,
                            "wrong type (expected a string "
                            "citation)");
        *source = config_setting_get_string(m);
    } else if (required) {
        return cfg_fail(r, e, "source",
                        "missing key (every catalog entry "
                        "cites its source)");
    }
    if ((m = config_setting_get_member(e, "notes"))) {
        if (config_setting_type(m) != CONFIG_TYPE_STRING)
            return cfg_fail(r, m, NULL, "wrong type (expected a string)");
        *notes = config_setting_get_string(m);
    }
    if ((rc = cfg_member(r, e, "assumptions", CONFIG_TYPE_LIST, 0, &a)) !=
        SIM_OK)
        return rc;
    for (int i = 0; a && i < config_setting_length(a); i++) {
        config_setting_t *x = config_setting_get_elem(a, (unsigned)i);
        char key[64], why[8];
        size_t used = strlen(assumed);
        if (!config_setting_is_group(x))
            return cfg_fail(r, x, NULL,
                            "wrong type (expected { key = "
                            "\"...\"; why = \"...\"; })");
        if ((rc = cfg_check_keys(r, x, akeys)) != SIM_OK ||
            (rc = cfg_string(r, x, "key", 1, NULL, key, sizeof key)) != SIM_OK)
            return rc;
        if (!config_setting_get_member(x, "why") ||
            config_setting_type(config_setting_get_member(x, "why")) !=
                CONFIG_TYPE_STRING)
            return cfg_fail(r, x, "why",
                            "missing key (an assumption states "
                            "its reasoning)");
        (void)why;
        snprintf(assumed + used, n - used, "%s%s", used ? "," : "", key);
    }
    return SIM_OK;
}

/* The value of e's member key as written in the file ("400", "\"x\"",
 * "a, b"), for the assumption lines a report shows; "" when absent. Tabs
 * and newlines cannot occur: numbers have none and strings are cut there. */
static void value_text(const config_setting_t *v, char *buf, size_t n)
{
    size_t used;
    buf[0] = '\0';
    if (!v)
        return;
    switch (config_setting_type(v)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        snprintf(buf, n, "%lld", config_setting_get_int64(v));
        break;
    case CONFIG_TYPE_FLOAT:
        snprintf(buf, n, "%.15g", config_setting_get_float(v));
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(buf, n, "%s", config_setting_get_bool(v) ? "true" : "false");
        break;
    case CONFIG_TYPE_STRING:
        snprintf(buf, n, "%s", config_setting_get_string(v));
        buf[strcspn(buf, "\t\n")] = '\0';
        break;
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST:
        for (int i = 0; i < config_setting_length(v); i++) {
            char one[128];
            value_text(config_setting_get_elem(v, (unsigned)i), one,
                       sizeof one);
            used = strlen(buf);
            snprintf(buf + used, n - used, "%s%s", i ? ", " : "", one);
        }
        break;
    default:
        break;
    }
}

/* Records entry e's `assumptions` list (already checked by read_meta) in c
 * as "KEY\tVALUE\tWHY" lines (models/catalog.h catalog_set_assumptions),
 * after the entry's add, which reset them. */
static void set_assumptions(catalog *c, const char *kind, const char *name,
                            const config_setting_t *e)
{
    const config_setting_t *a = config_setting_get_member(e, "assumptions");
    char *lines = NULL;
    size_t len = 0, cap = 0;
    for (int i = 0; a && i < config_setting_length(a); i++) {
        const config_setting_t *x = config_setting_get_elem(a, (unsigned)i);
        const char *key = NULL, *why = NULL;
        char val[512];
        size_t need;
        config_setting_lookup_string(x, "key", &key);
        config_setting_lookup_string(x, "why", &why);
        if (!key)
            continue;
        value_text(config_setting_get_member(e, key), val, sizeof val);
        need = strlen(key) + strlen(val) + (why ? strlen(why) : 0) + 4;
        sim_grow((void **)&lines, &cap, len + need, 1);
        len += (size_t)snprintf(lines + len, cap - len, "%s\t%s\t", key, val);
        for (const char *w = why ? why : ""; *w; w++)
            lines[len++] = (*w == '\t' || *w == '\n') ? ' ' : *w;
        lines[len++] = '\n';
        lines[len] = '\0';
    }
    catalog_set_assumptions(c, kind, name, lines ? lines : "");
    free(lines);
}

static int has_key(const char *list, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = list; (p = strstr(p, key)); p += k)
        if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == '\0'))
            return 1;
    return 0;
}

/* Name of entry e: required, unique per kind (enforced by put). */
static int read_name(cfg_reader *r, const config_setting_t *e, char *buf,
                     size_t n)
{
    if (!config_setting_is_group(e))
        return cfg_fail(r, e, NULL,
                        "wrong type (expected a group { name = "
                        "\"...\"; ... })");
    return cfg_string(r, e, "name", 1, NULL, buf, n);
}

/* gpus: every key at once in one condition chain, so the first bad key
 * stops the entry, and an existing entry (a scenario's override) is the
 * starting point, so only the keys written change. NVLink is read as the
 * vendor's bidirectional figure and halved once, here. */
static int read_gpus(cfg_reader *r, const config_setting_t *list, catalog *c)
{
    static const char *const keys[] = {"name",
                                       "form_factor",
                                       "bf16_dense_tflops",
                                       "fp8_dense_tflops",
                                       "fp4_dense_tflops",
                                       "hbm_gb",
                                       "hbm_tbps",
                                       "tdp_w",
                                       "nvlink_GBps_bidirectional",
                                       "nvlink_domain",
                                       "scaleout_Gbps",
                                       "exp_tera_per_s",
                                       "announced",
                                       "calib_as",
                                       "source",
                                       "notes",
                                       "assumptions",
                                       NULL};
    for (int i = 0; i < config_setting_length(list); i++) {
        config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        gpu_spec g;
        const gpu_spec *base;
        const char *src, *notes;
        char assumed[512], name[32];
        long long dom, ann;
        int rc, req;
        double nvl;

        if ((rc = read_name(r, e, name, sizeof name)) != SIM_OK ||
            (rc = cfg_check_keys(r, e, keys)) != SIM_OK)
            return rc;
        base = catalog_gpu(c, name);
        req = base == NULL;
        memset(&g, 0, sizeof g);
        if (base)
            g = *base;
        snprintf(g.name, sizeof g.name, "%s", name);
        if ((rc = read_meta(r, e, req, &src, &notes, assumed,
                            sizeof assumed)) != SIM_OK ||
            (rc = cfg_double(r, e, "bf16_dense_tflops", req,
                             g.peak_flops[NUM_BF16] / TERA, 0, 1e6, TERA,
                             &g.peak_flops[NUM_BF16])) != SIM_OK ||
            (rc = cfg_double(r, e, "fp8_dense_tflops", req,
                             g.peak_flops[NUM_FP8] / TERA, 0, 1e6, TERA,
                             &g.peak_flops[NUM_FP8])) != SIM_OK ||
            (rc = cfg_double(r, e, "fp4_dense_tflops", req,
                             g.peak_flops[NUM_FP4] / TERA, 0, 1e6, TERA,
                             &g.peak_flops[NUM_FP4])) != SIM_OK ||
            (rc = cfg_double(r, e, "hbm_gb", req,
                             g.hbm_bytes / GPU_HBM_GB_BYTES, 1, 1e5,
                             GPU_HBM_GB_BYTES, &g.hbm_bytes)) != SIM_OK ||
            (rc = cfg_double(r, e, "hbm_tbps", req, g.hbm_Bps / TERA, 0.01, 1e3,
                             TERA, &g.hbm_Bps)) != SIM_OK ||
            (rc = cfg_double(r, e, "tdp_w", req, g.tdp_w, 1, 1e5, 1.0,
                             &g.tdp_w)) != SIM_OK ||
            (rc = cfg_double(r, e, "nvlink_GBps_bidirectional", req,
                             2.0 * g.nvlink_Bps / GIGA, 0, 1e6, GIGA, &nvl)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "nvlink_domain", req, g.nvlink_domain, 1,
                          100000, &dom)) != SIM_OK ||
            (rc = cfg_double(r, e, "scaleout_Gbps", req, g.scaleout_bps / GIGA,
                             0, 1e5, GIGA, &g.scaleout_bps)) != SIM_OK ||
            (rc = cfg_double(r, e, "exp_tera_per_s", 0, g.exp_per_s / TERA, 0,
                             1e4, TERA, &g.exp_per_s)) != SIM_OK ||
            (rc = cfg_int(r, e, "announced", 0, g.announced, 0, 1, &ann)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "calib_as", 0, g.calib_as, g.calib_as,
                             sizeof g.calib_as)) != SIM_OK)
            return rc;
        /* NVIDIA quotes NVLink as the sum of both directions. */
        g.nvlink_Bps = nvl / 2.0;
        g.nvlink_domain = (int)dom;
        g.announced = (int)ann;
        ADD(catalog_add_gpu(
                c, &g,
                src    ? src
                : base ? catalog_cite(c, "gpus",
                                      (size_t)(base - catalog_gpu_at(c, 0)),
                                      "source")
                       : "",
                notes, assumed, &why_),
            e);
        set_assumptions(c, "gpus", name, e);
    }
    return SIM_OK;
}

/* llm integer fields, in the order of the catalog file. */
typedef struct llm_field {
    const char *key;
    size_t off;
    unsigned bit;
} llm_field;

#define LF(k, bit)                                                             \
    {                                                                          \
#k, offsetof(llm_arch, k), bit                                         \
    }
static const llm_field llm_fields[] = {
    LF(num_layers, 0),
    LF(hidden_size, 0),
    LF(ffn_hidden_size, 0),
    LF(moe_ffn_hidden_size, 0),
    LF(num_attention_heads, 0),
    LF(num_kv_heads, 0),
    LF(head_dim, 0),
    LF(kv_lora_rank, LLM_ASSUMED_KV_LORA),
    LF(q_lora_rank, 0),
    LF(vocab_size, LLM_ASSUMED_VOCAB),
    LF(num_experts, 0),
    LF(experts_per_token, 0),
    LF(shared_experts, 0),
    LF(shared_expert_ffn_hidden_size, 0),
    LF(dense_layers, 0),
    LF(num_mamba_layers, 0),
    LF(num_attention_layers, 0),
    LF(num_moe_layers, 0),
    LF(mamba_state_dim, LLM_ASSUMED_MAMBA_STATE),
    LF(mamba_num_heads, 0),
    LF(mamba_head_dim, 0),
    LF(gated_linear_unit, 0),
    LF(moe_latent_size, LLM_ASSUMED_LATENT),
    LF(default_seq_len, 0),
    LF(expert_bias, 0),
    LF(activation_clamp, 0),
    LF(rope_unfused, 0),
};
/* Keys an entry may leave out (0): the LatentMoE width and the eager-path
 * features of models/tp_eager.h, which most models lack. */
static int llm_field_optional(const char *key)
{
    return strcmp(key, "moe_latent_size") == 0 ||
           strcmp(key, "expert_bias") == 0 ||
           strcmp(key, "activation_clamp") == 0 ||
           strcmp(key, "rope_unfused") == 0;
}
/* The three features are flags. */
static int llm_field_max(const char *key)
{
    return llm_field_optional(key) && strcmp(key, "moe_latent_size")
               ? 1
               : 100000000;
}
#define N_LLM_FIELDS (sizeof llm_fields / sizeof llm_fields[0])

/* llms: the integer fields are a table (llm_fields) rather than one call
 * per field because there are 27 of them and they share type, range and
 * "required for a new entry"; the `assumptions` list becomes the entry's
 * LLM_ASSUMED_* bits here, since those bits are how the file marks them. */
static int read_llms(cfg_reader *r, const config_setting_t *list, catalog *c)
{
    static const char *keys[N_LLM_FIELDS + 10];
    static const char *const classes[] = {"dense", "moe", "hybrid", NULL};
    size_t nk = 0;

    keys[nk++] = "name";
    keys[nk++] = "id";
    keys[nk++] = "arch_type";
    for (size_t k = 0; k < N_LLM_FIELDS; k++)
        keys[nk++] = llm_fields[k].key;
    keys[nk++] = "total_params_b";
    keys[nk++] = "active_params_b";
    keys[nk++] = "source";
    keys[nk++] = "notes";
    keys[nk++] = "assumptions";
    keys[nk] = NULL;
    for (int i = 0; i < config_setting_length(list); i++) {
        config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        llm_arch m;
        const llm_arch *base;
        const char *src, *notes;
        char assumed[512], name[64];
        int rc, req, cls;

        if ((rc = read_name(r, e, name, sizeof name)) != SIM_OK ||
            (rc = cfg_check_keys(r, e, keys)) != SIM_OK)
            return rc;
        base = catalog_llm(c, name);
        req = base == NULL;
        memset(&m, 0, sizeof m);
        if (base)
            m = *base;
        snprintf(m.name, sizeof m.name, "%s", name);
        if ((rc = read_meta(r, e, req, &src, &notes, assumed,
                            sizeof assumed)) != SIM_OK ||
            (rc = cfg_string(r, e, "id", req, m.id, m.id, sizeof m.id)) !=
                SIM_OK ||
            (rc = cfg_choice(r, e, "arch_type", req, (int)m.cls, classes,
                             &cls)) != SIM_OK)
            return rc;
        m.cls = (llm_class)cls;
        for (size_t k = 0; k < N_LLM_FIELDS; k++) {
            int *f = (int *)(void *)((char *)&m + llm_fields[k].off);
            long long v;
            int need = req && !llm_field_optional(llm_fields[k].key);
            if ((rc = cfg_int(r, e, llm_fields[k].key, need, *f, 0,
                              llm_field_max(llm_fields[k].key), &v)) != SIM_OK)
                return rc;
            *f = (int)v;
        }
        if ((rc = cfg_double(r, e, "total_params_b", req, m.total_params / 1e9,
                             0.001, 1e6, 1e9, &m.total_params)) != SIM_OK ||
            (rc =
                 cfg_double(r, e, "active_params_b", req, m.active_params / 1e9,
                            0.001, 1e6, 1e9, &m.active_params)) != SIM_OK)
            return rc;
        m.assumed = base ? base->assumed : 0;
        for (size_t k = 0; k < N_LLM_FIELDS; k++)
            if (has_key(assumed, llm_fields[k].key))
                m.assumed |= llm_fields[k].bit ? llm_fields[k].bit
                                               : (unsigned)LLM_ASSUMED_OTHER;
        if (has_key(assumed, "active_params_b"))
            m.assumed |= LLM_ASSUMED_ACTIVE_PARAMS;
        if (has_key(assumed, "total_params_b"))
            m.assumed |= LLM_ASSUMED_TOTAL_PARAMS;
        ADD(catalog_add_llm(c, &m, src ? src : "", notes, assumed, &why_), e);
        set_assumptions(c, "llms", name, e);
    }
    return SIM_OK;
}

/* A system's capital cost and depreciation life. A new entry without them
 * gets n x USD 50k per GPU all-in and 5 years (facts-costs.md 1.8: H100-class
 * all-in per GPU incl. fabric; Meta/Amazon 5-year server lives); its GPU
 * count is read first so the default scales with it. */
static int read_system_cost(cfg_reader *r, const config_setting_t *e,
                            const system_spec *base, system_spec *s)
{
    long long n;
    int rc = cfg_int(r, e, "gpus", base == NULL, s->gpus, 1, 100000, &n);
    if (rc != SIM_OK)
        return rc;
    if ((rc = cfg_double(r, e, "capex_usd", 0,
                         base ? s->capex_usd : (double)n * 50e3, 0, 1e9, 1.0,
                         &s->capex_usd)) != SIM_OK)
        return rc;
    return cfg_double(r, e, "life_years", 0, base ? s->life_s / YEAR_S : 5.0,
                      0.5, 50, YEAR_S, &s->life_s);
}

/* systems: the GPU is kept as the name written; catalog_add_system
 * resolves it, stores the catalog's spelling and derives the power split,
 * so a system defined in memory gets the same. typical_fraction defaults
 * to 0.76 for a new entry (docs/catalog.md). */
static int read_systems(cfg_reader *r, const config_setting_t *list, catalog *c)
{
    static const char *const keys[] = {
        "name",   "gpu",       "gpus",       "max_power_kw", "typical_fraction",
        "liquid", "announced", "source",     "notes",        "assumptions",
        "sharp",  "capex_usd", "life_years", "cost_source",  "rack_storage_j",
        NULL};
    for (int i = 0; i < config_setting_length(list); i++) {
        config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        system_spec s;
        const system_spec *base;
        const char *src, *notes;
        char assumed[512], name[32];
        long long n, liq, ann, shp;
        int rc, req;

        if ((rc = read_name(r, e, name, sizeof name)) != SIM_OK ||
            (rc = cfg_check_keys(r, e, keys)) != SIM_OK)
            return rc;
        base = catalog_system(c, name);
        req = base == NULL;
        memset(&s, 0, sizeof s);
        if (base)
            s = *base;
        snprintf(s.name, sizeof s.name, "%s", name);
        if ((rc = read_meta(r, e, req, &src, &notes, assumed,
                            sizeof assumed)) != SIM_OK ||
            (rc = cfg_string(r, e, "gpu", req, s.gpu, s.gpu, sizeof s.gpu)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "gpus", req, s.gpus, 1, 100000, &n)) !=
                SIM_OK ||
            (rc = cfg_double(r, e, "max_power_kw", req, s.max_power_w / KILO,
                             0.001, 1e5, KILO, &s.max_power_w)) != SIM_OK ||
            (rc = cfg_double(r, e, "typical_fraction", 0,
                             base ? s.typical_fraction : 0.76, 0.05, 1.0, 1.0,
                             &s.typical_fraction)) != SIM_OK ||
            (rc = cfg_int(r, e, "liquid", req, s.liquid, 0, 1, &liq)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "announced", 0, s.announced, 0, 1, &ann)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "sharp", 0, s.sharp, 0, 1, &shp)) != SIM_OK ||
            (rc = cfg_double(r, e, "rack_storage_j", 0, s.rack_storage_j, 0,
                             1e9, 1.0, &s.rack_storage_j)) != SIM_OK ||
            (rc = read_system_cost(r, e, base, &s)) != SIM_OK)
            return rc;
        s.sharp = (int)shp;
        s.gpus = (int)n;
        s.liquid = (int)liq;
        s.announced = (int)ann;
        ADD(catalog_add_system(c, &s, src ? src : "", notes, assumed, &why_),
            e);
        set_assumptions(c, "systems", name, e);
    }
    return SIM_OK;
}

/* modules: the IT power may be written in kW or MW (not both); the hosts
 * are copied as written and checked by catalog_add_module, whose refusal
 * names hosts.[k] so the message points at the bad element's line. */
static int read_modules(cfg_reader *r, const config_setting_t *list, catalog *c)
{
    static const char *const keys[] = {
        "name",        "it_power_kw",      "it_power_mw",
        "liquid",      "containers",       "pue_ref",
        "hosts",       "source",           "notes",
        "assumptions", "capex_usd_per_mw", "cost_source",
        NULL};
    for (int i = 0; i < config_setting_length(list); i++) {
        config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        config_setting_t *h;
        module_type m;
        const module_type *base;
        const char *src, *notes;
        char assumed[512], name[32];
        long long liq, cont;
        int rc, req;

        if ((rc = read_name(r, e, name, sizeof name)) != SIM_OK ||
            (rc = cfg_check_keys(r, e, keys)) != SIM_OK)
            return rc;
        base = catalog_module(c, name);
        req = base == NULL;
        memset(&m, 0, sizeof m);
        if (base)
            m = *base;
        snprintf(m.name, sizeof m.name, "%s", name);
        if (config_setting_get_member(e, "it_power_mw")) {
            if (config_setting_get_member(e, "it_power_kw"))
                return cfg_fail(r, e, "it_power_mw",
                                "given twice (got "
                                "it_power_kw and it_power_mw, expected one)");
            rc = cfg_double(r, e, "it_power_mw", 1, 0, 1e-6, 1e4, 1e6,
                            &m.it_power_w);
        } else {
            rc = cfg_double(r, e, "it_power_kw", req, m.it_power_w / KILO,
                            0.001, 1e7, KILO, &m.it_power_w);
        }
        if (rc != SIM_OK ||
            (rc = read_meta(r, e, 0, &src, &notes, assumed, sizeof assumed)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "liquid", req, m.liquid, 0, 1, &liq)) !=
                SIM_OK ||
            (rc = cfg_int(r, e, "containers", 0, base ? m.containers : 1, 1,
                          1000, &cont)) != SIM_OK ||
            (rc = cfg_double(r, e, "pue_ref", 0, base ? m.pue_ref : 1.2, 1.0,
                             3.0, 1.0, &m.pue_ref)) != SIM_OK ||
            /* A new type without a cost: USD 11.7 M per MW of IT (C&W 2025
             * US average), x1.085 when liquid-cooled (Turner & Townsend
             * +7-10 %, midpoint); facts-costs.md 1.7. */
            (rc = cfg_double(r, e, "capex_usd_per_mw", 0,
                             base ? m.capex_usd_per_w * 1e6
                                  : (liq ? 11.7e6 * 1.085 : 11.7e6),
                             0, 1e9, 1e-6, &m.capex_usd_per_w)) != SIM_OK ||
            (rc = cfg_member(r, e, "hosts", CONFIG_TYPE_ARRAY, req, &h)) !=
                SIM_OK)
            return rc;
        m.liquid = (int)liq;
        m.containers = (int)cont;
        if (h) {
            int n = config_setting_length(h);
            if (n < 1 || n > MODULE_MAX_HOSTS)
                return cfg_fail(r, h, NULL,
                                "wrong length (got %d systems, "
                                "expected 1..%d)",
                                n, MODULE_MAX_HOSTS);
            m.n_hosts = 0;
            for (int k = 0; k < n; k++) {
                config_setting_t *x = config_setting_get_elem(h, (unsigned)k);
                const char *sn = config_setting_get_string(x);
                snprintf(m.hosts[m.n_hosts++], sizeof m.hosts[0], "%s",
                         sn ? sn : "?");
            }
        }
        ADD(catalog_add_module(c, &m, src ? src : "", notes, assumed, &why_),
            e);
        set_assumptions(c, "modules", name, e);
    }
    return SIM_OK;
}

/* A citation that must be there: `key` present as a non-empty string (the
 * text itself is kept in the file; buf gets its first characters). */
static int need_text(cfg_reader *r, const config_setting_t *g, const char *key,
                     char *buf, size_t n)
{
    const char *v = NULL;
    if (!config_setting_lookup_string(g, key, &v) || !v[0])
        return cfg_fail(r, g, key,
                        "missing citation (expected the public source of "
                        "the curve)");
    snprintf(buf, n, "%s", v);
    return SIM_OK;
}

/* sources.<kind>.turbines: a list of power curves {name; rated_kw;
 * cut_in_m_s; rated_m_s; cut_out_m_s; speeds_m_s = [...]; power_kw =
 * [...]; source}, added to (or replacing by name in) the catalog. */
static int read_turbines(cfg_reader *r, const config_setting_t *e, catalog *c)
{
    static const char *const keys[] = {"name",      "rated_kw",    "cut_in_m_s",
                                       "rated_m_s", "cut_out_m_s", "speeds_m_s",
                                       "power_kw",  "source",      NULL};
    config_setting_t *l;
    int rc;
    if ((rc = cfg_member(r, e, "turbines", CONFIG_TYPE_LIST, 0, &l)) !=
            SIM_OK ||
        !l)
        return rc;
    for (int i = 0; i < config_setting_length(l); i++) {
        config_setting_t *t = config_setting_get_elem(l, (unsigned)i);
        wind_curve w;
        double v[WIND_CURVE_MAX], p[WIND_CURVE_MAX];
        size_t nv = 0, np = 0;
        char name[48], src[8];
        memset(&w, 0, sizeof w);
        if (!config_setting_is_group(t))
            return cfg_fail(r, t, NULL, "wrong type (expected a group { })");
        if ((rc = cfg_check_keys(r, t, keys)) != SIM_OK ||
            (rc = cfg_string(r, t, "name", 1, NULL, name, sizeof name)) !=
                SIM_OK ||
            (rc = need_text(r, t, "source", src, sizeof src)) != SIM_OK ||
            (rc = cfg_double(r, t, "rated_kw", 1, 0, 0, 1e5, 1e3,
                             &w.rated_w)) != SIM_OK ||
            (rc = cfg_double(r, t, "cut_in_m_s", 1, 0, 0, 50, 1,
                             &w.cut_in_m_s)) != SIM_OK ||
            (rc = cfg_double(r, t, "rated_m_s", 1, 0, 0, 50, 1,
                             &w.rated_m_s)) != SIM_OK ||
            (rc = cfg_double(r, t, "cut_out_m_s", 1, 0, 0, 80, 1,
                             &w.cut_out_m_s)) != SIM_OK ||
            (rc = cfg_doubles(r, t, "speeds_m_s", 1, 0, WIND_CURVE_MAX, 0, 80,
                              1, v, &nv)) != SIM_OK ||
            (rc = cfg_doubles(r, t, "power_kw", 1, 0, WIND_CURVE_MAX, 0, 1e5, 1,
                              p, &np)) != SIM_OK)
            return rc;
        if (nv != np)
            return cfg_fail(r, t, "power_kw",
                            "length differs from speeds_m_s (got %zu, "
                            "expected %zu)",
                            np, nv);
        snprintf(w.name, sizeof w.name, "%s", name);
        w.n = nv;
        for (size_t k = 0; k < nv; k++) {
            w.v_m_s[k] = v[k];
            w.p_w[k] = p[k] * 1e3;
        }
        ADD(catalog_add_turbine(c, &w, &why_), t);
    }
    return SIM_OK;
}

/* The kind's default turbine, which must name a catalog curve. */
static int read_turbine_name(cfg_reader *r, const config_setting_t *e,
                             source_defaults *d)
{
    char t[48];
    int rc = cfg_string(r, e, "turbine", 0, "", t, sizeof t);
    if (rc != SIM_OK || !t[0])
        return rc;
    snprintf(d->turbine, sizeof d->turbine, "%s", t);
    return SIM_OK;
}

/* One kind's defaults (sources.<kind>): a flat list of optional keys, each
 * starting from the kind's current defaults so a scenario's override may
 * give one key. The keys are the union over kinds (a key that does not
 * apply to a kind stays 0, as models/source.h says), which keeps one
 * reader for every kind of the registry instead of one per kind. */
static int read_source(cfg_reader *r, const config_setting_t *e, catalog *c,
                       source_kind kind, int req)
{
    static const char *const keys[] = {"gco2_per_kwh",
                                       "usd_per_mwh",
                                       "availability",
                                       "capacity_factor",
                                       "mtbf_h",
                                       "mttr_h",
                                       "losses_pct",
                                       "dc_ac_ratio",
                                       "inverter_eff",
                                       "temp_coeff_pct_per_k",
                                       "degradation_pct_per_yr",
                                       "round_trip_eff",
                                       "c_rate_max",
                                       "reserve_floor_pct",
                                       "soh_mean",
                                       "soh_sd",
                                       "soh_min",
                                       "soh_max",
                                       "hub_height_m",
                                       "shear_exponent",
                                       "wake_loss_pct",
                                       "turbine",
                                       "turbines",
                                       "source",
                                       "notes",
                                       "assumptions",
                                       NULL};
    source_defaults d = *catalog_source(c, kind);
    const char *src, *notes;
    char assumed[512];
    int rc;

    d.kind = kind;
    if (!config_setting_is_group(e))
        return cfg_fail(r, e, NULL, "wrong type (expected a group { })");
    if ((rc = cfg_check_keys(r, e, keys)) != SIM_OK ||
        (rc = read_meta(r, e, req, &src, &notes, assumed, sizeof assumed)) !=
            SIM_OK ||
        (rc = cfg_double(r, e, "gco2_per_kwh", req,
                         d.carbon_kg_per_j / G_PER_KWH, 0, 5000, G_PER_KWH,
                         &d.carbon_kg_per_j)) != SIM_OK ||
        (rc = cfg_double(r, e, "usd_per_mwh", req,
                         d.cost_usd_per_j / USD_PER_MWH, 0, 1e5, USD_PER_MWH,
                         &d.cost_usd_per_j)) != SIM_OK ||
        (rc = cfg_double(r, e, "availability", req, d.availability, 0, 1, 1,
                         &d.availability)) != SIM_OK ||
        (rc = cfg_double(r, e, "capacity_factor", 0, d.capacity_factor, 0, 1, 1,
                         &d.capacity_factor)) != SIM_OK ||
        (rc = cfg_double(r, e, "mtbf_h", 0, d.mtbf_s / HOUR_S, 0, 1e7, HOUR_S,
                         &d.mtbf_s)) != SIM_OK ||
        (rc = cfg_double(r, e, "mttr_h", 0, d.mttr_s / HOUR_S, 0, 1e6, HOUR_S,
                         &d.mttr_s)) != SIM_OK ||
        (rc = cfg_double(r, e, "losses_pct", 0, d.losses * 100, 0, 99, 0.01,
                         &d.losses)) != SIM_OK ||
        (rc = cfg_double(r, e, "dc_ac_ratio", 0, d.dc_ac_ratio, 0, 5, 1,
                         &d.dc_ac_ratio)) != SIM_OK ||
        (rc = cfg_double(r, e, "inverter_eff", 0, d.inverter_eff, 0, 1, 1,
                         &d.inverter_eff)) != SIM_OK ||
        (rc = cfg_double(r, e, "temp_coeff_pct_per_k", 0,
                         d.temp_coeff_per_k * 100, -5, 5, 0.01,
                         &d.temp_coeff_per_k)) != SIM_OK ||
        (rc = cfg_double(r, e, "degradation_pct_per_yr", 0,
                         d.degradation_per_s * YEAR_S * 100, 0, 50,
                         0.01 / YEAR_S, &d.degradation_per_s)) != SIM_OK ||
        (rc = cfg_double(r, e, "round_trip_eff", 0, d.round_trip_eff, 0, 1, 1,
                         &d.round_trip_eff)) != SIM_OK ||
        (rc = cfg_double(r, e, "c_rate_max", 0, d.c_rate_max_per_s * HOUR_S, 0,
                         100, 1.0 / HOUR_S, &d.c_rate_max_per_s)) != SIM_OK ||
        (rc = cfg_double(r, e, "reserve_floor_pct", 0, d.reserve_floor * 100, 0,
                         99, 0.01, &d.reserve_floor)) != SIM_OK ||
        (rc = cfg_double(r, e, "soh_mean", 0, d.soh_mean, 0, 1, 1,
                         &d.soh_mean)) != SIM_OK ||
        (rc = cfg_double(r, e, "soh_sd", 0, d.soh_sd, 0, 1, 1, &d.soh_sd)) !=
            SIM_OK ||
        (rc = cfg_double(r, e, "soh_min", 0, d.soh_min, 0, 1, 1, &d.soh_min)) !=
            SIM_OK ||
        (rc = cfg_double(r, e, "soh_max", 0, d.soh_max, 0, 1, 1, &d.soh_max)) !=
            SIM_OK ||
        (rc = cfg_double(r, e, "hub_height_m", 0, d.hub_height_m, 0, 300, 1,
                         &d.hub_height_m)) != SIM_OK ||
        (rc = cfg_double(r, e, "shear_exponent", 0, d.shear_exponent, 0, 1, 1,
                         &d.shear_exponent)) != SIM_OK ||
        (rc = cfg_double(r, e, "wake_loss_pct", 0, d.wake_loss * 100, 0, 99,
                         0.01, &d.wake_loss)) != SIM_OK ||
        (rc = read_turbines(r, e, c)) != SIM_OK ||
        (rc = read_turbine_name(r, e, &d)) != SIM_OK)
        return rc;
    snprintf(d.name, sizeof d.name, "%s", config_setting_name(e));
    ADD(catalog_add_source(
            c, &d,
            src ? src : catalog_cite(c, "sources", (size_t)kind, "source"),
            notes, assumed, &why_),
        e);
    set_assumptions(c, "sources", d.name, e);
    return SIM_OK;
}

static int read_sources(cfg_reader *r, const config_setting_t *g, catalog *c,
                        int req)
{
    const char *keys[SRC_N + 1];
    int rc;
    for (int k = 0; k < SRC_N; k++)
        keys[k] = source_table[k].name;
    keys[SRC_N] = NULL;
    if (!config_setting_is_group(g))
        return cfg_fail(r, g, NULL,
                        "wrong type (expected a group { solar "
                        "= {...}; ... })");
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK)
        return rc;
    for (int k = 0; k < SRC_N; k++) {
        config_setting_t *e = config_setting_get_member(g, keys[k]);
        if (!e) {
            if (req)
                return cfg_fail(r, g, keys[k],
                                "missing key (expected the "
                                "%s defaults group)",
                                keys[k]);
            continue;
        }
        if ((rc = read_source(r, e, c, (source_kind)k, req)) != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

static int apply(cfg_reader *r, const config_setting_t *g, catalog *c,
                 int req_sources)
{
    static const char *const kinds[] = {"gpus", "llms", "systems", "modules",
                                        NULL};
    int (*const readers[])(cfg_reader *, const config_setting_t *,
                           catalog *) = {read_gpus, read_llms, read_systems,
                                         read_modules};
    config_setting_t *m;
    int rc;

    for (int k = 0; kinds[k]; k++) {
        if ((rc = cfg_member(r, g, kinds[k], CONFIG_TYPE_LIST, 0, &m)) !=
            SIM_OK)
            return rc;
        if (m && (rc = readers[k](r, m, c)) != SIM_OK)
            return rc;
    }
    if ((m = config_setting_get_member(g, "sources")))
        return read_sources(r, m, c, req_sources);
    return SIM_OK;
}

int catalog_cfg_apply(cfg_reader *r, const config_setting_t *g, catalog *c)
{
    static const char *const keys[] = {"gpus",    "llms",    "systems",
                                       "modules", "sources", NULL};
    int rc;
    if (!config_setting_is_group(g))
        return cfg_fail(r, g, NULL,
                        "wrong type (expected a group { gpus = "
                        "(...); ... })");
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK)
        return rc;
    return apply(r, g, c, 0);
}

int catalog_cfg_finish(cfg_reader *r, const config_setting_t *where, catalog *c)
{
    sim_err why;
    if (catalog_finish(c, &why) != SIM_OK)
        return cfg_fail(r, where, NULL, "%s", why.msg);
    return SIM_OK;
}

/* The five files in a fixed order (GPUs before the systems that name
 * them, systems before the modules that host them), each with its own
 * reader so an error names the file it is in; catalog_finish runs after
 * the modules file, when every cross reference can be resolved. */
int catalog_load(const char *dir, catalog **out, sim_err *err)
{
    static const char *const files[] = {"gpus",    "llms",    "systems",
                                        "modules", "sources", NULL};
    catalog *c;
    int rc = SIM_OK;
    char home_models[1024];

    *out = NULL;
    sim_err_clear(err);
    if (!dir) {
        if (datadir_path("models", home_models, sizeof home_models) != 0)
            return sim_err_set(err, SIM_EIO, home_models, 0,
                               "data home path too long");
        dir = home_models;
    }
    c = catalog_new();
    for (int k = 0; files[k] && rc == SIM_OK; k++) {
        char path[1200];
        cfg_reader r;
        config_setting_t *root, *m;
        const char *top[] = {files[k], NULL};

        snprintf(path, sizeof path, "%s/%s.cfg", dir, files[k]);
        rc = cfg_read(&r, path, err);
        if (rc == SIM_OK) {
            root = config_root_setting(&r.cfg);
            rc = cfg_check_keys(&r, root, top);
            if (rc == SIM_OK) {
                m = config_setting_get_member(root, files[k]);
                if (!m)
                    rc = cfg_fail(&r, root, files[k],
                                  "missing key (expected "
                                  "the %s catalog)",
                                  files[k]);
                else
                    rc = apply(&r, root, c, 1);
            }
            if (rc == SIM_OK && k == 3)
                rc = catalog_cfg_finish(&r, root, c);
        }
        cfg_reader_free(&r);
    }
    if (rc != SIM_OK) {
        catalog_free(c);
        return rc;
    }
    *out = c;
    return SIM_OK;
}
