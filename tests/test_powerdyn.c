/* tests/test_powerdyn.c: training power dynamics (models/powerdyn.h,
 * models/site_powerdyn.c) from first principles (issue 21.5): a two-phase
 * job is a square wave with exact peak-to-peak, mean and fundamental; N
 * unsynchronised jobs reduce the relative deviation as 1/sqrt(N) and N
 * synchronised ones do not; a 100 % floor removes the swing and costs
 * exactly the energy of the raised phases; the waveform's mean is the
 * accounting power; the ramp-limit battery of a step is exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "io/db.h"
#include "models/load.h"
#include "models/powerdyn.h"
#include "tests/cli_util.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static test_world W;

static int setup(void **state)
{
    (void)state;
    world_open(&W);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    world_close(&W);
    return 0;
}

/* A two-level wave: hi_w for hi_s, then lo_w for lo_s. */
static void square(pd_wave *w, double hi_w, double hi_s, double lo_w,
                   double lo_s, double offset_s)
{
    memset(w, 0, sizeof *w);
    w->n_seg = 2;
    w->dur_s[0] = hi_s;
    w->w0[0] = w->w1[0] = hi_w;
    w->dur_s[1] = lo_s;
    w->w0[1] = w->w1[1] = lo_w;
    w->offset_s = offset_s;
}

/* "one job with two phases is a square wave whose peak-to-peak, mean and
 * fundamental frequency are exact": a 50 % wave of amplitude A and period
 * 1.2 s has its fundamental (0.833 Hz) alone in 0.1-2 Hz (the even
 * harmonics vanish and the third, 2.5 Hz, is in neither band), its odd
 * harmonics 5..35 (4.2-29.2 Hz) in 3-30 Hz; the same wave at 4 Hz has
 * nothing in 0.1-2 Hz. No harmonic sits within the Hann window's main
 * lobe of a band edge, so leakage does not move power across an edge. */
static void test_powerdyn_square_wave_is_exact(void **state)
{
    static double x[PD_N];
    const double dt = 1.0 / PD_FS_HZ, A = 10e6, lo = 5e6;
    double hi_band = 0;
    pd_wave w;
    pd_stats s;
    (void)state;
    square(&w, lo + A, 0.6, lo, 0.6, 0.0);
    pd_synth(&w, 1, 1e6, dt, x, 7200); /* 60 whole periods */
    assert_int_equal(pd_analyse(x, 7200, dt, &s), SIM_OK);
    /* Exact up to the rounding of the bin sums. */
    assert_close(s.p2p_w, A, 1e-9);
    assert_close(s.mean_w, 1e6 + lo + 0.5 * A, 1e-9);
    assert_close(s.std_w, 0.5 * A, 1e-9);
    assert_close(s.peak_w, 1e6 + lo + A, 1e-9);
    assert_close(pd_wave_mean_w(&w), lo + 0.5 * A, 1e-15);
    /* The ramp: one edge of A within 0.1 s. */
    assert_close(s.max_ramp_w_per_s, A / PD_RAMP_S, 1e-9);
    /* The samples are the 120-point discrete square wave (the edges fall
     * on bin edges): harmonic k has amplitude (2A / 120) / sin(pi k / 120)
     * (2A / (k pi) as the sampling gets fine), RMS that / sqrt 2. */
    pd_synth(&w, 1, 0.0, dt, x, PD_N);
    assert_int_equal(pd_analyse(x, PD_N, dt, &s), SIM_OK);
    assert_close(s.band_lo_rms_w, 2 * A / 120.0 / sin(M_PI / 120.0) / sqrt(2.0),
                 0.02);
    for (int k = 5; k <= 35; k += 2)
        hi_band += 0.5 * pow(2 * A / 120.0 / sin(M_PI * k / 120.0), 2);
    assert_close(s.band_hi_rms_w, sqrt(hi_band), 0.02);
    /* At 4 Hz the fundamental leaves the low band. */
    square(&w, lo + A, 0.125, lo, 0.125, 0.0);
    pd_synth(&w, 1, 0.0, dt, x, PD_N);
    assert_int_equal(pd_analyse(x, PD_N, dt, &s), SIM_OK);
    assert_true(s.band_lo_rms_w < 0.01 * A);
    assert_true(s.band_hi_rms_w > 0.4 * A);
}

