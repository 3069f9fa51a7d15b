/* io/scenario_jobs_cfg.c: reads a scenario's `jobs` list (each job's model,
 * precision, GPUs, tokens or steps, submit time, checkpoint and parallel
 * layout) into scen_job. Split from io/scenario_cfg.c because jobs are the
 * largest group and change with the throughput model's inputs. It only
 * reads, range-checks and resolves catalog names; the job's derived steps,
 * layout and GPU type are models/scenario.c's (scenario_finish). */
#include "io/scenario_cfg_int.h"

/* Precision labels of the calibration data and the format each runs. */
static const struct {
    const char *label;
    num_fmt fmt;
} precisions[] = {
    {"bf16", NUM_BF16},  {"fp8", NUM_FP8},   {"fp8-cs", NUM_FP8},
    {"fp8-mx", NUM_FP8}, {"mxfp8", NUM_FP8}, {"nvfp4", NUM_FP4},
};
#define N_PRECISIONS (sizeof precisions / sizeof precisions[0])

static int read_checkpoint(cfg_reader *r, const config_setting_t *e,
                           scen_job *j)
{
    static const char *const keys[] = {"policy", "interval_min", "write_s",
                                       "restart_min", NULL};
    static const char *const pols[] = {"young-daly", "fixed", NULL};
    config_setting_t *g;
    int rc, pol;

    j->ckpt = CKPT_YOUNG_DALY;
    /* Without a checkpoint group: the table's defaults. */
    j->ckpt_write_s = scen_key_find("jobs.[].checkpoint.write_s")->def;
    j->restart_s = scen_key_find("jobs.[].checkpoint.restart_min")->def * 60;
    if ((rc = cfg_member(r, e, "checkpoint", CONFIG_TYPE_GROUP, 0, &g)) !=
            SIM_OK ||
        !g)
        return rc;
    if ((rc = cfg_check_keys(r, g, keys)) != SIM_OK ||
        (rc = cfg_choice(r, g, "policy", 0, CKPT_YOUNG_DALY, pols, &pol)) !=
            SIM_OK ||
        (rc = num(r, g, "write_s", 0, 0, 1, &j->ckpt_write_s)) != SIM_OK ||
        (rc = num(r, g, "restart_min", 0, 0, 60, &j->restart_s)) != SIM_OK)
        return rc;
    j->ckpt = (ckpt_policy)pol;
    if (j->ckpt == CKPT_FIXED)
        return num(r, g, "interval_min", 1, 0, 60, &j->ckpt_interval_s);
    if (config_setting_get_member(g, "interval_min"))
        return cfg_fail(r, g, "interval_min",
                        "only applies to policy "
                        "\"fixed\" (got it with \"young-daly\", which "
                        "computes the interval)");
    return SIM_OK;
}

/* A job's parallel layout as written; 0 means "not given", left for the
 * throughput model to choose, so that a partial layout is allowed. Whether
 * the sizes divide the GPUs, batch and experts is scenario_finish's. */
