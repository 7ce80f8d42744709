/* html.c - write attnviz.html: the page template with its CSS, JavaScript
 * and the run's numbers inlined (see html.h for the data format).
 * Leaves out: any drawing (the JavaScript draws), any recomputation.
 */
#include "render/html.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "render/colormap.h"

/* src/render/html/ compiled in by scripts/embed.sh */
extern const unsigned char av_html_template[], av_html_css[], av_html_js[];
extern const unsigned long av_html_template_len, av_html_css_len, av_html_js_len;

/* ---------------------------------------------------------------- sizes */

static size_t panel_count(const av_html_page *p) {
    size_t n = 0;
    for (int r = 0; r < p->n_runs; r++) n += (size_t)p->runs[r].L * (size_t)p->runs[r].H;
    return n;
}

/* bytes per (layer, head) panel: tt for each of weights and scores, tdq for each of q, k, v */
static void panel_bytes(const av_html_run *r, size_t *tt, size_t *tdq) {
    *tt = (size_t)r->T * (size_t)r->T;
    *tdq = r->q && r->k && r->v ? (size_t)r->T * (size_t)r->D : 0;
}

/* 1 if the run's mask hides a cell: only then is it stored (run_json) */
static int mask_hides(const av_html_run *r) {
    size_t tt = (size_t)r->T * (size_t)r->T;
    for (size_t i = 0; r->mask && i < tt; i++)
        if (r->mask[i]) return 1;
    return 0;
}

size_t av_html_mask_bytes(const av_html_page *page) {
    size_t masks = 0;
    for (int r = 0; page->runs && r < page->n_runs; r++)
        if (mask_hides(&page->runs[r])) masks += (size_t)page->runs[r].T * (size_t)page->runs[r].T;
    return masks;
}

/* How many panels of each run are kept (kept[r]), and the mode. The masks stored count first: a 5000-token
 * --causal page held a 25 MB mask (33 MB of base64) outside --html-limit's count. */
static int plan(const av_html_page *p, size_t *kept, size_t *bytes) {
    size_t limit = p->max_bytes ? p->max_bytes : AV_HTML_MAX_BYTES, masks = av_html_mask_bytes(p);
    size_t full = masks, small = masks;
    for (int r = 0; r < p->n_runs; r++) {
        size_t tt, tdq, n = (size_t)p->runs[r].L * (size_t)p->runs[r].H;
        panel_bytes(&p->runs[r], &tt, &tdq);
        full += n * 4 * (2 * tt + 3 * tdq);
        small += n * 2 * tt;
        kept[r] = n;
    }
    if (full <= limit) { *bytes = full; return 0; }
    if (small <= limit) { *bytes = small; return 1; }
    /* 8-bit, the first panels that fit, taken in turn from each run: a --compare page kept every head of
     * its first setting and none of the others ("no scale: 0 of 8" beside 8 of 8, a tester's report),
     * so the settings could not be compared on any head; now head h of each setting goes before h + 1 */
    size_t used = masks, n[64];
    for (int r = 0; r < p->n_runs; r++) n[r] = kept[r], kept[r] = 0;
    for (int grew = 1; grew;) {
        grew = 0;
        for (int r = 0; r < p->n_runs; r++) {
            size_t tt, tdq;
            panel_bytes(&p->runs[r], &tt, &tdq);
            if (kept[r] < n[r] && used + 2 * tt <= limit) { used += 2 * tt; kept[r]++; grew = 1; }
        }
    }
    *bytes = used;
    return 2;
}

size_t av_html_data_bytes(const av_html_page *page, int *mode) {
    size_t kept[64], bytes = 0;
    if (page->n_runs < 1 || page->n_runs > 64) { *mode = 0; return 0; }
    *mode = plan(page, kept, &bytes);
    return bytes;
}

size_t av_html_panels_kept(const av_html_page *page, size_t *total, int *mode) {
    size_t kept[64], bytes = 0, n = 0;
    *total = 0, *mode = 0;
    if (page->n_runs < 1 || page->n_runs > 64) return 0;
    *mode = plan(page, kept, &bytes);
    for (int r = 0; r < page->n_runs; r++) n += kept[r], *total += (size_t)page->runs[r].L * (size_t)page->runs[r].H;
    return n;
}

/* ---------------------------------------------------------------- output */

typedef struct {
    av_afile *f;
    unsigned char b[3]; /* pending base64 bytes */
    int nb;
} out_t;

