/* test_trainfig.c - the training figures (render/trainfig.h): the film strip's
 * layout and the learning curves, read back from their SVG files.
 *
 * attention.gif's colours are read back with giflib.
 *
 * Like test_plot.c these check structure, never one font's pixels: where a
 * <text> is anchored against the width the text layout measures, and how
 * many markers a curve draws.
 */
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gif_lib.h>

#include "render/pngout.h"
#include "render/textlayout.h"
#include "render/trainfig.h"
#include "testutil.h"

static const av_plot_meta META = {.software = "attnviz test", .description = "attnviz --train reverse"};

/* fs drawn as the SVG `name` in f's folder, and its text (free it). */
static char *filmstrip_svg(const tu_fixture *f, const char *name, const av_filmstrip *fs) {
    av_err e;
    assert_int_equal(av_plot_filmstrip(tu_in(f, name), fs, &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, name), NULL);
    assert_non_null(svg);
    return svg;
}

/* The opening "<text " of the element whose content is `content`; *hit = where
 * that content starts. Fails the test if there is none. */
static const char *svg_text_open(const char *svg, const char *content, const char **hit) {
    char needle[256];
    snprintf(needle, sizeof needle, ">%s</text>", content);
    *hit = strstr(svg, needle);
    assert_non_null(*hit);
    const char *open = *hit;
    while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
    return open;
}

/* The x of the <text> whose content is `content` and its anchor ("start",
 * "middle" or "end"); fails the test if there is none. */
static double svg_text_x(const char *svg, const char *content, char anchor[8]) {
    const char *hit, *open = svg_text_open(svg, content, &hit);
    double x = -1;
    assert_int_equal(sscanf(open, "<text x=\"%lf\"", &x), 1);
    const char *a = strstr(open, "text-anchor=\"");
    assert_true(a && a < hit);
    assert_int_equal(sscanf(a, "text-anchor=\"%7[a-z]\"", anchor), 1);
    return x;
}

/* ---------------------------------------------------------------- film strip */

/* A 4000-step run's row label ("step 4000 · acc 100 %", wider than the old
 * fixed 140 px at 13 px) starts inside the figure: the left margin is sized to
 * the widest label. The label is right-aligned (anchor end), so its left edge
 * is x minus its measured width. */
static void test_filmstrip_long_row_label_inside_figure(void **state) {
    tu_fixture *f = *state;
    enum { ROWS = 2, COLS = 8, T = 12 }; /* wider than the note over the maps, which would centre them */
    static float att[ROWS * COLS * T * T];
    for (int i = 0; i < ROWS * COLS * T * T; i++) att[i] = 1.0f / T;
    static const char *rows[ROWS] = {"step 0 \xC2\xB7 acc 0 %", "step 4000 \xC2\xB7 acc 100 %"};
    static const char *cols[COLS] = {"L0 H0", "L0 H1", "L0 H2", "L0 H3", "L1 H0", "L1 H1", "L1 H2", "L1 H3"};
    static const char *toks[T] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"};
    av_filmstrip fs = {.title = "reverse", .rows = ROWS, .cols = COLS, .T = T, .att = att,
                       .row_labels = rows, .col_labels = cols, .tokens = toks};
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    for (int r = 0; r < ROWS; r++) {
        char anchor[8];
        double x = svg_text_x(svg, rows[r], anchor);
        av_text_metrics m;
        av_text_measure(rows[r], 13, 0, &m);
        assert_string_equal(anchor, "end");
        if (r == ROWS - 1) assert_true(m.width > 140); /* wider than the old margin: the case this pins */
        assert_true(x - m.width >= 0);
    }
    free(svg);
}

/* The y of the <text> whose content is `content` (the test fails if there is none). */
static double svg_text_y(const char *svg, const char *content) {
    const char *hit, *open = svg_text_open(svg, content, &hit);
    const char *y = strstr(open, " y=\"");
    assert_true(y && y < hit);
    return atof(y + 4);
}

/* The probe's line: between the title and the note, above the column labels, and wide enough: a
 * probe line wider than the maps widens the figure, as the title does. */
static void test_filmstrip_probe_line(void **state) {
    tu_fixture *f = *state;
    enum { T = 3 };
    static float att[T * T];
    for (int i = 0; i < T * T; i++) att[i] = 1.0f / T;
    static const char *rows[1] = {"step 0"}, *cols[1] = {"L0 H0"}, *toks[T] = {"a", "b", "c"};
    const char *probe = "probe \"a b\" and its answer \" c\" and a long tail so that the line is the widest text "
                        "of this figure by far, wider than the note under it";
    av_filmstrip fs = {.title = "t", .probe = probe, .rows = 1, .cols = 1, .T = T, .att = att, .row_labels = rows,
                       .col_labels = cols, .tokens = toks};
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    char esc[300];
    size_t k = 0;
    for (const char *c = probe; *c; c++) {
        if (*c == '"') k += (size_t)snprintf(esc + k, sizeof esc - k, "&quot;");
        else esc[k++] = *c;
    }
    esc[k] = 0;
    double yt = svg_text_y(svg, "t"), yp = svg_text_y(svg, esc), yc = svg_text_y(svg, "L0 H0");
    /* the note's first line (it breaks between its " · " pieces where wider than the figure) */
    const char *note = strstr(svg, ">rows: snapshots over training (acc: held-out sequence accuracy)");
    assert_non_null(note);
    while (note > svg && strncmp(note, "<text ", 6) != 0) note--;
    double yn = atof(strstr(note, " y=\"") + 4);
    assert_true(yt < yp && yp + 13 <= yn && yn + 13 <= yc);
    char anchor[8];
    double x = svg_text_x(svg, esc, anchor);
    av_text_metrics m;
    av_text_measure(probe, 13, 0, &m);
    assert_string_equal(anchor, "middle");
    assert_true(x - m.width / 2 >= 0);
    free(svg);
}

/* Every map's rows are labelled with the query tokens, left of each row's first map and right of the row
 * label, as its columns are with the keys under the last row; only the keys were (a new user's report).
 * 2 rows x 3 columns of T = 3: "b" is drawn 2 times as a query and 3 times as a key. */
