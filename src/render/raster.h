/* raster.h - the figure display list, its rasterizer, and text measurement.
 *
 * How to use: the layout (plot.c) fills an av_dlist with items in figure
 * pixel coordinates (origin top-left, x right, y down, integer pixel edges:
 * a box [x0, x1) x [y0, y1) covers x1 - x0 columns). Back ends consume the
 * same list: av_raster_draw paints it into a caller-owned RGB8 buffer
 * (row-major, 3 bytes per pixel, `stride` bytes per row, top row first),
 * svgout.c serialises it.
 *
 * Items, painted in list order (later items on top):
 *   RECT   a filled box;
 *   HATCH  a box filled with the "masked" pattern (light grey with diagonal
 *          lines anchored to the figure origin, so neighbouring hatched
 *          boxes join seamlessly; line spacing and width from the list,
 *          so a scaled figure has a scaled pattern);
 *   HEAT   an (n_q, n_k) matrix of values drawn through a colour map into a
 *          box: cell (i, j) covers rows y0 + i*h/n_q .. and columns
 *          x0 + j*w/n_k ..; masked or non-finite cells are hatched. When the
 *          box is smaller than the matrix, each pixel is the area average of
 *          the cells it covers. The item points at the caller's arrays (not
 *          copied): they must outlive the list;
 *   TRI    a filled triangle (fractional vertices, anti-aliased edges): the
 *          end of a colour bar whose values were clipped (matplotlib's
 *          colorbar extend);
 *   TEXT   a UTF-8 run with a pixel size, an anchor point on the baseline
 *          (start / middle / end), rotation 0 or 90 degrees counter-clockwise
 *          (reads bottom to top, like matplotlib's rotated tick labels) and
 *          an optional bold weight. The string is copied.
 *
 * Text: laid out by textlayout.h (a font per script run through fontconfig,
 * bidi and OpenType shaping through libraqm), so a run reads in display
 * order with joined, reordered and stacked glyphs; FreeType renders the
 * glyphs anti-aliased (light hinting). A character no font has is drawn as
 * an outlined box; default-ignorable characters (ZWJ, variation selectors,
 * ...) draw nothing. The anchor refers to the run's visual extent: START is
 * its left end whatever the text's direction.
 *
 * Non-goals: line breaking, arbitrary rotation, anti-aliased rectangle edges
 * (boxes are on whole pixels).
 */
#ifndef AV_RASTER_H
#define AV_RASTER_H

#include <stddef.h>

#include "render/colormap.h"
#include "render/textlayout.h"
#include "base/common.h"

typedef struct {
    unsigned char r, g, b;
} av_rgb;

/* The "masked" pattern, shared by the raster and SVG back ends. */
#define AV_HATCH_BG ((av_rgb){0xE4, 0xE4, 0xE4})  /* light grey ground */
#define AV_HATCH_INK ((av_rgb){0x8C, 0x8C, 0x8C}) /* darker grey lines */
#define AV_HATCH_PERIOD 8                         /* px between lines, along x */
#define AV_HATCH_WIDTH 1.5f                       /* line width, px */

typedef enum { AV_DL_RECT, AV_DL_HATCH, AV_DL_HEAT, AV_DL_TEXT, AV_DL_LINE, AV_DL_TRI } av_dl_kind;

typedef enum { AV_ANCHOR_START = 0, AV_ANCHOR_MIDDLE, AV_ANCHOR_END } av_anchor;

typedef struct {
    const float *w;              /* (n_q, n_k) values, row-major */
    const unsigned char *masked; /* (n_q, n_k) 1 = masked, or NULL */
    int n_q, n_k;
    float vmin, vmax;            /* value range mapped to the colour map's 0..1 */
    av_cmap cmap;
    int ramp;                    /* 1 = a colour bar's ramp, not a data panel: the SVG
                                  * back end embeds it as one PNG image (as matplotlib
                                  * does) instead of a <rect> per value */
} av_dl_heat;

typedef struct {
    char *utf8;       /* owned copy */
    float x, y;       /* anchor point on the baseline, px */
    float size;       /* font size, px (the em) */
    av_anchor anchor; /* which point of the run sits at x (before rotation) */
    int rot90;        /* 1 = rotated 90 degrees counter-clockwise */
    int bold;
} av_dl_text;

typedef struct {
    float xa, ya, xb, yb; /* a segment of a curve, px; the item's box clips it (the axes) */
    int extra;            /* px of halo on each side (an underlay band), 0 for none */
    float width;          /* the line's width, px; 0 = 2 (av_dl_scale sets it) */
} av_dl_segment;

typedef struct {
    float x[3], y[3]; /* the vertices, px */
} av_dl_tri;

typedef struct {
    av_dl_kind kind;
    int x0, y0, x1, y1; /* box for RECT, HATCH, HEAT, the clip of LINE, TRI's bounds (unused for TEXT) */
    av_rgb color;       /* RECT and TRI fill, TEXT ink, LINE stroke */
    av_dl_heat heat;    /* HEAT only */
    av_dl_text text;    /* TEXT only */
    av_dl_segment line; /* LINE only */
    av_dl_tri tri;      /* TRI only */
} av_dl_item;

