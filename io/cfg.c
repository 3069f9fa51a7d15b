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

#include "io/cfg_int.h"
#include "sim/mem.h"

const char cfg_set_file[] = "--set";

cfg_ov_list *cfg_ov_list_get(cfg_reader *r)
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
int cfg_is_overridden(const cfg_reader *r, const config_setting_t *s)
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
struct cfg_file *cfg_file_get(cfg_reader *r, const char *name)
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
const char *cfg_resolve(cfg_reader *r, const char *name, char *buf, size_t n)
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
        const char *ef =
            cfg_resolve(r, config_error_file(&r->cfg), eb, sizeof eb);
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
    if (cfg_is_overridden(r, s))
        return cfg_set_file;
    f = config_setting_source_file(s);
    if (!f && config_setting_source_line(s) == 0 && !config_setting_is_root(s))
        return cfg_set_file; /* created by an override */
    return f ? cfg_resolve(r, f, r->fbuf, sizeof r->fbuf)
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
