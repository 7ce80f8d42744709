/* model.c - allocation and the end-to-end forward pass (see model.h). */
#include "nn/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "nn/attention_blas.h"
#include "nn/embed.h"
#include "nn/flash.h"

/* hs (96 bytes) = the head counts around H that keep d_model C: "keep 63 with --heads 3 or 7" (av_heads_hint). */
static void keep_hint(char hs[96], int C, int H, int even_dk) {
    /* head counts h around H that keep C: h divides C, and for RoPE C / h is even */
    int f = even_dk ? 2 : 1, below = H - 1, above = H + 1;
    while (below >= 1 && C % (f * below)) below--;
    while (above <= AV_MAX_HEADS && above <= C && C % (f * above)) above++;
    int has_above = above <= AV_MAX_HEADS && above <= C;
    if (below >= 1 && has_above) snprintf(hs, 96, "keep %d with --heads %d or %d", C, below, above);
    else if (below >= 1 || has_above) snprintf(hs, 96, "keep %d with --heads %d", C, below >= 1 ? below : above);
    else hs[0] = 0; /* RoPE and an odd C: every d_k = C / heads is odd */
}

void av_heads_hint(char *buf, size_t n, int C, int H, int even_dk) {
    char ds[64] = "", hs[96] = "";
    int step = even_dk ? 2 * H : H; /* d_k = C / H whole, and even for RoPE: C a multiple of 2·H */
    int lo = C / step * step, hi = lo + step; /* multiples of step below and above C */
    if (lo == C) lo -= step;                  /* C itself is no choice (RoPE: odd d_k) */
    if (lo >= 1 && hi <= AV_MAX_D_MODEL) snprintf(ds, sizeof ds, "%d or %d", lo, hi);
    else snprintf(ds, sizeof ds, "%d", lo >= 1 ? lo : hi);
    keep_hint(hs, C, H, even_dk);
    /* `-d 1 -p rope` was told "..., or no head count keeps 1 (odd, so d_k = 1 / heads is odd)": an or
     * joined to no choice */
    if (hs[0])
        snprintf(buf, n, "with %d head%s give --d-model %s%s, or %s", H, H == 1 ? "" : "s", ds,
                 even_dk ? " (multiples of 2·heads, for an even d_k)" : "", hs);
    else
        snprintf(buf, n, "with %d head%s give --d-model %s%s; no head count keeps %d: RoPE needs an even d_model", H,
                 H == 1 ? "" : "s", ds, even_dk ? " (multiples of 2·heads, for an even d_k)" : "", C);
}

/* hint (256 bytes) for av_config_check and av_rope_dk_check: av_heads_hint's for d_model C and H heads, or where
 * d_model_from (NULL: none) fixes d_model only the head counts ("--weights fixes d_model, so keep 8 with --heads 2
 * or 4"): "give --d-model 6 or 9" with the identity-d8 example led to "W_Q.npy has shape (8, 8); expected (6, 6)"
 * (a tester's report, --heads 3). */
static void config_hint(char hint[256], int C, int H, const char *d_model_from, int even_dk) {
    if (!d_model_from) {
        av_heads_hint(hint, 256, C, H, even_dk);
        return;
    }
    char hs[96];
    keep_hint(hs, C, H, even_dk);
    if (hs[0]) snprintf(hint, 256, "%.64s fixes d_model, so %s", d_model_from, hs);
    else snprintf(hint, 256, "%.64s fixes d_model at %d, which is odd, and RoPE needs an even d_model: give "
                  "--positions sinusoidal or none", d_model_from, C);
}

av_status av_rope_dk_check(int C, int H, const char *d_model_from, av_err *err) {
    if ((C / H) % 2 == 0) return AV_OK;
    char hint[256];
    config_hint(hint, C, H, d_model_from, 1);
    return av_fail(err, AV_EUSAGE,
                   "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = %d / %d = %d; %s", C,
                   H, C / H, hint);
}

