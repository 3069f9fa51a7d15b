/* io/catalog_cfg.h: the catalog's libconfig reader, shared with the scenario
 * loader, whose `catalog` group redefines or adds entries with the same keys
 * as the models/ catalog files. Only io/ files include this header (it pulls in
 * libconfig through io/cfg.h). */
#ifndef IO_CATALOG_CFG_H
#define IO_CATALOG_CFG_H

#include "io/cfg.h"
#include "models/catalog.h"

/* Reads the members gpus, llms, systems, modules and sources of group g
 * (each optional) into c. An entry whose name already exists starts from
 * the existing values, so an override may give only the keys it changes; a
 * new entry must give every required key. Errors: SIM_ECONFIG with
 * file:line: key.path. */
int catalog_cfg_apply(cfg_reader *r, const config_setting_t *g, catalog *c);

/* Checks cross references (a system's GPU, a module's hosts) and computes
 * every module's max_units from the systems' power. On error names the
 * offending entry; `where` (may be NULL) locates it for the message. */
int catalog_cfg_finish(cfg_reader *r, const config_setting_t *where,
                       catalog *c);

#endif
