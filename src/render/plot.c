/* plot.c - figure layout: attention weights → display list → PNG or SVG.
 *
 * All geometry is in figure pixels (origin top-left, y down). A head figure
 * is, left to right: margin, y-axis title, query labels, ticks, the heat map,
 * a gap, the colour bar with its ticks, tick labels and title, and the
 * "masked" legend under the colour bar; top to bottom: margin, title lines,
 * the heat map, ticks, key labels, x-axis title, margin. The grid figure
 * repeats the heat map in panels that share axes and one colour bar.
 *
 * The matrix figure (PE, RoPE angles) and the mask figure are the head
 * figure with other cell sizes and another key (a two-entry legend instead
 * of the colour bar). Every layout is done at 100 dpi, scale 1, within
 * fig_max px a side; dl_finish then multiplies every coordinate, font size
 * and the hatch by f = scale × dpi / 100, so a scaled figure is the same
 * figure, bigger.
 *
 * Text vertical placement uses fixed fractions of the font size (DejaVu Sans
 * metrics: capitals reach 0.73 em, descenders 0.24 em), so layout never
 * depends on the exact glyphs a font has.
 *
 * Non-goals: see plot.h.
 */
#include "render/plot.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "render/pngout.h"
#include "render/svgout.h"

/* ---------------------------------------------------------------- style */

#define FIG_MAX 2400        /* figure width and height bound of the layout at 100 dpi, px; the same at
                             * every dpi (pixel_factor lowers the dpi past AV_PLOT_MAX_PX instead) */
#define MARGIN 18           /* outer margin, px */
#define TICK 5              /* tick length, px */
#define TICK_PAD 4          /* tick → label, px */
#define LABEL_MAX_W 150.0f  /* token labels longer than this are cut with "…" */
#define CBAR_GAP 30         /* heat map → colour bar, px */
#define CBAR_W 22           /* colour bar width, px */
#define CBAR_MIN_H 150      /* shortest colour bar, px: room for 6 tick labels and its title */
#define MID 0.36f           /* baseline sits MID*size below a run's visual middle */
#define ASC 0.76f           /* baseline sits ASC*size below a run's top */
#define LINE 1.25f          /* line height, in font sizes */

static const av_rgb WHITE = {255, 255, 255};
static const av_rgb BLACK = {0, 0, 0};
static const av_rgb INK = {0x22, 0x22, 0x22};  /* labels and titles */
static const av_rgb FRAME = {0x33, 0x33, 0x33}; /* spines and ticks */

typedef struct {
    float tick, axis, title, cbar, panel; /* font sizes, px */
} font_sizes;

static const font_sizes HEAD_FS = {15, 16, 18, 14, 16};
static const font_sizes GRID_FS = {14, 16, 20, 14, 15};

#define MASK_T 0.35 /* mask figure: visible cells get the colour map at this value */
#define MATRIX_W 768 /* matrix figure: target map width, px */
#define MATRIX_H 600 /* matrix figure: target map height, px */


/* The factor a layout with sides w x h px (100 dpi, scale 1) is multiplied
 * by, and the dpi its file states (*dpi): f = scale × dpi / 100, clamped to
 * 0.25..8. When a side would pass AV_PLOT_MAX_PX at that f, the dpi is
 * lowered instead of the layout shrunk: the largest whole dpi that keeps
 * every side within, f = scale × that dpi / 100. So the printed size, px /
 * dpi = w × scale / 100 inches, is the same at every dpi, as matplotlib's
 * savefig(dpi=...) keeps figsize; only the pixels per inch are fewer. (The
 * layout was shrunk to fit: at --dpi 600 heads.png of 8 heads printed 9.99 in
 * wide against 13.67 at --dpi 100, a new user's report.) */
static double pixel_factor(int w, int h, const av_plot_meta *meta, int *dpi) {
    double scale = meta && meta->scale > 0 && isfinite(meta->scale) ? meta->scale : 1.0;
    int d = meta && meta->dpi > 0 ? meta->dpi : 100;
    double asked = scale * d / 100.0, f = asked;
    if (f < 0.25) f = 0.25;
    if (f > 8) f = 8;
    int side = w > h ? w : h;
    if (side > 0 && side * f > AV_PLOT_MAX_PX) f = (double)AV_PLOT_MAX_PX / side;
    if (f != asked) { /* a dpi for the pixels drawn, so that they print at w × scale / 100 inches */
        int fit = (int)floor(100.0 * f / scale);
        if (fit >= 1) d = fit, f = scale * fit / 100.0;
    }
    *dpi = d;
    return f;
}

/* Files whose dpi pixel_factor lowered, since the last reset. */
static av_plot_lowered lowered;

const av_plot_lowered *av_plot_lowered_dpi(void) {
    return &lowered;
}

void av_plot_reset_lowered_dpi(void) {
    memset(&lowered, 0, sizeof lowered);
}

void av_plot_note_fewer_pixels(const char *path) {
    const char *base = strrchr(path, '/');
    snprintf(lowered.no_dpi, sizeof lowered.no_dpi, "%.95s", base ? base + 1 : path);
}

/* Add path's name (without the folder) to a list of figures: *files counts
 * them, names[] keeps the first AV_PLOT_LOWERED_NAMES, last the stem of the
 * latest. The SVG written right after its figure's PNG (or the PNG after the
 * SVG) is the same figure: its name gains "/.svg" and the count stays. */
static void note_figure_name(int *files, char (*names)[104], char *last, size_t last_size, const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    int ext = n > 4 && (strcmp(base + n - 4, ".png") == 0 || strcmp(base + n - 4, ".svg") == 0);
    size_t stem = ext ? n - 4 : n;
    if (ext && *files && strlen(last) == stem && memcmp(last, base, stem) == 0) {
        if (*files <= AV_PLOT_LOWERED_NAMES) {
            char *name = names[*files - 1];
            size_t len = strlen(name);
            snprintf(name + len, 104 - len, "/%s", base + stem);
        }
        last[0] = 0; /* a third file of that name is another figure */
        return;
    }
    if (*files < AV_PLOT_LOWERED_NAMES) snprintf(names[*files], 104, "%.95s", base);
    snprintf(last, last_size, "%.*s", (int)(stem < 95 ? stem : 95), base);
    (*files)++;
}

/* Count path when dl states fewer dots per inch than meta asked
 * (note_figure_name: a figure's PNG and SVG count once). */
static void note_lowered(const char *path, const av_dlist *dl, const av_plot_meta *meta) {
    int asked = meta && meta->dpi > 0 ? meta->dpi : 100;
    if (dl->dpi <= 0 || dl->dpi >= asked) return;
    if (!lowered.files || dl->dpi < lowered.lowest) lowered.lowest = dl->dpi;
    if (!lowered.files || dl->dpi > lowered.highest) lowered.highest = dl->dpi;
    note_figure_name(&lowered.files, lowered.names, lowered.last, sizeof lowered.last, path);
}

/* Files whose layout cut the title with "…" (av_dlist.title_cut), since the last reset. */
static av_plot_cut cut_titles;

const av_plot_cut *av_plot_cut_titles(void) {
    return &cut_titles;
}

void av_plot_reset_cut_titles(void) {
    memset(&cut_titles, 0, sizeof cut_titles);
}

/* Distinct code points without a font since the last reset. The first
 * MISSING_SET are remembered; beyond that every further one counts as new. */
#define MISSING_SET 256
static unsigned missing_cps[MISSING_SET];
static int missing_glyphs;

/* Distinct emoji sequences drawn in parts since the last reset
 * (av_text_split_sequences); the first SPLIT_SET are remembered. */
#define SPLIT_SET 16
static struct {
    char utf8[64];
    int kind;
} split_seq[SPLIT_SET];
static int split_seqs;

int av_plot_split_sequences(void) {
    return split_seqs;
}

const char *av_plot_split_sequence(int k, int *kind) {
    if (k < 0 || k >= split_seqs || k >= SPLIT_SET) return NULL;
    if (kind) *kind = split_seq[k].kind;
    return split_seq[k].utf8;
}

static void note_split(const char *s, size_t len, int kind) {
    if (len >= sizeof split_seq[0].utf8) return;
    int known = split_seqs < SPLIT_SET ? split_seqs : SPLIT_SET;
    for (int k = 0; k < known; k++)
        if (strlen(split_seq[k].utf8) == len && memcmp(split_seq[k].utf8, s, len) == 0) return;
    if (split_seqs < SPLIT_SET) {
        memcpy(split_seq[split_seqs].utf8, s, len);
        split_seq[split_seqs].utf8[len] = '\0';
        split_seq[split_seqs].kind = kind;
    }
    split_seqs++;
}

int av_plot_missing_glyphs(void) {
    return missing_glyphs;
}

unsigned av_plot_missing_glyph(int k) {
    return k >= 0 && k < missing_glyphs && k < MISSING_SET ? missing_cps[k] : 0;
}

void av_plot_reset_missing(void) {
    missing_glyphs = 0;
    split_seqs = 0;
}

static void note_missing(unsigned cp) {
    int known = missing_glyphs < MISSING_SET ? missing_glyphs : MISSING_SET;
    for (int k = 0; k < known; k++)
        if (missing_cps[k] == cp) return;
    if (missing_glyphs < MISSING_SET) missing_cps[missing_glyphs] = cp;
    missing_glyphs++;
}

/* ---------------------------------------------------------------- text helpers */

static float text_w(const char *s, float size, int bold) {
    av_text_metrics m;
    av_text_measure(s, size, bold, &m);
    return m.width;
}

/* A malloc'd copy of s that fits max_w px at size: s itself, or its longest
 * prefix (whole grapheme clusters) followed by "…". NULL on OOM. */
static char *fit_text(const char *s, float size, int bold, float max_w) {
    size_t len = strlen(s);
    char *out = malloc(len + 4);
    if (!out) return NULL;
    memcpy(out, s, len + 1);
    if (text_w(s, size, bold) <= max_w) return out;
    /* Keep whole grapheme clusters: collect boundaries, then shrink. */
    size_t cut = 0, best = 0;
    while (cut < len) {
        size_t next = cut + av_utf8_cluster_len(s + cut, len - cut);
        memcpy(out, s, next);
        memcpy(out + next, "\xE2\x80\xA6", 4); /* U+2026 … */
        if (text_w(out, size, bold) > max_w) break;
        best = next;
        cut = next;
    }
    memcpy(out, s, best);
    memcpy(out + best, "\xE2\x80\xA6", 4);
    return out;
}

/* Text ink for a cell of colour c: black on light cells, white on dark ones,
 * switching at relative luminance 0.25 (WCAG's equal-contrast point is
 * 0.18; a slightly higher switch keeps white on viridis' mid teal, so
 * neighbouring mid-range cells do not flip between inks). Both inks keep a
 * contrast ratio of at least 3.3:1 around the switch. */
static av_rgb contrast_ink(av_rgb c) {
    double ch[3] = {c.r / 255.0, c.g / 255.0, c.b / 255.0};
    for (int k = 0; k < 3; k++) ch[k] = ch[k] <= 0.04045 ? ch[k] / 12.92 : pow((ch[k] + 0.055) / 1.055, 2.4);
    double L = 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
    return L > 0.25 ? BLACK : WHITE;
}

/* v with dec decimals and a true minus sign (U+2212); "0.00", never
 * "−0.00". */
static void fmt_num(char out[48], size_t n, double v, int dec) {
    char digits[40];
    snprintf(digits, sizeof digits, "%.*f", dec, fabs(v));
    int zero = 1;
    for (const char *c = digits; *c; c++)
        if (*c >= '1' && *c <= '9') zero = 0;
    snprintf(out, n, "%s%s", v < 0 && !zero ? "\xE2\x88\x92" : "", digits);
}

static int imin(int a, int b) {
    return a < b ? a : b;
}

static int imax(int a, int b) {
    return a > b ? a : b;
}

/* ---------------------------------------------------------------- axis labels */

typedef struct {
    int n;                   /* labels (tokens) */
    int stride;              /* tokens per label: label k is token k·stride (pooled cells) */
    const char *const *src;  /* token labels, or NULL for plain indices */
    int always_index;        /* rows are positions, or two tokens' cut labels read the same: "k: label" even
                              * when not thinned */
    int indexed;             /* the strings in s carry their index, "15: model" */
    char **s;                /* fitted label text */
    float *w;                /* width of each fitted label, px */
    int step;                /* draw every step-th label */
    float max_w;             /* widest drawn label, px */
    int rot90;               /* x axis only: labels turned 90 degrees */
    float size;              /* font size, px */
} axis_labels;

static void labels_free(axis_labels *a) {
    if (a->s)
        for (int k = 0; k < a->n; k++) free(a->s[k]);
    free(a->s);
    free(a->w);
    memset(a, 0, sizeof *a);
}

/* (Re)build the fitted strings: "label", "k: label" (indexed) or "k" (no
 * labels). Returns 0 or -1 (OOM). */
static int labels_build(axis_labels *a, int indexed) {
    for (int k = 0; k < a->n; k++) {
        char num[16];
        const char *t = a->src && a->src[k] ? a->src[k] : NULL;
        char *text = NULL;
        if (!t) {
            snprintf(num, sizeof num, "%d", k * a->stride);
            t = num;
        } else if (indexed) {
            size_t len = strlen(t) + 32;
            text = malloc(len);
            if (!text) return -1;
            av_text_index_label(text, len, (long)k * a->stride, t);
            t = text;
        }
        free(a->s[k]);
        a->s[k] = fit_text(t, a->size, 0, LABEL_MAX_W);
        free(text);
        if (!a->s[k]) return -1;
        a->w[k] = text_w(a->s[k], a->size, 0);
    }
    a->indexed = indexed;
    return 0;
}

typedef struct {
    const char *fit, *src;
} label_pair;

static int cmp_label_pair(const void *x, const void *y) {
    const label_pair *a = x, *b = y;
    int c = strcmp(a->fit, b->fit);
    return c ? c : strcmp(a->src, b->src);
}

/* 1 if two different tokens have the same fitted label: both cut with "…"
 * after the same first letters ("Antidisestablishmentarianism" and
 * "Antidisestablishmentary" both "Antidisestablishm…"), so the figure could
 * not tell their rows apart. -1 on OOM. */
static int labels_collide(const axis_labels *a) {
    int cut = 0;
    for (int k = 0; k < a->n && !cut; k++) cut = a->src[k] && strcmp(a->s[k], a->src[k]) != 0;
    if (!cut) return 0; /* labels shown whole are equal only for equal tokens */
    label_pair *p = malloc((size_t)a->n * sizeof *p);
    if (!p) return -1;
    int m = 0;
    for (int k = 0; k < a->n; k++)
        if (a->src[k]) p[m++] = (label_pair){a->s[k], a->src[k]};
    qsort(p, (size_t)m, sizeof *p, cmp_label_pair);
    int same = 0;
    for (int k = 1; k < m && !same; k++) same = !strcmp(p[k].fit, p[k - 1].fit) && strcmp(p[k].src, p[k - 1].src);
    free(p);
    return same;
}

/* Fit labels (or "0", "1", ... when src is NULL); label k names token
 * k·stride. Labels that the cut makes the same for different tokens all
 * carry their index, as thinned ones do. Returns 0 or -1 (OOM). */
static int labels_make(axis_labels *a, const char *const *src, int n, int stride, float size, int always_index) {
    memset(a, 0, sizeof *a);
    a->n = n;
    a->stride = stride > 1 ? stride : 1;
    a->size = size;
    a->src = src;
    a->always_index = src && always_index;
    a->step = 1;
    a->s = calloc((size_t)n, sizeof *a->s);
    a->w = calloc((size_t)n, sizeof *a->w);
    if (!a->s || !a->w) return -1;
    if (labels_build(a, a->always_index) != 0) return -1;
    if (!src || a->always_index) return 0;
    int same = labels_collide(a);
    if (same < 0) return -1;
    a->always_index = same;
    return same ? labels_build(a, 1) : 0;
}

/* Token labels carry their index exactly when they are thinned (or always
 * for positions), so a reader can find row 15 among every fifth label. */
static int labels_sync_index(axis_labels *a) {
    int want = a->src && (a->always_index || a->step > 1);
    return want != a->indexed ? labels_build(a, want) : 0;
}

int av_plot_label_step(float need, float cell) {
    if (cell <= 0) return 1;
    int k = (int)ceilf(need / cell);
    if (k < 1) k = 1;
    /* Round up to 1, 2, 5, 10, 20, 50, ... so ticks land on round indices. */
    int base = 1;
    for (;;) {
        if (k <= base) return base;
        if (k <= 2 * base) return 2 * base;
        if (k <= 5 * base) return 5 * base;
        base *= 10;
    }
}

