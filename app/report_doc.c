/* app/report_doc.c: report.html's content for one run (see report_doc.h).
 * Each section is one function that fills a table builder; the builder owns
 * every cell string, so the page is assembled without a fixed-size buffer
 * per cell and freed in one place. Display conversions come from the
 * resfield table (disp_per, disp_unit), never from constants here, so the
 * page and the summaries cannot disagree on a unit. This file must not draw
 * charts or write files: the command does that (cli/cmd_report.c). */
#include "app/report_doc.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "app/report_spread.h"
#include "io/calib_file.h"
#include "io/calib_info.h"
#include "io/catalog_cfg.h"
#include "io/cfg_text.h"
#include "models/resfield.h"
#include "models/scenkeys.h"
#include "models/source.h"
#include "sim/mem.h"

/* A table under construction: cells appended row by row. */
typedef struct tb {
    size_t nc, n, cap;
    char **cell;
} tb;

/* Appends one cell. 4 kB is far above any cell the page has (the longest
 * are catalog reasons of a few hundred characters); a longer one is cut,
 * never overflowed. */
static void tb_add(tb *t, const char *fmt, ...)
{
    va_list ap;
    char buf[4096];
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim_grow((void **)&t->cell, &t->cap, t->n + 1, sizeof *t->cell);
    t->cell[t->n++] = sim_xstrdup(buf);
}

static void tb_free(tb *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
}

/* Every table of the page, kept until the page is written; captions are
 * copies owned here too. */
#define MAX_TABLES 64
typedef struct doc {
    tb body[MAX_TABLES];
    rh_table tab[MAX_TABLES];
    char *cap[MAX_TABLES];
    size_t n_tab;
} doc;

/* Starts a table with the given header (a NULL-terminated list of static
 * strings); NULL when the page has MAX_TABLES already. */
static tb *table(doc *d, const char *caption, size_t num_from,
                 const char *const *head)
{
    size_t i = d->n_tab;
    if (i >= MAX_TABLES)
        return NULL;
    d->n_tab++;
    memset(&d->body[i], 0, sizeof d->body[i]);
    memset(&d->tab[i], 0, sizeof d->tab[i]);
    while (head[d->body[i].nc])
        d->body[i].nc++;
    d->cap[i] = caption ? sim_xstrdup(caption) : NULL;
    d->tab[i].caption = d->cap[i];
    d->tab[i].n_cols = d->body[i].nc;
    d->tab[i].num_from = num_from;
    d->tab[i].head = head;
    return &d->body[i];
}

/* Points tables [from, n_tab) at their cells once complete; returns the
 * first, for a section. */
static const rh_table *seal(doc *d, size_t from, size_t *n)
{
    for (size_t i = from; i < d->n_tab; i++) {
        d->tab[i].cells = (const char *const *)d->body[i].cell;
        d->tab[i].n_rows = d->body[i].nc ? d->body[i].n / d->body[i].nc : 0;
    }
    *n = d->n_tab - from;
    return &d->tab[from];
}

static void doc_free(doc *d)
{
    for (size_t i = 0; i < d->n_tab; i++) {
        tb_free(&d->body[i]);
        free(d->cap[i]);
    }
}

/* Four significant digits (a planning figure carries no more), without an
 * exponent below 1e9 so that columns of MWh and USD read at a glance. */
static void fmt_g(char *b, size_t n, double v)
{
    if (isfinite(v) && fabs(v) >= 1e4 && fabs(v) < 1e9)
        snprintf(b, n, "%.0f", v);
    else if (isfinite(v))
        snprintf(b, n, "%.4g", v);
    else
        snprintf(b, n, "n/a");
}

/* One metric row: label, unit, P10, P50, P90 in the field's display unit. */
static void metric_row(tb *t, const resfield *f, const stat_summary *s)
{
    char a[32], b[32], c[32];
    double k = 1.0 / f->disp_per;
    fmt_g(a, sizeof a, s->p10 * k);
    fmt_g(b, sizeof b, s->p50 * k);
    fmt_g(c, sizeof c, s->p90 * k);
    tb_add(t, "%s", f->label);
    tb_add(t, "%s", strcmp(f->disp_unit, "1") == 0 ? "" : f->disp_unit);
    tb_add(t, "%s", a);
    tb_add(t, "%s", b);
    tb_add(t, "%s", c);
}

