/* tests/test_report_html.c: report.html (issue 25). The writer alone
 * (io/report_html.h): escaping, inline SVG with ids made unique, refusal of
 * a chart that is not SVG. Then `factorysim report` on a run of a bundled
 * scenario: the page is self-contained (nothing loads from elsewhere, no
 * absolute path), every chart of charts.json is an inline <svg>, the
 * assumptions section lists what the run used and not what the scenario
 * set, the description's <&> are escaped, and the same run gives the same
 * bytes (report.html and report.pdf). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "io/calib_file.h"
#include "io/report_html.h"
#include "testutil.h"

static char dir[256], dbp[320];
static char out[1 << 16], err[8192];

static int run(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return fs_run(args, out, sizeof out, err, sizeof err);
}

/* One run of the Iceland scenario (geothermal, no battery, three jobs),
 * shortened, with a description that needs escaping. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-report-html-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(dbp, sizeof dbp, "%s/run.db", dir);
    return run("run scenarios/iceland-geothermal.cfg --replications 2 --set "
               "simulation.horizon_days=30 --set 'description=\"Reykjanes "
               "<b>bold</b> & co\"' --db %s",
               dbp) == 0
               ? 0
               : -1;
}

static int teardown(void **state)
{
    char cmd[400];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The writer's output for d, as a malloc'd string. */
static char *write_doc(const rh_doc *d, int *rc)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    sim_err e;
    sim_err_clear(&e);
    *rc = report_html_write(f, d, &e);
    fclose(f);
    return buf;
}

static void test_report_html_escapes_every_text(void **state)
{
    static const char *const head[] = {"a<b", "c&d"};
    static const char *const cells[] = {"x\"y'", "<script>"};
    rh_table t = {"cap>", 2, 1, 0, head, cells};
    rh_section s = {"s1", "H & <h>", "para <p>\n\nsecond & last", &t, 1,
                    NULL, 0};
    rh_doc d = {"T <&> \"q\"", "sub <i>", &s, 1};
    int rc;
    char *h;
    (void)state;
    h = write_doc(&d, &rc);
    assert_int_equal(rc, SIM_OK);
    assert_non_null(strstr(h, "<title>T &lt;&amp;&gt; &quot;q&quot;</title>"));
    assert_non_null(strstr(h, "H &amp; &lt;h&gt;"));
    assert_non_null(strstr(h, "<p>para &lt;p&gt;</p>"));
    assert_non_null(strstr(h, "<p>second &amp; last</p>"));
    assert_non_null(strstr(h, "<th>a&lt;b</th><th>c&amp;d</th>"));
    assert_non_null(strstr(h, "<td>x&quot;y&#39;</td><td>&lt;script&gt;"));
    assert_non_null(strstr(h, "cap&gt;"));
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<i>"));
    free(h);
}

/* Two charts with cairo's identical glyph ids: each id and each reference
 * gets its chart's prefix, the XML prolog and the fixed size go. */
