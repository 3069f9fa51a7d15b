/* models/catalog.c: catalog lookups and copies (the libconfig loader, and
 * where the files are found, are io/catalog_cfg.c and io/datadir.c). Lookups
 * scan linearly: a catalog holds tens of entries and is consulted when a
 * scenario is resolved, not per simulated event, so a hash index would buy
 * nothing measurable. */
#include "models/catalog_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/mem.h"

catalog *catalog_new(void)
{
    return sim_xcalloc(1, sizeof(catalog));
}

static void meta_free(catalog_meta *m)
{
    free(m->source);
    free(m->notes);
    free(m->assumed);
}

static void meta_set(catalog_meta *m, const char *source, const char *notes,
                     const char *assumed)
{
    catalog_meta old = *m;
    m->source = sim_xstrdup(source ? source : "");
    m->notes = sim_xstrdup(notes ? notes : "");
    m->assumed = sim_xstrdup(assumed ? assumed : "");
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

/* Shared put: replace by name or append, growing both arrays. */
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

size_t catalog_put_gpu(catalog *c, const gpu_spec *g, const char *source,
                       const char *notes, const char *assumed)
{
    return put((void **)&c->gpus, &c->gpu_meta, &c->n_gpus, &c->cap_gpus,
               sizeof *g, g, source, notes, assumed);
}

size_t catalog_put_llm(catalog *c, const llm_arch *m, const char *source,
                       const char *notes, const char *assumed)
{
    return put((void **)&c->llms, &c->llm_meta, &c->n_llms, &c->cap_llms,
               sizeof *m, m, source, notes, assumed);
}

size_t catalog_put_system(catalog *c, const system_spec *s, const char *source,
                          const char *notes, const char *assumed)
{
    return put((void **)&c->systems, &c->sys_meta, &c->n_systems,
               &c->cap_systems, sizeof *s, s, source, notes, assumed);
}

size_t catalog_put_module(catalog *c, const module_type *m, const char *source,
                          const char *notes, const char *assumed)
{
    return put((void **)&c->modules, &c->mod_meta, &c->n_modules,
               &c->cap_modules, sizeof *m, m, source, notes, assumed);
}

int catalog_put_turbine(catalog *c, const wind_curve *t)
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

void catalog_set_source(catalog *c, const source_defaults *d,
                        const char *source, const char *notes,
                        const char *assumed)
{
    c->sources[d->kind] = *d;
    meta_set(&c->src_meta[d->kind], source, notes, assumed);
}

catalog *catalog_clone(const catalog *c)
{
    catalog *k = catalog_new();
    memcpy(k->turbines, c->turbines, sizeof k->turbines);
    k->n_turbines = c->n_turbines;
    for (size_t i = 0; i < c->n_gpus; i++)
        catalog_put_gpu(k, &c->gpus[i], c->gpu_meta[i].source,
                        c->gpu_meta[i].notes, c->gpu_meta[i].assumed);
    for (size_t i = 0; i < c->n_llms; i++)
        catalog_put_llm(k, &c->llms[i], c->llm_meta[i].source,
                        c->llm_meta[i].notes, c->llm_meta[i].assumed);
    for (size_t i = 0; i < c->n_systems; i++)
        catalog_put_system(k, &c->systems[i], c->sys_meta[i].source,
                           c->sys_meta[i].notes, c->sys_meta[i].assumed);
    for (size_t i = 0; i < c->n_modules; i++)
        catalog_put_module(k, &c->modules[i], c->mod_meta[i].source,
                           c->mod_meta[i].notes, c->mod_meta[i].assumed);
    for (size_t i = 0; i < SRC_N; i++) {
        k->sources[i] = c->sources[i];
        meta_set(&k->src_meta[i], c->src_meta[i].source, c->src_meta[i].notes,
                 c->src_meta[i].assumed);
    }
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
    return "";
}

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
        else
            name = source_table[i].name;
        w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}
