/* models/scenario.c: what a resolved scenario offers besides its fields
 * (see scenario.h); loading and validation live in io/scenario_cfg.c. */
#include "models/scenario.h"

#include <stdlib.h>

void scenario_free(scenario *s)
{
    if (!s)
        return;
    catalog_free(s->cat);
    free(s->modules);
    free(s->fabric.links);
    free(s->jobs);
    free(s->resolved_text);
    free(s);
}

const char *scenario_resolved_text(const scenario *s)
{
    return s->resolved_text ? s->resolved_text : "";
}

int64_t scenario_gpus(const scenario *s, const gpu_spec *gpu)
{
    int64_t n = 0;
    for (size_t i = 0; i < s->n_modules; i++)
        if (!gpu || s->modules[i].gpu == gpu)
            n += s->modules[i].gpus;
    return n;
}

int scenario_grid_connected(const scenario *s)
{
    return s->energy.grid.present && s->energy.grid.import_limit_w > 0;
}

double scenario_it_power_w(const scenario *s)
{
    double w = 0;
    for (size_t i = 0; i < s->n_modules; i++)
        w += s->modules[i].it_power_w;
    return w;
}

double scenario_source_rating_w(const scenario *s, source_kind k)
{
    const scen_energy *e = &s->energy;
    switch (k) {
    case SRC_SOLAR:
        return e->solar.present ? e->solar.inverter_limit_w : 0.0;
    case SRC_WIND:
        return e->wind.present ? e->wind.capacity_w : 0.0;
    case SRC_BATTERY:
        return e->battery.present ? e->battery.power_w : 0.0;
    case SRC_GRID:
        return e->grid.present ? e->grid.import_limit_w : 0.0;
    default: /* the firm kinds */
        return (unsigned)k < SRC_N && source_table[k].role == SOURCE_FIRM &&
                       e->firm[k].present
                   ? e->firm[k].capacity_w
                   : 0.0;
    }
}

const char *scenario_policy_name(dispatch_policy p)
{
    return dispatch_policy_name(p);
}

const char *scenario_topology_name(fabric_topology t)
{
    switch (t) {
    case TOPO_FAT_TREE:
        return "fat-tree";
    case TOPO_RAIL_OPTIMIZED:
        return "rail-optimized";
    case TOPO_DRAGONFLY:
        return "dragonfly";
    case TOPO_STAR:
        return "star";
    }
    return "?";
}
