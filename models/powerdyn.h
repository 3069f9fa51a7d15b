/* models/powerdyn.h: training power dynamics (issue 21), an analysis of a
 * site's sub-second power over short representative windows, fed by the
 * run's jobs, step phases and events; never a year at millisecond
 * resolution. See docs/power-model.md 14.
 *
 * Model. A training job's IT power is a periodic, piecewise-linear
 * waveform (pd_wave; piecewise-constant unless ramp limits are set): each step
 * of period T = compute_s + comm_s + bubble_s runs pipeline fill (half the
 * bubble), compute, drain (the other half) and the exposed communication (the
 * gradient synchronisation at the step's end), at the GPU levels the energy
 * accounting uses (models/load.h: u_compute, u_comm, u_bubble, each held at or
 * above the GPU power floor), so its mean over whole periods is the accounting
 * power of the step exactly. Jobs are unsynchronised: each has its own phase
 * offset in [0, T). A window may hold a job at a constant over an interval,
 * entered and left within one sample: from the middle on at idle (a failure),
 * for the write time at the checkpoint level, or idle until the middle (a
 * restart's end).
 *
 * Sampling. The window is sampled at PD_FS_HZ = 100 Hz (Nyquist 50 Hz,
 * above the 3-30 Hz band) as exact bin means of the waveform (what an
 * averaging meter reports), PD_N = 8192 samples (81.92 s).
 *
 * Figures (pd_stats): peak, minimum, mean, standard deviation and
 * peak-to-peak of the samples; the largest ramp, |x(t + 0.1 s) - x(t)| /
 * 0.1 s (a 10 Hz view: the 10 ms edge of a phase change is the sampling's,
 * not the hardware's); and the RMS in the 0.1-2 Hz and 3-30 Hz bands, the
 * square root of Welch's one-sided PSD integrated over the band (Hann
 * segments of PD_SEG = 2048 samples, 20.48 s, df = 0.049 Hz, 50 % overlap,
 * each segment's mean removed; Welch 1967, IEEE Trans. Audio
 * Electroacoust. 15(2)), with GSL's real mixed-radix FFT (wavetable kept
 * in a pd_ws).
 *
 * Ramp limit. pd_ramp_battery_w gives the least battery power that keeps
 * the grid's draw within a ramp limit R: the smallest e such that a grid
 * trace g with |g - x| <= e and |g(i+1) - g(i)| <= R dt exists, found by
 * bisection on e with the exact forward interval test (the reachable set
 * of g(i) is an interval).
 *
 * All functions are pure; cost O(n) per wave per window (synthesis walks
 * segment edges), O(n log n) for the spectrum.
 */
#ifndef MODELS_POWERDYN_H
#define MODELS_POWERDYN_H

#include <stddef.h>

#include "models/load.h"

#define PD_FS_HZ 100.0            /* samples per second */
#define PD_N 8192                 /* samples per window (81.92 s) */
#define PD_SEG 2048               /* Welch segment (20.48 s), a power of 2 */
#define PD_RAMP_S 0.1             /* ramp measured over this interval */
#define PD_SEG_MAX LOAD_SHAPE_MAX /* pieces of one step */

/* One job's waveform in a window: linear pieces (constant ones without
 * NVML-style ramp limits, load_step_shape). */
typedef struct pd_wave {
    int n_seg;                /* 1..PD_SEG_MAX; 1 = constant */
    double dur_s[PD_SEG_MAX]; /* segment lengths, > 0 (sum: the period) */
    double w0[PD_SEG_MAX];    /* IT power at each segment's start [W] */
    double w1[PD_SEG_MAX];    /* ... and at its end (linear between) */
    double offset_s;          /* position in the period at t = 0 */
    /* Micro-batch structure: segment mb_seg (-1: none) is mb_n chunks,
     * each ending in a gap of mb_gap_s at mb_gap_w (the exposed pipeline
     * point-to-point between chunks; load_step.pp_s / n_chunks). */
    int mb_seg, mb_n;
    double mb_gap_s, mb_gap_w;
    double hold_from_s; /* over [hold_from_s, hold_to_s) the job */
    double hold_to_s;   /* holds hold_w instead (an event); */
    double hold_w;      /* from = to: none */
} pd_wave;

