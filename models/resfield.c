/* models/resfield.c: field tables of the result structs (see resfield.h).
 * The per-source arrays are expanded with the offset of element k computed
 * as offsetof(array) + k * sizeof(double); a test checks every table
 * against the struct layout by writing and reading each field. */
#include "models/resfield.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define D(st, m, u, doc)                                                       \
    {                                                                          \
#m, u, offsetof(st, m), RESFIELD_DOUBLE, doc                           \
    }
#define I(st, m, u, doc)                                                       \
    {                                                                          \
#m, u, offsetof(st, m), RESFIELD_INT, doc                              \
    }
#define I32(st, m, u, doc)                                                     \
    {                                                                          \
#m, u, offsetof(st, m), RESFIELD_INT32, doc                            \
    }
#define SRC(st, m, k, nm, u, doc)                                              \
    {                                                                          \
        nm, u, offsetof(st, m) + (k) * sizeof(double), RESFIELD_DOUBLE, doc    \
    }
#define SRC6(st, m, pre, suf, u, doc)                                          \
    SRC(st, m, 0, pre "solar" suf, u, doc),                                    \
        SRC(st, m, 1, pre "wind" suf, u, doc),                                 \
        SRC(st, m, 2, pre "geothermal" suf, u, doc),                           \
        SRC(st, m, 3, pre "hydro" suf, u, doc),                                \
        SRC(st, m, 4, pre "battery" suf, u, doc),                              \
        SRC(st, m, 5, pre "grid" suf, u, doc)

const resfield resfield_job[] = {
    I(res_job, completed, "1",
      "1 if training finished within the horizon, else 0"),
    D(res_job, submit_s, "s", "submission time since simulation start"),
    D(res_job, start_s, "s", "first start time (NULL if never started)"),
    D(res_job, end_s, "s", "end of training (NULL if not finished)"),
    D(res_job, time_to_train_s, "s", "end_s - submit_s, queueing included"),
    D(res_job, run_time_s, "s", "end_s - start_s"),
    D(res_job, gpu_s, "s", "GPU-seconds held (GPUs x time held)"),
    D(res_job, goodput, "1", "useful training time / time held"),
    D(res_job, tokens, "count", "tokens trained"),
    D(res_job, tokens_per_s_per_gpu, "1/s",
      "undisturbed tokens/s/GPU at placement"),
    I32(res_job, gpus, "count", "GPUs held, hot spares excluded"),
    I32(res_job, modules_spanned, "count", "modules the placement crossed"),
    I32(res_job, interruptions, "count", "failures that cost work"),
    I32(res_job, checkpoints, "count", "checkpoints written"),
    I32(res_job, pauses, "count", "pauses for lack of power"),
    D(res_job, it_energy_j, "J", "the job's share of IT energy"),
    D(res_job, facility_energy_j, "J", "the job's share of facility energy"),
    SRC6(res_job, energy_by_source_j, "energy_", "_j", "J",
         "facility energy of the job delivered by this source"),
    D(res_job, renewable_fraction, "1",
      "share of facility energy from renewables"),
    D(res_job, co2_kg, "kg", "lifecycle CO2e of the job's energy"),
    D(res_job, cost_usd, "USD", "energy cost of the job"),
};
const size_t resfield_n_job = sizeof resfield_job / sizeof resfield_job[0];

const resfield resfield_site[] = {
    D(res_site, it_energy_j, "J", "IT energy served"),
    D(res_site, facility_energy_j, "J", "facility energy served"),
    SRC6(res_site, energy_by_source_j, "energy_", "_j", "J",
         "energy delivered to the load by this source"),
    D(res_site, battery_charge_j, "J", "energy put into batteries"),
    D(res_site, curtailed_j, "J", "renewable energy neither used nor stored"),
    D(res_site, shortfall_j, "J", "demand not served"),
    D(res_site, hours_short, "h", "hours with any shortfall"),
    D(res_site, utilization, "1", "GPU-time busy / GPU-time online"),
    D(res_site, battery_cycles, "count", "equivalent full battery cycles"),
    D(res_site, battery_soh_final, "1",
      "mean battery state of health at the end"),
    D(res_site, renewable_fraction, "1",
      "share of facility energy from renewables"),
    D(res_site, co2_kg, "kg", "lifecycle CO2e of the site's energy"),
    D(res_site, cost_usd, "USD", "energy cost of the site"),
    D(res_site, pue_mean, "1", "facility energy / IT energy"),
    D(res_site, solar_capacity_factor, "1",
      "solar AC energy / (AC rating x horizon)"),
};
const size_t resfield_n_site = sizeof resfield_site / sizeof resfield_site[0];

const resfield resfield_step[] = {
    D(res_step, t_s, "s", "step start since simulation start"),
    D(res_step, it_w, "W", "IT load served"),
    D(res_step, facility_w, "W", "facility load served"),
    D(res_step, demand_w, "W", "facility load before any shortage action"),
    SRC6(res_step, source_w, "", "_w", "W",
         "power delivered to the load by this source"),
    D(res_step, battery_charge_w, "W", "power into batteries"),
    D(res_step, curtailed_w, "W", "renewable power neither used nor stored"),
    D(res_step, shortfall_w, "W", "demand not served"),
    D(res_step, soc_frac, "1", "battery state of charge (NULL: no battery)"),
    D(res_step, soh_frac, "1", "battery state of health (NULL: no battery)"),
    D(res_step, ambient_c, "degC", "dry-bulb temperature"),
    D(res_step, pue, "1", "facility / IT power"),
    D(res_step, throttle, "1", "GPU throughput factor applied"),
};
const size_t resfield_n_step = sizeof resfield_step / sizeof resfield_step[0];

double resfield_get(const void *rec, const resfield *f)
{
    const char *p = (const char *)rec + f->offset;
    int i;
    int32_t i32;
    double d;
    switch (f->type) {
    case RESFIELD_INT:
        memcpy(&i, p, sizeof i);
        return (double)i;
    case RESFIELD_INT32:
        memcpy(&i32, p, sizeof i32);
        return (double)i32;
    default:
        memcpy(&d, p, sizeof d);
        return d;
    }
}

void resfield_set(void *rec, const resfield *f, double v)
{
    char *p = (char *)rec + f->offset;
    /* Clamped so that an out-of-range value cannot overflow the cast. */
    double r = isfinite(v)
                   ? fmax(fmin(nearbyint(v), 2147483647.0), -2147483648.0)
                   : 0.0;
    int i;
    int32_t i32;
    switch (f->type) {
    case RESFIELD_INT:
        i = (int)r;
        memcpy(p, &i, sizeof i);
        break;
    case RESFIELD_INT32:
        i32 = (int32_t)r;
        memcpy(p, &i32, sizeof i32);
        break;
    default:
        memcpy(p, &v, sizeof v);
        break;
    }
}

int resfield_find(const resfield *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return (int)i;
    return -1;
}
