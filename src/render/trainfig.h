/* trainfig.h - figures of a training run, from plain arrays: learning curves,
 * a film strip of attention maps over training, and an animated GIF.
 *
 * How to use:
 *   av_plot_curves("out/curves.png", panels, 3, "trained on reverse", "step", &meta, &err);
 *   av_plot_filmstrip("out/filmstrip.png", &strip, &meta, &err);
 *   av_gif_write("out/attention.gif", frames, n, width, height, 80, AV_CMAP_VIRIDIS, "Description: ...", &err);
 * A path ending in ".svg" gets SVG (curves, film strip), anything else PNG.
 * Files are written atomically (io/fileio.h). Arrays are read, not kept.
 *
 * Curves are drawn as 2-px lines (the display list's line item: one
 * <polyline> per series in SVG), markers as MARKER-px squares, so PNG and
 * SVG show the same figure. Colours are matplotlib's tab10 in order.
 * Sizes here are at 100 dpi and scale 1; meta's dpi and scale multiply the
 * finished figure as they do plot.h's (av_plot_scale_laid_out: f = scale ×
 * dpi / 100), so --dpi 300 keeps the printed size with 3 times the pixels,
 * and the SVG's size follows scale only. No side passes AV_PLOT_MAX_PX: a
 * figure that would gets fewer pixels and a lower dpi, the same printed size.
 *
 * Non-goals: general plotting (x is linear or symlog, y linear; no error
 * bands), GIF with
 * transparency, GIF colours beyond the colour map and greys (see
 * av_gif_write).
 */
#ifndef AV_TRAINFIG_H
#define AV_TRAINFIG_H

#include "base/common.h"
#include "render/plot.h"

/* What a training figure's hatched cells are, in the words every one of them
 * uses (the film strip's legend line "hatched = " this, the GIF's legend
 * entry beside its hatched swatch): the causal mask, whose cells are −∞
 * before the softmax and so weight 0 after it (a GIF said "masked (−∞)" and
 * the film strip of the same run "hatched = causal mask"). UTF-8. */
#define AV_TRAIN_MASK_TEXT "causal mask (\xE2\x88\x92\xE2\x88\x9E before softmax, 0 after)"

typedef struct {
    const char *label;   /* legend text, or NULL for no legend entry */
    const double *x, *y; /* n points, x increasing; non-finite y are skipped */
    int n;
    int markers;         /* 1 = a square marker at every point (few measured points, e.g. snapshots, whose
                          * joining line only guides the eye, as matplotlib's marker='s'), also in the legend;
                          * with 0, a point with no finite neighbour (a one-step run's loss) still gets one */
} av_series;

typedef struct {
    const char *title;   /* over the panel, e.g. "loss (cross-entropy)" */
    const char *y_label; /* left of the axis */
    const av_series *s;
    int n_series;        /* 1..10 */
    double ymin, ymax;   /* y range; both 0 = from the data, with matplotlib's 5 % margin each side */
    const char *note;    /* a line under the legend, e.g. which of more series than fit are drawn; or NULL */
    int x_symlog;        /* 1: x (>= 0) on matplotlib's symlog axis (base 10, linthresh 1, linscale 1), from 0:
                          * linear from 0 to 1, logarithmic past 1, so 0, 1, 10, 100, 1000 sit about evenly
                          * (1.11, 1, 1, 1 decades apart) and log-spaced snapshots spread out; ticks there and
                          * at the last x. 0: linear */
    int underlay;        /* 1: each series is drawn 2 px wider than the one after it (the last 2 px wide), so
                          * where series coincide (--compare's variants share their first steps) every one
                          * shows as a band around the next; 0: all 2 px, the later on top */
} av_curve_panel;

/* n_panels (1..4) panels side by side sharing the x axis title, under
 * `title`. The x axis counts (training steps): its ticks are whole numbers,
 * 0 and 1 for a one-step run, not 0, 0.2, ... 1. Errors: AV_ERUNTIME naming path on I/O failure or OOM, or for
 * n_panels/n_series out of range. */
av_status av_plot_curves(const char *path, const av_curve_panel *panels, int n_panels, const char *title,
                         const char *x_label, const av_plot_meta *meta, av_err *err);

