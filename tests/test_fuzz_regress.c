/* tests/test_fuzz_regress.c: every input a fuzz harness (tests/fuzz/) ever
 * flagged, fed again through the same reader the harness calls.
 *
 * tests/data/fuzz-regress/<harness>/ holds the inputs and an EXPECT file,
 * one line per input: "NAME CODE TEXT", CODE one of OK, ECONFIG, EIO,
 * ENOTFOUND, EUSAGE, TEXT a fragment the error message must contain ("-" for
 * none). Every file in the folder must be listed, so a crash input cannot
 * be added without saying what the reader must answer. Run under `make
 * asan` (CI), a regression of the crash itself is a sanitizer report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/tp_common.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/epw.h"
#include "io/profile.h"
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/scenario.h"
#include "models/sweep.h"
#include "models/throughput.h"
#include "tests/fuzz/fuzz_overrides.h"

#define REGRESS_DIR "tests/data/fuzz-regress"

static catalog *cat;
static tp_model *model;

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    buf = malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    buf[len] = '\0';
    *n = (size_t)len;
    return buf;
}

/* The readers, called as each harness calls them. */
static int feed_scenario(const char *path, sim_err *e)
{
    size_t n;
    char *text = slurp(path, &n), *ov[FUZZ_MAX_OVERRIDES];
    size_t n_ov = fuzz_overrides(text, n, ov);
    scenario *s = NULL;
    int rc = scenario_load(path, cat, (const char *const *)ov, n_ov, &s, e);
    scenario_free(s);
    for (size_t i = 0; i < n_ov; i++)
        free(ov[i]);
    free(text);
    return rc;
}

static int feed_csv(const char *path, sim_err *e)
{
    csvt *t = NULL;
    calib_row *rows = NULL;
    unsigned char *ok = NULL;
    size_t n = 0, n_bad = 0;
    int rc = tpc_read_rows(path, cat, &t, &rows, &ok, &n, &n_bad, NULL, e);
    for (size_t i = 0; rc == SIM_OK && i < n; i++) {
        tp_result r;
        if (ok[i] && tp_predict(model, &rows[i].q, &r) == SIM_OK)
            assert_true(r.tokens_per_sec_per_gpu >= 0);
    }
    csvt_free(t);
    free(rows);
    free(ok);
    return rc;
}

static int feed_epw(const char *path, sim_err *e)
{
    climate_year *y = climate_year_new();
    int rc = epw_read(path, y, e);
    climate_year_free(y);
    return rc;
}

static int feed_profile(const char *path, sim_err *e)
{
    climate_year *y = climate_year_new();
    profile_site site;
    profile_site_default(&site, 36.08, -115.15, -8.0, 648.0);
    int rc = profile_read(path, &site, y, NULL, e);
    climate_year_free(y);
    return rc;
}

/* One spec a line, as tests/fuzz/fuzz_sweep.c splits them. */
static int feed_sweep(const char *path, sim_err *e)
{
    size_t n;
    char *text = slurp(path, &n), *specs[8], *p;
    size_t k = 0;
    sweep_grid *g = NULL;
    int rc;
    for (p = text; k < 8 && p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        specs[k++] = p;
        p = nl ? nl + 1 : NULL;
    }
    rc = sweep_grid_parse((const char *const *)specs, k, &g, e);
    sweep_grid_free(g);
    free(text);
    return rc;
}

static int feed_calibfile(const char *path, sim_err *e)
{
    tp_model *m = NULL;
    int rc = tp_model_load(path, &m, e);
    tp_model_free(m);
    return rc;
}

static int code_of(const char *name)
{
    static const struct {
        const char *name;
        int code;
    } codes[] = {
        {"OK", SIM_OK},         {"ECONFIG", SIM_ECONFIG},
        {"EIO", SIM_EIO},       {"ENOTFOUND", SIM_ENOTFOUND},
        {"EUSAGE", SIM_EUSAGE},
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(name, codes[i].name) == 0)
            return codes[i].code;
    fail_msg("EXPECT: unknown code '%s'", name);
    return 1;
}

/* Feeds every file of REGRESS_DIR/harness through feed and checks its
 * EXPECT line. Every harness has a folder (hand-written edge inputs where
 * the fuzzer flagged nothing), so a missing one is a missing file, an
 * error, not a skip. */
static void check_harness(const char *harness,
                          int (*feed)(const char *, sim_err *))
{
    char dir[256], path[512], line[1024];
    DIR *d;
    struct dirent *de;
    FILE *ex;
    size_t n_files = 0;

    snprintf(dir, sizeof dir, "%s/%s", REGRESS_DIR, harness);
    if (!(d = opendir(dir)))
        fail_msg("%s: missing (every harness has its regression folder)", dir);
    snprintf(path, sizeof path, "%s/EXPECT", dir);
    ex = fopen(path, "r");
    assert_non_null(ex);
    while ((de = readdir(d)) != NULL) {
        char name[256], code[32], text[512];
        int found = 0, rc;
        sim_err e;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || strcmp(de->d_name, "EXPECT") == 0 ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue; /* folders are what inputs include */
        rewind(ex);
        while (fgets(line, sizeof line, ex)) {
            if (line[0] == '#' ||
                sscanf(line, "%255s %31s %511[^\n]", name, code, text) != 3)
                continue;
            if (strcmp(name, de->d_name) == 0) {
                found = 1;
                break;
            }
        }
        if (!found)
            fail_msg("%s/%s: not listed in EXPECT", dir, de->d_name);
        sim_err_clear(&e);
        rc = feed(path, &e);
        if (rc != code_of(code))
            fail_msg("%s: rc %d, expected %s (message: %s)", path, rc, code,
                     e.msg);
        if (rc != SIM_OK) {
            assert_int_equal(e.code, rc);
            assert_true(e.msg[0] != '\0');
            if (strcmp(text, "-") != 0 && !strstr(e.msg, text))
                fail_msg("%s: message '%s' lacks '%s'", path, e.msg, text);
        }
        n_files++;
    }
    closedir(d);
    fclose(ex);
    assert_true(n_files > 0);
}

static void test_fuzz_regress_scenario_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_scenario", feed_scenario);
}

static void test_fuzz_regress_csv_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_csv", feed_csv);
}

static void test_fuzz_regress_epw_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_epw", feed_epw);
}

static void test_fuzz_regress_profile_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_profile", feed_profile);
}

static void test_fuzz_regress_sweep_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_sweep", feed_sweep);
}

static void test_fuzz_regress_calibfile_inputs_give_their_errors(void **state)
{
    (void)state;
    check_harness("fuzz_calibfile", feed_calibfile);
}

static int setup(void **state)
{
    sim_err e;
    (void)state;
    sim_err_clear(&e);
    if (catalog_load(NULL, &cat, &e) != SIM_OK ||
        tp_model_default(&model, &e) != SIM_OK) {
        fprintf(stderr, "setup: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    tp_model_free(model);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_regress_scenario_inputs_give_their_errors),
        cmocka_unit_test(test_fuzz_regress_csv_inputs_give_their_errors),
        cmocka_unit_test(test_fuzz_regress_epw_inputs_give_their_errors),
        cmocka_unit_test(test_fuzz_regress_profile_inputs_give_their_errors),
        cmocka_unit_test(test_fuzz_regress_sweep_inputs_give_their_errors),
        cmocka_unit_test(test_fuzz_regress_calibfile_inputs_give_their_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
