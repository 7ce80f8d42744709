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

/* The x of the <text> whose content is `content` and its anchor ("start",
 * "middle" or "end"); fails the test if there is none. */
static double svg_text_x(const char *svg, const char *content, char anchor[8]) {
    char needle[256];
    snprintf(needle, sizeof needle, ">%s</text>", content);
    const char *hit = strstr(svg, needle);
    assert_non_null(hit);
    const char *open = hit;
    while (open > svg && strncmp(open, "<text ", 6) != 0) open--;
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_filmstrip_long_row_label_inside_figure, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
