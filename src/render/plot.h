/* Layer render/ (figures from plain arrays): includes only base/, io/ and render/ headers, never text/ or nn/.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* plot.h - attention heat-map figures (PNG, or SVG from the same layout).
 *
 * How to use: fill an av_heatmap per head (weights are (n_q, n_k) row-major,
 * rows = queries, columns = keys), then call av_plot_head / av_plot_grid
 * (or av_plot_matrix / av_plot_mask, below). The arrays are read, not
 * copied or freed; they must stay valid during the call.
 * A path ending in ".svg" (any case) gets SVG, anything else PNG. Files are
 * written atomically (temporary name, then rename), so a failed run never
 * leaves a half-written figure and an older figure survives untouched.
 *
 * What a figure shows: cells coloured by a perceptually uniform colour map
 * (viridis unless meta->cmap says otherwise) over 0..1, token labels on both
 * axes (thinned to every k-th when cells are smaller than the text, rotated
 * 90 degrees when they do not fit across a column, cut with "…" beyond a
 * fixed width), axis titles "query (row)" and "key (column)", the title, a
 * colour bar with ticks 0, 0.2, ..., 1.0, each cell's value ("0.32", in black
 * or white, whichever contrasts more) when cells are large enough, and masked
 * cells (score −∞; also any non-finite weight) as light grey with diagonal
 * hatching, explained by a legend entry: AV_PLOT_LEGEND_WEIGHTS on a weights
 * (and the mask) figure, AV_PLOT_LEGEND_SCORES on a scores figure (cells that
 * print "−∞", av_heatmap.neg_inf_cells), or meta->mask_legend. Values are clamped to
 * the colour range, so no NaN reaches a pixel. Sizes (scale 1, 100 dpi): a
 * head figure is about 600-700 px wide for T = 4 and at most 2400 px for
 * T = 512; label text is 15 px (11 pt at 100 dpi), larger than matplotlib's
 * default 10 pt. meta->scale and meta->dpi multiply every size (see
 * av_plot_meta).
 *
 * Layout is computed once into a display list (raster.h: rectangles, hatch
 * boxes, heat maps, text runs with anchor and rotation); back ends rasterize
 * it (FreeType + fontconfig into an RGB buffer, then libpng) or serialise it
 * (SVG). Every label, title and legend is laid out by textlayout.h: a font
 * per script run from fontconfig (DejaVu Sans first, as matplotlib, then
 * Noto Sans CJK SC, then the installed font that has the run's letters, e.g.
 * Noto Sans Devanagari), bidi (UAX #9) and OpenType shaping through libraqm,
 * so Hindi, Arabic, Hebrew, Tamil, ... labels read in display order with
 * joined and reordered glyphs, and every width (thinning, centring, figure
 * size) is the shaped width. Characters no installed font has (e.g. emoji
 * without an emoji font) are drawn as a visible box and counted for
 * av_plot_missing_glyphs().
 *
 * Other figures from the same pieces: av_plot_matrix draws any (rows, cols)
 * matrix with per-axis cell sizes (the positional-encoding matrix, the RoPE
 * angles), av_plot_mask the two-colour "which query sees which key" matrix.
 * Numbers in cells and on colour bars use a true minus sign (U+2212); colour-bar
 * ticks of a tiny or huge range (step below 1e-4, or values from 1e6) are in
 * scientific notation, "2e−31", as matplotlib's.
 *
 * When labels are thinned (every k-th drawn), token labels carry their
 * position, "15: model", so a reader can find a row; plain index labels
 * (labels NULL) stay numbers and are drawn horizontally, thinned to round
 * steps.
 *
 * PNG files are deterministic (same inputs → same bytes; no tIME chunk) and
 * carry tEXt (or iTXt, when not Latin-1) chunks Software, Title and
 * Description, plus pHYs (meta->dpi, default 100, or lower past
 * AV_PLOT_MAX_PX: see av_plot_meta) and sRGB.
 *
 * Not thread-safe: the font cache, the missing-glyph count and the
 * lowered-dpi record (av_plot_lowered_dpi) are process-wide.
 *
 * Non-goals: line breaking beyond splitting a long title at " · ", general
 * plotting.
 */
#ifndef AV_PLOT_H
#define AV_PLOT_H

#include "render/colormap.h"
#include "base/common.h"
#include "render/pngbatch.h"
#include "render/raster.h"

