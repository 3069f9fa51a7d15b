/* tests/test_site.c: the site simulation's sanity properties (issue 6.7)
 * and its promises (models/site.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "models/load.h"
#include "models/resfield.h"
#include "models/reliability.h"
#include "tests/site_util.h"
#include "tests/testutil.h"

static test_world W;

static int setup(void **state)
{
    (void)state;
    world_open(&W);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    world_close(&W);
    return 0;
}

/* "one job with no failures and unlimited power takes exactly tokens /
 * throughput" */
static void test_site_one_job_takes_tokens_over_throughput(void **state)
{
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", NULL, 0);
    res_rep *r = run_reps(&W, s, 1, 0, 0);
    tp_result tr;
    sim_err e;
    double rate;
    (void)state;
    assert_int_equal(
        site_job_throughput(s, &s->jobs[0], W.tp, 0.0, 0.0, &tr, &e), SIM_OK);
    rate = tr.tokens_per_sec_per_gpu * s->jobs[0].gpus;
    assert_true(r[0].jobs[0].completed);
    assert_close(r[0].jobs[0].start_s, 0.0, 0);
    assert_close(r[0].jobs[0].run_time_s, s->jobs[0].tokens / rate, 1e-12);
    assert_close(r[0].jobs[0].goodput, 1.0, 1e-12);
    assert_int_equal(r[0].jobs[0].interruptions, 0);
    assert_close(r[0].jobs[0].tokens, s->jobs[0].tokens, 1e-12);
    free_reps(r, 1);
    scenario_free(s);
}

/* A job's etp reaches its throughput query: Qwen3 30B-A3B at tp 2, ep 4
 * on the B300 module with etp 2 predicts layout.etp 2 (not chosen), left
 * out it is chosen and named; etp 2 on a dense model is refused by the
 * loader, naming the key (check refuses what run would). */
static void test_site_job_etp_reaches_the_query(void **state)
{
    const char *two[] = {"jobs.[0].model=\"qwen3-30b-a3b\"",
                         "jobs.[0].tp=2",
                         "jobs.[0].pp=1",
                         "jobs.[0].ep=4",
                         "jobs.[0].global_batch=512",
                         "jobs.[0].etp=2"};
    const char *dense[] = {"jobs.[0].tp=2", "jobs.[0].etp=2"};
    scenario *s2, *s0, *sb = NULL;
    tp_result r2, r0;
    sim_err e;
    (void)state;
    s2 = load_scn(&W, "tests/data/run/grid-one-job.cfg", two, 6);
    s0 = load_scn(&W, "tests/data/run/grid-one-job.cfg", two, 5);
    assert_int_equal(s2->jobs[0].etp, 2);
    assert_int_equal(
        site_job_throughput(s2, &s2->jobs[0], W.tp, 0.0, 0.0, &r2, &e), SIM_OK);
    assert_int_equal(
        site_job_throughput(s0, &s0->jobs[0], W.tp, 0.0, 0.0, &r0, &e), SIM_OK);
    assert_int_equal(r2.layout.etp, 2);
    assert_false(r2.chosen & 1u << TP_FIELD_ETP);
    assert_true(r0.chosen & 1u << TP_FIELD_ETP);
    assert_true(r0.layout.etp == 1 || r0.layout.etp == 2);
    assert_int_equal(scenario_load("tests/data/run/grid-one-job.cfg", W.cat,
                                   dense, 2, &sb, &e),
                     SIM_ECONFIG);
    assert_null(sb);
    assert_non_null(strstr(e.msg, "etp"));
    assert_non_null(strstr(e.msg, "dense"));
    scenario_free(s2);
    scenario_free(s0);
}

/* A job's moe_dispatcher reaches its throughput query: a MoE job (Qwen3
 * 30B-A3B, ep 8 on the B300 module) predicts the same with no key as with
 * "alltoall" (the calibration's unstated rows), and faster with
 * "flex-hybridep", by its EP exchange alone (a token sent once per rank,
 * models/tp_comm.c): the compute is the same. A value outside the four
 * names is refused with the key and the names. */
