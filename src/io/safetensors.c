/* safetensors.c - safetensors reader (mmap, validate, convert to float32) and
 * writer (see safetensors.h for the format and the checks). */
#include "io/safetensors.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "io/jsonval.h"

/* ----------------------------------------------------------------------------
 * dtypes */

static const struct {
    const char *name;
    size_t size;
} kDtypes[] = {
    [AV_ST_F32] = {"F32", 4},  [AV_ST_F16] = {"F16", 2},   [AV_ST_BF16] = {"BF16", 2},
    [AV_ST_F64] = {"F64", 8},  [AV_ST_I64] = {"I64", 8},   [AV_ST_I32] = {"I32", 4},
    [AV_ST_I16] = {"I16", 2},  [AV_ST_I8] = {"I8", 1},     [AV_ST_U8] = {"U8", 1},
    [AV_ST_BOOL] = {"BOOL", 1}, [AV_ST_U16] = {"U16", 2},  [AV_ST_U32] = {"U32", 4},
    [AV_ST_U64] = {"U64", 8},  [AV_ST_F8_E4M3] = {"F8_E4M3", 1}, [AV_ST_F8_E5M2] = {"F8_E5M2", 1},
};
#define N_DTYPES ((int)(sizeof kDtypes / sizeof kDtypes[0]))

const char *av_st_dtype_name(av_st_dtype d) { return (int)d < N_DTYPES ? kDtypes[d].name : "?"; }
const char *av_st_dtypes_name(unsigned mask) {
    static const char *const names[8] = {"?", "F32", "F16", "F32 and F16", "BF16", "F32 and BF16", "F16 and BF16",
                                         "F32, F16 and BF16"}; /* bit 0 F32, bit 1 F16, bit 2 BF16 */
    unsigned m = (mask >> AV_ST_F32 & 1u) | (mask >> AV_ST_F16 & 1u) << 1 | (mask >> AV_ST_BF16 & 1u) << 2;
    return names[m];
}
size_t av_st_dtype_size(av_st_dtype d) { return (int)d < N_DTYPES ? kDtypes[d].size : 1; }

void av_st_shape_str(char *buf, size_t n, const size_t *shape, int ndim) {
    size_t at = 0;
    if (n == 0) return;
    buf[0] = 0;
    for (int d = 0; d < ndim && at < n; d++)
        at += (size_t)snprintf(buf + at, n - at, "%s%zu", d ? ", " : "(", shape[d]);
    if (at < n) snprintf(buf + at, n - at, "%s", ndim == 0 ? "()" : ndim == 1 ? ",)" : ")");
}

static int dtype_from_name(const char *s) {
    for (int i = 0; i < N_DTYPES; i++)
        if (strcmp(s, kDtypes[i].name) == 0) return i;
    return -1;
}

float av_f16_to_f32(uint16_t h) {
    // IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits
    int sign = h >> 15, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    double v;
    if (e == 0) v = ldexp((double)f, -24);                  /* zero or subnormal */
    else if (e == 31) v = f ? NAN : INFINITY;
    else v = ldexp((double)(f | 0x400), e - 25);
    return (float)(sign ? -v : v);
}

uint16_t av_f32_to_f16(float x) {
    // round to nearest even; overflow to ±Inf, NaN to a quiet NaN
    uint32_t sign = signbit(x) ? 0x8000u : 0u;
    double a = fabs((double)x);
    if (isnan(x)) return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);   /* rounds past 65504 */
    if (a < ldexp(1.0, -14)) {                             /* subnormal: units of 2^-24 */
        double q = nearbyint(a * ldexp(1.0, 24));           /* default mode: ties to even */
        return (uint16_t)(sign | (uint32_t)q);
    }
    int e;
    double m = frexp(a, &e);                               /* a = m·2^e, m in [0.5, 1) */
    double q = nearbyint(m * 2048.0);                      /* 11 significant bits */
    if (q == 2048.0) { q = 1024.0; e++; }
    uint32_t ebits = (uint32_t)(e - 1 + 15);
    if (ebits >= 31) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | (ebits << 10) | ((uint32_t)q - 1024u));
}

