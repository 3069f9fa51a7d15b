/* models/site_powerdyn.c: a site run's training power dynamics (issue 21):
 * turns the run's steps and job events into representative windows of
 * facility power at 100 Hz and keeps the site's figures (res_site
 * power_*; models/powerdyn.h for the waveform and the figures).
 *
 * Windows. A steady-state window is analysed for each job mix the run
 * passes through: the set of training jobs with their granted power
 * (a signature of the step's dispatch), once per distinct mix, at most
 * SPD_MAX_STEADY per run (later mixes are counted, not analysed). Its
 * level is the step's accounting exactly: every job's GPUs average the
 * power the dispatch granted (throttling included) and everything that does
 * not follow the step (non-GPU parts, idle systems, cooling, auxiliaries)
 * is the constant load_w - sum(job IT), so the window's mean over whole
 * periods is the step's facility power. An event window is analysed for
 * the first failure, checkpoint and restart of each job: the mix of the
 * last step with that job switching state in the window's middle.
 *
 * Modules. Each steady window also gives every module's figures
 * (res_module): the jobs' waves scaled by their share of systems there;
 * a module hosting one training job scales that job's own figures, which
 * are kept by wave shape across windows (analyse_modules, entry_stats).
 * The modules' window means sum to the site's less its constant
 * (power_jobs_mean_w).
 *
 * Representative window. Replication 0 keeps the steady window with the
 * most training entries (ties: the larger swing) and its twin without any
 * smoothing (keep_representative), for the report's chart.
 *
 * Off. With policy.power_dynamics = false no site_pd exists (R->pd NULL):
 * every entry point returns at once and the figures are NAN.
 *
 * Streams. Each job's phase offset is drawn per window from its own stream
 * "powerdyn/job/<name>", so the run's other draws are unchanged and the
 * figures depend on the seed and replication only.
 *
 * It owns run.pd. It must never change a job, the dispatch or the energy
 * accounting: it only reads them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/powerdyn.h"
#include "models/site_int.h"
#include "sim/mem.h"
#include "sim/rng.h"

#define SPD_MAX_STEADY 64 /* steady windows analysed per run */
#define SPD_EV_KINDS 3    /* failure, checkpoint, restart */
#define SPD_ENT_CAP 256   /* distinct job waves whose figures are kept */

struct site_pd {
    gsl_rng **r;       /* [n_job] */
    double *off;       /* [n_job] this window's offset draw, [0, 1) */
    unsigned char *ev; /* [n_job * SPD_EV_KINDS] event windows done */
    double ev_step_w[SPD_EV_KINDS]; /* largest step analysed per kind */
    uint64_t seen[SPD_MAX_STEADY];
    int n_seen, n_mixes_skipped;
    pd_wave *w;                 /* [n_job * n_grp + 1] the last step's waves */
    size_t n_w;                 /* waves of the last step */
    size_t *w_job;              /* [n_job * n_grp + 1] owner job of each wave */
    unsigned char *train;       /* [n_job * n_grp + 1] entry trains */
    const dispatch_out *last_o; /* the last step's dispatch (R->sp's) */
    double const_w; /* the last step's load that does not follow the step */
    double *x;      /* [PD_N] */
    pd_ws *ws;      /* spectral scratch, one per run */
    int any;        /* a window has been analysed */
    double peak_w, min_w, swing_w, std_w, ramp_w_per_s, lo_rms_w, hi_rms_w;
    double drop_w, batt_w;
    /* Per module (res_module), over the steady windows. */
    res_module *mod;       /* [n_mod] largest figures; power_mean_w a sum */
    pd_wave *mw;           /* [n_job * n_grp + 1] one module's waves */
    pd_stats *ent;         /* [n_job * n_grp + 1] one wave's figures alone */
    unsigned char *ent_ok; /* [same] ent computed in this window */
    /* A job wave's own figures by its shape (offset left out), kept across
     * windows: SPD_ENT_CAP slots, open addressing on wave_key. */
    uint64_t ent_key[SPD_ENT_CAP];
    pd_stats ent_val[SPD_ENT_CAP];
    double *y;         /* [PD_N] one module's trace */
    int n_steady;      /* steady windows analysed */
    double jobs_sum_w; /* sum of their jobs' means (site less constant) */
    /* The representative window (replication 0): the steady window with
     * the most training entries, then the largest peak-to-peak. */
    double *rep_x, *rep_x0; /* [PD_N] with and without smoothing */
    int rep_n_train;        /* -1: none yet */
    double rep_p2p_w;
};

