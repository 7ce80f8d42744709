/* Layer app/ (the command): may include every layer.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* cli.h - command-line options (getopt_long). One table in cli.c is the
 * source of both the parser and --help, in the manner of git's
 * parse-options: each row names the option, its kind (flag, whole number,
 * number, string, choice, or a parse function), the av_options field it
 * fills (offsetof), its range or its choices, and its help line.
 *
 * Adding an option = one field in av_options (and its default in
 * kDefaults in cli.c when that is not 0) + one row in kOpts in cli.c + one
 * entry in docs/attnviz.1. Checks that involve two options go in
 * check_combinations (cli.c).
 *
 * av_parse_args never exits and never prints: it fills av_options or returns
 * AV_EUSAGE with a message that names the offending value and what is allowed
 * ("--heads 'abc' is not a whole number", "--positions 'x': expected none,
 * sinusoidal or rope"). It can be called repeatedly (it resets getopt), which
 * the option fuzz target relies on.
 */
#ifndef AV_CLI_H
#define AV_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "base/common.h"
#include "base/utf8.h" /* av_shell_word, av_shown_word, AV_SHOWN_WORD: a path as one shell word */
#include "nn/attention.h"
#include "nn/model.h"

typedef enum { AV_COLOR_AUTO, AV_COLOR_ALWAYS, AV_COLOR_NEVER } av_color;

/* --color names, indexed by av_color. */
static inline const char *av_color_name(int c) {
    static const char *const names[] = {"auto", "always", "never"};
    return c >= 0 && c <= AV_COLOR_NEVER ? names[c] : "?";
}

/* --figures: which figures plot_all writes (bits). */
enum {
    AV_FIG_HEADS = 1 << 0,  /* head0 ... one attention-weight map per head */
    AV_FIG_GRID = 1 << 1,   /* heads: all heads in one figure (H > 1, or --figures names it) */
    AV_FIG_MEAN = 1 << 2,   /* mean: the mean over heads, titled as the mean */
    AV_FIG_SCORES = 1 << 3, /* scores_head0 ..., scores: Q·Kᵀ/√d_k before softmax */
    AV_FIG_PE = 1 << 4,     /* pe: the positional encoding (sinusoidal PE, RoPE angles) */
    AV_FIG_MASK = 1 << 5,   /* mask: which query sees which key */
    AV_FIG_MODEL = 1 << 6,  /* model: every layer x head of a --model (only with --model) */
    AV_FIG_ALL = (1 << 7) - 1,
    AV_FIG_DEFAULT = AV_FIG_HEADS | AV_FIG_GRID
};

typedef enum { AV_FMT_PNG = 1, AV_FMT_SVG = 2, AV_FMT_BOTH = 3 } av_format;

/* --format names, indexed by av_format (the bits say which files). */
static inline const char *av_format_name(int f) {
    static const char *const names[] = {"?", "png", "svg", "both"};
    return f >= AV_FMT_PNG && f <= AV_FMT_BOTH ? names[f] : "?";
}

#define AV_DEFAULT_DPI 100
#define AV_MIN_DPI 50
#define AV_MAX_DPI 600
#define AV_MIN_SCALE 0.5
#define AV_MAX_SCALE 4.0
#define AV_MAX_SIZE_FACTOR 8.0 /* scale × dpi / 100 */

#define AV_DEFAULT_D_MODEL 512
#define AV_DEFAULT_HEADS 1
#define AV_DEFAULT_SEED 42
/* --train --positions none is refused by cli.c and by av_train: one message, which says that attnviz does not
 * train such a model, not that such a model cannot learn (under the causal mask it can; Haviv et al. 2022) */
#define AV_TRAIN_NO_POSITIONS_MSG                                                                                      \
    "--positions none is not offered with --train (allowed with --train: learned, sinusoidal, rope); a model "        \
    "without a positional encoding can still learn positions from the causal mask (Haviv et al. 2022), but attnviz "  \
    "trains only with one of these three"
#define AV_DEFAULT_OUTDIR "attnviz-out"
#define AV_DEFAULT_PRECISION 4

/* --kernel: auto picks the fastest kernel that gives what was asked for
 * (av_options_kernel); the others are av_kernel + 1. */
