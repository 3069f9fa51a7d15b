/* io/report_html.c: the HTML document writer (see report_html.h). Owns the
 * page's markup and its style sheet (screen and print); must never read
 * files, know what a run is, or emit anything that loads from elsewhere.
 *
 * Charts are cairo's SVG documents copied inline. Two rewrites make that
 * safe: the XML prolog is dropped (it is only valid at the start of a
 * file), and every id (cairo names glyphs "glyph0-1" and the page
 * "surface1" in every file alike) is prefixed with the chart's id, with
 * every reference to it (href="#..." and url(#...)), because ids are global
 * in an HTML page: two charts with the same glyph ids would draw each
 * other's letters. The root element loses its fixed width and height (the
 * viewBox stays), so the chart scales to the column width on screen and on
 * paper. This is a rewrite of cairo's output, not a general SVG tool: it
 * relies on cairo writing ids and references in exactly these forms, which
 * the report test checks (test_report_html_svg_ids_are_unique). */
#include "io/report_html.h"

#include <string.h>

void report_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
}

/* The style sheet. Widths are relative so the page fits any column: A4
 * (210 mm) and Letter (216 mm) less 15 mm margins leave 180 mm, the
 * max-width on screen, so what is seen is what prints. Figures and table
 * rows never break across pages; long words (hashes, keys) wrap. */
static const char css[] =
    "*{box-sizing:border-box}\n"
    "html{-webkit-text-size-adjust:100%}\n"
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;"
    "font-size:10pt;line-height:1.35;color:#111;background:#fff;"
    "margin:0 auto;padding:8mm;max-width:196mm}\n"
    "h1{font-size:17pt;margin:0 0 2mm}\n"
    "h2{font-size:13pt;margin:7mm 0 2mm;border-bottom:1px solid #999;"
    "break-after:avoid;page-break-after:avoid}\n"
    "h3{font-size:11pt;margin:4mm 0 1mm;break-after:avoid;"
    "page-break-after:avoid}\n"
    "p{margin:0 0 2mm}\n"
    "p,td,th,figcaption{overflow-wrap:anywhere}\n"
    ".sub{color:#444;margin-bottom:4mm}\n"
    ".tbl{break-inside:avoid;page-break-inside:avoid;margin:0 0 3mm}\n"
    "table{border-collapse:collapse;width:100%;table-layout:auto}\n"
    "th,td{border:1px solid #bbb;padding:1mm 1.5mm;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#eee}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"

    "tr{break-inside:avoid;page-break-inside:avoid}\n"
    "thead{display:table-header-group}\n"
    "figure{margin:0 0 5mm;break-inside:avoid;page-break-inside:avoid}\n"
    "figure svg{display:block;width:100%;height:auto;max-width:100%}\n"
    "figcaption{font-size:9pt;color:#333;margin-top:1mm}\n"
    ".missing{border:1px dashed #999;padding:3mm;color:#555}\n"
    "@page{size:auto;margin:12mm}\n"
    "@media print{body{padding:0;max-width:none}"
    "h2{break-before:auto}a{color:inherit;text-decoration:none}}\n";

/* Paragraphs split at blank lines; single newlines stay inside one. */
static void paragraphs(FILE *f, const char *t)
{
    while (t && *t) {
        const char *e = strstr(t, "\n\n");
        size_t n = e ? (size_t)(e - t) : strlen(t);
        char buf[2048];
        fputs("<p>", f);
        while (n > 0) {
            size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
            memcpy(buf, t, k);
            buf[k] = '\0';
            report_html_esc(f, buf);
            t += k;
            n -= k;
        }
        fputs("</p>\n", f);
        t = e ? e + 2 : t;
    }
}

