/* pngout.c - PNG writing (libpng full write API, for tEXt/iTXt and pHYs) and
 * reading for tests. All libpng error handling (setjmp/longjmp) is in this
 * file: each entry point sets one jump buffer and turns a libpng error into
 * an av_err naming the path.
 *
 * Non-goals: see pngout.h.
 */
#include "render/pngout.h"

#include <math.h>
#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <png.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"

/* ---------------------------------------------------------------- errors */

typedef struct {
    char msg[256]; /* libpng's message, set before the longjmp */
} png_ctx;

static void on_error(png_structp png, png_const_charp msg) {
    png_ctx *c = png_get_error_ptr(png);
    if (c) snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg; /* warnings do not change the file; stay quiet */
}

/* ---------------------------------------------------------------- text */

/* If utf8 is valid UTF-8 whose code points are all <= U+00FF, write its
 * Latin-1 form to a malloc'd *out and return 1; else return 0 (also 0 with
 * *out = NULL on OOM). */
static int to_latin1(const char *utf8, char **out) {
    const unsigned char *s = (const unsigned char *)utf8;
    size_t n = strlen(utf8), m = 0;
    *out = NULL;
    char *o = malloc(n + 1);
    if (!o) return 0;
    for (size_t k = 0; k < n;) {
        unsigned cp;
        const char *why;
        int used = av_utf8_decode(s + k, n - k, &cp, &why);
        if (used == 0 || cp > 0xFF) { free(o); return 0; }
        o[m++] = (char)cp;
        k += (size_t)used;
    }
    o[m] = 0;
    *out = o;
    return 1;
}

/* Latin-1 → UTF-8 (malloc'd), for reading tEXt back. */
static char *from_latin1(const char *s, size_t n) {
    char *o = malloc(2 * n + 1);
    if (!o) return NULL;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) m += (size_t)av_utf8_encode((unsigned char)s[k], o + m);
    o[m] = 0;
    return o;
}

/* ---------------------------------------------------------------- writing */

typedef struct {
    unsigned char *buf;
    size_t len, cap;
} mem_sink;

static void mem_write(png_structp png, png_bytep data, png_size_t n) {
    mem_sink *m = png_get_io_ptr(png);
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n) cap *= 2;
        unsigned char *p = realloc(m->buf, cap);
        if (!p) png_error(png, "out of memory");
        m->buf = p;
        m->cap = cap;
    }
    memcpy(m->buf + m->len, data, n);
    m->len += n;
}

static void mem_flush(png_structp png) {
    (void)png;
}

/* ---------------------------------------------------------------- image data */

enum {
    STAGE_BYTES = 64 * 1024, /* filtered rows handed to the compressor at a time */
    IDAT_BYTES = 64 * 1024,  /* compressed bytes per IDAT chunk (the last one shorter) */
};

/* Write the image data of an 8-bit RGB image as IDAT chunks: one zlib stream
 * (RFC 1950, deflate RFC 1951, 32 KiB window) of the rows top to bottom, each
 * row preceded by its filter type byte 0 (None). Source: the PNG
 * Specification (W3C, 2nd ed.), 10 "Compression" (one zlib datastream split
 * across consecutive IDAT chunks of any sizes) and 9 "Filtering".
 *
 * The deflate is ISA-L's igzip at level 1 (Intel's Intelligent Storage
 * Acceleration Library, Debian libisal-dev), not libpng's zlib: libpng has no
 * way to plug in another compressor, so libpng writes the signature, IHDR,
 * the ancillary chunks and every chunk's length and CRC (png_write_chunk),
 * and this function only fills the IDAT chunks. On this project's figures
 * igzip level 1 gives files the size of zlib level 1's (the 9 classroom
 * figures: 550,827 bytes against 551,002) in a fifth of the CPU time. Its
 * output depends only on the input on a given machine (no clocks, no
 * threads), once first_bytes_apart below has run, so files stay reproducible;
 * the decoded pixels are the same everywhere.
 *
 * Rows are copied with their filter bytes into a 64 KiB staging buffer (a
 * longer row into long_row, row + 1 bytes, which the caller allocates), so
 * the image is never copied whole. The
 * compressor's buffers (about 300 KiB) are kept for the next image (two
 * sets at most, one per thread of a PNG batch): allocating them afresh costs
 * ~70 page faults per figure on the VMs this project runs on. Errors:
 * libpng's (write failures, via png_error's longjmp, after which
 * encode_with_texts returns scr) or -1 with ctx->msg set (out of memory, or igzip's return
 * code). */
