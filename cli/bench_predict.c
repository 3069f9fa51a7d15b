/* cli/bench_predict.c: `factorysim bench predict`: predictions per second of
 * tp_predict on a batch of given-layout queries over every catalog GPU and
 * LLM (the site simulation's hot path), and the time of the layout chooser
 * on 16,384-GPU queries (issue 17's target: <= 50 ms). Wall time is
 * measured here only. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "models/catalog.h"
#include "sim/mem.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define BENCH_NCHOOSE 2
#define BENCH_CHOOSE_REPS 5

/* Why one long function: two timed loops over queries built beforehand
 * (so building them is not timed), then one table or JSON of the figures;
 * the loops are written out where they are timed so nothing but
 * tp_predict sits between the clock reads. The sink of step times keeps
 * the compiler from dropping the calls. */
int bench_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint32_t n = 1000000;
    int fmt = CLI_FMT_TABLE, o, rc = CLI_EXIT_OK;
    catalog *cat = NULL;
    tp_model *m = NULL;
    tp_query *qs = NULL;
    size_t nq = 0;
    sim_err err;
    double sink = 0, t0, wall;
    static const char *const choose_llm[] = {"Llama 3.1 405B",
                                             "DeepSeek-V3 671B"};
    double choose_ms[BENCH_NCHOOSE], choose_tps[BENCH_NCHOOSE];

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'n':
            if (cli_u32("bench", "--n", optarg, 1, 1000000000u, &n))
                return CLI_EXIT_USAGE;
            break;
        case 'f':
            fmt =
                cli_format_parse("bench", optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            if (fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs("Usage: factorysim bench predict [--n N] [--format "
                  "table|json]\n"
                  "N predictions (default 1e6) cycling over every catalog GPU "
                  "x LLM\n"
                  "with a fixed layout (64 GPUs, tp 2, pp 2, ep 8 for MoE, gbs "
                  "1024),\n"
                  "then the layout chooser's time on 16,384 GB300 (Llama 3.1 "
                  "405B and\nDeepSeek-V3, MXFP8, gbs 8192, every layout field "
                  "chosen).\n",
                  stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error("bench", "%s needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("bench", "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    sim_err_clear(&err);
    if (catalog_load(NULL, &cat, &err) != SIM_OK ||
        tp_model_default(&m, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    qs = sim_xcalloc(catalog_n_gpus(cat) * catalog_n_llms(cat) + 1, sizeof *qs);
    for (size_t g = 0; g < catalog_n_gpus(cat); g++)
        for (size_t l = 0; l < catalog_n_llms(cat); l++) {
            tp_query q = {0};
            tp_result r;
            q.gpu = catalog_gpu_at(cat, g);
            q.llm = catalog_llm_at(cat, l);
            q.prec.recipe = PREC_BF16;
            q.prec.fmt = NUM_BF16;
            q.n_gpus = 64;
            q.gbs = 1024;
            q.layout.mbs = 1;
            q.layout.recompute = TP_RECOMPUTE_SELECTIVE;
            q.layout.distopt = TP_DISTOPT_ON;
            q.layout.tp = 2;
            q.layout.pp = 2;
            q.layout.cp = 1;
            q.layout.vp = 1;
            q.layout.ep =
                q.llm->cls != LLM_DENSE && q.llm->num_experts >= 8 ? 8 : 1;
            q.layout.etp = 1; /* given, so the one-evaluation path */
            if (tp_predict(m, &q, &r) == SIM_OK)
                qs[nq++] = q;
        }
    if (!nq) {
        rc = cli_error(
            "bench predict: no catalog GPU x LLM pair could be predicted");
        goto done;
    }
    t0 = now_s();
    for (uint32_t i = 0; i < n; i++) {
        tp_result r;
        tp_predict(m, &qs[i % nq], &r);
        sink += r.step_time_s;
    }
    wall = now_s() - t0;
    /* The chooser: every layout field left to tp_predict, 16,384 GPUs. */
    for (size_t c = 0; c < BENCH_NCHOOSE; c++) {
        tp_query q = {0};
        tp_result r;
        q.gpu = catalog_gpu(cat, "GB300");
        q.llm = catalog_llm(cat, choose_llm[c]);
        if (!q.gpu || !q.llm) {
            rc = cli_error("bench predict: catalog lacks GB300 or %s",
                           choose_llm[c]);
            goto done;
        }
        q.prec.recipe = PREC_FP8_BLOCK;
        q.prec.fmt = NUM_FP8;
        q.n_gpus = 16384;
        q.gbs = 8192;
        choose_ms[c] = 1e300;
        for (int k = 0; k < BENCH_CHOOSE_REPS; k++) {
            double t1 = now_s(), dt;
            if (tp_predict(m, &q, &r) != SIM_OK) {
                rc = cli_error("bench predict: %s: %s", choose_llm[c], r.why);
                goto done;
            }
            dt = (now_s() - t1) * 1e3;
            if (dt < choose_ms[c])
                choose_ms[c] = dt;
        }
        choose_tps[c] = r.tokens_per_sec_per_gpu;
    }
    if (fmt == CLI_FMT_JSON) {
        jv *j = jv_obj(), *ch = jv_arr();
        jv_set(j, "predictions", jv_int(n));
        jv_set(j, "distinct_queries", jv_int((int64_t)nq));
        jv_set(j, "wall_s", jv_num(wall));
        jv_set(j, "predictions_per_sec", jv_num(wall > 0 ? n / wall : 0));
        for (size_t c = 0; c < BENCH_NCHOOSE; c++) {
            jv *e = jv_obj();
            jv_set(e, "model", jv_str(choose_llm[c]));
            jv_set(e, "gpus", jv_int(16384));
            jv_set(e, "chooser_ms", jv_num(choose_ms[c]));
            jv_push(ch, e);
        }
        jv_set(j, "chooser", ch);
        jv_write(j, stdout, 0);
        jv_free(j);
    } else {
        printf("throughput model: %u predictions over %zu GPU x LLM queries\n",
               n, nq);
        printf("  wall time           %14.3f s\n", wall);
        printf("  predictions/second  %14.0f (one core; checksum %.6g)\n",
               wall > 0 ? n / wall : 0, sink / n);
        for (size_t c = 0; c < BENCH_NCHOOSE; c++)
            printf("  chooser, %-17s on 16,384 GB300, gbs 8192, MXFP8: "
                   "%.1f ms (best of %d; %.0f tokens/s/GPU)\n",
                   choose_llm[c], choose_ms[c], BENCH_CHOOSE_REPS,
                   choose_tps[c]);
    }
done:
    free(qs);
    tp_model_free(m);
    catalog_free(cat);
    return rc;
}
