/* llama_fixture.h - deterministic Llama/Qwen2 checkpoints for tests and the
 * bench (header-only, static). The weights are tests/gen_llama_ref.py's
 * weight(): element j of tensor number i (state-dict order, llama.h's table)
 *     value = float32(center + spread · ((mix((i + 1)·0x9E3779B97F4A7C15 + j) >> 40) / 2^23 − 1))
 * with gpt2_fixture.h's splitmix64 finalizer, (center, spread) = (1, 0.2) for
 * norm weights, (0, 0.5) for embed_tokens, (0, 0.25) for q_proj/k_proj
 * weights, (0, 0.1) otherwise. So the script's files and ours are
 * byte-identical (tests/ref/llama/checkpoints.sha256).
 *
 *   lf_write_checkpoint(dir, &cfg, AV_ST_BF16, 2, &err) writes
 *   model-00001-of-00002.safetensors (embed_tokens and layer 0) and
 *   model-00002-of-00002.safetensors (the rest), or model.safetensors for 1.
 */
#ifndef AV_LLAMA_FIXTURE_H
#define AV_LLAMA_FIXTURE_H

#include "gpt2_fixture.h"
#include "nn/llama.h"

static inline void lf_fill(float *w, int index, const char *name, size_t n) {
    double center = 0.0, spread = 0.1;
    size_t len = strlen(name);
    if (len >= 11 && strcmp(name + len - 11, "norm.weight") == 0) center = 1.0, spread = 0.2;
    else if (strcmp(name, "model.embed_tokens.weight") == 0) spread = 0.5;
    else if (strstr(name, "q_proj.weight") || strstr(name, "k_proj.weight")) spread = 0.25;
    uint64_t base = (uint64_t)(index + 1) * 0x9E3779B97F4A7C15ull;
    for (size_t j = 0; j < n; j++) w[j] = (float)(center + spread * ((double)(gf_mix(base + j) >> 40) / (double)(1 << 23) - 1.0));
}

/* Shard (0-based) of a tensor when the checkpoint has `shards` files. */
static inline int lf_shard(const char *name, int shards) {
    if (shards == 1) return 0;
    return strcmp(name, "model.embed_tokens.weight") == 0 || strncmp(name, "model.layers.0.", 15) == 0 ? 0 : 1;
}

static inline av_status lf_write_checkpoint(const char *dir, const av_llama_config *cfg, av_st_dtype dtype, int shards,
                                            av_err *err) {
    av_llama_params p = {0};
    int n = av_llama_num_tensors(cfg);
    av_llama_tensor *tab = calloc((size_t)n, sizeof *tab);
    av_st_write_tensor *w = calloc((size_t)n, sizeof *w);
    float **data = calloc((size_t)n, sizeof *data);
    p.layers = calloc((size_t)cfg->n_layer, sizeof *p.layers);
    av_status s = AV_ERUNTIME;
    if (!tab || !w || !data || !p.layers) goto done;
    av_llama_tensor_table(tab, cfg, &p);
    for (int i = 0; i < n; i++) {
        if (!(data[i] = malloc(tab[i].numel * sizeof(float)))) goto done;
        lf_fill(data[i], i, tab[i].name, tab[i].numel);
    }
    s = AV_OK;
    for (int f = 0; f < shards && !s; f++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (lf_shard(tab[i].name, shards) == f)
                w[k++] = (av_st_write_tensor){tab[i].name, dtype, tab[i].ndim, {tab[i].shape[0], tab[i].shape[1]}, data[i]};
        char path[4200];
        if (shards == 1) snprintf(path, sizeof path, "%s/model.safetensors", dir);
        else snprintf(path, sizeof path, "%s/model-%05d-of-%05d.safetensors", dir, f + 1, shards);
        s = av_safetensors_write(path, w, k, err);
    }
done:
    if (s == AV_ERUNTIME && !err->msg[0]) av_fail(err, AV_ERUNTIME, "out of memory building %s", dir);
    for (int i = 0; data && i < n; i++) free(data[i]);
    free(data);
    free(tab);
    free(w);
    free(p.layers);
    return s;
}

#endif
