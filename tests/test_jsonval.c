/* test_jsonval.c - av_json_int, the whole-number check of a config.json key
 * (io/jsonval.h) that the GPT-2 and Llama/Qwen2 loaders share.
 *
 * Expected values: each JSON text below is written by hand with the value it
 * must give or the exact message it must produce (the key, the bad value,
 * what is allowed). The loaders' own wording over it is checked in
 * test_gpt2.c and test_llama.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "io/jsonval.h"

#define WHY "the format needs it"

/* av_json_int on the object in json, key "k": status, value (or -7 untouched), message. */
static av_status read_k(const char *json, int required, int *out, av_err *err) {
    cJSON *root = cJSON_Parse(json);
    if (!root) fail_msg("test JSON does not parse: %s", json);
    *out = -7;
    memset(err, 0, sizeof *err);
    av_status s = av_json_int(out, root, "k", required, WHY, NULL, "cfg.json", err);
    cJSON_Delete(root);
    return s;
}

static void test_whole_numbers_are_read(void **state) {
    (void)state;
    static const struct { const char *json; int want; } cases[] = {
        {"{\"k\": 64}", 64},
        {"{\"k\": 0}", 0},
        {"{\"k\": -3}", -3},                  /* the sign is the caller's range check */
        {"{\"k\": 1e2}", 100},                /* JSON exponent form, still whole */
        {"{\"k\": 12.0}", 12},                /* a float with no fractional part */
        {"{\"k\": 1000000000}", 1000000000},  /* 1e9: the largest accepted */
        {"{\"k\": -1000000000}", -1000000000},
        {"{\"other\": 1, \"k\": 5}", 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int v;
        av_err err;
        for (int required = 0; required < 2; required++) {
            if (read_k(cases[i].json, required, &v, &err) != AV_OK) fail_msg("%s: %s", cases[i].json, err.msg);
            if (v != cases[i].want) fail_msg("%s gave %d, want %d", cases[i].json, v, cases[i].want);
        }
    }
}

static void test_absent_or_null_optional_key_is_left_alone(void **state) {
    (void)state;
    static const char *const cases[] = {"{}", "{\"k\": null}", "{\"K\": 3}"}; /* keys are case-sensitive */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int v;
        av_err err;
        assert_int_equal(read_k(cases[i], 0, &v, &err), AV_OK);
        assert_int_equal(v, -7);
    }
    int v = -7; /* not an object: no key */
    av_err err = {{0}};
    cJSON *arr = cJSON_Parse("[1, 2]");
    assert_int_equal(av_json_int(&v, arr, "k", 0, WHY, NULL, "cfg.json", &err), AV_OK);
    assert_int_equal(av_json_int(&v, NULL, "k", 0, WHY, NULL, "cfg.json", &err), AV_OK);
    assert_int_equal(v, -7);
    assert_int_equal(av_json_int(&v, arr, "k", 1, WHY, NULL, "cfg.json", &err), AV_EUSAGE);
    assert_string_equal(err.msg, "cfg.json: missing key \"k\" (the format needs it)");
    cJSON_Delete(arr);
}