void site_pd_new(run *R)
{
    site_pd *p = sim_xcalloc(1, sizeof *p);
    size_t nj = R->n_job ? R->n_job : 1, nw = R->n_job * R->n_grp + 1;
    p->r = sim_xcalloc(nj, sizeof *p->r);
    p->off = sim_xcalloc(nj, sizeof *p->off);
    p->ev = sim_xcalloc(nj * SPD_EV_KINDS, 1);
    p->w = sim_xcalloc(nw, sizeof *p->w);
    p->w_job = sim_xcalloc(nw, sizeof *p->w_job);
    p->train = sim_xcalloc(nw, 1);
    p->x = sim_xcalloc(PD_N, sizeof *p->x);
    p->ws = pd_ws_new();
    p->mod = sim_xcalloc(R->n_mod ? R->n_mod : 1, sizeof *p->mod);
    p->mw = sim_xcalloc(nw, sizeof *p->mw);
    p->ent = sim_xcalloc(nw, sizeof *p->ent);
    p->ent_ok = sim_xcalloc(nw, 1);
    p->y = sim_xcalloc(PD_N, sizeof *p->y);
    p->rep_n_train = -1;
    if (R->o->replication == 0) {
        p->rep_x = sim_xcalloc(PD_N, sizeof *p->rep_x);
        p->rep_x0 = sim_xcalloc(PD_N, sizeof *p->rep_x0);
    }
    for (size_t k = 0; k < R->n_job; k++) {
        char name[112];
        snprintf(name, sizeof name, "powerdyn/job/%s", R->job[k].sj->name);
        p->r[k] = rng_stream_new(NULL, R->o->seed, R->o->replication,
                                 rng_stream_id(name));
    }
    R->pd = p;
}

void site_pd_free(run *R)
{
    site_pd *p = R->pd;
    if (!p)
        return;
    for (size_t k = 0; k < R->n_job; k++)
        gsl_rng_free(p->r[k]);
    free(p->r);
    free(p->off);
    free(p->ev);
    free(p->w);
    free(p->w_job);
    free(p->train);
    free(p->x);
    pd_ws_free(p->ws);
    free(p->mod);
    free(p->mw);
    free(p->ent);
    free(p->ent_ok);
    free(p->y);
    free(p->rep_x);
    free(p->rep_x0);
    free(p);
    R->pd = NULL;
}

/* FNV-1a over 64-bit words. */
static uint64_t mix64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* New offsets for every job (one draw each, in job order). */
static void draw_offsets(site_pd *p, const run *R)
{
    for (size_t k = 0; k < R->n_job; k++)
        p->off[k] = gsl_rng_uniform(p->r[k]);
}

/* Systems of job k in group g. */
static double job_sys_in_grp(const run *R, size_t k, size_t g)
{
    double n = 0;
    for (size_t m = 0; m < R->n_mod; m++)
        if (R->mod[m].grp == g)
            n += R->job[k].take[m];
    return n;
}

/* The training wave of job k's GPUs in group g at GPU power gpu_w and
 * non-GPU power other_w, at this window's offset. The systems' own
 * storage (rack_storage_j) smooths it: what is left of the deviation is
 * pd_rack_smooth of the storage against each system's excess energy per
 * step (all systems of a job swing together). */
