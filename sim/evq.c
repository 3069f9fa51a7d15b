/* sim/evq.c: calendar queue (see evq.h for the model and the contract).
 *
 * Data structure. Nodes live in one growable pool, addressed by int32 index;
 * a free list threads the unused ones. Bucket b holds the live nodes whose
 * virtual bucket vb = floor(t_s / w) satisfies vb mod nb == b, as a doubly
 * linked list sorted by (t_s, key), with head and tail indices.
 *
 * Invariants: (1) every pending node has vb >= q->cur_vb; (2) the lists are
 * sorted; (3) q->n counts the linked nodes; (4) a node is live iff its
 * generation is odd. (1) holds because pops move cur_vb to the popped node's
 * vb and pushes never go below the last popped time, and a push below cur_vb
 * (possible after a peek advanced it) pulls cur_vb back.
 *
 * Inserting scans a bucket from its tail, since new events are usually
 * later than the ones already there (same-time events then append in O(1)).
 */
#include "sim/evq.h"
#include "sim/evq_int.h"
#include "sim/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EVQ_MIN_BUCKETS 16u
#define EVQ_SAMPLE 25u /* entries sampled to size a bucket (Brown) */

typedef struct node {
    double t_s;
    uint64_t key;
    void (*fn)(void);
    void *ctx;
    uint64_t arg;
    uint64_t vb;        /* virtual bucket under the current width */
    int32_t next, prev; /* bucket list, or free list (next only) */
    uint32_t gen;       /* odd while live */
    uint32_t pad;
} node;

struct evq {
    node *nodes; /* pool of cap nodes */
    size_t cap;
    int32_t free_head;    /* first free node, -1 when none */
    int32_t *head, *tail; /* nb buckets */
    size_t nb;            /* power of two */
    double w_s, inv_w;    /* bucket width [s] and its inverse */
    uint64_t cur_vb;      /* virtual bucket being served */
    size_t n;             /* pending entries */
    double last_t_s;      /* time of the last pop */
    int32_t cached;       /* earliest node if known, else -1 */
};

static uint64_t vb_of(const evq *q, double t_s)
{
    double x = t_s * q->inv_w;
    return x < 9.0e18 ? (uint64_t)x : (uint64_t)9.0e18;
}

/* 1 if node a must leave before node b. */
static int before(const node *a, const node *b)
{
    return a->t_s < b->t_s || (a->t_s == b->t_s && a->key < b->key);
}

static void buckets_alloc(evq *q, size_t nb)
{
    q->nb = nb;
    q->head = sim_xmalloc(nb * sizeof *q->head);
    q->tail = sim_xmalloc(nb * sizeof *q->tail);
    memset(q->head, 0xff, nb * sizeof *q->head); /* all -1 */
    memset(q->tail, 0xff, nb * sizeof *q->tail);
}

evq *evq_new(void)
{
    evq *q = sim_xcalloc(1, sizeof *q);
    q->free_head = -1;
    q->w_s = 1.0;
    q->inv_w = 1.0;
    q->cached = -1;
    buckets_alloc(q, EVQ_MIN_BUCKETS);
    return q;
}

void evq_free(evq *q)
{
    if (!q)
        return;
    free(q->nodes);
    free(q->head);
    free(q->tail);
    free(q);
}

size_t evq_size(const evq *q)
{
    return q->n;
}

static int32_t node_alloc(evq *q)
{
    int32_t i;
    if (q->free_head < 0) {
        size_t old = q->cap, c = old ? old * 2 : 64;
        q->nodes = sim_xrealloc(q->nodes, c * sizeof *q->nodes);
        memset(q->nodes + old, 0, (c - old) * sizeof *q->nodes);
        for (size_t k = c; k-- > old;) {
            q->nodes[k].next = q->free_head;
            q->free_head = (int32_t)k;
        }
        q->cap = c;
    }
    i = q->free_head;
    q->free_head = q->nodes[i].next;
    q->nodes[i].gen++; /* now odd: live */
    return i;
}

