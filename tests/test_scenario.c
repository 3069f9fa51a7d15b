/* tests/test_scenario.c: the scenario loader (models/scenario.h,
 * io/scenario_cfg.c): the broken-file corpus in tests/data/bad with each
 * error's file:line:key, include resolution from another folder, overrides,
 * unit conversion, the resolved text, and every example in scenarios/. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/catalog_cfg.h"
#include "io/scenario_cfg.h"
#include "models/cooling.h"
#include "models/scenario.h"

#define assert_close(a, b, rel)                                                \
    do {                                                                       \
        double a_ = (a), b_ = (b), r_ = (rel);                                 \
        if (!(fabs(a_ - b_) <= r_ * fmax(fabs(a_), fabs(b_))))                 \
            fail_msg("%.17g != %.17g (rel tol %g)", a_, b_, r_);               \
    } while (0)

static catalog *cat;

static int setup(void **state)
{
    sim_err e;
    (void)state;
    return catalog_load("models", &cat, &e) == SIM_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

typedef struct bad_case {
    const char *file; /* under tests/data/bad */
    int code;
    const char *err_file; /* expected sim_err.file suffix */
    int line;
    const char *needle; /* key path / message part */
} bad_case;

static const bad_case bad[] = {
    {"syntax.cfg", SIM_ECONFIG, "bad/syntax.cfg", 11, "syntax error"},
    {"wrong-type.cfg", SIM_ECONFIG, "bad/wrong-type.cfg", 10,
     "modules.[0].count: wrong type (got a string, expected an integer)"},
    {"missing-modules.cfg", SIM_ECONFIG, "bad/missing-modules.cfg", 0,
     "modules: missing key"},
    {"negative.cfg", SIM_ECONFIG, "bad/negative.cfg", 10,
     "modules.[0].count: out of range (got -3"},
    {"huge.cfg", SIM_ECONFIG, "bad/huge.cfg", 11,
     "jobs.[0].tokens: not a finite number (got inf"},
    {"int64-no-L.cfg", SIM_ECONFIG, "bad/int64-no-L.cfg", 10,
     "jobs.[0].tokens: integer 3000000000 does not fit in 32 bits"},
    {"int64-positive-wrap.cfg", SIM_ECONFIG, "bad/int64-positive-wrap.cfg", 10,
     "expected 5000000000L"},
    {"empty.cfg", SIM_ECONFIG, "bad/empty.cfg", 1, "empty scenario"},
    {"garbage.cfg", SIM_ECONFIG, "bad/garbage.cfg", -1, "not a text file"},
    {"missing-include.cfg", SIM_ECONFIG, "bad/missing-include.cfg", 1,
     "cannot open include file"},
    {"loop-a.cfg", SIM_ECONFIG, "bad/loop-a.cfg", 1, "nesting too deep"},
    {"unknown-type.cfg", SIM_ECONFIG, "bad/unknown-type.cfg", 9,
     "expected one of: spark-air, spark-liquid"},
    {"too-many-racks.cfg", SIM_ECONFIG, "bad/too-many-racks.cfg", 10,
     "modules.[0].units: more hgx-b300 than a spark-air module's power"},
    {"too-many-gpus.cfg", SIM_ECONFIG, "bad/too-many-gpus.cfg", 11,
     "jobs.[0].gpus: needs more GPUs than the site will ever have"},
    {"battery-c-rate.cfg", SIM_ECONFIG, "bad/battery-c-rate.cfg", 10,
     "energy.battery.power_mw: more power than the battery's energy"},
    {"date-outside.cfg", SIM_ECONFIG, "bad/date-outside.cfg", 10,
     "(got 2027-03-15, expected 2027-01-01 .. 2027-01-30)"},
    {"unknown-model.cfg", SIM_ECONFIG, "bad/unknown-model.cfg", 10,
     "llama3.1-405b"},
    {"unknown-key.cfg", SIM_ECONFIG, "bad/unknown-key.cfg", 9,
     "modules.[0].countt: unknown key"},
    {"missing-tokens.cfg", SIM_ECONFIG, "bad/missing-tokens.cfg", 10,
     "give exactly one of tokens and steps"},
    {"bad-date.cfg", SIM_ECONFIG, "bad/bad-date.cfg", 7,
     "simulation.start_date: not a date"},
    {"inf-step.cfg", SIM_ECONFIG, "bad/inf-step.cfg", 3,
     "simulation.step_min: not a finite number"},
    {"bad-precision-gpu.cfg", SIM_ECONFIG, "bad/bad-precision-gpu.cfg", 10,
     "H100 has no tensor cores"},
    /* The error is inside the included fragment, which names itself. */
    {"include-error.cfg", SIM_ECONFIG, "bad/frag-bad.cfg", 3,
     "site.latitude_deg: out of range (got 136"},
    /* Issue 13: a catalog model whose architecture contradicts itself or
     * its stated total, as an override of a bundled one or a new one. */
    {"llm-params-override.cfg", SIM_ECONFIG, "bad/llm-params-override.cfg", 11,
     "catalog.llms.[0].total_params_b: contradicts the architecture (got 70 "
     "B stated, expected within 10% of the 162.6 B"},
    {"llm-params-new.cfg", SIM_ECONFIG, "bad/llm-params-new.cfg", 12,
     "catalog.llms.[0].total_params_b: contradicts the architecture (got 80 "
     "B stated, expected within 10% of the 8.03 B"},
    {"llm-layers-override.cfg", SIM_ECONFIG, "bad/llm-layers-override.cfg", 11,
     "catalog.llms.[0].num_layers: contradicts the layers of each kind (got "
     "160, expected 80"},
    /* Issue 15: energy.wind names a catalog turbine; shear in 0..1. */
    {"wind-unknown-turbine.cfg", SIM_ECONFIG, "bad/wind-unknown-turbine.cfg",
     10,
     "energy.wind.turbine: unknown turbine (got \"v90-3mw\", expected one of: "
     "atb-4mw-150, coe2019-2.55mw-121)"},
    {"wind-shear.cfg", SIM_ECONFIG, "bad/wind-shear.cfg", 10,
     "energy.wind.shear_exponent: out of range (got 1.5"},
    /* Issue 20: modules.[i].cooling names one of the three designs. */
    {"cooling-unknown.cfg", SIM_ECONFIG, "bad/cooling-unknown.cfg", 9,
     "modules.[0].cooling"},
    /* Issue 19: a list of weather files, every one readable and a name. */
    {"weather-list-unreadable.cfg", SIM_ECONFIG,
     "bad/weather-list-unreadable.cfg", 6,
     "site.climate.epw.[1]: cannot read the weather file"},
    {"weather-list-type.cfg", SIM_ECONFIG, "bad/weather-list-type.cfg", 6,
     "site.climate.epw.[1]: wrong type"},
    {"no-such-file.cfg", SIM_EIO, "bad/no-such-file.cfg", 0, "cannot open"},
};

