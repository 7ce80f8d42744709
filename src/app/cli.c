/* cli.c - getopt_long parsing and the --help text, from one table (kOpts).
 *
 * The parser is a loop: getopt_long finds the row, the row's kind says how
 * its argument is read, the row's offset says which av_options field gets it.
 * The same rows print --help. */
#include "app/cli.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/compare.h"
#include "app/teach.h"
#include "app/term.h"
#include "app/train.h"
#include "base/utf8.h"
#include "io/fileio.h"
#include "io/npy.h"
#include "nn/gpt2.h"
#include "nn/model.h"
#include "nn/optim.h"
#include "nn/tasks.h"
#include "nn/train.h"
#include "render/colormap.h"
#include "render/plot.h"

/* How a row's argument is read and stored. */
typedef enum {
    OPT_FLAG,   /* no argument: the int field becomes 1 */
    OPT_INT,    /* whole number in lo..hi into an int field */
    OPT_U64,    /* whole number in lo..hi into a uint64_t field */
    OPT_DOUBLE, /* finite number in min..max into a double field (min excluded with `open`) */
    OPT_STRING, /* the argument itself (it points into argv) into a const char * field */
    OPT_CHOICE, /* one of name(lo) .. name(hi) into an int (or enum) field: the value */
    OPT_CALL,   /* parse(o, arg, err) does it (lists, several fields) */
} opt_kind;

typedef struct {
    const char *name; /* long name, without the dashes */
    char short_name;  /* 'd' for -d, or 0 */
    opt_kind kind;
    size_t offset;                    /* offsetof(av_options, field) */
    long long lo, hi;                 /* OPT_INT, OPT_U64: range; OPT_CHOICE: first and last value */
    int range_later;                  /* OPT_INT: a value outside lo..hi is refused later, by a rule that knows
                                         the range in use (--head: the layer's or the model's heads); one past an
                                         int is kept as INT_MIN or INT_MAX for it */
    const char *later;                /* OPT_INT: the range in use, in words, that messages name instead of
                                         lo..hi when another option bounds it ("0..H-1, ...", "0..--steps") */
    double min, max;                  /* OPT_DOUBLE: range (max may be INFINITY) */
    int open;                         /* OPT_DOUBLE: min itself is not allowed */
    const char *(*choice_name)(int);  /* OPT_CHOICE: name of each value lo..hi */
    const char *noun;                 /* OPT_CHOICE: "'x' is not a <noun>" (default "'x' is not allowed") */
    const char *allowed;              /* OPT_CHOICE: the names a bad value's message offers, when some need another
                                         option (default: every name, "a, b or c") */
    const char *if_empty;             /* OPT_STRING: "" is an error, and this is what to give instead */
    const char *one_line;             /* OPT_STRING: drawn text, so valid UTF-8 without a control character or
                                         line break; "a <one_line> is one line of text" says why */
    av_status (*parse)(av_options *o, const char *arg, av_err *err); /* OPT_CALL */
    const char *arg;                  /* metavariable for --help, or NULL for no argument */
    const char *help;
} optdef;

static av_status parse_figures(av_options *o, const char *s, av_err *err);
static av_status read_figures(av_options *o, const char *s, int ctx, av_err *err);
static av_status parse_vmax(av_options *o, const char *s, av_err *err);
static av_status parse_prefix(av_options *o, const char *s, av_err *err);
static av_status parse_layer(av_options *o, const char *s, av_err *err);
static const char *cmap_name(int c) { return av_cmap_name((av_cmap)c); }
static const char *task_name(int k) { return av_task_name((av_task_kind)k); }
static const char *norm_name(int n) { return n == AV_NORM_POST ? "post" : "pre"; }
static const char *schedule_name(int s) { return av_schedule_name((av_schedule)s); }
static const char *kernel_choice_name(int k) { return k == AV_KERNEL_AUTO ? "auto" : av_kernel_name(k - 1); }
static const char *pool_name(int p) { return p == AV_POOL_MAX ? "max" : p == AV_POOL_MEAN ? "mean" : "?"; }

#define AT(field) offsetof(av_options, field)

/* OPT_CHOICE stores through an int *: every enum field it fills is int-sized. */
_Static_assert(sizeof(av_positions) == sizeof(int) && sizeof(av_rope_style) == sizeof(int) &&
                   sizeof(av_color) == sizeof(int) && sizeof(av_format) == sizeof(int),
               "choice fields are int-sized");

/* The one usage table: parser and --help both come from here, in this order. */
static const optdef kOpts[] = {
    {"d-model", 'd', OPT_INT, AT(d_model), .lo = 1, .hi = AV_MAX_D_MODEL, .arg = "N",
     .help = "model width d_model (default 512, the paper's base model; with --train 64; 1..4096)"},
    {"heads", 'H', OPT_INT, AT(heads), .lo = 1, .hi = AV_MAX_HEADS, .arg = "N",
     .help = "number of heads H; must divide d_model, d_k = d_model/H (default 1; with --train 4; 1..64)"},
    {"seed", 's', OPT_U64, AT(seed), .lo = 0, .hi = INT64_MAX, .arg = "N",
     .help = "seed for embeddings and weights (default 42; 0..9223372036854775807); same seed, same numbers"},
    {"positions", 'p', OPT_CHOICE, AT(positions), .lo = AV_POS_NONE, .hi = AV_POS_LEARNED,
     .choice_name = av_positions_name, .arg = "KIND",
     .allowed = "none, sinusoidal or rope; with --train: learned, sinusoidal or rope",
     .help = "none | sinusoidal | rope (default sinusoidal); with --train: learned (default) | sinusoidal | rope"},
    {"rope-style", 0, OPT_CHOICE, AT(rope_style), .lo = AV_ROPE_INTERLEAVED, .hi = AV_ROPE_HALF,
     .choice_name = av_rope_style_name, .arg = "S",
     .help = "interleaved (RoFormer, LLaMA; default) | half (GPT-NeoX, HF)"},
    {"rope-base", 0, OPT_DOUBLE, AT(rope_base), .min = 1.0, .max = INFINITY, .open = 1, .arg = "THETA",
     .help = "RoPE base θ (default 10000; > 1)"},
    {"causal", 'c', OPT_FLAG, AT(causal), .help = "causal mask: query i sees keys j <= i"},
    {"pad-to", 0, OPT_INT, AT(pad_to), .lo = 1, .hi = AV_MAX_TOKENS, .arg = "N",
     .help = "append <pad> tokens up to N and mask them as keys (key padding mask; 1..65536, at least the sentence's tokens)"},
    {"attn-mask", 0, OPT_STRING, AT(attn_mask), .arg = "FILE",
     .help = "extra (T, T) bool .npy mask, True = masked (PyTorch attn_mask)"},
    {"no-scale", 0, OPT_FLAG, AT(no_scale), .help = "skip the ÷√d_k, to watch softmax saturate"},
    {"outdir", 'o', OPT_STRING, AT(outdir), .if_empty = "give a folder name", .arg = "DIR",
     .help = "folder for the figures (default ./attnviz-out, created if missing)"},
    {"title", 0, OPT_STRING, AT(title), .if_empty = "give a title", .one_line = "title", .arg = "TEXT",
     .help = "figure title instead of the quoted sentence (head, weights, positions stay)"},
    {"prefix", 0, OPT_CALL, 0, .parse = parse_prefix, .arg = "NAME",
     .help = "prefix every file name in -o: NAME + head0.png, ..., NAME + attnviz.html"},
    {"no-plot", 0, OPT_FLAG, AT(no_plot), .help = "write no figures"},
    {"kernel", 0, OPT_CHOICE, AT(kernel), .lo = AV_KERNEL_AUTO, .hi = AV_KERNEL_FLASH + 1,
     .choice_name = kernel_choice_name, .allowed = "auto, reference, blas or flash; with --model: auto, reference or blas",
     .arg = "K",
     .help = "auto | reference | blas | flash (default auto: reference up to 64 tokens, blas when weights are drawn, dumped or shown, else flash: no (T, T) matrix)"},
    {"vmax", 0, OPT_CALL, 0, .parse = parse_vmax, .arg = "V",
     .help = "auto | fixed | F: top of the weight colour range; auto = 99th percentile (the default past 32 tokens), fixed = 1 (the default up to 32)"},
    {"log-scale", 0, OPT_FLAG, AT(log_scale), .help = "colour weights by log10, 3 decades below --vmax; figure cells then print no numbers"},
    {"pool", 0, OPT_CHOICE, AT(pool), .lo = AV_POOL_MAX, .hi = AV_POOL_MEAN, .choice_name = pool_name, .arg = "HOW",
     .help = "max (default) | mean: how cells are pooled when tokens outnumber pixels"},
    {"html", 0, OPT_FLAG, AT(html), .help = "also write attnviz.html: the interactive page (one file, works offline)"},
    {"html-limit", 0, OPT_INT, AT(html_limit), .lo = 1, .hi = 1024, .arg = "MIB",
     .help = "--html: MiB of numbers kept as float32; above, 8-bit, then fewer panels (default 16; 1..1024)"},
    {"figures", 0, OPT_CALL, 0, .parse = parse_figures, .arg = "LIST",
     .help = "heads,grid,mean,scores,pe,mask,model or all, comma-separated (default heads, and grid with 2+ heads; with --model: model,grid)"},
    {"format", 0, OPT_CHOICE, AT(format), .lo = AV_FMT_PNG, .hi = AV_FMT_BOTH, .choice_name = av_format_name,
     .arg = "FMT", .help = "png | svg | both (default png); SVG from the same layout"},
    {"cmap", 0, OPT_CHOICE, AT(cmap), .lo = 0, .hi = AV_CMAP_COUNT - 1, .choice_name = cmap_name,
     .noun = "colour map", .arg = "NAME",
     .help = "viridis (default) | magma | inferno | plasma | cividis | gray | RdBu_r"},
    {"dpi", 0, OPT_INT, AT(dpi), .lo = AV_MIN_DPI, .hi = AV_MAX_DPI, .arg = "N",
     .help = "PNG resolution 50..600 (default 100): more pixels, same printed size, up to 6000 px a side"},
    {"scale", 0, OPT_DOUBLE, AT(scale), .min = AV_MIN_SCALE, .max = AV_MAX_SCALE, .arg = "F",
     .help = "multiply every size by F, 0.5..4 (default 1), for slides"},
    {"dump", 0, OPT_STRING, AT(dump_dir), .if_empty = "give a folder name", .arg = "DIR",
     .help = "write every tensor as .npy (float32, C order) into DIR"},
    {"weights", 'w', OPT_STRING, AT(weights_dir), .if_empty = "give a folder name", .arg = "DIR",
     .help = "load X.npy, W_Q.npy, W_K.npy, W_V.npy, W_O.npy found in DIR"},
    {"file", 'f', OPT_STRING, AT(file), .if_empty = "give a file name or '-'", .arg = "FILE",
     .help = "read the sentence from FILE ('-' = standard input)"},
    {"verbose", 'v', OPT_FLAG, AT(verbose), .help = "also print the small matrices (numpy-style, truncated)"},
    {"quiet", 'q', OPT_FLAG, AT(quiet), .help = "no trace (--show, --explain, --compare, --generate still print)"},
    {"precision", 0, OPT_INT, AT(precision), .lo = 0, .hi = 10, .arg = "N",
     .help = "digits after the point with -v, --explain and in the --html page (default 4; 0..10)"},
    {"color", 0, OPT_CHOICE, AT(color), .lo = AV_COLOR_AUTO, .hi = AV_COLOR_NEVER, .choice_name = av_color_name,
     .arg = "WHEN", .help = "auto (TTY, NO_COLOR unset or empty, TERM not dumb; default) | always | never"},
    {"explain", 0, OPT_STRING, AT(explain), .one_line = "QUERY,KEY pair", .arg = "Q,K",
     .help = "walk through one cell: query Q, key K (indices or token text)"},
    {"head", 0, OPT_INT, AT(head), .lo = 0, .hi = AV_MAX_HEADS - 1, .range_later = 1,
     .later = "0..H-1, H the heads in use (--heads, or the --model's n_head, num_attention_heads for Llama and Qwen2)", .arg = "N",
     .help = "head for --explain, --show, the --html page and --compare figures; with --model also drawn alone (default 0)"},
    {"show", 0, OPT_FLAG, AT(show), .help = "draw each head's weights in the terminal (colour on a TTY)"},
    {"compare", 0, OPT_CHOICE, AT(compare), .lo = AV_CMP_SCALE, .hi = AV_CMP_NORM, .choice_name = av_compare_name,
     .allowed = "scale, positions, rope-style or order; with --train: scale, norm or positions; with --model: scale",
     .arg = "WHAT",
     .help = "scale | positions | rope-style | order: rerun under each setting; with --train: scale | norm | "
             "positions; with --model: scale"},
    {"train", 0, OPT_CHOICE, AT(train), .lo = 0, .hi = AV_TASK_COUNT - 1, .choice_name = task_name, .noun = "task",
     .arg = "TASK", .help = "reverse | sort | induction: train a small GPT-2-layout model from scratch into -o DIR "
             "(default attnviz-out in the current folder)"},
    {"layers", 0, OPT_INT, AT(layers), .lo = 1, .hi = 12, .arg = "N", .help = "--train: layers (default 2; 1..12)"},
    {"steps", 0, OPT_INT, AT(steps), .lo = 1, .hi = 1000000, .arg = "N",
     .help = "--train: optimiser steps (default 4000; 1..1000000)"},
    {"batch", 0, OPT_INT, AT(batch), .lo = 1, .hi = AV_TRAIN_MAX_BATCH, .arg = "N",
     .help = "--train: sequences per step (default 32, induction 64; 1..1024)"},
    {"lr", 0, OPT_DOUBLE, AT(lr), .min = 0, .max = 10, .open = 1, .arg = "LR",
     .help = "--train: peak learning rate (default 6e-3; induction 3e-3; at most 10); with --schedule noam the factor (default 1)"},
    {"weight-decay", 0, OPT_DOUBLE, AT(weight_decay), .min = 0, .max = 1, .arg = "WD",
     .help = "--train: AdamW weight decay of the weight matrices and embeddings (default 0.01, torch's; 0..1)"},
    {"schedule", 0, OPT_CHOICE, AT(schedule), .lo = AV_SCHED_COSINE, .hi = AV_SCHED_CONSTANT,
     .choice_name = schedule_name, .arg = "S",
     .help = "--train: cosine (default; to lr/10) | noam (paper: factor·d_model^-0.5·min(t^-0.5, t·warmup^-1.5), factor --lr or 1) | constant"},
    {"warmup", 0, OPT_INT, AT(warmup), .lo = 0, .hi = 1000000, .range_later = 1, .later = "0..--steps, 0 = no warm-up", .arg = "N",
     .help = "--train: warm-up steps (default 5 % of --steps, at least 1; 0..--steps, 0 = none, 1..--steps with --schedule noam; none with constant)"},
    {"norm", 0, OPT_CHOICE, AT(norm), .lo = AV_NORM_PRE, .hi = AV_NORM_POST, .choice_name = norm_name, .arg = "WHERE",
     .help = "--train: pre (Pre-LN, GPT-2; default) | post (Post-LN, the 2017 paper)"},
    {"model", 'm', OPT_STRING, AT(model_dir), .if_empty = "give a folder name", .arg = "DIR",
     .help = "run a GPT-2 folder (config.json, model.safetensors, vocab.json, merges.txt or tokenizer.json) or a Llama/Qwen2 folder (config.json, safetensors, tokenizer.json)"},
    {"layer", 0, OPT_CALL, 0, .parse = parse_layer, .arg = "L",
     .help = "layer of a --model for the full trace, --explain, --show and figures (default the last)"},
    {"generate", 0, OPT_INT, AT(generate), .lo = 1, .hi = AV_MAX_TOKENS, .arg = "N",
     .help = "continue a --model input by N tokens, greedy (the most probable each time; 1..65536)"},
    {"help", 'h', OPT_FLAG, AT(help), .help = "show this help and exit"},
    {"version", 'V', OPT_FLAG, AT(version), .help = "show the version and exit"},
};
#define N_OPTS ((int)(sizeof kOpts / sizeof kOpts[0]))
#define LONG_ONLY 256 /* getopt_long returns LONG_ONLY + row for a row without a short name */

/* Every field whose default is not 0 / NULL. */
static const av_options kDefaults = {
    .d_model = AV_DEFAULT_D_MODEL,
    .heads = AV_DEFAULT_HEADS,
    .seed = AV_DEFAULT_SEED,
    .positions = AV_POS_SINUSOIDAL,
    .rope_style = AV_ROPE_INTERLEAVED,
    .rope_base = 10000.0,
    .outdir = AV_DEFAULT_OUTDIR,
    .prefix = "",
    .precision = AV_DEFAULT_PRECISION,
    .color = AV_COLOR_AUTO,
    .figures = AV_FIG_DEFAULT,
    .dpi = AV_DEFAULT_DPI,
    .scale = 1.0,
    .format = AV_FMT_PNG,
    .train = -1,
    .layer = -1,
};

/* Columns --help fills at most: GNU's 79 (argp's rmargin), so an 80-column terminal never wraps a line
 * itself. 44 of 72 lines were 81 to 189 columns wide and wrapped mid-word there (a learner's pass at a
 * terminal). */
#define HELP_COLUMNS 79
#define HELP_INDENT 29 /* "  " + the 26-column option column + " " */

/* text after col columns already printed, wrapped at spaces to HELP_COLUMNS (app/term.h av_term_wrapped) */
static void help_wrapped(FILE *f, const char *text, int col, int indent) {
    av_term_wrapped(f, text, col, HELP_COLUMNS, indent);
}

void av_print_help(FILE *f, const char *conventions, const char *man) {
    fprintf(f,
            "Usage: attnviz [OPTION]... SENTENCE...\n"
            "       attnviz [OPTION]... -f FILE\n"
            "Show scaled dot-product attention, softmax(Q·Kᵀ/√d_k)·V, step by step on a\n"
            "sentence, and draw each head's attention weights as a heat-map PNG.\n\n"
            "Example: attnviz --heads 8 \"I love deep learning\"\n\n"
            "Options:\n");
    for (int i = 0; i < N_OPTS; i++) {
        char left[64];
        char shortf[8] = "    ";
        if (kOpts[i].short_name) snprintf(shortf, sizeof shortf, "-%c, ", kOpts[i].short_name);
        snprintf(left, sizeof left, "%s--%s%s%s", shortf, kOpts[i].name, kOpts[i].arg ? " " : "",
                 kOpts[i].arg ? kOpts[i].arg : "");
        fprintf(f, "  %-26s ", left);
        help_wrapped(f, kOpts[i].help, HELP_INDENT, HELP_INDENT);
    }
    char limits[1024];
    snprintf(limits, sizeof limits,
             "Limits: at most %d tokens, d_model <= %d, heads <= %d, %d-byte tokens; the "
             "(heads, T, T) scores and weights the reference and blas kernels keep (figures, "
             "--dump, --show, --explain, --compare, --html) at most %zu GiB (about 5800 tokens "
             "at 8 heads; --compare scale and rope-style hold 3 runs' worth at once, "
             "positions 4 and order 4.5 (8.5 with --html): about 3300, 2900 and 2700 (2000) "
             "tokens at 8 heads). Past that, --no-plot and no option that needs them. "
             "--train: parameters, gradients, AdamW moments and activations at most %zu GiB "
             "(d_model 1024 with 2 layers and batch 32 fits; 2048 does not).",
             AV_MAX_TOKENS, AV_MAX_D_MODEL, AV_MAX_HEADS, AV_MAX_TOKEN_BYTES, AV_MAX_WEIGHT_BYTES >> 30,
             AV_MAX_TRAIN_BYTES >> 30);
    fputc('\n', f);
    help_wrapped(f, limits, 0, 0);
    help_wrapped(f, "Lists (--figures LIST, --explain Q,K) are separated by ',' or the full-width '，' (U+FF0C).", 0, 0);
    fprintf(f, "Exit status: 0 success, 1 runtime failure (I/O), 2 usage error.\n");
    /* the path on a line of its own: a long one is one word, which no width can wrap. The man page as the
     * command that reads it: from the source tree `man attnviz` said "No manual entry for attnviz" (a new
     * user's pass), and PREFIX/share/man is on man's path only for some PREFIXes */
    char word[4 * 4096 + 8]; /* PATH_MAX bytes, each ' written as 4, and the quotes */
    if (conventions && man) { /* a command: quoted when the shell would split it ("make install PREFIX='/x y'") */
        av_shell_word(word, sizeof word, man);
        fprintf(f, "See attnviz(1), the manual, and for the conventions used:\n  man %s\n  %s\n", word, conventions);
    } else if (conventions) fprintf(f, "See attnviz(1), and for the conventions used:\n  %s\n", conventions);
    /* as the line above: in one line it took 85 columns, past 80, for a binary copied out of its tree (a fixer's pass) */
    else fprintf(f, "See attnviz(1), and for the conventions used:\n  docs/conventions.md in attnviz's source\n");
}

/* ---------------------------------------------------------------------------- one argument */

/* 1 if s is a decimal number and nothing else: [+-]digits, and with real
 * also [.digits] and [e[+-]digits] ("1e-3", ".5", "5."). strtod alone took
 * hexadecimal ("--lr 0x1p-8") where strtoll refused "--steps 0x10", and both
 * took a leading space but not a trailing one; now every number option takes
 * the same text, as Python's float() and int() refuse "0x1p-8" and "0x10". */
