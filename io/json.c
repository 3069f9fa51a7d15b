/* io/json.c: the jansson adapter (see json.h). A jv is a json_t.
 *
 * This is the only file that includes <jansson.h> (STYLE.md 6.1: each
 * third-party library in exactly one .c), so the rest of the tree builds JSON
 * through jv_* and a change of library touches one file. It owns the number
 * format of every JSON document the tool writes, which is why byte-identical
 * run output depends on it. It must never write anything but the document it is
 * given (no timestamps, no paths) and never turn a NaN or infinity into a
 * number: JSON has none, so they become null. */
#include "io/json.h"

#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "sim/err.h"

/* jv is an opaque type in json.h, so callers cannot reach jansson; the casts
 * live only here. */
#define J(v) ((json_t *)(v))
#define V(j) ((jv *)(j))
#define CJ(v) ((const json_t *)(v))

jv *jv_obj(void)
{
    return V(json_object());
}
jv *jv_arr(void)
{
    return V(json_array());
}
/* null for NaN and infinities: jansson refuses them (json_real returns NULL),
 * and an unfinished job's time_to_train is NaN by design. */
jv *jv_num(double x)
{
    return isfinite(x) ? V(json_real(x)) : V(json_null());
}
jv *jv_int(int64_t x)
{
    return V(json_integer((json_int_t)x));
}
jv *jv_str(const char *s)
{
    return s ? V(json_string(s)) : V(json_null());
}
jv *jv_bool(int b)
{
    return V(json_boolean(b));
}
jv *jv_null(void)
{
    return V(json_null());
}

/* The _new variants steal the reference, so builders can nest calls (jv_set(o,
 * "k", jv_num(x))) without a leak; both return their container for the same
 * reason. */
jv *jv_set(jv *obj, const char *key, jv *v)
{
    json_object_set_new(J(obj), key, J(v));
    return obj;
}

jv *jv_push(jv *arr, jv *v)
{
    json_array_append_new(J(arr), J(v));
    return arr;
}

static size_t flags(int pretty)
{
    /* 15 digits: no 0.30000000000000004 noise; indent 0 keeps one line
     * with ", " and ": " separators. */
    return JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
           (pretty ? JSON_INDENT(2) : 0);
}

char *jv_dumps(const jv *v, int pretty)
{
    return json_dumps(J(v), flags(pretty));
}

/* The trailing newline makes the output a proper text file (and a line for
 * tools like jq -c); a failed fputs is reported so that a full disk does not
 * pass as a written document. */
int jv_write(const jv *v, FILE *f, int pretty)
{
    char *s = jv_dumps(v, pretty);
    int rc = SIM_OK;
    if (!s || fputs(s, f) == EOF || fputc('\n', f) == EOF)
        rc = SIM_EIO;
    free(s);
    return rc;
}

void jv_free(jv *v)
{
    if (v)
        json_decref(J(v));
}

/* Used by the tests to read back what the tool wrote. JSON_DECODE_ANY
 * accepts any value at the top, not only an object or array, and
 * JSON_ALLOW_NUL accepts "\u0000" inside strings, so the reader is no
 * stricter than jansson's writer. */
int jv_parse(const char *text, jv **out, sim_err *err)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    *out = NULL;
    if (!j)
        return sim_err_set(err, SIM_ECONFIG, NULL, e.line,
                           "line %d, column %d: %s", e.line, e.column, e.text);
    *out = V(j);
    return SIM_OK;
}

const jv *jv_get(const jv *obj, const char *key)
{
    return json_is_object(CJ(obj)) ? (const jv *)json_object_get(CJ(obj), key)
                                   : NULL;
}

const jv *jv_at(const jv *arr, size_t i)
{
    return json_is_array(CJ(arr)) ? (const jv *)json_array_get(CJ(arr), i)
                                  : NULL;
}

size_t jv_len(const jv *v)
{
    if (json_is_array(CJ(v)))
        return json_array_size(CJ(v));
    if (json_is_object(CJ(v)))
        return json_object_size(CJ(v));
    return 0;
}

/* null reads back as NaN, the inverse of jv_num, so a document written and read
 * again keeps its unfinished jobs as NaN. */
int jv_number(const jv *v, double *x)
{
    if (json_is_null(CJ(v))) {
        *x = NAN;
        return 1;
    }
    if (!json_is_number(CJ(v)))
        return 0;
    *x = json_number_value(CJ(v));
    return 1;
}

const char *jv_string(const jv *v)
{
    return json_is_string(CJ(v)) ? json_string_value(CJ(v)) : NULL;
}