static void table(FILE *f, const rh_table *t)
{
    fputs("<div class=\"tbl\">", f);
    if (t->caption) {
        fputs("<h3>", f);
        report_html_esc(f, t->caption);
        fputs("</h3>", f);
    }
    fputs("\n<table>\n", f);
    /* A table whose header cells are all empty (a list of facts) has no
     * header row. */
    for (size_t c = 0; c < t->n_cols; c++)
        if (t->head[c] && *t->head[c]) {
            fputs("<thead><tr>", f);
            for (size_t k = 0; k < t->n_cols; k++) {
                fputs("<th>", f);
                report_html_esc(f, t->head[k]);
                fputs("</th>", f);
            }
            fputs("</tr></thead>\n", f);
            break;
        }
    fputs("<tbody>\n", f);
    for (size_t r = 0; r < t->n_rows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < t->n_cols; c++) {
            fputs(t->num_from && c >= t->num_from ? "<td class=\"n\">" : "<td>",
                  f);
            report_html_esc(f, t->cells[r * t->n_cols + c]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table></div>\n", f);
}

/* Writes the SVG text from its <svg element on, ids prefixed with pfx (see
 * the file note), the root's width and height attributes dropped. */
static int svg_inline(FILE *f, const char *svg, const char *pfx,
                      const char *label)
{
    const char *p = strstr(svg, "<svg"), *end;
    if (!p || !(end = strchr(p, '>')))
        return SIM_EINVAL;
    /* The root tag, attribute by attribute. */
    fputs("<svg role=\"img\" aria-label=\"", f);
    report_html_esc(f, label);
    fputc('"', f);
    for (const char *a = p + 4; a < end;) {
        const char *q;
        while (a < end && (*a == ' ' || *a == '\n'))
            a++;
        if (a >= end)
            break;
        q = strchr(a, '"');
        q = q && q < end ? strchr(q + 1, '"') : NULL;
        if (!q || q > end) /* not name="value": copy the rest as is */
            q = end - 1;
        if (strncmp(a, "width=", 6) != 0 && strncmp(a, "height=", 7) != 0) {
            fputc(' ', f);
            fwrite(a, 1, (size_t)(q + 1 - a), f);
        }
        a = q + 1;
    }
    fputc('>', f);
    /* The body: copy, prefixing each id and each reference to one. */
    for (p = end + 1; *p;) {
        static const char *const marks[] = {" id=\"", "href=\"#", "url(#"};
        const char *best = NULL;
        size_t bl = 0;
        for (size_t m = 0; m < 3; m++) {
            const char *h = strstr(p, marks[m]);
            if (h && (!best || h < best)) {
                best = h;
                bl = strlen(marks[m]);
            }
        }
        if (!best) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(best - p) + bl, f);
        fprintf(f, "%s-", pfx);
        p = best + bl;
    }
    return SIM_OK;
}

static int chart(FILE *f, const rh_chart *c, sim_err *err)
{
    fprintf(f, "<figure class=\"chart\" id=\"chart-%s\">\n", c->id);
    if (c->svg) {
        if (svg_inline(f, c->svg, c->id, c->title ? c->title : c->id) != SIM_OK)
            return sim_err_set(err, SIM_EINVAL, c->id, 0,
                               "chart is not an SVG document");
    } else {
        fputs("<div class=\"missing\">", f);
        report_html_esc(f, c->what);
        fputs("</div>", f);
    }
    /* The chart draws its own title; the caption says what it shows (and
     * names the chart when it is missing). */
    fputs("\n<figcaption>", f);
    if (!c->svg) {
        fputs("<b>", f);
        report_html_esc(f, c->title);
        fputs("</b>: not available", f);
    } else {
        report_html_esc(f, c->what && *c->what ? c->what : c->title);
    }
    fputs("</figcaption>\n</figure>\n", f);
    return SIM_OK;
}

int report_html_write(FILE *f, const rh_doc *d, sim_err *err)
{
    int rc = SIM_OK;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<meta name=\"viewport\" "
          "content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    report_html_esc(f, d->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
    report_html_esc(f, d->title);
    fputs("</h1>\n", f);
    if (d->subtitle) {
        fputs("<p class=\"sub\">", f);
        report_html_esc(f, d->subtitle);
        fputs("</p>\n", f);
    }
    for (size_t s = 0; s < d->n_sections && rc == SIM_OK; s++) {
        const rh_section *x = &d->sections[s];
        fprintf(f, "<section id=\"%s\">\n<h2>", x->id);
        report_html_esc(f, x->heading);
        fputs("</h2>\n", f);
        paragraphs(f, x->text);
        for (size_t t = 0; t < x->n_tables; t++)
            table(f, &x->tables[t]);
        for (size_t c = 0; c < x->n_charts && rc == SIM_OK; c++)
            rc = chart(f, &x->charts[c], err);
        fputs("</section>\n", f);
    }
    fputs("</body>\n</html>\n", f);
    if (rc == SIM_OK && ferror(f))
        rc = sim_err_set(err, SIM_EIO, "report.html", 0, "write failed");
    return rc;
}
