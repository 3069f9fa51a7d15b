/* io/plot_charts.h: the run charts, drawn with PLplot through the setup
 * shared in io/plot_int.h (device and output-path pre-checks, white page).
 *
 * Inputs are the plain result structs of models/results.h in SI units;
 * axes are converted at drawing time and always carry their unit (time in
 * hours below two days of span, else days; power in kW below 1 MW, else
 * MW; energy in MWh; state of charge in %). Every chart has a title and a
 * legend. The format follows the extension of path (.png, .svg, .pdf; PNG
 * otherwise); pages are PLOT_CHART_W x PLOT_CHART_H (pixels for PNG, points
 * for SVG/PDF). The same input gives byte-identical PNG and SVG files (PDF
 * embeds its creation date). PLplot keeps global state: one chart at a
 * time per process, not thread-safe.
 *
 * Errors, for every function: SIM_EIO when the device is missing or path
 * cannot be written ("FILE: cannot write plot file"; nothing is drawn, and
 * PLplot never gets the chance to exit the process), SIM_EINVAL when there
 * is nothing to draw (the message says what is missing).
 */
#ifndef IO_PLOT_CHARTS_H
#define IO_PLOT_CHARTS_H

#include <stddef.h>

#include "models/results.h"
#include "models/stats.h"
#include "sim/err.h"

#define PLOT_CHART_W 1200
#define PLOT_CHART_H 700

/* The power stack and the other views over the whole per-step series are in
 * io/plot_views.h. */

/* Battery state of charge and state of health [%] over time (calendar
 * dates when t0_unix_s, the start as Unix seconds, is finite). Errors also
 * SIM_EINVAL when no step has a state of charge (the site has no battery). */
int plot_battery_soc(const char *path, const res_step *steps, size_t n,
                     double t0_unix_s, const char *title, sim_err *err);

/* Job timeline (Gantt), one row per job: queued (submit to start), training,
 * recovering after an interruption (interrupt to restart), paused or shed
 * for lack of power (to resume or restart), and a marker at every
 * interruption. ev (the log of one replication, time order, may be NULL
 * with n_ev = 0) supplies interruptions and pauses; without it the bars
 * come from jobs[] alone. A job still running at the horizon is drawn up to
 * horizon_s. names[j] labels job j. The time axis spans the jobs (first
 * submission to last end), in calendar dates when t0_unix_s is known;
 * commissioning times inside it are marked. Legend entries appear only for
 * what the chart shows (no "Recovering" without an interruption). */
typedef struct plot_gantt_ctx {
    double horizon_s;           /* simulated horizon [s], > 0 */
    double t0_unix_s;           /* start as Unix seconds; NAN: unknown */
    const double *commission_s; /* module commissioning times [s] */
    size_t n_commission;
} plot_gantt_ctx;

int plot_gantt(const char *path, const char *const *names, const res_job *jobs,
               size_t n_jobs, const res_event *ev, size_t n_ev,
               const plot_gantt_ctx *ctx, const char *title, sim_err *err);

/* Distribution of one job's time to train across replications (histogram,
 * in days) with P10, P50 and P90 marked (models/stats.h percentiles) and
 * the count of replications that finished. ttt_s[i] NAN = replication i did
 * not finish. Errors also SIM_EINVAL when none finished. */
int plot_time_to_train(const char *path, const char *job_name,
                       const double *ttt_s, size_t n, const char *title,
                       sim_err *err);

/* Training power dynamics (issue 21): the first minute of the
 * representative window s[0..n) (res_pd_sample, 100 Hz) with the
 * scenario's smoothing (named smooth_label in the legend) and without, and
 * both windows' Welch PSD (pd_welch_psd) on log axes with the 0.1-2 Hz and
 * 3-30 Hz band edges marked; power in MW, PSD in MW^2/Hz. Errors also
 * SIM_EINVAL when fewer than PD_SEG samples are stored. */
int plot_power_dynamics(const char *path, const res_pd_sample *s, size_t n,
                        const char *smooth_label, const char *title,
                        sim_err *err);

/* Energy per run by source: one horizontal bar per job, its mean facility
 * energy per training run [MWh] split by source (by_source_j: n_jobs rows of
 * SRC_N means), with a P10-P90 whisker of the total when facility
 * (n_jobs summaries, may be NULL) has them. */
int plot_energy_by_source(const char *path, const char *const *names,
                          const double *by_source_j,
                          const stat_summary *facility, size_t n_jobs,
                          const char *title, sim_err *err);

#endif
