/* models/site_power.c: the site's power model on the engine
 * (models/site_power.h).
 *
 * State: the current weather year (borrowed file year, or an owned
 * synthetic year regenerated when the run crosses into a new simulated
 * year), each PV plant's hourly AC power for that year, the batteries with
 * the carbon/cost/renewable content of their stored energy (pools, per
 * stored joule), the firm sources, and the dispatch buffers. A step reads
 * the weather hour, asks every component for its limits, calls the pure
 * dispatch, then applies the result to the batteries and hydro budgets.
 */
#include "models/site_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"
#include "sim/rng.h"

#define J_PER_KWH 3.6e6

struct site_power {
    site_power_cfg c;
    solar_cfg *solar;
    battery_cfg *battery_cfg;
    supply_cfg *supply_cfg;
    site_power_module *module;
    uint64_t seed, rep;
    const climate_year *wx; /* current weather year */
    climate_year *syn;      /* owned synthetic year, or NULL */
    gsl_rng *clim_r;        /* climate stream (synthetic only) */
    long wx_year;           /* simulated year index of wx (-1: none) */
    double *pv_ac;          /* [n_solar][8760] */
    long pv_year;
    wind_cfg *wind;
    double *wind_ac;   /* [n_wind][8760] */
    double *wind_v10;  /* synthetic 10 m wind of the year [8760], or NULL */
    gsl_rng *wind_r;   /* synthetic wind stream "climate/wind" */
    source_kind *kind; /* [n dispatch sources] */
    battery **bat;
    double *pool_c, *pool_cost, *pool_ren; /* per battery, of stored J */
    double *bat_loss_w; /* per battery, last step's conversion losses: the
                           heat its enclosure HVAC removes this step (one
                           step late, so the load is known before the
                           dispatch that serves it) */
    supply *src;
    dispatch_source *dsrc;
    dispatch_store *dst;
    dispatch_module *dmod;
    double *design_it_w; /* [n_module] IT with every system training: the
                            load at which the PUE curve holds */
    dispatch_out *out;
    size_t cap_job;
    double last_t;
    int stepped;
    site_power_totals tot;
    site_power_record *rec;
    size_t n_rec, cap_rec;
};

void site_power_cfg_default(site_power_cfg *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "site");
    c->normals = *climate_builtin("las-vegas");
    c->step_s = 900.0;
    c->policy = DISPATCH_POLICY_THROTTLE;
    load_cap_curve_default(&c->cap);
    c->solar_carbon_g_per_j = 48.0 / J_PER_KWH;
    c->solar_price_usd_per_j = 58.0 / 1e3 / J_PER_KWH;
}

static void *dup_array(const void *p, size_t n, size_t size)
{
    void *q = sim_xmalloc((n ? n : 1) * size);
    if (n)
        memcpy(q, p, n * size);
    return q;
}

void site_power_free(site_power *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->c.n_battery; i++)
        battery_free(sp->bat ? sp->bat[i] : NULL);
    for (size_t i = 0; sp->src && i < sp->c.n_source; i++)
        supply_fini(&sp->src[i]);
    free(sp->bat);
    free(sp->src);
    free(sp->pool_c);
    free(sp->pool_cost);
    free(sp->pool_ren);
    free(sp->bat_loss_w);
    free(sp->solar);
    free(sp->battery_cfg);
    free(sp->supply_cfg);
    free(sp->module);
    free(sp->pv_ac);
    free(sp->wind);
    free(sp->wind_ac);
    free(sp->wind_v10);
    free(sp->kind);
    if (sp->wind_r)
        gsl_rng_free(sp->wind_r);
    free(sp->dsrc);
    free(sp->dst);
    free(sp->dmod);
    free(sp->design_it_w);
    dispatch_out_free(sp->out);
    climate_year_free(sp->syn);
    if (sp->clim_r)
        gsl_rng_free(sp->clim_r);
    free(sp->rec);
    free(sp);
}

