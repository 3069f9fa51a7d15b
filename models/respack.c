/* models/respack.c: flat packing of replications (see respack.h). The reader
 * checks every count against the remaining length before it allocates, so a
 * short or corrupt buffer is an error, never an overrun.
 *
 * This file owns the wire format between MPI ranks and nothing else: the field
 * order comes from the resfield tables, so a new result field travels without
 * an edit here. It must never do I/O or know about MPI (app/sweep_exec.c sends
 * the buffer), and it must never trust the buffer: it arrives from another
 * process. Doubles were chosen over a struct copy because every field is
 * already a double or a small integer, and one MPI_DOUBLE message needs no
 * datatype. */
#include "models/respack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/resfield.h"
#include "sim/mem.h"

/* t_s, job, kind, cause, value: an event is not in the resfield tables, so its
 * width is fixed here and in respack_pack/unpack together. */
#define EV_FIELDS 5

size_t respack_size(const res_rep *reps, size_t n)
{
    /* One double for the replication count, then six counts per replication
     * ahead of its fields; respack_pack writes exactly this many. */
    size_t k = 1;
    for (size_t r = 0; r < n; r++)
        k += 6 + reps[r].n_jobs * resfield_n_job + resfield_n_site +
             reps[r].n_steps * resfield_n_step + reps[r].n_events * EV_FIELDS +
             reps[r].n_modules * resfield_n_module +
             reps[r].n_pd_samples * resfield_n_pd_sample;
    return k;
}

size_t respack_pack(const res_rep *reps, size_t n, double *buf)
{
    size_t k = 0;
    buf[k++] = (double)n;
    for (size_t r = 0; r < n; r++) {
        const res_rep *p = &reps[r];
        buf[k++] = (double)p->replication;
        buf[k++] = (double)p->n_jobs;
        buf[k++] = (double)p->n_steps;
        buf[k++] = (double)p->n_events;
        buf[k++] = (double)p->n_modules;
        buf[k++] = (double)p->n_pd_samples;
        for (size_t j = 0; j < p->n_jobs; j++)
            for (size_t f = 0; f < resfield_n_job; f++)
                buf[k++] = resfield_get(&p->jobs[j], &resfield_job[f]);
        for (size_t f = 0; f < resfield_n_site; f++)
            buf[k++] = resfield_get(&p->site, &resfield_site[f]);
        for (size_t s = 0; s < p->n_steps; s++)
            for (size_t f = 0; f < resfield_n_step; f++)
                buf[k++] = resfield_get(&p->steps[s], &resfield_step[f]);
        for (size_t e = 0; e < p->n_events; e++) {
            const res_event *ev = &p->events[e];
            buf[k++] = ev->t_s;
            buf[k++] = (double)ev->job;
            buf[k++] = (double)ev->kind;
            buf[k++] = (double)ev->cause;
            buf[k++] = ev->value;
        }
        for (size_t m = 0; m < p->n_modules; m++)
            for (size_t f = 0; f < resfield_n_module; f++)
                buf[k++] = resfield_get(&p->modules[m], &resfield_module[f]);
        for (size_t i = 0; i < p->n_pd_samples; i++)
            for (size_t f = 0; f < resfield_n_pd_sample; f++)
                buf[k++] =
                    resfield_get(&p->pd_samples[i], &resfield_pd_sample[f]);
    }
    return k;
}

/* An int32 read from the buffer (0 when out of range, never UB). Casting an
 * out-of-range double to an integer is undefined behaviour in C, so a corrupt
 * value is mapped to 0 instead of being cast. */
static int32_t get_i32(double v)
{
    return v >= -2147483648.0 && v <= 2147483647.0 ? (int32_t)v : 0;
}

/* A count read from the buffer: a whole number in [0, max]. */
static int get_count(double v, size_t max, size_t *out)
{
    if (!(v >= 0) || v > (double)max || v != floor(v))
        return 0;
    *out = (size_t)v;
    return 1;
}

/* Shaped as one pass with a single `bad:` exit: counts are validated against
 * the doubles left before any allocation (so a corrupt count cannot request
 * gigabytes), and every replication allocated so far is freed on the way out,
 * so the caller receives either all replications or nothing. Keep the check of
 * the whole record's size ahead of the copy loops; the loops themselves do not
 * check k. */
