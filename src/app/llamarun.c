/* llamarun.c - the --model path for Llama-family folders (gpt2run.h):
 * config.json with model_type llama or qwen2 (nn/llama.h), tokenizer.json
 * (text/hftok.h), the forward pass into gpt2run's activations, the RoPE
 * evidence (every position shifted by AV_LLAMARUN_SHIFT), layer L's view,
 * the trace, and --generate. The rest (dump, figures, page) is gpt2run's. */
#include "app/gpt2run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/term.h"
#include "base/utf8.h"
#include "io/fileio.h"

/* ---------------------------------------------------------------------------- loading */

int av_llamarun_is_llama(const char *dir) {
    char path[4200], *text = NULL;
    size_t len = 0;
    av_err err = {{0}};
    av_path_join(path, sizeof path, dir, "config.json");
    if (av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, &err)) return 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    int yes = cJSON_IsString(mt) && (!strcmp(mt->valuestring, "llama") || !strcmp(mt->valuestring, "qwen2"));
    cJSON_Delete(root);
    free(text);
    return yes;
}

av_status av_llamarun_load(av_gpt2run *r, av_err *err) {
    if (!(r->llama = calloc(1, sizeof *r->llama))) return av_fail(err, AV_ERUNTIME, "out of memory");
    av_status st = av_llama_load(r->llama, r->dir, err);
    if (st) return free(r->llama), r->llama = NULL, st;
    const av_llama_config *lc = &r->llama->cfg;
    av_gpt2_config *c = &r->g.cfg; /* the sizes every sink reads, mirrored */
    av_gpt2_config_defaults(c);
    c->n_layer = lc->n_layer, c->n_head = lc->n_head, c->n_embd = lc->n_embd, c->vocab_size = lc->vocab_size;
    c->n_positions = lc->max_positions, c->layer_norm_epsilon = lc->rms_norm_eps;
    c->positions = AV_POS_ROPE, c->rope_style = AV_ROPE_HALF, c->rope_base = lc->rope_theta;
    memcpy(c->eos_ids, lc->eos_ids, sizeof c->eos_ids), c->n_eos = lc->n_eos;
    c->eos_left = lc->eos_left, c->n_eos_left = lc->n_eos_left;
    r->g.dtype = r->llama->dtype;
    r->g.in_place = r->llama->in_place;
    r->g.file_bytes = r->llama->file_bytes;
    char path[4200];
    av_path_join(path, sizeof path, r->dir, "tokenizer.json");
    if ((st = av_hftok_load_dir(&r->hftok, r->dir, lc->bos_token_id_null ? AV_HFTOK_BOS_NULL : lc->bos_token_id,
                                 lc->vocab_size, err))) return st;
    char note[640];
    if (av_hftok_note(note, sizeof note, r->hftok))
        av_message(stderr, "attnviz: note: %s: %s\n", AV_SHOWN_WORD(path, 4200), note);
    int top = av_hftok_vocab_size(r->hftok) - 1, V = lc->vocab_size; /* the largest id, vocabulary or added */
    if (top >= V) /* below is fine: a checkpoint may pad vocab_size past its tokenizer */
        return av_fail(err, AV_EUSAGE, "%s has token ids up to %d (its vocabulary and added tokens), but config.json's "
                       "vocab_size is %d: token id %d must fit within vocab_size %d (ids 0..%d); a tokenizer may have "
                       "fewer tokens than vocab_size, not more", AV_SHOWN_WORD(path, 4200), top, V, top, V, V - 1);
    return AV_OK;
}

/* ---------------------------------------------------------------------------- forward and RoPE evidence */

/* rope_dS (L, H): the worst |S(shifted) − S| over the unmasked (query, key)
 * pairs of the first min(T, 64) tokens, the shifted run at positions
 * AV_LLAMARUN_SHIFT + t. With RoPE, S depends on positions only through i − j
 * (Su et al. 2021, RoFormer §3.2, eq. 16; §3.4.2 is the
 * computation, eq. 34), so only float error remains. */