static void test_report_html_svg_ids_are_unique(void **state)
{
    static const char svg[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
        "xmlns=\"http://www.w3.org/2000/svg\" "
        "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"1200pt\" "
        "height=\"700pt\" viewBox=\"0 0 1200 700\" version=\"1.1\">\n<defs>"
        "<symbol overflow=\"visible\" id=\"glyph0-1\"><path d=\"M 0 0\"/>"
        "</symbol><clipPath id=\"clip1\"><rect/></clipPath></defs>"
        "<g id=\"surface1\"><use xlink:href=\"#glyph0-1\" x=\"1\"/>"
        "<g clip-path=\"url(#clip1)\"/></g>\n</svg>\n";
    rh_chart c[2] = {{"power", "Power", "what 1", svg},
                     {"energy", "Energy", "what 2", svg}};
    rh_section s = {"charts", "Charts", NULL, NULL, 0, c, 2};
    rh_doc d = {"t", NULL, &s, 1};
    int rc;
    char *h;
    (void)state;
    h = write_doc(&d, &rc);
    assert_int_equal(rc, SIM_OK);
    assert_non_null(strstr(h, "id=\"power-glyph0-1\""));
    assert_non_null(strstr(h, "id=\"energy-glyph0-1\""));
    assert_non_null(strstr(h, "xlink:href=\"#power-glyph0-1\""));
    assert_non_null(strstr(h, "xlink:href=\"#energy-glyph0-1\""));
    assert_non_null(strstr(h, "url(#energy-clip1)"));
    assert_non_null(strstr(h, "id=\"power-surface1\""));
    assert_null(strstr(h, "id=\"glyph0-1\""));
    assert_null(strstr(h, "<?xml"));
    assert_null(strstr(h, "width=\"1200pt\""));
    assert_non_null(strstr(h, "viewBox=\"0 0 1200 700\""));
    free(h);
}

static void test_report_html_refuses_a_chart_that_is_not_svg(void **state)
{
    rh_chart c = {"power", "Power", "what", "<html>no chart</html>"};
    rh_section s = {"charts", "Charts", NULL, NULL, 0, &c, 1};
    rh_doc d = {"t", NULL, &s, 1};
    int rc;
    char *h = write_doc(&d, &rc);
    (void)state;
    assert_int_equal(rc, SIM_EINVAL);
    free(h);
}

/* Reports the run into DIR/name; returns report.html's text. */
static char *report_into(const char *name, char *d, size_t n)
{
    char p[600];
    size_t len;
    snprintf(d, n, "%s/%s", dir, name);
    if (run("report --db %s --out %s", dbp, d) != 0)
        fail_msg("report: %s", err);
    snprintf(p, sizeof p, "%s/report.html", d);
    return (char *)test_slurp(p, &len);
}

static size_t count(const char *h, const char *s)
{
    size_t n = 0;
    for (const char *p = h; (p = strstr(p, s)) != NULL; p += strlen(s))
        n++;
    return n;
}

/* Nothing in the page loads from elsewhere: no script, style sheet, image
 * or frame source, no url() to a file; the only "http" strings are the two
 * SVG namespace names of each chart, which browsers never fetch. No
 * absolute path and no date either. */
static void test_report_html_is_self_contained(void **state)
{
    char d[400];
    char *h = report_into("self", d, sizeof d);
    size_t n_svg;
    (void)state;
    assert_non_null(h);
    n_svg = count(h, "<svg ");
    assert_true(n_svg >= 7);
    assert_int_equal(count(h, "http"),
                     count(h, "xmlns=\"http://www.w3.org/2000/svg\"") +
                         count(h, "xmlns:xlink=\"http://www.w3.org/1999/"
                                  "xlink\""));
    assert_int_equal(count(h, "xmlns=\"http://www.w3.org/2000/svg\""), n_svg);
    assert_null(strstr(h, " src="));
    assert_null(strstr(h, "<link"));
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "<iframe"));
    assert_null(strstr(h, "@import"));
    assert_null(strstr(h, "href=\"file:"));
    assert_null(strstr(h, "href=\"/"));
    assert_null(strstr(h, dir));
    assert_null(strstr(h, "/tmp/"));
    free(h);
}

/* Every chart charts.json lists is a <figure> holding an inline <svg>, and
 * charts.json says what became of report.pdf. */
static void test_report_html_has_every_chart_inline(void **state)
{
    char d[400], p[600];
    char *h = report_into("charts", d, sizeof d);
    json_t *cj, *arr, *pdf;
    (void)state;
    snprintf(p, sizeof p, "%s/charts.json", d);
    cj = json_load_file(p, 0, NULL);
    assert_non_null(cj);
    arr = json_object_get(cj, "charts");
    assert_true(json_array_size(arr) >= 7);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *file =
            json_string_value(json_object_get(json_array_get(arr, i), "file"));
        char fig[200];
        const char *at, *end;
        snprintf(fig, sizeof fig, "<figure class=\"chart\" id=\"chart-%.*s\">",
                 (int)strcspn(file, "."), file);
        at = strstr(h, fig);
        if (!at)
            fail_msg("%s: no figure in report.html", file);
        end = strstr(at, "</figure>");
        assert_non_null(end);
        at = strstr(at, "<svg ");
        if (!at || at > end)
            fail_msg("%s: figure without an inline <svg>", file);
    }
    pdf = json_object_get(cj, "pdf");
    assert_non_null(pdf);
    if (json_integer_value(json_object_get(pdf, "pages")) > 0) {
        struct stat sb;
        assert_int_equal(json_integer_value(json_object_get(pdf, "pages")),
                         json_array_size(arr));
        snprintf(p, sizeof p, "%s/report.pdf", d);
        assert_int_equal(stat(p, &sb), 0);
        assert_true(sb.st_size > 1000);
    } else {
        /* No pdfcairo: the page and charts.json say so. */
        assert_non_null(strstr(json_string_value(json_object_get(pdf, "note")),
                               "not written"));
        assert_non_null(strstr(h, "report.pdf not written"));
    }
    json_decref(cj);
    free(h);
}

