/* models/sched.h: where a training job runs, and when a queued job may
 * jump the queue.
 *
 * Placement. A job asks for a number of systems (8-GPU servers or NVL72
 * racks) of one GPU type. Systems are whole: one job per system. It goes to
 * one module when any online module of that type has enough free systems
 * (best fit: the module with the fewest free systems that still fits, ties
 * to the lower index, so that large holes stay for large jobs). Otherwise,
 * if the job may span modules, it takes free systems from the modules of
 * one fabric group (modules joined by working links), largest free count
 * first (ties to the lower index), which uses as few modules as possible;
 * the group tried first is the one with the most free systems. Placement is
 * deterministic: the same state gives the same answer.
 *
 * Backfill (EASY, Lifka 1995; Mu'alem and Feitelson 2001). Jobs queue in
 * order of priority (higher first), then submit time, then scenario order.
 * The head of the queue starts as soon as it fits. When it does not, it gets
 * a reservation: the shadow time at which enough systems of its type will
 * be free, counting the estimated end of each running job, and the extra
 * systems free at that time beyond its need. A later job may start now
 * (backfill) if it fits now and either its estimated end is before the
 * shadow time or it needs no more than the extra systems. Estimates use the
 * undisturbed throughput (no failures, no throttling), so a backfilled job
 * can delay the head in practice; the scheduler never kills it.
 *
 * Complexity: O(n_modules log n_modules) per placement, O(n_running log
 * n_running) per shadow computation. Pure; never allocates beyond scratch.
 */
#ifndef MODELS_SCHED_H
#define MODELS_SCHED_H

#include <stddef.h>

typedef struct sched_module {
    int online;   /* 1 when commissioned and not in an outage */
    int gpu_type; /* index of its GPU type (caller's numbering) */
    int group;    /* fabric group id; modules of one group can be
                     spanned by one job; < 0: isolated (no links) */
    int free_sys; /* free systems now, >= 0 */
} sched_module;

/* Places a job needing `need` systems of gpu_type. take[i] (OUT, n_mod
 * entries) receives the systems taken from module i. Returns the number of
 * modules used (>= 1), or 0 if it cannot be placed now (take is then all
 * zero). allow_span = 0 restricts to one module. */
int sched_place(const sched_module *m, size_t n_mod, int gpu_type, int need,
                int allow_span, int *take);

/* A running job as the backfill rule sees it. */
typedef struct sched_running {
    double est_end_s; /* estimated end time [s] */
    int gpu_type;
    int systems; /* systems it holds */
} sched_running;

/* The head job's reservation: *shadow_s (OUT) the earliest time at which
 * free_now + the systems of running jobs ending by then >= need, and *extra
 * (OUT) the systems free at that time beyond need. Returns 1, or 0 if even
 * all running jobs ending would not free enough (then *shadow_s = INFINITY
 * and *extra = 0). Only jobs of gpu_type count. */
int sched_shadow(const sched_running *r, size_t n_run, int gpu_type,
                 int free_now, int need, double *shadow_s, int *extra);

/* The EASY rule: 1 if a job that fits now, needing `need` systems and
 * estimated to end at est_end_s, may start without delaying the head's
 * reservation (shadow_s, extra). */
int sched_may_backfill(double est_end_s, int need, double shadow_s, int extra);

#endif
