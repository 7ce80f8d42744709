/* npy.c - NumPy .npy writer (format 1.0, byte-identical to numpy's np.save)
 * and a strict reader that is safe on arbitrary bytes (it is fuzzed by
 * tests/fuzz/fuzz_npy.c).
 *
 * File layout (numpy.lib.format, NEP 1):
 *   "\x93NUMPY" major minor  hlen  header-dict  data
 *   6 bytes     1     1      2 (v1.0) or 4 (v2.0, v3.0) bytes, little-endian
 * The header dict is a Python literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), }
 * padded with spaces and ended by '\n' so that data starts on a 64-byte
 * boundary. Data is the array in C order, or in Fortran order (first axis
 * fastest) when the dict says 'fortran_order': True (np.save of a transposed
 * array, w.T), nothing after it. The reader returns C order either way.
 *
 * Non-goals: a general Python literal parser, byte-swapped or integer dtypes,
 * .npz archives, memory mapping.
 */
#include "io/npy.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"

/* The dtypes av_npy_parse reads; each caller says which of them it needs. */
#define NPY_DTYPES "this reader takes float32 '<f4', float64 '<f8', bool '|b1', uint8 '|u1'"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64             /* numpy's ARRAY_ALIGN */
#define NPY_GROWTH_DIGITS 21     /* numpy's GROWTH_AXIS_MAX_DIGITS */
#define NPY_MAX_HEADER 65536u    /* longer headers are rejected before parsing */
#define NPY_MAX_DIM (1u << 24)   /* largest single dimension accepted */
/* Largest .npy file av_npy_read loads (npy.h): a 4096 x 4096 float64 weight
 * matrix is 128 MiB; allow twice that plus the header. */
#define NPY_MAX_FILE AV_NPY_MAX_FILE

/* ------------------------------------------------------------------------- */
/* shared helpers */

/* "(5,)", "()", "(4, 8)" - the shape as Python prints a tuple. */
static void fmt_shape(char *buf, size_t cap, int ndim, const size_t *shape) {
    size_t n = 0;
    int k = snprintf(buf, cap, "(");
    n = k > 0 ? (size_t)k : 0;
    for (int i = 0; i < ndim && n < cap; i++) {
        k = snprintf(buf + n, cap - n, i ? ", %zu" : "%zu", shape[i]);
        if (k > 0) n += (size_t)k;
    }
    if (n < cap) snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
}

static const char *name_or_default(const char *name) { return name && name[0] ? name : "<npy>"; }

/* ------------------------------------------------------------------------- */
/* writer */

/* Build the full header (magic .. '\n') as numpy 1.24 writes it for a C-order
 * array of the given descr and shape. Returns its length, 0 if it does not fit. */
static size_t build_header(unsigned char *out, size_t cap, const char *descr, int ndim, const size_t *shape) {
    char dict[512], shp[256];
    fmt_shape(shp, sizeof shp, ndim, shape);
    int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shp);
    if (k < 0 || (size_t)k >= sizeof dict) return 0;
    size_t dlen = (size_t)k;
    /* numpy leaves room to grow axis 0 in place: 21 - len(repr(shape[0])) spaces. */
    if (ndim > 0) {
        char d0[32];
        int w = snprintf(d0, sizeof d0, "%zu", shape[0]);
        size_t spare = w < NPY_GROWTH_DIGITS ? (size_t)(NPY_GROWTH_DIGITS - w) : 0;
        if (dlen + spare >= sizeof dict) return 0;
        memset(dict + dlen, ' ', spare);
        dlen += spare;
    }
    /* hlen counts the dict, the padding and the final '\n'; padlen is never 0
     * (numpy: ARRAY_ALIGN - (10 + hlen) % ARRAY_ALIGN). */
    size_t hlen = dlen + 1;
    size_t padlen = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + 2 + hlen) % NPY_ALIGN;
    size_t total = NPY_MAGIC_LEN + 2 + 2 + hlen + padlen;
    if (total > cap || hlen + padlen > 0xffff) return 0;
    memcpy(out, NPY_MAGIC, NPY_MAGIC_LEN);
    out[6] = 1; /* version 1.0 */
    out[7] = 0;
    out[8] = (unsigned char)((hlen + padlen) & 0xff);
    out[9] = (unsigned char)((hlen + padlen) >> 8);
    memcpy(out + 10, dict, dlen);
    memset(out + 10 + dlen, ' ', padlen);
    out[total - 1] = '\n';
    return total;
}

