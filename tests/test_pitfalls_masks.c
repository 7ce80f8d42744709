/* test_pitfalls_masks.c - P2 (fully masked rows), P3 (mask polarity) and P4 (the causal mask).
 * The harness (runs of the real binary, the double reference, the dump
 * checks) and its tolerances are in pitfalls.h. */
#include "pitfalls.h"

/* P2. A query whose keys are all masked: weights 0, output row 0, no NaN,
 * and the trace says so. The picture ("the figure shows the row as masked",
 * "no NaN in any PNG") cannot be checked here: these runs use --no-plot so
 * they do not depend on the figure module. */

static int count_full_rows(const unsigned char *m, int T) {
    int n = 0;
    for (int i = 0; i < T; i++) {
        int open = 0;
        for (int k = 0; k < T; k++) open += !m[(size_t)i * T + k];
        n += open == 0;
    }
    return n;
}

static void expect_trace_says_fully_masked(const run_t *run, int yes) {
    int says = strstr(run->r.out, "every key masked") != NULL;
    if (says != yes)
        fail_msg("[%s] the trace %s 'every key masked':\n%s", run->desc, yes ? "does not say" : "wrongly says",
                 run->r.out);
}

static void test_P2_fully_masked_row_attn_mask(void **state) {
    fixture *f = *state;
    int T = 4, C = 8, H = 2;
    rng_seed(21);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    unsigned char M[16] = {0, 0, 0, 1,
                           1, 1, 1, 1,   /* query 1: every key masked */
                           0, 0, 0, 0,
                           1, 1, 0, 0};
    for (int verbose = 0; verbose < 2; verbose++) {
        job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO, .attn_mask = M,
                 .trace = 1, .verbose = verbose};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 1);
        for (int h = 0; h < H; h++)
            for (int k = 0; k < T; k++) assert_true(A_row(&d, h, 1)[k] == 0.0f);
        expect_trace_says_fully_masked(&run, 1);
        /* 2 heads × 4 queries = 8 rows, query 1's two rows masked: 6 sum to 1 */
        assert_non_null(strstr(run.r.out, "− 1| = "));
        assert_non_null(strstr(run.r.out, " over 6 rows\n"));
        free_dump(&d);
        tu_free(&run.r);
    }
    /* every key of every query masked: no row sums to 1, and the trace says
     * so instead of a check "over 0 rows" */
    unsigned char all[16];
    memset(all, 1, sizeof all);
    job ja = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO, .attn_mask = all, .trace = 1};
    run_t runa;
    dump_t da;
    run_and_check(f, &ja, &runa, &da, 1);
    assert_int_equal(check_rows(&da, runa.desc), 4);
    assert_non_null(strstr(runa.r.out, "no row sums to 1: every query has every key masked, so all 8 rows are 0\n"));
    assert_null(strstr(runa.r.out, "over 0 rows"));
    assert_null(strstr(runa.r.out, "✓ every unmasked row"));
    free_dump(&da);
    tu_free(&runa.r);
    /* the same input without the fully masked row: the trace must not say it */
    M[4] = 0;
    job j = {.T = T, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO, .attn_mask = M, .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 0);
    expect_trace_says_fully_masked(&run, 0);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_fully_masked_row_with_causal(void **state) {
    fixture *f = *state;
    int T = 5, C = 8, H = 2;
    rng_seed(22);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    /* With causal, query 0 sees only key 0 and query 3 sees keys 0..3: this
     * mask hides exactly those, so rows 0 and 3 are fully masked; row 2 keeps
     * only its own key. */
    unsigned char M[25] = {1, 0, 0, 0, 0,
                           0, 0, 0, 0, 0,
                           1, 1, 0, 0, 0,
                           1, 1, 1, 1, 0,
                           0, 0, 0, 0, 0};
    const char *pos[] = {"none", "sinusoidal", "rope"};
    for (int p = 0; p < 3; p++) {
        job j = {.T = T, .C = C, .H = H, .positions = pos[p], .causal = 1, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV,
                 .W_O = WO, .attn_mask = M, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 2);
        for (int h = 0; h < H; h++) {
            const double one_hot[5] = {0, 0, 1, 0, 0};
            expect_row(&d, h, 2, one_hot, 0, run.desc);
        }
        expect_trace_says_fully_masked(&run, 1);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_fully_masked_row_with_padding(void **state) {
    fixture *f = *state;
    int T = 5, n_real = 3, C = 8, H = 2;
    rng_seed(23);
    float *X = rand_mat((size_t)T * C, 1.0), *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
    float *WV = rand_mat((size_t)C * C, 0.5), *WO = rand_mat((size_t)C * C, 0.5);
    run_t run;
    dump_t d;

    /* (a) --pad-to alone: a <pad> query still sees the real keys (key padding
     * masks keys, not queries), so no row is fully masked; pad keys get 0. */
    for (int causal = 0; causal < 2; causal++) {
        job j = {.T = T, .n_real = n_real, .C = C, .H = H, .causal = causal, .X = X, .W_Q = WQ, .W_K = WK,
                 .W_V = WV, .W_O = WO, .trace = 1};
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), 0);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++)
                for (int k = n_real; k < T; k++) assert_true(A_row(&d, h, i)[k] == 0.0f);
        expect_trace_says_fully_masked(&run, 0);
        free_dump(&d);
        tu_free(&run.r);
    }

    /* (b) padding + --attn-mask hiding the real keys of a <pad> query (4) and
     * of a real query (1): both rows fully masked. */
    unsigned char M[25] = {0};
    for (int k = 0; k < n_real; k++) M[1 * T + k] = M[4 * T + k] = 1;
    job j = {.T = T, .n_real = n_real, .C = C, .H = H, .X = X, .W_Q = WQ, .W_K = WK, .W_V = WV, .W_O = WO,
             .attn_mask = M, .trace = 1};
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 2);
    expect_trace_says_fully_masked(&run, 1);
    free_dump(&d);
    tu_free(&run.r);

    /* (c) padding + causal + --attn-mask: query 0 loses key 0, <pad> query 3
     * loses keys 0..2 (key 3 is <pad>, key 4 is in its future). */
    unsigned char M2[25] = {0};
    M2[0] = 1;
    for (int k = 0; k < n_real; k++) M2[3 * T + k] = 1;
    j.causal = 1;
    j.attn_mask = M2;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 2);
    for (int h = 0; h < H; h++)
        for (int k = 0; k < T; k++) assert_true(A_row(&d, h, 0)[k] == 0.0f && A_row(&d, h, 3)[k] == 0.0f);
    expect_trace_says_fully_masked(&run, 1);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(WQ); free(WK); free(WV); free(WO);
}

