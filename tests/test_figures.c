/* test_figures.c - the figure set through the real binary (issue 4).
 *
 * Drives ./attnviz ($ATTNVIZ_BIN) with --figures, --format, --cmap, --dpi and
 * --scale and checks the files it writes: which files exist, image sizes,
 * text chunks and pHYs read back with libpng, labels as SVG <text>, the
 * colour at known cells, masked cells against zero-weight cells, the mean
 * over heads (pitfall P10), scores with −∞, byte-identical reruns, and usage
 * errors that write nothing. SVGs are checked with xmllint and rendered with
 * rsvg-convert when those tools are installed (skipped with a message
 * otherwise). Nothing here depends on one font's pixels: cell colours are
 * sampled 3 px inside a cell corner, found by laying the same figure out
 * in-process (the PNG's Title chunk gives the exact title) and checking that
 * the layout's size equals the PNG's.
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <zlib.h>

#include "render/colormap.h"
#include "io/npy.h"
#include "render/plot.h"
#include "render/pngout.h"
#include "render/raster.h"
#include "render/textlayout.h"
#include "testutil.h"

#define MINUS "\xE2\x88\x92"
#define NEG_INF MINUS "\xE2\x88\x9E"

/* ---------------------------------------------------------------- fixture */

typedef tu_fixture fixture;
#define setup tu_setup_tmpdir
#define teardown tu_teardown_tmpdir
#define in tu_in

/* Run attnviz with a NULL-terminated argument list. */
#define RUN(r, ...) tu_runv((r), NULL, NULL, (const char *const[]){__VA_ARGS__, NULL})

static void expect_ok(const tu_result *r) {
    if (r->code != 0) fail_msg("attnviz exited %d: %s", r->code, r->err);
}

#define slurp tu_slurp_file

static int count_str(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

static void read_png(const char *path, av_png_image *img) {
    av_err e = {{0}};
    if (av_png_read(path, img, &e) != AV_OK) fail_msg("cannot read %s: %s", path, e.msg);
}

static int have_tool(const char *name) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* xmllint --noout and rsvg-convert on one SVG (each skipped with a message
 * when the tool is missing). */
static void check_svg_opens(const fixture *f, const char *svg) {
    static int warned_x, warned_r;
    char cmd[9000];
    if (have_tool("xmllint")) {
        snprintf(cmd, sizeof cmd, "xmllint --noout %s", tu_sh_word(svg));
        if (system(cmd) != 0) fail_msg("xmllint rejects %s", svg);
    } else if (!warned_x++) {
        print_message("[ SKIPROW  ] xmllint not installed: SVG well-formedness not checked (sh scripts/install-deps.sh)\n");
    }
    if (have_tool("rsvg-convert")) {
        snprintf(cmd, sizeof cmd, "rsvg-convert %s -o %s 2>%s", tu_sh_word(svg), tu_sh_word(in(f, "rsvg.png")),
                 tu_sh_word(in(f, "rsvg.err")));
        int rc = system(cmd);
        size_t n = 0;
        char *msg = slurp(in(f, "rsvg.err"), &n);
        if (rc != 0 || n > 0) fail_msg("rsvg-convert failed on %s: %s", svg, msg ? msg : "");
        free(msg);
        av_png_image img;
        read_png(in(f, "rsvg.png"), &img);
        assert_true(img.width > 100 && img.height > 100);
        av_png_image_free(&img);
        unlink(in(f, "rsvg.png"));
        unlink(in(f, "rsvg.err"));
    } else if (!warned_r++) {
        print_message("[ SKIPROW  ] rsvg-convert not installed: SVG rendering not checked (apt-get install librsvg2-bin)\n");
    }
}

/* ---------------------------------------------------------------- inputs */

static void write_mat(const char *path, const float *data, size_t rows, size_t cols) {
    size_t shape[2] = {rows, cols};
    av_err e = {{0}};
    if (av_npy_write(path, data, 2, shape, &e)) fail_msg("writing %s: %s", path, e.msg);
}

/* Pitfall P10's input in f->dir/p10: 2 heads, 2 tokens, d_model 4, d_k 2.
 * Token t's slice of X is e_t in every head, W_K = I, and W_Q's row 0 is
 * 50·e_h in head h's columns: query 0 attends key 0 in head 0 and key 1 in
 * head 1 (one-hot within 1e-15); query 1 is 0 (uniform rows). Use with
 * --d-model 4 --heads 2 --positions none and a 2-token sentence. */
static const char *p10_weights(const fixture *f) {
    const char *dir = in(f, "p10");
    mkdir(dir, 0755);
    enum { T = 2, H = 2, D = 2, C = 4 };
    float X[T * C] = {0}, WQ[C * C] = {0}, I[C * C] = {0};
    for (int t = 0; t < T; t++)
        for (int h = 0; h < H; h++) X[t * C + h * D + t] = 1;
    for (int h = 0; h < H; h++) WQ[h * D + h] = 50;
    for (int k = 0; k < C; k++) I[k * C + k] = 1;
    char p[4300];
    snprintf(p, sizeof p, "%s/X.npy", dir);
    write_mat(p, X, T, C);
    snprintf(p, sizeof p, "%s/W_Q.npy", dir);
    write_mat(p, WQ, C, C);
    snprintf(p, sizeof p, "%s/W_K.npy", dir);
    write_mat(p, I, C, C);
    snprintf(p, sizeof p, "%s/W_V.npy", dir);
    write_mat(p, I, C, C);
    snprintf(p, sizeof p, "%s/W_O.npy", dir);
    write_mat(p, I, C, C);
    return dir;
}

/* A (H, T, T) tensor from a dump, checked for shape. Caller frees. */
static float *load3(const char *path, int H, int T) {
    av_npy a;
    av_err e = {{0}};
    if (av_npy_read(&a, path, &e)) fail_msg("reading %s: %s", path, e.msg);
    assert_int_equal(a.ndim, 3);
    assert_true(a.shape[0] == (size_t)H && a.shape[1] == (size_t)T && a.shape[2] == (size_t)T);
    float *v = malloc(sizeof(float) * (size_t)H * T * T);
    memcpy(v, a.data, sizeof(float) * (size_t)H * T * T);
    av_npy_free(&a);
    return v;
}

/* ---------------------------------------------------------------- cells */

/* Lay out hm (its title replaced by the PNG's Title chunk) and compare the
 * PNG's cell (i, j), 3 px inside the cell's top-left corner, with want. The
 * layout must have the PNG's size, so it is the figure the binary drew. */
static void cell_rgb(const char *png, av_heatmap hm, const av_plot_meta *meta, int i, int j, unsigned char out[3]) {
    av_png_image img;
    read_png(png, &img);
    hm.title = av_png_image_text(&img, "Title");
    assert_non_null(hm.title);
    av_dlist dl;
    av_err e = {{0}};
    assert_int_equal(av_plot_layout_head(&dl, &hm, meta, &e), AV_OK);
    assert_int_equal(dl.width, img.width);
    assert_int_equal(dl.height, img.height);
    int b[4];
    assert_int_equal(av_dl_cell_box(av_plot_panel(&dl, 0), i, j, b), 0);
    memcpy(out, img.rgb + ((size_t)(b[1] + 3) * img.width + (size_t)(b[0] + 3)) * 3, 3);
    av_dl_free(&dl);
    av_png_image_free(&img);
}

static void cmap_rgb(av_cmap c, double t, unsigned char out[3]) {
    av_cmap_rgb(c, t, out);
}

static int is_grey(const unsigned char c[3]) {
    return c[0] == c[1] && c[1] == c[2];
}

/* ---------------------------------------------------------------- tests: the set */

static const char *const ALL_FILES[] = {"head0", "head1", "heads", "mean", "scores_head0", "scores_head1",
                                        "scores", "pe", "mask"};
#define N_ALL ((int)(sizeof ALL_FILES / sizeof ALL_FILES[0]))

/* Default: head0..head{H-1} and heads (H > 1); nothing else. */
static void test_default_set_is_heads_and_grid(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "-o", in(f, "two"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "two")), 3);
    assert_true(file_exists(in(f, "two/head0.png")) && file_exists(in(f, "two/head1.png")));
    assert_true(file_exists(in(f, "two/heads.png")));
    RUN(&r, "-q", "-o", in(f, "one"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "one")), 1);
    assert_true(file_exists(in(f, "one/head0.png")));
    RUN(&r, "-q", "--heads", "2", "--figures", "heads", "-o", in(f, "h"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "h")), 2);
}

/* --figures all --format both: every figure type in both formats, sized
 * sensibly, with text chunks; every SVG well-formed and renderable. */
static void test_all_figures_in_png_and_svg(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "--heads", "2", "--causal", "--pad-to", "5", "--figures", "all", "--format", "both", "-o", in(f, "all"),
        "I love you");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "wrote 18 files:"));
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "all")), 2 * N_ALL);
    for (int k = 0; k < N_ALL; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "all/%s.png", ALL_FILES[k]);
        av_png_image img;
        read_png(in(f, rel), &img);
        if (img.width < 240 || img.height < 200 || img.width > 2400 || img.height > 2400)
            fail_msg("%s is %d x %d px", rel, img.width, img.height);
        assert_non_null(av_png_image_text(&img, "Title"));
        assert_string_equal(av_png_image_text(&img, "Software"), "attnviz " AV_VERSION);
        assert_non_null(strstr(av_png_image_text(&img, "Description"), "--figures all"));
        av_png_image_free(&img);
        snprintf(rel, sizeof rel, "all/%s.svg", ALL_FILES[k]);
        size_t len;
        char *svg = slurp(in(f, rel), &len);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        assert_true(count_str(svg, "</text>") >= 5);
        free(svg);
        check_svg_opens(f, in(f, rel));
    }
}

/* Labels are real text, found in the SVG from the same layout. */
/* The --compare figure's panels are attention weights and take their colour range as the heads' figures do:
 * --vmax, --log-scale, and auto past 32 tokens. It was always drawn on 0..1 (a 900-token comparison all dark,
 * and --log-scale or --vmax changed no pixel of it: a tester's report); order's |ΔA| map keeps its own. */
static void test_compare_figure_takes_the_weight_range(void **state) {
    fixture *f = *state;
    char words[40 * 4 + 1] = "";
    for (int i = 0; i < 40; i++) snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    static const struct { const char *opt[3], *want; } c[] = {
        {{"-s", "42", NULL}, "(auto: 0\xE2\x80\x93"},                          /* 40 tokens: auto by default */
        {{"--vmax", "0.5", NULL}, ">attention weight (0\xE2\x80\x93" "0.5, --vmax)</text>"},
        {{"--log-scale", NULL, NULL}, ">log\xE2\x82\x81\xE2\x82\x80 attention weight"}, /* log₁₀ */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const char *args[16] = {"-q", "--format", "svg", "--figures", "heads", "-o", in(f, "c"), "--compare", "scale"};
        int n = 9;
        for (int i = 0; i < 3 && c[k].opt[i]; i++) args[n++] = c[k].opt[i];
        args[n++] = words;
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        expect_ok(&r);
        tu_free(&r);
        char *svg = slurp(in(f, "c/compare_scale.svg"), NULL), *head = slurp(in(f, "c/head0.svg"), NULL);
        assert_non_null(svg);
        assert_non_null(head);
        if (!strstr(head, c[k].want)) fail_msg("%s: head0.svg lacks '%s'", c[k].opt[0], c[k].want);
        if (!strstr(svg, c[k].want)) fail_msg("%s: compare_scale.svg lacks '%s'", c[k].opt[0], c[k].want);
        free(svg);
        free(head);
    }
}

static void test_labels_and_titles_as_svg_text(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--causal", "--figures", "all", "--format", "svg", "-o", in(f, "s"),
        "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "s/head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">love</text>"), 2);
    assert_int_equal(count_str(svg, ">query (row)</text>"), 1);
    assert_int_equal(count_str(svg, ">key (column)</text>"), 1);
    assert_int_equal(count_str(svg, ">attention weight</text>"), 1);
    assert_int_equal(count_str(svg, ">masked (score " NEG_INF ", weight 0)</text>"), 1);
    free(svg);
    svg = slurp(in(f, "s/heads.svg"), NULL);
    assert_int_equal(count_str(svg, ">head 1</text>"), 1);
    free(svg);
    svg = slurp(in(f, "s/scores_head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">" NEG_INF "</text>"), 6); /* T = 4 causal: 6 hidden keys */
    assert_int_equal(count_str(svg, ">score</text>"), 1);
    assert_non_null(strstr(svg, "before the softmax"));
    free(svg);
    svg = slurp(in(f, "s/mean.svg"), NULL);
    assert_non_null(strstr(svg, "\xC2\xB7 mean over 2 heads"));
    assert_int_equal(count_str(svg, " \xC2\xB7 mean over 2 heads</text>"), 1); /* a title line, as text */
    assert_int_equal(count_str(svg, ">mean attention weight</text>"), 1);
    free(svg);
    svg = slurp(in(f, "s/pe.svg"), NULL);
    assert_int_equal(count_str(svg, ">sin: even dimensions 2i</text>"), 1);
    assert_int_equal(count_str(svg, ">cos: odd dimensions 2i+1</text>"), 1);
    assert_int_equal(count_str(svg, ">0: I</text>"), 1);
    assert_int_equal(count_str(svg, ">3: learning</text>"), 1);
    free(svg);
    svg = slurp(in(f, "s/mask.svg"), NULL);
    assert_int_equal(count_str(svg, ">query sees key</text>"), 1);
    assert_non_null(strstr(svg, "mask: causal"));
    free(svg);
}

/* Pixel (x, y) of img: 1 if it is dark ink (luma below 128: a label, a tick,
 * the frame), 2 if it is coloured (a heat-map cell: viridis is never grey). */
static int pixel_kind(const av_png_image *img, int x, int y) {
    const unsigned char *p = img->rgb + ((size_t)y * img->width + (size_t)x) * 3;
    if (!(p[0] == p[1] && p[1] == p[2])) return 2;
    return p[0] < 128;
}

/* A label whose grapheme clusters hold combining marks is drawn from one
 * font per cluster, so its marks sit on their base: in
 * `attnviz -q --scale 2 -o DIR $'a\u20dd 1\u20e3 1\ufe0f\u20e3'` the row
 * labels end left of their tick marks. Before, the keycap U+20E3 came from
 * another font than its digit and was drawn beside it, over the tick and into
 * the heat map (and the circle U+20DD left of its a). Found from the pixels
 * alone: the map's left edge is its first coloured column, the frame the
 * dark columns just left of it, the rows split evenly into T = 3; a tick is
 * the dark run left of the frame on the rows where the pixel 2 px left of the
 * frame is dark. No other row of the cell may have dark ink from the tick's
 * left end up to the frame, nor grey ink in the map's first 10 columns (its
 * cells are coloured, their numbers drawn in the middle). */
static void test_combining_marks_stay_on_their_base(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--scale", "2", "-o", in(f, "k"), "a\xE2\x83\x9D 1\xE2\x83\xA3 1\xEF\xB8\x8F\xE2\x83\xA3");
    expect_ok(&r);
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "k/head0.png"), &img);
    int W = (int)img.width, H = (int)img.height, top = -1, left = -1, bottom, frame;
    for (int y = 0; y < H && top < 0; y++) /* the map's first row (the colour bar lies right of the map) */
        for (int x = 0; x < W && top < 0; x++)
            if (pixel_kind(&img, x, y) == 2) top = y;
    assert_true(top > 0);
    for (int x = 0; x < W && left < 0; x++) /* the map's left edge, 3 rows down (clear of the corner) */
        if (pixel_kind(&img, x, top + 3) == 2) left = x;
    for (frame = left; frame > 0 && pixel_kind(&img, frame - 1, top + 3) == 1; frame--) {
    }
    for (bottom = top; bottom < H && pixel_kind(&img, left + 20, bottom) == 2; bottom++) { /* clear of labels and numbers */
    }
    int T = 3, h = (bottom - top) / T;
    assert_true(h > 20 && frame > 10 && left + 20 < W);
    for (int i = 0; i < T; i++) {
        int y0 = top + i * h, y1 = top + (i + 1) * h, tick_left = frame, tick_rows = 0;
        for (int y = y0 + h / 2 - 4; y <= y0 + h / 2 + 4; y++) { /* the tick, at the row's middle */
            if (pixel_kind(&img, frame - 2, y) != 1) continue;
            int x = frame - 2;
            while (x > 0 && pixel_kind(&img, x - 1, y) == 1) x--;
            tick_rows++;
            if (x < tick_left) tick_left = x;
        }
        if (!(tick_rows > 0 && tick_left < frame - 4)) /* a tick mark of several px */
            fail_msg("row %d: no tick mark left of the frame (x %d, map %d..%d from y %d): %d rows, from x %d", i, frame,
                     left, W, top, tick_rows, tick_left);
        for (int y = y0; y < y1; y++) {
            if (pixel_kind(&img, frame - 2, y) == 1 && y >= y0 + h / 2 - 4 && y <= y0 + h / 2 + 4) continue; /* tick */
            for (int x = tick_left; x < left + 10; x++)
                if ((x < frame || x >= left) && pixel_kind(&img, x, y) == 1)
                    fail_msg("row label %d has ink at (%d, %d), over its tick (x %d..%d) or in the map (from x %d)", i,
                             x, y, tick_left, frame - 1, left);
        }
    }
    av_png_image_free(&img);
    /* The SVG names each such cluster's font for it, as the raster drew it: the title's three clusters in
     * <tspan>s, the keycap's the font the label "1⃣" alone is drawn with (its <text>'s first family). */
    RUN(&r, "-q", "--scale", "2", "--format", "svg", "-o", in(f, "s"),
        "a\xE2\x83\x9D 1\xE2\x83\xA3 1\xEF\xB8\x8F\xE2\x83\xA3");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "s/head0.svg"), NULL);
    assert_int_equal(count_str(svg, "<tspan font-family=\"'"), 3);
    const char *label = strstr(svg, "\">1\xE2\x83\xA3</text>"), *open = label;
    assert_non_null(label);
    while (open > svg && strncmp(open, "font-family=\"'", 14) != 0) open--;
    const char *fam_end = strchr(open + 14, '\'');
    char want[200];
    snprintf(want, sizeof want, "<tspan font-family=\"'%.*s'", (int)(fam_end - open - 14), open + 14);
    const char *tspan = strstr(svg, "<tspan font-family=\"'");
    tspan = strstr(tspan + 1, "<tspan font-family=\"'"); /* the second: 1⃣ */
    if (strncmp(tspan, want, strlen(want)) != 0) fail_msg("the title's keycap: %.80s, the label's: %s", tspan, want);
    check_svg_opens(f, in(f, "s/head0.svg"));
    free(svg);
}

/* ---------------------------------------------------------------- P10: mean over heads */

/* P10: query 0 is [1, 0] in head 0 and [0, 1] in head 1; the mean figure
 * is titled as the mean and shows [0.5, 0.5]; each head keeps its row. */
static void test_P10_mean_figure_is_the_mean(void **state) {
    fixture *f = *state;
    const char *w = p10_weights(f);
    tu_result r;
    RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--positions", "none", "--weights", w, "--figures",
        "heads,mean", "--format", "both", "--dump", in(f, "dump"), "-o", in(f, "m"), "I you");
    expect_ok(&r);
    tu_free(&r);
    float *att = load3(in(f, "dump/weights.npy"), 2, 2);
    assert_true(fabsf(att[0] - 1) < 1e-6f && fabsf(att[1]) < 1e-6f); /* head 0, query 0: [1, 0] */
    assert_true(fabsf(att[4]) < 1e-6f && fabsf(att[5] - 1) < 1e-6f); /* head 1, query 0: [0, 1] */
    float mean[4];
    av_plot_mean_heads(mean, att, 2, 2, 2);
    for (int k = 0; k < 4; k++) assert_true(fabsf(mean[k] - 0.5f) < 1e-6f);

    av_png_image img;
    read_png(in(f, "m/mean.png"), &img);
    const char *title = av_png_image_text(&img, "Title");
    assert_non_null(strstr(title, "\xC2\xB7 mean over 2 heads \xC2\xB7 not a head"));
    assert_null(strstr(title, "head 0"));
    av_png_image_free(&img);
    /* one head: the mean is head 0, and "not a head: averaging hides each head's pattern" was false */
    RUN(&r, "-q", "--d-model", "4", "--figures", "mean", "-o", in(f, "m1"), "I you");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "m1/mean.png"), &img);
    title = av_png_image_text(&img, "Title");
    assert_non_null(strstr(title, "\xC2\xB7 mean over 1 head \xC2\xB7 the same as head 0"));
    assert_null(strstr(title, "not a head"));
    av_png_image_free(&img);

    static const char *tok[] = {"I", "you"};
    av_plot_meta meta = {.value_label = "mean attention weight"};
    av_heatmap hm = {.n_q = 2, .n_k = 2, .q_labels = tok, .k_labels = tok, .w = mean};
    unsigned char got[3], want[3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            cell_rgb(in(f, "m/mean.png"), hm, &meta, i, j, got);
            cmap_rgb(AV_CMAP_VIRIDIS, mean[i * 2 + j], want);
            assert_memory_equal(got, want, 3);
        }
    /* head 0 keeps [1, 0] in its own figure */
    av_plot_meta hmeta = {0};
    av_heatmap h0 = {.n_q = 2, .n_k = 2, .q_labels = tok, .k_labels = tok, .w = att};
    cell_rgb(in(f, "m/head0.png"), h0, &hmeta, 0, 0, got);
    cmap_rgb(AV_CMAP_VIRIDIS, 1.0, want);
    assert_memory_equal(got, want, 3);
    cell_rgb(in(f, "m/head0.png"), h0, &hmeta, 0, 1, got);
    cmap_rgb(AV_CMAP_VIRIDIS, 0.0, want);
    assert_memory_equal(got, want, 3);

    /* The SVG has the same cells, viridis(0.5): each row is one run of
     * equal cells, so one <rect> spans both cells of the row. */
    av_png_image mi;
    read_png(in(f, "m/mean.png"), &mi);
    hm.title = av_png_image_text(&mi, "Title");
    av_dlist dl;
    av_err e = {{0}};
    assert_int_equal(av_plot_layout_head(&dl, &hm, &meta, &e), AV_OK);
    char *svg = slurp(in(f, "m/mean.svg"), NULL);
    cmap_rgb(AV_CMAP_VIRIDIS, 0.5, want);
    for (int i = 0; i < 2; i++) {
        int b[4], e2[4];
        char rect[160];
        assert_int_equal(av_dl_cell_box(av_plot_panel(&dl, 0), i, 0, b), 0);
        assert_int_equal(av_dl_cell_box(av_plot_panel(&dl, 0), i, 1, e2), 0);
        snprintf(rect, sizeof rect, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\"/>",
                 b[0], b[1], e2[2] - b[0], b[3] - b[1], want[0], want[1], want[2]);
        if (!strstr(svg, rect)) fail_msg("mean.svg lacks the cells of row %d: %s", i, rect);
    }
    av_dl_free(&dl);
    av_png_image_free(&mi);
    assert_int_equal(count_str(svg, ">0.50</text>"), 4);
    free(svg);
    svg = slurp(in(f, "m/head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">1.00</text>"), 1);
    assert_int_equal(count_str(svg, ">0.00</text>"), 1);
    assert_int_equal(count_str(svg, ">0.50</text>"), 2);
    free(svg);
    free(att);
}

/* ---------------------------------------------------------------- masked vs zero */

/* Cell (query 0, key 1) of head 0 has weight 0 in the P10 input; with
 * --causal it is masked. The two must look different: viridis(0) versus
 * the grey hatch. */
static void test_masked_cell_differs_from_zero_weight(void **state) {
    fixture *f = *state;
    const char *w = p10_weights(f);
    static const char *tok[] = {"I", "you"};
    unsigned char zero[3], masked[3], want[3];
    for (int causal = 0; causal < 2; causal++) {
        tu_result r;
        const char *dir = in(f, causal ? "c" : "n");
        if (causal)
            RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--positions", "none", "--weights", w, "--causal",
                "--dump", in(f, "dc"), "-o", dir, "I you");
        else
            RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--positions", "none", "--weights", w, "--dump",
                in(f, "dn"), "-o", dir, "I you");
        expect_ok(&r);
        tu_free(&r);
        float *att = load3(in(f, causal ? "dc/weights.npy" : "dn/weights.npy"), 2, 2);
        unsigned char m[4] = {0, (unsigned char)causal, 0, 0};
        av_heatmap hm = {.n_q = 2, .n_k = 2, .q_labels = tok, .k_labels = tok, .w = att, .masked = m};
        char png[4300];
        snprintf(png, sizeof png, "%s/head0.png", dir);
        av_plot_meta meta = {0};
        cell_rgb(png, hm, &meta, 0, 1, causal ? masked : zero);
        assert_true(att[1] < 1e-6f); /* weight 0 either way */
        free(att);
    }
    cmap_rgb(AV_CMAP_VIRIDIS, 0.0, want);
    assert_memory_equal(zero, want, 3);
    assert_true(is_grey(masked));
    assert_true(memcmp(zero, masked, 3) != 0);
}

/* ---------------------------------------------------------------- scores */

/* W_Q = 0 makes every score 0: cells are RdBu_r's white-ish centre, masked
 * keys are hatched and say −∞, the colour bar is "score", symmetric. */
