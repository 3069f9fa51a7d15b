/* tests/test_scenario_mem.c: the catalog's and the scenario's rules on a
 * catalog and a scenario built in memory, with no file read (issue 16: the
 * domain owns its rules). The catalog comes from catalog_new and the
 * catalog_add_* calls; the scenario is filled field by field and resolved
 * by scenario_finish. Every figure expected below is computed here from
 * the entries the test writes, not copied from a run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/catalog.h"
#include "models/flops.h"
#include "models/scenario.h"
#include "sim/mem.h"
#include "tests/testutil.h"

#define KW 1e3
#define MW 1e6

/* A GPU, a system of 8 of them (10 kW per unit), a module type of 95 kW IT
 * that hosts it (9 units fit: floor(95 / 10)), a second system it does not
 * host, and a small dense LLM whose stated total is its architecture's. */
static catalog *mem_catalog(void)
{
    catalog *c = catalog_new();
    gpu_spec g;
    system_spec sy;
    module_type mt;
    llm_arch a;
    source_defaults d;
    double dense, expert;
    sim_err err;

    memset(&g, 0, sizeof g);
    strcpy(g.name, "T100");
    g.peak_flops[NUM_BF16] = 1e15;
    g.peak_flops[NUM_FP8] = 2e15;
    g.hbm_bytes = 80e9;
    g.hbm_Bps = 3e12;
    g.tdp_w = 1000;
    g.nvlink_Bps = 450e9;
    g.nvlink_domain = 8;
    g.scaleout_bps = 400e9;
    assert_int_equal(catalog_add_gpu(c, &g, "test", NULL, NULL, &err), SIM_OK);

    memset(&sy, 0, sizeof sy);
    strcpy(sy.name, "box-8");
    strcpy(sy.gpu, "t100"); /* stored as the catalog spells it */
    sy.gpus = 8;
    sy.max_power_w = 10 * KW;
    sy.typical_fraction = 0.8;
    assert_int_equal(catalog_add_system(c, &sy, "test", NULL, NULL, &err),
                     SIM_OK);
    strcpy(sy.name, "box-other");
    assert_int_equal(catalog_add_system(c, &sy, "test", NULL, NULL, &err),
                     SIM_OK);

    memset(&mt, 0, sizeof mt);
    strcpy(mt.name, "pod");
    mt.it_power_w = 95 * KW;
    mt.containers = 1;
    mt.pue_ref = 1.2;
    mt.n_hosts = 1;
    strcpy(mt.hosts[0], "BOX-8");
    assert_int_equal(catalog_add_module(c, &mt, "test", NULL, NULL, &err),
                     SIM_OK);

    memset(&a, 0, sizeof a);
    strcpy(a.name, "Tiny 1B");
    strcpy(a.id, "tiny-1b");
    a.cls = LLM_DENSE;
    a.num_layers = 16;
    a.hidden_size = 2048;
    a.ffn_hidden_size = 8192;
    a.num_attention_heads = 16;
    a.num_kv_heads = 16;
    a.vocab_size = 32000;
    a.default_seq_len = 4096;
    flops_params(&a, 0, &dense, &expert);
    a.total_params = a.active_params = dense + expert;
    assert_int_equal(catalog_add_llm(c, &a, "test", NULL, NULL, &err), SIM_OK);

    for (int k = 0; k < SRC_N; k++) {
        memset(&d, 0, sizeof d);
        d.kind = (source_kind)k;
        snprintf(d.name, sizeof d.name, "%s", source_table[k].name);
        d.dc_ac_ratio = 1.25;
        d.soh_min = 0.6;
        d.soh_max = 0.9;
        assert_int_equal(catalog_add_source(c, &d, "test", NULL, NULL, &err),
                         SIM_OK);
    }
    assert_int_equal(catalog_finish(c, &err), SIM_OK);
    return c;
}

/* One module group of `count` pods with `units` (0 = as many as fit), a
 * 20 MW grid, one job of 64 GPUs training `tokens`. */
