/* tests/browser/check_page.c: the verdict of the browser test (issue 25,
 * tests/browser/run.sh). Reads the DOM chromium dumped after
 * tests/browser/probe.js measured the page, the page's full-height
 * screenshot and the report's charts.json, and fails (exit 1, one line per
 * problem) when
 *   - the page is wider than the viewport, or any element's right edge
 *     passes it (the page would be cut when printed at that width);
 *   - a chart of charts.json has no <svg> in the page;
 *   - a chart's box in the screenshot is blank: fewer than MIN_INK of its
 *     pixels differ from the page background, so nothing was drawn there.
 * Exit 2 on unusable input. Not part of `make test` (it needs a browser);
 * `make browser-test` builds and runs it, and shows it failing on pages
 * broken on purpose.
 *
 * The background is the screenshot's top-left pixel (the page margin). A
 * pixel counts as ink when a channel differs from it by more than 24, which
 * ignores anti-aliasing noise of a blank area but catches the thinnest
 * axis line. */
#include <jansson.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_INK 0.005 /* share of a chart's pixels that must be ink */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = '\0';
    fclose(f);
    return b;
}

/* The probe's JSON: the text of <pre id="fs-probe" ...>, entities undone
 * (a text node escapes & < > only). */
static json_t *probe_json(const char *dom)
{
    const char *p = strstr(dom, "<pre id=\"fs-probe\""), *e;
    char *t, *o;
    json_t *j;
    if (!p || !(p = strchr(p, '>')) || !(e = strstr(p, "</pre>")))
        return NULL;
    t = malloc((size_t)(e - p));
    o = t;
    for (p++; p < e; p++) {
        if (strncmp(p, "&amp;", 5) == 0) {
            *o++ = '&';
            p += 4;
        } else if (strncmp(p, "&lt;", 4) == 0) {
            *o++ = '<';
            p += 3;
        } else if (strncmp(p, "&gt;", 4) == 0) {
            *o++ = '>';
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    j = json_loads(t, 0, NULL);
    free(t);
    return j;
}

typedef struct img {
    png_image im;
    unsigned char *px; /* RGB, row-major */
} img;

static int load_png(const char *path, img *m)
{
    memset(m, 0, sizeof *m);
    m->im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&m->im, path))
        return -1;
    m->im.format = PNG_FORMAT_RGB;
    m->px = malloc(PNG_IMAGE_SIZE(m->im));
    if (!m->px || !png_image_finish_read(&m->im, NULL, m->px, 0, NULL))
        return -1;
    return 0;
}

/* Share of the pixels of box (x, y, w, h) that differ from bg. */
static double ink(const img *m, long x, long y, long w, long h,
                  const unsigned char *bg)
{
    long n = 0, tot = 0;
    for (long r = y; r < y + h; r++)
        for (long c = x; c < x + w; c++) {
            const unsigned char *q =
                m->px + ((size_t)r * m->im.width + (size_t)c) * 3;
            tot++;
            if (abs(q[0] - bg[0]) > 24 || abs(q[1] - bg[1]) > 24 ||
                abs(q[2] - bg[2]) > 24)
                n++;
        }
    return tot ? (double)n / (double)tot : 0.0;
}

/* --excerpt DOM PNG OUT: writes the part of the screenshot from just above
 * the first chart down past the second, the README's picture, so the
 * picture is the page the test judged. */
static int excerpt(const char *dom_path, const char *png, const char *out)
{
    char *dom = slurp(dom_path);
    json_t *pj = dom ? probe_json(dom) : NULL, *c, *c2;
    img m;
    long y0, y1;
    int rc = 2;
    if (!pj || load_png(png, &m) != 0 ||
        !(c = json_array_get(json_object_get(pj, "charts"), 0)))
        goto done;
    /* From the first chart's top to below the second one's caption
     * (about 30 px under its box). */
    y0 = (long)json_integer_value(json_object_get(c, "y")) - 4;
    c2 = json_array_get(json_object_get(pj, "charts"), 1);
    if (!c2)
        c2 = c;
    y1 = (long)json_integer_value(json_object_get(c2, "y")) +
         (long)json_integer_value(json_object_get(c2, "h")) + 34;
    if (y0 < 0)
        y0 = 0;
    if (y1 > (long)m.im.height)
        y1 = (long)m.im.height;
    {
        png_image o = m.im;
        o.height = (png_uint_32)(y1 - y0);
        rc = png_image_write_to_file(
                 &o, out, 0, m.px + (size_t)y0 * m.im.width * 3, 0, NULL)
                 ? 0
                 : 2;
    }
    free(m.px);
    png_image_free(&m.im);
done:
    json_decref(pj);
    free(dom);
    if (rc)
        fprintf(stderr, "check_page: cannot write the excerpt %s\n", out);
    return rc;
}

