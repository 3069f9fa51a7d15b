/* io/cfg.h: shared libconfig reading for the catalog and scenario loaders
 * (io/catalog_cfg.c, io/scenario_cfg.c). Only io/ files include this header,
 * so <libconfig.h> stays inside the adapters.
 *
 * Every getter validates type, finiteness and range and reports failures as
 * "key.path: message (got X, expected Y)" in a sim_err whose file and line
 * are the setting's own (an @included file names itself). Integers are
 * checked against their source text, because libconfig 1.5 silently wraps
 * an integer literal above 2^31-1 written without an L suffix.
 */
#ifndef IO_CFG_H
#define IO_CFG_H

#include <stddef.h>
#include <stdint.h>

#include <libconfig.h>

#include "sim/err.h"

/* A reader: the parsed tree plus the file text cache used by the integer
 * check. Owned by the caller; cfg_reader_free releases both. */
typedef struct cfg_reader {
    config_t cfg;
    int inited;
    const char *top_file;   /* path given to cfg_read (borrowed) */
    char incdir[1024];      /* folder @include paths start from */
    char fbuf[1200];        /* scratch for cfg_file's joined path */
    struct cfg_file *files; /* cache of source texts */
    sim_err *err;           /* where getters write (borrowed) */
} cfg_reader;

/* Reads path into r (include folder = path's folder, autoconvert on).
 * Errors: SIM_EIO (cannot open), SIM_ECONFIG (syntax, a missing or looping
 * include, empty or non-text file) with file:line. */
int cfg_read(cfg_reader *r, const char *path, sim_err *err);

/* Frees the tree and the cache. r may be zeroed/unused. */
void cfg_reader_free(cfg_reader *r);

/* Writes s's path ("modules.[0].count") into buf. */
void cfg_path(const config_setting_t *s, char *buf, size_t n);

/* The file and line a setting came from ("" and 0 when unknown, e.g. a
 * value set by an override). */
const char *cfg_file(cfg_reader *r, const config_setting_t *s);
int cfg_line(const config_setting_t *s);

/* Records "PATH[.key]: message" at s's file:line; returns SIM_ECONFIG.
 * key may be NULL (the message is about s itself). */
int cfg_fail(cfg_reader *r, const config_setting_t *s, const char *key,
             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Places an error of a models/ rule at FILE:LINE. The model's message is
 * "KEY: text" with KEY a key path relative to base ("modules.[0].units",
 * "hosts.[1]"; "." = base itself): the message names base's path + KEY;
 * the line is that of KEY's group, or of KEY itself when e->line is
 * SIM_ERR_AT_KEY (sim/err.h), or of the deepest part of that path the file
 * wrote. A message without a key is placed at base. Returns e's code. */
int cfg_fail_rule(cfg_reader *r, const config_setting_t *base,
                  const sim_err *e);

/* Refuses a member of group g whose name is not in keys (NULL-terminated),
 * listing the valid ones. Returns SIM_OK or SIM_ECONFIG. */
int cfg_check_keys(cfg_reader *r, const config_setting_t *g,
                   const char *const *keys);

/* Getters. A missing key gives the default and SIM_OK when required is 0,
 * else "missing key" SIM_ECONFIG. Numbers must be finite and in [lo, hi];
 * the value read (or def) is multiplied by scale (unit conversion) after
 * the range check, so def, lo and hi are all in the file's unit. */
int cfg_double(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, double def, double lo, double hi, double scale,
               double *out);
int cfg_int(cfg_reader *r, const config_setting_t *g, const char *key,
            int required, long long def, long long lo, long long hi,
            long long *out);
int cfg_bool(cfg_reader *r, const config_setting_t *g, const char *key,
             int required, int def, int *out);
/* Copies a string (truncation is an error: "longer than N characters"). */
int cfg_string(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, const char *def, char *buf, size_t n);
/* Matches a string against choices (case-insensitive); *out = its index.
 * An unknown value lists the choices. */
int cfg_choice(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, int def, const char *const *choices, int *out);
/* A group or list member of the given CONFIG_TYPE_*; NULL when missing and
 * not required (SIM_OK), else an error. *out receives it. */
int cfg_member(cfg_reader *r, const config_setting_t *g, const char *key,
               int type, int required, config_setting_t **out);
/* An array/list of exactly n numbers (n = 0: any length up to cap; count
 * in *n_out), each in [lo, hi], times scale. */
int cfg_doubles(cfg_reader *r, const config_setting_t *g, const char *key,
                int required, size_t n, size_t cap, double lo, double hi,
                double scale, double *out, size_t *n_out);

/* Parses "YYYY-MM-DD" into days since 1970-01-01 (proleptic Gregorian).
 * Returns 0 on success, -1 when malformed or not a real date. */
int cfg_parse_date(const char *s, int64_t *days);

/* Applies one "KEY=VALUE" override to r's tree. KEY is a libconfig path
 * ("modules.[0].count"); missing groups along it are created, a missing
 * list index is an error. VALUE is typed like a libconfig literal (int,
 * 123L, float, true/false, "string" or a bare word as string). An existing
 * setting keeps its kind: a number stays a number. Errors: SIM_ECONFIG
 * naming the override. */
int cfg_override(cfg_reader *r, const char *kv);

/* The whole tree as libconfig text (caller frees), or NULL on failure. */
char *cfg_write_text(const cfg_reader *r);

#endif
