/* cli/sweep_cli.h: the parts of `sweep` (cli/cmd_sweep.c) that `optimize`
 * (cli/cmd_optimize.c) shares, so that an evaluated design is stored
 * exactly as a sweep case is: the same sweep key, case key, overrides and
 * validation. Defined in cli/cmd_sweep.c; nothing here runs a case
 * (app/sweep_exec.h does). */
#ifndef CLI_SWEEP_CLI_H
#define CLI_SWEEP_CLI_H

#include <stddef.h>

#include "app/sweep_exec.h"
#include "io/db.h"

/* Progress on stderr: a bar on a terminal, a line every 5 % otherwise. */
typedef struct sweep_progress {
    int tty, quiet;
    size_t total, skipped, done, failed;
    size_t elsewhere; /* run here, but stored first by another process */
    double t0;
    int last_step; /* plain mode: last 5% step printed */
} sweep_progress;

/* What sweep_store_case needs on the writer (rank 0's main thread). */
typedef struct sweep_store_ctx {
    const sweep_ctx *c;
    db *d;
    const char *sweep_key;
    int mpi; /* 1: record the rank */
    sweep_progress *pg;
    size_t n_failed;
    char first_fail[2048];
} sweep_store_ctx;

/* Monotonic clock [s]. */
double sweep_now_s(void);

/* Shows the progress; final ends the bar's line. */
void sweep_progress_show(sweep_progress *p, int final);

/* Case i's overrides as a typed JSON object {"key": value} (malloc'd). */
char *sweep_overrides_json(const sweep_grid *g, size_t i);

/* sweep_store_fn (app/sweep_exec.h) storing r as a case of sc->sweep_key
 * (arg: a sweep_store_ctx); a failed case is reported on stderr and
 * counted, not stored. */
int sweep_store_case(void *arg, sweep_result *r, sim_err *err);

/* The sweep key (16 hex digits) of the resolved base scenario text, the
 * canonical grid text, the calibration bytes and c's flags. */
void sweep_key_of(char key[17], const char *base_text, const char *grid_text,
                  const char *calib_bytes, size_t calib_n, const sweep_ctx *c);

/* A whole file (malloc'd; NULL when unreadable), its size in *n. */
char *sweep_read_file(const char *path, size_t *n);

/* Validates every value of every axis as `run` would (usage error naming
 * "--set KEY=VALUE" otherwise). */
int sweep_validate_grid(const sweep_ctx *c, double max_mb, sim_err *err);

#endif
