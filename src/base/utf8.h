/* utf8.h - the one UTF-8 module: decoding, encoding, validation, and the
 * Unicode properties attnviz needs, all taken from utf8proc.
 *
 * How to use: strings are UTF-8 byte runs (s, len) or NUL-terminated. The
 * strict decoder (av_utf8_decode, av_utf8_check) follows RFC 3629: it rejects
 * overlong forms, UTF-16 surrogates D800-DFFF, values above U+10FFFF, stray
 * continuation bytes and truncated sequences. The lenient walkers
 * (av_utf8_next, av_utf8_cluster_len, av_utf8_width) never fail: a byte that
 * does not start a valid sequence counts as one U+FFFD, so they are safe on
 * any bytes (labels from files, fuzzed input).
 *
 * Unicode properties (general category, Default_Ignorable_Code_Point,
 * grapheme cluster boundaries, East Asian display width, Extended_Pictographic)
 * come from utf8proc (https://juliastrings.github.io/utf8proc/), whose
 * Unicode version av_utf8_unicode_version() names. No module keeps its own
 * table of ranges, but for UAX #29's rule GB9c (Indic conjuncts, Unicode 15.1), which utf8proc before 2.9
 * lacks: utf8.c then keeps its Indic_Conjunct_Break values (av_utf8_cluster_len).
 * Extended grapheme clusters follow UAX #29 (section 3.1.1),
 * display width UAX #11 as utf8proc applies it (the same numbers as a
 * current wcwidth), emoji presentation UTS #51 (section 4).
 *
 * Non-goals: normalisation other than NFC (av_utf8_nfc), case mapping, scripts, shaping, bidi
 * (render/ does shaping; text/ decides what a token is from these properties).
 */
#ifndef AV_UTF8_H
#define AV_UTF8_H

#include <stddef.h>

#include "base/common.h"

/* Unicode general categories (UAX #44, section 5.7.1), in utf8proc's order. */
typedef enum {
    AV_UC_CN, /* unassigned */
    AV_UC_LU, AV_UC_LL, AV_UC_LT, AV_UC_LM, AV_UC_LO,
    AV_UC_MN, AV_UC_MC, AV_UC_ME,
    AV_UC_ND, AV_UC_NL, AV_UC_NO,
    AV_UC_PC, AV_UC_PD, AV_UC_PS, AV_UC_PE, AV_UC_PI, AV_UC_PF, AV_UC_PO,
    AV_UC_SM, AV_UC_SC, AV_UC_SK, AV_UC_SO,
    AV_UC_ZS, AV_UC_ZL, AV_UC_ZP,
    AV_UC_CC, AV_UC_CF, AV_UC_CS, AV_UC_CO,
} av_ucat;

/* ---------------------------------------------------------------- bytes */

/* Decode one code point from s[0..len), len >= 1. Returns the bytes used
 * (1..4) and stores the code point, or 0 for an invalid or truncated
 * sequence (then *why says which, in Python's words where it has them:
 * "truncated multi-byte sequence" when s[0..len) ends inside the sequence,
 * "invalid continuation byte" when a byte in it is not 10xxxxxx (GBK's
 * CE D2), "overlong encoding", ...). Strict RFC 3629. */
int av_utf8_decode(const unsigned char *s, size_t len, unsigned *cp, const char **why);

/* Bytes (1..4) of the valid UTF-8 character at s, a NUL-terminated string
 * with s[0] != 0, or 0 when the bytes there are not one (av_utf8_decode's
 * rules). For writers whose output must be UTF-8 (the page's JSON, PNG iTXt,
 * SVG): such a byte is written as U+FFFD, as av_utf8_replace_invalid does. */
size_t av_utf8_char_len(const char *s);

/* A malloc'd copy of s (NUL-terminated) with each byte that does not start a
 * valid UTF-8 character replaced by U+FFFD (EF BF BD), as Python's
 * decode('utf-8', 'replace') does for a lone bad byte. NULL on OOM. */
char *av_utf8_replace_invalid(const char *s);

/* Decode one code point at *s of a NUL-terminated string and advance *s.
 * An invalid sequence yields U+FFFD and advances one byte. *s must not point
 * at the terminating NUL. */
