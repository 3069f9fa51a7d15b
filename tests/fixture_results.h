/* tests/fixture_results.h: synthetic but self-consistent run results for
 * the store, chart and report tests, until real runs exist (issue 6).
 *
 * A site with solar, a battery and the grid feeds a facility load; every
 * step's balance closes (sources = facility load, solar = used + charge +
 * curtailed), the battery state of charge integrates charge and discharge,
 * site totals are the sums of the steps, and each job's event log agrees
 * with its counts (interruptions, checkpoints, pauses) and times. Values
 * vary by replication through a fixed xorshift stream, so the same call
 * gives the same bytes. These are test inputs, not published figures.
 */
#ifndef TESTS_FIXTURE_RESULTS_H
#define TESTS_FIXTURE_RESULTS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/db.h"
#include "models/results.h"

#define FX_STEP_S 900.0
#define FX_N_JOBS 3

static inline double fx_uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static inline void fx_event(res_rep *r, size_t *cap, double t, int job,
                            int kind, int cause, double value)
{
    if (r->n_events == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        r->events = realloc(r->events, *cap * sizeof *r->events);
    }
    r->events[r->n_events++] = (res_event){t, job, kind, cause, value};
}

/* Fills r (caller frees with res_rep_free) for replication rep with n_steps
 * steps of FX_STEP_S. with_steps/with_events: whether to keep them. */
static inline void fx_rep(res_rep *r, uint32_t rep, size_t n_steps,
                          int with_steps, int with_events)
{
    uint64_t s =
        0x9e3779b97f4a7c15ull ^ ((uint64_t)rep * 0xbf58476d1ce4e5b9ull);
    const double bat_j = 3.6e10, bat_w = 2.0e6, solar_peak_w = 5.5e6;
    double soc = 0.5, horizon = (double)n_steps * FX_STEP_S;
    size_t cap = 0;
    res_step *st = calloc(n_steps, sizeof *st);
    memset(r, 0, sizeof *r);
    r->replication = rep;
    fx_uniform(&s);
    for (size_t i = 0; i < n_steps; i++) {
        res_step *p = &st[i];
        double t = (double)i * FX_STEP_S, day = fmod(t, 86400.0) / 86400.0;
        double sun = sin((day - 0.25) * 2 * 3.14159265358979323846), solar,
               need, dis = 0, chg = 0;
        p->t_s = t;
        p->ambient_c = 18.0 + 9.0 * sun + 2.0 * fx_uniform(&s);
        p->it_w = 3.1e6 + 2.0e5 * sin(t / 7200.0) + 1.0e5 * fx_uniform(&s);
        p->pue = 1.08 + 0.004 * (p->ambient_c - 15.0);
        p->facility_w = p->it_w * p->pue;
        p->demand_w = p->facility_w;
        solar = sun > 0 ? solar_peak_w * sun * (0.8 + 0.2 * fx_uniform(&s)) : 0;
        p->source_w[SRC_SOLAR] = fmin(solar, p->facility_w);
        need = p->facility_w - p->source_w[SRC_SOLAR];
        if (solar > p->facility_w) {
            chg = fmin(fmin(solar - p->facility_w, bat_w),
                       (1.0 - soc) * bat_j / FX_STEP_S);
            p->curtailed_w = solar - p->facility_w - chg;
        } else {
            dis = fmin(fmin(need, bat_w),
                       fmax(0.0, soc - 0.1) * bat_j / FX_STEP_S);
        }
        p->battery_charge_w = chg;
        p->source_w[SRC_BATTERY] = dis;
        p->source_w[SRC_GRID] = need - dis;
        soc += (chg - dis) * FX_STEP_S / bat_j;
        p->soc_frac = soc;
        p->soh_frac = 0.85 - 1e-9 * t;
        p->throttle = 1.0;
        r->site.it_energy_j += p->it_w * FX_STEP_S;
        r->site.facility_energy_j += p->facility_w * FX_STEP_S;
        for (int k = 0; k < SRC_N; k++)
            r->site.energy_by_source_j[k] += p->source_w[k] * FX_STEP_S;
        r->site.battery_charge_j += chg * FX_STEP_S;
        r->site.curtailed_j += p->curtailed_w * FX_STEP_S;
        r->site.solar_capacity_factor +=
            solar * FX_STEP_S / (solar_peak_w * horizon);
    }
    r->site.battery_cycles = r->site.battery_charge_j / bat_j;
    r->site.battery_soh_final = st[n_steps - 1].soh_frac;
    r->site.utilization = 0.8 + 0.1 * fx_uniform(&s);
    r->site.renewable_fraction = (r->site.energy_by_source_j[SRC_SOLAR] +
                                  r->site.energy_by_source_j[SRC_BATTERY]) /
                                 r->site.facility_energy_j;
    r->site.co2_kg = 1e-7 * r->site.energy_by_source_j[SRC_GRID];
    r->site.cost_usd = 2.2e-8 * r->site.energy_by_source_j[SRC_GRID];
    r->site.pue_mean = r->site.facility_energy_j / r->site.it_energy_j;

    r->n_jobs = FX_N_JOBS;
    r->jobs = calloc(FX_N_JOBS, sizeof *r->jobs);
    for (int j = 0; j < FX_N_JOBS; j++) {
        res_job *jb = &r->jobs[j];
        double submit = 86400.0 * 2 * j, start = submit + 3600.0 * (1 + j);
        double train =
            86400.0 * (4.0 + 2.5 * j) * (0.9 + 0.25 * fx_uniform(&s));
        double t = start, lost = 0, share = 0.25 + 0.1 * j;
        int n_int = (int)(4 * fx_uniform(&s)), n_pause = j == 1 ? 1 : 0;
        fx_event(r, &cap, submit, j, RES_EV_SUBMIT, RES_CAUSE_NONE, 0);
        fx_event(r, &cap, start, j, RES_EV_START, RES_CAUSE_NONE,
                 512.0 * (j + 1));
        for (int k = 0; k < n_int; k++) {
            double ti = start + train * (k + 1) / (n_int + 1);
            fx_event(r, &cap, ti, j, RES_EV_INTERRUPT, 1 + k % 4, 1.5e9);
            fx_event(r, &cap, ti + 1800.0, j, RES_EV_RESTART, RES_CAUSE_NONE,
                     0);
            lost += 1800.0;
        }
        if (n_pause) {
            fx_event(r, &cap, start + 0.3 * train, j, RES_EV_PAUSE,
                     RES_CAUSE_POWER, 0);
            fx_event(r, &cap, start + 0.3 * train + 7200.0, j, RES_EV_RESUME,
                     RES_CAUSE_NONE, 0);
            lost += 7200.0;
        }
        for (t = start + 86400.0; t < start + train; t += 86400.0) {
            fx_event(r, &cap, t, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, 1e10);
            jb->checkpoints++;
        }
        jb->submit_s = submit;
        jb->start_s = start;
        jb->gpus = 512 * (j + 1);
        jb->modules_spanned = 1 + j / 2;
        jb->interruptions = n_int;
        jb->pauses = n_pause;
        jb->tokens_per_sec_per_gpu = 5123.4 - 300.0 * j;
        jb->completed = start + train + lost <= horizon;
        if (jb->completed) {
            jb->end_s = start + train + lost;
            jb->time_to_train_s = jb->end_s - submit;
            jb->run_time_s = jb->end_s - start;
            jb->tokens = jb->tokens_per_sec_per_gpu * jb->gpus * train;
            fx_event(r, &cap, jb->end_s, j, RES_EV_END, RES_CAUSE_NONE,
                     jb->tokens);
        } else {
            jb->end_s = jb->time_to_train_s = jb->run_time_s = NAN;
            jb->tokens = jb->tokens_per_sec_per_gpu * jb->gpus *
                         (horizon - start - lost);
        }
        {
            double held = (jb->completed ? jb->end_s : horizon) - start;
            jb->gpu_s = held * jb->gpus;
            jb->goodput = (held - lost) / held;
            jb->it_energy_j = share * r->site.it_energy_j * held / horizon;
            jb->facility_energy_j = jb->it_energy_j * r->site.pue_mean;
            for (int k = 0; k < SRC_N; k++)
                jb->energy_by_source_j[k] = jb->facility_energy_j *
                                            r->site.energy_by_source_j[k] /
                                            r->site.facility_energy_j;
            jb->renewable_fraction = r->site.renewable_fraction;
            jb->co2_kg = 1e-7 * jb->energy_by_source_j[SRC_GRID];
            jb->cost_usd = 2.2e-8 * jb->energy_by_source_j[SRC_GRID];
        }
    }
    /* The log is kept in time order, as the engine writes it. */
    for (size_t a = 1; a < r->n_events; a++)
        for (size_t b = a; b > 0 && r->events[b].t_s < r->events[b - 1].t_s;
             b--) {
            res_event tmp = r->events[b];
            r->events[b] = r->events[b - 1];
            r->events[b - 1] = tmp;
        }
    if (with_steps) {
        r->steps = st;
        r->n_steps = n_steps;
    } else {
        free(st);
    }
    if (!with_events) {
        free(r->events);
        r->events = NULL;
        r->n_events = 0;
    }
}