static void node_release(evq *q, int32_t i)
{
    q->nodes[i].gen++; /* now even: free */
    q->nodes[i].next = q->free_head;
    q->free_head = i;
}

/* Links node i into its bucket under the current width. */
static void link_node(evq *q, int32_t i)
{
    node *nd = &q->nodes[i];
    size_t b;
    int32_t p;

    nd->vb = vb_of(q, nd->t_s);
    b = (size_t)(nd->vb & (q->nb - 1));
    p = q->tail[b];
    while (p >= 0 && before(nd, &q->nodes[p]))
        p = q->nodes[p].prev;
    nd->prev = p;
    if (p < 0) {
        nd->next = q->head[b];
        q->head[b] = i;
    } else {
        nd->next = q->nodes[p].next;
        q->nodes[p].next = i;
    }
    if (nd->next >= 0)
        q->nodes[nd->next].prev = i;
    else
        q->tail[b] = i;
    if (nd->vb < q->cur_vb)
        q->cur_vb = nd->vb;
}

static void unlink_node(evq *q, int32_t i)
{
    node *nd = &q->nodes[i];
    size_t b = (size_t)(nd->vb & (q->nb - 1));
    if (nd->prev >= 0)
        q->nodes[nd->prev].next = nd->next;
    else
        q->head[b] = nd->next;
    if (nd->next >= 0)
        q->nodes[nd->next].prev = nd->prev;
    else
        q->tail[b] = nd->prev;
}

/* New bucket width from the earliest entries: 3x their mean separation,
 * ignoring separations above twice the mean (Brown 1988). Walks one year of
 * buckets from cur_vb, taking each bucket's front run, which yields the
 * earliest entries in order. Keeps the old width when the sample is flat. */
static double estimate_width(const evq *q)
{
    double t[EVQ_SAMPLE], sum = 0.0, sum2 = 0.0, mean;
    size_t m = 0, k2 = 0;
    uint64_t v = q->cur_vb;

    for (size_t k = 0; k < q->nb && m < EVQ_SAMPLE; k++, v++) {
        int32_t i = q->head[v & (q->nb - 1)];
        while (i >= 0 && q->nodes[i].vb == v && m < EVQ_SAMPLE) {
            t[m++] = q->nodes[i].t_s;
            i = q->nodes[i].next;
        }
    }
    if (m < 2)
        return q->w_s;
    for (size_t k = 1; k < m; k++)
        sum += t[k] - t[k - 1];
    mean = sum / (double)(m - 1);
    if (!(mean > 0.0))
        return q->w_s;
    for (size_t k = 1; k < m; k++) {
        double d = t[k] - t[k - 1];
        if (d <= 2.0 * mean) {
            sum2 += d;
            k2++;
        }
    }
    if (k2 > 0 && sum2 > 0.0)
        mean = sum2 / (double)k2;
    return 3.0 * mean;
}

static void resize(evq *q, size_t nb)
{
    int32_t *oh = q->head;
    size_t onb = q->nb;
    double w = estimate_width(q);

    free(q->tail);
    buckets_alloc(q, nb);
    if (w < 1e-12)
        w = 1e-12;
    q->w_s = w;
    q->inv_w = 1.0 / w;
    q->cur_vb = vb_of(q, q->last_t_s);
    for (size_t b = 0; b < onb; b++) {
        int32_t i = oh[b];
        while (i >= 0) {
            int32_t nx = q->nodes[i].next;
            link_node(q, i);
            i = nx;
        }
    }
    free(oh);
    q->cached = -1;
}

