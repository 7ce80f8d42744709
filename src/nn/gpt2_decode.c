/* gpt2_decode.c - one token at a time with a key/value cache (see
 * gpt2_decode.h for the math and why the numbers are the full forward's).
 * The attention of the one query is the plain loops, sums in double; the
 * projections use the model's kernel as av_gpt2_forward does. */
#include "nn/gpt2_decode.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nn/attention.h"
#include "nn/attention_blas.h"

void av_gpt2_cache_free(av_gpt2_cache *c) {
    free(c->k), free(c->v), free(c->pe);
    free(c->x), free(c->ln), free(c->res), free(c->res2), free(c->qkv), free(c->atty), free(c->proj);
    free(c->fch), free(c->fch_gelu), free(c->s), free(c->att), free(c->e), free(c->acc), free(c->logits);
    memset(c, 0, sizeof *c);
}

/* The buffers for L layers of KVH cached heads of D, C = d_model, a one-row
 * query-key-value of qkv floats, an MLP of inter (fch holds 2·inter: a
 * Llama's gate and up), V logits, cap positions. */
static av_status cache_alloc(av_gpt2_cache *c, int L, int C, int KVH, int D, size_t qkv, size_t inter, int V, int cap,
                             int sinusoidal, av_err *err) {
    memset(c, 0, sizeof *c);
    size_t kv = (size_t)L * KVH * D * (size_t)cap; /* (L, KVH, cap, D) */
    c->cap = cap, c->kv_heads = KVH;
    c->k = malloc(kv * sizeof(float)), c->v = malloc(kv * sizeof(float));
    if (sinusoidal) c->pe = malloc((size_t)cap * C * sizeof(float));
    c->x = malloc((size_t)C * sizeof(float)), c->ln = malloc((size_t)C * sizeof(float));
    c->res = malloc((size_t)C * sizeof(float)), c->res2 = malloc((size_t)C * sizeof(float));
    c->qkv = malloc(qkv * sizeof(float));
    c->atty = malloc((size_t)C * sizeof(float)), c->proj = malloc((size_t)C * sizeof(float));
    c->fch = malloc(2 * inter * sizeof(float)), c->fch_gelu = malloc(inter * sizeof(float));
    c->s = malloc((size_t)cap * sizeof(float)), c->att = malloc((size_t)cap * sizeof(float));
    c->e = malloc((size_t)cap * sizeof(double)), c->acc = malloc((size_t)D * sizeof(double));
    c->logits = malloc((size_t)V * sizeof(float));
    if (!c->k || !c->v || (sinusoidal && !c->pe) || !c->x || !c->ln || !c->res || !c->res2 || !c->qkv || !c->atty ||
        !c->proj || !c->fch || !c->fch_gelu || !c->s || !c->att || !c->e || !c->acc || !c->logits) {
        av_gpt2_cache_free(c);
        return av_fail(err, AV_ERUNTIME, "out of memory for the key/value cache (%zu bytes)", 2 * kv * sizeof(float));
    }
    if (c->pe) sinusoidal_forward(c->pe, cap, C); /* row t is the full forward's row t */
    return AV_OK;
}

av_status av_gpt2_cache_alloc(av_gpt2_cache *c, const av_gpt2_config *cfg, int cap, av_err *err) {
    memset(c, 0, sizeof *c);
    if (cap < 1 || cap > AV_MAX_TOKENS)
        return av_fail(err, AV_EUSAGE, "a cache of %d positions: allowed 1..%d", cap, AV_MAX_TOKENS);
    if (cfg->positions == AV_POS_LEARNED && cap > cfg->n_positions)
        return av_fail(err, AV_EUSAGE, "a cache of %d positions is more than the model's %d (n_positions)", cap,
                       cfg->n_positions);
    int C = cfg->n_embd, H = cfg->n_head;
    return cache_alloc(c, cfg->n_layer, C, H, C / H, 3 * (size_t)C, 4 * (size_t)C, cfg->vocab_size, cap,
                       cfg->positions == AV_POS_SINUSOIDAL, err);
}

av_status av_llama_cache_alloc(av_gpt2_cache *c, const av_llama_config *cfg, int cap, av_err *err) {
    memset(c, 0, sizeof *c);
    if (cap < 1 || cap > AV_MAX_TOKENS)
        return av_fail(err, AV_EUSAGE, "a cache of %d positions: allowed 1..%d", cap, AV_MAX_TOKENS);
    if (cap > cfg->max_positions)
        return av_fail(err, AV_EUSAGE, "a cache of %d positions is more than the model's %d (max_position_embeddings)",
                       cap, cfg->max_positions);
    int C = cfg->n_embd, H = cfg->n_head, KVH = cfg->n_kv_head, D = C / H;
    return cache_alloc(c, cfg->n_layer, C, KVH, D, (size_t)C + 2 * (size_t)KVH * D, (size_t)cfg->n_inter,
                       cfg->vocab_size, cap, 0, err);
}

