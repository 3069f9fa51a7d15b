/* models/powerdyn.c: a job's sub-second power waveform, the synthesis of a
 * window of site power and its figures (models/powerdyn.h; docs/power-model.md
 * 9).
 *
 * Owns: the waveform of a step (phase order, levels from models/load.h),
 * bin-mean synthesis, Welch band RMS, the ramp-limit battery. Must never:
 * know about sites, jobs' states or the event engine (models/site_powerdyn.c
 * turns a run into waves), and never choose power levels of its own: every
 * level comes from load.h, so a window's mean is the accounting power. */
#include "models/powerdyn.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_real.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/err.h"
#include "sim/mem.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void pd_wave_const(pd_wave *w, double power_w)
{
    memset(w, 0, sizeof *w);
    w->mb_seg = -1;
    w->n_seg = 1;
    w->dur_s[0] = 1.0;
    w->w0[0] = w->w1[0] = power_w;
}

void pd_wave_step(pd_wave *w, const load_cfg *lc, num_fmt fmt,
                  const load_step *st, double gpu_mean_w, double other_w,
                  double rack_smooth, double offset_s)
{
    load_shape sh;
    load_step st2 = st ? *st : (load_step){0, 0, 0, 0, 0};
    double f_gpu = load_step_gpu_frac(lc, fmt, st);
    double k = f_gpu > 0 ? gpu_mean_w / f_gpu : 0.0;
    double mean = gpu_mean_w + other_w, T;
    /* Micro-batch structure: the exposed p2p moves from the step's end
     * into the compute phase, as gaps between its chunks (same times at
     * the same levels, so the mean is unchanged). Left out under NVML
     * smoothing, whose shape is computed on the phases alone. */
    int mb = st && st->n_chunks >= 2 && st->pp_s > 0 &&
             st->pp_s <= st->comm_s && st->compute_s > 0 &&
             !load_smoothing_on(lc);
    if (mb) {
        st2.compute_s += st->pp_s;
        st2.comm_s -= st->pp_s;
    }
    /* The phases, their order and levels (and any ramps) are load.c's, so
     * the wave's mean is the accounting's f_gpu by construction. */
    load_step_shape(lc, fmt, &st2, &sh);
    pd_wave_const(w, mean);
    if (sh.n <= 1)
        return;
    w->n_seg = sh.n;
    for (int i = 0; i < sh.n; i++) {
        w->dur_s[i] = sh.dur_s[i];
        /* Rack storage leaves rack_smooth of the deviation from the mean. */
        w->w0[i] = mean + rack_smooth * (other_w + k * sh.u0[i] - mean);
        w->w1[i] = mean + rack_smooth * (other_w + k * sh.u1[i] - mean);
    }
    if (mb) {
        /* The compute piece: the second when there is a fill, else the
         * first (load_step_shape's order). */
        w->mb_seg = st->bubble_s > 0 ? 1 : 0;
        w->mb_n = st->n_chunks;
        w->mb_gap_s = st->pp_s / st->n_chunks;
        w->mb_gap_w =
            mean + rack_smooth *
                       (other_w + k * load_phase_u(lc, fmt, lc->u_comm) - mean);
    }
    T = pd_wave_period_s(w);
    w->offset_s = fmod(offset_s, T);
    if (w->offset_s < 0)
        w->offset_s += T;
}

double pd_wave_period_s(const pd_wave *w)
{
    double T = 0;
    for (int i = 0; i < w->n_seg; i++)
        T += w->dur_s[i];
    return T;
}

/* Time the micro-batch gaps take out of segment i [s]. */
static double gaps_s(const pd_wave *w, int i)
{
    return w->mb_seg == i && w->mb_n > 0 ? w->mb_n * w->mb_gap_s : 0.0;
}

double pd_wave_mean_w(const pd_wave *w)
{
    double e = 0, T = pd_wave_period_s(w);
    for (int i = 0; i < w->n_seg; i++) {
        double g = gaps_s(w, i);
        e += (w->dur_s[i] - g) * 0.5 * (w->w0[i] + w->w1[i]) + g * w->mb_gap_w;
    }
    return T > 0 ? e / T : 0.0;
}

double pd_wave_hi_w(const pd_wave *w)
{
    double h = -INFINITY;
    for (int i = 0; i < w->n_seg; i++)
        h = fmax(h, fmax(w->w0[i], w->w1[i]));
    return w->n_seg ? h : 0.0;
}

double pd_wave_lo_w(const pd_wave *w)
{
    double l = INFINITY;
    for (int i = 0; i < w->n_seg; i++)
        l = fmin(l, fmin(w->w0[i], w->w1[i]));
    if (w->mb_seg >= 0 && w->mb_n > 0)
        l = fmin(l, w->mb_gap_w);
    return w->n_seg ? l : 0.0;
}

