/* svgout.c - serialise a display list as SVG 1.1.
 *
 * Same coordinates as the raster: boxes become <rect> on whole pixels
 * (shape-rendering crispEdges), text becomes <text> anchored at the same
 * baseline point, its spaces kept as the raster drew them (xml:space
 * "preserve" on the root: by default a viewer joins runs of spaces, so
 * --title 'A   B' read "A B" in the SVG and "A   B" in the PNG); a grapheme
 * cluster the raster drew from a font of its own (a keycap "1⃣") is a <tspan>
 * naming that font. Heat maps with more than AV_SVG_MAX_RECTS cells in the
 * whole figure, and colour-bar ramps, are rasterized per item and embedded
 * as base64 PNG.
 *
 * Non-goals: see svgout.h.
 */
#include "render/svgout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "render/pngout.h"

#define FONT_FAMILY "'DejaVu Sans', 'Noto Sans CJK SC', sans-serif"
#define FONT_FAMILY_JA "'DejaVu Sans', 'Noto Sans CJK JP', sans-serif"

/* The family list of every <text>: with Japanese forms (render/textlayout.h av_text_use_cjk_language "ja") Noto
 * Sans CJK JP, whose default forms are Japanese, where the raster shapes the SC face as Japanese (locl) */
static const char *font_family(void) { return av_text_cjk_language() ? FONT_FAMILY_JA : FONT_FAMILY; }

/* ---------------------------------------------------------------- escaping */

/* Length of a valid UTF-8 sequence at s (NUL-terminated) that XML 1.0
 * allows, or 0. */
static size_t xml_char_len(const unsigned char *s) {
    unsigned cp;
    const char *why;
    int n = av_utf8_decode(s, strnlen((const char *)s, 4), &cp, &why);
    if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) return 0;
    if (cp < 0x20 && cp != 0x09 && cp != 0x0A && cp != 0x0D) return 0;
    return (size_t)n;
}

/* Write s as XML character data / attribute text: &, <, >, " escaped;
 * a character XML 1.0 does not allow (U+FFFE, U+FFFF, a C0 control) and
 * each byte that is not UTF-8 become one U+FFFD: U+FFFE became three, one
 * per byte, where the PNG draws one box. */
static void put_escaped(FILE *fp, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = xml_char_len(p);
        if (n == 0) {
            unsigned cp;
            const char *why;
            int len = av_utf8_decode(p, strnlen((const char *)p, 4), &cp, &why);
            fputs("\xEF\xBF\xBD", fp);
            p += len > 0 ? len : 1;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\n': fputs("&#10;", fp); break;
        case '\r': fputs("&#13;", fp); break;
        case '\t': fputs("&#9;", fp); break;
        default: fwrite(p, 1, n, fp);
        }
        p += n;
    }
}

static void put_base64(FILE *fp, const unsigned char *d, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t k = 0; k < n; k += 3) {
        unsigned v = (unsigned)d[k] << 16;
        if (k + 1 < n) v |= (unsigned)d[k + 1] << 8;
        if (k + 2 < n) v |= d[k + 2];
        char o[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63], k + 1 < n ? tab[(v >> 6) & 63] : '=',
                     k + 2 < n ? tab[v & 63] : '='};
        fwrite(o, 1, 4, fp);
    }
}

/* ---------------------------------------------------------------- items */

static void put_rect(FILE *fp, int x0, int y0, int x1, int y1, const char *fill) {
    if (x1 <= x0 || y1 <= y0) return;
    fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x0, y0, x1 - x0, y1 - y0,
            fill);
}