/* Write header + data (n elements of `kind` 'f' = float32, 'b' = bool). */
static av_status write_npy(const char *path, const void *data, char kind, int ndim, const size_t *shape,
                           av_err *err) {
    if (ndim < 0 || ndim > AV_NPY_MAX_NDIM)
        return av_fail(err, AV_EUSAGE, "cannot write %s: %d dimensions (at most %d)", AV_SHOWN_WORD(path, 4200), ndim, AV_NPY_MAX_NDIM);
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (av_mul_size(&n, n, shape[i]) != 0)
            return av_fail(err, AV_EUSAGE, "cannot write %s: shape is too large", AV_SHOWN_WORD(path, 4200));
    if (n > 0 && !data) return av_fail(err, AV_EUSAGE, "cannot write %s: no data", AV_SHOWN_WORD(path, 4200));

    unsigned char head[1024];
    size_t hl = build_header(head, sizeof head, kind == 'f' ? "<f4" : kind == 'i' ? "<i4" : "|b1", ndim, shape);
    if (hl == 0) return av_fail(err, AV_EUSAGE, "cannot write %s: header does not fit", AV_SHOWN_WORD(path, 4200));

    av_afile f;
    av_status s = av_afile_open(&f, path, err);
    if (s) return s;
    av_afile_write(&f, head, hl);
    /* Convert in chunks to explicit little-endian bytes so a big-endian host
     * writes the same file. Write errors are collected by ferror in commit. */
    unsigned char chunk[4096];
    size_t fill = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind == 'f' || kind == 'i') { /* float32 or int32: 4 bytes, little-endian */
            uint32_t u;
            memcpy(&u, (const char *)data + 4 * i, 4);
            chunk[fill++] = (unsigned char)(u & 0xff);
            chunk[fill++] = (unsigned char)((u >> 8) & 0xff);
            chunk[fill++] = (unsigned char)((u >> 16) & 0xff);
            chunk[fill++] = (unsigned char)(u >> 24);
        } else {
            chunk[fill++] = ((const unsigned char *)data)[i] ? 1 : 0;
        }
        if (fill + 4 > sizeof chunk) {
            av_afile_write(&f, chunk, fill);
            fill = 0;
        }
    }
    if (fill) av_afile_write(&f, chunk, fill);
    return av_afile_commit(&f, err);
}

av_status av_npy_write(const char *path, const float *data, int ndim, const size_t *shape, av_err *err) {
    return write_npy(path, data, 'f', ndim, shape, err);
}

av_status av_npy_write_bool(const char *path, const unsigned char *data, int ndim, const size_t *shape,
                            av_err *err) {
    return write_npy(path, data, 'b', ndim, shape, err);
}

av_status av_npy_write_i32(const char *path, const int32_t *data, int ndim, const size_t *shape, av_err *err) {
    return write_npy(path, data, 'i', ndim, shape, err);
}

/* ------------------------------------------------------------------------- */
/* header dict parser: a bounded cursor over the header bytes */

typedef struct {
    const unsigned char *p, *end, *start;
    const char *name; /* file name for messages */
    av_err *err;
} cursor;

static void skip_ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static av_status syntax(cursor *c, const char *what) {
    return av_fail(c->err, AV_EUSAGE, "%s: malformed .npy header: %s at byte %zu of the header dict", c->name, what,
                   (size_t)(c->p - c->start));
}

/* A Python string literal in ' or " quotes, no escapes, at most cap-1 bytes,
 * printable ASCII. */
static av_status parse_string(cursor *c, char *out, size_t cap) {
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return syntax(c, "expected a quoted string");
    unsigned char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        unsigned char ch = *c->p;
        if (ch == '\\' || ch < 0x20 || ch > 0x7e) return syntax(c, "unsupported character in a string");
        if (n + 1 >= cap) return syntax(c, "string is too long");
        out[n++] = (char)ch;
        c->p++;
    }
    if (c->p >= c->end) return syntax(c, "unterminated string");
    c->p++; /* closing quote */
    out[n] = 0;
    return AV_OK;
}