/* A window's figures [W, W/s]. */
typedef struct pd_stats {
    double peak_w, min_w, mean_w, std_w, p2p_w;
    double max_ramp_w_per_s;
    double band_lo_rms_w; /* 0.1-2 Hz */
    double band_hi_rms_w; /* 3-30 Hz */
} pd_stats;

/* The waveform of a job training with step phases st: its GPUs draw
 * gpu_mean_w on average over the step (the accounting's GPU power, at
 * load_step_gpu_frac), the rest other_w constantly; the GPU power follows
 * the step's shape (load_step_shape: the phase levels, ramp-limited when
 * the policy sets NVML-style rates) as gpu_mean_w x u(t) / f_gpu. A step of
 * zero length gives a constant. rack_smooth in [0, 1] scales the deviation from
 * the mean (1: none; rack storage, pd_rack_smooth). offset_s is taken modulo
 * the period. */
void pd_wave_step(pd_wave *w, const load_cfg *lc, num_fmt fmt,
                  const load_step *st, double gpu_mean_w, double other_w,
                  double rack_smooth, double offset_s);

/* A constant waveform of power_w. */
void pd_wave_const(pd_wave *w, double power_w);

/* Period [s] and mean over a period [W] of w (before any switch). */
double pd_wave_period_s(const pd_wave *w);
double pd_wave_mean_w(const pd_wave *w);
/* Highest and lowest segment power [W] of w (before any switch). */
double pd_wave_hi_w(const pd_wave *w);
double pd_wave_lo_w(const pd_wave *w);

/* Rack storage smoothing: the factor by which a job's deviation from its
 * mean is left when each system holds storage_j [J] against a per-system
 * waveform whose energy above its mean per period is need_j: 0 when
 * storage_j >= need_j (flat), 1 - storage_j / need_j otherwise. */
double pd_rack_smooth(double storage_j, double need_j);
/* Energy above the mean per period of w [J] (what storage must hold to
 * flatten it). */
double pd_wave_excess_j(const pd_wave *w);

/* x[0..n) = const_w + sum of the waves, each as the mean over bin
 * [i dt, (i+1) dt). */
void pd_synth(const pd_wave *w, size_t n_w, double const_w, double dt_s,
              double *x, size_t n);

/* Scratch for the spectral analysis (FFT wavetable, Hann window,
 * buffers): pd_analyse_ws and pd_welch_psd_ws reuse one per owner (one per
 * run: not shared between threads). pd_ws_free(NULL) is a no-op. */
typedef struct pd_ws pd_ws;
pd_ws *pd_ws_new(void);
void pd_ws_free(pd_ws *ws);

/* Figures of x[0..n) sampled at dt_s into *out (OUT). The bands use
 * Welch's method when n >= PD_SEG (else they are 0). Allocates two PD_SEG
 * scratch buffers. Errors: SIM_ENUMERIC if the FFT fails. */
int pd_analyse(const double *x, size_t n, double dt_s, pd_stats *out);
/* The same with the caller's scratch ws (no allocation). */
int pd_analyse_ws(pd_ws *ws, const double *x, size_t n, double dt_s,
                  pd_stats *out);

#define PD_PSD_N (PD_SEG / 2) /* PSD bins: k df, k = 0..PD_PSD_N-1 */

/* Welch's one-sided power spectral density of x[0..n) sampled at dt_s
 * into psd[0..PD_PSD_N) (OUT) [W^2/Hz], bin k at k / (PD_SEG dt_s) Hz (bin
 * 0, the mean, is 0: each segment's mean is removed). The method the band
 * RMS figures use (header above). All 0 when n < PD_SEG. Errors:
 * SIM_ENUMERIC if the FFT fails. */
int pd_welch_psd(const double *x, size_t n, double dt_s, double *psd);
int pd_welch_psd_ws(pd_ws *ws, const double *x, size_t n, double dt_s,
                    double *psd);

/* Least battery power [W] for the grid's draw to meet ramp limit
 * ramp_w_per_s over x[0..n) (0 when already met); ramp_w_per_s <= 0
 * means no limit (0). */
double pd_ramp_battery_w(const double *x, size_t n, double dt_s,
                         double ramp_w_per_s);

#endif
