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
#include "models/scenkeys.h"
#include "models/climate.h"
#include "sim/fsassert.h"
#include "sim/mem.h"
#include "sim/rng.h"

#define DAY_S 86400.0
#define HOUR_S 3600.0
#define MW 1e6
#define MWH_J 3.6e9
#define G_PER_KWH (1e-3 / 3.6e6)
#define USD_PER_MWH (1.0 / 3.6e9)
#define YEAR_S (365.25 * 86400.0)

/* Defaults that are this loader's own (documented as assumptions in
 * docs/scenario-reference.md). */
/* Defaults that are not static numbers of models/scenkeys.c (read where a
 * computed default needs them). */
#define DEF_FABRIC_LATENCY_US 2.0

/* ---- every key through the key table (models/scenkeys.h) ----
 *
 * Ranges, whether a key is always required and static defaults come from
 * the table; a call passes only what depends on the file (a key required
 * in this branch, a default computed from the catalog or another key).
 * A key the loader reads that the table lacks is a programming error,
 * reported as one (tests/test_scenkeys.c reads every key). */
static const scen_key *row(cfg_reader *r, const config_setting_t *g,
                           const char *key)
{
    char path[300];
    const scen_key *k;
    size_t n;
    cfg_path(g, path, sizeof path);
    n = strlen(path);
    snprintf(path + n, sizeof path - n, "%s%s", n ? "." : "", key);
    k = scen_key_find(path);
    if (!k)
        cfg_fail(r, g, key,
                 "internal error: key %s is not in models/scenkeys.c", path);
    return k;
}

static double def_of(const scen_key *k, double def)
{
    return isnan(k->def) ? def : k->def;
}

/* long long of a table bound (2^63 as a double is past LLONG_MAX). */
static long long ll_of(double x)
{
    return x >= 9.2e18 ? LLONG_MAX : x <= -9.2e18 ? LLONG_MIN : (long long)x;
}

static int num(cfg_reader *r, const config_setting_t *g, const char *key,
               int req, double def, double scale, double *out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_double(r, g, key, req || k->required, def_of(k, def), k->lo,
                      k->hi, scale, out);
}

static int geti64(cfg_reader *r, const config_setting_t *g, const char *key,
                  int req, long long def, long long *out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_int(r, g, key, req || k->required,
                   isnan(k->def) ? def : ll_of(k->def), ll_of(k->lo),
                   ll_of(k->hi), out);
}

static int geti(cfg_reader *r, const config_setting_t *g, const char *key,
                int req, long long def, int *out)
{
    long long v;
    int rc = geti64(r, g, key, req, def, &v);
    if (rc == SIM_OK)
        *out = (int)v;
    return rc;
}

static int nums(cfg_reader *r, const config_setting_t *g, const char *key,
                int req, size_t n, size_t cap, double scale, double *out,
                size_t *n_out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_doubles(r, g, key, req || k->required, n, cap, k->lo, k->hi,
                       scale, out, n_out);
}

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
static int read_time(cfg_reader *r, const config_setting_t *g,
                     const char *kdate, const char *krel, double scale_s,
                     const scen_sim *sim, double def_s, double *out)
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
        const char *key = c->kind == CLIMATE_EPW ? "epw" : "hourly_csv";
        if ((rc = cfg_string(r, g, key, 1, NULL, rel, sizeof rel)) != SIM_OK)
            return rc;
        if (path_join(s, rel, c->path, sizeof c->path) != 0)
            return cfg_fail(r, g, key, "path too long (got %zu characters)",
                            strlen(rel));
        if (access(c->path, R_OK) != 0)
            return cfg_fail(r, config_setting_get_member(g, key), NULL,
                            "cannot read the weather file (got \"%s\", "
                            "resolved to \"%s\"; relative paths start at the "
                            "scenario's folder)",
                            rel, c->path);
    }
    return SIM_OK;
}

static int read_site(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {
        "name",         "latitude_deg", "longitude_deg", "elevation_m",
        "utc_offset_h", "timezone",     "climate",       NULL};
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
                         sizeof st->timezone)) != SIM_OK)
        return rc;
    return read_climate(r, g, s);
}

/* modules: names, the catalog references (type, hosted system) resolved
 * to pointers, count, commissioning time and units as written (0 = not
 * written). The module-fit rule and the GPUs and IT power that follow are
 * scenario_finish's. */
