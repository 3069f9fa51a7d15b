/* models/catalog.c: the catalog's entries, the rules each obeys and the
 * quantities derived from them (a system's GPU power and overhead, a
 * module's max units), lookups and copies. It owns every catalog rule, so a
 * catalog built in memory is checked exactly as one read from files; it
 * must never read a file or the environment (the libconfig loader, and
 * where the files are found, are io/catalog_cfg.c and io/datadir.c).
 * Lookups scan linearly: a catalog holds tens of entries and is consulted
 * when a scenario is resolved, not per simulated event, so a hash index
 * would buy nothing measurable. */
#include "models/catalog_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/flops.h"
#include "sim/mem.h"

#define KILO 1e3

catalog *catalog_new(void)
{
    return sim_xcalloc(1, sizeof(catalog));
}

static void meta_free(catalog_meta *m)
{
    free(m->source);
    free(m->notes);
    free(m->assumed);
    free(m->assumptions);
}

static void meta_set(catalog_meta *m, const char *source, const char *notes,
                     const char *assumed)
{
    catalog_meta old = *m;
    m->source = sim_xstrdup(source ? source : "");
    m->notes = sim_xstrdup(notes ? notes : "");
    m->assumed = sim_xstrdup(assumed ? assumed : "");
    m->assumptions = sim_xstrdup("");
    meta_free(&old);
}

void catalog_free(catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_gpus; i++)
        meta_free(&c->gpu_meta[i]);
    for (size_t i = 0; i < c->n_llms; i++)
        meta_free(&c->llm_meta[i]);
    for (size_t i = 0; i < c->n_systems; i++)
        meta_free(&c->sys_meta[i]);
    for (size_t i = 0; i < c->n_modules; i++)
        meta_free(&c->mod_meta[i]);
    for (size_t i = 0; i < SRC_N; i++)
        meta_free(&c->src_meta[i]);
    free(c->gpus);
    free(c->gpu_meta);
    free(c->llms);
    free(c->llm_meta);
    free(c->systems);
    free(c->sys_meta);
    free(c->modules);
    free(c->mod_meta);
    free(c);
}

/* Finds name in an array of structs whose first member is a char name[]. */
static size_t find_named(const void *arr, size_t n, size_t elem,
                         const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp((const char *)arr + i * elem, name) == 0)
            return i;
    return n;
}

/* Shared put: replace by name or append, growing both arrays. Replacing in
 * place keeps an entry's index, so pointers handed out before an override
 * still point at that entry (with its new values); the arrays never
 * shrink. */
static size_t put(void **arr, catalog_meta **meta, size_t *n, size_t *cap,
                  size_t elem, const void *v, const char *source,
                  const char *notes, const char *assumed)
{
    size_t i = find_named(*arr, *n, elem, (const char *)v);
    if (i == *n) {
        size_t mcap = *cap;
        sim_grow(arr, cap, *n + 1, elem);
        sim_grow((void **)meta, &mcap, *n + 1, sizeof **meta);
        memset(&(*meta)[i], 0, sizeof **meta);
        (*n)++;
    }
    memcpy((char *)*arr + i * elem, v, elem);
    meta_set(&(*meta)[i], source, notes, assumed);
    return i;
}

static size_t put_gpu(catalog *c, const gpu_spec *g, const char *source,
                      const char *notes, const char *assumed)
{
    return put((void **)&c->gpus, &c->gpu_meta, &c->n_gpus, &c->cap_gpus,
               sizeof *g, g, source, notes, assumed);
}

static size_t put_llm(catalog *c, const llm_arch *m, const char *source,
                      const char *notes, const char *assumed)
{
    return put((void **)&c->llms, &c->llm_meta, &c->n_llms, &c->cap_llms,
               sizeof *m, m, source, notes, assumed);
}

static size_t put_system(catalog *c, const system_spec *s, const char *source,
                         const char *notes, const char *assumed)
{
    return put((void **)&c->systems, &c->sys_meta, &c->n_systems,
               &c->cap_systems, sizeof *s, s, source, notes, assumed);
}

static size_t put_module(catalog *c, const module_type *m, const char *source,
                         const char *notes, const char *assumed)
{
    return put((void **)&c->modules, &c->mod_meta, &c->n_modules,
               &c->cap_modules, sizeof *m, m, source, notes, assumed);
}

static int put_turbine(catalog *c, const wind_curve *t)
{
    size_t i = 0;
    while (i < c->n_turbines && strcasecmp(c->turbines[i].name, t->name) != 0)
        i++;
    if (i == CATALOG_MAX_TURBINES)
        return -1;
    c->turbines[i] = *t;
    if (i == c->n_turbines)
        c->n_turbines++;
    return (int)i;
}