static int match_word(cursor *c, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return 0;
    /* the word must end here: "Falsely" is not False */
    if ((size_t)(c->end - c->p) > n) {
        unsigned char nx = c->p[n];
        if ((nx >= 'a' && nx <= 'z') || (nx >= 'A' && nx <= 'Z') || (nx >= '0' && nx <= '9') || nx == '_') return 0;
    }
    c->p += n;
    return 1;
}

/* "(4, 8)", "(5,)", "()" and numpy's older "(4L, 8L)". Dimensions above
 * NPY_MAX_DIM and more than AV_NPY_MAX_NDIM of them are rejected here. */
static av_status parse_shape(cursor *c, int *ndim, size_t *shape) {
    if (c->p >= c->end || *c->p != '(') {
        if (c->p < c->end && *c->p == '[') return syntax(c, "shape must be a tuple like (4, 8), not a list");
        return syntax(c, "expected a shape tuple like (4, 8)");
    }
    c->p++;
    int n = 0, trailing_comma = 0;
    skip_ws(c);
    while (c->p < c->end && *c->p != ')') {
        if (*c->p == '-')
            return av_fail(c->err, AV_EUSAGE, "%s: shape has a negative dimension", c->name);
        if (*c->p < '0' || *c->p > '9') return syntax(c, "expected a dimension (a whole number)");
        const unsigned char *digits = c->p;
        uint64_t v = 0;
        int big = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (!big) {
                v = v * 10 + (uint64_t)(*c->p - '0');
                if (v > NPY_MAX_DIM) big = 1;
            }
            c->p++;
        }
        if (c->p - digits > 1 && digits[0] == '0') return syntax(c, "dimension with a leading zero");
        if (big) {
            size_t nd = (size_t)(c->p - digits);
            return av_fail(c->err, AV_EUSAGE, "%s: shape dimension %.*s%s is larger than the %u limit", c->name,
                           (int)(nd > 40 ? 40 : nd), (const char *)digits, nd > 40 ? "..." : "", NPY_MAX_DIM);
        }
        if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 long suffix */
        if (n == AV_NPY_MAX_NDIM)
            return av_fail(c->err, AV_EUSAGE, "%s: array has more than %d dimensions; at most %d are supported",
                           c->name, AV_NPY_MAX_NDIM, AV_NPY_MAX_NDIM);
        shape[n++] = (size_t)v;
        skip_ws(c);
        trailing_comma = 0;
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            trailing_comma = 1;
            skip_ws(c);
        } else if (c->p < c->end && *c->p != ')') {
            return syntax(c, "expected ',' or ')' in the shape");
        }
    }
    if (c->p >= c->end) return syntax(c, "unterminated shape tuple");
    /* Python: "(5)" is the integer 5, not a tuple. */
    if (n == 1 && !trailing_comma) return syntax(c, "a 1-D shape needs a trailing comma, like (5,)");
    c->p++; /* ')' */
    *ndim = n;
    return AV_OK;
}

typedef struct {
    char descr[16];
    int fortran;
    int ndim;
    size_t shape[AV_NPY_MAX_NDIM];
} header_info;

/* {'descr': ..., 'fortran_order': ..., 'shape': ...} with keys in any order,
 * each exactly once, optional trailing comma, then only whitespace. */
static av_status parse_dict(cursor *c, header_info *h) {
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
    av_status s;
    skip_ws(c);
    if (c->p >= c->end || *c->p != '{') return syntax(c, "expected '{'");
    c->p++;
    skip_ws(c);
    while (c->p < c->end && *c->p != '}') {
        char key[32];
        if ((s = parse_string(c, key, sizeof key))) return s;
        skip_ws(c);
        if (c->p >= c->end || *c->p != ':') return syntax(c, "expected ':' after a key");
        c->p++;
        skip_ws(c);
        if (strcmp(key, "descr") == 0) {
            if (seen_descr++) return syntax(c, "key 'descr' appears twice");
            if (c->p < c->end && *c->p == '[')
                return av_fail(c->err, AV_EUSAGE,
                               "%s: structured dtypes are not supported (" NPY_DTYPES ")", c->name);
            if ((s = parse_string(c, h->descr, sizeof h->descr))) return s;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (seen_fortran++) return syntax(c, "key 'fortran_order' appears twice");
            if (match_word(c, "True")) h->fortran = 1;
            else if (match_word(c, "False")) h->fortran = 0;
            else return syntax(c, "fortran_order must be True or False");
        } else if (strcmp(key, "shape") == 0) {
            if (seen_shape++) return syntax(c, "key 'shape' appears twice");
            if ((s = parse_shape(c, &h->ndim, h->shape))) return s;
        } else {
            return av_fail(c->err, AV_EUSAGE, "%s: unexpected key '%s' in the .npy header", c->name, key);
        }
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            skip_ws(c);
        } else if (c->p < c->end && *c->p != '}') {
            return syntax(c, "expected ',' or '}'");
        }
    }
    if (c->p >= c->end) return syntax(c, "unterminated dict (no '}')");
    c->p++;
    skip_ws(c);
    if (c->p != c->end) return syntax(c, "unexpected text after the dict");
    if (!seen_descr || !seen_fortran || !seen_shape)
        return av_fail(c->err, AV_EUSAGE, "%s: .npy header lacks the key '%s'", c->name,
                       !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
    return AV_OK;
}

