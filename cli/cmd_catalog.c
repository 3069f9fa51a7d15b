/* cli/cmd_catalog.c: `factorysim catalog [gpus|systems|modules|models|sources]
 * [--format table|json]`: lists the built-in catalog's entries with their key
 * figures and units (models/catalog.h).
 *
 * The command only presents the catalog; every number comes from the loaded
 * models/<kind>.cfg files through catalog.h, and every "assumed" mark from the
 * catalog's own citation fields, so what it prints is what a run uses. It must
 * never hold a default of its own. JSON keeps SI names and values (the machine
 * contract); the table converts to the units the data sheets use (TF/s, GB, kW,
 * gCO2/kWh) so a reader can check a row against its source. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "models/catalog.h"

static const char catalog_help[] =
    "Usage: factorysim catalog [gpus|systems|modules|models|sources] "
    "[OPTIONS]\n"
    "\n"
    "Lists what the catalog knows, with key figures and units (all kinds\n"
    "when none is named). Sources of every number: docs/catalog.md and the\n"
    "models/*.cfg files.\n"
    "\n"
    "Options:\n"
    "  --format F     table (default) or json\n"
    "  --catalog DIR  catalog folder (default: the built-in models/)\n"
    "  -h, --help     this help\n";

/* Index order is shared by the JSON and table function arrays in cmd_catalog; a
 * new kind is one name here and one function in each array. */
static const char *const kinds[] = {"gpus",   "systems", "modules",
                                    "models", "sources", NULL};

/* NVLink is stored and printed per direction; the JSON name says so because
 * NVIDIA's data sheets quote the two directions summed, and a reader comparing
 * the numbers would otherwise find a factor of two. */
static jv *gpus_json(const catalog *c)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < catalog_n_gpus(c); i++) {
        const gpu_spec *g = catalog_gpu_at(c, i);
        jv *o = jv_obj();
        jv_set(o, "name", jv_str(g->name));
        jv_set(o, "bf16_flops", jv_num(g->peak_flops[NUM_BF16]));
        jv_set(o, "fp8_flops", jv_num(g->peak_flops[NUM_FP8]));
        jv_set(o, "fp4_flops", jv_num(g->peak_flops[NUM_FP4]));
        jv_set(o, "hbm_bytes", jv_num(g->hbm_bytes));
        jv_set(o, "hbm_Bps", jv_num(g->hbm_Bps));
        jv_set(o, "tdp_w", jv_num(g->tdp_w));
        jv_set(o, "nvlink_Bps_per_direction", jv_num(g->nvlink_Bps));
        jv_set(o, "nvlink_domain", jv_int(g->nvlink_domain));
        jv_set(o, "scaleout_bps", jv_num(g->scaleout_bps));
        jv_set(o, "exp_per_s", jv_num(g->exp_per_s));
        jv_set(o, "announced", jv_bool(g->announced));
        jv_set(o, "assumed", jv_str(catalog_cite(c, "gpus", i, "assumed")));
        jv_set(o, "source", jv_str(catalog_cite(c, "gpus", i, "source")));
        jv_push(a, o);
    }
    return a;
}

/* Dense peaks (no 2:4 sparsity) because that is what training reaches and what
 * the throughput model's MFU is relative to; the note line says so, as data
 * sheets usually headline the sparse figure. */
static void gpus_table(const catalog *c)
{
    printf("GPUs (dense peaks; * = value filled as an assumption, "
           "see docs/catalog.md)\n");
    printf("  %-6s %9s %9s %9s %7s %8s %6s %11s %6s %10s  %s\n", "name",
           "BF16 TF/s", "FP8 TF/s", "FP4 TF/s", "HBM GB", "HBM TB/s", "TDP W",
           "NVLink GB/s", "domain", "NIC Gb/s", "status");
    for (size_t i = 0; i < catalog_n_gpus(c); i++) {
        const gpu_spec *g = catalog_gpu_at(c, i);
        /* The "assumed" citation lists the fields filled without a source;
         * printing it next to the row keeps assumptions visible wherever the
         * numbers are. */
        const char *as = catalog_cite(c, "gpus", i, "assumed");
        printf("  %-6s %9.0f %9.0f %9.0f %7.0f %8.2f %6.0f %11.0f %6d %10.0f"
               "  %s%s%s\n",
               g->name, g->peak_flops[NUM_BF16] / 1e12,
               g->peak_flops[NUM_FP8] / 1e12, g->peak_flops[NUM_FP4] / 1e12,
               g->hbm_bytes / GPU_HBM_GB_BYTES, g->hbm_Bps / 1e12, g->tdp_w,
               g->nvlink_Bps / 1e9, g->nvlink_domain, g->scaleout_bps / 1e9,
               g->announced ? "announced" : "shipping", as[0] ? "; *" : "", as);
    }
    printf("  (NVLink per direction; NVIDIA quotes twice this, both "
           "directions)\n");
}

