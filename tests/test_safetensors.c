/* test_safetensors.c - the safetensors reader and writer.
 *
 * Expected values: the format's spec (huggingface/safetensors README,
 * "Format") for the byte layout, written out by hand below; IEEE 754
 * binary16 and bfloat16 values worked by hand (1.0 = 0x3C00, 65504 = 0x7BFF,
 * the smallest subnormal 2^-24 = 0x0001, bfloat16 1.0 = 0x3F80). Bad files are
 * crafted in memory, one row of a table each. Tolerance 0: conversion is
 * exact for the values used.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "base/utf8.h"
#include "io/safetensors.h"

/* A file image: 8-byte length of hdr (padded with `pad` spaces), hdr, then
 * dlen data bytes 0, 1, 2, ... */
static unsigned char *craft(const char *hdr, size_t pad, size_t dlen, size_t *len) {
    size_t hl = strlen(hdr) + pad;
    *len = 8 + hl + dlen;
    unsigned char *b = malloc(*len + 1);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(b + 8, hdr, strlen(hdr));
    memset(b + 8 + strlen(hdr), ' ', pad);
    for (size_t i = 0; i < dlen; i++) b[8 + hl + i] = (unsigned char)i;
    return b;
}

static void test_parse_by_hand(void **state) {
    (void)state;
    /* a: F16 (2,) = [1.0, -2.0] at [0, 4); b: F32 (1, 1) = 0.5 at [4, 8) */
    const char *hdr = "{\"__metadata__\":{\"format\":\"pt\"},\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                      "\"b\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[4,8]}}";
    size_t len;
    unsigned char *buf = craft(hdr, 3, 8, &len);
    unsigned char *data = buf + len - 8;
    const unsigned char bytes[8] = {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x3F};
    memcpy(data, bytes, 8);
    av_safetensors st;
    av_err err = {{0}};
    if (av_safetensors_parse(&st, buf, len, "x.safetensors", &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.n, 2);
    const av_st_tensor *a = av_safetensors_find(&st, "a"), *b = av_safetensors_find(&st, "b");
    assert_non_null(a);
    assert_non_null(b);
    assert_null(av_safetensors_find(&st, "__metadata__"));
    assert_int_equal(a->dtype, AV_ST_F16);
    assert_int_equal(b->ndim, 2);
    const float *f;
    float *owned;
    assert_int_equal(av_safetensors_f32(&f, &owned, &st, a, &err), AV_OK);
    assert_non_null(owned);
    assert_true(f[0] == 1.0f && f[1] == -2.0f);
    free(owned);
    assert_int_equal(av_safetensors_f32(&f, &owned, &st, b, &err), AV_OK);
    assert_true(f[0] == 0.5f);
    free(owned);
    av_safetensors_close(&st);
    free(buf);
}

/* av_safetensors_equal_f32, the tied-lm_head check of both loaders: an F16 (2, 2) tensor
 * [[1, -2], [0.5, 0]] (0x3C00, 0xC000, 0x3800, 0x0000 by hand) equals those floats after conversion,
 * not ones that differ in one value or in sign of zero (bit for bit); a (4,) tensor of the same four
 * values, or the (2, 2) one asked as (1, 4), is another shape, so not equal. A BF16 tensor holding NaN is an error, not "differs". */
static void test_equal_f32_by_hand(void **state) {
    (void)state;
    const char *hdr = "{\"m\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
                      "\"v\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[16,24]},"
                      "\"n\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[8,16]}}";
    size_t len;
    unsigned char *buf = craft(hdr, 0, 24, &len);
    const unsigned char bytes[24] = {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0x00, 0x00,  /* m */
                                     0x80, 0x3F, 0xC0, 0x7F, 0x00, 0x00, 0x00, 0x00,  /* n: bf16 1, NaN, 0, 0 */
                                     0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0x00, 0x00}; /* v: m's values */
    memcpy(buf + len - 24, bytes, 24);
    av_safetensors st;
    av_err err = {{0}};
    if (av_safetensors_parse(&st, buf, len, "x.safetensors", &err)) fail_msg("%s", err.msg);
    const float want[4] = {1.0f, -2.0f, 0.5f, 0.0f}, off[4] = {1.0f, -2.0f, 0.5f, 1e-8f},
                negzero[4] = {1.0f, -2.0f, 0.5f, -0.0f};
    int eq = -1;
    const av_st_tensor *m = av_safetensors_find(&st, "m"), *v = av_safetensors_find(&st, "v"),
                       *n = av_safetensors_find(&st, "n");
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, m, want, 2, 2, &err), AV_OK);
    assert_int_equal(eq, 1);
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, m, off, 2, 2, &err), AV_OK);
    assert_int_equal(eq, 0);
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, m, negzero, 2, 2, &err), AV_OK);
    assert_int_equal(eq, 0);
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, m, want, 1, 4, &err), AV_OK);
    assert_int_equal(eq, 0);
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, v, want, 2, 2, &err), AV_OK);
    assert_int_equal(eq, 0);
    eq = -1;
    assert_int_equal(av_safetensors_equal_f32(&eq, &st, n, want, 2, 2, &err), AV_EUSAGE);
    assert_int_equal(eq, 0);
    assert_non_null(strstr(err.msg, "contains NaN at index 1"));
    av_safetensors_close(&st);
    free(buf);
}