typedef struct {
    const char *title;              /* e.g. "head 0 of 8 · positions: sinusoidal · mask: causal" */
    int n_q, n_k;                   /* rows (queries) and columns (keys), 1..AV_PLOT_MAX_TOKENS
                                     * (av_plot_matrix: columns 1..AV_PLOT_MAX_COLS) */
    const char *const *q_labels;    /* n_q UTF-8 token labels, or NULL for "0", "1", ... */
    const char *const *k_labels;    /* n_k UTF-8 token labels, or NULL for "0", "1", ... */
    const float *w;                 /* (n_q, n_k) attention weights in [0, 1] (or the values
                                     * of the meta's range); unused by av_plot_mask */
    const unsigned char *masked;    /* (n_q, n_k) 1 = masked (-inf before softmax), or NULL */
    /* Optional; zero / NULL gives the default. */
    const char *panel_title;        /* grid: text over this panel; NULL = "head p" */
    const char *panel_short;        /* grid: text over this panel when it neither starts a row
                                     * nor a group (meta->grid_cols), e.g. "H5" for "L0 H5";
                                     * NULL = panel_title */
    const char *q_title;            /* y-axis title; NULL = "query (row)" */
    const char *k_title;            /* x-axis title; NULL = "key (column)" */
    int neg_inf_cells;              /* 1 = masked cells print "−∞" where values are printed
                                     * (scores before the softmax) */
    int pool;                       /* tokens per cell along each axis (a matrix figure: rows
                                     * per row, columns not pooled), set by the layout when it
                                     * pools (0 or 1 = one token per cell) */
} av_heatmap;

/* Pooling: when a head figure would need more than AV_PLOT_HEAD_CELLS cells
 * per side (a grid panel AV_PLOT_GRID_CELLS), blocks of p x p tokens become
 * one cell, p = ceil(T / cells), and the title says so ("max over 4×4 tokens
 * per cell"). AV_POOL_MAX keeps the largest visible value of the block (a
 * sharp weight stays visible); on a colour range below 0 (the scores'
 * diverging map) the value of the largest magnitude, with its sign ("largest
 * |score| over 4×4 tokens per cell, sign kept"). AV_POOL_MEAN their mean. A block is masked
 * only when all its cells are; masked cells never enter the max or mean. The mask figure (no
 * values) says that instead ("4×4 tokens per cell, hatched only when all 16 of its (query, key)
 * pairs are masked"), whatever the pool.
 * Labels then name the first token of each block, with its position. */
typedef enum { AV_POOL_MAX, AV_POOL_MEAN } av_pool;

#define AV_PLOT_HEAD_CELLS 768 /* a head or mask figure: 2 px cells at most 1536 px */
#define AV_PLOT_GRID_CELLS 256 /* a grid panel */

#define AV_PLOT_MAX_TOKENS 65536 /* rows and columns of a head, grid or mask figure */
#define AV_PLOT_MAX_COLS 4096 /* av_plot_matrix: e.g. the (T, d_model) PE matrix */

/* Metadata and rendering options. Every field may be left zero / NULL for
 * the default, so `av_plot_meta m = {.software = ..., .description = ...}`
 * gives the standard figure.
 *
 * Size: every length (fonts, cells, margins, lines, the hatch) is multiplied
 * by f = scale × dpi / 100, so `dpi` keeps the printed size (a 640 px figure
 * at 100 dpi is 6.4 in wide, and 1920 px at 300 dpi) and `scale` makes the
 * figure itself larger (slides, projectors). f is clamped to 0.25..8. No
 * side exceeds AV_PLOT_MAX_PX pixels: a figure that would is drawn with a
 * smaller f and states a lower dpi, the largest whole one that fits, so it
 * keeps its printed size (fewer pixels per inch, as matplotlib's savefig
 * at a lower dpi); av_plot_lowered_dpi counts such files. An SVG's
 * width/height attributes are the figure at f = scale (the viewBox holds
 * the pixel layout), so SVG size ignores dpi; dpi sets the pixels of the
 * images an SVG embeds. */
