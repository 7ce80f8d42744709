/* test_tokenize.c - the tokenizer: real sentences from assets/sentences.txt,
 * hand-counted; every P* and Cf code point of utf8proc's Unicode version;
 * the inputs of issue 10 through the command line; every kind of invalid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

#include "testutil.h"
#include "text/tokenize.h"

/* Tokenize s and compare with the expected tokens (NULL-terminated). */
static void expect_tokens(const char *s, const char *const *want) {
    av_tokens t;
    av_err err = {{0}};
    assert_int_equal(av_tokenize(&t, s, strlen(s), AV_MAX_TOKENS, &err), AV_OK);
    int n = 0;
    while (want[n]) n++;
    if (t.n != n) {
        for (int i = 0; i < t.n; i++) print_message("got [%s]\n", t.tok[i]);
    }
    assert_int_equal(t.n, n);
    for (int i = 0; i < n; i++) assert_string_equal(t.tok[i], want[i]);
    av_tokens_free(&t);
}

static void expect_error(const char *s, size_t len, const char *msg_part) {
    av_tokens t;
    av_err err = {{0}};
    assert_int_equal(av_tokenize(&t, s, len, AV_MAX_TOKENS, &err), AV_EUSAGE);
    if (!strstr(err.msg, msg_part)) print_message("message was: %s\n", err.msg);
    assert_non_null(strstr(err.msg, msg_part));
    av_tokens_free(&t);
}

static void test_english_words(void **state) {
    (void)state;
    expect_tokens("I love deep learning", (const char *[]){"I", "love", "deep", "learning", NULL});
    expect_tokens("  the cat\tsat\non the mat  ",
                  (const char *[]){"the", "cat", "sat", "on", "the", "mat", NULL});
}

static void test_punctuation_is_its_own_token(void **state) {
    (void)state;
    /* sentences.txt line 3: 14 tokens, counted by hand */
    expect_tokens("The animal didn't cross the street because it was too tired.",
                  (const char *[]){"The", "animal", "didn", "'", "t", "cross", "the", "street", "because", "it",
                                   "was", "too", "tired", ".", NULL});
    expect_tokens("Attention Is All You Need (Vaswani et al., 2017) — 8 heads, d_model = 512.",
                  (const char *[]){"Attention", "Is", "All", "You", "Need", "(", "Vaswani", "et", "al", ".", ",",
                                   "2017", ")", "—", "8", "heads", ",", "d", "_", "model", "=", "512", ".", NULL});
}

static void test_cjk_one_token_per_ideograph(void **state) {
    (void)state;
    expect_tokens("我爱深度学习", (const char *[]){"我", "爱", "深", "度", "学", "习", NULL});
    /* mixed script: Latin word stays whole, CJK punctuation splits */
    expect_tokens("注意力机制是Transformer的核心。",
                  (const char *[]){"注", "意", "力", "机", "制", "是", "Transformer", "的", "核", "心", "。", NULL});
    expect_tokens("你好，世界！", (const char *[]){"你", "好", "，", "世", "界", "！", NULL});
}

static void test_accents_and_combining_marks(void **state) {
    (void)state;
    expect_tokens("naïve café résumé", (const char *[]){"naïve", "café", "résumé", NULL});
    /* decomposed: i + U+0308 stays one word */
    expect_tokens("nai\xCC\x88ve", (const char *[]){"nai\xCC\x88ve", NULL});
}

static void test_emoji(void **state) {
    (void)state;
    expect_tokens("🙂 emoji tokens 🚀", (const char *[]){"🙂", "emoji", "tokens", "🚀", NULL});
    expect_tokens("hi🙂🚀", (const char *[]){"hi", "🙂", "🚀", NULL});
    /* ZWJ family and skin tone stay one token each */
    expect_tokens("👨‍👩‍👧 👍🏽", (const char *[]){"👨‍👩‍👧", "👍🏽", NULL});
    /* a flag is two regional indicators */
    expect_tokens("🇨🇳🇫🇷", (const char *[]){"🇨🇳", "🇫🇷", NULL});
}

