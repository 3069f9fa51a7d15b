/* app/optimize.c: the lattice search of `optimize` (app/optimize.h has
 * the method). Owns the evaluation cache, the feasibility rule, the
 * scalarisation, the coarse lattice, the compass search and the Pareto
 * filter. Must never run a simulation or touch a database itself: every
 * value comes through the caller's opt_eval_fn, which keeps the search
 * identical on every MPI rank and testable on synthetic functions.
 */
#include "app/optimize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

typedef struct search {
    const opt_problem *p;
    size_t n_cases;
    long *slot; /* case -> index in designs, -1: not evaluated */
    opt_design *d;
    size_t n, cap;
    size_t n_refined;
    double lo[OPT_MAX_OBJ], span[OPT_MAX_OBJ]; /* scalarisation ranges */
} search;

int opt_near_bound(double v, double spread, double bound, size_t reps)
{
    double band =
        (isfinite(spread) ? spread : 0.0) / sqrt((double)(reps ? reps : 1));
    return isfinite(v) && fabs(v - bound) <= band;
}

/* Feasibility and total violation of v (NAN: failed, infinitely bad). */
static void classify(const opt_problem *p, opt_design *x)
{
    double viol = 0.0;
    int bad = 0;
    for (size_t i = 0; i < p->n_obj; i++)
        bad |= !isfinite(x->v.obj[i]);
    for (size_t k = 0; k < p->n_con; k++) {
        double v = x->v.con[k], b = p->con_bound[k];
        double ex = p->con_ge[k] ? b - v : v - b;
        double sc = fabs(b) > 1e-9 ? fabs(b) : 1e-9;
        if (!isfinite(v))
            bad = 1;
        else if (ex > 0)
            viol += ex / sc;
    }
    x->viol = bad ? (double)INFINITY : viol;
    x->feasible = !bad && viol == 0.0;
}

/* The scalarised objective of x under weights w (one objective: itself). */
static double scal(const search *s, const opt_design *x, const double *w)
{
    double f = 0.0;
    if (s->p->n_obj == 1)
        return x->v.obj[0];
    for (size_t i = 0; i < s->p->n_obj; i++)
        f += w[i] * (x->v.obj[i] - s->lo[i]) / s->span[i];
    return f;
}

/* Feasibility rule: < 0 when a is better than b under w. */
static int cmp(const search *s, const opt_design *a, const opt_design *b,
               const double *w)
{
    if (a->feasible != b->feasible)
        return a->feasible ? -1 : 1;
    if (a->feasible) {
        double fa = scal(s, a, w), fb = scal(s, b, w);
        if (fa != fb)
            return fa < fb ? -1 : 1;
    } else if (a->viol != b->viol)
        return a->viol < b->viol ? -1 : 1;
    return a->case_i < b->case_i ? -1 : a->case_i > b->case_i;
}

/* Evaluates the cases of list not yet in the cache (level 0, then level 1
 * for those near a bound), in list order. */
static int eval_batch(search *s, const size_t *list, size_t n, sim_err *err)
{
    size_t *todo = sim_xcalloc(n + 1, sizeof *todo), nt = 0, nr = 0;
    opt_vals *v = sim_xcalloc(n + 1, sizeof *v);
    int rc = SIM_OK;
    const opt_problem *p = s->p;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < nt; j++)
            dup |= todo[j] == list[i];
        if (s->slot[list[i]] < 0 && !dup)
            todo[nt++] = list[i];
    }
    if (nt && (rc = p->eval(p->arg, 0, todo, nt, v, err)) != SIM_OK)
        goto done;
    for (size_t i = 0; i < nt; i++) {
        opt_design *x;
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->d = sim_xrealloc(s->d, s->cap * sizeof *s->d);
        }
        x = &s->d[s->n];
        memset(x, 0, sizeof *x);
        x->case_i = todo[i];
        x->v = v[i];
        s->slot[todo[i]] = (long)s->n++;
        for (size_t k = 0; k < p->n_con; k++)
            if (opt_near_bound(v[i].con[k], v[i].spread[k], p->con_bound[k],
                               p->reps)) {
                todo[nr++] = todo[i]; /* nr <= i: safe in place */
                break;
            }
    }
    if (nr) {
        if ((rc = p->eval(p->arg, 1, todo, nr, v, err)) != SIM_OK)
            goto done;
        for (size_t i = 0; i < nr; i++) {
            opt_design *x = &s->d[s->slot[todo[i]]];
            x->v = v[i];
            x->level = 1;
        }
        s->n_refined += nr;
    }
    for (size_t i = 0; i < s->n; i++)
        classify(p, &s->d[i]);
