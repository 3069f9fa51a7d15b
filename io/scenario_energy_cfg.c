/* io/scenario_energy_cfg.c: reads a scenario's `energy` group (solar, wind,
 * battery with its enclosure, firm sources, grid, prices, carbon and cost per
 * kind) into scen_energy, in SI units. Split from io/scenario_cfg.c because
 * the energy group grows with every source kind (models/source.h), and a new
 * source's reader belongs beside the others, not in the general loader.
 * Like the rest of the reader it only reads, range-checks and converts: a
 * rule between values (the C-rate limit, the DC/AC ratio, "no source of
 * energy") is models/scenario.c's scenario_finish. */
#include "io/scenario_cfg_int.h"

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
int scfg_read_energy(cfg_reader *r, const config_setting_t *root, scenario *s)
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
