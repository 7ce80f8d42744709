/* test_pngbatch.c - PNGs compressed on a second thread (render/pngbatch.h).
 *
 * The reference is av_png_write (render/pngout.h) on the same image: every
 * file a batch writes must hold the same bytes, whichever thread compressed
 * it and however many images waited. A failing file stops the files after it
 * and names itself; the files before it are written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "render/pngbatch.h"

typedef tu_fixture fixture;

enum { W = 97, H = 61, N_IMAGES = 7 };

/* Image k: flat fields and a gradient that differ per k (malloc'd). */
static unsigned char *image(int k) {
    unsigned char *rgb = av_big_calloc((size_t)W * H, 3); /* the batch frees it with av_big_free */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char *p = rgb + ((size_t)y * W + (size_t)x) * 3;
            p[0] = (unsigned char)(x < W / 2 ? 40 * k : x * 2);
            p[1] = (unsigned char)(y * 4 + k);
            p[2] = (unsigned char)((x + y + k) % 7 == 0 ? 255 : 17);
        }
    return rgb;
}

static const av_png_text kTexts[3] = {{"Title", "head 0 · “I love”"}, {"Software", "attnviz test"}, {"Run", NULL}};

static int same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = tu_slurp_file(a, &na), *y = tu_slurp_file(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* A batch that gets no image (its worker starts at av_png_batch_begin and
 * warms the encoder) ends with AV_OK and writes nothing, and a batch after
 * it still writes files equal to av_png_write's. */
static void test_empty_batch_writes_nothing(void **state) {
    fixture *f = *state;
    av_png_batch b;
    av_err err;
    for (int round = 0; round < 3; round++) {
        av_png_batch_begin(&b);
        assert_int_equal(av_png_batch_end(&b, &err), AV_OK);
    }
    assert_int_equal(count_entries(f->dir), 0); /* no temporary file either */
    av_png_batch_begin(&b);
    assert_int_equal(av_png_batch_add(&b, tu_in(f, "after.png"), image(1), W, H, (size_t)W * 3, kTexts, 3, 150, &err),
                     AV_OK);
    assert_int_equal(av_png_batch_end(&b, &err), AV_OK);
    unsigned char *rgb = image(1);
    assert_int_equal(av_png_write(tu_in(f, "direct.png"), rgb, W, H, (size_t)W * 3, kTexts, 3, 150, &err), AV_OK);
    av_big_free(rgb);
    assert_true(same_file(tu_in(f, "after.png"), tu_in(f, "direct.png")));
}

/* Every file of a batch equals av_png_write's, in whatever order the
 * threads compressed them (more images than may wait, so the caller
 * compresses some itself). */
static void test_batch_bytes_equal_direct_write(void **state) {
    fixture *f = *state;
    av_png_batch b;
    av_err err;
    av_png_batch_begin(&b);
    for (int k = 0; k < N_IMAGES; k++) {
        char name[32];
        snprintf(name, sizeof name, "b%d.png", k);
        assert_int_equal(av_png_batch_add(&b, tu_in(f, name), image(k), W, H, (size_t)W * 3, kTexts, 3, 150, &err),
                         AV_OK);
    }
    assert_int_equal(av_png_batch_end(&b, &err), AV_OK);
    for (int k = 0; k < N_IMAGES; k++) {
        char name[32], ref[32];
        snprintf(name, sizeof name, "b%d.png", k);
        snprintf(ref, sizeof ref, "r%d.png", k);
        unsigned char *rgb = image(k);
        assert_int_equal(av_png_write(tu_in(f, ref), rgb, W, H, (size_t)W * 3, kTexts, 3, 150, &err), AV_OK);
        av_big_free(rgb);
        assert_true(same_file(tu_in(f, name), tu_in(f, ref)));
    }
}

/* The third file's folder does not exist: the error names it, the first two
 * files are written, the ones after it are not. An empty batch is fine. */
static void test_batch_first_failure_stops_the_rest(void **state) {
    fixture *f = *state;
    av_png_batch b;
    av_err err = {{0}};
    av_png_batch_begin(&b);
    const char *names[4] = {"a.png", "b.png", "no/such/folder/c.png", "d.png"};
    for (int k = 0; k < 4; k++)
        assert_int_equal(av_png_batch_add(&b, tu_in(f, names[k]), image(k), W, H, (size_t)W * 3, kTexts, 2, 0, &err),
                         AV_OK);
    assert_int_equal(av_png_batch_end(&b, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, "no/such/folder/c.png"));
    assert_int_equal(access(tu_in(f, "a.png"), F_OK), 0);
    assert_int_equal(access(tu_in(f, "b.png"), F_OK), 0);
    assert_int_not_equal(access(tu_in(f, "d.png"), F_OK), 0);
    av_png_batch_begin(&b);
    assert_int_equal(av_png_batch_end(&b, &err), AV_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_bytes_equal_direct_write, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_empty_batch_writes_nothing, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_batch_first_failure_stops_the_rest, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
