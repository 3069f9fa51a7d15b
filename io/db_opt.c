/* io/db_opt.c: the stored optimize problems of io/db.h (issue 23): one
 * row per problem in optimize_problems, its terms in optimize_terms and
 * its evaluated designs in optimize_designs (schema in io/db.c,
 * docs/results-schema.md).
 *
 * A design's values are never copied here: they are its sweep case's
 * stored run, found by (sweep key, case key), so a problem and the sweep
 * it ran on cannot disagree. problem_text (the terms joined by newlines)
 * is what makes two problems "the same" for the replace-on-rerun rule;
 * it is compared as text, not parsed. This file must never decide what a
 * problem means (app/opt_spec.h parses the texts). */
#include "io/db.h"
#include "io/db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sim/mem.h"

static const char *const role_names[] = {"vary", "objective", "constraint",
                                         "set"};

/* The terms joined as "role text\n" lines (caller frees). */
static char *problem_text(const db_opt_problem *p)
{
    db_sbuf b = {NULL, 0, 0};
    db_sb_add(&b, "%s", "");
    for (size_t i = 0; i < p->n_terms; i++)
        db_sb_add(&b, "%s %s\n", role_names[p->terms[i].role],
                  p->terms[i].text);
    return b.s;
}

/* Inside the caller's write transaction: the same problem stored before
 * (same sweep key and terms) is replaced (keep = 0: its designs go by ON
 * DELETE CASCADE) or kept and p not stored (keep = 1: a merge, where the
 * destination's copy wins as for runs); else p is inserted with its terms
 * and designs and p->id set. */
int db_opt_insert(db *d, db_opt_problem *p, int keep, sim_err *err)
{
    sqlite3_stmt *st = NULL;
    char *text = problem_text(p);
    int rc;
    if ((rc = db_prep(d,
                      keep ? "SELECT count(*) FROM optimize_problems WHERE "
                             "sweep_key = ?1 AND problem_text = ?2;"
                           : "DELETE FROM optimize_problems WHERE sweep_key = "
                             "?1 AND problem_text = ?2;",
                      &st, err)) != SIM_OK)
        goto done;
    sqlite3_bind_text(st, 1, p->sweep_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
    if (keep) {
        if (sqlite3_step(st) != SQLITE_ROW) {
            rc = db_fail(d, err, "looking up an optimize problem");
            goto done;
        }
        if (sqlite3_column_int64(st, 0) > 0)
            goto done; /* rc SIM_OK: present, not stored again */
    } else if ((rc = db_done(d, st, err, "replacing an optimize problem")) !=
               SIM_OK) {
        goto done;
    }
    sqlite3_finalize(st);
    if ((rc = db_prep(d,
                      "INSERT INTO optimize_problems(scenario, sweep_key, "
                      "refined_sweep_key, problem_text, seed, replications, "
                      "refined_replications, evaluations, best_case_index) "
                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9);",
                      &st, err)) != SIM_OK)
        goto done;
    {
        int64_t best = -1;
        for (size_t i = 0; i < p->n_designs; i++)
            if (p->designs[i].best)
                best = p->designs[i].case_index;
        sqlite3_bind_text(st, 1, p->scenario, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, p->sweep_key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, p->refined_sweep_key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
        /* Seeds are 64-bit unsigned; SQLite stores the same bits signed. */
        sqlite3_bind_int64(st, 5, (sqlite3_int64)p->seed);
        sqlite3_bind_int64(st, 6, p->replications);
        sqlite3_bind_int64(st, 7, p->refined_replications);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)p->n_designs);
        sqlite3_bind_int64(st, 9, best);
    }
    if ((rc = db_done(d, st, err, "storing an optimize problem")) != SIM_OK)
        goto done;
    sqlite3_finalize(st);
    st = NULL;
    p->id = sqlite3_last_insert_rowid(d->h);
    if ((rc = db_prep(d,
                      "INSERT INTO optimize_terms(problem_id, idx, role, "
                      "text) VALUES(?1, ?2, ?3, ?4);",
                      &st, err)) != SIM_OK)
        goto done;
    for (size_t i = 0; i < p->n_terms; i++) {
        sqlite3_bind_int64(st, 1, p->id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, role_names[p->terms[i].role], -1,
                          SQLITE_STATIC);
        sqlite3_bind_text(st, 4, p->terms[i].text, -1, SQLITE_STATIC);
        if ((rc = db_done(d, st, err, "storing an optimize problem")) != SIM_OK)
            goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if ((rc = db_prep(d,
                      "INSERT INTO optimize_designs(problem_id, case_index, "
                      "case_key, refined, feasible, violation, best, "
                      "pareto) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8);",
                      &st, err)) != SIM_OK)
        goto done;
    for (size_t i = 0; i < p->n_designs; i++) {
        const db_opt_design *x = &p->designs[i];
        sqlite3_bind_int64(st, 1, p->id);
        sqlite3_bind_int64(st, 2, x->case_index);
        sqlite3_bind_text(st, 3, x->case_key, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, x->refined != 0);
        sqlite3_bind_int(st, 5, x->feasible != 0);
        sqlite3_bind_double(st, 6, x->violation);
        sqlite3_bind_int(st, 7, x->best != 0);
        sqlite3_bind_int(st, 8, x->pareto != 0);
        if ((rc = db_done(d, st, err, "storing an optimize problem")) != SIM_OK)
            goto done;
    }
done:
    sqlite3_finalize(st);
    free(text);
    return rc;
}

