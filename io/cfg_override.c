/* io/cfg_override.c: `--set KEY=VALUE` overrides of a read configuration
 * and the resolved text written back (contract in io/cfg.h). An override is
 * classified as libconfig would read the same text in a file and must fit
 * the type of the setting it replaces, so a scenario cannot be made to mean
 * something through --set that its file could not say; overridden settings
 * are remembered (cfg_ov_list_get) so messages name "--set" instead of the
 * file. Must never create a key the file's group does not already allow:
 * unknown keys are refused later by cfg_check_keys, like a misspelt key in
 * the file. */
#include "io/cfg_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/mem.h"

/* Value kinds an override string can carry. */
enum { OV_INT, OV_INT64, OV_FLOAT, OV_BOOL, OV_STRING };

/* A --set value has no type of its own, so it is classified as libconfig would
 * read the same text in a file: quoted string, boolean, integer (64-bit when it
 * carries an L or does not fit in 32 bits), float, else a bare word kept as a
 * string. The existing setting's type then decides, in cfg_override, whether
 * the value fits. */
static int ov_classify(const char *v, long long *iv, double *dv, int *bv,
                       const char **sv, char *sbuf, size_t n)
{
    char *e;
    size_t len = strlen(v);

    if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
        size_t k = len - 2 < n - 1 ? len - 2 : n - 1;
        memcpy(sbuf, v + 1, k);
        sbuf[k] = '\0';
        *sv = sbuf;
        return OV_STRING;
    }
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0) {
        *bv = strcasecmp(v, "true") == 0;
        return OV_BOOL;
    }
    if (len > 0) {
        errno = 0;
        *iv = strtoll(v, &e, 0);
        if (e != v && errno == 0 && (*e == '\0' || (*e == 'L' && !e[1]))) {
            *dv = (double)*iv;
            if (*e == 'L' || *iv > 2147483647LL || *iv < -2147483648LL)
                return OV_INT64;
            return OV_INT;
        }
        errno = 0;
        *dv = strtod(v, &e);
        if (e != v && *e == '\0')
            return OV_FLOAT;
    }
    *sv = v;
    return OV_STRING;
}

/* libconfig's setters refuse a value of another type than the setting's; a
 * setting just created with ov_type(kind) always matches, which is why
 * cfg_override ignores the result when it creates one. */
static int ov_set(config_setting_t *s, int kind, long long iv, double dv,
                  int bv, const char *sv)
{
    switch (kind) {
    case OV_INT:
        return config_setting_set_int(s, (int)iv);
    case OV_INT64:
        return config_setting_set_int64(s, iv);
    case OV_FLOAT:
        return config_setting_set_float(s, dv);
    case OV_BOOL:
        return config_setting_set_bool(s, bv);
    default:
        return config_setting_set_string(s, sv);
    }
}

static int ov_type(int kind)
{
    static const int t[] = {CONFIG_TYPE_INT, CONFIG_TYPE_INT64,
                            CONFIG_TYPE_FLOAT, CONFIG_TYPE_BOOL,
                            CONFIG_TYPE_STRING};
    return t[kind];
}

/* Shaped as a walk down the key path, one token at a time, because each token
 * can fail differently (not a group, index out of range, bad name) and the
 * message must say which. A missing member is created (so --set can give an
 * optional key the file leaves out) and recorded in the override list, so that
 * errors about it name "--set". On an existing leaf the setting keeps its type
 * when the value allows (a string key takes an unquoted word, an int64 key
 * takes a small integer); otherwise the member is replaced with the value's
 * type, so the typed getter later reports "wrong type" or "out of range"
 * against the key's contract instead of this function guessing. A failure may
 * leave groups created along the path; every caller discards the reader on
 * error, so that is never seen. */
