/* cli/bench_site.c: `factorysim bench site SCENARIO`: wall seconds per
 * replication of the site simulation (set-up and output excluded), for the
 * issue 6 target of <= 1 s per replication of a 100 MW year. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/climate_load.h"
#include "io/json.h"
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/site.h"
#include "sim/mem.h"

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_site(int argc, char **argv)
{
    static const struct option opts[] = {
        {"replications", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "bench";
    uint32_t n = 3;
    int fmt = CLI_FMT_TABLE, o, rc = CLI_EXIT_ERR;
    catalog *cat = NULL;
    scenario *s = NULL;
    tp_model *tp = NULL;
    climate_year *wx = NULL;
    res_rep *reps = NULL;
    sim_err err;
    double t0, t1;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'r':
            if (cli_u32(cmd, "--replications", optarg, 1, 10000, &n) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            if (fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            puts("Usage: factorysim bench site SCENARIO [--replications R] "
                 "[--format table|json]\n"
                 "Times R replications of the site simulation (failures on).");
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error(cmd, "bench site needs one SCENARIO");
    sim_err_clear(&err);
    if (catalog_load(NULL, &cat, &err) != SIM_OK ||
        scenario_load(argv[optind], cat, NULL, 0, &s, &err) != SIM_OK ||
        climate_load_for_scenario(s, &wx, &err) != SIM_OK ||
        tp_model_default(&tp, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    reps = sim_xcalloc(n, sizeof *reps);
    {
        site_opts so;
        site_opts_default(&so);
        site_rel_from_scenario(&so.rel, s);
        so.seed = s->sim.seed;
        so.tp = tp;
        so.weather = wx;
        t0 = wall_s();
        if (site_run_reps(s, &so, 0, n, reps, &err) != SIM_OK) {
            free(reps);
            reps = NULL;
            rc = cli_report(&err);
            goto done;
        }
        t1 = wall_s();
    }
    {
        int64_t gpus = scenario_gpus(s, NULL);
        double per = (t1 - t0) / n, events = 0;
        for (uint32_t r = 0; r < n; r++)
            for (size_t j = 0; j < reps[r].n_jobs; j++)
                events += reps[r].jobs[j].interruptions;
        if (fmt == CLI_FMT_JSON) {
            jv *js = jv_obj();
            jv_set(js, "replications", jv_int(n));
            jv_set(js, "gpus", jv_int(gpus));
            jv_set(js, "it_mw", jv_num(scenario_it_power_w(s) / 1e6));
            jv_set(js, "horizon_days", jv_num(s->sim.horizon_s / 86400.0));
            jv_set(js, "wall_s", jv_num(t1 - t0));
            jv_set(js, "s_per_replication", jv_num(per));
            jv_write(js, stdout, 0);
            jv_free(js);
        } else {
            printf("site: %s, %lld GPUs, %.1f MW IT, %.0f days at %.0f min "
                   "steps\n",
                   argv[optind], (long long)gpus, scenario_it_power_w(s) / 1e6,
                   s->sim.horizon_s / 86400.0, s->sim.step_s / 60.0);
            printf("  replications           %10u\n", n);
            printf("  interruptions / rep    %10.1f\n", events / n);
            printf("  wall time              %10.3f s\n", t1 - t0);
            printf("  per replication        %10.3f s\n", per);
        }
        rc = CLI_EXIT_OK;
    }
done:
    if (reps)
        for (uint32_t r = 0; r < n; r++)
            res_rep_free(&reps[r]);
    free(reps);
    tp_model_free(tp);
    climate_year_free(wx);
    scenario_free(s);
    catalog_free(cat);
    return rc;
}