static int is_decimal(const char *s, int real) {
    const char *p = s + (*s == '+' || *s == '-');
    int digits = 0;
    for (; isdigit((unsigned char)*p); p++) digits++;
    if (real && *p == '.')
        for (p++; isdigit((unsigned char)*p); p++) digits++;
    if (!digits) return 0;
    if (real && (*p == 'e' || *p == 'E')) {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    return *p == 0;
}

/* " (it is typed in full-width characters: type the half-width 4, 半角)" into out (cap bytes) when s, read with
 * each full-width form as its ASCII twin (av_utf8_halfwidth: what a Chinese input method types in full-width
 * mode: "４", "３００", "１ｅ－３", "ｒｏｐｅ"), is a decimal number (is_decimal(twin, real); real < 0: never) or, in
 * any case, one of name(lo..hi) (name NULL: none); else "". "--heads ４" said only "is not a whole number",
 * "--positions ｒｏｐｅ" only "is not allowed", where a trained model's note says "type the half-width '3'"
 * (a Chinese-speaking learner's pass); --explain's indices get the same words (app/teach.c resolve). With real > 0, '。'
 * (U+3002) is read as '.' too, and the hint says it is no decimal point ("--scale 1。5" said only "is not a
 * number"), as of one ',' or '，' (a decimal comma: "--scale 1,5"); a mark at the end (av_utf8_trailing_mark:
 * '。', '、', '，', '；', ...; and with real <= 0 an ASCII , ; . : ! ?, "--heads 4,", "--layer 1.") is dropped
 * and named ("--heads 4。", "--heads 4、", "--cmap viridis。": typed after the value); its words fit 256 bytes
 * with any value. A number outside min..max (min excluded when open: the option's range, or for --head the heads
 * in use) is not given to type: " (it is typed in full-width characters, and as the half-width 5 it is outside the
 * allowed range too)", as chinese_hint says it (`--heads 1 --head ５` said "type the half-width 5", which is then
 * refused); a name of name(lo..hi) is given as it is. With real >= 0 a look-alike dash (av_utf8_lookalike_dash,
 * but '－') is read as '-' and named: " ('−' (U+2212) is the minus sign of typeset text: type the ASCII
 * hyphen-minus: 6e-3)" (an en dash, U+2013: "is an en dash"); "--lr 6e−3", with the minus sign that the figures'
 * colour bars print (render/plot.c true_minus), said only "is not a number". */
static void full_width_hint(char *out, size_t cap, const char *s, int real, const char *(*name)(int), int lo,
                            int hi, double min, double max, int open) {
    char ascii[64], dotted[64], comma[64] = "";
    int other = 0, stops = 0, commas = 0, dashes = 0, wide;
    unsigned dash = 0; /* the first look-alike dash's code point, and its words */
    const char *dash_name = NULL;
    size_t k = 0, len = strlen(s);
    out[0] = 0;
    /* a '。', '、', '，', '；', ... at the end of a value ("--heads 4。", "--heads 4、", "--scale 1.5。", "--cmap
     * viridis。"): typed after the value (whole numbers and names got no hint: learners' passes) */
    unsigned tcp = 0;
    const char *tname = NULL;
    size_t trail = av_utf8_trailing_mark(s, len, &tcp, &tname);
    if (!trail && real <= 0 && len > 1 && strchr(",;.:!?", s[len - 1])) /* "--heads 4,", "--heads 4.": ASCII, named */
        trail = 1, tname = NULL;                                         /* without a code point */
    const char *tmark = s + len - trail;
    len -= trail;
    /* '。' (U+3002) read as '.' in a number option's value ("--scale 1。5", "--vmax 0。5": the ideographic
     * full stop that a Chinese input method types for '.' with its Chinese punctuation on, a learner's pass) */
    /* and a look-alike dash (av_utf8_lookalike_dash; not '－', a full-width form) read as '-' in any number
     * option's value: "--lr 6e−3", "--vmax −0.5" with the U+2212 that the figures' colour bars and the docs print,
     * "--head –1" with a word processor's en dash (it said only "is not a number") */
    for (const char *c = s; c < s + len && k + 1 < sizeof dotted; k++) {
        unsigned cp = 0;
        const char *nm = NULL;
        if (real >= 0 && av_utf8_lookalike_dash(c, &cp, &nm) && cp != 0xFF0D)
            dotted[k] = '-', c += 3, dash = dashes++ ? dash : cp, dash_name = dash_name ? dash_name : nm;
        else if (real > 0 && !strncmp(c, "\xE3\x80\x82", 3)) dotted[k] = '.', c += 3, stops++;
        else if (real > 0 && !strncmp(c, "\xEF\xBC\x8C", 3)) dotted[k] = '.', c += 3, commas++, strcpy(comma, "，");
        else if (real > 0 && *c == ',') dotted[k] = '.', c++, commas++, strcpy(comma, ",");
        else dotted[k] = *c++;
    }
    if (k + 1 >= sizeof dotted) return;
    dotted[k] = 0;
    /* ',' or '，' as the decimal comma of German, French or Russian ("--scale 1,5"): one, and no '。' with it */
    if (commas > 1 || (commas && stops)) return;
    if ((wide = av_utf8_halfwidth_text(ascii, sizeof ascii, dotted, &other)) < 0 ||
        wide + stops + (trail > 0) + commas + dashes == 0 || other)
        return;
    int hit = real >= 0 && is_decimal(ascii, real), out_of_range = 0;
    if (hit) {
        double v = strtod(ascii, NULL);
        out_of_range = !((open ? v > min : v >= min) && v <= max);
    }
    for (int v = lo; name && !hit && v <= hi; v++) hit = strcasecmp(ascii, name(v)) == 0;
    if (!hit) return;
    char why[320] = "", sign[8] = "";
    size_t w = 0;
    if (dashes) { /* its text, as av_utf8_lookalike_dash's 3 bytes */
        av_utf8_encode(dash, sign);
        sign[3] = 0;
        w = (size_t)snprintf(why, sizeof why, "'%s' (U+%04X) is %s%s", sign, dash, dash_name,
                             out_of_range ? ", not the ASCII hyphen-minus" : ""); /* else "type the ASCII ..." */
    }
    if (stops) snprintf(why + w, sizeof why - w, "%s'。' (U+3002) is the ideographic full stop that a Chinese input "
                        "method types for '.', not a decimal point", w ? ", and " : "");
    else if (commas) snprintf(why + w, sizeof why - w, "%s'%s' is %snot a decimal point", w ? ", and " : "", comma,
                              comma[0] == ',' ? "" : "a full-width comma (U+FF0C), ");
    if (trail && why[0])
        snprintf(why + strlen(why), sizeof why - strlen(why), ", and the '%s' at its end is typed after the value",
                 tmark);
    else if (trail && tname)
        snprintf(why, sizeof why, "the '%s' (U+%04X) at its end is %s, typed after the value", tmark, tcp, tname);
    else if (trail) snprintf(why, sizeof why, "the '%s' at its end is typed after the value", tmark);
    if (why[0] && out_of_range)
        snprintf(out, cap, " (%s%s, and as %s%s it is outside the allowed range too)", why,
                 wide ? ", and the rest is typed in full-width characters" : "", wide ? "the half-width " : "", ascii);
    else if (why[0])
        snprintf(out, cap, " (%s%s: type %s%s%s)", why, wide ? ", and the rest is typed in full-width characters" : "",
                 dashes ? "the ASCII hyphen-minus: " : "", ascii, wide ? ", 半角" : "");
    else if (out_of_range)
        snprintf(out, cap, " (it is typed in full-width characters, and as the half-width %s it is outside the allowed "
                 "range too)", ascii);
    else snprintf(out, cap, " (it is typed in full-width characters: type the half-width %s, 半角)", ascii);
}

/* The Chinese words docs/tutorial.zh.md, docs/train.zh.md and docs/reading-heads.zh.md use for a choice's value,
 * each with the value it names (option: the long option without "--"; value: a name it takes). Only words those
 * pages write for the thing the value selects: 正弦位置编码 and 旋转位置编码 (RoPE) of --positions, 可学习位置编码
 * (--train's learned), --compare's 缩放, 位置编码 and 顺序 ("只是行和列换了顺序", of --compare order) and 层归一化,
 * --norm's 之前 and 之后 ("层归一化放在每个子层之前" / "每次残差相加之后"), the 余弦调度 of --schedule, RoPE's
 * 相邻的维度对 of --rope-style interleaved, the 归纳头 of --train induction and the figures' 热力图, 网格, 平均图,
 * 分数, 位置编码 and 掩码, and the 反转 and 排序 that docs/train.zh.md writes after `reverse` and `sort`, and the
 * 复制 of its "`induction` 从前文复制" (the task that copies; reverse's answer is a digit copied too, but that task
 * is the reversal). For --train's tasks also the everyday words a Chinese learner types for the same thing, which
 * the page does not write: 倒序, 逆序, 反序, 翻转 and 倒转 for reverse, and 升序 (ascending order: sort's ` 1 1 3 4
 * 5`) for sort (`--train 倒序` said only "is not a task"). auto, always and never of --color and the other
 * options' values have no Chinese word there, so none here. */
static const struct {
    const char *option, *word, *value;
} kChineseChoice[] = {
    {"positions", "正弦", "sinusoidal"}, {"positions", "正弦位置", "sinusoidal"},
    {"positions", "正弦编码", "sinusoidal"}, {"positions", "正弦位置编码", "sinusoidal"},
    {"positions", "旋转", "rope"}, {"positions", "旋转位置编码", "rope"}, {"positions", "可学习", "learned"},
    {"positions", "可学习位置", "learned"}, {"positions", "可学习位置编码", "learned"},
    {"compare", "缩放", "scale"}, {"compare", "位置", "positions"}, {"compare", "位置编码", "positions"},
    {"compare", "顺序", "order"}, {"compare", "层归一化", "norm"}, {"compare", "归一化", "norm"},
    {"norm", "前", "pre"}, {"norm", "之前", "pre"}, {"norm", "后", "post"}, {"norm", "之后", "post"},
    {"schedule", "余弦", "cosine"}, {"schedule", "余弦调度", "cosine"},
    {"rope-style", "相邻", "interleaved"},
    {"train", "反转", "reverse"}, {"train", "排序", "sort"}, {"train", "归纳", "induction"},
    {"train", "归纳头", "induction"}, {"train", "复制", "induction"}, {"train", "从前文复制", "induction"},
    {"train", "倒序", "reverse"}, {"train", "逆序", "reverse"}, {"train", "反序", "reverse"}, {"train", "翻转", "reverse"},
    {"train", "倒转", "reverse"}, {"train", "升序", "sort"},
    {"figures", "热力图", "heads"}, {"figures", "网格", "grid"}, {"figures", "平均图", "mean"},
    {"figures", "分数", "scores"}, {"figures", "位置编码", "pe"}, {"figures", "掩码", "mask"},
};

/* 1 if --option VALUE runs only with --train (--compare norm, --positions learned: check_combinations' "needs
 * --train"), -1 if only without it (--compare order and rope-style, "not a --train comparison"; --positions none),
 * else 0. The hints that suggest a value (chinese_choice_hint, one_value_hint) say which. */
static int train_rule(const char *option, const char *value) {
    static const struct { const char *option, *value; int train; } kRule[] = {
        {"compare", "norm", 1}, {"positions", "learned", 1}, {"compare", "order", -1}, {"compare", "rope-style", -1},
        {"positions", "none", -1}};
    for (size_t k = 0; k < sizeof kRule / sizeof kRule[0]; k++)
        if (!strcmp(kRule[k].option, option) && !strcmp(kRule[k].value, value)) return kRule[k].train;
    return 0;
}

enum { CTX_TRAIN = 1, CTX_MODEL = 2 }; /* a hint's context: --train, --model on the command line (context_given) */
/* ctx >> CTX_HEADS_SHIFT: the heads in use, --heads N or AV_DEFAULT_HEADS, when neither --train nor --model is
 * given (a --model's n_head is known once it is loaded); 0 otherwise (context_given) */
#define CTX_HEADS_SHIFT 8
#define CTX_HEADS(ctx) ((ctx) >> CTX_HEADS_SHIFT & 0xFF)
static const char *model_refuses(const char *name);
static const char *trim_separators(const char *p, size_t *len);

/* 1 if --option VALUE runs in ctx (CTX_TRAIN, CTX_MODEL or neither; --train first, as it trains rather than
 * load): with --train what train_rule does not refuse, with --model (without --train) what kNotForModel and
 * gpt2run.c do not refuse (--compare scale alone: "--compare positions cannot be used with --model"; no
 * --kernel flash; no --positions, --rope-style, ...; --figures model, grid, heads, pe or all, as parse_figures'
 * allowed says: "mean, scores and mask are for the single layer"), else what does not need --train nor a --model
 * (--figures model: check_combinations' "add --model DIR"). */
static int runs_in(const char *option, const char *value, int ctx) {
    int rule = train_rule(option, value);
    if (ctx & CTX_TRAIN) return rule >= 0;
    if (ctx & CTX_MODEL) /* gpt2run.c's check_options: --compare scale alone, no --kernel flash (every layer's
                          * weights are kept: `--model DIR --kernel flash,blas` said "e.g. --kernel flash") */
        return !model_refuses(option) && (strcmp(option, "compare") || !strcmp(value, "scale")) &&
               (strcmp(option, "kernel") || strcmp(value, "flash")) &&
               (strcmp(option, "figures") || (strcasecmp(value, "mean") && strcasecmp(value, "scores") &&
                                              strcasecmp(value, "mask")));
    return rule <= 0 && (strcmp(option, "figures") || strcasecmp(value, "model")); /* "add --model DIR" */
}

static long long nearest_value(const char *typed, size_t len, const char *(*name)(int), long long lo, long long hi);
static const char *fig_name(int i);

/* The figure that t[0..tl), a name of a --figures list that is no figure in any case, stands for, with ", and ｇｒｉｄ
 * is grid typed in full-width letters" or ", and modle is a typo of model" (nearest_value, as read_figures' "did you
 * mean"; ", and ｍｏｄｌｅ is a typo of model typed in full-width letters" of its half-width twin) appended to fixes (cap bytes, NUL-terminated); NULL when it stands for none, with ", and 'xyz' is not a
 * figure either" (", and the list has an empty name too" for "") appended and *unknown set to 1 (no list to type
 * then). A name that is a figure gives NULL and appends nothing. */
static const char *fixed_figure(const char *t, size_t tl, char *fixes, size_t cap, int *unknown) {
    size_t at = strlen(fixes);
    char typed[65], half[65], shown[200];
    for (int v = 0; v < 8; v++)
        if (strlen(fig_name(v)) == tl && !strncasecmp(t, fig_name(v), tl)) return NULL;
    snprintf(typed, sizeof typed, "%.*s", (int)(tl > 64 ? 64 : tl), t);
    av_utf8_trim_cut(typed);
    int other = 0;
    if (tl && av_utf8_halfwidth_text(half, sizeof half, typed, &other) > 0 && !other)
        for (int v = 0; v < 8; v++)
            if (!strcasecmp(half, fig_name(v))) {
                snprintf(fixes + at, cap - at, ", and %s is %s typed in full-width letters", typed, fig_name(v));
                return fig_name(v);
            }
    long long best = tl ? nearest_value(t, tl, fig_name, 0, 7) : -1;
    /* "ｍｏｄｌｅ": a typo typed in full-width letters, read as its half-width twin (it got "is not a figure either"
     * where "modle" got "is a typo of model") */
    int wide = best < 0 && tl && av_utf8_halfwidth_text(half, sizeof half, typed, &other) > 0 && !other &&
               (best = nearest_value(half, strlen(half), fig_name, 0, 7)) >= 0;
    if (best >= 0) {
        snprintf(fixes + at, cap - at, ", and %s is a typo of %s%s", av_shown_word(shown, sizeof shown, typed),
                 fig_name((int)best), wide ? " typed in full-width letters" : "");
        return fig_name((int)best);
    }
    if (tl) snprintf(fixes + at, cap - at, ", and %s is not a figure either", av_quoted_word(shown, sizeof shown, typed));
    else if (!strstr(fixes, "an empty name")) snprintf(fixes + at, cap - at, ", and the list has an empty name too");
    *unknown = 1;
    return NULL;
}

/* Reads whole, a list of option's names (--figures) as read_figures reads it (each name without the spaces around
 * it), with the name at `at` (len bytes: a typo or a name in full-width letters; NULL: none) read as `value` and
 * each Chinese word of kChineseChoice as its English, for the hints that suggest a name of it: into cmd (cap bytes)
 * the list to type (its names without the spaces around them, each separator as typed), *refused 1 when a name does not run in ctx (runs_in; never with CTX_TRAIN), single the first
 * name that --model refuses (mean), *needs_model 1 when a name needs a --model (model) and *has_all 1 when the list
 * has "all" (every figure of the run, which refuses none: `-m DIR --figures mean,all,model` runs). With fixes (not
 * NULL; --figures), each other name that is no figure is read as the one it stands for (fixed_figure: "modle" as
 * model, "ｇｒｉｄ" as grid), said so in fixes (fixes_cap bytes: ", and modle is a typo of model"), and *unknown is
 * 1 when one stands for none ("热力图,modle" said "type --figures heads,modle", refused again). No errors. */
static void read_choice_list(const char *option, const char *whole, const char *at, size_t len, const char *value,
                             int ctx, char *cmd, size_t cap, int *refused, char single[32], int *needs_model,
                             int *has_all, char *fixes, size_t fixes_cap, int *unknown) {
    size_t k = 0, sep;
    cmd[0] = 0, single[0] = 0, *refused = *needs_model = *has_all = 0;
    if (fixes) fixes[0] = 0, *unknown = 0;
    for (const char *p = whole; k < cap;) {
        const char *end = av_utf8_list_sep(p, &sep), *put = NULL;
        size_t n = end ? (size_t)(end - p) : strlen(p), tl = n;
        /* the name without the spaces around it, as read_figures reads it: " model" of "热力图, model" was
         * no figure to runs_in, and " 平均图" of "热力图, 平均图" no Chinese word */
        const char *t = trim_separators(p, &tl);
        if (at && t == at && tl == len) put = value; /* "maen" of "maen,grid": mean */
        for (size_t j = 0; !put && j < sizeof kChineseChoice / sizeof kChineseChoice[0]; j++)
            if (!strcmp(kChineseChoice[j].option, option) && strlen(kChineseChoice[j].word) == tl &&
                !strncmp(kChineseChoice[j].word, t, tl))
                put = kChineseChoice[j].value;
        if (!put && fixes && !strcmp(option, "figures")) put = fixed_figure(t, tl, fixes, fixes_cap, unknown);
        char one[32];
        snprintf(one, sizeof one, "%.*s", put ? (int)strlen(put) : (int)(tl < sizeof one ? tl : 0), put ? put : t);
        *refused |= !(ctx & CTX_TRAIN) && !runs_in(option, one, ctx);
        if (!single[0] && !runs_in(option, one, CTX_MODEL)) snprintf(single, 32, "%s", one);
        *needs_model |= !runs_in(option, one, 0);
        *has_all |= !strcmp(option, "figures") && !strcasecmp(one, "all");
        /* without the spaces typed around the name: "热力图 ，网格" said "type --figures 'heads ，grid'", a space
         * that read_figures drops and that made the command need quotes */
        k += (size_t)snprintf(cmd + k, cap - k, "%.*s%.*s", put ? (int)strlen(put) : (int)tl, put ? put : t,
                              end ? (int)sep : 0, end ? end : "");
        if (!end) break;
        p = end + sep;
    }
    if (*has_all) *refused = 0, single[0] = 0; /* "平均图,all,model" was told it "cannot be drawn in one run" */
}

/* ", without --model" (with ctx's CTX_MODEL alone) or ", with --model" (with neither --train nor --model) into
 * note (n bytes) when name `value`, typed at `at` (len bytes) in --figures' list whole as a typo ("maen") or in
 * full-width letters ("ｍｅａｎ"), does not run with the rest of the list in ctx, or "; mean is for the single layer
 * and model draws every layer of a --model: they cannot be drawn in one run, so run attnviz once for each" when the
 * list runs neither way; else "". The check chinese_choice_hint makes for 平均图 (read_choice_list): `-m DIR
 * --figures maen` said "did you mean mean?" and `--figures ｍｏｄｅｌ` "type the half-width model", each then refused. */
static void figure_note(char *note, size_t n, const char *whole, const char *at, size_t len, const char *value,
                        int ctx) {
    char cmd[192], single[32];
    int refused, needs_model, has_all;
    note[0] = 0;
    if (ctx & CTX_TRAIN) return;
    read_choice_list("figures", whole, at, len, value, ctx, cmd, sizeof cmd, &refused, single, &needs_model, &has_all,
                     NULL, 0, NULL);
    if (single[0] && needs_model)
        snprintf(note, n, "; %s is for the single layer and model draws every layer of a --model: they cannot be drawn "
                 "in one run, so run attnviz once for each", single);
    else if (!has_all && (refused || !runs_in("figures", value, ctx)))
        snprintf(note, n, "%s", ctx & CTX_MODEL ? ", without --model" : ", with --model");
}

/* " (maen is a typo of mean, and modle is a typo of model: type --figures mean,model, with --model)" into out (cap
 * bytes) when the --figures list whole, whose name at `at` (len bytes) stands for figure value as lead says ("maen
 * is a typo of mean", "ｈｅａｄｓ is heads typed in full-width letters"), has another name that is no figure
 * (fixed_figure names each, with the figure it stands for), or, with always 0, when it runs only with or without
 * --model for another name than value: `--figures maen,modle` named maen alone, and `--figures hedas,model` said
 * "did you mean heads, with --model?", though model needs --model and heads does not. The words are
 * chinese_choice_hint's: no list when a name stands for none, "they cannot be drawn in one run" when the list runs
 * neither way. Returns 1 when it wrote, else 0 with out "" (nothing else in the list to name: the "did you mean"). */
static int figure_list_hint(char *out, size_t cap, const char *whole, const char *at, size_t len, const char *value,
                            const char *lead, int always, int ctx) {
    char cmd[192], single[32], fixes[400], shown[256];
    int refused, needs_model, has_all, unknown;
    out[0] = 0;
    read_choice_list("figures", whole, at, len, value, ctx, cmd, sizeof cmd, &refused, single, &needs_model, &has_all,
                     fixes, sizeof fixes, &unknown);
    int split = !(ctx & CTX_TRAIN) && single[0] && needs_model; /* "mean,model": neither way */
    const char *with = !(ctx & CTX_TRAIN) && !has_all && refused ? (ctx & CTX_MODEL ? ", without --model"
                                                                                    : ", with --model") : "";
    if (!always && !fixes[0] && (split || !with[0] || !runs_in("figures", value, ctx))) return 0;
    av_shell_word(shown, sizeof shown, cmd);
    if (split)
        snprintf(out, cap, " (%s%s; %s is for the single layer and model draws every layer of a --model: they cannot "
                 "be drawn in one run, so run attnviz once for each)", lead, fixes, single);
    else if (strlen(shown) > 160 || unknown) snprintf(out, cap, " (%s%s)", lead, fixes);
    else snprintf(out, cap, " (%s%s: type --figures %.160s%s)", lead, fixes, shown, with);
    return 1;
}

/* " (缩放 is scale: type --compare scale)" into out (cap bytes) when typed[0..len) is a Chinese word of
 * kChineseChoice for --option; else "". whole (NULL: typed itself) is the option's whole value, of which typed is
 * one name (--figures' list): the command to type is whole with that name replaced ("--figures grid,热力图" →
 * "type --figures grid,heads"). A choice typed in Chinese, as the Chinese docs name it, got only "is not allowed;
 * expected ..." ("--compare 缩放", "--positions 正弦", "--train 归纳", "--figures 热力图", "--norm 前": a
 * Chinese-speaking learner's pass, from docs/tutorial.zh.md); the value stays refused, exit 2, a hint and not a
 * second spelling, as for full-width letters. A value of train_rule's ends in ", with --train", or with ctx's
 * CTX_TRAIN (--train is on the command line) in ", without --train" (`--train reverse --compare 顺序` said "type
 * --compare order", which --train refuses); one that --model refuses, with CTX_MODEL alone, in ", without --model"
 * (`--model DIR --compare 位置` said "type --compare positions"). A list with a name that --model refuses and one
 * that needs it runs neither way: " (平均图 is mean; mean is for the single layer and model draws every layer of a
 * --model: they cannot be drawn in one run, so run attnviz once for each)" (`--figures 平均图,model` said ", with
 * --model", and with --model ", without --model"). */
static void chinese_choice_hint(char *out, size_t cap, const char *option, const char *typed, size_t len,
                                const char *whole, int ctx) {
    out[0] = 0;
    for (size_t i = 0; i < sizeof kChineseChoice / sizeof kChineseChoice[0]; i++) {
        if (strcmp(kChineseChoice[i].option, option) || strlen(kChineseChoice[i].word) != len ||
            strncmp(kChineseChoice[i].word, typed, len))
            continue;
        char cmd[192];
        int refused = 0; /* a name of whole that does not run in ctx: "--model DIR --figures 网格,平均图" */
        char single[32] = ""; /* the first name refused with --model (mean), when another needs it (model) */
        int needs_model = 0, has_all = 0; /* "all" in the list: every figure of the run, which both refuse nothing
                                            * of (gpt2run.c, check_combinations: `-m DIR --figures mean,all,model` runs) */
        char fixes[400] = ""; /* ", and modle is a typo of model": the list's other names that are no figure */
        int unknown = 0; /* one of them stands for no figure: no list to type */
        if (whole) /* each name of the list that is a Chinese word in its English: "热力图，网格" said "type
                    * --figures heads，网格", a command refused again */
            read_choice_list(option, whole, NULL, 0, NULL, ctx, cmd, sizeof cmd, &refused, single, &needs_model,
                             &has_all, fixes, sizeof fixes, &unknown);
        else snprintf(cmd, sizeof cmd, "%s", kChineseChoice[i].value);
        char shown[256];
        av_shell_word(shown, sizeof shown, cmd);
        int rule = train_rule(option, kChineseChoice[i].value);
        const char *with = rule > 0 ? ", with --train" : rule < 0 && (ctx & CTX_TRAIN) ? ", without --train"
                           : !(ctx & CTX_TRAIN) && !has_all && (refused || !runs_in(option, kChineseChoice[i].value, ctx))
                               ? (ctx & CTX_MODEL ? ", without --model" : ", with --model")
                                                                                                  : "";
        if (!(ctx & CTX_TRAIN) && single[0] && needs_model) /* "平均图,model": refused with --model and without it,
                                                             * as parse_figures and check_combinations say */
            snprintf(out, cap, " (%s is %s%s; %s is for the single layer and model draws every layer of a --model: they "
                     "cannot be drawn in one run, so run attnviz once for each)", kChineseChoice[i].word,
                     kChineseChoice[i].value, fixes, single);
        else if (strlen(shown) > 160 || unknown) /* a long --figures list, or a name that is no figure: no list */
            snprintf(out, cap, " (%s is %s%s%s)", kChineseChoice[i].word, kChineseChoice[i].value, fixes, with);
        else
            snprintf(out, cap, " (%s is %s%s: type --%s %.160s%s)", kChineseChoice[i].word, kChineseChoice[i].value,
                     fixes, option, shown, with);
        return;
    }
}

static void show_value(char *shown, size_t n, const char *s);
static const char *show_word(char *buf, size_t n, const char *s);
#define SHOW_WORD_MAX 660 /* 160 bytes of show_value, each ' 4 bytes, and the quotes */
#define SHOW_WORD(s) show_word((char[SHOW_WORD_MAX]){0}, SHOW_WORD_MAX, (s))

/* 1 if s is a whole number written with a decimal point or an exponent ("150.0", "8.0", "1e3", "2.5e1",
 * "1e400"), with "--NAME S: write a whole number without a decimal point, e.g. 150" into out (cap bytes; "in
 * digits, without an exponent" for "1e3"); else 0. "--dpi 150.0" was told "is not a whole number", which is
 * false; GNU tools refuse such a count too (head -n 1.0), so it stays refused, saying what is wrong and what to
 * type. Whole is decided on the digits as typed, not on strtod's double, which rounded "8.00000000000000001"
 * to 8 (called whole) and made "1e400" infinite (called not whole; a tester's pass). The e.g. is given only
 * for a value in lo..hi (--dpi 0.0 said "e.g. 0; allowed: 50..600", a value the option refuses). */
static int whole_with_point(char *out, size_t cap, const char *name, const char *s, long long lo, long long hi) {
    if (!is_decimal(s, 1) || is_decimal(s, 0)) return 0;
    const char *p = s + (*s == '+' || *s == '-');
    char digits[160]; /* the mantissa's digits, the point dropped */
    int n = 0, ints = 0, point = 0, expo = 0;
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') point = 1;
        else if (n < (int)sizeof digits - 1) digits[n++] = *p, ints += !point;
        else return 0; /* over 159 digits: "is not a whole number" is not worth a finer word */
    }
    if (*p) expo = 1;
    long e = 0;
    if (expo) {
        p++;
        int neg = *p == '-';
        p += *p == '+' || *p == '-';
        for (; *p; p++) e = e < 100000 ? e * 10 + (*p - '0') : e; /* past 1e5: the same word */
        if (neg) e = -e;
    }
    long cut = ints + e; /* the digits before the point, once the exponent moves it */
    for (long i = cut < 0 ? 0 : cut; i < n; i++)
        if (digits[i] != '0') return 0; /* a digit after the point: not whole */
    /* the whole value, when it fits in a long long: digits[0..cut) and cut - n zeros */
    int fits = cut <= 18;
    long long v = 0;
    for (long i = 0; fits && i < cut; i++) v = v * 10 + (i < n ? digits[i] - '0' : 0);
    if (*s == '-') v = -v;
    char sv[160], eg[48] = "";
    show_value(sv, sizeof sv, s);
    if (fits && v >= lo && v <= hi) snprintf(eg, sizeof eg, ", e.g. %lld", v);
    snprintf(out, cap, "--%s %s: write a whole number %s%s", name, sv,
             !expo ? "without a decimal point" : point ? "in digits, without a decimal point or an exponent"
                                                       : "in digits, without an exponent", eg);
    return 1;
}

/* " (the space at its start is not part of a number: type 2)" into out (cap bytes) when s with the
 * ASCII spaces and tabs at its ends dropped is a decimal number (is_decimal(.., real)), or " (..., and as 5 it is
 * outside the allowed range too)" outside min..max (min excluded when open; `--heads 1 --head ' 5'` said "type 5",
 * which is then refused); else "". `--heads " 2"` was told only "is not a whole number", where a U+3000 space there
 * is named (a teacher's pass). */
static void edge_space_hint(char *out, size_t cap, const char *s, int real, double min, double max, int open) {
    out[0] = 0;
    size_t n = strlen(s), a = strspn(s, " \t"), b = n;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) b--;
    char t[80];
    if ((a == 0 && b == n) || b == a || b - a >= sizeof t) return;
    memcpy(t, s + a, b - a), t[b - a] = 0;
    if (!is_decimal(t, real)) return;
    double v = strtod(t, NULL);
    int in = (open ? v > min : v >= min) && v <= max;
    snprintf(out, cap, in ? " (the %s at its %s %s not part of a number: type %s)" : " (the %s at its %s %s not part "
             "of a number, and as %s it is outside the allowed range too)", a && b < n ? "spaces" : "space",
             a && b < n ? "start and end" : a ? "start" : "end", a && b < n ? "are" : "is", t);
}

/* " (the ',' between its digits groups thousands, which a number here does not take: type 4000)" into out (cap bytes)
 * when s is a whole number that starts with 1..9, written with thousands separators, ',' or the full-width '，' (U+FF0C) that a Chinese
 * input method types, or the space of the SI's digit groups (SI Brochure, 9th ed., §5.4.4: "4 000"; `--steps "4 000"` said only
 * "is not a whole number"), between groups of three digits ("4,000", "1,000,000", "4，000"), or "..., and as 12000 it is
 * outside lo..hi too" outside it; digits typed full-width ("４，０００") add ", and it is typed in full-width
 * characters: type the half-width 4000, 半角"; else "". `--steps 4,000` said only "is not a whole number". */
static void grouping_hint(char *out, size_t cap, const char *s, long long lo, long long hi) {
    char num[32], sep[4] = "";
    size_t k = 0, group = 0, groups = 0, wide = 0;
    out[0] = 0;
    if (*s == '-' || *s == '+') num[k++] = *s++;
    for (const char *c = s; *c; group++) {
        if (isdigit((unsigned char)*c) && k + 1 < sizeof num) {
            num[k++] = *c++;
            continue;
        }
        /* "４，０００": the full-width digits U+FF10..U+FF19 (EF BC 90..99) that an input method's full-width mode
         * types with its '，', read as the half-width ones and named (it said only "is not a whole number") */
        if (!strncmp(c, "\xEF\xBC", 2) && (unsigned char)c[2] >= 0x90 && (unsigned char)c[2] <= 0x99 &&
            k + 1 < sizeof num) {
            num[k++] = (char)('0' + ((unsigned char)c[2] - 0x90)), c += 3, wide++;
            continue;
        }
        size_t sl = *c == ',' || *c == ' ' ? 1 : !strncmp(c, "，", strlen("，")) ? strlen("，") : 0;
        if (!sl || group == 0 || group > 3 || (groups && group != 3) || c[sl] == 0 || (sep[0] && strncmp(sep, c, sl)))
            return; /* no separator, a group too long, or the two kinds mixed */
        memcpy(sep, c, sl), sep[sl] = 0;
        c += sl, groups++, group = (size_t)-1;
    }
    num[k] = 0;
    /* "0,004" is a decimal comma more likely than thousands (it said "type 0004", and --heads 0,008 "type 0008",
     * which runs 8 heads): a number with groups starts with 1..9, as 4,000 does */
    if (!groups || group != 3 || num[*num == '-' || *num == '+'] == '0') return;
    errno = 0;
    long long v = strtoll(num, NULL, 10);
    const char *typed = wide ? ", and it is typed in full-width characters" : "";
    if (errno == ERANGE || v < lo || v > hi)
        snprintf(out, cap, " (the '%s' between its digits groups thousands, which a number here does not take%s, and "
                 "as %s it is outside the allowed range too)", sep, typed, num);
    else snprintf(out, cap, " (the '%s' between its digits groups thousands, which a number here does not take%s: type "
                  "%s%s%s)", sep, typed, wide ? "the half-width " : "", num, wide ? ", 半角" : "");
}

int av_number_with_words(const char *s, int real, char *num, size_t cap, int *chinese, char post[32]) {
    size_t n = strlen(s), at[5];
    int k = 0;
    post[0] = 0;
    /* the starts of the last four characters, last first, as long as they are ideographs */
    for (size_t e = n; k < 4 && e > 0;) {
        size_t b = e - 1;
        while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80) b--;
        const unsigned char *u = (const unsigned char *)s + b;
        unsigned cp = av_utf8_next(&u);
        if ((size_t)(u - (const unsigned char *)s) != e || !((cp >= 0x3400 && cp <= 0x4DBF) ||
                                                              (cp >= 0x4E00 && cp <= 0x9FFF)))
            break;
        at[k++] = b, e = b;
    }
    for (int j = 0; j < k; j++) { /* the fewest words after it: "一百个头" is 一百 and 个头 */
        size_t len = at[j];
        char part[64];
        if (len == 0 || len >= sizeof part || n - at[j] >= 32) break;
        memcpy(part, s, len), part[len] = 0;
        const unsigned char *w = (const unsigned char *)s + len;
        if (av_utf8_chinese_numeral(av_utf8_next(&w))) continue; /* "一千零十", "两百两": a numeral's own characters */
        if (strstr(s + len, "半")) continue; /* "2个半", "两个半小时": 2.5, "and a half", not the number 2 */
        char half[64]; /* "８个": the number in full-width digits, as an input method's full-width mode types it */
        int other = 0;
        *chinese = 0;
        if (is_decimal(part, real)) snprintf(num, cap, "%s", part);
        else if (av_utf8_chinese_number(num, cap, part, real)) *chinese = 1;
        else if (av_utf8_halfwidth_text(half, sizeof half, part, &other) > 0 && !other && is_decimal(half, real))
            snprintf(num, cap, "%s", half), *chinese = 2;
        else continue;
        snprintf(post, 32, "%s", s + at[j]);
        return 1;
    }
    return 0;
}

/* " (it is written in Chinese numerals: type the digits 8, 阿拉伯数字)" into out (cap bytes) when s is a number
 * in Chinese numerals (base/utf8.h av_utf8_chinese_number; real: 点 as the decimal point) inside lo..hi (lo
 * excluded when open), or " (it is written in Chinese numerals, and as the digits 100 it is outside the allowed
 * range too)" outside it; a number with words after it (av_number_with_words: "8个", "八个", "512维", "100步")
 * gets " (the 个 after the number is not part of it: type 8)", or "..., and 八 is written in Chinese numerals:
 * type the digits 8, 阿拉伯数字)", or "..., and 100 is outside the allowed range too)": "--heads 8个" and
 * "--heads 八个" said only "is not a whole number" (a Chinese-speaking learner's pass); one in ASCII digits with an
 * English word of english_unit_word after it, glued or after one space ("100steps", "8 heads"), " (the word steps
 * after the number is not part of it: type 100)" or "..., and 100 is outside the allowed range too)". With real, a number that
 * ends in its decimal point ("十五点", "一點") gets " (it is written in Chinese numerals, with no digit after its
 * decimal point 点: ...)"; ASCII digits with a Chinese unit or an SI prefix after them (百 千 万 萬 亿 億, k K M:
 * "1万", "1.5万", "4k") " (the 万
 * after the number is ten thousand: type the digits 10000)" (or "..., as the digits 15000 it is outside the allowed
 * range too"; nothing for a whole-number option's "1.23456万"). With real, a per cent or per mille ("5%", "５％",
 * "1‰", "百分之五", "千分之一") gets " (the '%' after the number is per cent: type 0.05)" or " (千分之一 is 1 per
 * mille: type 0.001)", or "..., as 2 it is outside the allowed range too". Else "". Returns 1 for a per cent,
 * per mille or unit, whose hint names a value other than the digits typed (split_number: "--lr 5 %"), else 0. */
/* 1 if s is "" or one to four ideographs, none a Chinese numeral's own character (av_utf8_chinese_numeral) nor
 * 半, in fewer than 32 bytes: the measure words after a number ("步", "个", "次"), as av_number_with_words reads
 * them. */
static int measure_words(const char *s) {
    int count = 0;
    if (strlen(s) >= 32 || strstr(s, "半")) return 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; count++) {
        unsigned cp = av_utf8_next(&u);
        if (count == 4 || !((cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF)) ||
            av_utf8_chinese_numeral(cp))
            return 0;
    }
    return 1;
}

/* 1 if w, in any case, is an English word typed after a number for what it counts or the unit it is in, which does
 * not change its value: step, head, layer, token, epoch, iteration, iter, time, sequence, seq, batch, sample,
 * digit, each alone or with its plural s or es ("steps", "batches"), and dpi, MiB and x ("2x" for --scale 2); else
 * 0. Not k, M (chinese_hint's SI prefixes, which do change it), px (no dpi) nor an ordinal's st, nd, rd, th. */
static int english_unit_word(const char *w) {
    static const char *const kWords[] = {"step", "head", "layer", "token", "epoch", "iteration", "iter", "time",
                                         "sequence", "seq", "batch", "sample", "digit"};
    size_t n = strlen(w);
    if (!strcasecmp(w, "dpi") || !strcasecmp(w, "MiB") || !strcasecmp(w, "x")) return 1;
    for (size_t i = 0; i < sizeof kWords / sizeof kWords[0]; i++) {
        size_t k = strlen(kWords[i]);
        if (n >= k && !strncasecmp(w, kWords[i], k) &&
            (n == k || !strcasecmp(w + k, "s") || !strcasecmp(w + k, "es")))
            return 1;
    }
    return 0;
}

static int chinese_hint(char *out, size_t cap, const char *s, int real, double lo, double hi, int open) {
    char num[64], post[32], words[64], whole[64], dig_w[64];
    int chinese = 1;
    size_t n = strlen(s), pt = strlen("点"); /* 点 and 點 are 3 bytes each */
    out[0] = 0;
    /* a per cent or per mille, as a number option's fraction is often written: "5%", "５％", "1‰", "百分之五",
     * "千分之一" (it said only "is not a number"): the number, in digits or Chinese numerals, ÷ 100 or ÷ 1000 */
    static const struct { const char *mark, *name; int before, div; } kPer[] = {
        {"%", "per cent", 0, 100}, {"％", "per cent", 0, 100}, {"‰", "per mille", 0, 1000},
        {"百分之", "per cent", 1, 100}, {"千分之", "per mille", 1, 1000}};
    for (size_t i = 0; real && i < sizeof kPer / sizeof kPer[0]; i++) {
        size_t ml = strlen(kPer[i].mark);
        if (n <= ml || n - ml >= sizeof whole) continue;
        if (kPer[i].before ? strncmp(s, kPer[i].mark, ml) : strcmp(s + n - ml, kPer[i].mark)) continue;
        memcpy(whole, s + (kPer[i].before ? ml : 0), n - ml), whole[n - ml] = 0;
        int other = 0; /* "５％": full-width digits, read as the ASCII ones */
        if (is_decimal(whole, 1)) snprintf(num, sizeof num, "%s", whole);
        else if (!av_utf8_chinese_number(num, sizeof num, whole, 1) &&
                 !(av_utf8_halfwidth_text(num, sizeof num, whole, &other) > 0 && !other && is_decimal(num, 1)))
            return 0;
        double v = strtod(num, NULL) / kPer[i].div;
        char shown[40];
        snprintf(shown, sizeof shown, "%.15g", v);
        int in = (open ? v > lo : v >= lo) && v <= hi;
        if (kPer[i].before)
            snprintf(out, cap, in ? " (%s is %s %s: type %s)" : " (%s is %s %s: as %s it is outside the allowed range "
                     "too)", s, num, kPer[i].name, shown);
        else snprintf(out, cap, in ? " (the '%s' after the number is %s: type %s)" : " (the '%s' after the number is "
                      "%s: as %s it is outside the allowed range too)", kPer[i].mark, kPer[i].name, shown);
        return 1;
    }
    /* "1万", "1.5万", "3千": ASCII digits and one Chinese unit, as Chinese writes a round count (it said only "is
     * not a whole number"): the digits moved by the unit's places, on the text, not a double */
    static const struct { const char *unit, *name; int places; } kUnits[] = {
        {"百", "a hundred", 2}, {"千", "a thousand", 3}, {"万", "ten thousand", 4}, {"萬", "ten thousand", 4},
        {"亿", "a hundred million", 8}, {"億", "a hundred million", 8},
        /* the SI prefixes k (kilo, 10^3) and M (mega, 10^6), SI Brochure 9th ed. table 7, and the K written for k
         * ("4K"): `--steps 4k` said only "is not a whole number", and `--train reverse --steps 4 k` took k as the
         * sentence, where "4 千" was told "type the digits 4000" */
        {"k", "a thousand", 3}, {"K", "a thousand", 3}, {"M", "a million", 6}};
    for (size_t i = 0; i < sizeof kUnits / sizeof kUnits[0]; i++) {
        /* the unit, then perhaps measure words ("1万步", "3千个": it said only "is not a whole number"), the
         * number perhaps in full-width digits ("１万", as an input method's full-width mode types it) */
        const char *at = NULL, *tail;
        for (const char *f = s; (f = strstr(f, kUnits[i].unit)); f++) at = f;
        size_t ul = strlen(kUnits[i].unit), m = at ? (size_t)(at - s) : 0, k = 0;
        if (!at || m == 0 || m >= 40 || !measure_words(at + ul)) continue;
        int wide = 0, other = 0; /* "１万": its full-width digits, as the half-width ones */
        memcpy(whole, s, m), whole[m] = 0;
        if (!is_decimal(whole, 1) && av_utf8_halfwidth_text(dig_w, sizeof dig_w, whole, &other) > 0 && !other &&
            is_decimal(dig_w, 1))
            snprintf(whole, sizeof whole, "%s", dig_w), wide = 1;
        if (!is_decimal(whole, 1) || strpbrk(whole, "eE")) break;
        tail = at + ul;
        char dig[64];
        size_t nd = 0, ints = 0;
        int point = 0;
        for (const char *c = whole + (*whole == '+' || *whole == '-'); *c; c++)
            if (*c == '.') point = 1;
            else dig[nd++] = *c, ints += !point;
        ints += (size_t)kUnits[i].places; /* the point moves right */
        while (nd < ints) dig[nd++] = '0';
        size_t lead = 0, end = nd;
        while (lead + 1 < ints && dig[lead] == '0') lead++;
        while (end > ints && dig[end - 1] == '0') end--;
        if (end > ints && !real) break; /* "1.23456万" is 12345.6, no whole number */
        snprintf(num, sizeof num, "%s%.*s%s%.*s", *whole == '-' ? "-" : "", (int)(ints - lead), dig + lead,
                 end > ints ? "." : "", (int)(end - ints), dig + ints);
        double v = strtod(num, NULL);
        char also[96] = ""; /* ", and the 步 after it is not part of it", ", and it is typed in full-width characters" */
        if (*tail) k += (size_t)snprintf(also, sizeof also, ", and the %s after it is not part of it", tail);
        if (wide) snprintf(also + k, sizeof also - k, ", and it is typed in full-width characters");
        snprintf(out, cap, (open ? v > lo : v >= lo) && v <= hi ? " (the %s after the number is %s%s: type the %s"
                 "digits %s%s)" : " (the %s after the number is %s%s: as the %sdigits %s it is outside the allowed "
                 "range too)", kUnits[i].unit, kUnits[i].name, also, wide ? "half-width " : "", num, wide ? ", 半角" : "");
        return 1;
    }
    /* "十五点": the decimal point 点 (點) with no digit after it, the whole number before it (as float("15.") is 15;
     * it said "the 点 after the number is not part of it") */
    if (real && n > pt && n - pt < sizeof whole && (!strcmp(s + n - pt, "点") || !strcmp(s + n - pt, "點")) &&
        (memcpy(whole, s, n - pt), whole[n - pt] = 0, av_utf8_chinese_number(num, sizeof num, whole, 0))) {
        double v = strtod(num, NULL);
        snprintf(out, cap, (open ? v > lo : v >= lo) && v <= hi ? " (it is written in Chinese numerals, with no digit "
                 "after its decimal point %s: type the digits %s, 阿拉伯数字)" : " (it is written in Chinese numerals, "
                 "with no digit after its decimal point %s: as the digits %s it is outside the allowed range too)",
                 s + n - pt, num);
        return 0;
    }
    /* "100steps", "8 heads", "300dpi": a number in ASCII digits, then perhaps one space and an English word of
     * english_unit_word (it said only "is not a whole number", where "100步" was told "type 100") */
    size_t letters = n;
    while (letters > 0 && isalpha((unsigned char)s[letters - 1])) letters--;
    size_t numlen = letters - (letters > 0 && s[letters - 1] == ' ');
    if (letters < n && numlen > 0 && numlen < sizeof whole && english_unit_word(s + letters)) {
        memcpy(whole, s, numlen), whole[numlen] = 0;
        if (is_decimal(whole, real)) {
            snprintf(num, sizeof num, "%s", whole);
            double v = strtod(num, NULL);
            snprintf(out, cap, (open ? v > lo : v >= lo) && v <= hi ? " (the word %s after the number is not part of "
                     "it: type %s)" : " (the word %s after the number is not part of it, and %s is outside the allowed "
                     "range too)", s + letters, num);
            return 0;
        }
    }
    if (!av_utf8_chinese_number(num, sizeof num, s, real)) {
        if (!av_number_with_words(s, real, num, sizeof num, &chinese, post)) return 0;
        snprintf(words, sizeof words, "the %s after the number is", post);
    } else {
        words[0] = 0;
    }
    double v = strtod(num, NULL);
    int in = (open ? v > lo : v >= lo) && v <= hi;
    if (words[0] && !chinese)
        snprintf(out, cap, in ? " (%s not part of it: type %s)" : " (%s not part of it, and %s is outside the allowed "
                 "range too)", words, num);
    else if (words[0] && chinese == 2) /* "８个" */
        snprintf(out, cap, in ? " (%s not part of it, and it is typed in full-width characters: type the half-width "
                 "%s, 半角)" : " (%s not part of it, and it is typed in full-width characters: as the half-width %s it "
                 "is outside the allowed range too)", words, num);
    else if (words[0])
        snprintf(out, cap, in ? " (%s not part of it, and it is written in Chinese numerals: type the digits %s, "
                 "阿拉伯数字)" : " (%s not part of it, and it is written in Chinese numerals: as the digits %s it is "
                 "outside the allowed range too)", words, num);
    else if (in) snprintf(out, cap, " (it is written in Chinese numerals: type the digits %s, 阿拉伯数字)", num);
    else snprintf(out, cap, " (it is written in Chinese numerals, and as the digits %s it is outside the allowed "
                  "range too)", num);
    return 0;
}

