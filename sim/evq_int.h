/* sim/evq_int.h: calendar layout, for tests only. */
#ifndef SIM_EVQ_INT_H
#define SIM_EVQ_INT_H

#include "sim/evq.h"

/* Number of buckets and bucket width [s] right now. */
size_t evq_int_nbuckets(const evq *q);
double evq_int_width_s(const evq *q);

/* Checks every invariant (lists sorted, counts, virtual buckets, free list).
 * Returns 1 when valid. O(n). */
int evq_int_valid(const evq *q);

#endif
