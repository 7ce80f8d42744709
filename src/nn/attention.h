/* attention.h - the attention kernels, one per stage of
 *     Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V        (Vaswani et al. 2017, eq. 1)
 *     MultiHead(X) = Concat(head_1..head_H) · W_O,
 *     head_h = Attention(X·W_Q[:, h], X·W_K[:, h], X·W_V[:, h])   (§3.2.2)
 *
 * Dimension legend (used in every comment and name below):
 *   T  tokens (sequence length, including <pad> tokens)
 *   C  d_model
 *   H  heads
 *   D  d_k = C / H
 *
 * Conventions: row vectors, as in the paper and the PyTorch tutorials: X is
 * (T, C) and Q = X·W_Q with W_Q of shape (C, C). PyTorch's nn.Linear stores
 * the transpose (weight = W_Qᵀ, y = x·weightᵀ). No biases. All buffers are
 * flat, row-major float32; sums are accumulated in double and rounded once.
 *
 * Masks are (T, T) bytes, row = query i, column = key j, 1 = masked: the score
 * gets −∞ before the softmax, so the key gets weight exactly 0. A row whose
 * keys are all masked gets all-zero weights and therefore a zero output row
 * (never NaN).
 *
 * Kernels follow llm.c: <stage>_forward(out, inputs..., sizes...).
 * Non-goals: batching, dropout, training (no backward pass), biases.
 */
#ifndef AV_ATTENTION_H
#define AV_ATTENTION_H

#include <stddef.h>

#include "base/common.h"

/* AV_POS_LEARNED: a trained position-embedding table (GPT-2's wpe); only models have it. */
typedef enum { AV_POS_NONE, AV_POS_SINUSOIDAL, AV_POS_ROPE, AV_POS_LEARNED } av_positions;

/* Which kernels run stages 4..9 (the math is the same; see attention_blas.h
 * and flash.h):
 *   AV_KERNEL_REFERENCE  the readable loops of this file, sums in double; exact
 *                        invariants: the same input row gives the same bits
 *                        wherever it sits, so permuting tokens permutes results
 *   AV_KERNEL_BLAS       projections, Q·Kᵀ and A·V on CBLAS sgemm, keeps (H, T, T);
 *                        sgemm's float32 sums may differ in the last bit with a
 *                        row's place in a block (results agree within 1e-5)
 *   AV_KERNEL_FLASH      tiled online softmax on sgemm tiles: never forms
 *                        (H, T, T), O(T·C) memory */
typedef enum { AV_KERNEL_REFERENCE, AV_KERNEL_BLAS, AV_KERNEL_FLASH } av_kernel;

/* Names as --kernel spells them ("?" for other values). */
static inline const char *av_kernel_name(int k) {
    static const char *const names[] = {"reference", "blas", "flash"};
    return k >= AV_KERNEL_REFERENCE && k <= AV_KERNEL_FLASH ? names[k] : "?";
}

typedef enum { AV_ROPE_INTERLEAVED, AV_ROPE_HALF } av_rope_style;

/* Names as --positions and --rope-style spell them ("?" for other values). */
static inline const char *av_positions_name(int p) {
    static const char *const names[] = {"none", "sinusoidal", "rope", "learned"};
    return p >= AV_POS_NONE && p <= AV_POS_LEARNED ? names[p] : "?";
}
static inline const char *av_rope_style_name(int s) {
    static const char *const names[] = {"interleaved", "half"};
    return s >= AV_ROPE_INTERLEAVED && s <= AV_ROPE_HALF ? names[s] : "?";
}

/* pe (T, C) = sinusoidal positional encoding, paper §3.5, interleaved:
 *   PE(pos, 2i)   = sin(pos / 10000^(2i/C))
 *   PE(pos, 2i+1) = cos(pos / 10000^(2i/C))
 * pos = 0..T-1. With odd C the last column is a sin column. The angle is
 * computed in double and rounded once to float32, so long positions stay
 * accurate (docs/conventions.md states the worst error at position 65,535).
 * Rows are split over threads (bit-identical whatever the count). */
