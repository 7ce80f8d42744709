/* gpt2run.h - the --model path: a GPT-2-layout folder run end to end.
 *
 *   DIR → config.json + model.safetensors (nn/gpt2.h, weights mmapped)
 *       + vocab.json + merges.txt (text/bpe.h)
 *   sentence → token ids (byte-level BPE) → the forward pass, every layer
 *   and head kept → sinks: the trace (one line per layer, layer L step by
 *   step, the top-5 next tokens), --dump, the model figures.
 *
 * Layer L's attention is also handed to the single-layer tools as an
 * av_model "view": X = the layer's attention input (ln_1's output, or the
 * residual stream for post-LN), W_Q, W_K, W_V = the three column blocks of
 * c_attn.weight (C, 3C) with their biases, W_O = attn.c_proj. --explain,
 * --show and --compare scale then work on it unchanged; its attention
 * weights and scores are the model's own (copied from the forward pass).
 *
 * Legend: L layers, T tokens, C = d_model, H heads, D = d_k, V vocabulary.
 */
#ifndef AV_GPT2RUN_H
#define AV_GPT2RUN_H

#include <stdint.h>
#include <stdio.h>

#include "app/cli.h"
#include "app/tensorio.h"
#include "nn/gpt2.h"
#include "nn/model.h"
#include "text/bpe.h"
#include "text/tokenize.h"

#define AV_GPT2RUN_TOPK 5

typedef struct {
    const char *dir;                   /* --model DIR */
    av_gpt2 g;                         /* config, parameters (mmapped) */
    av_gpt2_acts a;                    /* every activation of the forward pass */
    av_bpe *bpe;                       /* the folder's tokenizer */
    int32_t *ids;                      /* (T) token ids */
    int T;
    int layer;                         /* L shown step by step (--layer, default the last) */
    char task[32];                     /* a trained toy model's task (config.json attnviz.task), or "" */
    int step;                          /* and the step it was saved at (attnviz.step) */
    int top_id[AV_GPT2RUN_TOPK];       /* the most probable next tokens after the last position */
    double top_p[AV_GPT2RUN_TOPK];     /* their probabilities, softmax(logits[T-1]) */
} av_gpt2run;

/* Check o against a model (options the model fixes or that make no sense
 * for it are usage errors naming the option), load o->model_dir, tokenize
 * the sentence (arguments or -f), run the forward pass, and fill view (layer
 * L, see above) and labels (readable token labels: a leading space is "␣").
 * Errors: AV_EUSAGE for options, a bad folder content, an empty sentence,
 * too many tokens, a --layer/--head past the model's; AV_ERUNTIME for I/O
 * and out of memory. r, view and labels are freeable after any error. */
av_status av_gpt2run_open(av_gpt2run *r, av_model *view, av_tokens *labels, const av_options *o, av_err *err);

/* The trace: header, tokens and ids, embedding, one compact line per layer
 * with shapes, layer L step by step (LayerNorm, attention stages, residual,
 * MLP), ln_f, logits and the top-5 next tokens. */
void av_gpt2run_trace(FILE *f, const av_gpt2run *r, const av_model *view, const av_tokens *labels, int color);

/* --dump DIR: tokens.txt (one label per line), token_ids.npy (T,) int32,
 * attn.npy (L, H, T, T), scores.npy (L, H, T, T; before the mask), hidden.npy (L+1, T, C) (the residual stream before
 * each block and after the last, before ln_f), logits.npy (T, V), all
 * float32. Errors: AV_ERUNTIME on I/O. */
av_status av_gpt2run_dump(const av_gpt2run *r, const av_tokens *labels, const char *dir, av_written *w, av_err *err);

/* --generate N: n times, append the most probable next token (greedy) and
 * run the forward pass again on the whole sequence (no cache), then print
 * the continuation to f. Stops early at the model's n_positions or
 * attnviz's token limit, and says so. r's activations, ids and top-5 are
 * left as they were for the input. Errors: those of av_gpt2_forward;
 * AV_ERUNTIME on out of memory. */
av_status av_gpt2run_generate(FILE *f, const av_gpt2run *r, int n, av_err *err);

/* "model DIR (F32)", or for a folder --train wrote "trained toy model DIR
 * (attnviz --train reverse, step 1500; F32)", for figure metadata, titles
 * and the page. */
void av_gpt2run_source(char *buf, size_t n, const av_gpt2run *r);

void av_gpt2run_free(av_gpt2run *r);

#endif
