/* models/sweep.c: parsing and enumerating a sweep grid (see sweep.h).
 *
 * Storage: each axis owns its canonical value strings; case i is decoded into
 * per-axis value indices by mixed-radix division (last axis fastest), so
 * nothing per case is stored and any case is O(axes) to decode.
 *
 * This file owns the grid's text: how a value is spelled canonically, and so
 * the case keys and the grid text that the sweep key hashes. That spelling is
 * part of the stored format (a resumed sweep finds its cases by key), so it
 * must never depend on how the user wrote a number (0.30 and 0.3 are one
 * value). The file must never load a scenario or check a key's meaning: values
 * reach the scenario loader as --set overrides, which is where ranges and types
 * are checked, so `sweep` and `run --set` accept exactly the same values. */
#include "models/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

/* Parses all of s as a finite decimal number. Returns 1 on success. A trailing
 * 'L' (libconfig's 64-bit integer mark) makes it not a number. Plain strtod
 * over the whole string: "1e3" and "0x10" are numbers, as they are for
 * libconfig; a trailing unit ("10kW") is text and is refused later by the
 * loader with the key's own message. */
static int parse_number(const char *s, double *out)
{
    char *e;
    double v;
    if (!*s)
        return 0;
    errno = 0;
    v = strtod(s, &e);
    if (e == s || *e != '\0' || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Parses a libconfig 64-bit integer literal "12L". Returns 1 on success. Kept
 * apart from parse_number because the value must reach libconfig as written:
 * the L marks a 64-bit integer setting, and dropping it would change the
 * setting's type and so what the loader accepts. */
static int parse_long_literal(const char *s, double *out)
{
    char buf[32], *e;
    size_t k = strlen(s);
    long long v;
    if (k < 2 || k > sizeof buf || s[k - 1] != 'L')
        return 0;
    memcpy(buf, s, k - 1);
    buf[k - 1] = '\0';
    errno = 0;
    v = strtoll(buf, &e, 10);
    if (e == buf || *e != '\0' || errno == ERANGE)
        return 0;
    *out = (double)v;
    return 1;
}

/* Canonical text of number v: %.15g (every decimal of up to 15 significant
 * digits prints as written; 0.1*3 prints 0.3), with "-0" made "0". 15
 * significant digits, not 17: 17 would print 0.1 + 0.2 as 0.30000000000000004,
 * and a range's computed values would then differ from the same values given as
 * a list. Distinct decimals entered with up to 15 digits stay distinct. */
static char *number_text(double v)
{
    char buf[64];
    if (v == 0)
        v = 0; /* -0 -> 0 */
    snprintf(buf, sizeof buf, "%.15g", v);
    return sim_xstrdup(buf);
}

/* The three parallel arrays grow together so that value i, its kind and its
 * number always share an index. */
static void axis_push(sweep_axis *a, size_t *cap, char *text, sweep_kind k,
                      double num)
{
    if (a->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        a->values = sim_xrealloc(a->values, *cap * sizeof *a->values);
        a->kinds = sim_xrealloc(a->kinds, *cap * sizeof *a->kinds);
        a->numbers = sim_xrealloc(a->numbers, *cap * sizeof *a->numbers);
    }
    a->values[a->n] = text;
    a->kinds[a->n] = k;
    a->numbers[a->n] = num;
    a->n++;
}

static void axis_free(sweep_axis *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->values[i]);
    free(a->values);
    free(a->kinds);
    free(a->numbers);
    free(a->key);
}

/* Fills a from the range "LO:HI:STEP" (already split at the colons). */
static int parse_range(sweep_axis *a, const char *lo_s, const char *hi_s,
                       const char *st_s, sim_err *err)
{
    double lo, hi, step, span;
    size_t n, cap = 0;
    if (!parse_number(lo_s, &lo) || !parse_number(hi_s, &hi) ||
        !parse_number(st_s, &step))
        return sim_err_set(
            err, SIM_EUSAGE, "--set", 0,
            "%s: bad range '%s:%s:%s' (expected LO:HI:STEP, three "
            "finite numbers)",
            a->key, lo_s, hi_s, st_s);
    if (step <= 0)
        return sim_err_set(
            err, SIM_EUSAGE, "--set", 0,
            "%s: range step must be > 0 (got %s, expected LO:HI:STEP "
            "with STEP > 0)",
            a->key, st_s);
    if (hi < lo)
        return sim_err_set(
            err, SIM_EUSAGE, "--set", 0,
            "%s: range end below its start (got %s:%s, expected HI >= LO)",
            a->key, lo_s, hi_s);
    /* The count tolerates rounding in (HI-LO)/STEP: 0.3/0.1 is
     * 2.9999999999999996, and 0.1:0.4:0.1 must still give four values. */
    span = (hi - lo) / step;
    if (span > (double)SWEEP_MAX_VALUES)
        return sim_err_set(
            err, SIM_EUSAGE, "--set", 0,
            "%s: range has too many values (got %.0f, expected <= %d)", a->key,
            floor(span + 1e-9) + 1, SWEEP_MAX_VALUES);
    /* 1e-9 of a step is far below any step a user would write and far above the
     * rounding of (HI - LO) / STEP, so the end point is included exactly when
     * it was meant to be. */
    n = (size_t)floor(span + 1e-9) + 1;
    for (size_t i = 0; i < n; i++) {
        /* lo + i * step rather than repeated addition, so rounding does not
         * grow along the axis. */
        double v = lo + (double)i * step;
        if (v > hi) /* within the tolerance above: the end point itself */
            v = hi;
        axis_push(a, &cap, number_text(v), SWEEP_NUMBER, v);
    }
    return SIM_OK;
}

/* Fills a from the list "V1,V2,...". */
static int parse_list(sweep_axis *a, const char *list, sim_err *err)
{
    size_t cap = 0;
    const char *p = list;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t k = c ? (size_t)(c - p) : strlen(p);
        char *v = sim_xmalloc(k + 1);
        double num;
        memcpy(v, p, k);
        v[k] = '\0';
        if (k == 0) {
            free(v);
            return sim_err_set(
                err, SIM_EUSAGE, "--set", 0,
                "%s: empty value in '%s' (expected V1,V2,... or LO:HI:STEP)",
                a->key, list);
        }
        if (a->n >= SWEEP_MAX_VALUES) {
            free(v);
            return sim_err_set(err, SIM_EUSAGE, "--set", 0,
                               "%s: too many values (expected <= %d)", a->key,
                               SWEEP_MAX_VALUES);
        }
        if (parse_long_literal(v, &num)) {
            /* 12L: libconfig's 64-bit integer, kept as written. */
            axis_push(a, &cap, v, SWEEP_NUMBER, num);
        } else if (parse_number(v, &num)) {
            axis_push(a, &cap, number_text(num), SWEEP_NUMBER, num);
            free(v);
        } else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
            axis_push(a, &cap, v, SWEEP_BOOL, NAN);
        } else {
            axis_push(a, &cap, v, SWEEP_TEXT, NAN);
        }
        if (!c)
            break;
        p = c + 1;
    }
    return SIM_OK;
}