/* Integral of max(0, y - m) over a piece going linearly from a to b in d
 * seconds: the part above m is a trapezoid or a triangle. */
static double excess_piece(double a, double b, double d, double m)
{
    double pa = a - m, pb = b - m;
    if (pa >= 0 && pb >= 0)
        return d * 0.5 * (pa + pb);
    if (pa <= 0 && pb <= 0)
        return 0.0;
    /* One end above: the triangle over the crossing's fraction of d. */
    {
        double hi = pa > 0 ? pa : pb, lo = pa > 0 ? pb : pa;
        return 0.5 * hi * d * hi / (hi - lo);
    }
}

double pd_wave_excess_j(const pd_wave *w)
{
    double m = pd_wave_mean_w(w), e = 0;
    /* A segment with micro-batch gaps is constant (no smoothing), so its
     * gaps come off its length and count as their own level. */
    for (int i = 0; i < w->n_seg; i++) {
        double g = gaps_s(w, i);
        e += excess_piece(w->w0[i], w->w1[i], w->dur_s[i] - g, m);
        if (g > 0)
            e += excess_piece(w->mb_gap_w, w->mb_gap_w, g, m);
    }
    return e;
}

double pd_rack_smooth(double storage_j, double need_j)
{
    if (!(storage_j > 0))
        return 1.0;
    if (!(need_j > storage_j))
        return 0.0;
    return 1.0 - storage_j / need_j;
}

/* Adds power going linearly from p0 at t0 with slope sl [W/s] over
 * [a, b) to the bin means of x (bins of dt_s): each bin gets the exact
 * integral of its part (the trapezoid) over dt_s. */
static void add_interval(double *x, size_t n, double dt_s, double a, double b,
                         double t0, double p0, double sl)
{
    double end = dt_s * (double)n;
    size_t i;
    if (a < 0)
        a = 0;
    if (b > end)
        b = end;
    if (!(b > a))
        return;
    i = (size_t)(a / dt_s);
    while (i < n && a < b) {
        double bin_end = dt_s * (double)(i + 1);
        double e = b < bin_end ? b : bin_end;
        double pm = p0 + sl * (0.5 * (a + e) - t0);
        /* A constant over a whole bin adds itself: the common case, kept
         * free of the multiply and divide (perf: the synthesis is the
         * analysis' largest cost after the FFT). */
        if (sl == 0 && a == dt_s * (double)i && e == bin_end)
            x[i] += p0;
        else
            x[i] += pm * (e - a) / dt_s;
        a = e;
        i++;
    }
}

/* Adds the piece (t0, p0, slope sl) over [a, b) outside the hold [hf, ht)
 * of a wave. */
static void add_outside(double *x, size_t n, double dt_s, double a, double b,
                        double hf, double ht, double t0, double p0, double sl)
{
    if (!(ht > hf)) {
        add_interval(x, n, dt_s, a, b, t0, p0, sl);
        return;
    }
    add_interval(x, n, dt_s, a, b < hf ? b : hf, t0, p0, sl);
    add_interval(x, n, dt_s, a > ht ? a : ht, b, t0, p0, sl);
}

/* Adds segment s of v, which started at t0 (absolute, may be before a),
 * over [a, b): chunk by chunk when it holds micro-batch gaps (a chunk of
 * P = dur / mb_n at the segment's level, its last mb_gap_s at the gap's),
 * else as one linear piece. */
static void add_segment(double *x, size_t n, double dt_s, const pd_wave *v,
                        int s, double t0, double a, double b)
{
    double hf = v->hold_from_s, ht = v->hold_to_s;
    if (v->mb_seg == s && v->mb_n > 0) {
        double P = v->dur_s[s] / v->mb_n, g = v->mb_gap_s;
        long j0 = (long)floor((a - t0) / P), j1 = (long)ceil((b - t0) / P);
        if (j0 < 0)
            j0 = 0;
        if (j1 > v->mb_n)
            j1 = v->mb_n;
        /* The level over the whole span, then each gap's difference: a
         * gap (a few ms) touches one or two bins, so the cost is the
         * span's bins plus two per chunk, not a full interval per chunk
         * (perf: the per-chunk intervals were 6 % of a 100 MW run). */
        add_outside(x, n, dt_s, a, b, hf, ht, 0.0, v->w0[s], 0.0);
        for (long j = j0; j < j1; j++) {
            double ce = t0 + (double)(j + 1) * P, ge = ce - g;
            add_outside(x, n, dt_s, fmax(a, ge), fmin(b, ce), hf, ht, 0.0,
                        v->mb_gap_w - v->w0[s], 0.0);
        }
        return;
    }
    /* The piece's slope is over its whole length. */
    add_outside(x, n, dt_s, a, b, hf, ht, t0, v->w0[s],
                (v->w1[s] - v->w0[s]) / v->dur_s[s]);
}

