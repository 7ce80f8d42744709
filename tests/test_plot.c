/* test_plot.c - figures end to end: layout, PNG and SVG files.
 *
 * These tests check structure, never one font's pixels: figure sizes, the
 * colour at the centre of a cell (away from any printed value), masked cells
 * against weight-0 cells, text chunks, byte-identical reruns, atomic writes
 * on failure, SVG well-formedness and its <text> content.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "render/colormap.h"
#include "render/plot.h"
#include "render/pngout.h"
#include "render/raster.h"
#include "render/textlayout.h"
#include "testutil.h"

/* ---------------------------------------------------------------- fixtures */

typedef struct {
    char *dir;
    int n;
    float *w;
    unsigned char *masked;
    char **labels;
    av_heatmap hm;
    av_plot_meta meta;
} fixture;

static unsigned long long rng_state;

static double rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Row-stochastic random-looking weights; causal sets the upper triangle masked. */
static void fill(fixture *f, int n, int causal) {
    free(f->w);
    free(f->masked);
    if (f->labels)
        for (int k = 0; k < f->n; k++) free(f->labels[k]);
    free(f->labels);
    f->n = n;
    f->w = calloc((size_t)n * n, sizeof *f->w);
    f->masked = calloc((size_t)n * n, 1);
    f->labels = calloc((size_t)n, sizeof *f->labels);
    static const char *words[] = {"I", "love", "deep", "learning", "the", "cat", "sat", "on", "mat"};
    rng_state = 42;
    for (int i = 0; i < n; i++) {
        f->labels[i] = malloc(32);
        snprintf(f->labels[i], 32, "%s", words[i % 9]);
        double tot = 0;
        for (int j = 0; j < n; j++) {
            f->masked[i * n + j] = causal && j > i;
            double e = f->masked[i * n + j] ? 0 : exp(2.0 * rnd());
            f->w[i * n + j] = (float)e;
            tot += e;
        }
        for (int j = 0; j < n; j++) f->w[i * n + j] = (float)(f->w[i * n + j] / tot);
    }
    f->hm = (av_heatmap){.title = "head 0 of 1 \xC2\xB7 positions: sinusoidal \xC2\xB7 mask: none", .n_q = n, .n_k = n,
                         .q_labels = (const char *const *)f->labels, .k_labels = (const char *const *)f->labels,
                         .w = f->w, .masked = f->masked};
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->dir = make_tmpdir();
    f->meta = (av_plot_meta){.software = "attnviz 0.1.0", .description = "attnviz --heads 1 \"I love deep learning\""};
    fill(f, 4, 0);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rm_rf(f->dir);
    free(f->w);
    free(f->masked);
    for (int k = 0; k < f->n; k++) free(f->labels[k]);
    free(f->labels);
    free(f);
    return 0;
}

/* A cut title line keeps every whole word that fits: for each width, the line returned (before its "…") is a
 * run of whole words of s, it fits with the "…", and one more word with the "…" would not fit, each measured
 * here with av_text_measure (the text layout's own width, independent of the cut's code). The cut dropped the
 * last word that fit when fit_text's cut fell right at its end ("hello world foo bar…" fit at 166 px, size 14,
 * and the line read "hello world foo…": break_between(r, ' ') is 0, from rereading the change). */
static void test_title_line_cut_keeps_every_word_that_fits(void **state) {
    (void)state;
    static const char *s = "hello world foo bar baz quux and more words here";
    const char *ell = "\xE2\x80\xA6";
    int checked = 0;
    for (float max_w = 60.0f; max_w <= 320.0f; max_w += 2.0f) {
        char *line = av_plot_fit_title_line(s, 14.0f, max_w);
        assert_non_null(line);
        size_t n = strlen(line);
        if (n < 3 || strcmp(line + n - 3, ell) != 0) { /* whole: it must fit */
            av_text_metrics m;
            av_text_measure(line, 14.0f, 1, &m);
            assert_true(m.width <= max_w);
            free(line);
            continue;
        }
        size_t k = n - 3; /* the words kept */
        assert_true(k > 0 && strncmp(line, s, k) == 0 && (s[k] == ' ' || s[k] == 0));
        char next[128];
        const char *end = strchr(s + k + 1, ' ');
        size_t m_len = end ? (size_t)(end - s) : strlen(s);
        snprintf(next, sizeof next, "%.*s%s", (int)m_len, s, ell);
        av_text_metrics fits, more;
        av_text_measure(line, 14.0f, 1, &fits);
        av_text_measure(next, 14.0f, 1, &more);
        if (!(fits.width <= max_w)) fail_msg("at %.0f px '%s' is %.1f px wide", max_w, line, fits.width);
        if (!(more.width > max_w))
            fail_msg("at %.0f px the line is '%s', but '%s' fits too (%.1f px)", max_w, line, next, more.width);
        checked++;
        free(line);
    }
    assert_true(checked > 20);
}

/* A Korean title line is cut after a whole word: Korean separates its words with spaces and breaks lines only
 * there (CSS Text 3 word-break: keep-all), while the cut broke between any two Hangul syllables as between Han
 * characters, so at 60 px the line read "나는 오…". For each width, what is kept before the "…" is a run of whole
 * words of s, and a line that is not cut fits. */
static void test_title_line_cut_keeps_korean_words_whole(void **state) {
    (void)state;
    static const char *s = "나는 오늘 아침에 도서관에서 어텐션메커니즘에 관한 아주 긴 책을 읽었습니다";
    int checked = 0;
    for (float max_w = 60.0f; max_w <= 560.0f; max_w += 4.0f) {
        char *line = av_plot_fit_title_line(s, 14.0f, max_w);
        assert_non_null(line);
        size_t n = strlen(line);
        if (n >= 3 && strcmp(line + n - 3, "\xE2\x80\xA6") == 0) {
            size_t k = n - 3;
            if (!(k > 0 && strncmp(line, s, k) == 0 && (s[k] == ' ' || s[k] == 0)))
                fail_msg("at %.0f px the line is '%s', cut inside a word", max_w, line);
            checked++;
        } else {
            av_text_metrics m;
            av_text_measure(line, 14.0f, 1, &m);
            assert_true(m.width <= max_w);
        }
        free(line);
    }
    assert_true(checked > 20);
}

static const char *in_dir(const fixture *f, const char *name) {
    static char buf[4][4200];
    static int slot;
    char *p = buf[slot++ % 4];
    snprintf(p, 4200, "%s/%s", f->dir, name);
    return p;
}

static void read_png(const char *path, av_png_image *img) {
    av_err e = {{0}};
    assert_int_equal(av_png_read(path, img, &e), AV_OK);
}

static void pixel(const av_png_image *img, int x, int y, unsigned char out[3]) {
    assert_true(x >= 0 && y >= 0 && x < img->width && y < img->height);
    memcpy(out, img->rgb + ((size_t)y * img->width + x) * 3, 3);
}

#define slurp tu_slurp_file

/* ---------------------------------------------------------------- sizes */

static void figure_size(fixture *f, int n, int *w, int *h) {
    fill(f, n, 0);
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    *w = dl.width;
    *h = dl.height;
    av_dl_free(&dl);
}

static void test_size_grows_with_tokens_and_stays_bounded(void **state) {
    fixture *f = *state;
    static const int ns[] = {1, 2, 4, 6, 40, 200, 512};
    int pw = 0, ph = 0;
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int w, h;
        figure_size(f, ns[k], &w, &h);
        assert_true(w >= 300 && h >= 300);
        assert_true(w <= 2400 && h <= 2400);
        if (ns[k] >= 4) {
            assert_true(w >= pw);
            assert_true(h >= ph);
        }
        if (ns[k] == 4) assert_true(w >= 500 && w <= 800); /* like the matplotlib reference, a bit larger */
        pw = w, ph = h;
    }
}

static void test_png_dimensions_match_layout(void **state) {
    fixture *f = *state;
    const char *path = in_dir(f, "h.png");
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_OK);
    av_dlist dl;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    av_png_image img;
    read_png(path, &img);
    assert_int_equal(img.width, dl.width);
    assert_int_equal(img.height, dl.height);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- colours */

/* Pixel at (x, y) of a freshly written head figure of f. */
static void cell_pixel_check(fixture *f, int corner) {
    const char *path = in_dir(f, "c.png");
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_OK);
    av_dlist dl;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *panel = av_plot_panel(&dl, 0);
    assert_non_null(panel);
    assert_null(av_plot_panel(&dl, 1));
    av_png_image img;
    read_png(path, &img);
    int checked = 0;
    for (int i = 0; i < f->n; i += 3) {
        for (int j = 0; j < f->n; j += 3) {
            if (f->masked[i * f->n + j]) continue;
            int b[4];
            assert_int_equal(av_dl_cell_box(panel, i, j, b), 0);
            /* Centre when no value is printed; else 3 px inside the corner. */
            int x = corner ? b[0] + 3 : (b[0] + b[2]) / 2, y = corner ? b[1] + 3 : (b[1] + b[3]) / 2;
            unsigned char got[3], want[3];
            pixel(&img, x, y, got);
            av_cmap_rgb(AV_CMAP_VIRIDIS, f->w[i * f->n + j], want);
            assert_memory_equal(got, want, 3);
            checked++;
        }
    }
    assert_true(checked > 0);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

static void test_cell_centre_is_viridis_of_weight_t40(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    cell_pixel_check(f, 0);
}

static void test_cell_corner_is_viridis_of_weight_t4(void **state) {
    fixture *f = *state;
    fill(f, 4, 0);
    cell_pixel_check(f, 1);
}

static void test_cell_colour_t200_and_causal(void **state) {
    fixture *f = *state;
    fill(f, 200, 1);
    cell_pixel_check(f, 0);
}

/* Masked cells are light grey with hatching: never the colour of weight 0. */
static void test_masked_cell_differs_from_zero_weight(void **state) {
    fixture *f = *state;
    fill(f, 40, 1);
    f->w[1 * 40 + 0] = 0.0f; /* an unmasked zero weight at (1, 0) */
    const char *path = in_dir(f, "m.png");
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_OK);
    av_dlist dl;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *panel = av_plot_panel(&dl, 0);
    av_png_image img;
    read_png(path, &img);
    int b0[4], bm[4];
    av_dl_cell_box(panel, 1, 0, b0);
    av_dl_cell_box(panel, 1, 30, bm);
    unsigned char zero[3], want0[3];
    pixel(&img, (b0[0] + b0[2]) / 2, (b0[1] + b0[3]) / 2, zero);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.0, want0);
    assert_memory_equal(zero, want0, 3);
    /* Every pixel of the masked cell is grey (r = g = b) and light-ish. */
    for (int y = bm[1]; y < bm[3]; y++) {
        for (int x = bm[0]; x < bm[2]; x++) {
            unsigned char m[3];
            pixel(&img, x, y, m);
            assert_int_equal(m[0], m[1]);
            assert_int_equal(m[1], m[2]);
            assert_true(m[0] >= 0x80);
            assert_memory_not_equal(m, zero, 3);
        }
    }
    /* The legend entry is there. */
    int legend = 0;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TEXT && strcmp(dl.items[k].text.utf8, AV_PLOT_LEGEND_WEIGHTS) == 0)
            legend = 1;
    assert_true(legend);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

/* No legend when nothing is masked. */
static void test_no_legend_without_mask(void **state) {
    fixture *f = *state;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TEXT) assert_null(strstr(dl.items[k].text.utf8, "masked"));
    av_dl_free(&dl);
}

/* NaN / Inf are drawn masked, out-of-range values clamp to the ends. */
static void test_nonfinite_and_out_of_range_values(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    f->w[0] = NAN;
    f->w[1] = INFINITY;
    f->w[2] = -0.5f;
    f->w[3] = 2.0f;
    const char *path = in_dir(f, "nan.png");
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_OK);
    av_dlist dl;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *panel = av_plot_panel(&dl, 0);
    av_png_image img;
    read_png(path, &img);
    unsigned char px[4][3], lo[3], hi[3];
    for (int j = 0; j < 4; j++) {
        int b[4];
        av_dl_cell_box(panel, 0, j, b);
        pixel(&img, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, px[j]);
    }
    av_cmap_rgb(AV_CMAP_VIRIDIS, 0.0, lo);
    av_cmap_rgb(AV_CMAP_VIRIDIS, 1.0, hi);
    for (int j = 0; j < 2; j++) {
        assert_int_equal(px[j][0], px[j][1]);
        assert_int_equal(px[j][1], px[j][2]);
        assert_true(px[j][0] >= 0x80);
    }
    assert_memory_equal(px[2], lo, 3);
    assert_memory_equal(px[3], hi, 3);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