static void test_scores_centre_white_masked_neg_inf(void **state) {
    fixture *f = *state;
    const char *dir = in(f, "wq0");
    mkdir(dir, 0755);
    float zeros[16] = {0};
    char p[4300];
    snprintf(p, sizeof p, "%s/W_Q.npy", dir);
    write_mat(p, zeros, 4, 4);
    tu_result r;
    RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--causal", "--weights", dir, "--figures", "scores", "--format",
        "both", "--dump", in(f, "d"), "-o", in(f, "s"), "a b c");
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "s")), 6); /* scores_head0, scores_head1, scores; png + svg */
    float *S = load3(in(f, "d/scores.npy"), 2, 3);
    for (int k = 0; k < 18; k++) assert_true(S[k] == 0.0f);
    static const char *tok[] = {"a", "b", "c"};
    unsigned char m[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    av_heatmap hm = {.n_q = 3, .n_k = 3, .q_labels = tok, .k_labels = tok, .w = S, .masked = m, .neg_inf_cells = 1};
    av_plot_meta meta = {.cmap = AV_CMAP_RDBU_R, .vmin = -1, .vmax = 1, .value_label = "score"};
    unsigned char got[3], want[3];
    cmap_rgb(AV_CMAP_RDBU_R, 0.5, want);
    for (int k = 0; k < 3; k++) assert_true(want[k] >= 235);
    cell_rgb(in(f, "s/scores_head0.png"), hm, &meta, 2, 0, got);
    assert_memory_equal(got, want, 3);
    cell_rgb(in(f, "s/scores_head0.png"), hm, &meta, 0, 2, got);
    assert_true(is_grey(got) && memcmp(got, want, 3) != 0);
    char *svg = slurp(in(f, "s/scores_head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">" NEG_INF "</text>"), 3);
    assert_int_equal(count_str(svg, ">score</text>"), 1);
    assert_int_equal(count_str(svg, ">" MINUS "1.0</text>"), 1); /* symmetric range, true minus */
    assert_int_equal(count_str(svg, ">1.0</text>"), 1);
    free(svg);
    free(S);
}

/* Colour-bar ticks of a whole-number step print no decimals, as matplotlib's:
 * `attnviz -q --no-scale -d 4096 --figures scores --format svg "I love deep
 * learning"` (scores up to ±163) labelled its bar "−150.0", "−100.0", ...,
 * "0.0", ..., "150.0", one decimal no tick needed (the --train curves already
 * print "100", "80"). Whatever the random scores, ±3.5 and beyond gives a
 * step of 1 or more: every tick is a whole number, "0" among them. */
static void test_whole_ticks_print_no_decimals(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--no-scale", "-d", "4096", "--figures", "scores", "--format", "svg", "-o", in(f, "s"),
        "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "s/scores_head0.svg"), NULL);
    static const char tick[] = "font-size=\"14.00\" text-anchor=\"start\" fill=\"#222222\">";
    int ticks = 0, zero = 0;
    for (const char *t = strstr(svg, tick); t; t = strstr(t + 1, tick)) {
        const char *v = t + strlen(tick), *end = strchr(v, '<');
        assert_non_null(end);
        if (memchr(v, '.', (size_t)(end - v))) fail_msg("colour-bar tick '%.*s' has decimals", (int)(end - v), v);
        zero += end - v == 1 && *v == '0';
        ticks++;
    }
    assert_true(ticks >= 4);
    assert_int_equal(zero, 1);
    free(svg);
}

/* ---------------------------------------------------------------- metadata */

/* s as XML 1.0 character data writes it (section 2.4): & < > " as &amp; &lt; &gt; &quot;, and ' as &apos; when
 * apos, for a command line expected in an SVG's <desc>, whose quoted words (tu_sh_word) hold '. In one of 4
 * rotating buffers. */
static const char *xml_text(const char *s, int apos) {
    static char buf[4][9000];
    static int slot;
    char *p = buf[slot++ % 4];
    size_t k = 0;
    for (; *s && k + 8 < sizeof buf[0]; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
                      : *s == '\'' && apos ? "&apos;" : NULL;
        if (e) k += (size_t)sprintf(p + k, "%s", e);
        else p[k++] = *s;
    }
    p[k] = 0;
    return p;
}

/* tEXt chunks read back with libpng: Software, Title (sentence, head,
 * weights source), Description (the exact command line and the seed),
 * Weights (where the weights come from); pHYs equals --dpi; no tIME; --dpi 300
 * triples the pixels. */
static void test_png_text_chunks_and_phys(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--seed", "7", "--dpi", "300", "-o", in(f, "d300"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "--seed", "7", "-o", in(f, "d100"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    av_png_image a, b;
    read_png(in(f, "d300/head0.png"), &a);
    read_png(in(f, "d100/head0.png"), &b);
    assert_string_equal(av_png_image_text(&a, "Software"), "attnviz " AV_VERSION);
    assert_string_equal(av_png_image_text(&a, "Title"),
                        "\xE2\x80\x9CI love you\xE2\x80\x9D \xC2\xB7 head 0 of 1: attention weights \xC2\xB7 "
                        "random weights (untrained, seed 7) \xC2\xB7 positions: sinusoidal \xC2\xB7 mask: none");
    assert_string_equal(av_png_image_text(&a, "Weights"), "random weights (untrained, seed 7)");
    char want[8400];
    snprintf(want, sizeof want, "attnviz -q --seed 7 --dpi 300 -o %s 'I love you' (seed 7)", tu_sh_word(in(f, "d300")));
    assert_string_equal(av_png_image_text(&a, "Description"), want);
    assert_non_null(strstr(av_png_image_text(&a, "Description"), "seed"));
    assert_true(fabs(a.dpi - 300) < 0.05);
    assert_true(fabs(b.dpi - 100) < 0.05);
    assert_int_equal(a.has_time, 0);
    assert_true(abs(a.width - 3 * b.width) <= 1 && abs(a.height - 3 * b.height) <= 1);
    av_png_image_free(&a);
    av_png_image_free(&b);
    /* A Chinese command line goes into iTXt, unchanged. */
    RUN(&r, "-q", "-o", in(f, "zh"), "我爱你");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "zh/head0.png"), &a);
    assert_non_null(strstr(av_png_image_text(&a, "Description"), "我爱你"));
    av_png_image_free(&a);
}

/* A control character in an argument reaches the command line of the PNG's Description and the SVG's <desc>
 * as a shell escape, $'a\x1bb' (a C1 control as its bytes \xc2\x85; other characters, é, as they are): the sentence
 * "a<ESC>b <cé>" put a raw ESC into the PNG's Latin-1 text, and the SVG, which XML cannot hold it in, read
 * 'a<U+FFFD>b <cé>', a command that draws another sentence. */
static void test_control_characters_in_the_command_are_escaped(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "both", "-o", in(f, "esc"), "a\x1b" "b <c\xC3\xA9>", "\xC2\x85x");
    expect_ok(&r);
    tu_free(&r);
    char want[8400];
    snprintf(want, sizeof want, "attnviz -q --format both -o %s $'a\\x1bb <c\xC3\xA9>' $'\\xc2\\x85x' (seed 42)",
             tu_sh_word(in(f, "esc")));
    av_png_image a;
    read_png(in(f, "esc/head0.png"), &a);
    assert_string_equal(av_png_image_text(&a, "Description"), want);
    av_png_image_free(&a);
    char *svg = slurp(in(f, "esc/head0.svg"), NULL);
    assert_non_null(svg);
    snprintf(want, sizeof want,
             "<desc>attnviz -q --format both -o %s $'a\\x1bb &lt;c\xC3\xA9&gt;' $'\\xc2\\x85x' (seed 42)&#10;",
             xml_text(tu_sh_word(in(f, "esc")), 0));
    if (!strstr(svg, want)) fail_msg("no '%s' in esc/head0.svg: %.600s", want, svg);
    free(svg);
}

/* The command line a figure records is the run again when pasted into bash in any locale: a C1 control and
 * an RLO were written as \u0085 and \u202e, which bash reads by the locale's charset, so in the C locale
 * (env -i, a container without a locale) $'\u0085x' was the text "\u0085x", another sentence. The PNG's
 * Description, run by `env -i LC_ALL=C bash` with attnviz a function printing its arguments, gives them back. */
static void test_recorded_command_reads_back_in_the_c_locale(void **state) {
    fixture *f = *state;
    if (!have_tool("bash")) skip();
    static const char *const words[] = {"\xC2\x85x", "I \xE2\x80\xAElove", "a\x1b" "b"};
    tu_result r;
    RUN(&r, "-q", "-o", in(f, "c"), words[0], words[1], words[2]);
    expect_ok(&r);
    tu_free(&r);
    av_png_image a;
    read_png(in(f, "c/head0.png"), &a);
    const char *d = av_png_image_text(&a, "Description"), *end = d ? strstr(d, " (seed 42)") : NULL;
    assert_non_null(end);
    FILE *sh = fopen(in(f, "run.sh"), "w");
    assert_non_null(sh);
    fprintf(sh, "attnviz() { printf '%%s\\n' \"$@\" > %s; }\n%.*s\n", tu_sh_word(in(f, "args.txt")), (int)(end - d), d);
    fclose(sh);
    av_png_image_free(&a);
    char cmd[9000], want[8400];
    snprintf(cmd, sizeof cmd, "env -i HOME=\"$HOME\" LC_ALL=C bash %s", tu_sh_word(in(f, "run.sh")));
    assert_int_equal(system(cmd), 0);
    snprintf(want, sizeof want, "-q\n-o\n%s\n%s\n%s\n%s\n", in(f, "c"), words[0], words[1], words[2]);
    char *got = slurp(in(f, "args.txt"), NULL);
    assert_non_null(got);
    if (strcmp(got, want) != 0) fail_msg("the recorded command gives the arguments '%s', not '%s'", got, want);
    free(got);
}

/* A path in the home folder reaches the figures' command line from "~/", the rest quoted as before: `-o
 * ~/notes/figs`, which the shell expands, put /home/alice/notes/figs into the PNG's Description, the SVG's
 * <desc> and the --html page of a figure published from the notes. A folder whose name only starts with
 * $HOME's text (HOME/x beside HOMEx) is kept as it is. */
static void test_home_folder_in_the_command_is_tilde(void **state) {
    fixture *f = *state;
    char home[4300], env[4400], other[4400];
    snprintf(home, sizeof home, "%s", in(f, "home"));
    snprintf(env, sizeof env, "HOME=%s/", home); /* a trailing '/' in HOME is the same folder */
    snprintf(other, sizeof other, "%sx", home);
    tu_result r;
    tu_runv(&r, NULL, (const char *const[]){env, NULL},
            (const char *const[]){"-q", "--format", "both", "--html", "-o", in(f, "home/my notes"), "--dump", other,
                                  "I love you", NULL});
    expect_ok(&r);
    tu_free(&r);
    char want[9000];
    snprintf(want, sizeof want, "attnviz -q --format both --html -o ~/'my notes' --dump %s 'I love you' (seed 42)",
             tu_sh_word(other));
    av_png_image a;
    read_png(in(f, "home/my notes/head0.png"), &a);
    assert_string_equal(av_png_image_text(&a, "Description"), want);
    av_png_image_free(&a);
    char *svg = slurp(in(f, "home/my notes/head0.svg"), NULL), *page = slurp(in(f, "home/my notes/attnviz.html"), NULL);
    assert_non_null(svg);
    assert_non_null(page);
    snprintf(want, sizeof want, "<desc>attnviz -q --format both --html -o ~/&apos;my notes&apos; --dump %s ",
             xml_text(tu_sh_word(other), 1));
    char want2[9000];
    snprintf(want2, sizeof want2, "<desc>attnviz -q --format both --html -o ~/'my notes' --dump %s ",
             xml_text(tu_sh_word(other), 0));
    if (!strstr(svg, want) && !strstr(svg, want2)) fail_msg("no '%s' in head0.svg: %.600s", want2, svg);
    if (count_str(page, home) != count_str(page, other)) /* each of them is the --dump folder's */
        fail_msg("attnviz.html holds the home folder %s: %.300s", home, page + (strstr(page, home) - page) / 2);
    free(svg);
    free(page);
}

/* A character XML 1.0 does not allow is one U+FFFD in the SVG, as the PNG draws it as one box: the token
 * U+FFFE (EF BF BE, a noncharacter) was labelled with three U+FFFD, one per byte, in head0.svg's axes and
 * title. */
static void test_svg_replaces_a_noncharacter_once(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "-o", in(f, "nonchar"), "\xEF\xBF\xBE a");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "nonchar/head0.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, ">\xEF\xBF\xBD</text>"))
        fail_msg("no label '\xEF\xBF\xBD' (U+FFFD) in nonchar/head0.svg: %.600s", svg);
    if (strstr(svg, "\xEF\xBF\xBD\xEF\xBF\xBD"))
        fail_msg("nonchar/head0.svg writes U+FFFE as more than one U+FFFD: %.*s", 80,
                 strstr(svg, "\xEF\xBF\xBD\xEF\xBF\xBD") - 40);
    free(svg);
}

/* --scale multiplies PNG pixels and the SVG size; --dpi leaves the SVG size. */
static void test_scale_and_dpi_sizes(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "both", "-o", in(f, "a"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "--format", "both", "--scale", "2", "-o", in(f, "b"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "--format", "both", "--dpi", "200", "-o", in(f, "c"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    av_png_image a, b;
    read_png(in(f, "a/head0.png"), &a);
    read_png(in(f, "b/head0.png"), &b);
    assert_true(abs(b.width - 2 * a.width) <= 1 && abs(b.height - 2 * a.height) <= 1);
    assert_true(fabs(b.dpi - 100) < 0.05);
    av_png_image_free(&a);
    av_png_image_free(&b);
    double w[3];
    const char *svgs[3] = {"a/head0.svg", "b/head0.svg", "c/head0.svg"};
    for (int k = 0; k < 3; k++) {
        char *svg = slurp(in(f, svgs[k]), NULL);
        const char *at = strstr(svg, " width=\"");
        assert_non_null(at);
        w[k] = atof(at + 8);
        free(svg);
    }
    assert_true(fabs(w[1] - 2 * w[0]) <= 2);
    assert_true(fabs(w[2] - w[0]) <= 1);
}

/* At --dpi 600 every figure prints at its --dpi 100 size, within a pixel: one that would pass 6000 px a side
 * (AV_PLOT_MAX_PX) gets fewer pixels and states a lower dpi (PNG pHYs, SVG width and height). Its layout was
 * shrunk to 6000 px while pHYs kept 600, so heads.png of "I love deep learning" printed 9.99 in wide against
 * 13.67 at --dpi 100 (a new user's report), and its SVG too. Every figure of --figures all, --compare scale's,
 * and --scale 2 with --dpi 300 (the same bound). One note on stderr names the lowered files and their dpi; none
 * when nothing is lowered. Fails on the binary before the fix (9.99 against 13.67 in, no note). */
static void test_dpi_600_keeps_the_printed_size(void **state) {
    fixture *f = *state;
    static const struct { const char *dir, *dpi, *scale; int lowered; } runs[] = {
        {"d100", "100", "1", 0}, {"d600", "600", "1", 1}, {"s2d100", "100", "2", 0}, {"s2d300", "300", "2", 1}};
    static char err[4][2048]; /* stderr of each run; fixed buffers, so a failure leaks nothing */
    for (int k = 0; k < 4; k++) {
        tu_result r;
        RUN(&r, "-q", "--heads", "8", "--figures", "all", "--format", "both", "--compare", "scale", "--dpi",
            runs[k].dpi, "--scale", runs[k].scale, "-o", in(f, runs[k].dir), "I love deep learning");
        expect_ok(&r);
        snprintf(err[k], sizeof err[k], "%s", r.err);
        tu_free(&r);
    }
    for (int pair = 0; pair < 2; pair++) {
        const char *lo = runs[2 * pair].dir, *hi = runs[2 * pair + 1].dir;
        DIR *d = opendir(in(f, lo));
        assert_non_null(d);
        int n = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            size_t len = strlen(e->d_name);
            if (len < 5 || (strcmp(e->d_name + len - 4, ".png") && strcmp(e->d_name + len - 4, ".svg"))) continue;
            char a[300], b[300], why[1200];
            snprintf(a, sizeof a, "%s/%s", lo, e->d_name);
            snprintf(b, sizeof b, "%s/%s", hi, e->d_name);
            if (!tu_same_printed_size(in(f, a), in(f, b), why, sizeof why)) {
                closedir(d);
                fail_msg("%s", why);
            }
            n++;
        }
        closedir(d);
        /* head0..7, scores_head0..7, heads, scores, mean, pe, mask, compare_scale; PNG and SVG */
        if (n != 2 * 22) fail_msg("%s: %d figures, want 44", lo, n);
    }
    /* heads.png met the bound: its dpi was lowered, and it uses the pixels up to it */
    double w = 0, h = 0, px = 1;
    assert_int_equal(tu_printed_size(in(f, "d600/heads.png"), &w, &h, &px), 0);
    int side = (int)lrint((w > h ? w : h) / px);
    if (1 / px > 599 || side > AV_PLOT_MAX_PX || side < AV_PLOT_MAX_PX - 20)
        fail_msg("d600/heads.png: %d px a side at %.1f dpi", side, 1 / px);
    for (int k = 0; k < 4; k++) {
        if (count_str(err[k], "px a side") != runs[k].lowered)
            fail_msg("--dpi %s --scale %s: want %d note on a lowered dpi, stderr: %s", runs[k].dpi, runs[k].scale,
                     runs[k].lowered, err[k]);
        char want[160]; /* a figure's PNG and SVG named once, "heads.png/.svg" (they were two files) */
        snprintf(want, sizeof want, "figures would pass 6000 px a side at --dpi %s%s%s (heads.png/.svg, scores.png/.svg",
                 runs[k].dpi, strcmp(runs[k].scale, "1") ? " and --scale " : "", strcmp(runs[k].scale, "1") ? runs[k].scale : "");
        if (runs[k].lowered && (!strstr(err[k], "attnviz: note: ") || !strstr(err[k], want) ||
                                !strstr(err[k], "instead, with fewer pixels and the same printed size")))
            fail_msg("the note: %s\nwant: ...%s...", err[k], want);
    }
}

/* 1 when the SVG at path draws a bold line (the title's) that ends in "…" while its <title> (the whole title, as
 * the metadata keep it) holds no "…": the figure shows the title cut. -1 when it cannot be read. */
static int svg_title_drawn_cut(const char *path) {
    size_t len;
    char *svg = tu_slurp_file(path, &len);
    if (!svg) return -1;
    int cut = 0;
    const char *t = strstr(svg, "<title>"), *te = t ? strstr(t, "</title>") : NULL;
    int whole_has = 0;
    for (const char *p = t; p && te && (p = strstr(p, "\xE2\x80\xA6")) && p < te; p++) whole_has = 1;
    for (const char *p = svg; !whole_has && (p = strstr(p, "font-weight=\"bold\">")) != NULL;) {
        p += strlen("font-weight=\"bold\">");
        const char *end = strstr(p, "</text>");
        if (!end) break;
        if (end - p >= 3 && memcmp(end - 3, "\xE2\x80\xA6", 3) == 0) cut = 1;
        p = end;
    }
    free(svg);
    return cut;
}

/* A --title too long for the 3 lines a figure's width gives it was cut with "…" without a word: `attnviz -q --heads
 * 2 --format both --title "<40 words>" "I love deep learning"` drew only its first 3 lines in head0, head1 and heads
 * and printed nothing, so a slide's title lost its end unnoticed (a figure-maker's pass). One warning on stderr
 * now names the figures (a PNG and its SVG once, "head0.png/.svg") and says their Title metadata keep the title.
 * The oracle is each SVG's own drawing: a bold title line that ends in "…" while its <title> has none. Titles of
 * 2 to 60 words on 1 and 2 heads; the warning appears exactly when some figure cut it, and names how many. Fails on
 * the binary before the fix (a cut title, no warning). */
static void test_cut_title_is_warned(void **state) {
    fixture *f = *state;
    static const int words[] = {2, 12, 36, 60};
    static const char *heads[] = {"1", "2"};
    for (int w = 0; w < 4; w++)
        for (int h = 0; h < 2; h++) {
            char title[800] = "", dir[32];
            for (int k = 0; k < words[w]; k++) strcat(title, k ? " slide" : "Figure");
            snprintf(dir, sizeof dir, "t%d_%s", words[w], heads[h]);
            tu_result r;
            RUN(&r, "-q", "--heads", heads[h], "--format", "both", "--title", title, "-o", in(f, dir),
                "I love deep learning");
            expect_ok(&r);
            static const char *figs[] = {"head0", "head1", "heads"};
            int n_figs = heads[h][0] == '1' ? 1 : 3, cut = 0;
            char first[32] = "";
            for (int k = 0; k < n_figs; k++) {
                char rel[64];
                snprintf(rel, sizeof rel, "%s/%s.svg", dir, figs[k]);
                int c = svg_title_drawn_cut(in(f, rel));
                if (c < 0) fail_msg("%s: not written", rel);
                if (c && !cut) snprintf(first, sizeof first, "%s.png/.svg", figs[k]);
                cut += c;
            }
            int warned = count_str(r.err, "attnviz: warning: --title is too long for ");
            if (warned != (cut > 0))
                fail_msg("%d words, %s heads: %d figures cut the title, %d warnings; stderr: %s", words[w], heads[h],
                         cut, warned, r.err);
            if (cut == 1 && !strstr(r.err, first)) fail_msg("the warning does not name %s: %s", first, r.err);
            char many[48];
            snprintf(many, sizeof many, "too long for %d figures (", cut);
            if (cut > 1 && !strstr(r.err, many)) fail_msg("want \"%s\": %s", many, r.err);
            if (cut && !strstr(r.err, "Title metadata keep it")) fail_msg("%s", r.err);
            if (words[w] == 2 && cut) fail_msg("a 2-word title was cut (%s heads)", heads[h]);
            if (words[w] == 60 && cut != n_figs) fail_msg("a 60-word title was cut in %d of %d figures", cut, n_figs);
            tu_free(&r);
        }
}

/* A --title too long for 3 lines was cut inside a word: `--title "Figure 3: attention weights of a three-head model
 * on a rather long example sentence used in the lecture notes of week seven, compared ..."` drew its third line
 * "example sentence used in the lectur…" (a lecture-notes author's pass). The cut now comes after the last whole
 * word that fits, as Python's textwrap.shorten cuts (it breaks at white space): by hand, the line is the title's
 * words from "example" to "the", then "…". Every cut line of titles of 10 to 40 words of 3 to 11 letters must end
 * in a whole word of the title followed by "…". */
static void test_cut_title_line_ends_with_a_whole_word(void **state) {
    fixture *f = *state;
    static const char *title = "Figure 3: attention weights of a three-head model on a rather long example sentence "
                               "used in the lecture notes of week seven, compared across sinusoidal and rotary "
                               "position encodings with and without the causal mask applied";
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "--title", title, "-o", in(f, "cw"), "a b");
    expect_ok(&r);
    tu_free(&r);
    char *svg = tu_slurp_file(in(f, "cw/head0.svg"), NULL);
    assert_non_null(svg);
    if (!strstr(svg, "font-weight=\"bold\">example sentence used in the\xE2\x80\xA6</text>"))
        fail_msg("the third title line does not end \"example sentence used in the…\": %s", svg);
    free(svg);
    static const char *words[] = {"tokens", "attention", "softmax", "key", "query", "projections", "sum", "weighted",
                                  "heads", "positional", "mask"};
    for (int n = 10; n <= 40; n += 3) {
        char t[600] = "";
        for (int k = 0; k < n; k++) {
            if (k) strcat(t, " ");
            strcat(t, words[(k * 7) % 11]);
        }
        RUN(&r, "-q", "--format", "svg", "--figures", "heads", "--title", t, "-o", in(f, "cw"), "a b");
        expect_ok(&r);
        tu_free(&r);
        svg = tu_slurp_file(in(f, "cw/head0.svg"), NULL);
        assert_non_null(svg);
        for (const char *p = strstr(svg, "font-weight=\"bold\">"); p; p = strstr(p + 1, "font-weight=\"bold\">")) {
            const char *line = p + strlen("font-weight=\"bold\">"), *end = strstr(line, "\xE2\x80\xA6</text>");
            const char *close = strstr(line, "</text>");
            if (!end || end != close - 3) continue; /* not a cut line */
            char whole[600];
            snprintf(whole, sizeof whole, " %.*s ", (int)(end - line), line);
            char padded[620];
            snprintf(padded, sizeof padded, " %s ", t);
            if (!strstr(padded, whole)) fail_msg("%d words: a cut line '%.*s…' ends inside a word", n, (int)(end - line), line);
        }
        free(svg);
    }
}

/* ---------------------------------------------------------------- determinism, formats */

/* The same command twice gives the same bytes, PNG and SVG. */
static void test_reruns_are_byte_identical(void **state) {
    fixture *f = *state;
    char *first[2 * N_ALL];
    size_t len[2 * N_ALL];
    for (int run = 0; run < 2; run++) {
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--pad-to", "6", "--causal", "--figures", "all", "--format", "both", "-o",
            in(f, "x"), "我爱 naïve you");
        expect_ok(&r);
        tu_free(&r);
        for (int k = 0; k < 2 * N_ALL; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "x/%s.%s", ALL_FILES[k / 2], k % 2 ? "svg" : "png");
            size_t n = 0;
            char *data = slurp(in(f, rel), &n);
            assert_non_null(data);
            if (run == 0) {
                first[k] = data;
                len[k] = n;
                unlink(in(f, rel));
                continue;
            }
            if (n != len[k] || memcmp(data, first[k], n) != 0) fail_msg("%s differs between two runs", rel);
            free(data);
            free(first[k]);
        }
    }
}

/* docs/figures/love holds the demo's figures, every kind, PNG and SVG, that README and the tutorials show,
 * written by scripts/figures.sh's `attnviz -q --heads 8 --figures all --format both -o docs/figures/love "I love
 * deep learning"`. Nothing checked that they are what attnviz draws now: a change to a figure's layout or text
 * left the docs showing the old one until someone regenerated them by hand. The command runs again here, in a
 * folder where -o is the same docs/figures/love path (the figures record their command), and each file must be
 * the committed one: an SVG byte for byte, a PNG its pixels, size, dpi and text chunks (the compressed bytes
 * depend on the zlib/ISA-L build, the pixels do not). The weights are seeded random, the kernel the reference
 * one (sums in double) and the labels Latin in the bundled DejaVu Sans, so the drawing does not depend on the
 * machine. The two folders must also hold the same file names. */
static void test_docs_demo_figures_are_what_this_build_draws(void **state) {
    fixture *f = *state;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tu_sh_word(in(f, "docs/figures")));
    assert_int_equal(system(cmd), 0);
    tu_result r;
    tu_run_opts ro = {f->dir, -1, 0, NULL, 0};
    tu_run_ex(&r, &ro, NULL, 0,
              (const char *const[]){"-q", "--heads", "8", "--figures", "all", "--format", "both", "-o",
                                    "docs/figures/love", "I love deep learning", NULL});
    expect_ok(&r);
    tu_free(&r);
    static const char *const how = "run the commands of scripts/figures.sh again (make figures), look at the "
                                   "figures, and commit them";
    for (int side = 0; side < 2; side++) { /* the docs' files, then the fresh ones */
        const char *dir = side == 0 ? src_path("docs/figures/love") : in(f, "docs/figures/love");
        DIR *d = opendir(dir);
        if (!d) fail_msg("cannot open %s", dir);
        int files = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.') continue;
            char doc[4400], fresh[4400];
            snprintf(doc, sizeof doc, "%s/%s", src_path("docs/figures/love"), e->d_name);
            snprintf(fresh, sizeof fresh, "%s/docs/figures/love/%s", f->dir, e->d_name);
            files++;
            if (access(side == 0 ? fresh : doc, F_OK) != 0)
                fail_msg("docs/figures/love/%s is %s: %s", e->d_name,
                         side == 0 ? "in the docs but not drawn now" : "drawn now but not in the docs", how);
            if (side == 1) continue;
            size_t n = strlen(e->d_name);
            if (n > 4 && !strcmp(e->d_name + n - 4, ".svg")) {
                size_t la = 0, lb = 0;
                char *a = slurp(doc, &la), *b = slurp(fresh, &lb);
                assert_non_null(a);
                assert_non_null(b);
                if (la != lb || memcmp(a, b, la) != 0) {
                    size_t k = 0, line = 1;
                    while (k < la && k < lb && a[k] == b[k]) line += a[k++] == '\n';
                    fail_msg("docs/figures/love/%s differs from what this build draws (line %zu): %s", e->d_name,
                             line, how);
                }
                free(a);
                free(b);
            } else if (n > 4 && !strcmp(e->d_name + n - 4, ".png")) {
                av_png_image a, b;
                read_png(doc, &a);
                read_png(fresh, &b);
                int same = a.width == b.width && a.height == b.height && a.dpi == b.dpi && a.n_texts == b.n_texts &&
                           !memcmp(a.rgb, b.rgb, (size_t)a.width * a.height * 3);
                for (int t = 0; same && t < a.n_texts; t++)
                    same = !strcmp(a.keys[t], b.keys[t]) && !strcmp(a.values[t], b.values[t]);
                if (!same)
                    fail_msg("docs/figures/love/%s (%dx%d) differs from what this build draws (%dx%d): %s",
                             e->d_name, a.width, a.height, b.width, b.height, how);
                av_png_image_free(&a);
                av_png_image_free(&b);
            }
        }
        closedir(d);
        assert_true(files >= 2 * 8);
    }
}

static void test_format_selects_files(void **state) {
    fixture *f = *state;
    static const char *fmts[3] = {"png", "svg", "both"};
    for (int k = 0; k < 3; k++) {
        char dir[64];
        snprintf(dir, sizeof dir, "f_%s", fmts[k]);
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--format", fmts[k], "-o", in(f, dir), "I love you");
        expect_ok(&r);
        tu_free(&r);
        char p[128];
        snprintf(p, sizeof p, "%s/head0.png", dir);
        assert_int_equal(file_exists(in(f, p)), k != 1);
        snprintf(p, sizeof p, "%s/heads.svg", dir);
        assert_int_equal(file_exists(in(f, p)), k != 0);
        assert_int_equal(count_entries(in(f, dir)), k == 2 ? 6 : 3);
    }
}

/* ---------------------------------------------------------------- options */

