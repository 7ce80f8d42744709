/* fuzz_npy.c - libFuzzer target for the .npy reader (av_npy_parse).
 *
 * Run: make fuzz FUZZ_TARGETS=npy FUZZ_SECONDS=180 (scripts/fuzz.sh; seeds in
 * tests/fuzz/npy_corpus/, header tokens in tests/fuzz/npy.dict). By hand:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *       tests/fuzz/fuzz_npy.c src/npy.c src/fileio.c src/common.c -lm -o build/fuzz_npy
 *   mkdir -p build/fuzz_npy_work
 *   build/fuzz_npy -max_total_time=180 -dict=tests/fuzz/npy.dict \
 *       build/fuzz_npy_work tests/fuzz/npy_corpus
 * (the first folder collects new inputs, so the committed corpus stays small).
 *
 * Property checked beyond "no crash, no leak, no out-of-bounds read": a
 * successful parse returns a consistent array (ndim in range, exactly one of
 * data/bytes set, every float finite) and a failed one leaves the output empty
 * with a message that starts with the file name.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    av_npy a;
    av_err err = {{0}};
    av_status s = av_npy_parse(&a, data, size, "fuzz.npy", &err);
    if (s == AV_OK) {
        if (a.ndim < 0 || a.ndim > AV_NPY_MAX_NDIM) abort();
        if ((a.data == NULL) == (a.bytes == NULL)) abort();
        size_t n = 1;
        for (int i = 0; i < a.ndim; i++) n *= a.shape[i]; /* bounded: data fits in size */
        if (a.data)
            for (size_t i = 0; i < n; i++)
                if (!isfinite(a.data[i])) abort();
        if (a.bytes && a.descr[1] == 'b')
            for (size_t i = 0; i < n; i++)
                if (a.bytes[i] > 1) abort();
    } else {
        if (a.data || a.bytes) abort();
        if (strncmp(err.msg, "fuzz.npy", 8) != 0) abort();
    }
    av_npy_free(&a);
    return 0;
}
