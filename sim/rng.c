/* sim/rng.c: seed derivation for per-entity streams (see rng.h). */
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

uint64_t rng_stream_id(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

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
    gsl_rng_set(r, v ? v : 0x5bd1e995ul);
}

gsl_rng *rng_stream_new(const gsl_rng_type *T, uint64_t master, uint64_t rep,
                        uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(T ? T : gsl_rng_mt19937);
    if (!r)
        sim_oom(sizeof(gsl_rng));
    rng_stream_reset(r, master, rep, stream);
    return r;
}
