/* test_common.c - base/common.h's FNV-1a 64 hash and large zeroed buffers.
 *
 * Expected values were computed independently with a Python loop
 * (h = 14695981039346656037; per byte h ^= byte, h = h * 1099511628211
 * mod 2^64): "" -> the offset basis, "a" -> 0xaf63dc4c8601ec8c, "foobar" ->
 * 0x85944171f73967e8, the values FNV's authors list for FNV-1a 64. */
#define _GNU_SOURCE /* dlsym(RTLD_NEXT): the simulated page size below */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/common.h"
#include "base/utf8.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#if defined(__linux__) && !defined(TEST_ASAN)
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* A kernel with pages larger than 4 KiB, simulated for base/common.c (linked
 * into this program, so these definitions replace the C library's for it):
 * 16 KiB on Apple silicon (Asahi Linux), 64 KiB on some arm64 and ppc64le
 * distributions. When g_sim_page is set, sysconf(_SC_PAGESIZE) says so, mmap
 * returns regions aligned to it and munmap follows munmap(2) for it: the
 * address must be a multiple of the page size, and every page holding a
 * part of the range is unmapped. Otherwise the real calls. */
static size_t g_sim_page;

long sysconf(int name) {
    long (*real)(int);
    *(void **)&real = dlsym(RTLD_NEXT, "sysconf");
    if (g_sim_page && name == _SC_PAGESIZE) return (long)g_sim_page;
    return real(name);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap");
    if (!g_sim_page || addr || fd != -1) return real(addr, len, prot, flags, fd, off);
    size_t P = g_sim_page, L = (len + P - 1) / P * P;
    unsigned char *b = real(NULL, L + P, prot, flags, fd, off);
    if (b == MAP_FAILED) return b;
    unsigned char *a = (unsigned char *)(((uintptr_t)b + P - 1) / P * P);
    int (*real_unmap)(void *, size_t);
    *(void **)&real_unmap = dlsym(RTLD_NEXT, "munmap");
    if (a > b) real_unmap(b, (size_t)(a - b));
    if (a + L < b + L + P) real_unmap(a + L, (size_t)(b + L + P - (a + L)));
    return a;
}

int munmap(void *addr, size_t len) {
    int (*real)(void *, size_t);
    *(void **)&real = dlsym(RTLD_NEXT, "munmap");
    if (!g_sim_page) return real(addr, len);
    size_t P = g_sim_page;
    if ((uintptr_t)addr % P) {
        errno = EINVAL;
        return -1;
    }
    return real(addr, (len + P - 1) / P * P);
}
#endif

/* av_fail keeps a message longer than av_err's msg (N = 2048 bytes) as its start, " … " and its end, at whole
 * UTF-8 characters (base/utf8.h av_utf8_cut_middle): the end keeps (N - 1) / 2 = 1023 bytes, the start
 * 2047 - 1023 - 5 (" … ") - 63 (room for bidi closers) = 956. For "ab" and 800 我 (3 bytes each, 2402
 * bytes) byte 956 = 2 + 3·318 starts a 我, so the start is "ab" and 318 我; byte 2402 - 1023 = 1379 =
 * 2 + 3·459 starts one too, so the end is the last 341 我: 956 + 5 + 1023 = 1984 bytes. Cutting the end
 * (vsnprintf's 2047 bytes, 2045 without a half 我) lost what a message says is wrong after a long folder
 * (a tester's pass). Byte counts by hand, checked against sizeof. */
static void test_fail_cuts_at_a_whole_character(void **state) {
    (void)state;
    av_err e;
    assert_int_equal(sizeof e.msg, 2048);
    char text[2600] = "ab", want[2100] = "ab";
    for (int i = 0; i < 800; i++) strcat(text, "\xE6\x88\x91"); /* 我 */
    for (int i = 0; i < 318; i++) strcat(want, "\xE6\x88\x91");
    strcat(want, " \xE2\x80\xA6 "); /* U+2026 */
    for (int i = 0; i < 341; i++) strcat(want, "\xE6\x88\x91");
    assert_int_equal(strlen(want), 1984);
    assert_int_equal(av_fail(&e, AV_EUSAGE, "%s", text), AV_EUSAGE);
    assert_string_equal(e.msg, want);
    assert_int_equal(av_utf8_check(e.msg, strlen(e.msg), &(av_err){{0}}), AV_OK);
    text[2 + 3 * 682] = 0; /* 2048 bytes: one more than fit; 2048 - 1023 = 1025 = 2 + 3·341 starts a 我 */
    av_fail(&e, AV_EUSAGE, "%s", text);
    assert_string_equal(e.msg, want);
    text[2 + 3 * 681] = 0; /* 2045 bytes: fits, left whole */
    av_fail(&e, AV_EUSAGE, "%s", text);
    assert_string_equal(e.msg, text);
    /* a message longer than av_fail's first 8 KB buffer (two 8,999-byte arguments): the same cut, its end
     * the last 1019 x of the second and ": 42" */
    char big[9000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    av_fail(&e, AV_EUSAGE, "%s%s: %d", big, big, 42);
    assert_int_equal(strlen(e.msg), 1984);
    assert_memory_equal(e.msg, big, 956);
    assert_memory_equal(e.msg + 956, " \xE2\x80\xA6 ", 5);
    assert_memory_equal(e.msg + 961, big, 1019);
    assert_string_equal(e.msg + 961 + 1019, ": 42");
}

/* av_fail_append adds a clause at the end and keeps the flags: on a short message it is plain concatenation;
 * on one near av_err's 2048 bytes (2 + 3·660 = 1982 bytes of "ab" and 我) the whole (2032 + "; tail" ...) does
 * not fit, and the clause, at the end, is kept whole, the start too, " … " between, every character whole
 * (snprintf(msg + len, ...) cut the clause by bytes). The overflow words' length stays. */
static void test_fail_append_keeps_the_clause_and_the_flags(void **state) {
    (void)state;
    av_err e = {{0}};
    av_fail(&e, AV_EUSAGE, "bad %d", 7);
    av_fail_append(&e, "; hint %s", "here");
    assert_string_equal(e.msg, "bad 7; hint here");
    char text[2100] = "ab";
    for (int i = 0; i < 660; i++) strcat(text, "\xE6\x88\x91"); /* 我 */
    av_fail(&e, AV_EUSAGE, "%s", text);
    assert_int_equal(strlen(e.msg), 1982);
    static const char clause[] = "; the model was not saved (runs/x keeps the model files it held before, if any)";
    av_fail_append(&e, "%s", clause);
    size_t n = strlen(e.msg), c = strlen(clause);
    assert_true(n <= 2047);
    assert_int_equal(av_utf8_check(e.msg, n, &(av_err){{0}}), AV_OK);
    assert_string_equal(e.msg + n - c, clause);
    assert_memory_equal(e.msg, "ab\xE6\x88\x91", 5);
    assert_non_null(strstr(e.msg, " \xE2\x80\xA6 ")); /* " … " */
    av_fail_overflow(&e, "layer 0: the scores", "(a value became infinite)");
    int words = e.overflowed;
    assert_int_equal(words, (int)strlen("layer 0: the scores overflowed float32"));
    e.too_large = 1;
    av_fail_append(&e, " (in --generate: generated token %d)", 3);
    assert_int_equal(e.overflowed, words);
    assert_int_equal(e.too_large, 1);
    assert_string_equal(e.msg, "layer 0: the scores overflowed float32 (a value became infinite) (in --generate: "
                               "generated token 3)");
    av_fail_append(NULL, "x"); /* no error to add to */
}

/* av_fail_overflow writes "WHAT overflowed float32 " and the rest, and sets
 * overflowed to the length of the words naming the value, which --train reads
 * where it had matched the words (app/train.c forward_failed); av_fail on the
 * same av_err clears it, and a message cut short keeps the length inside it. */
static void test_fail_overflow_sets_the_field(void **state) {
    (void)state;
    av_err e = {{0}};
    assert_int_equal(e.overflowed, 0);
    assert_int_equal(av_fail_overflow(&e, "layer 1: the scores q·kᵀ", "(a value became infinite)%s", " during training"),
                     AV_EUSAGE);
    assert_string_equal(e.msg, "layer 1: the scores q·kᵀ overflowed float32 (a value became infinite) during training");
    assert_int_equal(e.overflowed, strlen("layer 1: the scores q·kᵀ overflowed float32"));
    assert_int_equal(av_fail(&e, AV_EUSAGE, "--heads %d is outside the allowed range 1..%d", 99, 64), AV_EUSAGE);
    assert_int_equal(e.overflowed, 0);
    char what[2600];
    memset(what, 'x', sizeof what - 1);
    what[sizeof what - 1] = 0;
    av_fail_overflow(&e, what, "(a value became infinite)"); /* 956 x, " … ", 978 x and the 45 bytes of words */
    assert_int_equal(strlen(e.msg), 1984);
    assert_string_equal(e.msg + 956 + 5 + 978, " overflowed float32 (a value became infinite)");
    assert_int_equal(e.overflowed, 956 + 5 + 978 + 19); /* the words naming the value end after "float32" */
    assert_int_equal(av_fail_overflow(NULL, "x", "y"), AV_EUSAGE);
}

/* The optimal string alignment distance, worked by hand: kitten → sitting is 3 (k→s, e→i, +g: the
 * Levenshtein textbook case, no swap helps); casual → causal is 1 (the swap of s and u); ca → abc is 3,
 * not the 2 of unrestricted Damerau–Levenshtein (ca → ac → abc edits the swapped pair again, which OSA
 * does not allow: delete c, keep a, insert b, insert c). */
static void test_edit_distance_hand_worked(void **state) {
    (void)state;
    assert_int_equal(av_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(av_edit_distance("casual", "causal"), 1);
    assert_int_equal(av_edit_distance("hlep", "help"), 1);
    assert_int_equal(av_edit_distance("ca", "abc"), 3);
    assert_int_equal(av_edit_distance("", "abc"), 3);
    assert_int_equal(av_edit_distance("heads", "heads"), 0);
    char long_name[70];
    memset(long_name, 'a', 64);
    long_name[64] = 0;
    assert_int_equal(av_edit_distance(long_name, "a"), 99); /* past 63 bytes: no measure */
}

static void test_fnv1a64_reference_vectors(void **state) {
    (void)state;
    assert_true(av_fnv1a64(AV_FNV1A64_BASIS, "", 0) == 0xcbf29ce484222325ull);
    assert_true(av_fnv1a64(AV_FNV1A64_BASIS, "a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(av_fnv1a64(AV_FNV1A64_BASIS, "foobar", 6) == 0x85944171f73967e8ull);
}

/* Hashing "foo" then "bar" from the first result equals hashing "foobar". */
static void test_fnv1a64_continues(void **state) {
    (void)state;
    uint64_t h = av_fnv1a64(AV_FNV1A64_BASIS, "foo", 3);
    assert_true(av_fnv1a64(h, "bar", 3) == 0x85944171f73967e8ull);
    const unsigned char high[2] = {0xff, 0x80}; /* bytes above 0x7f are hashed unsigned */
    uint64_t want = (0xcbf29ce484222325ull ^ 0xff) * 0x100000001b3ull;
    want = (want ^ 0x80) * 0x100000001b3ull;
    assert_true(av_fnv1a64(AV_FNV1A64_BASIS, high, 2) == want);
}

#if defined(__linux__) && !defined(TEST_ASAN)
#include <stdio.h>
/* The [start, end) of the mapping that holds p, from /proc/self/maps; 0 if none. */
static int mapping_of(const void *p, uintptr_t *start, uintptr_t *end) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    unsigned long a, b;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && (uintptr_t)p >= a && (uintptr_t)p < b) {
            *start = a;
            *end = b;
            found = 1;
        }
    fclose(f);
    return found;
}
#endif

/* av_big_calloc: zeroed, writable to the last byte, 64-byte aligned; on
 * Linux a buffer of AV_BIG_MIN bytes or more is a mapping of its own that
 * starts at the buffer, on a 2 MiB boundary, and ends at its size rounded up
 * to 2 MiB (so an exact multiple costs no extra huge page; the header lives
 * in a separate page before it); overflow of n * size gives NULL;
 * av_big_free(NULL) is a no-op. Under AddressSanitizer (make test
 * SANITIZE=1) a wrong free of either kind is reported, and every buffer is a
 * heap block (test_big_calloc_bounds_checked_by_asan). */
/* p[0..n) must be all zero; then it is scribbled over with `byte` (so a
 * reuse that is not cleared shows) and freed. */
static void assert_zeroed_then_free(unsigned char *p, size_t n, unsigned char byte) {
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++) nonzero += p[i] != 0;
    assert_int_equal(nonzero, 0);
    memset(p, byte, n);
    av_big_free(p);
}

/* A measured number keeps its significant zeros: "%.3g" printed 14.0 as "14", which reads as an exact
 * whole number beside "4.41" (a new user's report of the --model trace). Expected strings by hand. */
static void test_sig_text_keeps_significant_zeros(void **state) {
    (void)state;
    static const struct { double v; int digits; const char *want; } cases[] = {
        {14.0, 3, "14.0"}, {4.41, 3, "4.41"}, {4.4, 3, "4.40"}, {0.136, 3, "0.136"}, {1273.4, 4, "1273"},
        {79.56, 4, "79.56"}, {80.0, 4, "80.00"}, {12734.0, 4, "1.273e+04"}, {1e-05, 3, "1.00e-05"}, {0.0, 3, "0.00"},
        {-2.5, 3, "-2.50"}, {100.0, 3, "100"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char buf[32];
        if (strcmp(av_sig_text(buf, cases[k].v, cases[k].digits), cases[k].want) != 0)
            fail_msg("%g at %d digits: got \"%s\", want \"%s\"", cases[k].v, cases[k].digits, buf, cases[k].want);
    }
}

/* "need 2.0 GiB ..., more than the 2 GiB allowed" (a teacher's report: 5793 tokens at 8 heads are
 * 2·8·5793²·4 = 2,147,766,336 bytes, 2.00026 GiB): as many decimals as it takes to read as more than the
 * limit. Expected strings by hand from the byte counts. */
static void test_gib_over_reads_as_more_than_the_limit(void **state) {
    (void)state;
    static const struct { double need, limit; const char *want; } cases[] = {
        {2147766336.0, 2147483648.0, "2.0003"},  /* 2.000263 GiB */
        {2147745800.0, 2147483648.0, "2.0002"},  /* 16385 tokens, 1 head: 2.000244 */
        {3758096384.0, 2147483648.0, "3.5"},     /* 3.5 GiB: one decimal is enough */
        {2147483649.0, 2147483648.0, "2.000001"}, /* one byte over: 6 decimals, the most it gives */
        {12562779340.8, 8589934592.0, "11.7"},   /* 11.7 GiB of --train against 8 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char buf[32];
        if (strcmp(av_gib_over(buf, cases[k].need, cases[k].limit), cases[k].want) != 0)
            fail_msg("%.0f over %.0f: got \"%s\", want \"%s\"", cases[k].need, cases[k].limit, buf, cases[k].want);
    }
}

static void test_big_calloc(void **state) {
    (void)state;
    const size_t sizes[] = {1, 100, AV_BIG_MIN - 64, AV_BIG_MIN, (size_t)2 << 20, (size_t)3 << 20, (size_t)33 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char *p = av_big_calloc(sizes[k], 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
#if defined(__linux__) && !defined(TEST_ASAN) /* under ASan every buffer is a heap block */
        if (sizes[k] >= AV_BIG_MIN) {
            size_t huge = (size_t)2 << 20, want = (sizes[k] + huge - 1) / huge * huge;
            uintptr_t start = 0, end = 0;
            assert_int_equal((uintptr_t)p % huge, 0);
            assert_true(mapping_of(p, &start, &end));
            assert_true(start == (uintptr_t)p);
            assert_true(end == (uintptr_t)p + want);
        }
#endif
        assert_zeroed_then_free(p, sizes[k], 0xA5);
    }
    float *f = av_big_calloc(1000, sizeof(float));
    assert_non_null(f);
    assert_true(f[999] == 0.0f);
    av_big_free(f);
    assert_null(av_big_calloc(SIZE_MAX / 2, 3));
    assert_null(av_big_calloc(SIZE_MAX, 1));
    av_big_free(NULL);
}

/* A freed buffer's mapping is kept for the next buffer of the same size in
 * 2 MiB pages (a figure run's canvases; base/common.c), so the next one
 * must come back zeroed over its whole length, as a fresh mapping does, and
 * still end at its size rounded up to 2 MiB. On Linux (not ASan) the reuse
 * itself is checked, so that the zero check is not vacuous. */
static void test_big_calloc_reuse_zeroed(void **state) {
    (void)state;
    const size_t first[] = {AV_BIG_MIN + 123, (size_t)3 << 20, (size_t)6 << 20};
    const size_t second[] = {(size_t)2 << 20, ((size_t)3 << 20) + 4096, ((size_t)5 << 20) + 1};
    for (int k = 0; k < 3; k++) {
        unsigned char *p = av_big_calloc(first[k], 1);
        assert_non_null(p);
        memset(p, 0xA5, first[k]);
        av_big_free(p);
        unsigned char *q = av_big_calloc(second[k], 1);
        assert_non_null(q);
#if defined(__linux__) && !defined(TEST_ASAN)
        assert_ptr_equal(q, p); /* same size in 2 MiB pages: the kept mapping */
        size_t huge = (size_t)2 << 20, want = (second[k] + huge - 1) / huge * huge;
        uintptr_t start = 0, end = 0;
        assert_true(mapping_of(q, &start, &end));
        assert_true(end == (uintptr_t)q + want);
#endif
        assert_zeroed_then_free(q, second[k], 0x5A);
    }
    /* a different size in 2 MiB pages never takes a kept mapping */
    unsigned char *a = av_big_calloc((size_t)2 << 20, 1), *b = NULL;
    assert_non_null(a);
    av_big_free(a);
    b = av_big_calloc((size_t)4 << 20, 1);
    assert_non_null(b);
#if defined(__linux__) && !defined(TEST_ASAN)
    uintptr_t start = 0, end = 0;
    assert_true(mapping_of(b, &start, &end));
    assert_true(end == (uintptr_t)b + ((size_t)4 << 20));
#endif
    av_big_free(b);
}

/* On a kernel with 16 or 64 KiB pages the mapping's header page is a whole
 * page of that size: with 4 KiB assumed, unmapping the reservation's head
 * also unmapped the page the header is then written to (SIGSEGV on the
 * first model tensor or canvas of 1 MiB). Each page size is tried in a
 * child, which writes and frees buffers of 1, 3 and 33 MiB. */
static void test_big_calloc_larger_pages(void **state) {
    (void)state;
#if defined(__linux__) && !defined(TEST_ASAN)
    const size_t pages[] = {16384, 65536};
    for (int k = 0; k < 2; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(SIGSEGV, SIG_DFL); /* die of it, not cmocka's handler in the child */
            signal(SIGBUS, SIG_DFL);
            g_sim_page = pages[k];
            const size_t sizes[] = {AV_BIG_MIN, (size_t)3 << 20, (size_t)33 << 20};
            for (int i = 0; i < 3; i++) {
                unsigned char *p = av_big_calloc(sizes[i], 1);
                if (!p) _exit(3);
                for (size_t j = 0; j < sizes[i]; j++)
                    if (p[j]) _exit(4);
                memset(p, 0x5A, sizes[i]);
                av_big_free(p);
            }
            _exit(0);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (WIFSIGNALED(st)) fail_msg("%zu KiB pages: killed by signal %d", pages[k] >> 10, WTERMSIG(st));
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
#else
    print_message("[ SKIPROW  ] no own mappings in this build (not Linux, or AddressSanitizer)\n");
#endif
}

/* make SANITIZE=1 must check these buffers as it checks malloc's: the byte
 * after the last one is poisoned (a write there is reported), for a small
 * buffer (no padding to a multiple of 64 after it) and for the 1 MiB and
 * larger canvases and tensors that would otherwise get a mapping rounded up
 * to 2 MiB, where an overrun writes unseen. */
static void test_big_calloc_bounds_checked_by_asan(void **state) {
    (void)state;
#ifdef TEST_ASAN
    const size_t sizes[] = {100, AV_BIG_MIN, ((size_t)3 << 20) + 5};
    for (size_t k = 0; k < 3; k++) {
        size_t n = sizes[k];
        unsigned char *p = av_big_calloc(n, 1);
        assert_non_null(p);
        assert_false(__asan_address_is_poisoned(p + n - 1));
        assert_true(__asan_address_is_poisoned(p + n));
        av_big_free(p);
    }
#else
    print_message("[ SKIPROW  ] not an AddressSanitizer build: av_big_calloc's bounds are checked by make test SANITIZE=1\n");
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_cuts_at_a_whole_character),
        cmocka_unit_test(test_fail_overflow_sets_the_field),
        cmocka_unit_test(test_fail_append_keeps_the_clause_and_the_flags),
        cmocka_unit_test(test_fnv1a64_reference_vectors),
        cmocka_unit_test(test_fnv1a64_continues),
        cmocka_unit_test(test_sig_text_keeps_significant_zeros),
        cmocka_unit_test(test_gib_over_reads_as_more_than_the_limit),
        cmocka_unit_test(test_big_calloc),
        cmocka_unit_test(test_big_calloc_reuse_zeroed),
        cmocka_unit_test(test_big_calloc_bounds_checked_by_asan),
        cmocka_unit_test(test_big_calloc_larger_pages),
        cmocka_unit_test(test_edit_distance_hand_worked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
