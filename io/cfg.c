/* io/cfg.c: libconfig reading shared by the catalog and scenario loaders
 * (contract in io/cfg.h). The source-text cache holds each file read once,
 * split by lines, so that the 32-bit integer check costs one lookup per
 * integer; files are small (a few hundred lines), so a linked list is enough.
 *
 * This is the only file that calls libconfig's reading API (the loaders use the
 * typed getters below), and it owns three things libconfig 1.5 gets wrong for
 * us: integers above 2^31 - 1 written without an L are silently wrapped; an
 * @include of a folder or FIFO makes its scanner call exit(2) or block; and a
 * NUL byte ends the parse early and silently. Every getter reports failure as
 * "FILE:LINE: key.path: message (got X, expected Y)" through cfg_fail, so
 * message shape lives here once. The file must never print and never accept a
 * value it has not range-checked; it must also never decide what a key means
 * (defaults, ranges and units come from the callers and models/scenkeys.c). */
#include "io/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sim/mem.h"

struct cfg_file {
    char *name;       /* path as libconfig reports it */
    char *text;       /* whole file, NUL-terminated; NULL if unreadable */
    size_t *line_off; /* offset of each line's start */
    size_t n_lines;
    struct cfg_file *next;
};

/* Overridden settings are reported as coming from "--set". Enough for any
 * command line; past it, further overridden settings are not tracked and their
 * messages name the scenario file instead of --set (the override itself still
 * applies). */
#define CFG_MAX_OVERRIDDEN 256
static const char cfg_set_file[] = "--set";

typedef struct cfg_ov_list {
    const config_setting_t *s[CFG_MAX_OVERRIDDEN];
    size_t n;
} cfg_ov_list;

static cfg_ov_list *ov_list(cfg_reader *r)
{
    /* The list hangs off the root setting's hook slot, which libconfig
     * leaves to the application; it is freed in cfg_reader_free. */
    config_setting_t *root = config_root_setting(&r->cfg);
    cfg_ov_list *l = config_setting_get_hook(root);
    if (!l) {
        l = sim_xcalloc(1, sizeof *l);
        config_setting_set_hook(root, l);
    }
    return l;
}

/* A linear scan of at most CFG_MAX_OVERRIDDEN pointers, done only when a
 * message or the integer check needs it; settings are compared by address,
 * which libconfig keeps stable while the tree is not edited. */
static int is_overridden(const cfg_reader *r, const config_setting_t *s)
{
    const cfg_ov_list *l;
    if (!r->inited)
        return 0;
    l = config_setting_get_hook(config_root_setting(&r->cfg));
    if (!l)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->s[i] == s)
            return 1;
    return 0;
}

/* The whole file is read, including NUL bytes, so that cfg_read can refuse
 * binary input and check_includes can see every directive; fread stops short
 * only at end of file or on an error, and either way what was read is returned
 * NUL-terminated. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;

    if (!f)
        return NULL;
    do {
        sim_grow((void **)&buf, &cap, n + 4096 + 1, 1);
        got = fread(buf + n, 1, 4096, f);
        n += got;
    } while (got == 4096);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The line offsets let int_literal_wrapped jump to a setting's line directly;
 * an unreadable file is cached as text == NULL so it is not retried for every
 * integer. */
static struct cfg_file *file_get(cfg_reader *r, const char *name)
{
    struct cfg_file *f;
    size_t len = 0, cap = 0;

    for (f = r->files; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    f = sim_xcalloc(1, sizeof *f);
    f->name = sim_xstrdup(name);
    f->text = read_all(name, &len);
    if (f->text) {
        sim_grow((void **)&f->line_off, &cap, 1, sizeof *f->line_off);
        f->line_off[f->n_lines++] = 0;
        for (size_t i = 0; i < len; i++)
            if (f->text[i] == '\n') {
                sim_grow((void **)&f->line_off, &cap, f->n_lines + 1,
                         sizeof *f->line_off);
                f->line_off[f->n_lines++] = i + 1;
            }
    }
    f->next = r->files;
    r->files = f;
    return f;
}

/* "." and "/" are returned explicitly so that a scenario given as a bare file
 * name includes from the working directory, and one at the root does not become
 * "". */
static const char *dirname_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, n, ".");
    } else if (slash == path) {
        snprintf(buf, n, "/");
    } else {
        size_t k = (size_t)(slash - path);
        if (k >= n)
            k = n - 1;
        memcpy(buf, path, k);
        buf[k] = '\0';
    }
    return buf;
}

/* libconfig names an included file as written in the @include line; the
 * path that opens it starts at the include folder. */
static const char *resolve(cfg_reader *r, const char *name, char *buf, size_t n)
{
    if (!name || !r->top_file || strcmp(name, r->top_file) == 0 ||
        name[0] == '/' || strcmp(r->incdir, ".") == 0)
        return name;
    snprintf(buf, n, "%s/%s", r->incdir, name);
    return buf;
}