static av_status rope_evidence(av_gpt2run *r, av_err *err) {
    const av_llama_config *c = &r->llama->cfg;
    int L = c->n_layer, H = c->n_head, T = r->T < 64 ? r->T : 64, Tf = r->T;
    av_llama_config big = *c;
    big.max_positions = AV_LLAMARUN_SHIFT + T; /* the shifted positions go past a short context on purpose */
    av_gpt2_acts s;
    av_status st = av_llama_acts_alloc(&s, &big, T, err);
    if (!st) st = av_llama_forward(&s, &r->llama->params, &big, (const int *)r->ids, T, AV_LLAMARUN_SHIFT, err);
    if (!st && !(r->rope_dS = calloc((size_t)L * H, sizeof *r->rope_dS))) st = av_fail(err, AV_ERUNTIME, "out of memory");
    for (int lh = 0; !st && lh < L * H; lh++) {
        const float *a = r->a.preatt + (size_t)lh * Tf * Tf, *b = s.preatt + (size_t)lh * T * T;
        double w = 0;
        for (int i = 0; i < T; i++)
            for (int j = 0; j <= i; j++) w = fmax(w, fabs((double)a[(size_t)i * Tf + j] - b[(size_t)i * T + j]));
        r->rope_dS[lh] = (float)w;
    }
    av_gpt2_acts_free(&s);
    return st;
}

av_status av_llamarun_forward(av_gpt2run *r, av_err *err) {
    r->llama->cfg.kernel = r->g.cfg.kernel;
    av_status st = av_llama_acts_alloc(&r->a, &r->llama->cfg, r->T, err);
    if (!st) st = av_llama_forward(&r->a, &r->llama->params, &r->llama->cfg, (const int *)r->ids, r->T, 0, err);
    return st ? st : rope_evidence(r, err);
}

/* Layer L as a single layer: X = RMSNorm output, W_Q = q_projᵀ, W_K and W_V
 * (C, C) with each K/V head's columns repeated for the query heads that
 * share it, W_O = o_projᵀ; RoPE half with the model's θ; the model's maps. */
av_status av_llamarun_view(av_model *v, const av_gpt2run *r, av_err *err) {
    const av_llama_config *c = &r->llama->cfg;
    const av_llama_layer *w = &r->llama->params.layers[r->layer];
    int T = r->T, C = c->n_embd, H = c->n_head, D = C / H, G = H / c->n_kv_head, l = r->layer;
    size_t TC = (size_t)T * C, HTT = (size_t)H * T * T;
    av_config vc = {.T = T, .n_real = T, .C = C, .H = H, .causal = 1, .scale = 1, .kernel = c->kernel,
                    .positions = AV_POS_ROPE, .rope_style = AV_ROPE_HALF, .rope_base = c->rope_theta};
    av_status st = av_model_init(v, &vc, err);
    if (st) return st;
    v->model_layer = l + 1; /* --explain names scores.npy / attn.npy (L, H, T, T) of --dump, as for GPT-2 */
    if (c->n_kv_head != H) v->kv_heads = c->n_kv_head; /* and which K/V head its key and value come from */
    memcpy(v->X, r->a.ln1 + l * TC, TC * sizeof(float));
    const float *src[3] = {w->q_proj, w->k_proj, w->v_proj}, *bias[3] = {w->q_bias, w->k_bias, w->v_bias};
    float *W[3] = {v->W_Q, v->W_K, v->W_V}, **B[3] = {&v->b_Q, &v->b_K, &v->b_V};
    for (int k = 0; k < 3; k++) {
        for (int o = 0; o < C; o++) { /* output column o = head o/D, dimension o%D; K/V read head (o/D)/G */
            int row = k == 0 ? o : (o / D / G) * D + o % D;
            for (int i = 0; i < C; i++) W[k][(size_t)i * C + o] = src[k][(size_t)row * C + i];
        }
        if (!bias[k]) continue;
        if (!(*B[k] = malloc((size_t)C * sizeof(float)))) return av_fail(err, AV_ERUNTIME, "out of memory");
        for (int o = 0; o < C; o++) (*B[k])[o] = bias[k][k == 0 ? o : (o / D / G) * D + o % D];
    }
    for (int o = 0; o < C; o++)
        for (int i = 0; i < C; i++) v->W_O[(size_t)i * C + o] = w->o_proj[(size_t)o * C + i];
    if ((st = av_model_forward(v, err))) return st;
    memcpy(v->att, r->a.att + l * HTT, HTT * sizeof(float)); /* the model's own maps, bit for bit */
    memcpy(v->scores, r->a.preatt + l * HTT, HTT * sizeof(float));
    return AV_OK;
}

void av_llamarun_free(av_gpt2run *r) {
    if (r->llama) av_llama_free(r->llama);
    free(r->llama);
    av_hftok_free(r->hftok);
    free(r->rope_dS);
    r->llama = NULL, r->hftok = NULL, r->rope_dS = NULL;
}
