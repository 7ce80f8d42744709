/* Layer text/ (tokenizers): includes only base/, io/ and text/ headers.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* tokenize.h - split a UTF-8 sentence into word, punctuation and CJK tokens.
 *
 * Rules: BERT's BasicTokenizer (Devlin et al. 2018, tokenization.py), without
 * lower-casing or accent stripping, stated over Unicode properties from
 * base/utf8.h (utf8proc) and applied to extended grapheme clusters (UAX #29),
 * so a token never splits a user-perceived character. A cluster is classed by
 * its first code point that is not a format character (Cf) or default-
 * ignorable:
 *   - Z* (spaces, line/paragraph separators) and Cc (controls) separate
 *     tokens and are dropped (a combining mark that the grapheme rules
 *     join to a space, U+0301 typed alone after one, is kept: it starts a
 *     word, as after a newline, "x \u0301 y" -> x \u0301 y, as BERT's
 *     whitespace split keeps it); so is a cluster made only of Cf / default-
 *     ignorable code points (bidi controls such as U+200F and U+061C, zero-
 *     width space, word joiner, BOM, soft hyphen, a stray ZWJ or selector).
 *     Cf inside a cluster (ZWJ in an emoji sequence, ZWNJ inside a Persian
 *     word) stays in it.
 *   - P* (all punctuation) and the ASCII symbols $+<=>^`|~ : a token each,
 *     so "didn't" -> didn ' t and "ሰላም።" -> ሰላም ።.
 *   - A cluster with emoji presentation (UTS #51: 🙂, ✅, ✓️, 👍🏽, 👨‍👩‍👧, 🇨🇳):
 *     a token each. Text-presentation symbols (→ ✓ € ©) are word characters,
 *     as in BERT, so "a→b" is one token.
 *   - Letters of the scripts written without spaces, as wide (East Asian
 *     width 2) letters Lo/Lm/Nl: Han, Hiragana, Katakana, Bopomofo, Yi,
 *     Tangut, ...: a token each, so "我爱深度学习" -> 6 tokens. Hangul is wide but
 *     Korean separates words with spaces, so a Korean word stays whole.
 *   - Everything else (letters, marks, digits, other symbols, private use,
 *     unassigned) joins its neighbours into words.
 *
 * Errors (all AV_EUSAGE): invalid UTF-8 (overlong, surrogate, > U+10FFFF,
 * lone continuation byte, truncated sequence) naming the byte offset; a NUL
 * byte; no tokens at all; more than max_tokens tokens (saying how many); a
 * token longer than AV_MAX_TOKEN_BYTES bytes (named by its index and its
 * start: whole characters, or its first code points as U+XXXX when those
 * show nothing).
 *
 * Non-goals: subword (BPE/WordPiece) tokenization, normalisation (NFC/NFKC),
 * dictionary word segmentation (Thai, Lao, Khmer, Burmese runs stay whole).
 */
#ifndef AV_TOKENIZE_H
#define AV_TOKENIZE_H

#include <stddef.h>

#include "base/common.h"

typedef struct {
    int n;       /* number of tokens T */
    char **tok;  /* n NUL-terminated UTF-8 strings, owned: the labels shown */
    char **text; /* NULL (each label is its token's text), or n strings, owned: the text each
                  * token stands for, where the label draws it another way (a --model
                  * tokenizer's label shows a space as ␣ and a byte of a character split
                  * between tokens as <0xHH>); NULL for a token that stands for no text */
} av_tokens;

/* Tokenize len bytes of text. On success out->n is in 1..max_tokens.
 * The caller frees with av_tokens_free (also safe after an error). */
av_status av_tokenize(av_tokens *out, const char *text, size_t len, int max_tokens, av_err *err);

/* Append a copy of s as a new token (used for <pad>); its text, if t has
 * texts, is NULL. Errors: AV_ERUNTIME on OOM. */
av_status av_tokens_push(av_tokens *t, const char *s, av_err *err);