/* Each bad value: exit 2, a message naming it and the allowed values, and no
 * output folder. */
static void test_bad_values_exit_2_and_write_nothing(void **state) {
    fixture *f = *state;
    static const struct {
        const char *opt, *val, *says;
    } bad[] = {
        {"--cmap", "jet", "viridis, magma"},      {"--cmap", "", "viridis"},
        {"--dpi", "0", "50..600"},                {"--dpi", "601", "50..600"},
        {"--dpi", "72.5", "50..600"},             {"--scale", "0", "0.5..4"},
        {"--scale", "4.5", "0.5..4"},             {"--scale", "nan", "0.5..4"},
        {"--scale", "2x", "0.5..4"},              {"--format", "jpg", "png, svg or both"},
        {"--format", "jpeg", "png, svg or both"}, {"--figures", "heads,foo", "heads, grid, mean"},
        {"--figures", "", "empty"},               {"--figures", "heads,", "empty"},
        {"--figures", "attention", "pe, mask or all; with --model: model"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tu_result r;
        const char *out = in(f, "never");
        RUN(&r, "--heads", "2", bad[k].opt, bad[k].val, "-o", out, "I love you");
        if (r.code != 2) fail_msg("%s '%s': exit %d, want 2", bad[k].opt, bad[k].val, r.code);
        char name[64];
        snprintf(name, sizeof name, "%s '%s'", bad[k].opt, bad[k].val);
        if (!strstr(r.err, "attnviz: error: ") || !strstr(r.err, bad[k].says) ||
            (bad[k].val[0] && !strstr(r.err, bad[k].val)))
            fail_msg("%s: message does not name the value and the allowed set: %s", name, r.err);
        assert_false(file_exists(out));
        assert_int_equal(r.out[0], 0);
        tu_free(&r);
    }
    /* scale × dpi / 100 over 8 */
    tu_result r;
    RUN(&r, "--dpi", "600", "--scale", "2", "-o", in(f, "never"), "I love you");
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--dpi 600"));
    assert_false(file_exists(in(f, "never")));
    tu_free(&r);
    /* with --no-plot nothing is drawn: each alone was "has no effect with --no-plot", together an exit 2 that
     * "draws figures 24 times their 100-dpi size"; now the two warnings and the run (with and without --html) */
    for (int html = 0; html < 2; html++) {
        const char *out = in(f, html ? "np_html" : "np");
        if (html) RUN(&r, "--no-plot", "--html", "--dpi", "600", "--scale", "4", "-q", "-o", out, "I love you");
        else RUN(&r, "--no-plot", "--dpi", "600", "--scale", "4", "-q", "-o", out, "I love you");
        if (r.code != 0) fail_msg("--no-plot --dpi 600 --scale 4%s: exit %d: %s", html ? " --html" : "", r.code, r.err);
        assert_null(strstr(r.err, "error"));
        assert_non_null(strstr(r.err, "--dpi 600 has no effect with --no-plot"));
        assert_non_null(strstr(r.err, "--scale 4 has no effect with --no-plot"));
        assert_int_equal(file_exists(in(f, html ? "np_html/attnviz.html" : "np")), html);
        assert_false(file_exists(in(f, html ? "np_html/head0.png" : "np/head0.png")));
        tu_free(&r);
    }
}

/* Named values match in any case, as --cmap's always did and matplotlib's savefig(format="SVG") does:
 * --format SVG was "--format 'SVG' is not allowed; expected png, svg or both" (a tester's report). */
static void test_named_values_any_case(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--format", "SVG", "--figures", "Heads,GRID", "--positions", "ROPE", "--color",
        "NEVER", "--vmax", "Fixed", "-o", in(f, "uc"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_true(file_exists(in(f, "uc/head0.svg")));
    assert_true(file_exists(in(f, "uc/heads.svg")));
    assert_false(file_exists(in(f, "uc/head0.png")));
    assert_false(file_exists(in(f, "uc/mean.svg"))); /* only the figures asked for */
    RUN(&r, "-q", "--no-plot", "--format", "Both", "hi"); /* the warning names the value as the help spells it */
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.err, "--format both has no effect with --no-plot"));
    tu_free(&r);
}

/* Every colour map the module has is a --cmap name (any case), and the
 * cells use it. */
static void test_cmap_names_and_cell_colour(void **state) {
    fixture *f = *state;
    for (int c = 0; c < AV_CMAP_COUNT; c++) {
        tu_result r;
        RUN(&r, "-q", "--no-plot", "--cmap", av_cmap_name((av_cmap)c), "hi");
        if (r.code != 0) fail_msg("--cmap %s: exit %d: %s", av_cmap_name((av_cmap)c), r.code, r.err);
        tu_free(&r);
    }
    tu_result r;
    RUN(&r, "-q", "--no-plot", "--cmap", "MAGMA", "hi");
    assert_int_equal(r.code, 0);
    tu_free(&r);
    RUN(&r, "-q", "--cmap", "magma", "--dump", in(f, "d"), "-o", in(f, "m"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    float *att = load3(in(f, "d/weights.npy"), 1, 3);
    static const char *tok[] = {"I", "love", "you"};
    av_plot_meta meta = {.cmap = AV_CMAP_MAGMA};
    av_heatmap hm = {.n_q = 3, .n_k = 3, .q_labels = tok, .k_labels = tok, .w = att};
    unsigned char got[3], want[3];
    for (int i = 0; i < 3; i++) {
        cell_rgb(in(f, "m/head0.png"), hm, &meta, i, (i + 1) % 3, got);
        cmap_rgb(AV_CMAP_MAGMA, att[i * 3 + (i + 1) % 3], want);
        assert_memory_equal(got, want, 3);
    }
    free(att);
}

/* pe: sinusoidal PE, RoPE angles, and a note (no file) for none. */
static void test_pe_figure_follows_positions(void **state) {
    fixture *f = *state;
    static const struct {
        const char *pos, *title;
    } cases[] = {{"sinusoidal", "sinusoidal positional encoding"}, {"rope", "RoPE"}, {"none", NULL}};
    for (int k = 0; k < 3; k++) {
        char dir[64];
        snprintf(dir, sizeof dir, "pe_%s", cases[k].pos);
        tu_result r;
        RUN(&r, "--d-model", "64", "--positions", cases[k].pos, "--figures", "pe", "-o", in(f, dir), "I love you");
        expect_ok(&r);
        char p[128];
        snprintf(p, sizeof p, "%s/pe.png", dir);
        if (!cases[k].title) {
            assert_false(file_exists(in(f, p)));
            /* --figures pe named: a warning, as every option with no effect gets (printed with -q too) */
            assert_non_null(strstr(r.err, "attnviz: warning: no pe figure"));
            assert_non_null(strstr(r.err, "--positions none"));
        } else {
            av_png_image img;
            read_png(in(f, p), &img);
            assert_non_null(strstr(av_png_image_text(&img, "Title"), cases[k].title));
            av_png_image_free(&img);
        }
        tu_free(&r);
    }
}

/* The PE figure of a long input pools its rows: `attnviz -f l5k.txt -d 64 --figures pe` (4788 tokens) drew
 * 4788 positions into ~2300 pixel rows, each pixel the average of its rows' colours, so the high-frequency
 * columns came out mauve, (153,110,126), on no colour of the bar, under a title that named no pooling (the
 * heat maps say "max over 3×3 tokens per cell"). Now blocks of positions are averaged as values (the mean
 * even with --pool max: a sinusoid's max over a block is about 1 wherever it falls) and the title says
 * "mean over N positions per row": every coloured pixel of the 3000-token pe.png is an RdBu_r entry, and
 * the PNG's Title and the SVG's <title> name the pooling; a 4-token pe figure names none. */
static void test_pe_figure_of_a_long_input_pools_its_rows(void **state) {
    fixture *f = *state;
    FILE *fp = fopen(in(f, "long.txt"), "w");
    assert_non_null(fp);
    static const char *const words[] = {"the", "cat", "sat", "on"};
    for (int k = 0; k < 3000; k++) fprintf(fp, "%s%s", k ? " " : "", words[k % 4]);
    fclose(fp);
    tu_result r;
    RUN(&r, "-q", "-d", "16", "--pool", "max", "--figures", "pe", "--format", "both", "-o", in(f, "long"), "-f",
        in(f, "long.txt"));
    expect_ok(&r);
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "long/pe.png"), &img);
    const char *title = av_png_image_text(&img, "Title");
    assert_non_null(title);
    const char *note = strstr(title, " \xC2\xB7 mean over ");
    if (!note) fail_msg("pe.png of 3000 tokens: the title names no pooling: %s", title);
    int per = 0, end = 0;
    if (sscanf(note, " \xC2\xB7 mean over %d positions per row%n", &per, &end) != 1 || note[end] || per < 2)
        fail_msg("pe.png of 3000 tokens: the title ends \"%s\", not \"mean over N positions per row\"", note);
    unsigned char lut[256][3];
    for (int k = 0; k < 256; k++) av_cmap_entry(AV_CMAP_RDBU_R, k, lut[k]);
    long coloured = 0, off = 0;
    unsigned char first_off[3] = {0};
    for (size_t px = 0; px < (size_t)img.width * img.height; px++) {
        const unsigned char *c = img.rgb + px * 3;
        if (is_grey(c)) continue; /* white, text, frames and ticks */
        coloured++;
        int on = 0;
        for (int k = 0; k < 256 && !on; k++) on = !memcmp(c, lut[k], 3);
        if (!on && !off++) memcpy(first_off, c, 3);
    }
    if (off)
        fail_msg("pe.png of 3000 tokens: %ld of %ld coloured pixels are on no colour of the bar, e.g. (%d,%d,%d)", off,
                 coloured, first_off[0], first_off[1], first_off[2]);
    assert_true(coloured > 100000);
    av_png_image_free(&img);
    char *svg = slurp(in(f, "long/pe.svg"), NULL);
    assert_non_null(svg);
    char want[96];
    snprintf(want, sizeof want, "mean over %d positions per row</title>", per);
    if (!strstr(svg, want)) fail_msg("pe.svg of 3000 tokens: no <title> ending \"%s\"", want);
    free(svg);
    RUN(&r, "-q", "-d", "16", "--figures", "pe", "-o", in(f, "short"), "I love you too");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "short/pe.png"), &img);
    assert_null(strstr(av_png_image_text(&img, "Title"), "per row"));
    av_png_image_free(&img);
}

/* 60 tokens: labels are thinned and carry their position, "2: w2". */
static void test_thinned_labels_show_positions(void **state) {
    fixture *f = *state;
    char sentence[1024] = "";
    for (int k = 0; k < 60; k++) {
        size_t at = strlen(sentence);
        snprintf(sentence + at, sizeof sentence - at, "%sw%d", k ? " " : "", k);
    }
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "-o", in(f, "t"), sentence);
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "t/head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">2: w2</text>"), 2);
    assert_int_equal(count_str(svg, ">58: w58</text>"), 2);
    assert_int_equal(count_str(svg, ">w2</text>"), 0);
    assert_int_equal(count_str(svg, ">1: w1</text>"), 0);
    free(svg);
}

/* A thinned label's index is set off by ": ", so a token that is a number does
 * not read as part of it: scores.png of a Chinese sentence with numbers said
 * "2 2024", "16 3" and "18 14", which a class read as one token "18 14"
 * (a teacher's report). The 21 tokens are thinned to every 2nd in the grids
 * (heads, scores); pe's rows are positions, always "k: token". */
static void test_thinned_labels_set_the_index_off(void **state) {
    fixture *f = *state;
    static const char *const files[] = {"heads", "scores", "pe"};
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--figures", "all", "--format", "svg", "-o", in(f, "n"),
        "\xE6\x88\x91\xE5\x9C\xA8" "2024\xE5\xB9\xB4\xE5\xAD\xA6\xE4\xBA\x86Transformer\xEF\xBC\x8C"
        "\xE7\x9C\x9F\xE5\xBC\x80\xE5\xBF\x83\xF0\x9F\x98\x80\xEF\xBC\x81\xE4\xBB\xB7\xE6\xA0\xBC"
        "\xE6\x98\xAF" "3.14\xE5\x85\x83\xE3\x80\x82"); /* 我在2024年学了Transformer，真开心😀！价格是3.14元。 */
    expect_ok(&r);
    tu_free(&r);
    char path[64];
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(path, sizeof path, "n/%s.svg", files[k]);
        char *svg = slurp(in(f, path), NULL);
        assert_non_null(svg);
        if (!strstr(svg, ">2: 2024</text>") || !strstr(svg, ">18: 14</text>") || !strstr(svg, ">16: 3</text>"))
            fail_msg("%s: no label \"2: 2024\", \"16: 3\" or \"18: 14\"", path);
        if (strstr(svg, ">18 14</text>") || strstr(svg, ">2 2024</text>")) fail_msg("%s: a label \"18 14\"", path);
        free(svg);
    }
}

/* --compare's panels are named by the setting, not "head 0", "head 1". */
static void test_compare_panels_named_by_setting(void **state) {
    fixture *f = *state;
    tu_result r;
    /* order has a figure too (the man page promises compare_WHAT.png for every WHAT) */
    RUN(&r, "-q", "--heads", "2", "-d", "16", "--compare", "order", "--format", "svg", "-o", in(f, "o"),
        "the cat sat on the mat");
    expect_ok(&r);
    tu_free(&r);
    char *osvg = slurp(in(f, "o/compare_order.svg"), NULL);
    assert_non_null(osvg);
    assert_int_equal(count_str(osvg, ">positions none: head 0 max 0</text>"), 1); /* a pure permutation */
    assert_int_equal(count_str(osvg, ">positions sinusoidal: head 0 max "), 1);
    assert_non_null(strstr(osvg, "0 everywhere = the weights only permute"));
    free(osvg);
    RUN(&r, "-q", "--heads", "2", "--compare", "scale", "--format", "both", "-o", in(f, "c"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_true(file_exists(in(f, "c/compare_scale.png")));
    char *svg = slurp(in(f, "c/compare_scale.svg"), NULL);
    assert_non_null(svg);
    assert_int_equal(count_str(svg, ">no scale</text>"), 1);
    assert_int_equal(count_str(svg, ">scaled \xC3\xB7\xE2\x88\x9A" "d_k</text>"), 1);
    assert_int_equal(count_str(svg, ">head 0</text>"), 0);
    assert_int_equal(count_str(svg, ">head 1</text>"), 0);
    free(svg);
}

/* The hatched cells' legend said "masked (−∞)" on every figure: `attnviz --heads 2 --causal "I love you"` wrote it
 * beside head0.png's weights, which read as a weight of −∞. A masked pair's score is −∞ before the softmax and its
 * weight exp(−∞) / Σ = 0 after it (PyTorch's bool attn_mask), so each figure names what its cells hold: the
 * weights figures (head, grid, mean, mask, a --compare of weights) "masked (score −∞, weight 0)", the scores
 * figures "masked (score −∞)", each exactly once and never the other's words. */
static void test_mask_legend_names_score_or_weight(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--causal", "--figures", "all", "--format", "svg", "-o", in(f, "lg"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "--causal", "--compare", "scale", "--format", "svg", "-o", in(f, "lgc"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    static const char WEIGHTS[] = ">masked (score " NEG_INF ", weight 0)</text>";
    static const char SCORES[] = ">masked (score " NEG_INF ")</text>";
    static const char *const weights[] = {"lg/head0.svg", "lg/head1.svg", "lg/heads.svg", "lg/mean.svg",
                                          "lg/mask.svg", "lgc/compare_scale.svg"};
    static const char *const scores[] = {"lg/scores_head0.svg", "lg/scores_head1.svg", "lg/scores.svg"};
    for (size_t k = 0; k < sizeof weights / sizeof weights[0]; k++) {
        char *svg = slurp(in(f, weights[k]), NULL);
        assert_non_null(svg);
        if (count_str(svg, WEIGHTS) != 1 || count_str(svg, SCORES) != 0 || strstr(svg, ">masked (" NEG_INF ")<"))
            fail_msg("%s: the legend does not say \"masked (score −∞, weight 0)\" once", weights[k]);
        free(svg);
    }
    for (size_t k = 0; k < sizeof scores / sizeof scores[0]; k++) {
        char *svg = slurp(in(f, scores[k]), NULL);
        assert_non_null(svg);
        if (count_str(svg, SCORES) != 1 || strstr(svg, "weight 0)</text>"))
            fail_msg("%s: the legend does not say \"masked (score −∞)\" once", scores[k]);
        free(svg);
    }
}

/* --compare order's |ΔA| map drew --pad-to's masked <pad> keys as cells of 0.00, which the title reads as "the
 * weights only permute": `attnviz --heads 2 --compare order --pad-to 5 "I love you"` printed 75 numbers (3
 * panels × 5 × 5) where every other figure hatches masked cells. The <pad> keys are masked in A and A′ alike
 * (π swaps "I" and "you" only), so each panel prints 5 query rows × 3 real keys = 15 numbers, 45 in all
 * (counted by hand), and hatches the rest with the legend "masked (score −∞, weight 0 in both)". */
static void test_compare_order_hatches_pad_keys(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--compare", "order", "--pad-to", "5", "--format", "svg", "-o", in(f, "o"),
        "I love you");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "o/compare_order.svg"), NULL);
    assert_non_null(svg);
    int numbers = 0; /* cell values: centred, "d.dd" (the colour bar's ticks are start-anchored) */
    for (const char *p = svg; (p = strstr(p, "text-anchor=\"middle\" fill=\"#")) != NULL; p++) {
        const char *v = strchr(p, '>');
        if (v && isdigit((unsigned char)v[1]) && v[2] == '.' && isdigit((unsigned char)v[3]) &&
            isdigit((unsigned char)v[4]) && strncmp(v + 5, "</text>", 7) == 0)
            numbers++;
    }
    assert_int_equal(numbers, 45);
    assert_non_null(strstr(svg, "fill=\"url(#hatch)\""));
    assert_int_equal(count_str(svg, ">masked (score \xE2\x88\x92\xE2\x88\x9E, weight 0 in both)</text>"), 1);
    free(svg);
}

/* --compare order's panels name the max over the real query rows (the terminal's check), but draw the <pad> query
 * rows too, on the same colour bar: `attnviz --compare order --pad-to 8 --seed 42 "hello world"` drew rope's <pad>
 * rows up to 0.24 under "positions rope: max 0.0824 (real rows)", with nothing saying why. The title now gives the
 * <pad> rows' own max per positions kind. Independent source: two plain runs dumped with --dump, "hello world" and
 * "world hello" (the swap π = (0 1), same token texts so the same embeddings and weights), and |A′[π(i), π(j)] −
 * A[i, j]| worked here over the visible keys j < 2; the <pad> rows' max must beat the real rows' for rope (0.241
 * against 0.0824), so the test reads a case where the figure misled. */
/* Half a unit in the third significant digit of v (and a little more, for the float's own rounding): how far
 * "%#.3g" may be from v; 0 is printed "0". */
static double sig3_tol(double v) { return v > 0 ? 0.51 * pow(10, floor(log10(v)) - 2) : 1e-12; }

static void test_compare_order_names_pad_rows_max(void **state) {
    fixture *f = *state;
    static const char *const pos[3] = {"none", "sinusoidal", "rope"};
    enum { T = 8, NR = 2 };
    double real[3] = {0}, pad[3] = {0};
    for (int p = 0; p < 3; p++) {
        float *a[2];
        for (int s = 0; s < 2; s++) {
            tu_result r;
            char dir[32], path[64];
            snprintf(dir, sizeof dir, "d%d%d", p, s);
            RUN(&r, "-q", "--no-plot", "--positions", pos[p], "--pad-to", "8", "--seed", "42", "--dump", in(f, dir),
                s ? "world hello" : "hello world");
            expect_ok(&r);
            tu_free(&r);
            snprintf(path, sizeof path, "%s/weights.npy", dir);
            a[s] = load3(in(f, path), 1, T);
        }
        for (int i = 0; i < T; i++)
            for (int j = 0; j < NR; j++) {
                int pi = i < NR ? 1 - i : i, pj = 1 - j;
                double d = fabs((double)a[1][pi * T + pj] - a[0][i * T + j]);
                if (i < NR) real[p] = fmax(real[p], d);
                else pad[p] = fmax(pad[p], d);
            }
        free(a[0]);
        free(a[1]);
    }
    assert_true(pad[2] > real[2] + 0.1); /* rope: 0.241 against 0.0824 */
    tu_result r;
    RUN(&r, "-q", "--compare", "order", "--pad-to", "8", "--seed", "42", "--format", "svg", "-o", in(f, "o"),
        "hello world");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "o/compare_order.svg"), NULL);
    assert_non_null(svg);
    const char *key = "&lt;pad&gt; query rows, not in the max (their output is ignored): ";
    const char *v = strstr(svg, key);
    if (!v) fail_msg("compare_order.svg: no \"%s\" in the title", key);
    v += strlen(key);
    for (int p = 0; p < 3; p++) { /* "none 0, sinusoidal 0.0926, rope 0.241" */
        char name[16];
        double got;
        int used = 0;
        if (sscanf(v, "%15s %lf%n", name, &got, &used) != 2) fail_msg("cannot read the <pad> rows' max at \"%.40s\"", v);
        assert_string_equal(name, pos[p]);
        if (fabs(got - pad[p]) > sig3_tol(pad[p]))
            fail_msg("positions %s: the title's <pad> rows' max is %g, the dumps give %g", pos[p], got, pad[p]);
        v += used;
        if (*v == ',') v += 2;
        char panel[64];
        snprintf(panel, sizeof panel, ">positions %s: max ", pos[p]);
        const char *m = strstr(svg, panel);
        if (!m) fail_msg("no panel title \"%s\"", panel + 1);
        got = atof(m + strlen(panel));
        if (fabs(got - real[p]) > sig3_tol(real[p]))
            fail_msg("positions %s: the panel's max is %g, the dumps' real rows give %g", pos[p], got, real[p]);
    }
    free(svg);
}

/* --compare order's terminal check is a max over every head, its figure draws one: `attnviz -H 2 --compare order
 * --pad-to 6 "I love you"` printed "positions rope max difference = 0.276" over a panel "positions rope: max 0.092
 * (real rows)", head 0's, with nothing on the slide saying whose. Now each panel says "head h max", the title
 * gives the terminal's max over all heads, both as the terminal writes them. Independent check: a max over 2
 * heads is the larger of the 2 heads' maxima, so the figures of --head 0 and --head 1 together give the
 * terminal's 3 numbers, and the title repeats them. */
static void test_compare_order_names_head_and_all_heads_max(void **state) {
    fixture *f = *state;
    static const char *const pos[3] = {"none", "sinusoidal", "rope"};
    double term[3], head_max[2][3];
    char term_txt[3][32];
    for (int h = 0; h < 2; h++) {
        tu_result r;
        char hs[12], dir[16]; /* room for any int: -O1 warned of truncation (-Wformat-truncation) */
        snprintf(hs, sizeof hs, "%d", h);
        snprintf(dir, sizeof dir, "o%d", h);
        RUN(&r, "-q", "-H", "2", "--head", hs, "--compare", "order", "--pad-to", "6", "--format", "svg", "-o",
            in(f, dir), "I love you");
        expect_ok(&r);
        for (int p = 0; p < 3; p++) { /* "  positions rope        max difference = 0.276      order matters..." */
            char key[64];
            snprintf(key, sizeof key, "positions %s ", pos[p]);
            const char *l = strstr(r.out, key), *v = l ? strstr(l, "max difference = ") : NULL;
            if (!v) fail_msg("no \"%smax difference\" line:\n%s", key, r.out);
            v += strlen("max difference = ");
            assert_int_equal(sscanf(v, "%31s", term_txt[p]), 1);
            term[p] = atof(term_txt[p]);
        }
        tu_free(&r);
        char path[48];
        snprintf(path, sizeof path, "%s/compare_order.svg", dir);
        char *svg = slurp(in(f, path), NULL);
        assert_non_null(svg);
        for (int p = 0; p < 3; p++) {
            char want[96];
            snprintf(want, sizeof want, ">positions %s: head %d max ", pos[p], h);
            const char *v = strstr(svg, want);
            if (!v) fail_msg("%s: no panel title \"%s\"", path, want + 1);
            head_max[h][p] = atof(v + strlen(want));
            assert_non_null(strstr(v, " (real rows)</text>"));
        }
        char title[200];
        snprintf(title, sizeof title, "max over all 2 heads (real rows): none %s, sinusoidal %s, rope %s", term_txt[0],
                 term_txt[1], term_txt[2]);
        if (!strstr(svg, title)) fail_msg("%s: the title does not hold \"%s\"", path, title);
        free(svg);
    }
    for (int p = 0; p < 3; p++) /* 3 significant digits each: within half a unit of the third */
        if (fabs(fmax(head_max[0][p], head_max[1][p]) - term[p]) > 5e-4 * fmax(term[p], 1e-300) + 1e-12)
            fail_msg("positions %s: heads' maxima %g and %g, but the terminal's max over heads is %g", pos[p],
                     head_max[0][p], head_max[1][p], term[p]);
    assert_true(term[2] > 0 && fmin(head_max[0][2], head_max[1][2]) < term[2]); /* the heads differ: a real test */
}

/* Every --compare figure's title says what the other figures' titles say:
 * the head of how many, the mask, and the settings not compared (positions
 * for scale, "no scale"); order names the mask it ran with (padding only).
 * It said "head 0 under each setting" alone. */