static void test_site_job_moe_dispatcher_reaches_the_query(void **state)
{
    const char *base[] = {"jobs.[0].model=\"qwen3-30b-a3b\"", "jobs.[0].tp=1",
                          "jobs.[0].pp=1", "jobs.[0].ep=8",
                          "jobs.[0].global_batch=512"};
    const char *a2a[6], *hyb[6], *bad[6];
    scenario *s0, *sa, *sh, *sb = NULL;
    tp_result r0, ra, rh;
    sim_err e;
    (void)state;
    for (int i = 0; i < 5; i++)
        a2a[i] = hyb[i] = bad[i] = base[i];
    a2a[5] = "jobs.[0].moe_dispatcher=\"alltoall\"";
    hyb[5] = "jobs.[0].moe_dispatcher=\"flex-hybridep\"";
    bad[5] = "jobs.[0].moe_dispatcher=\"deepep\"";
    s0 = load_scn(&W, "tests/data/run/grid-one-job.cfg", base, 5);
    sa = load_scn(&W, "tests/data/run/grid-one-job.cfg", a2a, 6);
    sh = load_scn(&W, "tests/data/run/grid-one-job.cfg", hyb, 6);
    assert_int_equal(sh->jobs[0].moe_dispatcher, TP_DISPATCH_HYBRIDEP);
    assert_int_equal(
        site_job_throughput(s0, &s0->jobs[0], W.tp, 0.0, 0.0, &r0, &e), SIM_OK);
    assert_int_equal(
        site_job_throughput(sa, &sa->jobs[0], W.tp, 0.0, 0.0, &ra, &e), SIM_OK);
    assert_int_equal(
        site_job_throughput(sh, &sh->jobs[0], W.tp, 0.0, 0.0, &rh, &e), SIM_OK);
    assert_close(r0.step_time_s, ra.step_time_s, 0);
    assert_true(ra.t_ep_s > 0);
    assert_true(rh.t_ep_s < ra.t_ep_s);
    assert_true(rh.tokens_per_sec_per_gpu > ra.tokens_per_sec_per_gpu);
    assert_close(rh.t_compute_s, ra.t_compute_s, 1e-12);
    assert_int_equal(scenario_load("tests/data/run/grid-one-job.cfg", W.cat,
                                   bad, 6, &sb, &e),
                     SIM_ECONFIG);
    assert_null(sb);
    assert_non_null(strstr(e.msg, "moe_dispatcher"));
    assert_non_null(strstr(e.msg, "flex-hybridep"));
    scenario_free(s0);
    scenario_free(sa);
    scenario_free(sh);
}

/* A job's moe_a2a_overlap reaches its throughput query
 * (models/tp_recipe.c): the same MoE job with `false` exposes its whole EP
 * exchange, with `true` all but the fitted share ovl_ep_on of it, and with
 * no key all but ovl_ep (2 micro-batches per step; each exchange far
 * shorter than the micro-batch's compute, so the window does not bind);
 * only the EP time moves. A value
 * that is not a boolean is refused, naming the key. */