/* Costs are told apart by unit, not by a list of names, so a cost field
 * added to the resfield table lands in the costs table by itself. */
static int is_cost(const resfield *f)
{
    return strncmp(f->unit, "USD", 3) == 0;
}

static const char *const metric_head[] = {"metric", "unit", "P10",
                                          "P50",    "P90",  NULL};
static const char *const kv_head[] = {"", "", NULL};

/* The facts that identify the run: what a reader needs to find it again
 * (run id, seed, hash) and to know which software produced which part. */
static void run_facts(doc *d, const db_run *r, const char *desc)
{
    const db_run_meta *m = &r->meta;
    tb *t = table(d, NULL, 0, kv_head);
    tb_add(t, "Scenario");
    tb_add(t, "%s", m->scenario);
    tb_add(t, "Description");
    tb_add(t, "%s", desc && *desc ? desc : "(none given)");
    tb_add(t, "Run");
    tb_add(t, "%" PRId64 ", seed %" PRIu64 ", %zu of %u replications (%s)",
           r->id, m->seed, r->n_reps, m->replications, m->status);
    tb_add(t, "Resolved configuration hash");
    tb_add(t, "%s (FNV-1a-64 of the stored configuration)", r->config_hash);
    tb_add(t, "Software version");
    tb_add(t, "factorysim %s made the run; factorysim %s wrote this report",
           m->version, FACTORYSIM_VERSION);
    if (m->sweep_key) {
        tb_add(t, "Sweep case");
        tb_add(t, "%s%s%s", m->case_key,
               m->overrides_json ? ", overrides " : "",
               m->overrides_json ? m->overrides_json : "");
    }
    tb_add(t, "Ranges");
    tb_add(t, "P10, P50 and P90 across the replications");
}

/* "2 x a, 1 x b" from a count list. */
static void counts(char *buf, size_t n, const db_count *c, size_t k)
{
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        size_t u = strlen(buf);
        snprintf(buf + u, n - u, "%s%" PRId64 " x %s", i ? ", " : "",
                 c[i].count, c[i].type);
    }
}

/* The site as stored with the run (db_run_meta), in MW and MWh as
 * summary.md has it, so the two documents read alike. */
static void site_facts(doc *d, const db_run *r)
{
    const db_run_meta *m = &r->meta;
    tb *t = table(d, NULL, 0, kv_head);
    char buf[2048];
    tb_add(t, "Site");
    tb_add(t, "%s", m->site_name ? m->site_name : "(unnamed)");
    counts(buf, sizeof buf, m->modules, m->n_modules);
    tb_add(t, "Modules");
    tb_add(t, "%s", buf);
    tb_add(t, "IT capacity");
    tb_add(t, "%.4g MW", m->it_capacity_w * 1e-6);
    counts(buf, sizeof buf, m->gpus, m->n_gpus);
    tb_add(t, "GPUs");
    tb_add(t, "%s", buf);
    buf[0] = '\0';
    for (size_t i = 0; i < m->n_sources; i++) {
        const db_source_def *s = &m->sources[i];
        size_t u = strlen(buf);
        snprintf(buf + u, sizeof buf - u, "%s%s %.4g MW", i ? "; " : "",
                 s->kind ? s->kind : "", s->power_w * 1e-6);
        u = strlen(buf);
        if (s->energy_j > 0)
            snprintf(buf + u, sizeof buf - u, " / %.4g MWh",
                     s->energy_j / 3.6e9);
    }
    tb_add(t, "Energy sources");
    tb_add(t, "%s", buf);
    tb_add(t, "Horizon");
    tb_add(t, "%.4g days", m->horizon_s / 86400.0);
    if (report_spread_solar_p90(r, buf, sizeof buf)) {
        tb_add(t, "%s", report_spread_solar_p90_label);
        tb_add(t, "%s", buf);
    }
}

/* Where each job's spread of time to train comes from, when the run was
 * stored with its variance decomposition (report_spread.h). */
