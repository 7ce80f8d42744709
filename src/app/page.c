/* page.c - fill the interactive page (render/html.h) from a finished run.
 * Leaves out: drawing (the page's JavaScript draws), recomputation. */
#include "app/page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/figures.h"
#include "app/teach.h"
#include "app/trace.h"
#include "base/utf8.h"
#include "io/fileio.h"

/* "positions: sinusoidal · mask: causal" (and " · no scale") */
static void run_desc(char *buf, size_t n, const av_model *m) {
    char mask[128], pos[96];
    av_mask_desc(mask, sizeof mask, &m->cfg, m->user_mask != NULL, m->user_mask_file);
    av_positions_title(pos, sizeof pos, &m->cfg, m->model_layer);
    snprintf(buf, n, "positions: %s · mask: %s%s", pos, mask, m->cfg.scale ? "" : " · no scale");
}

/* m as one page run (L = 1): its tokens, A, S and q, k, v (H, T, D); the cell view names --dump's files
 * only when dumped: "(= scores.npy[0, 0, 0])" beside a stored score named a file that was never
 * written (a figure-maker's report) */
static av_html_run single_run(const av_model *m, const av_tokens *toks, const char *name, int dumped, char *desc,
                              size_t desc_n) {
    run_desc(desc, desc_n, m);
    return (av_html_run){.name = name, .desc = desc, .L = 1, .H = m->cfg.H, .T = m->cfg.T, .D = m->D,
                         .tokens = (const char *const *)toks->tok, .weights = m->att, .scores = m->scores,
                         .q = m->Q, .k = m->K, .v = m->V, .mask = m->mask, .causal = m->cfg.causal, .n_real = m->cfg.n_real,
                         .scale = m->cfg.scale ? 1.0 / sqrt((double)m->D) : 1.0, .unscaled = !m->cfg.scale,
                         .rope = m->cfg.positions == AV_POS_ROPE,
                         .weights_file = dumped ? "weights.npy" : NULL, .scores_file = dumped ? "scores.npy" : NULL};
}

/* The trace as printed, without colour and the kernel's thread count (and
 * the comparison table when c is given), into a malloc'd string; NULL when
 * out of memory. */
static char *trace_text(const av_model *m, const av_tokens *toks, const av_options *o,
                        const av_weights_source *ws, const av_comparison *c) {
    char *buf = NULL;
    size_t n = 0;
    FILE *ms = open_memstream(&buf, &n);
    if (!ms) return NULL;
    av_trace tr = {ms, 0, o->verbose, o->precision, 1, o->kernel == AV_KERNEL_AUTO, av_options_weights_needed_by(o)};
    av_trace_print(&tr, m, toks, ws);
    if (c) fputc('\n', ms), av_compare_print(ms, c, toks, 0);
    if (fclose(ms) != 0) { free(buf); return NULL; }
    return buf;
}