/* A row whose keys are all masked is drawn masked, like any masked cell. */
static void test_fully_masked_row_is_masked(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    for (int j = 0; j < 40; j++) {
        f->masked[5 * 40 + j] = 1;
        f->w[5 * 40 + j] = 0.0f;
    }
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *panel = av_plot_panel(&dl, 0);
    for (int j = 0; j < 40; j++) {
        av_rgb c;
        assert_int_equal(av_heat_cell_color(&panel->heat, 5, j, &c), 1);
    }
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- text */

static int count_text(const av_dlist *dl, const char *s) {
    int n = 0;
    for (size_t k = 0; k < dl->n; k++)
        if (dl->items[k].kind == AV_DL_TEXT && strcmp(dl->items[k].text.utf8, s) == 0) n++;
    return n;
}

static void test_axis_titles_labels_and_values(void **state) {
    fixture *f = *state;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, "query (row)"), 1);
    assert_int_equal(count_text(&dl, "key (column)"), 1);
    assert_int_equal(count_text(&dl, "love"), 2); /* once per axis */
    assert_int_equal(count_text(&dl, "learning"), 2);
    for (int t = 0; t <= 10; t += 2) {
        char num[8];
        snprintf(num, sizeof num, "%.1f", t / 10.0);
        assert_int_equal(count_text(&dl, num), 1); /* colour bar ticks */
    }
    /* T = 4: every cell's value is printed, in the ink that contrasts. */
    int values = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_TEXT || strlen(it->text.utf8) != 4 || it->text.utf8[1] != '.') continue;
        if (it->text.x > av_plot_panel(&dl, 0)->x1) continue; /* colour bar tick */
        values++;
    }
    assert_int_equal(values, 16);
    av_dl_free(&dl);

    fill(f, 40, 0);
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    char v[8];
    snprintf(v, sizeof v, "%.2f", (double)f->w[0]);
    assert_int_equal(count_text(&dl, v), 0); /* cells too small for values */
    av_dl_free(&dl);
}

/* Labels never overlap: drawn labels on each axis are at least one line
 * apart (rotated x labels) or one label width apart (horizontal). */
static void test_labels_thinned_without_overlap(void **state) {
    fixture *f = *state;
    static const int ns[] = {4, 40, 100, 200, 512};
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        fill(f, ns[c], 0);
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
        const av_dl_item *panel = av_plot_panel(&dl, 0);
        float last_y = -1e9f, last_x = -1e9f, last_w = 0;
        int ny = 0, nx = 0;
        for (size_t k = 0; k < dl.n; k++) {
            const av_dl_item *it = &dl.items[k];
            if (it->kind != AV_DL_TEXT) continue;
            av_text_metrics m;
            av_text_measure(it->text.utf8, it->text.size, 0, &m);
            if (it->text.x < panel->x0 && !it->text.rot90) { /* query label */
                assert_true(it->text.y - last_y >= it->text.size * 1.1f);
                last_y = it->text.y;
                ny++;
            } else if (it->text.y > panel->y1 && it->text.y < panel->y1 + 30 && it->text.x <= panel->x1 + 2) { /* key label */
                if (it->text.rot90) assert_true(it->text.x - last_x >= it->text.size * 1.1f);
                else assert_true(it->text.x - last_x >= (m.width + last_w) / 2);
                last_x = it->text.x;
                last_w = m.width;
                nx++;
            }
        }
        assert_true(ny >= 4 && nx >= 4);
        assert_true(ny <= ns[c] && nx <= ns[c]);
        av_dl_free(&dl);
    }
}

/* Chinese key labels stay upright when a long Latin token turns the key
 * labels 90 degrees (UAX #50: wide characters are set upright in vertical
 * text): for 注 意 力 Transformer 的, the four characters are horizontal,
 * centred under their columns and below the ticks, and only Transformer is
 * rotated. With no long token nothing is rotated. */
static void test_cjk_key_labels_stay_upright(void **state) {
    fixture *f = *state;
    static const char *const words[] = {"\xE6\xB3\xA8", "\xE6\x84\x8F", "\xE5\x8A\x9B", "Transformer", "\xE7\x9A\x84"};
    for (int round = 0; round < 2; round++) {
        fill(f, 5, 0);
        for (int k = 0; k < 5; k++) {
            free(f->labels[k]);
            f->labels[k] = strdup(round == 1 && k == 3 ? "\xE6\xA0\xB8" : words[k]); /* round 1: 核, no long token */
        }
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
        const av_dl_item *panel = av_plot_panel(&dl, 0);
        float cell = (float)(panel->x1 - panel->x0) / 5.0f;
        int upright = 0, rotated = 0;
        for (size_t k = 0; k < dl.n; k++) {
            const av_dl_item *it = &dl.items[k];
            if (it->kind != AV_DL_TEXT || it->text.y <= panel->y1 || it->text.x > panel->x1 + 2) continue;
            int j = -1;
            for (int w = 0; w < 5; w++)
                if (strcmp(it->text.utf8, f->labels[w]) == 0) j = w;
            if (j < 0) continue; /* the axis title */
            if (j == 3 && round == 0) {
                assert_int_equal(it->text.rot90, 1);
                rotated++;
            } else {
                assert_int_equal(it->text.rot90, 0);
                assert_int_equal(it->text.anchor, AV_ANCHOR_MIDDLE);
                assert_true(fabsf(it->text.x - (panel->x0 + (j + 0.5f) * cell)) <= 1.5f);
                assert_true(it->text.y > panel->y1 + it->text.size * 0.5f); /* below the ticks */
                upright++;
            }
        }
        assert_int_equal(rotated, round == 0 ? 1 : 0);
        assert_int_equal(upright, round == 0 ? 4 : 5);
        av_dl_free(&dl);
    }
}

static void test_long_label_cut_with_ellipsis(void **state) {
    fixture *f = *state;
    free(f->labels[2]);
    f->labels[2] = strdup("supercalifragilisticexpialidocious_and_then_some_more");
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    int cut = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_TEXT || strncmp(it->text.utf8, "supercali", 9) != 0) continue;
        size_t n = strlen(it->text.utf8);
        assert_true(n >= 3 && strcmp(it->text.utf8 + n - 3, "\xE2\x80\xA6") == 0);
        av_text_metrics m;
        av_text_measure(it->text.utf8, it->text.size, 0, &m);
        assert_true(m.width <= 151.0f);
        cut++;
    }
    assert_int_equal(cut, 2);
    assert_true(dl.width <= 1000);
    av_dl_free(&dl);
}

static void test_long_title_wraps_inside_figure(void **state) {
    fixture *f = *state;
    f->hm.title = "head 0 of 8 \xC2\xB7 positions: sinusoidal \xC2\xB7 mask: causal \xC2\xB7 "
                  "d_model = 512 \xC2\xB7 seed 1234 \xC2\xB7 temperature 1.0 \xC2\xB7 a rather long note";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    int lines = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_TEXT || !it->text.bold) continue;
        av_text_metrics m;
        av_text_measure(it->text.utf8, it->text.size, 1, &m);
        assert_true(it->text.x - m.width / 2 >= 0 && it->text.x + m.width / 2 <= dl.width);
        lines++;
    }
    assert_true(lines >= 2);
    av_dl_free(&dl);
}

/* x of the map (the data heat item), of the colour bar's ramp and of the
 * "query (row)" axis title, for the centring test below. */
static void single_xs(const av_dlist *dl, int *map_x, int *ramp_x, float *qtitle_x) {
    *map_x = *ramp_x = -1;
    *qtitle_x = -1;
    for (size_t k = 0; k < dl->n; k++) {
        const av_dl_item *it = &dl->items[k];
        if (it->kind == AV_DL_HEAT) *(it->heat.ramp ? ramp_x : map_x) = it->x0;
        if (it->kind == AV_DL_TEXT && strcmp(it->text.utf8, "query (row)") == 0) *qtitle_x = it->text.x;
    }
}

/* A title piece wider than the map and its key (the README's --weights
 * example names a folder: "W_Q, W_K, W_V, W_O loaded from /usr/local/share/
 * attnviz/weights/identity-d8; X random ...") widens the figure; the map,
 * its labels, axis titles and colour bar used to stay at the left with the
 * added width empty on the right. Now all of them move right by half the
 * added width, so the margins left and right of them are equal. */
static void test_title_wider_than_the_map_centres_the_map(void **state) {
    fixture *f = *state;
    av_dlist narrow, wide;
    av_err e;
    f->hm.title = "head 0 of 1 \xC2\xB7 mask: none";
    assert_int_equal(av_plot_layout_head(&narrow, &f->hm, &f->meta, &e), AV_OK);
    f->hm.title = "head 0 of 1 \xC2\xB7 W_Q, W_K, W_V, W_O loaded from /usr/local/share/attnviz/weights/"
                  "identity-d8; X random (untrained, seed 42) \xC2\xB7 mask: none";
    assert_int_equal(av_plot_layout_head(&wide, &f->hm, &f->meta, &e), AV_OK);
    assert_true(wide.width > narrow.width + 100);
    int shift = (wide.width - narrow.width) / 2;
    int map_n, ramp_n, map_w, ramp_w;
    float q_n, q_w;
    single_xs(&narrow, &map_n, &ramp_n, &q_n);
    single_xs(&wide, &map_w, &ramp_w, &q_w);
    assert_true(map_n > 0 && ramp_n > map_n && q_n > 0);
    assert_int_equal(map_w, map_n + shift);
    assert_int_equal(ramp_w, ramp_n + shift);
    assert_float_equal(q_w, q_n + shift, 1e-3);
    int right_n = narrow.width - ramp_n, right_w = wide.width - ramp_w; /* margin right of the ramp */
    assert_true(abs(right_w - (right_n + shift)) <= 1);                  /* rounding of an odd difference */
    av_dl_free(&narrow);
    av_dl_free(&wide);
}

/* The bold title lines of a laid-out figure, top to bottom (they are
 * emitted in that order), into lines[]; returns how many. */
static int title_lines_of(const av_dlist *dl, const char **lines, int max) {
    int n = 0;
    for (size_t k = 0; k < dl->n && n < max; k++)
        if (dl->items[k].kind == AV_DL_TEXT && dl->items[k].text.bold) lines[n++] = dl->items[k].text.utf8;
    return n;
}

/* Bold width of pieces[from..to) joined with " · ", px. */
static float joined_w(const char *const *pieces, int from, int to, float size) {
    char buf[1024] = "";
    for (int i = from; i < to; i++) {
        if (i > from) strcat(buf, " \xC2\xB7 ");
        strcat(buf, pieces[i]);
    }
    av_text_metrics m;
    av_text_measure(buf, size, 1, &m);
    return m.width;
}

/* The narrowest widest line over every split of pieces[0..n) into `lines`
 * runs of consecutive pieces (all of them tried), px. */
static float best_split(const char *const *pieces, int n, int lines, int from, float size) {
    if (lines == 1) return joined_w(pieces, from, n, size);
    float best = 1e9f;
    for (int end = from + 1; end <= n - (lines - 1); end++) {
        float w = fmaxf(joined_w(pieces, from, end, size), best_split(pieces, n, lines - 1, end, size));
        best = fminf(best, w);
    }
    return best;
}

/* A title of " · " pieces that wraps (no --title) has even lines: greedy
 * filling had left "... · positions: sinusoidal" over a lone "mask: none"
 * in the README's grid figure. The lines, joined with " · ", give the title
 * back; and the widest of them is as narrow as any split of the pieces into
 * that many lines can make it (every split measured whole; 1 px for the
 * rounding of the bisection). */
static void test_wrapped_title_lines_are_balanced(void **state) {
    fixture *f = *state;
    /* greedy filling gave lines of 6, 6, 6 and 3 of these (585 px widest); balanced, 6, 5, 5, 5 (510 px) */
    static const char *const pieces[] = {"head 0", "head 1", "head 2", "head 3", "head 4", "head 5", "head 6",
                                         "head 7", "head 8", "head 9", "head 10", "head 11", "head 12",
                                         "head 13", "head 14", "head 15", "head 16", "head 17", "head 18",
                                         "head 19", "head 20"};
    const int n = 21;
    char title[512] = "";
    for (int i = 0; i < n; i++) {
        if (i) strcat(title, " \xC2\xB7 ");
        strcat(title, pieces[i]);
    }
    f->hm.title = title;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const char *lines[16];
    int nl = title_lines_of(&dl, lines, 16);
    assert_true(nl >= 2);
    char joined[512] = "";
    float widest = 0, size = 0;
    for (int k = 0; k < nl; k++) {
        if (k) strcat(joined, " \xC2\xB7 ");
        strcat(joined, lines[k]);
        for (size_t i = 0; i < dl.n; i++)
            if (dl.items[i].kind == AV_DL_TEXT && dl.items[i].text.utf8 == lines[k]) size = dl.items[i].text.size;
        av_text_metrics m;
        av_text_measure(lines[k], size, 1, &m);
        widest = fmaxf(widest, m.width);
        printf("    %s (%.1f px)\n", lines[k], m.width);
    }
    assert_string_equal(joined, title);
    float best = best_split(pieces, n, nl, 0, size);
    printf("    widest line %.1f px, best split into %d lines %.1f px\n", widest, nl, best);
    assert_true(widest <= best + 1.0f);
    av_dl_free(&dl);
}