void sinusoidal_forward(float *pe, int T, int C);

/* In place RoPE rotation of x (H, T, D) at positions pos0 .. pos0+T-1
 * (RoFormer, Su et al. 2021, eq. 34). Pair i (0 <= i < D/2) turns by the angle
 * pos · base^(−2i/D) radians. style AV_ROPE_INTERLEAVED pairs dimensions
 * (2i, 2i+1) (RoFormer, Meta LLaMA); AV_ROPE_HALF pairs (i, i + D/2)
 * (GPT-NeoX, Hugging Face "rotate_half"). D must be even (the caller checks). */
void rope_forward(float *x, int H, int T, int D, av_rope_style style, double base, int pos0);
/* (The angle pos·θ_i and its cos/sin are computed in double, once per
 * position and pair, and applied to every head.) */

/* out (T, OC) = inp (T, C) · w (C, OC): the reference loops, each sum in
 * double and rounded once. av_matmul (attention_blas.h) picks this or sgemm. */
void matmul_forward(float *out, const float *inp, const float *w, int T, int C, int OC);

/* out (H, T, D) = inp (T, C) split by columns: head h takes columns h·D .. h·D+D−1
 * (the reshape (T, H, D) followed by the transpose to (H, T, D)). */
void split_heads_forward(float *out, const float *inp, int T, int C, int H);

/* out (T, C) = inp (H, T, D) transposed back to (T, H, D) and flattened
 * (Concat(head_1..head_H), §3.2.2). Inverse of split_heads_forward. */
void merge_heads_forward(float *out, const float *inp, int T, int C, int H);

/* scores (H, T, T) = q (H, T, D) · k (H, T, D)ᵀ · scale, with scale = 1/√D for
 * scaled dot-product attention (eq. 1) or 1 for --no-scale. Before the mask. */
void scores_forward(float *scores, const float *q, const float *k, int H, int T, int D, double scale);

/* mask (T, T) = 1 where query i may not see key j:
 *   causal:    j > i (keys after the query; the diagonal stays visible);
 *   padding:   j >= n_real (key padding mask for appended <pad> tokens);
 *   user:      user[i*T + j] != 0 (PyTorch bool attn_mask convention: True = masked), or NULL.
 * Returns the number of masked entries. */
size_t mask_forward(unsigned char *mask, int T, int causal, int n_real, const unsigned char *user);

/* att (H, T, T) = row-wise softmax of scores with masked entries at −∞,
 * numerically stable (the row maximum over unmasked keys is subtracted before
 * exp). A fully masked row becomes all zeros. Returns the number of fully
 * masked rows over all heads; *worst_dev (may be NULL) receives the largest
 * |Σ_j att[h,i,j] − 1| over rows that are not fully masked, measured in double
 * on the stored float32 weights. */
int softmax_forward(float *att, const float *scores, const unsigned char *mask, int H, int T,
                    double *worst_dev);

/* out (H, T, D) = att (H, T, T) · v (H, T, D). */
void weighted_sum_forward(float *out, const float *att, const float *v, int H, int T, int D);

/* Population mean and variance of n floats (for the trace's checks). */
void stats_forward(const float *x, size_t n, double *mean, double *var);

/* 1 if every one of n floats is finite. */
int all_finite(const float *x, size_t n);

/* The error for a value that became infinite in the forward pass of a model:
 * AV_EUSAGE "layer L: WHAT overflowed float32 (a value became infinite)WHY",
 * without "layer L: " for layer < 0 (the embedding before layer 0, the logits
 * after the final norm: no layer's), and err->overflowed set (base/common.h
 * av_fail_overflow). Shared by nn/gpt2.c, nn/gpt2_batch.c and
 * nn/llama.c, so every overflow is named the same way. */
av_status av_overflow_fail(int layer, const char *what, const char *why, av_err *err);

#endif