unsigned av_utf8_next(const unsigned char **s);

/* Write cp (<= U+10FFFF, not a surrogate) as UTF-8 into out; returns the
 * bytes written (1..4), or 0 for a value that has no UTF-8 form. */
int av_utf8_encode(unsigned cp, char out[4]);

/* AV_OK if s[0..len) is valid UTF-8; else AV_EUSAGE with
 * "invalid UTF-8 at byte offset N (byte 0xBB): <why>" naming the first bad byte. */
av_status av_utf8_check(const char *s, size_t len, av_err *err);

/* Shorten s (NUL-terminated) to drop an incomplete UTF-8 sequence at its end,
 * as snprintf leaves when it cuts a string short inside a character; a
 * complete last character, or an ASCII end, is kept. Returns the new length.
 * Source: RFC 3629 section 3 (lead bytes and their sequence lengths). */
size_t av_utf8_trim_cut(char *s);

/* s[0..len) into out (n bytes, NUL-terminated), whole when it fits (len < n); otherwise its start and its end
 * with " … " between, each cut at a whole UTF-8 character (RFC 3629 section 3), the start followed by the
 * PDF/PDI that close the bidi controls it leaves open (av_utf8_bidi_closers), so the end reads as it would
 * whole: a message that quotes a 3,800-byte folder lost its end, where it says what is wrong ("--model
 * DIR: no such folder", "cannot read 'FILE': No such file or directory"), to a cut at 2 KB (a tester's pass).
 * The end keeps about half of n, the start the rest; an out under 96 bytes keeps the start only
 * (av_utf8_trim_cut). Returns the bytes written. */
size_t av_utf8_cut_middle(const char *s, size_t len, char *out, size_t n);

/* ---------------------------------------------------------------- properties of one code point */

const char *av_utf8_unicode_version(void);
/* s[0..len) (valid UTF-8) in Unicode Normalization Form C (UAX #15, by
 * utf8proc_NFC): a malloc'd NUL-terminated copy (caller frees), its length in
 * *out_len; NULL on out of memory. */
char *av_utf8_nfc(const char *s, size_t len, size_t *out_len); /* e.g. "15.0.0" */
av_ucat av_utf8_category(unsigned cp);
int av_utf8_is_ignorable(unsigned cp); /* Default_Ignorable_Code_Point: drawn as nothing */
int av_utf8_is_hangul(unsigned cp);    /* a Hangul syllable or jamo (incl. compatibility jamo) */
int av_utf8_is_rtl(unsigned cp);       /* Bidi_Class R or AL: a strong right-to-left letter (UAX #9) */
/* The script of s[0..len) when it is one written without spaces between words (Thai U+0E00..0E7F, Lao
 * U+0E80..0EFF, Myanmar U+1000..109F, Khmer U+1780..17FF: Unicode's blocks of those scripts), with *count
 * its code points of that script (the first such script's only); NULL, *count 0, when s holds none. */
const char *av_utf8_unspaced_script(const char *s, size_t len, int *count);
/* Into out (n bytes, NUL-terminated; n >= 1): the PDF (U+202C) and PDI
 * (U+2069) that close, innermost first, the explicit embeddings, overrides
 * and isolates that s[0..len) opens and leaves open (UAX #9 X1-X8: an LRE,
 * RLE, LRO or RLO without its PDF, an LRI, RLI or FSI without its PDI), so
 * text written after s reads as if s held none: a --title or folder name
 * holding an RLO (U+202E) turned the rest of a figure's title around ("X
 * random (untrained, seed 42)" drawn as "(24 dees ,deniartnu) modnar X").
 * "" for balanced text; a paragraph separator ends them all. Returns the
 * bytes written (what does not fit in n is left out). */
size_t av_utf8_bidi_closers(const char *s, size_t len, char *out, size_t n);
/* s[0..len) with every control character (general category Cc: C0, DEL,
 * C1) written as <U+XXXX>, as attnviz's messages show one in an option's
 * value ("--title 'line1<U+000A>line2'"); a newline is kept as it is when
 * keep_newline; a byte that is not UTF-8 stays as it is. A message naming a
 * path or a value from a file puts it on the user's terminal, where a raw
 * ESC or CR would redraw the line (-o $'x\e[7m' turned the rest of the
 * message inverse; GNU tools quote such names, coreutils' quotearg). Writes
 * at most n - 1 bytes and a NUL (n >= 1), cut before an escape or a
 * character that does not fit; returns the bytes written. */
