/* gpt2_backward.c - the backward pass (see gpt2_backward.h for the math).
 * Every kernel below mirrors a forward kernel of gpt2.c / attention.c and is
 * written as plain loops in a fixed order, so the gradients are the same bits
 * on every run. */
#include "nn/gpt2_backward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------------
 * loss */

double crossentropy_forward_backward(float *dlogits, const float *logits, const int *targets, int T, int V,
                                     double weight) {
    // logits, dlogits are (T, V); targets is (T), -1 = not scored
    double loss = 0.0;
    for (int t = 0; t < T; t++) {
        const float *l_t = logits + (size_t)t * V;
        float *d_t = dlogits ? dlogits + (size_t)t * V : NULL;
        if (targets[t] < 0) {
            if (d_t) memset(d_t, 0, (size_t)V * sizeof(float));
            continue;
        }
        double maxv = l_t[0], sum = 0.0;
        for (int i = 1; i < V; i++) if (l_t[i] > maxv) maxv = l_t[i];
        for (int i = 0; i < V; i++) sum += exp((double)l_t[i] - maxv);
        double logz = maxv + log(sum);
        loss += logz - (double)l_t[targets[t]];
        if (!d_t) continue;
        for (int i = 0; i < V; i++) {
            double p = exp((double)l_t[i] - logz);
            d_t[i] = (float)((p - (i == targets[t])) * weight);
        }
    }
    return loss;
}

/* ----------------------------------------------------------------------------
 * kernels */

void gpt2_matmul_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                          int T, int C, int OC) {
    // inp, dinp are (T, C); w, dw are (C, OC); dout is (T, OC); db is (OC)
    for (int t = 0; t < T; t++) {
        const float *dout_t = dout + (size_t)t * OC;
        const float *inp_t = inp + (size_t)t * C;
        float *dinp_t = dinp + (size_t)t * C;
        for (int c = 0; c < C; c++) {
            float *dw_c = dw + (size_t)c * OC;
            float x = inp_t[c];
            dinp_t[c] += gpt2_dot(dout_t, w + (size_t)c * OC, OC);
            for (int o = 0; o < OC; o++) dw_c[o] += x * dout_t[o];
        }
        if (db)
            for (int o = 0; o < OC; o++) db[o] += dout_t[o];
    }
}

void gpt2_unembed_backward(float *dinp, float *dwte, const float *dlogits, const float *inp, const float *wte,
                           int T, int C, int V) {
    // inp, dinp are (T, C); wte, dwte are (V, C); dlogits is (T, V)
    for (int t = 0; t < T; t++) {
        const float *dl_t = dlogits + (size_t)t * V;
        const float *inp_t = inp + (size_t)t * C;
        float *dinp_t = dinp + (size_t)t * C;
        int any = 0;
        for (int v = 0; v < V && !any; v++) any = dl_t[v] != 0.0f;
        if (!any) continue;
        for (int v = 0; v < V; v++) {
            float g = dl_t[v];
            const float *wte_v = wte + (size_t)v * C;
            float *dwte_v = dwte + (size_t)v * C;
            for (int c = 0; c < C; c++) {
                dinp_t[c] += g * wte_v[c];
                dwte_v[c] += g * inp_t[c];
            }
        }
    }
}

void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp, const float *w,
                        const float *mean, const float *rstd, int T, int C) {
    // inp, dinp, dout are (T, C); w, dw, db are (C); mean, rstd are (T)
    for (int t = 0; t < T; t++) {
        const float *dout_t = dout + (size_t)t * C;
        const float *inp_t = inp + (size_t)t * C;
        float *dinp_t = dinp + (size_t)t * C;
        double m = mean[t], r = rstd[t];
        double g_mean = 0.0, gn_mean = 0.0; /* mean(g), mean(g·n), g = dout·w */
        for (int c = 0; c < C; c++) {
            double n = ((double)inp_t[c] - m) * r;
            double g = (double)w[c] * dout_t[c];
            g_mean += g;
            gn_mean += g * n;
        }
        g_mean /= C;
        gn_mean /= C;
        for (int c = 0; c < C; c++) {
            double n = ((double)inp_t[c] - m) * r;
            double g = (double)w[c] * dout_t[c];
            db[c] += dout_t[c];
            dw[c] += (float)(n * dout_t[c]);
            dinp_t[c] += (float)(r * (g - g_mean - n * gn_mean));
        }
    }
}

void gelu_backward(float *dinp, const float *inp, const float *dout, size_t N) {
    // d/dx 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³)
    const double s = sqrt(2.0 / 3.14159265358979323846);
    for (size_t i = 0; i < N; i++) {
        double x = inp[i];
        double u = s * (x + 0.044715 * x * x * x);
        double th = tanh(u);
        double du = s * (1.0 + 3.0 * 0.044715 * x * x);
        double grad = 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * du;
        dinp[i] += (float)(grad * dout[i]);
    }
}

