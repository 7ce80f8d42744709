/* pngbatch.c - PNG figures compressed on a second thread (see pngbatch.h). */
#include "render/pngbatch.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "io/fileio.h"

#define MAX_TEXTS 8

struct av_png_job {
    char *path;
    unsigned char *rgb; /* av_big_calloc'd; freed once compressed */
    int width, height, dpi, n_texts;
    size_t stride;
    char *keys[MAX_TEXTS], *values[MAX_TEXTS];
    unsigned char *png; /* the compressed file */
    size_t png_len;
    av_status st;       /* of the compression */
    av_err err;
    int done;           /* compressed (under the batch's lock) */
};

static char *dup_str(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static void job_free(av_png_job *j) {
    if (!j) return;
    free(j->path);
    av_big_free(j->rgb);
    free(j->png);
    for (int k = 0; k < j->n_texts; k++) {
        free(j->keys[k]);
        free(j->values[k]);
    }
    free(j);
}

/* Compress one job into memory (no lock held). */
static void compress(av_png_job *j) {
    av_png_text texts[MAX_TEXTS];
    for (int k = 0; k < j->n_texts; k++) texts[k] = (av_png_text){j->keys[k], j->values[k]};
    j->st = av_png_encode(&j->png, &j->png_len, j->rgb, j->width, j->height, j->stride, texts, j->n_texts, j->dpi,
                          &j->err);
    av_big_free(j->rgb);
    j->rgb = NULL;
}

/* Write a compressed job's bytes to its path, atomically. */
static av_status write_job(const av_png_job *j, av_err *err) {
    if (j->st) {
        *err = j->err;
        return j->st;
    }
    av_afile f;
    av_status st = av_afile_open(&f, j->path, err);
    if (st) return st;
    av_afile_write(&f, j->png, j->png_len);
    return av_afile_commit(&f, err);
}

/* Write every file that is next in order and compressed, unless another
 * thread is doing so. Called with the lock held; returns with it held (it
 * is released around each write). After the first failure nothing more is
 * written. */
static void write_ready(av_png_batch *b) {
    if (b->writing) return;
    b->writing = 1;
    while (b->n_written < b->n && b->jobs[b->n_written]->done) {
        av_png_job *j = b->jobs[b->n_written];
        av_status st = AV_OK;
        av_err err;
        if (!b->st) {
            pthread_mutex_unlock(&b->lock);
            st = write_job(j, &err);
            free(j->png); /* written: the bytes are no longer needed */
            j->png = NULL;
            pthread_mutex_lock(&b->lock);
        }
        if (st && !b->st) {
            b->st = st;
            b->err = err;
        }
        b->n_written++;
    }
    b->writing = 0;
}

/* Take the next waiting job, compress it, and write what is ready; 0 when
 * none was waiting. */
static int run_one(av_png_batch *b) {
    pthread_mutex_lock(&b->lock);
    av_png_job *j = b->next < b->n ? b->jobs[b->next++] : NULL;
    pthread_mutex_unlock(&b->lock);
    if (!j) return 0;
    compress(j);
    pthread_mutex_lock(&b->lock);
    j->done = 1;
    write_ready(b);
    pthread_mutex_unlock(&b->lock);
    return 1;
}

static void *worker(void *arg) {
    av_png_batch *b = arg;
    av_png_warm(); /* while the caller draws the first figure */
    for (;;) {
        pthread_mutex_lock(&b->lock);
        while (b->next == b->n && !b->closing) pthread_cond_wait(&b->wake, &b->lock);
        int stop = b->next == b->n && b->closing;
        pthread_mutex_unlock(&b->lock);
        if (stop) return NULL;
        run_one(b);
    }
}

void av_png_batch_begin(av_png_batch *b) {
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
    b->worker_running = pthread_create(&b->worker, NULL, worker, b) == 0; /* else the first add tries again */
}

/* A job holding copies of path and texts, and rgb; NULL when out of memory. */
static av_png_job *job_make(const char *path, unsigned char *rgb, int width, int height, size_t stride,
                            const av_png_text *texts, int n_texts, int dpi) {
    av_png_job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    *j = (av_png_job){.path = dup_str(path), .rgb = rgb, .width = width, .height = height, .dpi = dpi,
                      .stride = stride};
    int ok = j->path != NULL;
    for (int k = 0; k < n_texts && ok; k++) {
        if (!texts[k].key || !texts[k].value) continue; /* av_png_write skips these too */
        if (j->n_texts == MAX_TEXTS) break;
        j->keys[j->n_texts] = dup_str(texts[k].key);
        j->values[j->n_texts] = dup_str(texts[k].value);
        ok = j->keys[j->n_texts] && j->values[j->n_texts];
        j->n_texts++;
    }
    if (ok) return j;
    j->rgb = NULL; /* the caller frees it */
    job_free(j);
    return NULL;
}

av_status av_png_batch_add(av_png_batch *b, const char *path, unsigned char *rgb, int width, int height,
                           size_t stride, const av_png_text *texts, int n_texts, int dpi, av_err *err) {
    av_png_job *j = job_make(path, rgb, width, height, stride, texts, n_texts, dpi);
    if (!j) {
        av_big_free(rgb);
        return av_fail(err, AV_ERUNTIME, "cannot write %s: out of memory", AV_SHOWN_WORD(path, 4200));
    }
    pthread_mutex_lock(&b->lock);
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        av_png_job **p = realloc(b->jobs, (size_t)cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&b->lock);
            job_free(j);
            return av_fail(err, AV_ERUNTIME, "cannot write %s: out of memory", AV_SHOWN_WORD(path, 4200));
        }
        b->jobs = p;
        b->cap = cap;
    }
    b->jobs[b->n++] = j;
    int waiting = b->n - b->next;
    if (!b->worker_running) b->worker_running = pthread_create(&b->worker, NULL, worker, b) == 0;
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
    /* no worker (it could not start), or it is behind: compress one here */
    if (!b->worker_running || waiting > AV_PNG_BATCH_WAITING) run_one(b);
    return AV_OK;
}

av_status av_png_batch_end(av_png_batch *b, av_err *err) {
    pthread_mutex_lock(&b->lock);
    b->closing = 1;
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->lock);
    while (run_one(b)) {
    }
    if (b->worker_running) pthread_join(b->worker, NULL);
    pthread_mutex_lock(&b->lock);
    write_ready(b); /* one thread left and every job compressed: this writes the rest */
    pthread_mutex_unlock(&b->lock);
    av_status st = b->st;
    if (st) *err = b->err;
    for (int i = 0; i < b->n; i++) job_free(b->jobs[i]);
    free(b->jobs);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
    memset(b, 0, sizeof *b);
    return st;
}
