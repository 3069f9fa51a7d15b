/* io/calib_file.h: models/calibration.cfg, the calibrated throughput model,
 * read and written with libconfig (the only file that includes
 * <libconfig.h> for it is io/calib_file.c).
 *
 * Layout: params { NAME = { value = X; sd = S; unit = "U"; }; ... },
 * gpus ( { name; log_factor; sd; } ... ), releases ( { id; dense; moe;
 * hybrid; dense_sd; moe_sd; hybrid_sd; } ... ), default_release,
 * sigma_log { dense; moe; hybrid; extrapolated; }, dp_latency_s, domain {
 * active_params_min; active_params_max; experts_max; seq_max; }, plus an
 * informational
 * accuracy group that is written but not read. A '#' header says how the
 * file was made. Reals are written with 10 significant digits, so a
 * write-read round trip reproduces a prediction to ~1e-9.
 *
 * Versioned and validated (format version TP_CALIB_FILE_VERSION): every key
 * above except accuracy is required, no other key is allowed, and a file of
 * another version or with no settings is refused. A missing parameter is
 * never filled with a built-in default, because a default silently changes
 * every prediction made with the file.
 */
#ifndef IO_CALIB_FILE_H
#define IO_CALIB_FILE_H

#include "models/throughput.h"
#include "sim/err.h"

/* Format version written as `version = N;` and the only one read. 2: every
 * key required (version 1 files, which let missing keys fall back to
 * defaults, are refused). 3 (issue 18): parameters dp_window (was ovl_dp,
 * a different meaning) and t_moe_expert_s, and the domain group; version 2
 * files are refused (their DP overlap means something else). 4 (issue 18,
 * second follow-up): eta_attn is the score GEMMs' fraction of the BF16
 * peak with the softmax exponentials charged apart (models/tp_attn.c), fixed
 * at 1; a version 3 file's fitted eta_attn already carried the
 * exponentials, so reading it now would charge them twice: refused. 5
 * (issue 18, seventh follow-up): parameter ovl_ep_on, the EP overlap of
 * recipes that state overlap_moe_expert_parallel_comm; ovl_ep now serves
 * only the recipes that do not say (models/tp_recipe.c), while a version 4
 * file's ovl_ep was fitted on every row: refused. */
#define TP_CALIB_FILE_VERSION 5

/* Path of the built-in calibration: models/calibration.cfg in the data home
 * (io/datadir.h). Static string. */
const char *tp_model_default_path(void);

/* Reads path into *out (OUT, caller frees with tp_model_free). Every command
 * that takes --calibration FILE (predict, run, sweep, exemplar) and the
 * built-in file go through here.
 * Errors: SIM_EIO (cannot open), SIM_ECONFIG "FILE:LINE: key: message (got
 * X, expected Y); rerun `factorysim calibrate` ..." for a syntax error, an
 * empty file, another format version, an unknown key, a missing key, a
 * wrong type or a value out of range (a key missing from the top level is
 * reported at line 1). */
int tp_model_load(const char *path, tp_model **out, sim_err *err);

/* tp_model_load(tp_model_default_path(), out, err). */
int tp_model_default(tp_model **out, sim_err *err);

/* Writes m to path: header lines (each prefixed "# ") then the settings;
 * accuracy_cfg (may be NULL) is libconfig text appended as "accuracy = {..};"
 * Written to path.tmp and renamed, so a failure leaves no partial file.
 * Errors: SIM_EIO. */
int tp_model_save(const tp_model *m, const char *path, const char *header,
                  const char *accuracy_cfg, sim_err *err);

#endif
