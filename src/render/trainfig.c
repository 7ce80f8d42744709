/* trainfig.c - learning curves, the attention film strip and the GIF writer
 * (see trainfig.h). Layouts go into a display list (raster.h) and out
 * through av_plot_write, so PNG and SVG come from the same pixels. */
#include "render/trainfig.h"

#include <gif_lib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"

static const av_rgb WHITE = {255, 255, 255};
static const av_rgb INK = {0x22, 0x22, 0x22};
static const av_rgb GRID = {0xE6, 0xE6, 0xE6};
static const av_rgb TAB10[10] = {{0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c}, {0xd6, 0x27, 0x28},
                                 {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b}, {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f},
                                 {0xbc, 0xbd, 0x22}, {0x17, 0xbe, 0xcf}};

/* ---------------------------------------------------------------------------- curves */

enum { PW = 420, PH = 300, PAD_L = 64, PAD_R = 18, PAD_T = 40, PAD_B = 56, LEG_LINE = 18, LEG_COLS = 2, MARKER = 6 };

typedef struct {
    double x0, x1, y0, y1; /* data range */
    int bx0, by0, bx1, by1; /* axes box, px */
    int xlog;               /* av_curve_panel.x_symlog */
} axes;

/* x as the axis draws it: x, or matplotlib's symlog with base 10, linthresh 1
 * and linscale 1 (matplotlib.scale.SymmetricalLogTransform): linear up to 1,
 * x / (1 - 1/10), then 1 / (1 - 1/10) + log10(x), so 0, 1, 10, 100 sit
 * 1.11, 1, 1 decades apart. x < 0 (never a step) counts as 0. */
static double x_scaled(const axes *a, double x) {
    if (!a->xlog) return x;
    const double linscale_adj = 1 / (1 - 1 / 10.0);
    return x <= 1 ? fmax(x, 0) * linscale_adj : linscale_adj + log10(x);
}

static float px_x(const axes *a, double x) {
    double u0 = x_scaled(a, a->x0), u1 = x_scaled(a, a->x1);
    return (float)(a->bx0 + (x_scaled(a, x) - u0) / (u1 - u0) * (a->bx1 - a->bx0));
}
static float px_y(const axes *a, double y) { return (float)(a->by1 - (y - a->y0) / (a->y1 - a->y0) * (a->by1 - a->by0)); }

/* A series' marker: a MARKER-px filled square centred on (x, y), `extra` px
 * more on each side. */
static void marker(av_dlist *dl, float x, float y, av_rgb c, int extra) {
    int x0 = (int)lrintf(x) - MARKER / 2 - extra, y0 = (int)lrintf(y) - MARKER / 2 - extra;
    av_dl_rect(dl, x0, y0, x0 + MARKER + 2 * extra, y0 + MARKER + 2 * extra, c);
}

/* A round tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double nice_step(double span) {
    double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void data_range(const av_curve_panel *p, axes *a) {
    a->x0 = INFINITY; a->x1 = -INFINITY; a->y0 = INFINITY; a->y1 = -INFINITY;
    for (int s = 0; s < p->n_series; s++)
        for (int i = 0; i < p->s[s].n; i++) {
            double x = p->s[s].x[i], y = p->s[s].y[i];
            if (!isfinite(y)) continue;
            a->x0 = fmin(a->x0, x); a->x1 = fmax(a->x1, x);
            a->y0 = fmin(a->y0, y); a->y1 = fmax(a->y1, y);
        }
    a->xlog = p->x_symlog;
    if (a->xlog) a->x0 = 0; /* every panel from step 0, the loss too (its first point is step 1) */
    if (!(a->x1 > a->x0)) { a->x0 = isfinite(a->x0) ? a->x0 - 1 : 0; a->x1 = a->x0 + 2; }
    if (p->ymin != 0 || p->ymax != 0) { a->y0 = p->ymin; a->y1 = p->ymax; }
    if (!(a->y1 > a->y0)) { a->y0 = isfinite(a->y0) ? a->y0 - 1 : 0; a->y1 = a->y0 + 2; }
    else if (p->ymin == 0 && p->ymax == 0) { /* matplotlib's axes.ymargin: 5 % of the span above and below, so the */
        double m = 0.05 * (a->y1 - a->y0); /* highest point is not on the frame and a loss near 0 shows its 0 tick */
        a->y0 -= m;
        a->y1 += m;
    }
}

