/* utf8.c - UTF-8 bytes and Unicode properties from utf8proc (see utf8.h). */
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

_Static_assert((int)AV_UC_CO == (int)UTF8PROC_CATEGORY_CO && (int)AV_UC_PO == (int)UTF8PROC_CATEGORY_PO &&
                   (int)AV_UC_CF == (int)UTF8PROC_CATEGORY_CF,
               "av_ucat follows utf8proc's category order");

/* ---------------------------------------------------------------- bytes */

size_t av_utf8_char_len(const char *s) {
    unsigned cp;
    const char *why;
    return (size_t)av_utf8_decode((const unsigned char *)s, strnlen(s, 4), &cp, &why);
}

char *av_utf8_replace_invalid(const char *s) {
    size_t n = strlen(s), m = 0;
    char *o = malloc(3 * n + 1);
    if (!o) return NULL;
    for (size_t k = 0; k < n;) {
        size_t used = av_utf8_char_len(s + k);
        if (used == 0) {
            memcpy(o + m, "\xEF\xBF\xBD", 3);
            m += 3;
            k++;
        } else {
            memcpy(o + m, s + k, used);
            m += used;
            k += used;
        }
    }
    o[m] = 0;
    return o;
}

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
        if ((size_t)i >= len) { *why = kTrunc; return 0; } /* the input ends inside the sequence */
        if ((s[i] & 0xC0) != 0x80) { *why = "invalid continuation byte"; return 0; } /* GBK's CE D2 */
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min) { *why = "overlong encoding"; return 0; }
    if (c >= 0xD800 && c <= 0xDFFF) { *why = "UTF-16 surrogate code point"; return 0; }
    if (c > 0x10FFFF) { *why = "code point above U+10FFFF"; return 0; }
    *cp = c;
    return n;
}

/* Lenient decode of s[0..len): 0xFFFD and one byte for an invalid sequence. */
static unsigned decode_lenient(const unsigned char *s, size_t len, size_t *used) {
    unsigned cp;
    const char *why;
    int k = av_utf8_decode(s, len, &cp, &why);
    if (k == 0) { *used = 1; return 0xFFFD; }
    *used = (size_t)k;
    return cp;
}

unsigned av_utf8_next(const unsigned char **s) {
    size_t used;
    /* a NUL byte ends the string, so a sequence never reads past it */
    unsigned cp = decode_lenient(*s, strnlen((const char *)*s, 4), &used);
    *s += used;
    return cp;
}

int av_utf8_encode(unsigned cp, char out[4]) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return (int)utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)out);
}

size_t av_utf8_trim_cut(char *s) {
    size_t n = strlen(s), k = 0;
    while (k < 3 && k < n && ((unsigned char)s[n - 1 - k] & 0xC0) == 0x80) k++; /* continuation bytes at the end */
    if (k == n) return n;                                                      /* no lead byte: not a cut */
    unsigned char lead = (unsigned char)s[n - 1 - k];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need > k + 1) s[n -= k + 1] = 0; /* the sequence started at lead lacks bytes */
    return n;
}

size_t av_utf8_cut_middle(const char *s, size_t len, char *out, size_t n) {
    static const char kGap[] = " \u2026 ";
    const size_t gap = sizeof kGap - 1, kCloserRoom = 64; /* 21 closers of 3 bytes, and the NUL */
    if (n == 0) return 0;
    if (len < n || n < 96) {
        size_t k = len < n ? len : n - 1;
        memcpy(out, s, k);
        out[k] = 0;
        return len < n ? k : av_utf8_trim_cut(out);
    }
    size_t tail = (n - 1) / 2, head = n - 1 - tail - gap - (kCloserRoom - 1);
    while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80) head--; /* s[head] starts the cut-out part */
    size_t from = len - tail;
    while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80) from++; /* s[from] starts the kept end */
    char closers[64];
    size_t c = av_utf8_bidi_closers(s, head, closers, sizeof closers);
    size_t k = 0;
    memcpy(out + k, s, head), k += head;
    memcpy(out + k, closers, c), k += c;
    memcpy(out + k, kGap, gap), k += gap;
    memcpy(out + k, s + from, len - from), k += len - from;
    out[k] = 0;
    return k;
}

av_status av_utf8_check(const char *s, size_t len, av_err *err) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned cp;
        const char *why = "";
        int k = av_utf8_decode(u + i, len - i, &cp, &why);
        if (k == 0)
            return av_fail(err, AV_EUSAGE, "invalid UTF-8 at byte offset %zu (byte 0x%02X): %s", i, u[i], why);
        i += (size_t)k;
    }
    return AV_OK;
}

/* ---------------------------------------------------------------- properties of one code point */

const char *av_utf8_unicode_version(void) { return utf8proc_unicode_version(); }

av_ucat av_utf8_category(unsigned cp) {
    if (cp > 0x10FFFF) return AV_UC_CN;
    return (av_ucat)utf8proc_category((utf8proc_int32_t)cp);
}

