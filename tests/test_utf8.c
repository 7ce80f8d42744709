/* test_utf8.c - base/utf8: strict decoding against every scalar value,
 * grapheme clusters, emoji presentation and widths. Expected widths come
 * from utf8proc called directly (the library the rules name) and from
 * hand-worked cases (UAX #29 examples, UTS #51 emoji-data, wcwidth). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

#include "base/utf8.h"

/* Every scalar value encodes to the bytes utf8proc gives and decodes back. */
static void test_encode_decode_every_scalar_value(void **state) {
    (void)state;
    for (unsigned cp = 0; cp <= 0x10FFFF; cp++) {
        char b[4];
        int n = av_utf8_encode(cp, b);
        if (cp >= 0xD800 && cp <= 0xDFFF) { assert_int_equal(n, 0); continue; }
        utf8proc_uint8_t want[4];
        assert_int_equal(n, (int)utf8proc_encode_char((utf8proc_int32_t)cp, want));
        assert_memory_equal(b, want, (size_t)n);
        unsigned back = 0;
        const char *why = NULL;
        assert_int_equal(av_utf8_decode((const unsigned char *)b, (size_t)n, &back, &why), n);
        assert_int_equal(back, cp);
    }
    assert_int_equal(av_utf8_encode(0x110000, (char[4]){0}), 0);
}

static void expect_bad(const char *s, size_t len, const char *msg) {
    av_err err = {{0}};
    assert_int_equal(av_utf8_check(s, len, &err), AV_EUSAGE);
    if (!strstr(err.msg, msg)) print_message("message was: %s\n", err.msg);
    assert_non_null(strstr(err.msg, msg));
}

static void test_check_names_first_bad_byte(void **state) {
    (void)state;
    av_err err = {{0}};
    assert_int_equal(av_utf8_check("caf\xC3\xA9", 5, &err), AV_OK);
    expect_bad("ab\xC0\xAF", 4, "byte offset 2 (byte 0xC0): overlong encoding");
    expect_bad("x\x80y", 3, "byte offset 1 (byte 0x80): unexpected continuation byte");
    expect_bad("\xED\xA0\x80", 3, "UTF-16 surrogate");
    expect_bad("ok \xE6\x88", 5, "byte offset 3 (byte 0xE6): truncated multi-byte sequence");
    /* a lead byte followed by a byte that is not a continuation (10xxxxxx): GBK's 我 is CE D2, and D2 is there, so the
     * sequence is not truncated (a tester's report; Python says "invalid continuation byte" too) */
    expect_bad("\xCE\xD2", 2, "byte offset 0 (byte 0xCE): invalid continuation byte");
    expect_bad("\xE6\x88x", 3, "byte offset 0 (byte 0xE6): invalid continuation byte"); /* the 3rd byte is 'x' */
    expect_bad("\xF0\x9F\x98", 3, "byte offset 0 (byte 0xF0): truncated multi-byte sequence"); /* ends after 3 of 4 */
    expect_bad("\xF4\x90\x80\x80", 4, "above U+10FFFF");
    /* lenient walker: a bad byte is one U+FFFD, then decoding resumes */
    const unsigned char *p = (const unsigned char *)"\xC0" "A";
    assert_int_equal(av_utf8_next(&p), 0xFFFD);
    assert_int_equal(av_utf8_next(&p), 'A');
    assert_int_equal(*p, 0);
}

/* snprintf cut a string inside a character: the incomplete sequence goes,
 * whole characters stay (byte counts by hand from RFC 3629's table). */
/* av_utf8_char_len and av_utf8_replace_invalid, hand-worked: a lone bad byte becomes U+FFFD (EF BF BD),
 * as Python's b"a\xffb".decode("utf-8", "replace") gives "a\ufffdb"; valid characters of 1 to 4 bytes
 * pass whole. The html, PNG and SVG writers share them (they had a copy each). */
