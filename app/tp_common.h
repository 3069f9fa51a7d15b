/* app/tp_common.h: what calibrate, predict, exemplar and bench predict
 * share: the catalog as a calib_lookup, and reading a throughput CSV into
 * resolved rows. Library code: it never prints; a row that fails is handed
 * to the caller's report function. */
#ifndef APP_TP_COMMON_H
#define APP_TP_COMMON_H

#include "io/calib_rows.h"
#include "models/catalog.h"

/* A calib_lookup over catalog c. */
calib_lookup tpc_lookup(const catalog *c);

/* Reads path and parses every row into *rows (OUT, caller frees), *n rows;
 * ok[i] (OUT, caller frees) is 1 when row i parsed. Each row that fails is
 * passed to report (FILE:LINE: reason; the commands pass cli_report, which
 * prints it on stderr; NULL: not reported) and counted in *n_bad.
 * Returns SIM_OK, or the error of the file itself (missing, malformed,
 * missing column) in err. *table (OUT) keeps the CSV for writing back. */
int tpc_read_rows(const char *path, const catalog *c, csvt **table,
                  calib_row **rows, unsigned char **ok, size_t *n,
                  size_t *n_bad, int (*report)(const sim_err *e), sim_err *err);

/* `factorysim bench predict` (cli/bench_predict.c), called by cmd_bench. */
int bench_predict(int argc, char **argv);

#endif
