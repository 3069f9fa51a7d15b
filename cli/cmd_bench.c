/* cli/cmd_bench.c: `factorysim bench phold`: the engine benchmark
 * (models/phold.h). Wall time is measured here and only printed: it is the
 * one figure meant to vary between runs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "io/json.h"
#include "models/phold.h"

static const char bench_help[] =
    "Usage: factorysim bench phold [OPTIONS]\n"
    "\n"
    "PHOLD: --lps logical processes start with --start-events events each;\n"
    "every event schedules one new event at now + lookahead + Exp(mean),\n"
    "sent to a uniformly random LP with probability --remote, else to\n"
    "itself, until --end. Prints events processed, wall seconds and events\n"
    "per second.\n"
    "\n"
    "Options:\n"
    "  --lps N            logical processes (default 1024)\n"
    "  --start-events K   initial events per LP (default 16)\n"
    "  --end T            simulated end time [s] (default 2000)\n"
    "  --remote P         probability of a remote destination (default 0.25)\n"
    "  --mean M           mean of the exponential delay part [s] (default 1)\n"
    "  --lookahead L      fixed delay part [s] (default 1)\n"
    "  --seed N           master seed (default 1)\n"
    "  --format F         table (default), json or csv\n"
    "  -h, --help         this help\n";

/* Why long: the option switch of PHOLD's six parameters, the run
 * (models/phold.h) between two clock reads, and the three output formats
 * of the same figures; the benchmark's model lives in models/phold.c and
 * the dispatch to the other subcommands is cmd_bench below. */
static int bench_phold(int argc, char **argv)
{
    static const struct option opts[] = {
        {"lps", required_argument, NULL, 'n'},
        {"start-events", required_argument, NULL, 'k'},
        {"end", required_argument, NULL, 'e'},
        {"remote", required_argument, NULL, 'r'},
        {"mean", required_argument, NULL, 'm'},
        {"lookahead", required_argument, NULL, 'l'},
        {"seed", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    phold_cfg c = {1024, 16, 2000.0, 0.25, 1.0, 1.0, 1};
    phold_result res;
    sim_err err;
    int fmt = CLI_FMT_TABLE, o;
    const char *cmd = "bench";

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int bad = 0;
        switch (o) {
        case 'n':
            bad = cli_u32(cmd, "--lps", optarg, 1, 100000000u, &c.n_lps);
            break;
        case 'k':
            bad = cli_u32(cmd, "--start-events", optarg, 1, 100000000u,
                          &c.start_events);
            break;
        case 'e':
            bad = cli_double(cmd, "--end", optarg, 1e-9, 1e15, &c.end_s);
            break;
        case 'r':
            bad = cli_double(cmd, "--remote", optarg, 0.0, 1.0, &c.remote);
            break;
        case 'm':
            bad = cli_double(cmd, "--mean", optarg, 0.0, 1e15, &c.mean_s);
            break;
        case 'l':
            bad = cli_double(cmd, "--lookahead", optarg, 0.0, 1e15,
                             &c.lookahead_s);
            break;
        case 's':
            bad = cli_seed(cmd, "--seed", optarg, &c.seed);
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            bad = fmt < 0;
            break;
        case 'h':
            fputs(bench_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    sim_err_clear(&err);
    if (phold_run(&c, &res, &err) != SIM_OK) {
        err.code = SIM_EUSAGE;
        return cli_report(&err);
    }
    {
        double rate = res.wall_s > 0 ? (double)res.events / res.wall_s : 0.0;
        if (fmt == CLI_FMT_JSON) {
            jv *o2 = jv_obj();
            jv_set(o2, "events", jv_int((int64_t)res.events));
            jv_set(o2, "wall_s", jv_num(res.wall_s));
            jv_set(o2, "events_per_sec", jv_num(rate));
            jv_write(o2, stdout, 0);
            jv_free(o2);
        } else if (fmt == CLI_FMT_CSV) {
            printf("events,wall_s,events_per_sec\n%llu,%.6f,%.1f\n",
                   (unsigned long long)res.events, res.wall_s, rate);
        } else {
            printf("PHOLD: %u LPs x %u start events = %llu pending, end %g s,\n"
                   "       remote %g, delay %g s + Exp(mean %g s), seed %llu\n",
                   c.n_lps, c.start_events,
                   (unsigned long long)c.n_lps * c.start_events, c.end_s,
                   c.remote, c.lookahead_s, c.mean_s,
                   (unsigned long long)c.seed);
            printf("  events processed    %14llu\n",
                   (unsigned long long)res.events);
            printf("  remote events       %14llu\n",
                   (unsigned long long)res.remote_events);
            printf("  wall time           %14.3f s\n", res.wall_s);
            printf("  events per second   %14.0f events/s (%.2f M/s)\n", rate,
                   rate / 1e6);
        }
    }
    return CLI_EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        fputs(bench_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "phold") == 0)
        return bench_phold(argc - 1, argv + 1);
    if (strcmp(argv[1], "predict") == 0)
        return bench_predict(argc - 1, argv + 1);
    if (strcmp(argv[1], "site") == 0)
        return bench_site(argc - 1, argv + 1);
    return cli_usage_error(
        "bench", "unknown benchmark '%s' (expected: phold, predict, site)",
        argv[1]);
}
