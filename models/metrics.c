/* models/metrics.c: the metric table (see metrics.h). */
#include "models/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

#define J_PER_MWH 3.6e9

static double j_ttt(const res_job *j)
{
    return j->time_to_train_s / 86400.0;
}
static double j_run(const res_job *j)
{
    return j->run_time_s / 86400.0;
}
static double j_gpuh(const res_job *j)
{
    return j->gpu_s / 3600.0;
}
static double j_it(const res_job *j)
{
    return j->it_energy_j / J_PER_MWH;
}
static double j_fac(const res_job *j)
{
    return j->facility_energy_j / J_PER_MWH;
}
static double j_ren(const res_job *j)
{
    return j->renewable_fraction;
}
static double j_co2(const res_job *j)
{
    return j->co2_kg / 1000.0;
}
static double j_cost(const res_job *j)
{
    return j->cost_usd;
}
static double j_int(const res_job *j)
{
    return j->interruptions;
}
static double j_good(const res_job *j)
{
    return j->goodput;
}
static double j_ckpt(const res_job *j)
{
    return j->checkpoints;
}
static double j_pause(const res_job *j)
{
    return j->pauses;
}
static double j_tps(const res_job *j)
{
    return j->tokens_per_s_per_gpu;
}
static double j_submit(const res_job *j)
{
    return j->submit_s / 86400.0;
}
static double j_start(const res_job *j)
{
    return j->start_s / 86400.0;
}
static double j_end(const res_job *j)
{
    return j->end_s / 86400.0;
}
static double j_done(const res_job *j)
{
    return j->completed ? 1.0 : 0.0;
}
static double j_mods(const res_job *j)
{
    return j->modules_spanned;
}

const metric_def metric_job[] = {
    {"time_to_train_days", "d", "time to train (submit to end)", j_ttt, NULL,
     -1},
    {"gpu_hours", "GPU h", "GPU-hours held", j_gpuh, NULL, -1},
    {"it_energy_mwh", "MWh", "IT energy", j_it, NULL, -1},
    {"facility_energy_mwh", "MWh", "facility energy (energy per run)", j_fac,
     NULL, -1},
    {"renewable_fraction", "1", "renewable share", j_ren, NULL, -1},
    {"co2_t", "tCO2e", "carbon (lifecycle)", j_co2, NULL, -1},
    {"cost_usd", "USD", "energy cost", j_cost, NULL, -1},
    {"interruptions", "1", "interruptions", j_int, NULL, -1},
    {"goodput", "1", "goodput (ideal / actual run time)", j_good, NULL, -1},
    {"run_time_days", "d", "run time (start to end)", j_run, NULL, -1},
    {"submit_day", "d", "submit", j_submit, NULL, -1},
    {"start_day", "d", "start", j_start, NULL, -1},
    {"end_day", "d", "end", j_end, NULL, -1},
    {"checkpoints", "1", "checkpoints", j_ckpt, NULL, -1},
    {"pauses", "1", "power pauses", j_pause, NULL, -1},
    {"tokens_per_sec_per_gpu", "tokens/s/GPU", "throughput at placement", j_tps,
     NULL, -1},
    {"modules_spanned", "1", "modules spanned", j_mods, NULL, -1},
    {"completed", "1", "finished within the horizon", j_done, NULL, -1},
};
const size_t metric_n_job = sizeof metric_job / sizeof metric_job[0];

static double s_util(const res_site *s)
{
    return s->utilization;
}
static double s_it(const res_site *s)
{
    return s->it_energy_j / J_PER_MWH;
}
static double s_fac(const res_site *s)
{
    return s->facility_energy_j / J_PER_MWH;
}
static double s_chg(const res_site *s)
{
    return s->battery_charge_j / J_PER_MWH;
}
static double s_curt(const res_site *s)
{
    return s->curtailed_j / J_PER_MWH;
}
static double s_short(const res_site *s)
{
    return s->shortfall_j / J_PER_MWH;
}
static double s_hshort(const res_site *s)
{
    return s->hours_short;
}
static double s_cyc(const res_site *s)
{
    return s->battery_cycles;
}
static double s_soh(const res_site *s)
{
    return s->battery_soh_final;
}
static double s_ren(const res_site *s)
{
    return s->renewable_fraction;
}
static double s_co2(const res_site *s)
{
    return s->co2_kg / 1000.0;
}
static double s_cost(const res_site *s)
{
    return s->cost_usd;
}
static double s_pue(const res_site *s)
{
    return s->pue_mean;
}
static double s_cf(const res_site *s)
{
    return s->solar_capacity_factor;
}

