/* models/load.c: IT power by system state and step phase, and the
 * power-cap curve (models/load.h; docs/power-model.md 7).
 *
 * Owns: the fractions of TDP and of the non-GPU rating each state and
 * phase draws. Must never: predict step times (models/throughput.c does)
 * or know about jobs; callers pass the step's phases in seconds. */
#include "models/load.h"

#include <math.h>

/* Zeus A40 BERT-base SQuAD batch 32 (facts-more.md 1 [D]), ascending x. */
static const double cap_x[8] = {0.42, 0.50, 0.58, 0.67, 0.75, 0.83, 0.92, 1.00};
static const double cap_r[8] = {0.38, 0.57, 0.79, 0.88, 0.94, 0.97, 1.00, 1.00};

void load_cfg_default(load_cfg *c, double it_capacity_w)
{
    c->it_capacity_w = it_capacity_w;
    for (int f = 0; f < NUM_FMT_N; f++)
        c->u_compute[f] = 0.90;
    c->u_comm = 0.25;
    c->u_bubble = 0.25;
    c->u_ckpt = 0.15;
    c->idle_gpu_frac = 0.10;
    c->nongpu_train_frac = 0.59;
    c->nongpu_idle_frac = 0.35;
    c->module_overhead_frac = 0.08;
    c->gpu_floor_frac = 0.0;
    c->gpu_ramp_up_per_s = 0.0;
    c->gpu_ramp_down_per_s = 0.0;
    c->gpu_ramp_down_hyst_s = 0.0;
}

int load_cfg_check(const load_cfg *c, const load_system *s, sim_err *err)
{
    if (!(c->it_capacity_w > 0 && isfinite(c->it_capacity_w)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "load.it_capacity_w: must be > 0 (got %g)",
                           c->it_capacity_w);
    for (int f = 0; f < NUM_FMT_N; f++)
        if (!(c->u_compute[f] > 0 && c->u_compute[f] <= 1.2))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "load.u_compute: out of range (got %g, "
                               "expected (0, 1.2])",
                               c->u_compute[f]);
    if (!(c->u_comm > 0 && c->u_comm <= 1.2 && c->u_bubble > 0 &&
          c->u_bubble <= 1.2 && c->u_ckpt > 0 && c->u_ckpt <= 1.2))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "load: phase fractions out of range (comm %g, "
                           "bubble %g, checkpoint %g; expected (0, 1.2])",
                           c->u_comm, c->u_bubble, c->u_ckpt);
    if (!(c->idle_gpu_frac >= 0 && c->idle_gpu_frac <= c->u_compute[NUM_BF16] &&
          c->nongpu_train_frac >= 0 && c->nongpu_train_frac <= 1 &&
          c->nongpu_idle_frac >= 0 && c->nongpu_idle_frac <= 1 &&
          c->module_overhead_frac >= 0 && c->module_overhead_frac <= 1 &&
          c->gpu_floor_frac >= 0 && c->gpu_floor_frac <= 1 &&
          c->gpu_ramp_up_per_s >= 0 && c->gpu_ramp_down_per_s >= 0 &&
          c->gpu_ramp_down_hyst_s >= 0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "load: fractions out of range (u_compute %g, idle %g, "
            "nongpu %g/%g, overhead %g)",
            c->u_compute[NUM_BF16], c->idle_gpu_frac, c->nongpu_train_frac,
            c->nongpu_idle_frac, c->module_overhead_frac);
    if (s && !(s->n_gpus >= 1 && s->gpu_tdp_w > 0 &&
               s->system_max_w >= s->n_gpus * s->gpu_tdp_w))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "load.system: expected n_gpus >= 1, tdp > 0, system_max_w >= "
            "n_gpus x tdp (got %d x %g W, max %g W)",
            s->n_gpus, s->gpu_tdp_w, s->system_max_w);
    return SIM_OK;
}

double load_gpu_frac(const load_cfg *lc, double c)
{
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return c * lc->u_compute[NUM_BF16] + (1 - c) * lc->u_comm;
}

