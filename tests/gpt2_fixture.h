/* gpt2_fixture.h - deterministic GPT-2 checkpoints for tests and the bench
 * (header-only, static). The weights are the function tests/gen_gpt2_ref.py
 * defines in weight(): element j of parameter number i (table order) is
 *     z = mix((i + 1) * 0x9E3779B97F4A7C15 + j)        splitmix64's finalizer
 *     u = (z >> 40) / 2^23 − 1                          in [−1, 1)
 *     value = float32(center + spread · u)
 * with (center, spread) = (1, 0.2) for LayerNorm weights, (0, 0.25) for
 * c_attn weights, (0, 0.5) for wte, (0, 0.1) otherwise. So the checkpoint is
 * written at test time (12.9 MB of wte is not committed) and the script's
 * file and ours must be byte-identical (tests/ref/gpt2/checkpoints.sha256).
 *
 *   gf_write_checkpoint(path, &cfg, AV_ST_F16, "transformer.", 1, &err)
 *     writes model.safetensors in the script's order: the parameters, then
 *     (extras) h.N.attn.bias (1, 1, maxT, maxT) lower-triangular ones and
 *     h.N.attn.masked_bias () = -1e4 as F32, and lm_head.weight = wte.
 */
#ifndef AV_GPT2_FIXTURE_H
#define AV_GPT2_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "nn/gpt2.h"

static inline uint64_t gf_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void gf_fill(float *w, int index, const char *name, size_t n) {
    double center = 0.0, spread = 0.1;
    size_t len = strlen(name);
    int is_weight = len > 7 && strcmp(name + len - 7, ".weight") == 0;
    if (strncmp(name, "ln_", 3) == 0 || strstr(name, ".ln_")) {
        if (is_weight) center = 1.0, spread = 0.2;
    } else if (len >= 13 && strcmp(name + len - 13, "c_attn.weight") == 0) {
        spread = 0.25;
    } else if (strcmp(name, "wte.weight") == 0) {
        spread = 0.5;
    }
    uint64_t base = (uint64_t)(index + 1) * 0x9E3779B97F4A7C15ull;
    for (size_t j = 0; j < n; j++) {
        double u = (double)(gf_mix(base + j) >> 40) / (double)(1 << 23) - 1.0;
        w[j] = (float)(center + spread * u);
    }
}

/* Fill every parameter of p (allocated here in one block; free(*block)). */
static inline int gf_params(av_gpt2_params *p, float **block, const av_gpt2_config *cfg) {
    int n = av_gpt2_num_tensors(cfg);
    av_gpt2_tensor *tab = calloc((size_t)n, sizeof *tab);
    p->h = calloc((size_t)cfg->n_layer, sizeof *p->h);
    *block = malloc(av_gpt2_num_params(cfg) * sizeof(float));
    if (!tab || !p->h || !*block) return -1;
    av_gpt2_tensor_table(tab, cfg, p);
    float *at = *block;
    for (int i = 0; i < n; i++) {
        *tab[i].slot = at;
        gf_fill(at, i, tab[i].name, tab[i].numel);
        at += tab[i].numel;
    }
    free(tab);
    return 0;
}

static inline av_status gf_write_checkpoint(const char *path, const av_gpt2_config *cfg, av_st_dtype dtype,
                                            const char *prefix, int extras, av_err *err) {
    av_gpt2_params p = {0};
    float *block = NULL;
    int n = av_gpt2_num_tensors(cfg), L = cfg->n_layer;
    size_t P = (size_t)cfg->n_positions;
    av_gpt2_tensor *tab = calloc((size_t)n, sizeof *tab);
    av_st_write_tensor *w = calloc((size_t)n + 2 * (size_t)L + 1, sizeof *w);
    char(*names)[64] = calloc((size_t)n + 2 * (size_t)L + 1, 64);
    float *tril = extras ? calloc(P * P, sizeof(float)) : NULL;
    static const float masked_bias = -1e4f;
    av_status s = AV_ERUNTIME;
    if (!tab || !w || !names || (extras && !tril) || gf_params(&p, &block, cfg)) goto done;
    av_gpt2_tensor_table(tab, cfg, &p);
    int k = 0;
    for (int i = 0; i < n; i++, k++) {
        snprintf(names[k], 64, "%s%s", prefix, tab[i].name);
        w[k] = (av_st_write_tensor){names[k], dtype, tab[i].ndim, {tab[i].shape[0], tab[i].shape[1]}, *tab[i].slot};
    }
    for (size_t r = 0; extras && r < P; r++)
        for (size_t c = 0; c <= r; c++) tril[r * P + c] = 1.0f;
    for (int l = 0; extras && l < L; l++, k += 2) {
        snprintf(names[k], 64, "%sh.%d.attn.bias", prefix, l);
        w[k] = (av_st_write_tensor){names[k], AV_ST_F32, 4, {1, 1, P, P}, tril};
        snprintf(names[k + 1], 64, "%sh.%d.attn.masked_bias", prefix, l);
        w[k + 1] = (av_st_write_tensor){names[k + 1], AV_ST_F32, 0, {0}, &masked_bias};
    }
    if (extras) w[k++] = (av_st_write_tensor){"lm_head.weight", dtype, 2, {(size_t)cfg->vocab_size, (size_t)cfg->n_embd}, p.wte};
    s = av_safetensors_write(path, w, k, err);
done:
    if (s == AV_ERUNTIME && !err->msg[0]) av_fail(err, AV_ERUNTIME, "out of memory building %s", path);
    free(tab);
    free(w);
    free(names);
    free(tril);
    free(block);
    free(p.h);
    return s;
}

/* The safetensors file at path written again with tensor from renamed to `to`, or left out when to is NULL
 * (each tensor keeps its dtype and values; the order is the file's). As safetensors.torch.save_model writes
 * a tied model, keeping lm_head.weight alone: drop "transformer.wte.weight", or rename
 * "model.embed_tokens.weight" to "lm_head.weight". */
static inline av_status gf_rename_tensor(const char *path, const char *from, const char *to, av_err *err) {
    av_safetensors st;
    av_status s = av_safetensors_open(&st, path, err);
    if (s) return s;
    av_st_write_tensor *w = calloc((size_t)st.n, sizeof *w);
    float **owned = calloc((size_t)st.n, sizeof *owned);
    int k = 0;
    s = w && owned ? AV_OK : AV_ERUNTIME;
    for (int i = 0; i < st.n && !s; i++) {
        const av_st_tensor *t = &st.tensors[i];
        const float *v;
        int hit = strcmp(t->name, from) == 0;
        if (hit && !to) continue;
        if ((s = av_safetensors_f32(&v, &owned[i], &st, t, err))) break;
        w[k] = (av_st_write_tensor){hit ? to : t->name, t->dtype, t->ndim, {0}, v};
        memcpy(w[k].shape, t->shape, sizeof t->shape);
        k++;
    }
    if (!s) s = av_safetensors_write(path, w, k, err);
    for (int i = 0; owned && i < st.n; i++) free(owned[i]);
    free(owned);
    free(w);
    av_safetensors_close(&st);
    return s;
}

#endif
