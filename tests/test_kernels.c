/* test_kernels.c - the BLAS and flash kernels against the reference loops of
 * attention.c (themselves checked against PyTorch in test_torch_ref.c), over
 * masks (causal, key padding, user), positions (none, sinusoidal, RoPE), odd T,
 * T not a multiple of the flash tile (AV_FLASH_TILE) or query block
 * (AV_FLASH_ROWS) or the BLAS kernel's 256-row block, and T = 1. Prints the
 * worst difference of each comparison; fails above 1e-5. Also: bit-identical
 * results with 1 and 2 threads, and the online softmax of one row tile by tile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "nn/attention_blas.h"
#include "nn/fastexp.h"
#include "nn/flash.h"
#include "nn/model.h"

#define TOL 1e-5

static double max_abs_diff(const float *a, const float *b, size_t n) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= worst)) worst = d; /* NaN counts as the worst */
    }
    return worst;
}

typedef struct {
    const char *name;
    int T, n_real, C, H, causal;
    av_positions pos;
    int user; /* 1: a user mask that hides every key from query 1 and a pattern elsewhere */
} kcase;

static const kcase kCases[] = {
    {"T=1", 1, 1, 16, 2, 0, AV_POS_NONE, 0},
    {"T=1 causal rope", 1, 1, 16, 2, 1, AV_POS_ROPE, 0},
    {"T=7 odd, sinusoidal", 7, 7, 24, 3, 0, AV_POS_SINUSOIDAL, 0},
    {"T=33 causal rope", 33, 33, 32, 4, 1, AV_POS_ROPE, 0},
    {"T=65 padding 50", 65, 50, 32, 2, 0, AV_POS_SINUSOIDAL, 0},
    {"T=100 user mask", 100, 100, 32, 4, 0, AV_POS_NONE, 1},
    {"T=257 causal padding user", 257, 240, 32, 2, 1, AV_POS_ROPE, 1},
    {"T=300 sinusoidal causal", 300, 300, 64, 4, 1, AV_POS_SINUSOIDAL, 0},
    {"T=500 rope-half", 500, 500, 16, 1, 0, AV_POS_ROPE, 0},
    {"T=1100 causal padding user", 1100, 1030, 32, 2, 1, AV_POS_SINUSOIDAL, 1},
};
enum { MANY_BLOCKS = 9 }; /* kCases[9]: several query blocks and key tiles of flash, every mask */

/* Builds and runs one model; tokens "w0".."w12" repeat so rows repeat. */
static void run_case(av_model *m, const kcase *k, av_kernel kernel, av_rope_style style) {
    av_config cfg = {.T = k->T, .n_real = k->n_real, .C = k->C, .H = k->H, .positions = k->pos,
                     .rope_style = style, .rope_base = 10000.0, .causal = k->causal, .scale = 1,
                     .kernel = kernel, .seed = 7};
    av_err err;
    assert_int_equal(av_model_init(m, &cfg, &err), AV_OK);
    char **tok = malloc((size_t)k->T * sizeof *tok);
    assert_non_null(tok);
    for (int t = 0; t < k->T; t++) {
        tok[t] = malloc(8);
        snprintf(tok[t], 8, "w%d", (t * 7) % 13);
    }
    av_model_seed(m, (const char *const *)tok);
    for (int t = 0; t < k->T; t++) free(tok[t]);
    free(tok);
    if (k->user) {
        m->user_mask = calloc((size_t)k->T * k->T, 1);
        assert_non_null(m->user_mask);
        for (int i = 0; i < k->T; i++)
            for (int j = 0; j < k->T; j++) m->user_mask[(size_t)i * k->T + j] = (i == 1) || ((i * 3 + j * 5) % 7 == 0);
    }
    assert_int_equal(av_model_forward(m, &err), AV_OK);
}