/* --title TEXT wider than the figure was cut with "…" on one line: "Attention
 * of a small untrained Transformer on a classic exa…" lost the rest. Now it
 * wraps: in English at spaces, so its lines joined with one space give the
 * title back, whole, on 2 or 3 lines; in Chinese between characters (no
 * spaces), so the lines joined give the title back, and no line starts
 * with "，" or "。" (they close the clause before them); the rest of the
 * title (" · head 0 of 1 · ...") starts a line of its own. Each line fits
 * the figure, which grows in height by the lines added. Past 3 lines the
 * user's title is cut with "…" on its third. A figure without --title
 * (user_title 0) still cuts its long quoted sentence on one line. */
static void test_long_user_title_wraps_at_spaces_and_between_cjk_characters(void **state) {
    fixture *f = *state;
    static const char *const en = "Attention of a small untrained Transformer on a classic example sentence, "
                                  "shown at our lab meeting in week twelve";
    static const char *const zh = "\xE4\xB8\x80\xE4\xB8\xAA\xE6\x9C\xAA\xE7\xBB\x8F\xE8\xAE\xAD\xE7\xBB\x83\xE7"
                                  "\x9A\x84\xE5\xB0\x8F\xE5\x9E\x8B\xE6\xA8\xA1\xE5\x9E\x8B\xE5\x9C\xA8\xE7\xBB"
                                  "\x8F\xE5\x85\xB8\xE4\xBE\x8B\xE5\x8F\xA5\xE4\xB8\x8A\xE7\x9A\x84\xE6\xB3\xA8"
                                  "\xE6\x84\x8F\xE5\x8A\x9B\xEF\xBC\x8C\xE7\x94\xA8\xE4\xBA\x8E\xE7\xAC\xAC\xE5"
                                  "\x8D\x81\xE4\xBA\x8C\xE5\x91\xA8\xE7\xBB\x84\xE4\xBC\x9A\xE7\x9A\x84\xE8\xAE"
                                  "\xA8\xE8\xAE\xBA\xEF\xBC\x8C\xE5\xB9\xB6\xE9\x99\x84\xE4\xB8\x8A\xE8\xAF\xB4"
                                  "\xE6\x98\x8E\xE3\x80\x82";
    /* 一个未经训练的小型模型在经典例句上的注意力，用于第十二周组会的讨论，并附上说明。 */
    static const char *const rest = " \xC2\xB7 head 0 of 1 \xC2\xB7 mask: none";
    char title[1024];
    av_err e;
    av_dlist dl;
    snprintf(title, sizeof title, "short%s", rest);
    f->hm.title = title;
    f->meta.user_title = strlen("short");
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const char *lines[16];
    int short_lines = title_lines_of(&dl, lines, 16), short_h = dl.height, fig_w = dl.width;
    av_dl_free(&dl);
    for (int lang = 0; lang < 2; lang++) {
        const char *user = lang ? zh : en;
        snprintf(title, sizeof title, "%s%s", user, rest);
        f->meta.user_title = strlen(user);
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
        assert_int_equal(dl.width, fig_w); /* the user's title never widens the figure */
        int n = title_lines_of(&dl, lines, 16);
        char joined[1024] = "";
        int k = 0;
        for (; k < n && strncmp(lines[k], "head 0", 6) != 0; k++) {
            printf("    %s\n", lines[k]);
            if (strstr(lines[k], "\xE2\x80\xA6")) fail_msg("title line '%s' is cut", lines[k]);
            if (!strncmp(lines[k], "\xEF\xBC\x8C", 3) || !strncmp(lines[k], "\xE3\x80\x82", 3))
                fail_msg("title line '%s' starts with closing punctuation", lines[k]);
            if (k && !lang) strcat(joined, " ");
            strcat(joined, lines[k]);
        }
        if (k < 2 || k > 3) fail_msg("the user's title is on %d lines, want 2 or 3", k);
        assert_string_equal(joined, user);
        for (size_t i = 0; i < dl.n; i++) { /* every title line inside the figure */
            const av_dl_item *it = &dl.items[i];
            if (it->kind != AV_DL_TEXT || !it->text.bold) continue;
            av_text_metrics m;
            av_text_measure(it->text.utf8, it->text.size, 1, &m);
            assert_true(it->text.x - m.width / 2 >= 0 && it->text.x + m.width / 2 <= dl.width);
        }
        /* taller by the lines added: 18 px titles at 1.2 line height */
        assert_true(dl.height >= short_h + (int)((n - short_lines) * 18 * 1.2f) - 1);
        av_dl_free(&dl);
    }
    /* 40 words: 3 lines, the third cut */
    char many[512] = "";
    for (int w = 0; w < 40; w++) snprintf(many + strlen(many), sizeof many - strlen(many), "%sword%d", w ? " " : "", w);
    snprintf(title, sizeof title, "%s%s", many, rest);
    f->meta.user_title = strlen(many);
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    int n = title_lines_of(&dl, lines, 16), k = 0;
    while (k < n && strncmp(lines[k], "head 0", 6) != 0) k++;
    assert_int_equal(k, 3);
    assert_non_null(strstr(lines[2], "\xE2\x80\xA6"));
    assert_true(!strncmp(lines[0], "word0 word1 ", 12));
    av_dl_free(&dl);
    /* no --title: a generated piece wider than 10 in (a long --weights folder) widens the figure to 1000 px
     * and wraps there like the user's, 3 lines, the third cut (it widened the figure to 2400 px and was
     * cut on one line, the map a small part of the figure) */
    f->meta.user_title = 0;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    assert_int_equal(dl.width, 1000);
    n = title_lines_of(&dl, lines, 16);
    assert_true(!strncmp(lines[0], "word0 word1 ", 12) && !strstr(lines[0], "\xE2\x80\xA6"));
    assert_true(strstr(lines[2], "\xE2\x80\xA6") && !strncmp(lines[3], "head 0", 6));
    av_dl_free(&dl);
}

/* CJK tokens render with an installed CJK font; characters no font has are
 * counted (they are drawn as boxes). */
static void test_missing_glyphs_counted(void **state) {
    fixture *f = *state;
    static const char *zh[] = {"我", "爱", "深", "度", "学", "习"};
    float w[36];
    for (int k = 0; k < 36; k++) w[k] = 1.0f / 6;
    av_heatmap hm = {.title = "zh", .n_q = 6, .n_k = 6, .q_labels = zh, .k_labels = zh, .w = w};
    av_err e;
    av_plot_reset_missing();
    assert_int_equal(av_plot_head(in_dir(f, "zh.png"), &hm, &f->meta, &e), AV_OK);
    if (av_text_has_glyph(0x6211)) assert_int_equal(av_plot_missing_glyphs(), 0);
    else assert_int_equal(av_plot_missing_glyphs(), 6); /* distinct characters */

    /* U+10FFFD (plane 16 private use) is in no ordinary font. */
    static const char *odd[] = {"a", "\xF4\x8F\xBF\xBD", "\xF0\x9F\x99\x82"};
    float w3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    av_heatmap h3 = {.title = "odd", .n_q = 3, .n_k = 3, .q_labels = odd, .k_labels = odd, .w = w3};
    av_plot_reset_missing();
    assert_int_equal(av_plot_head(in_dir(f, "odd.png"), &h3, &f->meta, &e), AV_OK);
    int want = 0;
    if (!av_text_has_glyph(0x10FFFD)) want++;
    if (!av_text_has_glyph(0x1F642)) want++;
    assert_int_equal(av_plot_missing_glyphs(), want); /* each drawn twice, counted once */
    /* A second figure with the same characters adds nothing. */
    assert_int_equal(av_plot_head(in_dir(f, "odd2.png"), &h3, &f->meta, &e), AV_OK);
    assert_int_equal(av_plot_missing_glyphs(), want);
    av_plot_reset_missing();
    assert_int_equal(av_plot_missing_glyphs(), 0);
}

/* ---------------------------------------------------------------- PNG file */

static void test_png_text_chunks_round_trip(void **state) {
    fixture *f = *state;
    const char *path = in_dir(f, "t.png");
    av_plot_meta meta = f->meta;
    meta.description = "attnviz --heads 2 \"我爱深度学习\" --seed 7";
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &meta, &e), AV_OK);
    av_png_image img;
    read_png(path, &img);
    assert_string_equal(av_png_image_text(&img, "Software"), "attnviz 0.1.0");
    assert_string_equal(av_png_image_text(&img, "Title"), f->hm.title); /* Latin-1 "·" → tEXt */
    assert_string_equal(av_png_image_text(&img, "Description"), meta.description); /* CJK → iTXt */
    assert_int_equal(img.has_time, 0);
    assert_true(fabs(img.dpi - 100.0) < 0.05);
    av_png_image_free(&img);

    meta.dpi = 300;
    assert_int_equal(av_plot_head(path, &f->hm, &meta, &e), AV_OK);
    read_png(path, &img);
    assert_true(fabs(img.dpi - 300.0) < 0.05);
    av_png_image_free(&img);
}

static void test_rerun_is_byte_identical(void **state) {
    fixture *f = *state;
    fill(f, 6, 1);
    const char *a = in_dir(f, "a.png"), *b = in_dir(f, "b.png");
    av_err e;
    assert_int_equal(av_plot_head(a, &f->hm, &f->meta, &e), AV_OK);
    assert_int_equal(av_plot_head(b, &f->hm, &f->meta, &e), AV_OK);
    size_t la, lb;
    char *da = slurp(a, &la), *db = slurp(b, &lb);
    assert_true(la > 1000);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

/* The figure of one sentence (labels: its words; title: the sentence, bold)
 * as PNG and SVG files and as RGB pixels, into out[0..2] (owned), with the
 * text layer in one of three states:
 *   0  fresh, bundled fonts: the bundled faces straight from FreeType
 *   1  fresh, bundled fonts, av_text_use_fast_path(0): every font from
 *      fontconfig's lists (the way before issue 13)
 *   2  bundled fonts, fontconfig started first by a Chinese label (its
 *      faces loaded before any of the figure's), then the figure. */
typedef struct {
    char *data[3];
    size_t len[3];
    int fontconfig; /* av_text_fontconfig_loaded() once the figure is drawn */
} figure_bytes;

static void figure_in_mode(fixture *f, const char *sentence, const char *const *words, int n, int mode,
                           figure_bytes *out) {
    char reg[4200], bold[4200];
    snprintf(reg, sizeof reg, "%s", src_path("assets/fonts/DejaVuSans.ttf"));
    snprintf(bold, sizeof bold, "%s", src_path("assets/fonts/DejaVuSans-Bold.ttf"));
    const char *const files[2] = {reg, bold};
    av_text_shutdown();
    assert_int_equal(av_text_use_fonts(files, 2), 2);
    if (mode == 1) av_text_use_fast_path(0);
    if (mode == 2) {
        av_text_metrics m;
        av_text_measure("我爱深度学习", 12, 0, &m);
        assert_int_equal(av_text_fontconfig_loaded(), 1);
    }
    float w[64];
    for (int k = 0; k < n * n; k++) w[k] = (float)((k * 7) % 11) / 10.0f;
    av_heatmap hm = {.title = sentence, .n_q = n, .n_k = n, .q_labels = words, .k_labels = words, .w = w};
    av_err e;
    const char *png = in_dir(f, "same.png"), *svg = in_dir(f, "same.svg");
    assert_int_equal(av_plot_head(png, &hm, &f->meta, &e), AV_OK);
    assert_int_equal(av_plot_head(svg, &hm, &f->meta, &e), AV_OK);
    out->data[0] = slurp(png, &out->len[0]);
    out->data[1] = slurp(svg, &out->len[1]);
    av_dlist dl;
    unsigned char *rgb;
    size_t stride;
    assert_int_equal(av_plot_layout_head(&dl, &hm, &f->meta, &e), AV_OK);
    assert_int_equal(av_raster_render(&dl, &rgb, &stride, &e), AV_OK);
    out->len[2] = stride * (size_t)dl.height;
    out->data[2] = malloc(out->len[2]);
    assert_non_null(out->data[2]);
    memcpy(out->data[2], rgb, out->len[2]);
    av_big_free(rgb);
    av_dl_free(&dl);
    out->fontconfig = av_text_fontconfig_loaded();
    if (mode == 1) av_text_use_fast_path(1);
}

/* Issue 13: the bundled faces taken without fontconfig draw exactly the
 * figure fontconfig's choice draws: PNG bytes, SVG bytes and pixels the
 * same for an ASCII sentence (drawn without starting fontconfig at all), a
 * mixed Latin + Chinese one and an Arabic one, whichever way (and in which
 * order) the fonts were loaded. */
static void test_fast_fonts_draw_the_same_figure(void **state) {
    fixture *f = *state;
    static const char *const ascii[] = {"I", "love", "deep", "learning"};
    static const char *const mixed[] = {"I", "love", "深度", "学习"};
    static const char *const arabic[] = {"أحب", "التعلم", "العميق", "2"};
    static const struct {
        const char *sentence;
        const char *const *words;
    } cases[] = {{"I love deep learning", ascii}, {"I love 深度学习", mixed}, {"أحب التعلم العميق 2", arabic}};
    static const char *const what[3] = {"PNG", "SVG", "RGB"};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        figure_bytes fig[3];
        for (int mode = 0; mode < 3; mode++) {
            figure_in_mode(f, cases[c].sentence, cases[c].words, 4, mode, &fig[mode]);
            assert_int_equal(fig[mode].fontconfig, c > 0 || mode > 0); /* ASCII, bundled faces: never started */
        }
        for (int mode = 1; mode < 3; mode++)
            for (int k = 0; k < 3; k++) {
                assert_non_null(fig[0].data[k]);
                assert_non_null(fig[mode].data[k]);
                if (fig[0].len[k] != fig[mode].len[k] || memcmp(fig[0].data[k], fig[mode].data[k], fig[0].len[k]) != 0)
                    fail_msg("'%s': %s differs between the bundled faces and fonts way %d", cases[c].sentence, what[k],
                             mode);
            }
        for (int mode = 0; mode < 3; mode++)
            for (int k = 0; k < 3; k++) free(fig[mode].data[k]);
    }
    av_text_shutdown(); /* the other tests run without the bundled fonts */
}

