/* tokenize.c - the BERT-style basic tokenizer over grapheme clusters (see tokenize.h). */
#include "text/tokenize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* ----------------------------------------------------------------------------
 * What a grapheme cluster is to the tokenizer (docs/conventions.md, "Tokens") */

typedef enum {
    CL_SEP,   /* separates tokens and is dropped: Z*, Cc, clusters of only Cf / ignorables */
    CL_ALONE, /* a token of its own: P*, ASCII S*, an emoji, a character of a script
               * written without spaces (Han, kana, ...) */
    CL_WORD,  /* joins its neighbours into a word: letters, marks, digits, other symbols */
} cls;

/* Scripts written without spaces between words, as wide letters: Han, Hiragana,
 * Katakana, Bopomofo, Yi, Tangut, ... (categories Lo, Lm, Nl with East Asian
 * width 2), and the half-width katakana U+FF66..U+FF9D (ｶﾀｶﾅ, width 1, as old
 * Japanese systems and some input methods type katakana; their voiced marks
 * ﾞ ﾟ, U+FF9E..U+FF9F, extend the cluster before them: ｺﾞ is one). Hangul is wide
 * too, but Korean puts spaces between words. "私はﾘﾝｺﾞが好き" gave [ﾘﾝｺﾞ], one
 * token, where リンゴ gives three (a Chinese-speaking learner's pass). */
static int splits_per_character(unsigned cp, av_ucat cat) {
    if (cp >= 0xFF66 && cp <= 0xFF9D) return 1;
    return (cat == AV_UC_LO || cat == AV_UC_LM || cat == AV_UC_NL) && av_utf8_cp_width(cp) == 2 &&
           !av_utf8_is_hangul(cp);
}

/* The class of the cluster s[0..n): that of its first code point which is
 * neither a format character (Cf) nor default-ignorable, so a prepended
 * mark (U+0600) or a leading joiner does not decide it. */
static cls classify(const char *s, size_t n) {
    if (av_utf8_cluster_is_emoji(s, n)) return CL_ALONE;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t at = 0; at < n;) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode(u + at, n - at, &cp, &why); /* input validated: k >= 1 */
        at += (size_t)k;
        av_ucat cat = av_utf8_category(cp);
        if (cat == AV_UC_CF || av_utf8_is_ignorable(cp)) continue;
        if (av_utf8_is_separator(cp)) return CL_SEP;
        if (cat >= AV_UC_PC && cat <= AV_UC_PO) return CL_ALONE;
        if (cp < 0x80 && cat >= AV_UC_SM && cat <= AV_UC_SO) return CL_ALONE; /* $+<=>^`|~ as BERT */
        return splits_per_character(cp, cat) ? CL_ALONE : CL_WORD;
    }
    return CL_SEP;
}

/* ----------------------------------------------------------------------------
 * Tokenizer */

av_status av_tokens_push(av_tokens *t, const char *s, av_err *err) {
    char **grown = realloc(t->tok, (size_t)(t->n + 1) * sizeof *grown);
    if (!grown) return av_fail(err, AV_ERUNTIME, "out of memory");
    t->tok = grown;
    if (t->text) {
        if (!(grown = realloc(t->text, (size_t)(t->n + 1) * sizeof *grown)))
            return av_fail(err, AV_ERUNTIME, "out of memory");
        t->text = grown;
        t->text[t->n] = NULL;
    }
    t->tok[t->n] = strdup(s);
    if (!t->tok[t->n]) return av_fail(err, AV_ERUNTIME, "out of memory");
    t->n++;
    return AV_OK;
}

av_status av_tokens_set_text(av_tokens *t, int k, const char *s, size_t len, av_err *err) {
    if (!t->text && !(t->text = calloc((size_t)t->n, sizeof *t->text)))
        return av_fail(err, AV_ERUNTIME, "out of memory");
    const char *nul = memchr(s, 0, len); /* s need not be NUL-terminated: no strndup, which may read past len */
    size_t n = nul ? (size_t)(nul - s) : len;
    free(t->text[k]);
    if (!(t->text[k] = malloc(n + 1))) return av_fail(err, AV_ERUNTIME, "out of memory");
    memcpy(t->text[k], s, n);
    t->text[k][n] = 0;
    return AV_OK;
}

