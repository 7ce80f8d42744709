/* fuzz_bpe.c - libFuzzer target for the byte-level BPE (src/text/bpe.h).
 *
 * Input "V\n@@\nM\n@@\nT": vocab.json text V and merges.txt text M are loaded
 * with av_bpe_load_mem; if that succeeds, text T is encoded. Input without
 * "\n@@\n" is text encoded with GPT-2's real vocabulary (read once from
 * tests/data/gpt2/, run from the repository root as scripts/fuzz.sh does).
 * Checked: no crash, no leak, no sanitizer report; a load error is a message;
 * decode(encode(T)) == T; every id has a label of at most AV_BPE_LABEL_MAX.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "text/bpe.h"

static char *gunzip(const char *path, size_t *n) {
    gzFile in = gzopen(path, "rb");
    if (!in) return NULL;
    size_t cap = 1 << 21, len = 0;
    char *buf = malloc(cap);
    for (int k; (k = gzread(in, buf + len, (unsigned)(cap - len))) > 0;) {
        len += (size_t)k;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    gzclose(in);
    *n = len;
    return buf;
}

static av_bpe *gpt2(void) {
    static av_bpe *b;
    static int tried;
    if (!tried) {
        tried = 1;
        size_t vn = 0, mn = 0;
        char *v = gunzip("tests/data/gpt2/vocab.json.gz", &vn), *m = gunzip("tests/data/gpt2/merges.txt.gz", &mn);
        av_err err;
        if (!v || !m || av_bpe_load_mem(&b, v, vn, m, mn, &err) != AV_OK) {
            fprintf(stderr, "fuzz_bpe: cannot load GPT-2's vocabulary from tests/data/gpt2/\n");
            abort();
        }
        free(v);
        free(m);
    }
    return b;
}

static void encode_check(av_bpe *b, const char *t, size_t n) {
    int32_t *ids;
    size_t k, back_len;
    char *back;
    av_err err;
    if (av_bpe_encode(b, t, n, &ids, &k, &err) != AV_OK) {
        if (!err.msg[0]) abort();
        return;
    }
    if (av_bpe_decode(b, ids, k, &back, &back_len, &err) != AV_OK) abort();
    if (back_len != n || memcmp(back, t, n) != 0) abort();
    char label[AV_BPE_LABEL_MAX];
    for (size_t i = 0; i < k; i++)
        if (av_bpe_label(label, sizeof label, b, ids[i]) >= sizeof label) abort();
    free(back);
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *find_sep(const char *s, size_t n) {
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(s + i, "\n@@\n", 4) == 0) return s + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data, *end = s + size;
    const char *sep1 = find_sep(s, size);
    if (!sep1) {
        encode_check(gpt2(), s, size);
        return 0;
    }
    const char *m = sep1 + 4, *sep2 = find_sep(m, (size_t)(end - m));
    const char *t = sep2 ? sep2 + 4 : end;
    av_bpe *b;
    av_err err;
    if (av_bpe_load_mem(&b, s, (size_t)(sep1 - s), m, (size_t)((sep2 ? sep2 : end) - m), &err) != AV_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    encode_check(b, t, (size_t)(end - t));
    av_bpe_free(b);
    return 0;
}
