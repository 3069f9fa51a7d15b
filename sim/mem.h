/* sim/mem.h: allocation that cannot fail. Out of memory prints
 * "factorysim: out of memory allocating N bytes ..." and exits with status 1
 * in one place, since the simulator cannot usefully go on; this removes most
 * error paths (STYLE.md 6.4, after Redis zmalloc). Not abort(), as STYLE.md
 * first had it: issue 13.4 asks for exit 1 with a message, and SIGABRT
 * reads as a crash (and dumps core) to a user or a batch system. Stored
 * results are safe: a store is one transaction, rolled back by SQLite when
 * the process ends without committing. */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stddef.h>

/* Prints the out-of-memory message for a request of n bytes on stderr and
 * ends the process with exit status 1 (_exit: no atexit handlers, no stdio
 * flush, so no half-written output; safe from any thread). Never returns.
 * Also for libraries' allocators that return NULL (gsl_rng_alloc). */
void sim_oom(size_t n)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* malloc/calloc/realloc/strdup that exit 1 with a message on failure. */
void *sim_xmalloc(size_t n);
void *sim_xcalloc(size_t count, size_t size);
void *sim_xrealloc(void *p, size_t n);
char *sim_xstrdup(const char *s);

/* Grows *p (an array of *cap elements of size elem) to hold at least need
 * elements, doubling; for append-only arrays. */
void sim_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
