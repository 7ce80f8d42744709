/* teach.c - teaching mode (see teach.h). */
#include "app/teach.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/term.h"
#include "app/trace.h"
#include "base/utf8.h"
#include "nn/attention.h"
#include "render/colormap.h"

/* ----------------------------------------------------------------------------
 * --explain */

#define OPEN_BOX "\xE2\x90\xA3" /* ␣ U+2423, how a token label draws a space */

/* 1 if a and b are the same text up to canonical equivalence (NFC): "café"
 * typed with U+00E9 names the token spelt e + U+0301 (a --model's tokens
 * keep the sentence's bytes), and the other way round. */
static int same_text(const char *a, const char *b) {
    if (strcmp(a, b) == 0) return 1;
    size_t la, lb;
    char *na = av_utf8_nfc(a, strlen(a), &la), *nb = av_utf8_nfc(b, strlen(b), &lb);
    int same = na && nb && la == lb && memcmp(na, nb, la) == 0;
    free(na);
    free(nb);
    return same;
}

/* The first token whose text is want, or -1; *more counts later ones. */
static int find_token(const av_tokens *toks, const char *want, int *more) {
    *more = 0;
    for (int i = 0; i < toks->n; i++) {
        if (!same_text(toks->tok[i], want)) continue;
        for (int j = i + 1; j < toks->n; j++) *more += same_text(toks->tok[j], want);
        return i;
    }
    return -1;
}

/* "; tokens are case-sensitive: 'deep' is token 2" into out (n bytes) when want or spaced (want with the
 * open box of a leading space) equals a token's label but for ASCII case: "--explain Deep,I" on "I love
 * deep learning" said only "'Deep' is neither a token of the sentence" (a teacher's pass); else "". The
 * first such token. */
static void case_hint(char *out, size_t n, const av_tokens *toks, const char *want, const char *spaced) {
    out[0] = 0;
    for (int i = 0; i < toks->n; i++)
        if (strcasecmp(toks->tok[i], want) == 0 || strcasecmp(toks->tok[i], spaced) == 0) {
            snprintf(out, n, "; tokens are case-sensitive: %s is token %d", AV_QUOTED_WORD(toks->tok[i], 1100), i);
            return;
        }
    /* "ＧＰＴ" in the sentence and GPT typed, or the other way round: different tokens, with no word why (a
     * Chinese-speaking student's pass) */
    char a[AV_MAX_TOKEN_BYTES * 4 + 8], b[AV_MAX_TOKEN_BYTES * 4 + 8];
    av_utf8_halfwidth_text(a, sizeof a, want, NULL);
    for (int i = 0; i < toks->n; i++) {
        av_utf8_halfwidth_text(b, sizeof b, toks->tok[i], NULL);
        if (strcmp(a, b) == 0 && strcmp(toks->tok[i], want) != 0) {
            /* letters for "ＧＰＴ", else forms: "--explain ,,好" on 你好，世界 called ',' and '，' letters (a
             * Chinese-speaking learner's pass) */
            int letters = 1;
            for (const char *c = a; *c; c++) letters &= isalpha((unsigned char)*c) != 0;
            snprintf(out, n, "; full-width and half-width %s are different characters: %s is token %d",
                     letters ? "letters" : "forms", AV_QUOTED_WORD(toks->tok[i], 1100), i);
            return;
        }
    }
}

/* The edit distance between the NUL-terminated strings a and b in characters (code points), not bytes: each
 * distinct code point is given one byte and av_edit_distance measures the result; *chars gets a's length in
 * code points. 99 past 63 characters or 255 distinct ones. In bytes, "你" (E4 BD A0) was one edit from "习"
 * (E4 B9 A0), and "--explain 你,我" on "我爱深度学习" asked "did you mean '习' (token 5)?" (a Chinese-speaking
 * learner's pass): two characters that share nothing but a lead byte. */
static int char_edit_distance(const char *a, const char *b, size_t *chars) {
    unsigned seen[255];
    char m[2][64];
    int ns = 0;
    const char *src[2] = {a, b};
    *chars = 0;
    for (int w = 0; w < 2; w++) {
        const unsigned char *p = (const unsigned char *)src[w];
        size_t k = 0;
        while (*p) {
            unsigned cp = av_utf8_next(&p);
            int i = 0;
            while (i < ns && seen[i] != cp) i++;
            if (i == ns) {
                if (ns == 255) return 99;
                seen[ns++] = cp;
            }
            if (k == 63) return 99;
            m[w][k++] = (char)(i + 1);
        }
        m[w][k] = 0;
        if (w == 0) *chars = k;
    }
    return av_edit_distance(m[0], m[1]);
}

/* "; did you mean 'love' (token 1)?" into out (n bytes) when want is the start of a token (2 bytes or more) or
 * within a third of its length in edits of one (char_edit_distance: characters, at least 1; want of 2
 * characters or more, as a single character is one edit from every other), a leading space of the token
 * left out: "--explain lov,you" said only "'lov' is neither a token" (a learner's pass); else "". A want
 * that starts with a non-ASCII character is also found inside a token: "习" in a --model's token [学习]
 * (a tokenizer with Chinese words) or in GPT-2's [<0x91>士] of "剑士", where "学" got the hint and "习"
 * did not (a Chinese-speaking learner's pass). The first such token, a start before one holding want inside
 * (`--explain é` on "café été" names été), before a near one. */
static void near_hint(char *out, size_t n, const av_tokens *toks, const char *want) {
    size_t wl = strlen(want);
    int best = -1, best_d = 3;
    out[0] = 0;
    if (wl < 2 || wl > 64) return;
    /* pass 0: a start; 1: inside, for a non-ASCII want; 2: near */
    for (int pass = 0; pass < 3 && best < 0; pass++)
        for (int i = 0; i < toks->n && (pass == 2 || best < 0); i++) {
            const char *t = toks->tok[i] + (toks->tok[i][0] == ' ');
            if (strlen(t) <= wl && pass < 2) continue; /* a start or a part is shorter than the token */
            if (pass == 0 && strncmp(t, want, wl) == 0) best = i;
            if (pass == 1 && (unsigned char)want[0] >= 0x80 && strstr(t, want)) best = i;
            if (pass == 2 && strlen(t) <= 64) {
                size_t chars;
                int d = char_edit_distance(want, t, &chars), limit = chars / 3 > 0 ? (int)(chars / 3) : 1;
                if (chars >= 2 && d <= limit && d < best_d) best = i, best_d = d;
            }
        }
    if (best >= 0)
        snprintf(out, n, "; did you mean %s (token %d)?",
                 AV_QUOTED_WORD(toks->tok[best] + (toks->tok[best][0] == ' '), 1100), best);
}

/* s[0..len) for a message, into buf (cap >= 8 bytes): as it is when it fits in
 * SHOWN_COLS terminal columns and cap bytes, else cut at a whole character
 * (an extended grapheme cluster, or a code point of one too long to keep
 * whole) with "…" after it, so that a pasted 3000-character spec leaves
 * room in av_err for the message's hint (a tester's report: it was cut
 * mid-character and lost). Returns buf. shown() below adds the bidi closers. */
#define SHOWN_COLS 80
static const char *shown_cut(char *buf, size_t cap, const char *s, size_t len) {
    size_t at = 0, k = 0;
    int cols = 0;
    while (at < len) {
        size_t c = av_utf8_cluster_len(s + at, len - at);
        int w = av_utf8_cluster_width(s + at, c);
        if (cols + w > SHOWN_COLS || k + c + 1 > cap) break;
        memcpy(buf + k, s + at, c);
        k += c, at += c, cols += w;
    }
    if (at == len) { buf[k] = 0; return buf; }
    /* too long: take back whole clusters until "…" (1 column, 3 bytes) fits */
    while (k > 0 && (cols + 1 > SHOWN_COLS || k + 4 > cap)) {
        size_t b = 0, last = 0;
        while (b < k) last = b, b += av_utf8_cluster_len(buf + b, k - b);
        cols -= av_utf8_cluster_width(buf + last, k - last);
        k = last;
    }
    if (k == 0) { /* one cluster longer than cap (a letter under thousands of marks): its first code points */
        const unsigned char *u = (const unsigned char *)s;
        unsigned cp;
        const char *why;
        for (;;) {
            int n = av_utf8_decode(u + k, len - k, &cp, &why);
            size_t step = n > 0 ? (size_t)n : 1;
            if (k + step + 4 > cap) break;
            memcpy(buf + k, s + k, step);
            k += step;
        }
    }
    memcpy(buf + k, "\xE2\x80\xA6", 4); /* … */
    return buf;
}

/* shown_cut's text as av_utf8_shown_name writes a name (utf8.h): followed by
 * the PDF/PDI that close the bidi embeddings, overrides and isolates it
 * leaves open, so the rest of the message reads as if it held none
 * (--explain $'abc\u202e,1' turned "' is neither a token of the sentence
 * ..." around on a bidi terminal). Control characters never get here:
 * app/cli.c refuses an --explain value holding one. buf and cap as
 * shown_cut's; returns buf. */
static const char *shown(char *buf, size_t cap, const char *s, size_t len) {
    char *cut = malloc(cap);
    if (!cut) return shown_cut(buf, cap, s, len);
    av_utf8_shown_name(shown_cut(cut, cap, s, len), buf, cap);
    free(cut);
    return buf;
}

/* shown's text as the prose quotes a value, one shell word in single quotes (av_quoted_word, utf8.h): 'abc' as
 * '%s' wrote it, "it's" as 'it'\''s' where '%s' gave `--explain 'it's,1' must be ...`, an open quote to a shell
 * it is pasted back into (a tester's pass). buf and cap as shown's (a word longer than cap is cut at a whole
 * character, its closing quote kept); returns buf. */
static const char *shown_word(char *buf, size_t cap, const char *s, size_t len) {
    char *text = malloc(cap);
    if (!text) return av_quoted_word(buf, cap, shown_cut(buf, cap, s, len));
    av_quoted_word(buf, cap, shown(text, cap, s, len));
    free(text);
    return buf;
}

/* 1 and *v if part is a whole number, spaces around it allowed ("1, 3"). */
static int read_index(const char *part, long *v) {
    char *end = NULL;
    *v = strtol(part, &end, 10);
    if (end == part) return 0;
    while (*end == ' ') end++;
    return *end == 0;
}

/* read_index for a number with any full-width digit or sign in it (０..９, U+FF10..U+FF19, ＋ and －,
 * U+FF0B and U+FF0D, as a Chinese or Japanese input method types them in full-width mode), alone or
 * mixed with ASCII ones ("１0", "-１"), spaces around it allowed: recognized to be refused with the
 * half-width form, as "--heads ８" is (app/cli.c full_width_hint), not read as the index. *v gets the
 * number, ascii (cap bytes) the whole part in half-width characters without its spaces ("10", "-1");
 * 0 for no number or no full-width character ("１0" and "-１" were refused without the hint). */
static int read_wide_index(const char *part, long *v, char *ascii, size_t cap) {
    int other = 0, wide = av_utf8_halfwidth_text(ascii, cap, part + strspn(part, " "), &other);
    if (wide <= 0 || other || !read_index(ascii, v)) return 0;
    ascii[strcspn(ascii, " ")] = 0;
    return 1;
}

/* read_index for a number that starts with a look-alike dash (base/utf8.h av_utf8_lookalike_dash, but '－', which
 * read_wide_index reads): "−1" with the typeset minus sign (U+2212) that the figures' colour bars and the docs
 * print, "–1" with a word processor's en dash, spaces around it allowed; recognized to be refused with the ASCII
 * form, as "--head −1" is (app/cli.c full_width_hint). *v gets the number, ascii (cap bytes) the part with '-' for
 * the dash and without its spaces ("-1"), *cp and *name the dash's code point and words; 0 for none. */
static int read_dash_index(const char *part, long *v, char *ascii, size_t cap, unsigned *cp, const char **name) {
    const char *p = part + strspn(part, " ");
    size_t k = (size_t)av_utf8_lookalike_dash(p, cp, name);
    if (!k || *cp == 0xFF0D || !isdigit((unsigned char)p[k]) || snprintf(ascii, cap, "-%s", p + k) >= (int)cap ||
        !read_index(ascii, v))
        return 0;
    ascii[strcspn(ascii, " ")] = 0;
    return 1;
}

#define SPAN_END "; name one of them)"
enum { SPAN_FIGS_ROOM = 160 }; /* what the figures' labels keep: the words before them and three labels */

/* " [label_i] ... [label_j]" written into out at w (cap bytes in all) as far as they fit with keep bytes and
 * SPAN_END after them, then " …" where the rest do not: 32 tokens of 我爱学习 cut the list at byte 190, inside
 * a character and before its ")" (from rereading the change). Returns the new w. */
static size_t labels_fit(char *out, size_t cap, size_t w, const char *const *lab, int i, int j, size_t keep) {
    const size_t tail = sizeof SPAN_END + sizeof " \xE2\x80\xA6" + keep;
    for (int k = i; k <= j && w < cap; k++) {
        size_t len = strlen(lab[k]) + 3; /* " [" and "]" */
        if (w + len + (k < j ? tail : sizeof SPAN_END + keep) > cap) {
            return w + (size_t)snprintf(out + w, cap - w, " \xE2\x80\xA6");
        }
        w += (size_t)snprintf(out + w, cap - w, " [%s]", lab[k]);
    }
    return w;
}

