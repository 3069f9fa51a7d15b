/* tests/test_fsassert.c: FS_ASSERT (sim/fsassert.h) is on in the checked
 * build that `make test` and `make asan` run (a failing check aborts with
 * FILE:LINE and the expression, in a forked child), compiled out in the
 * release build, and the library linked here was built in the same mode as
 * this file (no stale objects of the other kind). Then the invariants the
 * checks guard hold across bundled-scenario runs: the library's checks ran
 * (their count grew) and, read from the results, event times never go back,
 * tokens done never exceed a job's tokens, and energy attribution closes.
 * The job state machine's table is checked as data.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "models/job_fsm.h"
#include "sim/fsassert.h"
#include "tests/site_util.h"

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

/* The library reports the mode its own objects were compiled in; it must
 * be this file's, and `make test` / `make asan` (which set
 * FACTORYSIM_ASSERTS=1 for the tests they run) must be a checked build. */
static void test_library_mode_matches_this_build(void **state)
{
    const char *want = getenv("FACTORYSIM_ASSERTS");
    (void)state;
    assert_int_equal(fs_assert_enabled(), FS_ASSERT_ON);
    if (want && strcmp(want, "1") == 0)
        assert_int_equal(fs_assert_enabled(), 1);
}

static int evaluations;

static int counted_false(void)
{
    evaluations++;
    return 0;
}

/* Checked build: a false FS_ASSERT kills the process with SIGABRT after
 * printing FILE:LINE: FUNCTION: assertion failed: EXPR. Release build: the
 * expression is not even evaluated. */
static void test_false_assert_aborts_with_file_line_and_expression(void **state)
{
    int fd[2], st, line;
    char buf[512], want[128];
    ssize_t n;
    pid_t pid;
    (void)state;
    if (!FS_ASSERT_ON) {
        FS_ASSERT(counted_false());
        assert_int_equal(evaluations, 0);
        return;
    }
    assert_int_equal(pipe(fd), 0);
    fflush(stderr);
    pid = fork();
    assert_true(pid >= 0);
    line = __LINE__ + 5;
    if (pid == 0) {
        int one = 1;
        close(fd[0]);
        dup2(fd[1], 2);
        FS_ASSERT(one == 2);
        _exit(0); /* not reached in a checked build */
    }
    close(fd[1]);
    n = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
    assert_true(n > 0);
    buf[n] = '\0';
    snprintf(want, sizeof want, "tests/test_fsassert.c:%d: ", line);
    assert_non_null(strstr(buf, want));
    assert_non_null(strstr(buf, "assertion failed: one == 2"));
}

/* A true FS_ASSERT is silent, evaluates once, and is counted when on. */
static void test_true_assert_is_counted_when_on(void **state)
{
    unsigned long before = fs_assert_checks();
    int x = 3;
    (void)state;
    FS_ASSERT(x == 3);
    assert_int_equal(fs_assert_checks() - before, FS_ASSERT_ON ? 1 : 0);
}

/* Runs a bundled scenario with its failures on and events recorded and
 * checks, from the results, what the library's FS_ASSERTs guard inside. */
static void check_bundled(const char *path)
{
    scenario *s = load_scn(&W, path, NULL, 0);
    unsigned long before = fs_assert_checks();
    res_rep *r = run_reps(&W, s, 2, 0, 1);
    unsigned long ran = fs_assert_checks() - before;

    for (size_t i = 0; i < 2; i++) {
        const res_rep *p = &r[i];
        double jobs_j = 0.0, src_j = 0.0;
        assert_true(p->n_events > 0);
        for (size_t e = 1; e < p->n_events; e++)
            assert_true(p->events[e].t_s >= p->events[e - 1].t_s);
        assert_int_equal(p->n_jobs, s->n_jobs);
        for (size_t k = 0; k < p->n_jobs; k++) {
            assert_true(p->jobs[k].tokens <= s->jobs[k].tokens);
            assert_true(p->jobs[k].facility_energy_j >= 0.0);
            jobs_j += p->jobs[k].facility_energy_j;
        }
        /* The jobs' shares are part of the site's energy, and the energy
         * by source kind is all of it. */
        assert_true(jobs_j > 0.0);
        assert_true(jobs_j <= p->site.facility_energy_j * (1 + 1e-9));
        for (int k = 0; k < SRC_N; k++)
            src_j += p->site.energy_by_source_j[k];
        assert_true(fabs(src_j - p->site.facility_energy_j) <=
                    1e-9 * p->site.facility_energy_j);
    }
    /* In a checked build the library's checks ran: at least one per event
     * it recorded (the event order check runs on every engine event). */
    if (FS_ASSERT_ON)
        assert_true(ran >= r[0].n_events + r[1].n_events);
    else
        assert_int_equal(ran, 0);
    free_reps(r, 2);
    scenario_free(s);
}

static void test_invariants_hold_in_bundled_runs(void **state)
{
    (void)state;
    check_bundled("scenarios/nevada-solar.cfg");
    check_bundled("scenarios/liquid-100mw-gb300.cfg");
}

