/* tests/fuzz/fuzz_sweep.c: libFuzzer harness for the sweep grid parser
 * (sweep_grid_parse, models/sweep.c), which reads `sweep --set` values
 * from the command line. Each input line is one spec "KEY=V1,V2" or
 * "KEY=LO:HI:STEP" (at most 8). A grid that parses must keep sweep.h's
 * promises: at least one case, no more than SWEEP_MAX_CASES, and (for
 * grids of up to 2000 cases) a distinct case key per case. */
#include "fuzz_util.h"

#include "models/sweep.h"

#define MAX_SPECS 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *specs[MAX_SPECS], *p;
    size_t n = 0;
    sweep_grid *g = NULL;
    sim_err e;
    int rc;

    memcpy(text, data, size);
    text[size] = '\0';
    for (p = text; n < MAX_SPECS && p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        specs[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    sim_err_clear(&e);
    rc = sweep_grid_parse((const char *const *)specs, n, &g, &e);
    fuzz_expect(rc, &e, "sweep_grid_parse");
    if (rc == SIM_OK) {
        if (g->n_cases < 1 || g->n_cases > SWEEP_MAX_CASES) {
            fprintf(stdout, "fuzz: %zu cases\n", g->n_cases);
            abort();
        }
        if (g->n_cases <= 2000) {
            char **keys = malloc(g->n_cases * sizeof *keys);
            for (size_t i = 0; i < g->n_cases; i++)
                keys[i] = sweep_case_key(g, i);
            qsort(keys, g->n_cases, sizeof *keys, cmp_str);
            for (size_t i = 1; i < g->n_cases; i++)
                if (strcmp(keys[i - 1], keys[i]) == 0) {
                    fprintf(stdout, "fuzz: case key '%s' twice\n", keys[i]);
                    abort();
                }
            for (size_t i = 0; i < g->n_cases; i++)
                free(keys[i]);
            free(keys);
        } else {
            char *ov[MAX_SPECS];
            sweep_case_overrides(g, g->n_cases - 1, ov);
            sweep_overrides_free(ov, g->n_axes);
        }
        free(sweep_grid_text(g));
    } else if (g) {
        fprintf(stdout, "fuzz: grid set on failure\n");
        abort();
    }
    sweep_grid_free(g);
    free(text);
    return 0;
}
