/* models/precision.h: training precision recipes and the numeric format
 * their tensor-core GEMMs run in.
 *
 * A recipe is what the calibration data calls "precision" (BF16, FP8-CS,
 * MXFP8, NVFP4, ...). Each maps to exactly one num_fmt (models/gpu.h), whose
 * dense peak the throughput model scales, plus a recipe id that carries the
 * recipe's own quantization overheads (scaling granularity). Every label
 * found in data/calibration/megatron_throughput.csv is mapped
 * explicitly in precision.c; matching is case-insensitive and exact.
 */
#ifndef MODELS_PRECISION_H
#define MODELS_PRECISION_H

#include "models/gpu.h"

typedef enum prec_recipe {
    PREC_BF16 = 0,   /* BF16 GEMMs, no quantization */
    PREC_FP8_TENSOR, /* FP8, per-tensor scaling (delayed or current) */
    PREC_FP8_BLOCK,  /* FP8, fine-grained scaling: MXFP8 32-element blocks on
                        Blackwell, 128x128 / 1x128 blocks on Hopper */
    PREC_NVFP4,      /* NVFP4 (FP4 E2M1, 16-element blocks, FP8 scales) */
    PREC_RECIPE_N
} prec_recipe;

typedef struct precision {
    prec_recipe recipe; /* quantization recipe */
    num_fmt fmt;        /* format whose dense peak the GEMMs run at */
} precision;

/* Maps a precision label (as written in the data, or a short name such as
 * "bf16", "fp8", "mxfp8", "fp4") to *out. Returns SIM_OK, or SIM_ENOTFOUND
 * for an unknown label. Never allocates. */
int precision_parse(const char *label, precision *out);

/* Short canonical name of a recipe: "BF16", "FP8", "MXFP8", "NVFP4". */
const char *precision_recipe_name(prec_recipe r);

/* Name of a numeric format: "BF16", "FP8", "FP4" ("" if out of range). */
const char *precision_fmt_name(num_fmt f);

/* Bytes per GEMM operand element of a format, including block scales:
 * BF16 2, FP8 1, FP4 0.5 + 1/16 (one FP8 scale per 16 values). */
double precision_elem_bytes(num_fmt f);

/* The labels precision_parse accepts, as "A, B, C" (static string). */
const char *precision_valid_labels(void);

#endif