static void test_half_conversions_by_hand(void **state) {
    (void)state;
    assert_true(av_f16_to_f32(0x3C00) == 1.0f);
    assert_true(av_f16_to_f32(0x7BFF) == 65504.0f);
    assert_true(av_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
    assert_true(av_f16_to_f32(0x8000) == 0.0f && signbit(av_f16_to_f32(0x8000)));
    assert_true(isinf(av_f16_to_f32(0x7C00)));
    assert_int_equal(av_f32_to_f16(1.0f), 0x3C00);
    assert_int_equal(av_f32_to_f16(-2.0f), 0xC000);
    assert_int_equal(av_f32_to_f16(65504.0f), 0x7BFF);
    assert_int_equal(av_f32_to_f16(65520.0f), 0x7C00);            /* rounds up past the largest: Inf */
    assert_int_equal(av_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);   /* half the smallest subnormal: tie to even 0 */
    assert_int_equal(av_f32_to_f16(ldexpf(3.0f, -25)), 0x0002);   /* 1.5 units: tie to even 2 */
    assert_int_equal(av_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3C00); /* tie between 1 and 1+2^-10: even */
    assert_int_equal(av_f32_to_bf16(1.0f), 0x3F80);
    assert_true(av_bf16_to_f32(0x3F80) == 1.0f);
    assert_int_equal(av_f32_to_bf16(1.0f + ldexpf(1.0f, -8)), 0x3F80); /* tie: even */
    assert_int_equal(av_f32_to_bf16(1.0f + ldexpf(3.0f, -8)), 0x3F82);
    /* every binary16 value survives f16 -> f32 -> f16 */
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint16_t x = (uint16_t)h;
        if ((x & 0x7C00) == 0x7C00 && (x & 0x3FF)) continue; /* NaN payloads */
        assert_int_equal(av_f32_to_f16(av_f16_to_f32(x)), x);
    }
}

/* f/m.safetensors with three tensors from a (6 floats) and s: layer.w F32
 * (2, 3), layer.h F16 (6), scalar BF16 (); returns its path. */
static const char *write_three(tu_fixture *f, const float *a, const float *s) {
    av_st_write_tensor t[3] = {
        {"layer.w", AV_ST_F32, 2, {2, 3}, a},
        {"layer.h", AV_ST_F16, 1, {6}, a},
        {"scalar", AV_ST_BF16, 0, {0}, s},
    };
    av_err err = {{0}};
    const char *path = tu_in(f, "m.safetensors");
    if (av_safetensors_write(path, t, 3, &err)) fail_msg("%s", err.msg);
    return path;
}

