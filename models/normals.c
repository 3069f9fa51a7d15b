/* models/normals.c: the built-in climate normals (see normals.h). The
 * means are facts-more.md section 5's, the mean of published monthly
 * minima and maxima; the diurnal range is the annual mean of (max - min)
 * from the same tables [D], except Las Vegas, whose table there gives only
 * means: 12 K sits inside the 10-13 K the file states. */
#include "models/normals.h"

#include <strings.h>

static const climate_normals table[] = {
    { "las-vegas",
      { 9.0, 11.5, 15.5, 19.5, 25.5, 30.5, 33.5, 32.5, 28.0, 21.0, 13.5, 9.0 },
      12.0,
      "facts-more.md 5: means of monthly min/max, "
      "https://www.climatestotravel.com/climate/united-states/las-vegas; "
      "diurnal range 12 K (file: about 10-13 K)" },
    { "reykjavik",
      { 0.0, 0.5, 0.5, 3.5, 7.0, 9.5, 11.5, 11.5, 8.5, 4.5, 2.0, 0.5 },
      4.9,
      "facts-more.md 5: https://www.climatestotravel.com/climate/iceland/"
      "reykjavik; diurnal range = mean of the table's max - min [D]" },
    { "stavanger",
      { 1.0, 1.0, 2.5, 6.0, 10.5, 12.5, 15.0, 15.0, 12.5, 9.0, 5.5, 3.5 },
      5.0,
      "facts-more.md 5 (1961-90): http://www.liquisearch.com/stavanger/"
      "climate; diurnal range = mean of the table's max - min [D]" },
    { "oslo",
      { -4.3, -3.9, 0.1, 5.0, 11.2, 15.5, 16.9, 15.7, 11.3, 6.6, 0.9, -3.0 },
      7.2,
      "facts-more.md 5: https://theodora.com/wfbcurrent/norway/"
      "norway_climate.html; diurnal range = mean of the table's max - min "
      "[D]" },
};

#define N_NORMALS (sizeof table / sizeof table[0])

const climate_normals *normals_find(const char *name)
{
    for (size_t i = 0; i < N_NORMALS; i++)
        if (strcasecmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

size_t normals_count(void) { return N_NORMALS; }

const climate_normals *normals_at(size_t i)
{
    return i < N_NORMALS ? &table[i] : NULL;
}