const wind_curve *catalog_turbine(const catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_turbines; i++)
        if (strcasecmp(c->turbines[i].name, name) == 0)
            return &c->turbines[i];
    return NULL;
}

static void set_source(catalog *c, const source_defaults *d, const char *source,
                       const char *notes, const char *assumed)
{
    c->sources[d->kind] = *d;
    meta_set(&c->src_meta[d->kind], source, notes, assumed);
}

/* The puts of a clone reset each entry's assumption lines (meta_set), so
 * they are copied after, index by index (the clone keeps the order). */
static void copy_assumptions(catalog_meta *to, const catalog_meta *from,
                             size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(to[i].assumptions);
        to[i].assumptions =
            sim_xstrdup(from[i].assumptions ? from[i].assumptions : "");
    }
}

/* A deep copy through the same puts, so the copy's meta strings are its
 * own and freeing one catalog never touches the other; entries keep their
 * order and therefore their indices (catalog_cite uses them). */
catalog *catalog_clone(const catalog *c)
{
    catalog *k = catalog_new();
    memcpy(k->turbines, c->turbines, sizeof k->turbines);
    k->n_turbines = c->n_turbines;
    for (size_t i = 0; i < c->n_gpus; i++)
        put_gpu(k, &c->gpus[i], c->gpu_meta[i].source, c->gpu_meta[i].notes,
                c->gpu_meta[i].assumed);
    for (size_t i = 0; i < c->n_llms; i++)
        put_llm(k, &c->llms[i], c->llm_meta[i].source, c->llm_meta[i].notes,
                c->llm_meta[i].assumed);
    for (size_t i = 0; i < c->n_systems; i++)
        put_system(k, &c->systems[i], c->sys_meta[i].source,
                   c->sys_meta[i].notes, c->sys_meta[i].assumed);
    for (size_t i = 0; i < c->n_modules; i++)
        put_module(k, &c->modules[i], c->mod_meta[i].source,
                   c->mod_meta[i].notes, c->mod_meta[i].assumed);
    for (size_t i = 0; i < SRC_N; i++) {
        k->sources[i] = c->sources[i];
        meta_set(&k->src_meta[i], c->src_meta[i].source, c->src_meta[i].notes,
                 c->src_meta[i].assumed);
    }
    copy_assumptions(k->gpu_meta, c->gpu_meta, c->n_gpus);
    copy_assumptions(k->llm_meta, c->llm_meta, c->n_llms);
    copy_assumptions(k->sys_meta, c->sys_meta, c->n_systems);
    copy_assumptions(k->mod_meta, c->mod_meta, c->n_modules);
    copy_assumptions(k->src_meta, c->src_meta, SRC_N);
    return k;
}

const gpu_spec *catalog_gpu(const catalog *c, const char *name)
{
    size_t i = find_named(c->gpus, c->n_gpus, sizeof *c->gpus, name);
    return i < c->n_gpus ? &c->gpus[i] : NULL;
}

size_t catalog_n_gpus(const catalog *c)
{
    return c->n_gpus;
}

const gpu_spec *catalog_gpu_at(const catalog *c, size_t i)
{
    return i < c->n_gpus ? &c->gpus[i] : NULL;
}

const llm_arch *catalog_llm(const catalog *c, const char *name_or_id)
{
    for (size_t i = 0; i < c->n_llms; i++)
        if (strcasecmp(c->llms[i].name, name_or_id) == 0 ||
            strcasecmp(c->llms[i].id, name_or_id) == 0)
            return &c->llms[i];
    return NULL;
}

size_t catalog_n_llms(const catalog *c)
{
    return c->n_llms;
}

const llm_arch *catalog_llm_at(const catalog *c, size_t i)
{
    return i < c->n_llms ? &c->llms[i] : NULL;
}

const system_spec *catalog_system(const catalog *c, const char *name)
{
    size_t i = find_named(c->systems, c->n_systems, sizeof *c->systems, name);
    return i < c->n_systems ? &c->systems[i] : NULL;
}

size_t catalog_n_systems(const catalog *c)
{
    return c->n_systems;
}

const system_spec *catalog_system_at(const catalog *c, size_t i)
{
    return i < c->n_systems ? &c->systems[i] : NULL;
}

const module_type *catalog_module(const catalog *c, const char *name)
{
    size_t i = find_named(c->modules, c->n_modules, sizeof *c->modules, name);
    return i < c->n_modules ? &c->modules[i] : NULL;
}

