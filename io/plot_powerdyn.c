/* io/plot_powerdyn.c: the power-dynamics chart (io/plot_charts.h,
 * plot_power_dynamics): a representative window of site power at 100 Hz,
 * with the scenario's smoothing and without, and the Welch spectrum of
 * each on log axes with the grid operators' bands marked (issue 21;
 * docs/power-model.md 14).
 *
 * Owns only the drawing: the samples come from the stored run
 * (res_pd_sample, the power_window table) and the spectrum from
 * models/powerdyn.h's pd_welch_psd, the same method as the stored band
 * figures, so the chart cannot disagree with them. Labels and units come
 * from the result-field table (models/resfield.h). Must never compute a
 * figure of its own or read a scenario. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "models/powerdyn.h"
#include "models/resfield.h"
#include "sim/mem.h"

#define PDC_MINUTE_S 60.0 /* the time panel's span */

/* The grid operators' bands (facts-power-dynamics.md 2.1), drawn as
 * dashed verticals with their names. */
static const double band_edge_hz[4] = {0.1, 2.0, 3.0, 30.0};

/* Label of field name in the pd_sample table with its display unit:
 * "facility power [MW]". */
static void field_label(const char *fname, char *buf, size_t n,
                        double *per /* OUT: SI per display unit */)
{
    int f =
        resfield_find(resfield_pd_sample, resfield_n_pd_sample, fname, NULL);
    const resfield *r = &resfield_pd_sample[f < 0 ? 0 : f];
    snprintf(buf, n, "%s [%s]", r->label, r->disp_unit);
    *per = r->disp_per;
}

/* The label of field fname of the pd_sample table. */
static const char *field_name_label(const char *fname)
{
    int f =
        resfield_find(resfield_pd_sample, resfield_n_pd_sample, fname, NULL);
    return resfield_pd_sample[f < 0 ? 0 : f].label;
}

/* Why two panels on one page and not two charts: the time trace and its
 * spectrum describe the same window, and a reader compares the smoothed and
 * bare lines in both at once. The spectrum's first bin (the mean) is left
 * out: each Welch segment's mean is removed, so it is 0 and has no log. */
