/* gpt2run.h - the --model path: a GPT-2-layout folder run end to end.
 *
 *   DIR → config.json + model.safetensors (nn/gpt2.h, weights mmapped)
 *       + vocab.json + merges.txt (text/bpe.h; tokenizer_config.json's add_bos_token
 *         puts its bos_token first, as transformers' GPT2Tokenizer), or in a folder with neither
 *         tokenizer.json (text/hftok.h; hftok set, bpe NULL), and so in a folder
 *         whose added_tokens.json adds tokens vocab.json does not hold
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
#include "app/compare.h"
#include "app/tensorio.h"
#include "nn/gpt2.h"
#include "nn/llama.h"
#include "nn/model.h"
#include "text/bpe.h"
#include "text/hftok.h"
#include "text/tokenize.h"

#define AV_GPT2RUN_TOPK 5

/* The RoPE evidence of a Llama-family run: every position shifted by this. */
#define AV_LLAMARUN_SHIFT 1000

typedef struct {
    const char *dir;                   /* --model DIR as shown: dir_buf, without trailing '/' */
    char dir_buf[4096];                /* (av_path_shown of o->model_dir; "runs/x/" printed as "runs/x") */
    char dir_shown[4200];              /* dir as messages show it, one shell word (base/utf8.h av_shown_word) */
    av_gpt2 g;                         /* config, parameters (mmapped) */
    av_gpt2_acts a;                    /* every activation of the forward pass */
    av_bpe *bpe;                       /* the folder's tokenizer */
    int32_t *ids;                      /* (T) token ids */
    char *text;                        /* the sentence as read (arguments or -f), for the figures' titles */
    int T;
    int layer;                         /* L shown step by step (--layer, default the last) */
    char task[32];                     /* a trained toy model's task (config.json attnviz.task), or "" */
    const char *eos_file;              /* where g.cfg.eos_ids came from: "config.json", or
                                          "generation_config.json" when the folder has one (read_generation_eos) */
    int step;                          /* and the step it was saved at (attnviz.step) */
    int diverged;                      /* 1: its training diverged (attnviz.diverged), said in titles and the trace */
    char outside[240];                 /* why the input is outside that task ("token 9 [␣5] is not the task's
                                          answer: ..."), as the note on stderr says it, or "" */
    int top_id[AV_GPT2RUN_TOPK];       /* the most probable next tokens after the last position */
    double top_p[AV_GPT2RUN_TOPK];     /* their probabilities, softmax(logits[T-1]) */
    av_llama *llama;                   /* a Llama/Qwen2 folder (nn/llama.h), else NULL; g.cfg then mirrors
                                          its sizes (RoPE half, θ) and g.params stays empty */
    av_hftok *hftok;                   /* its tokenizer.json, or a GPT-2 folder's without vocab.json and
                                          merges.txt (bpe is NULL) */
    int added_tokens;                  /* a GPT-2 folder's tokenizer.json read in place of its vocab.json and
                                          merges.txt for the tokens its added_tokens.json adds past them: their
                                          count, or 0 */
    int bos_first;                     /* 1: a GPT-2 folder read from vocab.json and merges.txt puts bos_id first,
                                          as its tokenizer_config.json's "add_bos_token": true makes transformers do */
    int32_t bos_id;                    /* (gpt2run.c read_tokenizer_config) */
    float *rope_dS;                    /* (L, H) worst |ΔS| when every position moves by AV_LLAMARUN_SHIFT */
    char *generated;                   /* --generate's lines as printed (av_gpt2run_generate's copy), for the
                                          --html page's trace; NULL without --html or --generate */
} av_gpt2run;