/* One x tick: its grid line and label. */
static void x_tick(av_dlist *dl, const axes *a, double x) {
    char buf[32];
    int px = (int)lrintf(px_x(a, x));
    av_dl_rect(dl, px, a->by0, px + 1, a->by1, GRID);
    snprintf(buf, sizeof buf, "%g", x);
    av_dl_text_run(dl, buf, (float)px, (float)a->by1 + 18, 13, AV_ANCHOR_MIDDLE, 0, 0, INK);
}

static void emit_ticks(av_dlist *dl, const axes *a) {
    char buf[32];
    double sx = fmax(1.0, nice_step(a->x1 - a->x0)), sy = nice_step(a->y1 - a->y0); /* x counts steps */
    if (a->xlog) { /* 0, 1, 10, 100, ...; and the last step when it is a fair way past the last of those */
        double last = 0;
        for (double x = 0; x <= a->x1 + 1e-9; x = x == 0 ? 1 : x * 10) x_tick(dl, a, last = x);
        if (x_scaled(a, a->x1) - x_scaled(a, last) > 0.3) x_tick(dl, a, a->x1);
    }
    for (double x = ceil(a->x0 / sx) * sx; !a->xlog && x <= a->x1 + 1e-9 * sx; x += sx) x_tick(dl, a, x);
    /* every y label with the decimals of the step, as matplotlib's ScalarFormatter: 0.0, 0.2, ... 1.0 and
     * 2.5, 3.0, 3.5; "%g" gave 0, 0.2, ... 1 and 2.5, 3, 3.5 (a figure-maker's report) */
    int decimals = sy < 1 ? (int)ceil(-log10(sy) - 1e-9) : 0;
    for (double y = ceil(a->y0 / sy) * sy; y <= a->y1 + 1e-9 * sy; y += sy) {
        int py = (int)lrintf(px_y(a, y));
        av_dl_rect(dl, a->bx0, py, a->bx1, py + 1, GRID);
        snprintf(buf, sizeof buf, "%.*f", decimals, fabs(y) < 1e-12 * sy ? 0.0 : y);
        av_dl_text_run(dl, buf, (float)a->bx0 - 6, (float)py + 4, 13, AV_ANCHOR_END, 0, 0, INK);
    }
}

/* Labelled series of a panel (the legend's entries). */
static int n_labelled(const av_curve_panel *p) {
    int n = 0;
    for (int s = 0; s < p->n_series; s++) n += p->s[s].label != NULL;
    return n;
}

/* Rows the panel's legend takes; its note, if any, is one more. */
static int legend_rows(const av_curve_panel *p) { return (n_labelled(p) + LEG_COLS - 1) / LEG_COLS; }

/* The legend under the panel's x-axis title, LEG_COLS entries a row, so it
 * never covers a curve. */
static void emit_legend(av_dlist *dl, const av_curve_panel *p, int x0, int y0) {
    int k = 0, col_w = (PW - PAD_L - PAD_R) / LEG_COLS;
    for (int s = 0; s < p->n_series; s++) {
        const av_series *se = &p->s[s];
        if (!se->label) continue;
        int lx = x0 + (k % LEG_COLS) * col_w, ly = y0 + (k / LEG_COLS) * LEG_LINE;
        int extra = p->underlay ? p->n_series - 1 - s : 0; /* as wide as its line */
        av_dl_rect(dl, lx, ly + 4 - extra, lx + 18, ly + 7 + extra, TAB10[s % 10]);
        if (se->markers) marker(dl, lx + 9.5f, ly + 5.5f, TAB10[s % 10], 0);
        av_dl_text_run(dl, se->label, (float)lx + 22, (float)ly + 10, 12, AV_ANCHOR_START, 0, 0, INK);
        k++;
    }
}