int cfg_override(cfg_reader *r, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char key[512], sbuf[512], tok[128];
    const char *val, *p, *sv = NULL;
    long long iv = 0;
    double dv = 0;
    int bv = 0, kind;
    config_setting_t *cur = config_root_setting(&r->cfg);
    cfg_ov_list *l = cfg_ov_list_get(r);

    if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof key)
        return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                           "override '%s': expected KEY=VALUE, e.g. "
                           "simulation.seed=7",
                           kv);
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = '\0';
    val = eq + 1;
    kind = ov_classify(val, &iv, &dv, &bv, &sv, sbuf, sizeof sbuf);
    p = key;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t k = dot ? (size_t)(dot - p) : strlen(p);
        int last = dot == NULL;
        config_setting_t *next;

        if (k == 0 || k >= sizeof tok)
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: malformed key path (expected names and "
                               "[N] joined by '.')",
                               key);
        memcpy(tok, p, k);
        tok[k] = '\0';
        if (tok[0] == '[') {
            char *e;
            long idx = strtol(tok + 1, &e, 10);
            if (e == tok + 1 || strcmp(e, "]") != 0 || idx < 0)
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: bad index '%s' (expected [N])", key,
                                   tok);
            if (!config_setting_is_aggregate(cur) ||
                config_setting_is_group(cur))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: '%s' indexes something that is not "
                                   "a list",
                                   key, tok);
            next = config_setting_get_elem(cur, (unsigned)idx);
            if (!next)
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: index %ld out of range (got %ld, "
                                   "expected 0..%d)",
                                   key, idx, idx,
                                   config_setting_length(cur) - 1);
        } else {
            if (!config_setting_is_group(cur))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: '%s' is inside something that is "
                                   "not a group",
                                   key, tok);
            next = config_setting_get_member(cur, tok);
            if (!next) {
                next = config_setting_add(
                    cur, tok, last ? ov_type(kind) : CONFIG_TYPE_GROUP);
                if (!next)
                    return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                       "%s: '%s' is not a valid key name", key,
                                       tok);
                if (last)
                    ov_set(next, kind, iv, dv, bv, sv);
                if (l->n < CFG_MAX_OVERRIDDEN)
                    l->s[l->n++] = next;
                if (last)
                    return SIM_OK;
            }
        }
        cur = next;
        p = last ? p + k : dot + 1;
    }
    /* cur is an existing setting: keep its kind where the value allows. */
    {
        int t = config_setting_type(cur);
        int ok = 0;
        if (config_setting_is_aggregate(cur))
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: is %s; set one of its keys instead", key,
                               cfg_type_name(t));
        /* A string setting takes the value's text as written when it is not
         * quoted, so "--set site.name=reno" needs no shell-escaped quotes. */
        if (t == CONFIG_TYPE_STRING)
            ok = config_setting_set_string(cur, kind == OV_STRING ? sv : val);
        else if (t == CONFIG_TYPE_FLOAT && kind <= OV_FLOAT)
            ok = config_setting_set_float(cur, dv);
        else if (t == CONFIG_TYPE_INT && kind == OV_INT)
            ok = config_setting_set_int(cur, (int)iv);
        else if (t == CONFIG_TYPE_INT64 && (kind == OV_INT || kind == OV_INT64))
            ok = config_setting_set_int64(cur, iv);
        else if (t == CONFIG_TYPE_BOOL && kind == OV_BOOL)
            ok = config_setting_set_bool(cur, bv);
        else {
            /* A kind change (int -> float, ...): replace the member. */
            config_setting_t *parent = config_setting_parent(cur);
            const char *name = config_setting_name(cur);
            char nm[128];
            if (!name || !config_setting_is_group(parent))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: cannot change an element's type "
                                   "(got %s, expected %s)",
                                   key, val, cfg_type_name(t));
            snprintf(nm, sizeof nm, "%s", name);
            config_setting_remove(parent, nm);
            cur = config_setting_add(parent, nm, ov_type(kind));
            ok = cur && ov_set(cur, kind, iv, dv, bv, sv);
        }
        if (!ok)
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: cannot set to '%s'", key, val);
        if (l->n < CFG_MAX_OVERRIDDEN)
            l->s[l->n++] = cur;
    }
    return SIM_OK;
}

/* The resolved configuration (file plus overrides, includes expanded) is stored
 * with every run and hashed into a sweep's key, so it is written by libconfig
 * itself: the same tree always gives the same text. */
char *cfg_write_text(const cfg_reader *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    config_write(&r->cfg, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
