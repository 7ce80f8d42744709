/* test_gpt2_backward.c - the backward pass against torch autograd: every
 * parameter's gradient of the mean cross-entropy on the same weights and
 * batch (tests/gen_train_ref.py -> tests/ref/train/), for learned + Pre-LN,
 * RoPE + Post-LN without the scale, and sinusoidal + Pre-LN. Tolerance: per
 * tensor, max|C − torch| <= 1e-4 · max|torch| (torch works in float64 from
 * the same float32 weights). The worst ratio is printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

typedef float fx_f32;
#include "nn/embed.h"
#include "nn/gpt2_batch.h"
#include "nn/optim.h"
#include "train_fixture.h"

/* The packed batch (gpt2_batch.h) on the fixture's batch: grads (zeroed here)
 * = d mean loss / d params. Returns the mean loss. */
static double packed_batch_grads(const fx_variant *v, av_gpt2_params *grads, float *gmem) {
    const int *tok[8], *tgt[8];
    int n_scored = 0;
    for (int b = 0; b < v->B; b++) {
        tok[b] = v->tokens[b];
        tgt[b] = v->targets[b];
        for (int t = 0; t < v->len[b]; t++) n_scored += v->targets[b][t] >= 0;
    }
    memset(gmem, 0, av_gpt2_num_params(&v->cfg) * sizeof(float));
    av_gpt2_batch bt;
    av_err err;
    assert_int_equal(av_gpt2_batch_alloc(&bt, &v->cfg, v->B, v->maxT, &err), 0);
    assert_int_equal(av_gpt2_batch_set(&bt, &v->cfg, tok, tgt, v->len, v->B, &err), 0);
    assert_int_equal(av_gpt2_batch_forward(&bt, &v->p, &v->cfg, &err), 0);
    double loss = av_gpt2_batch_loss(&bt, v->cfg.vocab_size, 1.0 / n_scored);
    av_gpt2_batch_backward(grads, &bt, &v->p, &v->cfg);
    av_gpt2_batch_free(&bt);
    return loss / n_scored;
}

/* Every tensor of gt (bound to our gradients) against torch's, within 1e-4
 * of max|torch| per tensor, and the loss within 1e-5 relative. */
static void compare_to_torch(const fx_variant *v, const char *path, const av_gpt2_tensor *gt, double loss) {
    double worst = 0;
    const char *worst_name = "";
    for (int i = 0; i < v->n; i++) {
        const float *c = *gt[i].slot, *t = *v->gtab[i].slot;
        double maxt = 0, maxd = 0;
        for (size_t j = 0; j < gt[i].numel; j++) {
            maxt = fmax(maxt, fabs(t[j]));
            maxd = fmax(maxd, fabs((double)c[j] - t[j]));
        }
        assert_true(maxt > 0); /* every parameter gets a gradient in the fixture */
        double r = maxd / maxt;
        if (r > worst) { worst = r; worst_name = gt[i].name; }
        if (r > 1e-4) print_message("%s %s %s: max|diff| %.3g, max|torch| %.3g\n", v->name, path, gt[i].name, maxd, maxt);
        assert_true(r <= 1e-4);
    }
    print_message("%-18s %-9s loss %.6f (torch %.6f); worst gradient %.2e relative (%s)\n", v->name, path, loss,
                  v->loss_ref, worst, worst_name);
    assert_true(fabs(loss - v->loss_ref) <= 1e-5 * fabs(v->loss_ref));
}

/* The reference backward (sequence by sequence) and the packed batch, each against torch. */
static void check_variant(const char *line) {
    fx_variant v;
    assert_int_equal(fx_load(&v, line), 0);
    size_t np = av_gpt2_num_params(&v.cfg);
    float *gmem = calloc(np, sizeof(float));
    av_gpt2_params g;
    av_gpt2_tensor *gt = calloc((size_t)v.n, sizeof *gt);
    fx_bind(&g, gt, &v.cfg, gmem);
    compare_to_torch(&v, "reference", gt, fx_batch_grads(&v, &v.p, &g, gmem));
    compare_to_torch(&v, "packed", gt, packed_batch_grads(&v, &g, gmem));
    free(gmem); free(gt); free(g.h);
    fx_free(&v);
}

static void test_gradients_equal_torch_autograd(void **state) {
    (void)state;
    assert_int_equal(fx_for_each_variant(check_variant), 3);
}

/* The loss gradient w.r.t. the logits: softmax − onehot, by hand for V = 3. */
static void test_crossentropy_by_hand(void **state) {
    (void)state;
    float logits[6] = {1, 2, 3, 0, 0, 0}, d[6];
    int targets[2] = {2, -1};
    double loss = crossentropy_forward_backward(d, logits, targets, 2, 3, 1.0);
    double z = exp(1) + exp(2) + exp(3);
    assert_true(fabs(loss - (log(z) - 3)) < 1e-9);
    assert_true(fabs(d[0] - exp(1) / z) < 1e-7 && fabs(d[2] - (exp(3) / z - 1)) < 1e-7);
    assert_true(d[3] == 0 && d[4] == 0 && d[5] == 0);
}

