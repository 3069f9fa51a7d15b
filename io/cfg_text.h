/* io/cfg_text.h: questions asked of a stored configuration text (the
 * scenario as a run stored it, io/db.h config_text), for the report's list
 * of assumptions (issue 25): which groups exist, which keys a scenario set,
 * which names it gave. Read-only; the text is parsed once by libconfig and
 * never validated here (it was validated when the run was made).
 *
 * Key paths are the scenario-key table's (models/scenkeys.h): "[]" stands
 * for every element of a list ("modules.[].count"). */
#ifndef IO_CFG_TEXT_H
#define IO_CFG_TEXT_H

#include <stddef.h>

typedef struct cfg_text cfg_text;

/* Parses text (libconfig syntax, no @include left in it). Returns NULL when
 * it does not parse; caller frees with cfg_text_free. */
cfg_text *cfg_text_parse(const char *text);

/* Frees t; cfg_text_free(NULL) is a no-op. */
void cfg_text_free(cfg_text *t);

/* For the key at path: *n_groups = how many instances of the group that
 * holds it apply to the run, *n_set = how many of them set the key. A group
 * the scenario left out still applies with its defaults ("fabric",
 * "power.cap_curve", "energy.battery.thermal"), except an energy source
 * ("energy.battery"), which exists only when written, and a list element,
 * which exists only as written. So n_groups - n_set instances ran on the
 * key's default. Never fails. */
void cfg_text_key_use(const cfg_text *t, const char *path, size_t *n_groups,
                      size_t *n_set);

/* The string values at path ("modules.[].hosts", a string or a list of
 * strings at each instance; "jobs.[2].release" names one element), written into
 * out (up to max, distinct, in order); returns how many. The strings live as
 * long as t. */
size_t cfg_text_strings(const cfg_text *t, const char *path, const char **out,
                        size_t max);

#endif