static void test_replace_invalid(void **state) {
    (void)state;
    assert_int_equal(av_utf8_char_len("a"), 1);
    assert_int_equal(av_utf8_char_len("\xC3\xA9"), 2);         /* é */
    assert_int_equal(av_utf8_char_len("\xE6\x88\x91x"), 3);    /* 我 */
    assert_int_equal(av_utf8_char_len("\xF0\x9F\x98\x80"), 4); /* U+1F600 */
    assert_int_equal(av_utf8_char_len("\xFF"), 0);
    assert_int_equal(av_utf8_char_len("\xE6\x88"), 0);         /* truncated */
    static const struct { const char *in, *out; } cases[] = {
        {"a\xFF" "b", "a\xEF\xBF\xBD" "b"},
        {"\xFF\xFE", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xE6\x88\x91 ok \xC3\xA9", "\xE6\x88\x91 ok \xC3\xA9"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *o = av_utf8_replace_invalid(cases[i].in);
        assert_non_null(o);
        assert_string_equal(o, cases[i].out);
        free(o);
    }
}

static void test_trim_cut(void **state) {
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\xC3", "a"},                       /* é (C3 A9) cut after its lead byte */
        {"a\xE2\x82", "a"},                   /* € (E2 82 AC) cut after 2 of 3 */
        {"a\xF0\x9F\x98", "a"},               /* 😀 (F0 9F 98 80) cut after 3 of 4 */
        {"a\xC3\xA9", "a\xC3\xA9"},           /* é whole */
        {"\xE6\x97\xA5\xE6\x9C\xAC", "\xE6\x97\xA5\xE6\x9C\xAC"}, /* 日本 whole */
        {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"}, /* 😀 whole */
        {"abc", "abc"},
        {"", ""},
        {"\x80\x80", "\x80\x80"},             /* no lead byte: not a cut, left as it is */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char buf[16];
        snprintf(buf, sizeof buf, "%s", cases[k].in);
        assert_int_equal(av_utf8_trim_cut(buf), strlen(cases[k].out));
        assert_string_equal(buf, cases[k].out);
    }
}

/* Cluster byte lengths, worked by hand from UAX #29's rules. */
static void test_grapheme_clusters(void **state) {
    (void)state;
    const struct { const char *s; size_t first; } c[] = {
        {"e\xCC\x81x", 3},                         /* e + U+0301 (GB9) */
        {"\r\nx", 2},                              /* CR LF (GB3) */
        {"\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3\xF0\x9F\x87\xAB", 8}, /* 🇨🇳 then 🇫 (GB12) */
        {"👨‍👩‍👧x", strlen("👨‍👩‍👧")},                 /* ZWJ sequence (GB11) */
        {"👍🏽x", 8},                                /* skin tone modifier is Extend */
        {"\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8x", 9}, /* Hangul L V T (GB6, GB7) */
        {"\xD8\x80" "1x", 3},                      /* U+0600 prepends (GB9b) */
        {"a\xD8\x9C" "b", 1},                      /* U+061C is Control: breaks (GB5) */
        {"\xE2\x9C\x93\xEF\xB8\x8F", 6},           /* ✓ + VS16 (Extend) */
        /* GB9c (Unicode 15.1): a consonant, virama (InCB=Linker), consonant is one conjunct; GraphemeBreakTest
         * 15.1's "क्ष" U+0915 U+094D U+0937 and the word "क्षत्रिय" = क्ष | त्रि | य by hand */
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7x", 9},            /* क्ष */
        {"\xE0\xA4\xA4\xE0\xA5\x8D\xE0\xA4\xB0\xE0\xA4\xBF\xE0\xA4\xAF", 12}, /* त्रि then य */
        {"\xE0\xA4\x95\xE0\xA4\xBC\xE0\xA5\x8D\xE0\xA4\xB7", 12}, /* क़्ष: nukta U+093C is InCB=Extend */
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE2\x80\x8D\xE0\xA4\xB7", 12}, /* क्‍ष: ZWJ after the virama */
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA5\x8D\xE0\xA4\xB7", 12}, /* two viramas: [Extend Linker]* */
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\x85", 6},             /* क् then अ (a vowel, not a consonant) */
        {"\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA6\x95", 9},             /* Devanagari क् + Bengali ক: GB9c joins */
        {"a\xE0\xA5\x8D\xE0\xA4\xB7", 4},                          /* a + virama, then ष: no consonant before */
        {"\xE0\xB4\x95\xE0\xB5\x8D\xE0\xB4\x95", 9},             /* Malayalam ക്ക */
        {"\xE0\xAE\x95\xE0\xAF\x8D\xE0\xAE\xB7", 6},             /* Tamil க் then ஷ: Tamil's virama is no Linker */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        size_t got = av_utf8_cluster_len(c[k].s, strlen(c[k].s));
        if (got != c[k].first) print_message("case %zu: %zu bytes, want %zu\n", k, got, c[k].first);
        assert_int_equal(got, c[k].first);
    }
}

static int emoji(const char *s) { return av_utf8_cluster_is_emoji(s, strlen(s)); }

/* UTS #51 emoji-data: Emoji_Presentation=Yes for 🙂 ✅; → and ✓ are not emoji
 * at all; ❤ U+2764 is text by default and emoji with VS16. */
static void test_emoji_presentation(void **state) {
    (void)state;
    assert_true(emoji("🙂"));
    assert_true(emoji("✅"));
    assert_true(emoji("❤️"));
    assert_true(emoji("👨‍👩‍👧"));
    assert_true(emoji("🇨🇳"));
    assert_false(emoji("❤"));
    assert_false(emoji("→"));
    assert_false(emoji("✓"));
    assert_false(emoji("✓\xEF\xB8\x8F")); /* ✓ is not Extended_Pictographic: VS16 changes nothing */
    assert_false(emoji("\xF0\x9F\x87\xA8")); /* one regional indicator alone */
    assert_false(emoji("a"));
    /* keycaps, UTS #51 ED-14c emoji_keycap_sequence [0-9#*] U+FE0F U+20E3; without U+FE0F text presentation */
    assert_true(emoji("1\xEF\xB8\x8F\xE2\x83\xA3"));
    assert_true(emoji("#\xEF\xB8\x8F\xE2\x83\xA3"));
    assert_true(emoji("*\xEF\xB8\x8F\xE2\x83\xA3"));
    assert_false(emoji("1\xE2\x83\xA3"));
    assert_false(emoji("1\xEF\xB8\x8F"));
    assert_false(emoji("a\xEF\xB8\x8F\xE2\x83\xA3"));
}

/* The width of every code point, alone, is utf8proc_charwidth's: the number
 * --show and --explain pad with. */
static void test_width_of_every_code_point_is_the_librarys(void **state) {
    (void)state;
    int checked = 0;
    for (unsigned cp = 1; cp <= 0x10FFFF; cp++) {
        char b[5] = {0};
        if (av_utf8_encode(cp, b) == 0) continue;
        int want = utf8proc_charwidth((utf8proc_int32_t)cp);
        if (av_utf8_width(b) != want) print_message("U+%04X: %d, utf8proc %d\n", cp, av_utf8_width(b), want);
        assert_int_equal(av_utf8_width(b), want);
        assert_int_equal(av_utf8_cp_width(cp), want);
        checked++;
    }
    assert_int_equal(checked, 0x10FFFF - 0x800);
    print_message("widths of %d code points agree with utf8proc %s (Unicode %s)\n", checked, utf8proc_version(),
                  av_utf8_unicode_version());
}

/* Strings, by hand: wcwidth gives → and ✓ one column (the --show bug). */
static void test_string_widths(void **state) {
    (void)state;
    assert_int_equal(av_utf8_width("love"), 4);
    assert_int_equal(av_utf8_width("我爱"), 4);
    assert_int_equal(av_utf8_width("nai\xCC\x88ve"), 5);
    assert_int_equal(av_utf8_width("go → up ✓ ok"), 12);
    assert_int_equal(av_utf8_width("👨‍👩‍👧"), 2);
    assert_int_equal(av_utf8_width("👍🏽"), 2);
    assert_int_equal(av_utf8_width("🇨🇳"), 2);
    assert_int_equal(av_utf8_width("❤️"), 2);
    assert_int_equal(av_utf8_width("1\xEF\xB8\x8F\xE2\x83\xA3"), 2); /* keycap 1️⃣, an emoji */
    assert_int_equal(av_utf8_width("1\xE2\x83\xA3"), 1);              /* 1⃣: the digit and its mark */
    assert_int_equal(av_utf8_width("\xE1\x84\x80\xE1\x84\x80"), 4); /* ᄀᄀ: two wide leading jamo, one cluster */
    assert_int_equal(av_utf8_width("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8"), 2); /* 각 in jamo: L V T */
    assert_int_equal(av_utf8_width("ሰላም።"), 4);
    assert_int_equal(av_utf8_width("abc\xD8\x9C" "def"), 6); /* U+061C is invisible */
    /* a conjunct is one cluster (GB9c) but a cell per consonant, as wcswidth sums क 1, ् 0, ष 1 */
    assert_int_equal(av_utf8_width("\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7"), 2);                  /* क्ष */
    assert_int_equal(av_utf8_width("\xE0\xA4\x95\xE0\xA5\x8D\xE0\xA4\xB7\xE0\xA4\xA4\xE0\xA5\x8D"
                                   "\xE0\xA4\xB0\xE0\xA4\xBF\xE0\xA4\xAF"), 5);                        /* क्षत्रिय */
}

static void test_categories_and_hangul(void **state) {
    (void)state;
    assert_int_equal(av_utf8_category(0x061C), AV_UC_CF);
    assert_int_equal(av_utf8_category(0x1362), AV_UC_PO); /* ETHIOPIC FULL STOP */
    assert_int_equal(av_utf8_category(0x2192), AV_UC_SM);
    assert_int_equal(av_utf8_category(0x2713), AV_UC_SO);
    assert_int_equal(av_utf8_category(0x3000), AV_UC_ZS);
    assert_true(av_utf8_is_ignorable(0x200D));
    assert_true(av_utf8_is_ignorable(0xFE0F));
    assert_false(av_utf8_is_ignorable('a'));
    assert_true(av_utf8_is_hangul(0xC548));  /* 안, syllable LV */
    assert_true(av_utf8_is_hangul(0x1100));  /* ᄀ, leading jamo */
    assert_true(av_utf8_is_hangul(0x314B));  /* ㅋ, compatibility jamo */
    assert_false(av_utf8_is_hangul(0x6211)); /* 我 */
    assert_false(av_utf8_is_hangul(0x30B3)); /* コ */
    assert_false(av_utf8_is_hangul('a'));
    assert_string_equal(av_utf8_unicode_version(), utf8proc_unicode_version());
}

/* The closers of a text's open bidi controls, worked by hand from UAX #9
 * X1-X8: innermost first, PDF (E2 80 AC) for an embedding or override, PDI
 * (E2 81 A9) for an isolate; a PDF does not reach past an isolate, a PDI
 * closes what its isolate holds, a paragraph separator ends everything. */
static void test_bidi_closers(void **state) {
    (void)state;
#define RLO "\xE2\x80\xAE"
#define LRE "\xE2\x80\xAA"
#define PDF "\xE2\x80\xAC"
#define RLI "\xE2\x81\xA7"
#define PDI "\xE2\x81\xA9"
    static const char *const cases[][2] = {
        {"plain text", ""},
        {"w" RLO "abc", PDF},
        {RLI "x" RLO "y", PDF PDI},
        {RLO "x" PDF "y", ""},
        {RLI "x" RLO "y" PDI "z", ""},
        {RLO "x" RLI "y" PDF, PDI PDF},  /* that PDF is inside the isolate: ignored */
        {LRE RLO "x" PDF, PDF},
        {PDF PDI "x", ""},               /* closers without openers: nothing to close */
        {RLO "a\xE2\x80\xA9" "b", ""},   /* U+2029 PARAGRAPH SEPARATOR */
    };
    char out[64];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = av_utf8_bidi_closers(cases[k][0], strlen(cases[k][0]), out, sizeof out);
        assert_string_equal(out, cases[k][1]);
        assert_int_equal(n, strlen(cases[k][1]));
    }
    assert_int_equal(av_utf8_bidi_closers(RLO RLO, 6, out, 4), 3); /* room for one closer and the NUL */
    assert_string_equal(out, PDF);
#undef RLO
#undef LRE
#undef PDF
#undef RLI
#undef PDI
}