static int read_modules(cfg_reader *r, const config_setting_t *root,
                        scenario *s)
{
    static const char *const keys[] = {
        "name",  "type",  "count", "commission_date", "commission_days",
        "hosts", "units", NULL};
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
            (rc = read_time(r, e, "commission_date", "commission_days", DAY_S,
                            &s->sim, 0, &m->commission_t_s)) != SIM_OK)
            return rc;
        if (!(m->system = catalog_system(s->cat, host))) {
            catalog_names(s->cat, "systems", names, sizeof names);
            return cfg_fail(r, config_setting_get_member(e, "hosts"), NULL,
                            "unknown system (got \"%s\", expected one of: "
                            "%s)",
                            host, names);
        }
        /* 0 = as many as fit: the module-fit rule is scenario_finish's. */
        if ((rc = geti(r, e, "units", 0, 0, &m->units)) != SIM_OK)
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

/* Carbon and cost keys every source accepts, defaulting to the catalog. */
static int read_carbon_cost(cfg_reader *r, const config_setting_t *g,
                            const source_defaults *d, double *carbon,
                            double *cost)
{
    int rc = num(r, g, "gco2_per_kwh", 0, d->carbon_kg_per_j / G_PER_KWH,
                 G_PER_KWH, carbon);
    if (rc != SIM_OK)
        return rc;
    return num(r, g, "usd_per_mwh", 0, d->cost_usd_per_j / USD_PER_MWH,
               USD_PER_MWH, cost);
}

/* energy.solar: the inverter may be given as a limit or as a DC/AC ratio
 * (not both); the one not given is left 0 for scenario_finish to derive,
 * because the rule that ties them (and the ratio's range) is the model's.
 * Tilt and azimuth default from the site (latitude tilt facing the
 * equator). */
static int read_solar(cfg_reader *r, const config_setting_t *g, scenario *s)
{
    static const char *const keys[] = {"capacity_mw",
                                       "tracking",
                                       "sky_model",
                                       "tilt_deg",
                                       "azimuth_deg",
                                       "losses_pct",
                                       "dc_ac_ratio",
                                       "inverter_limit_mw",
                                       "inverter_eff",
                                       "temp_coeff_pct_per_k",
                                       "degradation_pct_per_yr",
                                       "gco2_per_kwh",
                                       "usd_per_mwh",
                                       NULL};
    static const char *const tracks[] = {"none", "single-axis", NULL};
    /* In the order of solar_sky (models/solar.h). */
    static const char *const skies[] = {"perez", "isotropic", NULL};
    const source_defaults *d = catalog_source(s->cat, SRC_SOLAR);
    scen_solar *p = &s->energy.solar;
    int rc, tr;

    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = num(r, g, "capacity_mw", 1, 0, MW,
                  &s->energy.capacity_w[SRC_SOLAR])) != SIM_OK ||
        (rc = cfg_choice(r, g, "tracking", 0, TRACK_SINGLE_AXIS, tracks,
                         &tr)) != SIM_OK)
        return rc;
    p->tracking = (solar_tracking)tr;
    if ((rc = cfg_choice(r, g, "sky_model", 0, 0, skies, &p->sky_model)) !=
        SIM_OK)
        return rc;
    if ((rc = num(r, g, "tilt_deg", 0,
                  tr == TRACK_NONE ? fabs(s->site.latitude_deg) : 0, 1,
                  &p->tilt_deg)) != SIM_OK ||
        (rc = num(r, g, "azimuth_deg", 0, s->site.latitude_deg >= 0 ? 180 : 0,
                  1, &p->azimuth_deg)) != SIM_OK ||
        (rc = num(r, g, "losses_pct", 0, d->losses * 100, 0.01, &p->losses)) !=
            SIM_OK ||
        (rc = num(r, g, "inverter_eff", 0, d->inverter_eff, 1,
                  &p->inverter_eff)) != SIM_OK ||
        (rc = num(r, g, "temp_coeff_pct_per_k", 0, d->temp_coeff_per_k * 100,
                  0.01, &p->temp_coeff_per_k)) != SIM_OK ||
        (rc = num(r, g, "degradation_pct_per_yr", 0,
                  d->degradation_per_s * YEAR_S * 100, 0.01 / YEAR_S,
                  &p->degradation_per_s)) != SIM_OK ||
        (rc = read_carbon_cost(r, g, d, &s->energy.carbon_kg_per_j[SRC_SOLAR],
                               &s->energy.cost_usd_per_j[SRC_SOLAR])) != SIM_OK)
        return rc;
    if (config_setting_get_member(g, "inverter_limit_mw")) {
        if (config_setting_get_member(g, "dc_ac_ratio"))
            return cfg_fail(r, g, "inverter_limit_mw",
                            "given together with "
                            "dc_ac_ratio (expected one of them)");
        if ((rc = num(r, g, "inverter_limit_mw", 1, 0, MW,
                      &p->inverter_limit_w)) != SIM_OK)
            return rc;
        p->dc_ac_ratio = 0; /* derived by scenario_finish */
    } else {
        if ((rc = num(r, g, "dc_ac_ratio", 0, d->dc_ac_ratio, 1,
                      &p->dc_ac_ratio)) != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

/* energy.wind: a plant of one catalog turbine type (models/wind.h). */
static int read_wind(cfg_reader *r, const config_setting_t *g, scenario *s)
{
    static const char *const keys[] = {
        "capacity_mw",  "hub_height_m", "shear_exponent",
        "turbine",      "availability", "wake_loss_pct",
        "gco2_per_kwh", "usd_per_mwh",  NULL};
    const source_defaults *d = catalog_source(s->cat, SRC_WIND);
    scen_wind *w = &s->energy.wind;
    const wind_curve *t;
    char name[48], names[512];
    int rc;

    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = num(r, g, "capacity_mw", 1, 0, MW,
                  &s->energy.capacity_w[SRC_WIND])) != SIM_OK ||
        (rc = num(r, g, "hub_height_m", 0, d->hub_height_m, 1,
                  &w->hub_height_m)) != SIM_OK ||
        (rc = num(r, g, "shear_exponent", 0, d->shear_exponent, 1,
                  &w->shear_exponent)) != SIM_OK ||
        (rc = num(r, g, "availability", 0, d->availability, 1,
                  &w->availability)) != SIM_OK ||
        (rc = num(r, g, "wake_loss_pct", 0, d->wake_loss * 100, 0.01,
                  &w->wake_loss)) != SIM_OK ||
        (rc = cfg_string(r, g, "turbine", 0, d->turbine, name, sizeof name)) !=
            SIM_OK ||
        (rc = read_carbon_cost(r, g, d, &s->energy.carbon_kg_per_j[SRC_WIND],
                               &s->energy.cost_usd_per_j[SRC_WIND])) != SIM_OK)
        return rc;
    if (!(t = catalog_turbine(s->cat, name))) {
        catalog_names(s->cat, "turbines", names, sizeof names);
        const config_setting_t *k = config_setting_get_member(g, "turbine");
        return cfg_fail(r, k ? k : g, k ? NULL : "turbine",
                        "unknown turbine (got \"%s\", expected one of: %s)",
                        name, names);
    }
    w->turbine = *t;
    return SIM_OK;
}

