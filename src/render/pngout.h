/* pngout.h - RGB8 buffer → PNG file (atomic), and back for tests.
 *
 * The only module that includes <png.h>; libpng's setjmp error handling stays
 * inside pngout.c. Files are deterministic: no tIME chunk, fixed compression
 * settings (ISA-L igzip level 1, no row filters), text chunks in the order
 * given. The same image gives the same bytes on the same machine; igzip
 * picks its code for the CPU (SSE, AVX2, AVX-512), so another machine may
 * compress differently, into the same pixels. A text value that is pure ASCII
 * or fits Latin-1 is written as tEXt (converted to Latin-1, as the PNG spec
 * requires); anything else (e.g. Chinese tokens in a command line) as an
 * uncompressed iTXt chunk holding the UTF-8 unchanged.
 *
 * Data contract: rgb is (height, width, 3) bytes, top row first, `stride`
 * bytes per row. Text keys are 1-79 Latin-1 characters ("Software", "Title",
 * "Description", ...); values are UTF-8 (NULL values are skipped).
 *
 * Non-goals: alpha, palettes, 16-bit, interlacing, reading anything but the
 * 8-bit images tests need.
 */
#ifndef AV_PNGOUT_H
#define AV_PNGOUT_H

#include <stddef.h>

#include "base/common.h"

typedef struct {
    const char *key;   /* e.g. "Software" */
    const char *value; /* UTF-8; NULL = skip */
} av_png_text;

/* Write a PNG with the given text chunks and a pHYs chunk of `dpi` pixels per
 * inch (<= 0 means 100). Goes through av_afile (temporary name in the target
 * folder, then rename): on any error nothing new is left behind and an older
 * file at path is untouched. Errors: AV_ERUNTIME naming path (folder missing,
 * path is a folder, write error, libpng error); AV_EUSAGE for a path fileio
 * rejects as malformed (empty, ends in '/'). */
av_status av_png_write(const char *path, const unsigned char *rgb, int width, int height, size_t stride,
                       const av_png_text *texts, int n_texts, int dpi, av_err *err);

/* Encode the same PNG into memory (for the SVG back end's embedded images).
 * *out is malloc'd, *len its size; caller frees. Errors: AV_ERUNTIME. */
av_status av_png_encode(unsigned char **out, size_t *len, const unsigned char *rgb, int width, int height,
                        size_t stride, const av_png_text *texts, int n_texts, int dpi, av_err *err);

/* For tests: the size in bytes of the compressor's state (about 300 KiB),
 * and av_png_encode (no text chunks, 100 dpi) with that state at `state`,
 * owned by the caller (av_png_state_size() bytes, 16-byte aligned, contents
 * irrelevant), instead of a set the encoder keeps. The bytes written do not
 * depend on where the state is (see first_bytes_apart in pngout.c). Errors:
 * AV_EUSAGE for a NULL or misaligned state; otherwise av_png_encode's. */
size_t av_png_state_size(void);
av_status av_png_encode_in(void *state, unsigned char **out, size_t *len, const unsigned char *rgb, int width,
                           int height, size_t stride, av_err *err);

/* Get the encoder ready for the next images, so that the first figure of a
 * run does not pay for it: the compressor's buffers (both sets that are
 * kept, about 600 KiB) allocated and their pages faulted in, and a 4 x 4
 * image encoded into memory, which brings libpng's and igzip's code in.
 * Takes about 1 ms on this project's VMs; av_png_batch_begin runs it on the
 * worker thread while the first figure is drawn. Out of memory leaves the
 * encoder as it was (it allocates what it needs on use). */
void av_png_warm(void);

/* A decoded PNG, for tests and tools. */
typedef struct {
    int width, height;
    unsigned char *rgb;   /* (height, width, 3), stride 3 * width; alpha dropped */
    int n_texts;
    char **keys, **values; /* text chunks (tEXt as UTF-8, zTXt, iTXt), in file order */
    double dpi;           /* from pHYs (pixels per metre * 0.0254), 0 if absent */
    int has_time;         /* 1 if a tIME chunk was present */
} av_png_image;

/* Read an 8-bit (or any depth, converted) PNG into img. Caller calls
 * av_png_image_free. Errors: AV_ERUNTIME naming path. */
av_status av_png_read(const char *path, av_png_image *img, av_err *err);
void av_png_image_free(av_png_image *img);

/* Read only the chunks before the image data: width, height, the text
 * chunks (tEXt, zTXt, iTXt), dpi and has_time as av_png_read gives them when
 * they precede IDAT; img->rgb stays NULL. The image is never decoded, so this
 * costs a few kB of reading however large the PNG is. av_png_write puts its
 * text chunks before IDAT, so for its files the texts equal av_png_read's.
 * Text chunks after IDAT (allowed by the spec) are not seen. Caller calls
 * av_png_image_free. Errors: AV_ERUNTIME naming path (missing file, not a
 * PNG, bad CRC or truncation before the first IDAT). Source: the PNG
 * Specification (W3C), "Chunk ordering" (text chunks may come before or
 * after IDAT) and "Textual information" (tEXt, zTXt, iTXt); libpng's
 * png_read_info, which returns at the first IDAT. */
av_status av_png_read_texts(const char *path, av_png_image *img, av_err *err);

/* Value of text chunk key in img, or NULL. */
const char *av_png_image_text(const av_png_image *img, const char *key);

#endif
