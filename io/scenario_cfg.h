/* io/scenario_cfg.h: loading a scenario file (libconfig) into the resolved
 * structs of models/scenario.h. This adapter only reads: it converts each
 * key's file unit to SI, applies --set overrides and @includes, and locates
 * errors at FILE:LINE. The rules the values must obey together and the
 * quantities derived from them are the model's (scenario_finish in
 * models/scenario.h), so a scenario built in memory obeys the same rules.
 * The header does not pull in <libconfig.h>: any layer may load files. */
#ifndef IO_SCENARIO_CFG_H
#define IO_SCENARIO_CFG_H

#include <stddef.h>

#include "models/catalog.h"
#include "models/scenario.h"
#include "sim/err.h"

/* Reads, overrides, validates and resolves the scenario at path.
 * cat is the built-in catalog (not modified; the scenario copies it).
 * overrides: n_overrides strings "KEY=VALUE" (KEY a documented key path,
 * e.g. "modules.[0].count", "energy.battery.capacity_mwh"), applied to the
 * parsed tree before validation; may be NULL when n_overrides is 0.
 * On success *out (OUT, caller frees with scenario_free).
 * Errors: SIM_EIO (file missing), SIM_ECONFIG ("FILE:LINE: key.path:
 * message (got X, expected Y)"; an override's errors name "--set"). Nothing
 * is allocated on failure. */
int scenario_load(const char *path, const catalog *cat,
                  const char *const *overrides, size_t n_overrides,
                  scenario **out, sim_err *err);

#endif
