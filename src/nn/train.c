/* train.c - the training step and the held-out evaluation (see train.h). */
#include "nn/train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "nn/embed.h"

/* ----------------------------------------------------------------------------
 * parameter blocks */

#define PARAM_BLOCK 8192 /* floats per optimiser work item (fixed, so the bits never depend on the thread count) */

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

/* The optimiser's work items: every tensor in pieces of at most PARAM_BLOCK
 * floats, and one Σ g² slot per PARAM_BLOCK of the flat gradient. */
static av_status cut_pieces(av_trainer *tr, av_err *err) {
    size_t n = 0;
    for (int i = 0; i < tr->n_tensors; i++) n += (tr->table[i].numel + PARAM_BLOCK - 1) / PARAM_BLOCK;
    tr->pieces = calloc(n, sizeof *tr->pieces);
    tr->block_sumsq = calloc((tr->n_params + PARAM_BLOCK - 1) / PARAM_BLOCK, sizeof *tr->block_sumsq);
    if (!tr->pieces || !tr->block_sumsq) return av_fail(err, AV_ERUNTIME, "out of memory for the optimiser");
    for (int i = 0; i < tr->n_tensors; i++)
        for (size_t off = 0; off < tr->table[i].numel; off += PARAM_BLOCK) {
            size_t left = tr->table[i].numel - off;
            tr->pieces[tr->n_pieces++] = (av_train_piece){i, off, left < PARAM_BLOCK ? left : PARAM_BLOCK};
        }
    return AV_OK;
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
    if ((s = cut_pieces(tr, err))) {
        av_trainer_free(tr);
        return s;
    }
    init_params(tr->table, tr->n_tensors, cfg->n_layer, seed);
    return AV_OK;
}

#define EVAL_LANES 4 /* packed evaluation: fixed lanes, so the sums never depend on the thread count */