enum { AV_KERNEL_AUTO = 0 };
#define AV_AUTO_REFERENCE_T 64 /* auto: the exact reference loops up to this many tokens */

/* --vmax: the top of the attention-weight colour range. */
typedef enum { AV_VMAX_DEFAULT, AV_VMAX_AUTO, AV_VMAX_FIXED, AV_VMAX_VALUE } av_vmax_mode;
#define AV_AUTO_VMAX_T 32       /* past this many tokens the default is auto (1/T is dark on 0..1) */
#define AV_AUTO_VMAX_PCT 99.0   /* auto: the 99th percentile of the visible weights */

typedef struct {
    int d_model, heads;
    uint64_t seed;
    av_positions positions;
    av_rope_style rope_style;
    double rope_base;
    int causal;
    int no_scale;
    int pad_to;              /* 0 = no padding */
    const char *attn_mask;   /* .npy (T, T) bool, True = masked, or NULL */
    const char *outdir;
    const char *title;       /* --title: figure title instead of the quoted sentence, or NULL */
    const char *prefix;      /* --prefix: put before every figure file name ("" = none) */
    int no_plot;
    int html;                /* --html: write attnviz.html into outdir */
    int html_limit;          /* --html-limit MiB (0 = render/html.h's AV_HTML_MAX_BYTES) */
    const char *dump_dir;    /* NULL = no dump */
    const char *weights_dir; /* NULL = seeded weights */
    const char *file;        /* -f FILE or "-" for stdin, or NULL */
    int verbose, quiet, precision;
    av_color color;
    const char *explain;     /* "QUERY,KEY" for --explain, or NULL */
    int head;                /* head for --explain, --show, the --html page and --compare figures (default 0) */
    int show;                /* --show: terminal heat-map of every head (of --head alone when given) */
    int compare;             /* av_compare_kind (compare.h), 0 = none */
    unsigned figures;        /* AV_FIG_* bits (default AV_FIG_DEFAULT) */
    int figures_all;         /* 1 = --figures included "all" */
    const char *figures_arg; /* --figures LIST as given (points into argv), or NULL */
    int cmap;                /* av_cmap (colormap.h) for attention weights; 0 = viridis */
    int dpi;                 /* --dpi, pixels per inch (default 100) */
    double scale;            /* --scale, size multiplier (default 1) */
    av_format format;        /* --format png | svg | both (default png) */
    /* --train (app/train.h); 0 / -1 = the task's default or not given */
    int train;               /* av_task_kind, or -1 = no --train */
    int layers, steps, batch, warmup;
    double lr;
    double weight_decay;     /* --weight-decay (app/train.h); used only if given */
    int norm;                /* av_norm: pre (default) | post */
    int schedule;            /* av_schedule: cosine (default) | noam | constant */
    unsigned long long given; /* bit i: the i-th option of the table was on the command line */
    const char *typed[64];   /* the i-th option's value as typed (points into argv), or NULL: messages echo it */
    unsigned char seq[64];   /* the i-th option's place among the options as typed (1, 2, ...; its last time), 0:
                              * not given; a suggested command keeps that order, flags too (av_options_pasted) */
    unsigned long long short_typed; /* bit i: the i-th option was last typed as its letter (-q, not --quiet) */
    int kernel;              /* av_kernel_choice: 0 auto, else av_kernel + 1 */
    int vmax_mode;           /* av_vmax_mode: weight colour range (default auto past AV_AUTO_VMAX_T) */
    double vmax;             /* --vmax F: top of the range */
    int log_scale;           /* --log-scale: colour weights by log10 */
    int pool;                /* av_pool (plot.h): max (default) | mean */
    const char *model_dir;   /* --model DIR: a GPT-2-layout folder, or NULL */
    int layer;               /* --layer L of a --model (-1 = the last) */
    int generate;            /* --generate N: greedy continuation of a --model input (0 = none) */
    int help, version;
    char *sentence;          /* the positional arguments joined by spaces (owned), or NULL */
    const char *last_opt;    /* with no text: the option (as typed, "-o") whose separate value was the last
                              * argument, if its value is free text (--title, --prefix, -o, --dump,
                              * --explain), else NULL */
    const char *last_value;  /* that value (points into argv), or NULL */
    int argc;                /* the command line av_parse_args read (in getopt's order): typed[i] points into it */
    char **argv;
} av_options;

