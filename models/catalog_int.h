/* models/catalog_int.h: the catalog's layout, shared only by models/catalog.c
 * (lookups), io/catalog_cfg.c (the libconfig loader), the scenario loader
 * (which copies a catalog and applies a scenario's catalog overrides) and
 * tests. Everyone else uses models/catalog.h.
 *
 * Each kind is a growable array; entry i of a kind has its citation in
 * *_meta[i] (source, notes, assumed keys), owned by the catalog.
 */
#ifndef MODELS_CATALOG_INT_H
#define MODELS_CATALOG_INT_H

#include "models/catalog.h"

typedef struct catalog_meta {
    char *source;  /* citation text, "" when none */
    char *notes;   /* disagreements between sources, "" */
    char *assumed; /* comma-separated keys filled as assumptions */
} catalog_meta;

struct catalog {
    gpu_spec *gpus;
    catalog_meta *gpu_meta;
    size_t n_gpus, cap_gpus;
    llm_arch *llms;
    catalog_meta *llm_meta;
    size_t n_llms, cap_llms;
    system_spec *systems;
    catalog_meta *sys_meta;
    size_t n_systems, cap_systems;
    module_type *modules;
    catalog_meta *mod_meta;
    size_t n_modules, cap_modules;
    source_defaults sources[SRC_N];
    catalog_meta src_meta[SRC_N];
    wind_curve turbines[CATALOG_MAX_TURBINES]; /* sources.wind.turbines */
    size_t n_turbines;
};

/* Appends or replaces (same name, case-insensitive) an entry, copying the
 * meta strings (NULL = ""). Returns the entry's index. */
size_t catalog_put_gpu(catalog *c, const gpu_spec *g, const char *source,
                       const char *notes, const char *assumed);
size_t catalog_put_llm(catalog *c, const llm_arch *m, const char *source,
                       const char *notes, const char *assumed);
size_t catalog_put_system(catalog *c, const system_spec *s, const char *source,
                          const char *notes, const char *assumed);
size_t catalog_put_module(catalog *c, const module_type *m, const char *source,
                          const char *notes, const char *assumed);
/* Appends or replaces (same name, case-insensitive) a turbine power
 * curve. Returns its index, or -1 when the table is full. */
int catalog_put_turbine(catalog *c, const wind_curve *t);
void catalog_set_source(catalog *c, const source_defaults *d,
                        const char *source, const char *notes,
                        const char *assumed);

/* An empty catalog (caller frees with catalog_free). */
catalog *catalog_new(void);

#endif
