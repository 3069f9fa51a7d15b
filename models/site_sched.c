/* models/site_sched.c: where and when queued jobs of a site run start
 * (site_int.h): the throughput a placement gets, the bandwidth a placement
 * across modules leaves the data-parallel traffic, best-fit placement and
 * the queue with EASY backfill (models/sched.h has the policies).
 *
 * It owns the choice of take[] and spare[] for a job being placed and the
 * free counts it takes them from. It must never write a job's state: a
 * placed job starts through job_start (job_fsm.c), which performs
 * QUEUED -> RUN or RESTART.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/site_calib.h"
#include "models/site_int.h"
#include "sim/fsassert.h"
#include "sim/mem.h"

/* ------------------------------------------------------------- throughput */

/* The throughput query of a job (site.h). Why it is long: it translates
 * the scenario's job into a tp_query field by field (every layout key left
 * 0 is chosen by tp_predict), refuses a release the calibration does not
 * know with the list it does know, and queries twice when the placement
 * spans modules: once at the reference placement to fix the layout, as a
 * launch script would, then with that layout over the cross-module link,
 * so that spanning modules changes only the bandwidth, never the layout. */
int site_job_throughput(const scenario *s, const scen_job *j,
                        const tp_model *tp, double dp_link_bps,
                        double dp_latency_s, tp_result *out, sim_err *err)
{
    tp_query q;
    int rc;

    memset(&q, 0, sizeof q);
    q.gpu = j->gpu;
    q.llm = j->model;
    if (precision_parse(j->precision, &q.prec) != 0)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "job '%s': unknown precision '%s' (expected %s)",
                           j->name, j->precision, precision_valid_labels());
    q.n_gpus = j->gpus;
    q.gbs = j->global_batch;
    q.seq_len = j->seq_len;
    /* Every layout key not given (0) is chosen by tp_predict. */
    q.layout.tp = j->tp;
    q.layout.pp = j->pp;
    q.layout.cp = j->cp;
    q.layout.ep = j->ep;
    q.layout.vp = j->vp;
    q.layout.etp = j->etp;
    q.layout.mbs = j->micro_batch;
    q.layout.recompute = j->recompute;
    q.layout.distopt = j->distopt;
    q.layout.fsdp = j->fsdp;
    q.software_efficiency = j->software_efficiency;
    q.cuda_graph = j->cuda_graph;
    q.moe_dispatcher = j->moe_dispatcher;
    q.moe_a2a_overlap = j->moe_a2a_overlap;
    /* The site's own speeds (site.calibration) ride on the query's
     * slowdowns, so every later query of this job (the spanning-modules
     * one too) carries them. */
    site_calib_apply(s->site.calib, &q);
    /* In-network reduction is a property of the fabric of the systems the
     * job's GPUs sit in (systems.cfg `sharp`). */
    for (size_t i = 0; i < s->n_modules; i++)
        if (s->modules[i].gpu == j->gpu && s->modules[i].system)
            q.sharp = s->modules[i].system->sharp;
    {
        /* Scenario releases are written as in the data ("NeMo 26.04");
         * the model keys them by short id ("26.04"). */
        static _Thread_local char rel[48];
        q.release =
            j->release[0] ? tp_release_id(j->release, rel, sizeof rel) : NULL;
        if (q.release && tp_model_release(tp, q.release) < 0) {
            char valid[1024] = "";
            for (int i = 0; i < tp->n_releases; i++) {
                size_t l = strlen(valid);
                snprintf(valid + l, sizeof valid - l, "%s%s", i ? ", " : "",
                         tp->releases[i]);
            }
            return sim_err_set(err, SIM_ENOTFOUND, s->path, 0,
                               "jobs.%s.release: no calibration for release "
                               "'%s' (expected one of: %s)",
                               j->name, j->release, valid);
        }
    }
    /* The layout is the job's, chosen once at its reference placement (one
     * module, the GPUs' own NICs), as a launch script fixes it; a placement
     * across modules changes only the bandwidth the DP group crosses. */
    rc = tp_predict(tp, &q, out);
    if (rc == SIM_OK && (dp_link_bps > 0 || dp_latency_s > 0)) {
        unsigned chosen = out->chosen;
        q.layout = out->layout;
        q.dp_link_bps = dp_link_bps;
        q.dp_link_latency_s = dp_latency_s;
        rc = tp_predict(tp, &q, out);
        out->chosen = chosen;
    }
    if (rc != SIM_OK)
        return sim_err_set(
            err, rc, NULL, 0,
            "job '%s': cannot predict its throughput on %d %s: %s", j->name,
            j->gpus, j->gpu->name, out->why[0] ? out->why : sim_strerror(rc));
    if (j->tokens_per_sec_per_gpu > 0 && out->tokens_per_sec_per_gpu > 0) {
        /* A pinned throughput (validation against a published run):
         * every phase of the step stretches by the same factor, so the
         * step's shares, and the GPU power that follows them, stay the
         * model's; only the time per token is the published one. */
        double k = out->tokens_per_sec_per_gpu / j->tokens_per_sec_per_gpu;
        double *t[] = {
            &out->step_time_s, &out->t_compute_s, &out->t_tp_s,
            &out->t_cp_s,      &out->t_ep_s,      &out->t_dp_s,
            &out->t_pp_s,      &out->t_bubble_s,  &out->t_optimizer_s};
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            *t[i] *= k;
        out->tokens_per_sec_per_gpu = j->tokens_per_sec_per_gpu;
        out->low_tokens_per_sec_per_gpu = out->high_tokens_per_sec_per_gpu =
            j->tokens_per_sec_per_gpu;
        out->model_tflops_per_gpu /= k;
    }
    return SIM_OK;
}

