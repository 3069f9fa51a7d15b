/* cli/cmd_optimize.c: `factorysim optimize SCENARIO --vary KEY=LO:HI:STEP
 * ... --objective METRIC.STAT [--constraint 'METRIC.STAT<=VALUE' ...]`:
 * the best design of a lattice under constraints, found by the search of
 * app/optimize.h on the sweep machinery. Every design the search asks
 * for is run as a case of the lattice's sweep (app/sweep_exec.h: every
 * core, every MPI rank) and stored with sweep_store_case under the very
 * sweep key `sweep --set KEY=LO:HI:STEP ...` would use, so a second
 * optimize (or a sweep of the same lattice) reuses what is stored and an
 * interrupted optimize resumes. Refined designs (more replications near a
 * constraint's bound) are cases of a second sweep key, the same lattice
 * with OPT_REFINE x R replications.
 *
 * This file owns the command line, the evaluation callback (run what is
 * missing, read the statistics back from the database, share them with
 * every rank) and the output. It must never decide anything about the
 * search (app/optimize.c does) nor store a case any other way than sweep
 * does. docs/optimize.md is the user's description.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "app/opt_spec.h"
#include "app/optimize.h"
#include "app/run_check.h"
#include "app/run_store.h"
#include "app/sweep_exec.h"
#include "app/sweep_table.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "io/run_out.h"
#include "io/scenario_cfg.h"
#include "models/scenkeys.h"
#include "sim/mem.h"

static const char optimize_help[] =
    "Usage: factorysim optimize SCENARIO --vary KEY=LO:HI:STEP [--vary ...]\n"
    "                           --objective METRIC.STAT [--objective ...]\n"
    "                           [--constraint 'METRIC.STAT<=VALUE' ...] "
    "[OPTIONS]\n"
    "\n"
    "Finds the best design on the lattice of the --vary ranges (LO, LO+STEP,\n"
    "... HI per key) that meets every constraint, running only part of the\n"
    "lattice: a coarse lattice, then compass search from the best designs,\n"
    "every design once, with the same seed for all (common random numbers)\n"
    "and more replications near a constraint's bound. Every design run is a\n"
    "case of the lattice's sweep in the database (resumable), and the problem\n"
    "itself is stored too (`report --optimize ID` charts it). Objectives are\n"
    "minimised, or maximised when written max:METRIC.STAT; given more than\n"
    "once, the Pareto front is printed too.\n"
    "METRIC is a sweep metric (site.FIELD or JOBNAME.FIELD, e.g. site.co2_t,\n"
    "llama405b-fp8.time_to_train_days); STAT is mean, p10, p50 or p90.\n"
    "\n"
    "Options:\n"
    "  --vary KEY=LO:HI:STEP    a decision variable (integer keys: integer\n"
    "                           LO and STEP)\n"
    "  --objective [max:]METRIC.STAT  what to minimise (max: maximise;\n"
    "                           repeatable: Pareto front)\n"
    "  --constraint 'METRIC.STAT<=VALUE' or '...>=VALUE' (repeatable)\n"
    "  --set KEY=VALUE          fix another key (as in run)\n"
    "  --replications R         replications per design (default: "
    "simulation.replications)\n"
    "  --seed N                 master seed of every design (default: "
    "simulation.seed)\n"
    "  --jobs N                 worker threads (default: every core)\n"
    "  --db FILE                results database (default " RUN_STORE_DEFAULT_DB
    ")\n"
    "  --format F               table (default) or json\n"
    "  --quiet                  no progress on stderr\n"
    "  --calibration FILE       throughput calibration\n"
    "  --catalog DIR            catalog folder\n"
    "  -h, --help               this help\n"
    "\n"
    "docs/optimize.md describes the method and its rules.\n";

/* One objective or constraint: metric (index into the unique metric
 * names) and statistic. */
typedef struct quant {
    size_t metric;
    int stat; /* 0 mean, 1 p10, 2 p50, 3 p90 */
    int max;  /* objectives: 1 when maximised (max:METRIC.STAT) */
    int ge;   /* constraints: 1 for >=, 0 for <= */
    double bound;
    const char *text; /* as given */
} quant;

