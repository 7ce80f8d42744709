/* raster.c - display list → RGB8 buffer.
 *
 * Sections: display list building, item painters, entry points. Text comes
 * laid out (shaped, in display order) from textlayout.c, the same layout
 * av_text_measure measures, so measured widths are drawn widths.
 *
 * Non-goals: arbitrary rotation, sub-pixel box edges.
 */
#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------------------------- display list */

void av_dl_init(av_dlist *dl, int width, int height, av_rgb background) {
    memset(dl, 0, sizeof *dl);
    dl->width = width;
    dl->height = height;
    dl->background = background;
}

void av_dl_free(av_dlist *dl) {
    for (size_t k = 0; k < dl->n; k++)
        if (dl->items[k].kind == AV_DL_TEXT) free(dl->items[k].text.utf8);
    free(dl->items);
    dl->items = NULL;
    dl->n = dl->cap = 0;
    for (size_t k = 0; k < dl->n_owned; k++) free(dl->owned[k]);
    free(dl->owned);
    dl->owned = NULL;
    dl->n_owned = 0;
    dl->clipped = NULL; /* it was an owned block */
}

void *av_dl_alloc(av_dlist *dl, size_t size) {
    void **list = realloc(dl->owned, (dl->n_owned + 1) * sizeof *list);
    if (!list) {
        dl->oom = 1;
        return NULL;
    }
    dl->owned = list;
    void *p = calloc(1, size ? size : 1);
    if (!p) {
        dl->oom = 1;
        return NULL;
    }
    dl->owned[dl->n_owned++] = p;
    return p;
}

