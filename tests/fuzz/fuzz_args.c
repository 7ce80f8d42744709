/* fuzz_args.c - libFuzzer target for option parsing (av_parse_args).
 *
 * Input: the bytes are split at NUL bytes into at most MAX_ARGS arguments,
 * so the corpus files read like `printf '%s\0' --heads 8 "I love"`; argv[0]
 * is "attnviz". Each argument is its own exact-size heap copy, so reading
 * past an argument's NUL is an AddressSanitizer report. Built and run by
 * `make fuzz` (scripts/fuzz.sh); seeds in tests/fuzz/args_corpus/, tokens
 * in tests/fuzz/args.dict.
 *
 * getopt_long keeps global state (optind, optarg, and the position inside a
 * cluster such as "-vq"), and GNU getopt permutes argv. av_parse_args resets
 * it with optind = 0. The target therefore parses every input twice, each
 * time from a fresh copy of the arguments (the first copy freed before the
 * second parse, so a stale pointer into it is a use-after-free report), and
 * requires the same verdict, message and options both times.
 *
 * Properties of a successful parse (unless --help/--version): exactly one of
 * sentence / file, or with --train neither (it takes no input text), with --model at most one (the model
 * refuses neither once loaded, naming text of its kind), every number inside its documented range, rope_base
 * finite and > 1, the sentence no longer than AV_MAX_INPUT_BYTES. A failed
 * parse is AV_EUSAGE with a non-empty message. av_options_free releases
 * everything (LeakSanitizer checks). Every input also goes through
 * av_command_line, the command the figures record: each argument must read
 * back as itself under bash's quoting rules, and the line must hold no
 * control, C1 or bidi character (check_command_line).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "base/utf8.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    int argc;
    char *argv[MAX_ARGS + 2];
} args;

static void split(args *a, const uint8_t *data, size_t size) {
    a->argc = 0;
    a->argv[a->argc++] = strdup("attnviz");
    size_t start = 0;
    for (size_t i = 0; size > 0 && i <= size && a->argc <= MAX_ARGS; i++) {
        if (i < size && data[i] != 0) continue;
        if (i == size && start == size) break; /* a trailing NUL ends the last argument */
        size_t n = i - start;
        char *s = malloc(n + 1);
        if (!s) abort();
        memcpy(s, data + start, n);
        s[n] = 0;
        a->argv[a->argc++] = s;
        start = i + 1;
    }
    a->argv[a->argc] = NULL;
}

static void free_args(args *a) {
    for (int i = 0; i < a->argc; i++) free(a->argv[i]);
    a->argc = 0;
}

/* The string options point into argv; they are copied here before argv is
 * freed, so two parses can be compared. */
#define STRING_FIELDS(X)                                                                                  \
    X(file) X(outdir) X(dump_dir) X(weights_dir) X(attn_mask) X(explain) X(title) X(prefix) X(figures_arg) X(model_dir)
#define SCALAR_FIELDS(X)                                                                              \
    X(d_model) X(heads) X(seed) X(positions) X(rope_style) X(rope_base) X(causal) X(no_scale) X(pad_to) \
    X(no_plot) X(verbose) X(quiet) X(precision) X(color) X(head) X(show) X(compare) X(help) X(version) \
    FIGURE_FIELDS(X)
#ifdef AV_MIN_DPI
#define FIGURE_FIELDS(X) X(figures) X(figures_all) X(cmap) X(dpi) X(scale) X(format)
#else
#define FIGURE_FIELDS(X)
#endif

typedef struct {
    av_status st;
    char msg[sizeof(((av_err *)0)->msg)];
    av_options o; /* string fields cleared */
    char *sentence;
#define DECL(f) char *f;
    STRING_FIELDS(DECL)
#undef DECL
} snapshot;