int av_utf8_is_ignorable(unsigned cp) {
    return cp <= 0x10FFFF && utf8proc_get_property((utf8proc_int32_t)cp)->ignorable;
}

static int hangul_boundclass(unsigned cp) {
    int bc = utf8proc_get_property((utf8proc_int32_t)cp)->boundclass;
    return bc == UTF8PROC_BOUNDCLASS_L || bc == UTF8PROC_BOUNDCLASS_V || bc == UTF8PROC_BOUNDCLASS_T ||
           bc == UTF8PROC_BOUNDCLASS_LV || bc == UTF8PROC_BOUNDCLASS_LVT;
}

/* Hangul_Syllable_Type is not empty (grapheme classes L, V, T, LV, LVT), for
 * the code point or its compatibility decomposition (ㄱ U+3131 → ᄀ U+1100). */
int av_utf8_is_hangul(unsigned cp) {
    if (cp > 0x10FFFF) return 0;
    if (hangul_boundclass(cp)) return 1;
    utf8proc_int32_t d[4];
    int last = 0;
    utf8proc_ssize_t n = utf8proc_decompose_char((utf8proc_int32_t)cp, d, 4, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT, &last);
    return n >= 1 && n <= 4 && (unsigned)d[0] != cp && hangul_boundclass((unsigned)d[0]);
}

int av_utf8_is_separator(unsigned cp) {
    av_ucat cat = av_utf8_category(cp);
    return cat == AV_UC_ZS || cat == AV_UC_ZL || cat == AV_UC_ZP || cat == AV_UC_CC;
}

size_t av_utf8_separator_len(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t at = 0, k; at < n; at += k) {
        unsigned cp = decode_lenient(u + at, n - at, &k);
        if (!av_utf8_is_separator(cp) && av_utf8_category(cp) != AV_UC_CF && !av_utf8_is_ignorable(cp)) return at;
    }
    return n;
}

int av_utf8_halfwidth(unsigned cp) { return cp >= 0xFF01 && cp <= 0xFF5E ? (int)(cp - 0xFEE0) : 0; }

int av_utf8_is_rtl(unsigned cp) {
    if (cp > 0x10FFFF) return 0;
    int bc = utf8proc_get_property((utf8proc_int32_t)cp)->bidi_class;
    return bc == UTF8PROC_BIDI_CLASS_R || bc == UTF8PROC_BIDI_CLASS_AL;
}

size_t av_utf8_bidi_closers(const char *s, size_t len, char *out, size_t n) {
    enum { MAX_DEPTH = 125 };     /* UAX #9 BD2: deeper ones are overflow, never in effect */
    char stack[MAX_DEPTH];        /* 'E' an embedding or override, 'I' an isolate */
    int depth = 0, overflow = 0;  /* overflow: initiators past MAX_DEPTH, closed first */
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        unsigned cp = 0xFFFD;
        const char *why;
        int k = av_utf8_decode(p, (size_t)(end - p), &cp, &why);
        p += k > 0 ? k : 1;
        if (cp == 0x2029 || cp == '\n' || cp == '\r' || cp == 0x1C || cp == 0x1D || cp == 0x1E || cp == 0x85) {
            depth = overflow = 0; /* Bidi_Class B: a new paragraph starts level afresh */
        } else if ((cp >= 0x202A && cp <= 0x202E && cp != 0x202C) || (cp >= 0x2066 && cp <= 0x2068)) {
            if (depth < MAX_DEPTH) stack[depth++] = cp >= 0x2066 ? 'I' : 'E';
            else overflow++;
        } else if (cp == 0x202C) { /* PDF: the innermost embedding, not past an isolate */
            if (overflow) overflow--;
            else if (depth && stack[depth - 1] == 'E') depth--;
        } else if (cp == 0x2069) { /* PDI: the innermost isolate and what it holds, if one is open */
            int at = depth;
            while (at > 0 && stack[at - 1] != 'I') at--;
            if (at > 0) depth = at - 1, overflow = 0;
            else if (overflow) overflow--;
        }
    }
    size_t w = 0;
    out[0] = 0;
    for (int k = 0; k < overflow + depth; k++) {
        int isolate = k >= overflow && stack[depth - 1 - (k - overflow)] == 'I';
        if (w + 3 >= n) break;
        memcpy(out + w, isolate ? "\xE2\x81\xA9" : "\xE2\x80\xAC", 3); /* PDI U+2069, PDF U+202C */
        out[w += 3] = 0;
    }
    return w;
}

size_t av_utf8_escape_controls(const char *s, size_t len, char *out, size_t n, int keep_newline) {
    const unsigned char *u = (const unsigned char *)s;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        unsigned cp = u[i];
        const char *why;
        int k = u[i] >= 0x80 ? av_utf8_decode(u + i, len - i, &cp, &why) : 1;
        if (k <= 0) k = 1, cp = 0xFFFD; /* not UTF-8: the byte as it is */
        char esc[12];
        const char *piece = (const char *)u + i;
        size_t m = (size_t)k;
        if ((cp < 0x20 && !(cp == '\n' && keep_newline)) || (cp >= 0x7F && cp < 0xA0)) {
            snprintf(esc, sizeof esc, "<U+%04X>", cp);
            piece = esc, m = 8;
        }
        if (w + m >= n) break;
        memcpy(out + w, piece, m);
        w += m;
        i += (size_t)k;
    }
    if (n) out[w] = 0;
    return w;
}

