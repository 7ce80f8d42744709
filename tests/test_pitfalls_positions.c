/* test_pitfalls_positions.c - P6 (sinusoidal layout), P7 (RoPE pairing, norm, relative property, base) and P8 (odd d_k with RoPE).
 * The harness (runs of the real binary, the double reference, the dump
 * checks) and its tolerances are in pitfalls.h. */
#include "pitfalls.h"

/* P6. Sinusoidal encoding interleaves sin and cos (paper §3.5), not [sin | cos]. */

static void test_P6_sinusoidal_example_d8(void **state) {
    fixture *f = *state;
    int T = 2, C = 8;
    float *X = zeros((size_t)T * C), *I = eye(C);
    job j = {.T = T, .C = C, .H = 1, .positions = "sinusoidal", .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I,
             .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    const float row0[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    cmp_f32(run.desc, "PE.npy row 0", d.PE, row0, 8);
    const double row1[8] = {0.841471, 0.540302, 0.099833, 0.995004, 0.010000, 0.999950, 0.001000, 1.000000};
    cmp_arr(run.desc, "PE.npy row 1 (paper values)", d.PE + 8, row1, 1, 8, 0, 0, 1e-6, 0);
    /* X = 0 and W_Q = I, so Q = X + PE: the encoding really is added */
    cmp_arr(run.desc, "Q.npy row 1 = PE row 1", d.Q + 8, row1, 1, 8, 0, 0, 1e-6, 0);
    if (!strstr(run.r.out, "interleaved"))
        fail_msg("the trace does not name the sinusoidal layout ('interleaved'):\n%s", run.r.out);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

static void test_P6_sinusoidal_grid(void **state) {
    fixture *f = *state;
    const int Cs[] = {8, 16, 512, 5}; /* 5: odd d_model, last column is a sin column */
    int T = 50;
    for (size_t ci = 0; ci < sizeof Cs / sizeof Cs[0]; ci++) {
        int C = Cs[ci];
        float *X = zeros((size_t)T * C);
        job j = {.T = T, .C = C, .H = 1, .positions = "sinusoidal", .X = X};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, C <= 16);
        double *want = malloc(sizeof(double) * (size_t)T * C);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) want[(size_t)t * C + c] = pe_formula(t, c, C);
        cmp_arr(run.desc, "PE.npy vs sin/cos(pos/10000^(2i/d_model)) interleaved", d.PE, want, 2, (size_t)T,
                (size_t)C, 0, 1e-6, 0);
        free(want);
        free_dump(&d);
        tu_free(&run.r);
        free(X);
    }
}

/* PE is added to X (not replacing it), before the projections, and the
 * trace names the layout. */
static void test_P6_pe_added_and_trace_names_layout(void **state) {
    fixture *f = *state;
    int T = 7, C = 16, H = 2;
    rng_seed(61);
    float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
    job j = {.T = T, .C = C, .H = H, .positions = "sinusoidal", .X = X, .W_Q = I, .W_K = I, .W_V = I, .W_O = I,
             .trace = 1};
    run_t run;
    dump_t d;
    run_and_check(f, &j, &run, &d, 1);
    if (!strstr(run.r.out, "interleaved"))
        fail_msg("the trace does not name the sinusoidal layout ('interleaved'):\n%s", run.r.out);
    free_dump(&d);
    tu_free(&run.r);
    free(X); free(I);
}

/* ========================================================================= */

/* P7. RoPE pairing: interleaved (2i, 2i+1) vs rotate-half (i, i+D/2). */

static double row_norm_f(const float *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

static void test_P7_rope_example_interleaved_and_half(void **state) {
    fixture *f = *state;
    int T = 2, C = 4;
    const float X[8] = {1, 2, 3, 4, 1, 2, 3, 4};
    float *I = eye(C);
    const char *styles[2] = {"interleaved", "half"};
    const double want[2][4] = {{-1.142640, 1.922076, 2.959851, 4.029800}, {-1.984111, 1.959901, 2.462378, 4.019800}};
    const char *trace_name[2] = {"interleaved", "rotate-half"};
    for (int s = 0; s < 2; s++) {
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = I, .W_K = I,
                 .W_V = I, .W_O = I, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        cmp_f32(run.desc, "Q.npy position 0 (identity)", d.Q, X, 4);
        cmp_f32(run.desc, "K.npy position 0 (identity)", d.K, X, 4);
        cmp_arr(run.desc, "Q.npy position 1", d.Q + 4, want[s], 1, 4, 0, 0, 2e-6, 0);
        cmp_arr(run.desc, "K.npy position 1", d.K + 4, want[s], 1, 4, 0, 0, 2e-6, 0);
        cmp_f32(run.desc, "V.npy (RoPE leaves V alone)", d.V, X, 8);
        for (int t = 0; t < T; t++)
            if (fabs(row_norm_f(d.Q + t * 4, 4) - 5.477226) > 2e-6)
                fail_msg("[%s] |Q[%d]| = %.9f, want sqrt(30) = 5.477226", run.desc, t, row_norm_f(d.Q + t * 4, 4));
        if (!strstr(run.r.out, trace_name[s]))
            fail_msg("[%s] the trace does not name the RoPE pairing '%s':\n%s", run.desc, trace_name[s], run.r.out);
        free_dump(&d);
        tu_free(&run.r);
    }
    free(I);
}

/* Over sizes, heads and both styles, T = 32: Q and K equal the RoPE formula
 * applied per head after the split; every row keeps its norm; position 0 is
 * the identity. */
static void test_P7_rope_formula_norm_position0(void **state) {
    fixture *f = *state;
    const struct { int C, H; } cases[] = {{4, 1}, {8, 2}, {16, 2}, {24, 3}, {32, 4}, {12, 2}};
    const char *styles[2] = {"interleaved", "half"};
    int T = 32;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H, D = C / H;
            rng_seed((uint64_t)(70 + c));
            float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
            /* identity weights: the unrotated head rows are X's columns, exactly */
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = I,
                     .W_K = I, .W_V = I, .W_O = I};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++)
                for (int t = 0; t < T; t++) {
                    const float *x = X + (size_t)t * C + h * D;
                    const float *q = d.Q + ((size_t)h * T + t) * D, *k = d.K + ((size_t)h * T + t) * D;
                    double n0 = row_norm_f(x, D);
                    if (fabs(row_norm_f(q, D) - n0) > 1e-5 * (1 + n0) || fabs(row_norm_f(k, D) - n0) > 1e-5 * (1 + n0))
                        fail_msg("[%s] head %d position %d: |Q| = %.9f, |K| = %.9f, want the unrotated norm %.9f",
                                 run.desc, h, t, row_norm_f(q, D), row_norm_f(k, D), n0);
                    if (t == 0) {
                        cmp_f32(run.desc, "Q.npy at position 0 (identity)", q, x, (size_t)D);
                        cmp_f32(run.desc, "K.npy at position 0 (identity)", k, x, (size_t)D);
                    }
                }
            free_dump(&d);
            tu_free(&run.r);
            /* random weights: the rotation comes after the projection */
            float *WQ = rand_mat((size_t)C * C, 0.5), *WK = rand_mat((size_t)C * C, 0.5);
            j.W_Q = WQ;
            j.W_K = WK;
            run_and_check(f, &j, &run, &d, 1);
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(I); free(WQ); free(WK);
        }
}

