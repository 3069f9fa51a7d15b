/* models/gpu.h: a GPU type as the throughput and power models see it.
 *
 * All quantities in SI: FLOP/s, bytes, bytes/s, bits/s, watts. Peaks are
 * dense (no sparsity) per numeric format; 0 means the source gives none.
 * Filled from the catalog (models/gpus.cfg) or a user's scenario override;
 * announced-only parts carry announced = 1 and their predictions are flagged
 * as extrapolated.
 */
#ifndef MODELS_GPU_H
#define MODELS_GPU_H

/* Numeric formats the tensor cores run; every precision label of the
 * calibration data maps to one of these (models/precision.h). */
typedef enum num_fmt {
    NUM_BF16 = 0,
    NUM_FP8 = 1,
    NUM_FP4 = 2,
    NUM_FMT_N = 3
} num_fmt;

/* The catalog's hbm_gb unit: NVIDIA quotes HBM capacity in binary GB
 * (2^30 B; the totals NVML reports, io/catalog_cfg.c). Every conversion of
 * a capacity, and every memory figure printed beside one, uses it. */
#define GPU_HBM_GB_BYTES 1073741824.0

typedef struct gpu_spec {
    char name[32];                /* catalog id, e.g. "GB300" */
    double peak_flops[NUM_FMT_N]; /* dense peak per format [FLOP/s], 0 = none */
    double hbm_bytes;             /* HBM capacity [B], quoted GB x 2^30 */
    double hbm_Bps;               /* HBM bandwidth [B/s] */
    double tdp_w;                 /* board power limit [W] */
    double nvlink_Bps;   /* NVLink bandwidth per GPU, per direction [B/s] */
    int nvlink_domain;   /* GPUs in one NVLink domain (8 or 72) */
    double scaleout_bps; /* scale-out NIC bandwidth per GPU, per direction
                            [bit/s] */
    double exp_per_s;    /* softmax exponentials per second on the special
                            function units (MUFU.EX2), 0 = not given: the
                            attention core has no exponential part */
    int announced;       /* 1 when figures are announced, not shipping */
    char calib_as[32];   /* a calibrated GPU of the same compute die and
                            kernels whose efficiency factor this one
                            borrows when it has no calibration rows of its
                            own ("" = none: factor 1); predictions stay
                            flagged extrapolated */
} gpu_spec;

#endif