size_t av_utf8_shown_name(const char *s, char *out, size_t n) {
    size_t room = n > 64 ? n - 48 : n - (n - 1) / 4; /* the closers' room: 16 of them, fewer in a short out */
    size_t w = av_utf8_escape_controls(s ? s : "", s ? strlen(s) : 0, out, room, 0);
    return w + av_utf8_bidi_closers(out, w, out + w, n - w);
}

const char *av_utf8_shown_middle(char *buf, size_t n, const char *s) {
    char mid[200];
    av_utf8_cut_middle(s ? s : "", s ? strlen(s) : 0, mid, sizeof mid);
    av_utf8_shown_name(mid, buf, n);
    return buf;
}

int av_utf8_cp_width(unsigned cp) {
    if (cp > 0x10FFFF) return 1;
    return utf8proc_charwidth((utf8proc_int32_t)cp);
}

int av_utf8_breaks_beside(unsigned cp) { return av_utf8_cp_width(cp) == 2 && !av_utf8_is_hangul(cp); }

/* ---------------------------------------------------------------- grapheme clusters */

/* UAX #29 rule GB9c (Unicode 15.1), which utf8proc before 2.9 (Unicode 15.0 and older) does not apply:
 * InCB=Consonant [InCB=Extend InCB=Linker]* InCB=Linker [InCB=Extend InCB=Linker]* x InCB=Consonant, so an
 * Indic conjunct is one cluster: "क्ष" (U+0915 U+094D U+0937), where utf8proc 2.6 split it after the virama and
 * a title cut to fit ended "…क्षत्…", the virama hanging before the ellipsis (a lecture-notes author's pass).
 * The Indic_Conjunct_Break values of Unicode 15.1's DerivedCoreProperties.txt: Linker is the virama of the six
 * scripts it names (Devanagari, Bengali, Gujarati, Oriya, Telugu, Malayalam), Consonant their letters of
 * Indic_Syllabic_Category=Consonant, Extend a Grapheme_Cluster_Break=Extend mark of nonzero combining class
 * (the nukta U+093C) or ZWJ. utf8proc 2.9 and later apply the rule themselves (its state does); the values
 * also give a conjunct's terminal columns (av_utf8_cluster_width). */
#if UTF8PROC_VERSION_MAJOR < 2 || (UTF8PROC_VERSION_MAJOR == 2 && UTF8PROC_VERSION_MINOR < 9)
#define AV_GB9C 1
#else
#define AV_GB9C 0
#endif
enum { INCB_NONE, INCB_LINKER, INCB_CONSONANT, INCB_EXTEND };

static int incb(unsigned cp) {
    static const unsigned kConsonant[][2] = {
        {0x0915, 0x0939}, {0x0958, 0x095F}, {0x0978, 0x097F},                   /* Devanagari */
        {0x0995, 0x09A8}, {0x09AA, 0x09B0}, {0x09B2, 0x09B2}, {0x09B6, 0x09B9}, /* Bengali */
        {0x09DC, 0x09DD}, {0x09DF, 0x09DF}, {0x09F0, 0x09F1},
        {0x0A95, 0x0AA8}, {0x0AAA, 0x0AB0}, {0x0AB2, 0x0AB3}, {0x0AB5, 0x0AB9}, /* Gujarati */
        {0x0AF9, 0x0AF9},
        {0x0B15, 0x0B28}, {0x0B2A, 0x0B30}, {0x0B32, 0x0B33}, {0x0B35, 0x0B39}, /* Oriya */
        {0x0B5C, 0x0B5D}, {0x0B5F, 0x0B5F}, {0x0B71, 0x0B71},
        {0x0C15, 0x0C28}, {0x0C2A, 0x0C39}, {0x0C58, 0x0C5A},                   /* Telugu */
        {0x0D15, 0x0D3A}};                                                        /* Malayalam */
    if (cp == 0x094D || cp == 0x09CD || cp == 0x0ACD || cp == 0x0B4D || cp == 0x0C4D || cp == 0x0D4D)
        return INCB_LINKER;
    for (size_t k = 0; k < sizeof kConsonant / sizeof kConsonant[0]; k++)
        if (cp >= kConsonant[k][0] && cp <= kConsonant[k][1]) return INCB_CONSONANT;
    if (cp > 0x10FFFF) return INCB_NONE;
    const utf8proc_property_t *p = utf8proc_get_property((utf8proc_int32_t)cp);
    if (p->boundclass == UTF8PROC_BOUNDCLASS_ZWJ || (p->boundclass == UTF8PROC_BOUNDCLASS_EXTEND && p->combining_class))
        return INCB_EXTEND;
    return INCB_NONE;
}