size_t catalog_n_modules(const catalog *c)
{
    return c->n_modules;
}

const module_type *catalog_module_at(const catalog *c, size_t i)
{
    return i < c->n_modules ? &c->modules[i] : NULL;
}

int catalog_module_fits(const module_type *m, const char *sys)
{
    for (size_t i = 0; i < m->n_hosts; i++)
        if (strcasecmp(m->hosts[i], sys) == 0)
            return m->max_units[i];
    return -1;
}

const source_defaults *catalog_source(const catalog *c, source_kind kind)
{
    return (unsigned)kind < SRC_N ? &c->sources[kind] : NULL;
}

int catalog_source_kind(const char *name)
{
    return source_kind_parse(name);
}

const char *catalog_cite(const catalog *c, const char *kind, size_t i,
                         const char *which)
{
    const catalog_meta *m = NULL;
    if (strcmp(kind, "gpus") == 0 && i < c->n_gpus)
        m = &c->gpu_meta[i];
    else if ((strcmp(kind, "llms") == 0 || strcmp(kind, "models") == 0) &&
             i < c->n_llms)
        m = &c->llm_meta[i];
    else if (strcmp(kind, "systems") == 0 && i < c->n_systems)
        m = &c->sys_meta[i];
    else if (strcmp(kind, "modules") == 0 && i < c->n_modules)
        m = &c->mod_meta[i];
    else if (strcmp(kind, "sources") == 0 && i < SRC_N)
        m = &c->src_meta[i];
    if (!m)
        return "";
    if (strcmp(which, "source") == 0)
        return m->source ? m->source : "";
    if (strcmp(which, "notes") == 0)
        return m->notes ? m->notes : "";
    if (strcmp(which, "assumed") == 0)
        return m->assumed ? m->assumed : "";
    if (strcmp(which, "assumptions") == 0)
        return m->assumptions ? m->assumptions : "";
    return "";
}

/* By name, through the lookups, so the match is the same case-insensitive
 * one every other caller gets; the index is the pointer's offset. */
int catalog_set_assumptions(catalog *c, const char *kind, const char *name,
                            const char *lines)
{
    catalog_meta *m = NULL;
    const void *p;
    if (strcmp(kind, "gpus") == 0 && (p = catalog_gpu(c, name)))
        m = &c->gpu_meta[(const gpu_spec *)p - c->gpus];
    else if (strcmp(kind, "llms") == 0 && (p = catalog_llm(c, name)))
        m = &c->llm_meta[(const llm_arch *)p - c->llms];
    else if (strcmp(kind, "systems") == 0 && (p = catalog_system(c, name)))
        m = &c->sys_meta[(const system_spec *)p - c->systems];
    else if (strcmp(kind, "modules") == 0 && (p = catalog_module(c, name)))
        m = &c->mod_meta[(const module_type *)p - c->modules];
    else if (strcmp(kind, "sources") == 0 && catalog_source_kind(name) >= 0)
        m = &c->src_meta[catalog_source_kind(name)];
    if (!m)
        return SIM_EINVAL;
    free(m->assumptions);
    m->assumptions = sim_xstrdup(lines ? lines : "");
    return SIM_OK;
}

/* Error messages list the valid names; the buffer is the caller's and the
 * list is cut (never overflowed) when it does not fit. */
void catalog_names(const catalog *c, const char *kind, char *buf, size_t n)
{
    size_t used = 0, count = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (strcmp(kind, "gpus") == 0)
        count = c->n_gpus;
    else if (strcmp(kind, "llms") == 0 || strcmp(kind, "models") == 0)
        count = c->n_llms;
    else if (strcmp(kind, "systems") == 0)
        count = c->n_systems;
    else if (strcmp(kind, "modules") == 0)
        count = c->n_modules;
    else if (strcmp(kind, "sources") == 0)
        count = SRC_N;
    else if (strcmp(kind, "turbines") == 0)
        count = c->n_turbines;
    for (size_t i = 0; i < count && used + 1 < n; i++) {
        const char *name;
        int w;
        if (strcmp(kind, "gpus") == 0)
            name = c->gpus[i].name;
        else if (strcmp(kind, "llms") == 0 || strcmp(kind, "models") == 0)
            name = c->llms[i].id;
        else if (strcmp(kind, "systems") == 0)
            name = c->systems[i].name;
        else if (strcmp(kind, "modules") == 0)
            name = c->modules[i].name;
        else if (strcmp(kind, "turbines") == 0)
            name = c->turbines[i].name;
        else
            name = source_table[i].name;
        w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- the add API: each entry's rules, then the shared put ----
 *
 * Messages keep the catalog files' keys and units (TFLOPS, kW, B
 * parameters): they are read by people who wrote those files, and the file
 * reader places "KEY: ..." at the key's FILE:LINE. */

int catalog_add_gpu(catalog *c, const gpu_spec *g, const char *source,
                    const char *notes, const char *assumed, sim_err *err)
{
    if (!(g->peak_flops[NUM_BF16] > 0))
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "bf16_dense_tflops: must be positive (got %g, "
                           "expected > 0: every GPU runs BF16)",
                           g->peak_flops[NUM_BF16] / 1e12);
    put_gpu(c, g, source, notes, assumed);
    return SIM_OK;
}

