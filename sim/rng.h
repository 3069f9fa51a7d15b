/* sim/rng.h: random streams derived from one master seed.
 *
 * Every entity (a module, a job, a battery pack, a PHOLD LP) draws from its
 * own GSL generator, seeded from (master seed, replication, stream id) by a
 * SplitMix64 mix. A stream's draws depend only on those three numbers, so
 * adding an entity never changes another entity's draws, and two scenarios
 * run with the same master seed share their random numbers stream by stream
 * (common random numbers). Stream ids come from entity names through a
 * 64-bit FNV-1a hash, or are small integers chosen by the model.
 *
 * The generator type defaults to MT19937. GSL seeds MT19937 from 32 bits,
 * so two of n streams coincide with probability about n^2 / 2^33; that is
 * below 1e-3 for n < 3000 streams, which is why models keep one stream per
 * module, job or pack, not per GPU. GSL_RNG_TYPE / GSL_RNG_SEED are never
 * read (deps-notes.md 5.5). Errors: none (allocation aborts on failure).
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* SplitMix64 finaliser: a bijective 64-bit mix. */
uint64_t rng_mix64(uint64_t x);

/* FNV-1a 64-bit hash of a NUL-terminated name, as a stream id. */
uint64_t rng_stream_id(const char *name);

/* Largest master seed: seeds are stored and printed as signed 64-bit
 * integers (SQLite INTEGER, JSON), so a seed above 2^63-1 would come back
 * negative; every reader of a seed (--seed, simulation.seed) refuses it. */
#define RNG_SEED_MAX INT64_MAX

/* The seed of stream `stream` in replication `rep` of master seed `master`.
 * Distinct (master, rep, stream) triples give unrelated 64-bit seeds. */
uint64_t rng_seed(uint64_t master, uint64_t rep, uint64_t stream);

/* A new generator of type T (NULL = gsl_rng_mt19937) seeded with
 * rng_seed(master, rep, stream). Caller frees with gsl_rng_free. */
gsl_rng *rng_stream_new(const gsl_rng_type *T, uint64_t master, uint64_t rep,
                        uint64_t stream);

/* Reseeds an existing generator as rng_stream_new would. */
void rng_stream_reset(gsl_rng *r, uint64_t master, uint64_t rep,
                      uint64_t stream);

#endif
