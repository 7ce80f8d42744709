/* compare.h - --compare: rerun the same sentence, X and weights under each
 * setting of one choice, then print a table and draw a figure from the
 * same runs. Legend: T tokens, H heads, D = d_k.
 *
 *   scale       scaled ÷√d_k vs no scale
 *   positions   none vs sinusoidal vs RoPE (RoPE only with an even d_k: with
 *               an odd one it is left out and left_out says why)
 *   rope-style  RoPE interleaved (2i, 2i+1) vs half (i, i + d_k/2)
 *   order       swap the first and last real tokens and check that, without
 *               positions, the weights only permute: max over heads, i, j of
 *               |A'[π(i), π(j)] − A[i, j]| for positions none, sinusoidal, RoPE
 *
 * av_compare_run computes, av_compare_print writes the table, av_compare_plot
 * draws head h of every setting side by side (for order: the map
 * |A'[π(i), π(j)] − A[i, j]| of head h per positions kind, which is 0
 * everywhere when the weights only permute); so every output format uses
 * the same runs.
 */
#ifndef AV_COMPARE_H
#define AV_COMPARE_H

#include <math.h>
#include <stdio.h>

#include "nn/model.h"
#include "render/plot.h"
#include "text/tokenize.h"

/* AV_CMP_NORM (Pre-LN vs Post-LN) exists only for --train (app/train.h): one layer has no LayerNorm. */
typedef enum { AV_CMP_NONE = 0, AV_CMP_SCALE, AV_CMP_POSITIONS, AV_CMP_ROPE_STYLE, AV_CMP_ORDER, AV_CMP_NORM } av_compare_kind;

/* The one table of --compare names, indexed by av_compare_kind: the option
 * parser, the table heading and the figure name (compare_<name>.png) read it. */
static inline const char *av_compare_name(int k) {
    static const char *const names[] = {"none", "scale", "positions", "rope-style", "order", "norm"};
    return k >= AV_CMP_NONE && k <= AV_CMP_NORM ? names[k] : "?";
}

#define AV_CMP_MAX_SETTINGS 3
/* The kernels agree within 1e-5 (nn/attention.h): an order difference up to
 * this with the blas kernel is float32 rounding, not position. */
#define AV_CMP_ROUNDING 1e-5

typedef struct {
    av_compare_kind kind;
    int n;                                 /* settings compared, 2 or 3 */
    int H;                                 /* heads of the model compared */
    int model_layer;                       /* 0: the single layer; L + 1: layer L of a --model (av_model's) */
    int n_real;                            /* the sentence's tokens, without <pad>: the query rows that
                                            * max |ΔA| and order's check read (a <pad> row is ignored later) */
    char shared[320];                      /* what every setting shares, as the other figures' titles say it:
                                            * "positions: RoPE (half) · mask: causal" (scale), "positions: none
                                            * vs sinusoidal vs RoPE (half) · mask: none · no scale" (positions,
                                            * order: the mask it ran with), "mask: causal" (rope-style) */
    char names[AV_CMP_MAX_SETTINGS][64];   /* "scaled ÷√d_k", "RoPE", "RoPE half", ... */
    int own;                               /* the setting a --model runs with as trained (scale: its config.json's),
                                            * whose panel title says "(the model's own)"; -1 = none (a single
                                            * layer's settings are all the user's to pick) */
    av_model runs[AV_CMP_MAX_SETTINGS];    /* one forward pass per setting (order: per positions kind, the
                                            * input as given, kept only when av_compare_run's keep_runs) */
    /* order only */
    int last;                                /* the token swapped with token 0 */
    av_positions order_pos[AV_CMP_MAX_SETTINGS];
    double order_diff[AV_CMP_MAX_SETTINGS];  /* max |A'[π(i), π(j)] − A[i, j]| per positions */
    float *order_delta[AV_CMP_MAX_SETTINGS]; /* (H, T, T) |A'[π(i), π(j)] − A[i, j]| per positions */
    av_model order_swapped[AV_CMP_MAX_SETTINGS]; /* per positions, the run on the swapped input (rows of X
                                                  * 0 and last exchanged), kept only with keep_runs */
    int order_dropped_mask;                  /* m had a causal mask or --attn-mask: run without it */
    av_kernel order_kernel;                  /* the kernel the runs used: reference sums in double and
                                              * permutes exactly; blas reorders its float32 sums, so a pure
                                              * permutation differs by up to AV_CMP_ROUNDING */
    /* positions and order: "" or why RoPE is not among the settings
     * ("RoPE needs an even d_k; d_k = d_model / heads = 10 / 2 = 5") */
    char left_out[96];
} av_comparison;