static void test_site_job_moe_a2a_overlap_reaches_the_query(void **state)
{
    const char *base[] = {"jobs.[0].model=\"qwen3-30b-a3b\"",
                          "jobs.[0].tp=1",
                          "jobs.[0].pp=1",
                          "jobs.[0].ep=8",
                          "jobs.[0].global_batch=512",
                          "jobs.[0].micro_batch=1"};
    const char *on[7], *off[7], *bad[7];
    scenario *s0, *s1, *s2, *sb = NULL;
    tp_result r0, r1, r2;
    sim_err e;
    (void)state;
    for (int i = 0; i < 6; i++)
        on[i] = off[i] = bad[i] = base[i];
    on[6] = "jobs.[0].moe_a2a_overlap=true";
    off[6] = "jobs.[0].moe_a2a_overlap=false";
    bad[6] = "jobs.[0].moe_a2a_overlap=\"yes\"";
    s0 = load_scn(&W, "tests/data/run/grid-one-job.cfg", base, 6);
    s1 = load_scn(&W, "tests/data/run/grid-one-job.cfg", on, 7);
    s2 = load_scn(&W, "tests/data/run/grid-one-job.cfg", off, 7);
    assert_int_equal(s0->jobs[0].moe_a2a_overlap, TP_A2A_OVL_DEFAULT);
    assert_int_equal(s1->jobs[0].moe_a2a_overlap, TP_A2A_OVL_ON);
    assert_int_equal(s2->jobs[0].moe_a2a_overlap, TP_A2A_OVL_OFF);
    assert_int_equal(
        site_job_throughput(s0, &s0->jobs[0], W.tp, 0.0, 0.0, &r0, &e), SIM_OK);
    assert_int_equal(
        site_job_throughput(s1, &s1->jobs[0], W.tp, 0.0, 0.0, &r1, &e), SIM_OK);
    assert_int_equal(
        site_job_throughput(s2, &s2->jobs[0], W.tp, 0.0, 0.0, &r2, &e), SIM_OK);
    assert_int_equal(r2.microbatches, 2); /* 512 / (256 x 1) */
    assert_true(r2.t_ep_s > 0);
    assert_true(r2.t_compute_s > r2.t_ep_s);
    assert_close(r1.t_ep_s, (1 - W.tp->p[TP_OVL_EP_ON]) * r2.t_ep_s, 1e-9);
    assert_close(r0.t_ep_s, (1 - W.tp->p[TP_OVL_EP]) * r2.t_ep_s, 1e-9);
    assert_close(r1.t_compute_s, r2.t_compute_s, 1e-12);
    assert_true(r1.tokens_per_sec_per_gpu > r2.tokens_per_sec_per_gpu);
    assert_int_equal(scenario_load("tests/data/run/grid-one-job.cfg", W.cat,
                                   bad, 7, &sb, &e),
                     SIM_ECONFIG);
    assert_null(sb);
    assert_non_null(strstr(e.msg, "moe_a2a_overlap"));
    scenario_free(s0);
    scenario_free(s1);
    scenario_free(s2);
}

/* "with failures, goodput matches the analytical expectation within the
 * Monte Carlo confidence interval": the mean run time of R replications
 * against Daly's expected time of each checkpoint segment
 * (reliability.h), summed over the job's segments. */
static void test_site_failures_match_daly_expectation(void **state)
{
    const char *sets[] = {
        "reliability.failures=true",
        "reliability.interruptions_per_gpu_hour=1.0e-3",
        "reliability.node_repair_h=0.01",
        "reliability.module_mtbf_days=0.0",
        "jobs.[0].checkpoint.policy=\"fixed\"",
        "jobs.[0].checkpoint.interval_min=30.0",
        "jobs.[0].checkpoint.write_s=60.0",
        "jobs.[0].checkpoint.restart_min=10.0",
    };
    enum { R = 40 };
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sets, 8);
    res_rep *r = run_reps(&W, s, R, 0, 0);
    double t[R], lam = 1.0e-3 / 3600.0 * s->jobs[0].gpus, tau = 1800.0, w,
                 expect = 0;
    double mean, se, ints = 0, int_min = 1e9, int_max = 0;
    tp_result tr;
    sim_err e;
    (void)state;
    assert_int_equal(
        site_job_throughput(s, &s->jobs[0], W.tp, 0.0, 0.0, &tr, &e), SIM_OK);
    w = s->jobs[0].tokens / (tr.tokens_per_sec_per_gpu * s->jobs[0].gpus);
    while (w > tau) {
        expect += rel_expected_segment_s(lam, tau + 60.0, 600.0);
        w -= tau;
    }
    expect += rel_expected_segment_s(lam, w, 600.0);
    for (int i = 0; i < R; i++) {
        assert_true(r[i].jobs[0].completed);
        t[i] = r[i].jobs[0].run_time_s;
        ints += r[i].jobs[0].interruptions;
        int_min = fmin(int_min, r[i].jobs[0].interruptions);
        int_max = fmax(int_max, r[i].jobs[0].interruptions);
    }
    mean = gsl_stats_mean(t, 1, R);
    se = gsl_stats_sd(t, 1, R) / sqrt((double)R);
    if (fabs(mean - expect) > 3.5 * se)
        fail_msg("mean run time %.1f s, Daly %.1f s, se %.1f s", mean, expect,
                 se);
    /* Interruptions are events: their count varies across replications. */
    assert_true(int_max > int_min);
    assert_true(ints / R > 2.0);
    free_reps(r, R);
    scenario_free(s);
}