/* libconfig 1.5 opens an @include with fopen and, when the name is a
 * folder (or "" names the include folder itself), its flex scanner fails
 * to read it and calls exit(2) ("input in flex scanner failed"); a FIFO or
 * a device would block or never end. 1.5 has no include hook, so the
 * directives are checked first, as its scanner reads them: a line
 * starting (after blanks) with @include, blanks, a quoted name with the
 * escapes \\ \" \f \n \r \t \xHH; relative names start at the include
 * folder. Included files are checked in turn, to libconfig's nesting depth
 * of 10 (deeper is its own "nesting too deep" error). A name that cannot
 * be opened is left to libconfig, whose message says so. Found by
 * tests/fuzz/fuzz_scenario.c. */
#define CFG_INCLUDE_DEPTH 10

/* Decodes the name the way libconfig's scanner does, so that the path checked
 * here is the path libconfig would open; a name this cannot decode is left to
 * libconfig, which reports it as a syntax error with its own line. */
static int include_name(const char *p, char *out, size_t n)
{
    size_t k = 0;
    for (; *p && *p != '"' && *p != '\n'; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            switch (*p) {
            case 'f':
                c = '\f';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 't':
                c = '\t';
                break;
            case 'x':
                if (isxdigit((unsigned char)p[1]) &&
                    isxdigit((unsigned char)p[2])) {
                    char hex[3] = {p[1], p[2], '\0'};
                    c = (char)strtol(hex, NULL, 16);
                    p += 2;
                } else {
                    c = 'x';
                }
                break;
            default:
                c = *p;
                break;
            }
        }
        if (k + 1 >= n)
            return -1;
        out[k++] = c;
    }
    out[k] = '\0';
    return *p == '"' ? 0 : -1;
}

/* Recursive over included files so that a folder include nested two files deep
 * is refused too; the depth cap matches libconfig's so that a loop of includes
 * ends here and is then reported by libconfig itself. Only regular files are
 * read: a FIFO would block the read below as it would block libconfig. */
static int check_includes(cfg_reader *r, const char *file, const char *text,
                          int depth, sim_err *err)
{
    const char *p = text;
    int line = 1;
    for (; *p; line++) {
        const char *q = p, *nl = strchr(p, '\n');
        char name[1024], full[2100];
        struct stat st;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "@include", 8) == 0 && (q[8] == ' ' || q[8] == '\t')) {
            q += 8;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '"' && include_name(q + 1, name, sizeof name) == 0) {
                if (name[0] == '/')
                    snprintf(full, sizeof full, "%s", name);
                else
                    snprintf(full, sizeof full, "%s/%s", r->incdir, name);
                if (stat(full, &st) == 0) {
                    size_t len;
                    char *sub;
                    int rc;
                    if (!S_ISREG(st.st_mode))
                        return sim_err_set(
                            err, SIM_ECONFIG, file, line,
                            "@include: not a regular file (got "
                            "'%.200s', expected a libconfig fragment; "
                            "include paths are relative to %s)",
                            name, r->incdir);
                    if (depth + 1 < CFG_INCLUDE_DEPTH &&
                        (sub = read_all(full, &len))) {
                        /* A binary included file is not scanned for directives;
                         * libconfig then reports it as a parse error in that
                         * file. */
                        rc = memchr(sub, '\0', len)
                                 ? SIM_OK
                                 : check_includes(r, full, sub, depth + 1, err);
                        free(sub);
                        if (rc != SIM_OK)
                            return rc;
                    }
                }
            }
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return SIM_OK;
}

/* Order matters: the NUL check and the @include pre-check run on the raw text
 * before libconfig sees it, because libconfig would either accept garbage (NUL)
 * or end the process (a folder include); only then is the tree parsed.
 * Auto-convert is on (cfg.h) so that libconfig's own float and int getters
 * convert between the two; the typed getters below check the type themselves
 * and accept an integer where a number is expected (capacity_mw = 50). On
 * failure the reader may be half initialised; cfg_reader_free accepts that
 * state. */
