/* fastexp.h - exp(x) in float32 for the softmax kernels (attention_blas.c,
 * flash.c): inline, branch-free, so loops over a tile need no library call.
 *
 * Cephes expf (S. Moshier): x = n·ln 2 + r with |r| <= ln2/2 (ln 2 split in
 * two parts so r is exact), exp(r) by a degree-7 polynomial, 2^n put into the
 * exponent bits. Relative error within 2 ulp over [−87.3, 88.37]
 * (tests/test_kernels.c measures it against exp in double); inputs are
 * clamped to that range, so −∞ gives about 1e-38, not 0, +∞ about 2.7e38, and
 * NaN gives the low end (no undefined conversion): callers that need an exact 0
 * for masked keys test for −∞ themselves, and callers check finiteness. Round-to-nearest is done by
 * adding 1.5·2^23, which the build keeps (no -ffast-math). Same bits on every
 * machine that rounds float32 as IEEE 754 does, vectorised or not (the
 * Makefile lets GCC vectorise the loops of flash.c and attention_blas.c; each
 * lane does the same IEEE operations, and no sum is reordered). */
#ifndef AV_FASTEXP_H
#define AV_FASTEXP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/common.h" /* AV_SIMD_CLONES, for the functions that run these loops */

static inline float av_expf(float x) {
    x = x > -87.33654f ? x : -87.33654f; /* written so that NaN takes the low end: (int32_t)n below stays defined */
    x = x < 88.37626f ? x : 88.37626f;   /* n <= 127: 2^n still a normal float */
    float t = x * 1.44269504088896341f + 12582912.0f; /* 1.5·2^23: rounds x·log2(e) to an integer */
    float n = t - 12582912.0f;
    float r = x - n * 0.693359375f - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* Largest of x[0..n-1] (−∞ for n = 0), in 32 lanes (two AVX-512
 * registers, so the loop is not one chain of dependent max): max is exact,
 * so the order does not change the result (NaN aside; callers pass finite or −∞). */
static inline float av_max_f(const float *x, int n) {
    float m[32];
    for (int k = 0; k < 32; k++) m[k] = -INFINITY;
    int j = 0;
    for (; j + 32 <= n; j += 32)
        for (int k = 0; k < 32; k++) m[k] = x[j + k] > m[k] ? x[j + k] : m[k];
    for (; j < n; j++) m[0] = x[j] > m[0] ? x[j] : m[0];
    for (int w = 16; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) m[k] = m[k + w] > m[k] ? m[k + w] : m[k];
    return m[0];
}

/* Σ x[0..n-1] in double, in 16 partial sums combined in a fixed order
 * (deterministic, and not a serial chain of dependent additions: the 16
 * lanes fill two AVX-512 registers, or four AVX2 ones). */
static inline double av_sum_d(const float *x, size_t n) {
    double s[16] = {0};
    size_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) s[k] += x[j + k];
    for (; j < n; j++) s[0] += x[j];
    for (int w = 8; w >= 1; w /= 2) /* pairwise: s[k] += s[k + w] */
        for (int k = 0; k < w; k++) s[k] += s[k + w];
    return s[0];
}

#endif