/* The step's phases for its GPU power (models/load.h): compute (GEMMs,
 * attention, optimizer), exposed communication of every kind, bubble. */
static load_step step_phases(const tp_result *tr, int n_gpus)
{
    const tp_layout *L = &tr->layout;
    load_step st = {tr->t_compute_s + tr->t_optimizer_s,
                    tr->t_tp_s + tr->t_cp_s + tr->t_ep_s + tr->t_dp_s +
                        tr->t_pp_s,
                    tr->t_bubble_s, 0.0, 0};
    /* Chunks a stage runs per step: gbs / (mbs dp) micro-batches, each in
     * vp model chunks (interleaving); the exposed p2p sits between them
     * (docs/power-model.md 14). Only with a pipeline. */
    int dp = L->tp * L->pp * L->cp > 0 ? n_gpus / (L->tp * L->pp * L->cp) : 0;
    if (L->pp > 1 && dp > 0 && L->mbs > 0 && tr->gbs > 0 && tr->t_pp_s > 0) {
        double n_mb = (double)tr->gbs / ((double)L->mbs * dp);
        double n = floor(n_mb) * (L->vp > 0 ? L->vp : 1);
        st.pp_s = tr->t_pp_s;
        st.n_chunks = n >= 2 && n < 1e6 ? (int)n : 0;
    }
    return st;
}

/* Per-GPU bandwidth of the data-parallel traffic of a placement (take[]):
 * 0 within one module (the GPUs' own NICs); across modules of one group,
 * the scale-out NIC derated by the fabric's oversubscription; across a
 * link between groups, the link's capacity (derated by its
 * oversubscription) shared by the job's GPUs on the smaller side. */
static void placement_link(const run *R, const sjob *j, const int *take,
                           double *bps, double *lat_s)
{
    const scenario *s = R->s;
    size_t used = 0;
    double bw, lat = s->fabric.latency_s;
    double *g_grp = sim_xcalloc(s->n_modules, sizeof *g_grp);

    for (size_t m = 0; m < R->n_mod; m++)
        if (take[m] > 0) {
            used++;
            g_grp[R->mod[m].grp] += (double)take[m] * j->sys_gpus;
        }
    if (used <= 1) {
        *bps = 0.0;
        *lat_s = 0.0;
        free(g_grp);
        return;
    }
    bw = j->sj->gpu->scaleout_bps / s->fabric.oversubscription;
    for (size_t l = 0; l < s->fabric.n_links; l++) {
        const scen_link *lk = &s->fabric.links[l];
        double ga = g_grp[lk->a], gb = g_grp[lk->b], g = ga < gb ? ga : gb;
        if (ga <= 0 || gb <= 0)
            continue;
        if (lk->bandwidth_bps / lk->oversubscription / g < bw)
            bw = lk->bandwidth_bps / lk->oversubscription / g;
        if (lk->latency_s > lat)
            lat = lk->latency_s;
    }
    *bps = bw;
    *lat_s = lat;
    free(g_grp);
}

/* Tries to place job j now; on success it holds its systems and starts.
 * Why the throughput is asked before any system is taken: a job whose
 * placement cannot be predicted stops the run with nothing half-held.
 * The spares are the last systems of the placement (from its last
 * modules); the rest are the job's working systems. */