float av_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t av_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);                       /* round to nearest even */
    return (uint16_t)(u >> 16);
}

/* ----------------------------------------------------------------------------
 * parsing */

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* A JSON number that is a whole number in 0 .. 2^53. */
static int json_size(const cJSON *j, size_t *out) {
    if (!cJSON_IsNumber(j)) return -1;
    double d = j->valuedouble;
    if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d)) return -1;
    *out = (size_t)d;
    return 0;
}

/* A header value as an error names it: the number ("-1", "1.5", "4.6116860184273879e+18") or
 * its JSON kind. */
static const char *json_shown(char *buf, size_t n, const cJSON *j) {
    if (cJSON_IsNumber(j)) snprintf(buf, n, "%.17g", j->valuedouble);
    else snprintf(buf, n, "%s", !j ? "missing" : cJSON_IsString(j) ? "a string" : "not a number");
    return buf;
}

/* A tensor's name from the header as a message quotes it: a long one by its start and end, its controls escaped
 * and its bidi closed (base/utf8.h av_utf8_shown_middle), so a name holding "\n" or U+202E (JSON escapes, which
 * the header may hold) neither breaks nor reverses the message's line ("tensor \"a<U+000A>b\""). */
#define TENSOR_SHOWN(name) AV_SHOWN_MIDDLE(name)

static av_status parse_entry(av_st_tensor *t, const cJSON *e, size_t data_len, const av_safetensors *st,
                             av_err *err) {
    const char *nm = st->name, *tn = TENSOR_SHOWN(t->name);
    if (!cJSON_IsObject(e)) return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": entry is not a JSON object", nm, tn);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsString(dt) || !cJSON_IsArray(sh) || !cJSON_IsArray(off))
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": needs \"dtype\" (string), \"shape\" and \"data_offsets\" (arrays)", nm, tn);
    int d = dtype_from_name(dt->valuestring);
    char dts[48]; /* as JSON spells it, quotes and all (av_json_shown): "%.16s" cut it inside a character and printed a \n raw */
    if (d < 0) av_json_shown(dts, sizeof dts, dt);
    if (d < 0)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": unknown dtype %s (known: F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL, U16, U32, U64, F8_E4M3, F8_E5M2)",
                       nm, tn, dts);
    t->dtype = (av_st_dtype)d;
    int nd = cJSON_GetArraySize(sh);
    if (nd > AV_ST_MAX_NDIM)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": %d dimensions; at most %d", nm, tn, nd, AV_ST_MAX_NDIM);
    t->ndim = nd;
    size_t numel = 1;
    for (int i = 0; i < nd; i++) {
        if (json_size(cJSON_GetArrayItem(sh, i), &t->shape[i])) {
            char v[40];
            return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": shape entry %d is %s; allowed: a whole number "
                           "0..2^53", nm, tn, i, json_shown(v, sizeof v, cJSON_GetArrayItem(sh, i)));
        }
        if (av_mul_size(&numel, numel, t->shape[i]))
            return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": shape is too large (its size overflows)", nm, tn);
    }
    t->numel = numel;
    if (cJSON_GetArraySize(off) != 2 || json_size(cJSON_GetArrayItem(off, 0), &t->begin) ||
        json_size(cJSON_GetArrayItem(off, 1), &t->end)) {
        char b[40] = "", e2[40] = "";
        if (cJSON_GetArraySize(off) != 2)
            return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets must be [BEGIN, END], whole numbers; it "
                           "has %d entries", nm, tn, cJSON_GetArraySize(off));
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%s, %s]: BEGIN and END must be whole "
                       "numbers 0..2^53", nm, tn, json_shown(b, sizeof b, cJSON_GetArrayItem(off, 0)),
                       json_shown(e2, sizeof e2, cJSON_GetArrayItem(off, 1)));
    }
    size_t need;
    if (av_mul_size(&need, numel, av_st_dtype_size(t->dtype)))
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": shape is too large (its size overflows)", nm, tn);
    if (t->begin > t->end)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%zu, %zu] end before they begin", nm, tn, t->begin, t->end);
    if (t->end > data_len)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets end %zu is past the end of the data (%zu byte%s; file truncated?)",
                       nm, tn, t->end, data_len, data_len == 1 ? "" : "s");
    if (t->end - t->begin != need)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%zu, %zu] hold %zu byte%s; shape with %zu element%s of %s needs %zu",
                       nm, tn, t->begin, t->end, t->end - t->begin, t->end - t->begin == 1 ? "" : "s", numel,
                       numel == 1 ? "" : "s", kDtypes[t->dtype].name, need);
    return AV_OK;
}

