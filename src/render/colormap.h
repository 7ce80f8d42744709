/* colormap.h - matplotlib's colour maps as 256-entry 8-bit tables.
 *
 * How to use: av_cmap_rgb(AV_CMAP_VIRIDIS, t, rgb) maps t in [0, 1] to an
 * sRGB colour exactly as matplotlib 3.6 does for imshow with bytes=True:
 * index = floor(t * 256), clamped to 0..255; entries are matplotlib's float
 * table times 255, truncated. NaN maps to index 0 (callers are expected to
 * treat non-finite values as masked before they get here).
 *
 * Maps: viridis (default; perceptually uniform), magma, inferno, plasma,
 * cividis (colour-vision-deficiency friendly), gray, and the diverging
 * RdBu_r (blue = low, white = centre, red = high) for scores centred at 0.
 *
 * Non-goals: user-defined maps, alpha, under/over colours.
 */
#ifndef AV_COLORMAP_H
#define AV_COLORMAP_H

typedef enum {
    AV_CMAP_VIRIDIS = 0, /* the default: zero-initialised options get viridis */
    AV_CMAP_MAGMA,
    AV_CMAP_INFERNO,
    AV_CMAP_PLASMA,
    AV_CMAP_CIVIDIS,
    AV_CMAP_GRAY,
    AV_CMAP_RDBU_R,
    AV_CMAP_COUNT
} av_cmap;

/* Colour for t in [0, 1] (values outside are clamped) into rgb[3]. */
void av_cmap_rgb(av_cmap cmap, double t, unsigned char rgb[3]);

/* Table entry k (0..255, clamped) into rgb[3]. */
void av_cmap_entry(av_cmap cmap, int k, unsigned char rgb[3]);

/* Map a name ("viridis", "magma", "inferno", "plasma", "cividis", "gray",
 * "RdBu_r"; case-insensitive) to *out. Returns 0, or -1 for an unknown name
 * (the caller reports a usage error listing av_cmap_names()). */
int av_cmap_from_name(const char *name, av_cmap *out);

/* Canonical name of a map ("viridis", ...); "?" for an invalid value. */
const char *av_cmap_name(av_cmap cmap);

/* Comma-separated list of every name, for usage messages. */
const char *av_cmap_names(void);

/* 1 for diverging maps (centre = the middle of the value range). */
int av_cmap_is_diverging(av_cmap cmap);

#endif
