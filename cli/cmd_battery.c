/* cli/cmd_battery.c: `factorysim battery`: how long second-life packs
 * last under a duty cycle or a recorded SOC history, at a fixed cell
 * temperature or in an enclosure on a weather file (models/battery_life.h).
 * This file only parses options and input files and prints; the wear is
 * models/battery.c's, the same the site simulation uses.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/csv.h"
#include "io/epw.h"
#include "io/json.h"
#include "models/battery_life.h"
#include "sim/mem.h"

static const char battery_help[] =
    "Usage: factorysim battery [--cycles-per-day N] [--soc-min A] "
    "[--soc-max B]\n"
    "                          [--c-rate C] [--years Y] [--temp-c T | --epw "
    "FILE]\n"
    "                          [--soc-csv FILE] [--format table|json]\n"
    "\n"
    "How long second-life Nissan Leaf packs last (NREL BLAST-Lite's\n"
    "second-life model, cycles counted over the second-life-start capacity):\n"
    "per year the capacity retained relative to second-life start and the\n"
    "equivalent full cycles.\n"
    "\n"
    "Options:\n"
    "  --cycles-per-day N  cycles a day, 0..48 (default 1; 0 = idle at the\n"
    "                      middle of the SOC window)\n"
    "  --soc-min A         SOC at the bottom of a cycle (default 0.1)\n"
    "  --soc-max B         SOC at the top of a cycle (default 1.0)\n"
    "  --c-rate C          charge and discharge rate, SOC per hour (default\n"
    "                      0.2); the packs rest full and empty for the rest\n"
    "                      of each cycle, half each\n"
    "  --years Y           years to simulate, 1..50 (default 10)\n"
    "  --temp-c T          cell temperature, degC (default 25)\n"
    "  --epw FILE          cell temperature from the file's dry bulb plus the\n"
    "                      enclosure's 3 K rise (energy.battery.thermal\n"
    "                      ambient-rise); not with --temp-c\n"
    "  --soc-csv FILE      SOC history instead of the duty: columns t_h (step\n"
    "                      start, hours, equal steps) and soc_frac (SOC at\n"
    "                      the step's end); repeated to fill the years\n"
    "  --format F          table (default) or json\n"
    "  -h, --help          this help\n";

/* Reads t_h / soc_frac from path into a new array (*soc, *n) with the
 * step *dt_s. Errors name FILE:LINE and the column. */
static int read_soc_csv(const char *path, double **soc, size_t *n, double *dt_s,
                        sim_err *err)
{
    csvt *t = NULL;
    int rc = csvt_read(path, &t, err);
    if (rc != SIM_OK)
        return rc;
    int ct = csvt_col(t, "t_h"), cs = csvt_col(t, "soc_frac");
    if (ct < 0 || cs < 0 || t->n_rows < 2) {
        rc = sim_err_set(err, SIM_ECONFIG, path, 1,
                         "expected columns t_h and soc_frac and at least two "
                         "rows (got %zu rows%s)",
                         t->n_rows,
                         ct < 0 || cs < 0 ? ", a column missing" : "");
        csvt_free(t);
        return rc;
    }
    double *v = sim_xmalloc(t->n_rows * sizeof *v);
    double t0 = 0, step = 0;
    for (size_t i = 0; i < t->n_rows && rc == SIM_OK; i++) {
        char *end;
        double th = strtod(t->rows[i][ct], &end);
        if (end == t->rows[i][ct] || *end || !isfinite(th)) {
            rc = sim_err_set(err, SIM_ECONFIG, path, t->line[i],
                             "t_h: not a number (got '%s', expected hours)",
                             t->rows[i][ct]);
            break;
        }
        double s = strtod(t->rows[i][cs], &end);
        if (end == t->rows[i][cs] || *end || !(s >= 0 && s <= 1)) {
            rc = sim_err_set(err, SIM_ECONFIG, path, t->line[i],
                             "soc_frac: out of range (got '%s', expected a "
                             "number in [0, 1])",
                             t->rows[i][cs]);
            break;
        }
        if (i == 1)
            step = th - t0;
        if (i >= 1 && !(step > 0 && fabs(th - t0 - step * (double)i) <=
                                        1e-6 * (1 + fabs(th)))) {
            rc = sim_err_set(err, SIM_ECONFIG, path, t->line[i],
                             "t_h: steps not equal (got %g, expected %g)", th,
                             t0 + step * (double)i);
            break;
        }
        if (i == 0)
            t0 = th;
        v[i] = s;
    }
    if (rc == SIM_OK) {
        *soc = v;
        *n = t->n_rows;
        *dt_s = step * 3600.0;
    } else {
        free(v);
    }
    csvt_free(t);
    return rc;
}

/* One function, in the shape of the other commands: options, then the
 * cross-option rules (a usage error, exit 2, before any file is read),
 * then the inputs (a bad file is exit 1 naming FILE:LINE), then the model,
 * then one output. Nothing is printed until the model has succeeded, so
 * a failure never leaves a partial table or JSON on stdout. */
