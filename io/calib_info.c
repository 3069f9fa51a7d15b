/* io/calib_info.c: the calibration's release and measured accuracy for
 * reports (see calib_info.h). It reads the file with libconfig directly
 * rather than through tp_model_load because the accuracy group is
 * informational and not part of the model (io/calib_file.h); keys it does
 * not know are ignored, so the file can grow without breaking a report. */
#include "io/calib_info.h"

#include <libconfig.h>
#include <stdio.h>
#include <string.h>

#include "io/calib_file.h"

static double num(const config_setting_t *g, const char *key)
{
    double v = 0;
    long long i;
    if (config_setting_lookup_float(g, key, &v))
        return v;
    if (config_setting_lookup_int64(g, key, &i))
        return (double)i;
    return -1.0; /* absent: the report prints it as n/a */
}

/* Reads only the three things a report states; everything else in the
 * file (the parameters, the domain) stays tp_model_load's business. */
int calib_info_load(const char *path, calib_info *out, sim_err *err)
{
    config_t c;
    const config_setting_t *a, *r;
    const char *s;
    memset(out, 0, sizeof *out);
    if (!path)
        path = tp_model_default_path();
    config_init(&c);
    if (config_read_file(&c, path) != CONFIG_TRUE) {
        int line = config_error_line(&c),
            io = config_error_type(&c) == CONFIG_ERR_FILE_IO;
        config_destroy(&c);
        return io ? sim_err_set(err, SIM_EIO, path, 0, "cannot read file")
                  : sim_err_set(err, SIM_ECONFIG, path, line,
                                "calibration file does not parse");
    }
    if (config_lookup_string(&c, "default_release", &s))
        snprintf(out->default_release, sizeof out->default_release, "%s", s);
    r = config_lookup(&c, "releases");
    out->n_releases = r ? config_setting_length(r) : 0;
    a = config_lookup(&c, "accuracy");
    for (int i = 0;
         a && i < config_setting_length(a) && out->n_acc < CALIB_INFO_MAX_ACC;
         i++) {
        const config_setting_t *g = config_setting_get_elem(a, (unsigned)i);
        calib_acc *x = &out->acc[out->n_acc++];
        snprintf(x->group, sizeof x->group, "%s", config_setting_name(g));
        x->n = (long)num(g, "n");
        x->in_sample_pct = num(g, "model_in_sample");
        x->loco_pct = num(g, "model_loco");
        x->lomo_pct = num(g, "model_lomo");
    }
    config_destroy(&c);
    return SIM_OK;
}