/* When no input text was given: " (the last argument, 'X', is the value of
 * --title: the text goes after it)" into out (n bytes; 300 suffice, X shell-
 * quoted and cut to fit 128 bytes), where --title, --prefix, -o, --dump or
 * --explain (whose form a text with a comma passes) took the last argument
 * (o->last_opt), as `attnviz --title "I love you"` does; else "". The "no
 * sentence" and "no input text" errors add it, so they no longer say no text
 * was given without saying where it went. No errors. */
void av_options_text_hint(char *out, size_t n, const av_options *o);

/* The options given in o (the command line av_parse_args read), but skip ("model", or NULL) and -f (the
 * caller's command gives the input), each as
 * "--NAME VALUE" with the value as typed and one whole shell word, or "--NAME" for an option without a value
 * ("-X VALUE" and "-X" for one typed as its letter X: -q stays -q, and -qox is "-q -o x"),
 * followed by a space, in the order typed, into given (gn bytes, NUL included): for a suggested command that
 * keeps what the user typed and runs as pasted ("--heads 2 --outdir x "). One that does not fit, or whose value
 * is too long to paste whole, is left out and its "--NAME" listed in left (ln bytes; "--title, --prefix"), for
 * the message to say so. Returns how many options are in given or left. No errors. */
int av_options_pasted(char *given, size_t gn, char *left, size_t ln, const av_options *o, const char *skip);

/* Parse argv into o (defaults first). Errors: AV_EUSAGE with a message. The
 * caller frees with av_options_free. */
av_status av_parse_args(av_options *o, int argc, char **argv, av_err *err);
void av_options_free(av_options *o);

/* 1 if option `name` ("d-model") was given on the command line. */
int av_option_given(const av_options *o, const char *name);

/* buf (n bytes; 80 suffice) = the value of option `name` ("layer") for a
 * message: as typed when it was given ("01", "+1": "--layer 01" was told
 * "--layer 1 is outside 0..0", a value not typed), at most 64 bytes of it;
 * else value in decimal. Returns buf. No errors. */
const char *av_option_shown(char *buf, size_t n, const av_options *o, const char *name, int value);

#define AV_MAX_WARNINGS 8
/* bytes of one av_unused_options message: room for the -o folder as one shell word (av_shell_word, 1200
 * bytes at most) in the command it gives, with the option (60 bytes) and a prompt of the task */
#define AV_WARNING_MAX 1600

/* The first option given in o that --model refuses (d-model, heads,
 * positions, rope-style, rope-base, causal, no-scale, seed, weights, pad-to,
 * attn-mask: what a model's config.json fixes, or what is for the single
 * attention layer): *name = its long name, and the result is why, a printf
 * format with one %s for the model's family ("%s always uses the causal
 * mask"). NULL (and *name NULL) when o gives none of them. */
const char *av_model_refused(const av_options *o, const char **name);

/* The options given that have no effect in this run, one message each
 * ("--rope-style half has no effect without --positions rope"), into
 * msgs[0..return value). The caller prints them as warnings; the run goes on
 * and exits 0. Rules: --rope-style and --rope-base need RoPE (--positions
 * rope, or --compare positions, rope-style or order); figure options (--figures,
 * --format, --cmap, --dpi, --scale, --outdir, --title, --prefix) need
 * figures (not --no-plot; --outdir also serves --html); --head needs --explain or a --compare figure;
 * when only --no-plot kept it from a figure (--compare's, a --model's head
 * figure), its message names --no-plot as the cause;
 * --precision needs -v or --explain; --train writes no --dump and is always
 * causal (--causal); an option --model takes names the command for the
 * trained folder, -o's as one shell word ("attnviz --model 'my run' ...";
 * with --compare its first variant's, 'c/pre-ln'). */