/* Why a walk over segment edges rather than a sample-by-sample lookup: a
 * window has PD_N samples and a step a few segments, so walking the edges
 * costs O(n + edges) per wave, the cheapest exact bin mean. The phase runs
 * on through a hold, so the job comes back at the phase it would have had
 * (its clock does not stop; the offset is random anyway). */
void pd_synth(const pd_wave *w, size_t n_w, double const_w, double dt_s,
              double *x, size_t n)
{
    double end = dt_s * (double)n;
    for (size_t i = 0; i < n; i++)
        x[i] = const_w;
    for (size_t k = 0; k < n_w; k++) {
        const pd_wave *v = &w[k];
        double hf = v->hold_from_s, ht = v->hold_to_s;
        double t = 0, pos = v->offset_s;
        int s = 0;
        if (ht > hf)
            add_interval(x, n, dt_s, hf, ht, 0.0, v->hold_w, 0.0);
        if (v->n_seg <= 1) {
            add_outside(x, n, dt_s, 0, end, hf, ht, 0.0,
                        v->n_seg ? v->w0[0] : 0.0, 0.0);
            continue;
        }
        /* Find the segment holding the offset. */
        while (s < v->n_seg - 1 && pos >= v->dur_s[s]) {
            pos -= v->dur_s[s];
            s++;
        }
        while (t < end) {
            double left = v->dur_s[s] - pos;
            double e = t + (left > 0 ? left : 0);
            if (e > end)
                e = end;
            /* The segment started pos before t. */
            add_segment(x, n, dt_s, v, s, t - pos, t, e);
            t = e;
            pos = 0;
            s = (s + 1) % v->n_seg;
        }
    }
}

/* Scratch of the spectral analysis, allocated once per owner: GSL's
 * mixed-radix wavetable holds the FFT's twiddle factors, which the radix-2
 * routine recomputed with sin and cos on every call (about half the FFT's
 * cost in a 100 MW run, perf), and the Hann window is computed once. */
struct pd_ws {
    gsl_fft_real_wavetable *wt;
    gsl_fft_real_workspace *fw;
    double buf[PD_SEG], win[PD_SEG], psd[PD_PSD_N];
    double u; /* sum of win^2 */
};

pd_ws *pd_ws_new(void)
{
    pd_ws *w = sim_xcalloc(1, sizeof *w);
    const double c = 2.0 * M_PI / (double)PD_SEG;
    w->wt = gsl_fft_real_wavetable_alloc(PD_SEG);
    w->fw = gsl_fft_real_workspace_alloc(PD_SEG);
    if (!w->wt || !w->fw)
        sim_oom(PD_SEG * sizeof(double));
    for (size_t i = 0; i < PD_SEG; i++) {
        w->win[i] = 0.5 - 0.5 * cos(c * (double)i);
        w->u += w->win[i] * w->win[i];
    }
    return w;
}

void pd_ws_free(pd_ws *w)
{
    if (!w)
        return;
    gsl_fft_real_wavetable_free(w->wt);
    gsl_fft_real_workspace_free(w->fw);
    free(w);
}

/* Welch's one-sided PSD (header): Hann segments of PD_SEG, hop PD_SEG/2,
 * each segment's mean removed, |FFT|^2 scaled by 2 / (fs sum(w^2)) and
 * averaged over the segments. GSL's mixed-radix half-complex layout:
 * buf[2k-1] real, buf[2k] imaginary part of bin k, k in 1..m/2-1. */
int pd_welch_psd_ws(pd_ws *ws, const double *x, size_t n, double dt_s,
                    double *psd)
{
    const size_t m = PD_SEG, hop = PD_SEG / 2;
    double *buf = ws->buf, fs = 1.0 / dt_s;
    size_t nseg = 0;
    int rc = SIM_OK;
    for (size_t k = 0; k < PD_PSD_N; k++)
        psd[k] = 0;
    for (size_t s0 = 0; s0 + m <= n; s0 += hop, nseg++) {
        double mean = 0;
        for (size_t i = 0; i < m; i++)
            mean += x[s0 + i];
        mean /= (double)m;
        for (size_t i = 0; i < m; i++)
            buf[i] = (x[s0 + i] - mean) * ws->win[i];
        if (gsl_fft_real_transform(buf, 1, m, ws->wt, ws->fw) != GSL_SUCCESS) {
            rc = SIM_ENUMERIC;
            break;
        }
        for (size_t k = 1; k < m / 2; k++)
            psd[k] +=
                2.0 *
                (buf[2 * k - 1] * buf[2 * k - 1] + buf[2 * k] * buf[2 * k]) /
                (fs * ws->u);
    }
    for (size_t k = 0; k < PD_PSD_N; k++)
        psd[k] = nseg ? psd[k] / (double)nseg : 0.0;
    return rc;
}

