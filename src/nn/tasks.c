/* tasks.c - the toy tasks and their vocabulary (see tasks.h for the formats). */
#include "nn/tasks.h"

#include "base/utf8.h"
#include "text/tokenize.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------------
 * the vocabulary */

/* bytes_to_unicode: the printable bytes '!'..'~', '¡'..'¬', '®'..'ÿ' stand for
 * themselves; the other 68 bytes are moved to 256, 257, ... in byte order. */
static int byte_is_printable(int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174); }

int av_toy_byte_codepoint(int b) {
    if (byte_is_printable(b)) return b;
    int n = 0;
    for (int x = 0; x < b; x++) n += !byte_is_printable(x);
    return 256 + n;
}

int av_toy_byte_id(int b) {
    /* ids follow the printable bytes in order, then the moved ones in order */
    int id = 0;
    if (byte_is_printable(b)) {
        for (int x = 0; x < b; x++) id += byte_is_printable(x);
        return id;
    }
    id = 188; /* 94 + 12 + 82 printable bytes come first */
    for (int x = 0; x < b; x++) id += !byte_is_printable(x);
    return id;
}

int av_toy_merge_byte(int r) { return r < 10 ? '0' + r : r == 10 ? '>' : 'a' + (r - 11); }

int av_toy_token_text(int id, char *out) {
    if (id < 0 || id >= AV_TOY_VOCAB) return -1;
    if (id == AV_TOY_EOT) { strcpy(out, "<|endoftext|>"); return 0; }
    if (id >= 256) { out[0] = ' '; out[1] = (char)av_toy_merge_byte(id - 256); out[2] = 0; return 0; }
    for (int b = 0; b < 256; b++)
        if (av_toy_byte_id(b) == id) { out[0] = (char)b; out[1] = 0; return 0; }
    return -1;
}

/* Token id of character ch ('0'..'9', '>', 'a'..'z'), with a leading space or not. */
static int toy_id(int ch, int space) {
    if (!space) return av_toy_byte_id(ch);
    int r = ch == '>' ? 10 : (ch >= '0' && ch <= '9') ? ch - '0' : 11 + (ch - 'a');
    return 256 + r;
}

/* ----------------------------------------------------------------------------
 * the tasks */

static const char *const task_names[AV_TASK_COUNT] = {"reverse", "sort", "induction"};

const char *av_task_name(av_task_kind kind) { return task_names[kind]; }

const char *av_task_prompt_text(av_task_kind kind) { return kind == AV_TASK_INDUCTION ? "k q a z m k q a" : "3 1 4 1 5 >"; }

int av_task_max_T(av_task_kind kind) { return kind == AV_TASK_INDUCTION ? AV_INDUCTION_MAX_T : 2 * AV_TASK_MAX_DIGITS + 1; }

int av_task_find(const char *name) {
    for (int k = 0; k < AV_TASK_COUNT; k++)
        if (strcmp(name, task_names[k]) == 0) return k;
    return -1;
}

static uint32_t rand_below(av_rng *r, uint32_t n) { return (uint32_t)(av_rng_next(r) >> 33) % n; }

/* reverse / sort from the n digits d: prompt "d0 d1 .. >", answer digits ans. */
static void digits_example(av_task_example *ex, const int *d, int n, int sort) {
    int ans[AV_TASK_MAX_DIGITS], order[AV_TASK_MAX_DIGITS];
    for (int i = 0; i < n; i++) order[i] = i;
    if (sort) /* stable insertion sort of the positions by digit */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && d[order[j - 1]] > d[order[j]]; j--) {
                int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
            }
    for (int k = 0; k < n; k++) ans[k] = sort ? d[order[k]] : d[n - 1 - k];
    memset(ex, 0, sizeof *ex);
    for (int i = 0; i < n; i++) ex->tokens[i] = toy_id('0' + d[i], i > 0);
    ex->tokens[n] = toy_id('>', 1);
    for (int k = 0; k < n; k++) ex->tokens[n + 1 + k] = toy_id('0' + ans[k], 1);
    ex->T = 2 * n + 1;
    ex->n_prompt = n + 1;
    ex->n_answer = n;
    for (int k = 0; k < n; k++) {
        ex->answer_q[k] = n + k;
        if (!sort) ex->target[k] = 1u << (n - 1 - k);
        else
            for (int i = 0; i < n; i++)
                if (d[i] == ans[k]) ex->target[k] |= 1u << i;
    }
}

