/* test_npy.c - .npy writer and strict reader.
 *
 * Fixtures in tests/data/npy/ were written by numpy 1.24 with
 * tests/gen_npy_fixtures.py; the arrays there are defined by formulas that
 * grid() below repeats, so no Python is needed at run time. Other malformed
 * inputs are crafted in memory with craft().
 *
 * Float tolerance: 0. .npy is a lossless format, so round trips and float32
 * reads are compared bit for bit (float64 fixtures hold values exact in
 * float32).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "io/fileio.h"
#include "io/npy.h"

/* ------------------------------------------------------------------------- */
/* helpers */

typedef tu_fixture fixture;
#define setup tu_setup_tmpdir
#define teardown tu_teardown_tmpdir
#define in_dir tu_in

/* value at flat index k is k * 0.25 - 3, as in gen_npy_fixtures.py */
static float *grid(size_t n) {
    float *g = malloc(n * sizeof *g + 1);
    for (size_t k = 0; k < n; k++) g[k] = (float)((double)k * 0.25 - 3.0);
    return g;
}

static unsigned char *slurp(const char *path, size_t *len) {
    char *buf = NULL;
    av_err err = {{0}};
    av_status s = av_read_file(path, 1u << 20, &buf, len, &err);
    if (s) fail_msg("%s", err.msg);
    return (unsigned char *)buf;
}

static const char *fixture_path(const char *name) {
    static char buf[4][4096];
    static int slot;
    char *p = buf[slot++ % 4];
    snprintf(p, 4096, "%s", src_path("tests/data/npy/"));
    strncat(p, name, 4096 - strlen(p) - 1);
    return p;
}

/* Build a .npy image in memory: magic, version major.0, length field (2 bytes
 * for 1.x, 4 for 2.x/3.x), the dict text verbatim (no padding), then data. */
