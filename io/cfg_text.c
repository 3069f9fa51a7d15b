/* io/cfg_text.c: read-only questions asked of a stored configuration text
 * (see cfg_text.h). A path is walked one part at a time; "[]" fans out over
 * every element of a list. Depth is bounded by the key table's paths (four
 * parts at most today), so the walk is a plain recursion. */
#include "io/cfg_text.h"

#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

struct cfg_text {
    config_t cfg;
};

cfg_text *cfg_text_parse(const char *text)
{
    cfg_text *t = sim_xcalloc(1, sizeof *t);
    config_init(&t->cfg);
    if (!text || config_read_string(&t->cfg, text) != CONFIG_TRUE) {
        config_destroy(&t->cfg);
        free(t);
        return NULL;
    }
    return t;
}

void cfg_text_free(cfg_text *t)
{
    if (!t)
        return;
    config_destroy(&t->cfg);
    free(t);
}

/* The next part of path p into buf (at most n - 1 chars); returns the rest
 * after the dot, or NULL at the end. */
static const char *part(const char *p, char *buf, size_t n)
{
    size_t k = strcspn(p, ".");
    if (k >= n)
        k = n - 1;
    memcpy(buf, p, k);
    buf[k] = '\0';
    return p[strcspn(p, ".")] ? p + strcspn(p, ".") + 1 : NULL;
}

/* Counts, below s, the instances of the group holding the last part of
 * rest and how many set it. parent_name is the name of s's parent part
 * ("energy" for s = energy.battery), for the energy-source rule. A missing
 * named group counts as one instance with nothing set (its defaults apply)
 * unless it is a source under "energy" or a list ("[]" over nothing). */
static void walk(const config_setting_t *s, const char *rest,
                 const char *s_name, size_t *ng, size_t *ns)
{
    char name[64];
    const char *next = part(rest, name, sizeof name);
    if (!next) {
        *ng += 1;
        *ns += s && config_setting_get_member(s, name) ? 1u : 0u;
        return;
    }
    if (strcmp(name, "[]") == 0) {
        for (int i = 0; s && i < config_setting_length(s); i++)
            walk(config_setting_get_elem(s, (unsigned)i), next, name, ng, ns);
        return;
    }
    {
        const config_setting_t *m =
            s ? config_setting_get_member(s, name) : NULL;
        /* A source the scenario did not write is not on the site, so none
         * of its keys ran; a list that is absent has no elements. */
        if (!m && s_name && strcmp(s_name, "energy") == 0)
            return;
        if (!m && strncmp(next, "[]", 2) == 0)
            return;
        walk(m, next, name, ng, ns);
    }
}

void cfg_text_key_use(const cfg_text *t, const char *path, size_t *n_groups,
                      size_t *n_set)
{
    *n_groups = *n_set = 0;
    if (t)
        walk(config_root_setting(&t->cfg), path, NULL, n_groups, n_set);
}

/* Adds the string(s) of setting v to out, skipping repeats. */
static void add_strings(const config_setting_t *v, const char **out, size_t max,
                        size_t *n)
{
    if (!v)
        return;
    if (config_setting_type(v) == CONFIG_TYPE_STRING) {
        const char *s = config_setting_get_string(v);
        for (size_t i = 0; i < *n; i++)
            if (strcmp(out[i], s) == 0)
                return;
        if (*n < max)
            out[(*n)++] = s;
        return;
    }
    if (config_setting_is_aggregate(v))
        for (int i = 0; i < config_setting_length(v); i++)
            add_strings(config_setting_get_elem(v, (unsigned)i), out, max, n);
}

static void walk_str(const config_setting_t *s, const char *rest,
                     const char **out, size_t max, size_t *n)
{
    char name[64];
    const char *next;
    if (!s)
        return;
    next = part(rest, name, sizeof name);
    if (strcmp(name, "[]") == 0) {
        for (int i = 0; i < config_setting_length(s); i++)
            if (next)
                walk_str(config_setting_get_elem(s, (unsigned)i), next, out,
                         max, n);
        return;
    }
    if (name[0] == '[') { /* one element: "[2]" */
        const config_setting_t *e =
            config_setting_get_elem(s, (unsigned)strtoul(name + 1, NULL, 10));
        if (!next)
            add_strings(e, out, max, n);
        else
            walk_str(e, next, out, max, n);
        return;
    }
    if (!next)
        add_strings(config_setting_get_member(s, name), out, max, n);
    else
        walk_str(config_setting_get_member(s, name), next, out, max, n);
}

size_t cfg_text_strings(const cfg_text *t, const char *path, const char **out,
                        size_t max)
{
    size_t n = 0;
    if (t)
        walk_str(config_root_setting(&t->cfg), path, out, max, &n);
    return n;
}
