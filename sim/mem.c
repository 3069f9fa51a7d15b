/* sim/mem.c: allocation wrappers that exit 1 on failure (see mem.h). */
#include "sim/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sim_oom(size_t n)
{
    /* No malloc from here on: the message is formatted on the stack and
     * written with write(2); stdio's buffers may need memory. */
    char msg[256];
    int k = snprintf(msg, sizeof msg,
                     "factorysim: out of memory allocating %zu bytes "
                     "(reduce replications, --series, the horizon or --jobs, "
                     "or raise the memory limit)\n",
                     n);
    if (k > 0) {
        ssize_t w = write(STDERR_FILENO, msg,
                          (size_t)k < sizeof msg ? (size_t)k : sizeof msg - 1);
        (void)w;
    }
    _exit(1);
}

void *sim_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        sim_oom(n);
    return p;
}

void *sim_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        sim_oom(count * size);
    return p;
}

void *sim_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        sim_oom(n);
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