/* max_power_w is the system's nameplate and gpu_power_w the GPUs' share of it;
 * typical_fraction is the steady training draw as a share of max_power_w
 * (models/system.h). */
static jv *systems_json(const catalog *c)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < catalog_n_systems(c); i++) {
        const system_spec *s = catalog_system_at(c, i);
        jv *o = jv_obj();
        jv_set(o, "name", jv_str(s->name));
        jv_set(o, "gpu", jv_str(s->gpu));
        jv_set(o, "gpus", jv_int(s->gpus));
        jv_set(o, "max_power_w", jv_num(s->max_power_w));
        jv_set(o, "gpu_power_w", jv_num(s->gpu_power_w));
        jv_set(o, "overhead_w", jv_num(s->overhead_w));
        jv_set(o, "typical_fraction", jv_num(s->typical_fraction));
        jv_set(o, "liquid", jv_bool(s->liquid));
        jv_set(o, "announced", jv_bool(s->announced));
        jv_set(o, "capex_usd", jv_num(s->capex_usd));
        jv_set(o, "life_s", jv_num(s->life_s));
        jv_set(o, "source", jv_str(catalog_cite(c, "systems", i, "source")));
        jv_push(a, o);
    }
    return a;
}

static void systems_table(const catalog *c)
{
    printf("Systems and racks\n");
    printf("  %-15s %-6s %5s %11s %11s %12s %8s %-7s %s\n", "name", "gpu",
           "GPUs", "max kW", "GPU TDP kW", "overhead kW", "typical", "cooling",
           "status");
    for (size_t i = 0; i < catalog_n_systems(c); i++) {
        const system_spec *s = catalog_system_at(c, i);
        printf("  %-15s %-6s %5d %11.1f %11.1f %12.1f %8.2f %-7s %s\n", s->name,
               s->gpu, s->gpus, s->max_power_w / 1e3, s->gpu_power_w / 1e3,
               s->overhead_w / 1e3, s->typical_fraction,
               s->liquid ? "liquid" : "air",
               s->announced ? "announced" : "shipping");
    }
}

/* The GPU count per host is derived here (units x GPUs per system) rather than
 * stored, so it cannot disagree with the system entry it depends on; a host
 * missing from the catalog counts 0 GPUs instead of failing the listing. */
static jv *modules_json(const catalog *c)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < catalog_n_modules(c); i++) {
        const module_type *m = catalog_module_at(c, i);
        jv *o = jv_obj(), *h = jv_arr();
        jv_set(o, "name", jv_str(m->name));
        jv_set(o, "it_power_w", jv_num(m->it_power_w));
        jv_set(o, "liquid", jv_bool(m->liquid));
        jv_set(o, "containers", jv_int(m->containers));
        jv_set(o, "pue_ref", jv_num(m->pue_ref));
        jv_set(o, "capex_usd_per_w", jv_num(m->capex_usd_per_w));
        for (size_t k = 0; k < m->n_hosts; k++) {
            const system_spec *s = catalog_system(c, m->hosts[k]);
            jv *x = jv_obj();
            jv_set(x, "system", jv_str(m->hosts[k]));
            jv_set(x, "max_units", jv_int(m->max_units[k]));
            jv_set(x, "gpus",
                   jv_int((int64_t)m->max_units[k] * (s ? s->gpus : 0)));
            jv_push(h, x);
        }
        jv_set(o, "hosts", h);
        jv_set(o, "source", jv_str(catalog_cite(c, "modules", i, "source")));
        jv_push(a, o);
    }
    return a;
}

/* One line per (module type, host system) pair, since a module type can host
 * several systems; the module's own columns are printed only on its first line
 * so the table reads as groups. */
static void modules_table(const catalog *c)
{
    printf("Module types (units that fit = floor(IT power / system max "
           "power))\n");
    printf("  %-14s %8s %-7s %10s %7s  %-15s %6s %6s %9s\n", "name", "IT kW",
           "cooling", "containers", "PUE ref", "hosts", "units", "GPUs",
           "used kW");
    for (size_t i = 0; i < catalog_n_modules(c); i++) {
        const module_type *m = catalog_module_at(c, i);
        for (size_t k = 0; k < m->n_hosts; k++) {
            const system_spec *s = catalog_system(c, m->hosts[k]);
            int g = s ? s->gpus : 0;
            double p = s ? s->max_power_w : 0;
            if (k == 0)
                printf("  %-14s %8.0f %-7s %10d %7.3f  ", m->name,
                       m->it_power_w / 1e3, m->liquid ? "liquid" : "air",
                       m->containers, m->pue_ref);
            else
                printf("  %-14s %8s %-7s %10s %7s  ", "", "", "", "", "");
            printf("%-15s %6d %6d %9.1f\n", m->hosts[k], m->max_units[k],
                   m->max_units[k] * g, m->max_units[k] * p / 1e3);
        }
    }
}