/* Control characters as escapes, worked by hand from the ranges of general
 * category Cc (U+0000..U+001F, U+007F, U+0080..U+009F), each shown as
 * <U+XXXX> as the option values in messages are. */
static void test_escape_controls(void **state) {
    (void)state;
    static const struct { const char *in; int keep_nl; const char *out; } cases[] = {
        {"plain/path", 0, "plain/path"},
        {"x\x1b[7mINV\x1b[0m", 0, "x<U+001B>[7mINV<U+001B>[0m"},
        {"no\rpe", 0, "no<U+000D>pe"},
        {"a\tb", 1, "a<U+0009>b"},
        {"a\nb", 0, "a<U+000A>b"},
        {"a\nb", 1, "a\nb"},
        {"del\x7f", 0, "del<U+007F>"},
        {"\x01\x1f ", 0, "<U+0001><U+001F> "},
        {"nel\xc2\x85" "x", 0, "nel<U+0085>x"},            /* U+0085 NEXT LINE, a C1 control */
        {"\xc2\x9f\xc2\xa0", 0, "<U+009F>\xc2\xa0"},        /* U+009F a control; U+00A0 NBSP is not */
        {"中文 عربي", 0, "中文 عربي"},
        {"bad\xff" "byte", 0, "bad\xff" "byte"},            /* not UTF-8: the byte as it is */
    };
    char out[64];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = av_utf8_escape_controls(cases[k].in, strlen(cases[k].in), out, sizeof out, cases[k].keep_nl);
        assert_string_equal(out, cases[k].out);
        assert_int_equal(n, strlen(cases[k].out));
    }
    /* cut before an escape or a character that does not fit, never inside one */
    assert_int_equal(av_utf8_escape_controls("ab\x1b", 3, out, 9, 0), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(av_utf8_escape_controls("a中", 4, out, 4, 0), 1);
    assert_string_equal(out, "a");
    assert_int_equal(av_utf8_escape_controls("x", 1, out, 1, 0), 0);
    assert_string_equal(out, "");
}

