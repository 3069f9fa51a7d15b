/* sim/sim.h: the discrete-event engine: a simulated clock and a pending-event
 * set, stepped one event at a time.
 *
 * Time. now_s is simulated seconds since the run's start (t = 0). It never
 * goes backwards: it jumps to each event's time as that event runs.
 *
 * Ordering. Events run in ascending time; among events due at the same time,
 * higher priority runs first, and equal priorities run FIFO (in the order
 * they were scheduled). Ties are broken by a 48-bit insertion sequence, so the
 * order is total and runs are reproducible.
 *
 * Same-instant rule. An event scheduled for the current instant while that
 * instant is being processed (after an event at now_s has run) never runs
 * before the events already due at now_s: it goes after all of them,
 * whatever its priority, FIFO among such events (cf. Redis processTimeEvents'
 * maxId guard). Before the first event runs, priorities apply to t = 0 too.
 *
 * Handlers. fn(s, ctx, arg) runs with s->now_s at the event's time; it may
 * schedule, cancel and stop. ctx is the caller's (never owned by the engine);
 * arg is a 64-bit value carried with the event.
 *
 * Complexity. schedule, cancel and step are O(1) expected (calendar queue,
 * evq.h). Errors: SIM_EINVAL for a time in the past, NaN or infinite, or a
 * priority outside [SIM_PRIO_MIN, SIM_PRIO_MAX]. Never prints.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdint.h>

#include "sim/err.h"
#include "sim/evq.h"

#define SIM_PRIO_MIN (-32767)
#define SIM_PRIO_MAX 32767

typedef struct sim sim;
typedef evq_handle sim_handle; /* 0 is never a valid handle */
typedef void (*sim_fn)(sim *s, void *ctx, uint64_t arg);

struct sim {
    double now_s;      /* simulated time [s], read-only */
    uint64_t n_events; /* events run so far */
    evq *q;            /* pending events (private) */
    uint64_t seq;      /* insertion counter (private) */
    int started;       /* an event has run (private) */
    int stop;          /* set by sim_stop (private) */
};

/* Initialises s with an empty queue at now_s = 0. Pair with sim_fini. */
void sim_init(sim *s);

/* Frees the pending events. s may be reinitialised afterwards. */
void sim_fini(sim *s);

/* Schedules fn(s, ctx, arg) at absolute time t_s (>= now_s) with priority
 * prio. *h (OUT, may be NULL) receives the handle.
 * Errors: SIM_EINVAL if t_s < now_s, not finite, or prio out of range. */
int sim_schedule(sim *s, double t_s, int prio, sim_fn fn, void *ctx,
                 uint64_t arg, sim_handle *h);

/* Same as sim_schedule at now_s + dt_s (dt_s >= 0). */
int sim_schedule_in(sim *s, double dt_s, int prio, sim_fn fn, void *ctx,
                    uint64_t arg, sim_handle *h);

/* Cancels a pending event through its handle (no search). Returns 1 if it
 * was pending, 0 if it already ran or was cancelled. O(1). */
int sim_cancel(sim *s, sim_handle h);

/* 1 if the event of handle h is still pending. */
int sim_pending(const sim *s, sim_handle h);

/* Number of pending events. */
uint64_t sim_queue_size(const sim *s);

/* Time of the next pending event into *t_s (OUT). Returns 1, or 0 if none. */
int sim_next_time(sim *s, double *t_s);

/* Runs the next event. Returns SIM_CONTINUE if one ran, SIM_OK if the queue
 * was empty (the clock does not move). */
int sim_step(sim *s);

/* Runs every event with time <= t_end_s, then sets now_s = t_end_s (if it
 * is later). Stops early, leaving now_s at the last event, if a handler
 * calls sim_stop. Returns SIM_OK, or SIM_EINTR when stopped early.
 * Errors: SIM_EINVAL if t_end_s < now_s or is NaN. */
int sim_run_until(sim *s, double t_end_s);

/* Runs until the queue is empty or a handler calls sim_stop. Returns
 * SIM_OK or SIM_EINTR. */
int sim_run(sim *s);

/* Asks the running loop to return after the current event. */
void sim_stop(sim *s);

#endif
