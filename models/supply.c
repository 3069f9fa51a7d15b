/* models/supply.c: geothermal, hydro and grid sources with forced outages
 * (models/supply.h). An outage cycle is two engine events per failure: the
 * failure handler marks the source down and schedules its repair, the repair
 * handler marks it up and schedules the next failure.
 *
 * This file owns a firm source's state (up or down, downtime, hydro's monthly
 * budget) and nothing else: it never decides how much a source delivers (the
 * dispatch does) and never reads the climate file. Outages are engine events
 * rather than a per-step coin flip so that an outage's length does not depend
 * on the dispatch step, and each source draws from its own stream so that
 * adding a source never changes another's outages. */
#include "models/supply.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/climate.h"
#include "sim/rng.h"

/* Defaults in the literature are per kWh and per MWh; they are converted to SI
 * once here (1 kWh = 3.6e6 J). */
#define J_PER_KWH 3.6e6

/* Hours per month of a 365-day year (the climate year has no 29 February), so
 * that hydro's monthly budget cf x capacity x hours matches the climate data.
 */
static const int month_hours[12] = {744, 672, 744, 720, 744, 720,
                                    744, 744, 720, 744, 720, 744};

void supply_cfg_default(supply_cfg *c, source_kind k, double capacity_w)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", source_name(k));
    c->kind = k;
    c->capacity_w = capacity_w;
    c->derate = 1.0;
    for (int m = 0; m < 12; m++)
        c->month_frac[m] = 1.0;
    for (int h = 0; h < 24; h++)
        c->tod_mult[h] = 1.0;
    c->renewable = (unsigned)k < SRC_N && source_table[k].renewable;
    switch (k) {
    case SRC_GEOTHERMAL:
        c->mttr_s = 48 * 3600.0;
        /* From availability A = MTBF / (MTBF + MTTR): MTBF = MTTR x A / (1 -
         * A); A = 0.91 is the Iceland fleet's capacity factor (facts.md 3.2),
         * the 48 h repair time an assumption (supply.h). */
        c->mtbf_s = c->mttr_s * 0.91 / (1 - 0.91);
        c->carbon_g_per_j = 38.0 / J_PER_KWH;
        c->price_usd_per_j = 0.0;
        break;
    case SRC_HYDRO:
        c->cf = 0.46;
        c->carbon_g_per_j = 24.0 / J_PER_KWH;
        break;
    case SRC_GRID:
        /* 80 USD/MWh, an assumption (no tariff in the corpus, docs/catalog.md).
         */
        c->price_usd_per_j = 80.0 / 1e3 / J_PER_KWH;
        c->carbon_g_per_j = 481.0 / J_PER_KWH;
        break;
    default: /* not a supply kind: supply_cfg_check refuses it */
        break;
    }
}