static void test_missing_folder_fails_cleanly(void **state) {
    fixture *f = *state;
    const char *path = in_dir(f, "no/such/folder/h.png");
    av_err e = {{0}};
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_ERUNTIME);
    assert_non_null(strstr(e.msg, tu_sh_word(path)));
    assert_int_equal(count_entries(f->dir), 0);
}

static void test_path_that_is_a_folder_fails_cleanly(void **state) {
    fixture *f = *state;
    const char *path = in_dir(f, "sub");
    assert_int_equal(mkdir(path, 0755), 0);
    av_err e = {{0}};
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_ERUNTIME);
    assert_non_null(strstr(e.msg, tu_sh_word(path)));
    assert_int_equal(count_entries(f->dir), 1); /* only "sub" */
    assert_int_equal(count_entries(path), 0);
    const char *svg = in_dir(f, "sub.svg");
    assert_int_equal(mkdir(svg, 0755), 0);
    assert_int_equal(av_plot_head(svg, &f->hm, &f->meta, &e), AV_ERUNTIME);
    assert_int_equal(count_entries(f->dir), 2);
}

/* A write that fails half-way (file size limit → EFBIG) leaves the older
 * figure untouched and no temporary behind. Runs in a child process. */
static void test_existing_file_survives_failed_write(void **state) {
    fixture *f = *state;
    const char *path = in_dir(f, "keep.png");
    FILE *fp = fopen(path, "wb");
    fputs("old figure", fp);
    fclose(fp);
    fill(f, 200, 0); /* a PNG of well over 4 KiB */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        av_err e = {{0}};
        av_status st = av_plot_head(path, &f->hm, &f->meta, &e);
        _exit(st == AV_ERUNTIME && strstr(e.msg, tu_sh_word(path)) ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    size_t len;
    char *data = slurp(path, &len);
    assert_string_equal(data, "old figure");
    free(data);
    assert_int_equal(count_entries(f->dir), 1);
}

static void test_bad_shapes_are_errors(void **state) {
    fixture *f = *state;
    av_heatmap hm = f->hm;
    av_err e;
    hm.n_q = 0;
    assert_int_equal(av_plot_head(in_dir(f, "x.png"), &hm, &f->meta, &e), AV_ERUNTIME);
    hm = f->hm;
    hm.w = NULL;
    assert_int_equal(av_plot_head(in_dir(f, "x.png"), &hm, &f->meta, &e), AV_ERUNTIME);
    assert_int_equal(av_plot_grid(in_dir(f, "x.png"), &f->hm, 0, "t", &f->meta, &e), AV_ERUNTIME);
    assert_int_equal(count_entries(f->dir), 0);
}

/* ---------------------------------------------------------------- grid */

static void test_grid_panels_in_four_columns(void **state) {
    fixture *f = *state;
    av_heatmap hms[8];
    for (int h = 0; h < 8; h++) hms[h] = f->hm;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, 8, "8 heads", &f->meta, &e), AV_OK);
    for (int p = 0; p < 8; p++) {
        const av_dl_item *a = av_plot_panel(&dl, p);
        assert_non_null(a);
        if (p % 4) assert_true(a->x0 > av_plot_panel(&dl, p - 1)->x1); /* right of its neighbour */
        if (p >= 4) {
            assert_int_equal(a->x0, av_plot_panel(&dl, p - 4)->x0); /* under the panel above */
            assert_true(a->y0 > av_plot_panel(&dl, p - 4)->y1);
        }
        char name[32];
        snprintf(name, sizeof name, "head %d", p);
        assert_int_equal(count_text(&dl, name), 1);
    }
    assert_null(av_plot_panel(&dl, 8));
    assert_int_equal(count_text(&dl, "1.0"), 1); /* one shared colour bar */
    assert_true(dl.width > dl.height);
    av_dl_free(&dl);

    const char *path = in_dir(f, "grid.png");
    assert_int_equal(av_plot_grid(path, hms, 8, "8 heads", &f->meta, &e), AV_OK);
    av_png_image img;
    read_png(path, &img);
    assert_string_equal(av_png_image_text(&img, "Title"), "8 heads");
    av_png_image_free(&img);
}

static void test_grid_many_heads_many_tokens_bounded(void **state) {
    fixture *f = *state;
    fill(f, 512, 1);
    av_heatmap hms[64];
    for (int h = 0; h < 64; h++) hms[h] = f->hm;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, 64, "64 heads", &f->meta, &e), AV_OK);
    assert_true(dl.width <= 2400 && dl.height <= 2400);
    assert_non_null(av_plot_panel(&dl, 63));
    av_dl_free(&dl);

    av_heatmap two[2] = {f->hm, f->hm};
    two[1].n_k = 3;
    assert_int_equal(av_plot_layout_grid(&dl, two, 2, "x", &f->meta, &e), AV_ERUNTIME);
    av_dl_free(&dl);
}

/* Grid with T = 40: cells are too small for values; colours still exact. */
static void test_grid_cell_colour(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    av_heatmap hms[3] = {f->hm, f->hm, f->hm};
    const char *path = in_dir(f, "g3.png");
    av_err e;
    assert_int_equal(av_plot_grid(path, hms, 3, "three", &f->meta, &e), AV_OK);
    av_dlist dl;
    assert_int_equal(av_plot_layout_grid(&dl, hms, 3, "three", &f->meta, &e), AV_OK);
    av_png_image img;
    read_png(path, &img);
    const av_dl_item *panel = av_plot_panel(&dl, 2);
    int b[4];
    av_dl_cell_box(panel, 7, 9, b);
    unsigned char got[3], want[3];
    pixel(&img, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, got);
    av_cmap_rgb(AV_CMAP_VIRIDIS, f->w[7 * 40 + 9], want);
    assert_memory_equal(got, want, 3);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- SVG */

static void test_svg_well_formed_with_text(void **state) {
    fixture *f = *state;
    static const char *labels[] = {"我", "naïve", "a<b&c", "\"q\""};
    fill(f, 4, 1);
    f->hm.q_labels = labels;
    f->hm.k_labels = labels;
    const char *path = in_dir(f, "fig.svg");
    av_err e;
    assert_int_equal(av_plot_head(path, &f->hm, &f->meta, &e), AV_OK);
    size_t len;
    char *svg = slurp(path, &len);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, ">我</text>"));
    assert_non_null(strstr(svg, ">naïve</text>"));
    assert_non_null(strstr(svg, ">a&lt;b&amp;c</text>"));
    assert_non_null(strstr(svg, ">&quot;q&quot;</text>"));
    assert_non_null(strstr(svg, ">query (row)</text>"));
    assert_non_null(strstr(svg, "DejaVu Sans"));
    assert_non_null(strstr(svg, "Noto Sans CJK SC"));
    assert_non_null(strstr(svg, "url(#hatch)"));
    assert_non_null(strstr(svg, "rotate(-90"));
    free(svg);
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char cmd[4400];
        snprintf(cmd, sizeof cmd, "xmllint --noout %s", tu_sh_word(path));
        assert_int_equal(system(cmd), 0);
    }
    /* Grid SVG too; and a large one embeds images instead of 500k rects. */
    av_heatmap hms[2] = {f->hm, f->hm};
    assert_int_equal(av_plot_grid(in_dir(f, "g.svg"), hms, 2, "grid <2>", &f->meta, &e), AV_OK);
    fill(f, 512, 1);
    assert_int_equal(av_plot_head(in_dir(f, "big.svg"), &f->hm, &f->meta, &e), AV_OK);
    svg = slurp(in_dir(f, "big.svg"), &len);
    assert_non_null(strstr(svg, "data:image/png;base64,"));
    assert_true(len < 4u << 20);
    free(svg);
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char cmd[8800];
        snprintf(cmd, sizeof cmd, "xmllint --noout %s %s", tu_sh_word(in_dir(f, "g.svg")), tu_sh_word(in_dir(f, "big.svg")));
        assert_int_equal(system(cmd), 0);
    }
    assert_int_equal(count_entries(f->dir), 3);
}

/* ---------------------------------------------------------------- labels with positions */

/* Thinned token labels carry their index ("2: deep"), so a reader can find a
 * row; labels that are all drawn stay plain. */
static void test_thinned_labels_carry_their_index(void **state) {
    fixture *f = *state;
    static const char *words[] = {"I", "love", "deep", "learning", "the", "cat", "sat", "on", "mat"};
    static const int ns[] = {60, 200, 512};
    for (size_t c = 0; c < 3; c++) {
        fill(f, ns[c], 0);
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
        const av_dl_item *panel = av_plot_panel(&dl, 0);
        int seen = 0;
        for (size_t k = 0; k < dl.n; k++) {
            const av_dl_item *it = &dl.items[k];
            if (it->kind != AV_DL_TEXT || it->text.rot90 || it->text.x >= panel->x0) continue;
            if (it->text.y < panel->y0 || it->text.y > panel->y1 + 20) continue; /* query labels only */
            char want[64];
            int idx = atoi(it->text.utf8);
            snprintf(want, sizeof want, "%d: %s", idx, words[idx % 9]);
            assert_string_equal(it->text.utf8, want);
            seen++;
        }
        assert_true(seen >= 4 && seen < ns[c]);
        av_dl_free(&dl);
    }
    fill(f, 60, 0);
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, "2: deep"), 2); /* both axes thinned to every 2nd */
    assert_int_equal(count_text(&dl, "deep"), 0);
    assert_int_equal(count_text(&dl, "1: love"), 0);
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- panel titles */

static void test_grid_panel_titles(void **state) {
    fixture *f = *state;
    av_heatmap hms[2] = {f->hm, f->hm};
    hms[0].panel_title = "scaled \xC3\xB7\xE2\x88\x9A" "d_k";
    hms[1].panel_title = "no scale";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, 2, "--compare scale", &f->meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, "scaled \xC3\xB7\xE2\x88\x9A" "d_k"), 1);
    assert_int_equal(count_text(&dl, "no scale"), 1);
    assert_int_equal(count_text(&dl, "head 0"), 0);
    assert_int_equal(count_text(&dl, "head 1"), 0);
    av_dl_free(&dl);
    hms[1].panel_title = NULL; /* NULL keeps "head p" */
    assert_int_equal(av_plot_layout_grid(&dl, hms, 2, "t", &f->meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, "head 1"), 1);
    av_dl_free(&dl);
}

/* A text item's box, px: [x0, x1] x [y0, y1], from its measured width, its
 * anchor and rotation; the run's top is 0.76 em above the baseline and its
 * descent 0.24 em below (DejaVu-like, generous for any font). */
static void text_box(const av_dl_text *t, float box[4]) {
    av_text_metrics m;
    av_text_measure(t->utf8, t->size, t->bold, &m);
    float w = m.width, a = t->anchor == AV_ANCHOR_START ? 0 : t->anchor == AV_ANCHOR_MIDDLE ? w / 2 : w;
    if (!t->rot90) {
        box[0] = t->x - a, box[1] = t->x - a + w, box[2] = t->y - 0.76f * t->size, box[3] = t->y + 0.24f * t->size;
    } else { /* turned counter-clockwise: the run goes up from (x, y) */
        box[0] = t->x - 0.76f * t->size, box[1] = t->x + 0.24f * t->size, box[2] = t->y - w + a, box[3] = t->y + a;
    }
}

static int boxes_overlap(const float a[4], const float b[4]) {
    return a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
}

/* The model view of a 1-layer, 64-head model (one row of 64 panels of 4
 * tokens, "L0 H0" ... "L0 H63"): the colour bar once shrank to the ~20 px
 * panels (six tick labels on top of each other, its title running into the
 * legend below) and the panel titles overlapped. Now the bar is at least
 * as tall as six tick labels need (6 x 1.25 x 14 px = 105 px) and as its
 * own rotated title, every text stays on the canvas, no two panel titles
 * touch, and the bar's title and the legend do not overlap. */
