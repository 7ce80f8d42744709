/* test_common.c - base/common.h's FNV-1a 64 hash.
 *
 * Expected values were computed independently with a Python loop
 * (h = 14695981039346656037; per byte h ^= byte, h = h * 1099511628211
 * mod 2^64): "" -> the offset basis, "a" -> 0xaf63dc4c8601ec8c, "foobar" ->
 * 0x85944171f73967e8, the values FNV's authors list for FNV-1a 64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/common.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a64_reference_vectors),
        cmocka_unit_test(test_fnv1a64_continues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
