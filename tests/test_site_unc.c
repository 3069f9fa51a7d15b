/* tests/test_site_unc.c: the throughput model's uncertainty in the site
 * simulation (issue 19, models/site.h "Model uncertainty"): the draws
 * follow the calibrated predictive distribution `predict` prints, are
 * shared by a (GPU, class, recipe) group, hold common random numbers when
 * the energy side changes, and switch off to the point prediction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "app/vardecomp.h"
#include "models/stats.h"
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

/* n replications of s with model uncertainty on (mu = 1) or off. */
static res_rep *reps_mu(const scenario *s, size_t n, int mu)
{
    site_opts o;
    sim_err e;
    char buf[2200];
    res_rep *r = calloc(n, sizeof *r);
    site_opts_default(&o);
    site_rel_from_scenario(&o.rel, s);
    o.seed = s->sim.seed;
    o.tp = W.tp;
    o.model_uncertainty = mu;
    if (site_run_reps(s, &o, 0, n, r, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    return r;
}

/* The point prediction of job k of s on one module. */
static tp_result point(const scenario *s, size_t k)
{
    tp_result tr;
    sim_err e;
    assert_int_equal(
        site_job_throughput(s, &s->jobs[k], W.tp, 0.0, 0.0, &tr, &e), SIM_OK);
    return tr;
}

/* "with model uncertainty on and failures off, the replications'
 * time-to-train quantiles match the predictive distribution within Monte
 * Carlo error": the run time of a lone job on an ample grid is
 * tokens / (rate x factor), so its P10/P50/P90 must sit at
 * tokens / (high, point, low end of predict's 80% interval). The
 * tolerance is 4 standard errors of a sample quantile of a normal,
 * sqrt(p (1 - p) / n) / phi(z_p), in units of the log-sd. */
static void test_site_unc_quantiles_match_predictive(void **state)
{
    enum { N = 160 };
    /* The job takes about 0.7 days; 2 days leave room for a slow draw. */
    const char *sh[] = {"simulation.horizon_days=2"};
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sh, 1);
    res_rep *r = reps_mu(s, N, 1);
    tp_result tr = point(s, 0);
    double sd = tp_log_sd(W.tp, s->jobs[0].model, s->jobs[0].gpu, &tr);
    double t0 =
        s->jobs[0].tokens / (tr.tokens_per_sec_per_gpu * s->jobs[0].gpus);
    double lz[N], mean, var;
    static const double ps[] = {0.1, 0.5, 0.9};
    (void)state;
    assert_true(sd > 0.01);
    for (size_t i = 0; i < N; i++) {
        assert_true(r[i].jobs[0].completed);
        assert_int_equal(r[i].jobs[0].interruptions, 0);
        /* log(T / T0) / sd: a standard normal if the draw is right. */
        lz[i] = log(r[i].jobs[0].run_time_s / t0) / sd;
    }
    mean = gsl_stats_mean(lz, 1, N);
    var = gsl_stats_variance(lz, 1, N);
    assert_near(mean, 0.0, 4.0 / sqrt(N));
    assert_near(var, 1.0, 4.0 * sqrt(2.0 / (N - 1)));
    gsl_sort(lz, 1, N);
    for (size_t k = 0; k < 3; k++) {
        double p = ps[k], zp = gsl_cdf_ugaussian_Pinv(p);
        double se = sqrt(p * (1 - p) / N) / gsl_ran_ugaussian_pdf(zp);
        double q = gsl_stats_quantile_from_sorted_data(lz, 1, N, p);
        assert_near(q, zp, 4.0 * se);
    }
    /* The same in predict's own terms: P90 of the time is at the low end
     * of the 80% interval, P10 at the high end. */
    {
        double tt[N];
        for (size_t i = 0; i < N; i++)
            tt[i] = r[i].jobs[0].run_time_s;
        stat_summary st = stats_summarize(tt, 1, N);
        double lo = s->jobs[0].tokens /
                    (tr.high_tokens_per_sec_per_gpu * s->jobs[0].gpus);
        double hi = s->jobs[0].tokens /
                    (tr.low_tokens_per_sec_per_gpu * s->jobs[0].gpus);
        double tol = 4.0 * sqrt(0.09 / N) / gsl_ran_ugaussian_pdf(1.2816) * sd;
        assert_true(st.p10 <= st.p50 && st.p50 <= st.p90);
        assert_near(log(st.p10 / lo), 0.0, tol);
        assert_near(log(st.p90 / hi), 0.0, tol);
    }
    free_reps(r, N);
    scenario_free(s);
}

/* "--no-model-uncertainty turns it off": every replication trains at the
 * point prediction exactly. */
static void test_site_unc_off_is_point_prediction(void **state)
{
    const char *sh[] = {"simulation.horizon_days=2"};
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sh, 1);
    res_rep *r = reps_mu(s, 4, 0);
    tp_result tr = point(s, 0);
    (void)state;
    for (size_t i = 0; i < 4; i++)
        assert_close(r[i].jobs[0].tokens_per_sec_per_gpu,
                     tr.tokens_per_sec_per_gpu, 0);
    free_reps(r, 4);
    scenario_free(s);
}

