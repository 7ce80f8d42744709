/* hftok_fixture.h - a Hugging Face tokenizer.json of GPT-2 for tests
 * (header-only, static): the real vocabulary and merges of
 * tests/data/gpt2/ (gzip) (testutil.h's tu_gpt2_vocab_dir), a pre_tokenizer
 * given as JSON, and "<|endoftext|>" as an added token (id 50256).
 *
 *   char *json = hf_gpt2_tokenizer_json("{\"type\":\"ByteLevel\",...}");  // caller frees
 */
#ifndef AV_HFTOK_FIXTURE_H
#define AV_HFTOK_FIXTURE_H

#include <cjson/cJSON.h>

#include "testutil.h"

static inline char *hf_gpt2_tokenizer_json(const char *pre) {
    char *dir = tu_gpt2_vocab_dir(), path[4200];
    if (!dir) return NULL;
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    char *vocab = tu_slurp_file(path, NULL);
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    char *merges = tu_slurp_file(path, NULL), *save = NULL;
    rm_rf(dir);
    cJSON *m = cJSON_CreateArray();
    for (char *line = strtok_r(merges, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "#version", 8)) cJSON_AddItemToArray(m, cJSON_CreateString(line));
    cJSON *model = cJSON_CreateObject(), *root = cJSON_CreateObject();
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON_AddItemToObject(model, "vocab", cJSON_Parse(vocab));
    cJSON_AddItemToObject(model, "merges", m);
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
