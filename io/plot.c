/* io/plot.c: PLplot setup shared through plot_int.h, and the parity plot.
 * Colours are a fixed palette indexed by GPU order of first appearance, so the
 * same rows give the same bytes.
 *
 * Together with plot_charts.c and plot_sweep.c this is the only code that
 * includes <plplot.h>. This file owns the guards every chart needs, because
 * PLplot's own failure modes end the process or write the wrong format
 * (deps-notes.md 4): an unknown device opens an interactive menu and falls back
 * to PostScript, an unwritable path calls exit(1), and cairo reports no write
 * errors. So a chart must never be started without plot_begin's checks and
 * never be reported written without plot_check_complete. */
#include "io/plot.h"

#include <math.h>
#include <plplot.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/plot_int.h"
#include "sim/mem.h"

/* The extension picks the device so that a user asks for a format by naming
 * the file; anything unknown gets PNG. */
const char *plot_device_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcasecmp(dot, ".svg") == 0)
        return "svgcairo";
    if (dot && strcasecmp(dot, ".pdf") == 0)
        return "pdfcairo";
    return "pngcairo";
}

/* plgDevs fills caller-owned arrays and takes n as their capacity
 * (deps-notes.md 4.3); 128 is far above the dozen or so devices a PLplot build
 * has. */
int plot_has_device(const char *dev)
{
    const char *menu[128], *names[128], **pm = menu, **pn = names;
    int n = 128;
    plgDevs(&pm, &pn, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], dev) == 0)
            return 1;
    return 0;
}

static int check_complete_as(const char *path, const char *dev, sim_err *err);

/* The book (plot_book_open): while open, every chart is a page of one PDF
 * stream instead of a file of its own. PLplot fixes the page size at
 * plinit, so every page has the first chart's size (the report's charts
 * share PLOT_CHART_W x PLOT_CHART_H). */
static struct {
    int open, started, pages;
    char path[1200];
} book;

/* cairo writes a PDF's /CreationDate in local time with the zone's offset
 * ("D:...+01'00", or "Z" in UTC), so after pdf_fix_date the bytes would
 * still depend on the machine's time zone, and the offset's length differs
 * between zones, so it cannot be patched in place. The process's zone is
 * set to UTC before a PDF stream starts: nothing else in factorysim uses
 * local time (the store's one timestamp is gmtime_r), so this changes no
 * other output. */
static void pdf_zone_utc(void)
{
    setenv("TZ", "UTC0", 1);
    tzset();
}

int plot_book_open(const char *path, sim_err *err)
{
    FILE *f;
    if (!plot_has_device("pdfcairo"))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "PLplot device pdfcairo is not installed");
    if (!(f = fopen(path, "wb")))
        return sim_err_set(err, SIM_EIO, path, 0, "cannot write file");
    fclose(f);
    snprintf(book.path, sizeof book.path, "%s", path);
    book.open = 1;
    book.started = 0;
    book.pages = 0;
    return SIM_OK;
}

/* cairo 1.16 stamps every PDF with the wall-clock time
 * ("/CreationDate (D:20261203180934Z)") and ignores SOURCE_DATE_EPOCH, so
 * the same charts would give different bytes each run. The 14 digits are
 * overwritten in place with 1970-01-01 00:00:00: the same length, so the
 * cross-reference offsets stay valid. */
static int pdf_fix_date(const char *path, sim_err *err)
{
    static const char key[] = "/CreationDate (D:";
    FILE *f = fopen(path, "r+b");
    char *b;
    long len;
    size_t n;
    int rc = SIM_OK;
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot reopen the PDF");
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = sim_xmalloc((size_t)(len > 0 ? len : 0) + 1);
    n = fread(b, 1, (size_t)(len > 0 ? len : 0), f);
    for (size_t i = 0; i + sizeof key + 14 < n; i++)
        if (memcmp(b + i, key, sizeof key - 1) == 0) {
            if (fseek(f, (long)(i + sizeof key - 1), SEEK_SET) != 0 ||
                fwrite("19700101000000", 1, 14, f) != 14)
                rc = sim_err_set(err, SIM_EIO, path, 0,
                                 "cannot rewrite the PDF date");
            break;
        }
    free(b);
    if (fclose(f) != 0 && rc == SIM_OK)
        rc = sim_err_set(err, SIM_EIO, path, 0, "cannot rewrite the PDF");
    return rc;
}