double load_phase_u(const load_cfg *lc, num_fmt fmt, double u)
{
    int f = (unsigned)fmt < NUM_FMT_N ? (int)fmt : (int)NUM_BF16;
    return fmax(u, lc->gpu_floor_frac * lc->u_compute[f]);
}

double load_ckpt_gpu_frac(const load_cfg *lc, num_fmt fmt)
{
    return load_phase_u(lc, fmt, lc->u_ckpt);
}

/* 1 when any NVML-style smoothing is set (else the shape is the phases'
 * constant levels and the mean keeps its closed form, bytes unchanged). */
int load_smoothing_on(const load_cfg *lc)
{
    return lc->gpu_ramp_up_per_s > 0 || lc->gpu_ramp_down_per_s > 0 ||
           lc->gpu_ramp_down_hyst_s > 0;
}

/* Appends a piece to s (when out is not NULL and it has a length). */
static void emit(load_shape *s, double dur, double u0, double u1)
{
    if (!s || !(dur > 0) || s->n >= LOAD_SHAPE_MAX)
        return;
    s->dur_s[s->n] = dur;
    s->u0[s->n] = u0;
    s->u1[s->n] = u1;
    s->n++;
}

/* One period of the smoothed level through the n phases (dur, lev), from
 * the level *y and the time *below_s the phase level has been below it;
 * both carried out. Each phase emits at most three pieces (hold, ramp,
 * flat), so 4 phases fit LOAD_SHAPE_MAX. */
static void shape_period(const load_cfg *lc, const double *dur,
                         const double *lev, int n, double *y, double *below_s,
                         load_shape *out)
{
    double ru = lc->gpu_ramp_up_per_s, rd = lc->gpu_ramp_down_per_s;
    double h = lc->gpu_ramp_down_hyst_s;
    for (int i = 0; i < n; i++) {
        double L = lev[i], t = 0;
        while (t < dur[i]) {
            double left = dur[i] - t, dt;
            if (*y < L) {
                /* Rising: the hysteresis is only for falls. */
                *below_s = 0;
                if (!(ru > 0)) {
                    *y = L;
                    continue;
                }
                double need = (L - *y) / ru, y1;
                dt = need <= left ? need : left;
                y1 = need <= left ? L : *y + ru * dt;
                emit(out, dt, *y, y1);
                *y = y1;
            } else if (*y > L) {
                if (*below_s < h) {
                    dt = fmin(left, h - *below_s);
                    emit(out, dt, *y, *y);
                } else if (!(rd > 0)) {
                    *y = L;
                    continue;
                } else {
                    double need = (*y - L) / rd, y1;
                    dt = need <= left ? need : left;
                    y1 = need <= left ? L : *y - rd * dt;
                    emit(out, dt, *y, y1);
                    *y = y1;
                }
                *below_s += dt;
            } else {
                dt = left;
                *below_s = 0;
                emit(out, dt, *y, *y);
            }
            t += dt;
        }
    }
}

void load_step_shape(const load_cfg *lc, num_fmt fmt, const load_step *st,
                     load_shape *out)
{
    int f = (unsigned)fmt < NUM_FMT_N ? (int)fmt : (int)NUM_BF16;
    double c = st ? fmax(0.0, st->compute_s) : 0.0;
    double x = st ? fmax(0.0, st->comm_s) : 0.0;
    double b = st ? fmax(0.0, st->bubble_s) : 0.0;
    double T = c + x + b;
    /* Phase order within the step: pipeline fill, compute, drain, then the
     * exposed gradient synchronisation. Empty phases are left out. */
    double d4[4] = {0.5 * b, c, 0.5 * b, x};
    double u4[4] = {load_phase_u(lc, fmt, lc->u_bubble), lc->u_compute[f],
                    load_phase_u(lc, fmt, lc->u_bubble),
                    load_phase_u(lc, fmt, lc->u_comm)};
    double dur[4], lev[4], y, below = 0;
    int n = 0;
    out->n = 0;
    if (!(T > 0) || !isfinite(T) || c >= T) {
        emit(out, 1.0, lc->u_compute[f], lc->u_compute[f]);
        return;
    }
    for (int i = 0; i < 4; i++)
        if (d4[i] > 0) {
            dur[n] = d4[i];
            lev[n++] = u4[i];
        }
    if (!load_smoothing_on(lc)) {
        for (int i = 0; i < n; i++)
            emit(out, dur[i], lev[i], lev[i]);
        return;
    }
    /* The periodic steady state: each period either brings a ramp to its
     * target (the level then repeats) or drifts by a constant until one
     * does, so the iteration ends; the cap only guards the arithmetic. */
    y = lev[n - 1];
    for (int it = 0; it < LOAD_SHAPE_ITERS; it++) {
        double y0 = y, b0 = fmin(below, lc->gpu_ramp_down_hyst_s);
        shape_period(lc, dur, lev, n, &y, &below, NULL);
        if (fabs(y - y0) <= 1e-12 &&
            fabs(fmin(below, lc->gpu_ramp_down_hyst_s) - b0) <= 1e-12)
            break;
    }
    shape_period(lc, dur, lev, n, &y, &below, out);
}