typedef struct {
    const char *software;    /* PNG tEXt Software, e.g. "attnviz 0.1.0" */
    const char *description; /* PNG tEXt Description: exact command line and seed */
    const char *weights;     /* where the weights come from, e.g. "random weights (untrained,
                              * seed 42)", "weights loaded from w/", "model gpt2", "trained on
                              * copy, step 500"; PNG tEXt Weights, SVG <desc> "weights: ..." line;
                              * NULL = not written (the caller also puts it in the title) */
    const char *run;         /* identity of the run that drew it (same input, settings and
                              * weights = same run), PNG tEXt Run, SVG <desc> "run: ..." line;
                              * NULL = not written */
    int dpi;                 /* pHYs resolution, pixels per inch; 0 = 100 */
    av_cmap cmap;            /* colour map; 0 = AV_CMAP_VIRIDIS */
    float vmin, vmax;        /* value range of the colour bar; both 0 = [0, 1] */
    const char *value_label; /* colour bar title; NULL = "attention weight" */
    float scale;             /* size multiplier; 0 = 1 */
    av_pool pool;            /* how cells are pooled past the pixels (0 = AV_POOL_MAX) */
    int log_scale;           /* 1 = colour by log10(value) over [vmin, vmax] (vmin <= 0
                              * becomes vmax / 1000); cell values are not printed, and
                              * the title ends in AV_PLOT_LOG_NOTE to say so; values below
                              * the bottom take its colour, and when any is drawn the colour
                              * bar ends in a triangle of that colour (matplotlib's
                              * colorbar extend='min', 5 % of the bar) and the metadata
                              * counts them (av_plot_write: tEXt Clipped, <desc> clipped:);
                              * so for values above a range from 0 (extend='max', on top),
                              * linear or log */
    float auto_pct;          /* > 0: vmax = this percentile of the values drawn (after
                              * pooling), vmin = 0; the colour bar's title gains the range */
    int grid_cols;           /* av_plot_grid: panels per row (e.g. H for a layers x heads
                              * model view), and a group that starts a new row; a group
                              * too wide for the figure, or whose panels grow by a quarter
                              * or more when wrapped, wraps over several rows, and past
                              * ~60 groups several go in a row; 0 = automatic */
    av_png_batch *batch;     /* non-NULL: a PNG is drawn now and queued there, compressed on
                              * its thread and written by av_png_batch_end (pngbatch.h) */
    size_t user_title;       /* the first bytes of every title are the user's own (--title):
                              * they never widen the figure; a piece of them wider than it
                              * wraps over up to 3 lines (at spaces, or between CJK
                              * characters), the rest cut after a whole word with "…"
                              * (plot.c fit_title_line; the metadata keeps them
                              * whole); 0 = every " · " piece may widen the figure up to its
                              * bound, and one wider than the bound is cut the same way */
    const char *mask_legend; /* the hatched cells' legend entry, UTF-8, one line beside the
                              * swatch, e.g. AV_TRAIN_MASK_TEXT (trainfig.h) for a training
                              * run's causal mask; NULL = AV_PLOT_LEGEND_SCORES when the panels
                              * print "−∞" (neg_inf_cells), else AV_PLOT_LEGEND_WEIGHTS */
} av_plot_meta;

/* The hatched cells' default legend entries (UTF-8): a masked (query, key) pair's score is −∞ before the
 * softmax and its weight 0 after it (PyTorch's scaled_dot_product_attention with a bool attn_mask, True =
 * masked), so a weights figure says both and a scores figure the score. */
#define AV_PLOT_LEGEND_WEIGHTS "masked (score \xE2\x88\x92\xE2\x88\x9E, weight 0)" /* masked (score −∞, weight 0) */
#define AV_PLOT_LEGEND_SCORES "masked (score \xE2\x88\x92\xE2\x88\x9E)"           /* masked (score −∞) */

/* What a log-scale figure's title gains: its cells print no numbers. */
#define AV_PLOT_LOG_NOTE "log colours: no numbers in cells"

#define AV_PLOT_MAX_PANELS 4096 /* av_plot_grid: at most this many panels (e.g. 48 layers x 25 heads) */

#define AV_PLOT_MAX_PX 6000 /* no figure side is longer, whatever scale and dpi */

/* The figures av_plot_write wrote since av_plot_reset_lowered_dpi whose dpi
 * was lowered to keep them within AV_PLOT_MAX_PX (see av_plot_meta), so the
 * command can say so once. A figure's PNG and SVG, written one after the
 * other, are one figure named "heads.png/.svg". */