static jv *models_json(const catalog *c)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < catalog_n_llms(c); i++) {
        const llm_arch *m = catalog_llm_at(c, i);
        jv *o = jv_obj();
        jv_set(o, "name", jv_str(m->name));
        jv_set(o, "id", jv_str(m->id));
        jv_set(o, "class", jv_str(llm_class_name((int)m->cls)));
        jv_set(o, "num_layers", jv_int(m->num_layers));
        jv_set(o, "hidden_size", jv_int(m->hidden_size));
        jv_set(o, "num_experts", jv_int(m->num_experts));
        jv_set(o, "experts_per_token", jv_int(m->experts_per_token));
        jv_set(o, "vocab_size", jv_int(m->vocab_size));
        jv_set(o, "total_params", jv_num(m->total_params));
        jv_set(o, "active_params", jv_num(m->active_params));
        jv_set(o, "default_seq_len", jv_int(m->default_seq_len));
        /* the eager-path features the throughput model charges
         * (models/tp_eager.h) */
        jv_set(o, "expert_bias", jv_bool(m->expert_bias));
        jv_set(o, "activation_clamp", jv_bool(m->activation_clamp));
        jv_set(o, "rope_unfused", jv_bool(m->rope_unfused));
        jv_set(o, "assumed", jv_str(catalog_cite(c, "llms", i, "assumed")));
        jv_push(a, o);
    }
    return a;
}

/* Parameter counts in billions, as model cards quote them; the experts column
 * reads "active/total" so dense models show 0/0 at a glance. */
static void models_table(const catalog *c)
{
    printf("LLM architectures (NVIDIA Megatron-Bridge model providers, "
           "https://github.com/NVIDIA-NeMo/Megatron-Bridge, and Hugging Face "
           "model configs; each entry cites its own in models/llms.cfg; "
           "* = filled as an assumption)\n");
    printf("  %-28s %-26s %-6s %6s %6s %8s %8s %8s %8s  %s\n", "name", "id",
           "class", "layers", "hidden", "experts", "total B", "active B", "seq",
           "assumed");
    for (size_t i = 0; i < catalog_n_llms(c); i++) {
        const llm_arch *m = catalog_llm_at(c, i);
        const char *as = catalog_cite(c, "llms", i, "assumed");
        printf("  %-28s %-26s %-6s %6d %6d %4d/%-3d %8.1f %8.1f %8d  %s%s\n",
               m->name, m->id, llm_class_name((int)m->cls), m->num_layers,
               m->hidden_size, m->experts_per_token, m->num_experts,
               m->total_params / 1e9, m->active_params / 1e9,
               m->default_seq_len, as[0] ? "* " : "", as);
    }
}

/* Every registry kind is listed, including the ones a scenario rarely uses, so
 * the catalog shows every default a scenario can inherit. Wind has fields of
 * its own (its turbine and siting), so they are added only to its row. */
static jv *sources_json(const catalog *c)
{
    jv *a = jv_arr();
    for (int k = 0; k < SRC_N; k++) {
        const source_defaults *d = catalog_source(c, (source_kind)k);
        jv *o = jv_obj();
        jv_set(o, "name", jv_str(d->name));
        jv_set(o, "carbon_kg_per_j", jv_num(d->carbon_kg_per_j));
        jv_set(o, "cost_usd_per_j", jv_num(d->cost_usd_per_j));
        jv_set(o, "availability", jv_num(d->availability));
        jv_set(o, "capacity_factor", jv_num(d->capacity_factor));
        jv_set(o, "mtbf_s", jv_num(d->mtbf_s));
        jv_set(o, "mttr_s", jv_num(d->mttr_s));
        jv_set(o, "round_trip_eff", jv_num(d->round_trip_eff));
        jv_set(o, "c_rate_max_per_s", jv_num(d->c_rate_max_per_s));
        if (k == SRC_WIND) {
            jv_set(o, "turbine", jv_str(d->turbine));
            jv_set(o, "hub_height_m", jv_num(d->hub_height_m));
            jv_set(o, "shear_exponent", jv_num(d->shear_exponent));
            jv_set(o, "wake_loss", jv_num(d->wake_loss));
        }
        jv_set(o, "assumed",
               jv_str(catalog_cite(c, "sources", (size_t)k, "assumed")));
        jv_set(o, "source",
               jv_str(catalog_cite(c, "sources", (size_t)k, "source")));
        jv_push(a, o);
    }
    return a;
}