static void emit_panel(av_dlist *dl, const av_curve_panel *p, int x0, int y0, const char *x_label) {
    axes a;
    data_range(p, &a);
    a.bx0 = x0 + PAD_L; a.bx1 = x0 + PW - PAD_R; a.by0 = y0 + PAD_T; a.by1 = y0 + PH - PAD_B;
    emit_ticks(dl, &a);
    av_rgb frame = {0x33, 0x33, 0x33};
    av_dl_rect(dl, a.bx0, a.by0, a.bx1, a.by0 + 1, frame);
    av_dl_rect(dl, a.bx0, a.by1, a.bx1 + 1, a.by1 + 1, frame);
    av_dl_rect(dl, a.bx0, a.by0, a.bx0 + 1, a.by1, frame);
    av_dl_rect(dl, a.bx1, a.by0, a.bx1 + 1, a.by1, frame);
    for (int s = 0; s < p->n_series; s++) {
        const av_series *se = &p->s[s];
        av_rgb c = TAB10[s % 10];
        int extra = p->underlay ? p->n_series - 1 - s : 0; /* a band around the later series */
        /* the line first, then its markers over it, as matplotlib draws them: the line's segments follow one
         * another, so the SVG joins them into one <polyline> */
        for (int pass = 0; pass < 2; pass++) {
            int have = 0;
            float px = 0, py = 0;
            for (int i = 0; i < se->n; i++) {
                if (!isfinite(se->y[i])) { have = 0; continue; }
                double y = fmin(fmax(se->y[i], a.y0), a.y1);
                float nx = px_x(&a, se->x[i]), ny = px_y(&a, y);
                int alone = !have && (i + 1 == se->n || !isfinite(se->y[i + 1])); /* e.g. a one-step run's loss */
                if (pass == 0 && have) av_dl_line(dl, px, py, nx, ny, a.bx0, a.by0, a.bx1, a.by1, extra, c);
                else if (pass == 0 && !se->markers && !alone)
                    av_dl_rect(dl, (int)nx - 1, (int)ny - 1, (int)nx + 2, (int)ny + 2, c);
                if (pass == 1 && (se->markers || alone)) /* a point with no line to either side is a marker, not a */
                    marker(dl, nx, ny, c, extra);         /* 3-px dot (matplotlib draws it not at all) */
                px = nx; py = ny; have = 1;
            }
        }
    }
    emit_legend(dl, p, a.bx0, y0 + PH);
    if (p->note) /* under the legend's last row, from the panel's left edge: the widest text of the panel */
        av_dl_text_run(dl, p->note, (float)x0 + 16, (float)(y0 + PH + legend_rows(p) * LEG_LINE + 10), 12,
                       AV_ANCHOR_START, 0, 0, INK);
    av_dl_text_run(dl, p->title, (a.bx0 + a.bx1) * 0.5f, (float)y0 + 26, 15, AV_ANCHOR_MIDDLE, 0, 1, INK);
    av_dl_text_run(dl, x_label, (a.bx0 + a.bx1) * 0.5f, (float)a.by1 + 40, 13, AV_ANCHOR_MIDDLE, 0, 0, INK);
    if (p->y_label)
        av_dl_text_run(dl, p->y_label, (float)x0 + 16, (a.by0 + a.by1) * 0.5f, 13, AV_ANCHOR_MIDDLE, 1, 0, INK);
}

/* `text` over up to max_lines lines for a figure `width` px wide (20 px of
 * margin each side), broken between its " · " pieces, each line taking the
 * next piece while it fits; the last line takes the rest, and a piece wider
 * than the figure stays whole. Returns the number of lines; *widest = the
 * widest line, px. */
static int break_pieces(const char *text, float size, int bold, int width, char lines[][512], int max_lines,
                        int *widest) {
    int n_lines = 0;
    *widest = 0;
    for (const char *piece = text; *piece && n_lines < max_lines;) {
        const char *end = strstr(piece, " \xC2\xB7 "), *cut = end ? end : piece + strlen(piece);
        while (end) { /* take the next piece too while the line fits */
            const char *next = strstr(end + 4, " \xC2\xB7 "), *stop = next ? next : end + strlen(end);
            char trial[512];
            av_text_metrics tm;
            snprintf(trial, sizeof trial, "%.*s", (int)(stop - piece), piece);
            av_text_measure(trial, size, bold, &tm);
            if (n_lines == max_lines - 1 || tm.width + 40 > width) break;
            cut = stop;
            end = next;
        }
        if (n_lines == max_lines - 1) cut = piece + strlen(piece); /* the last line takes the rest */
        snprintf(lines[n_lines], 512, "%.*s", (int)(cut - piece), piece);
        av_text_metrics tm;
        av_text_measure(lines[n_lines++], size, bold, &tm);
        if ((int)ceilf(tm.width) > *widest) *widest = (int)ceilf(tm.width);
        piece = *cut ? cut + 4 : cut; /* past " · " */
    }
    return n_lines;
}