/* energy.battery.thermal: the enclosure model (models/battery.h). An
 * absent group is the default ambient-rise enclosure. */
static int read_battery_thermal(cfg_reader *r, const config_setting_t *bg,
                                scen_battery *b)
{
    static const char *const keys[] = {
        "mode", "rise_c", "setpoint_c", "hvac_cop", "ua_w_per_k_per_mwh", NULL};
    /* Index + 1 is the battery_thermal value (FIXED is not offered: a
     * site's packs always live in some enclosure). */
    static const char *const modes[] = {"ambient-rise", "hvac", NULL};
    config_setting_t *g = NULL;
    int rc, mode = 0;
    double ua_per_mwh = 15.0;
    b->rise_c = 3.0;
    b->setpoint_c = 25.0;
    b->hvac_cop = 3.0;
    if ((rc = cfg_member(r, bg, "thermal", CONFIG_TYPE_GROUP, 0, &g)) != SIM_OK)
        return rc;
    if (g &&
        ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
         (rc = cfg_choice(r, g, "mode", 0, 0, modes, &mode)) != SIM_OK ||
         (rc = num(r, g, "rise_c", 0, 3.0, 1, &b->rise_c)) != SIM_OK ||
         (rc = num(r, g, "setpoint_c", 0, 25.0, 1, &b->setpoint_c)) != SIM_OK ||
         (rc = num(r, g, "hvac_cop", 0, 3.0, 1, &b->hvac_cop)) != SIM_OK ||
         (rc = num(r, g, "ua_w_per_k_per_mwh", 0, 15.0, 1, &ua_per_mwh)) !=
             SIM_OK))
        return rc;
    b->thermal_mode = mode + 1;
    b->hvac_ua_w_per_k_per_j = ua_per_mwh / MWH_J;
    return SIM_OK;
}