static int read_layout(cfg_reader *r, const config_setting_t *e, scen_job *j)
{
    int rc;
    if ((rc = geti(r, e, "tp", 0, 0, &j->tp)) != SIM_OK ||
        (rc = geti(r, e, "pp", 0, 0, &j->pp)) != SIM_OK ||
        (rc = geti(r, e, "cp", 0, 0, &j->cp)) != SIM_OK ||
        (rc = geti(r, e, "ep", 0, 0, &j->ep)) != SIM_OK ||
        (rc = geti(r, e, "vp", 0, 0, &j->vp)) != SIM_OK ||
        (rc = geti(r, e, "etp", 0, 0, &j->etp)) != SIM_OK ||
        (rc = cfg_bool(r, e, "fsdp", 0, 0, &j->fsdp)) != SIM_OK)
        return rc;
    /* Not given: chosen by the throughput model (0), like the sizes. */
    {
        static const char *const modes[] = {"", "none", "selective", "full",
                                            NULL};
        int dopt = 0;
        if (config_setting_get_member(e, "recompute") &&
            (rc = cfg_choice(r, e, "recompute", 1, 0, modes + 1,
                             &j->recompute)) != SIM_OK)
            return rc;
        if (config_setting_get_member(e, "recompute"))
            j->recompute += 1; /* tp_recompute: NONE = 1 */
        /* The recipe's CUDA graphs (models/tp_recipe.c); not given: the
         * calibrated default. */
        {
            static const char *const cg[] = {"none", "partial", "full", NULL};
            if (config_setting_get_member(e, "cuda_graph")) {
                if ((rc = cfg_choice(r, e, "cuda_graph", 1, 0, cg,
                                     &j->cuda_graph)) != SIM_OK)
                    return rc;
                j->cuda_graph += 1; /* tp_cuda_graph: NONE = 1 */
            }
        }
        /* The MoE token dispatcher: what the EP exchange sends
         * (models/tp_comm.c). */
        {
            static const char *const md[] = {
                "alltoall", "allgather", "flex-deepep", "flex-hybridep", NULL};
            if (config_setting_get_member(e, "moe_dispatcher")) {
                if ((rc = cfg_choice(r, e, "moe_dispatcher", 1, 0, md,
                                     &j->moe_dispatcher)) != SIM_OK)
                    return rc;
                j->moe_dispatcher += 1; /* tp_moe_dispatcher: ALLTOALL = 1 */
            }
        }
        if (config_setting_get_member(e, "distributed_optimizer")) {
            if ((rc = cfg_bool(r, e, "distributed_optimizer", 1, 0, &dopt)) !=
                SIM_OK)
                return rc;
            j->distopt = dopt ? TP_DISTOPT_ON : TP_DISTOPT_OFF;
        }
        /* The recipe's EP all-to-all overlap (models/tp_recipe.c); not
         * given: the calibrated default. */
        if (config_setting_get_member(e, "moe_a2a_overlap")) {
            int ov;
            if ((rc = cfg_bool(r, e, "moe_a2a_overlap", 1, 0, &ov)) != SIM_OK)
                return rc;
            j->moe_a2a_overlap = ov ? TP_A2A_OVL_ON : TP_A2A_OVL_OFF;
        }
    }
    return SIM_OK;
}

/* jobs: one flat pass per entry, in the order a reader checks the file:
 * keys, names, the catalog references (model, precision, GPU) resolved to
 * pointers, then the numbers. It is long because a job has many keys, not
 * because it decides anything: every rule between them (GPU type default,
 * tensor cores, batch divisibility, steps from tokens, the layout, the
 * GPUs the site has) is scenario_finish's, so this only reads. */