static void test_grid_many_small_panels_keep_key_and_titles_apart(void **state) {
    fixture *f = *state;
    fill(f, 4, 1);
    enum { N = 64 };
    av_heatmap hms[N];
    char names[N][16];
    for (int p = 0; p < N; p++) {
        snprintf(names[p], sizeof names[p], "L0 H%d", p);
        hms[p] = f->hm;
        hms[p].panel_title = names[p];
    }
    av_plot_meta meta = f->meta;
    meta.grid_cols = N;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, N, "model view", &meta, &e), AV_OK);
    int ramp_h = -1;
    float title_box[4] = {0}, legend_box[4] = {0}, prev[4] = {0};
    int seen_title = 0, seen_legend = 0, n_panel = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind == AV_DL_HEAT && it->heat.ramp) ramp_h = it->y1 - it->y0;
        if (it->kind != AV_DL_TEXT) continue;
        float b[4];
        text_box(&it->text, b);
        if (b[0] < 0 || b[1] > dl.width || b[2] < 0 || b[3] > dl.height)
            fail_msg("'%s' at (%.0f..%.0f, %.0f..%.0f) leaves the %dx%d canvas", it->text.utf8, b[0], b[1], b[2], b[3],
                     dl.width, dl.height);
        if (strcmp(it->text.utf8, "attention weight") == 0) memcpy(title_box, b, sizeof b), seen_title = 1;
        if (strstr(it->text.utf8, "masked (")) memcpy(legend_box, b, sizeof b), seen_legend = 1;
        if (strncmp(it->text.utf8, "L0 H", 4) == 0) { /* drawn left to right */
            if (n_panel++ && boxes_overlap(prev, b)) fail_msg("panel title '%s' overlaps the one before", it->text.utf8);
            memcpy(prev, b, sizeof b);
        }
    }
    assert_int_equal(n_panel, N);
    assert_true(seen_title && seen_legend);
    av_text_metrics m;
    av_text_measure("attention weight", 14, 0, &m);
    printf("    colour bar %d px tall (title %.0f px)\n", ramp_h, (double)m.width);
    assert_true(ramp_h >= 105 && ramp_h >= m.width);
    assert_false(boxes_overlap(title_box, legend_box));
    av_dl_free(&dl);
}

/* The colour bar runs beside the maps, not far below them. The 200-token
 * paragraph's grid (2 panels of about 200 px, automatic range) once had a
 * 364 px bar: its one-line title "attention weight (auto: 0–X, 99th
 * percentile)" is about 340 px long, and the bar was never shorter than its
 * title. Now the title goes on up to three lines, broken before " (" and
 * after the first ", ", and the bar ends with the maps (it is at least
 * CBAR_MIN_H = 150 px, so with ~200 px maps it is exactly their span). The
 * lines keep every character of the title, in order, each line fits the
 * bar, and none touches a tick label or another line. A figure whose maps
 * are taller than the title keeps it on one line. */
static void test_long_cbar_title_wraps_to_the_maps_height(void **state) {
    fixture *f = *state;
    fill(f, 200, 0);
    av_heatmap hms[2] = {f->hm, f->hm};
    av_plot_meta meta = f->meta;
    meta.auto_pct = 99.0f;
    meta.value_label = "attention weight";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, 2, "two heads", &meta, &e), AV_OK);
    const av_dl_item *p0 = av_plot_panel(&dl, 0);
    int ramp_y0 = -1, ramp_y1 = -1, ramp_x1 = 0;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_HEAT && dl.items[k].heat.ramp)
            ramp_y0 = dl.items[k].y0, ramp_y1 = dl.items[k].y1, ramp_x1 = dl.items[k].x1;
    assert_true(ramp_x1 > p0->x1);
    char joined[256] = "";
    float boxes[3][4], ticks[16][4];
    int n_lines = 0, n_ticks = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_TEXT) continue;
        float b[4];
        text_box(&it->text, b);
        if (b[0] < 0 || b[1] > dl.width || b[2] < 0 || b[3] > dl.height)
            fail_msg("'%s' leaves the %dx%d canvas", it->text.utf8, dl.width, dl.height);
        if (it->text.rot90 && it->text.x > ramp_x1) { /* right of the bar: its title */
            assert_true(n_lines < 3);
            memcpy(boxes[n_lines++], b, sizeof b);
            if (joined[0]) strcat(joined, " ");
            strcat(joined, it->text.utf8);
        } else if (!it->text.rot90 && it->text.x > ramp_x1 && n_ticks < 16) { /* its tick labels */
            memcpy(ticks[n_ticks++], b, sizeof b);
        }
    }
    printf("    colour bar %d..%d, maps %d..; title in %d lines: %s\n", ramp_y0, ramp_y1, p0->y0, n_lines, joined);
    /* the whole title, in order, split only at the two break points */
    assert_non_null(strstr(joined, "attention weight (auto: 0\xE2\x80\x93"));
    assert_non_null(strstr(joined, ", 99th percentile)"));
    assert_int_equal(n_lines, 3);
    /* the bar spans the panels' rows exactly: from their top to their bottom; the
     * top 1 % of the weights is above the automatic top, so the bar's top is the
     * tip of a triangle (extend='max') over the ramp, its frame's first row */
    float tip = 1e9f, base = -1;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TRI)
            for (int v = 0; v < 3; v++) tip = fminf(tip, dl.items[k].tri.y[v]), base = fmaxf(base, dl.items[k].tri.y[v]);
    assert_true(tip == (float)p0->y0 - 1 && base == (float)ramp_y0);
    assert_int_equal(ramp_y1, p0->y1);
    for (int i = 0; i < n_lines; i++) {
        assert_true(boxes[i][3] - boxes[i][2] <= ramp_y1 - ramp_y0); /* each line fits beside the bar */
        for (int j = 0; j < i; j++) assert_false(boxes_overlap(boxes[i], boxes[j]));
        for (int t = 0; t < n_ticks; t++) assert_false(boxes_overlap(boxes[i], ticks[t]));
    }
    assert_true(n_ticks >= 3);
    av_dl_free(&dl);

    /* the 40-token head figure's maps (800 px) are taller than the title: one line */
    fill(f, 40, 0);
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &meta, &e), AV_OK);
    int one_line = 0;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TEXT && strstr(dl.items[k].text.utf8, "attention weight (auto: ") &&
            strstr(dl.items[k].text.utf8, ", 99th percentile)"))
            one_line++;
    assert_int_equal(one_line, 1);
    av_dl_free(&dl);
}

/* L x H panels of f's map, titled as fig_model_view titles them ("L1 H5",
 * and the short "H5" when shorts), with meta's grid_cols as it sets them (a
 * layer per group; none for one layer). The caller frees the panels and
 * *names. */
static av_heatmap *model_view_panels(const fixture *f, int L, int H, int shorts, av_plot_meta *meta,
                                     char (**names)[2][32]) {
    int N = L * H;
    av_heatmap *hms = calloc((size_t)N, sizeof *hms);
    *names = calloc((size_t)N, sizeof **names);
    assert_true(hms && *names);
    for (int p = 0; p < N; p++) {
        snprintf((*names)[p][0], sizeof (*names)[p][0], "L%d H%d", p / H, p % H);
        snprintf((*names)[p][1], sizeof (*names)[p][1], "H%d", p % H);
        hms[p] = f->hm;
        hms[p].panel_title = (*names)[p][0];
        hms[p].panel_short = shorts ? (*names)[p][1] : NULL;
    }
    *meta = f->meta;
    meta->grid_cols = L == 1 ? 0 : H;
    return hms;
}

/* The model view of an L x H model (panels from model_view_panels) laid out
 * into dl, which the caller frees; the panels' heat items point at the
 * fixture's weights, not at the panel array, which is freed here. */
static void layout_model_view(const fixture *f, int L, int H, int shorts, av_dlist *dl) {
    av_plot_meta meta;
    char(*names)[2][32];
    av_heatmap *hms = model_view_panels(f, L, H, shorts, &meta, &names);
    av_err e;
    assert_int_equal(av_plot_layout_grid(dl, hms, L * H, "model view", &meta, &e), AV_OK);
    free(hms);
    free(names);
}

/* Past the pixels available, cells are pooled and the title says so (issue
 * 13). A model view of 3 layers x 25 heads over 64 tokens gets panels of
 * about 32 px: before, each panel drew its 64x64 cells into those pixels
 * (two cells averaged into each, silently). Now no panel has more cells
 * than pixels, and when the panels hold fewer cells than tokens the title
 * names the pooling and its factor, ceil(64 / cells per side). */
static void test_small_panels_pool_cells_and_say_so(void **state) {
    fixture *f = *state;
    fill(f, 64, 1);
    enum { L = 3, H = 25, N = L * H };
    av_dlist dl;
    layout_model_view(f, L, H, 1, &dl);
    int panels = 0, cells = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_HEAT || it->heat.ramp) continue;
        panels++;
        cells = it->heat.n_k;
        if (it->heat.n_k > it->x1 - it->x0 || it->heat.n_q > it->y1 - it->y0)
            fail_msg("panel %d: %dx%d cells in %dx%d px", panels, it->heat.n_q, it->heat.n_k, it->y1 - it->y0,
                     it->x1 - it->x0);
    }
    assert_int_equal(panels, N);
    assert_true(cells < 64); /* these panels are smaller than 64 px */
    int factor = (64 + cells - 1) / cells;
    char want[64];
    snprintf(want, sizeof want, "max over %d\xC3\x97%d tokens per cell", factor, factor);
    int found = 0;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TEXT && strstr(dl.items[k].text.utf8, want)) found = 1;
    printf("    panels of %d cells for 64 tokens: '%s' %s\n", cells, want, found ? "in the title" : "MISSING");
    assert_true(found);
    av_dl_free(&dl);
}

/* A 2-layer, 64-head model view names the layer only on each row's first
 * panel ("L1 H0", then "H1" ... "H63"). The gap between panels follows the
 * two neighbouring titles, not the widest title anywhere: these short
 * titles fit the usual 28 px gap, so the figure is exactly as wide as the
 * same grid with empty titles (it once grew from 3037 to 4171 px), and
 * still no two neighbouring titles touch. */
static void test_grid_gap_follows_neighbouring_titles(void **state) {
    fixture *f = *state;
    fill(f, 4, 1);
    enum { H = 64, N = 2 * H };
    av_heatmap hms[N];
    char names[N][16];
    av_plot_meta meta = f->meta;
    meta.grid_cols = H;
    int width[2];
    for (int titled = 0; titled < 2; titled++) {
        for (int p = 0; p < N; p++) {
            if (p % H) snprintf(names[p], sizeof names[p], "H%d", p % H);
            else snprintf(names[p], sizeof names[p], "L%d H0", p / H);
            hms[p] = f->hm;
            hms[p].panel_title = titled ? names[p] : "";
        }
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_grid(&dl, hms, N, "model view", &meta, &e), AV_OK);
        width[titled] = dl.width;
        float prev[4] = {0};
        int in_row = 0;
        for (size_t k = 0; titled && k < dl.n; k++) {
            const av_dl_item *it = &dl.items[k];
            if (it->kind != AV_DL_TEXT || it->text.size != 15) continue; /* panel titles: 15 px */
            float b[4];
            text_box(&it->text, b);
            if (in_row++ % H && boxes_overlap(prev, b)) fail_msg("panel title '%s' overlaps the one before", it->text.utf8);
            memcpy(prev, b, sizeof b);
        }
        if (titled) assert_int_equal(in_row, N);
        av_dl_free(&dl);
    }
    printf("    %d px wide with titles, %d px without\n", width[1], width[0]);
    assert_int_equal(width[1], width[0]);
}

/* The model view (one panel per layer x head, meta.grid_cols = H, as
 * fig_model_view lays it out) of every model shape stays within the
 * 2400 x 2400 px figure bound (plot.c FIG_MAX; issue 13): attnviz's toy
 * models (2 x 4), GPT-2 small (12 x 12) and XL (48 x 25), one layer of 64
 * heads, 2 layers of 64 heads (once 3037 px wide: 64 panels of 16 px and
 * 28 px gaps in a row), and the largest the tool accepts, 4096 panels
 * (AV_PLOT_MAX_PANELS; 128 layers x 32 heads, 64 x 64). Every panel is
 * there, no two texts overlap, every text is on the canvas. For the shapes
 * with up to 1200 panels every panel is titled, and its layer and head can
 * be read: its title is "L<l> H<h>", or "H<h>" with the first panel of its
 * row naming layer l (the title centred over the panel, or starting at its
 * left edge); and every row holds one layer's heads, in order. */
typedef struct {
    const av_dl_text *t;
    float box[4];
} placed_text;

static int by_left(const void *a, const void *b) {
    float d = ((const placed_text *)a)->box[0] - ((const placed_text *)b)->box[0];
    return d < 0 ? -1 : d > 0;
}

/* 1 if t is placed as a panel's title over pp: centred over it, or (wider
 * than the panel, at the start of a row) starting at its left edge. */
static int over_panel(const av_dl_text *t, const av_dl_item *pp) {
    return (t->anchor == AV_ANCHOR_MIDDLE && fabsf(t->x - (pp->x0 + pp->x1) * 0.5f) < 1) ||
           (t->anchor == AV_ANCHOR_START && fabsf(t->x - pp->x0) < 1);
}