#define AV_PLOT_LOWERED_NAMES 3
typedef struct {
    int files;                               /* how many figures */
    int lowest, highest;                     /* the dpi they state, over them */
    char names[AV_PLOT_LOWERED_NAMES][104];  /* the first ones' file names, without the folder */
    char last[96];                           /* the last file's name without its .png or .svg */
    char no_dpi[96];                         /* "" or a file with no dpi to state (the GIF) that was drawn
                                                with fewer pixels than the dpi asked, from
                                                av_plot_note_fewer_pixels */
} av_plot_lowered;
const av_plot_lowered *av_plot_lowered_dpi(void);
void av_plot_reset_lowered_dpi(void);

/* The figures av_plot_write wrote since av_plot_reset_cut_titles whose title
 * the layout cut with "…" (av_dlist.title_cut): a --title (or a --weights
 * folder) too long for the 3 lines a title piece may wrap over in the
 * figure's width, so the command can say so once (the PNG's Title and the
 * SVG's <title> keep it, up to app/figures.c's 1000 bytes). A figure's PNG and SVG are one figure named
 * "heads.png/.svg", as in av_plot_lowered. */
typedef struct {
    int files;                              /* how many figures */
    char names[AV_PLOT_LOWERED_NAMES][104]; /* the first ones' file names, without the folder */
    char last[96];                          /* the last file's name without its .png or .svg */
} av_plot_cut;
const av_plot_cut *av_plot_cut_titles(void);
void av_plot_reset_cut_titles(void);
/* Record path (its name, without the folder) as a file that has no dpi to
 * state, an animated GIF, drawn with fewer pixels than --dpi and --scale
 * ask so that its frames stay within AV_PLOT_MAX_PX; the last one counts.
 * No errors. */
void av_plot_note_fewer_pixels(const char *path);

/* One head's heat-map: value cells, token labels on both axes, axis titles
 * "query (row)" / "key (column)", the title (hm->title), a colour bar with
 * ticks, cell values printed when cells are large enough, masked cells
 * drawn distinctly from a weight of 0 (with a legend entry).
 * Shapes: hm->w and hm->masked are (n_q, n_k). meta may be NULL.
 * Errors: AV_ERUNTIME naming path on I/O failure, bad shapes (n_q or n_k
 * outside 1..AV_PLOT_MAX_TOKENS, NULL weights) or out of memory; AV_EUSAGE when
 * fileio rejects the path itself (empty, ends in '/'). */
av_status av_plot_head(const char *path, const av_heatmap *hm, const av_plot_meta *meta, av_err *err);

/* All n heads (hms[0..n-1], same n_q and n_k) in one grid figure: 4 columns
 * for 5..16 heads, ceil(sqrt(n)) beyond (or meta->grid_cols),
 * hms[p].panel_title (default "head p") over each panel (panel_short over
 * those that start neither a row nor a group), shared
 * axes (query labels on the left column, key labels under the bottom panel
 * of each column), one shared colour bar, `title` as the figure title. Cell
 * values are printed only while cells stay large (about T <= 8); the figure
 * stays within ~2400 x 2400 px, averaging cells when panels are smaller
 * than T pixels. When panels would get smaller than 16 px, groups wrap,
 * gaps shrink to a few px and panel titles to 11 px; past ~60 rows only
 * each row's first panel is titled (plot.c grid_choose). The per-head
 * hms[h].title is not drawn.
 * Errors: as av_plot_head; also AV_ERUNTIME when n < 1 or heads differ in
 * shape. */
av_status av_plot_grid(const char *path, const av_heatmap *hms, int n, const char *title,
                       const av_plot_meta *meta, av_err *err);

/* General (n_q rows, n_k columns) matrices, n of them (1..8, the same n_q;
 * a later panel may have fewer columns than the first, and is then drawn
 * narrower with the same cell width) side by side sharing the row labels,
 * e.g. the sinusoidal PE split into its sin and cos dimensions (an odd
 * d_model has one more sin column than cos): cells sized per axis (the maps together about
 * 770 px wide, up to 600 px tall; beyond that columns are area-averaged); more rows than
 * the ~2200 pixel rows a figure has room for are pooled, p rows a pixel row, each column's
 * mean over them (whatever meta->pool: a sinusoid's max over a block is about 1 wherever
 * it falls), and the title gains "mean over p positions per row" (4788 rows: 3),
 * row labels always "index label" (rows are positions), column labels from
 * k_labels or plain indices, the row axis title from hms[0].q_title, each
 * panel's hms[p].k_title under it and hms[p].panel_title over it; values
 * and colour bar from meta (e.g. −1..1 with AV_CMAP_RDBU_R); `title` over
 * the figure. Errors: as av_plot_grid, with n_k allowed up to
 * AV_PLOT_MAX_COLS. */