/* Stored per joule (SI); multiplying by 3.6e9 J/MWh gives USD/MWh and, for
 * carbon in kg/J, g/kWh (1e3 g/kg x 3.6e6 J/kWh), the units the cited sources
 * use. */
static void sources_table(const catalog *c)
{
    printf("Energy-source defaults (* = assumption, see docs/catalog.md)\n");
    printf("  %-11s %12s %10s %6s %6s %8s %8s  %s\n", "name", "gCO2/kWh",
           "USD/MWh", "avail", "CF", "MTBF h", "MTTR h", "other");
    for (int k = 0; k < SRC_N; k++) {
        const source_defaults *d = catalog_source(c, (source_kind)k);
        const char *as = catalog_cite(c, "sources", (size_t)k, "assumed");
        printf("  %-11s %12.0f %10.0f %6.2f %6.3f %8.0f %8.0f  ", d->name,
               d->carbon_kg_per_j * 3.6e9, d->cost_usd_per_j * 3.6e9,
               d->availability, d->capacity_factor, d->mtbf_s / 3600,
               d->mttr_s / 3600);
        /* Kind-specific parameters go in one free-text column so that the fixed
         * columns stay those every source has. */
        if (k == SRC_SOLAR)
            printf("losses %.2f %%, DC/AC %.2f, inverter %.2f", d->losses * 100,
                   d->dc_ac_ratio, d->inverter_eff);
        else if (k == SRC_WIND)
            printf("turbine %s, hub %.0f m, shear %.3f, wake %.0f %%",
                   d->turbine, d->hub_height_m, d->shear_exponent,
                   d->wake_loss * 100);
        else if (k == SRC_BATTERY)
            printf("RTE %.2f, <= %.2f C, SOH %.2f +/- %.2f", d->round_trip_eff,
                   d->c_rate_max_per_s * 3600, d->soh_mean, d->soh_sd);
        printf("%s%s\n", as[0] ? "  * " : "", as);
    }
}

/* Options first, then the optional kind, then one load of the catalog: the kind
 * is validated before loading so a typo fails fast with exit 2, and the catalog
 * is loaded once whichever kinds are printed. "llms" is accepted as an alias of
 * "models" because the catalog file is llms.cfg. Write errors on stdout are
 * caught by main's finish(), which turns them into exit 1. */
int cmd_catalog(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int fmt = CLI_FMT_TABLE, o, want = -1;
    const char *dir = NULL;
    catalog *c;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            fmt = cli_format_parse("catalog", optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON);
            if (fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            fputs(catalog_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error("catalog", "%s needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("catalog", "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc) {
        for (int k = 0; kinds[k]; k++)
            if (strcmp(argv[optind], kinds[k]) == 0 ||
                (k == 3 && strcmp(argv[optind], "llms") == 0))
                want = k;
        if (want < 0)
            return cli_usage_error("catalog",
                                   "unknown kind '%s' (expected "
                                   "gpus, systems, modules, models or "
                                   "sources)",
                                   argv[optind]);
        if (optind + 1 < argc)
            return cli_usage_error("catalog", "unexpected argument '%s'",
                                   argv[optind + 1]);
    }
    if (catalog_load(dir, &c, &err) != SIM_OK)
        return cli_report(&err);
    /* Both formats walk the same kinds[] order through parallel function
     * arrays, so the JSON keys and the table sections always match. */
    if (fmt == CLI_FMT_JSON) {
        jv *root = jv_obj();
        jv *(*const js[])(const catalog *) = {
            gpus_json, systems_json, modules_json, models_json, sources_json};
        for (int k = 0; kinds[k]; k++)
            if (want < 0 || want == k)
                jv_set(root, kinds[k], js[k](c));
        jv_write(root, stdout, 1);
        jv_free(root);
    } else {
        void (*const ts[])(const catalog *) = {gpus_table, systems_table,
                                               modules_table, models_table,
                                               sources_table};
        int first = 1;
        for (int k = 0; kinds[k]; k++)
            if (want < 0 || want == k) {
                if (!first)
                    printf("\n");
                ts[k](c);
                first = 0;
            }
    }
    catalog_free(c);
    return CLI_EXIT_OK;
}
