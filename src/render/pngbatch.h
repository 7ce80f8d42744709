/* pngbatch.h - PNG figures compressed on a second thread while the caller
 * draws the next one.
 *
 * Drawing a figure (layout, text, raster) and compressing it (zlib) take
 * about the same time, and the text layer is not thread-safe, so a set of
 * figures runs as a pipeline: the caller draws figure k+1 while a worker
 * thread compresses figure k into memory.
 *
 *   av_png_batch b;
 *   av_png_batch_begin(&b);
 *   meta.batch = &b;                 // av_plot_write queues its PNGs in b
 *   ... av_plot_head(...) ...        // drawn here, compressed there
 *   st = av_png_batch_end(&b, err);  // compresses what is left (both threads),
 *                                    // then writes every file, in order
 *
 * Data contract: av_png_batch_add takes ownership of rgb (from av_big_calloc,
 * base/common.h, as av_raster_render gives it) and
 * copies path and texts. Files are written by av_png_batch_end on the
 * caller's thread, in the order they were added, each atomically (io/fileio.h);
 * the bytes are those av_png_write gives, whichever thread compressed them.
 * The first failure (in that order) is returned and the files after it are
 * not written. At most AV_PNG_BATCH_WAITING images wait for the worker;
 * beyond that the caller compresses one itself, so memory stays bounded.
 *
 * Non-goals: more than one worker, SVG (cheap to write), reuse after end.
 */
#ifndef AV_PNGBATCH_H
#define AV_PNGBATCH_H

#include <pthread.h>
#include <stddef.h>

#include "base/common.h"
#include "render/pngout.h"

#define AV_PNG_BATCH_WAITING 2

typedef struct av_png_job av_png_job;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t worker;
    int worker_running;
    int closing;      /* av_png_batch_end was called: the worker stops when nothing waits */
    av_png_job **jobs; /* in the order added */
    int n, cap;
    int next;          /* jobs[next] is the first not yet taken by a thread */
} av_png_batch;

/* Start an empty batch (no thread yet: the first add starts it). */
void av_png_batch_begin(av_png_batch *b);

/* Queue rgb (width x height, stride bytes per row, owned by the batch from
 * now on, even on failure) for path with the texts and dpi of av_png_write.
 * Fails only when out of memory. */
av_status av_png_batch_add(av_png_batch *b, const char *path, unsigned char *rgb, int width, int height,
                           size_t stride, const av_png_text *texts, int n_texts, int dpi, av_err *err);

/* Compress what is left, stop the worker, write every file in order and
 * free the batch. Returns the first failure (naming the file). */
av_status av_png_batch_end(av_png_batch *b, av_err *err);

#endif