typedef struct {
    struct isal_zstream zs;
    unsigned char level_buf[ISAL_DEF_LVL1_SMALL];
    unsigned char stage[STAGE_BYTES];
    unsigned char out[IDAT_BYTES];
} idat_scratch;

enum { SCRATCH_KEEP = 2 };
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static idat_scratch *scratch_kept[SCRATCH_KEEP];

static idat_scratch *scratch_get(void) {
    idat_scratch *s = NULL;
    pthread_mutex_lock(&scratch_lock);
    for (int i = 0; i < SCRATCH_KEEP && !s; i++)
        if (scratch_kept[i]) {
            s = scratch_kept[i];
            scratch_kept[i] = NULL;
        }
    pthread_mutex_unlock(&scratch_lock);
    return s ? s : malloc(sizeof *s);
}

static void scratch_put(idat_scratch *s) {
    if (!s) return;
    pthread_mutex_lock(&scratch_lock);
    for (int i = 0; i < SCRATCH_KEEP && s; i++)
        if (!scratch_kept[i]) {
            scratch_kept[i] = s;
            s = NULL;
        }
    pthread_mutex_unlock(&scratch_lock);
    free(s);
}

/* ISA-L 2.30's AVX-512 deflate returns with the upper halves of the vector
 * registers in use (no vzeroupper). Until they are cleared, every SSE
 * instruction the thread runs afterwards pays a penalty: measured on this
 * project's machines (AMD EPYC, 2 vCPUs), zlib's deflate right after an
 * igzip call ran 2.5 times slower (62 ms instead of 25 ms of CPU for the 9
 * classroom figures), and so would libpng, FreeType and the drawing code.
 * This clears them after each call, as the x86-64 ABI expects of a function
 * that used AVX (Intel's optimisation manual, "Mixing AVX code with SSE
 * code"). Only on x86-64 CPUs with AVX, where the instruction exists. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void clear_upper_avx(void) {
    __builtin_ia32_vzeroupper();
}
static void after_igzip(void) {
    if (__builtin_cpu_supports("avx")) clear_upper_avx(); /* reads libgcc's CPU model, filled at start-up */
}
#else
static void after_igzip(void) {
}
#endif

/* Compress the stream's first min(n, FIRST_BYTES) bytes of `in` on their
 * own, ended with a sync flush (zlib's Z_SYNC_FLUSH: a non-final empty stored
 * block, RFC 1951 3.2.4), before the rest of the image.
 *
 * Why: ISA-L 2.30's level-1 body (igzip_icf_body_h1_gr_bt.asm, its
 * .write_first_byte path, taken while the stream has no history) hashes the
 * next position from a register that holds the isal_zstream's address, not
 * from the input (`shr tmp2, 16` on rcx, never loaded with data). That
 * position goes into a hash bucket chosen by bits 16-47 of where the
 * compressor's state lives, and when the bucket is one the image needs later
 * (4 of the 8192 for a head figure) a match is coded at another, equally
 * valid distance. Files decoded to the same pixels, but their bytes
 * depended on memory layout: about 1 run in 400 of the classroom command
 * wrote a figure that differed from the last run's.
 *
 * With FIRST_BYTES bytes and a flush, the body returns before that path
 * (the flush leaves it 16 bytes of slack, so it has nothing to do) and
 * igzip's finish routine codes them. The finish routine hashes the data
 * and sets the history flag, provided it gets more than its last 3 bytes;
 * with a single byte it only emitted a literal and the flag stayed unset.
 * The body then never sees a stream without history. Costs one call and a
 * few bytes per file (the flush's empty stored block, 00 00 FF FF, and the
 * first bytes coded apart): the 9 classroom figures take 551,837 bytes
 * instead of 551,605 (+0.04 %).
 * Test: test_pngout test_bytes_do_not_depend_on_where_the_state_lives.
 * Returns the number of bytes consumed (at most n), or -1 with ctx->msg set. */