int pd_welch_psd(const double *x, size_t n, double dt_s, double *psd)
{
    pd_ws *ws = pd_ws_new();
    int rc = pd_welch_psd_ws(ws, x, n, dt_s, psd);
    pd_ws_free(ws);
    return rc;
}

/* RMS of x in [f_lo, f_hi] Hz: the square root of the Welch PSD summed
 * over the bins in the band times the bin width. */
static int welch_bands(pd_ws *ws, const double *x, size_t n, double dt_s,
                       const double f_lo[2], const double f_hi[2],
                       double rms[2])
{
    double df = 1.0 / (dt_s * (double)PD_SEG), acc[2] = {0, 0};
    int rc = pd_welch_psd_ws(ws, x, n, dt_s, ws->psd);
    for (size_t k = 1; k < PD_PSD_N; k++) {
        double f = df * (double)k;
        for (int b = 0; b < 2; b++)
            if (f >= f_lo[b] && f <= f_hi[b])
                acc[b] += ws->psd[k] * df;
    }
    for (int b = 0; b < 2; b++)
        rms[b] = sqrt(acc[b]);
    return rc;
}

int pd_analyse(const double *x, size_t n, double dt_s, pd_stats *out)
{
    pd_ws *ws = pd_ws_new();
    int rc = pd_analyse_ws(ws, x, n, dt_s, out);
    pd_ws_free(ws);
    return rc;
}

int pd_analyse_ws(pd_ws *ws, const double *x, size_t n, double dt_s,
                  pd_stats *out)
{
    static const double f_lo[2] = {0.1, 3.0}, f_hi[2] = {2.0, 30.0};
    double s = 0, ss = 0, rms[2] = {0, 0};
    size_t lag = (size_t)lround(PD_RAMP_S / dt_s);
    memset(out, 0, sizeof *out);
    if (n == 0)
        return SIM_OK;
    if (lag < 1)
        lag = 1;
    out->peak_w = out->min_w = x[0];
    {
        /* The largest change first, divided once: the loop stays free of
         * divisions (it runs over every sample of every window). */
        double dmax = 0;
        for (size_t i = 0; i < n; i++) {
            out->peak_w = x[i] > out->peak_w ? x[i] : out->peak_w;
            out->min_w = x[i] < out->min_w ? x[i] : out->min_w;
            s += x[i];
        }
        for (size_t i = 0; i + lag < n; i++) {
            double d = fabs(x[i + lag] - x[i]);
            dmax = d > dmax ? d : dmax;
        }
        out->max_ramp_w_per_s = dmax / (dt_s * (double)lag);
    }
    out->mean_w = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - out->mean_w) * (x[i] - out->mean_w);
    out->std_w = sqrt(ss / (double)n);
    out->p2p_w = out->peak_w - out->min_w;
    if (n >= PD_SEG) {
        int rc = welch_bands(ws, x, n, dt_s, f_lo, f_hi, rms);
        if (rc != SIM_OK)
            return rc;
    }
    out->band_lo_rms_w = rms[0];
    out->band_hi_rms_w = rms[1];
    return SIM_OK;
}

/* 1 when a grid trace within e of x and ramping at most r per sample
 * exists: the reachable set of g(i) is an interval, carried forward. */
static int ramp_feasible(const double *x, size_t n, double r, double e)
{
    double lo = x[0] - e, hi = x[0] + e;
    for (size_t i = 1; i < n; i++) {
        lo = fmax(lo - r, x[i] - e);
        hi = fmin(hi + r, x[i] + e);
        if (lo > hi)
            return 0;
    }
    return 1;
}

double pd_ramp_battery_w(const double *x, size_t n, double dt_s,
                         double ramp_w_per_s)
{
    double lo = 0, hi, mx, mn, r = ramp_w_per_s * dt_s;
    if (!(ramp_w_per_s > 0) || n < 2)
        return 0.0;
    mx = mn = x[0];
    for (size_t i = 1; i < n; i++) {
        mx = fmax(mx, x[i]);
        mn = fmin(mn, x[i]);
    }
    if (ramp_feasible(x, n, r, 0.0))
        return 0.0;
    /* A flat trace at the midpoint is always feasible. */
    hi = 0.5 * (mx - mn);
    for (int it = 0; it < 50 && hi - lo > 1e-6 * (mx - mn) + 1e-9; it++) {
        double mid = 0.5 * (lo + hi);
        if (ramp_feasible(x, n, r, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
