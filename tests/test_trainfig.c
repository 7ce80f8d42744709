/* test_trainfig.c - the training figures (render/trainfig.h): the film strip's
 * layout and the learning curves, read back from their SVG files.
 *
 * Like test_plot.c these check structure, never one font's pixels: where a
 * <text> is anchored against the width the text layout measures, and how
 * many markers a curve draws.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render/textlayout.h"
#include "render/trainfig.h"
#include "testutil.h"

static const av_plot_meta META = {.software = "attnviz test", .description = "attnviz --train reverse"};

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
    av_err e;
    assert_int_equal(av_plot_filmstrip(tu_in(f, "fs.svg"), &fs, &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "fs.svg"), NULL);
    assert_non_null(svg);
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
    av_err e;
    assert_int_equal(av_plot_filmstrip(tu_in(f, "fs.svg"), &fs, &META, &e), AV_OK);
    char *svg = tu_slurp_file(tu_in(f, "fs.svg"), NULL);
    assert_non_null(svg);
    char esc[300];
    size_t k = 0;
    for (const char *c = probe; *c; c++) {
        if (*c == '"') k += (size_t)snprintf(esc + k, sizeof esc - k, "&quot;");
        else esc[k++] = *c;
    }
    esc[k] = 0;
    double yt = svg_text_y(svg, "t"), yp = svg_text_y(svg, esc), yc = svg_text_y(svg, "L0 H0");
    double yn = svg_text_y(svg, "rows: snapshots over training \xC2\xB7 columns: layer L, head H \xC2\xB7 each map: query "
                                "(row) \xC3\x97 key (column), weight 0 (dark) .. 1 (yellow); hatched = causal mask");
    assert_true(yt < yp && yp + 13 <= yn && yn + 13 <= yc);
    char anchor[8];
    double x = svg_text_x(svg, esc, anchor);
    av_text_metrics m;
    av_text_measure(probe, 13, 0, &m);
    assert_string_equal(anchor, "middle");
    assert_true(x - m.width / 2 >= 0);
    free(svg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_filmstrip_probe_line, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_filmstrip_long_row_label_inside_figure, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