av_status av_config_check(const av_config *cfg, av_err *err) {
    int C = cfg->C, H = cfg->H;
    if (C < 1 || C > AV_MAX_D_MODEL)
        return av_fail(err, AV_EUSAGE, "--d-model %d is outside the allowed range 1..%d", C, AV_MAX_D_MODEL);
    if (H < 1 || H > AV_MAX_HEADS)
        return av_fail(err, AV_EUSAGE, "--heads %d is outside the allowed range 1..%d", H, AV_MAX_HEADS);
    if (C % H != 0) {
        char hint[256];
        config_hint(hint, C, H, cfg->d_model_from, cfg->positions == AV_POS_ROPE);
        return av_fail(err, AV_EUSAGE, "--heads %d does not divide d_model %d (d_k = d_model / heads must be a whole "
                       "number); %s", H, C, hint);
    }
    if (cfg->positions == AV_POS_ROPE) {
        av_status st = av_rope_dk_check(C, H, cfg->d_model_from, err);
        if (st) return st;
    }
    if (cfg->positions == AV_POS_ROPE && !(cfg->rope_base > 1.0 && isfinite(cfg->rope_base)))
        return av_fail(err, AV_EUSAGE, "--rope-base %g must be a finite number greater than 1", cfg->rope_base);
    return AV_OK;
}

av_status av_model_init(av_model *m, const av_config *cfg, av_err *err) {
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    int T = cfg->T, C = cfg->C, H = cfg->H;
    av_status st = av_config_check(cfg, err);
    if (st) return st;
    if (T < 1 || T > AV_MAX_TOKENS)
        return av_fail(err, AV_EUSAGE, "%d tokens is outside the allowed range 1..%d", T, AV_MAX_TOKENS);
    if (cfg->n_real < 1 || cfg->n_real > T)
        return av_fail(err, AV_EUSAGE, "%d real tokens is outside the allowed range 1..%d", cfg->n_real, T);
    m->D = C / H;
    size_t TC, CC, HTT, TT;
    if (av_mul_size(&TC, (size_t)T, (size_t)C) || av_mul_size(&CC, (size_t)C, (size_t)C) ||
        av_mul3_size(&HTT, (size_t)H, (size_t)T, (size_t)T) || av_mul_size(&TT, (size_t)T, (size_t)T))
        return av_fail(err, AV_EUSAGE, "tensor sizes overflow");
    char gib[32];
    if (cfg->kernel != AV_KERNEL_FLASH && HTT > AV_MAX_WEIGHT_BYTES / (2 * sizeof(float)))
        return av_fail(err, AV_EUSAGE,
                       "%d tokens with %d head%s need %s GiB for the (heads, T, T) scores and weights, more than the "
                       "%zu GiB allowed; the flash kernel needs none (no weight figures, dumps or --show)", T, H,
                       H == 1 ? "" : "s", av_gib_over(gib, (double)HTT * 2 * sizeof(float), (double)AV_MAX_WEIGHT_BYTES),
                       AV_MAX_WEIGHT_BYTES >> 30);
    float **tc[] = {&m->X, &m->q_proj, &m->Q, &m->K, &m->V, &m->context, &m->out};
    for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++)
        if (!(*tc[i] = av_big_calloc(TC, sizeof(float)))) goto oom;
    /* the four (C, C) matrices in one buffer: with d_model 512 that is 4 MiB
     * in two huge pages, where four buffers of 1 MiB took four (each rounded
     * up to 2 MiB), and first-touching a page is most of what seeding costs
     * on a virtual machine (base/common.h) */
    if (CC > SIZE_MAX / (4 * sizeof(float)) || !(m->W_Q = av_big_calloc(4 * CC, sizeof(float)))) goto oom;
    m->W_K = m->W_Q + CC;
    m->W_V = m->W_K + CC;
    m->W_O = m->W_V + CC;
    if (cfg->kernel != AV_KERNEL_FLASH) { /* the (H, T, T) tensors the figures and dumps show */
        if (!(m->scores = av_big_calloc(HTT, sizeof(float)))) goto oom;
        if (!(m->att = av_big_calloc(HTT, sizeof(float)))) goto oom;
        if (!(m->mask = av_calloc(TT, 1))) goto oom;
        if (!(m->ctx_heads = av_calloc(TC, sizeof(float)))) goto oom;
    }
    if (cfg->positions == AV_POS_SINUSOIDAL && !(m->PE = av_calloc(TC, sizeof(float)))) goto oom;
    return AV_OK;