int av_unused_options(const av_options *o, char msgs[][AV_WARNING_MAX]);
/* Keep av_unused_options(o)'s messages (at most AV_MAX_WARNINGS), for
 * av_warn_unused_now once the run is known to go on: printed at once, they
 * were followed by a usage error about the same option, which refused the
 * run they called harmless (`--model DIR --no-plot --figures mean`: "--figures
 * mean has no effect with --no-plot", then "error: --figures mean: with
 * --model the figures are ..."; a learner's pass). Replaces any kept ones. */
void av_warn_unused_later(const av_options *o);
enum { AV_MAX_LATER_WARNINGS = 4 };
/* Keep one more warning for av_warn_unused_now, printed after
 * av_unused_options' kept ones: fmt and its arguments as printf takes them,
 * the text after "attnviz: warning: " without the newline (PATH_MAX + 255
 * bytes at most; cut beyond). For an option found to have no effect only
 * once the run has read its inputs, before checks that may still refuse it:
 * `--weights DIR --seed 3 --attn-mask bad.npy` (DIR holding X and all four W)
 * printed "--seed 3 has no effect: --weights DIR gave ..." and then the
 * --attn-mask usage error (a learner's pass). At most AV_MAX_LATER_WARNINGS
 * are kept (more are dropped); av_warn_unused_later drops them all. */