/* The fast float matmul and dot against the double-sum reference kernels. */
static void test_fast_matmul_matches_reference(void **state) {
    (void)state;
    enum { T = 5, C = 37, OC = 29 };
    float inp[T * C], w[C * OC], b[OC], fast[T * OC], ref[T * OC];
    av_rng r;
    av_rng_seed(&r, 7);
    for (int i = 0; i < T * C; i++) inp[i] = (float)av_rng_normal(&r);
    for (int i = 0; i < C * OC; i++) w[i] = (float)av_rng_normal(&r);
    for (int i = 0; i < OC; i++) b[i] = (float)av_rng_normal(&r);
    gpt2_matmul_forward(fast, inp, w, b, T, C, OC);
    matmul_forward(ref, inp, w, T, C, OC);
    double worst = 0;
    for (int t = 0; t < T; t++)
        for (int o = 0; o < OC; o++) worst = fmax(worst, fabs(fast[t * OC + o] - (ref[t * OC + o] + (double)b[o])));
    print_message("gpt2_matmul_forward vs matmul_forward + b: worst |diff| %.2e\n", worst);
    assert_true(worst < 1e-4);
    double dot = 0;
    for (int c = 0; c < C; c++) dot += (double)inp[c] * w[c];
    assert_true(fabs(gpt2_dot(inp, w, C) - dot) < 1e-5);
}

/* gpt2_batch.h's float32 GELU (x·σ(2u), fastexp.h) against the double tanh
 * reference of gpt2.h / gpt2_backward.h, forward and gradient, on a grid over
 * [-12, 12] (both tails) and 0; the worst relative difference is printed. */
static void test_fast_gelu_matches_reference(void **state) {
    (void)state;
    enum { N = 4801 };
    static float x[N], ref[N], fast[N], sigma[N], dout[N], dref[N], dfast[N];
    for (int i = 0; i < N; i++) { x[i] = -12.0f + 24.0f * (float)i / (N - 1); dout[i] = 1.0f; }
    gelu_forward(ref, x, N);
    gelu_fast_forward(fast, sigma, x, N);
    gelu_backward(dref, x, dout, N);
    gelu_fast_backward(dfast, x, sigma, dout, N);
    double worst = 0, worst_d = 0;
    for (int i = 0; i < N; i++) {
        /* relative, or absolute where the value is below 1e-3 (the far tail underflows to 0 in the reference) */
        worst = fmax(worst, fabs((double)fast[i] - ref[i]) / fmax(fabs(ref[i]), 1e-3));
        worst_d = fmax(worst_d, fabs((double)dfast[i] - dref[i]) / fmax(fabs(dref[i]), 1e-3));
    }
    print_message("fast GELU vs reference on [-12, 12]: worst diff %.2e (value), %.2e (gradient), relative to "
                  "max(|reference|, 1e-3)\n", worst, worst_d);
    assert_true(worst < 1e-5);   /* a few float32 ulp */
    assert_true(worst_d < 1e-4); /* GELU' crosses 0 near x = −0.75: 1e-4 of 1e-3 there is 1e-7 absolute */
    assert_true(fast[(N - 1) / 2] == 0.0f && dfast[(N - 1) / 2] == 0.5f); /* GELU(0) = 0, GELU'(0) = 1/2 */
}

/* The packed path's fused float32 causal attention against attention.h's
 * reference chain (scores, causal mask, softmax, weighted sum; sums in
 * double) on random q, k, v: the worst difference of the weights and of the
 * output is printed; masked weights are exactly 0. */
static void test_fast_causal_attention_matches_reference(void **state) {
    (void)state;
    enum { H = 3, T = 13, D = 16 };
    static float q[H * T * D], k[H * T * D], v[H * T * D], pre[H * T * T], att_ref[H * T * T], att[H * T * T];
    static float out_ref[H * T * D], out[H * T * D];
    static unsigned char mask[T * T];
    av_rng r;
    av_rng_seed(&r, 11);
    for (int i = 0; i < H * T * D; i++) {
        q[i] = (float)(2.0 * av_rng_normal(&r));
        k[i] = (float)(2.0 * av_rng_normal(&r));
        v[i] = (float)av_rng_normal(&r);
    }
    scores_forward(pre, q, k, H, T, D, 0.25);
    mask_forward(mask, T, 1, T, NULL);
    softmax_forward(att_ref, pre, mask, H, T, NULL);
    weighted_sum_forward(out_ref, att_ref, v, H, T, D);
    assert_int_equal(causal_attention_fast_forward(out, att, q, k, v, H, T, D, 0.25f), 1);
    double worst_att = 0, worst_out = 0;
    for (int i = 0; i < H * T * T; i++) {
        worst_att = fmax(worst_att, fabs((double)att[i] - att_ref[i]));
        if (mask[i % (T * T)]) assert_true(att[i] == 0.0f);
    }
    for (int i = 0; i < H * T * D; i++) worst_out = fmax(worst_out, fabs((double)out[i] - out_ref[i]));
    print_message("fused float causal attention vs reference: worst |diff| %.2e (weights), %.2e (output)\n", worst_att,
                  worst_out);
    assert_true(worst_att < 1e-6 && worst_out < 1e-5);
    q[5] = INFINITY; /* an overflowed score is reported */
    assert_int_equal(causal_attention_fast_forward(out, att, q, k, v, H, T, D, 0.25f), 0);
}