oom:
    av_model_free(m);
    /* "(the (heads, T, T) weights; the flash kernel needs none)" sent a run with figures to --kernel flash, which
     * refuses them (a long-input learner's pass): what keeps the weights is named, and the way without them */
    return av_fail(err, AV_ERUNTIME, "out of memory allocating tensors for T=%d, d_model=%d, heads=%d%s", T, C, H,
                   cfg->kernel == AV_KERNEL_FLASH ? ""
                   : " (the (heads, T, T) weights, which the figures, --dump, --show, --explain, --compare and --html "
                     "need: give fewer tokens or heads, or leave those out (--no-plot for the figures) and the flash "
                     "kernel, auto's choice then, keeps none)");
}

/* ----------------------------------------------------------------------------
 * seeding: token blocks and the four matrices are independent work items */

enum { SEED_TOKENS = 64 };

typedef struct {
    av_model *m;
    const char *const *tokens;
    int token_items;
} seed_ctx;

static void seed_item(void *arg, int item) {
    const seed_ctx *a = arg;
    av_model *m = a->m;
    int C = m->cfg.C;
    if (item < a->token_items) {
        int t_end = (item + 1) * SEED_TOKENS < m->cfg.T ? (item + 1) * SEED_TOKENS : m->cfg.T;
        for (int t = item * SEED_TOKENS; t < t_end; t++) embed_token(m->X + (size_t)t * C, a->tokens[t], C, m->cfg.seed);
        return;
    }
    static const char *const names[4] = {"W_Q", "W_K", "W_V", "W_O"};
    float *w[4] = {m->W_Q, m->W_K, m->W_V, m->W_O};
    int k = item - a->token_items;
    init_weight(w[k], names[k], C, m->cfg.seed);
}

void av_model_seed(av_model *m, const char *const *tokens) {
    seed_ctx a = {m, tokens, (m->cfg.T + SEED_TOKENS - 1) / SEED_TOKENS};
    av_parallel_for(a.token_items + 4, seed_item, &a);
}

/* AV_EUSAGE: what ("the scores Q·Kᵀ/√d_k") left float32, through user X or W. */
static av_status overflowed(const char *what, av_err *err) {
    return av_fail_overflow(err, what, "(a value became infinite or NaN): the values in X.npy / W_*.npy are too "
                            "large; float32 holds magnitudes up to 3.4e38");
}

/* AV_OK when the n values of x are finite, else overflowed(what). */
static av_status check(const float *x, size_t n, const char *what, av_err *err) {
    return all_finite(x, n) ? AV_OK : overflowed(what, err);
}

/* The scores' name in an overflow error, whichever kernel made them. */
static const char *scores_what(const av_config *c) {
    return c->scale ? "the scores Q·Kᵀ/√d_k" : "the scores Q·Kᵀ (--no-scale)";
}

/* ----------------------------------------------------------------------------
 * the forward pass, stage by stage */

/* x (T, C) += b (C) on every row; nothing when b is NULL. */
static void add_bias(float *x, const float *b, int T, int C) {
    for (int t = 0; b && t < T; t++)
        for (int c = 0; c < C; c++) x[(size_t)t * C + c] = (float)((double)x[(size_t)t * C + c] + (double)b[c]);
}

/* 3-5: positions, projections, head split, RoPE. K and V are projected
 * through context, X + PE lives in out: both are written only at stage 9. */
static av_status project_forward(av_model *m, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, H = c->H;
    size_t TC = (size_t)T * C;
    av_kernel kern = c->kernel;
    av_status st;
    double mean;
    const float *xp = m->X;
    if (c->positions == AV_POS_SINUSOIDAL) {
        sinusoidal_forward(m->PE, T, C);
        for (size_t i = 0; i < TC; i++) m->out[i] = m->X[i] + m->PE[i];
        xp = m->out;
    }
    if ((st = check(xp, TC, "X + PE", err))) return st;
    float *dst[3] = {m->Q, m->K, m->V};
    const float *w[3] = {m->W_Q, m->W_K, m->W_V}, *b[3] = {m->b_Q, m->b_K, m->b_V};
    static const char *const what[3] = {"Q = X·W_Q", "K = X·W_K", "V = X·W_V"};
    for (int k = 0; k < 3; k++) {
        float *proj = k == 0 ? m->q_proj : m->context;
        av_matmul(proj, xp, w[k], T, C, C, kern);
        add_bias(proj, b[k], T, C);
        if ((st = check(proj, TC, what[k], err))) return st;
        if (k < 2) /* the fast kernels split the sums over threads */
            (kern == AV_KERNEL_REFERENCE ? stats_forward : stats_parallel_forward)(proj, TC, &mean,
                                                                                   k == 0 ? &m->var_q : &m->var_k);
        split_heads_forward(dst[k], proj, T, C, H);
    }
    if (c->positions == AV_POS_ROPE) {
        rope_forward(m->Q, H, T, m->D, c->rope_style, c->rope_base, 0);
        rope_forward(m->K, H, T, m->D, c->rope_style, c->rope_base, 0);
    }
    return AV_OK;
}

