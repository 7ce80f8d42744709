/* test_pitfalls_softmax.c - P9 (stable softmax) and "no NaN or Inf ever".
 * The harness (runs of the real binary, the double reference, the dump
 * checks) and its tolerances are in pitfalls.h. */
#include "pitfalls.h"

/* P9. Stable softmax: subtract the row max. The harness makes the scores
 * any T x T matrix S exactly: X = I (T = d_model), W_K = I, W_Q = S, so
 * Q = S, K = I and Q·Kᵀ = S; --no-scale keeps it; W_V = W_O = I makes the
 * output equal the weights. */

static void run_scores_harness(fixture *f, const float *S, int T, int no_scale, const unsigned char *M, int causal,
                               run_t *run, dump_t *d) {
    float *I = eye(T);
    job j = {.T = T, .C = T, .H = 1, .no_scale = no_scale, .causal = causal, .X = I, .W_Q = S, .W_K = I, .W_V = I,
             .W_O = I, .attn_mask = M, .trace = 1, .verbose = 1};
    run_and_check(f, &j, run, d, 1);
    if (no_scale) cmp_f32(run->desc, "scores.npy (harness)", d->S, S, (size_t)T * T);
    free(I);
}

static void test_P9_stable_softmax_example(void **state) {
    fixture *f = *state;
    const float S[9] = {1000, 999, 998,
                        -1000, -999, -998,
                        998, 1000, 999};
    run_t run;
    dump_t d;
    run_scores_harness(f, S, 3, 1, NULL, 0, &run, &d);
    const double r0[3] = {0.665241, 0.244728, 0.090031}, r1[3] = {0.090031, 0.244728, 0.665241},
                 r2[3] = {0.090031, 0.665241, 0.244728};
    expect_row(&d, 0, 0, r0, 1e-6, run.desc);
    expect_row(&d, 0, 1, r1, 1e-6, run.desc);
    expect_row(&d, 0, 2, r2, 1e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
}

static void test_P9_large_scores_no_nan(void **state) {
    fixture *f = *state;
    int T = 6;
    const float S[36] = {
        1e4f, -1e4f, 0, 1e4f, 5e3f, -5e3f,
        -1e4f, -1e4f, -1e4f, -1e4f, -1e4f, -1e4f,     /* all equal: uniform */
        1e30f, -1e30f, 1e30f, 0, 1e29f, -1e29f,
        -1e30f, -1e30f, -3e38f, -1e30f, -1e30f, -2e30f,
        3e38f, 3e38f, -3e38f, 0, 1, -1,
        88.8f, 89, 100, 1e3f, 999, -1e3f,             /* around float32's exp overflow (88.72) */
    };
    run_t run;
    dump_t d;
    for (int no_scale = 1; no_scale >= 0; no_scale--) {
        run_scores_harness(f, S, T, no_scale, NULL, 0, &run, &d);
        const double uni[6] = {1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6};
        expect_row(&d, 0, 1, uni, 1e-6, run.desc);
        const double half[6] = {0.5, 0.5, 0, 0, 0, 0};
        expect_row(&d, 0, 4, half, 1e-6, run.desc);
        free_dump(&d);
        tu_free(&run.r);
    }
    /* the same magnitudes with causal and a fully masked row */
    unsigned char M[36] = {0};
    for (int k = 0; k < T; k++) M[2 * T + k] = 1;
    run_scores_harness(f, S, T, 1, M, 1, &run, &d);
    assert_int_equal(check_rows(&d, run.desc), 1);
    free_dump(&d);
    tu_free(&run.r);

    /* scores of 1e30 made by Q·Kᵀ itself (d_model = 1): q, k = ±1e15 */
    const float X[3] = {1e15f, -1e15f, 1e14f}, one[1] = {1};
    job j = {.T = 3, .C = 1, .H = 1, .X = X, .W_Q = one, .W_K = one, .W_V = one, .W_O = one, .trace = 1};
    run_and_check(f, &j, &run, &d, 1);
    free_dump(&d);
    tu_free(&run.r);
}

/* Scaled scores just under FLT_MAX must work: X row 0 = [1e19] x 4, identity
 * weights, d_k = 4, so Q·Kᵀ = 4e38 (not a float32) but Q·Kᵀ/sqrt(d_k) = 2e38
 * (a float32), and scores.npy holds the scaled value.
 * Regression: av_model_forward used to check the UNSCALED Q·Kᵀ (kept only for
 * the trace's variance line) and exit 1 with "the scores Q·Kᵀ overflowed". */
static void test_P9_scaled_scores_near_float_max(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    float *X = zeros((size_t)T * C), *I = eye(C);
    for (int c = 0; c < C; c++) X[c] = 1e19f;
    job j = {.T = T, .C = C, .H = 1, .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double want[2] = {1.0, 0.0};
    expect_row(&d, 0, 0, want, 1e-6, run.desc);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

/* ========================================================================= */

/* No NaN or Inf ever: a sweep over every option that touches the numbers,
 * each run checked against the reference; then magnitudes and bad input. */

static void test_no_nan_inf_sweep(void **state) {
    fixture *f = *state;
    const char *pos[4] = {"none", "sinusoidal", "rope", "rope"};
    const char *style[4] = {NULL, NULL, "interleaved", "half"};
    int C = 8, H = 2, runs = 0;
    for (int p = 0; p < 4; p++)
        for (int causal = 0; causal < 2; causal++)
            for (int pad = 0; pad < 2; pad++)
                for (int um = 0; um < 2; um++)
                    for (int no_scale = 0; no_scale < 2; no_scale++) {
                        int T = 6;
                        rng_seed((uint64_t)(runs + 1000));
                        float *X = rand_mat((size_t)T * C, 1.0);
                        unsigned char M[36];
                        for (int i = 0; i < 36; i++) M[i] = (rnd() > 0.5);
                        for (int k = 0; k < T; k++) M[1 * T + k] = 1; /* query 1 fully masked */
                        job j = {.T = T, .n_real = pad ? 4 : 0, .C = C, .H = H, .positions = pos[p],
                                 .rope_style = style[p], .causal = causal, .no_scale = no_scale, .X = X,
                                 .attn_mask = um ? M : NULL};
                        run_t run;
                        dump_t d;
                        run_and_check(f, &j, &run, &d, 1); /* seeded W, dumped and used by the reference */
                        free_dump(&d);
                        tu_free(&run.r);
                        /* the same with X at 1e3 and 1e-30: finite, row rules hold */
                        const double mags[2] = {1e3, 1e-30};
                        for (int m = 0; m < 2; m++) {
                            float *Xm = malloc(sizeof(float) * (size_t)T * C);
                            for (int i = 0; i < T * C; i++) Xm[i] = (float)(X[i] * mags[m]);
                            j.X = Xm;
                            run_and_check(f, &j, &run, &d, 0);
                            free_dump(&d);
                            tu_free(&run.r);
                            free(Xm);
                        }
                        free(X);
                        runs++;
                    }
    assert_int_equal(runs, 64);
}

/* Values too large for float32 end in a clear error, never a NaN; non-finite
 * input is refused. */
static void test_no_nan_inf_overflow_is_error(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    float *I = eye(C), *X = zeros((size_t)T * C);
    for (int i = 0; i < T * C; i++) X[i] = (i % 2 ? -1e20f : 1e20f); /* Q·Kᵀ ~ 4e40 > FLT_MAX */
    job j = {.T = T, .C = C, .H = 1, .X = X, .W_Q = I, .W_K = I, .trace = 1};
    run_t run;
    run_job(f, &j, &run);
    /* overflow caused by the supplied values is bad input: exit 2 */
    if (run.r.code != 2 || !strstr(run.r.err, "overflow") || prints_nonfinite(run.r.out, 0) || prints_nonfinite(run.r.err, 0))
        fail_msg("[%s] want exit 2 and an overflow message, got exit %d: %s", run.desc, run.r.code, run.r.err);
    if (file_exists(run.dump)) check_dump_dir(run.dump, 0);
    tu_free(&run.r);

    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++) {
        float *Xb = zeros((size_t)T * C);
        Xb[5] = bad[b];
        job jb = {.T = T, .C = C, .H = 1, .X = b == 0 ? Xb : NULL, .W_Q = b == 0 ? NULL : Xb, .trace = 1};
        if (b) {  /* a non-finite weight: W_Q (C, C) with one bad value */
            free(Xb);
            Xb = zeros((size_t)C * C);
            Xb[5] = bad[b];
            jb.W_Q = Xb;
        }
        run_job(f, &jb, &run);
        if (run.r.code != 2 || file_exists(run.dump))
            fail_msg("[%s] a non-finite input value must be refused (exit 2, no dump); got exit %d: %s", run.desc,
                     run.r.code, run.r.err);
        tu_free(&run.r);
        free(Xb);
    }
    free(I); free(X);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P9_stable_softmax_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P9_large_scores_no_nan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P9_scaled_scores_near_float_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_nan_inf_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_nan_inf_overflow_is_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