size_t av_utf8_cluster_len(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    utf8proc_int32_t state = 0;
    size_t at;
    utf8proc_int32_t prev = (utf8proc_int32_t)decode_lenient(u, len, &at);
#if AV_GB9C
    int conjunct = incb((unsigned)prev) == INCB_CONSONANT; /* 1 after a consonant, 2 after it and a linker */
#endif
    while (at < len) {
        size_t k;
        utf8proc_int32_t cp = (utf8proc_int32_t)decode_lenient(u + at, len - at, &k);
#if AV_GB9C
        int c = incb((unsigned)cp);
        if (utf8proc_grapheme_break_stateful(prev, cp, &state) && !(conjunct == 2 && c == INCB_CONSONANT)) break;
        conjunct = c == INCB_CONSONANT ? 1 : c == INCB_LINKER && conjunct ? 2 : c == INCB_EXTEND ? conjunct : 0;
#else
        if (utf8proc_grapheme_break_stateful(prev, cp, &state)) break;
#endif
        prev = cp;
        at += k;
    }
    return at;
}

static int is_pictographic(unsigned cp) {
    int bc = utf8proc_get_property((utf8proc_int32_t)cp)->boundclass;
    return bc == UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC || bc == UTF8PROC_BOUNDCLASS_E_ZWG;
}

int av_utf8_cluster_is_emoji(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    size_t k;
    unsigned first = decode_lenient(u, len, &k);
    if (utf8proc_get_property((utf8proc_int32_t)first)->boundclass == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR)
        return k < len; /* a flag is two regional indicators; one alone is a letter-like symbol */
    size_t k2, k3;
    int vs16 = k < len && decode_lenient(u + k, len - k, &k2) == 0xFE0F;
    if ((first >= '0' && first <= '9') || first == '#' || first == '*') /* a keycap: 1 U+FE0F U+20E3 */
        return vs16 && k + k2 < len && decode_lenient(u + k + k2, len - k - k2, &k3) == 0x20E3;
    if (!is_pictographic(first)) return 0;
    return av_utf8_cp_width(first) == 2 || vs16;
}

int av_utf8_cluster_width(const char *s, size_t len) {
    if (len == 0) return 0;
    if (av_utf8_cluster_is_emoji(s, len)) return 2;
    const unsigned char *u = (const unsigned char *)s;
    int w = 0, wide = 0, joined = 0, linker = 0; /* the widest code point; how many are wide; conjuncts' columns */
    for (size_t at = 0, k; at < len; at += k) {
        unsigned cp = decode_lenient(u + at, len - at, &k);
        int cw = av_utf8_cp_width(cp), c = incb(cp);
        if (c == INCB_CONSONANT && linker) joined += cw; /* a terminal gives "क्ष" a cell per consonant, 2 */
        linker = c == INCB_LINKER || (linker && c == INCB_EXTEND);
        if (cw > w) w = cw;
        wide += cw == 2;
    }
    return w + joined + (wide > 1 ? 2 * (wide - 1) : 0);
}

int av_utf8_width(const char *s) {
    size_t len = strlen(s);
    int w = 0;
    for (size_t at = 0; at < len;) {
        size_t n = av_utf8_cluster_len(s + at, len - at);
        w += av_utf8_cluster_width(s + at, n);
        at += n;
    }
    return w;
}

char *av_utf8_nfc(const char *s, size_t len, size_t *out_len) {
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &out,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (n < 0) return NULL;
    *out_len = (size_t)n;
    return (char *)out;
}

const char *av_utf8_list_sep(const char *s, size_t *len) {
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u == ',') return *len = 1, (const char *)u;
        if (u[0] == 0xEF && u[1] == 0xBC && u[2] == 0x8C) return *len = 3, (const char *)u; /* && stops at a NUL */
    }
    return NULL;
}

const char *av_utf8_unspaced_script(const char *s, size_t len, int *count) {
    static const struct { unsigned lo, hi; const char *name; } kScripts[] = {
        {0x0E00, 0x0E7F, "Thai"}, {0x0E80, 0x0EFF, "Lao"}, {0x1000, 0x109F, "Myanmar"}, {0x1780, 0x17FF, "Khmer"}};
    const char *name = NULL;
    unsigned lo = 0, hi = 0;
    *count = 0;
    const unsigned char *u = (const unsigned char *)s, *end = u + len;
    while (u < end) {
        unsigned cp;
        const char *why;
        int k = av_utf8_decode(u, (size_t)(end - u), &cp, &why);
        if (k == 0) break;
        u += k;
        for (size_t i = 0; !name && i < sizeof kScripts / sizeof kScripts[0]; i++)
            if (cp >= kScripts[i].lo && cp <= kScripts[i].hi) name = kScripts[i].name, lo = kScripts[i].lo, hi = kScripts[i].hi;
        if (name && cp >= lo && cp <= hi) (*count)++;
    }
    return name;
}