enum { FIRST_BYTES = 16 };
static int first_bytes_apart(png_ctx *ctx, idat_scratch *scr, const unsigned char *in, size_t n) {
    struct isal_zstream *zs = &scr->zs;
    uint32_t k = n < FIRST_BYTES ? (uint32_t)n : FIRST_BYTES;
    zs->next_in = (uint8_t *)in;
    zs->avail_in = k;
    zs->flush = SYNC_FLUSH;
    zs->end_of_stream = 0;
    int rc = isal_deflate(zs); /* a few bytes out, into the empty 64 KiB buffer: one call */
    after_igzip();
    if (rc != COMP_OK || zs->avail_in != 0) {
        snprintf(ctx->msg, sizeof ctx->msg, "igzip (ISA-L) failed with code %d", rc);
        return -1;
    }
    zs->flush = NO_FLUSH;
    return (int)k;
}

static int write_idat(png_structp png, png_ctx *ctx, idat_scratch *scr, unsigned char *long_row,
                      const unsigned char *rgb, int width, int height, size_t stride) {
    size_t row = (size_t)width * 3, stage_cap = long_row ? row + 1 : STAGE_BYTES;
    unsigned char *stage = long_row ? long_row : scr->stage;
    struct isal_zstream *zs = &scr->zs;
    isal_deflate_init(zs);
    zs->level = 1;
    zs->level_buf = scr->level_buf;
    zs->level_buf_size = sizeof scr->level_buf;
    zs->gzip_flag = IGZIP_ZLIB;
    zs->flush = NO_FLUSH;
    zs->next_out = scr->out;
    zs->avail_out = IDAT_BYTES;
    int y = 0, first = 1;
    do {
        size_t n = 0;
        while (y < height && (n == 0 || n + row + 1 <= stage_cap)) {
            stage[n++] = 0; /* filter type None */
            memcpy(stage + n, rgb + (size_t)y * stride, row);
            n += row;
            y++;
        }
        zs->next_in = stage;
        zs->avail_in = (uint32_t)n;
        if (first) {
            int k = first_bytes_apart(ctx, scr, stage, n);
            if (k < 0) return -1;
            zs->next_in = stage + k;
            zs->avail_in = (uint32_t)(n - (size_t)k);
            first = 0;
        }
        zs->end_of_stream = y == height;
        for (;;) {
            int rc = isal_deflate(zs);
            after_igzip();
            if (rc != COMP_OK) {
                snprintf(ctx->msg, sizeof ctx->msg, "igzip (ISA-L) failed with code %d", rc);
                return -1;
            }
            int done = zs->end_of_stream && zs->internal_state.state == ZSTATE_END;
            if (zs->avail_out == 0 || (done && zs->avail_out < IDAT_BYTES)) {
                png_write_chunk(png, (png_const_bytep) "IDAT", scr->out, IDAT_BYTES - zs->avail_out);
                zs->next_out = scr->out;
                zs->avail_out = IDAT_BYTES;
            }
            if (done || (zs->avail_in == 0 && !zs->end_of_stream)) break;
        }
    } while (y < height);
    return 0;
}

/* Encode into fp (when sink is NULL) or into sink. Returns 0, or -1 with
 * ctx->msg set. Text conversions are owned by `conv` (freed by the caller). */
