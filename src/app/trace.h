/* trace.h - the step-by-step explanation printed on stdout.
 *
 * One numbered line per stage with its name, formula and real shapes
 * ("(4, 512)·(512, 512) → (4, 512)"), followed by the measured checks
 * (variances, row sums, masked counts). With verbose, the small matrices are
 * printed numpy-style (edge items, "..." for the middle) with `precision`
 * digits after the point. Colour (bold stage names, green checks) only when
 * the caller says so.
 */
#ifndef AV_TRACE_H
#define AV_TRACE_H

#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/gpt2run.h"
#include "app/tensorio.h"
#include "nn/model.h"
#include "text/tokenize.h"

typedef struct {
    FILE *f;
    int color;     /* ANSI colour on */
    int verbose;   /* print matrices */
    int precision; /* digits after the point for matrices */
    int in_file;   /* written into a file (the --html page): the kernel line leaves out the thread count, which
                    * changes with the machine's CPUs, not the numbers, so the same command gives the same page */
    int kernel_auto;         /* 1: --kernel auto chose the kernel, and its line says why */
    const char *kernel_needs;/* with kernel_auto: what needs the (H, T, T) weights (av_options_weights_needed_by),
                              * or NULL */
} av_trace;

/* Print the header and every stage of a finished forward pass. toks has m->cfg.T
 * entries; ws says where X and W came from (the header's "weights" line,
 * with what random weights can and cannot show). */
void av_trace_print(const av_trace *tr, const av_model *m, const av_tokens *toks, const av_weights_source *ws);

/* numpy-style print of a (rows, cols) matrix: at most 3 edge rows/columns when
 * larger than 8, −inf shown where masked[i*cols+j] is set (masked may be NULL).
 * precision digits after the point; as numpy (np.set_printoptions(precision=P,
 * suppress=True)) the whole matrix switches to scientific notation (3.0000e+12,
 * -2.5000e-09) when its largest shown finite |value| is ≥ 1e8, and every entry
 * is right-aligned to the widest one so the columns line up. */
void av_print_matrix(FILE *f, const char *name, const float *a, int rows, int cols, int precision,
                     const unsigned char *masked);

/* numpy's choice of notation for one printed array (numpy's array printing with
 * np.set_printoptions(precision=P, suppress=True), numpy/core/arrayprint.py's
 * FloatingFormat): 1 = scientific for every entry when largest, the largest
 * finite |value| the array shows, is ≥ 1e8, or when it is above 0 but below
 * 1e-4 (numpy's threshold for small numbers, which suppress=True leaves out;
 * fixed point would print [ 0.0000 0.0000 …]); 0 = fixed point otherwise,
 * however small its smallest nonzero entry (suppress=True), with
 * av_numpy_digits digits. av_print_matrix and --explain's vectors, partial sums
 * and softmax table decide with it.
 * Inline, as is av_format_number: teach.c uses both, and the options fuzzer
 * (tests/fuzz/fuzz_args.c) links teach.c without trace.c. */
static inline int av_numpy_sci(double largest) {
    if (largest >= 1e8) return 1;
    if (!(largest > 0)) return 0;
    return largest < 1e-4;
}

/* The digits after the point of a fixed-point array (av_numpy_sci 0) whose
 * largest finite |value| is largest: precision, or more when largest would
 * round to 0 with precision digits, the fewest that show its first
 * significant digit (at most 4, as largest ≥ 1e-4 in fixed point):
 * --precision 0 printed A·v_0 of [-0.0247 -0.1401 …] as [-0 -0 …] and then
 * switched it to [-2e-02 -1e-01 …] under a fixed-point v_0, where numpy's
 * suppress=True keeps fixed point; now [-0.0 -0.1 …]. */
static inline int av_numpy_digits(double largest, int precision) {
    char fixed[64];
    if (!(largest >= 1e-4) || largest >= 1e8) return precision;
    for (;; precision++) {
        snprintf(fixed, sizeof fixed, "%.*f", precision, largest);
        if (strspn(fixed, "0.") < strlen(fixed)) return precision;
    }
}

/* v with precision digits after the point and a space for its sign when
 * positive: "% .*f" (fixed, sci 0) or "% .*e" (scientific, sci 1, e.g.
 * " 3.0000e+12"). A number that prints as zero takes no minus sign: -0.0,
 * and -0.02 with 1 digit, print " 0.0" (C's and numpy's "-0.0" read as a
 * negative number that is not there). Writes at most n bytes to buf
 * (snprintf); returns the length the whole number takes. */
static inline int av_format_number(char *buf, size_t n, double v, int precision, int sci) {
    int len = snprintf(buf, n, sci ? "% .*e" : "% .*f", precision, v);
    if (n > 1 && buf[0] == '-' && !sci && strspn(buf + 1, "0.") == strlen(buf + 1)) buf[0] = ' ';
    if (n > 1 && buf[0] == '-' && sci && v == 0) buf[0] = ' ';
    return len;
}

