/* models/precision.c: the explicit label -> recipe map of precision.h.
 *
 * The table is the single place where a data label gets its meaning. The 25.09
 * Megatron-Bridge rows have no precision column: their plain values are FP8
 * per-tensor current-scaling recipes (issue 4) and the parenthesized variants
 * use finer quantization granularity (SOURCES.md: 32x32 blocks on GB200/B200,
 * 128x128 / 1x128 on H100), hence PREC_FP8_BLOCK.
 *
 * An explicit table rather than pattern matching ("contains FP8") on purpose: a
 * new label in a data file must fail loudly with the list of known labels,
 * never be guessed into a recipe that shifts a calibration. This file must
 * never read data files; the loaders pass labels in. */
#include "models/precision.h"

#include <strings.h>

#include "sim/err.h"

typedef struct label_map {
    const char *label;
    prec_recipe recipe;
    num_fmt fmt;
} label_map;

/* Matched case-insensitively and whole: "fp8" is FP8, but "FP8 tensor" is
 * unknown until a row is added here (and to precision_valid_labels). */
static const label_map labels[] = {
    {"BF16", PREC_BF16, NUM_BF16},
    {"FP8", PREC_FP8_TENSOR, NUM_FP8},
    {"FP8-CS", PREC_FP8_TENSOR, NUM_FP8},
    {"FP8 (per-tensor current scaling)", PREC_FP8_TENSOR, NUM_FP8},
    {"not stated", PREC_FP8_TENSOR, NUM_FP8},
    {"FP8-MX", PREC_FP8_BLOCK, NUM_FP8},
    {"MXFP8", PREC_FP8_BLOCK, NUM_FP8},
    {"not stated (alt quantization granularity)", PREC_FP8_BLOCK, NUM_FP8},
    {"not stated in stored excerpt (parenthesized variant)", PREC_FP8_BLOCK,
     NUM_FP8},
    {"NVFP4", PREC_NVFP4, NUM_FP4},
    {"FP4", PREC_NVFP4, NUM_FP4},
};

int precision_parse(const char *label, precision *out)
{
    if (!label)
        return SIM_ENOTFOUND;
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strcasecmp(label, labels[i].label) == 0) {
            out->recipe = labels[i].recipe;
            out->fmt = labels[i].fmt;
            return SIM_OK;
        }
    return SIM_ENOTFOUND;
}

const char *precision_fmt_name(num_fmt f)
{
    static const char *const names[NUM_FMT_N] = {"BF16", "FP8", "FP4"};
    return (unsigned)f < NUM_FMT_N ? names[f] : "";
}

const char *precision_recipe_name(prec_recipe r)
{
    switch (r) {
    case PREC_BF16:
        return "BF16";
    case PREC_FP8_TENSOR:
        return "FP8";
    case PREC_FP8_BLOCK:
        return "MXFP8";
    case PREC_NVFP4:
        return "NVFP4";
    default:
        return "?";
    }
}

double precision_elem_bytes(num_fmt f)
{
    switch (f) {
    case NUM_FP8:
        return 1.0;
    case NUM_FP4:
        /* NVFP4: 4-bit values plus one FP8 (E4M3) scale per block of 16
         * elements, so 0.5 + 1/16 bytes per element. */
        return 0.5 + 1.0 / 16.0;
    default:
        return 2.0;
    }
}

/* Spelled out rather than built from labels[] so that the message is one
 * constant string; a label added to labels[] must be added here too, or the
 * error message will not list it. */
const char *precision_valid_labels(void)
{
    return "BF16, FP8, FP8-CS, FP8 (per-tensor current scaling), not stated, "
           "FP8-MX, MXFP8, not stated (alt quantization granularity), "
           "not stated in stored excerpt (parenthesized variant), NVFP4, FP4";
}