static void test_compare_titles_name_head_mask_and_positions(void **state) {
    fixture *f = *state;
    static const struct {
        const char *args[8], *file, *want[2], *not_want;
    } cases[] = {
        {{"--compare", "positions", "--rope-style", "half", "--causal", "--pad-to", "6"}, "compare_positions",
         {"--compare positions: head 0 of 2 under each setting · positions: none vs sinusoidal vs RoPE (half) · "
          "mask: causal + key padding (2 <pad>)", ""}, "no scale"},
        {{"--compare", "scale", "--positions", "rope", "--rope-style", "half", "--causal"}, "compare_scale",
         {"--compare scale: head 0 of 2 under each setting · positions: RoPE (half) · mask: causal", ""}, "no scale"},
        {{"--compare", "rope-style", "--no-scale", "--pad-to", "6"}, "compare_rope-style",
         {"--compare rope-style: head 0 of 2 under each setting · mask: key padding (2 <pad>) · no scale", ""},
         "· positions: "},
        {{"--compare", "order", "--causal", "--pad-to", "6"}, "compare_order",
         {"of head 0 of 2 · max over all 2 heads (real rows): none 0, sinusoidal ", "0 everywhere = the weights only "
          "permute · run without the causal / --attn-mask mask · positions: none vs "
          "sinusoidal vs RoPE (interleaved) · mask: key padding (2 <pad>)"}, "no scale"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *argv[16] = {"-q", "--heads", "2", "-o", in(f, "c")};
        int n = 5;
        for (int k = 0; k < 8 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        argv[n] = "I love deep learning";
        tu_result r;
        tu_runv(&r, NULL, NULL, argv);
        expect_ok(&r);
        tu_free(&r);
        char path[64];
        snprintf(path, sizeof path, "c/%s.png", cases[i].file);
        av_png_image img;
        av_err e;
        assert_int_equal(av_png_read_texts(in(f, path), &img, &e), AV_OK);
        const char *title = av_png_image_text(&img, "Title");
        assert_non_null(title);
        for (int k = 0; k < 2; k++)
            if (cases[i].want[k][0] && !strstr(title, cases[i].want[k]))
                fail_msg("%s: Title lacks '%s':\n%s", path, cases[i].want[k], title);
        if (strstr(title, cases[i].not_want)) fail_msg("%s: Title says '%s':\n%s", path, cases[i].not_want, title);
        av_png_image_free(&img);
    }
}

/* A RoPE base other than 10000 changes every rotation angle (θ^(−2i/d_k)) and
 * so the weights; the titles named only "RoPE (interleaved)", the same as for
 * base 10000 (a teacher's pass: `--compare positions --rope-base 100`). Each
 * title now carries the base given on the command line; the default stays
 * unnamed. */
static void test_titles_name_a_non_default_rope_base(void **state) {
    fixture *f = *state;
    static const struct {
        const char *args[8], *file, *want;
    } cases[] = {
        {{"--positions", "rope", "--rope-base", "100"}, "head0", "positions: RoPE (interleaved, base 100) · "},
        {{"--positions", "rope", "--rope-style", "half", "--rope-base", "500"}, "head0",
         "positions: RoPE (half, base 500) · "},
        {{"--compare", "positions", "--rope-base", "100"}, "compare_positions",
         "positions: none vs sinusoidal vs RoPE (interleaved, base 100) · "},
        {{"--compare", "order", "--rope-base", "100"}, "compare_order", "vs RoPE (interleaved, base 100) · "},
        {{"--compare", "scale", "--positions", "rope", "--rope-base", "100"}, "compare_scale",
         "positions: RoPE (interleaved, base 100) · "},
        {{"--compare", "rope-style", "--rope-base", "100"}, "compare_rope-style", "RoPE base 100 · "},
        {{"--positions", "rope"}, "head0", "positions: RoPE (interleaved) · "}, /* the default: no base named */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *argv[16] = {"-q", "--heads", "2", "-o", in(f, "rb")};
        int n = 5;
        for (int k = 0; k < 8 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
        argv[n] = "I love deep learning";
        tu_result r;
        tu_runv(&r, NULL, NULL, argv);
        expect_ok(&r);
        tu_free(&r);
        char path[64];
        snprintf(path, sizeof path, "rb/%s.png", cases[i].file);
        av_png_image img;
        av_err e;
        assert_int_equal(av_png_read_texts(in(f, path), &img, &e), AV_OK);
        const char *title = av_png_image_text(&img, "Title");
        assert_non_null(title);
        if (!strstr(title, cases[i].want)) fail_msg("case %zu, %s: Title lacks '%s':\n%s", i, path, cases[i].want, title);
        av_png_image_free(&img);
    }
}

/* --vmax 1e-30: the colour bar's ticks in the SVG are short scientific
 * labels (the 1-2-5 step of 1e-30 / 7 is 2e-31: 0, 2e−31, ..., 1e−30),
 * not 31 decimals. */
static void test_tiny_vmax_ticks_in_scientific_notation(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--vmax", "1e-30", "--format", "svg", "-o", in(f, "v"), "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "v/head0.svg"), NULL);
    assert_non_null(svg);
    static const char *const ticks[] = {">0</text>", ">2e" MINUS "31</text>", ">4e" MINUS "31</text>",
                                        ">6e" MINUS "31</text>", ">8e" MINUS "31</text>", ">1e" MINUS "30</text>"};
    for (size_t i = 0; i < sizeof ticks / sizeof *ticks; i++)
        if (!strstr(svg, ticks[i])) fail_msg("head0.svg lacks the tick '%s'", ticks[i]);
    assert_null(strstr(svg, ">0.0000"));
    /* the colour bar's title gives the range with the same true minus as the ticks */
    if (!strstr(svg, "attention weight (0\xE2\x80\x93" "1e" MINUS "30, --vmax)"))
        fail_msg("head0.svg lacks the colour-bar title 'attention weight (0–1e−30, --vmax)'");
    assert_null(strstr(svg, "\xE2\x80\x93" "1e-30")); /* (the command line in the file's metadata keeps its "1e-30") */
    free(svg);
}

/* --vmax F below most visible weights saturates the map: a warning says so,
 * with the fraction. P10's weights (hand-worked, see p10_weights): per head
 * row 0 is one-hot (1 and ~4e-16), row 1 is 0.5, 0.5; so of the 8 weights
 * 6 exceed 0.4 (75%), 2 exceed 0.6 (no warning), and with --causal the 6
 * visible ones (1, 0.5, 0.5 per head) all exceed 1e-30, the smallest 0.5. */
static void test_vmax_below_the_weights_warns(void **state) {
    fixture *f = *state;
    const char *w = p10_weights(f);
    static const struct {
        const char *vmax, *causal, *want;
    } cases[] = {
        {"0.4", NULL, "attnviz: warning: --vmax 0.4 is below 75% of the visible weights (6 of 8): they all show the "
                      "top colour; use --vmax auto or a larger value\n"},
        {"0.6", NULL, NULL},
        {"1e-30", "--causal", "attnviz: warning: --vmax 1e-30 is below every visible weight (smallest 0.5): every "
                              "cell shows the top colour; use --vmax auto or a larger value\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r;
        /* -q: warnings are printed all the same */
        RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--positions", "none", "--weights", w, "--format", "svg",
            "--vmax", cases[i].vmax, "-o", in(f, "vw"), "I you", cases[i].causal);
        expect_ok(&r);
        if (cases[i].want && !strstr(r.err, cases[i].want))
            fail_msg("--vmax %s: stderr lacks '%s':\n%s", cases[i].vmax, cases[i].want, r.err);
        if (!cases[i].want && strstr(r.err, "--vmax")) fail_msg("--vmax %s: a warning:\n%s", cases[i].vmax, r.err);
        tu_free(&r);
    }
}

/* The --html page colours the weights over --vmax F as the figures do, so a run that writes the page and no
 * weight figure warns as the figures do: `-q --no-plot --html --vmax 0.01 -o DIR "I love deep learning"` (and
 * --figures scores) printed nothing, while nearly every cell of the page took the top colour. Once per run:
 * with head figures drawn too, only theirs. P10's weights as above: 6 of 8 exceed 0.4, 2 exceed 0.6. */
static void test_vmax_below_the_weights_warns_for_the_page(void **state) {
    fixture *f = *state;
    const char *w = p10_weights(f);
    static const char *const want = "attnviz: warning: --vmax 0.4 is below 75% of the visible weights (6 of 8): they "
                                    "all show the top colour; use --vmax auto or a larger value\n";
    static const struct {
        const char *vmax, *figs, *figs_arg; /* figs NULL: the default figures (heads, grid) */
    } cases[] = {
        {"0.4", "--no-plot", NULL}, {"0.4", "--figures", "scores"}, {"0.4", NULL, NULL}, {"0.6", "--no-plot", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r;
        RUN(&r, "-q", "--d-model", "4", "--heads", "2", "--positions", "none", "--weights", w, "--format", "svg",
            "--html", "--vmax", cases[i].vmax, "-o", in(f, "vp"), "I you", cases[i].figs, cases[i].figs_arg);
        expect_ok(&r);
        const char *at = strstr(r.err, want);
        if (strcmp(cases[i].vmax, "0.4") == 0 && (!at || strstr(at + 1, want)))
            fail_msg("--vmax 0.4 %s: stderr does not hold '%s' once:\n%s", cases[i].figs ? cases[i].figs : "", want,
                     r.err);
        if (strcmp(cases[i].vmax, "0.6") == 0 && strstr(r.err, "--vmax")) fail_msg("--vmax 0.6: a warning:\n%s", r.err);
        tu_free(&r);
    }
}

/* The --compare figure colours its panels over --vmax F as the head figures do, so it warns as they do:
 * `-q --compare scale --figures scores --vmax 0.01 -o DIR "I love deep learning"` wrote compare_scale.png
 * coloured over 0..0.01 and printed nothing. Counted over the cells the figure draws (head 0 under each
 * setting, 2 × 16): scaled, every weight is at least 0.038 (16 above 0.01); no scale, each of the 4 rows is
 * one-hot (mean max weight 0.9999), 4 above; 20 of 32 = 62%. Once per run: with the head figures and the
 * page too. At 0.6 at most 4 + 4 of 32 exceed it: no warning. */
static void test_vmax_below_the_weights_warns_for_compare(void **state) {
    fixture *f = *state;
    static const char *const want = "attnviz: warning: --vmax 0.01 is below 62% of the visible weights (20 of 32): "
                                    "they all show the top colour; use --vmax auto or a larger value\n";
    static const struct {
        const char *vmax, *a1, *a2, *a3;
    } cases[] = {
        {"0.01", "--figures", "scores", NULL},
        {"0.01", "--html", NULL, NULL},
        {"0.6", "--figures", "scores", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r;
        RUN(&r, "-q", "--compare", "scale", "--format", "svg", "--vmax", cases[i].vmax, "-o", in(f, "vc"),
            "I love deep learning", cases[i].a1, cases[i].a2, cases[i].a3);
        expect_ok(&r);
        int n = 0;
        for (const char *at = r.err; (at = strstr(at, "attnviz: warning: --vmax")); at++) n++;
        if (strcmp(cases[i].vmax, "0.01") == 0 && (n != 1 || !strstr(r.err, want)))
            fail_msg("--vmax 0.01 %s: stderr does not hold '%s' once:\n%s", cases[i].a1, want, r.err);
        if (strcmp(cases[i].vmax, "0.6") == 0 && n) fail_msg("--vmax 0.6: a warning:\n%s", r.err);
        tu_free(&r);
    }
}

/* --log-scale prints no numbers in cells (they would be log10 values): the
 * figure says so in its drawn title, and --help says so too; without
 * --log-scale the note is absent and the cells print their weights. */
static void test_log_scale_says_cells_print_no_numbers(void **state) {
    fixture *f = *state;
    for (int log = 0; log < 2; log++) {
        tu_result r;
        if (log) RUN(&r, "-q", "--log-scale", "--heads", "2", "--figures", "heads,grid", "--format", "svg", "-o",
                     in(f, "lg"), "I love deep learning");
        else RUN(&r, "-q", "--heads", "2", "--figures", "heads,grid", "--format", "svg", "-o", in(f, "li"),
                 "I love deep learning");
        expect_ok(&r);
        tu_free(&r);
        static const char *const files[] = {"head0.svg", "heads.svg"};
        for (int k = 0; k < 2; k++) {
            char path[64];
            snprintf(path, sizeof path, "%s/%s", log ? "lg" : "li", files[k]);
            char *svg = slurp(in(f, path), NULL);
            assert_non_null(svg);
            int has = strstr(svg, "font-weight=\"bold\">log colours: no numbers in cells</text>") != NULL ||
                      strstr(svg, " \xC2\xB7 log colours: no numbers in cells</text>") != NULL;
            if (has != log) fail_msg("%s: the log note is %s", path, has ? "there without --log-scale" : "missing");
            free(svg);
        }
    }
    tu_result r;
    RUN(&r, "--help");
    expect_ok(&r);
    tu_help_unwrap(r.out);
    assert_non_null(strstr(r.out, "--log-scale            colour weights by log10, 3 decades below --vmax; figure cells "
                                  "then print no numbers\n")); /* the --html page's matrix view still prints them */
    tu_free(&r);
}

/* The colour bar's extend triangle of one head0 figure (svg its SVG's text, png its PNG): with note NULL
 * none is drawn and nothing is said clipped; else the SVG's <desc> has note, the triangle filled rgb
 * has its base on the bar's end and its tip 5+ px beyond (below, or above when up), centred, the PNG
 * (the same layout at 100 dpi) has rgb at its centroid, and the PNG's tEXt Clipped starts with note's
 * text (after "clipped: "), or with up is that text. Shared by the log scale's 'min' and --vmax's 'max' tests. */
static void check_cbar_triangle(const char *svg, const char *png, const char *note, const unsigned char rgb[3], int up) {
    char fill_attr[32];
    snprintf(fill_attr, sizeof fill_attr, "fill=\"#%02x%02x%02x\"/>", rgb[0], rgb[1], rgb[2]);
    const char *poly = strstr(svg, "<polygon"), *fill = poly ? strstr(poly, fill_attr) : NULL;
    if (!note) {
        assert_null(poly);
        assert_null(strstr(svg, "clipped:"));
        return;
    }
    if (!strstr(svg, note)) fail_msg("head0.svg lacks '%s'", note);
    assert_non_null(poly);
    assert_non_null(fill);
    const char *pts = NULL; /* the last <polygon before that fill */
    for (const char *p = poly; p && p < fill; p = strstr(p + 1, "<polygon points=\"")) pts = p;
    float xa, ya, xb, yb, xc, yc;
    assert_non_null(pts);
    assert_int_equal(sscanf(pts, "<polygon points=\"%f,%f %f,%f %f,%f\"", &xa, &ya, &xb, &yb, &xc, &yc), 6);
    assert_true(ya == yb && (up ? yc < ya - 5 : yc > ya + 5) && fabsf(xc - (xa + xb) / 2) < 0.01f);
    av_png_image img;
    av_err e = {{0}};
    if (av_png_read(png, &img, &e)) fail_msg("%s", e.msg);
    int x = (int)((xa + xb + xc) / 3), y = (int)((ya + yb + yc) / 3);
    const unsigned char *px = img.rgb + ((size_t)y * img.width + x) * 3;
    if (memcmp(px, rgb, 3) != 0)
        fail_msg("head0.png at (%d, %d) is %02x%02x%02x, not %02x%02x%02x", x, y, px[0], px[1], px[2], rgb[0], rgb[1],
                 rgb[2]);
    const char *text = av_png_image_text(&img, "Clipped"), *want = note + strlen("clipped: ");
    if (!text || strncmp(text, want, strlen(want)) != 0 || (up && strcmp(text, want) != 0)) /* 'max': all of it */
        fail_msg("tEXt Clipped: %s", text ? text : "(none)");
    av_png_image_free(&img);
}

/* --log-scale colours every weight below the bar's bottom (0.001 here) in
 * the bottom colour, and its colour bar did not say so. As matplotlib's
 * colorbar(extend='min'): a triangle under the bar in that colour, viridis'
 * first entry #440154 (matplotlib's _viridis_data[0], 0.267004 0.004874
 * 0.329415), only when a weight really is below; the SVG's <desc> and the
 * PNG's tEXt "Clipped" count them, the count taken here from --dump's
 * weights.npy (head 0, every cell visible without a mask). */
static void test_log_scale_marks_clipped_weights(void **state) {
    fixture *f = *state;
    for (int clip = 0; clip < 2; clip++) {
        tu_result r;
        /* --no-scale at d_model 64 saturates the softmax: most weights < 0.001; scaled, none is */
        if (clip) RUN(&r, "-q", "--heads", "2", "-d", "64", "--no-scale", "--log-scale", "--figures", "heads", "--format",
                      "both", "--dump", in(f, "cd"), "-o", in(f, "c"), "I love deep learning today");
        else RUN(&r, "-q", "--heads", "2", "--log-scale", "--figures", "heads", "--format", "both", "--dump", in(f, "cd"),
                 "-o", in(f, "c"), "I love deep learning today");
        expect_ok(&r);
        tu_free(&r);
        av_npy w;
        av_err e = {{0}};
        if (av_npy_read(&w, in(f, "cd/weights.npy"), &e)) fail_msg("%s", e.msg);
        int below = 0;
        for (int c = 0; c < 25; c++) below += w.data[c] < 0.001f; /* head 0 of (2, 5, 5) */
        av_npy_free(&w);
        assert_true(clip ? below > 0 : below == 0);
        char *svg = slurp(in(f, "c/head0.svg"), NULL);
        assert_non_null(svg);
        char note[160];
        snprintf(note, sizeof note, "clipped: %d of 25 cells are below the colour bar's bottom, 0.001, and drawn in its "
                 "colour", below);
        static const unsigned char bottom[3] = {0x44, 0x01, 0x54};
        check_cbar_triangle(svg, in(f, "c/head0.png"), clip ? note : NULL, bottom, 0);
        free(svg);
    }
}

/* --vmax 0.3 draws every weight above 0.3 in the top colour, and its colour
 * bar did not say so (with --log-scale or past 32 tokens no number in a cell
 * does either). As matplotlib's colorbar(extend='max'): a triangle over the
 * bar in viridis' top colour, only when a weight really is above; the SVG's
 * <desc> and the PNG's tEXt "Clipped" count them, the count taken here from
 * --dump's weights.npy (head 0, every cell visible without a mask). The
 * default 0..1 has none. */
static void test_vmax_marks_weights_above_the_top(void **state) {
    fixture *f = *state;
    for (int clip = 0; clip < 2; clip++) {
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--vmax", clip ? "0.3" : "fixed", "--figures", "heads", "--format", "both",
            "--dump", in(f, "vd"), "-o", in(f, "v"), "I love deep learning today");
        expect_ok(&r);
        tu_free(&r);
        av_npy w;
        av_err e = {{0}};
        if (av_npy_read(&w, in(f, "vd/weights.npy"), &e)) fail_msg("%s", e.msg);
        int above = 0;
        for (int c = 0; c < 25; c++) above += w.data[c] > (clip ? 0.3f : 1.0f); /* head 0 of (2, 5, 5) */
        av_npy_free(&w);
        assert_true(clip ? above > 0 : above == 0);
        char *svg = slurp(in(f, "v/head0.svg"), NULL);
        assert_non_null(svg);
        char note[160], fill_attr[32];
        snprintf(note, sizeof note, "clipped: %d of 25 cells are above the colour bar's top, 0.3, and drawn in its "
                 "colour (the triangle over the bar)", above);
        unsigned char top[3];
        cmap_rgb(AV_CMAP_VIRIDIS, 1.0, top);
        snprintf(fill_attr, sizeof fill_attr, "fill=\"#%02x%02x%02x\"/>", top[0], top[1], top[2]);
        check_cbar_triangle(svg, in(f, "v/head0.png"), clip ? note : NULL, top, 1);
        free(svg);
    }
}

/* --log-scale --figures mean colours log₁₀ of the mean weight (the mean is
 * taken first), so its colour bar says so, not "mean log₁₀ attention
 * weight"; a fixed or --vmax range names the 3 decades the log scale spans,
 * both ends written the same way (not "10^−33 – 1e−30"). */
static void test_log_scale_mean_and_range_labels(void **state) {
    fixture *f = *state;
    static const struct {
        const char *args[3], *file, *want;
    } cases[] = {
        {{"--vmax", "fixed", NULL}, "mean", ">log\xE2\x82\x81\xE2\x82\x80 of the mean attention weight (fixed 0.001 "
                                            "\xE2\x80\x93 1)</text>"},
        /* both ends in one notation: 0.5 / 1000 = 0.0005, 1e-30 / 1000 = 1e-33 */
        {{"--vmax", "0.5", NULL}, "head0", ">log\xE2\x82\x81\xE2\x82\x80 attention weight (0.0005 \xE2\x80\x93 0.5, "
                                           "--vmax)</text>"},
        {{"--vmax", "1e-30", NULL}, "head0", ">log\xE2\x82\x81\xE2\x82\x80 attention weight (1e" MINUS "33 \xE2\x80\x93 1e"
                                             MINUS "30, --vmax)</text>"},
        /* 0.05 / 1000 = 5e-05, which %.3g writes with an exponent, 0.05 without: both get it (it read
         * "5e−05 – 0.05") */
        {{"--vmax", "0.05", NULL}, "head0", ">log\xE2\x82\x81\xE2\x82\x80 attention weight (5e" MINUS "05 \xE2\x80\x93 5e"
                                            MINUS "02, --vmax)</text>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--log-scale", "--figures", "heads,mean", "--format", "svg", cases[i].args[0],
            cases[i].args[1], "-o", in(f, "l"), "I love deep learning");
        expect_ok(&r);
        tu_free(&r);
        char path[64];
        snprintf(path, sizeof path, "l/%s.svg", cases[i].file);
        char *svg = slurp(in(f, path), NULL);
        assert_non_null(svg);
        if (!strstr(svg, cases[i].want)) fail_msg("%s lacks '%s'", path, cases[i].want);
        assert_null(strstr(svg, "mean log\xE2\x82\x81\xE2\x82\x80"));
        free(svg);
    }
}

/* --figures grid names the grid, so it is drawn even for one head (issue 10:
 * it used to write nothing and exit 0). */
static void test_grid_for_one_head_when_asked(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "--figures", "grid", "-o", in(f, "g"), "I love deep learning");
    expect_ok(&r);
    assert_true(file_exists(in(f, "g/heads.png")));
    assert_false(file_exists(in(f, "g/head0.png")));
    assert_null(strstr(r.err, "no grid"));
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "g/heads.png"), &img);
    assert_non_null(strstr(av_png_image_text(&img, "Title"), "attention weights of the one head"));
    av_png_image_free(&img);
}

/* --figures all with one head draws every figure kind, the scores grid too: it wrote heads.png but no
 * scores.png with -H 1 (a tester's report). --figures scores alone keeps the one-head default: no grid. */
static void test_figures_all_for_one_head_has_the_scores_grid(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "-H", "1", "--figures", "all", "-o", in(f, "a1"), "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    static const char *const want[] = {"head0", "heads", "mean", "scores_head0", "scores", "pe", "mask"};
    char p[64];
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        snprintf(p, sizeof p, "a1/%s.png", want[k]);
        if (!file_exists(in(f, p))) fail_msg("--figures all -H 1 wrote no %s", p);
    }
    assert_int_equal(count_entries(in(f, "a1")), 7);
    av_png_image img;
    read_png(in(f, "a1/scores.png"), &img);
    assert_non_null(strstr(av_png_image_text(&img, "Title"), "before the softmax of the one head"));
    av_png_image_free(&img);
    RUN(&r, "-q", "-H", "1", "--figures", "scores", "-o", in(f, "s1"), "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    assert_true(file_exists(in(f, "s1/scores_head0.png")));
    assert_false(file_exists(in(f, "s1/scores.png")));
}

/* 8 heads, then 2 heads into the same folder: head2..head7 of the first run
 * are removed (they carry attnviz's metadata); a file attnviz did not make
 * and figures with another --prefix stay. */
static void test_folder_never_mixes_two_runs(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "8", "--format", "both", "-o", in(f, "o"), "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "--heads", "2", "--prefix", "other_", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    FILE *fp = fopen(in(f, "o/head9.png"), "w"); /* named like a figure, not made by attnviz */
    assert_non_null(fp);
    fputs("not a figure", fp);
    fclose(fp);
    RUN(&r, "--heads", "2", "--format", "both", "-o", in(f, "o"), "the cat sat");
    expect_ok(&r);
    assert_non_null(strstr(r.err, "attnviz: note: removed 12 files of an earlier run from"));
    /* in name order, the first 8 */
    assert_non_null(strstr(r.err, "so the folder holds one run: head2.png head2.svg head3.png head3.svg head4.png "
                                  "head4.svg head5.png head5.svg ...\n"));
    tu_free(&r);
    const char *gone[] = {"head2.png", "head7.png", "head2.svg", "head7.svg"};
    const char *kept[] = {"head0.png", "head1.png", "heads.png", "head0.svg", "heads.svg", "head9.png",
                          "other_head0.png", "other_heads.png"};
    char rel[64];
    for (size_t k = 0; k < sizeof gone / sizeof gone[0]; k++) {
        snprintf(rel, sizeof rel, "o/%s", gone[k]);
        assert_false(file_exists(in(f, rel)));
    }
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
        snprintf(rel, sizeof rel, "o/%s", kept[k]);
        if (!file_exists(in(f, rel))) fail_msg("%s was removed", kept[k]);
    }
    assert_int_equal(count_entries(in(f, "o")), 10); /* 6 of this run + head9 + 3 with the prefix */
    /* the same run again with other figures and format: nothing of it is removed */
    RUN(&r, "--heads", "2", "--figures", "mask", "--format", "svg", "-o", in(f, "o"), "the cat sat");
    expect_ok(&r);
    assert_null(strstr(r.err, "removed"));
    tu_free(&r);
    assert_int_equal(count_entries(in(f, "o")), 11);
    av_png_image img;
    read_png(in(f, "o/head0.png"), &img);
    const char *run = av_png_image_text(&img, "Run");
    assert_non_null(run);
    assert_int_equal(strlen(run), 16);
    assert_int_equal(strspn(run, "0123456789abcdef"), 16);
    av_png_image_free(&img);
}


static void expect_files(const fixture *f, const char *dir, const char *const *names, int present) {
    char rel[256];
    for (int k = 0; names[k]; k++) {
        snprintf(rel, sizeof rel, "%s/%s", dir, names[k]);
        if (file_exists(in(f, rel)) != present) fail_msg("%s %s", rel, present ? "is missing" : "was not removed");
    }
}

/* An SVG whose colour bar clips cells has a "clipped: ..." line after its "run: " line, and the run id was read
 * up to </desc>, so it never matched: `attnviz --heads 2 --format svg -o o` on a 40-token sentence (--vmax auto
 * past 32 tokens) and then the same run with `--figures heads,grid,mean` (PNG) removed head0.svg, head1.svg and
 * heads.svg as "files of an earlier run". The same run, another format and figure: all 7 files stay. */
static void test_same_run_keeps_its_clipped_svgs(void **state) {
    fixture *f = *state;
    tu_result r;
    char sentence[512] = "";
    for (int k = 0; k < 40; k++) { /* 40 different words, 40 tokens */
        char word[16];
        snprintf(word, sizeof word, "%sw%d", k ? " " : "", k);
        strcat(sentence, word);
    }
    RUN(&r, "-q", "--heads", "2", "--format", "svg", "-o", in(f, "c"), sentence);
    expect_ok(&r);
    tu_free(&r);
    char *svg = tu_slurp_file(in(f, "c/head0.svg"), NULL);
    assert_non_null(svg);
    const char *run = strstr(svg, "&#10;run: ");
    assert_non_null(run); /* the case at stake: a line follows the run's */
    assert_int_equal(strspn(run + 10, "0123456789abcdef"), 16);
    assert_memory_equal(run + 26, "&#10;clipped: ", 14);
    free(svg);
    RUN(&r, "--heads", "2", "--figures", "heads,grid,mean", "-o", in(f, "c"), sentence);
    expect_ok(&r);
    assert_null(strstr(r.err, "removed"));
    tu_free(&r);
    const char *kept[] = {"head0.svg", "head1.svg", "heads.svg", "head0.png", "head1.png", "heads.png", "mean.png",
                          NULL};
    expect_files(f, "c", kept, 1);
    assert_int_equal(count_entries(in(f, "c")), 7);
}

/* An -o folder one may write in but not list (chmod 333, a class's drop box): `--heads 2` there and then
 * one head left head1.png and heads.png of the first run beside the new head0.png without a word (scandir
 * failed, and the stale files were taken to be none). Now a warning names the folder and the cause. */
static void test_unlistable_folder_warns_that_earlier_files_may_stay(void **state) {
    fixture *f = *state;
    tu_result r;
    assert_int_equal(mkdir(in(f, "drop"), 0777), 0);
    assert_int_equal(chmod(in(f, "drop"), 0777), 0);
    assert_int_equal(chmod(f->dir, 0755), 0); /* let uid 65534 reach drop/ */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", in(f, "drop"));
    if (tu_run_as_nobody(&r, (const char *const[]){"-q", "--heads", "2", "-o", dir, "I love you", NULL}) != 0) {
        print_message("[ SKIPROW  ] cannot run attnviz as uid 65534 here (exit %d)\n", r.code);
        tu_free(&r);
        return;
    }
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(chmod(dir, 0333), 0);
    assert_int_equal(tu_run_as_nobody(&r, (const char *const[]){"-q", "-o", dir, "I love you", NULL}), 0);
    expect_ok(&r); /* this run's figure is in place */
    char want[4400];
    snprintf(want, sizeof want, "attnviz: warning: cannot list %s (Permission denied), so files of an earlier run "
             "there, if any, were not removed and may lie beside this run's", tu_sh_word(dir));
    if (!strstr(r.err, want)) fail_msg("no warning '%s'\nstderr: %s", want, r.err);
    tu_free(&r);
    assert_int_equal(chmod(dir, 0755), 0);
    expect_files(f, "drop", (const char *[]){"head0.png", "head1.png", "heads.png", NULL}, 1);
}