/* "rows" rows of the (H, T, T) weights, said so that the count is read right: "1 row", "3 rows" with one head;
 * "8 rows (1 query × 8 heads)" with more, as the mask, and so a row's visible keys, is the same in every head
 * (rows a multiple of H). kind goes before "row": "<pad> query " gives "8 <pad> query rows (2 queries × 4 heads)".
 * With 8 heads and query 0 fully masked the trace said "8 rows, counted over all heads, have every key masked"
 * and "8 rows with one visible key left out" for one query (a learner's pass). Writes at most n bytes to buf
 * (snprintf); returns buf. Inline: teach.c uses it and the options fuzzer links teach.c without trace.c. */
static inline const char *av_rows_phrase(char *buf, size_t n, int rows, int H, const char *kind) {
    int q = H > 0 ? rows / H : rows;
    if (H <= 1 || rows % H)
        snprintf(buf, n, "%d %srow%s", rows, kind, rows == 1 ? "" : "s");
    else
        snprintf(buf, n, "%d %srow%s (%d quer%s × %d heads)", rows, kind, rows == 1 ? "" : "s", q, q == 1 ? "y" : "ies",
                 H);
    return buf;
}

/* Short mask description used in the trace and in figure titles, e.g.
 * "none", "causal", "key padding (2 <pad>)", "causal + key padding (2 <pad>)";
 * with has_user_mask, " + attn_mask file" after them, naming file (the
 * --attn-mask argument, or NULL for none) by its last part, as
 * av_utf8_shown_name shows it; a part over 50 bytes by its first and last
 * 24 bytes or fewer (whole characters), each shown so, with "…" between:
 * "causal + attn_mask file band.npy", "attn_mask from standard input" for
 * "-". The trace passes NULL (its header names no file either). */
void av_mask_desc(char *buf, size_t n, const av_config *c, int has_user_mask, const char *file);

/* Positions as figure titles and the page name them: "none", "sinusoidal",
 * "RoPE (interleaved)", "RoPE (half)". */
void av_positions_desc(char *buf, size_t n, const av_config *c);
/* Positions as a figure title, the page and a --compare figure name them:
 * av_positions_desc, with RoPE's base on the single layer (model_layer 0)
 * when --rope-base is not the default 10000: "RoPE (interleaved, base
 * 100)". A --model's layer (model_layer > 0) names θ in the model's
 * description instead. */
void av_positions_title(char *buf, size_t n, const av_config *c, int model_layer);

/* The heads a figure title or the trace names, by H (>= 1): "the one head",
 * "both heads", "all 8 heads" ("all 1 heads" and "all 2 heads" read oddly). */
void av_heads_phrase(char *buf, size_t n, int H);

/* A trace's tokens line shows every token, or past AV_TRACE_ELIDE_PAST the first AV_TRACE_ELIDE_HEAD and the
 * last AV_TRACE_ELIDE_TAIL around "… (n more) …" (a 3000-token --file printed a 30 KB line; the figures and
 * --dump have all); the --model trace's ids line too. */
enum { AV_TRACE_ELIDE_PAST = 64, AV_TRACE_ELIDE_HEAD = 48, AV_TRACE_ELIDE_TAIL = 8 };
/* The tokens as "[I] [love] ..." on f, elided as above, with no newline. */
void av_trace_print_tokens(FILE *f, const av_tokens *toks);

/* teach.h's av_explain_parse of o->explain against toks (the input's tokens), and with --model --generate an index
 * past the input gets why ("; --explain reads the input's forward pass, not the --generate tokens ..."). For
 * av_trace_sinks and for gpt2run.c, which refuses a spec that resolves no cell before the forward pass. o->explain
 * must be set. Errors: av_explain_parse's (AV_EUSAGE). */
av_status av_explain_parse_input(const av_options *o, const av_tokens *toks, int *qi, int *kj, av_err *err);

/* Sink 1, on f before any file is written: the trace (this file's, or
 * gpt2run.h's with --model; not with -q, which prints in its place, before
 * --explain or --show, the line "weights: " ws->text, e.g. "weights: random
 * weights (untrained, seed 42)"), --explain Q,K (teach.h), --show's
 * terminal heat maps (term.h; only --head's when given) and a
 * model's --generate, then a flush; a blank line between two parts, none
 * before the first (under -q the first line is --explain's, a heat map's title
 * or the continuation's). gr is unused without --model; with
 * --html its generated gets a copy of the continuation's lines. Errors:
 * --explain's parse (AV_EUSAGE), --generate's, f failing (AV_ERUNTIME
 * naming what f held: "cannot write the continuation to standard output"
 * under -q --generate, "the trace and the continuation" without -q). */
av_status av_trace_sinks(FILE *f, const av_options *o, av_gpt2run *gr, const av_model *m,
                         const av_tokens *toks, const av_weights_source *ws, int color, av_err *err);

/* 1 when av_trace_sinks prints something on f for o (the trace, --explain,
 * --show or a model's --generate), so what follows on standard output (the
 * --compare table) is set off by a blank line; 0 under -q with none of them. */
int av_trace_sinks_print(const av_options *o);

#endif