/* The rules of an LLM entry, in the order a reader meets them: sizes, the
 * parameter totals, then the architecture against the stated totals (the
 * FLOPs and memory models trust these, so a contradiction is refused
 * rather than silently used). */
int catalog_add_llm(catalog *c, const llm_arch *m, const char *source,
                    const char *notes, const char *assumed, sim_err *err)
{
    const llm_arch *o;
    if (m->num_layers < 1 || m->hidden_size < 1 || m->num_attention_heads < 1)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           ".: num_layers, hidden_size and "
                           "num_attention_heads must be >= 1 (got %d, %d, "
                           "%d)",
                           m->num_layers, m->hidden_size,
                           m->num_attention_heads);
    if (m->active_params > m->total_params * (1 + 1e-9))
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "active_params_b: exceeds total_params_b "
                           "(got %g, expected <= %g)",
                           m->active_params / 1e9, m->total_params / 1e9);
    {
        /* Layers of each kind must add up to num_layers: the FLOPs and
         * parameter counts use the per-kind counts, the pipeline split
         * and proxy runs use num_layers, so a mismatch would make them
         * describe different models. Self-attention runs in every layer
         * of a dense or MoE model, in its own layers of a hybrid. */
        llm_layers k;
        double want;
        flops_layers(m, 0, &k);
        want = m->cls == LLM_HYBRID
                   ? k.attn + k.dense + k.moe + k.mamba
                   : (k.attn != k.total ? k.attn : k.dense + k.moe);
        if (want != k.total)
            return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                               "num_layers: contradicts the layers of each "
                               "kind (got %d, expected %g: %g attention, %g "
                               "dense, %g MoE, %g Mamba layers)",
                               m->num_layers, want, k.attn, k.dense, k.moe,
                               k.mamba);
    }
    {
        /* The architecture must account for the stated total: a wrong
         * layer count or width would otherwise change every FLOPs and
         * memory figure while the name and total look right. */
        double d, x, arch;
        flops_params(m, 0, &d, &x);
        arch = d + x;
        if (!(fabs(arch / m->total_params - 1) <= FLOPS_PARAMS_REL_TOL))
            return sim_err_set(
                err, SIM_ECONFIG, NULL, 0,
                "total_params_b: contradicts the architecture (got %g B "
                "stated, expected within %g%% of the %.4g B that "
                "num_layers, hidden_size, the MLP, expert, attention, Mamba "
                "and vocabulary sizes give; fix the architecture or the "
                "total)",
                m->total_params / 1e9, FLOPS_PARAMS_REL_TOL * 100, arch / 1e9);
    }
    if (!m->id[0])
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "id: missing key (expected a short id such as "
                           "\"llama3.1-405b\")");
    /* An id must not collide with another entry's name or id. */
    o = catalog_llm(c, m->id);
    if (o && strcasecmp(o->name, m->name) != 0)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "id: already used by \"%s\" (got \"%s\", "
                           "expected a unique id)",
                           o->name, m->id);
    put_llm(c, m, source, notes, assumed);
    return SIM_OK;
}

int catalog_add_system(catalog *c, const system_spec *s, const char *source,
                       const char *notes, const char *assumed, sim_err *err)
{
    system_spec v = *s;
    const gpu_spec *g = catalog_gpu(c, s->gpu);
    if (!g) {
        char names[1024];
        catalog_names(c, "gpus", names, sizeof names);
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "gpu: unknown GPU (got \"%s\", expected one of: "
                           "%s)",
                           s->gpu, names);
    }
    snprintf(v.gpu, sizeof v.gpu, "%s", g->name);
    v.gpu_power_w = v.gpus * g->tdp_w;
    v.overhead_w = v.max_power_w - v.gpu_power_w;
    if (v.overhead_w < 0)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "max_power_kw: below the GPUs' own TDP (got %g "
                           "kW, expected >= %d x %g W = %g kW)",
                           v.max_power_w / KILO, v.gpus, g->tdp_w,
                           v.gpu_power_w / KILO);
    put_system(c, &v, source, notes, assumed);
    return SIM_OK;
}

