#define _GNU_SOURCE /* mremap */
/* test_pngout.c - render/pngout.h: the image data av_png_write / av_png_encode
 * give, and the metadata reader av_png_read_texts.
 *
 * Image data (written with ISA-L's igzip into IDAT chunks that libpng frames):
 * each file is checked by hand against the PNG Specification, 5.3 "Chunk
 * layout" (every CRC with zlib's crc32), 10 "Compression" (one zlib stream
 * over all IDAT chunks, method 8 with a window of at most 32 KiB, inflated
 * here with zlib's own inflate) and 7.3 / 9 "Filtering" (a filter byte
 * before each row; 0 = None, so the row follows unchanged), and the result
 * must equal the pixels written, byte for byte. libpng's reader
 * (av_png_read) must agree. Sizes cover one pixel, a row longer than the
 * 64 KiB staging buffer, a stride wider than the row, and noise whose
 * compressed stream spans several IDAT chunks.
 *
 * The reference is av_png_read on the same file (it decodes the whole image
 * and collects the text chunks before and after IDAT): the texts, size and
 * dpi must agree. A file cut inside its IDAT chunk, which av_png_read
 * rejects, still gives its texts: av_png_read_texts never reads the image.
 * The chunk layout (8-byte signature, then length, type, data, CRC) is the
 * PNG Specification's "Chunk layout"; the test finds IDAT by walking it.
 *
 * Reproducibility: the bytes must not depend on where in memory the
 * compressor's state is. The reference is the same image encoded with the
 * state at another address: an address is tried for each of the 8192
 * buckets that ISA-L 2.30's address-dependent hash can pick (see
 * test_bytes_do_not_depend_on_where_the_state_lives). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <zlib.h>

#include "testutil.h"

#include "render/pngout.h"

typedef tu_fixture fixture;

enum { W = 120, H = 90 };

/* Latin-1 → tEXt, CJK → iTXt, a NULL value is not written. */
static const av_png_text kTexts[4] = {
    {"Software", "attnviz 0.1.0"}, {"Title", "head 0 · “I love”"}, {"Run", "0123456789abcdef"}, {"Comment", NULL}};

/* Write a noisy W x H image (so IDAT is several kB) with kTexts to path. */
static void write_png(const char *path) {
    unsigned char *rgb = malloc((size_t)W * H * 3);
    uint32_t s = 12345;
    for (size_t i = 0; i < (size_t)W * H * 3; i++) {
        s = s * 1664525u + 1013904223u;
        rgb[i] = (unsigned char)(s >> 24);
    }
    av_err err;
    assert_int_equal(av_png_write(path, rgb, W, H, (size_t)W * 3, kTexts, 4, 150, &err), AV_OK);
    free(rgb);
}

/* Offset of the first IDAT chunk's length field in the n bytes at p. */
static size_t idat_offset(const unsigned char *p, size_t n) {
    size_t at = 8;
    while (at + 8 <= n) {
        size_t len = (size_t)p[at] << 24 | (size_t)p[at + 1] << 16 | (size_t)p[at + 2] << 8 | p[at + 3];
        if (memcmp(p + at + 4, "IDAT", 4) == 0) return at;
        at += 12 + len;
    }
    fail_msg("no IDAT chunk");
    return 0;
}

/* The first n bytes of src into dst. */
static void write_prefix(const char *dst, const char *src_bytes, size_t n) {
    FILE *fp = fopen(dst, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(src_bytes, 1, n, fp), n);
    fclose(fp);
}

static void assert_same_meta(const av_png_image *a, const av_png_image *b) {
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_true(a->dpi == b->dpi);
    assert_int_equal(a->has_time, b->has_time);
    assert_int_equal(a->n_texts, b->n_texts);
    for (int k = 0; k < a->n_texts; k++) {
        assert_string_equal(a->keys[k], b->keys[k]);
        assert_string_equal(a->values[k], b->values[k]);
    }
}

/* Same texts, size and dpi as av_png_read; no pixels. */
static void test_texts_equal_full_read(void **state) {
    fixture *f = *state;
    const char *path = tu_in(f, "a.png");
    write_png(path);
    av_png_image full, head;
    av_err err;
    assert_int_equal(av_png_read(path, &full, &err), AV_OK);
    assert_int_equal(av_png_read_texts(path, &head, &err), AV_OK);
    assert_int_equal(full.n_texts, 3);
    assert_same_meta(&head, &full);
    assert_null(head.rgb);
    assert_string_equal(av_png_image_text(&head, "Title"), "head 0 · “I love”");
    assert_string_equal(av_png_image_text(&head, "Run"), "0123456789abcdef");
    assert_null(av_png_image_text(&head, "Comment"));
    av_png_image_free(&full);
    av_png_image_free(&head);
}

