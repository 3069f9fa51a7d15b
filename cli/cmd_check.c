/* cli/cmd_check.c: `factorysim check SCENARIO [--set KEY=VALUE ...]`:
 * loads and validates a scenario (models/scenario.h) and prints what it
 * describes: modules and their IT power, GPUs by type, energy sources and
 * jobs. Exit 1 on any error, with the loader's FILE:LINE: key: message. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "models/scenario.h"

static const char check_help[] =
    "Usage: factorysim check SCENARIO [OPTIONS]\n"
    "\n"
    "Validates a scenario file and prints a summary: modules and their IT\n"
    "power, GPUs by type, energy sources, jobs. Errors read\n"
    "FILE:LINE: key.path: message (got X, expected Y); the exit status is 1\n"
    "on any error. Keys: docs/scenario-reference.md.\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE   override a scenario key before validation, e.g.\n"
    "                    --set modules.[0].count=4 (repeatable)\n"
    "  --catalog DIR     catalog folder (default: the built-in models/)\n"
    "  --resolved        print the resolved configuration instead\n"
    "  -h, --help        this help\n";

#define MAX_SETS 256

static void print_summary(const scenario *s)
{
    const scen_energy *e = &s->energy;
    double it_sys = 0, it_cap = 0;

    printf("scenario    %s%s%s\n", s->path, s->description[0] ? ": " : "",
           s->description);
    printf("site        %s (%.4f %s, %.4f %s, %.0f m, UTC%+.1f h)\n",
           s->site.name,
           s->site.latitude_deg >= 0 ? s->site.latitude_deg
                                     : -s->site.latitude_deg,
           s->site.latitude_deg >= 0 ? "N" : "S",
           s->site.longitude_deg >= 0 ? s->site.longitude_deg
                                      : -s->site.longitude_deg,
           s->site.longitude_deg >= 0 ? "E" : "W", s->site.elevation_m,
           s->site.utc_offset_s / 3600.0);
    if (s->site.climate.kind == CLIMATE_NORMALS) {
        double mean = 0;
        for (int m = 0; m < 12; m++)
            mean += s->site.climate.monthly_mean_c[m] / 12.0;
        printf("climate     monthly normals %s: annual mean %.1f degC, "
               "diurnal range %.1f K\n",
               s->site.climate.normals[0] ? s->site.climate.normals : "(user)",
               mean, s->site.climate.diurnal_range_k);
    } else {
        printf("climate     %s file %s\n",
               s->site.climate.kind == CLIMATE_EPW ? "EPW" : "hourly CSV",
               s->site.climate.path);
    }
    printf("simulation  start %s, horizon %.1f days, step %.1f min, seed "
           "%llu, %d replication(s)\n",
           s->sim.start_date, s->sim.horizon_s / 86400.0, s->sim.step_s / 60.0,
           (unsigned long long)s->sim.seed, s->sim.replications);
    printf("\nmodules\n");
    printf("  %-16s %-14s %5s  %-14s %6s %8s %11s %11s %8s\n", "name", "type",
           "count", "hosts", "units", "GPUs", "IT MW sys", "IT MW cap",
           "online d");
    for (size_t i = 0; i < s->n_modules; i++) {
        const scen_module *m = &s->modules[i];
        printf("  %-16s %-14s %5d  %-14s %6d %8lld %11.3f %11.3f %8.1f\n",
               m->name, m->type->name, m->count, m->system->name, m->units,
               (long long)m->gpus, m->it_power_w / 1e6, m->it_capacity_w / 1e6,
               m->commission_t_s / 86400.0);
        it_sys += m->it_power_w;
        it_cap += m->it_capacity_w;
    }
    printf("  %-16s %-14s %5s  %-14s %6s %8lld %11.3f %11.3f\n", "total", "",
           "", "", "", (long long)scenario_gpus(s, NULL), it_sys / 1e6,
           it_cap / 1e6);
    printf("\nGPUs by type\n");
    for (size_t g = 0; g < catalog_n_gpus(s->cat); g++) {
        const gpu_spec *gs = catalog_gpu_at(s->cat, g);
        int64_t n = scenario_gpus(s, gs);
        if (n > 0)
            printf("  %-8s %8lld GPUs  (%.0f TFLOP/s dense BF16 each%s)\n",
                   gs->name, (long long)n, gs->peak_flops[NUM_BF16] / 1e12,
                   gs->announced ? ", announced figures" : "");
    }
    printf("\nenergy\n");
    if (e->solar.present)
        printf("  solar       %.2f MW DC, %s, inverter %.2f MW AC (DC/AC "
               "%.2f), losses %.2f %%, %.0f gCO2/kWh\n",
               e->solar.capacity_w / 1e6,
               e->solar.tracking == TRACK_SINGLE_AXIS ? "single-axis"
                                                      : "fixed tilt",
               e->solar.inverter_limit_w / 1e6, e->solar.dc_ac_ratio,
               e->solar.losses * 100, e->solar.carbon_kg_per_j * 3.6e9);
    if (e->battery.present)
        printf("  battery     %.2f MWh / %.2f MW (%.3f C, limit %.2f C), "
               "RTE %.2f, %d pack(s), SOH %.2f +/- %.2f [%.2f, %.2f], "
               "floor %.0f %%\n",
               e->battery.capacity_j / 3.6e9, e->battery.power_w / 1e6,
               e->battery.power_w / (e->battery.capacity_j / 3600.0),
               e->battery.c_rate_max_per_s * 3600, e->battery.round_trip_eff,
               e->battery.packs, e->battery.soh_mean, e->battery.soh_sd,
               e->battery.soh_min, e->battery.soh_max,
               e->battery.reserve_floor * 100);
    if (e->geothermal.present)
        printf("  geothermal  %.2f MW, availability %.3f, MTBF %.0f h, MTTR "
               "%.0f h, %.0f gCO2/kWh\n",
               e->geothermal.capacity_w / 1e6, e->geothermal.availability,
               e->geothermal.mtbf_s / 3600, e->geothermal.mttr_s / 3600,
               e->geothermal.carbon_kg_per_j * 3.6e9);
    if (e->hydro.present)
        printf("  hydro       %.2f MW, availability %.3f, MTBF %.0f h, MTTR "
               "%.0f h, %.0f gCO2/kWh\n",
               e->hydro.capacity_w / 1e6, e->hydro.availability,
               e->hydro.mtbf_s / 3600, e->hydro.mttr_s / 3600,
               e->hydro.carbon_kg_per_j * 3.6e9);
    if (e->grid.present)
        printf("  grid        import limit %.2f MW, %.1f USD/MWh (%zu "
               "time-of-day window(s)), %.0f gCO2/kWh\n",
               e->grid.import_limit_w / 1e6, e->grid.price_usd_per_j * 3.6e9,
               e->grid.n_tod, e->grid.carbon_kg_per_j * 3.6e9);
    printf("\njobs\n");
    if (s->n_jobs == 0)
        printf("  (none)\n");
    else
        printf("  %-20s %-24s %-6s %-6s %6s %10s %9s %6s %6s  %s\n", "name",
               "model", "prec", "gpu", "GPUs", "tokens", "steps", "gbs", "seq",
               "submit h");
    for (size_t i = 0; i < s->n_jobs; i++) {
        const scen_job *j = &s->jobs[i];
        printf("  %-20s %-24s %-6s %-6s %6d %10.3g %9lld %6d %6d  %.1f\n",
               j->name, j->model->id, j->precision, j->gpu->name, j->gpus,
               j->tokens, (long long)j->steps, j->global_batch, j->seq_len,
               j->submit_t_s / 3600.0);
    }
    printf("\npolicy      shortage = %s\n", scenario_policy_name(s->policy));
    printf("fabric      %s, oversubscription %.2f, %zu inter-module "
           "link(s)\n",
           scenario_topology_name(s->fabric.topology),
           s->fabric.oversubscription, s->fabric.n_links);
}

int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"catalog", required_argument, NULL, 'c'},
        {"resolved", no_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *sets[MAX_SETS];
    const char *catdir = NULL;
    size_t n_sets = 0;
    int resolved = 0, o, rc;
    catalog *cat = NULL;
    scenario *s = NULL;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error("check", "too many --set (max %d)",
                                       MAX_SETS);
            sets[n_sets++] = optarg;
            break;
        case 'c':
            catdir = optarg;
            break;
        case 'r':
            resolved = 1;
            break;
        case 'h':
            fputs(check_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error("check", "%s needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("check", "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("check", "missing SCENARIO file");
    if (optind + 1 < argc)
        return cli_usage_error("check", "unexpected argument '%s'",
                               argv[optind + 1]);
    if (catalog_load(catdir, &cat, &err) != SIM_OK)
        return cli_report(&err);
    rc = scenario_load(argv[optind], cat, sets, n_sets, &s, &err);
    catalog_free(cat);
    if (rc != SIM_OK)
        return cli_report(&err);
    if (resolved)
        fputs(scenario_resolved_text(s), stdout);
    else
        print_summary(s);
    scenario_free(s);
    return CLI_EXIT_OK;
}
