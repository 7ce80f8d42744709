/* test_plot_raster.c - colour maps, the display list rasterizer and text
 * measurement, without libpng: everything is checked in an RGB buffer.
 *
 * No test depends on one font's exact pixels: text checks look at where ink
 * lands (inside the expected box, rotated the right way), not at its shape.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/colormap.h"
#include "render/raster.h"

/* ---------------------------------------------------------------- colour maps */

static void expect_rgb(const unsigned char got[3], int r, int g, int b) {
    assert_int_equal(got[0], r);
    assert_int_equal(got[1], g);
    assert_int_equal(got[2], b);
}

/* Endpoints and a midpoint of matplotlib's tables (Colormap(x, bytes=True)). */
static void test_cmap_matches_matplotlib(void **state) {
    (void)state;
    unsigned char c[3];
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.0, c);
    expect_rgb(c, 68, 1, 84);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 1.0, c);
    expect_rgb(c, 253, 231, 36);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.32, c); /* index 81 */
    expect_rgb(c, 50, 99, 141);
    av_cmap_rgb(AV_CMAP_MAGMA, 0.0, c);
    expect_rgb(c, 0, 0, 3);
    av_cmap_rgb(AV_CMAP_MAGMA, 1.0, c);
    expect_rgb(c, 251, 252, 191);
    av_cmap_rgb(AV_CMAP_CIVIDIS, 0.0, c);
    expect_rgb(c, 0, 34, 77);
    av_cmap_rgb(AV_CMAP_GRAY, 0.5, c);
    expect_rgb(c, 128, 128, 128);
    av_cmap_rgb(AV_CMAP_RDBU_R, 0.0, c);
    expect_rgb(c, 5, 48, 97);
    av_cmap_rgb(AV_CMAP_RDBU_R, 1.0, c);
    expect_rgb(c, 103, 0, 31);
}

static void test_cmap_clamps_and_survives_nan(void **state) {
    (void)state;
    unsigned char a[3], b[3];
    av_cmap_rgb(AV_CMAP_VIRIDIS, -3.0, a);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.0, b);
    assert_memory_equal(a, b, 3);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 7.0, a);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 1.0, b);
    assert_memory_equal(a, b, 3);
    av_cmap_rgb(AV_CMAP_VIRIDIS, NAN, a);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.0, b);
    assert_memory_equal(a, b, 3);
    av_cmap_rgb((av_cmap)99, 0.0, a); /* invalid map → viridis */
    assert_memory_equal(a, b, 3);
}

/* Viridis is perceptually ordered: luminance rises monotonically. */
static void test_viridis_luminance_increases(void **state) {
    (void)state;
    double prev = -1;
    for (int k = 0; k < 256; k++) {
        unsigned char c[3];
        av_cmap_entry(AV_CMAP_VIRIDIS, k, c);
        double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        assert_true(y >= prev - 0.5);
        prev = y;
    }
}

static void test_cmap_names(void **state) {
    (void)state;
    av_cmap m;
    for (int k = 0; k < AV_CMAP_COUNT; k++) {
        assert_int_equal(av_cmap_from_name(av_cmap_name((av_cmap)k), &m), 0);
        assert_int_equal(m, k);
        assert_non_null(strstr(av_cmap_names(), av_cmap_name((av_cmap)k)));
    }
    assert_int_equal(av_cmap_from_name("VIRIDIS", &m), 0);
    assert_int_equal(m, AV_CMAP_VIRIDIS);
    assert_int_equal(av_cmap_from_name("rdbu_r", &m), 0);
    assert_int_equal(m, AV_CMAP_RDBU_R);
    assert_int_equal(av_cmap_from_name("jet", &m), -1);
    assert_int_equal(av_cmap_from_name(NULL, &m), -1);
    assert_true(av_cmap_is_diverging(AV_CMAP_RDBU_R));
    assert_false(av_cmap_is_diverging(AV_CMAP_VIRIDIS));
}

/* ---------------------------------------------------------------- raster */

typedef struct {
    int w, h;
    size_t stride;
    unsigned char *px;
} canvas;

/* Draw dl into a buffer with padding at the end of each row, to catch
 * stride mistakes. */
static canvas draw(const av_dlist *dl) {
    canvas c = {dl->width, dl->height, (size_t)dl->width * 3 + 5, NULL};
    c.px = malloc(c.stride * (size_t)c.h);
    memset(c.px, 0xAB, c.stride * (size_t)c.h);
    av_raster_draw(dl, c.px, c.stride);
    for (int y = 0; y < c.h; y++)
        for (size_t k = (size_t)c.w * 3; k < c.stride; k++) assert_int_equal(c.px[y * c.stride + k], 0xAB);
    return c;
}

static const unsigned char *at(const canvas *c, int x, int y) {
    return c->px + (size_t)y * c->stride + (size_t)x * 3;
}