/* Check o against a model (options the model fixes or that make no sense
 * for it are usage errors naming the option), load o->model_dir, tokenize
 * the sentence (arguments or -f), run the forward pass, and fill view (layer
 * L, see above) and labels (readable token labels: a leading space is "␣").
 * For a folder --train wrote, a note on stderr (not with -q) when the
 * sentence is outside its task's text (nn/tasks.h), since such a model
 * continues anything with confidence. Errors: AV_EUSAGE for options, a bad folder content, an empty sentence
 * or one the tokenizer makes no tokens of (a tokenizer.json Split that removes every character),
 * too many tokens (also for the (H, T, T) arrays the run holds: the model's 2·L, layer L's copy 2 and
 * --compare scale's 4, at 4·H·T² bytes each, past AV_MAX_WEIGHT_BYTES), a --layer/--head past the
 * model's; AV_ERUNTIME for I/O
 * and out of memory, and for a folder whose files changed while they were
 * read on each of 3 loads (io/fileio.h av_file_ids_changed: an attnviz
 * --train saving into it renames its files one after another, a download
 * replaces a Llama folder's shards one by one; a load that saw a change is
 * made again, its errors not reported). r, view and labels
 * are freeable after any error. */
av_status av_gpt2run_open(av_gpt2run *r, av_model *view, av_tokens *labels, const av_options *o, av_err *err);

/* A folder written by --train says so in DIR/config.json: "attnviz":
 * {"task": "reverse", "step": 1500}, and "diverged": true when its held-out
 * loss ended more than 1 % above step 0's. task (32 bytes) and *step from it; *present = 1
 * when attnviz.task is there at all; *diverged (may be NULL) 1 for
 * "diverged": true, else 0. No config.json, or no attnviz.task (a GPT-2 or
 * Llama folder): AV_OK, task "" and *present 0. They are printed in headers,
 * traces, figures and notes, so a task that is not one of nn/tasks.h
 * av_task_name's, a step missing or outside 0..1000000 (--steps' range), or
 * a "diverged" that is not true or false, is AV_EUSAGE naming the value as
 * JSON (a control or bidirectional character escaped), never printed as it
 * is. Read by --model (the run's header) and by --train (the note that it
 * replaces the model). */
av_status av_trained_task_read(const char *dir, char task[32], int *step, int *present, int *diverged, av_err *err);

/* The trace: header, tokens and ids, embedding, one compact line per layer
 * with shapes, layer L step by step (LayerNorm, attention stages, residual,
 * MLP), ln_f, logits and the top-5 next tokens. */
void av_gpt2run_trace(FILE *f, const av_gpt2run *r, const av_model *view, const av_tokens *labels, int color);

/* --dump DIR: tokens.txt (one label per line), source.txt ("weights: " +
 * av_gpt2run_source's text, then a "layers: all L ..." line naming --layer,
 * and for a folder --train wrote a "model.safetensors crc32 HHHHHHHH ..."
 * line, tensorio.h av_file_crc32 of its weights file),
 * token_ids.npy (T,) int32,
 * attn.npy (L, H, T, T), scores.npy (L, H, T, T; before the mask), hidden.npy (L+1, T, C) (the residual stream before
 * each block and after the last, before ln_f), logits.npy (T, V), all
 * float32, appearing together or not at all (tensorio.h av_dump_all).
 * Errors: AV_ERUNTIME on I/O. */
av_status av_gpt2run_dump(const av_gpt2run *r, const av_tokens *labels, const char *dir, av_written *w, av_err *err);

/* --generate N: n times, append the most probable next token (greedy), then
 * print the continuation to f. Each new token runs alone against a key/value
 * cache filled from r's forward of the input (nn/gpt2_decode.h, GPT-2 layout
 * or Llama family: the full forward's numbers with the reference kernel, bit
 * for bit). progress: on the TTY of stderr, a line "generating token k of n"
 * redrawn in place once a second has passed, cleared at the end. Stops early at the model's n_positions (Llama:
 * max_position_embeddings) or attnviz's token limit, and says so on f and
 * as a warning on stderr; an input already that long gets the warning and
 * its own text on f, as Hugging Face's generate returns it. A generated id
 * the tokenizer has no token for is listed as "<id N>" (av_gpt2run_label)
 * and left out of the text, as Hugging Face's decode leaves it out, with a
 * note saying how many. r's activations, ids and top-5 are left as they were for the input. copy: NULL, or
 * where a malloc'd copy of what was printed on f goes (NULL after an error), for the --html page's trace
 * (r->generated); the notes on stderr still come after the lines they are about. The first line is the
 * "  generate ..." one: a blank line before it is the caller's. Errors: those of av_gpt2_forward;
 * AV_ERUNTIME on out of memory. */