/* Relative standard deviation of the sum of n copies of a 0.3/0.7 s wave
 * at offsets from r (sync: all at 0). */
static double rel_std(size_t n, gsl_rng *r, int sync)
{
    static double x[PD_N];
    pd_wave w[64];
    pd_stats s;
    for (size_t k = 0; k < n; k++)
        square(&w[k], 1e6, 0.3, 0.25e6, 0.7,
               sync ? 0.0 : gsl_rng_uniform(r) * 1.0);
    pd_synth(w, n, 0.0, 1.0 / PD_FS_HZ, x, PD_N);
    pd_analyse(x, PD_N, 1.0 / PD_FS_HZ, &s);
    return s.std_w / s.mean_w;
}

/* "N identical unsynchronised jobs reduce the relative standard deviation
 * about as 1/sqrt(N), while N synchronised ones do not": the mean square
 * over 40 draws of offsets, against the single job's. */
static void test_powerdyn_unsynchronised_jobs_average_out(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double one = rel_std(1, r, 1);
    (void)state;
    gsl_rng_set(r, 11);
    for (size_t n = 4; n <= 64; n *= 4) {
        double ms = 0;
        for (int t = 0; t < 40; t++)
            ms += pow(rel_std(n, r, 0), 2) / 40;
        /* E[var of sum] = n var (cross terms average 0): rel std^2 / n. */
        assert_true(fabs(ms / (one * one / (double)n) - 1.0) < 0.25);
        assert_close(rel_std(n, r, 1), one, 1e-12);
    }
    gsl_rng_free(r);
}

/* "the waveform mean equals the accounting power": a step's wave averages
 * the GPU power load.h charges plus the rest, over whole periods. */
static void test_powerdyn_wave_mean_is_the_accounting_power(void **state)
{
    static double x[PD_N];
    load_cfg lc;
    load_step st = {0.61, 0.23, 0.16, 0, 0}; /* compute, comm, bubble [s] */
    pd_wave w;
    pd_stats s;
    double gpu_w = 7e6, other_w = 3e6;
    (void)state;
    load_cfg_default(&lc, 3.5e6);
    pd_wave_step(&w, &lc, NUM_FP8, &st, gpu_w, other_w, 1.0, 0.37);
    assert_int_equal(w.n_seg, 4);
    assert_close(pd_wave_period_s(&w), 1.0, 1e-15);
    assert_close(pd_wave_mean_w(&w), gpu_w + other_w, 1e-12);
    /* Compute phase at u_compute / f_gpu of the mean GPU power. */
    assert_close(pd_wave_hi_w(&w),
                 other_w + gpu_w * lc.u_compute[NUM_FP8] /
                               load_step_gpu_frac(&lc, NUM_FP8, &st),
                 1e-12);
    pd_synth(&w, 1, 2e6, 1.0 / PD_FS_HZ, x, 8000); /* 80 whole periods */
    pd_analyse(x, 8000, 1.0 / PD_FS_HZ, &s);
    assert_close(s.mean_w, 2e6 + gpu_w + other_w, 1e-9);
}

/* "a floor at 100 % removes the swing and costs exactly the energy
 * difference": with the floor every phase draws the compute level, so
 * the wave is flat and the step's GPU power / TDP is u_compute; the extra
 * energy per step is TDP x sum over the low phases of t (u_compute - u). */