int cfg_read(cfg_reader *r, const char *path, sim_err *err)
{
    char dir[1024];
    size_t len = 0;
    char *text;

    memset(r, 0, sizeof *r);
    r->top_file = path;
    r->err = err;
    text = read_all(path, &len);
    if (!text)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot open: %s",
                           strerror(errno ? errno : ENOENT));
    /* libconfig stops at a NUL byte and may accept the garbage before it;
     * binary input is refused before it gets there. */
    if (memchr(text, '\0', len)) {
        size_t at = (size_t)((char *)memchr(text, '\0', len) - text);
        int line = 1;
        for (size_t i = 0; i < at; i++)
            line += text[i] == '\n';
        free(text);
        return sim_err_set(err, SIM_ECONFIG, path, line,
                           "not a text file (NUL byte at offset %zu, "
                           "expected libconfig text)",
                           at);
    }
    snprintf(r->incdir, sizeof r->incdir, "%s",
             dirname_of(path, dir, sizeof dir));
    {
        int rc = check_includes(r, path, text, 0, err);
        free(text);
        if (rc != SIM_OK)
            return rc;
    }
    config_init(&r->cfg);
    r->inited = 1;
    config_set_auto_convert(&r->cfg, CONFIG_TRUE);
    config_set_include_dir(&r->cfg, dir);
    if (config_read_file(&r->cfg, path) != CONFIG_TRUE) {
        char eb[1200];
        const char *ef = resolve(r, config_error_file(&r->cfg), eb, sizeof eb);
        const char *et = config_error_text(&r->cfg);
        int line = config_error_line(&r->cfg);
        /* libconfig's include errors name the file relative to the include
         * folder only; appending that folder tells the user where the path was
         * resolved. */
        if (et && strstr(et, "include"))
            return sim_err_set(err, SIM_ECONFIG, ef ? ef : path, line,
                               "@include: %s (include paths are relative "
                               "to %s)",
                               et, dir);
        return sim_err_set(err, SIM_ECONFIG, ef ? ef : path, line,
                           "%s (libconfig stops at the first error; the "
                           "mistake may be on an earlier line)",
                           et ? et : "parse error");
    }
    return SIM_OK;
}

/* The override list lives in the root's hook, which config_destroy does not
 * free, so it is freed first; inited guards against a reader whose cfg_read
 * failed before config_init. */
void cfg_reader_free(cfg_reader *r)
{
    struct cfg_file *f, *nx;
    if (!r)
        return;
    if (r->inited) {
        config_setting_t *root = config_root_setting(&r->cfg);
        free(config_setting_get_hook(root));
        config_setting_set_hook(root, NULL);
        config_destroy(&r->cfg);
        r->inited = 0;
    }
    for (f = r->files; f; f = nx) {
        nx = f->next;
        free(f->name);
        free(f->text);
        free(f->line_off);
        free(f);
    }
    r->files = NULL;
}

/* Rebuilt from the parent chain (64 levels is far deeper than any scenario) so
 * that messages name "modules.[2].gpus" exactly as the user would write it for
 * --set. */