void av_tokens_free(av_tokens *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) {
        free(t->tok[i]);
        if (t->text) free(t->text[i]);
    }
    free(t->tok);
    free(t->text);
    t->tok = t->text = NULL;
    t->n = 0;
}

/* out (64 bytes) = the start of the token s[0..len) (valid UTF-8), to say
 * which one a message means: its first whole characters, at most 16 bytes,
 * quoted ("wor…"); or, when those would show nothing (one character longer
 * than 16 bytes, such as a letter with many marks, or only marks), its first
 * code points (U+0065 U+0301 …). */
static void token_start(char out[64], const char *s, size_t len) {
    char head[17];
    size_t shown = 0;
    for (size_t k; shown < len && shown + (k = av_utf8_cluster_len(s + shown, len - shown)) <= 16;) shown += k;
    memcpy(head, s, shown);
    head[shown] = 0;
    if (av_utf8_width(head) > 0) {
        snprintf(out, 64, "\"%s…\"", head);
        return;
    }
    size_t at = 0;
    for (size_t i = 0, k; i < len && at < 40; i += k) {
        unsigned cp = 0;
        const char *why;
        k = (size_t)av_utf8_decode((const unsigned char *)s + i, len - i, &cp, &why);
        if (k == 0) break; /* not reached: the input was checked */
        at += (size_t)snprintf(out + at, 64 - at, "U+%04X ", cp);
    }
    snprintf(out + at, 64 - at, "…");
}

/* Append text[a..b) as the next token. Tokens past max_tokens are only
 * counted (in *found), so the error can say how many there are. */
static av_status emit(av_tokens *t, int *found, const char *text, size_t a, size_t b, int max_tokens, av_err *err) {
    if (b == a) return AV_OK;
    if (b - a > AV_MAX_TOKEN_BYTES) {
        /* counted from 0 like the trace, --explain and --compare order; the start shows which one */
        char start[64];
        token_start(start, text + a, b - a);
        int n = 0; /* "ฉันรักการเรียนรู้เชิงลึก", 72 bytes: a Thai sentence without the spaces Thai does not write */
        const char *script = av_utf8_unspaced_script(text + a, b - a, &n);
        /* "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶ", 22 letters typed in an input method's full-width mode, 66
         * bytes: the error named bytes only, and a 22-letter word does not look long (a teacher's pass) */
        int wide = 0;
        for (size_t i = a, k; i < b; i += k) {
            unsigned cp = 0;
            const char *why;
            k = (size_t)av_utf8_decode((const unsigned char *)text + i, b - i, &cp, &why);
            if (k == 0) break; /* not reached: the input was checked */
            wide += av_utf8_halfwidth(cp) != 0;
        }
        char fw[240] = "";
        size_t half = b - a - 2 * (size_t)wide; /* each full-width form is 3 bytes, its half-width twin 1 */
        /* 52 full-width letters and 30 ASCII typed half-width are still 82 bytes: say so, or the hint reads
         * as if typing half-width were enough */
        if (wide)
            snprintf(fw, sizeof fw, "; %d of its characters are full-width forms (3 bytes each, as an input "
                     "method's full-width mode types them): typed half-width (半角) the token is %zu bytes%s", wide,
                     half, half > AV_MAX_TOKEN_BYTES ? ", still over the maximum" : "");
        return av_fail(err, AV_EUSAGE, "token %d (%s) is %zu bytes long; the maximum is %d bytes%s%s%s%s", *found,
                       start, b - a, AV_MAX_TOKEN_BYTES, fw, script ? "; " : "", script ? script : "",
                       script ? " is written without spaces between words, and attnviz splits words at spaces: type a "
                                "space between words" : "");
    }
    if (++*found > max_tokens) return AV_OK;
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
    out->tok = out->text = NULL;
    const char *nul = memchr(text, 0, len);
    if (nul) return av_fail(err, AV_EUSAGE, "the input contains a NUL byte at byte offset %zu", (size_t)(nul - text));
    /* Validate the whole input first, so an error names the first bad byte. */
    av_status st = av_utf8_check(text, len, err);
    if (st != AV_OK) return st;
    size_t start = 0; /* start of the word being built */
    int open = 0;     /* a word is being built */
    int found = 0;    /* tokens found, also past max_tokens */
    for (size_t at = 0; at < len;) {
        size_t n = av_utf8_cluster_len(text + at, len - at);
        cls c = classify(text + at, n);
        if (c == CL_WORD) {
            if (!open) { start = at; open = 1; }
        } else {
            if (open && (st = emit(out, &found, text, start, at, max_tokens, err)) != AV_OK) return st;
            open = 0;
            if (c == CL_ALONE && (st = emit(out, &found, text, at, at + n, max_tokens, err)) != AV_OK) return st;
            size_t sep = c == CL_SEP ? av_utf8_separator_len(text + at, n) : n;
            if (sep < n) { start = at + sep; open = 1; } /* the marks after the space begin a word, as after a newline */
        }
        at += n;
    }
    if (open && (st = emit(out, &found, text, start, len, max_tokens, err)) != AV_OK) return st;
    if (found > max_tokens)
        return av_fail(err, AV_EUSAGE, "the sentence has %d tokens, more than the maximum %d; shorten it", found,
                       max_tokens);
    if (out->n == 0)
        return av_fail(err, AV_EUSAGE,
                       len == 0 ? "the sentence is empty; give at least one word"
                                : "the sentence has no tokens (only whitespace or invisible characters); give at "
                                  "least one word");
    return AV_OK;
}

