/* io/json.h: JSON values for machine-readable output, over jansson (the only
 * file that includes <jansson.h> is io/json.c).
 *
 * Objects keep their keys in insertion order, and reals print with 15
 * significant digits (%.15g: readable, and every decimal of up to 15 digits
 * prints as written), so the same results give the same bytes. Setting or
 * pushing a value passes ownership to the container. NaN and infinities print
 * as null (JSON has neither).
 */
#ifndef IO_JSON_H
#define IO_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"

typedef struct jv jv;

jv *jv_obj(void);
jv *jv_arr(void);
jv *jv_num(double x); /* null when x is not finite */
jv *jv_int(int64_t x);
jv *jv_str(const char *s); /* copies s; NULL gives null */
jv *jv_bool(int b);
jv *jv_null(void);

/* Sets obj[key] = v, taking v. Returns obj. */
jv *jv_set(jv *obj, const char *key, jv *v);
/* Appends v to arr, taking v. Returns arr. */
jv *jv_push(jv *arr, jv *v);

/* Writes v to f: on one line when pretty is 0 ("a": 1, "b": 2 spacing),
 * indented by 2 otherwise, followed by a newline. Returns 0 or SIM_EIO. */
int jv_write(const jv *v, FILE *f, int pretty);

/* The same text in a malloc'd string (caller frees), or NULL. */
char *jv_dumps(const jv *v, int pretty);

/* Reading JSON back (tests, imports). */

/* Parses text into a value (caller frees with jv_free). Errors: SIM_ECONFIG
 * with "line L, column C: reason" (err->line is L). */
int jv_parse(const char *text, jv **out /* OUT */, sim_err *err);

/* obj[key], or NULL when obj is not an object or has no such key. The
 * result belongs to obj. */
const jv *jv_get(const jv *obj, const char *key);

/* arr[i], or NULL when out of range or arr is not an array. */
const jv *jv_at(const jv *arr, size_t i);

/* Elements of an array or members of an object, 0 otherwise. */
size_t jv_len(const jv *v);

/* The number v holds (integer or real) into *x; 0 if v is not a number
 * (null gives NAN and returns 1, as jv_num writes NAN as null). */
int jv_number(const jv *v, double *x /* OUT */);

/* The string v holds, or NULL when v is not a string. Belongs to v. */
const char *jv_string(const jv *v);

/* Frees v and everything it holds. jv_free(NULL) is a no-op. */
void jv_free(jv *v);

#endif
