/* cli/cmd_power.c: `factorysim power SCENARIO`: the site's power over the
 * scenario's horizon with every system training at its nominal power once its
 * module is commissioned: energy by source, curtailment, shortage, battery
 * wear, PUE, solar capacity factor, renewable share, carbon and cost
 * (models/site_power_scn.h, models/site_power.h). docs/power-model.md 11 shows
 * its output.
 *
 * The command supplies the one thing the power model does not own, the demand
 * (power_load below: a synthetic "everything busy" load instead of the job
 * model), and formats the totals; dispatch, weather and batteries are the
 * model's. It must never leave a partial --steps file: on a write error the
 * file is removed. The generation rows and step columns come from the source
 * registry, so a new source kind appears here with no edit. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/catalog_cfg.h"
#include "io/climate_load.h"
#include "io/csv.h"
#include "io/json.h"
#include "io/scenario_cfg.h"
#include "models/site_power_scn.h"
#include "sim/mem.h"

static const char power_help[] =
    "Usage: factorysim power SCENARIO [OPTIONS]\n"
    "\n"
    "Runs the site's power over the scenario's horizon at the nominal "
    "training\n"
    "load of its modules (every system busy, from each module group's\n"
    "commissioning on; GPUs at 0.90 of TDP, docs/power-model.md 7) through "
    "the\n"
    "dispatch of every step (solar, geothermal, hydro, batteries, grid, then\n"
    "the shortage policy), and prints energy by source [MWh], curtailment,\n"
    "hours short, unserved energy, battery cycles and health, PUE, cooling\n"
    "water, ambient range, solar capacity factor (AC), renewable share,\n"
    "carbon and cost.\n"
    "Weather: the scenario's EPW file or hourly CSV, else a synthetic year\n"
    "from its monthly normals.\n"
    "\n"
    "Options:\n"
    "  --set KEY=VALUE   override a scenario key (repeatable; keys:\n"
    "                    docs/scenario-reference.md)\n"
    "  --seed N          master seed (default: simulation.seed)\n"
    "  --replication R   replication index (default 0)\n"
    "  --catalog DIR     catalog folder (default: the built-in models/)\n"
    "  --format F        table (default), json or csv (metric,value,unit)\n"
    "  --steps FILE.csv  also write every step's record as CSV\n"
    "  -h, --help        this help\n";

#define MAX_SETS 256
/* Joules per MWh: the totals are kept in J (SI) and converted only here, at
 * output. */
#define MWH 3.6e9

/* The demand of every step: one job per physical module at its nominal
 * training power (a group of count modules is count equal jobs, so pause
 * and shed act module by module), from the group's commissioning on. */
typedef struct power_load {
    const scenario *s;
    dispatch_job *all; /* every module's job */
    size_t n_all;
    size_t *group_of;  /* [n_all] module group of each job */
    dispatch_job *now; /* the online ones this step */
    double *base_it_w; /* [n_modules] */
} power_load;

/* Called by site_power_run at every step; it copies the online jobs into L->now
 * rather than returning a filtered view, because the dispatch takes a
 * contiguous array. A module group's jobs come online together at its
 * commissioning time. */
static int power_demand(void *ctx, const site_power *sp, double t_s,
                        const dispatch_job **jobs, size_t *n_jobs,
                        const double **base_it_w)
{
    power_load *L = ctx;
    size_t n = 0;
    for (size_t g = 0; g < L->s->n_modules; g++) {
        const scen_module *m = &L->s->modules[g];
        /* base_it_w is asked of the model every step because it depends on
         * time: 0 before the module is online, its overhead after
         * (site_power_module_base_it_w). Every system is held by a job: only
         * the module overhead is base. */
        L->base_it_w[g] = site_power_module_base_it_w(
            sp, g, t_s, (double)m->count * m->units);
    }
    for (size_t i = 0; i < L->n_all; i++)
        if (t_s >= L->s->modules[L->group_of[i]].commission_t_s)
            L->now[n++] = L->all[i];
    *jobs = L->now;
    *n_jobs = n;
    *base_it_w = L->base_it_w;
    return SIM_OK;
}

