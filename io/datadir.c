/* io/datadir.c: the data-home search of datadir.h. Each candidate is
 * probed for models/gpus.cfg with access(2); the executable's path comes
 * from /proc/self/exe (Linux; elsewhere rule 2 and the relative part of
 * rule 3 simply find nothing and the compiled-in prefix is tried). */
#include "io/datadir.h"
#include "io/datadir_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FACTORYSIM_DATADIR
#define FACTORYSIM_DATADIR "/usr/local/share/factorysim"
#endif

#define MARKER "models/gpus.cfg"

/* 1 when dir holds the marker file. */
static int is_home(const char *dir)
{
    char probe[PATH_MAX + 32];
    int k = snprintf(probe, sizeof probe, "%s/" MARKER, dir);
    return k > 0 && (size_t)k < sizeof probe && access(probe, R_OK) == 0;
}

/* Copies s into buf; -1 when it does not fit. */
static int put(char *buf, size_t n, const char *s)
{
    int k = snprintf(buf, n, "%s", s);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Cuts the last path component off p in place; 0 when there is none. */
static int up(char *p)
{
    char *s = strrchr(p, '/');
    if (!s || s == p)
        return 0;
    *s = '\0';
    return 1;
}

int datadir_resolve(const char *home, const char *exe,
                    const char *prefix_datadir, char *buf, size_t n)
{
    char dir[PATH_MAX], cand[PATH_MAX + 32];

    if (home && home[0])
        return put(buf, n, home) == 0 ? 1 : -1;
    if (exe && exe[0] == '/' && put(dir, sizeof dir, exe) == 0 && up(dir)) {
        char parent[PATH_MAX];
        /* dir = the executable's folder. Rule 2: its parent, then the
         * grandparent. */
        memcpy(parent, dir, sizeof parent);
        for (int level = 0; level < 2 && up(parent); level++)
            if (is_home(parent))
                return put(buf, n, parent) == 0 ? 2 : -1;
        /* Rule 3, relative part: <exe folder>/../share/factorysim. */
        memcpy(parent, dir, sizeof parent);
        if (up(parent)) {
            snprintf(cand, sizeof cand, "%s/share/factorysim", parent);
            if (is_home(cand))
                return put(buf, n, cand) == 0 ? 3 : -1;
        }
    }
    if (prefix_datadir && prefix_datadir[0] && is_home(prefix_datadir))
        return put(buf, n, prefix_datadir) == 0 ? 3 : -1;
    return put(buf, n, ".") == 0 ? 4 : -1;
}

const char *datadir_home(void)
{
    static char home[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (k > 0)
        exe[k] = '\0';
    if (datadir_resolve(getenv("FACTORYSIM_HOME"), k > 0 ? exe : NULL,
                        FACTORYSIM_DATADIR, home, sizeof home) < 0)
        snprintf(home, sizeof home, "."); /* a home longer than PATH_MAX */
    return home;
}

int datadir_path(const char *rel, char *buf, size_t n)
{
    const char *home = datadir_home();
    int k = strcmp(home, ".") == 0 ? snprintf(buf, n, "%s", rel)
                                   : snprintf(buf, n, "%s/%s", home, rel);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}