av_status av_plot_curves(const char *path, const av_curve_panel *panels, int n_panels, const char *title,
                         const char *x_label, const av_plot_meta *meta, av_err *err) {
    if (n_panels < 1 || n_panels > 4)
        return av_fail(err, AV_ERUNTIME, "cannot plot %d curve panels (allowed 1..4)", n_panels);
    for (int p = 0; p < n_panels; p++)
        if (panels[p].n_series < 1 || panels[p].n_series > 10)
            return av_fail(err, AV_ERUNTIME, "cannot plot %d curves in one panel (allowed 1..10)", panels[p].n_series);
    av_dlist dl;
    int top = 44, leg_rows = 0;
    for (int p = 0; p < n_panels; p++) {
        int rows = legend_rows(&panels[p]) + (panels[p].note != NULL);
        if (rows > leg_rows) leg_rows = rows;
    }
    /* the title over up to 3 lines, broken between its " · " pieces where it is wider than the panels (a
     * --compare title naming its fixed settings widened the figure by 210 px of blank); a piece wider
     * still widens the figure, panels centred (it ran off both edges) */
    int width = n_panels * PW + 20, left = 10, widest = 0;
    char lines[3][512];
    int n_lines = break_pieces(title, 18, 1, width, lines, 3, &widest);
    if (widest + 40 > width) left += (widest + 40 - width) / 2, width = widest + 40;
    top += 24 * (n_lines - 1);
    av_dl_init(&dl, width, PH + top + 10 + leg_rows * LEG_LINE, WHITE);
    for (int k = 0; k < n_lines; k++)
        av_dl_text_run(&dl, lines[k], dl.width * 0.5f, 30 + 24.0f * k, 18, AV_ANCHOR_MIDDLE, 0, 1, INK);
    for (int p = 0; p < n_panels; p++) emit_panel(&dl, &panels[p], left + p * PW, top, x_label);
    av_plot_scale_laid_out(&dl, meta); /* --dpi, --scale: laid out at 100 dpi, scale 1 */
    av_status st = av_plot_write(path, &dl, title, meta, err);
    av_dl_free(&dl);
    return st;
}

/* ---------------------------------------------------------------------------- film strip */

#define FILMSTRIP_NOTE                                                                                               \
    "rows: snapshots over training (acc: held-out sequence accuracy) · columns: layer L, head H · each map: "    \
    "query (row) × key (column), weight 0 "                                                                       \
    "(dark) .. 1 (yellow); hatched = " AV_TRAIN_MASK_TEXT
/* With the snapshot rows in groups side by side (1 or 2 heads), which way to read them */
#define FILMSTRIP_NOTE_GROUPS                                                                                        \
    "rows: snapshots over training, down each group, then the next (acc: held-out sequence accuracy) · columns: "\
    "layer L, head H · each map: query (row) × key (column), weight 0 (dark) .. 1 (yellow); hatched = " AV_TRAIN_MASK_TEXT

/* A film strip grows its cells past the usual size up to FS_GROW_CELL px a
 * token, while it stays within FS_GROW_W x FS_GROW_H px. */
enum { FS_GROW_CELL = 24, FS_GROW_W = 1400, FS_GROW_H = 1800 };

/* Token labels of a film strip: never under FS_FONT_MIN px; a label's line
 * (FS_LINE font sizes) fits its cell's pitch or the labels are thinned, as
 * plot.c's axes do (matplotlib keeps a tick label's size and drops ticks). */
#define FS_FONT_MIN 8.0f
#define FS_LINE 1.25f

typedef struct {
    int cell;          /* px a token */
    float font;        /* the token labels' size, px */
    int step;          /* every step-th token is labelled (1, 2, 5, 10, ...); thinned labels carry their index */
    int q_w;           /* the query labels' band */
    int groups, per;   /* snapshot rows side by side in groups of `per` rows (1 group: one column of rows) */
    int gx[4];         /* each group's maps' left edge: a group's band for its row labels is as wide as they are */
    int width, height; /* the figure, before a wide title widens it */
} fs_layout;

static int imax(int a, int b) { return a > b ? a : b; }

/* Token t's label as drawn: the token, or "t: token" when the labels are
 * thinned, so a reader finds position 10 among every fifth label (plot.c's
 * rule). */
static void fs_token_label(char *out, size_t n, const av_filmstrip *fs, int t, int step) {
    if (step > 1) av_text_index_label(out, n, t, fs->tokens[t]);
    else snprintf(out, n, "%s", fs->tokens[t]);
}

/* The film strip's layout with cells of `cell` px and the snapshot rows in
 * `groups` groups side by side: token labels are cell / FS_LINE px, so one
 * label's line fits a cell (10 px in 12.5-px cells), up to 14 px; under
 * FS_FONT_MIN they stay at FS_FONT_MIN and only every step-th token is
 * labelled (10-px labels in 10-px cells touched: a figure-maker's report).
 * The bands around the maps follow the labels. Each group has its own row
 * labels, query labels and column labels. */