static double stat_of(const stat_summary *s, int stat)
{
    return opt_spec_stat(s, stat);
}

/* Everything the evaluation callback and the output share. */
typedef struct opt_cli {
    sweep_ctx c[2]; /* level 0: R replications; level 1: refined */
    char key[2][17];
    sweep_store_ctx sc[2];
    sweep_progress pg[2];
    db *d; /* rank 0 only */
    unsigned jobs;
    const char **specs; /* unique metric names */
    size_t n_specs;
    quant q[OPT_MAX_OBJ + OPT_MAX_CON];
    size_t n_obj, n_con;
    sweep_table *tab[2]; /* rank 0: the last tables read */
    int quiet;
    size_t n_run; /* designs run in this process (not already stored) */
    size_t reps;  /* R, replications per design at level 0 */
} opt_cli;

/* The row of case i in t, or NULL (rows are sorted by case index). */
static const sweep_row *row_of(const sweep_table *t, size_t i)
{
    size_t lo = 0, hi = t ? t->n_rows : 0;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if ((size_t)t->rows[m].case_index < i)
            lo = m + 1;
        else
            hi = m;
    }
    return t && lo < t->n_rows && (size_t)t->rows[lo].case_index == i
               ? &t->rows[lo]
               : NULL;
}

/* Rank 0: reloads the table of level L (no case yet: an empty table). */
static int reload(opt_cli *o, int L, sim_err *err)
{
    int rc;
    sweep_table_free(o->tab[L]);
    o->tab[L] = NULL;
    rc = sweep_table_load(o->d, o->key[L], o->specs, o->n_specs, &o->tab[L],
                          err);
    if (rc == SIM_ENOTFOUND) {
        sim_err_clear(err);
        rc = SIM_OK;
    }
    return rc;
}

/* opt_eval_fn: runs the cases not stored yet under level L's sweep key on
 * every rank, then rank 0 reads every case's statistics back from the
 * database and sends them to every rank (as bits in longs), so all ranks
 * take the same decisions. A case that failed has NAN values. */
static int eval_cases(void *arg, int L, const size_t *cases, size_t n,
                      opt_vals *out, sim_err *err)
{
    opt_cli *o = arg;
    size_t nq = o->n_obj + 2 * o->n_con;
    long ntodo = 0, *buf = sim_xcalloc(n * nq + n + 1, sizeof *buf);
    size_t *todo = sim_xcalloc(n + 1, sizeof *todo);
    int rank = sweep_mpi_rank(), rc = SIM_OK, xr;
    _Static_assert(sizeof(long) == sizeof(double), "long carries a double");

    if (rank == 0)
        for (size_t k = 0; k < n; k++) {
            char *ck = sweep_case_key(o->c[L].g, cases[k]);
            int done = db_case_done(o->d, o->key[L], ck, err);
            free(ck);
            if (done < 0) {
                ntodo = -1;
                break;
            }
            if (!done)
                buf[ntodo++] = (long)cases[k];
        }
    sweep_mpi_bcast_long(&ntodo, 1);
    if (ntodo < 0) {
        rc = rank == 0 ? SIM_EIO : SIM_EINVAL;
        goto done;
    }
    sweep_mpi_bcast_long(buf, (size_t)ntodo);
    for (long k = 0; k < ntodo; k++)
        todo[k] = (size_t)buf[k];
    if (!o->quiet && rank == 0)
        fprintf(stderr, "factorysim: optimize: %zu design(s)%s, %ld to run\n",
                n, L ? " refined" : "", ntodo);
    o->pg[L].total += (size_t)ntodo;
    xr = sweep_exec(&o->c[L], todo, (size_t)ntodo, o->jobs, sweep_store_case,
                    &o->sc[L], err);
    o->n_run += (size_t)ntodo;
    if (sweep_mpi_agree(xr) != SIM_OK) {
        rc = xr != SIM_OK ? xr : SIM_EINVAL;
        goto done;
    }
    /* Rank 0 reads the values; the status and the values go to all. */
    if (rank == 0) {
        rc = reload(o, L, err);
        for (size_t k = 0; rc == SIM_OK && k < n; k++) {
            const sweep_row *r = row_of(o->tab[L], cases[k]);
            for (size_t j = 0; j < nq; j++) {
                const quant *q =
                    &o->q[j < o->n_obj ? j : o->n_obj + (j - o->n_obj) / 2];
                double v = NAN;
                if (r && j < o->n_obj) /* the search minimises: max: negated */
                    v = (q->max ? -1.0 : 1.0) *
                        stat_of(&r->sum[q->metric], q->stat);
                else if (r && (j - o->n_obj) % 2 == 0)
                    v = stat_of(&r->sum[q->metric], q->stat);
                else if (r)
                    v = r->sum[q->metric].p90 - r->sum[q->metric].p10;
                memcpy(&buf[k * nq + j], &v, sizeof v);
            }
        }
        buf[n * nq] = rc;
    }
    sweep_mpi_bcast_long(buf, n * nq + 1);
    if (rc == SIM_OK && buf[n * nq] != SIM_OK)
        rc = SIM_EINVAL; /* rank 0 failed and said why */
    for (size_t k = 0; rc == SIM_OK && k < n; k++) {
        const long *b = &buf[k * nq];
        memset(&out[k], 0, sizeof out[k]);
        for (size_t j = 0; j < o->n_obj; j++)
            memcpy(&out[k].obj[j], &b[j], sizeof(double));
        for (size_t j = 0; j < o->n_con; j++) {
            memcpy(&out[k].con[j], &b[o->n_obj + 2 * j], sizeof(double));
            memcpy(&out[k].spread[j], &b[o->n_obj + 2 * j + 1], sizeof(double));
        }
    }
done:
    free(buf);
    free(todo);
    return rc;
}

