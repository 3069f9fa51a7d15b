/* io/datadir.c: the data-home search of datadir.h. Each candidate is probed for
 * models/gpus.cfg with access(2); the executable's path comes from
 * /proc/self/exe (Linux; elsewhere rule 2 and the relative part of rule 3
 * simply find nothing and the compiled-in prefix is tried).
 *
 * This is the only file that knows where factorysim's own data lives; loaders
 * ask datadir_path and never build a path to the catalog themselves. It must
 * never open or read the data (it only probes for the marker), and never fail:
 * rule 4 (".") is always an answer, so a missing catalog is reported by the
 * loader that needs it, with the path it tried. */
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

/* Split from datadir_home so that tests can pass any home, executable path and
 * prefix without touching the environment or the binary's location. The return
 * value is the rule that matched (1-4), which the tests assert. */
int datadir_resolve(const char *home, const char *exe,
                    const char *prefix_datadir, char *buf, size_t n)
{
    char dir[PATH_MAX], cand[PATH_MAX + 32];

    /* Rule 1 is not probed (datadir.h): an explicit home wins even when it
     * lacks the marker, so a mistyped FACTORYSIM_HOME fails loudly in the
     * loader. */
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
    /* The compiled-in prefix is probed like the others: an installed binary
     * with no data should fall back to ".", not to a path that does not exist.
     */
    if (prefix_datadir && prefix_datadir[0] && is_home(prefix_datadir))
        return put(buf, n, prefix_datadir) == 0 ? 3 : -1;
    return put(buf, n, ".") == 0 ? 4 : -1;
}

/* readlink does not terminate its result, hence the explicit NUL and the size -
 * 1. The search runs on every call (datadir.h), so a test may change
 * FACTORYSIM_HOME between calls. */
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

/* Rule 4 yields bare relative paths ("models/gpus.cfg", not
 * "./models/gpus.cfg"), which keeps error messages as short as the user typed
 * them. */
int datadir_path(const char *rel, char *buf, size_t n)
{
    const char *home = datadir_home();
    int k = strcmp(home, ".") == 0 ? snprintf(buf, n, "%s", rel)
                                   : snprintf(buf, n, "%s/%s", home, rel);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}