static void test_filmstrip_labels_queries(void **state) {
    tu_fixture *f = *state;
    enum { T = 3 };
    static float att[2 * 3 * T * T];
    for (int i = 0; i < 2 * 3 * T * T; i++) att[i] = 1.0f / T;
    static const char *rows[2] = {"step 0", "step 9"}, *cols[3] = {"L0 H0", "L0 H1", "L1 H0"}, *toks[T] = {"a", "b", "c"};
    av_filmstrip fs = {.title = "t", .rows = 2, .cols = 3, .T = T, .att = att, .row_labels = rows, .col_labels = cols,
                       .tokens = toks};
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    int n = 0;
    for (const char *p = svg; (p = strstr(p, ">b</text>")); p++) n++;
    assert_int_equal(n, 2 + 3);
    char anchor[8];
    double xq = svg_text_x(svg, "b", anchor), xr = svg_text_x(svg, "step 0", anchor);
    assert_true(xr < xq); /* the first "b" is row 0's query label, right of the row label */
    free(svg);
}

/* The svg element's layout size, px: its viewBox (width and height are in points). */
static void svg_size(const char *svg, double *w, double *h) {
    const char *p = strstr(svg, "<svg ");
    assert_non_null(p);
    const char *vb = strstr(p, " viewBox=\"0 0 ");
    assert_non_null(vb);
    assert_int_equal(sscanf(vb, " viewBox=\"0 0 %lf %lf", w, h), 2);
}

/* 16 snapshots x 16 heads of 12 tokens: the usual 12 px a token made it 16 x (144 + 16) px of maps
 * plus the labels, 2730 px wide and 2800 tall, past the 2400 px every other figure keeps. Now the
 * maps shrink (fewer px a token) so both sides stay within 2400, every column is still named, and
 * the caller's note is drawn; 17 columns are refused, naming the count and the limit. */
static void test_filmstrip_16_by_16_within_2400_px(void **state) {
    tu_fixture *f = *state;
    enum { ROWS = 16, COLS = 16, T = 12 };
    static float att[ROWS * (COLS + 1) * T * T];
    for (int i = 0; i < ROWS * (COLS + 1) * T * T; i++) att[i] = 1.0f / T;
    static char rbuf[ROWS][40], cbuf[COLS + 1][16];
    static const char *rows[ROWS], *cols[COLS + 1];
    for (int r = 0; r < ROWS; r++) { snprintf(rbuf[r], sizeof rbuf[r], "step %d \xC2\xB7 acc 99.6 %%", 1000 * r); rows[r] = rbuf[r]; }
    for (int c = 0; c <= COLS; c++) { snprintf(cbuf[c], sizeof cbuf[c], "L%d H%d", c / 4, c % 4); cols[c] = cbuf[c]; }
    static const char *toks[T] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"};
    av_filmstrip fs = {.title = "reverse", .probe = "probe \"a b\"", .note = "16 of 192 heads", .rows = ROWS,
                       .cols = COLS, .T = T, .att = att, .row_labels = rows, .col_labels = cols, .tokens = toks};
    av_err e;
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    double w, h;
    svg_size(svg, &w, &h);
    if (w > 2400 || h > 2400) fail_msg("a 16 x 16 film strip is %g x %g px", w, h);
    for (int c = 0; c < COLS; c++) {
        char anchor[8];
        double x = svg_text_x(svg, cols[c], anchor);
        assert_true(x > 0 && x < w);
    }
    assert_true(svg_text_y(svg, "16 of 192 heads") < svg_text_y(svg, cols[0]));
    free(svg);
    fs.cols = COLS + 1;
    assert_int_equal(av_plot_filmstrip(tu_in(f, "fs17.svg"), &fs, &META, &e), AV_ERUNTIME);
    assert_non_null(strstr(e.msg, "16 x 17 maps"));
    assert_non_null(strstr(e.msg, "1..16"));
    assert_int_equal(access(tu_in(f, "fs17.svg"), F_OK), -1);
}

/* The px a token of row 0's maps (the pitch of its query labels) and the labels' font size, px. */
static void filmstrip_cell(const char *svg, double *cell, double *font) {
    *cell = svg_text_y(svg, "k1") - svg_text_y(svg, "k0");
    const char *hit, *open = svg_text_open(svg, "k0", &hit), *fsz = strstr(open, "font-size=\"");
    assert_true(fsz && fsz < hit);
    *font = atof(fsz + 11);
}

/* One head's strip (10 snapshots of 11 tokens) drew its single column of maps at the usual 12 px a token
 * with 10-px labels, 132 px on a page sized by its title (a new user's report: not legible when
 * projected). With few heads the maps now grow, the labels with them, and the snapshots stand in
 * groups side by side, while the figure stays within 1400 x 1800 px; the usual 8 heads keep one column
 * of snapshots and 12 px a token, with 9.6-px labels (12 / 1.25: one label's line a cell). The grouped
 * strip's note says how to read its rows (it said "rows: snapshots" of a page whose rows run down each
 * group, then the next). */