/* Header order of two tensors with the same offsets: the message names the same pair every run. */
static int by_begin(const void *a, const void *b) {
    const av_st_tensor *x = *(const av_st_tensor *const *)a, *y = *(const av_st_tensor *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x > y) - (x < y);
}

/* The tensors tile the data exactly, as the reference's Metadata::validate
 * and SafeTensors::deserialize require: sorted by (begin, end), the first
 * begins at 0, each begins where the one before it ends (no gap, no
 * overlap; an empty tensor holds no byte but still sits at one offset), and
 * the last ends where the data ends. O(n log n): a sorted copy, one pass.
 * Names need no check here: av_json_parse_object refuses a key twice. */
static av_status check_layout(const av_safetensors *st, size_t data_len, av_err *err) {
    const char *nm = st->name;
    size_t at = 0; /* where the next tensor must begin: the end of the ones before it */
    const av_st_tensor *prev = NULL, **v = NULL;
    if (st->n > 0 && !(v = malloc((size_t)st->n * sizeof *v)))
        return av_fail(err, AV_ERUNTIME, "%s: out of memory", nm);
    for (int i = 0; i < st->n; i++) v[i] = &st->tensors[i];
    if (st->n > 1) qsort(v, (size_t)st->n, sizeof *v, by_begin);
    av_status s = AV_OK;
    for (int i = 0; i < st->n && !s; i++) {
        const av_st_tensor *t = v[i];
        if (t->begin < at) /* then prev is not empty: it holds t->begin */
            s = av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%zu, %zu] overlap tensor \"%s\" [%zu, %zu]",
                        nm, TENSOR_SHOWN(t->name), t->begin, t->end, TENSOR_SHOWN(prev->name), prev->begin, prev->end);
        else if (t->begin > at && !prev)
            s = av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%zu, %zu] begin at byte %zu of the data; the "
                        "first tensor must begin at 0, as the format packs tensors back to back (is the file damaged?)",
                        nm, TENSOR_SHOWN(t->name), t->begin, t->end, t->begin);
        else if (t->begin > at)
            s = av_fail(err, AV_EUSAGE, "%s: tensor \"%s\": data_offsets [%zu, %zu] begin %zu byte%s after tensor \"%s\" "
                        "[%zu, %zu] ends; the format packs tensors back to back (is the file damaged?)", nm, TENSOR_SHOWN(t->name),
                        t->begin, t->end, t->begin - at, t->begin - at == 1 ? "" : "s", TENSOR_SHOWN(prev->name), prev->begin,
                        prev->end);
        at = t->end;
        prev = t;
    }
    free(v);
    if (s || at == data_len) return s;
    size_t extra = data_len - at; /* at <= data_len: parse_entry checked every end */
    if (!prev)
        return av_fail(err, AV_EUSAGE, "%s: the file is %zu bytes where its header makes %zu (8 + %zu) and it lists "
                       "no tensor: it holds %zu byte%s after its header; is it damaged or was something appended?",
                       nm, st->len, 8 + st->header_len, st->header_len, extra, extra == 1 ? "" : "s");
    return av_fail(err, AV_EUSAGE, "%s: the file is %zu bytes where its header and tensors make %zu (8 + %zu header + "
                   "%zu data): it holds %zu byte%s after its last tensor (\"%s\" ends at %zu); is it damaged or was "
                   "something appended?", nm, st->len, 8 + st->header_len + at, st->header_len, at, extra,
                   extra == 1 ? "" : "s", TENSOR_SHOWN(prev->name), at);
}

