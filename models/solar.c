/* models/solar.c: sun position, clear sky, transposition and PVWatts-style
 * PV output. Every equation below names its source; docs/power-model.md 3
 * collects them.
 *
 * Geometry is worked in a local east-north-up frame: the sun vector is
 * s = (sin z sin a, sin z cos a, cos z) for zenith z and azimuth a, and a
 * surface normal n gives cos(AOI) = n . s. A single-axis tracker rotates
 * about a horizontal axis of azimuth axis_az; its normal is the vertical
 * rotated by the tracker angle towards the axis-perpendicular direction.
 */
#include "models/solar.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Julian day of 2021-01-01 00:00 UTC, the nominal (non-leap) year. */
#define JD_2021 2459215.5

static double wrap360(double x)
{
    x = fmod(x, 360.0);
    return x < 0 ? x + 360.0 : x;
}

void solar_cfg_default(solar_cfg *c, double p_dc0_w)
{
    c->p_dc0_w = p_dc0_w;
    c->dc_ac_ratio = 1.34;
    c->tracking = SOLAR_SINGLE_AXIS;
    c->tilt_deg = 0.0;
    c->azimuth_deg = 180.0;
    c->max_angle_deg = 60.0;
    c->backtrack = 1;
    c->gcr = 0.35;
    c->albedo = 0.2;
    c->gamma_per_k = -0.0037;
    c->losses = 0.1408;
    c->inv_eff = 0.96;
    c->iam_b0 = 0.05;
    c->sapm_a = -3.56;
    c->sapm_b = -0.075;
    c->sapm_dt_k = 3.0;
    c->sky = SOLAR_SKY_PEREZ;
}

int solar_cfg_check(const solar_cfg *c, sim_err *err)
{
    if (!(c->p_dc0_w > 0 && isfinite(c->p_dc0_w)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "solar.p_dc0_w: must be > 0 (got %g)", c->p_dc0_w);
    if (!(c->dc_ac_ratio >= 0.5 && c->dc_ac_ratio <= 3.0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.dc_ac_ratio: out of range (got %g, expected 0.5..3)",
            c->dc_ac_ratio);
    if (!(c->tilt_deg >= 0 && c->tilt_deg <= 90))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.tilt_deg: out of range (got %g, expected 0..90)",
            c->tilt_deg);
    if (!(c->max_angle_deg >= 0 && c->max_angle_deg <= 90))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.max_angle_deg: out of range (got %g, expected 0..90)",
            c->max_angle_deg);
    if (!(c->gcr > 0 && c->gcr < 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "solar.gcr: out of range (got %g, expected (0, 1))",
                           c->gcr);
    if (!(c->albedo >= 0 && c->albedo <= 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "solar.albedo: out of range (got %g, expected 0..1)",
                           c->albedo);
    if (!(c->losses >= 0 && c->losses < 1))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.losses: out of range (got %g, expected [0, 1))", c->losses);
    if (!(c->inv_eff > 0 && c->inv_eff <= 1))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.inv_eff: out of range (got %g, expected (0, 1])",
            c->inv_eff);
    if (!(c->gamma_per_k >= -0.02 && c->gamma_per_k <= 0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar.gamma_per_k: out of range (got %g, expected -0.02..0)",
            c->gamma_per_k);
    if (c->sky != SOLAR_SKY_PEREZ && c->sky != SOLAR_SKY_ISOTROPIC)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "solar.sky: unknown sky model (got %d, expected "
                           "perez or isotropic)",
                           (int)c->sky);
    if (!(c->iam_b0 >= 0 && c->iam_b0 < 1) || !isfinite(c->sapm_a) ||
        !isfinite(c->sapm_b) || !isfinite(c->sapm_dt_k))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "solar: iam_b0 or Sandia temperature parameters invalid");
    return SIM_OK;
}

/* NOAA solar calculator (NOAA Global Monitoring Laboratory spreadsheet,
 * equations from Meeus 1998). jc = Julian centuries since J2000.0. */