static float labels_max_w(const axis_labels *a) {
    float m = 0;
    for (int k = 0; k < a->n; k += a->step)
        if (a->w[k] > m) m = a->w[k];
    return m;
}

/* y axis: step from the line height. Returns 0 or -1 (OOM). */
static int labels_plan_y(axis_labels *a, float cell) {
    a->step = av_plot_label_step(a->size * LINE, cell);
    a->rot90 = 0;
    if (labels_sync_index(a) != 0) return -1;
    a->max_w = labels_max_w(a);
    return 0;
}

/* x axis: horizontal when every label fits across its column; plain indices
 * stay horizontal, thinned to round steps; token labels are rotated (and
 * thinned by the line height). Returns 0 or -1 (OOM). */
static int labels_plan_x(axis_labels *a, float cell) {
    a->step = 1;
    a->rot90 = 0;
    if (labels_sync_index(a) != 0) return -1;
    float all = labels_max_w(a);
    if (all + 8 <= cell) {
        a->max_w = all;
        return 0;
    }
    if (!a->src) {
        a->step = av_plot_label_step(all + 12, cell);
        a->max_w = labels_max_w(a);
        return 0;
    }
    a->rot90 = 1;
    a->step = av_plot_label_step(a->size * LINE, cell);
    if (labels_sync_index(a) != 0) return -1;
    a->max_w = labels_max_w(a);
    return 0;
}

/* Height of the x label band below the ticks (an upright label among
 * rotated ones needs one line). */
static float labels_x_band(const axis_labels *a) {
    return a->rot90 ? fmaxf(a->max_w, a->size * LINE) : a->size * LINE;
}

/* Does label s stay upright among rotated key labels? Chinese, Japanese and
 * Korean text is set upright in vertical lines while Latin words turn 90
 * degrees (UAX #50: wide characters are U or Tu, upright), so a label of
 * wide characters only that fits across its column of w_cell px is drawn
 * horizontally; "注 意 力 Transformer" keeps 注, 意, 力 readable and turns
 * only "Transformer". Zero-width code points (joiners, marks) do not count. */
static int label_upright(const char *s, float w, float w_cell) {
    if (!s || !*s || w + 8 > w_cell) return 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int cw = av_utf8_cp_width(av_utf8_next(&p));
        if (cw != 2 && cw != 0) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- pieces */

/* 1 px frame just outside box [x0, x1) x [y0, y1). */
static void frame_box(av_dlist *dl, int x0, int y0, int x1, int y1) {
    av_dl_rect(dl, x0 - 1, y0 - 1, x1 + 1, y0, FRAME);
    av_dl_rect(dl, x0 - 1, y1, x1 + 1, y1 + 1, FRAME);
    av_dl_rect(dl, x0 - 1, y0, x0, y1, FRAME);
    av_dl_rect(dl, x1, y0, x1 + 1, y1, FRAME);
}

static int is_masked(const av_heatmap *hm, int i, int j) {
    size_t at = (size_t)i * (size_t)hm->n_k + (size_t)j;
    return (hm->masked && hm->masked[at]) || !isfinite(hm->w[at]);
}

static int any_masked(const av_heatmap *hm) {
    for (int i = 0; i < hm->n_q; i++)
        for (int j = 0; j < hm->n_k; j++)
            if (is_masked(hm, i, j)) return 1;
    return 0;
}

typedef struct {
    av_cmap cmap;
    float vmin, vmax;        /* in log10 units when log */
    const char *value_label;
    const char *more[2];     /* the title's second and third lines, or NULL (cbar_split) */
    int log;                 /* values are log10 of the data (see prepare_panels) */
    size_t clipped, visible; /* log: visible cells below the range's bottom (drawn in its colour), of all */
    float bottom;            /* log: the range's bottom as a weight (vmax / 1000), for the note */
    size_t above;            /* visible cells above the range's top (drawn in its colour; count_above) */
    float top;               /* the range's top in the values' own units (before log10), for the note */
} color_range;

static color_range range_of(const av_plot_meta *meta) {
    color_range r = {AV_CMAP_VIRIDIS, 0.0f, 1.0f, "attention weight", {NULL, NULL}, 0, 0, 0, 0.0f, 0, 1.0f};
    if (!meta) return r;
    if ((int)meta->cmap > 0 && meta->cmap < AV_CMAP_COUNT) r.cmap = meta->cmap;
    if (isfinite(meta->vmin) && isfinite(meta->vmax) && meta->vmax > meta->vmin) {
        r.vmin = meta->vmin;
        r.vmax = meta->vmax;
    }
    if (meta->value_label) r.value_label = meta->value_label;
    r.log = meta->log_scale != 0; /* prepare_panels turns the range into log10 units */
    return r;
}

/* ---------------------------------------------------------------- pooling and log scale */

/* Cell (bi, bj) of hm pooled over p x p tokens: max or mean of the visible
 * values; *masked = 1 when the block has none. With `signed_max` (a colour
 * range below 0: the scores before the softmax, on a diverging map) max keeps
 * the value of the largest magnitude with its sign, so a strongly negative
 * score stays as visible as a positive one (the plain max drew every block
 * of a long sentence's scores red, none blue). */
static float pool_cell(const av_heatmap *hm, int bi, int bj, int p, av_pool mode, int signed_max,
                       unsigned char *masked) {
    int i1 = imin(hm->n_q, (bi + 1) * p), j0 = bj * p, j1 = imin(hm->n_k, (bj + 1) * p), seen = 0;
    double acc = mode == AV_POOL_MAX ? -INFINITY : 0.0;
    for (int i = bi * p; i < i1; i++) {
        const float *w_i = hm->w + (size_t)i * hm->n_k;
        const unsigned char *m_i = hm->masked ? hm->masked + (size_t)i * hm->n_k : NULL;
        for (int j = j0; j < j1; j++) {
            double v = w_i[j];
            if ((m_i && m_i[j]) || !isfinite(v)) continue; /* is_masked, row by row */
            if (mode != AV_POOL_MAX) acc += v;
            else if (signed_max) acc = !seen || fabs(v) > fabs(acc) ? v : acc;
            else acc = v > acc ? v : acc;
            seen++;
        }
    }
    *masked = seen == 0;
    if (!seen) return 0.0f;
    return (float)(mode == AV_POOL_MAX ? acc : acc / seen);
}

/* Block (bi, bj) of a mask without values: 1 when every cell is masked. */
static unsigned char pool_mask_only(const av_heatmap *hm, int bi, int bj, int p) {
    if (!hm->masked) return 0;
    for (int i = bi * p; i < imin(hm->n_q, (bi + 1) * p); i++)
        for (int j = bj * p; j < imin(hm->n_k, (bj + 1) * p); j++)
            if (!hm->masked[(size_t)i * hm->n_k + j]) return 0;
    return 1;
}

/* Every p-th label of n (NULL stays NULL), owned by dl. */
static const char *const *pool_labels(av_dlist *dl, const char *const *src, int n, int p) {
    if (!src) return NULL;
    const char **out = av_dl_alloc(dl, (size_t)((n + p - 1) / p) * sizeof *out);
    if (out)
        for (int k = 0; k * p < n; k++) out[k] = src[k * p];
    return out;
}

/* One panel as drawn, a copy owned by dl, pooled p x p (p = 1: a plain copy).
 * Returns 0, or -1 when out of memory. */
static int prepare_panel(av_dlist *dl, av_heatmap *out, const av_heatmap *in, int p, av_pool mode, int signed_max) {
    *out = *in;
    out->pool = p;
    out->n_q = (in->n_q + p - 1) / p;
    out->n_k = (in->n_k + p - 1) / p;
    size_t cells = (size_t)out->n_q * out->n_k;
    float *w = av_dl_alloc(dl, cells * sizeof *w);
    unsigned char *m = av_dl_alloc(dl, cells);
    if (!w || !m) return -1;
    for (int bi = 0; bi < out->n_q; bi++)
        for (int bj = 0; bj < out->n_k; bj++) {
            size_t at = (size_t)bi * out->n_k + bj;
            float v = in->w ? pool_cell(in, bi, bj, p, mode, signed_max, &m[at]) : 0.0f;
            if (!in->w) m[at] = pool_mask_only(in, bi, bj, p);
            w[at] = v;
        }
    if (p > 1 && (in->q_labels || in->k_labels)) {
        out->q_labels = pool_labels(dl, in->q_labels, in->n_q, p);
        out->k_labels = pool_labels(dl, in->k_labels, in->n_k, p);
        if ((in->q_labels && !out->q_labels) || (in->k_labels && !out->k_labels)) return -1;
    }
    out->w = in->w ? w : NULL;
    out->masked = m;
    return 0;
}

/* out (n bytes) = plain with every ASCII '-' written as U+2212, cut at whole characters */
static void true_minus(char *out, size_t n, const char *plain) {
    if (!n) return;
    size_t k = 0;
    for (const char *c = plain; *c; c++) {
        size_t need = *c == '-' ? 3 : 1;
        if (k + need + 1 > n) break; /* whole characters and the NUL */
        if (*c == '-') memcpy(out + k, "\xE2\x88\x92", 3);
        else out[k] = *c;
        k += need;
    }
    out[k] = 0;
}

void av_plot_g3(char *out, size_t n, double v) {
    char plain[32];
    snprintf(plain, sizeof plain, "%.3g", v);
    true_minus(out, n, plain);
}

void av_plot_g3_range(char *lo_out, char *hi_out, size_t n, double lo, double hi) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%.3g", lo);
    snprintf(b, sizeof b, "%.3g", hi);
    if (!strchr(a, 'e') != !strchr(b, 'e')) /* one plain, one not: %.2e is %.3g's exponent form, */
        for (int k = 0; k < 2; k++) {          /* its trailing zeros dropped as %g drops them */
            char *t = k ? b : a, *e;
            snprintf(t, 32, "%.2e", k ? hi : lo);
            if ((e = strchr(t, 'e')) != NULL) {
                char *z = e;
                while (z > t && z[-1] == '0') z--;
                if (z > t && z[-1] == '.') z--;
                memmove(z, e, strlen(e) + 1);
            }
        }
    true_minus(lo_out, n, a);
    true_minus(hi_out, n, b);
}

/* The automatic top of the range: meta->auto_pct of the values drawn (after
 * pooling, so max-pooled cells are not all above it); the colour bar's title
 * gains "(auto: 0–X, 99th percentile)", on the log scale the range it spans,
 * "(auto: 0.000229 – 0.229, 99th percentile)" (log_panels: X / 1000 .. X),
 * both ends in the same notation ("1e−33 – 1e−30", never "10^−33 – 1e−30").
 * Returns 0, or -1 when out of memory. */
static int auto_range(av_dlist *dl, const av_heatmap *hms, int n, const av_plot_meta *meta, color_range *cr) {
    size_t cells = (size_t)hms[0].n_q * hms[0].n_k;
    float *all = av_dl_alloc(dl, cells * (size_t)n * sizeof *all);
    if (!all) return -1;
    for (int k = 0; k < n; k++) memcpy(all + k * cells, hms[k].w, cells * sizeof *all);
    float top = av_plot_percentile(all, hms[0].masked, n, hms[0].n_q, hms[0].n_k, meta->auto_pct);
    cr->vmin = 0.0f;
    cr->vmax = top > 0 ? top : 1.0f;
    size_t len = strlen(cr->value_label) + 64;
    char *label = av_dl_alloc(dl, len);
    if (!label) return -1;
    char lo[32], hi[32];
    if (cr->log) av_plot_g3_range(lo, hi, sizeof lo, (double)cr->vmax / 1000, cr->vmax); /* both ends alike */
    else av_plot_g3(hi, sizeof hi, cr->vmax);
    if (cr->log)
        snprintf(label, len, "%s (auto: %s \xE2\x80\x93 %s, %gth percentile)", cr->value_label, lo, hi,
                 meta->auto_pct);
    else
        snprintf(label, len, "%s (auto: 0\xE2\x80\x93%s, %gth percentile)", cr->value_label, hi, meta->auto_pct);
    cr->value_label = label;
    return 0;
}

/* Values in log10 units for the log colour scale, over [vmax / 1000, vmax]
 * (or [vmin, vmax] when vmin > 0); values below it take its bottom colour,
 * and cr->clipped counts them (the colour bar then ends in a triangle). */
static void log_panels(av_heatmap *hms, int n, color_range *cr) {
    if (!(cr->vmax > 0)) cr->vmax = 1.0f;
    float lo = cr->vmin > 0 ? cr->vmin : cr->vmax / 1000.0f;
    cr->bottom = lo;
    cr->vmin = log10f(lo);
    cr->vmax = log10f(cr->vmax);
    cr->clipped = cr->visible = 0;
    for (int k = 0; k < n; k++) {
        float *w = (float *)hms[k].w;
        for (size_t c = 0; c < (size_t)hms[k].n_q * hms[k].n_k; c++)
            if (!hms[k].masked[c]) {
                cr->visible++;
                cr->clipped += !(w[c] >= lo); /* 0 and below too */
                w[c] = w[c] > 0 ? log10f(w[c]) : cr->vmin;
            }
    }
}

/* Visible cells above the top of a range from 0 (the weights': --vmax F or
 * the automatic percentile below the largest weight; not the scores'
 * diverging one): they take the top colour, and cr->above counts them of
 * cr->visible (the colour bar then ends in a triangle on top, as
 * matplotlib's colorbar(extend='max')). Values in their own units, before
 * log_panels; a softmax row's 1 rounded up by 1e-5 is not above 1. */
static void count_above(const av_heatmap *hms, int n, color_range *cr) {
    cr->above = cr->visible = 0;
    cr->top = cr->vmax;
    if (!hms[0].w || cr->vmin < 0 || !(cr->vmax > 0)) return;
    float hi = cr->vmax * (1.0f + 1e-5f);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < hms[k].n_q; i++)
            for (int j = 0; j < hms[k].n_k; j++)
                if (!is_masked(&hms[k], i, j)) {
                    cr->visible++;
                    cr->above += hms[k].w[(size_t)i * hms[k].n_k + j] > hi;
                }
}

/* The panels as drawn: `in` itself when nothing changes, else copies owned by
 * dl, pooled when more than max_cells tokens per side (*title gains the
 * note), with the automatic range (meta->auto_pct) and log10 units (cr->log)
 * applied. Returns NULL when out of memory. */
static const av_heatmap *prepare_panels(av_dlist *dl, const av_heatmap *in, int n, int max_cells,
                                        const av_plot_meta *meta, color_range *cr, const char **title) {
    int nmax = imax(in[0].n_q, in[0].n_k), p = imax(1, (nmax + max_cells - 1) / max_cells);
    int autor = meta && meta->auto_pct > 0 && in[0].w;
    if (p == 1 && !cr->log && !autor) {
        count_above(in, n, cr);
        return in;
    }
    av_pool mode = meta && meta->pool == AV_POOL_MEAN ? AV_POOL_MEAN : AV_POOL_MAX;
    int signed_max = mode == AV_POOL_MAX && cr->vmin < 0; /* a diverging range: keep the sign */
    av_heatmap *out = av_dl_alloc(dl, (size_t)n * sizeof *out);
    if (!out) return NULL;
    for (int k = 0; k < n; k++)
        if (prepare_panel(dl, &out[k], &in[k], p, mode, signed_max) != 0) return NULL;
    if (autor && auto_range(dl, out, n, meta, cr) != 0) return NULL;
    count_above(out, n, cr);
    if (cr->log && out[0].w) log_panels(out, n, cr);
    if (p > 1) {
        const char *t = *title ? *title : "";
        /* the value's own name, whole: a byte count could cut "m·θ_i" inside the '·' (invalid UTF-8) */
        const char *vname = cr->value_label && *cr->value_label ? cr->value_label : "value";
        size_t len = strlen(t) + strlen(vname) + 120;
        char *nt = av_dl_alloc(dl, len);
        if (!nt) return NULL;
        if (!in[0].w) /* the mask figure: two colours, so neither a max nor a mean of values. "max over 3×3
                       * tokens per cell" (and "mean" with --pool mean) over a 2100-token --attn-mask hiding
                       * 30 % of the pairs at random drew only the causal triangle, every block having some
                       * visible pair (a long-input learner's pass) */
            snprintf(nt, len, "%s%s%d\xC3\x97%d tokens per cell, hatched only when all %lld of its (query, key) "
                     "pairs are masked", t, *t ? " \xC2\xB7 " : "", p, p, (long long)p * p);
        else if (signed_max) /* "largest |score| over 8×8 tokens per cell, sign kept" */
            snprintf(nt, len, "%s%slargest |%s| over %d\xC3\x97%d tokens per cell, sign kept", t,
                     *t ? " \xC2\xB7 " : "", vname, p, p);
        else
            snprintf(nt, len, "%s%s%s over %d\xC3\x97%d tokens per cell", t, *t ? " \xC2\xB7 " : "",
                     mode == AV_POOL_MAX ? "max" : "mean", p, p);
        *title = dl->title = nt;
    }
    if (cr->log && out[0].w) { /* the cells hold log10 values now: say why no numbers are printed */
        const char *t = *title ? *title : "";
        size_t len = strlen(t) + 64;
        char *nt = av_dl_alloc(dl, len);
        if (!nt) return NULL;
        snprintf(nt, len, "%s%s" AV_PLOT_LOG_NOTE, t, *t ? " \xC2\xB7 " : "");
        *title = dl->title = nt;
    }
    return out;
}