/* induction from the distinct letters a[0..n1-1]: then a[s], a[s+1], ...,
 * each next letter the one that followed the current letter's first
 * occurrence (so a[s..n1-1] repeats, once or more), up to T tokens. Every
 * position from n1 on holds a letter seen before and is scored; its targets
 * are the positions right after the earlier occurrences of its letter. */
static void induction_example(av_task_example *ex, const int *a, int n1, int s, int T) {
    int letter[AV_TASK_MAX_T]; /* the letter at each position (" k" and "k" are both 'k') */
    memset(ex, 0, sizeof *ex);
    for (int t = 0; t < T; t++) {
        letter[t] = t < n1 ? a[t] : a[s + (t - n1) % (n1 - s)];
        ex->tokens[t] = toy_id(letter[t], t > 0);
    }
    ex->T = T;
    ex->n_prompt = T - 1;
    ex->n_answer = T - 1 - n1;
    for (int i = 0; i < ex->n_answer; i++) {
        int q = n1 + i;
        ex->answer_q[i] = q;
        for (int j = 1; j <= q; j++)
            if (letter[j - 1] == letter[q]) ex->target[i] |= 1u << j;
    }
}

void av_task_sample(av_task_example *ex, av_task_kind kind, av_rng *r) {
    if (kind != AV_TASK_INDUCTION) {
        int d[AV_TASK_MAX_DIGITS];
        int n = AV_TASK_MIN_DIGITS + (int)rand_below(r, AV_TASK_MAX_DIGITS - AV_TASK_MIN_DIGITS + 1);
        for (int i = 0; i < n; i++) d[i] = (int)rand_below(r, 10);
        digits_example(ex, d, n, kind == AV_TASK_SORT);
        return;
    }
    /* Two choices make training find a real induction head (docs/train.md
     * has the runs, seed 42 and others):
     * - The repeat starts at least AV_INDUCTION_MIN_GAP positions after the
     *   first occurrence. With shorter gaps (the first version drew 3..10
     *   letters and started the repeat anywhere, so about 1 sequence in 4
     *   had a gap of 2), a layer-0 head that looks a fixed 1 or 2 tokens
     *   back already copies the answer; training built on such shortcuts,
     *   and no head ended on the target.
     * - Each letter after the first is, with probability 1/2, the next
     *   letter of the alphabet not used yet (after z comes a), else any
     *   unused letter. With uniform letters and gaps >= 6 the model learned
     *   the task with layer-0 heads that look at fixed positions and no
     *   induction head (best head 0.32). The alphabet rule is a global
     *   bigram beside the in-context one: the loss falls below ln 26 on it
     *   before any head finds the target, then the induction heads form
     *   (the data of Bietti et al. 2023, "Birth of a Transformer: A Memory
     *   Viewpoint", mixes the two kinds too). */
    int letters[26], used[26] = {0};
    int n1 = AV_INDUCTION_MIN_GAP + (int)rand_below(r, 9); /* 6..14 distinct letters */
    for (int i = 0; i < n1; i++) {
        int c = -1;
        if (i > 0 && (av_rng_next(r) >> 63) == 0) { /* the next unused letter after letters[i-1] */
            c = (letters[i - 1] - 'a' + 1) % 26;
            while (used[c]) c = (c + 1) % 26;
        } else { /* any unused letter */
            int pick = (int)rand_below(r, (uint32_t)(26 - i));
            for (int x = 0; c < 0; x++)
                if (!used[x] && pick-- == 0) c = x;
        }
        used[c] = 1;
        letters[i] = 'a' + c;
    }
    int s = (int)rand_below(r, (uint32_t)(n1 - AV_INDUCTION_MIN_GAP + 1)); /* the repeat starts at a[s] */
    int T = n1 + 2 + (int)rand_below(r, (uint32_t)(AV_INDUCTION_MAX_T - n1 - 1)); /* n1+2 .. 24 tokens */
    induction_example(ex, letters, n1, s, T);
}