static void spread(doc *d, const db_run *r)
{
    tb *t = table(d, NULL, 1, report_spread_head);
    for (size_t j = 0; t && j < r->meta.n_jobs; j++) {
        char cells[REPORT_SPREAD_COLS][64];
        if (!report_spread_cells(r, j, cells))
            continue;
        for (int c = 0; c < REPORT_SPREAD_COLS; c++)
            tb_add(t, "%s", cells[c]);
    }
}

/* Energy by source (those that produced) with shares of the mean facility
 * energy, as summary.md has it. */
static void energy_mix(doc *d, const db_run *r)
{
    static const char *const h[] = {"source",    "P10 [MWh]", "P50 [MWh]",
                                    "P90 [MWh]", "share [%]", NULL};
    int fe = resfield_find(resfield_site, resfield_n_site, "facility_energy_j",
                           NULL);
    double fac = fe >= 0 ? r->site_summary[fe].mean : (double)NAN;
    tb *t = table(d, "Energy mix (site)", 1, h);
    for (int k = 0; k < SRC_N; k++) {
        char field[48], a[32], b[32], c[32];
        int f;
        const stat_summary *s;
        snprintf(field, sizeof field, "energy_%s_j", source_table[k].name);
        f = resfield_find(resfield_site, resfield_n_site, field, NULL);
        if (f < 0 || !(r->site_summary[f].mean > 0))
            continue;
        s = &r->site_summary[f];
        fmt_g(a, sizeof a, s->p10 / 3.6e9);
        fmt_g(b, sizeof b, s->p50 / 3.6e9);
        fmt_g(c, sizeof c, s->p90 / 3.6e9);
        tb_add(t, "%s", source_table[k].name);
        tb_add(t, "%s", a);
        tb_add(t, "%s", b);
        tb_add(t, "%s", c);
        tb_add(t, "%.1f", fac > 0 ? 100.0 * s->mean / fac : (double)NAN);
    }
}

/* Every site field a run summary shows (RESFIELD_RUN) that has values, in
 * table order; costs (every USD field) go to their own table. */
static void site_metrics(doc *d, const db_run *r, int costs)
{
    tb *t = table(d, costs ? "Costs (site)" : "Site metrics", 2, metric_head);
    for (size_t f = 0; f < resfield_n_site; f++) {
        const resfield *x = &resfield_site[f];
        int want =
            costs ? is_cost(x) : (x->outputs & RESFIELD_RUN) && !is_cost(x);
        if (want && r->site_summary[f].n > 0)
            metric_row(t, x, &r->site_summary[f]);
    }
}

/* The job list (with the software release each asked for, which selects
 * its calibration factor), then one metric table per job. */
static void jobs(doc *d, const db_run *r, const cfg_text *ct,
                 const calib_info *ci)
{
    static const char *const h[] = {"job",      "model",   "GPUs",
                                    "finished", "release", NULL};
    const db_run_meta *m = &r->meta;
    int done = resfield_find(resfield_job, resfield_n_job, "completed", NULL);
    tb *t = table(d, "Jobs", 0, h);
    for (size_t j = 0; j < m->n_jobs; j++) {
        const db_job_def *jd = &m->jobs[j];
        const stat_summary *s =
            &r->job_summary[j * resfield_n_job + (size_t)done];
        const char *rel = NULL;
        char path[48];
        snprintf(path, sizeof path, "jobs.[%zu].release", j);
        tb_add(t, "%s", jd->name);
        tb_add(t, "%s %s", jd->model ? jd->model : "",
               jd->precision ? jd->precision : "");
        tb_add(t, "%d %s", (int)jd->gpus, jd->gpu_type ? jd->gpu_type : "");
        tb_add(t, "%.0f of %zu", s->mean * (double)s->n, s->n);
        if (cfg_text_strings(ct, path, &rel, 1) == 1)
            tb_add(t, "%s", rel);
        else
            tb_add(t, "%s (calibration default)",
                   ci->default_release[0] ? ci->default_release : "n/a");
    }
    for (size_t j = 0; j < m->n_jobs; j++) {
        char cap[256];
        tb *u;
        snprintf(cap, sizeof cap, "Job %s", m->jobs[j].name);
        if (!(u = table(d, cap, 2, metric_head)))
            break;
        for (size_t f = 0; f < resfield_n_job; f++) {
            const resfield *x = &resfield_job[f];
            const stat_summary *s = &r->job_summary[j * resfield_n_job + f];
            if ((x->outputs & RESFIELD_RUN) && s->n > 0)
                metric_row(u, x, s);
        }
    }
}

