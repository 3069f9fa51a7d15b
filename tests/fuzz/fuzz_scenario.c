/* tests/fuzz/fuzz_scenario.c: libFuzzer harness for the scenario loader
 * (scenario_load: io/cfg.c, io/scenario_cfg.c, io/catalog_cfg.c for a
 * scenario's catalog group), the path `check`, `run` and `power` take.
 *
 * The input is written to fuzz_dir/input.cfg beside copies of the test
 * fragments (inc/site.cfg, include/*.cfg, loop-a/b.cfg), so that @include
 * works and can loop. An input whose @include line names an absolute path,
 * "..", or a backslash escape is skipped: it could reach /dev/zero or a
 * FIFO, which tests the machine, not the loader. Leading lines
 * "//set KEY=VALUE" (a libconfig comment) become overrides, as `--set`
 * gives them. A scenario that loads is loaded a second time and its
 * resolved text must be the same bytes (scenario.h's promise).
 */
#include "fuzz_util.h"
#include "fuzz_overrides.h"

#include "io/catalog_cfg.h"
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/scenario.h"

static catalog *cat;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sim_err e;
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    fuzz_copy("tests/data/good/inc/site.cfg", "inc/site.cfg");
    fuzz_copy("scenarios/include/las-vegas-site.cfg",
              "include/las-vegas-site.cfg");
    fuzz_copy("scenarios/include/exemplar-b300-jobs.cfg",
              "include/exemplar-b300-jobs.cfg");
    fuzz_copy("tests/data/bad/loop-a.cfg", "loop-a.cfg");
    fuzz_copy("tests/data/bad/loop-b.cfg", "loop-b.cfg");
    fuzz_copy("tests/data/bad/frag-bad.cfg", "frag-bad.cfg");
    sim_err_clear(&e);
    if (catalog_load(NULL, &cat, &e) != SIM_OK) {
        char buf[2100];
        fprintf(stdout, "fuzz: catalog: %s (run from the repository root)\n",
                sim_err_format(&e, buf, sizeof buf));
        abort();
    }
    return 0;
}

/* 1 when an @include line could leave the private folder. */
static int include_unsafe(const char *t, size_t n)
{
    const char *p = t, *end = t + n;
    while ((p = memchr(p, '@', (size_t)(end - p))) != NULL) {
        const char *q = p;
        for (; q < end && *q != '\n'; q++) {
            if (*q == '\\')
                return 1;
            if (*q == '"' && q + 1 < end && q[1] == '/')
                return 1;
            if (*q == '.' && q + 1 < end && q[1] == '.')
                return 1;
        }
        p++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *ov[FUZZ_MAX_OVERRIDES];
    size_t n_ov;
    scenario *s = NULL, *s2 = NULL;
    sim_err e;
    int rc;

    if (include_unsafe((const char *)data, size))
        return 0;
    n_ov = fuzz_overrides((const char *)data, size, ov);
    const char *path = fuzz_write("input.cfg", data, size);
    sim_err_clear(&e);
    rc = scenario_load(path, cat, (const char *const *)ov, n_ov, &s, &e);
    fuzz_expect(rc, &e, "scenario_load");
    if (rc == SIM_OK) {
        const char *r1 = scenario_resolved_text(s);
        sim_err_clear(&e);
        rc = scenario_load(path, cat, (const char *const *)ov, n_ov, &s2, &e);
        if (rc != SIM_OK || !r1 ||
            strcmp(r1, scenario_resolved_text(s2)) != 0) {
            fprintf(stdout, "fuzz: second load differs (rc %d)\n", rc);
            abort();
        }
    }
    scenario_free(s);
    scenario_free(s2);
    for (size_t i = 0; i < n_ov; i++)
        free(ov[i]);
    return 0;
}
