/* models/solar.h: the sun's position, clear-sky irradiance, plane-of-array
 * irradiance for fixed-tilt and single-axis-tracking arrays, and a
 * PVWatts-style DC/AC conversion. See docs/power-model.md section 3.
 *
 * Model. Time is local standard time of a nominal non-leap year: hour of year
 * hoy_h in [0, 8760) (0 = Jan 1 00:00), with the site's UTC offset tz_h.
 * Sun position follows the NOAA solar calculator (Meeus-based); clear-sky
 * GHI is Haurwitz's (facts.md 3.1); transposition to the plane of array uses
 * the Perez et al. (1990) anisotropic sky by default (as NREL's PVWatts and
 * pvlib's usual chain), or the isotropic sky (Liu-Jordan) of the reference
 * Mojave run of facts-more.md 5, both with isotropic ground reflection; DC
 * power is PVWatts's
 * P_dc = (G_poa,eff / 1000) P_dc0 (1 + gamma (T_cell - 25)) (facts.md 3.1)
 * times (1 - losses) (14.08% default, facts.md 3.1); cell temperature is the
 * Sandia open-rack model (King et al. 2004, SAND2004-3535); the inverter has
 * a flat efficiency and clips at P_ac0 = P_dc0 / dc_ac_ratio.
 *
 * Units: angles in degrees at the API, irradiance in W/m^2, power in W,
 * temperature in degC. Invariants: irradiance and power are >= 0 and zero
 * when the sun is below the horizon; AC power never exceeds P_ac0. Every
 * function is pure and O(1); none allocates or prints.
 */
#ifndef MODELS_SOLAR_H
#define MODELS_SOLAR_H

#include <stddef.h>

#include "models/climate.h"
#include "sim/err.h"

#define SOLAR_CONSTANT_W_M2 1361.0 /* Kopp & Lean (2011), GRL 38 L01706 */

/* Where the sun is at one instant. */
typedef struct solar_pos {
    double zenith_deg;     /* 0 = overhead, > 90 below the horizon */
    double azimuth_deg;    /* clockwise from north: 90 east, 180 south */
    double dni_extra_w_m2; /* extraterrestrial normal irradiance */
    double decl_deg;       /* solar declination */
} solar_pos;

/* Sky diffuse model of the transposition. */
typedef enum solar_sky {
    SOLAR_SKY_PEREZ = 0,    /* Perez et al. 1990 (default) */
    SOLAR_SKY_ISOTROPIC = 1 /* Liu & Jordan 1963 */
} solar_sky;

typedef enum solar_mount {
    SOLAR_FIXED = 0,      /* fixed tilt and azimuth */
    SOLAR_SINGLE_AXIS = 1 /* horizontal axis, rotates east-west */
} solar_mount;

/* One PV plant. Defaults (solar_cfg_default) follow facts.md 3.1 and the
 * facts-more.md 5 Mojave reference run; each is overridable. */
typedef struct solar_cfg {
    double p_dc0_w;     /* DC nameplate at STC, > 0 */
    double dc_ac_ratio; /* P_dc0 / P_ac0 (ILR), NREL ATB 1.34 */
    solar_mount tracking;
    double tilt_deg;      /* fixed: tilt from horizontal [0, 90] */
    double azimuth_deg;   /* fixed: surface azimuth (180 = south);
                             single-axis: axis azimuth (180 = N-S axis) */
    double max_angle_deg; /* single-axis rotation limit, 60 */
    int backtrack;        /* single-axis: 1 = backtrack so rows never shade
                             each other (default; row shading itself is not
                             modelled, so 0 is optimistic) */
    double gcr;           /* ground coverage ratio for backtracking, 0.35
                             (assumption) */
    double albedo;        /* ground reflectance, 0.2 (facts-more.md 5) */
    double gamma_per_k;   /* power temperature coefficient, -0.0037
                             (facts-more.md 5; facts.md 3.1 range) */
    double losses;        /* PVWatts system losses, 0.1408 (facts.md 3.1) */
    double inv_eff;       /* inverter efficiency, 0.96 (facts-more.md 5) */
    double iam_b0;        /* ASHRAE incidence-angle modifier on beam,
                             0.05 (pvlib iam.ashrae default); 0 = off */
    double sapm_a;        /* Sandia cell-temperature a, -3.56 (open rack,
                             glass/polymer, King et al. 2004) */
    double sapm_b;        /* Sandia b [s/m], -0.075 */
    double sapm_dt_k;     /* Sandia deltaT [K], 3 */
    solar_sky sky;        /* diffuse model, SOLAR_SKY_PEREZ by default */
} solar_cfg;

/* One hour's (or instant's) output of a plant. */
typedef struct solar_out {
    double poa_w_m2; /* plane-of-array irradiance (after IAM) */
    double t_cell_c; /* cell temperature */
    double p_dc_w;   /* DC output after losses */
    double p_ac_w;   /* AC output after inverter and clipping */
    double aoi_deg;  /* angle of incidence on the array */
    double rot_deg;  /* tracker rotation (0 for fixed) */
} solar_out;

/* Fills c with the defaults above for a plant of p_dc0_w, single-axis. */
void solar_cfg_default(solar_cfg *c, double p_dc0_w);

