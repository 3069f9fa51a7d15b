/* app/run_check.c: the checks `run`, `check` and `sweep` share after a
 * scenario loads (see run_check.h). Each check appends its errors and goes
 * on, so one `check` lists every problem it can see; the scenario loader
 * itself still stops at its first error (its later keys may depend on the
 * earlier ones). It never simulates and never prints: errors go into the
 * caller's run_check_errs. */
#include "app/run_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/climate_load.h"
#include "models/results.h"
#include "models/site.h"
#include "sim/mem.h"

/* Beyond the cap an error is counted, not kept: a scenario with hundreds
 * of bad jobs reports the first RUN_CHECK_MAX_ERRS and how many more, and
 * the record stays a fixed size the caller can allocate once. */
int run_check_add(run_check_errs *errs, const sim_err *e)
{
    if (errs->n < RUN_CHECK_MAX_ERRS)
        errs->e[errs->n++] = *e;
    else
        errs->dropped++;
    return e->code;
}

/* An estimate, not a measure: the series dominate (one res_step per step
 * per kept replication), the job and site results are counted exactly, and
 * the event log is left out because its length depends on the draws; the
 * check only has to refuse the runs that clearly cannot fit. */
double run_check_memory_bytes(const scenario *s, const run_check_opts *o)
{
    double steps = ceil(s->sim.horizon_s / s->sim.step_s);
    double kept = o->series == 2   ? (double)o->replications
                  : o->series == 1 ? 1.0
                                   : 0.0;
    double per_rep =
        (double)sizeof(res_rep) + (double)s->n_jobs * (double)sizeof(res_job);
    return steps * kept * (double)sizeof(res_step) +
           (double)o->replications * per_rep;
}

/* Union-find root with path halving: the fabric groups are the connected
 * components of the module links, a few hundred modules at most. */
static int find_root(int *p, int i)
{
    while (p[i] != i)
        i = p[i] = p[p[i]];
    return i;
}

/* A job needs its systems (GPUs rounded up to whole systems, plus hot
 * spares) inside one fabric group: groups are the module groups joined by
 * links, or, with no links, one spine joining every module (the rule of
 * models/site.c). A job larger than every group never starts. */
static void check_fabric_groups(const scenario *s, run_check_errs *errs)
{
    size_t ng = s->n_modules ? s->n_modules : 1;
    int *p = sim_xcalloc(ng, sizeof *p);
    int64_t *cap = sim_xcalloc(ng, sizeof *cap);

    for (size_t g = 0; g < s->n_modules; g++)
        p[g] = s->fabric.n_links ? (int)g : 0;
    for (size_t l = 0; l < s->fabric.n_links; l++) {
        int a = find_root(p, (int)s->fabric.links[l].a);
        int b = find_root(p, (int)s->fabric.links[l].b);
        if (a != b)
            p[a < b ? b : a] = a < b ? a : b;
    }
    for (size_t k = 0; k < s->n_jobs; k++) {
        const scen_job *j = &s->jobs[k];
        int sys_gpus = 0;
        int64_t need, best = 0;
        memset(cap, 0, ng * sizeof *cap);
        for (size_t g = 0; g < s->n_modules; g++)
            if (s->modules[g].gpu == j->gpu) {
                if (!sys_gpus)
                    sys_gpus = s->modules[g].system->gpus;
                cap[find_root(p, (int)g)] +=
                    (int64_t)s->modules[g].units * s->modules[g].count;
            }
        if (!sys_gpus)
            continue; /* no such GPU at all: the loader refused it */
        for (size_t g = 0; g < ng; g++)
            if (cap[g] > best)
                best = cap[g];
        need = (j->gpus + sys_gpus - 1) / sys_gpus +
               (j->hot_spares + sys_gpus - 1) / sys_gpus;
        if (need > best) {
            sim_err e;
            sim_err_set(&e, SIM_ECONFIG, j->src_file, j->gpus_line,
                        "jobs.[%zu].gpus: job '%s' is larger than every "
                        "fabric group, so it could never start (got %d GPUs "
                        "+ %d hot spares = %lld systems of %d %s, expected "
                        "<= %lld systems (%lld GPUs): the largest group of "
                        "modules joined by fabric links)",
                        k, j->name, j->gpus, j->hot_spares, (long long)need,
                        sys_gpus, j->gpu->name, (long long)best,
                        (long long)best * sys_gpus);
            run_check_add(errs, &e);
        }
    }
    free(cap);
    free(p);
}