int catalog_add_module(catalog *c, const module_type *m, const char *source,
                       const char *notes, const char *assumed, sim_err *err)
{
    module_type v = *m;
    for (size_t k = 0; k < v.n_hosts; k++) {
        const system_spec *sy = catalog_system(c, v.hosts[k]);
        if (!sy) {
            char names[1024];
            catalog_names(c, "systems", names, sizeof names);
            return sim_err_set(err, SIM_ECONFIG, NULL, SIM_ERR_AT_KEY,
                               "hosts.[%zu]: unknown system (got \"%s\", "
                               "expected one of: %s)",
                               k, v.hosts[k], names);
        }
        snprintf(v.hosts[k], sizeof v.hosts[k], "%s", sy->name);
    }
    put_module(c, &v, source, notes, assumed);
    return SIM_OK;
}

int catalog_add_turbine(catalog *c, const wind_curve *t, sim_err *err)
{
    sim_err why;
    if (wind_curve_check(t, &why) != SIM_OK)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0, ".: %s", why.msg);
    if (put_turbine(c, t) < 0)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           ".: too many turbines (expected at most %d)",
                           CATALOG_MAX_TURBINES);
    return SIM_OK;
}

int catalog_add_source(catalog *c, const source_defaults *d, const char *source,
                       const char *notes, const char *assumed, sim_err *err)
{
    if ((unsigned)d->kind >= SRC_N)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "catalog_add_source: kind %d out of range",
                           (int)d->kind);
    if (d->turbine[0] && !catalog_turbine(c, d->turbine))
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "turbine: no such turbine in "
                           "sources.wind.turbines (got \"%s\")",
                           d->turbine);
    if (d->soh_min > d->soh_max)
        return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                           "soh_min: above soh_max (got %g > %g)", d->soh_min,
                           d->soh_max);
    set_source(c, d, source, notes, assumed);
    return SIM_OK;
}

/* Run after every batch of adds because an override may change a GPU's
 * TDP or a system's power after the entries that use them were added: the
 * derived figures are recomputed from the final entries, never kept from
 * the add. */
int catalog_finish(catalog *c, sim_err *err)
{
    for (size_t i = 0; i < c->n_gpus; i++) {
        const gpu_spec *g = &c->gpus[i], *a;
        if (!g->calib_as[0])
            continue;
        a = catalog_gpu(c, g->calib_as);
        /* One level only: the factor is borrowed from a GPU with rows of
         * its own, never through a chain that could loop. */
        if (!a || a == g || a->calib_as[0])
            return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                               "GPU \"%s\": calib_as: no such GPU without a "
                               "calib_as of its own in the catalog (got "
                               "\"%s\", expected another GPU's name)",
                               g->name, g->calib_as);
    }
    for (size_t i = 0; i < c->n_systems; i++) {
        system_spec *s = &c->systems[i];
        const gpu_spec *g = catalog_gpu(c, s->gpu);
        if (!g)
            return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                               "system \"%s\": unknown GPU \"%s\"", s->name,
                               s->gpu);
        s->gpu_power_w = s->gpus * g->tdp_w;
        s->overhead_w = s->max_power_w - s->gpu_power_w;
        if (s->overhead_w < 0)
            return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                               "system \"%s\": max power %g kW is below its "
                               "GPUs' TDP (got %g kW, expected >= %g kW)",
                               s->name, s->max_power_w / KILO,
                               s->max_power_w / KILO, s->gpu_power_w / KILO);
    }
    for (size_t i = 0; i < c->n_modules; i++) {
        module_type *m = &c->modules[i];
        for (size_t k = 0; k < m->n_hosts; k++) {
            const system_spec *s = catalog_system(c, m->hosts[k]);
            if (!s)
                return sim_err_set(err, SIM_ECONFIG, NULL, 0,
                                   "module type \"%s\": unknown system "
                                   "\"%s\"",
                                   m->name, m->hosts[k]);
            /* The tiny epsilon keeps 3.5 MW / 140 kW = 25 from rounding
             * down to 24 through binary fractions. */
            m->max_units[k] = (int)floor(m->it_power_w / s->max_power_w + 1e-9);
        }
    }
    return SIM_OK;
}