void solar_position(double hoy_h, double lat_deg, double lon_deg, double tz_h,
                    solar_pos *out)
{
    double hoy = fmod(hoy_h, 8760.0);
    if (hoy < 0)
        hoy += 8760.0;
    double jd = JD_2021 + (hoy - tz_h) / 24.0;
    double jc = (jd - 2451545.0) / 36525.0;
    double l0 = wrap360(280.46646 + jc * (36000.76983 + jc * 0.0003032));
    double m = 357.52911 + jc * (35999.05029 - 0.0001537 * jc);
    double e = 0.016708634 - jc * (0.000042037 + 0.0000001267 * jc);
    double mr = m * DEG;
    double ctr = sin(mr) * (1.914602 - jc * (0.004817 + 0.000014 * jc)) +
                 sin(2 * mr) * (0.019993 - 0.000101 * jc) +
                 sin(3 * mr) * 0.000289;
    double true_long = l0 + ctr;
    double true_anom = m + ctr;
    double r_au = 1.000001018 * (1 - e * e) / (1 + e * cos(true_anom * DEG));
    double omega = (125.04 - 1934.136 * jc) * DEG;
    double app_long = true_long - 0.00569 - 0.00478 * sin(omega);
    double eps0 =
        23.0 +
        (26.0 +
         (21.448 - jc * (46.815 + jc * (0.00059 - jc * 0.001813))) / 60.0) /
            60.0;
    double eps = (eps0 + 0.00256 * cos(omega)) * DEG;
    double decl = asin(sin(eps) * sin(app_long * DEG));
    double y = tan(eps / 2) * tan(eps / 2);
    double l0r = l0 * DEG;
    double eot_min = 4.0 / DEG *
                     (y * sin(2 * l0r) - 2 * e * sin(mr) +
                      4 * e * y * sin(mr) * cos(2 * l0r) -
                      0.5 * y * y * sin(4 * l0r) - 1.25 * e * e * sin(2 * mr));
    double local_min = fmod(hoy, 24.0) * 60.0;
    double tst =
        fmod(local_min + eot_min + 4.0 * lon_deg - 60.0 * tz_h, 1440.0);
    if (tst < 0)
        tst += 1440.0;
    double ha = tst / 4.0 < 0 ? tst / 4.0 + 180.0 : tst / 4.0 - 180.0;
    double lat = lat_deg * DEG, har = ha * DEG;
    double cz = sin(lat) * sin(decl) + cos(lat) * cos(decl) * cos(har);
    if (cz > 1)
        cz = 1;
    if (cz < -1)
        cz = -1;
    double z = acos(cz);
    double az;
    double den = cos(lat) * sin(z);
    if (fabs(den) < 1e-12) {
        az = lat_deg > 0 ? 180.0 : 0.0;
    } else {
        double ca = (sin(lat) * cz - sin(decl)) / den;
        if (ca > 1)
            ca = 1;
        if (ca < -1)
            ca = -1;
        double a = acos(ca) / DEG;
        az = ha > 0 ? wrap360(a + 180.0) : wrap360(540.0 - a);
    }
    out->zenith_deg = z / DEG;
    out->azimuth_deg = az;
    out->dni_extra_w_m2 = SOLAR_CONSTANT_W_M2 / (r_au * r_au);
    out->decl_deg = decl / DEG;
}

double solar_position_hour(double hoy0_h, double lat_deg, double lon_deg,
                           double tz_h, solar_pos *out)
{
    solar_pos a, b;
    solar_position(hoy0_h, lat_deg, lon_deg, tz_h, &a);
    solar_position(hoy0_h + 1.0, lat_deg, lon_deg, tz_h, &b);
    int up_a = a.zenith_deg < 90.0, up_b = b.zenith_deg < 90.0;
    if (up_a == up_b) {
        /* Up all hour or down all hour (a sun that rises and sets within one
         * hour only happens near the poles and is ignored). */
        solar_position(hoy0_h + 0.5, lat_deg, lon_deg, tz_h, out);
        if (up_a)
            return 1.0;
        return out->zenith_deg < 90.0 ? 1.0 : 0.0;
    }
    /* One crossing: bisect for it (40 halvings: < 1e-8 h). */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 40; i++) {
        double mid = 0.5 * (lo + hi);
        solar_pos p;
        solar_position(hoy0_h + mid, lat_deg, lon_deg, tz_h, &p);
        if ((p.zenith_deg < 90.0) == up_a)
            lo = mid;
        else
            hi = mid;
    }
    double cross = 0.5 * (lo + hi);
    double t_mid = up_a ? cross / 2.0 : (cross + 1.0) / 2.0;
    solar_position(hoy0_h + t_mid, lat_deg, lon_deg, tz_h, out);
    return up_a ? cross : 1.0 - cross;
}