/* 1 if s is an ordinal, 第 then a whole number (ASCII spaces inside dropped) in ASCII digits, full-width digits
 * (*wide = 1: "第１") or Chinese numerals from 一 (*chinese = 1: "第八"), perhaps with measure words after it
 * (post: "个" of 第8个, "" without; av_number_with_words), into *v (>= 0, the N of the Nth as written); else 0.
 * The reading of av_ordinal_hint and count_ordinal_hint. */
static int ordinal_value(const char *s, long long *v, int *chinese, int *wide, char post[32]) {
    char t[64], num[64];
    size_t k = 0;
    *chinese = *wide = 0;
    post[0] = 0;
    if (strncmp(s, "第", strlen("第")) != 0) return 0;
    for (const char *p = s + strlen("第"); *p; p++)
        if (*p != ' ') {
            if (k + 1 >= sizeof t) return 0;
            t[k++] = *p;
        }
    t[k] = 0;
    int other = 0; /* "第１", "第１个": full-width digits, read as the ASCII ones are, and named */
    if (is_decimal(t, 0)) snprintf(num, sizeof num, "%s", t);
    else if (av_utf8_chinese_number(num, sizeof num, t, 0)) *chinese = 1;
    else if (av_utf8_halfwidth_text(num, sizeof num, t, &other) > 0 && !other && is_decimal(num, 0)) *wide = 1;
    else if (!av_number_with_words(t, 0, num, sizeof num, chinese, post)) return 0;
    if (*chinese == 2) *chinese = 0, *wide = 1;
    char *end;
    errno = 0;
    *v = strtoll(num, &end, 10);
    return !(*end || errno == ERANGE || *v < 0 || (*chinese && *v < 1)); /* 第零, 第负一: no ordinal */
}

/* The English ordinal suffix of v: "st" of 1, 21; "nd" of 2; "rd" of 3; "th" of 11, 12, 13 and the rest. */
static const char *ordinal_suffix(long long v) {
    return v % 100 / 10 == 1 ? "th" : v % 10 == 1 ? "st" : v % 10 == 2 ? "nd" : v % 10 == 3 ? "rd" : "th";
}

/* " (第八 is the 8th: --heads takes the number itself, type --heads 8)" into out (cap bytes) when s is an ordinal
 * (ordinal_value: 第八, 第 8, 第８个) given to option name, a count or number and not an index (--heads, --steps,
 * --layers; --head and --layer have av_ordinal_hint), from 1; or "...: as 80 it is outside the allowed range too)"
 * outside lo..hi; else "". `--heads 第八` said only "is not a whole number" (a Chinese-speaking learner's pass). */
static void count_ordinal_hint(char *out, size_t cap, const char *name, const char *s, long long lo, long long hi) {
    long long v;
    int chinese, wide;
    char post[32];
    out[0] = 0;
    if (!ordinal_value(s, &v, &chinese, &wide, post) || v < 1 || strlen(s) > 64) return;
    if (v < lo || v > hi)
        snprintf(out, cap, " (%s is the %lld%s: --%s takes the number itself, and as %lld it is outside the allowed "
                 "range too)", s, v, ordinal_suffix(v), name, v);
    else snprintf(out, cap, " (%s is the %lld%s: --%s takes the number itself, type --%s %lld%s)", s, v,
                  ordinal_suffix(v), name, name, v, wide ? ", 半角" : "");
}

void av_ordinal_hint(char *out, size_t cap, const char *option, const char *s, long long hi) {
    char post[32];
    int chinese, wide;
    long long v;
    out[0] = 0;
    if (!ordinal_value(s, &v, &chinese, &wide, post)) return;
    const char *th = ordinal_suffix(v);
    char counts[48], type[48]; /* "--layer counts", "type --layer 0"; for --explain "token indices count", "type 0" */
    snprintf(counts, sizeof counts, option ? "--%s counts" : "token indices count", option ? option : "");
    snprintf(type, sizeof type, option ? "type --%s " : "type ", option ? option : "");
    long long index = chinese ? v - 1 : v;
    char to[160];
    /* past hi, an option's index is named as index_name_hint names it: `--heads 4 --head 第五` said "type --head 4" */
    int past = hi >= 0 && index > hi, named = past && option;
    if (named) {
        snprintf(counts, sizeof counts, "%ss are numbered", option);
        snprintf(to, sizeof to, "%lld is outside 0..%lld, so the %s %s is --%s %lld", index, hi,
                 hi == 0 ? "only" : "last", option, option, hi);
    } else if (past) snprintf(to, sizeof to, "as %lld it is outside 0..%lld too", index, hi);
    else snprintf(to, sizeof to, "%s%lld", type, index);
    /* 第1个 is index 1 as the docs write 第 1 层, and the 1st as 第一个 is: from 1 the other index is named too
     * (`--head 第1个` named index 1 alone, where --head 第一个 said index 0); past hi that is the last one, named */
    char also[224] = "";
    if (!chinese && !named && v >= 1 && (hi < 0 || v - 1 <= hi))
        snprintf(also, sizeof also, "; %s from 0 (the docs' 第 0 层 is layer 0): for the %lld%s, %s%lld", counts, v, th,
                 type, v - 1);
    const char *and_ = named ? ", and " : "", *wide_w = wide ? ", and it is typed in full-width characters" : "",
               *half = wide && !named ? ", 半角" : "";
    if (chinese && strlen(s) < 64) /* 1st, 2nd, 3rd, 11th, 12th, 13th, 21st */
        snprintf(out, cap, " (%s is the %lld%s, and %s from 0: %s)", s, v, th, counts, to);
    else if (chinese) snprintf(out, cap, " (%s from 0: %s)", counts, to);
    else if (post[0]) snprintf(out, cap, " (the 第 and %s around the number are not part of it%s%s%s%s: %s%s%s)", post,
                               wide_w, and_, named ? counts : "", named ? " from 0" : "", to, half, also);
    else snprintf(out, cap, " (the 第 before the number is not part of it%s%s%s%s: %s%s%s)", wide_w, and_,
                  named ? counts : "", named ? " from 0" : "", to, half, also);
}

/* " (the H before the number is not part of it, as in the training log's L0 H3: type --head 3)" into out (cap
 * bytes) when s is the name that --train's log, figures and train.csv (L0 H3, attn_on_target_L0_H3) or the Chinese
 * docs (头 3, 第 0 层的头 3; 层) give a head or a layer: for option "head" H, h or 头, for "layer" L, l or 层, then
 * digits, a space between allowed, letter and digits perhaps full-width (adding ", and it is typed in full-width
 * characters" and ", 半角"); else "". `--head H3` and `--head 头3` said only "is not a whole number". count (0:
 * not known) is how many there are: one past them is " (..., and heads are numbered from 0: 4 is outside 0..3, so
 * the last head is --head 3)" (`--heads 4 --head H4` was told "type --head 4", which is refused). */
static void index_name_hint(char *out, size_t cap, const char *option, const char *s, int count) {
    const char *word = !strcmp(option, "head") ? "头" : "层";
    char letter = !strcmp(option, "head") ? 'H' : 'L', t[64];
    out[0] = 0;
    /* "头３", "Ｈ３": full-width digits or letter, as an input method's full-width mode types them, read as the
     * half-width ones and named (`--head 头３` said only "is not a whole number" where 头3 got this hint) */
    int wide = av_utf8_halfwidth_text(t, sizeof t, s, NULL);
    const char *p = t;
    if (wide < 0) return;
    if (toupper((unsigned char)*p) == letter) p++;
    else if (!strncmp(p, word, strlen(word))) p += strlen(word);
    else return;
    int named = (int)(p - t); /* H or 头, without the space after it */
    p += *p == ' ';
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 18) return;
    long long v = strtoll(p, NULL, 10); /* 18 digits at most: no overflow */
    if (count > 0 && v >= count) /* "H4" of 4 heads, which the log calls H0..H3 */
        snprintf(out, cap, " (the %.*s before the number is not part of it%s%s, and %ss are numbered from 0: %s is "
                 "outside 0..%d, so the %s %s is --%s %d)", named, t, named == 1 ? ", as in the training log's L0 H3" : "",
                 wide ? ", and it is typed in full-width characters" : "", option, p, count - 1,
                 count == 1 ? "only" : "last", option, option, count - 1);
    else snprintf(out, cap, " (the %.*s before the number is not part of it%s%s: type --%s %s%s)", named, t,
             named == 1 ? ", as in the training log's L0 H3" : "", wide ? ", and it is typed in full-width characters" : "",
             option, p, wide ? ", 半角" : "");
}

/* 1 if s, after the ASCII spaces and tabs at its start, begins with a minus sign as the hints read one: '-', a
 * look-alike dash (av_utf8_lookalike_dash: the full-width '－' (U+FF0D), the typeset minus sign '−' (U+2212), an
 * en or em dash, U+2010) or the Chinese 负 (負); else 0. "-１", "－１", "−1" and "负一" are negative. */
static int reads_negative(const char *s) {
    s += strspn(s, " \t");
    unsigned cp;
    return *s == '-' || av_utf8_lookalike_dash(s, &cp, NULL) || !strncmp(s, "负", strlen("负")) ||
           !strncmp(s, "負", strlen("負"));
}

/* "; heads are numbered from 0, so the last head is --head 3" (count heads; "only" for 1) appended to out (cap
 * bytes): the words index_past_hint and read_whole's point hint both end with. For a negative value (negative 1)
 * "; heads are numbered from 0, with no negative indexing: the last head is --head 3", as Python's -1 meant the
 * last (`--heads 2 --head -１` was told "so the last head is --head 1", no reason for a value below 0); with count 0
 * (not known: a --model's) "; heads are numbered from 0, with no negative indexing", and for option "layer" (its
 * count is never known here) "; layers are numbered from 0, with no negative indexing: leave --layer out for the
 * last layer", as app/gpt2run.c says of --layer -1. Nothing for count 0 and a value that is not negative. */
static void append_last_head(char *out, size_t cap, const char *option, int count, int negative) {
    size_t n = strlen(out);
    if (negative && !strcmp(option, "layer"))
        snprintf(out + n, cap - n, "; layers are numbered from 0, with no negative indexing: leave --layer out for the "
                 "last layer");
    else if (negative && count > 0)
        snprintf(out + n, cap - n, "; heads are numbered from 0, with no negative indexing: the %s head is --head %d",
                 count == 1 ? "only" : "last", count - 1);
    else if (negative) snprintf(out + n, cap - n, "; heads are numbered from 0, with no negative indexing");
    else if (count > 0)
        snprintf(out + n, cap - n, "; heads are numbered from 0, so the %s head is --head %d", count == 1 ? "only" : "last",
                 count - 1);
}

/* hint (cap bytes), a hint that ends in "it is outside the allowed range too)" (full_width_hint, edge_space_hint,
 * grouping_hint, chinese_hint given the heads in use), with "; heads are numbered from 0, so the last head is
 * --head 3)" in place of its ')' (append_last_head: option "head" or "layer", count the heads in use, 0: not known;
 * negative 1 for a value below 0) when count is known or the value is negative. Else hint as it is. */
static void index_past_hint(char *hint, size_t cap, const char *option, int count, int negative) {
    static const char tail[] = "outside the allowed range too)";
    size_t n = strlen(hint);
    if ((count <= 0 && !negative) || n < sizeof tail || strcmp(hint + n - (sizeof tail - 1), tail) || n + 100 > cap)
        return;
    hint[n - 1] = 0;
    append_last_head(hint, cap, option, count, negative);
    strcat(hint, ")");
}

/* A whole decimal number in [d->lo, d->hi]. */
static av_status read_whole(const optdef *d, const char *s, long long *out, int ctx, av_err *err) {
    char sv[160]; /* the value as messages show it: 64 bytes at most, so the reason is not cut off (a tester's pass) */
    show_value(sv, sizeof sv, s);
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != 0 || !is_decimal(s, 0)) {
        char hint[400], point[256]; /* "１２。": the full stop's words and the full-width ones; 第１个's two indexes */
        int heads = !strcmp(d->name, "head") ? CTX_HEADS(ctx) : 0; /* 0: not known, or not --head */
        /* the range every hint's value is checked against: a range checked later (--head) takes any, but the heads
         * in use ("type the half-width 5" named a refused --head of 1 head), and its floor, which is known (0 of
         * --head and --warmup: `--model DIR --head -１` was told "type the half-width -1", which every model refuses) */
        long long lo = heads > 0 ? 0 : d->lo, hi = heads > 0 ? heads - 1 : d->range_later ? LLONG_MAX : d->hi;
        double min = (double)lo, max = heads > 0 || !d->range_later ? (double)hi : HUGE_VAL;
        int head = !strcmp(d->name, "head"), negative = head && reads_negative(s);
        full_width_hint(hint, sizeof hint, s, 0, NULL, 0, 0, min, max, 0);
        if (!hint[0]) edge_space_hint(hint, sizeof hint, s, 0, min, max, 0);
        if (!hint[0]) grouping_hint(hint, sizeof hint, s, lo, hi); /* "--steps 4,000" */
        if (!hint[0] && !strcmp(d->name, "head")) av_ordinal_hint(hint, sizeof hint, "head", s, heads - 1); /* "第一个" */
        if (!hint[0] && !strcmp(d->name, "head")) index_name_hint(hint, sizeof hint, "head", s, heads); /* "H3", "头3" */
        if (!hint[0] && strcmp(d->name, "head")) /* "--heads 第八": a count, the 8th's number */
            count_ordinal_hint(hint, sizeof hint, d->name, s, d->lo, d->hi);
        if (!hint[0]) chinese_hint(hint, sizeof hint, s, 0, min, max, 0); /* "--heads 八" */
        if (head) index_past_hint(hint, sizeof hint, "head", heads, negative); /* --head 五 of 4 heads: the last */
        if (!hint[0] && whole_with_point(point, sizeof point, d->name, s, heads > 0 ? lo : d->lo,
                                                  heads > 0 ? hi : d->hi)) {
            if ((heads > 0 || negative) && !strstr(point, ", e.g. ")) /* --head 5.0 of 4 heads: no e.g., and which is the last */
                append_last_head(point, sizeof point, "head", heads, negative);
            if (d->later) return av_fail(err, AV_EUSAGE, "%s; allowed: %s", point, d->later);
            return av_fail(err, AV_EUSAGE, "%s; allowed: %lld..%lld", point, d->lo, d->hi);
        }
        if (d->later)
            return av_fail(err, AV_EUSAGE, "--%s %s is not a whole number%s; allowed: %s", d->name, SHOW_WORD(s),
                           hint, d->later);
        return av_fail(err, AV_EUSAGE, "--%s %s is not a whole number%s; allowed: %lld..%lld", d->name, SHOW_WORD(s),
                       hint, d->lo, d->hi);
    }
    /* --head 99999999999999999999 was told "outside the allowed range 0..63" where --head 64 names the heads
     * in use, 0..3 of a 4-head model: past an int it goes on as INT_MAX for the later rule, which echoes it
     * as typed */
    if (d->range_later) {
        *out = errno == ERANGE || v < INT_MIN || v > INT_MAX ? (v < 0 ? INT_MIN : INT_MAX) : v;
        return AV_OK;
    }
    /* "--train reverse --steps 5 --warmup -1" was told "outside the allowed range 0..1000000", where --help
     * says 0..--steps and 6..1000000 are refused */
    if ((errno == ERANGE || v < d->lo || v > d->hi) && d->later)
        return av_fail(err, AV_EUSAGE, "--%s %s is outside the allowed range %s", d->name, sv, d->later);
    if (errno == ERANGE || v < d->lo || v > d->hi)
        return av_fail(err, AV_EUSAGE, "--%s %s is outside the allowed range %lld..%lld", d->name, sv, d->lo, d->hi);
    *out = v;
    return AV_OK;
}

/* A number that float32 cannot hold though its option's range takes it:
 * an underflow (erange: strtod's ERANGE; 5e-324, 1e-400) or a denormal
 * (1e-40) computes as 0 or loses its digits. AV_EUSAGE "--NAME S is too
 * small: ...; allowed: ALLOWED" then, else AV_OK. */
static av_status check_float32_tiny(const char *name, const char *s, double v, int erange, const char *allowed,
                                    av_err *err) {
    if (!isfinite(v) || fabs(v) >= 1 || !(erange || (v != 0 && fabs(v) < FLT_MIN))) return AV_OK;
    return av_fail(err, AV_EUSAGE, "--%s %s is too small: below %.5g, float32's smallest normal number, it computes "
                   "as 0 or loses its digits; allowed: %s", name, s, (double)FLT_MIN, allowed);
}

/* A finite number in [d->min, d->max] (d->min excluded when d->open). */
static av_status read_number(const optdef *d, const char *s, double *out, av_err *err) {
    char range[64], sv[160];
    show_value(sv, sizeof sv, s);
    if (isinf(d->max)) snprintf(range, sizeof range, "a finite number %s %g", d->open ? ">" : ">=", d->min);
    else if (d->open && d->min == 0) /* 0 excluded, and float32's floor with it: "(0, 10]" beside a refused 1e-38
                                      * read as a contradiction (a new user's report) */
        snprintf(range, sizeof range, "%.5g..%g", (double)FLT_MIN, d->max);
    else if (d->open) snprintf(range, sizeof range, "(%g, %g]", d->min, d->max); /* min excluded: "0..10" would allow 0 */
    else snprintf(range, sizeof range, "%g..%g", d->min, d->max);
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    /* "inf" goes on to "outside the allowed range"; "nan" said that too, and is not a number */
    if (end == s || *end != 0 || isnan(v) || (isfinite(v) && !is_decimal(s, 1))) {
        char hint[256]; /* "１。５": the full stop's words and the full-width ones */
        full_width_hint(hint, sizeof hint, s, 1, NULL, 0, 0, d->min, d->max, d->open);
        if (!hint[0]) edge_space_hint(hint, sizeof hint, s, 1, d->min, d->max, d->open);
        if (!hint[0]) chinese_hint(hint, sizeof hint, s, 1, d->min, d->max, d->open); /* "--lr 零点零零一" */
        return av_fail(err, AV_EUSAGE, "--%s %s is not a number%s; allowed: %s", d->name, SHOW_WORD(s), hint, range);
    }
    /* 5e-324 and 1e-40 are inside (0, 10]: "too small" for float32, not "outside the range" (a new user's
     * report), with the float32 floor in the range it gives ("allowed: (0, 10]" beside it read as a
     * contradiction: a tester's report); a range from 0.5 says "outside" */
    char allowed[80];
    if (d->min == 0 && d->open) snprintf(allowed, sizeof allowed, "%s", range);
    else if (d->min == 0) snprintf(allowed, sizeof allowed, "0 (for none) or %.5g..%g", (double)FLT_MIN, d->max);
    else snprintf(allowed, sizeof allowed, "%s", range);
    av_status tiny = d->min <= 0 ? check_float32_tiny(d->name, sv, v, errno == ERANGE, allowed, err) : AV_OK;
    if (tiny) return tiny;
    if (v == 0) v = 0; /* "-0" is 0: the header printed "weight decay -0" */
    int below = d->open ? !(v > d->min) : !(v >= d->min);
    if (!isfinite(v) || errno == ERANGE || below || v > d->max) {
        if (isinf(d->max))
            return av_fail(err, AV_EUSAGE, "--%s %s is not allowed; it must be %s", d->name, sv, range);
        /* "--lr 0 is outside the allowed range 1.1755e-38..10" read as a range picked from nowhere (two testers'
         * reports): at or below an excluded 0 the message says what the floor is */
        if (d->open && d->min == 0 && v <= 0)
            return av_fail(err, AV_EUSAGE, "--%s %s is outside the allowed range %s: it must be greater than 0, "
                           "and %.5g is float32's smallest normal number", d->name, sv, range, (double)FLT_MIN);
        return av_fail(err, AV_EUSAGE, "--%s %s is outside the allowed range %s", d->name, sv, range);
    }
    *out = v;
    return AV_OK;
}

/* The name a mistyped value of a named option meant: the v in lo..hi whose name(v) is, in any case, the first
 * that typed[0..len) starts (3 bytes or more: matplotlib's "RdBu" of RdBu_r, "sin" of sinusoidal), else the
 * longest name of 3 bytes or more that starts typed, followed by letters, digits or '_' only (a longer word:
 * "sorting" of sort, "heads2" of heads, "viridis_r" of viridis; not "heads、grid", whose separator is the
 * fault), else the nearest within a third of len edits (at least 1; av_edit_distance, a swap counts 1: "virdis" of viridis), else
 * (3 bytes or more) the nearest within as many edits of the name cut to len − 1 .. len + 1 bytes, a cut-short
 * name mistyped ("hed" of heads, "infrn" of inferno); -1 when none, for a single byte and for 32 bytes or more.
 * typed need not be NUL-terminated (a name in --figures' list). One rule for every option whose value is a name
 * or a list of names (read_choice, --figures, --vmax): --figures hed said no name where --cmap virdis,
 * --kernel flsh and --train revers named theirs (a learner's pass). */
static long long nearest_value(const char *typed, size_t len, const char *(*name)(int), long long lo, long long hi) {
    char a[32], b[32];
    if (len < 2 || len >= sizeof a) return -1;
    for (size_t k = 0; k < len; k++) a[k] = (char)tolower((unsigned char)typed[k]);
    a[len] = 0;
    for (long long v = lo; len >= 3 && v <= hi; v++)
        if (strncasecmp(name((int)v), a, len) == 0) return v;
    long long best = -1;
    size_t best_len = 2;
    for (long long v = lo; v <= hi; v++) { /* "sorting" of sort, "heads2" of heads: the longest name it starts */
        size_t k = strlen(name((int)v)), rest = k;
        while (rest < len && (isalnum((unsigned char)a[rest]) || a[rest] == '_')) rest++;
        if (k > best_len && k < len && rest == len && strncasecmp(name((int)v), a, k) == 0) best = v, best_len = k;
    }
    if (best >= 0) return best;
    int limit = (int)len / 3 > 0 ? (int)len / 3 : 1, best_d = limit + 1;
    for (int cut = 0; cut < 2 && best < 0; cut++) /* the whole name, then the name cut near len */
        for (long long v = lo; v <= hi; v++) {
            const char *nm = name((int)v);
            size_t k = 0;
            for (; nm[k] && k < sizeof b - 1; k++) b[k] = (char)tolower((unsigned char)nm[k]);
            b[k] = 0;
            for (size_t keep = cut ? len - 1 : k; keep <= (cut ? len + 1 : k) && keep <= k; keep++) {
                if (cut && (len < 3 || keep == k)) break; /* the whole name is the first pass's */
                char c = b[keep];
                b[keep] = 0;
                int d = av_edit_distance(a, b);
                b[keep] = c;
                if (d < best_d) best = v, best_d = d;
            }
        }
    return best;
}

/* " (--compare takes one value, not a list: run attnviz once for each, e.g. --compare scale)" into out (cap bytes)
 * when s is two or more pieces, one or more of them the option's values (a name in any case, its Chinese word of
 * kChineseChoice, or a typo of a name that nearest_value reads: "scale,positoins" said only "is not allowed" where
 * "order,norm" got this; none of them: no e.g., and only with a separator other than a space), joined by ',',
 * '，' (av_utf8_list_sep), '、', spaces, or the '|' and '/' of the synopsis that README and --help write
 * (`--compare 'scale|norm'`, `--train 'sort/reverse'` got no hint, as if a list of values were one); else "".
 * "--compare 缩放，位置" and "--compare scale,positions" said only "is not allowed; expected scale, positions, ..."
 * (a Chinese-speaking learner's pass), as if neither were a value; the e.g. is the first value, in English, that
 * runs without --train (kChineseChoice's train: "--compare 层归一化,缩放" said "e.g. --compare norm", which is
 * refused without --train), or the first one followed by ", with --train" when each needs it; with train (1:
 * --train is on the command line, before or after this option) the first that runs with --train (train_rule),
 * else the first one and ", without --train" (`--train reverse --compare order,norm` said "e.g. --compare order",
 * which --train refuses); with ctx's CTX_MODEL alone the first that --model takes (runs_in), else the first one
 * and ", without --model" (`--model DIR --compare positions,order` said "e.g. --compare positions", which --model
 * refuses), and when none runs without --train either, the first one and ", with --train in place of --model".
 * ctx: CTX_TRAIN and CTX_MODEL, --train and --model on the command line, before or after this option. */
static void one_value_hint(char *out, size_t cap, const optdef *d, const char *s, int ctx) {
    const char *first = NULL, *plain = NULL; /* the first value, and the first that runs here (with --train or not) */
    const char *bare = NULL; /* the first that runs with neither --train nor --model */
    int parts = 0, listed = 0; /* listed: a separator other than a space ("my map" may be no list) */
    out[0] = 0;
    for (const char *p = s;;) {
        size_t len, k = 0, seplen = 0;
        const char *sep = av_utf8_list_sep(p, &len), *ideo = strstr(p, "、"), *sp = strpbrk(p, " |/");
        const char *end = sep ? sep : p + strlen(p);
        seplen = sep ? len : 0;
        if (ideo && ideo < end) end = ideo, seplen = strlen("、");
        if (sp && sp < end) end = sp, seplen = 1;
        if (end > p) { /* a value, or an empty piece ("scale,,order"; spaces) that is skipped */
            const char *value = NULL;
            for (long long v = d->lo; !value && v <= d->hi; v++)
                if (strlen(d->choice_name((int)v)) == (size_t)(end - p) &&
                    strncasecmp(d->choice_name((int)v), p, (size_t)(end - p)) == 0)
                    value = d->choice_name((int)v);
            for (; !value && k < sizeof kChineseChoice / sizeof kChineseChoice[0]; k++)
                if (!strcmp(kChineseChoice[k].option, d->name) && strlen(kChineseChoice[k].word) == (size_t)(end - p) &&
                    !strncmp(kChineseChoice[k].word, p, (size_t)(end - p)))
                    value = kChineseChoice[k].value;
            /* else a typo of one ("scale,positoins"), as read_choice's "did you mean" names it, else none: the list
             * is told as a list whatever its pieces ("scale,positoins" said only "is not allowed") */
            long long typo = value ? -1 : nearest_value(p, (size_t)(end - p), d->choice_name, d->lo, d->hi);
            if (typo >= 0) value = d->choice_name((int)typo);
            if (value && !first) first = value;
            /* --compare norm needs --train, --compare order is refused by it and by --model */
            if (value && !plain && runs_in(d->name, value, ctx)) plain = value;
            if (value && !bare && runs_in(d->name, value, 0)) bare = value;
            parts++;
        }
        if (!*end) break;
        listed |= *end != ' ';
        p = end + seplen;
    }
    /* with --model and none that runs there, one that runs without it (`--model DIR --compare norm,order` said
     * "e.g. --compare norm, with --train", which --model and --train together refuse), else the first, which needs
     * --train in its place */
    if (!plain && !(ctx & CTX_TRAIN) && (ctx & CTX_MODEL) && bare) first = bare;
    if (parts >= 2 && !first && listed) /* none is a value nor a typo of one ("foo,bar"), but a list all the same */
        snprintf(out, cap, " (--%s takes one value, not a list: run attnviz once for each)", d->name);
    else if (parts >= 2 && first)
        snprintf(out, cap, " (--%s takes one value, not a list: run attnviz once for each, e.g. --%s %s%s)", d->name,
                 d->name, plain ? plain : first, plain ? "" : ctx & CTX_TRAIN ? ", without --train"
                 : (ctx & CTX_MODEL) && first == bare ? ", without --model"
                 : ctx & CTX_MODEL ? ", with --train in place of --model" : ", with --train");
}

/* One of the names d->choice_name(d->lo .. d->hi), in any case, as matplotlib's savefig takes format="SVG"
 * and --cmap took "MAGMA" (--format SVG was an error while --cmap VIRIDIS worked: a tester's report). ctx:
 * CTX_TRAIN and CTX_MODEL, --train and --model on the command line, so a hint names a value that runs with them. */
static av_status read_choice(const optdef *d, const char *s, int *out, int ctx, av_err *err) {
    for (long long v = d->lo; v <= d->hi; v++) {
        const char *name = d->choice_name((int)v);
        if (strcasecmp(s, name) == 0) {
            *out = (int)v;
            return AV_OK;
        }
    }
    char allowed[256] = "";
    if (d->allowed) snprintf(allowed, sizeof allowed, "%s", d->allowed);
    for (long long v = d->lo; !d->allowed && v <= d->hi; v++) {
        size_t at = strlen(allowed);
        snprintf(allowed + at, sizeof allowed - at, "%s%s", v == d->lo ? "" : v == d->hi ? " or " : ", ",
                 d->choice_name((int)v));
    }
    char hint[256]; /* "--positions ｒｏｐｅ", typed in an input method's full-width mode; "--cmap viridis。" */
    one_value_hint(hint, sizeof hint, d, s, ctx); /* "--compare 缩放，位置" */
    if (!hint[0]) chinese_choice_hint(hint, sizeof hint, d->name, s, strlen(s), NULL, ctx); /* "--compare 缩放" */
    if (!hint[0]) full_width_hint(hint, sizeof hint, s, -1, d->choice_name, (int)d->lo, (int)d->hi, 0, 0, 0);
    /* else the name it is a typo of: "--cmap 'RdBu' is not a colour map" named none */
    long long best = hint[0] ? -1 : nearest_value(s, strlen(s), d->choice_name, d->lo, d->hi);
    if (best >= 0) snprintf(hint, sizeof hint, " (did you mean %s?)", d->choice_name((int)best));
    if (d->noun)
        return av_fail(err, AV_EUSAGE, "--%s %s is not a %s%s; expected %s", d->name, SHOW_WORD(s), d->noun, hint,
                       allowed);
    return av_fail(err, AV_EUSAGE, "--%s %s is not allowed%s; expected %s", d->name, SHOW_WORD(s), hint, allowed);
}

/* A code point a figure would draw as a box in a one-line text: a control
 * character (general category Cc: C0, DEL, C1) or a line or paragraph
 * separator (Zl, Zp). */
static int breaks_line(unsigned cp) {
    av_ucat cat = av_utf8_category(cp);
    return cat == AV_UC_CC || cat == AV_UC_ZL || cat == AV_UC_ZP;
}