static const db_job_def fx_jobs[FX_N_JOBS] = {
    {"pretrain-70b", "llama3-70b", "fp8", "GB300", 512, 1.5e12, 4, 4, 5, 2, 1,
     1, "selective", 1, "vp,recompute,distributed_optimizer", 1},
    {"pretrain-8b, \"ablation\"", "llama3-8b", "bf16", "GB300", 1024, 4.0e11, 1,
     1, 1, 1, 1, 4, "none", 0, "", 1},
    {"moe-test", "mixtral-8x7b", "fp8", "GB300", 1536, 8.0e11, 2, 3, 7, 1, 8, 2,
     "full", 1, "tp,pp,vp,cp,ep,mbs,recompute,distributed_optimizer,etp", 2},
};
static const db_count fx_modules[] = {{"spark-liquid", 1}};
static const db_count fx_gpus[] = {{"GB300", 2304}};
static const db_source_def fx_sources[] = {
    {"solar", "array-1", 5.5e6, 0},
    {"battery", "second-life-1", 2.0e6, 3.6e10},
    {"grid", "utility", 5.0e6, 0},
};

/* Metadata matching fx_rep: a 30-day horizon of 15-minute steps. */
static inline db_run_meta fx_meta(uint32_t reps, size_t n_steps)
{
    db_run_meta m;
    memset(&m, 0, sizeof m);
    m.scenario = "fixture-site";
    m.config_text = "name = \"fixture-site\";\nsite = { modules = 1; };\n";
    m.seed = 42;
    m.replications = reps;
    m.horizon_s = (double)n_steps * FX_STEP_S;
    m.step_s = FX_STEP_S;
    m.site_name = "Fixture Flats, NV";
    m.it_capacity_w = 3.5e6;
    m.n_modules = 1;
    m.modules = fx_modules;
    m.n_gpus = 1;
    m.gpus = fx_gpus;
    m.n_sources = 3;
    m.sources = fx_sources;
    m.n_jobs = FX_N_JOBS;
    m.jobs = fx_jobs;
    m.store_timeseries = 1;
    m.ts_downsample = 1;
    m.store_events = 1;
    m.case_index = -1;
    m.mpi_rank = -1;
    m.created_utc = "2026-01-01T00:00:00Z";
    return m;
}

#endif