/* A pinned throughput is a measurement of the job itself, not a prediction:
 * with model uncertainty on it draws no model error, so every replication
 * trains at the pin (before, the draw scaled the pin too, so a measured
 * job got the model's spread). */
static void test_site_unc_pinned_throughput_draws_no_model_error(void **state)
{
    const char *sh[] = {"simulation.horizon_days=2",
                        "jobs.[0].tokens_per_sec_per_gpu=12345.0"};
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sh, 2);
    res_rep *r = reps_mu(s, 8, 1);
    (void)state;
    for (size_t i = 0; i < 8; i++)
        assert_close(r[i].jobs[0].tokens_per_sec_per_gpu, 12345.0, 1e-12);
    free_reps(r, 8);
    scenario_free(s);
}

/* "common random numbers hold with the new streams": adding a solar plant
 * and turning failures on leaves every replication's model draw as it was
 * (the job's throughput factor is the same), while the draws differ from
 * one replication to the next. */
static void test_site_unc_common_random_numbers(void **state)
{
    enum { N = 6 };
    const char *sh[] = {"simulation.horizon_days=2"};
    const char *plus[] = {"simulation.horizon_days=2",
                          "reliability.failures=true",
                          "reliability.interruptions_per_gpu_hour=2.0e-4",
                          "energy.solar.capacity_mw=5.0"};
    scenario *a = load_scn(&W, "tests/data/run/grid-one-job.cfg", sh, 1);
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", plus, 4);
    res_rep *ra = reps_mu(a, N, 1), *rb = reps_mu(b, N, 1);
    (void)state;
    assert_true(rb[0].site.energy_by_source_j[SRC_SOLAR] > 0);
    for (size_t i = 0; i < N; i++)
        assert_true(ra[i].jobs[0].tokens_per_sec_per_gpu ==
                    rb[i].jobs[0].tokens_per_sec_per_gpu);
    for (size_t i = 1; i < N; i++)
        assert_true(ra[i].jobs[0].tokens_per_sec_per_gpu !=
                    ra[0].jobs[0].tokens_per_sec_per_gpu);
    free_reps(ra, N);
    free_reps(rb, N);
    scenario_free(a);
    scenario_free(b);
}

/* "shared per (GPU type, model class, precision)": the draw belongs to the
 * group, not to the job. Renaming the job (a new job stream) or changing
 * its size keeps the factor; another recipe is another group and draws
 * another factor. */