/* Copy the first T positions of each layer's k and v (a->qkvh, (H, a->T, D)
 * each, after RoPE) into the cache: K/V head j from query head j·(H/KVH),
 * which holds it (llama.c repeats each K/V head H/KVH times). */
static void prefill(av_gpt2_cache *c, const av_gpt2_acts *a, int L, int C, int H) {
    int T = a->T < c->cap ? a->T : c->cap, KVH = c->kv_heads, D = C / H;
    size_t TC = (size_t)a->T * C;
    for (int l = 0; l < L; l++) {
        const float *k = a->qkvh + 3 * (size_t)l * TC + TC, *v = k + TC;
        for (int j = 0; j < KVH; j++) {
            size_t to = (((size_t)l * KVH + j) * c->cap) * D, from = (size_t)j * (H / KVH) * a->T * D;
            memcpy(c->k + to, k + from, (size_t)T * D * sizeof(float));
            memcpy(c->v + to, v + from, (size_t)T * D * sizeof(float));
        }
    }
    c->T = T;
}

void av_gpt2_cache_prefill(av_gpt2_cache *c, const av_gpt2_acts *a, const av_gpt2_config *cfg) {
    prefill(c, a, cfg->n_layer, cfg->n_embd, cfg->n_head);
}

void av_llama_cache_prefill(av_gpt2_cache *c, const av_gpt2_acts *a, const av_llama_config *cfg) {
    prefill(c, a, cfg->n_layer, cfg->n_embd, cfg->n_head);
}

/* x (C) became infinite or NaN: the full forward's error (gpt2.c finite_or_fail). */
static av_status finite_or_fail(const float *x, size_t n, int l, const char *what, av_err *err) {
    return all_finite(x, n) ? AV_OK : av_overflow_fail(l, what, "; the checkpoint's weights are too large", err);
}

/* The one query q (H, 1, D) at position t = c->T against layer l's cached
 * keys and values 0..t → c->atty (1, C), heads merged: per head the loops of
 * attention.c's scores_forward, softmax_forward and weighted_sum_forward for
 * one row; query head h reads cached head h / (H/KVH). The new k, v are in
 * the cache already. */
static av_status attend_cached(av_gpt2_cache *c, const float *q, int l, int H, int D, double scale, av_err *err) {
    int t = c->T, KVH = c->kv_heads;
    for (int h = 0; h < H; h++) {
        size_t at = ((size_t)l * KVH + (size_t)(h / (H / KVH))) * c->cap * D;
        const float *K = c->k + at, *V = c->v + at, *q_h = q + (size_t)h * D;
        for (int j = 0; j <= t; j++) { /* scores: q·k_j·scale, the dot in double */
            double dot = 0.0;
            for (int d = 0; d < D; d++) dot += (double)q_h[d] * (double)K[(size_t)j * D + d];
            c->s[j] = (float)(dot * scale);
        }
        if (!all_finite(c->s, (size_t)t + 1)) return finite_or_fail(c->s, (size_t)t + 1, l, "the scores q·kᵀ", err);
        double maxv = -INFINITY, sum = 0.0; /* softmax over keys 0..t, all visible */
        for (int j = 0; j <= t; j++)
            if (c->s[j] > maxv) maxv = c->s[j];
        for (int j = 0; j <= t; j++) sum += c->e[j] = exp((double)c->s[j] - maxv);
        for (int j = 0; j <= t; j++) c->att[j] = (float)(c->e[j] / sum);
        for (int d = 0; d < D; d++) c->acc[d] = 0.0; /* att·V, summed over j in order */
        for (int j = 0; j <= t; j++) {
            double a = c->att[j];
            for (int d = 0; d < D; d++) c->acc[d] += a * (double)V[(size_t)j * D + d];
        }
        for (int d = 0; d < D; d++) c->atty[(size_t)h * D + d] = (float)c->acc[d];
    }
    return AV_OK;
}

/* k, v (KVH, 1, D) each into layer l's cache at position c->T. */
static void cache_put(av_gpt2_cache *c, const float *k, const float *v, int l, int D) {
    for (int j = 0; j < c->kv_heads; j++) {
        size_t at = (((size_t)l * c->kv_heads + j) * c->cap + (size_t)c->T) * D;
        memcpy(c->k + at, k + (size_t)j * D, (size_t)D * sizeof(float));
        memcpy(c->v + at, v + (size_t)j * D, (size_t)D * sizeof(float));
    }
}

