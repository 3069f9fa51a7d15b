/* io/fielddoc.c: documentation generated from the result-field table (see
 * fielddoc.h). Plain text out of constant tables: no state, no allocation
 * beyond the JSON tree.
 *
 * This file owns the generated docs (docs/results-schema.md and
 * docs/scenario-reference.md via `factorysim schema`, run by `make docs`), so
 * that the documented columns and keys are the ones the code uses (STYLE.md
 * 6.9). It must never describe a field or key that is not in the tables, and
 * never write a wall-clock time or version string that would make the
 * regenerated docs differ from the committed ones without a real change. */
#include "io/fielddoc.h"

#include <math.h>
#include <string.h>

#include "io/db.h"
#include "io/json.h"
#include "models/resfield.h"
#include "models/scenkeys.h"
#include "sim/err.h"

static const char *sql_type(const resfield *f)
{
    return f->type == RESFIELD_DOUBLE ? "REAL" : "INTEGER";
}

/* The step table is laid out differently because its rows never appear in run
 * output and it has two columns (step, dt_s) that the database adds around the
 * table's fields. */
static void md_table(FILE *f, const char *title, const char *intro,
                     const resfield *t, size_t n, int step)
{
    fprintf(f, "#### %s\n\n%s\n\n", title, intro);
    if (step) {
        fputs("| column | type | unit | meaning |\n|---|---|---|---|\n", f);
        fputs("| `step` | INTEGER | | row index after downsampling |\n"
              "| `dt_s` | REAL | s | duration the row covers |\n",
              f);
    } else {
        fputs("| column | type | unit | in run/sweep output | unit there | "
              "meaning |\n|---|---|---|---|---|---|\n",
              f);
    }
    for (size_t i = 0; i < n; i++) {
        const resfield *d = &t[i];
        if (step)
            fprintf(f, "| `%s` | %s | %s | %s |\n", d->name, sql_type(d),
                    d->unit, d->doc);
        else if (d->outputs & RESFIELD_RUN)
            fprintf(f, "| `%s` | %s | %s | `%s` | %s | %s |\n", d->name,
                    sql_type(d), d->unit, d->disp_name, d->disp_unit, d->doc);
        else
            fprintf(f, "| `%s` | %s | %s | (stored only) | | %s |\n", d->name,
                    sql_type(d), d->unit, d->doc);
    }
    fputc('\n', f);
}

int fielddoc_results_md(FILE *f)
{
    fprintf(f,
            "Schema version %d. Every column below comes from "
            "`models/resfield.c`.\n\n",
            DB_SCHEMA_VERSION);
    md_table(f, "`job_reps`: every job in every replication",
             "Key (`run_id`, `job`, `replication`); `replication` is the "
             "0-based replication index.",
             resfield_job, resfield_n_job, 0);
    md_table(f, "`site_reps`: site totals per replication",
             "Key (`run_id`, `replication`).", resfield_site, resfield_n_site,
             0);
    md_table(f, "`timeseries`: the per-step site series",
             "Key (`run_id`, `replication`, `step`).", resfield_step,
             resfield_n_step, 1);
    md_table(f, "`module_reps`: training power dynamics per module",
             "Key (`run_id`, `replication`, `module`); `module` is the "
             "0-based index of the module in the order the scenario's module "
             "groups expand (group order, then count). The IT power of the "
             "jobs a module hosts over the steady-state windows at 100 Hz "
             "(docs/power-model.md 14); no rows when the analysis is off.",
             resfield_module, resfield_n_module, 0);
    md_table(f, "`power_window`: the representative window of site power",
             "Key (`run_id`, `replication`, `sample`); replication 0 only: "
             "the steady-state window with the most training jobs, 8192 "
             "samples at 100 Hz (81.92 s), drawn by `report` "
             "(power_dynamics chart).",
             resfield_pd_sample, resfield_n_pd_sample, 0);
    return ferror(f) ? SIM_EIO : SIM_OK;
}

