/* sim/mem.c: allocation wrappers that exit 1 on failure (see mem.h).
 *
 * This file is the single place where running out of memory is handled: every
 * other file may assume an allocation succeeded. It must never return NULL to a
 * caller and never use stdio or malloc while reporting, since the report
 * happens exactly when the heap is exhausted. The exit status is 1 (not
 * abort()) because issue 13.4 asks for a message and a clean failure, not a
 * core dump; stored results stay safe because every database store is one
 * SQLite transaction. */
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
        /* The length is clamped to the buffer because snprintf returns the
         * length it would have written; the message is fixed text plus one
         * number and fits, but the clamp keeps write(2) inside msg even if the
         * text grows. */
        ssize_t w = write(STDERR_FILENO, msg,
                          (size_t)k < sizeof msg ? (size_t)k : sizeof msg - 1);
        (void)w;
    }
    /* _exit, not exit: atexit handlers and stdio flushing could allocate, and
     * could write half of a JSON or CSV document that a consumer would then
     * misread. */
    _exit(1);
}

/* A request for 0 bytes asks for 1: malloc(0) may legally return NULL, which
 * would be mistaken for out of memory; callers sizing arrays from counts that
 * can be 0 (no jobs, no sources) then need no special case. */
void *sim_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        sim_oom(n);
    return p;
}

/* calloc itself checks count * size for overflow and returns NULL, so an
 * overflowing request ends here as out of memory, not as a short buffer. The
 * size in the message may wrap in that case; it is only informative. */
void *sim_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        sim_oom(count * size);
    return p;
}

/* realloc(p, 0) may free p and return NULL; asking for 1 byte keeps the "never
 * NULL" promise and leaves p valid. */
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

/* Doubling from 8 makes appends amortised O(1) for the growable arrays used
 * across the tree (steps, rows, sweep points); *cap only changes after the
 * realloc succeeded (it cannot fail here), so p and cap never disagree. */
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