/* The score statistics the trace shows; an error when they are not finite.
 * var(Q·Kᵀ) = var(Q·Kᵀ·scale) / scale². */
static av_status set_score_stats(av_model *m, double mean, double var, av_err *err) {
    const av_config *c = &m->cfg;
    if (!isfinite(mean) || !isfinite(var))
        return check(m->scores, (size_t)c->H * c->T * c->T, scores_what(c), err);
    m->var_scaled = c->scale ? var : var / (double)m->D;
    m->var_raw = c->scale ? var * (double)m->D : var;
    m->stats_rows = c->T;
    return AV_OK;
}

/* 6-9 with the reference loops, stage by stage. */
static av_status reference_stage(av_model *m, double scale, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T, H = c->H, D = m->D;
    double mean, var;
    scores_forward(m->scores, m->Q, m->K, H, T, D, scale);          /* 6. scores */
    stats_forward(m->scores, (size_t)H * T * T, &mean, &var);
    av_status st = set_score_stats(m, mean, var, err);
    if (st) return st;
    m->masked_count = mask_forward(m->mask, T, c->causal, c->n_real, m->user_mask); /* 7. mask */
    m->fully_masked_rows = softmax_forward(m->att, m->scores, m->mask, H, T, &m->worst_row_dev); /* 8. softmax */
    weighted_sum_forward(m->ctx_heads, m->att, m->V, H, T, D); /* 9. weighted sum */
    merge_heads_forward(m->context, m->ctx_heads, T, c->C, H);
    return AV_OK;
}

/* 6-9 with sgemm, fused per block of query rows (attention_blas_forward).
 * Only the scores actually used must fit in float32: Q·Kᵀ may overflow where
 * Q·Kᵀ/√d_k does not, so sgemm's float32 sums fall back to the reference's
 * double sums when they overflow, stage by stage. */
static av_status blas_stage(av_model *m, double scale, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T, H = c->H, D = m->D;
    size_t HTT = (size_t)H * T * T;
    m->masked_count = mask_forward(m->mask, T, c->causal, c->n_real, m->user_mask); /* 7. mask, used by 8 */
    const unsigned char *mask = m->masked_count ? m->mask : NULL; /* nothing masked: no (T, T) bytes to read */
    av_blas_stats bs;
    if (attention_blas_forward(m->scores, m->att, m->context, m->Q, m->K, m->V, mask, H, T, D, scale, &bs))
        return av_fail(err, AV_ERUNTIME, "out of memory for the BLAS kernel's per-block results (T=%d)", T);
    if (!isfinite(bs.mean)) {
        scores_forward(m->scores, m->Q, m->K, H, T, D, scale);
        stats_parallel_forward(m->scores, HTT, &bs.mean, &bs.var);
        bs.fully_masked_rows = softmax_fast_forward(m->att, m->scores, mask, H, T, &bs.worst_dev);
        weighted_sum_blas_forward(m->ctx_heads, m->att, m->V, H, T, D);
        merge_heads_forward(m->context, m->ctx_heads, T, c->C, H);
    }
    m->fully_masked_rows = bs.fully_masked_rows;
    m->worst_row_dev = bs.worst_dev;
    return set_score_stats(m, bs.mean, bs.var, err);
}

/* The variance of the scores on the flash path, measured on the first
 * AV_FLASH_STATS_ROWS query rows of each head against every key (flash never
 * holds all of them). A score whose float32 sum Q·Kᵀ overflowed in sgemm is
 * made again with double sums (flash_score), as the kernel makes it. */