static void fs_layout_at(const av_filmstrip *fs, int cell, int groups, int top, fs_layout *l) {
    int T = fs->T, gap = 16, tok = 0;
    l->cell = cell;
    l->groups = groups;
    l->per = (fs->rows + groups - 1) / groups;
    l->font = fminf(14.0f, (float)cell / FS_LINE);
    l->step = 1;
    if (l->font < FS_FONT_MIN) {
        l->font = FS_FONT_MIN;
        l->step = av_plot_label_step(FS_FONT_MIN * FS_LINE, (float)cell);
    }
    for (int t = 0; fs->tokens && t < T; t += l->step) {
        char lab[256];
        av_text_metrics m;
        fs_token_label(lab, sizeof lab, fs, t, l->step);
        av_text_measure(lab, l->font, 0, &m);
        tok = imax(tok, (int)ceilf(m.width));
    }
    l->q_w = fs->tokens ? tok + 8 : 0; /* the query labels, left of each row's first map */
    int maps_w = fs->cols * (cell * T + gap) - gap, x = 0;
    for (int g = 0; g < groups; g++) { /* each row label ends 10 px left of its query labels, 10 px of margin */
        int band = g ? 0 : 150;    /* (24 more between a group's maps and the next group's labels) */
        for (int r = g * l->per; r < fs->rows && r < (g + 1) * l->per; r++) {
            av_text_metrics m;
            av_text_measure(fs->row_labels[r], 13, 0, &m);
            band = imax(band, (int)ceilf(m.width) + 20 + l->q_w);
        }
        l->gx[g] = x + band + (g ? 24 : 0);
        x = l->gx[g] + maps_w;
    }
    int tok_w = fs->tokens ? tok + 26 : 30; /* the key labels under the last row, upright, 20 px of margin */
    l->width = x + 20;
    l->height = top + l->per * (cell * T + gap) - gap + tok_w;
}