int main(int argc, char **argv)
{
    char *dom;
    json_t *pj, *cj, *charts, *over, *drawn;
    img m;
    unsigned char bg[3];
    int bad = 0;
    size_t i, k;
    if (argc == 5 && strcmp(argv[1], "--excerpt") == 0)
        return excerpt(argv[2], argv[3], argv[4]);
    if (argc != 4) {
        fprintf(stderr, "usage: check_page DOM.html SCREENSHOT.png "
                        "charts.json\n       check_page --excerpt DOM.html "
                        "SCREENSHOT.png OUT.png\n");
        return 2;
    }
    if (!(dom = slurp(argv[1])) || !(pj = probe_json(dom))) {
        fprintf(stderr, "check_page: %s: no probe result in the DOM\n",
                argv[1]);
        return 2;
    }
    if (!(cj = json_load_file(argv[3], 0, NULL)) ||
        !(drawn = json_object_get(cj, "charts"))) {
        fprintf(stderr, "check_page: %s: not a charts.json\n", argv[3]);
        return 2;
    }
    if (load_png(argv[2], &m) != 0) {
        fprintf(stderr, "check_page: %s: cannot read the PNG\n", argv[2]);
        return 2;
    }
    memcpy(bg, m.px + ((size_t)2 * m.im.width + 2) * 3, 3);

    /* (b) width: the page and every element inside the viewport. */
    if (json_integer_value(json_object_get(pj, "scroll_width")) >
        json_integer_value(json_object_get(pj, "viewport_width"))) {
        printf("FAIL page is %lld px wide, viewport %lld px\n",
               json_integer_value(json_object_get(pj, "scroll_width")),
               json_integer_value(json_object_get(pj, "viewport_width")));
        bad = 1;
    }
    over = json_object_get(pj, "overflow");
    for (i = 0; i < json_array_size(over); i++) {
        printf("FAIL overflows the page width: %s\n",
               json_string_value(json_array_get(over, i)));
        bad = 1;
    }

    /* (a) charts: each one of charts.json in the page, and not blank. */
    charts = json_object_get(pj, "charts");
    for (k = 0; k < json_array_size(drawn); k++) {
        const char *file = json_string_value(
            json_object_get(json_array_get(drawn, k), "file"));
        char id[200];
        int found = 0;
        snprintf(id, sizeof id, "chart-%.*s", (int)strcspn(file, "."), file);
        for (i = 0; i < json_array_size(charts); i++) {
            json_t *c = json_array_get(charts, i);
            long x = (long)json_integer_value(json_object_get(c, "x"));
            long y = (long)json_integer_value(json_object_get(c, "y"));
            long w = (long)json_integer_value(json_object_get(c, "w"));
            long h = (long)json_integer_value(json_object_get(c, "h"));
            double f;
            if (strcmp(json_string_value(json_object_get(c, "id")), id) != 0)
                continue;
            found = 1;
            if (!json_is_true(json_object_get(c, "svg")) || w <= 0 || h <= 0) {
                printf("FAIL %s: no SVG in the page\n", id);
                bad = 1;
            } else if (x < 0 || y < 0 || x + w > (long)m.im.width ||
                       y + h > (long)m.im.height) {
                printf("FAIL %s: box %ldx%ld+%ld+%ld outside the %ux%u "
                       "screenshot\n",
                       id, w, h, x, y, m.im.width, m.im.height);
                bad = 1;
            } else if ((f = ink(&m, x, y, w, h, bg)) < MIN_INK) {
                printf("FAIL %s: blank (%.3f%% of %ldx%ld px drawn)\n", id,
                       100 * f, w, h);
                bad = 1;
            } else {
                printf("ok   %s: %.1f%% of %ldx%ld px drawn\n", id, 100 * f, w,
                       h);
            }
        }
        if (!found) {
            printf("FAIL %s: chart of charts.json missing from the page\n", id);
            bad = 1;
        }
    }
    if (json_array_size(drawn) == 0) {
        printf("FAIL charts.json lists no chart\n");
        bad = 1;
    }
    printf("%s: %zu charts, page %lld px high, %zu overflowing elements\n",
           bad ? "FAIL" : "PASS", json_array_size(drawn),
           json_integer_value(json_object_get(pj, "page_height")),
           json_array_size(over));
    free(m.px);
    png_image_free(&m.im);
    json_decref(pj);
    json_decref(cj);
    free(dom);
    return bad;
}
