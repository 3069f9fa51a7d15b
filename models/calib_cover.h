/* models/calib_cover.h: how honest the throughput model's 80 % interval is
 * under leave-one-configuration-out (issue 19 item 5), with the interval's
 * spread computed WITHOUT the held-out configuration (nested).
 *
 * A row i of configuration k is covered when its held-out prediction's log
 * error |log(pred_i / measured_i)| is at most z x sd_i, where sd_i is
 * tp_log_sd (models/throughput.h) with the class spread sigma_log[class]
 * replaced by the rms of the LOCO log errors of the other configurations'
 * rows of that class. Rows of the held-out configuration never set their
 * own interval's width, which is what an honest coverage figure needs; the
 * plain (non-nested) figure, sigma from every row, is reported beside it.
 *
 * What "nested" does not repeat: the other rows' LOCO errors come from fits
 * that did include configuration k (a fully nested scheme refits once per
 * pair of configurations, ~K times a LOCO pass, hours here). Their errors
 * are each out-of-sample for their own row, so the leak is one row among
 * hundreds in a fit's data, not the row's own residual. Pure; O(n^2).
 */
#ifndef MODELS_CALIB_COVER_H
#define MODELS_CALIB_COVER_H

#include <stddef.h>

#include "models/calib.h"

/* z of the central 80 % interval of a normal: Phi^-1(0.9). */
#define CALIB_COVER_Z80 1.2815515655446004

/* Per-row interval test under LOCO. pred[0..n-1] are held-out predictions
 * [tokens/s/GPU] from calib_cv(CALIB_CV_CONFIG) (0 = none). m gives the
 * extrapolation widening (sigma_extrap, the domain). For each row:
 * nested_sd[i] and covered[i] (1 inside, 0 outside, -1 no prediction or
 * no other row of its class to set a width); plain_covered[i] the same
 * test with m->sigma_log as written (may be NULL). Outputs are caller
 * arrays of n. Never allocates beyond a copy of m. */
void calib_cover_loco(const calib_row *rows, size_t n, const double *pred,
                      const tp_model *m, double z, double *nested_sd,
                      signed char *covered, signed char *plain_covered);

/* Coverage tally over a subset: the fraction of rows with covered[i] >= 0
 * and sel[i] != 0 (sel NULL = all) that are covered; *n_out the count
 * tested. Returns NAN when none was tested. */
double calib_cover_fraction(const signed char *covered,
                            const unsigned char *sel, size_t n, size_t *n_out);

#endif