static int encode(FILE *fp, mem_sink *sink, png_ctx *ctx, const unsigned char *rgb, int width, int height,
                  size_t stride, const av_png_text *texts, int n_texts, int dpi, char **conv,
                  png_text *chunks, idat_scratch *scr, unsigned char *long_row) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_error, on_warning);
    if (!png) {
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    if (sink) png_set_write_fn(png, sink, mem_write, mem_flush);
    else png_init_io(png, fp);

    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* The image data: write_idat (igzip level 1, no row filters). Figures are
     * flat colour fields, where level 1 without filters is 2-3 times faster
     * than zlib level 6 with libpng's adaptive filters, and files stay within
     * ~15% (smaller for 200-token maps). Fixed choices: the bytes stay
     * deterministic. */
    png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_uint_32 ppm = (png_uint_32)lrint((dpi > 0 ? dpi : 100) / 0.0254);
    png_set_pHYs(png, info, ppm, ppm, PNG_RESOLUTION_METER);

    int n = 0;
    for (int k = 0; k < n_texts; k++) {
        if (!texts[k].value || !texts[k].key) continue;
        png_text *t = &chunks[n];
        memset(t, 0, sizeof *t);
        t->key = (png_charp)texts[k].key;
        if (to_latin1(texts[k].value, &conv[k])) {
            t->compression = PNG_TEXT_COMPRESSION_NONE;
            t->text = conv[k];
            t->text_length = strlen(conv[k]);
        } else {
            /* iTXt text is UTF-8 (PNG spec 11.3.4.5); a --model or -o folder name need not be */
            if (!(conv[k] = av_utf8_replace_invalid(texts[k].value))) {
                png_destroy_write_struct(&png, &info);
                snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
                return -1;
            }
            t->compression = PNG_ITXT_COMPRESSION_NONE;
            t->text = conv[k];
            t->itxt_length = strlen(conv[k]);
            t->lang = (png_charp) "";
            t->lang_key = (png_charp) "";
        }
        n++;
    }
    if (n) png_set_text(png, info, chunks, n);

    png_write_info(png, info);
    int rc = write_idat(png, ctx, scr, long_row, rgb, width, height, stride);
    /* IEND ends the file (PNG spec 11.2.5); png_write_end would refuse: it
     * checks libpng's own IDAT bookkeeping, which write_idat bypasses. */
    if (rc == 0) {
        png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
        png_write_flush(png);
    }
    png_destroy_write_struct(&png, &info);
    return rc;
}

/* encode() plus the bookkeeping for converted text values and the
 * compressor's buffers. */
static int encode_with_texts(FILE *fp, mem_sink *sink, png_ctx *ctx, const unsigned char *rgb, int width,
                             int height, size_t stride, const av_png_text *texts, int n_texts, int dpi,
                             idat_scratch *given) {
    if (n_texts < 0) n_texts = 0;
    char **conv = calloc((size_t)n_texts + 1, sizeof *conv);
    png_text *chunks = calloc((size_t)n_texts + 1, sizeof *chunks);
    size_t row = (size_t)width * 3;
    idat_scratch *scr = given ? given : scratch_get();
    unsigned char *long_row = row + 1 > STAGE_BYTES ? malloc(row + 1) : NULL;
    int rc = -1;
    if (!conv || !chunks || !scr || (row + 1 > STAGE_BYTES && !long_row))
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
    else rc = encode(fp, sink, ctx, rgb, width, height, stride, texts, n_texts, dpi, conv, chunks, scr, long_row);
    if (!given) scratch_put(scr);
    free(long_row);
    if (conv)
        for (int k = 0; k < n_texts; k++) free(conv[k]);
    free(conv);
    free(chunks);
    return rc;
}

static av_status check_args(const char *what, const unsigned char *rgb, int width, int height, size_t stride,
                            av_err *err) {
    if (!rgb || width <= 0 || height <= 0 || stride < (size_t)width * 3 || width > 1000000 || height > 1000000)
        return av_fail(err, AV_ERUNTIME, "cannot write %s: bad image %dx%d (stride %zu)", what, width,
                       height, stride);
    return AV_OK;
}

av_status av_png_write(const char *path, const unsigned char *rgb, int width, int height, size_t stride,
                       const av_png_text *texts, int n_texts, int dpi, av_err *err) {
    av_status st = check_args(AV_SHOWN_WORD(path, 4200), rgb, width, height, stride, err);
    if (st) return st;
    av_afile f;
    st = av_afile_open(&f, path, err);
    if (st) return st;
    png_ctx ctx = {{0}};
    errno = 0;
    if (encode_with_texts(f.fp, NULL, &ctx, rgb, width, height, stride, texts, n_texts, dpi, NULL) != 0) {
        /* libpng says only "Write Error"; the failed fwrite left the cause in errno */
        int e = errno;
        int io = ferror(f.fp) && e;
        av_afile_abort(&f);
        if (io) return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), strerror(e));
        return av_fail(err, AV_ERUNTIME, "cannot write %s: %s", AV_SHOWN_WORD(path, 4200), ctx.msg);
    }
    return av_afile_commit(&f, err);
}

