/* sim/sim.c: clock and event loop over the calendar queue (see sim.h).
 *
 * The order key handed to evq is rank << 48 | seq, where rank is SIM_PRIO_MAX -
 * prio (so higher priority sorts first) for ordinary events, and 0xffff for an
 * event scheduled for the instant being processed, which puts it after every
 * event already due then (the same-instant rule).
 *
 * This file owns the clock and the ordering rule; evq.c owns only the data
 * structure and compares (t_s, key) without knowing what a priority is. Packing
 * priority and sequence into one 64-bit key keeps evq's comparison a single
 * integer compare, which is what the PHOLD benchmark measures. The engine must
 * never know what an event means (no GPU, job or module here), never print and
 * never free a handler's ctx. 48 bits of sequence allow 2.8e14 events per run,
 * far beyond any horizon the models schedule, so wrap-around is not handled. */
#include "sim/sim.h"

#include <math.h>

#include "sim/fsassert.h"

#define SEQ_BITS 48
/* Larger than any ordinary rank (at most 2 * SIM_PRIO_MAX = 65534), so a
 * same-instant event sorts after every prioritised event due at now_s. */
#define RANK_LATE 0xffffu

void sim_init(sim *s)
{
    s->now_s = 0.0;
    s->n_events = 0;
    s->q = evq_new();
    s->seq = 0;
    s->started = 0;
    s->stop = 0;
}

void sim_fini(sim *s)
{
    evq_free(s->q);
    s->q = NULL;
}

int sim_schedule(sim *s, double t_s, int prio, sim_fn fn, void *ctx,
                 uint64_t arg, sim_handle *h)
{
    evq_item it;
    uint64_t rank;

    /* NaN fails every comparison and would poison the heap order silently, so
     * it is rejected here rather than trusted to t_s < now_s. */
    if (!isfinite(t_s) || t_s < s->now_s || prio < SIM_PRIO_MIN ||
        prio > SIM_PRIO_MAX || !fn)
        return SIM_EINVAL;
    /* started is false before the first event runs, so events scheduled at t =
     * 0 during set-up still obey their priorities; only scheduling from inside
     * a handler at the current instant takes the late rank. */
    rank = (s->started && t_s == s->now_s) ? RANK_LATE
                                           : (uint64_t)(SIM_PRIO_MAX - prio);
    it.t_s = t_s;
    it.key = (rank << SEQ_BITS) | (s->seq++ & ((1ull << SEQ_BITS) - 1));
    /* evq stores a generic function pointer so that it does not depend on
     * sim.h; C allows the round trip between function pointer types, and
     * dispatch() converts it back to sim_fn before calling. */
    it.fn = (void (*)(void))fn;
    it.ctx = ctx;
    it.arg = arg;
    {
        evq_handle eh = evq_push(s->q, &it);
        if (h)
            *h = eh;
    }
    return SIM_OK;
}

int sim_schedule_in(sim *s, double dt_s, int prio, sim_fn fn, void *ctx,
                    uint64_t arg, sim_handle *h)
{
    if (!(dt_s >= 0.0))
        return SIM_EINVAL;
    return sim_schedule(s, s->now_s + dt_s, prio, fn, ctx, arg, h);
}

int sim_cancel(sim *s, sim_handle h)
{
    return evq_cancel(s->q, h);
}

int sim_pending(const sim *s, sim_handle h)
{
    return evq_contains(s->q, h);
}

uint64_t sim_queue_size(const sim *s)
{
    return evq_size(s->q);
}

int sim_next_time(sim *s, double *t_s)
{
    evq_item it;
    if (!evq_peek(s->q, &it))
        return 0;
    *t_s = it.t_s;
    return 1;
}

/* now_s and started are set before the handler runs, because the handler
 * schedules relative to now_s and its same-instant events must take the late
 * rank. Event order: the queue pops non-decreasing times (sim_schedule
 * refuses a time before now), so the clock never goes back. */
static void dispatch(sim *s, const evq_item *it)
{
    sim_fn fn = (sim_fn)it->fn;
    FS_ASSERT(it->t_s >= s->now_s);
    s->now_s = it->t_s;
    s->started = 1;
    s->n_events++;
    fn(s, it->ctx, it->arg);
}

int sim_step(sim *s)
{
    evq_item it;
    if (!evq_pop(s->q, &it))
        return SIM_OK;
    dispatch(s, &it);
    return SIM_CONTINUE;
}

/* Peek before pop: an event after t_end_s (the next step, a failure beyond
 * the horizon) must stay queued and never run, and the clock must land
 * exactly on t_end_s so that integrals up to the horizon are complete. */
int sim_run_until(sim *s, double t_end_s)
{
    evq_item it;

    if (!(t_end_s >= s->now_s))
        return SIM_EINVAL;
    s->stop = 0;
    while (evq_peek(s->q, &it) && it.t_s <= t_end_s) {
        evq_pop(s->q, &it);
        dispatch(s, &it);
        /* The stop flag is checked after the event that set it has run to
         * completion, so a handler never sees the engine stop halfway through
         * its own effects; the flag is cleared so that a later run resumes
         * normally. */
        if (s->stop) {
            s->stop = 0;
            return SIM_EINTR;
        }
    }
    if (t_end_s > s->now_s) {
        s->now_s = t_end_s;
        /* The clock moved without running an event at t_end_s, so t_end_s is
         * not "being processed": priorities apply to events scheduled now. */
        s->started = 0;
    }
    return SIM_OK;
}

int sim_run(sim *s)
{
    s->stop = 0;
    while (sim_step(s) == SIM_CONTINUE) {
        if (s->stop) {
            s->stop = 0;
            return SIM_EINTR;
        }
    }
    return SIM_OK;
}

void sim_stop(sim *s)
{
    s->stop = 1;
}