/* A space that the shell does not split words at: a Unicode space separator (Zs) other than ASCII ' ', such as
 * U+3000 IDEOGRAPHIC SPACE, which a Chinese or Japanese input method types in full-width mode (全角), or U+00A0
 * NO-BREAK SPACE, which text copied from a web page or PDF carries. `--heads　8 "我爱"` or `--heads 8　"我爱"` (a
 * Chinese-speaking student's pass) made one word of the option, its value and the sentence, and the messages
 * named none of it: "unknown option '--heads　8'", "--heads '8　我爱深度学习' is not a whole number", "no sentence
 * given (the last argument, '爱,习　我爱深度学习', is the value of --explain: the text goes after it)". Its byte
 * offset in s, or -1; *cp gets it. */
static long wide_space_at(const char *s, unsigned *cp) {
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        unsigned c;
        const char *why;
        int k = av_utf8_decode(p, (size_t)(end - p), &c, &why);
        if (k <= 0) {
            p++;
            continue;
        }
        if (c >= 0x80 && av_utf8_category(c) == AV_UC_ZS) {
            *cp = c;
            return (long)(p - (const unsigned char *)s);
        }
        p += k;
    }
    return -1;
}

/* When s holds a wide_space_at space: "the space after 'X' is U+3000 IDEOGRAPHIC SPACE (全角空格), which a Chinese
 * input method types in full-width mode, and the shell splits words only at the ASCII space, so SO; type a
 * half-width space (半角) there" into out (n bytes), returning 1; else 0 and "". */
static int wide_space_hint(char *out, size_t n, const char *s, const char *so) {
    unsigned cp = 0;
    long at = wide_space_at(s, &cp);
    out[0] = 0;
    if (at < 0) return 0;
    char before[200] = ""; /* "after 'X'", X one word (SHOW_WORD): 'runs/it's' was an open quote */
    if (at > 0) {
        size_t keep = (size_t)at; /* the last 24 bytes before it, whole characters */
        const char *from = s;
        while (keep > 24) {
            size_t k = av_utf8_char_len(from);
            if (!k) k = 1;
            from += k, keep -= k;
        }
        char piece[80];
        snprintf(piece, sizeof piece, "%s%.*s", from > s ? "…" : "", (int)keep, from);
        snprintf(before, sizeof before, "after %s", SHOW_WORD(piece));
    }
    const char *what = cp == 0x3000 ? "U+3000 IDEOGRAPHIC SPACE (全角空格), which a Chinese or Japanese input method "
                                      "types in full-width mode"
                       : cp == 0x00A0 ? "U+00A0 NO-BREAK SPACE, which text copied from a web page or PDF carries"
                                      : NULL;
    char other[64];
    if (!what) snprintf(other, sizeof other, "U+%04X, a Unicode space", cp), what = other;
    snprintf(out, n, "the space %s is %s, and the shell splits words only at the ASCII space, so %s; type a "
             "half-width space (半角) there", at > 0 ? before : "at its start", what, so);
    return 1;
}

/* shown (n bytes) = s for a message: at most 64 bytes, each invalid byte as
 * \xHH and each breaks_line code point as U+XXXX, so the message stays one
 * line of valid UTF-8. */
static void show_value(char *shown, size_t n, const char *s) {
    size_t at = 0, len = strlen(s), i = 0;
    while (i < len && i < 64 && at + 12 < n) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode((const unsigned char *)s + i, len - i, &cp, &why);
        if (k == 0) at += (size_t)snprintf(shown + at, n - at, "\\x%02X", (unsigned char)s[i]);
        else if (breaks_line(cp)) at += (size_t)snprintf(shown + at, n - at, "<U+%04X>", cp);
        else at += (size_t)snprintf(shown + at, n - at, "%.*s", k, s + i);
        i += k ? (size_t)k : 1;
    }
    snprintf(shown + at, n - at, "%s", i < len ? "…" : "");
}

/* show_value's s as the message's prose quotes a value, one shell word in single quotes (av_quoted_word): 'abc'
 * as '%s' wrote it, "it's" as 'it'\''s', where '%s' gave 'it's', an open quote to a shell the value is pasted
 * back into (a tester's pass). Into buf (n >= 16 bytes; SHOW_WORD_MAX holds any show_value's whole); returns buf.
 * No errors. */
static const char *show_word(char *buf, size_t n, const char *s) {
    char sv[160];
    show_value(sv, sizeof sv, s);
    return av_quoted_word(buf, n, sv);
}
/* s (--name's value) is valid UTF-8 without a breaks_line code point; what
 * says why ("a title is one line of text"). */
static av_status check_one_line(const char *name, const char *s, const char *what, av_err *err) {
    av_err uerr;
    if (av_utf8_check(s, strlen(s), &uerr)) return av_fail(err, AV_EUSAGE, "--%s %s: %s", name, SHOW_WORD(s), uerr.msg);
    for (size_t i = 0, len = strlen(s); i < len;) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode((const unsigned char *)s + i, len - i, &cp, &why);
        if (breaks_line(cp))
            return av_fail(err, AV_EUSAGE, "--%s %s contains a %s (U+%04X at byte %zu); %s", name, SHOW_WORD(s),
                           av_utf8_category(cp) == AV_UC_CC ? "control character" : "line break", cp, i, what);
        i += (size_t)k;
    }
    return AV_OK;
}

/* 1 if s is "--NAME" or "--NAME=..." for an option NAME of kOpts or the
 * start of one, as getopt_long takes it ("--ste" for --steps), or "-X" for a
 * short option X ("-5" is a number: no short option is a digit). */
static int names_an_option(const char *s) {
    for (int i = 0; s[0] == '-' && s[1] && s[1] != '-' && !s[2] && i < N_OPTS; i++)
        if (kOpts[i].short_name == s[1]) return 1;
    if (strncmp(s, "--", 2) != 0) return 0;
    size_t len = strcspn(s + 2, "=");
    for (int i = 0; len && i < N_OPTS; i++)
        if (strlen(kOpts[i].name) >= len && strncmp(kOpts[i].name, s + 2, len) == 0) return 1;
    return 0;
}

/* A word of the sentence that is a long option typed with look-alike dashes: "——train" (a Chinese input
 * method's "--"), "—-steps", "－－heads=2", "–model". It ran the single layer on the sentence "——train
 * reverse" with exit 0 (a Chinese-speaking tester's report), or said "--steps is an option of --train" of
 * `—-train reverse --steps 3`. Only one or two dashes, at least one not ASCII, then an option's whole name
 * (not a start of one) in ASCII or full-width letters ("－－ｈｅａｄｓ"), or one look-alike dash and a short
 * option's letter as the whole word ("－c", "－ｃ", "—H"): a sentence's "——好", "—a" or "－H2" is text.
 * After '--' every word is text. */
static av_status check_lookalike_dashes(int first, int argc, char **argv, av_err *err) {
    for (int i = 1; i < first; i++)
        if (strcmp(argv[i], "--") == 0) return AV_OK;
    for (int i = first; i < argc; i++) {
        const char *s = argv[i];
        unsigned cps[2] = {'-', '-'};
        int n = 0, fancy = 0;
        while (n < 2) {
            int k = av_utf8_lookalike_dash(s, &cps[n], NULL);
            if (k) fancy++;
            else if (*s == '-') k = 1, cps[n] = '-';
            else break;
            s += k;
            n++;
        }
        if (!fancy || !n) continue;
        /* the name in full-width letters too, as full-width mode types the whole word: "－－ｈｅａｄｓ ８" ran
         * the sentence "－－ｈｅａｄｓ ８ 我爱" at 1 head with exit 0 (a Chinese-speaking learner's pass) */
        char half[256];
        int wide = av_utf8_halfwidth_text(half, sizeof half, s, NULL);
        if (wide < 0) continue;
        /* one look-alike dash and one short option's letter, ASCII or full-width, the whole word: "－c" ran the
         * sentence "－ c 我爱深度学习" without the mask and "－H 2 我爱" as 5 tokens at 1 head, exit 0 (a
         * Chinese-speaking learner's pass). Only a whole word of one letter that is a short option (d H s p c o
         * w f v q m h V, case as typed): a sentence's "—a", "—I" or "－H2" is text */
        for (int o = 0; n == 1 && strlen(half) == 1 && o < N_OPTS; o++) {
            if (!kOpts[o].short_name || kOpts[o].short_name != half[0]) continue;
            int ime = cps[0] == 0x2014 || cps[0] == 0xFF0D;
            return av_fail(err, AV_EUSAGE, "%s is not the option -%c (--%s): it starts with U+%04X, not an ASCII "
                           "hyphen '-'%s (%s); type -%c, or give text that starts this way after '--'", SHOW_WORD(argv[i]),
                           half[0], kOpts[o].name, cps[0], wide ? ", and its letter is full-width" : "",
                           ime ? "a Chinese input method types '－' or '—' for '-': switch it to English or "
                                 "half-width input"
                               : "an editor or chat app may turn '-' into a dash: retype it",
                           half[0]);
        }
        size_t len = strcspn(half, "="), shown = 0; /* shown: the bytes of s that make half's first len */
        for (size_t got = 0; got < len;) {
            const unsigned char *p = (const unsigned char *)s + shown;
            unsigned cp = av_utf8_next(&p);
            got += av_utf8_halfwidth(cp) ? 1 : (size_t)((const char *)p - (s + shown));
            shown = (size_t)((const char *)p - s);
        }
        for (int o = 0; len && o < N_OPTS; o++) {
            if (strlen(kOpts[o].name) != len || strncmp(kOpts[o].name, half, len) != 0) continue;
            char which[64];
            if (n == 1) snprintf(which, sizeof which, "U+%04X", cps[0]);
            else snprintf(which, sizeof which, "U+%04X U+%04X", cps[0], cps[1]);
            int ime = cps[0] == 0x2014 || cps[0] == 0xFF0D || cps[1] == 0x2014 || cps[1] == 0xFF0D;
            char typed[160]; /* the word up to the name's end */
            snprintf(typed, sizeof typed, "%.*s", (int)(s - argv[i]) + (int)shown, argv[i]);
            return av_fail(err, AV_EUSAGE, "%s is not the option --%s: it starts with %s, not two ASCII "
                           "hyphens '--'%s (%s); type --%s, or give text that starts this way after '--'",
                           SHOW_WORD(typed), kOpts[o].name, which,
                           strncmp(s, half, shown) != 0 ? ", and its name is in full-width letters" : "",
                           ime ? "a Chinese input method types '——' or '－－' for '--': switch it to English or "
                                 "half-width input"
                               : "an editor or chat app may turn '--' into a dash: retype it",
                           kOpts[o].name);
        }
    }
    return AV_OK;
}

/* s, an option's value, as one shell word for a command the user pastes back (av_shell_word), into buf (n >= 16
 * bytes; a longer word is cut, as av_shell_word cuts); returns buf. A leading "~" or "~/" stays outside the
 * quotes, where the shell expands it to the home folder ("~/it's x" is ~/'it'\''s x'; '~/it'\''s x' would name a
 * folder "~" here): `-f "~/it's x"` was told "type --file ~/it's x (a space, no quotes)", which bash reads as an
 * open quote (a tester's pass). No errors. */
static const char *paste_word(char *buf, size_t n, const char *s) {
    size_t home = s[0] == '~' && (s[1] == '/' || !s[1]) ? (s[1] ? 2 : 1) : 0;
    memcpy(buf, s, home);
    if (s[home] || !home) av_shell_word(buf + home, n - home, s + home);
    else buf[home] = 0;
    return buf;
}
#define PASTE_WORD(s, n) paste_word((char[n]){0}, (n), (s))

/* s as paste_word writes it, whole, into buf (n bytes, NUL-terminated): buf, or NULL when the whole word does not
 * fit in n - 1 bytes or memory runs out, as a word cut to fit would paste back as another name (`-f "~/xxx...x"`,
 * 3000 x's, was told "type --file ~/xxx...x" of 200 bytes, no sign of the cut). No errors. */
static const char *whole_paste_word(char *buf, size_t n, const char *s) {
    size_t room = 12 * strlen(s) + 16; /* a byte is at most \ooo and the quotes around it, '$'\ooo'' */
    char *w = malloc(room);
    if (!w) return NULL;
    paste_word(w, room, s);
    size_t k = strlen(w);
    const char *got = k < n ? memcpy(buf, w, k + 1) : NULL;
    free(w);
    return got;
}


/* s as av_shell_word writes it, into buf (n >= 16 bytes): whole when it fits, else cut to n - 3 bytes with "..."
 * after it, as av_shown_word marks a cut; a blank --title of 200 spaces and a --title of 300 x's in the --no-plot
 * warning were cut at 80 bytes with no mark (a tester's pass). Returns buf. No errors. */
static const char *marked_shell_word(char *buf, size_t n, const char *s) {
    if (!whole_paste_word(buf, n, s)) av_shell_word(buf, n - 3, s), strcat(buf, "...");
    return buf;
}

/* AV_OK unless s is made only of Unicode spaces (Zs: ' ', U+3000 ideographic, U+00A0 no-break, U+2003 em ...),
 * invisible format characters (Cf: U+200B zero-width space, U+2060 word joiner, U+FEFF, U+200E
 * left-to-right mark), which draw and show nothing (--title $'\u200b' drew an invisible title and exited 0,
 * a figure-maker's pass), and combining marks (Mn, Mc, Me: U+0301, U+0308, U+20DD), which draw on the
 * character before them: with no letter, digit or symbol to carry them, no grapheme of s has a base
 * (UAX #29's clusters of s start with a space or a mark), so they show on a space or on nothing
 * (--title $'\u0301' drew a lone accent over the title's first gap and exited 0, a lecture-notes author's
 * pass); then AV_EUSAGE: "--NAME 'S' is white space only; IF_EMPTY", "has no visible character (U+XXXX is an
 * invisible format character)" naming the first Cf, or "has no visible character ('<U+0301>': U+0301 is a
 * combining mark ...)" naming the first mark, the value shown with its marks, spaces but ' ' and format
 * characters as <U+XXXX>, as a lone mark sits on the quote before it. s is valid UTF-8; the message
 * quotes shown when not NULL, else s as av_shell_word writes it, in 80 bytes, or cut to 77 and "..." after it. */
static av_status check_not_blank(const char *name, const char *s, const char *shown, const char *if_empty,
                                  av_err *err) {
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    unsigned cp, format = 0, mark = 0;
    const char *why;
    int k;
    av_ucat c;
    char marks[200] = ""; /* s with each code point but ' ' as <U+XXXX> (the first 16) */
    size_t at = 0;
    while (p < end && (k = av_utf8_decode(p, (size_t)(end - p), &cp, &why)) > 0 &&
           ((c = av_utf8_category(cp)) == AV_UC_ZS || c == AV_UC_CF || c == AV_UC_MN || c == AV_UC_MC ||
            c == AV_UC_ME)) {
        if (c == AV_UC_CF && !format) format = cp;
        if ((c == AV_UC_MN || c == AV_UC_MC || c == AV_UC_ME) && !mark) mark = cp;
        if (at + 12 < sizeof marks - 4)
            at += (size_t)(cp == ' ' ? snprintf(marks + at, sizeof marks - at, " ")
                                     : snprintf(marks + at, sizeof marks - at, "<U+%04X>", cp));
        else if (!strstr(marks, "\xE2\x80\xA6")) at += (size_t)snprintf(marks + at, sizeof marks - at, "\xE2\x80\xA6");
        p += k;
    }
    if (p < end || !*s) return AV_OK;
    char word[240];
    if (mark) {
        av_quoted_word(word, sizeof word, marks);
        return av_fail(err, AV_EUSAGE, "--%s %s has no visible character (U+%04X is a combining mark, which draws on "
                       "the letter, digit or symbol before it, and %s has none); %s", name, word, mark,
                       shown ? "the name" : "the value", if_empty);
    }
    if (shown) av_quoted_word(word, sizeof word, shown);
    else marked_shell_word(word, 80, s);
    if (format)
        return av_fail(err, AV_EUSAGE, "--%s %s has no visible character (U+%04X is an invisible format character); "
                       "%s", name, word, format, if_empty);
    return av_fail(err, AV_EUSAGE, "--%s %s is white space only; %s", name, word, if_empty);
}

/* The bytes of an emoji tag sequence's tags at s[i..len) (UTS #51 ED-14a: 1 to 32 tags U+E0020..U+E007E,
 * then the cancel tag U+E007F), which follow U+1F3F4 (black flag) in the RGI flags of England, Scotland and
 * Wales (U+1F3F4 U+E0067 U+E0062 U+E0065 U+E006E U+E0067 U+E007F); 0 if s[i..] does not start such a run.
 * The tags are format characters (Cf), but with the flag before them they show, as the flag's country:
 * -o and --prefix refused the flag of England as "an invisible format character" (a tester's pass). */
static size_t emoji_tags(const char *s, size_t i, size_t len) {
    size_t at = i;
    for (int n = 0; at < len && n <= 32; n++) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode((const unsigned char *)s + at, len - at, &cp, &why);
        if (k <= 0 || cp < 0xE0020 || cp > 0xE007F) return 0;
        at += (size_t)k;
        if (cp == 0xE007F) return n > 0 ? at - i : 0;
    }
    return 0;
}

/* AV_OK if s (valid UTF-8), the value of --NAME, names files or a folder that can be seen and typed; else
 * AV_EUSAGE with the value shown with each invisible code point as <U+XXXX>. prefix: s starts every file's
 * name (--prefix), else it is a folder attnviz makes (-o, --dump), whose first from bytes name folders
 * already there (the user's, checked no further; from < strlen(s)). Refused (a figure-maker's pass: each ran
 * with exit 0): a name of white space or format characters only (check_not_blank: --prefix " " wrote
 * " head0.png", -o $'\u200b' a folder whose name shows as nothing); an invisible format character (Cf)
 * anywhere (--prefix $'v1\u200b' wrote files that ls shows as v1head0.png, a name that, typed, opens
 * nothing), except U+200C and U+200D between two non-ASCII characters, where Persian, Indic scripts and emoji
 * use them, and an emoji flag's tags after U+1F3F4 (emoji_tags); a Unicode space at the start (and, for a
 * folder, at the end) of the name and of each folder it would make ("figs /x" and "new/ x" too), which shows
 * as nothing at a name's edge; and, in a prefix, a leading '-' (--prefix - wrote -head0.png, which rm, ls and
 * cp read as an option; a folder -o --x, attached, is the user's on purpose, and "-o -" has its own
 * message). */
static av_status check_visible_name(const char *name, const char *s, int prefix, size_t from, av_err *err) {
    const char *example = prefix                    ? "give a name such as slide1_"
                          : strcmp(name, "dump") == 0 ? "give a folder name such as dump"
                                                      : "give a folder name such as figs";
    /* the value with its invisible code points shown (at most 64 bytes of it, as show_value) */
    char shown[232];
    size_t at = 0, len = strlen(s), i = 0, bad_at = 0;
    unsigned bad = 0, prev = 0;
    const char *what = NULL;
    int cut = 0;
    while (i < len) {
        unsigned cp, next = 0;
        const char *dummy;
        int k = av_utf8_decode((const unsigned char *)s + i, len - i, &cp, &dummy);
        if (k <= 0) return AV_OK; /* not UTF-8: check_one_line's or the file system's word */
        size_t tags = prev == 0x1F3F4 ? emoji_tags(s, i, len) : 0;
        if (tags) { /* a flag's tags show as the flag: kept as typed */
            if (i < 64 && at + tags + 1 < sizeof shown) at += (size_t)snprintf(shown + at, sizeof shown - at, "%.*s",
                                                                                (int)tags, s + i);
            else cut = 1;
            prev = 0xE007F, i += tags;
            continue;
        }
        if (i + (size_t)k < len) av_utf8_decode((const unsigned char *)s + i + k, len - i - k, &next, &dummy);
        av_ucat c = av_utf8_category(cp);
        int joiner = (cp == 0x200C || cp == 0x200D) && prev >= 0x80 && next >= 0x80 && !av_utf8_invisible(prev) &&
                     !av_utf8_invisible(next);
        /* each folder the run would make has its own edges: "figs /" and "figs /x" made "figs ", "new/ x" made
         * " x", as "figs " would have (a tester's pass) */
        int starts = i == from || (i > from && s[i - 1] == '/');
        int ends = !prefix && (i + (size_t)k == len || s[i + k] == '/');
        int hidden = i >= from && ((c == AV_UC_CF && !joiner) || (c == AV_UC_ZS && (starts || ends)));
        int shows = c == AV_UC_CF || c == AV_UC_CC || (c == AV_UC_ZS && cp != ' ');
        if (hidden && !bad) {
            bad = cp, bad_at = i;
            what = c == AV_UC_CF          ? "an invisible format character, which shows as nothing"
                   : i == 0               ? "a space at its start, which shows as nothing"
                   : starts               ? "a space at the start of a folder it would make, which shows as nothing"
                   : i + (size_t)k == len ? "a space at its end, which shows as nothing"
                                          : "a space at the end of a folder it would make, which shows as nothing";
        }
        if (i < 64 && at + 12 < sizeof shown)
            at += (size_t)(shows ? snprintf(shown + at, sizeof shown - at, "<U+%04X>", cp)
                                 : snprintf(shown + at, sizeof shown - at, "%.*s", k, s + i));
        else cut = 1;
        prev = cp;
        i += (size_t)k;
    }
    snprintf(shown + at, sizeof shown - at, "%s", cut ? "…" : "");
    char why[96];
    snprintf(why, sizeof why, "%s%s", example, prefix ? " (a prefix starts every file's name)" : "");
    av_status st = check_not_blank(name, s + from, shown, why, err);
    if (st) return st;
    if (bad)
        return av_fail(err, AV_EUSAGE, "--%s %s holds U+%04X (byte %zu), %s: %s would not be the name a "
                       "listing seems to show, and could not be typed from it; %s (a space between words is fine)",
                       name, AV_QUOTED_WORD(shown, 320), bad, bad_at, what,
                       prefix ? "the files' names" : "the folder's name", example);
    if (s[0] == '-' && prefix) { /* each a word: '%s' showed '-it's' and '-it'shead0.png' */
        char file[sizeof shown + 16];
        snprintf(file, sizeof file, "%shead0.png", shown);
        return av_fail(err, AV_EUSAGE, "--%s %s starts with '-', so the files' names would too (%s), and rm, ls, cp "
                       "and other tools read such a name as an option; %s", name, AV_QUOTED_WORD(shown, 320),
                       AV_QUOTED_WORD(file, 340), example);
    }
    return AV_OK;
}

/* 1 if d takes a file or folder name: its value may be an option's name only when that file exists. */
static int takes_a_path(const optdef *d) {
    static const char *const kPaths[] = {"outdir", "dump", "file", "weights", "attn-mask", "model"};
    for (size_t k = 0; k < sizeof kPaths / sizeof kPaths[0]; k++)
        if (strcmp(d->name, kPaths[k]) == 0) return 1;
    return 0;
}

/* Store the argument of row d into o; separate: arg was the next word, not
 * attached (--outdir=X, -oX), where it may be anything; last: that word was
 * the last argument (perhaps the sentence, typed without the value); ctx: CTX_TRAIN and CTX_MODEL, --train and
 * --model on the command line (context_given), for a choice's hints. */
static av_status apply(const optdef *d, av_options *o, const char *arg, int separate, int last, int ctx,
                       av_err *err) {
    char *field = (char *)o + d->offset;
    av_status st = AV_OK;
    long long whole;
    /* getopt takes the next word as the value, even an option: "--train --steps 100" read '--steps' as the task.
     * A number, choice or list is never "--NAME" or "-X", nor a path that does not exist, so say the value is
     * missing (a --title may be anything) */
    if (arg && separate && (d->kind != OPT_STRING || (takes_a_path(d) && access(arg, F_OK) != 0)) &&
        names_an_option(arg)) {
        /* as one word, '--heads=it'\''s' ('--heads=it's' was an open quote), and a long one cut with "…" as every
         * value is (show_word): its first 40 bytes, cut with no mark, read as the whole word */
        return av_fail(err, AV_EUSAGE, "option '--%s' needs %s%s%s, but the word after it is the option %s; give "
                       "the %s right after --%s", d->name, d->noun ? "a " : "a value", d->noun ? d->noun : d->arg ? " " : "",
                       d->noun ? "" : d->arg ? d->arg : "", SHOW_WORD(arg), d->noun ? d->noun : "value", d->name);
    }
    /* "--outdir=~/figs": the shell expands ~ only at a word's start, so the value kept it, and attnviz made a
     * folder named "~" here and said "wrote ~/figs/head0.png", which reads as the home folder (a figure-maker's
     * pass). Refused unless a folder named "~" is really here */
    if (arg && takes_a_path(d) && arg[0] == '~' && (arg[1] == '/' || !arg[1]) && access("~", F_OK) != 0) {
        /* each word whole or not given: `-f "~/xxx...x"` (3000 x's) said "type --file ~/xxx...x" cut at 200
         * bytes with no sign of the cut, "(a space, the ~ outside the quotes)" of a word with no quotes, and
         * "or the full path" with no path; and the advice fits the option: `-f '~'` was told "type --file ~ ...
         * or the full path, /root", a folder for an option that reads a file (a tester's pass) */
        const char *home = getenv("HOME");
        size_t len = strlen(arg);
        int folder = d->arg && strcmp(d->arg, "FILE") == 0 && (len <= 2 || arg[len - 1] == '/');
        char in[400] = "", path[800] = "", word[400], full[400]; /* a longer word is not given (whole_paste_word) */
        int has_word = 0, has_full = 0;
        if (len + 2 < sizeof in) {
            memcpy(in, arg, len + 1);
            if (folder && len == 1) memcpy(in + 1, "/", 2); /* "~" as "~/", the folder's */
            has_word = whole_paste_word(word, sizeof word, in) != NULL;
            if (home && *home && strlen(home) + strlen(in) < sizeof path) {
                memcpy(path, home, strlen(home) + 1);
                strcat(path, in + 1);
                has_full = whole_paste_word(full, sizeof full, path) != NULL;
            }
        }
        const char *quotes = has_word && strcmp(word, in) != 0 ? "the ~ outside the quotes" : "no quotes";
        char advice[1400];
        if (folder && has_word)
            snprintf(advice, sizeof advice, "--%s reads a file, and %s is a folder%s%s%s: type --%s %sNAME, NAME the "
                     "file's name in it (a space, %s)", d->name, word, has_full ? " (" : "", has_full ? full : "",
                     has_full ? ")" : "", d->name, word, quotes);
        else if (folder)
            snprintf(advice, sizeof advice, "--%s reads a file, and that path is a folder: type --%s, a space and the "
                     "path to the file in it, with the ~ outside any quotes (the path is too long to repeat here)",
                     d->name, d->name);
        else if (has_word)
            snprintf(advice, sizeof advice, "type --%s %s (a space, %s) or the full path%s%s", d->name, word, quotes,
                     has_full ? ", " : " from your home folder", has_full ? full : "");
        else
            snprintf(advice, sizeof advice, "type --%s, a space and the path, with the ~ outside any quotes, or the "
                     "full path (the path is too long to repeat here)", d->name);
        return av_fail(err, AV_EUSAGE, "--%s %s: the shell did not expand '~' (it does so only at the start of a "
                       "word, not after '=' or inside quotes), and there is no %s named '~' here; %s", d->name,
                       AV_SHOWN_WORD(arg, 200), len == 1 ? "file or folder" : "folder", advice);
    }
    /* "-o fig.png", as savefig takes a file: attnviz made a folder named fig.png, wrote fig.png/head0.png and
     * exited 0 (silently with -q; a figure-maker's pass). Refused unless that folder is really there; a
     * trailing '/' says a folder is meant */
    if (arg && d->offset == AT(outdir) && access(arg, F_OK) != 0 && *arg && arg[strlen(arg) - 1] != '/') {
        static const char *const kFileExt[] = {".png", ".svg", ".gif", ".html", ".pdf", ".jpg", ".jpeg"};
        size_t len = strlen(arg);
        for (size_t k = 0; k < sizeof kFileExt / sizeof *kFileExt; k++) {
            size_t el = strlen(kFileExt[k]);
            if (len > el && strcasecmp(arg + len - el, kFileExt[k]) == 0 && arg[len - el - 1] != '/') {
                char in[600];
                snprintf(in, sizeof in, "%s/head0.png", arg);
                return av_fail(err, AV_EUSAGE, "--%s %s names a file, but -o is the folder the figures go in (they "
                               "would be %s, ...); give a folder, e.g. -o figs, and --prefix NAME to start the "
                               "files' names (or end the folder's name in '/' if it is meant)", d->name,
                               AV_SHOWN_WORD(arg, 600), AV_SHOWN_WORD(in, 700));
            }
        }
    }
    /* "--dump d.npz", as np.savez takes a file: attnviz made a folder named d.npz holding tokens.txt and the
     * .npy files and exited 0 (silently with -q), and np.load('d.npz') then fails on a folder (a learner's pass
     * of the training chapter). Refused, as -o fig.png is, unless that folder is really there; a trailing '/'
     * says a folder is meant. The name is one shell word (av_shown_word), not '%s' ('it'\''s.npz', where
     * '%s' wrote 'it's.npz'), and np.load is named without it, as a Python literal would need its own quoting */
    if (arg && d->offset == AT(dump_dir) && access(arg, F_OK) != 0 && *arg && arg[strlen(arg) - 1] != '/') {
        static const char *const kTensorExt[] = {".npz", ".npy", ".pt", ".pth", ".h5", ".hdf5", ".pkl", ".mat",
                                                 ".safetensors", ".bin", ".ckpt", ".onnx", ".gguf"};
        size_t len = strlen(arg);
        for (size_t k = 0; k < sizeof kTensorExt / sizeof *kTensorExt; k++) {
            size_t el = strlen(kTensorExt[k]);
            if (len > el && strcasecmp(arg + len - el, kTensorExt[k]) == 0 && arg[len - el - 1] != '/') {
                char tokens[600], scores[600];
                snprintf(tokens, sizeof tokens, "%s/tokens.txt", arg);
                snprintf(scores, sizeof scores, "%s/scores.npy", arg);
                return av_fail(err, AV_EUSAGE, "--%s %s names a file, but --dump is the folder the .npy files go "
                               "in, one a tensor (they would be %s, %s, ...), and np.load cannot open a folder; "
                               "give a folder, e.g. --dump dump, and load each file, np.load('dump/scores.npy') (or "
                               "end the folder's name in '/' if it is meant)", d->name, AV_SHOWN_WORD(arg, 600),
                               AV_SHOWN_WORD(tokens, 700), AV_SHOWN_WORD(scores, 700));
            }
        }
    }
    /* "-o -" and "--dump -", as curl -o - and tar -f - mean standard output: attnviz made a folder named "-",
     * wrote -/head0.png and exited 0 (silently with -q). Refused unless that folder is really there; "./-"
     * names it */
    if (arg && (d->offset == AT(outdir) || d->offset == AT(dump_dir)) && strcmp(arg, "-") == 0 &&
        access(arg, F_OK) != 0)
        return av_fail(err, AV_EUSAGE, "--%s '-' is not standard output: %s go into a folder, and '-' would make one "
                       "named '-' (only -f - and --attn-mask - read standard input); give a folder, e.g. %s, or "
                       "./- if a folder named '-' is meant", d->name,
                       d->offset == AT(outdir) ? "the figures" : "the .npy files",
                       d->offset == AT(outdir) ? "-o figs" : "--dump dump");
    /* "-o -x", the folder's name a separate word starting with '-': getopt takes it, as GNU sort -o -x and gcc -o -x
     * write a file named "-x", and attnviz made a folder "-x" and exited 0 (silently with -q), while --prefix -x is
     * refused because rm, ls and cp read such a name as an option; the folder is named in those commands as the
     * prefix is, and a word starting with '-' after -o is more often a slip (a forgotten folder, a mistyped option)
     * than a name. Refused unless that folder is there; "./-x" names it, and an attached --outdir=-x is the user's
     * on purpose, as --outdir=--heads is */
    char first[4200] = ""; /* the name's first folder, "-x" of "-x/figs": the user's when it is there */
    if (arg && separate && (d->offset == AT(outdir) || d->offset == AT(dump_dir)) && arg[0] == '-' && arg[1] &&
        strcspn(arg, "/") < sizeof first &&
        (memcpy(first, arg, strcspn(arg, "/")), access(first, F_OK) != 0)) {
        char dot[4200], word[320]; /* ./NAME, to paste: given whole or not at all (whole_paste_word) */
        snprintf(dot, sizeof dot, "./%s", arg);
        int has_word = whole_paste_word(word, sizeof word, dot) != NULL;
        return av_fail(err, AV_EUSAGE, "--%s %s starts with '-', so the folder's name would too, and rm, ls, cp and "
                       "other tools read such a name as an option; give a folder name such as %s, or %s%s if a folder "
                       "of that name is meant", d->name, AV_QUOTED_WORD(arg, 320), d->offset == AT(outdir) ? "figs" : "dump",
                       has_word ? word : "the name with ./ before it", has_word ? "" : " (./-x for -x)");
    }
    if (arg && takes_a_path(d) && d->offset != AT(outdir) && d->offset != AT(dump_dir) && access(arg, F_OK) != 0) {
        char so[800], hint[1200]; /* "--model runs/toy　"3 1 4 >"": one word, no such folder */
        const char *shown = AV_QUOTED_WORD(arg, 100); /* a path, as one shell word: '%s' showed 'runs/it's　3' */
        snprintf(so, sizeof so, "--%s got %s as its value, one word, which names no file or folder", d->name, shown);
        if (wide_space_hint(hint, sizeof hint, arg, so)) return av_fail(err, AV_EUSAGE, "--%s %s: %s", d->name, shown, hint);
    }
    switch (d->kind) {
    case OPT_FLAG: *(int *)field = 1; break;
    case OPT_INT:
        if (!(st = read_whole(d, arg, &whole, ctx, err))) *(int *)field = (int)whole;
        break;
    case OPT_U64:
        if (!(st = read_whole(d, arg, &whole, ctx, err))) *(uint64_t *)field = (uint64_t)whole;
        break;
    case OPT_DOUBLE: st = read_number(d, arg, (double *)field, err); break;
    case OPT_STRING:
        if (!*arg && d->if_empty) return av_fail(err, AV_EUSAGE, "--%s '' is empty; %s", d->name, d->if_empty);
        if (d->one_line) {
            char why[64];
            snprintf(why, sizeof why, "a %s is one line of text", d->one_line);
            if ((st = check_one_line(d->name, arg, why, err))) return st;
        }
        if (d->one_line && d->if_empty) /* --title ' ' drew a title of nothing: "· head 0 of 1 ..." (a tester's report) */
            if ((st = check_not_blank(d->name, arg, NULL, d->if_empty, err))) return st;
        /* -o and --dump name a folder that attnviz makes: one that cannot be seen or typed is refused; the
         * folders already there (the longest part of the path that exists) are the user's */
        if (d->offset == AT(outdir) || d->offset == AT(dump_dir)) {
            char part[4096]; /* a longer path is checked whole */
            size_t from = 0, len = strlen(arg);
            for (size_t i = len; i > 0 && !from && len < sizeof part; i--)
                if (i == len || arg[i] == '/') {
                    memcpy(part, arg, i), part[i] = 0;
                    if (access(part, F_OK) == 0) from = i == len ? len : i + 1;
                }
            if (from < len && (st = check_visible_name(d->name, arg, 0, from, err))) return st;
        }
        /* --explain's form is known before the tokens: `--explain "3 1 4 1 5 >"` with no text after it took the
         * text as its value, and the run said "no input text given" (a new user's report) */
        if (d->offset == AT(explain) && (st = av_explain_check_form(arg, last, NULL, err))) return st;
        *(const char **)field = arg;
        break;
    case OPT_CHOICE: st = read_choice(d, arg, (int *)field, ctx, err); break;
    case OPT_CALL: st = d->parse == parse_figures ? read_figures(o, arg, ctx, err)
                                                    : d->parse(o, arg, err); break;
    }
    /* a number or a name that a full-width or no-break space joined to the next word ("--heads 8　我爱深度学习"):
     * say so, not only that '8　我爱深度学习' is no number (a list, text or file name may hold such a space) */
    int one_value = d->kind == OPT_INT || d->kind == OPT_U64 || d->kind == OPT_DOUBLE || d->kind == OPT_CHOICE ||
                    d->parse == parse_vmax || d->parse == parse_layer;
    char so[800], hint[1200];
    if (st && arg && one_value) {
        snprintf(so, sizeof so, "--%s got %s as its value, one word", d->name, SHOW_WORD(arg));
        if (wide_space_hint(hint, sizeof hint, arg, so))
            return av_fail(err, st, "--%s %s: %s", d->name, SHOW_WORD(arg), hint);
    }
    return st;
}

