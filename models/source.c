/* models/source.c: the source registry (see source.h), built from
 * SOURCE_TABLE so that the enum and the rows cannot disagree. */
#include "models/source.h"

#include <strings.h>

#define SOURCE_ROW_(k, n, l, c, r, ren, mr) {k, n, l, c, r, ren, mr},
const source_info source_table[SRC_N] = {SOURCE_TABLE(SOURCE_ROW_)};
#undef SOURCE_ROW_

const char *source_name(source_kind k)
{
    return (unsigned)k < SRC_N ? source_table[k].name : "?";
}

int source_kind_parse(const char *name)
{
    for (int k = 0; k < SRC_N; k++)
        if (strcasecmp(source_table[k].name, name) == 0)
            return k;
    return -1;
}

int source_must_take(source_kind k)
{
    return (unsigned)k < SRC_N && (source_table[k].role == SOURCE_VARIABLE ||
                                   source_table[k].must_run);
}