void cfg_path(const config_setting_t *s, char *buf, size_t n)
{
    const config_setting_t *chain[64];
    size_t depth = 0, used = 0;

    buf[0] = '\0';
    while (s && !config_setting_is_root(s) && depth < 64) {
        chain[depth++] = s;
        s = config_setting_parent(s);
    }
    while (depth-- > 0 && used < n) {
        const config_setting_t *c = chain[depth];
        const char *name = config_setting_name(c);
        int w;
        if (name)
            w = snprintf(buf + used, n - used, "%s%s", used ? "." : "", name);
        else
            w = snprintf(buf + used, n - used, "%s[%d]", used ? "." : "",
                         config_setting_index(c));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* A setting created or changed by --set has no source line in any file, so its
 * errors are attributed to "--set" with line 0; pointing at the scenario file
 * would send the user to a line that does not hold the bad value. */
const char *cfg_file(cfg_reader *r, const config_setting_t *s)
{
    const char *f;
    if (!s)
        return r->top_file ? r->top_file : "";
    if (is_overridden(r, s))
        return cfg_set_file;
    f = config_setting_source_file(s);
    if (!f && config_setting_source_line(s) == 0 && !config_setting_is_root(s))
        return cfg_set_file; /* created by an override */
    return f ? resolve(r, f, r->fbuf, sizeof r->fbuf)
             : (r->top_file ? r->top_file : "");
}

int cfg_line(const config_setting_t *s)
{
    return s ? (int)config_setting_source_line(s) : 0;
}

/* The key path is built from the setting (plus the missing key's name when the
 * setting is its group), so every message names the key exactly as a --set
 * would; line 0 for overrides keeps "--set:0:" out of messages. */
int cfg_fail(cfg_reader *r, const config_setting_t *s, const char *key,
             const char *fmt, ...)
{
    char path[512], msg[1200];
    const char *file = cfg_file(r, s);
    int line = cfg_line(s);
    va_list ap;

    cfg_path(s, path, sizeof path);
    if (key)
        snprintf(path + strlen(path), sizeof path - strlen(path), "%s%s",
                 path[0] ? "." : "", key);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (strcmp(file, cfg_set_file) == 0)
        line = 0;
    return sim_err_set(r->err, SIM_ECONFIG, file, line, "%s: %s",
                       path[0] ? path : "(top level)", msg);
}

/* The key travels as the message's "KEY: " prefix because models/ must not know
 * libconfig (issue 16.1): a rule can only name the key as text, and this
 * adapter turns that text back into a setting to find its file and line. When
 * the path is not in the file (a default the rule refused) the deepest part
 * that is present gives the line, which is still where the user must look. */
int cfg_fail_rule(cfg_reader *r, const config_setting_t *base, const sim_err *e)
{
    sim_err m = *e; /* r->err may be e itself */
    char key[512], path[700];
    const char *sep = strstr(m.msg, ": ");
    const config_setting_t *at = base;
    const char *file;
    int line;
    size_t kl;

    if (!sep || (size_t)(sep - m.msg) >= sizeof key)
        return cfg_fail(r, base, NULL, "%s", m.msg);
    kl = (size_t)(sep - m.msg);
    memcpy(key, m.msg, kl);
    key[kl] = '\0';
    if (strcmp(key, ".") == 0)
        return cfg_fail(r, base, NULL, "%s", sep + 2);
    /* Walk the path as far as the file wrote it: to KEY's own setting
     * (AT_KEY) or to the group that holds it. */
    {
        char walk[512], *save = NULL;
        const config_setting_t *cur = base;
        snprintf(walk, sizeof walk, "%s", key);
        char *last = strrchr(walk, '.');
        if (m.line != SIM_ERR_AT_KEY)
            *(last ? last : walk) = '\0';
        for (char *t = strtok_r(walk, ".", &save); t && cur;
             t = strtok_r(NULL, ".", &save)) {
            if (t[0] == '[')
                cur = config_setting_get_elem(cur, (unsigned)atoi(t + 1));
            else
                cur = config_setting_is_group(cur)
                          ? config_setting_get_member(cur, t)
                          : NULL;
            if (cur)
                at = cur;
        }
    }
    cfg_path(base, path, sizeof path);
    snprintf(path + strlen(path), sizeof path - strlen(path), "%s%s",
             path[0] ? "." : "", key);
    file = cfg_file(r, at);
    line = strcmp(file, cfg_set_file) == 0 ? 0 : cfg_line(at);
    return sim_err_set(r->err, m.code ? m.code : SIM_ECONFIG, file, line,
                       "%s: %s", path, sep + 2);
}

/* Unknown keys are errors, not warnings: a misspelt optional key
 * (solar.capcity) would otherwise fall back to its default silently, which is
 * the most expensive kind of mistake in a planning tool. The message lists
 * every allowed key of the group. */
int cfg_check_keys(cfg_reader *r, const config_setting_t *g,
                   const char *const *keys)
{
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(m);
        int ok = 0;
        char list[1000];
        size_t used = 0;
        if (!name)
            continue;
        for (size_t k = 0; keys[k]; k++)
            if (strcmp(keys[k], name) == 0)
                ok = 1;
        if (ok)
            continue;
        list[0] = '\0';
        for (size_t k = 0; keys[k] && used + 1 < sizeof list; k++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s",
                             k ? ", " : "", keys[k]);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        return cfg_fail(r, m, NULL,
                        "unknown key (got '%s', expected one "
                        "of: %s)",
                        name, list);
    }
    return SIM_OK;
}

/* Names as a user would write the value ("a group { }", "an array [ ]"), so a
 * "wrong type" message shows the syntax that was expected. */
static const char *type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP:
        return "a group { }";
    case CONFIG_TYPE_INT:
        return "an integer";
    case CONFIG_TYPE_INT64:
        return "a 64-bit integer";
    case CONFIG_TYPE_FLOAT:
        return "a float";
    case CONFIG_TYPE_STRING:
        return "a string";
    case CONFIG_TYPE_BOOL:
        return "a boolean";
    case CONFIG_TYPE_ARRAY:
        return "an array [ ]";
    case CONFIG_TYPE_LIST:
        return "a list ( )";
    default:
        return "nothing";
    }
}

/* The integer literal written for s, from its source line: 0 when it could be
 * checked and fits in 32 bits or carries an L, 1 when it overflowed (*lit = the
 * literal as written). Unknown source: 0. libconfig 1.5 parses an integer
 * literal into an int without checking for overflow, so 3000000000 arrives as a
 * negative number with no error. The only place the original text survives is
 * the file, so the setting's source line is scanned for "name = literal" and
 * the literal re-parsed. Anything that cannot be located (an override, a list
 * element without a name) is assumed fine; cfg_double and cfg_int add a hint
 * for negative values in ranges that exclude them, which catches most of those.
 */
static int int_literal_wrapped(cfg_reader *r, const config_setting_t *s,
                               char *lit, size_t n)
{
    char fb[1200];
    const char *fname =
        resolve(r, config_setting_source_file(s), fb, sizeof fb);
    const char *name = config_setting_name(s);
    unsigned line = config_setting_source_line(s);
    struct cfg_file *f;
    const char *p, *end;

    if (!fname || line == 0 || !name || is_overridden(r, s))
        return 0;
    f = file_get(r, fname);
    if (!f->text || line > f->n_lines)
        return 0;
    p = f->text + f->line_off[line - 1];
    end = strchr(p, '\n');
    if (!end)
        end = p + strlen(p);
    for (const char *q = p; q < end; q++) {
        size_t k = strlen(name);
        const char *v;
        /* The name must start a word (not "gpus" inside "n_gpus") and be
         * followed by = or :, libconfig's two assignment forms. */
        if (strncmp(q, name, k) != 0 ||
            (q > p &&
             (isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '-')))
            continue;
        v = q + k;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        if (v >= end || (*v != '=' && *v != ':'))
            continue;
        v++;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        {
            const char *t = v;
            char *e;
            unsigned long long u;
            if (*t == '-' || *t == '+')
                t++;
            errno = 0;
            u = strtoull(t, &e, 0);
            if (e == t || *e == 'L' || *e == '.' || *e == 'e' || *e == 'E')
                return 0;
            if (errno == ERANGE || u > 2147483647ull) {
                size_t w = (size_t)(e - v);
                if (w >= n)
                    w = n - 1;
                memcpy(lit, v, w);
                lit[w] = '\0';
                return 1;
            }
            return 0;
        }
    }
    return 0;
}

