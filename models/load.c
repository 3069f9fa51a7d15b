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
          c->gpu_floor_frac >= 0 && c->gpu_floor_frac <= 1))
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

double load_step_gpu_frac(const load_cfg *lc, num_fmt fmt, const load_step *st)
{
    int f = (unsigned)fmt < NUM_FMT_N ? (int)fmt : (int)NUM_BF16;
    double c = st ? fmax(0.0, st->compute_s) : 0.0;
    double x = st ? fmax(0.0, st->comm_s) : 0.0;
    double b = st ? fmax(0.0, st->bubble_s) : 0.0;
    double t = c + x + b;
    if (!(t > 0) || !isfinite(t))
        return lc->u_compute[f];
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
