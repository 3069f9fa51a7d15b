/* models/phold.h: the PHOLD synthetic benchmark on the engine (Fujimoto 1990;
 * as in ROSS's models/phold).
 *
 * n_lps logical processes each start with start_events events. Processing an
 * event at LP i draws, from LP i's own stream, a delay lookahead_s +
 * Exp(mean_s) (so the mean delay is lookahead_s + mean_s) and a destination:
 * with probability remote a uniformly random LP (which may be i), else i
 * itself; it then schedules exactly one event there. Events after end_s stay
 * pending and are not counted. The initial events are at lookahead_s +
 * Exp(mean_s). The run is a pure function of the configuration and the seed.
 *
 * Cost per event: one pop, one push, two or three draws. Memory: one
 * generator per LP plus one 64-byte queue node per pending event. The LP
 * streams are GSL's taus2 (L'Ecuyer 1996; 24 bytes of state, period 2^88):
 * with MT19937's 5 KB per LP, 1024 LPs made the benchmark cache-bound
 * (6.6 vs 11.8 M events/s measured here at 1024 LPs x 16 events).
 */
#ifndef MODELS_PHOLD_H
#define MODELS_PHOLD_H

#include <stdint.h>

#include "sim/err.h"

typedef struct phold_cfg {
    uint32_t n_lps;        /* logical processes, >= 1 */
    uint32_t start_events; /* initial events per LP, >= 1 */
    double end_s;          /* simulated end time [s], > 0 */
    double remote;         /* probability of a remote destination, [0,1] */
    double mean_s;         /* mean of the exponential part [s], >= 0 */
    double lookahead_s;    /* fixed part of every delay [s], >= 0 */
    uint64_t seed;         /* master seed */
} phold_cfg;

typedef struct phold_result {
    uint64_t events;        /* events processed with t <= end_s */
    uint64_t remote_events; /* of which were sent to a random LP */
    uint64_t pending;       /* events left pending after end_s */
    double wall_s;          /* wall-clock seconds of the event loop */
} phold_result;

/* Checks c. Errors: SIM_EINVAL with a message naming the bad field. */
int phold_validate(const phold_cfg *c, sim_err *err);

/* Runs PHOLD and fills *out (OUT). Errors: as phold_validate. */
int phold_run(const phold_cfg *c, phold_result *out, sim_err *err);

#endif