static void job_wave(const run *R, const site_pd *p, size_t k, size_t g,
                     double gpu_w, double other_w, pd_wave *w)
{
    const sjob *j = &R->job[k];
    double T = j->ph.compute_s + j->ph.comm_s + j->ph.bubble_s;
    double off = p->off[k] * (T > 0 ? T : 0);
    double store = R->s->modules[g].system->rack_storage_j;
    double nsys = job_sys_in_grp(R, k, g);
    pd_wave_step(w, &R->lcfg[g], j->sj->fmt, &j->ph, gpu_w, other_w, 1.0, off);
    if (store > 0 && nsys > 0)
        pd_wave_step(w, &R->lcfg[g], j->sj->fmt, &j->ph, gpu_w, other_w,
                     pd_rack_smooth(store, pd_wave_excess_j(w) / nsys), off);
}

/* The same job's wave with no smoothing at all (no floor, ramps,
 * hysteresis or rack storage) at the same offset: the GPUs' mean is
 * rescaled from the smoothed step's f_gpu to the bare one's, since the
 * smoothing is what raised (or lowered) it. */
static void job_wave_bare(const run *R, const site_pd *p, size_t k, size_t g,
                          double gpu_w, double other_w, pd_wave *w)
{
    const sjob *j = &R->job[k];
    load_cfg lc = R->lcfg[g];
    double T = j->ph.compute_s + j->ph.comm_s + j->ph.bubble_s;
    double f1 = load_step_gpu_frac(&lc, j->sj->fmt, &j->ph), f0;
    lc.gpu_floor_frac = 0;
    lc.gpu_ramp_up_per_s = lc.gpu_ramp_down_per_s = 0;
    lc.gpu_ramp_down_hyst_s = 0;
    f0 = load_step_gpu_frac(&lc, j->sj->fmt, &j->ph);
    pd_wave_step(w, &lc, j->sj->fmt, &j->ph, f1 > 0 ? gpu_w * f0 / f1 : 0,
                 other_w, 1.0, p->off[k] * (T > 0 ? T : 0));
}

/* Folds one window's figures into the site's. steady: also the swing,
 * deviation, ramp and bands. ramp: counts for the ramp-limit battery. */
static void fold(run *R, const pd_stats *s, int steady, int ramp)
{
    site_pd *p = R->pd;
    double dt = 1.0 / PD_FS_HZ;
    if (!p->any) {
        p->peak_w = s->peak_w;
        p->min_w = s->min_w;
        p->any = 1;
    }
    p->peak_w = fmax(p->peak_w, s->peak_w);
    p->min_w = fmin(p->min_w, s->min_w);
    if (steady) {
        p->swing_w = fmax(p->swing_w, s->p2p_w);
        p->std_w = fmax(p->std_w, s->std_w);
        p->ramp_w_per_s = fmax(p->ramp_w_per_s, s->max_ramp_w_per_s);
        p->lo_rms_w = fmax(p->lo_rms_w, s->band_lo_rms_w);
        p->hi_rms_w = fmax(p->hi_rms_w, s->band_hi_rms_w);
    }
    if (ramp && R->s->ramp_limit_w_per_s > 0)
        p->batt_w =
            fmax(p->batt_w,
                 pd_ramp_battery_w(p->x, PD_N, dt, R->s->ramp_limit_w_per_s));
}

/* Folds one module's window figures s into its record (first: n_steady
 * 0, before this window is counted). */