/* A folder with a default ACL (`setfacl -d -m u::rwx,g::rwx,o::rx shared`, a class's shared folder) gives a
 * new file the ACL's group bits in place of the umask: `touch shared/x` is 0664 under umask 022. attnviz's
 * figures were 0644 (made 0600, then fchmod'ed to 0666 & ~umask), so the group could not rewrite them; now
 * they get the mode a plain open(path, O_CREAT, 0666) gets there. Skipped where the file system takes no
 * ACLs. */
static void test_figures_take_the_folders_default_acl(void **state) {
    fixture *f = *state;
    tu_result r;
    assert_int_equal(mkdir(in(f, "shared"), 0755), 0);
    /* system.posix_acl_default: version 2, then (tag, perm, id): USER_OBJ rwx, GROUP_OBJ rwx, OTHER r-x */
    static const unsigned char acl[] = {2, 0, 0, 0, 0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff, 0x04, 0, 7, 0,
                                        0xff, 0xff, 0xff, 0xff, 0x20, 0, 5, 0, 0xff, 0xff, 0xff, 0xff};
    if (setxattr(in(f, "shared"), "system.posix_acl_default", acl, sizeof acl, 0) != 0) {
        print_message("[ SKIPROW  ] no default ACL on this file system (%s)\n", strerror(errno));
        return;
    }
    mode_t old = umask(022);
    int fd = open(in(f, "shared/plain"), O_WRONLY | O_CREAT | O_EXCL, 0666);
    assert_true(fd >= 0);
    close(fd);
    RUN(&r, "-q", "-o", in(f, "shared"), "I love you");
    umask(old);
    expect_ok(&r);
    tu_free(&r);
    struct stat plain, fig;
    assert_int_equal(stat(in(f, "shared/plain"), &plain), 0);
    assert_int_equal(plain.st_mode & 0777, 0664); /* the ACL's group bits, not the umask's */
    assert_int_equal(stat(in(f, "shared/head0.png"), &fig), 0);
    if ((fig.st_mode & 0777) != (plain.st_mode & 0777))
        fail_msg("head0.png is %03o, a plain file in the folder %03o", fig.st_mode & 0777, plain.st_mode & 0777);
}

/* The rule covers every file attnviz writes: the --html page (with --prefix
 * in its name too), a --model's model, layer<L> and layer<L>_head<h>, and
 * --train's figures, each recognised by attnviz's metadata; a trained model
 * folder keeps its training figures beside a run of it; a user's files named
 * like attnviz's stay. */
static void test_folder_rule_covers_every_file(void **state) {
    fixture *f = *state;
    tu_result r;
    const char *toy = in(f, "toy");
    char toy_dir[4096];
    snprintf(toy_dir, sizeof toy_dir, "%s", toy);
    RUN(&r, "-q", "--train", "sort", "--steps", "4", "--d-model", "32", "--batch", "4", "-o", toy_dir);
    expect_ok(&r);
    tu_free(&r);
    /* a single layer with its page, then the toy model with its page */
    RUN(&r, "-q", "--heads", "2", "--html", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "--model", toy_dir, "--html", "--figures", "model,grid,heads", "-o", in(f, "o"), "3 1 4 1 5 >");
    expect_ok(&r);
    assert_non_null(strstr(r.err, "attnviz: note: removed 3 files of an earlier run from"));
    char want_src[4400]; /* the trace says the weights are trained, as the titles do */
    snprintf(want_src, sizeof want_src, "  weights    model %s (trained toy model: attnviz --train sort, step 4): F32, ",
             toy_dir);
    assert_non_null(strstr(r.out, want_src));
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"head0.png", "head1.png", "heads.png", NULL}, 0);
    expect_files(f, "o", (const char *[]){"model.png", "layer1.png", "layer1_head0.png", "layer1_head3.png",
                                           "attnviz.html", NULL}, 1);
    char *page = slurp(in(f, "o/attnviz.html"), NULL);
    assert_non_null(strstr(page, "<meta name=\"generator\" content=\"attnviz " AV_VERSION "\">"));
    const char *id = strstr(page, "<meta name=\"attnviz-run\" content=\"");
    assert_non_null(id);
    av_png_image img;
    read_png(in(f, "o/model.png"), &img);
    char want[80];
    snprintf(want, sizeof want, "<meta name=\"attnviz-run\" content=\"%s\">", av_png_image_text(&img, "Run"));
    assert_int_equal(strlen(av_png_image_text(&img, "Run")), 16);
    assert_non_null(strstr(page, want)); /* the page and the figures carry the same run id */
    av_png_image_free(&img);
    free(page);
    /* another layer of the same run: the figures already there stay */
    RUN(&r, "--model", toy_dir, "--layer", "0", "-o", in(f, "o"), "3 1 4 1 5 >");
    expect_ok(&r);
    assert_null(strstr(r.err, "removed"));
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"layer0.png", "layer1.png", "layer1_head3.png", "attnviz.html", NULL}, 1);
    /* a user's files named like attnviz's stay: a PNG without attnviz's
     * metadata and a page without its generator line */
    FILE *fp = fopen(in(f, "o/layer7.png"), "w");
    fputs("not a figure", fp);
    fclose(fp);
    fp = fopen(in(f, "o/p_attnviz.html"), "w");
    fputs("<!DOCTYPE html>\n<title>attnviz: my notes</title>\n", fp);
    fclose(fp);
    RUN(&r, "--heads", "2", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    /* model + layer0 + layer1 + layer1_head0..3 (the toy has 4 heads) + the page = 8 */
    assert_non_null(strstr(r.err, "attnviz: note: removed 8 files of an earlier run from"));
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"model.png", "layer0.png", "layer1.png", "layer1_head0.png",
                                           "layer1_head3.png", "attnviz.html", NULL}, 0);
    /* 3 figures of this run + the user's 2 */
    expect_files(f, "o", (const char *[]){"head0.png", "head1.png", "heads.png", "layer7.png", "p_attnviz.html", NULL}, 1);
    assert_int_equal(count_entries(in(f, "o")), 5);
    /* --prefix p_ names the page p_attnviz.html too: the user's file there is replaced */
    RUN(&r, "-q", "--heads", "2", "--prefix", "p_", "--html", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    page = slurp(in(f, "o/p_attnviz.html"), NULL);
    assert_non_null(strstr(page, "<meta name=\"generator\" content=\"attnviz "));
    free(page);
    assert_int_equal(count_entries(in(f, "o")), 8); /* 5 + p_head0, p_head1, p_heads; the page replaced */
    /* training into the folder removes the single layer's figures, not the user's */
    RUN(&r, "--train", "sort", "--steps", "4", "--d-model", "32", "--batch", "4", "--prefix", "p_", "-o", in(f, "o"));
    expect_ok(&r);
    assert_non_null(strstr(r.err, "attnviz: note: removed 3 files of an earlier run from"));
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"head0.png", "heads.png", NULL}, 0);
    expect_files(f, "o", (const char *[]){"layer7.png", "p_head0.png", "p_attnviz.html", "curves.png", NULL}, 1);
    /* a run of the trained folder into it keeps the training's figures, whose
     * run ids start "train-" */
    read_png(in(f, "o/curves.png"), &img);
    assert_memory_equal(av_png_image_text(&img, "Run"), "train-", 6);
    assert_int_equal(strlen(av_png_image_text(&img, "Run")), 22);
    av_png_image_free(&img);
    char *svg = slurp(in(f, "o/filmstrip.svg"), NULL);
    assert_non_null(strstr(svg, "<desc>attnviz --train sort "));
    assert_non_null(strstr(svg, "&#10;run: train-"));
    free(svg);
    RUN(&r, "-q", "--model", in(f, "o"), "-o", in(f, "o"), "3 1 4 1 5 >");
    expect_ok(&r);
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"curves.png", "curves.svg", "filmstrip.png", "filmstrip.svg",
                                           "attention.gif", "model.png", "layer1.png", "config.json", NULL}, 1);
}

/* A SIGTERM the instant a figure's temporary file exists, before attnviz has noted its name (the shim,
 * tests/shim_signal.c, raises it as mkstemp or the O_EXCL open returns): the handler removed only the
 * temporaries it knew of, so a hidden .heads.png.tmpXXXXXX stayed (a teacher's pass: 1 kill in 40). The
 * name is now noted before the file is made; the run ends 143 (128 + SIGTERM) and leaves nothing. */
static void test_sigterm_as_a_temporary_is_made_leaves_none(void **state) {
    fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_signal.so", preload, asan)) return;
    const char *env[] = {preload, asan, "SHIM_SIGNAL_AT_TMP=1", NULL};
    const char *args[] = {"-q", "--heads", "2", "-o", in(f, "o"), "I love you", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, args);
    if (r.code != 143) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    assert_non_null(strstr(r.err, "attnviz: interrupted while the figures were written"));
    tu_free(&r);
    DIR *d = opendir(in(f, "o"));
    if (d) { /* the folder the run made and wrote nothing in is removed too; if it stays, it is empty */
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fail_msg("left behind: %s", e->d_name);
        closedir(d);
    }
}

/* A Ctrl-C (here SIGTERM, the shim's) while the figures are written into a folder made for the run: the
 * handler removes the folder while it holds none of them, but the message said "o holds only some of this
 * run's, beside any of an earlier run's there", naming a folder that was gone and an earlier run it never
 * held (a learner's pass: `timeout -s INT 1 attnviz -f long.txt --heads 8 -o new`). It now says the folder
 * was made for this run and is removed while it holds none; a folder that was there keeps the old words. */
static void test_interrupt_in_a_new_folder_says_it_was_made_for_the_run(void **state) {
    fixture *f = *state;
    char preload[4300], asan[4300], want[9000];
    if (!tu_shim_env("shim_signal.so", preload, asan)) return;
    const char *env[] = {preload, asan, "SHIM_SIGNAL_AT_TMP=1", NULL};
    tu_result r;
    tu_runv(&r, NULL, env, (const char *const[]){"-q", "--heads", "2", "-o", in(f, "new"), "I love you", NULL});
    if (r.code != 143) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    snprintf(want, sizeof want, "attnviz: interrupted while the figures were written: %s was made for this run "
             "and holds only some of its figures (it is removed if it holds none yet); run the command again to "
             "write them all\n", in(f, "new"));
    if (strcmp(r.err, want) != 0) fail_msg("stderr '%s', want '%s'", r.err, want);
    assert_int_equal(file_exists(in(f, "new")), 0); /* it held none: removed, as the message says */
    tu_free(&r);
    RUN(&r, "-q", "--heads", "2", "-o", in(f, "old"), "I love you"); /* a folder with an earlier run's */
    expect_ok(&r);
    tu_free(&r);
    tu_runv(&r, NULL, env, (const char *const[]){"-q", "--heads", "2", "-o", in(f, "old"), "we love", NULL});
    if (r.code != 143) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    snprintf(want, sizeof want, "attnviz: interrupted while the figures were written: %s holds only some of this "
             "run's, beside any of an earlier run's there that were not yet replaced or removed; run the command "
             "again to write them all\n", in(f, "old"));
    if (strcmp(r.err, want) != 0) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
    /* the page alone (--no-plot --html), whole or not at all: it said "holds only some of its figures" */
    tu_runv(&r, NULL, env, (const char *const[]){"-q", "--no-plot", "--html", "-o", in(f, "page"), "I love you",
                                                 NULL});
    if (r.code != 143) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    snprintf(want, sizeof want, "attnviz: interrupted while the page was written: %s was made for this run and "
             "holds this run's page only if it was complete (it is removed if it holds nothing); run the command "
             "again to write it\n", in(f, "page"));
    if (strcmp(r.err, want) != 0) fail_msg("stderr '%s', want '%s'", r.err, want);
    assert_int_equal(file_exists(in(f, "page")), 0);
    tu_free(&r);
    tu_runv(&r, NULL, env, (const char *const[]){"-q", "--no-plot", "--html", "-o", in(f, "old"), "we love", NULL});
    if (r.code != 143) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    snprintf(want, sizeof want, "attnviz: interrupted while the page was written: %s holds this run's page only if "
             "it was complete, beside an earlier run's files not yet removed; run the command again to write it\n",
             in(f, "old"));
    if (strcmp(r.err, want) != 0) fail_msg("stderr '%s', want '%s'", r.err, want);
    tu_free(&r);
}

/* A -q run that removes an earlier run's page says so: a teacher's prepared attnviz.html went without a word
 * when the next sentence ran with -q (a teacher's pass). -q hides the trace, not a deleted file. */
static void test_quiet_run_says_what_it_removed(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--html", "-o", in(f, "o"), "I love deep learning");
    expect_ok(&r);
    assert_string_equal(r.err, "");
    tu_free(&r);
    RUN(&r, "-q", "--heads", "2", "-o", in(f, "o"), "我爱深度学习");
    expect_ok(&r);
    char want[4300];
    snprintf(want, sizeof want, "attnviz: note: removed 1 file of an earlier run from %s, so the folder holds one "
             "run: attnviz.html\n", tu_sh_word(in(f, "o")));
    assert_string_equal(r.err, want);
    tu_free(&r);
    expect_files(f, "o", (const char *[]){"attnviz.html", NULL}, 0);
}

/* --weights DIR/ (as the shell completes a folder) is the folder DIR, as --model DIR/ is: it titled the figures
 * "loaded from DIR/", and so had another run id than -w DIR, so the SVGs of `-w DIR/ --format svg` after the
 * PNGs of `-w DIR` (an author making slides, then notes) removed the PNGs as an earlier run's. */
static void test_weights_folder_with_a_trailing_slash_is_the_same_run(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "-d", "16", "-H", "2", "--dump", in(f, "w"), "--no-plot", "I love you");
    expect_ok(&r);
    tu_free(&r);
    char slash[4300];
    snprintf(slash, sizeof slash, "%s/", in(f, "w"));
    RUN(&r, "-q", "-d", "16", "-H", "2", "--weights", in(f, "w"), "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    /* the same folder with a trailing '/', and with "." parts and a doubled '/' (as `--model ./train`) */
    const char *same[] = {slash, in(f, ".//w/./")};
    for (int k = 0; k < 2; k++) {
        RUN(&r, "-q", "-d", "16", "-H", "2", "--weights", same[k], "--format", "svg", "-o", in(f, "o"), "I love you");
        expect_ok(&r);
        if (strcmp(r.err, "")) fail_msg("--weights %s: %s", same[k], r.err);
        tu_free(&r);
    }
    expect_files(f, "o", (const char *[]){"head0.png", "heads.png", "head0.svg", "heads.svg", NULL}, 1);
    av_png_image img;
    read_png(in(f, "o/head0.png"), &img);
    char want[4300];
    snprintf(want, sizeof want, "weights loaded from %s, as --dump wrote them from random weights (untrained, seed 42)",
             in(f, "w"));
    assert_string_equal(av_png_image_text(&img, "Weights"), want);
    av_png_image_free(&img);
    char *svg = slurp(in(f, "o/head0.svg"), NULL);
    assert_non_null(svg);
    snprintf(want, sizeof want, "&#10;weights: weights loaded from %s, as --dump wrote them from random weights", in(f, "w"));
    if (!strstr(svg, want)) fail_msg("no '%s' in o/head0.svg: %.600s", want, svg);
    free(svg);
}

/* The run id covers every option that decides the numbers: `--kernel blas` on 3 tokens sums in another order
 * than auto's reference loops (weights equal to ~1e-7, not bit for bit), yet its figures had the same Run as
 * the default run's (the last note's list; --train's --kernel reference got its own id in 5a02ab9). Naming
 * auto's own choice (--kernel reference here) keeps the default's id. */
static void test_kernel_other_than_autos_is_another_run(void **state) {
    fixture *f = *state;
    tu_result r;
    char run[3][64] = {{0}};
    const char *outs[3] = {"k0", "k1", "k2"};
    for (int k = 0; k < 3; k++) {
        if (k == 0) RUN(&r, "-q", "-d", "16", "-H", "2", "-o", in(f, outs[k]), "I love you");
        else RUN(&r, "-q", "-d", "16", "-H", "2", "--kernel", k == 1 ? "reference" : "blas", "-o", in(f, outs[k]),
                 "I love you");
        expect_ok(&r);
        tu_free(&r);
        char rel[64];
        av_png_image img;
        snprintf(rel, sizeof rel, "%s/head0.png", outs[k]);
        read_png(in(f, rel), &img);
        assert_non_null(av_png_image_text(&img, "Run"));
        snprintf(run[k], sizeof run[k], "%s", av_png_image_text(&img, "Run"));
        av_png_image_free(&img);
    }
    assert_string_equal(run[0], run[1]);
    if (strcmp(run[0], run[2]) == 0) fail_msg("--kernel blas has the default run's id %s", run[0]);
}

/* With X and all four W from --weights the seed draws nothing (attnviz warns "--seed 2 has no effect"), so
 * the figures do not record it: `-s 2 -w DIR` wrote "... (seed 2)" in every Description and got another run
 * id than -s 1 (PNG Run, SVG run line, the page's attnviz-run) for the same numbers. A partly loaded folder's
 * random rest still records its seed. */
static void test_seed_that_drew_nothing_is_not_recorded(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--no-plot", "-d", "16", "-H", "2", "--dump", in(f, "w"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    char run[2][64] = {{0}};
    const char *seeds[2] = {"2", "1"}, *outs[2] = {"s2", "s1"};
    for (int k = 0; k < 2; k++) {
        RUN(&r, "-q", "-s", seeds[k], "-w", in(f, "w"), "-d", "16", "-H", "2", "--format", "both", "--html", "-o",
            in(f, outs[k]), "I love you");
        expect_ok(&r);
        assert_non_null(strstr(r.err, "has no effect"));
        tu_free(&r);
        char rel[64];
        av_png_image img;
        snprintf(rel, sizeof rel, "%s/head0.png", outs[k]);
        read_png(in(f, rel), &img);
        const char *d = av_png_image_text(&img, "Description");
        if (!d || strstr(d, "(seed")) fail_msg("Description records a seed that drew nothing: %s", d ? d : "(none)");
        snprintf(run[k], sizeof run[k], "%s", av_png_image_text(&img, "Run"));
        av_png_image_free(&img);
        snprintf(rel, sizeof rel, "%s/head0.svg", outs[k]);
        char *svg = slurp(in(f, rel), NULL), want[96];
        assert_non_null(svg);
        if (strstr(svg, "(seed")) fail_msg("%s records a seed that drew nothing", rel);
        snprintf(want, sizeof want, "&#10;run: %s", run[k]);
        assert_non_null(strstr(svg, want));
        free(svg);
        snprintf(rel, sizeof rel, "%s/attnviz.html", outs[k]);
        char *page = slurp(in(f, rel), NULL);
        assert_non_null(page);
        snprintf(want, sizeof want, "<meta name=\"attnviz-run\" content=\"%s\">", run[k]);
        if (!strstr(page, want)) fail_msg("no '%s' in %s", want, rel);
        free(page);
    }
    assert_string_equal(run[0], run[1]); /* the same numbers, the same run */
    assert_int_equal(remove(in(f, "w/X.npy")), 0); /* X drawn from the seed: it is recorded */
    RUN(&r, "-q", "-s", "2", "-w", in(f, "w"), "-d", "16", "-H", "2", "-o", in(f, "m"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "m/head0.png"), &img);
    const char *d = av_png_image_text(&img, "Description");
    assert_non_null(d);
    assert_non_null(strstr(d, "'I love you' (seed 2)"));
    av_png_image_free(&img);
}

/* The weights' source is in the trace header, every title and the metadata:
 * random (seed), loaded from a folder, or partly loaded. */
static void test_weights_source_named_everywhere(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "--seed", "5", "--figures", "all", "--format", "both", "-d", "16", "-H", "2", "--dump", in(f, "w"),
        "-o", in(f, "r"), "I love you");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "  weights    random weights (untrained, seed 5)"));
    assert_non_null(strstr(r.out, "not what a trained model attends to"));
    tu_free(&r);
    const char *pngs[] = {"head0", "heads", "mean", "scores_head1", "scores", "pe", "mask"};
    char rel[64];
    for (size_t k = 0; k < sizeof pngs / sizeof pngs[0]; k++) {
        av_png_image img;
        snprintf(rel, sizeof rel, "r/%s.png", pngs[k]);
        read_png(in(f, rel), &img);
        assert_non_null(strstr(av_png_image_text(&img, "Title"), " \xC2\xB7 random weights (untrained, seed 5)"));
        assert_string_equal(av_png_image_text(&img, "Weights"), "random weights (untrained, seed 5)");
        av_png_image_free(&img);
        snprintf(rel, sizeof rel, "r/%s.svg", pngs[k]);
        char *svg = slurp(in(f, rel), NULL);
        assert_non_null(strstr(svg, "&#10;weights: random weights (untrained, seed 5)&#10;run: "));
        free(svg);
    }
    /* that dump read back is still random weights, and says so with the caveat: it was titled only "weights
     * loaded from DIR", as learned weights are (a figure-maker's pass); the dump's source.txt says where they
     * came from, and its CRC-32s that the five files still hold them */
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "-o", in(f, "l"), "I love you");
    expect_ok(&r);
    char want[4300];
    snprintf(want, sizeof want, "  weights    weights loaded from %s, as --dump wrote them from random weights "
             "(untrained, seed 5)\n             random weights show how attention computes", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "l/head0.png"), &img);
    snprintf(want, sizeof want, "weights loaded from %s, as --dump wrote them from random weights (untrained, seed 5)",
             in(f, "w"));
    assert_string_equal(av_png_image_text(&img, "Weights"), want);
    av_png_image_free(&img);
    /* one changed file (W_Q = I, as a user's own weights) and they are the user's: loaded, no caveat */
    float eye[16 * 16] = {0};
    for (int i = 0; i < 16; i++) eye[i * 16 + i] = 1;
    size_t shape[2] = {16, 16};
    av_err e = {{0}};
    if (av_npy_write(in(f, "w/W_Q.npy"), eye, 2, shape, &e)) fail_msg("%s", e.msg);
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "-o", in(f, "l"), "I love you");
    expect_ok(&r);
    snprintf(want, sizeof want, "  weights    weights loaded from %s\n", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    assert_null(strstr(r.out, "random weights show how attention computes"));
    tu_free(&r);
    read_png(in(f, "l/head0.png"), &img);
    snprintf(want, sizeof want, "weights loaded from %s", in(f, "w"));
    assert_string_equal(av_png_image_text(&img, "Weights"), want);
    av_png_image_free(&img);
    unlink(in(f, "w/X.npy"));
    unlink(in(f, "w/W_V.npy"));
    unlink(in(f, "w/W_O.npy"));
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "-o", in(f, "m"), "I love you");
    expect_ok(&r);
    snprintf(want, sizeof want, "W_Q, W_K loaded from %s; X, W_V, W_O random (untrained, seed 42)", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    tu_free(&r);
    read_png(in(f, "m/head0.png"), &img);
    assert_string_equal(av_png_image_text(&img, "Weights"), want);
    av_png_image_free(&img);
}

/* source.txt is read as text from a file, not trusted: its words went to the terminal, the titles and the
 * next --dump as they were, so an ESC recoloured the terminal, a byte that is not UTF-8 reached stdout and the
 * PNG's tEXt, and an RLO turned the rest of the title around; and a FIFO named source.txt held --weights DIR
 * in fopen until something wrote to it (a tester's pass). Now the text is shown as a folder name is (control
 * characters as <U+XXXX>, a bad byte as U+FFFD, an open RLO closed), and only a regular file is read. */
static void test_weights_source_text_is_tidied(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "--seed", "5", "-d", "16", "-H", "2", "--dump", in(f, "w"), "--no-plot", "-q", "I love you");
    expect_ok(&r);
    tu_free(&r);
    char *src = slurp(in(f, "w/source.txt"), NULL), text[4300], want[4300];
    assert_non_null(src);
    const char *crcs = strchr(src, '\n') + 1;
    snprintf(text, sizeof text, "weights: random weights (untrained, seed 5) \x1b[31mred\xff \xE2\x80\xAE(x)\r\n%s",
             crcs);
    FILE *fp = fopen(in(f, "w/source.txt"), "wb");
    fputs(text, fp);
    fclose(fp);
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "-o", in(f, "l"), "I love you");
    expect_ok(&r);
    snprintf(want, sizeof want, "weights loaded from %s, as --dump wrote them from random weights (untrained, seed 5) "
             "<U+001B>[31mred\xEF\xBF\xBD \xE2\x80\xAE(x)\xE2\x80\xAC", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    assert_null(strchr(r.out, '\x1b'));
    assert_null(strchr(r.out, '\xff'));
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "l/head0.png"), &img);
    assert_string_equal(av_png_image_text(&img, "Weights"), want);
    av_png_image_free(&img);
    /* a first line that says "random" but not as attnviz writes it is no --dump's: the weights are the user's */
    snprintf(text, sizeof text, "weights: learned on GPT-2, not random\n%s", crcs);
    fp = fopen(in(f, "w/source.txt"), "wb");
    fputs(text, fp);
    fclose(fp);
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "--no-plot", "I love you");
    expect_ok(&r);
    snprintf(want, sizeof want, "  weights    weights loaded from %s\n", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    assert_null(strstr(r.out, "random weights show how attention computes"));
    tu_free(&r);
    /* a FIFO: a writer that would hand it the dump's own text waits for a reader; attnviz opens none */
    unlink(in(f, "w/source.txt"));
    assert_int_equal(mkfifo(in(f, "w/source.txt"), 0644), 0);
    pid_t writer = fork();
    if (writer == 0) {
        int fd = open(in(f, "w/source.txt"), O_WRONLY);
        if (fd >= 0 && write(fd, src, strlen(src)) < 0) _exit(1);
        _exit(0);
    }
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "--no-plot", "I love you");
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    expect_ok(&r);
    snprintf(want, sizeof want, "  weights    weights loaded from %s\n", in(f, "w"));
    assert_non_null(strstr(r.out, want));
    tu_free(&r);
    free(src);
}

/* A long sentence's title was cut inside a word: docs/figures/paragraph's figures (docs/paragraph.txt) began
 * "“When Ada opened the old notebook, she fo…”", and "w0 w1 ... w14" "“w0 ... w11 w1…”", which reads as the token
 * w1 (a lecture-notes author's pass). The cut now comes after the last whole word within the 40 columns, as
 * Python's textwrap.shorten(text, width=41, placeholder="…") gives each expected text below (run by hand); a first
 * word wider than that, and Chinese and Japanese, which break between characters (UAX #14 class ID), are cut inside
 * as before; Korean, which breaks at its spaces, after a whole word. */