/* av_png_encode with the compressor's state `given` (NULL: a kept one). */
static av_status encode_to_memory(idat_scratch *given, unsigned char **out, size_t *len, const unsigned char *rgb,
                                  int width, int height, size_t stride, const av_png_text *texts, int n_texts,
                                  int dpi, av_err *err) {
    *out = NULL;
    *len = 0;
    av_status st = check_args("(memory)", rgb, width, height, stride, err);
    if (st) return st;
    mem_sink sink = {0};
    png_ctx ctx = {{0}};
    if (encode_with_texts(NULL, &sink, &ctx, rgb, width, height, stride, texts, n_texts, dpi, given) != 0) {
        free(sink.buf);
        return av_fail(err, AV_ERUNTIME, "cannot encode PNG: %s", ctx.msg);
    }
    *out = sink.buf;
    *len = sink.len;
    return AV_OK;
}

av_status av_png_encode(unsigned char **out, size_t *len, const unsigned char *rgb, int width, int height,
                        size_t stride, const av_png_text *texts, int n_texts, int dpi, av_err *err) {
    return encode_to_memory(NULL, out, len, rgb, width, height, stride, texts, n_texts, dpi, err);
}

size_t av_png_state_size(void) {
    return sizeof(idat_scratch);
}

av_status av_png_encode_in(void *state, unsigned char **out, size_t *len, const unsigned char *rgb, int width,
                           int height, size_t stride, av_err *err) {
    if (!state || (uintptr_t)state % 16) {
        *out = NULL;
        *len = 0;
        return av_fail(err, AV_EUSAGE, "av_png_encode_in: the state must be 16-byte aligned, not NULL");
    }
    return encode_to_memory(state, out, len, rgb, width, height, stride, NULL, 0, 0, err);
}

void av_png_warm(void) {
    idat_scratch *set[SCRATCH_KEEP];
    for (int i = 0; i < SCRATCH_KEEP; i++)
        if ((set[i] = scratch_get())) memset(set[i], 0, sizeof *set[i]); /* its pages, faulted in now */
    for (int i = 0; i < SCRATCH_KEEP; i++) scratch_put(set[i]);
    static const unsigned char rgb[4 * 4 * 3] = {0};
    unsigned char *png = NULL;
    size_t len = 0;
    av_err err;
    if (av_png_encode(&png, &len, rgb, 4, 4, 4 * 3, NULL, 0, 0, &err) == AV_OK) free(png);
}

/* ---------------------------------------------------------------- reading */

void av_png_image_free(av_png_image *img) {
    free(img->rgb);
    for (int k = 0; k < img->n_texts; k++) {
        free(img->keys[k]);
        free(img->values[k]);
    }
    free(img->keys);
    free(img->values);
    memset(img, 0, sizeof *img);
}

const char *av_png_image_text(const av_png_image *img, const char *key) {
    for (int k = 0; k < img->n_texts; k++)
        if (strcmp(img->keys[k], key) == 0) return img->values[k];
    return NULL;
}

/* Copy the text chunks of info into img (UTF-8). Returns 0 or -1 on OOM. */
static int collect_texts(png_structp png, png_infop info, av_png_image *img) {
    png_textp t;
    int n = 0;
    png_get_text(png, info, &t, &n);
    if (n <= 0) return 0;
    char **keys = realloc(img->keys, (size_t)(img->n_texts + n) * sizeof *keys);
    if (!keys) return -1;
    img->keys = keys;
    char **values = realloc(img->values, (size_t)(img->n_texts + n) * sizeof *values);
    if (!values) return -1;
    img->values = values;
    for (int k = 0; k < n; k++) {
        int utf8 = t[k].compression == PNG_ITXT_COMPRESSION_NONE || t[k].compression == PNG_ITXT_COMPRESSION_zTXt;
        size_t vlen = utf8 ? t[k].itxt_length : t[k].text_length;
        char *key = from_latin1(t[k].key, strlen(t[k].key));
        char *val = utf8 ? malloc(vlen + 1) : from_latin1(t[k].text, vlen);
        if (!key || !val) {
            free(key);
            free(val);
            return -1;
        }
        if (utf8) {
            memcpy(val, t[k].text, vlen);
            val[vlen] = 0;
        }
        img->keys[img->n_texts] = key;
        img->values[img->n_texts] = val;
        img->n_texts++;
    }
    return 0;
}

