/* test_gradcheck64.c - central finite differences against the backward pass,
 * in a float64 build of the kernels: this file compiles src/nn/attention.c,
 * src/nn/gpt2.c and src/nn/gpt2_backward.c itself with `#define float double`
 * (every float buffer, cast and kernel becomes double), so the differences
 * (L(p + h) − L(p − h)) / 2h with h = 1e-6 are accurate to ~1e-8 and can check
 * the analytic gradient tightly. Weights and batches are the torch fixture's
 * (tests/ref/train/), covering learned + Pre-LN, RoPE + Post-LN without the
 * scale, and sinusoidal + Pre-LN. For every tensor, 6 entries (the largest
 * gradient and 5 spread over the tensor) must agree: |fd − g| <= 1e-6 · max|g|
 * over the tensor. The worst ratio is printed (about 1e-8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

typedef float fx_f32; /* the file's float32, before float becomes double */
#define float double
#include "../src/nn/attention.c"
#include "../src/nn/gpt2.c"
#include "../src/nn/gpt2_backward.c"
#include "train_fixture.h"

/* half_style: 1 = the same weights and batch with RoPE rotate-half and base 500
 * (what `--train --positions rope --rope-style half --rope-base 500` trains);
 * the finite differences need no torch reference, so any style can be checked. */
static void check_loaded(fx_variant *v, int half_style) {
    if (half_style) {
        v->cfg.rope_style = AV_ROPE_HALF;
        v->cfg.rope_base = 500.0;
    }
    assert_true(sizeof v->pmem[0] == 8); /* really the float64 build */
    size_t np = av_gpt2_num_params(&v->cfg);
    float *gmem = calloc(np, sizeof(float));
    av_gpt2_params g;
    av_gpt2_tensor *gt = calloc((size_t)v->n, sizeof *gt);
    fx_bind(&g, gt, &v->cfg, gmem);
    fx_batch_grads(v, &v->p, &g, gmem);
    double worst = 0;
    int checked = 0;
    for (int i = 0; i < v->n; i++) {
        double *p = *v->tab[i].slot, *an = *gt[i].slot, maxg = 0;
        size_t n = v->tab[i].numel, idx[6], arg = 0;
        for (size_t j = 0; j < n; j++)
            if (fabs(an[j]) > maxg) { maxg = fabs(an[j]); arg = j; }
        idx[0] = arg;
        for (int k = 1; k < 6; k++) idx[k] = (size_t)k * 7919u % n;
        for (int k = 0; k < 6; k++) {
            double keep = p[idx[k]], h = 1e-6;
            p[idx[k]] = keep + h;
            double lp = fx_batch_grads(v, &v->p, NULL, NULL);
            p[idx[k]] = keep - h;
            double lm = fx_batch_grads(v, &v->p, NULL, NULL);
            p[idx[k]] = keep;
            double fd = (lp - lm) / (2 * h), err = fabs(fd - an[idx[k]]) / (maxg + 1e-12);
            if (err > worst) worst = err;
            if (err > 1e-6)
                print_message("%s %s[%zu]: finite difference %.10g, backward %.10g\n", v->name, v->tab[i].name, idx[k],
                              fd, an[idx[k]]);
            assert_true(err <= 1e-6);
            checked++;
        }
    }
    print_message("%-18s %d entries, worst |fd − backward| / max|gradient| = %.2e\n", v->name, checked, worst);
    free(gmem); free(gt); free(g.h);
}

static void check_variant(const char *line) {
    fx_variant v;
    assert_int_equal(fx_load(&v, line), 0);
    check_loaded(&v, 0);
    fx_free(&v);
}

static int n_rope_half;
static void check_variant_rope_half(const char *line) {
    fx_variant v;
    assert_int_equal(fx_load(&v, line), 0);
    if (v.cfg.positions == AV_POS_ROPE) {
        check_loaded(&v, 1);
        n_rope_half++;
    }
    fx_free(&v);
}

static void test_finite_differences_float64(void **state) {
    (void)state;
    assert_int_equal(fx_for_each_variant(check_variant), 3);
}

static void test_finite_differences_rope_half_float64(void **state) {
    (void)state;
    assert_int_equal(fx_for_each_variant(check_variant_rope_half), 3);
    assert_int_equal(n_rope_half, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finite_differences_float64),
        cmocka_unit_test(test_finite_differences_rope_half_float64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