const char *av_utf8_not_a_list_sep(const char *s) {
    static const char *const kNot[][2] = {{"\xE3\x80\x81", "the enumeration comma '\xE3\x80\x81'"},
                                          {"\xEF\xBC\x9B", "the full-width semicolon '\xEF\xBC\x9B'"},
                                          {";", "the semicolon ';'"},
                                          {"\xE3\x80\x82", "the ideographic full stop '\xE3\x80\x82'"},
                                          {"\xEF\xBC\x9A", "the full-width colon '\xEF\xBC\x9A'"},
                                          {":", "the colon ':'"},
                                          {"\xE2\x86\x92", "the arrow '\xE2\x86\x92'"},
                                          {"->", "the arrow '->'"},
                                          {"|", "the vertical bar '|'"},
                                          {"/", "the slash '/'"}};
    const char *first = NULL, *which = NULL;
    for (size_t i = 0; i < sizeof kNot / sizeof kNot[0]; i++) {
        const char *at = strstr(s, kNot[i][0]);
        if (at && i == 3 && !at[3]) at = NULL; /* "heads。": a sentence's full stop at the end, not between names */
        /* the '/' of a part label's "(1/3)" (the figures' "爱(1/3)", tokenize.h av_tokens_piece_labels) is none */
        for (size_t d; at && *at == '/' && at > s && at[-1] >= '0' && at[-1] <= '9' &&
                       (d = strspn(at + 1, "0123456789")) > 0 &&
                       (at[1 + d] == ')' || !strncmp(at + 1 + d, "\xEF\xBC\x89", 3));)
            at = strchr(at + 1, '/');
        if (at && (!first || at < first)) first = at, which = kNot[i][1];
    }
    return which;
}

size_t av_utf8_trailing_mark(const char *s, size_t len, unsigned *cp, const char **name) {
    static const struct {
        unsigned cp;
        const char *name;
    } kMarks[] = {{0x3002, "an ideographic full stop"}, {0x3001, "an ideographic comma"},
                  {0xFF0C, "a full-width comma"},       {0xFF1B, "a full-width semicolon"},
                  {0xFF1A, "a full-width colon"},       {0xFF01, "a full-width exclamation mark"},
                  {0xFF1F, "a full-width question mark"}};
    if (len <= 3) return 0;
    unsigned c;
    const char *why;
    if (av_utf8_decode((const unsigned char *)s + len - 3, 3, &c, &why) != 3) return 0;
    for (size_t i = 0; i < sizeof kMarks / sizeof kMarks[0]; i++)
        if (kMarks[i].cp == c) {
            if (cp) *cp = c;
            if (name) *name = kMarks[i].name;
            return 3;
        }
    return 0;
}

int av_utf8_lookalike_dash(const char *s, unsigned *cp, const char **name) {
    static const struct { const char *utf8, *name; unsigned cp; } kDashes[] = {
        {"\xE2\x80\x94", "an em dash", 0x2014}, {"\xE2\x80\x93", "an en dash", 0x2013},
        {"\xEF\xBC\x8D", "a full-width hyphen-minus", 0xFF0D},
        {"\xE2\x88\x92", "the minus sign of typeset text", 0x2212}, {"\xE2\x80\x90", "a typographic hyphen", 0x2010}};
    for (size_t i = 0; i < sizeof kDashes / sizeof kDashes[0]; i++)
        if (strncmp(s, kDashes[i].utf8, 3) == 0) {
            if (cp) *cp = kDashes[i].cp;
            if (name) *name = kDashes[i].name;
            return 3;
        }
    return 0;
}

/* The value of a Chinese digit ("〇", "零", "一".."九", "两"; the financial forms "壹".."玖"; the traditional
 * "兩" and the traditional financial "貳" "叄" "陸", Unihan kTraditionalVariant of 两 贰 叁 陆) or -1. 參, which
 * Taiwan also writes for the financial 3, is left out: it starts everyday words (參數 "parameters", 參考), which
 * would read as a numeral's own characters after a number ("512參數", av_utf8_chinese_numeral). */
static int chinese_digit(unsigned cp) {
    static const unsigned kDigits[][5] = {{0x3007, 0x96F6}, {0x4E00, 0x58F9}, {0x4E8C, 0x8D30, 0x4E24, 0x8CB3, 0x5169},
                                          {0x4E09, 0x53C1, 0x53C4}, {0x56DB, 0x8086}, {0x4E94, 0x4F0D},
                                          {0x516D, 0x9646, 0x9678}, {0x4E03, 0x67D2}, {0x516B, 0x634C},
                                          {0x4E5D, 0x7396}}; /* 〇零 一壹 二贰两貳兩 三叁叄 四肆 五伍 六陆陸 七柒 八捌 九玖 */
    for (int d = 0; d < 10; d++)
        for (int k = 0; k < 5; k++)
            if (kDigits[d][k] && kDigits[d][k] == cp) return d;
    return -1;
}