int db_opt_store(db *d, db_opt_problem *p, sim_err *err)
{
    int rc;
    if (d->readonly)
        return sim_err_set(
            err, SIM_EIO, d->path, 0,
            "database is opened read-only (cannot store a problem)");
    if ((rc = db_begin_write(d, err, "storing an optimize problem")) != SIM_OK)
        return rc;
    if ((rc = db_opt_insert(d, p, 0, err)) != SIM_OK) {
        db_rollback(d);
        return rc;
    }
    return db_exec(d, "COMMIT;", err, "committing an optimize problem");
}

/* Reads inside one read transaction, so a problem replaced meanwhile by a
 * rerun is read whole or not at all; inside the caller's transaction when
 * there is one (a merge reads its source in one snapshot). */
int db_opt_load(db *d, int64_t id, db_opt_problem **out, sim_err *err)
{
    sqlite3_stmt *st = NULL;
    db_opt_problem *p = sim_xcalloc(1, sizeof *p);
    int rc, step, own = sqlite3_get_autocommit(d->h) != 0;
    *out = NULL;
    if (own && (rc = db_exec(d, "BEGIN;", err,
                             "reading an optimize problem")) != SIM_OK) {
        free(p);
        return rc;
    }
    if ((rc = db_prep(d,
                      "SELECT scenario, sweep_key, refined_sweep_key, seed, "
                      "replications, refined_replications FROM "
                      "optimize_problems WHERE id = ?1;",
                      &st, err)) != SIM_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    if ((step = sqlite3_step(st)) != SQLITE_ROW) {
        rc = step == SQLITE_DONE
                 ? sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                               "no optimize problem %lld stored (`optimize` "
                               "prints the id of the problem it stores)",
                               (long long)id)
                 : db_fail(d, err, "reading an optimize problem");
        goto fail;
    }
    p->id = id;
    p->scenario = db_col_str(st, 0);
    p->sweep_key = db_col_str(st, 1);
    p->refined_sweep_key = db_col_str(st, 2);
    p->seed = (uint64_t)sqlite3_column_int64(st, 3);
    p->replications = sqlite3_column_int64(st, 4);
    p->refined_replications = sqlite3_column_int64(st, 5);
    sqlite3_finalize(st);
    if ((rc = db_prep(d,
                      "SELECT role, text FROM optimize_terms WHERE "
                      "problem_id = ?1 ORDER BY idx;",
                      &st, err)) != SIM_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *role = (const char *)sqlite3_column_text(st, 0);
        db_opt_term *t;
        p->terms = sim_xrealloc(p->terms, (p->n_terms + 1) * sizeof *t);
        t = &p->terms[p->n_terms++];
        t->role = DB_OPT_SET;
        for (int k = 0; k < 4; k++)
            if (role && strcmp(role, role_names[k]) == 0)
                t->role = (db_opt_role)k;
        t->text = db_col_str(st, 1);
    }
    if (step != SQLITE_DONE) {
        rc = db_fail(d, err, "reading an optimize problem");
        goto fail;
    }
    sqlite3_finalize(st);
    if ((rc = db_prep(d,
                      "SELECT case_index, case_key, refined, feasible, "
                      "violation, best, pareto FROM optimize_designs WHERE "
                      "problem_id = ?1 ORDER BY case_index;",
                      &st, err)) != SIM_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        db_opt_design *x;
        p->designs = sim_xrealloc(p->designs, (p->n_designs + 1) * sizeof *x);
        x = &p->designs[p->n_designs++];
        x->case_index = sqlite3_column_int64(st, 0);
        x->case_key = db_col_str(st, 1);
        x->refined = sqlite3_column_int(st, 2);
        x->feasible = sqlite3_column_int(st, 3);
        x->violation = sqlite3_column_double(st, 4);
        x->best = sqlite3_column_int(st, 5);
        x->pareto = sqlite3_column_int(st, 6);
    }
    if (step != SQLITE_DONE) {
        rc = db_fail(d, err, "reading an optimize problem");
        goto fail;
    }
    sqlite3_finalize(st);
    if (own)
        db_exec(d, "COMMIT;", err, "reading an optimize problem");
    *out = p;
    return SIM_OK;
fail:
    sqlite3_finalize(st);
    if (own)
        db_rollback(d);
    db_opt_free(p);
    return rc;
}

