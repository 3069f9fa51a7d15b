/* io/cfg_get.c: the typed getters of the libconfig reader (contract in
 * io/cfg.h): each reads one key of a group, checks its type and range, and
 * reports a failure as "FILE:LINE: key.path: message (got X, expected Y)"
 * through cfg_fail. Split from io/cfg.c (file reading and messages) because
 * the getters are the part that grows with every new kind of value; they
 * must never decide a default, range or unit themselves: callers pass them
 * (from models/scenkeys.c). The 32-bit integer check needs the literal as
 * written, so it reads the cached source text through cfg_file_get. */
#include "io/cfg_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names as a user would write the value ("a group { }", "an array [ ]"), so a
 * "wrong type" message shows the syntax that was expected. */
const char *cfg_type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP:
        return "a group { }";
    case CONFIG_TYPE_INT:
        return "an integer";
    case CONFIG_TYPE_INT64:
        return "a 64-bit integer";
    case CONFIG_TYPE_FLOAT:
        return "a float";
    case CONFIG_TYPE_STRING:
        return "a string";
    case CONFIG_TYPE_BOOL:
        return "a boolean";
    case CONFIG_TYPE_ARRAY:
        return "an array [ ]";
    case CONFIG_TYPE_LIST:
        return "a list ( )";
    default:
        return "nothing";
    }
}

/* The integer literal written for s, from its source line: 0 when it could be
 * checked and fits in 32 bits or carries an L, 1 when it overflowed (*lit = the
 * literal as written). Unknown source: 0. libconfig 1.5 parses an integer
 * literal into an int without checking for overflow, so 3000000000 arrives as a
 * negative number with no error. The only place the original text survives is
 * the file, so the setting's source line is scanned for "name = literal" and
 * the literal re-parsed. Anything that cannot be located (an override, a list
 * element without a name) is assumed fine; cfg_double and cfg_int add a hint
 * for negative values in ranges that exclude them, which catches most of those.
 */
static int int_literal_wrapped(cfg_reader *r, const config_setting_t *s,
                               char *lit, size_t n)
{
    char fb[1200];
    const char *fname =
        cfg_resolve(r, config_setting_source_file(s), fb, sizeof fb);
    const char *name = config_setting_name(s);
    unsigned line = config_setting_source_line(s);
    struct cfg_file *f;
    const char *p, *end;

    if (!fname || line == 0 || !name || cfg_is_overridden(r, s))
        return 0;
    f = cfg_file_get(r, fname);
    if (!f->text || line > f->n_lines)
        return 0;
    p = f->text + f->line_off[line - 1];
    end = strchr(p, '\n');
    if (!end)
        end = p + strlen(p);
    for (const char *q = p; q < end; q++) {
        size_t k = strlen(name);
        const char *v;
        /* The name must start a word (not "gpus" inside "n_gpus") and be
         * followed by = or :, libconfig's two assignment forms. */
        if (strncmp(q, name, k) != 0 ||
            (q > p &&
             (isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '-')))
            continue;
        v = q + k;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        if (v >= end || (*v != '=' && *v != ':'))
            continue;
        v++;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        {
            const char *t = v;
            char *e;
            unsigned long long u;
            if (*t == '-' || *t == '+')
                t++;
            errno = 0;
            u = strtoull(t, &e, 0);
            if (e == t || *e == 'L' || *e == '.' || *e == 'e' || *e == 'E')
                return 0;
            if (errno == ERANGE || u > 2147483647ull) {
                size_t w = (size_t)(e - v);
                if (w >= n)
                    w = n - 1;
                memcpy(lit, v, w);
                lit[w] = '\0';
                return 1;
            }
            return 0;
        }
    }
    return 0;
}

/* Integers of either width and floats are all numbers here; the 32-bit wrap
 * check runs before the value is used, because after the wrap the value can
 * fall inside the range and pass every later check. */
static int get_number(cfg_reader *r, const config_setting_t *g, const char *key,
                      const config_setting_t *m, double *v)
{
    int t = config_setting_type(m);
    char lit[64];

    if (t == CONFIG_TYPE_INT) {
        if (int_literal_wrapped(r, m, lit, sizeof lit))
            return cfg_fail(r, g, key,
                            "integer %s does not fit in 32 bits "
                            "and libconfig 1.5 silently truncated it to %d "
                            "(got %s, expected %sL or a float such as %s.0)",
                            lit, config_setting_get_int(m), lit, lit, lit);
        *v = (double)config_setting_get_int(m);
    } else if (t == CONFIG_TYPE_INT64) {
        *v = (double)config_setting_get_int64(m);
    } else if (t == CONFIG_TYPE_FLOAT) {
        *v = config_setting_get_float(m);
    } else {
        return cfg_fail(r, g, key, "wrong type (got %s, expected a number)",
                        cfg_type_name(t));
    }
    return SIM_OK;
}

