/* io/scenario_cfg.c: reads a scenario file (libconfig) into the resolved
 * structs of models/scenario.h. Order: parse (with @include), apply the
 * KEY=VALUE overrides to the tree, copy the catalog and apply the file's
 * `catalog` group, then read simulation, site, modules, fabric, energy,
 * jobs and policy, converting the file's units (named in each key) to SI,
 * and hand the result to scenario_finish. The first error stops the load;
 * nothing partial is returned. Key names are a contract:
 * docs/scenario-reference.md.
 *
 * What this file owns: the file's structure (which keys a group allows,
 * one of two alternative keys, required keys), each key's type and range
 * (from the key table, models/scenkeys.c), unit conversion, resolving
 * names to catalog pointers, and FILE:LINE. What it must never do: decide
 * a rule between values or derive a quantity from them; those are
 * models/scenario.c's (scenario_finish), whose refusals name a key that
 * cfg_fail_rule places at its line. */
#include "io/scenario_cfg.h"
#include "models/reliability.h"
#include "models/scenario.h"
#include "models/throughput.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "io/catalog_cfg.h"
#include "io/cfg.h"
#include "io/site_calib_file.h"
#include "models/scenkeys.h"
#include "models/climate.h"
#include "models/cooling.h"
#include "sim/fsassert.h"
#include "sim/mem.h"
#include "sim/rng.h"

#include "io/scenario_cfg_int.h"

static void civil_from_days(int64_t z, char *buf, size_t n)
{
    /* civil_from_days (H. Hinnant's public-domain algorithm). */
    int64_t era, doe, yoe, y, doy, mp, d, m;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    snprintf(buf, n, "%04d-%02d-%02d", (int)(y + (m <= 2)), (int)m, (int)d);
}

/* A time given either as KEY_date ("YYYY-MM-DD") or KEY_rel (a number in
 * the unit scale_s, after the start); def_s when neither. Must lie inside
 * [0, horizon). */
int scfg_read_time(cfg_reader *r, const config_setting_t *g, const char *kdate,
                   const char *krel, double scale_s, const scen_sim *sim,
                   double def_s, double *out)
{
    config_setting_t *d = config_setting_get_member(g, kdate);
    config_setting_t *k = config_setting_get_member(g, krel);
    char first[16], last[16];
    int rc;

    civil_from_days(sim->start_day, first, sizeof first);
    civil_from_days(sim->start_day + (int64_t)ceil(sim->horizon_s / DAY_S) - 1,
                    last, sizeof last);
    if (d && k)
        return cfg_fail(r, g, krel,
                        "given together with %s (expected one "
                        "of them)",
                        kdate);
    if (d) {
        char buf[32];
        int64_t day;
        if ((rc = cfg_string(r, g, kdate, 1, NULL, buf, sizeof buf)) != SIM_OK)
            return rc;
        if (cfg_parse_date(buf, &day) != 0)
            return cfg_fail(r, d, NULL,
                            "not a date (got \"%s\", expected "
                            "\"YYYY-MM-DD\")",
                            buf);
        *out = (double)(day - sim->start_day) * DAY_S;
        if (*out < 0 || *out >= sim->horizon_s)
            return cfg_fail(r, d, NULL,
                            "date outside the simulation horizon "
                            "(got %s, expected %s .. %s)",
                            buf, first, last);
        return SIM_OK;
    }
    if (k) {
        if ((rc = num(r, g, krel, 1, 0, scale_s, out)) != SIM_OK)
            return rc;
        if (*out >= sim->horizon_s)
            return cfg_fail(r, k, NULL,
                            "after the simulation horizon (got "
                            "%g, expected < %g)",
                            *out / scale_s, sim->horizon_s / scale_s);
        return SIM_OK;
    }
    *out = def_s;
    return SIM_OK;
}