/* "adding battery never slows a job on a solar-only site" */
static void test_site_more_battery_never_slows(void **state)
{
    const char *caps[] = {"energy.battery.capacity_mwh=0.5",
                          "energy.battery.capacity_mwh=4.0",
                          "energy.battery.capacity_mwh=12.0"};
    const char *pw[] = {"energy.battery.power_mw=0.1",
                        "energy.battery.power_mw=0.8",
                        "energy.battery.power_mw=2.4"};
    double prev = INFINITY;
    (void)state;
    for (int k = 0; k < 3; k++) {
        const char *sets[] = {caps[k], pw[k], "jobs.[0].tokens=1.0e11"};
        scenario *s = load_scn(&W, "tests/data/run/solar-only.cfg", sets, 3);
        res_rep *r = run_reps(&W, s, 1, 0, 0);
        assert_true(r[0].jobs[0].completed);
        assert_true(r[0].jobs[0].time_to_train_s <= prev * (1 + 1e-12));
        if (k == 2)
            assert_true(r[0].jobs[0].time_to_train_s < prev); /* and it helps */
        prev = r[0].jobs[0].time_to_train_s;
        free_reps(r, 1);
        scenario_free(s);
    }
}

/* An off-grid site whose grid import limit is 0 reports a renewable share
 * of exactly 1 (issue 12.8): with solar and a battery as its only sources,
 * the battery's commissioning charge can only be renewable, as on a site
 * without a grid group. The two runs give the same share, bit for bit. */
static void
test_site_off_grid_zero_import_renewable_share_is_exactly_1(void **state)
{
    const char *with_grid[] = {"energy.grid.import_limit_mw=0"};
    (void)state;
    for (int k = 0; k < 2; k++) {
        scenario *s =
            load_scn(&W, "tests/data/run/solar-only.cfg", with_grid, (size_t)k);
        res_rep *r = run_reps(&W, s, 2, 0, 0);
        assert_int_equal(s->energy.present[SRC_GRID], k);
        assert_false(scenario_grid_connected(s));
        for (int i = 0; i < 2; i++) {
            assert_true(r[i].site.facility_energy_j > 0);
            assert_true(r[i].site.renewable_fraction == 1.0);
            assert_true(r[i].jobs[0].renewable_fraction == 1.0);
            assert_true(r[i].site.energy_by_source_j[SRC_GRID] == 0.0);
        }
        free_reps(r, 2);
        scenario_free(s);
    }
}

/* "a pause never loses completed work": with the pause policy on solar
 * alone the job pauses every night; the saved progress never goes back,
 * nothing is interrupted, and every token is trained exactly once. */
static void test_site_pause_never_loses_work(void **state)
{
    const char *sets[] = {"policy.shortage=\"pause\"",
                          "jobs.[0].tokens=1.0e11"};
    scenario *s = load_scn(&W, "tests/data/run/solar-only.cfg", sets, 2);
    res_rep *r = run_reps(&W, s, 1, 0, 1);
    double saved = 0, ideal;
    int pauses = 0;
    (void)state;
    assert_true(r[0].jobs[0].completed);
    for (size_t i = 0; i < r[0].n_events; i++) {
        const res_event *ev = &r[0].events[i];
        assert_true(ev->kind != RES_EV_INTERRUPT && ev->kind != RES_EV_SHED);
        if (ev->kind == RES_EV_PAUSE || ev->kind == RES_EV_CHECKPOINT ||
            ev->kind == RES_EV_RESUME) {
            assert_true(ev->value >= saved);
            saved = ev->value;
            pauses += ev->kind == RES_EV_PAUSE;
        }
    }
    assert_true(pauses >= 2);
    assert_int_equal(pauses, r[0].jobs[0].pauses);
    ideal = s->jobs[0].tokens /
            (r[0].jobs[0].tokens_per_sec_per_gpu * s->jobs[0].gpus);
    assert_true(r[0].jobs[0].run_time_s > ideal);
    assert_close(r[0].jobs[0].tokens, s->jobs[0].tokens, 1e-12);
    free_reps(r, 1);
    scenario_free(s);
}

/* "facility energy is at least IT energy" and "P10 <= P50 <= P90", on the
 * bundled Nevada scenario with failures on. */
