/* io/datadir_int.h: the search of io/datadir.h with its inputs as
 * arguments, for tests (a test binary cannot move /proc/self/exe). */
#ifndef IO_DATADIR_INT_H
#define IO_DATADIR_INT_H

#include <stddef.h>

/* Applies the search order of datadir.h: home is $FACTORYSIM_HOME (NULL or
 * "" = unset), exe the absolute path of the executable (NULL = unknown),
 * prefix_datadir the compiled-in share folder (NULL = none). Writes the
 * home into buf (OUT) and returns the rule that matched (1..4), or -1 when
 * it does not fit in n bytes. */
int datadir_resolve(const char *home, const char *exe,
                    const char *prefix_datadir, char *buf, size_t n);

#endif