/* Cut 16 bytes into the IDAT data: the image cannot be decoded, the texts
 * before it still read. */
static void test_truncated_idat_still_gives_texts(void **state) {
    fixture *f = *state;
    const char *path = tu_in(f, "a.png"), *cut = tu_in(f, "cut.png");
    write_png(path);
    size_t n = 0;
    char *bytes = tu_slurp_file(path, &n);
    assert_non_null(bytes);
    size_t at = idat_offset((const unsigned char *)bytes, n);
    assert_true(at + 8 + 16 < n);
    write_prefix(cut, bytes, at + 8 + 16);

    av_png_image full, head;
    av_err err;
    assert_int_equal(av_png_read(path, &full, &err), AV_OK);
    av_png_image broken;
    assert_int_equal(av_png_read(cut, &broken, &err), AV_ERUNTIME); /* the cut is real */
    assert_int_equal(av_png_read_texts(cut, &head, &err), AV_OK);
    assert_same_meta(&head, &full);
    av_png_image_free(&full);
    av_png_image_free(&head);
    free(bytes);
}

/* Missing file, not a PNG, and a file cut before its first IDAT (inside the
 * text chunks) are AV_ERUNTIME naming the path. */
static void test_errors_name_the_path(void **state) {
    fixture *f = *state;
    av_png_image img;
    av_err err;
    const char *missing = tu_in(f, "missing.png");
    assert_int_equal(av_png_read_texts(missing, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(missing)));

    const char *text = tu_in(f, "text.png");
    write_prefix(text, "hello, not a PNG at all\n", 24);
    assert_int_equal(av_png_read_texts(text, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(text)));

    const char *path = tu_in(f, "a.png"), *cut = tu_in(f, "early.png");
    write_png(path);
    size_t n = 0;
    char *bytes = tu_slurp_file(path, &n);
    write_prefix(cut, bytes, 60); /* signature, IHDR (25 bytes), part of the next chunk */
    assert_int_equal(av_png_read_texts(cut, &img, &err), AV_ERUNTIME);
    assert_non_null(strstr(err.msg, tu_sh_word(cut)));
    assert_int_equal(img.n_texts, 0);
    free(bytes);
}

/* A text that is not valid UTF-8 (a --model folder named with bytes 0xFF
 * 0xFE, as a Latin-1 file system allows) is written with U+FFFD for each
 * bad byte: the iTXt chunk is UTF-8 by the PNG Specification, 11.3.4.5. The
 * expected bytes are Python's b"bad\xff\xfe".decode("utf-8", "replace")
 * encoded back to UTF-8 (each byte invalid on its own, one U+FFFD each). */