/* Write the page for runs[0..n-1] under title and source (the trace: text or NULL). */
static av_status write_page(const av_html_run *runs, int n, const char *title, const char *source,
                            const char *trace, const av_tokens *toks, const av_options *o, const av_page_info *info,
                            av_written *w, av_err *err) {
    char path[4096], name[128];
    av_html_page page = {.title = title, .command = info->command, .source = source, .trace = trace,
                         .cmap = o->cmap, .precision = o->precision, .runs = runs, .n_runs = n,
                         .max_bytes = (size_t)o->html_limit << 20, .run = info->run,
                         .start_head = -1, .start_query = -1, .start_key = -1, .log_scale = o->log_scale,
                         .vmax_named = o->vmax_mode == AV_VMAX_FIXED ? 1 : o->vmax_mode == AV_VMAX_VALUE ? 2 : 0};
    /* the weights' colour range as the figures' (figures.c weight_meta): --vmax F, auto (the default past
     * AV_AUTO_VMAX_T tokens), or fixed 0..1 */
    int vmode = o->vmax_mode == AV_VMAX_DEFAULT ? (runs[0].T > AV_AUTO_VMAX_T ? AV_VMAX_AUTO : AV_VMAX_FIXED) : o->vmax_mode;
    if (vmode == AV_VMAX_VALUE) page.vmax = (float)o->vmax;
    else if (vmode == AV_VMAX_AUTO) page.auto_pct = (float)AV_AUTO_VMAX_PCT;
    /* open on the head and cell the trace walked through: --explain's cell as the trace resolves it */
    if (o->explain && toks && av_explain_locate(o->explain, toks, &page.start_query, &page.start_key) != AV_OK)
        page.start_query = page.start_key = -1;
    if (av_option_given(o, "head") || page.start_query >= 0) page.has_start = 1, page.start_head = o->head;
    av_status s = av_page_check_size(runs[0].T, info->n_real > 0 ? info->n_real : runs[0].T, n, o,
                                     av_html_mask_bytes(&page) > 0, err); /* main.c checked before any file; kept for any caller */
    if (!s) s = av_mkdir_p(o->outdir, err);
    snprintf(name, sizeof name, "%s%s", o->prefix ? o->prefix : "", AV_PAGE_NAME);
    av_path_join(path, sizeof path, o->outdir, name);
    if (!s) s = av_html_write(path, &page, err);
    if (!s) av_written_add(w, path);
    /* Only the page said that it had cut its numbers to 8 bits or left heads out: `--heads 8 --html` on 1500
     * tokens printed "wrote 10 files" while the page kept 2 of its 8 heads (a learner's pass). The limit counts
     * the numbers, not the file: "the page's limit is 16 MiB" stood beside a 22 MB attnviz.html of 1284
     * tokens (5 heads · 2 · 1284² bytes = 15.7 MiB, as base64 21 MB; a new user's pass), so it says so */
    int mode = 0;
    size_t total = 0, kept = s ? 0 : av_html_panels_kept(&page, &total, &mode);
    int lim = o->html_limit ? o->html_limit : (int)(AV_HTML_MAX_BYTES >> 20);
    if (!s && mode && !o->quiet) {
        char heads[96] = "";
        if (kept < total)
            snprintf(heads, sizeof heads, " of %zu of its %zu %s only", kept, total, n > 1 || runs[0].L > 1 ? "maps"
                                                                                                             : "heads");
        size_t masks = av_html_mask_bytes(&page);
        char with_mask[96] = ""; /* the mask is counted in the limit (html.c plan) */
        if (masks)
            snprintf(with_mask, sizeof with_mask, ", the (T, T) mask%s it stores (%.1f MiB) included",
                     masks > (size_t)runs[0].T * (size_t)runs[0].T ? "s" : "",
                     masks / 1048576.0);
        av_message(stderr, "attnviz: note: %s holds the weights and scores%s, at 8 bits (each to 1/255 of its map's "
                   "range), and no q, k, v: the page's limit is %d MiB of numbers%s (the file is larger: base64 "
                   "takes 4/3 as many bytes, beside its script); --html-limit (up to 1024 MiB) raises it\n",
                   name, heads, lim, with_mask);
    }
    return s;
}

size_t av_page_mask_bytes(int T, int n_real, int n_runs, const av_options *o, int attn_mask_hides) {
    int masked = n_real < T; /* --pad-to's <pad> keys: every run's, order's too */
    if (o->compare != AV_CMP_ORDER) masked |= (o->causal || o->model_dir) && T > 1; /* a --model is causal */
    /* --attn-mask's only when it hides a cell: an all-False file's page stores no mask (html.c), and was refused
     * ("with the (T, T) mask it stores") for a page that fits */
    if (o->compare != AV_CMP_ORDER) masked |= o->attn_mask != NULL && attn_mask_hides;
    return masked ? (size_t)(n_runs > 1 ? n_runs : 1) * (size_t)T * (size_t)T : 0;
}