static void test_write_then_read(void **state) {
    tu_fixture *f = *state;
    float a[6] = {0.5f, -1.25f, 3.0f, 1e-3f, 65504.0f, -0.0f}, s = 7.0f;
    av_err err = {{0}};
    const char *path = write_three(f, a, &s);
    size_t len;
    char *raw = tu_slurp_file(path, &len);
    /* the header by hand: compact JSON, back-to-back offsets, padded to 8 */
    const char *want = "{\"layer.w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
                       "\"layer.h\":{\"dtype\":\"F16\",\"shape\":[6],\"data_offsets\":[24,36]},"
                       "\"scalar\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[36,38]}}";
    size_t hl = strlen(want) + (8 - strlen(want) % 8) % 8;
    assert_int_equal((unsigned char)raw[0] | (unsigned char)raw[1] << 8, hl);
    assert_memory_equal(raw + 8, want, strlen(want));
    assert_int_equal(len, 8 + hl + 38);
    free(raw);
    av_safetensors st;
    if (av_safetensors_open(&st, path, &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.mapped, 1);
    const float *v;
    float *owned;
    assert_int_equal(av_safetensors_f32(&v, &owned, &st, av_safetensors_find(&st, "layer.w"), &err), AV_OK);
    assert_null(owned); /* F32, aligned: read in place from the mapping */
    assert_memory_equal(v, a, sizeof a);
    assert_int_equal(av_safetensors_f32(&v, &owned, &st, av_safetensors_find(&st, "layer.h"), &err), AV_OK);
    assert_true(v[0] == 0.5f && v[2] == 3.0f && v[4] == 65504.0f && fabsf(v[3] - 1e-3f) < 1e-6f);
    free(owned);
    assert_int_equal(av_safetensors_f32(&v, &owned, &st, av_safetensors_find(&st, "scalar"), &err), AV_OK);
    assert_true(v[0] == 7.0f);
    free(owned);
    av_safetensors_close(&st);
}

static void test_bad_files(void **state) {
    (void)state;
    static const struct {
        const char *hdr; /* NULL: a file of data_len bytes only */
        size_t pad, data_len;
        const char *msg;
    } cases[] = {
        {NULL, 0, 5, "truncated: 5 bytes, fewer than the 8-byte header length"},
        {NULL, 0, 1, "truncated: 1 byte, fewer than the 8-byte header length"},
        {"{}", 0, 0, NULL}, /* empty but valid */
        {"[1]", 0, 0, "header: not a JSON object (it is an array)"},
        {"{\"a\":", 0, 0, "header: not valid JSON near byte 4 of 5; it ends before its closing '}' (truncated?)"},
        /* cJSON ends a name at \u0000: "a\u0000b" was read as the tensor "a" */
        {"{\"a\\u0000b\":{}}", 0, 0, "header: byte 3: a string holds \\u0000 (a NUL character)"},
        {"{} x", 0, 0, "header has bytes after its JSON object: 0x78 'x' at byte 3 of the header; only white space "
                       "may follow it (the format pads with spaces, 0x20)"},
        /* the reference library's test_whitespace_padded_header: "{}\r \t\n" loads, with no tensor */
        {"{}\r \t\n", 0, 0, NULL},
        {"{}\n\xC3\xA9", 0, 0, "header has bytes after its JSON object: 0xC3 at byte 3 of the header"}, /* é */
        {"{\"a\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0, 4, "unknown dtype \"F99\""},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 0, 4, "data_offsets [0, 4] hold 4 bytes; shape with 2 elements of F32 needs 8"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1]}}", 0, 4, "data_offsets [0, 1] hold 1 byte; shape with 1 element of F32 needs 4"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 0, 4, "data_offsets end 8 is past the end of the data (4 bytes; file truncated?)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 0, 1, "data_offsets end 8 is past the end of the data (1 byte; file truncated?)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 0, 8, "end before they begin"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0, 8, "overlap tensor"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},\"e\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,4]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 0, 16, "overlap tensor \"a\""},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0, 8, "appears twice"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 0, 4, "shape entry 0 is -1; allowed: a whole number 0..2^53"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 0, 4, "shape entry 0 is 1.5; allowed: a whole number 0..2^53"},
        /* whole numbers past 2^53 are named with their value, never "not a whole number" */
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,4]}}", 0, 4, "shape entry 0 is 4.6116860184273879e+18; allowed: a whole number 0..2^53"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 0, 4, "data_offsets [-4, 0]: BEGIN and END must be whole numbers 0..2^53"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}", 0, 4, "data_offsets [0, a string]: BEGIN and END must be whole numbers 0..2^53"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],\"data_offsets\":[0,4]}}", 0, 4, "overflows"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 0, 4, "needs \"dtype\" (string), \"shape\" and \"data_offsets\""},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 0, 4, "data_offsets must be [BEGIN, END]"},
        /* the tensors tile the data exactly, as the reference's Metadata::validate and
         * SafeTensors::deserialize require: no gap, nothing after the last tensor. The header
         * {"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} is 54 bytes, + 2 spaces = 56 */
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 2, 10,
         "m.safetensors: the file is 74 bytes where its header and tensors make 68 (8 + 56 header + 4 data): it "
         "holds 6 bytes after its last tensor (\"a\" ends at 4); is it damaged or was something appended?"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 2, 5, "it holds 1 byte after its last tensor"},
        {"{}", 6, 3, "m.safetensors: the file is 19 bytes where its header makes 16 (8 + 8) and it lists no tensor: it "
                     "holds 3 bytes after its header; is it damaged or was something appended?"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 0, 12,
         "tensor \"b\": data_offsets [8, 12] begin 4 bytes after tensor \"a\" [0, 4] ends; the format packs tensors back to back"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0, 8,
         "tensor \"a\": data_offsets [4, 8] begin at byte 4 of the data; the first tensor must begin at 0"},
        /* empty tensors sit at an offset where no other tensor is: at 0, between two, at the end */
        {"{\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,8]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"e\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[4,4]},"
         "\"y\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]}}", 0, 8, NULL},
        {"{\"a\":7}", 0, 0, "entry is not a JSON object"},
        {"{\"__metadata__\":3}", 0, 0, "\"__metadata__\" is not a JSON object"},
        /* the spec's __metadata__ is a text-to-text map: safetensors (Rust, HashMap<String, String>) refuses
         * other values; it was accepted */
        {"{\"__metadata__\":{\"format\":\"pt\",\"step\":3}}", 0, 0,
         "\"__metadata__\" key \"step\" is a number; its values must be strings (a text-to-text map)"},
        {"{\"__metadata__\":{\"a\":{\"b\":\"c\"}}}", 0, 0, "\"__metadata__\" key \"a\" is an object; its values must"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        unsigned char *buf = cases[i].hdr ? craft(cases[i].hdr, cases[i].pad, cases[i].data_len, &len)
                                          : calloc(1, (len = cases[i].data_len) + 1);
        av_safetensors st;
        av_err err = {{0}};
        av_status s = av_safetensors_parse(&st, buf, len, "m.safetensors", &err);
        if (!cases[i].msg) {
            assert_int_equal(s, AV_OK);
            av_safetensors_close(&st);
        } else {
            assert_int_equal(s, AV_EUSAGE);
            if (!strstr(err.msg, cases[i].msg)) fail_msg("case %zu: got '%s', want '%s'", i, err.msg, cases[i].msg);
            assert_int_equal(strncmp(err.msg, "m.safetensors", 13), 0);
        }
        free(buf);
    }
    /* header length lies: larger than the file, or absurdly small */
    unsigned char lie[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    av_safetensors st;
    av_err err = {{0}};
    assert_int_equal(av_safetensors_parse(&st, lie, sizeof lie, "m", &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "header length 65535 is larger than the file (16 bytes)"));
    lie[0] = 1, lie[1] = 0;
    assert_int_equal(av_safetensors_parse(&st, lie, sizeof lie, "m", &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "header length 1 is outside 2.."));
}