/* Matrix panels (the PE figure) with p rows to a pixel row: each column's
 * mean over the block's p rows (fewer in the last block; masked and
 * non-finite cells left out, a block all masked stays masked), copies owned
 * by dl, and *title gains "mean over p positions per row". The mean, not
 * --pool's max: a sinusoid's max over a block longer than its period is
 * about 1 wherever the block falls, a whole column drawn red; its mean is
 * near 0, drawn white, which is what the rows blend to. Every pixel is then
 * a colour of the bar; averaging the colours (4788 positions in 2300 pixel
 * rows) drew red and blue rows as mauve, on no colour of the bar. Columns
 * are not pooled. Returns NULL when out of memory. */
static const av_heatmap *pool_rows(av_dlist *dl, const av_heatmap *in, int n, int p, const char **title) {
    av_heatmap *out = av_dl_alloc(dl, (size_t)n * sizeof *out);
    if (!out) return NULL;
    for (int k = 0; k < n; k++) {
        const av_heatmap *h = &in[k];
        out[k] = *h;
        out[k].pool = p;
        out[k].n_q = (h->n_q + p - 1) / p;
        size_t cells = (size_t)out[k].n_q * h->n_k;
        float *w = av_dl_alloc(dl, cells * sizeof *w);
        unsigned char *m = av_dl_alloc(dl, cells);
        if (!w || !m) return NULL;
        for (int bi = 0; bi < out[k].n_q; bi++)
            for (int j = 0; j < h->n_k; j++) {
                double acc = 0.0;
                int seen = 0;
                for (int i = bi * p; i < imin(h->n_q, (bi + 1) * p); i++) {
                    double v = h->w[(size_t)i * h->n_k + j];
                    if ((h->masked && h->masked[(size_t)i * h->n_k + j]) || !isfinite(v)) continue;
                    acc += v;
                    seen++;
                }
                w[(size_t)bi * h->n_k + j] = seen ? (float)(acc / seen) : 0.0f;
                m[(size_t)bi * h->n_k + j] = seen == 0;
            }
        out[k].w = w;
        out[k].masked = m;
        if (h->q_labels && !(out[k].q_labels = pool_labels(dl, h->q_labels, h->n_q, p))) return NULL;
    }
    const char *t = *title ? *title : "";
    size_t len = strlen(t) + 64;
    char *nt = av_dl_alloc(dl, len);
    if (!nt) return NULL;
    snprintf(nt, len, "%s%smean over %d positions per row", t, *t ? " \xC2\xB7 " : "", p);
    *title = dl->title = nt;
    return out;
}

/* Decimals for values in the colour range: 2 while |v| < 10, then 1, then 0;
 * below 0.005, where 2 decimals print both ends as 0.00, enough for two
 * significant digits of the larger end (0.0040), and -1 (cells print no
 * numbers; the colour bar's ticks give the scale) past 6: scores of
 * ±2.8e-40 (--weights with X ~ 1e-20) printed 0.00 in every cell of colours
 * spanning the whole map. */
static int value_decimals(const color_range *cr) {
    double a = fmax(fabs((double)cr->vmin), fabs((double)cr->vmax));
    if (a >= 0.005 || !(a > 0)) return a < 10 ? 2 : a < 100 ? 1 : 0;
    int dec = 1 - (int)floor(log10(a));
    return dec > 6 ? -1 : dec;
}

/* Font size for cell values, or 0 when values do not fit cells of cw x ch
 * px. The widest value is the range's end with the longer text. */
static float value_font(const color_range *cr, float cw, float ch) {
    float fs = fminf(cw, ch) * 0.3f;
    if (fs > 16) fs = 16;
    if (fs < 10) fs = 10;
    int dec = value_decimals(cr);
    if (dec < 0) return 0;
    char lo[48], hi[48];
    fmt_num(lo, sizeof lo, cr->vmin, dec);
    fmt_num(hi, sizeof hi, cr->vmax, dec);
    float w = fmaxf(text_w(lo, fs, 0), text_w(hi, fs, 0));
    if (w + 6 > cw || fs * 1.1f + 4 > ch) return 0;
    return fs;
}

#define NEG_INF "\xE2\x88\x92\xE2\x88\x9E" /* −∞ */

/* The heat map of one panel at (x0, y0), bw x bh px, cells of cw x ch px
 * (fractional when cells are averaged), its frame, and values (when
 * `values` and they fit);
 * masked cells get "−∞" on a small plate when hm->neg_inf_cells. */
static const av_dl_item *emit_heat(av_dlist *dl, const av_heatmap *hm, const color_range *cr, int x0, int y0,
                                   int bw, int bh, float cw, float ch, int values) {
    av_dl_heat heat = {.w = hm->w, .masked = hm->masked, .n_q = hm->n_q, .n_k = hm->n_k, .vmin = cr->vmin,
                       .vmax = cr->vmax, .cmap = cr->cmap};
    av_dl_heatmap(dl, x0, y0, x0 + bw, y0 + bh, &heat);
    size_t at = dl->n - 1;
    frame_box(dl, x0, y0, x0 + bw, y0 + bh);
    if (dl->oom || dl->items[at].kind != AV_DL_HEAT) return NULL;
    float fs = values ? value_font(cr, cw, ch) : 0.0f;
    int dec = value_decimals(cr);
    if (fs > 0) {
        for (int i = 0; i < hm->n_q; i++) {
            for (int j = 0; j < hm->n_k; j++) {
                int b[4];
                av_rgb c;
                av_dl_cell_box(&dl->items[at], i, j, b);
                float cx = (b[0] + b[2]) * 0.5f, cy = (b[1] + b[3]) * 0.5f;
                if (av_heat_cell_color(&dl->items[at].heat, i, j, &c)) {
                    if (!hm->neg_inf_cells) continue;
                    float tw = text_w(NEG_INF, fs, 0);
                    int px0 = (int)floorf(cx - tw * 0.5f) - 3, px1 = (int)ceilf(cx + tw * 0.5f) + 3;
                    int py0 = (int)floorf(cy - fs * 0.6f), py1 = (int)ceilf(cy + fs * 0.6f);
                    av_dl_rect(dl, px0, py0, px1, py1, AV_HATCH_BG);
                    av_dl_text_run(dl, NEG_INF, cx, cy + MID * fs, fs, AV_ANCHOR_MIDDLE, 0, 0, INK);
                    continue;
                }
                char num[48];
                fmt_num(num, sizeof num, hm->w[(size_t)i * (size_t)hm->n_k + (size_t)j], dec);
                av_dl_text_run(dl, num, cx, cy + MID * fs, fs, AV_ANCHOR_MIDDLE, 0, 0, contrast_ink(c));
            }
        }
    }
    return &dl->items[at];
}

/* White 1 px lines between the cells of a heat item (the mask figure, so
 * single cells can be counted). */
static void emit_cell_lines(av_dlist *dl, const av_dl_item *heat) {
    for (int j = 1; j < heat->heat.n_k; j++) {
        int b[4];
        av_dl_cell_box(heat, 0, j, b);
        av_dl_rect(dl, b[0], heat->y0, b[0] + 1, heat->y1, WHITE);
    }
    for (int i = 1; i < heat->heat.n_q; i++) {
        int b[4];
        av_dl_cell_box(heat, i, 0, b);
        av_dl_rect(dl, heat->x0, b[1], heat->x1, b[1] + 1, WHITE);
    }
}

/* Query labels right-aligned left of the heat item, with ticks. */
static void emit_y_labels(av_dlist *dl, const av_dl_item *heat, const axis_labels *a) {
    int x = heat->x0 - 1;
    av_dl_item h = *heat; /* copy: dl->items may move while we append */
    for (int i = 0; i < a->n; i += a->step) {
        int b[4];
        av_dl_cell_box(&h, i, 0, b);
        int cy = (b[1] + b[3]) / 2;
        av_dl_rect(dl, x - TICK, cy, x, cy + 1, FRAME);
        av_dl_text_run(dl, a->s[i], (float)(x - TICK - TICK_PAD), cy + 0.5f + MID * a->size, a->size,
                       AV_ANCHOR_END, 0, 0, INK);
    }
}

/* Key labels under the heat item, with ticks; horizontal or rotated. */
static void emit_x_labels(av_dlist *dl, const av_dl_item *heat, const axis_labels *a) {
    int y = heat->y1 + 1;
    av_dl_item h = *heat;
    for (int j = 0; j < a->n; j += a->step) {
        int b[4];
        av_dl_cell_box(&h, 0, j, b);
        int cx = (b[0] + b[2]) / 2;
        av_dl_rect(dl, cx, y, cx + 1, y + TICK, FRAME);
        if (a->rot90 && !label_upright(a->s[j], a->w[j], (float)(b[2] - b[0])))
            av_dl_text_run(dl, a->s[j], cx + 0.5f + MID * a->size, (float)(y + TICK + TICK_PAD), a->size,
                           AV_ANCHOR_END, 1, 0, INK);
        else
            av_dl_text_run(dl, a->s[j], cx + 0.5f, y + TICK + TICK_PAD + ASC * a->size, a->size,
                           AV_ANCHOR_MIDDLE, 0, 0, INK);
    }
}

/* Tick step for the colour bar: 0.2 for [0, 1], 0.5 for [−1, 1], else the
 * 1-2-5 step giving about 4..8 ticks (±3.5 → 1); *decimals receives the
 * digits to print: those the step needs, none for a whole step ("−2", "0",
 * "2" for ±4.6; "150" for ±163), as matplotlib's ticks ("0.0" .. "1.0" keep
 * theirs). */
static double cbar_step(double lo, double hi, int *decimals) {
    double span = hi - lo, raw = span / 7.0;
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p, step = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    step *= p;
    int d = (int)ceil(-log10(step) - 1e-9);
    *decimals = d < 0 ? 0 : d;
    return step;
}

/* A colour-bar tick label for v on a scale of ticks `step` apart (dec
 * decimals from cbar_step), as matplotlib would: fixed point ("0.2",
 * "−0.5", "20") while that stays short, and scientific notation with the
 * fewest mantissa digits that tell the ticks apart ("5e−31", "1.5e−30",
 * "2e+06") when the step is below 1e-4 or the values reach 1e6, so --vmax
 * 1e-30 does not print 31 decimals. 0 is "0" in scientific mode. True minus
 * signs (U+2212). */
static void fmt_tick(char out[48], double v, double step, int dec, double top) {
    if (!(step < 1e-4 || top >= 1e6)) {
        fmt_num(out, 48, v, dec);
        return;
    }
    if (fabs(v) < step * 1e-6) {
        snprintf(out, 48, "0");
        return;
    }
    int e = (int)floor(log10(fabs(v)));
    int digits = e - (int)floor(log10(step) + 1e-9); /* mantissa decimals that resolve one step */
    if (digits < 0) digits = 0;
    if (digits > 17) digits = 17; /* a double has no more digits to tell apart */
    double m = fabs(v) / pow(10.0, e);
    char mant[24];
    snprintf(mant, sizeof mant, "%.*f", digits, m);
    if (strcmp(mant, "10") == 0 || strncmp(mant, "10.", 3) == 0) { /* 9.99… rounded up: one more decade */
        e++;
        snprintf(mant, sizeof mant, "%.*f", digits, m / 10.0);
    }
    if (strchr(mant, '.')) { /* drop trailing zeros: "5.0" → "5" */
        char *z = mant + strlen(mant) - 1;
        while (*z == '0') *z-- = 0;
        if (*z == '.') *z = 0;
    }
    snprintf(out, 48, "%s%se%s%d", v < 0 ? "\xE2\x88\x92" : "", mant, e < 0 ? "\xE2\x88\x92" : "+", abs(e));
}

/* Widest colour-bar tick label, px. */
static float cbar_labels_w(const color_range *cr, float size) {
    int dec;
    double step = cbar_step(cr->vmin, cr->vmax, &dec);
    float m = 0;
    for (double v = ceil(cr->vmin / step - 1e-9) * step; v <= cr->vmax + step * 1e-6; v += step) {
        char num[48];
        fmt_tick(num, fabs(v) < step * 1e-6 ? 0.0 : v, step, dec, fmax(fabs(cr->vmin), fabs(cr->vmax)));
        float w = text_w(num, size, 0);
        if (w > m) m = w;
    }
    return m;
}

/* A colour bar with values beyond an end ends there in a triangle of that
 * end's colour, as matplotlib's colorbar(extend='min' / 'max'): below the
 * bar for a log bar's values below its bottom (cr->clipped), over it for
 * values above its top (cr->above); the bar's width, its length 5 % of the
 * ramp's (extendfrac), within rows [y0, y1), the ramp's place, so nothing
 * else moves (as matplotlib shrinks the bar to make room); framed as the
 * bar is, 1 px. Returns the rows it takes from that end of the bar. */
static int emit_cbar_extend(av_dlist *dl, const color_range *cr, int x0, int y0, int y1, int up) {
    int ext = imax(8, (int)lrint((y1 - y0) * 0.05 / 1.05)); /* ext = 0.05 of the ramp left, y1 - y0 - ext */
    float yb = up ? (float)(y0 + ext) : (float)(y1 - ext), tip = up ? (float)y0 - 1 : (float)y1 + 1;
    float xl = (float)x0 - 1, xr = (float)(x0 + CBAR_W) + 1, dir = up ? -1.0f : 1.0f;
    float xc = (xl + xr) * 0.5f, half = (xr - xl) * 0.5f, len = fabsf(tip - yb), side = sqrtf(half * half + len * len);
    const float ox[3] = {xl, xr, xc}, oy[3] = {yb, yb, tip};
    av_dl_triangle(dl, ox, oy, FRAME);
    /* the fill 1 px inside the slanted sides (their normals move x by side/len, the tip by side/half) */
    const float ix[3] = {xl + side / len, xr - side / len, xc}, iy[3] = {yb, yb, tip - dir * side / half};
    unsigned char c0[3]; /* the colour of the cells beyond: av_heat_cell_color clamps them to t = 0 or 1 */
    av_cmap_rgb(cr->cmap, up ? 1.0 : 0.0, c0);
    av_dl_triangle(dl, ix, iy, (av_rgb){c0[0], c0[1], c0[2]});
    return ext;
}

/* What the triangles stand for, in dl->clipped (the metadata's Clipped). */
static void cbar_clipped_note(av_dlist *dl, const color_range *cr, int lo_ext, int hi_ext) {
    char lo[32], hi[32], *note = av_dl_alloc(dl, 400);
    if (!note) return;
    av_plot_g3(lo, sizeof lo, cr->bottom);
    av_plot_g3(hi, sizeof hi, cr->top);
    int k = 0;
    note[0] = 0;
    if (hi_ext)
        k = snprintf(note, 400, "%zu of %zu cells are above the colour bar's top, %s, and drawn in its colour (the "
                     "triangle over the bar)", cr->above, cr->visible, hi);
    if (lo_ext && k >= 0 && k < 400)
        snprintf(note + k, 400 - (size_t)k, "%s%zu of %zu cells are below the colour bar's bottom, %s, and drawn in its "
                 "colour (the triangle under the bar)", k ? "; " : "", cr->clipped, cr->visible, lo);
    dl->clipped = note;
}

/* Colour bar at x0, spanning rows [y0, y1): one rect per pixel row (value at
 * the row centre), frame, ticks with labels, and the rotated title. Returns
 * the x just right of everything drawn. */