static scenario *mem_scenario(int count, int units, double tokens)
{
    scenario *s = sim_xcalloc(1, sizeof *s);
    scen_module *m;
    scen_job *j;

    s->cat = mem_catalog();
    s->sim.horizon_s = 30 * 86400.0;
    s->sim.step_s = 900;
    s->sim.replications = 1;
    s->n_modules = 1;
    s->modules = sim_xcalloc(1, sizeof *s->modules);
    m = &s->modules[0];
    strcpy(m->name, "pods");
    m->type = catalog_module(s->cat, "pod");
    m->system = catalog_system(s->cat, "box-8");
    m->count = count;
    m->units = units;
    s->energy.present[SRC_GRID] = 1;
    s->energy.capacity_w[SRC_GRID] = 20 * MW;
    s->energy.battery.c_rate_max_per_s = 0.25 / 3600;
    s->n_jobs = 1;
    s->jobs = sim_xcalloc(1, sizeof *s->jobs);
    j = &s->jobs[0];
    strcpy(j->name, "train");
    j->model = catalog_llm(s->cat, "tiny-1b");
    strcpy(j->precision, "bf16");
    j->fmt = NUM_BF16;
    j->gpus = 64;
    j->global_batch = 256;
    j->seq_len = 4096;
    j->tokens = tokens;
    return s;
}

/* The catalog derives a system's GPU power and overhead on add, and every
 * module's max units once finished; refusals name the key. */
static void test_scenario_mem_catalog_derives_and_refuses(void **state)
{
    catalog *c = mem_catalog();
    const system_spec *sy = catalog_system(c, "box-8");
    const module_type *mt = catalog_module(c, "pod");
    system_spec bad;
    sim_err err;
    (void)state;

    assert_string_equal(sy->gpu, "T100");
    assert_close(sy->gpu_power_w, 8 * 1000.0, 1e-12);
    assert_close(sy->overhead_w, 10 * KW - 8 * 1000.0, 1e-12);
    assert_string_equal(mt->hosts[0], "box-8");
    assert_int_equal(mt->max_units[0], (int)floor(95.0 / 10.0));
    assert_int_equal(catalog_module_fits(mt, "box-other"), -1);

    bad = *sy;
    strcpy(bad.name, "box-x");
    strcpy(bad.gpu, "nope");
    assert_int_equal(catalog_add_system(c, &bad, NULL, NULL, NULL, &err),
                     SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "gpu: unknown GPU (got \"nope\""));
    assert_null(catalog_system(c, "box-x")); /* nothing added */
    strcpy(bad.gpu, "T100");
    bad.max_power_w = 7 * KW; /* below 8 x 1000 W */
    assert_int_equal(catalog_add_system(c, &bad, NULL, NULL, NULL, &err),
                     SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "max_power_kw: below the GPUs' own TDP"));
    catalog_free(c);
}

/* The module-fit rule and the group's derived GPUs and IT power. */
static void test_scenario_mem_module_fit_and_derivations(void **state)
{
    scenario *s = mem_scenario(3, 0, 1e9);
    const scen_module *m = &s->modules[0];
    sim_err err;
    (void)state;

    assert_int_equal(scenario_finish(s, &err), SIM_OK);
    assert_int_equal(m->units, 9); /* units 0: as many as fit */
    assert_ptr_equal(m->gpu, catalog_gpu(s->cat, "T100"));
    assert_int_equal(m->gpus, 3 * 9 * 8);
    assert_close(m->it_power_w, 3 * 9 * 10 * KW, 1e-12);
    assert_close(m->it_capacity_w, 3 * 95 * KW, 1e-12);
    assert_int_equal(scenario_gpus(s, NULL), 3 * 9 * 8);
    assert_close(scenario_it_power_w(s), 3 * 9 * 10 * KW, 1e-12);
    scenario_free(s);

    /* One unit more than the IT power allows. */
    s = mem_scenario(3, 10, 1e9);
    assert_int_equal(scenario_finish(s, &err), SIM_ECONFIG);
    assert_int_equal(err.line, SIM_ERR_AT_KEY);
    assert_non_null(strstr(err.msg, "modules.[0].units: more box-8 than a "
                                    "pod module's power allows"));
    assert_non_null(strstr(err.msg, "expected <= 9 units"));
    scenario_free(s);

    /* A system the module type does not list. */
    s = mem_scenario(1, 0, 1e9);
    s->modules[0].system = catalog_system(s->cat, "box-other");
    assert_int_equal(scenario_finish(s, &err), SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "modules.[0].hosts: module type pod "
                                    "cannot host it"));
    scenario_free(s);
}