static void fold_module(res_module *m, const pd_stats *s, int first)
{
    if (first) {
        m->power_peak_w = s->peak_w;
        m->power_min_w = s->min_w;
    }
    m->power_mean_w += s->mean_w;
    m->power_peak_w = fmax(m->power_peak_w, s->peak_w);
    m->power_min_w = fmin(m->power_min_w, s->min_w);
    m->power_swing_w = fmax(m->power_swing_w, s->p2p_w);
    m->power_std_w = fmax(m->power_std_w, s->std_w);
    m->power_max_ramp_w_per_s =
        fmax(m->power_max_ramp_w_per_s, s->max_ramp_w_per_s);
    m->power_band_0p1_2hz_rms_w =
        fmax(m->power_band_0p1_2hz_rms_w, s->band_lo_rms_w);
    m->power_band_3_30hz_rms_w =
        fmax(m->power_band_3_30hz_rms_w, s->band_hi_rms_w);
}

/* The figures of share x wave i + cst from wave i's own (computed once
 * per window): every figure but the level scales with the share (all are
 * linear in the trace, and the band RMS and deviation are homogeneous). */
/* FNV-1a of a wave's shape: its segments, levels and micro-batch gaps,
 * not its offset (never 0: 0 marks an empty slot). */
static uint64_t wave_key(const pd_wave *w)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    double v[4];
    for (int i = 0; i < w->n_seg; i++) {
        v[0] = w->dur_s[i];
        v[1] = w->w0[i];
        v[2] = w->w1[i];
        v[3] = (double)w->n_seg;
        for (int k = 0; k < 4; k++) {
            uint64_t b;
            memcpy(&b, &v[k], sizeof b);
            h = mix64(h, b);
        }
    }
    h = mix64(h, (uint64_t)(w->mb_seg + 1) * 1000003u + (uint64_t)w->mb_n);
    {
        uint64_t b;
        memcpy(&b, &w->mb_gap_s, sizeof b);
        h = mix64(h, b);
        memcpy(&b, &w->mb_gap_w, sizeof b);
        h = mix64(h, b);
    }
    return h ? h : 1;
}

/* Wave i's own figures: from the cache when the same shape was analysed
 * in an earlier window. Why a cache across windows: a job's figures
 * depend on its wave, and on its phase offset only through where the
 * 81.92 s window cuts the period (a few per mille of the band RMS), while
 * a run sees the same job waves in window after window (a mix changes by
 * one job at a time); analysing each wave once took the per-module
 * figures from about a third of the analysis' cost to little (perf). The
 * first window's offset is kept: deterministic for a seed. */
static int entry_stats(site_pd *p, size_t i)
{
    const double dt = 1.0 / PD_FS_HZ;
    uint64_t key = wave_key(&p->w[i]);
    size_t slot = (size_t)(key % SPD_ENT_CAP), probes = 0;
    while (p->ent_key[slot] && p->ent_key[slot] != key &&
           probes < SPD_ENT_CAP) {
        slot = (slot + 1) % SPD_ENT_CAP;
        probes++;
    }
    if (probes < SPD_ENT_CAP && p->ent_key[slot] == key) {
        p->ent[i] = p->ent_val[slot];
        return SIM_OK;
    }
    pd_synth(&p->w[i], 1, 0.0, dt, p->y, PD_N);
    if (pd_analyse_ws(p->ws, p->y, PD_N, dt, &p->ent[i]) != SIM_OK)
        return SIM_ENUMERIC;
    if (probes < SPD_ENT_CAP) {
        p->ent_key[slot] = key;
        p->ent_val[slot] = p->ent[i];
    }
    return SIM_OK;
}

static int scaled_entry(site_pd *p, size_t i, double share, double cst,
                        pd_stats *s)
{
    const pd_stats *e = &p->ent[i];
    if (!p->ent_ok[i]) {
        if (entry_stats(p, i) != SIM_OK)
            return SIM_ENUMERIC;
        p->ent_ok[i] = 1;
    }
    s->peak_w = share * e->peak_w + cst;
    s->min_w = share * e->min_w + cst;
    s->mean_w = share * e->mean_w + cst;
    s->std_w = share * e->std_w;
    s->p2p_w = share * e->p2p_w;
    s->max_ramp_w_per_s = share * e->max_ramp_w_per_s;
    s->band_lo_rms_w = share * e->band_lo_rms_w;
    s->band_hi_rms_w = share * e->band_hi_rms_w;
    return SIM_OK;
}