av_status av_plot_filmstrip(const char *path, const av_filmstrip *fs, const av_plot_meta *meta, av_err *err) {
    if (fs->rows < 1 || fs->cols < 1 || fs->T < 1 || fs->rows > AV_FILMSTRIP_MAX_ROWS ||
        fs->cols > AV_FILMSTRIP_MAX_COLS || fs->T > 64)
        return av_fail(err, AV_ERUNTIME, "cannot plot a film strip of %d x %d maps of %d tokens (allowed 1..%d x 1..%d "
                       "maps of 1..64 tokens)", fs->rows, fs->cols, fs->T, AV_FILMSTRIP_MAX_ROWS, AV_FILMSTRIP_MAX_COLS);
    int T = fs->T, base = T <= 12 ? 12 : T <= 24 ? 7 : 3, gap = 16;
    int probe_h = fs->probe && fs->probe[0] ? 20 : 0; /* the probe's line under the title, then the legend line */
    int note_h = fs->note && fs->note[0] ? 18 : 0;    /* and the caller's note under it */
    /* The title and the legend line break between their " · " pieces, over up to 3 lines each, where
     * they are wider than the maps (curves' rule): one head's strip was as wide as its one-line legend,
     * 1358 px for maps and labels of about 1100, 150 px of blank each side (a figure-maker's report). A
     * piece, the probe's line or the caller's note wider than the maps still widens the figure. */
    char tl[3][512], nl[3][512];
    int w_t, w_n, nt = 1, nn = 1, extra = 0, top = 0;
    av_text_metrics pm = {0}, nm = {0};
    break_pieces(fs->title, 17, 1, 1, tl, 3, &w_t); /* the narrowest each can be */
    /* the note that says how to read grouped rows when the rows may be grouped (1 or 2 heads: the longer one) */
    break_pieces(fs->cols <= 2 ? FILMSTRIP_NOTE_GROUPS : FILMSTRIP_NOTE, 12, 0, 1, nl, 3, &w_n);
    if (probe_h) av_text_measure(fs->probe, 13, 0, &pm);
    if (note_h) av_text_measure(fs->note, 12, 0, &nm);
    int need = imax(imax(w_t, w_n), (int)ceilf(fmaxf(pm.width, nm.width))) + 40;
    /* The largest cell that keeps both sides within the bound: the usual one
     * or smaller, or, with few heads, larger while the figure stays within
     * FS_GROW_W x FS_GROW_H px (the usual 2 layers x 4 heads' size), so one
     * head's maps and labels are not 130 px on an empty page. With 1 or 2
     * heads the snapshot rows may also stand in up to 4 groups side by side
     * (one head's 11 snapshots were one thin column): the grouping with the
     * largest cell, the fewest groups on a tie. The lines over the maps
     * depend on the width and the height left for the maps on them: a few
     * rounds settle both. */
    fs_layout lay = {0};
    const char *legend = FILMSTRIP_NOTE;
    for (int round = 0; round < 3; round++) {
        fs_layout best = {0};
        top = 86 + probe_h + note_h + extra;
        for (int g = 1; g <= (fs->cols <= 2 ? 4 : 1) && g <= fs->rows; g++) {
            if (g > 1 && (fs->rows + g - 1) / g == (fs->rows + g - 2) / (g - 1)) continue; /* no fewer rows a group */
            for (int c = imax(base, T <= 24 ? FS_GROW_CELL : base); c >= 1; c--) {
                fs_layout_at(fs, c, g, top, &lay);
                if (lay.width > AV_FILMSTRIP_MAX_PX || lay.height > AV_FILMSTRIP_MAX_PX) continue;
                if ((c > base || g > 1) && (imax(lay.width, need) > FS_GROW_W || lay.height > FS_GROW_H)) continue;
                break;
            }
            if (g == 1 || (lay.cell > best.cell && lay.width <= FS_GROW_W)) best = lay;
        }
        lay = best;
        legend = lay.groups > 1 && fs->rows > lay.per ? FILMSTRIP_NOTE_GROUPS : FILMSTRIP_NOTE;
        nt = break_pieces(fs->title, 17, 1, imax(lay.width, need), tl, 3, &w_t);
        nn = break_pieces(legend, 12, 0, imax(lay.width, need), nl, 3, &w_n);
        int now = 22 * (nt - 1) + 16 * (nn - 1);
        if (now == extra) break;
        extra = now;
    }
    top = 86 + probe_h + note_h + extra;
    fs_layout_at(fs, lay.cell, lay.groups, top, &lay); /* the height for the lines as drawn */
    int cell = lay.cell, q_w = lay.q_w, side = cell * T, step = lay.step;
    float font = lay.font;
    char lab[256];
    int width = lay.width, height = lay.height;
    if (need > width) {
        for (int g = 0; g < lay.groups; g++) lay.gx[g] += (need - width) / 2;
        width = need;
    }
    if (width > AV_FILMSTRIP_MAX_PX || height > AV_FILMSTRIP_MAX_PX)
        return av_fail(err, AV_ERUNTIME, "cannot fit a film strip of %d x %d maps of %d tokens and its labels within "
                       "%d x %d px (it needs %d x %d)", fs->rows, fs->cols, T, AV_FILMSTRIP_MAX_PX, AV_FILMSTRIP_MAX_PX,
                       width, height);
    av_dlist dl;
    av_dl_init(&dl, width, height, WHITE);
    float y = 30;
    for (int k = 0; k < nt; k++, y += 22) av_dl_text_run(&dl, tl[k], width * 0.5f, y, 17, AV_ANCHOR_MIDDLE, 0, 1, INK);
    y += 2; /* 54 under a one-line title */
    if (probe_h) av_dl_text_run(&dl, fs->probe, width * 0.5f, y, 13, AV_ANCHOR_MIDDLE, 0, 0, INK);
    y += (float)probe_h;
    for (int k = 0; k < nn; k++, y += 16) av_dl_text_run(&dl, nl[k], width * 0.5f, y, 12, AV_ANCHOR_MIDDLE, 0, 0, INK);
    if (note_h) av_dl_text_run(&dl, fs->note, width * 0.5f, y + 2, 12, AV_ANCHOR_MIDDLE, 0, 0, INK);
    av_dl_heat h = {.n_q = T, .n_k = T, .vmin = 0, .vmax = 1, .cmap = meta ? meta->cmap : AV_CMAP_VIRIDIS,
                    .masked = fs->masked};
    for (int g = 0; g < lay.groups && g * lay.per < fs->rows; g++) { /* each group's column labels */
        int gx = lay.gx[g];
        for (int c = 0; c < fs->cols; c++)
            av_dl_text_run(&dl, fs->col_labels[c], (float)gx + c * (side + gap) + side * 0.5f, (float)top - 8, 13,
                           AV_ANCHOR_MIDDLE, 0, 1, INK);
    }
    for (int r = 0; r < fs->rows; r++) {
        int gx = lay.gx[r / lay.per], y0 = top + (r % lay.per) * (side + gap);
        av_dl_text_run(&dl, fs->row_labels[r], (float)(gx - 10 - q_w), y0 + side * 0.5f + 5, 13, AV_ANCHOR_END, 0, 0,
                       INK);
        for (int t = 0; fs->tokens && t < T; t += step) { /* queries, as the keys under the last row */
            fs_token_label(lab, sizeof lab, fs, t, step);
            av_dl_text_run(&dl, lab, (float)gx - 4, (float)y0 + t * cell + cell * 0.5f + font * 0.35f, font,
                           AV_ANCHOR_END, 0, 0, INK);
        }
        for (int c = 0; c < fs->cols; c++) {
            int x0 = gx + c * (side + gap);
            h.w = fs->att + ((size_t)r * fs->cols + c) * (size_t)T * T;
            av_dl_heatmap(&dl, x0, y0, x0 + side, y0 + side, &h);
        }
        if (r % lay.per != lay.per - 1 && r != fs->rows - 1) continue;
        int yk = y0 + side + 6; /* the keys, under each group's last row */
        for (int c = 0; c < fs->cols && fs->tokens; c++)
            for (int t = 0; t < T; t += step) {
                fs_token_label(lab, sizeof lab, fs, t, step);
                av_dl_text_run(&dl, lab, (float)gx + c * (side + gap) + t * cell + cell * 0.5f + font * 0.4f,
                               (float)yk, font, AV_ANCHOR_END, 1, 0, INK);
            }
    }
    av_plot_scale_laid_out(&dl, meta); /* --dpi, --scale: laid out at 100 dpi, scale 1 */
    av_status st = av_plot_write(path, &dl, fs->title, meta, err);
    av_dl_free(&dl);
    return st;
}