static void test_blas_and_flash_match_reference(void **state) {
    (void)state;
    double worst_blas = 0, worst_flash = 0, worst_att = 0;
    for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; c++) {
        const kcase *k = &kCases[c];
        av_rope_style style = k->T == 500 ? AV_ROPE_HALF : AV_ROPE_INTERLEAVED;
        av_model ref, bl, fl;
        run_case(&ref, k, AV_KERNEL_REFERENCE, style);
        run_case(&bl, k, AV_KERNEL_BLAS, style);
        run_case(&fl, k, AV_KERNEL_FLASH, style);
        size_t TC = (size_t)k->T * k->C, HTT = (size_t)k->H * k->T * k->T;
        double d_att = max_abs_diff(bl.att, ref.att, HTT);
        double d_ctx_b = max_abs_diff(bl.context, ref.context, TC), d_out_b = max_abs_diff(bl.out, ref.out, TC);
        double d_ctx_f = max_abs_diff(fl.context, ref.context, TC), d_out_f = max_abs_diff(fl.out, ref.out, TC);
        print_message("[ kernels  ] %-28s blas: weights %.1e context %.1e output %.1e | flash: context %.1e output %.1e\n",
                      k->name, d_att, d_ctx_b, d_out_b, d_ctx_f, d_out_f);
        assert_true(d_att <= TOL && d_ctx_b <= TOL && d_out_b <= TOL && d_ctx_f <= TOL && d_out_f <= TOL);
        assert_int_equal(bl.fully_masked_rows, ref.fully_masked_rows);
        assert_int_equal(fl.fully_masked_rows, ref.fully_masked_rows);
        assert_true(fl.masked_count == ref.masked_count);
        assert_true(fabs(fl.var_q - ref.var_q) <= 1e-5 * (1 + ref.var_q));
        assert_true(fabs(bl.var_q - ref.var_q) <= 1e-5 * (1 + ref.var_q));
        assert_true(fabs(bl.var_scaled - ref.var_scaled) <= 1e-5 * (1 + ref.var_scaled));
        assert_true(fabs(bl.worst_row_dev - ref.worst_row_dev) <= 1e-5);
        worst_att = fmax(worst_att, d_att);
        worst_blas = fmax(worst_blas, fmax(d_ctx_b, d_out_b));
        worst_flash = fmax(worst_flash, fmax(d_ctx_f, d_out_f));
        av_model_free(&ref);
        av_model_free(&bl);
        av_model_free(&fl);
    }
    print_message("[ kernels  ] worst over all cases: blas weights %.2e, blas outputs %.2e, flash outputs %.2e (tol %g)\n",
                  worst_att, worst_blas, worst_flash, TOL);
}

/* P2: a query whose keys are all masked gets a zero output row, on every kernel. */
static void test_fully_masked_rows_are_zero(void **state) {
    (void)state;
    const kcase *k = &kCases[5]; /* user mask hides every key from query 1 */
    for (int kern = AV_KERNEL_REFERENCE; kern <= AV_KERNEL_FLASH; kern++) {
        av_model m;
        run_case(&m, k, (av_kernel)kern, AV_ROPE_INTERLEAVED);
        assert_int_equal(m.fully_masked_rows, k->H); /* row 1 of every head */
        for (int c = 0; c < k->C; c++) assert_true(m.context[(size_t)1 * k->C + c] == 0.0f);
        assert_true(all_finite(m.out, (size_t)k->T * k->C));
        av_model_free(&m);
    }
}

static void test_bits_do_not_depend_on_thread_count(void **state) {
    (void)state;
    const kcase *k = &kCases[MANY_BLOCKS];
    for (int kern = AV_KERNEL_BLAS; kern <= AV_KERNEL_FLASH; kern++) {
        av_model one, two;
        av_set_threads(1);
        run_case(&one, k, (av_kernel)kern, AV_ROPE_INTERLEAVED);
        av_set_threads(2);
        run_case(&two, k, (av_kernel)kern, AV_ROPE_INTERLEAVED);
        size_t TC = (size_t)k->T * k->C;
        assert_memory_equal(one.out, two.out, TC * sizeof(float));
        assert_memory_equal(one.context, two.context, TC * sizeof(float));
        if (kern == AV_KERNEL_BLAS)
            assert_memory_equal(one.att, two.att, (size_t)k->H * k->T * k->T * sizeof(float));
        assert_true(one.var_scaled == two.var_scaled);
        av_model_free(&one);
        av_model_free(&two);
    }
    av_set_threads(2);
}