/* Makes sp->wx the weather of simulated year `year` and the PV hours
 * match it. Synthetic years are drawn in order from the climate stream. */
static int ensure_year(site_power *sp, long year, sim_err *err)
{
    if (sp->c.weather) {
        sp->wx = sp->c.weather;
        sp->wx_year = year;
    } else {
        while (sp->wx_year < year) {
            int rc =
                climate_synthesize(&sp->c.normals, sp->clim_r, sp->syn, err);
            if (rc != SIM_OK)
                return rc;
            /* Hourly wind from its own stream, drawn only with wind
             * plants: the other streams' draws stay the same. */
            if (sp->wind_r)
                climate_synthesize_wind(&sp->c.normals, sp->wind_r,
                                        sp->wind_v10);
            sp->wx_year++;
        }
        sp->wx = sp->syn;
    }
    if (sp->pv_year != year && (sp->pv_year < 0 || !sp->c.weather)) {
        for (size_t i = 0; i < sp->c.n_solar; i++)
            solar_year(&sp->solar[i], sp->wx, sp->pv_ac + i * CLIMATE_HOURS,
                       NULL);
        for (size_t i = 0; i < sp->c.n_wind; i++)
            wind_year(&sp->wind[i], sp->wx, sp->wind_v10,
                      sp->wind_ac + i * CLIMATE_HOURS);
        sp->pv_year = year;
    }
    return SIM_OK;
}