/* A film strip: rows = snapshots, columns = panels (one per layer and head).
 * At most AV_FILMSTRIP_MAX_ROWS rows and AV_FILMSTRIP_MAX_COLS columns: a
 * caller with more heads picks which to show and says so in `note`. The
 * figure stays within AV_FILMSTRIP_MAX_PX a side (plot.c's figure bound):
 * where the usual maps (12 px a token up to 12 tokens, 7 up to 24, 3 beyond)
 * would pass it, every map is drawn with fewer px a token, down to 1. With
 * few heads, maps of up to 24 tokens grow (up to 24 px a token, token labels
 * up to 14 px) while the figure stays within 1400 x 1800 px. Token labels
 * are cell / 1.25 px (a label's line a cell), never under 8 px: in smaller
 * cells every 2nd, 5th, 10th ... token is labelled, with its index
 * ("10 k"), as plot.h's thinned axes. With 1 or 2 heads the snapshot rows
 * may stand in up to 4 groups side by side (read
 * down each group, then the next), whichever gives the largest maps. */
#define AV_FILMSTRIP_MAX_ROWS 16
#define AV_FILMSTRIP_MAX_COLS 16
#define AV_FILMSTRIP_MAX_PX 2400
typedef struct {
    const char *title;               /* figure title; over up to 3 lines, broken between its " · " pieces
                                        where wider than the maps, as the legend line is */
    const char *probe;               /* the line under the title naming the input every map shows, e.g.
                                        "probe \"3 1 4 1 5 >\" and its answer \" 5 1 4 1 3\"", or NULL */
    const char *note;                /* a line under the legend line, e.g. which of more heads than fit are
                                        shown; or NULL */
    int rows, cols, T;               /* snapshots, heads, tokens of the probe */
    const float *att;                /* (rows, cols, T, T) attention weights */
    const unsigned char *masked;     /* (T, T) 1 = masked (causal), or NULL */
    const char *const *row_labels;   /* rows, e.g. "step 0 · acc 0%" */
    const char *const *col_labels;   /* cols, e.g. "L1 H0" */
    const char *const *tokens;       /* T token labels: the keys under the last row's maps, the queries left of
                                        each row's first map (between it and the row label) */
} av_filmstrip;

/* Errors: AV_ERUNTIME for bad shapes (rows outside 1..AV_FILMSTRIP_MAX_ROWS,
 * cols outside 1..AV_FILMSTRIP_MAX_COLS, T outside 1..64), for labels too wide
 * to fit AV_FILMSTRIP_MAX_PX even with 1-px cells, I/O failure or OOM. */
av_status av_plot_filmstrip(const char *path, const av_filmstrip *fs, const av_plot_meta *meta, av_err *err);

/* An animated GIF (GIF89a, looping forever) of n frames, each an RGB8 buffer
 * (height, width, 3) with stride 3·width, shown delay_cs hundredths of a second
 * each (the last one 3 times as long). Through giflib, written atomically.
 * Colours: one fixed 256-entry palette for every frame: 224 entries of cmap
 * (the frames' heat-map colour map) at evenly spaced table entries and 32
 * greys (the white ground, text, spines, hatch); each pixel becomes its
 * nearest entry (Euclidean in sRGB). A colour of cmap's table (a cell, the
 * colour bar) is then at most one table step (1/256 of the value range) off;
 * a grey at most 5 levels (the figure's own greys #222, #333, #8C8C8C,
 * #E4E4E4, black and white are exact); other colours (a cell value's
 * anti-aliased edge) get the nearest entry. Source: the GIF89a specification
 * (global colour table, 8 bits per index); the tables are colormap.h's.
 * comment (UTF-8; NULL or "" for none) goes into one Comment Extension
 * before the first frame, in sub-blocks of at most 255 bytes (GIF89a §24),
 * as a PNG's tEXt says how the figure was made (the command, the weights).
 * Errors: AV_ERUNTIME naming path and why: the system's words for a failed
 * write ("No space left on device"), else giflib's message; OOM. */
av_status av_gif_write(const char *path, const unsigned char *const *frames, int n, int width, int height,
                       int delay_cs, av_cmap cmap, const char *comment, av_err *err);

#endif
