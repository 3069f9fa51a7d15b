/* sim/mem.h: allocation that cannot fail. Out of memory prints the size and
 * aborts in one place, since the simulator cannot usefully go on; this removes
 * most error paths (STYLE.md 6.4, after Redis zmalloc). */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stddef.h>

/* malloc/calloc/realloc/strdup that abort with a message on failure. */
void *sim_xmalloc(size_t n);
void *sim_xcalloc(size_t count, size_t size);
void *sim_xrealloc(void *p, size_t n);
char *sim_xstrdup(const char *s);

/* Grows *p (an array of *cap elements of size elem) to hold at least need
 * elements, doubling; for append-only arrays. */
void sim_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