/* The problem with the highest id among those whose designs include the
 * case: "newest" as db_latest_run means it (stored last here). */
int db_opt_find_case(db *d, const char *sweep_key, const char *case_key,
                     int64_t *id, sim_err *err)
{
    sqlite3_stmt *st;
    int rc, step;
    if ((rc = db_prep(
             d,
             "SELECT max(p.id) FROM optimize_problems p JOIN "
             "optimize_designs x ON x.problem_id = p.id WHERE x.case_key = "
             "?2 AND ((x.refined = 0 AND p.sweep_key = ?1) OR (x.refined = "
             "1 AND p.refined_sweep_key = ?1));",
             &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, sweep_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, case_key, -1, SQLITE_STATIC);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *id = sqlite3_column_int64(st, 0);
        rc = SIM_OK;
    } else if (step == SQLITE_ROW || step == SQLITE_DONE) {
        rc = sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                         "no optimize problem evaluated this case");
    } else {
        rc = db_fail(d, err, "finding an optimize problem");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_opt_find_sweep(db *d, const char *sweep_key, int64_t *id, sim_err *err)
{
    sqlite3_stmt *st;
    int rc, step;
    if ((rc = db_prep(d,
                      "SELECT max(id) FROM optimize_problems WHERE sweep_key "
                      "= ?1 OR refined_sweep_key = ?1;",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, sweep_key, -1, SQLITE_STATIC);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *id = sqlite3_column_int64(st, 0);
        rc = SIM_OK;
    } else if (step == SQLITE_ROW || step == SQLITE_DONE) {
        rc = sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                         "no optimize problem ran on this sweep");
    } else {
        rc = db_fail(d, err, "finding an optimize problem");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_case_run(db *d, const char *sweep_key, const char *case_key,
                int64_t *run_id, sim_err *err)
{
    sqlite3_stmt *st;
    int rc, step;
    if ((rc = db_prep(d,
                      "SELECT id FROM runs WHERE sweep_key = ?1 AND "
                      "case_key = ?2 AND status = 'complete';",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, sweep_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, case_key, -1, SQLITE_STATIC);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        rc = SIM_OK;
    } else if (step == SQLITE_DONE) {
        rc = sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                         "no complete run of sweep %s case %s stored",
                         sweep_key, case_key);
    } else {
        rc = db_fail(d, err, "finding a sweep case");
    }
    sqlite3_finalize(st);
    return rc;
}

void db_opt_free(db_opt_problem *p)
{
    if (!p)
        return;
    free(p->scenario);
    free(p->sweep_key);
    free(p->refined_sweep_key);
    for (size_t i = 0; i < p->n_terms; i++)
        free(p->terms[i].text);
    free(p->terms);
    for (size_t i = 0; i < p->n_designs; i++)
        free(p->designs[i].case_key);
    free(p->designs);
    free(p);
}
