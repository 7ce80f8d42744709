/* test_pngout.c - render/pngout.h's metadata reader, av_png_read_texts.
 *
 * The reference is av_png_read on the same file (it decodes the whole image
 * and collects the text chunks before and after IDAT): the texts, size and
 * dpi must agree. A file cut inside its IDAT chunk, which av_png_read
 * rejects, still gives its texts: av_png_read_texts never reads the image.
 * The chunk layout (8-byte signature, then length, type, data, CRC) is the
 * PNG Specification's "Chunk layout"; the test finds IDAT by walking it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "render/pngout.h"

typedef tu_fixture fixture;

enum { W = 120, H = 90 };

/* Latin-1 → tEXt, CJK → iTXt, a NULL value is not written. */
static const av_png_text kTexts[4] = {
    {"Software", "attnviz 0.1.0"}, {"Title", "head 0 · “I love”"}, {"Run", "0123456789abcdef"}, {"Comment", NULL}};

/* Write a noisy W x H image (so IDAT is several kB) with kTexts to path. */
static void write_png(const char *path) {
    unsigned char *rgb = malloc((size_t)W * H * 3);
    uint32_t s = 12345;
    for (size_t i = 0; i < (size_t)W * H * 3; i++) {
        s = s * 1664525u + 1013904223u;
        rgb[i] = (unsigned char)(s >> 24);
    }
    av_err err;
    assert_int_equal(av_png_write(path, rgb, W, H, (size_t)W * 3, kTexts, 4, 150, &err), AV_OK);
    free(rgb);
}

/* Offset of the first IDAT chunk's length field in the n bytes at p. */
static size_t idat_offset(const unsigned char *p, size_t n) {
    size_t at = 8;
    while (at + 8 <= n) {
        size_t len = (size_t)p[at] << 24 | (size_t)p[at + 1] << 16 | (size_t)p[at + 2] << 8 | p[at + 3];
        if (memcmp(p + at + 4, "IDAT", 4) == 0) return at;
        at += 12 + len;
    }
    fail_msg("no IDAT chunk");
    return 0;
}

/* The first n bytes of src into dst. */
static void write_prefix(const char *dst, const char *src_bytes, size_t n) {
    FILE *fp = fopen(dst, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(src_bytes, 1, n, fp), n);
    fclose(fp);
}

static void assert_same_meta(const av_png_image *a, const av_png_image *b) {
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_true(a->dpi == b->dpi);
    assert_int_equal(a->has_time, b->has_time);
    assert_int_equal(a->n_texts, b->n_texts);
    for (int k = 0; k < a->n_texts; k++) {
        assert_string_equal(a->keys[k], b->keys[k]);
        assert_string_equal(a->values[k], b->values[k]);
    }
}

/* Same texts, size and dpi as av_png_read; no pixels. */
static void test_texts_equal_full_read(void **state) {
    fixture *f = *state;
    const char *path = tu_in(f, "a.png");
    write_png(path);
    av_png_image full, head;
    av_err err;
    assert_int_equal(av_png_read(path, &full, &err), AV_OK);
    assert_int_equal(av_png_read_texts(path, &head, &err), AV_OK);
    assert_int_equal(full.n_texts, 3);
    assert_same_meta(&head, &full);
    assert_null(head.rgb);
    assert_string_equal(av_png_image_text(&head, "Title"), "head 0 · “I love”");
    assert_string_equal(av_png_image_text(&head, "Run"), "0123456789abcdef");
    assert_null(av_png_image_text(&head, "Comment"));
    av_png_image_free(&full);
    av_png_image_free(&head);
}

/* Cut 16 bytes into the IDAT data: the image cannot be decoded, the texts
 * before it still read. */
static void test_truncated_idat_still_gives_texts(void **state) {
    fixture *f = *state;
    const char *path = tu_in(f, "a.png"), *cut = tu_in(f, "cut.png");
    write_png(path);
    size_t n = 0;
    char *bytes = tu_slurp_file(path, &n);
    assert_non_null(bytes);
    size_t at = idat_offset((const unsigned char *)bytes, n);
    assert_true(at + 8 + 16 < n);
    write_prefix(cut, bytes, at + 8 + 16);

    av_png_image full, head;
    av_err err;
    assert_int_equal(av_png_read(path, &full, &err), AV_OK);
    av_png_image broken;
    assert_int_equal(av_png_read(cut, &broken, &err), AV_ERUNTIME); /* the cut is real */
    assert_int_equal(av_png_read_texts(cut, &head, &err), AV_OK);
    assert_same_meta(&head, &full);
    av_png_image_free(&full);
    av_png_image_free(&head);
    free(bytes);
}

/* Missing file, not a PNG, and a file cut before its first IDAT (inside the
 * text chunks) are AV_ERUNTIME naming the path. */
static void test_errors_name_the_path(void **state) {
    fixture *f = *state;
    av_png_image img;
    av_err err;
    const char *missing = tu_in(f, "missing.png");
    assert_int_equal(av_png_read_texts(missing, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, missing));

    const char *text = tu_in(f, "text.png");
    write_prefix(text, "hello, not a PNG at all\n", 24);
    assert_int_equal(av_png_read_texts(text, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, text));

    const char *path = tu_in(f, "a.png"), *cut = tu_in(f, "early.png");
    write_png(path);
    size_t n = 0;
    char *bytes = tu_slurp_file(path, &n);
    write_prefix(cut, bytes, 60); /* signature, IHDR (25 bytes), part of the next chunk */
    assert_int_equal(av_png_read_texts(cut, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, cut));
    assert_int_equal(img.n_texts, 0);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_texts_equal_full_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_truncated_idat_still_gives_texts, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_errors_name_the_path, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