av_status av_plot_matrix(const char *path, const av_heatmap *hms, int n, const char *title,
                         const av_plot_meta *meta, av_err *err);

/* The mask as a two-colour matrix: cells a query may attend to are filled
 * with meta's colour map at 0.35, masked cells are hatched (as in every
 * other figure), with a two-entry legend in place of the colour bar.
 * hm->w is ignored (may be NULL); hm->masked NULL means nothing is masked.
 * Errors: as av_plot_head. */
av_status av_plot_mask(const char *path, const av_heatmap *hm, const av_plot_meta *meta, av_err *err);

/* out[i, j] = mean over the H heads of att[h, i, j] (summed in double).
 * Shapes: att is (H, n_q, n_k), out is (n_q, n_k). For the "mean over heads"
 * figure, which must be titled as a mean (pitfall P10). */
void av_plot_mean_heads(float *out, const float *att, int H, int n_q, int n_k);

/* Largest |v| over the unmasked entries of n matrices (n, n_q, n_k) sharing
 * one (n_q, n_k) mask (NULL = none); 1 when there is none or it is 0, so
 * [−a, a] is always a usable symmetric colour range (scores). */
float av_plot_abs_max(const float *v, const unsigned char *masked, int n, int n_q, int n_k);

/* The pct-th percentile (0..100, nearest rank) of the visible, finite values
 * of n matrices (n, n_q, n_k) sharing one (n_q, n_k) mask (NULL = none); 0
 * when there is none. Past 2^18 values it is estimated from 2^18 of them,
 * evenly strided. For an automatic colour range (--vmax auto): with T
 * tokens the weights sit near 1/T, dark on a fixed 0..1 scale. */
float av_plot_percentile(const float *v, const unsigned char *masked, int n, int n_q, int n_k, double pct);

/* out (n bytes, n >= 32 holds any value) = printf's %.3g of v with every
 * ASCII '-' written as the true minus U+2212, as the colour bar's ticks and
 * matplotlib (axes.unicode_minus) print it: 1e-30 -> "1e−30", -3.3 ->
 * "−3.3". For the colour bar's range in its title. Cut short (whole
 * characters) if n is smaller. */
void av_plot_g3(char *out, size_t n, double v);
/* lo_out and hi_out (n bytes each, n >= 32 holds any value) = lo and hi as
 * av_plot_g3 writes them, in one notation: when %.3g writes one of them with
 * an exponent and the other without, both get %.3g's exponent form (%.2e,
 * trailing zeros dropped as %g drops them), so a colour bar's range reads
 * "7.97e−05 – 7.97e−02", not "7.97e−05 – 0.0797" (--log-scale on a
 * 112-token sentence: auto 0.0797 and 3 decades below it); "0.000229 –
 * 0.229" and "1e−33 – 1e−30" stay as %.3g writes them. For the log scale's
 * range in a colour bar's title (plot.c, app/figures.c). */
void av_plot_g3_range(char *lo_out, char *hi_out, size_t n, double lo, double hi);

/* Every step-th label of an axis: 1, 2, 5, 10, 20, 50, ... (so the labelled
 * indices are round numbers), the fewest that give each label `need` px
 * along the axis at `cell` px a position; 1 when cell <= 0. Used by the heat
 * maps' thinned axes and the film strip's token labels. */
int av_plot_label_step(float need, float cell);

/* Number of distinct characters (code points) that no font could render in
 * the figures laid out since the last reset, so main can warn once: "2
 * characters have no glyph" for two emoji, however often they are drawn.
 * Reset by av_plot_reset_missing(). */
int av_plot_missing_glyphs(void);
void av_plot_reset_missing(void);

/* The k-th of those code points (0 <= k < av_plot_missing_glyphs()), in the
 * order first drawn, so the warning can name them (U+1FA77); 0 past the first
 * 256 remembered or out of range. No errors. */
unsigned av_plot_missing_glyph(int k);

/* Number of distinct emoji sequences (flags, skin tones, ZWJ and keycap
 * sequences: textlayout.h av_text_split_sequences) that the figures laid out
 * since the last av_plot_reset_missing() draw as several things side by
 * side, as no font found has one glyph for them, and tag sequences drawn as
 * their base alone (🏴󠁧󠁢󠁥󠁮󠁧󠁿 as 🏴); the k-th of them (0 <= k <
 * 16 and < the count, in the order first drawn; NULL otherwise) as UTF-8,
 * its kind (AV_SEQ_FLAG, ...) into *kind when kind is not NULL. So main can
 * say once what 🇯🇵 is drawn as. No errors. */