static int read_simulation(cfg_reader *r, const config_setting_t *root,
                           scenario *s)
{
    static const char *const keys[] = {"start_date", "horizon_days", "step_min",
                                       "seed",       "replications", NULL};
    config_setting_t *g;
    scen_sim *sim = &s->sim;
    long long seed;
    int rc;

    if ((rc = cfg_member(r, root, "simulation", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_string(r, g, "start_date", 1, NULL, sim->start_date,
                         sizeof sim->start_date)) != SIM_OK)
        return rc;
    if (cfg_parse_date(sim->start_date, &sim->start_day) != 0)
        return cfg_fail(r, config_setting_get_member(g, "start_date"), NULL,
                        "not a date (got \"%s\", expected \"YYYY-MM-DD\")",
                        sim->start_date);
    if ((rc = num(r, g, "horizon_days", 1, 0, DAY_S, &sim->horizon_s)) !=
            SIM_OK ||
        (rc = num(r, g, "step_min", 0, 0, 60.0, &sim->step_s)) != SIM_OK ||
        (rc = geti64(r, g, "seed", 0, 1, &seed)) != SIM_OK ||
        (rc = geti(r, g, "replications", 0, 1, &sim->replications)) != SIM_OK)
        return rc;
    sim->seed = (uint64_t)seed;
    return SIM_OK;
}

static int path_join(const scenario *s, const char *rel, char *out, size_t n)
{
    int w = rel[0] == '/' ? snprintf(out, n, "%s", rel)
                          : snprintf(out, n, "%s/%s", s->dir, rel);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* site.climate: exactly one of four weather sources. A weather file's path
 * is resolved against the scenario's folder and must be readable now, so
 * `check` refuses what `run` would fail on; the file itself is parsed by
 * io/climate_load.c when a run needs it. */
static int read_climate(cfg_reader *r, const config_setting_t *site,
                        scenario *s)
{
    static const char *const keys[] = {"normals",         "monthly_mean_c",
                                       "diurnal_range_k", "epw",
                                       "hourly_csv",      NULL};
    config_setting_t *g;
    scen_climate *c = &s->site.climate;
    int given = 0, rc;
    char rel[SCEN_PATH_MAX];
    const char *which[] = {"normals", "monthly_mean_c", "epw", "hourly_csv"};

    if ((rc = cfg_member(r, site, "climate", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, keys)) != SIM_OK)
        return rc;
    for (int i = 0; i < 4; i++)
        given += config_setting_get_member(g, which[i]) != NULL;
    if (given != 1)
        return cfg_fail(r, g, NULL,
                        "climate needs exactly one source (got "
                        "%d, expected one of normals, monthly_mean_c, epw, "
                        "hourly_csv)",
                        given);
    if (config_setting_get_member(g, "normals")) {
        /* The power model's built-in normals (models/climate.c) are the one
         * table; the default diurnal range is the mean of its monthly
         * ranges. */
        const climate_monthly *cn;
        double range = 0;
        if ((rc = cfg_string(r, g, "normals", 1, NULL, c->normals,
                             sizeof c->normals)) != SIM_OK)
            return rc;
        if (!(cn = climate_builtin(c->normals)))
            return cfg_fail(r, config_setting_get_member(g, "normals"), NULL,
                            "unknown built-in normals (got \"%s\", expected "
                            "one of: %s)",
                            c->normals, climate_builtin_names());
        c->kind = CLIMATE_NORMALS;
        snprintf(c->normals, sizeof c->normals, "%.31s", cn->name);
        memcpy(c->monthly_mean_c, cn->t_mean_c, sizeof c->monthly_mean_c);
        for (int m = 0; m < 12; m++)
            range += cn->t_range_k[m] / 12.0;
        return num(r, g, "diurnal_range_k", 0, range, 1, &c->diurnal_range_k);
    }
    if (config_setting_get_member(g, "monthly_mean_c")) {
        c->kind = CLIMATE_NORMALS;
        if ((rc = nums(r, g, "monthly_mean_c", 1, 12, 12, 1, c->monthly_mean_c,
                       NULL)) != SIM_OK)
            return rc;
        return num(r, g, "diurnal_range_k", 1, 0, 1, &c->diurnal_range_k);
    }
    if (config_setting_get_member(g, "diurnal_range_k"))
        return cfg_fail(r, g, "diurnal_range_k",
                        "only applies to normals "
                        "(got it with a weather file, expected no "
                        "diurnal_range_k)");
    c->kind =
        config_setting_get_member(g, "epw") ? CLIMATE_EPW : CLIMATE_HOURLY_CSV;
    {
        /* One file, or a list of files: one weather year each, drawn per
         * replication (issue 19.3). Every file is checked readable here
         * for the same reason as one. */
        const char *key = c->kind == CLIMATE_EPW ? "epw" : "hourly_csv";
        config_setting_t *v = config_setting_get_member(g, key);
        int list = config_setting_is_array(v) || config_setting_is_list(v);
        int n = list ? config_setting_length(v) : 1;
        if (list && (n < 1 || n > SCEN_WEATHER_MAX))
            return cfg_fail(r, v, NULL,
                            "wrong number of weather files (got %d, expected "
                            "1 to %d)",
                            n, SCEN_WEATHER_MAX);
        c->n_files = n;
        for (int i = 0; i < n; i++) {
            char *dst = i ? c->more[i - 1] : c->path;
            const config_setting_t *e =
                list ? config_setting_get_elem(v, (unsigned)i) : v;
            const char *str = config_setting_get_string(e);
            if (!str)
                return cfg_fail(r, e, NULL,
                                "wrong type (expected a file name \"...\" "
                                "or a list of them)");
            snprintf(rel, sizeof rel, "%s", str);
            if (path_join(s, rel, dst, SCEN_PATH_MAX) != 0)
                return cfg_fail(r, g, key, "path too long (got %zu characters)",
                                strlen(rel));
            if (access(dst, R_OK) != 0)
                return cfg_fail(r, e, NULL,
                                "cannot read the weather file (got \"%s\", "
                                "resolved to \"%s\"; relative paths start at "
                                "the scenario's folder)",
                                rel, dst);
        }
    }
    return SIM_OK;
}

static int read_site(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {
        "name",        "latitude_deg", "longitude_deg",
        "elevation_m", "utc_offset_h", "timezone",
        "climate",     "calibration",  NULL};
    config_setting_t *g;
    scen_site *st = &s->site;
    int rc;

    if ((rc = cfg_member(r, root, "site", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_string(r, g, "name", 1, NULL, st->name, sizeof st->name)) !=
            SIM_OK ||
        (rc = num(r, g, "latitude_deg", 1, 0, 1, &st->latitude_deg)) !=
            SIM_OK ||
        (rc = num(r, g, "longitude_deg", 1, 0, 1, &st->longitude_deg)) !=
            SIM_OK ||
        (rc = num(r, g, "elevation_m", 0, 0, 1, &st->elevation_m)) != SIM_OK ||
        (rc = num(r, g, "utc_offset_h", 0, round(st->longitude_deg / 15.0),
                  HOUR_S, &st->utc_offset_s)) != SIM_OK ||
        (rc = cfg_string(r, g, "timezone", 0, "", st->timezone,
                         sizeof st->timezone)) != SIM_OK ||
        (rc = cfg_string(r, g, "calibration", 0, "", st->calibration,
                         sizeof st->calibration)) != SIM_OK)
        return rc;
    /* site.calibration: read now, so `check` refuses what `run` would; the
     * file's own errors keep their FILE:LINE, a missing file is placed at
     * the key. */
    if (st->calibration[0]) {
        char p[SCEN_PATH_MAX + 260];
        sim_err e2;
        FILE *f;
        if (path_join(s, st->calibration, p, sizeof p) != 0 ||
            !(f = fopen(p, "r")))
            return cfg_fail(r, config_setting_get_member(g, "calibration"),
                            NULL,
                            "cannot read the site calibration (got \"%s\", "
                            "resolved to \"%s\"; relative paths start at the "
                            "scenario's folder)",
                            st->calibration, p);
        fclose(f);
        if ((rc = site_calib_load(p, &st->calib, &e2)) != SIM_OK) {
            *r->err = e2;
            return rc;
        }
    }
    return read_climate(r, g, s);
}

/* A module's cooling parameters: the chosen design's defaults
 * (models/cooling.c), each replaced by its key when written. The water
 * figures' defaults depend on the design, so they come from it rather than
 * the key table; the rule tying fixed_frac to the design's PUE is
 * scenario_finish's. */
static int read_module_cooling(cfg_reader *r, const config_setting_t *e,
                               scen_module *m)
{
    cooling_cfg *c = &m->cool;
    int rc;
    cooling_cfg_default(c, (cooling_type)m->cooling);
    if ((rc = num(r, e, "cooling_fixed_frac", 0, c->fixed_frac, 1,
                  &c->fixed_frac)) != SIM_OK ||
        (rc = num(r, e, "cooling_wue_evap_l_per_kwh", 0, c->wue_evap_l_kwh, 1,
                  &c->wue_evap_l_kwh)) != SIM_OK ||
        (rc = num(r, e, "cooling_wue_dry_l_per_kwh", 0, c->wue_dry_l_kwh, 1,
                  &c->wue_dry_l_kwh)) != SIM_OK ||
        (rc = num(r, e, "cooling_evap_threshold_c", 0, c->t_evap_c, 1,
                  &c->t_evap_c)) != SIM_OK ||
        (rc = num(r, e, "cooling_adiabatic_wb_limit_c", 0, c->t_wb_limit_c, 1,
                  &c->t_wb_limit_c)) != SIM_OK ||
        (rc = num(r, e, "cooling_chiller_ramp_k", 0, c->chiller_ramp_k, 1,
                  &c->chiller_ramp_k)) != SIM_OK ||
        (rc = num(r, e, "cooling_chiller_cop", 0, c->chiller_cop, 1,
                  &c->chiller_cop)) != SIM_OK)
        return rc;
    return SIM_OK;
}

/* modules: names, the catalog references (type, hosted system) resolved
 * to pointers, count, commissioning time and units as written (0 = not
 * written). The module-fit rule and the GPUs and IT power that follow are
 * scenario_finish's. */
static int read_modules(cfg_reader *r, const config_setting_t *root,
                        scenario *s)
{
    static const char *const keys[] = {"name",
                                       "type",
                                       "count",
                                       "commission_date",
                                       "commission_days",
                                       "hosts",
                                       "units",
                                       "cooling",
                                       "cooling_fixed_frac",
                                       "cooling_wue_evap_l_per_kwh",
                                       "cooling_wue_dry_l_per_kwh",
                                       "cooling_evap_threshold_c",
                                       "cooling_adiabatic_wb_limit_c",
                                       "cooling_chiller_ramp_k",
                                       "cooling_chiller_cop",
                                       NULL};
    /* The first three cooling_type names, in enum order (cooling.h). */
    static const char *const coolings[] = {"air-economizer", "adiabatic",
                                           "liquid-dry-cooler", NULL};
    config_setting_t *l;
    char names[1024];
    int rc, n;

    if ((rc = cfg_member(r, root, "modules", CONFIG_TYPE_LIST, 1, &l)) !=
        SIM_OK)
        return rc;
    n = config_setting_length(l);
    if (n < 1)
        return cfg_fail(r, l, NULL,
                        "no modules (got an empty list, expected "
                        "at least one module group)");
    s->modules = sim_xcalloc((size_t)n, sizeof *s->modules);
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        scen_module *m = &s->modules[s->n_modules];
        char type[32], host[32];

        if (!config_setting_is_group(e))
            return cfg_fail(r, e, NULL,
                            "wrong type (expected a group { name "
                            "= \"...\"; type = \"...\"; ... })");
        if ((rc = cfg_check_keys(r, e, keys)) != SIM_OK ||
            (rc = cfg_string(r, e, "name", 1, NULL, m->name, sizeof m->name)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "type", 1, NULL, type, sizeof type)) !=
                SIM_OK)
            return rc;
        if (!(m->type = catalog_module(s->cat, type))) {
            catalog_names(s->cat, "modules", names, sizeof names);
            return cfg_fail(r, config_setting_get_member(e, "type"), NULL,
                            "unknown module type (got \"%s\", expected one "
                            "of: %s; define new types in catalog.modules)",
                            type, names);
        }
        if ((rc = geti(r, e, "count", 0, 1, &m->count)) != SIM_OK ||
            (rc = cfg_string(r, e, "hosts", 0, m->type->hosts[0], host,
                             sizeof host)) != SIM_OK ||
            (rc = scfg_read_time(r, e, "commission_date", "commission_days",
                                 DAY_S, &s->sim, 0, &m->commission_t_s)) !=
                SIM_OK ||
            (rc = cfg_choice(r, e, "cooling", 0,
                             m->type->liquid ? COOLING_LIQUID_DRY
                                             : COOLING_AIR_ECONOMIZER,
                             coolings, &m->cooling)) != SIM_OK)
            return rc;
        if (!(m->system = catalog_system(s->cat, host))) {
            catalog_names(s->cat, "systems", names, sizeof names);
            return cfg_fail(r, config_setting_get_member(e, "hosts"), NULL,
                            "unknown system (got \"%s\", expected one of: "
                            "%s)",
                            host, names);
        }
        /* 0 = as many as fit: the module-fit rule is scenario_finish's. */
        if ((rc = geti(r, e, "units", 0, 0, &m->units)) != SIM_OK ||
            (rc = read_module_cooling(r, e, m)) != SIM_OK)
            return rc;
        s->n_modules++;
    }
    return SIM_OK;
}

static int module_index(const scenario *s, const char *name, size_t *out)
{
    for (size_t i = 0; i < s->n_modules; i++)
        if (strcasecmp(s->modules[i].name, name) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

/* fabric: topology defaults, then links between module groups named by
 * the modules already read (names resolve to indices here; that a link
 * joins two different groups is scenario_check_names'). A link's latency
 * and oversubscription default to the fabric's. */
static int read_fabric(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {"topology", "oversubscription",
                                       "latency_us", "links", NULL};
    static const char *const lkeys[] = {
        "from", "to", "bandwidth_gbps", "latency_us", "oversubscription", NULL};
    static const char *const topos[] = {"fat-tree", "rail-optimized",
                                        "dragonfly", "star", NULL};
    config_setting_t *g, *l;
    scen_fabric *f = &s->fabric;
    int rc, topo;

    f->topology = TOPO_FAT_TREE;
    f->oversubscription = 1.0;
    f->latency_s = DEF_FABRIC_LATENCY_US * 1e-6;
    if ((rc = cfg_member(r, root, "fabric", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_choice(r, g, "topology", 0, TOPO_FAT_TREE, topos, &topo)) !=
            SIM_OK ||
        (rc = num(r, g, "oversubscription", 0, 1.0, 1, &f->oversubscription)) !=
            SIM_OK ||
        (rc = num(r, g, "latency_us", 0, DEF_FABRIC_LATENCY_US, 1e-6,
                  &f->latency_s)) != SIM_OK ||
        (rc = cfg_member(r, g, "links", CONFIG_TYPE_LIST, 0, &l)) != SIM_OK)
        return rc;
    f->topology = (fabric_topology)topo;
    if (!l)
        return SIM_OK;
    f->links =
        sim_xcalloc((size_t)config_setting_length(l) + 1, sizeof *f->links);
    for (int i = 0; i < config_setting_length(l); i++) {
        config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        scen_link *k = &f->links[f->n_links];
        char a[32], b[32], names[1024] = "";
        if (!config_setting_is_group(e))
            return cfg_fail(r, e, NULL,
                            "wrong type (expected a group { from "
                            "= \"...\"; to = \"...\"; ... })");
        if ((rc = cfg_check_keys(r, e, lkeys)) != SIM_OK ||
            (rc = cfg_string(r, e, "from", 1, NULL, a, sizeof a)) != SIM_OK ||
            (rc = cfg_string(r, e, "to", 1, NULL, b, sizeof b)) != SIM_OK)
            return rc;
        for (size_t m = 0; m < s->n_modules; m++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", m ? ", " : "", s->modules[m].name);
        if (module_index(s, a, &k->a) != 0)
            return cfg_fail(r, config_setting_get_member(e, "from"), NULL,
                            "unknown module (got \"%s\", expected one of: "
                            "%s)",
                            a, names);
        if (module_index(s, b, &k->b) != 0)
            return cfg_fail(r, config_setting_get_member(e, "to"), NULL,
                            "unknown module (got \"%s\", expected one of: "
                            "%s)",
                            b, names);
        if ((rc = num(r, e, "bandwidth_gbps", 1, 0, 1e9, &k->bandwidth_bps)) !=
                SIM_OK ||
            (rc = num(r, e, "latency_us", 0, f->latency_s * 1e6, 1e-6,
                      &k->latency_s)) != SIM_OK ||
            (rc = num(r, e, "oversubscription", 0, f->oversubscription, 1,
                      &k->oversubscription)) != SIM_OK)
            return rc;
        f->n_links++;
    }
    return SIM_OK;
}

static int read_policy(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {"shortage",
                                       "gpu_power_floor_pct",
                                       "gpu_power_ramp_up_w_per_s",
                                       "gpu_power_ramp_down_w_per_s",
                                       "gpu_power_ramp_down_hysteresis_s",
                                       "power_dynamics",
                                       "ramp_limit_mw_per_s",
                                       NULL};
    config_setting_t *g;
    int rc, p, pd_on = 1;

    s->policy = DISPATCH_POLICY_THROTTLE;
    s->gpu_floor_frac = 0.0;
    s->ramp_limit_w_per_s = 0.0;
    s->gpu_ramp_up_w_per_s = 0.0;
    s->gpu_ramp_down_w_per_s = 0.0;
    s->gpu_ramp_down_hyst_s = 0.0;
    s->power_dynamics_off = 0;
    if ((rc = cfg_member(r, root, "policy", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_choice(r, g, "shortage", 0, DISPATCH_POLICY_THROTTLE,
                         dispatch_policy_names, &p)) != SIM_OK ||
        (rc = num(r, g, "gpu_power_floor_pct", 0, 0.0, 0.01,
                  &s->gpu_floor_frac)) != SIM_OK ||
        (rc = num(r, g, "gpu_power_ramp_up_w_per_s", 0, 0.0, 1.0,
                  &s->gpu_ramp_up_w_per_s)) != SIM_OK ||
        (rc = num(r, g, "gpu_power_ramp_down_w_per_s", 0, 0.0, 1.0,
                  &s->gpu_ramp_down_w_per_s)) != SIM_OK ||
        (rc = num(r, g, "gpu_power_ramp_down_hysteresis_s", 0, 0.0, 1.0,
                  &s->gpu_ramp_down_hyst_s)) != SIM_OK ||
        (rc = cfg_bool(r, g, "power_dynamics", 0, 1, &pd_on)) != SIM_OK ||
        (rc = num(r, g, "ramp_limit_mw_per_s", 0, 0.0, 1e6,
                  &s->ramp_limit_w_per_s)) != SIM_OK)
        return rc;
    s->policy = (dispatch_policy)p;
    s->power_dynamics_off = !pd_on;
    return SIM_OK;
}

/* power: GPU and system power by step phase and the power-cap curve
 * (models/load.h). Every default is the key table's, which cites or marks
 * it as an assumption; the rules between keys are scenario_finish's. */
static int read_power(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {"gpu_compute_frac_bf16",
                                       "gpu_compute_frac_fp8",
                                       "gpu_compute_frac_fp4",
                                       "gpu_comm_frac",
                                       "gpu_bubble_frac",
                                       "gpu_checkpoint_frac",
                                       "gpu_idle_frac",
                                       "nongpu_train_frac",
                                       "nongpu_idle_frac",
                                       "module_overhead_frac",
                                       "cap_curve",
                                       NULL};
    static const char *const ckeys[] = {"min_cap_frac", "knee_cap_frac",
                                        "throughput_at_min", NULL};
    static const char *const fmt_keys[NUM_FMT_N] = {"gpu_compute_frac_bf16",
                                                    "gpu_compute_frac_fp8",
                                                    "gpu_compute_frac_fp4"};
    config_setting_t *g, *cg = NULL;
    load_cfg *p = &s->power;
    load_cap_curve *c = &s->cap_curve;
    int rc;

    load_cfg_default(p, 0);
    load_cap_curve_default(c);
    if ((rc = cfg_member(r, root, "power", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK)
        return rc;
    for (int f = 0; f < NUM_FMT_N; f++)
        if ((rc = num(r, g, fmt_keys[f], 0, p->u_compute[f], 1,
                      &p->u_compute[f])) != SIM_OK)
            return rc;
    if ((rc = num(r, g, "gpu_comm_frac", 0, p->u_comm, 1, &p->u_comm)) !=
            SIM_OK ||
        (rc = num(r, g, "gpu_bubble_frac", 0, p->u_bubble, 1, &p->u_bubble)) !=
            SIM_OK ||
        (rc = num(r, g, "gpu_checkpoint_frac", 0, p->u_ckpt, 1, &p->u_ckpt)) !=
            SIM_OK ||
        (rc = num(r, g, "gpu_idle_frac", 0, p->idle_gpu_frac, 1,
                  &p->idle_gpu_frac)) != SIM_OK ||
        (rc = num(r, g, "nongpu_train_frac", 0, p->nongpu_train_frac, 1,
                  &p->nongpu_train_frac)) != SIM_OK ||
        (rc = num(r, g, "nongpu_idle_frac", 0, p->nongpu_idle_frac, 1,
                  &p->nongpu_idle_frac)) != SIM_OK ||
        (rc = num(r, g, "module_overhead_frac", 0, p->module_overhead_frac, 1,
                  &p->module_overhead_frac)) != SIM_OK ||
        (rc = cfg_member(r, g, "cap_curve", CONFIG_TYPE_GROUP, 0, &cg)) !=
            SIM_OK)
        return rc;
    if (cg &&
        ((rc = cfg_check_keys(r, cg, ckeys)) != SIM_OK ||
         (rc = num(r, cg, "min_cap_frac", 0, c->min_x, 1, &c->min_x)) !=
             SIM_OK ||
         (rc = num(r, cg, "knee_cap_frac", 0, c->knee_x, 1, &c->knee_x)) !=
             SIM_OK ||
         (rc = num(r, cg, "throughput_at_min", 0, c->r_min, 1, &c->r_min)) !=
             SIM_OK))
        return rc;
    return SIM_OK;
}

static int read_reliability(cfg_reader *r, const config_setting_t *root,
                            scenario *s)
{
    static const char *const keys[] = {"failures",
                                       "interruptions_per_gpu_hour",
                                       "node_repair_h",
                                       "module_mtbf_days",
                                       "module_mttr_h",
                                       "gpu_speed_spread_pct",
                                       NULL};
    scen_reliability *y = &s->reliability;
    config_setting_t *g;
    int rc;

    y->failures = 1;
    y->rate_per_gpu_s = REL_LLAMA3_RATE_PER_GPU_S;
    y->node_repair_s = REL_NODE_REPAIR_S_DEFAULT;
    y->module_mtbf_s = REL_MODULE_MTBF_S_DEFAULT;
    y->module_mttr_s = REL_MODULE_MTTR_S_DEFAULT;
    y->gpu_speed_spread = REL_GPU_SPEED_SPREAD_PCT_DEFAULT / 100.0;
    if ((rc = cfg_member(r, root, "reliability", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_bool(r, g, "failures", 0, 1, &y->failures)) != SIM_OK ||
        (rc = num(r, g, "interruptions_per_gpu_hour", 0,
                  REL_LLAMA3_RATE_PER_GPU_S * 3600.0, 1.0 / 3600.0,
                  &y->rate_per_gpu_s)) != SIM_OK ||
        (rc = num(r, g, "node_repair_h", 0, REL_NODE_REPAIR_S_DEFAULT / 3600.0,
                  3600.0, &y->node_repair_s)) != SIM_OK ||
        (rc = num(r, g, "module_mtbf_days", 0,
                  REL_MODULE_MTBF_S_DEFAULT / 86400.0, 86400.0,
                  &y->module_mtbf_s)) != SIM_OK ||
        (rc = num(r, g, "module_mttr_h", 0, REL_MODULE_MTTR_S_DEFAULT / 3600.0,
                  3600.0, &y->module_mttr_s)) != SIM_OK ||
        (rc = num(r, g, "gpu_speed_spread_pct", 0,
                  REL_GPU_SPEED_SPREAD_PCT_DEFAULT, 0.01,
                  &y->gpu_speed_spread)) != SIM_OK)
        return rc;
    return SIM_OK;
}

/* costs: every key has a static default in the key table (models/scenkeys.c,
 * with its source or "assumption"), so a scenario without the group is
 * costed with the documented defaults. Scales turn the file's units into
 * SI: USD/W from USD/kW or USD/W, USD/J from USD/kWh, seconds from years. */
static int read_costs(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    config_setting_t *g;
    int rc;
    /* The table's defaults apply with or without the group; the key list
     * comes from models/cost.c's table, so the two cannot disagree. */
    if ((rc = cfg_member(r, root, "costs", CONFIG_TYPE_GROUP, 0, &g)) != SIM_OK)
        return rc;
    if (g) {
        const char *keys[64];
        FS_ASSERT(cost_n_keys < 64);
        for (size_t i = 0; i < cost_n_keys; i++)
            keys[i] = cost_keys[i].key;
        keys[cost_n_keys] = NULL;
        if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK)
            return rc;
    }
    for (size_t i = 0; i < cost_n_keys; i++) {
        const cost_key *f = &cost_keys[i];
        double *out = (double *)((char *)&s->costs + f->off);
        const scen_key *k;
        char path[64];
        snprintf(path, sizeof path, "costs.%s", f->key);
        k = scen_key_find(path);
        if (!k)
            return cfg_fail(r, root, "costs",
                            "internal error: key %s is not in "
                            "models/scenkeys.c",
                            path);
        if (g) {
            if ((rc = num(r, g, f->key, 0, k->def, f->scale, out)) != SIM_OK)
                return rc;
        } else {
            *out = k->def * f->scale;
        }
    }
    return SIM_OK;
}

/* A models/ rule's verdict rc: placed at FILE:LINE when it refused. */
static int rule(cfg_reader *r, const config_setting_t *root, int rc,
                const sim_err *why)
{
    return rc == SIM_OK ? SIM_OK : cfg_fail_rule(r, root, why);
}

/* "--set: KEY: unknown key (got 'LEAF', expected one of: ...)", the
 * keys of the same group from the key table. */
static int unknown_set_key(const char *key, sim_err *err)
{
    char norm[300], list[1500] = "";
    const char *dot;
    size_t gl, used = 0;
    scen_key_normalize(key, norm, sizeof norm);
    dot = strrchr(norm, '.');
    gl = dot ? (size_t)(dot - norm) : 0;
    for (size_t i = 0; i < scen_n_keys; i++) {
        const char *p = scen_keys[i].path, *d = strrchr(p, '.');
        size_t pl = d ? (size_t)(d - p) : 0;
        if (pl == gl && strncmp(p, norm, gl) == 0 && used + 64 < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                     used ? ", " : "", d ? d + 1 : p);
    }
    return sim_err_set(err, SIM_ECONFIG, "--set", 0,
                       "%s: unknown key (got '%s', expected one of: %s; "
                       "docs/scenario-reference.md)",
                       key, dot ? strrchr(key, '.') + 1 : key,
                       used ? list : "a key of docs/scenario-reference.md");
}

/* The whole load as one sequence with a single `fail:` exit, so that no
 * path returns a partial scenario: parse, overrides (each key checked
 * against the key table first, so a typo names the valid keys), the
 * scenario's catalog group on a private copy, the groups in dependency
 * order (modules before the links and jobs that name them), the model's
 * rules (scenario_finish), and last the resolved text that is stored with
 * results. */
int scenario_load(const char *path, const catalog *cat,
                  const char *const *overrides, size_t n_overrides,
                  scenario **out, sim_err *err)
{
    static const char *const keys[] = {
        "description", "site",   "modules",     "fabric",     "energy",
        "jobs",        "policy", "reliability", "simulation", "catalog",
        "costs",       "power",  NULL};
    cfg_reader r;
    sim_err why;
    scenario *s = NULL;
    config_setting_t *root, *cg;
    int rc;

    sim_err_clear(err);
    if (!out)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "scenario_load: out is "
                           "NULL");
    *out = NULL;
    if (!path || !cat || (n_overrides && !overrides))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "scenario_load: NULL "
                           "argument");
    if ((rc = cfg_read(&r, path, err)) != SIM_OK) {
        cfg_reader_free(&r);
        return rc;
    }
    for (size_t i = 0; i < n_overrides; i++) {
        /* --set takes the keys of the table (models/scenkeys.h); catalog
         * overrides follow the catalog's own files. */
        const char *eq = strchr(overrides[i], '=');
        char key[300];
        size_t kl = eq ? (size_t)(eq - overrides[i]) : 0;
        if (eq && kl < sizeof key && strncmp(overrides[i], "catalog.", 8)) {
            memcpy(key, overrides[i], kl);
            key[kl] = '\0';
            if (!scen_key_find(key)) {
                rc = unknown_set_key(key, err);
                goto fail;
            }
        }
        if ((rc = cfg_override(&r, overrides[i])) != SIM_OK)
            goto fail;
    }
    root = config_root_setting(&r.cfg);
    if (config_setting_length(root) == 0) {
        rc = sim_err_set(err, SIM_ECONFIG, path, 1,
                         "empty scenario (got no "
                         "settings, expected the groups site, modules, "
                         "energy, jobs and simulation)");
        goto fail;
    }
    s = sim_xcalloc(1, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    {
        const char *slash = strrchr(path, '/');
        if (!slash)
            snprintf(s->dir, sizeof s->dir, ".");
        else
            snprintf(s->dir, sizeof s->dir, "%.*s",
                     slash == path ? 1 : (int)(slash - path), path);
    }
    s->cat = catalog_clone(cat);
    if ((rc = cfg_check_keys(&r, root, keys)) != SIM_OK ||
        (rc = cfg_string(&r, root, "description", 0, "", s->description,
                         sizeof s->description)) != SIM_OK ||
        (rc = cfg_member(&r, root, "catalog", CONFIG_TYPE_GROUP, 0, &cg)) !=
            SIM_OK)
        goto fail;
    if (cg && ((rc = catalog_cfg_apply(&r, cg, s->cat)) != SIM_OK ||
               (rc = catalog_cfg_finish(&r, cg, s->cat)) != SIM_OK))
        goto fail;
    if ((rc = read_simulation(&r, root, s)) != SIM_OK ||
        (rc = read_site(&r, root, s)) != SIM_OK ||
        (rc = read_modules(&r, root, s)) != SIM_OK ||
        (rc = rule(&r, root, scenario_check_names(s, &why), &why)) != SIM_OK ||
        (rc = read_fabric(&r, root, s)) != SIM_OK ||
        (rc = scfg_read_energy(&r, root, s)) != SIM_OK ||
        (rc = scfg_read_jobs(&r, root, s)) != SIM_OK ||
        (rc = read_policy(&r, root, s)) != SIM_OK ||
        (rc = read_power(&r, root, s)) != SIM_OK ||
        (rc = read_reliability(&r, root, s)) != SIM_OK ||
        (rc = read_costs(&r, root, s)) != SIM_OK)
        goto fail;
    /* The model's rules, its refusal placed at the key it names. */
    if ((rc = rule(&r, root, scenario_finish(s, &why), &why)) != SIM_OK)
        goto fail;
    if (!(s->resolved_text = cfg_write_text(&r))) {
        rc = sim_err_set(err, SIM_EIO, path, 0,
                         "cannot write the resolved "
                         "configuration");
        goto fail;
    }
    cfg_reader_free(&r);
    *out = s;
    return SIM_OK;
fail:
    scenario_free(s);
    cfg_reader_free(&r);
    return rc;
}