/* " (the text spans tokens 4..5: [学] [习]; name one of them)" into out (cap
 * bytes) when text is the text of two or more neighbouring tokens, written
 * together or with one space between; 1 then, else 0 and out "". The tokens
 * are named by their labels: labels->tok[k] (labels NULL: toks->tok[k]), and
 * by figs[k] as well when figs is not NULL (the figures' and the page's
 * labels of parts of a character, tokenize.h av_tokens_piece_labels: "爱(1/3)"). */
static int span_of_shown(char *out, size_t cap, const av_tokens *toks, const av_tokens *labels, char *const *figs,
                         const char *text) {
    if (!labels) labels = toks;
    out[0] = 0;
    size_t n = strlen(text);
    for (int i = 0; i < toks->n; i++)
        for (int glue = 0; glue < 2; glue++) { /* 0: written together, 1: one space between */
            size_t at = 0;
            for (int j = i; j < toks->n; j++) {
                size_t len = toks->tok[j] ? strlen(toks->tok[j]) : 0; /* NULL: a token that stands for no text */
                if (!len) break;
                if (j > i && glue) { /* the typed space, or a model's ␣ that starts the token */
                    if (at < n && text[at] == ' ') at++;
                    else break;
                }
                int typed = at + len <= n && !memcmp(text + at, toks->tok[j], len);
                if (!typed) break;
                at += len;
                if (at == n && j > i) {
                    size_t w = (size_t)snprintf(out, cap, " (the text spans tokens %d..%d:", i, j);
                    w = labels_fit(out, cap, w, (const char *const *)labels->tok, i, j, figs ? SPAN_FIGS_ROOM : 0);
                    if (figs && w < cap) w += (size_t)snprintf(out + w, cap - w, ", which the figures and the page label");
                    if (figs && w < cap) w = labels_fit(out, cap, w, (const char *const *)figs, i, j, 0);
                    if (w < cap) snprintf(out + w, cap - w, "%s", SPAN_END);
                    return 1;
                }
            }
        }
    return 0;
}

static int span_of(char *out, size_t cap, const av_tokens *toks, const char *text) {
    return span_of_shown(out, cap, toks, NULL, NULL, text);
}

/* span_of on the tokens' own texts (toks->text: a --model tokenizer's), the
 * tokens named by their labels: "我" on a --model whose tokenizer split it
 * into [<0xE6>] [<0x88>] [<0x91>] (a toy model's, or GPT-2's two for it),
 * typed alone or after a space. Nothing without texts: the built-in
 * tokenizer's labels are its tokens' text. */
static void byte_spans(char *out, size_t cap, const av_tokens *toks, const char *part) {
    out[0] = 0;
    char *spaced = toks->text ? malloc(strlen(part) + 2) : NULL;
    if (!spaced) return;
    av_tokens own = {.n = toks->n, .tok = toks->text};
    char **figs = NULL; /* "爱(1/3)": how the figures and the page name a part of a character */
    av_err oom;
    if (av_tokens_piece_labels(toks, &figs, &oom) != AV_OK) figs = NULL;
    snprintf(spaced, strlen(part) + 2, " %s", part);
    if (!span_of_shown(out, cap, &own, toks, figs, part)) span_of_shown(out, cap, &own, toks, figs, spaced);
    av_labels_free(figs, toks->n);
    free(spaced);
}

/* span_of for a part as typed, then with its spaces drawn as ␣ (drawn), then
 * with ␣ put in front as well (spaced): "学习", "deep learning", and "1 4" on
 * a --model's "3 1 4 1 5 >", whose tokens carry their space ([␣1] [␣4]). A
 * Chinese reader typed a word of two characters, each its own token. */
static void spans_tokens(char *out, size_t cap, const av_tokens *toks, const char *part, const char *drawn,
                         const char *spaced) {
    if (!span_of(out, cap, toks, part) && !span_of(out, cap, toks, drawn)) span_of(out, cap, toks, spaced);
}

/* The part of s without the separators around it (av_utf8_is_separator, where
 * the tokenizer splits words: ' ', U+3000 that a Chinese input method types
 * after '，', U+00A0): its first byte's offset into *lead, its length returned
 * (0 when s is all separators). */
static size_t core_of(const char *s, size_t *lead) {
    const unsigned char *p = (const unsigned char *)s;
    size_t end = 0;
    *lead = strlen(s);
    while (*p) {
        size_t at = (size_t)(p - (const unsigned char *)s);
        if (!av_utf8_is_separator(av_utf8_next(&p))) {
            if (*lead > at) *lead = at;
            end = (size_t)(p - (const unsigned char *)s);
        }
    }
    return end > *lead ? end - *lead : 0;
}

/* The notes on how the parts of a spec were read, kept in text (each line ending in '\n'; a part that names a
 * token is at most a token long, so the few notes of two parts fit) until the whole spec resolved: av_explain_parse prints them only then. `--explain 3,1,2 "3 1 4 >"` printed
 * "note: --explain query 3 is read as an index" before its "has 3 parts" error, a note on a part it refused. */
typedef struct {
    char text[4096];
} notes;

