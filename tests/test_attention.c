/* test_attention.c - each attention kernel against hand-worked cases and the
 * paper's formulas computed here in double precision. Expected values marked
 * "pitfalls.md" come from tests/data/pitfalls.md (double, 6 places). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/attention.h"
#include "nn/embed.h"

#define TOL6 1e-6 /* the pitfall values are rounded to 6 places */

static void assert_close(double got, double want, double tol) {
    if (fabs(got - want) > tol) {
        print_message("got %.9g, want %.9g (tol %g)\n", got, want, tol);
        fail();
    }
}

/* ---------------------------------------------------------------------------- */

static void test_sinusoidal_paper_values(void **state) {
    (void)state;
    float pe[2 * 8];
    sinusoidal_forward(pe, 2, 8);
    const double pos0[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    const double pos1[8] = {0.841471, 0.540302, 0.099833, 0.995004, 0.010000, 0.999950, 0.001000, 1.000000};
    for (int c = 0; c < 8; c++) {
        assert_close(pe[c], pos0[c], TOL6);
        assert_close(pe[8 + c], pos1[c], TOL6); /* pitfalls.md P6: interleaved, not [sin|cos] */
    }
}

static void test_sinusoidal_formula_grid(void **state) {
    (void)state;
    enum { T = 64 };
    const int widths[] = {2, 6, 16, 64, 512};
    static float pe[T * 512];
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        int C = widths[w];
        sinusoidal_forward(pe, T, C);
        for (int pos = 0; pos < T; pos++)
            for (int i = 0; 2 * i < C; i++) {
                double a = pos / pow(10000.0, 2.0 * i / C);
                assert_close(pe[pos * C + 2 * i], sin(a), 1e-6);
                if (2 * i + 1 < C) assert_close(pe[pos * C + 2 * i + 1], cos(a), 1e-6);
            }
    }
}

/* Long positions: the angle is computed in double, so at position 65,535 every
 * value is the correctly rounded float32 of the exact one (|err| <= half an
 * ulp, 2^-25 below 1). Exact values here in long double (x87 80-bit, an
 * independent, more precise evaluation). docs/conventions.md states the bound. */
static void test_sinusoidal_long_positions(void **state) {
    (void)state;
    enum { T = 65536, C = 64 };
    float *pe = malloc((size_t)T * C * sizeof(float));
    assert_non_null(pe);
    sinusoidal_forward(pe, T, C);
    double worst = 0;
    for (int pos = T - 3; pos < T; pos++)
        for (int c = 0; c < C; c++) {
            long double a = (long double)pos / powl(10000.0L, (long double)(c & ~1) / C);
            long double want = (c & 1) ? cosl(a) : sinl(a);
            worst = fmax(worst, (double)fabsl((long double)pe[(size_t)pos * C + c] - want));
        }
    print_message("sinusoidal at positions 65533..65535: worst |error| %.3g\n", worst);
    assert_true(worst <= 0x1p-25);
    free(pe);
}

static void test_rope_long_positions(void **state) {
    (void)state;
    enum { D = 64 };
    for (int style = 0; style < 2; style++) {
        float x[D], y[D];
        for (int d = 0; d < D; d++) x[d] = y[d] = (float)(d % 5) - 1.5f;
        rope_forward(y, 1, 1, D, (av_rope_style)style, 10000.0, 65535);
        for (int i = 0; i < D / 2; i++) {
            long double a = 65535.0L * powl(10000.0L, -2.0L * i / D);
            int i0 = style ? i : 2 * i, i1 = style ? i + D / 2 : 2 * i + 1;
            long double w0 = x[i0] * cosl(a) - x[i1] * sinl(a), w1 = x[i0] * sinl(a) + x[i1] * cosl(a);
            /* half an ulp of the result, plus double's error on the angle (~1e-11) */
            assert_true(fabsl(y[i0] - w0) <= fabsl(w0) * 0x1p-24 + 1e-10);
            assert_true(fabsl(y[i1] - w1) <= fabsl(w1) * 0x1p-24 + 1e-10);
        }
    }
}

/* ---------------------------------------------------------------------------- */

