/* shim_sgemm.c - LD_PRELOAD library for test_train's
 * test_cli_train_diverged_is_a_runtime_error (built as
 * BUILD/tests/shim_sgemm.so, no sanitizer).
 *
 * It plays a training run whose numbers blow up, at a chosen moment and
 * every time the same way: the SHIM_SGEMM_AT-th call of cblas_sgemm (from
 * 1) gets SHIM_SGEMM_VALUE ("inf", "nan", ...) in the first element of its
 * result, as a product whose inputs grew past float32 would. attnviz opens
 * OpenBLAS with dlopen and takes sgemm with dlsym from that handle, so, as
 * shim_env does, dlopen("libopenblas.so.0") returns this shim's own handle:
 * dlsym then finds cblas_sgemm below first, and it calls OpenBLAS's, a
 * dependency of the shim, for the product itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long g_calls;

void *dlopen(const char *file, int flags) {
    void *(*real)(const char *, int);
    *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
    Dl_info self;
    if (file && strcmp(file, "libopenblas.so.0") == 0 && dladdr((void *)&g_calls, &self) && self.dli_fname)
        return real(self.dli_fname, flags);
    return real(file, flags);
}

/* cblas.h's prototype, with its enums and OpenBLAS's 32-bit blasint as int */
void cblas_sgemm(int order, int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);
void cblas_sgemm(int order, int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc) {
    void (*real)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
    *(void **)&real = dlsym(RTLD_NEXT, "cblas_sgemm"); /* POSIX's way past ISO C's cast rule */
    real(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    const char *at = getenv("SHIM_SGEMM_AT"), *value = getenv("SHIM_SGEMM_VALUE");
    long n = atomic_fetch_add(&g_calls, 1) + 1;
    if (at && value && n == atol(at) && M > 0 && N > 0) C[0] = strtof(value, NULL);
}
