/* models/resfield.c: the result-field tables (see resfield.h).
 *
 * Each row is written once, with F(): the struct member, the base name, the SI
 * unit and the display unit. Both names are built here from the base and the
 * units' suffixes, so the vocabulary rule of resfield.h holds by construction.
 * The per-source arrays are expanded with the offset of element k computed as
 * offsetof(array) + k * sizeof(double); a test checks every table against the
 * struct layout by writing and reading each field.
 *
 * This file is the one table of result fields (STYLE.md 6.9): the database
 * schema, JSON and CSV names, report tables, docs and the MPI packing all
 * iterate these rows, so a new field is one row here plus its struct member. It
 * must never hold a unit or name spelled a second time elsewhere, and never
 * reorder rows casually: row order is column order in CSV and JSON, the first
 * nine job rows are issue 6's contract, and resfield_shape_hash (checked
 * against io/db.h's DB_SCHEMA_FIELDS_HASH by test_db) changes with it. */
#include "models/resfield.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

/* Units: the suffix a name takes in that unit, the unit's symbol, and how many
 * SI units of the same dimension make one (86400 s in a day). The suffix tables
 * are token-pasted by ROW(), so each unit is spelled in exactly one place; a
 * field cannot carry "_mwh" in its name while its unit says J, because both
 * come from the same token. */
#define SFX_s "_s"
#define SFX_d "_days"
#define SFX_h "_hours"
#define SFX_J "_j"
#define SFX_MWh "_mwh"
#define SFX_kg "_kg"
#define SFX_t "_t"
#define SFX_USD "_usd"
#define SFX_W "_w"
#define SFX_degC "_c"
#define SFX_m3 "_m3"
#define SFX_MW "_mw"
#define SFX_Wps "_w_per_s"
#define SFX_MWps "_mw_per_s"
#define SFX_ratio ""
#define SFX_count ""
#define SFX_rate ""
#define SFX_USDpJ "_usd_per_j"
#define SFX_USDpMWh "_usd_per_mwh"
#define UNIT_s "s"
#define UNIT_d "d"
#define UNIT_h "h"
#define UNIT_J "J"
#define UNIT_MWh "MWh"
#define UNIT_kg "kg"
#define UNIT_t "t"
#define UNIT_USD "USD"
#define UNIT_W "W"
#define UNIT_degC "degC"
#define UNIT_m3 "m3"
#define UNIT_MW "MW"
#define UNIT_Wps "W/s"
#define UNIT_MWps "MW/s"
#define UNIT_ratio "1"
#define UNIT_count "count"
#define UNIT_rate "1/s"
#define UNIT_USDpJ "USD/J"
#define UNIT_USDpMWh "USD/MWh"
#define PER_s 1.0
#define PER_d 86400.0
#define PER_h 3600.0
#define PER_J 1.0
#define PER_MWh 3.6e9
#define PER_kg 1.0
#define PER_t 1000.0
#define PER_USD 1.0
#define PER_W 1.0
#define PER_degC 1.0
#define PER_m3 1.0
#define PER_MW 1e6
#define PER_Wps 1.0
#define PER_MWps 1e6
#define PER_ratio 1.0
#define PER_count 1.0
#define PER_rate 1.0
#define PER_USDpJ 1.0
#define PER_USDpMWh (1.0 / 3.6e9)

/* Rows are compile-time initialisers rather than code building an array at
 * start-up, so the tables are const, shared by every thread of a sweep without
 * locking, and usable before main() does anything. */
#define ROW(st, mname, off, ty, base, si, du, out, label, doc)                 \
    {                                                                          \
        base SFX_##si, base SFX_##du, UNIT_##si, UNIT_##du, PER_##du, label,   \
            doc, out, mname, off, ty                                           \
    }