void av_task_probe(av_task_example *ex, av_task_kind kind) {
    static const int pi[5] = {3, 1, 4, 1, 5};
    static const int kq[5] = {'k', 'q', 'a', 'z', 'm'};
    if (kind == AV_TASK_INDUCTION) induction_example(ex, kq, 5, 0, 9);
    else digits_example(ex, pi, 5, kind == AV_TASK_SORT);
}

/* The character whose UTF-8 bytes start at token k, when ids[k..] are byte
 * tokens of one non-ASCII character (the toy vocabulary has no other way to
 * hold it): its code point and byte count into *cp, *len, and 1; else 0. */
static int non_ascii_at(const int32_t *ids, int T, int k, unsigned *cp, int *len) {
    unsigned char b[4];
    char t[16];
    int m = 0;
    while (m < 4 && k + m < T && av_toy_token_text(ids[k + m], t) == 0 && (unsigned char)t[0] >= 0x80 && !t[1])
        b[m++] = (unsigned char)t[0];
    if (m == 0) return 0;
    const char *bad;
    *len = av_utf8_decode(b, (size_t)m, cp, &bad);
    return *len > 0;
}

/* why for a non-ASCII character of len bytes at a token (what: "a digit or >"; induction: the task
 * takes a-z, else digits and >): a full-width form (U+FF01..U+FF5E, U+3000), as a Chinese or Japanese
 * input method types it, names its half-width twin, and says to type it only when the task takes it
 * ('Ｋ' for induction: the half-width 'K' is outside the task too); a combining mark (general category
 * Mn or Me, e.g. U+0301) is named by code point only, since quoted it would attach to the quote; any
 * other character names itself. */
static void non_ascii_why(char *why, size_t n, unsigned cp, int len, const char *what, int induction) {
    char c[16]; /* as a label shows it alone: <U+0085>, <U+FEFF> (text/tokenize.h av_label_char_alone) */
    av_label_char_alone(c, cp);
    av_ucat cat = av_utf8_category(cp);
    char h = (char)av_utf8_halfwidth(cp);
    if (h) {
        int takes = induction ? (h >= 'a' && h <= 'z') : (h == '>' || (h >= '0' && h <= '9'));
        if (takes)
            snprintf(why, n, "is the first of %d bytes of '%s' (U+%04X), the full-width form of '%c': type the "
                     "half-width '%c' (半角)", len, c, cp, h, h);
        else
            snprintf(why, n, "is the first of %d bytes of '%s' (U+%04X), the full-width form of '%c', and the "
                     "half-width '%c' is not %s either", len, c, cp, h, h, what);
    } else if (cp == 0x3000)
        snprintf(why, n, "is the first of %d bytes of U+3000, the full-width (ideographic) space: type a half-width "
                 "space (半角)", len);
    else if (cat == AV_UC_MN || cat == AV_UC_ME)
        snprintf(why, n, "is the first of %d bytes of U+%04X, a combining mark, not %s", len, cp, what);
    else snprintf(why, n, "is the first of %d bytes of '%s' (U+%04X), not %s", len, c, cp, what);
}

/* 1 if token k exists and is one ASCII character that is not whitespace and not one the task takes (a
 * digit or >; induction: a-z): the tokenizer splits " <" into a lone space and "<" because the toy
 * vocabulary merges a space only with the task's characters, so the text had one space there and the
 * character is at fault, not the space ("3 1 4 1 5 <" blamed "token 5 [␣] is whitespace on its own").
 * A space then a character the task takes ("␣" "5", as a generation can give) stays the space's fault. */
