/* gpt2_batch.c - forward and backward of a packed batch (see gpt2_batch.h):
 * the Conv1D products and the tied unembedding on sgemm over all N rows,
 * attention sequence by sequence with attention.h's and gpt2_backward.h's
 * kernels, GELU in float32. Runs on the calling thread only. */
#include "nn/gpt2_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/attention_blas.h"
#include "nn/fastexp.h"
#include "nn/gpt2_backward.h"

/* ----------------------------------------------------------------------------
 * kernels */

AV_SIMD_CLONES void gelu_fast_forward(float *out, float *sigma, const float *inp, size_t N) {
    // 0.5·x·(1 + tanh u) = x·σ(2u), σ(z) = 1/(1 + e^(−z)): no cancellation for negative x
    const float s = 0.7978845608028654f; /* √(2/π) */
    for (size_t i = 0; i < N; i++) {
        float x = inp[i];
        float u = s * (x + 0.044715f * x * x * x);
        float sg = 1.0f / (1.0f + av_expf(-2.0f * u));
        sigma[i] = sg;
        out[i] = x * sg;
    }
}

AV_SIMD_CLONES void gelu_fast_backward(float *dinp, const float *inp, const float *sigma, const float *dout, size_t N) {
    // d/dx x·σ(2u) = σ + x·σ·(1 − σ)·2·du/dx,  du/dx = √(2/π)·(1 + 3·0.044715·x²)
    const float s = 0.7978845608028654f;
    for (size_t i = 0; i < N; i++) {
        float x = inp[i], sg = sigma[i];
        float du = s * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] += (sg + 2.0f * x * sg * (1.0f - sg) * du) * dout[i];
    }
}

int causal_attention_fast_forward(float *out, float *att, const float *q, const float *k, const float *v, int H,
                                  int T, int D, float scale) {
    // q, k, v, out are (H, T, D); att is (H, T, T)
    int finite = 1;
    for (int h = 0; h < H; h++) {
        const float *q_h = q + (size_t)h * T * D, *k_h = k + (size_t)h * T * D, *v_h = v + (size_t)h * T * D;
        for (int i = 0; i < T; i++) {
            float *a_i = att + ((size_t)h * T + i) * T, *y_i = out + ((size_t)h * T + i) * D;
            /* pass 1: scores of the keys j <= i (the causal mask), and their maximum */
            float maxv = -INFINITY;
            for (int j = 0; j <= i; j++) {
                a_i[j] = gpt2_dot(q_h + (size_t)i * D, k_h + (size_t)j * D, D) * scale;
                finite &= isfinite(a_i[j]) != 0; /* C promises nonzero, not 1 */
                maxv = a_i[j] > maxv ? a_i[j] : maxv;
            }
            if (!finite) return 0; /* no exp of inf − inf */
            /* pass 2: exp(s − max), the sum, normalise; masked keys get exactly 0 */
            float sum = 0.0f;
            for (int j = 0; j <= i; j++) sum += a_i[j] = av_expf(a_i[j] - maxv);
            for (int j = 0; j <= i; j++) a_i[j] /= sum;
            for (int j = i + 1; j < T; j++) a_i[j] = 0.0f;
            /* pass 3: the weighted sum of the values */
            for (int d = 0; d < D; d++) y_i[d] = 0.0f;
            for (int j = 0; j <= i; j++)
                for (int d = 0; d < D; d++) y_i[d] += a_i[j] * v_h[(size_t)j * D + d];
        }
    }
    return finite;
}

/* out (N, OC) = inp (N, C)·w (C, OC) + b (b may be NULL): one sgemm onto the bias rows. */
static void conv1d_forward(float *out, const float *inp, const float *w, const float *b, int N, int C, int OC) {
    for (int t = 0; t < N; t++) {
        float *out_t = out + (size_t)t * OC;
        if (b) memcpy(out_t, b, (size_t)OC * sizeof(float));
        else memset(out_t, 0, (size_t)OC * sizeof(float));
    }
    av_sgemm(out, inp, w, N, OC, C, C, OC, OC, 0, 1.0f, 1.0f);
}