/* With an odd d_k = d_model / heads, RoPE (which rotates pairs of
 * dimensions) is left out of a positions comparison: out (n bytes, at least
 * 96) = "RoPE needs an even d_k; d_k = d_model / heads = 10 / 2 = 5" and 1;
 * else out = "" and 0. For --compare positions/order and --train --compare. */
int av_compare_rope_left_out(char *out, size_t n, int d_model, int heads);

/* How many (H, T, T) float arrays (4·H·T·T bytes each) are held at once
 * while av_compare_run compares kind with keep_runs: the run compared, as
 * main keeps it (its scores and weights, 2), and per setting kept in c->runs
 * 2 more: 6 for scale and rope-style, 8 for positions (6 with an odd d_k =
 * d_model / heads, RoPE left out). order runs, per positions kind (3, or 2
 * with that odd d_k), the sentence as given and swapped (2 runs, 4 arrays)
 * and keeps their (H, T, T) difference: without keep_runs one kind's runs
 * at a time and every kind's difference, 2 + 4 + 3 = 9 (8); with keep_runs
 * (--html) every kind's runs too, 2 + 5·3 = 17 (12). 2 for none. For the
 * weights budget (cli.c, AV_MAX_WEIGHT_BYTES). */
static inline int av_compare_arrays_held(av_compare_kind kind, int d_model, int heads, int keep_runs) {
    /* inline: cli.c's weights check needs it, and the options fuzzer (tests/fuzz/fuzz_args.c) links cli.c
     * without compare.c; an odd d_k leaves RoPE out as av_compare_rope_left_out says */
    int kinds = (d_model / heads) % 2 ? 2 : 3;
    if (kind == AV_CMP_SCALE || kind == AV_CMP_ROPE_STYLE) return 6;
    if (kind == AV_CMP_POSITIONS) return 2 + 2 * kinds;
    if (kind == AV_CMP_ORDER) return keep_runs ? 2 + 5 * kinds : 2 + 4 + kinds; /* run_order in compare.c */
    return 2;
}

/* The most tokens T whose `arrays` (H, T, T) float arrays held at once fit in
 * limit bytes: the largest T with 4·arrays·H·T² <= limit, ⌊√(limit /
 * (4·arrays·H))⌋ with sqrt's rounding corrected either way (AV_MAX_WEIGHT_BYTES
 * at 2 arrays: 5792 at 8 heads, 16384 at 1). For the messages of cli.c's
 * weights check and gpt2run.c's model check; inline for the options fuzzer,
 * as above. */
static inline int av_most_tokens_held(int heads, int arrays, double limit) {
    double per = 4.0 * heads * arrays;
    int t = (int)floor(sqrt(limit / per));
    while (per * (double)(t + 1) * (t + 1) <= limit) t++;
    while (per * (double)t * t > limit) t--;
    return t;
}

/* Run m's X and weights under each setting of kind into *c (zeroed first;
 * free with av_compare_free, also after an error). keep_runs: order also
 * keeps its forward passes, the input as given in c->runs and the swapped
 * one in c->order_swapped, per positions kind (for the --html page; without
 * it only the (H, T, T) differences are kept, a third of the memory).
 * Errors: AV_EUSAGE for order with fewer than 2 real tokens and for
 * rope-style with an odd d_k, AV_ERUNTIME on out of memory. */
av_status av_compare_run(av_comparison *c, const av_model *m, av_compare_kind kind, int keep_runs, av_err *err);

/* Print the comparison: per setting the mean max weight, mean entropy (nats)
 * over the real query rows of every head, and max |ΔA| over those rows
 * against the first setting; for order, the permutation check per positions; and a line
 * saying why RoPE is left out if it is. The first line is the "--compare
 * KIND" title (no blank line before it: the caller's, after a trace). */
void av_compare_print(FILE *f, const av_comparison *c, const av_tokens *toks, int color);

/* Draw head h of every setting side by side into path (.png or .svg, by
 * meta); for order the difference maps, on a 0..max colour scale, labelled
 * with the original token order. context ("“sentence” · random weights
 * (untrained, seed 42)", or NULL) starts the title; "head h of H" and
 * c->shared follow. The panel of c->own, the setting a --model runs with,
 * is titled "<name> (the model's own)". Errors: those of av_plot_grid. */
av_status av_compare_plot(const char *path, const av_comparison *c, const av_tokens *toks, int h,
                          const char *context, const av_plot_meta *meta, av_err *err);

/* 1 if kind has a figure (every kind: scale, positions, rope-style, order). */
int av_compare_has_figure(av_compare_kind kind);

/* Free what av_compare_run allocated in c and leave it empty (n = 0), so a
 * second call is harmless; also after av_compare_run failed, and on a zeroed c. */
void av_compare_free(av_comparison *c);

#endif