/* Learned positions: wpe has n_positions rows, so a packed sequence of more
 * tokens is refused (AV_EUSAGE), as av_gpt2_acts_alloc refuses it on the
 * reference path. The packed batch used to accept any length up to its maxT:
 * the embedding read wpe past its last row (into the next tensor of the flat
 * parameter block) and the backward added that row's gradient there. */
static void test_packed_batch_refuses_more_tokens_than_wpe_rows(void **state) {
    (void)state;
    av_gpt2_config cfg;
    av_gpt2_config_defaults(&cfg); /* learned positions */
    cfg.n_layer = 1; cfg.n_head = 1; cfg.n_embd = 4; cfg.n_positions = 4; cfg.vocab_size = 8;
    cfg.layer_norm_epsilon = 1e-5;
    av_gpt2_batch bt;
    av_err err;
    assert_int_equal(av_gpt2_batch_alloc(&bt, &cfg, 1, 6, &err), 0); /* room for 6 tokens, wpe has 4 rows */
    const int tokens[5] = {1, 2, 3, 4, 5}, targets[5] = {-1, -1, -1, 6, 7};
    const int *tok[1] = {tokens}, *tgt[1] = {targets};
    int four = 4, five = 5;
    assert_int_equal(av_gpt2_batch_set(&bt, &cfg, tok, tgt, &four, 1, &err), AV_OK);
    assert_int_equal(av_gpt2_batch_set(&bt, &cfg, tok, tgt, &five, 1, &err), AV_EUSAGE);
    cfg.positions = AV_POS_SINUSOIDAL; /* no such limit: the encoding is computed for every position */
    assert_int_equal(av_gpt2_batch_set(&bt, &cfg, tok, tgt, &five, 1, &err), AV_OK);
    av_gpt2_batch_free(&bt);
}

/* av_schedule_parse's refusal quotes the value as the CLI's messages do (one shell word, GNU ls
 * --quoting-style=shell-escape): '%.100s' kept 99 x's and the first byte of 深 (0xE6, half a character,
 * U+FFFD on a terminal) of x*99 + "深" with no sign of the cut, printed a newline raw, and wrote 'it's', an open
 * quote to a shell. By hand: 102 bytes do not fit the 104-byte buffer's word room; its longest start whose word
 * fits 99 bytes with its NUL is 98 x's, then the closing quote and "...". */
static void test_schedule_refusal_quotes_its_value(void **state) {
    (void)state;
    av_schedule s = AV_SCHED_COSINE;
    av_err err = {{0}};
    char name[128], want[256];
    memset(name, 'x', 99);
    strcpy(name + 99, "\xE6\xB7\xB1"); /* 深 */
    assert_int_equal(av_schedule_parse(name, &s, &err), AV_EUSAGE);
    memset(want, 0, sizeof want);
    strcpy(want, "--schedule '");
    memset(want + 12, 'x', 98);
    strcat(want, "'... is not a schedule (allowed: cosine, noam, constant)");
    assert_string_equal(err.msg, want);
    assert_int_equal(av_schedule_parse("co\nsine", &s, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "--schedule 'co<U+000A>sine' is not a schedule (allowed: cosine, noam, constant)");
    assert_int_equal(av_schedule_parse("it's", &s, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "--schedule 'it'\\''s' is not a schedule (allowed: cosine, noam, constant)");
    assert_int_equal(av_schedule_parse("noam", &s, &err), AV_OK);
    assert_int_equal(s, AV_SCHED_NOAM);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradients_equal_torch_autograd),
        cmocka_unit_test(test_crossentropy_by_hand),
        cmocka_unit_test(test_fast_matmul_matches_reference),
        cmocka_unit_test(test_fast_gelu_matches_reference),
        cmocka_unit_test(test_fast_causal_attention_matches_reference),
        cmocka_unit_test(test_packed_batch_refuses_more_tokens_than_wpe_rows),
        cmocka_unit_test(test_schedule_refusal_quotes_its_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
