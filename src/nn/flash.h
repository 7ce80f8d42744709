/* flash.h - attention by key tiles with an online softmax: the FlashAttention
 * idea (Dao et al. 2022, "FlashAttention", §3.1 and Algorithm 1; Milakov &
 * Gimelshein 2018, "Online normalizer calculation for softmax") in C on the
 * CPU. Legend as in attention.h: T tokens, C = d_model, H heads, D = d_k.
 *
 * For each query row i the weights softmax(s_i) are never stored. The keys
 * are visited in tiles of AV_FLASH_TILE; the row keeps
 *   m  the running maximum of the visible scores seen so far,
 *   l  the running sum of exp(s_j − m) over them,
 *   o  the running sum of exp(s_j − m) · v_j (D floats).
 * When a tile raises the maximum from m_old to m_new, l and o are rescaled by
 * exp(m_old − m_new) so that every term is relative to the same maximum. After
 * the last tile, out_i = o / l, which is exactly softmax(s_i) · V in exact
 * arithmetic. A row with no visible key keeps l = 0 and gets a zero output row
 * (pitfalls.md P2, never NaN).
 *
 * Memory: O(T·C) for the inputs and output plus, per work item, one
 * (AV_FLASH_ROWS, AV_FLASH_TILE) score tile; never (T, T).
 * Masks are described, not stored: causal and key padding are rules; only a
 * user mask is a (T, T) byte array (the user supplied it).
 * Non-goals: a backward pass, dropout, float16.
 */
#ifndef AV_FLASH_H
#define AV_FLASH_H

#include "base/common.h"

enum {
    AV_FLASH_ROWS = 256, /* query rows per work item */
    AV_FLASH_TILE = 512, /* keys per tile */
};

/* Which keys query i may not see (the rules of mask_forward in attention.h). */
typedef struct {
    int causal;                /* 1: key j > i is masked */
    int n_real;                /* keys j >= n_real are masked (key padding mask) */
    const unsigned char *user; /* (T, T) user attn_mask, 1 = masked, or NULL */
} av_mask_spec;

/* out (T, C) = Concat_h softmax(q_h · k_hᵀ · scale, masked) · v_h, written in
 * the merged layout (head h at columns h·D .. h·D+D−1, C = H·D), from
 * q, k, v (H, T, D). Scores by sgemm per (query block, key tile), exp in
 * float32, items (head, AV_FLASH_ROWS query rows) split over threads: bit-identical
 * whatever the thread count. *fully_masked_rows (may be NULL) receives the
 * count of (head, query) rows with no visible key.
 * A score whose float32 sum Q·Kᵀ overflows in sgemm while Q·Kᵀ·scale fits
 * is made again with double sums (flash_score), as the blas kernel falls back
 * to the reference's (nn/model.c): such a score is then the reference's, and
 * the kernels' weights agree as they do for any score, within float32 rounding
 * of the softmax (the online softmax sums in another order).
 * Errors: AV_EUSAGE if a visible score Q·Kᵀ·scale overflows float32 (huge
 * user weights), AV_ERUNTIME out of memory for the per-item tiles. */
av_status flash_attention_forward(float *out, const float *q, const float *k, const float *v,
                                  const av_mask_spec *mask, int H, int T, int D, double scale,
                                  int *fully_masked_rows, av_err *err);

/* The score of query i and key j of head h, (q_h[i] · k_h[j]) · scale, summed
 * in double and rounded once to float32 (scores_forward's, attention.h); q, k
 * are (H, T, D). Not finite when the scaled score leaves float32. */
float flash_score(const float *q, const float *k, int h, int i, int j, int T, int D, double scale);

/* One tile of the online softmax of one query row, as the trace shows it. */
typedef struct {
    int j0, j1;         /* keys j0 .. j1−1 */
    int visible;        /* keys of the tile the mask lets through */
    float tile_max;     /* the largest visible score of the tile (−∞ if none) */
    float m_old, m_new; /* running maximum before and after the tile */
    float alpha;        /* rescale factor exp(m_old − m_new) applied to l and o (0 while m_old = −∞) */
    double tile_sum;    /* Σ exp(s_j − m_new) over the tile's visible keys */
    double l;           /* running sum after the tile */
} av_flash_step;

/* out_row (D) = the output of query row i of head h, computed by the online
 * softmax with plain loops (dot products in double, the update in float32 as
 * in flash_attention_forward): the readable version of the tiled kernel, and
 * the worked example of the trace. q, k, v are (H, T, D). steps (may be NULL)
 * receives one record per key tile of width tile (1..T), at most ⌈T / tile⌉
 * records. With tile = T it is the plain softmax: one tile, no rescaling.
 * Returns the number of tiles, or -1 when out of memory (2·tile floats). */
int flash_row_forward(float *out_row, av_flash_step *steps, const float *q, const float *k, const float *v,
                      const av_mask_spec *mask, int h, int i, int H, int T, int D, double scale, int tile);

#endif
