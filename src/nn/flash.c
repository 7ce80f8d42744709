/* flash.c - tiled attention with an online softmax (see flash.h). The update
 * of one row by one tile (online_update) is shared by the tiled kernel and by
 * the plain-loop row version that the trace shows. */
#include "nn/flash.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "nn/attention_blas.h"
#include "nn/fastexp.h"

/* ----------------------------------------------------------------------------
 * the online softmax step */

/* 1 if query i may not see key j. */
static int masked(const av_mask_spec *mk, int T, int i, int j) {
    return (mk->causal && j > i) || j >= mk->n_real || (mk->user && mk->user[(size_t)i * T + j]);
}

/* One row, one tile: s (n) holds the tile's scores with masked keys at −∞.
 * Updates the running max *m and sum *l, writes p (n) = exp(s − m_new)
 * (0 for masked keys) and returns alpha = exp(m_old − m_new), the factor the
 * caller applies to its partial output. st (may be NULL) gets the record. */
__attribute__((always_inline)) static inline float online_update(float *p, const float *s, int n, float *m, double *l, av_flash_step *st) {
    float tile_max = av_max_f(s, n);
    float m_old = *m, m_new = tile_max > m_old ? tile_max : m_old;
    float alpha = 1.0f;
    double tile_sum = 0.0;
    if (m_new == -INFINITY) { /* nothing visible yet: o and l stay 0 */
        for (int j = 0; j < n; j++) p[j] = 0.0f;
    } else {
        alpha = m_old == -INFINITY ? 0.0f : av_expf(m_old - m_new);
        for (int j = 0; j < n; j++) p[j] = s[j] == -INFINITY ? 0.0f : av_expf(s[j] - m_new);
        tile_sum = av_sum_d(p, n);
        *l = *l * alpha + tile_sum;
        *m = m_new;
    }
    if (st) {
        st->tile_max = tile_max;
        st->m_old = m_old;
        st->m_new = m_new;
        st->alpha = alpha;
        st->tile_sum = tile_sum;
        st->l = *l;
    }
    return alpha;
}

/* ----------------------------------------------------------------------------
 * one row with plain loops (the readable version) */

float flash_score(const float *q, const float *k, int h, int i, int j, int T, int D, double scale) {
    // q, k are (H, T, D)
    const float *q_hi = q + ((size_t)h * T + i) * D, *k_hj = k + ((size_t)h * T + j) * D;
    double dot = 0.0;
    for (int d = 0; d < D; d++) dot += (double)q_hi[d] * (double)k_hj[d];
    return (float)(dot * scale);
}

int flash_row_forward(float *out_row, av_flash_step *steps, const float *q, const float *k, const float *v,
                      const av_mask_spec *mask, int h, int i, int H, int T, int D, double scale, int tile) {
    // q, k, v are (H, T, D); out_row is (D); s, p are (tile); o is (D)
    (void)H;
    if (tile < 1) tile = 1;
    if (tile > T) tile = T;
    float m = -INFINITY, *s = malloc(2 * (size_t)tile * sizeof(float)), *p = s ? s + tile : NULL;
    double l = 0.0, *o = calloc(D > 0 ? (size_t)D : 1, sizeof(double));
    if (!s || !o) {
        free(s), free(o);
        return -1;
    }
    int n_steps = 0;
    for (int j0 = 0; j0 < T; j0 += tile, n_steps++) {
        int n = T - j0 < tile ? T - j0 : tile, visible = 0;
        for (int j = 0; j < n; j++) { /* 1. scores of the tile, masked keys at −∞ */
            s[j] = masked(mask, T, i, j0 + j) ? -INFINITY : flash_score(q, k, h, i, j0 + j, T, D, scale);
            visible += s[j] != -INFINITY;
        }
        av_flash_step st;
        float alpha = online_update(p, s, n, &m, &l, &st); /* 2. new max, rescale, new sum */
        for (int d = 0; d < D; d++) {                       /* 3. o ← alpha·o + Σ_j p_j v_j */
            double acc = o[d] * alpha;
            for (int j = 0; j < n; j++) acc += (double)p[j] * (double)v[((size_t)h * T + j0 + j) * D + d];
            o[d] = acc;
        }
        st.j0 = j0, st.j1 = j0 + n, st.visible = visible;
        if (steps) steps[n_steps] = st;
    }
    for (int d = 0; d < D; d++) out_row[d] = l > 0.0 ? (float)(o[d] / l) : 0.0f; /* 4. out = o / l */
    free(s);
    free(o);
    return n_steps;
}

