/* tokenize.h - split a UTF-8 sentence into word, punctuation and CJK tokens.
 *
 * Rules (BERT's BasicTokenizer, Devlin et al. 2018, without lower-casing or
 * accent stripping, plus an emoji rule):
 *   - Unicode whitespace, C0/C1 control characters and invisible format
 *     characters (zero-width space, bidi controls) separate tokens.
 *   - Every punctuation character (ASCII !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~ and
 *     Unicode punctuation, e.g. 。，、“”—) is a token of its own, so
 *     "didn't" -> didn ' t.
 *   - Every CJK ideograph (and Japanese kana) is a token of its own, so
 *     "我爱深度学习" -> 我 爱 深 度 学 习 (6 tokens).
 *   - An emoji (with its skin-tone, variation-selector and ZWJ sequence) is a
 *     token of its own.
 *   - Combining marks stay with the character before them ("nai\u0308ve").
 *   - Anything else (letters of any script, digits) forms words.
 *
 * Errors (all AV_EUSAGE): invalid UTF-8 (overlong, surrogate, > U+10FFFF,
 * lone continuation byte, truncated sequence) naming the byte offset; a NUL
 * byte; no tokens at all; more than max_tokens tokens; a token longer than
 * AV_MAX_TOKEN_BYTES bytes.
 *
 * Non-goals: subword (BPE/WordPiece) tokenization, normalisation (NFC/NFKC).
 */
#ifndef AV_TOKENIZE_H
#define AV_TOKENIZE_H

#include <stddef.h>

#include "base/common.h"

typedef struct {
    int n;       /* number of tokens T */
    char **tok;  /* n NUL-terminated UTF-8 strings, owned */
} av_tokens;

/* Tokenize len bytes of text. On success out->n is in 1..max_tokens.
 * The caller frees with av_tokens_free (also safe after an error). */
av_status av_tokenize(av_tokens *out, const char *text, size_t len, int max_tokens, av_err *err);

/* Append a copy of s as a new token (used for <pad>). Errors: AV_ERUNTIME on OOM. */
av_status av_tokens_push(av_tokens *t, const char *s, av_err *err);

void av_tokens_free(av_tokens *t);

/* Decode one UTF-8 code point from s[0..len). Returns the number of bytes
 * used (1..4) and stores the code point, or 0 for an invalid or truncated
 * sequence (then *why says which). Strict: rejects overlong forms,
 * surrogates D800-DFFF and values above U+10FFFF (RFC 3629). */
int av_utf8_decode(const unsigned char *s, size_t len, unsigned *cp, const char **why);

/* Display width of a UTF-8 string in terminal columns (CJK and emoji count 2). */
int av_utf8_width(const char *s);

#endif
