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
    int warmup;                                /* 0 = 5 % of the steps */
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
    int tty;                                   /* 1 = a progress bar on stderr */
    const char *command_line;                  /* for the figures' Description */
} av_train_opts;

/* The task's defaults for every 0 field of o (layers, heads, d_model, steps,
 * batch, lr, warmup). With schedule noam a 0 lr becomes the factor 1 (the
 * paper's rule, Vaswani et al. 2017 §5.3), not the task's peak lr. */
void av_train_fill_defaults(av_train_opts *o);

/* Train, print to out, write DIR. Errors: AV_EUSAGE (bad sizes, e.g. heads
 * not dividing d_model), AV_ERUNTIME (I/O, OOM), each naming the value. */
av_status av_train_run(const av_train_opts *o, FILE *out, av_err *err);

/* --train from the parsed options: the task's defaults for --d-model,
 * --heads and --positions unless given (learned positions), then av_train_run
 * printing to stdout. command_line goes into the figures' Description. */
av_status av_train_command(const av_options *o, const char *command_line, av_err *err);

#endif
