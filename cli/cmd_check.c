/* cli/cmd_check.c: `factorysim check SCENARIO [--set KEY=VALUE ...]`: loads and
 * validates a scenario (models/scenario.h), then makes every check `run` makes
 * before it simulates, by the same code (app/run_check.h: weather file, each
 * job's throughput query, fabric groups, memory), and prints what the scenario
 * describes: modules and their IT power, GPUs by type, energy sources and jobs.
 * Exit 1 on any error, each as FILE:LINE: key: message; --format json prints
 * the summary and every error as objects.
 *
 * The rule this file keeps is "check refuses what run would refuse" (team
 * brief): it must never carry a check of its own that run lacks, or skip one
 * run makes, so every check beyond loading lives in app/run_check.c and is
 * called by both commands. It never simulates and never writes a file; its only
 * output is stdout (summary or JSON) and stderr (errors). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "app/run_check.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "io/scenario_cfg.h"
#include "models/battery.h"
#include "models/scenario.h"
#include "models/solar.h"
#include "sim/mem.h"

static const char check_help[] =
    "Usage: factorysim check SCENARIO [OPTIONS]\n"
    "\n"
    "Validates a scenario file and prints a summary: modules and their IT\n"
    "power, GPUs by type, energy sources, jobs. Errors read\n"
    "FILE:LINE: key.path: message (got X, expected Y); the exit status is 1\n"
    "on any error. Beyond the keys it makes every check run makes before it\n"
    "simulates, by the same code: the weather file is read, every job's\n"
    "throughput query is made (a layout that cannot be formed or does not\n"
    "fit is refused), every job must fit in one fabric group, and the\n"
    "results must fit in --max-memory-mb. Every such error is listed, not\n"
    "only the first. Keys: docs/scenario-reference.md.\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE   override a scenario key before validation, e.g.\n"
    "                    --set modules.[0].count=4 (repeatable)\n"
    "  --catalog DIR     catalog folder (default: the built-in models/)\n"
    "  --resolved        print the resolved configuration instead\n"
    "  --format F        table (default) or json: {\"ok\", \"summary\",\n"
    "                    \"errors\": [{\"file\", \"line\", \"message\"}]}\n"
    "  --calibration FILE  throughput calibration (default: built-in)\n"
    "  --replications R  replications the memory estimate assumes\n"
    "                    (default simulation.replications)\n"
    "  --series WHICH    first (default), all or none: as run's --series\n"
    "  --max-memory-mb M refuse a scenario whose results would need more\n"
    "                    than M MiB (default 4096)\n"
    "  -h, --help        this help\n";

/* 256 --set options is far beyond any hand-typed command line; the array is on
 * the stack, so a bound is needed, and exceeding it is a usage error, not a
 * silent drop. */
#define MAX_SETS 256

/* The kinds the summary describes with their own parameters; every other
 * kind the site has (the firm ones, and any kind added to the registry
 * later) gets the line and object every source has, so a new source shows
 * up in check without an edit here. */
static int has_own_line(source_kind k)
{
    return k == SRC_SOLAR || k == SRC_WIND || k == SRC_BATTERY || k == SRC_GRID;
}

/* One printf block per scenario section, in the order of the scenario file
 * (site, simulation, modules, GPUs, energy, jobs, policy), so a user can read
 * the summary side by side with the file. Values are converted to the units the
 * file uses (MW, MWh, hours, gCO2/kWh) because the point is to let the user
 * confirm that what they wrote was read as they meant; the JSON form carries SI
 * values for scripts. Totals are computed here from the modules rather than
 * stored, so the summary cannot disagree with its rows. */