double load_shape_mean(const load_shape *s)
{
    double e = 0, T = 0;
    for (int i = 0; i < s->n; i++) {
        e += s->dur_s[i] * 0.5 * (s->u0[i] + s->u1[i]);
        T += s->dur_s[i];
    }
    return T > 0 ? e / T : 0.0;
}

double load_step_gpu_frac(const load_cfg *lc, num_fmt fmt, const load_step *st)
{
    int f = (unsigned)fmt < NUM_FMT_N ? (int)fmt : (int)NUM_BF16;
    double c = st ? fmax(0.0, st->compute_s) : 0.0;
    double x = st ? fmax(0.0, st->comm_s) : 0.0;
    double b = st ? fmax(0.0, st->bubble_s) : 0.0;
    double t = c + x + b;
    if (!(t > 0) || !isfinite(t))
        return lc->u_compute[f];
    if (load_smoothing_on(lc)) {
        load_shape sh;
        load_step_shape(lc, fmt, st, &sh);
        return load_shape_mean(&sh);
    }
    /* The floor holds the low phases up (issue 21); it is charged here,
     * so the energy accounting pays for it. */
    return (c * lc->u_compute[f] + x * load_phase_u(lc, fmt, lc->u_comm) +
            b * load_phase_u(lc, fmt, lc->u_bubble)) /
           t;
}

/* One system's power with its GPUs at f_gpu of TDP when training. */
static double system_w_f(const load_cfg *lc, const load_system *s,
                         load_state st, double f_gpu, double *gpu_w,
                         double *other_w)
{
    double gpus_tdp = s->n_gpus * s->gpu_tdp_w;
    double rest = s->system_max_w - gpus_tdp;
    double g = 0, o = 0;
    if (st == LOAD_TRAINING) {
        g = gpus_tdp * f_gpu;
        o = rest * lc->nongpu_train_frac;
    } else if (st == LOAD_IDLE) {
        g = gpus_tdp * lc->idle_gpu_frac;
        o = rest * lc->nongpu_idle_frac;
    }
    if (gpu_w)
        *gpu_w = g;
    if (other_w)
        *other_w = o;
    return g + o;
}

double load_system_w(const load_cfg *lc, const load_system *s, load_state st,
                     double compute_frac, double *gpu_w, double *other_w)
{
    return system_w_f(lc, s, st, load_gpu_frac(lc, compute_frac), gpu_w,
                      other_w);
}

void load_training_demand_f(const load_cfg *lc, const load_system *s,
                            double n_gpus, double f_gpu, load_demand *out)
{
    double k = n_gpus / s->n_gpus;
    double g, o, gi, oi;
    system_w_f(lc, s, LOAD_TRAINING, f_gpu, &g, &o);
    system_w_f(lc, s, LOAD_IDLE, f_gpu, &gi, &oi);
    out->gpu_w = k * g;
    out->other_w = k * o;
    out->idle_w = k * (gi + oi);
    out->gpu_frac_tdp = f_gpu;
}