size_t av_utf8_escape_controls(const char *s, size_t len, char *out, size_t n, int keep_newline);
/* A path or name the user gave (a folder, a file) as attnviz shows it on the terminal, in a trace, a
 * figure's title, PNG text, SVG or the --html page, into out (n >= 1 bytes, NUL-terminated): every
 * control character as <U+XXXX>, a newline too (av_utf8_escape_controls), and the PDF/PDI that close the
 * bidi embeddings, overrides and isolates it leaves open after it (av_utf8_bidi_closers), so what is
 * written after it reads as if it held none (-m $'x\u202eabc' turned the rest of the trace's line around;
 * -m $'x\ny' broke the figure's title line). Every other character, and a byte that is not UTF-8, is
 * kept as it is: "runs/深度", "نموذج" read as before. At most n - 1 bytes: the name is cut before an
 * escape or character that does not fit, leaving room for its closers. Returns the bytes written. */
size_t av_utf8_shown_name(const char *s, char *out, size_t n);
/* av_utf8_shown_name(s) held in a char[n] that lasts to the end of the enclosing block, for a message's
 * argument or a name used again below: av_fail(err, AV_ERUNTIME, "cannot write '%s': %s", AV_SHOWN(path, 4200),
 * strerror(e)). n = N + 49 shows at most N bytes of the name, as "%.Ns" printed (room for the closers). */
static inline const char *av_utf8_shown_into(char *buf, size_t n, const char *s) {
    av_utf8_shown_name(s, buf, n);
    return buf;
}
#define AV_SHOWN(s, n) av_utf8_shown_into((char[n]){0}, (n), (s))
/* A name or value from a file (a safetensors header's tensor name, a tokenizer.json type) as a message quotes
 * it, into buf (n >= 96 bytes, NUL-terminated): whole up to 199 bytes, a longer one by its start and end with
 * " … " between (av_utf8_cut_middle), then its controls as <U+XXXX> and its open bidi closed (av_utf8_shown_name),
 * so "a\nb" neither breaks the message's line ("a<U+000A>b") nor "a\u202eb" turns the rest of it around, and a
 * cut says so: AV_SHOWN(s, 89) kept 40 bytes of a 50-byte type with no mark. Returns buf. No errors. */
const char *av_utf8_shown_middle(char *buf, size_t n, const char *s);
/* av_utf8_shown_middle(s) held in a char[1700] that lasts to the end of the enclosing block, for a message's
 * argument (199 bytes, each control as 8, and the closers). */
#define AV_SHOWN_MIDDLE(s) av_utf8_shown_middle((char[1700]){0}, 1700, (s))
/* 1 for a code point a message shows as nothing or as a gap: white space (Zs, Zl, Zp: U+00A0, U+3000),
 * controls (Cc: C1) and invisible format characters (Cf: U+200B, U+FEFF); else 0. No errors. */
int av_utf8_invisible(unsigned cp);
/* s as one shell word, for a command a user may paste back: as it is when
 * every byte is a letter, digit, one of _-./:=,+@%^ or part of a UTF-8
 * character that shows (not white space, a control or an invisible format
 * character: U+3000, U+00A0, U+200B are quoted, so a leading or trailing one
 * is seen); else in single quotes, each ' written '\'', and each control
 * character (C0, DEL, C1), bidi embedding, override or isolate (U+202A..202E,
 * U+2066..2069) and byte that is not UTF-8 written in $'...' (\a \b \t \n
 * \v \f \r by letter, else \ooo per byte), as GNU ls's
 * --quoting-style=shell-escape does: "runs/a\rb" is 'runs/a'$'\r''b', which
 * bash and zsh read back as the name (a raw CR showed as <U+000D> and pasted
 * back as those 8 characters). "" gives ''. Cut to fit n bytes (n >= 8), at
 * a whole character or escape, the closing quote kept. No errors. */
void av_shell_word(char *buf, size_t n, const char *s);

