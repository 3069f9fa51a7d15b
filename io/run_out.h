/* io/run_out.h: a run's results as text: the table a planner reads, one
 * JSON object, or CSV (long format). All three carry the same numbers:
 * every metric of models/metrics.h summarised over the replications as
 * mean, P10, P50, P90, min and max, with units. Nothing time- or
 * machine-dependent is printed, so the same scenario and seed give the same
 * bytes. */
#ifndef IO_RUN_OUT_H
#define IO_RUN_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "models/results.h"
#include "io/json.h"
#include "models/scenario.h"
#include "models/throughput.h"

/* What the run was. name: the scenario's name (its file name without
 * folder and extension). */
typedef struct run_info {
    const char *name;
    uint64_t seed;
    uint32_t replications;
    const tp_model *tp; /* the calibration of the run: each job's layout is
                           printed (site_job_throughput); NULL = none */
} run_info;

/* Fills the JSON object o with r's layout: "tp", "pp", "vp", "cp", "ep", "etp",
 * "mbs", "recompute", "distributed_optimizer", "fsdp" and "chosen" (the
 * names of the fields tp_predict chose, in that order). `predict` and `run`
 * print this one object. */
void run_out_layout_json(jv *o, const tp_result *r);

/* The scenario's name for output: file name without folder and ".cfg",
 * into buf. Returns buf. */
char *run_scenario_name(const scenario *s, char *buf, size_t n);

/* The site's solar P90 exceedance (models/results.h
 * res_solar_p90_exceedance_j) in MWh: in JSON a plain number under "site"
 * (one figure across replications, not a summary), in CSV a site row with
 * only the mean column filled, in the table a line below the site metrics.
 * Written only for a site with solar. */
#define RUN_OUT_SOLAR_P90 "solar_energy_p90_exceedance_mwh"

/* JSON: {"scenario": ..., "seed": ..., "replications": R, "jobs": [{"name":
 * ..., "model": ..., "gpu": ..., "gpus": ..., "finished": k, "layout":
 * {run_out_layout_json}, "metrics":
 * {"time_to_train_days": {"mean": .., "p10": .., "p50": .., "p90": ..,
 * "min": .., "max": ..}, ...}}], "site": {"utilization": {...}, ...}}.
 * Returns 0 or SIM_EIO. */
int run_out_json(FILE *f, const run_info *ri, const scenario *s,
                 const res_rep *reps, size_t n);

/* CSV with header scope,name,metric,unit,n,mean,p10,p50,p90,min,max; one
 * row per job metric and per site metric. */
int run_out_csv(FILE *f, const run_info *ri, const scenario *s,
                const res_rep *reps, size_t n);

/* The human-readable table. */
int run_out_table(FILE *f, const run_info *ri, const scenario *s,
                  const res_rep *reps, size_t n);

#endif
