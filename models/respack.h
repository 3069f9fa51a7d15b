/* models/respack.h: replications (models/results.h) packed into one flat
 * array of doubles and back, so that a case computed on another MPI rank
 * reaches the rank that stores it unchanged.
 *
 * Layout: n_reps, then per replication: replication, n_jobs, n_steps,
 * n_events, n_modules, n_pd_samples, every job's fields in resfield_job
 * order, the site's fields in resfield_site order, every step in
 * resfield_step order, every event as (t_s, job, kind, cause, value),
 * every module in resfield_module order, every sample of the
 * representative window in resfield_pd_sample order. Every field of the structs
 * is carried (resfield tables cover them all) and doubles are copied bit for
 * bit, so unpack(pack(x)) == x field by field. Integers travel as doubles
 * (exact below 2^53). Pure: no I/O, no globals.
 */
#ifndef MODELS_RESPACK_H
#define MODELS_RESPACK_H

#include <stddef.h>

#include "models/results.h"
#include "sim/err.h"

/* Doubles needed to pack reps[0..n-1]. */
size_t respack_size(const res_rep *reps, size_t n);

/* Packs reps[0..n-1] into buf, which holds respack_size(reps, n) doubles.
 * Returns the doubles written. */
size_t respack_pack(const res_rep *reps, size_t n, double *buf);

/* Unpacks buf (len doubles) into *reps (OUT: n_reps replications, each
 * freed with res_rep_free, the array with free). Errors: SIM_EINVAL when
 * buf is truncated or inconsistent (nothing is left allocated). */
int respack_unpack(const double *buf, size_t len, res_rep **reps /* OUT */,
                   size_t *n_reps /* OUT */, sim_err *err);

#endif