static unsigned char *craft(const char *dict, int major, const void *data, size_t dlen, size_t *len) {
    size_t hl = strlen(dict), lb = major == 1 ? 2 : 4;
    *len = 8 + lb + hl + dlen;
    unsigned char *b = malloc(*len + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t i = 0; i < lb; i++) b[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(b + 8 + lb, dict, hl);
    if (dlen) memcpy(b + 8 + lb + hl, data, dlen);
    return b;
}

/* Parse buf and expect failure with status code and msg containing want; also
 * check the message starts with the name and the output is left empty. */
static void expect_parse_error(const unsigned char *buf, size_t len, const char *name, av_status code,
                               const char *want) {
    av_npy a;
    av_err err = {{0}};
    av_status s = av_npy_parse(&a, buf, len, name, &err);
    if (s != code || !strstr(err.msg, want) || strncmp(err.msg, name, strlen(name)) != 0)
        fail_msg("status %d, message \"%s\"; wanted status %d and \"%s\"", s, err.msg, code, want);
    assert_null(a.data);
    assert_null(a.bytes);
    av_npy_free(&a);
}

static void expect_dict_error(const char *dict, const void *data, size_t dlen, const char *want) {
    size_t len;
    unsigned char *b = craft(dict, 1, data, dlen, &len);
    expect_parse_error(b, len, "x.npy", AV_EUSAGE, want);
    free(b);
}

static void expect_fixture_error(const char *file, const char *want) {
    size_t len;
    unsigned char *b = slurp(fixture_path(file), &len);
    expect_parse_error(b, len, file, AV_EUSAGE, want);
    free(b);
    /* av_npy_read names the path the user gave */
    av_npy a;
    av_err err = {{0}};
    const char *p = fixture_path(file);
    assert_int_equal(av_npy_read(&a, p, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(strncmp(err.msg, p, strlen(p)), 0);
}

/* Write data with av_npy_write, read it back and compare bit for bit. */
static void round_trip(const fixture *f, int ndim, const size_t *shape) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    float *g = grid(n);
    av_err err = {{0}};
    const char *p = in_dir(f, "rt.npy");
    if (av_npy_write(p, g, ndim, shape, &err)) fail_msg("%s", err.msg);
    av_npy a;
    if (av_npy_read(&a, p, &err)) fail_msg("%s", err.msg);
    assert_int_equal(a.ndim, ndim);
    for (int i = 0; i < ndim; i++) assert_int_equal(a.shape[i], shape[i]);
    assert_string_equal(a.descr, "<f4");
    assert_non_null(a.data);
    assert_null(a.bytes);
    if (n) assert_memory_equal(a.data, g, n * sizeof(float));
    assert_int_equal(av_npy_expect_shape(&a, "rt.npy", ndim, shape, &err), AV_OK);
    av_npy_free(&a);
    free(g);
}

/* ------------------------------------------------------------------------- */
/* writer */

static void test_round_trip_1d(void **state) {
    size_t s[] = {5};
    round_trip(*state, 1, s);
}

static void test_round_trip_2d(void **state) {
    size_t s[] = {4, 8};
    round_trip(*state, 2, s);
}

static void test_round_trip_3d(void **state) {
    size_t s[] = {2, 3, 4};
    round_trip(*state, 3, s);
}

static void test_round_trip_4d_0d_and_empty(void **state) {
    size_t s4[] = {2, 1, 3, 2}, s0[] = {0}, se[] = {0, 8};
    round_trip(*state, 4, s4);
    round_trip(*state, 0, s0);
    round_trip(*state, 2, se);
}

static void test_round_trip_bool_mask(void **state) {
    fixture *f = *state;
    unsigned char m[12] = {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 7}; /* 7 is written as 1 */
    size_t s[] = {3, 4};
    av_err err = {{0}};
    const char *p = in_dir(f, "mask.npy");
    if (av_npy_write_bool(p, m, 2, s, &err)) fail_msg("%s", err.msg);
    av_npy a;
    if (av_npy_read(&a, p, &err)) fail_msg("%s", err.msg);
    assert_string_equal(a.descr, "|b1");
    assert_null(a.data);
    assert_non_null(a.bytes);
    for (int i = 0; i < 12; i++) assert_int_equal(a.bytes[i], m[i] ? 1 : 0);
    /* a bool array is not a float array */
    assert_int_equal(av_npy_expect_shape(&a, "mask.npy", 2, s, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "mask.npy has dtype '|b1'; expected float32"));
    av_npy_free(&a);
}

/* The bytes attnviz writes equal the bytes np.save writes for the same array. */
static void compare_with_numpy(const fixture *f, const char *file, int ndim, const size_t *shape) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    float *g = grid(n);
    av_err err = {{0}};
    const char *p = in_dir(f, file);
    if (av_npy_write(p, g, ndim, shape, &err)) fail_msg("%s", err.msg);
    size_t la, lb;
    unsigned char *a = slurp(p, &la), *b = slurp(fixture_path(file), &lb);
    if (la != lb || memcmp(a, b, la) != 0) fail_msg("%s: %zu bytes written differ from numpy's %zu", file, la, lb);
    free(a);
    free(b);
    free(g);
}

static void test_write_matches_numpy_bytes(void **state) {
    fixture *f = *state;
    size_t s2[] = {4, 8}, s3[] = {2, 3, 4}, s4[] = {2, 1, 3, 2}, se[] = {0, 8};
    compare_with_numpy(f, "f4_2d.npy", 2, s2);
    compare_with_numpy(f, "f4_3d.npy", 3, s3);
    compare_with_numpy(f, "f4_4d.npy", 4, s4);
    compare_with_numpy(f, "f4_empty.npy", 2, se);

    /* 1-D "(5,)" and 0-d "()" with values that are not on the grid */
    av_err err = {{0}};
    float v1[] = {-1.5f, 0.0f, 0.1f, 3.25f, 1e-3f}, v0[] = {1.5f};
    size_t s1[] = {5};
    const char *files[] = {"f4_1d.npy", "f4_0d.npy"};
    for (int k = 0; k < 2; k++) {
        const char *p = in_dir(f, files[k]);
        if (av_npy_write(p, k ? v0 : v1, k ? 0 : 1, s1, &err)) fail_msg("%s", err.msg);
        size_t la, lb;
        unsigned char *a = slurp(p, &la), *b = slurp(fixture_path(files[k]), &lb);
        if (la != lb || memcmp(a, b, la) != 0) fail_msg("%s differs from numpy's", files[k]);
        free(a);
        free(b);
    }

    unsigned char m[12];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) m[r * 4 + c] = c > r; /* np.triu(ones, k=1) */
    size_t sm[] = {3, 4};
    const char *p = in_dir(f, "b1_2d.npy");
    if (av_npy_write_bool(p, m, 2, sm, &err)) fail_msg("%s", err.msg);
    size_t la, lb;
    unsigned char *a = slurp(p, &la), *b = slurp(fixture_path("b1_2d.npy"), &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

/* int32 (token ids): the exact bytes numpy 1.24 writes for
 * np.save(f, np.array([464, -2, 70000], dtype=np.int32)). */
static void test_write_i32_matches_numpy_bytes(void **state) {
    fixture *f = *state;
    const int32_t ids[3] = {464, -2, 70000};
    size_t shape[1] = {3}, len = 0;
    av_err err = {{0}};
    assert_int_equal(av_npy_write_i32(in_dir(f, "ids.npy"), ids, 1, shape, &err), AV_OK);
    unsigned char *got = slurp(in_dir(f, "ids.npy"), &len);
    assert_int_equal(len, 140);
    const char *dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
    assert_memory_equal(got, "\x93NUMPY\x01\x00\x76\x00", 10);
    assert_memory_equal(got + 10, dict, strlen(dict));
    assert_int_equal(got[127], '\n');
    const unsigned char data[12] = {0xd0, 0x01, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x70, 0x11, 0x01, 0x00};
    assert_memory_equal(got + 128, data, 12);
    free(got);
}

static void test_write_layout_is_format_1_0_little_endian(void **state) {
    fixture *f = *state;
    float v[] = {1.0f, -2.0f};
    size_t s[] = {2};
    av_err err = {{0}};
    const char *p = in_dir(f, "le.npy");
    if (av_npy_write(p, v, 1, s, &err)) fail_msg("%s", err.msg);
    size_t len;
    unsigned char *b = slurp(p, &len);
    assert_memory_equal(b, "\x93NUMPY\x01\x00", 8);
    size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
    assert_int_equal((10 + hlen) % 64, 0);
    assert_int_equal(b[10 + hlen - 1], '\n');
    assert_int_equal(len, 10 + hlen + 8);
    assert_non_null(strstr((char *)b + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"));
    assert_memory_equal(b + 10 + hlen, "\x00\x00\x80\x3f\x00\x00\x00\xc0", 8); /* 1.0f, -2.0f */
    free(b);
    /* nothing but the file itself in the folder: no temporaries */
    assert_int_equal(count_entries(f->dir), 1);
}

static void test_write_into_missing_folder_fails_and_old_file_survives(void **state) {
    fixture *f = *state;
    float v[] = {1, 2, 3};
    size_t s[] = {3};
    av_err err = {{0}};
    const char *p = in_dir(f, "nope/W_Q.npy");
    assert_int_equal(av_npy_write(p, v, 1, s, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "does not exist"));

    /* a file that exists is replaced only by a complete new one */
    const char *q = in_dir(f, "keep.npy");
    assert_int_equal(av_npy_write(q, v, 1, s, &err), AV_OK);
    size_t bad[] = {SIZE_MAX, 2};
    assert_int_equal(av_npy_write(q, v, 2, bad, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "too large"));
    av_npy a;
    assert_int_equal(av_npy_read(&a, q, &err), AV_OK);
    assert_int_equal(a.shape[0], 3);
    av_npy_free(&a);
    assert_int_equal(count_entries(f->dir), 1);
}

/* ------------------------------------------------------------------------- */
/* reading numpy's files */

static void read_fixture(av_npy *a, const char *file) {
    av_err err = {{0}};
    if (av_npy_read(a, fixture_path(file), &err)) fail_msg("%s", err.msg);
}

/* file (a fixture) read: its shape must be ndim axes of shape[0..ndim) and its data grid(n) in C order, n the
 * product; the message names the file. */
static void expect_grid(const char *file, int ndim, const size_t shape[4]) {
    av_npy a;
    read_fixture(&a, file);
    assert_int_equal(a.ndim, ndim);
    size_t n = 1;
    for (int i = 0; i < a.ndim; i++) {
        assert_int_equal(a.shape[i], shape[i]);
        n *= a.shape[i];
    }
    float *g = grid(n);
    if (memcmp(a.data, g, n * sizeof(float)) != 0) fail_msg("%s is not grid(%zu) in C order", file, n);
    free(g);
    av_npy_free(&a);
}

static void test_read_numpy_float32(void **state) {
    (void)state;
    const char *files[] = {"f4_2d.npy", "f4_3d.npy", "f4_4d.npy"};
    size_t shapes[3][4] = {{4, 8}, {2, 3, 4}, {2, 1, 3, 2}};
    int ndims[] = {2, 3, 4};
    for (int k = 0; k < 3; k++) expect_grid(files[k], ndims[k], shapes[k]);
}

static void test_read_numpy_1d_0d_and_empty(void **state) {
    (void)state;
    av_npy a;
    read_fixture(&a, "f4_1d.npy");
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 5);
    float v1[] = {-1.5f, 0.0f, 0.1f, 3.25f, 1e-3f};
    assert_memory_equal(a.data, v1, sizeof v1);
    av_err err = {{0}};
    size_t want[] = {5};
    assert_int_equal(av_npy_expect_shape(&a, "b.npy", 1, want, &err), AV_OK);
    av_npy_free(&a);

    read_fixture(&a, "f4_0d.npy");
    assert_int_equal(a.ndim, 0);
    assert_true(a.data[0] == 1.5f);
    av_npy_free(&a);

    read_fixture(&a, "f4_empty.npy");
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 0);
    assert_int_equal(a.shape[1], 8);
    assert_non_null(a.data); /* float arrays always have data, even when empty */
    av_npy_free(&a);
}

static void test_read_numpy_float64_converts_to_float32(void **state) {
    (void)state;
    av_npy a;
    read_fixture(&a, "f8_2d.npy");
    assert_string_equal(a.descr, "<f8");
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 3);
    assert_int_equal(a.shape[1], 4);
    float *g = grid(12);
    assert_memory_equal(a.data, g, 12 * sizeof(float));
    free(g);
    av_npy_free(&a);
}

static void test_read_numpy_bool_and_uint8(void **state) {
    (void)state;
    av_npy a;
    read_fixture(&a, "b1_2d.npy");
    assert_string_equal(a.descr, "|b1");
    assert_null(a.data);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) assert_int_equal(a.bytes[r * 4 + c], c > r);
    av_npy_free(&a);

    read_fixture(&a, "u1_1d.npy");
    assert_string_equal(a.descr, "|u1");
    unsigned char want[] = {0, 1, 2, 254, 255};
    assert_memory_equal(a.bytes, want, 5);
    av_npy_free(&a);
}

