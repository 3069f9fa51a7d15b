/* io/calib_info.h: what a report says about the throughput calibration
 * (issue 25): the file's default software release and the accuracy the
 * calibration measured (its informational `accuracy` group, MAPE of
 * tokens/s/GPU in percent, models/calibration.cfg). Only reads; the model
 * itself is io/calib_file.h's. A file without an accuracy group gives
 * n_acc = 0, not an error. */
#ifndef IO_CALIB_INFO_H
#define IO_CALIB_INFO_H

#include <stddef.h>

#include "sim/err.h"

#define CALIB_INFO_MAX_ACC 24

typedef struct calib_acc {
    char group[32];       /* "all", "dense", "moe", a GPU ("H100") ... */
    long n;               /* measured rows in the group */
    double in_sample_pct; /* MAPE, fit on every row [%] */
    double loco_pct;      /* leave-one-configuration-out [%] */
    double lomo_pct;      /* leave-one-model-out [%] */
} calib_acc;

typedef struct calib_info {
    char default_release[40]; /* release a job without `release` gets */
    int n_releases;           /* calibrated releases in the file */
    int n_acc;
    calib_acc acc[CALIB_INFO_MAX_ACC];
} calib_info;

/* Reads path (NULL = the built-in models/calibration.cfg) into *out.
 * Errors: SIM_EIO (cannot read), SIM_ECONFIG (FILE:LINE: does not parse). */
int calib_info_load(const char *path, calib_info *out, sim_err *err);

#endif