size_t av_trainer_bytes(const av_gpt2_config *cfg, int B) {
    size_t L = (size_t)cfg->n_layer, C = (size_t)cfg->n_embd, H = (size_t)cfg->n_head, V = (size_t)cfg->vocab_size;
    size_t T = AV_TASK_MAX_T, P = av_gpt2_num_params(cfg), G = ((size_t)B + AV_TRAIN_CHUNK - 1) / AV_TRAIN_CHUNK;
    size_t A = 0, Ag = T * V + 19 * T * C + H * T * T;
    for (size_t t = 1; t <= T; t++) /* a worker keeps one av_gpt2_acts per example length it meets (acts[t]) */
        A += 23 * L * t * C + 3 * t * C + 2 * L * H * t * t + t * V;
    if (cfg->kernel != AV_KERNEL_REFERENCE) {
        size_t Gp = G > EVAL_LANES ? G : EVAL_LANES; /* av_trainer_eval allocates one chunk per lane */
        return sizeof(float) * (3 + Gp) * P + Gp * av_gpt2_batch_bytes(cfg, AV_TRAIN_CHUNK, AV_TASK_MAX_T);
    }
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
    free(tr->pieces);
    free(tr->block_sumsq);
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
    /* chunk_views is allocated once at its largest: gtable's slots point into
     * chunk_views[0], so it must never move (a realloc when a step needed more
     * chunks than the held-out evaluation's lanes left them dangling) */
    av_gpt2_params *v = tr->chunk_views ? tr->chunk_views
                                        : calloc(AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK, sizeof *tr->chunk_views);
    if (v) tr->chunk_views = v;
    if (!tr->gtable) tr->gtable = calloc((size_t)tr->n_tensors, sizeof *tr->gtable);
    if (!g || !v || !tr->gtable) return av_fail(err, AV_ERUNTIME, "out of memory for the gradients");
    for (; tr->n_chunks < n; tr->n_chunks++) {
        int c = tr->n_chunks;
        tr->chunk_grads[c] = av_calloc(tr->n_params, sizeof(float));
        av_gpt2_tensor scratch_table[3 + 12 * AV_GPT2_MAX_LAYERS + 1]; /* av_gpt2_num_tensors at its largest */
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

/* targets[t] (AV_TASK_MAX_T) = the scored label after position t, or -1. Checks the example first, since
 * its lengths index targets: AV_EUSAGE for T outside 1..AV_TASK_MAX_T, n_answer outside 0..T−1, or an
 * answer position outside 0..T−2 (its label is the next token). */
static av_status example_targets(int *targets, const av_task_example *ex, av_err *err) {
    if (ex->T < 1 || ex->T > AV_TASK_MAX_T)
        return av_fail(err, AV_EUSAGE, "a training example has %d tokens (1..%d)", ex->T, AV_TASK_MAX_T);
    if (ex->n_answer < 0 || ex->n_answer > ex->T - 1)
        return av_fail(err, AV_EUSAGE, "a training example of %d tokens has %d answer positions (0..%d)", ex->T,
                       ex->n_answer, ex->T - 1);
    for (int i = 0; i < ex->n_answer; i++)
        if (ex->answer_q[i] < 0 || ex->answer_q[i] > ex->T - 2)
            return av_fail(err, AV_EUSAGE, "a training example of %d tokens has answer position %d (0..%d: its "
                           "label is the next token)", ex->T, ex->answer_q[i], ex->T - 2);
    for (int t = 0; t < ex->T; t++) targets[t] = -1;
    for (int i = 0; i < ex->n_answer; i++) targets[ex->answer_q[i]] = ex->tokens[ex->answer_q[i] + 1];
    return AV_OK;
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
        if ((j->status[c] = example_targets(targets, ex, &j->err[c])) ||
            (j->status[c] = worker_acts(w, &tr->cfg, ex->T, &a, &j->err[c])))
            return;
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
        av_status s = example_targets(targets[i], &ex[i], err);
        if (s) return s;
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

/* ----------------------------------------------------------------------------
 * the optimiser step: chunks summed, clipped, AdamW, over fixed blocks */


typedef struct {
    av_trainer *tr;
    int n_chunks;
    double *sumsq;           /* [blocks] Σ g² of each block */
    double clip, lr;
} opt_job;

/* Block `item` of the flat parameter range: the chunks' gradients summed in
 * chunk order into chunk 0's buffer, and that block's Σ g² (double). */
static void sum_chunks_block(void *ctx, int item) {
    opt_job *j = ctx;
    size_t i0 = (size_t)item * PARAM_BLOCK, n = j->tr->n_params - i0 < PARAM_BLOCK ? j->tr->n_params - i0 : PARAM_BLOCK;
    float *g = j->tr->chunk_grads[0] + i0;
    for (int c = 1; c < j->n_chunks; c++) {
        const float *gc = j->tr->chunk_grads[c] + i0;
        for (size_t i = 0; i < n; i++) g[i] += gc[i];
    }
    j->sumsq[item] = grad_sumsq(g, n);
}

/* AdamW on one piece of one tensor (tr->pieces[item]), its gradient first scaled by the clip factor. */
static void adamw_block(void *ctx, int item) {
    const opt_job *j = ctx;
    const av_trainer *tr = j->tr;
    const av_train_piece *it = &tr->pieces[item];
    int k = it->tensor;
    float *g = *tr->gtable[k].slot + it->off;
    if (j->clip != 1.0)
        for (size_t i = 0; i < it->n; i++) g[i] = (float)(g[i] * j->clip);
    adamw_update(*tr->table[k].slot + it->off, g, *tr->mtable[k].slot + it->off, *tr->vtable[k].slot + it->off, it->n,
                 &tr->opt, j->lr, tr->step, tr->table[k].ndim == 2);
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
    double total = 0;
    for (int c = 0; c < n_chunks; c++) total += chunk_loss[c];
    *loss = total / (n_scored ? n_scored : 1);
    /* sum the chunks in order into chunk 0, clip the global norm, AdamW */
    opt_job oj = {.tr = tr, .n_chunks = n_chunks, .sumsq = tr->block_sumsq};
    int n_blocks = (int)((tr->n_params + PARAM_BLOCK - 1) / PARAM_BLOCK);
    av_parallel_for(n_blocks, sum_chunks_block, &oj);
    double sumsq = 0;
    for (int b = 0; b < n_blocks; b++) sumsq += tr->block_sumsq[b];
    double norm = sqrt(sumsq);
    tr->last_grad_norm = norm;
    if (!isfinite(norm)) /* clip_factor has no factor for it: refused before AdamW touches a parameter */
        return av_fail(err, AV_ERUNTIME, "the gradient norm ‖g‖₂ is %s at step %d (a gradient overflowed float32 or "
                       "is NaN); the step was not taken", isnan(norm) ? "NaN" : "inf", tr->step + 1);
    oj.clip = clip_factor(norm, tr->opt.max_norm);
    tr->step++;
    oj.lr = av_lr_at(&tr->opt, tr->step);
    av_parallel_for(tr->n_pieces, adamw_block, &oj);
    tr->last_lr = oj.lr;
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

/* Attention weight on the target keys: Σ_j row[j] over the bits j of target (row (T)). */
static double target_mass(const float *row, uint32_t target, int T) {
    double m = 0;
    for (int j = 0; j < T; j++)
        if (target >> j & 1u) m += row[j];
    return m;
}

typedef struct {
    av_trainer *tr;
    const av_task_example *ex;
    int n;
    double loss[EVAL_LANES];
    int correct[EVAL_LANES];
    double *aot;             /* (EVAL_LANES, L·H) or NULL */
    av_status status[EVAL_LANES];
    av_err err[EVAL_LANES];
} eval_job;

/* Examples ex[0..n-1] packed into lane's batch: their loss, whole answers right, attention on target. */
static void eval_packed_chunk(eval_job *j, int lane, const av_task_example *ex, int n) {
    av_gpt2_batch *bt = &j->tr->packed[lane];
    const av_gpt2_config *cfg = &j->tr->cfg;
    int LH = cfg->n_layer * cfg->n_head, H = cfg->n_head, V = cfg->vocab_size;
    if ((j->status[lane] = pack_examples(bt, cfg, ex, n, &j->err[lane])) ||
        (j->status[lane] = av_gpt2_batch_forward(bt, &j->tr->params, cfg, &j->err[lane])))
        return;
    j->loss[lane] += crossentropy_forward_backward(NULL, bt->logits, bt->target, bt->S, V, 1.0);
    size_t A = bt->aoff[bt->B];
    for (int b = 0, s = 0; b < n; b++) { /* sequence b's scored rows are the next n_answer, in answer order */
        int T = ex[b].T, all_right = 1;
        for (int i = 0; i < ex[b].n_answer; i++, s++) {
            all_right &= argmax(bt->logits + (size_t)s * V, V) == bt->target[s];
            for (int lh = 0; j->aot && lh < LH; lh++) {
                const float *row = bt->att + (size_t)(lh / H) * A + bt->aoff[b] + ((size_t)(lh % H) * T + ex[b].answer_q[i]) * T;
                j->aot[(size_t)lane * LH + lh] += target_mass(row, ex[b].target[i], T);
            }
        }
        j->correct[lane] += all_right;
    }
}

/* Lane `lane` takes chunks lane, lane + EVAL_LANES, ... of AV_TRAIN_CHUNK examples. */
static void eval_lane(void *ctx, int lane) {
    eval_job *j = ctx;
    for (int e = lane * AV_TRAIN_CHUNK; e < j->n && !j->status[lane]; e += EVAL_LANES * AV_TRAIN_CHUNK)
        eval_packed_chunk(j, lane, j->ex + e, j->n - e < AV_TRAIN_CHUNK ? j->n - e : AV_TRAIN_CHUNK);
}

/* Packed path of av_trainer_eval: the sums of the lanes, added in lane order. */
static av_status eval_packed(av_trainer *tr, const av_task_example *ex, int n, double *total, int *correct,
                             double *aot, av_err *err) {
    int LH = tr->cfg.n_layer * tr->cfg.n_head;
    av_status s = ensure_chunks(tr, EVAL_LANES, err);
    if (s) return s;
    eval_job *j = calloc(1, sizeof *j);
    double *lanes = calloc((size_t)EVAL_LANES * LH, sizeof *lanes);
    if (!j || !lanes) { free(j); free(lanes); return av_fail(err, AV_ERUNTIME, "out of memory for the evaluation"); }
    *j = (eval_job){.tr = tr, .ex = ex, .n = n, .aot = aot ? lanes : NULL};
    av_parallel_for(EVAL_LANES, eval_lane, j);
    for (int k = 0; k < EVAL_LANES && !s; k++) {
        if ((s = j->status[k])) { *err = j->err[k]; break; }
        *total += j->loss[k];
        *correct += j->correct[k];
        for (int lh = 0; aot && lh < LH; lh++) aot[lh] += lanes[(size_t)k * LH + lh];
    }
    free(j);
    free(lanes);
    return s;
}

av_status av_trainer_eval(av_trainer *tr, const av_task_example *ex, int n, double *loss, double *accuracy,
                          double *attn_on_target, av_err *err) {
    int L = tr->cfg.n_layer, H = tr->cfg.n_head, V = tr->cfg.vocab_size, correct = 0, n_scored = 0;
    double total = 0.0;
    if (attn_on_target) memset(attn_on_target, 0, (size_t)L * H * sizeof(double));
    for (int e = 0; e < n; e++) n_scored += ex[e].n_answer;
    if (tr->cfg.kernel != AV_KERNEL_REFERENCE) {
        av_status s = eval_packed(tr, ex, n, &total, &correct, attn_on_target, err);
        if (s) return s;
    }
    for (int e = 0; tr->cfg.kernel == AV_KERNEL_REFERENCE && e < n; e++) {
        const av_gpt2_acts *a;
        int targets[AV_TASK_MAX_T], T = ex[e].T, all_right = 1;
        av_status s = example_targets(targets, &ex[e], err);
        if (s || (s = av_trainer_forward(tr, ex[e].tokens, T, &a, err))) return s;
        total += crossentropy_forward_backward(NULL, a->logits, targets, T, V, 1.0);
        for (int i = 0; i < ex[e].n_answer; i++) {
            int q = ex[e].answer_q[i];
            all_right &= argmax(a->logits + (size_t)q * V, V) == targets[q];
            for (int lh = 0; attn_on_target && lh < L * H; lh++)
                attn_on_target[lh] += target_mass(a->att + ((size_t)lh * T + q) * T, ex[e].target[i], T);
        }
        correct += all_right;
    }
    for (int lh = 0; attn_on_target && lh < L * H; lh++) attn_on_target[lh] /= n_scored ? n_scored : 1;
    *loss = total / (n_scored ? n_scored : 1);
    *accuracy = n ? (double)correct / n : 0.0;
    return AV_OK;
}
