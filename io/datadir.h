/* io/datadir.h: where factorysim finds its own data. The one place that
 * answers it; the catalog loader, the default calibration file and the
 * default Exemplar reference table all ask here.
 *
 * The data home is a folder laid out like the source tree:
 *   models/   the catalog (gpus.cfg, llms.cfg, systems.cfg, modules.cfg,
 *             sources.cfg) and the fitted models/calibration.cfg
 *   data/     copied public data with provenance (data/README.md)
 *   scenarios/ bundled scenarios (installed as examples)
 * A folder counts as a home when it holds models/gpus.cfg (the marker).
 *
 * Search order (first match wins; docs/factorysim.1 FILES and README):
 *   1. $FACTORYSIM_HOME when set and non-empty, taken as given and not
 *      probed: an explicit override must win over what is found, else it
 *      could never point an installed binary at an edited catalog, and a
 *      misspelt home must fail loudly (the loader then names the missing
 *      file) rather than fall back silently to other data.
 *   2. next to the executable: the executable's folder's parent, then the
 *      grandparent (bin/factorysim in a checkout -> the source tree;
 *      build/tests/test_x -> the source tree). The executable is
 *      /proc/self/exe, so symlinks resolve to the real binary.
 *   3. the install prefix's share/factorysim: first <exe folder>/../share/
 *      factorysim (an install moved as a whole or staged under DESTDIR),
 *      then the prefix compiled in (FACTORYSIM_DATADIR, the Makefile's
 *      $(PREFIX)/share/factorysim).
 *   4. the working directory ("."), where the old rule looked.
 * The issue that asked for this (12) listed FACTORYSIM_HOME last; it is
 * first for the reason in 1: as a fallback it would be consulted only by a
 * binary that is neither in a checkout nor installed, that is almost never.
 *
 * Not thread-safe in datadir_home (static buffer); the others write into
 * the caller's buffer. Each call looks again (a few stat calls), so a test
 * can change FACTORYSIM_HOME between calls.
 */
#ifndef IO_DATADIR_H
#define IO_DATADIR_H

#include <stddef.h>

/* The data home by the order above, as a static string ("." for rule 4).
 * Never NULL. */
const char *datadir_home(void);

/* Writes the path of rel (e.g. "models/calibration.cfg") inside the data
 * home into buf (OUT, n bytes, NUL-terminated): "HOME/rel", or rel alone
 * when the home is the working directory. Returns 0, or -1 when the path
 * does not fit (buf then holds a truncated path). */
int datadir_path(const char *rel, char *buf, size_t n);

#endif