static int is_rgb(const canvas *c, int x, int y, int r, int g, int b) {
    const unsigned char *p = at(c, x, y);
    return p[0] == r && p[1] == g && p[2] == b;
}

/* Bounding box of pixels that differ from white. Returns the count. */
static int ink_box(const canvas *c, int box[4]) {
    int n = 0;
    box[0] = c->w, box[1] = c->h, box[2] = -1, box[3] = -1;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            if (is_rgb(c, x, y, 255, 255, 255)) continue;
            n++;
            if (x < box[0]) box[0] = x;
            if (y < box[1]) box[1] = y;
            if (x > box[2]) box[2] = x;
            if (y > box[3]) box[3] = y;
        }
    return n;
}

static void test_rects_background_and_clipping(void **state) {
    (void)state;
    av_dlist dl;
    av_dl_init(&dl, 40, 30, (av_rgb){255, 255, 255});
    av_dl_rect(&dl, 10, 5, 20, 15, (av_rgb){255, 0, 0});
    av_dl_rect(&dl, -10, 25, 100, 100, (av_rgb){0, 0, 255}); /* clipped */
    canvas c = draw(&dl);
    assert_true(is_rgb(&c, 0, 0, 255, 255, 255));
    assert_true(is_rgb(&c, 10, 5, 255, 0, 0));
    assert_true(is_rgb(&c, 19, 14, 255, 0, 0));
    assert_true(is_rgb(&c, 20, 14, 255, 255, 255)); /* x1 is exclusive */
    assert_true(is_rgb(&c, 9, 5, 255, 255, 255));
    assert_true(is_rgb(&c, 0, 29, 0, 0, 255));
    assert_true(is_rgb(&c, 39, 25, 0, 0, 255));
    free(c.px);
    av_dl_free(&dl);
}

static void test_hatch_is_grey_with_lines(void **state) {
    (void)state;
    av_dlist dl;
    av_dl_init(&dl, 32, 32, (av_rgb){255, 255, 255});
    av_dl_hatch(&dl, 0, 0, 32, 32);
    canvas c = draw(&dl);
    int light = 0, dark = 0;
    av_rgb bg = AV_HATCH_BG, ink = AV_HATCH_INK;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            const unsigned char *p = at(&c, x, y);
            assert_int_equal(p[0], p[1]);
            assert_int_equal(p[1], p[2]);
            assert_true(p[0] >= ink.r && p[0] <= bg.r);
            light += p[0] == bg.r;
            dark += p[0] <= (bg.r + ink.r) / 2;
        }
    assert_true(light > 32 * 32 / 3); /* mostly ground */
    assert_true(dark > 32 * 32 / 10); /* with visible lines */
    /* The pattern repeats every AV_HATCH_PERIOD px along x and along y. */
    for (int y = 0; y + AV_HATCH_PERIOD < 32; y++)
        for (int x = 0; x + AV_HATCH_PERIOD < 32; x++) {
            assert_memory_equal(at(&c, x, y), at(&c, x + AV_HATCH_PERIOD, y), 3);
            assert_memory_equal(at(&c, x, y), at(&c, x, y + AV_HATCH_PERIOD), 3);
        }
    free(c.px);
    av_dl_free(&dl);
}

static void test_heat_cells_exact_and_masked(void **state) {
    (void)state;
    const float w[6] = {0.0f, 0.5f, 1.0f, NAN, 0.25f, 0.75f};
    const unsigned char m[6] = {0, 0, 0, 0, 1, 0};
    av_dl_heat heat = {.w = w, .masked = m, .n_q = 2, .n_k = 3, .vmin = 0.0f, .vmax = 1.0f, .cmap = AV_CMAP_VIRIDIS};
    av_dlist dl;
    av_dl_init(&dl, 40, 30, (av_rgb){255, 255, 255});
    av_dl_heatmap(&dl, 5, 5, 35, 25, &heat); /* cells 10 x 10 */
    canvas c = draw(&dl);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            int b[4];
            assert_int_equal(av_dl_cell_box(&dl.items[0], i, j, b), 0);
            assert_int_equal(b[2] - b[0], 10);
            assert_int_equal(b[3] - b[1], 10);
            av_rgb col;
            int masked = av_heat_cell_color(&heat, i, j, &col);
            assert_int_equal(masked, (i == 1 && j == 0) || (i == 1 && j == 1));
            for (int y = b[1]; y < b[3]; y++)
                for (int x = b[0]; x < b[2]; x++) {
                    const unsigned char *p = at(&c, x, y);
                    if (masked) {
                        assert_int_equal(p[0], p[1]); /* grey hatch */
                        assert_int_equal(p[1], p[2]);
                    } else {
                        unsigned char want[3];
                        av_cmap_rgb(AV_CMAP_VIRIDIS, w[i * 3 + j], want);
                        assert_memory_equal(p, want, 3);
                    }
                }
        }
    assert_int_equal(av_dl_cell_box(&dl.items[0], 2, 0, (int[4]){0}), -1);
    free(c.px);
    av_dl_free(&dl);
}

