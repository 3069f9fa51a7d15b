/* tests/fuzz/fuzz_climate.h: the check the weather-reader harnesses share:
 * a year that reads holds finite values in every hour. Aborts otherwise,
 * which libFuzzer reports as a crash with the input. */
#ifndef TESTS_FUZZ_CLIMATE_H
#define TESTS_FUZZ_CLIMATE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/climate.h"

static void fuzz_check_year(const climate_year *year)
{
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        const climate_hour *h = &year->h[i];
        if (!isfinite(h->t_db_c) || !isfinite(h->t_wb_c) || !isfinite(h->rh) ||
            !isfinite(h->p_pa) || !isfinite(h->ghi_w_m2) ||
            !isfinite(h->dni_w_m2) || !isfinite(h->dhi_w_m2)) {
            fprintf(stdout, "fuzz: hour %zu not finite\n", i);
            abort();
        }
    }
}

#endif
