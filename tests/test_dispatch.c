/* tests/test_dispatch.c: one step's merit order, limits, shortage policies,
 * energy balance and attribution; plus the load curves (cooling:
 * test_cooling.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_rng.h>

#include "models/dispatch.h"
#include "models/load.h"
#include "power_testutil.h"
#include "sim/rng.h"

#define KWH 3.6e6

static dispatch_source src(dispatch_role r, double w, double g_kwh, int ren)
{
    dispatch_source s = {r, w, g_kwh / KWH, 0.05 / KWH, ren};
    return s;
}

static dispatch_store store(double ch, double dis)
{
    dispatch_store s = {ch, dis, 0.938083151964686, 0.938083151964686, 10 / KWH,
                        0,  1};
    return s;
}

static void test_dispatch_surplus_charges_then_curtails(void **state)
{
    (void)state;
    dispatch_source s[2] = {src(DISPATCH_MUST_TAKE, 3e6, 48, 1),
                            src(DISPATCH_GRID, 5e6, 481, 0)};
    dispatch_store b[1] = {store(0.5e6, 1e6)};
    dispatch_module m[1] = {{1e6, 1.25}};
    dispatch_in in = {
        900, DISPATCH_POLICY_THROTTLE, s, 2, b, 1, m, 1, NULL, 0, 0, NULL};
    dispatch_out *o = dispatch_out_new(2, 1, 1, 0);
    sim_err e;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_close(o->load_w, 1.25e6, 1e-12);
    assert_close(o->charge_w, 0.5e6, 1e-12);
    assert_close(o->curtailed_w, 3e6 - 1.25e6 - 0.5e6, 1e-12);
    assert_true(o->grid_w == 0 && o->discharge_w == 0 && o->shortfall_w == 0);
    assert_true(o->balance_rel < 1e-12);
    assert_close(o->load_renewable_j, 1.25e6 * 900, 1e-12);
    dispatch_out_free(o);
}

static void test_dispatch_deficit_battery_then_grid_then_policy(void **state)
{
    (void)state;
    dispatch_source s[3] = {src(DISPATCH_MUST_TAKE, 1e6, 48, 1),
                            src(DISPATCH_FIRM, 0.5e6, 24, 1),
                            src(DISPATCH_GRID, 1e6, 481, 0)};
    dispatch_store b[1] = {store(1e6, 0.75e6)};
    dispatch_module m[1] = {{0, 1.0}};
    dispatch_job j[2] = {{0, 2.0e6, 0.25e6, 0.4e6, 0.9, 5},
                         {0, 0.5e6, 0.05e6, 0.1e6, 0.9, 1}};
    dispatch_in in = {900, DISPATCH_POLICY_PAUSE, s, 3, b, 1, m, 1, j, 2, 0,
                      NULL};
    dispatch_out *o = dispatch_out_new(3, 1, 1, 2);
    sim_err e;
    /* Demand 2.8 MW vs 3.25 MW available: all served, merit order. */
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_close(o->load_w, 2.8e6, 1e-12);
    assert_close(o->src_load_w[1], 0.5e6, 1e-12);
    assert_close(o->discharge_w, 0.75e6, 1e-12);
    assert_close(o->grid_w, 0.55e6, 1e-12);
    assert_true(o->job[0].state == DISPATCH_RUN &&
                o->job[1].state == DISPATCH_RUN);

    /* Grid limit 0.3 MW: supply 2.55 MW < 2.8 MW. PAUSE pauses the low
     * priority job (0.55 -> 0.1 MW idle): demand 2.35 MW fits. */
    s[2].avail_w = 0.3e6;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_true(o->job[1].state == DISPATCH_PAUSED &&
                o->job[0].state == DISPATCH_RUN);
    assert_close(o->load_w, 2.35e6, 1e-12);
    assert_close(o->job[1].it_w, 0.1e6, 1e-12);
    assert_true(o->shortfall_w == 0 && o->job[1].throughput == 0);
    /* SHED turns it off instead: 2.25 MW. */
    in.policy = DISPATCH_POLICY_SHED;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_true(o->job[1].state == DISPATCH_SHED);
    assert_close(o->load_w, 2.25e6, 1e-12);
    /* THROTTLE: y such that 0.3 + y 2.5 = 2.55 -> y = 0.9. */
    in.policy = DISPATCH_POLICY_THROTTLE;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_close(o->throttle, 0.9, 1e-12);
    assert_close(o->load_w, 2.55e6, 1e-12);
    assert_true(o->job[0].state == DISPATCH_THROTTLED);
    assert_close(o->job[0].cap_frac_tdp, 0.81, 1e-12);
    assert_close(o->job[0].throughput,
                 load_cap_throughput(0.81) / load_cap_throughput(0.9), 1e-12);
    /* Much less supply: throttling to the floor is not enough, so the
     * low-priority job is paused first. */
    s[0].avail_w = 0;
    s[1].avail_w = 0;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
    assert_true(o->job[1].state == DISPATCH_PAUSED);
    assert_true(o->job[0].state == DISPATCH_THROTTLED ||
                o->job[0].state == DISPATCH_PAUSED);
    assert_true(o->balance_rel < 1e-12);
    dispatch_out_free(o);
}