/* Uneven cells (7 x 5 cells over 23 x 17 px, so widths of 3 and 4 px), the
 * map hanging over the canvas's left and bottom edges, one masked cell in a
 * row: every canvas pixel inside a cell's box (av_dl_cell_box) has that
 * cell's colour, or the grey hatch for the masked one. */
static void test_heat_uneven_cells_clipped(void **state) {
    (void)state;
    enum { NQ = 5, NK = 7 };
    float w[NQ * NK];
    unsigned char m[NQ * NK] = {0};
    for (int k = 0; k < NQ * NK; k++) w[k] = (float)((k * 37) % 100) / 99.0f;
    m[2 * NK + 3] = 1;
    av_dl_heat heat = {.w = w, .masked = m, .n_q = NQ, .n_k = NK, .vmin = 0.0f, .vmax = 1.0f, .cmap = AV_CMAP_VIRIDIS};
    av_dlist dl;
    av_dl_init(&dl, 20, 15, (av_rgb){255, 255, 255});
    av_dl_heatmap(&dl, -3, 2, 20, 19, &heat);
    canvas c = draw(&dl);
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NK; j++) {
            int b[4];
            av_rgb col;
            av_dl_cell_box(&dl.items[0], i, j, b);
            int masked = av_heat_cell_color(&heat, i, j, &col);
            for (int y = b[1] < 0 ? 0 : b[1]; y < b[3] && y < 15; y++)
                for (int x = b[0] < 0 ? 0 : b[0]; x < b[2] && x < 20; x++) {
                    const unsigned char *p = at(&c, x, y);
                    if (masked) {
                        assert_int_equal(p[0], p[1]);
                        assert_int_equal(p[1], p[2]);
                    } else {
                        assert_int_equal(p[0], col.r);
                        assert_int_equal(p[1], col.g);
                        assert_int_equal(p[2], col.b);
                    }
                }
        }
    free(c.px);
    av_dl_free(&dl);
}

/* A box smaller than the matrix averages cells: a 4x4 checkerboard of 0 and
 * 1 in a 2x2 box gives the mean of the two end colours everywhere. */
static void test_heat_downsampling_averages(void **state) {
    (void)state;
    float w[16];
    for (int k = 0; k < 16; k++) w[k] = (float)(((k / 4) + (k % 4)) % 2);
    av_dl_heat heat = {.w = w, .n_q = 4, .n_k = 4, .vmin = 0.0f, .vmax = 1.0f, .cmap = AV_CMAP_GRAY};
    av_dlist dl;
    av_dl_init(&dl, 2, 2, (av_rgb){255, 255, 255});
    av_dl_heatmap(&dl, 0, 0, 2, 2, &heat);
    canvas c = draw(&dl);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) {
            const unsigned char *p = at(&c, x, y);
            assert_true(abs(p[0] - 128) <= 1);
        }
    free(c.px);
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- text */

static void test_text_measure_grows(void **state) {
    (void)state;
    av_text_metrics a, b, big;
    av_text_measure("attention", 15, 0, &a);
    av_text_measure("attention weights", 15, 0, &b);
    av_text_measure("attention", 30, 0, &big);
    assert_true(a.width > 20);
    assert_true(b.width > a.width);
    assert_true(big.width > 1.5f * a.width);
    assert_int_equal(a.chars, 9);
    av_text_measure("", 15, 0, &a);
    assert_true(a.width == 0);
    /* Invalid UTF-8 is measured (as U+FFFD), never read past the end. */
    av_text_measure("\xC3", 15, 0, &a);
    assert_int_equal(a.chars, 1);
    /* Ignorable code points (ZWJ, VS16) take no room and are not missing. */
    av_text_measure("a\xE2\x80\x8D\xEF\xB8\x8F", 15, 0, &b);
    av_text_measure("a", 15, 0, &a);
    assert_int_equal(b.missing, 0);
    assert_true(b.width == a.width);
}