av_status av_page_check_size(int T, int n_real, int n_runs, const av_options *o, int attn_mask_hides, av_err *err) {
    size_t limit = o->html_limit ? (size_t)o->html_limit << 20 : AV_HTML_MAX_BYTES;
    int n = n_runs > 1 ? n_runs : 1;
    double mib = 2.0 * T * T / 1048576.0; /* one head's weights and scores at 8 bits */
    /* the (T, T) mask is stored beside them, T² bytes a run: 33 MB of a 5000-token --causal page were outside
     * --html-limit's count */
    size_t masks = av_page_mask_bytes(T, n_real, n, o, attn_mask_hides);
    if ((size_t)n * 2 * (size_t)T * (size_t)T + masks <= limit) return AV_OK;
    int lim = o->html_limit ? o->html_limit : (int)(AV_HTML_MAX_BYTES >> 20);
    char mask[160] = "";
    if (masks)
        snprintf(mask, sizeof mask, ", with the (T, T) mask%s it stores (%.2f MiB) %.2f MiB in all", n > 1 ? "s" : "",
                 masks / 1048576.0, n * mib + masks / 1048576.0);
    if (n == 1)
        return av_fail(err, AV_EUSAGE, "--html: one head's weights and scores for %d tokens take %.1f MiB at 8 bits%s, "
                       "over the page's %d MiB; raise --html-limit (up to 1024) or use fewer tokens", T, mib, mask, lim);
    /* a --compare page that held the first setting's head and none of the others' compared nothing (a
     * tester's report: 560 tokens, --compare positions, --html-limit 1 kept "1 of 1, 0 of 1, 0 of 1") */
    return av_fail(err, AV_EUSAGE, "--html: one head of each of the %d --compare settings (weights and scores for %d "
                   "tokens, %.1f MiB at 8 bits each) takes %.1f MiB%s, over the page's %d MiB; raise --html-limit (up to "
                   "1024) or use fewer tokens", n, T, mib, n * mib, mask, lim);
}

int av_page_runs(const av_options *o, int d_model, int heads) {
    char why[128];
    switch (o->compare) {
    case AV_CMP_SCALE: case AV_CMP_ROPE_STYLE: return 2;
    case AV_CMP_POSITIONS: return 3 - av_compare_rope_left_out(why, sizeof why, d_model, heads);
    case AV_CMP_ORDER: return 2 * (3 - av_compare_rope_left_out(why, sizeof why, d_model, heads)); /* as given, swapped */
    default: return 1;
    }
}

/* A title holding a right-to-left letter (Bidi_Class R or AL) sits in
 * FIRST STRONG ISOLATE U+2068 ... POP DIRECTIONAL ISOLATE U+2069, as the
 * figures' titles quote it (figures.c make_lead): the heading is one
 * left-to-right line, "attnviz “…”", and without the isolate the Arabic
 * words of "أنا أحب GPT كثيرا" before the Latin one ran right to left on
 * their own with the rest to their right, so the words read out of order
 * from the right (a lecturer's pass). Room permitting (a --title of about
 * 2 KiB stays as it is). */
static void isolate_rtl(char *title, size_t n) {
    const unsigned char *p = (const unsigned char *)title;
    int rtl = 0;
    while (*p && !rtl) rtl = av_utf8_is_rtl(av_utf8_next(&p));
    size_t len = strlen(title);
    if (!rtl || len + 7 > n) return;
    memmove(title + 3, title, len + 1);
    memcpy(title, "\xE2\x81\xA8", 3);          /* FSI */
    memcpy(title + 3 + len, "\xE2\x81\xA9", 4); /* PDI and the NUL */
}

/* The title (<title> and the heading): --title as given, as the figures'
 * titles start with it (a teacher's pass: "--title 'Lesson 3: 注意力'" left
 * the page titled with the sentence); else the input text shortened as the
 * figures' titles quote it (figures.h av_figures_short_sentence: 40 columns,
 * to a whole word, then "…"), or without it the first n_real labels joined by spaces; an
 * embedding, override or isolate it leaves open is closed at its end
 * (base/utf8.h av_utf8_bidi_closers), as in the figures' titles: the heading's
 * closing quote, which the page's script writes after it, read turned around
 * ("--title $'Slide \u202eevil'" headed the page “Slide ”live); in an isolate
 * when it holds right-to-left text (isolate_rtl). */
static void page_title(char *title, size_t n, const av_options *o, const av_page_info *info,
                       const char *const *labels, int T) {
    title[0] = 0;
    if (o->title && *o->title) {
        if (snprintf(title, n, "%s", o->title) >= (int)n) av_utf8_trim_cut(title);
    } else if (info->sentence) {
        av_figures_short_sentence(title, n, info->sentence);
    } else {
        for (int t = 0; t < info->n_real && t < T && strlen(title) + AV_MAX_TOKEN_BYTES + 2 < n; t++)
            snprintf(title + strlen(title), n - strlen(title), "%s%s", t ? " " : "", labels[t]);
    }
    size_t len = strlen(title);
    av_utf8_bidi_closers(title, len, title + len, n - len);
    isolate_rtl(title, n);
}

