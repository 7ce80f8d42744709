/* hftok_fixture.h - a Hugging Face tokenizer.json of GPT-2 for tests
 * (header-only, static): the real vocabulary and merges of
 * tests/data/gpt2/ (gzip) (testutil.h's tu_gpt2_vocab_dir), a pre_tokenizer
 * given as JSON, and "<|endoftext|>" as an added token (id 50256).
 *
 *   char *json = hf_gpt2_tokenizer_json("{\"type\":\"ByteLevel\",...}", 0);  // caller frees
 *
 * V > 0 keeps only ids 0..V-1 and the merges that make them (GPT-2's merge
 * of rank r makes id 256 + r), e.g. 49152 for SmolLM's vocabulary size.
 */
#ifndef AV_HFTOK_FIXTURE_H
#define AV_HFTOK_FIXTURE_H

#include <cjson/cJSON.h>

#include "testutil.h"

static inline char *hf_gpt2_tokenizer_json(const char *pre, int V) {
    char *dir = tu_gpt2_vocab_dir(), path[4200];
    if (!dir) return NULL;
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    char *vocab = tu_slurp_file(path, NULL);
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    char *merges = tu_slurp_file(path, NULL), *save = NULL;
    rm_rf(dir);
    cJSON *m = cJSON_CreateArray();
    int rank = 0;
    for (char *line = strtok_r(merges, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "#version", 8) && (V <= 0 || 256 + rank++ < V)) cJSON_AddItemToArray(m, cJSON_CreateString(line));
    cJSON *model = cJSON_CreateObject(), *root = cJSON_CreateObject();
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON *voc = cJSON_Parse(vocab);
    for (cJSON *e = voc ? voc->child : NULL, *next; V > 0 && e; e = next) {
        next = e->next;
        if (e->valuedouble >= V) cJSON_Delete(cJSON_DetachItemViaPointer(voc, e));
    }
    cJSON_AddItemToObject(model, "vocab", voc);
    cJSON_AddItemToObject(model, "merges", m);
    if (V <= 0 || V > 50256)
        cJSON_AddItemToObject(root, "added_tokens",
                              cJSON_Parse("[{\"id\":50256,\"content\":\"<|endoftext|>\",\"special\":true}]"));
    cJSON_AddNullToObject(root, "normalizer");
    cJSON_AddItemToObject(root, "pre_tokenizer", cJSON_Parse(pre));
    cJSON_AddItemToObject(root, "model", model);
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(vocab);
    free(merges);
    return out;
}

#define HF_BYTE_LEVEL "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true}"

#endif
