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
 * sentence / file, every number inside its documented range, rope_base
 * finite and > 1, the sentence no longer than AV_MAX_INPUT_BYTES. A failed
 * parse is AV_EUSAGE with a non-empty message. av_options_free releases
 * everything (LeakSanitizer checks).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* Parse a fresh copy; return the status and fill o (the string fields that
 * point into argv are copied into the snapshot before argv is freed). */
typedef struct {
    av_status st;
    char msg[sizeof(((av_err *)0)->msg)];
    av_options o;
    char *sentence;
    int has_file, has_outdir, has_dump, has_weights, has_mask;
} snapshot;

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
    snap->has_file = snap->o.file != NULL;
    snap->has_outdir = snap->o.outdir != NULL && snap->o.outdir[0] != 0;
    snap->has_dump = snap->o.dump_dir != NULL;
    snap->has_weights = snap->o.weights_dir != NULL;
    snap->has_mask = snap->o.attn_mask != NULL;
    if (snap->st == AV_OK && !snap->o.help && !snap->o.version) {
        const av_options *o = &snap->o;
        if ((snap->sentence != NULL) == (o->file != NULL)) abort();
        if (o->d_model < 1 || o->d_model > AV_MAX_D_MODEL) abort();
        if (o->heads < 1 || o->heads > AV_MAX_HEADS) abort();
        if (o->pad_to < 0 || o->pad_to > AV_MAX_TOKENS) abort();
        if (o->precision < 0 || o->precision > 10) abort();
        if (!isfinite(o->rope_base) || !(o->rope_base > 1.0)) abort();
        if (o->verbose && o->quiet) abort();
        if (!snap->has_outdir) abort();
        if (o->file && !o->file[0]) abort();
        if (o->dump_dir && !o->dump_dir[0]) abort();
        if (o->weights_dir && !o->weights_dir[0]) abort();
        if (snap->sentence && strlen(snap->sentence) > AV_MAX_INPUT_BYTES) abort();
        if ((unsigned)o->color > AV_COLOR_NEVER) abort();
    } else if (snap->st != AV_OK) {
        if (snap->st != AV_EUSAGE || snap->msg[0] == 0) abort();
    }
    /* the pointers into argv die here */
    snap->o.file = snap->o.outdir = snap->o.dump_dir = snap->o.weights_dir = snap->o.attn_mask = NULL;
    free_args(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    snapshot a, b;
    parse_once(&a, data, size);
    parse_once(&b, data, size);
    if (a.st != b.st || strcmp(a.msg, b.msg) != 0) abort();
    if ((a.sentence == NULL) != (b.sentence == NULL)) abort();
    if (a.sentence && strcmp(a.sentence, b.sentence) != 0) abort();
    if (a.st == AV_OK) {
        if (memcmp(&a.o, &b.o, sizeof a.o) != 0) abort(); /* pointers were cleared, padding zeroed by memset */
        if (a.has_file != b.has_file || a.has_dump != b.has_dump || a.has_weights != b.has_weights ||
            a.has_mask != b.has_mask)
            abort();
    }
    free(a.sentence);
    free(b.sentence);
    a.o.sentence = b.o.sentence = NULL;
    av_options_free(&a.o);
    av_options_free(&b.o);
    return 0;
}