static void test_filmstrip_few_heads_grow(void **state) {
    tu_fixture *f = *state;
    enum { ROWS = 10, T = 11 };
    static float att[ROWS * 8 * T * T];
    for (int i = 0; i < ROWS * 8 * T * T; i++) att[i] = 1.0f / T;
    static char rbuf[ROWS][40];
    static const char *rows[ROWS];
    for (int r = 0; r < ROWS; r++) { snprintf(rbuf[r], sizeof rbuf[r], "step %d", r); rows[r] = rbuf[r]; }
    static const char *cols[8] = {"L0 H0", "L0 H1", "L0 H2", "L0 H3", "L1 H0", "L1 H1", "L1 H2", "L1 H3"};
    static const char *toks[T] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10"};
    av_filmstrip fs = {.title = "sort", .rows = ROWS, .cols = 1, .T = T, .att = att, .row_labels = rows,
                       .col_labels = cols, .tokens = toks};
    double cell, font, w, h;
    char *svg = filmstrip_svg(f, "one.svg", &fs);
    filmstrip_cell(svg, &cell, &font);
    svg_size(svg, &w, &h);
    if (!(cell > 12 && font > 10)) fail_msg("one head: %g px a token, %g-px labels", cell, font);
    if (w > 1400 || h > 1800) fail_msg("one head: %g x %g px", w, h);
    char anchor[8]; /* and its snapshots stand in groups side by side: the last row's label right of the first's */
    if (!(svg_text_x(svg, "step 9", anchor) > svg_text_x(svg, "step 0", anchor) + 100))
        fail_msg("one head: the snapshots are one column");
    assert_non_null(strstr(svg, ">rows: snapshots over training, down each group, then the next (acc: "));
    free(svg);
    fs.cols = 8;
    svg = filmstrip_svg(f, "eight.svg", &fs);
    filmstrip_cell(svg, &cell, &font);
    assert_true(fabs(cell - 12) < 1e-6 && fabs(font - 12 / 1.25) < 1e-6); /* a label's line fits its 12-px cell */
    assert_true(fabs(svg_text_x(svg, "step 9", anchor) - svg_text_x(svg, "step 0", anchor)) < 1e-6); /* one column */
    assert_null(strstr(svg, "down each group"));
    free(svg);
}

/* The font size of the first <text> whose content is `content`. */
static double svg_text_size(const char *svg, const char *content) {
    const char *hit, *open = svg_text_open(svg, content, &hit), *fsz = strstr(open, "font-size=\"");
    assert_true(fsz && fsz < hit);
    return atof(fsz + 11);
}

/* The x of the n-th (0-based) <text> whose content is `content`, or -1 if there are fewer. */
static double svg_text_x_nth(const char *svg, const char *content, int n) {
    char needle[256];
    snprintf(needle, sizeof needle, ">%s</text>", content);
    const char *hit = svg;
    for (int k = 0; k <= n; k++, hit++)
        if (!(hit = strstr(hit, needle))) return -1;
    hit--;
    const char *open = hit;
    while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
    return atof(open + 9); /* <text x=" */
}

/* 16 heads of an 11-token probe (reverse with --layers 2 --heads 8): the maps shrink to 10 px a token and
 * the token labels were 10 px, so each query label touched the next and each rotated key label its
 * neighbours (a figure-maker's report). Now a label's line (1.25 font sizes, plot.c's rule) fits the
 * cell pitch, the labels never go under 8 px, and where 8-px labels would not fit (16 heads of 24 tokens,
 * 5-px cells, whose labels were not drawn at all) every step-th token is labelled with its index
 * ("10: k10"), as the heat maps' thinned axes are. */
static void test_filmstrip_token_labels_do_not_touch(void **state) {
    tu_fixture *f = *state;
    enum { ROWS = 10, COLS = 16, TMAX = 24 };
    static float att[ROWS * COLS * TMAX * TMAX];
    for (int i = 0; i < ROWS * COLS * TMAX * TMAX; i++) att[i] = 0.1f;
    static char rbuf[ROWS][40], cbuf[COLS][16], tbuf[TMAX][16];
    static const char *rows[ROWS], *cols[COLS], *toks[TMAX];
    for (int r = 0; r < ROWS; r++) { snprintf(rbuf[r], sizeof rbuf[r], "step %d \xC2\xB7 acc 0.0 %%", r); rows[r] = rbuf[r]; }
    for (int c = 0; c < COLS; c++) { snprintf(cbuf[c], sizeof cbuf[c], "L%d H%d", c / 8, c % 8); cols[c] = cbuf[c]; }
    for (int t = 0; t < TMAX; t++) { snprintf(tbuf[t], sizeof tbuf[t], "k%d", t); toks[t] = tbuf[t]; }
    av_filmstrip fs = {.title = "reverse", .rows = ROWS, .cols = COLS, .T = 11, .att = att, .row_labels = rows,
                       .col_labels = cols, .tokens = toks};
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    double font = svg_text_size(svg, "k0"), dy = svg_text_y(svg, "k1") - svg_text_y(svg, "k0");
    /* the keys under map 0 of the last row: the (ROWS + 0)-th "k0" and "k1" (the first ROWS are queries) */
    double dx = svg_text_x_nth(svg, "k1", ROWS) - svg_text_x_nth(svg, "k0", ROWS);
    if (font < 8 || dy < 1.25 * font - 1e-6 || dx < 1.25 * font - 1e-6)
        fail_msg("16 heads of 11 tokens: %g-px labels %g px apart (queries), %g px apart (keys)", font, dy, dx);
    free(svg);
    fs.T = TMAX;
    svg = filmstrip_svg(f, "fs24.svg", &fs);
    assert_null(strstr(svg, ">k1</text>")); /* thinned */
    double y0 = svg_text_y(svg, "0: k0"), font24 = svg_text_size(svg, "0: k0");
    const char *next = strstr(svg, ">2: k2</text>") ? "2: k2" : strstr(svg, ">5: k5</text>") ? "5: k5" : "10: k10";
    double y1 = svg_text_y(svg, next);
    if (font24 < 8 || y1 - y0 < 1.25 * font24 - 1e-6)
        fail_msg("16 heads of 24 tokens: %g-px labels %g px apart (\"0: k0\" to \"%s\")", font24, y1 - y0, next);
    free(svg);
}

/* One head, one layer (--train reverse --heads 1 --layers 1): the maps and labels of the two groups of
 * snapshots were about 1100 px wide, but the figure took the width of its one-line title and legend,
 * 1358 px, so 150 px of blank stood left of the row labels and more right of the maps, with a second
 * group's label band as wide as the first's "(untrained)" label (a figure-maker's report). Now the
 * title and the legend break between their " · " pieces (as the curves' title does) and each group's
 * label band is its own: the row labels start within 30 px of the left edge, the keys end within 40 px
 * of the right edge, and every line of text fits the figure. The SVG's <title> keeps the whole title. */