int scfg_read_jobs(cfg_reader *r, const config_setting_t *root, scenario *s)
{
    static const char *const keys[] = {"name",
                                       "model",
                                       "precision",
                                       "gpu",
                                       "gpus",
                                       "tokens",
                                       "steps",
                                       "global_batch",
                                       "micro_batch",
                                       "seq_len",
                                       "tp",
                                       "pp",
                                       "cp",
                                       "ep",
                                       "vp",
                                       "etp",
                                       "fsdp",
                                       "checkpoint",
                                       "hot_spares",
                                       "priority",
                                       "submit_date",
                                       "submit_h",
                                       "release",
                                       "recompute",
                                       "distributed_optimizer",
                                       "tokens_per_sec_per_gpu",
                                       "software_efficiency",
                                       "cuda_graph",
                                       "moe_dispatcher",
                                       "moe_a2a_overlap",
                                       NULL};
    config_setting_t *l;
    char names[2048];
    int rc, n;

    if ((rc = cfg_member(r, root, "jobs", CONFIG_TYPE_LIST, 0, &l)) != SIM_OK ||
        !l)
        return rc;
    n = config_setting_length(l);
    s->jobs = sim_xcalloc((size_t)n + 1, sizeof *s->jobs);
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(l, (unsigned)i);
        scen_job *j = &s->jobs[s->n_jobs];
        char model[64], prec[32], gpu[32];
        double steps_d = 0;
        size_t p;

        if (!config_setting_is_group(e))
            return cfg_fail(r, e, NULL,
                            "wrong type (expected a group { name "
                            "= \"...\"; model = \"...\"; ... })");
        /* Where the job was written, for checks made after loading (the
         * throughput query, the fabric groups: app/run_check.c). */
        snprintf(j->src_file, sizeof j->src_file, "%s", cfg_file(r, e));
        j->src_line = cfg_line(e);
        j->gpus_line = config_setting_get_member(e, "gpus")
                           ? cfg_line(config_setting_get_member(e, "gpus"))
                           : j->src_line;
        if ((rc = cfg_check_keys(r, e, keys)) != SIM_OK ||
            (rc = cfg_string(r, e, "name", 1, NULL, j->name, sizeof j->name)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "model", 1, NULL, model, sizeof model)) !=
                SIM_OK ||
            (rc = cfg_string(r, e, "precision", 1, NULL, prec, sizeof prec)) !=
                SIM_OK)
            return rc;
        if (!(j->model = catalog_llm(s->cat, model))) {
            catalog_names(s->cat, "llms", names, sizeof names);
            return cfg_fail(r, config_setting_get_member(e, "model"), NULL,
                            "unknown model (got \"%s\", expected a name from "
                            "models.csv or one of: %s)",
                            model, names);
        }
        for (p = 0; p < N_PRECISIONS; p++)
            if (strcasecmp(precisions[p].label, prec) == 0)
                break;
        if (p == N_PRECISIONS) {
            names[0] = '\0';
            for (size_t k = 0; k < N_PRECISIONS; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names),
                         "%s\"%s\"", k ? ", " : "", precisions[k].label);
            return cfg_fail(r, config_setting_get_member(e, "precision"), NULL,
                            "unknown precision (got \"%s\", expected "
                            "one of: %s)",
                            prec, names);
        }
        snprintf(j->precision, sizeof j->precision, "%s", precisions[p].label);
        j->fmt = precisions[p].fmt;
        /* The GPU type: given, or the site's only one. */
        if (config_setting_get_member(e, "gpu")) {
            if ((rc = cfg_string(r, e, "gpu", 1, NULL, gpu, sizeof gpu)) !=
                SIM_OK)
                return rc;
            if (!(j->gpu = catalog_gpu(s->cat, gpu))) {
                catalog_names(s->cat, "gpus", names, sizeof names);
                return cfg_fail(r, config_setting_get_member(e, "gpu"), NULL,
                                "unknown GPU (got \"%s\", expected one of: "
                                "%s)",
                                gpu, names);
            }
        } /* else the site's only GPU type (scenario_finish) */
        if ((rc = geti(r, e, "gpus", 1, 0, &j->gpus)) != SIM_OK ||
            (rc = geti(r, e, "hot_spares", 0, 0, &j->hot_spares)) != SIM_OK ||
            (rc = geti(r, e, "global_batch", 1, 0, &j->global_batch)) !=
                SIM_OK ||
            (rc = geti(r, e, "micro_batch", 0, 0, &j->micro_batch)) != SIM_OK ||
            (rc = geti(r, e, "seq_len", 0, j->model->default_seq_len,
                       &j->seq_len)) != SIM_OK ||
            (rc = geti(r, e, "priority", 0, 0, &j->priority)) != SIM_OK ||
            (rc = num(r, e, "tokens_per_sec_per_gpu", 0, 0.0, 1,
                      &j->tokens_per_sec_per_gpu)) != SIM_OK ||
            (rc = num(r, e, "software_efficiency", 0, 1, 1,
                      &j->software_efficiency)) != SIM_OK ||
            (rc = cfg_string(r, e, "release", 0, "", j->release,
                             sizeof j->release)) != SIM_OK ||
            (rc = scfg_read_time(r, e, "submit_date", "submit_h", HOUR_S,
                                 &s->sim, 0, &j->submit_t_s)) != SIM_OK)
            return rc;
        /* How much to train: tokens or steps, exactly one. */
        if (!!config_setting_get_member(e, "tokens") ==
            !!config_setting_get_member(e, "steps"))
            return cfg_fail(r, e, "tokens",
                            "give exactly one of tokens and "
                            "steps (got %s)",
                            config_setting_get_member(e, "tokens") ? "both"
                                                                   : "neither");
        /* Steps from tokens (or tokens from steps) are scenario_finish's;
         * steps 0 = derive them from tokens. */
        if (config_setting_get_member(e, "tokens")) {
            if ((rc = num(r, e, "tokens", 1, 0, 1, &j->tokens)) != SIM_OK)
                return rc;
        } else {
            if ((rc = num(r, e, "steps", 1, 0, 1, &steps_d)) != SIM_OK)
                return rc;
            j->steps = (int64_t)floor(steps_d);
        }
        if ((rc = read_layout(r, e, j)) != SIM_OK ||
            (rc = read_checkpoint(r, e, j)) != SIM_OK)
            return rc;
        s->n_jobs++;
    }
    return SIM_OK;
}