/* The battery's power: power_mw, or capacity / duration_h, exactly one of
 * them. duration_h exists so that a sweep over capacity_mwh keeps the power
 * in step with it (the C-rate rule holds for every case, and capacity 0 is
 * no battery) instead of tripping the C-rate check at small capacities. */
static int read_battery_power(cfg_reader *r, const config_setting_t *g,
                              scenario *s)
{
    double dur_s;
    int rc, hp = config_setting_get_member(g, "power_mw") != NULL,
            hd = config_setting_get_member(g, "duration_h") != NULL;
    if (hp == hd)
        return cfg_fail(r, g, "power_mw",
                        "%s (expected exactly one of power_mw and "
                        "duration_h)",
                        hp ? "given together with duration_h" : "missing");
    if (hp)
        return num(r, g, "power_mw", 1, 0, MW,
                   &s->energy.capacity_w[SRC_BATTERY]);
    if ((rc = num(r, g, "duration_h", 1, 0, HOUR_S, &dur_s)) != SIM_OK)
        return rc;
    s->energy.capacity_w[SRC_BATTERY] = s->energy.battery.capacity_j / dur_s;
    return SIM_OK;
}

/* energy.battery: every key with its catalog default; its power goes to
 * capacity_w[SRC_BATTERY] like every kind's nameplate. SOH bounds, the
 * reserve floor, the C-rate limit and the power/energy pairing are checked
 * by scenario_finish. */
static int read_battery(cfg_reader *r, const config_setting_t *g, scenario *s)
{
    static const char *const keys[] = {"capacity_mwh",
                                       "power_mw",
                                       "duration_h",
                                       "round_trip_eff",
                                       "reserve_floor_pct",
                                       "initial_soc_pct",
                                       "c_rate_max",
                                       "packs",
                                       "soh_dist",
                                       "soh_mean",
                                       "soh_sd",
                                       "soh_min",
                                       "soh_max",
                                       "gco2_per_kwh",
                                       "usd_per_mwh",
                                       "thermal",
                                       NULL};
    static const char *const dists[] = {"normal", "uniform", NULL};
    const source_defaults *d = catalog_source(s->cat, SRC_BATTERY);
    scen_battery *b = &s->energy.battery;
    int rc, dist;
    double soc;

    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = num(r, g, "capacity_mwh", 1, 0, MWH_J, &b->capacity_j)) !=
            SIM_OK ||
        (rc = read_battery_power(r, g, s)) != SIM_OK ||
        (rc = num(r, g, "round_trip_eff", 0, d->round_trip_eff, 1,
                  &b->round_trip_eff)) != SIM_OK ||
        (rc = num(r, g, "reserve_floor_pct", 0, d->reserve_floor * 100, 0.01,
                  &b->reserve_floor)) != SIM_OK ||
        (rc = num(r, g, "c_rate_max", 0, d->c_rate_max_per_s * HOUR_S,
                  1.0 / HOUR_S, &b->c_rate_max_per_s)) != SIM_OK ||
        (rc = geti(r, g, "packs", 0, 1, &b->packs)) != SIM_OK ||
        (rc = cfg_choice(r, g, "soh_dist", 0, SOH_NORMAL, dists, &dist)) !=
            SIM_OK ||
        (rc = num(r, g, "soh_mean", 0, d->soh_mean, 1, &b->soh_mean)) !=
            SIM_OK ||
        (rc = num(r, g, "soh_sd", 0, d->soh_sd, 1, &b->soh_sd)) != SIM_OK ||
        (rc = num(r, g, "soh_min", 0, d->soh_min, 1, &b->soh_min)) != SIM_OK ||
        (rc = num(r, g, "soh_max", 0, d->soh_max, 1, &b->soh_max)) != SIM_OK ||
        (rc = num(r, g, "initial_soc_pct", 0, 0, 0.01, &soc)) != SIM_OK ||
        (rc = read_carbon_cost(r, g, d, &s->energy.carbon_kg_per_j[SRC_BATTERY],
                               &s->energy.cost_usd_per_j[SRC_BATTERY])) !=
            SIM_OK)
        return rc;
    b->soh_dist = (soh_dist)dist;
    b->initial_soc = soc;
    if ((rc = read_battery_thermal(r, g, b)) != SIM_OK)
        return rc;
    return SIM_OK;
}

/* One firm kind (geothermal, hydro): its nameplate into capacity_w[kind],
 * outage figures and, for hydro only, the monthly capacity factors (a key
 * geothermal does not accept). The MTBF/MTTR pairing is the model's. */
