/* fuzz_tokenize.c - libFuzzer target for the tokenizer (av_tokenize).
 *
 * Input: arbitrary bytes, handed to av_tokenize exactly as a learner's
 * sentence would be (libFuzzer's buffer is exactly `size` bytes and not
 * NUL-terminated, so any read past the end is an AddressSanitizer report).
 * Built and run by `make fuzz` (scripts/fuzz.sh); seed corpus in
 * tests/fuzz/tokenize_corpus/.
 *
 * Properties checked beyond "no crash, no leak, no undefined behaviour":
 *   success -> 1 <= n <= AV_MAX_TOKENS; every token is non-empty, at most
 *              AV_MAX_TOKEN_BYTES bytes, valid UTF-8, holds no ASCII space or
 *              control byte, and the tokens appear in the input in order
 *              (each is a copy of a slice after the previous one);
 *   failure -> AV_EUSAGE (never a runtime error: nothing here can fail for
 *              want of memory at these sizes) with a non-empty message.
 * A small max_tokens run repeats the input to exercise the token limit, and
 * av_tokens_push / av_utf8_width are driven on the result.
 * The input split at its 0xFF bytes (a byte UTF-8 never has) is also a --model's token texts for
 * av_tokens_piece_labels: every label it makes is non-empty, valid UTF-8 (a part is drawn by its
 * whole character), and it makes none when every text is whole UTF-8.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "text/tokenize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tokens(const av_tokens *t, const uint8_t *data, size_t size, int max_tokens) {
    if (t->n < 1 || t->n > max_tokens) abort();
    size_t at = 0; /* tokens are slices of the input, in order */
    for (int i = 0; i < t->n; i++) {
        const char *tok = t->tok[i];
        size_t n = strlen(tok);
        if (n == 0 || n > AV_MAX_TOKEN_BYTES) abort();
        for (size_t j = 0; j < n;) {
            unsigned cp;
            const char *why = NULL;
            int k = av_utf8_decode((const unsigned char *)tok + j, n - j, &cp, &why);
            if (k < 1 || k > 4) abort();
            if (cp <= 0x20 || cp == 0x7F) abort();
            j += (size_t)k;
        }
        const uint8_t *hit = NULL;
        for (size_t p = at; p + n <= size; p++)
            if (memcmp(data + p, tok, n) == 0) { hit = data + p; break; }
        if (!hit) abort();
        at = (size_t)(hit - data) + n;
        if (av_utf8_width(tok) < 0) abort(); /* a lone combining mark is 0 columns */
    }
}

static void check_piece_labels(const uint8_t *data, size_t size) {
    av_tokens t = {0};
    av_err err = {{0}};
    int all_whole = 1;
    for (size_t at = 0; at <= size && t.n < 64;) {
        const uint8_t *end = memchr(data + at, 0xFF, size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        if (av_tokens_push(&t, "<t>", &err) || av_tokens_set_text(&t, t.n - 1, (const char *)data + at, len, &err))
            abort();
        const char *s = t.text[t.n - 1];
        if (av_utf8_check(s, strlen(s), NULL) != AV_OK) all_whole = 0;
        at += len + 1;
    }
    char **labels = NULL;
    if (av_tokens_piece_labels(&t, &labels, &err) != AV_OK) abort();
    if (labels && all_whole) abort();
    for (int i = 0; labels && i < t.n; i++)
        if (!labels[i][0] || av_utf8_check(labels[i], strlen(labels[i]), NULL) != AV_OK) abort();
    av_labels_free(labels, t.n);
    av_tokens_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_piece_labels(data, size);
    av_tokens t;
    av_err err = {{0}};
    av_status s = av_tokenize(&t, (const char *)data, size, AV_MAX_TOKENS, &err);
    if (s == AV_OK) {
        check_tokens(&t, data, size, AV_MAX_TOKENS);
        /* what main does for --pad-to */
        int n = t.n;
        if (av_tokens_push(&t, "<pad>", &err) != AV_OK || t.n != n + 1 || strcmp(t.tok[n], "<pad>") != 0) abort();
    } else {
        if (s != AV_EUSAGE || err.msg[0] == 0) abort();
        if (!memchr(err.msg, 0, sizeof err.msg)) abort();
    }
    av_tokens_free(&t); /* also after an error: documented as safe */
    if (t.n != 0 || t.tok != NULL) abort();

    /* the same bytes against a small token limit */
    av_status s2 = av_tokenize(&t, (const char *)data, size, 3, &err);
    if (s2 == AV_OK) {
        if (s != AV_OK) abort(); /* a tighter limit cannot make bad input good */
        check_tokens(&t, data, size, 3);
    } else if (s2 != AV_EUSAGE) {
        abort();
    }
    av_tokens_free(&t);
    return 0;
}
