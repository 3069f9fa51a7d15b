/* tests/test_sweep_exec.c: the sweep's worker threads (app/sweep_exec.h):
 * the FIFO of finished cases is bounded, so a slow writer holds workers
 * back instead of piling up every case in memory (issue 13.4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/sweep_exec.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "models/catalog.h"
#include "models/sweep.h"

typedef struct slow_writer {
    size_t n_stored;
    int ok;
} slow_writer;

/* A writer 120 ms per case, slower per case than the workers. */
static int slow_store(void *arg, sweep_result *r, sim_err *err)
{
    slow_writer *w = arg;
    struct timespec ts = {0, 120000000L};
    (void)err;
    nanosleep(&ts, NULL);
    w->n_stored++;
    w->ok += r->rc == SIM_OK;
    return SIM_OK;
}

/* sweep_exec.h "Memory": "finished cases wait for the writer in a FIFO of
 * at most `jobs` cases": 16 cases on 2 workers with a writer slower than
 * them all arrive, and never more than 2 waited at once. */
static void test_sweep_exec_slow_writer_holds_at_most_jobs_cases(void **state)
{
    const char *specs[] = {"simulation.seed=1:16:1",
                           "simulation.horizon_days=1"};
    const char *base[] = {"simulation.replications=1"};
    sweep_grid *g = NULL;
    catalog *cat = NULL;
    tp_model *tp = NULL;
    sweep_ctx c;
    slow_writer w = {0, 0};
    size_t todo[16];
    sim_err e;
    (void)state;
    assert_int_equal(sweep_grid_parse(specs, 2, &g, &e), SIM_OK);
    assert_int_equal(catalog_load(NULL, &cat, &e), SIM_OK);
    assert_int_equal(tp_model_default(&tp, &e), SIM_OK);
    memset(&c, 0, sizeof c);
    c.scenario_path = "tests/data/sweep/small.cfg";
    c.cat = cat;
    c.tp = tp;
    c.base_ov = base;
    c.n_base = 1;
    c.g = g;
    c.series = 2; /* every step kept: the memory the bound is about */
    for (size_t i = 0; i < 16; i++)
        todo[i] = i;
    assert_int_equal(sweep_exec(&c, todo, 16, 2, slow_store, &w, &e), SIM_OK);
    assert_int_equal(w.n_stored, 16);
    assert_int_equal(w.ok, 16);
    print_message("peak queued: %zu\n", sweep_exec_peak_queued());
    assert_true(sweep_exec_peak_queued() >= 1);
    assert_true(sweep_exec_peak_queued() <= 2);
    sweep_grid_free(g);
    tp_model_free(tp);
    catalog_free(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_exec_slow_writer_holds_at_most_jobs_cases),
    };
    return cmocka_run_group_tests_name("sweep_exec", tests, NULL, NULL);
}
