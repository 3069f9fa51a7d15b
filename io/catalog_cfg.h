/* io/catalog_cfg.h: reading the catalog files (models/{gpus,llms,systems,
 * modules,sources}.cfg, libconfig) into a catalog, and the reader of a
 * scenario's `catalog` group, which redefines or adds entries with the same
 * keys. The adapter only reads and converts units; cross references and
 * derived quantities are the catalog's own (catalog_finish in
 * models/catalog.h). <libconfig.h> is not pulled in: catalog_load is for any
 * layer; the two group readers take io/cfg.h's reader by its tag and are
 * called by io/scenario_cfg.c only. */
#ifndef IO_CATALOG_CFG_H
#define IO_CATALOG_CFG_H

#include "models/catalog.h"
#include "sim/err.h"

struct cfg_reader;       /* io/cfg.h */
struct config_setting_t; /* <libconfig.h> */

/* Loads every catalog file in dir (NULL = the models/ folder of the data
 * home, io/datadir.h) into *out (OUT, caller frees with catalog_free).
 * Errors: SIM_EIO (missing file), SIM_ECONFIG (FILE:LINE: key: message). */
int catalog_load(const char *dir, catalog **out, sim_err *err);

/* Reads the members gpus, llms, systems, modules and sources of group g
 * (each optional) into c. An entry whose name already exists starts from
 * the existing values, so an override may give only the keys it changes; a
 * new entry must give every required key. Errors: SIM_ECONFIG with
 * file:line: key.path. */
int catalog_cfg_apply(struct cfg_reader *r, const struct config_setting_t *g,
                      catalog *c);

/* catalog_finish (cross references, every module's max_units) with its
 * error located at `where` (may be NULL). */
int catalog_cfg_finish(struct cfg_reader *r,
                       const struct config_setting_t *where, catalog *c);

#endif