static void test_other_scripts(void **state) {
    (void)state;
    expect_tokens("Привет мир", (const char *[]){"Привет", "мир", NULL});
    expect_tokens("مرحبا بالعالم", (const char *[]){"مرحبا", "بالعالم", NULL});
    expect_tokens("안녕하세요 세계", (const char *[]){"안녕하세요", "세계", NULL});
    expect_tokens("a\xC2\xA0" "b\xE3\x80\x80" "c", (const char *[]){"a", "b", "c", NULL}); /* NBSP, ideographic space */
    /* zero-width space, bidi override and a stray ZWJ make no invisible tokens */
    expect_tokens("a\xE2\x80\x8B" "b \xE2\x80\xAE c \xE2\x80\x8D d", (const char *[]){"a", "b", "c", "d", NULL});
    /* U+061C ARABIC LETTER MARK is a bidi control (Cf) like U+200F: it separates */
    expect_tokens("abc\xD8\x9C" "def", (const char *[]){"abc", "def", NULL});
    expect_tokens("abc\xE2\x80\x8F" "def", (const char *[]){"abc", "def", NULL});
    /* Ethiopic: U+1362 ETHIOPIC FULL STOP is Po, a token of its own */
    expect_tokens("ሰላም።", (const char *[]){"ሰላም", "።", NULL});
    /* Korean separates words with spaces: Hangul words stay whole, jamo too */
    expect_tokens("ㅋㅋ 한국어", (const char *[]){"ㅋㅋ", "한국어", NULL});
    /* kana are split like Han (Japanese has no spaces); ー U+30FC is Lm, wide */
    expect_tokens("コーヒー", (const char *[]){"コ", "ー", "ヒ", "ー", NULL});
    /* half-width katakana (U+FF66..FF9D, width 1) are the same script: "私はﾘﾝｺﾞが好き" gave [ﾘﾝｺﾞ] where リンゴ
     * gives three (a Chinese-speaking learner's pass); the voiced mark ﾞ U+FF9E extends its cluster (UAX #29
     * Extend), so ｺﾞ is one token as ゴ is; ｰ U+FF70 as ー */
    expect_tokens("私はﾘﾝｺﾞが好き", (const char *[]){"私", "は", "ﾘ", "ﾝ", "ｺﾞ", "が", "好", "き", NULL});
    expect_tokens("ｺｰﾋｰ ﾊﾟﾝ", (const char *[]){"ｺ", "ｰ", "ﾋ", "ｰ", "ﾊﾟ", "ﾝ", NULL});
    /* Thai has no spaces either, but is not wide: stays whole (no dictionary) */
    expect_tokens("สวัสดีครับ", (const char *[]){"สวัสดีครับ", NULL});
    /* ZWNJ inside a Persian word extends the cluster: one word */
    expect_tokens("می\xE2\x80\x8Cخواهم", (const char *[]){"می\xE2\x80\x8Cخواهم", NULL});
    /* U+0600 ARABIC NUMBER SIGN prepends to the digits after it */
    expect_tokens("\xD8\x80" "١٢", (const char *[]){"\xD8\x80" "١٢", NULL});
}

/* Non-ASCII symbols in text presentation are word characters (BERT), so
 * "a→b" is one token; ASCII symbols split; emoji-presentation clusters split. */
static void test_symbols(void **state) {
    (void)state;
    expect_tokens("a→b", (const char *[]){"a→b", NULL});
    expect_tokens("go → up ✓ ok", (const char *[]){"go", "→", "up", "✓", "ok", NULL});
    expect_tokens("x+y=2€", (const char *[]){"x", "+", "y", "=", "2€", NULL});
    expect_tokens("ok✅done", (const char *[]){"ok", "✅", "done", NULL});
    expect_tokens("I❤you I❤️you", (const char *[]){"I❤you", "I", "❤️", "you", NULL});
    /* keycaps (UTS #51 ED-14c): digit + U+FE0F + U+20E3 is an emoji; without U+FE0F the digit's text form */
    expect_tokens("1\xEF\xB8\x8F\xE2\x83\xA3" "2\xEF\xB8\x8F\xE2\x83\xA3x 1\xE2\x83\xA3x",
                  (const char *[]){"1\xEF\xB8\x8F\xE2\x83\xA3", "2\xEF\xB8\x8F\xE2\x83\xA3", "x", "1\xE2\x83\xA3x", NULL});
}

