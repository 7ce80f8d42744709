/* bpe_files.c - av_bpe_load: a GPT-2 tokenizer from a Hugging Face folder's
 * vocab.json and merges.txt (see bpe.h). The files are checked for lies and
 * truncation here; the BPE itself is in bpe.c.
 *
 * Formats (openai/gpt-2 encoder.json and vocab.bpe, renamed by Hugging Face):
 *   vocab.json  {"!": 0, "\"": 1, ..., "Ġlove": 1842, ..., "<|endoftext|>": 50256}
 *   merges.txt  "#version: 0.2" then one "left right" per line, best rank first.
 * JSON through cJSON (Debian libcjson): small, one header, parses from a
 * length-bounded buffer and points at the byte where parsing failed.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "io/jsonval.h"
#include "text/bpe.h"

#define MAX_VOCAB_FILE (64u << 20)  /* GPT-2's is 1 MB; Qwen's 7 MB */
#define MAX_MERGES_FILE (64u << 20)

/* Rewrite err as "<what>: <err>" keeping code. */
static av_status prefixed(av_err *err, av_status code, const char *what) {
    av_err inner = *err;
    return av_fail(err, code, "%s: %s", what, inner.msg);
}

/* Ids must be 0..V-1 for V entries: when every id is a whole number >= 0
 * but one is V or more, some id below V has no token, and that is what went
 * wrong (a token left out), not the largest id (often "<|endoftext|>"): the
 * message names the first missing id and the largest. Other bad ids are left
 * to load_vocab's own messages. */
/* A vocab.json token (a key) as a message quotes it, quotes and all: as the file spells it, cut to 40 bytes with
 * "…" (io/jsonval.h av_json_shown_string). AV_SHOWN(key, 89) cut a token of 30 长 to 13 with no mark. */
#define key_shown(key) AV_JSON_STRING_SHOWN(key)

static av_status missing_id(const cJSON *root, int V, av_err *err) {
    const cJSON *top = NULL;
    for (const cJSON *e = root->child; e; e = e->next) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0) return AV_OK;
        if (!top || e->valuedouble > top->valuedouble) top = e;
    }
    if (top->valuedouble < V) return AV_OK;
    unsigned char *seen = calloc((size_t)V, 1);
    if (!seen) return av_fail(err, AV_ERUNTIME, "out of memory");
    for (const cJSON *e = root->child; e; e = e->next)
        if (e->valuedouble < V) seen[(int)e->valuedouble] = 1;
    int m = 0;
    while (m < V - 1 && seen[m]) m++; /* one id below V is missing: V entries, one of them at V or past it */
    free(seen);
    return av_fail(err, AV_EUSAGE, "no token has id %d: the file has %d entr%s, so the ids must be 0..%d, each once, "
                   "but token %s has id %.17g", m, V, V == 1 ? "y" : "ies", V - 1, key_shown(top->string), top->valuedouble);
}

/* vocab.json text -> tokens of b (created here with V = number of entries). */
static av_status load_vocab(av_bpe **out, const char *text, size_t len, av_err *err) {
    cJSON *root;
    av_status st = av_json_parse_object(&root, text, len, NULL, NULL, err);
    if (st) return st;
    int V = cJSON_GetArraySize(root);
    if (V == 0) st = av_fail(err, AV_EUSAGE, "has no tokens");
    else st = missing_id(root, V, err);
    if (st == AV_OK) st = av_bpe_new(out, V, err);
    for (const cJSON *e = root->child; st == AV_OK && e; e = e->next) {
        double d = e->valuedouble;
        if (!cJSON_IsNumber(e))
            st = av_fail(err, AV_EUSAGE, "token %s has a value that is not a number", key_shown(e->string));
        else if (d != floor(d) || d < 0 || d >= V)
            st = av_fail(err, AV_EUSAGE, "token %s has id %.17g (allowed: integers 0..%d, as the file has "
                         "%d entr%s)", key_shown(e->string), d, V - 1, V, V == 1 ? "y" : "ies");
        else st = av_bpe_add_token(*out, e->string, strlen(e->string), (int32_t)d, err);
    }
    cJSON_Delete(root);
    if (st != AV_OK) { av_bpe_free(*out); *out = NULL; }
    return st;
}

/* One merges.txt line s[0..n) ("left right") -> a merge of b. */
static av_status load_merge_line(av_bpe *b, const char *s, size_t n, av_err *err) {
    const char *sp = memchr(s, ' ', n);
    int spaces = 0;
    for (size_t i = 0; i < n; i++) spaces += s[i] == ' ';
    if (spaces != 1 || sp == s || sp == s + n - 1)
        return av_fail(err, AV_EUSAGE, "expected two tokens separated by one space, got %zu byte%s with %d "
                       "space%s", n, n == 1 ? "" : "s", spaces, spaces == 1 ? "" : "s");
    return av_bpe_add_merge(b, s, (size_t)(sp - s), sp + 1, (size_t)(s + n - sp - 1), err);
}

/* merges.txt text -> merges of b, rank = line order. A UTF-8 byte-order mark
 * and an optional first line "#version..." are skipped (as Hugging Face does
 * the line); "\r\n" ends are accepted;
 * only the end of the file may have empty lines. A bad last line without its
 * "\n" is called truncated (the file's end cut it, not its writer). */