/* Set token k's text (0 <= k < t->n) to a copy of s[0..len), which a NUL
 * byte in it ends, making t->text (n entries, NULL) on first use. Errors:
 * AV_ERUNTIME on OOM. */
av_status av_tokens_set_text(av_tokens *t, int k, const char *s, size_t len, av_err *err);

void av_tokens_free(av_tokens *t);

/* How a character is shown in a token's label, into out (NUL-terminated):
 * ␣ for a space, ↵ for a newline, ⇥ for a tab; <0xNN> for another control
 * character below 0x80, <U+NNNN> for one above, a format character (Cf), a
 * space or separator (Z*), a private-use or unassigned code point; else the
 * character's own k bytes at src (its UTF-8, 1 <= k <= 4). */
void av_label_char(char out[16], unsigned cp, const unsigned char *src, int k);

/* How one character is shown on its own, as a token's label shows it with
 * nothing before it (av_tokens_piece_labels): av_label_char's symbols and
 * <U+NNNN> ("<U+0085>", "<U+FEFF>", "<U+2028>"), a Default_Ignorable_Code_Point
 * as <U+NNNN> (U+034F, a variation selector: drawn as nothing), a combining
 * mark on U+25CC ◌ ("◌́" for U+0301, which quoted sat on the quote mark), any
 * other character as itself. For a message or a trace line that names a
 * character ("= '<U+0085>' (U+0085) in UTF-8 bytes"). A value that is not a
 * code point (a surrogate, > U+10FFFF) is shown as U+FFFD. out: 16 bytes,
 * NUL-terminated. */
void av_label_char_alone(char out[16], unsigned cp);

/* Labels for figures where tokens hold parts of a character. A byte-level
 * tokenizer (GPT-2's BPE, a byte-fallback tokenizer.json) keeps a character it
 * has no token for as UTF-8 bytes, and t->tok labels such a part <0xNN>:
 * "我" (E6 88 91) in GPT-2 is [<0xE6><0x88>] [<0x91>], which no reader
 * of a heat map can tell from "爱" (a Chinese student's report). Here each
 * part is labelled by its character and which of the tokens it is:
 * [我(1/2)] [我(2/2)]; a character a token holds whole keeps its label
 * (av_label_char), so [<0x91>的] is [我(2/2)的]. A combining mark with no base
 * before it in the label (at its start, or after a character drawn as a symbol:
 * ␣, ↵, ⇥, <U+NNNN>, or after a part's "(k/n)") is drawn on ◌ (U+25CC): "e" +
 * U+0301 as [e<0xCC>] [<0x81>] is [é(1/2)] [◌́(2/2)], " " + U+093E (E0 A4 BE)
 * as [␣<0xE0><0xA4>] [<0xBE>] is [␣◌ा(1/2)] [◌ा(2/2)]. A default-ignorable
 * character, which fonts draw as nothing (a variation selector, U+034F), is
 * drawn as <U+NNNN> where it has no base or is the part the "(k/n)" counts:
 * " " + U+FE0E (EF B8 8E) as [␣<0xEF>] [<0xB8>] [<0x8E>] is [␣<U+FE0E>(1/3)]
 * [<U+FE0E>(2/3)] [<U+FE0E>(3/3)], not [␣(1/3)] [◌(2/3)] [◌(3/3)] as seen.
 *
 * A run is the tokens from one whose text (t->text) is not whole UTF-8 on its
 * own to the first after which their texts together are (at most
 * AV_PIECE_RUN_MAX tokens, 64 bytes); a run that never closes, a token
 * without text, and every token outside a run keep t->tok's label. *out is
 * a malloc'd array of t->n malloc'd labels (free with av_labels_free), or
 * NULL when no label changes (t->text NULL: the built-in tokenizer's labels
 * are its tokens). Source: RFC 3629 section 3 (UTF-8's lead and continuation
 * bytes). Errors: AV_ERUNTIME on out of memory (then *out is NULL). */
#define AV_PIECE_RUN_MAX 8
av_status av_tokens_piece_labels(const av_tokens *t, char ***out, av_err *err);
void av_labels_free(char **labels, int n);

#endif