/* ------------------------------------------------------------------------- */
/* reader */

static uint32_t le32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le64(const unsigned char *b) { return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32; }

/* Name the element at flat index i: "index 5 (row 0, column 5)" for 2-D,
 * "index 5 (position [0, 1, 1])" for 3-D and 4-D, "index 5" otherwise. */
static void fmt_index(char *buf, size_t cap, size_t i, int ndim, const size_t *shape) {
    int k = snprintf(buf, cap, "index %zu", i);
    size_t n = k > 0 ? (size_t)k : 0;
    if (ndim < 2 || n >= cap) return;
    size_t idx[AV_NPY_MAX_NDIM], rest = i;
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = shape[d] ? rest % shape[d] : 0;
        rest = shape[d] ? rest / shape[d] : 0;
    }
    if (ndim == 2) {
        snprintf(buf + n, cap - n, " (row %zu, column %zu)", idx[0], idx[1]);
        return;
    }
    char pos[128];
    size_t m = 0;
    for (int d = 0; d < ndim && m < sizeof pos; d++) {
        k = snprintf(pos + m, sizeof pos - m, d ? ", %zu" : "%zu", idx[d]);
        if (k > 0) m += (size_t)k;
    }
    snprintf(buf + n, cap - n, " (position [%s])", pos);
}

static av_status not_finite(av_err *err, const char *name, double v, size_t i, int ndim, const size_t *shape) {
    char where[192];
    fmt_index(where, sizeof where, i, ndim, shape);
    const char *what = isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
    return av_fail(err, AV_EUSAGE, "%s contains %s at %s; every value must be finite", name, what, where);
}

/* Steps 1-2: magic, version and header length, checked against len.
 * *prefix = bytes before the header dict, *hlen = its length. */
