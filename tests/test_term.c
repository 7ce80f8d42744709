/* test_term.c - app/term: the training time estimate (av_format_eta), checked
 * against hand-worked cases of tqdm's rule: rate = done / elapsed, remaining =
 * (total - done) / rate, whole seconds as tqdm's format_interval prints them
 * (MM:SS, H:MM:SS from an hour), "s/step" below one step a second; the
 * quoting of --generate's text (av_print_quoted), byte by byte by hand; and
 * lines broken between their pieces (av_line), column by column by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/term.h"

static void test_eta_hand_worked(void **state) {
    (void)state;
    char b[96];
    /* 100 of 1,000,000 steps in 10 s: 10 steps/s, 999,900 steps left = 99,990 s
     * = 27 h (97,200 s) + 46 min (2,760 s) + 30 s */
    av_format_eta(b, sizeof b, 10.0, 100, 1000000);
    assert_string_equal(b, "00:10<27:46:30, 10.00 steps/s");
    /* 3 of 10 steps in 75.5 s: 25.1666 s/step; 7 left = 176.17 s -> 176 = 2 min 56 s;
     * the elapsed 75.5 s is cut to 75 = 1 min 15 s */
    av_format_eta(b, sizeof b, 75.5, 3, 10);
    assert_string_equal(b, "01:15<02:56, 25.17 s/step");
    /* done: nothing left; 3,600 s is the first H:MM:SS; 600 steps in 3,600 s = 6 s/step */
    av_format_eta(b, sizeof b, 3600.0, 600, 600);
    assert_string_equal(b, "1:00:00<00:00, 6.00 s/step");
    /* --generate's unit: 40 of 100 tokens in 5 s = 8 tokens/s, 60 left = 7.5 s, cut to 7; 2 in 5 s = 2.5 s/token */
    av_format_eta_of(b, sizeof b, 5.0, 40, 100, "token");
    assert_string_equal(b, "00:05<00:07, 8.00 tokens/s");
    av_format_eta_of(b, sizeof b, 5.0, 2, 3, "token");
    assert_string_equal(b, "00:05<00:02, 2.50 s/token");
}