static void test_scenario_bad_corpus_names_file_line_key(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256];
        scenario *s = (scenario *)&path; /* must be reset to NULL */
        sim_err e;
        int rc;
        size_t lf, le;
        snprintf(path, sizeof path, "tests/data/bad/%s", bad[i].file);
        rc = scenario_load(path, cat, NULL, 0, &s, &e);
        if (rc != bad[i].code)
            fail_msg("%s: rc %d, expected %d (%s)", bad[i].file, rc,
                     bad[i].code, e.msg);
        assert_null(s);
        lf = strlen(e.file);
        le = strlen(bad[i].err_file);
        if (lf < le || strcmp(e.file + lf - le, bad[i].err_file) != 0)
            fail_msg("%s: file '%s', expected ...%s", bad[i].file, e.file,
                     bad[i].err_file);
        if (bad[i].line >= 0 && e.line != bad[i].line)
            fail_msg("%s: line %d, expected %d (%s)", bad[i].file, e.line,
                     bad[i].line, e.msg);
        if (!strstr(e.msg, bad[i].needle))
            fail_msg("%s: message '%s' lacks '%s'", bad[i].file, e.msg,
                     bad[i].needle);
    }
}

/* Every file in tests/data/bad is in the table above (no untested case). */
static void test_scenario_bad_corpus_is_all_checked(void **state)
{
    DIR *d = opendir("tests/data/bad");
    struct dirent *de;
    (void)state;
    assert_non_null(d);
    while ((de = readdir(d))) {
        int found = 0;
        if (!strstr(de->d_name, ".cfg") ||
            strcmp(de->d_name, "loop-b.cfg") == 0 ||
            strcmp(de->d_name, "frag-bad.cfg") == 0)
            continue;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            found |= strcmp(bad[i].file, de->d_name) == 0;
        if (!found)
            fail_msg("tests/data/bad/%s has no expected error", de->d_name);
    }
    closedir(d);
}