static void test_site_facility_at_least_it_and_ordered_percentiles(void **state)
{
    enum { R = 6 };
    scenario *s = load_scn(&W, "scenarios/nevada-solar.cfg", NULL, 0);
    res_rep *r = run_reps(&W, s, R, 0, 0);
    (void)state;
    for (int i = 0; i < R; i++) {
        assert_true(r[i].site.facility_energy_j >= r[i].site.it_energy_j);
        for (size_t j = 0; j < r[i].n_jobs; j++) {
            assert_true(r[i].jobs[j].facility_energy_j >=
                        r[i].jobs[j].it_energy_j);
            assert_true(r[i].jobs[j].it_energy_j > 0);
        }
    }
    for (size_t j = 0; j < s->n_jobs; j++)
        for (size_t k = 0; k < resfield_n_job; k++) {
            stat_summary m = resfield_job_summary(&resfield_job[k], r, R, j, 1);
            if (m.n == 0)
                continue;
            assert_true(m.min <= m.p10 && m.p10 <= m.p50 && m.p50 <= m.p90 &&
                        m.p90 <= m.max);
        }
    free_reps(r, R);
    scenario_free(s);
}

/* Job energies are shares of the audited site totals: they never exceed
 * them, and on a site with one job that holds every system for most of
 * the run, they are most of it. */
static void test_site_job_energy_is_a_share_of_site_energy(void **state)
{
    scenario *s = load_scn(&W, "scenarios/nevada-solar.cfg", NULL, 0);
    res_rep *r = run_reps(&W, s, 1, 0, 0);
    double jobs = 0, src = 0;
    (void)state;
    for (size_t j = 0; j < r[0].n_jobs; j++) {
        double by = 0;
        jobs += r[0].jobs[j].facility_energy_j;
        for (int k = 0; k < SRC_N; k++)
            by += r[0].jobs[j].energy_by_source_j[k];
        assert_close(by, r[0].jobs[j].facility_energy_j, 1e-9);
        /* Its GPUs draw part of its IT energy, never all of it. */
        assert_true(r[0].jobs[j].gpu_energy_j > 0);
        assert_true(r[0].jobs[j].gpu_energy_j < r[0].jobs[j].it_energy_j);
    }
    /* Cooling water: between the dry cooler's 0.05 and the evaporative
     * designs' 2.72 L per kWh of IT (models/cooling.h). */
    assert_true(r[0].site.water_m3 >=
                0.05e-3 * r[0].site.it_energy_j / 3.6e6 * (1 - 1e-9));
    assert_true(r[0].site.water_m3 <= 2.72e-3 * r[0].site.it_energy_j / 3.6e6);
    for (int k = 0; k < SRC_N; k++)
        src += r[0].site.energy_by_source_j[k];
    assert_true(jobs <= r[0].site.facility_energy_j * (1 + 1e-9));
    assert_close(src, r[0].site.facility_energy_j, 1e-6);
    free_reps(r, 1);
    scenario_free(s);
}

/* Placement changes speed: a job spanning two modules sends its
 * data-parallel traffic over their link; a thin link slows it, and the
 * job waits for the second module's commissioning (day 10). */
