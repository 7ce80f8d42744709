/* train.h - `attnviz --train TASK -o DIR`: train a small GPT-2-layout model
 * on a toy task (nn/tasks.h) with nn/train.h, print progress and snapshots,
 * and write DIR as a model folder that `--model DIR` runs, plus the film
 * strip, the GIF, the curves and the CSV. `--compare scale|norm|positions`
 * trains each variant on the same data and seed into DIR/<variant>/ and
 * overlays their curves in DIR/compare_<what>.png/.svg.
 *
 * Files in DIR:
 *   config.json, model.safetensors, vocab.json, merges.txt   the model folder
 *   filmstrip.png/.svg   the probe's attention, rows = snapshots, cols = heads
 *   attention.gif        the probe's attention grid at every snapshot
 *   curves.png/.svg      loss, held-out accuracy, attention on target
 *   train.csv            every logged number (one row per step)
 */
#ifndef AV_APP_TRAIN_H
#define AV_APP_TRAIN_H

#include <stdint.h>
#include <stdio.h>

#include "app/cli.h"
#include "base/common.h"
#include "nn/gpt2.h"
#include "nn/optim.h"
#include "nn/tasks.h"

typedef enum { AV_TRAIN_CMP_NONE, AV_TRAIN_CMP_SCALE, AV_TRAIN_CMP_NORM, AV_TRAIN_CMP_POSITIONS } av_train_compare;

typedef struct {
    av_task_kind task;
    const char *outdir;
    int layers, heads, d_model, steps, batch;  /* 0 = the task's default */
    double lr;                                 /* peak lr (cosine, constant) or noam's factor;
                                                  0 = the task's default (noam: factor 1) */
    av_schedule schedule;
    int warmup;                                /* 0 = 5 % of the steps, or none with warmup_set */
    double weight_decay;                       /* AdamW's decoupled weight decay λ of the 2-D tensors (weight
                                                  matrices, wte, wpe; not biases or LayerNorm): each step
                                                  multiplies them by 1 − lr·λ (Loshchilov and Hutter 2019);
                                                  used only if weight_decay_set, else AV_TRAIN_WEIGHT_DECAY */
    int weight_decay_set;                      /* 1 = --weight-decay was given (0 is a valid value) */
    int warmup_set;                            /* 1 = --warmup was given: 0 is then no warm-up (cosine from
                                                  step 1, one step ahead of torch's CosineAnnealingLR stepped
                                                  after each update: docs/attnviz.1), else 0 = the default */
    av_positions positions;                    /* learned, sinusoidal or rope */
    av_rope_style rope_style;                  /* with rope: interleaved or half pairs */
    double rope_base;                          /* with rope: θ base, 10000 by default */
    av_norm norm;
    int scale;                                 /* 1 = ÷√d_k */
    int reference;                             /* 1 = --kernel reference: the readable loops, sequence by
                                                  sequence; 0 = packed chunks on sgemm (nn/gpt2_batch.h) */
    uint64_t seed;
    av_train_compare compare;
    int quiet;                                 /* only errors */
    int dpi;                                   /* the figures' resolution, pixels per inch (0 = 100): PNG pixels
                                                  grow, printed size stays (plot.h av_plot_meta) */
    float fig_scale;                           /* the figures' size multiplier, --scale (0 = 1), for slides */
    int tty;                                   /* 1 = a progress bar on stderr */
    const char *command_line;                  /* for the figures' Description */
} av_train_opts;

#define AV_TRAIN_WEIGHT_DECAY 0.01 /* torch.optim.AdamW's default */

/* The task's defaults for every 0 field of o (layers, heads, d_model, steps,
 * batch, lr, warmup), and weight decay AV_TRAIN_WEIGHT_DECAY unless
 * weight_decay_set. With schedule noam a 0 lr becomes the factor 1 (the
 * paper's rule, Vaswani et al. 2017 §5.3), not the task's peak lr. */
void av_train_fill_defaults(av_train_opts *o);

/* attention.gif shows at most this many heads, one grid panel each. 64 was the frame's array size
 * (no reason given); kept because 8 x 8 panels within the figures' 2400-px bound are about 235 px a
 * side (a 2291 x 2315 frame), so a probe of up to AV_TASK_MAX_T (32) tokens keeps about 7 px a token
 * and every panel its "layer L head H" title, and a model of up to 64 heads gets the same GIF. */
#define AV_TRAIN_GIF_MAX_HEADS 64

/* The heads attention.gif's frames show, in panel order, and the line that says so.
 * aot_last: (L·H) attention on target per head (index layer·H + head) at the last snapshot, as
 * train.csv's last attn_on_target_* row. order: (L·H) ints, written; its first n (the return value,
 * min(L·H, AV_TRAIN_GIF_MAX_HEADS)) are the panels. With L·H <= AV_TRAIN_GIF_MAX_HEADS: every head
 * in layer/head order and note = "". Else, as the film strip (AV_FILMSTRIP_MAX_COLS): the heads with
 * the most attention on target, the best first (ties: the lower index), and note = "64 of 96 heads (a
 * GIF frame has at most 64 panels): the 64 with the most attention on target at the end, the best
 * first" (cut to note_size; 200 bytes always suffice). No errors. */
