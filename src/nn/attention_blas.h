/* attention_blas.h - the fast kernels for the stages of attention.h: the same
 * math, shapes and legend (T tokens, C = d_model, H heads, D = d_k), with the
 * matrix products done by OpenBLAS's sgemm (loaded when first needed,
 * av_blas_require).
 *
 * What differs from the reference loops of attention.c:
 *   - sgemm sums in float32 (the reference sums in double); on unit-scale
 *     inputs the results agree within 1e-5 (tests/test_kernels.c measures
 *     and prints the worst difference);
 *   - the work is cut into fixed items (256 rows of one head, or 256 rows of a
 *     projection), each done by one sgemm call on one thread
 *     (base/parallel.h), with OpenBLAS's own threading turned off. The cut
 *     never depends on the thread count, so neither do the bits.
 *
 * av_matmul is the one matrix-product entry the rest of nn/ calls (the
 * attention layer, the Transformer): out = a · b with a kernel choice.
 * Non-goals: batching, strided views, other BLAS precisions.
 */
#ifndef AV_ATTENTION_BLAS_H
#define AV_ATTENTION_BLAS_H

#include <stddef.h>

#include "base/common.h"
#include "nn/attention.h"

/* out (M, N) = a (M, K) · b (K, N), all row-major float32. kernel
 * AV_KERNEL_REFERENCE runs matmul_forward (sums in double); any other kernel
 * runs matmul_blas_forward. Sizes >= 1. */
void av_matmul(float *out, const float *a, const float *b, int M, int K, int N, av_kernel kernel);

/* out (T, OC) = inp (T, C) · w (C, OC) by sgemm, 256 rows per work item; up
 * to 256 rows, blocks of 256 output columns instead (av_sgemm_colblocks), so
 * a short input still uses every thread. */
void matmul_blas_forward(float *out, const float *inp, const float *w, int T, int C, int OC);

/* scores (H, T, T) = q (H, T, D) · k (H, T, D)ᵀ · scale, by sgemm (alpha = scale
 * rounded to float32). Same contract as scores_forward. */
void scores_blas_forward(float *scores, const float *q, const float *k, int H, int T, int D, double scale);

/* att (H, T, T) = row-wise softmax, the contract of softmax_forward (masked
 * keys get exactly 0, fully masked rows all zeros, returns their count,
 * *worst_dev as there), but exp in float32 (av_expf, fastexp.h) and rows split over threads. */
int softmax_fast_forward(float *att, const float *scores, const unsigned char *mask, int H, int T,
                         double *worst_dev);

/* out (H, T, D) = att (H, T, T) · v (H, T, D), by sgemm. */
void weighted_sum_blas_forward(float *out, const float *att, const float *v, int H, int T, int D);

/* What attention_blas_forward measures on the way. */
typedef struct {
    double mean, var;      /* population mean and variance of all H·T·T scores (masked ones too, as stats_forward) */
    int fully_masked_rows; /* rows whose keys are all masked (their weights are all 0) */
    double worst_dev;      /* largest |Σ_j att − 1| over the other rows */
} av_blas_stats;

/* Stages 6, 8 and 9 fused: for each (head, block of 256 query rows), on one
 * thread while the block is in cache: scores (scores_blas_forward), their
 * sums for the statistics, the softmax with the mask (softmax_fast_forward)
 * and the block's rows of att · v (weighted_sum_blas_forward), written
 * straight into the merged layout (no merge_heads_forward pass). The
 * same bits as those kernels run one after the other. The block is
 * made in a scratch buffer (256·T floats) that stays in cache, the weights
 * in the place of the scores, and each is streamed once to the (H, T, T)
 * tensors (non-temporal stores on x86: they are not read back into the
 * cache first); no pass over the full tensors follows. The statistics are combined from per-block sums in block order
 * (Chan et al. 1979), so they too do not depend on the thread count.
 * Scores that overflow float32 make st->mean non-finite (the caller redoes
 * them). AV_ERUNTIME when the per-block results cannot be allocated.
 * q, k, v are (H, T, D); out is (T, C) with C = H·D, head h at columns
 * h·D .. h·D+D−1 (as flash_attention_forward); scores, att are (H, T, T);
 * mask is (T, T) or NULL. */
av_status attention_blas_forward(float *scores, float *att, float *out, const float *q, const float *k,
                                 const float *v, const unsigned char *mask, int H, int T, int D, double scale,
                                 av_blas_stats *st);

/* Population mean and variance of n floats, as stats_forward, with the sums
 * split into fixed blocks over threads (so the last bits of the double sums
 * differ from stats_forward's, but not with the thread count). A non-finite
 * value makes *mean non-finite. */
void stats_parallel_forward(const float *x, size_t n, double *mean, double *var);

