/* cli/cmd_solar.c: `factorysim solar`: a PV plant's annual yield and
 * capacity factor at a site, from an EPW file or from synthetic weather
 * (models/solar.h, models/climate.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "io/epw.h"
#include "io/json.h"
#include "models/solar.h"
#include "sim/rng.h"

static const char solar_help[] =
    "Usage: factorysim solar [--site NAME | --lat DEG --lon DEG [--tz H]]\n"
    "                        [--epw FILE] [OPTIONS]\n"
    "\n"
    "Annual energy and capacity factor of a 1 MWdc PV plant (PVWatts-style\n"
    "DC with temperature derate, 14.08% losses, inverter 96%, clipping at\n"
    "P_dc0 / dc-ac). Weather: the EPW file's hours (its location is used), or\n"
    "a synthetic year from the built-in normals of --site (las-vegas,\n"
    "reykjavik, stavanger, oslo; default las-vegas), whose location "
    "--lat/--lon\n"
    "override.\n"
    "\n"
    "Options:\n"
    "  --epw FILE          EnergyPlus weather file\n"
    "  --site NAME         built-in normals for synthetic weather\n"
    "  --lat DEG, --lon DEG  site location (north +, east +)\n"
    "  --tz H              UTC offset of local standard time (default\n"
    "                      round(lon/15), the nearest whole hour)\n"
    "  --tracking T        single-axis (default) or fixed\n"
    "  --tilt DEG          fixed tilt (default: |latitude|)\n"
    "  --dc-ac R           DC/AC ratio (default 1.34)\n"
    "  --no-backtrack      single-axis without backtracking\n"
    "  --sky M             sky diffuse model: perez (default, Perez et al.\n"
    "                      1990) or isotropic\n"
    "  --year-seed N       seed of the synthetic year (default 1)\n"
    "  --format F          table (default) or json\n"
    "  -h, --help          this help\n";

int cmd_solar(int argc, char **argv)
{
    static const struct option opts[] = {
        {"epw", required_argument, NULL, 'e'},
        {"site", required_argument, NULL, 'S'},
        {"lat", required_argument, NULL, 'a'},
        {"lon", required_argument, NULL, 'o'},
        {"tz", required_argument, NULL, 'z'},
        {"tracking", required_argument, NULL, 't'},
        {"tilt", required_argument, NULL, 'i'},
        {"dc-ac", required_argument, NULL, 'r'},
        {"no-backtrack", no_argument, NULL, 'b'},
        {"sky", required_argument, NULL, 'k'},
        {"year-seed", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "solar", *epw = NULL, *site = "las-vegas";
    double lat = 0, lon = 0, tz = 0, tilt = -1, dcac = 1.34;
    int have_lat = 0, have_lon = 0, have_tz = 0, fixed = 0, nobt = 0,
        fmt = CLI_FMT_TABLE, sky = SOLAR_SKY_PEREZ, o;
    uint64_t seed = 1;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int bad = 0;
        switch (o) {
        case 'e':
            epw = optarg;
            break;
        case 'S':
            site = optarg;
            break;
        case 'a':
            bad = cli_double(cmd, "--lat", optarg, -90, 90, &lat);
            have_lat = 1;
            break;
        case 'o':
            bad = cli_double(cmd, "--lon", optarg, -180, 180, &lon);
            have_lon = 1;
            break;
        case 'z':
            bad = cli_double(cmd, "--tz", optarg, -14, 14, &tz);
            have_tz = 1;
            break;
        case 't':
            if (strcmp(optarg, "fixed") == 0)
                fixed = 1;
            else if (strcmp(optarg, "single-axis") == 0)
                fixed = 0;
            else
                return cli_usage_error(
                    cmd, "--tracking: expected fixed or single-axis (got '%s')",
                    optarg);
            break;
        case 'i':
            bad = cli_double(cmd, "--tilt", optarg, 0, 90, &tilt);
            break;
        case 'r':
            bad = cli_double(cmd, "--dc-ac", optarg, 0.5, 3, &dcac);
            break;
        case 'b':
            nobt = 1;
            break;
        case 'k':
            sky = solar_sky_parse(optarg);
            if (sky < 0)
                return cli_usage_error(
                    cmd, "--sky: expected perez or isotropic (got '%s')",
                    optarg);
            break;
        case 's':
            bad = cli_seed(cmd, "--year-seed", optarg, &seed);
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            bad = fmt < 0;
            break;
        case 'h':
            fputs(solar_help, stdout);
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
    if (have_lat != have_lon)
        return cli_usage_error(cmd, "--lat and --lon go together");

    sim_err err;
    sim_err_clear(&err);
    climate_year *y = climate_year_new();
    int rc;
    if (epw) {
        rc = epw_read(epw, y, &err);
    } else {
        const climate_monthly *bn = climate_builtin(site);
        if (!bn) {
            climate_year_free(y);
            return cli_usage_error(
                cmd, "--site: unknown site '%s' (expected one of: %s)", site,
                climate_builtin_names());
        }
        climate_monthly n = *bn;
        if (have_lat) {
            n.lat_deg = lat;
            n.lon_deg = lon;
            /* As the scenario loader: the nearest whole hour, round(lon/15)
             * (docs/scenario-reference.md, site.utc_offset_h). */
            n.tz_h = have_tz ? tz : round(lon / 15.0);
        } else if (have_tz) {
            n.tz_h = tz;
        }
        gsl_rng *r = rng_stream_new(NULL, seed, 0, rng_stream_id("climate"));
        rc = climate_synthesize(&n, r, y, &err);
        gsl_rng_free(r);
    }
    if (rc != SIM_OK) {
        climate_year_free(y);
        return cli_report(&err);
    }
    if (epw && have_lat) {
        y->lat_deg = lat;
        y->lon_deg = lon;
        if (have_tz)
            y->tz_h = tz;
    }
    solar_cfg c;
    solar_cfg_default(&c, 1e6);
    c.dc_ac_ratio = dcac;
    c.backtrack = !nobt;
    c.sky = (solar_sky)sky;
    if (fixed) {
        c.tracking = SOLAR_FIXED;
        c.tilt_deg =
            tilt >= 0 ? tilt : (y->lat_deg < 0 ? -y->lat_deg : y->lat_deg);
        c.azimuth_deg = y->lat_deg >= 0 ? 180.0 : 0.0;
    }
    solar_annual a;
    solar_year(&c, y, NULL, &a);
    climate_stats st;
    climate_year_stats(y, &st);
    const char *trk = fixed ? "fixed" : "single-axis";
    if (fmt == CLI_FMT_JSON) {
        jv *j = jv_obj();
        jv_set(j, "weather", jv_str(epw ? "epw" : "synthetic"));
        jv_set(j, "site", jv_str(y->name));
        jv_set(j, "lat_deg", jv_num(y->lat_deg));
        jv_set(j, "lon_deg", jv_num(y->lon_deg));
        jv_set(j, "tz_h", jv_num(y->tz_h));
        jv_set(j, "tracking", jv_str(trk));
        jv_set(j, "tilt_deg",
               jv_num(c.tracking == SOLAR_FIXED ? c.tilt_deg : 0));
        jv_set(j, "backtrack",
               jv_bool(c.tracking == SOLAR_SINGLE_AXIS && c.backtrack));
        jv_set(j, "dc_ac_ratio", jv_num(c.dc_ac_ratio));
        jv_set(j, "sky_model", jv_str(solar_sky_name(c.sky)));
        jv_set(j, "ghi_kwh_m2", jv_num(st.ghi_kwh_m2));
        jv_set(j, "poa_kwh_m2", jv_num(a.poa_kwh_m2));
        jv_set(j, "ac_kwh_per_kwdc", jv_num(a.e_ac_j / 3.6e6 / 1e3));
        jv_set(j, "ac_kwh_per_kwac",
               jv_num(a.e_ac_j / 3.6e6 / (solar_p_ac0_w(&c) / 1e3)));
        jv_set(j, "cf_ac", jv_num(a.cf_ac));
        jv_set(j, "cf_dc", jv_num(a.cf_dc));
        jv_set(j, "clipping_fraction",
               jv_num(a.e_ac_j > 0 ? a.clip_j / a.e_ac_j : 0));
        jv *m = jv_arr();
        for (int i = 0; i < 12; i++)
            jv_push(m, jv_num(a.month_cf_ac[i]));
        jv_set(j, "month_cf_ac", m);
        jv_write(j, stdout, 1);
        jv_free(j);
    } else {
        printf("Solar plant, 1 MWdc, %s%s, DC/AC %.2f, %s sky, weather: %s\n",
               trk,
               c.tracking == SOLAR_SINGLE_AXIS
                   ? (c.backtrack ? " (backtracking)" : "")
                   : "",
               c.dc_ac_ratio, solar_sky_name(c.sky),
               epw ? "EPW file" : "synthetic (monthly normals + cloud chain)");
        printf("  site                  %s (%.2f, %.2f, UTC%+.1f)\n", y->name,
               y->lat_deg, y->lon_deg, y->tz_h);
        printf("  GHI                   %10.1f kWh/m^2/yr\n", st.ghi_kwh_m2);
        printf("  plane of array        %10.1f kWh/m^2/yr\n", a.poa_kwh_m2);
        printf("  AC energy             %10.1f MWh/yr (%.0f kWh per kWdc, %.0f "
               "per kWac)\n",
               a.e_ac_j / 3.6e9, a.e_ac_j / 3.6e6 / 1e3,
               a.e_ac_j / 3.6e6 / (solar_p_ac0_w(&c) / 1e3));
        printf("  capacity factor (AC)  %10.2f %%\n", 100 * a.cf_ac);
        printf("  capacity factor (DC)  %10.2f %%  (AC energy over the DC "
               "nameplate)\n",
               100 * a.cf_dc);
        printf("  inverter clipping     %10.2f %% of AC energy\n",
               a.e_ac_j > 0 ? 100 * a.clip_j / a.e_ac_j : 0.0);
        printf("  monthly AC CF [%%]    ");
        for (int i = 0; i < 12; i++)
            printf(" %.1f", 100 * a.month_cf_ac[i]);
        printf("\n");
    }
    climate_year_free(y);
    return CLI_EXIT_OK;
}