/* Integers of either width and floats are all numbers here; the 32-bit wrap
 * check runs before the value is used, because after the wrap the value can
 * fall inside the range and pass every later check. */
static int get_number(cfg_reader *r, const config_setting_t *g, const char *key,
                      const config_setting_t *m, double *v)
{
    int t = config_setting_type(m);
    char lit[64];

    if (t == CONFIG_TYPE_INT) {
        if (int_literal_wrapped(r, m, lit, sizeof lit))
            return cfg_fail(r, g, key,
                            "integer %s does not fit in 32 bits "
                            "and libconfig 1.5 silently truncated it to %d "
                            "(got %s, expected %sL or a float such as %s.0)",
                            lit, config_setting_get_int(m), lit, lit, lit);
        *v = (double)config_setting_get_int(m);
    } else if (t == CONFIG_TYPE_INT64) {
        *v = (double)config_setting_get_int64(m);
    } else if (t == CONFIG_TYPE_FLOAT) {
        *v = config_setting_get_float(m);
    } else {
        return cfg_fail(r, g, key, "wrong type (got %s, expected a number)",
                        type_name(t));
    }
    return SIM_OK;
}

/* scale converts the file's unit to SI at the boundary (MW -> W, hours -> s):
 * ranges are checked in the file's unit, the one the user wrote and the message
 * repeats, and only the stored value is scaled. */
int cfg_double(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, double def, double lo, double hi, double scale,
               double *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    double v = 0;
    int rc;

    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected a number in "
                            "[%g, %g])",
                            lo, hi);
        *out = def * scale;
        return SIM_OK;
    }
    if ((rc = get_number(r, g, key, m, &v)) != SIM_OK)
        return rc;
    if (!isfinite(v))
        return cfg_fail(r, m, NULL,
                        "not a finite number (got %g, expected "
                        "a number in [%g, %g])",
                        v, lo, hi);
    if (v < lo || v > hi) {
        if (v < 0 && lo >= 0 && config_setting_type(m) == CONFIG_TYPE_INT)
            return cfg_fail(r, m, NULL,
                            "out of range (got %g, expected "
                            "[%g, %g]; a negative integer here may be a "
                            "32-bit overflow: write large values with an L "
                            "suffix or as a float)",
                            v, lo, hi);
        return cfg_fail(r, m, NULL,
                        "out of range (got %g, expected [%g, "
                        "%g])",
                        v, lo, hi);
    }
    *out = v * scale;
    return SIM_OK;
}

/* A float with a whole value is accepted (1e6 for a token count reads
 * naturally), but only below 9e18 so that the cast to long long is defined. */
int cfg_int(cfg_reader *r, const config_setting_t *g, const char *key,
            int required, long long def, long long lo, long long hi,
            long long *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    long long v;
    int t;
    char lit[64];

    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected an integer "
                            "in [%lld, %lld])",
                            lo, hi);
        *out = def;
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t == CONFIG_TYPE_INT) {
        if (int_literal_wrapped(r, m, lit, sizeof lit))
            return cfg_fail(r, m, NULL,
                            "integer %s does not fit in 32 bits "
                            "and libconfig 1.5 silently truncated it to %d "
                            "(got %s, expected %sL or a float such as %s.0)",
                            lit, config_setting_get_int(m), lit, lit, lit);
        v = config_setting_get_int(m);
    } else if (t == CONFIG_TYPE_INT64) {
        v = config_setting_get_int64(m);
    } else if (t == CONFIG_TYPE_FLOAT) {
        double d = config_setting_get_float(m);
        if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e18)
            return cfg_fail(r, m, NULL,
                            "not a whole number (got %g, "
                            "expected an integer in [%lld, %lld])",
                            d, lo, hi);
        v = (long long)d;
    } else {
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected an "
                        "integer)",
                        type_name(t));
    }
    if (v < lo || v > hi) {
        if (v < 0 && lo >= 0 && t == CONFIG_TYPE_INT)
            return cfg_fail(r, m, NULL,
                            "out of range (got %lld, expected "
                            "[%lld, %lld]; a negative integer here may be a "
                            "32-bit overflow: write large values with an L "
                            "suffix or as a float)",
                            v, lo, hi);
        return cfg_fail(r, m, NULL,
                        "out of range (got %lld, expected "
                        "[%lld, %lld])",
                        v, lo, hi);
    }
    *out = v;
    return SIM_OK;
}