static void test_bad_values_name_key_value_and_what_is_allowed(void **state) {
    (void)state;
    static const struct { const char *json; int required; const char *msg; } cases[] = {
        {"{}", 1, "cfg.json: missing key \"k\" (the format needs it)"},
        {"{\"k\": null}", 1, "cfg.json: \"k\" is null; it must be a whole number"},
        {"{\"k\": \"64\"}", 0, "cfg.json: \"k\" is \"64\"; it must be a whole number"},
        {"{\"k\": true}", 0, "cfg.json: \"k\" is true; it must be a whole number"},
        {"{\"k\": [64]}", 1, "cfg.json: \"k\" is [64]; it must be a whole number"},
        {"{\"k\": 2.5}", 0, "cfg.json: \"k\" 2.5 must be a whole number"},
        {"{\"k\": -0.25}", 1, "cfg.json: \"k\" -0.25 must be a whole number"},
        {"{\"k\": 1000000001}", 0, "cfg.json: \"k\" 1000000001 is too large (a whole number of at most 1e9)"},
        {"{\"k\": 1099511627776}", 1, "cfg.json: \"k\" 1099511627776 is too large (a whole number of at most 1e9)"},
        {"{\"k\": -1000000001}", 0, "cfg.json: \"k\" -1000000001 is too small (a whole number of at least -1e9)"},
        /* past a double's range: cJSON reads 1e400 as infinity, and the message said "\"k\" inf is too large";
         * the text as written is not kept, so the range it is past is named instead (DBL_MAX = 1.797...e308) */
        {"{\"k\": 1e400}", 0, "cfg.json: \"k\" is too large: a number past 1.797e308, out of a double's range (a whole "
                              "number of at most 1e9)"},
        {"{\"k\": -1e400}", 1, "cfg.json: \"k\" is too small: a number past -1.797e308, out of a double's range (a "
                               "whole number of at least -1e9)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int v;
        av_err err;
        av_status s = read_k(cases[i].json, cases[i].required, &v, &err);
        if (s != AV_EUSAGE || strcmp(err.msg, cases[i].msg) != 0)
            fail_msg("%s: status %d, '%s'; want '%s'", cases[i].json, (int)s, err.msg, cases[i].msg);
        assert_int_equal(v, -7); /* untouched on error */
    }
}

/* With the caller's range (allowed), a number past 1e9 either way is named against that range, in the
 * caller's own words ("n_head 0 is outside 1..64"): "n_head" 1e12 said "a whole number of at most 1e9",
 * a second limit for one key. Hand-written messages; numbers within 1e9 are still the caller's to check. */
static void test_past_1e9_is_named_against_the_callers_range(void **state) {
    (void)state;
    static const struct { const char *json; const char *msg; } cases[] = {
        {"{\"k\": 1000000001}", "cfg.json: k 1000000001 is outside 1..64"},
        {"{\"k\": 1099511627776}", "cfg.json: k 1099511627776 is outside 1..64"},
        {"{\"k\": -1099511627776}", "cfg.json: k -1099511627776 is outside 1..64"},
        {"{\"k\": 1e300}", "cfg.json: k 1e+300 is outside 1..64"},
        {"{\"k\": 1e400}", "cfg.json: k (a number past 1.797e308) is outside 1..64"},
        {"{\"k\": -1e400}", "cfg.json: k (a number past -1.797e308) is outside 1..64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *root = cJSON_Parse(cases[i].json);
        assert_non_null(root);
        int v = -7;
        av_err err = {{0}};
        av_status s = av_json_int(&v, root, "k", 1, WHY, "1..64", "cfg.json", &err);
        cJSON_Delete(root);
        if (s != AV_EUSAGE || strcmp(err.msg, cases[i].msg) != 0)
            fail_msg("%s: status %d, '%s'; want '%s'", cases[i].json, (int)s, err.msg, cases[i].msg);
        assert_int_equal(v, -7);
    }
    /* within 1e9 the value is read, whatever the range says: the caller checks it and names it the same way */
    cJSON *root = cJSON_Parse("{\"k\": 1000000000, \"m\": 2.5}");
    int v = -7;
    av_err err = {{0}};
    assert_int_equal(av_json_int(&v, root, "k", 1, WHY, "1..64", "cfg.json", &err), AV_OK);
    assert_int_equal(v, 1000000000);
    assert_int_equal(av_json_int(&v, root, "m", 1, WHY, "1..64", "cfg.json", &err), AV_EUSAGE);
    assert_string_equal(err.msg, "cfg.json: \"m\" 2.5 must be a whole number");
    cJSON_Delete(root);
}

/* av_json_check_strings, hand-worked: where a \u0000 escape is (the byte of its backslash, from 0), and
 * the texts that only look like one. */
static void test_nul_escape_in_a_string_is_refused(void **state) {
    (void)state;
    static const struct {
        const char *json;
        long at; /* -1: accepted */
    } cases[] = {
        {"{\"task\": \"reverse\\u0000x\"}", 17},  /* {"task": "reverse = 17 bytes */
        {"{\"a\\u0000b\": 1}", 3},                  /* in a key */
        {"[\"x\", \"\\u0000\"]", 7},
        {"{\"a\": \"\\\\u0000\"}", -1},               /* \\ then "u0000": a backslash and text */
        {"{\"a\": \"\\\"\\u0000\"}", 9},               /* \" does not end the string */
        {"{\"a\": \"\\u00001\"}", 7},                /* {"a": " = 7 bytes */
        {"{\"a\": \"\\u0001 \\u1000 \\U0000\"}", -1},  /* other code points; \U is not an escape */
        {"{\"a\": 1}", -1},
        {"{\"a\": \"\\u000", -1},                   /* cut short: the parser's to report */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        av_err err = {0};
        av_status s = av_json_check_strings(cases[i].json, strlen(cases[i].json), "c.json", &err);
        char want[200];
        snprintf(want, sizeof want, "c.json: byte %ld: a string holds \\u0000 (a NUL character), which no model "
                 "file has; is the file damaged?", cases[i].at);
        if (cases[i].at < 0 ? s != AV_OK : s != AV_EUSAGE || strcmp(err.msg, want) != 0)
            fail_msg("case %zu (%s): status %d, '%s'", i, cases[i].json, (int)s, err.msg);
    }
    av_err err = {0}; /* name NULL: the caller prefixes its path */
    assert_int_equal(av_json_check_strings("[\"\\u0000\"]", 10, NULL, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "byte 2: a string holds \\u0000 (a NUL character), which no model file has; "
                        "is the file damaged?");
    /* raw bytes cJSON took silently: a NUL ended the string ("half<NUL>leaved" ran as "half"), and a
     * control byte or a byte that is not UTF-8, which Python's json refuses (a new user's report) */
    static const struct { const char *text; size_t len; const char *want; } raw[] = {
        {"{\"a\": \"half\0leaved\"}", 20, "c.json: byte 11: a string holds \\u0000 (a NUL character)"},
        {"{\"a\": \"x\ny\"}", 13, "c.json: byte 8: a string holds the control byte 0x0A unescaped, which JSON "
         "does not allow; is the file damaged?"},
        {"{\"a\": \"x\ty\"}", 13, "c.json: byte 8: a string holds the control byte 0x09 unescaped"},
        {"{\"a\": \"\xff\"}", 11, "c.json: not UTF-8: invalid UTF-8 at byte offset 7 (byte 0xFF)"},
        {"{\"a\":\n\t\"x\"}", 11, NULL}, /* white space between tokens is not in a string */
    };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
        av_err e = {0};
        av_status s = av_json_check_strings(raw[i].text, raw[i].len, "c.json", &e);
        if (raw[i].want ? s != AV_EUSAGE || !strstr(e.msg, raw[i].want) : s != AV_OK)
            fail_msg("raw case %zu: status %d, '%s'", i, (int)s, e.msg);
    }
}

/* av_json_parse_object, hand-worked: what follows the object may be white space only, and a NUL byte is
 * not white space (strchr(" \t\r\n", c) matched it); the truncation hint only for an object begun. */
static void test_parse_object_refuses_what_follows(void **state) {
    (void)state;
    static const struct {
        const char *text;
        size_t len;
        const char *want; /* NULL: accepted */
    } cases[] = {
        {"{\"a\": 1} \n", 10, NULL},
        {"{}\0", 3, "c.json: byte 2: the control byte 0x00 between values, where JSON allows only spaces, tabs and "
         "line breaks; is the file damaged?"},
        /* cJSON skipped any byte up to 0x20 between values as white space; Python's json refuses them */
        {"{\"a\":\x01 1}", 8, "c.json: byte 5: the control byte 0x01 between values"},
        {"{\"a\":\t1,\r\n\"b\": 2}", 17, NULL},
        {"{} x", 4, "c.json: not valid JSON at byte 3 of 4: text follows the object"},
        {"[1]", 3, "c.json: not a JSON object (it is an array)"},
        {"\"s\"", 3, "c.json: not a JSON object (it is a string)"},
        {"{\"a\": ", 6, "; it ends before its closing '}' (truncated?)"},
        {"n_layer = 1", 11, "c.json: not valid JSON near byte 0 of 11"},
        /* Python's json keeps the last of two equal keys, cJSON the first: "n_head": 4, "n_head": 8 ran with
         * 4 heads where transformers reads 8 (a new user's report); at any depth */
        {"{\"n_head\": 4, \"n_head\": 8}", 26, "c.json: key \"n_head\" appears twice in one object (Python's json "
         "keeps the last, cJSON the first; is the file damaged?)"},
        {"{\"m\": {\"v\": {\"a\": 0, \"b\": 1, \"a\": 2}}}", 38, "key \"a\" appears twice"},
        {"{\"a\": [{\"k\": 1, \"k\": 1}]}", 25, "key \"k\" appears twice"},
        /* the key as JSON spells it: "%.80s" printed the decoded \n raw, the message on two lines */
        {"{\"a\\nb\": 1, \"a\\nb\": 2}", 22, "c.json: key \"a\\nb\" appears twice in one object"},
        {"{\"a\": 1, \"A\": 2, \"b\": {\"a\": 3}}", 31, NULL}, /* case differs; same key in another object */
        {" \n", 2, "c.json: empty file; expected a JSON object"},
        {"", 0, "c.json: empty file; expected a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *root = NULL;
        av_err err = {0};
        av_status s = av_json_parse_object(&root, cases[i].text, cases[i].len, NULL, "c.json", &err);
        if (cases[i].want ? s != AV_EUSAGE || !strstr(err.msg, cases[i].want) || root : s != AV_OK || !root)
            fail_msg("case %zu: status %d, '%s'", i, (int)s, err.msg);
        if (i == 8 && strstr(err.msg, "truncated")) fail_msg("case 8 is not an object begun: '%s'", err.msg);
        cJSON_Delete(root);
    }
}

/* Nesting past cJSON's limit (CJSON_NESTING_LIMIT, 1000) says so: it said "not valid JSON near byte 1000",
 * which reads as a typo there. Hand-worked: '{' then "a": then 1200 '[' : the object is open level 1, byte 5
 * is the first '[', so the 1000th open bracket is the '[' at byte 1003 and cJSON stops at the next, byte 1004.
 * 999 '[' closed again and a typo at depth 1000 are not called too deep. */
static void test_parse_object_names_nesting_past_the_limit(void **state) {
    (void)state;
    char text[4000];
    int n = snprintf(text, sizeof text, "{\"a\":");
    for (int i = 0; i < 1200; i++) text[n++] = '[';
    cJSON *root = NULL;
    av_err err = {0};
    assert_int_equal(av_json_parse_object(&root, text, (size_t)n, NULL, "c.json", &err), AV_EUSAGE);
    assert_null(root);
    assert_string_equal(err.msg, "c.json: arrays and objects nested more than 1000 deep at byte 1004 of 1205; the "
                                 "parser stops there (a model file nests a few levels)");
    /* 999 arrays inside the object, then a typo 'x' where a value belongs: 1000 open, not past the limit */
    n = snprintf(text, sizeof text, "{\"a\":");
    for (int i = 0; i < 999; i++) text[n++] = '[';
    text[n++] = 'x';
    err = (av_err){0};
    assert_int_equal(av_json_parse_object(&root, text, (size_t)n, NULL, "c.json", &err), AV_EUSAGE);
    if (!strstr(err.msg, "not valid JSON near byte 1004 of 1005")) fail_msg("typo at depth 1000: '%s'", err.msg);
    /* the same depth closed again parses */
    n = snprintf(text, sizeof text, "{\"a\":");
    for (int i = 0; i < 999; i++) text[n++] = '[';
    for (int i = 0; i < 999; i++) text[n++] = ']';
    text[n++] = '}';
    assert_int_equal(av_json_parse_object(&root, text, (size_t)n, NULL, "c.json", &err), AV_OK);
    cJSON_Delete(root);
}

/* av_json_falsy is Python's bool() of the value json.loads gives: by hand from the truth value testing rules, None,
 * False, zero of any numeric type and empty sequences and mappings are false, everything else true ("0", " ",
 * [0] and {"a": 0} too). */
static void test_falsy_is_pythons_truth(void **state) {
    (void)state;
    static const struct { const char *json; int falsy; } cases[] = {
        {"false", 1}, {"null", 1}, {"0", 1}, {"0.0", 1}, {"-0", 1}, {"\"\"", 1}, {"[]", 1}, {"{}", 1},
        {"true", 0}, {"1", 0}, {"-1", 0}, {"0.5", 0}, {"1e-300", 0}, {"\"0\"", 0}, {"\" \"", 0}, {"\"false\"", 0},
        {"[0]", 0}, {"{\"a\": 0}", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *j = cJSON_Parse(cases[i].json);
        assert_non_null(j);
        if (av_json_falsy(j) != cases[i].falsy) fail_msg("%s: av_json_falsy %d", cases[i].json, av_json_falsy(j));
        cJSON_Delete(j);
    }
    assert_int_equal(av_json_falsy(NULL), 0); /* an absent key: the caller decides */
}

/* The value as config.json spells it, cut at 40 bytes with "…" and never inside a UTF-8 character. */
static void test_shown_value_is_cut_at_a_character(void **state) {
    (void)state;
    static const struct { const char *json; const char *want; } cases[] = {
        {"\"relu\"", "\"relu\""},
        {"null", "null"},
        {"{\"a\": 1}", "{\"a\":1}"},
        /* cJSON reads 1e400 as infinity and would print it as null */
        {"1e400", "(a number past 1.797e308)"},
        /* 45 ASCII bytes printed: the first 40, then … */
        {"\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq\"", "\"abcdefghijklmnopqrstuvwxyzabcdefghijklm\xE2\x80\xA6"},
        /* '"' + 13 three-byte 中 = 40 bytes and the 14th starts at byte 40: the cut falls between characters */
        {"\"中中中中中中中中中中中中中中中\"", "\"中中中中中中中中中中中中中\xE2\x80\xA6"},
        /* '"a' + 12 中 = 38 bytes; the 13th 中 is bytes 38..40, so byte 40 is inside it: the cut backs up to 38 */
        {"\"a中中中中中中中中中中中中中中\"", "\"a中中中中中中中中中中中中\xE2\x80\xA6"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cJSON_Parse(cases[i].json);
        assert_non_null(j);
        char buf[64];
        av_json_shown(buf, sizeof buf, j);
        cJSON_Delete(j);
        if (strcmp(buf, cases[i].want) != 0) fail_msg("%s: '%s'; want '%s'", cases[i].json, buf, cases[i].want);
    }
    char buf[64];
    av_json_shown(buf, sizeof buf, NULL);
    assert_string_equal(buf, "(unreadable)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_numbers_are_read),
        cmocka_unit_test(test_absent_or_null_optional_key_is_left_alone),
        cmocka_unit_test(test_bad_values_name_key_value_and_what_is_allowed),
        cmocka_unit_test(test_past_1e9_is_named_against_the_callers_range),
        cmocka_unit_test(test_shown_value_is_cut_at_a_character),
        cmocka_unit_test(test_falsy_is_pythons_truth),
        cmocka_unit_test(test_nul_escape_in_a_string_is_refused),
        cmocka_unit_test(test_parse_object_refuses_what_follows),
        cmocka_unit_test(test_parse_object_names_nesting_past_the_limit),
    };
    return cmocka_run_group_tests_name("jsonval", tests, NULL, NULL);
}