/* A path the user gave, as a message names it in its prose, beside a command that names it as one shell word:
 * its controls and open bidi embeddings as av_utf8_shown_name shows them ('a<U+000D>b', to read, where the
 * command has av_shell_word's 'a'$'\r''b', to paste), then that as one shell word (quoted as av_shell_word, a
 * byte that is not UTF-8 kept), so "--model '/tmp/a b/m' is a file; ...: --model '/tmp/a b/m'" where the prose said
 * "--model /tmp/a b/m", two words to the eye. A plain path ("runs/rev", "runs/深度") is as it is. Into buf
 * (n >= 8 bytes, NUL-terminated): a longer name is cut at a whole character before its closers and closing
 * quote, which stay, to its longest start whose word fits in n - 3 bytes, and "..." follows the word, so a message
 * says its name goes on ('/tmp/a b/xxx'..., runs/xxx...): the "~ not expanded" message cut `-o "~/xxx...x"` (300
 * x's) at 196 bytes with no sign of the cut (a tester's pass). Returns buf. No errors. Quoting as GNU ls --quoting-style=shell-escape (av_shell_word). */
const char *av_shown_word(char *buf, size_t n, const char *path);
/* av_shown_word(s) held in a char[n] that lasts to the end of the enclosing block, for a message's argument. */
#define AV_SHOWN_WORD(s, n) av_shown_word((char[n]){0}, (n), (s))
/* A user's value (an option's value, a word of the command, an --explain part) as a message's prose quotes it:
 * av_shown_word's one shell word (controls as <U+XXXX>, each ' as '\''), in single quotes even when it needs
 * none ('abc', as the messages always quoted a value), into buf (n >= 16 bytes, NUL-terminated; a longer word is
 * cut as av_shown_word cuts, "..." after its closing quote, 'xxx'...; 4 bytes a ' at most 4 times the value's). Returns buf. No errors. "'%s'" made
 * "--steps 'it's' is not a whole number", an open quote to a shell that the user pastes back. */
const char *av_quoted_word(char *buf, size_t n, const char *s);
/* av_quoted_word(s) held in a char[n] that lasts to the end of the enclosing block, for a message's argument. */
#define AV_QUOTED_WORD(s, n) av_quoted_word((char[n]){0}, (n), (s))
/* White space, a line or paragraph separator, or a control character (general
 * category Zs, Zl, Zp or Cc): where the tokenizer splits words, and what a
 * quoted sentence in a figure title shows as one space. */
int av_utf8_is_separator(unsigned cp);
/* Bytes of the cluster s[0..n) (valid UTF-8) before its first code point that
 * is neither a separator (av_utf8_is_separator) nor a format character (Cf)
 * nor default-ignorable; n when there is none. A combining mark typed alone
 * after a space is one cluster with the space (UAX #29 GB9), " \u0301": the
 * tokenizer splits there and keeps the mark as a word's start, and a figure
 * title's quoted sentence shows the space as one space and keeps the mark. */
size_t av_utf8_separator_len(const char *s, size_t n);

/* The ASCII character a full-width form stands for, as a Chinese or Japanese
 * input method's full-width mode types it ("４" for 4, "ｅ" for e, "－" for
 * -): U+FF01..U+FF5E give U+0021..U+007E, their compatibility decompositions
 * (<wide>, UnicodeData.txt; the Halfwidth and Fullwidth Forms block). 0 for
 * any other code point, U+3000 (the ideographic space) included. */
int av_utf8_halfwidth(unsigned cp);

/* s (NUL-terminated UTF-8) with each full-width form as its ASCII twin (av_utf8_halfwidth) and every other
 * character as it is, into out (n >= 1 bytes, NUL-terminated): "ＧＰＴ" → "GPT", "--heads＝8" → "--heads=8".
 * Returns how many characters were full-width forms; *other (when not NULL) gets how many other non-ASCII
 * characters were kept, and -1 is returned when out is too small for the whole text. No errors otherwise. */