/* The calibration's accuracy: every group the file measured that concerns
 * the run (all rows, each model class, the run's GPU types, batch groups). */
static void calibration(doc *d, const db_run *r, const calib_info *ci)
{
    static const char *const h[] = {"group",
                                    "rows",
                                    "in sample [%]",
                                    "leave one config out [%]",
                                    "leave one model out [%]",
                                    NULL};
    tb *t = table(d, "Measured accuracy (MAPE of tokens/s per GPU)", 1, h);
    for (int i = 0; i < ci->n_acc; i++) {
        const calib_acc *a = &ci->acc[i];
        int gpu = 0, ours = 0;
        for (size_t g = 0; g < r->meta.n_gpus; g++)
            if (strcmp(r->meta.gpus[g].type, a->group) == 0)
                ours = 1;
        /* GPU groups are upper-case names ("H100"); others are classes. */
        gpu = a->group[0] >= 'A' && a->group[0] <= 'Z';
        if (gpu && !ours)
            continue;
        tb_add(t, "%s", a->group);
        tb_add(t, "%ld", a->n);
        tb_add(t, "%.2f", a->in_sample_pct);
        tb_add(t, "%.2f", a->loco_pct);
        tb_add(t, "%.2f", a->lomo_pct);
    }
}

/* How the throughput model did on each job's model's own published rows
 * (calibrate's model_rows, models/throughput.h tp_model_rows), every GPU
 * and the job's GPU: the proposal's reader sees whether the model the plan
 * rests on was predicted too fast or too slow before, which the class-wide
 * accuracy above cannot say. m NULL (the file could not be read) or a
 * calibration without records (written with --no-cv): no table. */
static void published_rows(doc *d, const db_run *r, const tp_model *m)
{
    static const char *const h[] = {
        "job",      "model",          "GPU",      "rows, every GPU", "mean [%]",
        "MAPE [%]", "rows, this GPU", "mean [%]", "MAPE [%]",        NULL};
    tb *t;
    if (!m || !m->n_model_rows)
        return;
    t = table(d,
              "The model on this model's published rows (predicted / "
              "measured - 1, each row held out of the fit; reported, not "
              "applied)",
              3, h);
    for (size_t j = 0; t && j < r->meta.n_jobs; j++) {
        const db_job_def *jd = &r->meta.jobs[j];
        const char *model = jd->model ? jd->model : "",
                   *gpu = jd->gpu_type ? jd->gpu_type : "";
        const tp_model_rows *e[2] = {tp_model_rows_of(m, model, NULL),
                                     tp_model_rows_of(m, model, gpu)};
        tb_add(t, "%s", jd->name);
        tb_add(t, "%s", model);
        tb_add(t, "%s", gpu);
        for (int k = 0; k < 2; k++) {
            if (e[k]) {
                tb_add(t, "%d", e[k]->n);
                tb_add(t, "%+.1f", e[k]->loco_mean_error_pct);
                tb_add(t, "%.1f", e[k]->loco_mape_pct);
            } else {
                tb_add(t, "%s", "none");
                tb_add(t, "%s", "");
                tb_add(t, "%s", "");
            }
        }
    }
}

/* The unit of a catalog key, from the suffix the catalog's naming rule puts
 * on it (the catalog files: tdp_w, scaleout_Gbps, mttr_h); "" when the name has
 * none (ratios, names). */