const metric_def metric_site[] = {
    {"utilization", "1", "GPU utilization", NULL, s_util, -1},
    {"it_energy_mwh", "MWh", "IT energy", NULL, s_it, -1},
    {"facility_energy_mwh", "MWh", "facility energy", NULL, s_fac, -1},
    {"energy_solar_mwh", "MWh", "energy from solar", NULL, NULL, RES_SOLAR},
    {"energy_wind_mwh", "MWh", "energy from wind", NULL, NULL, RES_WIND},
    {"energy_geothermal_mwh", "MWh", "energy from geothermal", NULL, NULL,
     RES_GEOTHERMAL},
    {"energy_hydro_mwh", "MWh", "energy from hydro", NULL, NULL, RES_HYDRO},
    {"energy_battery_mwh", "MWh", "energy from batteries", NULL, NULL,
     RES_BATTERY},
    {"energy_grid_mwh", "MWh", "energy from the grid", NULL, NULL, RES_GRID},
    {"battery_charge_mwh", "MWh", "energy into batteries", NULL, s_chg, -1},
    {"curtailed_mwh", "MWh", "curtailed", NULL, s_curt, -1},
    {"shortfall_mwh", "MWh", "unserved demand", NULL, s_short, -1},
    {"hours_short", "h", "hours short of power", NULL, s_hshort, -1},
    {"battery_cycles", "1", "battery equivalent full cycles", NULL, s_cyc, -1},
    {"battery_soh_final", "1", "battery state of health at the end", NULL,
     s_soh, -1},
    {"renewable_fraction", "1", "renewable share", NULL, s_ren, -1},
    {"co2_t", "tCO2e", "carbon (lifecycle)", NULL, s_co2, -1},
    {"cost_usd", "USD", "energy cost", NULL, s_cost, -1},
    {"pue_mean", "1", "PUE (facility / IT energy)", NULL, s_pue, -1},
    {"solar_capacity_factor", "1", "solar capacity factor (AC)", NULL, s_cf,
     -1},
};
const size_t metric_n_site = sizeof metric_site / sizeof metric_site[0];

double metric_job_value(size_t k, const res_rep *r, size_t i)
{
    return metric_job[k].job(&r->jobs[i]);
}

double metric_site_value(size_t k, const res_rep *r)
{
    const metric_def *d = &metric_site[k];
    if (d->source >= 0)
        return r->site.energy_by_source_j[d->source] / J_PER_MWH;
    return d->site(&r->site);
}

stat_summary metric_job_summary(size_t k, const res_rep *reps, size_t n,
                                size_t i)
{
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    stat_summary s;
    for (size_t r = 0; r < n; r++)
        v[r] = metric_job_value(k, &reps[r], i);
    s = stats_summarize(v, 1, n);
    free(v);
    return s;
}

stat_summary metric_site_summary(size_t k, const res_rep *reps, size_t n)
{
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    stat_summary s;
    for (size_t r = 0; r < n; r++)
        v[r] = metric_site_value(k, &reps[r]);
    s = stats_summarize(v, 1, n);
    free(v);
    return s;
}

int metric_job_index(const char *name)
{
    for (size_t k = 0; k < metric_n_job; k++)
        if (strcmp(metric_job[k].name, name) == 0)
            return (int)k;
    return -1;
}

int metric_site_index(const char *name)
{
    for (size_t k = 0; k < metric_n_site; k++)
        if (strcmp(metric_site[k].name, name) == 0)
            return (int)k;
    return -1;
}