static void test_powerdyn_full_floor_is_flat_and_priced(void **state)
{
    load_cfg lc;
    load_step st = {0.5, 0.3, 0.2, 0, 0};
    pd_wave w;
    double f0, f1, tdp = 1400.0, u_c;
    (void)state;
    load_cfg_default(&lc, 3.5e6);
    u_c = lc.u_compute[NUM_BF16];
    f0 = load_step_gpu_frac(&lc, NUM_BF16, &st);
    lc.gpu_floor_frac = 1.0;
    f1 = load_step_gpu_frac(&lc, NUM_BF16, &st);
    assert_close(f1, u_c, 1e-15);
    assert_close((f1 - f0) * tdp * 1.0,
                 tdp * (0.3 * (u_c - lc.u_comm) + 0.2 * (u_c - lc.u_bubble)),
                 1e-12);
    assert_close(load_ckpt_gpu_frac(&lc, NUM_BF16), u_c, 1e-15);
    pd_wave_step(&w, &lc, NUM_BF16, &st, f1 * tdp * 72, 5e4, 1.0, 0.1);
    assert_close(pd_wave_hi_w(&w), pd_wave_lo_w(&w), 1e-15);
    /* A 70 % floor holds the low phases at 0.7 u_compute. */
    lc.gpu_floor_frac = 0.7;
    assert_close(load_phase_u(&lc, NUM_BF16, lc.u_comm), 0.7 * u_c, 1e-15);
    assert_close(load_phase_u(&lc, NUM_BF16, 0.95 * u_c), 0.95 * u_c, 1e-15);
}

/* The site run: one job, no failures, free checkpoints. With a 100 %
 * floor the job's GPU energy is the compute level over its run time
 * exactly, the IT energy grows by the GPU energy's growth only, and the
 * steady windows are flat; without it they swing. */