double solar_extra_horizontal(const solar_pos *p)
{
    double cz = cos(p->zenith_deg * DEG);
    return cz > 0 ? p->dni_extra_w_m2 * cz : 0.0;
}

double solar_clearsky_haurwitz(double zenith_deg)
{
    double cz = cos(zenith_deg * DEG);
    if (zenith_deg >= 90.0 || cz <= 0)
        return 0.0;
    return 1098.0 * cz * exp(-0.059 / cz);
}

double solar_airmass_kasten_young(double zenith_deg)
{
    if (!(zenith_deg < 90.0))
        return 0.0;
    return 1.0 / (cos(zenith_deg * DEG) +
                  0.50572 * pow(96.07995 - zenith_deg, -1.6364));
}

/* Perez et al. (1990), Solar Energy 44(5) 271-289: the sky is an isotropic
 * dome plus a circumsolar disc (weight F1) and a horizon band (weight F2).
 * F1 and F2 depend on the sky clearness eps (bins with the lower edges
 * below, table 1 of the paper), the brightness delta = DHI m / E0n and the
 * zenith z in radians: F1 = max(0, f11 + f12 delta + f13 z), F2 = f21 +
 * f22 delta + f23 z (table 6, all-sites composite; the same table pvlib
 * calls "allsitescomposite1990"). The circumsolar term projects like beam,
 * a / b with a = max(0, cos AOI) and b = max(cos 85 deg, cos z) (eq. 9). */
static const double perez_eps_edge[7] = {1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2};
static const double perez_f[8][6] = {
    /* f11      f12      f13      f21      f22      f23 */
    {-0.0080, 0.5880, -0.0620, -0.0600, 0.0720, -0.0220},
    {0.1300, 0.6830, -0.1510, -0.0190, 0.0660, -0.0290},
    {0.3300, 0.4870, -0.2210, 0.0550, -0.0640, -0.0260},
    {0.5680, 0.1870, -0.2950, 0.1090, -0.1520, -0.0140},
    {0.8730, -0.3920, -0.3620, 0.2260, -0.4620, 0.0010},
    {1.1320, -1.2370, -0.4120, 0.2880, -0.8230, 0.0560},
    {1.0600, -1.6000, -0.3590, 0.2640, -1.1270, 0.1310},
    {0.6780, -0.3270, -0.2500, 0.1560, -1.3770, 0.2510},
};

double solar_perez_sky(const solar_pos *p, double tilt_deg, double cos_aoi,
                       double dhi, double dni)
{
    double am = solar_airmass_kasten_young(p->zenith_deg);
    if (!(dhi > 0) || am <= 0 || !(p->dni_extra_w_m2 > 0))
        return 0.0;
    if (dni < 0)
        dni = 0;
    double z = p->zenith_deg * DEG;
    /* kappa = 1.041 for z in radians (eq. 1). */
    double kz3 = 1.041 * z * z * z;
    double eps = ((dhi + dni) / dhi + kz3) / (1.0 + kz3);
    double delta = dhi * am / p->dni_extra_w_m2;
    int bin = 0;
    while (bin < 7 && eps >= perez_eps_edge[bin])
        bin++;
    const double *f = perez_f[bin];
    double f1 = f[0] + f[1] * delta + f[2] * z;
    if (f1 < 0)
        f1 = 0;
    double f2 = f[3] + f[4] * delta + f[5] * z;
    double a = cos_aoi > 0 ? cos_aoi : 0.0;
    double b = cos(z);
    double b85 = cos(85.0 * DEG);
    if (b < b85)
        b = b85;
    double t = tilt_deg * DEG;
    double sky =
        dhi * (0.5 * (1.0 - f1) * (1.0 + cos(t)) + f1 * a / b + f2 * sin(t));
    return sky > 0 ? sky : 0.0;
}