static av_status parse_header(av_safetensors *st, const cJSON *root, av_err *err) {
    size_t data_len = st->len - 8 - st->header_len;
    int n = 0;
    for (const cJSON *e = root->child; e; e = e->next) n += strcmp(e->string, "__metadata__") != 0;
    st->tensors = calloc(n ? (size_t)n : 1, sizeof *st->tensors);
    if (!st->tensors) return av_fail(err, AV_ERUNTIME, "%s: out of memory", st->name);
    for (const cJSON *e = root->child; e; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            if (!cJSON_IsObject(e)) return av_fail(err, AV_EUSAGE, "%s: \"__metadata__\" is not a JSON object", st->name);
            for (const cJSON *m = e->child; m; m = m->next) /* the format's text-to-text map, as safetensors reads it */
                if (!cJSON_IsString(m))
                    return av_fail(err, AV_EUSAGE, "%s: \"__metadata__\" key \"%s\" is %s; its values must be "
                                   "strings (a text-to-text map)", st->name, TENSOR_SHOWN(m->string),
                                   cJSON_IsNumber(m) ? "a number" : cJSON_IsBool(m) ? "true or false"
                                   : cJSON_IsNull(m) ? "null" : cJSON_IsArray(m) ? "an array" : "an object");
            continue;
        }
        av_st_tensor *t = &st->tensors[st->n++];
        if (!(t->name = strdup(e->string))) return av_fail(err, AV_ERUNTIME, "%s: out of memory", st->name);
        av_status s = parse_entry(t, e, data_len, st, err);
        if (s) return s;
    }
    return check_layout(st, data_len, err);
}

/* The offset of the header's first NUL byte outside a JSON string, or len.
 * cJSON skips a NUL between tokens as white space, so "{...}\0\0" padding
 * would pass or end in a misleading message; one inside a string is left to
 * av_json_check_strings, which names it. */
static size_t first_nul(const unsigned char *h, size_t len) {
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        if (h[i] == 0 && !in_string) return i;
        if (h[i] == '"') in_string = !in_string;
        else if (in_string && h[i] == '\\') i++;
    }
    return len;
}

/* Everything of av_safetensors_parse but the data pointers: head holds the
 * file's first 8 bytes, and its first 8 + N when N (the header length) is
 * 2..AV_ST_MAX_HEADER and fits in len, the length of the whole file. No byte
 * of the data is read. st->buf is left NULL; on error st is zeroed. */