/* dw (M, K2) += aᵀ·b for a (N, M), b (N, K2): the weight gradient, summed over the N rows by sgemm. */
static void gemm_at_b(float *dw, const float *a, const float *b, int N, int M, int K2) {
    av_sgemm_at(dw, a, b, M, K2, N, M, K2, K2, 1.0f, 1.0f);
}

/* out = inp·w + b backward (Conv1D, w (C, OC)), over N rows:
 * dinp (N, C) += dout·wᵀ (skipped when dinp is NULL); dw (C, OC) += inpᵀ·dout; db (OC) += Σ_t dout[t]. */
static void conv1d_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                            int N, int C, int OC) {
    if (dinp) av_sgemm(dinp, dout, w, N, C, OC, OC, OC, C, 1, 1.0f, 1.0f);
    gemm_at_b(dw, inp, dout, N, C, OC);
    for (int t = 0; t < N; t++) {
        const float *dout_t = dout + (size_t)t * OC;
        for (int o = 0; o < OC; o++) db[o] += dout_t[o];
    }
}

/* ----------------------------------------------------------------------------
 * allocation and packing */

typedef struct {
    float **p;
    size_t n;
} buf;

/* The float buffers of bt with their sizes (floats) for the capacity. */
static int buffers(buf *out, av_gpt2_batch *bt, const av_gpt2_config *cfg, int maxB, int maxT) {
    size_t L = (size_t)cfg->n_layer, C = (size_t)cfg->n_embd, H = (size_t)cfg->n_head, V = (size_t)cfg->vocab_size;
    size_t N = (size_t)maxB * maxT, NC = N * C, LNC = L * NC, LN = L * N, A = H * (size_t)maxB * maxT * maxT;
    buf b[] = {
        {&bt->hidden, LNC + NC}, {&bt->ln1, LNC},      {&bt->ln1_mean, LN},  {&bt->ln1_rstd, LN},
        {&bt->qkv, 3 * NC},      {&bt->qkvh, 3 * LNC}, {&bt->att, L * A},
        {&bt->atty_h, NC},       {&bt->atty, LNC},     {&bt->attproj, LNC},  {&bt->res2, LNC},
        {&bt->ln2, LNC},         {&bt->ln2_mean, LN},  {&bt->ln2_rstd, LN},  {&bt->fch, 4 * LNC},
        {&bt->fch_gelu, 4 * LNC}, {&bt->fch_sigma, 4 * LNC}, {&bt->fcproj, LNC},  {&bt->res3, LNC},     {&bt->lnf, NC},
        {&bt->lnf_mean, N},      {&bt->lnf_rstd, N},   {&bt->lnf_s, NC},     {&bt->logits, N * V},
        {&bt->dlogits, N * V},   {&bt->dlnf_s, NC},    {&bt->dx, NC},        {&bt->dln, NC},
        {&bt->dres, NC},         {&bt->datty, NC},     {&bt->datty_h, NC},   {&bt->dqkvh, 3 * NC},
        {&bt->dqkv, 3 * NC},     {&bt->datt, A},       {&bt->dfch, 4 * NC},  {&bt->dfch_gelu, 4 * NC},
        {&bt->pe, (size_t)maxT * C},
    };
    int n = (int)(sizeof b / sizeof b[0]);
    if (out) memcpy(out, b, sizeof b);
    return n;
}

size_t av_gpt2_batch_bytes(const av_gpt2_config *cfg, int maxB, int maxT) {
    av_gpt2_batch bt;
    buf b[64];
    size_t total = 0, N = (size_t)maxB * maxT;
    for (int i = 0, n = buffers(b, &bt, cfg, maxB, maxT); i < n; i++) total += b[i].n * sizeof(float);
    return total + 3 * N * sizeof(int) + 2 * ((size_t)maxB + 1) * sizeof(size_t);
}

