/* common.c - error formatting and checked size arithmetic. */
#include "base/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

av_status av_fail(av_err *e, av_status code, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

int av_mul_size(size_t *out, size_t a, size_t b) {
    size_t r;
    if (__builtin_mul_overflow(a, b, &r)) return -1;
    *out = r;
    return 0;
}

int av_mul3_size(size_t *out, size_t a, size_t b, size_t c) {
    size_t ab;
    if (av_mul_size(&ab, a, b) != 0) return -1;
    return av_mul_size(out, ab, c);
}

void *av_calloc(size_t n, size_t size) {
    size_t total;
    if (av_mul_size(&total, n, size) != 0) return NULL;
    if (total == 0) total = 1;
    return calloc(1, total);
}

uint64_t av_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull; /* the 64-bit FNV prime */
    return h;
}