const char *solar_sky_name(solar_sky s)
{
    return s == SOLAR_SKY_ISOTROPIC ? "isotropic" : "perez";
}

int solar_sky_parse(const char *name)
{
    if (strcmp(name, "perez") == 0)
        return SOLAR_SKY_PEREZ;
    if (strcmp(name, "isotropic") == 0)
        return SOLAR_SKY_ISOTROPIC;
    return -1;
}

/* Erbs, Klein & Duffie, Solar Energy 28(4) 293-302 (1982), eq. 1. */
double solar_erbs_fraction(double kt)
{
    if (kt <= 0.22)
        return 1.0 - 0.09 * kt;
    if (kt <= 0.80)
        return 0.9511 - 0.1604 * kt + 4.388 * kt * kt - 16.638 * kt * kt * kt +
               12.336 * kt * kt * kt * kt;
    return 0.165;
}

void solar_decompose_erbs(double ghi, const solar_pos *p, double *dni,
                          double *dhi)
{
    double cz = cos(p->zenith_deg * DEG);
    if (ghi <= 0 || p->zenith_deg >= 90.0) {
        *dni = 0;
        *dhi = ghi > 0 ? ghi : 0;
        return;
    }
    /* pvlib's floor on cos z (0.065) keeps kt finite at the horizon. */
    double kt = ghi / (p->dni_extra_w_m2 * (cz > 0.065 ? cz : 0.065));
    if (kt > 1)
        kt = 1;
    double df = solar_erbs_fraction(kt);
    *dhi = df * ghi;
    *dni = p->zenith_deg > 87.0 ? 0.0 : (ghi - *dhi) / cz;
    if (p->zenith_deg > 87.0)
        *dhi = ghi;
}

double solar_p_ac0_w(const solar_cfg *c)
{
    return c->p_dc0_w / c->dc_ac_ratio;
}

double solar_ac_from_poa(const solar_cfg *c, double poa, double t_cell_c,
                         double *p_dc_w)
{
    double pdc = 0.0;
    if (poa > 0) {
        pdc = poa / 1000.0 * c->p_dc0_w *
              (1.0 + c->gamma_per_k * (t_cell_c - 25.0));
        pdc *= 1.0 - c->losses;
        if (pdc < 0)
            pdc = 0;
    }
    if (p_dc_w)
        *p_dc_w = pdc;
    double pac = pdc * c->inv_eff;
    double cap = solar_p_ac0_w(c);
    return pac > cap ? cap : pac;
}

/* Tracker rotation for a horizontal axis of azimuth axis_az (Marion & Dobos
 * 2013, NREL/TP-6A20-58891, for axis tilt 0), with Lorenzo et al. (2011)
 * backtracking. Returns the rotation [deg], positive towards axis_az + 90. */
static double tracker_angle(const solar_cfg *c, double sx, double sy, double sz)
{
    double ax = c->azimuth_deg * DEG;
    /* Horizontal unit vector perpendicular to the axis, axis_az + 90 deg. */
    double px = sin(ax + M_PI / 2), py = cos(ax + M_PI / 2);
    double sp = sx * px + sy * py;
    double th = atan2(sp, sz) / DEG;
    if (c->backtrack) {
        double t = cos(th * DEG) / c->gcr;
        if (t < 1.0) {
            double corr = -(th > 0 ? 1.0 : -1.0) * acos(t) / DEG;
            th += corr;
        }
    }
    if (th > c->max_angle_deg)
        th = c->max_angle_deg;
    if (th < -c->max_angle_deg)
        th = -c->max_angle_deg;
    return th;
}