static void test_read_numpy_version_2_and_3_headers(void **state) {
    (void)state;
    const char *files[] = {"f4_v2.npy", "f4_v3.npy"};
    for (int k = 0; k < 2; k++) {
        av_npy a;
        read_fixture(&a, files[k]);
        assert_int_equal(a.ndim, 2);
        assert_int_equal(a.shape[0], 2);
        assert_int_equal(a.shape[1], 3);
        float *g = grid(6);
        assert_memory_equal(a.data, g, 6 * sizeof(float));
        free(g);
        av_npy_free(&a);
    }
}

/* numpy's spacing variations and Python literal spellings that are valid */
static void test_header_variations_accepted(void **state) {
    (void)state;
    const char *dicts[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
        "{\"shape\": (2, 3), \"descr\": \"<f4\", \"fortran_order\": False}",
        "{'fortran_order':False,'shape':(2,3),'descr':'<f4',}",
        "  {  'descr' : '<f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }   \n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n",
        "{'descr':'<f4','fortran_order':False,'shape':(2,3)}\t\r\n",
    };
    float *g = grid(6);
    for (size_t k = 0; k < sizeof dicts / sizeof *dicts; k++) {
        size_t len;
        unsigned char *b = craft(dicts[k], 1, g, 24, &len);
        av_npy a;
        av_err err = {{0}};
        if (av_npy_parse(&a, b, len, "v.npy", &err)) fail_msg("dict %zu: %s", k, err.msg);
        assert_int_equal(a.ndim, 2);
        assert_int_equal(a.shape[1], 3);
        assert_memory_equal(a.data, g, 24);
        av_npy_free(&a);
        free(b);
    }
    /* "()" is 0-d, "(5,)" is 1-d */
    size_t len;
    unsigned char *b = craft("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 1, g, 4, &len);
    av_npy a;
    av_err err = {{0}};
    assert_int_equal(av_npy_parse(&a, b, len, "v.npy", &err), AV_OK);
    assert_int_equal(a.ndim, 0);
    av_npy_free(&a);
    free(b);
    b = craft("{'descr': '<f4', 'fortran_order': False, 'shape': (5,)}", 3, g, 20, &len);
    assert_int_equal(av_npy_parse(&a, b, len, "v.npy", &err), AV_OK);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 5);
    av_npy_free(&a);
    free(b);
    free(g);
}

