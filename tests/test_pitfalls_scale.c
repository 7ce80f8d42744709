/* test_pitfalls_scale.c - P1: the scale is 1/sqrt(d_k).
 * The harness (runs of the real binary, the double reference, the dump
 * checks) and its tolerances are in pitfalls.h. */
#include "pitfalls.h"

/* P1. The scale is 1/sqrt(d_k), not 1/sqrt(d_model), not missing. */

static void test_P1_scale_is_sqrt_dk_example(void **state) {
    fixture *f = *state;
    /* d_model 8, heads 2, d_k 4. Head 0 (columns 0..3): q = k0 = [1,1,1,1], k1 = 0.
     * Head 1 (columns 4..7) gets other values so the heads differ. */
    const float X[2 * 8] = {1, 1, 1, 1, 0.5f, -1, 2, 0,
                            0, 0, 0, 0, 1, 2, 3, 4};
    float *I = eye(8);
    job j = {.T = 2, .C = 8, .H = 2, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double want[2] = {0.880797, 0.119203}; /* not [0.804430, 0.195570] (sqrt 8) */
    assert_true(d.S[0] == 2.0f && d.S[1] == 0.0f);  /* 4 / sqrt(4) */
    expect_row(&d, 0, 0, want, 2e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);

    j.no_scale = 1; /* --no-scale keeps Q·Kᵀ: [0.982014, 0.017986] */
    run_and_check(f, &j, &run, &d, 1);
    const double want_raw[2] = {0.982014, 0.017986};
    assert_true(d.S[0] == 4.0f && d.S[1] == 0.0f);
    expect_row(&d, 0, 0, want_raw, 2e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
    free(I);
}

static void test_P1_scale_is_sqrt_dk_grid(void **state) {
    fixture *f = *state;
    const int Cs[] = {4, 8, 12, 16, 24, 32, 64};
    int runs = 0;
    for (size_t ci = 0; ci < sizeof Cs / sizeof Cs[0]; ci++) {
        int C = Cs[ci], T = 5;
        for (int H = 1; H <= C && H <= 64; H++) {
            if (C % H) continue;
            for (int no_scale = 0; no_scale < 2; no_scale++) {
                rng_seed((uint64_t)(C * 100 + H));
                float *X = rand_mat((size_t)T * C, 1.0);
                float *WQ = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WK = rand_mat((size_t)C * C, 1.0 / sqrt(C));
                float *WV = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WO = rand_mat((size_t)C * C, 1.0 / sqrt(C));
                job j = {.T = T, .C = C, .H = H, .no_scale = no_scale, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV,
                         .W_O = WO};
                run_t run;
                dump_t d;
                run_and_check(f, &j, &run, &d, 1);
                /* scores.npy against the dumped Q, K: Q·Kᵀ/sqrt(d_k) (or Q·Kᵀ), in double */
                int D = C / H;
                double scale = no_scale ? 1.0 : 1.0 / sqrt((double)D);
                double *S = malloc(sizeof(double) * (size_t)H * T * T), *A = malloc(sizeof(double) * (size_t)H * T * T);
                unsigned char none[64] = {0};
                for (int h = 0; h < H; h++)
                    for (int q = 0; q < T; q++) {
                        for (int k = 0; k < T; k++) {
                            double dot = 0;
                            for (int e = 0; e < D; e++)
                                dot += (double)d.Q[((size_t)h * T + q) * D + e] * d.K[((size_t)h * T + k) * D + e];
                            S[((size_t)h * T + q) * T + k] = dot * scale;
                        }
                        softmax_formula(A + ((size_t)h * T + q) * T, S + ((size_t)h * T + q) * T, none, T);
                    }
                cmp_arr(run.desc, "scores.npy vs dumped Q·Kᵀ/sqrt(d_k)", d.S, S, 3, (size_t)H, (size_t)T, (size_t)T,
                        1e-5, 1e-5);
                cmp_arr(run.desc, "weights.npy vs softmax(scores)", d.A, A, 3, (size_t)H, (size_t)T, (size_t)T, 2e-6, 0);
                free(S); free(A);
                free_dump(&d);
                tu_free(&run.r);
                free(X); free(WQ); free(WK); free(WV); free(WO);
                runs++;
            }
        }
    }
    assert_int_equal(runs, 2 * (3 + 4 + 6 + 5 + 8 + 6 + 7));
}

/* ========================================================================= */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P1_scale_is_sqrt_dk_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P1_scale_is_sqrt_dk_grid, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
