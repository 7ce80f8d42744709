/* tensorio.h - the command's tensors on disk: X and W loaded from a
 * --weights folder, the --attn-mask file, the --dump folder, and the list of
 * files a run wrote. Shapes: X (T, C), W_Q, W_K, W_V, W_O (C, C) in the
 * row-vector layout Q = X·W_Q; masks (T, T) bool, True = masked (PyTorch's
 * attn_mask); Q, K, V (H, T, D); scores, weights (H, T, T). Files are .npy
 * (io/npy.h), written atomically (io/fileio.h).
 */
#ifndef AV_TENSORIO_H
#define AV_TENSORIO_H

#include <stddef.h>

#include "base/common.h"
#include "nn/model.h"
#include "text/tokenize.h"

/* The files a run wrote, in order, for the closing "wrote N file(s)" list. */
#define AV_MAX_WRITTEN 1024
typedef struct {
    char *paths[AV_MAX_WRITTEN];
    int n;
} av_written;

/* Remember path (copied; beyond AV_MAX_WRITTEN or out of memory it is left
 * out of the list, the file itself is written). */
void av_written_add(av_written *w, const char *path);
void av_written_free(av_written *w);

/* Replace m's seeded X (T, C) and W_Q, W_K, W_V, W_O (C, C) by those of
 * X.npy, W_Q.npy, ... found in folder dir (each optional, at least one
 * required); note (note_n bytes) says which for the trace. Errors: AV_ERUNTIME
 * for a missing or unreadable folder or file; AV_EUSAGE for a folder with none
 * of the files, a file that is not regular, or a bad or wrongly shaped .npy
 * (the message says the expected layout). */
av_status av_load_weights(av_model *m, const char *dir, char *note, size_t note_n, av_err *err);

/* Set m->user_mask (T, T) from the bool .npy at path, True = masked.
 * Errors: AV_ERUNTIME when it cannot be read; AV_EUSAGE for bad content,
 * another dtype or another shape, saying the mask must be bool (T, T). */
av_status av_load_attn_mask(av_model *m, const char *path, av_err *err);

/* Write tokens.txt and every tensor of a finished forward pass as float32
 * .npy into folder dir (created): X, PE (sinusoidal only; a stale PE.npy is
 * removed), W_Q, W_K, W_V, W_O, Q, K, V, scores, weights, context, output,
 * and mask.npy (bool). Each path goes into w. Errors: AV_ERUNTIME on I/O. */
av_status av_dump_all(const av_model *m, const av_tokens *toks, const char *dir, av_written *w, av_err *err);

#endif