/* The power of ten of a Chinese unit: 十 拾 1, 百 佰 2, 千 仟 3, 万 萬 4, 亿 億 8 (萬 億 the traditional forms);
 * else 0. */
static int chinese_unit(unsigned cp) {
    switch (cp) {
    case 0x5341: case 0x62FE: return 1; /* 十 拾 */
    case 0x767E: case 0x4F70: return 2; /* 百 佰 */
    case 0x5343: case 0x4EDF: return 3; /* 千 仟 */
    case 0x4E07: case 0x842C: return 4; /* 万 萬 */
    case 0x4EBF: case 0x5104: return 8; /* 亿 億 */
    default: return 0;
    }
}

int av_utf8_chinese_numeral(unsigned cp) { return chinese_digit(cp) >= 0 || chinese_unit(cp) > 0; }

int av_utf8_han_form(char *out, size_t n, const char *s, int simplified) {
    static const unsigned kPairs[][2] = {{0x7231, 0x611B}, {0x5B66, 0x5B78}, {0x4E60, 0x7FD2}}; /* 爱愛 学學 习習 */
    size_t k = 0;
    int changed = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        const unsigned char *at = u;
        unsigned cp = av_utf8_next(&u), other = 0;
        for (size_t i = 0; !other && i < sizeof kPairs / sizeof kPairs[0]; i++)
            if (kPairs[i][simplified] == cp) other = kPairs[i][!simplified]; /* one in the other form */
        char enc[4];
        size_t len = other ? (size_t)av_utf8_encode(other, enc) : (size_t)(u - at);
        if (k + len + 1 > n) break;
        memcpy(out + k, other ? enc : (const char *)at, len), k += len, changed += other != 0;
    }
    out[k] = 0;
    return changed;
}

int av_utf8_chinese_number(char *out, size_t cap, const char *s, int real) {
    const unsigned char *u = (const unsigned char *)s, *end = u + strlen(s);
    /* the number as terms digit·10^exp, in the order read: 万 moves its section's terms up 4 places, 亿 its
     * group's (since the last 亿) up 8, 亿亿 the group before it 8 more; a numeral as it is read has its terms'
     * places falling, checked at the end ("三亿五千万亿" is not) */
    struct { int d, e; } t[64];
    int nt = 0, sec = 0, grp = 0, prev_grp = 0, last = 0, unit = 0; /* the last character's and unit's power: 1 for
                                                                     * 十 百 千, 4 万, 8 亿; last 0 for a digit */
    int digit = -1, liang = 0, liangs = 0, last_unit = 99, big_unit = 0, zero = 0, any = 0, units = 0,
        plain_n = 0, neg = 0, adjacent = 0;
    char plain[64], frac[32] = "";
    size_t nf = 0;
    unsigned cp;
    const char *why;
    int k = av_utf8_decode(u, (size_t)(end - u), &cp, &why);
    if (k > 0 && (cp == 0x8D1F || cp == 0x8CA0)) u += k, neg = 1; /* 负 (負 traditional) */
    for (; u < end; u += k) {
        if ((k = av_utf8_decode(u, (size_t)(end - u), &cp, &why)) <= 0) return 0;
        int d = chinese_digit(cp), p = chinese_unit(cp);
        if (cp == 0x70B9 || cp == 0x9EDE) { /* 点 (點 traditional): the rest are digits after the point */
            if (!real || !any || liang) return 0;
            for (u += k; u < end; u += k) {
                if ((k = av_utf8_decode(u, (size_t)(end - u), &cp, &why)) <= 0 || (d = chinese_digit(cp)) < 0 ||
                    cp == 0x4E24 || cp == 0x5169 || nf + 1 >= sizeof frac)
                    return 0;
                frac[nf++] = (char)('0' + d);
            }
            if (!nf) return 0;
            frac[nf] = 0;
            break;
        }
        if (d >= 0) {
            if (plain_n + 1 >= (int)sizeof plain || liang) return 0; /* 两 counts only before 百 千 万 亿: "两百两" */
            plain[plain_n++] = (char)('0' + d); /* read one by one, if no unit follows */
            liang = cp == 0x4E24 || cp == 0x5169, liangs += liang; /* 两 兩 */
            adjacent |= digit >= 0; /* "五一二", or with a unit "五一二百", refused below */
            if (d == 0) zero = 1, digit = -1;
            else digit = d;
            any = 1, last = 0;
        } else if (p && p < 4) { /* 十 百 千 within a section */
            /* a bare 十 starts a number ("十二") or follows 零 after a unit ("一千零十" 1010) */
            if (p >= last_unit || (liang && p == 1) || (digit < 0 && !(p == 1 && (!any || (zero && units)))))
                return 0;
            if (nt + 1 >= (int)(sizeof t / sizeof t[0])) return 0;
            t[nt].d = digit < 0 ? 1 : digit, t[nt++].e = p;
            last_unit = p, digit = -1, zero = 0, units = any = 1, liang = 0, last = unit = 1;
        } else if (p) { /* 万 亿: close a section */
            if (liang && nt > sec) return 0; /* "十两万": 两 only as a section's one digit */
            if (digit >= 0) {
                if (nt + 1 >= (int)(sizeof t / sizeof t[0])) return 0;
                t[nt].d = digit, t[nt++].e = 0;
            }
            int from = p == 4 ? sec : grp;
            if (p == 8 && nt == grp && last == 8 && prev_grp < grp) from = prev_grp; /* 亿亿 */
            else if (nt == from || (p == 4 && big_unit == 4)) return 0; /* "万", "一亿万", "一万万" */
            else if (p == 8) prev_grp = grp;
            for (int i = from; i < nt; i++)
                if ((t[i].e += p) > 60) return 0;
            if (p == 8) grp = nt;
            sec = nt, big_unit = p == 8 ? 0 : 4;
            last_unit = 99, digit = -1, zero = 0, units = any = 1, liang = 0, last = unit = p;
        } else return 0;
    }
    if (!any || (units && adjacent) || (liangs && (units ? liang : plain_n > 1))) return 0;
    if (!units) { /* "五一二": no unit, the digits as written */
        for (int i = 0; i < plain_n; i++) t[nt].d = plain[i] - '0', t[nt++].e = plain_n - 1 - i;
    } else if (digit >= 0) { /* "二百五": 250, "二百零五": 205, "三万五": 35000 */
        int down = zero ? 0 : unit == 1 ? last_unit - 1 : unit - 1;
        t[nt].d = digit, t[nt++].e = down;
    }
    for (int i = 1; i < nt; i++)
        if (t[i].e >= t[i - 1].e) return 0; /* places not falling: "一亿二亿", "三亿五千万亿" */
    char digits[64];
    int top = nt ? t[0].e : 0, nd = 0;
    if (top + 2 > (int)sizeof digits) return 0;
    memset(digits, '0', (size_t)top + 1), digits[top + 1] = 0;
    for (int i = 0; i < nt; i++) digits[top - t[i].e] = (char)('0' + t[i].d);
    while (nd < top && digits[nd] == '0') nd++; /* "〇五": 5 */
    if ((size_t)snprintf(out, cap, "%s%s%s%s", neg ? "-" : "", digits + nd, nf ? "." : "", frac) >= cap) return 0;
    return 1;
}