static void test_rope_pitfall_values(void **state) {
    (void)state;
    /* pitfalls.md P7: D=4, base 10000, x=[1,2,3,4] at position 1 */
    float x[4] = {1, 2, 3, 4};
    rope_forward(x, 1, 1, 4, AV_ROPE_INTERLEAVED, 10000.0, 1);
    const double inter[4] = {-1.142640, 1.922076, 2.959851, 4.029800};
    for (int d = 0; d < 4; d++) assert_close(x[d], inter[d], TOL6);
    float y[4] = {1, 2, 3, 4};
    rope_forward(y, 1, 1, 4, AV_ROPE_HALF, 10000.0, 1);
    const double half[4] = {-1.984111, 1.959901, 2.462378, 4.019800};
    for (int d = 0; d < 4; d++) assert_close(y[d], half[d], TOL6);
}

static void test_rope_position0_identity_and_norm(void **state) {
    (void)state;
    for (int style = 0; style < 2; style++) {
        float x[8 * 16];
        for (int i = 0; i < 8 * 16; i++) x[i] = (float)(i % 7) - 3.0f + 0.25f * (float)(i % 3);
        float orig[8 * 16];
        memcpy(orig, x, sizeof x);
        rope_forward(x, 1, 8, 16, (av_rope_style)style, 10000.0, 0);
        for (int d = 0; d < 16; d++) assert_close(x[d], orig[d], 0); /* position 0: identity, exactly */
        for (int t = 0; t < 8; t++) {
            double n0 = 0, n1 = 0;
            for (int d = 0; d < 16; d++) {
                n0 += (double)orig[t * 16 + d] * orig[t * 16 + d];
                n1 += (double)x[t * 16 + d] * x[t * 16 + d];
            }
            assert_close(sqrt(n1), sqrt(n0), 1e-5); /* rotation keeps the norm */
        }
    }
    float v[4] = {1, 2, 3, 4};
    rope_forward(v, 1, 1, 4, AV_ROPE_INTERLEAVED, 10000.0, 1);
    assert_close(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]), 5.477226, TOL6);
}

static double rope_dot(const float *q, const float *k, int m, int n, av_rope_style s) {
    float a[4], b[4];
    memcpy(a, q, sizeof a);
    memcpy(b, k, sizeof b);
    rope_forward(a, 1, 1, 4, s, 10000.0, m);
    rope_forward(b, 1, 1, 4, s, 10000.0, n);
    return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
}

static void test_rope_relative_property(void **state) {
    (void)state;
    const float q[4] = {1, 2, 3, 4}, k[4] = {0.5f, -1, 2, 0};
    /* pitfalls.md P7: <R(3)q, R(1)k> = <R(7)q, R(5)k> = <R(2)q, R(0)k> = 4.644436 */
    assert_close(rope_dot(q, k, 3, 1, AV_ROPE_INTERLEAVED), 4.644436, TOL6);
    assert_close(rope_dot(q, k, 7, 5, AV_ROPE_INTERLEAVED), 4.644436, TOL6);
    assert_close(rope_dot(q, k, 2, 0, AV_ROPE_INTERLEAVED), 4.644436, TOL6);
    /* the whole kind: every offset, many positions, both styles */
    for (int s = 0; s < 2; s++)
        for (int delta = -8; delta <= 8; delta++) {
            double ref = rope_dot(q, k, delta > 0 ? delta : 0, delta > 0 ? 0 : -delta, (av_rope_style)s);
            for (int n = 0; n < 200; n += 7)
                if (n + delta >= 0) assert_close(rope_dot(q, k, n + delta, n, (av_rope_style)s), ref, 2e-5);
        }
}

/* ---------------------------------------------------------------------------- */

static void test_matmul_hand_case(void **state) {
    (void)state;
    /* (2,3)·(3,2): [[1,2,3],[4,5,6]]·[[1,0],[0,1],[1,1]] = [[4,5],[10,11]] */
    const float a[6] = {1, 2, 3, 4, 5, 6}, w[6] = {1, 0, 0, 1, 1, 1};
    float out[4];
    matmul_forward(out, a, w, 2, 3, 2);
    const float want[4] = {4, 5, 10, 11};
    for (int i = 0; i < 4; i++) assert_close(out[i], want[i], 0);
}

static void test_split_merge_heads(void **state) {
    (void)state;
    /* pitfalls.md P5: X=[[1,2,3,4],[5,6,7,8]], 2 heads: head 0 = [[1,2],[5,6]], head 1 = [[3,4],[7,8]] */
    const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float h[8], back[8];
    split_heads_forward(h, x, 2, 4, 2);
    const float want[8] = {1, 2, 5, 6, 3, 4, 7, 8};
    for (int i = 0; i < 8; i++) assert_close(h[i], want[i], 0);
    merge_heads_forward(back, h, 2, 4, 2);
    for (int i = 0; i < 8; i++) assert_close(back[i], x[i], 0);
}