static void test_title_cuts_a_long_sentence_after_a_whole_word(void **state) {
    fixture *f = *state;
    static const struct { const char *text, *want; } cases[] = {
        {"When Ada opened the old notebook, she found her grandmother's recipe",
         "\xE2\x80\x9CWhen Ada opened the old notebook, she\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0"},
        {"w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14",
         "\xE2\x80\x9Cw0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0"},
        {"antidisestablishmentarianism a pneumonoultramicroscopic",
         "\xE2\x80\x9C" "antidisestablishmentarianism a\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0"},
        /* 46 letters in one word: 40 of them, then the ellipsis */
        {"Pneumonoultramicroscopicsilicovolcanoconiosis is long",
         "\xE2\x80\x9CPneumonoultramicroscopicsilicovolcanocon\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0"},
        /* 24 characters of 2 columns: 20 of them */
        {"我爱深度学习我爱深度学习我爱深度学习我爱深度学习",
         "\xE2\x80\x9C\xE2\x81\xA8我爱深度学习我爱深度学习我爱深度学习我爱\xE2\x80\xA6\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0"},
        /* Japanese, 30 characters of 2 columns, breaks between them too: 20 of them */
        {"私は図書館で変換器と注意機構に関するとても長い本を読みました",
         "\xE2\x80\x9C\xE2\x81\xA8私は図書館で変換器と注意機構に関するとて\xE2\x80\xA6\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0"},
        /* Korean separates words with spaces and breaks only there: by hand, 나는 오늘 아침에 도서관에서 is
         * 4+1+4+1+6+1+10 = 27 columns and the next word, 16 columns, would end at 44 past the 40; the old cut
         * fell between its syllables, "…도서관에서 어텐션메커니…" */
        {"나는 오늘 아침에 도서관에서 어텐션메커니즘에 관한 아주 긴 책을 읽었습니다",
         "\xE2\x80\x9C\xE2\x81\xA8나는 오늘 아침에 도서관에서\xE2\x80\xA6\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        RUN(&r, "-q", "-d", "8", "--figures", "heads", "-o", in(f, "cut"), cases[k].text);
        expect_ok(&r);
        tu_free(&r);
        av_png_image img;
        read_png(in(f, "cut/head0.png"), &img);
        const char *t = av_png_image_text(&img, "Title");
        if (!t || strncmp(t, cases[k].want, strlen(cases[k].want)) != 0)
            fail_msg("'%s' was titled '%s', expected it to start '%s'", cases[k].text, t ? t : "(none)", cases[k].want);
        av_png_image_free(&img);
    }
}

/* Titles start with the sentence (cut past 40 columns) or --title; --prefix
 * goes before every file name. */
/* A title wrapped over lines keeps an equation whole: a RoPE model's pe.png title ended one line with "θ" and
 * began the next with "= 10000)" (a tester's report, --model of a --train --positions rope folder). The rule,
 * by hand: "θ = 10000" is one quantity, like "d_k = 16" in the same title, so no line of the title starts or ends
 * with its "=". Titles of 1 to 24 words before it put " = " at every place a line can end (on the old binary
 * 7 and 8 words broke it). */
static void test_title_keeps_an_equation_on_one_line(void **state) {
    fixture *f = *state;
    char title[512], path[4200];
    for (int k = 1; k <= 24; k++) {
        title[0] = 0;
        for (int w = 0; w < k; w++) strcat(title, "word ");
        strcat(title, "\xCE\xB8 = 10000 and more words here to wrap the title"); /* θ */
        tu_result r;
        RUN(&r, "-q", "--format", "svg", "--figures", "heads", "--title", title, "-o", in(f, "eq"), "I love you");
        expect_ok(&r);
        tu_free(&r);
        snprintf(path, sizeof path, "%s", in(f, "eq/head0.svg"));
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        for (const char *p = svg; (p = strstr(p, "<text ")) != NULL; p++) {
            const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</text>") : NULL;
            if (!gt || !end) break;
            if (!strstr(p, "font-weight=\"bold\"") || strstr(p, "font-weight=\"bold\"") > gt) continue;
            const char *a = gt + 1, *b = end;
            while (a < b && *a == ' ') a++;
            while (b > a && b[-1] == ' ') b--;
            if (b > a && (*a == '=' || b[-1] == '=' || (b - a >= 2 && !memcmp(b - 2, "\xCE\xB8", 2))))
                fail_msg("%d words: a title line '%.*s' splits \"\xCE\xB8 = 10000\"", k, (int)(end - gt - 1), gt + 1);
        }
        free(svg);
    }
}

/* A Korean --title wider than the figure wraps at its spaces: five 14-syllable words wrapped on the old binary as
 * "가나다라마바사아자차카타파하 가나다라마바사아자차카타파" / "하 가나다라…", a word split between its lines (a
 * lecture-notes author's pass). Korean breaks lines only at its spaces (CSS Text 3 word-break: keep-all), so by
 * hand every bold line of head0.svg's title holds whole words W, the last one perhaps ending in "…". */
static void test_korean_title_wraps_at_its_spaces(void **state) {
    fixture *f = *state;
    static const char W[] = "가나다라마바사아자차카타파하";
    char title[512] = "";
    for (int k = 0; k < 5; k++) strcat(strcat(title, W), k < 4 ? " " : "");
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "--figures", "heads", "--title", title, "-o", in(f, "ko"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    char *svg = tu_slurp_file(in(f, "ko/head0.svg"), NULL);
    assert_non_null(svg);
    int lines = 0;
    for (const char *p = svg; (p = strstr(p, "<text ")) != NULL; p++) {
        const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</text>") : NULL;
        if (!gt || !end) break;
        if (!strstr(p, "font-weight=\"bold\"") || strstr(p, "font-weight=\"bold\"") > gt) continue;
        if (strncmp(gt + 1, W, 3) != 0) continue; /* the generated lines: "head 0 of 1: ..." */
        lines++;
        size_t n = (size_t)(end - gt - 1);
        if (n >= 3 && !memcmp(end - 3, "\xE2\x80\xA6", 3)) n -= 3;
        for (size_t at = 0; at < n;) {
            if (n - at < strlen(W) || memcmp(gt + 1 + at, W, strlen(W)) != 0 ||
                (at + strlen(W) < n && gt[1 + at + strlen(W)] != ' '))
                fail_msg("a title line '%.*s' splits a word", (int)(end - gt - 1), gt + 1);
            at += strlen(W) + 1;
        }
    }
    assert_true(lines >= 2);
    free(svg);
}

/* Fails when two unturned <text>s of the SVG svg overlap or, side by side, come nearer than 1.08 times their
 * font size (matplotlib's tight_layout w_pad between subplots; less half a px for whole-px layout); each is
 * boxed by its font size, anchor and measured width (at --dpi 100 the SVG units are the layout's px). A text
 * that starts left of the colour bar (the last <image>) and reaches down to 30 px over its top or lower (a
 * panel title over the last column) must end as far left of it. what names the figure in the message.
 * Returns how many texts it boxed. */
static int expect_texts_apart(const char *svg, const char *what) {
    struct { float box[4]; char text[96]; } t[256];
    int nt = 0;
    const char *img = NULL; /* the colour bar is the last <image>: a wide map may be one too */
    for (const char *q = svg; (q = strstr(q, "<image ")) != NULL; q++) img = q;
    float bar_x = img ? strtof(strstr(img, " x=\"") + 4, NULL) : 1e9f, bar_y = img ? strtof(strstr(img, " y=\"") + 4, NULL) : 0;
    for (const char *p = svg; nt < 256 && (p = strstr(p, "<text ")) != NULL; p++) {
        const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</text>") : NULL;
        if (!gt || !end) break;
        char head[512];
        snprintf(head, sizeof head, "%.*s", (int)(gt - p), p);
        if (strstr(head, "transform=")) continue; /* turned: axis titles at the sides, rotated labels */
        const char *ax = strstr(head, " x=\""), *ay = strstr(head, " y=\""), *as = strstr(head, "font-size=\"");
        assert_true(ax && ay && as);
        float x = strtof(ax + 4, NULL), y = strtof(ay + 4, NULL), size = strtof(as + 11, NULL);
        snprintf(t[nt].text, sizeof t[nt].text, "%.*s", (int)(end - gt - 1), gt + 1);
        av_text_metrics m;
        av_text_measure(t[nt].text, size, strstr(head, "font-weight=\"bold\"") != NULL, &m);
        float a = strstr(head, "\"middle\"") ? m.width / 2 : strstr(head, "\"end\"") ? m.width : 0;
        t[nt].box[0] = x - a, t[nt].box[1] = x - a + m.width;
        t[nt].box[2] = y - 0.76f * size, t[nt].box[3] = y + 0.24f * size;
        float pad = 1.08f * size - 0.5f;
        for (int j = 0; j < nt; j++)
            if (t[nt].box[0] < t[j].box[1] + pad && t[j].box[0] < t[nt].box[1] + pad && t[nt].box[2] < t[j].box[3] &&
                t[j].box[2] < t[nt].box[3])
                fail_msg("%s: '%s' (x %.0f..%.0f) overlaps or nearly touches '%s' (x %.0f..%.0f)", what, t[nt].text,
                         t[nt].box[0], t[nt].box[1], t[j].text, t[j].box[0], t[j].box[1]);
        if (t[nt].box[0] < bar_x && t[nt].box[3] > bar_y - 30 && t[nt].box[1] + pad > bar_x)
            fail_msg("%s: '%s' (x %.0f..%.0f) runs over or nearly touches the colour bar at x %.0f", what, t[nt].text,
                     t[nt].box[0], t[nt].box[1], bar_x);
        nt++;
    }
    return nt;
}

/* The pe figure of a small d_model keeps its panel titles and axis titles apart: `attnviz --figures pe -d 2
 * "I love deep"` (one sinusoid pair, the 2-D case a lecture draws) put its two 96 px maps 28 px apart, so
 * "sin: even dimensions 2i" ran into "cos: odd dimensions 2i+1" and "i (dimension 2i)" into "i (dimension
 * 2i+1)"; -d 3 and RoPE with d_k = 2 ("pair i (fast → slow)" twice) did the same (a figure-maker's pass).
 * expect_texts_apart boxes every unturned <text> of pe.svg and asks that no two overlap, nor come nearer side
 * by side than 1.08 times the font size (matplotlib's tight_layout w_pad between subplots): at -d 2 the panel
 * titles were 9 px of 16 px text apart, their gap hardly wider than a word space, and read as one line (a
 * lecture-notes author's pass). */
static void test_pe_figure_of_a_small_d_model_keeps_titles_apart(void **state) {
    fixture *f = *state;
    static const char *const cases[][6] = {
        {"-d", "2", NULL}, {"-d", "3", NULL}, {"-d", "2", "--positions", "rope", NULL},
        {"-d", "4", "-H", "2", "--positions", "rope"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *args[16] = {"-q", "--format", "svg", "--figures", "pe", "-o", in(f, "pe")};
        int n = 7;
        for (int k = 0; k < 6 && cases[c][k]; k++) args[n++] = cases[c][k];
        args[n++] = "I love deep";
        args[n] = NULL;
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        expect_ok(&r);
        tu_free(&r);
        char *svg = slurp(in(f, "pe/pe.svg"), NULL);
        assert_non_null(svg);
        char what[64];
        snprintf(what, sizeof what, "%s %s%s%s", cases[c][0], cases[c][1], cases[c][2] ? " " : "",
                 cases[c][2] ? cases[c][2] : "");
        assert_true(expect_texts_apart(svg, what) >= 8);
        free(svg);
    }
}

/* An odd d_model's cos map has one column fewer than the sin map and is drawn narrower, but the colour bar
 * was placed as if it were as wide: `--figures pe -d 3 "I love deep"` left some 78 px of blank between the
 * 96 px cos map and the bar (a lecture-notes author's pass). As in matplotlib's colorbar(ax=...), whose pad is
 * measured from the axes beside it, the bar keeps the even-d_model distance (-d 4's, the same sentence) from
 * the last map's frame, or 1.08 font sizes (tight_layout's w_pad) from its titles when they run nearer, and
 * no more (a px of rounding). pe_bar_room gives the frame's right edge (the rightmost drawn <rect> before
 * the bar's <image>) and *text_need, where the titles (the unturned <text>s near the maps ending left of the bar) would
 * let the bar start. */
static float pe_bar_room(fixture *f, const char *d, float *bar_x, float *text_need) {
    const char *args[] = {"-q", "--format", "svg", "--figures", "pe", "-o", in(f, "pe"), "-d", d, "I love deep", NULL};
    tu_result r;
    tu_runv(&r, NULL, NULL, args);
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "pe/pe.svg"), NULL);
    assert_non_null(svg);
    const char *img = strstr(svg, "<image ");
    assert_non_null(img);
    float bx = strtof(strstr(img, " x=\"") + 4, NULL), by = strtof(strstr(img, " y=\"") + 4, NULL), right = 0;
    const char *drawn = strstr(svg, "<g font-family"); /* past the hatch pattern and the white background */
    assert_non_null(drawn);
    for (const char *p = strstr(drawn, "<rect "); p && p < img; p = strstr(p + 1, "<rect ")) {
        float x = strtof(strstr(p, " x=\"") + 4, NULL), w = strtof(strstr(p, " width=\"") + 8, NULL);
        right = fmaxf(right, x + w);
    }
    float need = 0; /* the room the rightmost text near the maps asks for */
    for (const char *p = svg; (p = strstr(p, "<text ")) != NULL; p++) {
        const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</text>") : NULL;
        if (!gt || !end) break;
        char head[512], text[128];
        snprintf(head, sizeof head, "%.*s", (int)(gt - p), p);
        if (strstr(head, "transform=")) continue;
        float x = strtof(strstr(head, " x=\"") + 4, NULL), y = strtof(strstr(head, " y=\"") + 4, NULL);
        float size = strtof(strstr(head, "font-size=\"") + 11, NULL);
        snprintf(text, sizeof text, "%.*s", (int)(end - gt - 1), gt + 1);
        av_text_metrics m;
        av_text_measure(text, size, strstr(head, "font-weight=\"bold\"") != NULL, &m);
        float a = strstr(head, "\"middle\"") ? m.width / 2 : strstr(head, "\"end\"") ? m.width : 0;
        if (y < by - 30 || x - a + m.width > bx) continue; /* the figure title, or the bar's own ticks */
        need = fmaxf(need, x - a + m.width + ceilf(1.08f * size));
    }
    free(svg);
    *bar_x = bx;
    *text_need = need;
    return right;
}

static void test_colour_bar_keeps_to_an_odd_d_models_narrower_cos_map(void **state) {
    fixture *f = *state;
    float bar4, bar, need, right4 = pe_bar_room(f, "4", &bar4, &need);
    float gap = bar4 - right4; /* the even d_model's distance from the frame */
    assert_true(gap >= 20 && gap <= 40);
    static const char *const ds[] = {"3", "5", "7", "9"};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        float right = pe_bar_room(f, ds[i], &bar, &need);
        if (bar > fmaxf(right + gap, need) + 1)
            fail_msg("-d %s: the colour bar starts at x %.0f, %.0f px right of the last map (x %.0f), its titles "
                     "letting it start at x %.0f; -d 4 keeps %.0f px from the map",
                     ds[i], bar, bar - right, right, need, gap);
    }
}

/* A grid figure kept neighbouring panel titles only 8 px apart (title_gap), where the single-row layout keeps
 * 1.08 font sizes (tight_layout's w_pad): `--compare order -H 2 --pad-to 12 "hello world"` set "positions
 * none: head 0 max 0 (real rows)" and "positions sinusoidal: head 0 max 0.00272 (real rows)" 9 px of 15 px
 * text apart, and they read as one line (a lecture-notes author's pass); -H 2 on a 10-word sentence had
 * 15 px. The last, "positions rope: head 0 max 0.0996 (real rows)", ran 17 px over the colour bar, which kept
 * 30 px from the panels whatever their titles (the single-row layout keeps 1.08 font sizes from them). */
static void test_grid_panel_titles_keep_apart(void **state) {
    fixture *f = *state;
    static const char *const cases[][4] = {
        {"--pad-to", "12", "hello world", NULL},
        {"the quick brown fox jumps over the lazy dog again", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *args[16] = {"-q", "--format", "svg", "--figures", "heads", "--compare", "order", "-H", "2",
                                "-o", in(f, "cmp")};
        int n = 11;
        for (int k = 0; k < 4 && cases[c][k]; k++) args[n++] = cases[c][k];
        args[n] = NULL;
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        expect_ok(&r);
        tu_free(&r);
        char *svg = slurp(in(f, "cmp/compare_order.svg"), NULL);
        assert_non_null(svg);
        assert_non_null(strstr(svg, ">positions sinusoidal: head 0 max "));
        assert_true(expect_texts_apart(svg, cases[c][0]) >= 8);
        free(svg);
    }
}

/* The pe figure kept 28 px between its maps whatever their x labels: at the Transformer paper's d_model 512,
 * `--figures pe -d 512` set the sin map's last label "250" and the cos map's first "0" 15 px of 15 px text
 * apart, and -d 2048 "1000" and "0" 13 px, so they read as one label "1000 0" (a lecture-notes author's pass).
 * matplotlib's tight_layout counts the tick labels in each subplot's box and pads neighbours by w_pad = 1.08
 * font sizes; expect_texts_apart asks that of every pair of unturned texts. */
static void test_pe_figure_keeps_neighbouring_x_labels_apart(void **state) {
    fixture *f = *state;
    static const char *const ds[] = {"512", "2048", "4096"};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        const char *args[] = {"-q", "--format", "svg", "--figures", "pe", "-o", in(f, "pe"), "-d", ds[i], "I love deep",
                              NULL};
        tu_result r;
        tu_runv(&r, NULL, NULL, args);
        expect_ok(&r);
        tu_free(&r);
        char *svg = slurp(in(f, "pe/pe.svg"), NULL);
        assert_non_null(svg);
        char what[32];
        snprintf(what, sizeof what, "-d %s", ds[i]);
        assert_true(expect_texts_apart(svg, what) >= 12);
        free(svg);
    }
}

/* source.txt lists a CRC-32 for each weight file: it is of the float32 data after the .npy header, as
 * --weights compares it, and the line says so. It read "X.npy crc32 ca5f1dbb", which a script checks against
 * zlib.crc32 of the whole file (or crc32(1)) and never matches (a researcher's pass). */
static void test_dump_source_says_what_its_crc_covers(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-d", "16", "-H", "2", "--dump", in(f, "w"), "--no-plot", "-q", "I love you");
    expect_ok(&r);
    tu_free(&r);
    char *src = slurp(in(f, "w/source.txt"), NULL);
    assert_non_null(src);
    static const char *const files[5] = {"X.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    const char *line = strchr(src, '\n');
    for (int i = 0; i < 5; i++) {
        assert_non_null(line);
        line++;
        char name[16], rel[64];
        unsigned long crc = 0;
        assert_int_equal(sscanf(line, "%15s crc32 %lx", name, &crc), 2);
        assert_string_equal(name, files[i]);
        const char *eol = strchr(line, '\n');
        assert_non_null(eol);
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)(eol - line), line);
        if (!strstr(text, "after the .npy header"))
            fail_msg("source.txt line '%.*s' does not say its CRC-32 is of the data after the .npy header",
                     (int)(eol - line), line);
        snprintf(rel, sizeof rel, "w/%s", files[i]);
        size_t n = 0;
        unsigned char *b = (unsigned char *)slurp(in(f, rel), &n);
        assert_non_null(b);
        size_t hdr = 10 + (size_t)(b[8] | b[9] << 8); /* npy 1.0: magic, version, 2-byte header length */
        assert_true(n > hdr);
        assert_int_equal(crc, crc32(crc32(0L, Z_NULL, 0), b + hdr, (uInt)(n - hdr)));
        free(b);
        line = eol;
    }
    free(src);
    /* read back unchanged, the weights are still titled random */
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "w"), "--no-plot", "I love you");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "as --dump wrote them from random weights (untrained, seed 42)"));
    tu_free(&r);
}

/* The value of source.txt's line "KEY: value ..." (the text after ": " up to the line's end, in buf), or NULL. */
static const char *source_value(const char *src, const char *key, char *buf, size_t n) {
    char k[64];
    snprintf(k, sizeof k, "\n%s: ", key);
    const char *at = strstr(src, k);
    if (!at) return NULL;
    at += strlen(k);
    snprintf(buf, n, "%.*s", (int)strcspn(at, "\n"), at);
    return buf;
}

/* dir/name read as float32 (C order), with n its element count. */
static float *dump_array(const char *dir, const char *name, size_t *n) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    av_npy a;
    av_err e = {{0}};
    if (av_npy_read(&a, path, &e)) fail_msg("%s", e.msg);
    *n = 1;
    for (int d = 0; d < a.ndim; d++) *n *= a.shape[d];
    float *v = a.data ? a.data : malloc(*n * sizeof *v + 1);
    if (!a.data)
        for (size_t i = 0; i < *n; i++) v[i] = a.bytes[i]; /* mask.npy: 0/1 bytes as 0.0/1.0 */
    else a.data = NULL;
    av_npy_free(&a);
    return v;
}

/* A --dump folder did not say how its tensors were computed: `-H 2 -d 16 -p rope --rope-style half --rope-base 500
 * --no-scale --dump d ...` wrote a source.txt of the weights and their CRC-32s only, so positions, RoPE's style
 * and base, the 1/√d_k scale and the masks were nowhere in the folder (a maintainer's list of known faults).
 * source.txt now says them, and a script can re-check the tensors from the folder alone: here Q.npy from X.npy,
 * W_Q.npy and the RoPE the file names (docs/conventions.md, computed here), scores.npy from Q.npy, K.npy and the
 * scale it gives, and mask.npy from its causal and padding lines. */
static void test_dump_source_says_how_tensors_were_computed(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-H", "2", "-d", "16", "-p", "rope", "--rope-style", "half", "--rope-base", "500", "--no-scale", "-c",
        "--pad-to", "6", "--dump", in(f, "d"), "--no-plot", "-q", "I love deep learning");
    expect_ok(&r);
    tu_free(&r);
    char *src = slurp(in(f, "d/source.txt"), NULL);
    assert_non_null(src);
    char v[256];
    static const char *const want[][2] = {
        {"tokens", "6 (T; 4 of the sentence, 2 <pad>)"}, {"d_model", "16"}, {"heads", "2"}, {"d_k", "8"},
        {"positions", "rope (Q.npy and K.npy are after the rotation)"}, {"rope_style", "half"}, {"rope_base", "500"},
        {"scale", "1 (--no-scale; scores.npy = Q·Kᵀ)"}, {"causal", "yes (key j > query i masked)"},
        {"padding", "yes (keys 4..5 are <pad>, masked)"}, {"attn_mask", "no"},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        if (!source_value(src, want[k][0], v, sizeof v))
            fail_msg("source.txt has no '%s:' line:\n%s", want[k][0], src);
        assert_string_equal(v, want[k][1]);
    }
    /* the earlier lines are as they were: the weights, then the five CRC-32s */
    assert_int_equal(strncmp(src, "weights: random weights (untrained, seed 42)\nX.npy crc32 ", 56), 0);
    /* re-check from the folder: T 6, C 16, H 2, D 8, half-style RoPE with θ = 500, scale 1 */
    const int T = 6, C = 16, H = 2, D = 8;
    double base = strtod(source_value(src, "rope_base", v, sizeof v), NULL);
    double scale = strtod(source_value(src, "scale", v, sizeof v), NULL);
    size_t nx, nw, nq, nk, ns, nm;
    const char *d = in(f, "d");
    float *X = dump_array(d, "X.npy", &nx), *W = dump_array(d, "W_Q.npy", &nw), *Q = dump_array(d, "Q.npy", &nq);
    float *K = dump_array(d, "K.npy", &nk), *S = dump_array(d, "scores.npy", &ns), *M = dump_array(d, "mask.npy", &nm);
    assert_int_equal(nq, (size_t)(H * T * D));
    double worst = 0;
    for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++) {
            double q[8];
            for (int j = 0; j < D; j++) { /* (X·W_Q)[t, h·D + j] */
                q[j] = 0;
                for (int c = 0; c < C; c++) q[j] += (double)X[t * C + c] * W[c * C + h * D + j];
            }
            for (int i = 0; i < D / 2; i++) { /* pair (i, i + D/2), angle t·θ^(−2i/D) */
                double a = t * pow(base, -2.0 * i / D), x0 = q[i], x1 = q[i + D / 2];
                q[i] = x0 * cos(a) - x1 * sin(a);
                q[i + D / 2] = x0 * sin(a) + x1 * cos(a);
            }
            for (int j = 0; j < D; j++) worst = fmax(worst, fabs(q[j] - Q[(h * T + t) * D + j]));
        }
    if (worst > 1e-4) fail_msg("Q.npy differs from X·W_Q rotated as source.txt says by %g", worst);
    worst = 0;
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                double dot = 0;
                for (int e = 0; e < D; e++) dot += (double)Q[(h * T + i) * D + e] * K[(h * T + j) * D + e];
                worst = fmax(worst, fabs(dot * scale - S[(h * T + i) * T + j]));
            }
    if (worst > 1e-4) fail_msg("scores.npy differs from Q·Kᵀ·%g by %g", scale, worst);
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) assert_int_equal((int)M[i * T + j], j > i || j >= 4); /* causal, <pad> 4..5 */
    free(X), free(W), free(Q), free(K), free(S), free(M);
    free(src);
    /* the defaults: sinusoidal positions, scores scaled by 1/√8 = 0.35355339059327373 (to double's 17 digits) */
    RUN(&r, "-H", "2", "-d", "16", "--dump", in(f, "e"), "--no-plot", "-q", "I love you");
    expect_ok(&r);
    tu_free(&r);
    src = slurp(in(f, "e/source.txt"), NULL);
    assert_non_null(src);
    assert_string_equal(source_value(src, "positions", v, sizeof v),
                        "sinusoidal (PE.npy, base 10000, added to X before the projections)");
    assert_null(strstr(src, "rope_style"));
    assert_string_equal(source_value(src, "scale", v, sizeof v),
                        "0.35355339059327373 (1/sqrt(d_k); scores.npy = Q·Kᵀ·scale)");
    assert_string_equal(source_value(src, "causal", v, sizeof v), "no");
    assert_string_equal(source_value(src, "padding", v, sizeof v), "no");
    assert_string_equal(source_value(src, "mask.npy", v, sizeof v),
                        "0 masked of 9 (the masks above together, True = masked)");
    free(src);
    /* and a folder with these lines reads back as before: still titled random */
    RUN(&r, "-d", "16", "-H", "2", "--weights", in(f, "e"), "--no-plot", "I love you");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "as --dump wrote them from random weights (untrained, seed 42)"));
    tu_free(&r);
}

/* Two runs into one -o at once (`xargs -P4`): both exited 0, and the folder held one's head0.png and heads.png
 * beside the other's head5.png, each run saying it "holds one run" (a researcher's pass). A run now locks -o
 * before it writes there, as --train does; the test holds the lock itself, as another run would. */