int av_utf8_halfwidth_text(char *out, size_t n, const char *s, int *other) {
    size_t k = 0;
    int wide = 0, others = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        const unsigned char *at = u;
        unsigned cp = av_utf8_next(&u);
        int h = av_utf8_halfwidth(cp);
        size_t len = h ? 1 : (size_t)(u - at);
        if (k + len + 1 > n) {
            out[k] = 0;
            if (other) *other = others;
            return -1;
        }
        if (h) out[k++] = (char)h, wide++;
        else memcpy(out + k, at, len), k += len, others += cp >= 0x80;
    }
    out[k] = 0;
    if (other) *other = others;
    return wide;
}

int av_utf8_invisible(unsigned cp) {
    av_ucat cat = av_utf8_category(cp);
    return cat == AV_UC_ZS || cat == AV_UC_ZL || cat == AV_UC_ZP || cat == AV_UC_CC || cat == AV_UC_CF;
}

/* 1 when p's first character cannot be pasted back as the terminal shows it: a control character (C0, DEL,
 * C1: a CR showed as <U+000D>, a raw ESC redraws the terminal), a bidi embedding, override or isolate
 * (U+202A..202E, U+2066..2069: the rest of the command read backwards, as av_command_line escapes them) or a
 * byte that is not UTF-8 (shown as U+FFFD); else 0. *len gets the character's bytes (1 for a byte that is
 * not UTF-8). */