done:
    free(todo);
    free(v);
    return rc;
}

static const opt_design *at(const search *s, size_t case_i)
{
    return &s->d[s->slot[case_i]];
}

/* Coordinates of case i (row-major, first axis slowest). */
static void coords(const opt_problem *p, size_t i, size_t *x)
{
    for (size_t a = p->n_axes; a-- > 0;) {
        x[a] = i % p->dims[a];
        i /= p->dims[a];
    }
}

static size_t index_of(const opt_problem *p, const size_t *x)
{
    size_t i = 0;
    for (size_t a = 0; a < p->n_axes; a++)
        i = i * p->dims[a] + x[a];
    return i;
}

/* Coarse values per axis: c evenly spread indices (first, last kept). */
static size_t coarse_n(size_t n)
{
    size_t c = (size_t)lround(cbrt((double)n)) + 1;
    c = c < 2 ? 2 : c;
    return c > n ? n : c;
}

/* Compass search from start under weights w (app/optimize.h, step 3). */
static int compass(search *s, size_t start, const double *w, sim_err *err)
{
    const opt_problem *p = s->p;
    size_t na = p->n_axes, cur = start;
    size_t *step = sim_xcalloc(na, sizeof *step),
           *x = sim_xcalloc(na, sizeof *x),
           *poll = sim_xcalloc(2 * na + 1, sizeof *poll);
    int rc = SIM_OK;
    for (size_t a = 0; a < na; a++) {
        size_t c = coarse_n(p->dims[a]);
        size_t stride = c > 1 ? (p->dims[a] - 1 + c - 2) / (c - 1) : 1;
        step[a] = stride / 2 ? stride / 2 : 1;
    }
    for (;;) {
        size_t np = 0, best;
        int small = 1;
        coords(p, cur, x);
        for (size_t a = 0; a < na; a++) {
            size_t xa = x[a];
            if (xa >= step[a]) {
                x[a] = xa - step[a];
                poll[np++] = index_of(p, x);
            }
            if (xa + step[a] < p->dims[a]) {
                x[a] = xa + step[a];
                poll[np++] = index_of(p, x);
            }
            x[a] = xa;
            small &= step[a] == 1;
        }
        if ((rc = eval_batch(s, poll, np, err)) != SIM_OK)
            break;
        best = cur;
        for (size_t k = 0; k < np; k++)
            if (cmp(s, at(s, poll[k]), at(s, best), w) < 0)
                best = poll[k];
        if (best != cur) {
            cur = best;
            continue;
        }
        if (small)
            break;
        for (size_t a = 0; a < na; a++)
            step[a] = step[a] / 2 ? step[a] / 2 : 1;
    }
    free(step);
    free(x);
    free(poll);
    return rc;
}

/* Sets the scalarisation ranges from the designs evaluated so far. */
static void set_ranges(search *s)
{
    const opt_problem *p = s->p;
    int any = 0;
    for (size_t i = 0; i < s->n; i++)
        any |= s->d[i].feasible;
    for (size_t o = 0; o < p->n_obj; o++) {
        double lo = (double)INFINITY, hi = -(double)INFINITY;
        for (size_t i = 0; i < s->n; i++) {
            double f = s->d[i].v.obj[o];
            if ((any && !s->d[i].feasible) || !isfinite(f))
                continue;
            lo = f < lo ? f : lo;
            hi = f > hi ? f : hi;
        }
        s->lo[o] = isfinite(lo) ? lo : 0.0;
        s->span[o] = isfinite(hi) && hi > lo ? hi - lo : 1.0;
    }
}

/* a dominates b: no objective worse, one better (both feasible). */
static int dominates(const opt_problem *p, const opt_design *a,
                     const opt_design *b)
{
    int better = 0;
    for (size_t o = 0; o < p->n_obj; o++) {
        if (a->v.obj[o] > b->v.obj[o])
            return 0;
        better |= a->v.obj[o] < b->v.obj[o];
    }
    return better;
}

static int by_case(const void *a, const void *b)
{
    const opt_design *x = a, *y = b;
    return x->case_i < y->case_i ? -1 : x->case_i > y->case_i;
}

/* Why this shape: the three phases (coarse batch, starts, compass runs)
 * share the cache and the ranges, and the result is assembled from the
 * cache at the end, sorted by case index so that it does not depend on
 * the order of evaluation. */