/* 0 and 1 are accepted as booleans because --set passes numbers through
 * unchanged, and "--set x=1" is what users type. */
int cfg_bool(cfg_reader *r, const config_setting_t *g, const char *key,
             int required, int def, int *out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    int t;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected true or "
                            "false)");
        *out = def;
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t == CONFIG_TYPE_BOOL) {
        *out = config_setting_get_bool(m);
        return SIM_OK;
    }
    if (t == CONFIG_TYPE_INT) {
        int v = config_setting_get_int(m);
        if (v == 0 || v == 1) {
            *out = v;
            return SIM_OK;
        }
        return cfg_fail(r, m, NULL,
                        "not a boolean (got %d, expected true, "
                        "false, 0 or 1)",
                        v);
    }
    return cfg_fail(r, m, NULL,
                    "wrong type (got %s, expected true or "
                    "false)",
                    type_name(t));
}

/* A string that does not fit is an error, not a truncation: names are used as
 * keys (jobs, modules, catalog entries), and two long names cut to the same
 * prefix would silently refer to one thing. */
int cfg_string(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, const char *def, char *buf, size_t n)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    const char *s;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key, "missing key (expected a string)");
        /* def may be buf itself (a catalog override keeping the entry's
         * value): copying a string onto itself with snprintf is undefined
         * and glibc empties it, which made an override without `id` fail. */
        if (def != buf)
            snprintf(buf, n, "%s", def ? def : "");
        return SIM_OK;
    }
    if (config_setting_type(m) != CONFIG_TYPE_STRING)
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected a string "
                        "in double quotes)",
                        type_name(config_setting_type(m)));
    s = config_setting_get_string(m);
    if (strlen(s) >= n)
        return cfg_fail(r, m, NULL,
                        "too long (got %zu characters, expected "
                        "at most %zu)",
                        strlen(s), n - 1);
    snprintf(buf, n, "%s", s);
    return SIM_OK;
}

/* Case-insensitive, like source and precision names, because choices are typed
 * by hand; the message lists the choices in table order so the user sees the
 * same list as the scenario reference. */
int cfg_choice(cfg_reader *r, const config_setting_t *g, const char *key,
               int required, int def, const char *const *choices, int *out)
{
    char v[64], list[512];
    size_t used = 0;
    int rc = cfg_string(r, g, key, required, NULL, v, sizeof v);
    config_setting_t *m;

    if (rc != SIM_OK)
        return rc;
    m = g ? config_setting_get_member(g, key) : NULL;
    if (!m) {
        *out = def;
        return SIM_OK;
    }
    list[0] = '\0';
    for (int i = 0; choices[i]; i++) {
        int w;
        if (strcasecmp(choices[i], v) == 0) {
            *out = i;
            return SIM_OK;
        }
        w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "",
                     choices[i]);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
    }
    return cfg_fail(r, m, NULL,
                    "unknown value (got \"%s\", expected one "
                    "of: %s)",
                    v, list);
}

/* An empty list "()" and an empty array "[]" are indistinguishable to a user,
 * and libconfig types them differently; an empty array is accepted where a list
 * is expected so that "jobs = []" means no jobs. */
int cfg_member(cfg_reader *r, const config_setting_t *g, const char *key,
               int type, int required, config_setting_t **out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    *out = NULL;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key, "missing key (expected %s)",
                            type_name(type));
        return SIM_OK;
    }
    if (config_setting_type(m) != type &&
        !(type == CONFIG_TYPE_LIST &&
          config_setting_type(m) == CONFIG_TYPE_ARRAY &&
          config_setting_length(m) == 0))
        return cfg_fail(r, m, NULL, "wrong type (got %s, expected %s)",
                        type_name(config_setting_type(m)), type_name(type));
    *out = m;
    return SIM_OK;
}

/* n > 0 asks for exactly n values (12 months, 24 hours); n == 0 accepts up to
 * cap, for tables whose length is the user's (power curves). */
