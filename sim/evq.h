/* sim/evq.h: the pending-event set, a calendar queue with O(1) handles.
 *
 * Model. Each entry has a time t_s (seconds of simulated time, finite, >= 0)
 * and a 64-bit order key: the top 16 bits rank the priority, the low 48 bits
 * are an insertion sequence number. Entries leave in ascending (t_s, key)
 * order, so entries with equal t_s and equal priority leave FIFO. The key is
 * built by sim.c (evq knows nothing of priorities); any two keys must differ.
 *
 * Structure. A calendar queue (R. Brown, CACM 31(10), 1988): an array of
 * nb buckets (a power of two) of width w seconds; an entry with virtual
 * bucket v = floor(t_s / w) lives in bucket v mod nb, in a doubly linked list
 * kept sorted by (t_s, key). Dequeue walks buckets from the current virtual
 * bucket and takes the first head whose v is the current one; after a whole
 * year without a hit it searches the heads directly. nb doubles when the
 * queue holds more than 2 nb entries and halves below nb / 2; each resize
 * re-estimates w from the separation of the earliest entries (3x the mean).
 *
 * Why a calendar queue: measured on this machine kind (DESIGN/STYLE notes,
 * docs/engine.md), a binary heap ran about 6 M hold operations/s at 10^4
 * pending events and a calendar queue about 17 M/s; the PHOLD benchmark in
 * `make bench` is the judge (figures in docs/engine.md).
 *
 * Complexity. push and pop are O(1) expected for smooth time distributions
 * (amortized over resizes, which are O(n)); pathological distributions
 * (most entries in one bucket) degrade to O(n) per push. cancel is O(1)
 * through the handle, no search. Memory: one 64-byte node per entry.
 *
 * Handles. push returns a nonzero 64-bit handle (slot index + generation).
 * A handle is valid until its entry is popped or cancelled; afterwards
 * cancel and contains report it as gone, even if the slot was reused.
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct evq evq;
typedef uint64_t evq_handle; /* 0 is never a valid handle */

/* The payload carried by an entry (opaque to evq). */
typedef struct evq_item {
    double t_s;       /* event time [s] */
    uint64_t key;     /* order key among equal t_s */
    void (*fn)(void); /* handler (cast back by the caller) */
    void *ctx;        /* handler context */
    uint64_t arg;     /* 64-bit argument */
} evq_item;

/* Creates an empty queue. Never fails (aborts on out of memory). */
evq *evq_new(void);

/* Frees q and every entry. evq_free(NULL) is a no-op. */
void evq_free(evq *q);

/* Number of pending entries. O(1). */
size_t evq_size(const evq *q);

/* Inserts a copy of *it. t_s must be finite, >= 0 and >= the time of the
 * last entry popped (the caller, sim.c, checks this). Returns its handle.
 * O(1) expected. */
evq_handle evq_push(evq *q, const evq_item *it);

/* Removes the earliest entry into *out (OUT). Returns 1, or 0 when empty. */
int evq_pop(evq *q, evq_item *out);

/* Looks at the earliest entry without removing it. Returns 1 with *out
 * filled, or 0 when empty. */
int evq_peek(evq *q, evq_item *out);

/* Removes the entry of handle h. Returns 1 if it was pending, 0 if it had
 * already left (popped or cancelled) or h was never issued. O(1). */
int evq_cancel(evq *q, evq_handle h);

/* 1 if the entry of handle h is still pending, else 0. O(1). */
int evq_contains(const evq *q, evq_handle h);

#endif
