/* figures.c - the figure set of a run (see figures.h). */
#include "app/figures.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/page.h"
#include "app/term.h"
#include "app/trace.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "render/plot.h"
#include "render/pngout.h"

typedef enum { FIG_HEAD, FIG_GRID, FIG_MATRIX, FIG_MASK } fig_kind;

/* A figure title's bytes: the lead (--title or the quoted sentence, < 1024),
 * a --model folder's source text (< 4300) and the fixed words, so a title
 * is never cut short; av_utf8_trim_cut would keep a cut one valid UTF-8. */
#define FIG_TITLE_MAX 8192

/* What every figure of one run shares. */
typedef struct {
    const av_model *m;
    const av_tokens *toks;
    const char *const *tok; /* toks->tok */
    const av_options *o;
    av_written *w;
    av_plot_meta meta;
    av_plot_meta wmeta;     /* weight figures: meta plus the colour range (--vmax, --log-scale) */
    char wlabel[128];       /* wmeta's colour-bar title */
    char mlabel[160];       /* the mean figure's: "mean attention weight", "log₁₀ of the mean attention weight" */
    char desc[8192];        /* "<command line> (seed N)"; without the seed when it drew nothing */
    char lead[1024];        /* "“I love deep learning”" or --title */
    const char *weights;    /* "random weights (untrained, seed 42)" */
    char mask[128];         /* "causal + key padding (2 <pad>)", "... + attn_mask file band.npy" */
    char pos[96];           /* "sinusoidal", "RoPE (half)" */
    const char *noscale;    /* "" or " · no scale" */
    av_heatmap *hms;        /* H panels */
    char (*titles)[FIG_TITLE_MAX]; /* H titles */
} fig_run;

/* 1 if the seed drew some of ws's numbers: not for a model's, a trained folder's, or X and all four W
 * from --weights (a -s 2 run of those recorded "(seed 2)" and another run id for the same numbers) */
static int seed_drew(const av_weights_source *ws) {
    return ws->kind != AV_WEIGHTS_MODEL && ws->kind != AV_WEIGHTS_TRAINED && ws->kind != AV_WEIGHTS_LOADED;
}

/* Metadata for every figure: software, the command and seed (when it drew something), the weights'
 * source, --dpi, --cmap, --scale. desc (8192 bytes) holds the description. */
static av_plot_meta figure_meta(char *desc, const av_options *o, const av_figure_context *fc, uint64_t seed) {
    const char *cmd = fc->cmdline ? fc->cmdline : "attnviz";
    if (!seed_drew(fc->ws)) snprintf(desc, 8192, "%s", cmd); /* no seed in it */
    else snprintf(desc, 8192, "%s (seed %llu)", cmd, (unsigned long long)seed);
    return (av_plot_meta){.software = "attnviz " AV_VERSION, .description = desc, .weights = fc->ws->text,
                          .run = fc->run, .dpi = o->dpi, .cmap = (av_cmap)o->cmap, .scale = (float)o->scale,
                          .pool = (av_pool)o->pool};
}


void av_figures_model_run_id(char run[24], const char *source, const av_tokens *toks) {
    uint64_t h = av_fnv1a64(AV_RUN_HASH_START, "model", 6); /* "model" and its NUL: never a single layer's id */
    h = av_fnv1a64(h, source, strlen(source) + 1);
    for (int t = 0; t < toks->n; t++) h = av_fnv1a64(h, toks->tok[t], strlen(toks->tok[t]) + 1);
    snprintf(run, 24, "%016llx", (unsigned long long)h);
}

void av_figures_run_id(av_figure_context *fc, const av_model *m, const av_tokens *toks) {
    const av_config *c = &m->cfg;
    char cfg[256];
    int n = snprintf(cfg, sizeof cfg, "T=%d real=%d C=%d H=%d pos=%d rope=%d/%.17g causal=%d scale=%d seed=%llu", c->T,
                     c->n_real, c->C, c->H, (int)c->positions, (int)c->rope_style, c->rope_base, c->causal, c->scale,
                     (unsigned long long)(seed_drew(fc->ws) ? c->seed : 0)); /* a seed that drew nothing is no part */
    /* a kernel other than auto's sums in another order (`--kernel blas` on 4 tokens: weights differ in their last
     * digits from the reference loops'), so it is part of the run; auto's choice (and the same kernel named by
     * --kernel) keeps the older ids, as --train's default kernel does */
    av_kernel autos = av_auto_kernel(c->T, 1); /* figures need the weights: never flash */
    if (c->kernel != autos) n += snprintf(cfg + n, sizeof cfg - (size_t)n, " kernel=%s", av_kernel_name(c->kernel));
    uint64_t h = av_fnv1a64(AV_RUN_HASH_START, cfg, (size_t)n);
    h = av_fnv1a64(h, fc->ws->text, strlen(fc->ws->text) + 1);
    for (int t = 0; t < toks->n; t++) h = av_fnv1a64(h, toks->tok[t], strlen(toks->tok[t]) + 1); /* NUL separates */
    if (m->user_mask) h = av_fnv1a64(h, m->user_mask, (size_t)c->T * (size_t)c->T);
    snprintf(fc->run, sizeof fc->run, "%016llx", (unsigned long long)h);
}

#define LEAD_COLUMNS 40 /* a longer sentence is cut (whole characters) and ends in "…" */

/* 1 if s holds a right-to-left letter (Arabic, Hebrew, ...). */
static int has_rtl(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p)
        if (av_utf8_is_rtl(av_utf8_next(&p))) return 1;
    return 0;
}

static int has_non_ascii(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return 1;
    return 0;
}

/* 1 if the cluster at s (NUL-terminated) starts with a separator
 * (av_utf8_is_separator, as the tokenizer splits words): in a quoted
 * sentence it is drawn as one space, never as a box. */
static int is_separator(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    return av_utf8_is_separator(av_utf8_next(&p));
}

/* out (room bytes) = text cut at whole grapheme clusters, leaving 16 bytes
 * for what follows; with fold, separator runs are one space (none at the
 * ends) and the cut comes past LEAD_COLUMNS columns, after the last whole
 * word that fits (at a separator, or next to a wide character, between
 * which Chinese and Japanese text breaks: UAX #14 class ID; Korean breaks
 * only at its spaces, av_utf8_breaks_beside), as Python's
 * textwrap.shorten cuts, or inside a first word longer than that. A cut
 * text ends in "…". Returns the bytes written. */
static size_t cut_text(char *out, size_t room, const char *text, int fold) {
    size_t at = 0, len = strlen(text), brk = 0; /* brk: out's length at the last word boundary */
    int cols = 0, space = 0, wide = 0;
    if (room) out[0] = 0;
    for (size_t p = 0, k; p < len && at + 16 < room; p += k) {
        k = av_utf8_cluster_len(text + p, len - p);
        if (fold && is_separator(text + p)) {
            space = cols > 0;
            /* marks typed after the space are one cluster with it (UAX #29 GB9) and the tokenizer keeps them
             * as a token's start: "x \u0301 y" was titled "x y" beside its tokens [x] [\u0301] [y] */
            size_t sep = av_utf8_separator_len(text + p, k);
            if (sep == k) continue;
            p += sep;
            k -= sep;
        }
        const unsigned char *first = (const unsigned char *)text + p;
        int cw = av_utf8_cluster_width(text + p, k), w = cw + space;
        /* not between Hangul syllables: "“나는 오늘 아침에 도서관에서 어텐션메커니…”" cut a Korean word */
        int id = cw == 2 && !av_utf8_is_hangul(av_utf8_next(&first));
        if (fold && at && (space || wide || id)) brk = at;
        if ((fold && cols + w > LEAD_COLUMNS) || at + k + 16 >= room) {
            /* "“When Ada opened the old notebook, she fo…”" (docs/figures/paragraph) read as a word "fo" */
            if (fold && brk) at = brk;
            at += (size_t)snprintf(out + at, room - at, "…");
            break;
        }
        if (space) out[at++] = ' ';
        memcpy(out + at, text + p, k);
        at += k;
        cols += w;
        space = 0;
        wide = id;
    }
    if (at < room) out[at] = 0;
    return at;
}