static void test_text_that_is_not_utf8_is_written_as_utf8(void **state) {
    fixture *f = *state;
    const char *path = tu_in(f, "u.png");
    static const av_png_text texts[2] = {{"Software", "attnviz 0.1.0"}, {"Title", "model bad\xFF\xFE · “3 1 >”"}};
    unsigned char rgb[3] = {1, 2, 3};
    av_err err;
    assert_int_equal(av_png_write(path, rgb, 1, 1, 3, texts, 2, 100, &err), AV_OK);
    size_t n = 0;
    char *bytes = tu_slurp_file(path, &n);
    assert_non_null(bytes);
    static const char want[] = "model bad\xEF\xBF\xBD\xEF\xBF\xBD · “3 1 >”";
    assert_non_null(memmem(bytes, n, want, strlen(want)));
    assert_null(memmem(bytes, n, "bad\xFF", 4));
    av_png_image img;
    assert_int_equal(av_png_read_texts(path, &img, &err), AV_OK);
    assert_string_equal(av_png_image_text(&img, "Title"), want);
    av_png_image_free(&img);
    free(bytes);
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Decode the n PNG bytes at p by the specification (see the top of the file)
 * and compare with rgb (h rows of w pixels, `stride` bytes apart). Returns
 * the number of IDAT chunks. */
static int check_png_by_spec(const unsigned char *p, size_t n, const unsigned char *rgb, int w, int h,
                             size_t stride) {
    assert_true(n > 8);
    assert_memory_equal(p, "\x89PNG\r\n\x1a\n", 8);
    size_t at = 8, zlen = 0;
    unsigned char *z = malloc(n);
    assert_non_null(z);
    int idats = 0, saw_iend = 0, after_idat = 0;
    while (at + 12 <= n && !saw_iend) {
        uint32_t len = be32(p + at);
        assert_true(at + 12 + len <= n);
        const unsigned char *type = p + at + 4, *data = p + at + 8;
        assert_int_equal(be32(data + len), (uint32_t)crc32(crc32(0, NULL, 0), type, len + 4));
        if (memcmp(type, "IHDR", 4) == 0) {
            assert_int_equal(be32(data), (uint32_t)w);
            assert_int_equal(be32(data + 4), (uint32_t)h);
            assert_int_equal(data[8], 8); /* bit depth */
            assert_int_equal(data[9], 2); /* truecolour */
        } else if (memcmp(type, "IDAT", 4) == 0) {
            assert_false(after_idat); /* IDAT chunks are consecutive */
            memcpy(z + zlen, data, len);
            zlen += len;
            idats++;
        } else {
            if (idats) after_idat = 1;
            if (memcmp(type, "IEND", 4) == 0) {
                assert_int_equal(len, 0);
                saw_iend = 1;
            }
        }
        at += 12 + len;
    }
    assert_true(saw_iend);
    assert_int_equal(at, n); /* nothing after IEND */
    assert_true(idats >= 1);
    assert_true(zlen >= 2);
    assert_int_equal(z[0] & 0x0f, 8);    /* deflate */
    assert_true((z[0] >> 4) <= 7);       /* window <= 32 KiB */
    assert_int_equal((z[0] << 8 | z[1]) % 31, 0);
    size_t row = (size_t)w * 3, raw_len = (row + 1) * (size_t)h;
    unsigned char *raw = malloc(raw_len + 1);
    assert_non_null(raw);
    uLongf got = (uLongf)raw_len + 1;
    assert_int_equal(uncompress(raw, &got, z, (uLong)zlen), Z_OK); /* checks the Adler-32 too */
    assert_int_equal(got, raw_len);
    for (int y = 0; y < h; y++) {
        assert_int_equal(raw[(size_t)y * (row + 1)], 0);
        assert_memory_equal(raw + (size_t)y * (row + 1) + 1, rgb + (size_t)y * stride, row);
    }
    free(raw);
    free(z);
    return idats;
}

/* An image of h rows, `stride` bytes each: noise (every byte random) or smooth
 * (a gradient with flat runs, like a figure). */
static unsigned char *make_image(int h, size_t stride, int noise) {
    unsigned char *rgb = malloc(stride * (size_t)h);
    assert_non_null(rgb);
    uint32_t s = 777;
    for (int y = 0; y < h; y++)
        for (size_t i = 0; i < stride; i++) {
            s = s * 1664525u + 1013904223u;
            rgb[(size_t)y * stride + i] = noise ? (unsigned char)(s >> 24)
                                                : (unsigned char)((i / 3 / 40 + (size_t)y / 7) * 37 + i % 3 * 80);
        }
    return rgb;
}

static void test_image_data_by_the_spec(void **state) {
    fixture *f = *state;
    static const struct {
        int w, h, pad, noise, min_idats;
    } cases[] = {
        {1, 1, 0, 0, 1},      /* one pixel */
        {5, 3, 7, 1, 1},      /* stride wider than the row */
        {22000, 3, 0, 0, 1},  /* a row (66,000 bytes) longer than the staging buffer */
        {22000, 2, 0, 1, 2},  /* the same, incompressible */
        {300, 300, 0, 1, 4},  /* 270 kB of noise: the stream spans several 64 KiB IDAT chunks */
        {631, 562, 0, 0, 1},  /* a head figure's size, smooth */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int w = cases[k].w, h = cases[k].h;
        size_t stride = (size_t)w * 3 + (size_t)cases[k].pad;
        unsigned char *rgb = make_image(h, stride, cases[k].noise);
        av_err err;
        unsigned char *mem = NULL;
        size_t mem_len = 0;
        assert_int_equal(av_png_encode(&mem, &mem_len, rgb, w, h, stride, kTexts, 4, 96, &err), AV_OK);
        int idats = check_png_by_spec(mem, mem_len, rgb, w, h, stride);
        assert_true(idats >= cases[k].min_idats);

        const char *path = tu_in(f, "img.png");
        assert_int_equal(av_png_write(path, rgb, w, h, stride, kTexts, 4, 96, &err), AV_OK);
        size_t n = 0;
        char *bytes = tu_slurp_file(path, &n);
        assert_int_equal(n, mem_len); /* the file and the memory encoding are the same bytes */
        assert_memory_equal(bytes, mem, n);
        av_png_image img;
        assert_int_equal(av_png_read(path, &img, &err), AV_OK); /* libpng's reader agrees */
        assert_int_equal(img.width, w);
        assert_int_equal(img.height, h);
        for (int y = 0; y < h; y++)
            assert_memory_equal(img.rgb + (size_t)y * w * 3, rgb + (size_t)y * stride, (size_t)w * 3);
        assert_string_equal(av_png_image_text(&img, "Title"), kTexts[1].value);
        av_png_image_free(&img);
        free(bytes);
        free(mem);
        free(rgb);
    }
}

/* CRC-32C (Castagnoli; reflected polynomial 0x82F63B78) of the 4 bytes of v,
 * little-endian, from 0 and without the final inversion: what x86's SSE4.2
 * crc32 instruction computes, which is igzip's hash of a 4-byte window
 * (compute_hash in ISA-L's huffman.asm). Bitwise, from the polynomial. */
static uint32_t crc32c_u32(uint32_t v) {
    uint32_t crc = 0;
    for (int b = 0; b < 4; b++) {
        crc ^= (v >> (8 * b)) & 0xFF;
        for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return crc;
}

/* Move the size-byte mapping at *at to addr exactly (mremap, so its pages
 * come along, neither copied nor faulted in again); 0 when that range is
 * taken, which leaves the mapping where it was. A PROT_NONE placeholder
 * claims the range first, so nothing of the process is ever replaced. */
static int move_to(void **at, uintptr_t addr, size_t size) {
#ifdef MAP_FIXED_NOREPLACE
    void *hold = mmap((void *)addr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
#else
    void *hold = mmap((void *)addr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#endif
    if (hold == MAP_FAILED) return 0;
    if ((uintptr_t)hold != addr) { /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
        munmap(hold, size);
        return 0;
    }
    void *moved = mremap(*at, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, hold);
    assert_true(moved == hold);
    *at = moved;
    return 1;
}

/* The same image gives the same bytes wherever the compressor's state
 * lives. ISA-L 2.30 hashes one early stream position from bits 16-47 of the
 * state's address (see first_bytes_apart in pngout.c): that position lands
 * in bucket crc32c(bits 16-47) mod 8192 of igzip level 1's hash table, and
 * for a few buckets a later match is coded at another distance (the file
 * still decodes to the same pixels). This moves the state through an
 * address for every one of the 8192 buckets and encodes the same image at
 * each: tests/data/png/title_strip.png, a 300 x 50 crop of a real figure's
 * title (tests/gen_png_fixture.py), anti-aliased text being where it
 * happened. All 8192 encodings, and av_png_encode's with its own state, must
 * be the same bytes. Without first_bytes_apart 6 different files came out;
 * with a first call of one byte (which leaves the stream without history)
 * 3 did (counted with this fixture when it was made). */
static void test_bytes_do_not_depend_on_where_the_state_lives(void **state) {
    (void)state;
    enum { BUCKETS = 8192 };
    av_png_image img;
    av_err err;
    assert_int_equal(av_png_read(src_path("tests/data/png/title_strip.png"), &img, &err), AV_OK);
    const unsigned char *rgb = img.rgb;
    int FW = img.width, FH = img.height;
    unsigned char *ref = NULL;
    size_t nref = 0;
    assert_int_equal(av_png_encode(&ref, &nref, rgb, FW, FH, (size_t)FW * 3, NULL, 0, 0, &err), AV_OK);
    check_png_by_spec(ref, nref, rgb, FW, FH, (size_t)FW * 3);

    size_t size = av_png_state_size();
    void *at = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(at != MAP_FAILED);
    static uint32_t bits[BUCKETS]; /* bits 16-47 of an address whose bucket is the index */
    int found = 0, tried = 0;
    /* from 2^45 up: user space, and above AddressSanitizer's shadow memory */
    for (uint32_t v = 0x20000000u; found < BUCKETS && v < 0x28000000u; v++) {
        uint32_t b = crc32c_u32(v) % BUCKETS;
        if (!bits[b]) bits[b] = v, found++;
    }
    assert_int_equal(found, BUCKETS);
    for (int b = 0; b < BUCKETS; b++) {
        if (!move_to(&at, (uintptr_t)bits[b] << 16, size)) continue; /* taken: rare */
        tried++;
        unsigned char *out = NULL;
        size_t n = 0;
        assert_int_equal(av_png_encode_in(at, &out, &n, rgb, FW, FH, (size_t)FW * 3, &err), AV_OK);
        if (n != nref || memcmp(out, ref, n) != 0)
            fail_msg("state at %#lx (bucket %d): %zu bytes, unlike the %zu at the others",
                     (unsigned long)((uintptr_t)bits[b] << 16), b, n, nref);
        free(out);
    }
    assert_true(tried > BUCKETS * 99 / 100);
    munmap(at, size);
    free(ref);
    av_png_image_free(&img);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_image_data_by_the_spec, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_texts_equal_full_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_truncated_idat_still_gives_texts, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_errors_name_the_path, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_text_that_is_not_utf8_is_written_as_utf8, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_bytes_do_not_depend_on_where_the_state_lives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
