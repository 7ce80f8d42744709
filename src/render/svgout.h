/* svgout.h - display list → SVG file (atomic), with real <text> elements.
 *
 * How to use: av_svg_write(path, &dl, title, description, err) after the
 * layout filled dl. Text is emitted as <text> with XML-escaped content, the
 * font-family list "DejaVu Sans", "Noto Sans CJK SC", sans-serif (led by the
 * fonts the raster chose when it needed others, e.g. Noto Sans Devanagari),
 * the same visual anchor and baseline point as the raster, and rotation as
 * transform="rotate(-90 x y)"; xml:space="preserve" on the root keeps runs of
 * spaces as the raster draws them. The viewer shapes the text itself; a
 * right-to-left paragraph gets direction="rtl" unicode-bidi="embed" (and the
 * start/end anchor swapped to match), so its bidi ordering is the raster's.
 * Heat maps become one <rect> per cell, or per run of equal cells along a
 * row (masked cells filled with the shared hatch <pattern>); colour-bar
 * ramps, and beyond AV_SVG_MAX_RECTS cells in a figure they are embedded as
 * PNG images instead, so the file stays small. <title> and <desc> carry the figure title and description.
 * The viewBox is the layout in px; width and height are in points (72 an inch) at the PNG's printed
 * size (dl->width / dl->dpi inches), as matplotlib writes them; a browser shows them at 96 % of the
 * pixel size of the PNG at --dpi 100 (1 pt = 4/3 CSS px).
 *
 * Non-goals: CSS styling, fonts embedding, interactivity.
 */
#ifndef AV_SVGOUT_H
#define AV_SVGOUT_H

#include "base/common.h"
#include "render/raster.h"

#define AV_SVG_MAX_RECTS 10000 /* cells; about 65 bytes each as <rect> */

/* Write dl as SVG to path through av_afile (temporary + rename). title and
 * description may be NULL. Errors: AV_ERUNTIME naming path (I/O, OOM, dl->oom,
 * textlayout.h av_text_out_of_memory: the labels were laid out without their fonts). */
av_status av_svg_write(const char *path, const av_dlist *dl, const char *title, const char *description,
                       av_err *err);

#endif