int cfg_doubles(cfg_reader *r, const config_setting_t *g, const char *key,
                int required, size_t n, size_t cap, double lo, double hi,
                double scale, double *out, size_t *n_out)
{
    config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
    int t, len;

    if (n_out)
        *n_out = 0;
    if (!m) {
        if (required)
            return cfg_fail(r, g, key,
                            "missing key (expected an array of "
                            "%zu numbers)",
                            n);
        return SIM_OK;
    }
    t = config_setting_type(m);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return cfg_fail(r, m, NULL,
                        "wrong type (got %s, expected an array "
                        "[ ] of numbers)",
                        type_name(t));
    len = config_setting_length(m);
    if ((n && (size_t)len != n) || (!n && (size_t)len > cap))
        return cfg_fail(r, m, NULL,
                        "wrong length (got %d values, expected "
                        "%zu)",
                        len, n ? n : cap);
    for (int i = 0; i < len; i++) {
        config_setting_t *e = config_setting_get_elem(m, (unsigned)i);
        double v;
        int te = config_setting_type(e);
        if (te == CONFIG_TYPE_INT)
            v = config_setting_get_int(e);
        else if (te == CONFIG_TYPE_INT64)
            v = (double)config_setting_get_int64(e);
        else if (te == CONFIG_TYPE_FLOAT)
            v = config_setting_get_float(e);
        else
            return cfg_fail(r, e, NULL,
                            "wrong type (got %s, expected a "
                            "number)",
                            type_name(te));
        if (!isfinite(v) || v < lo || v > hi)
            return cfg_fail(r, e, NULL,
                            "out of range (got %g, expected "
                            "[%g, %g])",
                            v, lo, hi);
        out[i] = v * scale;
    }
    if (n_out)
        *n_out = (size_t)len;
    return SIM_OK;
}

/* Strict "YYYY-MM-DD" with every digit present and the day checked against the
 * month, because dates place events on the simulation's calendar (start,
 * commissioning and submit dates); 1900..2200 bounds the years to ones a plan
 * could mean. */
int cfg_parse_date(const char *s, int64_t *days)
{
    int y, m, d, k = 0;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
    int leap, dim;
    int64_t yy, era, yoe, doy, doe;
    unsigned mm;

    if (!s || strlen(s) != 10 ||
        sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &k) != 3 || k != 10 ||
        s[4] != '-' || s[7] != '-')
        return -1;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return -1;
    if (y < 1900 || y > 2200 || m < 1 || m > 12)
        return -1;
    leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    dim = mdays[m - 1] + (m == 2 && leap);
    if (d < 1 || d > dim)
        return -1;
    /* days_from_civil (H. Hinnant's public-domain algorithm). */
    yy = m <= 2 ? y - 1 : y;
    era = yy / 400;
    yoe = yy - era * 400;
    mm = (unsigned)m;
    doy = (153 * (int64_t)(mm > 2 ? mm - 3 : mm + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe - 719468;
    return 0;
}

/* Value kinds an override string can carry. */
enum { OV_INT, OV_INT64, OV_FLOAT, OV_BOOL, OV_STRING };

/* A --set value has no type of its own, so it is classified as libconfig would
 * read the same text in a file: quoted string, boolean, integer (64-bit when it
 * carries an L or does not fit in 32 bits), float, else a bare word kept as a
 * string. The existing setting's type then decides, in cfg_override, whether
 * the value fits. */
static int ov_classify(const char *v, long long *iv, double *dv, int *bv,
                       const char **sv, char *sbuf, size_t n)
{
    char *e;
    size_t len = strlen(v);

    if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
        size_t k = len - 2 < n - 1 ? len - 2 : n - 1;
        memcpy(sbuf, v + 1, k);
        sbuf[k] = '\0';
        *sv = sbuf;
        return OV_STRING;
    }
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0) {
        *bv = strcasecmp(v, "true") == 0;
        return OV_BOOL;
    }
    if (len > 0) {
        errno = 0;
        *iv = strtoll(v, &e, 0);
        if (e != v && errno == 0 && (*e == '\0' || (*e == 'L' && !e[1]))) {
            *dv = (double)*iv;
            if (*e == 'L' || *iv > 2147483647LL || *iv < -2147483648LL)
                return OV_INT64;
            return OV_INT;
        }
        errno = 0;
        *dv = strtod(v, &e);
        if (e != v && *e == '\0')
            return OV_FLOAT;
    }
    *sv = v;
    return OV_STRING;
}

/* libconfig's setters refuse a value of another type than the setting's; a
 * setting just created with ov_type(kind) always matches, which is why
 * cfg_override ignores the result when it creates one. */
static int ov_set(config_setting_t *s, int kind, long long iv, double dv,
                  int bv, const char *sv)
{
    switch (kind) {
    case OV_INT:
        return config_setting_set_int(s, (int)iv);
    case OV_INT64:
        return config_setting_set_int64(s, iv);
    case OV_FLOAT:
        return config_setting_set_float(s, dv);
    case OV_BOOL:
        return config_setting_set_bool(s, bv);
    default:
        return config_setting_set_string(s, sv);
    }
}

static int ov_type(int kind)
{
    static const int t[] = {CONFIG_TYPE_INT, CONFIG_TYPE_INT64,
                            CONFIG_TYPE_FLOAT, CONFIG_TYPE_BOOL,
                            CONFIG_TYPE_STRING};
    return t[kind];
}