/* A single-layer page (runs from m or from its --compare settings). */
static av_status write_runs(const av_html_run *runs, int n, const av_tokens *toks, const av_options *o,
                            const av_page_info *info, const char *trace, av_written *w, av_err *err) {
    char title[2048];
    page_title(title, sizeof title, o, info, (const char *const *)toks->tok, toks->n);
    return write_page(runs, n, title, info->note, info->trace ? info->trace : trace, toks, o, info, w, err);
}

/* m's run alone; its trace followed by c's table when c is given (--compare order) */
static av_status single_page(const av_model *m, const av_tokens *toks, const av_options *o, const av_page_info *info,
                             const av_comparison *c, av_written *w, av_err *err) {
    char desc[256];
    av_html_run run = single_run(m, toks, "", o->dump_dir != NULL, desc, sizeof desc);
    char *trace = trace_text(m, toks, o, info->ws, c);
    av_status s = write_runs(&run, 1, toks, o, info, trace, w, err);
    free(trace);
    return s;
}

av_status av_page_single(const av_model *m, const av_tokens *toks, const av_options *o, const av_page_info *info,
                         av_written *w, av_err *err) {
    return single_page(m, toks, o, info, NULL, w, err);
}

/* --compare order: per positions kind the input as given and the swapped one (tokens 0 and c->last
 * exchanged, labelled in their new places), side by side as the other kinds' settings; the page held the
 * base run alone, without a word that the runs the table compares were not on it (a reviewer's note) */
static av_status order_page(const av_comparison *c, const av_model *m, const av_tokens *toks, const av_options *o,
                            const av_page_info *info, av_written *w, av_err *err) {
    int T = toks->n;
    av_html_run runs[2 * AV_CMP_MAX_SETTINGS];
    char desc[2 * AV_CMP_MAX_SETTINGS][512], name[2 * AV_CMP_MAX_SETTINGS][96];
    const char **swapped = malloc((size_t)T * sizeof *swapped);
    if (!swapped) return av_fail(err, AV_ERUNTIME, "out of memory");
    for (int t = 0; t < T; t++) swapped[t] = toks->tok[t];
    swapped[0] = toks->tok[c->last];
    swapped[c->last] = toks->tok[0];
    for (int k = 0; k < c->n; k++) {
        const char *pos = c->order_pos[k] == AV_POS_ROPE ? "RoPE" : av_positions_name(c->order_pos[k]); /* as positions names it */
        snprintf(name[2 * k], sizeof name[2 * k], "positions %s", pos);
        snprintf(name[2 * k + 1], sizeof name[2 * k + 1], "positions %s, tokens 0 \xE2\x86\x94 %d swapped", pos, c->last);
        runs[2 * k] = single_run(&c->runs[k], toks, name[2 * k], 0, desc[2 * k], sizeof desc[2 * k]);
        runs[2 * k + 1] = single_run(&c->order_swapped[k], toks, name[2 * k + 1], 0, desc[2 * k + 1],
                                     sizeof desc[2 * k + 1]);
        runs[2 * k + 1].tokens = swapped;
        size_t len = strlen(desc[2 * k + 1]);
        snprintf(desc[2 * k + 1] + len, sizeof desc[2 * k + 1] - len, " · tokens 0 and %d swapped", c->last);
    }
    char *trace = trace_text(m, toks, o, info->ws, c);
    av_status s = write_runs(runs, 2 * c->n, toks, o, info, trace, w, err);
    free(trace);
    free(swapped);
    return s;
}

