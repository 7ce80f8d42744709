/* optim.h - the optimiser: AdamW, gradient clipping by global norm, and the
 * learning-rate schedules. Works on flat float32 arrays (one call per tensor),
 * so the model's parameter layout stays the model's business.
 *
 *   AdamW (Loshchilov & Hutter 2019, "Decoupled Weight Decay Regularization",
 *   Algorithm 2), in the order torch.optim.AdamW applies it, at step t = 1, 2, ...:
 *     p ← p − lr·wd·p                           (decoupled weight decay)
 *   The decay is scaled by lr as torch does; Algorithm 2 scales λ by the
 *   schedule multiplier η_t only (line 12), so torch's wd is λ/α of the paper.
 *     m ← β1·m + (1 − β1)·g,   v ← β2·v + (1 − β2)·g²
 *     p ← p − lr · (m / (1 − β1^t)) / (√(v / (1 − β2^t)) + ε)
 *   clipping (Pascanu et al. 2013), with ‖g‖₂ over every parameter:
 *     g ← g · min(1, max_norm / (‖g‖₂ + 1e-6))   (as torch.nn.utils.clip_grad_norm_,
 *     which also scales a norm less than 1e-6 under max_norm, a little)
 *   schedules, lr at step t = 1, 2, ... (steps count from 1):
 *     noam      factor · d_model^−0.5 · min(t^−0.5, t · warmup^−1.5)
 *               (Vaswani et al. 2017, §5.3, eq. 3; factor 1 is the paper's rule)
 *     cosine    lr_max · t / warmup during the warm-up, then
 *               lr_min + ½(lr_max − lr_min)(1 + cos(π · (t − warmup)/(steps − warmup)))
 *     constant  lr_max
 *
 * Non-goals: other optimisers, per-parameter groups beyond "decay or not".
 */
#ifndef AV_OPTIM_H
#define AV_OPTIM_H

#include <stddef.h>

#include "base/common.h"

typedef enum { AV_SCHED_COSINE, AV_SCHED_NOAM, AV_SCHED_CONSTANT } av_schedule;

typedef struct {
    double beta1, beta2, eps;  /* 0.9, 0.98 or 0.999, 1e-8 */
    double weight_decay;       /* wd for tensors that decay (weights, not biases or LayerNorm) */
    double max_norm;           /* clip the global gradient norm to this; 0 = no clipping */
    av_schedule schedule;
    double lr_max, lr_min;     /* cosine, constant; noam uses lr_max as its factor (1 in the paper) */
    int warmup, steps;         /* steps of warm-up, and in all */
    int d_model;               /* for noam */
} av_adamw;

/* Learning rate at step t (1-based; t < 1 counts as 1), by the formulas above. */
double av_lr_at(const av_adamw *o, int t);

/* One AdamW update of n parameters p with gradients g and moments m, v (each
 * n floats, zero before step 1). lr from av_lr_at, t the 1-based step (the
 * bias corrections 1 − β^t), decay 1 if this tensor takes weight decay (the
 * trainer decays the 2-D tensors: weights, wte, wpe). Computed in double,
 * stored as float32. No errors. */
void adamw_update(float *p, const float *g, float *m, float *v, size_t n, const av_adamw *o, double lr, int t,
                  int decay);

/* Σ g[i]² of n floats (the square of ‖g‖₂: the caller adds the tensors' sums
 * and takes the root), summed in double in index order (deterministic). */
double grad_sumsq(const float *g, size_t n);
/* Multiplier that clips a global norm to max_norm: min(1, max_norm / (norm +
 * 1e-6)), torch's clip_grad_norm_ factor; 1 when max_norm is 0 (no clipping).
 * NaN for a norm that is NaN or ±inf (a gradient overflowed float32 or is
 * NaN): it was 1 for NaN, which read as "no clipping" and let AdamW write NaN
 * into every parameter; av_trainer_step refuses such a step before it asks. */
double clip_factor(double norm, double max_norm);

/* "cosine" / "noam" / "constant". Errors: AV_EUSAGE naming the value as base/utf8.h av_quoted_word quotes it
 * ("--schedule 'it'\''s' is not a schedule ...", a control as <U+000A>, a value past 98 bytes cut at a whole
 * character with "..." after its closing quote). */
av_status av_schedule_parse(const char *name, av_schedule *s, av_err *err);
/* The name av_schedule_parse reads for s ("cosine", "noam", "constant"), as
 * the header line and config.json write it. s must be a valid av_schedule. */
const char *av_schedule_name(av_schedule s);

#endif