/* The score q_m·k_n depends only on m - n. */
static void test_P7_rope_relative_property(void **state) {
    fixture *f = *state;
    /* (a) the listed example: q = [1,2,3,4], k = [.5,-1,2,0], interleaved.
     * Every X row is q; W_Q = I; W_K's row 0 is k and the rest 0, so
     * x·W_K = 1·k. --no-scale makes scores[m][n] = <R(m)q, R(n)k>. */
    {
        int T = 8, C = 4;
        float *X = zeros((size_t)T * C), *I = eye(C), *WK = zeros((size_t)C * C);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) X[t * C + c] = (float)(c + 1);
        const float k[4] = {0.5f, -1, 2, 0};
        memcpy(WK, k, sizeof k);
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .no_scale = 1, .X = X, .W_Q = I, .W_K = WK};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1);
        const int mn[3][2] = {{3, 1}, {7, 5}, {2, 0}};
        for (int p = 0; p < 3; p++) {
            double got = d.S[mn[p][0] * T + mn[p][1]];
            if (fabs(got - 4.644436) > 5e-6)
                fail_msg("[%s] <R(%d)q, R(%d)k> = scores[0][%d][%d] = %.9f, want 4.644436", run.desc, mn[p][0],
                         mn[p][1], mn[p][0], mn[p][1], got);
        }
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I); free(WK);
    }
    /* (b) many positions, both styles, several head sizes: every X row is the
     * same vector v, so without positions all scores in a head would be equal;
     * with RoPE, scores[h][m][n] must equal scores[h][m+k][n+k]. */
    const struct { int C, H; } cases[] = {{4, 1}, {8, 1}, {16, 2}, {32, 4}};
    const char *styles[2] = {"interleaved", "half"};
    int T = 32;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H;
            rng_seed((uint64_t)(80 + c));
            float *X = malloc(sizeof(float) * (size_t)T * C);
            for (int e = 0; e < C; e++) {
                float v = (float)rnd();
                for (int t = 0; t < T; t++) X[(size_t)t * C + e] = v;
            }
            float *WQ = rand_mat((size_t)C * C, 1.0 / sqrt(C)), *WK = rand_mat((size_t)C * C, 1.0 / sqrt(C));
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = X, .W_Q = WQ,
                     .W_K = WK};
            run_t run;
            dump_t d;
            run_and_check(f, &j, &run, &d, 1);
            for (int h = 0; h < H; h++) {
                const float *S = d.S + (size_t)h * T * T;
                double spread = 0, lo = INFINITY, hi = -INFINITY;
                for (int m = 0; m < T; m++)
                    for (int n = 0; n < T; n++) {
                        /* the representative of offset m - n: on row 0 or column 0 */
                        int m0 = m >= n ? m - n : 0, n0 = m >= n ? 0 : n - m;
                        double ref = S[m0 * T + n0], got = S[m * T + n];
                        if (fabs(got - ref) > 1e-5 + 1e-5 * fabs(ref))
                            fail_msg("[%s] head %d: scores[%d][%d] = %.9g but scores[%d][%d] = %.9g (same m-n = %d)",
                                     run.desc, h, m, n, got, m0, n0, ref, m - n);
                        if (got < lo) lo = got;
                        if (got > hi) hi = got;
                    }
                spread = hi - lo;
                if (!(spread > 1e-3)) /* RoPE must actually make the score depend on m - n */
                    fail_msg("[%s] head %d: every score is %.6g; RoPE did not act", run.desc, h, lo);
            }
            free_dump(&d);
            tu_free(&run.r);
            free(X); free(WQ); free(WK);
        }
}