static void test_scenario_minimal_resolves_defaults_in_si(void **state)
{
    scenario *s;
    sim_err e;
    const scen_module *m;
    const scen_job *j;
    (void)state;
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, NULL, 0, &s, &e),
        SIM_OK);
    assert_string_equal(s->site.name, "test site");
    assert_close(s->sim.horizon_s, 30 * 86400.0, 1e-12);
    assert_close(s->sim.step_s, 15 * 60.0, 1e-12); /* default 15 min */
    assert_int_equal(s->sim.seed, 1);
    assert_close(s->site.utc_offset_s, -8 * 3600.0, 1e-12); /* round(lon/15) */
    assert_int_equal(s->site.climate.kind, CLIMATE_NORMALS);
    assert_close(s->site.climate.monthly_mean_c[6], 33.5, 1e-12);
    assert_int_equal(s->n_modules, 1);
    m = &s->modules[0];
    /* spark-air hosts hgx-b300 first; units default to what fits. */
    assert_string_equal(m->system->name, "hgx-b300");
    assert_int_equal(m->units, 34);
    assert_int_equal(m->gpus, 2 * 34 * 8);
    assert_close(m->it_power_w, 2 * 34 * 14500.0, 1e-12);
    assert_int_equal(m->cooling, COOLING_AIR_ECONOMIZER); /* spark-air */
    assert_close(s->energy.capacity_w[SRC_SOLAR], 3e6, 1e-12);
    assert_close(s->energy.solar.losses, 0.1408, 1e-12);
    assert_close(s->energy.solar.inverter_limit_w, 3e6 / 1.34, 1e-12);
    assert_close(s->energy.battery.capacity_j, 10 * 3.6e9, 1e-12);
    assert_close(s->energy.capacity_w[SRC_BATTERY], 2e6, 1e-12);
    assert_close(s->energy.battery.c_rate_max_per_s, 0.2 / 3600, 1e-12);
    assert_close(s->energy.carbon_kg_per_j[SRC_SOLAR], 0.048 / 3.6e6, 1e-12);
    assert_int_equal(s->energy.present[SRC_GRID], 0);
    j = &s->jobs[0];
    assert_string_equal(j->model->name, "Llama 3.1 70B");
    assert_int_equal(j->fmt, NUM_FP8);
    assert_ptr_equal(j->gpu, catalog_gpu(s->cat, "B300"));
    assert_int_equal(j->seq_len, 8192); /* the model's default */
    /* steps = ceil(1e11 / (512 * 8192)); tokens rounded up to whole steps */
    assert_int_equal(j->steps, 23842);
    assert_close(j->tokens, 23842.0 * 512 * 8192, 1e-12);
    assert_int_equal(j->ckpt, CKPT_YOUNG_DALY);
    assert_close(j->restart_s, 600.0, 1e-12);
    assert_int_equal(s->policy, DISPATCH_POLICY_THROTTLE);
    assert_int_equal(scenario_gpus(s, NULL), 544);
    scenario_free(s);
    scenario_free(NULL);
}

static void
test_scenario_include_and_catalog_override_from_other_cwd(void **state)
{
    char cwd[PATH_MAX], path[PATH_MAX + 64];
    scenario *s = NULL;
    sim_err e;
    int rc;
    (void)state;
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/tests/data/good/with-include.cfg", cwd);
    assert_int_equal(chdir("/tmp"), 0);
    rc = scenario_load(path, cat, NULL, 0, &s, &e);
    assert_int_equal(chdir(cwd), 0);
    if (rc != SIM_OK)
        fail_msg("%s:%d: %s", e.file, e.line, e.msg);
    assert_string_equal(s->site.name, "included");
    assert_close(s->site.climate.diurnal_range_k, 7.0, 1e-12);
    assert_int_equal(s->sim.seed, 3000000000ull); /* 64-bit with L */
    assert_close(s->sim.step_s, 300.0, 1e-12);
    /* The scenario's catalog: B300 redefined, X9 and my-pod added... */
    assert_close(catalog_gpu(s->cat, "B300")->tdp_w, 1200.0, 1e-12);
    assert_close(catalog_gpu(s->cat, "B300")->hbm_bytes, 270.0 * 1073741824.0,
                 1e-12); /* HBM GB are binary (io/catalog_cfg.c) */
    assert_string_equal(s->modules[0].type->name, "my-pod");
    assert_int_equal(s->modules[0].units, 50); /* 1 MW / 20 kW */
    assert_int_equal(s->modules[0].gpus, 3 * 50 * 8);
    /* ...while the built-in catalog is untouched. */
    assert_close(catalog_gpu(cat, "B300")->tdp_w, 1100.0, 1e-12);
    assert_null(catalog_gpu(cat, "X9"));
    scenario_free(s);
}

