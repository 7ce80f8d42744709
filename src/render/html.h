/* html.h - the interactive page: one self-contained attnviz.html with the
 * run's numbers, for a browser with no network, no server and no notebook.
 * Legend: L layers, H heads, T tokens, D = d_k.
 *
 * How to use: describe each run (one for a single layer or a model, one per
 * variant for --compare) as an av_html_run of plain arrays, then call
 * av_html_write. The arrays are read, not copied or freed.
 *
 * What the page holds (all inline: the CSS and JavaScript come from
 * src/render/html/ and are compiled into the binary by scripts/embed.sh; a
 * Content-Security-Policy of default-src 'none' forbids any request):
 *   - the tokens, and per layer and head the attention weights A and the
 *     scores S (before the mask) and, for the cell view, q, k and v;
 *   - the trace text, the command line, where the weights come from, and
 *     the colour-map tables of colormap.h and the weights' colour range
 *     (--vmax F or auto, --log-scale), so its colours are the figures'.
 * Views (JavaScript): head view (lines weighted by A), matrix view (the
 * heat-map with tooltips), model view (layers × heads thumbnails), cell view
 * (the --explain walk-through of one cell with the stored numbers). The page
 * is lang="en" (its words are English); each token label, and the title
 * heading when it is in another script, carries the lang of its script (zh,
 * ja, ko, ar, he, ...), so the browser picks a font made for it; an
 * accessible name (or heading, or tooltip) that mixes the page's words with
 * a token gives each part its own lang (aria-labelledby spans).
 *
 * Data format: a JSON object in <script type="application/json"
 * id="av-data">; tensors are base64 of little-endian float32, C order:
 * weights and scores (L, H, T, T), q, k, v (L, H, T, D); the mask is base64
 * of (T, T) bytes, 1 = masked, or "" when it hides nothing (no mask, or
 * mask NULL); a mask stored counts T·T bytes in the size limit below. Each
 * run's "causal" (true/false) and "n_real" (1..T) say why a cell is masked
 * (causal j > i, a <pad> key j >= n_real, else --attn-mask), as --explain.
 *
 * Size limit: when the runs' numbers (4 bytes each) and stored masks (1 byte
 * a cell) exceed AV_HTML_MAX_BYTES,
 * weights and scores are quantised to 8 bits (weights over [0, 1], scores
 * over each head's own [min, max]; error at most half a step) and q, k, v
 * are left out; if the 8-bit panels still exceed it, only the first
 * (layer, head) panels that fit are kept, taken in turn from each run (a
 * --compare page keeps the same heads of every setting). The page says
 * which, in its header and in the cell view, and prints an 8-bit number only
 * to the digits its step supports (none finer than the step: weights 2,
 * scores by their head's (max - min)/255) followed by "(8-bit: ±E)", E half
 * a step rounded up to one significant digit; the weights' colour bar says
 * its colours are coarser than the figures' when the range is below 1 or on
 * a log scale (8-bit steps of 1/255; a weight under 0.002 is stored as 0).
 *
 * Non-goals: editing, recomputing attention in the browser, remote assets.
 */
#ifndef AV_HTML_H
#define AV_HTML_H

#include <stddef.h>

#include "base/common.h"

/* 16 MiB of float32 numbers (about 21 MiB of base64) before quantising. */
#define AV_HTML_MAX_BYTES ((size_t)16 << 20)