/* av_utf8_halfwidth: UnicodeData.txt's <wide> decompositions, read by hand: U+FF14 FULLWIDTH DIGIT FOUR is
 * <wide> 0034, U+FF01 <wide> 0021 ('!'), U+FF5E FULLWIDTH TILDE <wide> 007E, U+FF28 <wide> 0048, U+FF0D
 * <wide> 002D. U+FF5F FULLWIDTH LEFT WHITE PARENTHESIS is <wide> 2985, not ASCII: 0. U+3000 IDEOGRAPHIC
 * SPACE is <wide> 0020, but outside the block: 0, as utf8.h says (callers name it as a space). */
static void test_halfwidth_by_hand(void **state) {
    (void)state;
    assert_int_equal(av_utf8_halfwidth(0xFF14), '4');
    assert_int_equal(av_utf8_halfwidth(0xFF01), '!');
    assert_int_equal(av_utf8_halfwidth(0xFF5E), '~');
    assert_int_equal(av_utf8_halfwidth(0xFF28), 'H');
    assert_int_equal(av_utf8_halfwidth(0xFF0D), '-');
    assert_int_equal(av_utf8_halfwidth(0xFF5F), 0);
    assert_int_equal(av_utf8_halfwidth(0xFF00), 0);
    assert_int_equal(av_utf8_halfwidth(0x3000), 0);
    assert_int_equal(av_utf8_halfwidth('4'), 0);
}

