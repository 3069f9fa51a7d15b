/* app/run_store.c: scenario + replications -> db_store_run (see
 * run_store.h). It owns the translation of what the application knows
 * about a run (the resolved scenario, the options of run or sweep) into
 * io/db.h's db_run_meta; it never opens a database (the caller does) and
 * never writes SQL (io/db_write.c does). */
#include "app/run_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/site.h"
#include "sim/mem.h"

void run_store_opts_default(run_store_opts *o)
{
    memset(o, 0, sizeof *o);
    o->store_timeseries = 1;
    o->ts_downsample = 1;
    o->store_events = 1;
    o->case_index = -1;
    o->mpi_rank = -1;
}

/* Adds count to the entry of type in v (n entries), appending if new. */
static void add_count(db_count *v, size_t *n, const char *type, int64_t count)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i].type, type) == 0) {
            v[i].count += count;
            return;
        }
    v[*n].type = type;
    v[*n].count = count;
    (*n)++;
}

/* Why one long function: db_run_meta is a flat record, and filling it
 * field by field in the order of its declaration (run facts, module and
 * GPU counts, energy sources from the one source table, jobs with the
 * layout the run used) lets a reader check it against io/db.h line by
 * line. Every array it points to is allocated here, once, into rm, so one
 * run_store_meta_free releases them all. */
void run_store_meta_fill(run_store_meta *rm, const scenario *s,
                         const run_store_opts *o, uint32_t n_reps)
{
    db_run_meta *m = &rm->m;
    const scen_energy *en = &s->energy;
    size_t nm = s->n_modules ? s->n_modules : 1;

    memset(rm, 0, sizeof *rm);
    rm->modules = sim_xcalloc(nm, sizeof *rm->modules);
    rm->gpus = sim_xcalloc(nm, sizeof *rm->gpus);
    rm->sources = sim_xcalloc(SRC_N, sizeof *rm->sources);
    rm->jobs = sim_xcalloc(s->n_jobs ? s->n_jobs : 1, sizeof *rm->jobs);
    m->scenario = o->scenario_name;
    m->config_text = scenario_resolved_text(s);
    m->seed = o->seed;
    m->replications = n_reps;
    m->horizon_s = s->sim.horizon_s;
    m->step_s = s->sim.step_s;
    m->site_name = s->site.name;
    for (size_t i = 0; i < s->n_modules; i++) {
        const scen_module *sm = &s->modules[i];
        m->it_capacity_w += sm->it_capacity_w;
        add_count(rm->modules, &m->n_modules, sm->type->name, sm->count);
        add_count(rm->gpus, &m->n_gpus, sm->gpu->name, sm->gpus);
    }
    m->modules = rm->modules;
    m->gpus = rm->gpus;
    for (int k = 0; k < SRC_N; k++) {
        double w = scenario_source_rating_w(s, (source_kind)k);
        if (w > 0 || (k == SRC_GRID && en->present[SRC_GRID]))
            rm->sources[m->n_sources++] =
                (db_source_def){source_table[k].name, source_table[k].name, w,
                                k == SRC_BATTERY ? en->battery.capacity_j : 0};
    }
    m->sources = rm->sources;
    rm->chosen = sim_xcalloc(s->n_jobs + 1, sizeof *rm->chosen);
    for (size_t j = 0; j < s->n_jobs; j++) {
        const scen_job *sj = &s->jobs[j];
        db_job_def *jd = &rm->jobs[j];
        tp_result tr;
        sim_err e;
        memset(jd, 0, sizeof *jd);
        jd->name = sj->name;
        jd->model = sj->model->name;
        jd->precision = sj->precision;
        jd->gpu_type = sj->gpu->name;
        jd->gpus = sj->gpus;
        jd->tokens = sj->tokens;
        jd->distopt = -1;
        /* The layout the run used: site_job_throughput chooses it once per
         * job, at its reference placement, whatever the placement. */
        sim_err_clear(&e);
        if (o->tp &&
            site_job_throughput(s, sj, o->tp, 0.0, 0.0, &tr, &e) == SIM_OK) {
            jd->tp = tr.layout.tp;
            jd->pp = tr.layout.pp;
            jd->vp = tr.layout.vp;
            jd->cp = tr.layout.cp;
            jd->ep = tr.layout.ep;
            jd->etp = tr.layout.etp;
            jd->mbs = tr.layout.mbs;
            jd->recompute = tp_recompute_name(tr.layout.recompute);
            jd->distopt = tr.layout.distopt == TP_DISTOPT_ON;
            jd->chosen =
                tp_chosen_list(tr.chosen, rm->chosen[j], sizeof rm->chosen[j]);
        }
    }
    m->n_jobs = s->n_jobs;
    m->jobs = rm->jobs;
    m->store_timeseries = o->store_timeseries;
    m->ts_downsample = o->ts_downsample;
    m->store_events = o->store_events;
    m->sweep_key = o->sweep_key;
    m->case_key = o->case_key;
    m->case_index = o->case_index;
    m->overrides_json = o->overrides_json;
    m->mpi_rank = o->mpi_rank;
    m->status = o->status;
    m->var_shares = o->var_shares;
    m->n_var_shares = o->var_shares ? o->n_var_shares : 0;
}

void run_store_meta_free(run_store_meta *rm)
{
    free(rm->modules);
    free(rm->gpus);
    free(rm->sources);
    free(rm->jobs);
    free(rm->chosen);
    memset(rm, 0, sizeof *rm);
}

int run_store(db *d, const scenario *s, const run_store_opts *o,
              const res_rep *reps, size_t n, int64_t *run_id, sim_err *err)
{
    run_store_meta rm;
    int rc;
    run_store_meta_fill(&rm, s, o, (uint32_t)n);
    rc = db_store_run(d, &rm.m, reps, n, run_id, err);
    run_store_meta_free(&rm);
    return rc;
}