const char *av_figures_cjk_language(const char *text) {
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    while (*p) {
        unsigned cp = av_utf8_next(&p);
        if ((cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) || (cp >= 0xFF66 && cp <= 0xFF9F))
            return "ja";
    }
    return NULL;
}

void av_figures_short_sentence(char *out, size_t n, const char *text) {
    size_t at = cut_text(out, n, text ? text : "", 1);
    av_utf8_bidi_closers(out, at, out + at, n - at); /* an RLO in it does not turn the page's quote around */
}

/* lead (n bytes) = --title, or the sentence in quotes, separator runs
 * folded to one space and cut to LEAD_COLUMNS columns, so two runs' slides
 * can be told apart. A quoted sentence with any non-ASCII character sits in
 * FIRST STRONG ISOLATE U+2068 ... POP DIRECTIONAL ISOLATE U+2069 (UAX #9
 * 2.7), one unit inside the line: the quotes belong to the English line
 * (its direction, and its Latin script, so render/textlayout draws them with
 * the label font, not as full-width CJK quotes). A shown text holding a
 * double quote (“ ” or ") is quoted with ‘ ’. A right-to-left one also
 * starts with LEFT-TO-RIGHT MARK U+200E (the title line stays left to right:
 * UAX #9 P2 finds the mark first). --title is the user's text and keeps its
 * own direction inside the line: one holding right-to-left text sits after
 * the mark in FSI ... PDI too, so what attnviz writes after it stays to its
 * right; the plot wraps it to the figure's width over up to 3 lines, cutting
 * only what still does not fit (here only past ~1 KiB).
 * Returns the bytes of lead that are --title (av_plot_meta.user_title), or 0. */
static size_t make_lead(char *lead, size_t n, const av_options *o, const char *sentence) {
    const char *text = o->title ? o->title : sentence ? sentence : "";
    /* a --title with right-to-left text is isolated too, after the mark: as the line's first strong
     * character it made the whole line right to left, "head 0 of 2: attention weights · شكل ٣" */
    int rtl = has_rtl(text), isolate = o->title ? rtl : has_non_ascii(text);
    size_t at = (size_t)snprintf(lead, n, "%s%s", rtl ? "\xE2\x80\x8E" : "", o->title ? "" : "“");
    char *open = lead + at - (o->title ? 0 : 3); /* the opening quote's 3 bytes */
    if (isolate) at += (size_t)snprintf(lead + at, n - at, "\xE2\x81\xA8");
    size_t from = at;
    at += cut_text(lead + at, n - at, text, !o->title);
    at += av_utf8_bidi_closers(lead + from, at - from, lead + at, n - at); /* an RLO in it ends with it */
    char *close = lead + at + (isolate ? 3 : 0);
    snprintf(lead + at, n - at, "%s%s", isolate ? "\xE2\x81\xA9" : "", o->title ? "" : "”");
    /* a shown text that holds double quotes gets single ones around it, as nested quotes alternate:
     * ‘“深度学习”很有趣’, where ““深度学习”很有趣” read as two quotes opened; “ ” and ‘ ’ differ in the
     * last of their 3 bytes */
    char saved = lead[at];
    lead[at] = 0;
    int inner = strstr(lead + from, "“") || strstr(lead + from, "”") || strchr(lead + from, '"');
    lead[at] = saved;
    if (!o->title && inner && close + 3 <= lead + n - 1) open[2] = '\x98', close[2] = '\x99';
    return o->title ? strlen(lead) : 0;
}

/* title (n bytes) = "<lead> · <what> · <weights> · positions: … · mask: …". */
static void compose(char *title, size_t n, const fig_run *fr, const char *what) {
    snprintf(title, n, "%s · %s · %s · positions: %s · mask: %s%s", fr->lead, what, fr->weights, fr->pos, fr->mask,
             fr->noscale);
}

#define LOG10 "log\xE2\x82\x81\xE2\x82\x80 " /* "log₁₀ " */

static int vmax_warned; /* the run said it once: the head figures, the page and the --compare figure */

/* Count into *visible, *above and *smallest the unmasked cells of one
 * (T, T) map att under mask (T, T; nonzero = masked) and those above F. */
static void count_above(const float *att, const unsigned char *mask, size_t TT, double F, size_t *visible,
                        size_t *above, float *smallest) {
    for (size_t c = 0; c < TT; c++) {
        if (mask[c]) continue;
        float v = att[c];
        (*visible)++;
        if (v > F) (*above)++;
        if (v < *smallest) *smallest = v;
    }
}

/* The warning itself, once per run, when more than half the visible cells lie above --vmax F. */
static void say_vmax_saturates(const av_options *o, size_t visible, size_t above, float smallest) {
    if (vmax_warned || visible == 0 || 2 * above <= visible) return;
    vmax_warned = 1;
    if (above == visible)
        av_message(stderr, "attnviz: warning: --vmax %g is below every visible weight (smallest %.3g): every cell shows "
                "the top colour; use --vmax auto or a larger value\n", o->vmax, (double)smallest);
    else
        av_message(stderr, "attnviz: warning: --vmax %g is below %.0f%% of the visible weights (%zu of %zu): they all "
                "show the top colour; use --vmax auto or a larger value\n", o->vmax, floor(100.0 * above / visible),
                above, visible);
}

/* Warn on stderr when --vmax F lies below more than half of the visible
 * (unmasked) weights of m->att (H, T, T): those cells all take the top colour,
 * so the map says little (with every weight above F it is one colour). Printed
 * with -q too, as the other warnings, and once per run. */
static void warn_vmax_saturates(const av_options *o, const av_model *m) {
    if (o->vmax_mode != AV_VMAX_VALUE || !m->att || !m->mask) return;
    int H = m->cfg.H, T = m->cfg.T;
    size_t TT = (size_t)T * (size_t)T, visible = 0, above = 0;
    float smallest = INFINITY;
    for (int h = 0; h < H; h++) count_above(m->att + (size_t)h * TT, m->mask, TT, o->vmax, &visible, &above, &smallest);
    say_vmax_saturates(o, visible, above, smallest);
}

/* Which weight figures colour over --vmax: heads, grid, mean, a --model's maps. */
#define WEIGHT_FIGS (AV_FIG_HEADS | AV_FIG_GRID | AV_FIG_MEAN | AV_FIG_MODEL)

void av_figures_warn_vmax_page(const av_model *m, const av_options *o) {
    if (o->html && (o->no_plot || !(o->figures & WEIGHT_FIGS))) warn_vmax_saturates(o, m);
}

/* The weight figures' colour range: fixed 0..1 up to AV_AUTO_VMAX_T tokens,
 * then (or with --vmax auto) 0 up to the 99th percentile of the visible
 * values each figure draws (plot.h auto_pct, after pooling), or 0..F with
 * --vmax F; with --log-scale 3 decades below that top. The colour bar's
 * title says which, both ends in one notation ("0.0005 – 0.5"): written
 * into label (128 bytes), which wm->value_label points to; how (96 bytes)
 * gets its range part, for the mean figure's title. T = the tokens a side. */
static void weight_meta(av_plot_meta *wm, char label[128], char how[96], const av_options *o, int T) {
    int mode = o->vmax_mode;
    if (mode == AV_VMAX_DEFAULT) mode = T > AV_AUTO_VMAX_T ? AV_VMAX_AUTO : AV_VMAX_FIXED;
    wm->vmin = 0.0f;
    wm->vmax = 1.0f;
    wm->log_scale = o->log_scale;
    wm->auto_pct = 0;
    snprintf(how, 96, "%s", o->vmax_mode != AV_VMAX_FIXED ? ""
                            : o->log_scale ? " (fixed 0.001 \xE2\x80\x93 1)" /* 3 decades */ : " (fixed 0\xE2\x80\x93" "1)");
    if (mode == AV_VMAX_AUTO) {
        wm->auto_pct = (float)AV_AUTO_VMAX_PCT; /* the plot appends the range it found */
    } else if (mode == AV_VMAX_VALUE) {
        wm->vmax = (float)o->vmax;
        char lo[32], hi[32];
        if (o->log_scale) av_plot_g3_range(lo, hi, sizeof lo, o->vmax / 1000, o->vmax); /* "1e−33 – 1e−30" */
        else av_plot_g3(hi, sizeof hi, o->vmax);
        if (o->log_scale) snprintf(how, 96, " (%s \xE2\x80\x93 %s, --vmax)", lo, hi);
        else snprintf(how, 96, " (0\xE2\x80\x93%s, --vmax)", hi);
    }
    snprintf(label, 128, "%sattention weight%s", o->log_scale ? LOG10 : "", how);
    wm->value_label = label;
}