static char *dup_or_null(const char *s) {
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

static void parse_once(snapshot *snap, const uint8_t *data, size_t size) {
    args a;
    split(&a, data, size);
    char *argv[MAX_ARGS + 2];
    memcpy(argv, a.argv, sizeof argv); /* getopt permutes this array, not a.argv */
    av_err err = {{0}};
    memset(snap, 0, sizeof *snap);
    snap->st = av_parse_args(&snap->o, a.argc, argv, &err);
    memcpy(snap->msg, err.msg, sizeof snap->msg);
    if (!memchr(snap->msg, 0, sizeof snap->msg)) abort();
    snap->sentence = snap->o.sentence; /* owned: keep it */
    snap->o.sentence = NULL;
#define COPY(f) snap->f = dup_or_null(snap->o.f);
    STRING_FIELDS(COPY)
#undef COPY
    if (snap->st == AV_OK && !snap->o.help && !snap->o.version) {
        const av_options *o = &snap->o;
        int given = (snap->sentence != NULL) + (o->file != NULL);
        if (o->train >= 0 ? given != 0 : o->model_dir ? given > 1 : given != 1) abort();
        if (o->d_model < 1 || o->d_model > AV_MAX_D_MODEL) abort();
        if (o->heads < 1 || o->heads > AV_MAX_HEADS) abort();
        if (o->pad_to < 0 || o->pad_to > AV_MAX_TOKENS) abort();
        if (o->precision < 0 || o->precision > 10) abort();
        /* a --model's heads are known once it is loaded, and its loader refuses a --head outside them, negative
         * or past 63 too (one message for every value: "--head -1 is outside 0..3 (the model has 4 heads)");
         * --train keeps attnviz's 0..63 */
        if (!o->model_dir && (o->head < 0 || o->head >= (o->train >= 0 ? AV_MAX_HEADS : o->heads))) abort();
        if (!isfinite(o->rope_base) || !(o->rope_base > 1.0)) abort();
        if (o->verbose && o->quiet) abort();
        if (!o->outdir || !o->outdir[0]) abort();
        if (o->file && !o->file[0]) abort();
        if (o->dump_dir && !o->dump_dir[0]) abort();
        if (o->weights_dir && !o->weights_dir[0]) abort();
        if (snap->sentence && strlen(snap->sentence) > AV_MAX_INPUT_BYTES) abort();
        if ((unsigned)o->color > AV_COLOR_NEVER) abort();
#ifdef AV_MIN_DPI /* figure options (--figures, --format, --cmap, --dpi, --scale) */
        if (o->dpi < AV_MIN_DPI || o->dpi > AV_MAX_DPI) abort();
        if (!isfinite(o->scale) || o->scale < AV_MIN_SCALE || o->scale > AV_MAX_SCALE) abort();
        if (o->scale * o->dpi / 100.0 > AV_MAX_SIZE_FACTOR + 1e-9) abort();
        if (o->figures == 0 || (o->figures & ~(unsigned)AV_FIG_ALL) != 0) abort();
        if (o->format < AV_FMT_PNG || o->format > AV_FMT_BOTH) abort();
#endif
    } else if (snap->st != AV_OK) {
        if (snap->st != AV_EUSAGE || snap->msg[0] == 0) abort();
    }
    /* the pointers into argv die here */
#define CLEAR(f) snap->o.f = NULL;
    STRING_FIELDS(CLEAR)
#undef CLEAR
    free_args(&a);
}

static int same_str(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static void free_snapshot(snapshot *s) {
    free(s->sentence);
#define FREE(f) free(s->f);
    STRING_FIELDS(FREE)
#undef FREE
    av_options_free(&s->o); /* sentence already taken: frees nothing, must not crash */
}

/* The byte at *p as shell text read back: bash's reading of av_command_line's three word forms (a plain
 * word, '...' with '\'' for a quote, $'...' with \xHH, \\ and \'), and a leading ~ as $HOME without its
 * trailing '/' (av_command_line's home_prefix). Returns where the word ends (a space or the end), or NULL at a form it never
 * writes; the word into out (NUL-terminated, cap bytes). */
static const char *read_word(const char *p, char *out, size_t cap) {
    size_t k = 0;
#define PUT(c) do { if (k + 1 >= cap) return NULL; out[k++] = (char)(c); } while (0)
    if (p[0] == '~' && (p[1] == '/' || p[1] == ' ' || !p[1])) {
        const char *home = getenv("HOME");
        size_t len = home ? strlen(home) : 0;
        while (len > 0 && home[len - 1] == '/') len--;
        for (size_t i = 0; i < len; i++) PUT(home[i]);
        p++;
    }
    while (*p && *p != ' ') {
        if (*p == '\'') {
            for (p++; *p && *p != '\''; p++) PUT(*p);
            if (!*p++) return NULL;
        } else if (p[0] == '$' && p[1] == '\'') {
            for (p += 2; *p && *p != '\''; p++) {
                if (*p != '\\') { PUT(*p); continue; }
                p++;
                if (*p == '\\' || *p == '\'') PUT(*p);
                else if (*p == 'x' && p[1] && p[2]) {
                    char hex[3] = {p[1], p[2], 0}, *end;
                    long v = strtol(hex, &end, 16);
                    if (*end || v == 0) return NULL;
                    PUT(v);
                    p += 2;
                } else return NULL;
            }
            if (!*p++) return NULL;
        } else if (*p == '\\' && p[1]) {
            PUT(p[1]);
            p += 2;
        } else {
            PUT(*p);
            p++;
        }
    }
    out[k] = 0;
#undef PUT
    return p;
}

/* av_command_line: every argument reads back as itself (read_word), and the line holds no byte that would
 * act on the terminal or the reader: valid UTF-8, no control but tab and line feed, no C1 and no bidi
 * embedding, override or isolate (they are written as \xHH inside $'...'). */
static void check_command_line(const uint8_t *data, size_t size) {
    args a;
    split(&a, data, size);
    char *line = av_command_line(a.argc, a.argv);
    if (!line) abort();
    size_t len = strlen(line), bound = 1;
    for (int i = 0; i < a.argc; i++) bound += strlen(a.argv[i]) * 4 + 4;
    if (len >= bound || strncmp(line, "attnviz", 7) != 0) abort();
    for (const unsigned char *c = (const unsigned char *)line; *c;) {
        unsigned cp;
        const char *why;
        int n = av_utf8_decode(c, strnlen((const char *)c, 4), &cp, &why);
        if (n <= 0 || (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F) ||
            (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
            abort();
        c += n;
    }
    char *word = malloc(len + 1);
    if (!word) abort();
    const char *p = line + 7;
    for (int i = 1; i < a.argc; i++) {
        if (*p++ != ' ') abort();
        p = read_word(p, word, len + 1);
        if (!p || strcmp(word, a.argv[i]) != 0) abort();
    }
    if (*p) abort();
    free(word);
    free(line);
    free_args(&a);
}

/* A fixed HOME, so that inputs reach av_command_line's "~/" form: a home folder of its own, with a trailing '/'
 * as some systems set it, which read_word trims as av_command_line does. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    setenv("HOME", "/home/al/", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_command_line(data, size);
    snapshot a, b;
    parse_once(&a, data, size);
    parse_once(&b, data, size);
    if (a.st != b.st || strcmp(a.msg, b.msg) != 0) abort();
    if (!same_str(a.sentence, b.sentence)) abort();
    if (a.st == AV_OK) {
#define SAME_SCALAR(f) if (a.o.f != b.o.f) abort();
        SCALAR_FIELDS(SAME_SCALAR)
#undef SAME_SCALAR
#define SAME_STRING(f) if (!same_str(a.f, b.f)) abort();
        STRING_FIELDS(SAME_STRING)
#undef SAME_STRING
    }
    free_snapshot(&a);
    free_snapshot(&b);
    return 0;
}
