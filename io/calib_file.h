/* io/calib_file.h: models/calibration.cfg, the calibrated throughput model,
 * read and written with libconfig (the only file that includes
 * <libconfig.h> for it is io/calib_file.c).
 *
 * Layout: params { NAME = { value = X; sd = S; unit = "U"; }; ... },
 * gpus ( { name; log_factor; sd; } ... ), releases ( { id; dense; moe;
 * hybrid; dense_sd; moe_sd; hybrid_sd; } ... ), default_release,
 * sigma_log { dense; moe; hybrid; extrapolated; }, plus an informational
 * accuracy group that is written but not read. A '#' header says how the
 * file was made. Reals are written with 10 significant digits, so a
 * write-read round trip reproduces a prediction to ~1e-9.
 */
#ifndef IO_CALIB_FILE_H
#define IO_CALIB_FILE_H

#include "models/throughput.h"
#include "sim/err.h"

/* Path of the built-in calibration: models/calibration.cfg in the data home
 * (io/datadir.h). Static string. */
const char *tp_model_default_path(void);

/* Reads path into *out (OUT, caller frees with tp_model_free). Missing keys
 * keep the uncalibrated defaults of tp_model_init.
 * Errors: SIM_EIO (cannot open), SIM_ECONFIG (FILE:LINE: key: message). */
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
