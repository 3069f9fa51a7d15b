/* models/system.h: a system or rack, the unit a module hosts: an 8-GPU
 * HGX/DGX server or an NVL72 rack (models/systems.cfg).
 *
 * All quantities in SI (watts). max_power_w is the unit's maximum input
 * rating; overhead_w = max_power_w - gpus * GPU TDP is everything that is not
 * a GPU (CPUs, NVSwitch, NICs, DPUs, fans or pumps, PSU loss) at that rating
 * (facts.md 1.8). A module's power budget is filled with max_power_w.
 */
#ifndef MODELS_SYSTEM_H
#define MODELS_SYSTEM_H

typedef struct system_spec {
    char name[32];           /* catalog id, e.g. "hgx-b300" */
    char gpu[32];            /* GPU type (a gpu_spec name), "B300" */
    int gpus;                /* GPUs per unit, >= 1 (8 or 72) */
    double max_power_w;      /* maximum input power of one unit [W] */
    double gpu_power_w;      /* gpus * GPU TDP [W] */
    double overhead_w;       /* max_power_w - gpu_power_w [W], >= 0 */
    double typical_fraction; /* steady training draw / max_power_w */
    int liquid;              /* 1 liquid-cooled, 0 air-cooled */
    int announced;           /* 1 when figures are announced only */
    int sharp;               /* 1 when the system's scale-out fabric reduces
                                in the network (SHARP): a DP all-reduce
                                sends each byte once (models/tp_comm.c) */
    double capex_usd;        /* capital cost of one unit incl. its share of
                                the scale-out fabric [USD], >= 0 */
    double life_s;           /* depreciation lifetime [s], > 0 */
    double rack_storage_j;   /* energy storage in the unit's power supplies
                                that smooths its swings (issue 21,
                                models/powerdyn.h pd_rack_smooth) [J]; 0 none */
} system_spec;

#endif