static void test_filmstrip_one_head_is_tight(void **state) {
    tu_fixture *f = *state;
    enum { ROWS = 10, T = 11 };
    static float att[ROWS * T * T];
    for (int i = 0; i < ROWS * T * T; i++) att[i] = 1.0f / T;
    static const int steps[ROWS] = {0, 1, 2, 3, 4, 5, 7, 10, 14, 20};
    static char rbuf[ROWS][48];
    static const char *rows[ROWS], *cols[1] = {"L0 H0"};
    for (int r = 0; r < ROWS; r++) {
        snprintf(rbuf[r], sizeof rbuf[r], "step %d%s \xC2\xB7 acc 0.0 %%", steps[r], r ? "" : " (untrained)");
        rows[r] = rbuf[r];
    }
    static const char *toks[T] = {"3", "\xE2\x90\xA3" "1", "\xE2\x90\xA3" "4", "\xE2\x90\xA3" "1",
                                  "\xE2\x90\xA3" "5", "\xE2\x90\xA3>", "\xE2\x90\xA3" "5", "\xE2\x90\xA3" "1",
                                  "\xE2\x90\xA3" "4", "\xE2\x90\xA3" "1", "k10"};
    const char *title = "trained on reverse for 20 steps from random initialisation (seed 42) \xC2\xB7 1 layer, 1 head, "
                        "d_model 64 \xC2\xB7 learned positions, Pre-LN, \xC3\xB7\xE2\x88\x9A" "d_k";
    av_filmstrip fs = {.title = title, .probe = "probe \"3 1 4 1 5 >\" and its answer \" 5 1 4 1 3\"", .rows = ROWS,
                       .cols = 1, .T = T, .att = att, .row_labels = rows, .col_labels = cols, .tokens = toks};
    char *svg = filmstrip_svg(f, "fs.svg", &fs);
    double w, h;
    svg_size(svg, &w, &h);
    char anchor[8], want[400];
    av_text_metrics m;
    av_text_measure(rows[0], 13, 0, &m);
    double label_left = svg_text_x(svg, rows[0], anchor) - m.width;
    const char *last = NULL; /* the last "k10": the last group's last key */
    for (const char *p = strstr(svg, ">k10</text>"); p; p = strstr(p + 1, ">k10</text>")) last = p;
    assert_non_null(last);
    while (last > svg && strncmp(last, "<text ", 6) != 0) last--;
    double keys_right = atof(last + 9) + 10; /* x is the rotated label's baseline; 10 px covers its descent */
    if (label_left > 30 || w - keys_right > 40)
        fail_msg("one head: %g x %g px, %g px left of the row labels, %g px right of the keys", w, h, label_left,
                 w - keys_right);
    for (const char *p = strstr(svg, "<text "); p; p = strstr(p + 1, "<text ")) { /* every text inside */
        const char *gt = strchr(p, '>'), *lt = gt ? strchr(gt, '<') : NULL;
        assert_true(gt && lt);
        char text[600];
        snprintf(text, sizeof text, "%.*s", (int)(lt - gt - 1), gt + 1);
        double x = atof(p + 9), sz = atof(strstr(p, "font-size=\"") + 11);
        if (!strstr(p, "text-anchor=\"middle\"") || strstr(text, "&")) continue;
        av_text_measure(text, (float)sz, strstr(p, "font-weight") && strstr(p, "font-weight") < gt, &m);
        if (x - m.width / 2 < 0 || x + m.width / 2 > w) fail_msg("'%s' is %g px wide at x %g of %g", text, m.width, x, w);
    }
    snprintf(want, sizeof want, "<title>%s</title>", title);
    assert_non_null(strstr(svg, want));
    free(svg);
}

/* ------------------------------------------------------------------- curves */

/* How many <rect> of `w` x `h` px filled `fill` the SVG holds. */
static int svg_rects(const char *svg, int w, int h, const char *fill) {
    char want[96];
    snprintf(want, sizeof want, "width=\"%d\" height=\"%d\" fill=\"%s\"", w, h, fill);
    int n = 0;
    for (const char *p = strstr(svg, want); p; p = strstr(p + 1, want)) n++;
    return n;
}

/* A point with no line to either side: `--train --steps 1` has one training-batch loss, and it was a
 * 3 x 3 px dot at the panel's edge, hard to find (matplotlib's plot([1], [y]) draws nothing). Now such
 * a point is drawn as a 6 x 6 marker: the one-point series and the point a NaN cuts off; a line's
 * points are not. */
static void test_curves_lone_point_is_a_marker(void **state) {
    tu_fixture *f = *state;
    static const double x1[1] = {1}, y1[1] = {5.65};
    static const double x5[5] = {0, 1, 2, 3, 4};
    double y5[5] = {1, 2, NAN, 4, 3};  /* points 0-1 a line; 3-4 a line */
    double y6[5] = {1, NAN, 2, NAN, 3}; /* three lone points */
    av_series s[3] = {{.label = "one point", .x = x1, .y = y1, .n = 1},
                      {.label = "lines", .x = x5, .y = y5, .n = 5},
                      {.label = "lone", .x = x5, .y = y6, .n = 5}};
    av_curve_panel p = {.title = "loss", .y_label = "loss", .s = s, .n_series = 3};
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "c.svg"), &p, 1, "lone points", "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "c.svg"), NULL);
    assert_non_null(svg);
    assert_int_equal(svg_rects(svg, 6, 6, "#1f77b4"), 1); /* tab10's first colour: the one point */
    assert_int_equal(svg_rects(svg, 6, 6, "#ff7f0e"), 0); /* the lines have no marker */
    assert_int_equal(svg_rects(svg, 6, 6, "#2ca02c"), 3); /* each lone point one */
    free(svg);
}

/* A title wider than the panels breaks between its " · " pieces over up to 3 lines, each centred,
 * and the figure keeps the panels' width: a --compare title naming its fixed settings was drawn on one
 * line and widened the figure by about 210 px of blank (a figure-maker's report). The SVG's <title>
 * keeps the whole title. */