evq_handle evq_push(evq *q, const evq_item *it)
{
    int32_t i = node_alloc(q);
    node *nd = &q->nodes[i];

    nd->t_s = it->t_s;
    nd->key = it->key;
    nd->fn = it->fn;
    nd->ctx = it->ctx;
    nd->arg = it->arg;
    link_node(q, i);
    q->n++;
    if (q->cached >= 0 && before(nd, &q->nodes[q->cached]))
        q->cached = i;
    if (q->n > 2 * q->nb)
        resize(q, q->nb * 2);
    return ((uint64_t)q->nodes[i].gen << 32) | (uint64_t)(i + 1);
}

/* Index of the earliest node, or -1 when empty; moves cur_vb to it. */
static int32_t find_min(evq *q)
{
    int32_t best = -1;

    if (q->cached >= 0)
        return q->cached;
    if (q->n == 0)
        return -1;
    for (size_t k = 0; k < q->nb; k++) {
        int32_t h = q->head[q->cur_vb & (q->nb - 1)];
        if (h >= 0 && q->nodes[h].vb <= q->cur_vb)
            return q->cached = h;
        q->cur_vb++;
    }
    /* A year without a hit: the next event is far ahead; search directly. */
    for (size_t b = 0; b < q->nb; b++) {
        int32_t h = q->head[b];
        if (h >= 0 && (best < 0 || before(&q->nodes[h], &q->nodes[best])))
            best = h;
    }
    q->cur_vb = q->nodes[best].vb;
    return q->cached = best;
}

static void fill(const node *nd, evq_item *out)
{
    out->t_s = nd->t_s;
    out->key = nd->key;
    out->fn = nd->fn;
    out->ctx = nd->ctx;
    out->arg = nd->arg;
}

int evq_peek(evq *q, evq_item *out)
{
    int32_t i = find_min(q);
    if (i < 0)
        return 0;
    fill(&q->nodes[i], out);
    return 1;
}

int evq_pop(evq *q, evq_item *out)
{
    int32_t i = find_min(q);
    if (i < 0)
        return 0;
    fill(&q->nodes[i], out);
    unlink_node(q, i);
    node_release(q, i);
    q->n--;
    q->cached = -1;
    q->last_t_s = out->t_s;
    q->cur_vb = vb_of(q, out->t_s);
    if (q->nb > EVQ_MIN_BUCKETS && q->n < q->nb / 2)
        resize(q, q->nb / 2);
    return 1;
}

static int32_t handle_index(const evq *q, evq_handle h)
{
    uint64_t lo = h & 0xffffffffu;
    uint32_t gen = (uint32_t)(h >> 32);
    if (lo == 0 || lo > q->cap)
        return -1;
    if (q->nodes[lo - 1].gen != gen || (gen & 1u) == 0)
        return -1;
    return (int32_t)(lo - 1);
}

int evq_contains(const evq *q, evq_handle h)
{
    return handle_index(q, h) >= 0;
}

int evq_cancel(evq *q, evq_handle h)
{
    int32_t i = handle_index(q, h);
    if (i < 0)
        return 0;
    unlink_node(q, i);
    node_release(q, i);
    q->n--;
    if (q->cached == i)
        q->cached = -1;
    return 1;
}

size_t evq_int_nbuckets(const evq *q)
{
    return q->nb;
}
double evq_int_width_s(const evq *q)
{
    return q->w_s;
}

int evq_int_valid(const evq *q)
{
    size_t count = 0, nfree = 0;
    for (size_t b = 0; b < q->nb; b++) {
        int32_t i = q->head[b], p = -1;
        while (i >= 0) {
            const node *nd = &q->nodes[i];
            if ((nd->gen & 1u) == 0 || nd->prev != p)
                return 0;
            if ((nd->vb & (q->nb - 1)) != b || nd->vb < q->cur_vb)
                return 0;
            if (p >= 0 && before(nd, &q->nodes[p]))
                return 0;
            p = i;
            i = nd->next;
            count++;
        }
        if (q->tail[b] != p)
            return 0;
    }
    for (int32_t i = q->free_head; i >= 0; i = q->nodes[i].next)
        nfree++;
    return count == q->n && count + nfree == q->cap;
}
