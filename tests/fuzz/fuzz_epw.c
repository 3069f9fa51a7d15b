/* tests/fuzz/fuzz_epw.c: libFuzzer harness for the EPW weather reader
 * (epw_read, io/epw.c), which `solar`, `power` and a scenario's
 * site.climate.epw use. A year that reads must hold finite values. */
#include "fuzz_util.h"
#include "fuzz_climate.h"

#include "io/epw.h"

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
    const char *path = fuzz_write("input.epw", data, size);
    sim_err e;
    int rc;

    sim_err_clear(&e);
    rc = epw_read(path, year, &e);
    fuzz_expect(rc, &e, "epw_read");
    if (rc == SIM_OK)
        fuzz_check_year(year);
    return 0;
}