static av_status parse_layout(av_safetensors *st, const unsigned char *head, size_t len, const char *name,
                              av_err *err) {
    memset(st, 0, sizeof *st);
    /* its start and end (av_utf8_cut_middle): "%s" into 256 bytes cut a 494-byte folder of CJK inside a character,
     * with no mark, and lost "/model.safetensors" */
    av_utf8_cut_middle(name, strlen(name), st->name, sizeof st->name);
    if (len < 8)
        return av_fail(err, AV_EUSAGE, "%s: truncated: %zu byte%s, fewer than the 8-byte header length", name, len,
                           len == 1 ? "" : "s");
    uint64_t n = le64(head);
    if (n > len - 8 || n < 2 || n > AV_ST_MAX_HEADER) {
        /* a folder cloned without Git LFS holds a pointer file of text ("version https://git-lfs...", under 1024
         * bytes by the LFS spec) in place of the weights; its 8 bytes read as a length of 2.3e18, and "larger than
         * the file; truncated or not a safetensors file" gave no way on (a user's download) */
        if (av_lfs_pointer(head, 8, len)) return av_lfs_pointer_fail(name, len, "the weights", err);
        int text = 1; /* the 8 bytes as printable ASCII: a web page or an error message saved in the file's place */
        for (int i = 0; i < 8; i++) text &= head[i] >= 0x20 && head[i] < 0x7f;
        char said[64] = "";
        if (text) snprintf(said, sizeof said, " (the file begins with the text \"%.8s\")", (const char *)head);
        if (n > len - 8)
            return av_fail(err, AV_EUSAGE, "%s: header length %llu is larger than the file (%zu bytes); truncated or "
                           "not a safetensors file%s", name, (unsigned long long)n, len, said);
        return av_fail(err, AV_EUSAGE, "%s: header length %llu is outside 2..%u; not a safetensors file%s", name,
                       (unsigned long long)n, AV_ST_MAX_HEADER, said);
    }
    st->len = len;
    st->header_len = (size_t)n;
    size_t nul = first_nul(head + 8, (size_t)n);
    if (nul < n) {
        memset(st, 0, sizeof *st);
        return av_fail(err, AV_EUSAGE, "%s: header holds a NUL byte at offset %zu (of its %llu bytes), where the format "
                       "pads with spaces (0x20) and JSON allows none; is the file damaged?", name, nul,
                       (unsigned long long)n);
    }
    const char *end = NULL;
    cJSON *root;
    char hname[sizeof st->name + 8]; /* st->name, whole or by its start and end: "%.300s" cut inside a character */
    snprintf(hname, sizeof hname, "%s: header", st->name);
    av_status js = av_json_parse_object(&root, (const char *)head + 8, (size_t)n, &end, hname, err);
    if (js) {
        av_safetensors_close(st);
        return js;
    }
    /* only white space may follow the object: the format pads with spaces, and the reference library
     * (serde_json; its test_whitespace_padded_header) also reads "{}\r \t\n" */
    for (const char *p = end; p < (const char *)head + 8 + n; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            unsigned char b = (unsigned char)*p;
            char shown[8] = "";
            if (b > 0x20 && b < 0x7f) snprintf(shown, sizeof shown, " '%c'", b);
            cJSON_Delete(root);
            av_safetensors_close(st);
            return av_fail(err, AV_EUSAGE, "%s: header has bytes after its JSON object: 0x%02X%s at byte %zu of the "
                           "header; only white space may follow it (the format pads with spaces, 0x20)", name, b,
                           shown, (size_t)(p - ((const char *)head + 8)));
        }
    av_status s = parse_header(st, root, err);
    cJSON_Delete(root);
    if (s) av_safetensors_close(st);
    else av_utf8_cut_middle(name, strlen(name), st->name, sizeof st->name);
    return s;
}

/* st's buffer is buf (the whole file): each tensor's data is its begin there. */
static void point_data(av_safetensors *st, const unsigned char *buf) {
    st->buf = buf;
    for (int i = 0; i < st->n; i++) st->tensors[i].data = buf + 8 + st->header_len + st->tensors[i].begin;
}

av_status av_safetensors_parse(av_safetensors *st, const unsigned char *buf, size_t len, const char *name,
                               av_err *err) {
    av_status s = parse_layout(st, buf, len, name, err);
    if (!s) point_data(st, buf);
    return s;
}

/* n bytes at offset off of fd into buf: 0, or -1 with errno (0 when the file
 * ends first). */
static int read_at(int fd, unsigned char *buf, size_t n, size_t off) {
    while (n > 0) {
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = 0;
            return -1;
        }
        buf += k, n -= (size_t)k, off += (size_t)k;
    }
    return 0;
}

/* *head = a new buffer with the first 8 bytes of fd (a file of len >= 8
 * bytes), and the N header bytes after them when N is one parse_layout
 * reads (2..AV_ST_MAX_HEADER, inside the file); else parse_layout refuses N
 * from the 8. Errors, AV_ERUNTIME: "cannot read 'PATH': ..." (*head NULL). */