static void weight_range(fig_run *fr) {
    const av_options *o = fr->o;
    char how[96];
    fr->wmeta = fr->meta;
    weight_meta(&fr->wmeta, fr->wlabel, how, o, fr->m->cfg.T);
    /* the mean figure colours the log of the mean, not the mean of the logs */
    snprintf(fr->mlabel, sizeof fr->mlabel, "%s attention weight%s", o->log_scale ? LOG10 "of the mean" : "mean", how);
    if (o->figures & WEIGHT_FIGS) warn_vmax_saturates(o, fr->m);
}

/* <stem>.png and/or <stem>.svg in --outdir, as --format says. */
static av_status write_fig(const fig_run *fr, const char *stem, fig_kind kind, const av_heatmap *hm, int n,
                           const char *title, const av_plot_meta *meta, av_err *err) {
    static const char *const ext[2] = {"png", "svg"};
    for (int e = 0; e < 2; e++) {
        if (!(fr->o->format & (e ? AV_FMT_SVG : AV_FMT_PNG))) continue;
        char name[128], path[4096];
        snprintf(name, sizeof name, "%s%s.%s", fr->o->prefix, stem, ext[e]);
        av_path_join(path, sizeof path, fr->o->outdir, name);
        av_status s;
        switch (kind) {
        case FIG_HEAD: s = av_plot_head(path, hm, meta, err); break;
        case FIG_GRID: s = av_plot_grid(path, hm, n, title, meta, err); break;
        case FIG_MATRIX: s = av_plot_matrix(path, hm, n, title, meta, err); break;
        default: s = av_plot_mask(path, hm, meta, err); break;
        }
        if (s) return s;
        av_written_add(fr->w, path);
    }
    return AV_OK;
}

/* heads: one map per head; grid: all heads in one figure. */
static av_status fig_heads(fig_run *fr, av_err *err) {
    const av_model *m = fr->m;
    int H = m->cfg.H, T = m->cfg.T;
    size_t TT = (size_t)T * (size_t)T;
    av_status s = AV_OK;
    char stem[64], title[FIG_TITLE_MAX], what[128];
    for (int h = 0; h < H; h++) {
        snprintf(what, sizeof what, "head %d of %d: attention weights", h, H);
        compose(fr->titles[h], sizeof fr->titles[h], fr, what);
        fr->hms[h] = (av_heatmap){.title = fr->titles[h], .n_q = T, .n_k = T, .q_labels = fr->tok,
                                  .k_labels = fr->tok, .w = m->att ? m->att + (size_t)h * TT : NULL,
                                  .masked = m->mask}; /* no att: the flash kernel of a pe-only run, drawn below */
    }
    /* the default set draws the grid only when there are several heads; asked
     * for by name (--figures grid or all), it is drawn even for one head.
     * It is drawn first, the largest image, so that its compression runs on
     * the second thread while the heads are drawn (pngbatch.h), and listed
     * after them. */
    av_written grid_paths = {0};
    if ((fr->o->figures & AV_FIG_GRID) && (H > 1 || av_option_given(fr->o, "figures"))) {
        char heads[32];
        av_heads_phrase(heads, sizeof heads, H);
        snprintf(what, sizeof what, "attention weights%s %s", H == 1 ? " of" : ",", heads);
        compose(title, sizeof title, fr, what);
        av_written *list = fr->w;
        fr->w = &grid_paths;
        s = write_fig(fr, "heads", FIG_GRID, fr->hms, H, title, &fr->wmeta, err);
        fr->w = list;
    }
    for (int h = 0; h < H && !s && (fr->o->figures & AV_FIG_HEADS); h++) {
        snprintf(stem, sizeof stem, "head%d", h);
        s = write_fig(fr, stem, FIG_HEAD, &fr->hms[h], 1, NULL, &fr->wmeta, err);
    }
    for (int i = 0; i < grid_paths.n; i++) {
        if (!s) av_written_add(fr->w, grid_paths.paths[i]);
        free(grid_paths.paths[i]);
    }
    return s;
}

/* mean: the mean over heads, titled as such (pitfall P10). */
static av_status fig_mean(const fig_run *fr, av_err *err) {
    const av_model *m = fr->m;
    int H = m->cfg.H, T = m->cfg.T;
    float *mean = malloc((size_t)T * (size_t)T * sizeof *mean);
    if (!mean) return av_fail(err, AV_ERUNTIME, "out of memory");
    char title[FIG_TITLE_MAX], what[160];
    av_plot_mean_heads(mean, m->att, H, T, T);
    if (H == 1) /* "not a head: averaging hides each head's pattern" was false there (a tester's report) */
        snprintf(what, sizeof what, "mean over 1 head · the same as head 0: with one head nothing is averaged");
    else
        snprintf(what, sizeof what, "mean over %d heads · not a head: averaging hides each head's pattern", H);
    compose(title, sizeof title, fr, what);
    av_heatmap hm = {.title = title, .n_q = T, .n_k = T, .q_labels = fr->tok, .k_labels = fr->tok, .w = mean,
                     .masked = m->mask};
    av_plot_meta mm = fr->wmeta;
    mm.value_label = fr->mlabel;
    av_status s = write_fig(fr, "mean", FIG_HEAD, &hm, 1, NULL, &mm, err);
    free(mean);
    return s;
}

/* scores: S before the softmax, diverging map centred on 0, masked = −∞. */
static av_status fig_scores(fig_run *fr, av_err *err) {
    const av_model *m = fr->m;
    int H = m->cfg.H, T = m->cfg.T;
    size_t TT = (size_t)T * (size_t)T;
    float a = av_plot_abs_max(m->scores, m->mask, H, T, T);
    av_plot_meta sm = fr->meta;
    sm.cmap = AV_CMAP_RDBU_R;
    sm.vmin = -a;
    sm.vmax = a;
    sm.value_label = "score";
    const char *what = m->cfg.scale ? "scores S = Q·Kᵀ/√d_k" : "scores S = Q·Kᵀ (no ÷√d_k)";
    const char *neg = m->masked_count ? " · masked keys get −∞" : "";
    char stem[64], title[FIG_TITLE_MAX], part[160];
    for (int h = 0; h < H; h++) {
        snprintf(part, sizeof part, "%s before the softmax · head %d of %d%s", what, h, H, neg);
        compose(fr->titles[h], sizeof fr->titles[h], fr, part);
        fr->hms[h] = (av_heatmap){.title = fr->titles[h], .n_q = T, .n_k = T, .q_labels = fr->tok,
                                  .k_labels = fr->tok, .w = m->scores + (size_t)h * TT, .masked = m->mask,
                                  .neg_inf_cells = 1};
    }
    av_status s = AV_OK;
    for (int h = 0; h < H && !s; h++) {
        snprintf(stem, sizeof stem, "scores_head%d", h);
        s = write_fig(fr, stem, FIG_HEAD, &fr->hms[h], 1, NULL, &sm, err);
    }
    /* the grid as fig_heads draws the weights': with one head only when asked for by name (--figures
     * all drew heads.png but no scores.png with -H 1: a tester's report) */
    if (!s && (H > 1 || ((fr->o->figures & AV_FIG_GRID) && av_option_given(fr->o, "figures")))) {
        char heads[32];
        av_heads_phrase(heads, sizeof heads, H);
        snprintf(part, sizeof part, "%s before the softmax%s %s%s", what, H == 1 ? " of" : " ·", heads, neg);
        compose(title, sizeof title, fr, part);
        s = write_fig(fr, "scores", FIG_GRID, fr->hms, H, title, &sm, err);
    }
    return s;
}

