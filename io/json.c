/* io/json.c: the jansson adapter (see json.h). A jv is a json_t. */
#include "io/json.h"

#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "sim/err.h"

#define J(v) ((json_t *)(v))
#define V(j) ((jv *)(j))

jv *jv_obj(void) { return V(json_object()); }
jv *jv_arr(void) { return V(json_array()); }
jv *jv_num(double x) { return isfinite(x) ? V(json_real(x)) : V(json_null()); }
jv *jv_int(int64_t x) { return V(json_integer((json_int_t)x)); }
jv *jv_str(const char *s) { return s ? V(json_string(s)) : V(json_null()); }
jv *jv_bool(int b) { return V(json_boolean(b)); }
jv *jv_null(void) { return V(json_null()); }

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

char *jv_dumps(const jv *v, int pretty) { return json_dumps(J(v), flags(pretty)); }

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
