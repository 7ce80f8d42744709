/* train.h - training a GPT-2-layout Transformer (gpt2.h) from scratch on a
 * batch of token sequences: forward, cross-entropy on the scored positions,
 * backward (gpt2_backward.h), global-norm clipping and AdamW (optim.h).
 *
 * Two paths, by cfg.kernel:
 *   - AV_KERNEL_REFERENCE: the readable one. Each sequence runs gpt2.h's
 *     av_gpt2_forward and gpt2_backward.h's av_gpt2_backward on its own;
 *   - any other kernel (what --train uses): each chunk of the batch is packed
 *     into one av_gpt2_batch (gpt2_batch.h), so a layer's products are single
 *     sgemm calls over all the chunk's tokens. Same math, checked against the
 *     same torch gradients (tests/test_gpt2_backward.c).
 *
 * Determinism: the batch is cut into fixed chunks of AV_TRAIN_CHUNK sequences.
 * Each chunk sums its sequences' gradients in order into its own buffer, with
 * its own scratch, and the chunks are summed in order. Chunks run in parallel
 * (base/parallel.h); which thread runs a chunk changes nothing, so the same
 * seed gives the same bits whatever the thread count.
 *
 * Usage:
 *   av_trainer tr;
 *   av_trainer_init(&tr, &cfg, &opt, seed, &err);
 *   for (step = 1..steps) av_trainer_step(&tr, batch, B, &loss, &err);
 *   av_trainer_eval(&tr, held_out, n, ...);   // accuracy, attention on target
 *   av_trainer_free(&tr);
 *
 * Non-goals: data loading (the caller makes examples, nn/tasks.h), saving
 * (app/train.c writes the model folder), mixed precision.
 */
#ifndef AV_TRAIN_H
#define AV_TRAIN_H

#include <stdint.h>

#include "base/common.h"
#include "nn/gpt2.h"
#include "nn/gpt2_backward.h"
#include "nn/gpt2_batch.h"
#include "nn/optim.h"
#include "nn/tasks.h"

#define AV_TRAIN_CHUNK 8        /* sequences per gradient chunk (fixed: determinism) */
#define AV_TRAIN_MAX_BATCH 1024

/* One chunk's scratch: activations per sequence length, backward scratch. */
typedef struct {
    av_gpt2_acts acts[AV_TASK_MAX_T + 1]; /* acts[T] sized for T tokens, allocated on first use */
    av_gpt2_grad_acts ga;
} av_train_worker;

/* A piece of one parameter tensor: the optimiser's work item. */
typedef struct {
    int tensor;                  /* row of the tensor table */
    size_t off, n;               /* floats [off, off + n) of that tensor */
} av_train_piece;

typedef struct {
    av_gpt2_config cfg;
    av_adamw opt;
    int step;                    /* optimiser steps taken */
    int n_tensors;
    size_t n_params;
    float *mem;                  /* params | m | v, n_params each */
    av_gpt2_params params, m, v; /* views into mem */
    av_gpt2_tensor *table, *mtable, *vtable; /* the tensor tables of params, m, v */
    int n_chunks;                /* gradient buffers allocated */
    float **chunk_grads;         /* [n_chunks] n_params each */
    av_gpt2_params *chunk_views; /* [n_chunks] */
    av_gpt2_tensor *gtable;      /* table for chunk 0 (the summed gradient) */
    av_train_worker *workers;    /* [AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK], allocated with the chunks (reference path) */
    av_gpt2_batch *packed;       /* [AV_TRAIN_MAX_BATCH / AV_TRAIN_CHUNK], allocated with the chunks (packed path) */
    int n_pieces;                /* the tensors cut into pieces of at most 8192 floats (AdamW's work items) */
    av_train_piece *pieces;
    double *block_sumsq;         /* [ceil(n_params / 8192)] Σ g² per block of the flat gradient */
    double last_grad_norm;       /* ‖g‖₂ before clipping, last step */
    double last_lr;
} av_trainer;