av_status av_gpt2_batch_alloc(av_gpt2_batch *bt, const av_gpt2_config *cfg, int maxB, int maxT, av_err *err) {
    memset(bt, 0, sizeof *bt);
    bt->maxB = maxB;
    bt->maxT = maxT;
    bt->maxN = maxB * maxT;
    buf b[64];
    int n = buffers(b, bt, cfg, maxB, maxT);
    for (int i = 0; i < n; i++)
        if (!(*b[i].p = av_calloc(b[i].n, sizeof(float)))) goto oom;
    bt->off = calloc((size_t)maxB + 1, sizeof *bt->off);
    bt->aoff = calloc((size_t)maxB + 1, sizeof *bt->aoff);
    bt->tokens = calloc((size_t)bt->maxN, sizeof *bt->tokens);
    bt->srow = calloc((size_t)bt->maxN, sizeof *bt->srow);
    bt->target = calloc((size_t)bt->maxN, sizeof *bt->target);
    if (!bt->off || !bt->aoff || !bt->tokens || !bt->srow || !bt->target) goto oom;
    if (cfg->positions == AV_POS_SINUSOIDAL) sinusoidal_forward(bt->pe, maxT, cfg->n_embd);
    return AV_OK;
oom:
    av_gpt2_batch_free(bt);
    return av_fail(err, AV_ERUNTIME, "out of memory for a training batch of %d sequence%s", maxB, maxB == 1 ? "" : "s");
}

void av_gpt2_batch_free(av_gpt2_batch *bt) {
    av_gpt2_config none = {.n_layer = 0};
    buf b[64];
    int n = buffers(b, bt, &none, 0, 0);
    for (int i = 0; i < n; i++) free(*b[i].p);
    free(bt->off); free(bt->aoff); free(bt->tokens); free(bt->srow); free(bt->target);
    memset(bt, 0, sizeof *bt);
}