/* The section between the assumptions heading and the next section. */
static char *assumptions_of(const char *h)
{
    const char *a = strstr(h, "<section id=\"assumptions\">"), *b;
    char *s;
    if (!a || !(b = strstr(a, "</section>")))
        return NULL;
    s = malloc((size_t)(b - a) + 1);
    memcpy(s, a, (size_t)(b - a));
    s[b - a] = '\0';
    return s;
}

/* Iceland runs on geothermal with the catalog's outage figures (marked as
 * assumptions in models/sources.cfg) and leaves the fabric latency at its
 * assumed default; it sets the grid price itself (45 USD/MWh), so that
 * scenario key's assumed default is not listed, and it has no battery, so
 * no battery key is. */
static void test_report_html_lists_the_assumptions_the_run_used(void **state)
{
    char d[400];
    char *h = report_into("assume", d, sizeof d), *s;
    (void)state;
    s = assumptions_of(h);
    assert_non_null(s);
    assert_non_null(strstr(s, "<td>catalog source</td><td>geothermal</td>"
                              "<td>mttr_h</td><td>72</td><td>h</td>"));
    assert_non_null(strstr(s, "<td>catalog system</td><td>hgx-b300</td>"));
    assert_non_null(strstr(s, "<td>fabric.latency_us</td>"));
    assert_non_null(strstr(s, "No forced-outage statistics found"));
    assert_null(strstr(s, "<td>energy.grid.usd_per_mwh</td>"));
    assert_null(strstr(s, "energy.battery."));
    assert_null(strstr(s, "catalog GPU</td><td>H100"));
    free(s);
    free(h);
}

/* The calibration section has, per job, how the model did on the job's
 * model's own published rows: the numbers of the bundled calibration's
 * records for every GPU and the job's GPU (B300 here), "none" where the
 * calibration has no rows of that model on that GPU. */
static void test_report_html_shows_each_jobs_published_rows(void **state)
{
    char d[400], want[512];
    char *h = report_into("rows", d, sizeof d);
    tp_model *m = NULL;
    sim_err e;
    const tp_model_rows *all, *one;
    (void)state;
    assert_non_null(h);
    assert_int_equal(tp_model_load("models/calibration.cfg", &m, &e), SIM_OK);
    all = tp_model_rows_of(m, "Qwen3 235B-A22B", NULL);
    one = tp_model_rows_of(m, "Qwen3 235B-A22B", "B300");
    assert_non_null(all);
    assert_non_null(one);
    snprintf(want, sizeof want,
             "<tr><td>qwen3-235b-mxfp8</td><td>Qwen3 235B-A22B</td>"
             "<td>B300</td><td class=\"n\">%d</td><td class=\"n\">%+.1f</td>"
             "<td class=\"n\">%.1f</td><td class=\"n\">%d</td>"
             "<td class=\"n\">%+.1f</td><td class=\"n\">%.1f</td></tr>",
             all->n, all->loco_mean_error_pct, all->loco_mape_pct, one->n,
             one->loco_mean_error_pct, one->loco_mape_pct);
    assert_non_null(strstr(h, want));
    assert_null(tp_model_rows_of(m, "Llama 3.1 405B", "B300"));
    {
        /* The llama405b-fp8 row itself, up to its end. */
        char *row = strstr(h, "<tr><td>llama405b-fp8</td><td>Llama 3.1 405B"
                              "</td><td>B300</td>"),
             *end;
        assert_non_null(row);
        end = strstr(row, "</tr>");
        assert_non_null(end);
        *end = '\0';
        assert_non_null(strstr(row, "<td class=\"n\">none</td>"));
        *end = '<';
    }
    assert_non_null(strstr(h, "The second table is per job"));
    tp_model_free(m);
    free(h);
}