void av_label_char(char out[16], unsigned cp, const unsigned char *src, int k) {
    if (cp == ' ') { strcpy(out, "\xE2\x90\xA3"); return; }  /* ␣ U+2423 */
    if (cp == '\n') { strcpy(out, "\xE2\x86\xB5"); return; } /* ↵ U+21B5 */
    if (cp == '\t') { strcpy(out, "\xE2\x87\xA5"); return; } /* ⇥ U+21E5 */
    av_ucat c = av_utf8_category(cp);
    if (c == AV_UC_CC || c == AV_UC_CF || c == AV_UC_ZS || c == AV_UC_ZL || c == AV_UC_ZP || c == AV_UC_CN ||
        c == AV_UC_CO) {
        snprintf(out, 16, cp < 0x80 ? "<0x%02X>" : "<U+%04X>", cp);
        return;
    }
    memcpy(out, src, (size_t)k);
    out[k] = 0;
}

/* cp, its k bytes at src, as a label draws it (av_label_char) where it follows `base` (the label so far ends in
 * a character drawn as itself) and is, or is not, a `part` of a character cut between tokens: a
 * Default_Ignorable_Code_Point with no base or that is the part as <U+NNNN>, a combining mark with no base on
 * U+25CC ◌. out holds 16 bytes. Returns 1 when cp is drawn as itself (a mark can sit on it). */
static int label_char_after(char out[16], unsigned cp, const unsigned char *src, int k, int base, int part) {
    char shown[16];
    av_label_char(shown, cp, src, k);
    if ((!base || part) && av_utf8_is_ignorable(cp)) snprintf(shown, sizeof shown, "<U+%04X>", cp);
    int itself = strlen(shown) == (size_t)k && memcmp(shown, src, (size_t)k) == 0;
    av_ucat cat = av_utf8_category(cp);
    int mark = itself && !base && (cat == AV_UC_MN || cat == AV_UC_MC || cat == AV_UC_ME);
    if (mark) snprintf(out, 16, "\u25CC%.12s", shown); /* a mark with no base: on ◌, as Unicode shows one (shown is
                                                         * then the mark itself, at most 4 bytes) */
    else memcpy(out, shown, 16);
    return itself;
}

void av_label_char_alone(char out[16], unsigned cp) {
    char c[4];
    int k = av_utf8_encode(cp, c);
    if (k <= 0) k = av_utf8_encode(0xFFFD, c), cp = 0xFFFD;
    label_char_after(out, cp, (const unsigned char *)c, k, 0, 0);
}

void av_labels_free(char **labels, int n) {
    if (!labels) return;
    for (int i = 0; i < n; i++) free(labels[i]);
    free(labels);
}