/* Each group's nominal demand is split evenly over its count modules so that
 * the shortage policy can pause or shed one module at a time, as it would pause
 * one job; all priorities are equal, so the dispatch's tie rule (the last
 * listed first) decides which module goes first. */
static void power_load_init(power_load *L, const scenario *s,
                            const site_power *sp)
{
    size_t n = 0, k = 0;
    for (size_t g = 0; g < s->n_modules; g++)
        n += (size_t)s->modules[g].count;
    L->s = s;
    L->n_all = n;
    L->all = sim_xcalloc(n ? n : 1, sizeof *L->all);
    L->now = sim_xcalloc(n ? n : 1, sizeof *L->now);
    L->group_of = sim_xcalloc(n ? n : 1, sizeof *L->group_of);
    L->base_it_w =
        sim_xcalloc(s->n_modules ? s->n_modules : 1, sizeof *L->base_it_w);
    for (size_t g = 0; g < s->n_modules; g++) {
        load_demand d;
        double cnt = s->modules[g].count;
        site_power_module_nominal(sp, g, &d);
        for (int u = 0; u < s->modules[g].count; u++, k++) {
            dispatch_job *j = &L->all[k];
            j->module = g;
            /* The group's nominal demand is per group; dividing by count makes
             * each job one physical module. */
            j->gpu_w = d.gpu_w / cnt;
            j->other_w = d.other_w / cnt;
            j->idle_w = d.idle_w / cnt;
            j->gpu_frac_tdp = d.gpu_frac_tdp;
            j->priority = 0;
            L->group_of[k] = g;
        }
    }
}

static void power_load_fini(power_load *L)
{
    free(L->all);
    free(L->now);
    free(L->group_of);
    free(L->base_it_w);
}

/* Writes the per-step records as CSV (kW, kWh, kg, fractions). The generation
 * columns are one per source kind of the registry (models/source.h) that
 * generates or imports, "<name>_kw" in registry order; the battery has its own
 * discharge and charge columns.
 *
 * The columns are built at run time (fixed ones, one per generating source
 * kind, fixed ones) so a new registry kind adds a column here without an edit.
 * Units are the ones an operator reads (kW, kWh, kg), unlike the database's SI
 * columns, because this file is meant for a spreadsheet. */
