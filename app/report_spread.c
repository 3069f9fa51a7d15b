/* app/report_spread.c: the cells and sentences of report_spread.h. It
 * owns the display of stored spread figures (percent, days, MWh) and
 * must never compute a share: the interaction remainder is 1 minus the
 * sum of the stored shares, exactly as `run --variance-decomposition`
 * prints it (app/vardecomp.c), and nothing else is derived here. */
#include "app/report_spread.h"

#include <math.h>
#include <string.h>

#include "app/vardecomp.h"

/* The share columns follow vd_source_name's order (app/vardecomp.h), the
 * stored `source` values, so a source added there is a compile-time
 * mismatch with REPORT_SPREAD_COLS here rather than a silent gap. */
_Static_assert(REPORT_SPREAD_COLS == 5 + VD_N,
               "one share column per variance source");

const char *const report_spread_head[REPORT_SPREAD_COLS + 1] = {
    "job",
    "finished",
    "mean [days]",
    "sd [days]",
    "throughput model [%]",
    "failures [%]",
    "power [%]",
    "weather [%]",
    "interaction [%]",
    NULL};

const char report_spread_heading[] = "Where the spread comes from";

const char report_spread_method[] =
    "Each source of randomness (the throughput model's error, failures, "
    "forced outages of power sources, the weather year) was switched off "
    "in turn and the case run again with the same seed, so every other "
    "source drew the same numbers (common random numbers). A source's "
    "share is 1 - Var(time to train with it off) / Var(all on): the part "
    "of the variance that goes away when it is fixed. For independent, "
    "additive sources the shares sum to 100 %; the interaction column is "
    "the remainder (negative when sources interact, e.g. a slow draw of "
    "the model meets more failures). Variances are over the replications "
    "in which the job finished, so with few replications a share is a "
    "rough estimate (docs/site-model.md, \"Variance decomposition\").";

const char report_spread_solar_p90_label[] =
    "Solar energy exceeded in 90 % of years";

int report_spread_has(const db_run *r)
{
    return r->meta.n_var_shares > 0;
}

static void pct(char *b, double v)
{
    if (isfinite(v))
        snprintf(b, 64, "%.1f", 100.0 * v);
    else
        snprintf(b, 64, "n/a");
}

int report_spread_cells(const db_run *r, size_t j,
                        char cells[REPORT_SPREAD_COLS][64])
{
    const db_run_meta *m = &r->meta;
    const db_var_share *first = NULL;
    double share[VD_N], sum = 0;
    for (int k = 0; k < VD_N; k++)
        share[k] = (double)NAN;
    for (size_t i = 0; i < m->n_var_shares; i++) {
        const db_var_share *v = &m->var_shares[i];
        if ((size_t)v->job != j)
            continue;
        if (!first)
            first = v;
        for (int k = 0; k < VD_N; k++)
            if (strcmp(v->source, vd_source_name[k]) == 0)
                share[k] = v->share;
    }
    if (!first)
        return 0;
    snprintf(cells[0], 64, "%s", j < m->n_jobs ? m->jobs[j].name : "?");
    snprintf(cells[1], 64, "%lld of %u", (long long)first->finished,
             m->replications);
    if (isfinite(first->mean_s))
        snprintf(cells[2], 64, "%.3f", first->mean_s / 86400.0);
    else
        snprintf(cells[2], 64, "n/a");
    if (isfinite(first->var_s2))
        snprintf(cells[3], 64, "%.3f", sqrt(first->var_s2) / 86400.0);
    else
        snprintf(cells[3], 64, "n/a");
    for (int k = 0; k < VD_N; k++) {
        pct(cells[4 + k], share[k]);
        sum += share[k];
    }
    pct(cells[4 + VD_N], 1.0 - sum);
    return 1;
}

int report_spread_solar_p90(const db_run *r, char *buf, size_t n)
{
    double e = r->solar_energy_p90_exceedance_j;
    if (!isfinite(e)) {
        if (n)
            buf[0] = '\0';
        return 0;
    }
    /* Whole MWh above 10 GWh, as the report's other energy tables. */
    snprintf(buf, n,
             e / 3.6e9 >= 1e4 ? "%.0f MWh per year" : "%.4g MWh per year",
             e / 3.6e9);
    return 1;
}

/* Job names may hold '|', which would split a Markdown cell. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

void report_spread_md(FILE *f, const db_run *r)
{
    if (!report_spread_has(r))
        return;
    fprintf(f, "## %s\n\n", report_spread_heading);
    fputs("Share of each job's time-to-train variance by source, from "
          "`run --variance-decomposition`.\n\n|",
          f);
    for (int c = 0; c < REPORT_SPREAD_COLS; c++)
        fprintf(f, " %s |", report_spread_head[c]);
    fputs("\n|", f);
    for (int c = 0; c < REPORT_SPREAD_COLS; c++)
        fputs("---|", f);
    fputs("\n", f);
    for (size_t j = 0; j < r->meta.n_jobs; j++) {
        char cells[REPORT_SPREAD_COLS][64];
        if (!report_spread_cells(r, j, cells))
            continue;
        fputs("|", f);
        for (int c = 0; c < REPORT_SPREAD_COLS; c++) {
            fputs(" ", f);
            md_text(f, cells[c]);
            fputs(" |", f);
        }
        fputs("\n", f);
    }
    fprintf(f, "\n%s\n\n", report_spread_method);
}

void report_spread_md_solar_row(FILE *f, const db_run *r)
{
    char b[64];
    if (report_spread_solar_p90(r, b, sizeof b))
        fprintf(f, "| %s | %s |\n", report_spread_solar_p90_label, b);
}