static av_status read_head(unsigned char **head, int fd, size_t len, const char *path, av_err *err) {
    unsigned char len8[8];
    *head = NULL;
    int bad = read_at(fd, len8, 8, 0);
    if (!bad) {
        uint64_t n = le64(len8);
        size_t want = n >= 2 && n <= AV_ST_MAX_HEADER && n <= len - 8 ? 8 + (size_t)n : 8;
        if (!(*head = malloc(want)))
            return av_fail(err, AV_ERUNTIME, "cannot read %s: out of memory for its %zu-byte header", AV_SHOWN_WORD(path, 4200), want - 8);
        memcpy(*head, len8, 8);
        bad = read_at(fd, *head + 8, want - 8, 8);
    }
    if (!bad) return AV_OK;
    int e = errno;
    free(*head);
    *head = NULL;
    return av_fail(err, AV_ERUNTIME, "cannot read %s: %s", AV_SHOWN_WORD(path, 4200),
                   e ? strerror(e) : "it ended early (changed while it was being read?)");
}

av_status av_safetensors_open(av_safetensors *st, const char *path, av_err *err) {
    memset(st, 0, sizeof *st);
    int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO opens at once, to be refused below, not wait for a writer */
    if (fd < 0) return av_fail(err, av_input_path_status(errno), "cannot read %s: %s", AV_SHOWN_WORD(path, 4200), strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: %s", AV_SHOWN_WORD(path, 4200), strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return av_not_regular(path, sb.st_mode, err);
    }
    size_t len = (size_t)sb.st_size;
    char shown[4200]; /* the name that starts its messages, one shell word (av_shown_word): "/tmp/a b/m.safetensors:" */
    av_shown_word(shown, sizeof shown, path);
    if (len < 8) {
        close(fd);
        return av_fail(err, AV_EUSAGE, "%s: truncated: %zu byte%s, fewer than the 8-byte header length", shown, len,
                           len == 1 ? "" : "s");
    }
    /* the header first, read, not mapped: a file that is not exactly its header and tensors (a
     * 1 TB file of which 1 MB are tensors) is refused before a byte of its data is touched */
    unsigned char *head = NULL;
    av_status s = read_head(&head, fd, len, path, err);
    if (!s) s = parse_layout(st, head, len, shown, err);
    if (s) {
        free(head);
        close(fd);
        return s;
    }
#ifdef MAP_POPULATE
    int flags = MAP_PRIVATE | MAP_POPULATE; /* fault the pages in up front: every byte is read anyway */
#else
    int flags = MAP_PRIVATE;
#endif
    void *map = mmap(NULL, len, PROT_READ, flags, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED) {
        free(head);
        av_safetensors_close(st);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: mmap: %s", AV_SHOWN_WORD(path, 4200), strerror(e));
    }
    av_mapped_note(map, len, path); /* a truncation while it is read: exit 1 naming it, not "Bus error" */
    int changed = memcmp(map, head, 8 + st->header_len) != 0; /* rewritten in place since it was read */
    free(head);
    if (changed) {
        av_mapped_forget(map);
        munmap(map, len);
        av_safetensors_close(st);
        return av_fail(err, AV_ERUNTIME, "cannot read %s: its header changed while it was being read", AV_SHOWN_WORD(path, 4200));
    }
    point_data(st, map);
    st->mapped = 1;
    av_shown_word(st->name, sizeof st->name, path); /* whole, its closing quote kept where it is cut */
    return AV_OK;
}

void av_safetensors_close(av_safetensors *st) {
    if (!st) return;
    for (int i = 0; i < st->n; i++) free(st->tensors[i].name);
    free(st->tensors);
    if (st->mapped && st->buf) {
        av_mapped_forget(st->buf);
        munmap((void *)st->buf, st->len);
    }
    memset(st, 0, sizeof *st);
}

const av_st_tensor *av_safetensors_find(const av_safetensors *st, const char *name) {
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->tensors[i].name, name) == 0) return &st->tensors[i];
    return NULL;
}

/* ----------------------------------------------------------------------------
 * conversion to float32 */