static void put(out_t *o, const char *s, size_t n) { av_afile_write(o->f, s, n); }
static void puts_(out_t *o, const char *s) { put(o, s, strlen(s)); }

static void printf_(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(out_t *o, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A JSON string; '<', '>' and '&' as \u escapes so no text can close the
 * <script> element, control characters escaped, other UTF-8 as is, a byte
 * that is not UTF-8 as U+FFFD. */
static void json_str(out_t *o, const char *s) {
    put(o, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        size_t n = *c < 0x80 ? 1 : av_utf8_char_len((const char *)c); /* 0: not UTF-8 (a folder name) */
        if (*c == '"' || *c == '\\') { char e[2] = {'\\', (char)*c}; put(o, e, 2); }
        else if (*c == '\n') puts_(o, "\\n");
        else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&') printf_(o, "\\u%04x", *c);
        else if (n == 0) puts_(o, "\xEF\xBF\xBD");
        else {
            put(o, (const char *)c, n);
            c += n - 1;
        }
    }
    put(o, "\"", 1);
}

/* HTML text (the <title>): &, <, > and " escaped, a byte that is not UTF-8 as U+FFFD. */
static void html_text(out_t *o, const char *s) {
    for (const char *c = s ? s : ""; *c; c++) {
        size_t n = (unsigned char)*c < 0x80 ? 1 : av_utf8_char_len(c);
        switch (*c) {
        case '&': puts_(o, "&amp;"); break;
        case '<': puts_(o, "&lt;"); break;
        case '>': puts_(o, "&gt;"); break;
        case '"': puts_(o, "&quot;"); break;
        default:
            if (n == 0) puts_(o, "\xEF\xBF\xBD");
            else {
                put(o, c, n);
                c += n - 1;
            }
        }
    }
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_flush(out_t *o) {
    if (!o->nb) return;
    unsigned v = (unsigned)o->b[0] << 16 | (o->nb > 1 ? (unsigned)o->b[1] << 8 : 0) | (o->nb > 2 ? o->b[2] : 0);
    char e[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], o->nb > 1 ? b64[v >> 6 & 63] : '=',
                 o->nb > 2 ? b64[v & 63] : '='};
    put(o, e, 4);
    o->nb = 0;
}

static void b64_byte(out_t *o, unsigned char c) {
    o->b[o->nb++] = c;
    if (o->nb == 3) b64_flush(o);
}

/* n float32 values, little-endian whatever the host's order */
static void b64_f32(out_t *o, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        for (int k = 0; k < 4; k++) b64_byte(o, (unsigned char)(u >> (8 * k)));
    }
}

/* ---------------------------------------------------------------- data */

/* Panel p = l·H + h of a tensor whose layers are layer_stride floats apart
 * and whose heads are `per` floats apart. */
static const float *panel_at(const float *x, size_t p, int H, size_t per, size_t layer_stride) {
    return x + (p / (size_t)H) * layer_stride + (p % (size_t)H) * per;
}

static void panel_range(const float *xp, size_t per, float *lo, float *hi) {
    *lo = *hi = xp[0];
    for (size_t i = 1; i < per; i++) { *lo = fminf(*lo, xp[i]); *hi = fmaxf(*hi, xp[i]); }
}

/* One tensor, panels 0..kept-1 of `per` floats each: float32 (mode 0) or
 * 8-bit over [lo, hi] per panel, round((x − lo)/(hi − lo)·255), with the
 * ranges written as "<key>_range": [lo0, hi0, lo1, ...]. Weights (is_weights)
 * use the fixed range [0, 1] and need no ranges. */
static void tensor(out_t *o, const char *key, const float *x, int H, size_t layer_stride, size_t kept,
                   size_t per, int mode, int is_weights) {
    printf_(o, ",\"%s\":\"", key);
    for (size_t p = 0; p < kept; p++) {
        const float *xp = panel_at(x, p, H, per, layer_stride);
        if (mode == 0) { b64_f32(o, xp, per); continue; }
        float lo = 0.0f, hi = 1.0f;
        if (!is_weights) panel_range(xp, per, &lo, &hi);
        float span = hi > lo ? hi - lo : 1.0f;
        for (size_t i = 0; i < per; i++) {
            float t = (xp[i] - lo) / span;
            b64_byte(o, (unsigned char)lrintf(fminf(fmaxf(t, 0.0f), 1.0f) * 255.0f));
        }
    }
    b64_flush(o);
    puts_(o, "\"");
    if (mode && !is_weights) {
        printf_(o, ",\"%s_range\":[", key);
        for (size_t p = 0; p < kept; p++) {
            float lo, hi;
            panel_range(panel_at(x, p, H, per, layer_stride), per, &lo, &hi);
            printf_(o, "%s%.9g,%.9g", p ? "," : "", lo, hi);
        }
        puts_(o, "]");
    }
}

static void run_json(out_t *o, const av_html_run *r, size_t kept, int mode) {
    size_t tt = (size_t)r->T * (size_t)r->T, td = (size_t)r->T * (size_t)r->D;
    puts_(o, "{\"name\":");
    json_str(o, r->name);
    puts_(o, ",\"desc\":");
    json_str(o, r->desc);
    puts_(o, ",\"weights_file\":");
    json_str(o, r->weights_file);
    puts_(o, ",\"scores_file\":");
    json_str(o, r->scores_file);
    puts_(o, ",\"no_scale_why\":");
    json_str(o, r->no_scale_why);
    printf_(o, ",\"files_have_layers\":%s,\"first_layer\":%d", r->files_have_layers ? "true" : "false",
            r->first_layer >= 0 && r->first_layer < r->L ? r->first_layer : 0);
    printf_(o, ",\"layer0\":%d,\"layers_of\":%d", r->layer0 > 0 ? r->layer0 : 0,
            r->layers_of > r->L ? r->layers_of : r->L);
    /* why a cell is masked, in --explain's words (teach.c explain_cell): the page said nothing for one */
    printf_(o, ",\"causal\":%s,\"n_real\":%d", r->causal ? "true" : "false",
            r->n_real > 0 && r->n_real < r->T ? r->n_real : r->T);
    printf_(o, ",\"L\":%d,\"H\":%d,\"T\":%d,\"D\":%d,\"scale\":%.17g,\"unscaled\":%s,\"rope\":%s,\"kept\":%zu,"
            "\"tokens\":[", r->L, r->H, r->T, r->D, r->scale, r->unscaled ? "true" : "false",
            r->rope ? "true" : "false", kept);
    for (int t = 0; t < r->T; t++) {
        if (t) puts_(o, ",");
        json_str(o, r->tokens[t]);
    }
    puts_(o, "],\"mask\":\"");
    /* a mask that hides nothing is left out ("" is none to page.js's masked()): a run without a mask stored
     * T·T zero bytes, outside --html-limit's count, a third of a 5000-token page (100 MB, 33 MB of it "AAAA") */
    int any = mask_hides(r);
    for (size_t i = 0; any && i < tt; i++) b64_byte(o, r->mask[i] ? 1 : 0);
    b64_flush(o);
    puts_(o, "\"");
    size_t Htt = (size_t)r->H * tt, Htd = r->qkv_layer_stride ? r->qkv_layer_stride : (size_t)r->H * td;
    tensor(o, "weights", r->weights, r->H, Htt, kept, tt, mode, 1);
    tensor(o, "scores", r->scores, r->H, Htt, kept, tt, mode, 0);
    if (mode == 0 && r->q && r->k && r->v) {
        tensor(o, "q", r->q, r->H, Htd, kept, td, 0, 0);
        tensor(o, "k", r->k, r->H, Htd, kept, td, 0, 0);
        tensor(o, "v", r->v, r->H, Htd, kept, td, 0, 0);
    }
    puts_(o, "}");
}

static void data_json(out_t *o, const av_html_page *p, const size_t *kept, int mode, size_t bytes) {
    puts_(o, "{\"version\":\"" AV_VERSION "\",\"title\":");
    json_str(o, p->title);
    puts_(o, ",\"command\":");
    json_str(o, p->command);
    puts_(o, ",\"source\":");
    json_str(o, p->source);
    puts_(o, ",\"trace\":");
    json_str(o, p->trace);
    if (p->has_start)
        printf_(o, ",\"start\":{\"head\":%d,\"query\":%d,\"key\":%d}", p->start_head, p->start_query, p->start_key);
    int prec = p->precision < 0 ? 4 : p->precision > 10 ? 10 : p->precision; /* --precision's 0..10 */
    size_t limit = p->max_bytes ? p->max_bytes : AV_HTML_MAX_BYTES;
    printf_(o, ",\"precision\":%d,\"encoding\":\"%s\",\"mode\":%d,\"data_bytes\":%zu,\"max_bytes\":%zu,"
            "\"panels\":%zu,\"cmap\":\"%s\",\"cmaps\":{",
            prec, mode ? "uint8" : "float32", mode, bytes, limit, panel_count(p), av_cmap_name((av_cmap)p->cmap));
    for (int c = 0; c < AV_CMAP_COUNT; c++) {
        printf_(o, "%s\"%s\":\"", c ? "," : "", av_cmap_name((av_cmap)c));
        for (int k = 0; k < 256; k++) {
            unsigned char rgb[3];
            av_cmap_entry((av_cmap)c, k, rgb);
            for (int i = 0; i < 3; i++) b64_byte(o, rgb[i]);
        }
        b64_flush(o);
        puts_(o, "\"");
    }
    /* the weights' colour range of the figures (figures.c weight_meta): the page coloured 0..1 whatever the
     * run's --vmax, --log-scale or automatic range, so a cell of the page and of head0.png differed */
    printf_(o, "},\"wrange\":{\"vmax\":%.9g,\"auto_pct\":%.9g,\"log\":%s,\"named\":%d}",
            p->vmax > 0 && p->vmax <= 1 ? p->vmax : 1.0, p->auto_pct > 0 ? p->auto_pct : 0.0,
            p->log_scale ? "true" : "false", p->vmax_named);
    puts_(o, ",\"runs\":[");
    for (int r = 0; r < p->n_runs; r++) {
        if (r) puts_(o, ",");
        run_json(o, &p->runs[r], kept[r], mode);
    }
    puts_(o, "]}");
}

/* ---------------------------------------------------------------- page */

static av_status check_page(const av_html_page *p, av_err *err) {
    if (!p->runs || p->n_runs < 1 || p->n_runs > 64)
        return av_fail(err, AV_EUSAGE, "the page needs 1..64 runs; got %d", p->n_runs);
    for (int r = 0; r < p->n_runs; r++) {
        const av_html_run *x = &p->runs[r];
        if (x->L < 1 || x->H < 1 || x->T < 1 || x->D < 1 || !x->tokens || !x->weights || !x->scores)
            return av_fail(err, AV_EUSAGE, "page run %d: L, H, T, D must be >= 1 (got %d, %d, %d, %d) "
                           "and tokens, weights and scores given", r, x->L, x->H, x->T, x->D);
    }
    return AV_OK;
}

/* Copy the template, replacing each @NAME@ marker (TITLE, VERSION, RUN, CSS, JS, DATA). */
static void fill_template(out_t *o, const av_html_page *p, const size_t *kept, int mode, size_t bytes) {
    const char *t = (const char *)av_html_template, *end = t + av_html_template_len;
    while (t < end) {
        const char *at = memchr(t, '@', (size_t)(end - t));
        if (!at) { put(o, t, (size_t)(end - t)); break; }
        put(o, t, (size_t)(at - t));
        size_t rest = (size_t)(end - at);
        if (rest >= 7 && !memcmp(at, "@TITLE@", 7)) { html_text(o, p->title); t = at + 7; }
        else if (rest >= 9 && !memcmp(at, "@VERSION@", 9)) { puts_(o, AV_VERSION); t = at + 9; }
        else if (rest >= 5 && !memcmp(at, "@RUN@", 5)) { html_text(o, p->run ? p->run : ""); t = at + 5; }
        else if (rest >= 5 && !memcmp(at, "@CSS@", 5)) { put(o, (const char *)av_html_css, av_html_css_len); t = at + 5; }
        else if (rest >= 4 && !memcmp(at, "@JS@", 4)) { put(o, (const char *)av_html_js, av_html_js_len); t = at + 4; }
        else if (rest >= 6 && !memcmp(at, "@DATA@", 6)) { data_json(o, p, kept, mode, bytes); t = at + 6; }
        else { put(o, at, 1); t = at + 1; }
    }
}

av_status av_html_write(const char *path, const av_html_page *page, av_err *err) {
    av_status s = check_page(page, err);
    if (s) return s;
    size_t kept[64], bytes = 0;
    int mode = plan(page, kept, &bytes);
    av_afile f;
    if ((s = av_afile_open(&f, path, err))) return s;
    out_t o = {.f = &f};
    fill_template(&o, page, kept, mode, bytes);
    return av_afile_commit(&f, err);
}