static int read_firm(cfg_reader *r, const config_setting_t *g, scenario *s,
                     source_kind kind, scen_firm *f)
{
    static const char *const gkeys[] = {
        "capacity_mw",  "availability", "mtbf_h", "mttr_h",
        "gco2_per_kwh", "usd_per_mwh",  NULL};
    static const char *const hkeys[] = {
        "capacity_mw", "availability", "mtbf_h",      "mttr_h",
        "monthly_cf",  "gco2_per_kwh", "usd_per_mwh", NULL};
    const source_defaults *d = catalog_source(s->cat, kind);
    int rc;

    for (int m = 0; m < 12; m++)
        f->monthly_cf[m] = 1.0;
    if ((rc = cfg_check_keys(r, g, kind == SRC_HYDRO ? hkeys : gkeys)) !=
            SIM_OK ||
        (rc = num(r, g, "capacity_mw", 1, 0, MW,
                  &s->energy.capacity_w[kind])) != SIM_OK ||
        (rc = num(r, g, "availability", 0, d->availability, 1,
                  &f->availability)) != SIM_OK ||
        (rc = num(r, g, "mtbf_h", 0, d->mtbf_s / HOUR_S, HOUR_S, &f->mtbf_s)) !=
            SIM_OK ||
        (rc = num(r, g, "mttr_h", 0, d->mttr_s / HOUR_S, HOUR_S, &f->mttr_s)) !=
            SIM_OK ||
        (rc = read_carbon_cost(r, g, d, &s->energy.carbon_kg_per_j[kind],
                               &s->energy.cost_usd_per_j[kind])) != SIM_OK)
        return rc;
    if (kind == SRC_HYDRO && (rc = nums(r, g, "monthly_cf", 0, 12, 12, 1,
                                        f->monthly_cf, NULL)) != SIM_OK)
        return rc;
    return SIM_OK;
}

/* energy.<name> of every firm kind of the registry. */
static int read_firms(cfg_reader *r, const config_setting_t *g, scenario *s)
{
    for (int k = 0; k < SRC_N; k++) {
        config_setting_t *m;
        int rc;
        if (source_table[k].role != SOURCE_FIRM)
            continue;
        if ((rc = cfg_member(r, g, source_table[k].name, CONFIG_TYPE_GROUP, 0,
                             &m)) != SIM_OK ||
            (m && (rc = read_firm(r, m, s, (source_kind)k,
                                  &s->energy.firm[k])) != SIM_OK))
            return rc;
    }
    return SIM_OK;
}

/* energy.grid: giving the group makes the grid present even with import
 * limit 0 (an islanded site that says so); price windows are read in file
 * order up to SCEN_MAX_TOD, their order and overlap checked by the model. */
static int read_grid(cfg_reader *r, const config_setting_t *g, scenario *s)
{
    static const char *const keys[] = {"import_limit_mw", "usd_per_mwh",
                                       "tod_prices", "gco2_per_kwh", NULL};
    static const char *const tkeys[] = {"start_h", "end_h", "usd_per_mwh",
                                        NULL};
    const source_defaults *d = catalog_source(s->cat, SRC_GRID);
    scen_grid *gr = &s->energy.grid;
    config_setting_t *l;
    int rc;

    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = num(r, g, "import_limit_mw", 1, 0, MW,
                  &s->energy.capacity_w[SRC_GRID])) != SIM_OK ||
        (rc = read_carbon_cost(r, g, d, &s->energy.carbon_kg_per_j[SRC_GRID],
                               &s->energy.cost_usd_per_j[SRC_GRID])) !=
            SIM_OK ||
        (rc = cfg_member(r, g, "tod_prices", CONFIG_TYPE_LIST, 0, &l)) !=
            SIM_OK)
        return rc;
    for (int i = 0; l && i < config_setting_length(l); i++) {
        config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        scen_tod_price *t = &gr->tod[gr->n_tod];
        if (i >= SCEN_MAX_TOD)
            return cfg_fail(r, e, NULL,
                            "too many price windows (got %d, "
                            "expected <= %d)",
                            config_setting_length(l), SCEN_MAX_TOD);
        if (!config_setting_is_group(e))
            return cfg_fail(r, e, NULL,
                            "wrong type (expected { start_h = "
                            "..; end_h = ..; usd_per_mwh = ..; })");
        if ((rc = cfg_check_keys(r, e, tkeys)) != SIM_OK ||
            (rc = num(r, e, "start_h", 1, 0, HOUR_S, &t->start_s)) != SIM_OK ||
            (rc = num(r, e, "end_h", 1, 0, HOUR_S, &t->end_s)) != SIM_OK ||
            (rc = num(r, e, "usd_per_mwh", 1, 0, USD_PER_MWH,
                      &t->price_usd_per_j)) != SIM_OK)
            return rc;
        gr->n_tod++;
    }
    s->energy.present[SRC_GRID] = 1;
    return SIM_OK;
}