static void hex(char out[8], av_rgb c) {
    snprintf(out, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* 1 when LINE item b continues LINE item a: same colour, halo and clip box,
 * and b starts where a ends. */
static int line_continues(const av_dl_item *a, const av_dl_item *b) {
    return b->kind == AV_DL_LINE && a->color.r == b->color.r && a->color.g == b->color.g && a->color.b == b->color.b &&
           a->line.extra == b->line.extra && a->line.width == b->line.width && a->x0 == b->x0 && a->y0 == b->y0 && a->x1 == b->x1 && a->y1 == b->y1 &&
           a->line.xb == b->line.xa && a->line.yb == b->line.ya;
}

/* The LINE items from items[k] that continue one another as one <polyline>,
 * clipped to their box (a <clipPath> of its own, id "lineN"), stroked as
 * wide as the raster draws them (2 px and 1 px past each end, so about 2.5,
 * and the halo on both sides), with round joins. Returns the items used. */
static size_t put_polyline(FILE *fp, const av_dl_item *items, size_t n, size_t k, int id) {
    const av_dl_item *it = &items[k];
    char col[8];
    hex(col, it->color);
    fprintf(fp, "<clipPath id=\"line%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n", id,
            it->x0, it->y0, it->x1 - it->x0, it->y1 - it->y0);
    fprintf(fp, "<polyline clip-path=\"url(#line%d)\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" "
            "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"%.2f,%.2f", id, col,
            1.25 * (it->line.width > 0 ? it->line.width : 2) + 2.0 * it->line.extra,
            (double)it->line.xa, (double)it->line.ya);
    size_t used = 0;
    do {
        fprintf(fp, " %.2f,%.2f", (double)items[k + used].line.xb, (double)items[k + used].line.yb);
        used++;
    } while (k + used < n && line_continues(&items[k + used - 1], &items[k + used]));
    fputs("\"/>\n", fp);
    return used;
}

/* One <rect> per run of equal cells along a row (same colour, or both
 * masked), so flat regions (masks, slow PE frequencies) stay small. */
static void put_heat_rects(FILE *fp, const av_dl_item *it) {
    for (int i = 0; i < it->heat.n_q; i++) {
        int j = 0;
        while (j < it->heat.n_k) {
            int b[4], e[4];
            av_rgb c, d;
            av_dl_cell_box(it, i, j, b);
            int hatched = av_heat_cell_color(&it->heat, i, j, &c);
            int end = j + 1;
            while (end < it->heat.n_k) {
                int dh = av_heat_cell_color(&it->heat, i, end, &d);
                if (dh != hatched || (!hatched && (d.r != c.r || d.g != c.g || d.b != c.b))) break;
                end++;
            }
            av_dl_cell_box(it, i, end - 1, e);
            char col[8];
            if (hatched) put_rect(fp, b[0], b[1], e[2], b[3], "url(#hatch)");
            else {
                hex(col, c);
                put_rect(fp, b[0], b[1], e[2], b[3], col);
            }
            j = end;
        }
    }
}

/* Rasterize one heat item on its own and embed it as a PNG <image>. */
static int put_heat_image(FILE *fp, const av_dlist *dl, const av_dl_item *it, av_err *err) {
    int w = it->x1 - it->x0, h = it->y1 - it->y0;
    if (w <= 0 || h <= 0) return 0;
    av_dlist one;
    av_dl_init(&one, w, h, (av_rgb){255, 255, 255});
    one.hatch_period = dl->hatch_period;
    one.hatch_width = dl->hatch_width;
    av_dl_heatmap(&one, 0, 0, w, h, &it->heat);
    unsigned char *rgb = NULL, *png = NULL;
    size_t stride, len;
    av_status st = av_raster_render(&one, &rgb, &stride, err);
    av_dl_free(&one);
    if (st == AV_OK) st = av_png_encode(&png, &len, rgb, w, h, stride, NULL, 0, 0, err);
    av_big_free(rgb);
    if (st) return -1;
    fprintf(fp,
            "<image x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" preserveAspectRatio=\"none\" "
            "style=\"image-rendering:pixelated\" xlink:href=\"data:image/png;base64,",
            it->x0, it->y0, w, h);
    put_base64(fp, png, len);
    fputs("\"/>\n", fp);
    free(png);
    return 0;
}

/* font-family for a run drawn with fonts outside FONT_FAMILY (e.g. Noto Sans
 * Devanagari): those fonts first, in the order the raster used them (an emoji's
 * too: DejaVu Sans for 😀, Symbola for 🤖, both drawn without colour), then
 * FONT_FAMILY's, each family once: the bundled DejaVu Sans and the system's
 * are two fonts of one family, and FONT_FAMILY's own were named again, so a
 * title of Thai, Hebrew and 😀 listed 'DejaVu Sans' and 'Noto Sans CJK SC'
 * twice. A viewer that has the fonts picks the same ones. Nothing when
 * FONT_FAMILY has all. */
static void put_run_families(FILE *fp, const av_dl_text *t) {
    const char *fam[8 + 2];
    int n = av_text_fonts(t->utf8, t->bold, fam, NULL, 8), other = 0;
    if (n > 8) n = 8;
    const char *cjk = av_text_cjk_language() ? "Noto Sans CJK JP" : "Noto Sans CJK SC"; /* FONT_FAMILY's */
    for (int k = 0; k < n; k++)
        if (fam[k] && strcmp(fam[k], "DejaVu Sans") != 0 && strcmp(fam[k], "Noto Sans CJK SC") != 0 &&
            strcmp(fam[k], "Noto Sans CJK JP") != 0)
            other = 1;
    if (!other) return;
    for (int k = 0; k < n; k++) /* with Japanese forms the SC face is shaped as Japanese: named as JP, as above */
        if (fam[k] && strcmp(fam[k], "Noto Sans CJK SC") == 0) fam[k] = cjk;
    fam[n] = "DejaVu Sans", fam[n + 1] = cjk;
    fputs(" font-family=\"", fp);
    for (int k = 0; k < n + 2; k++) {
        if (!fam[k] || strpbrk(fam[k], "'\\")) continue;
        int named = 0;
        for (int j = 0; j < k && !named; j++) named = fam[j] && strcmp(fam[j], fam[k]) == 0;
        if (named) continue;
        fputc('\'', fp);
        put_escaped(fp, fam[k]);
        fputs("', ", fp);
    }
    fputs("sans-serif\"", fp);
}

/* The text of t, each grapheme cluster the raster drew from a font of its
 * own (render/textlayout.h av_text_cluster_fonts: "a⃝", the keycap "1⃣"; the
 * first 64 of a line) in a <tspan> that names that font first, so that a viewer draws its base
 * and marks from one font as the raster did, instead of taking the mark
 * from whatever font its own fallback finds for it (rsvg: the circle beside
 * the a). */
static void put_text_spans(FILE *fp, const av_dl_text *t) {
    av_text_span spans[64];
    int n = av_text_cluster_fonts(t->utf8, t->bold, spans, 64);
    if (n > 64) n = 64;
    size_t at = 0, len = strlen(t->utf8);
    if (n == 1 && spans[0].len == len) n = 0; /* the whole text: put_run_families named its font first */
    char *part = n > 0 ? malloc(len + 1) : NULL;
    if (!part) { /* no such cluster (most labels), or out of memory: the text as it is */
        put_escaped(fp, t->utf8);
        return;
    }
    for (int k = 0; k <= n; k++) {
        size_t to = k < n ? spans[k].start : len;
        memcpy(part, t->utf8 + at, to - at), part[to - at] = 0;
        put_escaped(fp, part);
        if (k == n) break;
        memcpy(part, t->utf8 + to, spans[k].len), part[spans[k].len] = 0;
        if (spans[k].family && !strpbrk(spans[k].family, "'\\")) {
            fputs("<tspan font-family=\"'", fp);
            put_escaped(fp, spans[k].family);
            fprintf(fp, "', %s\">", font_family());
            put_escaped(fp, part);
            fputs("</tspan>", fp);
        } else
            put_escaped(fp, part);
        at = to + spans[k].len;
    }
    free(part);
}

/* A <text> at the raster's baseline point. A right-to-left paragraph (its
 * first strong character, UAX #9 P2-P3, as the raster decided) gets
 * direction="rtl", so the viewer's bidi algorithm orders mixed runs as the
 * raster did; text-anchor then names the run's other end (SVG 1.1 section
 * 10.9.1: "start" is the right end of right-to-left text), so the anchors are
 * swapped to keep the same visual point at x. */
static void put_text(FILE *fp, const av_dl_item *it) {
    const av_dl_text *t = &it->text;
    static const char *anchors[] = {"start", "middle", "end"};
    int rtl = av_text_is_rtl(t->utf8);
    int anchor = t->anchor <= AV_ANCHOR_END ? (int)t->anchor : 0;
    if (rtl) anchor = 2 - anchor;
    char col[8];
    hex(col, it->color);
    fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2f\" text-anchor=\"%s\" fill=\"%s\"", (double)t->x,
            (double)t->y, (double)t->size, anchors[anchor], col);
    if (rtl) fputs(" direction=\"rtl\" unicode-bidi=\"embed\"", fp);
    put_run_families(fp, t);
    if (t->bold) fputs(" font-weight=\"bold\"", fp);
    if (t->rot90) fprintf(fp, " transform=\"rotate(-90 %.2f %.2f)\"", (double)t->x, (double)t->y);
    fputs(">", fp);
    put_text_spans(fp, t);
    fputs("</text>\n", fp);
}

/* ---------------------------------------------------------------- document */

static int write_doc(FILE *fp, const av_dlist *dl, const char *title, const char *desc, av_err *err) {
    size_t cells = 0;
    for (size_t k = 0; k < dl->n; k++)
        if (dl->items[k].kind == AV_DL_HEAT && !dl->items[k].heat.ramp)
            cells += (size_t)dl->items[k].heat.n_q * (size_t)dl->items[k].heat.n_k;
    int embed = cells > AV_SVG_MAX_RECTS;
    char col[8];
    av_rgb hb = AV_HATCH_BG, hi = AV_HATCH_INK;

    int P = dl->hatch_period > 1 ? dl->hatch_period : AV_HATCH_PERIOD;
    double lw = dl->hatch_width > 0 ? dl->hatch_width : AV_HATCH_WIDTH;
    /* The printed size is the PNG's: a layout px is 1/100 inch at --dpi 100 (1/dpi at dl->dpi), written in points,
     * 72 an inch, as matplotlib's SVGs are; a CSS px (96 an inch, SVG's unitless width) printed 4 % larger. */
    double pt = (dl->dpi > 0 ? 1.0 / dl->dpi : 1.0 / 100) * 72; /* points per layout px */

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
            "version=\"1.1\"%s xml:space=\"preserve\" width=\"%.6gpt\" height=\"%.6gpt\" viewBox=\"0 0 %d %d\">\n",
            av_text_cjk_language() ? " xml:lang=\"ja\"" : "", dl->width * pt, dl->height * pt, dl->width, dl->height);
    if (title) {
        fputs("<title>", fp);
        put_escaped(fp, title);
        fputs("</title>\n", fp);
    }
    if (desc) {
        fputs("<desc>", fp);
        put_escaped(fp, desc);
        fputs("</desc>\n", fp);
    }
    /* The masked pattern: lines x + y = P k, as the raster draws them. */
    hex(col, hb);
    fprintf(fp,
            "<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"%d\" height=\"%d\">"
            "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>",
            P, P, P, P, col);
    hex(col, hi);
    int a = lw > 2 ? (int)lw + 1 : 2; /* overshoot past the tile so the butt ends are clipped away */
    fprintf(fp,
            "<path d=\"M%d,%d L%d,%d M%d,%d L%d,%d M%d,%d L%d,%d\" stroke=\"%s\" stroke-width=\"%.2f\"/>",
            -a, a, a, -a, -a, P + a, P + a, -a, P - a, P + a, P + a, P - a, col, lw);
    fputs("</pattern></defs>\n", fp);
    hex(col, dl->background);
    fprintf(fp, "<g shape-rendering=\"crispEdges\">\n");
    put_rect(fp, 0, 0, dl->width, dl->height, col);
    fprintf(fp, "</g>\n<g font-family=\"%s\">\n", font_family());
    int in_rects = 0, lines = 0; /* inside a <g> of consecutive RECT items; polylines so far */
    for (size_t k = 0; k < dl->n; k++) {
        const av_dl_item *it = &dl->items[k];
        if (in_rects && it->kind != AV_DL_RECT) {
            fputs("</g>\n", fp);
            in_rects = 0;
        }
        switch (it->kind) {
        case AV_DL_RECT:
            if (!in_rects) fputs("<g shape-rendering=\"crispEdges\">\n", fp);
            in_rects = 1;
            hex(col, it->color);
            put_rect(fp, it->x0, it->y0, it->x1, it->y1, col);
            break;
        case AV_DL_HATCH: put_rect(fp, it->x0, it->y0, it->x1, it->y1, "url(#hatch)"); break;
        case AV_DL_HEAT:
            if (embed || it->heat.ramp) {
                if (put_heat_image(fp, dl, it, err) != 0) return -1;
            } else {
                fputs("<g shape-rendering=\"crispEdges\">\n", fp);
                put_heat_rects(fp, it);
                fputs("</g>\n", fp);
            }
            break;
        case AV_DL_TEXT: put_text(fp, it); break;
        case AV_DL_LINE: k += put_polyline(fp, dl->items, dl->n, k, lines++) - 1; break;
        case AV_DL_TRI:
            hex(col, it->color);
            fprintf(fp, "<polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"%s\"/>\n", (double)it->tri.x[0],
                    (double)it->tri.y[0], (double)it->tri.x[1], (double)it->tri.y[1], (double)it->tri.x[2],
                    (double)it->tri.y[2], col);
            break;
        }
    }
    if (in_rects) fputs("</g>\n", fp);
    fputs("</g>\n</svg>\n", fp);
    return 0;
}

av_status av_svg_write(const char *path, const av_dlist *dl, const char *title, const char *description,
                       av_err *err) {
    if (dl->oom || av_text_out_of_memory()) /* the labels' fonts or layouts, as dl->oom */
        return av_fail(err, AV_ERUNTIME, "cannot write %s: out of memory while laying out", AV_SHOWN_WORD(path, 4200));
    av_afile f;
    av_status st = av_afile_open(&f, path, err);
    if (st) return st;
    if (write_doc(f.fp, dl, title, description, err) != 0 ||
        (av_text_out_of_memory() && av_fail(err, AV_ERUNTIME, "out of memory while laying out"))) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
        av_afile_abort(&f);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), why);
    }
    return av_afile_commit(&f, err);
}