int plot_book_close(int *pages, sim_err *err)
{
    int started = book.started, rc;
    *pages = book.pages;
    book.open = book.started = 0;
    if (!started) {
        remove(book.path);
        return sim_err_set(err, SIM_EINVAL, book.path, 0, "no pages");
    }
    plend();
    /* The book's name need not end in .pdf (a temporary name). */
    if ((rc = check_complete_as(book.path, "pdfcairo", err)) != SIM_OK)
        return rc;
    return pdf_fix_date(book.path, err);
}

int plot_begin(const char *path, int w, int h, sim_err *err)
{
    const char *dev = plot_device_for(path);
    FILE *f;
    if (book.open) {
        plot_meta_reset();
        if (!book.started) {
            pdf_zone_utc();
            plsdev("pdfcairo");
            plsfnam(book.path);
            plspage(0.0, 0.0, w, h, 0, 0);
            plscolbg(255, 255, 255);
            plinit();
            book.started = 1;
        } else {
            /* A new page of the same stream: end the last one, begin. */
            pleop();
            plbop();
        }
        book.pages++;
        plscol0(1, 0, 0, 0);
        plcol0(1);
        return SIM_OK;
    }
    if (!plot_has_device(dev))
        return sim_err_set(
            err, SIM_EIO, path, 0,
            "PLplot device %s is not installed (plplot-driver-cairo)", dev);
    /* PLplot calls exit(1) when it cannot open the output file, so the path is
     * tried here first and an error returned instead (deps-notes.md 4.4). The
     * empty file this leaves is overwritten by the chart. */
    f = fopen(path, "wb");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot write plot file");
    fclose(f);
    plot_meta_reset();
    if (strcmp(dev, "pdfcairo") == 0)
        pdf_zone_utc();
    plsdev(dev);
    plsfnam(path);
    plspage(0.0, 0.0, w, h, 0, 0);
    /* The background must be set before plinit and colour 1 after it, or every
     * chart comes out black with red axes (deps-notes.md 4.2). */
    plscolbg(255, 255, 255);
    plinit();
    plscol0(1, 0, 0, 0);
    plcol0(1);
    return SIM_OK;
}

/* Colour 15 is the one scratch entry; the charts' fixed colours live in indices
 * below it and the source colours above it (plot_charts.c). */
void plot_color(int r, int g, int b)
{
    plscol0(15, r, g, b);
    plcol0(15);
}

void plot_end(void)
{
    if (!book.open)
        plend();
}

/* Only the file's tail is read: each format ends with a fixed marker (PNG's
 * IEND chunk with its CRC, SVG's closing tag, PDF's %%EOF), and a truncated
 * write loses exactly the end. An incomplete chart is removed and reported, so
 * a write that cairo truncated silently never survives as a chart. */
static int check_complete_as(const char *path, const char *dev, sim_err *err)
{
    static const unsigned char png_end[8] = {'I',  'E',  'N',  'D',
                                             0xAE, 0x42, 0x60, 0x82};
    unsigned char tail[64];
    size_t n = 0;
    long len;
    int ok = 0;
    FILE *f = fopen(path, "rb");
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0) {
        long from = len > (long)sizeof tail ? len - (long)sizeof tail : 0;
        if (fseek(f, from, SEEK_SET) == 0)
            n = fread(tail, 1, sizeof tail, f);
    }
    if (f)
        fclose(f);
    if (strcmp(dev, "pngcairo") == 0) {
        ok = n >= 8 && memcmp(tail + n - 8, png_end, 8) == 0;
    } else {
        const char *want = strcmp(dev, "svgcairo") == 0 ? "</svg>" : "%%EOF";
        size_t w = strlen(want);
        for (size_t i = 0; i + w <= n && !ok; i++)
            ok = memcmp(tail + i, want, w) == 0;
    }
    if (ok)
        return SIM_OK;
    remove(path);
    return sim_err_set(
        err, SIM_EIO, path, 0,
        "chart file incomplete after writing (disk full or a file "
        "size limit?); removed");
}

int plot_check_complete(const char *path, sim_err *err)
{
    const char *dev = plot_device_for(path);
    int rc;
    if (book.open) /* a page of the book: checked when it closes */
        return SIM_OK;
    /* A PDF chart gets the fixed date too, so every format is reproducible. */
    if ((rc = check_complete_as(path, dev, err)) != SIM_OK ||
        strcmp(dev, "pdfcairo") != 0)
        return rc;
    return pdf_fix_date(path, err);
}

/* The first eight colours of matplotlib's "tab10" palette, chosen for being
 * distinguishable; the ninth GPU onwards is not plotted (see below). */
static const int palette[][3] = {
    {31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127}};

