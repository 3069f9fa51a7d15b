/* models/sched.c: placement and EASY backfill (see sched.h).
 *
 * This file owns the placement and backfill rules as pure functions of a
 * snapshot (the modules' free systems, the running jobs' estimated ends), so
 * that they can be tested without an engine; the job state machine in site.c
 * decides when to ask and applies the answer. It must never change module or
 * job state and never draw a random number: placement is deterministic, which
 * keeps runs reproducible and makes the queue order the only policy. */
#include "models/sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

/* Three passes, in the order the rule in sched.h states: best fit on one module
 * first (cheapest in fabric traffic), then, only when spanning is allowed, the
 * fabric group with the most free systems, then largest-free-first inside that
 * group so that the job touches as few modules as possible. take[] is all zeros
 * on every failure path, so a caller never sees a half placement. The passes
 * are O(n_mod^2) in the worst case (the header's O(n log n) is optimistic); a
 * site has tens of modules, where this costs microseconds. */
int sched_place(const sched_module *m, size_t n_mod, int gpu_type, int need,
                int allow_span, int *take)
{
    int best = -1, best_group = 0, used = 0;
    long best_group_free = -1;

    memset(take, 0, n_mod * sizeof *take);
    if (need <= 0)
        return 0;
    for (size_t i = 0; i < n_mod; i++) {
        if (!m[i].online || m[i].gpu_type != gpu_type || m[i].free_sys < need)
            continue;
        /* Strict < keeps the lower index on ties, which the header promises. */
        if (best < 0 || m[i].free_sys < m[best].free_sys)
            best = (int)i;
    }
    if (best >= 0) {
        take[best] = need;
        return 1;
    }
    if (!allow_span)
        return 0;
    /* The fabric group with the most free systems of this type. Groups are
     * small integers in practice; a linear pass per candidate keeps this
     * simple at the tens of modules a site has. */
    for (size_t i = 0; i < n_mod; i++) {
        long f = 0;
        if (!m[i].online || m[i].gpu_type != gpu_type || m[i].group < 0)
            continue;
        for (size_t k = 0; k < n_mod; k++)
            if (m[k].online && m[k].gpu_type == gpu_type &&
                m[k].group == m[i].group)
                f += m[k].free_sys;
        if (f > best_group_free) {
            best_group_free = f;
            best_group = m[i].group;
        }
    }
    /* Only the best group is tried: a job spans one fabric group, never two,
     * and if the largest group cannot hold it no smaller one can. */
    if (best_group_free < need)
        return 0;
    /* Largest free first: repeatedly take the module with the most free
     * systems left (n_mod is small; O(n_mod^2) is fine). */
    while (need > 0) {
        int pick = -1;
        for (size_t i = 0; i < n_mod; i++) {
            if (!m[i].online || m[i].gpu_type != gpu_type ||
                m[i].group != best_group)
                continue;
            if (take[i] > 0 || m[i].free_sys == 0)
                continue;
            if (pick < 0 || m[i].free_sys > m[pick].free_sys)
                pick = (int)i;
        }
        if (pick < 0)
            break;
        take[pick] = m[pick].free_sys < need ? m[pick].free_sys : need;
        need -= take[pick];
        used++;
    }
    if (need > 0) {
        memset(take, 0, n_mod * sizeof *take);
        return 0;
    }
    return used;
}

static int cmp_end(const void *a, const void *b)
{
    double x = ((const sched_running *)a)->est_end_s;
    double y = ((const sched_running *)b)->est_end_s;
    return (x > y) - (x < y);
}

/* The shadow time is the earliest estimated end at which enough systems of the
 * job's type are free; extra is what is free beyond its need then. A scratch
 * copy is sorted so that the caller's running list keeps its order. */
int sched_shadow(const sched_running *r, size_t n_run, int gpu_type,
                 int free_now, int need, double *shadow_s, int *extra)
{
    sched_running *v = sim_xmalloc((n_run ? n_run : 1) * sizeof *v);
    size_t n = 0;
    int avail = free_now;

    *shadow_s = INFINITY;
    *extra = 0;
    /* -INFINITY as the shadow time means "fits now": every backfill candidate's
     * end is after it, so only the extra-systems test can admit one, which is
     * correct when the head itself could start. */
    if (avail >= need) {
        *shadow_s = -INFINITY;
        *extra = avail - need;
        free(v);
        return 1;
    }
    for (size_t i = 0; i < n_run; i++)
        if (r[i].gpu_type == gpu_type)
            v[n++] = r[i];
    qsort(v, n, sizeof *v, cmp_end); /* ties keep no order: only sums matter */
    for (size_t i = 0; i < n; i++) {
        avail += v[i].systems;
        /* Jobs ending at the same instant all free their systems then. */
        if (avail >= need &&
            (i + 1 == n || v[i + 1].est_end_s > v[i].est_end_s)) {
            *shadow_s = v[i].est_end_s;
            *extra = avail - need;
            free(v);
            return 1;
        }
    }
    free(v);
    return 0;
}

/* EASY's rule (Lifka 1995): a later job may start now if it ends before the
 * head's reservation or only uses systems the head will not need then. */
int sched_may_backfill(double est_end_s, int need, double shadow_s, int extra)
{
    return est_end_s <= shadow_s || need <= extra;
}