/* ---------------------------------------------------------------------------- GIF */

/* One palette for the whole GIF (the screen's colour map; no frame has its own):
 * GIF_MAP_N colours of the frame's colour map at evenly spaced table entries,
 * round(k · 255 / (GIF_MAP_N − 1)), k = 0..GIF_MAP_N − 1, then GIF_GREYS greys.
 * Consecutive entries are 1 or 2 table steps apart, so every table entry j is in
 * the palette or both j − 1 and j + 1 are: a heat-map cell or colour-bar pixel
 * (always a table entry) comes out at most one table step (1/256 of the value
 * range) from its colour. giflib's GifQuantizeBuffer, a median cut per frame on
 * 5 bits a channel, drew a weight of 0.398 (viridis #2a778e) as #287088 and the
 * colour bar in ~25 bands (a figure-maker's report). Everything else in a frame
 * is grey: the white ground, the black to #222 text anti-aliased over it, the
 * #333 spines, the hatch's #E4E4E4 ground and #8C8C8C lines and their blend. The
 * greys are 32 levels round(i · 255 / 31), with the 4 nearest the figure's own
 * greys moved onto them (34 = #22, 51 = #33, 140 = #8C, 228 = #E4), so those are
 * exact and an anti-aliased edge is at most 5 levels off. Text over a cell (its
 * value) blends a map colour with black or white; its edge takes the nearest
 * entry. */
enum { GIF_GREYS = 32, GIF_MAP_N = 256 - GIF_GREYS, GIF_CACHE = 1 << 16 };

static const unsigned char gif_greys[GIF_GREYS] = {0,   8,   16,  25,  34,  41,  51,  58,  66,  74,  82,
                                                   90,  99,  107, 115, 123, 132, 140, 148, 156, 165, 173,
                                                   181, 189, 197, 206, 214, 222, 228, 239, 247, 255};

static void gif_palette(GifColorType pal[256], av_cmap cmap) {
    for (int k = 0; k < GIF_MAP_N; k++) {
        unsigned char c[3];
        av_cmap_entry(cmap, (k * 255 + (GIF_MAP_N - 1) / 2) / (GIF_MAP_N - 1), c);
        pal[k] = (GifColorType){c[0], c[1], c[2]};
    }
    for (int i = 0; i < GIF_GREYS; i++) pal[GIF_MAP_N + i] = (GifColorType){gif_greys[i], gif_greys[i], gif_greys[i]};
}

/* Palette colours a frame has used, keyed by 0xRRGGBB | 1 << 24 (0 = empty): the
 * cells' colours and the greys recur over most of a frame, so a pixel's nearest
 * entry is searched once per colour, not per pixel. */