static const char *vmax_word(int i) { return i ? "fixed" : "auto"; }

/* --vmax auto | fixed | F (0 < F <= 1). */
static av_status parse_vmax(av_options *o, const char *s, av_err *err) {
    char sv[160]; /* at most 64 bytes of it in a message (show_value) */
    show_value(sv, sizeof sv, s);
    if (strcasecmp(s, "auto") == 0) return o->vmax_mode = AV_VMAX_AUTO, AV_OK; /* any case, as every named value */
    if (strcasecmp(s, "fixed") == 0) return o->vmax_mode = AV_VMAX_FIXED, AV_OK;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || !isfinite(v) || !is_decimal(s, 1)) {
        char hint[256]; /* "--vmax ０.５", "--vmax ａｕｔｏ", "--vmax 0。5" */
        full_width_hint(hint, sizeof hint, s, 1, vmax_word, 0, 1, 0, 1, 1);
        if (!hint[0]) chinese_hint(hint, sizeof hint, s, 1, 0, 1, 1); /* "--vmax 零点五" */
        long long best = hint[0] ? -1 : nearest_value(s, strlen(s), vmax_word, 0, 1); /* "--vmax atuo" */
        if (best >= 0) snprintf(hint, sizeof hint, " (did you mean %s?)", vmax_word((int)best));
        return av_fail(err, AV_EUSAGE, "--vmax %s is not allowed%s; allowed: auto, fixed, or a number in (0, 1]",
                       SHOW_WORD(s),
                       hint);
    }
    av_status tiny = check_float32_tiny("vmax", sv, v, errno == ERANGE, "auto, fixed, or a number in 1.1755e-38..1", err);
    if (tiny) return tiny; /* 5e-324 drew a 0..1 colour bar */
    if (!(v > 0 && v <= 1))
        return av_fail(err, AV_EUSAGE, "--vmax %s is outside the allowed range (0, 1]", sv);
    o->vmax_mode = AV_VMAX_VALUE;
    o->vmax = v;
    return AV_OK;
}

/* The typo's nearest name: the index i < n of the first name(i) within 2 edits and a third of len
 * (av_edit_distance, swaps count 1: casual → causal; "head" → heads), in any case ("--HTML"); -1 when none,
 * and for a typo of one letter, which is no typo of a short name ("e" of "pe": a tester's pass) or too long
 * to read (typed[0..len) is not NUL-terminated). A teacher's pass: "--casual" said only "unknown option". */
static int nearest_name(const char *typed, size_t len, const char *(*name)(int), int n) {
    char low[64];
    if (len < 2 || len >= sizeof low) return -1;
    for (size_t i = 0; i < len; i++) low[i] = (char)tolower((unsigned char)typed[i]);
    low[len] = 0;
    int best = -1, best_d = 3, limit = (int)len / 3 > 0 ? (int)len / 3 : 1;
    for (int i = 0; i < n; i++) {
        int d = av_edit_distance(low, name(i));
        if (d <= limit && d < best_d) best = i, best_d = d;
    }
    return best;
}

static const char *const kFig[] = {"heads", "grid", "mean", "scores", "pe", "mask", "model", "all"};
static const char *fig_name(int i) { return kFig[i]; }
static const char *opt_name(int i) { return kOpts[i].name; }

/* --figures LIST: comma-separated names, each one of kFig in any case; "all" selects
 * every figure. Sets o->figures and o->figures_all. */
/* The name in [p, p + *len) without the separators around it (' ', U+3000 that a Chinese input method
 * types after '，', U+00A0, a tab: av_utf8_is_separator), as --explain reads its QUERY and KEY: "heads, grid"
 * and "heads，　grid" were refused ("' grid' is not a figure") where --explain took "爱，　习". Returns
 * the name's start; *len becomes its length, 0 when the part is separators only. */
static const char *trim_separators(const char *p, size_t *len) {
    const unsigned char *u = (const unsigned char *)p, *stop = u + *len;
    const char *first = NULL, *end = p;
    while (u < stop) {
        const unsigned char *at = u;
        if (!av_utf8_is_separator(av_utf8_next(&u))) {
            if (!first) first = (const char *)at;
            end = (const char *)u;
        }
    }
    *len = first ? (size_t)(end - first) : 0;
    return first ? first : p;
}

static av_status parse_figures(av_options *o, const char *s, av_err *err) { return read_figures(o, s, 0, err); }

/* --figures LIST into o->figures (AV_FIG_* bits; figures_all for all), each name in any case, ',' or '，' between
 * them; AV_EUSAGE naming the first that is no figure, with a hint that runs in ctx (CTX_TRAIN, CTX_MODEL: --train,
 * --model on the command line): `--model DIR --figures 平均图` said "type --figures mean", which --model refuses. */
static av_status read_figures(av_options *o, const char *s, int ctx, av_err *err) {
    static const char allowed[] = "heads, grid, mean, scores, pe, mask or all; with --model: model, grid, heads, pe or all";
    unsigned bits = 0;
    o->figures_all = 0;
    const char *p = s;
    for (;;) {
        size_t sep = 0;
        const char *end = av_utf8_list_sep(p, &sep); /* ',' or '，' */
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *name = trim_separators(p, &len); /* "heads, grid" */
        if (len == 0)
            return av_fail(err, AV_EUSAGE, "--figures %s has an empty name; expected a comma-separated list of %s",
                           SHOW_WORD(s), allowed);
        int k = 0;
        while (k < 8 && !(strlen(kFig[k]) == len && strncasecmp(name, kFig[k], len) == 0)) k++; /* any case */
        if (k == 8) { /* "head" for heads: the nearest name within 2 edits and a third of its length, as options */
            char near[900] = ""; /* fw's hint, or figure_list_hint's, fits whole */
            char note[192]; /* ", without --model": the name runs with the list only so (figure_note) */
            char one_h[65], fw[256], lead[400], half[65], sh[200]; /* "ｈｅａｄｓ", "heads。" */
            snprintf(one_h, sizeof one_h, "%.*s", (int)(len > 64 ? 64 : len), name);
            av_utf8_trim_cut(one_h); /* 64 bytes may end inside a character */
            long long best = nearest_value(name, len, fig_name, 0, 7);
            if (best >= 0) /* the list's other names, each fixed, or another that --model decides: named */
                snprintf(lead, sizeof lead, "%s is a typo of %s", av_shown_word(sh, sizeof sh, one_h), kFig[best]);
            if (best >= 0 && figure_list_hint(near, sizeof near, s, name, len, kFig[best], lead, 0, ctx)) {
            } else if (best >= 0) {
                figure_note(note, sizeof note, s, name, len, kFig[best], ctx);
                if (note[0] == ';') /* "maen,model": mean and model run in no one run */
                    snprintf(near, sizeof near, " (did you mean %s? %s)", kFig[best], note + 2);
                else snprintf(near, sizeof near, " (did you mean %s%s?)", kFig[best], note);
            }
            int other = 0; /* "ｍａｅｎ": a typo in full-width letters, as fixed_figure reads one after the first */
            long long wide = best < 0 && av_utf8_halfwidth_text(half, sizeof half, one_h, &other) > 0 && !other
                                 ? nearest_value(half, strlen(half), fig_name, 0, 7) : -1;
            if (wide >= 0 && strcasecmp(half, kFig[wide])) {
                snprintf(lead, sizeof lead, "%s is a typo of %s typed in full-width letters", one_h, kFig[wide]);
                figure_list_hint(near, sizeof near, s, name, len, kFig[wide], lead, 1, ctx);
            }
            const char *nonsep = av_utf8_not_a_list_sep(s); /* "heads、grid" */
            full_width_hint(fw, sizeof fw, one_h, -1, fig_name, 0, 7, 0, 0, 0);
            for (int v = 0; fw[0] && v < 8; v++) { /* the name it reads as: "ｍｅａｎ" is mean */
                char one_fw[256];
                full_width_hint(one_fw, sizeof one_fw, one_h, -1, fig_name, v, v, 0, 0, 0);
                if (!one_fw[0]) continue;
                /* "ｈｅａｄｓ,model": heads runs without --model, model needs it; "ｈｅａｄｓ,modle": both named */
                snprintf(lead, sizeof lead, "%s is %s typed in full-width letters", one_h, kFig[v]);
                if (figure_list_hint(near, sizeof near, s, name, len, kFig[v], lead, 0, ctx)) {
                    fw[0] = 0;
                    break;
                }
                figure_note(note, sizeof note, s, name, len, kFig[v], ctx);
                if (note[0] && strlen(fw) + strlen(note) < sizeof fw) /* before its ')' */
                    snprintf(fw + strlen(fw) - 1, sizeof fw - strlen(fw) + 1, "%s)", note);
                break;
            }
            if (fw[0]) snprintf(near, sizeof near, "%s", fw);
            chinese_choice_hint(fw, sizeof fw, "figures", name, len, s, ctx); /* "热力图": the docs' word for heads */
            if (fw[0]) snprintf(near, sizeof near, "%s", fw);
            if (!near[0] && nonsep) snprintf(near, sizeof near, " (%s does not separate names: type ',' or '，')", nonsep);
            char one[65];
            snprintf(one, sizeof one, "%.*s", (int)(len > 64 ? 64 : len), name);
            av_utf8_trim_cut(one);
            return av_fail(err, AV_EUSAGE, "--figures %s: %s is not a figure%s; expected a comma-separated list of %s",
                           SHOW_WORD(s), SHOW_WORD(one), near, allowed);
        }
        if (k == 7) {
            bits |= AV_FIG_ALL;
            o->figures_all = 1;
        } else {
            bits |= 1u << k;
        }
        if (!end) break;
        p = end + sep;
    }
    o->figures = bits;
    o->figures_arg = s;
    return AV_OK;
}

/* out (n bytes) = the count words joined as English lists them: "a", "a or
 * b", "a, b or c" (last is the final separator, " or " or " and "); "" for
 * none. Cut to fit. */
static void join_words(char *out, size_t n, const char *const *words, int count, const char *last) {
    size_t at = 0;
    out[0] = 0;
    for (int k = 0; k < count && at < n; k++)
        at += (size_t)snprintf(out + at, n - at, "%s%s", k == 0 ? "" : k == count - 1 ? last : ", ", words[k]);
}

/* --layer L: any whole number here; 0..L-1 is checked once the --model is
 * loaded and its layer count known (app/gpt2run.c), so the message can say
 * what this model allows. */
/* The layer count is not known here: with --model it is the model's, loaded later, and with --train --layer has no
 * effect (its warning asks "did you mean --layers N?"): a hint naming the trained model's last layer, "--train
 * reverse --layers 2 --layer ５ ... so the last layer is --layer 1", led to "did you mean --layers 1?" where the
 * learner had meant 5 (a review of the change). */
static av_status parse_layer(av_options *o, const char *s, av_err *err) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    /* a whole number past the range goes on as one the model's rule refuses, as typed: "--layer
     * 99999999999999999999" was told "is not a layer number", where --layer 2 gets "is outside 0..1" (a pass
     * over the options' boundaries) */
    if (end != s && *end == 0 && is_decimal(s, 0) && (errno == ERANGE || v < -1000000 || v > 1000000)) {
        o->layer = v < 0 ? INT_MIN : INT_MAX;
        return AV_OK;
    }
    if (end == s || *end != 0 || !is_decimal(s, 0)) {
        char hint[400]; /* 第１层's two indexes */
        /* from 0: no model takes a layer below it (`--layer -１` was told "type the half-width -1, 半角") */
        full_width_hint(hint, sizeof hint, s, 0, NULL, 0, 0, 0, HUGE_VAL, 0); /* "--layer １" */
        if (!hint[0]) av_ordinal_hint(hint, sizeof hint, "layer", s, -1); /* "--layer 第一层" */
        if (!hint[0]) index_name_hint(hint, sizeof hint, "layer", s, 0); /* "--layer L1" */
        if (!hint[0]) chinese_hint(hint, sizeof hint, s, 0, 0, HUGE_VAL, 0); /* "--layer 一" */
        index_past_hint(hint, sizeof hint, "layer", 0, reads_negative(s)); /* "--layer 负一": leave it out */
        char point[256];
        if (!hint[0] && whole_with_point(point, sizeof point, "layer", s, 0, LLONG_MAX)) {
            if (reads_negative(s)) append_last_head(point, sizeof point, "layer", 0, 1); /* "--layer -1.0" */
            return av_fail(err, AV_EUSAGE, "%s; allowed: 0..L-1, L the --model's layers", point);
        }
        return av_fail(err, AV_EUSAGE, "--layer %s is not a layer number%s; allowed: 0..L-1, L the --model's "
                       "layers (its config.json's n_layer, or num_hidden_layers for Llama and Qwen2)", SHOW_WORD(s), hint);
    }
    o->layer = (int)v;
    return AV_OK;
}

/* --prefix NAME: part of a file name, so no '/' and not empty; not starting with '.', which hid every file
 * it named: `--prefix .` wrote .head0.png and .heads.png, which ls and file managers do not show, with exit 0
 * and no word (a figure-maker's pass). */
static av_status parse_prefix(av_options *o, const char *s, av_err *err) {
    if (!*s) return av_fail(err, AV_EUSAGE, "--prefix '' is empty; give a name such as slide1_ (or leave it out)");
    av_status st = check_one_line("prefix", s, "a prefix is part of a file name", err);
    if (st) return st;
    if (strchr(s, '/') || strlen(s) > 64) {
        char shown[160];
        show_value(shown, sizeof shown, s);
        return av_fail(err, AV_EUSAGE, "--prefix %s must be part of a file name: at most 64 bytes, no '/' "
                       "(use -o for the folder)", AV_QUOTED_WORD(shown, 320));
    }
    if ((st = check_visible_name("prefix", s, 1, 0, err))) return st;
    if (s[0] == '.') {
        char shown[160], file[176];
        show_value(shown, sizeof shown, s);
        snprintf(file, sizeof file, "%shead0.png", shown);
        return av_fail(err, AV_EUSAGE, "--prefix %s starts with '.', so every file it names would be hidden "
                       "(%s: ls and file managers do not list it); give a name such as slide1_ (a '.' "
                       "after the first character is fine, as in v1.)", AV_QUOTED_WORD(shown, 320),
                       AV_QUOTED_WORD(file, 340));
    }
    o->prefix = s;
    return AV_OK;
}

/* ---------------------------------------------------------------------------- errors and checks */

/* A short option whose letter is not ASCII ("-Ｈ 4", a Chinese input method's full-width mode): getopt
 * names only its first byte, so the message said "unknown option '-\357'", half a character (a
 * Chinese-speaking tester's report). The word is argv[optind] while getopt is still inside it, else
 * argv[optind − 1]; the message names the whole character, and for a full-width form (av_utf8_halfwidth) its
 * half-width twin, as the option to type when there is one. */
static av_status non_ascii_option(char **argv, av_err *err) {
    const char *word = NULL;
    for (int i = optind; i >= optind - 1 && i >= 1 && !word; i--)
        if (argv[i] && argv[i][0] == '-')
            for (const char *c = argv[i]; *c && !word; c++)
                if ((unsigned char)*c >= 0x80) word = argv[i];
    if (!word) return av_fail(err, AV_EUSAGE, "unknown option: a letter outside ASCII (try --help)");
    const char *c = word;
    while ((unsigned char)*c < 0x80) c++;
    size_t len = av_utf8_char_len(c);
    const unsigned char *u = (const unsigned char *)c;
    unsigned cp = len ? av_utf8_next(&u) : 0;
    char twin = (char)av_utf8_halfwidth(cp);
    if (!twin)
        return av_fail(err, AV_EUSAGE, "unknown option %s: options are ASCII letters after '-' (try --help)",
                       SHOW_WORD(word));
    for (int o = 0; o < N_OPTS; o++)
        if (kOpts[o].short_name == twin)
            return av_fail(err, AV_EUSAGE, "unknown option %s: '%.*s' (U+%04X) is the full-width form of '%c': "
                           "type the half-width -%c (半角), which is --%s", SHOW_WORD(word), (int)len, c, cp, twin, twin,
                           kOpts[o].name);
    return av_fail(err, AV_EUSAGE, "unknown option %s: '%.*s' (U+%04X) is the full-width form of '%c', and -%c is "
                   "no option either (try --help)", SHOW_WORD(word), (int)len, c, cp, twin, twin);
}

/* An option last on the line, with no value after it: name what it takes. "attnviz --train", typed to see
 * the tasks, said only "option '--train' needs a value (try --help)" (a learner's pass). optopt is the row's
 * getopt value (its short name, or LONG_ONLY + row). */
static av_status missing_value(const char *name, av_err *err) {
    const optdef *d = NULL;
    for (int i = 0; i < N_OPTS && !d; i++)
        if (optopt == (kOpts[i].short_name ? kOpts[i].short_name : LONG_ONLY + i)) d = &kOpts[i];
    char what[256] = "";
    if (d && d->kind == OPT_CHOICE && d->allowed) snprintf(what, sizeof what, ": %s", d->allowed);
    for (long long v = d ? d->lo : 0; d && d->kind == OPT_CHOICE && !d->allowed && v <= d->hi; v++) {
        size_t at = strlen(what);
        snprintf(what + at, sizeof what - at, "%s%s", v == d->lo ? ": " : v == d->hi ? " or " : ", ",
                 d->choice_name((int)v));
    }
    if (d && (d->kind == OPT_INT || d->kind == OPT_U64) && d->later) /* --head, --warmup: another option bounds it */
        snprintf(what, sizeof what, ": a whole number in %s", d->later);
    else if (d && (d->kind == OPT_INT || d->kind == OPT_U64))
        snprintf(what, sizeof what, ": a whole number in %lld..%lld", d->lo, d->hi);
    if (d && d->kind == OPT_DOUBLE && isinf(d->max))
        snprintf(what, sizeof what, ": a finite number %s %g", d->open ? ">" : ">=", d->min);
    else if (d && d->kind == OPT_DOUBLE)
        snprintf(what, sizeof what, ": a number in %.5g..%g", d->open && d->min == 0 ? (double)FLT_MIN : d->min, d->max);
    /* the option itself, not the word it ends: `attnviz -qo` said "option '-qo' needs a value DIR" */
    char one[3] = {'-', (char)optopt, 0};
    if (name && name[0] == '-' && name[1] != '-' && strlen(name) > 2 && d && d->short_name == optopt) name = one;
    return av_fail(err, AV_EUSAGE, "option %s needs %s%s%s%s (try --help)", SHOW_WORD(name ? name : "?"),
                   d && d->noun ? "a " : "a value", d && d->noun ? d->noun : d && d->arg ? " " : "",
                   d && !d->noun && d->arg ? d->arg : "", what);
}

/* getopt_long returned '?' (unknown or ambiguous) or ':' (no value). */
static av_status bad_option(int ch, char **argv, av_err *err) {
    const char *name = argv[optind - 1];
    if (ch == ':') return missing_value(name, err);
    /* "--html=yes": a value for an option that takes none. getopt_long returns '?' with optopt the option's own
     * value, so it said "unknown option '-c'" for --causal=1 and "unknown option: a letter outside ASCII" for
     * --html=yes or --no-plot= (a teacher's pass); an abbreviation (--caus=1) names the whole option */
    if (name && name[0] == '-' && name[1] == '-' && strchr(name, '='))
        for (int i = 0; optopt && i < N_OPTS; i++)
            if (!kOpts[i].arg && optopt == (kOpts[i].short_name ? kOpts[i].short_name : LONG_ONLY + i)) {
                return av_fail(err, AV_EUSAGE, "option --%s takes no value, but %s gives one: type --%s alone "
                               "(try --help)", kOpts[i].name, SHOW_WORD(name), kOpts[i].name);
            }
    if (optopt < 0 || optopt >= 0x80) return non_ascii_option(argv, err);
    if (optopt >= '0' && optopt <= '9') /* "-5 degrees today": a sentence, not an option */
        return av_fail(err, AV_EUSAGE,
                       "unknown option '-%c'; a sentence that starts with '-' goes after '--', as in attnviz -- \"-%c ...\"",
                       optopt, optopt);
    if (optopt && optopt < LONG_ONLY && optopt != '?') { /* -' said "unknown option '-''", an open quote */
        char letter[3] = {'-', (char)optopt, 0};
        return av_fail(err, AV_EUSAGE, "unknown option %s (try --help)", SHOW_WORD(letter));
    }
    if (name && name[0] == '-' && name[1] == '-') {
        /* an abbreviation that fits several long options */
        size_t len = strcspn(name + 2, "=");
        char typed[160]; /* the name without its "=VALUE", as a message quotes it (SHOW_WORD) */
        snprintf(typed, sizeof typed, "%.*s", (int)len + 2, name);
        /* PyTorch's and Hugging Face's names for what attnviz calls otherwise: "--num_heads 8" said only
         * "unknown option", "--nhead 8" "did you mean --head?" (the head --explain shows, not the count) and
         * "--rope" "ambiguous; possibilities: --rope-style --rope-base", neither of which turns RoPE on (a
         * learner's pass from PyTorch tutorials). Matched in any case, '_' as '-'. */
        static const struct { const char *typed, *use, *whose; } kTorch[] = {
            {"num-heads", "--heads", "nn.MultiheadAttention's num_heads"},
            {"nhead", "--heads", "nn.Transformer's nhead"},
            {"n-head", "--heads", "GPT-2's n_head"},
            {"num-attention-heads", "--heads", "Hugging Face's num_attention_heads"},
            {"embed-dim", "--d-model", "nn.MultiheadAttention's embed_dim"},
            {"n-embd", "--d-model", "GPT-2's n_embd"},
            {"hidden-size", "--d-model", "Hugging Face's hidden_size"},
            {"is-causal", "--causal", "scaled_dot_product_attention's is_causal"},
            {"causal-mask", "--causal", "a causal mask"},
            {"key-padding-mask", "--pad-to N", "nn.MultiheadAttention's key_padding_mask"},
            {"src-key-padding-mask", "--pad-to N", "nn.Transformer's src_key_padding_mask"},
            {"tgt-key-padding-mask", "--pad-to N", "nn.Transformer's tgt_key_padding_mask"},
            {"memory-key-padding-mask", "--pad-to N", "nn.Transformer's memory_key_padding_mask"},
            {"rope", "--positions rope", "RoPE; --rope-style and --rope-base only tune it"},
            {"rotary", "--positions rope", "rotary position embedding, RoPE"},
            {"sinusoidal", "--positions sinusoidal", "the sinusoidal encoding"},
            /* "--mask causal hi" said only "unknown option '--mask'" (a tester's report) */
            {"mask", "--causal or --attn-mask FILE", "--causal hides later keys; --attn-mask reads a bool (T, T) .npy"},
            {"masked", "--causal or --attn-mask FILE", "--causal hides later keys; --attn-mask reads a bool (T, T) .npy"},
            {"src-mask", "--attn-mask FILE", "nn.Transformer's src_mask, as a bool (T, T) .npy"},
            {"tgt-mask", "--causal or --attn-mask FILE", "nn.Transformer's tgt_mask, causal or as a bool (T, T) .npy"},
            {"look-ahead-mask", "--causal", "a look-ahead mask"},
            {"attention-mask", "--pad-to N or --attn-mask FILE", "Hugging Face's attention_mask marks padding"},
        };
        for (size_t t = 0; t < sizeof kTorch / sizeof kTorch[0]; t++) {
            const char *k = kTorch[t].typed;
            size_t i = 0;
            while (i < len && k[i] && (name[2 + i] == '_' ? '-' : tolower((unsigned char)name[2 + i])) == k[i]) i++;
            if (i == len && !k[i])
                return av_fail(err, AV_EUSAGE, "unknown option %s; did you mean %s? (%s) (try --help)",
                               SHOW_WORD(typed), kTorch[t].use, kTorch[t].whose);
        }
        char which[256] = "";
        int hits = 0;
        for (int i = 0; i < N_OPTS; i++)
            if (len && strncmp(kOpts[i].name, name + 2, len) == 0) {
                hits++;
                snprintf(which + strlen(which), sizeof which - strlen(which), " --%s", kOpts[i].name);
            }
        if (hits > 1)
            return av_fail(err, AV_EUSAGE, "option %s is ambiguous; possibilities:%s", SHOW_WORD(typed), which);
        /* "--heads＝8", "--ｈｅａｄｓ 8": typed in an input method's full-width mode, it said only "unknown
         * option" (a Chinese-speaking student's pass): the half-width form, when it names an option */
        char half[128];
        int other = 0;
        if (av_utf8_halfwidth_text(half, sizeof half, name + 2, &other) > 0 && !other) {
            size_t hl = strcspn(half, "=");
            for (int i = 0; i < N_OPTS; i++)
                if (strlen(kOpts[i].name) == hl && strncmp(kOpts[i].name, half, hl) == 0) {
                    return av_fail(err, AV_EUSAGE, "unknown option %s: it is typed with full-width characters; type "
                                   "the half-width --%s (半角) (try --help)", SHOW_WORD(name), half);
                }
        }
        int best = nearest_name(name + 2, len, opt_name, N_OPTS); /* "--casual": did you mean --causal? */
        if (best >= 0)
            return av_fail(err, AV_EUSAGE, "unknown option %s; did you mean --%s? (try --help)", SHOW_WORD(typed),
                           kOpts[best].name);
        /* a figure-maker's "--svg": the output format is a value of --format */
        static const char *const kFormats[] = {"png", "svg", "both"};
        for (int i = 0; i < 3; i++)
            if (strlen(kFormats[i]) == len && strncasecmp(name + 2, kFormats[i], len) == 0)
                return av_fail(err, AV_EUSAGE, "unknown option %s; did you mean --format %s? (try --help)",
                               SHOW_WORD(typed), kFormats[i]);
        /* "--pdf", "--jpg": formats attnviz does not write; SVG is the vector one a PDF can be made from */
        static const char *const kOther[] = {"pdf", "jpg", "jpeg", "eps", "ps", "webp", "tiff", "gif"};
        for (size_t i = 0; i < sizeof kOther / sizeof kOther[0]; i++)
            if (strlen(kOther[i]) == len && strncasecmp(name + 2, kOther[i], len) == 0)
                return av_fail(err, AV_EUSAGE, "unknown option %s; attnviz writes figures as PNG and SVG (--format "
                               "png, svg or both): make a %.*s from one with another tool (rsvg-convert -f pdf FIG.svg > "
                               "FIG.pdf makes a PDF) (try --help)", SHOW_WORD(typed), (int)len, name + 2);
    }
    return av_fail(err, AV_EUSAGE, "unknown option %s (try --help)", SHOW_WORD(name ? name : "?"));
}

/* An option that a full-width or no-break space (wide_space_at) joins to what follows it: "--heads　8",
 * "--causal　我爱深度学习", "-c　": getopt saw one unknown word (or, with '=', a value: apply says so). The word
 * up to the space is a long option's name or a start of one, or '-' and an option's letter. */
static av_status check_wide_space_option(const char *a, av_err *err) {
    unsigned cp;
    long at = wide_space_at(a, &cp);
    if (at < 2 || (size_t)at > strcspn(a, "=")) return AV_OK; /* none, or inside --NAME=VALUE's value */
    int named = 0;
    for (int k = 0; k < N_OPTS && !named; k++)
        named = a[1] == '-' ? at > 2 && strncmp(kOpts[k].name, a + 2, (size_t)at - 2) == 0
                            : at == 2 && kOpts[k].short_name == a[1];
    if (!named) return AV_OK;
    char so[800], hint[1200];
    snprintf(so, sizeof so, "%s reached attnviz as one word, which is no option", SHOW_WORD(a));
    wide_space_hint(hint, sizeof hint, a, so);
    return av_fail(err, AV_EUSAGE, "unknown option %s: %s (try --help)", SHOW_WORD(a), hint);
}

/* The row of kOpts that the long option name[0..len) (without "--") stands for as getopt_long reads it: the
 * option of exactly that name, else the one option that name starts ("--sh" is --show); -1 when none is or
 * the start is shared ("--h"). */
static int long_option_row(const char *name, size_t len) {
    int row = -1, hits = 0;
    for (int k = 0; k < N_OPTS; k++) {
        if (strncmp(kOpts[k].name, name, len) != 0) continue;
        if (strlen(kOpts[k].name) == len) return k; /* an exact name wins over longer ones, as in getopt_long */
        row = k, hits++;
    }
    return hits == 1 ? row : -1;
}

/* A word after "--" that names a long option ("--show", "--heads=2") is text, as getopt reads it; a note
 * says so, since attnviz's own advice for a sentence that starts with '-' is "attnviz -- TEXT", and
 * "-- '-1 is negative' --show" then printed nothing and drew "- - show" as tokens (a teacher's pass). */
static void note_options_after_dashes(int argc, char **argv, int from) {
    for (int i = from; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-' || !a[2] || long_option_row(a + 2, strcspn(a + 2, "=")) < 0) continue;
        av_message(stderr, "attnviz: note: %s comes after '--', so it is read as words of the text, not as an "
                   "option; put options before '--'\n", SHOW_WORD(a));
        return;
    }
}

/* A word of the text with a long option after an ASCII space: `"我爱你 --causal"`, the option typed inside the
 * quotes, ran without the mask and with "- - causal" as tokens, exit 0 and nothing said (a learner's pass). The
 * text may mean it, so a note, once per run, as note_options_after_dashes says for a word after "--". Returns 1
 * when it noted. */
static int note_option_in_quotes(const char *a) {
    for (const char *q = strstr(a, " --"); q; q = strstr(q + 1, " --")) {
        size_t len = 0;
        while (isalnum((unsigned char)q[3 + len]) || q[3 + len] == '-') len++;
        unsigned char after = (unsigned char)q[3 + len];
        if (!len || !(after == 0 || after == '=' || after == ' ') || long_option_row(q + 3, len) < 0) continue;
        av_message(stderr, "attnviz: note: the text %s holds '--%.*s', read as words of the text, not as an option "
                   "(the quotes made one word of it); to use the option, put it outside the quotes\n", SHOW_WORD(a),
                   (int)(len > 40 ? 40 : len), q + 3);
        return 1;
    }
    return 0;
}

/* A word of the text with a long option after a full-width or no-break space: `"我爱你"　--causal` is one
 * word, '我爱你　--causal', and ran without the mask with "- - causal" as tokens, exit 0 and nothing said (a
 * learner's pass; the Chinese tutorial says attnviz names the character). Refused with wide_space_hint's
 * advice; after "--" the words are text as typed and are not looked at. */