void attention_backward(float *dq, float *dk, float *dv, float *datt, const float *datty_h, const float *q,
                        const float *k, const float *v, const float *att, int H, int T, int D, double scale) {
    // q, k, v, dq, dk, dv, datty_h are (H, T, D); att, datt are (H, T, T)
    float sc = (float)scale;
    for (int h = 0; h < H; h++) {
        size_t hd = (size_t)h * T * D, ht = (size_t)h * T * T;
        for (int i = 0; i < T; i++) {
            const float *dy_i = datty_h + hd + (size_t)i * D;
            const float *att_i = att + ht + (size_t)i * T;
            float *datt_i = datt + ht + (size_t)i * T;
            /* pass 1: through the weighted sum y_i = Σ_j att[i,j]·v_j (j <= i). It does three things:
             *   dv_j += att[i,j]·dy_i                     (y_i's gradient reaches each value it weighted)
             *   datt[i,j] = dy_i · v_j                    (the gradient of each weight)
             *   dot_sum = Σ_j att[i,j]·datt[i,j]          (what pass 2's softmax backward subtracts) */
            double dot_sum = 0.0;
            for (int j = 0; j <= i; j++) {
                const float *v_j = v + hd + (size_t)j * D;
                float *dv_j = dv + hd + (size_t)j * D;
                float datt_ij = 0.0f; /* a float sum over d (dot_sum, over j, is in double) */
                for (int d = 0; d < D; d++) {
                    datt_ij += dy_i[d] * v_j[d];
                    dv_j[d] += att_i[j] * dy_i[d];
                }
                datt_i[j] = datt_ij;
                dot_sum += (double)att_i[j] * datt_ij;
            }
            /* pass 2: through the softmax, dscores[i,j] = att[i,j]·(datt[i,j] − dot_sum), then through
             * the scaled dot products scores[i,j] = scale·q_i·k_j, which give dq_i and dk_j */
            const float *q_i = q + hd + (size_t)i * D;
            float *dq_i = dq + hd + (size_t)i * D;
            for (int j = 0; j <= i; j++) {
                float dscores_ij = (float)((double)att_i[j] * ((double)datt_i[j] - dot_sum)) * sc; /* ×scale too */
                const float *k_j = k + hd + (size_t)j * D;
                float *dk_j = dk + hd + (size_t)j * D;
                for (int d = 0; d < D; d++) {
                    dq_i[d] += dscores_ij * k_j[d];
                    dk_j[d] += dscores_ij * q_i[d];
                }
            }
        }
    }
}

void rope_backward(float *dx, int H, int T, int D, av_rope_style style, double base) {
    // dx is (H, T, D); forward turned pair i by +pos·θ_i, the transpose turns it back
    int half = D / 2;
    for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++) {
            float *dx_ht = dx + ((size_t)h * T + t) * D;
            for (int i = 0; i < half; i++) {
                double a = (double)t * pow(base, -2.0 * i / (double)D), c = cos(a), s = sin(a);
                int i0 = style == AV_ROPE_INTERLEAVED ? 2 * i : i;
                int i1 = style == AV_ROPE_INTERLEAVED ? 2 * i + 1 : i + half;
                double g0 = dx_ht[i0], g1 = dx_ht[i1];
                dx_ht[i0] = (float)(g0 * c + g1 * s);
                dx_ht[i1] = (float)(-g0 * s + g1 * c);
            }
        }
}

/* ----------------------------------------------------------------------------
 * scratch */

av_status av_gpt2_grad_acts_alloc(av_gpt2_grad_acts *g, const av_gpt2_config *cfg, int maxT, av_err *err) {
    memset(g, 0, sizeof *g);
    size_t T = (size_t)maxT, C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size, H = (size_t)cfg->n_head;
    g->maxT = maxT;
    g->dlogits = calloc(T * V, sizeof(float));
    g->dx = calloc(T * C, sizeof(float));
    g->dln = calloc(T * C, sizeof(float));
    g->dres = calloc(T * C, sizeof(float));
    g->datty = calloc(T * C, sizeof(float));
    g->datty_h = calloc(T * C, sizeof(float));
    g->dqkvh = calloc(3 * T * C, sizeof(float));
    g->dqkv = calloc(3 * T * C, sizeof(float));
    g->datt = calloc(H * T * T, sizeof(float));
    g->dfch = calloc(4 * T * C, sizeof(float));
    g->dfch_gelu = calloc(4 * T * C, sizeof(float));
    if (!g->dlogits || !g->dx || !g->dln || !g->dres || !g->datty || !g->datty_h || !g->dqkvh || !g->dqkv ||
        !g->datt || !g->dfch || !g->dfch_gelu) {
        av_gpt2_grad_acts_free(g);
        return av_fail(err, AV_ERUNTIME, "out of memory for the backward pass");
    }
    return AV_OK;
}