av_status av_page_compare(const av_comparison *c, const av_model *m, const av_tokens *toks, const av_options *o,
                          const av_page_info *info, av_written *w, av_err *err) {
    if (c->kind == AV_CMP_ORDER && c->n > 0 && c->runs[0].att && c->order_swapped[0].att)
        return order_page(c, m, toks, o, info, w, err);
    if (c->kind == AV_CMP_ORDER) /* run without keep_runs: the base run alone, and the table in its trace */
        return single_page(m, toks, o, info, c, w, err);
    av_html_run runs[AV_CMP_MAX_SETTINGS];
    char desc[AV_CMP_MAX_SETTINGS][512], name[AV_CMP_MAX_SETTINGS][96];
    for (int k = 0; k < c->n; k++) { /* --dump holds the base run, not the settings */
        /* a --model's setting as trained says so, as in its compare figure */
        snprintf(name[k], sizeof name[k], "%s%s", c->names[k], k == c->own ? " (the model's own)" : "");
        runs[k] = single_run(&c->runs[k], toks, name[k], 0, desc[k], sizeof desc[k]);
        if (c->kind == AV_CMP_SCALE && !c->runs[k].cfg.scale) /* its "no scale" run: no --no-scale was typed */
            runs[k].no_scale_why = "--compare scale";
        if (c->model_layer) { /* the view's own positions say "learned" for any encoding of the model's input */
            snprintf(desc[k], sizeof desc[k], "the model's layer %d, the same input and weights · %s", c->model_layer - 1,
                     c->shared);
            runs[k].layer0 = c->model_layer - 1;
            runs[k].layers_of = info->n_layer;
            if (!c->runs[k].cfg.scale && k == c->own) /* the cell view named --no-scale, an error with --model */
                runs[k].no_scale_why = m->no_scale_why ? m->no_scale_why : "the model was trained without it";
        }
    }
    char *trace = info->trace ? NULL : trace_text(m, toks, o, info->ws, c); /* a model's caller gives its own */
    av_status s = write_runs(runs, c->n, toks, o, info, trace, w, err);
    free(trace);
    return s;
}

av_status av_page_model(const av_gpt2_config *cfg, const av_gpt2_acts *a, const av_tokens *toks, int T,
                        const av_options *o, const av_page_info *info, av_written *w, av_err *err) {
    char **pieces; /* "我(1/2)" where a token holds part of a character, as the figures label it (tokenize.h) */
    av_status st = av_tokens_piece_labels(toks, &pieces, err);
    if (st) return st;
    const char *const *labels = (const char *const *)(pieces ? pieces : toks->tok);
    int L = cfg->n_layer, H = cfg->n_head, D = cfg->n_embd / cfg->n_head;
    size_t htd = (size_t)H * (size_t)T * (size_t)D;
    char desc[256], pos[96], title[2048];
    av_config c = {.positions = cfg->positions, .rope_style = cfg->rope_style};
    av_positions_desc(pos, sizeof pos, &c);
    const char *norm = info->norm ? info->norm : cfg->norm == AV_NORM_PRE ? "pre-LN" : "post-LN";
    snprintf(desc, sizeof desc, "%d layer%s × %d head%s, d_model %d · positions: %s · mask: causal · %s%s", L,
             L == 1 ? "" : "s", H, H == 1 ? "" : "s", cfg->n_embd, pos, norm, cfg->scale ? "" : " · no scale");
    av_html_run run = {.name = "", .desc = desc, .L = L, .H = H, .T = T, .D = D, .tokens = labels,
                       .weights = a->att, .scores = a->preatt, .q = a->qkvh, .k = a->qkvh + htd,
                       .v = a->qkvh + 2 * htd, .qkv_layer_stride = 3 * htd, .mask = a->mask, .causal = 1, /* no <pad> */
                       .scale = cfg->scale ? 1.0 / sqrt((double)D) : 1.0, .unscaled = !cfg->scale,
                       .rope = cfg->positions == AV_POS_ROPE,
                       .no_scale_why = av_gpt2_no_scale_why(cfg), /* as the trace: a null config value says so */
                       .weights_file = o->dump_dir ? "attn.npy" : NULL, .scores_file = o->dump_dir ? "scores.npy" : NULL,
                       .files_have_layers = 1, /* named only when dumped, as single_run */
                       .first_layer = info->layer};
    page_title(title, sizeof title, o, info, labels, T);
    st = write_page(&run, 1, title, info->note, info->trace, toks, o, info, w, err);
    av_labels_free(pieces, toks->n);
    return st;
}

av_status av_page_write(const av_comparison *c, const av_model *m, const av_tokens *toks, const av_options *o,
                        const av_page_info *info, av_written *w, av_err *err) {
    return c ? av_page_compare(c, m, toks, o, info, w, err) : av_page_single(m, toks, o, info, w, err);
}
