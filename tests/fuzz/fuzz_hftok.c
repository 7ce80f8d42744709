/* fuzz_hftok.c - libFuzzer target for tokenizer.json (src/text/hftok.h).
 *
 * Input "J\n@@\nT": tokenizer.json text J is loaded with av_hftok_load_mem;
 * if that succeeds, text T is encoded and its ids decoded back. Input
 * without "\n@@\n" is all tokenizer.json, encoding a fixed sentence with
 * spaces, digits, an accent, a CJK character and "<s>".
 * Checked: no crash, no leak, no sanitizer report; a load or encode error is
 * a message; every id (and BOS, av_hftok_find of T) is in
 * 0..av_hftok_vocab_size-1, every id of T's has a label shorter than
 * AV_BPE_LABEL_MAX; av_hftok_decode of the ids succeeds and gives
 * text NUL-terminated at the length it says (a byte token <0x00> may put a
 * NUL before that); for byte-level BPE without what may change or drop text
 * (the NFC normalizer, a Removed Split, an lstrip or rstrip added token, an
 * added token whose id model.vocab gives to another text) that text is T.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "text/bpe.h"
#include "text/hftok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *find_sep(const char *s, size_t n) {
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(s + i, "\n@@\n", 4) == 0) return s + i;
    return NULL;
}

/* 1 if the tokenizer.json (parsed again) has what may change or drop text: a
 * string value "NFC" or "Removed", a true "lstrip" or "rstrip", or an added
 * token's id that model.vocab gives to another text. */
static int lossy(const cJSON *j, const cJSON *vocab) {
    for (const cJSON *e = j ? j->child : NULL; e; e = e->next) {
        if (cJSON_IsString(e) && (!strcmp(e->valuestring, "NFC") || !strcmp(e->valuestring, "Removed"))) return 1;
        if (cJSON_IsTrue(e) && e->string && (!strcmp(e->string, "lstrip") || !strcmp(e->string, "rstrip"))) return 1;
        if (e->string && !strcmp(e->string, "content") && cJSON_IsString(e)) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
            for (const cJSON *v = vocab ? vocab->child : NULL; cJSON_IsNumber(id) && v; v = v->next)
                if (cJSON_IsNumber(v) && v->valuedouble == id->valuedouble && strcmp(v->string, e->valuestring)) return 1;
        }
        if (lossy(e, vocab)) return 1;
    }
    return 0;
}

static void encode_check(av_hftok *t, const char *s, size_t n, int exact) {
    int32_t *ids = NULL;
    size_t k = 0;
    av_err err = {{0}};
    if (av_hftok_encode(t, s, n, &ids, &k, &err) != AV_OK) {
        if (!err.msg[0]) abort();
        return;
    }
    int32_t v = av_hftok_vocab_size(t), bos = av_hftok_bos(t), whole = av_hftok_find(t, s, n);
    if (bos < -1 || bos >= v || whole < -1 || whole >= v || !av_hftok_kind_name(t)[0]) abort();
    char label[AV_BPE_LABEL_MAX];
    for (size_t i = 0; i < k; i++) {
        if (ids[i] < 0 || ids[i] >= v) {
            fprintf(stderr, "fuzz_hftok: id %d outside 0..%d\n", (int)ids[i], (int)v - 1);
            abort();
        }
        size_t l = av_hftok_label(label, sizeof label, t, ids[i]);
        if (l >= sizeof label) abort();
    }
    char *back = NULL;
    size_t back_len = 0;
    err.msg[0] = 0;
    if (av_hftok_decode(t, ids, k, &back, &back_len, &err) != AV_OK) {
        fprintf(stderr, "fuzz_hftok: decoding the ids of an encoding failed: %s\n", err.msg);
        abort();
    }
    if (!back || back[back_len] != 0) abort();
    /* byte-level BPE without NFC, a Removed Split or a stripping added token gives the text back */
    if (exact && av_hftok_get_kind(t) == AV_HFTOK_BYTE_LEVEL && (back_len != n || memcmp(back, s, n))) {
        fprintf(stderr, "fuzz_hftok: decode(encode(text)) is not the text (%zu bytes, %zu back)\n", n, back_len);
        abort();
    }
    free(back);
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char fixed[] = "Hello  world 2024, caf\xc3\xa9 \xe6\x88\x91<s>hi";
    const char *s = (const char *)data, *end = s + size;
    const char *sep = find_sep(s, size);
    const char *json_end = sep ? sep : end;
    av_hftok *t = NULL;
    av_err err = {{0}};
    if (av_hftok_load_mem(&t, s, (size_t)(json_end - s), "tokenizer.json", &err) != AV_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    if (!t) abort();
    cJSON *root = cJSON_ParseWithLength(s, (size_t)(json_end - s));
    int exact = root && !lossy(root, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "model"), "vocab"));
    cJSON_Delete(root);
    if (sep)
        encode_check(t, sep + 4, (size_t)(end - (sep + 4)), exact);
    else
        encode_check(t, fixed, sizeof fixed - 1, exact);
    av_hftok_free(t);
    return 0;
}