/* energy: the allowed groups are the registry's kind names, so a new kind
 * is accepted as a key without an edit here; each group's reader fills the
 * kind's slot of capacity_w[] and its own struct. */
static int read_energy(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    const char *keys[SRC_N + 1];
    config_setting_t *g, *m;
    int rc;

    for (int k = 0; k < SRC_N; k++)
        keys[k] = source_table[k].name;
    keys[SRC_N] = NULL;

    if ((rc = cfg_member(r, root, "energy", CONFIG_TYPE_GROUP, 1, &g)) !=
            SIM_OK ||
        (rc = cfg_check_keys(r, g, keys)) != SIM_OK)
        return rc;
    if ((rc = cfg_member(r, g, "solar", CONFIG_TYPE_GROUP, 0, &m)) != SIM_OK ||
        (m && (rc = read_solar(r, m, s)) != SIM_OK) ||
        (rc = cfg_member(r, g, "wind", CONFIG_TYPE_GROUP, 0, &m)) != SIM_OK ||
        (m && (rc = read_wind(r, m, s)) != SIM_OK) ||
        (rc = cfg_member(r, g, "battery", CONFIG_TYPE_GROUP, 0, &m)) !=
            SIM_OK ||
        (m && (rc = read_battery(r, m, s)) != SIM_OK) ||
        (rc = read_firms(r, g, s)) != SIM_OK ||
        (rc = cfg_member(r, g, "grid", CONFIG_TYPE_GROUP, 0, &m)) != SIM_OK ||
        (m && (rc = read_grid(r, m, s)) != SIM_OK))
        return rc;
    return SIM_OK;
}

/* Precision labels of the calibration data and the format each runs. */
static const struct {
    const char *label;
    num_fmt fmt;
} precisions[] = {
    {"bf16", NUM_BF16},  {"fp8", NUM_FP8},   {"fp8-cs", NUM_FP8},
    {"fp8-mx", NUM_FP8}, {"mxfp8", NUM_FP8}, {"nvfp4", NUM_FP4},
};
#define N_PRECISIONS (sizeof precisions / sizeof precisions[0])