/* Allocate and initialise as GPT-2 (Radford et al. 2019; llm.c): weights and
 * embeddings N(0, 0.02²), the residual projections (attn.c_proj, mlp.c_proj)
 * N(0, (0.02/√(2L))²), biases 0, LayerNorm weights 1. cfg->n_positions must
 * cover AV_TASK_MAX_T or the longest example.
 * Errors: AV_EUSAGE from av_gpt2_config_check; AV_ERUNTIME on OOM. */
av_status av_trainer_init(av_trainer *tr, const av_gpt2_config *cfg, const av_adamw *opt, uint64_t seed,
                          av_err *err);
/* Free everything av_trainer_init allocated (also after it failed) and zero
 * tr; tr zeroed is fine. */
void av_trainer_free(av_trainer *tr);

/* At least the bytes av_trainer_init, av_trainer_step and av_trainer_eval hold for batches of
 * B sequences (float32, T = AV_TASK_MAX_T, P = av_gpt2_num_params, G =
 * ceil(B / AV_TRAIN_CHUNK) chunks): the parameters and AdamW's m and v (3P),
 * one gradient per chunk (G·P), and per chunk the activations of
 * av_gpt2_acts_alloc for every length t = 1..T (a worker keeps one set per
 * example length it meets), A = Σ_t 23·L·t·C + 3·t·C + 2·L·H·t² + t·V, and the
 * backward scratch of av_gpt2_grad_acts_alloc, Ag = T·V + 19·T·C + H·T² (the
 * means, rstd and mask are left out): 4·((3 + G)·P + G·(A + Ag)). The packed path
 * (cfg->kernel other than reference) counts G' = max(G, 4) chunks, since
 * av_trainer_eval runs 4 fixed lanes of one chunk each: 4·(3 + G')·P plus, per
 * chunk, av_gpt2_batch_bytes for AV_TRAIN_CHUNK sequences of T tokens. */
size_t av_trainer_bytes(const av_gpt2_config *cfg, int B);
#define AV_MAX_TRAIN_BYTES ((size_t)2 << 30) /* --train refuses models that need more (2 GiB) */

/* One optimiser step on the B examples: mean cross-entropy over all scored
 * positions, backward, clip, AdamW at the schedule's lr. *loss receives the
 * mean loss (nats per scored position) before the update. Errors: AV_ERUNTIME
 * on OOM; AV_EUSAGE for B outside 1..AV_TRAIN_MAX_BATCH, an example of more
 * tokens than AV_TASK_MAX_T (or, with learned positions, n_positions), one
 * whose n_answer or answer_q lie outside its tokens, or if
 * the forward overflows (the parameters are then unchanged); AV_ERUNTIME
 * "the gradient norm ‖g‖₂ is NaN at step 7 (...); the step was not taken"
 * when the gradient's global norm is NaN or inf (*loss and last_grad_norm
 * are set; the parameters, moments and step count are unchanged). */
av_status av_trainer_step(av_trainer *tr, const av_task_example *ex, int B, double *loss, av_err *err);

/* Held-out evaluation (no update) of n examples: mean loss per scored
 * position (nats), sequence accuracy (a fraction 0..1 of the n examples:
 * every answer token is the argmax, i.e. greedy
 * decoding reproduces the answer), and attn_on_target (L·H, may be NULL): per
 * layer and head, the attention weight the scored queries put on their target
 * positions, averaged over every scored query. Errors: those of
 * av_trainer_step's forward (AV_EUSAGE, AV_ERUNTIME). */
av_status av_trainer_eval(av_trainer *tr, const av_task_example *ex, int n, double *loss, double *accuracy,
                          double *attn_on_target, av_err *err);

/* Forward of one sequence with the current parameters in worker 0's
 * activations, with the reference kernel whatever cfg.kernel (so it equals
 * what `attnviz --model DIR` computes on the saved folder); returns them
 * (valid until the next call). Errors: AV_EUSAGE for T outside
 * 1..AV_TASK_MAX_T (learned positions: n_positions), a token outside the
 * vocabulary or a value that overflows float32 (av_gpt2_forward's);
 * AV_ERUNTIME on OOM. */
av_status av_trainer_forward(av_trainer *tr, const int *tokens, int T, const av_gpt2_acts **acts, av_err *err);

#endif