static av_status check_wide_space_in_text(const char *a, av_err *err) {
    const char *p = a;
    unsigned cp;
    long at;
    while ((at = wide_space_at(p, &cp)) >= 0) {
        const char *q = p + at + av_utf8_char_len(p + at);
        size_t len = 0;
        if (q[0] == '-' && q[1] == '-')
            while (isalnum((unsigned char)q[2 + len]) || q[2 + len] == '-') len++;
        unsigned char after = (unsigned char)q[2 + len];
        if (len && (after == 0 || after == '=' || after == ' ' || after >= 0x80) && long_option_row(q + 2, len) >= 0) {
            char so[800], hint[1200];
            int name_len = len > 32 ? 32 : (int)len; /* long_option_row matched: at most a name's length */
            snprintf(so, sizeof so, "%s reached attnviz as one word of the text, and '--%.*s' would be read as "
                     "words of it, not as an option", SHOW_WORD(a), name_len, q + 2);
            wide_space_hint(hint, sizeof hint, p, so);
            /* a sentence about the option ("Run it with --causal", pasted with a no-break space) is text: '--'
             * keeps it as typed, which the message did not say (a reviewer's pass) */
            return av_fail(err, AV_EUSAGE, "the text %s holds the option --%.*s: %s; to keep it as text, put -- "
                           "before the text (try --help)", SHOW_WORD(a), name_len, q + 2, hint);
        }
        p = q;
    }
    return AV_OK;
}

/* A word in an option's place that starts with '-' and holds ASCII white space (space, tab, newline) before a
 * long option's '=' is a quoted sentence, or options the quotes joined, never an option: getopt read its
 * letters, so `attnviz "-only the best" love` wrote its figures to a folder "nly the best" and drew "love",
 * exit 0; "-h is help" printed the help, "-c love you" said "unknown option '- '", "-fast cars" looked for a
 * file "ast cars" and "-x love you" or "--hello world" said "unknown option" with no word of '--' (a
 * coreutils user's pass). A short option's value joined to it with a space inside ("-omy figures") is
 * refused with them: type it as two words. Refused, naming the word and the '--' to type; when the word
 * before the white space is an option ("--heads 8", "-c hi"), also what to type without the quotes. */
static av_status check_text_as_option(const char *a, av_err *err) {
    static const char kWhite[] = " \t\n\r\v\f";
    size_t at = strcspn(a, kWhite);
    if (!a[at] || (a[1] == '-' && at > strcspn(a, "="))) return AV_OK; /* none, or inside --NAME=VALUE's value */
    int option = 0; /* the word before the white space is an option, or short options, as getopt reads it */
    if (a[1] == '-' && at > 2)
        option = long_option_row(a + 2, at - 2) >= 0;
    for (size_t c = 1; a[1] != '-' && c < at; c++) {
        int k = 0;
        while (k < N_OPTS && kOpts[k].short_name != a[c]) k++;
        option = k < N_OPTS;
        if (!option || kOpts[k].arg) break; /* an unknown letter, or a value from here on */
    }
    char word[200];
    av_shell_word(word, sizeof word, a);
    if (option)
        return av_fail(err, AV_EUSAGE, "%s is one word that starts with '-' and holds white space, so it is no "
                       "option: options and their values are separate words (type them without the quotes); a "
                       "sentence that starts with '-' goes after '--', as in attnviz -- %s", SHOW_WORD(a), word);
    return av_fail(err, AV_EUSAGE, "%s is one word that starts with '-' and holds white space, so it is no option: "
                   "a sentence that starts with '-' goes after '--', as in attnviz -- %s", SHOW_WORD(a), word);
}

/* a, a long option typed with one hyphen ("-heads=it's"), as what follows a '-' in "type -%s" that pastes
 * back: its name and '=' as typed, the value after it one shell word (paste_word): "-heads='it'\''s'", where
 * show_value's "-heads=it's" made "type --heads=it's", an open quote. Into buf (n >= 32); returns buf. */
static const char *one_hyphen_fix(char *buf, size_t n, const char *a) {
    size_t name = strcspn(a, "=");
    if (!a[name] || name > 64) return show_value(buf, n, a), buf;
    snprintf(buf, n, "%.*s=%s", (int)name, a, PASTE_WORD(a + name + 1, 200));
    return buf;
}

/* The words of argv, walked once as getopt reads them, so an option's value ("--title -html", "--title --html
 * page.html") is never taken for an option or for the text, and nothing after "--" is looked at. Refused,
 * each naming what to type:
 * - an option a full-width or no-break space joins to what follows (check_wide_space_option);
 * - a word that starts with '-' and holds white space: a quoted sentence (check_text_as_option);
 * - one hyphen before a long option's name or a start of one: getopt reads the word letter by letter, so
 *   "-outdir slides" was -o utdir (the page went to ./utdir and "slides" joined the sentence, exit 0: a
 *   teacher's pass), "-compare" -c -o mpare, "-html" -h -t ("unknown option '-t'");
 * - '=' after a short option ("-o=x" wrote a folder "=x");
 * - with --html, a text whose first word is a page's file name ("--html page.html"). */
static av_status check_words(int argc, char **argv, av_err *err) {
    int html = 0;             /* --html given as an option, not as another option's value */
    const char *first = NULL; /* the first word of the text */
    int noted = 0;            /* note_option_in_quotes said it once */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) { /* a word of the text, or "-" */
            if (!first) first = a;
            av_status st = check_wide_space_in_text(a, err);
            if (st) return st;
            if (!noted) noted = note_option_in_quotes(a);
            continue;
        }
        av_status st = check_wide_space_option(a, err);
        if (!st) st = check_text_as_option(a, err);
        if (st) return st;
        if (a[1] == '-') {
            if (!a[2]) { /* "--": the rest is text as typed */
                note_options_after_dashes(argc, argv, i + 1);
                break;
            }
            if (strchr(a, '=')) continue;
            int row = long_option_row(a + 2, strlen(a + 2));
            if (row >= 0 && strcmp(kOpts[row].name, "html") == 0) html = 1;
            if (row >= 0 && (kOpts[row].offset == AT(help) || kOpts[row].offset == AT(version))) break; /* acted on where it stands (below) */
            if (row >= 0 && kOpts[row].arg) i++; /* its value is the next word */
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "-V")) break;
        size_t len = strcspn(a + 1, "=");
        for (int k = 0; len > 1 && k < N_OPTS; k++)
            if (strlen(kOpts[k].name) == len && strncmp(kOpts[k].name, a + 1, len) == 0) {
                char fix[300];
                return av_fail(err, AV_EUSAGE, "option %s has one hyphen: type -%s (with one hyphen its letters "
                               "are read as short options, -%c first) (try --help)", SHOW_WORD(a),
                               one_hyphen_fix(fix, sizeof fix, a), a[1]);
            }
        /* "-svg", "-pdf": a format typed as an option, in ImageMagick's one-hyphen style, read as -s vg ("--seed
         * 'vg' is not a whole number": a figure-maker's pass); the format is a value of --format */
        static const char *const kFormatWords[] = {"png", "svg", "both", "pdf", "jpg", "jpeg", "eps", "ps", "webp",
                                                   "tiff", "gif"};
        for (size_t k = 0; k < sizeof kFormatWords / sizeof kFormatWords[0]; k++)
            if (strcasecmp(a + 1, kFormatWords[k]) == 0) {
                static const char *const kWhat[] = {"PNG", "SVG", "PNG and SVG"};
                /* no "-S first": -S is no option ("-SVG"), and the letters' reading is not the point */
                if (k < 3)
                    return av_fail(err, AV_EUSAGE, "option %s has one hyphen, so its letters are read as short "
                                   "options: for %s figures type --format %s (try --help)", SHOW_WORD(a), kWhat[k],
                                   kFormatWords[k]);
                return av_fail(err, AV_EUSAGE, "option %s has one hyphen, so its letters are read as short "
                               "options; attnviz writes figures as PNG and SVG (--format png, svg or both): convert "
                               "one with another tool, e.g. rsvg-convert -f pdf FIG.svg > FIG.pdf for a PDF (try "
                               "--help)", SHOW_WORD(a));
            }
        /* "-out slides": a start of one long name only, 3 letters or more, read as -o ut (a tester's pass) */
        int hits = 0, row = -1;
        for (int k = 0; len >= 3 && k < N_OPTS; k++)
            if (strlen(kOpts[k].name) > len && strncmp(kOpts[k].name, a + 1, len) == 0) hits++, row = k;
        if (hits == 1) {
            char fix[300];
            return av_fail(err, AV_EUSAGE, "option %s has one hyphen: type -%s, which is --%s (with one hyphen its "
                           "letters are read as short options, -%c first) (try --help)", SHOW_WORD(a),
                           one_hyphen_fix(fix, sizeof fix, a), kOpts[row].name,
                           a[1]);
        }
        for (const char *c = a + 1; *c; c++) { /* short options, as getopt reads them */
            if (*c == '=' && c > a + 1) { /* "-c=1" said "unknown option '-='"; c[-1] is a flag (a value ends the walk) */
                int f = 0;
                while (f < N_OPTS && kOpts[f].short_name != c[-1]) f++;
                if (f == N_OPTS) break; /* an unknown letter: getopt names it */
                return av_fail(err, AV_EUSAGE, "%s: -%c (--%s) takes no value: type -%c alone (try --help)", SHOW_WORD(a),
                               c[-1], kOpts[f].name, c[-1]);
            }
            int k = 0;
            while (k < N_OPTS && (!kOpts[k].short_name || kOpts[k].short_name != *c)) k++;
            /* -h or -V in a group ("-qh", "-hq"): acted on where getopt reaches it, as alone (above); `-qh -heads 8`
             * said "option '-heads' has one hyphen" where `-h -heads 8` printed the help (a tester's pass) */
            if (k < N_OPTS && (kOpts[k].offset == AT(help) || kOpts[k].offset == AT(version))) {
                i = argc;
                break;
            }
            if (k == N_OPTS || !kOpts[k].arg) continue;
            if (c[1] == '=') { /* "-o=it's" said "type -o it's (or --outdir=it's)", an open quote to bash: the
                                * value one word that pastes back, and "--outdir ~/x" for a ~ that '=' would keep */
                const char *word = PASTE_WORD(c + 2, 200);
                return av_fail(err, AV_EUSAGE, "%s: a short option takes no '=': type -%c %s (or --%s%c%s) (try "
                               "--help)", AV_QUOTED_WORD(a, 200), *c, word, kOpts[k].name, c[2] == '~' ? ' ' : '=',
                               word);
            }
            if (!c[1]) i++; /* "-o DIR": the value is the next word; "-oDIR": the rest of this one */
            break;
        }
    }
    /* "--html page.html": --html takes no value, so getopt leaves "page.html" to the sentence, which then began
     * with a file name while the page went to DIR/attnviz.html, exit 0 (a learner's pass): with --html given as
     * an option, a text whose first word (before any "--") ends in .html or .htm is refused */
    size_t n = first ? strcspn(first, " ") : 0;
    if (!html || !n || !((n > 5 && strncasecmp(first + n - 5, ".html", 5) == 0) ||
                         (n > 4 && strncasecmp(first + n - 4, ".htm", 4) == 0)))
        return AV_OK;
    char word[200];
    snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), first);
    return av_fail(err, AV_EUSAGE, "--html takes no value, so %s would be read as the sentence's first word; "
                   "the page is written as attnviz.html in the output folder: give the folder with -o DIR "
                   "(and a name's start with --prefix NAME)", SHOW_WORD(word));
}

/* The options that only --train uses (check_combinations: "--steps is an option of --train"). */
static const char *const kTrainOnly[] = {"layers", "steps", "batch", "lr", "weight-decay", "schedule", "warmup", "norm"};
static void option_text(char *buf, size_t n, const av_options *o, const char *name);

/* "--NAME VALUE" of the given option `name` for a command to paste, into buf (n bytes, NUL included): the value as
 * typed (o->typed, the word getopt gave: an --lr of 1.23456789e-4 stays so, where %g wrote 0.000123457) as one
 * whole shell word (whole_paste_word), or "--NAME" alone for an option without a value; returns 1, or 0 with buf
 * "" when that does not fit in n - 1 bytes, as a value cut to fit pastes back as another one (`--steps` of 70 0's
 * and "10" was cut to "--steps 000...000", which is --steps 0; a --dump folder of 80 d's cut to 50 made another
 * folder: a review's findings). No errors. */
static int pasted_option(char *buf, size_t n, const av_options *o, const char *name) {
    int row = long_option_row(name, strlen(name));
    const char *v = row >= 0 && (o->given >> row & 1u) ? o->typed[row] : NULL;
    char word[400];
    buf[0] = 0;
    if (v && !whole_paste_word(word, sizeof word, v)) return 0;
    int k = v ? snprintf(buf, n, "--%s %s", name, word) : snprintf(buf, n, "--%s", name);
    if (k < 0 || (size_t)k >= n) return buf[0] = 0, 0;
    return 1;
}

/* The options of o given on the command line and named in names[0..n) (NULL: every option but skip, or every one
 * when skip is NULL), each as pasted_option gives it ("-X" for the name of one typed as its letter X) and a space,
 * in the order typed (o->seq: `-q --no-plot --heads 2` came back as "--heads 2 --no-plot --quiet", the flags
 * after the values in the table's order and -q spelt --quiet), into given (gn bytes), those that do not fit named
 * in left (ln bytes), as av_options_pasted says. Returns the first one's name, or NULL when none was given. */
static const char *pasted_options(char *given, size_t gn, char *left, size_t ln, const av_options *o,
                                  const char *const *names, size_t n, const char *skip) {
    const char *firsts = NULL;
    size_t rows[N_OPTS], n_rows = 0;
    given[0] = left[0] = 0;
    for (size_t i = 0; i < (names ? n : (size_t)N_OPTS); i++) {
        const char *name = names ? names[i] : kOpts[i].name;
        if (!av_option_given(o, name) || (skip && !strcmp(name, skip)) || (!names && !strcmp(name, "file")))
            continue; /* -f: the caller's command gives the input */
        size_t row = (size_t)long_option_row(name, strlen(name)), k = n_rows++;
        for (; k > 0 && o->seq[rows[k - 1]] > o->seq[row]; k--)
            rows[k] = rows[k - 1];
        rows[k] = row;
    }
    for (size_t i = 0; i < n_rows; i++) {
        size_t k = strlen(given);
        if (!firsts) firsts = kOpts[rows[i]].name;
        if (pasted_option(given + k, gn - k - 1, o, kOpts[rows[i]].name)) {
            if (o->short_typed >> rows[i] & 1u) { /* "--quiet" to "-q", "--outdir x" to "-o x" */
                size_t name_len = strlen(kOpts[rows[i]].name);
                given[k + 1] = kOpts[rows[i]].short_name;
                memmove(given + k + 2, given + k + 2 + name_len, strlen(given + k + 2 + name_len) + 1);
            }
            strcat(given, " ");
        } else snprintf(left + strlen(left), ln - strlen(left), "%s--%s", left[0] ? ", " : "",
                      kOpts[rows[i]].name);
    }
    return firsts;
}

int av_options_pasted(char *given, size_t gn, char *left, size_t ln, const av_options *o, const char *skip) {
    int count = 0;
    if (!pasted_options(given, gn, left, ln, o, NULL, 0, skip)) return 0;
    for (int i = 0; i < N_OPTS; i++)
        count += (o->given >> i & 1u) && !(skip && !strcmp(kOpts[i].name, skip)) && strcmp(kOpts[i].name, "file");
    return count;
}

/* Rules that involve more than one option. argv[first..argc) are the words of the sentence, after getopt_long
 * (the options before them in the order typed). */
static av_status check_combinations(const av_options *o, int first, int argc, char **argv, av_err *err) {
    /* --train warns about these instead, as about every option it does not use (unused_with_train) */
    if (o->train < 0 && !o->model_dir && av_option_given(o, "layer"))
        return av_fail(err, AV_EUSAGE, "--layer picks a layer of a --model; the single attention layer has none (add --model DIR)");
    if (o->train < 0 && !o->model_dir && o->generate)
        return av_fail(err, AV_EUSAGE, "--generate continues a --model's input; add --model DIR");
    if (o->train < 0 && !o->model_dir && av_option_given(o, "figures") && (o->figures & AV_FIG_MODEL) && !o->figures_all)
        return av_fail(err, AV_EUSAGE, "--figures model draws every layer of a --model; add --model DIR");
    /* --head -1 and 64 said "outside the allowed range 0..63" (the parser's), where --head 9 names the heads in
     * use (a tester's report) */
    char typed[80]; /* --head as typed: "--head 04" was told "--head 4 is outside 0..3" */
    av_option_shown(typed, sizeof typed, o, "head", o->head);
    if (o->train >= 0 && (o->head < 0 || o->head > AV_MAX_HEADS - 1))
        return av_fail(err, AV_EUSAGE, "--head %s is outside the allowed range 0..%d", typed, AV_MAX_HEADS - 1);
    if (o->train < 0 && !o->model_dir && (o->head < 0 || o->head >= o->heads)) { /* a --model's: once it is loaded */
        /* "--head 8" with the default one head was most likely meant as --heads 8, when --heads 8 would run:
         * "--head 1" said "did you mean --heads 1?", the one head it had, and "--head 3" offered --heads 3,
         * which 512 does not divide (a tester's report). --head H counted from 1: heads count from 0. */
        char hint[80] = "";
        int n = o->head, d_k = n > 0 ? o->d_model / n : 0;
        if (n == o->heads)
            snprintf(hint, sizeof hint, "; heads are numbered from 0, so the %s is %d", n == 1 ? "only head" : "last",
                     n - 1);
        else if (!av_option_given(o, "heads") && n > 1 && n <= AV_MAX_HEADS && o->d_model % n == 0 &&
                 !(o->positions == AV_POS_ROPE && d_k % 2)) /* a --heads that runs: d_k whole, even for RoPE */
            snprintf(hint, sizeof hint, "; did you mean --heads %d?", n);
        return av_fail(err, AV_EUSAGE, "--head %s is outside 0..%d (there %s %d head%s)%s", typed, o->heads - 1,
                       o->heads == 1 ? "is" : "are", o->heads, o->heads == 1 ? "" : "s", hint);
    }
    if (o->verbose && o->quiet) return av_fail(err, AV_EUSAGE, "-v/--verbose and -q/--quiet cannot be used together");
    /* the command to try holds every --train-only option given (kTrainOnly), in the order typed, each value as
     * typed and whole (pasted_option): it said "attnviz --train reverse --steps ... -o DIR", whose "..." a pasted
     * command took as --steps's value (a learner's pass); one too long for the message is left out, and named */
    char given[400] = "", left[200] = "", word[1200];
    const char *firsts = o->train < 0 ? pasted_options(given, sizeof given, left, sizeof left, o, kTrainOnly,
                                                       sizeof kTrainOnly / sizeof kTrainOnly[0], NULL)
                                      : NULL;
    if (firsts)
        return av_fail(err, AV_EUSAGE, "--%s is an option of --train; try: attnviz --train reverse %s-o runs/reverse%s%s%s",
                       firsts, given, left[0] ? " (add your " : "", left,
                       left[0] ? ": too long to repeat here)" : "");
    if (o->train >= 0 && o->model_dir) { /* the task and folder given, and a prompt of the task: "TASK", "DIR" and
                                          * "..." ran as typed only to fail */
        if (av_option_given(o, "outdir")) {
            av_shell_word(word, sizeof word, o->outdir);
            return av_fail(err, AV_EUSAGE, "--train makes a model folder and --model runs one; give one of them: "
                           "attnviz --train %s -o %s, then attnviz --model %s \"%s\"", av_task_name(o->train), word,
                           word, av_task_prompt_text(o->train));
        }
        /* without -o, not "-o MODEL": pasted, that retrained into the --model folder and replaced its model; a
         * new folder (runs/TASK, as the refusal above names, else runs/TASK2, runs/TASK3, ...: the first that holds
         * no model (config.json) and is not the --model folder, as `--model runs/reverse/` names runs/reverse), or
         * the --model folder run on the sentence typed (double-quoted when the shell keeps it so, else as
         * av_shell_word writes it), else a prompt of the task */
        char text[320] = "", sent[400], run[1200], fresh[64], cfg[80];
        size_t len = 0;
        struct stat ms, fs;
        int have_model = stat(o->model_dir, &ms) == 0;
        for (int k = 1; k < 1000; k++) { /* runs/TASK999 at worst: 999 trained folders */
            if (k > 1) snprintf(fresh, sizeof fresh, "runs/%s%d", av_task_name(o->train), k);
            else snprintf(fresh, sizeof fresh, "runs/%s", av_task_name(o->train));
            snprintf(cfg, sizeof cfg, "%s/config.json", fresh);
            if (stat(cfg, &fs) != 0 && !(have_model && stat(fresh, &fs) == 0 && fs.st_dev == ms.st_dev &&
                                         fs.st_ino == ms.st_ino))
                break;
        }
        for (int i = first; i < argc && len < sizeof text; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i > first ? " " : "", argv[i]);
        av_shell_word(run, sizeof run, o->model_dir);
        const char *lead = ""; /* "-- " before a sentence typed that starts with '-', which the parser wants */
        if (first >= argc || len >= sizeof text - 1 || !whole_paste_word(sent, sizeof sent, text))
            snprintf(sent, sizeof sent, "\"%s\"", av_task_prompt_text(o->train)); /* none, or too long to repeat */
        else {
            if (text[0] == '-') lead = "-- ";
            if (!strpbrk(text, "\"\\$`!") && !strstr(sent, "$'")) snprintf(sent, sizeof sent, "\"%s\"", text);
        }
        return av_fail(err, AV_EUSAGE, "--train makes a model folder and --model runs one; give one of them: "
                       "attnviz --train %s -o %s, then attnviz --model %s \"%s\", or run %s: attnviz "
                       "--model %s %s%s", av_task_name(o->train), fresh, fresh, av_task_prompt_text(o->train), run,
                       run, lead, sent);
    }
    if (o->train < 0 && !o->model_dir && o->positions == AV_POS_LEARNED) /* a --model refuses --positions itself */
        return av_fail(err, AV_EUSAGE, "--positions 'learned' is not allowed; expected none, sinusoidal or rope "
                       "(learned position embeddings need --train)");
    if (o->train < 0 && o->model_dir && o->compare == AV_CMP_NORM) /* gpt2run.c refuses the other non-scale ones */
        return av_fail(err, AV_EUSAGE, "--compare norm cannot be used with --model; allowed: scale (layer L's attention "
                       "without ÷√d_k); --compare norm trains Pre-LN and Post-LN: attnviz --train TASK --compare norm "
                       "-o DIR");
    if (o->train < 0 && o->compare == AV_CMP_NORM)
        return av_fail(err, AV_EUSAGE, "--compare norm needs --train (one attention layer has no LayerNorm); allowed "
                       "here: scale, positions, rope-style, order");
    if (o->train >= 0 && (o->compare == AV_CMP_ROPE_STYLE || o->compare == AV_CMP_ORDER))
        return av_fail(err, AV_EUSAGE, "--compare %s is not a --train comparison (allowed with --train: scale, norm, "
                       "positions)", av_compare_name(o->compare));
    if (o->train >= 0 && o->positions == AV_POS_NONE)
        /* not "cannot learn": under the causal mask a model without positions still tells them apart (Haviv et
         * al. 2022), so the message says what attnviz offers, not a law a lecturer would repeat (a tester's report) */
        return av_fail(err, AV_EUSAGE, "%s", AV_TRAIN_NO_POSITIONS_MSG);
    /* only for figures that are drawn: with --no-plot (and no --train, whose figures ignore it) --dpi and --scale
     * each got "has no effect with --no-plot" alone, but together an exit 2 that "draws figures 24 times" */
    if (o->scale * o->dpi / 100.0 > AV_MAX_SIZE_FACTOR + 1e-9 && !(o->no_plot && o->train < 0))
        return av_fail(err, AV_EUSAGE,
                       "--scale %g with --dpi %d draws figures %g times their 100-dpi size; scale x dpi / 100 must be "
                       "at most %g",
                       o->scale, o->dpi, o->scale * o->dpi / 100.0, AV_MAX_SIZE_FACTOR);
    return AV_OK;
}

/* The bytes (NUL included, at most cap, at least 16) a value's word may take in "--NAME VALUE" held in n bytes: a
 * word cut to them keeps its "...", where the warnings' "%.60s" of the whole text cut the mark off and a character
 * in two (`--train reverse --dump` of 30 深 ended "深<U+FFFD> has no effect", a pass's report). */
static size_t value_room(size_t n, const char *name, size_t cap) {
    size_t used = strlen(name) + 3; /* "--" and the space */
    size_t room = n > used + 16 ? n - used : 16;
    return room < cap ? room : cap;
}

/* "--name VALUE" as typed (the value formatted back from o), in n bytes (NUL included): a string value longer
 * than its room is cut with "..." after it (marked_shell_word). */
static void option_text(char *buf, size_t n, const av_options *o, const char *name) {
    for (int i = 0; i < N_OPTS; i++) {
        const optdef *d = &kOpts[i];
        if (strcmp(d->name, name) != 0) continue;
        const char *field = (const char *)o + d->offset;
        if (d->kind == OPT_CHOICE) snprintf(buf, n, "--%s %s", name, d->choice_name(*(const int *)field));
        else if (d->kind == OPT_INT) {
            char typed[80];
            snprintf(buf, n, "--%s %s", name, av_option_shown(typed, sizeof typed, o, name, *(const int *)field));
        }
        else if (d->kind == OPT_DOUBLE) snprintf(buf, n, "--%s %g", name, *(const double *)field);
        else if (d->kind == OPT_STRING) {
            char word[80];
            marked_shell_word(word, value_room(n, name, sizeof word), *(const char *const *)field);
            snprintf(buf, n, "--%s %s", name, word);
        }
        else snprintf(buf, n, "--%s", name);
        return;
    }
    snprintf(buf, n, "--%s", name);
}

/* "--name VALUE" as typed, for a warning: option_text, with --figures, --prefix, --layer and --vmax as given, in n
 * bytes (NUL included), a longer --figures or --prefix cut with "..." after it. */
static void given_text(char *buf, size_t n, const av_options *o, const char *name) {
    if (strcmp(name, "figures") == 0) { /* "%.80s" cut a long list with no mark, at any byte */
        char word[84];
        av_shown_word(word, value_room(n, name, sizeof word), o->figures_arg ? o->figures_arg : "");
        snprintf(buf, n, "--figures %s", word);
    }
    else if (strcmp(name, "prefix") == 0) {
        char word[84];
        marked_shell_word(word, value_room(n, name, sizeof word), o->prefix);
        snprintf(buf, n, "--prefix %s", word);
    }
    else if (strcmp(name, "layer") == 0) {
        char typed[80];
        snprintf(buf, n, "--layer %s", av_option_shown(typed, sizeof typed, o, "layer", o->layer));
    }
    else if (strcmp(name, "vmax") == 0 && o->vmax_mode == AV_VMAX_VALUE) snprintf(buf, n, "--vmax %g", o->vmax);
    else if (strcmp(name, "vmax") == 0) snprintf(buf, n, "--vmax %s", o->vmax_mode == AV_VMAX_AUTO ? "auto" : "fixed");
    else option_text(buf, n, o, name);
}

/* Options --model refuses: what a model fixes or what makes no sense for
 * it, and why ("%s": the model's family, app/gpt2run.c model_family). */
static const struct {
    const char *opt, *why;
} kNotForModel[] = {
    {"d-model", "the model fixes d_model (its config.json)"},
    {"heads", "the model fixes the heads (its config.json)"},
    {"positions", "%s fixes its positions (GPT-2: learned wpe; Llama, Qwen2: RoPE with rope_theta; attnviz's toy models: \"attnviz\" in config.json)"},
    {"rope-style", "%s fixes its positions (Llama, Qwen2: RoPE half; attnviz's toy models: \"attnviz\" in config.json)"},
    {"rope-base", "%s fixes its positions (Llama, Qwen2: rope_theta; attnviz's toy models: \"attnviz\" in config.json)"},
    {"causal", "%s always uses the causal mask"},
    {"no-scale", "the model fixes its scale; --compare scale shows layer L without ÷√d_k"},
    {"seed", "nothing is seeded: every weight is the model's"},
    {"weights", "--weights loads one attention layer; --model loads the whole model"},
    {"pad-to", "a causal language model has no key padding"},
    {"attn-mask", "the model's mask is its causal mask"},
};

/* kNotForModel's why for the long option `name`, or NULL if --model takes it. */
static const char *model_refuses(const char *name) {
    for (size_t i = 0; i < sizeof kNotForModel / sizeof kNotForModel[0]; i++)
        if (!strcmp(name, kNotForModel[i].opt)) return kNotForModel[i].why;
    return NULL;
}

const char *av_model_refused(const av_options *o, const char **name) {
    for (size_t i = 0; i < sizeof kNotForModel / sizeof kNotForModel[0]; i++)
        if (av_option_given(o, kNotForModel[i].opt)) {
            *name = kNotForModel[i].opt;
            return kNotForModel[i].why;
        }
    *name = NULL;
    return NULL;
}

/* 1 if --heads n would train with o's --train task: n in --heads' range, dividing d_model (--d-model, else the
 * task's default, app/train.c) into a whole d_k, even for --positions rope (av_train_run's checks). */
static int train_heads_run(const av_options *o, int n) {
    const optdef *h = &kOpts[long_option_row("heads", 5)];
    av_train_opts t = {.task = (av_task_kind)o->train, .d_model = av_option_given(o, "d-model") ? o->d_model : 0};
    av_train_fill_defaults(&t);
    return n >= h->lo && n <= h->hi && t.d_model % n == 0 && !(o->positions == AV_POS_ROPE && (t.d_model / n) % 2);
}

/* buf (n bytes, 1200 suffice) = the folder a --train run o writes its model to, as one shell word to paste
 * (av_shell_word): -o's, or with --compare its first variant's (app/train.c trains one folder per variant
 * under -o: 'c/pre-ln'). "attnviz --model DIR ..." left the learner to find the folder (a tester's report).
 * No errors. */
static void trained_folder_word(char *buf, size_t n, const av_options *o) {
    static const char *const kFirstVariant[] = {[AV_CMP_SCALE] = "scale", [AV_CMP_NORM] = "pre-ln",
                                                [AV_CMP_POSITIONS] = "learned"};
    char path[4200];
    if (o->compare == AV_CMP_SCALE || o->compare == AV_CMP_NORM || o->compare == AV_CMP_POSITIONS)
        av_path_join(path, sizeof path, o->outdir, kFirstVariant[o->compare]);
    else snprintf(path, sizeof path, "%s", o->outdir);
    av_shell_word(buf, n, path);
}

/* 1 if --model would refuse `name` as given in o with the model the --train run o writes, and why into why (n
 * bytes), to follow "--NAME VALUE has no effect with --train": a --figures list without "all" that names mean,
 * scores or mask (runs_in's CTX_MODEL: "mean, scores and mask are for the single layer"), a --head or --layer past
 * the heads or layers trained (--heads/--layers, else the task's default: av_train_fill_defaults; gpt2run.c's
 * "outside 0..3"), an --explain part that is neither an index below the task prompt's token count (its words split
 * by ' ', as the trained model's tokens: "3 1 4 1 5 >" is 6) nor one of its words, or a spec with more than one
 * separator. The warning's command to paste was refused ("attnviz --model trx --head 7 ..."). 0 otherwise. */
static int model_refuses_trained(const av_options *o, const char *name, char *why, size_t n) {
    av_train_opts t = {.task = (av_task_kind)o->train, .heads = av_option_given(o, "heads") ? o->heads : 0,
                       .layers = av_option_given(o, "layers") ? o->layers : 0};
    av_train_fill_defaults(&t);
    if (!strcmp(name, "figures") && !o->figures_all && (o->figures & (AV_FIG_MEAN | AV_FIG_SCORES | AV_FIG_MASK))) {
        snprintf(why, n, ", and --model draws mean, scores and mask only for the single layer");
        return 1;
    }
    if (!strcmp(name, "head") && (o->head < 0 || o->head >= t.heads)) {
        snprintf(why, n, ", and the trained model has %d head%s (0..%d)", t.heads, t.heads == 1 ? "" : "s", t.heads - 1);
        return 1;
    }
    if (!strcmp(name, "layer") && (o->layer < 0 || o->layer >= t.layers)) {
        snprintf(why, n, ", and the trained model has %d layer%s (0..%d)", t.layers, t.layers == 1 ? "" : "s",
                 t.layers - 1);
        return 1;
    }
    if (strcmp(name, "explain") || !o->explain) return 0;
    const char *prompt = av_task_prompt_text(o->train), *spec = o->explain, *sep = NULL;
    size_t words = 1, seps = 0;
    for (const char *p = prompt; *p; p++) words += *p == ' ';
    for (const char *p = spec; *p; p++)
        if (*p == ',' || !strncmp(p, "\xef\xbc\x8c", 3)) seps++, sep = sep ? sep : p; /* ',' or '，' U+FF0C */
    int ok = seps == 1;
    for (int k = 0; ok && k < 2; k++) {
        const char *part = k ? sep + (*sep == ',' ? 1 : 3) : spec;
        size_t len = k ? strlen(part) : (size_t)(sep - spec), digits = strspn(part, "0123456789");
        if (digits >= len) { /* an index (a digit word of the prompt is read as one too: teach.c) */
            ok = len > 0 && len < 10 && strtol(part, NULL, 10) < (long)words;
            continue;
        }
        ok = 0;
        for (const char *w = prompt; *w && !ok; w += strcspn(w, " "), w += *w == ' ')
            ok = strcspn(w, " ") == len && !strncmp(w, part, len);
    }
    if (!ok) snprintf(why, n, "; pick a query,key pair of the trained model's input with --model DIR --explain");
    return !ok;
}

/* --train's warnings: every option it does not use (it trains on generated
 * task data and writes a model folder with fixed figures). */