static jv *fields_json(const resfield *t, size_t n)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < n; i++) {
        jv *o = jv_obj();
        jv_set(o, "name", jv_str(t[i].name));
        jv_set(o, "type", jv_str(sql_type(&t[i])));
        jv_set(o, "unit", jv_str(t[i].unit));
        jv_set(o, "display_name", jv_str(t[i].disp_name));
        jv_set(o, "display_unit", jv_str(t[i].disp_unit));
        jv_set(o, "si_per_display_unit", jv_num(t[i].disp_per));
        jv_set(o, "in_run_output", jv_bool((t[i].outputs & RESFIELD_RUN) != 0));
        jv_set(o, "label", jv_str(t[i].label));
        jv_set(o, "meaning", jv_str(t[i].doc));
        jv_push(a, o);
    }
    return a;
}

int fielddoc_results_json(FILE *f)
{
    jv *root = jv_obj();
    int rc;
    jv_set(root, "schema_version", jv_int(DB_SCHEMA_VERSION));
    jv_set(root, "job", fields_json(resfield_job, resfield_n_job));
    jv_set(root, "site", fields_json(resfield_site, resfield_n_site));
    jv_set(root, "step", fields_json(resfield_step, resfield_n_step));
    jv_set(root, "module", fields_json(resfield_module, resfield_n_module));
    jv_set(root, "power_window",
           fields_json(resfield_pd_sample, resfield_n_pd_sample));
    rc = jv_write(root, f, 1);
    jv_free(root);
    return rc;
}

/* In scen_key_type's order (models/scenkeys.h); the type names are the words
 * the scenario reference uses. */
static const char *const key_type_name[] = {
    "number", "integer", "bool",    "string", "name",
    "date",   "path",    "numbers", "group",  "list"};

/* Writes x as the table writes bounds: %g, and 2^63-1 by name. Integer keys
 * whose bound is INT64_MAX would print as 9.22337e+18, which reads like a real
 * limit; the name says "no limit" exactly. */
static void bound(FILE *f, double x)
{
    if (x >= 9.2e18)
        fputs("2^63-1", f);
    else
        fprintf(f, "%g", x);
}

/* The key table is in path order, so a change of the part before the last dot
 * starts a new section; group and list keys head their own section with the
 * rule that applies to the whole group. */
int fielddoc_scenario_md(FILE *f)
{
    char group[300] = "-";
    for (size_t i = 0; i < scen_n_keys; i++) {
        const scen_key *k = &scen_keys[i];
        const char *dot = strrchr(k->path, '.');
        char g[300];
        size_t gl = dot ? (size_t)(dot - k->path) : 0;
        snprintf(g, sizeof g, "%.*s", (int)gl, k->path);
        if ((k->type == SK_GROUP || k->type == SK_LIST) && dot) {
            /* A nested group heads its own table: "what it is; rule". */
            snprintf(group, sizeof group, "%s%s", k->path,
                     k->type == SK_LIST ? ".[]" : "");
            fprintf(f, "\n### `%s`\n\n%s%s%s%s%s.\n\n", group, k->meaning,
                    *k->rule ? "; " : "", k->rule,
                    k->required ? "; required" : "",
                    *k->def_text ? "; default: " : "");
            if (*k->def_text)
                fprintf(f, "%s.\n\n", k->def_text);
            fputs("| key | type | unit | default | range | example | "
                  "meaning |\n|---|---|---|---|---|---|---|\n",
                  f);
            continue;
        }
        if (strcmp(g, group) != 0) {
            snprintf(group, sizeof group, "%s", g);
            fprintf(f, "%s### %s%s%s\n\n", i ? "\n" : "", gl ? "`" : "",
                    gl ? g : "Top level", gl ? "`" : "");
            fputs("| key | type | unit | default | range | example | "
                  "meaning |\n|---|---|---|---|---|---|---|\n",
                  f);
        }
        fprintf(f, "| `%s` | %s | %s | %s | ", dot ? dot + 1 : k->path,
                key_type_name[k->type], k->unit,
                k->required ? "required" : k->def_text);
        if (!isnan(k->lo)) {
            bound(f, k->lo);
            fputs(" .. ", f);
            bound(f, k->hi);
            if (*k->rule)
                fputs("; ", f);
        }
        fprintf(f, "%s | %s | %s |\n", k->rule, k->example, k->meaning);
    }
    return ferror(f) ? SIM_EIO : SIM_OK;
}