site_power *site_power_new(const site_power_cfg *c, uint64_t seed, uint64_t rep,
                           sim_err *err)
{
    if (!(c->step_s > 0 && c->step_s <= 86400.0))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "site.step_s: out of range (got %g, expected 0 < "
                           "step <= 86400)",
                           c->step_s),
               NULL;
    if (!(c->start_hoy_h >= 0 && c->start_hoy_h < CLIMATE_HOURS))
        return sim_err_set(
                   err, SIM_EINVAL, NULL, 0,
                   "site.start_hoy_h: out of range (got %g, expected 0..8760)",
                   c->start_hoy_h),
               NULL;
    if ((unsigned)c->policy > DISPATCH_POLICY_SHED)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "site.policy: unknown (%d)", (int)c->policy),
               NULL;
    if (load_cap_curve_check(&c->cap, err) != SIM_OK)
        return NULL;
    if (!(c->solar_degradation_per_s >= 0 &&
          c->solar_degradation_per_s < 1e-6) ||
        !(c->battery_carbon_g_per_j >= 0 &&
          isfinite(c->battery_carbon_g_per_j)) ||
        !(c->battery_price_usd_per_j >= 0 &&
          isfinite(c->battery_price_usd_per_j)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "site: solar degradation, battery carbon and price "
                           "must be >= 0 "
                           "(got %g /s, %g g/J, %g USD/J)",
                           c->solar_degradation_per_s,
                           c->battery_carbon_g_per_j,
                           c->battery_price_usd_per_j),
               NULL;
    for (size_t i = 0; i < c->n_solar; i++)
        if (solar_cfg_check(&c->solar[i], err) != SIM_OK)
            return NULL;
    for (size_t i = 0; i < c->n_wind; i++)
        if (wind_cfg_check(&c->wind[i], err) != SIM_OK)
            return NULL;
    for (size_t i = 0; i < c->n_module; i++) {
        const site_power_module *m = &c->module[i];
        if (load_cfg_check(&m->load, &m->system, err) != SIM_OK ||
            cooling_cfg_check(&m->cooling, err) != SIM_OK)
            return NULL;
        if (!(m->n_systems >= 0 && isfinite(m->n_systems) && m->online_s >= 0))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "module %s: n_systems and online_s must be >= 0",
                               m->name),
                   NULL;
    }
    if (!c->weather && climate_normals_check(&c->normals, err) != SIM_OK)
        return NULL;

    site_power *sp = sim_xcalloc(1, sizeof *sp);
    sp->c = *c;
    sp->seed = seed;
    sp->rep = rep;
    sp->solar = dup_array(c->solar, c->n_solar, sizeof *c->solar);
    sp->battery_cfg = dup_array(c->battery, c->n_battery, sizeof *c->battery);
    sp->supply_cfg = dup_array(c->source, c->n_source, sizeof *c->source);
    sp->module = dup_array(c->module, c->n_module, sizeof *c->module);
    sp->wind = dup_array(c->wind, c->n_wind, sizeof *c->wind);
    sp->c.solar = sp->solar;
    sp->c.wind = sp->wind;
    sp->c.battery = sp->battery_cfg;
    sp->c.source = sp->supply_cfg;
    sp->c.module = sp->module;
    sp->wx_year = -1;
    sp->pv_year = -1;
    sp->pv_ac = sim_xcalloc((c->n_solar ? c->n_solar : 1) * CLIMATE_HOURS,
                            sizeof(double));
    sp->wind_ac = sim_xcalloc((c->n_wind ? c->n_wind : 1) * CLIMATE_HOURS,
                              sizeof(double));
    sp->kind = sim_xcalloc(c->n_solar + c->n_wind + c->n_source + 1,
                           sizeof(source_kind));
    for (size_t i = 0; i < c->n_solar + c->n_wind + c->n_source; i++)
        sp->kind[i] = i < c->n_solar ? SRC_SOLAR
                      : i < c->n_solar + c->n_wind
                          ? SRC_WIND
                          : c->source[i - c->n_solar - c->n_wind].kind;
    sp->bat = sim_xcalloc(c->n_battery + 1, sizeof(battery *));
    sp->pool_c = sim_xcalloc(c->n_battery + 1, sizeof(double));
    sp->pool_cost = sim_xcalloc(c->n_battery + 1, sizeof(double));
    sp->pool_ren = sim_xcalloc(c->n_battery + 1, sizeof(double));
    sp->bat_loss_w = sim_xcalloc(c->n_battery + 1, sizeof(double));
    sp->src = sim_xcalloc(c->n_source + 1, sizeof(supply));
    for (size_t i = 0; i < c->n_battery; i++) {
        char name[64];
        snprintf(name, sizeof name, "battery/%zu/pack", i);
        sp->bat[i] =
            battery_new(&c->battery[i], seed, rep, rng_stream_id(name), err);
        if (!sp->bat[i])
            goto fail;
        sp->pool_ren[i] =
            battery_stored_j(sp->bat[i]) * c->battery_initial_renewable;
    }
    for (size_t i = 0; i < c->n_source; i++) {
        char name[80];
        snprintf(name, sizeof name, "source/%s/%zu", c->source[i].name, i);
        if (supply_init(&sp->src[i], &c->source[i], seed, rep,
                        rng_stream_id(name), err) != SIM_OK)
            goto fail;
    }
    if (!c->weather) {
        sp->syn = climate_year_new();
        /* The weather's replication: rep, or 0 when the weather is held
         * fixed (site_power_cfg.weather_rep0). */
        uint64_t wrep = c->weather_rep0 ? 0 : rep;
        sp->clim_r = rng_stream_new(NULL, seed, wrep, rng_stream_id("climate"));
        if (c->n_wind) {
            sp->wind_v10 = sim_xcalloc(CLIMATE_HOURS, sizeof(double));
            sp->wind_r =
                rng_stream_new(NULL, seed, wrep, rng_stream_id("climate/wind"));
        }
    }
    sp->dsrc = sim_xcalloc(c->n_solar + c->n_wind + c->n_source + 1,
                           sizeof(dispatch_source));
    sp->dst = sim_xcalloc(c->n_battery + 1, sizeof(dispatch_store));
    sp->dmod = sim_xcalloc(c->n_module + 1, sizeof(dispatch_module));
    sp->design_it_w = sim_xcalloc(c->n_module + 1, sizeof(double));
    for (size_t m = 0; m < c->n_module; m++) {
        load_demand d;
        const site_power_module *md = &sp->module[m];
        site_power_module_nominal(sp, m, &d);
        sp->design_it_w[m] = load_module_it_w(
            &md->load,
            d.gpu_w + d.other_w +
                load_module_overhead_w(&md->load, &md->system, md->n_systems),
            NULL);
    }
    sp->cap_job = 16;
    sp->out = dispatch_out_new(c->n_solar + c->n_wind + c->n_source,
                               c->n_battery, c->n_module, sp->cap_job);
    if (ensure_year(sp, (long)(c->start_hoy_h / CLIMATE_HOURS), err) != SIM_OK)
        goto fail;
    sp->tot.pue_min = INFINITY;
    sp->tot.pue_max = -INFINITY;
    sp->tot.t_db_min_c = INFINITY;
    sp->tot.t_db_max_c = -INFINITY;
    for (size_t i = 0; i < c->n_solar; i++) {
        sp->tot.solar_p_dc0_w += c->solar[i].p_dc0_w;
        sp->tot.solar_p_ac0_w += solar_p_ac0_w(&c->solar[i]);
    }
    for (size_t i = 0; i < c->n_wind; i++)
        sp->tot.wind_capacity_w += c->wind[i].capacity_w;
    {
        double cap = 0, cap_new = 0;
        for (size_t i = 0; i < c->n_battery; i++) {
            cap += battery_capacity_j(sp->bat[i]);
            cap_new += battery_capacity_j(sp->bat[i]) / battery_soh(sp->bat[i]);
        }
        sp->tot.battery_soh0 = sp->tot.battery_soh =
            cap_new > 0 ? cap / cap_new : 0;
    }
    return sp;