/* 1 if s[0..len) is whole UTF-8 (no cut character, no bad byte) */
static int whole_utf8(const char *s, size_t len) { return av_utf8_check(s, len, NULL) == AV_OK; }

/* Token k's label in a run of tokens i..j whose texts, joined, are run[0..start[j-i+1]) with token
 * m's at run[start[m-i]..start[m-i+1]): each character the token holds whole as av_label_char draws
 * it, each it holds part of as the character and "(which/of)" among the tokens that hold its
 * parts; a combining mark with no base before it in the label (at its start, or after a character
 * drawn as a symbol: ␣, ↵, ⇥, <U+NNNN>) on U+25CC ◌ (The Unicode Standard §2.11: a mark shown
 * alone); a Default_Ignorable_Code_Point that is drawn as nothing (a variation selector, U+034F)
 * as <U+NNNN>, as a format character is, where it has no base or is the part the "(which/of)"
 * counts: "␣︎(1/3)" read "␣(1/3)". out has cap >= 16 * 64 + 1 bytes (64 bytes of run at most,
 * each part at most 15 bytes; ◌ only on a mark, of 2 bytes or more, drawn as itself). */
static void piece_label(char *out, const char *run, const size_t *start, int i, int j, int k) {
    size_t s = start[k - i], e = start[k - i + 1], w = 0;
    int base = 0; /* the label so far ends in a character drawn as itself, which a mark sits on */
    out[0] = 0;
    for (size_t c = 0, len = start[j - i + 1]; c < len;) {
        unsigned cp;
        const char *why;
        int n = av_utf8_decode((const unsigned char *)run + c, len - c, &cp, &why);
        size_t ce = c + (size_t)n; /* the run is whole UTF-8, so n >= 1 */
        if (ce > s && c < e) {
            char shown[16];
            int part = c < s || ce > e;
            base = label_char_after(shown, cp, (const unsigned char *)run + c, n, base, part);
            w += (size_t)sprintf(out + w, "%s", shown);
            if (part) { /* a part: which of the tokens holding the character's bytes */
                int first = k, last = k;
                while (first > i && start[first - i] > c) first--;
                while (last < j && start[last - i + 1] < ce) last++;
                w += (size_t)sprintf(out + w, "(%d/%d)", k - first + 1, last - first + 1);
                base = 0; /* a mark after "(2/2)" is on ◌, not on the ')' */
            }
        }
        c = ce;
    }
}

av_status av_tokens_piece_labels(const av_tokens *t, char ***out, av_err *err) {
    *out = NULL;
    if (!t->text) return AV_OK;
    char **labels = NULL;
    for (int i = 0; i < t->n; i++) {
        if (!t->text[i] || whole_utf8(t->text[i], strlen(t->text[i]))) continue;
        char run[64];
        size_t start[AV_PIECE_RUN_MAX + 1], len = 0;
        int j = i, closed = 0;
        for (; j < t->n && j < i + AV_PIECE_RUN_MAX && t->text[j]; j++) {
            size_t l = strlen(t->text[j]);
            if (l == 0 || len + l > sizeof run) break; /* "": byte 0's token, whose text a NUL ends */
            start[j - i] = len;
            memcpy(run + len, t->text[j], l), len += l;
            if ((closed = whole_utf8(run, len))) break;
        }
        if (!closed) continue; /* a cut character that no later token completes: its <0xNN> labels stay */
        start[j - i + 1] = len;
        if (!labels && !(labels = calloc((size_t)t->n, sizeof *labels))) goto oom;
        for (int k = i; k <= j; k++) {
            char label[16 * 64 + 1];
            piece_label(label, run, start, i, j, k);
            if (!(labels[k] = strdup(label))) goto oom;
        }
        i = j;
    }
    if (!labels) return AV_OK;
    for (int k = 0; k < t->n; k++)
        if (!labels[k] && !(labels[k] = strdup(t->tok[k]))) goto oom;
    *out = labels;
    return AV_OK;
oom:
    av_labels_free(labels, t->n);
    return av_fail(err, AV_ERUNTIME, "out of memory");
}
