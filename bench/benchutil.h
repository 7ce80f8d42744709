/* benchutil.h - what every `make bench` program shares: a monotonic clock, the
 * median of a few timings, and the machine's sgemm rate that attnviz's figures
 * are set beside. Header-only (static functions), included by the programs in bench/ only.
 *
 * The sgemm rate is OpenBLAS's cblas_sgemm on (n, n)·(n, n) float32 with
 * `threads` library threads, median of 5 runs, in GFLOP/s (2·n³ operations).
 * attnviz's kernels run OpenBLAS single-threaded and split work themselves, so
 * the library is set back to 1 thread afterwards. */
#ifndef AV_BENCHUTIL_H
#define AV_BENCHUTIL_H

#include <cblas.h>
#include <stdlib.h>
#include <time.h>

/* openblas_set_num_threads is OpenBLAS's, not CBLAS's. */
void openblas_set_num_threads(int n);

/* Monotonic wall clock in milliseconds. */
static double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of t[0..n) (sorts t in place); n >= 1. */
static double bench_median(double *t, int n) {
    qsort(t, (size_t)n, sizeof t[0], bench_cmp);
    return t[n / 2];
}

/* GFLOP/s of cblas_sgemm on (n, n)·(n, n) with `threads` OpenBLAS threads,
 * median of 5; 0 when the buffers cannot be allocated. */
static double bench_sgemm_gflops(int n, int threads) {
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(sizeof(float) * nn), *b = malloc(sizeof(float) * nn), *c = malloc(sizeof(float) * nn);
    double t[5] = {0};
    if (!a || !b || !c) { free(a), free(b), free(c); return 0; }
    for (size_t i = 0; i < nn; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    openblas_set_num_threads(threads);
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now_ms();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        t[r] = bench_now_ms() - t0;
    }
    openblas_set_num_threads(1);
    free(a), free(b), free(c);
    return 2.0 * n * (double)n * n / (bench_median(t, 5) * 1e6);
}

#endif