static void test_text_lands_in_its_box(void **state) {
    (void)state;
    av_dlist dl;
    av_text_metrics m;
    av_text_measure("Mellow", 20, 0, &m);
    av_dl_init(&dl, 200, 60, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, "Mellow", 100, 40, 20, AV_ANCHOR_MIDDLE, 0, 0, (av_rgb){0, 0, 0});
    canvas c = draw(&dl);
    int box[4];
    assert_true(ink_box(&c, box) > 20);
    assert_true(box[0] >= 100 - m.width / 2 - 2 && box[2] <= 100 + m.width / 2 + 2);
    assert_true(box[3] <= 41);           /* nothing below the baseline for "Mellow" */
    assert_true(box[1] >= 40 - 20);      /* nor above the em */
    assert_true(box[2] - box[0] > box[3] - box[1]); /* wider than tall */
    free(c.px);
    av_dl_free(&dl);

    /* Rotated 90°, anchored at its end: ink goes from the anchor downwards,
     * left of the baseline, taller than wide. */
    av_dl_init(&dl, 60, 200, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, "Mellow", 40, 20, 20, AV_ANCHOR_END, 1, 0, (av_rgb){0, 0, 0});
    c = draw(&dl);
    assert_true(ink_box(&c, box) > 20);
    assert_true(box[1] >= 18 && box[3] <= 20 + m.width + 2);
    assert_true(box[2] <= 41 && box[0] >= 40 - 20);
    assert_true(box[3] - box[1] > box[2] - box[0]);
    free(c.px);
    av_dl_free(&dl);
}

/* Anti-aliased: text has intermediate grey levels, not just black/white. */
static void test_text_is_antialiased(void **state) {
    (void)state;
    av_dlist dl;
    av_dl_init(&dl, 120, 40, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, "avoid 0.32", 4, 30, 16, AV_ANCHOR_START, 0, 0, (av_rgb){0, 0, 0});
    canvas c = draw(&dl);
    int mid = 0;
    for (int y = 0; y < c.h; y++)
        for (int x = 0; x < c.w; x++)
            if (at(&c, x, y)[0] > 30 && at(&c, x, y)[0] < 225) mid++;
    assert_true(mid > 10);
    free(c.px);
    av_dl_free(&dl);
}

/* A character no font has is drawn as a box, counted as missing. */
static void test_missing_glyph_draws_box(void **state) {
    (void)state;
    const char *pua = "\xF4\x8F\xBF\xBD"; /* U+10FFFD */
    if (av_text_has_glyph(0x10FFFD)) skip();
    av_text_metrics m;
    av_text_measure(pua, 20, 0, &m);
    assert_int_equal(m.missing, 1);
    assert_true(m.width > 5);
    av_dlist dl;
    av_dl_init(&dl, 60, 40, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, pua, 10, 30, 20, AV_ANCHOR_START, 0, 0, (av_rgb){0, 0, 0});
    canvas c = draw(&dl);
    int box[4];
    int n = ink_box(&c, box);
    assert_true(n > 20);
    /* An outline: the box's centre pixel is empty, its edges are inked. */
    int cx = (box[0] + box[2]) / 2, cy = (box[1] + box[3]) / 2;
    assert_true(is_rgb(&c, cx, cy, 255, 255, 255));
    assert_true(is_rgb(&c, box[0], cy, 0, 0, 0));
    free(c.px);
    av_dl_free(&dl);
}

/* Latin (DejaVu) and CJK (Noto) characters both render when installed. */
static void test_cjk_and_accents_render(void **state) {
    (void)state;
    if (!av_text_has_glyph(0x6211) || !av_text_has_glyph(0xEF)) skip();
    av_text_metrics m;
    av_text_measure("我爱深度学习", 16, 0, &m);
    assert_int_equal(m.missing, 0);
    assert_int_equal(m.chars, 6);
    assert_true(m.width >= 6 * 12);
    av_text_measure("naïve café", 16, 0, &m);
    assert_int_equal(m.missing, 0);
    assert_int_equal(m.chars, 10);
}

static void test_shutdown_and_reinit(void **state) {
    (void)state;
    av_text_metrics a, b;
    av_text_measure("query", 15, 0, &a);
    av_text_shutdown();
    av_text_shutdown();
    av_text_measure("query", 15, 0, &b);
    assert_true(a.width == b.width);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmap_matches_matplotlib),
        cmocka_unit_test(test_cmap_clamps_and_survives_nan),
        cmocka_unit_test(test_viridis_luminance_increases),
        cmocka_unit_test(test_cmap_names),
        cmocka_unit_test(test_rects_background_and_clipping),
        cmocka_unit_test(test_hatch_is_grey_with_lines),
        cmocka_unit_test(test_heat_cells_exact_and_masked),
        cmocka_unit_test(test_heat_uneven_cells_clipped),
        cmocka_unit_test(test_heat_downsampling_averages),
        cmocka_unit_test(test_text_measure_grows),
        cmocka_unit_test(test_text_lands_in_its_box),
        cmocka_unit_test(test_text_is_antialiased),
        cmocka_unit_test(test_missing_glyph_draws_box),
        cmocka_unit_test(test_cjk_and_accents_render),
        cmocka_unit_test(test_shutdown_and_reinit),
    };
    return cmocka_run_group_tests_name("plot_raster", tests, NULL, NULL);
}