/* The query a job makes when it is submitted (one module, no data-parallel
 * link): a layout that cannot be formed or does not fit fails here. */
static void check_throughput(const scenario *s, const tp_model *tp,
                             run_check_errs *errs)
{
    for (size_t k = 0; k < s->n_jobs; k++) {
        const scen_job *j = &s->jobs[k];
        tp_result r;
        sim_err e, out;
        memset(&r, 0, sizeof r);
        sim_err_clear(&e);
        if (site_job_throughput(s, j, tp, 0.0, 0.0, &r, &e) == SIM_OK) {
            if (r.tokens_per_sec_per_gpu > 0)
                continue;
            sim_err_set(&e, SIM_EINVAL, NULL, 0, "predicted throughput is %g",
                        r.tokens_per_sec_per_gpu);
        }
        {
            char lay[112], et[24] = "";
            if (j->etp)
                snprintf(et, sizeof et, " etp %d", j->etp);
            if (j->tp)
                snprintf(lay, sizeof lay, "tp %d pp %d cp %d ep %d%s vp %d%s",
                         j->tp, j->pp ? j->pp : 1, j->cp ? j->cp : 1,
                         j->ep ? j->ep : 1, et, j->vp ? j->vp : 1,
                         j->fsdp ? " fsdp" : "");
            else
                snprintf(lay, sizeof lay, "no layout given%s",
                         j->fsdp ? ", fsdp" : "");
            /* e.msg already names the job ("job 'x': ..."). */
            sim_err_set(&out, SIM_ECONFIG, j->src_file, j->src_line,
                        "jobs.[%zu]: %s (got %d %s, %s; expected a layout "
                        "the throughput model can form and that fits)",
                        k, e.msg, j->gpus, j->gpu->name, lay);
        }
        run_check_add(errs, &out);
    }
}

/* Every check runs even after one fails, so one `check` lists every
 * problem; the weather is loaded here because reading it is itself a
 * check, and handed to the caller only when all passed (runcase then
 * simulates with the very weather that was checked). */
int run_check_scenario(const scenario *s, const tp_model *tp,
                       const run_check_opts *o, climate_year **wx, size_t *n_wx,
                       run_check_errs *errs)
{
    sim_err e;
    size_t n0 = errs->n + errs->dropped;
    double need;

    *wx = NULL;
    sim_err_clear(&e);
    if (climate_load_for_scenario(s, wx, n_wx, &e) != SIM_OK)
        run_check_add(errs, &e);
    if (tp)
        check_throughput(s, tp, errs);
    check_fabric_groups(s, errs);
    need = run_check_memory_bytes(s, o);
    if (need > o->max_memory_mb * 1048576.0) {
        sim_err_set(&e, SIM_ECONFIG, s->path, 0,
                    "simulation: the results would need about %.0f MiB "
                    "(got %.0f steps x %zu replication(s)%s, expected <= "
                    "--max-memory-mb %.0f; shorten the horizon, lengthen "
                    "step_min, run fewer replications, keep fewer series or "
                    "raise --max-memory-mb)",
                    need / 1048576.0, ceil(s->sim.horizon_s / s->sim.step_s),
                    o->replications,
                    o->series == 2 ? " with every series kept" : "",
                    o->max_memory_mb);
        run_check_add(errs, &e);
    }
    if (errs->n + errs->dropped == n0)
        return SIM_OK;
    climate_year_free(*wx);
    *wx = NULL;
    return n0 < errs->n ? errs->e[n0].code : SIM_ECONFIG;
}