/* Each module's trace in this steady window: the waves of the entries in
 * its group, each scaled by the share of the job's systems there (the
 * shares of an entry sum to 1 over the group's modules, so the modules'
 * traces sum to the site's less its constant). Why three paths: a module
 * without a training wave is constant (no synthesis, no spectrum); one
 * with a single training wave, the common case of jobs placed module by
 * module, takes that wave's figures scaled (scaled_entry: one spectrum per
 * job per window, not one per module); only a module shared by two or more
 * training jobs is synthesised and analysed on its own. On the 100 MW
 * bench this took the per-module cost from +100 % of the run to a few %. */
static int analyse_modules(run *R, const pd_stats *site)
{
    site_pd *p = R->pd;
    const double dt = 1.0 / PD_FS_HZ;
    int first = p->n_steady == 0;
    size_t n_train = 0, last = 0;
    memset(p->ent_ok, 0, p->n_w);
    for (size_t i = 0; i < p->n_w; i++)
        if (p->train[i]) {
            n_train++;
            last = i;
        }
    /* One training wave in the window: its figures are the site's less
     * the constant (the other entries are constants too), no spectrum. */
    if (n_train == 1) {
        double c = p->const_w;
        for (size_t i = 0; i < p->n_w; i++)
            if (!p->train[i])
                c += pd_wave_mean_w(&p->w[i]);
        p->ent[last] = *site;
        p->ent[last].peak_w -= c;
        p->ent[last].min_w -= c;
        p->ent[last].mean_w -= c;
        p->ent_ok[last] = 1;
    }
    for (size_t m = 0; m < R->n_mod; m++) {
        size_t g = R->mod[m].grp, n = 0, one = 0;
        double cst = 0, one_share = 0;
        pd_stats s;
        for (size_t i = 0; i < p->n_w; i++) {
            size_t k = p->w_job[i];
            double take = R->job[k].take[m], share;
            pd_wave *v;
            if (R->dj[i].module != g || take <= 0)
                continue;
            share = take / job_sys_in_grp(R, k, g);
            if (!p->train[i]) {
                cst += share * pd_wave_mean_w(&p->w[i]);
                continue;
            }
            one = i;
            one_share = share;
            v = &p->mw[n++];
            *v = p->w[i];
            for (int q = 0; q < v->n_seg; q++) {
                v->w0[q] *= share;
                v->w1[q] *= share;
            }
            v->hold_w *= share;
        }
        memset(&s, 0, sizeof s);
        if (n == 0) {
            s.peak_w = s.min_w = s.mean_w = cst;
        } else if (n == 1) {
            if (scaled_entry(p, one, one_share, cst, &s) != SIM_OK)
                return SIM_ENUMERIC;
        } else {
            pd_synth(p->mw, n, cst, dt, p->y, PD_N);
            if (pd_analyse_ws(p->ws, p->y, PD_N, dt, &s) != SIM_OK)
                return SIM_ENUMERIC;
        }
        fold_module(&p->mod[m], &s, first);
    }
    return SIM_OK;
}

/* Keeps this steady window as the representative one when it has more
 * training entries (or as many and a larger swing) than the one kept,
 * with its unsmoothed twin (replication 0 only). */
