/* fuzz_safetensors.c - libFuzzer target for the safetensors header parser
 * (av_safetensors_parse) and the float32 conversion.
 *
 * Run: make fuzz FUZZ_TARGETS=safetensors FUZZ_SECONDS=180 (scripts/fuzz.sh;
 * seeds in tests/fuzz/safetensors_corpus/, header tokens in
 * tests/fuzz/safetensors.dict).
 *
 * Property checked beyond "no crash, no leak, no out-of-bounds read": a
 * successful parse gives tensors whose byte ranges lie inside the data
 * section, match shape × dtype size, do not overlap and add up to the data
 * section (no gap, nothing after the last); each F32/F16/BF16
 * tensor converts to all-finite floats or fails with a message; a failed
 * parse leaves the struct empty with a message that starts with the name.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tensor(const av_safetensors *st, const av_st_tensor *t) {
    size_t data_len = st->len - 8 - st->header_len;
    if (t->begin > t->end || t->end > data_len) abort();
    if (t->end - t->begin != t->numel * av_st_dtype_size(t->dtype)) abort();
    if (av_safetensors_find(st, t->name) == NULL) abort();
    const float *f;
    float *owned;
    av_err err = {{0}};
    av_status s = av_safetensors_f32(&f, &owned, st, t, &err);
    if (s == AV_OK) {
        for (size_t i = 0; i < t->numel; i++)
            if (!isfinite(f[i])) abort();
    } else if (owned || !err.msg[0]) {
        abort();
    }
    free(owned);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    av_safetensors st;
    av_err err = {{0}};
    av_status s = av_safetensors_parse(&st, data, size, "fuzz.safetensors", &err);
    if (s == AV_OK) {
        size_t bytes = 0; /* the tensors tile the data: their sizes add up to its length */
        for (int i = 0; i < st.n; i++) bytes += st.tensors[i].end - st.tensors[i].begin;
        if (bytes != st.len - 8 - st.header_len) abort();
        for (int i = 0; i < st.n; i++) {
            check_tensor(&st, &st.tensors[i]);
            for (int j = 0; j < i; j++) {
                const av_st_tensor *a = &st.tensors[i], *b = &st.tensors[j];
                if (a->begin < a->end && b->begin < b->end && a->begin < b->end && b->begin < a->end) abort();
            }
        }
    } else {
        if (st.tensors || st.n) abort();
        if (strncmp(err.msg, "fuzz.safetensors", 16) != 0) abort();
    }
    av_safetensors_close(&st);
    return 0;
}