static void test_P7_rope_base(void **state) {
    fixture *f = *state;
    int T = 16, C = 8;
    const char *styles[2] = {"interleaved", "half"};
    for (int s = 0; s < 2; s++) {
        rng_seed(90);
        float *X = rand_mat((size_t)T * C, 1.0), *I = eye(C);
        job j = {.T = T, .C = C, .H = 1, .positions = "rope", .rope_style = styles[s], .rope_base = 500, .X = X,
                 .W_Q = I, .W_K = I, .trace = 1};
        run_t run;
        dump_t d;
        run_and_check(f, &j, &run, &d, 1); /* reference at base 500 */
        /* the test can tell the bases apart: base 10000 differs somewhere */
        double worst = 0;
        for (int t = 0; t < T; t++) {
            double x[8];
            for (int e = 0; e < C; e++) x[e] = X[t * C + e];
            rope_formula(x, C, t, s, 10000.0);
            for (int e = 0; e < C; e++) worst = fmax(worst, fabs(x[e] - d.Q[t * C + e]));
        }
        if (!(worst > 1e-2)) fail_msg("[%s] Q.npy matches base 10000 (worst diff %g): --rope-base ignored", run.desc, worst);
        if (!strstr(run.r.out, "500")) fail_msg("[%s] the trace does not show base 500:\n%s", run.desc, run.r.out);
        free_dump(&d);
        tu_free(&run.r);
        free(X); free(I);
    }
}

/* ========================================================================= */

/* P8. Odd d_k with RoPE is a usage error naming d_k; nothing is written. */

/* 1 if the decimal number v appears in s as a whole number. */
static int has_number(const char *s, int v) {
    char num[16];
    snprintf(num, sizeof num, "%d", v);
    size_t l = strlen(num);
    for (const char *p = strstr(s, num); p; p = strstr(p + 1, num)) {
        int before = p > s && p[-1] >= '0' && p[-1] <= '9';
        int after = p[l] >= '0' && p[l] <= '9';
        if (!before && !after) return 1;
    }
    return 0;
}

static void test_P8_odd_dk_rope_is_usage_error(void **state) {
    fixture *f = *state;
    const struct { int C, H, D; } cases[] = {{10, 2, 5}, {6, 2, 3}, {9, 3, 3}, {5, 1, 5}, {14, 2, 7}};
    const char *styles[2] = {"interleaved", "half"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int s = 0; s < 2; s++) {
            int C = cases[c].C, H = cases[c].H, T = 3;
            rng_seed((uint64_t)(100 + c));
            float *X = rand_mat((size_t)T * C, 1.0);
            job j = {.T = T, .C = C, .H = H, .positions = "rope", .rope_style = styles[s], .X = s ? X : NULL,
                     .plot_to_outdir = 1, .trace = 1};
            run_t run;
            run_job(f, &j, &run);
            if (run.r.code != 2)
                fail_msg("[%s] exit %d, want 2 (usage error); stderr: %s", run.desc, run.r.code, run.r.err);
            if (!strstr(run.r.err, "attnviz: error:") || !strstr(run.r.err, "d_k") || !has_number(run.r.err, cases[c].D))
                fail_msg("[%s] the message must name d_k = %d: %s", run.desc, cases[c].D, run.r.err);
            if (count_entries(run.dump) > 0 || count_entries(run.outdir) > 0)
                fail_msg("[%s] files were written despite the usage error", run.desc);
            tu_free(&run.r);
            /* control: the same sizes without RoPE run fine */
            job ok = {.T = T, .C = C, .H = H, .positions = "none", .X = X};
            run_t run2;
            dump_t d;
            run_and_check(f, &ok, &run2, &d, 1);
            free_dump(&d);
            tu_free(&run2.r);
            free(X);
        }
}

/* ========================================================================= */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_P6_sinusoidal_example_d8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P6_sinusoidal_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P6_pe_added_and_trace_names_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_example_interleaved_and_half, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_formula_norm_position0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_relative_property, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P7_rope_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P8_odd_dk_rope_is_usage_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