/* Index of name among the unique metric names (added when new). */
static size_t metric_slot(opt_cli *o, char *name)
{
    for (size_t i = 0; i < o->n_specs; i++)
        if (strcmp(o->specs[i], name) == 0) {
            free(name);
            return i;
        }
    o->specs[o->n_specs] = name;
    return o->n_specs++;
}

/* Checks that every --vary is a range LO:HI:STEP, and that an integer key
 * has an integer LO and STEP. Returns 0 or prints a usage error (-1). */
static int check_vary(const char *spec)
{
    const char *eq = strchr(spec, '='), *v;
    char key[256];
    double lo, hi, st;
    char tail;
    const scen_key *k;
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof key)
        return cli_usage_error("optimize",
                               "--vary: expected KEY=LO:HI:STEP "
                               "(got '%s')",
                               spec),
               -1;
    memcpy(key, spec, (size_t)(eq - spec));
    key[eq - spec] = '\0';
    v = eq + 1;
    if (strchr(v, ',') || sscanf(v, "%lf:%lf:%lf%c", &lo, &hi, &st, &tail) != 3)
        return cli_usage_error("optimize",
                               "--vary %s: expected a range LO:HI:STEP of "
                               "numbers (got '%s')",
                               key, v),
               -1;
    k = scen_key_find(key);
    if (k && k->type == SK_INT &&
        (lo != floor(lo) || st != floor(st) || hi != floor(hi)))
        return cli_usage_error("optimize",
                               "--vary %s: an integer key needs integer "
                               "LO, HI and STEP (got '%s')",
                               key, v),
               -1;
    return 0;
}

/* Fills q from the parsed text sp (the metric's slot added when new). */
static void quant_of(opt_cli *o, const opt_spec *sp, const char *text, quant *q)
{
    q->metric = metric_slot(o, strdup(sp->metric));
    q->stat = sp->stat;
    q->max = sp->maximise;
    q->ge = sp->ge;
    q->bound = sp->bound;
    q->text = text;
}

