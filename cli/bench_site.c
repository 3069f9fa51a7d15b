/* cli/bench_site.c: `factorysim bench site SCENARIO`: wall seconds per
 * replication of the site simulation (set-up and output excluded), for the
 * issue 6 target of <= 1 s per replication of a 100 MW year. A subcommand
 * of `bench` (cli/cmd_bench.c dispatches to it): the case runs through
 * app/runcase.h like `run`'s, so the benchmark times what run runs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/runcase.h"
#include "cli/cli.h"
#include "io/json.h"

/* The figures of one bench site run: table or JSON on stdout. */
static void print_bench(const char *path, const runcase_out *out, uint32_t n,
                        int fmt)
{
    const scenario *s = out->s;
    int64_t gpus = scenario_gpus(s, NULL);
    double t = out->sim_wall_s, per = t / n, events = 0;
    for (size_t r = 0; r < out->n_reps; r++)
        for (size_t j = 0; j < out->reps[r].n_jobs; j++)
            events += out->reps[r].jobs[j].interruptions;
    if (fmt == CLI_FMT_JSON) {
        jv *js = jv_obj();
        jv_set(js, "replications", jv_int(n));
        jv_set(js, "gpus", jv_int(gpus));
        jv_set(js, "it_mw", jv_num(scenario_it_power_w(s) / 1e6));
        jv_set(js, "horizon_days", jv_num(s->sim.horizon_s / 86400.0));
        jv_set(js, "wall_s", jv_num(t));
        jv_set(js, "s_per_replication", jv_num(per));
        jv_write(js, stdout, 0);
        jv_free(js);
        return;
    }
    printf("site: %s, %lld GPUs, %.1f MW IT, %.0f days at %.0f min steps\n",
           path, (long long)gpus, scenario_it_power_w(s) / 1e6,
           s->sim.horizon_s / 86400.0, s->sim.step_s / 60.0);
    printf("  replications           %10u\n", n);
    printf("  interruptions / rep    %10.1f\n", events / n);
    printf("  wall time              %10.3f s\n", t);
    printf("  per replication        %10.3f s\n", per);
}

/* The timed part is runcase_run's replications alone
 * (runcase_out.sim_wall_s), so loading the scenario and weather is never
 * counted. */
int bench_site(int argc, char **argv)
{
    static const struct option opts[] = {
        {"replications", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"no-power-dynamics", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "bench";
    uint32_t n = 3;
    int fmt = CLI_FMT_TABLE, o, rc = CLI_EXIT_OK, no_pd = 0;
    /* --no-power-dynamics as run's: the scenario key, so the timed case
     * is exactly `run --no-power-dynamics`'s (make bench compares). */
    static const char *const pd_off[] = {"policy.power_dynamics=false"};
    runcase_in in;
    runcase_out out;
    sim_err err;

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
        case 'P':
            no_pd = 1;
            break;
        case 'h':
            puts("Usage: factorysim bench site SCENARIO [--replications R] "
                 "[--format table|json] [--no-power-dynamics]\n"
                 "Times R replications of the site simulation (failures on;\n"
                 "--no-power-dynamics: without the power dynamics analysis).");
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error(cmd, "bench site needs one SCENARIO");
    sim_err_clear(&err);
    /* The scenario as it is (default catalog and calibration, its own seed
     * and failures), R replications, nothing recorded: what a sweep case
     * costs without its series. */
    memset(&in, 0, sizeof in);
    in.scenario_path = argv[optind];
    in.replications = n;
    if (no_pd) {
        in.overrides = pd_off;
        in.n_overrides = 1;
    }
    if (runcase_run(&in, &out, &err) != SIM_OK)
        rc = cli_report(&err);
    else
        print_bench(argv[optind], &out, n, fmt);
    runcase_out_free(&out);
    return rc;
}