/* scale converts the file's unit to SI at the boundary (MW -> W, hours -> s):
 * ranges are checked in the file's unit, the one the user wrote and the message
 * repeats, and only the stored value is scaled. */
int cfg_double(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, double def, double lo, double hi, double scale,
               double *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    double v = 0;
    int rc;

    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected a number in "
                            "[%g, %g])",
                            lo, hi);
        *out = def * scale;
        return SIM_OK;
    }
    if ((rc = get_number(r, g, key, m, &v)) != SIM_OK)
        return rc;
    if (!isfinite(v))
        return cfg_fail(r, m, NULL,
                        "not a finite number (got %g, expected "
                        "a number in [%g, %g])",
                        v, lo, hi);
    if (v < lo || v > hi) {
        if (v < 0 && lo >= 0 && config_setting_type(m) == CONFIG_TYPE_INT)
            return cfg_fail(r, m, NULL,
                            "out of range (got %g, expected "
                            "[%g, %g]; a negative integer here may be a "
                            "32-bit overflow: write large values with an L "
                            "suffix or as a float)",
                            v, lo, hi);
        return cfg_fail(r, m, NULL,
                        "out of range (got %g, expected [%g, "
                        "%g])",
                        v, lo, hi);
    }
    *out = v * scale;
    return SIM_OK;
}

/* A float with a whole value is accepted (1e6 for a token count reads
 * naturally), but only below 9e18 so that the cast to long long is defined. */
int cfg_int(cfg_reader *r, const config_setting_t *g, const char *key,
            int required, long long def, long long lo, long long hi,
            long long *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    long long v;
    int t;
    char lit[64];

    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected an integer "
                            "in [%lld, %lld])",
                            lo, hi);
        *out = def;
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t == CONFIG_TYPE_INT) {
        if (int_literal_wrapped(r, m, lit, sizeof lit))
            return cfg_fail(r, m, NULL,
                            "integer %s does not fit in 32 bits "
                            "and libconfig 1.5 silently truncated it to %d "
                            "(got %s, expected %sL or a float such as %s.0)",
                            lit, config_setting_get_int(m), lit, lit, lit);
        v = config_setting_get_int(m);
    } else if (t == CONFIG_TYPE_INT64) {
        v = config_setting_get_int64(m);
    } else if (t == CONFIG_TYPE_FLOAT) {
        double d = config_setting_get_float(m);
        if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e18)
            return cfg_fail(r, m, NULL,
                            "not a whole number (got %g, "
                            "expected an integer in [%lld, %lld])",
                            d, lo, hi);
        v = (long long)d;
    } else {
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected an "
                        "integer)",
                        cfg_type_name(t));
    }
    if (v < lo || v > hi) {
        if (v < 0 && lo >= 0 && t == CONFIG_TYPE_INT)
            return cfg_fail(r, m, NULL,
                            "out of range (got %lld, expected "
                            "[%lld, %lld]; a negative integer here may be a "
                            "32-bit overflow: write large values with an L "
                            "suffix or as a float)",
                            v, lo, hi);
        return cfg_fail(r, m, NULL,
                        "out of range (got %lld, expected "
                        "[%lld, %lld])",
                        v, lo, hi);
    }
    *out = v;
    return SIM_OK;
}

/* 0 and 1 are accepted as booleans because --set passes numbers through
 * unchanged, and "--set x=1" is what users type. */
int cfg_bool(cfg_reader *r, const config_setting_t *g, const char *key,
             int required, int def, int *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    int t;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected true or "
                            "false)");
        *out = def;
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t == CONFIG_TYPE_BOOL) {
        *out = config_setting_get_bool(m);
        return SIM_OK;
    }
    if (t == CONFIG_TYPE_INT) {
        int v = config_setting_get_int(m);
        if (v == 0 || v == 1) {
            *out = v;
            return SIM_OK;
        }
        return cfg_fail(r, m, NULL,
                        "not a boolean (got %d, expected true, "
                        "false, 0 or 1)",
                        v);
    }
    return cfg_fail(r, m, NULL,
                    "wrong type (got %s, expected true or "
                    "false)",
                    cfg_type_name(t));
}

/* A string that does not fit is an error, not a truncation: names are used as
 * keys (jobs, modules, catalog entries), and two long names cut to the same
 * prefix would silently refer to one thing. */
int cfg_string(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, const char *def, char *buf, size_t n)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    const char *s;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key, "missing key (expected a string)");
        /* def may be buf itself (a catalog override keeping the entry's
         * value): copying a string onto itself with snprintf is undefined
         * and glibc empties it, which made an override without `id` fail. */
        if (def != buf)
            snprintf(buf, n, "%s", def ? def : "");
        return SIM_OK;
    }
    if (config_setting_type(m) != CONFIG_TYPE_STRING)
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected a string "
                        "in double quotes)",
                        cfg_type_name(config_setting_type(m)));
    s = config_setting_get_string(m);
    if (strlen(s) >= n)
        return cfg_fail(r, m, NULL,
                        "too long (got %zu characters, expected "
                        "at most %zu)",
                        strlen(s), n - 1);
    snprintf(buf, n, "%s", s);
    return SIM_OK;
}

