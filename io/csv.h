/* io/csv.h: CSV tables over libcsv (the only file that includes <csv.h>).
 *
 * A table is the header row plus data rows of strings, each row with the
 * 1-based line of the file where it starts (for FILE:LINE messages). Short
 * rows are padded with empty cells; blank lines are skipped. Names use the
 * csvt_ prefix because libcsv already owns csv_*.
 */
#ifndef IO_CSV_H
#define IO_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "sim/err.h"

typedef struct csvt {
    size_t n_cols;  /* header cells */
    size_t n_rows;  /* data rows */
    char **header;  /* n_cols strings */
    char ***rows;   /* n_rows x n_cols strings, never NULL */
    int *line;      /* n_rows start lines */
    char path[512]; /* file read */
} csvt;

/* Reads path into *out (OUT, caller frees with csvt_free).
 * Errors: SIM_EIO (cannot open), SIM_ECONFIG (FILE:LINE: malformed CSV,
 * empty file, a row longer than the header). */
int csvt_read(const char *path, csvt **out, sim_err *err);

/* Column index of name (exact, case-sensitive), or -1. */
int csvt_col(const csvt *t, const char *name);

/* Frees t; csvt_free(NULL) is a no-op. */
void csvt_free(csvt *t);

/* Writes n cells as one CSV record (quoted where needed) and a newline.
 * Returns SIM_OK or SIM_EIO. */
int csvt_write_row(FILE *f, const char *const *cells, size_t n);

#endif
