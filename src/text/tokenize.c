/* tokenize.c - UTF-8 decoding and the BERT-style basic tokenizer (see tokenize.h). */
#include "text/tokenize.h"

#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------------
 * UTF-8 */

int av_utf8_decode(const unsigned char *s, size_t len, unsigned *cp, const char **why) {
    static const char *const kTrunc = "truncated multi-byte sequence";
    unsigned c = s[0];
    int n;
    unsigned min;
    if (c < 0x80) { *cp = c; return 1; }
    if (c < 0xC0) { *why = "unexpected continuation byte"; return 0; }
    if (c < 0xE0) { n = 2; c &= 0x1F; min = 0x80; }
    else if (c < 0xF0) { n = 3; c &= 0x0F; min = 0x800; }
    else if (c < 0xF8) { n = 4; c &= 0x07; min = 0x10000; }
    else { *why = "byte is never valid in UTF-8"; return 0; }
    for (int i = 1; i < n; i++) {
        if ((size_t)i >= len || (s[i] & 0xC0) != 0x80) { *why = kTrunc; return 0; }
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min) { *why = "overlong encoding"; return 0; }
    if (c >= 0xD800 && c <= 0xDFFF) { *why = "UTF-16 surrogate code point"; return 0; }
    if (c > 0x10FFFF) { *why = "code point above U+10FFFF"; return 0; }
    *cp = c;
    return n;
}

/* ----------------------------------------------------------------------------
 * Character classes */

typedef enum { CL_SPACE, CL_PUNCT, CL_SINGLE, CL_EMOJI, CL_MARK, CL_WORD } cls;

static int in(unsigned c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; }