static int unpastable(const unsigned char *p, size_t left, size_t *len) {
    unsigned cp;
    const char *why;
    int k = av_utf8_decode(p, left, &cp, &why);
    if (k <= 0) return *len = 1, 1;
    *len = (size_t)k;
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* av_shell_word's quoting; with dollar, each byte unpastable names written in $'...' as GNU ls does
 * ('a'$'\r''b', \ooo for a byte without a letter escape), else every byte copied inside the quotes. */
static void shell_word(char *buf, size_t n, const char *s, int dollar) {
    int plain = *s != 0;
    size_t len = strlen(s);
    for (const unsigned char *p = (const unsigned char *)s; plain && *p; p++) {
        if (*p >= 0x80) { /* a UTF-8 character stays plain unless it is invisible: '　x　' showed as "　x　" */
            unsigned cp;
            const char *why;
            int k = av_utf8_decode(p, len - (size_t)(p - (const unsigned char *)s), &cp, &why);
            plain = k > 0 && !av_utf8_invisible(cp);
            if (plain) p += k - 1;
            continue;
        }
        plain = (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') || strchr("_-./:=,+@%^", *p);
    }
    if (plain) {
        snprintf(buf, n, "%s", s);
        av_utf8_trim_cut(buf); /* no half character where it was cut */
        return;
    }
    /* in: 1 inside '...', 2 inside $'...'; a piece is added whole while 5 bytes are left after it (the closing
     * quote and NUL fit; a long word is cut where it was before $'...') */
    size_t k = 0, c;
    int in = 1;
    buf[k++] = '\'';
    for (const unsigned char *p = (const unsigned char *)s; *p; p += c) {
        char piece[64];
        size_t m = 0;
        if (unpastable(p, len - (size_t)(p - (const unsigned char *)s), &c) && dollar) {
            if (in == 1) memcpy(piece, "'$'", 3), m = 3;
            for (size_t i = 0; i < c; i++) { /* \a \b \t \n \v \f \r by letter (bytes 7..13), the rest \ooo */
                if (p[i] >= 7 && p[i] <= 13) m += (size_t)snprintf(piece + m, 8, "\\%c", "abtnvfr"[p[i] - 7]);
                else m += (size_t)snprintf(piece + m, 8, "\\%03o", p[i]);
            }
            if (k + m + 5 > n) break;
            memcpy(buf + k, piece, m), k += m, in = 2;
            continue;
        }
        if (in == 2) memcpy(piece, "''", 2), m = 2; /* $'\r' closed, '...' opened */
        if (*p == '\'') memcpy(piece + m, "'\\''", 4), m += 4;
        else memcpy(piece + m, p, c), m += c;
        if (k + m + 5 > n) break;
        memcpy(buf + k, piece, m), k += m, in = 1;
    }
    buf[k++] = '\'';
    buf[k] = 0;
}

void av_shell_word(char *buf, size_t n, const char *s) {
    shell_word(buf, n, s, 1);
}

/* 1 when shell_word writes the word into n bytes whole: a plain word and its NUL fit, or a quoted one with the 5
 * bytes shell_word keeps after each piece (the last piece ends at most 5 bytes before n, and the closing quote
 * follows it); else 0. */
static int word_fits(const char *word, size_t n) {
    return strlen(word) + (word[0] == '\'' ? 4 : 1) <= n;
}

/* av_shown_word's word of path into buf (n >= 8 bytes): whole when it fits n, else its longest start whose word
 * fits n - 3, room left for the "..." that the caller writes after it; returns 1 when it was cut, else 0. */
static int shown_word(char *buf, size_t n, const char *path) {
    char shown[4200], word[4 * sizeof shown + 8]; /* each ' is 4 bytes, '\'' */
    size_t len = av_utf8_shown_name(path, shown, sizeof shown);
    shell_word(word, sizeof word, shown, 0);
    int cut = !word_fits(word, n);
    if (!cut && len + 64 >= sizeof shown) { /* shown may hold only a start of a name past 4 KB: cut, then, too */
        size_t m = 8 * strlen(path) + 64; /* a byte is at most 8 bytes shown (<U+XXXX>), and the closers */
        char *all = malloc(m);
        cut = all && av_utf8_shown_name(path, all, m) > len;
        free(all);
    }
    if (cut) {
        n -= 3; /* the "..." after the cut word */
        /* the longest shown name whose word fits n, cut in the name (cut in the word, a name would lose its bidi
         * closers): a bisection over av_utf8_shown_name's size m, whose room for the name grows with m from 1 to
         * 64 (to 49 bytes) and again from 65 (17 bytes, 48 kept for closers) on, so over the part of m where the
         * answer lies (m = 1, "", gives ''). Taking the word's excess off the name, a byte of name for a byte of word,
         * cut far too much of a name of quotes (each ' is 4 bytes in the word): `-f "~/x'x'...x'"` (66 "x'") was
         * named "--file ''", and with 40 "x'" 29 of its 82 bytes were shown (a tester's pass) */
        size_t lo = 1, hi = 65; /* the word of size lo fits, that of hi does not */
        av_utf8_shown_name(path, shown, hi);
        shell_word(word, sizeof word, shown, 0);
        if (word_fits(word, n)) lo = hi, hi = len + 49 < sizeof shown ? len + 49 : sizeof shown;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            av_utf8_shown_name(path, shown, mid);
            shell_word(word, sizeof word, shown, 0);
            if (word_fits(word, n)) lo = mid;
            else hi = mid;
        }
        av_utf8_shown_name(path, shown, lo);
    }
    shell_word(buf, n, shown, 0); /* a byte that is not UTF-8 stays as it was, U+FFFD on the terminal */
    return cut;
}

const char *av_shown_word(char *buf, size_t n, const char *path) {
    if (shown_word(buf, n, path)) strcat(buf, "...");
    return buf;
}

const char *av_quoted_word(char *buf, size_t n, const char *s) {
    int cut = shown_word(buf + 1, n - 2, s);
    if (buf[1] == '\'') memmove(buf, buf + 1, strlen(buf + 1) + 1);
    else buf[0] = '\'', strcat(buf, "'");
    if (cut) strcat(buf, "..."); /* after the closing quote, as av_shown_word writes it */
    return buf;
}
