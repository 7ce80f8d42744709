/* npy.h - read and write NumPy .npy files (format 1.0), float32 little-endian,
 * C order. This is the data contract with numpy and PyTorch users:
 *   np.load("Q.npy")  -> float32 array of the shape written.
 *
 * Writing goes through fileio's atomic writer (temporary name, then rename).
 * Reading is strict: magic, version (1.0, 2.0 and 3.0 headers are parsed),
 * header dict ('descr', 'fortran_order', 'shape'), dtype '<f4' (also '<f8',
 * converted to float32), either order (a 'fortran_order': True file, which
 * np.save writes for a transposed array such as w.T, is read into the same
 * C-order array np.load gives), a shape matching what the caller expects, a data length matching the shape exactly (no truncation, no
 * trailing bytes), and every value finite.
 *
 * Writing produces exactly the bytes np.save (numpy 1.24) writes for the same
 * float32 or bool array: header "{'descr': '<f4', 'fortran_order': False,
 * 'shape': (4, 8), }" padded with spaces to a 64-byte boundary, then the data
 * as little-endian float32 whatever the host's byte order.
 *
 * Reading limits: at most AV_NPY_MAX_NDIM dimensions, each at most 1<<24, a
 * header of at most 64 KiB, a file of at most 256 MiB + 64 KiB (a 4096 x 4096
 * float64 matrix is 128 MiB; av_npy_read_max takes a smaller one). Every
 * message starts with the file name.
 *
 * Non-goals: object arrays, structured dtypes, big-endian or integer dtypes
 * other than '|u1', .npz archives, memory mapping.
 */
#ifndef AV_NPY_H
#define AV_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "base/common.h"

#define AV_NPY_MAX_NDIM 4
/* Largest .npy file av_npy_read loads, in bytes: 256 MiB of data (a 4096 x
 * 4096 float64 weight matrix is 128 MiB; twice that), the longest header
 * (64 KiB) and 16 bytes of prefix. A (T, T) bool --attn-mask, np.save's
 * 128-byte header and T·T bytes, fits up to T = 16385. */
#define AV_NPY_MAX_FILE ((size_t)256 * 1024 * 1024 + 65536 + 16)

/* Write data (shape[0] x ... x shape[ndim-1] floats, C order, e.g. W_Q as
 * (C, C) or attention weights as (H, T, T)) to path atomically as '<f4'.
 * ndim is 0..AV_NPY_MAX_NDIM (0 = a scalar, one float); a 0 dimension writes
 * an empty array. Errors: AV_ERUNTIME naming path on any I/O failure (the old
 * file survives, no temporary is left); AV_EUSAGE for ndim out of range or a
 * shape whose size overflows. */
av_status av_npy_write(const char *path, const float *data, int ndim, const size_t *shape, av_err *err);

/* Write a boolean array ('|b1'), e.g. a (T, T) causal mask with 1 = masked.
 * Any nonzero byte is written as 1. Same contract and errors as above. */
av_status av_npy_write_bool(const char *path, const unsigned char *data, int ndim, const size_t *shape, av_err *err);

/* Write an int32 array ('<i4'), e.g. the (T,) token ids of a --model run.
 * Same contract and errors as av_npy_write. (Reading '<i4' is not supported.) */
av_status av_npy_write_i32(const char *path, const int32_t *data, int ndim, const size_t *shape, av_err *err);

/* Parsed array, C order (also from a Fortran-order file). Exactly one of
 * data/bytes is set after a successful parse (even for an empty array), both
 * are NULL after a failed one. */
typedef struct {
    int ndim;                      /* 0..AV_NPY_MAX_NDIM */
    size_t shape[AV_NPY_MAX_NDIM]; /* shape[0..ndim-1], each <= 1<<24 */
    char descr[16];                /* as found in the header: "<f4", "<f8", "|b1" or "|u1" */
    float *data;                   /* '<f4' / '<f8' (converted), all finite; else NULL */
    unsigned char *bytes;          /* '|b1' (0 or 1) / '|u1' (raw 0..255); else NULL */
    /* '<f8' values that are not 0 but that float32 rounds to 0 (|v| <= 2^-150 ≈ 7.0e-46), which data holds as 0
     * (as numpy's a.astype(np.float32)): how many, and the first in C order, its index and float64 value */
    size_t flushed, flushed_at;
    double flushed_value;
} av_npy;

