/* tests/test_charts.c: the run charts (io/plot_charts.h): each is written,
 * non-empty, of the documented pixel size (PNG IHDR), byte-identical on a
 * repeat (PNG and SVG), and a missing or unwritable output folder is an
 * error instead of PLplot's exit(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "fixture_results.h"
#include "io/plot_charts.h"
#include "io/plot_views.h"
#include "models/stats.h"
#include "testutil.h"

#define N_REPS 12
#define N_STEPS 2880

static char dir[256];
static res_rep reps[N_REPS];
static const char *names[FX_N_JOBS] = {"pretrain-70b #1",
                                       "pretrain-8b, \"ablation\"", "moe-test"};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-charts-%ld", (long)getpid());
    mkdir(dir, 0755);
    for (uint32_t r = 0; r < N_REPS; r++)
        fx_rep(&reps[r], r, N_STEPS, r == 0, r == 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    for (uint32_t r = 0; r < N_REPS; r++)
        res_rep_free(&reps[r]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *out(const char *name)
{
    static char p[4][320];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* The file is a PNG of PLOT_CHART_W x PLOT_CHART_H with real content. */
static void assert_png(const char *path)
{
    size_t n = 0;
    unsigned char *b = test_slurp(path, &n);
    static const unsigned char sig[8] = {0x89, 'P',  'N',  'G',
                                         '\r', '\n', 0x1a, '\n'};
    assert_non_null(b);
    assert_true(n > 8000); /* axes, text and data, not a blank page */
    assert_memory_equal(b, sig, 8);
    assert_memory_equal(b + 12, "IHDR", 4);
    assert_int_equal(be32(b + 16), PLOT_CHART_W);
    assert_int_equal(be32(b + 20), PLOT_CHART_H);
    free(b);
}

static void assert_same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = test_slurp(a, &na), *y = test_slurp(b, &nb);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

typedef int (*chart_fn)(const char *path, sim_err *err);

/* The fixture's series, on a calendar from 2027-03-01 (Unix day 20878),
 * with a 3.5 MW IT capacity and a 5 MW grid contract. */
static plot_series fx_series(const res_rep *r)
{
    plot_series s = {r->steps, NULL, r->n_steps, 20878.0 * 86400.0, 3.5e6, 5e6};
    return s;
}

static int c_power(const char *p, sim_err *e)
{
    plot_series s = fx_series(&reps[0]);
    return plot_power_stack(p, &s, "Power by source", e);
}

static int c_soc(const char *p, sim_err *e)
{
    return plot_battery_soc(p, reps[0].steps, reps[0].n_steps, NAN, "Battery",
                            e);
}

static const plot_gantt_ctx gantt_ctx = {N_STEPS * FX_STEP_S, NAN, NULL, 0};

static int c_gantt(const char *p, sim_err *e)
{
    return plot_gantt(p, names, reps[0].jobs, FX_N_JOBS, reps[0].events,
                      reps[0].n_events, &gantt_ctx, "Job timeline", e);
}

static int c_ttt(const char *p, sim_err *e)
{
    double t[N_REPS];
    for (int r = 0; r < N_REPS; r++)
        t[r] = reps[r].jobs[1].time_to_train_s;
    return plot_time_to_train(p, names[1], t, N_REPS, "Time to train", e);
}

static int c_energy(const char *p, sim_err *e)
{
    double by[FX_N_JOBS * SRC_N], x[N_REPS];
    stat_summary fac[FX_N_JOBS];
    for (int j = 0; j < FX_N_JOBS; j++) {
        for (int k = 0; k < SRC_N; k++) {
            for (int r = 0; r < N_REPS; r++)
                x[r] = reps[r].jobs[j].energy_by_source_j[k];
            by[j * SRC_N + k] = stats_summarize(x, 1, N_REPS).mean;
        }
        for (int r = 0; r < N_REPS; r++)
            x[r] = reps[r].jobs[j].facility_energy_j;
        fac[j] = stats_summarize(x, 1, N_REPS);
    }
    return plot_energy_by_source(p, names, by, fac, FX_N_JOBS, "Energy per run",
                                 e);
}

static const struct {
    const char *name;
    chart_fn fn;
} charts[] = {
    {"power", c_power}, {"soc", c_soc},       {"gantt", c_gantt},
    {"ttt", c_ttt},     {"energy", c_energy},
};
#define N_CHARTS (sizeof charts / sizeof charts[0])