/* A value or name of the header, or the file's name, as a message quotes it: whole, at whole characters, its
 * controls and bidi shown. "%.16s" cut the dtype 浮点数三十二位精度 (27 bytes) inside its sixth character and
 * printed a "\n" of it raw; "%.64s" cut a __metadata__ key of 30 键 (90 bytes) inside its 22nd with no mark;
 * a tensor's name was printed as it is, so "a\nb" broke the line and "a\u202eb" reversed the rest of it; and
 * the file's name was cut to 255 bytes (inside a character, "/model.safetensors" lost). Expected texts by
 * hand: a JSON string value as JSON spells it (jsonval.h av_json_shown), a name's control as <U+000A> and
 * U+202E closed by U+202C PDF (utf8.h av_utf8_shown_name, UAX #9). */
static void test_header_text_is_shown_whole(void **state) {
    (void)state;
    char key[200] = "";
    for (int i = 0; i < 30; i++) strcat(key, "\xE9\x94\xAE"); /* 键 */
    char meta_hdr[400], meta_msg[400];
    snprintf(meta_hdr, sizeof meta_hdr, "{\"__metadata__\":{\"%s\\nx\":1}}", key);
    snprintf(meta_msg, sizeof meta_msg, "m.safetensors: \"__metadata__\" key \"%s<U+000A>x\" is a number; its values "
             "must be strings", key);
    const struct {
        const char *hdr, *msg;
    } cases[] = {
        {"{\"a\":{\"dtype\":\"浮点数三十二位精度\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         "m.safetensors: tensor \"a\": unknown dtype \"浮点数三十二位精度\" (known: F32, "},
        {"{\"a\":{\"dtype\":\"F\\n32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         "m.safetensors: tensor \"a\": unknown dtype \"F\\n32\" (known: F32, "},
        {"{\"a\\nb\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         "m.safetensors: tensor \"a<U+000A>b\": unknown dtype \"F99\""},
        {"{\"a\\u202eb\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "m.safetensors: tensor \"a\xE2\x80\xAE" "b\xE2\x80\xAC\": data_offsets end 8 is past the end of the data"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"b\\nc\":{\"dtype\":\"F32\",\"shape\":[1],"
         "\"data_offsets\":[0,4]}}", "tensor \"b<U+000A>c\": data_offsets [0, 4] overlap tensor \"a\" [0, 4]"},
        {meta_hdr, meta_msg},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        unsigned char *buf = craft(cases[i].hdr, 0, 4, &len);
        av_safetensors st;
        av_err err = {{0}};
        assert_int_equal(av_safetensors_parse(&st, buf, len, "m.safetensors", &err), AV_EUSAGE);
        if (!strstr(err.msg, cases[i].msg)) fail_msg("case %zu: got '%s', want '%s'", i, err.msg, cases[i].msg);
        assert_null(strchr(err.msg, '\n'));
        free(buf);
    }
    /* a name of 313 bytes: 'a', 100 深, ".safetensors"; its end is kept, and the cut is at whole characters */
    char name[400] = "a";
    for (int i = 0; i < 100; i++) strcat(name, "\xE6\xB7\xB1");
    strcat(name, ".safetensors");
    const char *hdrs[] = {"{\"a\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]}}", "{\"a\":"};
    const char *ends[] = {"\xE6\xB7\xB1.safetensors: tensor \"a\": unknown dtype \"F99\"",
                          "\xE6\xB7\xB1.safetensors: header: not valid JSON"};
    for (int i = 0; i < 2; i++) {
        size_t len;
        unsigned char *buf = craft(hdrs[i], 0, 4, &len);
        av_safetensors st;
        av_err err = {{0}}, u;
        assert_int_equal(av_safetensors_parse(&st, buf, len, name, &err), AV_EUSAGE);
        if (!strstr(err.msg, ends[i]) || strncmp(err.msg, "a\xE6\xB7\xB1", 4) || !strstr(err.msg, " \xE2\x80\xA6 "))
            fail_msg("long name %d: got '%s'", i, err.msg);
        assert_int_equal(av_utf8_check(err.msg, strlen(err.msg), &u), AV_OK);
        free(buf);
    }
}