static void test_P2_every_row_masked(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 2;
    rng_seed(24);
    float *X = rand_mat((size_t)T * C, 1.0);
    unsigned char M[9];
    memset(M, 1, sizeof M);
    for (int causal = 0; causal < 2; causal++) {
        job j = {.T = T, .C = C, .H = H, .positions = causal ? "rope" : "sinusoidal", .causal = causal, .X = X,
                 .attn_mask = M, .trace = 1, .verbose = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        assert_int_equal(check_rows(&d, run.desc), T);
        assert_int_equal(count_full_rows(d.mask, T), T);
        for (size_t i = 0; i < (size_t)H * T * T; i++) assert_true(d.A[i] == 0.0f);
        for (size_t i = 0; i < (size_t)T * C; i++) assert_true(d.out[i] == 0.0f && d.ctx[i] == 0.0f);
        expect_trace_says_fully_masked(&run, 1);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X);
}

/* The same fully masked row with figures on: every figure is still written.
 * Whether the row is DRAWN as masked (not as weight 0) and whether any pixel
 * came from a NaN cannot be read back through the CLI; that belongs to the
 * figure module's own tests (it is given the mask with each heat-map). */
static int is_png(const char *path) {
    unsigned char sig[8] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(sig, 1, 8, fp);
    fclose(fp);
    return n == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static void test_P2_fully_masked_row_figure_written(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 2;
    rng_seed(25);
    float *X = rand_mat((size_t)T * C, 1.0);
    unsigned char M[9] = {0, 0, 0, 1, 1, 1, 0, 1, 0}; /* query 1 fully masked */
    job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .attn_mask = M, .trace = 1, .plot_to_outdir = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    assert_int_equal(check_rows(&d, run.desc), 1);
    expect_trace_says_fully_masked(&run, 1);
    const char *names[3] = {"head0.png", "head1.png", "heads.png"};
    for (int i = 0; i < 3; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", run.outdir, names[i]);
        if (!is_png(path)) fail_msg("[%s] %s was not written as a PNG", run.desc, path);
    }
    free_dump(&d);
    tu_free(&run.r);
    free(X);
}

/* ========================================================================= */

/* P3 / P4. Mask polarity and the causal mask's orientation. Scores are made
 * all 0 by W_Q = 0 (so Q = 0), so each visible key gets the same weight. */

static void test_P3_mask_polarity_causal_example(void **state) {
    fixture *f = *state;
    int T = 3, C = 4, H = 1;
    rng_seed(31);
    float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
    job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .W_Q = Z};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const double rows[3][3] = {{1, 0, 0}, {0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
    for (int i = 0; i < T; i++) expect_row(&d, 0, i, rows[i], 1e-6, run.desc);
    const unsigned char want_mask[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(d.mask, want_mask, 9);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(Z);
}

/* --attn-mask follows PyTorch's bool attn_mask: True = masked (not "keep").
 * A non-symmetric mask also catches a transposed read (row = query). */
static void test_P3_attn_mask_polarity_true_is_masked(void **state) {
    fixture *f = *state;
    int T = 4, C = 8;
    rng_seed(32);
    float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
    const unsigned char M[16] = {0, 1, 1, 0,
                                 1, 0, 0, 0,
                                 0, 0, 0, 1,
                                 1, 1, 0, 1};
    for (int H = 1; H <= 2; H++)
        for (int causal = 0; causal < 2; causal++) {
            job j = {.T = T, .C = C, .H = H, .causal = causal, .X = X, .W_Q = Z, .attn_mask = M};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int i = 0; i < T; i++) {
                double want[4];
                int open = 0;
                for (int k = 0; k < T; k++) open += !(M[i * T + k] || (causal && k > i));
                for (int k = 0; k < T; k++) want[k] = (M[i * T + k] || (causal && k > i)) ? 0.0 : 1.0 / open;
                for (int h = 0; h < H; h++) expect_row(&d, h, i, want, 1e-6, run.desc);
                for (int k = 0; k < T; k++)
                    if (d.mask[i * T + k] != (M[i * T + k] || (causal && k > i)))
                        fail_msg("[%s] mask.npy[%d][%d] = %d", run.desc, i, k, d.mask[i * T + k]);
            }
            free_dump(&d);
            tu_free(&run.r);
        }
    free(X); free(Z);
}

static void test_P4_causal_uniform_T1_to_16(void **state) {
    fixture *f = *state;
    int C = 8, H = 2;
    for (int T = 1; T <= 16; T++) {
        rng_seed((uint64_t)(40 + T));
        float *X = rand_mat((size_t)T * C, 1.0), *Z = zeros((size_t)C * C);
        float *WK = rand_mat((size_t)C * C, 0.5), *WV = rand_mat((size_t)C * C, 0.5);
        job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X, .W_Q = Z, .W_K = WK, .W_V = WV};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        int D = C / H;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) {
                const float *a = A_row(&d, h, i);
                for (int k = 0; k < T; k++) {
                    if (k <= i && !(fabs(a[k] - 1.0 / (i + 1)) <= 1e-6))
                        fail_msg("[%s] weights[%d][%d][%d] = %.9f, want 1/%d (key j <= i is visible)", run.desc, h,
                                 i, k, (double)a[k], i + 1);
                    if (k > i && a[k] != 0.0f)
                        fail_msg("[%s] weights[%d][%d][%d] = %.9f, want exactly 0 (key after the query)", run.desc,
                                 h, i, k, (double)a[k]);
                    if (d.mask[i * T + k] != (k > i))
                        fail_msg("[%s] mask.npy[%d][%d] = %d, want %d", run.desc, i, k, d.mask[i * T + k], k > i);
                }
                assert_true(a[i] > 0.0f); /* a token always sees itself */
                /* the context row is the mean of V rows 0..i */
                for (int e = 0; e < D; e++) {
                    double mean = 0;
                    for (int k = 0; k <= i; k++) mean += d.V[((size_t)h * T + k) * D + e];
                    mean /= (i + 1);
                    double got = d.ctx[(size_t)i * C + h * D + e];
                    if (!(fabs(got - mean) <= 1e-5 + 1e-5 * fabs(mean)))
                        fail_msg("[%s] context[%d][%d] = %.9g, want mean of V rows 0..%d = %.9g", run.desc, i,
                                 h * D + e, got, i, mean);
                }
            }
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(Z); free(WK); free(WV);
    }
}

static void test_P4_causal_example_4_tokens(void **state) {
    fixture *f = *state;
    int T = 4, C = 4;
    float *X = zeros((size_t)T * C); /* X = 0 rows: every score is 0 */
    for (int H = 1; H <= 2; H++) {
        job j = {.T = T, .C = C, .H = H, .causal = 1, .X = X};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        const double rows[4][4] = {{1, 0, 0, 0}, {.5, .5, 0, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, {.25, .25, .25, .25}};
        for (int h = 0; h < H; h++)
            for (int i = 0; i < T; i++) expect_row(&d, h, i, rows[i], 1e-6, run.desc);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(X);
}

/* ========================================================================= */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_attn_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_with_causal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_with_padding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_every_row_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P2_fully_masked_row_figure_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P3_mask_polarity_causal_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P3_attn_mask_polarity_true_is_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P4_causal_uniform_T1_to_16, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P4_causal_example_4_tokens, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
