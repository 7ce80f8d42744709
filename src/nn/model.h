/* Layer nn/ (the math): includes only base/, io/, text/ and nn/ headers.
 * (src/README.md; scripts/check-layers.sh checks it on every make test) */
/* model.h - one multi-head attention layer run end to end on a sentence,
 * keeping every intermediate tensor so the trace, the figures and --dump can
 * show it. Legend: T tokens, C = d_model, H heads, D = d_k = C/H.
 *
 * Usage:
 *   av_model m; av_config cfg = {...};
 *   av_model_init(&m, &cfg, &err);          // checks limits, allocates
 *   ... fill m.X (T, C) and m.W_Q/W_K/W_V/W_O (C, C), e.g. av_model_seed()
 *   av_model_forward(&m, &err);             // runs stages 3..11
 *   av_model_free(&m);
 *
 * cfg.kernel picks the kernels (attention.h av_kernel). AV_KERNEL_FLASH never
 * forms (H, T, T): scores, att, mask and ctx_heads stay NULL, and memory is
 * O(T·C): X, PE (sinusoidal only), q_proj, Q, K, V, context, out.
 *
 * Stages, numbered as the trace numbers them (trace.c); with RoPE a stage
 * "6 RoPE" comes after the split and the later numbers move up by one:
 *   1 tokenize   text -> T tokens (+ <pad>)                   (text/tokenize.h)
 *   2 embed      X = E[token]                                 (T, C)
 *   3 positions  Xp = X + PE (sinusoidal) or Xp = X (none, rope)
 *   4 project    Q = Xp·W_Q, K = Xp·W_K, V = Xp·W_V          (T, C)
 *   5 split      (T, C) -> (H, T, D); RoPE rotates Q and K here when on
 *   6 scores     S = Q·Kᵀ · scale, scale = 1/√D (or 1 with --no-scale)   (H, T, T)
 *   7 mask       causal / key padding / user mask, −∞ before softmax
 *   8 softmax    A = softmax(S) row-wise                      (H, T, T)
 *   9 weighted   O_h = A_h·V_h                                (H, T, D)
 *  10 concat     (H, T, D) -> (T, C)
 *  11 output     Y = concat·W_O                               (T, C)
 * av_model_forward runs 3..11; the caller does 1 and 2 (av_model_seed, or
 * X loaded from a file).
 */
#ifndef AV_MODEL_H
#define AV_MODEL_H

#include <stdint.h>

#include "nn/attention.h"
#include "base/common.h"

typedef struct {
    int T;                   /* tokens including <pad> */
    int n_real;              /* tokens before padding (keys >= n_real are masked) */
    int C;                   /* d_model */
    int H;                   /* heads */
    av_positions positions;
    av_rope_style rope_style;
    double rope_base;        /* θ, default 10000 */
    int causal;              /* 1 = causal mask */
    int scale;               /* 1 = divide scores by √d_k (default), 0 = --no-scale */
    av_kernel kernel;        /* AV_KERNEL_REFERENCE (0), _BLAS or _FLASH */
    uint64_t seed;
    const char *d_model_from;/* what fixes d_model, named in av_config_check's hint ("--weights"), or
                              * NULL: --d-model sets it, and the hint may offer another */
} av_config;

typedef struct {
    av_config cfg;
    int D;                   /* d_k = C / H */
    float *X;                /* (T, C) token embeddings, before positions */
    float *PE;               /* (T, C) sinusoidal encoding, NULL unless sinusoidal */
    float *W_Q, *W_K, *W_V, *W_O; /* (C, C) each, one after another in one allocation
                              * (W_Q first: av_model_free frees W_Q only) */
    int model_layer;         /* 0: the single attention layer; L + 1: this is layer L of a --model
                              * (app/gpt2run.h), whose dump names it attn.npy / scores.npy[L, h, i, j] */
    const char *no_scale_why;/* a --model layer without ÷√d_k: why, in its trace's words (nn/gpt2.h
                              * av_gpt2_no_scale_why), for --explain and --html; NULL otherwise; not owned */
    int kv_heads;            /* 0: every head has its own K and V; else the K/V heads of a grouped-query
                              * layer (Ainslie et al. 2023), whose K, V (H, T, D) repeat K/V head h/(H/kv_heads)
                              * for query head h (app/llamarun.c); --explain names it */
    float *b_Q, *b_K, *b_V, *b_O; /* (C) biases added after each product, or NULL (the
                              * default: no biases, as the paper); set for a GPT-2
                              * layer (c_attn.bias, c_proj.bias); freed by av_model_free */
    float *q_proj;           /* (T, C) Q = (X + PE)·W_Q before the head split (K and V's
                              * projections pass through context, which stage 9 overwrites) */
    float *Q, *K, *V;        /* (H, T, D), Q and K after RoPE when on */
    float *scores;           /* (H, T, T) Q·Kᵀ·scale, before the mask; NULL with flash */
    unsigned char *mask;     /* (T, T) 1 = masked; NULL with flash */
    unsigned char *user_mask;/* (T, T) optional user attn_mask (1 = masked), or NULL */
    const char *user_mask_file; /* the --attn-mask argument user_mask was read from, for the
                              * titles (app/tensorio.c), or NULL; not owned */
    float *att;              /* (H, T, T) attention weights; NULL with flash */
    float *ctx_heads;        /* (H, T, D) per-head outputs A_h·V_h of the reference kernel (the BLAS
                              * kernel writes context directly; it uses this only when it falls back
                              * to double sums); NULL with flash */
    float *context;          /* (T, C) heads concatenated */
    float *out;              /* (T, C) context·W_O (holds X + PE until stage 9) */
    /* checks measured by av_model_forward */
    double var_q, var_k;     /* variance of Q and K components (before RoPE) */
    double var_raw;          /* variance of Q·Kᵀ (unscaled) over the rows below */
    double var_scaled;       /* variance of Q·Kᵀ/√d_k */
    int stats_rows;          /* query rows per head the two variances cover: T, or with
                              * flash the first min(T, AV_FLASH_STATS_ROWS) */
    double worst_row_dev;    /* max |Σ_j A[h,i,j] − 1| over rows not fully masked */
    int fully_masked_rows;   /* over all heads */
    size_t masked_count;     /* masked (i, j) entries in the (T, T) mask */
} av_model;

