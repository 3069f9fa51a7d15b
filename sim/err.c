/* sim/err.c: the error object (see err.h).
 *
 * This file owns the only text that turns a status code into words, and the one
 * format "FILE:LINE: message" that every command prints. It must never print,
 * exit or allocate: it runs on error paths, including the ones reached when
 * memory is short, so every message lives in the fixed buffers of sim_err and
 * is cut (not grown) when too long. Messages are formatted here once, when the
 * error is set, rather than kept as format + arguments, because the arguments
 * (a path, a key) usually die with the caller's stack frame. */
#include "sim/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sim_err_clear(sim_err *e)
{
    /* A NULL error object is allowed so that a caller which does not care about
     * the message can still use the `return sim_err_set(...)` idiom; the code
     * is what matters to control flow. */
    if (!e)
        return;
    e->code = SIM_OK;
    e->line = 0;
    e->file[0] = '\0';
    e->msg[0] = '\0';
}

int sim_err_set(sim_err *e, int code, const char *file, int line,
                const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    e->code = code;
    e->line = line;
    /* snprintf, not strcpy: a path longer than the buffer is truncated, never
     * overflows; the message then still names the start of the path. */
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

/* Three shapes, chosen by what is known: a file and a line (a config key), a
 * file only (an unreadable file, a database), or neither (a usage or numerical
 * error). The bare code name is the last resort so that an error set with an
 * empty message still prints something a user can search for. */
char *sim_err_format(const sim_err *e, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    if (e->file[0] && e->line > 0)
        snprintf(buf, n, "%s:%d: %s", e->file, e->line, e->msg);
    else if (e->file[0])
        snprintf(buf, n, "%s: %s", e->file, e->msg);
    else
        snprintf(buf, n, "%s", e->msg[0] ? e->msg : sim_strerror(e->code));
    return buf;
}

/* The strings are short nouns, not sentences, because they are only shown when
 * the caller set no message of its own; the specific message always wins. */
const char *sim_strerror(int code)
{
    switch (code) {
    case SIM_CONTINUE:
        return "not finished";
    case SIM_OK:
        return "success";
    case SIM_EINVAL:
        return "invalid argument";
    case SIM_ECONFIG:
        return "configuration error";
    case SIM_EIO:
        return "input/output error";
    case SIM_ENOTFOUND:
        return "not found";
    case SIM_ENUMERIC:
        return "numerical failure";
    case SIM_EUSAGE:
        return "usage error";
    case SIM_EINTR:
        return "interrupted";
    default:
        return "unknown error";
    }
}
