/* io/json.c: the jansson adapter (see json.h). A jv is a json_t. */
#include "io/json.h"

#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "sim/err.h"

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