/* The design's JSON object {"overrides", "metrics", "feasible"}. */
static jv *design_json(const opt_cli *o, const sweep_grid *g,
                       const opt_design *x)
{
    jv *d = jv_obj(), *ov = NULL, *m = jv_obj();
    char *ovs = sweep_overrides_json(g, x->case_i);
    sim_err e;
    const sweep_row *r = row_of(o->tab[x->level], x->case_i);
    if (jv_parse(ovs, &ov, &e) != SIM_OK)
        ov = jv_obj();
    free(ovs);
    for (size_t i = 0; i < o->n_specs; i++) {
        jv *s = jv_obj();
        const stat_summary *st = r ? &r->sum[i] : NULL;
        jv_set(s, "p10", jv_num(st ? st->p10 : (double)NAN));
        jv_set(s, "p50", jv_num(st ? st->p50 : (double)NAN));
        jv_set(s, "p90", jv_num(st ? st->p90 : (double)NAN));
        jv_set(s, "mean", jv_num(st ? st->mean : (double)NAN));
        jv_set(m, o->tab[0]->metrics[i].name, s);
    }
    jv_set(d, "overrides", ov);
    jv_set(d, "metrics", m);
    jv_set(d, "feasible", jv_bool(x->feasible));
    return d;
}

static int write_json(const opt_cli *o, const sweep_grid *g,
                      const opt_result *res)
{
    jv *root = jv_obj(), *par = jv_arr();
    int rc;
    jv_set(root, "best", design_json(o, g, &res->designs[res->best]));
    jv_set(root, "evaluations", jv_int((int64_t)res->n_designs));
    for (size_t k = 0; k < res->n_pareto; k++)
        jv_push(par, design_json(o, g, &res->designs[res->pareto[k]]));
    jv_set(root, "pareto", par);
    rc = jv_write(root, stdout, 1);
    fputc('\n', stdout);
    jv_free(root);
    return rc;
}

/* The value of quantity j of design x (its own level), in the metric's
 * own sign (a maximised objective is negated only inside the search). */
static double qval(const opt_cli *o, const opt_design *x, size_t j)
{
    return j < o->n_obj ? (o->q[j].max ? -1.0 : 1.0) * x->v.obj[j]
                        : x->v.con[j - o->n_obj];
}

static void write_table(const opt_cli *o, const sweep_grid *g,
                        const opt_result *res, size_t n_lattice)
{
    const opt_design *b = &res->designs[res->best];
    const sweep_row *r = row_of(o->tab[b->level], b->case_i);
    const sweep_table *t = o->tab[0];
    printf("optimize: %zu of %zu designs evaluated (%zu refined with %dx "
           "replications)\n\n",
           res->n_designs, n_lattice, res->n_refined, OPT_REFINE);
    printf("best design (%s):\n", b->feasible ? "feasible" : "INFEASIBLE");
    for (size_t a = 0; a < g->n_axes; a++)
        printf("  %-40s %s\n", g->axes[a].key,
               g->axes[a].values[sweep_case_value(g, b->case_i, a)]);
    printf("\n  %-44s %14s %14s %14s %14s\n", "metric", "mean", "p10", "p50",
           "p90");
    for (size_t i = 0; i < o->n_specs && r; i++) {
        char nm[256];
        snprintf(nm, sizeof nm, "%s [%s]", t->metrics[i].name,
                 t->metrics[i].unit);
        printf("  %-44s %14.6g %14.6g %14.6g %14.6g\n", nm, r->sum[i].mean,
               r->sum[i].p10, r->sum[i].p50, r->sum[i].p90);
    }
    if (o->n_con) {
        printf("\nconstraints (slack: how far inside the bound; binding: "
               "within the noise band):\n");
        for (size_t k = 0; k < o->n_con; k++) {
            const quant *q = &o->q[o->n_obj + k];
            double v = b->v.con[k], slack = q->ge ? v - q->bound : q->bound - v;
            int near =
                opt_near_bound(v, b->v.spread[k], q->bound,
                               b->level ? OPT_REFINE * o->reps : o->reps);
            printf("  %-44s value %-12.6g slack %-12.6g (%6.2f %%)%s\n",
                   q->text, v, slack,
                   fabs(q->bound) > 0 ? 100.0 * slack / fabs(q->bound) : 0.0,
                   slack < 0 ? "  VIOLATED"
                   : near    ? "  binding"
                             : "");
            fputc('\n', stdout);
        }
    }
    if (o->n_obj > 1 || res->n_pareto > 1) {
        printf("\npareto front (%zu non-dominated feasible designs):\n",
               res->n_pareto);
        for (size_t k = 0; k < res->n_pareto; k++) {
            const opt_design *x = &res->designs[res->pareto[k]];
            char *ck = sweep_case_key(g, x->case_i);
            printf("  %s:", ck);
            for (size_t j = 0; j < o->n_obj; j++)
                printf(" %s=%.6g", o->q[j].text, qval(o, x, j));
            printf("\n");
            free(ck);
        }
    }
}