/* The positional-encoding figure, two panels sharing the position axis and
 * x = i: sinusoidal PE's sin (dims 2i) and cos (dims 2i+1) values, or RoPE's
 * rotation of pair i at position m as cos(m·θ_i) and sin(m·θ_i) (the
 * entries of the 2x2 rotation). An odd d_model has one more sin dimension
 * than cos (d_model 7: sin at 0, 2, 4, 6, cos at 1, 3, 5), so its cos panel
 * is one column narrower, and d_model 1 has the sin panel alone; every
 * dimension the model added is drawn. Nothing for positions none. */
static av_status fig_pe(const fig_run *fr, av_err *err) {
    const av_model *m = fr->m;
    const av_plot_meta *base = &fr->meta;
    int T = m->cfg.T, C = m->cfg.C, D = m->D;
    int rope = m->cfg.positions == AV_POS_ROPE;
    int P = rope ? D / 2 : (C + 1) / 2; /* RoPE's pairs, or the sin dims 2i < d_model: i = 0 .. P-1 */
    int P2 = rope ? P : C / 2;          /* the cos dims 2i+1 < d_model: P - 1 when d_model is odd */
    av_plot_meta meta = *base;
    meta.cmap = AV_CMAP_RDBU_R;
    meta.vmin = -1.0f;
    meta.vmax = 1.0f;
    float *v = malloc(sizeof(float) * (size_t)T * (size_t)(P + P2));
    if (!v) return av_fail(err, AV_ERUNTIME, "out of memory");
    float *a = v, *b = v + (size_t)T * P;
    char what[512], title[FIG_TITLE_MAX], kt[2][96];
    const char *const *tok = fr->tok;
    av_heatmap hm[2] = {{.n_q = T, .n_k = P, .q_labels = tok, .w = a, .k_title = kt[0]},
                        {.n_q = T, .n_k = P2, .q_labels = tok, .w = b, .k_title = kt[1]}};
    if (!rope) {
        /* PE(pos, 2i) = sin(pos·ω_i), PE(pos, 2i+1) = cos(pos·ω_i), read from m->PE as the model added it. */
        for (int pos = 0; pos < T; pos++)
            for (int i = 0; i < P; i++) {
                a[(size_t)pos * P + i] = m->PE[(size_t)pos * C + 2 * i];
                if (i < P2) b[(size_t)pos * P2 + i] = m->PE[(size_t)pos * C + 2 * i + 1];
            }
        snprintf(what, sizeof what,
                 "sinusoidal positional encoding PE, (T, d_model) = (%d, %d), added to X · PE(pos, 2i) = "
                 "sin(pos / 10000^(2i/d_model)) · PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))",
                 T, C);
        hm[0].panel_title = "sin: even dimensions 2i";
        hm[1].panel_title = "cos: odd dimensions 2i+1";
        snprintf(kt[0], sizeof kt[0], "i (dimension 2i)");
        snprintf(kt[1], sizeof kt[1], "i (dimension 2i+1)");
        meta.value_label = "PE value";
    } else {
        /* pair i of every head turns by m·θ_i, θ_i = base^(−2i/d_k) */
        for (int pos = 0; pos < T; pos++)
            for (int i = 0; i < P; i++) {
                double ang = pos * pow(m->cfg.rope_base, -2.0 * i / D);
                a[(size_t)pos * P + i] = (float)cos(ang);
                b[(size_t)pos * P + i] = (float)sin(ang);
            }
        snprintf(what, sizeof what,
                 "RoPE: pair i of q and k at position m turns by the angle m·θ_i · θ_i = %.10g^(−2i/d_k), d_k = %d, "
                 "the same in every head · %s pairs %s",
                 m->cfg.rope_base, D, av_rope_style_name(m->cfg.rope_style),
                 m->cfg.rope_style == AV_ROPE_HALF ? "(i, i + d_k/2)" : "(2i, 2i+1)");
        hm[0].panel_title = "cos(m·θ_i)";
        hm[1].panel_title = "sin(m·θ_i)";
        snprintf(kt[0], sizeof kt[0], "pair i (fast → slow)");
        snprintf(kt[1], sizeof kt[1], "pair i (fast → slow)");
        meta.value_label = "cos, sin of the angle m·θ_i";
    }
    compose(title, sizeof title, fr, what);
    hm[0].q_title = rope ? "position m" : "position pos";
    hm[0].title = hm[1].title = title;
    av_status s = write_fig(fr, "pe", FIG_MATRIX, hm, P2 ? 2 : 1, title, &meta, err);
    free(v);
    return s;
}


/* mask: which query sees which key. */
static av_status fig_mask(const fig_run *fr, av_err *err) {
    int T = fr->m->cfg.T;
    char title[FIG_TITLE_MAX];
    compose(title, sizeof title, fr, "which keys each query sees");
    av_heatmap hm = {.title = title, .n_q = T, .n_k = T, .q_labels = fr->tok, .k_labels = fr->tok,
                     .masked = fr->m->mask};
    return write_fig(fr, "mask", FIG_MASK, &hm, 1, NULL, &fr->meta, err);
}

/* The shared part of every title: sentence or --title, weights, positions,
 * mask, scale. */
static void describe_run(fig_run *fr, const av_figure_context *fc) {
    const av_config *c = &fr->m->cfg;
    fr->meta.user_title = fr->wmeta.user_title = make_lead(fr->lead, sizeof fr->lead, fr->o, fc->sentence);
    fr->weights = fc->ws->text;
    av_mask_desc(fr->mask, sizeof fr->mask, c, fr->m->user_mask != NULL, fr->m->user_mask_file);
    av_positions_title(fr->pos, sizeof fr->pos, c, fr->m->model_layer);
    fr->noscale = c->scale ? "" : " · no scale";
}

/* " (U+1F1EF U+1F1F5)" for s, into out (n bytes). */
static void code_points(char *out, size_t n, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t at = 0;
    out[0] = '\0';
    while (*p && at < n) at += snprintf(out + at, n - at, "%sU+%04X", at ? " " : " (", av_utf8_next(&p));
    if (at + 2 < n) strcat(out, ")");
}

/* The note's words for tag sequence s (AV_SEQ_TAG) and its code points cps, into one (n bytes): the tags
 * (U+E0020..E007E) read as ASCII, a subdivision code of ISO 3166-2 on the black flag U+1F3F4 (UTS #51 annex
 * C); the three flags RGI_Emoji lists by their names: "flag of England 🏴󠁧󠁢󠁥󠁮󠁧󠁿 (U+1F3F4 U+E0067 U+E0062 U+E0065
 * U+E006E U+E0067 U+E007F) as a black flag 🏴", "subdivision flag usca 🏴󠁵󠁳󠁣󠁡󠁿 (...) as a black flag 🏴"; another
 * base: "tag sequence ⚽󠁡󠁿 (...) as ⚽ alone". */
static void one_tag_sequence(char *one, size_t n, const char *s, const char *cps) {
    const unsigned char *p = (const unsigned char *)s;
    unsigned base_cp = av_utf8_next(&p);
    const unsigned char *tags = p; /* where the tags start */
    char code[40] = "";
    size_t k = 0;
    while (*p) {
        unsigned c = av_utf8_next(&p);
        if (c >= 0xE0020 && c <= 0xE007E && k + 1 < sizeof code) code[k++] = (char)(c - 0xE0000);
        else if (c < 0xE0020) tags = p; /* U+FE0F after the base: part of it */
    }
    code[k] = '\0';
    int base_len = (int)(tags - (const unsigned char *)s);
    static const char *const named[][2] = {{"gbeng", "England"}, {"gbsct", "Scotland"}, {"gbwls", "Wales"}};
    const char *name = NULL;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(code, named[i][0]) == 0) name = named[i][1];
    if (base_cp == 0x1F3F4 && name) snprintf(one, n, "flag of %s %s%s as a black flag %.*s", name, s, cps, base_len, s);
    else if (base_cp == 0x1F3F4)
        snprintf(one, n, "subdivision flag %s %s%s as a black flag %.*s", code, s, cps, base_len, s);
    else snprintf(one, n, "tag sequence %s%s as %.*s alone", s, cps, base_len, s);
}

