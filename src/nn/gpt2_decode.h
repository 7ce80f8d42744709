/* gpt2_decode.h - one token at a time with a key/value cache, for greedy
 * continuation (--generate) of a GPT-2-layout or Llama-family model.
 *
 * A causal model's row t depends on rows 0..t only, and what a later query
 * needs of row t is its key and value in each layer. So generation keeps
 * every layer's keys (after RoPE) and values, and runs each new token as a
 * one-row forward: its query meets the cached keys, as in Hugging Face's
 * generate (past_key_values) and karpathy/llm.c's inference notes. A token
 * costs one pass over the weights instead of a forward of the whole sequence.
 *
 * Legend as gpt2.h: L layers, C = d_model, H heads, D = d_k = C/H, V
 * vocabulary, cap = positions the cache holds (at most n_positions for
 * learned positions).
 *
 * One step at position t, per layer (pre-LN; post-LN as gpt2.h shows):
 *   ln1 = LayerNorm_1(x)                            (1, C)
 *   q, k, v = ln1·c_attn.w + c_attn.b, split        (H, 1, D) each; RoPE at t
 *   K[l][:, t] = k,  V[l][:, t] = v                 cache (H, cap, D) each
 *   att = softmax(q·K[l][:, 0..t]ᵀ·scale)            (H, 1, t+1): every cached key is
 *                                                    visible, so no mask is needed
 *   atty = merge heads of att·V[l][:, 0..t]         (1, C)
 *   then c_proj, the residual, the MLP as the full forward.
 * logits = LayerNorm_f(x)·wteᵀ                      (V)
 *
 * With the reference kernel every number is the one av_gpt2_forward gives
 * for that row, bit for bit: the same per-row loops, the attention sums over
 * keys 0..t in double in the same order (the full forward adds exact zeros
 * for the masked keys after t). With the BLAS kernel the projections are
 * sgemm of one row, whose float32 sums may differ from the full forward's in
 * the last bits (tests/test_gpt2.c checks 1e-5).
 */
#ifndef AV_GPT2_DECODE_H
#define AV_GPT2_DECODE_H

#include "base/common.h"
#include "nn/gpt2.h"
#include "nn/llama.h"

typedef struct {
    int cap;           /* positions the cache holds */
    int T;             /* positions filled: the next token goes at position T */
    int kv_heads;      /* KVH: H for GPT-2; a Llama's num_key_value_heads (query head h reads K/V head
                          h / (H/KVH), grouped-query attention) */
    float *k, *v;      /* (L, KVH, cap, D) each: every layer's keys (after RoPE) and values */
    float *pe;         /* (cap, C) sinusoidal positional encoding, or NULL */
    float *x, *ln, *res, *res2, *qkv, *atty, *proj; /* one row's scratch: (C), (C), (C), (C), (C + 2·KVH·D),
                                                       (C), (C) */
    float *fch, *fch_gelu; /* GPT-2: c_fc's output and its GELU (4C each); a Llama: gate and up in fch
                              (I each), SwiGLU's output in fch_gelu (I) */
    float *s, *att;    /* (cap) each: one head's scores and attention weights over the cached keys */
    double *e, *acc;   /* (cap) exp(s − max); (D) att·v */
    float *logits;     /* (V) the last token's logits */
} av_gpt2_cache;

/* Allocate a cache for up to cap positions under cfg (cfg->positions
 * learned needs cap <= n_positions). Errors: AV_EUSAGE if cap is outside
 * 1..AV_MAX_TOKENS or past n_positions with learned positions; AV_ERUNTIME
 * on out of memory (naming the bytes). */
av_status av_gpt2_cache_alloc(av_gpt2_cache *c, const av_gpt2_config *cfg, int cap, av_err *err);
void av_gpt2_cache_free(av_gpt2_cache *c);

/* Fill the cache with the keys and values of a full forward's T tokens (a:
 * av_gpt2_forward's activations, a->T <= c->cap): layer l's k and v of
 * a->qkvh. c->T becomes a->T; c->logits is left as it was. No errors. */
void av_gpt2_cache_prefill(av_gpt2_cache *c, const av_gpt2_acts *a, const av_gpt2_config *cfg);

/* Run token id at position c->T: append its keys and values, write its
 * logits (V) to c->logits, c->T += 1. Errors: AV_EUSAGE if the cache is full
 * ("the cache holds 32 positions") or id is outside 0..V-1; the forward's
 * overflow errors (av_overflow_fail: "layer 1: the scores q·kᵀ overflowed
 * float32 ..."). */
av_status av_gpt2_decode(av_gpt2_cache *c, const av_gpt2_params *p, const av_gpt2_config *cfg, int id, av_err *err);

/* The same for a Llama-family model (nn/llama.h: RMSNorm, RoPE in halves at
 * rope_theta, grouped-query attention with KVH cached heads, SwiGLU MLP,
 * logits from lm_head). Its forward's numbers, bit for bit with the
 * reference kernel. Errors as above; cap past max_positions is AV_EUSAGE. */
av_status av_llama_cache_alloc(av_gpt2_cache *c, const av_llama_config *cfg, int cap, av_err *err);
void av_llama_cache_prefill(av_gpt2_cache *c, const av_gpt2_acts *a, const av_llama_config *cfg);
av_status av_llama_decode(av_gpt2_cache *c, const av_llama_params *p, const av_llama_config *cfg, int id,
                          av_err *err);

#endif