int opt_search(const opt_problem *p, opt_result *out, sim_err *err)
{
    search s;
    size_t na = p->n_axes, nc = 1, *x, *cidx, *list, nl = 0;
    double w[OPT_MAX_OBJ + 1][OPT_MAX_OBJ];
    size_t nw = 0, starts[2 * OPT_MAX_OBJ + OPT_STARTS], ns = 0,
           sw[2 * OPT_MAX_OBJ + OPT_STARTS];
    int rc;

    memset(out, 0, sizeof *out);
    if (p->n_obj < 1 || p->n_obj > OPT_MAX_OBJ || p->n_con > OPT_MAX_CON ||
        na < 1)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "optimize: 1..%d objectives, <= %d constraints",
                           OPT_MAX_OBJ, OPT_MAX_CON);
    for (size_t a = 0; a < na; a++)
        nc *= p->dims[a];
    memset(&s, 0, sizeof s);
    s.p = p;
    s.n_cases = nc;
    s.slot = sim_xmalloc(nc * sizeof *s.slot);
    for (size_t i = 0; i < nc; i++)
        s.slot[i] = -1;

    /* 1. the coarse lattice, one batch. */
    x = sim_xcalloc(na, sizeof *x);
    cidx = sim_xcalloc(na, sizeof *cidx);
    {
        size_t ncoarse = 1;
        for (size_t a = 0; a < na; a++)
            ncoarse *= coarse_n(p->dims[a]);
        list = sim_xcalloc(ncoarse, sizeof *list);
        for (size_t k = 0; k < ncoarse; k++) {
            size_t r = k;
            for (size_t a = na; a-- > 0;) {
                size_t c = coarse_n(p->dims[a]), j = r % c;
                r /= c;
                x[a] = c > 1 ? (size_t)lround((double)j *
                                              (double)(p->dims[a] - 1) /
                                              (double)(c - 1))
                             : 0;
            }
            list[nl++] = index_of(p, x);
        }
    }
    rc = eval_batch(&s, list, nl, err);
    if (rc != SIM_OK)
        goto done;
    set_ranges(&s);

    /* 2. the starts: (design, weights). */
    if (p->n_obj == 1) {
        w[nw][0] = 1.0;
        nw++;
    } else {
        for (size_t o = 0; o < p->n_obj; o++, nw++)
            for (size_t q = 0; q < p->n_obj; q++)
                w[nw][q] = q == o ? 1.0 : 0.0;
        for (size_t q = 0; q < p->n_obj; q++)
            w[nw][q] = 1.0 / (double)p->n_obj;
        nw++;
    }
    for (size_t k = 0; k < nw; k++) {
        size_t want = p->n_obj == 1 ? OPT_STARTS : 1;
        for (size_t t = 0; t < want; t++) {
            long b = -1;
            for (size_t i = 0; i < nl; i++) {
                int taken = 0;
                for (size_t u = 0; u < ns; u++)
                    taken |= starts[u] == list[i] && sw[u] == k;
                if (!taken && (b < 0 || cmp(&s, at(&s, list[i]),
                                            at(&s, (size_t)b), w[k]) < 0))
                    b = (long)list[i];
            }
            if (b >= 0) {
                starts[ns] = (size_t)b;
                sw[ns++] = k;
            }
        }
    }

    /* 3. compass search from each start, in order. */
    for (size_t k = 0; k < ns && rc == SIM_OK; k++)
        rc = compass(&s, starts[k], w[sw[k]], err);
    if (rc != SIM_OK)
        goto done;

    /* The result, by case index. */
    qsort(s.d, s.n, sizeof *s.d, by_case);
    out->n_designs = s.n;
    out->designs = s.d;
    out->n_refined = s.n_refined;
    s.d = NULL;
    {
        const double *wb = w[nw - 1]; /* one objective, or equal weights */
        out->best = 0;
        for (size_t i = 1; i < out->n_designs; i++)
            if (cmp(&s, &out->designs[i], &out->designs[out->best], wb) < 0)
                out->best = i;
    }
    out->pareto = sim_xcalloc(out->n_designs + 1, sizeof *out->pareto);
    for (size_t i = 0; i < out->n_designs; i++) {
        int dom = !out->designs[i].feasible;
        for (size_t j = 0; j < out->n_designs && !dom; j++)
            dom = out->designs[j].feasible &&
                  dominates(p, &out->designs[j], &out->designs[i]);
        if (!dom)
            out->pareto[out->n_pareto++] = i;
    }
done:
    free(x);
    free(cidx);
    free(list);
    free(s.slot);
    free(s.d);
    return rc;
}

void opt_result_free(opt_result *r)
{
    if (!r)
        return;
    free(r->designs);
    free(r->pareto);
    memset(r, 0, sizeof *r);
}