static av_status read_prefix(const unsigned char *buf, size_t len, const char *name, size_t *prefix, uint32_t *hlen,
                             av_err *err) {
    /* 1. magic and version; an empty file, or the start of the magic only, is said so: `: > m.npy` was "not a .npy
     * file (bad magic ...)" (an option-combination pass) */
    if (len == 0) return av_fail(err, AV_EUSAGE, "%s: empty (0 bytes); a .npy file starts with \\x93NUMPY", name);
    if (len < NPY_MAGIC_LEN && memcmp(buf, NPY_MAGIC, len) == 0)
        return av_fail(err, AV_EUSAGE, "%s: truncated (%zu byte%s, inside the \\x93NUMPY magic)", name, len,
                       len == 1 ? "" : "s");
    if (len < NPY_MAGIC_LEN || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return av_fail(err, AV_EUSAGE, "%s: not a .npy file (bad magic; expected \\x93NUMPY at the start)", name);
    if (len < 8) return av_fail(err, AV_EUSAGE, "%s: truncated header (%zu bytes, no version)", name, len);
    unsigned major = buf[6], minor = buf[7];
    size_t lenbytes;
    if (major == 1 && minor == 0) lenbytes = 2;
    else if ((major == 2 || major == 3) && minor == 0) lenbytes = 4;
    else
        return av_fail(err, AV_EUSAGE, "%s: .npy format version %u.%u is not supported (want 1.0, 2.0 or 3.0)", name,
                       major, minor);
    *prefix = 8 + lenbytes;
    if (len < *prefix)
        return av_fail(err, AV_EUSAGE, "%s: truncated header (%zu bytes, the header length needs %zu)", name, len,
                       *prefix);

    /* 2. header length: sane and inside the buffer */
    *hlen = lenbytes == 2 ? (uint32_t)buf[8] | (uint32_t)buf[9] << 8 : le32(buf + 8);
    if (*hlen > NPY_MAX_HEADER)
        return av_fail(err, AV_EUSAGE, "%s: header length %lu is larger than the %u-byte limit", name,
                       (unsigned long)*hlen, NPY_MAX_HEADER);
    if (*hlen > len - *prefix)
        return av_fail(err, AV_EUSAGE,
                       "%s: truncated header: header length %lu points past the end of the file (%zu bytes)", name,
                       (unsigned long)*hlen, len);
    return AV_OK;
}

/* Step 4: the element count of h's shape, and the data length (count x item
 * bytes) must equal have exactly. */
static av_status check_data_length(const header_info *h, size_t item, size_t have, const char *name, size_t *count,
                                   av_err *err) {
    char shp[160];
    fmt_shape(shp, sizeof shp, h->ndim, h->shape);
    size_t n = 1, need = 0;
    for (int i = 0; i < h->ndim; i++)
        if (h->shape[i] == 0) n = 0; /* (0, big, big, big) is empty, not an overflow */
    for (int i = 0; i < h->ndim && n; i++)
        if (av_mul_size(&n, n, h->shape[i]) != 0)
            return av_fail(err, AV_EUSAGE, "%s: shape %s is too large (its size overflows)", name, shp);
    if (av_mul_size(&need, n, item) != 0)
        return av_fail(err, AV_EUSAGE, "%s: shape %s is too large (its size overflows)", name, shp);
    if (have < need)
        return av_fail(err, AV_EUSAGE, "%s: truncated: header says shape %s = %zu bytes of data, file has %zu", name,
                       shp, need, have);
    if (have > need)
        return av_fail(err, AV_EUSAGE,
                       "%s: %zu trailing byte%s: header says shape %s = %zu bytes of data, file has %zu", name,
                       have - need, have - need == 1 ? "" : "s", shp, need, have);
    *count = n;
    return AV_OK;
}

/* Where the value at position i of the file's data goes in the C-order
 * array: i itself, or for a Fortran-order file (first axis fastest) the
 * C-order flat index of the same element, as np.load places it. */
static size_t c_index(size_t i, const header_info *h) {
    if (!h->fortran || h->ndim < 2) return i;
    size_t j = 0, rest = i, stride = 1;
    size_t cstride[AV_NPY_MAX_NDIM];
    for (int d = h->ndim - 1; d >= 0; d--) {
        cstride[d] = stride;
        stride *= h->shape[d];
    }
    for (int d = 0; d < h->ndim; d++) {
        j += (rest % h->shape[d]) * cstride[d];
        rest /= h->shape[d];
    }
    return j;
}

/* Step 5 for '|b1' / '|u1': copy count bytes (into C order); a bool must be
 * 0 or 1. The bad value reported is the first in C order, whatever the
 * file's order. */
static av_status convert_bytes(av_npy *out, const unsigned char *d, size_t count, const header_info *h,
                               const char *name, av_err *err) {
    out->bytes = malloc(count ? count : 1);
    if (!out->bytes) return av_fail(err, AV_ERUNTIME, "%s: out of memory", name);
    size_t bad = SIZE_MAX;
    unsigned bad_v = 0;
    for (size_t i = 0; i < count; i++) {
        size_t j = c_index(i, h);
        if (h->descr[1] == 'b' && d[i] > 1 && j < bad) {
            bad = j;
            bad_v = d[i];
            if (!h->fortran) break;
        }
        out->bytes[j] = d[i];
    }
    if (bad != SIZE_MAX) {
        char where[192];
        fmt_index(where, sizeof where, bad, h->ndim, h->shape);
        free(out->bytes);
        out->bytes = NULL;
        return av_fail(err, AV_EUSAGE, "%s: bool value %u at %s is not 0 or 1", name, bad_v, where);
    }
    return AV_OK;
}

/* Step 5 for '<f4' / '<f8' (item 4 or 8 bytes): little-endian values to
 * float32 in C order; each must be finite and, from float64, fit in float32.
 * The bad value reported is the first in C order, whatever the file's order.
 * Nonzero float64 values that float32 rounds to 0 are counted in out->flushed
 * (the first in C order in flushed_at and flushed_value) for the caller's note
 * (av_npy_flushed_note): X.npy of 1e-300s read as all zeros, silently. */
static av_status convert_floats(av_npy *out, const unsigned char *d, size_t count, size_t item,
                                const header_info *h, const char *name, av_err *err) {
    float *f = malloc(count ? count * sizeof(float) : 1);
    if (!f) return av_fail(err, AV_ERUNTIME, "%s: out of memory", name);
    size_t bad = SIZE_MAX;
    double bad_v = 0;
    for (size_t i = 0; i < count; i++) {
        double v;
        if (item == 4) {
            uint32_t u = le32(d + 4 * i);
            float x;
            memcpy(&x, &u, 4);
            v = x;
        } else {
            uint64_t u = le64(d + 8 * i);
            memcpy(&v, &u, 8);
        }
        size_t j = c_index(i, h);
        if (!isfinite(v) || fabs(v) > (double)FLT_MAX) {
            if (j < bad) {
                bad = j;
                bad_v = v;
            }
            if (!h->fortran) break;
            continue;
        }
        f[j] = (float)v;
        if (f[j] == 0.0f && v != 0.0 && (!out->flushed++ || j < out->flushed_at)) {
            out->flushed_at = j;
            out->flushed_value = v;
        }
    }
    if (bad == SIZE_MAX) {
        out->data = f;
        return AV_OK;
    }
    free(f);
    out->flushed = 0;
    if (!isfinite(bad_v)) return not_finite(err, name, bad_v, bad, h->ndim, h->shape);
    char where[192];
    fmt_index(where, sizeof where, bad, h->ndim, h->shape);
    return av_fail(err, AV_EUSAGE, "%s: value %g at %s does not fit in float32", name, bad_v, where);
}

void av_npy_flushed_note(const av_npy *a, const char *name, char *buf, size_t n) {
    if (!n) return;
    buf[0] = 0;
    if (!a->flushed) return;
    char where[192];
    fmt_index(where, sizeof where, a->flushed_at, a->ndim, a->shape);
    snprintf(buf, n, "%s: %zu nonzero float64 value%s read as 0: float32 rounds |v| <= 2^-150 = 7.0e-46, half its "
             "smallest subnormal 1.4e-45, to 0, as numpy's a.astype(np.float32) does; the first is %g at %s",
             name_or_default(name), a->flushed, a->flushed == 1 ? " is" : "s are", a->flushed_value, where);
}

/* "; it is float16: save it as float32, np.save(path, a.astype(np.float32))"
 * for a real-number descr the reader does not take (numpy's float16 '<f2',
 * from torch's .half(), and longdouble '<f16'; the integers '<i8', '<i4', ...
 * '|i1' and '<u2' ... '<u8' of np.array of whole numbers), big-endian ones
 * ('>f2', '>i8') saved as '<f4' explicitly; "" for any other (complex '<c8',
 * strings '<U5', objects '|O', datetimes '<M8[s]'), which float32 does not
 * hold. Names as numpy's dtype names (float16 = 'f2', int64 = 'i8', NEP 1).
 * Into out[cap], always NUL-terminated. */
static void dtype_advice(char *out, size_t cap, const char *descr) {
    out[0] = 0;
    char order = descr[0], kind = descr[1];
    if ((order != '<' && order != '>' && order != '|') || !kind || !strchr("fiu", kind)) return;
    char *end = NULL;
    long size = descr[2] >= '1' && descr[2] <= '9' ? strtol(descr + 2, &end, 10) : 0;
    if (!end || *end) return;
    int ok = kind == 'f' ? size == 2 || size == 4 || size == 8 || size == 12 || size == 16
                         : size == 1 || size == 2 || size == 4 || size == 8;
    if (!ok) return;
    const char *name = kind == 'f' ? "float" : kind == 'i' ? "int" : "uint";
    if (order == '>')
        snprintf(out, cap, "; it is big-endian %s%ld: save it as little-endian float32, np.save(path, "
                 "a.astype('<f4'))", name, size * 8);
    else snprintf(out, cap, "; it is %s%ld: save it as float32, np.save(path, a.astype(np.float32))", name, size * 8);
}

av_status av_npy_parse(av_npy *out, const unsigned char *buf, size_t len, const char *name, av_err *err) {
    memset(out, 0, sizeof *out);
    name = name_or_default(name);
    if (!buf) len = 0;
    size_t prefix = 0;
    uint32_t hlen = 0;
    av_status s = read_prefix(buf, len, name, &prefix, &hlen, err);
    if (s) return s;

    /* 3. the dict */
    header_info h;
    memset(&h, 0, sizeof h);
    cursor c = {buf + prefix, buf + prefix + hlen, buf + prefix, name, err};
    if ((s = parse_dict(&c, &h))) return s;
    size_t item;
    if (strcmp(h.descr, "<f4") == 0) item = 4;
    else if (strcmp(h.descr, "<f8") == 0) item = 8;
    else if (strcmp(h.descr, "|b1") == 0 || strcmp(h.descr, "|u1") == 0) item = 1;
    else if (strcmp(h.descr, ">f4") == 0 || strcmp(h.descr, ">f8") == 0) /* numpy saves what it has: a big-endian array as is */
        return av_fail(err, AV_EUSAGE, "%s: dtype '%s' is not supported (" NPY_DTYPES "); it is big-endian: save it "
                       "little-endian, np.save(path, a.astype('<%s'))", name, h.descr, h.descr + 1);
    else {
        char advice[128];
        dtype_advice(advice, sizeof advice, h.descr);
        return av_fail(err, AV_EUSAGE, "%s: dtype '%s' is not supported (" NPY_DTYPES ")%s", name, h.descr, advice);
    }
    /* 4. data length must match the shape exactly; 5. convert */
    size_t count = 0;
    if ((s = check_data_length(&h, item, len - prefix - hlen, name, &count, err))) return s;
    const unsigned char *d = buf + prefix + hlen;
    s = item == 1 ? convert_bytes(out, d, count, &h, name, err) : convert_floats(out, d, count, item, &h, name, err);
    if (s) return s;
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, sizeof h.shape);
    memcpy(out->descr, h.descr, sizeof out->descr);
    return AV_OK;
}