static int space_then_outside(const int32_t *ids, int T, int k, int induction) {
    char u[16];
    if (k >= T || av_toy_token_text(ids[k], u) != 0 || !u[0] || u[1]) return 0;
    int c = (unsigned char)u[0];
    if (c >= 0x80 || strchr(" \t\n\r\v\f", c)) return 0;
    return induction ? !(c >= 'a' && c <= 'z') : !(c == '>' || (c >= '0' && c <= '9'));
}

int av_task_ids_outside(av_task_kind kind, const int32_t *ids, int T, int *bad, char *why, size_t n) {
    int induction = kind == AV_TASK_INDUCTION, digits = 0, answers = 0, seen_gt = 0;
    int prompt[AV_TASK_MAX_DIGITS], answer_at[AV_TASK_MAX_DIGITS]; /* the digits; where each answer digit is */
    char letter[AV_INDUCTION_MAX_T + 1]; /* induction: the letter of each token, while T fits */
    const char *what = induction ? "a lowercase letter" : "a digit or >";
    *bad = -1;
    for (int k = 0; k < T; k++) {
        char t[16];
        if (av_toy_token_text(ids[k], t) != 0) t[0] = 0;
        int space = t[0] == ' ', c = (unsigned char)t[space], one = c && !t[space + 1];
        int ok = one && (induction ? (c >= 'a' && c <= 'z') : (c == '>' || (c >= '0' && c <= '9')));
        const char *ws = " \t\n\r\v\f";
        unsigned cp;
        int len;
        *bad = k;
        /* a space the tokenizer left alone because a non-ASCII character follows ("5 ＞"): that character */
        if (!strcmp(t, " ") && non_ascii_at(ids, T, k + 1, &cp, &len)) *bad = k + 1;
        if (*bad > k || non_ascii_at(ids, T, k, &cp, &len)) non_ascii_why(why, n, cp, len, what, induction);
        else if (!strcmp(t, " ") && space_then_outside(ids, T, k + 1, induction)) {
            *bad = k + 1; /* likewise before an ASCII character the toy vocabulary has no " x" merge for ("5 <") */
            snprintf(why, n, "is not %s", what);
        }
        else if (t[0] && strspn(t, ws) == strlen(t))
            snprintf(why, n, "is whitespace on its own: the task's text has one space between tokens, none at "
                     "either end");
        else if (!ok) snprintf(why, n, "is not %s", what);
        else if (k == 0 && space) snprintf(why, n, "starts with a space: the task's text has none before its first token");
        else if (k > 0 && !space) { /* "10 2 >": say the 10 is two tokens, which a number of the task never is */
            char before[16];
            if (av_toy_token_text(ids[k - 1], before) != 0) before[0] = 0;
            int pc = (unsigned char)before[before[0] == ' '], both_digits = isdigit(pc) && isdigit(c);
            if (pc && !before[(before[0] == ' ') + 1])
                snprintf(why, n, "has no space before it: '%c%c' is two %s, and the task's text has one space between "
                         "tokens", pc, c, induction ? "letters" : both_digits ? "digits (its numbers are 0 to 9)"
                                                                              : "tokens");
            else snprintf(why, n, "has no space before it: the task's text has one between tokens");
        }
        else if (c == '>' && seen_gt) snprintf(why, n, "is a second >");
        else {
            *bad = -1;
            if (induction && k <= AV_INDUCTION_MAX_T) letter[k] = (char)c;
            if (c == '>') seen_gt = 1;
            else if (!induction && seen_gt) {
                if (answers < AV_TASK_MAX_DIGITS) answer_at[answers] = k;
                answers++;
            } else if (!induction) {
                if (digits < AV_TASK_MAX_DIGITS) prompt[digits] = c - '0';
                digits++;
            }
            continue;
        }
        return 1;
    }
    if (induction && T > AV_INDUCTION_MAX_T) {
        snprintf(why, n, "%d letters; its sequences have at most %d", T, AV_INDUCTION_MAX_T);
        return 1;
    }
    /* induction: a letter seen before is followed by the letter that followed its first occurrence
     * ("k q a z m k q a" goes on with z); a letter seen for the first time may be followed by any */
    for (int k = 1; induction && k < T; k++)
        for (int f = 0; f < k - 1; f++) {
            if (letter[f] != letter[k - 1]) continue;
            if (letter[k] == letter[f + 1]) break;
            *bad = k;
            snprintf(why, n, "is not the task's answer: after %c comes %c, the letter after the first %c (token %d)",
                     letter[k - 1], letter[f + 1], letter[k - 1], f);
            return 1;
        }
    if (induction) return 0;
    if ((digits < AV_TASK_MIN_DIGITS || digits > AV_TASK_MAX_DIGITS) && !seen_gt)
        snprintf(why, n, "%d digit%s and no >; its prompts have %d to %d digits, then >", digits,
                 digits == 1 ? "" : "s", AV_TASK_MIN_DIGITS, AV_TASK_MAX_DIGITS);
    else if (digits < AV_TASK_MIN_DIGITS || digits > AV_TASK_MAX_DIGITS)
        snprintf(why, n, "%d digit%s before >; its prompts have %d to %d", digits, digits == 1 ? "" : "s",
                 AV_TASK_MIN_DIGITS, AV_TASK_MAX_DIGITS);
    else if (!seen_gt) snprintf(why, n, "no > after the digits");
    else {
        /* the answer so far must be the task's, the example of these digits as training made it, before its
         * length counts ("3 1 4 > 4 2 3" was only "the answer is complete") */
        av_task_example ex;
        digits_example(&ex, prompt, digits, kind == AV_TASK_SORT);
        int i = 0, m = answers < digits ? answers : digits;
        while (i < m && ids[answer_at[i]] == ex.tokens[digits + 1 + i]) i++;
        if (i == m && answers < digits) return 0;
        if (i == m && answers == digits) { /* a whole example: outside only for what comes after it */
            snprintf(why, n, "%d answer digits after > for %d digits: the answer is complete", answers, digits);
            return 1;
        }
        char got[2 * AV_TASK_MAX_DIGITS + 1] = "", ans[2 * AV_TASK_MAX_DIGITS + 1] = "";
        for (int d = 0; d < digits; d++) { /* "3 1 4": digit d at 2 d, a space before each but the first */
            char t[16];
            if (d) got[2 * d - 1] = ans[2 * d - 1] = ' ';
            got[2 * d] = (char)('0' + prompt[d]);
            ans[2 * d] = av_toy_token_text(ex.tokens[digits + 1 + d], t) == 0 ? t[1] : '?'; /* " 4" */
            got[2 * d + 1] = ans[2 * d + 1] = 0;
        }
        /* a digit after the whole answer: "3 1 4 > 4 1 3 9" said "4 answer digits after > for 3 digits: the
         * answer is complete", as if the input were a whole example (a tester's report) */
        *bad = answer_at[i];
        snprintf(why, n, "%s: %s of \"%s\" is \"%s\"%s",
                 i == m ? "comes after the whole answer" : "is not the task's answer",
                 kind == AV_TASK_SORT ? "sort" : "reverse", got, ans, i == m ? ", which ends before it" : "");
    }
    return 1;
}