fail:
    site_power_free(sp);
    return NULL;
}

int site_power_attach(site_power *sp, sim *e)
{
    for (size_t i = 0; i < sp->c.n_source; i++) {
        int rc = supply_start_outages(&sp->src[i], e, SITE_POWER_PRIO_OUTAGE);
        if (rc != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

size_t site_power_n_dispatch_sources(const site_power *sp)
{
    return sp->c.n_solar + sp->c.n_wind + sp->c.n_source;
}

source_kind site_power_source_kind(const site_power *sp, size_t i)
{
    return sp->kind[i];
}

const climate_hour *site_power_weather(site_power *sp, double t_s)
{
    double h = sp->c.start_hoy_h + t_s / 3600.0;
    long hi = (long)floor(h + 1e-9);
    if (ensure_year(sp, hi / CLIMATE_HOURS, NULL) != SIM_OK)
        return &sp->wx->h[0];
    return &sp->wx->h[hi % CLIMATE_HOURS];
}

double site_power_module_base_it_w(const site_power *sp, size_t m, double t_s,
                                   double busy_systems)
{
    if (m >= sp->c.n_module)
        return 0;
    const site_power_module *md = &sp->module[m];
    if (t_s < md->online_s)
        return 0;
    double idle = md->n_systems - busy_systems;
    if (idle < 0)
        idle = 0;
    double w =
        load_module_overhead_w(&md->load, &md->system, md->n_systems) +
        idle * load_system_w(&md->load, &md->system, LOAD_IDLE, 0, NULL, NULL);
    return load_module_it_w(&md->load, w, NULL);
}

void site_power_module_nominal(const site_power *sp, size_t m, load_demand *out)
{
    const site_power_module *md = &sp->module[m];
    load_training_demand(&md->load, &md->system,
                         md->n_systems * md->system.n_gpus,
                         LOAD_DEFAULT_COMPUTE_FRAC, out);
    double ovh = load_module_overhead_w(&md->load, &md->system, md->n_systems);
    double room = md->load.it_capacity_w - ovh;
    double want = out->gpu_w + out->other_w;
    if (want > room && want > 0) {
        /* Never above the module's IT capacity: scale the systems' power. */
        double k = room > 0 ? room / want : 0;
        out->gpu_w *= k;
        out->other_w *= k;
        out->idle_w *= k;
    }
}

/* One step in a fixed order, kept in one function because each stage
 * reads what the one before left: the weather hour (and a new simulated
 * year's weather and PV) first; then every component's offer for the hour;
 * then each module's PUE at this step's load (cooling.h: the partial-load
 * term needs the module's demand, so it comes after the jobs are known and
 * before the dispatch, which must see one PUE per module to keep its
 * balance exact); the pure dispatch; then the batteries and supplies are
 * advanced by what it granted, and only then are totals, water and the
 * record written, so that they describe the state the step left. */
int site_power_step(site_power *sp, double t_s, const dispatch_job *jobs,
                    size_t n_jobs, const double *base_it_w,
                    const dispatch_out **out_p, sim_err *err)
{
    const site_power_cfg *c = &sp->c;
    double dt = c->step_s;
    if (!(t_s >= 0) || !isfinite(t_s) || (sp->stepped && t_s < sp->last_t))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "site_power_step: time %g s is before the last step %g s", t_s,
            sp->last_t);
    double hoy_abs = c->start_hoy_h + t_s / 3600.0;
    long hi = (long)floor(hoy_abs + 1e-9);
    int rc = ensure_year(sp, hi / CLIMATE_HOURS, err);
    if (rc != SIM_OK)
        return rc;
    size_t hour = (size_t)(hi % CLIMATE_HOURS);
    double hoy = fmod(hoy_abs, (double)CLIMATE_HOURS);
    const climate_hour *w = &sp->wx->h[hour];

    size_t k = 0;
    for (size_t i = 0; i < c->n_solar; i++, k++) {
        sp->dsrc[k].role = DISPATCH_MUST_TAKE;
        sp->dsrc[k].avail_w = sp->pv_ac[i * CLIMATE_HOURS + hour] *
                              fmax(0.0, 1.0 - c->solar_degradation_per_s * t_s);
        sp->dsrc[k].carbon_g_per_j = c->solar_carbon_g_per_j;
        sp->dsrc[k].price_usd_per_j = c->solar_price_usd_per_j;
        sp->dsrc[k].renewable = 1;
    }
    for (size_t i = 0; i < c->n_wind; i++, k++) {
        sp->dsrc[k].role = DISPATCH_MUST_TAKE;
        sp->dsrc[k].avail_w = sp->wind_ac[i * CLIMATE_HOURS + hour];
        sp->dsrc[k].carbon_g_per_j = c->wind[i].carbon_g_per_j;
        sp->dsrc[k].price_usd_per_j = c->wind[i].price_usd_per_j;
        sp->dsrc[k].renewable = source_table[SRC_WIND].renewable;
    }
    for (size_t i = 0; i < c->n_source; i++, k++) {
        supply *s = &sp->src[i];
        sp->dsrc[k].role = dispatch_role_of(s->c.kind);
        sp->dsrc[k].avail_w = supply_available_w(s, hoy, dt);
        sp->dsrc[k].carbon_g_per_j = s->c.carbon_g_per_j;
        sp->dsrc[k].price_usd_per_j = supply_price_usd_per_j(s, hoy);
        sp->dsrc[k].renewable = s->c.renewable;
    }
    double aux_w = 0;
    for (size_t b = 0; b < c->n_battery; b++) {
        battery *bt = sp->bat[b];
        double st = battery_stored_j(bt);
        dispatch_store *d = &sp->dst[b];
        /* The enclosure follows this step's outdoor air (cell temperature
         * for wear, HVAC load to serve). */
        battery_set_ambient_c(bt, w->t_db_c);
        aux_w += battery_hvac_w(bt, sp->bat_loss_w[b]);
        d->charge_max_w = battery_charge_limit_w(bt, dt);
        d->discharge_max_w = battery_discharge_limit_w(bt, dt);
        d->eta_c = battery_eta_charge(bt);
        d->eta_d = battery_eta_discharge(bt);
        /* Per stored joule: the charging mix, plus the storage's own
         * carbon and cost per joule delivered (x eta_d converts). */
        d->carbon_g_per_j =
            (st > 0 ? sp->pool_c[b] / st : 0) +
            c->battery_carbon_g_per_j * battery_eta_discharge(bt);
        d->cost_usd_per_j =
            c->battery_price_usd_per_j > 0
                ? c->battery_price_usd_per_j * battery_eta_discharge(bt)
                : (st > 0 ? sp->pool_cost[b] / st : 0);
        d->renewable_frac = st > 0 ? fmin(1.0, sp->pool_ren[b] / st) : 0;
    }
    /* PUE at this step's load: the module's IT demand before any
     * throttling (base load plus its jobs at full power) over its design IT,
     * so that the fixed part of the overhead (cooling.h, partial load) is
     * spread over what the module asks for. A throttled step keeps that PUE:
     * the policy sees one PUE per module, which keeps its balance exact. */
    for (size_t m = 0; m < c->n_module; m++) {
        sp->dmod[m].base_it_w = base_it_w ? base_it_w[m] : 0.0;
        sp->dmod[m].pue = sp->dmod[m].base_it_w; /* demand so far */
    }
    for (size_t i = 0; i < n_jobs; i++)
        if (jobs[i].module < c->n_module)
            sp->dmod[jobs[i].module].pue += jobs[i].gpu_w + jobs[i].other_w;
    for (size_t m = 0; m < c->n_module; m++) {
        double d = sp->design_it_w[m];
        double l = d > 0 ? sp->dmod[m].pue / d : 1.0;
        sp->dmod[m].pue =
            cooling_pue_load(&sp->module[m].cooling, w->t_db_c, w->t_wb_c, l);
    }
    if (n_jobs > sp->cap_job) {
        dispatch_out_free(sp->out);
        while (sp->cap_job < n_jobs)
            sp->cap_job *= 2;
        sp->out = dispatch_out_new(c->n_solar + c->n_wind + c->n_source,
                                   c->n_battery, c->n_module, sp->cap_job);
    }
    dispatch_in in = {dt,      c->policy,    sp->dsrc, k,
                      sp->dst, c->n_battery, sp->dmod, c->n_module,
                      jobs,    n_jobs,       aux_w,    &c->cap};
    dispatch_out *o = sp->out;
    rc = dispatch_step(&in, o, err);
    if (rc != SIM_OK)
        return rc;

    /* Apply to the batteries and keep their stored mix. */
    double fade = 0, stored_all = 0, cap_all = 0, cap_new_all = 0, efc_w = 0,
           cap0_all = 0;
    for (size_t b = 0; b < c->n_battery; b++) {
        battery *bt = sp->bat[b];
        double st0 = battery_stored_j(bt);
        battery_flow f;
        rc = battery_step(bt, o->st_charge_w[b], o->st_discharge_w[b], dt, &f);
        if (rc != SIM_OK)
            return sim_err_set(err, rc, NULL, 0, "battery %zu: invalid step",
                               b);
        sp->bat_loss_w[b] = dt > 0 ? f.loss_j / dt : 0;
        double out_frac = st0 > 0 ? (f.withdrawn_j) / st0 : 0;
        if (out_frac > 1)
            out_frac = 1;
        sp->pool_c[b] -= sp->pool_c[b] * out_frac;
        sp->pool_cost[b] -= sp->pool_cost[b] * out_frac;
        sp->pool_ren[b] -= sp->pool_ren[b] * out_frac;
        sp->pool_c[b] += o->st_in_carbon_g[b];
        sp->pool_cost[b] += o->st_in_cost_usd[b];
        sp->pool_ren[b] += o->st_in_renewable_j[b] * battery_eta_charge(bt);
        if (f.fade_loss_j > 0) {
            double st1 = battery_stored_j(bt) + f.fade_loss_j;
            double keep = st1 > 0 ? battery_stored_j(bt) / st1 : 0;
            sp->pool_c[b] *= keep;
            sp->pool_cost[b] *= keep;
            sp->pool_ren[b] *= keep;
        }
        fade += f.fade_loss_j;
        stored_all += battery_stored_j(bt);
        cap_all += battery_capacity_j(bt);
        double cap_new = battery_capacity_j(bt) / battery_soh(bt);
        cap_new_all += cap_new;
        double cap0 = cap_new * battery_soh0(bt);
        efc_w += battery_efc(bt) * cap0;
        cap0_all += cap0;
    }
    size_t n_var = c->n_solar + c->n_wind;
    for (size_t i = 0; i < c->n_source; i++)
        supply_deliver(&sp->src[i], hoy, o->src_load_w[n_var + i] * dt);

    /* Totals and the record. */
    site_power_totals *t = &sp->tot;
    double kind_w[SRC_N] = {0};
    for (size_t i = 0; i < k; i++)
        kind_w[sp->kind[i]] += o->src_w[i];
    t->steps++;
    t->time_s += dt;
    t->it_j += o->it_w * dt;
    for (size_t m = 0; m < c->n_module; m++)
        t->water_m3 +=
            cooling_water_l_per_j(&sp->module[m].cooling, w->t_db_c) *
            o->mod_it_w[m] * dt * 1e-3;
    t->facility_j += o->load_w * dt;
    t->demand_j += o->demand_w * dt;
    for (int j = 0; j < SRC_N; j++)
        t->gen_j[j] += kind_w[j] * dt;
    t->discharge_j += o->discharge_w * dt;
    t->charge_j += o->charge_w * dt;
    t->curtailed_j += o->curtailed_w * dt;
    t->stored_j += o->stored_w * dt;
    t->withdrawn_j += o->withdrawn_w * dt;
    t->shortfall_j += o->shortfall_w * dt;
    t->loss_j += o->loss_w * dt;
    t->fade_loss_j += fade;
    t->battery_hvac_j += o->aux_served_w * dt;
    t->renewable_j += o->load_renewable_j;
    t->carbon_g += o->load_carbon_g;
    t->cost_usd += o->load_cost_usd;
    if (o->shortfall_w > 0 || o->n_throttled + o->n_paused + o->n_shed > 0)
        t->time_short_s += dt;
    if (o->shortfall_w > 0)
        t->time_unserved_s += dt;
    double pue = o->it_w > 0 ? o->load_w / o->it_w : 1.0;
    if (o->it_w > 0) {
        t->pue_min = fmin(t->pue_min, pue);
        t->pue_max = fmax(t->pue_max, pue);
    }
    t->t_db_min_c = fmin(t->t_db_min_c, w->t_db_c);
    t->t_db_max_c = fmax(t->t_db_max_c, w->t_db_c);
    t->battery_efc = cap0_all > 0 ? efc_w / cap0_all : 0;
    t->battery_soh = cap_new_all > 0 ? cap_all / cap_new_all : 0;
    t->balance_max_rel = fmax(t->balance_max_rel, o->balance_rel);
    t->grid_max_w = fmax(t->grid_max_w, o->grid_w);
    uint64_t outages = 0;
    for (size_t i = 0; i < c->n_source; i++)
        outages += sp->src[i].n_outages;
    t->outages = outages;
    if (c->record) {
        sim_grow((void **)&sp->rec, &sp->cap_rec, sp->n_rec + 1,
                 sizeof *sp->rec);
        site_power_record *r = &sp->rec[sp->n_rec++];
        r->t_s = t_s;
        r->t_db_c = w->t_db_c;
        r->t_wb_c = w->t_wb_c;
        r->pue = pue;
        r->it_w = o->it_w;
        r->facility_w = o->load_w;
        r->demand_w = o->demand_w;
        memcpy(r->gen_w, kind_w, sizeof r->gen_w);
        r->discharge_w = o->discharge_w;
        r->charge_w = o->charge_w;
        r->curtailed_w = o->curtailed_w;
        r->shortfall_w = o->shortfall_w;
        r->loss_w = o->loss_w;
        r->soc = cap_all > 0 ? stored_all / cap_all : 0;
        r->soh = t->battery_soh;
        r->throttle = o->throttle;
        r->n_throttled = (uint32_t)o->n_throttled;
        r->n_paused = (uint32_t)o->n_paused;
        r->n_shed = (uint32_t)o->n_shed;
        r->carbon_g = o->load_carbon_g;
        r->cost_usd = o->load_cost_usd;
        r->renewable_j = o->load_renewable_j;
    }
    sp->last_t = t_s;
    sp->stepped = 1;
    if (out_p)
        *out_p = o;
    return SIM_OK;
}

typedef struct run_ctx {
    site_power *sp;
    site_power_demand_fn demand;
    void *ctx;
    double horizon_s;
    int rc;
    sim_err *err;
} run_ctx;

static void on_step(sim *e, void *ctx, uint64_t arg)
{
    (void)arg;
    run_ctx *r = ctx;
    const dispatch_job *jobs = NULL;
    const double *base = NULL;
    size_t n = 0;
    double t = e->now_s;
    int rc = r->demand(r->ctx, r->sp, t, &jobs, &n, &base);
    if (rc == SIM_OK)
        rc = site_power_step(r->sp, t, jobs, n, base, NULL, r->err);
    if (rc != SIM_OK) {
        if (r->err && r->err->code == SIM_OK)
            sim_err_set(r->err, rc, NULL, 0,
                        "site power demand failed at t = %g s", t);
        r->rc = rc;
        sim_stop(e);
        return;
    }
    double next = t + r->sp->c.step_s;
    if (next < r->horizon_s - 1e-9)
        sim_schedule(e, next, SITE_POWER_PRIO_STEP, on_step, r, 0, NULL);
}

int site_power_run(site_power *sp, sim *e, double horizon_s,
                   site_power_demand_fn demand, void *ctx, sim_err *err)
{
    if (!(horizon_s > e->now_s) || !isfinite(horizon_s) || !demand)
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "site_power_run: horizon %g s must be after now %g s", horizon_s,
            e->now_s);
    run_ctx r = {sp, demand, ctx, horizon_s, SIM_OK, err};
    int rc = site_power_attach(sp, e);
    if (rc == SIM_OK)
        rc = sim_schedule(e, e->now_s, SITE_POWER_PRIO_STEP, on_step, &r, 0,
                          NULL);
    if (rc != SIM_OK)
        return sim_err_set(err, rc, NULL, 0, "site_power_run: cannot schedule");
    rc = sim_run_until(e, horizon_s);
    if (r.rc != SIM_OK)
        return r.rc;
    return rc == SIM_EINTR ? SIM_OK : rc;
}

const site_power_totals *site_power_get_totals(const site_power *sp)
{
    return &sp->tot;
}

const site_power_record *site_power_records(const site_power *sp, size_t *n)
{
    *n = sp->n_rec;
    return sp->rec;
}

size_t site_power_n_batteries(const site_power *sp)
{
    return sp->c.n_battery;
}
const battery *site_power_battery(const site_power *sp, size_t i)
{
    return sp->bat[i];
}
size_t site_power_n_sources(const site_power *sp)
{
    return sp->c.n_source;
}
supply *site_power_supply(site_power *sp, size_t i)
{
    return &sp->src[i];
}
double site_power_step_s(const site_power *sp)
{
    return sp->c.step_s;
}