/* Read at most max_file bytes of path (av_read_file) and parse them. */
static av_status read_bounded(av_npy *out, const char *path, size_t max_file, av_err *err) {
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    av_status s = av_read_file(path, max_file, &buf, &len, err);
    if (s) return s;
    char shown[4200]; /* the name in messages as a user's path is shown, one shell word (av_shown_word): an RLO closed */
    av_shown_word(shown, sizeof shown, path);
    s = av_npy_parse(out, (const unsigned char *)buf, len, shown, err);
    free(buf);
    return s;
}

av_status av_npy_read(av_npy *out, const char *path, av_err *err) {
    return read_bounded(out, path, NPY_MAX_FILE, err);
}

av_status av_npy_read_max(av_npy *out, const char *path, size_t max_data, av_err *err) {
    /* the longest prefix (magic, version 2.0's 4-byte length) and header */
    size_t max_file = NPY_MAX_FILE;
    if (max_data < NPY_MAX_FILE - NPY_MAX_HEADER - 12) max_file = NPY_MAGIC_LEN + 2 + 4 + NPY_MAX_HEADER + max_data;
    return read_bounded(out, path, max_file, err);
}

av_status av_npy_expect_shape(const av_npy *a, const char *name, int ndim, const size_t *shape, av_err *err) {
    name = name_or_default(name);
    if (!a->data)
        return av_fail(err, AV_EUSAGE, "%s has dtype '%s'; expected float32 ('<f4')", name, a->descr);
    int same = a->ndim == ndim;
    for (int i = 0; same && i < ndim; i++) same = a->shape[i] == shape[i];
    if (same) return AV_OK;
    char got[160], want[160];
    fmt_shape(got, sizeof got, a->ndim, a->shape);
    if (ndim < 0 || ndim > AV_NPY_MAX_NDIM) snprintf(want, sizeof want, "%d dimensions", ndim);
    else fmt_shape(want, sizeof want, ndim, shape);
    return av_fail(err, AV_EUSAGE, "%s has shape %s; expected %s", name, got, want);
}

void av_npy_free(av_npy *a) {
    if (!a) return;
    free(a->data);
    free(a->bytes);
    memset(a, 0, sizeof *a);
}