static int read_checkpoint(cfg_reader *r, const config_setting_t *e,
                           scen_job *j)
{
    static const char *const keys[] = {"policy", "interval_min", "write_s",
                                       "restart_min", NULL};
    static const char *const pols[] = {"young-daly", "fixed", NULL};
    config_setting_t *g;
    int rc, pol;

    j->ckpt = CKPT_YOUNG_DALY;
    /* Without a checkpoint group: the table's defaults. */
    j->ckpt_write_s = scen_key_find("jobs.[].checkpoint.write_s")->def;
    j->restart_s = scen_key_find("jobs.[].checkpoint.restart_min")->def * 60;
    if ((rc = cfg_member(r, e, "checkpoint", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_choice(r, g, "policy", 0, CKPT_YOUNG_DALY, pols, &pol)) !=
            SIM_OK ||
        (rc = num(r, g, "write_s", 0, 0, 1, &j->ckpt_write_s)) != SIM_OK ||
        (rc = num(r, g, "restart_min", 0, 0, 60, &j->restart_s)) != SIM_OK)
        return rc;
    j->ckpt = (ckpt_policy)pol;
    if (j->ckpt == CKPT_FIXED)
        return num(r, g, "interval_min", 1, 0, 60, &j->ckpt_interval_s);
    if (config_setting_get_member(g, "interval_min"))
        return cfg_fail(r, g, "interval_min",
                        "only applies to policy "
                        "\"fixed\" (got it with \"young-daly\", which "
                        "computes the interval)");
    return SIM_OK;
}

/* A job's parallel layout as written; 0 means "not given", left for the
 * throughput model to choose, so that a partial layout is allowed. Whether
 * the sizes divide the GPUs, batch and experts is scenario_finish's. */
static int read_layout(cfg_reader *r, const config_setting_t *e, scen_job *j)
{
    int rc;
    if ((rc = geti(r, e, "tp", 0, 0, &j->tp)) != SIM_OK ||
        (rc = geti(r, e, "pp", 0, 0, &j->pp)) != SIM_OK ||
        (rc = geti(r, e, "cp", 0, 0, &j->cp)) != SIM_OK ||
        (rc = geti(r, e, "ep", 0, 0, &j->ep)) != SIM_OK ||
        (rc = geti(r, e, "vp", 0, 0, &j->vp)) != SIM_OK ||
        (rc = cfg_bool(r, e, "fsdp", 0, 0, &j->fsdp)) != SIM_OK)
        return rc;
    /* Not given: chosen by the throughput model (0), like the sizes. */
    {
        static const char *const modes[] = {"", "none", "selective", "full",
                                            NULL};
        int dopt = 0;
        if (config_setting_get_member(e, "recompute") &&
            (rc = cfg_choice(r, e, "recompute", 1, 0, modes + 1,
                             &j->recompute)) != SIM_OK)
            return rc;
        if (config_setting_get_member(e, "recompute"))
            j->recompute += 1; /* tp_recompute: NONE = 1 */
        if (config_setting_get_member(e, "distributed_optimizer")) {
            if ((rc = cfg_bool(r, e, "distributed_optimizer", 1, 0, &dopt)) !=
                SIM_OK)
                return rc;
            j->distopt = dopt ? TP_DISTOPT_ON : TP_DISTOPT_OFF;
        }
    }
    return SIM_OK;
}

/* jobs: one flat pass per entry, in the order a reader checks the file:
 * keys, names, the catalog references (model, precision, GPU) resolved to
 * pointers, then the numbers. It is long because a job has many keys, not
 * because it decides anything: every rule between them (GPU type default,
 * tensor cores, batch divisibility, steps from tokens, the layout, the
 * GPUs the site has) is scenario_finish's, so this only reads. */
static int read_jobs(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {
        "name",        "model",      "precision", "gpu",
        "gpus",        "tokens",     "steps",     "global_batch",
        "micro_batch", "seq_len",    "tp",        "pp",
        "cp",          "ep",         "vp",        "fsdp",
        "checkpoint",  "hot_spares", "priority",  "submit_date",
        "submit_h",    "release",    "recompute", "distributed_optimizer",
        NULL};
    config_setting_t *l;
    char names[2048];
    int rc, n;

    if ((rc = cfg_member(r, root, "jobs", CONFIG_TYPE_LIST, 0, &l)) != SIM_OK ||
        !l)
        return rc;
    n = config_setting_length(l);
    s->jobs = sim_xcalloc((size_t)n + 1, sizeof *s->jobs);
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        scen_job *j = &s->jobs[s->n_jobs];
        char model[64], prec[32], gpu[32];
        double steps_d = 0;
        size_t p;

        if (!config_setting_is_group(e))
            return cfg_fail(r, e, NULL,
                            "wrong type (expected a group { name "
                            "= \"...\"; model = \"...\"; ... })");
        /* Where the job was written, for checks made after loading (the
         * throughput query, the fabric groups: app/run_check.c). */
        snprintf(j->src_file, sizeof j->src_file, "%s", cfg_file(r, e));
        j->src_line = cfg_line(e);
        j->gpus_line = config_setting_get_member(e, "gpus")
                           ? cfg_line(config_setting_get_member(e, "gpus"))
                           : j->src_line;
        if ((rc = cfg_check_keys(r, e, keys)) != SIM_OK ||
            (rc = cfg_string(r, e, "name", 1, NULL, j->name, sizeof j->name)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "model", 1, NULL, model, sizeof model)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "precision", 1, NULL, prec, sizeof prec)) !=
                SIM_OK)
            return rc;
        if (!(j->model = catalog_llm(s->cat, model))) {
            catalog_names(s->cat, "llms", names, sizeof names);
            return cfg_fail(r, config_setting_get_member(e, "model"), NULL,
                            "unknown model (got \"%s\", expected a name from "
                            "models.csv or one of: %s)",
                            model, names);
        }
        for (p = 0; p < N_PRECISIONS; p++)
            if (strcasecmp(precisions[p].label, prec) == 0)
                break;
        if (p == N_PRECISIONS) {
            names[0] = '\0';
            for (size_t k = 0; k < N_PRECISIONS; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names),
                         "%s\"%s\"", k ? ", " : "", precisions[k].label);
            return cfg_fail(r, config_setting_get_member(e, "precision"), NULL,
                            "unknown precision (got \"%s\", expected "
                            "one of: %s)",
                            prec, names);
        }
        snprintf(j->precision, sizeof j->precision, "%s", precisions[p].label);
        j->fmt = precisions[p].fmt;
        /* The GPU type: given, or the site's only one. */
        if (config_setting_get_member(e, "gpu")) {
            if ((rc = cfg_string(r, e, "gpu", 1, NULL, gpu, sizeof gpu)) !=
                SIM_OK)
                return rc;
            if (!(j->gpu = catalog_gpu(s->cat, gpu))) {
                catalog_names(s->cat, "gpus", names, sizeof names);
                return cfg_fail(r, config_setting_get_member(e, "gpu"), NULL,
                                "unknown GPU (got \"%s\", expected one of: "
                                "%s)",
                                gpu, names);
            }
        } /* else the site's only GPU type (scenario_finish) */
        if ((rc = geti(r, e, "gpus", 1, 0, &j->gpus)) != SIM_OK ||
            (rc = geti(r, e, "hot_spares", 0, 0, &j->hot_spares)) != SIM_OK ||
            (rc = geti(r, e, "global_batch", 1, 0, &j->global_batch)) !=
                SIM_OK ||
            (rc = geti(r, e, "micro_batch", 0, 0, &j->micro_batch)) != SIM_OK ||
            (rc = geti(r, e, "seq_len", 0, j->model->default_seq_len,
                       &j->seq_len)) != SIM_OK ||
            (rc = geti(r, e, "priority", 0, 0, &j->priority)) != SIM_OK ||
            (rc = cfg_string(r, e, "release", 0, "", j->release,
                             sizeof j->release)) != SIM_OK ||
            (rc = read_time(r, e, "submit_date", "submit_h", HOUR_S, &s->sim, 0,
                            &j->submit_t_s)) != SIM_OK)
            return rc;
        /* How much to train: tokens or steps, exactly one. */
        if (!!config_setting_get_member(e, "tokens") ==
            !!config_setting_get_member(e, "steps"))
            return cfg_fail(r, e, "tokens",
                            "give exactly one of tokens and "
                            "steps (got %s)",
                            config_setting_get_member(e, "tokens") ? "both"
                                                                   : "neither");
        /* Steps from tokens (or tokens from steps) are scenario_finish's;
         * steps 0 = derive them from tokens. */
        if (config_setting_get_member(e, "tokens")) {
            if ((rc = num(r, e, "tokens", 1, 0, 1, &j->tokens)) != SIM_OK)
                return rc;
        } else {
            if ((rc = num(r, e, "steps", 1, 0, 1, &steps_d)) != SIM_OK)
                return rc;
            j->steps = (int64_t)floor(steps_d);
        }
        if ((rc = read_layout(r, e, j)) != SIM_OK ||
            (rc = read_checkpoint(r, e, j)) != SIM_OK)
            return rc;
        s->n_jobs++;
    }
    return SIM_OK;
}