void av_gpt2_grad_acts_free(av_gpt2_grad_acts *g) {
    float *bufs[] = {g->dlogits, g->dx, g->dln, g->dres, g->datty, g->datty_h, g->dqkvh, g->dqkv, g->datt,
                     g->dfch, g->dfch_gelu};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    memset(g, 0, sizeof *g);
}

/* ----------------------------------------------------------------------------
 * the model, walked in reverse */

static void zero(float *x, size_t n) { memset(x, 0, n * sizeof(float)); }

/* The MLP fcproj = GELU(in·c_fc.w + b)·c_proj.w + b, backward from dout (T, C):
 * dinp (T, C) += its gradient w.r.t. in. */
static void mlp_backward(float *dinp, av_gpt2_layer *gl, av_gpt2_grad_acts *ga, const float *dout,
                         const float *in, const float *fch, const float *fch_gelu, const av_gpt2_layer *l, int T,
                         int C) {
    size_t n4 = (size_t)T * 4 * C;
    zero(ga->dfch_gelu, n4);
    gpt2_matmul_backward(ga->dfch_gelu, gl->mlp_c_proj_w, gl->mlp_c_proj_b, dout, fch_gelu, l->mlp_c_proj_w, T,
                         4 * C, C);
    zero(ga->dfch, n4);
    gelu_backward(ga->dfch, fch, ga->dfch_gelu, n4);
    gpt2_matmul_backward(dinp, gl->mlp_c_fc_w, gl->mlp_c_fc_b, ga->dfch, in, l->mlp_c_fc_w, T, C, 4 * C);
}

/* The attention sub-block attproj = Attention(in·c_attn.w + b)·c_proj.w + b,
 * backward from dout (T, C): dinp (T, C) += its gradient w.r.t. in. */
static void attn_backward(float *dinp, av_gpt2_layer *gl, av_gpt2_grad_acts *ga, const float *dout,
                          const float *in, const av_gpt2_acts *a, int layer, const av_gpt2_layer *l,
                          const av_gpt2_config *cfg, int T) {
    int C = cfg->n_embd, H = cfg->n_head, D = C / H;
    size_t TC = (size_t)T * C;
    const float *qkvh = a->qkvh + (size_t)layer * 3 * TC;
    const float *att = a->att + (size_t)layer * H * T * T;
    zero(ga->datty, TC);
    gpt2_matmul_backward(ga->datty, gl->attn_c_proj_w, gl->attn_c_proj_b, dout, a->atty + (size_t)layer * TC,
                         l->attn_c_proj_w, T, C, C);
    split_heads_forward(ga->datty_h, ga->datty, T, C, H); /* merge's backward is the split */
    zero(ga->dqkvh, 3 * TC);
    double scale = cfg->scale ? 1.0 / sqrt((double)D) : 1.0;
    attention_backward(ga->dqkvh, ga->dqkvh + TC, ga->dqkvh + 2 * TC, ga->datt, ga->datty_h, qkvh, qkvh + TC,
                       qkvh + 2 * TC, att, H, T, D, scale);
    if (cfg->positions == AV_POS_ROPE) {
        rope_backward(ga->dqkvh, H, T, D, cfg->rope_style, cfg->rope_base);
        rope_backward(ga->dqkvh + TC, H, T, D, cfg->rope_style, cfg->rope_base);
    }
    for (int s = 0; s < 3; s++) /* (3, H, T, D) back to (T, 3C): the split's backward is the merge */
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++)
                memcpy(ga->dqkv + (size_t)t * 3 * C + (size_t)s * C + (size_t)h * D,
                       ga->dqkvh + (size_t)s * TC + ((size_t)h * T + t) * D, (size_t)D * sizeof(float));
    gpt2_matmul_backward(dinp, gl->attn_c_attn_w, gl->attn_c_attn_b, ga->dqkv, in, l->attn_c_attn_w, T, C, 3 * C);
}