/* Every code point of general category P* in utf8proc's Unicode version is a
 * token of its own between two letters. */
static void test_every_punctuation_code_point_splits(void **state) {
    (void)state;
    int n = 0, above_a0 = 0;
    for (unsigned cp = 0; cp <= 0x10FFFF; cp++) {
        int cat = utf8proc_category((utf8proc_int32_t)cp);
        if (cat < UTF8PROC_CATEGORY_PC || cat > UTF8PROC_CATEGORY_PO) continue;
        char p[5] = {0}, s[8];
        utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)p);
        snprintf(s, sizeof s, "a%sb", p);
        expect_tokens(s, (const char *[]){"a", p, "b", NULL});
        n++;
        above_a0 += cp >= 0xA0;
    }
    print_message("%d P* code points split (%d at U+00A0 and above), Unicode %s\n", n, above_a0,
                  utf8proc_unicode_version());
    assert_true(above_a0 >= 796); /* the issue counted 796 in an older Unicode */
}

/* Every Cf code point between two letters: one that is a grapheme cluster of
 * its own (bidi controls, ZWSP, word joiner, BOM, soft hyphen) separates and
 * is dropped; one that the grapheme rules attach to a neighbour (ZWNJ, ZWJ,
 * tags, prepended marks like U+0600) stays inside the word. */
static void test_every_format_code_point(void **state) {
    (void)state;
    int dropped = 0, kept = 0;
    for (unsigned cp = 0; cp <= 0x10FFFF; cp++) {
        if (utf8proc_category((utf8proc_int32_t)cp) != UTF8PROC_CATEGORY_CF) continue;
        char f[5] = {0}, s[8];
        utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)f);
        snprintf(s, sizeof s, "a%sb", f);
        int alone = utf8proc_grapheme_break('a', (utf8proc_int32_t)cp) && utf8proc_grapheme_break((utf8proc_int32_t)cp, 'b');
        if (alone) { expect_tokens(s, (const char *[]){"a", "b", NULL}); dropped++; }
        else { expect_tokens(s, (const char *[]){s, NULL}); kept++; }
    }
    print_message("Cf: %d separate and are dropped, %d stay inside a word\n", dropped, kept);
    assert_true(dropped > 0 && kept > 0);
    /* by hand: soft hyphen, word joiner and BOM are Control, so they separate */
    expect_tokens("co\xC2\xAD" "op", (const char *[]){"co", "op", NULL});
    expect_tokens("a\xE2\x81\xA0" "b\xEF\xBB\xBF" "c", (const char *[]){"a", "b", "c", NULL});
}

/* The "tokens [..]" line attnviz prints for s. */
static void expect_cli_tokens(const char *s, const char *want_line) {
    tu_result r;
    run_attnviz(&r, NULL, "-d", "8", "--no-plot", "--color", "never", s, NULL);
    assert_int_equal(r.code, 0);
    const char *line = strstr(r.out, "  tokens     ");
    assert_non_null(line);
    size_t n = strcspn(line, "\n");
    if (strlen(want_line) != n - 13 || memcmp(line + 13, want_line, n - 13) != 0)
        print_message("got: %.*s\nwant: %s\n", (int)n, line, want_line);
    assert_int_equal(n - 13, strlen(want_line));
    assert_memory_equal(line + 13, want_line, n - 13);
    tu_free(&r);
}

/* Issue 10's inputs, through the command line. */
static void test_issue10_inputs_through_the_cli(void **state) {
    (void)state;
    expect_cli_tokens("abc\xD8\x9C" "def", "[abc] [def]");
    expect_cli_tokens("ሰላም።", "[ሰላም] [።]");
    expect_cli_tokens("go → up ✓ ok", "[go] [→] [up] [✓] [ok]");
    expect_cli_tokens("a→b", "[a→b]");
    expect_cli_tokens("안녕하세요 世界 こんにちは", "[안녕하세요] [世] [界] [こ] [ん] [に] [ち] [は]");
}