static av_status flash_stats(av_model *m, double scale, av_err *err) {
    int T = m->cfg.T, H = m->cfg.H, D = m->D, rows = T < AV_FLASH_STATS_ROWS ? T : AV_FLASH_STATS_ROWS;
    float *s = av_calloc((size_t)rows * T, sizeof(float));
    if (!s) return av_fail(err, AV_ERUNTIME, "out of memory measuring the scores (%d x %d floats)", rows, T);
    double sum = 0.0, sumsq = 0.0, n = (double)H * rows * T;
    for (int h = 0; h < H; h++) {
        av_sgemm(s, m->Q + (size_t)h * T * D, m->K + (size_t)h * T * D, rows, T, D, D, D, T, 1, (float)scale, 0.0f);
        for (size_t i = 0; i < (size_t)rows * T; i++) {
            if (!(fabsf(s[i]) <= 3.4028235e38f)) s[i] = flash_score(m->Q, m->K, h, (int)(i / T), (int)(i % T), T, D, scale);
            sum += s[i], sumsq += (double)s[i] * s[i];
        }
    }
    free(s);
    double mean = sum / n, var = sumsq / n - mean * mean;
    var = var > 0 ? var : 0;
    m->var_scaled = m->cfg.scale ? var : var / (double)D;
    m->var_raw = m->cfg.scale ? var * (double)D : var;
    m->stats_rows = rows;
    return AV_OK;
}

/* Masked (i, j) entries of the (T, T) mask, counted without forming it. */
static size_t mask_count(const av_mask_spec *mk, int T) {
    size_t count = 0;
    for (int i = 0; i < T; i++) {
        int visible_end = mk->n_real < T ? mk->n_real : T; /* keys 0 .. visible_end−1 pass the rules */
        if (mk->causal && i + 1 < visible_end) visible_end = i + 1;
        count += (size_t)(T - visible_end);
        if (mk->user)
            for (int j = 0; j < visible_end; j++) count += mk->user[(size_t)i * T + j] != 0;
    }
    return count;
}

/* 6-9 on the flash path: scores, mask, softmax and A·V in one tiled pass,
 * straight into context (T, C). */
static av_status flash_stage(av_model *m, double scale, av_err *err) {
    const av_config *c = &m->cfg;
    av_mask_spec mk = {c->causal, c->n_real, m->user_mask};
    av_status st = flash_stats(m, scale, err);
    if (st) return st;
    m->masked_count = mask_count(&mk, c->T);
    m->worst_row_dev = 0.0; /* no weights are stored to sum */
    st = flash_attention_forward(m->context, m->Q, m->K, m->V, &mk, c->H, c->T, m->D, scale, &m->fully_masked_rows,
                                 err);
    return st == AV_EUSAGE && err->overflowed ? overflowed(scores_what(c), err) : st; /* the other kernels' words */
}

av_status av_model_forward(av_model *m, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, D = m->D;
    double scale = c->scale ? 1.0 / sqrt((double)D) : 1.0;
    av_status st = c->kernel == AV_KERNEL_REFERENCE ? AV_OK : av_blas_require(err);
    if (st) return st;

    /* 3-5. positions, project, split heads, RoPE */
    if ((st = project_forward(m, err))) return st;

    if (c->kernel == AV_KERNEL_FLASH) {
        /* 6-9 (heads). tiled: scores, mask, online softmax, weighted sum */
        if ((st = flash_stage(m, scale, err))) return st;
    } else {
        /* 6-9 (heads). scores, mask, softmax, weighted sum */
        st = c->kernel == AV_KERNEL_REFERENCE ? reference_stage(m, scale, err) : blas_stage(m, scale, err);
        if (st) return st;
    }

    /* 9. output projection */
    av_matmul(m->out, m->context, m->W_O, T, C, C, c->kernel);
    add_bias(m->out, m->b_O, T, C);
    return check(m->out, (size_t)T * C, "the output Y", err);
}

void av_model_release_weights(av_model *m) {
    av_big_free(m->W_Q); /* and W_K, W_V, W_O: one buffer */
    m->W_Q = m->W_K = m->W_V = m->W_O = NULL;
}

void av_model_free(av_model *m) {
    float *big[] = {m->X, m->W_Q /* and W_K, W_V, W_O */, m->q_proj, m->Q, m->K, m->V, m->scores, m->att, m->context, m->out};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) av_big_free(big[i]); /* from av_big_calloc */
    float *bufs[] = {m->PE, m->b_Q, m->b_K, m->b_V, m->b_O, m->ctx_heads};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(m->mask);
    free(m->user_mask);
    memset(m, 0, sizeof *m);
}