static void test_scenario_overrides_apply_before_validation(void **state)
{
    const char *ok[] = {
        "modules.[0].count=3",        "energy.battery.capacity_mwh=20",
        "simulation.seed=9000000000", "site.name=Over ridden",
        "energy.solar.capacity_mw=7", "policy.shortage=shed"};
    const char *unknown[] = {"energy.battery.capacity_mhw=20"};
    const char *bad_idx[] = {"modules.[4].count=1"};
    const char *negative[] = {"modules.[0].count=-1"};
    const char *nan[] = {"energy.solar.capacity_mw=nan"};
    scenario *s = NULL;
    sim_err e;
    (void)state;
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, ok, 6, &s, &e),
        SIM_OK);
    assert_int_equal(s->modules[0].count, 3);
    assert_close(s->energy.battery.capacity_j, 20 * 3.6e9, 1e-12);
    assert_int_equal(s->sim.seed, 9000000000ull);
    assert_string_equal(s->site.name, "Over ridden");
    assert_close(s->energy.capacity_w[SRC_SOLAR], 7e6, 1e-12);
    assert_int_equal(s->policy, DISPATCH_POLICY_SHED);
    assert_non_null(strstr(scenario_resolved_text(s), "count = 3"));
    scenario_free(s);

    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, unknown, 1, &s, &e),
        SIM_ECONFIG);
    assert_null(s);
    assert_string_equal(e.file, "--set");
    assert_non_null(strstr(e.msg, "energy.battery.capacity_mhw: unknown key"));
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, bad_idx, 1, &s, &e),
        SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "index 4 out of range"));
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, negative, 1, &s, &e),
        SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "modules.[0].count: out of range (got -1"));
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, nan, 1, &s, &e),
        SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "energy.solar.capacity_mw: not a finite"));
}

static void test_scenario_resolved_text_is_stable(void **state)
{
    const char *ov[] = {"simulation.seed=5"};
    scenario *a, *b, *c;
    sim_err e;
    (void)state;
    assert_int_equal(
        scenario_load("scenarios/nevada-solar.cfg", cat, ov, 1, &a, &e),
        SIM_OK);
    assert_int_equal(
        scenario_load("scenarios/nevada-solar.cfg", cat, ov, 1, &b, &e),
        SIM_OK);
    assert_int_equal(
        scenario_load("scenarios/nevada-solar.cfg", cat, NULL, 0, &c, &e),
        SIM_OK);
    assert_string_equal(scenario_resolved_text(a), scenario_resolved_text(b));
    assert_string_not_equal(scenario_resolved_text(a),
                            scenario_resolved_text(c));
    /* Includes are inlined: the fragment's job is in the text. */
    assert_non_null(strstr(scenario_resolved_text(a), "llama405b-fp8"));
    assert_null(strstr(scenario_resolved_text(a), "@include"));
    scenario_free(a);
    scenario_free(b);
    scenario_free(c);
}

static void test_scenario_every_example_loads(void **state)
{
    DIR *d = opendir("scenarios");
    struct dirent *de;
    int n = 0;
    (void)state;
    assert_non_null(d);
    while ((de = readdir(d))) {
        char path[512];
        scenario *s;
        sim_err e;
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".cfg") != 0)
            continue;
        snprintf(path, sizeof path, "scenarios/%s", de->d_name);
        if (scenario_load(path, cat, NULL, 0, &s, &e) != SIM_OK)
            fail_msg("%s:%d: %s", e.file, e.line, e.msg);
        assert_true(s->n_modules >= 1);
        assert_true(s->n_jobs >= 1);
        for (size_t j = 0; j < s->n_jobs; j++)
            assert_true(s->jobs[j].submit_t_s < s->sim.horizon_s);
        scenario_free(s);
        n++;
    }
    closedir(d);
    assert_true(n >= 4);
}