/* A combining mark typed alone after a space is a token, as after a newline and as BERT's whitespace split keeps
 * it: `attnviz --no-plot "I x ́ y"` gave [I] [x] [y], the U+0301 dropped without a word, because UAX #29 makes the
 * space and the mark one cluster (GB9) and a cluster starting with a space separated tokens. The space is still
 * dropped; the marks start a word, which letters right after them join. */
static void test_mark_alone_after_a_space_is_kept(void **state) {
    (void)state;
    expect_tokens("I x \xCC\x81 y", (const char *[]){"I", "x", "\xCC\x81", "y", NULL});
    expect_tokens("I x\n\xCC\x81 y", (const char *[]){"I", "x", "\xCC\x81", "y", NULL});
    expect_tokens("x \xCC\x81y \xCC\x81\xCC\x88", (const char *[]){"x", "\xCC\x81y", "\xCC\x81\xCC\x88", NULL});
    expect_tokens("a \xE2\x80\x8B b", (const char *[]){"a", "b", NULL}); /* space + ZWSP: nothing to keep */
    expect_cli_tokens("I x \xCC\x81 y", "[I] [x] [\xCC\x81] [y]");
}

static void test_empty_and_whitespace(void **state) {
    (void)state;
    expect_error("", 0, "empty");
    expect_error("   \t\n ", 6, "only whitespace");
}

static void test_invalid_utf8_kinds(void **state) {
    (void)state;
    expect_error("ab\xC0\xAF", 4, "overlong");           /* overlong '/' */
    expect_error("\xE0\x80\xAF", 3, "overlong");         /* 3-byte overlong */
    expect_error("x\x80y", 3, "continuation");           /* lone continuation byte */
    expect_error("ok \xE6\x88", 5, "truncated");         /* truncated 3-byte sequence */
    expect_error("\xED\xA0\x80", 3, "surrogate");        /* U+D800 */
    expect_error("\xF4\x90\x80\x80", 4, "above U+10FFFF");
    expect_error("\xFF", 1, "never valid");
    expect_error("ab\xC0\xAF", 4, "byte offset 2");
}

static void test_nul_byte(void **state) {
    (void)state;
    expect_error("ab\0cd", 5, "NUL byte at byte offset 2");
}

static void test_max_tokens(void **state) {
    (void)state;
    static char buf[4 * (AV_MAX_TOKENS + 2)];
    size_t at = 0;
    for (int i = 0; i < AV_MAX_TOKENS; i++) { buf[at++] = 'a'; buf[at++] = ' '; }
    av_tokens t;
    av_err err = {{0}};
    assert_int_equal(av_tokenize(&t, buf, at, AV_MAX_TOKENS, &err), AV_OK);
    assert_int_equal(t.n, AV_MAX_TOKENS);
    av_tokens_free(&t);
    buf[at++] = 'b';
    assert_int_equal(av_tokenize(&t, buf, at, AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "the sentence has 65537 tokens, more than the maximum 65536"));
    av_tokens_free(&t);
}

