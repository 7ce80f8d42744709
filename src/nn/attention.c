/* attention.c - the attention kernels (see attention.h for the math and the
 * dimension legend T, C, H, D). Plain reference loops: clear first, sums in
 * double. The fast kernels (attention_blas.c, flash.c) are tested against
 * these. */
#include "nn/attention.h"

#include "base/common.h" /* AV_SIMD_CLONES */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"

/* ----------------------------------------------------------------------------
 * positions */

typedef struct {
    float *pe;
    int T, C;
    const double *denom; /* (C) 10000^(2i/C) for column c, i = c/2 */
} sinusoidal_ctx;

enum { SIN_ROWS = 256 }; /* positions per work item */

static void sinusoidal_rows(void *arg, int item) {
    const sinusoidal_ctx *a = arg;
    int t_end = (item + 1) * SIN_ROWS < a->T ? (item + 1) * SIN_ROWS : a->T;
    for (int t = item * SIN_ROWS; t < t_end; t++) {
        float *pe_t = a->pe + (size_t)t * a->C;
        for (int c = 0; c < a->C; c += 2) { /* columns 2i and 2i+1 share the angle (GCC makes one sincos) */
            double angle = (double)t / a->denom[c], s = sin(angle), co = cos(angle);
            pe_t[c] = (float)s;
            if (c + 1 < a->C) pe_t[c + 1] = (float)co;
        }
    }
}

void sinusoidal_forward(float *pe, int T, int C) {
    // pe is (T, C); denom[c] = 10000^(2i/C) with 2i = c rounded down to even
    double denom_stack[512];
    double *denom = C <= 512 ? denom_stack : malloc((size_t)C * sizeof(double));
    if (!denom) { /* out of memory: the power per entry, same values */
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                double angle = (double)t / pow(10000.0, (double)(c & ~1) / (double)C);
                pe[(size_t)t * C + c] = (float)((c & 1) ? cos(angle) : sin(angle));
            }
        return;
    }
    for (int c = 0; c < C; c++) denom[c] = pow(10000.0, (double)(c & ~1) / (double)C);
    sinusoidal_ctx a = {pe, T, C, denom};
    av_parallel_for((T + SIN_ROWS - 1) / SIN_ROWS, sinusoidal_rows, &a);
    if (denom != denom_stack) free(denom);
}

void rope_forward(float *x, int H, int T, int D, av_rope_style style, double base, int pos0) {
    // x is (H, T, D); pairs are (2i, 2i+1) or (i, i + D/2)
    // The angle (pos0 + t)·θ_i and its cos and sin are computed once per
    // position and pair, in double, and applied to every head.
    int half = D / 2;
    for (int t = 0; t < T; t++) {
        double pos = (double)pos0 + (double)t;
        for (int i = 0; i < half; i++) {
            double theta = pow(base, -2.0 * i / (double)D);
            double a = pos * theta, c = cos(a), s = sin(a);
            int i0 = style == AV_ROPE_INTERLEAVED ? 2 * i : i;
            int i1 = style == AV_ROPE_INTERLEAVED ? 2 * i + 1 : i + half;
            for (int h = 0; h < H; h++) {
                float *x_ht = x + ((size_t)h * T + t) * D;
                double x0 = x_ht[i0], x1 = x_ht[i1];
                x_ht[i0] = (float)(x0 * c - x1 * s);
                x_ht[i1] = (float)(x0 * s + x1 * c);
            }
        }
    }
}

/* ----------------------------------------------------------------------------
 * projections and head reshapes */

/* AV_SIMD_CLONES (base/common.h): the o loop runs 8 doubles a step with
 * AVX-512 instead of SSE2's 2, the same products and sums in the same
 * order, so the same bits. */