static int write_steps(const char *path, const site_power *sp, sim_err *err)
{
    static const char *const pre[] = {
        "t_h", "t_db_c", "t_wb_c", "pue", "demand_kw", "it_kw", "facility_kw"};
    static const char *const post[] = {
        "discharge_kw", "charge_kw", "curtailed_kw", "loss_kw",
        "shortfall_kw", "soc_frac",  "soh_frac",     "throttle_frac",
        "n_throttled",  "n_paused",  "n_shed",       "renewable_kwh",
        "carbon_kg",    "cost_usd"};
    enum {
        NPRE = sizeof pre / sizeof pre[0],
        NPOST = sizeof post / sizeof post[0],
        NMAX = NPRE + SRC_N + NPOST
    };
    const char *head[NMAX];
    char gen_name[SRC_N][40];
    int gen_kind[SRC_N], ng = 0, nc = 0;
    size_t n;
    const site_power_record *r = site_power_records(sp, &n);
    FILE *f = fopen(path, "w");
    int rc = SIM_OK;
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot write the steps file");
    for (int i = 0; i < NPRE; i++)
        head[nc++] = pre[i];
    for (int k = 0; k < SRC_N; k++)
        if (source_table[k].role != SOURCE_STORAGE) {
            snprintf(gen_name[ng], sizeof gen_name[ng], "%s_kw",
                     source_table[k].name);
            head[nc++] = gen_name[ng];
            gen_kind[ng++] = k;
        }
    for (int i = 0; i < NPOST; i++)
        head[nc++] = post[i];
    if (csvt_write_row(f, head, (size_t)nc) != SIM_OK)
        rc = SIM_EIO;
    for (size_t i = 0; i < n && rc == SIM_OK; i++) {
        char buf[NMAX][32];
        const char *cells[NMAX];
        double v[NMAX];
        int c = 0;
        v[c++] = r[i].t_s / 3600.0;
        v[c++] = r[i].t_db_c;
        v[c++] = r[i].t_wb_c;
        v[c++] = r[i].pue;
        v[c++] = r[i].demand_w / 1e3;
        v[c++] = r[i].it_w / 1e3;
        v[c++] = r[i].facility_w / 1e3;
        for (int g = 0; g < ng; g++)
            v[c++] = r[i].gen_w[gen_kind[g]] / 1e3;
        v[c++] = r[i].discharge_w / 1e3;
        v[c++] = r[i].charge_w / 1e3;
        v[c++] = r[i].curtailed_w / 1e3;
        v[c++] = r[i].loss_w / 1e3;
        v[c++] = r[i].shortfall_w / 1e3;
        v[c++] = r[i].soc;
        v[c++] = r[i].soh;
        v[c++] = r[i].throttle;
        v[c++] = r[i].n_throttled;
        v[c++] = r[i].n_paused;
        v[c++] = r[i].n_shed;
        v[c++] = r[i].renewable_j / 3.6e6;
        v[c++] = r[i].carbon_g / 1e3;
        v[c++] = r[i].cost_usd;
        for (int k = 0; k < nc; k++) {
            snprintf(buf[k], sizeof buf[k], "%.10g", v[k]);
            cells[k] = buf[k];
        }
        if (csvt_write_row(f, cells, (size_t)nc) != SIM_OK)
            rc = SIM_EIO;
    }
    /* ferror too: a flush that failed mid-file (a full disk) is not
     * reported again by fclose. */
    if (ferror(f))
        rc = SIM_EIO;
    if (fclose(f) != 0)
        rc = SIM_EIO;
    if (rc != SIM_OK) {
        remove(path);
        return sim_err_set(err, SIM_EIO, path, 0, "write failed (disk full?)");
    }
    return SIM_OK;
}

/* One output metric: name, value, unit. */
typedef struct metric {
    const char *key;   /* JSON / CSV name, unit-suffixed */
    const char *label; /* table label */
    double v;
    const char *unit; /* table / CSV unit */
} metric;

/* The metrics that start a group in the table (a blank line before). Grouping
 * is by key rather than by index: indices shift whenever the registry grows,
 * which once put the blank lines in the wrong place. */
static int starts_group(const char *key)
{
    static const char *const first[] = {
        "shortfall_mwh", "time_short_hours",      "battery_cycles",
        "pue_min",       "solar_capacity_factor", NULL};
    for (int i = 0; first[i]; i++)
        if (strcmp(first[i], key) == 0)
            return 1;
    return 0;
}

static const char *weather_label(const scenario *s)
{
    switch (s->site.climate.kind) {
    case CLIMATE_EPW:
        return "epw";
    case CLIMATE_HOURLY_CSV:
        return "hourly-csv";
    default:
        return "normals";
    }
}

/* Long because it holds the metric table and three formats; the flow is plain:
 * options, load (catalog freed as soon as the scenario owns a copy), weather,
 * model, run, optional steps file, then one metric table that all three formats
 * print from, so the table, JSON and CSV cannot disagree on a value. Every
 * failure after the scenario load goes through out:, which frees what was made
 * so far (each free accepts NULL). */