static void check_model_view(fixture *f, int L, int H, int want_titles) {
    int N = L * H;
    av_plot_meta meta;
    char(*names)[2][32];
    av_heatmap *hms = model_view_panels(f, L, H, H > 16 && L > 1, &meta, &names);
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_grid(&dl, hms, N, "model view", &meta, &e), AV_OK);
    printf("    %d x %d: %d x %d px\n", L, H, dl.width, dl.height);
    if (dl.width > 2400 || dl.height > 2400)
        fail_msg("%d x %d model view is %d x %d px, over 2400", L, H, dl.width, dl.height);
    assert_non_null(av_plot_panel(&dl, N - 1));
    assert_null(av_plot_panel(&dl, N));
    /* texts: on the canvas, none overlapping (sorted by left edge, each against those that start before its right) */
    placed_text *tx = calloc(dl.n, sizeof *tx);
    size_t nt = 0;
    for (size_t k = 0; k < dl.n; k++) {
        if (dl.items[k].kind != AV_DL_TEXT) continue;
        tx[nt].t = &dl.items[k].text;
        text_box(tx[nt].t, tx[nt].box);
        const float *b = tx[nt].box;
        if (b[0] < 0 || b[1] > dl.width || b[2] < 0 || b[3] > dl.height)
            fail_msg("'%s' leaves the %dx%d canvas", tx[nt].t->utf8, dl.width, dl.height);
        nt++;
    }
    qsort(tx, nt, sizeof *tx, by_left);
    for (size_t i = 0; i < nt; i++)
        for (size_t j = i + 1; j < nt && tx[j].box[0] < tx[i].box[1]; j++)
            if (boxes_overlap(tx[i].box, tx[j].box))
                fail_msg("%d x %d: '%s' (%.1f..%.1f, %.1f..%.1f) overlaps '%s' (%.1f..%.1f, %.1f..%.1f)", L, H, tx[i].t->utf8, tx[i].box[0], tx[i].box[1], tx[i].box[2], tx[i].box[3], tx[j].t->utf8, tx[j].box[0], tx[j].box[1], tx[j].box[2], tx[j].box[3]);
    /* each panel's title: the text centred over it, just above its top edge */
    for (int p = 0; want_titles && p < N; p++) {
        const av_dl_item *pp = av_plot_panel(&dl, p), *row0 = pp;
        for (int q = p - 1; q >= 0 && av_plot_panel(&dl, q)->y0 == pp->y0; q--) row0 = av_plot_panel(&dl, q);
        const char *own = NULL, *first = NULL;
        for (size_t i = 0; i < nt; i++) {
            const av_dl_text *t = tx[i].t;
            if (t->rot90 || t->y > pp->y0 || t->y < pp->y0 - 20) continue;
            if (over_panel(t, pp)) own = t->utf8;
            if (over_panel(t, row0)) first = t->utf8;
        }
        int l = -1, h = -1, l0 = -1, h0 = -1;
        if (!own || !first) fail_msg("%d x %d: panel %d (L%d H%d) has no title", L, H, p, p / H, p % H);
        if (sscanf(own, "L%d H%d", &l, &h) != 2) {
            assert_int_equal(sscanf(own, "H%d", &h), 1);
            assert_int_equal(sscanf(first, "L%d H%d", &l, &h0), 2);
        }
        if (l != p / H || h != p % H)
            fail_msg("%d x %d: panel %d reads as L%d H%d, not L%d H%d", L, H, p, l, h, p / H, p % H);
        /* the row belongs to one layer: its first panel is one of layer l's */
        assert_int_equal(sscanf(first, "L%d H%d", &l0, &h0), 2);
        assert_int_equal(l0, p / H);
    }
    free(tx);
    av_dl_free(&dl);
    free(hms);
    free(names);
}

static void test_model_view_within_bound_for_every_shape(void **state) {
    fixture *f = *state;
    fill(f, 4, 1);
    static const int shapes[][3] = {{2, 4, 1},  {12, 12, 1}, {1, 64, 1}, {2, 64, 1},
                                    {48, 25, 1}, {128, 32, 0}, {64, 64, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        check_model_view(f, shapes[s][0], shapes[s][1], shapes[s][2]);
    fill(f, 12, 1); /* a sentence of 12 tokens: labels thinned, panels of whole-pixel cells */
    check_model_view(f, 48, 25, 1);
    check_model_view(f, 2, 64, 1);
}

/* Panels per row of a laid-out grid of n panels: how many share the first
 * panel's top edge. */
static int panels_in_first_row(const av_dlist *dl, int n) {
    int k = 1;
    while (k < n && av_plot_panel(dl, k)->y0 == av_plot_panel(dl, 0)->y0) k++;
    return k;
}

/* A model view whose layers have 32 heads kept one row per layer, 32
 * panels across: 3 x 32 and 12 x 32 got panels of 36 px while 2 x 64
 * (wrapped, 16 a row) got ~100 px. 32 usual panels in a row with their
 * 28 px gaps can be at most (2400 - 31 * 28) / 32 = 47 px wide in the
 * 2400 px figure, so any wider panel means the heads wrapped. Now a
 * layer's heads wrap over rows they fill when that makes the panels at
 * least a quarter larger: 3 x 32 gets panels over twice that bound (4 rows
 * of 8 per layer leave 2400 / 12 rows ~ 200 px a row), 12 x 32 2 rows of
 * 16. The common shapes whose panels are already about as large as they
 * get keep one row per layer: 2 x 4 and 2 x 8 (panels near the 260 px
 * cap), 6 x 8, GPT-2 small's 12 x 12, GPT-2 medium's 24 x 16. */
static void test_model_view_wraps_heads_when_panels_grow(void **state) {
    fixture *f = *state;
    fill(f, 4, 1);
    static const struct { int L, H, min_side; } wraps[] = {{3, 32, 2 * 47}, {12, 32, 48}, {4, 32, 48}};
    for (size_t s = 0; s < sizeof wraps / sizeof wraps[0]; s++) {
        int L = wraps[s].L, H = wraps[s].H, N = L * H;
        av_dlist dl;
        layout_model_view(f, L, H, 1, &dl);
        const av_dl_item *p0 = av_plot_panel(&dl, 0);
        int per_row = panels_in_first_row(&dl, N), side = p0->x1 - p0->x0 < p0->y1 - p0->y0 ? p0->x1 - p0->x0 : p0->y1 - p0->y0;
        printf("    %d x %d: %d panels a row, %d px, figure %d x %d\n", L, H, per_row, side, dl.width, dl.height);
        if (per_row >= H || H % per_row) fail_msg("%d x %d: %d panels a row, want a layer wrapped evenly", L, H, per_row);
        if (side < wraps[s].min_side) fail_msg("%d x %d: panels of %d px, want >= %d", L, H, side, wraps[s].min_side);
        assert_true(dl.width <= 2400 && dl.height <= 2400);
        av_dl_free(&dl);
        check_model_view(f, L, H, 1); /* every panel titled, each row one layer's, no overlaps */
    }
    static const int keeps[][2] = {{2, 4}, {2, 8}, {6, 8}, {12, 12}, {24, 16}};
    for (size_t s = 0; s < sizeof keeps / sizeof keeps[0]; s++) {
        int L = keeps[s][0], H = keeps[s][1], N = L * H;
        av_dlist dl;
        layout_model_view(f, L, H, H > 16, &dl);
        if (panels_in_first_row(&dl, N) != H) fail_msg("%d x %d: %d panels a row, want one layer a row (%d)", L, H,
                                                       panels_in_first_row(&dl, N), H);
        av_dl_free(&dl);
    }
}

/* Colour-bar ticks of a tiny range, --vmax 1e-30: once "0.0000000000000000000000000000002"
 * (31 decimals). Now scientific notation as matplotlib would: the 1-2-5
 * step of 1e-30 / 7 = 1.4e-31 is 2e-31, so the ticks are 0, 2e−31, ...,
 * 1e−30; for 3e-5 the step is 5e-6 (3e-5 / 7 = 4.3e-6), so 1.5e−5 needs
 * one mantissa decimal. No tick label is longer than 9 bytes (a U+2212
 * minus is 3). The usual 0..1 range keeps "0.0", "0.2", ..., "1.0". */
static void test_cbar_ticks_of_tiny_range_in_scientific_notation(void **state) {
    fixture *f = *state;
    static const struct { float vmax; const char *ticks[8]; } cases[] = {
        {1e-30f, {"0", "2e\xE2\x88\x92" "31", "4e\xE2\x88\x92" "31", "6e\xE2\x88\x92" "31", "8e\xE2\x88\x92" "31",
                  "1e\xE2\x88\x92" "30", NULL}},
        {3e-5f, {"0", "5e\xE2\x88\x92" "6", "1e\xE2\x88\x92" "5", "1.5e\xE2\x88\x92" "5", "2e\xE2\x88\x92" "5",
                 "2.5e\xE2\x88\x92" "5", "3e\xE2\x88\x92" "5", NULL}},
        {1.0f, {"0.0", "0.2", "0.4", "0.6", "0.8", "1.0", NULL}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        av_plot_meta meta = f->meta;
        meta.vmin = 0.0f;
        meta.vmax = cases[c].vmax;
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &meta, &e), AV_OK);
        for (int k = 0; cases[c].ticks[k]; k++)
            if (count_text(&dl, cases[c].ticks[k]) != 1) fail_msg("vmax %g: no tick '%s'", (double)cases[c].vmax,
                                                                  cases[c].ticks[k]);
        for (size_t k = 0; k < dl.n; k++) /* the colour bar's tick labels: 14 px, left-anchored, right of the map */
            if (dl.items[k].kind == AV_DL_TEXT && dl.items[k].text.size == 14 && !dl.items[k].text.rot90 &&
                dl.items[k].text.anchor == AV_ANCHOR_START && strlen(dl.items[k].text.utf8) > 9)
                fail_msg("vmax %g: tick label '%s' is too long", (double)cases[c].vmax, dl.items[k].text.utf8);
        av_dl_free(&dl);
    }
}

/* ---------------------------------------------------------------- scores */

#define MINUS "\xE2\x88\x92"

/* Corner pixel (3 px inside) of cell (i, j) of panel p. */
static void cell_corner(const av_png_image *img, const av_dlist *dl, int p, int i, int j, unsigned char out[3]) {
    int b[4];
    assert_int_equal(av_dl_cell_box(av_plot_panel(dl, p), i, j, b), 0);
    pixel(img, b[0] + 3, b[1] + 3, out);
}

/* Scores: diverging RdBu_r centred on 0 (0 is white-ish, + red, − blue),
 * masked entries hatched and labelled "−∞", numbers with a true minus. */
static void test_scores_diverging_and_neg_inf(void **state) {
    fixture *f = *state;
    static const char *lab[] = {"a", "b", "c"};
    float s[9] = {0, 2, 5, -2, 0.5f, -0.5f, 1, -1, 0};
    unsigned char m[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0};
    av_heatmap hm = {.title = "scores", .n_q = 3, .n_k = 3, .q_labels = lab, .k_labels = lab, .w = s, .masked = m,
                     .neg_inf_cells = 1};
    assert_true(fabsf(av_plot_abs_max(s, m, 1, 3, 3) - 2.0f) < 1e-6f); /* the masked 5 is left out */
    av_plot_meta meta = f->meta;
    meta.cmap = AV_CMAP_RDBU_R;
    meta.vmin = -2;
    meta.vmax = 2;
    meta.value_label = "score";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &hm, &meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, MINUS "\xE2\x88\x9E"), 1); /* −∞ in the masked cell */
    assert_int_equal(count_text(&dl, "score"), 1);
    assert_int_equal(count_text(&dl, MINUS "2.00"), 1);       /* cell value */
    assert_int_equal(count_text(&dl, MINUS "2"), 1);          /* colour bar tick: a whole step, no decimals */
    assert_int_equal(count_text(&dl, "-2"), 0);               /* never an ASCII hyphen */
    assert_int_equal(count_text(&dl, "0.00"), 2);             /* never "−0.00" */
    assert_int_equal(count_text(&dl, "masked (score " MINUS "\xE2\x88\x9E)"), 1); /* a score, not a weight */
    const char *path = in_dir(f, "s.png");
    assert_int_equal(av_plot_head(path, &hm, &meta, &e), AV_OK);
    av_png_image img;
    read_png(path, &img);
    unsigned char zero[3], pos[3], neg[3], masked[3];
    cell_corner(&img, &dl, 0, 0, 0, zero);
    cell_corner(&img, &dl, 0, 0, 1, pos);
    cell_corner(&img, &dl, 0, 1, 0, neg);
    cell_corner(&img, &dl, 0, 0, 2, masked);
    for (int k = 0; k < 3; k++) assert_true(zero[k] >= 235); /* RdBu_r centre: white-ish */
    assert_true(pos[0] > pos[2] + 50 && pos[0] > pos[1] + 50); /* + is red */
    assert_true(neg[2] > neg[0] + 50 && neg[2] > neg[1] + 30); /* − is blue */
    unsigned char want[3];
    av_cmap_rgb(AV_CMAP_RDBU_R, 0.5, want);
    assert_memory_equal(zero, want, 3);
    /* The masked cell is the grey hatch, not a colour of the map. */
    assert_true(masked[0] == masked[1] && masked[1] == masked[2]);
    assert_true(memcmp(masked, zero, 3) != 0);
    av_png_image_free(&img);
    av_dl_free(&dl);
}

