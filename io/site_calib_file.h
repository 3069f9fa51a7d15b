/* io/site_calib_file.h: the site calibration file (issue 26), a libconfig
 * file that `factorysim exemplar --write-site-calibration` writes and
 * `predict --site-calibration` / scenario `site.calibration` read. Versioned
 * and validated like models/calibration.cfg: format name
 * "factorysim-site-calibration", version SITE_CALIB_FILE_VERSION; every key
 * required, unknown keys refused, errors as FILE:LINE: key: message (got X,
 * expected Y). It records where it came from (measured file name, its
 * sha256, the reference table, each factor's source lines) and no
 * wall-clock time, so the same rows give the same bytes.
 */
#ifndef IO_SITE_CALIB_FILE_H
#define IO_SITE_CALIB_FILE_H

#include "models/site_calib.h"
#include "sim/err.h"

/* sha256 of a file's bytes as 64 hex digits into hex[65]. Errors: SIM_EIO. */
int site_calib_sha256(const char *path, char hex[65], sim_err *err);

/* Writes c to path (via path.tmp, renamed when complete). Errors: SIM_EIO. */
int site_calib_save(const site_calib *c, const char *path, sim_err *err);

/* Reads path into a new *out (caller frees with free()). Errors: SIM_EIO,
 * SIM_ECONFIG with FILE:LINE. */
int site_calib_load(const char *path, site_calib **out, sim_err *err);

#endif
