/* train_fixture.h - the torch gradient fixture (tests/gen_train_ref.py,
 * tests/ref/train/) loaded into a GPT-2 parameter block, and the batch
 * gradient of gpt2_backward on it. Written with `float` so that
 * test_gradcheck64.c can compile the same code (and the kernels) with
 * `#define float double`; the file's raw float32 values are read through
 * fx_f32, which stays single precision.
 */
#ifndef AV_TRAIN_FIXTURE_H
#define AV_TRAIN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/safetensors.h"
#include "nn/gpt2.h"
#include "nn/gpt2_backward.h"
#include "io/fileio.h"
#include "testutil.h"

typedef struct {
    char name[64];
    av_gpt2_config cfg;
    int n;                      /* tensors */
    float *pmem, *gmem;         /* parameters, torch's gradients */
    av_gpt2_params p, g_ref;
    av_gpt2_tensor *tab, *gtab;
    int B, maxT;
    int tokens[8][32], targets[8][32], len[8];
    double loss_ref;
} fx_variant;

/* Copy n float32 values stored little-endian at src into dst. */
static void fx_read_f32(float *dst, const unsigned char *src, size_t n) {
    for (size_t i = 0; i < n; i++) {
        fx_f32 x;
        memcpy(&x, src + 4 * i, 4);
        dst[i] = x;
    }
}

static void fx_bind(av_gpt2_params *p, av_gpt2_tensor *tab, const av_gpt2_config *cfg, float *mem) {
    p->h = calloc((size_t)cfg->n_layer, sizeof *p->h);
    av_gpt2_tensor_table(tab, cfg, p);
    size_t off = 0;
    for (int i = 0; i < av_gpt2_num_tensors(cfg); i++) {
        *tab[i].slot = mem + off;
        off += tab[i].numel;
    }
}

/* Parse one line of variants.txt and load <name>.safetensors. 0 on success. */
static int fx_load(fx_variant *v, const char *line) {
    char pos[32], norm[32];
    int scale;
    memset(v, 0, sizeof *v);
    av_gpt2_config_defaults(&v->cfg);
    if (sscanf(line, "%63s %d %d %d %d %d %31s %31s %d", v->name, &v->cfg.n_layer, &v->cfg.n_embd, &v->cfg.n_head,
               &v->maxT, &v->cfg.vocab_size, pos, norm, &scale) != 9)
        return -1;
    v->cfg.n_positions = v->maxT;
    v->cfg.layer_norm_epsilon = 1e-5;
    v->cfg.positions = !strcmp(pos, "learned") ? AV_POS_LEARNED : !strcmp(pos, "rope") ? AV_POS_ROPE : AV_POS_SINUSOIDAL;
    v->cfg.norm = !strcmp(norm, "post") ? AV_NORM_POST : AV_NORM_PRE;
    v->cfg.scale = scale;
    v->n = av_gpt2_num_tensors(&v->cfg);
    size_t np = av_gpt2_num_params(&v->cfg);
    v->pmem = calloc(np, sizeof(float));
    v->gmem = calloc(np, sizeof(float));
    v->tab = calloc((size_t)v->n, sizeof *v->tab);
    v->gtab = calloc((size_t)v->n, sizeof *v->gtab);
    fx_bind(&v->p, v->tab, &v->cfg, v->pmem);
    fx_bind(&v->g_ref, v->gtab, &v->cfg, v->gmem);
    char rel[128], gname[96];
    snprintf(rel, sizeof rel, "tests/ref/train/%s.safetensors", v->name);
    av_safetensors st;
    av_err err;
    if (av_safetensors_open(&st, src_path(rel), &err)) { fprintf(stderr, "%s\n", err.msg); return -1; }
    int bad = 0;
    for (int i = 0; i < v->n && !bad; i++) {
        snprintf(gname, sizeof gname, "grad.%s", v->tab[i].name);
        const av_st_tensor *t = av_safetensors_find(&st, v->tab[i].name), *g = av_safetensors_find(&st, gname);
        bad = !t || !g || t->numel != v->tab[i].numel || g->numel != v->tab[i].numel;
        if (!bad) fx_read_f32(*v->tab[i].slot, t->data, t->numel);
        if (!bad) fx_read_f32(*v->gtab[i].slot, g->data, g->numel);
    }
    const av_st_tensor *tk = av_safetensors_find(&st, "tokens"), *tg = av_safetensors_find(&st, "targets"),
                       *ls = av_safetensors_find(&st, "loss");
    bad |= !tk || !tg || !ls || tk->ndim != 2 || tk->shape[0] > 8 || tk->shape[1] > 32;
    if (!bad) {
        v->B = (int)tk->shape[0];
        for (int b = 0; b < v->B; b++)
            for (int t = 0; t < v->maxT; t++) {
                int32_t x, y;
                memcpy(&x, tk->data + 4 * ((size_t)b * v->maxT + t), 4);
                memcpy(&y, tg->data + 4 * ((size_t)b * v->maxT + t), 4);
                v->tokens[b][t] = x;
                v->targets[b][t] = y;
                if (x >= 0) v->len[b] = t + 1;
            }
        fx_f32 l;
        memcpy(&l, ls->data, 4);
        v->loss_ref = l;
    }
    av_safetensors_close(&st);
    return bad ? -1 : 0;
}

static void fx_free(fx_variant *v) {
    free(v->pmem); free(v->gmem); free(v->tab); free(v->gtab); free(v->p.h); free(v->g_ref.h);
}

/* grads (zeroed here, bound to gmem of av_gpt2_num_params floats) = d mean loss / d params
 * over the fixture's batch, with parameters p. Returns the mean loss. */
static double fx_batch_grads(const fx_variant *v, const av_gpt2_params *p, av_gpt2_params *grads, float *gmem) {
    int n_scored = 0;
    for (int b = 0; b < v->B; b++)
        for (int t = 0; t < v->len[b]; t++) n_scored += v->targets[b][t] >= 0;
    if (gmem) memset(gmem, 0, av_gpt2_num_params(&v->cfg) * sizeof(float));
    av_gpt2_grad_acts ga;
    av_err err;
    double loss = 0;
    if (av_gpt2_grad_acts_alloc(&ga, &v->cfg, v->maxT, &err)) return NAN;
    for (int b = 0; b < v->B; b++) {
        av_gpt2_acts a;
        int T = v->len[b];
        if (av_gpt2_acts_alloc(&a, &v->cfg, T, &err) || av_gpt2_forward(&a, p, &v->cfg, v->tokens[b], T, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            loss = NAN;
            break;
        }
        loss += crossentropy_forward_backward(grads ? ga.dlogits : NULL, a.logits, v->targets[b], T,
                                              v->cfg.vocab_size, 1.0 / n_scored);
        if (grads) av_gpt2_backward(grads, &ga, &a, p, &v->cfg, v->tokens[b], T);
        av_gpt2_acts_free(&a);
    }
    av_gpt2_grad_acts_free(&ga);
    return loss / n_scored;
}

/* fn(line) for every line of tests/ref/train/variants.txt; returns how many. */
static int fx_for_each_variant(void (*fn)(const char *line)) {
    char *text = NULL;
    size_t len;
    av_err err;
    if (av_read_file(src_path("tests/ref/train/variants.txt"), 1 << 16, &text, &len, &err)) return -1;
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), n++) fn(line);
    free(text);
    return n;
}

#endif