typedef struct {
    const char *name;          /* panel title, e.g. "with ÷√d_k"; "" for a single run */
    const char *desc;          /* e.g. "positions: sinusoidal · mask: causal" */
    int L, H, T, D;            /* layers, heads, tokens, d_k */
    const char *const *tokens; /* T UTF-8 labels */
    const float *weights;      /* (L, H, T, T) attention weights */
    const float *scores;       /* (L, H, T, T) scores S = Q·Kᵀ·scale before the mask */
    const float *q, *k, *v;    /* (L, H, T, D) as used for S (after RoPE); all NULL = no cell view */
    size_t qkv_layer_stride;   /* floats from layer l to l+1 in q, k, v: 0 = H·T·D (contiguous);
                                * 3·H·T·D for gpt2.h's qkvh (L, 3, H, T, D) */
    const unsigned char *mask; /* (T, T) 1 = masked, the same in every layer and head; or NULL */
    int causal;                /* 1: the mask holds the causal mask (a key after its query is masked); with
                                * n_real it gives the cell view --explain's reason for a masked cell */
    int n_real;                /* tokens before --pad-to's <pad>s: keys n_real.. are padding, queries
                                * n_real.. get --explain's <pad>-query note; 0 (or over T) = T, no <pad> */
    double scale;              /* S = q·k × scale: 1/√D, or 1 with --no-scale */
    int unscaled;              /* 1: no ÷√d_k (--no-scale, or a model trained so); 0: scale = 1/√D, which is 1
                                * too at D = 1, where the cell view said "no ÷√d_k (--no-scale)" of a scaled run */
    const char *no_scale_why;  /* unscaled: why, as the cell view says it: NULL = "--no-scale"; a --model's
                                * "the model was trained without it", or its config.json's null scale_attn_weights
                                * (nn/gpt2.h av_gpt2_no_scale_why; --no-scale is refused with --model) */
    int rope;                  /* 1: q and k are rotated by RoPE; the cell view says "(after RoPE)", as --explain */
    const char *weights_file;  /* the --dump file holding these weights ("weights.npy"), named by
                                * the cell view; NULL = none */
    const char *scores_file;   /* the same for the scores ("scores.npy"); NULL = none */
    int files_have_layers;     /* 1: those files are (L, H, T, T); 0: (H, T, T) */
    int layer0, layers_of;     /* 0, 0: the run's layers are 0..L-1 of L; else its layer 0 is named
                                * layer layer0 of a model of layers_of layers (a --model's --compare:
                                * its layer L under each setting, L = 1; the page said "layer 0 of 1") */
    int first_layer;           /* the layer the page opens on, 0..L-1: a model's --layer, the one its
                                * trace and figures show (the page opened on layer 0 beside a trace of
                                * the last: a figure-maker's report); layer 0 when that one's panels
                                * are not stored (--html-limit) */
} av_html_run;

typedef struct {
    const char *title;    /* the sentence */
    const char *command;  /* the command line that made the page */
    const char *source;   /* where the weights come from ("random: seed 42 ...", "model gpt2/") */
    const char *trace;    /* the trace as printed (no ANSI colour), or NULL */
    int cmap;             /* av_cmap of the weights, as --cmap */
    float vmax;           /* top of the weights' colour range, as the figures' (--vmax F); 0 = 1 */
    float auto_pct;       /* > 0: the top is this percentile of the visible weights each map draws
                           * (--vmax auto, and the default past AV_AUTO_VMAX_T tokens); vmax unused */
    int log_scale;        /* 1: weights coloured by log10 over [top / 1000, top] (--log-scale) */
    int vmax_named;       /* the colour bar names the range as the figures' do: 1 --vmax fixed ("fixed
                           * 0–1"), 2 --vmax F ("0–F, --vmax", F = 1 too); 0 the default fixed 0..1 */
    int precision;        /* digits after the point in the views, 0..10 (--precision); 4 when negative */
    const av_html_run *runs;
    int n_runs;           /* 1.. (--compare: one per variant, same T) */
    size_t max_bytes;     /* size limit; 0 = AV_HTML_MAX_BYTES */
    const char *run;      /* the run's id (hex digits), in <meta name="attnviz-run">, or NULL; with
                           * <meta name="generator" content="attnviz VERSION"> it tells a later
                           * run that attnviz wrote the page (app/figures.h) */
    int has_start;        /* 1: the page opens on start_head (0..H-1, or -1: head 0) and, when
                           * start_query and start_key are 0..T-1, on that cell's cell view: the
                           * head and cell --head and --explain walked through (a teacher's pass:
                           * the page opened on head 0, cell 0, 0); 0: the defaults */
    int start_head, start_query, start_key;
} av_html_page;

/* Write the page to path atomically (io/fileio.h). Errors: AV_EUSAGE for an
 * empty or inconsistent description (no runs, a size < 1, a NULL array);
 * AV_ERUNTIME naming path for out of memory or a failed write. */
av_status av_html_write(const char *path, const av_html_page *page, av_err *err);

/* The byte size of the numbers and masks av_html_write stores for page
 * (after the size limit), and *mode = 0 (float32), 1 (8-bit), 2 (8-bit,
 * panels cut). */
size_t av_html_data_bytes(const av_html_page *page, int *mode);

/* The bytes of the (T, T) masks the page stores, counted in its size limit:
 * T·T for each run whose mask hides a cell, 0 for the others. */
size_t av_html_mask_bytes(const av_html_page *page);

/* The (layer, head) panels whose weights and scores the page keeps after
 * the size limit, over all runs; *total receives how many there are and
 * *mode how they are stored, as av_html_data_bytes gives it. 0 with *total
 * and *mode 0 for an inconsistent page (n_runs outside 1..64). */
size_t av_html_panels_kept(const av_html_page *page, size_t *total, int *mode);

#endif
