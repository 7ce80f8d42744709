/* model.c - allocation and the end-to-end forward pass (see model.h). */
#include "nn/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/embed.h"

av_status av_config_check(const av_config *cfg, av_err *err) {
    int C = cfg->C, H = cfg->H;
    if (C < 1 || C > AV_MAX_D_MODEL)
        return av_fail(err, AV_EUSAGE, "--d-model %d is outside the allowed range 1..%d", C, AV_MAX_D_MODEL);
    if (H < 1 || H > AV_MAX_HEADS)
        return av_fail(err, AV_EUSAGE, "--heads %d is outside the allowed range 1..%d", H, AV_MAX_HEADS);
    if (C % H != 0)
        return av_fail(err, AV_EUSAGE, "--heads %d does not divide d_model %d (d_k = d_model / heads must be a whole number)", H, C);
    int D = C / H;
    if (cfg->positions == AV_POS_ROPE && D % 2 != 0)
        return av_fail(err, AV_EUSAGE,
                       "RoPE rotates pairs of dimensions, so d_k must be even; d_k = d_model / heads = %d / %d = %d",
                       C, H, D);
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
    float **tc[] = {&m->X, &m->Xp, &m->q_proj, &m->k_proj, &m->v_proj, &m->Q_norope, &m->K_norope,
                    &m->Q, &m->K, &m->V, &m->ctx_heads, &m->context, &m->out};
    for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++)
        if (!(*tc[i] = av_calloc(TC, sizeof(float)))) goto oom;
    float **cc[] = {&m->W_Q, &m->W_K, &m->W_V, &m->W_O};
    for (size_t i = 0; i < 4; i++)
        if (!(*cc[i] = av_calloc(CC, sizeof(float)))) goto oom;
    if (!(m->scores = av_calloc(HTT, sizeof(float)))) goto oom;
    if (!(m->att = av_calloc(HTT, sizeof(float)))) goto oom;
    if (!(m->mask = av_calloc(TT, 1))) goto oom;
    if (cfg->positions == AV_POS_SINUSOIDAL && !(m->PE = av_calloc(TC, sizeof(float)))) goto oom;
    return AV_OK;
oom:
    av_model_free(m);
    return av_fail(err, AV_ERUNTIME, "out of memory allocating tensors for T=%d, d_model=%d, heads=%d", T, C, H);
}

void av_model_seed(av_model *m, const char *const *tokens) {
    int C = m->cfg.C;
    for (int t = 0; t < m->cfg.T; t++) embed_token(m->X + (size_t)t * C, tokens[t], C, m->cfg.seed);
    init_weight(m->W_Q, "W_Q", C, m->cfg.seed);
    init_weight(m->W_K, "W_K", C, m->cfg.seed);
    init_weight(m->W_V, "W_V", C, m->cfg.seed);
    init_weight(m->W_O, "W_O", C, m->cfg.seed);
}

static av_status check(const float *x, size_t n, const char *what, av_err *err) {
    if (all_finite(x, n)) return AV_OK;
    return av_fail(err, AV_EUSAGE,
                   "%s overflowed float32 (a value became infinite or NaN): the values in X.npy / W_*.npy are too "
                   "large; float32 holds magnitudes up to 3.4e38",
                   what);
}

av_status av_model_forward(av_model *m, av_err *err) {
    const av_config *c = &m->cfg;
    int T = c->T, C = c->C, H = c->H, D = m->D;
    size_t TC = (size_t)T * C, HTT = (size_t)H * T * T;
    av_status st;
    double mean;

    /* 3. positions */
    memcpy(m->Xp, m->X, TC * sizeof(float));
    if (c->positions == AV_POS_SINUSOIDAL) {
        sinusoidal_forward(m->PE, T, C);
        for (size_t i = 0; i < TC; i++) m->Xp[i] = m->X[i] + m->PE[i];
    }
    if ((st = check(m->Xp, TC, "X + PE", err))) return st;

    /* 4. project */
    matmul_forward(m->q_proj, m->Xp, m->W_Q, T, C, C);
    matmul_forward(m->k_proj, m->Xp, m->W_K, T, C, C);
    matmul_forward(m->v_proj, m->Xp, m->W_V, T, C, C);
    if ((st = check(m->q_proj, TC, "Q = X·W_Q", err)) || (st = check(m->k_proj, TC, "K = X·W_K", err)) ||
        (st = check(m->v_proj, TC, "V = X·W_V", err)))
        return st;
    stats_forward(m->q_proj, TC, &mean, &m->var_q);
    stats_forward(m->k_proj, TC, &mean, &m->var_k);

    /* 5. split heads, then RoPE on Q and K */
    split_heads_forward(m->Q_norope, m->q_proj, T, C, H);
    split_heads_forward(m->K_norope, m->k_proj, T, C, H);
    split_heads_forward(m->V, m->v_proj, T, C, H);
    memcpy(m->Q, m->Q_norope, TC * sizeof(float));
    memcpy(m->K, m->K_norope, TC * sizeof(float));
    if (c->positions == AV_POS_ROPE) {
        rope_forward(m->Q, H, T, D, c->rope_style, c->rope_base, 0);
        rope_forward(m->K, H, T, D, c->rope_style, c->rope_base, 0);
    }

    /* 6. scores: measure the variance both unscaled and scaled. Only the scores
     * actually used must fit in float32: Q·Kᵀ may overflow where Q·Kᵀ/√d_k does not. */
    scores_forward(m->scores, m->Q, m->K, H, T, D, 1.0);
    int raw_finite = all_finite(m->scores, HTT);
    if (raw_finite) stats_forward(m->scores, HTT, &mean, &m->var_raw);
    if (c->scale) {
        scores_forward(m->scores, m->Q, m->K, H, T, D, 1.0 / sqrt((double)D));
        if ((st = check(m->scores, HTT, "the scores Q·Kᵀ/√d_k", err))) return st;
        stats_forward(m->scores, HTT, &mean, &m->var_scaled);
        if (!raw_finite) m->var_raw = m->var_scaled * (double)D; /* var(√D·S) = D·var(S) */
    } else {
        if ((st = check(m->scores, HTT, "the scores Q·Kᵀ (--no-scale)", err))) return st;
        m->var_scaled = m->var_raw / (double)D;
    }

    /* 7. mask */
    m->masked_count = mask_forward(m->mask, T, c->causal, c->n_real, m->user_mask);

    /* 8. softmax */
    m->fully_masked_rows = softmax_forward(m->att, m->scores, m->mask, H, T, &m->worst_row_dev);

    /* 9. weighted sum, concat, output projection */
    weighted_sum_forward(m->ctx_heads, m->att, m->V, H, T, D);
    merge_heads_forward(m->context, m->ctx_heads, T, C, H);
    matmul_forward(m->out, m->context, m->W_O, T, C, C);
    if ((st = check(m->out, TC, "the output Y", err))) return st;
    return AV_OK;
}

void av_model_free(av_model *m) {
    float *bufs[] = {m->X, m->PE, m->Xp, m->W_Q, m->W_K, m->W_V, m->W_O, m->q_proj, m->k_proj,
                     m->v_proj, m->Q_norope, m->K_norope, m->Q, m->K, m->V, m->scores, m->att,
                     m->ctx_heads, m->context, m->out};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(m->mask);
    free(m->user_mask);
    memset(m, 0, sizeof *m);
}