/* One note for the emoji sequences the figures drew as several things side by side (av_plot_split_sequences):
 * what each is drawn as, up to 4 of them, so a figure-maker does not learn it only by looking closely. */
static void note_split_sequences(void) {
    int n = av_plot_split_sequences();
    if (n <= 0) return;
    char list[1600] = "";
    size_t at = 0;
    for (int k = 0; k < n && k < 4; k++) {
        int kind;
        const char *s = av_plot_split_sequence(k, &kind);
        if (!s) break;
        char cps[160], one[400];
        code_points(cps, sizeof cps, s);
        const unsigned char *p = (const unsigned char *)s;
        if (kind == AV_SEQ_FLAG) {
            unsigned a = av_utf8_next(&p), b = av_utf8_next(&p);
            snprintf(one, sizeof one, "flag %s%s as its two letters %c %c", s, cps, (char)('A' + a - 0x1F1E6),
                     (char)('A' + b - 0x1F1E6));
        } else if (kind == AV_SEQ_TONE) {
            const unsigned char *tone = p; /* the first skin tone, U+1F3FB..1F3FF, after the base */
            for (unsigned c = 0; *p && !(c >= 0x1F3FB && c <= 0x1F3FF);) tone = p, c = av_utf8_next(&p);
            int base = (int)(tone - (const unsigned char *)s);
            snprintf(one, sizeof one, "skin tone %.4s of %s%s as a swatch after %.*s", s + base, s, cps, base, s);
        } else if (kind == AV_SEQ_TAG) {
            one_tag_sequence(one, sizeof one, s, cps);
        } else if (kind == AV_SEQ_KEYCAP) {
            snprintf(one, sizeof one, "keycap %s%s as %c beside a keycap", s, cps, s[0]);
        } else { /* the parts the joiners (U+200D, E2 80 8D) join, side by side */
            char parts[100] = "";
            size_t pn = 0;
            for (const char *q = s; *q && pn + 4 < sizeof parts; q++)
                if (strncmp(q, "\xE2\x80\x8D", 3) == 0) parts[pn++] = ' ', q += 2;
                else parts[pn++] = *q;
            parts[pn] = '\0';
            snprintf(one, sizeof one, "%s%s as %s side by side", s, cps, parts);
        }
        at += snprintf(list + at, sizeof list - at, "%s%s", k ? "; " : "", one);
        if (at >= sizeof list) break;
    }
    char more[40] = "";
    if (n > 4) snprintf(more, sizeof more, "; and %d more", n - 4);
    av_message(stderr, "attnviz: note: the figures draw %s%s: the fonts found have no single glyph for %s\n", list,
               more, n == 1 ? "this sequence" : "these sequences");
}

void av_figures_warn_missing_glyphs(const av_options *o) {
    int n = av_plot_missing_glyphs();
    char why[600] = ""; /* a binary copied without its data folder: the boxes' cause is that folder, not the system */
    if (n > 0 && !av_assets_dir())
        snprintf(why, sizeof why, "; attnviz's own DejaVu Sans was not found either (no fonts/DejaVuSans.ttf in %.400s, "
                 "nor in ../share/attnviz or assets/ beside the binary: make install puts it there)", av_assets_datadir());
    char cps[80] = ""; /* which ones: in a long -f text the boxes are hard to find */
    int nonchar = 0; /* U+FFFE, U+FFFF among them: XML 1.0 allows neither, so the SVG has U+FFFD (svgout.c) */
    for (int k = 0, at = 0; k < n && k < 6 && av_plot_missing_glyph(k); k++) {
        unsigned cp = av_plot_missing_glyph(k);
        nonchar += cp == 0xFFFE || cp == 0xFFFF;
        at += snprintf(cps + at, sizeof cps - (size_t)at, "%sU+%04X", k ? ", " : " (", cp);
    }
    if (cps[0]) strcat(cps, n > 6 ? ", \xE2\x80\xA6)" : ")"); /* … */
    /* what the figures show: a PNG draws a box; an SVG has U+FFFD (�) for U+FFFE and U+FFFF (--title "A\uFFFF"
     * with --format svg was said to be "drawn as boxes") */
    const char *shown = o->format == AV_FMT_PNG || !nonchar ? "drawn as boxes"
                        : nonchar == n ? (o->format == AV_FMT_SVG ? "written as U+FFFD \xEF\xBF\xBD in the SVG, as XML "
                                                                    "allows no U+FFFE or U+FFFF"
                                                                  : "drawn as boxes in the PNG, written as U+FFFD "
                                                                    "\xEF\xBF\xBD in the SVG, as XML allows no U+FFFE "
                                                                    "or U+FFFF")
                                       : "drawn as boxes, but U+FFFE and U+FFFF written as U+FFFD \xEF\xBF\xBD in "
                                         "the SVG, as XML allows neither";
    if (n > 0)
        av_message(stderr, "attnviz: warning: %d character%s in the figures' text%s %s no glyph in any installed font; "
                   "%s%s\n", n, n == 1 ? "" : "s", cps, n == 1 ? "has" : "have", shown, why);
    note_split_sequences();
}

void av_figures_note_lowered_dpi(FILE *fp, const av_options *o) {
    const av_plot_lowered *l = av_plot_lowered_dpi();
    if (l->files == 0 && !l->no_dpi[0]) return;
    char at[80], names[AV_PLOT_LOWERED_NAMES * 106 + 8] = "", dpi[40];
    int n = snprintf(at, sizeof at, "--dpi %d", o->dpi);
    if (o->scale != 1) snprintf(at + n, sizeof at - n, " and --scale %g", o->scale);
    for (int k = 0; k < l->files && k < AV_PLOT_LOWERED_NAMES; k++) {
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", l->names[k]);
    }
    if (l->files > AV_PLOT_LOWERED_NAMES) strcat(names, ", \xE2\x80\xA6"); /* … */
    if (l->lowest == l->highest) snprintf(dpi, sizeof dpi, "%d dpi", l->lowest);
    else snprintf(dpi, sizeof dpi, "%d to %d dpi", l->lowest, l->highest);
    char gif[160] = "";
    if (l->no_dpi[0])
        snprintf(gif, sizeof gif, "%s%s has fewer pixels too, at the same proportions", l->files ? "; " : "",
                 l->no_dpi);
    if (l->files == 0)
        av_message(fp, "attnviz: note: %s would pass %d px a side at %s: it %s\n", l->no_dpi, AV_PLOT_MAX_PX, at,
                "is drawn with fewer pixels, at the same proportions");
    else if (l->files == 1)
        av_message(fp, "attnviz: note: %s would pass %d px a side at %s: it is written at %s instead, with fewer "
                "pixels and the same printed size%s\n", names, AV_PLOT_MAX_PX, at, dpi, gif);
    else
        av_message(fp, "attnviz: note: %d figures would pass %d px a side at %s (%s): they are written at %s instead, "
                "with fewer pixels and the same printed size%s\n", l->files, AV_PLOT_MAX_PX, at, names, dpi, gif);
    av_plot_reset_lowered_dpi();
}

