/* sim/rng.c: seed derivation for per-entity streams (see rng.h).
 *
 * This file is the only place that turns (master seed, replication, stream id)
 * into a generator seed, so it fixes the reproducibility contract: any change
 * to a constant here changes every stochastic result in the project and the
 * golden files with it. It must never read GSL_RNG_SEED or GSL_RNG_TYPE
 * (gsl_rng_env_setup is not called anywhere) and never draw a number itself;
 * models own their streams and the order of their draws. */
#include "sim/rng.h"

#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>

uint64_t rng_mix64(uint64_t x)
{
    /* SplitMix64 (Steele, Lea, Flood, OOPSLA 2014), finalising step. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3, from the
 * published FNV parameters). It is chosen for being tiny and stable across
 * platforms, not for quality: rng_seed mixes its output through SplitMix64
 * before anything uses it. */
uint64_t rng_stream_id(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Each input goes through a full SplitMix64 round before the next is folded in,
 * so nearby masters, replications and stream ids (0, 1, 2 ...) give unrelated
 * seeds; a plain XOR of the three would make (rep 1, stream 2) collide with
 * (rep 2, stream 1). */
uint64_t rng_seed(uint64_t master, uint64_t rep, uint64_t stream)
{
    return rng_mix64(rng_mix64(rng_mix64(master) ^ rep) ^ stream);
}

void rng_stream_reset(gsl_rng *r, uint64_t master, uint64_t rep,
                      uint64_t stream)
{
    uint64_t s = rng_seed(master, rep, stream);
    /* Fold the high half in: MT19937 keeps 32 bits of the seed, and a zero
     * seed would silently mean GSL's default 4357. */
    unsigned long v = (unsigned long)((s ^ (s >> 32)) & 0xffffffffu);
    /* 0x5bd1e995 is MurmurHash2's multiplier, used only as a fixed non-zero
     * replacement; any constant would do, but it must never change (see above).
     */
    gsl_rng_set(r, v ? v : 0x5bd1e995ul);
}

/* gsl_rng_alloc returns NULL only when memory is short, so it is folded into
 * the one out-of-memory path of mem.c rather than given an error code. */
gsl_rng *rng_stream_new(const gsl_rng_type *T, uint64_t master, uint64_t rep,
                        uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(T ? T : gsl_rng_mt19937);
    if (!r)
        sim_oom(sizeof(gsl_rng));
    rng_stream_reset(r, master, rep, stream);
    return r;
}