/* ------------------------------------------------------------------------- */
/* rejected files, each with its message */

static void test_bad_magic(void **state) {
    (void)state;
    expect_parse_error((const unsigned char *)"\x93NUMPZ\x01\x00\x00\x00", 10, "W_Q.npy", AV_EUSAGE,
                       "W_Q.npy: not a .npy file (bad magic");
    expect_parse_error((const unsigned char *)"PK\x03\x04", 4, "W_Q.npy", AV_EUSAGE, "bad magic");
    /* an empty file and the magic's start alone are named so, not "bad magic" (an option-combination pass:
     * `: > m.npy; attnviz --attn-mask m.npy ...`) */
    expect_parse_error((const unsigned char *)"", 0, "W_Q.npy", AV_EUSAGE, "W_Q.npy: empty (0 bytes); a .npy file "
                       "starts with \\x93NUMPY");
    expect_parse_error(NULL, 0, "W_Q.npy", AV_EUSAGE, "W_Q.npy: empty (0 bytes)");
    expect_parse_error((const unsigned char *)"\x93NUM", 4, "W_Q.npy", AV_EUSAGE, "W_Q.npy: truncated (4 bytes, inside "
                       "the \\x93NUMPY magic)");
    expect_parse_error((const unsigned char *)"\x93NUX", 4, "W_Q.npy", AV_EUSAGE, "bad magic");
}