static int try_place(run *R, sjob *j, int need_total)
{
    int used;
    for (size_t m = 0; m < R->n_mod; m++) {
        R->smv[m].online = R->mod[m].commissioned && R->mod[m].up;
        R->smv[m].gpu_type = R->mod[m].gpu_type;
        R->smv[m].group = R->mod[m].fabric;
        R->smv[m].free_sys = R->mod[m].free_sys;
    }
    used =
        sched_place(R->smv, R->n_mod, j->gpu_type, need_total, 1, R->place_tmp);
    if (used == 0)
        return 0;
    {
        tp_result tr;
        double bps, lat;
        int spares = j->spares_total;
        site_accrue_util(R);
        placement_link(R, j, R->place_tmp, &bps, &lat);
        if (site_job_throughput(R->s, j->sj, R->o->tp, bps, lat, &tr, R->err) !=
            SIM_OK) {
            site_fail_run(R, SIM_EINVAL);
            return 0;
        }
        site_apply_model_draw(R, j, &tr);
        /* The spares are the last systems taken, from the last modules. */
        for (size_t m = R->n_mod; m-- > 0 && spares > 0;) {
            int k = R->place_tmp[m] < spares ? R->place_tmp[m] : spares;
            R->place_tmp[m] -= k;
            j->spare[m] = k;
            spares -= k;
        }
        j->spares = j->spares_total;
        for (size_t m = 0; m < R->n_mod; m++) {
            j->take[m] = R->place_tmp[m];
            R->mod[m].free_sys -= R->place_tmp[m] + j->spare[m];
        }
        FS_ASSERT(job_held_systems(R, j) == need_total);
        j->rate = tr.tokens_per_sec_per_gpu * j->sj->gpus;
        j->ph = step_phases(&tr, j->sj->gpus);
        if (!(j->rate > 0)) {
            sim_err_set(R->err, SIM_EINVAL, NULL, 0,
                        "job '%s': predicted throughput is %g tokens/s",
                        j->sj->name, j->rate);
            site_fail_run(R, SIM_EINVAL);
            return 0;
        }
        if (!isfinite(j->start_s)) {
            j->start_s = R->e.now_s;
            j->rate0 = j->rate;
            j->tps_gpu0 = tr.tokens_per_sec_per_gpu;
            j->modules0 = used;
        }
        job_start(R, j);
        j->est_end_s = R->e.now_s + (j->total - j->done) / j->rate;
    }
    return 1;
}

static int queue_before(const sjob *a, const sjob *b)
{
    if (a->sj->priority != b->sj->priority)
        return a->sj->priority > b->sj->priority;
    if (a->sj->submit_t_s != b->sj->submit_t_s)
        return a->sj->submit_t_s < b->sj->submit_t_s;
    return a < b;
}

/* FIFO by (priority, submit time, order) with EASY backfill (sched.h).
 *
 * Why one loop with the backfill inline: the head is placed, or else it
 * gets a reservation (shadow time, extra systems) from the running jobs and
 * the rest of the queue backfills in queue order against that reservation;
 * both passes read and change the same pools, and the order in which jobs
 * are tried decides the schedule, so it is written out once, in order. */
void site_schedule_jobs(run *R)
{
    for (;;) {
        sjob *head = NULL;
        for (size_t k = 0; k < R->n_job; k++) {
            sjob *j = &R->job[k];
            if (j->state == JS_QUEUED && (!head || queue_before(j, head)))
                head = j;
        }
        if (!head)
            return;
        if (try_place(R, head, head->sys_needed + head->spares_total)) {
            if (R->err_code)
                return;
            continue;
        }
        if (R->err_code)
            return;
        /* The head waits: reserve, then backfill in queue order. */
        {
            double shadow;
            int extra, free_now = 0;
            size_t n_run = 0;
            for (size_t m = 0; m < R->n_mod; m++)
                if (R->mod[m].commissioned && R->mod[m].up &&
                    R->mod[m].gpu_type == head->gpu_type)
                    free_now += R->mod[m].free_sys;
            for (size_t k = 0; k < R->n_job; k++) {
                sjob *j = &R->job[k];
                if (j->state == JS_QUEUED || j->state == JS_DONE ||
                    j->state == JS_PENDING)
                    continue;
                R->runv[n_run].est_end_s = j->est_end_s;
                R->runv[n_run].gpu_type = j->gpu_type;
                R->runv[n_run].systems = job_held_systems(R, j);
                n_run++;
            }
            sched_shadow(R->runv, n_run, head->gpu_type, free_now,
                         head->sys_needed + head->spares_total, &shadow,
                         &extra);
            for (;;) {
                sjob *best = NULL;
                for (size_t k = 0; k < R->n_job; k++) {
                    sjob *j = &R->job[k];
                    int need = j->sys_needed + j->spares_total;
                    double est;
                    if (j == head || j->state != JS_QUEUED || j->skip)
                        continue;
                    est = R->e.now_s + (j->total - j->done) / j->rate_est;
                    if (j->gpu_type == head->gpu_type &&
                        !sched_may_backfill(est, need, shadow, extra))
                        continue;
                    if (!best || queue_before(j, best))
                        best = j;
                }
                if (!best)
                    break;
                if (try_place(R, best, best->sys_needed + best->spares_total)) {
                    if (best->gpu_type == head->gpu_type &&
                        best->est_end_s > shadow)
                        extra -= best->sys_needed + best->spares_total;
                } else {
                    best->skip = 1; /* for the rest of this pass */
                }
                if (R->err_code)
                    return;
            }
            for (size_t k = 0; k < R->n_job; k++)
                R->job[k].skip = 0;
        }
        return;
    }
}