static void test_scores_scale_is_sqrt_dk(void **state) {
    (void)state;
    /* pitfalls.md P1: d_k=4, q=[1,1,1,1], k0=[1,1,1,1], k1=0 -> weights [0.880797, 0.119203] */
    const float q[8] = {1, 1, 1, 1, 0, 0, 0, 0}, k[8] = {1, 1, 1, 1, 0, 0, 0, 0};
    float s[4], a[4];
    scores_forward(s, q, k, 1, 2, 4, 1.0 / sqrt(4.0));
    assert_close(s[0], 2.0, 0);
    assert_close(s[1], 0.0, 0);
    softmax_forward(a, s, NULL, 1, 2, NULL);
    assert_close(a[0], 0.880797, TOL6);
    assert_close(a[1], 0.119203, TOL6);
}

/* softmax_forward works on square (T, T) score matrices: put the row in every row. */
static void softmax_row3(float a[3], const float row[3], double *dev) {
    float s[9], out[9];
    for (int i = 0; i < 3; i++) memcpy(s + 3 * i, row, 3 * sizeof(float));
    softmax_forward(out, s, NULL, 1, 3, dev);
    memcpy(a, out, 3 * sizeof(float));
    for (int i = 1; i < 3; i++) assert_memory_equal(out + 3 * i, a, 3 * sizeof(float));
}

static void test_softmax_stable_large_scores(void **state) {
    (void)state;
    /* pitfalls.md P9: [1000, 999, 998] -> [0.665241, 0.244728, 0.090031] */
    const float s[3] = {1000, 999, 998};
    float a[3];
    double dev;
    softmax_row3(a, s, &dev);
    assert_close(a[0], 0.665241, TOL6);
    assert_close(a[1], 0.244728, TOL6);
    assert_close(a[2], 0.090031, TOL6);
    /* either sign, float32 extremes: finite and summing to 1 */
    const float rows[][3] = {{-1000, -999, -998}, {1e30f, -1e30f, 0}, {-3e38f, -3e38f, -3e38f}, {88.8f, 89, 200}};
    for (size_t r = 0; r < 4; r++) {
        softmax_row3(a, rows[r], &dev);
        assert_true(all_finite(a, 3));
        assert_true(dev < 1e-6);
    }
    assert_close(a[2], 1.0, 1e-7); /* exp(200 - 89) dominates */
}

static void test_causal_mask_rows(void **state) {
    (void)state;
    /* pitfalls.md P3/P4: all scores 0, causal: row i uniform over j <= i, for T = 1..16 */
    for (int T = 1; T <= 16; T++) {
        float s[16 * 16] = {0}, a[16 * 16];
        unsigned char m[16 * 16];
        size_t count = mask_forward(m, T, 1, T, NULL);
        assert_int_equal(count, (size_t)(T * (T - 1) / 2));
        assert_int_equal(softmax_forward(a, s, m, 1, T, NULL), 0);
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) assert_close(a[i * T + j], j <= i ? 1.0 / (i + 1) : 0.0, 1e-7);
    }
}

