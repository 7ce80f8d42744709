/* gpt2_batch.h - the trainer's fast forward and backward: B token sequences
 * packed end to end into N = Σ_b T_b rows, so that every Conv1D product of a
 * layer (c_attn, attn.c_proj, c_fc, mlp.c_proj) is one sgemm on (N, C) rows
 * and every row-wise stage (LayerNorm, GELU, residuals) one loop over N rows,
 * while attention stays inside each sequence (causal, positions 0..T_b−1: no
 * padding, no mask between sequences; "varlen" packing).
 *
 * The math is gpt2.h's av_gpt2_forward and gpt2_backward.h's av_gpt2_backward
 * run sequence by sequence, which stay the readable reference (the trainer
 * runs them with cfg.kernel = AV_KERNEL_REFERENCE). What differs:
 *   - the products are OpenBLAS sgemm (float32 sums; attention_blas.h's
 *     av_sgemm, one thread) instead of the reference's fixed-order loops;
 *   - GELU and its gradient use the identity 0.5·(1 + tanh u) = 1/(1 + e^(−2u))
 *     with exp in float32 (fastexp.h) instead of tanh in double;
 *   - the logits are formed only at the scored positions (the loss reads no
 *     other row), S rows instead of N.
 * tests/test_gpt2_backward.c checks these gradients against torch autograd
 * like the reference's, and against the reference itself.
 *
 * Legend: B sequences, N = Σ T_b rows, S scored rows, L layers, C = d_model,
 * H heads, D = d_k = C/H, V vocabulary. Row r belongs to sequence b when
 * off[b] <= r < off[b+1]; its position in the sequence is r − off[b].
 *
 * Usage (one thread per struct; the trainer gives each chunk of a batch its
 * own struct and gradient buffer, base/parallel.h):
 *   av_gpt2_batch bt;
 *   av_gpt2_batch_alloc(&bt, &cfg, maxB, maxT, &err);
 *   av_gpt2_batch_set(&bt, &cfg, tokens, targets, T, B, &err);
 *   av_gpt2_batch_forward(&bt, &params, &cfg, &err);
 *   loss = av_gpt2_batch_loss(&bt, V, 1.0 / n_scored);   // also the logits' gradient
 *   av_gpt2_batch_backward(&grads, &bt, &params, &cfg);   // grads += d loss / d params
 *   av_gpt2_batch_free(&bt);
 * Same batch, same bits, on every run and on whichever thread.
 * Non-goals: a KV cache, dropout, sequences longer than maxT.
 */
#ifndef AV_GPT2_BATCH_H
#define AV_GPT2_BATCH_H

#include <stddef.h>

#include "base/common.h"
#include "nn/gpt2.h"

typedef struct {
    int maxB, maxT, maxN;  /* capacity: sequences, tokens per sequence, rows (maxB·maxT) */
    int B, N, S;           /* this batch: sequences, rows, scored rows */
    int *off;              /* (maxB + 1) first row of each sequence; off[B] = N */
    size_t *aoff;          /* (maxB + 1) offset of sequence b's (H, T_b, T_b) maps in one layer's att */
    int *tokens;           /* (maxN) token id of each row */
    int *srow;             /* (maxN) the S scored rows, in order */
    int *target;           /* (maxN) the label of each scored row */
    float *pe;             /* (maxT, C) sinusoidal positional encoding (filled when positions = sinusoidal) */
    /* activations: av_gpt2_acts's fields with N rows */
    float *hidden;         /* (L+1, N, C) residual stream; hidden[0] = wte[token] (+ wpe[pos] or PE) */
    float *ln1;            /* (L, N, C) */
    float *ln1_mean, *ln1_rstd; /* (L, N) */
    float *qkv;            /* (N, 3C) scratch of the layer being run forward; the backward reads qkvh */
    float *qkvh;           /* (L, 3N·C): sequence b's (3, H, T_b, D) at 3·off[b]·C; q, k after RoPE */
    float *att;            /* (L, H·Σ T_b²): sequence b's (H, T_b, T_b) weights at aoff[b] (0 above the diagonal) */
    float *atty_h;         /* (N·C) scratch of the layer being run forward: sequence b's (H, T_b, D) at off[b]·C */
    float *atty;           /* (L, N, C) */
    float *attproj, *res2, *ln2; /* (L, N, C) */
    float *ln2_mean, *ln2_rstd;  /* (L, N) */
    float *fch, *fch_gelu; /* (L, N, 4C) */
    float *fch_sigma;      /* (L, N, 4C) σ(2u) of each fch value (gelu_fast_forward), for the backward */
    float *fcproj, *res3;  /* (L, N, C) */
    float *lnf;            /* (N, C) */
    float *lnf_mean, *lnf_rstd; /* (N) */
    float *lnf_s;          /* (S, C) the scored rows of lnf */
    float *logits;         /* (S, V) lnf_s·wteᵀ */
    /* gradients of the activations (scratch for the backward) */
    float *dlogits;        /* (S, V) */
    float *dlnf_s;         /* (S, C) */
    float *dx, *dln, *dres, *datty, *datty_h; /* (N, C) */
    float *dqkvh;          /* (3N·C) laid out as qkvh */
    float *dqkv;           /* (N, 3C) */
    float *datt;           /* (H·Σ T_b²) laid out as att */
    float *dfch, *dfch_gelu; /* (N, 4C) */
} av_gpt2_batch;

