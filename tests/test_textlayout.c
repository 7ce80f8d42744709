/* test_textlayout.c - labels are shaped and in display order
 * (render/textlayout.h: fonts per script run, bidi and shaping by libraqm).
 *
 * Independent reference: HarfBuzz's own renderer, hb-view (Debian
 * libharfbuzz-bin, a test dependency), draws the same word in the same font
 * file at the same size. The "naive" reference is hb-view with HarfBuzz's
 * fallback shaper forced left to right: one nominal glyph per code point in
 * logical order, no OpenType tables, which is what attnviz drew before
 * (visible virama, unjoined Arabic letters left to right). A label passes
 * when its ink is closer to hb-view's than to the naive rendering.
 *
 * Measure (independent of anti-aliasing and hinting): ink masks binarised at
 * 50 % coverage, cropped to their ink box, scaled to the same height (SCALE_H
 * rows, aspect kept, 4 x 4 samples per pixel, ink when at least half are
 * ink), overlaid at their left edges; intersection over union (IoU).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include <png.h>

#include "render/raster.h"
#include "render/svgout.h"
#include "testutil.h"

#define PX 64       /* font size of every rendering, px */
#define SCALE_H 48  /* masks are compared at this height, rows */

/* ---------------------------------------------------------------- ink masks */

typedef struct {
    int w, h;
    unsigned char *m; /* (h, w), 1 = ink */
} mask;

static void mask_free(mask *k) {
    free(k->m);
    k->m = NULL;
}

/* The label as attnviz draws it (display list → raster), black on white. */
static mask label_mask(const char *utf8) {
    av_text_metrics tm;
    av_text_measure(utf8, PX, 0, &tm);
    int w = (int)tm.width + 2 * PX, h = 3 * PX;
    av_dlist dl;
    av_dl_init(&dl, w, h, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, utf8, PX, 2 * PX, PX, AV_ANCHOR_START, 0, 0, (av_rgb){0, 0, 0});
    unsigned char *rgb = NULL;
    size_t stride = 0;
    av_err err;
    assert_int_equal(av_raster_render(&dl, &rgb, &stride, &err), AV_OK);
    mask k = {w, h, calloc((size_t)w * h, 1)};
    assert_non_null(k.m);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *p = rgb + (size_t)y * stride + (size_t)x * 3;
            k.m[(size_t)y * w + x] = p[0] + p[1] + p[2] < 3 * 128;
        }
    av_big_free(rgb);
    av_dl_free(&dl);
    return k;
}

/* A grey PNG (hb-view: black on white) as an ink mask. */
static mask png_mask(const char *path) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_GRAY;
    unsigned char *gray = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(gray);
    assert_true(png_image_finish_read(&img, NULL, gray, 0, NULL));
    mask k = {(int)img.width, (int)img.height, calloc((size_t)img.width * img.height, 1)};
    assert_non_null(k.m);
    for (size_t i = 0; i < (size_t)k.w * k.h; i++) k.m[i] = gray[i] < 128;
    free(gray);
    return k;
}

/* Two masks side by side (a then b), tops aligned; for composing runs. */
static mask mask_concat(const mask *a, const mask *b) {
    int h = a->h > b->h ? a->h : b->h;
    mask k = {a->w + b->w, h, calloc((size_t)(a->w + b->w) * h, 1)};
    assert_non_null(k.m);
    for (int y = 0; y < h; y++) {
        if (y < a->h) memcpy(k.m + (size_t)y * k.w, a->m + (size_t)y * a->w, (size_t)a->w);
        if (y < b->h) memcpy(k.m + (size_t)y * k.w + a->w, b->m + (size_t)y * b->w, (size_t)b->w);
    }
    return k;
}

/* Ink box of k: x0, y0, x1, y1 inclusive (asserted: some ink). */
static void ink_box(const mask *k, int b[4]) {
    b[0] = k->w, b[1] = k->h, b[2] = -1, b[3] = -1;
    for (int y = 0; y < k->h; y++)
        for (int x = 0; x < k->w; x++)
            if (k->m[(size_t)y * k->w + x]) {
                if (x < b[0]) b[0] = x;
                if (x > b[2]) b[2] = x;
                if (y < b[1]) b[1] = y;
                if (y > b[3]) b[3] = y;
            }
    assert_true(b[2] >= 0);
}

/* Width in columns of k's ink box scaled to SCALE_H rows (aspect kept). */
static int scaled_width(const mask *k) {
    int b[4];
    ink_box(k, b);
    int w = (int)((double)(b[2] - b[0] + 1) * SCALE_H / (b[3] - b[1] + 1) + 0.5);
    return w > 0 ? w : 1;
}

/* Crop to the ink box and scale it to (SCALE_H, w). */
static mask mask_normalise(const mask *k, int w) {
    int b[4];
    ink_box(k, b);
    double sx = (double)w / (b[2] - b[0] + 1), sy = (double)SCALE_H / (b[3] - b[1] + 1);
    mask o = {w, SCALE_H, calloc((size_t)w * SCALE_H, 1)};
    assert_non_null(o.m);
    for (int y = 0; y < SCALE_H; y++)
        for (int x = 0; x < w; x++) {
            int hits = 0;
            for (int sy4 = 0; sy4 < 4; sy4++)
                for (int sx4 = 0; sx4 < 4; sx4++) {
                    int u = b[0] + (int)((x + (sx4 + 0.5) / 4) / sx), v = b[1] + (int)((y + (sy4 + 0.5) / 4) / sy);
                    if (u <= b[2] && v <= b[3]) hits += k->m[(size_t)v * k->w + u];
                }
            o.m[(size_t)y * w + x] = hits >= 8;
        }
    return o;
}

/* IoU of two normalised masks of the same size. */
static double iou(const mask *a, const mask *b) {
    long inter = 0, uni = 0;
    for (size_t i = 0; i < (size_t)a->w * a->h; i++) {
        inter += a->m[i] && b->m[i];
        uni += a->m[i] || b->m[i];
    }
    return uni ? (double)inter / (double)uni : 0.0;
}

/* ---------------------------------------------------------------- hb-view */