static void test_site_unc_shared_per_group(void **state)
{
    enum { N = 4 };
    const char *sh[] = {"simulation.horizon_days=2"};
    const char *ren[] = {"simulation.horizon_days=2", "jobs.[0].name=\"other\"",
                         "jobs.[0].gpus=128", "jobs.[0].global_batch=64"};
    const char *bf[] = {"simulation.horizon_days=2",
                        "jobs.[0].precision=\"bf16\""};
    scenario *a = load_scn(&W, "tests/data/run/grid-one-job.cfg", sh, 1);
    scenario *b = load_scn(&W, "tests/data/run/grid-one-job.cfg", ren, 4);
    scenario *c = load_scn(&W, "tests/data/run/grid-one-job.cfg", bf, 2);
    res_rep *ra = reps_mu(a, N, 1), *rb = reps_mu(b, N, 1),
            *rc = reps_mu(c, N, 1);
    tp_result pa = point(a, 0), pb = point(b, 0), pc = point(c, 0);
    (void)state;
    for (size_t i = 0; i < N; i++) {
        double fa = ra[i].jobs[0].tokens_per_sec_per_gpu /
                    pa.tokens_per_sec_per_gpu,
               fb = rb[i].jobs[0].tokens_per_sec_per_gpu /
                    pb.tokens_per_sec_per_gpu,
               fc = rc[i].jobs[0].tokens_per_sec_per_gpu /
                    pc.tokens_per_sec_per_gpu;
        assert_close(fa, fb, 1e-12);
        assert_true(fabs(fa - fc) > 1e-9);
    }
    free_reps(ra, N);
    free_reps(rb, N);
    free_reps(rc, N);
    scenario_free(a);
    scenario_free(b);
    scenario_free(c);
}

/* "synthetic weather draws a new year per replication": on a site with
 * solar and monthly normals, every replication's solar generation differs
 * (its own "climate" stream), a rerun of the same replication repeats it,
 * generation bounds what solar delivers to the load, and the P90
 * exceedance is the 10th percentile of the annualized generation. */
static void test_site_unc_weather_new_year_per_replication(void **state)
{
    enum { N = 5 };
    const char *sets[] = {"simulation.horizon_days=3",
                          "energy.solar.capacity_mw=5.0"};
    scenario *s = load_scn(&W, "tests/data/run/grid-one-job.cfg", sets, 2);
    res_rep *a = reps_mu(s, N, 0), *b = reps_mu(s, N, 0);
    double x[N], p90;
    (void)state;
    for (size_t i = 0; i < N; i++) {
        assert_true(a[i].site.solar_energy_j > 0);
        assert_true(a[i].site.solar_energy_j == b[i].site.solar_energy_j);
        assert_true(a[i].site.solar_energy_j >=
                    a[i].site.energy_by_source_j[SRC_SOLAR] * (1 - 1e-12));
        for (size_t k = 0; k < i; k++)
            assert_true(a[i].site.solar_energy_j != a[k].site.solar_energy_j);
        x[i] = a[i].site.solar_energy_j * 365.0 / 3.0;
    }
    p90 = res_solar_p90_exceedance_j(a, N, s->sim.horizon_s);
    assert_close(p90, stats_summarize(x, 1, N).p10, 1e-12);
    assert_true(p90 < stats_summarize(x, 1, N).p50);
    free_reps(a, N);
    free_reps(b, N);
    scenario_free(s);
}

/* "a file-based scenario may give several years drawn per replication":
 * with two weather files, every replication's solar generation is one of
 * the two years' (the run through runcase, as `run` does it), both years
 * are drawn, the draw repeats with the seed, and fixed weather (the
 * decomposition's switch) gives the first year in every replication. */