static const char *key_unit(const char *key)
{
    static const struct {
        const char *sfx, *unit;
    } u[] = {
        {"_usd_per_mwh", "USD/MWh"},
        {"_gco2_per_kwh", "gCO2/kWh"},
        {"_usd_per_mw", "USD/MW"},
        {"_usd_per_kwh", "USD/kWh"},
        {"_usd", "USD"},
        {"_days", "d"},
        {"_tflops", "TFLOP/s"},
        {"_GBps_bidirectional", "GB/s"},
        {"_Gbps", "Gb/s"},
        {"_tbps", "TB/s"},
        {"_gb", "GB"},
        {"_kw", "kW"},
        {"_w", "W"},
        {"_j", "J"},
        {"_h", "h"},
        {"_pct", "%"},
        {"_b", "billion"},
        {"_m", "m"},
    };
    size_t k = strlen(key);
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        size_t s = strlen(u[i].sfx);
        if (k > s && strcmp(key + k - s, u[i].sfx) == 0)
            return u[i].unit;
    }
    return "";
}

/* Assumption rows under construction: six cells each (where, entry, key,
 * value, unit, why), owned here and handed to the caller. */
typedef struct rows {
    char **c;
    size_t n, cap; /* cells */
} rows;

static void row(rows *w, const char *a, const char *b, const char *c,
                const char *dv, const char *e, const char *f)
{
    const char *v[6] = {a, b, c, dv, e, f};
    sim_grow((void **)&w->c, &w->cap, w->n + 6, sizeof *w->c);
    for (int i = 0; i < 6; i++)
        w->c[w->n++] = sim_xstrdup(v[i] ? v[i] : "");
}

/* Adds entry i of a kind's assumption lines ("KEY\tVALUE\tWHY\n"). */
static void catalog_rows(rows *w, const catalog *cat, const char *kind,
                         const char *label, size_t i, const char *name)
{
    const char *p = catalog_cite(cat, kind, i, "assumptions");
    while (*p) {
        char line[2048], *v, *y;
        size_t k = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(k < 2047 ? k : 2047), p);
        p += k + (p[k] == '\n');
        if (!(v = strchr(line, '\t')) || !(y = strchr(v + 1, '\t')))
            continue;
        *v++ = '\0';
        *y++ = '\0';
        row(w, label, name, line, v, key_unit(line), y);
    }
}

/* Index of a catalog entry by name, or -1: catalog_cite works by index,
 * the run knows names; pointer offsets from the lookups give the index
 * without a second name match. */
static long entry_index(const catalog *cat, const char *kind, const char *n)
{
    const void *p = NULL;
    if (!n)
        return -1;
    if (strcmp(kind, "gpus") == 0 && (p = catalog_gpu(cat, n)))
        return (long)((const gpu_spec *)p - catalog_gpu_at(cat, 0));
    if (strcmp(kind, "llms") == 0 && (p = catalog_llm(cat, n)))
        return (long)((const llm_arch *)p - catalog_llm_at(cat, 0));
    if (strcmp(kind, "systems") == 0 && (p = catalog_system(cat, n)))
        return (long)((const system_spec *)p - catalog_system_at(cat, 0));
    if (strcmp(kind, "modules") == 0 && (p = catalog_module(cat, n)))
        return (long)((const module_type *)p - catalog_module_at(cat, 0));
    if (strcmp(kind, "sources") == 0)
        return catalog_source_kind(n);
    return -1;
}

/* Adds a used entry once (names repeat across modules and jobs). */
static void used(rows *w, const catalog *cat, const char *kind,
                 const char *label, const char *name, long *seen, size_t *ns)
{
    long i = entry_index(cat, kind, name);
    if (i < 0)
        return;
    for (size_t k = 0; k < *ns; k++)
        if (seen[k] == i)
            return;
    if (*ns < 256)
        seen[(*ns)++] = i;
    catalog_rows(w, cat, kind, label, (size_t)i, name);
}

/* Scenario keys whose default the key table marks as an assumption and
 * that at least one group of the run left at that default. */
