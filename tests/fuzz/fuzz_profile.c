/* tests/fuzz/fuzz_profile.c: libFuzzer harness for the hourly weather
 * profile CSV reader (profile_read, io/profile.c over io/csv.c), a
 * scenario's site.climate.hourly_csv. The site is Las Vegas's location
 * (data/weather/README.md). A year that reads must hold finite
 * values. */
#include "fuzz_util.h"
#include "fuzz_climate.h"

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
        fuzz_check_year(year);
    return 0;
}