static void print_summary(const scenario *s)
{
    const scen_energy *e = &s->energy;
    double it_sys = 0, it_cap = 0;

    printf("scenario    %s%s%s\n", s->path, s->description[0] ? ": " : "",
           s->description);
    /* Coordinates are printed with N/S and E/W rather than signs, because a
     * sign error in a longitude (west as positive) is a common scenario mistake
     * and is easier to spot in words. */
    printf("site        %s (%.4f %s, %.4f %s, %.0f m, UTC%+.1f h)\n",
           s->site.name,
           s->site.latitude_deg >= 0 ? s->site.latitude_deg
                                     : -s->site.latitude_deg,
           s->site.latitude_deg >= 0 ? "N" : "S",
           s->site.longitude_deg >= 0 ? s->site.longitude_deg
                                      : -s->site.longitude_deg,
           s->site.longitude_deg >= 0 ? "E" : "W", s->site.elevation_m,
           s->site.utc_offset_s / 3600.0);
    /* For normals the annual mean and diurnal range are shown, the two figures
     * that most affect PUE, so a wrong built-in site is noticed here. */
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
    /* IT "sys" is the installed systems' max power (count x units x system
     * max); IT "cap" is the module type's rated IT power (count x type). A
     * large gap means the chosen system fills the module type poorly. */
    printf("  %-16s %-14s %5s  %-14s %6s %8lld %11.3f %11.3f\n", "total", "",
           "", "", "", (long long)scenario_gpus(s, NULL), it_sys / 1e6,
           it_cap / 1e6);
    printf("\nGPUs by type\n");
    /* Iterating the catalog rather than the modules gives one line per GPU type
     * in catalog order, however many module groups use it. */
    for (size_t g = 0; g < catalog_n_gpus(s->cat); g++) {
        const gpu_spec *gs = catalog_gpu_at(s->cat, g);
        int64_t n = scenario_gpus(s, gs);
        if (n > 0)
            printf("  %-8s %8lld GPUs  (%.0f TFLOP/s dense BF16 each%s)\n",
                   gs->name, (long long)n, gs->peak_flops[NUM_BF16] / 1e12,
                   gs->announced ? ", announced figures" : "");
    }
    printf("\nenergy\n");
    if (e->present[SRC_SOLAR])
        printf("  solar       %.2f MW DC, %s, %s sky, inverter %.2f MW AC "
               "(DC/AC %.2f), losses %.2f %%, %.0f gCO2/kWh\n",
               e->capacity_w[SRC_SOLAR] / 1e6,
               e->solar.tracking == TRACK_SINGLE_AXIS ? "single-axis"
                                                      : "fixed tilt",
               solar_sky_name((solar_sky)e->solar.sky_model),
               e->solar.inverter_limit_w / 1e6, e->solar.dc_ac_ratio,
               e->solar.losses * 100, e->carbon_kg_per_j[SRC_SOLAR] * 3.6e9);
    if (e->present[SRC_WIND])
        printf("  wind        %.2f MW, turbine %s at %.0f m hub, shear %.3f, "
               "availability %.3f, wake loss %.1f %%, %.0f gCO2/kWh\n",
               e->capacity_w[SRC_WIND] / 1e6, e->wind.turbine.name,
               e->wind.hub_height_m, e->wind.shear_exponent,
               e->wind.availability, e->wind.wake_loss * 100,
               e->carbon_kg_per_j[SRC_WIND] * 3.6e9);
    /* The C rate is derived (power / energy) and printed beside its limit, so a
     * battery sized beyond its chemistry's limit stands out. */
    if (e->present[SRC_BATTERY])
        printf("  battery     %.2f MWh / %.2f MW (%.3f C, limit %.2f C), "
               "RTE %.2f, %d pack(s), SOH %.2f +/- %.2f [%.2f, %.2f], "
               "floor %.0f %%, ",
               e->battery.capacity_j / 3.6e9, e->capacity_w[SRC_BATTERY] / 1e6,
               e->capacity_w[SRC_BATTERY] / (e->battery.capacity_j / 3600.0),
               e->battery.c_rate_max_per_s * 3600, e->battery.round_trip_eff,
               e->battery.packs, e->battery.soh_mean, e->battery.soh_sd,
               e->battery.soh_min, e->battery.soh_max,
               e->battery.reserve_floor * 100);
    /* The enclosure decides the cell temperature, hence the wear; HVAC
     * also adds a load, so both are shown. */
    if (e->present[SRC_BATTERY]) {
        if (e->battery.thermal_mode == BATTERY_THERMAL_HVAC)
            printf("enclosure HVAC at %.1f degC (COP %.1f)\n",
                   e->battery.setpoint_c, e->battery.hvac_cop);
        else
            printf("enclosure outdoor air + %.1f K\n", e->battery.rise_c);
    }
    for (int k = 0; k < SRC_N; k++) {
        const scen_firm *f = &e->firm[k];
        if (!e->present[k] || has_own_line((source_kind)k))
            continue;
        if (source_table[k].role != SOURCE_FIRM) {
            /* A kind without a line of its own: what every kind has. */
            printf("  %-11s %.2f MW, %.0f gCO2/kWh\n", source_table[k].name,
                   e->capacity_w[k] / 1e6, e->carbon_kg_per_j[k] * 3.6e9);
            continue;
        }
        printf("  %-11s %.2f MW, availability %.3f, MTBF %.0f h, MTTR "
               "%.0f h, %.0f gCO2/kWh\n",
               source_table[k].name, e->capacity_w[k] / 1e6, f->availability,
               f->mtbf_s / 3600, f->mttr_s / 3600,
               e->carbon_kg_per_j[k] * 3.6e9);
    }
    if (e->present[SRC_GRID])
        printf("  grid        import limit %.2f MW, %.1f USD/MWh (%zu "
               "time-of-day window(s)), %.0f gCO2/kWh\n",
               e->capacity_w[SRC_GRID] / 1e6,
               e->cost_usd_per_j[SRC_GRID] * 3.6e9, e->grid.n_tod,
               e->carbon_kg_per_j[SRC_GRID] * 3.6e9);
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

/* One error as an object: file and line (null when unknown) and the message,
 * which starts with the key path. code is the short name of the status
 * (sim_strerror), which scripts can switch on without parsing the message. */
static jv *err_json(const sim_err *e)
{
    jv *o = jv_obj();
    jv_set(o, "file", e->file[0] ? jv_str(e->file) : jv_null());
    jv_set(o, "line", e->line > 0 ? jv_int(e->line) : jv_null());
    jv_set(o, "code", jv_str(sim_strerror(e->code)));
    jv_set(o, "message", jv_str(e->msg));
    return o;
}

/* The resolved scenario in SI units, for --format json. SI names and values
 * throughout, unlike the table: this is the machine-readable form, and scripts
 * should not have to parse units. The path is the one given on the command
 * line, as the table prints it. One block per section in the file's order,
 * as the table; the energy models' parameters (each module's cooling, the
 * solar sky, the battery enclosure, the power group) sit in the object of
 * what they belong to, under their keys' names, so a script can confirm
 * the assumptions a run will use without running it. */
static jv *summary_json(const scenario *s, const run_check_opts *co)
{
    jv *o = jv_obj(), *sim = jv_obj(), *site = jv_obj(), *mods = jv_arr(),
       *jobs = jv_arr(), *src = jv_arr(), *th;
    const scen_energy *e = &s->energy;
    jv_set(o, "scenario", jv_str(s->path));
    jv_set(o, "description", jv_str(s->description));
    jv_set(site, "name", jv_str(s->site.name));
    jv_set(site, "latitude_deg", jv_num(s->site.latitude_deg));
    jv_set(site, "longitude_deg", jv_num(s->site.longitude_deg));
    jv_set(site, "utc_offset_s", jv_num(s->site.utc_offset_s));
    jv_set(site, "climate",
           jv_str(s->site.climate.kind == CLIMATE_NORMALS ? "normals"
                  : s->site.climate.kind == CLIMATE_EPW   ? "epw"
                                                          : "hourly_csv"));
    jv_set(o, "site", site);
    jv_set(sim, "start_date", jv_str(s->sim.start_date));
    jv_set(sim, "horizon_s", jv_num(s->sim.horizon_s));
    jv_set(sim, "step_s", jv_num(s->sim.step_s));
    {
        char b[32];
        /* The seed is a string because seeds go up to 2^63 - 1 and many JSON
         * readers hold numbers as doubles, which would round a large seed to a
         * different one. */
        snprintf(b, sizeof b, "%llu", (unsigned long long)s->sim.seed);
        jv_set(sim, "seed", jv_str(b));
    }
    jv_set(sim, "replications", jv_int(s->sim.replications));
    jv_set(o, "simulation", sim);
    for (size_t i = 0; i < s->n_modules; i++) {
        const scen_module *m = &s->modules[i];
        jv *mo = jv_obj();
        jv_set(mo, "name", jv_str(m->name));
        jv_set(mo, "type", jv_str(m->type->name));
        jv_set(mo, "count", jv_int(m->count));
        jv_set(mo, "hosts", jv_str(m->system->name));
        jv_set(mo, "gpus", jv_int(m->gpus));
        jv_set(mo, "it_power_w", jv_num(m->it_power_w));
        /* The cooling design and the figures that are assumptions a user
         * may have changed (modules.[].cooling_*), as the run will use them.
         * Water per kWh stays in L/kWh, the unit every cited WUE uses. */
        jv_set(mo, "cooling", jv_str(cooling_type_name(m->cool.type)));
        jv_set(mo, "cooling_fixed_frac", jv_num(m->cool.fixed_frac));
        jv_set(mo, "cooling_wue_evap_l_per_kwh",
               jv_num(m->cool.wue_evap_l_kwh));
        jv_set(mo, "cooling_wue_dry_l_per_kwh", jv_num(m->cool.wue_dry_l_kwh));
        jv_set(mo, "cooling_evap_threshold_c", jv_num(m->cool.t_evap_c));
        jv_set(mo, "cooling_adiabatic_wb_limit_c",
               jv_num(m->cool.t_wb_limit_c));
        jv_set(mo, "cooling_chiller_ramp_k", jv_num(m->cool.chiller_ramp_k));
        jv_set(mo, "cooling_chiller_cop", jv_num(m->cool.chiller_cop));
        jv_push(mods, mo);
    }
    jv_set(o, "modules", mods);
    if (e->present[SRC_SOLAR]) {
        jv *x = jv_obj();
        jv_set(x, "source", jv_str("solar"));
        jv_set(x, "capacity_dc_w", jv_num(e->capacity_w[SRC_SOLAR]));
        jv_set(x, "capacity_ac_w", jv_num(e->solar.inverter_limit_w));
        jv_set(x, "sky_model",
               jv_str(solar_sky_name((solar_sky)e->solar.sky_model)));
        jv_push(src, x);
    }
    if (e->present[SRC_WIND]) {
        jv *x = jv_obj();
        jv_set(x, "source", jv_str("wind"));
        jv_set(x, "capacity_w", jv_num(e->capacity_w[SRC_WIND]));
        jv_set(x, "turbine", jv_str(e->wind.turbine.name));
        jv_set(x, "hub_height_m", jv_num(e->wind.hub_height_m));
        jv_push(src, x);
    }
    if (e->present[SRC_BATTERY]) {
        jv *x = jv_obj();
        jv_set(x, "source", jv_str("battery"));
        jv_set(x, "capacity_j", jv_num(e->battery.capacity_j));
        jv_set(x, "power_w", jv_num(e->capacity_w[SRC_BATTERY]));
        /* The enclosure sets the cell temperature (wear) and, with HVAC, a
         * site load: both modes' parameters in the keys' own names. */
        th = jv_obj();
        if (e->battery.thermal_mode == BATTERY_THERMAL_HVAC) {
            jv_set(th, "mode", jv_str("hvac"));
            jv_set(th, "setpoint_c", jv_num(e->battery.setpoint_c));
            jv_set(th, "hvac_cop", jv_num(e->battery.hvac_cop));
            jv_set(th, "ua_w_per_k_per_mwh",
                   jv_num(e->battery.hvac_ua_w_per_k_per_j * 3.6e9));
        } else {
            jv_set(th, "mode", jv_str("ambient-rise"));
            jv_set(th, "rise_c", jv_num(e->battery.rise_c));
        }
        jv_set(x, "thermal", th);
        jv_push(src, x);
    }
    for (int k = 0; k < SRC_N; k++) {
        jv *x;
        if (!e->present[k] || has_own_line((source_kind)k))
            continue; /* firm kinds, and any kind without its own object */
        x = jv_obj();
        jv_set(x, "source", jv_str(source_table[k].name));
        jv_set(x, "capacity_w", jv_num(e->capacity_w[k]));
        jv_push(src, x);
    }
    if (e->present[SRC_GRID]) {
        jv *x = jv_obj();
        jv_set(x, "source", jv_str("grid"));
        jv_set(x, "import_limit_w", jv_num(e->capacity_w[SRC_GRID]));
        jv_push(src, x);
    }
    jv_set(o, "energy", src);
    {
        /* The power group (models/load.h): GPU power by step phase and the
         * cap curve, under the keys' names. */
        const load_cfg *p = &s->power;
        jv *pw = jv_obj(), *cc = jv_obj();
        jv_set(pw, "gpu_compute_frac_bf16", jv_num(p->u_compute[NUM_BF16]));
        jv_set(pw, "gpu_compute_frac_fp8", jv_num(p->u_compute[NUM_FP8]));
        jv_set(pw, "gpu_compute_frac_fp4", jv_num(p->u_compute[NUM_FP4]));
        jv_set(pw, "gpu_comm_frac", jv_num(p->u_comm));
        jv_set(pw, "gpu_bubble_frac", jv_num(p->u_bubble));
        jv_set(pw, "gpu_checkpoint_frac", jv_num(p->u_ckpt));
        jv_set(pw, "gpu_idle_frac", jv_num(p->idle_gpu_frac));
        jv_set(pw, "nongpu_train_frac", jv_num(p->nongpu_train_frac));
        jv_set(pw, "nongpu_idle_frac", jv_num(p->nongpu_idle_frac));
        jv_set(pw, "module_overhead_frac", jv_num(p->module_overhead_frac));
        jv_set(cc, "min_cap_frac", jv_num(s->cap_curve.min_x));
        jv_set(cc, "knee_cap_frac", jv_num(s->cap_curve.knee_x));
        jv_set(cc, "throughput_at_min", jv_num(s->cap_curve.r_min));
        jv_set(pw, "cap_curve", cc);
        jv_set(o, "power", pw);
    }
    for (size_t i = 0; i < s->n_jobs; i++) {
        const scen_job *j = &s->jobs[i];
        jv *x = jv_obj();
        jv_set(x, "name", jv_str(j->name));
        jv_set(x, "model", jv_str(j->model->id));
        jv_set(x, "precision", jv_str(j->precision));
        jv_set(x, "gpu", jv_str(j->gpu->name));
        jv_set(x, "gpus", jv_int(j->gpus));
        jv_set(x, "steps", jv_int(j->steps));
        jv_set(x, "tokens", jv_num(j->tokens));
        jv_set(x, "submit_t_s", jv_num(j->submit_t_s));
        jv_push(jobs, x);
    }
    jv_set(o, "jobs", jobs);
    jv_set(o, "memory_estimate_bytes", jv_num(run_check_memory_bytes(s, co)));
    jv_set(o, "max_memory_mb", jv_num(co->max_memory_mb));
    return o;
}

/* Shaped to collect rather than stop: after the options, loading is one chain
 * (catalog, scenario, calibration) whose first failure is recorded, and only a
 * loaded scenario goes through run_check_scenario, which appends every further
 * error it finds, so the user fixes them all in one round. Output comes last,
 * in one place per format, so the JSON document is always whole (ok, summary or
 * null, errors) even when nothing could be loaded. Every exit after the options
 * frees the same resources in the same order. */
int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"catalog", required_argument, NULL, 'c'},
        {"resolved", no_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"calibration", required_argument, NULL, 'C'},
        {"replications", required_argument, NULL, 'R'},
        {"series", required_argument, NULL, 'T'},
        {"max-memory-mb", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *sets[MAX_SETS];
    const char *catdir = NULL, *calib = NULL, *cmd = "check";
    size_t n_sets = 0;
    int resolved = 0, o, rc, fmt = CLI_FMT_TABLE, series = 1;
    uint32_t reps_opt = 0;
    double max_mem_mb = RUN_CHECK_DEFAULT_MAX_MEMORY_MB;
    catalog *cat = NULL;
    scenario *s = NULL;
    tp_model *tp = NULL;
    climate_year *wx = NULL;
    run_check_errs *ce;
    run_check_opts co = {0};
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error(cmd, "too many --set (max %d)",
                                       MAX_SETS);
            sets[n_sets++] = optarg;
            break;
        case 'c':
            catdir = optarg;
            break;
        case 'r':
            resolved = 1;
            break;
        case 'f':
            if ((fmt = cli_format_parse(cmd, optarg,
                                        CLI_FMT_TABLE | CLI_FMT_JSON)) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'C':
            calib = optarg;
            break;
        case 'R':
            if (cli_u32(cmd, "--replications", optarg, 1, 100000, &reps_opt) <
                0)
                return CLI_EXIT_USAGE;
            break;
        case 'T':
            if (strcmp(optarg, "none") == 0)
                series = 0;
            else if (strcmp(optarg, "first") == 0)
                series = 1;
            else if (strcmp(optarg, "all") == 0)
                series = 2;
            else
                return cli_usage_error(
                    cmd, "--series: expected first, all or none (got '%s')",
                    optarg);
            break;
        case 'M':
            if (cli_double(cmd, "--max-memory-mb", optarg, 1, 1e9,
                           &max_mem_mb) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs(check_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "missing SCENARIO file");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'",
                               argv[optind + 1]);
    ce = sim_xcalloc(1, sizeof *ce);
    sim_err_clear(&err);
    if (catalog_load(catdir, &cat, &err) == SIM_OK &&
        scenario_load(argv[optind], cat, sets, n_sets, &s, &err) == SIM_OK) {
        /* The memory estimate uses the same replication count and series option
         * that run would, so check refuses exactly the runs that would exceed
         * the limit. Set as soon as the scenario is loaded: the JSON summary
         * reads it even when the calibration then fails to load. */
        co.replications = reps_opt ? reps_opt : (size_t)s->sim.replications;
        co.series = series;
        co.max_memory_mb = max_mem_mb;
    }
    if (!s || (calib ? tp_model_load(calib, &tp, &err)
                     : tp_model_default(&tp, &err)) != SIM_OK) {
        /* Loading stops at the first failure (a scenario that did not load
         * cannot be checked further); the one error is recorded like any other
         * so both formats report it the same way. */
        run_check_add(ce, &err);
    } else {
        run_check_scenario(s, tp, &co, &wx, NULL, ce);
    }
    /* The exit status depends only on the errors found, not on the format, so a
     * script can use `check --format json` and still test $?. */
    rc = ce->n ? CLI_EXIT_ERR : CLI_EXIT_OK;
    if (fmt == CLI_FMT_JSON) {
        jv *root = jv_obj(), *errs = jv_arr();
        jv_set(root, "ok", jv_bool(ce->n == 0));
        jv_set(root, "summary", s ? summary_json(s, &co) : jv_null());
        for (size_t i = 0; i < ce->n; i++)
            jv_push(errs, err_json(&ce->e[i]));
        jv_set(root, "errors", errs);
        jv_set(root, "errors_not_listed", jv_int((int64_t)ce->dropped));
        jv_write(root, stdout, 1);
        jv_free(root);
    } else {
        for (size_t i = 0; i < ce->n; i++)
            cli_report(&ce->e[i]);
        if (ce->dropped)
            cli_error("... and %zu more error(s)", ce->dropped);
        if (!ce->n) {
            /* --resolved prints the configuration as run would store it (file,
             * includes and --set merged), only when it is valid, so a printed
             * configuration can always be run as is. */
            if (resolved)
                fputs(scenario_resolved_text(s), stdout);
            else
                print_summary(s);
        }
    }
    /* A failed write of stdout is main's to report (cli/main.c). */
    free(ce);
    climate_year_free(wx);
    tp_model_free(tp);
    scenario_free(s);
    catalog_free(cat);
    return rc;
}