static void keep_representative(run *R, const pd_stats *s)
{
    site_pd *p = R->pd;
    int n_train = 0;
    if (!p->rep_x)
        return;
    for (size_t i = 0; i < p->n_w; i++)
        n_train += p->train[i];
    if (n_train < p->rep_n_train ||
        (n_train == p->rep_n_train && !(s->p2p_w > p->rep_p2p_w)))
        return;
    p->rep_n_train = n_train;
    p->rep_p2p_w = s->p2p_w;
    memcpy(p->rep_x, p->x, PD_N * sizeof *p->x);
    for (size_t i = 0; i < p->n_w; i++) {
        const dispatch_job *d = &R->dj[i];
        const dispatch_job_out *jo = &p->last_o->job[i];
        double gpu = d->gpu_w * jo->power_frac;
        if (p->train[i])
            job_wave_bare(R, p, p->w_job[i], d->module, gpu, jo->it_w - gpu,
                          &p->mw[i]);
        else
            pd_wave_const(&p->mw[i], jo->it_w);
    }
    pd_synth(p->mw, p->n_w, p->const_w, 1.0 / PD_FS_HZ, p->rep_x0, PD_N);
}

/* Synthesises the waves into p->x and folds the figures in; a steady
 * window also gives the modules' figures and may be the representative
 * one. */
static void analyse(run *R, const pd_wave *w, size_t n_w, double const_w,
                    int steady, int ramp)
{
    site_pd *p = R->pd;
    pd_stats s;
    pd_synth(w, n_w, const_w, 1.0 / PD_FS_HZ, p->x, PD_N);
    if (pd_analyse_ws(p->ws, p->x, PD_N, 1.0 / PD_FS_HZ, &s) != SIM_OK) {
        site_fail_run(R, SIM_ENUMERIC);
        return;
    }
    fold(R, &s, steady, ramp);
    if (!steady)
        return;
    if (analyse_modules(R, &s) != SIM_OK) {
        site_fail_run(R, SIM_ENUMERIC);
        return;
    }
    p->jobs_sum_w += s.mean_w - const_w;
    p->n_steady++;
    keep_representative(R, &s);
}

/* Largest load that can drop at once in this mix: a job from its compute
 * phase to idle, or a module at the peak of all its jobs to off. */
static void largest_drop(run *R, size_t nd)
{
    site_pd *p = R->pd;
    for (size_t i = 0; i < p->n_w; i++) {
        /* A job's waves are adjacent (build_demand's order). */
        size_t k = p->w_job[i];
        double hi = 0, idle = 0;
        size_t e = i;
        for (; e < p->n_w && p->w_job[e] == k; e++) {
            hi += pd_wave_hi_w(&p->w[e]);
            idle += R->dj[e].idle_w;
        }
        p->drop_w = fmax(p->drop_w, hi - idle);
        i = e - 1;
    }
    for (size_t m = 0; m < R->n_mod; m++) {
        const smod *md = &R->mod[m];
        size_t g = md->grp;
        double peak = 0, grp_sys = 0;
        for (size_t q = 0; q < R->n_mod; q++)
            if (R->mod[q].grp == g)
                grp_sys += R->mod[q].n_sys;
        for (size_t i = 0; i < nd; i++) {
            const sjob *j = &R->job[R->dj_job[i]];
            double nsys;
            if (R->dj[i].module != g || j->take[m] <= 0)
                continue;
            nsys = job_sys_in_grp(R, R->dj_job[i], g);
            peak += pd_wave_hi_w(&p->w[i]) * j->take[m] / nsys;
        }
        if (!md->up)
            continue;
        if (grp_sys > 0)
            peak += R->base_it[g] * md->n_sys / grp_sys;
        p->drop_w = fmax(p->drop_w, peak);
        p->mod[m].power_largest_drop_w =
            fmax(p->mod[m].power_largest_drop_w, peak);
    }
}

/* Builds the last step's waves (at fresh offsets) into p->w, from the
 * dispatch kept in p->last_o and the training flags of the step. */
static void build_waves(run *R)
{
    site_pd *p = R->pd;
    draw_offsets(p, R);
    for (size_t i = 0; i < p->n_w; i++) {
        const dispatch_job *d = &R->dj[i];
        const dispatch_job_out *jo = &p->last_o->job[i];
        double gpu = d->gpu_w * jo->power_frac;
        if (p->train[i])
            job_wave(R, p, p->w_job[i], d->module, gpu, jo->it_w - gpu,
                     &p->w[i]);
        else
            pd_wave_const(&p->w[i], jo->it_w);
    }
}