typedef struct {
    uint32_t key;
    unsigned char idx;
} gif_hit;

/* Index of the palette entry nearest rgb (squared Euclidean distance in sRGB, the first of ties). */
static unsigned char gif_nearest(const GifColorType pal[256], gif_hit *cache, const unsigned char *rgb) {
    uint32_t key = (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2] | 1u << 24;
    gif_hit *h = &cache[(key * 2654435761u) >> 16];
    if (h->key == key) return h->idx;
    int best = 0, bd = INT32_MAX;
    for (int i = 0; i < 256 && bd; i++) {
        int dr = rgb[0] - pal[i].Red, dg = rgb[1] - pal[i].Green, db = rgb[2] - pal[i].Blue;
        int d = dr * dr + dg * dg + db * db;
        if (d < bd) { bd = d; best = i; }
    }
    *h = (gif_hit){key, (unsigned char)best};
    return (unsigned char)best;
}

static int gif_out(GifFileType *g, const GifByteType *buf, int n) {
    return (int)av_afile_write((av_afile *)g->UserData, buf, (size_t)n);
}

/* One frame: each pixel to its nearest palette entry, then a graphics-control block and the image. */
static int gif_frame(GifFileType *g, const unsigned char *rgb, int w, int h, int delay_cs, const GifColorType pal[256],
                     gif_hit *cache) {
    GifByteType *idx = malloc((size_t)w);
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT, .DelayTime = delay_cs, .TransparentColor = NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    size_t len = EGifGCBToExtension(&gcb, ext);
    int ok = idx && EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) == GIF_OK &&
             EGifPutImageDesc(g, 0, 0, w, h, false, NULL) == GIF_OK;
    for (int y = 0; ok && y < h; y++) {
        const unsigned char *row = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) idx[x] = gif_nearest(pal, cache, row + 3 * x);
        ok = EGifPutLine(g, idx, w) == GIF_OK;
    }
    free(idx);
    return ok;
}

av_status av_gif_write(const char *path, const unsigned char *const *frames, int n, int width, int height,
                       int delay_cs, av_cmap cmap, const char *comment, av_err *err) {
    if (n < 1 || width < 1 || height < 1) return av_fail(err, AV_ERUNTIME, "cannot write a GIF of %d frames", n);
    GifColorType pal[256];
    gif_palette(pal, cmap);
    ColorMapObject *cm = GifMakeMapObject(256, pal);
    gif_hit *cache = calloc(GIF_CACHE, sizeof *cache);
    if (!cm || !cache) {
        GifFreeMapObject(cm);
        free(cache);
        return av_fail(err, AV_ERUNTIME, "out of memory for the GIF");
    }
    av_afile f;
    av_status st = av_afile_open(&f, path, err);
    if (st) { GifFreeMapObject(cm); free(cache); return st; }
    int gerr = 0, ok = 1;
    GifFileType *g = EGifOpen(&f, gif_out, &gerr);
    if (!g) {
        av_afile_abort(&f);
        GifFreeMapObject(cm);
        free(cache);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), GifErrorString(gerr));
    }
    EGifSetGifVersion(g, true);
    ok = EGifPutScreenDesc(g, width, height, 8, 0, cm) == GIF_OK; /* giflib copies the map */
    GifFreeMapObject(cm);
    static const GifByteType netscape[] = "NETSCAPE2.0", loop[3] = {1, 0, 0}; /* loop forever */
    ok = ok && EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(g, 11, netscape) == GIF_OK && EGifPutExtensionBlock(g, 3, loop) == GIF_OK &&
         EGifPutExtensionTrailer(g) == GIF_OK;
    /* giflib cuts a comment into 255-byte sub-blocks; an empty one would be a block of length 0, the terminator */
    if (ok && comment && comment[0]) ok = EGifPutComment(g, comment) == GIF_OK;
    for (int i = 0; ok && i < n; i++)
        ok = gif_frame(g, frames[i], width, height, i == n - 1 ? 3 * delay_cs : delay_cs, pal, cache);
    free(cache);
    int cerr = 0;
    if (EGifCloseFile(g, &cerr) != GIF_OK) { ok = 0; gerr = cerr; } /* frees g either way */
    if (!ok) { /* a failed write says why (No space left on device, File too large), not giflib's "Failed to write" */
        int werr = f.werr;
        av_afile_abort(&f);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200),
                       werr ? strerror(werr) : GifErrorString(gerr ? gerr : E_GIF_ERR_WRITE_FAILED));
    }
    return av_afile_commit(&f, err);
}