static int unused_with_train(const av_options *o, char msgs[][AV_WARNING_MAX]) {
    static const char *const kTrainUses[] = {"d-model", "heads", "seed", "positions", "rope-style", "rope-base",
                                             "no-scale", "outdir", "quiet", "compare", "train", "layers", "steps",
                                             "batch", "lr", "weight-decay", "schedule", "warmup", "norm", "kernel",
                                             "dpi", "scale", "help", "version"};
    int n = 0;
    char opt[61], dir[1200]; /* opt: "--NAME VALUE" of 60 bytes at most, as the warnings below have room for */
    /* paste: the option again for the command to paste, whole as typed (pasted_option), where opt's cut one
     * ("--dump ddd...", 50 of 80 d's) made another folder; too long for the message beside a 1200-byte folder (160
     * bytes), it is left out of the command and named after it: "(add your --dump: too long to repeat here)" */
    char paste[160];
    trained_folder_word(dir, sizeof dir, o);
    if (o->dump_dir) {
        option_text(opt, 61, o, "dump");
        int whole = pasted_option(paste, sizeof paste, o, "dump");
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train; dump a run of the trained folder: "
                 "attnviz --model %s %s%s\"%s\"%s", opt, dir, paste, whole ? " " : "", av_task_prompt_text(o->train),
                 whole ? "" : " (add your --dump: too long to repeat here)");
    }
    if (o->causal)
        snprintf(msgs[n++], AV_WARNING_MAX, "--causal has no effect with --train: the trained model is always causal (GPT-2)");
    if (o->schedule == AV_SCHED_CONSTANT && av_option_given(o, "warmup") && o->warmup > 0) { /* < 0: refused */ /* 0: none, as asked */ /* optim.h: constant is lr_max from t = 1 */
        char typed[24]; /* as typed, as every "has no effect" warning names it ("--warmup 0100") */
        snprintf(msgs[n++], AV_WARNING_MAX, "--warmup %s has no effect with --schedule constant: the lr is --lr from step 1 "
                 "(cosine and noam warm up)", av_option_shown(typed, sizeof typed, o, "warmup", o->warmup));
    }
    /* --compare trains each variant with its own setting of what it compares (app/train.c compare_variants) */
    if (o->compare == AV_CMP_SCALE && o->no_scale)
        snprintf(msgs[n++], AV_WARNING_MAX, "--no-scale has no effect with --compare scale: it trains both, scale and no-scale");
    if (o->compare == AV_CMP_NORM && av_option_given(o, "norm"))
        snprintf(msgs[n++], AV_WARNING_MAX, "--norm %s has no effect with --compare norm: it trains both, pre-ln and post-ln",
                 o->norm == AV_NORM_POST ? "post" : "pre");
    if (o->compare == AV_CMP_POSITIONS && av_option_given(o, "positions"))
        snprintf(msgs[n++], AV_WARNING_MAX, "--positions %s has no effect with --compare positions: it trains learned, "
                 "sinusoidal and rope", av_positions_name(o->positions));
    for (int k = 0; k < 2; k++) { /* as without --train: only RoPE reads them (--compare positions trains it) */
        const char *name = k ? "rope-base" : "rope-style";
        if (!av_option_given(o, name) || o->positions == AV_POS_ROPE || o->compare == AV_CMP_POSITIONS) continue;
        option_text(opt, sizeof opt, o, name);
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train without --positions rope", opt);
    }
    if (o->kernel == AV_KERNEL_FLASH + 1) /* reference: the readable loops; auto and blas: packed sgemm */
        snprintf(msgs[n++], AV_WARNING_MAX, "--kernel flash has no effect with --train: it trains with blas (or --kernel reference)");
    for (int i = 0; i < N_OPTS && n < AV_MAX_WARNINGS; i++) {
        const char *name = kOpts[i].name;
        int used = strcmp(name, "dump") == 0 || strcmp(name, "causal") == 0;
        for (size_t k = 0; !used && k < sizeof kTrainUses / sizeof kTrainUses[0]; k++) used = !strcmp(name, kTrainUses[k]);
        if (used || !av_option_given(o, name)) continue;
        /* which warning, then "--NAME VALUE" written once, in the bytes that warning gives it (NUL included) */
        int layers = !strcmp(name, "layer") && !av_option_given(o, "layers") &&
                     o->layer >= kOpts[long_option_row("layers", 6)].lo && o->layer <= kOpts[long_option_row("layers", 6)].hi;
        int heads = !strcmp(name, "head") && !av_option_given(o, "heads") && train_heads_run(o, o->head);
        int fixed = !strcmp(name, "format") || !strcmp(name, "cmap");
        given_text(opt, model_refuses(name) ? 51 : fixed ? 21 : layers || heads ? 25 : 61, o, name);
        int whole = pasted_option(paste, sizeof paste, o, name);
        const char *add = whole ? "" : " (add your --", *add_name = whole ? "" : name,
                   *add_why = whole ? "" : ": too long to repeat here)"; /* after the command */
        char typed[24], why[120];
        if (model_refuses(name)) /* --weights, --pad-to, --attn-mask: --model refuses them too */
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train: it is for one attention layer, "
                     "not a model (--model refuses it too)", opt);
        else if (fixed)
            /* "use it on a run of the trained folder" read as a way to redraw the film strip or the curves;
             * --model draws the model's maps, and nothing redraws the training figures (their snapshots are
             * not kept): a figure-maker's report. --dpi and --scale do apply to them */
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train: its figures are fixed (PNG + SVG, "
                     "viridis); the trained model's maps take it: attnviz --model %s %s%s\"%s\"%s%s%s", opt, dir, paste,
                     whole ? " " : "", av_task_prompt_text(o->train), add, add_name, add_why);
        /* "--train reverse --layer 3", --layers' neighbour (as --head is --heads'): it trained the default 2
         * layers, and the warning pointed only at --model */
        else if (layers)
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train: did you mean --layers %s? (--layer picks a "
                     "layer of attnviz --model %s)", opt, av_option_shown(typed, sizeof typed, o, "layer", o->layer), dir);
        /* "--train reverse --head 2", as --layer is --layers': it trained the task's 4 heads (a tester's report);
         * offered when --heads N would train: N divides the task's d_model, d_k even for RoPE */
        else if (heads)
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train: did you mean --heads %s? (--head picks a "
                     "head of attnviz --model %s)", opt, av_option_shown(typed, sizeof typed, o, "head", o->head), dir);
        /* "--figures mean", "--head 7" of 4 heads, "--explain 0,9" of 6 tokens: the command to paste was refused */
        else if (model_refuses_trained(o, name, why, sizeof why))
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train%s", opt, why);
        else
            snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --train; use it on a run of the trained folder: "
                     "attnviz --model %s %s%s\"%s\"%s%s%s", opt, dir, paste, whole ? " " : "",
                     av_task_prompt_text(o->train), add, add_name, add_why);
    }
    return n;
}

int av_unused_options(const av_options *o, char msgs[][AV_WARNING_MAX]) {
    static const char *const kFigureOpts[] = {"figures", "format", "cmap", "dpi", "scale", "outdir", "title", "prefix",
                                              "vmax", "log-scale", "pool"};
    if (o->train >= 0) return unused_with_train(o, msgs);
    int n = 0, rope = o->positions == AV_POS_ROPE || (o->compare && o->compare != AV_CMP_SCALE);
    char opt[96], figs[35]; /* figs: "--figures LIST", the list in 24 bytes */
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "rope-base" : "rope-style";
        if (!av_option_given(o, name) || rope || o->model_dir) continue; /* a --model refuses them (exit 2) */
        option_text(opt, sizeof opt, o, name);
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect without --positions rope", opt);
    }
    for (size_t k = 0; o->no_plot && k < sizeof kFigureOpts / sizeof kFigureOpts[0]; k++) {
        if (!av_option_given(o, kFigureOpts[k]) || n == AV_MAX_WARNINGS) continue;
        if (o->html && (strcmp(kFigureOpts[k], "outdir") == 0 || strcmp(kFigureOpts[k], "prefix") == 0 ||
                        strcmp(kFigureOpts[k], "cmap") == 0 || strcmp(kFigureOpts[k], "title") == 0 ||
                        strcmp(kFigureOpts[k], "vmax") == 0 || strcmp(kFigureOpts[k], "log-scale") == 0))
            continue; /* the --html page goes there, named with the prefix, titled with --title, and colours its
                       * weights with --cmap, --vmax and --log-scale, as the figures */
        if (o->show && strcmp(kFigureOpts[k], "cmap") == 0) {
            if (o->color == AV_COLOR_NEVER) { /* --show prints numbers only: nothing takes --cmap's colours */
                given_text(opt, 61, o, "cmap");
                snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --no-plot and --color never (--show prints "
                         "numbers, no colours)", opt);
            }
            continue; /* --show colours its cells with --cmap (on a colour terminal) */
        }
        given_text(opt, sizeof opt, o, kFigureOpts[k]); /* 95 bytes at most, "--title xxx..." cut with its mark */
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with --no-plot (no figures are written)", opt);
    }
    /* --vmax and --log-scale set the attention weights' colours (heads, grid, mean, a --model's maps, the
     * --compare figure but order's |ΔA| map): with only scores, pe or mask drawn no pixel changed, and
     * nothing said so (a tester's report: --figures scores --log-scale) */
    int weight_figs = (o->figures & (AV_FIG_HEADS | AV_FIG_GRID | AV_FIG_MEAN | AV_FIG_MODEL)) ||
                      (o->compare && o->compare != AV_CMP_ORDER) || o->html; /* the page's weights too */
    for (int k = 0; k < 2 && !o->no_plot && !weight_figs && o->train < 0; k++) {
        const char *name = k ? "log-scale" : "vmax";
        if (!av_option_given(o, name) || n == AV_MAX_WARNINGS) continue;
        given_text(opt, 25, o, name);
        given_text(figs, sizeof figs, o, "figures");
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with %s: it colours attention weights (heads, "
                 "grid, mean, model), not scores, pe, mask", opt, figs);
    }
    /* --cmap colours the weights and the mask (figures, the --compare figure, the --html page, --show's cells);
     * scores and pe are always RdBu_r, so with only those drawn no pixel changed and nothing said so */
    int cmap_figs = (o->figures & (AV_FIG_HEADS | AV_FIG_GRID | AV_FIG_MEAN | AV_FIG_MASK | AV_FIG_MODEL)) ||
                    o->compare || o->html || (o->show && o->color != AV_COLOR_NEVER);
    if (!o->no_plot && !cmap_figs && o->train < 0 && av_option_given(o, "cmap") && n < AV_MAX_WARNINGS) {
        given_text(opt, 25, o, "cmap");
        given_text(figs, sizeof figs, o, "figures");
        snprintf(msgs[n++], AV_WARNING_MAX, "%s has no effect with %s: scores and pe are always drawn in "
                 "RdBu_r (it colours weights and the mask)", opt, figs);
    }
    /* a --model draws layer L's head --head on its own (by default, or with --figures heads: not with
     * --figures grid or model, where --head was silently unused: a tester's report), and --show prints that
     * head only */
    int model_head_fig = !o->no_plot && (!av_option_given(o, "figures") || (o->figures & AV_FIG_HEADS));
    /* a figure that would take --head but for --no-plot: the --compare figure, a --model's head figure. Such a
     * run was told "it picks the head of ... the --compare figure", which it asked for: the cause, --no-plot, went
     * unsaid (a maintainer's list of known faults) */
    int head_fig_unplotted = o->no_plot && (o->compare || (o->model_dir && (!av_option_given(o, "figures") ||
                                                                            (o->figures & AV_FIG_HEADS))));
    /* --show prints --head alone, and the --html page opens on it, in both modes: `--heads 8 --show --head 2`
     * was told "no effect" and printed all 8 heads (73 lines, too many for a projector's 24) */
    if (av_option_given(o, "head") && !o->explain && !(o->compare && !o->no_plot) && !o->show && !o->html &&
        !(o->model_dir && model_head_fig) && n < AV_MAX_WARNINGS) {
        char typed[24]; /* as typed, "--head 04", cut to fit the 160-byte warning */
        av_option_shown(typed, sizeof typed, o, "head", o->head);
        if (head_fig_unplotted)
            snprintf(msgs[n++], AV_WARNING_MAX, "--head %s has no effect with --no-plot (no figures are written); it also picks "
                     "the head of --explain, --show and the --html page", typed);
        else if (o->model_dir)
            snprintf(msgs[n++], AV_WARNING_MAX, "--head %s has no effect: with --model it picks the head of --explain, --show, "
                     "the --html page, the --compare figure and --figures heads", typed);
        else
            snprintf(msgs[n++], AV_WARNING_MAX, "--head %s has no effect: only --explain, --show, --html and the --compare "
                     "figure use one head (figures draw every head)", typed);
    }
    if (o->model_dir && o->verbose && n < AV_MAX_WARNINGS) /* the model's trace has no matrix printout */
        snprintf(msgs[n++], AV_WARNING_MAX, "-v has no effect with --model: its trace prints no matrices (--dump DIR writes "
                 "them; --explain Q,K shows one cell's numbers)");
    if (av_option_given(o, "precision") && !(o->verbose && !o->model_dir) && !o->explain && !o->html &&
        n < AV_MAX_WARNINGS) { /* the page's views print with it */
        char typed[24]; /* "--precision 010" was told "--precision 10 has no effect" */
        snprintf(msgs[n++], AV_WARNING_MAX, "--precision %s has no effect without -v/--verbose, --explain or --html%s",
                 av_option_shown(typed, sizeof typed, o, "precision", o->precision),
                 o->model_dir && o->verbose ? " (-v prints nothing more with --model)" : "");
    }
    if (av_option_given(o, "html-limit") && !o->html && n < AV_MAX_WARNINGS) {
        char typed[24];
        snprintf(msgs[n++], AV_WARNING_MAX, "--html-limit %s has no effect without --html (it sets the size of the --html page)",
                 av_option_shown(typed, sizeof typed, o, "html-limit", o->html_limit));
    }
    /* compare.c settings: both runs; with --model it is an error, which this warning contradicted (a tester's
     * report: "has no effect", then "cannot be used with --model"). The sentence's own run still takes them:
     * its trace, figures, --dump, --html, --show and --explain (a tester's report: -p rope --compare order was
     * called 'no effect' while head0.png and weights.npy changed with it), so only a run that shows none of
     * those is warned */
    int base_shown = !o->quiet || !o->no_plot || o->dump_dir || o->html || o->show || o->explain;
    if (o->compare == AV_CMP_SCALE && o->no_scale && !o->model_dir && !base_shown && n < AV_MAX_WARNINGS)
        snprintf(msgs[n++], AV_WARNING_MAX, "--no-scale has no effect with --compare scale: it runs both, scaled ÷√d_k and no scale");
    /* --compare positions, order and rope-style set the positions of each run themselves */
    int own_pos = o->compare == AV_CMP_POSITIONS || o->compare == AV_CMP_ORDER || o->compare == AV_CMP_ROPE_STYLE;
    const char *runs = o->compare == AV_CMP_ROPE_STYLE ? "RoPE interleaved and RoPE half" : "none, sinusoidal and RoPE";
    if (own_pos && av_option_given(o, "positions") && !base_shown && n < AV_MAX_WARNINGS)
        snprintf(msgs[n++], AV_WARNING_MAX, "--positions %s has no effect with --compare %s: it runs %s",
                 av_positions_name(o->positions), av_compare_name(o->compare), runs);
    if (o->compare == AV_CMP_ROPE_STYLE && av_option_given(o, "rope-style") &&
        (!base_shown || o->positions != AV_POS_ROPE) && n < AV_MAX_WARNINGS)
        snprintf(msgs[n++], AV_WARNING_MAX, "--rope-style %s has no effect with --compare rope-style: it runs %s",
                 av_rope_style_name(o->rope_style), runs);
    return n;
}

void av_options_text_hint(char *out, size_t n, const av_options *o) {
    if (!n) return;
    out[0] = 0;
    if (!o->last_opt || !o->last_value) return;
    char word[128], so[200], wide[480];
    av_shell_word(word, sizeof word, o->last_value);
    /* the option itself, not the word it ended: a cluster's last letter took the next argument, and "%.40s" of
     * `-qqq...qo "I love"` (60 q's) named "-qqq...q", 40 bytes without the o and no sign of the cut; a long
     * option's word is at most its name, as getopt matched it */
    const char *opt = o->last_opt;
    char letter[3] = {'-', 0, 0};
    if (opt[0] == '-' && opt[1] && opt[1] != '-' && opt[2]) letter[1] = opt[strlen(opt) - 1], opt = letter;
    snprintf(so, sizeof so, "%s took the text into its value", opt);
    if (wide_space_hint(wide, sizeof wide, o->last_value, so)) /* "--explain 爱,习　我爱深度学习" */
        snprintf(out, n, " (the last argument, %s, is the value of %s: %s)", word, opt, wide);
    else
        snprintf(out, n, " (the last argument, %s, is the value of %s: the text goes after it)", word, opt);
}

void av_stdin_text_hint(char *out, size_t n) {
    if (!n) return;
    out[0] = 0;
    struct stat st;
    if (isatty(STDIN_FILENO) || fstat(STDIN_FILENO, &st) != 0) return;
    const char *what = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? "a pipe"
                       : S_ISREG(st.st_mode) && st.st_size > 0    ? "a file"
                                                                  : NULL;
    if (what)
        snprintf(out, n, " (the standard input is %s, which attnviz reads only when told: add a lone - or -f - to "
                 "read the text from it)", what);
}

/* apply refused the value of row d, typed as opt and the last argument: when d's value is a name (OPT_CHOICE,
 * --figures' list) and no word of text is left, the text may be what it took, so say so as --title's and -o's
 * "no sentence given" does: `attnviz --show --color "I love deep"` said only "--color 'I love deep' is not
 * allowed; expected auto, always or never" (a tester's report). getopt, called once more, ends and leaves optind
 * at the first word of text (GNU getopt moves them after the options). Returns st, err's message extended. */
static av_status choice_was_text(const optdef *d, av_options *o, const char *opt, int argc, char **argv,
                                 const char *shortopts, const struct option *longopts, av_status st, av_err *err) {
    const char *value = argv[argc - 1];
    unsigned cp;
    /* a full-width space's message already says the value took the rest; --train takes no text, and nor does a
     * run given -f (`-f s.txt --color "I love"` and `--train reverse --compare "I love"` were told "the text goes
     * after it": a tester's pass). Every option before this one is applied: the value is the last argument */
    if ((d->kind != OPT_CHOICE && d->parse != parse_figures) || value[0] == '-' || wide_space_at(value, &cp) >= 0 ||
        d->offset == AT(train) || o->file || av_option_given(o, "train"))
        return st;
    if (getopt_long(argc, argv, shortopts, longopts, NULL) != -1 || optind < argc) return st; /* text given */
    o->last_opt = opt;
    o->last_value = value;
    char hint[480], inner[sizeof err->msg];
    av_options_text_hint(hint, sizeof hint, o);
    snprintf(inner, sizeof inner, "%s", err->msg);
    return av_fail(err, st, "%s%s", inner, hint);
}

/* The standard input holds one thing: `-f - --attn-mask -` read the text and then found the mask's stream empty,
 * "--attn-mask: -: not a .npy file (bad magic; expected \x93NUMPY at the start)". */
static av_status stdin_read_once(const av_options *o, av_err *err) {
    if (o->file && o->attn_mask && !strcmp(o->file, "-") && !strcmp(o->attn_mask, "-"))
        return av_fail(err, AV_EUSAGE, "-f - and --attn-mask - both read the standard input, which can hold only one "
                       "of them; give the mask as a file (--attn-mask m.npy) or the text as a file (-f FILE) or as "
                       "words");
    return AV_OK;
}

/* The positional words argv[first..argc-1] joined by single spaces into
 * o->sentence (owned), or -f, but not both and not neither (with --model,
 * neither is left to av_gpt2run_open, which knows the model's kind of text). */
static av_status join_sentence(av_options *o, int first, int argc, char **argv, av_err *err) {
    if (first >= argc) {
        if (o->file) return AV_OK;
        if (o->model_dir) return AV_OK; /* av_gpt2run_open refuses it, with an input of the model's own kind */
        static const char example[] = "I love deep learning";
        char hint[480], in[160], given[800], left[200], dropped[400] = "";
        av_options_text_hint(hint, sizeof hint, o);
        av_stdin_text_hint(in, sizeof in); /* `echo "I love you" | attnviz` said only "no sentence given" */
        /* --explain names tokens of the user's sentence: kept when it names a cell of the example too ("1,2",
         * "love,deep"), else left out, where the command would stop, and said so: `attnviz --explain 1,2` was
         * told to try `attnviz --heads 8 "I love deep learning"`, its --explain gone without a word */
        av_tokens ex = {0};
        av_err e = {{0}};
        int qi, kj, keep = o->explain && av_tokenize(&ex, example, strlen(example), AV_MAX_TOKENS, &e) == AV_OK;
        /* padded as the run pads it (main.c): `--pad-to 8 --explain 5,6` names <pad> cells of the example, and was
         * left out as naming none */
        while (keep && ex.n < o->pad_to) keep = av_tokens_push(&ex, "<pad>", &e) == AV_OK;
        keep = keep && av_explain_locate(o->explain, &ex, &qi, &kj) == AV_OK;
        av_tokens_free(&ex);
        if (o->explain && !keep) { /* a value too long to repeat: named alone */
            if (!pasted_option(dropped, sizeof dropped - 80, o, "explain")) strcpy(dropped, "--explain");
            strcat(dropped, " is left out: it names no cell of this example");
        }
        /* the command with the options typed, whole, to paste: `attnviz --heads 2` was told to try --heads 8, and
         * `-o x` was dropped (a new user's pass); --heads 8 is the example only when none was typed */
        if (!av_options_pasted(given, sizeof given, left, sizeof left, o, keep ? NULL : "explain"))
            snprintf(given, sizeof given, "--heads 8 ");
        return av_fail(err, AV_EUSAGE, "no sentence given%s%s; try: attnviz %s\"%s\"%s%s%s (or -f FILE, or -f - "
                       "for stdin%s%s)", hint, in, given, example, left[0] ? " (add your " : "", left,
                       left[0] ? ": too long to repeat here)" : "", dropped[0] ? "; " : "", dropped);
    }
    if (o->file) return av_fail(err, AV_EUSAGE, "give the sentence either as arguments or with -f FILE, not both");
    size_t total = 1;
    for (int i = first; i < argc; i++) {
        total += strlen(argv[i]) + 1;
        if (total > AV_MAX_INPUT_BYTES + 1)
            return av_fail(err, AV_EUSAGE, "the sentence is longer than the %u-byte limit; " AV_TEXT_PART_HINT,
                           AV_MAX_INPUT_BYTES, AV_MAX_TOKENS);
    }
    o->sentence = malloc(total);
    if (!o->sentence) return av_fail(err, AV_ERUNTIME, "out of memory");
    size_t at = 0;
    for (int i = first; i < argc; i++) {
        size_t n = strlen(argv[i]);
        memcpy(o->sentence + at, argv[i], n);
        at += n;
        if (i + 1 < argc) o->sentence[at++] = ' ';
    }
    o->sentence[at] = 0;
    return AV_OK;
}

/* ---------------------------------------------------------------------------- the parser */

_Static_assert(N_OPTS <= 64, "av_options.given has one bit per option");

int av_option_given(const av_options *o, const char *name) {
    for (int i = 0; i < N_OPTS; i++)
        if (strcmp(kOpts[i].name, name) == 0) return (int)(o->given >> i & 1u);
    return 0;
}

const char *av_option_shown(char *buf, size_t n, const av_options *o, const char *name, int value) {
    for (int i = 0; i < N_OPTS; i++)
        if (strcmp(kOpts[i].name, name) == 0 && (o->given >> i & 1u) && o->typed[i]) {
            show_value(buf, n, o->typed[i]);
            return buf;
        }
    snprintf(buf, n, "%d", value);
    return buf;
}

void av_options_free(av_options *o) {
    free(o->sentence);
    o->sentence = NULL;
}

/* apply refused value, the value of row d (a number: --heads, --steps, --lr, ...; or --layer), and next is the word
 * after it: when value and next joined by a space are an index or ordinal that value alone is not ("头 3", "H 3",
 * "第 八", "层 1": av_ordinal_hint, index_name_hint, count_ordinal_hint), a number grouped by thousands ("1 200":
 * grouping_hint), or for a real option joined without it a per cent ("百分之 5": chinese_hint), the shell split
 * them, and next went into
 * the sentence, so err's message, which has no hint of its own, gets "(the shell split '头 3' at its space, and the
 * next word, 3, went into the sentence; the 头 before the number is not part of it: type --head 3)" before its
 * "; allowed: ". `--head 头 3 我爱深度学习` said only "--head '头' is not a whole number" (a Chinese-speaking
 * learner's pass: docs/train.zh.md writes 头 3). Returns st, the message extended or as it was. */
static av_status split_value(const optdef *d, const char *value, const char *next, av_status st, int ctx,
                             av_err *err) {
    char joined[96], hint[400], shown[200], nw[200], msg[sizeof err->msg];
    if (st != AV_EUSAGE || !next || !*next || *next == '-' || strlen(value) + strlen(next) + 2 > sizeof joined ||
        strchr(value, ' ') || !(d->kind == OPT_INT || d->kind == OPT_U64 || d->kind == OPT_DOUBLE ||
                                d->parse == parse_layer))
        return st;
    size_t vl = strlen(value);
    memcpy(joined, value, vl), joined[vl] = ' ', memcpy(joined + vl + 1, next, strlen(next) + 1);
    int index = !strcmp(d->name, "head") || !strcmp(d->name, "layer");
    hint[0] = 0;
    int count = strcmp(d->name, "head") ? 0 : CTX_HEADS(ctx); /* 0: not known (a layer's, always: parse_layer) */
    if (index) av_ordinal_hint(hint, sizeof hint, d->name, joined, count - 1); /* "第 一" */
    if (index && !hint[0]) index_name_hint(hint, sizeof hint, d->name, joined, count);
    if (!index && d->kind != OPT_DOUBLE) count_ordinal_hint(hint, sizeof hint, d->name, joined, d->lo, d->hi); /* "--heads 第 八" */
    if (d->kind == OPT_DOUBLE) { /* "--lr 百分之 5": 百分之5, as one word is told (chinese_hint) */
        char one[96];
        snprintf(one, sizeof one, "%s%s", value, next);
        chinese_hint(hint, sizeof hint, one, 1, d->min, d->max, d->open);
    } else if (!index && !hint[0]) /* "--dpi 1 200": digits grouped by a space (SI), as --dpi '1 200' is told */
        grouping_hint(hint, sizeof hint, joined, d->lo, d->range_later ? LLONG_MAX : d->hi);
    const char *at = strstr(err->msg, "; allowed: ");
    if (!at) at = err->msg + strlen(err->msg); /* "--dpi 1 is outside the allowed range 50..600" */
    size_t hl = strlen(hint);
    if (hl < 3 || at == err->msg || at[-1] == ')') return st; /* no hint, or the message has one */
    snprintf(msg, sizeof msg, "%.*s (the shell split %s at its space, and the next word, %s, went into the sentence; "
             "%.*s)%s", (int)(at - err->msg), err->msg, av_quoted_word(shown, sizeof shown, joined),
             av_shown_word(nw, sizeof nw, next), (int)(hl - 3), hint + 2, at);
    return av_fail(err, st, "%s", msg);
}

/* 1 if w is one counting word that Chinese writes after a count, as in "100步", "8个", "2层" (步 steps, 次 and 遍
 * and 回 and 趟 times, 轮 rounds, 个 the general one, 头 heads, 层 layers, 维 dimensions, 批 batches, 位, 块, 组,
 * 条, 张, 项, 份, 种; traditional forms too): the words that, split from the number by a space ("--steps 100 步"),
 * are no sentence (split_number); else 0, also for two or more characters ("我爱"). */
static int counting_word(const char *w) {
    static const char *const kCounting[] = {"步", "次", "遍", "回", "趟", "轮", "輪", "个", "個", "头", "頭", "层",
                                            "層", "维", "維", "批", "位", "块", "塊", "组", "組", "条", "條", "张",
                                            "張", "项", "項", "份", "种", "種"};
    for (size_t i = 0; i < sizeof kCounting / sizeof kCounting[0]; i++)
        if (!strcmp(w, kCounting[i])) return 1;
    return 0;
}

/* AV_EUSAGE "--steps 4 000: the shell split it at its space, so --steps got 4 and the next word, 000, went into the
 * sentence; the ' ' between its digits groups thousands, which a number here does not take: type 4000" when words[0]
 * is the accepted value of number option d and words[1..n) start with one or more words of three ASCII digits
 * that, joined to it by spaces, are a number grouped by thousands (grouping_hint; the SI's "4 000"), or with a word
 * that, joined to it without the space, is a number with a per cent or a unit after it, which change its value
 * (chinese_hint's 1: "--lr 5 %" is 5%, "type 0.05"; "--steps 1 万" is 1万, "type the digits 10000"; not any
 * other word, "--steps 100 我爱"), and the words could not be a sentence anyway: --train is given (o->train; it
 * takes no text), or d is --train's own (kTrainOnly), which without --train adds " (and --steps is an option of
 * --train, which this command lacks)". Else AV_OK.
 * `attnviz --train reverse --steps 4 000 -o DIR` said "--train takes no input text, but the sentence '000' is
 * given" (a Chinese-speaking learner's pass). */
static av_status split_number(const optdef *d, const av_options *o, char *const *words, int n, av_err *err) {
    char joined[96], hint[400], nw[96], shown[200];
    int k = 1, real = d->kind == OPT_DOUBLE, train_only = 0;
    for (size_t i = 0; i < sizeof kTrainOnly / sizeof kTrainOnly[0]; i++) train_only |= !strcmp(d->name, kTrainOnly[i]);
    /* without --train, a --train option's split value is told too, and that the option needs --train: left to
     * check_combinations, `--lr 5 % hi` was told "try: attnviz --train reverse --lr 5 -o runs/reverse", which
     * runs at lr 5 (a review of the change); another option's words may be a sentence */
    if ((d->kind != OPT_INT && d->kind != OPT_U64 && !real) || (o->train < 0 && !train_only) || n < 2 ||
        strlen(words[0]) + strlen(words[1]) + 2 > sizeof joined)
        return AV_OK;
    size_t at = (size_t)snprintf(joined, sizeof joined, "%s", words[0]);
    /* a group that does not fit whole is not added: at past joined's end made sizeof joined - at wrap (a
     * value of 80 digits, then 7 groups, wrote past joined) */
    for (; !real && k < n && k < 8 && strlen(words[k]) == 3 && strspn(words[k], "0123456789") == 3 &&
           at + 4 < sizeof joined; k++)
        at += (size_t)snprintf(joined + at, sizeof joined - at, " %s", words[k]);
    hint[0] = 0;
    if (k > 1 && strlen(words[0]) <= 3 && strspn(words[0], "0123456789") == strlen(words[0]))
        grouping_hint(hint, sizeof hint, joined, d->lo, d->range_later ? LLONG_MAX : d->hi);
    if (!hint[0]) { /* "5 %", "1 万": one word, joined without the space */
        char one[96];
        snprintf(one, sizeof one, "%s%s", words[0], words[1]);
        /* a per cent or a unit alone, whose value is not words[0]'s: "--steps 100 我爱" is told what --train
         * says of any sentence, not "the 我爱 after the number is not part of it: type 100" */
        if (!(real ? chinese_hint(hint, sizeof hint, one, 1, d->min, d->max, d->open)
                   : chinese_hint(hint, sizeof hint, one, 0, (double)d->lo,
                                  d->range_later ? HUGE_VAL : (double)d->hi, 0)))
            hint[0] = 0;
        /* one counting word (counting_word), as "--steps 100步" is told, with the option to type, as words[0]
         * alone was typed: "--steps 100 步" said "--train takes no input text, but the sentence '步' is given" */
        if (!hint[0] && counting_word(words[1]))
            snprintf(hint, sizeof hint, " (the %s after the number is not part of it: type --%s %s, without the %s)",
                     words[1], d->name, words[0], words[1]);
        /* an English one (english_unit_word): "--steps 100 steps" said "the sentence 'steps' is given" */
        if (!hint[0] && english_unit_word(words[1]))
            snprintf(hint, sizeof hint, " (the word %s after the number is not part of it: type --%s %s, without "
                     "%s)", words[1], d->name, words[0], words[1]);
        k = 2;
        snprintf(joined, sizeof joined, "%s %s", words[0], words[1]);
    }
    size_t hl = strlen(hint);
    if (hl < 3) return AV_OK;
    snprintf(nw, sizeof nw, "%s", joined + strlen(words[0]) + 1);
    return av_fail(err, AV_EUSAGE, "--%s %s: the shell split it at its space%s, so --%s got %s and the next word%s, "
                   "%s, went into the sentence; %.*s%s%s%s", d->name, av_shown_word(shown, sizeof shown, joined),
                   k > 2 ? "s" : "", d->name, words[0], k > 2 ? "s" : "", nw, (int)(hl - 3), hint + 2,
                   o->train < 0 ? " (and --" : "", o->train < 0 ? d->name : "",
                   o->train < 0 ? " is an option of --train, which this command lacks)" : "");
}

/* CTX_TRAIN if getopt_long finds --train among argv's options, wherever it is, and CTX_MODEL if it finds --model
 * (-m), or with neither the heads in use (the last --heads N, or AV_DEFAULT_HEADS) << CTX_HEADS_SHIFT, so --head
 * H4's hint knows that 4 heads are H0..H3: a choice's hints, read before --train or --model is (`--compare
 * order,norm --train reverse`, `--compare positions,order --model DIR`), name a value that runs with it. It reads a copy, as getopt_long moves the words
 * of the argv it reads; 0 when the copy cannot be made (the hints are then those without either). */