static int emit_cbar(av_dlist *dl, const color_range *cr, int x0, int y0, int y1, float fs) {
    int ext = cr->log && cr->clipped ? emit_cbar_extend(dl, cr, x0, y0, y1, 0) : 0;
    int ext_hi = cr->above ? emit_cbar_extend(dl, cr, x0, y0, y1, 1) : 0;
    if (ext || ext_hi) cbar_clipped_note(dl, cr, ext, ext_hi);
    y1 -= ext; /* the ramp and its ticks between the triangles */
    y0 += ext_hi;
    int h = y1 - y0;
    /* The ramp: one value per pixel row (t at the row centre), as a HEAT
     * item marked ramp (the list owns the values). */
    float *ramp = av_dl_alloc(dl, (size_t)(h > 0 ? h : 1) * sizeof *ramp);
    if (ramp && h > 0) {
        for (int y = 0; y < h; y++) ramp[y] = (float)(1.0 - (y + 0.5) / h);
        av_dl_heat heat = {.w = ramp, .n_q = h, .n_k = 1, .vmin = 0.0f, .vmax = 1.0f, .cmap = cr->cmap, .ramp = 1};
        av_dl_heatmap(dl, x0, y0, x0 + CBAR_W, y1, &heat);
    }
    if (ext || ext_hi) { /* the frame goes on round a triangle, not between it and the ramp */
        if (!ext_hi) av_dl_rect(dl, x0 - 1, y0 - 1, x0 + CBAR_W + 1, y0, FRAME);
        if (!ext) av_dl_rect(dl, x0 - 1, y1, x0 + CBAR_W + 1, y1 + 1, FRAME);
        av_dl_rect(dl, x0 - 1, y0, x0, y1, FRAME);
        av_dl_rect(dl, x0 + CBAR_W, y0, x0 + CBAR_W + 1, y1, FRAME);
    } else {
        frame_box(dl, x0, y0, x0 + CBAR_W, y1);
    }
    int dec;
    double step = cbar_step(cr->vmin, cr->vmax, &dec);
    int xt = x0 + CBAR_W + 1;
    for (double v = ceil(cr->vmin / step - 1e-9) * step; v <= cr->vmax + step * 1e-6; v += step) {
        double t = (v - cr->vmin) / (cr->vmax - cr->vmin);
        int y = y0 + (int)lrint((1.0 - t) * (h - 1));
        char num[48];
        fmt_tick(num, fabs(v) < step * 1e-6 ? 0.0 : v, step, dec, fmax(fabs(cr->vmin), fabs(cr->vmax)));
        av_dl_rect(dl, xt, y, xt + TICK, y + 1, FRAME);
        av_dl_text_run(dl, num, (float)(xt + TICK + TICK_PAD), y + 0.5f + MID * fs, fs, AV_ANCHOR_START, 0, 0,
                       INK);
    }
    int xl = xt + TICK + TICK_PAD + (int)ceilf(cbar_labels_w(cr, fs)) + 10;
    av_dl_text_run(dl, cr->value_label, xl + ASC * fs, (y0 + y1) * 0.5f, fs, AV_ANCHOR_MIDDLE, 1, 0, INK);
    for (int k = 0; k < 2 && cr->more[k]; k++) { /* read bottom to top, the first line is the left one */
        xl += (int)ceilf(fs * LINE);
        av_dl_text_run(dl, cr->more[k], xl + ASC * fs, (y0 + y1) * 0.5f, fs, AV_ANCHOR_MIDDLE, 1, 0, INK);
    }
    return xl + (int)ceilf(fs * LINE);
}

/* Lines of the colour bar's title (1 to 3). */
static int cbar_title_lines(const color_range *cr) {
    return 1 + (cr->more[0] != NULL) + (cr->more[1] != NULL);
}

/* Length of the colour bar's rotated title, px: its longest line. */
static float cbar_title_len(const color_range *cr, float fs) {
    float w = text_w(cr->value_label, fs, 0);
    for (int k = 0; k < 2 && cr->more[k]; k++) w = fmaxf(w, text_w(cr->more[k], fs, 0));
    return w;
}

