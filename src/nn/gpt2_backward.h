/* gpt2_backward.h - the backward pass of gpt2.h's forward, for training: the
 * cross-entropy on the answer positions, then every kernel's backward in the
 * reverse order of av_gpt2_forward, as karpathy/llm.c's gpt2_backward.
 *
 * Each kernel is <stage>_backward(dinp, dweight, ..., dout, inp, weight, ...,
 * sizes), the mirror of its <stage>_forward in gpt2.h / attention.h.
 * Gradients are ACCUMULATED (+=) into dinp and dweight, so a caller zeroes them
 * once and sums over sequences and over the two paths of a residual.
 *
 * Legend: L layers, T tokens, C = d_model, H heads, D = d_k = C/H, V vocab.
 * Works for every forward variant: learned / sinusoidal / RoPE positions
 * (RoFormer eq. 34: RoPE's backward is the rotation by the opposite angle),
 * Pre-LN and Post-LN, with or without the 1/√d_k scale.
 *
 * Non-goals: batches inside one call (the trainer loops over sequences, which
 * keeps the sums in a fixed order), dropout, mixed precision.
 */
#ifndef AV_GPT2_BACKWARD_H
#define AV_GPT2_BACKWARD_H

#include <stddef.h>

#include "base/common.h"
#include "nn/gpt2.h"

/* ---------------------------------------------------------------------------- loss */

/* Cross-entropy over the scored positions: position t is scored when
 * targets[t] >= 0 (targets (T), token ids below V: not checked). logits
 * (T, V). Returns the SUM over scored positions (nats) of
 * −log softmax(logits[t])[targets[t]] (in double) and,
 * if dlogits (T, V) is not NULL, writes (not accumulates) its gradient
 * times weight: dlogits[t] = (softmax(logits[t]) − onehot(targets[t]))·weight
 * for scored t, 0 elsewhere. The caller passes weight = 1/(scored positions
 * in the batch) for a batch mean. */
double crossentropy_forward_backward(float *dlogits, const float *logits, const int *targets, int T, int V,
                                     double weight);

/* ---------------------------------------------------------------------------- kernels */

/* inp (T, C)·w (C, OC) + b = out (T, OC), backward:
 * dinp (T, C) += dout·wᵀ;  dw (C, OC) += inpᵀ·dout;  db (OC) += Σ_t dout[t] (db may be NULL). */
void gpt2_matmul_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                          int T, int C, int OC);

/* logits (T, V) = inp (T, C)·wteᵀ, backward: dinp (T, C) += dlogits·wte;  dwte (V, C) += dlogitsᵀ·inp.
 * wte is tied: the input embedding is also the unembedding (Press & Wolf 2017;
 * GPT-2's lm_head), so dwte gets this term and the embedding's. Rows of dlogits
 * that are all zero are skipped (unscored positions). */
void gpt2_unembed_backward(float *dinp, float *dwte, const float *dlogits, const float *inp, const float *wte,
                           int T, int C, int V);

/* LayerNorm backward (Ba et al. 2016), with the forward's mean and rstd (T):
 * n = (inp − mean)·rstd, out = n·w + b;
 * dw += Σ_t dout·n, db += Σ_t dout, dinp += rstd·(g − mean(g) − n·mean(g·n)), g = dout·w. */
void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                        const float *mean, const float *rstd, int T, int C);

/* GELU (tanh) backward (Hendrycks & Gimpel 2016, the tanh approximation):
 * dinp (N) += GELU'(inp)·dout, GELU'(x) = ½(1 + tanh u) + ½x(1 − tanh²u)·du/dx,
 * u = √(2/π)(x + 0.044715x³). */
void gelu_backward(float *dinp, const float *inp, const float *dout, size_t N);

/* Causal attention backward for one layer (Vaswani et al. 2017, eq. 1, with
 * the causal mask), from its forward buffers:
 * q, k, v (H, T, D) (q, k after RoPE), att (H, T, T) the weights, datty_h
 * (H, T, D) the gradient of att·v. Accumulates dq, dk, dv (H, T, D).
 * datt (H, T, T) is scratch. scale is 1/√D or 1.
 *   datt = datty_h·vᵀ,  dv += attᵀ·datty_h,
 *   dscores[i,j] = att[i,j]·(datt[i,j] − Σ_k att[i,k]·datt[i,k])   (softmax),
 *   dq += scale·dscores·k,  dk += scale·dscoresᵀ·q   (j ≤ i only: the causal mask).
 * dscores is the softmax's Jacobian (diag(a) − a·aᵀ per row a) times datt;
 * att above the diagonal is not read: masked keys get no gradient. */
void attention_backward(float *dq, float *dk, float *dv, float *datt, const float *datty_h, const float *q,
                        const float *k, const float *v, const float *att, int H, int T, int D, double scale);

/* RoPE backward, in place on dx (H, T, D): the rotation by −pos·θ_i, the
 * transpose of rope_forward's (attention.h), at positions 0..T-1. */
void rope_backward(float *dx, int H, int T, int D, av_rope_style style, double base);

/* ---------------------------------------------------------------------------- the model */

/* Scratch gradients of the activations for one sequence of up to maxT tokens. */
typedef struct {
    int maxT;
    float *dlogits;   /* (T, V) */
    float *dx;        /* (T, C) gradient w.r.t. the residual stream hidden[l] */
    float *dln;       /* (T, C) gradient w.r.t. a LayerNorm output / a residual sum */
    float *dres;      /* (T, C) gradient w.r.t. res2 (pre-LN); post-LN: res3, then res2 */
    float *datty;     /* (T, C) */
    float *datty_h;   /* (H, T, D) */
    float *dqkvh;     /* (3, H, T, D) */
    float *dqkv;      /* (T, 3C) */
    float *datt;      /* (H, T, T) */
    float *dfch;      /* (T, 4C) */
    float *dfch_gelu; /* (T, 4C) */
} av_gpt2_grad_acts;

/* Allocate the scratch for maxT tokens. Errors: AV_ERUNTIME on OOM. */
av_status av_gpt2_grad_acts_alloc(av_gpt2_grad_acts *g, const av_gpt2_config *cfg, int maxT, av_err *err);
/* Free what av_gpt2_grad_acts_alloc allocated and zero g; g zeroed or
 * already freed is fine. */
void av_gpt2_grad_acts_free(av_gpt2_grad_acts *g);

/* Backward of av_gpt2_forward for one sequence (a filled by the forward on
 * tokens[0..T-1], T <= ga->maxT) given ga->dlogits (T, V) (from
 * crossentropy_forward_backward): accumulates every parameter's gradient into
 * grads (same layout as params, zero it before the batch); the rest of ga is
 * overwritten. No errors (the forward checked the sizes and the tokens). */
void av_gpt2_backward(av_gpt2_params *grads, av_gpt2_grad_acts *ga, const av_gpt2_acts *a,
                      const av_gpt2_params *p, const av_gpt2_config *cfg, const int *tokens, int T);

#endif