void av_warn_later(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The kept messages on f, one "attnviz: warning: ..." line each, then none
 * are kept (a second call prints nothing). Called where a run has passed its
 * usage checks (before its trace, before --train's header line) and at the
 * exit of a run that failed any other way; never for an exit 2. */
void av_warn_unused_now(FILE *f);
/* A note on f when the sentence typed as arguments starts and ends with a look-alike of the shell's quotes
 * (“…”, ‘…’, ＂…＂, ＇…＇: what a Chinese input method types for " and ' with Chinese punctuation on): they
 * are characters of the text, not quotes. */
void av_note_typed_quotes(FILE *f, const av_options *o);

/* Print the usage table (the --help text) to f; conventions is the path of conventions.md to name
 * (av_assets_doc), or NULL: "docs/conventions.md in attnviz's source"; man is the path of the man page
 * (av_assets_man), printed as the command that reads it ("man PATH"), or NULL: attnviz(1) named alone. */
void av_print_help(FILE *f, const char *conventions, const char *man);

/* 1 when s is a number with one to four CJK ideographs (U+3400..U+4DBF, U+4E00..U+9FFF) after it, a measure
 * word or unit ("8个", "八个", "512维", "100步", "一百个头"; not a numeral's own characters, av_utf8_chinese_numeral:
 * "一千零十" is no 一千 and 零十), the number in ASCII digits (with real, a decimal point and an exponent too) or in
 * Chinese numerals (av_utf8_chinese_number) or in full-width digits ("８个", av_utf8_halfwidth_text), the fewest
 * characters after it taken: its digits go into num (cap bytes, at least 64; in ASCII), *chinese = 1 when it was
 * written in Chinese numerals, 2 in full-width digits, else 0, and the characters after it into post (32 bytes).
 * Else 0, also when the words hold 半 ("2个半" is 2.5, two and a half). An ordinal, 第一层, is left alone: its 一 is
 * the first, index 0 of --layer. Used by the number options' hints (app/cli.c) and --explain's index (app/teach.c:
 * "爱,5个"). No errors. */
int av_number_with_words(const char *s, int real, char *num, size_t cap, int *chinese, char post[32]);

/* " (第一层 is the 1st, and --layer counts from 0: type --layer 0)" into out (cap bytes) when s is an ordinal of an
 * index written in Chinese numerals, 第 then a number from 一 with or without a measure word after it (第一层, 第二个,
 * 第三), the first being index 0; or " (the 第 and 层 around the number are not part of it: type --layer 1)" when its
 * number is in ASCII digits, as the Chinese docs write an index (第 0 层 is --layer 0, 第 1 层 --layer 1:
 * docs/train.zh.md), from 1 followed by the index of the Nth counted from 1, as 第一个 is read ("; --layer counts
 * from 0 (the docs' 第 0 层 is layer 0): for the 1st, type --layer 0", left out past hi). option: the option's name, or NULL for --explain's token index ("token indices count from 0:
 * type 0"); hi >= 0: the last index allowed, past it "and as 9 it is outside 0..5 too", or with an option as
 * index_name_hint names it, "(第五 is the 5th, and heads are numbered from 0: 4 is outside 0..3, so the last head
 * is --head 3)" (`--heads 4 --head 第五` said "type --head 4", which is refused). ASCII spaces inside are
 * dropped ("第 0 层"). Else "". "--layer 第一层", "--head 第一个" and "--explain 第一个,第二个" said only that the value
 * is no number or token (a Chinese-speaking learner's pass): the value stays refused, the hint names the index. */
void av_ordinal_hint(char *out, size_t cap, const char *option, const char *s, long long hi);

/* The words that a "no sentence given" message adds when the standard input holds text attnviz did not read:
 * " (the standard input is a pipe, which attnviz reads only when told: add a lone - or -f - to read the text
 * from it)" when fd 0 is a pipe or socket (`echo "I love you" | attnviz`), the same with "a file" for a
 * regular file of at least one byte (`attnviz < s.txt`); "" for a terminal, /dev/null, an empty file or a
 * closed fd 0. Into out (n bytes, NUL-terminated, cut to fit); reads nothing from fd 0 (fstat only). No
 * errors. */
void av_stdin_text_hint(char *out, size_t n);


/* argv as one shell-quoted line, "attnviz --heads 2 'I love you'", for the
 * figures' metadata (malloc'd; NULL when out of memory). */
char *av_command_line(int argc, char **argv);

/* path as the figures' titles, metadata and the trace name a folder: "~" or
 * "~/" + the rest when path is $HOME or a path in it (as av_command_line
 * writes that argument: the figures of `--model ~/models/rev` read
 * "~/models/rev", not /home/alice/models/rev), else path as it is; into out
 * (n bytes, NUL-terminated, cut to fit). HOME unset, empty, relative or "/"
 * changes nothing. No errors. */
void av_path_from_home(char *out, size_t n, const char *path);

/* The options as the single layer's configuration (nn/model.h av_config;
 * T = n_real = 1 until the tokens are known), checked before any input is
 * read. Errors: av_config_check's; --compare rope-style with an odd d_k (AV_EUSAGE). */
av_status av_options_config(av_config *cfg, const av_options *o, av_err *err);

/* What asked for the (H, T, T) attention weights, by its name in the help ("figures", "--dump", "--show",
 * "--explain", "--compare", "--html": the first that is on), or NULL: nothing did, and the flash kernel, which
 * never forms them, may run. */
const char *av_options_weights_needed_by(const av_options *o);

/* The kernel --kernel auto runs for T tokens: reference up to AV_AUTO_REFERENCE_T, then blas when the (H, T, T)
 * weights are needed (weights_needed != 0), else flash. The one statement of the rule, for av_options_kernel and
 * for the figures' run id (figures.c), which leaves out the kernel auto would have chosen. */
av_kernel av_auto_kernel(int T, int weights_needed);

/* cfg->kernel from --kernel, or auto: the reference loops up to
 * AV_AUTO_REFERENCE_T tokens, blas when the (H, T, T) weights are needed
 * (figures, --dump, --show, --explain, --compare, --html), else flash.
 * Needs cfg->T. Errors: --kernel flash with a sink that needs the weights (AV_EUSAGE). */
av_status av_options_kernel(av_config *cfg, const av_options *o, av_err *err);

/* step(dir, err) (io/fileio.h av_dir_writable before the work, av_mkdir_p before the first file) on the folder dir
 * that option opt ("-o", "--dump") named, its message led by opt: "-o: cannot create folder out.txt: out.txt exists
 * and is not a folder". Errors: step's, with the same status. */
av_status av_option_folder(const char *opt, const char *dir, av_status (*step)(const char *, av_err *), av_err *err);

/* The folders o writes into, made and probed with av_dir_writable before the forward pass (av_option_folder's
 * messages): -o when figures or --html are written, and --dump. So a folder that cannot be made or written fails
 * before the work, for the single layer and for --model alike. Errors: av_dir_writable's (AV_EUSAGE for an empty
 * name, else AV_ERUNTIME). */
av_status av_output_folders_writable(const av_options *o, av_err *err);

#endif