static int context_given(int argc, char **argv, const char *shortopts, const struct option *longopts) {
    char **copy = argc > 0 ? malloc((size_t)argc * sizeof *copy) : NULL;
    int seen = 0, ch;
    long heads = AV_DEFAULT_HEADS; /* --heads N, the last one, when it is a whole number in its range */
    if (!copy) return 0;
    memcpy(copy, argv, (size_t)argc * sizeof *copy);
    optind = 0;
    while ((ch = getopt_long(argc, copy, shortopts, longopts, NULL)) != -1)
        for (int i = 0; i < N_OPTS; i++) /* a short option's ch is its letter (-m), a long one's LONG_ONLY + row */
            if (ch == (kOpts[i].short_name ? kOpts[i].short_name : LONG_ONLY + i)) {
                seen |= kOpts[i].offset == AT(train) ? CTX_TRAIN : kOpts[i].offset == AT(model_dir) ? CTX_MODEL : 0;
                if (kOpts[i].offset == AT(heads)) /* "--heads 4x": not known */
                    heads = optarg && is_decimal(optarg, 0) && strlen(optarg) < 4 ? strtol(optarg, NULL, 10) : 0;
            }
    optind = 0;
    free(copy);
    if (!seen && heads >= 1 && heads <= AV_MAX_HEADS) seen |= (int)heads << CTX_HEADS_SHIFT;
    return seen;
}

/* --explain's form error for spec again, its e.g. from the tokens of the sentence that argv's words give (read from
 * a copy, as context_given reads it; the default tokenizer's, as --model and --train are not given): `--explain 爱
 * 我爱深度学习` said "e.g. 1,3 or love,learning", which a learner cannot paste, and now says "e.g. 1,3 or 爱,度".
 * No sentence (it is read from -f or stdin, or spec is the last word) keeps the message; returns st. */
static av_status explain_form_again(const char *spec, int last, int argc, char **argv, const char *shortopts,
                                    const struct option *longopts, av_status st, av_err *err) {
    av_err plain = {{0}}; /* err is another error of the value ("I\n,you": a control character): left as it is */
    if (!av_explain_check_form(spec, last, NULL, &plain) || strcmp(plain.msg, err->msg)) return st;
    char **copy = argc > 0 ? malloc((size_t)argc * sizeof *copy) : NULL, *text = NULL;
    if (!copy) return st;
    memcpy(copy, argv, (size_t)argc * sizeof *copy);
    optind = 0;
    while (getopt_long(argc, copy, shortopts, longopts, NULL) != -1) {
    }
    size_t total = 1;
    for (int i = optind; i < argc; i++) total += strlen(copy[i]) + 1;
    if (optind < argc && total <= AV_MAX_INPUT_BYTES + 1 && (text = malloc(total))) {
        size_t at = 0;
        for (int i = optind; i < argc; i++) at += (size_t)sprintf(text + at, "%s%s", i > optind ? " " : "", copy[i]);
        av_tokens toks = {0};
        av_err e = {{0}};
        av_status fs = av_tokenize(&toks, text, at, AV_MAX_TOKENS, &e) ? AV_OK : av_explain_check_form(spec, last,
                                                                                                        &toks, &e);
        if (fs) st = av_fail(err, fs, "%s", e.msg);
        av_tokens_free(&toks);
    }
    optind = 0;
    free(text);
    free(copy);
    return st;
}

av_status av_parse_args(av_options *o, int argc, char **argv, av_err *err) {
    *o = kDefaults;
    o->argc = argc;
    o->argv = argv;
    struct option longopts[N_OPTS + 1];
    char shortopts[2 * N_OPTS + 2];
    int ns = 0;
    shortopts[ns++] = ':'; /* report a missing argument as ':' */
    for (int i = 0; i < N_OPTS; i++) {
        int has_arg = kOpts[i].arg != NULL;
        int val = kOpts[i].short_name ? kOpts[i].short_name : LONG_ONLY + i;
        longopts[i] = (struct option){kOpts[i].name, has_arg, NULL, val};
        if (kOpts[i].short_name) {
            shortopts[ns++] = kOpts[i].short_name;
            if (has_arg) shortopts[ns++] = ':';
        }
    }
    shortopts[ns] = 0;
    memset(&longopts[N_OPTS], 0, sizeof longopts[N_OPTS]);

    optind = 0; /* GNU: full re-initialisation, so the parser can run again */
    opterr = 0;
    av_status st;
    int ch;
    const char *free_text_opt = NULL, *free_text_val = NULL; /* the last free-text option with a separate value */
    int split_row = -1, split_n = 0; /* a number's value and the words after it: "--steps 4 000" */
    char *split_words[9];
    if ((st = check_words(argc, argv, err))) return st;
    int ctx = context_given(argc, argv, shortopts, longopts);
    int long_at = -1, n_seen = 0; /* long_at: getopt_long sets it for a long option only */
    while ((ch = getopt_long(argc, argv, shortopts, longopts, &long_at)) != -1) {
        int row = ch >= LONG_ONLY ? ch - LONG_ONLY : -1;
        for (int i = 0; row < 0 && i < N_OPTS; i++)
            if (kOpts[i].short_name == ch) row = i;
        if (row < 0) return bad_option(ch, argv, err);
        int separate = optarg && optind > 0 && optarg == argv[optind - 1]; /* not --name=VALUE or -XVALUE */
        if ((st = apply(&kOpts[row], o, optarg, separate, separate && optarg == argv[argc - 1], ctx, err))) {
            if (separate && optarg == argv[argc - 1] && optind >= 2)
                return choice_was_text(&kOpts[row], o, argv[optind - 2], argc, argv, shortopts, longopts, st, err);
            if (kOpts[row].offset == AT(explain) && !(ctx & (CTX_MODEL | CTX_TRAIN)))
                return explain_form_again(optarg, separate && optarg == argv[argc - 1], argc, argv, shortopts,
                                          longopts, st, err);
            return split_value(&kOpts[row], optarg, optind < argc ? argv[optind] : NULL, st, ctx, err);
        }
        o->given |= 1ull << row;
        o->typed[row] = optarg;
        o->seq[row] = (unsigned char)(++n_seen < 255 ? n_seen : 255);
        o->short_typed = long_at < 0 ? o->short_typed | 1ull << row : o->short_typed & ~(1ull << row);
        long_at = -1;
        /* the words after a separate value, before getopt moves them: the "000" of "--steps 4 000" */
        if (separate && split_row < 0 && optind < argc && argv[optind][0] != '-') {
            for (split_row = row, split_n = 0; split_n < 9 && optind - 1 + split_n < argc; split_n++)
                split_words[split_n] = argv[optind - 1 + split_n];
        }
        /* --help and --version are acted on where getopt reaches them, as the GNU tools do: `attnviz --help --heads
         * 99` said "--heads 99 is outside the allowed range 1..64" (exit 2) in place of the help (a tester's
         * report); an error in an option before them stays an error */
        if (o->help || o->version) return AV_OK;
        size_t off = kOpts[row].offset;
        int free_text = kOpts[row].parse == parse_prefix || off == AT(title) || off == AT(outdir) ||
                        off == AT(dump_dir) || off == AT(explain); /* "I love, you" passes --explain's form */
        free_text_opt = separate && free_text && optind >= 2 ? argv[optind - 2] : NULL;
        free_text_val = free_text_opt ? optarg : NULL;
    }
    /* no positional word left, and that value was the last argument: it may be the text (a new user's
     * `attnviz --model runs/reverse --title "3 1 4 1 5 >"` was told only "no input text given") */
    if (optind >= argc && free_text_val && argc > 0 && free_text_val == argv[argc - 1]) {
        o->last_opt = free_text_opt;
        o->last_value = free_text_val;
    }
    if (o->help || o->version) return AV_OK;
    if ((st = check_lookalike_dashes(optind, argc, argv, err))) return st;
    if (split_row >= 0 && (st = split_number(&kOpts[split_row], o, split_words, split_n, err))) return st;
    if ((st = check_combinations(o, optind, argc, argv, err))) return st;
    if (o->train >= 0) { /* it trains on generated task data: input text, either way, is an error */
        char dir[1200]; /* the folder it trains, to paste */
        trained_folder_word(dir, sizeof dir, o);
        /* the file and the sentence as one shell word each, cut at a whole character with "..." after it
         * (marked_shell_word): "%.100s" cut `--train reverse` and a sentence of 40 深 inside the 34th, shown as
         * U+FFFD, with no sign of the cut, and pasted `-f a b.txt` back as two words (a tester's pass) */
        char file[120];
        if (o->file)
            return av_fail(err, AV_EUSAGE, "--train takes no input text, but -f/--file %s is given; it trains on "
                           "its task's generated data; try the trained model with: attnviz --model %s -f %s",
                           marked_shell_word(file, sizeof file, o->file), dir, file);
        if (optind < argc) {
            /* the words joined as the sentence would be (`--train reverse 3 1 4 ">"` named only '3'), and the
             * suggestion is that sentence: it said "3 1 4 1 5 >" whatever the task, so `--train induction -o DIR
             * "k q a z m k q a"` was told to try a reverse prompt, which --model then calls outside induction */
            if ((st = join_sentence(o, optind, argc, argv, err))) return st;
            const char *s = o->sentence;
            /* the placeholder of the training chapter's tables, typed as it is written there: docs/train.md's
             * `attnviz --train reverse OPTIONS -o DIR` and docs/train.zh.md's `attnviz --train reverse 选项 -o DIR`
             * were told to "try the trained model with: attnviz --model DIR "选项"", a run of the placeholder as
             * a sentence (a Chinese-speaking learner's pass of the chapter) */
            if (!strcasecmp(s, "OPTIONS") || !strcmp(s, "选项")) {
                char out[1200], shown[120];
                av_shell_word(out, sizeof out, o->outdir);
                /* the chapter writes the placeholder for reverse and sort only; induction's table has seeds ("induction
                 * `--seed 1`"), so its example is one of them (it was told of a line the chapter does not have, and
                 * --heads 1, no row of its table) */
                const char *task = av_task_name(o->train);
                int induction = !strcmp(task, "induction");
                return av_fail(err, AV_EUSAGE, "--train takes no input text, but the sentence %s is given; %s stands "
                               "for the options of a row of docs/train.md's tables (`attnviz --train %s OPTIONS -o "
                               "DIR`; 选项 in docs/train.zh.md): type the row's options in its place, e.g. attnviz "
                               "--train %s %s -o %s", av_quoted_word(shown, sizeof shown, s), s,
                               induction ? "reverse" : task, task, induction ? "--seed 1" : "--heads 1", out);
            }
            char q = strpbrk(s, "\"\\$`!") && !strchr(s, '\'') ? '\'' : '"'; /* the shell keeps it as typed */
            /* in q, as typed, when that is whole and the shell keeps it: no ' beside "\$`!, nor a control
             * character, which av_shell_word writes $'\n' (quoted as it writes it otherwise) */
            char word[120], quoted[120];
            marked_shell_word(word, sizeof word, s);
            if (strlen(s) < sizeof word - 2 && !(q == '"' && strpbrk(s, "\"\\$`!")) && !strstr(word, "$'"))
                snprintf(word, sizeof word, "%c%s%c", q, s, q);
            return av_fail(err, AV_EUSAGE, "--train takes no input text, but the sentence %s is given; it trains "
                           "on its task's generated data; try the trained model with: attnviz --model %s %s",
                           av_quoted_word(quoted, sizeof quoted, s), dir, word);
        }
        return AV_OK;
    }
    /* a lone "-" is standard input, as for cat and the GNU tools: `echo 我爱你 | attnviz -` ran the one-token
     * sentence "-" (a Chinese-speaking student's pass) */
    if (optind == argc - 1 && strcmp(argv[optind], "-") == 0 && !o->file) {
        o->file = "-";
        return stdin_read_once(o, err);
    }
    if ((st = stdin_read_once(o, err))) return st;
    return join_sentence(o, optind, argc, argv, err);
}

/* ---------------------------------------------------------------- what the options ask of a run */

/* 1 if s holds a bidi embedding, override or isolate control (U+202A..U+202E, U+2066..U+2069): E2 80 AA..AE,
 * E2 81 A6..A9 in UTF-8. */
static int has_bidi_control(const char *s) {
    for (const unsigned char *c = (const unsigned char *)s; (c = (const unsigned char *)strstr((const char *)c, "\xE2"));
         c++)
        if ((c[1] == 0x80 && c[2] >= 0xAA && c[2] <= 0xAE) || (c[1] == 0x81 && c[2] >= 0xA6 && c[2] <= 0xA9)) return 1;
    return 0;
}

/* 1 if s holds a byte the line cannot show as itself: a C0 control other than tab and line feed, DEL, a C1
 * control (U+0080..U+009F, C2 80..C2 9F) or a byte that is not UTF-8. */
static int has_unshowable(const char *s) {
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        unsigned cp;
        const char *why;
        int n = av_utf8_decode(c, strnlen((const char *)c, 4), &cp, &why);
        if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F)) return 1;
        c += n;
    }
    return 0;
}

/* argv as one shell-quoted line, "attnviz --heads 2 'I love you'". An argument holding a bidi control is
 * written in ANSI-C quotes with the controls as their UTF-8 bytes ($'w\xe2\x80\xaeabc', as GNU ls quotes
 * such names by bytes; a \u202e read back as the text "\u202e" in bash's C locale): the
 * same argument to bash or zsh, and an RLO in it no longer turns the rest of the line around where the
 * line is shown (the --html page's command, a PNG's Description). So is one holding a control character
 * (C0 but tab and line feed, DEL, C1) or a byte that is not UTF-8, as \xHH (C1 as \xc2\x85): the sentence
 * "a<ESC>b" put a raw ESC in the PNG's Latin-1 Description, and the SVG's <desc>, which XML cannot hold it
 * in, read 'a<U+FFFD>b', a command that draws another sentence; a Latin-1 folder name -o caf<0xE9> read
 * caf<U+FFFD> in both. An argument that is the home folder ($HOME) or a path in it is written from "~/"
 * (`-o ~/notes/figs`, which the shell had expanded, put /home/alice/notes/figs in the Description of a figure
 * published from the notes: an author's pass), the rest quoted as above: "~/'my notes'" (a quoted '/' would
 * keep bash from expanding the '~'). */

/* The length of $HOME, without trailing '/', when arg is that folder or a path in it; else 0 (HOME unset,
 * empty, relative or "/"). */
static size_t home_prefix(const char *arg) {
    const char *home = getenv("HOME");
    if (!home || home[0] != '/') return 0;
    size_t len = strlen(home);
    while (len > 0 && home[len - 1] == '/') len--;
    return len > 0 && strncmp(arg, home, len) == 0 && (arg[len] == '/' || !arg[len]) ? len : 0;
}

void av_path_from_home(char *out, size_t n, const char *path) {
    size_t home = home_prefix(path);
    if (home) snprintf(out, n, "~%s", path + home);
    else snprintf(out, n, "%s", path);
}

char *av_command_line(int argc, char **argv) {
    size_t n = 1;
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) * 4 + 4;
    char *s = malloc(n), *p = s;
    if (!s) return NULL;
    p += sprintf(p, "attnviz");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *sp = " ";
        size_t home = home_prefix(a);
        if (home) { /* " ~" or " ~/", then the rest as a word of its own, with no space before it */
            p += sprintf(p, " ~%s", a[home] ? "/" : "");
            a += home + (a[home] ? 1 : 0);
            sp = "";
            if (!*a) continue;
        }
        int plain = a[0] != 0 && strpbrk(a, " \t\n'\"\\$`!*?;&|<>()[]{}#~") == NULL;
        if (has_bidi_control(a) || has_unshowable(a)) {
            p += sprintf(p, "%s$'", sp);
            for (const unsigned char *c = (const unsigned char *)a; *c; c++) {
                unsigned cp;
                const char *why;
                int len = av_utf8_decode(c, strnlen((const char *)c, 4), &cp, &why);
                /* a bidi or C1 control as its UTF-8 bytes, \xe2\x80\xae, not \u202e: bash reads \u escapes
                 * by the locale's charset, and in the C locale (env -i, a container) $'\u0085x' was the six
                 * letters \u0085 and x, another sentence */
                int bidi = c[0] == 0xE2 && ((c[1] == 0x80 && c[2] >= 0xAA && c[2] <= 0xAE) ||
                                            (c[1] == 0x81 && c[2] >= 0xA6 && c[2] <= 0xA9));
                if (bidi || (len == 2 && cp >= 0x80 && cp <= 0x9F)) {
                    for (int k = 0; k < len; k++) p += sprintf(p, "\\x%02x", c[k]);
                    c += len - 1;
                } else if (len == 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F)
                    p += sprintf(p, "\\x%02x", *c);
                else if (*c == '\'' || *c == '\\') p += sprintf(p, "\\%c", *c);
                else { /* a whole character: its continuation bytes alone are not UTF-8 */
                    memcpy(p, c, (size_t)len), p += len, *p = 0;
                    c += len - 1;
                }
            }
            p += sprintf(p, "'");
        } else if (plain) p += sprintf(p, "%s%s", sp, a);
        else {
            p += sprintf(p, "%s'", sp);
            for (const char *c = a; *c; c++) p += (*c == '\'') ? sprintf(p, "'\\''") : sprintf(p, "%c", *c);
            p += sprintf(p, "'");
        }
    }
    return s;
}

/* The d_model the --weights folder dir is for: the width of the first of W_Q.npy … W_O.npy (square) or X.npy
 * that reads as a 2-D array, its name in *file; 0 when none does. Read only on a usage error's path. */
static int weights_width(const char *dir, const char **file) {
    static const char *const names[] = {"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy", "X.npy"};
    for (int k = 0; k < 5; k++) {
        char path[4096];
        av_path_join(path, sizeof path, dir, names[k]);
        av_npy a;
        av_err e = {{0}};
        if (av_npy_read(&a, path, &e)) continue;
        size_t w = a.ndim == 2 && (k == 4 || a.shape[0] == a.shape[1]) ? a.shape[1] : 0;
        av_npy_free(&a);
        if (w >= 1 && w <= AV_MAX_D_MODEL) {
            *file = names[k];
            return (int)w;
        }
    }
    return 0;
}

/* options → the model's configuration, checked before any input is read. */
av_status av_options_config(av_config *cfg, const av_options *o, av_err *err) {
    *cfg = (av_config){.T = 1, .n_real = 1, .C = o->d_model, .H = o->heads, .positions = o->positions,
                       .rope_style = o->rope_style, .rope_base = o->rope_base, .causal = o->causal,
                       .scale = !o->no_scale, .seed = o->seed,
                       .d_model_from = o->weights_dir && o->train < 0 && !o->model_dir ? "--weights" : NULL};
    av_status st = av_config_check(cfg, err);
    /* without --d-model the check saw the default 512, not the files' width: "-w identity-d8 -H 3" said "--weights
     * fixes d_model, so keep 512 with --heads 2 or 4", and --heads 2 then failed on W_Q.npy (8, 8) */
    const char *file = NULL;
    int width = st && cfg->d_model_from && !av_option_given(o, "d-model") ? weights_width(o->weights_dir, &file) : 0;
    if (width && width != cfg->C) {
        av_config at = *cfg;
        at.C = width;
        av_err e = {{0}};
        if (av_config_check(&at, &e))
            st = av_fail(err, AV_EUSAGE, "%s, and add --d-model %d (%s in --weights is for d_model %d, not the "
                         "default %d)", e.msg, width, file, width, cfg->C);
        else
            st = av_fail(err, AV_EUSAGE, "--weights %s: %s is for d_model %d, not the default %d: add --d-model %d",
                         AV_SHOWN_WORD(o->weights_dir, 201), file, width, cfg->C, width);
    }
    /* the refusal --positions rope gives, with its choices: it said only "needs an even d_k; d_k = 10 / 2 = 5" */
    if (!st && o->compare == AV_CMP_ROPE_STYLE) {
        av_err e = {{0}};
        if (av_rope_dk_check(cfg->C, cfg->H, cfg->d_model_from, &e))
            st = av_fail(err, AV_EUSAGE, "--compare rope-style: %s", e.msg);
    }
    return st;
}

/* Figures other than pe draw the (H, T, T) weights or scores (heads, grid, mean, scores) or the (T, T) mask
 * the kernels that keep them build (mask); pe draws the (T, d_model) encoding alone. `--figures pe -f` a
 * 36,000-token text was refused for the 9.7 GiB of weights it never draws ("add --no-plot", which drops the
 * figure), and `--kernel flash --figures pe` with "cannot give figures" (a long-input learner's pass). */
static int figures_need_weights(const av_options *o) {
    return !o->no_plot && (o->figures & ~(unsigned)AV_FIG_PE) != 0;
}

/* What lets a run whose figures need the weights go without them: "add --no-plot", or when pe was asked among
 * them (and is drawn: not with --positions none) "give --figures pe or add --no-plot". `--kernel flash --figures
 * pe,mask` was told "add --no-plot", which drops the pe figure flash draws too (a long-input learner's pass). */
static const char *figures_way(const av_config *cfg, const av_options *o) {
    return (o->figures & AV_FIG_PE) && cfg->positions != AV_POS_NONE ? "give --figures pe or add --no-plot"
                                                                      : "add --no-plot";
}

const char *av_options_weights_needed_by(const av_options *o) {
    return figures_need_weights(o) ? "figures" : o->dump_dir ? "--dump" : o->show ? "--show" : o->explain ? "--explain"
           : o->compare ? "--compare" : o->html ? "--html" : NULL;
}

/* The (H, T, T) scores and weights of a kernel that keeps them (2·H·T²
 * floats per run) must fit in AV_MAX_WEIGHT_BYTES, with what --compare holds
 * at once counted (av_compare_arrays_held: 3 runs for scale, 4 for
 * positions; for order 4.5 runs' worth, 8.5 with --html, its differences
 * counted): else a usage error that says the way out, the flash kernel
 * without what needs the weights, or the most tokens that fit at these
 * heads (T_max = ⌊√(limit / (4·arrays·H))⌋: 5792 at 8 heads, 16384 at 1;
 * under --compare scale 9459 at 1 head, positions 8192, order 7723 and
 * 5619 with --html). */
static av_status weights_fit(const av_config *cfg, const av_options *o, av_err *err) {
    int arrays = o->compare ? av_compare_arrays_held((av_compare_kind)o->compare, cfg->C, cfg->H, o->html) : 2;
    double need = 4.0 * arrays * cfg->H * (double)cfg->T * cfg->T, limit = (double)AV_MAX_WEIGHT_BYTES;
    if (cfg->kernel == AV_KERNEL_FLASH || need <= limit) return AV_OK;
    int t_max = av_most_tokens_held(cfg->H, arrays, limit);
    /* what keeps the flash kernel from running: --kernel, then each sink of the weights */
    const char *const drop[] = {"--kernel blas", "--kernel reference", "--dump", "--show", "--explain", "--compare",
                                "--html"};
    int on[] = {o->kernel == AV_KERNEL_BLAS + 1, o->kernel == AV_KERNEL_REFERENCE + 1, o->dump_dir != NULL, o->show,
                o->explain != NULL, o->compare != 0, o->html};
    int n_drop = 0, k_drop = 0;
    for (int k = 0; k < 7; k++) n_drop += on[k];
    char way[256], *p = way, *end = way + sizeof way;
    int figs = figures_need_weights(o);
    p += snprintf(p, (size_t)(end - p), "%s%s", figs ? figures_way(cfg, o) : "", figs && n_drop ? " and " : "");
    for (int k = 0; k < 7; k++) {
        if (!on[k]) continue;
        p += snprintf(p, (size_t)(end - p), "%s%s", k_drop == 0 ? "drop " : k_drop == n_drop - 1 ? " and " : ", ", drop[k]);
        k_drop++;
    }
    const char *s = cfg->H == 1 ? "" : "s";
    char gib[32], padded[96] = "", pad_max[64] = "";
    /* T counts --pad-to's <pad>: "-f text.txt --pad-to 20000" on 1998 tokens said "20000 tokens ... give at most
     * 16384 tokens", naming neither the padding nor the option to lower (a learner's pass) */
    if (o->pad_to && cfg->n_real > 0 && cfg->n_real < cfg->T) {
        snprintf(padded, sizeof padded, " (the sentence's %d and %d <pad> of --pad-to %d)", cfg->n_real,
                 cfg->T - cfg->n_real, o->pad_to);
        snprintf(pad_max, sizeof pad_max, cfg->n_real <= t_max ? ", <pad> included: --pad-to %d at most" : ", <pad> included",
                 t_max);
    }
    /* `--compare positions -f` 12,000 words passed the one-run check and peaked at 5.7 GiB: the run and its
     * three settings' runs are held at once */
    char held[200] = "", under[128] = "";
    const char *cmp = av_compare_name(o->compare);
    if (o->compare == AV_CMP_ORDER) {
        /* `--compare order --pad-to 12000` passed the one-run check and ran out of memory after 12 s: per
         * positions kind it runs the sentence as given and swapped and keeps their (H, T, T) difference (the
         * runs too for --html); worded short, as a message with every option's "drop" fills av_err's msg */
        int kinds = (cfg->C / cfg->H) % 2 ? 2 : 3;
        snprintf(held, sizeof held, " of the %d runs and %d differences --compare order %s", o->html ? 1 + 2 * kinds : 3,
                 kinds, o->html ? "keeps for --html" : "holds at once");
        if (o->html)
            snprintf(under, sizeof under, " under --compare order with --html (%d without --html)",
                     av_most_tokens_held(cfg->H, av_compare_arrays_held(AV_CMP_ORDER, cfg->C, cfg->H, 0), limit));
        else
            snprintf(under, sizeof under, " under --compare order (%d without it)", av_most_tokens_held(cfg->H, 2, limit));
    } else if (arrays > 2) {
        snprintf(held, sizeof held, " of the %d runs --compare %s holds at once (this one and one per setting)",
                 arrays / 2, cmp);
        snprintf(under, sizeof under, " under --compare %s (%d without it)", cmp, av_most_tokens_held(cfg->H, 2, limit));
    }
    return av_fail(err, AV_EUSAGE, "%d tokens%s with %d head%s need %s GiB for the (heads, T, T) scores and weights%s, "
                   "more than the %zu GiB allowed; %s to run the flash kernel, which keeps none, or give at most %d "
                   "tokens at %d head%s%s%s", cfg->T, padded, cfg->H, s, av_gib_over(gib, need, (double)AV_MAX_WEIGHT_BYTES),
                   held, AV_MAX_WEIGHT_BYTES >> 30, way, t_max, cfg->H, s, under, pad_max);
}

/* --kernel, or auto: the fastest kernel that gives what was asked for. Short
 * inputs get the exact reference loops (a few ms at most); the weights need
 * reference or blas; anything else runs flash. */
av_kernel av_auto_kernel(int T, int weights_needed) {
    return T <= AV_AUTO_REFERENCE_T ? AV_KERNEL_REFERENCE : weights_needed ? AV_KERNEL_BLAS : AV_KERNEL_FLASH;
}

av_status av_options_kernel(av_config *cfg, const av_options *o, av_err *err) {
    const char *needs = av_options_weights_needed_by(o);
    if (o->kernel != AV_KERNEL_AUTO) {
        cfg->kernel = (av_kernel)(o->kernel - 1);
        if (cfg->kernel == AV_KERNEL_FLASH && needs) {
            /* name exactly what was asked for that needs the weights, and only those ways out */
            int on[] = {figures_need_weights(o), o->dump_dir != NULL, o->show, o->explain != NULL, o->compare != 0,
                        o->html};
            const char *way0 = on[0] ? figures_way(cfg, o) : "";
            const char *const what[] = {way0[0] == 'g' ? "figures other than pe" : "figures", "--dump", "--show",
                                        "--explain", "--compare", "--html"};
            const char *asked[6];
            int n_on = 0;
            for (int k = 0; k < 6; k++)
                if (on[k]) asked[n_on++] = what[k];
            char gives[128], drops[128], way[192];
            join_words(gives, sizeof gives, asked, n_on, " or ");
            join_words(drops, sizeof drops, asked + on[0], n_on - on[0], " and "); /* all but "figures" */
            snprintf(way, sizeof way, "%s%s%s%s", way0, on[0] && drops[0] ? " and " : "", drops[0] ? "drop " : "",
                     drops);
            return av_fail(err, AV_EUSAGE, "--kernel flash keeps no (T, T) attention weights, so it cannot give %s; "
                           "%s, or use --kernel blas", gives, way);
        }
        return weights_fit(cfg, o, err);
    }
    cfg->kernel = av_auto_kernel(cfg->T, needs != NULL);
    return weights_fit(cfg, o, err);
}

/* `attnviz --heads 8 “我爱深度学习”`, typed with a Chinese input method's punctuation on (a Chinese-speaking
 * student's pass): the shell keeps “ and ”, so the sentence had 8 tokens, [“] first and [”] last, and its
 * figures two rows and columns more than the tutorial's, with no word why. Text that only holds a quotation
 * (“深度学习”很有趣) is left alone; text read with -f is what the file says. */
void av_note_typed_quotes(FILE *f, const av_options *o) {
    static const struct { unsigned cp; char kind; } kQuotes[] = {
        {0x201C, '"'}, {0x201D, '"'}, {0xFF02, '"'}, {0x2018, '\''}, {0x2019, '\''}, {0xFF07, '\''}};
    const char *s = o->sentence;
    if (!s || o->file || o->train >= 0) return;
    size_t len = strlen(s);
    const unsigned char *p = (const unsigned char *)s;
    unsigned first = 0, last = 0, cp;
    const char *why;
    int k = av_utf8_decode(p, len, &first, &why);
    if (k <= 0) return;
    size_t first_len = (size_t)k, at = (size_t)k, last_at = 0;
    while (at < len && (k = av_utf8_decode(p + at, len - at, &cp, &why)) > 0) last = cp, last_at = at, at += (size_t)k;
    if (at != len || !last_at) return;
    char a = 0, b = 0;
    for (size_t i = 0; i < sizeof kQuotes / sizeof kQuotes[0]; i++) {
        if (kQuotes[i].cp == first) a = kQuotes[i].kind;
        if (kQuotes[i].cp == last) b = kQuotes[i].kind;
    }
    if (!a || a != b || last_at == first_len) return; /* “” alone is no sentence typed in quotes */
    char inner[120];
    size_t n = last_at - first_len;
    if (n > 90) { /* whole characters */
        n = 0;
        while (n < 90) {
            size_t c = av_utf8_char_len(s + first_len + n);
            if (!c || n + c > 90) break;
            n += c;
        }
        snprintf(inner, sizeof inner, "%.*s…", (int)n, s + first_len);
    } else {
        snprintf(inner, sizeof inner, "%.*s", (int)n, s + first_len);
    }
    /* the suggestion in the quotes typed for, unless the shell would read inside them: then the other kind */
    char q = a == '"' && strpbrk(inner, "\"$`\\!") ? '\'' : a == '\'' && strchr(inner, '\'') ? '"' : a;
    char suggest[140] = "ASCII quotes";
    if (!(q == '"' ? strpbrk(inner, "\"$`\\!") : strchr(inner, '\'')))
        snprintf(suggest, sizeof suggest, "%c%s%c", q, inner, q);
    int wide = first == 0xFF02 || first == 0xFF07 || last == 0xFF02 || last == 0xFF07;
    av_message(f, "attnviz: note: the text starts with '%.*s' and ends with '%s', and both are read as characters of "
               "it: the shell's quotes are only the ASCII %c, which %s; to quote the text, type %s\n",
               (int)first_len, s, s + last_at, a,
               wide ? (a == '"' ? "an input method's full-width mode types as ＂" : "an input method's full-width mode types as ＇")
                    : (a == '"' ? "a Chinese input method types as “ ” with its Chinese punctuation on"
                                : "a Chinese input method types as ‘ ’ with its Chinese punctuation on"),
               suggest);
}

/* av_warn_unused_later's messages and av_warn_later's, until av_warn_unused_now prints them */
static char g_unused[AV_MAX_WARNINGS][AV_WARNING_MAX];
static int g_unused_n;
static char g_later[AV_MAX_LATER_WARNINGS][PATH_MAX + 256]; /* a folder's name as typed, and the words */
static int g_later_n;

void av_warn_unused_later(const av_options *o) {
    g_unused_n = av_unused_options(o, g_unused);
    g_later_n = 0;
}

void av_warn_later(const char *fmt, ...) {
    if (g_later_n >= AV_MAX_LATER_WARNINGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_later[g_later_n++], sizeof g_later[0], fmt, ap);
    va_end(ap);
}

void av_warn_unused_now(FILE *f) {
    for (int i = 0; i < g_unused_n; i++) av_message(f, "attnviz: warning: %s\n", g_unused[i]);
    for (int i = 0; i < g_later_n; i++) av_message(f, "attnviz: warning: %s\n", g_later[i]);
    g_unused_n = g_later_n = 0;
}

av_status av_option_folder(const char *opt, const char *dir, av_status (*step)(const char *, av_err *), av_err *err) {
    av_status st = step(dir, err);
    if (st) {
        av_err inner = *err;
        av_fail(err, st, "%s: %s", opt, inner.msg);
    }
    return st;
}

av_status av_output_folders_writable(const av_options *o, av_err *err) {
    av_status st = !o->no_plot || o->html ? av_option_folder("-o", o->outdir, av_dir_writable, err) : AV_OK;
    if (!st && o->dump_dir) st = av_option_folder("--dump", o->dump_dir, av_dir_writable, err);
    return st;
}