static void test_truncated_header(void **state) {
    (void)state;
    expect_parse_error((const unsigned char *)"\x93NUMPY\x01", 7, "a.npy", AV_EUSAGE, "a.npy: truncated header");
    expect_parse_error((const unsigned char *)"\x93NUMPY\x01\x00\x40", 9, "a.npy", AV_EUSAGE, "truncated header");
    expect_parse_error((const unsigned char *)"\x93NUMPY\x02\x00\x40\x00\x00", 11, "a.npy", AV_EUSAGE,
                       "truncated header");
    /* every prefix of a valid file fails cleanly (no crash, message names it) */
    size_t len;
    unsigned char *b = slurp(fixture_path("f4_2d.npy"), &len);
    for (size_t n = 0; n < len; n++) {
        unsigned char *copy = malloc(n + 1); /* exact size, so ASan sees overreads */
        memcpy(copy, b, n);
        av_npy a;
        av_err err = {{0}};
        assert_int_equal(av_npy_parse(&a, copy, n, "f4_2d.npy", &err), AV_EUSAGE);
        assert_int_equal(strncmp(err.msg, "f4_2d.npy", 9), 0);
        free(copy);
    }
    free(b);
}

static void test_header_length_past_eof(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = craft("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 1, "\0\0\0\0", 4, &len);
    b[8] = 0xff; /* hlen 0x00ff = 255 > the bytes that follow */
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "header length 255 points past the end of the file");
    free(b);
    /* version 2.0: 4-byte length, little-endian */
    b = craft("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 2, "\0\0\0\0", 4, &len);
    memcpy(b + 8, "\x00\x00\x01\x00", 4); /* 65536: allowed size, but past the end */
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "header length 65536 points past the end of the file (71 bytes)");
    memcpy(b + 8, "\x01\x00\x01\x00", 4); /* 65537 */
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "header length 65537 is larger than the 65536-byte limit");
    memcpy(b + 8, "\xff\xff\xff\xff", 4);
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "header length 4294967295 is larger than the 65536-byte limit");
    free(b);
}

static void test_unsupported_version(void **state) {
    (void)state;
    size_t len;
    unsigned char *b = craft("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 1, "\0\0\0\0", 4, &len);
    b[7] = 1;
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "version 1.1 is not supported");
    b[6] = 4;
    b[7] = 0;
    expect_parse_error(b, len, "a.npy", AV_EUSAGE, "version 4.0 is not supported");
    free(b);
}

static void test_truncated_data(void **state) {
    (void)state;
    float *g = grid(32);
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), }", g, 100,
                      "x.npy: truncated: header says shape (4, 8) = 128 bytes of data, file has 100");
    free(g);
}

static void test_trailing_bytes(void **state) {
    (void)state;
    float *g = grid(33);
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), }", g, 132,
                      "x.npy: 4 trailing bytes: header says shape (4, 8) = 128 bytes of data, file has 132");
    free(g);
}

/* A header claiming far more data than the file has is rejected before any
 * allocation of that size. */
static void test_lying_header_shape_bigger_than_data(void **state) {
    (void)state;
    float *g = grid(32);
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (16777216, 16777216), }", g, 128,
                      "truncated: header says shape (16777216, 16777216) = 1125899906842624 bytes of data, file has 128");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (8, 8), }", g, 128,
                      "header says shape (8, 8) = 512 bytes of data, file has 128");
    free(g);
}

static void test_huge_dims_overflow(void **state) {
    (void)state;
    expect_dict_error(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (16777216, 16777216, 16777216, 16777216), }", NULL, 0,
        "shape (16777216, 16777216, 16777216, 16777216) is too large (its size overflows)");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999999,), }", NULL,
                      0, "shape dimension 99999999999999999999999999 is larger than the 16777216 limit");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (16777217,), }", NULL, 0,
                      "larger than the 16777216 limit");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }", NULL, 0,
                      "more than 4 dimensions");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 8), }", NULL, 0,
                      "negative dimension");
}

static void test_dtype_i8_rejected(void **state) {
    (void)state;
    expect_fixture_error("i8_2d.npy", "dtype '<i8' is not supported (this reader takes float32 '<f4'");
    expect_dict_error("{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", "12345678", 8,
                      "x.npy: dtype '>i8' is not supported (this reader takes float32 '<f4'");
    expect_dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "1234", 4,
                      "structured dtypes are not supported");
}

static void test_dtype_big_endian_f4_rejected(void **state) {
    (void)state;
    expect_fixture_error("f4_bigendian.npy", "dtype '>f4' is not supported (this reader takes float32 '<f4'");
    /* and how to save it so: numpy keeps a big-endian array's byte order (a learner's pass) */
    expect_fixture_error("f4_bigendian.npy", "; it is big-endian: save it little-endian, np.save(path, "
                                             "a.astype('<f4'))");
}