/* ---------------------------------------------------------------- mean (P10) */

/* P10: 2 heads, 2 tokens; query 0 is [1, 0] in head 0 and [0, 1] in head 1.
 * The mean is [0.5, 0.5], and a mean figure shows it. */
static void test_mean_heads_P10(void **state) {
    fixture *f = *state;
    const float att[8] = {1, 0, 0.5f, 0.5f, /* head 0 */ 0, 1, 0.5f, 0.5f /* head 1 */};
    float mean[4];
    av_plot_mean_heads(mean, att, 2, 2, 2);
    for (int k = 0; k < 4; k++) assert_true(fabsf(mean[k] - 0.5f) < 1e-7f);
    static const char *lab[] = {"I", "you"};
    av_heatmap hm = {.title = "mean over 2 heads", .n_q = 2, .n_k = 2, .q_labels = lab, .k_labels = lab, .w = mean};
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &hm, &f->meta, &e), AV_OK);
    assert_int_equal(count_text(&dl, "0.50"), 4);
    av_dl_free(&dl);
    float zeros[4] = {0};
    assert_true(av_plot_abs_max(zeros, NULL, 1, 2, 2) == 1.0f); /* a usable range even for all zeros */
}

/* ---------------------------------------------------------------- matrix figure */

/* Two (4, 256) panels side by side (the PE split into sin and cos): row
 * labels "index: token" once, numeric column labels horizontal and thinned,
 * panel and axis titles, and columns up to AV_PLOT_MAX_COLS. */
static void test_matrix_two_panels(void **state) {
    fixture *f = *state;
    static const char *lab[] = {"I", "love", "deep", "learning"};
    int T = 4, P = 256;
    float *v = calloc((size_t)2 * T * AV_PLOT_MAX_COLS + 1, sizeof *v);
    for (int k = 0; k < 2 * T * P; k++) v[k] = (float)sin(k * 0.01);
    av_heatmap hm[2] = {{.n_q = T, .n_k = P, .q_labels = lab, .w = v, .q_title = "position", .k_title = "i (2i)",
                         .panel_title = "sin"},
                        {.n_q = T, .n_k = P, .q_labels = lab, .w = v + T * P, .k_title = "i (2i+1)",
                         .panel_title = "cos"}};
    av_plot_meta meta = f->meta;
    meta.cmap = AV_CMAP_RDBU_R;
    meta.vmin = -1;
    meta.vmax = 1;
    meta.value_label = "PE value";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_matrix(&dl, hm, 2, "PE", &meta, &e), AV_OK);
    const av_dl_item *a = av_plot_panel(&dl, 0), *b = av_plot_panel(&dl, 1);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(av_plot_panel(&dl, 2));
    assert_int_equal(a->y0, b->y0);
    assert_true(b->x0 > a->x1);
    assert_true(a->x1 - a->x0 >= P); /* at least 1 px per column */
    assert_int_equal(count_text(&dl, "0: I"), 1);
    assert_int_equal(count_text(&dl, "3: learning"), 1);
    assert_int_equal(count_text(&dl, "position"), 1);
    assert_int_equal(count_text(&dl, "i (2i)"), 1);
    assert_int_equal(count_text(&dl, "i (2i+1)"), 1);
    assert_int_equal(count_text(&dl, "sin"), 1);
    assert_int_equal(count_text(&dl, "cos"), 1);
    assert_int_equal(count_text(&dl, "PE value"), 1);
    int numeric = 0;
    for (size_t k = 0; k < dl.n; k++) {
        const av_dl_item *it = &dl.items[k];
        if (it->kind != AV_DL_TEXT || it->text.y < a->y1 || it->text.y > a->y1 + 40) continue;
        assert_int_equal(it->text.rot90, 0);
        numeric++;
    }
    assert_true(numeric >= 6 && numeric <= 40); /* thinned: not 512 labels */
    assert_true(dl.width <= 2400 && dl.height <= 2400);
    av_dl_free(&dl);
    /* d_model 4096 in one panel: averaged into the target width. */
    hm[0].n_k = AV_PLOT_MAX_COLS;
    assert_int_equal(av_plot_layout_matrix(&dl, hm, 1, "wide", &meta, &e), AV_OK);
    assert_true(av_plot_panel(&dl, 0)->x1 - av_plot_panel(&dl, 0)->x0 < AV_PLOT_MAX_COLS);
    av_dl_free(&dl);
    assert_int_equal(av_plot_matrix(in_dir(f, "m.png"), hm, 1, "wide", &meta, &e), AV_OK);
    hm[0].n_k = AV_PLOT_MAX_COLS + 1;
    assert_int_equal(av_plot_layout_matrix(&dl, hm, 1, "too wide", &meta, &e), AV_ERUNTIME);
    av_dl_free(&dl);
    free(v);
}

/* ---------------------------------------------------------------- mask figure */

static void test_mask_two_colours_with_legend(void **state) {
    fixture *f = *state;
    fill(f, 4, 1); /* causal */
    av_heatmap hm = f->hm;
    hm.w = NULL; /* the mask figure draws no values */
    for (int c = 0; c < 2; c++) {
        av_plot_meta meta = f->meta;
        meta.cmap = c ? AV_CMAP_GRAY : AV_CMAP_VIRIDIS;
        av_dlist dl;
        av_err e;
        assert_int_equal(av_plot_layout_mask(&dl, &hm, &meta, &e), AV_OK);
        assert_int_equal(count_text(&dl, "query sees key"), 1);
        assert_int_equal(count_text(&dl, "masked (score " MINUS "\xE2\x88\x9E, weight 0)"), 1);
        for (size_t k = 0; k < dl.n; k++)
            if (dl.items[k].kind == AV_DL_TEXT) assert_null(strchr(dl.items[k].text.utf8, '.')); /* no values */
        const char *path = in_dir(f, "mask.png");
        assert_int_equal(av_plot_mask(path, &hm, &meta, &e), AV_OK);
        av_png_image img;
        read_png(path, &img);
        assert_int_equal(img.width, dl.width);
        unsigned char vis[3], hid[3], want[3];
        cell_corner(&img, &dl, 0, 2, 1, vis); /* key 1 <= query 2: visible */
        cell_corner(&img, &dl, 0, 1, 2, hid); /* key 2 > query 1: masked */
        av_cmap_rgb(meta.cmap, 0.35, want);
        assert_memory_equal(vis, want, 3);
        assert_true(hid[0] == hid[1] && hid[1] == hid[2] && hid[0] > 0x80); /* light grey hatch */
        assert_true(memcmp(vis, hid, 3) != 0);
        av_png_image_free(&img);
        av_dl_free(&dl);
    }
}

/* ---------------------------------------------------------------- sizes: --scale, --dpi */

static void layout_dims(const av_heatmap *hm, const av_plot_meta *meta, int *w, int *h, float *axis_size) {
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, hm, meta, &e), AV_OK);
    *w = dl.width;
    *h = dl.height;
    for (size_t k = 0; k < dl.n; k++)
        if (dl.items[k].kind == AV_DL_TEXT && strcmp(dl.items[k].text.utf8, "query (row)") == 0)
            *axis_size = dl.items[k].text.size;
    av_dl_free(&dl);
}

/* Every size scales by scale × dpi / 100; the figure stays within
 * AV_PLOT_MAX_PX whatever the factor. */
static void test_scale_and_dpi_multiply_sizes(void **state) {
    fixture *f = *state;
    int w1, h1, w, h;
    float s1 = 0, s = 0;
    layout_dims(&f->hm, &f->meta, &w1, &h1, &s1);
    static const struct { float scale; int dpi; double k; } cases[] = {{2, 0, 2}, {0.5f, 0, 0.5}, {0, 300, 3},
                                                                         {1.5f, 200, 3}};
    for (size_t c = 0; c < 4; c++) {
        av_plot_meta meta = f->meta;
        meta.scale = cases[c].scale;
        meta.dpi = cases[c].dpi;
        layout_dims(&f->hm, &meta, &w, &h, &s);
        assert_true(abs(w - (int)lrint(w1 * cases[c].k)) <= 1);
        assert_true(abs(h - (int)lrint(h1 * cases[c].k)) <= 1);
        assert_true(fabs(s - s1 * cases[c].k) < 1e-3);
    }
    /* Bounded: T = 512 at 600 dpi, a head figure and a 64-head grid. Past AV_PLOT_MAX_PX the dpi is lowered,
     * not the layout shrunk: the printed size (width / dpi) is the 100-dpi one, within a pixel (the layout
     * was shrunk with dpi kept at 600, and the figure printed smaller) */
    fill(f, 512, 1);
    static av_heatmap hms[64];
    for (int p = 0; p < 64; p++) hms[p] = f->hm;
    av_dlist dl;
    av_err e;
    double inches[2][2];
    for (int k = 0; k < 2; k++) {
        av_plot_meta meta = f->meta;
        meta.dpi = k ? 600 : 100;
        assert_int_equal(av_plot_layout_head(&dl, &f->hm, &meta, &e), AV_OK);
        if (k) assert_true(dl.width <= AV_PLOT_MAX_PX && dl.height <= AV_PLOT_MAX_PX && dl.width > 2400);
        if (k) assert_true(dl.dpi < 600);
        inches[0][k] = (double)dl.width / dl.dpi;
        av_dl_free(&dl);
        assert_int_equal(av_plot_layout_grid(&dl, hms, 64, "64 heads", &meta, &e), AV_OK);
        if (k) assert_true(dl.width <= AV_PLOT_MAX_PX && dl.height <= AV_PLOT_MAX_PX && dl.dpi < 600);
        /* the hatch scales too, by scale × the dpi written / 100 */
        if (k) assert_int_equal(dl.hatch_period, (int)lrint(AV_HATCH_PERIOD * dl.dpi / 100.0));
        inches[1][k] = (double)dl.width / dl.dpi;
        av_dl_free(&dl);
    }
    for (int k = 0; k < 2; k++)
        if (fabs(inches[k][1] - inches[k][0]) > 1.0 / 100)
            fail_msg("%s: %.3f in wide at 600 dpi, %.3f at 100", k ? "grid" : "head", inches[k][1], inches[k][0]);
}

/* An SVG prints at its PNG's printed size: width and height in points, 72 an
 * inch, as matplotlib writes them (the PNG's pixels / its pHYs dpi inches), at
 * --dpi 100 and 300 and --scale 2. They were unitless CSS px, 96 an inch, so
 * the SVG printed 4 % larger than the PNG. So its size follows --scale, not
 * --dpi (the viewBox holds the pixel layout). */
static void test_svg_prints_at_png_size(void **state) {
    fixture *f = *state;
    av_err e;
    static const int dpis[3] = {100, 300, 100};
    static const float scales[3] = {1, 1, 2};
    double wd[3];
    for (int c = 0; c < 3; c++) {
        av_plot_meta meta = f->meta;
        meta.dpi = dpis[c];
        meta.scale = scales[c];
        assert_int_equal(av_plot_head(in_dir(f, "p.svg"), &f->hm, &meta, &e), AV_OK);
        assert_int_equal(av_plot_head(in_dir(f, "p.png"), &f->hm, &meta, &e), AV_OK);
        av_png_image img;
        read_png(in_dir(f, "p.png"), &img);
        char *svg = slurp(in_dir(f, "p.svg"), NULL);
        double w, h;
        char uw[3] = "", uh[3] = "";
        const char *at = strstr(svg, "<svg ");
        assert_non_null(at);
        assert_int_equal(sscanf(strstr(at, " width=\""), " width=\"%lf%2[a-z]\"", &w, uw), 2);
        assert_int_equal(sscanf(strstr(at, " height=\""), " height=\"%lf%2[a-z]\"", &h, uh), 2);
        assert_string_equal(uw, "pt");
        assert_string_equal(uh, "pt");
        double want_w = img.width / img.dpi * 72, want_h = img.height / img.dpi * 72; /* inches x 72 */
        if (fabs(w - want_w) > 0.01 * want_w || fabs(h - want_h) > 0.01 * want_h)
            fail_msg("--dpi %d --scale %g: the SVG is %g x %g pt, the PNG %d x %d px at %g dpi = %g x %g pt", dpis[c],
                     (double)scales[c], w, h, img.width, img.height, img.dpi, want_w, want_h);
        wd[c] = w;
        av_png_image_free(&img);
        free(svg);
    }
    assert_true(fabs(wd[0] - wd[1]) <= 1);     /* --dpi 300: the same printed size */
    assert_true(fabs(wd[2] - 2 * wd[0]) <= 2); /* --scale 2: twice it */
}

/* ---------------------------------------------------------------- long inputs */

/* 1 if any text item of dl contains s. */
static int has_text(const av_dlist *dl, const char *s) {
    for (size_t k = 0; k < dl->n; k++)
        if (dl->items[k].kind == AV_DL_TEXT && strstr(dl->items[k].text.utf8, s)) return 1;
    return 0;
}

/* T = 1000 > AV_PLOT_HEAD_CELLS: 2x2 blocks, max by default, mean on request;
 * a single sharp weight survives max pooling; the title says how. */