static void test_site_spanning_job_follows_link_and_commissioning(void **state)
{
    const char *thin[] = {"fabric.links.[0].bandwidth_gbps=800.0"};
    scenario *a = load_scn(&W, "tests/data/run/two-groups.cfg", NULL, 0);
    scenario *b = load_scn(&W, "tests/data/run/two-groups.cfg", thin, 1);
    res_rep *ra = run_reps(&W, a, 1, 0, 0), *rb = run_reps(&W, b, 1, 0, 0);
    (void)state;
    assert_int_equal(ra[0].jobs[0].modules_spanned, 2);
    assert_close(ra[0].jobs[0].start_s, 10 * 86400.0, 0);
    assert_true(rb[0].jobs[0].tokens_per_sec_per_gpu <
                ra[0].jobs[0].tokens_per_sec_per_gpu);
    assert_true(rb[0].jobs[0].run_time_s > ra[0].jobs[0].run_time_s);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* GPU power follows the step (models/load.h): thinning the link a spanning
 * job's data-parallel traffic crosses lengthens only its exposed
 * communication, which draws u_comm of TDP, so the job's IT energy grows by
 * the extra time at that power plus its non-GPU part, much less than its
 * time (before issue 20 both grew by the same 8.3 %). Hand-computed:
 * E_half = E_full + dT (n_gpu TDP u_comm + n_sys rest nongpu_train_frac).
 * The link is cut to an eighth (6400 of 51200 Gb/s): since issue 18 the
 * bucketed DP reduction hides behind the backward pass as Megatron hides
 * it, so halving the link lengthens this job by only 0.5 %, too little for
 * the comparison; an eighth lengthens it by about 15 %. */
static void test_site_link_energy_follows_the_step(void **state)
{
    const char *half[] = {"fabric.links.[0].bandwidth_gbps=6400.0"};
    scenario *a = load_scn(&W, "tests/data/run/two-groups.cfg", NULL, 0);
    scenario *b = load_scn(&W, "tests/data/run/two-groups.cfg", half, 1);
    res_rep *ra = run_reps(&W, a, 1, 0, 0), *rb = run_reps(&W, b, 1, 0, 0);
    const scen_module *m = &a->modules[0];
    load_cfg lc;
    (void)state;
    load_cfg_default(&lc, m->it_capacity_w);
    double n_gpu = ra[0].jobs[0].gpus, n_sys = n_gpu / m->system->gpus;
    double rest = m->system->max_power_w - m->system->gpus * m->gpu->tdp_w;
    double dt = rb[0].jobs[0].run_time_s - ra[0].jobs[0].run_time_s;
    double want =
        ra[0].jobs[0].it_energy_j + dt * (n_gpu * m->gpu->tdp_w * lc.u_comm +
                                          n_sys * rest * lc.nongpu_train_frac);
    double time_up = rb[0].jobs[0].run_time_s / ra[0].jobs[0].run_time_s - 1;
    double energy_up =
        rb[0].jobs[0].it_energy_j / ra[0].jobs[0].it_energy_j - 1;
    assert_true(time_up > 0.05);
    assert_close(rb[0].jobs[0].it_energy_j, want, 1e-3);
    assert_true(energy_up < 0.6 * time_up);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* A pinned throughput is the job's whatever its placement: the run takes
 * tokens / (pin x GPUs) (no failures in this scenario) over a thin link
 * too; the step's phase shares stay the model's, so the thin link, whose
 * step is mostly communication, draws less GPU power in the same time. */
static void test_site_pinned_throughput_is_kept(void **state)
{
    const char *pin[] = {"jobs.[0].tokens_per_sec_per_gpu=12345.0"};
    const char *pin_thin[] = {"jobs.[0].tokens_per_sec_per_gpu=12345.0",
                              "fabric.links.[0].bandwidth_gbps=800.0"};
    scenario *a = load_scn(&W, "tests/data/run/two-groups.cfg", pin, 1);
    scenario *b = load_scn(&W, "tests/data/run/two-groups.cfg", pin_thin, 2);
    res_rep *ra = run_reps(&W, a, 1, 0, 0), *rb = run_reps(&W, b, 1, 0, 0);
    (void)state;
    assert_close(ra[0].jobs[0].tokens_per_sec_per_gpu, 12345.0, 1e-12);
    assert_close(ra[0].jobs[0].run_time_s,
                 a->jobs[0].tokens / (12345.0 * a->jobs[0].gpus), 1e-9);
    assert_close(rb[0].jobs[0].run_time_s, ra[0].jobs[0].run_time_s, 1e-12);
    assert_true(rb[0].jobs[0].it_energy_j < ra[0].jobs[0].it_energy_j);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* Energy validation (issue 20 item 5; sources in the scenario): Ai2's
 * metered GPU energy of Olmo 3 7B pretraining, ~146 MWh over ~234k
 * H100-hours. The throughput is pinned so that the GPU-hours are the
 * published ones; what is checked is the GPU power the model draws over
 * them, within 10 %. */
static void test_site_validation_olmo3_gpu_energy(void **state)
{
    scenario *s = load_scn(&W, "scenarios/validation-olmo3-7b.cfg", NULL, 0);
    res_rep *r = run_reps(&W, s, 1, 0, 0);
    const res_job *j = &r[0].jobs[0];
    (void)state;
    assert_int_equal(j->completed, 1);
    assert_close(j->gpu_s / 3600.0, 234e3, 1e-3); /* the pin holds */
    if (fabs(j->gpu_energy_j / 3.6e9 / 146.0 - 1.0) > 0.10)
        fail_msg("GPU energy %.1f MWh, metered 146 MWh (> 10 %% apart)",
                 j->gpu_energy_j / 3.6e9);
    free_reps(r, 1);
    scenario_free(s);
}

/* "a module outage takes all its GPUs down": with module outages only, every
 * interruption is a module one, the job waits for the repair (no other
 * module), and it still finishes every token. */
static void test_site_module_outage_takes_job_down(void **state)
{
    const char *sets[] = {"reliability.failures=true",
                          "reliability.interruptions_per_gpu_hour=0.0",
                          "reliability.module_mtbf_days=0.5",
                          "reliability.module_mttr_h=3.0",
                          "jobs.[0].tokens=2.0e11"};
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sets, 5);
    res_rep *r = run_reps(&W, s, 1, 0, 1);
    int module_ints = 0;
    double ideal;
    (void)state;
    for (size_t i = 0; i < r[0].n_events; i++)
        if (r[0].events[i].kind == RES_EV_INTERRUPT) {
            assert_int_equal(r[0].events[i].cause, RES_CAUSE_MODULE);
            module_ints++;
        }
    assert_true(module_ints >= 2);
    assert_int_equal(module_ints, r[0].jobs[0].interruptions);
    assert_true(r[0].jobs[0].completed);
    ideal = s->jobs[0].tokens /
            (r[0].jobs[0].tokens_per_sec_per_gpu * s->jobs[0].gpus);
    assert_true(r[0].jobs[0].run_time_s > ideal + module_ints * 600.0);
    assert_true(r[0].site.utilization < 1.0);
    free_reps(r, 1);
    scenario_free(s);
}

/* Common random numbers: adding a solar plant to a grid-fed site (which
 * does not change what the job can draw) leaves the job's interruption
 * times exactly as they were: each entity draws from its own stream. */
static void test_site_common_random_numbers(void **state)
{
    const char *fail[] = {"reliability.failures=true",
                          "reliability.interruptions_per_gpu_hour=2.0e-4"};
    const char *plus[] = {"reliability.failures=true",
                          "reliability.interruptions_per_gpu_hour=2.0e-4",
                          "energy.solar.capacity_mw=5.0"};
    scenario *a = load_scn(&W, "tests/data/run/grid-one-job.cfg", fail, 2);
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", plus, 3);
    res_rep *ra = run_reps(&W, a, 1, 0, 1), *rb = run_reps(&W, b, 1, 0, 1);
    size_t na = 0, nb = 0;
    (void)state;
    assert_true(rb[0].site.energy_by_source_j[SRC_SOLAR] > 0);
    assert_true(ra[0].jobs[0].interruptions > 0);
    for (size_t i = 0, k = 0; i < ra[0].n_events; i++) {
        if (ra[0].events[i].kind != RES_EV_INTERRUPT)
            continue;
        na++;
        while (k < rb[0].n_events && rb[0].events[k].kind != RES_EV_INTERRUPT)
            k++;
        assert_true(k < rb[0].n_events);
        assert_true(ra[0].events[i].t_s == rb[0].events[k].t_s);
        assert_int_equal(ra[0].events[i].cause, rb[0].events[k].cause);
        k++;
        nb++;
    }
    assert_int_equal(na, nb);
    assert_close(ra[0].jobs[0].run_time_s, rb[0].jobs[0].run_time_s, 0);
    free_reps(ra, 1);
    free_reps(rb, 1);
    scenario_free(a);
    scenario_free(b);
}

/* "Throughput follows power throttling": on solar alone with the throttle
 * policy, the job's throughput factor drops below 1 at times, and the run
 * takes longer than at full power. */
static void test_site_throughput_follows_throttling(void **state)
{
    /* 0.5 MW DC: at midday the plant covers most but not all of the
     * module's load, so the policy caps GPU power instead of pausing. */
    const char *sets[] = {"jobs.[0].tokens=1.0e11",
                          "energy.solar.capacity_mw=0.5"};
    scenario *s = load_scn(&W, "tests/data/run/solar-only.cfg", sets, 2);
    res_rep *r = run_reps(&W, s, 1, 0, 1);
    int throttled = 0;
    double ideal;
    (void)state;
    for (size_t i = 0; i < r[0].n_events; i++)
        if (r[0].events[i].kind == RES_EV_THROTTLE) {
            assert_true(r[0].events[i].value > 0 &&
                        r[0].events[i].value <= 1.0);
            throttled += r[0].events[i].value < 1.0;
        }
    assert_true(throttled > 0);
    ideal = s->jobs[0].tokens /
            (r[0].jobs[0].tokens_per_sec_per_gpu * s->jobs[0].gpus);
    assert_true(r[0].jobs[0].run_time_s > ideal);
    free_reps(r, 1);
    scenario_free(s);
}

/* FIFO with EASY backfill (models/sched.h): a short job jumps the queue
 * when it ends before the waiting head can start; a long one that would
 * delay the head waits; the head starts at the first step after the
 * systems it needs free up. */
static void test_site_easy_backfill(void **state)
{
    scenario *s = load_scn(&W, "tests/data/run/backfill.cfg", NULL, 0);
    res_rep *r = run_reps(&W, s, 1, 0, 0);
    const res_job *first = &r[0].jobs[0], *big = &r[0].jobs[1];
    const res_job *shrt = &r[0].jobs[2], *lng = &r[0].jobs[3];
    (void)state;
    for (int k = 0; k < 4; k++)
        assert_true(r[0].jobs[k].completed);
    assert_close(shrt->start_s, 2 * 3600.0, 0); /* backfilled */
    assert_true(shrt->end_s < big->start_s);
    assert_true(big->start_s >= first->end_s);
    assert_true(big->start_s - first->end_s <= s->sim.step_s);
    assert_true(lng->start_s >= big->start_s); /* waited */
    free_reps(r, 1);
    scenario_free(s);
}

/* "A run is a pure function of (scenario, options, seed, replication)":
 * the same replication twice gives identical results, another seed not. */
static void test_site_run_is_pure(void **state)
{
    scenario *s = load_scn(&W, "scenarios/nevada-solar.cfg", NULL, 0);
    res_rep *a = run_reps(&W, s, 2, 0, 1), *b = run_reps(&W, s, 2, 0, 1);
    res_rep *c = run_reps(&W, s, 1, 99, 0);
    (void)state;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(a[i].n_events, b[i].n_events);
        assert_memory_equal(a[i].jobs, b[i].jobs,
                            a[i].n_jobs * sizeof *a[i].jobs);
        assert_memory_equal(&a[i].site, &b[i].site, sizeof a[i].site);
        for (size_t k = 0; k < a[i].n_events; k++) {
            const res_event *x = &a[i].events[k], *y = &b[i].events[k];
            assert_true(x->t_s == y->t_s && x->job == y->job &&
                        x->kind == y->kind && x->cause == y->cause &&
                        x->value == y->value);
        }
    }
    assert_true(memcmp(a[0].jobs, c[0].jobs, a[0].n_jobs * sizeof *a[0].jobs) !=
                0);
    free_reps(a, 2);
    free_reps(b, 2);
    free_reps(c, 1);
    scenario_free(s);
}

int main(void)
{
    const struct CMUnitTest site_tests[] = {
        cmocka_unit_test(test_site_one_job_takes_tokens_over_throughput),
        cmocka_unit_test(test_site_job_moe_dispatcher_reaches_the_query),
        cmocka_unit_test(test_site_job_moe_a2a_overlap_reaches_the_query),
        cmocka_unit_test(test_site_job_etp_reaches_the_query),
        cmocka_unit_test(test_site_failures_match_daly_expectation),
        cmocka_unit_test(test_site_more_battery_never_slows),
        cmocka_unit_test(
            test_site_off_grid_zero_import_renewable_share_is_exactly_1),
        cmocka_unit_test(test_site_pause_never_loses_work),
        cmocka_unit_test(
            test_site_facility_at_least_it_and_ordered_percentiles),
        cmocka_unit_test(test_site_job_energy_is_a_share_of_site_energy),
        cmocka_unit_test(test_site_spanning_job_follows_link_and_commissioning),
        cmocka_unit_test(test_site_link_energy_follows_the_step),
        cmocka_unit_test(test_site_pinned_throughput_is_kept),
        cmocka_unit_test(test_site_validation_olmo3_gpu_energy),
        cmocka_unit_test(test_site_module_outage_takes_job_down),
        cmocka_unit_test(test_site_easy_backfill),
        cmocka_unit_test(test_site_common_random_numbers),
        cmocka_unit_test(test_site_throughput_follows_throttling),
        cmocka_unit_test(test_site_run_is_pure),
    };
    return cmocka_run_group_tests_name("site", site_tests, setup, teardown);
}