static void test_convert_rejects_nonfinite_and_other_dtypes(void **state) {
    (void)state;
    const char *hdr = "{\"n\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                      "\"i\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[4,12]}}";
    size_t len;
    unsigned char *buf = craft(hdr, 0, 12, &len);
    unsigned char *data = buf + len - 12;
    data[0] = 0x00, data[1] = 0x3C, data[2] = 0x01, data[3] = 0x7E; /* 1.0, NaN */
    av_safetensors st;
    av_err err = {{0}};
    assert_int_equal(av_safetensors_parse(&st, buf, len, "m", &err), AV_OK);
    const float *f;
    float *owned;
    assert_int_equal(av_safetensors_f32(&f, &owned, &st, av_safetensors_find(&st, "n"), &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "tensor \"n\" contains NaN at index 1"));
    assert_null(owned);
    assert_int_equal(av_safetensors_f32(&f, &owned, &st, av_safetensors_find(&st, "i"), &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "tensor \"i\" has dtype I64; expected F32, F16 or BF16"));
    av_safetensors_close(&st);
    free(buf);
}

/* A header padded with NUL bytes, not spaces: the NUL and its offset (from 0, in the header) are
 * named. cJSON skips a NUL between tokens as white space: the third header passed, the first
 * two were "bytes after its JSON object", and one whose object lacks its '}' was "(truncated?)". */
