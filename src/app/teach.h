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
 * --compare lives in compare.h.
 *
 * Non-goals: animation, interactive input.
 */
#ifndef AV_TEACH_H
#define AV_TEACH_H

#include <stdio.h>

#include "app/term.h"
#include "nn/model.h"
#include "render/plot.h"
#include "text/tokenize.h"

/* Resolve "QUERY,KEY" (each a 0-based token index or a token's text, first
 * occurrence) against toks, split at the first ',' or '，' (U+FF0C) with
 * text before it, so a comma token is named by its text on either side
 * ("，,好" and "好,，" on 你好，世界) or by its index. A label draws a token's space as ␣, so a part's
 * spaces are read as ␣ first (" 5" and "␣5" find "␣5"); else a whole number
 * is an index (a note on stderr names a token whose text is that number,
 * with or without its ␣, and how to pick it); else the text as typed, then
 * with ␣ in front ("love" finds "␣love"; a note names the ␣, and a text
 * that occurs more than once); separators around a part (where the
 * tokenizer splits words, base/utf8.h av_utf8_is_separator: ' ', U+3000,
 * U+00A0, a tab) are left out when nothing else matches. The notes are
 * printed only when the whole spec resolved: a spec that fails gets its
 * error alone. Errors: AV_EUSAGE naming
 * the part that matches no token (with the tokens a text spans, as typed or
 * with ␣) or is out of range 0..T-1, or a spec that is not QUERY,KEY; the
 * spec or part is quoted at most 80 columns long, cut at a whole character
 * with "…", so the message's hint fits in err. */
av_status av_explain_parse(const char *spec, const av_tokens *toks, int *qi, int *kj, av_err *err);

/* av_explain_parse without its notes on stderr (and without an error text: AV_EUSAGE alone), for a second
 * reader of a spec the run already resolved and reported: the --html page (app/page.c) opens on the cell, and
 * printed each note a second time ("'love' occurs 2 times" twice for `--explain love,0 --html`). */
av_status av_explain_locate(const char *spec, const av_tokens *toks, int *qi, int *kj);

/* The form of an --explain spec alone, before there are tokens to resolve it
 * against: a ',' or '，' (U+FF0C) with a part on each side. cli.c checks it
 * while it reads the options, so a sentence that --explain took as its value
 * (`--explain "3 1 4 1 5 >"` with no text after it) gets this error, naming
 * the value, and not "no input text given". A spec with two or more
 * separators passes: which one splits it, and whether a part names a comma
 * token, needs the tokens (av_explain_parse). spec: NUL-terminated UTF-8;
 * may_be_text: 1 when spec is the last argument, perhaps the sentence itself,
 * so a space that splits it in two ("I love") is not named as typed for the
 * comma, as it is otherwise ("爱　习", U+3000 or ' ').
 * toks: the sentence's tokens when known (NULL: not), for the message's
 * e.g., which names two of them ("1,3 or 爱,度" on 我爱深度学习).
 * Errors: AV_EUSAGE with av_explain_parse's message for a spec that has no
 * separator, or one with nothing on a side (the spec quoted at most 80
 * columns, as there). */
av_status av_explain_check_form(const char *spec, int may_be_text, const av_tokens *toks, av_err *err);

/* Print the walk-through of cell (qi, kj) of head h to f. color: ANSI on/off.
 * precision: digits after the point of the vectors (q, k, v, the products and
 * partial sums; a partial sum that is not 0 but would print as 0 takes more,
 * or scientific notation below 1e-4); the softmax table (S, S − max, exp, A) and the weight's line
 * take max(6, precision), so --precision 7..10 reaches them too. dumped: 1
 * when --dump writes the run's files, and then the score and the weight name
 * where they are kept ("(= scores.npy[h, i, j])", a --model's
 * "(= attn.npy[L, h, i, j])"); 0 names no file. Its first line is the
 * "--explain: ..." title: the caller sets it off from what f had before. A
 * --pad-to <pad> query (qi >= n_real) ends with a note that the key padding
 * mask hides <pad> keys only and that its row's output is ignored later. */
void av_explain(FILE *f, const av_model *m, const av_tokens *toks, int h, int qi, int kj, int precision,
                int color, int dumped);

/* Draw head h's (T, T) weights: rows = queries, columns = keys (numbered,
 * with a key legend), masked cells as "·"/"-∞". In a colour mode each cell's
 * background is its weight in cmap over 0..1, as the figures colour it
 * (--cmap); AV_TERM_PLAIN prints the numbers only. Fits `width` columns: with
 * many tokens the cells shrink, then only the first keys/queries that fit
 * are drawn, with a line under the table naming the ones left out and why;
 * when not even one key fits, a note instead of the table. The title, the
 * notes and the legends fit `width` too: broken at spaces, each line after
 * the first indented by two spaces, and a key too long for a line cut with
 * "…" (only a word wider than the whole width stays wider). No line ends in
 * a space: the header stops at its last index, a plain row at its last
 * number or "·" (a colour cell keeps its padding, inside its colour). The
 * first line is the "head h of H" title (no blank line before it: the
 * caller's). */
void av_term_heatmap(FILE *f, const av_model *m, const av_tokens *toks, int h, av_term_mode mode, av_cmap cmap,
                     int width);

/* Per-row statistics of head h's weights (rows not fully masked):
 * max_w[i] = max_j A[h,i,j], ent[i] = −Σ_j A log A in nats (0 for a one-hot
 * row, log(visible keys) for a uniform one). Arrays have T entries; fully
 * masked rows get max_w = 0, ent = 0. */
void av_row_stats(const av_model *m, int h, double *max_w, double *ent);

/* Print per-head row statistics (rows 0..7 of heads 0..7 in order, "max/entropy"
 * each, "—" for a row with every key masked) and a verdict line: saturated when rows are
 * near one-hot (max weight > 0.9 in at least half of the rows). Only rows
 * that see two or more keys are judged: a row with one visible key (query 0
 * under a causal mask, a 1-token input) has weight 1 whatever its scores,
 * and counting it called a causal run saturated (7 of 12 rows, where 3 of
 * the 8 rows with a choice are). */
void av_print_saturation(FILE *f, const av_model *m, int color);

/* The shift the trace uses for the RoPE evidence line. */
#define AV_SHIFT_K 100

#define AV_SHIFT_TOKENS 64 /* av_shift_check looks at the first this many tokens */

/* Max |ΔS| over all heads and cells of the first min(T, AV_SHIFT_TOKENS)
 * tokens (the property holds on any prefix; long inputs stay cheap) when
 * every position is shifted by k, recomputed from m->X and m->W_*: *d_rope
 * with RoPE (m's style and base), *d_sin with sinusoidal PE added to X;
 * S scaled as the run is (÷√d_k, or raw Q·Kᵀ with --no-scale).
 * Errors: AV_ERUNTIME on OOM. */
av_status av_shift_check(const av_model *m, int k, double *d_rope, double *d_sin, av_err *err);

#endif