enum { AV_FLASH_STATS_ROWS = 16 }; /* query rows per head whose scores flash measures */

/* Check d_model, heads, RoPE's even d_k and θ against the limits (T is not
 * looked at). Errors: AV_EUSAGE naming the value and the allowed range; where
 * heads do not fit d_model, the choices that do (av_heads_hint), only other
 * head counts when cfg->d_model_from fixes d_model. */
av_status av_config_check(const av_config *cfg, av_err *err);

/* buf (n bytes) = the nearest valid choices when H heads do not divide
 * d_model C: "with 4 heads give --d-model 60 or 64, or keep 63 with --heads 3
 * or 7" (the multiples of H around C within 1..AV_MAX_D_MODEL, and the
 * divisors of C around H within 1..AV_MAX_HEADS; either list may be a
 * single value). even_dk (RoPE, which rotates pairs of dimensions): only
 * choices with an even d_k, i.e. multiples of 2·H, and head counts h with
 * C % (2·h) == 0, C itself excluded ("with 7 heads give --d-model 504 or 518
 * (multiples of 2·heads, for an even d_k), or keep 512 with --heads 4 or 8");
 * for an odd C no head count qualifies, and the text says so. C in
 * 1..AV_MAX_D_MODEL, H in 1..AV_MAX_HEADS; 256 bytes always suffice. */
void av_heads_hint(char *buf, size_t n, int C, int H, int even_dk);

/* RoPE's check of d_k = C / H (H in 1..AV_MAX_HEADS divides C, in 1..AV_MAX_D_MODEL), shared by every
 * refusal of an odd d_k for RoPE (--positions rope, --compare rope-style, --train): AV_OK when d_k is even;
 * else AV_EUSAGE "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = 10 / 2 = 5;
 * with 2 heads give --d-model 8 or 12 (multiples of 2·heads, for an even d_k), or keep 10 with --heads 1 or
 * 5" (av_heads_hint with even_dk 1); d_model_from (NULL: none, e.g. "--weights") names what fixes d_model,
 * and then only head counts are offered. */
av_status av_rope_dk_check(int C, int H, const char *d_model_from, av_err *err);

/* Check sizes against the limits and allocate every buffer (zeroed).
 * Errors: AV_EUSAGE naming the value and the allowed range ("--heads 7 does
 * not divide d_model 512", "RoPE needs an even d_k; d_k = 5"), AV_ERUNTIME on
 * out of memory. */
av_status av_model_init(av_model *m, const av_config *cfg, av_err *err);

/* Fill X from the tokens (embed.h) and the four weight matrices from the seed
 * (split over threads; the values do not depend on the thread count). */
void av_model_seed(av_model *m, const char *const *tokens);

/* Run stages 3..9. Errors: AV_EUSAGE (bad input) if a value overflows float32 (only
 * possible with huge user-supplied weights); NaN never escapes. */
av_status av_model_forward(av_model *m, av_err *err);

/* Free W_Q, W_K, W_V and W_O (one buffer) once nothing reads them again: in
 * attnviz, after the forward pass, the trace, --compare and --dump, before
 * the figures. Their mapping (4 MiB with d_model 512) goes to the kept set
 * of base/common.h, where the first figure's canvas of the same size in
 * 2 MiB pages finds it already faulted in (0.2 ms to clear instead of about
 * 1 ms for two fresh huge pages on these VMs). The four pointers become
 * NULL; av_model_free then skips them. Only for a model av_model_init made
 * (not the --model runner's, whose W_Q points into its own buffers). */
void av_model_release_weights(av_model *m);

void av_model_free(av_model *m);

#endif