/* Reserve one item; NULL (and dl->oom set) when out of memory. */
static av_dl_item *dl_push(av_dlist *dl, av_dl_kind kind) {
    if (dl->n == dl->cap) {
        size_t cap = dl->cap ? dl->cap * 2 : 64;
        av_dl_item *p = realloc(dl->items, cap * sizeof *p);
        if (!p) {
            dl->oom = 1;
            return NULL;
        }
        dl->items = p;
        dl->cap = cap;
    }
    av_dl_item *it = &dl->items[dl->n++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    return it;
}

static void set_box(av_dl_item *it, int x0, int y0, int x1, int y1) {
    it->x0 = x0;
    it->y0 = y0;
    it->x1 = x1;
    it->y1 = y1;
}

void av_dl_rect(av_dlist *dl, int x0, int y0, int x1, int y1, av_rgb fill) {
    av_dl_item *it = dl_push(dl, AV_DL_RECT);
    if (!it) return;
    set_box(it, x0, y0, x1, y1);
    it->color = fill;
}

void av_dl_hatch(av_dlist *dl, int x0, int y0, int x1, int y1) {
    av_dl_item *it = dl_push(dl, AV_DL_HATCH);
    if (!it) return;
    set_box(it, x0, y0, x1, y1);
    it->color = AV_HATCH_INK;
}

void av_dl_triangle(av_dlist *dl, const float x[3], const float y[3], av_rgb fill) {
    av_dl_item *it = dl_push(dl, AV_DL_TRI);
    if (!it) return;
    float xa = fminf(x[0], fminf(x[1], x[2])), xb = fmaxf(x[0], fmaxf(x[1], x[2]));
    float ya = fminf(y[0], fminf(y[1], y[2])), yb = fmaxf(y[0], fmaxf(y[1], y[2]));
    set_box(it, (int)floorf(xa), (int)floorf(ya), (int)ceilf(xb), (int)ceilf(yb));
    it->color = fill;
    for (int k = 0; k < 3; k++) it->tri.x[k] = x[k], it->tri.y[k] = y[k];
}

static int scaled_px(int v, double f) { return (int)lrint(v * f); }

void av_dl_scale(av_dlist *dl, double f) {
    if (f == 1.0) return;
    for (size_t k = 0; k < dl->n; k++) {
        av_dl_item *it = &dl->items[k];
        if (it->kind == AV_DL_TEXT) {
            it->text.x = (float)(it->text.x * f);
            it->text.y = (float)(it->text.y * f);
            it->text.size = (float)(it->text.size * f);
            continue;
        }
        int x0 = scaled_px(it->x0, f), x1 = scaled_px(it->x1, f), y0 = scaled_px(it->y0, f), y1 = scaled_px(it->y1, f);
        if (it->x1 > it->x0 && x1 <= x0) x1 = x0 + 1;
        if (it->y1 > it->y0 && y1 <= y0) y1 = y0 + 1;
        it->x0 = x0, it->x1 = x1, it->y0 = y0, it->y1 = y1;
        if (it->kind == AV_DL_TRI)
            for (int v = 0; v < 3; v++) it->tri.x[v] = (float)(it->tri.x[v] * f), it->tri.y[v] = (float)(it->tri.y[v] * f);
        if (it->kind == AV_DL_LINE) {
            av_dl_segment *l = &it->line;
            l->xa = (float)(l->xa * f), l->ya = (float)(l->ya * f), l->xb = (float)(l->xb * f), l->yb = (float)(l->yb * f);
            l->width = (float)((l->width > 0 ? l->width : 2) * f);
            l->extra = scaled_px(l->extra, f);
        }
    }
    dl->width = scaled_px(dl->width, f);
    dl->height = scaled_px(dl->height, f);
    int period = scaled_px(dl->hatch_period > 1 ? dl->hatch_period : AV_HATCH_PERIOD, f);
    dl->hatch_period = period < 4 ? 4 : period;
    dl->hatch_width = (float)((dl->hatch_width > 0 ? dl->hatch_width : AV_HATCH_WIDTH) * f);
}

void av_dl_line(av_dlist *dl, float xa, float ya, float xb, float yb, int x0, int y0, int x1, int y1, int extra,
                av_rgb c) {
    av_dl_item *it = dl_push(dl, AV_DL_LINE);
    if (!it) return;
    set_box(it, x0, y0, x1, y1);
    it->color = c;
    it->line = (av_dl_segment){xa, ya, xb, yb, extra, 0};
}

void av_dl_heatmap(av_dlist *dl, int x0, int y0, int x1, int y1, const av_dl_heat *heat) {
    av_dl_item *it = dl_push(dl, AV_DL_HEAT);
    if (!it) return;
    set_box(it, x0, y0, x1, y1);
    it->heat = *heat;
}

void av_dl_text_run(av_dlist *dl, const char *utf8, float x, float y, float size, av_anchor anchor,
                    int rot90, int bold, av_rgb ink) {
    size_t len = strlen(utf8);
    char *copy = malloc(len + 1);
    if (!copy) {
        dl->oom = 1;
        return;
    }
    memcpy(copy, utf8, len + 1);
    av_dl_item *it = dl_push(dl, AV_DL_TEXT);
    if (!it) {
        free(copy);
        return;
    }
    it->color = ink;
    it->text = (av_dl_text){copy, x, y, size, anchor, rot90 ? 1 : 0, bold ? 1 : 0};
}

int av_dl_cell_box(const av_dl_item *item, int i, int j, int box[4]) {
    if (item->kind != AV_DL_HEAT) return -1;
    const av_dl_heat *h = &item->heat;
    if (i < 0 || j < 0 || i >= h->n_q || j >= h->n_k) return -1;
    long long bw = item->x1 - item->x0, bh = item->y1 - item->y0;
    box[0] = item->x0 + (int)(j * bw / h->n_k);
    box[1] = item->y0 + (int)(i * bh / h->n_q);
    box[2] = item->x0 + (int)((j + 1) * bw / h->n_k);
    box[3] = item->y0 + (int)((i + 1) * bh / h->n_q);
    return 0;
}

/* ---------------------------------------------------------------- painting */

typedef struct {
    unsigned char *rgb;
    size_t stride;
    int w, h;
    int period;        /* hatch line spacing along x, px */
    float line_width;  /* hatch line width, px */
} canvas;

/* Blend ink over the pixel with coverage a (0..255). */
static void blend(const canvas *cv, int x, int y, av_rgb ink, int a) {
    if (a <= 0 || x < 0 || y < 0 || x >= cv->w || y >= cv->h) return;
    unsigned char *p = cv->rgb + (size_t)y * cv->stride + (size_t)x * 3;
    if (a >= 255) {
        p[0] = ink.r, p[1] = ink.g, p[2] = ink.b;
        return;
    }
    p[0] = (unsigned char)((ink.r * a + p[0] * (255 - a) + 127) / 255);
    p[1] = (unsigned char)((ink.g * a + p[1] * (255 - a) + 127) / 255);
    p[2] = (unsigned char)((ink.b * a + p[2] * (255 - a) + 127) / 255);
}

/* Clip a box to the canvas; 0 if nothing is left. */
static int clip_box(const canvas *cv, int *x0, int *y0, int *x1, int *y1) {
    if (*x0 < 0) *x0 = 0;
    if (*y0 < 0) *y0 = 0;
    if (*x1 > cv->w) *x1 = cv->w;
    if (*y1 > cv->h) *y1 = cv->h;
    return *x0 < *x1 && *y0 < *y1;
}

static void fill_box(const canvas *cv, int x0, int y0, int x1, int y1, av_rgb c) {
    if (!clip_box(cv, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++) {
        unsigned char *p = cv->rgb + (size_t)y * cv->stride + (size_t)x0 * 3;
        for (int x = x0; x < x1; x++, p += 3) p[0] = c.r, p[1] = c.g, p[2] = c.b;
    }
}

/* A LINE item (av_dl_line): one box per pixel column the segment crosses,
 * from the segment's lowest to its highest y in that column, 1 px more at
 * each end, 2 px wide, `extra` px more on every side, clipped to the item's
 * box. */
static void paint_line(const canvas *cv, const av_dl_item *it) {
    const av_dl_segment *l = &it->line;
    float xa = l->xa, ya = l->ya, xb = l->xb, yb = l->yb;
    int c0 = (int)floorf(xa), c1 = (int)floorf(xb), extra = l->extra;
    int w = l->width > 0 ? (int)lrintf(l->width) : 2, reach = w / 2; /* 2 px wide, 1 px past each end at f = 1 */
    if (w < 1) w = 1;
    if (c1 < c0) { int t = c0; c0 = c1; c1 = t; }
    for (int x = c0; x <= c1; x++) {
        float t0 = xb > xa ? ((float)x - xa) / (xb - xa) : 0, t1 = xb > xa ? ((float)x + 1 - xa) / (xb - xa) : 1;
        t0 = t0 < 0 ? 0 : t0 > 1 ? 1 : t0;
        t1 = t1 < 0 ? 0 : t1 > 1 ? 1 : t1;
        float y0 = ya + (yb - ya) * t0, y1 = ya + (yb - ya) * t1;
        int lo = (int)floorf(fminf(y0, y1)) - reach - extra, hi = (int)ceilf(fmaxf(y0, y1)) + reach + extra;
        int xl = x - extra < it->x0 ? it->x0 : x - extra, xr = x + w + extra > it->x1 ? it->x1 : x + w + extra;
        if (lo < it->y0) lo = it->y0;
        if (hi > it->y1) hi = it->y1;
        if (x >= it->x0 && x < it->x1 && hi > lo) fill_box(cv, xl, lo, xr, hi, it->color);
    }
}

/* Coverage (0..1) of the hatch lines x + y = k * period at pixel (x, y),
 * sampled at the pixel centre: lines run bottom-left to top-right ("/"). */
static float hatch_coverage(const canvas *cv, int x, int y) {
    int P = cv->period;
    int s = (x + y + 1) % P; /* pixel centres: x+0.5 + y+0.5 */
    if (s < 0) s += P;
    int along = s < P - s ? s : P - s;
    float d = (float)along * 0.70710678f; /* perpendicular distance */
    float c = cv->line_width * 0.5f + 0.5f - d;
    return c < 0 ? 0 : (c > 1 ? 1 : c);
}

static av_rgb hatch_color(const canvas *cv, int x, int y) {
    av_rgb bg = AV_HATCH_BG, ink = AV_HATCH_INK;
    float a = hatch_coverage(cv, x, y);
    av_rgb o;
    o.r = (unsigned char)lrintf((float)bg.r + ((float)ink.r - (float)bg.r) * a);
    o.g = (unsigned char)lrintf((float)bg.g + ((float)ink.g - (float)bg.g) * a);
    o.b = (unsigned char)lrintf((float)bg.b + ((float)ink.b - (float)bg.b) * a);
    return o;
}

static void paint_hatch(const canvas *cv, int x0, int y0, int x1, int y1) {
    if (!clip_box(cv, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++) {
        unsigned char *p = cv->rgb + (size_t)y * cv->stride + (size_t)x0 * 3;
        for (int x = x0; x < x1; x++, p += 3) {
            av_rgb c = hatch_color(cv, x, y);
            p[0] = c.r, p[1] = c.g, p[2] = c.b;
        }
    }
}

int av_heat_cell_color(const av_dl_heat *h, int i, int j, av_rgb *out) {
    float v = h->w[(size_t)i * (size_t)h->n_k + (size_t)j];
    if ((h->masked && h->masked[(size_t)i * (size_t)h->n_k + (size_t)j]) || !isfinite(v)) {
        *out = AV_HATCH_BG;
        return 1;
    }
    double span = (double)h->vmax - (double)h->vmin;
    double t = span > 0 ? ((double)v - (double)h->vmin) / span : 0.0;
    if (!(t >= 0.0)) t = 0.0; /* also catches NaN from a bad range */
    if (t > 1.0) t = 1.0;
    unsigned char c[3];
    av_cmap_rgb(h->cmap, t, c);
    *out = (av_rgb){c[0], c[1], c[2]};
    return 0;
}

/* Cells on whole pixels: cell i spans rows y0 + floor(i*h/n_q) ... (the
 * boxes of av_dl_cell_box), one cell at a time. The readable version of
 * paint_heat_rows, which it falls back on when out of memory. */
static void paint_heat_cells(const canvas *cv, const av_dl_item *it) {
    const av_dl_heat *hm = &it->heat;
    for (int i = 0; i < hm->n_q; i++) {
        for (int j = 0; j < hm->n_k; j++) {
            int b[4];
            av_rgb c;
            av_dl_cell_box(it, i, j, b);
            if (av_heat_cell_color(hm, i, j, &c)) paint_hatch(cv, b[0], b[1], b[2], b[3]);
            else fill_box(cv, b[0], b[1], b[2], b[3], c);
        }
    }
}

/* The same pixels as paint_heat_cells, a row of cells at a time: the
 * column edges are computed once, the first pixel row of a cell row is
 * filled and copied to the rows below it (hatched cells, whose pattern
 * changes from row to row, are painted on their own). A 2048-token map has
 * 683 x 683 pooled cells of 3 px; cell by cell, most of the time went into
 * the four divisions of each box. */
static void paint_heat_rows(const canvas *cv, const av_dl_item *it) {
    const av_dl_heat *hm = &it->heat;
    int n_k = hm->n_k;
    int *xs = malloc(((size_t)n_k + 1) * sizeof *xs);
    av_rgb *color = malloc((size_t)n_k * sizeof *color);
    unsigned char *hatched = malloc((size_t)n_k);
    if (!xs || !color || !hatched) {
        free(xs), free(color), free(hatched);
        paint_heat_cells(cv, it);
        return;
    }
    long long bw = it->x1 - it->x0, bh = it->y1 - it->y0;
    for (int j = 0; j <= n_k; j++) xs[j] = it->x0 + (int)(j * bw / n_k);
    int xa = xs[0] < 0 ? 0 : xs[0], xb = xs[n_k] > cv->w ? cv->w : xs[n_k]; /* clipped span of the map */
    for (int i = 0; i < hm->n_q; i++) {
        int y0 = it->y0 + (int)(i * bh / hm->n_q), y1 = it->y0 + (int)((i + 1) * bh / hm->n_q);
        int any_hatch = 0;
        for (int j = 0; j < n_k; j++) any_hatch |= hatched[j] = (unsigned char)av_heat_cell_color(hm, i, j, &color[j]);
        int ya = y0 < 0 ? 0 : y0, yb = y1 > cv->h ? cv->h : y1;
        if (ya >= yb || xa >= xb) continue;
        for (int j = 0; j < n_k; j++) {
            if (hatched[j]) paint_hatch(cv, xs[j], y0, xs[j + 1], y1);
            else fill_box(cv, xs[j], ya, xs[j + 1], ya + 1, color[j]);
        }
        const unsigned char *first = cv->rgb + (size_t)ya * cv->stride;
        for (int y = ya + 1; y < yb; y++) {
            unsigned char *row = cv->rgb + (size_t)y * cv->stride;
            if (!any_hatch) {
                memcpy(row + (size_t)xa * 3, first + (size_t)xa * 3, (size_t)(xb - xa) * 3);
                continue;
            }
            for (int j = 0; j < n_k; j++) {
                int a = xs[j] < 0 ? 0 : xs[j], b = xs[j + 1] > cv->w ? cv->w : xs[j + 1];
                if (!hatched[j] && a < b) memcpy(row + (size_t)a * 3, first + (size_t)a * 3, (size_t)(b - a) * 3);
            }
        }
    }
    free(xs), free(color), free(hatched);
}

/* Box smaller than the matrix: each pixel is the area-weighted mean colour of
 * the cells it covers (masked cells contribute their hatch colour there). */
static void paint_heat_average(const canvas *cv, const av_dl_item *it) {
    const av_dl_heat *hm = &it->heat;
    int bw = it->x1 - it->x0, bh = it->y1 - it->y0;
    int x0 = it->x0, y0 = it->y0, x1 = it->x1, y1 = it->y1;
    if (!clip_box(cv, &x0, &y0, &x1, &y1)) return;
    double sy = (double)hm->n_q / bh, sx = (double)hm->n_k / bw;
    for (int y = y0; y < y1; y++) {
        double fy0 = (y - it->y0) * sy, fy1 = (y - it->y0 + 1) * sy;
        int ia = (int)fy0, ib = (int)ceil(fy1);
        if (ib > hm->n_q) ib = hm->n_q;
        for (int x = x0; x < x1; x++) {
            double fx0 = (x - it->x0) * sx, fx1 = (x - it->x0 + 1) * sx;
            int ja = (int)fx0, jb = (int)ceil(fx1);
            if (jb > hm->n_k) jb = hm->n_k;
            double acc[3] = {0, 0, 0}, tot = 0;
            av_rgb hc = hatch_color(cv, x, y);
            for (int i = ia; i < ib; i++) {
                double wy = fmin(fy1, i + 1.0) - fmax(fy0, (double)i);
                for (int j = ja; j < jb; j++) {
                    double wgt = wy * (fmin(fx1, j + 1.0) - fmax(fx0, (double)j));
                    av_rgb c;
                    if (av_heat_cell_color(hm, i, j, &c)) c = hc;
                    acc[0] += wgt * c.r, acc[1] += wgt * c.g, acc[2] += wgt * c.b;
                    tot += wgt;
                }
            }
            if (tot <= 0) continue;
            unsigned char *p = cv->rgb + (size_t)y * cv->stride + (size_t)x * 3;
            for (int k = 0; k < 3; k++) p[k] = (unsigned char)lrint(acc[k] / tot);
        }
    }
}

static void paint_heat(const canvas *cv, const av_dl_item *it) {
    const av_dl_heat *hm = &it->heat;
    int bw = it->x1 - it->x0, bh = it->y1 - it->y0;
    if (hm->n_q <= 0 || hm->n_k <= 0 || bw <= 0 || bh <= 0 || !hm->w) return;
    if (bw >= hm->n_k && bh >= hm->n_q) paint_heat_rows(cv, it);
    else paint_heat_average(cv, it);
}

/* A TRI item: each pixel of its box blended with the fill by the share of
 * 4 x 4 sample points inside the triangle (edge functions, either winding). */
static void paint_tri(const canvas *cv, const av_dl_item *it) {
    const float *x = it->tri.x, *y = it->tri.y;
    double area = (double)(x[1] - x[0]) * (y[2] - y[0]) - (double)(x[2] - x[0]) * (y[1] - y[0]);
    if (area == 0) return;
    double sgn = area > 0 ? 1 : -1;
    int x0 = it->x0, y0 = it->y0, x1 = it->x1, y1 = it->y1;
    if (!clip_box(cv, &x0, &y0, &x1, &y1)) return;
    for (int py = y0; py < y1; py++)
        for (int px = x0; px < x1; px++) {
            int in = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    double u = px + (sx + 0.5) / 4, v = py + (sy + 0.5) / 4;
                    int inside = 1;
                    for (int e = 0; e < 3 && inside; e++) {
                        int n = (e + 1) % 3;
                        double c = (double)(x[n] - x[e]) * (v - y[e]) - (double)(y[n] - y[e]) * (u - x[e]);
                        inside = c * sgn >= 0;
                    }
                    in += inside;
                }
            blend(cv, px, py, it->color, in * 255 / 16);
        }
}

/* Blit a coverage bitmap (rows x cols, pitch bytes per row) whose top-left is
 * at text-local (u, v) (u along the baseline, v downwards) relative to the
 * origin (ox, oy); rot90 turns text-local axes counter-clockwise. */
static void blit_coverage(const canvas *cv, const unsigned char *bits, int rows, int cols, int pitch, int u,
                          int v, int ox, int oy, int rot90, av_rgb ink) {
    for (int r = 0; r < rows; r++) {
        const unsigned char *row = bits + (ptrdiff_t)r * pitch;
        for (int c = 0; c < cols; c++) {
            int a = row[c];
            if (!a) continue;
            int lu = u + c, lv = v + r;
            if (rot90) blend(cv, ox + lv, oy - lu - 1, ink, a);
            else blend(cv, ox + lu, oy + lv, ink, a);
        }
    }
}

/* The outlined box drawn for a character no font has. */
static void draw_missing_box(const canvas *cv, float size, int pen, int ox, int oy, int rot90, av_rgb ink) {
    int bw = (int)lrintf(size * 0.56f), bh = (int)lrintf(size * 0.76f);
    int t = (int)lrintf(size / 16.0f);
    if (bw < 3) bw = 3;
    if (bh < 4) bh = 4;
    if (t < 1) t = 1;
    unsigned char *bits = calloc((size_t)bw * (size_t)bh, 1);
    if (!bits) return;
    for (int r = 0; r < bh; r++)
        for (int c = 0; c < bw; c++)
            if (r < t || r >= bh - t || c < t || c >= bw - t) bits[r * bw + c] = 255;
    int u = pen + (int)lrintf(size * 0.08f);
    blit_coverage(cv, bits, bh, bw, bw, u, -bh, ox, oy, rot90, ink);
    free(bits);
}

static void paint_text(const canvas *cv, const av_dl_item *it) {
    const av_dl_text *tx = &it->text;
    av_text_layout lay;
    if (av_text_lay(tx->utf8, tx->size, tx->bold, &lay) != 0) return;
    int32_t start = 0;
    if (tx->anchor == AV_ANCHOR_MIDDLE) start = -lay.width / 2;
    else if (tx->anchor == AV_ANCHOR_END) start = -lay.width;
    int ox = (int)lrintf(tx->x), oy = (int)lrintf(tx->y);
    for (int k = 0; k < lay.n; k++) {
        const av_glyph *g = &lay.g[k];
        av_glyph_bitmap bm;
        if (g->slot < 0)
            draw_missing_box(cv, tx->size, (int)((start + g->x + 32) >> 6), ox, oy, tx->rot90, it->color);
        else if (av_text_glyph_render(g, start + g->x, tx->size, &bm) == 0)
            blit_coverage(cv, bm.bits, bm.rows, bm.cols, bm.pitch, bm.left, -bm.top, ox, oy, tx->rot90, it->color);
    }
    av_text_layout_free(&lay);
}

/* ---------------------------------------------------------------- entry points */

void av_raster_draw(const av_dlist *dl, unsigned char *rgb, size_t stride) {
    canvas cv = {rgb, stride, dl->width, dl->height, dl->hatch_period > 1 ? dl->hatch_period : AV_HATCH_PERIOD,
                 dl->hatch_width > 0 ? dl->hatch_width : AV_HATCH_WIDTH};
    fill_box(&cv, 0, 0, dl->width, dl->height, dl->background);
    for (size_t k = 0; k < dl->n; k++) {
        const av_dl_item *it = &dl->items[k];
        switch (it->kind) {
        case AV_DL_RECT: fill_box(&cv, it->x0, it->y0, it->x1, it->y1, it->color); break;
        case AV_DL_HATCH: paint_hatch(&cv, it->x0, it->y0, it->x1, it->y1); break;
        case AV_DL_HEAT: paint_heat(&cv, it); break;
        case AV_DL_TEXT: paint_text(&cv, it); break;
        case AV_DL_LINE: paint_line(&cv, it); break;
        case AV_DL_TRI: paint_tri(&cv, it); break;
        }
    }
}

av_status av_raster_render(const av_dlist *dl, unsigned char **out, size_t *stride, av_err *err) {
    *out = NULL;
    if (dl->oom || av_text_out_of_memory()) /* the labels' fonts or layouts, as dl->oom */
        return av_fail(err, AV_ERUNTIME, "out of memory while laying out the figure");
    if (dl->width <= 0 || dl->height <= 0)
        return av_fail(err, AV_ERUNTIME, "figure size %dx%d is empty", dl->width, dl->height);
    size_t row = (size_t)dl->width * 3;
    unsigned char *buf = av_big_calloc(row, (size_t)dl->height); /* huge pages: see base/common.h */
    if (!buf)
        return av_fail(err, AV_ERUNTIME, "out of memory for a %dx%d figure", dl->width, dl->height);
    av_raster_draw(dl, buf, row);
    if (av_text_out_of_memory()) { /* a label's glyphs were left out */
        av_big_free(buf);
        return av_fail(err, AV_ERUNTIME, "out of memory while drawing the figure's labels");
    }
    *out = buf;
    *stride = row;
    return AV_OK;
}