int cmd_battery(int argc, char **argv)
{
    static const struct option opts[] = {
        {"cycles-per-day", required_argument, NULL, 'n'},
        {"soc-min", required_argument, NULL, 'a'},
        {"soc-max", required_argument, NULL, 'b'},
        {"c-rate", required_argument, NULL, 'c'},
        {"years", required_argument, NULL, 'y'},
        {"temp-c", required_argument, NULL, 't'},
        {"epw", required_argument, NULL, 'e'},
        {"soc-csv", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "battery", *epw = NULL, *csv = NULL;
    double cycles = 1, soc_min = 0.1, soc_max = 1.0, c_rate = 0.2, temp = 25;
    uint32_t years = 10;
    int have_temp = 0, have_duty = 0, fmt = CLI_FMT_TABLE, o;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int bad = 0;
        switch (o) {
        case 'n':
            bad = cli_double(cmd, "--cycles-per-day", optarg, 0, 48, &cycles);
            have_duty = 1;
            break;
        case 'a':
            bad = cli_double(cmd, "--soc-min", optarg, 0, 1, &soc_min);
            have_duty = 1;
            break;
        case 'b':
            bad = cli_double(cmd, "--soc-max", optarg, 0, 1, &soc_max);
            have_duty = 1;
            break;
        case 'c':
            bad = cli_double(cmd, "--c-rate", optarg, 0.001, 10, &c_rate);
            have_duty = 1;
            break;
        case 'y':
            bad = cli_u32(cmd, "--years", optarg, 1, BATTERY_LIFE_MAX_YEARS,
                          &years);
            break;
        case 't':
            bad = cli_double(cmd, "--temp-c", optarg, -30, 70, &temp);
            have_temp = 1;
            break;
        case 'e':
            epw = optarg;
            break;
        case 's':
            csv = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            bad = fmt < 0;
            break;
        case 'h':
            fputs(battery_help, stdout);
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
    if (have_temp && epw)
        return cli_usage_error(cmd, "--temp-c and --epw: expected one of them "
                                    "(got both)");
    if (csv && have_duty)
        return cli_usage_error(cmd, "--soc-csv: not with --cycles-per-day, "
                                    "--soc-min, --soc-max or --c-rate (got "
                                    "both a history and a duty)");
    if (!(soc_min < soc_max))
        return cli_usage_error(cmd,
                               "--soc-min: must be below --soc-max (got %g, "
                               "expected < %g)",
                               soc_min, soc_max);

    sim_err err;
    sim_err_clear(&err);
    battery_cfg bc;
    battery_cfg_default(&bc, 1, 1.0);
    bc.temp_c = temp;
    climate_year *cy = NULL;
    double *soc = NULL, dt_s = 300.0;
    size_t n = 0;
    int rc = SIM_OK;
    if (epw) {
        cy = climate_year_new();
        rc = epw_read(epw, cy, &err);
        bc.thermal = BATTERY_THERMAL_AMBIENT_RISE;
    }
    if (rc == SIM_OK && csv) {
        rc = read_soc_csv(csv, &soc, &n, &dt_s, &err);
    } else if (rc == SIM_OK) {
        size_t n_max = (size_t)(86400.0 / dt_s);
        soc = sim_xmalloc(n_max * sizeof *soc);
        n = battery_life_daily_profile(cycles, soc_min, soc_max, c_rate, dt_s,
                                       soc, n_max, &err);
        if (n == 0) {
            free(soc);
            climate_year_free(cy);
            /* The duty's flags are what failed: a usage error. */
            return cli_usage_error(cmd, "--cycles-per-day, --c-rate: %s",
                                   err.msg);
        }
    }
    double q[BATTERY_LIFE_MAX_YEARS], efc[BATTERY_LIFE_MAX_YEARS];
    if (rc == SIM_OK) {
        double t_amb[CLIMATE_HOURS];
        if (cy)
            for (size_t h = 0; h < CLIMATE_HOURS; h++)
                t_amb[h] = cy->h[h].t_db_c;
        battery_life_in in = {soc, n, dt_s, (int)years, cy ? t_amb : NULL};
        rc = battery_life_run(&bc, &in, q, efc, &err);
    }
    free(soc);
    climate_year_free(cy);
    if (rc != SIM_OK)
        return cli_report(&err);

    if (fmt == CLI_FMT_JSON) {
        jv *j = jv_obj(), *jy = jv_arr(), *jq = jv_arr(), *je = jv_arr();
        for (uint32_t y = 0; y < years; y++) {
            jv_push(jy, jv_int((int64_t)y + 1));
            jv_push(jq, jv_num(q[y]));
            jv_push(je, jv_num(efc[y]));
        }
        jv_set(j, "years", jy);
        jv_set(j, "capacity_retained_fraction", jq);
        jv_set(j, "efc", je);
        jv_write(j, stdout, 1);
        jv_free(j);
        return CLI_EXIT_OK;
    }
    printf("Second-life Nissan Leaf packs (NREL BLAST-Lite model), ");
    if (csv)
        printf("SOC history %s\n", csv);
    else if (cycles == 0)
        printf("idle at SOC %.2f\n", 0.5 * (soc_min + soc_max));
    else
        printf("%g cycle(s) a day, SOC %.2f-%.2f at %gC\n", cycles, soc_min,
               soc_max, c_rate);
    if (epw)
        printf("cell temperature: dry bulb of %s + %.1f K (enclosure)\n", epw,
               bc.rise_c);
    else
        printf("cell temperature: %.1f degC\n", temp);
    printf("%5s  %26s  %9s\n", "year", "capacity retained (of SL0)", "EFC");
    for (uint32_t y = 0; y < years; y++)
        printf("%5u  %26.4f  %9.1f\n", y + 1, q[y], efc[y]);
    return CLI_EXIT_OK;
}
