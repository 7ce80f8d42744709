/* page.h - the run's interactive page (--html): [--prefix]attnviz.html in the output
 * folder, filled from what the run computed (render/html.h writes the file;
 * this module says which numbers and words go in). One page per run:
 *
 *   av_page_single    a single layer: L = 1, the run's H heads
 *   av_page_compare   --compare: one panel per setting, side by side (for
 *                     order, per positions kind the input as given and
 *                     the swapped one)
 *   av_page_model     a model (nn/gpt2.h: GPT-2 or a trained toy model):
 *                     every layer and head, q, k, v from its qkvh
 *
 * Every page states the sentence, the command line, where the weights come
 * from (random with seed N, loaded from DIR, a model folder, trained), each
 * run's positions, mask and scale, and the trace as printed (no colour).
 * Legend: L layers, H heads, T tokens, D = d_k.
 */
#ifndef AV_PAGE_H
#define AV_PAGE_H

#include "app/cli.h"
#include "app/compare.h"
#include "app/tensorio.h"
#include "nn/gpt2.h"
#include "nn/model.h"
#include "render/html.h"
#include "text/tokenize.h"

/* What the caller knows about the run besides the numbers. */
typedef struct {
    const char *command; /* the shell-quoted command line */
    const char *note;    /* where X and W came from, as the trace says it ("random weights
                          * (untrained, seed 42)", app/tensorio.h); for a model the whole
                          * source ("model gpt2/ (GPT-2, 12 layers)") */
    const av_weights_source *ws; /* single layer: the weights' source for the trace, or NULL */
    const char *trace;   /* the trace as printed, no colour; NULL: printed again here
                          * (single layer, compare); a model's caller gives it */
    const char *sentence; /* the input text as read (arguments or -f), shortened for the page's
                           * title and heading as the figures' titles; NULL: the tokens joined */
    int n_real;          /* tokens of the sentence before any <pad> */
    const char *run;     /* the run's id (figures.h), kept in the page's <meta name="attnviz-run"> */
    const char *norm;    /* a model's normalisation as the page names it, e.g. "pre-norm RMSNorm" (Llama);
                          * NULL: the GPT-2 layout's "pre-LN" or "post-LN" from cfg->norm */
    int n_layer;         /* a model's layers: its --compare page names layer L "of n_layer"; 0 for a single layer */
    int layer;           /* a model's layer shown step by step (--layer, default the last): the page
                          * opens on it (av_html_run.first_layer) */
} av_page_info;

/* The bytes of the (T, T) masks the page of o's run stores (render/html.h:
 * T·T bytes a run whose mask hides a cell): of each of n_runs runs when the
 * mask is causal (--causal, or a --model) past 1 token, hides --pad-to's
 * <pad> keys (n_real < T) or is --attn-mask's and attn_mask_hides (1: the
 * file was read and hides a cell; one that hides nothing is not stored, and
 * 0 before the file is read); --compare order's runs drop the causal mask
 * and --attn-mask. Else 0. */
size_t av_page_mask_bytes(int T, int n_real, int n_runs, const av_options *o, int attn_mask_hides);

/* AV_OK when the page of n_runs runs (1, or the --compare settings:
 * av_page_runs) over T tokens (n_real of them the sentence's, the rest
 * <pad>) can hold at least one (layer, head) panel of each within
 * --html-limit (o->html_limit MiB, 0 = AV_HTML_MAX_BYTES): its (T, T)
 * weights and scores at 8 bits, 2·T² bytes a run, with the masks
 * av_page_mask_bytes counts (attn_mask_hides as it takes it). Else AV_EUSAGE "--html: one head's weights and
 * scores for T tokens take X MiB at 8 bits[, with the (T, T) mask it stores
 * (M MiB) Y MiB in all,] over the page's N MiB; ..." (with --compare: "one
 * head of each of the n --compare settings ..."). For a check before any
 * file is written: a 3000-token --html run replaced an earlier run's
 * figures and then failed here (a new user's report). */
av_status av_page_check_size(int T, int n_real, int n_runs, const av_options *o, int attn_mask_hides, av_err *err);

/* The runs the page of o's run shows: 2 or 3 --compare settings (positions
 * leaves out RoPE for an odd d_k = d_model / heads), 4 or 6 for --compare
 * order (each positions kind on the input as given and swapped), else 1. */
int av_page_runs(const av_options *o, int d_model, int heads);

/* The page's file name in --outdir, after --prefix: prefix + AV_PAGE_NAME. */
#define AV_PAGE_NAME "attnviz.html"

/* Write <o->outdir>/<o->prefix>attnviz.html for the single-layer run m and add it to w.
 * The trace is printed again (no colour) into the page. Errors: as
 * av_html_write (AV_ERUNTIME naming the file on a failed write). */
av_status av_page_single(const av_model *m, const av_tokens *toks, const av_options *o, const av_page_info *info,
                         av_written *w, av_err *err);

/* The same for a --compare run c of base run m: each setting is one panel
 * (L = 1) named as in the comparison table ("scaled ÷√d_k", "no scale", ...;
 * order, run with keep_runs: "positions none", "positions none, tokens 0 ↔ 3
 * swapped", ..., the swapped runs' tokens in their new places);
 * the page's trace is the base run's trace followed by the comparison table.
 * For a --model (c->model_layer: m is layer L's view) the panels are layer L
 * under each setting, the model's own marked "(the model's own)", and
 * info->trace (the model's trace and the table) is the page's trace. */
av_status av_page_compare(const av_comparison *c, const av_model *m, const av_tokens *toks, const av_options *o,
                          const av_page_info *info, av_written *w, av_err *err);

/* A single-layer run's page: av_page_compare when c (a --compare run) is
 * given, else av_page_single. */
av_status av_page_write(const av_comparison *c, const av_model *m, const av_tokens *toks, const av_options *o,
                        const av_page_info *info, av_written *w, av_err *err);

/* The page of a model run: a holds the forward pass over T tokens under cfg
 * (att and preatt (L, H, T, T), qkvh (L, 3, H, T, D), mask (T, T)); toks
 * are the T readable token labels (with their texts, as --explain resolves
 * them); info->note says where the model comes from. The page opens on --head
 * and on --explain's cell when given. Errors: as av_html_write. */
av_status av_page_model(const av_gpt2_config *cfg, const av_gpt2_acts *a, const av_tokens *toks, int T,
                        const av_options *o, const av_page_info *info, av_written *w, av_err *err);

#endif