int av_utf8_halfwidth_text(char *out, size_t n, const char *s, int *other);
/* 1 if s (NUL-terminated UTF-8) is a number written in Chinese numerals, with its decimal digits into out (cap
 * bytes, at least 64): "八" 8, "四十二" 42, "十二" 12, "一百零五" 105, "二百五" 250 (a digit after a unit counts in
 * the next unit down, as it is read aloud), "一千零十" 1010 (a bare 十 after 零), "两千" 2000 (两 only as the
 * number itself or before 百 千, or 万 亿 as its section's one digit: "两百两" and "十两" are not numbers), "三万五"
 * 35000, "一万亿" 10^12 and "一百亿亿" 10^20 (亿 multiplies all since the last 亿; up to 61 digits, each one given),
 * "五一二" 512 and "二〇二四" 2024 (digits without units, read one by one), the financial forms ("捌" 8, "壹拾" 10),
 * the traditional forms of 两 万 亿 点 and of the financial 贰 叁 陆 ("兩" 2, "一萬" 10000, "三億" 3·10^8, "貳拾陸"
 * 26, "零點五" 0.5), "负三" and "負三" -3, and with real != 0 "零点五" 0.5 and "三点一四" 3.14 (点, the decimal point read
 * aloud, then digits one by one); else 0, also for words around the number ("八个"), places that do not fall ("一亿二亿") and a number
 * whose text does not fit in out. "--heads 八" said only "is not a whole number" (a
 * Chinese-speaking learner's pass): app/cli.c and app/teach.c name the digits to type and still refuse the
 * value, as Python's int("八") and GNU head -n 八 do. Source: the usual reading of Chinese numerals (〇 and
 * digits read one by one as in years, GB/T 15835-2011 出版物上数字用法). No errors. */
int av_utf8_chinese_number(char *out, size_t cap, const char *s, int real);
/* 1 if cp is a character of av_utf8_chinese_number's digits or units ("〇" "零" "一".."九" "两", "十" "百" "千" "万"
 * "亿", the financial "壹".."玖" "拾" "佰" "仟", the traditional "兩" "萬" "億" "貳" "叄" "陸"), else 0: a word after a
 * number that starts with one is part of a numeral the reader refused, not a measure word ("一百亿亿" was
 * "10000000000 and the 亿 after it"). */
int av_utf8_chinese_numeral(unsigned cp);

/* s (NUL-terminated UTF-8) with each character of a known traditional/simplified pair in the simplified form
 * (simplified != 0) or the traditional one (0), into out (n bytes, NUL-terminated, cut at a character to fit):
 * "習" → "习", "學習" and "學习" → "学习" with simplified, "爱" → "愛" without; the others, and one already in that
 * form, kept. Returns how many characters changed (0: none, out is s). The pairs are those of the Chinese sentences
 * the docs and tests use, 我爱深度学习, 我爱你, 我爱学习 and 你好，世界 (爱 愛, 学 學, 习 習; 我 深 度 你 好 世 界 are one
 * form), from the Unihan database's
 * kTraditionalVariant/kSimplifiedVariant: utf8proc has no such table, and a whole one (thousands of pairs, some of
 * them one to many, 发 for 發 and 髮) is out of scope. "--explain 爱,習" on 我爱学习 said only "is neither a token"
 * (a Chinese-speaking learner's pass). No errors. */
int av_utf8_han_form(char *out, size_t n, const char *s, int simplified);

/* Terminal columns of one code point: 0, 1 or 2 (utf8proc_charwidth; East
 * Asian Wide/Fullwidth and default-emoji-presentation are 2, marks 0). */
int av_utf8_cp_width(unsigned cp);

/* 1 if a line may break beside cp with no space: a wide code point (Han,
 * kana, full-width forms, emoji; UAX #14 class ID) that is not Hangul.
 * Korean separates its words with spaces and breaks lines only there
 * (CSS Text 3 word-break: keep-all; UAX #14's Hangul classes tailored to
 * AL), so a cut never falls between the syllables of a word. */
int av_utf8_breaks_beside(unsigned cp);

/* ---------------------------------------------------------------- grapheme clusters */

/* Bytes of the extended grapheme cluster (UAX #29) that starts at s[0],
 * within s[0..len), len >= 1 (lenient: invalid bytes are single U+FFFD).
 * An Indic conjunct is one cluster (GB9c, Unicode 15.1, as ICU 74 and
 * later segment it): "क्ष" (U+0915 U+094D U+0937) whole, also with utf8proc
 * older than 2.9, which split it after the virama U+094D. */