/* Steps from tokens round up to whole steps; tokens then follow the steps;
 * a job's GPU type defaults to the site's only one. */
static void test_scenario_mem_job_steps_from_tokens(void **state)
{
    double per_step = 256.0 * 4096;
    scenario *s = mem_scenario(1, 0, 10.5 * per_step);
    sim_err err;
    (void)state;

    assert_int_equal(scenario_finish(s, &err), SIM_OK);
    assert_int_equal(s->jobs[0].steps, 11);
    assert_close(s->jobs[0].tokens, 11 * per_step, 1e-12);
    assert_ptr_equal(s->jobs[0].gpu, catalog_gpu(s->cat, "T100"));
    scenario_free(s);

    /* Steps given: tokens follow them exactly. */
    s = mem_scenario(1, 0, 0);
    s->jobs[0].steps = 7;
    assert_int_equal(scenario_finish(s, &err), SIM_OK);
    assert_close(s->jobs[0].tokens, 7 * per_step, 1e-12);
    scenario_free(s);

    /* More GPUs than 1 pod x 9 units x 8 = 72 hosts. */
    s = mem_scenario(1, 0, 1e9);
    s->jobs[0].gpus = 80;
    assert_int_equal(scenario_finish(s, &err), SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "jobs.[0].gpus: needs more GPUs than the "
                                    "site will ever have (got 80 + 0 hot "
                                    "spares, expected <= 72 T100"));
    scenario_free(s);
}

/* Cross-field rules of the energy sources, each naming its key. */
static void test_scenario_mem_energy_cross_field_refusals(void **state)
{
    scenario *s = mem_scenario(1, 0, 1e9);
    sim_err err;
    (void)state;

    /* 4 MW from 8 MWh at 0.25 C (2 MW at most). */
    s->energy.capacity_w[SRC_BATTERY] = 4 * MW;
    s->energy.battery.capacity_j = 8 * 3.6e9;
    s->energy.battery.soh_min = 0.6;
    s->energy.battery.soh_max = 0.9;
    s->energy.battery.soh_mean = 0.7;
    assert_int_equal(scenario_finish(s, &err), SIM_ECONFIG);
    assert_int_equal(err.line, SIM_ERR_AT_GROUP);
    assert_non_null(strstr(err.msg, "energy.battery.power_mw: more power than "
                                    "the battery's energy allows"));
    assert_non_null(strstr(err.msg, "expected <= 0.25 C x 8 MWh = 2 MW"));
    /* Within the limit it passes and the battery is present. */
    s->energy.capacity_w[SRC_BATTERY] = 2 * MW;
    assert_int_equal(scenario_finish(s, &err), SIM_OK);
    assert_int_equal(s->energy.present[SRC_BATTERY], 1);
    assert_close(scenario_source_rating_w(s, SRC_BATTERY), 2 * MW, 1e-12);
    scenario_free(s);

    /* PV: the inverter limit follows from the DC/AC ratio. */
    s = mem_scenario(1, 0, 1e9);
    s->energy.capacity_w[SRC_SOLAR] = 5 * MW;
    s->energy.solar.dc_ac_ratio = 1.25;
    assert_int_equal(scenario_finish(s, &err), SIM_OK);
    assert_int_equal(s->energy.present[SRC_SOLAR], 1);
    assert_close(scenario_source_rating_w(s, SRC_SOLAR), 5 * MW / 1.25, 1e-12);
    scenario_free(s);

    /* An islanded site with nothing but a battery has no energy. */
    s = mem_scenario(1, 0, 1e9);
    s->energy.capacity_w[SRC_GRID] = 0;
    assert_int_equal(scenario_finish(s, &err), SIM_ECONFIG);
    assert_non_null(strstr(err.msg, "energy: no source of energy"));
    scenario_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_mem_catalog_derives_and_refuses),
        cmocka_unit_test(test_scenario_mem_module_fit_and_derivations),
        cmocka_unit_test(test_scenario_mem_job_steps_from_tokens),
        cmocka_unit_test(test_scenario_mem_energy_cross_field_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