/* One function because a parity chart is one page whose parts share the point
 * set: the GPUs are collected first (for colours and the legend), the axes are
 * fixed from every point before anything is drawn, then the y = x and +-10 %
 * lines, the points per GPU and the legend. Points are drawn in log10 space
 * because throughputs span two orders of magnitude across GPUs. At most 8 GPUs
 * get a colour; rows of further GPUs are left out of the chart, which is
 * acceptable for a diagnostic chart of a calibration set of a few GPU types. */
int plot_parity(const char *path, const calib_row *rows, size_t n,
                const double *pred, const char *title, sim_err *err)
{
    const char *gpus[8];
    int ng = 0, rc;
    double lo = INFINITY, hi = 0;
    PLFLT *x = sim_xmalloc((n ? n : 1) * sizeof *x),
          *y = sim_xmalloc((n ? n : 1) * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        int k;
        if (pred[i] <= 0 || rows[i].meas_tps <= 0)
            continue;
        for (k = 0; k < ng; k++)
            if (strcmp(gpus[k], rows[i].gpu->name) == 0)
                break;
        if (k == ng && ng < 8)
            gpus[ng++] = rows[i].gpu->name;
        lo = fmin(lo, fmin(pred[i], rows[i].meas_tps));
        hi = fmax(hi, fmax(pred[i], rows[i].meas_tps));
    }
    if (!(hi > 0)) {
        free(x);
        free(y);
        return sim_err_set(err, SIM_EINVAL, path, 0, "parity plot: no points");
    }
    if ((rc = plot_begin(path, 900, 800, err)) != SIM_OK) {
        free(x);
        free(y);
        return rc;
    }
    /* Round the log axis out to 0.2 decades so that ticks fall on round values
     * and no point sits on the frame. */
    lo = floor(log10(lo) * 5) / 5;
    hi = ceil(log10(hi) * 5) / 5;
    plenv(lo, hi, lo, hi, 1, 30);
    pllab("measured throughput [tokens/s/GPU]",
          "predicted throughput [tokens/s/GPU]", title);
    {
        PLFLT lx[2] = {lo, hi}, ly[2] = {lo, hi};
        plcol0(1);
        plline(2, lx, ly);
        pllsty(2);
        /* The dashed lines at +-10 % give the eye a scale: a point between
         * them is predicted within 10 %. In log space they are parallel. */
        ly[0] = lo + log10(1.1);
        ly[1] = hi + log10(1.1);
        plline(2, lx, ly);
        ly[0] = lo + log10(0.9);
        ly[1] = hi + log10(0.9);
        plline(2, lx, ly);
        pllsty(1);
    }
    for (int k = 0; k < ng; k++) {
        int m = 0;
        for (size_t i = 0; i < n; i++)
            if (pred[i] > 0 && rows[i].meas_tps > 0 &&
                strcmp(rows[i].gpu->name, gpus[k]) == 0) {
                x[m] = log10(rows[i].meas_tps);
                y[m] = log10(pred[i]);
                m++;
            }
        plot_color(palette[k][0], palette[k][1], palette[k][2]);
        plssym(0.0, 0.8);
        plpoin(m, x, y, 17);
    }
    {
        PLINT opt[10], tcol[10], lcol[10], lsty[10], scol[10], snum[10];
        PLFLT lwid[10], sscale[10];
        const char *text[10], *sym[10];
        PLFLT lw, lh;
        int nl = ng + 1;
        for (int k = 0; k < ng; k++) {
            opt[k] = PL_LEGEND_SYMBOL;
            plscol0(2 + k, palette[k][0], palette[k][1], palette[k][2]);
            tcol[k] = 1;
            scol[k] = 2 + k;
            snum[k] = 1;
            sscale[k] = 1.0;
            sym[k] = "#(229)";
            text[k] = gpus[k];
            lcol[k] = 1;
            lsty[k] = 1;
            lwid[k] = 1.0;
        }
        opt[ng] = PL_LEGEND_LINE;
        tcol[ng] = lcol[ng] = 1;
        lsty[ng] = 2;
        lwid[ng] = 1.0;
        scol[ng] = 1;
        snum[ng] = 0;
        sscale[ng] = 1.0;
        sym[ng] = "";
        text[ng] = "y = x +-10%";
        plcol0(1);
        pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE, 0.02,
                 0.02, 0.1, 0, 1, 1, 0, 0, nl, opt, 1.0, 1.0, 2.0, 1.0, tcol,
                 text, NULL, NULL, NULL, NULL, lcol, lsty, lwid, scol, sscale,
                 snum, sym);
    }
    plot_end();
    free(x);
    free(y);
    return plot_check_complete(path, err);
}