static void test_pooling_past_the_pixels(void **state) {
    fixture *f = *state;
    fill(f, 1000, 1);
    f->w[(size_t)999 * 1000 + 3] = 0.9f; /* block (499, 1) */
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *h = av_plot_panel(&dl, 0);
    assert_int_equal(h->heat.n_q, 500);
    assert_int_equal(h->heat.n_k, 500);
    assert_true(h->heat.w[(size_t)499 * 500 + 1] == 0.9f);
    assert_true(h->heat.masked[(size_t)0 * 500 + 1] == 1);  /* block (0,1): keys 2,3 > queries 0,1: all masked */
    assert_true(h->heat.masked[(size_t)1 * 500 + 1] == 0);  /* block (1,1): query 2 sees key 2 */
    assert_true(has_text(&dl, "max over 2\xC3\x97" "2 tokens per cell"));
    assert_true(dl.width <= 2400 && dl.height <= 2400);
    av_dl_free(&dl);
    f->meta.pool = AV_POOL_MEAN;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    h = av_plot_panel(&dl, 0);
    const float *w = f->w;
    /* mean of the visible cells of block (1, 0): queries 2, 3, keys 0, 1 (all visible) */
    double want = (w[2000] + w[2001] + w[3000] + w[3001]) / 4.0;
    assert_true(fabs(h->heat.w[500] - want) < 1e-7);
    assert_true(has_text(&dl, "mean over 2\xC3\x97" "2 tokens per cell"));
    av_dl_free(&dl);
    /* grids pool past AV_PLOT_GRID_CELLS per panel */
    fill(f, 300, 0);
    av_heatmap two[2] = {f->hm, f->hm};
    f->meta.pool = AV_POOL_MAX;
    assert_int_equal(av_plot_layout_grid(&dl, two, 2, "grid", &f->meta, &e), AV_OK);
    assert_int_equal(av_plot_panel(&dl, 1)->heat.n_q, 150);
    assert_true(has_text(&dl, "max over 2\xC3\x97" "2"));
    av_dl_free(&dl);
}

static void test_percentile_nearest_rank(void **state) {
    (void)state;
    /* 2 panels of 2x2, one cell masked: visible values 1..7 (0.5 masked) */
    const float v[8] = {1, 2, 0.5f, 3, 4, 5, 6, 7};
    const unsigned char m[4] = {0, 0, 1, 0};
    /* visible: 1, 2, 3, 4, 5, 7 (the masked cell is index 2 of each panel: 0.5 and 6) */
    assert_true(av_plot_percentile(v, m, 2, 2, 2, 50) == 3.0f);  /* rank ceil(3) = 3rd of 6 */
    assert_true(av_plot_percentile(v, m, 2, 2, 2, 100) == 7.0f);
    assert_true(av_plot_percentile(v, m, 2, 2, 2, 0) == 1.0f);
    assert_true(av_plot_percentile(v, NULL, 1, 2, 2, 75) == 2.0f); /* 0.5, 1, 2, 3: rank 3 */
}

static int cmp_asc(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The selection (no sort) gives the value of the sorted array's nearest rank:
 * random values with many repeats, every percentile 0..100; and which zero
 * (-0 or +0) a sort placed at that rank, when both occur. */
static void test_percentile_equals_sorted(void **state) {
    (void)state;
    enum { N = 1000 };
    static float v[N], sorted[N];
    unsigned seed = 12345;
    for (int trial = 0; trial < 4; trial++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            v[i] = (float)((int)(seed >> 16) % (trial == 0 ? 1000 : 7)) / 8.0f - (trial == 3 ? 0.25f : 0.0f);
        }
        memcpy(sorted, v, sizeof v);
        qsort(sorted, N, sizeof *sorted, cmp_asc);
        for (int pct = 0; pct <= 100; pct++) {
            size_t k = pct == 0 ? 0 : (size_t)ceil(pct / 100.0 * N) - 1;
            assert_true(av_plot_percentile(v, NULL, 1, 10, 100, pct) == sorted[k]);
        }
    }
    const float z[6] = {-0.0f, 0.0f, 1.0f, -1.0f, 0.0f, -0.0f}; /* sorted: -1, -0, 0, 0, -0, 1 */
    assert_false(signbit(av_plot_percentile(z, NULL, 1, 2, 3, 50)));  /* rank 3: the 2nd zero, +0 */
    assert_true(signbit(av_plot_percentile(z, NULL, 1, 2, 3, 30)));   /* rank 2: the 1st zero, -0 */
    assert_true(signbit(av_plot_percentile(z, NULL, 1, 2, 3, 80)));   /* rank 5: the 4th zero, -0 */
}

/* auto range: the percentile of the values drawn, after pooling, and the
 * colour bar's title says it. */
static void test_auto_range_after_pooling(void **state) {
    fixture *f = *state;
    fill(f, 1000, 0);
    f->meta.auto_pct = 100.0f; /* the largest drawn value */
    f->meta.value_label = "attention weight";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *h = av_plot_panel(&dl, 0);
    float top = 0;
    for (size_t c = 0; c < (size_t)h->heat.n_q * h->heat.n_k; c++) top = fmaxf(top, h->heat.w[c]);
    assert_true(h->heat.vmax == top && h->heat.vmin == 0.0f);
    assert_true(has_text(&dl, "attention weight (auto: 0\xE2\x80\x93"));
    av_dl_free(&dl);
}

/* av_plot_g3: %.3g with the true minus, hand-written expectations. */
static void test_g3_writes_the_true_minus(void **state) {
    (void)state;
    static const struct { double v; const char *want; } cases[] = {
        {1e-30, "1e" MINUS "30"}, {-3.3, MINUS "3.3"}, {0.229, "0.229"}, {1e6, "1e+06"},
        {-3.63827, MINUS "3.64"}, {0, "0"}, {-1e-5, MINUS "1e" MINUS "05"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[32];
        av_plot_g3(out, sizeof out, cases[i].v);
        if (strcmp(out, cases[i].want)) fail_msg("%g: '%s', want '%s'", cases[i].v, out, cases[i].want);
    }
    char small[6]; /* room for "−1" and the NUL, not for "−1e" */
    av_plot_g3(small, sizeof small, -1e-30);
    assert_string_equal(small, MINUS "1e");
}

/* av_plot_g3_range: a log colour bar's two ends in one notation, hand-written expectations. Each alone by
 * %.3g, the auto range of --log-scale on a 112-token sentence read "7.97e−05 – 0.0797" and --vmax 0.05
 * "5e−05 – 0.05", where plot.h promises both ends alike ("1e−33 – 1e−30", "0.000229 – 0.229"). */
static void test_g3_range_writes_both_ends_alike(void **state) {
    (void)state;
    static const struct { double lo, hi; const char *want_lo, *want_hi; } cases[] = {
        {7.97e-5, 0.0797, "7.97e" MINUS "05", "7.97e" MINUS "02"},
        {5e-5, 0.05, "5e" MINUS "05", "5e" MINUS "02"},
        {1.5e-5, 0.015, "1.5e" MINUS "05", "1.5e" MINUS "02"},
        {1e-4 * 0.999, 0.0999, "9.99e" MINUS "05", "9.99e" MINUS "02"},
        {0.0005, 0.5, "0.0005", "0.5"},
        {0.000229, 0.229, "0.000229", "0.229"},
        {0.001, 1, "0.001", "1"},
        {1e-33, 1e-30, "1e" MINUS "33", "1e" MINUS "30"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char lo[32], hi[32];
        av_plot_g3_range(lo, hi, sizeof lo, cases[i].lo, cases[i].hi);
        if (strcmp(lo, cases[i].want_lo) || strcmp(hi, cases[i].want_hi))
            fail_msg("%g, %g: '%s – %s', want '%s – %s'", cases[i].lo, cases[i].hi, lo, hi, cases[i].want_lo,
                     cases[i].want_hi);
    }
}

/* The colour bar's title of a --log-scale auto range whose top %.3g writes plainly and whose bottom it
 * writes with an exponent: every weight 1/12.5 = 0.08, the range 8e−05 .. 0.08, both ends alike. */
static void test_log_auto_range_label_one_notation(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    for (int c = 0; c < 40 * 40; c++) f->w[c] = 0.08f;
    f->meta.auto_pct = 100.0f;
    f->meta.log_scale = 1;
    f->meta.value_label = "attention weight";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const char *want = "attention weight (auto: 8e" MINUS "05 \xE2\x80\x93 8e" MINUS "02, 100th percentile)";
    if (!has_text(&dl, want)) fail_msg("no colour bar title '%s'", want);
    av_dl_free(&dl);
}

/* The log scale's automatic range is top / 1000 .. top (3 decades below the
 * percentile), and the colour bar's title gives that range, not "0–top". */
static void test_log_auto_range_label_gives_the_log_range(void **state) {
    fixture *f = *state;
    fill(f, 40, 0);
    f->meta.auto_pct = 100.0f; /* the largest weight: no pooling at 40 tokens */
    f->meta.log_scale = 1;
    f->meta.value_label = "attention weight";
    float top = 0;
    for (int c = 0; c < 40 * 40; c++) top = fmaxf(top, f->w[c]);
    /* both ends to 3 digits, top / 1000 and top (this fixture's largest weight, 0.063 to 3 digits), in one
     * notation (test_g3_range_writes_both_ends_alike), an exponent's minus the true minus as on the ticks */
    char top3[32];
    snprintf(top3, sizeof top3, "%.3g", (double)top);
    assert_string_equal(top3, "0.063");
    const char *want = "attention weight (auto: 6.3e" MINUS "05 \xE2\x80\x93 6.3e" MINUS "02, 100th percentile)";
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    if (!has_text(&dl, want)) fail_msg("no colour bar title '%s'", want);
    assert_false(has_text(&dl, "(auto: 0\xE2\x80\x93"));
    assert_false(has_text(&dl, "10^"));
    const av_dl_item *h = av_plot_panel(&dl, 0);
    assert_true(fabsf(h->heat.vmin - log10f(top / 1000)) < 1e-5f && fabsf(h->heat.vmax - log10f(top)) < 1e-6f);
    av_dl_free(&dl);
}

/* --log: cells carry log10 of the weight over [vmin, vmax] in log10 units. */
static void test_log_scale_cells(void **state) {
    fixture *f = *state;
    fill(f, 4, 0);
    f->meta.log_scale = 1;
    f->meta.vmin = 0.001f;
    f->meta.vmax = 1.0f;
    av_dlist dl;
    av_err e;
    assert_int_equal(av_plot_layout_head(&dl, &f->hm, &f->meta, &e), AV_OK);
    const av_dl_item *h = av_plot_panel(&dl, 0);
    assert_true(fabsf(h->heat.w[5] - log10f(f->w[5])) < 1e-6f);
    assert_true(fabsf(h->heat.vmin - -3.0f) < 1e-6f && h->heat.vmax == 0.0f);
    av_dl_free(&dl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_title_line_cut_keeps_every_word_that_fits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_line_cut_keeps_korean_words_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_grows_with_tokens_and_stays_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_dimensions_match_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cell_centre_is_viridis_of_weight_t40, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cell_corner_is_viridis_of_weight_t4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cell_colour_t200_and_causal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_masked_cell_differs_from_zero_weight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_legend_without_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonfinite_and_out_of_range_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fully_masked_row_is_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_axis_titles_labels_and_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_labels_thinned_without_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_label_cut_with_ellipsis, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cjk_key_labels_stay_upright, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_title_wraps_inside_figure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_wider_than_the_map_centres_the_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrapped_title_lines_are_balanced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_user_title_wraps_at_spaces_and_between_cjk_characters, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_glyphs_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_text_chunks_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rerun_is_byte_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fast_fonts_draw_the_same_figure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_folder_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_path_that_is_a_folder_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_existing_file_survives_failed_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_shapes_are_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_panels_in_four_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_many_heads_many_tokens_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_cell_colour, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_well_formed_with_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thinned_labels_carry_their_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_panel_titles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_many_small_panels_keep_key_and_titles_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_gap_follows_neighbouring_titles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_view_within_bound_for_every_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_view_wraps_heads_when_panels_grow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cbar_ticks_of_tiny_range_in_scientific_notation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_cbar_title_wraps_to_the_maps_height, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_panels_pool_cells_and_say_so, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scores_diverging_and_neg_inf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mean_heads_P10, setup, teardown),
        cmocka_unit_test_setup_teardown(test_matrix_two_panels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mask_two_colours_with_legend, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scale_and_dpi_multiply_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_prints_at_png_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pooling_past_the_pixels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_percentile_nearest_rank, setup, teardown),
        cmocka_unit_test(test_percentile_equals_sorted),
        cmocka_unit_test_setup_teardown(test_log_scale_cells, setup, teardown),
        cmocka_unit_test(test_g3_writes_the_true_minus),
        cmocka_unit_test(test_g3_range_writes_both_ends_alike),
        cmocka_unit_test_setup_teardown(test_log_auto_range_label_one_notation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_auto_range_label_gives_the_log_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auto_range_after_pooling, setup, teardown),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