/* img->dpi from info's pHYs (metres only) and img->has_time from a tIME
 * chunk in info or end (NULL: not read). */
static void take_phys_time(png_structp png, png_infop info, png_infop end, av_png_image *img) {
    png_uint_32 rx, ry;
    int unit;
    if (png_get_pHYs(png, info, &rx, &ry, &unit) && unit == PNG_RESOLUTION_METER) img->dpi = rx * 0.0254;
    img->has_time = png_get_valid(png, info, PNG_INFO_tIME) || (end && png_get_valid(png, end, PNG_INFO_tIME));
}

/* The setjmp part of av_png_read; img->rgb is owned by img throughout. */
static int decode(FILE *fp, png_ctx *ctx, av_png_image *img, png_bytep *volatile *rows_out) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, on_error, on_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    png_infop end = png_create_info_struct(png);
    if (!info || !end) {
        png_destroy_read_struct(&png, &info, &end);
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, &end);
        return -1;
    }
    png_init_io(png, fp);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (w == 0 || h == 0 || w > 100000 || h > 100000) png_error(png, "image size out of range");
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 3) png_error(png, "unexpected row size");
    img->width = (int)w;
    img->height = (int)h;
    img->rgb = malloc((size_t)w * h * 3);
    png_bytep *rows = malloc(h * sizeof *rows);
    *rows_out = rows;
    if (!img->rgb || !rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) rows[y] = img->rgb + (size_t)y * w * 3;
    png_read_image(png, rows);
    png_read_end(png, end);
    if (collect_texts(png, info, img) != 0 || collect_texts(png, end, img) != 0) png_error(png, "out of memory");
    take_phys_time(png, info, end, img);
    png_destroy_read_struct(&png, &info, &end);
    return 0;
}

/* The setjmp part of av_png_read_texts: the chunks up to the first IDAT. */
static int decode_head(FILE *fp, png_ctx *ctx, av_png_image *img) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, on_error, on_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_init_io(png, fp);
    png_read_info(png, info); /* stops at the first IDAT chunk's header */
    img->width = (int)png_get_image_width(png, info);
    img->height = (int)png_get_image_height(png, info);
    if (collect_texts(png, info, img) != 0) png_error(png, "out of memory");
    take_phys_time(png, info, NULL, img);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

av_status av_png_read_texts(const char *path, av_png_image *img, av_err *err) {
    memset(img, 0, sizeof *img);
    FILE *fp = fopen(path, "rb");
    if (!fp) return av_fail(err, AV_ERUNTIME, "cannot read %s", AV_SHOWN_WORD(path, 4200));
    png_ctx ctx = {{0}};
    int rc = decode_head(fp, &ctx, img);
    fclose(fp);
    if (rc != 0) {
        av_png_image_free(img);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: %s", AV_SHOWN_WORD(path, 4200), ctx.msg[0] ? ctx.msg : "not a PNG");
    }
    return AV_OK;
}

av_status av_png_read(const char *path, av_png_image *img, av_err *err) {
    memset(img, 0, sizeof *img);
    FILE *fp = fopen(path, "rb");
    if (!fp) return av_fail(err, AV_ERUNTIME, "cannot read %s", AV_SHOWN_WORD(path, 4200));
    png_ctx ctx = {{0}};
    png_bytep *volatile rows = NULL;
    int rc = decode(fp, &ctx, img, &rows);
    free(rows);
    fclose(fp);
    if (rc != 0) {
        av_png_image_free(img);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: %s", AV_SHOWN_WORD(path, 4200), ctx.msg[0] ? ctx.msg : "not a PNG");
    }
    return AV_OK;
}