static void test_curves_long_title_breaks_between_pieces(void **state) {
    tu_fixture *f = *state;
    static const double x[2] = {0, 1}, y[2] = {1, 2};
    av_series s = {.label = "s", .x = x, .y = y, .n = 2};
    av_curve_panel p = {.title = "loss", .y_label = "loss", .s = &s, .n_series = 1};
    const char *title = "a first piece of the title · a second piece of the title · a third piece";
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "c.svg"), &p, 1, "short", "step", &META, &e), AV_OK);
    char *one = tu_slurp_file(tu_in(f, "c.svg"), NULL);
    assert_int_equal(av_plot_curves(tu_in(f, "c.svg"), &p, 1, title, "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "c.svg"), NULL);
    assert_non_null(one);
    assert_non_null(svg);
    int w1 = atoi(strstr(one, "width=\"") + 7), w = atoi(strstr(svg, "width=\"") + 7);
    assert_int_equal(w, w1); /* one panel: the short title's width */
    char want[256];
    snprintf(want, sizeof want, "<title>%s</title>", title);
    assert_non_null(strstr(svg, want));
    int lines = 0;
    for (const char *q = svg; (q = strstr(q, " piece of the title</text>")) != NULL; q++) lines++;
    assert_true(lines >= 2); /* "a first piece of the title" and "a second piece of the title" end lines */
    assert_non_null(strstr(svg, ">a third piece</text>"));
    free(one);
    free(svg);
}

/* A curve is a vector line in the SVG: one <polyline> through its points, clipped to the axes,
 * as matplotlib's SVG draws it. It was a <rect> per pixel column (7,907 in one curves.svg, a
 * staircase when zoomed: a figure-maker's report). A NaN breaks the line in two; the PNG keeps
 * its drawing (the other tests here). */
static void test_curves_svg_lines_are_polylines(void **state) {
    tu_fixture *f = *state;
    static const double x[6] = {0, 1, 2, 3, 4, 5};
    double y[6] = {1, 3, 2, 4, NAN, 5}, y2[6] = {2, 2, 2, 2, 2, 2};
    av_series s[2] = {{.label = "a", .x = x, .y = y, .n = 6}, {.label = "b", .x = x, .y = y2, .n = 6}};
    av_curve_panel p = {.title = "loss", .y_label = "loss", .s = s, .n_series = 2};
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "c.svg"), &p, 1, "lines", "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "c.svg"), NULL);
    assert_non_null(svg);
    int lines = 0, points[3] = {0, 0, 0};
    for (const char *q = svg; (q = strstr(q, "<polyline ")) != NULL; q++) {
        const char *pts = strstr(q, "points=\""), *end = pts ? strchr(pts + 8, '"') : NULL;
        assert_non_null(end);
        if (lines < 3)
            for (const char *c = pts + 8; c < end; c++) points[lines] += *c == ',';
        lines++;
        assert_non_null(strstr(q, "clip-path=\"url(#line"));
    }
    assert_int_equal(lines, 2); /* series a: points 0-3, then 5 alone (a marker); series b: points 0-5 */
    assert_int_equal(points[0], 4);
    assert_int_equal(points[1], 6);
    assert_int_equal(svg_rects(svg, 6, 6, "#1f77b4"), 1); /* a's lone point 5 */
    free(svg);
}

/* A symlog step axis: the ticks 0, 1, 10, 100, 1000 are about evenly spaced, the last step (4000) gets its
 * own tick, and each tick sits where matplotlib's symlog (base 10, linthresh 1, linscale 1:
 * SymmetricalLogTransform, u(x) = x / 0.9 up to 1, then 1 / 0.9 + log10 x) puts it on [0, 4000]. The
 * fractions u(x) / u(4000), worked by hand: 1 0.235746, 10 0.447917, 100 0.660089, 1000 0.872260. The axis
 * used to be log10(1 + x), which drew 0..1 a third of a decade wide and 1..10 a quarter short (a new
 * user's report). On the linear axis before that, the 7 log-spaced snapshots up to step 100 of 4000 sat
 * in its first 2.5 %. */
static void test_curves_symlog_steps(void **state) {
    tu_fixture *f = *state;
    static const double x[3] = {0, 9, 4000}, y[3] = {1, 2, 3};
    static const double frac[5] = {0, 0.235746, 0.447917, 0.660089, 0.872260};
    av_series s = {.label = "s", .x = x, .y = y, .n = 3, .markers = 1};
    av_curve_panel p = {.title = "loss", .y_label = "loss", .s = &s, .n_series = 1, .x_symlog = 1};
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "c.svg"), &p, 1, "symlog", "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "c.svg"), NULL);
    assert_non_null(svg);
    char anchor[8];
    double t[6];
    const char *const labels[6] = {"0", "1", "10", "100", "1000", "4000"};
    for (int k = 0; k < 6; k++) t[k] = svg_text_x(svg, labels[k], anchor);
    for (int k = 1; k < 5; k++) /* tick labels are placed at whole pixels: within 1 px */
        if (fabs(t[k] - t[0] - frac[k] * (t[5] - t[0])) > 1.0)
            fail_msg("tick %s at %g, expected %g", labels[k], t[k], t[0] + frac[k] * (t[5] - t[0]));
    free(svg);
}

/* A y axis from the data has matplotlib's margins (axes.ymargin 0.05): a loss from 5.66 down to 1e-4
 * spans [1e-4 - 0.283, 5.66 + 0.283], so its 0 tick is drawn. The axis ran from 1e-4 exactly, so a
 * loss that reached 0 had no 0 tick, and the highest point lay on the frame (new users' reports). The
 * label "0" must be there, and "1" above it by a fifth of the way from "0" to "5" (ticks are linear). */