int av_train_gif_heads(int *order, char *note, size_t note_size, const double *aot_last, int L, int H);

/* A loss as --train's log prints it, into out (16 bytes), in at most 7 characters so the snapshot lines'
 * columns stay put: "5.6647" below 10, then fewer decimals ("98.529", "1234.5", "110068"), "1.2e+07" style
 * past a million (a run that diverged), and that style too for a loss above 0 that "%.4f" would print as
 * "0.0000" ("3.0e-05"), as numpy switches to scientific notation for small values: late in training
 * "loss 0.0000" could not be told from 0. 0 stays "0.0000". train.csv keeps "%.9g". No errors. */
void av_train_loss_text(char out[16], double x);

/* The title of attention.gif's frame at snapshot `step` (0 = the random initialisation), so a frame
 * put on a slide says what it shows, as the film strip does: the task and step, the held-out
 * accuracy (a fraction 0..1, shown in percent to one decimal), the model ("2 layers, 4 heads,
 * d_model 64 · learned positions, Pre-LN, ÷√d_k": two --compare variants' frames differ), the
 * probe's line, and note (av_train_gif_heads's; "" for none). Example: "trained on reverse, step
 * 600 · held-out accuracy 100.0 % · 2 layers, 4 heads, d_model 64 · learned positions, Post-LN,
 * ÷√d_k · probe "3 1 4 1 5 >" and its answer " 5 1 4 1 3"". Cut to n bytes. No errors. */
void av_train_frame_title(char *out, size_t n, const char *task, int step, double accuracy, const char *model,
                          const char *probe, const char *note);

/* The folder --compare's variant i trains into, under -o: compare
 * AV_TRAIN_CMP_SCALE gives "scale", "no-scale"; NORM "pre-ln", "post-ln";
 * POSITIONS "learned", "sinusoidal", "rope". NULL past the last or for
 * another compare. */
const char *av_train_variant_dir(int compare, int i);

/* The names --train writes into its folder (config.json, model.safetensors,
 * vocab.json, merges.txt, its figures and train.csv), *n of them; static
 * storage. For figures.h av_figures_remove_leftovers. */
const char *const *av_train_file_names(size_t *n);

/* 1 when another process's attnviz --train holds dir's lock (it is training
 * into dir now): flock(LOCK_SH | LOCK_NB) on the folder fails with
 * EWOULDBLOCK. 0 otherwise, and where the folder cannot be opened or the
 * file system has no flock. */
int av_train_folder_busy(const char *dir);

/* The tokenizer files that folder dir holds (regular files or links; a
 * folder of such a name is not one) of those a Hugging Face save_pretrained
 * writes beside vocab.json and merges.txt and --train never writes:
 * tokenizer.json, tokenizer_config.json, special_tokens_map.json,
 * added_tokens.json. Their names, each after a space in that order, into out
 * (n bytes); returns how many. In a folder --train wrote they were copied in
 * (or are left from a model the user saved there): transformers'
 * AutoTokenizer reads them in place of the trained vocab.json and merges.txt,
 * which attnviz --model reads. No errors (a folder that cannot be read holds
 * none). */
int av_train_foreign_tokenizer(const char *dir, char *out, size_t n);

/* Train, print to out, write DIR. DIR is used and named as --model shows a
 * folder (io/fileio.h av_path_shown: "ts/" and "./ts//" are "ts"), in every
 * message and line of out and for --compare's DIR/VARIANT. DIR (with
 * --compare, DIR and each variant folder) is locked while the run lasts (flock on the folder itself, no lock
 * file). Errors: AV_EUSAGE (bad sizes, e.g. heads not dividing d_model; a
 * model in DIR attnviz did not train, or a damaged config.json there),
 * AV_ERUNTIME (I/O, OOM; another --train holding DIR's lock, before
 * anything is made; out that cannot be written: found at the header line,
 * before the first step, with the folders the run made removed, or at the
 * end, saying what was saved), each naming the value. */
av_status av_train_run(const av_train_opts *o, FILE *out, av_err *err);

/* --train from the parsed options: the task's defaults for --d-model,
 * --heads and --positions unless given (learned positions), then av_train_run
 * printing to stdout. command_line goes into the figures' Description. A
 * --warmup outside 0..steps (1..steps with --schedule noam; negative ones with
 * constant too) is refused here, AV_EUSAGE, the value as typed: av_train_run
 * does not check it. */
av_status av_train_command(const av_options *o, const char *command_line, av_err *err);

#endif
