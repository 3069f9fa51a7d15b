/* models/catalog_int.h: the catalog's layout, private to models/catalog.c
 * (and tests that look inside). Everyone else, the file readers of io/
 * included, builds and reads a catalog through models/catalog.h.
 *
 * Each kind is a growable array; entry i of a kind has its citation in
 * *_meta[i] (source, notes, assumed keys), owned by the catalog.
 */
#ifndef MODELS_CATALOG_INT_H
#define MODELS_CATALOG_INT_H

#include "models/catalog.h"

typedef struct catalog_meta {
    char *source;      /* citation text, "" when none */
    char *notes;       /* disagreements between sources, "" */
    char *assumed;     /* comma-separated keys filled as assumptions */
    char *assumptions; /* "KEY\tVALUE\tWHY\n" per assumed key, "" (issue
                        * 25: what a report lists; set after the add) */
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

#endif