void av_figures_warn_cut_titles(FILE *fp, const av_options *o) {
    const av_plot_cut *c = av_plot_cut_titles();
    if (c->files == 0) return;
    char names[AV_PLOT_LOWERED_NAMES * 106 + 8] = "";
    for (int k = 0; k < c->files && k < AV_PLOT_LOWERED_NAMES; k++) {
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", c->names[k]);
    }
    if (c->files > AV_PLOT_LOWERED_NAMES) strcat(names, ", \xE2\x80\xA6"); /* … */
    char which[sizeof names + 40];
    if (c->files == 1) snprintf(which, sizeof which, "%s", names);
    else snprintf(which, sizeof which, "%d figures (%s)", c->files, names);
    if (o->title)
        av_message(fp, "attnviz: warning: --title is too long for %s: %s its first 3 lines in the figure's width, "
                "cut with \xE2\x80\xA6 (the files' Title metadata keep it, up to 1000 bytes); a shorter --title "
                "shows whole\n", which, c->files == 1 ? "it shows" : "they show");
    else
        av_message(fp, "attnviz: warning: the title of %s is too long for %s width: cut with \xE2\x80\xA6 (the files' "
                "Title metadata keep it)\n", which, c->files == 1 ? "its" : "their");
    av_plot_reset_cut_titles();
}

/* The figures in order, each if selected; the notes when one is not drawn. */
static av_status write_selected(fig_run *fr, av_err *err) {
    const av_options *o = fr->o;
    unsigned figs = o->figures;
    av_status s = fig_heads(fr, err);
    if (!s && (figs & AV_FIG_MEAN)) s = fig_mean(fr, err);
    if (!s && (figs & AV_FIG_SCORES)) s = fig_scores(fr, err);
    if (!s && (figs & AV_FIG_PE)) {
        if (fr->m->cfg.positions != AV_POS_NONE) s = fig_pe(fr, err);
        else if (!o->figures_all || !o->quiet) /* pe named: a warning, -q or not (gpt2run.c note_no_pe) */
            av_message(stderr, "attnviz: %s: no pe figure: --positions none adds no positional encoding\n",
                    o->figures_all ? "note" : "warning");
    }
    if (!s && (figs & AV_FIG_MASK)) s = fig_mask(fr, err);
    return s;
}

av_status av_figures_write(const av_model *m, const av_tokens *toks, const av_options *o,
                           const av_figure_context *fc, av_written *w, av_err *err) {
    av_status s;
    if ((s = av_mkdir_p(o->outdir, err))) return s;
    fig_run fr = {.m = m, .toks = toks, .tok = (const char *const *)toks->tok, .o = o, .w = w};
    av_png_batch batch; /* figure k is compressed on a second thread while k+1 is drawn */
    av_png_batch_begin(&batch);
    fr.meta = figure_meta(fr.desc, o, fc, m->cfg.seed);
    fr.meta.batch = &batch;
    weight_range(&fr);
    describe_run(&fr, fc);
    fr.hms = calloc((size_t)m->cfg.H, sizeof *fr.hms);
    fr.titles = calloc((size_t)m->cfg.H, sizeof *fr.titles);
    if (!fr.hms || !fr.titles) s = av_fail(err, AV_ERUNTIME, "out of memory");
    av_plot_reset_missing();
    if (!s) s = write_selected(&fr, err);
    av_err berr;
    av_status bs = av_png_batch_end(&batch, &berr); /* the PNG files are written here, in order */
    if (!s && bs) {
        s = bs;
        *err = berr;
    }
    free(fr.hms);
    free(fr.titles);
    if (!s) av_figures_warn_missing_glyphs(o);
    return s;
}

av_status av_figures_compare(const av_comparison *c, const av_tokens *toks, const av_options *o,
                             const av_figure_context *fc, av_written *w, av_err *err) {
    if (!av_compare_has_figure(c->kind)) return AV_OK;
    char desc[8192], lead[1024], context[1024 + 8 + sizeof fc->ws->text]; /* lead · weights text */
    av_plot_meta meta = figure_meta(desc, o, fc, o->seed);
    meta.user_title = make_lead(lead, sizeof lead, o, fc->sentence);
    snprintf(context, sizeof context, "%s · %s", lead, fc->ws->text);
    char label[128], how[96];
    /* its panels are attention weights, coloured as the heads' figures (--vmax, --log-scale, auto past 32
     * tokens; a 900-token comparison was drawn on 0..1, every cell dark); order's |ΔA| map sets its own range */
    if (c->kind != AV_CMP_ORDER) weight_meta(&meta, label, how, o, c->runs[0].cfg.T);
    if (c->kind != AV_CMP_ORDER && o->vmax_mode == AV_VMAX_VALUE) { /* as the heads' figures warn: head --head */
        size_t TT = (size_t)c->runs[0].cfg.T * (size_t)c->runs[0].cfg.T, visible = 0, above = 0;
        float smallest = INFINITY;
        for (int i = 0; i < c->n; i++)
            if (c->runs[i].att && c->runs[i].mask)
                count_above(c->runs[i].att + (size_t)o->head * TT, c->runs[i].mask, TT, o->vmax, &visible, &above,
                            &smallest);
        say_vmax_saturates(o, visible, above, smallest);
    }
    /* a part of a character is labelled as the other figures and the page label it, "爱(1/2)" (tokenize.h):
     * a Qwen2 folder's compare_scale.png read <0xE7><0x88> <0xB1> where layer1.png read 爱(1/2) 爱(2/2) */
    char **pieces = NULL;
    av_status s = av_tokens_piece_labels(toks, &pieces, err);
    if (s) return s;
    av_tokens shown = *toks;
    if (pieces) shown.tok = pieces;
    for (int e = 0; e < 2 && !s; e++) {
        if (!(o->format & (e ? AV_FMT_SVG : AV_FMT_PNG))) continue;
        char name[64], path[4096];
        snprintf(name, sizeof name, "%scompare_%s.%s", o->prefix, av_compare_name(c->kind), e ? "svg" : "png");
        av_path_join(path, sizeof path, o->outdir, name);
        if (!(s = av_compare_plot(path, c, &shown, o->head, context, &meta, err))) av_written_add(w, path);
    }
    av_labels_free(pieces, toks->n);
    return s;
}

/* ---------------------------------------------------------------------------- --model figures */

/* Which --model figures: --figures if given (all = every one), else the model
 * view and layer L's grid, plus head --head when --head is given. */
/* A RoPE model also gets pe: the rotation angles for its own θ and d_k. */
static unsigned model_figures(const av_options *o, int rope) {
    unsigned pe = rope ? AV_FIG_PE : 0;
    if (av_option_given(o, "figures")) return o->figures & (AV_FIG_MODEL | AV_FIG_GRID | AV_FIG_HEADS | pe);
    return AV_FIG_MODEL | AV_FIG_GRID | pe | (av_option_given(o, "head") ? AV_FIG_HEADS : 0);
}

/* model: every layer × head as thumbnails, one colour scale: a row per layer, or several when its heads wrap. */
static av_status fig_model_view(fig_run *fr, const float *att, int L, const char *source, av_err *err) {
    int H = fr->m->cfg.H, T = fr->m->cfg.T;
    size_t TT = (size_t)T * T;
    av_heatmap *hms = calloc((size_t)L * H, sizeof *hms);
    char(*names)[2][32] = calloc((size_t)L * H, sizeof *names);
    av_status s = !hms || !names ? av_fail(err, AV_ERUNTIME, "out of memory") : AV_OK;
    for (int p = 0; !s && p < L * H; p++) {
        /* past 16 heads the thumbnails are small: only the panel that starts a row (a layer,
         * or a layer's heads wrapped onto another row) names the layer, the others "H5" */
        snprintf(names[p][0], sizeof names[p][0], "L%d H%d", p / H, p % H);
        snprintf(names[p][1], sizeof names[p][1], "H%d", p % H);
        hms[p] = (av_heatmap){.n_q = T, .n_k = T, .q_labels = fr->tok, .k_labels = fr->tok,
                              .w = att + (size_t)p * TT, .masked = fr->m->mask, .panel_title = names[p][0],
                              .panel_short = H > 16 && L > 1 ? names[p][1] : NULL};
    }
    /* One layer: its heads wrap into a square-ish grid (no row of 64 thumbnails
     * 16 px wide), and the title names the layer rather than "rows L0…L0". */
    char title[FIG_TITLE_MAX], heads[64];
    /* "rows" and "columns" would be wrong when a layer's heads wrap over several rows (plot.c's
     * grid_choose does that for shapes such as 3 x 32): the title gives the reading order instead */
    if (H == 1) snprintf(heads, sizeof heads, "its one head (H0)");
    else if (L == 1) snprintf(heads, sizeof heads, "every head (H0…H%d)", H - 1);
    else snprintf(heads, sizeof heads, "head (H0…H%d, left to right)", H - 1);
    if (L == 1)
        snprintf(title, sizeof title, "%s · %s · attention weights of the one layer (L0) and %s · mask: causal", fr->lead,
                 source, heads);
    else
        snprintf(title, sizeof title, "%s · %s · attention weights of every layer (L0…L%d, top to bottom) and %s · mask: causal",
                 fr->lead, source, L - 1, heads);
    av_plot_meta meta = fr->wmeta;
    meta.grid_cols = L == 1 ? 0 : H;
    if (!s) s = write_fig(fr, "model", FIG_GRID, hms, L * H, title, &meta, err);
    free(hms);
    free(names);
    return s;
}