static void test_charts_every_chart_is_a_png_of_the_expected_size(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CHARTS; i++) {
        char nm[64];
        sim_err e;
        snprintf(nm, sizeof nm, "%s.png", charts[i].name);
        if (charts[i].fn(out(nm), &e) != SIM_OK)
            fail_msg("%s: %s", charts[i].name, e.msg);
        assert_png(out(nm));
    }
}

static void test_charts_png_and_svg_are_byte_identical_on_repeat(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CHARTS; i++)
        for (int f = 0; f < 2; f++) {
            char a[64], b[64];
            sim_err e;
            const char *ext = f ? "svg" : "png";
            snprintf(a, sizeof a, "%s-a.%s", charts[i].name, ext);
            snprintf(b, sizeof b, "%s-b.%s", charts[i].name, ext);
            assert_int_equal(charts[i].fn(out(a), &e), SIM_OK);
            assert_int_equal(charts[i].fn(out(b), &e), SIM_OK);
            assert_same_bytes(out(a), out(b));
        }
}

static void test_charts_svg_and_pdf_follow_the_extension(void **state)
{
    size_t n = 0;
    unsigned char *b;
    sim_err e;
    (void)state;
    assert_int_equal(c_power(out("p.svg"), &e), SIM_OK);
    b = test_slurp(out("p.svg"), &n);
    assert_non_null(b);
    b[n] = '\0';
    assert_non_null(strstr((char *)b, "<svg"));
    assert_non_null(strstr((char *)b, "width=\"1200pt\" height=\"700pt\""));
    free(b);
    assert_int_equal(c_gantt(out("g.pdf"), &e), SIM_OK);
    b = test_slurp(out("g.pdf"), &n);
    assert_non_null(b);
    assert_true(n > 1000);
    assert_memory_equal(b, "%PDF", 4);
    free(b);
}

static void test_charts_missing_or_unwritable_folder_is_an_error(void **state)
{
    sim_err e;
    (void)state;
    for (size_t i = 0; i < N_CHARTS; i++) {
        char p[400];
        snprintf(p, sizeof p, "%s/no-such-folder/%s.png", dir, charts[i].name);
        assert_int_equal(charts[i].fn(p, &e), SIM_EIO);
        assert_string_equal(e.file, p);
        assert_non_null(strstr(e.msg, "cannot write"));
        assert_int_equal(access(p, F_OK), -1);
    }
    /* Unwritable even for root: /proc refuses new files. */
    assert_int_equal(c_power("/proc/factorysim-chart.png", &e), SIM_EIO);
    /* A folder in place of the file. */
    assert_int_equal(c_soc(dir, &e), SIM_EIO);
}

static void test_charts_nothing_to_draw_is_an_error(void **state)
{
    res_rep r;
    double t[3] = {NAN, NAN, NAN};
    sim_err e;
    (void)state;
    fx_rep(&r, 0, 96, 1, 0);
    for (size_t i = 0; i < r.n_steps; i++)
        r.steps[i].soc_frac = NAN;
    assert_int_equal(
        plot_battery_soc(out("x.png"), r.steps, r.n_steps, NAN, "B", &e),
        SIM_EINVAL);
    assert_non_null(strstr(e.msg, "no battery"));
    {
        plot_series one = fx_series(&r);
        one.n = 1;
        assert_int_equal(plot_power_stack(out("x.png"), &one, "P", &e),
                         SIM_EINVAL);
    }
    assert_int_equal(plot_time_to_train(out("x.png"), "job", t, 3, "T", &e),
                     SIM_EINVAL);
    assert_non_null(strstr(e.msg, "finished in none of 3"));
    assert_int_equal(plot_gantt(out("x.png"), names, r.jobs, 0, NULL, 0,
                                &gantt_ctx, "G", &e),
                     SIM_EINVAL);
    res_rep_free(&r);
}

static void test_charts_gantt_without_event_log_still_draws(void **state)
{
    sim_err e;
    (void)state;
    assert_int_equal(plot_gantt(out("g0.png"), names, reps[3].jobs, FX_N_JOBS,
                                NULL, 0, &gantt_ctx, "Job timeline", &e),
                     SIM_OK);
    assert_png(out("g0.png"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_charts_every_chart_is_a_png_of_the_expected_size),
        cmocka_unit_test(test_charts_png_and_svg_are_byte_identical_on_repeat),
        cmocka_unit_test(test_charts_svg_and_pdf_follow_the_extension),
        cmocka_unit_test(test_charts_missing_or_unwritable_folder_is_an_error),
        cmocka_unit_test(test_charts_nothing_to_draw_is_an_error),
        cmocka_unit_test(test_charts_gantt_without_event_log_still_draws),
    };
    return cmocka_run_group_tests_name("charts", tests, setup, teardown);
}