static void test_padding_and_fully_masked_rows(void **state) {
    (void)state;
    /* 3 real tokens + 1 pad, causal, plus a user mask hiding everything from query 0 */
    unsigned char user[16] = {1, 1, 1, 1};
    unsigned char m[16];
    mask_forward(m, 4, 1, 3, user);
    for (int i = 0; i < 4; i++) assert_int_equal(m[i * 4 + 3], 1); /* the pad key is hidden from every query */
    float s[16] = {0}, a[16], o[4 * 2], v[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(softmax_forward(a, s, m, 1, 4, NULL), 1);
    for (int j = 0; j < 4; j++) assert_close(a[j], 0.0, 0); /* fully masked: zeros, not NaN */
    assert_close(a[3 * 4 + 0], 1.0 / 3, 1e-7);              /* the pad query still sees real keys */
    weighted_sum_forward(o, a, v, 1, 4, 2);
    assert_close(o[0], 0, 0);
    assert_close(o[1], 0, 0);
    assert_true(all_finite(o, 8));
}

static void test_weighted_sum_hand_case(void **state) {
    (void)state;
    const float a[4] = {0.25f, 0.75f, 1, 0}, v[4] = {4, 8, 12, 16};
    float o[4];
    weighted_sum_forward(o, a, v, 1, 2, 2);
    const float want[4] = {10, 14, 4, 8};
    for (int i = 0; i < 4; i++) assert_close(o[i], want[i], 0);
}

/* ---------------------------------------------------------------------------- */

static void test_rng_reference_and_moments(void **state) {
    (void)state;
    av_rng r;
    av_rng_seed(&r, 0);
    /* splitmix64's first output from state 0 (Vigna's reference implementation) */
    assert_true(r.s[0] == 0xE220A8397B1DCDAFull);
    double m = 0, v = 0;
    enum { N = 200000 };
    for (int i = 0; i < N; i++) {
        double z = av_rng_normal(&r);
        m += z;
        v += z * z;
    }
    m /= N;
    v = v / N - m * m;
    assert_close(m, 0.0, 0.01); /* 5 standard errors */
    assert_close(v, 1.0, 0.02);
}

static void test_embedding_is_a_lookup(void **state) {
    (void)state;
    float a[64], b[64], c[128], d[64];
    embed_token(a, "the", 64, 42);
    embed_token(b, "the", 64, 42);
    embed_token(c, "the", 128, 42);
    embed_token(d, "cat", 64, 42);
    assert_memory_equal(a, b, sizeof a);     /* same word, same vector */
    assert_memory_equal(a, c, sizeof a);     /* prefix does not depend on d_model */
    assert_memory_not_equal(a, d, sizeof a); /* other word, other vector */
    embed_token(b, "the", 64, 43);
    assert_memory_not_equal(a, b, sizeof a); /* other seed, other vector */
}

/* av_rng_normals (polynomial log and cos, libm where the float could differ)
 * gives the floats of the readable scalar loop (float)(av_rng_normal(r) * sd)
 * bit for bit: seeds, sd = 1 (embeddings) and 1/√512 (weights), lengths
 * that end inside a block; 2^21 draws (about 700 of them near a float
 * rounding boundary, recomputed with libm). The stream goes on from the same
 * state afterwards. */
static void test_normals_batch_is_bit_identical(void **state) {
    (void)state;
    enum { N = 1 << 18 };
    static float fast[N + 2], slow[N + 2];
    const uint64_t seeds[] = {0, 1, 42, 0xDEADBEEFull};
    const double sds[] = {1.0, 1.0 / sqrt(512.0)};
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 2; k++) {
            long n = N + s % 3;
            av_rng a, b;
            av_rng_seed(&a, seeds[s]);
            av_rng_seed(&b, seeds[s]);
            for (long i = 0; i < n; i++) slow[i] = (float)(av_rng_normal(&a) * sds[k]);
            av_rng_normals(fast, n, &b, sds[k]);
            long differ = 0;
            for (long i = 0; i < n; i++) differ += memcmp(&fast[i], &slow[i], sizeof(float)) != 0;
            assert_int_equal(differ, 0);
            assert_true(av_rng_next(&a) == av_rng_next(&b));
        }
}

static void test_weight_init_variance(void **state) {
    (void)state;
    enum { C = 256 };
    static float w[C * C];
    init_weight(w, "W_Q", C, 42);
    double mean, var;
    stats_forward(w, (size_t)C * C, &mean, &var);
    assert_close(var * C, 1.0, 0.02); /* N(0, 1/C) */
    assert_close(mean, 0.0, 0.001);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sinusoidal_paper_values),
        cmocka_unit_test(test_sinusoidal_formula_grid),
        cmocka_unit_test(test_sinusoidal_long_positions),
        cmocka_unit_test(test_rope_long_positions),
        cmocka_unit_test(test_rope_pitfall_values),
        cmocka_unit_test(test_rope_position0_identity_and_norm),
        cmocka_unit_test(test_rope_relative_property),
        cmocka_unit_test(test_matmul_hand_case),
        cmocka_unit_test(test_split_merge_heads),
        cmocka_unit_test(test_scores_scale_is_sqrt_dk),
        cmocka_unit_test(test_softmax_stable_large_scores),
        cmocka_unit_test(test_causal_mask_rows),
        cmocka_unit_test(test_padding_and_fully_masked_rows),
        cmocka_unit_test(test_weighted_sum_hand_case),
        cmocka_unit_test(test_rng_reference_and_moments),
        cmocka_unit_test(test_embedding_is_a_lookup),
        cmocka_unit_test(test_normals_batch_is_bit_identical),
        cmocka_unit_test(test_weight_init_variance),
    };
    return cmocka_run_group_tests_name("attention kernels", tests, NULL, NULL);
}