/* A float16 array (torch's .half(), saved as numpy has it) and the integer arrays of np.array of whole numbers
 * were refused with only "dtype '<f2' is not supported (this reader takes ...)" (a maintainer's list of known
 * faults): each now says how to save it, as numpy spells the type (NEP 1: 'f2' is float16, 'i8' int64, 'u2'
 * uint16, '|i1' int8), and a big-endian one as '<f4'. Complex, string and object arrays get no advice: float32
 * does not hold them. The messages are written by hand. */
static void test_dtype_half_and_integers_say_how_to_save(void **state) {
    (void)state;
    static const char *const rows[][2] = {
        {"<f2", "; it is float16: save it as float32, np.save(path, a.astype(np.float32))"},
        {"<i8", "; it is int64: save it as float32, np.save(path, a.astype(np.float32))"},
        {"<i4", "; it is int32: save it as float32, np.save(path, a.astype(np.float32))"},
        {"|i1", "; it is int8: save it as float32, np.save(path, a.astype(np.float32))"},
        {"<u2", "; it is uint16: save it as float32, np.save(path, a.astype(np.float32))"},
        {"<f16", "; it is float128: save it as float32, np.save(path, a.astype(np.float32))"},
        {">f2", "; it is big-endian float16: save it as little-endian float32, np.save(path, a.astype('<f4'))"},
        {">i8", "; it is big-endian int64: save it as little-endian float32, np.save(path, a.astype('<f4'))"},
        {"<c8", ""},
        {"<U3", ""},
        {"|O", ""},
        {"<i3", ""},
    };
    const char *list = " is not supported (this reader takes float32 '<f4', float64 '<f8', bool '|b1', uint8 '|u1')";
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char dict[128], want[512];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (1,), }", rows[r][0]);
        snprintf(want, sizeof want, "x.npy: dtype '%s'%s%s", rows[r][0], list, rows[r][1]);
        size_t len;
        unsigned char *b = craft(dict, 1, "1234567812345678", 16, &len);
        av_npy a;
        av_err err = {{0}};
        assert_int_equal(av_npy_parse(&a, b, len, "x.npy", &err), AV_EUSAGE);
        assert_string_equal(err.msg, want); /* the whole message: no advice after the list where none fits */
        av_npy_free(&a);
        free(b);
    }
    expect_fixture_error("i8_2d.npy", "dtype '<i8' is not supported (this reader takes float32 '<f4', float64 "
                                      "'<f8', bool '|b1', uint8 '|u1'); it is int64: save it as float32, "
                                      "np.save(path, a.astype(np.float32))");
}

/* 'fortran_order': True (np.save of w.T, or np.asfortranarray) was refused with "fortran_order True is not
 * supported"; np.load reads it as the same logical array, and so does av_npy_read: C order, every dtype and rank.
 * The files were written by numpy from the arrays of the C-order fixtures (gen_npy_fixtures.py). */
static void test_read_numpy_fortran_order(void **state) {
    (void)state;
    const char *files[] = {"fortran.npy", "f4_2d_fortran.npy", "f4_3d_fortran.npy", "f4_4d_fortran.npy",
                           "f8_2d_fortran.npy"};
    size_t shapes[5][4] = {{2, 3}, {4, 8}, {2, 3, 4}, {2, 1, 3, 2}, {3, 4}};
    int ndims[] = {2, 2, 3, 4, 2};
    for (int k = 0; k < 5; k++) expect_grid(files[k], ndims[k], shapes[k]);
    av_npy a;
    read_fixture(&a, "b1_2d_fortran.npy"); /* np.triu(ones((3, 4)), k=1), as b1_2d.npy */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) assert_int_equal(a.bytes[r * 4 + c], c > r);
    av_npy_free(&a);
    read_fixture(&a, "u1_2d_fortran.npy"); /* arange(6).reshape(2, 3) * 50 */
    unsigned char want[] = {0, 50, 100, 150, 200, 250};
    assert_memory_equal(a.bytes, want, 6);
    av_npy_free(&a);
    /* by hand: shape (2, 3), data column by column 1 4 2 5 3 6 is [[1, 2, 3], [4, 5, 6]]; 1-D is as C order */
    float col[] = {1, 4, 2, 5, 3, 6}, rows[] = {1, 2, 3, 4, 5, 6};
    size_t len;
    unsigned char *b = craft("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 1, col, sizeof col, &len);
    av_err err = {{0}};
    assert_int_equal(av_npy_parse(&a, b, len, "x.npy", &err), AV_OK);
    assert_memory_equal(a.data, rows, sizeof rows);
    av_npy_free(&a);
    free(b);
    b = craft("{'descr': '<f4', 'fortran_order': True, 'shape': (6,), }", 1, rows, sizeof rows, &len);
    assert_int_equal(av_npy_parse(&a, b, len, "x.npy", &err), AV_OK);
    assert_memory_equal(a.data, rows, sizeof rows);
    av_npy_free(&a);
    free(b);
}