av_status av_gpt2run_generate(FILE *f, const av_gpt2run *r, int n, int progress, char **copy, av_err *err);

/* src = the model's source as av_gpt2run_source words it, kind TRAINED for a
 * folder attnviz --train wrote, else MODEL: what the single layer's figure
 * context carries (a --model's --compare figures title with it). */
void av_gpt2run_weights(av_weights_source *src, const av_gpt2run *r);

/* "model DIR (F32; positions: learned)", or for a folder --train wrote
 * "trained toy model DIR (attnviz --train reverse, step 1500; F32;
 * positions: learned)" (sinusoidal, none, or "RoPE half, θ = 10000" for
 * the others; Post-LN and no scale where so), for figure metadata, titles
 * and the page; followed by " · this input is outside its task: 9 digits
 * before >; its prompts have 2 to 8" when r->outside says so, so a figure of
 * such an input is not read as the model's trained behaviour. */
void av_gpt2run_source(char *buf, size_t n, const av_gpt2run *r);

/* run (24 bytes) = the run's id (figures.h av_figures_model_run_id of the
 * source and the token labels). */
void av_gpt2run_run_id(char run[24], const av_gpt2run *gr, const av_tokens *toks);

/* The --model's figures (figures.h av_figures_model, unless --no-plot) and
 * page (with --html: page.h av_page_model, every layer and head; with c
 * given, --compare scale, av_page_compare: layer L under each setting; its
 * trace is the printed one without colour, followed by c's table when c is given),
 * each written file added to w and carrying the run id run.
 * Errors: theirs; out of memory. */
av_status av_gpt2run_sinks(const av_gpt2run *gr, const av_model *m, const av_comparison *c, const av_tokens *toks,
                           const av_options *o, const char *cmd, const char *run, av_written *w, av_err *err);
void av_gpt2run_free(av_gpt2run *r);

/* out (cap bytes, NUL-terminated) = a readable label of a model-produced id:
 * the tokenizer's (bpe.h av_bpe_label, hftok.h av_hftok_label), or "<id N>"
 * for an id the tokenizer has no token for (a vocab_size padded past the
 * tokenizer's ids, as Qwen2.5's 151936 past its 151665 tokens; a gap in a
 * tokenizer.json's ids). Every place that shows a model's id as text (the
 * input's labels, the top-5 next tokens, --generate, notes) goes through it.
 * Returns the label's length. */
size_t av_gpt2run_label(char *out, size_t cap, const av_gpt2run *r, int32_t id);

/* The id of the largest logits[row] entry (T, V), the first on ties. */
int av_gpt2run_argmax(const float *logits, int row, int V);

/* ---------------------------------------------------------------------------- Llama-family folders (llamarun.c)
 * config.json with model_type llama or qwen2 and tokenizer.json: av_gpt2run_open
 * calls these instead of the GPT-2 loader and forward; the dump, figures and
 * page read the same activations. */

/* 1 if DIR/config.json names model_type llama or qwen2. */
int av_llamarun_is_llama(const char *dir);
/* The id the tokenizer puts before the sentence's tokens (r->ids[0]), or -1: tokenizer.json's (hftok.h
 * av_hftok_bos) or, read from vocab.json, tokenizer_config.json's add_bos_token (r->bos_first). The traces
 * then say ", BOS put first". No errors. */
int32_t av_gpt2run_bos(const av_gpt2run *r);

/* Load the weights and tokenizer.json; mirror the sizes into r->g.cfg. Errors: nn/llama.h's, text/hftok.h's, and a
 * tokenizer larger than vocab_size (AV_EUSAGE). */
av_status av_llamarun_load(av_gpt2run *r, av_err *err);
/* The forward pass on r->ids, then the RoPE evidence r->rope_dS on the first min(T, 64) tokens. */
av_status av_llamarun_forward(av_gpt2run *r, av_err *err);
/* Layer L as a single layer: W_Q = q_projᵀ, W_K and W_V with each K/V head repeated for the query heads sharing it. */
av_status av_llamarun_view(av_model *v, const av_gpt2run *r, av_err *err);
void av_llamarun_free(av_gpt2run *r);

#endif
