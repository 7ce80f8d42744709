/* test_assets.c - the data folder assets/: the example weights folder loads
 * and means what it says (W = I, so Q = K = V = X + PE), and the sentence
 * list is the one the demo runs. The bundled fonts are checked on an
 * installed binary with no system fonts by scripts/check-install.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/npy.h"
#include "testutil.h"

static av_npy load(const tu_fixture *f, const char *name) {
    av_npy a;
    av_err err = {{0}};
    if (av_npy_read(&a, tu_in(f, name), &err) != AV_OK) fail_msg("%s: %s", name, err.msg);
    return a;
}

/* --weights assets/weights/identity-d8: four 8 x 8 identities, X seeded. */
static void test_identity_weights_folder(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--d-model", "8", "--weights", src_path("assets/weights/identity-d8"),
                "--dump", tu_in(f, "d"), "I love you", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char *const names[] = {"d/W_Q.npy", "d/W_K.npy", "d/W_V.npy", "d/W_O.npy"};
    for (int n = 0; n < 4; n++) {
        av_npy w = load(f, names[n]);
        assert_int_equal(w.ndim, 2);
        assert_int_equal(w.shape[0], 8);
        assert_int_equal(w.shape[1], 8);
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) assert_true(w.data[i * 8 + j] == (i == j ? 1.0f : 0.0f));
        av_npy_free(&w);
    }
    /* Q (H = 1, T = 3, 8) = (X + PE)·I, element by element */
    av_npy X = load(f, "d/X.npy"), PE = load(f, "d/PE.npy"), Q = load(f, "d/Q.npy"), V = load(f, "d/V.npy");
    assert_int_equal(Q.ndim, 3);
    assert_int_equal(Q.shape[1], 3);
    for (int k = 0; k < 3 * 8; k++) {
        assert_true(Q.data[k] == X.data[k] + PE.data[k]);
        assert_true(V.data[k] == Q.data[k]);
    }
    av_npy_free(&X);
    av_npy_free(&PE);
    av_npy_free(&Q);
    av_npy_free(&V);
}

/* The trace says where the weights came from. */
static void test_identity_weights_named_in_trace(void **state) {
    (void)state;
    tu_result r;
    run_attnviz(&r, NULL, "--no-plot", "--d-model", "8", "--weights", src_path("assets/weights/identity-d8"),
                "I love you", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "  weights    W_Q, W_K, W_V, W_O loaded from "));
    assert_non_null(strstr(r.out, "identity-d8; X random (untrained, seed 42)\n"));
    tu_free(&r);
}

/* The sentence list: comments start with '#', the first sentence is the
 * demo's (Makefile DEMO_SENTENCE, README), every line is UTF-8 text. */
static void test_sentence_list(void **state) {
    (void)state;
    size_t len = 0;
    char *text = tu_slurp_file(src_path("assets/sentences.txt"), &len);
    assert_non_null(text);
    char *line = text;
    while (*line == '#') line = strchr(line, '\n') + 1;
    assert_true(strncmp(line, "I love deep learning\n", 21) == 0);
    int n = 0;
    for (char *p = text; *p; p++) n += *p == '\n';
    assert_true(n >= 10);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_identity_weights_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_identity_weights_named_in_trace),
        cmocka_unit_test(test_sentence_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
