/* common.c - error formatting, checked size arithmetic, large zeroed buffers. */
#include "base/common.h"

#include "base/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

av_status av_fail(av_err *e, av_status code, const char *fmt, ...) {
    if (e) {
        /* whole first, then cut in the middle (av_utf8_cut_middle): a message cut at its end lost what it says
         * is wrong when it quotes a long folder ("--model DIR" and 2 KB of DIR, no "no such folder") */
        char buf[8192], *full = buf;
        va_list ap, again;
        va_start(ap, fmt);
        va_copy(again, ap);
        int w = vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        if (w >= (int)sizeof buf && (full = malloc((size_t)w + 1)) != NULL) vsnprintf(full, (size_t)w + 1, fmt, again);
        va_end(again);
        if (!full) full = buf; /* out of memory: the first 8 KB, cut as below */
        av_utf8_cut_middle(full, w < 0 ? 0 : strlen(full), e->msg, sizeof e->msg);
        if (full != buf) free(full);
        e->overflowed = 0;
        e->too_large = 0;
    }
    return code;
}

void av_fail_append(av_err *e, const char *fmt, ...) {
    if (!e) return;
    char add[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(add, sizeof add, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if ((size_t)w >= sizeof add) av_utf8_trim_cut(add); /* an added clause is short; never half a character */
    size_t have = strlen(e->msg), more = strlen(add);
    char *full = malloc(have + more + 1);
    if (!full) return; /* out of memory: the message as it was */
    memcpy(full, e->msg, have);
    memcpy(full + have, add, more + 1);
    av_utf8_cut_middle(full, have + more, e->msg, sizeof e->msg);
    free(full);
}

av_status av_fail_overflow(av_err *e, const char *what, const char *fmt, ...) {
    if (e) {
        char rest[sizeof e->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rest, sizeof rest, fmt, ap);
        va_end(ap);
        av_fail(e, AV_EUSAGE, "%s overflowed float32 %s", what, rest);
        static const char kWords[] = " overflowed float32";
        size_t head = strlen(what) + strlen(kWords), len = strlen(e->msg);
        if (head > len || strncmp(e->msg + head - strlen(kWords), kWords, strlen(kWords)) != 0) {
            const char *at = strstr(e->msg, kWords); /* cut in the middle (av_fail): the words after " … " */
            head = at ? (size_t)(at - e->msg) + strlen(kWords) : len;
        }
        e->overflowed = (int)head;
    }
    return AV_EUSAGE;
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

/* Every av_big_calloc buffer p has, in the BIG_HEADER bytes before it, a
 * header saying how to free it: munmap(base, len), or free(base) when len is
 * 0. A mapped buffer starts on a 2 MiB boundary, so that its own size in huge
 * pages is all it costs, and its header sits at the end of one ordinary page
 * mapped just before it (the system's page: 4 KiB on x86-64, 16 or 64 KiB
 * on some arm64 and ppc64le kernels, where munmap works in those units). Smaller buffers come from posix_memalign, 64
 * bytes after its start: every buffer is aligned for AVX-512 loads. */
#define BIG_HEADER 64
#define HUGE_PAGE ((size_t)2 << 20)

typedef struct {
    void *base;
    size_t len;
} big_header;

/* Own mappings on Linux, except under AddressSanitizer (make SANITIZE=1,
 * the fuzz targets): it checks bounds, use after free and leaks of heap
 * blocks only, and in a mapping rounded up to 2 MiB a write past the end of
 * a canvas or tensor, or a buffer never freed, would pass unseen. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !AV_ASAN
#define BIG_MAP 1
#endif

#ifdef BIG_MAP
/* A 2 MiB-aligned anonymous mapping of at least total bytes, advised for huge
 * pages, with one page (of the system's size) mapped before it for the
 * header; the rest of the reservation is unmapped again. NULL if mmap fails
 * or the page size does not divide 2 MiB. */
static unsigned char *map_huge(size_t total, big_header *h) {
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    if (page < BIG_HEADER || page >= HUGE_PAGE || HUGE_PAGE % page) return NULL;
    size_t want = (total + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (want < total || want > SIZE_MAX - 2 * HUGE_PAGE) return NULL;
    size_t reserve = want + HUGE_PAGE + page;
    unsigned char *b = mmap(NULL, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) return NULL;
    uintptr_t a = ((uintptr_t)b + page + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = (size_t)(a - page - (uintptr_t)b), tail = reserve - head - page - want; /* whole pages */
    if (head) munmap(b, head);
    if (tail) munmap((unsigned char *)a + want, tail);
    madvise((void *)a, want, MADV_HUGEPAGE); /* advice only: failure leaves ordinary pages */
    *h = (big_header){(unsigned char *)a - page, page + want};
    return (unsigned char *)a;
}
#endif

/* Freed mappings kept for the next av_big_calloc that fits: a figure run
 * draws canvas after canvas of about the same size, and a fresh mapping costs
 * a huge-page fault (1-2.5 ms on these VMs) where clearing a kept one costs
 * about 0.1 ms per MiB. At most BIG_KEEP mappings and BIG_KEEP_BYTES in all
 * (so a 16,384-token run's large buffers are never kept); a kept mapping is
 * reused only for a buffer of the same size in 2 MiB pages, so a buffer
 * still costs exactly its size rounded up to 2 MiB. Guarded by a mutex: the
 * PNG worker frees canvases the main thread drew. */
#ifdef BIG_MAP
#define BIG_KEEP 4
#define BIG_KEEP_BYTES ((size_t)16 << 20)
static pthread_mutex_t big_keep_lock = PTHREAD_MUTEX_INITIALIZER;
static big_header big_kept[BIG_KEEP];
static size_t big_kept_bytes;

/* A kept mapping of total bytes rounded up to 2 MiB, zeroed over those
 * bytes; NULL if none. */
static unsigned char *take_kept(size_t total, big_header *h) {
    int best = -1;
    size_t want = (total + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    pthread_mutex_lock(&big_keep_lock);
    for (int i = 0; i < BIG_KEEP && best < 0; i++)
        if (big_kept[i].base && big_kept[i].len - big_kept[i].len % HUGE_PAGE == want) /* len = header page + want */
            best = i;
    unsigned char *p = NULL;
    if (best >= 0) {
        *h = big_kept[best];
        big_kept_bytes -= h->len;
        big_kept[best] = (big_header){NULL, 0};
        p = (unsigned char *)h->base + h->len % HUGE_PAGE;
    }
    pthread_mutex_unlock(&big_keep_lock);
    if (p) memset(p, 0, total);
    return p;
}

/* Keep h's mapping for reuse if there is room; returns 1 if kept. */
static int keep(const big_header *h) {
    int kept = 0;
    pthread_mutex_lock(&big_keep_lock);
    if (big_kept_bytes + h->len <= BIG_KEEP_BYTES)
        for (int i = 0; i < BIG_KEEP && !kept; i++)
            if (!big_kept[i].base) {
                big_kept[i] = *h;
                big_kept_bytes += h->len;
                kept = 1;
            }
    pthread_mutex_unlock(&big_keep_lock);
    return kept;
}
#endif

void *av_big_calloc(size_t n, size_t size) {
    size_t total;
    if (av_mul_size(&total, n, size) != 0 || total > SIZE_MAX - BIG_HEADER - 63) return NULL;
    unsigned char *p = NULL;
    big_header h = {NULL, 0};
#ifdef BIG_MAP
    if (total >= AV_BIG_MIN && !(p = take_kept(total, &h))) p = map_huge(total, &h); /* zeroed by the kernel */
#endif
    if (!p) { /* the exact size (no padding to 64), so that ASan sees a write past the end */
        h.base = NULL;
        h.len = 0;
        if (posix_memalign(&h.base, 64, total + BIG_HEADER) != 0) return NULL;
        memset(h.base, 0, total + BIG_HEADER);
        p = (unsigned char *)h.base + BIG_HEADER;
    }
    memcpy(p - BIG_HEADER, &h, sizeof h);
    return p;
}

void av_big_free(void *p) {
    if (!p) return;
    big_header h;
    memcpy(&h, (unsigned char *)p - BIG_HEADER, sizeof h);
#ifdef BIG_MAP
    if (h.len) {
        if (!keep(&h)) munmap(h.base, h.len);
        return;
    }
#endif
    free(h.base);
}

uint64_t av_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull; /* the 64-bit FNV prime */
    return h;
}

int av_edit_distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63) return 99;
    int d[64][64]; /* d[i][j]: a's first i bytes to b's first j */
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* a swap of neighbours */
            d[i][j] = best;
        }
    return d[n][m];
}

const char *av_num_shown(char buf[32], double v) {
    if (isinf(v)) snprintf(buf, 32, "(a number past %s1.797e308)", v < 0 ? "-" : "");
    else snprintf(buf, 32, "%g", v);
    return buf;
}

const char *av_num_exact(char buf[32], double v) {
    if (isinf(v)) return av_num_shown(buf, v);
    snprintf(buf, 32, "%.15g", v);
    return buf;
}

const char *av_gib_over(char buf[32], double need, double limit) {
    const double gib = 1073741824.0;
    for (int d = 1; d <= 6; d++) {
        snprintf(buf, 32, "%.*f", d, need / gib);
        if (strtod(buf, NULL) > limit / gib) return buf;
    }
    snprintf(buf, 32, "%.6f", ceil(need / gib * 1e6) / 1e6); /* a few bytes over: rounded up at the 6th */
    return buf;
}

const char *av_sig_text(char buf[32], double v, int digits) {
    snprintf(buf, 32, "%#.*g", digits, v);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '.') buf[n - 1] = 0;
    return buf;
}
