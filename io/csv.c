/* io/csv.c: the libcsv adapter of csv.h.
 *
 * The file is fed to libcsv one physical line at a time so that each record
 * knows the line it started on; fields arrive through cb_field and records end
 * in cb_row, which appends the pending cells to the table. Memory grows by
 * doubling (sim_grow); the first record is the header.
 *
 * This is the only file that includes <csv.h>. It owns CSV syntax (quoting,
 * embedded newlines, blank lines) and nothing about meaning: columns are looked
 * up by name and converted by the callers, which know their units. It must
 * never hand out a partial table: on any error the table is freed and *out
 * stays NULL. */
#include "io/csv.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

typedef struct reader {
    csvt *t;
    char **cells; /* pending record */
    size_t n_cells, cap_cells;
    size_t cap_rows;
    int line;     /* current physical line */
    int rec_line; /* line where the pending record started */
    int too_long; /* line of a record longer than the header, or 0 */
} reader;

static void cb_field(void *s, size_t len, void *data)
{
    reader *r = data;
    char *c = sim_xmalloc(len + 1);
    if (r->n_cells == 0)
        r->rec_line = r->line;
    if (len)
        memcpy(c, s, len);
    c[len] = '\0';
    sim_grow((void **)&r->cells, &r->cap_cells, r->n_cells + 1,
             sizeof *r->cells);
    r->cells[r->n_cells++] = c;
}

/* Blank lines are skipped, short rows padded, long rows remembered (the first
 * one's line) and refused after the whole file is read, so the message can name
 * the first offending line even when libcsv reports nothing. */
static void cb_row(int ch, void *data)
{
    reader *r = data;
    csvt *t = r->t;
    (void)ch;
    if (r->n_cells == 0)
        return;
    if (r->n_cells == 1 && r->cells[0][0] == '\0') { /* blank line */
        free(r->cells[0]);
        r->n_cells = 0;
        return;
    }
    if (!t->header) {
        t->header = r->cells;
        t->n_cols = r->n_cells;
        r->cells = NULL;
        r->cap_cells = r->n_cells = 0;
        return;
    }
    if (r->n_cells > t->n_cols) {
        if (!r->too_long)
            r->too_long = r->rec_line;
        for (size_t i = 0; i < r->n_cells; i++)
            free(r->cells[i]);
        r->n_cells = 0;
        return;
    }
    sim_grow((void **)&t->rows, &r->cap_rows, t->n_rows + 1, sizeof *t->rows);
    /* line[] is kept at the same capacity as rows[], so one sim_grow drives
     * both. */
    t->line = sim_xrealloc(t->line, r->cap_rows * sizeof *t->line);
    {
        char **row = sim_xcalloc(t->n_cols, sizeof *row);
        for (size_t i = 0; i < t->n_cols; i++)
            row[i] = i < r->n_cells ? r->cells[i] : sim_xstrdup("");
        t->rows[t->n_rows] = row;
        t->line[t->n_rows] = r->rec_line;
        t->n_rows++;
    }
    r->n_cells = 0;
}

/* The order of the final checks matters: a libcsv syntax error wins (it names
 * the line where parsing stopped), then an empty file, then a row longer than
 * the header, so the first real problem is the one reported. Every path frees
 * the pending cells and, on error, the whole table, so a caller receives a
 * complete table or none. */
int csvt_read(const char *path, csvt **out, sim_err *err)
{
    struct csv_parser p;
    reader r;
    FILE *f;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = SIM_OK;

    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot open file");
    memset(&r, 0, sizeof r);
    r.t = sim_xcalloc(1, sizeof *r.t);
    snprintf(r.t->path, sizeof r.t->path, "%s", path);
    if (csv_init(&p, CSV_APPEND_NULL) != 0) {
        fclose(f);
        free(r.t);
        return sim_err_set(err, SIM_EIO, path, 0, "libcsv: cannot initialize");
    }
    /* Line by line rather than the whole file at once, because libcsv does not
     * track line numbers itself: r.line counts physical lines, and a quoted
     * cell spanning lines still belongs to the record that started at rec_line.
     */
    while ((len = getline(&buf, &cap, f)) > 0) {
        r.line++;
        if (csv_parse(&p, buf, (size_t)len, cb_field, cb_row, &r) !=
            (size_t)len) {
            rc = sim_err_set(err, SIM_ECONFIG, path, r.line,
                             "malformed CSV: %s", csv_strerror(csv_error(&p)));
            break;
        }
    }
    /* csv_fini flushes the last record when the file has no final newline;
     * without it that record would be lost silently. */
    if (rc == SIM_OK && csv_fini(&p, cb_field, cb_row, &r) != 0)
        rc = sim_err_set(err, SIM_ECONFIG, path, r.line, "malformed CSV: %s",
                         csv_strerror(csv_error(&p)));
    csv_free(&p);
    free(buf);
    fclose(f);
    for (size_t i = 0; i < r.n_cells; i++)
        free(r.cells[i]);
    free(r.cells);
    if (rc == SIM_OK && !r.t->header)
        rc = sim_err_set(err, SIM_ECONFIG, path, 1,
                         "empty file (expected a header row)");
    if (rc == SIM_OK && r.too_long)
        rc = sim_err_set(err, SIM_ECONFIG, path, r.too_long,
                         "row has more cells than the header (%zu)",
                         r.t->n_cols);
    if (rc != SIM_OK) {
        csvt_free(r.t);
        return rc;
    }
    *out = r.t;
    return SIM_OK;
}

int csvt_col(const csvt *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->header[i], name) == 0)
            return (int)i;
    return -1;
}

void csvt_free(csvt *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_rows; i++) {
        for (size_t j = 0; j < t->n_cols; j++)
            free(t->rows[i][j]);
        free(t->rows[i]);
    }
    for (size_t j = 0; j < t->n_cols; j++)
        free(t->header[j]);
    free(t->header);
    free(t->rows);
    free(t->line);
    free(t);
}

/* Quote only when needed (a comma, quote or line break in the cell), so
 * plain cells stay as readable as they were written; libcsv's csv_fwrite
 * does the quoting and doubles embedded quotes. */
int csvt_write_row(FILE *f, const char *const *cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *c = cells[i] ? cells[i] : "";
        if (i && fputc(',', f) == EOF)
            return SIM_EIO;
        if (strpbrk(c, ",\"\r\n")) {
            if (csv_fwrite(f, c, strlen(c)) != 0)
                return SIM_EIO;
        } else if (fputs(c, f) == EOF) {
            return SIM_EIO;
        }
    }
    return fputc('\n', f) == EOF ? SIM_EIO : SIM_OK;
}