/* Case-insensitive, like source and precision names, because choices are typed
 * by hand; the message lists the choices in table order so the user sees the
 * same list as the scenario reference. */
int cfg_choice(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, int def, const char *const *choices, int *out)
{
    char v[64], list[512];
    size_t used = 0;
    int rc = cfg_string(r, g, key, required, NULL, v, sizeof v);
    config_setting_t *m;

    if (rc != SIM_OK)
        return rc;
    m = g ? config_setting_get_member(g, key) : NULL;
    if (!m) {
        *out = def;
        return SIM_OK;
    }
    list[0] = '\0';
    for (int i = 0; choices[i]; i++) {
        int w;
        if (strcasecmp(choices[i], v) == 0) {
            *out = i;
            return SIM_OK;
        }
        w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "",
                     choices[i]);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
    }
    return cfg_fail(r, m, NULL,
                    "unknown value (got \"%s\", expected one "
                    "of: %s)",
                    v, list);
}

/* An empty list "()" and an empty array "[]" are indistinguishable to a user,
 * and libconfig types them differently; an empty array is accepted where a list
 * is expected so that "jobs = []" means no jobs. */
int cfg_member(cfg_reader *r, const config_setting_t *g, const char *key,
               int type, int required, config_setting_t **out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    *out = NULL;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key, "missing key (expected %s)",
                            cfg_type_name(type));
        return SIM_OK;
    }
    if (config_setting_type(m) != type &&
        !(type == CONFIG_TYPE_LIST &&
          config_setting_type(m) == CONFIG_TYPE_ARRAY &&
          config_setting_length(m) == 0))
        return cfg_fail(r, m, NULL, "wrong type (got %s, expected %s)",
                        cfg_type_name(config_setting_type(m)),
                        cfg_type_name(type));
    *out = m;
    return SIM_OK;
}

/* n > 0 asks for exactly n values (12 months, 24 hours); n == 0 accepts up to
 * cap, for tables whose length is the user's (power curves). */
int cfg_doubles(cfg_reader *r, const config_setting_t *g, const char *key,
                int required, size_t n, size_t cap, double lo, double hi,
                double scale, double *out, size_t *n_out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    int t, len;

    if (n_out)
        *n_out = 0;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected an array of "
                            "%zu numbers)",
                            n);
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected an array "
                        "[ ] of numbers)",
                        cfg_type_name(t));
    len = config_setting_length(m);
    if ((n && (size_t)len != n) || (!n && (size_t)len > cap))
        return cfg_fail(r, m, NULL,
                        "wrong length (got %d values, expected "
                        "%zu)",
                        len, n ? n : cap);
    for (int i = 0; i < len; i++) {
        config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
        double v;
        int te = config_setting_type(e);
        if (te == CONFIG_TYPE_INT)
            v = config_setting_get_int(e);
        else if (te == CONFIG_TYPE_INT64)
            v = (double)config_setting_get_int64(e);
        else if (te == CONFIG_TYPE_FLOAT)
            v = config_setting_get_float(e);
        else
            return cfg_fail(r, e, NULL,
                            "wrong type (got %s, expected a "
                            "number)",
                            cfg_type_name(te));
        if (!isfinite(v) || v < lo || v > hi)
            return cfg_fail(r, e, NULL,
                            "out of range (got %g, expected "
                            "[%g, %g])",
                            v, lo, hi);
        out[i] = v * scale;
    }
    if (n_out)
        *n_out = (size_t)len;
    return SIM_OK;
}

/* Strict "YYYY-MM-DD" with every digit present and the day checked against the
 * month, because dates place events on the simulation's calendar (start,
 * commissioning and submit dates); 1900..2200 bounds the years to ones a plan
 * could mean. */
int cfg_parse_date(const char *s, int64_t *days)
{
    int y, m, d, k = 0;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
    int leap, dim;
    int64_t yy, era, yoe, doy, doe;
    unsigned mm;

    if (!s || strlen(s) != 10 ||
        sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &k) != 3 || k != 10 ||
        s[4] != '-' || s[7] != '-')
        return -1;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return -1;
    if (y < 1900 || y > 2200 || m < 1 || m > 12)
        return -1;
    leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    dim = mdays[m - 1] + (m == 2 && leap);
    if (d < 1 || d > dim)
        return -1;
    /* days_from_civil (H. Hinnant's public-domain algorithm). */
    yy = m <= 2 ? y - 1 : y;
    era = yy / 400;
    yoe = yy - era * 400;
    mm = (unsigned)m;
    doy = (153 * (int64_t)(mm > 2 ? mm - 3 : mm + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe - 719468;
    return 0;
}
