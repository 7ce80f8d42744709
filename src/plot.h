/* plot.h - attention heat-map figures (PNG now; SVG from the same layout).
 *
 * How to use: fill an av_heatmap per head (weights are (n_q, n_k) row-major,
 * rows = queries, columns = keys), then call av_plot_head / av_plot_grid.
 * Files are written atomically (temporary name, then rename), so a failed run
 * never leaves a half-written figure and an older figure survives untouched.
 *
 * Layout is computed once into a display list (rectangles, lines, text runs
 * with anchor and rotation); back ends rasterize it (FreeType + fontconfig
 * into an RGB buffer, then libpng) or serialise it (SVG). Text uses
 * fontconfig to pick, per character, a font that has the glyph, so Latin,
 * accented, CJK tokens all render; characters no installed font has are drawn
 * as a visible box and reported as a warning.
 *
 * Non-goals: general text layout (no bidi shaping, no line breaking beyond
 * labels), general plotting.
 */
#ifndef AV_PLOT_H
#define AV_PLOT_H

#include "common.h"

typedef struct {
    const char *title;              /* e.g. "head 0 of 8 · positions: sinusoidal · mask: causal" */
    int n_q, n_k;                   /* rows (queries) and columns (keys) */
    const char *const *q_labels;    /* n_q UTF-8 token labels */
    const char *const *k_labels;    /* n_k UTF-8 token labels */
    const float *w;                 /* (n_q, n_k) attention weights in [0, 1] */
    const unsigned char *masked;    /* (n_q, n_k) 1 = masked (-inf before softmax), or NULL */
} av_heatmap;

typedef struct {
    const char *software;    /* PNG tEXt Software, e.g. "attnviz 0.1.0" */
    const char *description; /* PNG tEXt Description: exact command line and seed */
} av_plot_meta;

/* One head's heat-map: value cells (viridis, 0..1), token labels on both
 * axes, axis titles "query (row)" / "key (column)", the title, a 0..1 colour
 * bar with ticks, cell values printed when cells are large enough, masked
 * cells drawn distinctly from a weight of 0 (with a legend entry).
 * Errors: AV_ERUNTIME naming path on I/O failure. */
av_status av_plot_head(const char *path, const av_heatmap *hm, const av_plot_meta *meta, av_err *err);

/* All heads in one grid figure with a shared colour bar and "head h" over
 * each panel; title is the figure title. */
av_status av_plot_grid(const char *path, const av_heatmap *hms, int n, const char *title,
                       const av_plot_meta *meta, av_err *err);

/* Number of characters that no font could render in the last plot calls
 * (so main can warn once). Reset by av_plot_reset_missing(). */
int av_plot_missing_glyphs(void);
void av_plot_reset_missing(void);

#endif