int av_task_separator_at(const int32_t *ids, int T, int k) {
    char t[16];
    unsigned cp = 0;
    int len;
    if (k < 0 || k >= T) return 0;
    if (!non_ascii_at(ids, T, k, &cp, &len)) {
        if (av_toy_token_text(ids[k], t) != 0 || !t[0] || t[1]) return 0;
        cp = (unsigned char)t[0];
    }
    return cp == ',' || cp == ';' || cp == 0xFF0C || cp == 0xFF1B || cp == 0x3001;
}

int av_task_arrow_at(const int32_t *ids, int T, int k) {
    /* '》' '〉' '〈's twin '〉' (U+232A), '⟩' '›' '»' '→' '⇒' '➔' '➜' '➡' '▶' '▸' '≫' '˃' '❯' '﹥' */
    static const unsigned kLike[] = {0x300B, 0x3009, 0x232A, 0x27E9, 0x203A, 0x00BB, 0x2192, 0x21D2, 0x2794,
                                     0x279C, 0x27A1, 0x25B6, 0x25B8, 0x226B, 0x02C3, 0x276F, 0xFE65};
    char t[16], u[16];
    unsigned cp = 0;
    int len;
    if (k < 0 || k >= T) return 0;
    if (non_ascii_at(ids, T, k, &cp, &len)) {
        for (size_t i = 0; i < sizeof kLike / sizeof kLike[0]; i++)
            if (cp == kLike[i]) return 1;
        return 0;
    }
    /* "->" and "=>": the tokenizer gives '-' or '=' then '>' */
    if (av_toy_token_text(ids[k], t) != 0 || (strcmp(t, "-") && strcmp(t, "=") && strcmp(t, " -") && strcmp(t, " =")))
        return 0;
    return k + 1 < T && av_toy_token_text(ids[k + 1], u) == 0 && !strcmp(u, ">");
}

