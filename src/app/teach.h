/* teach.h - teaching mode: the numbers behind one cell, terminal heat-maps,
 * ablations and comparisons, for a teacher answering questions live.
 * Legend: T tokens, C = d_model, H heads, D = d_k.
 *
 *   av_explain        walk through one (query, key) cell of one head with the
 *                     real numbers: q, k, q·k, ÷√d_k, the row's softmax, and
 *                     this key's contribution weight × v_j. Values printed
 *                     are the stored float32 tensors (what --dump writes).
 *   av_term_heatmap   one head's weights drawn in the terminal: colour blocks
 *                     (truecolour or 256 colours) or a plain numeric table.
 *   av_row_stats      per-row max weight and entropy (softmax saturation).
 *   av_shift_check    RoPE's relative-position evidence: shift every position
 *                     by k and measure how much the scores move, for RoPE and
 *                     for sinusoidal PE, on the same X and W.
 *   av_compare        rerun the same sentence and weights under each setting
 *                     of scale / positions / rope-style / word order.
 *
 * Non-goals: animation, interactive input.
 */
#ifndef AV_TEACH_H
#define AV_TEACH_H

#include <stdio.h>

#include "app/compare.h"
#include "nn/model.h"
#include "render/plot.h"
#include "text/tokenize.h"

/* Resolve "QUERY,KEY" (each a 0-based token index or a token's text, first
 * occurrence) against toks. Errors: AV_EUSAGE naming the part that matches
 * no token or is out of range 0..T-1. */
av_status av_explain_parse(const char *spec, const av_tokens *toks, int *qi, int *kj, av_err *err);

/* Print the walk-through of cell (qi, kj) of head h to f. color: ANSI on/off.
 * precision: digits for the component lists. */
void av_explain(FILE *f, const av_model *m, const av_tokens *toks, int h, int qi, int kj, int precision,
                int color);

/* Colour modes for the terminal heat-map. */
typedef enum { AV_TERM_PLAIN, AV_TERM_256, AV_TERM_TRUECOLOR } av_term_mode;

/* Draw head h's (T, T) weights: rows = queries, columns = keys (numbered,
 * with a key legend), masked cells as "·"/"-∞". Fits `width` columns: with
 * many tokens the cells shrink, then only the first keys/queries that fit
 * are drawn with a note saying how many were left out. */
void av_term_heatmap(FILE *f, const av_model *m, const av_tokens *toks, int h, av_term_mode mode, int width);

/* Per-row statistics of head h's weights (rows not fully masked):
 * max_w[i] = max_j A[h,i,j], ent[i] = −Σ_j A log A in nats (0 for a one-hot
 * row, log(visible keys) for a uniform one). Arrays have T entries; fully
 * masked rows get max_w = 0, ent = 0. */
void av_row_stats(const av_model *m, int h, double *max_w, double *ent);

/* Print per-head row statistics and a verdict line when rows are near
 * one-hot (max weight > 0.9 in at least half of the rows). */
void av_print_saturation(FILE *f, const av_model *m, int color);

/* The shift the trace uses for the RoPE evidence line. */
#define AV_SHIFT_K 100

/* Max |ΔS| over all heads and cells when every position is shifted by k,
 * recomputed from m->X and m->W_*: *d_rope with RoPE (m's style and base),
 * *d_sin with sinusoidal PE added to X. Errors: AV_ERUNTIME on OOM. */
av_status av_shift_check(const av_model *m, int k, double *d_rope, double *d_sin, av_err *err);

/* Run m's sentence and weights under each setting of kind, print a summary
 * (mean max weight, mean entropy, max |ΔA| against the first setting), and,
 * when fig_path is not NULL, write a side-by-side figure of head h there
 * (not for AV_CMP_ORDER, whose panels have different labels).
 * For AV_CMP_ORDER the first and last tokens are swapped (T >= 2) and the
 * check is max |A'[π(i), π(j)] − A[i, j]|, for positions none, sinusoidal and
 * RoPE. Errors: AV_ERUNTIME on OOM or a failed write, AV_EUSAGE for T < 2
 * with order. */
av_status av_compare(FILE *f, const av_model *m, const av_tokens *toks, av_compare_kind kind, int h,
                     const char *fig_path, const av_plot_meta *meta, int color, av_err *err);

#endif