static float element(const av_st_tensor *t, size_t i) {
    const unsigned char *p = t->data;
    if (t->dtype == AV_ST_F32) {
        uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                     (uint32_t)p[4 * i + 3] << 24;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
    return t->dtype == AV_ST_F16 ? av_f16_to_f32(h) : av_bf16_to_f32(h);
}

/* Index of the first NaN or ±Inf among x[0..n-1], or n. Blocks of 4096
 * are scanned branch-free on the exponent bits (all ones = not finite), so
 * the compiler can vectorise the common, all-finite case. */
static size_t first_nonfinite(const float *x, size_t n) {
    for (size_t b = 0; b < n; b += 4096) {
        size_t e = n - b < 4096 ? n : b + 4096;
        uint32_t any = 0;
        for (size_t i = b; i < e; i++) {
            uint32_t u; /* the bits, through memcpy: reading a float as uint32_t is not allowed (C11 6.5p7) */
            memcpy(&u, x + i, sizeof u);
            any |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
        }
        if (!any) continue;
        for (size_t i = b; i < e; i++)
            if (!isfinite(x[i])) return i;
    }
    return n;
}

av_status av_safetensors_f32(const float **out, float **owned, const av_safetensors *st,
                             const av_st_tensor *t, av_err *err) {
    *out = NULL;
    *owned = NULL;
    if (t->dtype != AV_ST_F32 && t->dtype != AV_ST_F16 && t->dtype != AV_ST_BF16)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has dtype %s; expected F32, F16 or BF16", st->name, TENSOR_SHOWN(t->name),
                       kDtypes[t->dtype].name);
    int in_place = t->dtype == AV_ST_F32 && ((uintptr_t)t->data % sizeof(float)) == 0;
    float *copy = NULL;
    if (!in_place && !(copy = av_calloc(t->numel ? t->numel : 1, sizeof(float))))
        return av_fail(err, AV_ERUNTIME, "%s: out of memory converting tensor \"%s\"", st->name, TENSOR_SHOWN(t->name));
    const float *f = in_place ? (const float *)(const void *)t->data : copy;
    if (!in_place)
        for (size_t i = 0; i < t->numel; i++) copy[i] = element(t, i);
    size_t bad = first_nonfinite(f, t->numel);
    if (bad < t->numel) {
        float v = f[bad];
        free(copy);
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" contains %s at index %zu; every value must be finite",
                       st->name, TENSOR_SHOWN(t->name), isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", bad);
    }
    *out = f;
    *owned = copy;
    return AV_OK;
}

av_status av_safetensors_equal_f32(int *equal, const av_safetensors *st, const av_st_tensor *t, const float *want,
                                   size_t rows, size_t cols, av_err *err) {
    *equal = 0;
    if (t->ndim != 2 || t->shape[0] != rows || t->shape[1] != cols) return AV_OK;
    const float *v;
    float *owned;
    av_status s = av_safetensors_f32(&v, &owned, st, t, err);
    if (s) return s;
    *equal = memcmp(v, want, rows * cols * sizeof(float)) == 0;
    free(owned);
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * writing */

static int name_ok(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) return 0;
    return 1;
}

/* Append to a growing string; returns -1 on OOM. */
static int sb_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int sb_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return -1;
        if (*buf && *len + (size_t)k < *cap) {
            *len += (size_t)k;
            return 0;
        }
        size_t ncap = (*cap ? *cap * 2 : 4096) + (size_t)k;
        char *nb = realloc(*buf, ncap);
        if (!nb) return -1;
        *buf = nb;
        *cap = ncap;
    }
}

/* The JSON header, padded with spaces to a multiple of 8 (so 8 + N is too). */
static av_status build_header(char **out, size_t *out_len, const av_st_write_tensor *t, int n, const char *path,
                              av_err *err) {
    char *b = NULL;
    size_t len = 0, cap = 0, off = 0;
    int bad = sb_printf(&b, &len, &cap, "{");
    for (int i = 0; i < n && !bad; i++) {
        size_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++) numel *= t[i].shape[d];
        size_t bytes = numel * av_st_dtype_size(t[i].dtype);
        bad |= sb_printf(&b, &len, &cap, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "", t[i].name,
                         kDtypes[t[i].dtype].name);
        for (int d = 0; d < t[i].ndim && !bad; d++) bad |= sb_printf(&b, &len, &cap, "%s%zu", d ? "," : "", t[i].shape[d]);
        bad |= sb_printf(&b, &len, &cap, "],\"data_offsets\":[%zu,%zu]}", off, off + bytes);
        off += bytes;
    }
    bad |= sb_printf(&b, &len, &cap, "}");
    while (!bad && len % 8) bad |= sb_printf(&b, &len, &cap, " ");
    if (bad) {
        free(b);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: out of memory", AV_SHOWN_WORD(path, 4200));
    }
    *out = b;
    *out_len = len;
    return AV_OK;
}