/* ----------------------------------------------------------------------------
 * the tiled kernel: items are (head, block of AV_FLASH_ROWS query rows) */

typedef struct {
    float *out;
    const float *q, *k, *v;
    const av_mask_spec *mask;
    int H, T, D;
    double scale;
    int *fully;          /* (items) rows with no visible key */
    atomic_int oom, overflow;
} flash_ctx;

/* One row of a score tile: user-masked keys (u[j] = 1, u may be NULL) and
 * keys from vis on become −∞. Returns 1 if a visible score is not finite. */
AV_SIMD_CLONES static int mask_tile_row(float *s_r, const unsigned char *u, int vis, int n) {
    int bad = 0;
    if (u)
        for (int j = 0; j < vis; j++) {
            bad |= !u[j] & !(fabsf(s_r[j]) <= 3.4028235e38f);
            s_r[j] = u[j] ? -INFINITY : s_r[j];
        }
    else
        for (int j = 0; j < vis; j++) bad |= !(fabsf(s_r[j]) <= 3.4028235e38f);
    for (int j = vis; j < n; j++) s_r[j] = -INFINITY;
    return bad;
}

/* The online softmax of one tile for the block's rows: p = exp(s − m_new)
 * row by row, m and l updated, the partial outputs o rescaled by alpha. */
AV_SIMD_CLONES static void tile_softmax(float *p, float *o, float *m, double *l, const float *s, int rows, int n,
                                        int D) {
    // s, p are (rows, n); o is (rows, D); m, l are (rows)
    for (int r = 0; r < rows; r++) {
        float alpha = online_update(p + (size_t)r * n, s + (size_t)r * n, n, &m[r], &l[r], NULL);
        if (alpha != 1.0f)
            for (int d = 0; d < D; d++) o[(size_t)r * D + d] *= alpha;
    }
}

/* Scores of one tile for the block's rows, masked at −∞; 0, or 1 if a visible
 * score Q·Kᵀ·scale is not finite (float32 overflow; where only sgemm's sum
 * Q·Kᵀ overflowed, the score is made again with double sums, flash_score). The causal and padding rules cut
 * each row at its last visible key; only a user mask is looked up per key. */
static int tile_scores(float *s, const flash_ctx *a, int h, int i0, int rows, int j0, int n) {
    // s is (rows, n): q_h rows i0.. (rows, D) · k_h rows j0.. (n, D)ᵀ · scale
    int T = a->T, D = a->D, bad = 0;
    const av_mask_spec *mk = a->mask;
    av_sgemm(s, a->q + ((size_t)h * T + i0) * D, a->k + ((size_t)h * T + j0) * D, rows, n, D, D, D, n, 1,
             (float)a->scale, 0.0f);
    for (int r = 0; r < rows; r++) {
        float *s_r = s + (size_t)r * n;
        int i = i0 + r, end = mk->n_real < T ? mk->n_real : T; /* keys < end pass the rules */
        if (mk->causal && i + 1 < end) end = i + 1;
        int vis = end - j0 < 0 ? 0 : end - j0 > n ? n : end - j0;
        const unsigned char *u = mk->user ? mk->user + (size_t)i * T + j0 : NULL;
        if (!mask_tile_row(s_r, u, vis, n)) continue;
        /* sgemm's float32 sum Q·Kᵀ overflowed: the score used, Q·Kᵀ·scale, may still fit (as the blas kernel's
         * fallback in nn/model.c), so it is made again with double sums; only a score that does not fit fails */
        for (int j = 0; j < vis; j++)
            if (!(u && u[j]) && !(fabsf(s_r[j]) <= 3.4028235e38f)) {
                s_r[j] = flash_score(a->q, a->k, h, i, j0 + j, T, D, a->scale);
                bad |= !(fabsf(s_r[j]) <= 3.4028235e38f);
            }
    }
    return bad;
}