AV_SIMD_CLONES void matmul_forward(float *out, const float *inp, const float *w, int T, int C, int OC) {
    // inp is (T, C), w is (C, OC), out is (T, OC)
    // Loop order t, c, o: w is read row by row (contiguous); each out[t, o] still
    // sums its C products in increasing c, in double, and is rounded once.
    double acc_stack[512];
    double *acc = OC <= 512 ? acc_stack : malloc((size_t)OC * sizeof(double));
    if (!acc) { /* out of memory: the plain dot-product order, same sums */
        for (int t = 0; t < T; t++)
            for (int o = 0; o < OC; o++) {
                double a = 0.0;
                for (int c = 0; c < C; c++) a += (double)inp[(size_t)t * C + c] * (double)w[(size_t)c * OC + o];
                out[(size_t)t * OC + o] = (float)a;
            }
        return;
    }
    for (int t = 0; t < T; t++) {
        const float *inp_t = inp + (size_t)t * C;
        float *out_t = out + (size_t)t * OC;
        for (int o = 0; o < OC; o++) acc[o] = 0.0;
        for (int c = 0; c < C; c++) {
            const float *w_c = w + (size_t)c * OC;
            double x = inp_t[c];
            for (int o = 0; o < OC; o++) acc[o] += x * (double)w_c[o];
        }
        for (int o = 0; o < OC; o++) out_t[o] = (float)acc[o];
    }
    if (acc != acc_stack) free(acc);
}

typedef struct {
    float *out;
    const float *inp;
    int T, C, H;
} heads_ctx;

static void split_head(void *arg, int h) { /* one head per work item: the copies are independent */
    const heads_ctx *a = arg;
    int D = a->C / a->H;
    for (int t = 0; t < a->T; t++)
        memcpy(a->out + ((size_t)h * a->T + t) * D, a->inp + (size_t)t * a->C + (size_t)h * D,
               (size_t)D * sizeof(float));
}

void split_heads_forward(float *out, const float *inp, int T, int C, int H) {
    // inp is (T, C) viewed as (T, H, D); out is (H, T, D)
    heads_ctx a = {out, inp, T, C, H};
    av_parallel_for(H, split_head, &a);
}

void merge_heads_forward(float *out, const float *inp, int T, int C, int H) {
    // inp is (H, T, D); out is (T, C) viewed as (T, H, D)
    int D = C / H;
    for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++)
            memcpy(out + (size_t)t * C + (size_t)h * D, inp + ((size_t)h * T + t) * D,
                   (size_t)D * sizeof(float));
}

/* ----------------------------------------------------------------------------
 * scores, mask, softmax, weighted sum */

void scores_forward(float *scores, const float *q, const float *k, int H, int T, int D, double scale) {
    // q, k are (H, T, D); scores is (H, T, T)
    for (int h = 0; h < H; h++) {
        for (int i = 0; i < T; i++) {
            const float *q_hi = q + ((size_t)h * T + i) * D;
            float *s_hi = scores + ((size_t)h * T + i) * T;
            for (int j = 0; j < T; j++) {
                const float *k_hj = k + ((size_t)h * T + j) * D;
                double dot = 0.0;
                for (int d = 0; d < D; d++) dot += (double)q_hi[d] * (double)k_hj[d];
                s_hi[j] = (float)(dot * scale);
            }
        }
    }
}

size_t mask_forward(unsigned char *mask, int T, int causal, int n_real, const unsigned char *user) {
    // mask is (T, T): row = query i, column = key j, 1 = masked
    size_t count = 0;
    for (int i = 0; i < T; i++) {
        for (int j = 0; j < T; j++) {
            int m = (causal && j > i) || (j >= n_real) || (user && user[(size_t)i * T + j]);
            mask[(size_t)i * T + j] = (unsigned char)m;
            count += (size_t)m;
        }
    }
    return count;
}