int cmd_power(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"seed", required_argument, NULL, 'S'},
        {"replication", required_argument, NULL, 'r'},
        {"catalog", required_argument, NULL, 'c'},
        {"format", required_argument, NULL, 'f'},
        {"steps", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "power", *sets[MAX_SETS], *catdir = NULL, *steps = NULL;
    size_t n_sets = 0;
    int fmt = CLI_FMT_TABLE, have_seed = 0, o, rc, ret = CLI_EXIT_ERR;
    uint64_t seed = 0, rep = 0;
    catalog *cat = NULL;
    scenario *s = NULL;
    climate_year *wx = NULL;
    site_power *sp = NULL;
    sim e;
    sim_err err;
    power_load L;

    sim_err_clear(&err);
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int bad = 0;
        switch (o) {
        case 's':
            if (n_sets == MAX_SETS)
                return cli_usage_error(cmd, "too many --set (max %d)",
                                       MAX_SETS);
            sets[n_sets++] = optarg;
            break;
        case 'S':
            bad = cli_seed(cmd, "--seed", optarg, &seed);
            have_seed = 1;
            break;
        case 'r':
            bad = cli_u64(cmd, "--replication", optarg, &rep);
            break;
        case 'c':
            catdir = optarg;
            break;
        case 'o':
            steps = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            bad = fmt < 0;
            break;
        case 'h':
            fputs(power_help, stdout);
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
    if (optind >= argc)
        return cli_usage_error(cmd, "missing SCENARIO file");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'",
                               argv[optind + 1]);
    if (catalog_load(catdir, &cat, &err) != SIM_OK)
        return cli_report(&err);
    rc = scenario_load(argv[optind], cat, sets, n_sets, &s, &err);
    catalog_free(cat);
    if (rc != SIM_OK)
        return cli_report(&err);
    /* --seed overrides the scenario's seed for this command only, so that a
     * user can look at another weather and outage draw without editing the
     * file. */
    if (!have_seed)
        seed = s->sim.seed;
    if ((rc = climate_load_for_scenario(s, &wx, NULL, &err)) != SIM_OK ||
        (rc = site_power_from_scenario(s, wx, seed, rep, steps != NULL, &sp,
                                       &err)) != SIM_OK) {
        ret = cli_report(&err);
        goto out;
    }
    power_load_init(&L, s, sp);
    sim_init(&e);
    rc = site_power_run(sp, &e, s->sim.horizon_s, power_demand, &L, &err);
    sim_fini(&e);
    power_load_fini(&L);
    if (rc != SIM_OK) {
        ret = cli_report(&err);
        goto out;
    }
    if (steps && (cli_make_dirs(steps, 0, &err) != SIM_OK ||
                  write_steps(steps, sp, &err) != SIM_OK)) {
        ret = cli_report(&err);
        goto out;
    }

    /* Everything below reads totals only; the model is not touched again, so
     * the three formats print the same numbers. */
    const site_power_totals *t = site_power_get_totals(sp);
    double gen_j = 0;
    for (int k = 0; k < SRC_N; k++)
        gen_j += t->gen_j[k];
    /* supply and sinks are printed as an audit: they must agree to rounding
     * (dispatch.h's energy balance), and printing both lets a reader check it.
     */
    double supply_j = gen_j + t->withdrawn_j;
    double sinks_j = t->facility_j + t->stored_j + t->curtailed_j + t->loss_j;
    /* NaN rather than 0 for an empty load, so that shares and intensities print
     * as "-" instead of dividing by zero into infinity. */
    double load = t->facility_j > 0 ? t->facility_j : (double)NAN;
    /* Capacity factors are relative to AC nameplate (the inverter limit) and to
     * this run's simulated time, not a calendar year, so a 90-day run reports
     * the factor of those 90 days. */
    double cf_ac = t->solar_p_ac0_w > 0 && t->time_s > 0
                       ? t->gen_j[SRC_SOLAR] / (t->solar_p_ac0_w * t->time_s)
                       : (double)NAN;
    double cf_wind = t->wind_capacity_w > 0 && t->time_s > 0
                         ? t->gen_j[SRC_WIND] / (t->wind_capacity_w * t->time_s)
                         : (double)NAN;
    int has_bat = site_power_n_batteries(sp) > 0;
    /* Head, one generation row per source kind of the registry
     * (models/source.h) that generates or imports, then the rest. */
    const metric head[] = {
        {"demand_mwh", "facility demand", t->demand_j / MWH, "MWh"},
        {"it_mwh", "IT energy served", t->it_j / MWH, "MWh"},
        {"facility_mwh", "facility energy served (load)", t->facility_j / MWH,
         "MWh"},
    };
    const metric tail[] = {
        {"battery_discharge_mwh", "battery discharge (to the bus)",
         t->discharge_j / MWH, "MWh"},
        {"battery_charge_mwh", "battery charge (from the bus)",
         t->charge_j / MWH, "MWh"},
        {"battery_withdrawn_mwh", "battery withdrawn (from storage)",
         t->withdrawn_j / MWH, "MWh"},
        {"battery_stored_mwh", "battery stored (into storage)",
         t->stored_j / MWH, "MWh"},
        {"battery_loss_mwh", "battery conversion losses", t->loss_j / MWH,
         "MWh"},
        {"battery_fade_loss_mwh", "stored energy lost to fade",
         t->fade_loss_j / MWH, "MWh"},
        {"battery_hvac_mwh", "battery enclosure HVAC (in the load)",
         t->battery_hvac_j / MWH, "MWh"},
        {"curtailed_mwh", "curtailed", t->curtailed_j / MWH, "MWh"},
        {"shortfall_mwh", "unserved energy", t->shortfall_j / MWH, "MWh"},
        {"supply_mwh", "supply (generation + withdrawn)", supply_j / MWH,
         "MWh"},
        {"sinks_mwh", "load + stored + curtailed + losses", sinks_j / MWH,
         "MWh"},
        {"balance_worst_step_rel", "worst step balance (relative)",
         t->balance_max_rel, ""},
        {"time_short_hours", "time short of power", t->time_short_s / 3600.0,
         "h"},
        {"time_unserved_hours", "time with unserved load",
         t->time_unserved_s / 3600.0, "h"},
        {"battery_cycles", "battery equivalent full cycles",
         has_bat ? t->battery_efc : (double)NAN, ""},
        {"battery_soh_initial", "battery state of health, start",
         has_bat ? t->battery_soh0 : (double)NAN, ""},
        {"battery_soh_final", "battery state of health, end",
         has_bat ? t->battery_soh : (double)NAN, ""},
        {"pue_min", "PUE min", t->pue_min, ""},
        {"pue_mean", "PUE mean (facility / IT energy)",
         t->it_j > 0 ? t->facility_j / t->it_j : (double)NAN, ""},
        {"pue_max", "PUE max", t->pue_max, ""},
        {"water_m3", "cooling water (WUE x IT served)", t->water_m3, "m3"},
        {"ambient_min_c", "ambient dry bulb min", t->t_db_min_c, "degC"},
        {"ambient_max_c", "ambient dry bulb max", t->t_db_max_c, "degC"},
        {"solar_capacity_factor", "solar capacity factor (AC, this run)", cf_ac,
         ""},
        {"wind_capacity_factor", "wind capacity factor (this run)", cf_wind,
         ""},
        {"renewable_fraction", "renewable share of the load",
         t->renewable_j / load, ""},
        {"co2_t", "carbon (lifecycle, load served)", t->carbon_g / 1e6,
         "tCO2e"},
        /* Per kWh of load served, the basis of published grid intensities, so
         * the figure compares directly with a grid's. */
        {"carbon_g_per_kwh", "carbon intensity", t->carbon_g / (load / 3.6e6),
         "gCO2e/kWh"},
        {"cost_usd", "energy cost", t->cost_usd, "USD"},
        {"cost_usd_per_mwh", "energy cost per MWh", t->cost_usd / (load / MWH),
         "USD/MWh"},
        {"grid_peak_mw", "peak grid import", t->grid_max_w / 1e6, "MW"},
        {"outages", "forced outages of sources", (double)t->outages, ""},
    };
    enum {
        NH = sizeof head / sizeof head[0],
        NT = sizeof tail / sizeof tail[0],
        NM = NH + SRC_N + NT
    };
    metric m[NM];
    char gen_key[SRC_N][40], gen_label[SRC_N][80];
    int nm = 0;
    for (int i = 0; i < NH; i++)
        m[nm++] = head[i];
    for (int k = 0; k < SRC_N; k++) {
        const source_info *si = &source_table[k];
        if (si->role == SOURCE_STORAGE)
            continue; /* the battery has its own rows below */
        snprintf(gen_key[k], sizeof gen_key[k], "%s_mwh", si->name);
        snprintf(gen_label[k], sizeof gen_label[k],
                 si->role == SOURCE_GRID ? "%s import"
                 : si->role == SOURCE_VARIABLE
                     ? "%s generated (incl. curtailed)"
                     : "%s generated",
                 si->name);
        m[nm++] = (metric){gen_key[k], gen_label[k], t->gen_j[k] / MWH, "MWh"};
    }
    for (int i = 0; i < NT; i++)
        m[nm++] = tail[i];

    /* power stores nothing; its JSON is a summary like the table, so the names
     * carry the display unit in their suffix (_mwh, _hours) as the
     * unit-in-the-name rule asks, and the values match the table's. */
    if (fmt == CLI_FMT_JSON) {
        jv *j = jv_obj(), *mj = jv_obj();
        jv_set(j, "scenario", jv_str(s->path));
        jv_set(j, "site", jv_str(s->site.name));
        jv_set(j, "weather", jv_str(weather_label(s)));
        jv_set(j, "seed", jv_int((int64_t)seed));
        jv_set(j, "replication", jv_int((int64_t)rep));
        jv_set(j, "start_date", jv_str(s->sim.start_date));
        jv_set(j, "horizon_days", jv_num(s->sim.horizon_s / 86400.0));
        jv_set(j, "step_min", jv_num(s->sim.step_s / 60.0));
        jv_set(j, "steps", jv_int((int64_t)t->steps));
        jv_set(j, "policy", jv_str(scenario_policy_name(s->policy)));
        for (int i = 0; i < nm; i++)
            jv_set(mj, m[i].key, jv_num(m[i].v));
        jv_set(j, "totals", mj);
        jv_write(j, stdout, 1);
        jv_free(j);
    } else if (fmt == CLI_FMT_CSV) {
        static const char *const cols[] = {"metric", "value", "unit"};
        csvt_write_row(stdout, cols, 3);
        for (int i = 0; i < nm; i++) {
            char v[32];
            const char *cells[3] = {m[i].key, v, m[i].unit};
            v[0] = '\0';
            /* A NaN metric (no battery, no solar) is an empty CSV value rather
             * than "nan", which spreadsheets would read as text. */
            if (isfinite(m[i].v))
                snprintf(v, sizeof v, "%.10g", m[i].v);
            csvt_write_row(stdout, cells, 3);
        }
    } else {
        printf("power  %s: %s\n", s->path, s->site.name);
        printf("       %s + %.1f days, %zu steps of %.1f min, seed %llu, "
               "replication %llu, "
               "shortage policy %s\n",
               s->sim.start_date, s->sim.horizon_s / 86400.0, t->steps,
               s->sim.step_s / 60.0, (unsigned long long)seed,
               (unsigned long long)rep, scenario_policy_name(s->policy));
        printf("       weather: %s; load: every system training at nominal "
               "power from "
               "commissioning\n\n",
               s->site.climate.kind == CLIMATE_NORMALS
                   ? "synthetic year from monthly normals"
               : s->site.climate.kind == CLIMATE_EPW ? "EPW file"
                                                     : "hourly CSV file");
        for (int i = 0; i < nm; i++) {
            if (starts_group(m[i].key))
                printf("\n");
            if (!isfinite(m[i].v))
                printf("  %-38s %14s\n", m[i].label, "-");
            else if (strcmp(m[i].unit, "MWh") == 0 ||
                     strcmp(m[i].unit, "USD") == 0 ||
                     strcmp(m[i].unit, "tCO2e") == 0)
                printf("  %-38s %14.3f %s\n", m[i].label, m[i].v, m[i].unit);
            else if (strcmp(m[i].key, "solar_capacity_factor") == 0 ||
                     strcmp(m[i].key, "wind_capacity_factor") == 0 ||
                     strcmp(m[i].key, "renewable_fraction") == 0)
                printf("  %-38s %14.2f %%\n", m[i].label, 100 * m[i].v);
            else if (strcmp(m[i].key, "balance_worst_step_rel") == 0)
                printf("  %-38s %14.2e\n", m[i].label, m[i].v);
            else
                printf("  %-38s %14.3f %s\n", m[i].label, m[i].v, m[i].unit);
        }
    }
    ret = CLI_EXIT_OK;
out:
    site_power_free(sp);
    climate_year_free(wx);
    scenario_free(s);
    return ret;
}