/* Run hb-view with args (NULL-terminated); its exit code (127: not found). */
static int hb_view(const char *const *args) {
    const char *argv[16] = {"hb-view"};
    int n = 1;
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execvp("hb-view", (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The one font attnviz draws utf8 with (asserted: one font). */
static const char *font_of(const char *utf8) {
    const char *files[4];
    int n = av_text_fonts(utf8, 0, NULL, files, 4);
    if (n != 1) fail_msg("'%s' is drawn with %d fonts, expected 1 (is fonts-noto-core installed?)", utf8, n);
    return files[0];
}

/* hb-view's rendering of utf8 in attnviz's font at PX, margin 0, as a mask;
 * naive = 1: the fallback shaper, left to right (no OpenType, no bidi). */
static mask hb_mask(const char *dir, const char *utf8, int naive) {
    char out[4200], size[16];
    snprintf(out, sizeof out, "%s/hb.png", dir);
    snprintf(size, sizeof size, "%d", PX);
    const char *font = font_of(utf8);
    const char *shaped[] = {"--font-size", size, "--margin=0", "-O", "png", "-o", out, font, utf8, NULL};
    const char *plain[] = {"--shapers=fallback", "--direction=ltr", "--font-size", size, "--margin=0", "-O",
                           "png", "-o", out, font, utf8, NULL};
    int rc = hb_view(naive ? plain : shaped);
    if (rc != 0) fail_msg("hb-view failed (exit %d); install libharfbuzz-bin (scripts/install-deps.sh)", rc);
    return png_mask(out);
}

/* ---------------------------------------------------------------- words */

typedef struct {
    const char *what;
    const char *ltr_part, *rtl_part; /* mixed: the label is ltr_part + rtl_part */
} word;

/* Scores of one label: IoU with hb-view and with the naive rendering, each
 * after normalising; hb and naive themselves too (the case must discriminate). */
static void score(const char *dir, const word *wd, double *to_hb, double *to_naive, double *hb_naive) {
    char label[256];
    snprintf(label, sizeof label, "%s%s", wd->ltr_part, wd->rtl_part ? wd->rtl_part : "");
    mask ours = label_mask(label), hb, naive = hb_mask(dir, label, 1);
    if (wd->rtl_part) { /* bidi by hand: the left-to-right run, then the right-to-left run */
        mask a = hb_mask(dir, wd->ltr_part, 0), b = hb_mask(dir, wd->rtl_part, 0);
        hb = mask_concat(&a, &b);
        mask_free(&a);
        mask_free(&b);
    } else {
        hb = hb_mask(dir, label, 0);
    }
    int w = scaled_width(&hb);
    mask o = mask_normalise(&ours, w), h = mask_normalise(&hb, w), n = mask_normalise(&naive, w);
    *to_hb = iou(&o, &h);
    *to_naive = iou(&o, &n);
    *hb_naive = iou(&h, &n);
    print_message("[ shaping  ] %-34s IoU with hb-view %.3f, with naive %.3f (hb-view vs naive %.3f)\n", wd->what,
                  *to_hb, *to_naive, *hb_naive);
    mask_free(&ours);
    mask_free(&hb);
    mask_free(&naive);
    mask_free(&o);
    mask_free(&h);
    mask_free(&n);
}

static const word WORDS[] = {
    {"Devanagari नमस्ते (conjunct)", "नमस्ते", NULL},
    {"Devanagari किसान (vowel sign before)", "किसान", NULL},
    {"Arabic مرحبا (joining, RTL)", "مرحبا", NULL},
    {"Arabic اب (RTL)", "اب", NULL},
    {"Persian فارسی", "فارسی", NULL},
    {"Hebrew שלום (RTL)", "שלום", NULL},
    {"Tamil பொம்மை (split vowels)", "பொம்மை", NULL},
    {"Kannada ಕನ್ನಡ (subjoined)", "ಕನ್ನಡ", NULL},
    {"Malayalam കേരളം (vowel sign before)", "കേരളം", NULL},
    {"Bengali বিজ্ঞান (conjunct)", "বিজ্ঞান", NULL},
    {"mixed GPT-2 بالعربية (bidi)", "GPT-2 ", "بالعربية"},
};

/* Every word: closer to hb-view than to the naive rendering, by a margin,
 * and close to hb-view in absolute terms. All words are scored before the
 * test fails, so a failure shows every word's numbers. */
static void test_labels_match_hb_view(void **state) {
    const char *dir = *state;
    int bad = 0;
    for (size_t k = 0; k < sizeof WORDS / sizeof *WORDS; k++) {
        double to_hb, to_naive, hb_naive;
        score(dir, &WORDS[k], &to_hb, &to_naive, &hb_naive);
        if (!(to_hb > to_naive + 0.05 && to_hb > 0.80)) {
            print_error("%s: IoU with hb-view %.3f, not above 0.80 and naive + 0.05\n", WORDS[k].what, to_hb);
            bad++;
        }
        assert_true(hb_naive < 0.95); /* the word needs shaping or bidi at all */
    }
    assert_int_equal(bad, 0);
}

/* ---------------------------------------------------------------- direction and order */

static void test_paragraph_direction_from_text(void **state) {
    (void)state;
    assert_int_equal(av_text_is_rtl("שלום"), 1);
    assert_int_equal(av_text_is_rtl("مرحبا"), 1);
    assert_int_equal(av_text_is_rtl("GPT-2 بالعربية"), 0); /* first strong: G */
    assert_int_equal(av_text_is_rtl("2 بالعربية GPT"), 1);  /* digits are weak */
    assert_int_equal(av_text_is_rtl("नमस्ते"), 0);
    assert_int_equal(av_text_is_rtl("0.32"), 0); /* no strong character: left to right */
    assert_int_equal(av_text_is_rtl(""), 0);
}

/* The glyph indices of utf8, left to right, into out; returns how many. */
static int glyph_ids(const char *utf8, unsigned *out, int cap) {
    av_text_layout lay;
    assert_int_equal(av_text_lay(utf8, 20, 0, &lay), 0);
    int n = lay.n < cap ? lay.n : cap;
    for (int k = 0; k < n; k++) out[k] = lay.g[k].gid;
    for (int k = 1; k < lay.n; k++) assert_true(lay.g[k].x >= lay.g[k - 1].x - 20 * 64); /* left to right */
    av_text_layout_free(&lay);
    return n;
}

/* UAX #9: in a left-to-right paragraph the Arabic run keeps its own shaped
 * (right-to-left) glyph order after the Latin run; in a right-to-left
 * paragraph the Latin run comes last, in its own order. */
static void test_mixed_runs_in_display_order(void **state) {
    (void)state;
    unsigned latin[16], arabic[32], mixed[64];
    int nl = glyph_ids("GPT-2", latin, 16), na = glyph_ids("بالعربية", arabic, 32);
    int nm = glyph_ids("GPT-2 بالعربية", mixed, 64);
    assert_int_equal(nm, nl + 1 + na);
    assert_memory_equal(mixed, latin, (size_t)nl * sizeof *latin);
    assert_memory_equal(mixed + nl + 1, arabic, (size_t)na * sizeof *arabic);
    nm = glyph_ids("بالعربية GPT-2", mixed, 64);
    assert_int_equal(nm, nl + 1 + na);
    assert_memory_equal(mixed, latin, (size_t)nl * sizeof *latin);
    assert_memory_equal(mixed + nl + 1, arabic, (size_t)na * sizeof *arabic);
}

/* A word of one script is shaped with one font, whole: a Latin prefix adds
 * its own font, the Devanagari run keeps one. */
static void test_font_per_script_run(void **state) {
    (void)state;
    const char *fam[4];
    assert_int_equal(av_text_fonts("नमस्ते", 0, fam, NULL, 4), 1);
    const char *deva = fam[0];
    assert_int_equal(av_text_fonts("query नमस्ते", 0, fam, NULL, 4), 2);
    assert_string_equal(fam[1], deva);
    av_text_layout lay;
    assert_int_equal(av_text_lay("नमस्ते", 20, 0, &lay), 0);
    assert_true(lay.n >= 3);
    for (int k = 1; k < lay.n; k++) assert_int_equal(lay.g[k].slot, lay.g[0].slot);
    assert_int_equal(lay.missing, 0);
    assert_int_equal(lay.chars, 6);
    av_text_layout_free(&lay);
}

/* Does the font file have a glyph for every code point of cps (FreeType's own
 * reading of its character map, not attnviz's)? */
static int file_has_all(const char *file, const unsigned *cps, int n) {
    FT_Library ft;
    FT_Face face;
    assert_int_equal(FT_Init_FreeType(&ft), 0);
    assert_int_equal(FT_New_Face(ft, file, 0, &face), 0);
    int all = 1;
    for (int k = 0; k < n; k++) all &= FT_Get_Char_Index(face, cps[k]) != 0;
    FT_Done_Face(face);
    FT_Done_FreeType(ft);
    return all;
}

/* A grapheme cluster is drawn from one font that has all of its code points,
 * so HarfBuzz attaches its marks to its base: "a⃝" (U+20DD, which DejaVu Sans
 * lacks), the keycaps "1⃣" and "1️⃣" (U+20E3, which DejaVu Sans lacks), in
 * both weights. Before, the base came from DejaVu Sans and the mark from the
 * first font that had it (two fonts; the mark beside the base). In a line,
 * av_text_cluster_fonts names those clusters by their bytes (counted by
 * hand: “ is 3 bytes, a⃝ 1 + 3, 1⃣ 1 + 3, 1️⃣ 1 + 3 + 3), and the letters
 * around them keep the label font (the one "x" alone is drawn with): a
 * symbol font that has a and U+20DD no longer takes the whole Latin run. */
static void test_cluster_is_drawn_from_one_font(void **state) {
    (void)state;
    static const struct {
        const char *utf8;
        unsigned cps[2]; /* its code points but the default-ignorable U+FE0F */
    } CL[] = {{"a\xE2\x83\x9D", {'a', 0x20DD}}, {"1\xE2\x83\xA3", {'1', 0x20E3}},
              {"1\xEF\xB8\x8F\xE2\x83\xA3", {'1', 0x20E3}}, {"#\xEF\xB8\x8F\xE2\x83\xA3", {'#', 0x20E3}}};
    for (int bold = 0; bold < 2; bold++)
        for (size_t c = 0; c < sizeof CL / sizeof *CL; c++) {
            const char *files[4];
            int n = av_text_fonts(CL[c].utf8, bold, NULL, files, 4);
            if (n != 1) fail_msg("'%s' (bold %d) is drawn with %d fonts, expected 1", CL[c].utf8, bold, n);
            if (!file_has_all(files[0], CL[c].cps, 2))
                fail_msg("'%s' (bold %d) is drawn with %s, which lacks some of it", CL[c].utf8, bold, files[0]);
        }
    const char *line = "\xE2\x80\x9C" "a\xE2\x83\x9D 1\xE2\x83\xA3 1\xEF\xB8\x8F\xE2\x83\xA3\xE2\x80\x9D x";
    av_text_span sp[4];
    assert_int_equal(av_text_cluster_fonts(line, 0, sp, 4), 3);
    size_t want[3][2] = {{3, 4}, {8, 4}, {13, 7}};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(sp[k].start, want[k][0]);
        assert_int_equal(sp[k].len, want[k][1]);
        assert_non_null(sp[k].family);
    }
    const char *fam_x[2], *fam_line[4];
    assert_int_equal(av_text_fonts("x", 0, fam_x, NULL, 2), 1);
    assert_true(av_text_fonts(line, 0, fam_line, NULL, 4) >= 2);
    assert_string_equal(fam_line[0], fam_x[0]); /* the quote and x: the label font */
    assert_int_equal(av_text_cluster_fonts("x \xC3\xA9 e\xCC\x81", 0, sp, 4), 0); /* é, e + U+0301: one font already */
}

/* Advance of the glyph before the last one (1/64 px): the ” in "...”x". */
static int32_t second_last_advance(const char *utf8, int *same_font_as_last, int *fonts_differ) {
    av_text_layout lay;
    assert_int_equal(av_text_lay(utf8, 20, 1, &lay), 0);
    assert_true(lay.n >= 2);
    int32_t adv = lay.g[lay.n - 1].x - lay.g[lay.n - 2].x;
    *same_font_as_last = lay.g[lay.n - 2].slot == lay.g[lay.n - 1].slot && lay.g[0].slot == lay.g[lay.n - 1].slot;
    *fonts_differ = 0;
    for (int k = 0; k < lay.n; k++) *fonts_differ |= lay.g[k].slot != lay.g[0].slot;
    av_text_layout_free(&lay);
    return adv;
}

/* Quotes around an isolated sentence (FSI ... PDI, as figures.c's titles put
 * a non-ASCII sentence) belong to the line around it: in "“⁨我爱⁩”x" both quotes
 * take x's Latin font and ” is exactly as wide as in "”x" (hand-worked: the
 * same glyph of the same font at the same size), while the Han letters keep
 * their CJK font. Without the isolate the quotes join the Han run and take
 * the CJK font (the user's own Chinese quotes, full width, stay so). */
static void test_isolate_keeps_quotes_in_the_outer_script(void **state) {
    (void)state;
    int same, differ;
    int32_t alone = second_last_advance("\u201Dx", &same, &differ);
    assert_true(same);
    int32_t isolated = second_last_advance("\u201C\u2068\u6211\u7231\u2069\u201Dx", &same, &differ);
    assert_true(same);
    assert_true(differ);
    assert_int_equal(isolated, alone);
    int32_t joined = second_last_advance("\u201C\u6211\u7231\u201Dx", &same, &differ);
    assert_false(same);
    assert_true(joined != alone);
}

/* Glyph k of utf8 laid out at 20 px: its font slot and advance (1/64 px,
 * to the next glyph, or to the line's end). */
static void glyph_at(const char *utf8, int k, int *slot, int32_t *advance) {
    av_text_layout lay;
    assert_int_equal(av_text_lay(utf8, 20, 0, &lay), 0);
    assert_true(k < lay.n);
    *slot = lay.g[k].slot;
    *advance = (k + 1 < lay.n ? lay.g[k + 1].x : lay.width) - lay.g[k].x;
    av_text_layout_free(&lay);
}

/* Digits, the space and ASCII punctuation next to Chinese are drawn by the
 * label font, as matplotlib's per-glyph fallback draws them: the row label
 * "14 元" has the digits of "16 ，" and "44 x" (before, the digits joined
 * the Han run and took the CJK font's smaller ones), and in a title's
 * `"你", then` the space after the comma is as wide as in `"x", then` (the
 * CJK font's left almost no gap). Full-width ， stays with the CJK font. */
static void test_latin1_next_to_han_uses_the_label_font(void **state) {
    (void)state;
    int latin, han, punct, s;
    int32_t a_latin, a_han, a_punct, a;
    glyph_at("44 x", 0, &latin, &a_latin);
    glyph_at("14 \u5143", 0, &han, &a_han);    /* 14 元 */
    glyph_at("16 \uFF0C", 0, &punct, &a_punct); /* 16 ， */
    assert_int_equal(han, latin);
    assert_int_equal(punct, latin);
    assert_int_equal(a_han, a_latin);
    assert_int_equal(a_punct, a_latin);
    glyph_at("14 \u5143", 3, &han, &a);
    assert_int_not_equal(han, latin); /* 元 itself: the CJK font */
    glyph_at("16 \uFF0C", 3, &punct, &a);
    assert_int_equal(punct, han);      /* ，: the CJK font too */
    glyph_at("\"x\", then", 3, &s, &a_latin); /* the space after the comma */
    glyph_at("\"\u4F60\", then", 3, &s, &a);
    assert_int_equal(s, latin);
    assert_int_equal(a, a_latin);
}

/* ---------------------------------------------------------------- widths and anchors */

/* Ink column range of a rendered single text item. */
static void ink_columns(const char *utf8, av_anchor anchor, float x, int *lo, int *hi) {
    av_dlist dl;
    av_dl_init(&dl, 400, 60, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, utf8, x, 40, 24, anchor, 0, 0, (av_rgb){0, 0, 0});
    unsigned char *rgb;
    size_t stride;
    av_err err;
    assert_int_equal(av_raster_render(&dl, &rgb, &stride, &err), AV_OK);
    *lo = 400, *hi = -1;
    for (int y = 0; y < 60; y++)
        for (int c = 0; c < 400; c++)
            if (rgb[(size_t)y * stride + (size_t)c * 3] < 128) {
                if (c < *lo) *lo = c;
                if (c > *hi) *hi = c;
            }
    av_big_free(rgb);
    av_dl_free(&dl);
}

/* The measured (shaped) width is the drawn extent, and START is the left
 * end of the run whatever its direction, END its right end: labels placed
 * by plot.c from measured widths neither overlap ticks nor leave gaps. */
static void test_measured_width_is_drawn_extent(void **state) {
    (void)state;
    static const char *const words[] = {"مرحبا", "שלום", "नमस्ते", "GPT-2 بالعربية", "ಕನ್ನಡ"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        av_text_metrics m;
        av_text_measure(words[k], 24, 0, &m);
        assert_true(m.width > 10);
        int lo, hi;
        ink_columns(words[k], AV_ANCHOR_START, 100, &lo, &hi);
        assert_in_range(lo, 96, 104);
        assert_in_range(hi, 100 + (int)m.width - 5, 100 + (int)m.width + 4);
        ink_columns(words[k], AV_ANCHOR_END, 300, &lo, &hi);
        assert_in_range(hi, 294, 303);
        assert_in_range(lo, 300 - (int)m.width - 4, 300 - (int)m.width + 5);
    }
}

/* A script no installed font has still draws boxes, counted as missing,
 * while the rest of the label is shaped. */
static void test_script_without_font_draws_boxes(void **state) {
    (void)state;
    /* Rare scripts; the first one without a font here (Tangut, Nushu, Kawi, Nag Mundari). */
    static const unsigned cps[] = {0x17000, 0x1B170, 0x11F04, 0x1E4D0};
    unsigned cp = 0;
    for (size_t k = 0; k < sizeof cps / sizeof *cps && !cp; k++)
        if (!av_text_has_glyph(cps[k])) cp = cps[k];
    if (!cp) skip();
    char label[32] = "नमस्ते ";
    size_t n = strlen(label);
    label[n++] = (char)(0xF0 | (cp >> 18));
    label[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    label[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    label[n++] = (char)(0x80 | (cp & 0x3F));
    label[n] = 0;
    av_text_layout lay;
    assert_int_equal(av_text_lay(label, 20, 0, &lay), 0);
    assert_int_equal(lay.missing, 1);
    assert_int_equal(lay.g[lay.n - 1].slot, -1); /* the box, last (left to right) */
    assert_int_equal(lay.g[lay.n - 1].x + av_text_box_advance(20), lay.width);
    av_text_layout_free(&lay);
    unsigned miss[4];
    assert_int_equal(av_text_missing_codepoints(label, 0, miss, 4), 1);
    assert_int_equal(miss[0], cp);
}

/* ---------------------------------------------------------------- loading in advance */

/* The glyphs (font, glyph id, pen position), width and missing count of
 * utf8 at size px, as one string. */
static char *layout_text_at(const char *utf8, float size, int bold) {
    av_text_layout lay;
    assert_int_equal(av_text_lay(utf8, size, bold, &lay), 0);
    size_t cap = 64 + (size_t)lay.n * 48, at = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    at += (size_t)snprintf(out + at, cap - at, "n=%zu w=%d miss=%d:", (size_t)lay.n, (int)lay.width, lay.missing);
    for (size_t k = 0; k < (size_t)lay.n; k++)
        at += (size_t)snprintf(out + at, cap - at, " %d/%u@%d,%d", lay.g[k].slot >= 0, lay.g[k].gid, (int)lay.g[k].x,
                               (int)lay.g[k].y);
    av_text_layout_free(&lay);
    return out;
}

/* The same at 24 px, regular. */
static char *layout_text(const char *utf8) {
    return layout_text_at(utf8, 24, 0);
}

/* Fonts loaded in advance on the loader thread (av_text_prepare, as main()
 * does while the model runs) give the same layouts as fonts loaded on first
 * use; a second av_text_prepare, or one after the fonts are loaded, changes
 * nothing; av_text_use_fonts with the list already in use keeps it (the
 * bundled DejaVu Sans still draws Latin), and every call after
 * av_text_prepare waits for the loader, so none sees half-loaded fonts. */
static void test_prepare_gives_the_same_layouts(void **state) {
    (void)state;
    static const char *const labels[] = {"I love deep learning", "我爱深度学习", "مرحبا", "नमस्ते", "0.64"};
    enum { N = sizeof labels / sizeof *labels };
    char fonts[2][4200];
    snprintf(fonts[0], sizeof fonts[0], "%s", src_path("assets/fonts/DejaVuSans.ttf"));
    snprintf(fonts[1], sizeof fonts[1], "%s", src_path("assets/fonts/DejaVuSans-Bold.ttf"));
    const char *const files[2] = {fonts[0], fonts[1]};
    char *lazy[N];
    av_text_shutdown();
    assert_int_equal(av_text_use_fonts(files, 2), 2);
    for (int k = 0; k < N; k++) lazy[k] = layout_text(labels[k]); /* loaded on first use */
    for (int round = 0; round < 2; round++) {
        av_text_shutdown();
        assert_int_equal(av_text_use_fonts(files, 2), 2);
        av_text_prepare();
        av_text_prepare();
        if (round == 1) assert_int_equal(av_text_use_fonts(files, 2), 2); /* waits, then keeps the list */
        for (int k = 0; k < N; k++) {
            char *early = layout_text(labels[k]);
            assert_string_equal(early, lazy[k]);
            free(early);
        }
        av_text_prepare(); /* loaded already: nothing */
        const char *file[2];
        assert_int_equal(av_text_fonts("learning", 0, NULL, file, 2), 1);
        assert_string_equal(file[0], fonts[0]);
    }
    for (int k = 0; k < N; k++) free(lazy[k]);
    av_text_shutdown();
}

/* A new font list empties every cache: the layouts, the code point → font
 * table and the glyph bitmaps kept for the old fonts are not reused. With
 * DejaVu Sans Bold given as the regular face, "learning" must be laid out as
 * a fresh start with that list lays it out (wider than DejaVu Sans), and
 * again after switching back. unload() resets only the cache entries that
 * were filled, so this checks that it finds all of them. */
static void test_new_font_list_empties_the_caches(void **state) {
    (void)state;
    char reg[4200], bold[4200];
    snprintf(reg, sizeof reg, "%s", src_path("assets/fonts/DejaVuSans.ttf"));
    snprintf(bold, sizeof bold, "%s", src_path("assets/fonts/DejaVuSans-Bold.ttf"));
    const char *const normal[2] = {reg, bold}, *const heavy[2] = {bold, bold};
    static const char *const words[] = {"learning", "I love deep learning", "0.64"};
    enum { N = sizeof words / sizeof *words };
    char *fresh[2][N];
    for (int f = 0; f < 2; f++) { /* each list from a clean start */
        av_text_shutdown();
        assert_int_equal(av_text_use_fonts(f ? heavy : normal, 2), 2);
        for (int k = 0; k < N; k++) fresh[f][k] = layout_text(words[k]);
    }
    assert_string_not_equal(fresh[0][0], fresh[1][0]); /* the two lists really differ */
    av_text_shutdown();
    for (int round = 0; round < 4; round++) { /* normal, heavy, normal, heavy: no clean start between */
        int f = round % 2;
        assert_int_equal(av_text_use_fonts(f ? heavy : normal, 2), 2);
        for (int k = 0; k < N; k++) {
            char *got = layout_text(words[k]);
            assert_string_equal(got, fresh[f][k]);
            free(got);
            av_glyph_bitmap bm;
            av_text_layout lay;
            assert_int_equal(av_text_lay(words[k], 24, 0, &lay), 0);
            for (int g = 0; g < lay.n; g++) /* fills the glyph cache, to be emptied by the next switch */
                if (lay.g[g].slot >= 0) assert_int_equal(av_text_glyph_render(&lay.g[g], lay.g[g].x, 24, &bm), 0);
            av_text_layout_free(&lay);
        }
    }
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < N; k++) free(fresh[f][k]);
    av_text_shutdown();
}

/* ---------------------------------------------------------------- fontconfig on demand */

/* The bundled regular [0] and bold [1] files into fonts and registered. */
static void use_bundled(char fonts[2][4200]) {
    snprintf(fonts[0], 4200, "%s", src_path("assets/fonts/DejaVuSans.ttf"));
    snprintf(fonts[1], 4200, "%s", src_path("assets/fonts/DejaVuSans-Bold.ttf"));
    const char *const files[2] = {fonts[0], fonts[1]};
    assert_int_equal(av_text_use_fonts(files, 2), 2);
}

/* Lay out, measure and draw every glyph of utf8 at 24 px, and ask for its
 * missing code points: everything a figure does with a label. */
static void use_label(const char *utf8, int bold) {
    av_text_layout lay;
    av_text_metrics m;
    av_glyph_bitmap bm;
    unsigned miss[8];
    assert_int_equal(av_text_lay(utf8, 24, bold, &lay), 0);
    for (int g = 0; g < lay.n; g++)
        if (lay.g[g].slot >= 0) assert_int_equal(av_text_glyph_render(&lay.g[g], lay.g[g].x, 24, &bm), 0);
    av_text_layout_free(&lay);
    av_text_measure(utf8, 24, bold, &m);
    assert_true(m.width > 0);
    assert_int_equal(av_text_missing_codepoints(utf8, bold, miss, 8), 0);
}

/* Issue 13: with the bundled fonts registered, ASCII labels (regular and
 * bold: tokens, digits, the title) are drawn without starting fontconfig,
 * and so is an av_text_prepare_for of an ASCII sentence; a Chinese label (a
 * character DejaVu Sans lacks), an Arabic one (a run with a language; DejaVu
 * Sans has the letters, fontconfig's choice for "ar" still decides), a
 * character DejaVu Sans lacks in a Latin word, no bundled fonts, or
 * av_text_prepare_for of a Chinese sentence (on the loader thread, before
 * any label) do start it. */
static void test_ascii_labels_leave_fontconfig_unloaded(void **state) {
    (void)state;
    char fonts[2][4200];
    av_text_shutdown();
    use_bundled(fonts);
    char ascii[96];
    for (int c = 0x20; c < 0x7F; c++) ascii[c - 0x20] = (char)c;
    ascii[0x7F - 0x20] = 0;
    use_label(ascii, 0);
    use_label(ascii, 1);
    use_label("I love deep learning", 0);
    use_label("head 0 of 8 \xC2\xB7 positions: sinusoidal", 1); /* the middle dot is in DejaVu Sans */
    assert_true(av_text_has_glyph('A'));
    const char *file[2];
    assert_int_equal(av_text_fonts("learning", 1, NULL, file, 2), 1);
    assert_string_equal(file[0], fonts[1]);
    assert_int_equal(av_text_fontconfig_loaded(), 0);
    use_label("我爱深度学习", 0);
    assert_int_equal(av_text_fontconfig_loaded(), 1);

    static const char *const need[] = {"مرحبا", "deep 学习", "नमस्ते"};
    for (size_t k = 0; k < sizeof need / sizeof *need; k++) {
        av_text_shutdown();
        use_bundled(fonts);
        av_text_layout lay;
        assert_int_equal(av_text_lay(need[k], 24, 0, &lay), 0);
        av_text_layout_free(&lay);
        if (!av_text_fontconfig_loaded()) fail_msg("'%s' was laid out without fontconfig", need[k]);
    }

    av_text_shutdown(); /* no bundled fonts: only fontconfig can find one */
    use_label("I love deep learning", 0);
    assert_int_equal(av_text_fontconfig_loaded(), 1);

    av_text_shutdown();
    use_bundled(fonts);
    av_text_prepare_for("I love deep learning");
    assert_int_equal(av_text_fontconfig_loaded(), 0); /* waits for the thread */
    use_label("I love deep learning", 0);
    assert_int_equal(av_text_fontconfig_loaded(), 0);
    av_text_shutdown();
    use_bundled(fonts);
    av_text_prepare_for("我爱深度学习");
    assert_int_equal(av_text_fontconfig_loaded(), 1); /* loaded by the thread, no label yet */
    av_text_shutdown();
    use_bundled(fonts);
    av_text_prepare_for("مرحبا");
    assert_int_equal(av_text_fontconfig_loaded(), 1);
    av_text_shutdown();
}

/* The independent evidence that the bundled face is the face fontconfig
 * gives (textlayout.c fast_faces): fontconfig itself, queried here without
 * attnviz's code. For the list attnviz asks for (the families "DejaVu Sans,
 * Noto Sans CJK SC, sans-serif", weight regular or bold, upright: the
 * application fonts sorted by it, then the system's), the first font whose
 * character set has each ASCII code point is the bundled file of that
 * weight; and fontconfig's character set of each bundled file is exactly
 * its FreeType character map (what attnviz checks in place of it), over all
 * of Unicode. */
static void test_fontconfig_puts_the_bundled_faces_first(void **state) {
    (void)state;
    char fonts[2][4200];
    av_text_shutdown(); /* fontconfig's global state is this test's alone */
    snprintf(fonts[0], sizeof fonts[0], "%s", src_path("assets/fonts/DejaVuSans.ttf"));
    snprintf(fonts[1], sizeof fonts[1], "%s", src_path("assets/fonts/DejaVuSans-Bold.ttf"));
    FcConfig *fc = FcInitLoadConfigAndFonts();
    assert_non_null(fc);
    for (int b = 0; b < 2; b++) assert_true(FcConfigAppFontAddFile(fc, (const FcChar8 *)fonts[b]));
    FcFontSet *app = FcConfigGetFonts(fc, FcSetApplication);
    assert_non_null(app);
    assert_int_equal(app->nfont, 2);
    for (int bold = 0; bold < 2; bold++) {
        FcPattern *pat = FcNameParse((const FcChar8 *)"DejaVu Sans,Noto Sans CJK SC,sans-serif");
        FcPatternAddInteger(pat, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR);
        FcPatternAddInteger(pat, FC_SLANT, FC_SLANT_ROMAN);
        FcConfigSubstitute(fc, pat, FcMatchPattern);
        FcDefaultSubstitute(pat);
        FcResult res;
        FcFontSet *lists[2] = {FcFontSetSort(fc, &app, 1, pat, FcFalse, NULL, &res), FcFontSort(fc, pat, FcFalse, NULL, &res)};
        assert_non_null(lists[0]);
        for (unsigned cp = 0x20; cp < 0x7F; cp++) {
            const char *first = NULL;
            for (int l = 0; l < 2 && !first; l++)
                for (int k = 0; lists[l] && k < lists[l]->nfont && !first; k++) {
                    FcCharSet *cs;
                    FcChar8 *file;
                    if (FcPatternGetCharSet(lists[l]->fonts[k], FC_CHARSET, 0, &cs) == FcResultMatch &&
                        FcCharSetHasChar(cs, cp) && FcPatternGetString(lists[l]->fonts[k], FC_FILE, 0, &file) == FcResultMatch)
                        first = (const char *)file;
                }
            if (!first || strcmp(first, fonts[bold]) != 0)
                fail_msg("U+%04X %s: fontconfig's first font is %s, not %s", cp, bold ? "bold" : "regular",
                         first ? first : "none", fonts[bold]);
        }
        for (int l = 0; l < 2; l++)
            if (lists[l]) FcFontSetDestroy(lists[l]);
        FcPatternDestroy(pat);
    }
    FT_Library ft;
    assert_int_equal(FT_Init_FreeType(&ft), 0);
    for (int k = 0; k < app->nfont; k++) {
        FcChar8 *file;
        FcCharSet *cs;
        FT_Face face;
        assert_int_equal(FcPatternGetString(app->fonts[k], FC_FILE, 0, &file), FcResultMatch);
        assert_int_equal(FcPatternGetCharSet(app->fonts[k], FC_CHARSET, 0, &cs), FcResultMatch);
        assert_int_equal(FT_New_Face(ft, (const char *)file, 0, &face), 0);
        unsigned differ = 0, n_fc = 0, n_ft = 0;
        for (unsigned cp = 0; cp < 0x110000; cp++) {
            int in_ft = FT_Get_Char_Index(face, cp) != 0, in_fc = FcCharSetHasChar(cs, cp) != 0;
            n_ft += (unsigned)in_ft;
            n_fc += (unsigned)in_fc;
            if (in_ft != in_fc && !differ++) print_message("%s U+%04X: FreeType %d, fontconfig %d\n", file, cp, in_ft, in_fc);
        }
        assert_true(n_ft > 5000); /* DejaVu Sans: about 5,900 */
        assert_int_equal(n_fc, n_ft);
        assert_int_equal(differ, 0);
        FT_Done_Face(face);
    }
    FT_Done_FreeType(ft);
    FcConfigDestroy(fc);
    FcFini(); /* as av_text_shutdown does: the next text starts fontconfig afresh */
}

/* ---------------------------------------------------------------- SVG */

/* ---------------------------------------------------------------- glyph bitmaps */

/* Every glyph bitmap equals FreeType's own rendering of that glyph, the
 * independent reference, done here without attnviz's code: the bundled face
 * at the size (72 dpi), FT_Load_Glyph with light hinting, the outline moved
 * by the sub-pixel offset, FT_Render_Glyph anti-aliased. attnviz keeps the
 * hinted outline per glyph and size and rasterises it per offset (and keeps
 * the bitmaps): the glyphs of a label, regular and bold, at three sizes and
 * 22 offsets in 1/64 px, twice (the second time from the caches). */
static void test_glyph_bitmaps_equal_freetype_rendering(void **state) {
    (void)state;
    static const float sizes[] = {9.5f, 14, 31.7f};
    static const char label[] = "AVATAR learning 0.25 Wg";
    char fonts[2][4200];
    av_text_shutdown();
    use_bundled(fonts);
    FT_Library ft;
    assert_int_equal(FT_Init_FreeType(&ft), 0);
    int checked = 0;
    for (int round = 0; round < 2; round++)
        for (int b = 0; b < 2; b++) {
            FT_Face face;
            assert_int_equal(FT_New_Face(ft, fonts[b], 0, &face), 0);
            for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                FT_F26Dot6 s26 = (FT_F26Dot6)(sizes[z] * 64.0f + 0.5f);
                assert_int_equal(FT_Set_Char_Size(face, 0, s26, 72, 72), 0);
                av_text_layout lay;
                assert_int_equal(av_text_lay(label, sizes[z], b, &lay), 0);
                for (int k = 0; k < lay.n; k++)
                    for (int32_t fx = 0; fx < 64; fx += 3) {
                        av_glyph_bitmap got;
                        int32_t x = 640 + fx; /* 10 px and fx/64 */
                        assert_int_equal(av_text_glyph_render(&lay.g[k], x, sizes[z], &got), 0);
                        assert_int_equal(FT_Load_Glyph(face, lay.g[k].gid, FT_LOAD_TARGET_LIGHT), 0);
                        FT_Outline_Translate(&face->glyph->outline, fx, 0);
                        assert_int_equal(FT_Render_Glyph(face->glyph, FT_RENDER_MODE_NORMAL), 0);
                        const FT_Bitmap *want = &face->glyph->bitmap;
                        assert_int_equal(got.rows, (int)want->rows);
                        assert_int_equal(got.cols, (int)want->width);
                        assert_int_equal(got.left, 10 + face->glyph->bitmap_left);
                        assert_int_equal(got.top, face->glyph->bitmap_top);
                        for (int r = 0; r < got.rows; r++)
                            assert_memory_equal(got.bits + (size_t)r * got.pitch, want->buffer + (ptrdiff_t)r * want->pitch,
                                                (size_t)got.cols);
                        checked++;
                    }
                av_text_layout_free(&lay);
            }
            FT_Done_Face(face);
        }
    assert_int_equal(checked, 2 * 2 * 3 * 23 * 22); /* every glyph of the label is drawn by the bundled faces */
    FT_Done_FreeType(ft);
    av_text_shutdown();
}

/* ---------------------------------------------------------------- direct shaping */

/* Labels for test_direct_shaping_matches_raqm: the ones attnviz draws in
 * every figure (tokens, numbers, titles), Latin with kerning pairs and
 * ligatures, Chinese and Cyrillic alone and with digits, brackets and
 * default ignorables; and lines raqm must shape (two scripts, marks,
 * right to left, an isolate, a zero-width joiner: Inherited). */
static const char *const DIRECT_LABELS[] = {
    "I love deep learning", "0.25", "1.00", "head 3 of 8 \xC2\xB7 positions: sinusoidal", "AVATAR To Wa Ty Yo",
    "office fluffy", "\xC4\xA0learning", "<|endoftext|>", "3 1 4 1 5 >", "(\"quoted\") [x] {y} 42%",
    "x \xE2\x86\x92 y \xE2\x80\x94 z", "soft\xC2\xADhy\xE2\x80\x8Bphen", "  ", "\xE6\x88\x91\xE7\x88\xB1\xE6\xB7\xB1\xE5\xBA\xA6\xE5\xAD\xA6\xE4\xB9\xA0",
    "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B\xEF\xBC\x88\xE7\xAC\xAC 3 \xE4\xB8\xAA\xEF\xBC\x89", "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, 2024!",
    "deep \xE5\xAD\xA6\xE4\xB9\xA0", "u\xCC\x88" "ber", "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D", "GPT-2 \xD8\xA8\xD8\xA7\xD9\x84\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A\xD8\xA9",
    "a \xE2\x81\xA8" "b\xE2\x81\xA9 c", "zw\xE2\x80\x8Dj",
};

/* Lines shaped by HarfBuzz straight (av_text_use_direct_shaping, one
 * HarfBuzz font kept per face and told of each size change) get exactly the
 * glyphs, positions and widths raqm gives them, the independent reference:
 * every label at four sizes, regular and bold, sizes interleaved so that the
 * kept fonts change size between labels, laid out twice in different
 * orders. Both ways are exercised: some labels go straight, some
 * (two scripts, marks, right to left, an isolate, a joiner) still through raqm. */
static void test_direct_shaping_matches_raqm(void **state) {
    (void)state;
    enum { N = sizeof DIRECT_LABELS / sizeof *DIRECT_LABELS, S = 4 };
    static const float sizes[S] = {9.5f, 13, 24, 31.7f};
    char *want[N][S][2];
    char fonts[2][4200];
    av_text_shutdown();
    use_bundled(fonts);
    av_text_use_direct_shaping(0);
    for (int k = 0; k < N; k++)
        for (int z = 0; z < S; z++)
            for (int b = 0; b < 2; b++) want[k][z][b] = layout_text_at(DIRECT_LABELS[k], sizes[z], b);
    av_text_use_direct_shaping(1);
    int direct = 0;
    for (int k = 0; k < N; k++) direct += av_text_shapes_directly(DIRECT_LABELS[k]);
    assert_int_equal(direct, N - 6); /* the last six need raqm */
    for (int k = N - 6; k < N; k++) assert_int_equal(av_text_shapes_directly(DIRECT_LABELS[k]), 0);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N * S * 2; i++) {
            int k = round ? N - 1 - i / (2 * S) : i / (2 * S), z = round ? i % S : S - 1 - i % S, b = (i / S) % 2;
            char *got = layout_text_at(DIRECT_LABELS[k], sizes[z], b);
            if (strcmp(got, want[k][z][b]) != 0)
                fail_msg("'%s' at %.1f px%s: straight %s, raqm %s", DIRECT_LABELS[k], sizes[z], b ? " bold" : "", got,
                         want[k][z][b]);
            free(got);
        }
        av_text_shutdown(); /* the second round loads the faces again */
        use_bundled(fonts);
    }
    for (int k = 0; k < N; k++)
        for (int z = 0; z < S; z++)
            for (int b = 0; b < 2; b++) free(want[k][z][b]);
    av_text_shutdown();
}

