/* app/optimize.h: the search of `factorysim optimize` over a lattice of
 * designs (the cases of a sweep grid, models/sweep.h), for noisy and
 * expensive evaluations. Pure decision logic: it never runs a simulation
 * itself but asks its caller, through opt_eval_fn, for the values of a
 * batch of designs (the caller runs them as sweep cases on every core and
 * rank and stores them); so the method is testable on synthetic functions
 * and the same on every MPI rank (every rank sees the same values and
 * therefore takes the same decisions).
 *
 * Method (docs/optimize.md has the rules with examples):
 *   1. Coarse lattice: on every axis of n values, c = min(n, max(2,
 *      round(cbrt(n)) + 1)) evenly spread values, first and last included;
 *      their cartesian product is evaluated as one batch.
 *   2. Starts: with one objective, the best OPT_STARTS coarse designs by
 *      the feasibility rule (below); with m objectives, the best coarse
 *      design for each objective alone and for the equal-weight
 *      scalarisation, each with its own weights.
 *   3. Compass search on the fine lattice from every start: poll the 2 x
 *      axes neighbours at the current step (half the coarse stride, at
 *      least 1), evaluated as one batch; move to the best if it is better,
 *      else halve the steps; stop when a poll at step 1 finds nothing
 *      better. Every design is evaluated once (a cache by case index).
 *   Feasibility rule (Deb's): a feasible design beats an infeasible one;
 *   two feasible ones compare by the scalarised objective; two infeasible
 *   ones by their total violation, each constraint's excess divided by
 *   max(|bound|, 1e-9). Ties go to the lower case index (deterministic).
 *   Scalarisation (m > 1): sum of w_i (f_i - lo_i) / (hi_i - lo_i), lo and
 *   hi the range of objective i over the feasible coarse designs (all
 *   coarse designs when none is feasible; a span of 0 counts as 1).
 *   Noise: every design runs with the same seed (common random numbers),
 *   so differences between designs come from the design. A design whose
 *   constraint value lies within (P90 - P10) / sqrt(R) of its bound is
 *   evaluated again with OPT_REFINE x R replications (level 1), and those
 *   values replace its level-0 values.
 */
#ifndef APP_OPTIMIZE_H
#define APP_OPTIMIZE_H

#include <stddef.h>

#include "sim/err.h"

#define OPT_STARTS 2 /* compass starts with one objective */
#define OPT_REFINE 4 /* replications factor near the boundary */
#define OPT_MAX_OBJ 8
#define OPT_MAX_CON 16

/* Values of one design: objectives, then per constraint its value and its
 * spread (P90 - P10 of the constraint's metric). NAN anywhere: the design
 * failed to run (worse than any design that ran). */
typedef struct opt_vals {
    double obj[OPT_MAX_OBJ];
    double con[OPT_MAX_CON];
    double spread[OPT_MAX_CON];
} opt_vals;

/* Evaluates designs cases[0..n-1] (case indices of the lattice, no
 * duplicates) at level 0 (R replications) or 1 (OPT_REFINE x R) into
 * out[0..n-1]. Returns SIM_OK or an error (the search stops with it). */
typedef int (*opt_eval_fn)(void *arg, int level, const size_t *cases, size_t n,
                           opt_vals *out, sim_err *err);

typedef struct opt_problem {
    size_t n_axes;
    const size_t *dims; /* values per axis; case index is row-major, the
                           first axis slowest (as models/sweep.h) */
    size_t n_obj;       /* 1 .. OPT_MAX_OBJ, all minimised */
    size_t n_con;       /* 0 .. OPT_MAX_CON */
    const int *con_ge;  /* 1: value >= bound, 0: value <= bound */
    const double *con_bound;
    size_t reps; /* R, for the boundary rule */
    opt_eval_fn eval;
    void *arg;
} opt_problem;

/* One evaluated design. */
typedef struct opt_design {
    size_t case_i;
    int level; /* 1: refined */
    opt_vals v;
    int feasible;
    double viol; /* total normalised violation (0 when feasible) */
} opt_design;

typedef struct opt_result {
    size_t n_designs;    /* distinct designs evaluated */
    opt_design *designs; /* by case index */
    size_t n_refined;
    size_t best;     /* index into designs */
    size_t n_pareto; /* non-dominated feasible designs, by case index */
    size_t *pareto;  /* indices into designs */
} opt_result;

/* Runs the search (top of this file) into *out (opt_result_free). Errors:
 * those of p->eval; SIM_EINVAL for a problem out of the limits above. */
int opt_search(const opt_problem *p, opt_result *out, sim_err *err);

void opt_result_free(opt_result *r);

/* 1 when the constraint value v is within the boundary band of bound
 * (|v - bound| <= spread / sqrt(reps)): the rule for refining. */
int opt_near_bound(double v, double spread, double bound, size_t reps);

#endif
