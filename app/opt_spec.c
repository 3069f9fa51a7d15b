/* app/opt_spec.c: objective and constraint texts (see opt_spec.h). The
 * statistic is the text after the last '.', so a metric whose job name
 * has dots ("llama3.1-8b.time_to_train_days.p50") still parses; the
 * metric itself is resolved later against the scenario's jobs. */
#include "app/opt_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const opt_stat_names[4] = {"mean", "p10", "p50", "p90"};

double opt_spec_stat(const stat_summary *s, int stat)
{
    return stat == OPT_STAT_MEAN  ? s->mean
           : stat == OPT_STAT_P10 ? s->p10
           : stat == OPT_STAT_P50 ? s->p50
                                  : s->p90;
}

/* "METRIC.STAT" in s[0..len-1] into q->metric and q->stat; 0 or -1. */
static int metric_stat(const char *s, size_t len, opt_spec *q)
{
    const char *dot = NULL;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.')
            dot = s + i;
    if (!dot || dot == s || (size_t)(dot - s) >= sizeof q->metric)
        return -1;
    for (int k = 0; k < 4; k++)
        if (strlen(opt_stat_names[k]) == (size_t)(s + len - dot - 1) &&
            strncmp(dot + 1, opt_stat_names[k], strlen(opt_stat_names[k])) ==
                0) {
            q->stat = k;
            memcpy(q->metric, s, (size_t)(dot - s));
            q->metric[dot - s] = '\0';
            return 0;
        }
    return -1;
}

int opt_spec_objective(const char *s, opt_spec *q, char *why, size_t n)
{
    const char *m = s;
    memset(q, 0, sizeof *q);
    if (strncmp(s, "max:", 4) == 0 || strncmp(s, "min:", 4) == 0) {
        q->maximise = s[1] == 'a';
        m = s + 4;
    }
    if (metric_stat(m, strlen(m), q) < 0) {
        snprintf(why, n,
                 "--objective %s: expected [max:]METRIC.STAT with STAT one "
                 "of mean, p10, p50, p90",
                 s);
        return -1;
    }
    return 0;
}

int opt_spec_constraint(const char *s, opt_spec *q, char *why, size_t n)
{
    const char *op = strstr(s, "<="), *ge = strstr(s, ">=");
    char *end = NULL;
    size_t len;
    memset(q, 0, sizeof *q);
    if (!op || (ge && ge < op))
        op = ge;
    if (!op || op == s) {
        snprintf(why, n,
                 "--constraint: expected 'METRIC.STAT<=VALUE' or "
                 "'METRIC.STAT>=VALUE' (got '%s')",
                 s);
        return -1;
    }
    q->ge = op[0] == '>';
    q->bound = strtod(op + 2, &end);
    while (end != op + 2 && *end == ' ') /* 'M.S <= 3 ' is 'M.S<=3' */
        end++;
    if (end == op + 2 || *end || !isfinite(q->bound)) {
        snprintf(why, n,
                 "--constraint %s: the bound is not a finite number (got "
                 "'%s')",
                 s, op + 2);
        return -1;
    }
    len = (size_t)(op - s);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    if (metric_stat(s, len, q) < 0) {
        snprintf(why, n,
                 "--constraint %s: expected METRIC.STAT with STAT one of "
                 "mean, p10, p50, p90",
                 s);
        return -1;
    }
    return 0;
}