int av_task_ids_whole_example(av_task_kind kind, const int32_t *ids, int T) {
    int bad;
    char why[160];
    return kind != AV_TASK_INDUCTION && T >= 2 && !av_task_ids_outside(kind, ids, T - 1, &bad, why, sizeof why) &&
           av_task_ids_outside(kind, ids, T, &bad, why, sizeof why) && bad < 0; /* the sequence, not a token */
}

int av_task_continuation_leaves(av_task_kind kind, const int32_t *ids, int T, int steps, int *token, char *why,
                                size_t n) {
    int bad, bad0;
    char why0[160];
    *token = 0;
    if (av_task_ids_outside(kind, ids, T, &bad, why, n)) return -1;
    for (int j = 0; j < steps; j++) {
        if (!av_task_ids_outside(kind, ids, T + j + 1, &bad, why, n)) continue;
        if (av_task_ids_whole_example(kind, ids, T + j + 1)) continue; /* j completes the answer */
        int prefix_ok = !av_task_ids_outside(kind, ids, T + j, &bad0, why0, sizeof why0);
        if (!prefix_ok) snprintf(why, n, "%s", why0);                   /* the answer ended before j */
        *token = prefix_ok && bad >= 0;
        return j;
    }
    return -1;
}

int av_task_tokens_off(av_task_kind kind, const int32_t *ids, int T, int from) {
    int induction = kind == AV_TASK_INDUCTION, off = 0, digits = 0, letter[AV_INDUCTION_MAX_T + 1] = {0}, left = 0;
    int prompt[AV_TASK_MAX_DIGITS];
    char t[16];
    for (int k = 0; k < T; k++) { /* the letter or digit of each token ("k" and " k" alike), 0 for another */
        int c = av_toy_token_text(ids[k], t) == 0 ? (unsigned char)t[t[0] == ' '] : 0;
        c = c && !t[(t[0] == ' ') + 1] ? c : 0;
        if (induction && k <= AV_INDUCTION_MAX_T) letter[k] = c >= 'a' && c <= 'z' ? c : 0;
        if (induction || k >= from) continue;
        if (c == '>') break;
        if (c >= '0' && c <= '9' && digits < AV_TASK_MAX_DIGITS) prompt[digits++] = c - '0';
    }
    av_task_example ex;
    if (!induction) digits_example(&ex, prompt, digits, kind == AV_TASK_SORT);
    for (int k = from; k < T; k++) {
        /* past a token that is not one of the task's text (a byte, a digit in induction, 'p' without its space),
         * the text is no longer the task's, and nothing after it is an answer: "a b c" continued " c//// a" counted
         * the " a" as the task's ("4 of the 5 tokens"), as if the "////" were not there (a learner's pass); so did
         * reverse's "3 1 4 >" continued " 4 / 3" with the " 3" */
        if (!induction) { /* the answer's digit at this place; past the answer, none is the task's */
            left = left || av_toy_token_text(ids[k], t) != 0 || t[0] != ' ' || t[1] < '0' || t[1] > '9' || t[2];
            off += left || k >= ex.T || ids[k] != ex.tokens[k];
            continue;
        }
        int outside = k > AV_INDUCTION_MAX_T - 1 || !letter[k] || ids[k] != toy_id(letter[k], k > 0);
        int wrong = left || outside;
        left = left || outside;
        for (int f = 0; !wrong && k > 0 && f < k - 1; f++) /* a letter seen before: the one after its first */
            if (letter[f] && letter[f] == letter[k - 1]) {
                wrong = letter[k] != letter[f + 1];
                break;
            }
        off += wrong;
    }
    return off;
}

