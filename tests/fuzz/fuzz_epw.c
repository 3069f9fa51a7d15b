/* tests/fuzz/fuzz_epw.c: libFuzzer harness for the EPW weather reader
 * (epw_read, io/epw.c), which `solar`, `power` and a scenario's
 * site.climate.epw use. A year that reads must hold finite values. */
#include "fuzz_util.h"

#include <math.h>

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
        for (size_t i = 0; i < CLIMATE_HOURS; i++) {
            const climate_hour *h = &year->h[i];
            if (!isfinite(h->t_db_c) || !isfinite(h->t_wb_c) ||
                !isfinite(h->rh) || !isfinite(h->p_pa) ||
                !isfinite(h->ghi_w_m2)) {
                fprintf(stdout, "fuzz: hour %zu not finite\n", i);
                abort();
            }
        }
    return 0;
}