static void test_long_token(void **state) {
    (void)state;
    char buf[AV_MAX_TOKEN_BYTES + 2];
    memset(buf, 'x', sizeof buf);
    av_tokens t;
    av_err err = {{0}};
    assert_int_equal(av_tokenize(&t, buf, AV_MAX_TOKEN_BYTES, AV_MAX_TOKENS, &err), AV_OK);
    av_tokens_free(&t);
    assert_int_equal(av_tokenize(&t, buf, AV_MAX_TOKEN_BYTES + 1, AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "token 0 (\"xxxxxxxxxxxxxxxx…\") is 65 bytes long; the maximum is 64 bytes");
    av_tokens_free(&t);
    /* counted from 0, as the trace and --explain count; the start is cut
     * after whole characters, at most 16 bytes: "I" "love" then 22 × 한
     * (3 bytes each, a Korean word stays whole) = 66 bytes, 5 shown (15
     * bytes; a 6th would make 18) */
    char ko[8 + 66 + 1] = "I love ";
    for (int i = 0; i < 22; i++) strcat(ko, "\xED\x95\x9C");
    assert_int_equal(av_tokenize(&t, ko, strlen(ko), AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "token 2 (\"한한한한한…\") is 66 bytes long; the maximum is 64 bytes");
    av_tokens_free(&t);
    /* one grapheme of 65 bytes (e + 32 × U+0301 COMBINING ACUTE ACCENT) has no
     * whole character within 16 bytes: its first code points show it (it was
     * (\"…\")); 8 marks alone (16 bytes) would show nothing either */
    char mark[1 + 64 + 1] = "e", marks[64 + 2 + 1] = "";
    for (int i = 0; i < 32; i++) strcat(mark, "\xCC\x81");
    for (int i = 0; i < 33; i++) strcat(marks, "\xCC\x81");
    assert_int_equal(av_tokenize(&t, mark, strlen(mark), AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "token 0 (U+0065 U+0301 U+0301 U+0301 U+0301 U+0301 …) is 65 bytes long; the maximum is 64 bytes");
    av_tokens_free(&t);
    assert_int_equal(av_tokenize(&t, marks, strlen(marks), AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "token 0 (U+0301 U+0301 U+0301 U+0301 U+0301 U+0301 …) is 66 bytes long; the maximum is 64 bytes");
    av_tokens_free(&t);
}

/* Tokens with these texts (byte strings; NULL for none), labelled <i> each: their piece labels. */
static char **pieces_of(const char *const *texts, int n) {
    av_tokens t = {0};
    av_err err = {{0}};
    for (int i = 0; i < n; i++) {
        char label[16];
        snprintf(label, sizeof label, "<%d>", i);
        assert_int_equal(av_tokens_push(&t, label, &err), AV_OK);
        if (texts[i]) assert_int_equal(av_tokens_set_text(&t, i, texts[i], strlen(texts[i]), &err), AV_OK);
    }
    char **out = NULL;
    assert_int_equal(av_tokens_piece_labels(&t, &out, &err), AV_OK);
    av_tokens_free(&t);
    return out;
}

/* av_tokens_piece_labels, worked by hand from RFC 3629's bytes: 我 U+6211 = E6 88 91, 爱 U+7231 = E7 88
 * B1, 的 U+7684 = E7 9A 84. A part is its character and which of the tokens holding that character's
 * bytes it is; a whole character in the same token keeps its own label (␣ for a space); tokens
 * outside a run keep theirs; a cut character that no later token completes keeps its <i>. */
static void test_piece_labels_by_hand(void **state) {
    (void)state;
    static const char *const texts[] = {"a", "\xE6\x88", "\x91\xE7\x9A\x84", " \xE7", "\x88", "\xB1\xE6\x88\x91",
                                        "\xE7\x88\xB1", NULL, "\xE6"};
    static const char *const want[] = {"<0>",          "我(1/2)", "我(2/2)的", "␣爱(1/3)", "爱(2/3)",
                                       "爱(3/3)我",    "<6>",     "<7>",          "<8>"};
    char **got = pieces_of(texts, 9);
    assert_non_null(got);
    for (int i = 0; i < 9; i++) assert_string_equal(got[i], want[i]);
    av_labels_free(got, 9);
    /* one token ending in a character's first byte, the next holding its last two: a part, and a part
     * that also holds a whole character after it */
    static const char *const two[] = {"\xE6", "\x88\x91", "\xE7\x88", "\xB1\x0A"};
    static const char *const want2[] = {"我(1/2)", "我(2/2)", "爱(1/2)", "爱(2/2)↵"};
    got = pieces_of(two, 4);
    assert_non_null(got);
    for (int i = 0; i < 4; i++) assert_string_equal(got[i], want2[i]);
    av_labels_free(got, 4);
    /* e + U+0301 (CC 81), the mark cut after its first byte: the first part on its e, the second on ◌
     * (U+25CC), a mark with no base in its label */
    static const char *const mark[] = {"e\xCC", "\x81"};
    static const char *const want4[] = {"e\xCC\x81(1/2)", "\xE2\x97\x8C\xCC\x81(2/2)"};
    got = pieces_of(mark, 2);
    assert_non_null(got);
    for (int i = 0; i < 2; i++) assert_string_equal(got[i], want4[i]);
    av_labels_free(got, 2);
    /* a mark with no base before it in the label is on ◌ (E2 97 8C) also after a symbol: " " + U+093E (E0
     * A4 BE) after ␣ (E2 90 A3), " " + U+0301 (CC 81) likewise, and U+0301 whole after a part's "(2/2)"
     * (我 E6 88 91 cut); it sat on the ␣ or the ')' */
    static const char *const sp[] = {" \xE0\xA4", "\xBE", " \xCC", "\x81", "\xE6\x88", "\x91\xCC\x81"};
    static const char *const want5[] = {"\xE2\x90\xA3\xE2\x97\x8C\xE0\xA4\xBE(1/2)", "\xE2\x97\x8C\xE0\xA4\xBE(2/2)",
                                        "\xE2\x90\xA3\xE2\x97\x8C\xCC\x81(1/2)",     "\xE2\x97\x8C\xCC\x81(2/2)",
                                        "\xE6\x88\x91(1/2)",                         "\xE6\x88\x91(2/2)\xE2\x97\x8C\xCC\x81"};
    got = pieces_of(sp, 6);
    assert_non_null(got);
    for (int i = 0; i < 6; i++) assert_string_equal(got[i], want5[i]);
    av_labels_free(got, 6);
    /* a variation selector, drawn as nothing, in parts: U+FE0E (EF B8 8E) after a space, then after x,
     * then ❤ (E2 9D A4) cut and U+FE0F (EF B8 8F) whole after its "(2/2)": each as its code point, where
     * the labels read "␣(1/3)" "◌(2/3)" "◌(3/3)", "x(1/2)" "◌(2/2)" and "❤(2/2)" */
    static const char *const vs[] = {" \xEF", "\xB8", "\x8E", "x\xEF\xB8", "\x8E", "\xE2\x9D", "\xA4\xEF\xB8\x8F"};
    static const char *const want6[] = {"\xE2\x90\xA3<U+FE0E>(1/3)", "<U+FE0E>(2/3)", "<U+FE0E>(3/3)", "x<U+FE0E>(1/2)",
                                        "<U+FE0E>(2/2)", "\xE2\x9D\xA4(1/2)", "\xE2\x9D\xA4(2/2)<U+FE0F>"};
    got = pieces_of(vs, 7);
    assert_non_null(got);
    for (int i = 0; i < 7; i++) assert_string_equal(got[i], want6[i]);
    av_labels_free(got, 7);
    /* every text whole: no labels change, so none are made */
    static const char *const whole[] = {"我", " love", NULL};
    assert_null(pieces_of(whole, 3));
    /* a zero-width space (U+200B, E2 80 8B, a format character) in parts: its code point, as a label draws it */
    static const char *const zw[] = {"\xE2\x80", "\x8B"};
    static const char *const want3[] = {"<U+200B>(1/2)", "<U+200B>(2/2)"};
    got = pieces_of(zw, 2);
    assert_non_null(got);
    for (int i = 0; i < 2; i++) assert_string_equal(got[i], want3[i]);
    av_labels_free(got, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_english_words),        cmocka_unit_test(test_punctuation_is_its_own_token),
        cmocka_unit_test(test_cjk_one_token_per_ideograph), cmocka_unit_test(test_accents_and_combining_marks),
        cmocka_unit_test(test_emoji),                cmocka_unit_test(test_other_scripts),
        cmocka_unit_test(test_empty_and_whitespace), cmocka_unit_test(test_invalid_utf8_kinds),
        cmocka_unit_test(test_nul_byte),             cmocka_unit_test(test_max_tokens),
        cmocka_unit_test(test_long_token),           cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_every_punctuation_code_point_splits),
        cmocka_unit_test(test_every_format_code_point),
        cmocka_unit_test(test_issue10_inputs_through_the_cli),
        cmocka_unit_test(test_mark_alone_after_a_space_is_kept),
        cmocka_unit_test(test_piece_labels_by_hand),
    };
    return cmocka_run_group_tests_name("tokenize", tests, NULL, NULL);
}
