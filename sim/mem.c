/* sim/mem.c: aborting allocation wrappers (see mem.h). */
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "factorysim: out of memory allocating %zu bytes\n", n);
    abort();
}

void *sim_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *sim_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *sim_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *sim_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = sim_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void sim_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 8;
    if (need <= *cap)
        return;
    while (c < need)
        c *= 2;
    *p = sim_xrealloc(*p, c * elem);
    *cap = c;
}