/* A bad value in a Fortran-order file is named by its place in the array (as np.load shows it), the first in
 * C order: nan_2d_fortran.npy has NaN at [2, 1] (first in the file) and [0, 5] (first in C order). */
static void test_fortran_order_bad_value_named_in_c_order(void **state) {
    (void)state;
    expect_fixture_error("nan_2d_fortran.npy", "nan_2d_fortran.npy contains NaN at index 5 (row 0, column 5)");
    /* bool (2, 2) column by column [0, 0] [1, 0] [0, 1] [1, 1] = 0 1 2 0: the 2 is at [0, 1], C index 1 */
    expect_dict_error("{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }", "\x00\x01\x02\x00", 4,
                      "x.npy: bool value 2 at index 1 (row 0, column 1) is not 0 or 1");
    /* float64 out of float32's range, (2, 2) column by column: 1e300 is 2nd in the file, [1, 0], C index 2 */
    double d[4] = {1, 1e300, 3, 4};
    expect_dict_error("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", d, 32,
                      "x.npy: value 1e+300 at index 2 (row 1, column 0) does not fit in float32");
}

static void test_nan_reported_with_row_and_column(void **state) {
    (void)state;
    expect_fixture_error("nan_2d.npy", "nan_2d.npy contains NaN at index 5 (row 0, column 5)");
    /* 1-D and 3-D positions */
    float v[24] = {0};
    v[13] = -INFINITY;
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (24,), }", v, 96,
                      "x.npy contains -Inf at index 13;");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", v, 96,
                      "x.npy contains -Inf at index 13 (position [1, 0, 1])");
}

static void test_inf_reported(void **state) {
    (void)state;
    expect_fixture_error("inf_2d.npy", "inf_2d.npy contains +Inf at index 10 (row 1, column 2)");
    double d[2] = {1.0, NAN};
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", d, 16,
                      "x.npy contains NaN at index 1");
}

/* float64 values that float32 rounds to 0 are read as 0, as numpy's astype(np.float32), and counted for the
 * caller's note (they read as all zeros silently). (2, 2) column by column: the file's 2nd value 1e-300 is C index
 * 2, its 3rd 1e-310 (a float64 subnormal) C index 1, the first in C order; 1e-45 rounds up to 2^-149 and stays. */
static void test_float64_below_float32_counted(void **state) {
    (void)state;
    double d[4] = {1e-45, 1e-300, 1e-310, 4};
    size_t len;
    unsigned char *b = craft("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 1, d, sizeof d, &len);
    av_npy a;
    av_err err = {{0}};
    assert_int_equal(av_npy_parse(&a, b, len, "x.npy", &err), AV_OK);
    assert_true(a.data[0] == 0x1p-149f && a.data[1] == 0.0f && a.data[2] == 0.0f && a.data[3] == 4.0f);
    assert_int_equal(a.flushed, 2);
    char note[512];
    av_npy_flushed_note(&a, "x.npy", note, sizeof note);
    assert_string_equal(note, "x.npy: 2 nonzero float64 values are read as 0: float32 rounds |v| <= 2^-150 = 7.0e-46, "
                              "half its smallest subnormal 1.4e-45, to 0, as numpy's a.astype(np.float32) does; the "
                              "first is 1e-310 at index 1 (row 0, column 1)");
    av_npy_free(&a);
    free(b);
    /* no such value: no note */
    double e[4] = {1, 2, 3, 4};
    b = craft("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 1, e, sizeof e, &len);
    assert_int_equal(av_npy_parse(&a, b, len, "x.npy", &err), AV_OK);
    assert_int_equal(a.flushed, 0);
    av_npy_flushed_note(&a, "x.npy", note, sizeof note);
    assert_string_equal(note, "");
    av_npy_free(&a);
    free(b);
}

static void test_float64_out_of_float32_range_rejected(void **state) {
    (void)state;
    expect_fixture_error("f8_overflow.npy", "value 1e+300 at index 2 (row 1, column 0) does not fit in float32");
}

static void test_malformed_dicts_rejected(void **state) {
    (void)state;
    static const struct {
        const char *dict, *want;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", "1-D shape needs a trailing comma"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", "expected a dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4 4), }", "expected ',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [4], }", "not a list"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (04,), }", "leading zero"},
        {"{'descr': '<f4', 'fortran_order': False, }", "lacks the key 'shape'"},
        {"{'descr': '<f4', 'shape': (4,), }", "lacks the key 'fortran_order'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "'descr' appears twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}", "unexpected key 'extra'"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (4,), }", "True or False"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }", "True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", "unexpected text after the dict"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), ", "unterminated dict"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }", "expected ',' or '}'"},
        {"{'descr': '<f4\\x', 'fortran_order': False, 'shape': (4,), }", "unsupported character"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (4,), }", "expected ',' or '}'"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (4,), }", "expected ':'"},
        {"['descr', '<f4']", "expected '{'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,", "unterminated shape"},
        {"{'descr': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'fortran_order': False, 'shape': (4,), }", "too long"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\xff", "unexpected text"},
        {"", "expected '{'"},
    };
    float v[4] = {0};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) expect_dict_error(cases[k].dict, v, 16, cases[k].want);
}