/* Module outages every ~2 days with node repairs of ~48 h: node repairs
 * pending across an outage and its repair used to be counted free at the
 * module's repair and then returned again, so a module had more systems
 * than installed (site_pools_ok failed in a checked build). Now every
 * replication runs to the end, with its checks, and the pools hold. */
static void test_pools_hold_when_node_repairs_span_module_outages(void **s0)
{
    const char *sets[] = {"reliability.module_mtbf_days=2",
                          "reliability.module_mttr_h=1",
                          "reliability.node_repair_h=48",
                          "reliability.interruptions_per_gpu_hour=0.001"};
    scenario *s = load_scn(&W, "scenarios/nevada-solar.cfg", sets, 4);
    unsigned long before = fs_assert_checks();
    res_rep *r = run_reps(&W, s, 4, 1, 1);
    size_t outages = 0;
    (void)s0;
    for (size_t i = 0; i < 4; i++) {
        for (size_t e = 0; e < r[i].n_events; e++)
            outages += r[i].events[e].kind == RES_EV_INTERRUPT &&
                       r[i].events[e].cause == RES_CAUSE_MODULE;
        assert_true(r[i].site.utilization >= 0.0 &&
                    r[i].site.utilization <= 1.0);
    }
    assert_true(outages > 0); /* the case was exercised */
    if (FS_ASSERT_ON)
        assert_true(fs_assert_checks() > before);
    free_reps(r, 4);
    scenario_free(s);
}

/* A job whose only systems in a module are hot spares kept running through
 * that module's outage while still counting them, so its next failure could
 * swap in a spare from a module that is down. Norway's 405B takes 57 GB300
 * NVL72 systems of 25 per module; with 20 hot spares (1440 GPUs) its last
 * module holds spares only. With frequent module outages
 * site_pools_ok (nothing held in a down module) runs after every event. */
static void test_no_spare_is_held_in_a_down_module(void **s0)
{
    const char *sets[] = {"reliability.module_mtbf_days=3",
                          "reliability.module_mttr_h=12",
                          "reliability.interruptions_per_gpu_hour=0.0005",
                          "jobs.[0].hot_spares=1440"};
    scenario *s = load_scn(&W, "scenarios/norway-hydro.cfg", sets, 4);
    unsigned long before = fs_assert_checks();
    res_rep *r = run_reps(&W, s, 4, 1, 1);
    size_t outages = 0, spare_swaps = 0;
    (void)s0;
    for (size_t i = 0; i < 4; i++)
        for (size_t e = 0; e < r[i].n_events; e++) {
            outages += r[i].events[e].kind == RES_EV_INTERRUPT &&
                       r[i].events[e].cause == RES_CAUSE_MODULE;
            spare_swaps += r[i].events[e].kind == RES_EV_INTERRUPT &&
                           (r[i].events[e].cause == RES_CAUSE_GPU ||
                            r[i].events[e].cause == RES_CAUSE_HOST);
        }
    assert_true(outages > 0 && spare_swaps > 0); /* both paths exercised */
    if (FS_ASSERT_ON)
        assert_true(fs_assert_checks() > before);
    free_reps(r, 4);
    scenario_free(s);
}

/* The transition table: PENDING only queues, DONE is final, every other
 * state can be entered, each move names its function, and moves that skip
 * the queue or leave DONE are not in it. */
static void test_job_fsm_table(void **state)
{
    (void)state;
    for (int to = 0; to < JS_N; to++) {
        int entered = 0;
        assert_int_equal(job_fsm_allowed(JS_DONE, (job_state)to), 0);
        assert_int_equal(job_fsm_allowed(JS_PENDING, (job_state)to),
                         to == JS_QUEUED);
        for (int from = 0; from < JS_N; from++) {
            const char *by = job_fsm_performer((job_state)from, (job_state)to);
            assert_int_equal(by != NULL,
                             job_fsm_allowed((job_state)from, (job_state)to));
            entered |= by != NULL;
        }
        assert_int_equal(entered, to != JS_PENDING);
    }
    assert_false(job_fsm_allowed(JS_QUEUED, JS_DONE));
    assert_false(job_fsm_allowed(JS_PAUSED, JS_RUN));
    assert_string_equal(job_fsm_performer(JS_RUN, JS_DONE), "job_finish");
    assert_string_equal(job_state_name(JS_WAIT_REPAIR), "WAIT_REPAIR");
    assert_string_equal(job_state_name(JS_N), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_mode_matches_this_build),
        cmocka_unit_test(
            test_false_assert_aborts_with_file_line_and_expression),
        cmocka_unit_test(test_true_assert_is_counted_when_on),
        cmocka_unit_test(test_invariants_hold_in_bundled_runs),
        cmocka_unit_test(test_pools_hold_when_node_repairs_span_module_outages),
        cmocka_unit_test(test_no_spare_is_held_in_a_down_module),
        cmocka_unit_test(test_job_fsm_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