typedef struct {
    int width, height; /* figure size, px */
    av_rgb background;
    av_dl_item *items;
    size_t n, cap;
    int oom;           /* set when an append failed; the list is then incomplete */
    int hatch_period;  /* px between hatch lines along x; 0 = AV_HATCH_PERIOD */
    float hatch_width; /* hatch line width, px; 0 = AV_HATCH_WIDTH */
    int dpi;           /* pixels per inch the list states (the PNG's pHYs); 0 =
                        * 100. The SVG back end writes width/height as
                        * px / dpi × 72 points, the PNG's printed size, so an
                        * SVG's size does not grow with --dpi */
    const char *clipped; /* NULL, or what the layout says of values it clipped to the colour range
                          * ("3 of 16 cells are below ..."), owned by the list: the PNG's tEXt
                          * Clipped and the SVG's <desc> "clipped: ..." line (plot.h av_plot_write) */
    const char *title; /* NULL, or the title as the layout drew it when it added to the one it was given
                        * (" · max over 8×8 tokens per cell", the log10 note), owned by the list: the
                        * PNG's tEXt Title and the SVG's <title> then say what the figure says */
    int title_cut;     /* 1 when the layout cut the title with "…": it did not fit the lines a title
                        * may take (render/plot.h av_plot_cut_titles); its Title metadata keep it */
    void **owned;      /* blocks from av_dl_alloc, freed with the list */
    size_t n_owned;
} av_dlist;

/* ------------------------------------------------------------ display list */

/* Start an empty list for a width x height figure with a background colour. */
void av_dl_init(av_dlist *dl, int width, int height, av_rgb background);
/* Free the items and copied strings; the list becomes empty. */
void av_dl_free(av_dlist *dl);

/* Append items. Boxes are clipped to the figure when drawn. On allocation
 * failure the item is dropped and dl->oom is set (checked by the back ends,
 * which then fail with AV_ERUNTIME). */
void av_dl_rect(av_dlist *dl, int x0, int y0, int x1, int y1, av_rgb fill);
void av_dl_hatch(av_dlist *dl, int x0, int y0, int x1, int y1);
void av_dl_heatmap(av_dlist *dl, int x0, int y0, int x1, int y1, const av_dl_heat *heat);
void av_dl_text_run(av_dlist *dl, const char *utf8, float x, float y, float size, av_anchor anchor,
                    int rot90, int bold, av_rgb ink);
/* A segment of a curve from (xa, ya) to (xb, yb), px, clipped to the box
 * [x0, x1) x [y0, y1) (the axes). The raster draws it as one box per pixel
 * column, w = 2 px wide and reaching w/2 px past the segment's ends in y
 * (av_dl_scale multiplies w), `extra` px more on each side; the SVG back end
 * joins segments that continue one another (same colour, width, halo and
 * clip, each starting where the last ended)
 * into one <polyline>, a vector line as matplotlib's SVG has (they were a
 * <rect> per pixel column: 7,907 in one curves.svg, a figure-maker's
 * report). */
void av_dl_line(av_dlist *dl, float xa, float ya, float xb, float yb, int x0, int y0, int x1, int y1, int extra,
                av_rgb c);

/* A filled triangle with vertices (x[k], y[k]), px (fractional), in fill;
 * the raster covers each pixel by the share of it inside (4 x 4 samples),
 * the SVG back end writes a <polygon>. */
void av_dl_triangle(av_dlist *dl, const float x[3], const float y[3], av_rgb fill);

/* Multiply every coordinate, box, font size, line width and halo, the
 * figure's size and the hatch (AV_HATCH_PERIOD, AV_HATCH_WIDTH at f = 1) by
 * f > 0: a list laid out at 100 dpi and scale 1 becomes the same figure at
 * f = scale × dpi / 100 (plot.h av_plot_meta). Box edges are rounded, so boxes
 * that touch still touch, and a box 1 px or more across stays at least 1 px.
 * f = 1 changes nothing. */
void av_dl_scale(av_dlist *dl, double f);

/* size bytes (zeroed) owned by the list and freed by av_dl_free: for data
 * a HEAT item points at that the caller does not keep (e.g. a constant
 * matrix). NULL (and dl->oom set) when out of memory. */
void *av_dl_alloc(av_dlist *dl, size_t size);

/* Box [box[0], box[2]) x [box[1], box[3]) of cell (i, j) of the HEAT item
 * `item` (the exact split the rasterizer uses). Returns 0, or -1 when item is
 * not a HEAT item or (i, j) is out of range. */
int av_dl_cell_box(const av_dl_item *item, int i, int j, int box[4]);

/* ------------------------------------------------------------ rasterizer */

/* Paint the whole list into rgb, a (height, width, 3) buffer with `stride`
 * bytes per row (stride >= 3 * width); width and height must be the list's.
 * Never fails: characters without a font become boxes. */
void av_raster_draw(const av_dlist *dl, unsigned char *rgb, size_t stride);

/* Allocate a (dl->height, dl->width, 3) buffer with stride 3 * width and draw
 * into it. The caller frees *out with av_big_free (base/common.h). Errors: AV_ERUNTIME when out of memory or when
 * the list is incomplete (dl->oom), or its labels are (textlayout.h av_text_out_of_memory, before or while drawing). */
av_status av_raster_render(const av_dlist *dl, unsigned char **out, size_t *stride, av_err *err);

/* Colour of a HEAT cell value: the colour map for (v - vmin) / (vmax - vmin)
 * clamped to 0..1. Returns 0, or 1 when the cell must be drawn masked
 * (masked flag set, or v not finite). */
int av_heat_cell_color(const av_dl_heat *h, int i, int j, av_rgb *out);

#endif
