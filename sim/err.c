/* sim/err.c: the error object (see err.h). */
#include "sim/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sim_err_clear(sim_err *e)
{
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
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

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