/* Why the step only hashes: a year has 35,040 steps and few distinct
 * mixes, so a step costs a scan of its entries; the waves are built and
 * analysed only for a mix not seen before (at most SPD_MAX_STEADY), and
 * for an event window (built then from the step's dispatch, which stays
 * valid until the next step). */
void site_pd_step(run *R, const dispatch_out *o)
{
    site_pd *p = R->pd;
    size_t nd = R->n_dj;
    uint64_t h = 0xcbf29ce484222325ULL;
    double it = 0;
    int seen = 0;
    if (!p)
        return; /* policy.power_dynamics = false */
    /* build_demand's entries are still in R->dj, in dispatch order. */
    for (size_t i = 0; i < nd; i++) {
        const dispatch_job *d = &R->dj[i];
        const dispatch_job_out *jo = &o->job[i];
        size_t k = R->dj_job[i];
        double gpu = d->gpu_w * jo->power_frac;
        int train =
            R->job[k].state == JS_RUN && d->gpu_w > 0 &&
            (jo->state == DISPATCH_RUN || jo->state == DISPATCH_THROTTLED);
        p->train[i] = (unsigned char)train;
        p->w_job[i] = k;
        it += jo->it_w;
        h = mix64(h, k * 1000003u + d->module);
        h = mix64(h, (uint64_t)llround(train ? gpu : -jo->it_w));
    }
    p->n_w = nd;
    p->last_o = o;
    p->const_w = o->load_w - it;
    h = mix64(h, (uint64_t)llround(p->const_w));
    for (int q = 0; q < p->n_seen; q++)
        seen |= p->seen[q] == h;
    if (seen)
        return;
    if (p->n_seen >= SPD_MAX_STEADY) {
        p->n_mixes_skipped++;
        return;
    }
    p->seen[p->n_seen++] = h;
    build_waves(R);
    largest_drop(R, nd);
    analyse(R, p->w, p->n_w, p->const_w, 1, 1);
}

/* An event window for job j (kind: RES_EV_INTERRUPT, RES_EV_CHECKPOINT or
 * RES_EV_RESTART): the last step's mix with j's waves replaced by its
 * training wave held, from the middle of the window, at idle (a failure:
 * the whole job within one sample), at the checkpoint level for the write
 * time, or at idle until the middle (a restart's end). First event of each
 * kind per job only. */
