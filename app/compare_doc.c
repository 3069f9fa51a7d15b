/* app/compare_doc.c: the "Runs compared" section of report.html (see
 * compare_doc.h).
 *
 * Every cell is a string owned by one growing list (cells), every header a
 * string owned by the same list, and each table points into it once all of
 * it is built; the rh_* structs of io/report_html.h hold pointers only, so
 * the list must not move after sealing, which is why pointers are taken in
 * compare_doc_new's last step. A row per (metric, run), as the command's
 * table, rather than a column per run: the columns stay seven however many
 * runs are compared, which fits the A4 page the browser test checks. */
#include "app/compare_doc.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

/* One table under construction: its cells are indices into the string
 * list, resolved to pointers when the document is sealed. */
typedef struct ctab {
    char caption[300];
    size_t nc, num_from;
    size_t head0, cell0, n_cells; /* into the string list */
} ctab;

struct compare_doc {
    char **str;
    size_t n_str, cap_str;
    ctab *t;
    size_t n_t, cap_t;
    const char **ptr; /* every string, in order, after sealing */
    rh_table *tab;
    rh_section sec;
    char text[1200];
};

static size_t add(compare_doc *d, const char *fmt, ...)
{
    va_list ap;
    char buf[512];
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim_grow((void **)&d->str, &d->cap_str, d->n_str + 1, sizeof *d->str);
    d->str[d->n_str] = sim_xstrdup(buf);
    return d->n_str++;
}

/* Starts a table: the caption and nc header strings follow in the list. */
static ctab *begin(compare_doc *d, const char *caption, size_t nc,
                   size_t num_from)
{
    ctab *t;
    sim_grow((void **)&d->t, &d->cap_t, d->n_t + 1, sizeof *d->t);
    t = &d->t[d->n_t++];
    memset(t, 0, sizeof *t);
    snprintf(t->caption, sizeof t->caption, "%s", caption);
    t->nc = nc;
    t->num_from = num_from;
    t->head0 = d->n_str;
    return t;
}

/* Four significant digits, no exponent between 1e4 and 1e9, as the rest of
 * report.html prints figures. */
static void fmt(char *b, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(b, n, "n/a");
    else if (fabs(v) >= 1e4 && fabs(v) < 1e9)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.4g", v);
}

/* The runs: position, id, name given, scenario, case, seed, replications. */
static void runs_table(compare_doc *d, const compare *c)
{
    static const char *const head[] = {
        "run", "id", "named", "scenario", "case", "seed", "replications"};
    ctab *t = begin(d, "Runs compared (run 1 is the baseline)", 7, 0);
    for (size_t i = 0; i < 7; i++)
        add(d, "%s", head[i]);
    t->cell0 = d->n_str;
    for (size_t r = 0; r < c->n_runs; r++) {
        const compare_run *cr = &c->runs[r];
        const db_run_meta *m = &cr->run->meta;
        add(d, "%zu", r + 1);
        add(d, "%" PRId64, cr->id);
        add(d, "%s", cr->given);
        add(d, "%s", m->scenario);
        add(d, "%s", m->case_key ? m->case_key : "");
        add(d, "%" PRIu64, m->seed);
        add(d, "%zu", cr->run->n_reps);
    }
    t->n_cells = d->n_str - t->cell0;
}

/* One scope's table, laid out as the command's table: a group of rows per
 * shown field, the label and unit on the group's first row, one row per run
 * with P10, P50, P90 and, after the baseline, the P50's difference from run
 * 1's in percent. A run without the job has its row with empty cells. */