/* GPT-2 layer l's attention of the one token on inp (C) → c->proj (C). */
static av_status attend(av_gpt2_cache *c, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l, const float *inp,
                        av_err *err) {
    int t = c->T, C = cfg->n_embd, H = cfg->n_head, D = C / H;
    gpt2_matmul(c->qkv, inp, w->attn_c_attn_w, w->attn_c_attn_b, 1, C, 3 * C, cfg->kernel);
    float *q = c->qkv, *k = c->qkv + C, *v = c->qkv + 2 * C; /* (H, 1, D) each: one row needs no reshape */
    if (cfg->positions == AV_POS_ROPE) {
        rope_forward(q, H, 1, D, cfg->rope_style, cfg->rope_base, t);
        rope_forward(k, H, 1, D, cfg->rope_style, cfg->rope_base, t);
    }
    cache_put(c, k, v, l, D);
    av_status s = attend_cached(c, q, l, H, D, cfg->scale ? 1.0 / sqrt((double)D) : 1.0, err);
    if (!s) gpt2_matmul(c->proj, c->atty, w->attn_c_proj_w, w->attn_c_proj_b, 1, C, C, cfg->kernel);
    return s;
}

/* The MLP on inp (C) → c->proj (C): c_fc, GELU, c_proj. */
static void mlp(av_gpt2_cache *c, const av_gpt2_layer *w, const av_gpt2_config *cfg, const float *inp) {
    int C = cfg->n_embd;
    gpt2_matmul(c->fch, inp, w->mlp_c_fc_w, w->mlp_c_fc_b, 1, C, 4 * C, cfg->kernel);
    gelu_forward(c->fch_gelu, c->fch, 4 * (size_t)C);
    gpt2_matmul(c->proj, c->fch_gelu, w->mlp_c_proj_w, w->mlp_c_proj_b, 1, 4 * C, C, cfg->kernel);
}

/* Room for one more position, id within 0..V-1, and the BLAS library when
 * the kernel needs it: av_gpt2_decode's and av_llama_decode's errors. */
static av_status decode_check(const av_gpt2_cache *c, int id, int V, av_kernel kernel, av_err *err) {
    if (c->T >= c->cap) return av_fail(err, AV_EUSAGE, "the cache holds %d positions, all of them filled", c->cap);
    if (id < 0 || id >= V)
        return av_fail(err, AV_EUSAGE, "token id %d at position %d is outside the vocabulary 0..%d", id, c->T, V - 1);
    return kernel == AV_KERNEL_REFERENCE ? AV_OK : av_blas_require(err);
}

av_status av_gpt2_decode(av_gpt2_cache *c, const av_gpt2_params *p, const av_gpt2_config *cfg, int id, av_err *err) {
    int t = c->T, C = cfg->n_embd;
    double eps = cfg->layer_norm_epsilon;
    av_status s = decode_check(c, id, cfg->vocab_size, cfg->kernel, err);
    if (s) return s;
    const float *wte = p->wte + (size_t)id * C;
    if (cfg->positions == AV_POS_LEARNED) residual_forward(c->x, wte, p->wpe + (size_t)t * C, (size_t)C);
    else if (cfg->positions == AV_POS_SINUSOIDAL) residual_forward(c->x, wte, c->pe + (size_t)t * C, (size_t)C);
    else memcpy(c->x, wte, (size_t)C * sizeof(float));
    if ((s = finite_or_fail(c->x, (size_t)C, -1, "the embedding (wte + positions, before layer 0)", err))) return s;
    for (int l = 0; l < cfg->n_layer; l++) {
        const av_gpt2_layer *w = &p->h[l];
        if (cfg->norm == AV_NORM_PRE) { /* x + Attn(LN_1(x)), then + MLP(LN_2(.)) */
            layernorm_forward(c->ln, NULL, NULL, c->x, w->ln_1_w, w->ln_1_b, 1, C, eps);
            if ((s = attend(c, w, cfg, l, c->ln, err))) return s;
            residual_forward(c->res2, c->x, c->proj, (size_t)C);
            layernorm_forward(c->ln, NULL, NULL, c->res2, w->ln_2_w, w->ln_2_b, 1, C, eps);
            mlp(c, w, cfg, c->ln);
            residual_forward(c->x, c->res2, c->proj, (size_t)C);
        } else { /* LN_1(x + Attn(x)), then LN_2(. + MLP(.)) */
            if ((s = attend(c, w, cfg, l, c->x, err))) return s;
            residual_forward(c->res2, c->x, c->proj, (size_t)C);
            layernorm_forward(c->ln, NULL, NULL, c->res2, w->ln_1_w, w->ln_1_b, 1, C, eps);
            mlp(c, w, cfg, c->ln);
            residual_forward(c->res, c->ln, c->proj, (size_t)C);
            layernorm_forward(c->x, NULL, NULL, c->res, w->ln_2_w, w->ln_2_b, 1, C, eps);
        }
        if ((s = finite_or_fail(c->x, (size_t)C, l, "the residual stream", err))) return s;
    }
    layernorm_forward(c->ln, NULL, NULL, c->x, p->ln_f_w, p->ln_f_b, 1, C, eps);
    gpt2_unembed(c->logits, c->ln, p->wte, 1, C, cfg->vocab_size, cfg->kernel);
    c->T = t + 1;
    return finite_or_fail(c->logits, (size_t)cfg->vocab_size, -1, "the logits (after the final LayerNorm ln_f)", err);
}

