/* models/job_fsm.h: the states of a training job in a site run and which
 * moves between them are legal (models/job_fsm.c holds the table, with the
 * function that performs each move, and every write of a job's state).
 *
 * A job is PENDING until its submit time, QUEUED while it waits for
 * systems, then holds systems in RUN, CKPT, RESTART, WAIT_REPAIR, PAUSED or
 * SHED until it is DONE (or, after a whole-module outage, QUEUED again).
 * DONE is final.
 */
#ifndef MODELS_JOB_FSM_H
#define MODELS_JOB_FSM_H

typedef enum job_state {
    JS_PENDING = 0, /* not submitted yet */
    JS_QUEUED,      /* waiting for systems */
    JS_RUN,         /* training */
    JS_CKPT,        /* writing a checkpoint (training blocked) */
    JS_RESTART,     /* restarting after an interruption or resume */
    JS_WAIT_REPAIR, /* a failed system must be repaired first */
    JS_PAUSED,      /* power pause (checkpointed, GPUs idle) */
    JS_SHED,        /* power shed (systems off) */
    JS_DONE,
    JS_N
} job_state;

/* The state's name ("PENDING" ... "DONE"), "?" out of range. */
const char *job_state_name(job_state s);

/* 1 when from -> to is in the transition table, else 0. */
int job_fsm_allowed(job_state from, job_state to);

/* The function that performs from -> to (as named in the table), NULL when
 * the move is not in the table. */
const char *job_fsm_performer(job_state from, job_state to);

#endif