/* A copy of s[0..n) in the display list's memory; NULL when out of memory. */
static char *dl_strndup(av_dlist *dl, const char *s, size_t n) {
    char *d = av_dl_alloc(dl, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The colour bar's title on more lines when in one it would make the bar
 * longer than the maps beside it (hh px tall, and at least the CBAR_MIN_H
 * every bar gets): a bar that runs far below its maps reads as if it
 * belonged to something else. The title breaks before its " (" and, if the
 * part in brackets is still too long, after that part's first ", ":
 * "attention weight" / "(auto: 0–0.0447," / "99th percentile)". Returns 1
 * when it broke the title (the key is then wider: the caller fits the maps
 * again), 0 when it did not (short enough, no " (", or broken already), -1
 * when out of memory. */
static int cbar_split(av_dlist *dl, color_range *cr, float fs, int hh) {
    int room = imax(hh, CBAR_MIN_H) - 12;
    const char *open = cr->more[0] ? NULL : strstr(cr->value_label, " (");
    if (!open || open == cr->value_label || text_w(cr->value_label, fs, 0) <= room) return 0;
    char *first = dl_strndup(dl, cr->value_label, (size_t)(open - cr->value_label));
    if (!first) return -1;
    const char *rest = open + 1, *comma = strstr(rest, ", ");
    if (text_w(rest, fs, 0) > room && comma) {
        char *second = dl_strndup(dl, rest, (size_t)(comma + 1 - rest));
        if (!second) return -1;
        cr->more[0] = second;
        cr->more[1] = comma + 2;
    } else {
        cr->more[0] = rest;
    }
    cr->value_label = first;
    return 1;
}

/* Height of a colour bar next to maps hh px tall: hh, but at least
 * CBAR_MIN_H and its rotated title's length plus a margin, so tick labels
 * never crowd and the title stays beside the bar (a row of small model-view
 * panels is only ~20 px tall). */
static int cbar_h(const color_range *cr, float fs, int hh) {
    return imax(hh, imax(CBAR_MIN_H, (int)ceilf(cbar_title_len(cr, fs)) + 12));
}

/* Width of the colour bar block (from its left edge). */
static int cbar_block_w(const color_range *cr, float fs) {
    return CBAR_W + 1 + TICK + TICK_PAD + (int)ceilf(cbar_labels_w(cr, fs)) + 10 +
           cbar_title_lines(cr) * (int)ceilf(fs * LINE);
}

#define LEGEND_H 18

/* The hatched cells' legend text: meta->mask_legend, or what the cells of hm hold there: AV_PLOT_LEGEND_SCORES
 * when hm prints "−∞" (scores before the softmax), else AV_PLOT_LEGEND_WEIGHTS (weights, and the mask figure:
 * a hatched pair gets both). "masked (−∞)" on every figure read on a weights figure as a weight of −∞ (a
 * tester's report). */
static const char *legend_text(const av_plot_meta *meta, const av_heatmap *hm) {
    if (meta && meta->mask_legend) return meta->mask_legend;
    return hm && hm->neg_inf_cells ? AV_PLOT_LEGEND_SCORES : AV_PLOT_LEGEND_WEIGHTS;
}

static int legend_w(float fs, const char *text) {
    return CBAR_W + 8 + (int)ceilf(text_w(text, fs, 0));
}

/* Legend: a hatched swatch the width of the colour bar, then the text. */
static void emit_legend(av_dlist *dl, int x0, int y0, float fs, const char *text) {
    av_dl_hatch(dl, x0, y0, x0 + CBAR_W, y0 + LEGEND_H);
    frame_box(dl, x0, y0, x0 + CBAR_W, y0 + LEGEND_H);
    av_dl_text_run(dl, text, (float)(x0 + CBAR_W + 8), y0 + LEGEND_H * 0.5f + MID * fs, fs, AV_ANCHOR_START, 0, 0,
                   INK);
}

#define SEES_TEXT "query sees key"

static int mask_legend_w(float fs, const char *text) {
    return CBAR_W + 8 + (int)ceilf(fmaxf(text_w(SEES_TEXT, fs, 0), text_w(text, fs, 0)));
}

/* The mask figure's key: a swatch of the "visible" colour, then the
 * hatched "masked" entry (text) under it. Returns the y under both. */
static int emit_mask_legend(av_dlist *dl, int x0, int y0, float fs, av_rgb visible, const char *text) {
    av_dl_rect(dl, x0, y0, x0 + CBAR_W, y0 + LEGEND_H, visible);
    frame_box(dl, x0, y0, x0 + CBAR_W, y0 + LEGEND_H);
    av_dl_text_run(dl, SEES_TEXT, (float)(x0 + CBAR_W + 8), y0 + LEGEND_H * 0.5f + MID * fs, fs, AV_ANCHOR_START,
                   0, 0, INK);
    emit_legend(dl, x0, y0 + LEGEND_H + 12, fs, text);
    return y0 + 2 * LEGEND_H + 12;
}

/* ---------------------------------------------------------------- title lines */

#define MAX_TITLE_LINES 8

/* Between the pieces of a generated title ("head 0 of 8 · mask: none"):
 * title_make breaks lines only there. */
static const char SEP[] = " \xC2\xB7 "; /* " · " */

typedef struct {
    char *line[MAX_TITLE_LINES];
    int n;
    float w; /* widest line, px */
    int cut; /* 1 when a line was cut with "…": the title did not fit its lines */
} title_lines;

static void title_free(title_lines *t) {
    for (int k = 0; k < t->n; k++) free(t->line[k]);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------- line breaks in the user's title */

#define USER_TITLE_LINES 3 /* a title piece wider than the figure wraps over at most this many lines */
#define TITLE_WIDEN_MAX 1000 /* a long generated title piece widens a figure up to this, px; a wider one wraps */

/* The first code point of the cluster s[0..n). */
static unsigned cluster_cp(const char *s, size_t n) {
    unsigned cp = 0xFFFD;
    const char *why;
    if (!av_utf8_decode((const unsigned char *)s, n, &cp, &why)) cp = 0xFFFD;
    return cp;
}

/* Punctuation a line does not start with (closing brackets and quotes,
 * commas, stops, the ideographic iteration and prolonged-sound marks) or
 * end with (opening brackets and quotes): JIS X 4051 / GB/T 15834's kinsoku
 * sets, the common ones; UAX #14 classes CL, CP, EX, IS, NS and OP. */
static int no_break_before(unsigned cp) {
    if (cp < 0x80) return cp && strchr(",.:;!?)]}%", (int)cp) != NULL;
    static const unsigned CLOSE[] = {0x3001, 0x3002, 0x3005, 0x3009, 0x300B, 0x300D, 0x300F, 0x3011, 0x3015,
                                     0x3017, 0x30FC, 0xFF01, 0xFF09, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F,
                                     0xFF3D, 0xFF5D, 0x2019, 0x201D, 0x2025, 0x2026}; /* 、。々〉》」』】〕〗ー！）
                                                                                      * ，．：；？］｝’”‥… */
    for (size_t k = 0; k < sizeof CLOSE / sizeof CLOSE[0]; k++)
        if (cp == CLOSE[k]) return 1;
    return 0;
}

static int no_break_after(unsigned cp) {
    if (cp < 0x80) return cp == '(' || cp == '[' || cp == '{';
    static const unsigned OPEN[] = {0x3008, 0x300A, 0x300C, 0x300E, 0x3010, 0x3014, 0x3016,
                                    0xFF08, 0xFF3B, 0xFF5B, 0x2018, 0x201C}; /* 〈《「『【〔〖（［｛‘“ */
    for (size_t k = 0; k < sizeof OPEN / sizeof OPEN[0]; k++)
        if (cp == OPEN[k]) return 1;
    return 0;
}

/* 1 if a line may break between the clusters a and b (first code points):
 * after spaces (which the break drops), after a '/' (a folder's path, UAX #14
 * class SY), or next to a wide character (Chinese and Japanese text breaks
 * between characters, UAX #14 class ID; Korean only at its spaces:
 * av_utf8_breaks_beside), unless punctuation forbids it
 * (no_break_before/after). */
static int break_between(unsigned a, unsigned b) {
    int sa = av_utf8_is_separator(a), sb = av_utf8_is_separator(b);
    if (sb) return 0;
    if (sa) return 1;
    if (no_break_before(b) || no_break_after(a)) return 0;
    if (a == '/') return 1;
    return av_utf8_breaks_beside(a) || av_utf8_breaks_beside(b);
}

/* plot.h. fit_text's, but a cut comes after the last whole word (break_between) of
 * what fits, spaces dropped, then "…", as Python's textwrap.shorten cuts:
 * a --title's third line ended "... used in the lectur…". A line with no
 * break in what fits is cut inside at whole clusters. NULL on OOM. */
char *av_plot_fit_title_line(const char *s, float size, float max_w) {
    char *out = fit_text(s, size, 1, max_w);
    if (!out || strcmp(out, s) == 0) return out;
    size_t kept = strlen(out) - 3, len = strlen(s), brk = 0; /* kept: the bytes before the "…" */
    unsigned prev = 0;
    for (size_t at = 0; at <= kept && at < len;) {
        size_t n = av_utf8_cluster_len(s + at, len - at);
        unsigned cp = cluster_cp(s + at, n);
        /* a break before cp, or a word that ends at cp's separator: "hello world foo bar…" fit, and
         * break_between(r, ' ') is 0, so the cut fell back to "hello world foo…" */
        if (at > 0 && (break_between(prev, cp) || av_utf8_is_separator(cp))) brk = at;
        prev = cp;
        at += n;
    }
    while (brk > 0 && (s[brk - 1] == ' ' || s[brk - 1] == '\t')) brk--;
    if (brk > 0) memcpy(out + brk, "\xE2\x80\xA6", 4);
    return out;
}

/* s[from..to) without its leading and trailing white space, as a line:
 * appended to t (its width kept in t->w), cut with "…" past max_w.
 * 0 or -1 (OOM). */
static int title_add_line(title_lines *t, const char *s, size_t from, size_t to, float size, float max_w) {
    while (from < to && (s[from] == ' ' || s[from] == '\t')) from++;
    while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t')) to--;
    char *piece = malloc(to - from + 1);
    if (!piece) return -1;
    memcpy(piece, s + from, to - from);
    piece[to - from] = 0;
    char *fitted = av_plot_fit_title_line(piece, size, max_w);
    if (fitted && strcmp(fitted, piece) != 0) t->cut = 1;
    free(piece);
    if (!fitted) return -1;
    t->line[t->n++] = fitted;
    t->w = fmaxf(t->w, text_w(fitted, size, 1));
    return 0;
}

/* Width of s[from..to) without trailing spaces, bold, px. -1 on OOM. */
static float span_w(const char *s, size_t from, size_t to, float size) {
    while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t')) to--;
    char *tmp = malloc(to - from + 1);
    if (!tmp) return -1;
    memcpy(tmp, s + from, to - from);
    tmp[to - from] = 0;
    float w = text_w(tmp, size, 1);
    free(tmp);
    return w;
}

/* The title piece s[0..len), wider than max_w, as up to
 * USER_TITLE_LINES lines of t (and never past MAX_TITLE_LINES), each filled
 * greedily up to its last break (break_between; never at the spaces of
 * " = ", which keep an equation such as "θ = 10000" whole) that fits: a word, or a
 * CJK character, longer than a line is broken between its clusters. What
 * the last line still cannot hold is cut with "…". 0 or -1 (OOM). */
static int title_wrap_piece(title_lines *t, const char *s, size_t len, float size, float max_w) {
    size_t pos = 0;
    for (int lines = 0; pos < len && t->n < MAX_TITLE_LINES; lines++) {
        while (pos < len && (s[pos] == ' ' || s[pos] == '\t')) pos++;
        float rest = span_w(s, pos, len, size);
        if (rest < 0) return -1;
        if (rest <= max_w || lines == USER_TITLE_LINES - 1 || t->n == MAX_TITLE_LINES - 1)
            return title_add_line(t, s, pos, len, size, max_w);
        size_t fit_brk = 0, fit_cluster = 0; /* the last break, and the last cluster end, that fit */
        unsigned prev = 0, prev2 = 0;
        for (size_t at = pos; at < len;) {
            size_t n = av_utf8_cluster_len(s + at, len - at);
            unsigned cp = cluster_cp(s + at, n);
            /* "θ = 10000" stays on one line: no line starts or ends with its " = " (a RoPE model's pe.png title
             * broke as "…, θ" / "= 10000)") */
            int in_equation = av_utf8_is_separator(prev) && (cp == '=' || prev2 == '=');
            if (at > pos && break_between(prev, cp) && !in_equation) {
                float w = span_w(s, pos, at, size);
                if (w < 0) return -1;
                if (w > max_w) break;
                fit_brk = at;
            }
            if (!fit_brk) { /* no break fits yet: how many whole clusters do */
                float w = span_w(s, pos, at + n, size);
                if (w < 0) return -1;
                if (w <= max_w || at == pos) fit_cluster = at + n;
            }
            prev2 = prev;
            prev = cp;
            at += n;
        }
        size_t end = fit_brk ? fit_brk : fit_cluster;
        if (title_add_line(t, s, pos, end, size, max_w) != 0) return -1;
        pos = end;
    }
    return 0;
}

/* Split title at " · " so that lines fit max_w where possible. A piece
 * that is still too wide (the user's --title, a long --weights folder)
 * wraps at spaces, after a '/', or between CJK characters, over up to
 * USER_TITLE_LINES lines (title_wrap_piece); only the last line's overflow
 * is cut with "…". Returns 0 or -1 (OOM). */
static int title_make(title_lines *t, const char *title, float size, float max_w) {
    memset(t, 0, sizeof *t);
    if (!title || !*title) return 0;
    const char *p = title;
    while (*p && t->n < MAX_TITLE_LINES) {
        /* Greedy: extend the line piece by piece while it fits. */
        const char *end = strstr(p, SEP);
        const char *best = end ? end : p + strlen(p);
        while (end) {
            const char *next = strstr(end + strlen(SEP), SEP);
            const char *cand = next ? next : end + strlen(end);
            char *tmp = malloc((size_t)(cand - p) + 1);
            if (!tmp) return -1;
            memcpy(tmp, p, (size_t)(cand - p));
            tmp[cand - p] = 0;
            float w = text_w(tmp, size, 1);
            free(tmp);
            if (w > max_w) break;
            best = cand;
            end = next;
        }
        if (t->n == MAX_TITLE_LINES - 1) best = p + strlen(p);
        if (t->n < MAX_TITLE_LINES - 1) { /* one piece wider than a line: wrapped, not cut */
            float w = span_w(p, 0, (size_t)(best - p), size);
            if (w < 0) return -1;
            if (w > max_w) {
                if (title_wrap_piece(t, p, (size_t)(best - p), size, max_w) != 0) return -1;
                p = *best ? best + strlen(SEP) : best;
                continue;
            }
        }
        char *piece = malloc((size_t)(best - p) + 1);
        if (!piece) return -1;
        memcpy(piece, p, (size_t)(best - p));
        piece[best - p] = 0;
        char *fitted = av_plot_fit_title_line(piece, size, max_w);
        if (fitted && strcmp(fitted, piece) != 0) t->cut = 1;
        free(piece);
        if (!fitted) return -1;
        t->line[t->n++] = fitted;
        float w = text_w(fitted, size, 1);
        if (w > t->w) t->w = w;
        p = *best ? best + strlen(SEP) : best;
    }
    return 0;
}

/* Greedy packing of n pieces of widths w (joined by a separator of width
 * sep) into lines no wider than lim, where it can: the number of lines, and
 * in first[] (when not NULL) the index of each line's first piece. */
static int pack_pieces(const float *w, int n, float sep, float lim, int *first) {
    int lines = 0;
    float at = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || at + sep + w[i] > lim) {
            if (first) first[lines] = i;
            lines++;
            at = w[i];
        } else {
            at += sep + w[i];
        }
    }
    return lines;
}

/* Even out the lines of a title that title_make wrapped at " · " (no --title
 * part, no piece cut): the same number of lines, as narrow as they can be,
 * instead of full lines followed by a short last one (the grid figure's
 * "... · positions: sinusoidal" over a lone "mask: none" becomes "... ·
 * random weights (untrained, seed 42)" over "positions: sinusoidal · mask:
 * none"). Like CSS text-wrap: balance: the smallest width at which greedy
 * packing still needs no more lines, found by bisection on the pieces'
 * widths (each measured once; a line is taken as its pieces plus the
 * separators); the lines are then measured whole and the title is left as it
 * was if one of them would not fit max_w. 0 or -1 (OOM). */
static int title_balance(title_lines *t, const char *title, float size, float max_w) {
    enum { MAX_PIECES = 32 };
    if (!title || t->n < 2 || t->n >= MAX_TITLE_LINES - 1) return 0;
    for (int k = 0; k < t->n; k++)
        if (strstr(t->line[k], "\xE2\x80\xA6")) return 0; /* a piece was cut with "…": leave it */
    const char *start[MAX_PIECES];
    size_t len[MAX_PIECES];
    float w[MAX_PIECES];
    int n = 0;
    for (const char *p = title; *p; n++) {
        if (n == MAX_PIECES) return 0;
        const char *end = strstr(p, SEP);
        start[n] = p;
        len[n] = end ? (size_t)(end - p) : strlen(p);
        if ((w[n] = span_w(p, 0, len[n], size)) < 0) return -1;
        p = end ? end + strlen(SEP) : p + len[n];
    }
    float sep = text_w(SEP, size, 1), lo = 0, hi = max_w;
    for (int i = 0; i < n; i++) lo = fmaxf(lo, w[i]);
    if (lo > max_w || pack_pieces(w, n, sep, hi, NULL) > t->n) return 0;
    for (int it = 0; it < 24 && hi - lo > 0.5f; it++) {
        float mid = (lo + hi) / 2;
        if (pack_pieces(w, n, sep, mid, NULL) <= t->n) hi = mid;
        else lo = mid;
    }
    int first[MAX_PIECES + 1];
    int lines = pack_pieces(w, n, sep, hi, first);
    first[lines] = n;
    title_lines b = {0};
    for (int k = 0; k < lines; k++) {
        const char *from = start[first[k]], *to = start[first[k + 1] - 1] + len[first[k + 1] - 1];
        char *line = malloc((size_t)(to - from) + 1);
        if (!line) {
            title_free(&b);
            return -1;
        }
        memcpy(line, from, (size_t)(to - from));
        line[to - from] = 0;
        b.line[b.n++] = line;
        float lw = text_w(line, size, 1);
        if (lw > max_w) { /* measured whole, it does not fit after all: keep title_make's lines */
            title_free(&b);
            return 0;
        }
        b.w = fmaxf(b.w, lw);
    }
    title_free(t);
    *t = b;
    return 0;
}

/* Width of the widest " · "-separated piece of title after its first skip
 * bytes (bold, px), so a figure can widen (up to TITLE_WIDEN_MAX) instead
 * of wrapping a piece. */
static float title_widest_piece(const char *title, size_t skip, float size) {
    float m = 0;
    if (!title) return 0;
    const char *p = title + (skip < strlen(title) ? skip : strlen(title));
    if (strncmp(p, SEP, strlen(SEP)) == 0) p += strlen(SEP);
    while (*p) {
        const char *end = strstr(p, SEP);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *piece = malloc(len + 1);
        if (!piece) return m;
        memcpy(piece, p, len);
        piece[len] = 0;
        m = fmaxf(m, text_w(piece, size, 1));
        free(piece);
        p = end ? end + strlen(SEP) : p + len;
    }
    return m;
}

static int title_h(const title_lines *t, float size) {
    return t->n ? (int)ceilf(t->n * size * LINE) : 0;
}

static void emit_title(av_dlist *dl, const title_lines *t, float cx, int y0, float size) {
    for (int k = 0; k < t->n; k++)
        av_dl_text_run(dl, t->line[k], cx, y0 + k * size * LINE + ASC * size, size, AV_ANCHOR_MIDDLE, 0, 1, BLACK);
}

/* ---------------------------------------------------------------- checks */

static av_status check_hm(const av_heatmap *hm, int max_cols, int need_w, av_err *err) {
    if (!hm || (need_w && !hm->w)) return av_fail(err, AV_ERUNTIME, "cannot plot: no attention weights given");
    if (hm->n_q < 1 || hm->n_k < 1 || hm->n_q > AV_PLOT_MAX_TOKENS || hm->n_k > max_cols)
        return av_fail(err, AV_ERUNTIME, "cannot plot a %d x %d matrix (allowed 1..%d rows, 1..%d columns)", hm->n_q,
                       hm->n_k, AV_PLOT_MAX_TOKENS, max_cols);
    return AV_OK;
}

/* Note the characters no font has, and the emoji sequences drawn in parts,
 * in every text item of dl. */
static void count_missing(const av_dlist *dl) {
    for (size_t k = 0; k < dl->n; k++) {
        if (dl->items[k].kind != AV_DL_TEXT) continue;
        unsigned cps[64];
        int n = av_text_missing_codepoints(dl->items[k].text.utf8, dl->items[k].text.bold, cps, 64);
        for (int c = 0; c < n && c < 64; c++) note_missing(cps[c]);
        av_text_seq seq[16];
        int m = av_text_split_sequences(dl->items[k].text.utf8, dl->items[k].text.bold, seq, 16);
        for (int c = 0; c < m && c < 16; c++)
            note_split(dl->items[k].text.utf8 + seq[c].start, seq[c].len, seq[c].kind);
    }
}

const av_dl_item *av_plot_panel(const av_dlist *dl, int p) {
    for (size_t k = 0; k < dl->n; k++)
        if (dl->items[k].kind == AV_DL_HEAT && !dl->items[k].heat.ramp && p-- == 0) return &dl->items[k];
    return NULL;
}

/* ---------------------------------------------------------------- scaling */

int av_plot_fit_dpi(int w, int h, const av_plot_meta *meta) {
    int dpi;
    pixel_factor(w, h, meta, &dpi);
    return dpi;
}

void av_plot_scale_laid_out(av_dlist *dl, const av_plot_meta *meta) {
    count_missing(dl); /* --train's curves, film strip and GIF frames too: their boxes went unreported */
    av_dl_scale(dl, pixel_factor(dl->width, dl->height, meta, &dl->dpi));
}

/* Multiply every coordinate, font size and the hatch by pixel_factor's f
 * (av_dl_scale), and record the dpi it gives for the PNG's pHYs and the
 * SVG's size. Counts missing glyphs first (av_plot_scale_laid_out). */
static void dl_finish(av_dlist *dl, const av_plot_meta *meta) {
    av_plot_scale_laid_out(dl, meta);
}

/* End of a layout: note in dl whether the title was cut (av_plot_write
 * counts the file, av_plot_cut_titles), free the label and title scratch,
 * then either report an out-of-memory (oom set, or the display list ran out)
 * or finish dl. */
static av_status layout_done(av_dlist *dl, axis_labels *yl, axis_labels *xl, title_lines *tl,
                             const av_plot_meta *meta, int oom, av_err *err) {
    dl->title_cut = tl->cut;
    labels_free(yl);
    labels_free(xl);
    title_free(tl);
    if (oom || dl->oom) return av_fail(err, AV_ERUNTIME, "out of memory while laying out the figure");
    dl_finish(dl, meta);
    return AV_OK;
}

/* ---------------------------------------------------------------- shared layout steps */

/* Every panel passes check_hm and has the shape of the first; what names
 * the figure in the error ("panels of different shapes side by side"). */
static av_status check_panels(const av_heatmap *hms, int n, int max_cols, int need_w, int narrower,
                              const char *what, av_err *err) {
    for (int p = 0; p < n; p++) {
        av_status st = check_hm(&hms[p], max_cols, need_w, err);
        if (st) return st;
        if (hms[p].n_q != hms[0].n_q || hms[p].n_k > hms[0].n_k || (!narrower && hms[p].n_k != hms[0].n_k))
            return av_fail(err, AV_ERUNTIME, "cannot plot %s (%dx%d vs %dx%d)", what, hms[p].n_q, hms[p].n_k,
                           hms[0].n_q, hms[0].n_k);
    }
    return AV_OK;
}

/* Left edge of the maps (margin, y-axis title, widest y label, tick) and
 * the band under them (tick, x labels, x-axis title), px, for the labels as
 * last planned. */
static int maps_left(const axis_labels *yl, int axis_band) {
    return MARGIN + axis_band + 6 + (int)ceilf(yl->max_w) + TICK_PAD + TICK + 1;
}

static int maps_below(const axis_labels *xl, int axis_band) {
    return 1 + TICK + TICK_PAD + (int)ceilf(labels_x_band(xl)) + 10 + axis_band;
}

/* Title: wrap to the content width at " · ", widening *width for one long
 * piece up to TITLE_WIDEN_MAX (and fig_max); a piece wider than that wraps
 * over up to USER_TITLE_LINES lines (title_make), as the user's first
 * meta->user_title bytes always do: they never widen it. A --weights folder
 * of 150 characters made a 3-token figure 2375 px wide, its map a tenth of
 * that (a new user's report). Without --title the lines are then evened
 * out (title_balance). 0 or -1 (OOM). */
static int title_fit(title_lines *tl, const char *title, float size, int fig_max, const av_plot_meta *meta,
                     int *width) {
    float widest = title_widest_piece(title, meta ? meta->user_title : 0, size);
    *width = imax(*width, imin(imin(fig_max, TITLE_WIDEN_MAX), (int)ceilf(widest) + 2 * MARGIN));
    size_t user = meta ? meta->user_title : 0;
    if (title_make(tl, title, size, (float)(*width - 2 * MARGIN)) != 0) return -1;
    return user ? 0 : title_balance(tl, title, size, (float)(*width - 2 * MARGIN));
}

/* Centre the title over the maps (left..right) when it fits there, else
 * over the figure of the given width. */
static void emit_title_over(av_dlist *dl, const title_lines *tl, int left, int right, int width, float size) {
    float cx = (left + right) * 0.5f;
    if (cx - tl->w / 2 < MARGIN || cx + tl->w / 2 > width - MARGIN) cx = width * 0.5f;
    emit_title(dl, tl, cx, MARGIN, size);
}

/* ---------------------------------------------------------------- single-panel figures */

typedef enum { FIG_HEAD, FIG_MATRIX, FIG_MASK } fig_kind;

static int clampi(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* The maps of a single-panel figure, px of the unscaled layout. */
typedef struct {
    int hx0, below, axis_band;     /* left edge of the first map; band under the maps; axis-title band */
    int shift;                     /* px the maps, labels and key moved right, centred under a wider title */
    int hw, hh;                    /* one map's width and height */
    float fcw, fch;                /* one cell's width and height (< 1: cells averaged) */
    int gap_x, panel_band, key_w;  /* between maps; panel titles above them; the key right of them */
} single_box;

/* The mask figure draws every visible cell at MASK_T on a 0..1 range; the
 * list owns the values. 0 or -1 (OOM). */
static int mask_values(av_dlist *dl, av_heatmap *hm, color_range *cr) {
    float *v = av_dl_alloc(dl, (size_t)hm->n_q * (size_t)hm->n_k * sizeof *v);
    if (!v) return -1;
    for (size_t k = 0; k < (size_t)hm->n_q * (size_t)hm->n_k; k++) v[k] = (float)MASK_T;
    hm->w = v;
    hm->neg_inf_cells = 0;
    cr->vmin = 0.0f;
    cr->vmax = 1.0f;
    return 0;
}

/* First guess at the map size. Head and mask: square cells, 96 px for short
 * sentences, shrinking so the map stays near 800 px, never under 3 px
 * (T = 512 → 1536 px). Matrix: per axis, the maps together about
 * MATRIX_W x MATRIX_H px, cells 1..96 px, columns beyond that width averaged. */
static void single_maps(single_box *b, const av_heatmap *hm, int n, fig_kind kind) {
    int cw, ch;
    if (kind == FIG_MATRIX) {
        int mw = MATRIX_W / n;
        cw = clampi(mw / hm->n_k, 1, 96);
        ch = clampi(MATRIX_H / hm->n_q, 1, 96);
        b->hw = hm->n_k > mw ? mw : cw * hm->n_k;
        b->hh = ch * hm->n_q;
    } else {
        int nmax = imax(hm->n_q, hm->n_k);
        int cell = imin(96, imax(3, 800 / nmax));
        if (cell * nmax < 240) cell = 240 / nmax; /* T = 1, 2: keep the map >= 240 px */
        b->hw = cell * hm->n_k;
        b->hh = cell * hm->n_q;
    }
    b->fcw = (float)b->hw / hm->n_k;
    b->fch = (float)b->hh / hm->n_q;
}

/* The least room between two titles side by side, as a fraction of their font
 * size: matplotlib's tight_layout pads neighbouring subplots by w_pad = 1.08
 * font sizes. At 8 px, 9 px of 16 px text apart, two panel titles read as
 * one line, their gap hardly wider than the space between their words. */
#define TITLE_PAD 1.08f

/* The width of map p of hms side by side, px: b->hw, or less for a matrix
 * panel with fewer columns than the first (the cos panel of an odd
 * d_model's PE keeps the first's cell width), at least 1 px. */
static int single_map_w(const single_box *b, const av_heatmap *hms, int p) {
    return hms[p].n_k < hms[0].n_k ? imax(1, (int)lroundf(b->fcw * hms[p].n_k)) : b->hw;
}

/* The gap between maps side by side: 28 px, or more when two neighbouring
 * panel titles or axis titles under them (each centred over its map) would
 * come nearer than TITLE_PAD of their font size: a PE figure of -d 2 (one
 * column a map, 96 px) drew "sin: even dimensions 2i" into "cos: odd
 * dimensions 2i+1" and "i (dimension 2i)" into "i (dimension 2i+1)". A
 * narrower last map (an odd d_model's cos panel) starts at the same pitch,
 * so its centre is nearer. The same holds for upright x labels (xl, as
 * planned), the last drawn under one map and the first under the next:
 * -d 2048 set "1000" and "0" 13 px of 15 px text apart. */
static int single_gap(const single_box *b, const av_heatmap *hms, int n, const font_sizes *fs, const axis_labels *xl) {
    int gap = 28;
    for (int p = 1; p < n; p++) {
        float w0 = b->hw, w1 = (float)single_map_w(b, hms, p);
        int nl = imin(xl->n, hms[p - 1].n_k), jl = nl > 0 && xl->step > 0 ? (nl - 1) / xl->step * xl->step : -1;
        if (jl >= 0 && xl->s && !xl->rot90) { /* label j's centre is its cell's, as emit_x_labels draws it */
            long long bw = b->hw, nk = hms[p - 1].n_k, bw1 = (long long)w1, nk1 = hms[p].n_k;
            float right = (float)((jl * bw / nk + (jl + 1) * bw / nk) / 2) + xl->w[jl] / 2;
            float left = (float)((bw1 / nk1) / 2) - xl->w[0] / 2;
            gap = imax(gap, (int)ceilf(right + ceilf(TITLE_PAD * xl->size) - left - w0));
        }
        float need = 0;
        for (int t = 0; t < 2; t++) {
            const char *a = t ? hms[p - 1].k_title : hms[p - 1].panel_title;
            const char *c = t ? hms[p].k_title : hms[p].panel_title;
            if (t && !a) a = "key (column)";
            if (t && !c) c = "key (column)";
            if (!a || !c) continue;
            float size = t ? fs->axis : fs->panel;
            need = fmaxf(need, (text_w(a, size, 0) + text_w(c, size, 0)) / 2 + ceilf(TITLE_PAD * size));
        }
        gap = imax(gap, (int)ceilf(need - w0 - (w1 - w0) / 2));
    }
    return gap;
}

/* How far right of the last map's right edge (single_map_w wide, so an odd
 * d_model's narrower cos map) the colour bar starts: CBAR_GAP, or more when
 * that map's panel title or axis title (centred over it) runs past its right
 * edge and would come nearer the bar than TITLE_PAD of its font size: -d 2's
 * "cos: odd dimensions 2i+1" ended 6 px from the bar's "1.0". */
static int single_key_gap(const single_box *b, const av_heatmap *hms, int n, const font_sizes *fs) {
    const av_heatmap *hp = &hms[n - 1];
    float bw = (float)single_map_w(b, hms, n - 1), need = 0;
    for (int t = 0; t < 2; t++) {
        const char *a = t ? (hp->k_title ? hp->k_title : "key (column)") : hp->panel_title;
        float size = t ? fs->axis : fs->panel;
        if (a) need = fmaxf(need, (text_w(a, size, 0) - bw) / 2 + ceilf(TITLE_PAD * size));
    }
    return imax(CBAR_GAP, (int)ceilf(need));
}

/* Fit within fig_max: label bands depend on the cell size, so plan,
 * measure, shrink the maps (averaging cells below 1 px) and plan again,
 * widening the gap between maps when their titles need it (single_gap:
 * hms are the n maps, hm stands for the first). 0 or -1 (OOM). */
static int single_fit(single_box *b, axis_labels *yl, axis_labels *xl, const av_heatmap *hms, const av_heatmap *hm,
                      int n, fig_kind kind, const font_sizes *fs) {
    for (int pass = 0; pass < 3; pass++) {
        if (labels_plan_y(yl, b->fch) != 0 || labels_plan_x(xl, b->fcw) != 0) return -1;
        b->gap_x = single_gap(b, hms, n, fs, xl);
        b->hx0 = maps_left(yl, b->axis_band);
        b->below = maps_below(xl, b->axis_band);
        int fixed_w = b->hx0 + (n - 1) * b->gap_x + CBAR_GAP + b->key_w + MARGIN;
        int fixed_h = MARGIN + (int)ceilf(2 * fs->title * LINE) + 15 + b->panel_band + b->below + MARGIN;
        int room_w = imax(16, (FIG_MAX - fixed_w) / n), room_h = imax(16, FIG_MAX - fixed_h);
        if (b->hw <= room_w && b->hh <= room_h) break;
        if (kind == FIG_MATRIX) {
            b->hw = imin(b->hw, room_w);
            b->hh = imin(b->hh, room_h);
        } else { /* keep cells square */
            double k = fmin((double)room_w / b->hw, (double)room_h / b->hh);
            b->hw = imax(1, (int)floor(b->hw * k));
            b->hh = imax(1, (int)floor(b->hh * k));
        }
        if (b->hw >= hm->n_k) b->hw = b->hw / hm->n_k * hm->n_k; /* whole-pixel cells while they are >= 1 px */
        if (b->hh >= hm->n_q) b->hh = b->hh / hm->n_q * hm->n_q;
        b->fcw = (float)b->hw / hm->n_k;
        b->fch = (float)b->hh / hm->n_q;
    }
    b->gap_x = single_gap(b, hms, n, fs, xl);
    return 0;
}

/* The maps with their labels, axis titles and panel titles, the top of the
 * maps at hy0 (hm stands for the first panel). 0 or -1 (OOM). */
static int emit_single_maps(av_dlist *dl, const av_heatmap *hms, const av_heatmap *hm, int n, fig_kind kind,
                            const single_box *b, int hy0, const color_range *cr, const axis_labels *yl,
                            const axis_labels *xl, const font_sizes *fs) {
    for (int p = 0; p < n; p++) {
        const av_heatmap *hp = p ? &hms[p] : hm;
        int x0 = b->hx0 + p * (b->hw + b->gap_x);
        /* a matrix panel with fewer columns than the first (the cos panel of an odd d_model's PE) keeps
         * the first's cell width, so it is drawn narrower, from the same left edge, with its own labels */
        int bw = b->hw;
        axis_labels xp = *xl;
        if (hp->n_k < hm->n_k) {
            bw = single_map_w(b, hms, p);
            xp.n = imin(xl->n, hp->n_k);
        }
        const av_dl_item *heat =
            emit_heat(dl, hp, cr, x0, hy0, bw, b->hh, b->fcw, b->fch, kind != FIG_MASK && !cr->log);
        if (!heat) return -1;
        av_dl_item h = *heat;
        if (kind == FIG_MASK && b->fcw >= 8 && b->fch >= 8) emit_cell_lines(dl, &h);
        if (p == 0) emit_y_labels(dl, &h, yl);
        emit_x_labels(dl, &h, &xp);
        av_dl_text_run(dl, hp->k_title ? hp->k_title : "key (column)", x0 + bw * 0.5f,
                       (float)(hy0 + b->hh + b->below - b->axis_band) + ASC * fs->axis, fs->axis, AV_ANCHOR_MIDDLE,
                       0, 0, INK);
        if (hp->panel_title)
            av_dl_text_run(dl, hp->panel_title, x0 + bw * 0.5f, (float)(hy0 - 1 - 6), fs->panel,
                           AV_ANCHOR_MIDDLE, 0, 0, BLACK);
    }
    av_dl_text_run(dl, hm->q_title ? hm->q_title : "query (row)", MARGIN + b->shift + ASC * fs->axis, hy0 + b->hh * 0.5f,
                   fs->axis, AV_ANCHOR_MIDDLE, 1, 0, INK);
    return 0;
}

/* The key at x = cbx: the mask legend, or the colour bar beside the maps
 * (hy0..hy0 + hh) with the masked-cell legend under it when cells are masked. */
static void emit_single_key(av_dlist *dl, fig_kind kind, const color_range *cr, int cbx, int hy0, int hh,
                            int masked, float fs_cbar, const char *legend) {
    if (kind == FIG_MASK) {
        unsigned char c[3];
        av_cmap_rgb(cr->cmap, MASK_T, c);
        emit_mask_legend(dl, cbx, hy0, fs_cbar, (av_rgb){c[0], c[1], c[2]}, legend);
    } else {
        int ch = cbar_h(cr, fs_cbar, hh);
        emit_cbar(dl, cr, cbx, hy0, hy0 + ch, fs_cbar);
        if (masked) emit_legend(dl, cbx, hy0 + ch + 26, fs_cbar, legend);
    }
}

/* Head, matrix and mask figures: n heat maps side by side (n > 1 only for
 * matrix figures; same shape, sharing the y labels), with labels, axis
 * titles (each panel's k_title under it), panel titles when given, the title
 * and a key (colour bar, or the mask legend). */
static av_status layout_single(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                               const av_plot_meta *meta, fig_kind kind, av_err *err) {
    av_dl_init(dl, 0, 0, WHITE);
    if (n < 1 || n > 8 || !hms) return av_fail(err, AV_ERUNTIME, "cannot plot %d panels side by side (allowed 1..8)", n);
    av_status st = check_panels(hms, n, kind == FIG_MATRIX ? AV_PLOT_MAX_COLS : AV_PLOT_MAX_TOKENS, kind != FIG_MASK,
                                kind == FIG_MATRIX,
                                "panels of different shapes side by side", err);
    if (st) return st;
    const font_sizes fs = HEAD_FS;
    color_range cr = range_of(meta);
    av_plot_meta mask_meta;
    if (kind == FIG_MASK && meta) { /* the mask figure has no values to range or log */
        mask_meta = *meta;
        mask_meta.auto_pct = 0;
        meta = &mask_meta;
        cr.log = 0;
    }
    if (kind != FIG_MATRIX && !(hms = prepare_panels(dl, hms, n, AV_PLOT_HEAD_CELLS, meta, &cr, &title)))
        return av_fail(err, AV_ERUNTIME, "out of memory while laying out the figure");
    av_heatmap hmv = hms[0];
    const av_heatmap *hm = &hmv;
    if (kind == FIG_MASK && mask_values(dl, &hmv, &cr) != 0)
        return av_fail(err, AV_ERUNTIME, "out of memory while laying out the figure");
    if (kind == FIG_MASK) cr.above = 0; /* a legend, no colour bar */
    int masked = 0, titled = 0;
    for (int p = 0; p < n; p++) {
        masked |= any_masked(p ? &hms[p] : hm);
        titled |= hms[p].panel_title != NULL;
    }
    single_box b = {0};
    single_maps(&b, hm, n, kind);

    axis_labels yl, xl;
    title_lines tl = {0};
    memset(&yl, 0, sizeof yl);
    memset(&xl, 0, sizeof xl);
    const av_heatmap *rows_in = hms; /* a matrix figure's panels before its rows are pooled */
    const char *title_in = title;
    for (int pass = 0;; pass++) {
        /* columns keep one label a column: a matrix figure pools rows only */
        if (labels_make(&yl, hm->q_labels, hm->n_q, hm->pool, fs.tick, kind == FIG_MATRIX) != 0 ||
            labels_make(&xl, hm->k_labels, hm->n_k, kind == FIG_MATRIX ? 1 : hm->pool, fs.tick, 0) != 0)
            goto oom;
        b.key_w = kind == FIG_MASK ? mask_legend_w(fs.cbar, legend_text(meta, hm)) : cbar_block_w(&cr, fs.cbar);
        if (kind != FIG_MASK && masked) b.key_w = imax(b.key_w, legend_w(fs.cbar, legend_text(meta, hm)));
        b.panel_band = titled ? (int)ceilf(fs.panel * LINE) + 4 : 0;
        b.axis_band = (int)ceilf(fs.axis * LINE);
        if (single_fit(&b, &yl, &xl, hms, hm, n, kind, &fs) != 0) goto oom;
        if (kind != FIG_MASK) { /* a long colour-bar title goes on two lines, and the maps are fitted again */
            int split = cbar_split(dl, &cr, fs.cbar, b.hh);
            if (split < 0) goto oom;
            if (split) {
                b.key_w = imax(cbar_block_w(&cr, fs.cbar), masked ? legend_w(fs.cbar, legend_text(meta, hm)) : 0);
                if (single_fit(&b, &yl, &xl, hms, hm, n, kind, &fs) != 0) goto oom;
            }
        }
        /* more positions than pixel rows (a 4788-token PE in 2300 rows): pool them (pool_rows), and fit again */
        if (kind != FIG_MATRIX || b.hh >= hm->n_q || pass == 3) break;
        int p = (rows_in[0].n_q + b.hh - 1) / b.hh;
        if (p <= hm->pool) p = hm->pool + 1;
        title = title_in;
        if (!(hms = pool_rows(dl, rows_in, n, p, &title))) goto oom;
        hmv = hms[0];
        labels_free(&yl);
        labels_free(&xl);
        b = (single_box){0};
        single_maps(&b, hm, n, kind);
    }
    int maps_right = b.hx0 + (n - 1) * (b.hw + b.gap_x) + single_map_w(&b, hms, n - 1);
    int cbx = maps_right + single_key_gap(&b, hms, n, &fs);
    int width = cbx + b.key_w + MARGIN, content_w = width;
    if (title_fit(&tl, title, fs.title, FIG_MAX, meta, &width) != 0) goto oom;
    if (width > content_w) { /* a title piece (a long --weights folder) widened the figure: centre the rest */
        b.shift = (width - content_w) / 2;
        b.hx0 += b.shift;
        maps_right += b.shift;
        cbx += b.shift;
    }

    /* Vertical extents. */
    int hy0 = MARGIN + title_h(&tl, fs.title) + (tl.n ? 14 : 0) + 1 + b.panel_band;
    int bottom = hy0 + b.hh + b.below;
    if (kind == FIG_MASK) bottom = imax(bottom, hy0 + 2 * LEGEND_H + 12);
    else bottom = imax(bottom, hy0 + cbar_h(&cr, fs.cbar, b.hh) + (masked ? 26 + LEGEND_H : 0));
    dl->width = width;
    dl->height = bottom + MARGIN;

    if (emit_single_maps(dl, hms, hm, n, kind, &b, hy0, &cr, &yl, &xl, &fs) != 0) goto oom;
    emit_single_key(dl, kind, &cr, cbx, hy0, b.hh, masked, fs.cbar, legend_text(meta, hm));
    emit_title_over(dl, &tl, b.hx0, maps_right, width, fs.title);
    return layout_done(dl, &yl, &xl, &tl, meta, 0, err);
oom:
    return layout_done(dl, &yl, &xl, &tl, meta, 1, err);
}

av_status av_plot_layout_head(av_dlist *dl, const av_heatmap *hm, const av_plot_meta *meta, av_err *err) {
    return layout_single(dl, hm, 1, hm ? hm->title : NULL, meta, FIG_HEAD, err);
}

av_status av_plot_layout_matrix(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                                const av_plot_meta *meta, av_err *err) {
    return layout_single(dl, hms, n, title, meta, FIG_MATRIX, err);
}

av_status av_plot_layout_mask(av_dlist *dl, const av_heatmap *hm, const av_plot_meta *meta, av_err *err) {
    return layout_single(dl, hm, 1, hm ? hm->title : NULL, meta, FIG_MASK, err);
}

/* ---------------------------------------------------------------- grid figure */

/* The panels of a grid figure, px of the unscaled layout. Panels go in
 * groups (a model view's group is one layer's heads, meta->grid_cols);
 * a group starts a new row, and wraps over several rows when it is wider
 * than cols. Without groups (group 0) panels simply fill rows of cols. */
typedef struct {
    int cols, rows;            /* panels per row; rows */
    int group;                 /* panels per group, 0 = none */
    int left, below;           /* left edge of the first column; band under a labelled row */
    int axis_band, panel_title; /* axis-title band; panel-title band above each row */
    int gap_x, gap_y, key_w;   /* between panels (at least gap_min, and wide enough that panel
                                * titles never touch); the key right of them */
    int gap_min;               /* least gap between panels across, px */
    float panel_fs;            /* panel-title font size, px */
    int row_titles_only;       /* 1 = only the first panel of each row is titled */
    int min_side;              /* panels are never made smaller than this, px */
    int row_px;                /* px per row grid_fit counts besides gaps, titles and panels:
                                * 0 in the usual grid (as it always was), 1 (the frame's
                                * bottom line) when packed, where 60 rows add up */
    float title_w;             /* widest pair of neighbouring panel titles in a row, half of
                                * each (their centres are one panel pitch apart), px */
    float lead_w;              /* widest row-start title plus half its neighbour's, px: a
                                * row-start title wider than its panel starts at the panel's
                                * left edge (it never runs into the query labels) */
    int pw, ph;                /* one panel's width and height */
    int title_extra;           /* px the figure title takes beyond the two lines grid_fit counts */
} grid_box;

/* How tightly a grid is packed, tried in this order. A figure-maker wants
 * the usual grid first: 28 px gaps, 15 px panel titles, panels of at least
 * 16 px (what grids always had). When even the best arrangement of rows
 * leaves panels smaller than that, as in a 48-layer model (48 rows of 20 px
 * title bands and 20 px gaps alone fill 1900 px), the gaps shrink to a few
 * px and the titles to 11 px, every panel still titled ("L47 H0", "H1",
 * ...). Past that (some 60 rows or more) only the first panel of each row
 * keeps its title, which names the layer and the head it starts with, and
 * the other panels are read off by position. */
typedef struct {
    int panel_fs, gap_min, gap_y, min_side, row_titles_only, row_px;
} grid_style;

static const grid_style GRID_STYLES[] = {
    {15, 28, 20, 16, 0, 0}, /* the usual grid (GRID_FS.panel) */
    {11, 6, 4, 12, 0, 1},   /* compact: every panel titled */
    {11, 3, 3, 1, 1, 1},    /* tight: the rows' first panels titled */
};
#define N_GRID_STYLES (int)(sizeof GRID_STYLES / sizeof GRID_STYLES[0])

/* Columns: all in one row up to 4, 4 up to 16, then a square-ish grid;
 * meta->grid_cols overrides. */
static int grid_cols(int n, const av_plot_meta *meta) {
    int cols = n <= 4 ? n : n <= 16 ? 4 : (int)ceil(sqrt((double)n));
    if (meta && meta->grid_cols > 0) cols = imin(meta->grid_cols, n);
    return cols;
}

/* 1 when a group wraps over several rows (cols < group). */
static int grid_wraps(const grid_box *g) {
    return g->group > 0 && g->cols < g->group;
}

/* Row and column of panel p. */
static void grid_slot(const grid_box *g, int p, int *r, int *c) {
    if (grid_wraps(g)) {
        int per = (g->group + g->cols - 1) / g->cols, i = p % g->group; /* rows per group; index in it */
        *r = p / g->group * per + i / g->cols;
        *c = i % g->cols;
    } else {
        *r = p / g->cols;
        *c = p % g->cols;
    }
}

/* The panel at row r, column c of n, or -1 when that place is empty. */
static int grid_panel_at(const grid_box *g, int n, int r, int c) {
    if (r < 0 || c < 0 || c >= g->cols) return -1;
    int p = r * g->cols + c;
    if (grid_wraps(g)) {
        int per = (g->group + g->cols - 1) / g->cols, i = (r % per) * g->cols + c;
        if (i >= g->group) return -1;
        p = r / per * g->group + i;
    }
    return p < n ? p : -1;
}

/* The title over panel p (name is scratch for "head p"), or NULL when it
 * has none: a row's first panel and a group's first panel show panel_title,
 * the others panel_short when given; tight grids title the rows' first
 * panels only. */
static const char *grid_title(const av_heatmap *hms, int p, const grid_box *g, char name[32]) {
    int r, c;
    grid_slot(g, p, &r, &c);
    int first = c == 0 || (g->group > 0 && p % g->group == 0);
    if (g->row_titles_only && c != 0) return NULL;
    if (!first && hms[p].panel_short) return hms[p].panel_short;
    if (hms[p].panel_title) return hms[p].panel_title;
    snprintf(name, 32, "head %d", p);
    return name;
}

/* Gap between panels pw px wide: gap_min, or more when two neighbouring
 * panel titles (each centred over its panel, or a row's first title that is
 * wider than the panel starting at its left edge) would come nearer than
 * TITLE_PAD of their font size, as in the single-row layout (single_gap): at
 * 8 px, `--compare order -H 2 --pad-to 12 "hello world"` set "… max 0 (real
 * rows)" and "positions sinusoidal: …" 9 px of 15 px text apart. */
static int title_gap(const grid_box *g, int pw) {
    int pad = (int)ceilf(TITLE_PAD * g->panel_fs);
    return imax(imax(g->gap_min, (int)ceilf(g->title_w) + pad - pw), (int)ceilf(g->lead_w - 1.5f * pw) + pad);
}

/* Panel size: cells of 260/T px (at least 1), then shrink (averaging
 * cells if need be) until the figure fits fig_max, down to g->min_side.
 * Label bands depend on the cell size, so plan with the first guess and
 * re-plan after. 0 or -1 (OOM). */
static int grid_fit(grid_box *g, axis_labels *yl, axis_labels *xl, int n_q, int n_k,
                    const font_sizes *fs) {
    int nmax = imax(n_q, n_k);
    float cell = floorf(260.0f / nmax);
    if (cell < 1) cell = 1;
    for (int pass = 0; pass < 3; pass++) {
        if (labels_plan_y(yl, cell) != 0 || labels_plan_x(xl, cell) != 0) return -1;
        g->gap_x = title_gap(g, (int)(cell * n_k));
        g->left = maps_left(yl, g->axis_band);
        g->below = maps_below(xl, g->axis_band);
        int fixed_w = g->left + CBAR_GAP + g->key_w + MARGIN - g->gap_x;
        int fixed_h = MARGIN + (int)ceilf(2 * fs->title * LINE) + 14 + g->title_extra + g->below + MARGIN - g->gap_y;
        int room_w = (FIG_MAX - fixed_w) / g->cols - g->gap_x;
        int room_h = (FIG_MAX - fixed_h) / g->rows - g->gap_y - g->panel_title - g->row_px;
        int side = imin(room_w, room_h); /* largest square panel that fits */
        if (side < g->min_side) side = g->min_side;
        float want = cell * nmax;
        if (want <= side) break;
        cell = floorf((float)side / nmax);
        if (cell < 1) cell = (float)side / nmax; /* < 1 px: cells get averaged */
    }
    if (cell >= 1) {
        g->pw = (int)cell * n_k;
        g->ph = (int)cell * n_q;
    } else {
        g->pw = (int)lrintf(cell * n_k);
        g->ph = (int)lrintf(cell * n_q);
    }
    if (g->pw < 1) g->pw = 1;
    if (g->ph < 1) g->ph = 1;
    g->gap_x = title_gap(g, g->pw);
    return 0;
}

/* Top edge of each row's panels below a title block of title_bottom px;
 * rows with a panel that has none below it get an x label band. */
static void grid_rows(int *row_y, const grid_box *g, int n, int title_bottom) {
    int y = title_bottom;
    for (int r = 0; r < g->rows; r++) {
        row_y[r] = y + g->panel_title;
        y = row_y[r] + g->ph + 1;
        int needs_labels = 0;
        for (int c = 0; c < g->cols && !needs_labels; c++)
            needs_labels = grid_panel_at(g, n, r, c) >= 0 && grid_panel_at(g, n, r + 1, c) < 0;
        if (r < g->rows - 1) y += needs_labels ? g->below : g->gap_y;
    }
}

/* The right edge of the grid's panels, px. */
static int grid_right_of(const grid_box *g) {
    return g->left + g->cols * g->pw + (g->cols - 1) * g->gap_x;
}

/* The bottom of everything the grid draws (rows placed at row_y, by
 * grid_rows): the x labels under the panels, or the colour bar and the
 * masked-cell legend under it, px, before the margin. */
static int grid_bottom(const grid_box *g, const int *row_y, const color_range *cr, const font_sizes *fs, int masked) {
    int heat_bottom = row_y[g->rows - 1] + g->ph;
    int cbar_bottom = row_y[0] + cbar_h(cr, fs->cbar, heat_bottom - row_y[0]);
    return imax(heat_bottom + g->below, cbar_bottom + (masked ? 26 + LEGEND_H : 0));
}

/* How far right of the grid's right edge the colour bar starts: CBAR_GAP,
 * or more when the title of a row's last panel (centred over it, or from
 * its left edge when it runs right only, as emit_grid_panels draws it) runs
 * past that edge and would come nearer the bar than TITLE_PAD of its font
 * size: `--compare order -H 2 --pad-to 12 "hello world"` ran "positions
 * rope: head 0 max 0.0996 (real rows)" 17 px over the bar's left edge. */
static int grid_key_gap(const grid_box *g, const av_heatmap *hms, int n) {
    int right = grid_right_of(g);
    float need = 0;
    for (int p = 0; p < n; p++) {
        int r, c;
        char name[32];
        grid_slot(g, p, &r, &c);
        if (grid_panel_at(g, n, r, c + 1) >= 0) continue; /* a panel to its right: title_gap keeps them apart */
        const char *t = grid_title(hms, p, g, name);
        if (!t) continue;
        float tw = text_w(t, g->panel_fs, 0), x0 = (float)(g->left + c * (g->pw + g->gap_x));
        float end = g->row_titles_only || (c == 0 && tw > g->pw) ? x0 + tw : x0 + (g->pw + tw) * 0.5f;
        need = fmaxf(need, end + ceilf(TITLE_PAD * g->panel_fs) - right);
    }
    return imax(CBAR_GAP, (int)ceilf(need));
}

/* Lay out the panels in `cols` columns packed as `style`: g's rows, gaps,
 * title widths and panel size, and the figure's size (*w, *h, with the
 * figure title `title` wrapped as it will be). 0 or -1 (OOM). */
static int grid_try(grid_box *g, int cols, const grid_style *style, const av_heatmap *hms, int n, const char *title,
                    const av_plot_meta *meta, axis_labels *yl, axis_labels *xl, const color_range *cr, int masked,
                    const font_sizes *fs, int *row_y, int *w, int *h) {
    g->cols = cols;
    int r, c;
    grid_slot(g, n - 1, &r, &c);
    g->rows = r + 1;
    g->panel_fs = (float)style->panel_fs;
    g->gap_min = style->gap_min;
    g->gap_y = style->gap_y;
    g->min_side = style->min_side;
    g->row_titles_only = style->row_titles_only;
    g->row_px = style->row_px;
    g->panel_title = (int)ceilf(g->panel_fs * LINE) + 4;
    g->title_w = g->lead_w = 0;
    float left_w = 0; /* the title of the panel to the left of p in its row */
    for (int p = 0; p < n; p++) {
        char name[32];
        const char *t = grid_title(hms, p, g, name);
        float tw = t ? text_w(t, g->panel_fs, 0) : 0;
        grid_slot(g, p, &r, &c);
        if (c && !g->row_titles_only) g->title_w = fmaxf(g->title_w, (left_w + tw) / 2);
        if (c == 1 && !g->row_titles_only) g->lead_w = fmaxf(g->lead_w, left_w + tw / 2);
        left_w = tw;
    }
    /* a title of three lines or more (a GIF frame's, with the model, the probe and which heads it shows)
     * took height grid_fit had not counted: at --dpi 600 attention.gif was 6000 x 6114 px, past
     * AV_PLOT_MAX_PX (a new user's report). The panels are fitted again with the title's real height */
    g->title_extra = 0;
    int title_bottom = 0;
    for (int pass = 0; pass < 3; pass++) {
        if (grid_fit(g, yl, xl, hms[0].n_q, hms[0].n_k, fs) != 0) return -1;
        *w = grid_right_of(g) + grid_key_gap(g, hms, n) + g->key_w + MARGIN;
        title_lines tl = {0};
        int fail = title_fit(&tl, title, fs->title, FIG_MAX, meta, w);
        title_bottom = MARGIN + title_h(&tl, fs->title) + (tl.n ? 14 : 0);
        title_free(&tl);
        if (fail) return -1;
        int extra = title_bottom - (MARGIN + (int)ceilf(2 * fs->title * LINE) + 14);
        if (extra <= g->title_extra) break;
        g->title_extra = extra;
    }
    grid_rows(row_y, g, n, title_bottom);
    *h = grid_bottom(g, row_y, cr, fs, masked) + MARGIN;
    return 0;
}

/* A layer's heads wrap over several rows (step 1b) only when that makes the
 * panels at least this much larger, 5/4 of their side: 12 x 32 heads get
 * 48 px panels in place of 36, 3 x 32 138 px in place of 36, while 2 x 8
 * (258 px against 240) keeps one row per layer. */
#define WRAP_GAIN_NUM 5
#define WRAP_GAIN_DEN 4

/* Choose the columns and packing, in this order, because a model view's
 * reader expects one layer per row (the title says "rows L0…L11") and
 * titled panels:
 *  1. the usual grid in grid_cols() columns, when it fits fig_max with
 *     panels of at least 16 px (so views that fit stay as they were);
 *     1b. but with groups (a model view, one layer per row) each group
 *     wraps over rows it fills (32 heads: 2 rows of 16, 4 of 8, ...) when
 *     the largest panels that fit so are WRAP_GAIN_NUM / WRAP_GAIN_DEN of
 *     step 1's side or more: 3 x 32 heads in one row per layer leave 36 px
 *     panels, 4 rows of 8 per layer 138 px;
 *  2. else each group (a layer's heads) on rows of its own, wrapped over
 *     1, 2, 3, ... rows when it is too wide (a 64-head layer: 4 rows of 16),
 *     the usual packing if it fits, else the compact one;
 *  3. else (some 60 layers or more) 2, 3, ... whole groups side by side in
 *     a row, each group's first panel naming it, usual or compact packing;
 *  4. else the tight packing, any of those arrangements;
 *  5. else (nothing fits: not seen up to AV_PLOT_MAX_PANELS) the tight
 *     packing that goes least over.
 * Within a step and packing, the largest panels win, but rows that a
 * group fills (64 heads as 4 rows of 16, not 13, 13, 13, 13 and 12) go
 * first: ragged rows only when no even wrap fits that packing (61 heads).
 * Leaves g laid out as chosen.
 * 0 or -1 (OOM). */
static int grid_choose(grid_box *g, const av_heatmap *hms, int n, const char *title, const av_plot_meta *meta,
                       axis_labels *yl, axis_labels *xl, const color_range *cr, int masked,
                       const font_sizes *fs, int *row_y) {
    const int first = grid_cols(n, meta), group = g->group ? g->group : 1;
    const int groups = g->group ? (n + g->group - 1) / g->group : 1;
    int best_cols = first, best_style = -1, best_side = -1, least_cols = first, least_over = INT_MAX, w, h;
    for (int step = 1; step <= 4 && best_side < 0; step++) {
        int s0 = step == 4 ? 2 : 0, s1 = step == 1 ? 0 : step == 4 ? 2 : 1;
        for (int s = s0; s <= s1 && best_side < 0; s++) {
            int prev = 0, ragged_cols = 0, ragged_side = -1; /* the best with a group's last row short */
            /* k: step 2, rows per group (k = 1..group); step 3, groups per row (2..groups);
             * step 4, both (k = 1..group, then group + 1.. for 2.. groups per row) */
            int k0 = step == 3 ? group + 1 : 1, k1 = step == 1 ? 1 : step == 2 ? group : group + groups - 1;
            for (int k = k0; k <= k1; k++) {
                int cols = step == 1 || !g->group ? first
                           : k <= group          ? imin(n, (group + k - 1) / k)
                                                 : (k - group + 1) * group;
                if (cols == prev || (step > 1 && s == 0 && cols == first)) continue; /* tried already */
                prev = cols;
                if (grid_try(g, cols, &GRID_STYLES[s], hms, n, title, meta, yl, xl, cr, masked, fs, row_y, &w,
                             &h) != 0)
                    return -1;
                int side = imin(g->pw, g->ph), over = imax(w, h) - FIG_MAX;
                int fits = over <= 0 && side >= GRID_STYLES[s].min_side;
                int even = !g->group || step == 1 || cols >= group || group % cols == 0;
                if (fits && even && side > best_side) best_cols = cols, best_style = s, best_side = side;
                if (fits && !even && side > ragged_side) ragged_cols = cols, ragged_side = side;
                if (s == N_GRID_STYLES - 1 && over < least_over) least_over = over, least_cols = cols;
            }
            if (best_side < 0 && ragged_side >= 0) best_cols = ragged_cols, best_style = s, best_side = ragged_side;
        }
    }
    if (best_side < 0) best_cols = least_cols, best_style = N_GRID_STYLES - 1; /* 5. */
    else if (best_style == 0 && best_cols == first && g->group && first == group) { /* 1, then maybe wrapped */
        int wrap_cols = 0, wrap_side = best_side;
        for (int cols = group - 1; cols >= 1; cols--) {
            if (group % cols) continue; /* only groups that fill their rows */
            if (grid_try(g, cols, &GRID_STYLES[0], hms, n, title, meta, yl, xl, cr, masked, fs, row_y, &w, &h) != 0)
                return -1;
            int side = imin(g->pw, g->ph);
            if (imax(w, h) <= FIG_MAX && side > wrap_side) wrap_cols = cols, wrap_side = side;
        }
        if (wrap_cols && wrap_side * WRAP_GAIN_DEN >= best_side * WRAP_GAIN_NUM) best_cols = wrap_cols;
    }
    return grid_try(g, best_cols, &GRID_STYLES[best_style], hms, n, title, meta, yl, xl, cr, masked, fs, row_y,
                    &w, &h);
}

/* The panels with their titles (see grid_title), y labels on the first
 * column and x labels under each panel with none below. 0 or -1 (OOM). */
static int emit_grid_panels(av_dlist *dl, const av_heatmap *hms, int n, const grid_box *g, const int *row_y,
                            const color_range *cr, const axis_labels *yl, const axis_labels *xl) {
    int n_q = hms[0].n_q, n_k = hms[0].n_k;
    for (int p = 0; p < n; p++) {
        int r, c;
        grid_slot(g, p, &r, &c);
        int x0 = g->left + c * (g->pw + g->gap_x), y0 = row_y[r];
        float pcw = (float)g->pw / n_k, pch = (float)g->ph / n_q;
        const av_dl_item *heat = emit_heat(dl, &hms[p], cr, x0, y0, g->pw, g->ph, pcw, pch, !cr->log);
        if (!heat) return -1;
        av_dl_item h = *heat;
        char name[32];
        const char *t = grid_title(hms, p, g, name);
        if (t && (g->row_titles_only || (c == 0 && text_w(t, g->panel_fs, 0) > g->pw))) /* runs right only */
            av_dl_text_run(dl, t, (float)x0, (float)(y0 - 1 - 6), g->panel_fs, AV_ANCHOR_START, 0, 0, BLACK);
        else if (t)
            av_dl_text_run(dl, t, x0 + g->pw * 0.5f, (float)(y0 - 1 - 6), g->panel_fs, AV_ANCHOR_MIDDLE, 0, 0, BLACK);
        if (c == 0) emit_y_labels(dl, &h, yl);
        if (grid_panel_at(g, n, r + 1, c) < 0) emit_x_labels(dl, &h, xl);
    }
    return 0;
}

/* The axis titles, colour bar (at x = cbx) and masked-cell legend around
 * the grid (panels from row_y[0] to heat_bottom, right edge grid_right). */
static void emit_grid_frame(av_dlist *dl, const av_heatmap *hm0, const grid_box *g, int top, int heat_bottom,
                            int grid_right, int cbx, int masked, const color_range *cr, const font_sizes *fs,
                            const char *legend) {
    int cbar_bottom = top + cbar_h(cr, fs->cbar, heat_bottom - top);
    av_dl_text_run(dl, hm0->q_title ? hm0->q_title : "query (row)", MARGIN + ASC * fs->axis,
                   (top + heat_bottom) * 0.5f, fs->axis, AV_ANCHOR_MIDDLE, 1, 0, INK);
    av_dl_text_run(dl, hm0->k_title ? hm0->k_title : "key (column)", (g->left + grid_right) * 0.5f,
                   (float)(heat_bottom + g->below - g->axis_band) + ASC * fs->axis, fs->axis, AV_ANCHOR_MIDDLE, 0, 0,
                   INK);
    emit_cbar(dl, cr, cbx, top, cbar_bottom, fs->cbar);
    if (masked) emit_legend(dl, cbx, cbar_bottom + 26, fs->cbar, legend);
}

/* av_plot_layout_grid with panels pooled to at most max_cells tokens per
 * side; *px_side = the drawn panels' smaller side in px, to see whether
 * each cell got a pixel. */
static av_status layout_grid_cells(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                                   const av_plot_meta *meta, int max_cells, int *px_side, av_err *err) {
    av_dl_init(dl, 0, 0, WHITE);
    *px_side = 0;
    if (n < 1 || n > AV_PLOT_MAX_PANELS || !hms)
        return av_fail(err, AV_ERUNTIME, "cannot plot a grid of %d panels (allowed 1..%d)", n, AV_PLOT_MAX_PANELS);
    av_status st = check_panels(hms, n, AV_PLOT_MAX_TOKENS, 1, 0, "heads of different shapes in one grid", err);
    if (st) return st;
    const font_sizes fs = GRID_FS;
    color_range cr = range_of(meta);
    if (!(hms = prepare_panels(dl, hms, n, max_cells, meta, &cr, &title)))
        return av_fail(err, AV_ERUNTIME, "out of memory while laying out the figure");
    int n_q = hms[0].n_q, n_k = hms[0].n_k;
    grid_box g = {0};
    g.group = meta && meta->grid_cols > 0 ? meta->grid_cols : 0;
    int *row_y = malloc(((size_t)n + 1) * sizeof *row_y); /* one top edge per row */

    axis_labels yl, xl;
    title_lines tl = {0};
    memset(&xl, 0, sizeof xl);
    if (labels_make(&yl, hms[0].q_labels, n_q, hms[0].pool, fs.tick, 0) != 0 ||
        labels_make(&xl, hms[0].k_labels, n_k, hms[0].pool, fs.tick, 0) != 0 || !row_y)
        goto oom;
    int masked = 0;
    for (int p = 0; p < n; p++) masked |= any_masked(&hms[p]);
    g.axis_band = (int)ceilf(fs.axis * LINE);
    g.key_w = imax(cbar_block_w(&cr, fs.cbar), masked ? legend_w(fs.cbar, legend_text(meta, &hms[0])) : 0);
    if (grid_choose(&g, hms, n, title, meta, &yl, &xl, &cr, masked, &fs, row_y) != 0) goto oom;
    grid_rows(row_y, &g, n, 0); /* the rows' span beside the colour bar; placed again below */
    int split = cbar_split(dl, &cr, fs.cbar, row_y[g.rows - 1] + g.ph - row_y[0]);
    if (split < 0) goto oom;
    if (split) { /* a long colour-bar title goes on two lines, and the panels are fitted again */
        g.key_w = imax(cbar_block_w(&cr, fs.cbar), masked ? legend_w(fs.cbar, legend_text(meta, &hms[0])) : 0);
        if (grid_fit(&g, &yl, &xl, n_q, n_k, &fs) != 0) goto oom;
    }

    int grid_right = grid_right_of(&g);
    int cbx = grid_right + grid_key_gap(&g, hms, n);
    int width = cbx + g.key_w + MARGIN;
    if (title_fit(&tl, title, fs.title, FIG_MAX, meta, &width) != 0) goto oom;
    grid_rows(row_y, &g, n, MARGIN + title_h(&tl, fs.title) + (tl.n ? 14 : 0));
    int heat_bottom = row_y[g.rows - 1] + g.ph;
    dl->width = width;
    dl->height = grid_bottom(&g, row_y, &cr, &fs, masked) + MARGIN;

    if (emit_grid_panels(dl, hms, n, &g, row_y, &cr, &yl, &xl) != 0) goto oom;
    emit_grid_frame(dl, &hms[0], &g, row_y[0], heat_bottom, grid_right, cbx, masked, &cr, &fs,
                    legend_text(meta, &hms[0]));
    emit_title_over(dl, &tl, g.left, grid_right, width, fs.title);
    free(row_y);
    if (g.pw < n_k || g.ph < n_q) *px_side = imax(1, imin(g.pw, g.ph)); /* under one pixel per cell */
    return layout_done(dl, &yl, &xl, &tl, meta, 0, err);
oom:
    free(row_y);
    return layout_done(dl, &yl, &xl, &tl, meta, 1, err);
}

/* Past the pixels available the cells are pooled, and the title says how
 * (issue 13): many small panels (a model view of 48 layers x 25 heads has
 * 20 px panels) would otherwise average several cells into one pixel with
 * no word about it. So when the panels come out smaller than their cells,
 * the figure is laid out again with the cells pooled (meta->pool: max by
 * default, or mean) to at most one per pixel, the factor in the title
 * ("max over 3x3 tokens per cell"), as for a long sentence. */
av_status av_plot_layout_grid(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                              const av_plot_meta *meta, av_err *err) {
    int side;
    av_status st = layout_grid_cells(dl, hms, n, title, meta, AV_PLOT_GRID_CELLS, &side, err);
    if (st || side <= 0) return st;
    av_dl_free(dl);
    return layout_grid_cells(dl, hms, n, title, meta, side, &side, err);
}

/* ---------------------------------------------------------------- data helpers */

void av_plot_mean_heads(float *out, const float *att, int H, int n_q, int n_k) {
    size_t cells = (size_t)n_q * (size_t)n_k;
    for (size_t c = 0; c < cells; c++) {
        double acc = 0;
        for (int h = 0; h < H; h++) acc += att[(size_t)h * cells + c];
        out[c] = H > 0 ? (float)(acc / H) : 0.0f;
    }
}

enum { PCT_SAMPLE = 1 << 18 }; /* values av_plot_percentile looks at, at most */

/* The value of rank k (0-based) of vals[0..n) in ascending order, without
 * sorting: quickselect with a three-way partition (many values are equal),
 * O(n) on average. vals is reordered. */
static float select_rank(float *vals, size_t n, size_t k) {
    size_t lo = 0, hi = n; /* the answer is in vals[lo..hi) */
    while (hi - lo > 1) {
        float a = vals[lo], b = vals[lo + (hi - lo) / 2], c = vals[hi - 1];
        float pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b); /* median of 3 */
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > pivot */
        while (i < gt) {
            float x = vals[i];
            if (x < pivot) vals[i++] = vals[lt], vals[lt++] = x;
            else if (x > pivot) vals[i] = vals[--gt], vals[gt] = x;
            else i++;
        }
        if (k < lt) hi = lt;
        else if (k >= gt) lo = gt;
        else return pivot;
    }
    return vals[lo];
}

/* Rank k (0-based) of vals[0..n) in ascending order, as the stable sort
 * this replaces gave it: values that compare equal are bitwise equal except
 * -0 and +0, so a zero of rank k is the (k - below)-th zero in the first
 * order, below = the count of negative values. vals is reordered. */
static float value_of_rank(float *vals, size_t n, size_t k) {
    size_t below = 0, zeros = 0, negzero = 0;
    for (size_t i = 0; i < n; i++) {
        below += vals[i] < 0.0f;
        zeros += vals[i] == 0.0f;
        negzero += vals[i] == 0.0f && signbit(vals[i]);
    }
    if (negzero && k >= below && k < below + zeros)
        for (size_t i = 0, z = 0; i < n; i++)
            if (vals[i] == 0.0f && z++ == k - below) return vals[i];
    return select_rank(vals, n, k);
}

float av_plot_percentile(const float *v, const unsigned char *masked, int n, int n_q, int n_k, double pct) {
    size_t cells = (size_t)n_q * (size_t)n_k, total = cells * (size_t)(n > 0 ? n : 0), seen = 0;
    size_t stride = (total + PCT_SAMPLE - 1) / PCT_SAMPLE; /* every value up to PCT_SAMPLE, then evenly strided */
    if (stride < 1) stride = 1;
    float *vals = malloc((total / stride + 1) * sizeof *vals);
    if (!vals) return av_plot_abs_max(v, masked, n, n_q, n_k); /* out of memory: the maximum */
    for (size_t at = 0; at < total; at += stride) {
        float a = v[at];
        if (!(masked && masked[at % cells]) && isfinite(a)) vals[seen++] = a;
    }
    float r = 0.0f;
    if (seen) {
        double rank = ceil(pct / 100.0 * (double)seen); /* nearest rank, 1-based */
        size_t k = rank < 1 ? 0 : rank > (double)seen ? seen - 1 : (size_t)rank - 1;
        r = value_of_rank(vals, seen, k);
    }
    free(vals);
    return r;
}

float av_plot_abs_max(const float *v, const unsigned char *masked, int n, int n_q, int n_k) {
    size_t cells = (size_t)n_q * (size_t)n_k;
    float m = 0;
    for (int p = 0; p < n; p++)
        for (size_t c = 0; c < cells; c++) {
            float a = fabsf(v[(size_t)p * cells + c]);
            if ((masked && masked[c]) || !isfinite(a)) continue;
            if (a > m) m = a;
        }
    return m > 0 ? m : 1.0f;
}

/* ---------------------------------------------------------------- output */

static int ends_with_svg(const char *path) {
    size_t n = strlen(path);
    if (n < 4) return 0;
    const char *e = path + n - 4;
    return e[0] == '.' && (e[1] | 0x20) == 's' && (e[2] | 0x20) == 'v' && (e[3] | 0x20) == 'g';
}

av_status av_plot_write(const char *path, const av_dlist *dl, const char *title, const av_plot_meta *meta,
                        av_err *err) {
    const char *software = meta && meta->software ? meta->software : "attnviz " AV_VERSION;
    const char *desc = meta ? meta->description : NULL;
    const char *weights = meta ? meta->weights : NULL, *run = meta ? meta->run : NULL;
    const char *clipped = dl->clipped;
    if (dl->title) title = dl->title; /* the drawn one, with the pooling or log10 note */
    note_lowered(path, dl, meta);
    if (dl->title_cut) /* a --title too long for its lines: av_figures_warn_cut_titles says so */
        note_figure_name(&cut_titles.files, cut_titles.names, cut_titles.last, sizeof cut_titles.last, path);
    if (ends_with_svg(path)) {
        /* SVG has one <desc>: the description, then "weights: ...", "run: ..." and "clipped: ..." lines */
        size_t n = (desc ? strlen(desc) : 0) + (weights ? strlen(weights) : 0) + (run ? strlen(run) : 0) +
                   (clipped ? strlen(clipped) : 0) + 48;
        char *all = malloc(n);
        if (!all) return av_fail(err, AV_ERUNTIME, "cannot write %s: out of memory", AV_SHOWN_WORD(path, 4200));
        snprintf(all, n, "%s%s%s%s%s%s%s", desc ? desc : "", weights ? "\nweights: " : "", weights ? weights : "",
                 run ? "\nrun: " : "", run ? run : "", clipped ? "\nclipped: " : "", clipped ? clipped : "");
        av_status st = av_svg_write(path, dl, title, all[0] == '\n' ? all + 1 : all, err);
        free(all);
        return st;
    }
    unsigned char *rgb;
    size_t stride;
    av_status st = av_raster_render(dl, &rgb, &stride, err);
    if (st) return st;
    av_png_text texts[6] = {{"Title", title}, {"Software", software}, {"Description", desc}, {"Weights", weights},
                            {"Run", run}, {"Clipped", clipped}};
    if (meta && meta->batch) /* rgb is the batch's now */
        return av_png_batch_add(meta->batch, path, rgb, dl->width, dl->height, stride, texts, 6, dl->dpi, err);
    st = av_png_write(path, rgb, dl->width, dl->height, stride, texts, 6, dl->dpi, err);
    av_big_free(rgb);
    return st;
}

typedef av_status (*layout_fn)(av_dlist *, const av_heatmap *, const av_plot_meta *, av_err *);

static av_status plot_one(layout_fn layout, const char *path, const av_heatmap *hm, const av_plot_meta *meta,
                          av_err *err) {
    av_dlist dl;
    av_status st = layout(&dl, hm, meta, err);
    if (st == AV_OK) st = av_plot_write(path, &dl, hm->title, meta, err);
    av_dl_free(&dl);
    return st;
}

av_status av_plot_head(const char *path, const av_heatmap *hm, const av_plot_meta *meta, av_err *err) {
    return plot_one(av_plot_layout_head, path, hm, meta, err);
}

av_status av_plot_matrix(const char *path, const av_heatmap *hms, int n, const char *title,
                         const av_plot_meta *meta, av_err *err) {
    av_dlist dl;
    av_status st = av_plot_layout_matrix(&dl, hms, n, title, meta, err);
    if (st == AV_OK) st = av_plot_write(path, &dl, title, meta, err);
    av_dl_free(&dl);
    return st;
}

av_status av_plot_mask(const char *path, const av_heatmap *hm, const av_plot_meta *meta, av_err *err) {
    return plot_one(av_plot_layout_mask, path, hm, meta, err);
}

av_status av_plot_grid(const char *path, const av_heatmap *hms, int n, const char *title,
                       const av_plot_meta *meta, av_err *err) {
    av_dlist dl;
    av_status st = av_plot_layout_grid(&dl, hms, n, title, meta, err);
    if (st == AV_OK) st = av_plot_write(path, &dl, title, meta, err);
    av_dl_free(&dl);
    return st;
}