static void scope_table(compare_doc *d, const compare *c, const char *caption,
                        const resfield *tab, size_t n_fields,
                        const unsigned char *on, size_t j, int site)
{
    static const char *const head[] = {"metric", "unit", "run",         "P10",
                                       "P50",    "P90",  "P50 vs run 1"};
    size_t shown = 0;
    ctab *t;
    for (size_t q = 0; q < n_fields; q++)
        shown += on[q] != 0;
    if (shown == 0)
        return; /* --metrics left this scope nothing: no empty table */
    t = begin(d, caption, 7, 2);
    for (size_t i = 0; i < 7; i++)
        add(d, "%s", head[i]);
    t->cell0 = d->n_str;
    for (size_t q = 0; q < n_fields; q++) {
        const resfield *f = &tab[q];
        const stat_summary *base;
        if (!on[q])
            continue;
        base = site ? compare_site_stat(c, 0, q) : compare_job_stat(c, j, 0, q);
        for (size_t r = 0; r < c->n_runs; r++) {
            const stat_summary *s = site ? compare_site_stat(c, r, q)
                                         : compare_job_stat(c, j, r, q);
            const double v[3] = {s ? s->p10 : (double)NAN,
                                 s ? s->p50 : (double)NAN,
                                 s ? s->p90 : (double)NAN};
            compare_delta dl = compare_delta_of(base, s, f->disp_per);
            add(d, "%s", r == 0 ? f->label : "");
            add(d, "%s",
                r > 0 || strcmp(f->disp_unit, "1") == 0 ? "" : f->disp_unit);
            add(d, "%zu", r + 1);
            for (int k = 0; k < 3; k++) {
                char b[32];
                if (!s) {
                    add(d, "%s", ""); /* the run has no such job */
                    continue;
                }
                fmt(b, sizeof b, s->n ? v[k] / f->disp_per : (double)NAN);
                add(d, "%s", b);
            }
            if (r > 0 && isfinite(dl.pct[2]))
                add(d, "%+.3g%%", dl.pct[2]);
            else
                add(d, "%s", "");
        }
    }
    t->n_cells = d->n_str - t->cell0;
}

compare_doc *compare_doc_new(const compare *c)
{
    compare_doc *d = sim_xcalloc(1, sizeof *d);
    size_t k = 0;
    runs_table(d, c);
    scope_table(d, c, "Site", resfield_site, resfield_n_site, c->site_on, 0, 1);
    for (size_t j = 0; j < c->n_jobs; j++) {
        char cap[300];
        int first = 1;
        size_t len;
        if (!c->job_on[j])
            continue;
        snprintf(cap, sizeof cap, "Job %s", c->jobs[j]);
        for (size_t r = 0; r < c->n_runs; r++)
            if (c->job_at[j * c->n_runs + r] < 0) {
                len = strlen(cap);
                snprintf(cap + len, sizeof cap - len, "%s%zu",
                         first ? " (not in run " : ", ", r + 1);
                first = 0;
            }
        if (!first) {
            len = strlen(cap);
            snprintf(cap + len, sizeof cap - len, ")");
        }
        scope_table(d, c, cap, resfield_job, resfield_n_job, c->job_f_on, j, 0);
    }
    /* Seal: the string list is final, so pointers into it hold. */
    d->ptr = sim_xcalloc(d->n_str + 1, sizeof *d->ptr);
    for (size_t i = 0; i < d->n_str; i++)
        d->ptr[i] = d->str[i];
    d->tab = sim_xcalloc(d->n_t + 1, sizeof *d->tab);
    for (size_t i = 0; i < d->n_t; i++) {
        const ctab *t = &d->t[i];
        d->tab[k].caption = t->caption;
        d->tab[k].n_cols = t->nc;
        d->tab[k].n_rows = t->nc ? t->n_cells / t->nc : 0;
        d->tab[k].num_from = t->num_from;
        d->tab[k].head = &d->ptr[t->head0];
        d->tab[k].cells = &d->ptr[t->cell0];
        k++;
    }
    snprintf(d->text, sizeof d->text,
             "%zu runs side by side, as \"factorysim compare\" shows them "
             "(compare.csv in this folder has every statistic and "
             "difference): per metric one row per run with the P10, P50 "
             "and P90 across replications in the unit shown, and the "
             "difference of the P50 from run 1's in percent. An empty row "
             "is a job the run does not have; n/a is a value that does not "
             "exist (a job that finished in no replication). Jobs are "
             "matched by name. The chart \"compare\" is in the Charts "
             "section above.",
             c->n_runs);
    d->sec = (rh_section){
        "compare", "Runs compared", d->text, d->tab, d->n_t, NULL, 0};
    return d;
}

const rh_section *compare_doc_sections(const compare_doc *d, size_t *n)
{
    *n = 1;
    return &d->sec;
}

void compare_doc_free(compare_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_str; i++)
        free(d->str[i]);
    free(d->str);
    free(d->t);
    free((void *)d->ptr);
    free(d->tab);
    free(d);
}
