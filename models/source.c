/* models/source.c: the source registry (see source.h), built from SOURCE_TABLE
 * so that the enum and the rows cannot disagree.
 *
 * This is the only place that turns a source kind into a name or a role; every
 * other file iterates source_table instead of listing kinds, so adding a kind
 * is one row in source.h. It must never hold per-scenario values (capacities,
 * prices): those live in the scenario's arrays indexed by kind. */
#include "models/source.h"

#include <strings.h>

#define SOURCE_ROW_(k, n, l, c, r, ren, mr) {k, n, l, c, r, ren, mr},
const source_info source_table[SRC_N] = {SOURCE_TABLE(SOURCE_ROW_)};
#undef SOURCE_ROW_

const char *source_name(source_kind k)
{
    return (unsigned)k < SRC_N ? source_table[k].name : "?";
}

/* Case-insensitive because scenario keys and --set values are typed by hand; a
 * linear scan is fine for the handful of kinds there are. */
int source_kind_parse(const char *name)
{
    for (int k = 0; k < SRC_N; k++)
        if (strcasecmp(source_table[k].name, name) == 0)
            return k;
    return -1;
}

/* Variable sources (solar, wind) and must-run firm ones (geothermal) are taken
 * first by the dispatch whether or not the load needs them; what is not used is
 * curtailed. One predicate here keeps dispatch and reports agreeing on which
 * sources those are. */
int source_must_take(source_kind k)
{
    return (unsigned)k < SRC_N && (source_table[k].role == SOURCE_VARIABLE ||
                                   source_table[k].must_run);
}