/* layer<L>: layer L's heads in one grid; layer<L>_head<h>: single heads. */
static av_status fig_layer(fig_run *fr, int layer, const char *source, unsigned figs, av_err *err) {
    const av_model *m = fr->m;
    int H = m->cfg.H, T = m->cfg.T, KVH = m->kv_heads, G = KVH > 0 ? H / KVH : 1;
    char stem[64], title[FIG_TITLE_MAX], kv[96];
    /* grouped-query attention: each panel names the K/V head it reads ("head 5 (K/V 1)"); a lone head's title
     * names the query heads that share it. source gave only the counts ("2 query heads share each of 2 K/V
     * heads"), so which heads shared a K/V head was the trace's alone. */
    char (*panel)[40] = G > 1 && KVH > 1 ? calloc((size_t)H, sizeof *panel) : NULL;
    if (G > 1 && KVH > 1 && !panel) return av_fail(err, AV_ERUNTIME, "out of memory");
    for (int h = 0; h < H; h++) {
        int g = h / G;
        if (G > 1 && KVH == 1) /* multi-query: one K/V head for all */
            snprintf(kv, sizeof kv, " (the one K/V head, shared by all %d query heads)", H);
        else if (G > 1)
            snprintf(kv, sizeof kv, " (K/V head %d, shared by query heads %d–%d)", g, g * G, g * G + G - 1);
        else
            kv[0] = '\0';
        if (panel) snprintf(panel[h], sizeof panel[h], "head %d (K/V %d)", h, g);
        snprintf(fr->titles[h], sizeof fr->titles[h], "%s · %s · layer %d · head %d of %d%s: attention weights · mask: causal",
                 fr->lead, source, layer, h, H, kv);
        fr->hms[h] = (av_heatmap){.title = fr->titles[h], .n_q = T, .n_k = T, .q_labels = fr->tok, .k_labels = fr->tok,
                                  .w = m->att + (size_t)h * T * T, .masked = m->mask,
                                  .panel_title = panel ? panel[h] : NULL};
    }
    av_status s = AV_OK;
    if (figs & AV_FIG_GRID) {
        snprintf(stem, sizeof stem, "layer%d", layer);
        char heads[40], phrase[32];
        av_heads_phrase(phrase, sizeof phrase, H);
        snprintf(heads, sizeof heads, "%s %s", H == 1 ? " of" : ",", phrase);
        snprintf(title, sizeof title, "%s · %s · layer %d: attention weights%s · mask: causal", fr->lead, source, layer,
                 heads);
        s = write_fig(fr, stem, FIG_GRID, fr->hms, H, title, &fr->wmeta, err);
    }
    int only = av_option_given(fr->o, "head") ? fr->o->head : -1;
    for (int h = 0; h < H && !s && (figs & AV_FIG_HEADS); h++) {
        if (only >= 0 && h != only) continue;
        snprintf(stem, sizeof stem, "layer%d_head%d", layer, h);
        s = write_fig(fr, stem, FIG_HEAD, &fr->hms[h], 1, NULL, &fr->wmeta, err);
    }
    for (int h = 0; h < H; h++) fr->hms[h].panel_title = NULL; /* panel's, freed here */
    free(panel);
    return s;
}

av_status av_figures_model(const av_model *view, const av_tokens *toks, const float *att, int L, int layer,
                           const char *source, const char *sentence, const char *run, const av_options *o,
                           const char *cmdline, av_written *w, av_err *err) {
    av_status s = av_mkdir_p(o->outdir, err);
    if (s) return s;
    char **pieces; /* "我(1/2)" where a token holds part of a character (tokenize.h) */
    if ((s = av_tokens_piece_labels(toks, &pieces, err))) return s;
    fig_run fr = {.m = view, .toks = toks, .tok = (const char *const *)(pieces ? pieces : toks->tok), .o = o, .w = w};
    size_t user_title = make_lead(fr.lead, sizeof fr.lead, o, sentence);
    snprintf(fr.desc, sizeof fr.desc, "%s (weights: %s)", cmdline, source);
    fr.meta = (av_plot_meta){.software = "attnviz " AV_VERSION, .description = fr.desc, .weights = source, .run = run,
                             .dpi = o->dpi, .cmap = (av_cmap)o->cmap, .scale = (float)o->scale, .pool = (av_pool)o->pool,
                             .user_title = user_title};
    weight_range(&fr); /* --vmax, --log-scale as for the single layer's weight figures */
    /* compose()'s parts for pe.png: the model as the weights, its positions, the causal mask */
    fr.weights = source;
    av_positions_desc(fr.pos, sizeof fr.pos, &view->cfg);
    av_mask_desc(fr.mask, sizeof fr.mask, &view->cfg, 0, NULL);
    fr.noscale = ""; /* source names a model without ÷√d_k ("; no scale", gpt2run.c) */
    fr.hms = calloc((size_t)view->cfg.H, sizeof *fr.hms);
    fr.titles = calloc((size_t)view->cfg.H, sizeof *fr.titles);
    if (!fr.hms || !fr.titles) s = av_fail(err, AV_ERUNTIME, "out of memory");
    unsigned figs = model_figures(o, view->cfg.positions == AV_POS_ROPE);
    av_plot_reset_missing();
    if (!s && (figs & AV_FIG_MODEL)) s = fig_model_view(&fr, att, L, source, err);
    if (!s) s = fig_layer(&fr, layer, source, figs, err);
    if (!s && (figs & AV_FIG_PE)) s = fig_pe(&fr, err);
    free(fr.hms);
    free(fr.titles);
    av_labels_free(pieces, toks->n);
    if (!s) av_figures_warn_missing_glyphs(o);
    return s;
}

/* ---------------------------------------------------------------- one run per folder */

/* 1 if s is one or more digits and nothing else. */
static int all_digits(const char *s) { return *s && strspn(s, "0123456789") == strlen(s); }

/* 1 if stem (a file name without prefix and extension) is a figure attnviz
 * writes: the single layer's, --compare's, a --model's or --train's
 * compare_<what> (train.h). */
static int is_figure_stem(const char *stem) {
    static const char *const kFixed[] = {"heads", "mean", "scores", "pe", "mask", "model"};
    for (size_t k = 0; k < sizeof kFixed / sizeof kFixed[0]; k++)
        if (strcmp(stem, kFixed[k]) == 0) return 1;
    for (int k = AV_CMP_SCALE; k <= AV_CMP_NORM; k++)
        if (strncmp(stem, "compare_", 8) == 0 && strcmp(stem + 8, av_compare_name(k)) == 0) return 1;
    if (strncmp(stem, "scores_head", 11) == 0) return all_digits(stem + 11);
    if (strncmp(stem, "head", 4) == 0) return all_digits(stem + 4);
    if (strncmp(stem, "layer", 5) != 0) return 0;
    const char *p = stem + 5; /* layer<L> or layer<L>_head<h> */
    size_t k = strspn(p, "0123456789");
    return k > 0 && (!p[k] || (strncmp(p + k, "_head", 5) == 0 && all_digits(p + k + 5)));
}

typedef enum { NAME_NONE, NAME_FIGURE, NAME_PAGE } name_kind;