static void test_nul_in_header(void **state) {
    (void)state;
    static const struct {
        const char *hdr;
        size_t hlen, data_len;
        const char *msg;
    } cases[] = {
        {"{}\0\0\0\0\0\0", 8, 0, "m.safetensors: header holds a NUL byte at offset 2 (of its 8 bytes), where the "
                                  "format pads with spaces (0x20) and JSON allows none; is the file damaged?"},
        /* the 54-byte header of test_bad_files, + 2 NULs */
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}\0\0", 56, 4,
         "header holds a NUL byte at offset 54 (of its 56 bytes)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}\0}", 55, 4,
         "header holds a NUL byte at offset 53 (of its 55 bytes)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}\0\0", 55, 4,
         "header holds a NUL byte at offset 53 (of its 55 bytes)"},
        {"{} \0    ", 8, 0, "header holds a NUL byte at offset 3 (of its 8 bytes)"},
        /* inside a string it is av_json_check_strings' to name */
        {"{\"a\0\":{}}", 9, 0, "header: byte 3: a string holds \\u0000 (a NUL character)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 8 + cases[i].hlen + cases[i].data_len;
        unsigned char *buf = calloc(1, len);
        buf[0] = (unsigned char)cases[i].hlen;
        memcpy(buf + 8, cases[i].hdr, cases[i].hlen);
        av_safetensors st;
        av_err err = {{0}};
        av_status s = av_safetensors_parse(&st, buf, len, "m.safetensors", &err);
        if (s != AV_EUSAGE || !strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: got %d '%s', want '%s'", i, s, s ? err.msg : "", cases[i].msg);
        if (!s) av_safetensors_close(&st);
        free(buf);
    }
}

/* A file of n tensors "t0" .. "t<n-1>", F32 (1,), listed last first in the header: t<k> at
 * [4k, 4k + 4], moved by shift bytes when k is `moved` or k >= from (-1: none); the data is
 * data_len bytes. */
static unsigned char *many(int n, int moved, long shift, int from, size_t data_len, size_t *len) {
    size_t cap = (size_t)n * 80 + 16, hl = 0;
    char *h = malloc(cap);
    h[hl++] = '{';
    for (int k = n - 1; k >= 0; k--) {
        size_t b = (size_t)((long)k * 4 + (k == moved || (from >= 0 && k >= from) ? shift : 0));
        hl += (size_t)snprintf(h + hl, cap - hl, "\"t%d\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}%s",
                               k, b, b + 4, k ? "," : "}");
    }
    h[hl] = 0;
    unsigned char *buf = craft(h, 0, data_len, len);
    free(h);
    return buf;
}

/* The offsets are checked sorted, O(n log n): every pair was compared for repeated names, so
 * 200,000 empty tensors took more than 2 minutes (no time is asserted: the test is quick only
 * when the check is). The first tensor out of place is named with its neighbour, worked by hand:
 * t31415 is [125660, 125664] (4 x 31415); t31416 moved back 2 bytes is [125662, 125666]. */