/* Parses one "KEY=..." into a (zeroed by the caller). A value with one colon
 * ("12:00") or three is refused rather than read as text, because it is almost
 * always a mistyped range; a string that really holds colons can be quoted. */
static int parse_axis(sweep_axis *a, const char *spec, sim_err *err)
{
    const char *eq = strchr(spec, '=');
    const char *val;
    if (!eq || eq == spec)
        return sim_err_set(err, SIM_EUSAGE, "--set", 0,
                           "'%s': expected KEY=V1,V2,... or KEY=LO:HI:STEP",
                           spec);
    a->key = sim_xmalloc((size_t)(eq - spec) + 1);
    memcpy(a->key, spec, (size_t)(eq - spec));
    a->key[eq - spec] = '\0';
    val = eq + 1;
    if (!*val)
        return sim_err_set(err, SIM_EUSAGE, "--set", 0,
                           "%s: no value (expected V1,V2,... or LO:HI:STEP)",
                           a->key);
    /* A range has exactly two colons and no comma and does not start with
     * a quote (a quoted string may hold colons). */
    if (val[0] != '"' && !strchr(val, ',')) {
        const char *c1 = strchr(val, ':');
        const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c1 && (!c2 || strchr(c2 + 1, ':')))
            return sim_err_set(err, SIM_EUSAGE, "--set", 0,
                               "%s: bad range '%s' (expected LO:HI:STEP)",
                               a->key, val);
        if (c1) {
            char lo[128], hi[128];
            size_t k1 = (size_t)(c1 - val), k2 = (size_t)(c2 - c1 - 1);
            if (k1 >= sizeof lo || k2 >= sizeof hi)
                return sim_err_set(err, SIM_EUSAGE, "--set", 0,
                                   "%s: bad range '%s' (expected LO:HI:STEP)",
                                   a->key, val);
            memcpy(lo, val, k1);
            lo[k1] = '\0';
            memcpy(hi, c1 + 1, k2);
            hi[k2] = '\0';
            return parse_range(a, lo, hi, c2 + 1, err);
        }
    }
    return parse_list(a, val, err);
}

/* n_axes is raised before each axis is parsed so that sweep_grid_free, on any
 * failure path, frees exactly the axes that were started, including a
 * half-parsed one. Duplicate keys and values are refused because they would
 * produce cases with the same key, which the store treats as one case. */