static void test_site_unc_weather_files_drawn_per_replication(void **state)
{
    enum { N = 10 };
    const char *sets[] = {"simulation.horizon_days=2"};
    runcase_in in;
    runcase_out a, b, f;
    sim_err e;
    char buf[2200];
    double y0 = NAN, y1 = NAN;
    size_t n0 = 0, n1 = 0;
    (void)state;
    memset(&in, 0, sizeof in);
    in.scenario_path = "tests/data/run/epw-years.cfg";
    in.cat = W.cat;
    in.tp = W.tp;
    in.overrides = sets;
    in.n_overrides = 1;
    in.replications = N;
    if (runcase_run(&in, &a, &e) != SIM_OK ||
        runcase_run(&in, &b, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    in.fixed_weather = 1;
    if (runcase_run(&in, &f, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    assert_int_equal(a.s->site.climate.n_files, 2);
    for (size_t i = 0; i < N; i++) {
        double x = a.reps[i].site.solar_energy_j;
        assert_true(x > 0);
        assert_true(x == b.reps[i].site.solar_energy_j);
        if (i == 0)
            y0 = f.reps[0].site.solar_energy_j;
        assert_true(f.reps[i].site.solar_energy_j == y0);
        if (x == y0)
            n0++;
        else if (isnan(y1) || x == y1) {
            y1 = x;
            n1++;
        }
    }
    assert_int_equal(n0 + n1, N);
    assert_true(n0 > 0 && n1 > 0);
    runcase_out_free(&a);
    runcase_out_free(&b);
    runcase_out_free(&f);
}

/* "run --variance-decomposition": on a grid-fed site (no weather or power
 * randomness reaches the job) with failures off, all of the variance is the
 * throughput model's: its share is exactly 1 (switched off, every
 * replication is the point prediction), weather and power are exactly 0
 * (switching them off changes no draw: common random numbers), and the
 * interaction is 0. With failures on, they take a share too (the model's
 * share is then an estimate from 12 replications, not asserted). */
static void test_site_unc_variance_decomposition(void **state)
{
    const char *sets[] = {"simulation.horizon_days=2",
                          "simulation.replications=12"};
    const char *fail[] = {"simulation.horizon_days=3",
                          "simulation.replications=12",
                          "reliability.failures=true",
                          "reliability.interruptions_per_gpu_hour=2.0e-3"};
    runcase_in in;
    vd_result v;
    sim_err e;
    char buf[2200];
    (void)state;
    memset(&in, 0, sizeof in);
    in.scenario_path = "tests/data/run/grid-one-job.cfg";
    in.cat = W.cat;
    in.tp = W.tp;
    in.overrides = sets;
    in.n_overrides = 2;
    if (vardecomp_run(&in, &v, NULL, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    assert_int_equal(v.n_jobs, 1);
    assert_int_equal(v.jobs[0].finished, 12);
    assert_true(v.jobs[0].var_s2 > 0);
    assert_close(v.jobs[0].share[VD_MODEL], 1.0, 1e-12);
    assert_true(v.jobs[0].share[VD_WEATHER] == 0.0);
    assert_true(v.jobs[0].share[VD_POWER] == 0.0);
    assert_true(v.jobs[0].share[VD_FAILURES] == 0.0);
    assert_near(v.jobs[0].interaction, 0.0, 1e-12);
    vd_result_free(&v);
    in.overrides = fail;
    in.n_overrides = 4;
    if (vardecomp_run(&in, &v, NULL, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    assert_true(v.jobs[0].share[VD_FAILURES] > 0.0);
    assert_true(isfinite(v.jobs[0].share[VD_MODEL]));
    assert_true(v.jobs[0].share[VD_WEATHER] == 0.0);
    assert_true(v.jobs[0].share[VD_POWER] == 0.0);
    vd_result_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_site_unc_quantiles_match_predictive),
        cmocka_unit_test(test_site_unc_off_is_point_prediction),
        cmocka_unit_test(test_site_unc_pinned_throughput_draws_no_model_error),
        cmocka_unit_test(test_site_unc_common_random_numbers),
        cmocka_unit_test(test_site_unc_shared_per_group),
        cmocka_unit_test(test_site_unc_weather_new_year_per_replication),
        cmocka_unit_test(test_site_unc_weather_files_drawn_per_replication),
        cmocka_unit_test(test_site_unc_variance_decomposition),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