int av_plot_split_sequences(void);
const char *av_plot_split_sequence(int k, int *kind);

/* ------------------------------------------------------------ layout (tests, other back ends) */

/* Lay out a head / grid / matrix / mask figure into dl (initialised here;
 * free with av_dl_free, also after an error), at its final pixel size (scale
 * and dpi applied). The data HEAT items appear in panel order, so the p-th
 * of them is panel p (0 for a head figure; the colour bar's ramp is a HEAT
 * item marked `ramp` and is not counted); use av_plot_panel to find it and
 * av_dl_cell_box for a cell's pixels.
 * Adds the figure's missing-glyph count to av_plot_missing_glyphs().
 * Errors: AV_ERUNTIME for bad shapes or out of memory. */
av_status av_plot_layout_head(av_dlist *dl, const av_heatmap *hm, const av_plot_meta *meta, av_err *err);
av_status av_plot_layout_grid(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                              const av_plot_meta *meta, av_err *err);
av_status av_plot_layout_matrix(av_dlist *dl, const av_heatmap *hms, int n, const char *title,
                                const av_plot_meta *meta, av_err *err);
av_status av_plot_layout_mask(av_dlist *dl, const av_heatmap *hm, const av_plot_meta *meta, av_err *err);

/* A figure laid out elsewhere (render/trainfig.c) at 100 dpi and scale 1,
 * brought to meta's dpi and scale as this file's figures are: every length
 * times f = scale × dpi / 100, clamped to 0.25..8; dl->dpi = meta's (0 =
 * 100), for the pHYs chunk and the SVG's size. When a side would pass
 * AV_PLOT_MAX_PX, f and dl->dpi are lowered together so that the printed
 * size (dl->width / dl->dpi inches) stays layout width × scale / 100.
 * meta NULL or zero: nothing changes. Adds dl's characters no font has to
 * av_plot_missing_glyphs() first. No errors. */
void av_plot_scale_laid_out(av_dlist *dl, const av_plot_meta *meta);

/* The dpi av_plot_scale_laid_out gives a figure laid out at w x h px (100
 * dpi, scale 1): meta's (0 = 100), or the lower one that keeps it within
 * AV_PLOT_MAX_PX. Figures no larger than w x h brought to meta with this dpi
 * all get one factor, scale × dpi / 100 (the frames of a GIF). No errors. */
int av_plot_fit_dpi(int w, int h, const av_plot_meta *meta);

/* Write a laid-out figure: SVG when path ends in ".svg" (any case), else PNG
 * with tEXt Title (dl->title, the title as drawn when the layout added a note
 * to it, else title), Software and Description (from meta), Weights and
 * Run (meta's, when given), Clipped (dl->clipped: "14 of 25 cells are below
 * the colour bar's bottom, 0.001, ...", when the log scale clipped any, and
 * "3 of 16 cells are above the colour bar's top, 0.5, ..." first when the
 * range's top clipped any; the
 * SVG's <desc> has the same as "weights: ", "run: ", "clipped: " lines) and
 * pHYs (dl->dpi, the dpi the layout was finished at; see av_plot_lowered_dpi).
 * Atomic (io/fileio.h). Errors: AV_ERUNTIME naming path (I/O, OOM, dl->oom). */
av_status av_plot_write(const char *path, const av_dlist *dl, const char *title, const av_plot_meta *meta,
                        av_err *err);

/* A malloc'd copy of the title line s (UTF-8) that fits max_w px at size px,
 * bold: s itself, or its longest prefix that ends at a whole word (a space,
 * after a '/', between CJK characters: plot.c's break_between) and fits with
 * "…" after it, trailing spaces dropped, as Python's textwrap.shorten cuts; a
 * line with no such break in what fits is cut inside, at whole grapheme
 * clusters. The third line of a long --title and a " · " piece are cut so.
 * NULL on OOM. */
char *av_plot_fit_title_line(const char *s, float size, float max_w);

/* The HEAT item of panel p in dl (colour-bar ramps skipped), or NULL. */
const av_dl_item *av_plot_panel(const av_dlist *dl, int p);

#endif