static void test_curves_y_margins_show_zero(void **state) {
    tu_fixture *f = *state;
    static const double x[3] = {10, 20, 30}, y[3] = {5.66, 2.0, 1e-4};
    av_series s = {.label = "s", .x = x, .y = y, .n = 3};
    av_curve_panel p = {.title = "loss", .y_label = "loss (nats)", .s = &s, .n_series = 1};
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "m.svg"), &p, 1, "margins", "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "m.svg"), NULL);
    assert_non_null(svg);
    double yv[3];
    const char *const labels[3] = {"0", "1", "5"};
    for (int k = 0; k < 3; k++) {
        const char *hit, *open = svg_text_open(svg, labels[k], &hit);
        const char *ya = strstr(open, " y=\"");
        assert_true(ya && ya < hit);
        assert_int_equal(sscanf(ya, " y=\"%lf\"", &yv[k]), 1);
    }
    assert_true(yv[0] > yv[2]); /* 0 below 5 */
    if (fabs((yv[0] - yv[1]) - (yv[0] - yv[2]) / 5) > 1.0) fail_msg("ticks 0 %g, 1 %g, 5 %g", yv[0], yv[1], yv[2]);
    free(svg);
}

/* The y labels of an axis share the decimals of its step, as matplotlib's ScalarFormatter writes them
 * (plt.plot on [0, 1] labels 0.0, 0.2, ... 1.0; a loss from 2.3 to 5.7, step 0.5, 2.5, 3.0, ... 5.5).
 * "%g" wrote 0, 0.2, ... 1 and 2.5, 3, 3.5 on one axis (a figure-maker's report). Steps 1 and up keep
 * whole numbers (the accuracy's 0, 20, ... 100; test_curves_y_margins_show_zero's 0, 1, 5). */
static void test_curves_y_labels_share_their_decimals(void **state) {
    tu_fixture *f = *state;
    /* steps 10..30: the x labels 10, 15, ... 30 are none of the y labels checked */
    static const double x[3] = {10, 20, 30}, y[3] = {5.7, 4.0, 2.3}, w[3] = {0.1, 0.5, 0.9};
    av_series s[2] = {{.label = "loss", .x = x, .y = y, .n = 3}, {.label = "weight", .x = x, .y = w, .n = 3}};
    av_curve_panel p[2] = {{.title = "loss", .y_label = "loss", .s = &s[0], .n_series = 1},
                           {.title = "weight", .y_label = "weight", .s = &s[1], .n_series = 1, .ymin = 0, .ymax = 1}};
    av_err e;
    assert_int_equal(av_plot_curves(tu_in(f, "d.svg"), p, 2, "decimals", "step", &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "d.svg"), NULL);
    assert_non_null(svg);
    static const char *const want[] = {"2.5", "3.0", "3.5", "4.0", "4.5", "5.0", "5.5",
                                       "0.0", "0.2", "0.4", "0.6", "0.8", "1.0"};
    static const char *const not_[] = {">3</text>", ">4</text>", ">5</text>", ">0</text>", ">1</text>"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char needle[32];
        snprintf(needle, sizeof needle, ">%s</text>", want[k]);
        if (!strstr(svg, needle)) fail_msg("no y label %s", want[k]);
    }
    for (size_t k = 0; k < sizeof not_ / sizeof not_[0]; k++)
        if (strstr(svg, not_[k])) fail_msg("a label without the step's decimals: %s", not_[k]);
    free(svg);
}

/* --compare's variants share their first steps (the same data and seed), and the last series drawn hid
 * the others there: compare_scale's loss showed no blue line up to step 35 (new users' reports). With
 * underlay each series is 2 px wider than the next: of two identical series the first's line is
 * stroked 4.5 px wide in the SVG, the second's 2.5, so the first shows as a band around the second;
 * without underlay both are 2.5 px. */
static void test_curves_underlay_shows_coinciding_series(void **state) {
    tu_fixture *f = *state;
    static const double x[4] = {0, 1, 2, 3}, y[4] = {5, 4, 2, 1};
    av_series s[2] = {{.label = "a", .x = x, .y = y, .n = 4}, {.label = "b", .x = x, .y = y, .n = 4}};
    for (int under = 0; under < 2; under++) {
        av_curve_panel p = {.title = "loss", .y_label = "loss", .s = s, .n_series = 2, .underlay = under};
        av_err e;
        assert_int_equal(av_plot_curves(tu_in(f, "u.svg"), &p, 1, "underlay", "step", &META, &e), AV_OK);
        char *svg = tu_slurp_file(tu_in(f, "u.svg"), NULL);
        assert_non_null(svg);
        double width[2] = {0, 0};
        static const char *const stroke[2] = {"stroke=\"#1f77b4\" stroke-width=\"", "stroke=\"#ff7f0e\" stroke-width=\""};
        for (int k = 0; k < 2; k++) {
            const char *sw = strstr(svg, stroke[k]);
            if (!sw) fail_msg("no line of series %d", k);
            width[k] = strtod(sw + strlen(stroke[k]), NULL);
        }
        if (under && !(width[0] == 4.5 && width[1] == 2.5))
            fail_msg("underlay: the first line %g px wide, the second %g", width[0], width[1]);
        if (!under && !(width[0] == 2.5 && width[1] == 2.5))
            fail_msg("no underlay: the lines %g and %g px wide", width[0], width[1]);
        free(svg);
    }
}

/* A GIF that does not fit (RLIMIT_FSIZE 4 KiB, SIGXFSZ ignored: writes fail with EFBIG as on a full disk)
 * says why in the system's words; it said giflib's "Failed to write to given file" (a new user's report).
 * No temporary stays. Frames of noise, so giflib's LZW cannot fit them in 4 KiB. */
/* The PNG's size and pHYs, and the SVG's width and height attributes, of a figure drawn by draw(path, meta). */
typedef struct { int w, h; double dpi, svg_w, svg_h; } fig_size;
static fig_size size_of(tu_fixture *f, av_status (*draw)(const char *, const av_plot_meta *), const av_plot_meta *m) {
    fig_size z = {0};
    assert_int_equal(draw(tu_in(f, "x.png"), m), AV_OK);
    assert_int_equal(draw(tu_in(f, "x.svg"), m), AV_OK);
    av_png_image img;
    av_err e = {{0}};
    assert_int_equal(av_png_read(tu_in(f, "x.png"), &img, &e), AV_OK);
    z.w = img.width, z.h = img.height, z.dpi = img.dpi;
    av_png_image_free(&img);
    char *svg = tu_slurp_file(tu_in(f, "x.svg"), NULL);
    assert_non_null(svg);
    const char *open = strstr(svg, "<svg ");
    assert_non_null(open);
    assert_non_null(strstr(open, "width=\""));
    z.svg_w = atof(strstr(open, "width=\"") + 7);
    z.svg_h = atof(strstr(open, "height=\"") + 8);
    free(svg);
    return z;
}