static void test_bool_values_must_be_0_or_1(void **state) {
    (void)state;
    expect_dict_error("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", "\x00\x01\x02\x00", 4,
                      "x.npy: bool value 2 at index 2 (row 1, column 0) is not 0 or 1");
}

/* ------------------------------------------------------------------------- */
/* shape checks, file errors, cleanup */

static void test_expect_shape_message(void **state) {
    (void)state;
    av_npy a;
    read_fixture(&a, "f4_2d.npy");
    av_err err = {{0}};
    size_t want[] = {8, 8};
    assert_int_equal(av_npy_expect_shape(&a, "W_Q.npy", 2, want, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "W_Q.npy has shape (4, 8); expected (8, 8)");
    size_t want1[] = {32};
    assert_int_equal(av_npy_expect_shape(&a, "W_Q.npy", 1, want1, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "W_Q.npy has shape (4, 8); expected (32,)");
    size_t same[] = {4, 8};
    assert_int_equal(av_npy_expect_shape(&a, "W_Q.npy", 2, same, &err), AV_OK);
    av_npy_free(&a);
}

static void test_read_missing_file_is_usage_error(void **state) {
    fixture *f = *state;
    av_npy a;
    av_err err = {{0}};
    const char *p = in_dir(f, "absent.npy");
    assert_int_equal(av_npy_read(&a, p, &err), AV_EUSAGE); /* a missing named file is bad input (exit 2) */
    assert_non_null(strstr(err.msg, tu_sh_word(p)));
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_null(a.data);
    av_npy_free(&a);
}

static void test_free_is_safe_twice_and_on_zeroed(void **state) {
    (void)state;
    av_npy a;
    memset(&a, 0, sizeof a);
    av_npy_free(&a);
    read_fixture(&a, "f4_2d.npy");
    av_npy_free(&a);
    av_npy_free(&a);
    av_npy_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_i32_matches_numpy_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_1d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_2d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_4d_0d_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_bool_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_matches_numpy_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_layout_is_format_1_0_little_endian, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_into_missing_folder_fails_and_old_file_survives, setup, teardown),
        cmocka_unit_test(test_read_numpy_float32),
        cmocka_unit_test(test_read_numpy_1d_0d_and_empty),
        cmocka_unit_test(test_read_numpy_float64_converts_to_float32),
        cmocka_unit_test(test_read_numpy_bool_and_uint8),
        cmocka_unit_test(test_read_numpy_version_2_and_3_headers),
        cmocka_unit_test(test_header_variations_accepted),
        cmocka_unit_test(test_bad_magic),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_header_length_past_eof),
        cmocka_unit_test(test_unsupported_version),
        cmocka_unit_test(test_truncated_data),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_lying_header_shape_bigger_than_data),
        cmocka_unit_test(test_huge_dims_overflow),
        cmocka_unit_test(test_dtype_i8_rejected),
        cmocka_unit_test(test_dtype_big_endian_f4_rejected),
        cmocka_unit_test(test_dtype_half_and_integers_say_how_to_save),
        cmocka_unit_test(test_read_numpy_fortran_order),
        cmocka_unit_test(test_fortran_order_bad_value_named_in_c_order),
        cmocka_unit_test(test_nan_reported_with_row_and_column),
        cmocka_unit_test(test_inf_reported),
        cmocka_unit_test(test_float64_out_of_float32_range_rejected),
        cmocka_unit_test(test_float64_below_float32_counted),
        cmocka_unit_test(test_malformed_dicts_rejected),
        cmocka_unit_test(test_bool_values_must_be_0_or_1),
        cmocka_unit_test(test_expect_shape_message),
        cmocka_unit_test_setup_teardown(test_read_missing_file_is_usage_error, setup, teardown),
        cmocka_unit_test(test_free_is_safe_twice_and_on_zeroed),
    };
    return cmocka_run_group_tests_name("npy", tests, NULL, NULL);
}