static void note(notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(notes *nt, const char *fmt, ...) {
    size_t at = strlen(nt->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(nt->text + at, sizeof nt->text - at, fmt, ap);
    va_end(ap);
}

static void use_token(const char *what, const char *part, const char *tok, int i, int more, int added_space,
                      int *out, notes *nt) {
    if (added_space)
        note(nt, "attnviz: note: --explain %s %s is the token %s (index %d): the model's token "
                 "carries its leading space as ␣\n", what, AV_QUOTED_WORD(part, 1100), AV_QUOTED_WORD(tok, 1100), i);
    if (more)
        note(nt, "attnviz: note: --explain %s %s occurs %d times; using the first (index %d); "
                 "give an index to pick another\n", what, AV_QUOTED_WORD(tok, 1100), more + 1, i);
    *out = i;
}

/* "; its '“' and '”' are typed quotes, ...: did you mean '爱' (token 1)?" into out (n bytes) when part starts
 * or ends with a quote that a Chinese input method types with its Chinese punctuation on (“ ” ‘ ’, and the
 * corner brackets 「 」 『 』 of Traditional Chinese and Japanese) or in full-width mode (＂ ＇), or a title mark
 * (《 》 〈 〉) or bracket (【 】 〖 〗 and the full-width ［ ］ （ ）), or ends with a mark typed after a value
 * (av_utf8_trailing_mark: '。' U+3002, '、' U+3001, '；', ...), and the text between names a token (as typed, or
 * with the ␣ of a leading space), or, after a mark alone, is an index (in ASCII or full-width digits; one out of
 * 0..T-1 is named so): `--explain "“爱”,我"` on 我爱你 said only "'“爱”' is neither a token", as "爱。,我",
 * "爱,我。", "「爱」,我", "《爱》,我", "【爱】,我", "1。,2", "1、,2" and "（爱）,我" did (Chinese-speaking learners'
 * passes; the sentence's own quotes get av_note_typed_quotes' note); else "". The shell's quotes are only ASCII. */
static void quote_hint(char *out, size_t n, const av_tokens *toks, const char *part) {
    /* kind 0: “ ” ‘ ’, 1: ＂ ＇ (full-width mode), 2: 《 》 〈 〉 (title marks), 3: 「 」 『 』, 4: 【 】 〖 〗 ［ ］ （ ） */
    static const unsigned kQuote[] = {0x201C, 0x201D, 0x2018, 0x2019, 0xFF02, 0xFF07, 0x300C, 0x300D,
                                      0x300E, 0x300F, 0x300A, 0x300B, 0x3008, 0x3009, 0x3010, 0x3011,
                                      0x3016, 0x3017, 0xFF3B, 0xFF3D, 0xFF08, 0xFF09};
    static const int kKind[] = {0, 0, 0, 0, 1, 1, 3, 3, 3, 3, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4};
    size_t len = strlen(part), open = 0, close = 0, at, stop = 0;
    int kopen = -1, kclose = -1;
    unsigned cp, scp = 0;
    const char *why, *sname = NULL;
    out[0] = 0;
    stop = av_utf8_trailing_mark(part, len, &scp, &sname); /* "爱。": a sentence's full stop; "1、" */
    len -= stop;
    const char *smark = part + len; /* its text, to the NUL */
    at = len;
    int k = av_utf8_decode((const unsigned char *)part, len, &cp, &why);
    for (size_t i = 0; k > 0 && i < sizeof kQuote / sizeof kQuote[0]; i++)
        if (cp == kQuote[i]) open = (size_t)k, kopen = kKind[i];
    while (at > open && ((unsigned char)part[at - 1] & 0xC0) == 0x80) at--; /* the last character's start */
    if (at > open) at--;
    k = at >= open && at < len ? av_utf8_decode((const unsigned char *)part + at, len - at, &cp, &why) : 0;
    for (size_t i = 0; k > 0 && (size_t)k == len - at && i < sizeof kQuote / sizeof kQuote[0]; i++)
        if (cp == kQuote[i]) close = len - at, kclose = kKind[i];
    if ((!open && !close && !stop) || open + close >= len || len > 3 * AV_MAX_TOKEN_BYTES) return;
    char inner[3 * AV_MAX_TOKEN_BYTES + 8], spaced[3 * AV_MAX_TOKEN_BYTES + 16];
    snprintf(inner, sizeof inner, "%.*s", (int)(len - open - close), part + open);
    snprintf(spaced, sizeof spaced, OPEN_BOX "%s", inner);
    int more, i = find_token(toks, inner, &more);
    long v;
    char wide_num[3 * AV_MAX_TOKEN_BYTES + 8];
    if (i < 0) i = find_token(toks, spaced, &more);
    if (i < 0 && stop && !open && !close &&
        (read_index(inner, &v) || read_wide_index(inner, &v, wide_num, sizeof wide_num)) && v >= 0) {
        /* "1。", "１。", "1、": an index with the sentence's full stop or a comma after it */
        if (v < toks->n)
            snprintf(out, n, "; its '%s' (U+%04X) at the end is %s, typed as part of the value: type %ld (token '%s')",
                     smark, scp, sname, v, toks->tok[v] + (toks->tok[v][0] == ' '));
        else /* "5。": the mark named, and the index still out of range */
            snprintf(out, n, "; its '%s' (U+%04X) at the end is %s, typed as part of the value, and without it %ld is "
                     "still outside 0..%d", smark, scp, sname, v, toks->n - 1);
        av_utf8_trim_cut(out);
        return;
    }
    if (i < 0) return;
    char quotes[64], marks[320] = "";
    int wide = kopen == 1 || kclose == 1; /* ＂ ＇ */
    int kind = open && close && kopen != kclose ? 0 : open ? kopen : kclose; /* mixed kinds: "quotes" */
    const char *noun = kind == 2 ? "title mark" : kind == 4 ? "bracket" : "quote";
    if (open && close)
        snprintf(quotes, sizeof quotes, "'%.*s' and '%.*s' are typed %ss", (int)open, part, (int)close, part + at, noun);
    else if (open) snprintf(quotes, sizeof quotes, "'%.*s' is a typed %s", (int)open, part, noun);
    else if (close) snprintf(quotes, sizeof quotes, "'%.*s' is a typed %s", (int)close, part + at, noun);
    if (open || close)
        snprintf(marks, sizeof marks, "its %s, read as part of the text (the shell's quotes are only the ASCII \" and "
                 "'%s)%s%s%s", quotes, wide ? ", which an input method's full-width mode types as ＂ and ＇"
                 : kopen > 0 || kclose > 0 ? ""
                                           : ", which a Chinese input method types as “ ” and ‘ ’ with its Chinese "
                                             "punctuation on",
                 stop ? ", and its '" : "", stop ? smark : "", stop ? "' at the end is typed too" : "");
    else snprintf(marks, sizeof marks, "its '%s' (U+%04X) at the end is %s, typed as part of the value", smark, scp,
                  sname);
    snprintf(out, n, "; %s: did you mean %s (token %d)?", marks,
             AV_QUOTED_WORD(toks->tok[i] + (toks->tok[i][0] == ' '), 1100), i);
    av_utf8_trim_cut(out); /* a long token cut between characters, not inside one */
}

/* "the token '1' is index 0; the token '␣1' is index 2 (...)" into which
 * (cap bytes): where the first token whose text is the number v, without or
 * with its space, is, when that is not index v; "" when there is none. */
static void number_tokens(char *which, size_t cap, const av_tokens *toks, long v) {
    char digits[32], spaced[40];
    snprintf(digits, sizeof digits, "%ld", v);
    snprintf(spaced, sizeof spaced, OPEN_BOX "%ld", v);
    int plain = -1, sp = -1;
    for (int j = 0; j < toks->n; j++) {
        if (plain < 0 && strcmp(toks->tok[j], digits) == 0) plain = j;
        if (sp < 0 && strcmp(toks->tok[j], spaced) == 0) sp = j;
    }
    plain = plain == v ? -1 : plain, sp = sp == v ? -1 : sp;
    which[0] = 0;
    if (plain >= 0) snprintf(which, cap, "the token '%s' is index %d", digits, plain);
    if (sp >= 0)
        snprintf(which + strlen(which), cap - strlen(which), "%sthe token '%s' is index %d (pick it by its text: "
                 "'%s' or ' %s')", plain >= 0 ? "; " : "", spaced, sp, spaced, digits);
}

/* find_token among the labels the figures and the page draw where a token holds part of a character
 * (tokenize.h av_tokens_piece_labels: GPT-2's "爱" is [爱(1/3)] [爱(2/3)] [爱(3/3)], the trace's
 * [<0xE7>] [<0x88>] [<0xB1>]): drawn as typed, then spaced, with ␣ in front (*added 1): "深(1/3)"
 * finds "␣深(1/3)". -1 when none is, or no token holds a part. A reader named a token as the heat
 * map's axis labels it, and was told it was no token. */
static int find_figure_label(const av_tokens *toks, const char *drawn, const char *spaced, int *more, int *added) {
    char **figs = NULL;
    av_err oom;
    *added = 0;
    if (av_tokens_piece_labels(toks, &figs, &oom) != AV_OK || !figs) return -1;
    av_tokens shown = {.n = toks->n, .tok = figs};
    int i = find_token(&shown, drawn, more);
    if (i < 0 && (i = find_token(&shown, spaced, more)) >= 0) *added = 1;
    av_labels_free(figs, toks->n);
    return i;
}

/* drawn with the "(k/n)" of a part of a character as a Chinese input method types it, "爱（1/2）",
 * "爱（１／２）", "爱（1、2）" (its punctuation mode types / as 、), written as the figures write it,
 * "爱(1/2)", into out (cap bytes): the text from the last '(' or '（' (U+FF08) on, its full-width forms
 * as ASCII (av_utf8_halfwidth) and 、 (U+3001) as '/'. 1 when that changed something, else 0 (also when
 * that text holds another non-ASCII character). A learner typed the heat map's label with the input
 * method on and was told only "'爱（1/2）' is neither a token of the sentence". */
static int ascii_part_suffix(char *out, size_t cap, const char *drawn) {
    const char *open = NULL;
    for (const char *c = drawn; *c; c++)
        if (*c == '(' || !strncmp(c, "\xEF\xBC\x88", 3)) open = c;
    if (!open || (size_t)(open - drawn) + 1 > cap) return 0;
    size_t k = (size_t)(open - drawn), len = strlen(open);
    memcpy(out, drawn, k);
    int changed = 0;
    for (const unsigned char *u = (const unsigned char *)open; *u;) {
        unsigned cp;
        const char *why;
        int n = av_utf8_decode(u, len - (size_t)(u - (const unsigned char *)open), &cp, &why);
        if (n <= 0 || k + 2 > cap) return 0;
        u += n;
        if (cp < 0x80) out[k++] = (char)cp;
        else if (av_utf8_halfwidth(cp)) out[k++] = (char)av_utf8_halfwidth(cp), changed = 1;
        else if (cp == 0x3001) out[k++] = '/', changed = 1;
        else return 0;
    }
    out[k] = 0;
    return changed;
}

/* For a part written as the figures label a part of a character, "爱(4/3)", whose "(k/n)" (or "（4/3）" as a
 * Chinese input method types it) names no token: what the text before it is, into out (cap bytes), as the part
 * without the "(k/n)" is told: " (the text '爱' spans tokens 3..5: [<0xE7>] [<0x88>] [<0xB1>], which the figures
 * and the page label [爱(1/3)] [爱(2/3)] [爱(3/3)]; name one of them)" (byte_spans), or " (the text '爱' is
 * token 1, a whole token: name it without the '(4/3)')" when a token is that text (as typed or with ␣ in front),
 * or " (the text '我爱' spans tokens 0..1: [我] [爱]; name one of them)" for text of whole tokens (spans_tokens);
 * else "". On a byte-level --model "爱(4/3),我" said only "neither a token of the sentence nor an index", where
 * "爱,我" named its 3 tokens; "我爱(1/3)" likewise where "我爱" named its 2. Spaces before the bracket are
 * left out ("爱 (1/3)"). */
static void piece_hint(char *out, size_t cap, const av_tokens *toks, const char *part) {
    const char *open = NULL;
    out[0] = 0;
    for (const char *c = part; *c; c++)
        if (*c == '(' || !strncmp(c, "\xEF\xBC\x88", 3)) open = c; /* '(' or '（' (U+FF08) */
    size_t len = strlen(part);
    if (!open || open == part || !((part[len - 1] == ')' && open[0] == '(') ||
                                   (len >= 3 && !strcmp(part + len - 3, "\xEF\xBC\x89"))))
        return;
    char base[AV_MAX_TOKEN_BYTES * 4 + 8], spaced[sizeof base + 4], span[400], quoted[200];
    int more, i, k = snprintf(base, sizeof base, "%.*s", (int)(open - part), part);
    if (k < 0 || (size_t)k >= sizeof base) return;
    while (k > 0 && base[k - 1] == ' ') base[--k] = 0; /* "爱 (1/3)": the space before the bracket */
    if (!k) return;
    snprintf(spaced, sizeof spaced, OPEN_BOX "%s", base);
    const char *suffix = AV_QUOTED_WORD(open, 200);
    if ((i = find_token(toks, base, &more)) >= 0 || (i = find_token(toks, spaced, &more)) >= 0) {
        snprintf(out, cap, " (the text %s is token %d, a whole token: name it without the %s)",
                 AV_QUOTED_WORD(base, 200), i, suffix);
        return;
    }
    /* byte_spans' list cut to what out holds after the name, so its ")" stays */
    size_t room = cap - strlen(av_quoted_word(quoted, sizeof quoted, base)) - 1;
    if (room > cap || room < sizeof " (the text " + 1) return;
    spans_tokens(span, room < sizeof span ? room : sizeof span, toks, base, base, spaced); /* "我爱(1/3)": 2 tokens */
    if (!span[0]) byte_spans(span, room < sizeof span ? room : sizeof span, toks, base);
    size_t at = (size_t)snprintf(out, cap, " (the text %s ", quoted);
    if (strncmp(span, " (the text ", 11) || at >= cap) out[0] = 0;
    else memcpy(out + at, span + 11, strlen(span + 11) + 1); /* fits: room above */
}

/* One part of QUERY,KEY. A token label draws a space as ␣ (GPT-2's " love" is
 * "␣love"), so a part with spaces is first tried with them drawn as ␣ (" 5"
 * finds "␣5", as "␣5" typed does). Then a whole number is an index (with a
 * note when a token's text is that number, with or without its space, saying
 * how to pick the token, and the same words in the error for an index out of
 * range); then the text as typed; then with ␣ put in front
 * ("love" finds "␣love"); then as the figures label a part of a character
 * ("爱(3/3)", find_figure_label), also with its "(k/n)" typed by a Chinese input method ("爱（3/3）",
 * ascii_part_suffix); then full-width digits, refused with their half-width
 * form (as --heads ８ is); then the part without the
 * separators around it (core_of: ' ', U+3000, U+00A0; "爱，　习" as a Chinese
 * input method types it). */
static av_status resolve(const char *part, const av_tokens *toks, const char *what, int *out, notes *nt,
                         av_err *err) {
    size_t n = strlen(part);
    char *drawn = malloc(3 * n + 4), *spaced = malloc(3 * n + 4);
    if (!drawn || !spaced) return free(drawn), free(spaced), av_fail(err, AV_ERUNTIME, "out of memory");
    char *d = drawn;
    for (const char *c = part; *c; c++) {
        if (*c == ' ') memcpy(d, OPEN_BOX, 3), d += 3;
        else *d++ = *c;
    }
    *d = 0;
    snprintf(spaced, 3 * n + 4, OPEN_BOX "%s", drawn);
    av_status st = AV_OK;
    long v;
    int i, more, added = 0;
    char typed[AV_MAX_TOKEN_BYTES * 4 + 8], typed_spaced[AV_MAX_TOKEN_BYTES * 4 + 16]; /* "爱(1/2)" for "爱（1/2）" */
    unsigned dash = 0; /* "−1": read_dash_index's dash and its words */
    const char *dash_name = "";
    size_t lead, core = core_of(part, &lead); /* the part without the separators around it */
    if (strchr(part, ' ') && (i = find_token(toks, drawn, &more)) >= 0) {
        use_token(what, part, drawn, i, more, 0, out, nt);
    } else if (read_index(part, &v)) {
        const char *num = part + strspn(part, " "); /* "1, 3": the 3 as typed, without its space */
        char which[200];
        number_tokens(which, sizeof which, toks, v);
        if (v < 0 || v >= toks->n) { /* the note's hint too: "3,1" on "3 1 >" meant the token 3 */
            char numq[SHOWN_COLS * 4];
            st = av_fail(err, AV_EUSAGE, "--explain %s index %s is outside 0..%d (T = %d token%s)%s%s", what,
                         shown(numq, sizeof numq, num, strcspn(num, " ")), toks->n - 1, toks->n,
                         toks->n == 1 ? "" : "s", which[0] ? "; " : "", which);
        } else {
            if (which[0])
                note(nt, "attnviz: note: --explain %s %.*s is read as an index; %s\n", what, (int)strcspn(num, " "),
                     num, which);
            *out = (int)v;
        }
    } else if ((i = find_token(toks, drawn, &more)) >= 0) {
        use_token(what, part, drawn, i, more, 0, out, nt);
    } else if ((i = find_token(toks, spaced, &more)) >= 0) {
        use_token(what, part, spaced, i, more, 1, out, nt);
    } else if ((i = find_figure_label(toks, drawn, spaced, &more, &added)) >= 0) {
        use_token(what, part, added ? spaced : drawn, i, more, added, out, nt);
    } else if (ascii_part_suffix(typed, sizeof typed - 3, drawn) &&
               (snprintf(typed_spaced, sizeof typed_spaced, OPEN_BOX "%s", typed),
                i = find_figure_label(toks, typed, typed_spaced, &more, &added)) >= 0) {
        use_token(what, part, added ? typed_spaced : typed, i, more, added, out, nt);
    } else if (read_wide_index(part, &v, typed, sizeof typed)) {
        /* "--explain 0,１" was read as 0,1 where "--heads ８" is refused with the half-width form (a maintainer's
         * list of known faults): every number option, in a list or not, takes ASCII digits only */
        char partq[SHOWN_COLS * 4], why[400];
        const char *num = part + strspn(part, " "); /* "0, ５": the ５ as typed, without its space */
        int in = v >= 0 && v < toks->n;
        if (in) snprintf(why, sizeof why, "type the half-width %s, 半角", typed);
        else snprintf(why, sizeof why, "and as the half-width %s it is outside 0..%d too: T = %d token%s", typed,
                      toks->n - 1, toks->n, toks->n == 1 ? "" : "s");
        st = av_fail(err, AV_EUSAGE, "--explain %s %s is neither a token of the sentence nor an index 0..%d (it is "
                     "typed in full-width characters%s%s)", what, shown_word(partq, sizeof partq, num, strcspn(num, " ")),
                     toks->n - 1, in ? ": " : ", ", why);
    } else if (read_dash_index(part, &v, typed, sizeof typed, &dash, &dash_name)) {
        /* "--explain −1,0": a negative index typed with the figures' minus sign said only "is neither a token of
         * the sentence nor an index", where "-1" is told that it is outside 0..T-1 */
        char partq[SHOWN_COLS * 4], why[400];
        const char *num = part + strspn(part, " ");
        if (v >= 0 && v < toks->n) snprintf(why, sizeof why, ": type the ASCII hyphen-minus: %s", typed);
        else snprintf(why, sizeof why, ", not the ASCII hyphen-minus, and as %s it is outside 0..%d too: T = %d token%s",
                      typed, toks->n - 1, toks->n, toks->n == 1 ? "" : "s");
        st = av_fail(err, AV_EUSAGE, "--explain %s %s is neither a token of the sentence nor an index 0..%d ('%.3s' "
                     "(U+%04X) is %s%s)", what, shown_word(partq, sizeof partq, num, strcspn(num, " ")), toks->n - 1,
                     num, dash, dash_name, why);
    } else if (core && core < n) { /* "爱, 习", "爱，　习": a space after the comma */
        char *trimmed = strndup(part + lead, core);
        st = trimmed ? resolve(trimmed, toks, what, out, nt, err) : av_fail(err, AV_ERUNTIME, "out of memory");
        free(trimmed);
    } else {
        char span[400] = "", partq[SHOWN_COLS * 4]; /* a comma in the part: comma_hint says more */
        size_t sep;
        quote_hint(span, sizeof span, toks, part); /* "“爱”" */
        if (!span[0] && !av_utf8_list_sep(part, &sep)) spans_tokens(span, sizeof span, toks, part, drawn, spaced);
        if (!span[0] && !av_utf8_list_sep(part, &sep)) byte_spans(span, sizeof span, toks, part);
        if (!span[0] && !av_utf8_list_sep(part, &sep)) piece_hint(span, sizeof span, toks, part); /* "爱(4/3)" */
        if (!span[0]) case_hint(span, sizeof span, toks, drawn, spaced);
        char num[64]; /* "爱,五": an index in Chinese numerals, refused as --heads 八 is, with its digits */
        if (!span[0] && av_utf8_chinese_number(num, sizeof num, part, 0)) {
            long k = strtol(num, NULL, 10);
            if (k >= 0 && k < toks->n)
                snprintf(span, sizeof span, " (it is written in Chinese numerals: type the digits %s, 阿拉伯数字)", num);
            else snprintf(span, sizeof span, " (it is written in Chinese numerals, and as the digits %s it is outside "
                          "0..%d too: T = %d token%s)", num, toks->n - 1, toks->n, toks->n == 1 ? "" : "s");
        }
        char post[32]; /* "爱,5个", "爱,五个": an index with a measure word after it, as --heads 8个 */
        int chinese = 0;
        if (!span[0] && av_number_with_words(part, 0, num, sizeof num, &chinese, post)) {
            long k = strtol(num, NULL, 10);
            char range[64] = "";
            if (k < 0 || k >= toks->n)
                snprintf(range, sizeof range, "outside 0..%d too: T = %d token%s", toks->n - 1, toks->n,
                         toks->n == 1 ? "" : "s");
            if (chinese == 2 && !range[0]) /* "爱,１个": full-width digits */
                snprintf(span, sizeof span, " (the %s after the number is not part of it, and it is typed in "
                         "full-width characters: type the half-width %s, 半角)", post, num);
            else if (chinese == 2) snprintf(span, sizeof span, " (the %s after the number is not part of it, and it "
                                            "is typed in full-width characters: as the half-width %s it is %s)", post,
                                            num, range);
            else if (!chinese && !range[0])
                snprintf(span, sizeof span, " (the %s after the number is not part of it: type %s)", post, num);
            else if (!chinese) snprintf(span, sizeof span, " (the %s after the number is not part of it, and %s is %s)",
                                        post, num, range);
            else if (!range[0]) snprintf(span, sizeof span, " (the %s after the number is not part of it, and it is "
                                         "written in Chinese numerals: type the digits %s, 阿拉伯数字)", post, num);
            else snprintf(span, sizeof span, " (the %s after the number is not part of it, and it is written in Chinese "
                          "numerals: as the digits %s it is %s)", post, num, range);
        }
        if (!span[0]) av_ordinal_hint(span, sizeof span, NULL, part, toks->n - 1); /* "第一个": index 0 */
        char other[AV_MAX_TOKEN_BYTES * 4 + 8]; /* "爱,習" on 我爱学习: the sentence's 习 in the other form */
        int j, dup;
        for (int simp = 1; !span[0] && simp >= 0; simp--) { /* to simplified, then to traditional: "學习", "学習" */
            if (!av_utf8_han_form(other, sizeof other, drawn, simp)) continue;
            char sp[400], *rest = sp + strlen(" (the text "), written[96];
            if (av_utf8_han_form(sp, sizeof sp, drawn, !simp)) /* "學习": both forms in it */
                snprintf(written, sizeof written, "it mixes traditional and simplified characters, the sentence is in "
                         "%s", simp ? "simplified" : "traditional");
            else snprintf(written, sizeof written, "it is written in %s characters, the sentence in %s",
                          simp ? "traditional" : "simplified", simp ? "simplified" : "traditional");
            if ((j = find_token(toks, other, &dup)) >= 0)
                snprintf(span, sizeof span, " (%s: %s is token %d)", written, AV_QUOTED_WORD(toks->tok[j], 200), j);
            else { /* "爱,學習": 学习 is two tokens, 学 and 习; span_of's list cut to what span holds after the words
                    * before it, so its ")" stays (a %.190s cut it, and a character in it, on 32 tokens) */
                int k = snprintf(span, sizeof span, " (%s: %s ", written, AV_QUOTED_WORD(other, 120));
                size_t room = sizeof span - (size_t)k + (size_t)(rest - sp);
                if (k < 0 || (size_t)k >= sizeof span || !span_of(sp, room < sizeof sp ? room : sizeof sp, toks, other))
                    span[0] = 0;
                else
                    snprintf(span + k, sizeof span - (size_t)k, "%s", rest);
            }
        }
        if (!span[0] && !av_utf8_list_sep(part, &sep)) near_hint(span, sizeof span, toks, drawn);
        st = av_fail(err, AV_EUSAGE, "--explain %s %s is neither a token of the sentence nor an index 0..%d%s", what,
                     shown_word(partq, sizeof partq, part, n), toks->n - 1, span);
    }
    free(drawn);
    free(spaced);
    return st;
}

/* The e.g. of an --explain form error, from the sentence's own tokens (toks; NULL: not known) into out (cap bytes):
 * query 1 and key 3, or key 0 below 4 tokens (query 0 for one token), as indices and, when both tokens can be typed
 * as a part (text that is not a number, with no ',', '，' or space, each once in the sentence), as text: "1,3 or
 * 爱,度" on 我爱深度学习, "1,3 or love,learning" on I love deep learning, "1,0" on "3 1". Without toks the English
 * example "1,3 or love,learning". `--explain 爱 我爱深度学习` gave that English one, which a learner cannot paste. */
static void explain_example(char *out, size_t cap, const av_tokens *toks) {
    if (!toks || toks->n < 1) {
        snprintf(out, cap, "1,3 or love,learning");
        return;
    }
    int q = toks->n > 1 ? 1 : 0, k = toks->n > 3 ? 3 : 0, typable = q != k;
    const char *text[2];
    for (int i = 0; i < 2; i++) {
        const char *t = toks->tok[i ? k : q];
        if (strncmp(t, "\xE2\x90\xA3", 3) == 0) t += 3; /* "␣love" */
        text[i] = t;
        int dup = 0;
        for (int j = 0; j < toks->n; j++) dup += strcmp(toks->tok[j], toks->tok[i ? k : q]) == 0;
        typable &= *t && dup == 1 && t[strspn(t, "0123456789")] && !strpbrk(t, ", \t") && !strstr(t, "，") &&
                   !strstr(t, "\xE3\x80\x80") && strlen(t) < cap / 3;
    }
    if (typable) snprintf(out, cap, "%d,%d or %s,%s", q, k, text[0], text[1]);
    else snprintf(out, cap, "%d,%d", q, k);
}

/* A spec of two or more separators that fails on a sentence with a comma token ("a,,b" on "a , b": query a, key
 * ",b"): the error then says where it splits and how to name the comma (as the whole part, or by its index);
 * err->msg is extended, st returned. */
static av_status comma_hint(av_status st, const char *spec, const av_tokens *toks, av_err *err) {
    int seps = 0;
    size_t len = 0;
    for (const char *c = av_utf8_list_sep(spec, &len); c; c = av_utf8_list_sep(c + len, &len)) seps++;
    if (!st || seps < 2) return st;
    for (int i = 0; i < toks->n; i++) {
        const char *t = toks->tok[i];
        if (strncmp(t, "\xE2\x90\xA3", 3) == 0) t += 3; /* "␣," */
        else if (*t == ' ') t++;
        if (strcmp(t, ",") && strcmp(t, "\xEF\xBC\x8C")) continue;
        /* the message already names this token (case_hint: "',' ... '，' is token 2"): the e.g. alone, where
         * "--explain ,,好" on 你好，世界 said token 2 twice in two sentences */
        char named[1200];
        size_t nl = (size_t)snprintf(named, sizeof named, "%s is token %d", AV_QUOTED_WORD(toks->tok[i], 1100), i),
               ml = strlen(err->msg);
        if (nl < sizeof named && ml >= nl && strcmp(err->msg + ml - nl, named) == 0) {
            av_fail_append(err, " (e.g. --explain %s,KEY or --explain %d,KEY)", t, i);
            return st;
        }
        av_fail_append(err, "; QUERY,KEY splits at the first ',' or '，' after QUERY, so a comma token is the "
                       "whole of its part or its index: the sentence's %s is token %d (e.g. --explain %s,KEY or "
                       "--explain %d,KEY)", toks->tok[i], i, t, i);
        return st;
    }
    /* no comma token, so "爱,习,深" or "1,5,2" is three parts, not a key '习,深' that is no token (a Chinese-speaking
     * learner's pass); "1,2," or "1,,2" has an empty one: a comma too many */
    int empty = 0;
    const char *from = spec;
    for (const char *c = av_utf8_list_sep(spec, &len);; c = av_utf8_list_sep(c + len, &len)) {
        const char *to = c ? c : spec + strlen(spec), *p = from;
        while (p < to && (*p == ' ' || *p == '\t')) p++;
        empty |= p == to;
        if (!c) break;
        from = c + len;
    }
    char specq[SHOWN_COLS * 4], eg[2 * AV_MAX_TOKEN_BYTES + 64];
    shown_word(specq, sizeof specq, spec, strlen(spec));
    explain_example(eg, sizeof eg, toks);
    if (empty)
        return av_fail(err, AV_EUSAGE, "--explain %s has an empty part (a comma too many?); it takes one pair "
                       "QUERY,KEY (token indices or token text), e.g. %s", specq, eg);
    return av_fail(err, AV_EUSAGE, "--explain %s has %d parts; it takes one pair QUERY,KEY (token indices or "
                   "token text), e.g. %s: run it once for each pair", specq, seps + 1, eg);
}

/* 1 if the separator at comma (sep bytes, or comma NULL) leaves a part on each side of spec. */
static int two_parts(const char *spec, const char *comma, size_t sep) { return comma && comma != spec && comma[sep]; }

/* The space that splits spec in two parts, named for a message ("the ideographic space '　' (U+3000)"), or NULL:
 * the ideographic space U+3000 (what a Chinese input method's space bar types in full-width mode) or ' ', one
 * run of them with text on both sides ("爱　习", "1 3"); " 1", "1 " and three parts ("the cat sat") have none. */
static const char *space_between(const char *spec) {
    const char *which = NULL, *run = NULL; /* run: the name of the spaces just passed, after some text */
    int text = 0, splits = 0;
    for (const char *p = spec; *p;) {
        size_t k = *p == ' ' ? 1 : strncmp(p, "\xE3\x80\x80", 3) == 0 ? 3 : 0;
        if (k) {
            if (text && !run) run = k == 1 ? "the space ' '" : "the ideographic space '\xE3\x80\x80' (U+3000)";
            p += k;
            continue;
        }
        if (run) which = run, splits++, run = NULL;
        text = 1;
        p++;
    }
    return splits == 1 ? which : NULL;
}

/* The "must be QUERY,KEY" error for spec, its e.g. from toks (explain_example; NULL: not known); spaces: a space
 * that splits it in two may be named as typed for the comma (not when spec may be the sentence itself). */
static av_status form_error(const char *spec, const char *comma, int spaces, const av_tokens *toks, av_err *err) {
    const char *nonsep = av_utf8_not_a_list_sep(spec); /* 、 ； ; : what is typed for a comma that is none */
    if (!nonsep && spaces) nonsep = space_between(spec); /* "爱　习": the space bar typed for the comma */
    char specq[SHOWN_COLS * 4], eg[2 * AV_MAX_TOKEN_BYTES + 64];
    shown_word(specq, sizeof specq, spec, strlen(spec));
    explain_example(eg, sizeof eg, toks);
    return av_fail(err, AV_EUSAGE, "--explain %s must be QUERY,KEY (token indices or token text), e.g. "
                   "%s%s%s%s", specq, eg, !comma && nonsep ? "; " : "", !comma && nonsep ? nonsep : "",
                   !comma && nonsep ? " does not separate them: type ',' or '，'" : "");
}

av_status av_explain_check_form(const char *spec, int may_be_text, const av_tokens *toks, av_err *err) {
    size_t sep = 0, len = 0;
    const char *comma = av_utf8_list_sep(spec, &sep); /* ',' or '，' */
    if (comma && av_utf8_list_sep(comma + sep, &len)) return AV_OK; /* two or more: the comma hint needs tokens */
    return two_parts(spec, comma, sep) ? AV_OK : form_error(spec, comma, !may_be_text, toks, err);
}

/* The ',' or '，' that splits spec into QUERY and KEY: the first with text before it, so a comma token is named
 * by its text on either side ("，,好" and "好,，" on 你好，世界; the key's "好,，" was taken where the query's
 * "，,好" was refused: a Chinese-speaking learner's pass); *sep gets its length. NULL when there is none. */
static const char *query_end(const char *spec, size_t *sep) {
    const char *comma = av_utf8_list_sep(spec, sep);
    if (comma == spec) {
        size_t next = 0;
        const char *after = av_utf8_list_sep(spec + *sep, &next);
        if (after) comma = after, *sep = next;
    }
    return comma;
}

/* av_explain_parse without comma_hint's addition. */
static av_status explain_parse(const char *spec, const av_tokens *toks, int *qi, int *kj, notes *nt, av_err *err) {
    size_t sep = 0;
    const char *comma = query_end(spec, &sep); /* ',' or '，' */
    char specq[SHOWN_COLS * 4];
    shown_word(specq, sizeof specq, spec, strlen(spec));
    if (!two_parts(spec, comma, sep)) return form_error(spec, comma, 1, toks, err);
    char q[256];
    size_t n = (size_t)(comma - spec);
    if (n >= sizeof q)
        return av_fail(err, AV_EUSAGE, "--explain %s: the query part is too long (%zu bytes; at most %zu)", specq, n,
                       sizeof q - 1);
    memcpy(q, spec, n);
    q[n] = 0;
    av_status st = resolve(q, toks, "query", qi, nt, err);
    if (st) return st;
    return resolve(comma + sep, toks, "key", kj, nt, err);
}

av_status av_explain_locate(const char *spec, const av_tokens *toks, int *qi, int *kj) {
    notes nt = {""}; /* dropped: av_explain_parse printed them */
    return explain_parse(spec, toks, qi, kj, &nt, NULL);
}

av_status av_explain_parse(const char *spec, const av_tokens *toks, int *qi, int *kj, av_err *err) {
    notes nt = {""};
    av_status st = comma_hint(explain_parse(spec, toks, qi, kj, &nt, err), spec, toks, err);
    if (!st && nt.text[0]) av_message(stderr, "%s", nt.text); /* a spec that failed: its error alone */
    return st;
}

/* How print_vec prints the n numbers of v (the 4 first and the last of more than 6): returns 1 for scientific
 * notation, av_numpy_sci over the entries it shows, else 0 with *digits, the digits after the point
 * (av_numpy_digits: precision, or more when its largest entry would print as 0). */
static int vec_format(const float *v, int n, int precision, int *digits) {
    int show = n > 6 ? 4 : n;
    double big = 0.0;
    for (int d = 0; d < n; d++) {
        if (d == show) d = n - 1;
        double a = fabs((double)v[d]);
        if (isfinite(a) && a > big) big = a;
    }
    int sci = av_numpy_sci(big);
    *digits = sci ? precision : av_numpy_digits(big, precision);
    return sci;
}

/* Print v (n numbers) as [ 0.1395  0.0115 … -0.4949], one notation for the whole vector (vec_format): fixed
 * point with precision digits (more when its largest entry would print as 0: --precision 0 printed [-0 -0 …]
 * and then [-2e-02 -1e-01 …]), or scientific (3.0000e+12, every entry the same width) when an entry is ≥ 1e8
 * or when every entry is below 1e-4 (A·v_j of a weight of 2.4e-13 printed "= [ 0.0000 -0.0000 …]"); an entry
 * that prints as zero has no minus sign (av_format_number). */
static void print_vec(FILE *f, const float *v, int n, int precision) {
    int show = n > 6 ? 4 : n, digits, sci = vec_format(v, n, precision, &digits);
    char buf[64];
    fputc('[', f);
    for (int d = 0; d < show; d++) {
        av_format_number(buf, sizeof buf, v[d], digits, sci);
        fprintf(f, "%s%s", d ? " " : "", buf);
    }
    if (show < n) {
        av_format_number(buf, sizeof buf, v[n - 1], digits, sci);
        fprintf(f, " … %s", buf);
    }
    fputc(']', f);
}

/* v as av_format_number prints it, without the space a positive sign takes (a term "(0.3538)", "(-0.0378)") */
static const char *term_text(char buf[64], double v, int digits, int sci) {
    av_format_number(buf, 64, v, digits, sci);
    return buf[0] == ' ' ? buf + 1 : buf;
}

/* Print q·k = Σ_d q[d]·k[d] (D terms) with partial sums at powers of two,
 * accumulated in double; returns it. The terms take q's and k's notation of
 * the lines above (vec_format), the partial sums one of their own (av_numpy_sci
 * and av_numpy_digits of the largest), except that a sum that is not 0 but
 * would print as 0 there takes more digits, or scientific notation below 1e-4,
 * as one number (vec_format). A fixed-point term takes the most digits a
 * fixed-point sum of the terms shown (d<1, d<2, d<3) has when that is more
 * than its vector's, and more while the products of the printed numbers miss
 * those sums by more than a unit of their last digit, so the terms add up
 * on a calculator: --precision 0 printed "(0)(1) + (0)(0) + …" above
 * "d<1: -0.4  d<2: -0.5" (q[0] = -0.47 printed as 0); now "(-0.5)(0.8) + …". */
static double explain_dot(FILE *f, const float *q, const float *k, int D, int precision) {
    double dot = 0.0;
    int qd, kd, qs = vec_format(q, D, precision, &qd), ks = vec_format(k, D, precision, &kd);
    char qb[64], kb[64];
    double part[34]; /* one at each power of two and the last: at most 33 for D < 2^32 */
    int at[34], n = 0, next = 1;
    double big = 0.0;
    for (int d = 0; d < D; d++) {
        dot += (double)q[d] * (double)k[d];
        if (d + 1 == next || d + 1 == D) {
            part[n] = dot;
            at[n++] = d + 1;
            if (isfinite(dot) && fabs(dot) > big) big = fabs(dot);
            next *= 2;
        }
    }
    int sci = av_numpy_sci(big), digits = sci ? precision : av_numpy_digits(big, precision);
    int pd[34], ps[34], most = -1; /* each sum's digits and notation; the most digits of a fixed-point one */
    for (int i = 0; i < n; i++) {
        /* a sum that is not 0 but would print as 0 takes its own notation, as the weight's does (vec_format of
         * the one number, in double): --precision 0 printed "d<2: 1  d<4: 0" and then "= 0.000488368465" */
        pd[i] = digits, ps[i] = sci;
        const char *t = term_text(qb, part[i], digits, sci);
        if (!sci && part[i] != 0.0 && isfinite(part[i]) && strspn(t, "-0.") == strlen(t)) {
            ps[i] = av_numpy_sci(fabs(part[i]));
            pd[i] = ps[i] ? precision : av_numpy_digits(fabs(part[i]), digits);
        }
        if (!ps[i] && pd[i] > most && at[i] <= 3) most = pd[i]; /* a sum of the terms shown */
    }
    if (!qs && most > qd) qd = most;
    if (!ks && most > kd) kd = most;
    /* fixed-point terms take one more digit at a time (up to 6, about all a float32 holds) until the products of
     * the numbers printed add up to each sum of the terms shown within one unit of its last digit (half a unit
     * for a whole number: "(0)(3)" over "d<1: 1" misses by 0.95, 0.4 × 2.7) */
    for (int more = 0; more < 6 && ((!qs && qd < 6) || (!ks && kd < 6)); more++) {
        double acc = 0.0;
        int ok = 1;
        for (int d = 0, i = 0; d < D && d < 3 && i < n; d++) {
            acc += strtod(term_text(qb, q[d], qd, qs), NULL) * strtod(term_text(kb, k[d], kd, ks), NULL);
            if (at[i] != d + 1) continue;
            if (!ps[i] && isfinite(part[i]) && fabs(acc - part[i]) > (pd[i] ? 1.0 : 0.5) * pow(10.0, -pd[i])) ok = 0;
            i++;
        }
        if (ok) break;
        qd += !qs && qd < 6, kd += !ks && kd < 6;
    }
    fprintf(f, "  q·k = Σ_d q[d]·k[d] = ");
    for (int d = 0; d < D && d < 3; d++)
        fprintf(f, "%s(%s)(%s)", d ? " + " : "", term_text(qb, q[d], qd, qs), term_text(kb, k[d], kd, ks));
    if (D > 3) fprintf(f, " + …");
    fprintf(f, "\n        partial sums:");
    for (int i = 0; i < n; i++) fprintf(f, "  d<%d: %s", at[i], term_text(qb, part[i], pd[i], ps[i]));
    fprintf(f, "\n        = %.9g\n", dot);
    return dot;
}

/* --explain's softmax table prints every key of a row up to EXPLAIN_ROWS keys (as --show's 48 rows). */
enum { EXPLAIN_ROWS = 48, EXPLAIN_NEAR = 3, EXPLAIN_TOP = 8 };

/* Which keys of a long row the table prints (T bytes, 1 = printed; NULL when out of memory, and then
 * every key is): the keys within EXPLAIN_NEAR of the key kj and of the query qi, and the EXPLAIN_TOP
 * largest visible weights (the first of equal ones). */
static unsigned char *explain_keep(const float *a_row, const unsigned char *m_row, int T, int qi, int kj) {
    unsigned char *keep = calloc((size_t)T, 1);
    if (!keep) return NULL;
    for (int d = -EXPLAIN_NEAR; d <= EXPLAIN_NEAR; d++) {
        if (kj + d >= 0 && kj + d < T) keep[kj + d] = 1;
        if (qi + d >= 0 && qi + d < T) keep[qi + d] = 1;
    }
    int top[EXPLAIN_TOP], n = 0; /* indices, largest weight first */
    for (int j = 0; j < T; j++) {
        if (m_row[j]) continue;
        int at = n;
        while (at > 0 && a_row[j] > a_row[top[at - 1]]) at--;
        if (at >= EXPLAIN_TOP) continue;
        if (n < EXPLAIN_TOP) n++;
        memmove(top + at + 1, top + at, (size_t)(n - 1 - at) * sizeof top[0]);
        top[at] = j;
    }
    for (int t = 0; t < n; t++) keep[top[t]] = 1;
    return keep;
}

/* How the contribution line prints the weight w (a softmax weight, 0 <= w <= 1): as print_vec prints the one
 * number (vec_format: --precision digits, more when it would round to 0, scientific below 1e-4), but a w strictly
 * between 0 and 1 takes at least 2 significant digits and never prints as a whole number: --precision 0 printed
 * "A·v_2 = 1 × [ 1 -2  1  1 …] = [ 1 -1  0  1 …]" for a weight of 0.5615, where 1 × v is not the result (a
 * learner's pass), and 0.0732 as "0.1". Returns 1 for scientific notation (with at least 1 digit after the
 * point, 2.4e-13), else 0, and *digits, the digits after the point (at most 9, float32's 0.99999994 needs 8). */
static int weight_format(double w, int precision, int *digits) {
    float wf = (float)w;
    int sci = vec_format(&wf, 1, precision, digits);
    if (!(w > 0 && w < 1)) return sci;
    if (sci) {
        if (*digits < 1) *digits = 1;
        return sci;
    }
    char buf[64];
    for (; *digits < 9; ++*digits) { /* "0." then 2 significant digits; not "1", "1.0", "1.00" … */
        snprintf(buf, sizeof buf, "%.*f", *digits, w);
        if (strtod(buf, NULL) < 1.0 && strlen(buf + strspn(buf, "0.")) >= 2) break;
    }
    return sci;
}

/* The words before a stored float32 s that follows the double v the line printed: "which float32 stores as"
 * when s is float32's rounding of v or one unit in its last place from it (the A line's v is the quotient of
 * 9-digit numbers, so the reference kernel's exact weight can land there);
 * else the kernel's own float32 arithmetic made s (sgemm's float32 sums of q[d]·k[d], fastexp.h's av_expf):
 * the blas kernel's ÷√d_k line read "-1.41944476, which float32 stores as -1.41944432", four units of
 * float32's last place away, which is no rounding of the number printed (a numbers pass). */
static const char *stored_words(double v, float s) {
    float r = (float)v;
    if (s == r || s == nextafterf(r, INFINITY) || s == nextafterf(r, -INFINITY)) return ", which float32 stores as ";
    return ", while the kernel's float32 arithmetic stored ";
}

/* The note after a walk-through whose query qi is --pad-to's <pad> (qi >= n_real), in the tutorial's words: `--pad-to
 * 7 --causal --explain 6,0` ended "key 我 has weight 38.4% in query <pad>'s weighted average" as if that average
 * were used (a teacher's pass). */
static void pad_query_note(FILE *f, const av_config *c, int qi) {
    if (qi < c->n_real) return;
    fprintf(f, "  (query %d is <pad>: the key padding mask hides <pad> keys, not <pad> queries; a <pad> row still sees\n"
               "  the real words, as in PyTorch, and its output o_%d is simply ignored later)\n", qi, qi);
}

/* av_explain with lab[j], key j's name as the figures and the page draw it (the token, or a part of a character as
 * "爱(2/3)": tokenize.h av_tokens_piece_labels) */
static void explain_cell(FILE *f, const av_model *m, const av_tokens *toks, char *const *lab, int h, int qi, int kj,
                         int precision, int color, int dumped) {
    const av_config *c = &m->cfg;
    int T = c->T, D = m->D;
    const float *q = m->Q + ((size_t)h * T + qi) * D;
    const float *k = m->K + ((size_t)h * T + kj) * D;
    const float *v = m->V + ((size_t)h * T + kj) * D;
    const float *s_row = m->scores + ((size_t)h * T + qi) * T;
    const float *a_row = m->att + ((size_t)h * T + qi) * T;
    const unsigned char *m_row = m->mask + (size_t)qi * T;

    char layer[32] = ""; /* a --model's layer: its heads are numbered per layer */
    if (m->model_layer) snprintf(layer, sizeof layer, "layer %d, ", m->model_layer - 1);
    char qq[AV_MAX_TOKEN_BYTES + 8], kq[AV_MAX_TOKEN_BYTES + 8]; /* 'He said "hi"': a quote token is '"' */
    av_quote_token(qq, sizeof qq, toks->tok[qi]);
    av_quote_token(kq, sizeof kq, toks->tok[kj]);
    /* the title names the tokens as the trace's tokens line does; the rest by their figure labels: GPT-2's
     * "我爱" explained as 'key "<0x91>" has weight 2.6e-18% in query "<0xE7>"'s weighted average', the row's table
     * listing <0x88> twice (我(2/3) and 爱(2/3)), where the figures and the page draw 我(3/3) and 爱(1/3) (a
     * Chinese-speaking learner's pass) */
    char drawn[2 * (16 * 64 + 8) + 64] = "";
    int q_part = strcmp(lab[qi], toks->tok[qi]) != 0, k_part = strcmp(lab[kj], toks->tok[kj]) != 0;
    char qf[16 * 64 + 8], kf[16 * 64 + 8];
    av_quote_token(qf, sizeof qf, lab[qi]);
    av_quote_token(kf, sizeof kf, lab[kj]);
    if (q_part || k_part) snprintf(drawn, sizeof drawn, "; the figures draw them %s → %s", qf, kf);
    fprintf(f, "%s--explain: %shead %d, query %d %s → key %d %s%s   (d_k = %d%s)\n", av_bold(color), layer, h, qi, qq,
            kj, kq, av_reset(color), D, drawn);
    fprintf(f, "  q_%d = Q[%d, %d, :] = ", qi, h, qi);
    print_vec(f, q, D, precision);
    fprintf(f, "   (%d number%s%s)\n", D, D == 1 ? "" : "s", c->positions == AV_POS_ROPE ? ", after RoPE" : "");
    fprintf(f, "  k_%d = K[%d, %d, :] = ", kj, h, kj);
    print_vec(f, k, D, precision);
    /* K is rotated too, by its own position (a teacher's pass: only q said so) */
    fprintf(f, "%s\n", c->positions == AV_POS_ROPE ? "   (after RoPE)" : "");
    if (m->kv_heads > 0 && m->kv_heads < c->H) { /* GQA: K[h] is a copy of K/V head h/G, shared by G query heads */
        int G = c->H / m->kv_heads, g = h / G;
        if (m->kv_heads == 1) /* "shared by query heads 0–5" of "grouped-query attention": MQA, one group */
            fprintf(f, "        (multi-query attention: k_%d and v_%d are the one K/V head's, shared by all %d query heads:\n"
                       "         K[0…%d, %d, :] are the same numbers)\n", kj, kj, c->H, c->H - 1, kj);
        else
            fprintf(f, "        (grouped-query attention: k_%d and v_%d are K/V head %d's, k_proj/v_proj rows %d…%d,\n"
                       "         shared by query heads %d–%d: K[%d…%d, %d, :] are the same numbers)\n",
                    kj, kj, g, g * D, g * D + D - 1, g * G, g * G + G - 1, g * G, g * G + G - 1, kj);
    }

    /* 1. the dot product */
    double dot = explain_dot(f, q, k, D, precision);

    /* 2. the scale; a --model's dump holds every layer: scores.npy (L, H, T, T). The files are named only
     * when --dump wrote them: "(= scores.npy[0, 1, 2])" without --dump named a file that was never written
     * (a teacher's pass), as the page's cell view already did not */
    char where[64] = "";
    if (dumped && m->model_layer)
        snprintf(where, sizeof where, "   (= scores.npy[%d, %d, %d, %d])", m->model_layer - 1, h, qi, kj);
    else if (dumped) snprintf(where, sizeof where, "   (= scores.npy[%d, %d, %d])", h, qi, kj);
    double quot = dot / sqrt((double)D);
    char quot_s[32], kept_s[32];
    snprintf(quot_s, sizeof quot_s, "%.9g", quot);
    snprintf(kept_s, sizeof kept_s, "%.9g", (double)s_row[kj]);
    /* the quotient of the numbers printed, then what float32 keeps of it when its 9 digits differ: "-6.66172941 / 8
     * = -0.832716167" (the tutorial's cell) and "/ 2.82843" (√8 to 6 digits) were not true to the digits shown (a
     * learner's pass with a calculator); X of 1e-30 printed "2.55065279e-60 / 2 = 0" (a teacher's pass) */
    if (c->scale && quot != 0 && fabs(quot) < FLT_MIN)
        fprintf(f, "  ÷√d_k: %.9g / √%d = %.9g / %.9g = %s, which float32 stores as %s (its smallest magnitude is "
                "1.4e-45, with full precision from 1.2e-38)%s\n", dot, D, dot, sqrt((double)D), quot_s, kept_s, where);
    else if (c->scale)
        fprintf(f, "  ÷√d_k: %.9g / √%d = %.9g / %.9g = %s%s%s%s\n", dot, D, dot, sqrt((double)D), quot_s,
                strcmp(quot_s, kept_s) ? stored_words(quot, s_row[kj]) : "", strcmp(quot_s, kept_s) ? kept_s : "", where);
    else /* a --model's scale is its own: --no-scale is refused with --model, so say why as its trace does */
        fprintf(f, "  no ÷√d_k (%s): S = q·k in float32 (the sum above is in double) = %.9g%s\n",
                m->no_scale_why ? m->no_scale_why : "--no-scale", (double)s_row[kj],
                where); /* -4.81642244 above, -4.81642246 here: say why (a teacher's report) */

    /* 3. the row: mask, max, exp, sum */
    double maxv = -INFINITY, sum = 0.0;
    for (int j = 0; j < T; j++)
        if (!m_row[j] && s_row[j] > maxv) maxv = s_row[j];
    /* the table's digits: 6, or --precision's when it asks for more (--precision 9 printed 0.333333 for a
     * weight of float32 1/3, 0.333333343, though the vectors above took 9) */
    int tp = precision > 6 ? precision : 6, tw = tp + 6;
    for (int j = 0; j < T; j++)
        if (!m_row[j]) sum += exp((double)s_row[j] - maxv);
    /* A long row is cut to the keys worth reading: past EXPLAIN_ROWS keys, those around the key and the query
     * and the EXPLAIN_TOP largest weights (4,000 lines for a 4,000-token file buried the cell's own line) */
    unsigned char *keep = T > EXPLAIN_ROWS ? explain_keep(a_row, m_row, T, qi, kj) : NULL;
    /* one notation for the table's four columns, as numpy prints one array (av_numpy_sci over the numbers it
     * shows): a score of 1.97e28 in fixed point took 36 characters and broke the columns; every column is as
     * wide as its widest entry, tp + 6 at least */
    /* ... and scientific too when a number of the table that is not 0 would print as 0 in fixed point: with
     * --no-scale, `--explain 0,1 "I love deep learning"` printed exp(S − max) and A[i,j] of 4.05e-18 as 0.000000
     * in the table right above "A[0, 0, 1] = ... = 4.05488e-18" (numpy's default, suppress=False, prints such an
     * array in scientific notation: its smallest nonzero |value| is below 1e-4) */
    double big = 0.0;
    int hidden = 0; /* a nonzero number that tp digits of fixed point print as 0 */
    for (int j = 0; j < T; j++) {
        if (m_row[j] || (keep && !keep[j])) continue;
        double cell[] = {s_row[j], s_row[j] - maxv, exp((double)s_row[j] - maxv), a_row[j]};
        for (int col = 0; col < 4; col++) {
            if (isfinite(cell[col]) && fabs(cell[col]) > big) big = fabs(cell[col]);
            if (isfinite(cell[col]) && cell[col] != 0 && fabs(cell[col]) < 1.0) {
                char fixed[64];
                snprintf(fixed, sizeof fixed, "%.*f", tp, fabs(cell[col]));
                hidden |= strspn(fixed, "0.") == strlen(fixed);
            }
        }
    }
    int tsci = av_numpy_sci(big) || hidden; /* fixed point: tp ≥ 6 digits show any |value| ≥ 1e-4 */
    for (int j = 0; tsci && j < T; j++) {
        if (m_row[j] || (keep && !keep[j])) continue;
        double cell[] = {s_row[j], s_row[j] - maxv, exp((double)s_row[j] - maxv), a_row[j]};
        for (int col = 0; col < 4; col++) {
            int len = snprintf(NULL, 0, "%.*e", tp, cell[col]);
            if (len > tw) tw = len;
        }
    }
    /* two spaces between columns, as pandas prints a table: with one, "S − max exp(S − max)" read as one
     * heading and a row in numpy's notation as "-2.583591e+15 -1.972901e+28" */
    const char *tfmt = tsci ? "  %*.*e  %*.*e  %*.*e  %*.*e\n" : "  %*.*f  %*.*f  %*.*f  %*.*f\n";
    int shown = T;
    if (keep) {
        shown = 0;
        for (int j = 0; j < T; j++) shown += keep[j];
        fprintf(f, "  row %d of S (query %s) and its softmax, %d of its %d keys (around key %d and query %d, and the %d\n"
                   "  largest weights; the row max and sum are over all %d; --dump DIR writes the whole row):\n",
                qi, qf, shown, T, kj, qi, EXPLAIN_TOP, T);
    } else
        fprintf(f, "  the whole row %d of S (query %s) and its softmax:\n", qi, qf);
    /* the index column: as wide as its longest index and a space, 4 at least (up to 65536 tokens); a 4-digit
     * key "1234" in a column of 4 touched its word */
    int jw = T > 10000 ? 6 : T > 1000 ? 5 : 4;
    fprintf(f, "      %-*s ", jw, "j");
    av_put_width(f, "key", 12, 0);
    const char *heads[] = {"S[i,j]", "S − max", "exp(S − max)", "A[i,j]"};
    for (int col = 0; col < 4; col++) { fputs("  ", f); av_put_width(f, heads[col], tw, 1); }
    fputc('\n', f);
    for (int j = 0; j < T; j++) {
        if (keep && !keep[j]) {
            int j1 = j;
            while (j1 + 1 < T && !keep[j1 + 1]) j1++;
            if (j1 > j) fprintf(f, "      %-*s (keys %d..%d not shown)\n", jw + 2, "…", j, j1); /* … is 3 bytes */
            else fprintf(f, "      %-*s (key %d not shown)\n", jw + 2, "…", j);
            j = j1;
            continue;
        }
        fprintf(f, "    %s %-*d ", j == kj ? "→" : " ", jw, j);
        av_put_width(f, lab[j], 12, 0);
        if (m_row[j]) {
            const char *cells[] = {"−∞ (masked)", "−∞", "0", "0"};
            for (int col = 0; col < 4; col++) { fputs("  ", f); av_put_width(f, cells[col], tw, 1); }
            fputc('\n', f);
            continue;
        }
        double e = exp((double)s_row[j] - maxv);
        fprintf(f, tfmt, tw, tp, (double)s_row[j], tw, tp, (double)s_row[j] - maxv, tw, tp, e,
                tw, tp, (double)a_row[j]);
    }
    free(keep);
    if (maxv == -INFINITY) {
        fprintf(f, "  every key of this row is masked: softmax of all −∞ is undefined, so the rule gives\n"
                   "  all-zero weights and a zero output row (never NaN).\n");
        pad_query_note(f, c, qi);
        return;
    }
    fprintf(f, "      row max = %.9g   row sum Σ_j exp(S − max) = %.9g\n", maxv, sum);

    /* 4. this cell */
    if (m_row[kj]) {
        const char *why = (c->causal && kj > qi) ? "the causal mask hides keys after the query (j > i)"
                          : (kj >= c->n_real) ? "this key is <pad> (key padding mask)"
                                              : "the --attn-mask file masks this pair";
        fprintf(f, "  %sthis cell is masked%s: %s, so S = −∞, exp(−∞) = 0 and A[%d, %d, %d] = 0.\n", av_yellow(color), av_reset(color),
                why, h, qi, kj);
        fprintf(f, "  key %d contributes nothing to the output of query %d.\n", kj, qi);
        pad_query_note(f, c, qi);
        return;
    }
    double w = a_row[kj];
    char file[64] = "the stored weight";
    if (dumped && m->model_layer) snprintf(file, sizeof file, "attn.npy[%d, %d, %d, %d]", m->model_layer - 1, h, qi, kj);
    else if (dumped) snprintf(file, sizeof file, "weights.npy[%d, %d, %d]", h, qi, kj);
    /* A weight below FLT_MIN ≈ 1.18e-38 is not stored as its value: the blas and flash kernels and --model's
     * forward take exp in float32 with fastexp.h's av_expf, which clamps its argument at −87.33654, so it is
     * stored as about 1.18e-38 / sum; the reference kernel's expf goes on into the subnormals, which keep only
     * a few significant bits. Printing the stored number after "exp(-115.28) / 1 =" made a false equation
     * (exp(-115.28) is 8.8e-51), so show the true value and say what the file holds. */
    double exact = exp((double)s_row[kj] - maxv) / sum;
    /* S − max and the row sum to 9 digits, as the row sum line above, and the quotient of those: "exp(0.000000) /
     * 1.607459 = 0.622099698" (the table's 6 decimals, then float32's weight) did not hold (1 / 1.607459 is
     * 0.622099848; a learner's pass with a calculator). What float32 stores follows when its 9 digits differ. */
    char ex_arg[64], ex_sum[64], ex_val[64], kept[96] = "";
    snprintf(ex_arg, sizeof ex_arg, "%.9g", (double)s_row[kj] - maxv);
    snprintf(ex_sum, sizeof ex_sum, "%.9g", sum);
    snprintf(ex_val, sizeof ex_val, "%.9g", exp(strtod(ex_arg, NULL)) / strtod(ex_sum, NULL));
    char w_s[32];
    snprintf(w_s, sizeof w_s, "%.9g", w);
    if (strcmp(ex_val, w_s) != 0) snprintf(kept, sizeof kept, "%s%s", stored_words(strtod(ex_val, NULL), (float)w), w_s);
    if (exact < (double)FLT_MIN && fabs(w - exact) > 1e-6 * exact)
        fprintf(f,
                "  A[%d, %d, %d] = exp(%s) / %s = %.9g\n"
                "      (%s holds %.9g: %s;\n"
                "      beside the row's other weights it counts as 0)\n",
                h, qi, kj, ex_arg, ex_sum, exact, file, w,
                w > 2.0 * exact ? "attnviz's float32 exp stops at exp(−87.34) ≈ 1.18e-38,\n"
                                  "      the smallest normal float32, so a weight this small is stored as about "
                                  "1.18e-38 / row sum"
                                : "below 1.18e-38, the smallest normal float32,\n"
                                  "      a float32 keeps only a few of its digits");
    else
        fprintf(f, "  A[%d, %d, %d] = exp(%s) / %s = %s%s%s%s%s\n", h, qi, kj, ex_arg, ex_sum, ex_val, kept,
                dumped ? "   (= " : "", dumped ? file : "", dumped ? ")" : "");
    /* the weight as the vectors beside it print (vec_format of the one number): --precision digits, more when
     * it would round to 0, scientific below 1e-4 (a --no-scale weight of 2.4e-13 read "A·v_1 = 0.000000"); it
     * took the table's 6 digits or "%.6g" whatever --precision said ("A·v_0 = 0.481319 × [ 0.133  2.291 …]"
     * with --precision 3, a learner's pass). The sentence's share takes the digits that keep it off 0 % and
     * 100 %: one of 0.999998808 read "100.0%" (a learner's pass) */
    char wbuf[64], pct[32];
    int wd, ws = weight_format(w, precision, &wd);
    const char *wt = term_text(wbuf, w, wd, ws);
    if (w > 0 && 100.0 * w < 0.05) snprintf(pct, sizeof pct, "%.2g", 100.0 * w);
    else
        for (int dp = 1; dp <= 9; dp++) { /* 0.99999994, float's largest below 1, is 99.999994 % */
            snprintf(pct, sizeof pct, "%.*f", dp, 100.0 * w);
            if (w >= 1 || strtod(pct, NULL) < 100.0) break;
        }
    /* v_j and the products take the weight's digits when it has more (weight_format), so the line multiplies the
     * numbers it shows: "0.56 × [ 1 -2  1 …]" went on "= [ 1 -1  0 …]", 0.56 × 0.83 printing as 0, and then
     * "= [ 0.58 -0.97  0.47 …]", where 0.56 × 1 is not 0.58 nor 0.56 × -2 -0.97 (v_2 = [1.02 -1.73 0.83 …]) */
    int vd = !ws && wd > precision ? wd : precision;
    fprintf(f, "  contribution to o_%d = Σ_j A[i,j]·v_j:  A·v_%d = %s × ", qi, kj, wt);
    print_vec(f, v, D, vd);
    fprintf(f, "\n                                        = ");
    /* the whole vector, cut as v_j's line is: it showed v_j's last entry and left out its product (a teacher's
     * pass: "[-0.4918 0.1230 -0.7207 0.5481 … 0.5381]" then "= [-0.1020 0.0255 -0.1495 0.1137] …") */
    float *contrib = malloc((size_t)D * sizeof *contrib);
    if (contrib) {
        for (int d = 0; d < D; d++) contrib[d] = (float)(w * v[d]);
        print_vec(f, contrib, D, vd);
        free(contrib);
    } else fprintf(f, "(no memory left to print it)");
    fputc('\n', f);
    /* a weight, not a share of the output vector: the v_j differ in length and their entries can cancel */
    fprintf(f, "  so key %s has weight %s%% in query %s's weighted average of the value vectors in head %d.\n", kf,
            pct, qf, h);
    pad_query_note(f, c, qi);
}

void av_explain(FILE *f, const av_model *m, const av_tokens *toks, int h, int qi, int kj, int precision, int color,
                int dumped) {
    char **figs = NULL;
    av_err oom;
    if (av_tokens_piece_labels(toks, &figs, &oom) != AV_OK) figs = NULL; /* out of memory: the tokens as they are */
    explain_cell(f, m, toks, figs ? figs : toks->tok, h, qi, kj, precision, color, dumped);
    av_labels_free(figs, toks->n);
}

/* ----------------------------------------------------------------------------
 * terminal heat-map */

/* xterm 256-colour index nearest to an sRGB colour: the nearer, by squared RGB distance, of the 6x6x6 cube
 * (16..231, levels 0, 95, 135, 175, 215, 255 per channel) and the 24-step grey ramp (232..255, 8, 18, ...,
 * 238), as tmux's colour_find_rgb chooses. The cube alone holds 6 greys, so --cmap gray's legend of 11
 * steps showed 6 levels, the steps 0.2, 0.3 and 0.4 one grey (a new user's pass). */
static int xterm256(const unsigned char rgb[3]) {
    static const int level[6] = {0, 95, 135, 175, 215, 255};
    int idx[3], avg = (rgb[0] + rgb[1] + rgb[2]) / 3;
    int g = avg > 238 ? 23 : avg < 3 ? 0 : (avg - 3) / 10, grey = 8 + 10 * g; /* the ramp's nearest to the mean */
    long cube_d = 0, grey_d = 0;
    for (int i = 0; i < 3; i++) {
        idx[i] = rgb[i] < 48 ? 0 : rgb[i] < 115 ? 1 : (rgb[i] - 35) / 40;
        cube_d += (long)(rgb[i] - level[idx[i]]) * (rgb[i] - level[idx[i]]);
        grey_d += (long)(rgb[i] - grey) * (rgb[i] - grey);
    }
    return grey_d < cube_d ? 232 + g : 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
}

static void set_bg(FILE *f, av_term_mode mode, av_cmap cmap, double t) {
    unsigned char rgb[3];
    av_cmap_rgb(cmap, t, rgb);
    int light = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 128;
    if (mode == AV_TERM_TRUECOLOR) fprintf(f, "\033[48;2;%d;%d;%dm", rgb[0], rgb[1], rgb[2]);
    else fprintf(f, "\033[48;5;%dm", xterm256(rgb));
    fprintf(f, light ? "\033[30m" : "\033[97m");
}

/* Print s cut to at most w terminal columns, with "…" where it was cut, and
 * with pad padded to exactly w (a row label); without, nothing follows the
 * text (the "keys:" line, whose last key ended its line in spaces when a wide
 * character did not fit). */
static void print_cell_text(FILE *f, const char *s, int w, int pad) {
    int used = 0;
    size_t len = strlen(s);
    for (size_t p = 0, n; p < len; p += n) { /* whole grapheme clusters */
        n = av_utf8_cluster_len(s + p, len - p);
        int cw = av_utf8_cluster_width(s + p, n);
        if (p + n < len && used + cw > w - 1) {
            if (used < w) { fputs("…", f); used++; }
            break;
        }
        if (used + cw > w) break;
        fwrite(s + p, 1, n, f);
        used += cw;
    }
    for (; pad && used < w; used++) fputc(' ', f);
}

/* One line of text under or over a --show table, printf-formatted, broken at
 * spaces into lines of at most width columns (as base/utf8.h counts them),
 * each after the first indented by two spaces, as the table itself fits the
 * terminal: the title (63 columns), "(keys 6..26 not shown: ...)" (55) and
 * the legend (75) ran past a 40-column terminal, which wrapped them through
 * words (a tester's pass). A word wider than a line stays whole on its own.
 * They break as the trace's lines do (app/term.h av_put_lines_wrapped), not
 * at the last space that fits: at 60 columns the title ended "(rows =
 * queries, columns =" and then "  keys)" went on alone (a teacher's pass). */
static void put_wrapped(FILE *f, int width, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(text, sizeof text - 1, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if ((size_t)len > sizeof text - 2) len = (int)sizeof text - 2;
    text[len] = '\n', text[len + 1] = 0;
    av_put_lines_wrapped(f, text, width);
}

/* The lines under a --show table that say which queries and keys it left
 * out, and why: the row limit, the terminal's width; each fits width columns. */
static void print_left_out(FILE *f, int T, int nrows, int ncols, int width) {
    if (nrows == T - 1) put_wrapped(f, width, "(query %d not shown: at most %d rows)", nrows, nrows);
    else if (nrows < T) put_wrapped(f, width, "(queries %d..%d not shown: at most %d rows)", nrows, T - 1, nrows);
    char why[160];
    if (ncols == T - 1) put_wrapped(f, width, "(key %d not shown: %s)", ncols, av_term_width_said(why, sizeof why, width));
    else if (ncols < T)
        put_wrapped(f, width, "(keys %d..%d not shown: %s)", ncols, T - 1, av_term_width_said(why, sizeof why, width));
    /* "the figures and --dump have all of them" was said with --no-plot too, and past a few hundred tokens the
     * figures pool cells (max over k×k tokens): --dump is what keeps every weight (a learner's pass) */
    if (nrows < T || ncols < T) put_wrapped(f, width, "(--dump DIR writes every weight)");
}

void av_term_heatmap(FILE *f, const av_model *m, const av_tokens *toks, int h, av_term_mode mode, av_cmap cmap,
                     int width) {
    int T = m->cfg.T;
    /* a part of a character by its figure label, "爱(2/3)": GPT-2's "我爱" read <0xE6> <0x88> <0x91> <0xE7>
     * <0x88> <0xB1> down the rows and in "keys:", rows 1 and 4 both <0x88>, where layer1.png says 我(2/3) and
     * 爱(2/3) (a Chinese-speaking learner's pass) */
    char **figs = NULL;
    av_err oom;
    if (av_tokens_piece_labels(toks, &figs, &oom) != AV_OK) figs = NULL;
    char *const *lab = figs ? figs : toks->tok;
    /* a row label is cut at 12 columns, a part's at 16: "<U+3000>(1/3)" (13), "␣<U+FE0E>(1/3)" (14) cut to
     * "<U+3000>(1/…" left three rows alike */
    int labw = 0;
    for (int i = 0; i < T; i++) {
        int w = av_utf8_width(lab[i]), cap = lab[i] != toks->tok[i] && strcmp(lab[i], toks->tok[i]) ? 16 : 12;
        if (w > cap) w = cap;
        if (w > labw) labw = w;
    }
    int idxw = T > 100 ? 3 : T > 10 ? 2 : 1;
    int left = idxw + 1 + labw + 1;
    /* cell width: numbers need 5 ("0.64 "), colour blocks alone need 2 */
    int cellw = 5;
    if (left + T * cellw > width) cellw = mode == AV_TERM_PLAIN ? 4 : 2;
    if (left + T * cellw > width && mode != AV_TERM_PLAIN) cellw = 1;
    int ncols = (width - left) / cellw;
    if (ncols > T) ncols = T;
    int nrows = T > 48 ? 48 : T;
    const float *A = m->att + (size_t)h * T * T;
    long tiny = 0; /* shown weights above 0 that print as zero */

    char layer[32] = ""; /* a --model's layer: its heads are numbered per layer */
    if (m->model_layer) snprintf(layer, sizeof layer, "layer %d, ", m->model_layer - 1);
    put_wrapped(f, width, "%shead %d of %d: attention weights (rows = queries, columns = keys)", layer, h, m->cfg.H);
    if (ncols < 1) {
        char why[160];
        put_wrapped(f, width, "(not drawn: %s; the labels and one key need %d; the figures and --dump have all)",
                    av_term_width_said(why, sizeof why, width), left + cellw);
        av_labels_free(figs, T);
        return;
    }
    /* column header: key indices (only when the cells are wide enough); each index is left-aligned in its
     * cells, and the padding after the last one is not printed: every line of the table ended in spaces, which
     * diffs, the docs' excerpts and a copied table kept (a maintainer's list of known faults) */
    int pend = left; /* spaces owed before the next index */
    for (int j = 0; j < ncols; j++) {
        int span = cellw >= 4 ? cellw
                 : cellw >= 2 ? (j % 5 ? 0 : cellw * (j + 5 <= ncols ? 5 : ncols - j))
                              : (j % 10 ? 0 : (j + 10 <= ncols ? 10 : ncols - j));
        if (!span) continue;
        fprintf(f, "%*s%d", pend, "", j);
        pend = span - snprintf(NULL, 0, "%d", j);
        if (pend < 0) pend = 0; /* an index wider than its cells runs on, as "%-*d" printed it */
        j += cellw >= 4 ? 0 : cellw >= 2 ? 4 : 9;
    }
    fputc('\n', f);
    for (int i = 0; i < nrows; i++) {
        fprintf(f, "%*d ", idxw, i);
        print_cell_text(f, lab[i], labw, 1);
        fputc(' ', f);
        for (int j = 0; j < ncols; j++) {
            double a = A[(size_t)i * T + j];
            int masked = m->mask[(size_t)i * T + j];
            char num[16];
            if (cellw >= 5) snprintf(num, sizeof num, "%4.2f ", a);
            else if (cellw == 4) {
                /* ".64": the wide cells' "%4.2f" without its 0, so an exact tie rounds as there (1/8 = 0.125 is
                 * 0.12 in wide cells and the figures; lround made it .13 in narrow ones) */
                char two[16];
                snprintf(two, sizeof two, "%4.2f", a);
                snprintf(num, sizeof num, "%s ", two[0] == '1' ? "1.0" : two + 1);
            } else snprintf(num, sizeof num, "%*s", cellw, "");
            /* plain text: the last cell's padding is not printed (no line ends in spaces); in colour the padding
             * is part of the coloured block */
            int last_plain = mode == AV_TERM_PLAIN && j == ncols - 1;
            for (size_t n = strlen(num); last_plain && n > 0 && num[n - 1] == ' ';) num[--n] = '\0';
            if (masked) {
                const char *sym = "·"; /* weight 0 because the score was −∞ */
                if (mode != AV_TERM_PLAIN) fputs("\033[48;5;250m\033[30m", f);
                fputs(sym, f);
                for (int k = av_utf8_width(sym); k < cellw && !last_plain; k++) fputc(' ', f);
                if (mode != AV_TERM_PLAIN) fputs("\033[0m", f);
                continue;
            }
            tiny += cellw >= 4 && a > 0 && a < 0.005; /* prints as .00 or 0.00 */
            if (mode == AV_TERM_PLAIN) fputs(num, f);
            else {
                set_bg(f, mode, cmap, a);
                fputs(num, f);
                fputs("\033[0m", f);
            }
        }
        fputc('\n', f);
    }
    print_left_out(f, T, nrows, ncols, width);
    /* key legend and colour legend */
    fprintf(f, "keys:");
    int col = 5;
    for (int j = 0; j < ncols && j < 40; j++) {
        /* " 7=deep": a space, the index, '=', the token, cut with "…" to fit a line after "keys:" (a 45-column
         * token made a 50-column line on a 40-column terminal: a tester's pass) */
        int pre = 3 + (j > 9) + (j > 99) + (j > 999) + (j > 9999), tw = av_utf8_width(lab[j]);
        if (tw > width - 5 - pre) tw = width - 5 - pre > 1 ? width - 5 - pre : 1;
        if (col + pre + tw > width && col > 5) { fputs("\n     ", f); col = 5; }
        fprintf(f, " %d=", j);
        print_cell_text(f, lab[j], tw, 0);
        col += pre + tw;
    }
    if (ncols > 40) fputs(col + 2 > width ? "\n     …" : " …", f);
    fputc('\n', f);
    av_labels_free(figs, T);
    if (mode == AV_TERM_PLAIN) {
        /* a masked cell's score is −∞ and its weight 0, as the figures' legend says it: the colour legend said
         * "masked (−∞)" under a map of weights, which read as a weight of −∞ */
        put_wrapped(f, width, "legend: weights (unmasked rows sum to 1); · = masked (score −∞, weight 0)%s",
                    cellw == 4 ? "; .64 = 0.64" : "");
    } else { /* "legend: 0 " 10, 11 blocks of 2, " 1" 2: 34 columns; "   ", " · ", " masked (score −∞, weight 0)"
              * 34 more, or its own line */
        fprintf(f, "legend: 0 ");
        for (int i = 0; i <= 10; i++) {
            set_bg(f, mode, cmap, i / 10.0);
            fputs("  ", f);
        }
        fprintf(f, "\033[0m 1%s\033[48;5;250m\033[30m · \033[0m masked (score −∞, weight 0)\n",
                width >= 68 ? "   " : "\n        ");
    }
    /* at 300 tokens nearly every cell read .00, with nothing saying those weights are not 0 (the long-input
     * tester's pass): from T = 200 on, an even row's 1/T prints as zero */
    /* the keys a row sees: all T, the real ones with <pad>, and under the causal mask i + 1 for row i ("an even
     * row over 242 keys is 1/T" on a --causal run, where row 0 sees one key: a learner's pass) */
    int n_keys = m->cfg.n_real < T ? m->cfg.n_real : T;
    if (tiny && T >= 200 && m->cfg.causal)
        put_wrapped(f, width, "(%s: a weight above 0 but under 0.005, %ld of the cells shown; under the causal mask "
                    "row i sees i + 1 keys, and an even row puts 1/(i + 1) on each: %.2g on the last real row, over %d "
                    "keys)", cellw == 4 ? ".00" : "0.00", tiny, 1.0 / n_keys, n_keys);
    else if (tiny && T >= 200)
        put_wrapped(f, width, "(%s: a weight above 0 but under 0.005, %ld of the cells shown; an even row over %d keys "
                    "is 1/%d = %.2g)", cellw == 4 ? ".00" : "0.00", tiny, n_keys, n_keys, 1.0 / n_keys);
}

/* ----------------------------------------------------------------------------
 * saturation */

void av_row_stats(const av_model *m, int h, double *max_w, double *ent) {
    int T = m->cfg.T;
    for (int i = 0; i < T; i++) {
        const float *a = m->att + ((size_t)h * T + i) * T;
        double mx = 0, e = 0;
        for (int j = 0; j < T; j++) {
            if (a[j] > mx) mx = a[j];
            if (a[j] > 0) e -= (double)a[j] * log((double)a[j]);
        }
        max_w[i] = mx;
        ent[i] = e;
    }
}

void av_print_saturation(FILE *f, const av_model *m, int color) {
    int T = m->cfg.T, H = m->cfg.H;
    double *mx = calloc((size_t)T, sizeof *mx), *en = calloc((size_t)T, sizeof *en);
    if (!mx || !en) { free(mx); free(en); return; }
    int rows = 0, peaked = 0, single = 0, blind = 0, pad = 0; /* rows judged (2+ visible keys), near one-hot,
                                                                * one key only, no key at all (--attn-mask),
                                                                * <pad> queries */
    /* a row with every key masked (--attn-mask) keeps its place as "—": skipped, row 1's numbers were printed first
     * and read as row 0's (an auditor's pass); the mask is the same in every head */
    int shown_blind = 0;
    for (int i = 0; i < T && i < 8 && !shown_blind; i++) {
        shown_blind = 1;
        for (int j = 0; j < T; j++) shown_blind &= m->mask[(size_t)i * T + j] != 0;
    }
    fprintf(f, "                   per row: max weight / entropy in nats (uniform over n keys = ln n; one-hot = 0)%s\n",
            shown_blind ? "; — = every key masked" : "");
    for (int h = 0; h < H; h++) {
        av_row_stats(m, h, mx, en);
        if (h < 8) fprintf(f, "                   head %d:", h);
        for (int i = 0; i < T; i++) {
            int visible = 0;
            for (int j = 0; j < T; j++) visible += !m->mask[(size_t)i * T + j];
            if (!visible) {
                blind++;
                if (h < 8 && i < 8) fputs(" —", f);
                continue;
            }
            if (i >= m->cfg.n_real) pad++; /* a <pad> query's output is not used: as --compare's tables, real rows */
            else if (visible == 1) single++; /* weight 1 by construction (query 0 under a causal mask): no verdict */
            else rows++, peaked += mx[i] > 0.9;
            if (h < 8 && i < 8) fprintf(f, " %.2f/%.2f", mx[i], en[i]);
        }
        if (h < 8) fprintf(f, "%s\n", T > 8 ? " …" : "");
    }
    if (H > 8) fprintf(f, "                   (%d more head%s)\n", H - 8, H == 9 ? "" : "s");
    char left_out[320] = "", said[96]; /* the rows with one visible key are 1.00 whatever the scores; those with none 0 */
    if (single)
        snprintf(left_out, sizeof left_out, "; %s with one visible key left out",
                 av_rows_phrase(said, sizeof said, single, H, ""));
    if (blind) /* every key masked (--attn-mask): it said "every row sees one key" when no row saw any (a tester's report) */
        snprintf(left_out + strlen(left_out), sizeof left_out - strlen(left_out), "; %s with no visible key left out",
                 av_rows_phrase(said, sizeof said, blind, H, ""));
    if (pad) /* --pad-to: they were counted, where --compare's tables average the real rows only (a teacher's pass) */
        snprintf(left_out + strlen(left_out), sizeof left_out - strlen(left_out), "; %s left out",
                 av_rows_phrase(said, sizeof said, pad, H, "<pad> query "));
    if (!rows && !single)
        fprintf(f, "                   verdict: none: every row has every key masked, so its weights are all 0\n");
    else if (!rows)
        fprintf(f, "                   verdict: none: every row sees one key, so its weight is 1 whatever the scores%s\n",
                blind ? " (or none: weights all 0)" : "");
    else if (2 * peaked >= rows)
        fprintf(f, "                   %sverdict: softmax is saturated: %d of %d row%s %s nearly one-hot (max weight > 0.9)%s%s\n",
                av_yellow(color), peaked, rows, rows == 1 ? "" : "s", peaked == 1 ? "is" : "are", left_out,
                av_reset(color));
    else
        fprintf(f, "                   verdict: not saturated: %d of %d row%s %s nearly one-hot (max weight > 0.9)%s\n",
                peaked, rows, rows == 1 ? "" : "s", peaked == 1 ? "is" : "are", left_out);
    free(mx);
    free(en);
}

/* ----------------------------------------------------------------------------
 * RoPE shift check */

/* scores (H, T, T) from the first T rows of Xin (rows of C) with positions
 * shifted by k. */
static int scores_at(float *scores, const av_model *m, const float *Xin, int T, av_positions pos, int k,
                     float *tmp_tc, float *q, float *kk, float *proj) {
    const av_config *c = &m->cfg;
    int C = c->C, H = c->H, D = m->D;
    size_t TC = (size_t)T * C;
    memcpy(tmp_tc, Xin, TC * sizeof(float));
    if (pos == AV_POS_SINUSOIDAL) {
        float *pe = malloc(((size_t)T + (size_t)k) * C * sizeof(float));
        if (!pe) return -1;
        sinusoidal_forward(pe, T + k, C);
        for (size_t i = 0; i < TC; i++) tmp_tc[i] += pe[(size_t)k * C + i];
        free(pe);
    }
    matmul_forward(proj, tmp_tc, m->W_Q, T, C, C);
    split_heads_forward(q, proj, T, C, H);
    matmul_forward(proj, tmp_tc, m->W_K, T, C, C);
    split_heads_forward(kk, proj, T, C, H);
    if (pos == AV_POS_ROPE) {
        rope_forward(q, H, T, D, c->rope_style, c->rope_base > 1 ? c->rope_base : 10000.0, k);
        rope_forward(kk, H, T, D, c->rope_style, c->rope_base > 1 ? c->rope_base : 10000.0, k);
    }
    /* the run's own scale: with --no-scale the scores are raw Q·Kᵀ, and the evidence says how far *they* move */
    scores_forward(scores, q, kk, H, T, D, c->scale ? 1.0 / sqrt((double)D) : 1.0);
    return 0;
}

av_status av_shift_check(const av_model *m, int k, double *d_rope, double *d_sin, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T < AV_SHIFT_TOKENS ? c->T : AV_SHIFT_TOKENS; /* the property holds on any prefix */
    size_t TC = (size_t)T * c->C, HTT = (size_t)c->H * T * T;
    float *tmp = malloc(TC * sizeof(float)), *q = malloc(TC * sizeof(float)), *kk = malloc(TC * sizeof(float)),
          *proj = malloc(TC * sizeof(float)), *s0 = malloc(HTT * sizeof(float)), *s1 = malloc(HTT * sizeof(float));
    av_status st = AV_OK;
    if (!tmp || !q || !kk || !proj || !s0 || !s1) {
        st = av_fail(err, AV_ERUNTIME, "out of memory in the shift check");
        goto out;
    }
    for (int p = 0; p < 2; p++) {
        av_positions pos = p == 0 ? AV_POS_ROPE : AV_POS_SINUSOIDAL;
        if (scores_at(s0, m, m->X, T, pos, 0, tmp, q, kk, proj) || scores_at(s1, m, m->X, T, pos, k, tmp, q, kk, proj)) {
            st = av_fail(err, AV_ERUNTIME, "out of memory in the shift check");
            goto out;
        }
        double worst = 0;
        for (size_t i = 0; i < HTT; i++) {
            double d = fabs((double)s1[i] - (double)s0[i]);
            if (d > worst) worst = d;
        }
        *(p == 0 ? d_rope : d_sin) = worst;
    }
out:
    free(tmp); free(q); free(kk); free(proj); free(s0); free(s1);
    return st;
}