static void test_matmul_blas_matches_reference(void **state) {
    (void)state;
    enum { M = 131, K = 70, N = 33 };
    static float a[M * K], b[K * N], r[M * N], f[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    for (int i = 0; i < K * N; i++) b[i] = (float)((i * 53) % 89) / 44.0f - 1.0f;
    av_matmul(r, a, b, M, K, N, AV_KERNEL_REFERENCE);
    av_matmul(f, a, b, M, K, N, AV_KERNEL_BLAS);
    double d = max_abs_diff(r, f, (size_t)M * N);
    print_message("[ kernels  ] matmul (131,70)·(70,33): blas vs reference %.2e\n", d);
    assert_true(d <= TOL);
    /* hand case: [[1,2,3],[4,5,6]]·[[1,0],[0,1],[1,1]] = [[4,5],[10,11]] */
    const float x[6] = {1, 2, 3, 4, 5, 6}, w[6] = {1, 0, 0, 1, 1, 1};
    float o[4];
    av_matmul(o, x, w, 2, 3, 2, AV_KERNEL_BLAS);
    assert_true(o[0] == 4 && o[1] == 5 && o[2] == 10 && o[3] == 11);
}

/* The online softmax of one row, worked by hand: scores [1, 3] then [2, 0]
 * (tile 2, v = key index). Tile 1: m = 3, l = e^-2 + 1. Tile 2: the max stays
 * 3, alpha = 1, l += e^-1 + e^-3. Output = Σ_j e^(s_j − 3)·j / l. */
static void test_online_softmax_by_hand(void **state) {
    (void)state;
    /* D = 1: q = [1], k_j = s_j, v_j = j; scale 1 */
    const float q[1] = {1}, k[4] = {1, 3, 2, 0}, v[4] = {0, 1, 2, 3};
    av_mask_spec mk = {0, 4, NULL};
    av_flash_step st[2];
    float out;
    assert_int_equal(flash_row_forward(&out, st, q, k, v, &mk, 0, 0, 1, 4, 1, 1.0, 2), 2);
    double e = exp(-2.0), l1 = e + 1.0, l2 = l1 + exp(-1.0) + exp(-3.0);
    assert_true(st[0].m_old == -INFINITY && st[0].m_new == 3.0f && st[0].alpha == 0.0f);
    assert_true(fabs(st[0].l - l1) < 1e-6 && fabs(st[1].l - l2) < 1e-6 && st[1].alpha == 1.0f);
    double want = (e * 0 + 1.0 * 1 + exp(-1.0) * 2 + exp(-3.0) * 3) / l2;
    assert_true(fabs(out - want) < 1e-6);
    /* the max rises in tile 2: scores [1, 0] then [4, 2]: alpha = e^(1 − 4) */
    const float k2[4] = {1, 0, 4, 2};
    flash_row_forward(&out, st, q, k2, v, &mk, 0, 0, 1, 4, 1, 1.0, 2);
    assert_true(fabs(st[1].alpha - exp(-3.0)) < 1e-7 && st[1].m_new == 4.0f);
    double z = exp(-3.0) + exp(-4.0) + 1.0 + exp(-2.0);
    want = (exp(-4.0) * 1 + 1.0 * 2 + exp(-2.0) * 3) / z;
    assert_true(fabs(out - want) < 1e-6);
}

/* The plain-loop row (the trace's example) equals the tiled kernel's row. */
static void test_flash_row_matches_tiled_kernel(void **state) {
    (void)state;
    const kcase *k = &kCases[MANY_BLOCKS];
    av_model m;
    run_case(&m, k, AV_KERNEL_FLASH, AV_ROPE_INTERLEAVED);
    av_mask_spec mk = {k->causal, k->n_real, m.user_mask};
    double scale = 1.0 / sqrt((double)m.D), worst = 0;
    float row[64];
    int rows[] = {0, 1, 63, 64, 200, 255, 256, 511, 512, 1029, 1099};
    for (int h = 0; h < k->H; h++)
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            flash_row_forward(row, NULL, m.Q, m.K, m.V, &mk, h, rows[r], k->H, k->T, m.D, scale, 100);
            worst = fmax(worst, max_abs_diff(row, m.context + (size_t)rows[r] * k->C + (size_t)h * m.D, (size_t)m.D));
        }
    print_message("[ kernels  ] flash_row_forward (tile 100) vs tiled kernel: %.2e\n", worst);
    assert_true(worst <= TOL);
    av_model_free(&m);
}

