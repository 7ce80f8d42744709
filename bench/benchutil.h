/* benchutil.h - what every `make bench` program shares: a monotonic clock, the
 * median of a few timings, and the machine's sgemm rate that attnviz's figures
 * are set beside. Header-only (static functions), included by the programs in bench/ only.
 *
 * The sgemm rate is OpenBLAS's cblas_sgemm on (n, n)·(n, n) float32 with
 * `threads` library threads, median of 5 runs, in GFLOP/s (2·n³ operations);
 * also one core's rate in CPU time, for figures taken on a busy machine.
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

/* CPU time of the calling thread in milliseconds. */
static inline double bench_thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* GFLOP/s of cblas_sgemm on (n, n)·(n, n) with `threads` OpenBLAS threads,
 * timed by clock_ms, median of 5; 0 when the buffers cannot be allocated. */
static inline double bench_sgemm_rate(int n, int threads, double (*clock_ms)(void)) {
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(sizeof(float) * nn), *b = malloc(sizeof(float) * nn), *c = malloc(sizeof(float) * nn);
    double t[5] = {0};
    if (!a || !b || !c) { free(a), free(b), free(c); return 0; }
    for (size_t i = 0; i < nn; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    openblas_set_num_threads(threads);
    for (int r = 0; r < 5; r++) {
        double t0 = clock_ms();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        t[r] = clock_ms() - t0;
    }
    openblas_set_num_threads(1);
    free(a), free(b), free(c);
    return 2.0 * n * (double)n * n / (bench_median(t, 5) * 1e6);
}

/* The machine's rate: wall clock, `threads` library threads. */
static double bench_sgemm_gflops(int n, int threads) { return bench_sgemm_rate(n, threads, bench_now_ms); }

/* One core's rate in CPU time (1 library thread, this thread's CPU clock):
 * other processes on the machine change it far less than a wall-clock rate. */
static inline double bench_sgemm_cpu_gflops(int n) { return bench_sgemm_rate(n, 1, bench_thread_cpu_ms); }

#endif