/* The SVG gives the viewer the raster's direction and visual anchor: an RTL
 * label anchored at its left end says direction="rtl" text-anchor="end". */
static void test_svg_direction_and_anchor(void **state) {
    const char *dir = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s/t.svg", dir);
    av_dlist dl;
    av_dl_init(&dl, 300, 100, (av_rgb){255, 255, 255});
    av_dl_text_run(&dl, "مرحبا", 10, 30, 16, AV_ANCHOR_START, 0, 0, (av_rgb){0, 0, 0});
    av_dl_text_run(&dl, "GPT-2 بالعربية", 150, 60, 16, AV_ANCHOR_MIDDLE, 0, 0, (av_rgb){0, 0, 0});
    av_dl_text_run(&dl, "नमस्ते", 290, 90, 16, AV_ANCHOR_END, 0, 0, (av_rgb){0, 0, 0});
    av_err err;
    assert_int_equal(av_svg_write(path, &dl, NULL, NULL, &err), AV_OK);
    av_dl_free(&dl);
    char *svg = tu_slurp_file(path, NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "text-anchor=\"end\" fill=\"#000000\" direction=\"rtl\" unicode-bidi=\"embed\">"
                                "مرحبا</text>"));
    assert_non_null(strstr(svg, "text-anchor=\"middle\" fill=\"#000000\">GPT-2 بالعربية</text>"));
    const char *fam[2];
    assert_int_equal(av_text_fonts("नमस्ते", 0, fam, NULL, 2), 1);
    char want[256];
    snprintf(want, sizeof want, "text-anchor=\"end\" fill=\"#000000\" font-family=\"'%s', ", fam[0]);
    assert_non_null(strstr(svg, want));
    free(svg);
}