static void test_second_run_into_a_busy_folder_is_refused(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "8", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    int fd = open(in(f, "o"), O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    RUN(&r, "-q", "--heads", "2", "--seed", "7", "-o", in(f, "o"), "I love you");
    if (r.code != 1 || !strstr(r.err, "another attnviz is writing that folder now"))
        fail_msg("into a locked -o: exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
    struct stat sb;
    assert_int_equal(stat(in(f, "o/head7.png"), &sb), 0); /* the earlier run's figures are as they were */
    av_png_image img;
    read_png(in(f, "o/head0.png"), &img);
    assert_non_null(strstr(av_png_image_text(&img, "Title"), "head 0 of 8"));
    av_png_image_free(&img);
    close(fd);
    RUN(&r, "-q", "--heads", "2", "--seed", "7", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_int_not_equal(stat(in(f, "o/head7.png"), &sb), 0);
}

/* A write that fails part-way (a full disk, a quota; here a folder named head1.png in the way) left this run's
 * heads.png and head0.png beside the earlier run's head2.png..head7.png, and the error named only the file:
 * "cannot write 'o/head1.png': Is a directory" (a tester's pass). It now says what the folder holds. */
static void test_figures_failing_part_way_say_what_the_folder_holds(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "8", "-o", in(f, "o"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_int_equal(unlink(in(f, "o/head1.png")), 0);
    assert_int_equal(mkdir(in(f, "o/head1.png"), 0755), 0);
    RUN(&r, "-q", "--heads", "8", "--seed", "7", "-o", in(f, "o"), "I love you");
    char want[4400]; /* the figure as one shell word */
    snprintf(want, sizeof want, "cannot write %s: ", tu_sh_word(in(f, "o/head1.png")));
    if (r.code != 1 || !strstr(r.err, want) || !strstr(r.err, "holds some of this run's figures, "
                                                                           "beside any of an earlier run's"))
        fail_msg("a figure that cannot be written after others were: exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
    /* the grid failing first: nothing of this run is there, and the error does not say there is */
    assert_int_equal(rmdir(in(f, "o/head1.png")), 0);
    assert_int_equal(unlink(in(f, "o/heads.png")), 0);
    assert_int_equal(mkdir(in(f, "o/heads.png"), 0755), 0);
    RUN(&r, "-q", "--heads", "8", "--seed", "9", "-o", in(f, "o"), "I love you");
    if (r.code != 1 || strstr(r.err, "holds some of this run's"))
        fail_msg("the first figure cannot be written: exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
}

static void test_title_prefix_and_sentence(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--title", "Slide 3: self-attention", "--prefix", "s3_", "-o", in(f, "t"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    assert_true(file_exists(in(f, "t/s3_head0.png")));
    assert_false(file_exists(in(f, "t/head0.png")));
    av_png_image img;
    read_png(in(f, "t/s3_head0.png"), &img);
    assert_string_equal(av_png_image_text(&img, "Title"),
                        "Slide 3: self-attention \xC2\xB7 head 0 of 1: attention weights \xC2\xB7 random weights "
                        "(untrained, seed 42) \xC2\xB7 positions: sinusoidal \xC2\xB7 mask: none");
    av_png_image_free(&img);
    /* 44 columns of words: cut after "jumps" (40 columns) with an ellipsis */
    RUN(&r, "-q", "-o", in(f, "long"), "The quick brown fox jumps over the lazy dog");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "long/head0.png"), &img);
    const char *t = av_png_image_text(&img, "Title");
    const char *want = "\xE2\x80\x9CThe quick brown fox jumps over the lazy\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0";
    if (strncmp(t, want, strlen(want)) != 0) fail_msg("title: %s", t);
    av_png_image_free(&img);
    /* a right-to-left sentence: LRM, quote, then the sentence isolated (FSI ... PDI) */
    RUN(&r, "-q", "-o", in(f, "ar"), "\xD8\xA3\xD9\x86\xD8\xA7 \xD8\xA3\xD8\xAD\xD8\xA8");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "ar/head0.png"), &img);
    want = "\xE2\x80\x8E\xE2\x80\x9C\xE2\x81\xA8\xD8\xA3\xD9\x86\xD8\xA7 \xD8\xA3\xD8\xAD\xD8\xA8"
           "\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0";
    t = av_png_image_text(&img, "Title");
    if (strncmp(t, want, strlen(want)) != 0) fail_msg("title: %s", t);
    av_png_image_free(&img);
    /* a Chinese sentence: isolated too (no LRM), so the quotes take the English line's script
     * and font (render/textlayout), not full-width CJK quotes */
    RUN(&r, "-q", "-o", in(f, "zh"), "我爱");
    expect_ok(&r);
    tu_free(&r);
    read_png(in(f, "zh/head0.png"), &img);
    want = "\xE2\x80\x9C\xE2\x81\xA8我爱\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0";
    t = av_png_image_text(&img, "Title");
    if (strncmp(t, want, strlen(want)) != 0) fail_msg("title: %s", t);
    av_png_image_free(&img);
    /* a sentence holding double quotes is quoted with single ones, as nested quotes alternate: the title
     * began ““深度学习”很有趣”, two quotes opened (a Chinese reader's report); ASCII '"' too */
    static const struct { const char *text, *want; } quoted[] = {
        {"“深度学习”很有趣", "‘\xE2\x81\xA8“深度学习”很有趣\xE2\x81\xA9’ \xC2\xB7 head 0"},
        {"He said \"hi\"", "‘He said \"hi\"’ \xC2\xB7 head 0"},
        /* a quote past the 40-column cut is not shown, so the title keeps its double quotes */
        {"The quick brown fox jumps over the lazy dog, said \"Ada\"",
         "\xE2\x80\x9CThe quick brown fox jumps over the lazy\xE2\x80\xA6\xE2\x80\x9D \xC2\xB7 head 0"},
    };
    for (size_t i = 0; i < sizeof quoted / sizeof quoted[0]; i++) {
        RUN(&r, "-q", "-o", in(f, "q"), quoted[i].text);
        expect_ok(&r);
        tu_free(&r);
        read_png(in(f, "q/head0.png"), &img);
        t = av_png_image_text(&img, "Title");
        if (strncmp(t, quoted[i].want, strlen(quoted[i].want)) != 0) fail_msg("title: %s", t);
        av_png_image_free(&img);
    }
    RUN(&r, "-q", "--prefix", "a/b", "I love you");
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--prefix 'a/b' must be part of a file name"));
    tu_free(&r);
}

/* Chinese, accented and emoji tokens are drawn as text; a character no
 * installed font has is drawn as a box and warned about. */
static void test_cjk_accents_and_emoji(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "--format", "both", "-o", in(f, "u"), "我 café \xF0\x9F\x99\x82");
    expect_ok(&r);
    char *svg = slurp(in(f, "u/head0.svg"), NULL);
    assert_int_equal(count_str(svg, ">我</text>"), 2);
    assert_int_equal(count_str(svg, ">café</text>"), 2);
    assert_int_equal(count_str(svg, ">\xF0\x9F\x99\x82</text>"), 2);
    free(svg);
    int warn = strstr(r.err, "have no glyph") != NULL;
    int expect = !av_text_has_glyph(0x1F642) || !av_text_has_glyph(0x6211);
    if (warn != expect) fail_msg("glyph warning %s but expected %s: %s", warn ? "shown" : "absent", expect ? "one" : "none", r.err);
    if (expect) print_message("note: no installed font has U+1F642 (install fonts-symbola); drawn as a box\n");
    tu_free(&r);
}

/* The glyph warning names the characters it drew as boxes: 'attnviz -q "a <U+10FFFF> b"' said only "1 character in
 * the labels has no glyph in any installed font; drawn as boxes", which in a long -f text leaves the box to be
 * found by eye. U+10FFFF (a noncharacter) is in no font, so the warning is there on every machine. */
static void test_missing_glyph_warning_names_the_character(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "-o", in(f, "g"), "a \xF4\x8F\xBF\xBF b");
    expect_ok(&r);
    if (!strstr(r.err, "attnviz: warning: 1 character in the figures' text (U+10FFFF) has no glyph in any installed "
                       "font; drawn as boxes"))
        fail_msg("%s", r.err);
    tu_free(&r);
}

/* The glyph warning does not say the labels hold a character only the title has: `attnviz -q --format svg --title
 * 'T 🩷' 'hi there'` warned "1 character in the labels (U+1FA77) has no glyph ...", the labels being "hi" and
 * "there". The warning counts every text of the figures (titles, labels, axis names), so it says "in the figures'
 * text"; U+10FFFF, in no font, stands for the emoji on every machine. */
static void test_missing_glyph_in_the_title_is_not_blamed_on_the_labels(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "--title", "T \xF4\x8F\xBF\xBF", "-o", in(f, "gt"), "hi there");
    expect_ok(&r);
    if (!strstr(r.err, "attnviz: warning: 1 character in the figures' text (U+10FFFF) has no glyph in any installed "
                       "font; drawn as boxes") || strstr(r.err, "labels"))
        fail_msg("%s", r.err);
    tu_free(&r);
}

/* The glyph warning says what each --format shows: `attnviz --format svg --title "A\uFFFF" "I love"` warned that
 * U+FFFF was "drawn as boxes", where the SVG holds U+FFFD (EF BF BD) in its place (XML 1.0's Char production
 * allows neither U+FFFE nor U+FFFF) and a viewer draws the replacement character. The PNG draws a box; --format
 * both says both. The file's bytes are checked too, so the warning and the SVG agree. */
static void test_missing_glyph_warning_says_what_the_svg_shows(void **state) {
    fixture *f = *state;
    tu_result r;
    static const struct { const char *format, *says; } cases[] = {
        {"svg", "(U+FFFF) has no glyph in any installed font; written as U+FFFD \xEF\xBF\xBD in the SVG, as XML allows "
                "no U+FFFE or U+FFFF\n"},
        {"both", "(U+FFFF) has no glyph in any installed font; drawn as boxes in the PNG, written as U+FFFD "
                 "\xEF\xBF\xBD in the SVG, as XML allows no U+FFFE or U+FFFF\n"},
        {"png", "(U+FFFF) has no glyph in any installed font; drawn as boxes\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char dir[32];
        snprintf(dir, sizeof dir, "ffff_%s", cases[k].format);
        RUN(&r, "-q", "--format", cases[k].format, "--title", "A\xEF\xBF\xBF", "-o", in(f, dir), "I love");
        expect_ok(&r);
        if (!strstr(r.err, cases[k].says)) fail_msg("--format %s: %s", cases[k].format, r.err);
        tu_free(&r);
        if (strcmp(cases[k].format, "png") == 0) continue;
        char path[64];
        snprintf(path, sizeof path, "%s/head0.svg", dir);
        char *svg = tu_slurp_file(in(f, path), NULL);
        assert_non_null(svg);
        assert_non_null(strstr(svg, ">A\xEF\xBF\xBD \xC2\xB7 head 0 of 1"));
        assert_null(strstr(svg, "\xEF\xBF\xBF"));
        free(svg);
    }
}

/* Emoji sequences that are one character to the reader but several to the fonts are said, once: `attnviz --heads
 * 1 -o DIR "I 👍🏽 🇯🇵 you"` drew the flag as two boxed letters J P and the thumb as a thumb and a colour swatch,
 * in head0.png and the SVG, and said nothing. The note's text is written here by hand (code points from UTS #51's
 * emoji-sequences.txt and emoji-zwj-sequences.txt); a keycap (the mark centred on its digit, one thing), a ZWJ
 * between Devanagari letters and a run with --no-plot get none. */
static void test_emoji_sequences_drawn_in_parts_are_noted(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "1", "--format", "both", "-o", in(f, "emo"),
        "I \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xF0\x9F\x87\xAF\xF0\x9F\x87\xB5 you");
    expect_ok(&r);
    const char *want = "attnviz: note: the figures draw skin tone \xF0\x9F\x8F\xBD of \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
                       "(U+1F44D U+1F3FD) as a swatch after \xF0\x9F\x91\x8D; flag \xF0\x9F\x87\xAF\xF0\x9F\x87\xB5 "
                       "(U+1F1EF U+1F1F5) as its two letters J P: the fonts found have no single glyph for these "
                       "sequences\n";
    if (!strstr(r.err, want) || count_str(r.err, "attnviz: note: the figures draw") != 1) fail_msg("%s", r.err);
    tu_free(&r);

    /* 👩‍💻 = U+1F469 U+200D U+1F4BB; 1️⃣ = U+0031 U+FE0F U+20E3; क्‍ष = क ् ZWJ ष */
    RUN(&r, "-q", "--heads", "1", "-o", in(f, "emo2"),
        "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB 1\xEF\xB8\x8F\xE2\x83\xA3 \xE0\xA4\x95\xE0\xA5\x8D\xE2\x80\x8D"
        "\xE0\xA4\xB7");
    expect_ok(&r);
    want = "attnviz: note: the figures draw \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB (U+1F469 U+200D U+1F4BB) as "
           "\xF0\x9F\x91\xA9 \xF0\x9F\x92\xBB side by side: the fonts found have no single glyph for this sequence\n";
    if (!strstr(r.err, want) || strstr(r.err, "keycap") || strstr(r.err, "U+0915")) fail_msg("%s", r.err);
    tu_free(&r);

    RUN(&r, "-q", "--no-plot", "I \xF0\x9F\x87\xAF\xF0\x9F\x87\xB5 you");
    expect_ok(&r);
    if (strstr(r.err, "the figures draw")) fail_msg("%s", r.err);
    tu_free(&r);
}

/* A tag sequence was drawn as its base with no word: `attnviz -q --heads 1 -o D "a 🏴󠁧󠁢󠁥󠁮󠁧󠁿 b"` drew the flag of
 * England as a plain black flag 🏴 (the tags U+E0067.. are default-ignorable, drawn as nothing) and printed
 * nothing, where 🇯🇵 drawn as J P is noted. The note now names it, with its code points written by hand from
 * UTS #51's emoji-test.txt (🏴󠁧󠁢󠁥󠁮󠁧󠁿 = U+1F3F4, tags g b e n g = U+E0067 U+E0062 U+E0065 U+E006E U+E0067, cancel tag
 * U+E007F; Wales: g b w l s), the three RGI flags by name and another subdivision by its code; a black flag
 * alone, tags with no cancel tag, and --no-plot get none. */
static void test_tag_sequences_drawn_as_their_base_are_noted(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--heads", "1", "-o", in(f, "tag"), "a \xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF b");
    expect_ok(&r);
    const char *want = "attnviz: note: the figures draw flag of England \xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF (U+1F3F4 U+E0067 U+E0062 U+E0065 "
                       "U+E006E U+E0067 U+E007F) as a black flag \xF0\x9F\x8F\xB4: the fonts found have no single glyph for "
                       "this sequence\n";
    if (!strstr(r.err, want) || count_str(r.err, "attnviz: note: the figures draw") != 1) fail_msg("%s", r.err);
    tu_free(&r);

    RUN(&r, "-q", "--heads", "1", "-o", in(f, "tag2"), "\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xB7\xF3\xA0\x81\xAC\xF3\xA0\x81\xB3\xF3\xA0\x81\xBF \xF0\x9F\x8F\xB4\xF3\xA0\x81\xB5\xF3\xA0\x81\xB3\xF3\xA0\x81\xA3\xF3\xA0\x81\xA1\xF3\xA0\x81\xBF \xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2 x \xF0\x9F\x8F\xB4");
    expect_ok(&r);
    want = "attnviz: note: the figures draw flag of Wales \xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xB7\xF3\xA0\x81\xAC\xF3\xA0\x81\xB3\xF3\xA0\x81\xBF (U+1F3F4 U+E0067 U+E0062 U+E0077 U+E006C U+E0073 "
           "U+E007F) as a black flag \xF0\x9F\x8F\xB4; subdivision flag usca \xF0\x9F\x8F\xB4\xF3\xA0\x81\xB5\xF3\xA0\x81\xB3\xF3\xA0\x81\xA3\xF3\xA0\x81\xA1\xF3\xA0\x81\xBF (U+1F3F4 U+E0075 U+E0073 U+E0063 "
           "U+E0061 U+E007F) as a black flag \xF0\x9F\x8F\xB4: the fonts found have no single glyph for these sequences\n";
    if (!strstr(r.err, want) || count_str(r.err, "U+1F3F4") != 2) fail_msg("%s", r.err);
    tu_free(&r);

    RUN(&r, "-q", "--no-plot", "a \xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF b");
    expect_ok(&r);
    if (strstr(r.err, "the figures draw")) fail_msg("%s", r.err);
    tu_free(&r);
}

/* The SVG keeps the spaces the PNG draws: 'attnviz --format both --title "A   B"' drew "A   B" in head0.png, but
 * head0.svg had no xml:space, so a viewer (rsvg-convert, a browser, Inkscape) joined the run of spaces and showed
 * "A B" centred elsewhere. The root svg element now says xml:space="preserve" for every <text>. */
static void test_svg_keeps_runs_of_spaces(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "both", "--title", "A   B", "-o", in(f, "sp"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "sp/head0.svg"), NULL);
    const char *root = strstr(svg, "<svg "), *end = root ? strchr(root, '>') : NULL;
    assert_non_null(end);
    const char *keep = strstr(root, " xml:space=\"preserve\"");
    if (!keep || keep > end) fail_msg("no xml:space=\"preserve\" on the svg element: %.*s", (int)(end - root + 1), root);
    assert_int_equal(count_str(svg, ">A   B \xC2\xB7 head 0 of 1: attention weights</text>"), 1);
    free(svg);
}

/* Every figure type (per head, grid, scores, mean, PE, mask, compare) lays
 * out an Arabic and a Devanagari token through the shaping layout: in SVG
 * the Arabic labels say direction="rtl" (the raster's paragraph direction)
 * and the Devanagari labels name the font the raster shaped them with. */
static void test_rtl_and_indic_labels_in_every_figure_type(void **state) {
    fixture *f = *state;
    static const char *const files[] = {"head0", "heads", "scores", "scores_head1", "mean", "pe", "mask",
                                        "compare_positions"};
    tu_result r;
    RUN(&r, "-q", "--heads", "2", "--compare", "positions", "--figures", "all", "--format", "both", "-o",
        in(f, "b"), "أنا नमस्ते");
    expect_ok(&r);
    tu_free(&r);
    const char *fam[2];
    assert_int_equal(av_text_fonts("नमस्ते", 0, fam, NULL, 2), 1);
    char want[256], path[64];
    snprintf(want, sizeof want, "font-family=\"'%s', ", fam[0]);
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(path, sizeof path, "b/%s.png", files[k]);
        assert_true(file_exists(in(f, path)));
        snprintf(path, sizeof path, "b/%s.svg", files[k]);
        char *svg = slurp(in(f, path), NULL);
        /* pe's rows are positions, "k: token": the index stays at the left of an Arabic token (LRM, then the
         * token isolated), as beside "1: नमस्ते"; the whole label was right to left, "أنا 0" */
        int indexed = strcmp(files[k], "pe") == 0;
        if (!indexed && count_str(svg, "direction=\"rtl\" unicode-bidi=\"embed\"") < 1)
            fail_msg("%s: no rtl label", path);
        if (indexed && !strstr(svg, ">\xE2\x80\x8E" "0: \xE2\x81\xA8" "أنا" "\xE2\x81\xA9</text>"))
            fail_msg("%s: the label of position 0 is not \"0: \" then the isolated Arabic token", path);
        if (indexed && strstr(svg, "direction=\"rtl\"")) fail_msg("%s: a right-to-left position label", path);
        if (!strstr(svg, want)) fail_msg("%s: no label in %s", path, fam[0]);
        free(svg);
    }
}

/* Each family once in a text's font-family, the raster's fonts first, an emoji's too: `attnviz -q --format svg -o o6
 * 'สวัสดี नमस्ते 안녕 שלום مرحبا 😀'` titled head0.svg in "'DejaVu Sans', 'Noto Sans Thai', 'Noto Sans Devanagari',
 * 'Noto Sans CJK SC', 'DejaVu Sans', 'DejaVu Sans', 'Noto Sans CJK SC', sans-serif" (the bundled and the system's
 * DejaVu Sans are two fonts of one family, and the default list was appended whole). The emoji labels name, first,
 * the font the raster drew them with (DejaVu Sans or Symbola, no colour), so a viewer that has it does not put a
 * colour emoji where the PNG has none. */
static void test_svg_font_family_names_each_family_once(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "--format", "svg", "-o", in(f, "ff"), "สวัสดี नमस्ते 안녕 שלום مرحبا 😀 a 🤖");
    expect_ok(&r);
    tu_free(&r);
    char *svg = slurp(in(f, "ff/head0.svg"), NULL);
    int lists = 0;
    for (const char *p = svg; (p = strstr(p, "font-family=\"")) != NULL; lists++) {
        p += strlen("font-family=\"");
        const char *end = strchr(p, '"');
        assert_non_null(end);
        char list[512];
        snprintf(list, sizeof list, "%.*s", (int)(end - p), p);
        for (char *a = list; *a == '\'';) { /* each 'family' against the rest of the list */
            char *b = strchr(a + 1, '\'');
            assert_non_null(b);
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(b - a + 1), a);
            if (strstr(b + 1, name)) fail_msg("%s twice in font-family=\"%s\"", name, list);
            a = b + 1 + strspn(b + 1, ", ");
        }
        if (!strstr(list, "sans-serif")) fail_msg("no generic family in \"%s\"", list);
    }
    assert_true(lists >= 3);
    static const char *const emoji[] = {"😀", "🤖"};
    for (size_t k = 0; k < 2; k++) {
        const char *fam[2];
        if (av_text_fonts(emoji[k], 0, fam, NULL, 2) < 1) continue; /* no font has it: a box */
        char label[32], want[160];
        snprintf(label, sizeof label, ">%s</text>", emoji[k]);
        const char *at = strstr(svg, label), *open = at;
        assert_non_null(at);
        while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
        const char *own = strstr(open, "font-family=\"");
        snprintf(want, sizeof want, "font-family=\"'%s', ", fam[0]);
        if (own && own < at) {
            if (strncmp(own, want, strlen(want)) != 0) fail_msg("%s: %.80s, want %s", emoji[k], own, want);
        } else if (strcmp(fam[0], "DejaVu Sans") != 0) {
            fail_msg("%s is drawn in %s, which its text does not name", emoji[k], fam[0]);
        }
    }
    free(svg);
}

/* A control character or a line separator in the sentence separates words
 * (the tokenizer drops it) and is one space in the title, as white space is;
 * it was drawn as a box, with a missing-glyph warning. */
static void test_sentence_controls_are_spaces_in_the_title(void **state) {
    fixture *f = *state;
    tu_result r;
    RUN(&r, "-q", "-o", in(f, "c"), "I\x01love\xE2\x80\xA8you\xC2\x85too");
    expect_ok(&r);
    assert_string_equal(r.err, "");
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "c/head0.png"), &img);
    const char *t = av_png_image_text(&img, "Title");
    const char *want = "\xE2\x80\x9C\xE2\x81\xA8I love you too\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0";
    if (strncmp(t, want, strlen(want)) != 0) fail_msg("title: %s", t);
    av_png_image_free(&img);
}

/* A combining mark typed after a space is one cluster with the space (UAX #29
 * GB9); the tokenizer keeps it as a token's start, [x] [\u0301] [y], and the
 * title dropped it with the space: "x \u0301 y \u20DD" was titled "x y", the
 * same under NBSP and U+3000, and the page's <title> "attnviz: x y". */
static void test_marks_after_a_space_stay_in_the_title(void **state) {
    fixture *f = *state;
    static const char *const rows[][2] = {
        {"x \xCC\x81 y \xE2\x83\x9D", "x \xCC\x81 y \xE2\x83\x9D"}, /* U+0301 and U+20DD after spaces */
        {"x\xC2\xA0\xCC\x81y", "x \xCC\x81y"},                      /* after NBSP: the space is folded */
        {"a\xE3\x80\x80\xCC\x81\xCC\x82" "b  c", "a \xCC\x81\xCC\x82" "b c"},  /* after U+3000, two marks */
        {"x \xE2\x80\x8D\xCC\x81", "x \xCC\x81"},                      /* a ZWJ before it is dropped with the space */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tu_result r;
        RUN(&r, "-q", "-o", in(f, "m"), "--html", rows[i][0]);
        expect_ok(&r);
        tu_free(&r);
        av_png_image img;
        read_png(in(f, "m/head0.png"), &img);
        const char *t = av_png_image_text(&img, "Title");
        char want[128];
        snprintf(want, sizeof want, "\xE2\x80\x9C\xE2\x81\xA8%s\xE2\x81\xA9\xE2\x80\x9D \xC2\xB7 head 0", rows[i][1]);
        if (strncmp(t, want, strlen(want)) != 0) fail_msg("row %zu: title %s, want %s", i, t, want);
        av_png_image_free(&img);
        char *page = slurp(in(f, "m/attnviz.html"), NULL);
        assert_non_null(page);
        snprintf(want, sizeof want, "<title>attnviz: %s</title>", rows[i][1]);
        if (!strstr(page, want)) fail_msg("row %zu: the page has no %s", i, want);
        free(page);
    }
}

/* A --title wider than the figure wraps over up to 3 lines at the figure's
 * width, and only what the third cannot hold is cut with "…"; the plot sets
 * the width, as without --title (it made head0.png 2400 px wide with the map
 * small at the left), and the metadata keeps the title whole. Every figure
 * kind that draws the title: the single layer's, --compare's, and a
 * --model's. (Once the title was cut on one line.) */
static void expect_same_width_wrapped_title(const fixture *f, const char *plain, const char *titled, const char *name,
                                        const char *long_title) {
    char a[256], b[256];
    av_png_image pa, pb;
    snprintf(a, sizeof a, "%s/%s.png", plain, name);
    snprintf(b, sizeof b, "%s/%s.png", titled, name);
    read_png(in(f, a), &pa);
    read_png(in(f, b), &pb);
    if (pa.width != pb.width) fail_msg("%s: %d px wide with the long --title, %d px without", b, pb.width, pa.width);
    const char *t = av_png_image_text(&pb, "Title");
    if (strncmp(t, long_title, strlen(long_title)) != 0 || strncmp(t + strlen(long_title), " \xC2\xB7 ", 4) != 0)
        fail_msg("%s: the Title metadata does not start with the whole --title: %.80s", b, t);
    av_png_image_free(&pa);
    av_png_image_free(&pb);
    snprintf(a, sizeof a, "%s/%s.svg", plain, name);
    snprintf(b, sizeof b, "%s/%s.svg", titled, name);
    char *sa = slurp(in(f, a), NULL), *sb = slurp(in(f, b), NULL);
    assert_non_null(sa);
    assert_non_null(sb);
    const char *wa = strstr(sa, " width=\""), *wb = strstr(sb, " width=\"");
    assert_non_null(wa);
    assert_non_null(wb);
    if (atof(wa + 8) != atof(wb + 8)) fail_msg("%s: width %g, without --title %g", b, atof(wb + 8), atof(wa + 8));
    /* the title's lines: texts of x alone, the last maybe ending in "…" */
    int lines = 0, xs = 0, cut = 0;
    static const char BOLD[] = "font-weight=\"bold\">x"; /* a drawn title line, not <title> or <desc> */
    for (const char *q = strstr(sb, BOLD); q; q = strstr(q, BOLD)) {
        q += strlen(BOLD) - 1;
        size_t run = strspn(q, "x");
        const char *after = q + run;
        if (!strncmp(after, "\xE2\x80\xA6</text>", 10)) cut = 1;
        else if (strncmp(after, "</text>", 7) != 0) fail_msg("%s: a title line ends in '%.12s'", b, after);
        if (cut && after[0] != '\xE2') fail_msg("%s: a title line follows the cut one", b);
        lines++;
        xs += (int)run;
        q = after;
    }
    printf("    %s: --title on %d lines, %d of its %zu x%s\n", b, lines, xs, strlen(long_title), cut ? ", cut" : "");
    if (lines < 2 || lines > 3) fail_msg("%s: the --title is on %d lines, want 2 or 3", b, lines);
    if (cut ? lines != 3 || xs >= (int)strlen(long_title) : xs != (int)strlen(long_title))
        fail_msg("%s: %d lines, %d x of %zu, %s", b, lines, xs, strlen(long_title), cut ? "cut" : "not cut");
    const char *st = strstr(sb, "<title>");
    if (!st || strncmp(st + 7, long_title, strlen(long_title)) != 0)
        fail_msg("%s: the <title> does not hold the whole --title", b);
    free(sa);
    free(sb);
}

static void test_long_title_wraps_to_the_figure_width(void **state) {
    fixture *f = *state;
    char long_title[301];
    memset(long_title, 'x', 300);
    long_title[300] = 0;
    tu_result r;
    const char *single[] = {"-q", "-H", "2", "--causal", "--figures", "all", "--format", "both", "I love you"};
    const char *cmp[] = {"-q", "-H", "2", "--compare", "order", "--format", "both", "I love you"};
    const char *toy = in(f, "toy");
    char toy_dir[4096];
    snprintf(toy_dir, sizeof toy_dir, "%s", toy);
    RUN(&r, "-q", "--train", "sort", "--steps", "2", "--d-model", "16", "--layers", "1", "--batch", "4", "-o", toy_dir);
    expect_ok(&r);
    tu_free(&r);
    const char *model[] = {"-q", "--model", toy_dir, "--figures", "model,grid,heads", "--format", "both", "3 1 4 >"};
    for (int titled = 0; titled < 2; titled++) {
        const char *dirs[3] = {titled ? "t1" : "p1", titled ? "t2" : "p2", titled ? "t3" : "p3"};
        const char *const *args[3] = {single, cmp, model};
        int n[3] = {9, 8, 8};
        for (int run = 0; run < 3; run++) {
            const char *argv[16];
            int k = 0;
            for (int i = 0; i < n[run] - 1; i++) argv[k++] = args[run][i];
            if (titled) argv[k++] = "--title", argv[k++] = long_title;
            argv[k++] = "-o", argv[k++] = in(f, dirs[run]), argv[k++] = args[run][n[run] - 1], argv[k] = NULL;
            tu_runv(&r, NULL, NULL, argv);
            expect_ok(&r);
            tu_free(&r);
        }
    }
    for (int k = 0; k < N_ALL; k++) expect_same_width_wrapped_title(f, "p1", "t1", ALL_FILES[k], long_title);
    expect_same_width_wrapped_title(f, "p2", "t2", "compare_order", long_title);
    const char *const mfiles[] = {"model", "layer0", "layer0_head0"};
    for (int k = 0; k < 3; k++) expect_same_width_wrapped_title(f, "p3", "t3", mfiles[k], long_title);
}