static av_status check_write(const av_st_write_tensor *t, int n, const char *path, av_err *err) {
    for (int i = 0; i < n; i++) {
        if (t[i].dtype != AV_ST_F32 && t[i].dtype != AV_ST_F16 && t[i].dtype != AV_ST_BF16)
            return av_fail(err, AV_EUSAGE, "cannot write %s: tensor \"%s\": dtype %s; allowed: F32, F16, BF16", AV_SHOWN_WORD(path, 4200),
                           t[i].name, av_st_dtype_name(t[i].dtype));
        if (!t[i].name || !name_ok(t[i].name))
            return av_fail(err, AV_EUSAGE, "cannot write %s: tensor name must be non-empty, without '\"', '\\' or control characters", AV_SHOWN_WORD(path, 4200));
        if (t[i].ndim < 0 || t[i].ndim > AV_ST_MAX_NDIM)
            return av_fail(err, AV_EUSAGE, "cannot write %s: tensor \"%s\": ndim %d outside 0..%d", AV_SHOWN_WORD(path, 4200), t[i].name,
                           t[i].ndim, AV_ST_MAX_NDIM);
        size_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++)
            if (av_mul_size(&numel, numel, t[i].shape[d]) || av_mul_size(&(size_t){0}, numel, 4))
                return av_fail(err, AV_EUSAGE, "cannot write %s: tensor \"%s\": shape overflows", AV_SHOWN_WORD(path, 4200), t[i].name);
        for (int j = 0; j < i; j++)
            if (strcmp(t[i].name, t[j].name) == 0)
                return av_fail(err, AV_EUSAGE, "cannot write %s: tensor \"%s\" given twice", AV_SHOWN_WORD(path, 4200), t[i].name);
    }
    return AV_OK;
}

/* Write one tensor's data as little-endian dtype, in chunks. */
static void write_data(av_afile *f, const av_st_write_tensor *t) {
    unsigned char chunk[4096];
    size_t numel = 1, k = 0, es = av_st_dtype_size(t->dtype);
    for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
    for (size_t i = 0; i < numel; i++) {
        uint32_t u;
        if (t->dtype == AV_ST_F32) memcpy(&u, &t->data[i], 4);
        else u = t->dtype == AV_ST_F16 ? av_f32_to_f16(t->data[i]) : av_f32_to_bf16(t->data[i]);
        for (size_t b = 0; b < es; b++) chunk[k++] = (unsigned char)(u >> (8 * b));
        if (k == sizeof chunk) {
            av_afile_write(f, chunk, k);
            k = 0;
        }
    }
    if (k) av_afile_write(f, chunk, k);
}

av_status av_safetensors_write(const char *path, const av_st_write_tensor *t, int n, av_err *err) {
    av_status s = check_write(t, n, path, err);
    if (s) return s;
    char *hdr = NULL;
    size_t hlen = 0;
    if ((s = build_header(&hdr, &hlen, t, n, path, err))) return s;
    av_afile f;
    if ((s = av_afile_open(&f, path, err))) {
        free(hdr);
        return s;
    }
    unsigned char len8[8];
    for (int i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    av_afile_write(&f, len8, 8);
    av_afile_write(&f, hdr, hlen);
    free(hdr);
    for (int i = 0; i < n; i++) write_data(&f, &t[i]);
    return av_afile_commit(&f, err);
}
