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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