/* Shaped as a walk down the key path, one token at a time, because each token
 * can fail differently (not a group, index out of range, bad name) and the
 * message must say which. A missing member is created (so --set can give an
 * optional key the file leaves out) and recorded in the override list, so that
 * errors about it name "--set". On an existing leaf the setting keeps its type
 * when the value allows (a string key takes an unquoted word, an int64 key
 * takes a small integer); otherwise the member is replaced with the value's
 * type, so the typed getter later reports "wrong type" or "out of range"
 * against the key's contract instead of this function guessing. A failure may
 * leave groups created along the path; every caller discards the reader on
 * error, so that is never seen. */
int cfg_override(cfg_reader *r, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char key[512], sbuf[512], tok[128];
    const char *val, *p, *sv = NULL;
    long long iv = 0;
    double dv = 0;
    int bv = 0, kind;
    config_setting_t *cur = config_root_setting(&r->cfg);
    cfg_ov_list *l = ov_list(r);

    if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof key)
        return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                           "override '%s': expected KEY=VALUE, e.g. "
                           "simulation.seed=7",
                           kv);
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = '\0';
    val = eq + 1;
    kind = ov_classify(val, &iv, &dv, &bv, &sv, sbuf, sizeof sbuf);
    p = key;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t k = dot ? (size_t)(dot - p) : strlen(p);
        int last = dot == NULL;
        config_setting_t *next;

        if (k == 0 || k >= sizeof tok)
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: malformed key path (expected names and "
                               "[N] joined by '.')",
                               key);
        memcpy(tok, p, k);
        tok[k] = '\0';
        if (tok[0] == '[') {
            char *e;
            long idx = strtol(tok + 1, &e, 10);
            if (e == tok + 1 || strcmp(e, "]") != 0 || idx < 0)
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: bad index '%s' (expected [N])", key,
                                   tok);
            if (!config_setting_is_aggregate(cur) ||
                config_setting_is_group(cur))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: '%s' indexes something that is not "
                                   "a list",
                                   key, tok);
            next = config_setting_get_elem(cur, (unsigned)idx);
            if (!next)
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: index %ld out of range (got %ld, "
                                   "expected 0..%d)",
                                   key, idx, idx,
                                   config_setting_length(cur) - 1);
        } else {
            if (!config_setting_is_group(cur))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: '%s' is inside something that is "
                                   "not a group",
                                   key, tok);
            next = config_setting_get_member(cur, tok);
            if (!next) {
                next = config_setting_add(
                    cur, tok, last ? ov_type(kind) : CONFIG_TYPE_GROUP);
                if (!next)
                    return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                       "%s: '%s' is not a valid key name", key,
                                       tok);
                if (last)
                    ov_set(next, kind, iv, dv, bv, sv);
                if (l->n < CFG_MAX_OVERRIDDEN)
                    l->s[l->n++] = next;
                if (last)
                    return SIM_OK;
            }
        }
        cur = next;
        p = last ? p + k : dot + 1;
    }
    /* cur is an existing setting: keep its kind where the value allows. */
    {
        int t = config_setting_type(cur);
        int ok = 0;
        if (config_setting_is_aggregate(cur))
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: is %s; set one of its keys instead", key,
                               type_name(t));
        /* A string setting takes the value's text as written when it is not
         * quoted, so "--set site.name=reno" needs no shell-escaped quotes. */
        if (t == CONFIG_TYPE_STRING)
            ok = config_setting_set_string(cur, kind == OV_STRING ? sv : val);
        else if (t == CONFIG_TYPE_FLOAT && kind <= OV_FLOAT)
            ok = config_setting_set_float(cur, dv);
        else if (t == CONFIG_TYPE_INT && kind == OV_INT)
            ok = config_setting_set_int(cur, (int)iv);
        else if (t == CONFIG_TYPE_INT64 && (kind == OV_INT || kind == OV_INT64))
            ok = config_setting_set_int64(cur, iv);
        else if (t == CONFIG_TYPE_BOOL && kind == OV_BOOL)
            ok = config_setting_set_bool(cur, bv);
        else {
            /* A kind change (int -> float, ...): replace the member. */
            config_setting_t *parent = config_setting_parent(cur);
            const char *name = config_setting_name(cur);
            char nm[128];
            if (!name || !config_setting_is_group(parent))
                return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                                   "%s: cannot change an element's type "
                                   "(got %s, expected %s)",
                                   key, val, type_name(t));
            snprintf(nm, sizeof nm, "%s", name);
            config_setting_remove(parent, nm);
            cur = config_setting_add(parent, nm, ov_type(kind));
            ok = cur && ov_set(cur, kind, iv, dv, bv, sv);
        }
        if (!ok)
            return sim_err_set(r->err, SIM_ECONFIG, cfg_set_file, 0,
                               "%s: cannot set to '%s'", key, val);
        if (l->n < CFG_MAX_OVERRIDDEN)
            l->s[l->n++] = cur;
    }
    return SIM_OK;
}

/* The resolved configuration (file plus overrides, includes expanded) is stored
 * with every run and hashed into a sweep's key, so it is written by libconfig
 * itself: the same tree always gives the same text. */
char *cfg_write_text(const cfg_reader *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    config_write(&r->cfg, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