static void test_dispatch_never_violates_a_limit(void **state)
{
    (void)state;
    gsl_rng *r = rng_stream_new(NULL, 5, 0, 77);
    dispatch_source s[5];
    dispatch_store b[3];
    dispatch_module m[3];
    dispatch_job j[8];
    dispatch_out *o = dispatch_out_new(5, 3, 3, 8);
    sim_err e;
    for (int it = 0; it < 5000; it++) {
        for (int i = 0; i < 5; i++)
            s[i] = src((dispatch_role)(i % 3), gsl_rng_uniform(r) * 3e6, 40,
                       i != 2);
        for (int i = 0; i < 3; i++) {
            b[i] = store(gsl_rng_uniform(r) * 1e6, gsl_rng_uniform(r) * 1e6);
            b[i].eta_c = 0.9 + 0.1 * gsl_rng_uniform(r);
            b[i].eta_d = 0.9 + 0.1 * gsl_rng_uniform(r);
            m[i].base_it_w = gsl_rng_uniform(r) * 0.5e6;
            m[i].pue = 1 + 0.4 * gsl_rng_uniform(r);
        }
        for (int i = 0; i < 8; i++) {
            j[i].module = (size_t)(i % 3);
            j[i].gpu_w = gsl_rng_uniform(r) * 1e6;
            j[i].other_w = gsl_rng_uniform(r) * 0.3e6;
            j[i].idle_w = gsl_rng_uniform(r) * 0.1e6;
            j[i].gpu_frac_tdp = 0.6 + 0.4 * gsl_rng_uniform(r);
            j[i].priority = (int)gsl_rng_uniform_int(r, 4);
        }
        /* Every other case carries an auxiliary (HVAC) load, which must
         * be served like a base load and close the attribution too. */
        dispatch_in in = {900,
                          (dispatch_policy)(it % 3),
                          s,
                          5,
                          b,
                          3,
                          m,
                          3,
                          j,
                          8,
                          it % 2 ? 3.7e4 * (double)(it % 7) : 0.0,
                          NULL};
        assert_int_equal(dispatch_step(&in, o, &e), SIM_OK);
        for (int i = 0; i < 5; i++) {
            assert_true(o->src_w[i] <= s[i].avail_w * (1 + 1e-12));
            assert_true(o->src_load_w[i] + o->src_curtail_w[i] <=
                        o->src_w[i] * (1 + 1e-12) + 1e-6);
        }
        for (int i = 0; i < 3; i++) {
            assert_true(o->st_charge_w[i] <= b[i].charge_max_w * (1 + 1e-12));
            assert_true(o->st_discharge_w[i] <=
                        b[i].discharge_max_w * (1 + 1e-12));
            assert_true(o->st_charge_w[i] == 0 || o->st_discharge_w[i] == 0);
        }
        assert_true(o->load_w <= o->demand_w * (1 + 1e-12));
        assert_true(o->balance_rel <= 1e-9);
        assert_true(o->shortfall_w >= 0 && o->curtailed_w >= -1e-6);
        /* Attribution closes: jobs + base loads = the load served. */
        double sum = o->base_energy_j, c = 0;
        for (int i = 0; i < 8; i++) {
            sum += o->job[i].energy_j;
            c += o->job[i].carbon_g;
            assert_true(o->job[i].throughput >= 0 && o->job[i].throughput <= 1);
            assert_true(o->job[i].facility_w <=
                            m[j[i].module].pue * (j[i].gpu_w + j[i].other_w) *
                                    (1 + 1e-12) +
                                1e-9 ||
                        o->job[i].state == DISPATCH_PAUSED);
        }
        if (o->load_w > 0)
            assert_close(sum, o->load_w * 900, 1e-9);
        assert_true(o->aux_served_w <= in.aux_w * (1 + 1e-12) &&
                    o->aux_served_w >= 0);
        assert_true(c <= o->load_carbon_g * (1 + 1e-9) + 1e-9);
    }
    dispatch_out_free(o);
    gsl_rng_free(r);
}