/* Scripts written without spaces between words, counted by hand: ฉ ั น ร ั ก ค ุ ณ is 9 Thai code points
 * (U+0E09 U+0E31 U+0E19 U+0E23 U+0E31 U+0E01 U+0E04 U+0E38 U+0E13), ລາວ 3 Lao, ខ្មែរ 5 Khmer (U+1781 U+17D2
 * U+1798 U+17C2 U+179A), မြန်မာ 6 Myanmar; only the first script is counted; none in Latin or Han. */
static void test_unspaced_script_by_hand(void **state) {
    (void)state;
    int n = -1;
    const char *thai = "\u0E09\u0E31\u0E19\u0E23\u0E31\u0E01\u0E04\u0E38\u0E13";
    assert_string_equal(av_utf8_unspaced_script(thai, strlen(thai), &n), "Thai");
    assert_int_equal(n, 9);
    const char *lao = "a \u0EA5\u0EB2\u0EA7 b";
    assert_string_equal(av_utf8_unspaced_script(lao, strlen(lao), &n), "Lao");
    assert_int_equal(n, 3);
    const char *khmer = "\u1781\u17D2\u1798\u17C2\u179A\u0E01";
    assert_string_equal(av_utf8_unspaced_script(khmer, strlen(khmer), &n), "Khmer");
    assert_int_equal(n, 5);
    const char *myanmar = "\u1019\u103C\u1014\u103A\u1019\u102C";
    assert_string_equal(av_utf8_unspaced_script(myanmar, strlen(myanmar), &n), "Myanmar");
    assert_int_equal(n, 6);
    const char *other = "deep \u5B66\u4E60";
    assert_null(av_utf8_unspaced_script(other, strlen(other), &n));
    assert_int_equal(n, 0);
}

/* av_utf8_trailing_mark against the code points typed by hand (Unicode's names: U+3002 IDEOGRAPHIC FULL STOP,
 * U+3001 IDEOGRAPHIC COMMA, U+FF1B FULLWIDTH SEMICOLON, U+FF01 FULLWIDTH EXCLAMATION MARK). */
static void test_trailing_mark_by_hand(void **state) {
    (void)state;
    unsigned cp = 0;
    const char *name = NULL;
    const char *four = "4\u3002";
    assert_int_equal(av_utf8_trailing_mark(four, strlen(four), &cp, &name), 3);
    assert_int_equal(cp, 0x3002);
    assert_string_equal(name, "an ideographic full stop");
    const char *idx = "1\u3001";
    assert_int_equal(av_utf8_trailing_mark(idx, strlen(idx), &cp, &name), 3);
    assert_int_equal(cp, 0x3001);
    assert_string_equal(name, "an ideographic comma");
    const char *semi = "viridis\uFF1B";
    assert_int_equal(av_utf8_trailing_mark(semi, strlen(semi), &cp, NULL), 3);
    assert_int_equal(cp, 0xFF1B);
    const char *bang = "4\uFF01";
    assert_int_equal(av_utf8_trailing_mark(bang, strlen(bang), NULL, &name), 3);
    assert_string_equal(name, "a full-width exclamation mark");
    /* the mark alone has nothing before it; a mark inside the value is not at its end; ASCII '.' is no mark
     * here; a length that stops before the mark; the last 3 bytes of a 4-byte character (U+1F600) */
    cp = 7;
    assert_int_equal(av_utf8_trailing_mark("\u3002", 3, &cp, &name), 0);
    assert_int_equal(cp, 7);
    assert_int_equal(av_utf8_trailing_mark("1\u30022", 5, &cp, &name), 0);
    assert_int_equal(av_utf8_trailing_mark("4.", 2, &cp, &name), 0);
    assert_int_equal(av_utf8_trailing_mark("4\u3002", 1, &cp, &name), 0);
    assert_int_equal(av_utf8_trailing_mark("a\U0001F600", 5, &cp, &name), 0);
    assert_int_equal(av_utf8_trailing_mark("\u6211\u7231", 6, &cp, &name), 0);
}

/* av_utf8_lookalike_dash against the code points typed by hand (Unicode's names: U+2212 MINUS SIGN, U+2013 EN DASH,
 * U+2014 EM DASH, U+FF0D FULLWIDTH HYPHEN-MINUS, U+2010 HYPHEN); ASCII '-', U+2011 NON-BREAKING HYPHEN (not one
 * of them) and a dash after the start are none, and leave cp and name as they were. */