int av_task_sequence_end(av_task_kind kind, const int32_t *ids, int T) {
    if (kind == AV_TASK_INDUCTION) return AV_INDUCTION_MAX_T;
    int digits = 0;
    char t[16];
    for (int k = 0; k < T; k++) { /* the digits before the first > */
        if (av_toy_token_text(ids[k], t) != 0) continue;
        const char *c = t + (t[0] == ' ');
        if (c[0] == '>' && !c[1]) break;
        digits += c[0] >= '0' && c[0] <= '9' && !c[1];
    }
    return 2 * digits + 1;
}

void av_task_describe(char *out, size_t n, av_task_kind kind) {
    if (kind == AV_TASK_INDUCTION)
        snprintf(out, n, "lowercase letters, at most %d, like \"k q a z m k q a\"", AV_INDUCTION_MAX_T);
    else snprintf(out, n, "%d to %d digits, then >, like \"3 1 4 1 5 >\"", AV_TASK_MIN_DIGITS, AV_TASK_MAX_DIGITS);
}

/* ----------------------------------------------------------------------------
 * held out */

/* FNV-1a (Fowler, Noll, Vo) over T and the token ids; never 0 (0 marks an empty slot). */
static uint64_t example_hash(const av_task_example *ex) {
    uint64_t h = 0xcbf29ce484222325ull;
    h = (h ^ (uint64_t)ex->T) * 0x100000001b3ull;
    for (int t = 0; t < ex->T; t++) h = (h ^ (uint64_t)ex->tokens[t]) * 0x100000001b3ull;
    return h ? h : 1;
}

av_status av_task_set_init(av_task_set *set, const av_task_example *ex, int n, av_err *err) {
    set->cap = 16;
    while (set->cap < 2 * (size_t)n) set->cap *= 2;
    set->slot = calloc(set->cap, sizeof *set->slot);
    if (!set->slot) return av_fail(err, AV_ERUNTIME, "out of memory for the held-out set");
    for (int i = 0; i < n; i++) {
        uint64_t h = example_hash(&ex[i]);
        size_t j = (size_t)h & (set->cap - 1);
        while (set->slot[j] && set->slot[j] != h) j = (j + 1) & (set->cap - 1);
        set->slot[j] = h;
    }
    return AV_OK;
}

void av_task_set_free(av_task_set *set) {
    free(set->slot);
    set->slot = NULL;
    set->cap = 0;
}

int av_task_set_has(const av_task_set *set, const av_task_example *ex) {
    uint64_t h = example_hash(ex);
    for (size_t j = (size_t)h & (set->cap - 1); set->slot[j]; j = (j + 1) & (set->cap - 1))
        if (set->slot[j] == h) return 1;
    return 0;
}

void av_task_sample_unseen(av_task_example *ex, av_task_kind kind, av_rng *r, const av_task_set *exclude) {
    do av_task_sample(ex, kind, r);
    while (exclude && av_task_set_has(exclude, ex));
}
