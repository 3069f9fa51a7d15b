/* models/normals.h: built-in monthly climate normals a scenario can select
 * by name (site.climate.normals): 12 monthly mean dry-bulb temperatures
 * [degC] and a mean diurnal range [K], from facts-more.md section 5. */
#ifndef MODELS_NORMALS_H
#define MODELS_NORMALS_H

#include <stddef.h>

typedef struct climate_normals {
    const char *name;            /* "las-vegas", "reykjavik", ... */
    double monthly_mean_c[12];   /* Jan..Dec [degC] */
    double diurnal_range_k;      /* mean daily max - min [K] */
    const char *source;          /* citation */
} climate_normals;

/* Built-in normals by name (case-insensitive), or NULL. */
const climate_normals *normals_find(const char *name);

/* Number of built-in sets and the i-th (NULL when out of range). */
size_t normals_count(void);
const climate_normals *normals_at(size_t i);

#endif