int plot_power_dynamics(const char *path, const res_pd_sample *s, size_t n,
                        const char *smooth_label, const char *title,
                        sim_err *err)
{
    const double dt = n > 1 ? s[1].t_s - s[0].t_s : 0.0;
    size_t nm;
    double per, lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;
    double *psd[2];
    PLFLT *x, *y;
    char ylab[96], lab0[96], lab1[96];
    plot_legend L;
    int rc;
    if (n < PD_SEG || !(dt > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "power dynamics chart: no representative window "
                           "stored (analysis off, or no job trained)");
    nm = (size_t)llround(PDC_MINUTE_S / dt);
    if (nm > n)
        nm = n;
    field_label("power_w", ylab, sizeof ylab, &per);
    psd[0] = sim_xmalloc(PD_PSD_N * sizeof(double));
    psd[1] = sim_xmalloc(PD_PSD_N * sizeof(double));
    x = sim_xmalloc((n > PD_PSD_N ? n : PD_PSD_N) * sizeof *x);
    y = sim_xmalloc((n > PD_PSD_N ? n : PD_PSD_N) * sizeof *y);
    rc = SIM_OK;
    for (int v = 0; v < 2 && rc == SIM_OK; v++) {
        for (size_t i = 0; i < n; i++)
            x[i] = v ? s[i].power_unsmoothed_w : s[i].power_w;
        for (size_t i = 0; i < nm; i++) {
            lo = fmin(lo, x[i] / per);
            hi = fmax(hi, x[i] / per);
        }
        if ((rc = pd_welch_psd(x, n, dt, psd[v])) != SIM_OK)
            break;
        /* PSD in the display unit squared per Hz. */
        for (size_t k = 1; k < PD_PSD_N; k++) {
            psd[v][k] /= per * per;
            if (psd[v][k] > 0) {
                plo = fmin(plo, psd[v][k]);
                phi = fmax(phi, psd[v][k]);
            }
        }
    }
    if (rc != SIM_OK) {
        rc = sim_err_set(err, SIM_ENUMERIC, path, 0,
                         "power dynamics chart: the FFT failed");
        goto done;
    }
    if (!(phi > 0)) /* a flat window: draw the spectrum's floor */
        plo = 1e-12, phi = 1e-11;
    /* Six decades: the bands of interest sit within a few decades of the
     * peak, and below that the floor is window leakage. */
    plo = fmax(plo, phi * 1e-6);
    if (!(hi > lo))
        hi = lo + 1.0;
    if ((rc = plot_page(path, err)) != SIM_OK)
        goto done;
    plot_page_title(title);
    memset(&L, 0, sizeof L);
    /* Top: the first minute of the window. */
    plot_panel(VP_X0, VP_X1, 0.58, 0.90, 0, (double)nm * dt,
               lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo),
               "time in the window [s]", ylab,
               "a representative minute of site power (100 Hz)", NULL, NULL);
    snprintf(lab0, sizeof lab0, "%s (%s)", field_name_label("power_w"),
             smooth_label);
    snprintf(lab1, sizeof lab1, "%s", field_name_label("power_unsmoothed_w"));
    for (int v = 1; v >= 0; v--) {
        for (size_t i = 0; i < nm; i++) {
            x[i] = s[i].t_s;
            y[i] = (v ? s[i].power_unsmoothed_w : s[i].power_w) / per;
        }
        plcol0(v ? PC_GREY : PC_BLUE);
        plwidth(v ? 1.0 : 1.5);
        plline((PLINT)nm, x, y);
    }
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLUE, 1, 1.5, lab0);
    plot_leg_add(&L, PL_LEGEND_LINE, PC_GREY, 1, 1.0, lab1);
    /* Bottom: Welch PSD of the whole window, log-log. */
    {
        double df = 1.0 / (dt * (double)PD_SEG);
        double fx0 = log10(df), fx1 = log10(0.5 / dt);
        double y0 = floor(log10(plo)), y1 = ceil(log10(phi));
        char plab[128];
        int f = resfield_find(resfield_pd_sample, resfield_n_pd_sample,
                              "power_w", NULL);
        snprintf(plab, sizeof plab, "PSD [%s^2/Hz]",
                 resfield_pd_sample[f < 0 ? 0 : f].disp_unit);
        plot_panel(VP_X0, VP_X1, 0.11, 0.45, fx0, fx1, y0, y1, "frequency [Hz]",
                   plab, "spectrum: Welch PSD, Hann 20.48 s, 50 % overlap",
                   "bclnst", "bclst");
        /* Exponent labels every second decade, written here because PLplot
         * labels every decade of a log axis whatever the tick interval, and
         * one per decade overlaps at this panel height. */
        plcol0(PC_BLACK);
        for (double d = y1; d >= y0 - 1e-9; d -= 2.0) {
            char dl[32];
            snprintf(dl, sizeof dl, "10#u%d#d", (int)d);
            plmtex("l", 1.0, (d - y0) / (y1 - y0), 0.5, dl);
        }
        for (int b = 0; b < 4; b++) {
            PLFLT bx[2], by[2];
            bx[0] = bx[1] = log10(band_edge_hz[b]);
            by[0] = y0;
            by[1] = y1;
            plcol0(PC_ORANGE);
            pllsty(2);
            plline(2, bx, by);
        }
        pllsty(1);
        plcol0(PC_BLACK);
        plptex(0.5 * (log10(0.1) + log10(2.0)), y1 - 0.06 * (y1 - y0), 1, 0,
               0.5, "0.1-2 Hz");
        plptex(0.5 * (log10(3.0) + log10(30.0)), y1 - 0.06 * (y1 - y0), 1, 0,
               0.5, "3-30 Hz");
        for (int v = 1; v >= 0; v--) {
            size_t m = 0;
            for (size_t k = 1; k < PD_PSD_N; k++)
                if (psd[v][k] > 0) {
                    x[m] = log10(df * (double)k);
                    y[m++] = log10(fmax(psd[v][k], plo));
                }
            plcol0(v ? PC_GREY : PC_BLUE);
            plwidth(v ? 1.0 : 1.5);
            if (m >= 2)
                plline((PLINT)m, x, y);
        }
        plwidth(1.0);
        plot_leg_add(&L, PL_LEGEND_LINE, PC_ORANGE, 2, 1.0,
                     "band edges 0.1, 2, 3, 30 Hz");
    }
    plot_leg_draw(&L);
    rc = plot_finish(path, err);
done:
    free(psd[0]);
    free(psd[1]);
    free(x);
    free(y);
    return rc;
}
