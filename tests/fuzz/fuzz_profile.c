/* tests/fuzz/fuzz_profile.c: libFuzzer harness for the hourly weather
 * profile CSV reader (profile_read, io/profile.c over io/csv.c), a
 * scenario's site.climate.hourly_csv. The site is Las Vegas's location
 * (../shared/data/weather/README.md). A year that reads must hold finite
 * values. */
#include "fuzz_util.h"

#include <math.h>

#include "io/profile.h"

static climate_year *year;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    year = climate_year_new();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("input.csv", data, size);
    profile_site site;
    profile_info info;
    sim_err e;
    int rc;

    profile_site_default(&site, 36.08, -115.15, -8.0, 648.0);
    sim_err_clear(&e);
    rc = profile_read(path, &site, year, &info, &e);
    fuzz_expect(rc, &e, "profile_read");
    if (rc == SIM_OK)
        for (size_t i = 0; i < CLIMATE_HOURS; i++) {
            const climate_hour *h = &year->h[i];
            if (!isfinite(h->t_db_c) || !isfinite(h->t_wb_c) ||
                !isfinite(h->rh) || !isfinite(h->dni_w_m2) ||
                !isfinite(h->dhi_w_m2)) {
                fprintf(stdout, "fuzz: hour %zu not finite\n", i);
                abort();
            }
        }
    return 0;
}