static int is_space(unsigned c) {
    return c <= 0x20 || c == 0x7F || in(c, 0x80, 0x9F) || c == 0xA0 || c == 0x1680 ||
           in(c, 0x2000, 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000 || c == 0xFEFF ||
           /* invisible format characters (zero-width space, bidi controls, word
            * joiner): separators, so they never make invisible tokens */
           c == 0x200B || c == 0x200E || c == 0x200F || in(c, 0x202A, 0x202E) || in(c, 0x2060, 0x2064) ||
           in(c, 0x2066, 0x2069);
}

/* ASCII punctuation/symbols (as BERT), then Unicode general category P*. */
static int is_punct(unsigned c) {
    if (in(c, 33, 47) || in(c, 58, 64) || in(c, 91, 96) || in(c, 123, 126)) return 1;
    if (c < 0xA1) return 0;
    static const unsigned r[][2] = {
        {0xA1, 0xA1}, {0xA7, 0xA7}, {0xAB, 0xAB}, {0xB6, 0xB7}, {0xBB, 0xBB}, {0xBF, 0xBF},
        {0x37E, 0x37E}, {0x387, 0x387}, {0x55A, 0x55F}, {0x589, 0x58A}, {0x5BE, 0x5BE},
        {0x5C0, 0x5C0}, {0x5C3, 0x5C3}, {0x5C6, 0x5C6}, {0x5F3, 0x5F4}, {0x609, 0x60D},
        {0x61B, 0x61B}, {0x61D, 0x61F}, {0x66A, 0x66D}, {0x6D4, 0x6D4}, {0x964, 0x965},
        {0x970, 0x970}, {0xE4F, 0xE4F}, {0xE5A, 0xE5B}, {0x2010, 0x2027}, {0x2030, 0x2043},
        {0x2045, 0x2051}, {0x2053, 0x205E}, {0x207D, 0x207E}, {0x208D, 0x208E},
        {0x2308, 0x230B}, {0x2329, 0x232A}, {0x2768, 0x2775}, {0x27C5, 0x27C6},
        {0x27E6, 0x27EF}, {0x2983, 0x2998}, {0x29D8, 0x29DB}, {0x29FC, 0x29FD},
        {0x2E00, 0x2E4F}, {0x3001, 0x3003}, {0x3008, 0x3011}, {0x3014, 0x301F},
        {0x3030, 0x3030}, {0x303D, 0x303D}, {0x30A0, 0x30A0}, {0x30FB, 0x30FB},
        {0xFE10, 0xFE19}, {0xFE30, 0xFE52}, {0xFE54, 0xFE61}, {0xFE63, 0xFE63},
        {0xFE68, 0xFE68}, {0xFE6A, 0xFE6B}, {0xFF01, 0xFF03}, {0xFF05, 0xFF0A},
        {0xFF0C, 0xFF0F}, {0xFF1A, 0xFF1B}, {0xFF1F, 0xFF20}, {0xFF3B, 0xFF3D},
        {0xFF3F, 0xFF3F}, {0xFF5B, 0xFF5B}, {0xFF5D, 0xFF5D}, {0xFF5F, 0xFF65},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (in(c, r[i][0], r[i][1])) return 1;
    return 0;
}

/* CJK ideographs (BERT's _is_chinese_char ranges) and Japanese kana. */
static int is_single(unsigned c) {
    return in(c, 0x4E00, 0x9FFF) || in(c, 0x3400, 0x4DBF) || in(c, 0x20000, 0x2A6DF) ||
           in(c, 0x2A700, 0x2B73F) || in(c, 0x2B740, 0x2B81F) || in(c, 0x2B820, 0x2CEAF) ||
           in(c, 0xF900, 0xFAFF) || in(c, 0x2F800, 0x2FA1F) || in(c, 0x30000, 0x3134F) ||
           in(c, 0x3040, 0x309F) || in(c, 0x30A1, 0x30FA) || in(c, 0x30FC, 0x30FF) ||
           in(c, 0x31F0, 0x31FF) || in(c, 0x3005, 0x3007);
}

static int is_emoji(unsigned c) {
    return in(c, 0x1F000, 0x1FAFF) || in(c, 0x2600, 0x27BF) || in(c, 0x2B00, 0x2BFF) ||
           in(c, 0x2300, 0x23FF) || in(c, 0x2190, 0x21FF);
}

/* Combining marks, variation selectors, skin tones, ZWJ, keycap: these extend
 * the token before them. */
static int is_mark(unsigned c) {
    return in(c, 0x300, 0x36F) || in(c, 0x483, 0x489) || in(c, 0x591, 0x5BD) ||
           in(c, 0x610, 0x61A) || in(c, 0x64B, 0x65F) || in(c, 0x900, 0x903) ||
           in(c, 0x93A, 0x94F) || in(c, 0xE31, 0xE31) || in(c, 0xE34, 0xE3A) ||
           in(c, 0xE47, 0xE4E) || in(c, 0x1AB0, 0x1AFF) || in(c, 0x1DC0, 0x1DFF) ||
           in(c, 0x20D0, 0x20FF) || in(c, 0xFE00, 0xFE0F) || in(c, 0xFE20, 0xFE2F) ||
           in(c, 0x1F3FB, 0x1F3FF) || c == 0x200D || c == 0x200C || in(c, 0xE0020, 0xE007F) ||
           in(c, 0xE0100, 0xE01EF) || in(c, 0x3099, 0x309A);
}

static cls classify(unsigned c) {
    if (is_space(c)) return CL_SPACE;
    if (is_mark(c)) return CL_MARK;
    if (is_punct(c)) return CL_PUNCT;
    if (is_single(c)) return CL_SINGLE;
    if (is_emoji(c)) return CL_EMOJI;
    return CL_WORD;
}

/* ----------------------------------------------------------------------------
 * Tokenizer */

av_status av_tokens_push(av_tokens *t, const char *s, av_err *err) {
    char **grown = realloc(t->tok, (size_t)(t->n + 1) * sizeof *grown);
    if (!grown) return av_fail(err, AV_ERUNTIME, "out of memory");
    t->tok = grown;
    t->tok[t->n] = strdup(s);
    if (!t->tok[t->n]) return av_fail(err, AV_ERUNTIME, "out of memory");
    t->n++;
    return AV_OK;
}

void av_tokens_free(av_tokens *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) free(t->tok[i]);
    free(t->tok);
    t->tok = NULL;
    t->n = 0;
}

static av_status emit(av_tokens *t, const char *text, size_t a, size_t b, int max_tokens, av_err *err) {
    if (b == a) return AV_OK;
    if (t->n >= max_tokens)
        return av_fail(err, AV_EUSAGE, "the sentence has more than %d tokens (the maximum is %d)",
                       max_tokens, max_tokens);
    if (b - a > AV_MAX_TOKEN_BYTES)
        return av_fail(err, AV_EUSAGE, "token %d is %zu bytes long; the maximum is %d bytes",
                       t->n + 1, b - a, AV_MAX_TOKEN_BYTES);
    char *s = malloc(b - a + 1);
    if (!s) return av_fail(err, AV_ERUNTIME, "out of memory");
    memcpy(s, text + a, b - a);
    s[b - a] = 0;
    char **grown = realloc(t->tok, (size_t)(t->n + 1) * sizeof *grown);
    if (!grown) { free(s); return av_fail(err, AV_ERUNTIME, "out of memory"); }
    t->tok = grown;
    t->tok[t->n++] = s;
    return AV_OK;
}

av_status av_tokenize(av_tokens *out, const char *text, size_t len, int max_tokens, av_err *err) {
    out->n = 0;
    out->tok = NULL;
    const unsigned char *s = (const unsigned char *)text;
    /* Validate the whole input first, so an error names the first bad byte. */
    for (size_t i = 0; i < len;) {
        unsigned cp;
        const char *why = "";
        if (s[i] == 0)
            return av_fail(err, AV_EUSAGE, "the input contains a NUL byte at byte offset %zu", i);
        int k = av_utf8_decode(s + i, len - i, &cp, &why);
        if (k == 0)
            return av_fail(err, AV_EUSAGE, "invalid UTF-8 at byte offset %zu (byte 0x%02X): %s", i,
                           s[i], why);
        i += (size_t)k;
    }
    size_t start = 0;   /* start of the token being built */
    int open = 0;       /* a token is being built */
    cls open_cls = CL_WORD;
    int joiner = 0;     /* the previous code point was a ZWJ inside an emoji */
    av_status st;
    for (size_t i = 0; i < len;) {
        unsigned cp = 0;
        const char *why = "";
        int k = av_utf8_decode(s + i, len - i, &cp, &why);
        cls c = classify(cp);
        if (c == CL_MARK) {
            /* extends the open token; a stray mark after a space stands alone as a word */
            if (!open) {
                /* a joiner or variation selector with nothing to join: drop it */
                if (cp == 0x200D || cp == 0x200C || in(cp, 0xFE00, 0xFE0F)) { i += (size_t)k; continue; }
                start = i;
                open = 1;
                open_cls = CL_WORD;
            }
            joiner = (cp == 0x200D && open_cls == CL_EMOJI);
            i += (size_t)k;
            continue;
        }
        if (joiner && c == CL_EMOJI) { joiner = 0; i += (size_t)k; continue; }
        joiner = 0;
        /* regional-indicator pairs form one flag */
        if (open && open_cls == CL_EMOJI && in(cp, 0x1F1E6, 0x1F1FF) && i - start == 4) {
            unsigned prev = 0;
            av_utf8_decode(s + start, 4, &prev, &why);
            if (in(prev, 0x1F1E6, 0x1F1FF)) { i += (size_t)k; continue; }
        }
        if (c == CL_WORD && open && open_cls == CL_WORD) { i += (size_t)k; continue; }
        if (open && (st = emit(out, text, start, i, max_tokens, err)) != AV_OK) return st;
        open = 0;
        if (c != CL_SPACE) { start = i; open = 1; open_cls = c; }
        i += (size_t)k;
    }
    if (open && (st = emit(out, text, start, len, max_tokens, err)) != AV_OK) return st;
    if (out->n == 0)
        return av_fail(err, AV_EUSAGE,
                       len == 0 ? "the sentence is empty; give at least one word"
                                : "the sentence has no tokens (only whitespace); give at least one word");
    return AV_OK;
}

int av_utf8_width(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str);
    int w = 0;
    for (size_t i = 0; i < len;) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode(s + i, len - i, &cp, &why);
        if (k == 0) { w++; i++; continue; }
        i += (size_t)k;
        if (is_mark(cp)) continue;
        if (is_single(cp) || is_emoji(cp) || in(cp, 0x1100, 0x115F) || in(cp, 0x2E80, 0x303E) ||
            in(cp, 0x3041, 0x33FF) || in(cp, 0xAC00, 0xD7A3) || in(cp, 0xFF00, 0xFF60) ||
            in(cp, 0xFFE0, 0xFFE6))
            w += 2;
        else
            w += 1;
    }
    return w;
}