static void test_many_tensors(void **state) {
    (void)state;
    enum { N_EMPTY = 200000, N = 50000 };
    size_t cap = (size_t)N_EMPTY * 64 + 16, hl = 0, len;
    char *h = malloc(cap);
    h[hl++] = '{';
    for (int k = 0; k < N_EMPTY; k++)
        hl += (size_t)snprintf(h + hl, cap - hl, "\"e%d\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}%s",
                               k, k + 1 < N_EMPTY ? "," : "}");
    unsigned char *buf = craft(h, 0, 0, &len);
    free(h);
    av_safetensors st;
    av_err err = {{0}};
    if (av_safetensors_parse(&st, buf, len, "m.safetensors", &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.n, N_EMPTY);
    av_safetensors_close(&st);
    free(buf);

    buf = many(N, -1, 0, -1, 4 * N, &len); /* back to back: valid */
    if (av_safetensors_parse(&st, buf, len, "m.safetensors", &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.n, N);
    assert_int_equal(av_safetensors_find(&st, "t49999")->begin, 199996);
    av_safetensors_close(&st);
    free(buf);

    buf = many(N, 31416, -2, -1, 4 * N, &len);
    assert_int_equal(av_safetensors_parse(&st, buf, len, "m.safetensors", &err), AV_EUSAGE);
    assert_string_equal(err.msg, "m.safetensors: tensor \"t31416\": data_offsets [125662, 125666] overlap tensor "
                                 "\"t31415\" [125660, 125664]");
    free(buf);

    buf = many(N, -1, 4, 20000, 4 * N + 4, &len); /* t20000 .. t49999 moved 4 bytes on: a gap before t20000 */
    assert_int_equal(av_safetensors_parse(&st, buf, len, "m.safetensors", &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "m.safetensors: tensor \"t20000\": data_offsets [80004, 80008] begin 4 bytes "
                                    "after tensor \"t19999\" [79996, 80000] ends"));
    free(buf);
}

/* A file with bytes after its last tensor is refused by av_safetensors_open from its header and
 * length alone (its data is never mapped: `truncate -s 10G` on a 0.5 MB model took 5.5 GB). The
 * file below: 8 + 184 header + 38 data = 230 bytes (test_write_then_read's header: 63 + 61 + 60
 * bytes for its three entries, a multiple of 8 so no padding), grown to 1 MiB. */
static void test_open_refuses_bytes_after_the_last_tensor(void **state) {
    tu_fixture *f = *state;
    float a[6] = {0}, s = 0;
    av_err err = {{0}};
    const char *path = write_three(f, a, &s);
    av_safetensors st;
    if (av_safetensors_open(&st, path, &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.len, 230);
    av_safetensors_close(&st);
    assert_int_equal(truncate(path, 1 << 20), 0);
    assert_int_equal(av_safetensors_open(&st, path, &err), AV_EUSAGE);
    char want[4400];
    snprintf(want, sizeof want, "%s: the file is 1048576 bytes where its header and tensors make 230 (8 + 184 header "
             "+ 38 data): it holds 1048346 bytes after its last tensor (\"scalar\" ends at 38); is it damaged or was "
             "something appended?", tu_sh_word(path));
    assert_string_equal(err.msg, want);
    assert_null(st.tensors);
}

static void test_open_errors(void **state) {
    tu_fixture *f = *state;
    av_safetensors st;
    av_err err = {{0}};
    assert_int_equal(av_safetensors_open(&st, tu_in(f, "missing.safetensors"), &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_int_equal(av_safetensors_open(&st, f->dir, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "not a regular file"));
    av_st_write_tensor bad = {"x", AV_ST_I64, 1, {1}, NULL};
    assert_int_equal(av_safetensors_write(tu_in(f, "w"), &bad, 1, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "dtype I64; allowed: F32, F16, BF16"));
    assert_false(file_exists(tu_in(f, "w")));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_by_hand),
        cmocka_unit_test(test_half_conversions_by_hand),
        cmocka_unit_test(test_equal_f32_by_hand),
        cmocka_unit_test_setup_teardown(test_write_then_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_convert_rejects_nonfinite_and_other_dtypes),
        cmocka_unit_test(test_nul_in_header),
        cmocka_unit_test(test_many_tensors),
        cmocka_unit_test(test_header_text_is_shown_whole),
        cmocka_unit_test_setup_teardown(test_open_refuses_bytes_after_the_last_tensor, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_open_errors, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