static void test_lookalike_dash_by_hand(void **state) {
    (void)state;
    static const struct { const char *s; unsigned cp; const char *name; } cases[] = {
        {"\u22121", 0x2212, "the minus sign of typeset text"}, {"\u2013", 0x2013, "an en dash"},
        {"\u2014\u2014train", 0x2014, "an em dash"}, {"\uFF0D1", 0xFF0D, "a full-width hyphen-minus"},
        {"\u2010x", 0x2010, "a typographic hyphen"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned cp = 0;
        const char *name = NULL;
        assert_int_equal(av_utf8_lookalike_dash(cases[k].s, &cp, &name), 3);
        assert_int_equal(cp, cases[k].cp);
        assert_string_equal(name, cases[k].name);
    }
    unsigned cp = 7;
    const char *name = "kept";
    assert_int_equal(av_utf8_lookalike_dash("-1", &cp, &name), 0);
    assert_int_equal(av_utf8_lookalike_dash("\u20111", &cp, &name), 0);
    assert_int_equal(av_utf8_lookalike_dash("1\u2212", &cp, &name), 0);
    assert_int_equal(av_utf8_lookalike_dash("", &cp, &name), 0);
    assert_int_equal(cp, 7);
    assert_string_equal(name, "kept");
    assert_int_equal(av_utf8_lookalike_dash("\u2212", NULL, NULL), 3);
}

/* The separators a list may be typed with that are none of it, by hand: the first in the text is named. */
static void test_not_a_list_sep_by_hand(void **state) {
    (void)state;
    assert_string_equal(av_utf8_not_a_list_sep("\u7231\u3001\u4E60"), "the enumeration comma '\u3001'");
    assert_string_equal(av_utf8_not_a_list_sep("a;b\u3001c"), "the semicolon ';'");
    assert_string_equal(av_utf8_not_a_list_sep("a\uFF1Bb;c"), "the full-width semicolon '\uFF1B'");
    assert_string_equal(av_utf8_not_a_list_sep("\u7231\u3002\u6211"), "the ideographic full stop '\u3002'");
    assert_null(av_utf8_not_a_list_sep("heads,grid\uFF0Cmean"));
    assert_null(av_utf8_not_a_list_sep("heads\u3002"));
    assert_string_equal(av_utf8_not_a_list_sep("\u7231\uFF1A\u6211"), "the full-width colon '\uFF1A'");
    assert_string_equal(av_utf8_not_a_list_sep("1:2"), "the colon ':'");
    /* the arrow --explain's trace prints between query and key (U+2192), and its ASCII form */
    assert_string_equal(av_utf8_not_a_list_sep("\u7231\u2192\u4E60"), "the arrow '\u2192'");
    assert_string_equal(av_utf8_not_a_list_sep("1->5"), "the arrow '->'");
    /* the '|' of --help's "auto | reference | blas | flash" and a '/', but not the '/' of a part label "(1/3)" or
     * "（1/3）" (U+FF08, U+FF09), after which one still counts */
    assert_string_equal(av_utf8_not_a_list_sep("heads|grid"), "the vertical bar '|'");
    assert_string_equal(av_utf8_not_a_list_sep("heads/grid;mean"), "the slash '/'");
    assert_string_equal(av_utf8_not_a_list_sep("1/2"), "the slash '/'");
    assert_null(av_utf8_not_a_list_sep("\u7231(1/3)"));
    assert_null(av_utf8_not_a_list_sep("\u7231\uFF081/3\uFF09"));
    assert_string_equal(av_utf8_not_a_list_sep("\u7231(1/3)/\u6211"), "the slash '/'");
}

/* Whole texts to half width, by hand from UnicodeData.txt's <wide> mappings: ＧＰＴ (U+FF27 U+FF30 U+FF34) is
 * GPT, ＝ (U+FF1D) '='; other characters stay and are counted when not ASCII; a text too long for out gives -1. */
/* Chinese numerals, worked by hand: 四十二 = 4·10 + 2, 一百零五 = 1·100 + 0 + 5, 二百五 = 2·100 + 5·10 (the digit
 * after 百 counts in tens, as it is read aloud), 三万五 = 3·10000 + 5·1000, 二十万 = (2·10)·10000, 五一二 and
 * 二〇二四 digit by digit, 壹拾 = 1·10, 零点零零一 = 0.001; refused: a word after the number (八个), two digits
 * before a unit (五一二百), units out of order (百十), a point without real or digits (三点, 点五). */
static void test_chinese_number_by_hand(void **state) {
    (void)state;
    static const struct { const char *s, *want; int real; } kOk[] = {
        {"八", "8", 0}, {"十", "10", 0}, {"十二", "12", 0}, {"四十二", "42", 0}, {"一百零五", "105", 0},
        {"二百五", "250", 0}, {"两千", "2000", 0}, {"三万五", "35000", 0}, {"一万零五", "10005", 0},
        {"二十万", "200000", 0}, {"一千二百三十四万五千六百七十八", "12345678", 0}, {"五一二", "512", 0},
        {"二〇二四", "2024", 0}, {"零", "0", 0}, {"捌", "8", 0}, {"壹拾", "10", 0}, {"负三", "-3", 0},
        {"零点零零一", "0.001", 1}, {"三点一四", "3.14", 1},
        /* 一千零十 = 1000 + 0 + 10, 一百零十 = 100 + 10, 两千两百 = 2000 + 200, 两万 = 2·10000, 一万亿 = 10^4·10^8,
         * 五千万亿 = 5000·10^4·10^8, 一亿亿 = 10^8·10^8, 一千亿亿 = 1000·10^16 (past 2^63), 一亿零五万 =
         * 10^8 + 5·10^4, 三亿五千万 = 3·10^8 + 5000·10^4, twenty digits one by one */
        {"一千零十", "1010", 0}, {"一百零十", "110", 0}, {"两千两百", "2200", 0}, {"两万", "20000", 0},
        {"两", "2", 0}, {"一万亿", "1000000000000", 0}, {"五千万亿", "5000000000000000", 0},
        {"一亿亿", "10000000000000000", 0}, {"一千亿亿", "10000000000000000000", 0},
        {"一亿零五万", "100050000", 0}, {"三亿五千万", "350000000", 0},
        {"一二三四五六七八九〇一二三四五六七八九〇", "12345678901234567890", 0},
        /* the traditional forms (Unihan kSimplifiedVariant: 兩 U+5169 两, 萬 U+842C 万, 億 U+5104 亿, 點 U+9EDE 点,
         * 貳 U+8CB3 贰, 叄 U+53C4 叁, 陸 U+9678 陆), read as their simplified twins: 兩千 = 2·1000, 兩萬 = 2·10000,
         * 三億 = 3·10^8, 一萬億 = 10^4·10^8, 貳拾陸 = 2·10 + 6, 零點五 = 0.5 */
        {"兩", "2", 0}, {"兩千", "2000", 0}, {"兩萬", "20000", 0}, {"三億", "300000000", 0},
        {"一萬億", "1000000000000", 0}, {"貳拾陸", "26", 0}, {"叄", "3", 0}, {"零點五", "0.5", 1},
        {"負三", "-3", 0}}; /* 負 U+8CA0, kSimplifiedVariant 负 */
    char out[64];
    for (size_t i = 0; i < sizeof kOk / sizeof kOk[0]; i++) {
        if (!av_utf8_chinese_number(out, sizeof out, kOk[i].s, kOk[i].real)) fail_msg("%s: refused", kOk[i].s);
        if (strcmp(out, kOk[i].want) != 0) fail_msg("%s: %s, want %s", kOk[i].s, out, kOk[i].want);
    }
    /* and 两 in the ones place or before 十 (两百两, 十两, 五两, 两十: 二 is said there), a bare 十 after 零 with
     * no unit before it (零十), places that do not fall (一亿二亿, 三亿五千万亿), 万 twice or after 亿 (一万万,
     * 一亿万) */
    static const char *const kNo[] = {"八个", "五一二百", "一二百", "百", "百十", "十十", "8", "", "负", "点五",
                                      "两百两", "十两", "五两", "两十", "零十", "一亿二亿", "三亿五千万亿", "一万万",
                                      "一亿万", "十两万", "兩百兩", "十兩", "一萬萬", "參"};
    for (size_t i = 0; i < sizeof kNo / sizeof kNo[0]; i++)
        if (av_utf8_chinese_number(out, sizeof out, kNo[i], 1)) fail_msg("%s: read as %s", kNo[i], out);
    assert_int_equal(av_utf8_chinese_number(out, sizeof out, "零点五", 0), 0); /* a whole number: no point */
    assert_int_equal(av_utf8_chinese_number(out, sizeof out, "三点", 1), 0);
}

/* Traditional and simplified forms, from the Unihan database (kSimplifiedVariant of 習 U+7FD2 is U+4E60 习, of 學
 * U+5B78 U+5B66 学, of 愛 U+611B U+7231 爱): both ways, the others kept, and a text with none unchanged. */
static void test_han_form_by_hand(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(av_utf8_han_form(out, sizeof out, "習", 1), 1);
    assert_string_equal(out, "习");
    assert_int_equal(av_utf8_han_form(out, sizeof out, "我爱学习", 0), 3);
    assert_string_equal(out, "我愛學習");
    assert_int_equal(av_utf8_han_form(out, sizeof out, "你好，世界", 1), 0);
    assert_string_equal(out, "你好，世界");
    assert_int_equal(av_utf8_han_form(out, 4, "a習", 1), 0); /* 习 does not fit: cut before it */
    assert_string_equal(out, "a");
    /* the two forms mixed: each character in the form asked for, one already in it kept (學习 is 学习 simplified,
     * 學習 traditional; it was 学習 both ways, each character turned over) */
    assert_int_equal(av_utf8_han_form(out, sizeof out, "學习", 1), 1);
    assert_string_equal(out, "学习");
    assert_int_equal(av_utf8_han_form(out, sizeof out, "學习", 0), 1);
    assert_string_equal(out, "學習");
    assert_int_equal(av_utf8_han_form(out, sizeof out, "習", 0), 0);
    assert_string_equal(out, "習");
}

static void test_halfwidth_text_by_hand(void **state) {
    (void)state;
    char out[32];
    int other = -1;
    assert_int_equal(av_utf8_halfwidth_text(out, sizeof out, "\uFF27\uFF30\uFF34\u6709\u5934", &other), 3);
    assert_string_equal(out, "GPT\u6709\u5934");
    assert_int_equal(other, 2);
    assert_int_equal(av_utf8_halfwidth_text(out, sizeof out, "--heads\uFF1D8", &other), 1);
    assert_string_equal(out, "--heads=8");
    assert_int_equal(other, 0);
    assert_int_equal(av_utf8_halfwidth_text(out, sizeof out, "plain", NULL), 0);
    assert_string_equal(out, "plain");
    assert_int_equal(av_utf8_halfwidth_text(out, 4, "abcdef", &other), -1);
    assert_string_equal(out, "abc");
}

/* A word cut to fit says so: "..." after it (after the closing quote of a quoted one), in the same n bytes, so a
 * message's reader knows the name goes on; the "~ not expanded" message cut `-o "~/xxx...x"` (300 x's) at 196 bytes
 * with no mark. Worked by hand: av_shown_word keeps n - 3 bytes for the mark, a plain word taking n - 4 bytes of
 * the name (12 of 16: "abcdefghijkl..."), a quoted one as many pieces as leave 5 bytes (its closing quote and the
 * NUL) of the 13: "'a b c d" and "'", then "..."; av_quoted_word's word gets n - 2 bytes, so 10 letters of 16 in
 * quotes, then "...". A word that fits is as it was, with no mark. */
static void test_cut_word_is_marked_by_hand(void **state) {
    (void)state;
    char buf[16];
    assert_string_equal(av_shown_word(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz"), "abcdefghijkl...");
    assert_string_equal(av_shown_word(buf, sizeof buf, "a b c d e f g h i j"), "'a b c d'...");
    assert_string_equal(av_quoted_word(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz"), "'abcdefghij'...");
    assert_string_equal(av_shown_word(buf, sizeof buf, "abcdefghijklmno"), "abcdefghijklmno"); /* 15 bytes: fits */
    assert_string_equal(av_shown_word(buf, sizeof buf, "abc def"), "'abc def'");
    assert_string_equal(av_quoted_word(buf, sizeof buf, "abcdefghijklm"), "'abcdefghijklm'");
    /* a 3-byte character is not split by the cut: 12 bytes of room hold "ab" and three of the five '中' (17 bytes) */
    assert_string_equal(av_shown_word(buf, sizeof buf, "ab\u4E2D\u4E2D\u4E2D\u4E2D\u4E2D"), "ab\u4E2D\u4E2D\u4E2D...");
}

/* A name from a file as a message quotes it (av_utf8_shown_middle), by hand from av_utf8_cut_middle's sizes for its
 * 200-byte middle: the end keeps (200 - 1) / 2 = 99 bytes, the start 200 - 1 - 99 - 5 (" … ") - 63 (the closers'
 * room) = 32. So 150 a and 150 b give 32 a, " … " and 99 b; 199 bytes are kept whole; "a\nb" shows its newline
 * as <U+000A> and "a\u202eb" is closed by a PDF (U+202C, UAX #9 X9). */
static void test_shown_middle_by_hand(void **state) {
    (void)state;
    char name[301], want[200], buf[1700];
    memset(name, 'a', 150), memset(name + 150, 'b', 150), name[300] = 0;
    memset(want, 'a', 32), memcpy(want + 32, " \xE2\x80\xA6 ", 5), memset(want + 37, 'b', 99), want[136] = 0;
    assert_string_equal(av_utf8_shown_middle(buf, sizeof buf, name), want);
    name[199] = 0; /* 150 a, 49 b */
    assert_string_equal(av_utf8_shown_middle(buf, sizeof buf, name), name);
    assert_string_equal(av_utf8_shown_middle(buf, sizeof buf, "a\nb"), "a<U+000A>b");
    assert_string_equal(av_utf8_shown_middle(buf, sizeof buf, "a\xE2\x80\xAE" "b"), "a\xE2\x80\xAE" "b\xE2\x80\xAC");
    assert_string_equal(AV_SHOWN_MIDDLE("WordPiece"), "WordPiece");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_decode_every_scalar_value),
        cmocka_unit_test(test_chinese_number_by_hand),
        cmocka_unit_test(test_han_form_by_hand),
        cmocka_unit_test(test_check_names_first_bad_byte),
        cmocka_unit_test(test_trim_cut),
        cmocka_unit_test(test_replace_invalid),
        cmocka_unit_test(test_grapheme_clusters),
        cmocka_unit_test(test_emoji_presentation),
        cmocka_unit_test(test_width_of_every_code_point_is_the_librarys),
        cmocka_unit_test(test_string_widths),
        cmocka_unit_test(test_categories_and_hangul),
        cmocka_unit_test(test_bidi_closers),
        cmocka_unit_test(test_escape_controls),
        cmocka_unit_test(test_halfwidth_by_hand),
        cmocka_unit_test(test_halfwidth_text_by_hand),
        cmocka_unit_test(test_unspaced_script_by_hand),
        cmocka_unit_test(test_not_a_list_sep_by_hand),
        cmocka_unit_test(test_trailing_mark_by_hand),
        cmocka_unit_test(test_lookalike_dash_by_hand),
        cmocka_unit_test(test_cut_word_is_marked_by_hand),
        cmocka_unit_test(test_shown_middle_by_hand),
    };
    return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