static int read_policy(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {"shortage", NULL};
    config_setting_t *g;
    int rc, p;

    s->policy = DISPATCH_POLICY_THROTTLE;
    if ((rc = cfg_member(r, root, "policy", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_choice(r, g, "shortage", 0, DISPATCH_POLICY_THROTTLE,
                         dispatch_policy_names, &p)) != SIM_OK)
        return rc;
    s->policy = (dispatch_policy)p;
    return SIM_OK;
}

static int read_reliability(cfg_reader *r, const config_setting_t *root,
                            scenario *s)
{
    static const char *const keys[] = {
        "failures",      "interruptions_per_gpu_hour",
        "node_repair_h", "module_mtbf_days",
        "module_mttr_h", NULL};
    scen_reliability *y = &s->reliability;
    config_setting_t *g;
    int rc;

    y->failures = 1;
    y->rate_per_gpu_s = REL_LLAMA3_RATE_PER_GPU_S;
    y->node_repair_s = REL_NODE_REPAIR_S_DEFAULT;
    y->module_mtbf_s = REL_MODULE_MTBF_S_DEFAULT;
    y->module_mttr_s = REL_MODULE_MTTR_S_DEFAULT;
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
                  3600.0, &y->module_mttr_s)) != SIM_OK)
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
        "description", "site",        "modules",    "fabric",  "energy", "jobs",
        "policy",      "reliability", "simulation", "catalog", "costs",  NULL};
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
        (rc = read_energy(&r, root, s)) != SIM_OK ||
        (rc = read_jobs(&r, root, s)) != SIM_OK ||
        (rc = read_policy(&r, root, s)) != SIM_OK ||
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
