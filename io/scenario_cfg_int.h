/* io/scenario_cfg_int.h: what the three parts of the scenario reader share
 * (io/scenario_cfg.c: the load, simulation, site, modules, fabric, policy and
 * reliability; io/scenario_energy_cfg.c: the energy group;
 * io/scenario_jobs_cfg.c: the jobs list). Private to io/scenario*_cfg.c.
 *
 * The key wrappers are static inline here so that every part reads keys the
 * same way, through the key table (models/scenkeys.c), and none can grow its
 * own range or default. */
#ifndef IO_SCENARIO_CFG_INT_H
#define IO_SCENARIO_CFG_INT_H

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/catalog_cfg.h"
#include "io/cfg.h"
#include "models/climate.h"
#include "models/cooling.h"
#include "models/reliability.h"
#include "models/scenario.h"
#include "models/scenkeys.h"
#include "models/throughput.h"
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
static inline const scen_key *row(cfg_reader *r, const config_setting_t *g,
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

static inline double def_of(const scen_key *k, double def)
{
    return isnan(k->def) ? def : k->def;
}

/* long long of a table bound (2^63 as a double is past LLONG_MAX). */
static inline long long ll_of(double x)
{
    return x >= 9.2e18 ? LLONG_MAX : x <= -9.2e18 ? LLONG_MIN : (long long)x;
}

static inline int num(cfg_reader *r, const config_setting_t *g, const char *key,
                      int req, double def, double scale, double *out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_double(r, g, key, req || k->required, def_of(k, def), k->lo,
                      k->hi, scale, out);
}

static inline int geti64(cfg_reader *r, const config_setting_t *g,
                         const char *key, int req, long long def,
                         long long *out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_int(r, g, key, req || k->required,
                   isnan(k->def) ? def : ll_of(k->def), ll_of(k->lo),
                   ll_of(k->hi), out);
}

static inline int geti(cfg_reader *r, const config_setting_t *g,
                       const char *key, int req, long long def, int *out)
{
    long long v;
    int rc = geti64(r, g, key, req, def, &v);
    if (rc == SIM_OK)
        *out = (int)v;
    return rc;
}

static inline int nums(cfg_reader *r, const config_setting_t *g,
                       const char *key, int req, size_t n, size_t cap,
                       double scale, double *out, size_t *n_out)
{
    const scen_key *k = row(r, g, key);
    if (!k)
        return SIM_ECONFIG;
    return cfg_doubles(r, g, key, req || k->required, n, cap, k->lo, k->hi,
                       scale, out, n_out);
}

/* A time given either as KEY_date ("YYYY-MM-DD") or KEY_rel (a number in
 * the unit scale_s, after the start); def_s when neither. Must lie inside
 * [0, horizon). Errors through r with FILE:LINE. */
int scfg_read_time(cfg_reader *r, const config_setting_t *g, const char *kdate,
                   const char *krel, double scale_s, const scen_sim *sim,
                   double def_s, double *out);

/* energy: every source group, their carbon and cost (scenario_energy_cfg.c). */
int scfg_read_energy(cfg_reader *r, const config_setting_t *root, scenario *s);

/* jobs: each job, its checkpoint and layout groups (scenario_jobs_cfg.c). */
int scfg_read_jobs(cfg_reader *r, const config_setting_t *root, scenario *s);

#endif