static av_status draw_strip(const char *path, const av_plot_meta *m) {
    enum { T = 4 };
    static float att[2 * 2 * T * T];
    for (int i = 0; i < 2 * 2 * T * T; i++) att[i] = (float)(i % 7) / 6;
    static const char *rows[2] = {"step 0", "step 10"}, *cols[2] = {"L0 H0", "L0 H1"}, *toks[T] = {"a", "b", "c", "d"};
    av_filmstrip fs = {.title = "t", .rows = 2, .cols = 2, .T = T, .att = att, .row_labels = rows, .col_labels = cols,
                       .tokens = toks};
    av_err e;
    return av_plot_filmstrip(path, &fs, m, &e);
}

static av_status draw_curves(const char *path, const av_plot_meta *m) {
    static const double x[4] = {0, 1, 2, 3}, y[4] = {3, 2, 1.5, 1};
    av_series s = {.label = "loss", .x = x, .y = y, .n = 4};
    av_curve_panel p = {.title = "loss", .y_label = "nats", .s = &s, .n_series = 1};
    av_err e;
    return av_plot_curves(path, &p, 1, "curves", "step", m, &e);
}

/* --dpi and --scale with --train: the film strip, the curves and the GIF were drawn at 100 dpi and scale 1
 * whatever the options (a figure-maker's report: a 300-dpi film strip for a printed page could not be
 * had, and nothing redraws it later). They follow plot.h's rule for every figure: each length times
 * f = scale × dpi / 100, pHYs = dpi (PNG spec 11.3.5.3: pixels per metre = dpi / 0.0254), and the SVG's
 * size follows scale only (its printed size does not grow with dpi). The 100-dpi figure is the reference:
 * 2 × its pixels at dpi 200, the same SVG size; 1.5 × both at scale 1.5; a curve's stroke 2.5 px at
 * f = 1 (2 px, 1 px past each end, svgout.c) is 3.75 at scale 1.5. */
static void test_dpi_and_scale_multiply_training_figures(void **state) {
    tu_fixture *f = *state;
    av_status (*draws[2])(const char *, const av_plot_meta *) = {draw_strip, draw_curves};
    for (int d = 0; d < 2; d++) {
        fig_size base = size_of(f, draws[d], &META);
        av_plot_meta m = META;
        m.dpi = 200;
        fig_size at200 = size_of(f, draws[d], &m);
        m.dpi = 0;
        m.scale = 1.5f;
        fig_size big = size_of(f, draws[d], &m);
        if (at200.w != 2 * base.w || at200.h != 2 * base.h || fabs(at200.dpi - 200) > 0.1 || base.dpi < 99.9 ||
            base.dpi > 100.1 || at200.svg_w != base.svg_w || at200.svg_h != base.svg_h)
            fail_msg("figure %d at 200 dpi: %d x %d px, %.1f dpi, svg %g x %g; at 100: %d x %d px, %.1f dpi, svg %g x %g",
                     d, at200.w, at200.h, at200.dpi, at200.svg_w, at200.svg_h, base.w, base.h, base.dpi, base.svg_w,
                     base.svg_h);
        if (big.w != (int)lrint(1.5 * base.w) || big.h != (int)lrint(1.5 * base.h) ||
            fabs(big.svg_w - 1.5 * base.svg_w) > 1 || fabs(big.svg_h - 1.5 * base.svg_h) > 1)
            fail_msg("figure %d at scale 1.5: %d x %d px, svg %g x %g; at 1: %d x %d, svg %g x %g", d, big.w, big.h,
                     big.svg_w, big.svg_h, base.w, base.h, base.svg_w, base.svg_h);
    }
    char *svg = tu_slurp_file(tu_in(f, "x.svg"), NULL); /* the curves at scale 1.5, drawn last */
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<polyline "));
    /* 3.75 exactly: "%.1f" wrote 3.8, and 1.2 for scale 0.5's 1.25, a line 4 % thinner than the PNG's (a
     * tester's report) */
    assert_non_null(strstr(strstr(svg, "<polyline "), "stroke-width=\"3.75\""));
    free(svg);
}

/* A figure stays within AV_PLOT_MAX_PX a side whatever dpi: a 16 x 16 film strip of 24 tokens is close to
 * AV_FILMSTRIP_MAX_PX at 100 dpi, so 600 dpi (f = 6) would make it over 14,000 px; f is lowered to fit. */
static void test_training_figures_stay_within_the_pixel_bound(void **state) {
    tu_fixture *f = *state;
    enum { R = 16, C = 16, T = 24 };
    float *att = calloc((size_t)R * C * T * T, sizeof *att);
    assert_non_null(att);
    const char *rows[R], *cols[C], *toks[T];
    for (int i = 0; i < R; i++) rows[i] = "step 1000 Â· acc 100.0 %";
    for (int i = 0; i < C; i++) cols[i] = "L9 H9";
    for (int i = 0; i < T; i++) toks[i] = "w";
    av_filmstrip fs = {.title = "t", .rows = R, .cols = C, .T = T, .att = att, .row_labels = rows, .col_labels = cols,
                       .tokens = toks};
    av_plot_meta m = META;
    m.dpi = 600;
    av_err e;
    assert_int_equal(av_plot_filmstrip(tu_in(f, "big.png"), &fs, &m, &e), AV_OK);
    free(att);
    av_png_image img;
    assert_int_equal(av_png_read(tu_in(f, "big.png"), &img, &e), AV_OK);
    assert_true(img.width <= AV_PLOT_MAX_PX && img.height <= AV_PLOT_MAX_PX);
    assert_true(img.width > AV_PLOT_MAX_PX * 9 / 10 || img.height > AV_PLOT_MAX_PX * 9 / 10); /* lowered, not dropped */
    av_png_image_free(&img);
}