/* Checks ranges (p_dc0 > 0, 0.5 <= dc_ac <= 3, losses in [0,1), ...).
 * Errors: SIM_EINVAL with a message naming the field. */
int solar_cfg_check(const solar_cfg *c, sim_err *err);

/* Sun position at hour of year hoy_h (local standard time, may be
 * fractional, any real: it wraps by 8760) at lat_deg (north +), lon_deg
 * (east +), UTC offset tz_h (east +). NOAA solar calculator equations
 * (after Meeus, Astronomical Algorithms), without refraction, for a nominal
 * year 2021. Pure. */
void solar_position(double hoy_h, double lat_deg, double lon_deg, double tz_h,
                    solar_pos *out /* OUT */);

/* Sun position representative of the hour [hoy0_h, hoy0_h + 1): the middle
 * of the part of the hour the sun is up (found by bisection on the
 * horizon crossing), so sunrise and sunset hours get a sun above the
 * horizon. Returns the up fraction of the hour in [0, 1] (0: down all hour,
 * *out then holds the midpoint). */
double solar_position_hour(double hoy0_h, double lat_deg, double lon_deg,
                           double tz_h, solar_pos *out /* OUT */);

/* Extraterrestrial irradiance on a horizontal plane [W/m^2] (0 below the
 * horizon). */
double solar_extra_horizontal(const solar_pos *p);

/* Haurwitz clear-sky GHI [W/m^2]: 1098 cos z exp(-0.059 / cos z), 0 for
 * z >= 90 (facts.md 3.1; Sandia SAND2012-2389). */
double solar_clearsky_haurwitz(double zenith_deg);

/* Relative (not pressure-corrected) optical airmass at zenith_deg, Kasten
 * & Young (1989), Applied Optics 28(22) 4735: 1 / (cos z + 0.50572
 * (96.07995 - z)^-1.6364), z in degrees. Returns 0 for z >= 90 (sun down). */
double solar_airmass_kasten_young(double zenith_deg);

/* Perez et al. (1990) sky diffuse irradiance [W/m^2] on a surface of tilt
 * tilt_deg whose cosine of the angle of incidence is cos_aoi, with the sun
 * at *p (its zenith and extraterrestrial normal irradiance are used) and
 * horizontal diffuse dhi and direct normal dni [W/m^2]. All-sites composite
 * 1990 coefficients (Perez et al. 1990, Solar Energy 44(5) 271-289,
 * table 6). Returns 0 when dhi <= 0 or the sun is down; never negative. */
double solar_perez_sky(const solar_pos *p, double tilt_deg, double cos_aoi,
                       double dhi_w_m2, double dni_w_m2);

/* Name of a sky model ("perez", "isotropic") and its parse; parse returns
 * -1 for an unknown name. */
const char *solar_sky_name(solar_sky s);
int solar_sky_parse(const char *name);

/* Erbs et al. (1982) diffuse fraction of global horizontal irradiance from
 * the hourly clearness index kt = GHI / extraterrestrial horizontal. */
double solar_erbs_fraction(double kt);

/* Splits ghi into *dni and *dhi (OUT) with the Erbs model (DNI = 0 for
 * zenith > 87 deg, as pvlib). */
void solar_decompose_erbs(double ghi_w_m2, const solar_pos *p, double *dni_w_m2,
                          double *dhi_w_m2);

/* The plant's output for irradiance (ghi, dni, dhi), ambient t_amb_c and
 * wind at 10 m wind_m_s, with the sun at *p. Pure; O(1). */
void solar_plant(const solar_cfg *c, const solar_pos *p, double ghi_w_m2,
                 double dni_w_m2, double dhi_w_m2, double t_amb_c,
                 double wind_m_s, solar_out *out /* OUT */);

/* The power-temperature and clipping part alone: AC power for a given POA
 * irradiance and cell temperature. */
double solar_ac_from_poa(const solar_cfg *c, double poa_w_m2, double t_cell_c,
                         double *p_dc_w /* OUT, may be NULL */);

/* AC nameplate P_ac0 = P_dc0 / dc_ac_ratio [W]. */
double solar_p_ac0_w(const solar_cfg *c);

/* A year of a plant's output on a climate_year. */
typedef struct solar_annual {
    double e_ac_j;          /* AC energy over the year */
    double e_dc_j;          /* DC energy after losses */
    double poa_kwh_m2;      /* plane-of-array insolation */
    double cf_ac;           /* e_ac / (P_ac0 x 8760 h) */
    double cf_dc;           /* e_ac / (P_dc0 x 8760 h), the "DC basis" of
                               facts-more.md 5 */
    double month_cf_ac[12]; /* monthly AC capacity factor */
    double clip_j;          /* energy lost to inverter clipping */
} solar_annual;

/* Runs plant c over the 8760 hours of y (sun at each hour's up-time
 * midpoint, solar_position_hour; irradiance is the hour's mean). Writes
 * each hour's mean AC power into p_ac_w[8760] (OUT, may be NULL) and the
 * totals into *out (OUT, may be NULL). Pure; O(8760). */
void solar_year(const solar_cfg *c, const climate_year *y, double *p_ac_w,
                solar_annual *out);

#endif