/* A double member m of struct st. */
#define F(st, m, base, si, du, out, label, doc)                                \
    ROW(st, #m, offsetof(st, m), RESFIELD_DOUBLE, base, si, du, out, label, doc)
/* An int / int32_t member (always a count or a 0/1 flag). */
#define FI(st, m, base, u, out, label, doc)                                    \
    ROW(st, #m, offsetof(st, m), RESFIELD_INT, base, u, u, out, label, doc)
#define FI32(st, m, base, u, out, label, doc)                                  \
    ROW(st, #m, offsetof(st, m), RESFIELD_INT32, base, u, u, out, label, doc)
/* Element k of the per-source array m, named pre + source + unit suffix. */
#define SRC(st, m, k, src, pre, si, du, out, label, doc)                       \
    ROW(st, #m "[" #k "]", offsetof(st, m) + (k) * sizeof(double),             \
        RESFIELD_DOUBLE, pre src, si, du, out, label " " src, doc)
/* The per-source rows: one per registry source (models/source.h), in its
 * order, so a new source gets its columns from the registry alone. */
#define JOB_SRC_(k, name, l, c, r, ren, mr)                                    \
    SRC(res_job, energy_by_source_j, k, name, "energy_", J, MWh, 0,            \
        "energy from", "facility energy of the job delivered by this source"),
#define SITE_SRC_(k, name, l, c, r, ren, mr)                                   \
    SRC(res_site, energy_by_source_j, k, name, "energy_", J, MWh, RUN,         \
        "energy from", "energy delivered to the load by this source"),
#define STEP_SRC_(k, name, l, c, r, ren, mr)                                   \
    SRC(res_step, source_w, k, name, "", W, W, 0, "power from",                \
        "power delivered to the load by this source"),

/* One item of the annualised cost breakdown (models/cost.h cost_item order),
 * element k of res_site.annualized_item_usd. */
#define COST_ROW(k, item, what)                                                \
    ROW(res_site, "annualized_item_usd[" #k "]",                               \
        offsetof(res_site, annualized_item_usd) + (k) * sizeof(double),        \
        RESFIELD_DOUBLE, "annualized_" item, USD, USD, RUN,                    \
        "annualised " what, "annualised cost of " what ", per year")

/* RUN marks the rows that appear in run output (JSON, tables); rows with 0 are
 * stored and exported but not printed by default. */
#define RUN RESFIELD_RUN

/* Issue 6's run JSON contract is the first nine rows, in this order. */
const resfield resfield_job[] = {
    F(res_job, time_to_train_s, "time_to_train", s, d, RUN,
      "time to train (submit to end)", "end_s - submit_s, queueing included"),
    F(res_job, gpu_s, "gpu", s, h, RUN, "GPU-hours held",
      "GPU time held (GPUs x time held)"),
    F(res_job, it_energy_j, "it_energy", J, MWh, RUN, "IT energy",
      "the job's share of IT energy"),
    F(res_job, facility_energy_j, "facility_energy", J, MWh, RUN,
      "facility energy (energy per run)", "the job's share of facility energy"),
    F(res_job, renewable_fraction, "renewable_fraction", ratio, ratio, RUN,
      "renewable share", "share of facility energy from renewables"),
    F(res_job, co2_kg, "co2", kg, t, RUN, "carbon (lifecycle CO2e)",
      "lifecycle CO2e of the job's energy"),
    F(res_job, cost_usd, "cost", USD, USD, RUN, "energy cost",
      "energy cost of the job"),
    FI32(res_job, interruptions, "interruptions", count, RUN, "interruptions",
         "failures that cost work"),
    F(res_job, goodput, "goodput", ratio, ratio, RUN,
      "goodput (ideal / actual run time)", "useful training time / time held"),
    F(res_job, run_time_s, "run_time", s, d, RUN, "run time (start to end)",
      "end_s - start_s"),
    F(res_job, submit_s, "submit", s, d, RUN, "submit",
      "submission time since simulation start"),
    F(res_job, start_s, "start", s, d, RUN, "start",
      "first start time since simulation start (NULL if never started)"),
    F(res_job, end_s, "end", s, d, RUN, "end",
      "end of training since simulation start (NULL if not finished)"),
    FI32(res_job, checkpoints, "checkpoints", count, RUN, "checkpoints",
         "checkpoints written"),
    FI32(res_job, pauses, "pauses", count, RUN, "power pauses",
         "pauses for lack of power"),
    F(res_job, tokens_per_sec_per_gpu, "tokens_per_sec_per_gpu", rate, rate,
      RUN, "throughput at placement (tokens/s/GPU)",
      "undisturbed tokens/s/GPU at placement"),
    FI32(res_job, modules_spanned, "modules_spanned", count, RUN,
         "modules spanned", "modules the placement crossed"),
    FI(res_job, completed, "completed", ratio, RUN,
       "finished within the horizon",
       "1 if training finished within the horizon, else 0"),
    F(res_job, tokens, "tokens", count, count, 0, "tokens trained",
      "tokens trained"),
    FI32(res_job, gpus, "gpus", count, 0, "GPUs held",
         "GPUs held, hot spares excluded"),
    F(res_job, gpu_energy_j, "gpu_energy", J, MWh, 0, "GPU energy",
      "energy drawn by the job's GPUs (part of its IT energy)"),
    SOURCE_TABLE(JOB_SRC_)
    /* Issue 22: cost per run and the power-shortage times. */
    F(res_job, cost_per_run_usd, "cost_per_run", USD, USD, RUN,
      "cost per run (capital + O&M + energy)",
      "the job's share of the site's annualised capital, fixed O&M and "
      "demand charges while it holds GPUs, plus its purchased energy and "
      "variable O&M (docs/cost-model.md)"),
    F(res_job, paused_s, "paused", s, h, RUN, "time paused for lack of power",
      "time the job was paused or shed for lack of power"),
    F(res_job, paused_fraction, "paused_fraction", ratio, ratio, RUN,
      "paused share", "time paused or shed / time holding power"),
    F(res_job, throttled_fraction, "throttled_fraction", ratio, ratio, RUN,
      "throttled share",
      "time throttled (running below full power) / "
      "time holding power"),
};
const size_t resfield_n_job = sizeof resfield_job / sizeof resfield_job[0];

const resfield resfield_site[] = {
    F(res_site, utilization, "utilization", ratio, ratio, RUN,
      "GPU utilization", "GPU-time busy / GPU-time online"),
    F(res_site, it_energy_j, "it_energy", J, MWh, RUN, "IT energy",
      "IT energy served"),
    F(res_site, facility_energy_j, "facility_energy", J, MWh, RUN,
      "facility energy", "facility energy served"),
    SOURCE_TABLE(SITE_SRC_)
        F(res_site, battery_charge_j, "battery_charge", J, MWh, RUN,
          "energy into batteries", "energy put into batteries"),
    F(res_site, curtailed_j, "curtailed", J, MWh, RUN, "curtailed",
      "renewable energy neither used nor stored"),
    F(res_site, shortfall_j, "shortfall", J, MWh, RUN, "unserved demand",
      "demand not served"),
    F(res_site, time_short_s, "time_short", s, h, RUN, "time short of power",
      "time in steps where the site could not run at full demand: some "
      "demand unserved, or a job throttled, paused or shed for lack of power"),
    F(res_site, battery_cycles, "battery_cycles", count, count, RUN,
      "battery equivalent full cycles", "equivalent full battery cycles"),
    F(res_site, battery_soh_final, "battery_soh_final", ratio, ratio, RUN,
      "battery state of health at the end",
      "mean battery state of health at the end"),
    F(res_site, renewable_fraction, "renewable_fraction", ratio, ratio, RUN,
      "renewable share", "share of facility energy from renewables"),
    F(res_site, co2_kg, "co2", kg, t, RUN, "carbon (lifecycle CO2e)",
      "lifecycle CO2e of the site's energy"),
    F(res_site, cost_usd, "cost", USD, USD, RUN, "energy cost",
      "energy cost of the site"),
    F(res_site, pue_mean, "pue_mean", ratio, ratio, RUN,
      "PUE (facility / IT energy)", "facility energy / IT energy"),
    F(res_site, water_m3, "water", m3, m3, RUN, "cooling water",
      "water the cooling evaporates: WUE per design x IT energy served "
      "(docs/power-model.md 6)"),
    F(res_site, solar_capacity_factor, "solar_capacity_factor", ratio, ratio,
      RUN, "solar capacity factor (AC)",
      "solar AC energy / (AC rating x horizon)"),
    F(res_site, wind_capacity_factor, "wind_capacity_factor", ratio, ratio, RUN,
      "wind capacity factor",
      "wind generation before curtailment / (nameplate x horizon)"),
    F(res_site, solar_energy_j, "solar_energy", J, MWh, RUN,
      "solar generation (AC, before curtailment)",
      "AC energy the PV plants generate over the horizon, curtailed and "
      "stored energy included (energy_solar is the part delivered to the "
      "load)"),
    /* Issue 22: sizing figures and the cost model (models/cost.h). */
    F(res_site, curtailed_fraction, "curtailed_fraction", ratio, ratio, RUN,
      "curtailed share", "curtailed / solar and wind generation"),
    F(res_site, battery_replacements, "battery_replacements", count, count, RUN,
      "battery packs replaced",
      "packs whose health fell below costs.battery_replace_soh"),
    F(res_site, grid_peak_w, "grid_peak", W, W, RUN, "peak grid import",
      "peak grid import (demand charges)"),
    F(res_site, capex_usd, "capex", USD, USD, RUN, "capital cost",
      "capital of GPU systems, modules, solar, battery, wind and grid"),
    F(res_site, annualized_cost_usd, "annualized_cost", USD, USD, RUN,
      "annualised cost (per year)",
      "capital x capital recovery factor + O&M + energy, per year"),
    F(res_site, lcoe_usd_per_j, "lcoe", USDpJ, USDpMWh, RUN,
      "LCOE of the energy supply",
      "annualised cost of solar, battery, wind, grid, their O&M and "
      "purchased energy / facility energy per year"),
    F(res_site, npv_usd, "npv", USD, USD, RUN, "NPV of costs",
      "minus the present value of the annualised cost over "
      "costs.npv_horizon_years"),
    COST_ROW(0, "gpus", "GPU systems"),
    COST_ROW(1, "modules", "modules"),
    COST_ROW(2, "solar", "solar"),
    COST_ROW(3, "battery", "battery (incl. replacements)"),
    COST_ROW(4, "wind", "wind"),
    COST_ROW(5, "grid", "grid interconnection"),
    COST_ROW(6, "om", "O&M"),
    COST_ROW(7, "energy", "purchased energy and demand charges"),
    /* Training power dynamics (issue 21, models/powerdyn.h): over the
     * representative windows of the run, at 100 Hz. */
    F(res_site, power_peak_w, "power_peak", W, MW, RUN, "peak power (100 Hz)",
      "highest facility power over all windows (steady and events)"),
    F(res_site, power_min_w, "power_min", W, MW, RUN, "minimum power (100 Hz)",
      "lowest facility power over all windows (steady and events)"),
    F(res_site, power_swing_w, "power_swing", W, MW, RUN, "power swing",
      "largest peak-to-peak over the steady-state windows"),
    F(res_site, power_std_w, "power_std", W, MW, RUN,
      "power standard deviation",
      "largest standard deviation over the steady-state windows"),
    F(res_site, power_max_ramp_w_per_s, "power_max_ramp", Wps, MWps, RUN,
      "largest ramp",
      "largest |change over 0.1 s| / 0.1 s in the steady-state "
      "windows"),
    F(res_site, power_band_0p1_2hz_rms_w, "power_band_0p1_2hz_rms", W, MW, RUN,
      "RMS 0.1-2 Hz",
      "largest RMS of the power in the 0.1-2 Hz band over the "
      "steady-state windows (Welch PSD)"),
    F(res_site, power_band_3_30hz_rms_w, "power_band_3_30hz_rms", W, MW, RUN,
      "RMS 3-30 Hz",
      "largest RMS of the power in the 3-30 Hz band over the "
      "steady-state windows (Welch PSD)"),
    F(res_site, power_largest_drop_w, "power_largest_drop", W, MW, RUN,
      "largest load drop",
      "largest load that can drop at once: a job in its "
      "compute phase to idle, or a module at its peak to off"),
    F(res_site, battery_power_for_ramp_limit_w, "battery_power_for_ramp_limit",
      W, MW, RUN, "battery power for the ramp limit",
      "battery power that keeps the grid draw within "
      "policy.ramp_limit_mw_per_s "
      "over the steady-state and checkpoint/restart windows (0: no limit)"),
    F(res_site, power_jobs_mean_w, "power_jobs_mean", W, MW, RUN,
      "jobs' mean power (100 Hz)",
      "mean over the steady-state windows of the jobs' IT power (facility "
      "power less the window's constant part); the modules' power_mean_w "
      "sum to it"),
};
const size_t resfield_n_site = sizeof resfield_site / sizeof resfield_site[0];

const resfield resfield_step[] = {
    F(res_step, t_s, "t", s, s, 0, "time", "step start since simulation start"),
    F(res_step, it_w, "it", W, W, 0, "IT load", "IT load served"),
    F(res_step, facility_w, "facility", W, W, 0, "facility load",
      "facility load served"),
    F(res_step, demand_w, "demand", W, W, 0, "demand",
      "facility load before any shortage action"),
    SOURCE_TABLE(STEP_SRC_)
        F(res_step, battery_charge_w, "battery_charge", W, W, 0,
          "power into batteries", "power into batteries"),
    F(res_step, curtailed_w, "curtailed", W, W, 0, "curtailed",
      "renewable power neither used nor stored"),
    F(res_step, shortfall_w, "shortfall", W, W, 0, "unserved demand",
      "demand not served"),
    F(res_step, soc_frac, "soc_frac", ratio, ratio, 0,
      "battery state of charge", "battery state of charge (NULL: no battery)"),
    F(res_step, soh_frac, "soh_frac", ratio, ratio, 0,
      "battery state of health", "battery state of health (NULL: no battery)"),
    F(res_step, ambient_c, "ambient", degC, degC, 0, "ambient temperature",
      "dry-bulb temperature"),
    F(res_step, pue, "pue", ratio, ratio, 0, "PUE", "facility / IT power"),
    F(res_step, throttle, "throttle", ratio, ratio, 0, "GPU power fraction",
      "GPU power as a fraction of full power during the step (1: not "
      "throttled); the throughput factor this gives a job is in the event "
      "log (throttle events)"),
};
const size_t resfield_n_step = sizeof resfield_step / sizeof resfield_step[0];

/* Per module (issue 21): the same figures as the site's power_* fields,
 * of the IT power of the jobs a module hosts. */
const resfield resfield_module[] = {
    F(res_module, power_mean_w, "power_mean", W, MW, 0, "mean power",
      "mean over the steady-state windows of the jobs' IT power on the "
      "module"),
    F(res_module, power_peak_w, "power_peak", W, MW, 0, "peak power (100 Hz)",
      "highest power over the steady-state windows"),
    F(res_module, power_min_w, "power_min", W, MW, 0, "minimum power (100 Hz)",
      "lowest power over the steady-state windows"),
    F(res_module, power_swing_w, "power_swing", W, MW, 0, "power swing",
      "largest peak-to-peak over the steady-state windows"),
    F(res_module, power_std_w, "power_std", W, MW, 0,
      "power standard deviation",
      "largest standard deviation over the steady-state windows"),
    F(res_module, power_max_ramp_w_per_s, "power_max_ramp", Wps, MWps, 0,
      "largest ramp",
      "largest |change over 0.1 s| / 0.1 s in the steady-state windows"),
    F(res_module, power_band_0p1_2hz_rms_w, "power_band_0p1_2hz_rms", W, MW, 0,
      "RMS 0.1-2 Hz",
      "largest RMS in the 0.1-2 Hz band over the steady-state windows "
      "(Welch PSD)"),
    F(res_module, power_band_3_30hz_rms_w, "power_band_3_30hz_rms", W, MW, 0,
      "RMS 3-30 Hz",
      "largest RMS in the 3-30 Hz band over the steady-state windows "
      "(Welch PSD)"),
    F(res_module, power_largest_drop_w, "power_largest_drop", W, MW, 0,
      "largest load drop",
      "the module with all its jobs at their compute peak, to off"),
};
const size_t resfield_n_module =
    sizeof resfield_module / sizeof resfield_module[0];

/* The representative window (issue 21), what the report's power-dynamics
 * chart draws. */
const resfield resfield_pd_sample[] = {
    F(res_pd_sample, t_s, "t", s, s, 0, "time",
      "since the representative window's start (100 Hz samples)"),
    F(res_pd_sample, power_w, "power", W, MW, 0, "facility power",
      "facility power with the scenario's smoothing (bin mean)"),
    F(res_pd_sample, power_unsmoothed_w, "power_unsmoothed", W, MW, 0,
      "facility power, no smoothing",
      "the same jobs and phase offsets without GPU power floor, ramp "
      "limits, hysteresis or rack storage"),
};
const size_t resfield_n_pd_sample =
    sizeof resfield_pd_sample / sizeof resfield_pd_sample[0];

/* memcpy rather than a cast through the member's pointer type: the offset comes
 * from a table, and memcpy is defined for any alignment and avoids
 * strict-aliasing traps when the compiler inlines across records. */
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

double resfield_get_disp(const void *rec, const resfield *f)
{
    return resfield_get(rec, f) / f->disp_per;
}

void resfield_set(void *rec, const resfield *f, double v)
{
    char *p = (char *)rec + f->offset;
    /* Integers arrive as doubles from the database and from other ranks;
     * rounding (nearbyint) before the cast makes 2.9999999 a 3, not a 2.
     * Clamped so that an out-of-range value cannot overflow the cast. */
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

/* A field may be named by its SI name or its display name (report --field,
 * export --fields); disp tells the caller which, so that values are printed in
 * the unit the user asked for. The SI name wins when both spell the same
 * (unitless fields), so ratios are never divided by a display factor. */
int resfield_find(const resfield *t, size_t n, const char *name, int *disp)
{
    for (size_t i = 0; i < n; i++) {
        int d =
            strcmp(t[i].disp_name, name) == 0 && strcmp(t[i].name, name) != 0;
        if (d || strcmp(t[i].name, name) == 0) {
            if (disp)
                *disp = d;
            return (int)i;
        }
    }
    return -1;
}

/* The values are gathered into a contiguous array first because each
 * replication's jobs are a separate allocation, so one field across
 * replications sits at no fixed stride that stats_summarize could walk. */
stat_summary resfield_job_summary(const resfield *f, const res_rep *reps,
                                  size_t n, size_t i, int disp)
{
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    stat_summary s;
    for (size_t r = 0; r < n; r++)
        v[r] = disp ? resfield_get_disp(&reps[r].jobs[i], f)
                    : resfield_get(&reps[r].jobs[i], f);
    s = stats_summarize(v, 1, n);
    free(v);
    return s;
}

stat_summary resfield_site_summary(const resfield *f, const res_rep *reps,
                                   size_t n, int disp)
{
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    stat_summary s;
    for (size_t r = 0; r < n; r++)
        v[r] = disp ? resfield_get_disp(&reps[r].site, f)
                    : resfield_get(&reps[r].site, f);
    s = stats_summarize(v, 1, n);
    free(v);
    return s;
}

/* FNV-1a 64 (the same parameters as sim/rng.c); it only needs to detect a
 * change in the tables, not resist an adversary. */
static unsigned long long fnv(unsigned long long h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    h ^= 0xff; /* separator, so "ab"+"c" differs from "a"+"bc" */
    return h * 0x100000001b3ULL;
}

/* The hash covers exactly what the database schema depends on: table order,
 * column names, units and SQL types. A change in any of them changes the hash,
 * and test_db fails until io/db.h's DB_SCHEMA_FIELDS_HASH and the schema
 * version are bumped with a migration step, so a stored database can never be
 * read with a silently different layout. Labels and docs are left out on
 * purpose: rewording a label is not a schema change. */
unsigned long long resfield_shape_hash(void)
{
    static const char *const tname[] = {"REAL", "INTEGER", "INTEGER"};
    const resfield *t[5] = {resfield_job, resfield_site, resfield_step,
                            resfield_module, resfield_pd_sample};
    const size_t n[5] = {resfield_n_job, resfield_n_site, resfield_n_step,
                         resfield_n_module, resfield_n_pd_sample};
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (int k = 0; k < 5; k++) {
        h = fnv(h, "table");
        for (size_t i = 0; i < n[k]; i++) {
            h = fnv(h, t[k][i].name);
            h = fnv(h, t[k][i].unit);
            h = fnv(h, tname[t[k][i].type]);
        }
    }
    return h;
}