size_t av_utf8_cluster_len(const char *s, size_t len);

/* 1 if the cluster s[0..len) is shown as an emoji (UTS #51): an
 * Extended_Pictographic base that is wide by default or followed by VS16
 * U+FE0F, a pair of regional indicators (a flag), or a keycap sequence
 * (UTS #51 ED-14c emoji_keycap_sequence: 0-9, # or *, then U+FE0F U+20E3,
 * "1️⃣"; "1⃣" without U+FE0F is the digit in text presentation, as ❤ without
 * it). ✓ and → are not. */
int av_utf8_cluster_is_emoji(const char *s, size_t len);

/* Terminal columns of the cluster s[0..len): 2 if it is an emoji, else the
 * widest of its code points (a base letter's width; marks, joiners and
 * selectors add nothing) plus 2 for each further wide code point, which a
 * terminal gives two cells of its own (wcwidth): the old Hangul cluster of
 * two leading jamo U+1100 U+1100 "ᄀᄀ" is 4 columns, a syllable of jamo
 * U+1100 U+1161 "가" (the vowel narrow) 2, and each consonant an Indic
 * conjunct joins (GB9c) its own column, as wcswidth sums them: "क्ष" 2.
 * For one code point this is av_utf8_cp_width. */
int av_utf8_cluster_width(const char *s, size_t len);

/* Terminal columns of a NUL-terminated string: the sum over its clusters. */
int av_utf8_width(const char *s);

/* The first separator of a comma-separated list in the NUL-terminated s:
 * ',' or the full-width comma '，' (U+FF0C, what Chinese and Japanese input
 * methods type), or NULL if there is none; *len gets its byte length (1 or
 * 3). UTF-8 never has EF BC 8C inside another character (RFC 3629 §3), so a
 * byte search is exact. */
const char *av_utf8_list_sep(const char *s, size_t *len);

/* What a list in s may have been typed with that is no separator of it: the enumeration comma '、' (U+3001),
 * the full-width semicolon '；' (U+FF1B), ';', the ideographic full stop '。' (U+3002, "爱。我"; not at the
 * end), the full-width colon '：' (U+FF1A, "爱：我") or ':', the arrow '→' (U+2192) that --explain's trace prints
 * between the query and the key ('query 1 "爱" → key 5 "习"') or "->", or the '|' and '/' that --help's and
 * README's "auto | reference | blas" and a prose "heads/grid" put between names (not the '/' of a part label's
 * "(1/3)"), the first of them found in the NUL-terminated s, named for a message ("the enumeration comma '、'"),
 * or NULL. */
const char *av_utf8_not_a_list_sep(const char *s);

/* The punctuation mark that ends the first len bytes of s (UTF-8) after some text, as a Chinese input method
 * types it with its Chinese punctuation on: the ideographic full stop '。' (U+3002), the ideographic comma '、'
 * (U+3001), or the full-width comma '，', semicolon '；', colon '：', exclamation mark '！' or question mark '？'
 * (U+FF0C, U+FF1B, U+FF1A, U+FF01, U+FF1F). "--heads 4。", "--explain 1、,2" and "--cmap viridis；" type one
 * after the value. Returns the mark's byte length (3; its text is s + len - 3), with *cp its code point and
 * *name its words ("an ideographic full stop"); 0 when there is none or nothing before it (cp and name then
 * untouched; either may be NULL). */
size_t av_utf8_trailing_mark(const char *s, size_t len, unsigned *cp, const char **name);

/* The dash that starts the NUL-terminated s when it is not ASCII '-' but is typed for one: U+2014 EM DASH (a
 * Chinese input method's Shift+'-', "——"), U+2013 EN DASH (an editor's or word processor's "smart" '-'), U+FF0D
 * FULLWIDTH HYPHEN-MINUS (full-width mode), U+2212 MINUS SIGN (the figures' and the docs' typeset minus, "−0.53"),
 * U+2010 HYPHEN. Returns its UTF-8 length (3), with *cp its code point and *name its words ("the minus sign of
 * typeset text"; either may be NULL); 0 when s starts with none (cp and name then untouched). */
int av_utf8_lookalike_dash(const char *s, unsigned *cp, const char **name);

#endif
