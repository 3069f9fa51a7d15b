/* models/tp_extrap.c: how far a prediction is from the calibration
 * (docs/throughput-model.md §8): the reasons it is extrapolated and the
 * predictive spread they widen. Apart from models/throughput.c because
 * they depend on nothing the layout search chose: the search needs none
 * of this, and the site's per-replication throughput draw (models/site.c)
 * needs only tp_log_sd. */
#include "models/throughput.h"

#include <math.h>

#include "models/flops.h"
#include "models/throughput_int.h"

/* Why a prediction leaves the calibration set (TP_EXTRAP_* bits,
 * docs/throughput-model.md §8): the GPU has no calibration rows (or is
 * announced only); the sequence is long context (>= 32k, where the data
 * hold one row) or above the calibrated maximum; the active parameters are
 * outside half the smallest .. twice the largest calibrated model; the
 * experts exceed the calibrated maximum; the stack is not a calibrated
 * release (software_efficiency given and != 1). */
unsigned tp_extrap_reasons(const tp_model *m, const tp_query *q,
                           const llm_arch *a, int seq, int gpu_uncal)
{
    unsigned why = gpu_uncal ? TP_EXTRAP_GPU : 0;
    double Pd, Pe, act;
    if (seq >= TP_EXTRAP_SEQ_LONG ||
        (m->dom_seq_max > 0 && seq > m->dom_seq_max))
        why |= TP_EXTRAP_SEQ;
    flops_params(a, 0, &Pd, &Pe);
    act = Pd + (a->num_experts > 0 ? Pe * a->experts_per_token / a->num_experts
                                   : Pe);
    if (m->dom_active_params_max > 0 && (act < 0.5 * m->dom_active_params_min ||
                                         act > 2.0 * m->dom_active_params_max))
        why |= TP_EXTRAP_PARAMS;
    if (m->dom_experts_max > 0 && a->num_experts > m->dom_experts_max)
        why |= TP_EXTRAP_EXPERTS;
    if (q->software_efficiency > 0 && q->software_efficiency != 1.0)
        why |= TP_EXTRAP_STACK;
    return why;
}

static const struct {
    unsigned bit;
    const char *key, *text;
} reasons[TP_EXTRAP_N] = {
    {TP_EXTRAP_GPU, "gpu", "GPU not in the calibration data"},
    {TP_EXTRAP_SEQ, "seq",
     "long-context sequence (>= 32k tokens) or longer than the calibration's"},
    {TP_EXTRAP_PARAMS, "params",
     "active parameters outside the calibrated range"},
    {TP_EXTRAP_EXPERTS, "experts", "more experts than any calibrated model"},
    {TP_EXTRAP_STACK, "stack", "software_efficiency != 1"},
};

const char *tp_extrap_key(unsigned bit)
{
    for (int k = 0; k < TP_EXTRAP_N; k++)
        if (reasons[k].bit == bit)
            return reasons[k].key;
    return NULL;
}

const char *tp_extrap_text(unsigned bit)
{
    for (int k = 0; k < TP_EXTRAP_N; k++)
        if (reasons[k].bit == bit)
            return reasons[k].text;
    return NULL;
}

/* The predictive log-sd of a prediction (throughput.h): the one
 * definition the 80% interval below and the site's per-replication
 * throughput draw (models/site.c) share, so a range from `run` and an
 * interval from `predict` can never disagree about the spread. */
double tp_log_sd(const tp_model *m, const llm_arch *a, const gpu_spec *g,
                 const tp_result *r)
{
    int cls = a ? (int)a->cls : 0, gi = g ? tp_model_gpu(m, g->name) : -1;
    double sd;
    if (cls < 0 || cls >= TP_NCLASS)
        cls = 0;
    /* The GPU's own rows only: a borrowed efficiency factor (calib_as) is
     * no measurement of how far this GPU's predictions miss. */
    sd = m->sigma_log[cls] *
         (gi >= 0 && m->gpu_spread[gi] > 0 ? m->gpu_spread[gi] : 1.0);
    /* Each extrapolation reason widens the spread by sigma_extrap in
     * quadrature (TP_EXTRAP_* bits of r->extrap_why). */
    for (unsigned b = r->extrap_why; b; b &= b - 1)
        sd = sqrt(sd * sd + m->sigma_extrap * m->sigma_extrap);
    return sd;
}