/* Which file attnviz writes name is, under prefix: prefix + a figure stem +
 * .png or .svg, or prefix + attnviz.html (the --html page). */
static name_kind file_kind(const char *name, const char *prefix) {
    size_t np = strlen(prefix), n = strlen(name);
    if (n < np + 5 || strncmp(name, prefix, np) != 0) return NAME_NONE;
    if (strcmp(name + np, AV_PAGE_NAME) == 0) return NAME_PAGE;
    const char *ext = name + n - 4;
    if (strcmp(ext, ".png") != 0 && strcmp(ext, ".svg") != 0) return NAME_NONE;
    char stem[128];
    snprintf(stem, sizeof stem, "%.*s", (int)(n - np - 4), name + np);
    return is_figure_stem(stem) ? NAME_FIGURE : NAME_NONE;
}

/* The first max - 1 bytes of path, NUL-terminated, in buf; 0 if unreadable. */
static int read_head(const char *path, char *buf, size_t max) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(buf, 1, max - 1, f);
    fclose(f);
    buf[got] = 0;
    return 1;
}

/* The run id in the file at path, into run (n bytes): "" when the file
 * carries attnviz's metadata but no run id, and 0 when it does not carry
 * attnviz's metadata (PNG tEXt Software "attnviz ...", SVG <desc> starting
 * "attnviz ", the page's <meta name="generator" content="attnviz ...">). An
 * SVG's run id is its <desc>'s "run: " line, up to the next line or </desc>. */
static int file_run(const char *path, name_kind kind, char *run, size_t n) {
    static char head[16384];
    run[0] = 0;
    size_t len = strlen(path);
    if (kind == NAME_FIGURE && strcmp(path + len - 4, ".png") == 0) {
        av_png_image img;
        av_err ignored;
        if (av_png_read_texts(path, &img, &ignored) != AV_OK) return 0; /* never decodes the image */
        const char *sw = av_png_image_text(&img, "Software"), *id = av_png_image_text(&img, "Run");
        int ours = sw && strncmp(sw, "attnviz ", 8) == 0;
        if (ours && id) snprintf(run, n, "%s", id);
        av_png_image_free(&img);
        return ours;
    }
    if (!read_head(path, head, sizeof head)) return 0;
    const char *at, *end;
    if (kind == NAME_PAGE) {
        if (strncmp(head, "<!DOCTYPE html>", 15) != 0 || !strstr(head, "<meta name=\"generator\" content=\"attnviz "))
            return 0;
        at = strstr(head, "<meta name=\"attnviz-run\" content=\"");
        end = at ? strchr(at += 34, '"') : NULL;
    } else {
        const char *desc = strstr(head, "<desc>attnviz ");
        if (strncmp(head, "<?xml", 5) != 0 || !desc || !(end = strstr(desc, "</desc>"))) return 0;
        at = strstr(desc, "&#10;run: ");
        if (at && at < end) {
            at += 10;
            const char *next = strstr(at, "&#10;"); /* a "clipped: ..." line may follow the run's */
            if (next && next < end) end = next;
        } else {
            at = NULL;
        }
    }
    if (at && end && end > at) snprintf(run, n, "%.*s", (int)(end - at), at);
    return 1;
}

static int was_written(const av_written *w, const char *path) {
    for (int i = 0; w && i < w->n; i++)
        if (strcmp(w->paths[i], path) == 0) return 1;
    return 0;
}

/* 1 if the file at path is attnviz's, from another run, and this run may
 * remove it: a run that is not --train keeps --train's files ("train-" ids). */
static int is_stale(const char *path, name_kind kind, const char *run_id) {
    char run[64];
    if (!file_run(path, kind, run, sizeof run) || strcmp(run, run_id) == 0) return 0;
    return !(strncmp(run, "train-", 6) == 0 && strncmp(run_id, "train-", 6) != 0);
}

void av_figures_remove_leftovers(const char *dir, const char *prefix, const char *const *also, size_t n) {
    struct dirent **list = NULL;
    int count = scandir(dir, &list, NULL, alphasort), removed = 0;
    char path[4096], target[256], names[512] = "";
    for (int i = 0; i < count; i++) {
        const char *name = list[i]->d_name;
        int form = av_afile_leftover_name(name, target, sizeof target), ours = form == 2;
        if (form == 1) {
            ours = file_kind(target, prefix) != NAME_NONE;
            for (size_t k = 0; k < n && !ours; k++) ours = strcmp(target, also[k]) == 0;
        }
        struct stat st;
        if (ours) av_path_join(path, sizeof path, dir, name);
        if (ours && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0 && removed++ < 8) {
            av_utf8_shown_name(name, target, sizeof target); /* a --prefix's RLO closed */
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s", target);
        }
        free(list[i]);
    }
    free(list);
    char shown[4200]; /* the folder as every note shows it (av_utf8_shown_name): an RLO in -o turned the rest around */
    av_shown_word(shown, sizeof shown, dir); /* one shell word, as every note names a folder */
    if (removed) /* with -q too, as av_figures_remove_stale's note */
        av_message(stderr, "attnviz: note: removed %d temporary file%s an attnviz left in %s when it was killed while "
                   "writing:%s%s\n", removed, removed == 1 ? "" : "s", shown, names, removed > 8 ? " ..." : "");
}

int av_figures_holds_run(const char *dir, const char *prefix, const char *run_id) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, NULL), found = 0;
    char path[4096], run[64];
    for (int i = 0; i < n; i++) {
        name_kind kind = found ? NAME_NONE : file_kind(list[i]->d_name, prefix);
        if (kind != NAME_NONE) {
            av_path_join(path, sizeof path, dir, list[i]->d_name);
            found = file_run(path, kind, run, sizeof run) && strcmp(run, run_id) == 0;
        }
        free(list[i]);
    }
    free(list);
    return found;
}

av_status av_figures_remove_stale(const char *dir, const char *prefix, const char *run_id, const av_written *w,
                                  av_err *err) {
    if (w && w->n >= AV_MAX_WRITTEN) return AV_OK; /* the list may be incomplete: remove nothing */
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort); /* the note lists them in the same order everywhere */
    char path[4096], names[512] = "", shown[4200]; /* a folder or file as av_utf8_shown_name shows it */
    if (n < 0 && (errno == ENOENT || errno == ENOTDIR)) return AV_OK; /* nothing written there, so nothing to mix with */
    if (n < 0) { /* a folder one may write in but not read (chmod 333, a class's drop box): the run's files are
                  * in place, but an earlier run's were kept without a word beside them (a tester's pass) */
        int e = errno;
        av_shown_word(shown, sizeof shown, dir); /* one shell word */
        av_message(stderr, "attnviz: warning: cannot list %s (%s), so files of an earlier run there, if any, were "
                   "not removed and may lie beside this run's: give the folder read permission, or use another -o\n",
                   shown, strerror(e));
        return AV_OK;
    }
    int removed = 0;
    av_status st = AV_OK;
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        name_kind kind = st ? NAME_NONE : file_kind(name, prefix);
        if (kind != NAME_NONE) av_path_join(path, sizeof path, dir, name);
        if (kind == NAME_NONE || was_written(w, path) || !is_stale(path, kind, run_id)) {
            free(list[i]);
            continue;
        }
        if (unlink(path) != 0) {
            int e = errno;
            av_shown_word(shown, sizeof shown, path);
            st = av_fail(err, AV_ERUNTIME, "cannot remove %s, a file of an earlier run (a folder never mixes "
                         "two runs; use another -o or --prefix): %s", shown, strerror(e));
        }
        else if (removed++ < 8)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s", name);
        free(list[i]);
    }
    free(list);
    if (!st && removed) { /* with -q too (figures.h) */
        av_shown_word(shown, sizeof shown, dir); /* the folder as every note shows it: one shell word */
        av_message(stderr, "attnviz: note: removed %d file%s of an earlier run from %s, so the folder holds one run:%s%s\n",
                removed, removed == 1 ? "" : "s", shown, names, removed > 8 ? " ..." : "");
    }
    return st;
}
