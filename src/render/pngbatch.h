/* pngbatch.h - PNG figures compressed on a second thread while the caller
 * draws the next one.
 *
 * Drawing a figure (layout, text, raster) and compressing it (igzip) take
 * about the same time, and the text layer is not thread-safe, so a set of
 * figures runs as a pipeline: the caller draws figure k+1 while a worker
 * thread compresses figure k into memory.
 *
 *   av_png_batch b;
 *   av_png_batch_begin(&b);
 *   meta.batch = &b;                 // av_plot_write queues its PNGs in b
 *   ... av_plot_head(...) ...        // drawn here, compressed there
 *   st = av_png_batch_end(&b, err);  // compresses what is left (both threads),
 *                                    // writes the files not yet written
 *
 * Data contract: av_png_batch_add takes ownership of rgb (from av_big_calloc,
 * base/common.h, as av_raster_render gives it) and
 * copies path and texts. Files are written in the order they were added,
 * each atomically (io/fileio.h), and each as soon as it and every file before
 * it are compressed, by the thread that finished the last of them (so the
 * writing overlaps the drawing; av_png_batch_end writes what is left). The
 * bytes are those av_png_write gives, whichever thread compressed them.
 * The first failure (in that order) is returned by av_png_batch_end and the
 * files after it are not written. At most AV_PNG_BATCH_WAITING images wait for the worker;
 * beyond that the caller compresses one itself, so memory stays bounded.
 *
 * The worker starts at av_png_batch_begin and first warms the encoder
 * (av_png_warm) while the caller draws the first figure.
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
    int n_written;     /* jobs[0..n_written) are written (or failed: see st) */
    int writing;       /* a thread is writing files now (one at a time, in order) */
    av_status st;      /* the first write failure, with err; later files are not written */
    av_err err;
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
