/* tests/fuzz/fuzz_profile.c: libFuzzer harness for the hourly weather
 * profile CSV reader (profile_read_years, io/profile.c over io/csv.c; the
 * one-year profile_read is the same code with one year allowed), a
 * scenario's site.climate.hourly_csv. The site is Las Vegas's location
 * (data/weather/README.md). Every year that reads must hold finite
 * values. */
#include "fuzz_util.h"
#include "fuzz_climate.h"

#include "io/profile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("input.csv", data, size);
    profile_site site;
    profile_info info;
    climate_year *years = NULL;
    size_t n = 0;
    sim_err e;
    int rc;

    profile_site_default(&site, 36.08, -115.15, -8.0, 648.0);
    sim_err_clear(&e);
    rc = profile_read_years(path, &site, 4, &years, &n, &info, &e);
    fuzz_expect(rc, &e, "profile_read_years");
    for (size_t i = 0; rc == SIM_OK && i < n; i++)
        fuzz_check_year(&years[i]);
    climate_year_free(years);
    return 0;
}