static void scenario_rows(rows *w, const cfg_text *ct)
{
    for (size_t i = 0; i < scen_n_keys; i++) {
        const scen_key *k = &scen_keys[i];
        const char *a = strstr(k->def_text, "assumption"), *open, *close;
        char val[256], why[1024], where[64];
        size_t ng, ns;
        if (!a || k->type == SK_GROUP)
            continue;
        cfg_text_key_use(ct, k->path, &ng, &ns);
        if (ng == ns)
            continue;
        /* "0.04 (assumption: why ...)": the value is the text outside the
         * parentheses ("0.05 for X (...), 0 for the air designs"), the
         * reason the text inside, less a leading "assumption:". */
        open = strstr(k->def_text, " (");
        close = open ? strrchr(open, ')') : NULL;
        if (open && close) {
            snprintf(val, sizeof val, "%.*s%s", (int)(open - k->def_text),
                     k->def_text, close + 1);
            a = open + 2;
            if (strncmp(a, "assumption", 10) == 0) {
                a += 10;
                while (*a == 's' || *a == ':' || *a == ',' || *a == ';' ||
                       *a == ' ')
                    a++;
            }
            snprintf(why, sizeof why, "%.*s",
                     (int)(close - a > 0 ? close - a : 0), a);
        } else {
            snprintf(val, sizeof val, "%s", k->def_text);
            why[0] = '\0';
        }
        if (!why[0])
            snprintf(why, sizeof why,
                     "the project's own default; no source gives a value");
        if (ng == 1)
            snprintf(where, sizeof where, "default");
        else
            snprintf(where, sizeof where, "default in %zu of %zu", ng - ns, ng);
        row(w, "scenario key", where, k->path, val, k->unit, why);
    }
}

/* Catalog entries first, in the order a reader meets them (GPU, system,
 * module, model, source), then scenario keys in key-table order; each
 * entry once (seen[] is reset per kind, since indices are per kind). */
char **report_doc_assumptions(const db_run *r, const catalog *cat, size_t *n)
{
    const db_run_meta *m = &r->meta;
    cfg_text *ct = cfg_text_parse(m->config_text);
    rows w = {NULL, 0, 0};
    long seen[256];
    size_t ns = 0;
    if (cat) {
        const char *hosts[64];
        size_t nh = cfg_text_strings(ct, "modules.[].hosts", hosts, 64);
        for (size_t i = 0; i < m->n_gpus; i++)
            used(&w, cat, "gpus", "catalog GPU", m->gpus[i].type, seen, &ns);
        ns = 0;
        /* Systems as the scenario named them; a module group that named
         * none runs the catalog's systems of its GPU type it can host. */
        for (size_t i = 0; i < nh; i++)
            used(&w, cat, "systems", "catalog system", hosts[i], seen, &ns);
        if (nh == 0)
            for (size_t s = 0; s < catalog_n_systems(cat); s++)
                for (size_t g = 0; g < m->n_gpus; g++)
                    for (size_t k = 0; k < m->n_modules; k++) {
                        const system_spec *sy = catalog_system_at(cat, s);
                        const module_type *mt =
                            catalog_module(cat, m->modules[k].type);
                        if (mt && strcmp(sy->gpu, m->gpus[g].type) == 0 &&
                            catalog_module_fits(mt, sy->name) >= 0)
                            used(&w, cat, "systems", "catalog system", sy->name,
                                 seen, &ns);
                    }
        ns = 0;
        for (size_t i = 0; i < m->n_modules; i++)
            used(&w, cat, "modules", "catalog module", m->modules[i].type, seen,
                 &ns);
        ns = 0;
        for (size_t j = 0; j < m->n_jobs; j++)
            used(&w, cat, "llms", "catalog model", m->jobs[j].model, seen, &ns);
        ns = 0;
        for (size_t i = 0; i < m->n_sources; i++)
            used(&w, cat, "sources", "catalog source", m->sources[i].kind, seen,
                 &ns);
    }
    if (ct)
        scenario_rows(&w, ct);
    cfg_text_free(ct);
    *n = w.n / 6;
    return w.c;
}

void report_doc_free_rows(char **cells, size_t n)
{
    for (size_t i = 0; cells && i < n * 6; i++)
        free(cells[i]);
    free(cells);
}

/* The description as the scenario wrote it ("" when none). */
static const char *description(const cfg_text *ct)
{
    const char *s = NULL;
    return cfg_text_strings(ct, "description", &s, 1) == 1 ? s : "";
}