/* av_expf against exp in double over the range softmax uses (x <= 0) and
 * beyond: relative error within 2 ulp (2^-22); −∞ must be tested by callers. */
static void test_fast_exp_accuracy(void **state) {
    (void)state;
    double worst = 0;
    for (int k = 0; k <= 2000000; k++) {
        float x = -87.0f + 175.0f * (float)k / 2000000.0f;
        double want = exp((double)x), got = av_expf(x);
        worst = fmax(worst, fabs(got - want) / want);
    }
    print_message("[ kernels  ] av_expf on [-87, 88]: worst relative error %.2e (2 ulp = %.2e)\n", worst, 0x1p-22);
    assert_true(worst <= 0x1p-22);
    assert_true(av_expf(0.0f) == 1.0f);
    /* the ends: finite, no overflow to inf past 88.37 (2^128 is not a float),
     * and NaN takes the low end instead of an undefined float-to-int conversion */
    assert_true(isfinite(av_expf(88.5f)) && av_expf(88.5f) > 2e38f);
    assert_true(isfinite(av_expf(INFINITY)));
    assert_true(av_expf(-INFINITY) < 1e-37f && av_expf(-INFINITY) > 0);
    assert_true(av_expf(NAN) == av_expf(-INFINITY));
}

/* Q·Kᵀ overflows float32 while Q·Kᵀ/√d_k fits (P9 of the pitfalls, here
 * with 100 tokens): the BLAS kernel falls back to the reference's double
 * sums and gives its weights, and flash makes such scores again with double
 * sums (it refused the run with "the scores Q·Kᵀ overflowed float32", so
 * `--no-plot -w DIR` failed on the input a run with figures drew). Rows of X
 * are [1e19, 1e19, 1e19, 1e19] (even t) or 0 (odd t), identity weights,
 * d_k = 4, no positions, so V = X: a query at an even t scores
 * 4e38 / 2 = 2e38 on even keys and 0 on odd ones, so its weights are 1/50 on
 * the 50 even keys and its output 50 · 1/50 · 1e19 = 1e19 in every column; a
 * query at an odd t scores 0 everywhere, weights 1/100, output
 * 50 · 1/100 · 1e19 = 5e18 (worked by hand). With X at 2e19 the scaled
 * scores are 16e38 / 2 = 8e38, past float32: every kernel refuses the run in
 * the same words. */
static void test_overflowed_sum_falls_back(void **state) {
    (void)state;
    enum { T = 100, C = 4 };
    for (int kern = AV_KERNEL_REFERENCE; kern <= AV_KERNEL_FLASH; kern++)
        for (int big = 0; big < 2; big++) {
            av_config cfg = {.T = T, .n_real = T, .C = C, .H = 1, .positions = AV_POS_NONE, .scale = 1,
                             .kernel = (av_kernel)kern, .seed = 1};
            av_model m;
            av_err err;
            assert_int_equal(av_model_init(&m, &cfg, &err), AV_OK);
            for (int t = 0; t < T; t++)
                for (int c = 0; c < C; c++) m.X[t * C + c] = t % 2 ? 0.0f : big ? 2e19f : 1e19f;
            for (int i = 0; i < C * C; i++) m.W_Q[i] = m.W_K[i] = m.W_V[i] = m.W_O[i] = i % (C + 1) == 0;
            av_status st = av_model_forward(&m, &err);
            if (big) {
                assert_int_equal(st, AV_EUSAGE);
                assert_string_equal(err.msg, "the scores Q·Kᵀ/√d_k overflowed float32 (a value became infinite or "
                                             "NaN): the values in X.npy / W_*.npy are too large; float32 holds "
                                             "magnitudes up to 3.4e38");
                assert_int_equal(err.overflowed, strlen("the scores Q·Kᵀ/√d_k overflowed float32"));
                cfg.H = 3; /* an ordinary error in the same av_err: not an overflow */
                assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
                assert_int_equal(err.overflowed, 0);
            } else {
                assert_int_equal(st, AV_OK);
                if (kern != AV_KERNEL_FLASH)
                    for (int j = 0; j < T; j++)
                        assert_true(fabs(m.att[(size_t)2 * T + j] - (j % 2 ? 0.0 : 0.02)) < 1e-7);
                for (int t = 0; t < T; t++)
                    for (int c = 0; c < C; c++)
                        assert_true(fabs(m.context[t * C + c] / (t % 2 ? 5e18 : 1e19) - 1.0) < 1e-6);
                assert_true(isfinite(m.var_scaled)); /* measured: not inf from the overflowed sums */
            }
            av_model_free(&m);
        }
}