/* out (T, N) = inp (T, C) · W by sgemm in fixed blocks of block output
 * columns, one work item each (base/parallel.h): W is w (C, N), or with trans
 * w (N, C) used transposed (an nn.Linear weight, or the tied unembedding wte
 * (V, C)). The blocks never depend on the thread count, so neither do the bits. */
void av_sgemm_colblocks(float *out, const float *inp, const float *w, int T, int C, int N, int block, int trans);

/* sgemm on row-major float32: c (M, N) = alpha · a (M, K) · op(b) + beta · c,
 * op(b) = b (K, N) or, with trans_b, b (N, K) transposed; lda/ldb/ldc are the
 * row strides. One thread. Loads OpenBLAS if no av_blas_require came first;
 * if it cannot be loaded, prints av_blas_require's error and exits 1 (call
 * av_blas_require where the kernel is chosen, so that never happens). */
void av_sgemm(float *c, const float *a, const float *b, int M, int N, int K, int lda, int ldb, int ldc,
              int trans_b, float alpha, float beta);

/* The same with a transposed: c (M, N) = alpha · aᵀ · b + beta · c, a (K, M)
 * with row stride lda, b (K, N) with ldb (a weight gradient, Σ over K rows). */
void av_sgemm_at(float *c, const float *a, const float *b, int M, int N, int K, int lda, int ldb, int ldc,
                 float alpha, float beta);

/* OpenBLAS is not linked: the first call opens libopenblas.so.0 (dlopen; on
 * Debian the package libopenblas0), so a run that never multiplies by sgemm
 * (the reference kernel, --help, --version) never maps it, and loading it
 * (relocations, its constructor, about 5 ms) is paid only where it is used.
 * Call it wherever a blas or flash kernel, a --model or a --train run is
 * chosen, before the work starts. The first call also:
 *   - stops the worker threads OpenBLAS's constructor starts (they spin on
 *     sched_yield for about 0.1 s before they sleep, using a core the
 *     process needs) and leaves OpenBLAS one thread: attnviz's own threads
 *     split the work (base/parallel.h), and OpenBLAS's would split the sums
 *     differently with the core count;
 *   - when OpenBLAS 0.3.21 does not recognise the CPU and picked its generic
 *     SSE3 ("Prescott") kernels, selects the AVX-512 or AVX2 ones the CPU has:
 *     it sets OPENBLAS_CORETYPE, reruns OpenBLAS's start-up and removes the
 *     variable again. glibc's setenv/unsetenv are not safe while another
 *     thread reads the environment (fontconfig does, on the thread
 *     render/textlayout.h's av_text_prepare starts), so it first calls the
 *     function given to av_blas_set_env_wait, which waits for such threads.
 *     That wait happens only on such CPUs, never when OpenBLAS knew the CPU
 *     (attnviz does not load OpenBLAS up front, before any thread starts,
 *     because most runs never need it).
 * Later calls return at once. Thread-safe. Errors: AV_ERUNTIME when the
 * library cannot be loaded or lacks cblas_sgemm / openblas_set_num_threads;
 * the message names libopenblas.so.0, gives dlerror()'s reason and says what
 * to do (install libopenblas0, or --kernel reference). */
av_status av_blas_require(av_err *err);

/* wait: a function that returns once no other thread reads the environment
 * (main passes render/textlayout.h's av_text_prepare_wait), called before
 * av_blas_require changes it; NULL (the default) calls nothing. Set it before
 * starting any thread. */
void av_blas_set_env_wait(void (*wait)(void));

/* why: the reason the run cannot take the reference kernel ("5793 tokens with
 * 8 heads are too many for it: at most 5792"), or NULL (the default): it can.
 * av_blas_require's errors (and a thread's, blas_enter's) then say that
 * instead of "or use --kernel reference", which only led to the refusal of
 * --kernel reference (app/main.c sets it for the flash kernel's long inputs).
 * At most 159 bytes are kept. Set it before the first sgemm. */
void av_blas_set_no_reference(const char *why);

/* The function called (on whichever thread) just before the process ends
 * with exit 1 because a thread's OpenBLAS work buffer does not fit under the
 * memory limit (ulimit -v): that exit cannot return to its caller, so the
 * files and folders the run had begun are left as they are. main passes
 * io/fileio.h's av_remove_unfinished: `ulimit -v 500000; attnviz --train
 * reverse -o NEW` left an empty NEW/. It must be async-signal-safe (another
 * thread may be mid-write); NULL (the default) calls nothing. Set it before
 * starting any thread. */
void av_blas_set_exit_cleanup(void (*cleanup)(void));

/* The kernel set OpenBLAS runs ("SkylakeX", "Haswell", ...; "unnamed" when
 * the library does not say). Loads OpenBLAS as av_blas_require does; "none"
 * when it cannot be loaded. */
const char *av_blas_core(void);

#endif