void solar_plant(const solar_cfg *c, const solar_pos *p, double ghi, double dni,
                 double dhi, double t_amb_c, double wind_m_s, solar_out *out)
{
    out->poa_w_m2 = 0;
    out->p_dc_w = 0;
    out->p_ac_w = 0;
    out->aoi_deg = 90;
    out->rot_deg = 0;
    out->t_cell_c = t_amb_c;
    if (p->zenith_deg >= 90.0 || (ghi <= 0 && dni <= 0 && dhi <= 0))
        return;
    double z = p->zenith_deg * DEG, a = p->azimuth_deg * DEG;
    double sx = sin(z) * sin(a), sy = sin(z) * cos(a), sz = cos(z);
    double nx, ny, nz, tilt;
    if (c->tracking == SOLAR_SINGLE_AXIS) {
        double th = tracker_angle(c, sx, sy, sz);
        double ax = c->azimuth_deg * DEG;
        double px = sin(ax + M_PI / 2), py = cos(ax + M_PI / 2);
        nx = sin(th * DEG) * px;
        ny = sin(th * DEG) * py;
        nz = cos(th * DEG);
        tilt = fabs(th);
        out->rot_deg = th;
    } else {
        double b = c->tilt_deg * DEG, g = c->azimuth_deg * DEG;
        nx = sin(b) * sin(g);
        ny = sin(b) * cos(g);
        nz = cos(b);
        tilt = c->tilt_deg;
    }
    double caoi = nx * sx + ny * sy + nz * sz;
    if (caoi > 1)
        caoi = 1;
    out->aoi_deg = acos(caoi < -1 ? -1 : caoi) / DEG;
    double beam = caoi > 0 ? dni * caoi : 0.0;
    if (c->iam_b0 > 0 && caoi > 0) {
        /* ASHRAE IAM (Souka & Safwat 1966): 1 - b0 (1 / cos AOI - 1). */
        double iam = 1.0 - c->iam_b0 * (1.0 / caoi - 1.0);
        beam *= iam > 0 ? iam : 0;
    }
    double ct = cos(tilt * DEG);
    /* Sky diffuse: Perez (anisotropic) or isotropic (Liu & Jordan 1963);
     * ground reflection is isotropic in both. */
    double sky = c->sky == SOLAR_SKY_ISOTROPIC
                     ? dhi * (1 + ct) / 2
                     : solar_perez_sky(p, tilt, caoi, dhi, dni);
    double poa = beam + sky + ghi * c->albedo * (1 - ct) / 2;
    if (poa < 0)
        poa = 0;
    /* Sandia module and cell temperature (King et al. 2004 eqs. 11-12). */
    double tm = poa * exp(c->sapm_a + c->sapm_b * wind_m_s) + t_amb_c;
    double tc = tm + poa / 1000.0 * c->sapm_dt_k;
    out->poa_w_m2 = poa;
    out->t_cell_c = tc;
    out->p_ac_w = solar_ac_from_poa(c, poa, tc, &out->p_dc_w);
}

void solar_year(const solar_cfg *c, const climate_year *y, double *p_ac_w,
                solar_annual *out)
{
    solar_annual a = {0};
    double p_ac0 = solar_p_ac0_w(c);
    double month_e[12] = {0}, month_h[12] = {0};
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        const climate_hour *h = &y->h[i];
        solar_pos sp;
        solar_out o = {0};
        double up = solar_position_hour((double)i, y->lat_deg, y->lon_deg,
                                        y->tz_h, &sp);
        if (up > 0 && (h->ghi_w_m2 > 0 || h->dni_w_m2 > 0))
            solar_plant(c, &sp, h->ghi_w_m2, h->dni_w_m2, h->dhi_w_m2,
                        h->t_db_c, h->wind_m_s, &o);
        if (p_ac_w)
            p_ac_w[i] = o.p_ac_w;
        int m = climate_month_of_hour(i);
        a.e_ac_j += o.p_ac_w * 3600.0;
        a.e_dc_j += o.p_dc_w * 3600.0;
        a.poa_kwh_m2 += o.poa_w_m2 / 1000.0;
        double unclipped = o.p_dc_w * c->inv_eff;
        if (unclipped > o.p_ac_w)
            a.clip_j += (unclipped - o.p_ac_w) * 3600.0;
        month_e[m] += o.p_ac_w;
        month_h[m] += 1.0;
    }
    a.cf_ac = a.e_ac_j / (p_ac0 * CLIMATE_HOURS * 3600.0);
    a.cf_dc = a.e_ac_j / (c->p_dc0_w * CLIMATE_HOURS * 3600.0);
    for (int m = 0; m < 12; m++)
        a.month_cf_ac[m] = month_e[m] / (p_ac0 * month_h[m]);
    if (out)
        *out = a;
}