/* Parse an in-memory .npy image of len bytes (buf is not modified and need
 * not be NUL-terminated; it is fuzzed by tests/fuzz/fuzz_npy.c). Header
 * versions 1.0 (2-byte length), 2.0 and 3.0 (4-byte length); the dict may use
 * either quote, any key order, a trailing comma, "()" for 0-d and "(5,)" for
 * 1-d. `name` (e.g. "W_Q.npy") starts every message. Errors, all AV_EUSAGE
 * except out-of-memory (AV_ERUNTIME):
 *   "W_Q.npy: not a .npy file (bad magic; ...)", "W_Q.npy: truncated header ...",
 *   "W_Q.npy: .npy format version 4.0 is not supported ...",
 *   "W_Q.npy: truncated header: header length 255 points past the end of the file (71 bytes)",
 *   "W_Q.npy: malformed .npy header: <what> at byte N of the header dict",
 *   "W_Q.npy: dtype '<c8' is not supported (this reader takes float32 '<f4', float64 '<f8',
 *   bool '|b1', uint8 '|u1')" (no advice on which: the caller knows what it needs), with, for a
 *   real-number dtype numpy writes, how to save it as float32: "...; it is float16: save it as
 *   float32, np.save(path, a.astype(np.float32))" ('<f2', '<i8', '<i4', '|i1', '<u2', ...), "...;
 *   it is big-endian float16: save it as little-endian float32, np.save(path, a.astype('<f4'))"
 *   ('>f2', '>i8'), "...; it is big-endian: save it little-endian, np.save(path, a.astype('<f4'))" (or '<f8')
 *   ('>f4', '>f8'): a caller reading something else (a bool mask) cuts the message at " (this",
 *   "W_Q.npy: shape dimension 99999999999 is larger than the 16777216 limit",
 *   "W_Q.npy: shape (...) is too large (its size overflows)",
 *   "W_Q.npy: truncated: header says shape (4, 8) = 128 bytes of data, file has 100",
 *   "W_Q.npy: 4 trailing bytes: header says shape (4, 8) = 128 bytes of data, file has 132",
 *   "W_Q.npy contains NaN at index 5 (row 0, column 5); every value must be finite"
 *   (the first bad value in C order, whatever the file's order; also +Inf, -Inf,
 *   and '<f8' values beyond float32's range: "value 1e+300 at ... does not fit in float32"),
 *   "W_Q.npy: bool value 2 at index 2 (row 1, column 0) is not 0 or 1".
 * No allocation larger than 2 x len happens. *out is zeroed first; on success
 * the caller frees with av_npy_free (calling it after a failure is harmless). */
av_status av_npy_parse(av_npy *out, const unsigned char *buf, size_t len, const char *name, av_err *err);

/* The note for an array whose '<f8' data had values float32 stores as 0 (a->flushed > 0), into buf[n] (always
 * NUL-terminated; "" when a->flushed is 0), name first as in av_npy_parse's messages: "w/X.npy: 24 nonzero
 * float64 values are read as 0: float32 rounds |v| <= 2^-150 = 7.0e-46, half its smallest subnormal 1.4e-45,
 * to 0, as numpy's a.astype(np.float32) does; the first is 1e-300 at index 0 (row 0, column 0)" (index and
 * position as the errors name them). Values that float32 keeps as subnormals lose digits but are no note. The
 * caller prints it as an
 * "attnviz: note: " line: numpy flushes them too, so they are no error, but a file of them reads as all 0. */
void av_npy_flushed_note(const av_npy *a, const char *name, char *buf, size_t n);

/* Read path (see av_read_file) and parse it, naming path in messages. File
 * errors are AV_ERUNTIME ("cannot read 'W_Q.npy': No such file or directory"),
 * a file over the size limit and content errors are AV_EUSAGE. */
av_status av_npy_read(av_npy *out, const char *path, av_err *err);

/* av_npy_read for an array of at most max_data bytes of data, e.g. a (T, T)
 * --attn-mask: only the longest prefix and header (12 + 65536 bytes) plus
 * max_data bytes are read, and a longer input is refused after them,
 * AV_EUSAGE "input file 'mask.npy' is larger than the 65620-byte limit", so an
 * endless one (/dev/zero, a pipe whose writer never closes it) is not read
 * up to av_npy_read's 256 MiB. A max_data past that limit keeps the limit. */
av_status av_npy_read_max(av_npy *out, const char *path, size_t max_data, av_err *err);

/* Check that a parsed array is float and has exactly the expected shape
 * shape[0..ndim-1]. Errors: AV_EUSAGE "W_Q.npy has shape (4, 8); expected
 * (8, 8)" or "mask.npy has dtype '|b1'; expected float32 ('<f4')". */
av_status av_npy_expect_shape(const av_npy *a, const char *name, int ndim, const size_t *shape, av_err *err);

/* Free data/bytes and zero *a; safe on a zeroed array, twice, or with NULL. */
void av_npy_free(av_npy *a);

#endif