int respack_unpack(const double *buf, size_t len, res_rep **reps,
                   size_t *n_reps, sim_err *err)
{
    size_t k = 0, n, r = 0;
    res_rep *v = NULL;

    *reps = NULL;
    *n_reps = 0;
    if (len < 1 || !get_count(buf[0], len, &n))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "result buffer: bad replication count");
    k = 1;
    v = sim_xcalloc(n ? n : 1, sizeof *v);
    for (r = 0; r < n; r++) {
        res_rep *p = &v[r];
        size_t rep, nj, ns, ne, nm, np, left;
        if (len - k < 6)
            goto bad;
        /* Each count is bounded by the doubles left, which also bounds the
         * products below: nj, ns and ne are each <= len, so nj * resfield_n_job
         * cannot wrap for any buffer that fits in memory. */
        left = len - k - 6;
        if (!get_count(buf[k], UINT32_MAX, &rep) ||
            !get_count(buf[k + 1], left, &nj) ||
            !get_count(buf[k + 2], left, &ns) ||
            !get_count(buf[k + 3], left, &ne) ||
            !get_count(buf[k + 4], left, &nm) ||
            !get_count(buf[k + 5], left, &np))
            goto bad;
        k += 6;
        if (nj * resfield_n_job + resfield_n_site + ns * resfield_n_step +
                ne * EV_FIELDS + nm * resfield_n_module +
                np * resfield_n_pd_sample >
            left)
            goto bad;
        p->replication = (uint32_t)rep;
        p->n_jobs = nj;
        p->jobs = nj ? sim_xcalloc(nj, sizeof *p->jobs) : NULL;
        for (size_t j = 0; j < nj; j++)
            for (size_t f = 0; f < resfield_n_job; f++)
                resfield_set(&p->jobs[j], &resfield_job[f], buf[k++]);
        for (size_t f = 0; f < resfield_n_site; f++)
            resfield_set(&p->site, &resfield_site[f], buf[k++]);
        p->n_steps = ns;
        p->steps = ns ? sim_xcalloc(ns, sizeof *p->steps) : NULL;
        for (size_t s = 0; s < ns; s++)
            for (size_t f = 0; f < resfield_n_step; f++)
                resfield_set(&p->steps[s], &resfield_step[f], buf[k++]);
        p->n_events = ne;
        p->events = ne ? sim_xcalloc(ne, sizeof *p->events) : NULL;
        for (size_t e = 0; e < ne; e++) {
            res_event *ev = &p->events[e];
            ev->t_s = buf[k++];
            ev->job = get_i32(buf[k++]);
            ev->kind = get_i32(buf[k++]);
            ev->cause = get_i32(buf[k++]);
            ev->value = buf[k++];
        }
        p->n_modules = nm;
        p->modules = nm ? sim_xcalloc(nm, sizeof *p->modules) : NULL;
        for (size_t m = 0; m < nm; m++)
            for (size_t f = 0; f < resfield_n_module; f++)
                resfield_set(&p->modules[m], &resfield_module[f], buf[k++]);
        p->n_pd_samples = np;
        p->pd_samples = np ? sim_xcalloc(np, sizeof *p->pd_samples) : NULL;
        for (size_t i = 0; i < np; i++)
            for (size_t f = 0; f < resfield_n_pd_sample; f++)
                resfield_set(&p->pd_samples[i], &resfield_pd_sample[f],
                             buf[k++]);
    }
    /* Trailing doubles mean the sender and receiver disagree on the layout (for
     * instance, builds with different result tables); refusing them is safer
     * than ignoring them. */
    if (k != len)
        goto bad;
    *reps = v;
    *n_reps = n;
    return SIM_OK;
bad:
    /* Replication r may be partly filled when the jump came from inside it; its
     * arrays are freed too (res_rep_free accepts NULL members). */
    for (size_t i = 0; i <= r && i < n; i++)
        res_rep_free(&v[i]);
    free(v);
    return sim_err_set(
        err, SIM_EINVAL, NULL, 0,
        "result buffer: truncated or inconsistent at double %zu of %zu", k,
        len);
}
