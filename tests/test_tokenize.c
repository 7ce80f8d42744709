/* test_tokenize.c - the tokenizer: real sentences from ../shared/cases,
 * hand-counted, and every kind of invalid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

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
    char buf[4 * (AV_MAX_TOKENS + 2)];
    size_t at = 0;
    for (int i = 0; i < AV_MAX_TOKENS; i++) { buf[at++] = 'a'; buf[at++] = ' '; }
    av_tokens t;
    av_err err = {{0}};
    assert_int_equal(av_tokenize(&t, buf, at, AV_MAX_TOKENS, &err), AV_OK);
    assert_int_equal(t.n, AV_MAX_TOKENS);
    av_tokens_free(&t);
    buf[at++] = 'b';
    assert_int_equal(av_tokenize(&t, buf, at, AV_MAX_TOKENS, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "more than 512 tokens"));
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
    assert_non_null(strstr(err.msg, "bytes long"));
    av_tokens_free(&t);
}

static void test_utf8_width(void **state) {
    (void)state;
    assert_int_equal(av_utf8_width("love"), 4);
    assert_int_equal(av_utf8_width("我爱"), 4);
    assert_int_equal(av_utf8_width("café"), 4);
    assert_int_equal(av_utf8_width("nai\xCC\x88ve"), 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_english_words),        cmocka_unit_test(test_punctuation_is_its_own_token),
        cmocka_unit_test(test_cjk_one_token_per_ideograph), cmocka_unit_test(test_accents_and_combining_marks),
        cmocka_unit_test(test_emoji),                cmocka_unit_test(test_other_scripts),
        cmocka_unit_test(test_empty_and_whitespace), cmocka_unit_test(test_invalid_utf8_kinds),
        cmocka_unit_test(test_nul_byte),             cmocka_unit_test(test_max_tokens),
        cmocka_unit_test(test_long_token),           cmocka_unit_test(test_utf8_width),
    };
    return cmocka_run_group_tests_name("tokenize", tests, NULL, NULL);
}