/* One block, pre-LN: on entry ga->dx = ∂/∂hidden[l+1]; on exit ∂/∂hidden[l]. */
static void block_backward_pre(av_gpt2_layer *gl, av_gpt2_grad_acts *ga, const av_gpt2_acts *a, int layer,
                               const av_gpt2_layer *l, const av_gpt2_config *cfg, int T) {
    int C = cfg->n_embd;
    size_t TC = (size_t)T * C, o = (size_t)layer * TC, o4 = o * 4, ot = (size_t)layer * T;
    memcpy(ga->dres, ga->dx, TC * sizeof(float));            /* res3 = res2 + fcproj */
    zero(ga->dln, TC);
    mlp_backward(ga->dln, gl, ga, ga->dx, a->ln2 + o, a->fch + o4, a->fch_gelu + o4, l, T, C);
    layernorm_backward(ga->dres, gl->ln_2_w, gl->ln_2_b, ga->dln, a->res2 + o, l->ln_2_w, a->ln2_mean + ot,
                       a->ln2_rstd + ot, T, C);
    memcpy(ga->dx, ga->dres, TC * sizeof(float));            /* res2 = x + attproj */
    zero(ga->dln, TC);
    attn_backward(ga->dln, gl, ga, ga->dres, a->ln1 + o, a, layer, l, cfg, T);
    layernorm_backward(ga->dx, gl->ln_1_w, gl->ln_1_b, ga->dln, a->hidden + o, l->ln_1_w, a->ln1_mean + ot,
                       a->ln1_rstd + ot, T, C);
}

/* One block, post-LN: on entry ga->dx = ∂/∂hidden[l+1] = ∂/∂ln2; on exit ∂/∂hidden[l]. */
static void block_backward_post(av_gpt2_layer *gl, av_gpt2_grad_acts *ga, const av_gpt2_acts *a, int layer,
                                const av_gpt2_layer *l, const av_gpt2_config *cfg, int T) {
    int C = cfg->n_embd;
    size_t TC = (size_t)T * C, o = (size_t)layer * TC, o4 = o * 4, ot = (size_t)layer * T;
    zero(ga->dres, TC);                                      /* ln2 = LayerNorm_2(res3) */
    layernorm_backward(ga->dres, gl->ln_2_w, gl->ln_2_b, ga->dx, a->res3 + o, l->ln_2_w, a->ln2_mean + ot,
                       a->ln2_rstd + ot, T, C);
    memcpy(ga->dln, ga->dres, TC * sizeof(float));           /* res3 = ln1 + fcproj */
    mlp_backward(ga->dln, gl, ga, ga->dres, a->ln1 + o, a->fch + o4, a->fch_gelu + o4, l, T, C);
    zero(ga->dres, TC);                                      /* ln1 = LayerNorm_1(res2) */
    layernorm_backward(ga->dres, gl->ln_1_w, gl->ln_1_b, ga->dln, a->res2 + o, l->ln_1_w, a->ln1_mean + ot,
                       a->ln1_rstd + ot, T, C);
    memcpy(ga->dx, ga->dres, TC * sizeof(float));            /* res2 = x + attproj */
    attn_backward(ga->dx, gl, ga, ga->dres, a->hidden + o, a, layer, l, cfg, T);
}

void av_gpt2_backward(av_gpt2_params *grads, av_gpt2_grad_acts *ga, const av_gpt2_acts *a,
                      const av_gpt2_params *p, const av_gpt2_config *cfg, const int *tokens, int T) {
    int C = cfg->n_embd, V = cfg->vocab_size, L = cfg->n_layer;
    size_t TC = (size_t)T * C;
    /* logits = lnf·wteᵀ (tied), lnf = LayerNorm_f(hidden[L]) */
    zero(ga->dln, TC);
    gpt2_unembed_backward(ga->dln, grads->wte, ga->dlogits, a->lnf, p->wte, T, C, V);
    zero(ga->dx, TC);
    layernorm_backward(ga->dx, grads->ln_f_w, grads->ln_f_b, ga->dln, a->hidden + (size_t)L * TC, p->ln_f_w,
                       a->lnf_mean, a->lnf_rstd, T, C);
    for (int l = L - 1; l >= 0; l--) {
        if (cfg->norm == AV_NORM_POST) block_backward_post(&grads->h[l], ga, a, l, &p->h[l], cfg, T);
        else block_backward_pre(&grads->h[l], ga, a, l, &p->h[l], cfg, T);
    }
    /* encoded = wte[token] (+ wpe[t]); sinusoidal PE and RoPE have no parameters */
    for (int t = 0; t < T; t++) {
        const float *dx_t = ga->dx + (size_t)t * C;
        float *dwte = grads->wte + (size_t)tokens[t] * C;
        for (int c = 0; c < C; c++) dwte[c] += dx_t[c];
        if (cfg->positions == AV_POS_LEARNED) {
            float *dwpe = grads->wpe + (size_t)t * C;
            for (int c = 0; c < C; c++) dwpe[c] += dx_t[c];
        }
    }
}