int supply_cfg_check(const supply_cfg *c, sim_err *err)
{
    if ((unsigned)c->kind >= SRC_N ||
        (source_table[c->kind].role != SOURCE_FIRM &&
         source_table[c->kind].role != SOURCE_GRID))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "source %s: unknown kind %d", c->name, (int)c->kind);
    if (!(c->capacity_w >= 0 && isfinite(c->capacity_w)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "source %s: capacity_w must be >= 0 (got %g)",
                           c->name, c->capacity_w);
    if (!(c->derate >= 0 && c->derate <= 1) || !(c->cf >= 0 && c->cf <= 1))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "source %s: derate and cf must be in 0..1 (got %g, %g)", c->name,
            c->derate, c->cf);
    for (int m = 0; m < 12; m++)
        if (!(c->month_frac[m] >= 0 && c->month_frac[m] <= 1))
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "source %s: month_frac[%d] must be in 0..1 (got %g)", c->name,
                m, c->month_frac[m]);
    for (int h = 0; h < 24; h++)
        if (!(c->tod_mult[h] >= 0 && isfinite(c->tod_mult[h])))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "source %s: tod_mult[%d] must be >= 0 (got %g)",
                               c->name, h, c->tod_mult[h]);
    if (!(c->mtbf_s >= 0 && c->mttr_s >= 0 && isfinite(c->mtbf_s) &&
          isfinite(c->mttr_s)) ||
        (c->mtbf_s > 0 && c->mttr_s <= 0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "source %s: mtbf_s >= 0 and mttr_s > 0 expected (got %g, %g)",
            c->name, c->mtbf_s, c->mttr_s);
    if (!(c->price_usd_per_j >= 0 && isfinite(c->price_usd_per_j)) ||
        !(c->carbon_g_per_j >= 0 && isfinite(c->carbon_g_per_j)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "source %s: price and carbon must be >= 0", c->name);
    return SIM_OK;
}

int supply_init(supply *s, const supply_cfg *c, uint64_t master, uint64_t rep,
                uint64_t stream, sim_err *err)
{
    int rc = supply_cfg_check(c, err);
    if (rc != SIM_OK)
        return rc;
    memset(s, 0, sizeof *s);
    s->c = *c;
    s->up = 1;
    s->month = -1;
    s->r = rng_stream_new(NULL, master, rep, stream);
    return SIM_OK;
}

void supply_fini(supply *s)
{
    if (s && s->r) {
        gsl_rng_free(s->r);
        s->r = NULL;
    }
}

/* Only transitions count: forcing a source down twice is one outage, and
 * downtime is accumulated when an outage closes, so an open outage is added by
 * supply_availability at query time instead. */
void supply_set_up(supply *s, int up, double now_s)
{
    if (s->up && !up) {
        s->n_outages++;
        s->down_since_s = now_s;
    } else if (!s->up && up) {
        s->down_s += now_s - s->down_since_s;
    }
    s->up = up ? 1 : 0;
}

static void on_repair(sim *e, void *ctx, uint64_t arg);

/* The draw follows the state change, so a source's stream is consumed in
 * the order fail, repair, fail, ... whatever else the run does. The handle
 * goes to s->next so that the one pending event of this source stays
 * reachable (sim_cancel, sim_pending); nothing cancels it today, since the
 * engine is torn down with the run. */
static void on_fail(sim *e, void *ctx, uint64_t arg)
{
    supply *s = ctx;
    supply_set_up(s, 0, e->now_s);
    double dt = gsl_ran_exponential(s->r, s->c.mttr_s);
    sim_schedule_in(e, dt, s->prio, on_repair, s, arg, &s->next);
}

static void on_repair(sim *e, void *ctx, uint64_t arg)
{
    supply *s = ctx;
    supply_set_up(s, 1, e->now_s);
    double dt = gsl_ran_exponential(s->r, s->c.mtbf_s);
    sim_schedule_in(e, dt, s->prio, on_fail, s, arg, &s->next);
}

int supply_start_outages(supply *s, sim *e, int prio)
{
    if (!(s->c.mtbf_s > 0))
        return SIM_OK;
    s->prio = prio;
    double dt = gsl_ran_exponential(s->r, s->c.mtbf_s);
    return sim_schedule_in(e, dt, prio, on_fail, s, 0, &s->next);
}

/* hoy_h is wrapped onto the climate year so that a horizon longer than a year
 * repeats the seasons instead of indexing past the table. */
double supply_available_w(const supply *s, double hoy_h, double dt_s)
{
    if (!s->up)
        return 0.0;
    size_t i = (size_t)fmod(hoy_h < 0 ? 0 : hoy_h, (double)CLIMATE_HOURS);
    int m = climate_month_of_hour(i);
    switch (s->c.kind) {
    case SRC_HYDRO: {
        double p = s->c.capacity_w * s->c.month_frac[m] * s->c.derate;
        if (s->c.cf > 0 && dt_s > 0) {
            double budget = s->c.cf * s->c.capacity_w * month_hours[m] * 3600.0;
            /* A budget recorded for another month is stale: the month has
             * rolled over since the last delivery, and supply_deliver resets it
             * lazily, so it counts as unused here. */
            double used = s->month == m ? s->month_used_j : 0.0;
            double left = budget - used;
            /* The remaining budget is spread over this step only, so the last
             * step of a month may run the plant below its seasonal capacity and
             * the budget is never overdrawn. */
            double p_left = left > 0 ? left / dt_s : 0.0;
            if (p_left < p)
                p = p_left;
        }
        return p;
    }
    /* The grid's limit is its capacity (the import limit): derate and month
     * shares describe plants, not a connection. */
    case SRC_GRID:
        return s->c.capacity_w;
    default: /* any other firm kind (geothermal): baseload x derate */
        return s->c.capacity_w * s->c.derate;
    }
}

/* Only hydro keeps a budget; the month is reset here, at the first delivery in
 * a new month, so the state needs no calendar event of its own. */
void supply_deliver(supply *s, double hoy_h, double energy_j)
{
    if (s->c.kind != SRC_HYDRO)
        return;
    size_t i = (size_t)fmod(hoy_h < 0 ? 0 : hoy_h, (double)CLIMATE_HOURS);
    int m = climate_month_of_hour(i);
    if (s->month != m) {
        s->month = m;
        s->month_used_j = 0;
    }
    s->month_used_j += energy_j;
}

double supply_price_usd_per_j(const supply *s, double hoy_h)
{
    double h = fmod(hoy_h < 0 ? 0 : hoy_h, 24.0);
    return s->c.price_usd_per_j * s->c.tod_mult[(int)h % 24];
}

/* An outage still open at now_s counts up to now_s, so the figure is correct
 * mid-run and not only after the last repair. */
double supply_availability(const supply *s, double now_s)
{
    if (now_s <= 0)
        return 1.0;
    double down = s->down_s + (s->up ? 0.0 : now_s - s->down_since_s);
    return 1.0 - down / now_s;
}