/* A Llama layer l's attention of the one token on inp (C) → c->proj (C):
 * q, k, v projections (Qwen2's biases), RoPE in halves, grouped-query
 * attention over the cache, o_proj. */
static av_status llama_attend(av_gpt2_cache *c, const av_llama_layer *w, const av_llama_config *cfg, int l,
                              const float *inp, av_err *err) {
    int t = c->T, C = cfg->n_embd, H = cfg->n_head, KVH = cfg->n_kv_head, D = C / H, KVD = KVH * D;
    float *q = c->qkv, *k = c->qkv + C, *v = k + KVD; /* (H, 1, D), (KVH, 1, D), (KVH, 1, D) */
    linear_forward(q, inp, w->q_proj, w->q_bias, 1, C, C, cfg->kernel);
    linear_forward(k, inp, w->k_proj, w->k_bias, 1, C, KVD, cfg->kernel);
    linear_forward(v, inp, w->v_proj, w->v_bias, 1, C, KVD, cfg->kernel);
    rope_forward(q, H, 1, D, AV_ROPE_HALF, cfg->rope_theta, t);
    rope_forward(k, KVH, 1, D, AV_ROPE_HALF, cfg->rope_theta, t);
    cache_put(c, k, v, l, D);
    av_status s = attend_cached(c, q, l, H, D, 1.0 / sqrt((double)D), err);
    if (!s) linear_forward(c->proj, c->atty, w->o_proj, NULL, 1, C, C, cfg->kernel);
    return s;
}

av_status av_llama_decode(av_gpt2_cache *c, const av_llama_params *p, const av_llama_config *cfg, int id,
                          av_err *err) {
    int t = c->T, C = cfg->n_embd, I = cfg->n_inter;
    double eps = cfg->rms_norm_eps;
    av_status s = decode_check(c, id, cfg->vocab_size, cfg->kernel, err);
    if (s) return s;
    memcpy(c->x, p->embed_tokens + (size_t)id * C, (size_t)C * sizeof(float));
    float *gate = c->fch, *up = c->fch + I;
    for (int l = 0; l < cfg->n_layer; l++) { /* x + Attn(RMSNorm(x)), then + MLP(RMSNorm(.)) */
        const av_llama_layer *w = &p->layers[l];
        rmsnorm_forward(c->ln, NULL, c->x, w->input_layernorm, 1, C, eps);
        if ((s = llama_attend(c, w, cfg, l, c->ln, err))) return s;
        residual_forward(c->res2, c->x, c->proj, (size_t)C);
        rmsnorm_forward(c->ln, NULL, c->res2, w->post_attention_layernorm, 1, C, eps);
        linear_forward(gate, c->ln, w->gate_proj, NULL, 1, C, I, cfg->kernel);
        linear_forward(up, c->ln, w->up_proj, NULL, 1, C, I, cfg->kernel);
        swiglu_forward(c->fch_gelu, gate, up, (size_t)I);
        linear_forward(c->proj, c->fch_gelu, w->down_proj, NULL, 1, I, C, cfg->kernel);
        residual_forward(c->x, c->res2, c->proj, (size_t)C);
        if ((s = finite_or_fail(c->x, (size_t)C, l, "the residual stream", err))) return s;
    }
    rmsnorm_forward(c->ln, NULL, c->x, p->norm, 1, C, eps);
    linear_forward(c->logits, c->ln, p->lm_head, NULL, 1, C, cfg->vocab_size, cfg->kernel);
    c->T = t + 1;
    return finite_or_fail(c->logits, (size_t)cfg->vocab_size, -1, "the logits (after the final RMSNorm, model.norm)",
                          err);
}