int softmax_forward(float *att, const float *scores, const unsigned char *mask, int H, int T,
                    double *worst_dev) {
    // scores, att are (H, T, T); mask is (T, T) or NULL
    int fully_masked = 0;
    double worst = 0.0;
    for (int h = 0; h < H; h++) {
        for (int i = 0; i < T; i++) {
            const float *s_hi = scores + ((size_t)h * T + i) * T;
            const unsigned char *m_i = mask ? mask + (size_t)i * T : NULL;
            float *a_hi = att + ((size_t)h * T + i) * T;
            /* pass 1: max over the visible keys (masked keys are −∞) */
            double maxv = -INFINITY;
            for (int j = 0; j < T; j++)
                if (!(m_i && m_i[j]) && s_hi[j] > maxv) maxv = s_hi[j];
            if (maxv == -INFINITY) {
                /* every key is masked: softmax of all −∞ is undefined (0/0);
                 * the rule is all-zero weights, so the output row is zero */
                for (int j = 0; j < T; j++) a_hi[j] = 0.0f;
                fully_masked++;
                continue;
            }
            /* pass 2: exp(s − max) and the sum; exp(−∞) = 0 for masked keys */
            double sum = 0.0;
            double e[T > 0 ? T : 1];
            for (int j = 0; j < T; j++) {
                e[j] = (m_i && m_i[j]) ? 0.0 : exp((double)s_hi[j] - maxv);
                sum += e[j];
            }
            /* pass 3: normalise (sum >= 1 because the max term is exp(0)) */
            double check = 0.0;
            for (int j = 0; j < T; j++) {
                a_hi[j] = (float)(e[j] / sum);
                check += a_hi[j];
            }
            if (fabs(check - 1.0) > worst) worst = fabs(check - 1.0);
        }
    }
    if (worst_dev) *worst_dev = worst;
    return fully_masked;
}

void weighted_sum_forward(float *out, const float *att, const float *v, int H, int T, int D) {
    // att is (H, T, T), v is (H, T, D), out is (H, T, D)
    // Loop order h, i, j, d: v rows are read contiguously; each out[h, i, d] sums
    // over j in increasing order, in double, rounded once.
    double acc_stack[512];
    double *acc = D <= 512 ? acc_stack : malloc((size_t)D * sizeof(double));
    for (int h = 0; h < H; h++) {
        for (int i = 0; i < T; i++) {
            const float *a_hi = att + ((size_t)h * T + i) * T;
            float *o_hi = out + ((size_t)h * T + i) * D;
            if (!acc) { /* out of memory: the plain order, same sums */
                for (int d = 0; d < D; d++) {
                    double a = 0.0;
                    for (int j = 0; j < T; j++) a += (double)a_hi[j] * (double)v[((size_t)h * T + j) * D + d];
                    o_hi[d] = (float)a;
                }
                continue;
            }
            for (int d = 0; d < D; d++) acc[d] = 0.0;
            for (int j = 0; j < T; j++) {
                const float *v_hj = v + ((size_t)h * T + j) * D;
                double a = a_hi[j];
                for (int d = 0; d < D; d++) acc[d] += a * (double)v_hj[d];
            }
            for (int d = 0; d < D; d++) o_hi[d] = (float)acc[d];
        }
    }
    if (acc && acc != acc_stack) free(acc);
}

void stats_forward(const float *x, size_t n, double *mean, double *var) {
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < n; i++) m += x[i];
    m = n ? m / (double)n : 0.0;
    for (size_t i = 0; i < n; i++) v += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n ? v / (double)n : 0.0;
}

av_status av_overflow_fail(int layer, const char *what, const char *why, av_err *err) {
    char at[256]; /* "layer L: WHAT" */
    if (layer >= 0) snprintf(at, sizeof at, "layer %d: %s", layer, what);
    else snprintf(at, sizeof at, "%s", what);
    return av_fail_overflow(err, at, "(a value became infinite)%s", why);
}

int all_finite(const float *x, size_t n) {
    for (size_t i0 = 0; i0 < n; i0 += 4096) { /* blocks of plain loops the compiler vectorises */
        size_t i1 = n - i0 < 4096 ? n : i0 + 4096;
        int bad = 0;
        for (size_t i = i0; i < i1; i++) bad |= !(x[i] - x[i] == 0); /* ±inf and NaN give NaN */
        if (bad) return 0;
    }
    return 1;
}