/* Stores the problem and its evaluated designs (io/db.h db_opt_problem)
 * so `report` can chart it; the terms are the texts as given, in the order
 * vary, objectives, constraints, sets (the seed and replications are
 * columns of their own). Rank 0 only. Returns SIM_OK or the store's error. */
static int store_problem(const opt_cli *o, const sweep_grid *g,
                         const opt_result *res, const scenario *base,
                         int64_t reps1, const char *const *terms[4],
                         const size_t nt[4], int64_t *id, sim_err *err)
{
    db_opt_problem p;
    char name[256];
    size_t k = 0;
    int rc;
    memset(&p, 0, sizeof p);
    p.scenario = run_scenario_name(base, name, sizeof name);
    p.sweep_key = (char *)o->key[0];
    p.refined_sweep_key = (char *)o->key[1];
    p.seed = base->sim.seed;
    p.replications = (int64_t)o->reps;
    p.refined_replications = reps1;
    p.n_terms = nt[0] + nt[1] + nt[2] + nt[3];
    p.terms = sim_xcalloc(p.n_terms + 1, sizeof *p.terms);
    for (int r = 0; r < 4; r++)
        for (size_t i = 0; i < nt[r]; i++, k++) {
            p.terms[k].role = (db_opt_role)r;
            p.terms[k].text = (char *)terms[r][i];
        }
    p.n_designs = res->n_designs;
    p.designs = sim_xcalloc(res->n_designs + 1, sizeof *p.designs);
    for (size_t i = 0; i < res->n_designs; i++) {
        const opt_design *x = &res->designs[i];
        db_opt_design *y = &p.designs[i];
        y->case_index = (int64_t)x->case_i;
        y->case_key = sweep_case_key(g, x->case_i);
        y->refined = x->level;
        y->feasible = x->feasible;
        y->violation = x->viol;
        y->best = i == res->best;
    }
    for (size_t i = 0; i < res->n_pareto; i++)
        p.designs[res->pareto[i]].pareto = 1;
    rc = db_opt_store(o->d, &p, err);
    *id = p.id;
    for (size_t i = 0; i < res->n_designs; i++)
        free(p.designs[i].case_key);
    free(p.designs);
    free(p.terms);
    return rc;
}

/* Why one long function: like cmd_sweep, a fixed sequence of phases every
 * MPI rank walks in step (options; the lattice and the two sweep contexts;
 * set-up agreed by all ranks; the search, whose every batch is collective;
 * rank 0 prints), with one `done:` label freeing what any phase made. */