void site_pd_event(run *R, const sjob *j, int kind)
{
    site_pd *p = R->pd;
    size_t k = (size_t)(j - R->job), n = 0;
    double step_w = 0; /* mean power the job leaves (or takes up) */
    int slot = kind == RES_EV_INTERRUPT    ? 0
               : kind == RES_EV_CHECKPOINT ? 1
               : kind == RES_EV_RESTART    ? 2
                                           : -1;
    double mid = 0.5 * PD_N / PD_FS_HZ;
    pd_wave *w;
    if (!p || slot < 0 || p->ev[k * SPD_EV_KINDS + (size_t)slot] ||
        (slot == 1 && !(j->sj->ckpt_write_s > 0)))
        return;
    p->ev[k * SPD_EV_KINDS + (size_t)slot] = 1;
    if (p->last_o)
        build_waves(R); /* draws this window's offsets */
    else
        draw_offsets(p, R);
    w = sim_xcalloc(p->n_w + R->n_grp + 1, sizeof *w);
    for (size_t i = 0; i < p->n_w; i++)
        if (p->w_job[i] != k)
            w[n++] = p->w[i];
    for (size_t g = 0; g < R->n_grp; g++) {
        load_demand d, c;
        double nsys = job_sys_in_grp(R, k, g), ck;
        if (nsys <= 0)
            continue;
        load_training_demand_f(
            &R->lcfg[g], &R->lsys[g], nsys * R->lsys[g].n_gpus,
            load_step_gpu_frac(&R->lcfg[g], j->sj->fmt, &j->ph), &d);
        load_training_demand_f(&R->lcfg[g], &R->lsys[g],
                               nsys * R->lsys[g].n_gpus,
                               load_ckpt_gpu_frac(&R->lcfg[g], j->sj->fmt), &c);
        ck = c.gpu_w + c.other_w;
        step_w += d.gpu_w + d.other_w - (slot == 1 ? ck : d.idle_w);
        job_wave(R, p, k, g, d.gpu_w, d.other_w, &w[n]);
        w[n].hold_from_s = slot == 2 ? 0.0 : mid;
        w[n].hold_to_s = slot == 0   ? (double)INFINITY
                         : slot == 1 ? mid + j->sj->ckpt_write_s
                                     : mid;
        w[n].hold_w = slot == 1 ? ck : d.idle_w;
        n++;
    }
    /* A job whose step is no larger than one already analysed for this
     * kind is skipped: its window cannot show a larger excursion of its
     * own (the rest of the mix is a steady window's). */
    if (!(step_w > p->ev_step_w[slot])) {
        free(w);
        return;
    }
    p->ev_step_w[slot] = step_w;
    /* Event windows: peak and minimum; a failure is no ramp to plan for
     * (it is power_largest_drop), checkpoints and restarts are. */
    analyse(R, w, n, p->const_w, 0, slot != 0);
    free(w);
}

void site_pd_results(const run *R, res_site *st)
{
    const site_pd *p = R->pd;
    if (!p) {
        /* Not analysed: every figure is empty (NULL), never zero. */
        st->power_peak_w = st->power_min_w = st->power_swing_w =
            st->power_std_w = st->power_max_ramp_w_per_s =
                st->power_band_0p1_2hz_rms_w = st->power_band_3_30hz_rms_w =
                    st->power_largest_drop_w =
                        st->battery_power_for_ramp_limit_w =
                            st->power_jobs_mean_w = (double)NAN;
        return;
    }
    st->power_jobs_mean_w =
        p->n_steady ? p->jobs_sum_w / p->n_steady : (double)NAN;
    st->power_peak_w = p->any ? p->peak_w : (double)NAN;
    st->power_min_w = p->any ? p->min_w : (double)NAN;
    st->power_swing_w = p->any ? p->swing_w : (double)NAN;
    st->power_std_w = p->any ? p->std_w : (double)NAN;
    st->power_max_ramp_w_per_s = p->any ? p->ramp_w_per_s : (double)NAN;
    st->power_band_0p1_2hz_rms_w = p->any ? p->lo_rms_w : (double)NAN;
    st->power_band_3_30hz_rms_w = p->any ? p->hi_rms_w : (double)NAN;
    st->power_largest_drop_w = p->drop_w;
    st->battery_power_for_ramp_limit_w = p->batt_w;
}

void site_pd_rep_results(const run *R, res_rep *out)
{
    const site_pd *p = R->pd;
    if (!p || p->n_steady == 0)
        return; /* no modules, no window: nothing analysed */
    out->n_modules = R->n_mod;
    out->modules = sim_xcalloc(R->n_mod ? R->n_mod : 1, sizeof *out->modules);
    for (size_t m = 0; m < R->n_mod; m++) {
        out->modules[m] = p->mod[m];
        out->modules[m].power_mean_w /= p->n_steady;
    }
    if (p->rep_n_train >= 0) {
        out->n_pd_samples = PD_N;
        out->pd_samples = sim_xcalloc(PD_N, sizeof *out->pd_samples);
        for (size_t i = 0; i < PD_N; i++) {
            out->pd_samples[i].t_s = (double)i / PD_FS_HZ;
            out->pd_samples[i].power_w = p->rep_x[i];
            out->pd_samples[i].power_unsmoothed_w = p->rep_x0[i];
        }
    }
}
