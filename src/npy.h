/* npy.h - read and write NumPy .npy files (format 1.0), float32 little-endian,
 * C order. This is the data contract with numpy and PyTorch users:
 *   np.load("Q.npy")  -> float32 array of the shape written.
 *
 * Writing goes through fileio's atomic writer (temporary name, then rename).
 * Reading is strict: magic, version (1.0, 2.0 and 3.0 headers are parsed),
 * header dict ('descr', 'fortran_order', 'shape'), dtype '<f4' (also '<f8',
 * converted to float32), fortran_order False, a shape matching what the caller
 * expects, a data length matching the shape exactly (no truncation, no
 * trailing bytes), and every value finite.
 *
 * Non-goals: object arrays, structured dtypes, .npz archives.
 */
#ifndef AV_NPY_H
#define AV_NPY_H

#include <stddef.h>

#include "common.h"

#define AV_NPY_MAX_NDIM 4

/* Write data (shape[0] x ... x shape[ndim-1] floats, C order) to path atomically.
 * Errors: AV_ERUNTIME naming path on any I/O failure; the old file survives. */
av_status av_npy_write(const char *path, const float *data, int ndim, const size_t *shape, av_err *err);

/* Write a uint8 boolean array ('|b1') e.g. a mask, same contract as above. */
av_status av_npy_write_bool(const char *path, const unsigned char *data, int ndim, const size_t *shape, av_err *err);

/* Parsed array. data is float32 (converted from f8 when needed) or, for bool
 * or u1 files, 0/1 bytes in `bytes`. */
typedef struct {
    int ndim;
    size_t shape[AV_NPY_MAX_NDIM];
    char descr[16];       /* as found in the header, e.g. "<f4" */
    float *data;          /* float arrays, else NULL */
    unsigned char *bytes; /* '|b1' / '|u1' arrays, else NULL */
} av_npy;

/* Parse an in-memory .npy image (used by the fuzz target). Errors are AV_EUSAGE
 * with a message naming `name` and what is wrong: "bad magic", "truncated
 * data: header says (4, 8) = 128 bytes, file has 100", "dtype '>i8' is not
 * supported (want '<f4')", "fortran_order True is not supported", "value NaN at
 * index 5". On success the caller frees with av_npy_free. */
av_status av_npy_parse(av_npy *out, const unsigned char *buf, size_t len, const char *name, av_err *err);

/* Read path and parse it (file read errors are AV_ERUNTIME). */
av_status av_npy_read(av_npy *out, const char *path, av_err *err);

/* Check that a parsed array is float and has exactly the expected shape.
 * Errors: AV_EUSAGE "W_Q.npy has shape (4, 8), expected (8, 8)". */
av_status av_npy_expect_shape(const av_npy *a, const char *name, int ndim, const size_t *shape, av_err *err);

void av_npy_free(av_npy *a);

#endif
