/* io/epw.h: reader for EnergyPlus weather files (EPW), the hourly
 * typical-year format of NREL TMY3 and its conversions.
 *
 * Format (data/weather/README.md): 8 header lines starting with
 * LOCATION (city, state, country, source, WMO, lat, lon, tz_hours,
 * elevation_m), then one comma-separated line per hour, year, month, day,
 * hour (1..24, local standard time, hour h ending at h:00), minute, flags,
 * then data fields; the reader uses fields 6 dry bulb, 7 dew point, 8 RH,
 * 9 pressure, 13 GHI, 14 DNI, 15 DHI, 21 wind speed (0-based). Lines may end
 * in CRLF. The year column is ignored (a TMY stitches months of different
 * years); rows must run Jan 1 hour 1 to Dec 31 hour 24 in order. A leap-year
 * file (8784 rows) has its Feb 29 rows dropped.
 *
 * Missing codes: a missing dry bulb, dew point, GHI, DNI, DHI or wind is an
 * error; a missing pressure (999999) is replaced by the standard atmosphere
 * at the file's elevation. Wet bulb is computed (climate_wet_bulb).
 *
 * Errors carry the file and line: "FILE:LINE: field 13 (GHI): not a number
 * (got 'x', expected W h/m^2 in 0..1600)". Nothing is written to *out on
 * failure beyond scratch fields. Complexity O(rows). Only this file parses
 * EPW; it has no third-party dependency (the lines are plain unquoted
 * comma-separated fields, so libcsv is not needed).
 */
#ifndef IO_EPW_H
#define IO_EPW_H

#include "models/climate.h"
#include "sim/err.h"

/* Reads the EPW file at path into *out (OUT, caller-allocated, e.g. with
 * climate_year_new). Errors: SIM_EIO (cannot open/read), SIM_ECONFIG (a
 * malformed line: FILE:LINE in err). */
int epw_read(const char *path, climate_year *out, sim_err *err);

#endif
