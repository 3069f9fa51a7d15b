/* io/plot.c: PLplot setup shared through plot_int.h, and the parity plot.
 * Colours are a fixed palette indexed by GPU order of first appearance, so
 * the same rows give the same bytes. */
#include "io/plot.h"

#include <math.h>
#include <plplot.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/plot_int.h"
#include "sim/mem.h"

const char *plot_device_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcasecmp(dot, ".svg") == 0)
        return "svgcairo";
    if (dot && strcasecmp(dot, ".pdf") == 0)
        return "pdfcairo";
    return "pngcairo";
}

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

int plot_begin(const char *path, int w, int h, sim_err *err)
{
    const char *dev = plot_device_for(path);
    FILE *f;
    if (!plot_has_device(dev))
        return sim_err_set(
            err, SIM_EIO, path, 0,
            "PLplot device %s is not installed (plplot-driver-cairo)", dev);
    f = fopen(path, "wb");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot write plot file");
    fclose(f);
    plsdev(dev);
    plsfnam(path);
    plspage(0.0, 0.0, w, h, 0, 0);
    plscolbg(255, 255, 255);
    plinit();
    plscol0(1, 0, 0, 0);
    plcol0(1);
    return SIM_OK;
}

void plot_color(int r, int g, int b)
{
    plscol0(15, r, g, b);
    plcol0(15);
}

void plot_end(void)
{
    plend();
}

int plot_check_complete(const char *path, sim_err *err)
{
    static const unsigned char png_end[8] = {'I',  'E',  'N',  'D',
                                             0xAE, 0x42, 0x60, 0x82};
    const char *dev = plot_device_for(path);
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

static const int palette[][3] = {
    {31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127}};

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