/* av_line_print, hand-worked: where each piece goes at a given width. */
static void test_line_breaks_between_pieces(void **state) {
    (void)state;
    static const struct {
        int cols, indent;
        const char *want;
    } cases[] = {
        /* "step 60    " is 11 columns; + " loss 2.26" = 21 > 20: "loss" starts a new line, its leading
         * space dropped, after the indent: 2 + 9 = 11; + "  acc 4 %" = 20 fits; + 15 does not. The line
         * that breaks after "step 60" does not end in the padding's 4 spaces (a terminal 40 to 60 columns
         * wide showed --train's snapshot lines so) */
        {20, 2, "step 60\n  loss 2.26  acc 4 %\n  L0 [0.13 0.50]\n"},
        /* 21 + 9 = 30 fits; + 15 = 45 does not */
        {30, 2, "step 60     loss 2.26  acc 4 %\n  L0 [0.13 0.50]\n"},
        {45, 4, "step 60     loss 2.26  acc 4 % L0 [0.13 0.50]\n"},
        {0, 2, "step 60     loss 2.26  acc 4 % L0 [0.13 0.50]\n"},  /* 0: a pipe, one line */
        /* a piece wider than the line goes whole on a line of its own; the first piece never moves */
        {8, 1, "step 60\n loss 2.26\n acc 4 %\n L0 [0.13 0.50]\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        av_line l = {.n = 0};
        av_line_add(&l, "step %-6d", 60);
        av_line_add(&l, " loss %.2f", 2.26);
        av_line_add(&l, "  acc %d %%", 4);
        av_line_add(&l, " L0 [%s]", "0.13 0.50");
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        assert_non_null(f);
        av_line_print(f, &l, cases[i].cols, cases[i].indent);
        fclose(f);
        if (strcmp(buf, cases[i].want) != 0) fail_msg("case %zu: got '%s', want '%s'", i, buf, cases[i].want);
        free(buf);
    }
    /* a padded middle piece, as --train's " loss %-7s": " loss 2.26   " is 13 columns; 11 + 13 = 24 > 20
     * breaks, "loss 2.26   " is 2 + 12 = 14; + "  acc 4 %" = 23 > 20 breaks again, and the line ends at
     * "2.26", not in its 3 spaces; at 0 (a pipe) the spaces stay, the line as it always was */
    for (int cols = 0; cols <= 20; cols += 20) {
        av_line l = {.n = 0};
        av_line_add(&l, "step %-6d", 60);
        av_line_add(&l, " loss %-7s", "2.26");
        av_line_add(&l, "  acc %d %%", 4);
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        assert_non_null(f);
        av_line_print(f, &l, cols, 2);
        fclose(f);
        assert_string_equal(buf, cols ? "step 60\n  loss 2.26\n  acc 4 %\n" : "step 60     loss 2.26     acc 4 %\n");
        free(buf);
    }
    /* CJK counts 2 columns a character: "数据" (4 columns) + "x" fits in 5, not in 4 */
    for (int cols = 4; cols <= 5; cols++) {
        av_line l = {.n = 0};
        av_line_add(&l, "数据");
        av_line_add(&l, "x");
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        av_line_print(f, &l, cols, 0);
        fclose(f);
        assert_string_equal(buf, cols == 5 ? "数据x\n" : "数据\nx\n");
        free(buf);
    }
}

/* av_print_quoted, hand-worked: each input byte and what must stand for it. */
static void test_quoted_text_escapes(void **state) {
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {" 5 1 4 1 3", 10, "\" 5 1 4 1 3\""},                 /* the leading space shows */
        {"", 0, "\"\""},
        {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},                  /* a " b \ c */
        {"x\n\t\r\x01\x7f", 6, "\"x\\n\\t\\r\\x01\\x7F\""},
        {"\0z", 2, "\"\\x00z\""},                             /* a NUL byte inside the length */
        {"\xc3\xa9 \xe6\x88\x91", 6, "\"\xc3\xa9 \xe6\x88\x91\""}, /* é and 我 as they are */
        {"\xea\xb0", 2, "\"\\xEA\\xB0\""},                     /* a character cut after 2 of its 3 bytes */
        {"\xc2\x85", 2, "\"\\u0085\""},                          /* NEL, a C1 control */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        assert_non_null(f);
        av_print_quoted(f, cases[i].in, cases[i].len);
        fclose(f);
        if (strcmp(buf, cases[i].want) != 0) fail_msg("case %zu: got %s, want %s", i, buf, cases[i].want);
        free(buf);
    }
}

static void test_eta_needs_a_step_and_time(void **state) {
    (void)state;
    char b[96] = "x";
    av_format_eta(b, sizeof b, 5.0, 0, 100);
    assert_string_equal(b, "");
    strcpy(b, "x");
    av_format_eta(b, sizeof b, 0.0, 10, 100);
    assert_string_equal(b, "");
}

/* A table's rows at a terminal go through a 4096-byte buffer (put_table: its trailing spaces go when a table is
 * written in blocks); a row of more bytes lost its end: here each row carries 600 colour escapes "\033[1m\033[0m"
 * (4800 bytes, no column) before "END". The table fits 200 columns, so every row must come out as it went in,
 * byte for byte (av_put_lines_wrapped writes a table that fits as it is). */
static void test_long_table_row_is_whole(void **state) {
    (void)state;
    static char text[3 * 6000];
    size_t n = 0;
    for (int r = 0; r < 3; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "  row%d   11.5   22.5   33.5   44.5   ", r);
        for (int k = 0; k < 600; k++) n += (size_t)snprintf(text + n, sizeof text - n, "\033[1m\033[0m");
        n += (size_t)snprintf(text + n, sizeof text - n, "END%d\n", r);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    av_put_lines_wrapped(f, text, 200);
    fclose(f);
    assert_int_equal(len, n);
    assert_memory_equal(buf, text, n);
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eta_hand_worked),
        cmocka_unit_test(test_eta_needs_a_step_and_time),
        cmocka_unit_test(test_quoted_text_escapes),
        cmocka_unit_test(test_line_breaks_between_pieces),
        cmocka_unit_test(test_long_table_row_is_whole),
    };
    return cmocka_run_group_tests_name("term", tests, NULL, NULL);
}