/* Heads that do not fit d_model: the hint names what fixes d_model. From --d-model (d_model_from NULL) another
 * d_model or other head counts; from --weights (app/cli.c sets d_model_from) only other head counts, since
 * "give --d-model 6 or 9" with the 8-wide identity-d8 weights led to "W_Q.npy has shape (8, 8); expected
 * (6, 6)". The same for RoPE's odd d_k (8 / 8 = 1: only 4 heads keep 8 with an even d_k). */
static void test_config_hint_names_what_fixes_d_model(void **state) {
    (void)state;
    av_config cfg = {.T = 1, .n_real = 1, .C = 8, .H = 3, .positions = AV_POS_SINUSOIDAL, .rope_base = 10000,
                     .scale = 1};
    av_err err = {{0}};
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "--heads 3 does not divide d_model 8 (d_k = d_model / heads must be a whole number); "
                                 "with 3 heads give --d-model 6 or 9, or keep 8 with --heads 2 or 4");
    cfg.d_model_from = "--weights";
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "--heads 3 does not divide d_model 8 (d_k = d_model / heads must be a whole number); "
                                 "--weights fixes d_model, so keep 8 with --heads 2 or 4");
    cfg.H = 8, cfg.positions = AV_POS_ROPE;
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = "
                                 "8 / 8 = 1; --weights fixes d_model, so keep 8 with --heads 4");
    cfg.d_model_from = NULL;
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = "
                                 "8 / 8 = 1; with 8 heads give --d-model 16 (multiples of 2·heads, for an even d_k), "
                                 "or keep 8 with --heads 4");
    cfg.C = 7, cfg.H = 2, cfg.d_model_from = "--weights"; /* odd: no head count gives an even d_k */
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "; --weights fixes d_model at 7, which is odd, and RoPE needs an even d_model: "
                                    "give --positions sinusoidal or none"));
    cfg.d_model_from = NULL; /* `-d 1 -p rope` read "..., or no head count keeps 1 (odd, so d_k = 1 / heads is odd)" */
    cfg.C = 1, cfg.H = 1;
    assert_int_equal(av_config_check(&cfg, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = "
                                 "1 / 1 = 1; with 1 head give --d-model 2 (multiples of 2·heads, for an even d_k); no "
                                 "head count keeps 1: RoPE needs an even d_model");
}

/* all_finite: ±inf and NaN anywhere (first, inside and after its first
 * block of 4096, last) are found; float32's extremes are finite. */
static void test_all_finite(void **state) {
    (void)state;
    enum { N = 9000 };
    static float x[N];
    for (int i = 0; i < N; i++) x[i] = (i % 3 ? 3.4028235e38f : -3.4028235e38f) * (i % 2 ? 1.0f : 1e-38f);
    assert_true(all_finite(x, N));
    const float bad[3] = {INFINITY, -INFINITY, NAN};
    const size_t at[4] = {0, 4095, 4096, N - 1};
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 4; k++) {
            float keep = x[at[k]];
            x[at[k]] = bad[b];
            assert_false(all_finite(x, N));
            assert_true(all_finite(x, at[k])); /* everything before it */
            x[at[k]] = keep;
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blas_and_flash_match_reference),
        cmocka_unit_test(test_fully_masked_rows_are_zero),
        cmocka_unit_test(test_bits_do_not_depend_on_thread_count),
        cmocka_unit_test(test_matmul_blas_matches_reference),
        cmocka_unit_test(test_online_softmax_by_hand),
        cmocka_unit_test(test_flash_row_matches_tiled_kernel),
        cmocka_unit_test(test_fast_exp_accuracy),
        cmocka_unit_test(test_all_finite),
        cmocka_unit_test(test_overflowed_sum_falls_back),
        cmocka_unit_test(test_config_hint_names_what_fixes_d_model),
    };
    return cmocka_run_group_tests_name("reference, BLAS and flash kernels", tests, NULL, NULL);
}