static void test_report_html_escapes_the_description(void **state)
{
    char d[400];
    char *h = report_into("esc", d, sizeof d);
    (void)state;
    assert_non_null(strstr(h, "<td>Reykjanes &lt;b&gt;bold&lt;/b&gt; &amp; "
                              "co</td>"));
    assert_null(strstr(h, "<b>bold</b>"));
    free(h);
}

static void assert_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = test_slurp(a, &na), *y = test_slurp(b, &nb);
    assert_non_null(x);
    assert_non_null(y);
    if (na != nb || memcmp(x, y, na) != 0)
        fail_msg("%s and %s differ", a, b);
    free(x);
    free(y);
}

/* Same run, same bytes: report.html and report.pdf (cairo's creation date
 * is fixed, io/plot.c) from two reports into different folders. */
static void test_report_html_is_byte_identical_on_repeat(void **state)
{
    char d1[400], d2[400], a[600], b[600];
    char *h1 = report_into("rep-a", d1, sizeof d1);
    char *h2 = report_into("rep-b", d2, sizeof d2);
    struct stat sb;
    (void)state;
    free(h1);
    free(h2);
    snprintf(a, sizeof a, "%s/report.html", d1);
    snprintf(b, sizeof b, "%s/report.html", d2);
    assert_same_file(a, b);
    snprintf(a, sizeof a, "%s/report.pdf", d1);
    snprintf(b, sizeof b, "%s/report.pdf", d2);
    if (stat(a, &sb) == 0)
        assert_same_file(a, b);
}

/* --format pdf: each chart's PDF has the fixed date too (io/plot.c), so two
 * reports give the same bytes, also when the second runs in another time
 * zone (cairo writes the date's zone offset, "+01'00" in Oslo in winter:
 * io/plot.c sets the process's zone to UTC before a PDF starts). */
static void test_report_pdf_charts_are_byte_identical(void **state)
{
    char d1[400], d2[400], a[600], b[600];
    size_t n = 0;
    unsigned char *x;
    (void)state;
    snprintf(d1, sizeof d1, "%s/pdf-a", dir);
    snprintf(d2, sizeof d2, "%s/pdf-b", dir);
    assert_int_equal(run("report --db %s --out %s --format pdf", dbp, d1), 0);
    {
        const char *tz = getenv("TZ");
        char *keep = tz ? strdup(tz) : NULL;
        setenv("TZ", "Europe/Oslo", 1);
        assert_int_equal(run("report --db %s --out %s --format pdf", dbp, d2),
                         0);
        if (keep)
            setenv("TZ", keep, 1);
        else
            unsetenv("TZ");
        free(keep);
    }
    snprintf(a, sizeof a, "%s/power.pdf", d1);
    snprintf(b, sizeof b, "%s/power.pdf", d2);
    assert_same_file(a, b);
    x = test_slurp(a, &n);
    assert_non_null(x);
    {
        /* A binary search by hand: the PDF's streams hold NUL bytes. */
        static const char key[] = "/CreationDate (D:19700101000000Z)";
        int found = 0;
        for (size_t i = 0; i + sizeof key - 1 <= n && !found; i++)
            found = memcmp(x + i, key, sizeof key - 1) == 0;
        assert_true(found);
    }
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_html_escapes_every_text),
        cmocka_unit_test(test_report_html_svg_ids_are_unique),
        cmocka_unit_test(test_report_html_refuses_a_chart_that_is_not_svg),
        cmocka_unit_test(test_report_html_is_self_contained),
        cmocka_unit_test(test_report_html_has_every_chart_inline),
        cmocka_unit_test(test_report_html_lists_the_assumptions_the_run_used),
        cmocka_unit_test(test_report_html_shows_each_jobs_published_rows),
        cmocka_unit_test(test_report_html_escapes_the_description),
        cmocka_unit_test(test_report_html_is_byte_identical_on_repeat),
        cmocka_unit_test(test_report_pdf_charts_are_byte_identical),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