/* A --weights folder with a long name (150 characters, no space in it) is
 * named whole in every figure's title, wrapped over its lines, and does not
 * make a figure wider than 10 in (1000 px at the default 100 dpi) unless the
 * same figure from a folder named "w" already is: a 3-token head0.png was
 * 2175 px wide, its map a tenth of that, so on a page or slide the map and
 * labels shrank to nothing (a new user's report). */
static void test_long_weights_folder_wraps_in_the_title(void **state) {
    fixture *f = *state;
    char name[151];
    for (int k = 0; k < 150; k++) name[k] = "weights_of_my_course_"[k % 21];
    name[150] = 0;
    char dir[4300];
    snprintf(dir, sizeof dir, "%s", in(f, name));
    tu_result r;
    const char *dirs[2] = {dir, in(f, "w")}, *outs[2] = {in(f, "o"), in(f, "s")};
    for (int k = 0; k < 2; k++) {
        RUN(&r, "-q", "--no-plot", "-d", "8", "-H", "2", "--dump", dirs[k], "I love you");
        expect_ok(&r);
        tu_free(&r);
        RUN(&r, "-q", "-d", "8", "-H", "2", "--weights", dirs[k], "--figures", "all", "--format", "both", "-o", outs[k],
            "I love you");
        expect_ok(&r);
        tu_free(&r);
    }
    for (int k = 0; k < N_ALL; k++) {
        char rel[256];
        av_png_image img, plain;
        snprintf(rel, sizeof rel, "s/%s.png", ALL_FILES[k]);
        read_png(in(f, rel), &plain);
        snprintf(rel, sizeof rel, "o/%s.png", ALL_FILES[k]);
        read_png(in(f, rel), &img);
        if (img.width > 1000 && img.width > plain.width)
            fail_msg("%s: %d px wide at 100 dpi (over 10 in) for a long --weights folder, %d px for folder w", rel,
                     img.width, plain.width);
        av_png_image_free(&img);
        av_png_image_free(&plain);
        /* the drawn title lines (bold <text>), joined: the folder is in them whole */
        snprintf(rel, sizeof rel, "o/%s.svg", ALL_FILES[k]);
        char *svg = slurp(in(f, rel), NULL);
        assert_non_null(svg);
        size_t n = strlen(svg), used = 0;
        char *joined = calloc(n + 1, 1);
        static const char BOLD[] = "font-weight=\"bold\">";
        for (const char *q = strstr(svg, BOLD); q; q = strstr(q, BOLD)) {
            q += strlen(BOLD);
            const char *e = strstr(q, "</text>");
            assert_non_null(e);
            memcpy(joined + used, q, (size_t)(e - q));
            used += (size_t)(e - q);
            q = e;
        }
        if (!strstr(joined, dir)) fail_msg("%s: the title lines do not hold the whole folder: %s", rel, joined);
        free(joined);
        free(svg);
    }
}

/* A right-to-left override (U+202E) in --title, in a --weights folder's
 * name or in the sentence turns only that text around, never what attnviz
 * writes after it: "X random (untrained, seed 42)" was drawn as "(24 dees
 * ,deniartnu) modnar X", and "· head 0 of 1: attention weights" after a
 * --title backwards too (a new user's report). Checked by the bidi rules
 * (UAX #9 X1-X8) on each drawn title line of the SVG, the PNG's Title and the
 * command line in its Description. */
static void test_bidi_controls_in_user_text_stay_in_it(void **state) {
    fixture *f = *state;
    char dir[4300];
    snprintf(dir, sizeof dir, "%s", in(f, "w\xE2\x80\xAE" "abc")); /* w, RLO, abc */
    assert_int_equal(mkdir(dir, 0755), 0); /* the user's: attnviz makes no such folder (test_cli.c) */
    tu_result r;
    RUN(&r, "-q", "--no-plot", "-d", "8", "-H", "2", "--dump", dir, "I love you");
    expect_ok(&r);
    tu_free(&r);
    unlink(tu_in(f, "w\xE2\x80\xAE" "abc/X.npy"));
    RUN(&r, "-q", "-d", "8", "-H", "2", "--weights", dir, "--format", "both", "-o", in(f, "o1"), "I love you");
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "-q", "-d", "8", "-H", "2", "--title", "T \xE2\x80\xAE" "ab", "--format", "both", "-o", in(f, "o2"),
        "I \xE2\x81\xA7love \xE2\x80\xAEyou");
    expect_ok(&r);
    tu_free(&r);
    const char *runs[2] = {"o1", "o2"};
    const char *files[2] = {"head0", "heads"};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            char rel[64];
            snprintf(rel, sizeof rel, "%s/%s.png", runs[k], files[i]);
            av_png_image img;
            read_png(in(f, rel), &img);
            const char *title = av_png_image_text(&img, "Title"), *cmd = av_png_image_text(&img, "Description");
            tu_expect_unturned(rel, title, k ? "attention weights" : "X random (untrained, seed 42)");
            tu_expect_unturned(rel, title, "positions: sinusoidal");
            tu_expect_unturned(rel, cmd, k ? " --format both" : " --format both");
            tu_expect_unturned(rel, cmd, k ? " -o " : " -o ");
            if (tu_bidi_open_at(cmd, strlen(cmd))) fail_msg("%s: the command line leaves a bidi control open: %s", rel, cmd);
            av_png_image_free(&img);
            snprintf(rel, sizeof rel, "%s/%s.svg", runs[k], files[i]);
            char *svg = slurp(in(f, rel), NULL);
            assert_non_null(svg);
            static const char BOLD[] = "font-weight=\"bold\">";
            int seen = 0;
            for (const char *q = strstr(svg, BOLD); q; q = strstr(q, BOLD)) { /* each drawn title line */
                q += strlen(BOLD);
                const char *e = strstr(q, "</text>");
                assert_non_null(e);
                char line[2048];
                snprintf(line, sizeof line, "%.*s", (int)(e - q), q);
                if (strstr(line, "random (untrained, seed 42)") || strstr(line, "attention weights") ||
                    strstr(line, "positions:")) {
                    const char *w = strstr(line, "random (untrained") ? "random (untrained"
                                    : strstr(line, "attention weights") ? "attention weights" : "positions:";
                    tu_expect_unturned(rel, line, w);
                    seen++;
                }
                q = e;
            }
            if (seen < 2) fail_msg("%s: %d title lines checked", rel, seen);
            free(svg);
        }
}

/* A --model folder's name is shown as a --weights folder's is (base/utf8.h av_utf8_shown_name), in the
 * trace, the notes, the figures' titles and the --html page's trace: an RLO in it closed after it, a control
 * character as <U+000A>. `attnviz -m $'mod\u202eabc' 'hi there'` printed "weights    model mod<RLO>abc (trained
 * toy model: ...)" with nothing closing the override, so the rest of the line read backwards, and a folder
 * named $'mod\nx' put a raw newline in model.png's Title, which the figure drew as a box (a tester's pass). */
static void test_model_folder_name_shown_as_weights_folder(void **state) {
    fixture *f = *state;
    char dir[4300], nl[4300];
    snprintf(dir, sizeof dir, "%s", in(f, "m\xE2\x80\xAE" "abc")); /* m, RLO, abc */
    snprintf(nl, sizeof nl, "%s", in(f, "m\nx"));
    assert_int_equal(mkdir(dir, 0755), 0); /* the user's: attnviz makes no such folder (test_cli.c) */
    tu_result r;
    RUN(&r, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--layers", "1", "--batch", "4", "-o", dir);
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "--model", dir, "--figures", "model", "--format", "both", "--html", "-o", in(f, "o1"), "hi there");
    expect_ok(&r);
    tu_expect_unturned("trace", strstr(r.out, "weights    model"), ": F32, ");
    tu_expect_unturned("note", strstr(r.err, "attnviz: note: "), " was trained on reverse only");
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "o1/model.png"), &img);
    tu_expect_unturned("model.png", av_png_image_text(&img, "Title"), "(attnviz --train reverse");
    tu_expect_unturned("model.png", av_png_image_text(&img, "Title"), "attention weights");
    av_png_image_free(&img);
    char *page = slurp(in(f, "o1/attnviz.html"), NULL);
    assert_non_null(page);
    tu_expect_unturned("attnviz.html", strstr(page, "weights    model"), ": F32, ");
    free(page);
    assert_int_equal(rename(dir, nl), 0);
    RUN(&r, "--model", nl, "--figures", "model", "--format", "both", "-o", in(f, "o2"), "hi there");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "m<U+000A>x (trained toy model"));
    tu_free(&r);
    read_png(in(f, "o2/model.png"), &img);
    const char *title = av_png_image_text(&img, "Title");
    if (strchr(title, '\n') || !strstr(title, "m<U+000A>x (attnviz --train reverse"))
        fail_msg("model.png's Title should name the folder m<U+000A>x, as a --weights folder is: %s", title);
    av_png_image_free(&img);
    char *svg = slurp(in(f, "o2/model.svg"), NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "m&lt;U+000A&gt;x (attnviz --train reverse"));
    free(svg);
}

/* A character cut into byte tokens is named as its label shows it alone (text/tokenize.h av_label_char_alone),
 * in the trace's split-character hint, the note on a toy model's task and the figures' note: `attnviz -m
 * runs/reverse $'\u0085\u2028"'` printed "[<0xC2>] [<0x85>] = '<raw U+0085>' (U+0085)" in the trace, put the
 * raw C1 control in model.png's tEXt ("first of 2 bytes of '\x85'", drawn as ''), U+FEFF raw in the trace and
 * on stderr, and a lone U+0301 as "'\xCC\x81'", the accent sitting on the quote mark, while the labels read
 * [<U+0085>(1/2)] and [◌́(1/2)] (a tester's pass). */
static void test_split_character_named_as_its_label(void **state) {
    fixture *f = *state;
    char toy[4300];
    snprintf(toy, sizeof toy, "%s", in(f, "toy"));
    tu_result r;
    RUN(&r, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--layers", "1", "--batch", "4", "-o", toy);
    expect_ok(&r);
    tu_free(&r);
    RUN(&r, "--model", toy, "--figures", "model", "-o", in(f, "o"), "\xC2\x85\xE2\x80\xA8\"");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "[<0xC2>] [<0x85>] = '<U+0085>' (U+0085) in UTF-8 bytes"));
    assert_non_null(strstr(r.err, "is the first of 2 bytes of '<U+0085>' (U+0085)"));
    tu_free(&r);
    av_png_image img;
    read_png(in(f, "o/model.png"), &img);
    const char *title = av_png_image_text(&img, "Title");
    if (!strstr(title, "is the first of 2 bytes of '<U+0085>' (U+0085)"))
        fail_msg("model.png's Title should name U+0085 as <U+0085>: %s", title);
    av_png_image_free(&img);
    RUN(&r, "--model", toy, "--no-plot", "\xEF\xBB\xBF" "1 2");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "= '<U+FEFF>' (U+FEFF) in UTF-8 bytes"));
    assert_non_null(strstr(r.err, "of 3 bytes of '<U+FEFF>' (U+FEFF)"));
    tu_free(&r);
    RUN(&r, "--model", toy, "--no-plot", "\xCC\x81 2");
    expect_ok(&r);
    assert_non_null(strstr(r.out, "= '\xE2\x97\x8C\xCC\x81' (U+0301) in UTF-8 bytes"));
    tu_free(&r);
    RUN(&r, "--model", toy, "--no-plot", "\xE6\x88\x91 2"); /* a visible character is named as itself */
    expect_ok(&r);
    assert_non_null(strstr(r.out, "= '\xE6\x88\x91' (U+6211) in UTF-8 bytes"));
    assert_non_null(strstr(r.err, "of 3 bytes of '\xE6\x88\x91' (U+6211)"));
    tu_free(&r);
}

/* A --title in a right-to-left script leaves the title line left to right. As the line's first strong
 * character it made the whole line right to left: head0.png read "head 0 of 2: attention weights · شكل ٣:
 * الانتباه", attnviz's words before the title (a figure-maker's report; a quoted right-to-left sentence had
 * its LEFT-TO-RIGHT MARK and isolate already). The title sits after an LRM in FSI ... PDI, where it keeps
 * its own direction. Arabic, Hebrew and a title that starts with a digit before Hebrew; the PNG's Title and
 * each drawn SVG title line that holds the title and attnviz's words (direction="rtl" is the raster's
 * paragraph direction), in the head and the grid figure. */
static void test_rtl_title_keeps_the_line_left_to_right(void **state) {
    fixture *f = *state;
    static const char *const titles[] = {"\xD8\xB4\xD9\x83\xD9\x84 \xD9\xA3: \xD8\xA7\xD9\x84\xD8\xA7\xD9\x86\xD8\xAA\xD8\xA8\xD8\xA7\xD9\x87",
                                         "\xD7\x90\xD7\x99\xD7\x95\xD7\xA8 3",
                                         "3: \xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D"};
    for (size_t k = 0; k < sizeof titles / sizeof titles[0]; k++) {
        char dir[32];
        snprintf(dir, sizeof dir, "rtl%zu", k);
        tu_result r;
        RUN(&r, "-q", "-H", "2", "--figures", "heads,grid", "--format", "both", "--title", titles[k], "-o",
            in(f, dir), "I love you");
        expect_ok(&r);
        tu_free(&r);
        const char *files[2] = {"head0", "heads"};
        for (int i = 0; i < 2; i++) {
            char rel[64], want[256];
            snprintf(rel, sizeof rel, "%s/%s.png", dir, files[i]);
            av_png_image img;
            read_png(in(f, rel), &img);
            snprintf(want, sizeof want, "\xE2\x80\x8E\xE2\x81\xA8%s\xE2\x81\xA9 \xC2\xB7 ", titles[k]); /* LRM FSI .. PDI */
            const char *t = av_png_image_text(&img, "Title");
            if (strncmp(t, want, strlen(want)) != 0) fail_msg("%s: title '%s' does not start '%s'", rel, t, want);
            av_png_image_free(&img);
            snprintf(rel, sizeof rel, "%s/%s.svg", dir, files[i]);
            char *svg = slurp(in(f, rel), NULL);
            assert_non_null(svg);
            static const char BOLD[] = "font-weight=\"bold\">";
            int seen = 0;
            for (const char *q = strstr(svg, BOLD); q; q = strstr(q, BOLD)) { /* each drawn title line */
                const char *open = q;
                while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
                q += strlen(BOLD);
                const char *e = strstr(q, "</text>");
                assert_non_null(e);
                char line[2048], tag[1024];
                snprintf(line, sizeof line, "%.*s", (int)(e - q), q);
                snprintf(tag, sizeof tag, "%.*s", (int)(q - open), open);
                if (!strstr(line, titles[k]) || !strstr(line, "attention weights")) continue;
                seen++;
                if (strstr(tag, "direction=\"rtl\""))
                    fail_msg("%s: the title line '%s' is drawn right to left: %s", rel, line, tag);
            }
            if (seen < 1) fail_msg("%s: no title line holds both the title and \"attention weights\"", rel);
            free(svg);
        }
    }
}

/* Two tokens whose labels are cut to the same "Antidisestablish…" are told
 * apart: every label of that axis then carries its index ("0: Antidise…",
 * "1: Antidise…", "2: is"), as thinned labels do. They read the same, so the
 * figure could not say which row was which (a new user's report). In every
 * figure type with token labels, rows and columns. */
static void test_cut_labels_that_read_the_same_get_indices(void **state) {
    fixture *f = *state;
    static const char *const tok[] = {"Antidisestablishmentarianism", "Antidisestablishmentary", "is", "long"};
    tu_result r;
    RUN(&r, "-q", "-H", "2", "--figures", "all", "--format", "svg", "-o", in(f, "o"),
        "Antidisestablishmentarianism Antidisestablishmentary is long");
    expect_ok(&r);
    tu_free(&r);
    const char *files[] = {"head0", "heads", "mean", "scores_head0", "scores", "mask"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "o/%s.svg", files[k]);
        char *svg = slurp(in(f, rel), NULL);
        assert_non_null(svg);
        /* the token labels: 15 px (14 in the grids), right-aligned, not bold */
        const char *label[64];
        size_t len[64];
        int n = 0;
        for (const char *q = strstr(svg, "<text "); q && n < 64; q = strstr(q + 1, "<text ")) {
            const char *gt = strchr(q, '>'), *e = gt ? strstr(gt, "</text>") : NULL;
            assert_non_null(e);
            if (!strstr(q, "text-anchor=\"end\"") || strstr(q, "text-anchor=\"end\"") > gt) continue;
            if (gt[1] >= '0' && gt[1] <= '9' && !strchr(gt, ' ')) continue;
            label[n] = gt + 1, len[n] = (size_t)(e - gt - 1), n++;
        }
        int seen = 0;
        for (int i = 0; i < n; i++) {
            const char *t = label[i];
            size_t l = len[i];
            int idx = -1;
            if (t[0] >= '0' && t[0] <= '3' && t[1] == ':' && t[2] == ' ') idx = t[0] - '0', t += 3, l -= 3;
            int fits = 0; /* the tokens this label may be: whole, or its start and "…" */
            for (int j = 0; j < 4; j++) {
                size_t tl = strlen(tok[j]);
                int whole = l == tl && !strncmp(t, tok[j], tl);
                int cut = l > 3 && !strncmp(t + l - 3, "\xE2\x80\xA6", 3) && !strncmp(t, tok[j], l - 3);
                if ((whole || cut) && (idx < 0 || idx == j)) fits++;
            }
            if (fits > 1) fail_msg("%s: label '%.*s' does not say which of tokens 0 and 1 it is", rel, (int)len[i], label[i]);
            seen += fits;
        }
        if (seen < 8) fail_msg("%s: %d token labels of 8 found", rel, seen);
        free(svg);
    }
}

/* A sentence with kana is Japanese: its SVGs name Noto Sans CJK JP (whose default forms are Japanese) and say
 * xml:lang="ja", as its PNGs shape Han characters as Japanese (test_textlayout); a Chinese sentence keeps Noto
 * Sans CJK SC and no language. "私は直が好き" had the Chinese forms in both. */
static void test_japanese_sentence_svg_names_japanese_forms(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *text;
        int ja;
    } cases[] = {{"私は直が好き", 1}, {"カタカナ直", 1}, {"我直骨", 0}, {"I love deep learning", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--format", "svg", "--figures", "heads", "-o", in(f, "ja"), cases[i].text, NULL);
        expect_ok(&r);
        tu_free(&r);
        char *svg = tu_slurp_file(in(f, "ja/head0.svg"), NULL);
        assert_non_null(svg);
        int jp = strstr(svg, "'Noto Sans CJK JP'") != NULL, lang = strstr(svg, " xml:lang=\"ja\"") != NULL;
        if (jp != cases[i].ja || lang != cases[i].ja || (!cases[i].ja && !strstr(svg, "'Noto Sans CJK SC'")))
            fail_msg("%s: JP family %d, xml:lang %d, want %d", cases[i].text, jp, lang, cases[i].ja);
        free(svg);
    }
}

/* An --attn-mask figure names its file, as it names the weights: `attnviz --attn-mask band.npy --causal` and
 * the same mask saved as sub/stripe.npy both titled head0.png, mask.png and compare_scale.png "... · mask:
 * causal + attn_mask file", so two figures of different masks could not be told apart. The title names the
 * file's last part (its folder is the user's, as the folder of -o is). */
static void test_attn_mask_figures_name_the_file(void **state) {
    fixture *f = *state;
    static const unsigned char band[16] = {0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0}; /* |i - j| > 1 */
    size_t shape[2] = {4, 4};
    av_err err = {{0}};
    char sub[4096];
    snprintf(sub, sizeof sub, "%s", in(f, "sub"));
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(av_npy_write_bool(in(f, "band.npy"), band, 2, shape, &err), AV_OK);
    assert_int_equal(av_npy_write_bool(in(f, "sub/stripe.npy"), band, 2, shape, &err), AV_OK);
    static const char *const names[] = {"band.npy", "sub/stripe.npy"}, *const shown[] = {"band.npy", "stripe.npy"};
    for (int k = 0; k < 2; k++) {
        char file[4096], out[4096], want[256];
        snprintf(file, sizeof file, "%s", in(f, names[k]));
        snprintf(out, sizeof out, "%s", in(f, k ? "o2" : "o1"));
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--causal", "--attn-mask", file, "--figures", "heads,mask", "--compare", "scale",
            "--format", "both", "-o", out, "I love deep learning");
        expect_ok(&r);
        tu_free(&r);
        snprintf(want, sizeof want, "mask: causal + attn_mask file %s", shown[k]);
        static const char *const figs[] = {"head0.png", "mask.png", "compare_scale.png"};
        for (int i = 0; i < 3; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", out, figs[i]);
            av_png_image img;
            read_png(path, &img);
            const char *title = av_png_image_text(&img, "Title");
            if (!title || !strstr(title, want)) fail_msg("%s: Title '%s' lacks '%s'", path, title ? title : "", want);
            if (k && strstr(title, "sub/")) fail_msg("%s: Title '%s' names the folder", path, title);
            av_png_image_free(&img);
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/head0.svg", out);
        char *svg = slurp(path, NULL);
        assert_non_null(svg);
        if (!strstr(svg, want)) fail_msg("head0.svg lacks '%s'", want);
        free(svg);
    }
    /* two names of 91 bytes that differ only near the end, as a file's version does: each title keeps the first
     * 24 bytes or fewer at whole characters, "…", and the last 24 or fewer. Worked by hand: 局部注意力掩码 is 7
     * characters of 3 bytes and "_" 1, 22 bytes, and 窗 would end at byte 25; from the end, "版.npy" is 7 bytes,
     * "第一" 6, "_" 1, "子句个" 9, 23 bytes, and 这 would make 26. So "局部注意力掩码_…个句子_第一版.npy", and the
     * two differ; a 64-byte start alone named both "局部注意力掩码_窗口宽度为二_用于我爱深度…" with no mark
     * (from a review of the change). With --compare scale --html, each setting's description on the page names
     * the file too (it said "attn_mask file" alone). */
    static const char *const longs[] = {"局部注意力掩码_窗口宽度为二_用于我爱深度学习这个句子_第一版.npy",
                                        "局部注意力掩码_窗口宽度为二_用于我爱深度学习这个句子_第二版.npy"};
    static const char *const wants[] = {"attn_mask file 局部注意力掩码_\u2026个句子_第一版.npy",
                                        "attn_mask file 局部注意力掩码_\u2026个句子_第二版.npy"};
    for (int k = 0; k < 2; k++) {
        char file[4096], out[4096], path[4200];
        snprintf(file, sizeof file, "%s", in(f, longs[k]));
        assert_int_equal(av_npy_write_bool(file, band, 2, shape, &err), AV_OK);
        snprintf(out, sizeof out, "%s", in(f, k ? "l2" : "l1"));
        tu_result r;
        RUN(&r, "-q", "--heads", "2", "--attn-mask", file, "--figures", "heads", "--compare", "scale", "--html",
            "-o", out, "I love deep learning");
        expect_ok(&r);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/head0.png", out);
        av_png_image img;
        read_png(path, &img);
        const char *title = av_png_image_text(&img, "Title");
        if (!title || !strstr(title, wants[k])) fail_msg("%s: Title '%s' lacks '%s'", path, title ? title : "", wants[k]);
        av_png_image_free(&img);
        snprintf(path, sizeof path, "%s/attnviz.html", out);
        char *page = slurp(path, NULL);
        assert_non_null(page);
        int n = 0; /* the two settings' descriptions (the page of a --compare holds its settings) */
        for (const char *p = strstr(page, wants[k]); p; p = strstr(p + 1, wants[k])) n++;
        if (n < 2) fail_msg("attnviz.html names '%s' %d times, not in each setting's description", wants[k], n);
        free(page);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_default_set_is_heads_and_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_all_figures_in_png_and_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_titles_name_head_mask_and_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_titles_name_a_non_default_rope_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_japanese_sentence_svg_names_japanese_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_scale_marks_clipped_weights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vmax_marks_weights_above_the_top, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_scale_mean_and_range_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tiny_vmax_ticks_in_scientific_notation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vmax_below_the_weights_warns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vmax_below_the_weights_warns_for_the_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vmax_below_the_weights_warns_for_compare, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_scale_says_cells_print_no_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_labels_and_titles_as_svg_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_combining_marks_stay_on_their_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_figure_takes_the_weight_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_P10_mean_figure_is_the_mean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_masked_cell_differs_from_zero_weight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scores_centre_white_masked_neg_inf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_ticks_print_no_decimals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png_text_chunks_and_phys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scale_and_dpi_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dpi_600_keeps_the_printed_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reruns_are_byte_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_docs_demo_figures_are_what_this_build_draws, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_selects_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_values_exit_2_and_write_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_named_values_any_case, setup, teardown),
        cmocka_unit_test_setup_teardown(test_figures_all_for_one_head_has_the_scores_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cmap_names_and_cell_colour, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pe_figure_follows_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pe_figure_of_a_long_input_pools_its_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thinned_labels_show_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thinned_labels_set_the_index_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_panels_named_by_setting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_order_hatches_pad_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mask_legend_names_score_or_weight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_order_names_pad_rows_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_order_names_head_and_all_heads_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cjk_accents_and_emoji, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_glyph_warning_names_the_character, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_glyph_in_the_title_is_not_blamed_on_the_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_glyph_warning_says_what_the_svg_shows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_emoji_sequences_drawn_in_parts_are_noted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tag_sequences_drawn_as_their_base_are_noted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_font_family_names_each_family_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_keeps_runs_of_spaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rtl_and_indic_labels_in_every_figure_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rtl_title_keeps_the_line_left_to_right, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_for_one_head_when_asked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_never_mixes_two_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_run_keeps_its_clipped_svgs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unlistable_folder_warns_that_earlier_files_may_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_figures_take_the_folders_default_acl, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_rule_covers_every_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weights_source_named_everywhere, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seed_that_drew_nothing_is_not_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quiet_run_says_what_it_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weights_folder_with_a_trailing_slash_is_the_same_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigterm_as_a_temporary_is_made_leaves_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupt_in_a_new_folder_says_it_was_made_for_the_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_weights_source_text_is_tidied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_source_says_what_its_crc_covers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_source_says_how_tensors_were_computed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_run_into_a_busy_folder_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_figures_failing_part_way_say_what_the_folder_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_prefix_and_sentence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_cuts_a_long_sentence_after_a_whole_word, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_keeps_an_equation_on_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_korean_title_wraps_at_its_spaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pe_figure_of_a_small_d_model_keeps_titles_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_colour_bar_keeps_to_an_odd_d_models_narrower_cos_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grid_panel_titles_keep_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pe_figure_keeps_neighbouring_x_labels_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_title_wraps_to_the_figure_width, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_weights_folder_wraps_in_the_title, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bidi_controls_in_user_text_stay_in_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_folder_name_shown_as_weights_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_character_named_as_its_label, setup, teardown),
        cmocka_unit_test_setup_teardown(test_control_characters_in_the_command_are_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recorded_command_reads_back_in_the_c_locale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_home_folder_in_the_command_is_tilde, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_replaces_a_noncharacter_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_labels_that_read_the_same_get_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sentence_controls_are_spaces_in_the_title, setup, teardown),
        cmocka_unit_test_setup_teardown(test_marks_after_a_space_stay_in_the_title, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_other_than_autos_is_another_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_title_is_warned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_title_line_ends_with_a_whole_word, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attn_mask_figures_name_the_file, setup, teardown),
    };
    return cmocka_run_group_tests_name("figures", tests, NULL, NULL);
}
