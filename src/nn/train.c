/* train.c - the training step and the held-out evaluation (see train.h). */
#include "nn/train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "nn/embed.h"

/* ----------------------------------------------------------------------------
 * parameter blocks */

/* Point p's tensors (table rows) into consecutive floats of base. */
static av_status bind_params(av_gpt2_params *p, av_gpt2_tensor *table, const av_gpt2_config *cfg, float *base,
                             av_err *err) {
    memset(p, 0, sizeof *p);
    p->h = calloc((size_t)cfg->n_layer, sizeof *p->h);
    if (!p->h) return av_fail(err, AV_ERUNTIME, "out of memory for the parameters");
    av_gpt2_tensor_table(table, cfg, p);
    size_t off = 0;
    for (int i = 0; i < av_gpt2_num_tensors(cfg); i++) {
        *table[i].slot = base + off;
        off += table[i].numel;
    }
    return AV_OK;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* GPT-2's initialisation, tensor by tensor in table order from one stream. */
static void init_params(av_gpt2_tensor *table, int n, int L, uint64_t seed) {
    av_rng r;
    av_rng_seed(&r, seed ^ 0x545241494E494E47ull); /* "TRAINING" */
    for (int i = 0; i < n; i++) {
        float *x = *table[i].slot;
        const char *name = table[i].name;
        int is_ln = strstr(name, "ln_") != NULL;
        if (ends_with(name, ".bias")) { memset(x, 0, table[i].numel * sizeof(float)); continue; }
        if (is_ln) { for (size_t j = 0; j < table[i].numel; j++) x[j] = 1.0f; continue; }
        double sd = ends_with(name, "c_proj.weight") ? 0.02 / sqrt(2.0 * L) : 0.02;
        for (size_t j = 0; j < table[i].numel; j++) x[j] = (float)(av_rng_normal(&r) * sd);
    }
}

av_status av_trainer_init(av_trainer *tr, const av_gpt2_config *cfg, const av_adamw *opt, uint64_t seed,
                          av_err *err) {
    memset(tr, 0, sizeof *tr);
    av_status s = av_gpt2_config_check(cfg, err);
    if (s) return s;
    tr->cfg = *cfg;
    tr->opt = *opt;
    tr->n_tensors = av_gpt2_num_tensors(cfg);
    tr->n_params = av_gpt2_num_params(cfg);
    tr->mem = av_calloc(3 * tr->n_params, sizeof(float));
    tr->table = calloc((size_t)tr->n_tensors * 3, sizeof *tr->table);
    tr->workers = calloc(AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK, sizeof *tr->workers);
    tr->packed = calloc(AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK, sizeof *tr->packed);
    if (!tr->mem || !tr->table || !tr->workers || !tr->packed) {
        av_trainer_free(tr);
        return av_fail(err, AV_ERUNTIME, "out of memory for the parameters");
    }
    tr->mtable = tr->table + tr->n_tensors;
    tr->vtable = tr->mtable + tr->n_tensors;
    if ((s = bind_params(&tr->params, tr->table, cfg, tr->mem, err)) ||
        (s = bind_params(&tr->m, tr->mtable, cfg, tr->mem + tr->n_params, err)) ||
        (s = bind_params(&tr->v, tr->vtable, cfg, tr->mem + 2 * tr->n_params, err))) {
        av_trainer_free(tr);
        return s;
    }
    if ((s = av_gpt2_grad_acts_alloc(&tr->workers[0].ga, cfg, AV_TASK_MAX_T, err))) {
        av_trainer_free(tr);
        return s;
    }
    init_params(tr->table, tr->n_tensors, cfg->n_layer, seed);
    return AV_OK;
}

size_t av_trainer_bytes(const av_gpt2_config *cfg, int B) {
    size_t L = (size_t)cfg->n_layer, C = (size_t)cfg->n_embd, H = (size_t)cfg->n_head, V = (size_t)cfg->vocab_size;
    size_t T = AV_TASK_MAX_T, P = av_gpt2_num_params(cfg), G = ((size_t)B + AV_TRAIN_CHUNK - 1) / AV_TRAIN_CHUNK;
    size_t A = 23 * L * T * C + 3 * T * C + 2 * L * H * T * T + T * V, Ag = T * V + 19 * T * C + H * T * T;
    if (cfg->kernel != AV_KERNEL_REFERENCE)
        return sizeof(float) * (3 + G) * P + G * av_gpt2_batch_bytes(cfg, AV_TRAIN_CHUNK, AV_TASK_MAX_T);
    return sizeof(float) * ((3 + G) * P + G * (A + Ag));
}

void av_trainer_free(av_trainer *tr) {
    for (int c = 0; c < tr->n_chunks; c++) {
        free(tr->chunk_grads[c]);
        free(tr->chunk_views[c].h);
    }
    free(tr->chunk_grads);
    free(tr->chunk_views);
    free(tr->gtable);
    for (int w = 0; tr->workers && w < AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK; w++) {
        for (int T = 0; T <= AV_TASK_MAX_T; T++) av_gpt2_acts_free(&tr->workers[w].acts[T]);
        av_gpt2_grad_acts_free(&tr->workers[w].ga);
    }
    for (int c = 0; tr->packed && c < AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK; c++) av_gpt2_batch_free(&tr->packed[c]);
    free(tr->workers);
    free(tr->packed);
    free(tr->params.h);
    free(tr->m.h);
    free(tr->v.h);
    free(tr->table);
    free(tr->mem);
    memset(tr, 0, sizeof *tr);
}

/* Make sure n_chunks gradient buffers exist. */
static av_status ensure_chunks(av_trainer *tr, int n, av_err *err) {
    if (n <= tr->n_chunks) return AV_OK;
    float **g = realloc(tr->chunk_grads, (size_t)n * sizeof *g);
    if (g) tr->chunk_grads = g;
    av_gpt2_params *v = realloc(tr->chunk_views, (size_t)n * sizeof *v);
    if (v) tr->chunk_views = v;
    if (!tr->gtable) tr->gtable = calloc((size_t)tr->n_tensors, sizeof *tr->gtable);
    if (!g || !v || !tr->gtable) return av_fail(err, AV_ERUNTIME, "out of memory for the gradients");
    for (; tr->n_chunks < n; tr->n_chunks++) {
        int c = tr->n_chunks;
        tr->chunk_grads[c] = av_calloc(tr->n_params, sizeof(float));
        av_gpt2_tensor scratch_table[AV_GPT2_MAX_LAYERS * 12 + 3];
        if (!tr->chunk_grads[c]) return av_fail(err, AV_ERUNTIME, "out of memory for the gradients");
        av_status s = tr->cfg.kernel != AV_KERNEL_REFERENCE
                          ? av_gpt2_batch_alloc(&tr->packed[c], &tr->cfg, AV_TRAIN_CHUNK, AV_TASK_MAX_T, err)
                      : c > 0 ? av_gpt2_grad_acts_alloc(&tr->workers[c].ga, &tr->cfg, AV_TASK_MAX_T, err)
                              : AV_OK;
        if (s) {
            free(tr->chunk_grads[c]);
            return s;
        }
        s = bind_params(&tr->chunk_views[c], c ? scratch_table : tr->gtable, &tr->cfg, tr->chunk_grads[c], err);
        if (s) { free(tr->chunk_grads[c]); return s; }
    }
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * forward + backward of one sequence */

static av_status worker_acts(av_train_worker *w, const av_gpt2_config *cfg, int T, av_gpt2_acts **out,
                             av_err *err) {
    if (T < 1 || T > AV_TASK_MAX_T) return av_fail(err, AV_EUSAGE, "a training example has %d tokens (1..%d)", T, AV_TASK_MAX_T);
    if (!w->acts[T].T) {
        av_status s = av_gpt2_acts_alloc(&w->acts[T], cfg, T, err);
        if (s) return s;
    }
    *out = &w->acts[T];
    return AV_OK;
}

/* targets[t] = the scored label after position t, or -1. */
static int example_targets(int *targets, const av_task_example *ex) {
    for (int t = 0; t < ex->T; t++) targets[t] = -1;
    for (int i = 0; i < ex->n_answer; i++) targets[ex->answer_q[i]] = ex->tokens[ex->answer_q[i] + 1];
    return ex->n_answer;
}

typedef struct {
    av_trainer *tr;
    const av_task_example *ex;
    int B;
    double weight;           /* 1 / scored positions in the batch */
    double *chunk_loss;      /* [n_chunks] */
    av_status *status;       /* [n_chunks] */
    av_err *err;             /* [n_chunks] */
} step_job;

/* Chunk c of the batch, reference path: forward, loss and backward of its
 * sequences one by one, in order, into chunk c's gradient buffer, with chunk
 * c's scratch. */
static void step_chunk_reference(step_job *j, int c) {
    av_trainer *tr = j->tr;
    av_train_worker *w = &tr->workers[c];
    for (int b = c * AV_TRAIN_CHUNK; b < j->B && b < (c + 1) * AV_TRAIN_CHUNK; b++) {
        const av_task_example *ex = &j->ex[b];
        av_gpt2_acts *a = NULL;
        int targets[AV_TASK_MAX_T];
        example_targets(targets, ex);
        if ((j->status[c] = worker_acts(w, &tr->cfg, ex->T, &a, &j->err[c]))) return;
        if ((j->status[c] = av_gpt2_forward(a, &tr->params, &tr->cfg, ex->tokens, ex->T, &j->err[c]))) return;
        j->chunk_loss[c] += crossentropy_forward_backward(w->ga.dlogits, a->logits, targets, ex->T,
                                                          tr->cfg.vocab_size, j->weight);
        av_gpt2_backward(&tr->chunk_views[c], &w->ga, a, &tr->params, &tr->cfg, ex->tokens, ex->T);
    }
}

/* Pack examples ex[0..n-1] into bt (targets from the answer positions). */
static av_status pack_examples(av_gpt2_batch *bt, const av_gpt2_config *cfg, const av_task_example *ex, int n,
                               av_err *err) {
    const int *tok[AV_TRAIN_CHUNK], *tgt[AV_TRAIN_CHUNK];
    int T[AV_TRAIN_CHUNK], targets[AV_TRAIN_CHUNK][AV_TASK_MAX_T];
    for (int i = 0; i < n; i++) {
        example_targets(targets[i], &ex[i]);
        tok[i] = ex[i].tokens;
        tgt[i] = targets[i];
        T[i] = ex[i].T;
    }
    return av_gpt2_batch_set(bt, cfg, tok, tgt, T, n, err);
}

/* Chunk c of the batch, packed path: its sequences as one av_gpt2_batch. */
static void step_chunk_packed(step_job *j, int c) {
    av_trainer *tr = j->tr;
    av_gpt2_batch *bt = &tr->packed[c];
    int b0 = c * AV_TRAIN_CHUNK, n = j->B - b0 < AV_TRAIN_CHUNK ? j->B - b0 : AV_TRAIN_CHUNK;
    if ((j->status[c] = pack_examples(bt, &tr->cfg, j->ex + b0, n, &j->err[c])) ||
        (j->status[c] = av_gpt2_batch_forward(bt, &tr->params, &tr->cfg, &j->err[c])))
        return;
    j->chunk_loss[c] = av_gpt2_batch_loss(bt, tr->cfg.vocab_size, j->weight);
    av_gpt2_batch_backward(&tr->chunk_views[c], bt, &tr->params, &tr->cfg);
}

static void step_chunk(void *ctx, int c) {
    step_job *j = ctx;
    memset(j->tr->chunk_grads[c], 0, j->tr->n_params * sizeof(float));
    j->chunk_loss[c] = 0.0;
    j->status[c] = AV_OK;
    if (j->tr->cfg.kernel == AV_KERNEL_REFERENCE) step_chunk_reference(j, c);
    else step_chunk_packed(j, c);
}

av_status av_trainer_step(av_trainer *tr, const av_task_example *ex, int B, double *loss, av_err *err) {
    int n_chunks = (B + AV_TRAIN_CHUNK - 1) / AV_TRAIN_CHUNK, n_scored = 0;
    if (B < 1 || B > AV_TRAIN_MAX_BATCH)
        return av_fail(err, AV_EUSAGE, "--batch %d is outside 1..%d", B, AV_TRAIN_MAX_BATCH);
    av_status s = ensure_chunks(tr, n_chunks, err);
    if (s) return s;
    for (int b = 0; b < B; b++) n_scored += ex[b].n_answer;
    double chunk_loss[AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK];
    av_status status[AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK];
    av_err *errs = calloc((size_t)n_chunks, sizeof *errs);
    if (!errs) return av_fail(err, AV_ERUNTIME, "out of memory");
    step_job job = {.tr = tr, .ex = ex, .B = B, .weight = 1.0 / (n_scored ? n_scored : 1),
                    .chunk_loss = chunk_loss, .status = status, .err = errs};
    av_parallel_for(n_chunks, step_chunk, &job);
    for (int c = 0; c < n_chunks; c++)
        if (status[c]) { *err = errs[c]; free(errs); return status[c]; }
    free(errs);
    /* sum the chunks in order into chunk 0 */
    float *g = tr->chunk_grads[0];
    double total = chunk_loss[0];
    for (int c = 1; c < n_chunks; c++) {
        const float *gc = tr->chunk_grads[c];
        for (size_t i = 0; i < tr->n_params; i++) g[i] += gc[i];
        total += chunk_loss[c];
    }
    *loss = total / (n_scored ? n_scored : 1);
    /* clip the global norm, then AdamW tensor by tensor */
    double norm = sqrt(grad_sumsq(g, tr->n_params));
    double f = clip_factor(norm, tr->opt.max_norm);
    if (f != 1.0)
        for (size_t i = 0; i < tr->n_params; i++) g[i] = (float)(g[i] * f);
    tr->step++;
    double lr = av_lr_at(&tr->opt, tr->step);
    for (int i = 0; i < tr->n_tensors; i++)
        adamw_update(*tr->table[i].slot, *tr->gtable[i].slot, *tr->mtable[i].slot, *tr->vtable[i].slot,
                     tr->table[i].numel, &tr->opt, lr, tr->step, tr->table[i].ndim == 2);
    tr->last_grad_norm = norm;
    tr->last_lr = lr;
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * evaluation */

av_status av_trainer_forward(av_trainer *tr, const int *tokens, int T, const av_gpt2_acts **acts, av_err *err) {
    av_gpt2_acts *a = NULL;
    av_gpt2_config ref = tr->cfg;
    ref.kernel = AV_KERNEL_REFERENCE; /* as --model runs a trained folder (short inputs) */
    av_status s = worker_acts(&tr->workers[0], &ref, T, &a, err);
    if (s) return s;
    if ((s = av_gpt2_forward(a, &tr->params, &ref, tokens, T, err))) return s;
    *acts = a;
    return AV_OK;
}

static int argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

av_status av_trainer_eval(av_trainer *tr, const av_task_example *ex, int n, double *loss, double *accuracy,
                          double *attn_on_target, av_err *err) {
    int L = tr->cfg.n_layer, H = tr->cfg.n_head, V = tr->cfg.vocab_size, correct = 0, n_scored = 0;
    double total = 0.0;
    if (attn_on_target) memset(attn_on_target, 0, (size_t)L * H * sizeof(double));
    for (int e = 0; e < n; e++) {
        const av_gpt2_acts *a;
        int targets[AV_TASK_MAX_T], T = ex[e].T, all_right = 1;
        av_status s = av_trainer_forward(tr, ex[e].tokens, T, &a, err);
        if (s) return s;
        n_scored += example_targets(targets, &ex[e]);
        total += crossentropy_forward_backward(NULL, a->logits, targets, T, V, 1.0);
        for (int i = 0; i < ex[e].n_answer; i++) {
            int q = ex[e].answer_q[i];
            all_right &= argmax(a->logits + (size_t)q * V, V) == targets[q];
            for (int lh = 0; attn_on_target && lh < L * H; lh++) {
                const float *row = a->att + ((size_t)lh * T + q) * T;
                for (int j = 0; j < T; j++)
                    if (ex[e].target[i] >> j & 1u) attn_on_target[lh] += row[j];
            }
        }
        correct += all_right;
    }
    for (int lh = 0; attn_on_target && lh < L * H; lh++) attn_on_target[lh] /= n_scored ? n_scored : 1;
    *loss = total / (n_scored ? n_scored : 1);
    *accuracy = n ? (double)correct / n : 0.0;
    return AV_OK;
}