av_status av_gpt2_batch_set(av_gpt2_batch *bt, const av_gpt2_config *cfg, const int *const *tokens,
                            const int *const *targets, const int *T, int B, av_err *err) {
    if (B < 1 || B > bt->maxB) return av_fail(err, AV_EUSAGE, "a batch of %d sequences (1..%d)", B, bt->maxB);
    int V = cfg->vocab_size, H = cfg->n_head, N = 0, S = 0;
    size_t A = 0;
    for (int b = 0; b < B; b++) {
        if (T[b] < 1 || T[b] > bt->maxT)
            return av_fail(err, AV_EUSAGE, "a training example has %d tokens (1..%d)", T[b], bt->maxT);
        /* learned positions stop at wpe's last row, as on the reference path (gpt2.h av_gpt2_acts_alloc) */
        av_status s = cfg->positions == AV_POS_LEARNED ? av_acts_check_T(T[b], cfg->n_positions, av_gpt2_positions_from(cfg), err)
                                                       : AV_OK;
        if (s) return s;
        bt->off[b] = N;
        bt->aoff[b] = A;
        for (int t = 0; t < T[b]; t++, N++) {
            int id = tokens[b][t], y = targets[b][t];
            if (id < 0 || id >= V || y >= V)
                return av_fail(err, AV_EUSAGE, "token id %d at position %d is outside the vocabulary 0..%d",
                               id < 0 || id >= V ? id : y, t, V - 1);
            bt->tokens[N] = id;
            if (y >= 0) { bt->srow[S] = N; bt->target[S++] = y; }
        }
        A += (size_t)H * T[b] * T[b];
    }
    bt->off[B] = N;
    bt->aoff[B] = A;
    bt->B = B;
    bt->N = N;
    bt->S = S;
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * forward */

/* Exit 2 naming where (attention.h av_overflow_fail; l < 0: the embedding, the logits). */
static av_status overflowed(int l, const char *what, av_err *err) {
    return av_overflow_fail(l, what, " during training", err);
}

static av_status finite_or_fail(const float *x, size_t n, int l, const char *what, av_err *err) {
    return all_finite(x, n) ? AV_OK : overflowed(l, what, err);
}

/* hidden[0] (N, C) = wte[token] + wpe[pos] (learned) or + PE[pos] (sinusoidal), pos = row − off[b]. */
static void embed_forward(av_gpt2_batch *bt, const av_gpt2_params *p, const av_gpt2_config *cfg) {
    int C = cfg->n_embd;
    for (int b = 0; b < bt->B; b++)
        for (int r = bt->off[b]; r < bt->off[b + 1]; r++) {
            const float *wte_t = p->wte + (size_t)bt->tokens[r] * C;
            size_t pos = (size_t)(r - bt->off[b]) * C;
            float *x = bt->hidden + (size_t)r * C;
            if (cfg->positions == AV_POS_LEARNED) residual_forward(x, wte_t, p->wpe + pos, (size_t)C);
            else if (cfg->positions == AV_POS_SINUSOIDAL) residual_forward(x, wte_t, bt->pe + pos, (size_t)C);
            else memcpy(x, wte_t, (size_t)C * sizeof(float));
        }
}

/* Causal self-attention of each sequence, layer l: qkv (N, 3C) → atty[l] (N, C). */
static av_status attention_seqs_forward(av_gpt2_batch *bt, const av_gpt2_config *cfg, int l, av_err *err) {
    int N = bt->N, C = cfg->n_embd, H = cfg->n_head, D = C / H, finite = 1;
    size_t NC = (size_t)N * C, A = bt->aoff[bt->B];
    const float *qkv = bt->qkv;
    float *qkvh = bt->qkvh + 3 * l * NC, *att = bt->att + l * A;
    float *atty_h = bt->atty_h, *atty = bt->atty + l * NC;
    float scale = cfg->scale ? (float)(1.0 / sqrt((double)D)) : 1.0f;
    for (int b = 0; b < bt->B; b++) {
        int T = bt->off[b + 1] - bt->off[b];
        size_t o = (size_t)bt->off[b] * C, TC = (size_t)T * C;
        float *q = qkvh + 3 * o, *k = q + TC;   // (H, T, D) each; v follows k
        split_heads_forward(q, qkv + 3 * o, T, 3 * C, 3 * H);
        if (cfg->positions == AV_POS_ROPE) {
            rope_forward(q, H, T, D, cfg->rope_style, cfg->rope_base, 0);
            rope_forward(k, H, T, D, cfg->rope_style, cfg->rope_base, 0);
        }
        finite &= causal_attention_fast_forward(atty_h + o, att + bt->aoff[b], q, k, k + TC, H, T, D, scale);
        merge_heads_forward(atty + o, atty_h + o, T, C, H);
    }
    return finite ? AV_OK : overflowed(l, "the scores q·kᵀ", err);
}

/* Attention sub-block of layer l on inp (N, C) → attproj[l]; MLP on inp2 → fcproj[l]. */
static av_status attn_forward(av_gpt2_batch *bt, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l,
                              const float *inp, av_err *err) {
    int N = bt->N, C = cfg->n_embd;
    size_t NC = (size_t)N * C;
    conv1d_forward(bt->qkv, inp, w->attn_c_attn_w, w->attn_c_attn_b, N, C, 3 * C);
    av_status s = attention_seqs_forward(bt, cfg, l, err);
    if (!s) conv1d_forward(bt->attproj + l * NC, bt->atty + l * NC, w->attn_c_proj_w, w->attn_c_proj_b, N, C, C);
    return s;
}

static void mlp_forward(av_gpt2_batch *bt, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l, const float *inp) {
    int N = bt->N, C = cfg->n_embd;
    size_t NC = (size_t)N * C;
    float *fch = bt->fch + 4 * l * NC, *fch_gelu = bt->fch_gelu + 4 * l * NC;   // (N, 4C)
    conv1d_forward(fch, inp, w->mlp_c_fc_w, w->mlp_c_fc_b, N, C, 4 * C);
    gelu_fast_forward(fch_gelu, bt->fch_sigma + 4 * l * NC, fch, 4 * NC);
    conv1d_forward(bt->fcproj + l * NC, fch_gelu, w->mlp_c_proj_w, w->mlp_c_proj_b, N, 4 * C, C);
}

/* One block: hidden[l] → hidden[l+1], Pre-LN or Post-LN (gpt2.h). */
static av_status block_forward(av_gpt2_batch *bt, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l,
                               av_err *err) {
    int N = bt->N, C = cfg->n_embd;
    size_t NC = (size_t)N * C, LN = (size_t)l * N;
    double eps = cfg->layer_norm_epsilon;
    const float *x = bt->hidden + l * NC;
    float *ln1 = bt->ln1 + l * NC, *res2 = bt->res2 + l * NC, *ln2 = bt->ln2 + l * NC, *res3 = bt->res3 + l * NC;
    float *attproj = bt->attproj + l * NC, *fcproj = bt->fcproj + l * NC;
    float *m1 = bt->ln1_mean + LN, *r1 = bt->ln1_rstd + LN, *m2 = bt->ln2_mean + LN, *r2 = bt->ln2_rstd + LN;
    int pre = cfg->norm == AV_NORM_PRE;
    if (pre) layernorm_forward(ln1, m1, r1, x, w->ln_1_w, w->ln_1_b, N, C, eps);
    av_status s = attn_forward(bt, w, cfg, l, pre ? ln1 : x, err);
    if (s) return s;
    residual_forward(res2, x, attproj, NC);
    if (pre) layernorm_forward(ln2, m2, r2, res2, w->ln_2_w, w->ln_2_b, N, C, eps);
    else layernorm_forward(ln1, m1, r1, res2, w->ln_1_w, w->ln_1_b, N, C, eps);
    mlp_forward(bt, w, cfg, l, pre ? ln2 : ln1);
    residual_forward(res3, pre ? res2 : ln1, fcproj, NC);
    if (!pre) layernorm_forward(ln2, m2, r2, res3, w->ln_2_w, w->ln_2_b, N, C, eps);
    memcpy(bt->hidden + (l + 1) * NC, pre ? res3 : ln2, NC * sizeof(float));
    return finite_or_fail(bt->hidden + (l + 1) * NC, NC, l, "the residual stream", err);
}

av_status av_gpt2_batch_forward(av_gpt2_batch *bt, const av_gpt2_params *p, const av_gpt2_config *cfg, av_err *err) {
    int N = bt->N, C = cfg->n_embd, L = cfg->n_layer, V = cfg->vocab_size;
    av_status s = av_blas_require(err); /* every product here is sgemm */
    if (s) return s;
    embed_forward(bt, p, cfg);
    s = finite_or_fail(bt->hidden, (size_t)N * C, -1, "the embedding (wte + positions, before layer 0)", err);
    for (int l = 0; !s && l < L; l++) s = block_forward(bt, &p->h[l], cfg, l, err);
    if (s) return s;
    layernorm_forward(bt->lnf, bt->lnf_mean, bt->lnf_rstd, bt->hidden + (size_t)L * N * C, p->ln_f_w, p->ln_f_b, N,
                      C, cfg->layer_norm_epsilon);
    for (int i = 0; i < bt->S; i++)
        memcpy(bt->lnf_s + (size_t)i * C, bt->lnf + (size_t)bt->srow[i] * C, (size_t)C * sizeof(float));
    if (bt->S) av_sgemm(bt->logits, bt->lnf_s, p->wte, bt->S, V, C, C, C, V, 1, 1.0f, 0.0f);
    return finite_or_fail(bt->logits, (size_t)bt->S * V, -1, "the logits (after the final LayerNorm ln_f)", err);
}

double av_gpt2_batch_loss(av_gpt2_batch *bt, int V, double weight) {
    return crossentropy_forward_backward(bt->dlogits, bt->logits, bt->target, bt->S, V, weight);
}

/* ----------------------------------------------------------------------------
 * backward */

static void zero(float *x, size_t n) { memset(x, 0, n * sizeof(float)); }

/* The MLP's backward from dout (N, C) (its output's gradient) to dinp (N, C) += ∂/∂ its input. */
static void mlp_backward(float *dinp, av_gpt2_layer *g, av_gpt2_batch *bt, const float *dout, const float *in,
                         const av_gpt2_layer *w, int l, int C) {
    int N = bt->N;
    size_t n4 = (size_t)N * 4 * C, o4 = (size_t)l * n4;
    zero(bt->dfch_gelu, n4);
    conv1d_backward(bt->dfch_gelu, g->mlp_c_proj_w, g->mlp_c_proj_b, dout, bt->fch_gelu + o4, w->mlp_c_proj_w, N,
                    4 * C, C);
    zero(bt->dfch, n4);
    gelu_fast_backward(bt->dfch, bt->fch + o4, bt->fch_sigma + o4, bt->dfch_gelu, n4);
    conv1d_backward(dinp, g->mlp_c_fc_w, g->mlp_c_fc_b, bt->dfch, in, w->mlp_c_fc_w, N, C, 4 * C);
}

/* Each sequence's attention backward, layer l: datty (N, C) → dqkv (N, 3C). */
static void attention_seqs_backward(av_gpt2_batch *bt, const av_gpt2_config *cfg, int l) {
    int C = cfg->n_embd, H = cfg->n_head, D = C / H;
    size_t NC = (size_t)bt->N * C, A = bt->aoff[bt->B];
    const float *qkvh = bt->qkvh + 3 * l * NC, *att = bt->att + l * A;
    double scale = cfg->scale ? 1.0 / sqrt((double)D) : 1.0;
    zero(bt->dqkvh, 3 * NC);
    for (int b = 0; b < bt->B; b++) {
        int T = bt->off[b + 1] - bt->off[b];
        size_t o = (size_t)bt->off[b] * C, TC = (size_t)T * C;
        const float *q = qkvh + 3 * o;
        float *dq = bt->dqkvh + 3 * o;
        split_heads_forward(bt->datty_h + o, bt->datty + o, T, C, H); /* merge's backward is the split */
        attention_backward(dq, dq + TC, dq + 2 * TC, bt->datt + bt->aoff[b], bt->datty_h + o, q, q + TC, q + 2 * TC,
                           att + bt->aoff[b], H, T, D, scale);
        if (cfg->positions == AV_POS_ROPE) {
            rope_backward(dq, H, T, D, cfg->rope_style, cfg->rope_base);
            rope_backward(dq + TC, H, T, D, cfg->rope_style, cfg->rope_base);
        }
        merge_heads_forward(bt->dqkv + 3 * o, dq, T, 3 * C, 3 * H); /* the split's backward is the merge */
    }
}

/* The attention sub-block's backward from dout (N, C) to dinp (N, C) += ∂/∂ its input in. */
static void attn_backward(float *dinp, av_gpt2_layer *g, av_gpt2_batch *bt, const float *dout, const float *in,
                          const av_gpt2_layer *w, const av_gpt2_config *cfg, int l) {
    int N = bt->N, C = cfg->n_embd;
    size_t NC = (size_t)N * C;
    zero(bt->datty, NC);
    conv1d_backward(bt->datty, g->attn_c_proj_w, g->attn_c_proj_b, dout, bt->atty + l * NC, w->attn_c_proj_w, N, C, C);
    attention_seqs_backward(bt, cfg, l);
    conv1d_backward(dinp, g->attn_c_attn_w, g->attn_c_attn_b, bt->dqkv, in, w->attn_c_attn_w, N, C, 3 * C);
}

/* One block: on entry dx = ∂/∂hidden[l+1]; on exit ∂/∂hidden[l] (Pre-LN or Post-LN). */
static void block_backward(av_gpt2_layer *g, av_gpt2_batch *bt, const av_gpt2_layer *w, const av_gpt2_config *cfg,
                           int l) {
    int N = bt->N, C = cfg->n_embd;
    size_t NC = (size_t)N * C, o = (size_t)l * NC, on = (size_t)l * N;
    const float *m1 = bt->ln1_mean + on, *r1 = bt->ln1_rstd + on, *m2 = bt->ln2_mean + on, *r2 = bt->ln2_rstd + on;
    if (cfg->norm == AV_NORM_PRE) {
        memcpy(bt->dres, bt->dx, NC * sizeof(float));            /* res3 = res2 + fcproj */
        zero(bt->dln, NC);
        mlp_backward(bt->dln, g, bt, bt->dx, bt->ln2 + o, w, l, C);
        layernorm_backward(bt->dres, g->ln_2_w, g->ln_2_b, bt->dln, bt->res2 + o, w->ln_2_w, m2, r2, N, C);
        memcpy(bt->dx, bt->dres, NC * sizeof(float));            /* res2 = x + attproj */
        zero(bt->dln, NC);
        attn_backward(bt->dln, g, bt, bt->dres, bt->ln1 + o, w, cfg, l);
        layernorm_backward(bt->dx, g->ln_1_w, g->ln_1_b, bt->dln, bt->hidden + o, w->ln_1_w, m1, r1, N, C);
        return;
    }
    zero(bt->dres, NC);                                          /* ln2 = LayerNorm_2(res3) */
    layernorm_backward(bt->dres, g->ln_2_w, g->ln_2_b, bt->dx, bt->res3 + o, w->ln_2_w, m2, r2, N, C);
    memcpy(bt->dln, bt->dres, NC * sizeof(float));               /* res3 = ln1 + fcproj */
    mlp_backward(bt->dln, g, bt, bt->dres, bt->ln1 + o, w, l, C);
    zero(bt->dres, NC);                                          /* ln1 = LayerNorm_1(res2) */
    layernorm_backward(bt->dres, g->ln_1_w, g->ln_1_b, bt->dln, bt->res2 + o, w->ln_1_w, m1, r1, N, C);
    memcpy(bt->dx, bt->dres, NC * sizeof(float));                /* res2 = x + attproj */
    attn_backward(bt->dx, g, bt, bt->dres, bt->hidden + o, w, cfg, l);
}

/* logits (S, V) = lnf_s·wteᵀ backward: dln (N, C) = dlogits·wte scattered to the
 * scored rows (0 elsewhere); dwte (V, C) += dlogitsᵀ·lnf_s. */
static void unembed_backward(av_gpt2_batch *bt, float *dwte, const float *wte, int C, int V) {
    zero(bt->dln, (size_t)bt->N * C);
    if (!bt->S) return;
    av_sgemm(bt->dlnf_s, bt->dlogits, wte, bt->S, C, V, V, C, C, 0, 1.0f, 0.0f);
    for (int i = 0; i < bt->S; i++)
        memcpy(bt->dln + (size_t)bt->srow[i] * C, bt->dlnf_s + (size_t)i * C, (size_t)C * sizeof(float));
    gemm_at_b(dwte, bt->dlogits, bt->lnf_s, bt->S, V, C);
}

void av_gpt2_batch_backward(av_gpt2_params *grads, av_gpt2_batch *bt, const av_gpt2_params *p,
                            const av_gpt2_config *cfg) {
    int N = bt->N, C = cfg->n_embd, L = cfg->n_layer;
    size_t NC = (size_t)N * C;
    unembed_backward(bt, grads->wte, p->wte, C, cfg->vocab_size);
    zero(bt->dx, NC);
    layernorm_backward(bt->dx, grads->ln_f_w, grads->ln_f_b, bt->dln, bt->hidden + (size_t)L * NC, p->ln_f_w,
                       bt->lnf_mean, bt->lnf_rstd, N, C);
    for (int l = L - 1; l >= 0; l--) block_backward(&grads->h[l], bt, &p->h[l], cfg, l);
    /* hidden[0] = wte[token] (+ wpe[pos]); sinusoidal PE and RoPE have no parameters */
    for (int b = 0; b < bt->B; b++)
        for (int r = bt->off[b]; r < bt->off[b + 1]; r++) {
            const float *dx_r = bt->dx + (size_t)r * C;
            float *dwte = grads->wte + (size_t)bt->tokens[r] * C;
            for (int c = 0; c < C; c++) dwte[c] += dx_r[c];
            if (cfg->positions != AV_POS_LEARNED) continue;
            float *dwpe = grads->wpe + (size_t)(r - bt->off[b]) * C;
            for (int c = 0; c < C; c++) dwpe[c] += dx_r[c];
        }
}