int cmd_optimize(int argc, char **argv)
{
    static const struct option opts[] = {
        {"vary", required_argument, NULL, 'V'},
        {"objective", required_argument, NULL, 'o'},
        {"constraint", required_argument, NULL, 'k'},
        {"set", required_argument, NULL, 'S'},
        {"replications", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"jobs", required_argument, NULL, 'j'},
        {"db", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"calibration", required_argument, NULL, 'c'},
        {"catalog", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "optimize", *calib = NULL, *catdir = NULL,
               *db_path = RUN_STORE_DEFAULT_DB;
    const char **vary = sim_xcalloc((size_t)argc + 1, sizeof *vary);
    const char **objs = sim_xcalloc((size_t)argc + 1, sizeof *objs);
    const char **cons = sim_xcalloc((size_t)argc + 1, sizeof *cons);
    const char **base_ov[2];
    char seed_ov[64], reps_ov[2][64], *calib_bytes = NULL, *grid_text = NULL;
    size_t n_vary = 0, n_objs = 0, n_cons = 0, n_base = 0, calib_n = 0;
    uint64_t seed = 0;
    uint32_t reps = 0, jobs = 0;
    int fmt = CLI_FMT_TABLE, oc, rc = CLI_EXIT_ERR, setup, rank, seed_given = 0;
    int64_t problem_id = 0;
    opt_cli o;
    sweep_grid *g = NULL;
    catalog *cat = NULL;
    tp_model *tp = NULL;
    scenario *base[2] = {NULL, NULL};
    opt_result res;
    sim_err err;

    sim_err_clear(&err);
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    base_ov[0] = sim_xcalloc((size_t)argc + 4, sizeof *base_ov[0]);
    base_ov[1] = sim_xcalloc((size_t)argc + 4, sizeof *base_ov[1]);
    o.specs = sim_xcalloc((size_t)argc + 1, sizeof *o.specs);
    if (sweep_mpi_init(&argc, &argv, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    rank = sweep_mpi_rank();
    while ((oc = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (oc) {
        case 'V':
            if (check_vary(optarg) < 0)
                goto usage;
            vary[n_vary++] = optarg;
            break;
        case 'o':
            objs[n_objs++] = optarg;
            break;
        case 'k':
            cons[n_cons++] = optarg;
            break;
        case 'S':
            base_ov[0][n_base] = optarg;
            base_ov[1][n_base++] = optarg;
            break;
        case 'r':
            if (cli_u32(cmd, "--replications", optarg, 1, 100000, &reps) < 0)
                goto usage;
            break;
        case 's':
            if (seed_given++ || cli_seed(cmd, "--seed", optarg, &seed) < 0) {
                if (seed_given > 1)
                    cli_usage_error(cmd, "--seed given twice");
                goto usage;
            }
            break;
        case 'j':
            if (cli_u32(cmd, "--jobs", optarg, 1, 4096, &jobs) < 0)
                goto usage;
            break;
        case 'd':
            db_path = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON);
            if (fmt < 0)
                goto usage;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'c':
            calib = optarg;
            break;
        case 'C':
            catdir = optarg;
            break;
        case 'h':
            if (rank == 0)
                fputs(optimize_help, stdout);
            rc = CLI_EXIT_OK;
            goto done;
        case ':':
            cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
            goto usage;
        default:
            cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
            goto usage;
        }
    }
    if (optind + 1 != argc) {
        cli_usage_error(cmd,
                        optind >= argc ? "missing SCENARIO"
                                       : "unexpected argument '%s'",
                        optind < argc ? argv[optind + 1] : "");
        goto usage;
    }
    if (!n_vary || !n_objs) {
        cli_usage_error(cmd, n_vary ? "--objective METRIC.STAT is required"
                                    : "--vary KEY=LO:HI:STEP is required");
        goto usage;
    }
    if (n_objs > OPT_MAX_OBJ || n_cons > OPT_MAX_CON) {
        cli_usage_error(cmd, "at most %d objectives and %d constraints",
                        OPT_MAX_OBJ, OPT_MAX_CON);
        goto usage;
    }
    for (size_t k = 0; k < n_objs; k++) {
        opt_spec sp;
        char why[512];
        if (opt_spec_objective(objs[k], &sp, why, sizeof why) < 0) {
            cli_usage_error(cmd, "%s", why);
            goto usage;
        }
        quant_of(&o, &sp, objs[k], &o.q[k]);
    }
    o.n_obj = n_objs;
    for (size_t k = 0; k < n_cons; k++) {
        opt_spec sp;
        char why[512];
        if (opt_spec_constraint(cons[k], &sp, why, sizeof why) < 0) {
            cli_usage_error(cmd, "%s", why);
            goto usage;
        }
        quant_of(&o, &sp, cons[k], &o.q[n_objs + k]);
    }
    o.n_con = n_cons;
    if (sweep_grid_parse(vary, n_vary, &g, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }

    /* Set-up on every rank: catalog, calibration, the two bases. */
    if (seed_given) {
        snprintf(seed_ov, sizeof seed_ov, "simulation.seed=%lluL",
                 (unsigned long long)seed);
        base_ov[0][n_base] = seed_ov;
        base_ov[1][n_base++] = seed_ov;
    }
    setup = catalog_load(catdir, &cat, &err);
    if (setup == SIM_OK)
        setup = calib ? tp_model_load(calib, &tp, &err)
                      : tp_model_default(&tp, &err);
    if (setup == SIM_OK && !reps) {
        /* R from the scenario: needed for the refined level. */
        scenario *s0 = NULL;
        setup = scenario_load(argv[optind], cat, base_ov[0], n_base, &s0, &err);
        if (setup == SIM_OK)
            reps = (uint32_t)s0->sim.replications;
        scenario_free(s0);
    }
    if (setup == SIM_OK) {
        uint32_t r1 = reps * OPT_REFINE > 100000 ? 100000 : reps * OPT_REFINE;
        snprintf(reps_ov[0], sizeof reps_ov[0], "simulation.replications=%u",
                 reps);
        snprintf(reps_ov[1], sizeof reps_ov[1], "simulation.replications=%u",
                 r1);
        base_ov[0][n_base] = reps_ov[0];
        base_ov[1][n_base] = reps_ov[1];
    }
    for (int L = 0; L < 2 && setup == SIM_OK; L++) {
        /* sweep's defaults: a design's sweep key must equal the one
         * `sweep --set KEY=LO:HI:STEP ...` computes (test_optimize_cli.c) */
        sweep_ctx_default(&o.c[L]);
        o.c[L].scenario_path = argv[optind];
        o.c[L].cat = cat;
        o.c[L].tp = tp;
        o.c[L].base_ov = base_ov[L];
        o.c[L].n_base = n_base + 1;
        o.c[L].g = g;
        setup = scenario_load(argv[optind], cat, base_ov[L], n_base + 1,
                              &base[L], &err);
    }
    if (setup == SIM_OK) {
        /* Metric names checked against the base's jobs before any run. */
        run_store_meta rm;
        run_store_opts st;
        sweep_metric_ref ref;
        run_store_opts_default(&st);
        run_store_meta_fill(&rm, base[0], &st, 1);
        for (size_t k = 0; k < o.n_specs && setup == SIM_OK; k++)
            setup = sweep_metric_parse(o.specs[k], &rm.m, &ref, &err);
        run_store_meta_free(&rm);
    }
    if (setup == SIM_OK && rank == 0 &&
        (setup = sweep_validate_grid(&o.c[0], RUN_CHECK_DEFAULT_MAX_MEMORY_MB,
                                     &err)) == SIM_OK) {
        calib_bytes =
            sweep_read_file(calib ? calib : tp_model_default_path(), &calib_n);
        grid_text = sweep_grid_text(g);
        for (int L = 0; L < 2; L++)
            sweep_key_of(o.key[L], scenario_resolved_text(base[L]), grid_text,
                         calib_bytes, calib_n, &o.c[L]);
        if ((setup = cli_make_dirs(db_path, 0, &err)) == SIM_OK)
            setup = db_open(db_path, &o.d, &err);
    }
    if (setup != SIM_OK)
        rc = cli_report(&err);
    if (sweep_mpi_agree(setup) != SIM_OK) {
        if (setup == SIM_OK)
            rc = CLI_EXIT_ERR;
        goto done;
    }
    if (!jobs) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN), local = sweep_mpi_local_size();
        nc = nc > 0 ? nc : 1;
        jobs = (uint32_t)(nc / local > 0 ? nc / local : 1);
    }
    o.jobs = jobs;
    o.reps = reps;
    for (int L = 0; L < 2; L++) {
        o.pg[L].quiet = 1; /* optimize prints one line per batch */
        o.pg[L].t0 = sweep_now_s();
        o.sc[L].c = &o.c[L];
        o.sc[L].d = o.d;
        o.sc[L].sweep_key = o.key[L];
        o.sc[L].mpi = sweep_mpi_size() > 1;
#ifdef FACTORYSIM_MPI
        o.sc[L].mpi = 1;
#endif
        o.sc[L].pg = &o.pg[L];
    }
    if (!o.quiet && rank == 0)
        fprintf(stderr,
                "factorysim: optimize: lattice of %zu designs (sweep %s; "
                "refined: sweep %s), %u replication(s) per design, %u "
                "thread(s), results in %s\n",
                g->n_cases, o.key[0], o.key[1], reps, jobs, db_path);
    sweep_exec_install_signals();
    {
        size_t *dims = sim_xcalloc(g->n_axes, sizeof *dims);
        int con_ge[OPT_MAX_CON];
        double con_b[OPT_MAX_CON];
        opt_problem p;
        int xr;
        for (size_t a = 0; a < g->n_axes; a++)
            dims[a] = g->axes[a].n;
        for (size_t k = 0; k < o.n_con; k++) {
            con_ge[k] = o.q[o.n_obj + k].ge;
            con_b[k] = o.q[o.n_obj + k].bound;
        }
        memset(&p, 0, sizeof p);
        p.n_axes = g->n_axes;
        p.dims = dims;
        p.n_obj = o.n_obj;
        p.n_con = o.n_con;
        p.con_ge = con_ge;
        p.con_bound = con_b;
        p.reps = reps;
        p.eval = eval_cases;
        p.arg = &o;
        xr = opt_search(&p, &res, &err);
        free(dims);
        if (rank != 0) {
            rc = xr == SIM_OK ? CLI_EXIT_OK : CLI_EXIT_ERR;
            goto done;
        }
        if (xr == SIM_EINTR) {
            rc = cli_error("interrupted: the designs evaluated so far are "
                           "stored in %s; run the same command again to "
                           "resume",
                           db_path);
            goto done;
        }
        if (xr != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    /* Both tables as they are now, for the output. */
    if (reload(&o, 0, &err) != SIM_OK || reload(&o, 1, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    if (!o.tab[0]) {
        rc = cli_error("optimize: no design of the lattice ran (every one "
                       "failed; see above)");
        goto done;
    }
    {
        /* The user's --set texts only: the seed and replications are
         * columns of the stored problem. */
        const char *const *terms[4] = {vary, objs, cons, base_ov[0]};
        size_t nt[4] = {n_vary, n_objs, n_cons, n_base - (size_t)seed_given};
        if (store_problem(&o, g, &res, base[0],
                          (int64_t)base[1]->sim.replications, terms, nt,
                          &problem_id, &err) != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    if (fmt == CLI_FMT_JSON ? write_json(&o, g, &res) != SIM_OK
                            : (write_table(&o, g, &res, g->n_cases), 0)) {
        rc = cli_error("writing the result failed");
        goto done;
    }
    if (fflush(stdout) != 0) {
        rc = cli_error("writing the result failed");
        goto done;
    }
    if (!o.quiet)
        fprintf(stderr,
                "factorysim: optimize: %zu distinct design(s) evaluated, %zu "
                "run now (refinements included), %zu failed%s\n",
                res.n_designs, o.n_run, o.sc[0].n_failed + o.sc[1].n_failed,
                res.designs[res.best].feasible
                    ? ""
                    : "; no evaluated design meets every constraint");
    /* The problem id goes to stderr: it is an insertion-order id, which the
     * output on stdout (compared byte for byte across runs) must not carry. */
    if (!o.quiet)
        fprintf(stderr,
                "factorysim: optimize: stored as optimize problem %lld "
                "(chart: factorysim report --db %s --optimize %lld --out "
                "DIR)\n",
                (long long)problem_id, db_path, (long long)problem_id);
    rc = CLI_EXIT_OK;
done:
    opt_result_free(&res);
    sweep_table_free(o.tab[0]);
    sweep_table_free(o.tab[1]);
    db_close(o.d);
    for (size_t i = 0; i < o.n_specs; i++)
        free((char *)o.specs[i]);
    free(o.specs);
    free(grid_text);
    free(calib_bytes);
    scenario_free(base[0]);
    scenario_free(base[1]);
    tp_model_free(tp);
    catalog_free(cat);
    sweep_grid_free(g);
    free(vary);
    free(objs);
    free(cons);
    free(base_ov[0]);
    free(base_ov[1]);
    sweep_mpi_finalize();
    return rc;
usage:
    rc = CLI_EXIT_USAGE;
    goto done;
}
