/* io/calib_rows.h: rows of a throughput CSV (the columns of
 * data/calibration/megatron_throughput.csv) turned into
 * calib_row queries, names resolved through a caller's lookup.
 *
 * Required columns: model, gpu, num_gpus, precision, gbs, mbs, seq_len, tp,
 * pp, cp, ep, vp. Optional: release, num_layers_run, fsdp and the measured
 * tokens_per_sec_per_gpu, tokens_per_sec_total, step_time_s (the measurement
 * is the first of these present, converted to tokens/s/GPU, except that a
 * step time contradicting the throughput by more than CALIB_STEP_MISMATCH
 * is taken instead: calib_row.meas_from_step). Blank pp, cp,
 * ep, vp and mbs cells are 1 in the query (a published row that leaves
 * them blank did not use them; calibrate and exemplar read it so) and are
 * flagged in calib_row.blank, so that `predict --csv` chooses them; so is
 * the optional etp column (expert tensor parallelism), whose blank cell is
 * Megatron's default, the row's tp, for a MoE model whose layout admits it
 * (else 1: Megatron would refuse the default, so the run set it; 1 for a
 * dense model); so is
 * the optional recompute column (none, selective, full), whose blank cell
 * is Megatron's default, none; a blank tp asks the model to choose every
 * layout field but mbs; a blank seq_len uses the model's default_seq_len
 * (seq_assumed).
 */
#ifndef IO_CALIB_ROWS_H
#define IO_CALIB_ROWS_H

#include "io/csv.h"
#include "models/calib.h"

/* Name lookups: return NULL when unknown; names() writes the valid names of
 * "gpus" or "llms" as "A, B, C" for error messages. */
typedef struct calib_lookup {
    const gpu_spec *(*gpu)(void *ctx, const char *name);
    const llm_arch *(*llm)(void *ctx, const char *name);
    void (*names)(void *ctx, const char *kind, char *buf, size_t n);
    void *ctx;
} calib_lookup;

/* Checks that t has every required column. Errors: SIM_ECONFIG
 * "FILE:1: missing column 'X'". */
int calib_rows_check(const csvt *t, sim_err *err);

/* Parses data row i of t into *out (OUT; q.release points into
 * out->release, so out must not move while q is used).
 * Errors: SIM_ECONFIG "FILE:LINE: column: message (got X, expected Y)"
 * for a bad number, SIM_ENOTFOUND for an unknown model, GPU or precision
 * (the message lists the valid names). */
int calib_row_parse(const csvt *t, size_t i, const calib_lookup *lk,
                    calib_row *out, sim_err *err);

#endif
