/* models/catalog.h: the component catalog: GPUs, systems and racks, module
 * types, LLM architectures and energy-source defaults, read from the
 * libconfig files under models/ (models/gpus.cfg, models/llms.cfg, ...).
 *
 * The catalog is immutable once loaded; lookups return pointers into it that
 * live until catalog_free. Names match case-insensitively; an LLM matches by
 * the name written in models.csv ("Llama 3.1 405B") or by its short id
 * ("llama3.1-405b"). Every number in the files carries its citation or is
 * marked as an assumption (see docs/catalog.md).
 *
 * This header is the contract shared by the scenario loader, the throughput
 * model and the site simulation; the struct layout is private to catalog.c.
 * Reading the catalog files is io/'s (catalog_load in io/catalog_cfg.h);
 * this module never touches the file system or the environment.
 */
#ifndef MODELS_CATALOG_H
#define MODELS_CATALOG_H

#include <stddef.h>

#include "models/gpu.h"
#include "models/llm.h"
#include "models/module.h"
#include "models/source.h"
#include "models/wind.h"

#define CATALOG_MAX_TURBINES 8
#include "models/system.h"
#include "sim/err.h"

typedef struct catalog catalog;

/* An empty catalog, to be filled with the catalog_add_* calls below
 * (caller frees with catalog_free). */
catalog *catalog_new(void);

/* ---- building a catalog ----
 *
 * Each add appends an entry, or replaces the one of the same name
 * (case-insensitive), after checking the rules the entry must obey on its
 * own and against the entries already there; the citation strings are
 * copied (NULL = ""). So a catalog built in memory obeys the same rules as
 * one read from files. Rules that need every entry (a module's hosts
 * against the systems' final power) are catalog_finish's.
 * Errors: SIM_ECONFIG with the message "KEY: text (got X, expected Y)",
 * KEY the catalog file's key the rule is about, relative to the entry
 * ("bf16_dense_tflops", "hosts.[1]"; "." for the entry as a whole), so a
 * file reader can place it at FILE:LINE; nothing is added on error. */

/* Rule: a GPU runs BF16 (peak_flops[NUM_BF16] > 0). */
int catalog_add_gpu(catalog *c, const gpu_spec *g, const char *source,
                    const char *notes, const char *assumed, sim_err *err);

/* Rules: num_layers, hidden_size, num_attention_heads >= 1; active <=
 * total parameters; the layers of each kind add up to num_layers; the
 * architecture accounts for total_params within FLOPS_PARAMS_REL_TOL; an
 * id is given and used by no other entry. */
int catalog_add_llm(catalog *c, const llm_arch *m, const char *source,
                    const char *notes, const char *assumed, sim_err *err);

/* Rules: the system's GPU is in c (its name is stored as the catalog
 * spells it); max_power_w covers gpus x TDP. Derives gpu_power_w and
 * overhead_w. */
int catalog_add_system(catalog *c, const system_spec *s, const char *source,
                       const char *notes, const char *assumed, sim_err *err);

/* Rule: every host is a system in c (stored as the catalog spells it).
 * max_units is derived by catalog_finish. */
int catalog_add_module(catalog *c, const module_type *m, const char *source,
                       const char *notes, const char *assumed, sim_err *err);

/* Rules: wind_curve_check; at most CATALOG_MAX_TURBINES curves. */
int catalog_add_turbine(catalog *c, const wind_curve *t, sim_err *err);

/* Sets the defaults of source kind d->kind. Rules: soh_min <= soh_max; a
 * default turbine names a curve in c. */
int catalog_add_source(catalog *c, const source_defaults *d, const char *source,
                       const char *notes, const char *assumed, sim_err *err);

/* Checks the cross references once every entry is in (each system's GPU,
 * each module's hosts, a system's power against its GPUs' TDP) and derives
 * every system's gpu_power_w and overhead_w and every module's max_units
 * (how many of each host fit its IT power). Run after a batch of adds.
 * Errors: SIM_ECONFIG naming the entry ("system \"X\": ..."). */
int catalog_finish(catalog *c, sim_err *err);

/* Frees c. catalog_free(NULL) is a no-op. */
void catalog_free(catalog *c);

/* GPU by name, or NULL. */
const gpu_spec *catalog_gpu(const catalog *c, const char *name);
size_t catalog_n_gpus(const catalog *c);
const gpu_spec *catalog_gpu_at(const catalog *c, size_t i);

/* LLM by name or id, or NULL. */
const llm_arch *catalog_llm(const catalog *c, const char *name_or_id);
size_t catalog_n_llms(const catalog *c);
const llm_arch *catalog_llm_at(const catalog *c, size_t i);

/* System or rack by name ("hgx-b300", "gb300-nvl72"), or NULL. */
const system_spec *catalog_system(const catalog *c, const char *name);
size_t catalog_n_systems(const catalog *c);
const system_spec *catalog_system_at(const catalog *c, size_t i);

/* Module type by name ("spark-air", "spark-liquid"), or NULL. */
const module_type *catalog_module(const catalog *c, const char *name);
size_t catalog_n_modules(const catalog *c);
const module_type *catalog_module_at(const catalog *c, size_t i);

/* How many units of system sys fit in one module of type m: its
 * max_units entry, or -1 when m does not host sys. */
int catalog_module_fits(const module_type *m, const char *sys);

/* Turbine power curve by name (case-insensitive; models/sources.cfg
 * sources.wind.turbines), or NULL. */
const wind_curve *catalog_turbine(const catalog *c, const char *name);

/* Energy-source defaults of a kind (always present once loaded). */
const source_defaults *catalog_source(const catalog *c, source_kind kind);

/* Source kind by name ("solar", "battery", "geothermal", "hydro", "grid"),
 * or -1. */
int catalog_source_kind(const char *name);

/* Citation of entry i of a kind ("gpus", "llms", "systems", "modules",
 * "sources"): which = "source", "notes" or "assumed" (comma-separated keys
 * filled as assumptions) or "assumptions" (catalog_set_assumptions' lines).
 * Returns "" when out of range; never NULL. */
const char *catalog_cite(const catalog *c, const char *kind, size_t i,
                         const char *which);

/* The assumptions of entry `name` of a kind, as lines "KEY\tVALUE\tWHY\n"
 * (VALUE as written in the catalog file, its unit in KEY's name), one per
 * key of its "assumed" list, for a report to show (issue 25); read back
 * with catalog_cite(c, kind, i, "assumptions"). An add of the entry resets
 * them to "", so the file reader sets them after the add. Copied by
 * catalog_clone. Errors: SIM_EINVAL when the entry does not exist. */
int catalog_set_assumptions(catalog *c, const char *kind, const char *name,
                            const char *lines);

/* A deep copy of c (caller frees), for a scenario to add its overrides to. */
catalog *catalog_clone(const catalog *c);

/* Writes the valid names of a kind ("gpus", "llms", "systems", "modules",
 * "sources", "turbines") as "A, B, C" into buf (NUL-terminated), for error
 * messages. */
void catalog_names(const catalog *c, const char *kind, char *buf, size_t n);

#endif
