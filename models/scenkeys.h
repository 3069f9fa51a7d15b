/* models/scenkeys.h: the one table of scenario keys. Every key a scenario
 * file may hold is one row: its path, type, unit in the file, the range the
 * loader enforces, whether it is required, its default, and what it means.
 * The loader (io/scenario_cfg.c) takes every range and static default from
 * here, `--set` refuses a key that is not here, error messages quote the
 * range from here, docs/scenario-reference.md's key tables are generated
 * from here (`factorysim schema --scenario`), and tests/test_scenkeys.c
 * walks every documented extreme through the loader and a run.
 *
 * Paths: list elements are written "[]" ("modules.[].count" stands for
 * modules.[0].count, modules.[1].count, ...). The catalog overrides under
 * "catalog." follow the catalog's own files and are not listed here.
 */
#ifndef MODELS_SCENKEYS_H
#define MODELS_SCENKEYS_H

#include <stddef.h>

typedef enum scen_key_type {
    SK_NUMBER,  /* a number in [lo, hi] */
    SK_INT,     /* an integer in [lo, hi] */
    SK_BOOL,    /* true or false */
    SK_STRING,  /* text */
    SK_CHOICE,  /* one of the names the meaning lists */
    SK_DATE,    /* "YYYY-MM-DD" */
    SK_PATH,    /* a file, relative to the scenario's folder */
    SK_NUMBERS, /* an array of numbers, each in [lo, hi] */
    SK_GROUP,   /* a group of keys */
    SK_LIST     /* a list of groups */
} scen_key_type;

typedef struct scen_key {
    const char *path; /* "simulation.horizon_days", "jobs.[].tp" */
    scen_key_type type;
    const char *unit;     /* in the file: "d", "MW", "%"; "" for none */
    double lo, hi;        /* enforced range (SK_NUMBER, SK_INT, SK_NUMBERS);
                             NAN for other types */
    int required;         /* 1: always required (some keys are required
                             only with others: the rule says so) */
    double def;           /* the default, NAN when it is computed (from the
                             catalog, the site, another key) or none */
    const char *def_text; /* the default as documented */
    const char *rule;     /* constraints beyond [lo, hi], choices, "" */
    const char *example;  /* as written in a scenario */
    const char *meaning;
} scen_key;

extern const scen_key scen_keys[];
extern const size_t scen_n_keys;

/* The row of path (list indices in any form: "jobs.[3].tp", "jobs.[].tp"),
 * or NULL. */
const scen_key *scen_key_find(const char *path);

/* Writes path with every "[N]" as "[]" into buf. */
void scen_key_normalize(const char *path, char *buf, size_t n);

/* A readable label for a key path, for chart axes and titles (issue 24:
 * never a raw key path): the last two named parts of the path, a unit
 * suffix that repeats the unit dropped, underscores as spaces, and the
 * unit in brackets: "energy.solar.capacity_mw" -> "solar capacity [MW]",
 * "simulation.horizon_days" -> "horizon [d]". Unknown paths get the same
 * treatment without a unit. */
void scen_key_label(const char *path, char *buf, size_t n);

/* "KEY=VALUE;KEY=VALUE" (a sweep case key) as "label VALUE unit, ...":
 * "energy.solar.capacity_mw=10" -> "solar capacity 10 MW". */
void scen_case_label(const char *case_key, char *buf, size_t n);

#endif