static void test_powerdyn_site_floor_energy_and_swing(void **state)
{
    const char *off[] = {"jobs.[0].checkpoint.write_s=0.0"};
    const char *on[] = {"jobs.[0].checkpoint.write_s=0.0",
                        "policy.gpu_power_floor_pct=100.0"};
    scenario *a = load_scn(&W, "tests/data/run/grid-one-job.cfg", off, 1);
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", on, 2);
    res_rep *ra = run_reps(&W, a, 1, 0, 0), *rb = run_reps(&W, b, 1, 0, 0);
    const res_job *ja = &ra[0].jobs[0], *jb = &rb[0].jobs[0];
    double u_c = 0.90;
    (void)state;
    assert_true(ja->completed && jb->completed);
    assert_close(jb->run_time_s, ja->run_time_s, 1e-12);
    assert_close(jb->gpu_energy_j,
                 u_c * a->jobs[0].gpu->tdp_w * a->jobs[0].gpus * jb->run_time_s,
                 1e-9);
    assert_true(jb->gpu_energy_j > ja->gpu_energy_j);
    assert_close(jb->it_energy_j - ja->it_energy_j,
                 jb->gpu_energy_j - ja->gpu_energy_j, 1e-9);
    assert_true(ra[0].site.power_swing_w > 0);
    assert_true(ra[0].site.power_band_0p1_2hz_rms_w > 0 ||
                ra[0].site.power_band_3_30hz_rms_w > 0);
    assert_true(rb[0].site.power_swing_w <= 1e-9 * rb[0].site.power_peak_w);
    /* The largest drop: at least the job's whole GPU swing above idle. */
    assert_true(ra[0].site.power_largest_drop_w > 0);
    assert_close(ra[0].site.battery_power_for_ramp_limit_w, 0.0, 0);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* A ramp limit: a step of A sampled at dt needs (A - R dt) / 2 of battery
 * (the grid can be at most R dt apart across the edge, and the best trace
 * splits the rest); a slope below R needs none. */
static void test_powerdyn_ramp_battery_is_exact(void **state)
{
    static double x[1000];
    const double dt = 0.01, A = 10e6, R = 100e6;
    (void)state;
    for (int i = 0; i < 1000; i++)
        x[i] = i < 500 ? 0.0 : A;
    assert_close(pd_ramp_battery_w(x, 1000, dt, R), 0.5 * (A - R * dt), 1e-5);
    assert_close(pd_ramp_battery_w(x, 1000, dt, 0.0), 0.0, 0);
    for (int i = 0; i < 1000; i++)
        x[i] = 0.5 * R * dt * i;
    assert_close(pd_ramp_battery_w(x, 1000, dt, R), 0.0, 0);
}

/* Rack storage leaves 1 - E / need of the deviation, none when it holds
 * the whole excess; a hold (failure) puts the job at its idle level. */
static void test_powerdyn_rack_storage_and_holds(void **state)
{
    static double x[PD_N];
    pd_wave w;
    (void)state;
    square(&w, 3.0, 0.5, 1.0, 0.5, 0.0);
    assert_close(pd_wave_excess_j(&w), 0.5, 1e-15);
    assert_close(pd_rack_smooth(0.25, 0.5), 0.5, 1e-15);
    assert_close(pd_rack_smooth(1.0, 0.5), 0.0, 0);
    assert_close(pd_rack_smooth(0.0, 0.5), 1.0, 0);
    w.hold_from_s = 40.0;
    w.hold_to_s = INFINITY;
    w.hold_w = 0.5;
    pd_synth(&w, 1, 0.0, 1.0 / PD_FS_HZ, x, PD_N);
    assert_close(x[3999], 1.0, 1e-12); /* 39.99 s: the low phase */
    for (size_t i = 4000; i < PD_N; i++)
        assert_close(x[i], 0.5, 1e-12);
}

/* "a square wave through a ramp limit", by hand: compute 1.0 s at 0.90 of
 * TDP, exposed communication 0.5 s at 0.25, up at 1.3 TDP/s, down at 0.65
 * TDP/s, no hysteresis. The fall (0.65 in 1.0 s) cannot finish in the
 * 0.5 s low phase: it ends at 0.90 - 0.65 x 0.5 = 0.575, and the rise
 * back takes 0.325 / 1.3 = 0.25 s. Periodic shape: ramp 0.575 -> 0.90 in
 * 0.25 s, flat 0.75 s, ramp 0.90 -> 0.575 in 0.5 s; mean (0.25 x 0.7375 +
 * 0.75 x 0.90 + 0.5 x 0.7375) / 1.5 = 0.81875; the swing halves (0.325
 * against 0.65) and the largest ramp over 0.1 s is the up rate. */
static void test_powerdyn_square_wave_through_a_ramp_limit(void **state)
{
    static double x[8100];
    load_cfg lc;
    load_step st = {1.0, 0.5, 0.0, 0, 0};
    load_shape sh;
    pd_wave w;
    pd_stats s;
    const double k = 1e6; /* GPUs x TDP [W] */
    (void)state;
    load_cfg_default(&lc, 3.5e6);
    lc.gpu_ramp_up_per_s = 1.3;
    lc.gpu_ramp_down_per_s = 0.65;
    load_step_shape(&lc, NUM_BF16, &st, &sh);
    assert_int_equal(sh.n, 3);
    assert_close(sh.dur_s[0], 0.25, 1e-12);
    assert_close(sh.u0[0], 0.575, 1e-12);
    assert_close(sh.u1[0], 0.90, 1e-15);
    assert_close(sh.dur_s[1], 0.75, 1e-12);
    assert_close(sh.u0[1], 0.90, 1e-15);
    assert_close(sh.dur_s[2], 0.5, 1e-15);
    assert_close(sh.u1[2], 0.575, 1e-12);
    assert_close(load_step_gpu_frac(&lc, NUM_BF16, &st), 0.81875, 1e-12);
    /* The wave of k W of GPUs: its mean is the accounting's. */
    pd_wave_step(&w, &lc, NUM_BF16, &st, 0.81875 * k, 0.0, 1.0, 0.0);
    assert_close(pd_wave_mean_w(&w), 0.81875 * k, 1e-9);
    assert_close(pd_wave_hi_w(&w) - pd_wave_lo_w(&w), 0.325 * k, 1e-6);
    pd_synth(&w, 1, 0.0, 1.0 / PD_FS_HZ, x, 8100); /* 54 whole periods */
    assert_int_equal(pd_analyse(x, 8100, 1.0 / PD_FS_HZ, &s), SIM_OK);
    assert_close(s.mean_w, 0.81875 * k, 1e-9);
    assert_close(s.max_ramp_w_per_s, 1.3 * k, 1e-6);
    assert_true(s.p2p_w < 0.325 * k && s.p2p_w > 0.3 * k);
}

/* "hysteresis holding the floor across short gaps": with a 0.6 s
 * ramp-down hysteresis, a 0.5 s low phase is bridged (the drawn power
 * stays at the compute level: flat, mean 0.90); a 0.8 s one is held for
 * 0.6 s and then, with no down-rate limit, drops: mean (1.6 x 0.90 + 0.2
 * x 0.25) / 1.8. */
static void test_powerdyn_hysteresis_bridges_short_gaps(void **state)
{
    load_cfg lc;
    load_step short_gap = {1.0, 0.5, 0.0, 0, 0},
              long_gap = {1.0, 0.8, 0.0, 0, 0};
    load_shape sh;
    (void)state;
    load_cfg_default(&lc, 3.5e6);
    lc.gpu_ramp_down_hyst_s = 0.6;
    load_step_shape(&lc, NUM_BF16, &short_gap, &sh);
    for (int i = 0; i < sh.n; i++) {
        assert_close(sh.u0[i], 0.90, 1e-15);
        assert_close(sh.u1[i], 0.90, 1e-15);
    }
    assert_close(load_step_gpu_frac(&lc, NUM_BF16, &short_gap), 0.90, 1e-15);
    load_step_shape(&lc, NUM_BF16, &long_gap, &sh);
    assert_int_equal(sh.n, 3);
    assert_close(sh.dur_s[1], 0.6, 1e-12);
    assert_close(sh.u0[2], 0.25, 1e-15);
    assert_close(sh.dur_s[2], 0.2, 1e-12);
    assert_close(load_step_gpu_frac(&lc, NUM_BF16, &long_gap),
                 (1.6 * 0.90 + 0.2 * 0.25) / 1.8, 1e-12);
    /* A floor under the hysteresis: the drop goes to the floor. */
    lc.gpu_floor_frac = 0.5;
    assert_close(load_step_gpu_frac(&lc, NUM_BF16, &long_gap),
                 (1.6 * 0.90 + 0.2 * 0.45) / 1.8, 1e-12);
}

/* The site run with ramps on: a hysteresis longer than any low phase of
 * the one job bridges them all, so the accounting charges the compute
 * level over the whole run time exactly (as a 100 % floor does) and the
 * steady windows are flat; the energy and the waveform agree. */
static void test_powerdyn_site_hysteresis_energy_and_swing(void **state)
{
    const char *on[] = {"jobs.[0].checkpoint.write_s=0.0",
                        "policy.gpu_power_ramp_down_hysteresis_s=60.0",
                        "policy.gpu_power_ramp_up_w_per_s=500.0"};
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", on, 3);
    res_rep *rb = run_reps(&W, b, 1, 0, 0);
    const res_job *jb = &rb[0].jobs[0];
    (void)state;
    assert_true(jb->completed);
    assert_close(
        jb->gpu_energy_j,
        0.90 * b->jobs[0].gpu->tdp_w * b->jobs[0].gpus * jb->run_time_s, 1e-9);
    assert_true(rb[0].site.power_swing_w <= 1e-9 * rb[0].site.power_peak_w);
    free_reps(rb, 1);
    scenario_free(b);
}

/* policy.power_dynamics = false: no analysis, every figure empty (NAN,
 * NULL in the store), never zero; the energy is unchanged. */
static void test_powerdyn_switch_off_leaves_fields_empty(void **state)
{
    const char *off[] = {"policy.power_dynamics=false"};
    scenario *a = load_scn(&W, "tests/data/run/grid-one-job.cfg", NULL, 0);
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", off, 1);
    res_rep *ra = run_reps(&W, a, 1, 0, 0), *rb = run_reps(&W, b, 1, 0, 0);
    (void)state;
    assert_true(ra[0].site.power_swing_w > 0);
    assert_true(isnan(rb[0].site.power_peak_w));
    assert_true(isnan(rb[0].site.power_swing_w));
    assert_true(isnan(rb[0].site.power_largest_drop_w));
    assert_true(isnan(rb[0].site.battery_power_for_ramp_limit_w));
    assert_close(rb[0].site.it_energy_j, ra[0].site.it_energy_j, 0);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* Per module: a job spanning two modules splits its wave by the systems it
 * holds in each, so the modules' means sum to the site's jobs' mean (the
 * site less its constant part) to rounding, and no module swings more than
 * the site (the other module's share only adds to the site's). */
static void test_powerdyn_modules_sum_to_the_site(void **state)
{
    scenario *a = load_scn(&W, "tests/data/run/two-groups.cfg", NULL, 0);
    res_rep *r = run_reps(&W, a, 1, 0, 0);
    double sum = 0, max_swing = 0;
    (void)state;
    assert_int_equal(r[0].n_modules, 2);
    for (size_t m = 0; m < r[0].n_modules; m++) {
        sum += r[0].modules[m].power_mean_w;
        max_swing = fmax(max_swing, r[0].modules[m].power_swing_w);
        assert_true(r[0].modules[m].power_swing_w <=
                    r[0].site.power_swing_w * (1 + 1e-12));
        assert_true(r[0].modules[m].power_peak_w >=
                    r[0].modules[m].power_min_w);
    }
    assert_true(r[0].site.power_jobs_mean_w > 0);
    assert_close(sum, r[0].site.power_jobs_mean_w, 1e-9);
    assert_true(max_swing > 0);
    /* Replication 0 keeps its representative window, both variants. */
    assert_int_equal(r[0].n_pd_samples, PD_N);
    assert_close(r[0].pd_samples[1].t_s, 1.0 / PD_FS_HZ, 1e-15);
    free_reps(r, 1);
    scenario_free(a);
}

/* The figures read back from the store: `run --db` then db_load_run gives
 * the same per-module rows and window the run computed (and run's JSON
 * lists the modules); with
 * --no-power-dynamics there are no rows and the site fields are NULL
 * (read as NAN), not zero. */
static void test_powerdyn_module_figures_read_back(void **state)
{
    const char *path = "/tmp/factorysim-test-powerdyn.db";
    static char out[1 << 17];
    char args[512];
    db *d;
    db_run *run;
    int64_t id;
    sim_err e;
    double sum = 0;
    (void)state;
    remove(path);
    snprintf(args, sizeof args,
             "run tests/data/run/two-groups.cfg --db %s --format json", path);
    assert_int_equal(fs_run(args, out, sizeof out, NULL, 0), 0);
    /* run's JSON carries them too, shaped as its jobs. */
    assert_non_null(strstr(out, "\"modules\": ["));
    assert_non_null(strstr(out, "\"power_swing_mw\": {"));
    snprintf(args, sizeof args,
             "run tests/data/run/two-groups.cfg --db %s --no-power-dynamics "
             "--format json",
             path);
    assert_int_equal(fs_run(args, out, sizeof out, NULL, 0), 0);
    assert_null(strstr(out, "\"modules\": ["));
    assert_int_equal(db_open_readonly(path, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, 1, 0, &run, &e), SIM_OK);
    assert_int_equal(run->reps[0].n_modules, 2);
    for (size_t m = 0; m < 2; m++)
        sum += run->reps[0].modules[m].power_mean_w;
    assert_close(sum, run->reps[0].site.power_jobs_mean_w, 1e-9);
    assert_int_equal(run->reps[0].n_pd_samples, PD_N);
    assert_true(run->reps[0].pd_samples[100].power_w > 0);
    db_run_free(run);
    assert_int_equal(db_latest_run(d, &id, &e), SIM_OK);
    assert_int_equal(db_load_run(d, id, 0, &run, &e), SIM_OK);
    assert_int_equal(run->reps[0].n_modules, 0);
    assert_int_equal(run->reps[0].n_pd_samples, 0);
    assert_true(isnan(run->reps[0].site.power_swing_w));
    assert_true(isnan(run->reps[0].site.power_jobs_mean_w));
    db_run_free(run);
    db_close(d);
    remove(path);
}

/* Micro-batch structure (docs/power-model.md 14): a pipelined step of 1.0 s
 * compute and 0.3 s exposed communication of which 0.1 s is p2p between
 * 10 chunks: the compute phase becomes 10 chunks of 0.11 s, each ending in
 * 10 ms at the communication level. The mean is still the accounting's
 * (same times at the same levels), the lowest level is the gap's, the
 * spectrum near the chunk rate (9.09 Hz) is lifted, and the 3-30 Hz band
 * holds more power than with the p2p lumped at the step's end. */
static void test_powerdyn_micro_batch_chunks_show_in_the_spectrum(void **state)
{
    static double x[PD_N];
    static double psd[PD_PSD_N];
    load_cfg lc;
    load_step lump = {1.0, 0.3, 0.0, 0, 0}, mb = {1.0, 0.3, 0.0, 0.1, 10};
    pd_wave w0, w1;
    pd_stats s0, s1;
    const double k = 1e6, dt = 1.0 / PD_FS_HZ, df = 1.0 / (dt * PD_SEG);
    double f = 0, best = 0; /* lumped's and chunked power near 9 Hz */
    (void)state;
    load_cfg_default(&lc, 3.5e6);
    assert_close(load_step_gpu_frac(&lc, NUM_BF16, &mb),
                 load_step_gpu_frac(&lc, NUM_BF16, &lump), 0);
    pd_wave_step(&w0, &lc, NUM_BF16, &lump, 0.75 * k, 0.0, 1.0, 0.0);
    pd_wave_step(&w1, &lc, NUM_BF16, &mb, 0.75 * k, 0.0, 1.0, 0.0);
    assert_int_equal(w1.mb_seg, 0);
    assert_int_equal(w1.mb_n, 10);
    assert_close(w1.mb_gap_s, 0.01, 1e-15);
    assert_close(pd_wave_period_s(&w1), 1.3, 1e-15);
    assert_close(pd_wave_mean_w(&w1), 0.75 * k, 1e-12);
    assert_close(pd_wave_lo_w(&w1), pd_wave_lo_w(&w0), 1e-12);
    pd_synth(&w1, 1, 0.0, dt, x, 7800); /* 60 whole periods */
    assert_int_equal(pd_analyse(x, 7800, dt, &s1), SIM_OK);
    assert_close(s1.mean_w, 0.75 * k, 1e-9);
    pd_synth(&w1, 1, 0.0, dt, x, PD_N);
    assert_int_equal(pd_welch_psd(x, PD_N, dt, psd), SIM_OK);
    /* A periodic wave has lines at multiples of 1 / 1.3 s only; the
     * chunks lift those near their rate, 1 / 0.11 s = 9.09 Hz: the power
     * within 8.5-9.7 Hz is ten times the lumped wave's there. */
    for (size_t i = 1; i < PD_PSD_N; i++)
        if (df * (double)i >= 8.5 && df * (double)i <= 9.7)
            best += psd[i];
    assert_int_equal(pd_analyse(x, PD_N, dt, &s1), SIM_OK);
    pd_synth(&w0, 1, 0.0, dt, x, PD_N);
    assert_int_equal(pd_analyse(x, PD_N, dt, &s0), SIM_OK);
    assert_int_equal(pd_welch_psd(x, PD_N, dt, psd), SIM_OK);
    for (size_t i = 1; i < PD_PSD_N; i++)
        if (df * (double)i >= 8.5 && df * (double)i <= 9.7)
            f += psd[i];
    assert_true(best > 10 * f);
    assert_true(s1.band_hi_rms_w > s0.band_hi_rms_w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_powerdyn_square_wave_is_exact),
        cmocka_unit_test(test_powerdyn_unsynchronised_jobs_average_out),
        cmocka_unit_test(test_powerdyn_wave_mean_is_the_accounting_power),
        cmocka_unit_test(test_powerdyn_full_floor_is_flat_and_priced),
        cmocka_unit_test(test_powerdyn_site_floor_energy_and_swing),
        cmocka_unit_test(test_powerdyn_ramp_battery_is_exact),
        cmocka_unit_test(test_powerdyn_rack_storage_and_holds),
        cmocka_unit_test(test_powerdyn_square_wave_through_a_ramp_limit),
        cmocka_unit_test(test_powerdyn_hysteresis_bridges_short_gaps),
        cmocka_unit_test(test_powerdyn_site_hysteresis_energy_and_swing),
        cmocka_unit_test(test_powerdyn_switch_off_leaves_fields_empty),
        cmocka_unit_test(test_powerdyn_modules_sum_to_the_site),
        cmocka_unit_test(test_powerdyn_module_figures_read_back),
        cmocka_unit_test(test_powerdyn_micro_batch_chunks_show_in_the_spectrum),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
