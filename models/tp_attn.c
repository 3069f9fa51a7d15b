/* models/tp_attn.c: the attention core's time (tp_attn.h): score GEMMs on
 * the tensor cores plus the softmax exponentials on the special function
 * units. See docs/throughput-model.md §2 and the rates' sources in
 * models/gpus.cfg (exp_tera_per_s).
 */
#include "models/tp_attn.h"

double tp_attn_exps(double T, double seq, double heads_local)
{
    return T * (seq / 2.0) * heads_local;
}

void tp_attn_core(const gpu_spec *g, double eta_attn, double flops,
                  double n_exp, tp_attn *out)
{
    double mma = flops / (eta_attn * g->peak_flops[NUM_BF16]);
    double ex = g->exp_per_s > 0 ? n_exp / g->exp_per_s : 0.0;
    out->exp_fwd_s = ex;
    out->fwd_s = mma + ex;
    out->bwd_s = TP_ATTN_BWD_MMA * mma + ex;
}