/* Long because it is the page's table of contents: one block per section in
 * reading order (run, site, metrics, costs, jobs, spread when stored,
 * calibration, assumptions,
 * charts, then the caller's extra sections), each a few table calls. */
int report_doc_write(FILE *f, const report_doc_in *in, sim_err *err)
{
    const db_run *r = in->run;
    static const char *const as_head[] = {"where", "entry", "key", "value",
                                          "unit",  "why",   NULL};
    doc *d = sim_xcalloc(1, sizeof *d);
    rh_section sec[16 + 8];
    size_t ns = 0, nt, from;
    rh_chart *ch = sim_xcalloc((size_t)in->charts->n + 1, sizeof *ch);
    cfg_text *ct = cfg_text_parse(r->meta.config_text);
    calib_info *ci = sim_xcalloc(1, sizeof *ci);
    tp_model *tm = NULL; /* the calibration, for the per-job records */
    catalog *cat = NULL;
    sim_err e2;
    char **as = NULL, sub[512], cal_text[2048], as_text[2048], ch_text[4096];
    size_t n_as = 0;
    int rc, cat_ok, cal_ok;
    rh_doc doc_ = {0};

    sim_err_clear(&e2);
    cat_ok = catalog_load(in->catalog_dir, &cat, &e2) == SIM_OK;
    if (!cat_ok)
        snprintf(as_text, sizeof as_text,
                 "The catalog could not be read (%.900s), so its assumptions "
                 "are not listed; scenario keys follow.",
                 e2.msg);
    else
        snprintf(as_text, sizeof as_text,
                 "Values the run used that have no cited source: catalog "
                 "entries the site and jobs use (each entry's `assumptions` "
                 "in the catalog files, as the catalog stands when this report "
                 "was written) and scenario keys the scenario left at a "
                 "default that the key table marks as an assumption "
                 "(docs/scenario-reference.md). Change any of them in the "
                 "scenario to test how much the result depends on it.");
    sim_err_clear(&e2);
    cal_ok = calib_info_load(in->calib_path, ci, &e2) == SIM_OK;
    if (cal_ok) {
        size_t k;
        snprintf(cal_text, sizeof cal_text,
                 "Throughput comes from the calibrated model "
                 "(docs/throughput-model.md), built-in calibration as this "
                 "report was written (a run made with --calibration FILE is "
                 "not recorded in the database): %d calibrated software "
                 "releases, default %s (the jobs table names each job's). "
                 "Accuracy is the mean absolute percentage error of "
                 "tokens/s per GPU over the measured rows: in sample, and "
                 "predicting each configuration or model left out of the "
                 "fit.",
                 ci->n_releases,
                 ci->default_release[0] ? ci->default_release : "n/a");
        /* The per-job records need the model itself (io/calib_file.c),
         * which refuses what the accuracy reader lets pass; say which. */
        k = strlen(cal_text);
        sim_err_clear(&e2);
        if (tp_model_load(in->calib_path ? in->calib_path
                                         : tp_model_default_path(),
                          &tm, &e2) != SIM_OK)
            snprintf(cal_text + k, sizeof cal_text - k,
                     " The per-job published rows are not shown: %.900s.",
                     e2.msg);
        else if (tm->n_model_rows)
            snprintf(cal_text + k, sizeof cal_text - k,
                     " The second table is per job: how the model did on the "
                     "published rows of the job's own model (every precision "
                     "and release), each held out of the fit (a positive "
                     "mean: predicted too fast).");
        else
            snprintf(cal_text + k, sizeof cal_text - k,
                     " The calibration has no per-model records (written "
                     "without cross-validation), so no per-job table.");
    } else
        snprintf(cal_text, sizeof cal_text,
                 "The calibration file could not be read (%.900s).", e2.msg);

    /* Run and site. */
    from = d->n_tab;
    run_facts(d, r, description(ct));
    sec[ns++] = (rh_section){
        "run", "Run and scenario", NULL, seal(d, from, &nt), nt, NULL, 0};
    from = d->n_tab;
    site_facts(d, r);
    energy_mix(d, r);
    site_metrics(d, r, 0);
    sec[ns++] =
        (rh_section){"site", "Site", NULL, seal(d, from, &nt), nt, NULL, 0};
    from = d->n_tab;
    site_metrics(d, r, 1);
    sec[ns++] = (rh_section){
        "costs",
        "Costs",
        "Annual figures are per year: capital x capital recovery factor, O&M, "
        "and energy scaled from the horizon (docs/cost-model.md).",
        seal(d, from, &nt),
        nt,
        NULL,
        0};
    from = d->n_tab;
    jobs(d, r, ct, ci);
    sec[ns++] = (rh_section){
        "jobs",
        "Training jobs",
        "A job that did not finish within the horizon counts in \"finished\" "
        "only; its time to train is left out of the range.",
        seal(d, from, &nt),
        nt,
        NULL,
        0};
    if (report_spread_has(r)) {
        from = d->n_tab;
        spread(d, r);
        sec[ns++] = (rh_section){"spread",
                                 report_spread_heading,
                                 report_spread_method,
                                 seal(d, from, &nt),
                                 nt,
                                 NULL,
                                 0};
    }
    from = d->n_tab;
    if (cal_ok)
        calibration(d, r, ci);
    published_rows(d, r, tm);
    sec[ns++] = (rh_section){"calibration",
                             "Throughput calibration",
                             cal_text,
                             seal(d, from, &nt),
                             nt,
                             NULL,
                             0};

    /* Assumptions: rows built once, shown as a table whose cells are the
     * row strings themselves. */
    from = d->n_tab;
    as = report_doc_assumptions(r, cat_ok ? cat : NULL, &n_as);
    {
        tb *t = table(d, NULL, 3, as_head);
        for (size_t i = 0; t && i < n_as * 6; i++)
            tb_add(t, "%s", as[i]);
    }
    d->tab[from].num_from = 0;
    sec[ns++] = (rh_section){"assumptions",
                             "Assumptions that shaped the result",
                             as_text,
                             seal(d, from, &nt),
                             nt,
                             NULL,
                             0};

    /* Charts, in the order drawn, then what was not drawn and the PDF. */
    for (int i = 0; i < in->charts->n; i++) {
        const plot_meta *pm = &in->charts->meta[i];
        char *id = sim_xstrdup(in->charts->file[i]);
        char *dot = strrchr(id, '.');
        if (dot)
            *dot = '\0';
        ch[i].id = id;
        ch[i].title = pm->title[0] ? pm->title : in->charts->what[i];
        ch[i].what = in->charts->what[i];
        ch[i].svg = in->svg ? in->svg[i] : NULL;
    }
    {
        size_t u = 0;
        ch_text[0] = '\0';
        for (int i = 0; i < in->charts->n_skipped; i++) {
            u = strlen(ch_text);
            snprintf(ch_text + u, sizeof ch_text - u, "%sNot drawn: %s.",
                     i ? " " : "", in->charts->skipped[i]);
        }
        u = strlen(ch_text);
        if (in->pdf_note)
            snprintf(ch_text + u, sizeof ch_text - u, "%s%s", u ? "\n\n" : "",
                     in->pdf_note);
    }
    sec[ns++] =
        (rh_section){"charts", "Charts", ch_text[0] ? ch_text : NULL, NULL,
                     0,        ch,       (size_t)in->charts->n};
    for (size_t i = 0; i < in->n_extra && ns < sizeof sec / sizeof sec[0]; i++)
        sec[ns++] = in->extra[i];

    snprintf(sub, sizeof sub,
             "Site proposal from stored run %" PRId64
             " of factorysim; ranges P50 with P10-P90 across replications.",
             r->id);
    doc_.title = r->meta.scenario;
    doc_.subtitle = sub;
    doc_.sections = sec;
    doc_.n_sections = ns;
    rc = report_html_write(f, &doc_, err);

    for (int i = 0; i < in->charts->n; i++)
        free((char *)ch[i].id);
    free(ch);
    report_doc_free_rows(as, n_as);
    doc_free(d);
    free(d);
    free(ci);
    tp_model_free(tm);
    catalog_free(cat);
    cfg_text_free(ct);
    return rc;
}