/* The last key any row of the block may see, plus one. */
static int key_end(const flash_ctx *a, int i_end) {
    int end = a->mask->n_real < a->T ? a->mask->n_real : a->T;
    if (a->mask->causal && i_end < end) end = i_end;
    return end;
}

static void flash_block(void *arg, int item) {
    flash_ctx *a = arg;
    int T = a->T, D = a->D, nb = (T + AV_FLASH_ROWS - 1) / AV_FLASH_ROWS;
    int h = item / nb, i0 = (item % nb) * AV_FLASH_ROWS, rows = T - i0 < AV_FLASH_ROWS ? T - i0 : AV_FLASH_ROWS;
    // s, p are (rows, tile); o is (rows, D); m, l are (rows)
    float *s = malloc(sizeof(float) * AV_FLASH_ROWS * (2 * AV_FLASH_TILE + (size_t)D + 1));
    double *l = calloc(AV_FLASH_ROWS, sizeof(double));
    if (!s || !l) {
        atomic_store(&a->oom, 1);
        free(s), free(l);
        return;
    }
    float *p = s + AV_FLASH_ROWS * AV_FLASH_TILE, *o = p + AV_FLASH_ROWS * AV_FLASH_TILE, *m = o + (size_t)AV_FLASH_ROWS * D;
    memset(o, 0, sizeof(float) * (size_t)rows * D);
    for (int r = 0; r < rows; r++) m[r] = -INFINITY;
    for (int j0 = 0, end = key_end(a, i0 + rows); j0 < end; j0 += AV_FLASH_TILE) {
        int n = end - j0 < AV_FLASH_TILE ? end - j0 : AV_FLASH_TILE;
        if (tile_scores(s, a, h, i0, rows, j0, n)) { /* no exp of inf − inf: the call fails */
            atomic_store(&a->overflow, 1);
            break;
        }
        tile_softmax(p, o, m, l, s, rows, n, D);
        // o (rows, D) += p (rows, n) · v_h rows j0.. (n, D)
        av_sgemm(o, p, a->v + ((size_t)h * T + j0) * D, rows, D, n, n, D, D, 0, 1.0f, 1.0f);
    }
    int fully = 0;
    for (int r = 0; r < rows; r++) {
        float *out_r = a->out + (size_t)(i0 + r) * a->H * D + (size_t)h * D;
        float inv = l[r] > 0.0 ? (float)(1.0 / l[r]) : 0.0f;
        fully += l[r] == 0.0;
        for (int d = 0; d < D; d++) out_r[d] = o[(size_t)r * D + d] * inv;
    }
    a->fully[item] = fully;
    free(s);
    free(l);
}

av_status flash_attention_forward(float *out, const float *q, const float *k, const float *v,
                                  const av_mask_spec *mask, int H, int T, int D, double scale,
                                  int *fully_masked_rows, av_err *err) {
    // q, k, v are (H, T, D); out is (T, C) with C = H·D
    int items = H * ((T + AV_FLASH_ROWS - 1) / AV_FLASH_ROWS);
    flash_ctx a = {out, q, k, v, mask, H, T, D, scale, calloc((size_t)items, sizeof(int)), 0, 0};
    atomic_init(&a.oom, 0);
    atomic_init(&a.overflow, 0);
    if (!a.fully)
        return av_fail(err, AV_ERUNTIME, "out of memory for the flash kernel's %d work items", items);
    av_parallel_for(items, flash_block, &a);
    int fully = 0;
    for (int it = 0; it < items; it++) fully += a.fully[it];
    free(a.fully);
    if (fully_masked_rows) *fully_masked_rows = fully;
    if (atomic_load(&a.oom))
        return av_fail(err, AV_ERUNTIME, "out of memory for the flash kernel's score tiles (%d x %d floats)",
                       AV_FLASH_ROWS, AV_FLASH_TILE);
    if (atomic_load(&a.overflow))
        return av_fail_overflow(err, "the scores Q·Kᵀ·scale", "(a value became infinite or NaN): the values in X.npy / "
                                "W_*.npy are too large; float32 holds magnitudes up to 3.4e38");
    return AV_OK;
}