static void test_scenario_liquid_100mw_holds_about_50000_gpus(void **state)
{
    scenario *s;
    sim_err e;
    (void)state;
    assert_int_equal(
        scenario_load("scenarios/liquid-100mw-gb300.cfg", cat, NULL, 0, &s, &e),
        SIM_OK);
    assert_int_equal(scenario_gpus(s, catalog_gpu(s->cat, "GB300")), 50400);
    assert_true(scenario_it_power_w(s) <= 100e6);
    assert_close(s->modules[1].commission_t_s, 20 * 86400.0, 1e-12);
    assert_int_equal(s->energy.grid.n_tod, 1);
    assert_close(s->energy.grid.tod[0].start_s, 17 * 3600.0, 1e-12);
    scenario_free(s);
}

static void test_scenario_dates_parse_to_days(void **state)
{
    scenario *s;
    sim_err e;
    const char *ov[] = {"simulation.start_date=2028-02-29",
                        "modules.[0].commission_date=2028-03-01"};
    (void)state;
    assert_int_equal(
        scenario_load("tests/data/good/minimal.cfg", cat, ov, 2, &s, &e),
        SIM_OK);
    /* 2028-02-29 is day 21,243 after 1970-01-01 (Python datetime agrees);
     * the leap day is one day before March 1st. */
    assert_int_equal(s->sim.start_day, 21243);
    assert_close(s->modules[0].commission_t_s, 86400.0, 1e-12);
    scenario_free(s);
}

/* Runs a shell command, returns its exit status and first output line. */
static int run(const char *cmd, char *line, size_t n)
{
    FILE *p = popen(cmd, "r");
    int st;
    line[0] = '\0';
    if (!p)
        return -1;
    if (!fgets(line, (int)n, p))
        line[0] = '\0';
    while (fgetc(p) != EOF)
        ;
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_scenario_check_command_exit_codes(void **state)
{
    const char *bin =
        getenv("FACTORYSIM") ? getenv("FACTORYSIM") : "bin/factorysim";
    char cmd[1024], line[2048];
    (void)state;
    snprintf(cmd, sizeof cmd,
             "%s check tests/data/bad/too-many-racks.cfg "
             "2>&1",
             bin);
    assert_int_equal(run(cmd, line, sizeof line), 1);
    assert_non_null(strstr(line, "tests/data/bad/too-many-racks.cfg:10: "
                                 "modules.[0].units:"));
    snprintf(cmd, sizeof cmd, "%s check tests/data/bad/garbage.cfg 2>&1", bin);
    assert_int_equal(run(cmd, line, sizeof line), 1);
    snprintf(cmd, sizeof cmd,
             "%s check scenarios/nevada-solar.cfg --set "
             "modules.[0].units=35 2>&1",
             bin);
    assert_int_equal(run(cmd, line, sizeof line), 1);
    assert_non_null(strstr(line, "--set: modules.[0].units: more hgx-b300"));
    snprintf(cmd, sizeof cmd,
             "%s check scenarios/nevada-solar.cfg --set "
             "modules.[0].count=5 2>&1",
             bin);
    assert_int_equal(run(cmd, line, sizeof line), 0);
    assert_non_null(strstr(line, "scenarios/nevada-solar.cfg"));
    snprintf(cmd, sizeof cmd, "%s catalog gpus --format json 2>&1", bin);
    assert_int_equal(run(cmd, line, sizeof line), 0);
    snprintf(cmd, sizeof cmd, "%s catalog nonsense 2>&1", bin);
    assert_int_equal(run(cmd, line, sizeof line), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_bad_corpus_names_file_line_key),
        cmocka_unit_test(test_scenario_bad_corpus_is_all_checked),
        cmocka_unit_test(test_scenario_minimal_resolves_defaults_in_si),
        cmocka_unit_test(
            test_scenario_include_and_catalog_override_from_other_cwd),
        cmocka_unit_test(test_scenario_overrides_apply_before_validation),
        cmocka_unit_test(test_scenario_resolved_text_is_stable),
        cmocka_unit_test(test_scenario_every_example_loads),
        cmocka_unit_test(test_scenario_liquid_100mw_holds_about_50000_gpus),
        cmocka_unit_test(test_scenario_dates_parse_to_days),
        cmocka_unit_test(test_scenario_check_command_exit_codes),
    };
    return cmocka_run_group_tests_name("scenario", tests, setup, teardown);
}