static void test_dispatch_rejects_bad_input(void **state)
{
    (void)state;
    dispatch_source s[1] = {src(DISPATCH_GRID, -1, 0, 0)};
    dispatch_out *o = dispatch_out_new(1, 0, 0, 0);
    dispatch_in in = {
        900, DISPATCH_POLICY_THROTTLE, s, 1, NULL, 0, NULL, 0, NULL, 0, 0,
        NULL};
    sim_err e;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_EINVAL);
    s[0].avail_w = 1;
    in.dt_s = 0;
    assert_int_equal(dispatch_step(&in, o, &e), SIM_EINVAL);
    dispatch_out_free(o);
    dispatch_policy p;
    assert_int_equal(dispatch_policy_parse("shed", &p), 0);
    assert_int_equal(p, DISPATCH_POLICY_SHED);
    assert_int_equal(dispatch_policy_parse("nap", &p), -1);
}

static void test_load_training_power_matches_brookhaven(void **state)
{
    (void)state;
    /* DGX H100: 8 x 700 W, 10.2 kW max -> 0.76 x 10.2 kW in training. */
    load_cfg c;
    load_cfg_default(&c, 500e3);
    load_system h100 = {8, 700, 10200};
    double g, o;
    double w = load_system_w(&c, &h100, LOAD_TRAINING,
                             LOAD_DEFAULT_COMPUTE_FRAC, &g, &o);
    assert_within(w / 10200, 0.755, 0.765);
    assert_within(g / 5600, 0.899, 0.901);
    assert_true(load_system_w(&c, &h100, LOAD_OFF, 0.9, NULL, NULL) == 0);
    assert_true(load_system_w(&c, &h100, LOAD_IDLE, 0.9, NULL, NULL) < 0.3 * w);
    /* Never above the module's IT capacity. */
    double clipped;
    assert_close(load_module_it_w(&c, 612e3, &clipped), 500e3, 1e-15);
    assert_close(clipped, 112e3, 1e-12);
    /* Cap curve: flat near TDP, 0.38 at the lowest cap, monotone. */
    assert_close(load_cap_throughput(0.95), 1.0, 1e-15);
    assert_close(load_cap_throughput(0.42), 0.38, 1e-12);
    assert_close(load_cap_throughput(0.71), 0.91, 1e-9);
    for (double x = 0.3; x < 1.0; x += 0.01)
        assert_true(load_cap_throughput(x + 0.01) >= load_cap_throughput(x));
}

/* GPU power follows the step: a time-weighted mean of the phases' levels,
 * so a step that only waits longer on communication draws less per second
 * but more per step; an empty step is all compute. */
static void test_load_step_power_follows_phases(void **state)
{
    (void)state;
    load_cfg c;
    load_cfg_default(&c, 3.5e6);
    load_step st = {1.37, 0.29, 0.11, 0, 0};
    double f = load_step_gpu_frac(&c, NUM_FP8, &st);
    assert_close(f, (1.37 * 0.90 + 0.29 * 0.25 + 0.11 * 0.25) / 1.77, 1e-12);
    assert_close(load_step_gpu_frac(&c, NUM_BF16, NULL), 0.90, 1e-15);
    load_step slow = st;
    slow.comm_s *= 2;
    double f2 = load_step_gpu_frac(&c, NUM_FP8, &slow);
    assert_true(f2 < f);
    assert_true(f2 * 2.06 > f * 1.77); /* energy per step still rises */
    /* The nominal step is the all-compute one (module design load). */
    assert_close(load_gpu_frac(&c, LOAD_DEFAULT_COMPUTE_FRAC), 0.90, 1e-15);
    load_system b300 = {8, 1100, 14500};
    load_demand d;
    load_training_demand_f(&c, &b300, 16, c.u_ckpt, &d);
    assert_close(d.gpu_w, 16 * 1100 * 0.15, 1e-12);
    assert_close(d.gpu_frac_tdp, 0.15, 1e-15);
    sim_err e;
    c.u_comm = 0;
    assert_int_equal(load_cfg_check(&c, &b300, &e), SIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch_surplus_charges_then_curtails),
        cmocka_unit_test(test_dispatch_deficit_battery_then_grid_then_policy),
        cmocka_unit_test(test_dispatch_never_violates_a_limit),
        cmocka_unit_test(test_dispatch_rejects_bad_input),
        cmocka_unit_test(test_load_training_power_matches_brookhaven),
        cmocka_unit_test(test_load_step_power_follows_phases),
    };
    return cmocka_run_group_tests_name("dispatch", tests, NULL, NULL);
}