static av_status load_merges(av_bpe *b, const char *text, size_t len, av_err *err) {
    size_t line = 0, pos = 0, empty_at = 0;
    /* a UTF-8 byte-order mark first (a Windows editor saved the file): skipped, as cJSON skips vocab.json's;
     * it was "line 1: character U+FEFF is not in the byte-level alphabet" (files that lie, a pass) */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    while (pos < len) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        line++;
        if (n > 0 && s[n - 1] == '\r') n--;
        if (line == 1 && n >= 8 && memcmp(s, "#version", 8) == 0) continue;
        if (n == 0) { if (!empty_at) empty_at = line; continue; }
        if (empty_at)
            return av_fail(err, AV_EUSAGE, "line %zu is empty but line %zu is not", empty_at, line);
        if (memchr(s, 0, n)) return av_fail(err, AV_EUSAGE, "line %zu has a NUL byte", line);
        av_status st = load_merge_line(b, s, n, err);
        if (st != AV_OK) {
            /* a bad last line with no newline at its end is where a download stopped: "line 199: expected two
             * tokens ..., got 2 bytes with 0 spaces" gave no hint, where vocab.json's says "(truncated?)" (a
             * tester's pass). A file that ends its last line ("cat -A" shows the $) is not cut there. */
            av_err inner = *err;
            return av_fail(err, st, "line %zu: %s%s", line, inner.msg,
                           nl ? "" : " (the last line, with no newline at its end: the file looks truncated, as by "
                                     "an interrupted download; fetch it again)");
        }
    }
    return AV_OK;
}

/* Every token of two or more bytes must be made by a merge (else merges.txt
 * is truncated or belongs to another vocabulary), except specials "<...>" and
 * "[...]" ("[PAD]", "[CLS]": Hugging Face's GPT-2 tokenizer loads a vocab.json
 * with them, which was refused as "made by no merge"). Like "<|endoftext|>",
 * such a token is only in the vocabulary: text "[PAD]" is encoded by merges,
 * never as it (encoder.py's way, bpe.h). */
static av_status check_reachable(const av_bpe *b, const unsigned char *made, av_err *err) {
    int32_t V = av_bpe_vocab_size(b);
    for (int32_t id = 0; id < V; id++) {
        size_t n;
        const unsigned char *s = av_bpe_token_bytes(b, id, &n);
        if (n < 2 || made[id] || (s[0] == '<' && s[n - 1] == '>') || (s[0] == '[' && s[n - 1] == ']')) continue;
        char label[AV_BPE_LABEL_MAX];
        av_bpe_label(label, sizeof label, b, id);
        return av_fail(err, AV_EUSAGE, "token %d \"%s\" is made by no merge (merges.txt has %d merge%s: "
                       "truncated, or from another model?)", (int)id, AV_SHOWN_MIDDLE(label), (int)av_bpe_n_merges(b),
                       av_bpe_n_merges(b) == 1 ? "" : "s");
    }
    return AV_OK;
}

av_status av_bpe_load_mem(av_bpe **out, const char *vocab, size_t vlen, const char *merges, size_t mlen,
                          av_err *err) {
    *out = NULL;
    av_bpe *b = NULL;
    av_status st = load_vocab(&b, vocab, vlen, err);
    if (st != AV_OK) return prefixed(err, st, "vocab.json");
    if ((st = load_merges(b, merges, mlen, err)) != AV_OK) st = prefixed(err, st, "merges.txt");
    unsigned char *made = st == AV_OK ? calloc((size_t)av_bpe_vocab_size(b), 1) : NULL;
    if (st == AV_OK && !made) st = av_fail(err, AV_ERUNTIME, "out of memory");
    if (st == AV_OK) {
        for (int32_t r = 0; r < av_bpe_n_merges(b); r++) made[av_bpe_merge_at(b, r, NULL, NULL)] = 1;
        if ((st = check_reachable(b, made, err)) != AV_OK) st = prefixed(err, st, "merges.txt");
    }
    free(made);
    if (st == AV_OK) st = av_bpe_finish(b, NULL, err);
    if (st != AV_OK) { av_bpe_free(b); return st; }
    *out = b;
    return AV_OK;
}

av_status av_bpe_load(av_bpe **out, const char *vocab_json, const char *merges_txt, av_err *err) {
    *out = NULL;
    char *vt = NULL, *mt = NULL;
    size_t vn = 0, mn = 0;
    av_status st = av_read_regular_file(vocab_json, MAX_VOCAB_FILE, &vt, &vn, err);
    if (st == AV_OK) st = av_read_regular_file(merges_txt, MAX_MERGES_FILE, &mt, &mn, err);
    if (st == AV_OK && (st = av_bpe_load_mem(out, vt, vn, mt, mn, err)) != AV_OK) {
        /* name the file: "vocab.json: ..." -> "vocab.json '<path>': ..." */
        av_err inner = *err;
        if (strncmp(inner.msg, "vocab.json: ", 12) == 0)
            av_fail(err, st, "vocab.json %s: %s", AV_SHOWN_WORD(vocab_json, 4200), inner.msg + 12);
        else if (strncmp(inner.msg, "merges.txt: ", 12) == 0)
            av_fail(err, st, "merges.txt %s: %s", AV_SHOWN_WORD(merges_txt, 4200), inner.msg + 12);
    }
    free(vt);
    free(mt);
    return st;
}