void load_training_demand(const load_cfg *lc, const load_system *s,
                          double n_gpus, double compute_frac, load_demand *out)
{
    load_training_demand_f(lc, s, n_gpus, load_gpu_frac(lc, compute_frac), out);
}

double load_module_overhead_w(const load_cfg *lc, const load_system *s,
                              double n_systems)
{
    return lc->module_overhead_frac * n_systems *
           load_system_w(lc, s, LOAD_TRAINING, LOAD_DEFAULT_COMPUTE_FRAC, NULL,
                         NULL);
}

double load_module_it_w(const load_cfg *lc, double parts_w, double *clipped_w)
{
    double it = parts_w > lc->it_capacity_w ? lc->it_capacity_w : parts_w;
    if (clipped_w)
        *clipped_w = parts_w - it;
    return it;
}

double load_cap_throughput(double x)
{
    if (x >= cap_x[7])
        return 1.0;
    if (x <= 0)
        return 0.0;
    if (x < cap_x[0])
        return cap_r[0] * x / cap_x[0];
    for (int i = 1; i < 8; i++)
        if (x <= cap_x[i])
            return cap_r[i - 1] + (cap_r[i] - cap_r[i - 1]) *
                                      (x - cap_x[i - 1]) /
                                      (cap_x[i] - cap_x[i - 1]);
    return 1.0;
}

double load_throttle_throughput(double y, double f_gpu)
{
    double r0 = load_cap_throughput(f_gpu);
    if (r0 <= 0)
        return 0;
    double r = load_cap_throughput(y * f_gpu) / r0;
    return r > 1 ? 1 : r;
}

void load_cap_curve_default(load_cap_curve *c)
{
    c->min_x = LOAD_CAP_MIN;
    c->knee_x = LOAD_CAP_KNEE;
    c->r_min = LOAD_CAP_R_MIN;
}

int load_cap_curve_check(const load_cap_curve *c, sim_err *err)
{
    if (!(c->min_x > 0 && c->min_x < c->knee_x && c->knee_x <= 1.2 &&
          c->r_min > 0 && c->r_min <= 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "power.cap_curve: out of range (min_x %g, knee_x "
                           "%g, r_min %g; expected 0 < min_x < knee_x <= "
                           "1.2, 0 < r_min <= 1)",
                           c->min_x, c->knee_x, c->r_min);
    return SIM_OK;
}

static int cap_is_default(const load_cap_curve *c)
{
    return !c || (c->min_x == LOAD_CAP_MIN && c->knee_x == LOAD_CAP_KNEE &&
                  c->r_min == LOAD_CAP_R_MIN);
}

double load_cap_throughput_c(const load_cap_curve *c, double x)
{
    /* The table verbatim at the defaults: the stretch below is exact in
     * real numbers but not in doubles, and default runs keep their bytes. */
    if (cap_is_default(c))
        return load_cap_throughput(x);
    if (x >= c->knee_x)
        return 1.0;
    if (x <= 0)
        return 0.0;
    if (x < c->min_x)
        return c->r_min * x / c->min_x;
    /* x on [min_x, knee_x] -> the table's [LOAD_CAP_MIN, LOAD_CAP_KNEE],
     * its r on [LOAD_CAP_R_MIN, 1] -> [r_min, 1]. */
    double u = LOAD_CAP_MIN + (x - c->min_x) * (LOAD_CAP_KNEE - LOAD_CAP_MIN) /
                                  (c->knee_x - c->min_x);
    double r = load_cap_throughput(u);
    return c->r_min +
           (r - LOAD_CAP_R_MIN) * (1.0 - c->r_min) / (1.0 - LOAD_CAP_R_MIN);
}

double load_throttle_throughput_c(const load_cap_curve *c, double y,
                                  double f_gpu)
{
    if (cap_is_default(c))
        return load_throttle_throughput(y, f_gpu);
    double r0 = load_cap_throughput_c(c, f_gpu);
    if (r0 <= 0)
        return 0;
    double r = load_cap_throughput_c(c, y * f_gpu) / r0;
    return r > 1 ? 1 : r;
}
