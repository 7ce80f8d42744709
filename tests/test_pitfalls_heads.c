/* test_pitfalls_heads.c - P5 (split and merge of heads) and P10 (per-head weights, never averaged).
 * The harness (runs of the real binary, the double reference, the dump
 * checks) and its tolerances are in pitfalls.h. */
#include "pitfalls.h"

/* P5. Split heads = reshape (T, H, D) then transpose to (H, T, D); merge is
 * the inverse. */

static void test_P5_split_heads_example(void **state) {
    fixture *f = *state;
    const float X[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float *I = eye(4);
    job j = {.T = 2, .C = 4, .H = 2, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const float want[8] = {1, 2, 5, 6, /* head 0 */ 3, 4, 7, 8 /* head 1 */};
    cmp_f32(run.desc, "Q.npy", d.Q, want, 8);
    cmp_f32(run.desc, "K.npy", d.K, want, 8);
    cmp_f32(run.desc, "V.npy", d.V, want, 8);
    free_dump(&d);
    tu_free(&run.r);
    free(I);
}

/* With a mask that lets each token see only itself and identity weights, the
 * output must be X exactly: any token/head mix-up moves a value. */
static void test_P5_diagonal_mask_output_equals_X(void **state) {
    fixture *f = *state;
    const struct { int C, H, T; } cases[] = {{4, 2, 2}, {12, 3, 5}, {12, 4, 5}, {12, 2, 5}, {12, 6, 7}, {16, 4, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int C = cases[c].C, H = cases[c].H, T = cases[c].T;
        float *X;
        if (c == 0) {
            X = zeros(8);
            for (int i = 0; i < 8; i++) X[i] = (float)(i + 1); /* the listed example */
        } else {
            rng_seed((uint64_t)(50 + c));
            X = rand_mat((size_t)T * C, 1.0);
        }
        float *I = eye(C);
        unsigned char *M = malloc((size_t)T * T);
        for (int i = 0; i < T; i++)
            for (int k = 0; k < T; k++) M[i * T + k] = i != k;
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I, .attn_mask = M};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        cmp_f32(run.desc, "context.npy (want X)", d.ctx, X, (size_t)T * C);
        cmp_f32(run.desc, "output.npy (want X)", d.out, X, (size_t)T * C);
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I); free(M);
    }
}

static void test_P5_split_merge_bigger(void **state) {
    fixture *f = *state;
    int C = 12, T = 5;
    for (int H = 3; H <= 4; H++) {
        int D = C / H;
        rng_seed((uint64_t)(55 + H));
        float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
        /* identity weights: Q[h] must be X[:, h·D:(h+1)·D] exactly */
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++)
                for (int e = 0; e < D; e++) {
                    float want = X[(size_t)t * C + h * D + e];
                    if (d.Q[((size_t)h * T + t) * D + e] != want || d.K[((size_t)h * T + t) * D + e] != want ||
                        d.V[((size_t)h * T + t) * D + e] != want)
                        fail_msg("[%s] Q/K/V.npy[%d][%d][%d] != X[%d][%d] = %g", run.desc, h, t, e, t, h * D + e,
                                 (double)want);
                }
        /* context row t = concat over heads of sum_k A[h][t][k]·V[h][k] */
        double *want_ctx = calloc((size_t)T * C, sizeof(double));
        for (int t = 0; t < T; t++)
            for (int h = 0; h < H; h++)
                for (int e = 0; e < D; e++)
                    for (int k = 0; k < T; k++)
                        want_ctx[(size_t)t * C + h * D + e] +=
                            (double)A_row(&d, h, t)[k] * d.V[((size_t)h * T + k) * D + e];
        cmp_arr(run.desc, "context.npy vs concat_h(A_h·V_h)", d.ctx, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-6, 1e-6);
        cmp_arr(run.desc, "output.npy vs context·I", d.out, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-6, 1e-6);
        free_dump(&d);
        tu_free(&run.r);

        /* non-symmetric random weights: row-vector convention Q = X·W_Q
         * (not W_Qᵀ), output = context·W_O; checked against the reference */
        float *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
        float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
        job j2 = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO};
        run_and_check(f, &j2, &run, &d, 1);
        for (int t = 0; t < T; t++)
            for (int o = 0; o < C; o++) {
                double acc = 0;
                for (int c = 0; c < C; c++) acc += (double)d.ctx[(size_t)t * C + c] * WO[(size_t)c * C + o];
                want_ctx[(size_t)t * C + o] = acc;
            }
        cmp_arr(run.desc, "output.npy vs context·W_O", d.out, want_ctx, 2, (size_t)T, (size_t)C, 0, 1e-5, 1e-5);
        free_dump(&d);
        tu_free(&run.r);
        free(want_ctx);
        free(X); free(I); free(WQ); free(WK); free(WV); free(WO);
    }
}

/* ========================================================================= */

/* P10. Per-head weights are kept per head, never averaged.
 * The mean-over-heads figure (--figures mean) is pinned by
 * tests/test_figures.c test_P10_mean_figure_is_the_mean: titled as the mean,
 * [0.5, 0.5] for query 0 of this input. */

static void test_P10_per_head_weights_not_averaged(void **state) {
    fixture *f = *state;
    const int Hs[] = {2, 4};
    for (size_t hi = 0; hi < 2; hi++)
        for (int no_scale = 0; no_scale < 2; no_scale++) {
            int H = Hs[hi], T = H, D = T, C = H * D;
            /* In every head, token t's slice of X is e_t, so K_h = I (W_K = I).
             * W_Q's row 0 is 50·e_h in head h's columns, so query 0 in head h
             * is 50·e_h: it attends key h (one-hot within 1e-6), and the heads
             * disagree completely. Other queries are 0 (uniform rows). */
            float *X = zeros((size_t)T * C), *WQ = zeros((size_t)C * C), *I = eye(C);
            rng_seed(110);
            float *WV = rand_mat((size_t)C * C, 1.0);
            for (int t = 0; t < T; t++)
                for (int h = 0; h < H; h++) X[(size_t)t * C + h * D + t] = 1;
            for (int h = 0; h < H; h++) WQ[h * D + h] = 50;
            job j = {.T = T, .C = C, .H = H, .no_scale = no_scale, .X = X, .W_Q = WQ, .W_K = I, .W_V = WV, .W_O = I};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++) {
                double want[4] = {0};
                want[h] = 1;
                expect_row(&d, h, 0, want, 1e-6, run.desc);
                /* and head h's output slice for query 0 is V_h's row h */
                for (int e = 0; e < D; e++) {
                    double v = d.V[((size_t)h * T + h) * D + e], got = d.ctx[h * D + e];
                    if (fabs(got - v) > 1e-5 * (1 + fabs(v)))
                        fail_msg("[%s] context[0][%d] = %.9g, want V[%d][%d][%d] = %.9g", run.desc, h * D + e, got, h,
                                 h, e, v);
                }
            }
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(WQ); free(I); free(WV);
        }
}

/* ========================================================================= */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P5_split_heads_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P5_diagonal_mask_output_equals_X, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P5_split_merge_bigger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P10_per_head_weights_not_averaged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