static void test_gif_on_a_full_disk_says_why(void **state) {
    tu_fixture *f = *state;
    enum { W = 96, H = 96 };
    static unsigned char px[W * H * 3];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof px; i++) x = x * 1664525u + 1013904223u, px[i] = (unsigned char)(x >> 24);
    const unsigned char *frames[2] = {px, px};
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit small = {4096, old.rlim_max}; /* the soft limit only, so it can be raised back */
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    av_err err = {{0}};
    av_status st = av_gif_write(tu_in(f, "a.gif"), frames, 2, W, H, 80, AV_CMAP_VIRIDIS, NULL, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, was);
    assert_int_equal(st, AV_ERUNTIME);
    char want[4200];
    snprintf(want, sizeof want, "cannot write %s: File too large", tu_sh_word(tu_in(f, "a.gif")));
    assert_string_equal(err.msg, want);
    assert_int_equal(count_entries(f->dir), 0);
}

/* Squared distance of two sRGB colours. */
static int rgb_d2(const unsigned char *a, const unsigned char *b) {
    int d2 = 0;
    for (int c = 0; c < 3; c++) d2 += (a[c] - b[c]) * (a[c] - b[c]);
    return d2;
}

/* attention.gif's cells keep their colour map's colours: giflib's GifQuantizeBuffer (5 bits a channel, a
 * median cut per frame) drew a weight of 0.398, viridis #2a778e, as #287088 and the colour bar in ~25 bands
 * (a figure-maker's report). Frames: a colour-bar ramp of all 256 entries of the map (the second frame
 * reversed), a grey ramp 0..255 (anti-aliased text), the figure's own greys (white, #222 text, #333 spines,
 * the hatch's #E4E4E4 and #8C8C8C) and the 0.398 cell. Bound: the palette holds every table entry or both
 * its neighbours, so pixel j is no farther from entry j than the farther of entries j − 1 and j + 1 (for
 * viridis at most 3.7 in 0..255 units, one table step); a grey at most 5 levels (the palette's widest gap
 * of grey levels is 11); the figure's greys exactly. Expected colours are colormap.c's tables
 * (matplotlib's). */
static void test_gif_keeps_the_colour_maps_colours(void **state) {
    tu_fixture *f = *state;
    enum { W = 256, H = 40 };
    static unsigned char px[2][W * H * 3];
    static const unsigned char figure_greys[6] = {0xFF, 0x22, 0x33, 0xE4, 0x8C, 0x00};
    static const unsigned char cell[3] = {0x2a, 0x77, 0x8e}; /* viridis at 0.398: entry floor(0.398 · 256) = 101 */
    const av_cmap maps[2] = {AV_CMAP_VIRIDIS, AV_CMAP_MAGMA};
    for (int m = 0; m < 2; m++) {
        for (int k = 0; k < 2; k++)
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    unsigned char *p = px[k] + ((size_t)y * W + x) * 3;
                    int j = k ? 255 - x : x;
                    if (y < 10) av_cmap_entry(maps[m], j, p);
                    else if (y < 20) p[0] = p[1] = p[2] = (unsigned char)j;
                    else p[0] = p[1] = p[2] = figure_greys[x / 43];
                }
        if (m == 0) memcpy(px[0] + ((size_t)30 * W + 10) * 3, cell, 3);
        const unsigned char *frames[2] = {px[0], px[1]};
        av_err err = {{0}};
        assert_int_equal(av_gif_write(tu_in(f, "a.gif"), frames, 2, W, H, 80, maps[m], NULL, &err), AV_OK);
        int gerr = 0;
        GifFileType *g = DGifOpenFileName(tu_in(f, "a.gif"), &gerr);
        assert_non_null(g);
        assert_int_equal(DGifSlurp(g), GIF_OK);
        assert_int_equal(g->ImageCount, 2);
        for (int k = 0; k < 2; k++) {
            const SavedImage *im = &g->SavedImages[k];
            const ColorMapObject *cm = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
            assert_non_null(cm);
            assert_int_equal(im->ImageDesc.Width, W);
            assert_int_equal(im->ImageDesc.Height, H);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    const GifColorType *c = &cm->Colors[im->RasterBits[(size_t)y * W + x]];
                    const unsigned char got[3] = {c->Red, c->Green, c->Blue}, *want = px[k] + ((size_t)y * W + x) * 3;
                    int j = k ? 255 - x : x, bound2 = 0;
                    int entry = y < 10 ? j : m == 0 && k == 0 && y == 30 && x == 10 ? 101 : -1; /* its table entry */
                    if (entry >= 0) {
                        for (int nb = entry - 1; nb <= entry + 1; nb += 2) {
                            unsigned char e[3];
                            av_cmap_entry(maps[m], nb < 0 ? 1 : nb > 255 ? 254 : nb, e);
                            int d2 = rgb_d2(e, want);
                            bound2 = d2 > bound2 ? d2 : bound2;
                        }
                    } else if (y < 20) {
                        bound2 = 3 * 5 * 5;
                    }
                    if (rgb_d2(got, want) > bound2)
                        fail_msg("%s, frame %d, pixel (%d, %d): #%02x%02x%02x drawn #%02x%02x%02x, %.1f apart, bound %.1f",
                                 av_cmap_name(maps[m]), k, x, y, want[0], want[1], want[2], got[0], got[1], got[2],
                                 sqrt(rgb_d2(got, want)), sqrt(bound2));
                }
        }
        DGifCloseFile(g, &gerr);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_curves_lone_point_is_a_marker, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_probe_line, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_labels_queries, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gif_on_a_full_disk_says_why, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dpi_and_scale_multiply_training_figures, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_training_figures_stay_within_the_pixel_bound, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gif_keeps_the_colour_maps_colours, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_few_heads_grow, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_token_labels_do_not_touch, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_one_head_is_tight, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_long_title_breaks_between_pieces, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_svg_lines_are_polylines, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_symlog_steps, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_y_margins_show_zero, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_y_labels_share_their_decimals, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_curves_underlay_shows_coinciding_series, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_16_by_16_within_2400_px, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_long_row_label_inside_figure, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