int sweep_grid_parse(const char *const *specs, size_t n, sweep_grid **out,
                     sim_err *err)
{
    sweep_grid *g = sim_xcalloc(1, sizeof *g);
    int rc = SIM_OK;

    *out = NULL;
    if (n == 0) {
        rc = sim_err_set(
            err, SIM_EUSAGE, "--set", 0,
            "a sweep needs at least one --set KEY=V1,V2,... or KEY=LO:HI:STEP");
        goto fail;
    }
    g->axes = sim_xcalloc(n, sizeof *g->axes);
    g->n_cases = 1;
    for (size_t i = 0; i < n; i++) {
        sweep_axis *a = &g->axes[i];
        g->n_axes = i + 1;
        if ((rc = parse_axis(a, specs[i], err)) != SIM_OK)
            goto fail;
        for (size_t j = 0; j < i; j++)
            if (strcmp(g->axes[j].key, a->key) == 0) {
                rc = sim_err_set(
                    err, SIM_EUSAGE, "--set", 0,
                    "%s: key given twice (give all its values in one --set)",
                    a->key);
                goto fail;
            }
        for (size_t u = 0; u < a->n; u++)
            for (size_t v = 0; v < u; v++)
                if (strcmp(a->values[u], a->values[v]) == 0) {
                    rc = sim_err_set(err, SIM_EUSAGE, "--set", 0,
                                     "%s: value %s given twice", a->key,
                                     a->values[u]);
                    goto fail;
                }
        /* Divided rather than multiplied so that the check itself cannot
         * overflow. */
        if (g->n_cases > SWEEP_MAX_CASES / a->n) {
            rc = sim_err_set(err, SIM_EUSAGE, "--set", 0,
                             "%s: the grid has too many cases (expected <= %d)",
                             a->key, SWEEP_MAX_CASES);
            goto fail;
        }
        g->n_cases *= a->n;
    }
    *out = g;
    return SIM_OK;
fail:
    sweep_grid_free(g);
    return rc;
}

void sweep_grid_free(sweep_grid *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_axes; i++)
        axis_free(&g->axes[i]);
    free(g->axes);
    free(g);
}

/* Last axis fastest, so cases are enumerated like nested loops in the order the
 * axes were given; tables and charts rely on that order to group by the first
 * axis. */
size_t sweep_case_value(const sweep_grid *g, size_t i, size_t a)
{
    /* Mixed radix, last axis fastest. */
    for (size_t k = g->n_axes; k-- > a + 1;)
        i /= g->axes[k].n;
    return i % g->axes[a].n;
}

void sweep_case_overrides(const sweep_grid *g, size_t i, char **ov)
{
    for (size_t a = 0; a < g->n_axes; a++) {
        const sweep_axis *ax = &g->axes[a];
        const char *v = ax->values[sweep_case_value(g, i, a)];
        size_t n = strlen(ax->key) + strlen(v) + 2;
        ov[a] = sim_xmalloc(n);
        snprintf(ov[a], n, "%s=%s", ax->key, v);
    }
}

void sweep_overrides_free(char **ov, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ov[i]);
}

/* The case key is built from the canonical value strings, never from the user's
 * spelling, so that resuming a sweep with 0.30 finds the case stored as 0.3. */
char *sweep_case_key(const sweep_grid *g, size_t i)
{
    size_t len = 1, off = 0;
    char *s;
    for (size_t a = 0; a < g->n_axes; a++)
        len += strlen(g->axes[a].key) +
               strlen(g->axes[a].values[sweep_case_value(g, i, a)]) + 2;
    s = sim_xmalloc(len);
    for (size_t a = 0; a < g->n_axes; a++)
        off += (size_t)snprintf(s + off, len - off, "%s%s=%s", a ? ";" : "",
                                g->axes[a].key,
                                g->axes[a].values[sweep_case_value(g, i, a)]);
    s[off] = '\0';
    return s;
}

char *sweep_grid_text(const sweep_grid *g)
{
    size_t len = 1, off = 0;
    char *s;
    for (size_t a = 0; a < g->n_axes; a++) {
        len += strlen(g->axes[a].key) + 2;
        for (size_t v = 0; v < g->axes[a].n; v++)
            len += strlen(g->axes[a].values[v]) + 1;
    }
    s = sim_xmalloc(len);
    for (size_t a = 0; a < g->n_axes; a++) {
        off += (size_t)snprintf(s + off, len - off, "%s=", g->axes[a].key);
        for (size_t v = 0; v < g->axes[a].n; v++)
            off += (size_t)snprintf(s + off, len - off, "%s%s", v ? "," : "",
                                    g->axes[a].values[v]);
        off += (size_t)snprintf(s + off, len - off, "\n");
    }
    s[off] = '\0';
    return s;
}

int sweep_axis_index(const sweep_grid *g, const char *key)
{
    for (size_t a = 0; a < g->n_axes; a++)
        if (strcmp(g->axes[a].key, key) == 0)
            return (int)a;
    return -1;
}
