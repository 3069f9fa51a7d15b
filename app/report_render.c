/* app/report_render.c: the chart list drawn again for report.html and
 * report.pdf (see report_render.h). It writes only inside the report
 * folder: a temporary folder of SVGs it removes again, and report.pdf via
 * report.pdf.tmp. */
#include "app/report_render.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/plot.h"
#include "sim/mem.h"

/* Reads a whole file into a string (caller frees), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t n = 0, cap = 0, k;
    if (!f)
        return NULL;
    do {
        sim_grow((void **)&b, &cap, n + 65536 + 1, 1);
        k = fread(b + n, 1, 65536, f);
        n += k;
    } while (k > 0);
    fclose(f);
    b[n] = '\0';
    return b;
}

/* The SVG of every chart drawn, for report.html (issue 25). With --format
 * svg these are the chart files themselves; otherwise the charts are drawn
 * again as SVG into a temporary folder inside DIR (so nothing outside DIR
 * is touched), read and removed. The second drawing is of the same stored
 * data, so it yields the same list; a chart that differs is left without
 * SVG (the page then says it is missing) rather than shown mismatched. */
char **report_render_svgs(const report_src *src, const report_out *cl,
                          sim_err *err)
{
    char **svg = sim_xcalloc((size_t)cl->n + 1, sizeof *svg);
    char tmp[1200], path[1600];
    report_out *o2;
    DIR *dh;
    int drawn;
    if (strcmp(cl->ext, "svg") == 0) {
        for (int i = 0; i < cl->n; i++) {
            snprintf(path, sizeof path, "%s/%s", cl->dir, cl->file[i]);
            svg[i] = slurp(path);
        }
        return svg;
    }
    snprintf(tmp, sizeof tmp, "%s/.report-svg-XXXXXX", cl->dir);
    if (!mkdtemp(tmp)) {
        sim_err_set(err, SIM_EIO, cl->dir, 0,
                    "cannot make a temporary folder (%s)", strerror(errno));
        free(svg);
        return NULL;
    }
    o2 = sim_xcalloc(1, sizeof *o2);
    o2->dir = tmp;
    o2->ext = "svg";
    drawn = report_draw_all(src, o2, err) == SIM_OK;
    if (drawn)
        for (int i = 0, k = 0; i < cl->n && k < o2->n; i++) {
            size_t b = strcspn(cl->file[i], ".");
            if (strncmp(cl->file[i], o2->file[k], b) != 0 ||
                o2->file[k][b] != '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", tmp, o2->file[k++]);
            svg[i] = slurp(path);
        }
    /* Emptied by listing it, not by o2's list: a pass that failed partway
     * leaves a file it never noted, and the folder must still go. */
    if ((dh = opendir(tmp)) != NULL) {
        struct dirent *de;
        while ((de = readdir(dh)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", tmp, de->d_name);
            remove(path);
        }
        closedir(dh);
    }
    rmdir(tmp);
    free(o2);
    if (!drawn) { /* report.html without its charts is no report */
        for (int i = 0; i < cl->n; i++)
            free(svg[i]);
        free(svg);
        return NULL;
    }
    return svg;
}

/* report.pdf: every chart again, one a page, through PLplot's pdfcairo
 * device (io/plot.h plot_book_open). Written as report.pdf.tmp and renamed.
 * A missing device is no error: *note says so, and the report and
 * charts.json carry the note. */
int report_render_pdf(const report_src *src, const report_out *cl, char *note,
                      size_t n, int *pages, sim_err *err)
{
    char tmp[1220], path[1200];
    report_out *o2;
    sim_err e2;
    int rc;
    snprintf(path, sizeof path, "%s/report.pdf", cl->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    *pages = 0;
    sim_err_clear(&e2);
    if ((rc = plot_book_open(tmp, &e2)) != SIM_OK) {
        snprintf(note, n, "report.pdf not written: %.300s.", e2.msg);
        return rc == SIM_EINVAL ? SIM_OK
                                : sim_err_set(err, rc, path, 0, "%s", e2.msg);
    }
    o2 = sim_xcalloc(1, sizeof *o2);
    o2->dir = cl->dir;
    o2->ext = "pdf";
    rc = report_draw_all(src, o2, err);
    free(o2);
    {
        int rc2 = plot_book_close(pages, &e2);
        if (rc == SIM_OK && rc2 == SIM_EIO)
            rc = sim_err_set(err, SIM_EIO, path, 0, "%s", e2.msg);
    }
    if (rc != SIM_OK || *pages == 0) {
        remove(tmp);
        snprintf(note, n, "report.pdf not written: no chart was drawn.");
        return rc;
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return sim_err_set(err, SIM_EIO, path, 0, "cannot rename into place");
    }
    snprintf(note, n,
             "report.pdf holds the %d charts above, one a page (PLplot "
             "pdfcairo).",
             *pages);
    return SIM_OK;
}