/* Allocate for up to maxB sequences of up to maxT tokens under cfg (maxT <=
 * n_positions for learned positions). Errors: AV_ERUNTIME on OOM (bt is then
 * freed). */
av_status av_gpt2_batch_alloc(av_gpt2_batch *bt, const av_gpt2_config *cfg, int maxB, int maxT, av_err *err);
/* Free what av_gpt2_batch_alloc allocated and zero bt; bt zeroed or already
 * freed is fine. */
void av_gpt2_batch_free(av_gpt2_batch *bt);

/* The bytes av_gpt2_batch_alloc takes for (cfg, maxB, maxT), for the
 * trainer's memory guard: with N = maxB·maxT rows and A = H·maxB·maxT²,
 * 4·((23L + 27)·N·C + (4L + 2)·N + (L + 1)·A + 2·N·V + maxT·C) for the
 * floats, plus 12·N + 16·(maxB + 1) for the row indices and offsets. */
size_t av_gpt2_batch_bytes(const av_gpt2_config *cfg, int maxB, int maxT);

/* Pack B sequences: tokens[b][0..T[b]−1] (ids in 0..V−1) and targets[b][t] =
 * the label scored after position t, or −1. Errors: AV_EUSAGE for B outside
 * 1..maxB, a length outside 1..maxT or, with learned positions, above
 * n_positions (wpe's rows; av_acts_check_T's message), a token or label
 * outside the vocabulary. */
av_status av_gpt2_batch_set(av_gpt2_batch *bt, const av_gpt2_config *cfg, const int *const *tokens,
                            const int *const *targets, const int *T, int B, av_err *err);

/* The forward pass of every packed sequence (gpt2.h's block, Pre-LN or
 * Post-LN, any positions), the logits at the S scored rows. params is read
 * only. Errors: AV_EUSAGE when a value overflows float32 (NaN never escapes). */
av_status av_gpt2_batch_forward(av_gpt2_batch *bt, const av_gpt2_params *p, const av_gpt2_config *cfg, av_err *err);

/* Cross-entropy at the scored rows (gpt2_backward.h's
 * crossentropy_forward_backward): returns the SUM over them of −log p(label)
 * and writes dlogits = (softmax − onehot)·weight. */
double av_gpt2_batch_loss(av_gpt2_batch *bt, int V, double weight);

/* The backward pass from dlogits: grads (same layout as params) += d loss /
 * d params over the whole batch. */
void av_gpt2_batch_backward(av_gpt2_params *grads, av_gpt2_batch *bt, const av_gpt2_params *p,
                            const av_gpt2_config *cfg);

/* ---------------------------------------------------------------------------- kernels */

/* Causal scaled dot-product attention of one sequence (Vaswani et al. 2017,
 * eq. 1, with the causal mask), all heads, in float32: for head h and query
 * i, scores q_i·k_j·scale for the keys j <= i only, a stable softmax over
 * them (the maximum subtracted, exp by fastexp.h's av_expf), att (H, T, T)
 * with exactly 0 above the diagonal, out (H, T, D) = att·v. q, k, v are
 * (H, T, D). The reference is attention.h's scores_forward, softmax_forward
 * with the causal mask and weighted_sum_forward (sums in double);
 * tests/test_gpt2_backward.c prints the worst difference. Returns 0 at the
 * first score that is not finite (att and out are then left unfinished),
 * else 1. */
int causal_attention_fast_forward(float *out, float *att, const float *q, const float *k, const float *v, int H,
                                  int T, int D, float scale);

/* out (N) = GELU_tanh(inp) = x·σ, σ = 1/(1 + e^(−2u)), u = √(2/π)·(x + 0.044715·x³)
 * (0.5·(1 + tanh u) = σ(2u)): gpt2.h's gelu_forward in float32 with fastexp.h's
 * av_expf; sigma (N) keeps σ for the backward. Within a few float32 ulp of
 * the reference (tests/test_gpt2_backward.c prints the worst). */
void gelu_fast_forward(float *out, float *sigma, const float *inp, size_t N);

/* dinp (N) += GELU'(inp)·dout, GELU' = σ + 2x·σ·(1 − σ)·du/dx, with the
 * forward's σ: gpt2_backward.h's gelu_backward in float32. */
void gelu_fast_backward(float *dinp, const float *inp, const float *sigma, const float *dout, size_t N);

#endif