static int setup(void **state) {
    *state = make_tmpdir();
    return 0;
}

static int teardown(void **state) {
    rm_rf(*state);
    return 0;
}

/* A Japanese text sets Han characters in Japanese forms (av_text_use_cjk_language "ja"): 直 and 骨 have forms of
 * their own in Japanese and Chinese, and Noto Sans CJK picks them by the OpenType language (hb-shape
 * --language=ja gives another glyph than --language=zh on the same face). A sentence with kana drew them in the
 * Chinese forms. Chinese text (the default, NULL) is unchanged, and kana and Latin keep their glyphs. */
static void test_japanese_text_gets_japanese_forms(void **state) {
    (void)state;
    static const char *const han[] = {"\xE7\x9B\xB4", "\xE9\xAA\xA8"}; /* 直 骨 */
    for (size_t i = 0; i < 2; i++) {
        av_text_layout zh, ja, again;
        av_text_use_cjk_language(NULL);
        assert_int_equal(av_text_lay(han[i], 20, 0, &zh), 0);
        av_text_use_cjk_language("ja");
        assert_string_equal(av_text_cjk_language(), "ja");
        assert_int_equal(av_text_lay(han[i], 20, 0, &ja), 0);
        av_text_use_cjk_language(NULL);
        assert_null(av_text_cjk_language());
        assert_int_equal(av_text_lay(han[i], 20, 0, &again), 0);
        if (zh.n != 1 || ja.n != 1 || again.n != 1 || zh.missing || ja.missing)
            fail_msg("%s: %d / %d glyphs, missing %d / %d (Noto Sans CJK installed?)", han[i], zh.n, ja.n, zh.missing,
                     ja.missing);
        if (zh.g[0].gid == ja.g[0].gid) fail_msg("%s: the same glyph %u in Chinese and Japanese", han[i], zh.g[0].gid);
        assert_int_equal(again.g[0].gid, zh.g[0].gid);
        av_text_layout_free(&zh);
        av_text_layout_free(&ja);
        av_text_layout_free(&again);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_labels_match_hb_view, setup, teardown),
        cmocka_unit_test(test_paragraph_direction_from_text),
        cmocka_unit_test(test_mixed_runs_in_display_order),
        cmocka_unit_test(test_font_per_script_run),
        cmocka_unit_test(test_cluster_is_drawn_from_one_font),
        cmocka_unit_test(test_isolate_keeps_quotes_in_the_outer_script),
        cmocka_unit_test(test_latin1_next_to_han_uses_the_label_font),
        cmocka_unit_test(test_measured_width_is_drawn_extent),
        cmocka_unit_test(test_script_without_font_draws_boxes),
        cmocka_unit_test(test_prepare_gives_the_same_layouts),
        cmocka_unit_test(test_new_font_list_empties_the_caches),
        cmocka_unit_test(test_ascii_labels_leave_fontconfig_unloaded),
        cmocka_unit_test(test_fontconfig_puts_the_bundled_faces_first),
        cmocka_unit_test(test_direct_shaping_matches_raqm),
        cmocka_unit_test(test_glyph_bitmaps_equal_freetype_rendering),
        cmocka_unit_test(test_japanese_text_gets_japanese_forms),
        cmocka_unit_test_setup_teardown(test_svg_direction_and_anchor, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
