/* attention_blas.c - sgemm kernels for the attention stages (see
 * attention_blas.h). Each public kernel cuts its work into fixed items and
 * hands them to av_parallel_for; an item is one sgemm call or one block of
 * softmax rows. OpenBLAS is not linked: it is opened with dlopen the first
 * time sgemm is needed (av_blas_require), so a run on the reference kernel
 * never pays for loading it. */
#include "nn/attention_blas.h"

#include <cblas.h> /* the enums and prototypes; the library itself is opened with dlopen */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "base/parallel.h"
#include "nn/fastexp.h"

enum { ROWS = 256 }; /* rows per work item; fixed, so the bits never depend on the thread count */

static int n_blocks(int rows) { return (rows + ROWS - 1) / ROWS; }

/* ----------------------------------------------------------------------------
 * OpenBLAS, loaded on first need */

#define BLAS_LIB "libopenblas.so.0"

/* What blas_load found: sgemm and set_num_threads (both needed), OpenBLAS's
 * internals (DYNAMIC_ARCH builds; NULL when missing), or why it failed. */
static struct {
    int ready; /* loaded and set up */
    __typeof__(cblas_sgemm) *sgemm;
    __typeof__(openblas_set_num_threads) *set_num_threads;
    __typeof__(openblas_get_corename) *corename;
    void (*dynamic_init)(void), (*dynamic_quit)(void);
    int (*thread_shutdown)(void);
    int no_room; /* the memory limit leaves no room for its work buffers (blas_room) */
    char why[400]; /* the reason loading failed, dlerror()'s text first */
} blas;

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void (*env_wait)(void); /* av_blas_set_env_wait */
static void (*exit_cleanup)(void); /* av_blas_set_exit_cleanup */

void av_blas_set_exit_cleanup(void (*cleanup)(void)) {
    exit_cleanup = cleanup;
}

void av_blas_set_env_wait(void (*wait)(void)) {
    env_wait = wait;
}

static char no_reference[160]; /* av_blas_set_no_reference: why the reference kernel cannot take the run, or "" */

void av_blas_set_no_reference(const char *why) {
    snprintf(no_reference, sizeof no_reference, "%s", why ? why : "");
}

/* OpenBLAS 0.3.21 (Debian 12) does not know recent Xeons (e.g. family 6
 * model 207) and falls back to its generic "Prescott" (SSE3) kernels, 4 to 5
 * times slower. When the CPU has AVX-512 (or AVX2 + FMA) and the user did not
 * choose with OPENBLAS_CORETYPE, select the matching kernels the way
 * OpenBLAS does at load time: set OPENBLAS_CORETYPE and rerun its dynamic
 * initialisation (then remove the variable again). setenv is not safe while
 * another thread reads the environment: env_wait ends those threads first. */
static void blas_fix_core(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (!blas.corename || !blas.dynamic_init || !blas.dynamic_quit) return;
    if (getenv("OPENBLAS_CORETYPE") || strcmp(blas.corename(), "Prescott") != 0) return;
    __builtin_cpu_init();
    const char *core = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")
                           ? "SkylakeX"
                       : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "Haswell"
                                                                                          : NULL;
    if (!core) return;
    if (env_wait) env_wait();
    if (setenv("OPENBLAS_CORETYPE", core, 1) != 0) return;
    blas.dynamic_quit();
    blas.dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
#endif
}

/* OpenBLAS gives each of its worker threads (one per CPU but one, started
 * when it is loaded) and each thread that calls sgemm a work buffer of its
 * BUFFER_SIZE, 128 MiB of address space on x86-64 (touched only as far as a
 * product needs). When it cannot get one (ulimit -v, or ulimit -d, set low) it
 * tries again for ever: `ulimit -v 300000; attnviz --kernel blas "a b"`
 * spun at full CPU and never ended. So under such a limit blas_room checks
 * with one mapping that n such buffers fit: before the library is loaded
 * (max(CPUs, av_parallel_for's threads) of them: av_blas_require's error),
 * and on each thread before its first sgemm (one: blas_enter's). */
enum { BLAS_BUFFER_MIB = 128 };
/* What a buffer takes, as the probe maps it: OpenBLAS asks for BUFFER_SIZE and 1 MiB more in one mapping (strace:
 * mmap of 135266304 bytes), and a probe of the 128 MiB alone passed where that mapping then failed; 2 MiB more
 * keeps a page-aligned margin. */
enum { BLAS_PROBE_MIB = BLAS_BUFFER_MIB + 2 };
/* 0: no address-space or data limit; 1: one that leaves BLAS_SPARE_MIB more than the buffers when the library is
 * loaded; 2: a tighter one (blas_load) */
static atomic_int blas_limited;
static int blas_threads; /* the buffers checked at load: max(CPUs, av_parallel_for's threads) */
/* A limit whose room for the buffers is this much more is taken as one that will not bind: its products run side by
 * side, each thread checked once (blas_enter). Holding every product of such a run to one core (as a tight limit
 * does) made `ulimit -v 60000000` as slow as one thread (a review of the change). The room is measured at load and
 * again at each thread's check, as --model loads its weights after the library (a 7B Llama or Qwen2 takes some
 * 30 GB in float32): once it is under this, the limit is tight from there on. */
enum { BLAS_SPARE_MIB = 16384 };
static _Thread_local int blas_room_checked;
/* Held through every sgemm under a tight limit (blas_limited 2; blas_enter), a thread's check included: two threads
 * checked at once, each found room for one buffer, and the second then found none in sgemm and spun in OpenBLAS for
 * ever (test_train's `ulimit -v 400000; attnviz --train reverse --steps 3 -o NEW/sub` ran 12 minutes at full CPU on a
 * loaded machine, where it ends at once with exit 1). Held only through each thread's first sgemm, the same command
 * still spun about once in 150 runs (gdb: a worker in blas_memory_alloc's mmap, the lock free): that first product had
 * reused a buffer another thread had let go, or took none (OpenBLAS's small-matrix path), and a later one, run beside
 * the other thread's, needed a buffer of its own when the model's memory had taken the room. With the products one at
 * a time, a buffer a thread has taken (blas_enter's warm-up) is free whenever it calls again, and none is taken after
 * its check. The products are the same; a run under a tight limit uses one core for them. Under a limit with room to
 * spare (1) it is held through each thread's check and first product only. */
static pthread_mutex_t blas_limit_lock = PTHREAD_MUTEX_INITIALIZER;
enum { BLAS_WARM = 128 }; /* the side of blas_enter's warm-up product: past OpenBLAS's small-matrix path */

/* 1 if one mapping of mib MiB fits in the address space now, else 0. */
static int blas_fits(size_t mib) {
    size_t probe = mib << 20;
    void *p = mmap(NULL, probe, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    munmap(p, probe);
    return 1;
}

/* 1 if n buffers fit, else 0 with the reason in why (cap bytes). */
static int blas_room(int n, char *why, size_t cap) {
    if (blas_fits((size_t)n * BLAS_PROBE_MIB)) return 1;
    char each[48] = "a thread"; /* n = 1, a thread's own (blas_enter): it said "for each of 1 thread" */
    if (n > 1) snprintf(each, sizeof each, "each of %d threads", n);
    snprintf(why, cap,
             "its work buffers (about %d MiB of address space for %s) do not fit under the "
             "process's memory limit (ulimit -v or -d)", BLAS_BUFFER_MIB, each);
    return 0;
}

/* The error of av_blas_require for a library that did not load or that has
 * no room, the reason in why. */
static av_status blas_fail(av_err *err, int no_room, const char *why) {
    char instead[240] = ", or use --kernel reference";
    if (no_reference[0]) snprintf(instead, sizeof instead, " (--kernel reference needs no OpenBLAS, but %s)", no_reference);
    if (no_room)
        return av_fail(err, AV_ERUNTIME,
                       "cannot use OpenBLAS, which the blas and flash kernels, --model and --train use for sgemm: %s; "
                       "raise the limit%s", why, instead);
    return av_fail(err, AV_ERUNTIME,
                   "cannot load OpenBLAS (" BLAS_LIB "), which the blas and flash kernels, --model and --train use "
                   "for sgemm: %s; install the Debian package libopenblas0%s",
                   why, instead);
}

/* The address of `name` in lib, as a function pointer (POSIX's way past ISO
 * C's rule against casting an object pointer to a function pointer). */
#define BLAS_SYM(field, lib, name) (*(void **)&blas.field = dlsym(lib, name))

/* dlopen OpenBLAS, take its functions, stop the worker threads its
 * constructor started (they spin on sched_yield for about 0.1 s before they
 * sleep, on a core the process needs; our threads split the work, and
 * OpenBLAS's would split sums differently with the core count), fix its
 * kernel choice, and leave it one thread. Run once (blas_once). */
static void blas_load(void) {
    struct rlimit as, data;
    int limited = (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
                  (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    blas_threads = av_get_threads() > cpus ? av_get_threads() : (int)cpus;
    if (limited && !blas_room(blas_threads, blas.why, sizeof blas.why)) {
        atomic_store(&blas_limited, 1);
        blas.no_room = 1;
        return;
    }
    if (limited) atomic_store(&blas_limited, blas_fits((size_t)blas_threads * BLAS_PROBE_MIB + BLAS_SPARE_MIB) ? 1 : 2);
    void *lib = dlopen(BLAS_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(blas.why, sizeof blas.why, "%s", e ? e : "dlopen gave no reason");
        return;
    }
    if (!BLAS_SYM(sgemm, lib, "cblas_sgemm") || !BLAS_SYM(set_num_threads, lib, "openblas_set_num_threads")) {
        snprintf(blas.why, sizeof blas.why, BLAS_LIB " has no %s", blas.sgemm ? "openblas_set_num_threads" : "cblas_sgemm");
        return; /* left loaded: its constructor has run, and dlclose would run its destructor mid-process */
    }
    BLAS_SYM(corename, lib, "openblas_get_corename");
    BLAS_SYM(dynamic_init, lib, "gotoblas_dynamic_init");
    BLAS_SYM(dynamic_quit, lib, "gotoblas_dynamic_quit");
    BLAS_SYM(thread_shutdown, lib, "blas_thread_shutdown_");
    if (blas.thread_shutdown) blas.thread_shutdown();
    blas_fix_core();
    blas.set_num_threads(1);
    blas.ready = 1;
}

av_status av_blas_require(av_err *err) {
    pthread_once(&blas_once, blas_load);
    if (blas.ready) return AV_OK;
    return blas_fail(err, blas.no_room, blas.why);
}

/* Loaded, or the error and exit 1: the last resort of a caller that did
 * not call av_blas_require first, or of a thread whose buffer does not fit
 * under the memory limit (blas_room; the first sgemm of each thread checks,
 * and takes the buffer). Returns 1 when blas_limit_lock is then held (every
 * call under a tight limit, a thread's first under one with room to spare),
 * and blas_leave releases it after the call. */
static int blas_enter(void) {
    pthread_once(&blas_once, blas_load);
    int limited = atomic_load(&blas_limited);
    if (blas.ready && (!limited || (limited == 1 && blas_room_checked))) return 0;
    char why[400];
    if (blas.ready) {
        pthread_mutex_lock(&blas_limit_lock);
        if (blas_room_checked) return 1;
        if ((blas_room_checked = blas_room(1, why, sizeof why))) {
            /* the thread's buffer, taken now while there is room for it: zeros, so nothing can overflow */
            static float warm_a[BLAS_WARM * BLAS_WARM], warm_c[BLAS_WARM * BLAS_WARM];
            blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, BLAS_WARM, BLAS_WARM, BLAS_WARM, 1.0f, warm_a,
                       BLAS_WARM, warm_a, BLAS_WARM, 0.0f, warm_c, BLAS_WARM);
            /* the room again, after what was loaded since (BLAS_SPARE_MIB): tight from here on when it is gone */
            if (limited == 1 && !blas_fits((size_t)blas_threads * BLAS_PROBE_MIB + BLAS_SPARE_MIB))
                atomic_store(&blas_limited, 2);
            return 1;
        }
        pthread_mutex_unlock(&blas_limit_lock);
    }
    av_err err;
    blas_fail(&err, !blas.ready ? blas.no_room : 1, !blas.ready ? blas.why : why);
    fflush(stdout); /* the caller's thread waits in av_parallel_for, and no file is being written during a product */
    fprintf(stderr, "attnviz: error: %s\n", err.msg);
    if (exit_cleanup) exit_cleanup(); /* main's io/fileio.h av_remove_unfinished: no empty -o NEW/, no temporary */
    _exit(1); /* exit() on a worker thread ran the libraries' destructors under the other threads (a crash) */
}

/* After the sgemm that blas_enter let in: held (blas_enter's 1) releases blas_limit_lock. */
static void blas_leave(int held) {
    if (held) pthread_mutex_unlock(&blas_limit_lock);
}

const char *av_blas_core(void) {
    pthread_once(&blas_once, blas_load);
    if (!blas.ready) return "none";
    return blas.corename ? blas.corename() : "unnamed";
}

void av_sgemm(float *c, const float *a, const float *b, int M, int N, int K, int lda, int ldb, int ldc,
              int trans_b, float alpha, float beta) {
    int held = blas_enter();
    blas.sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, alpha, a, lda, b, ldb,
               beta, c, ldc);
    blas_leave(held);
}

void av_sgemm_at(float *c, const float *a, const float *b, int M, int N, int K, int lda, int ldb, int ldc,
                 float alpha, float beta) {
    int held = blas_enter();
    blas.sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
    blas_leave(held);
}

/* ----------------------------------------------------------------------------
 * projections */

typedef struct {
    float *out;
    const float *inp, *w;
    int T, C, OC;
} matmul_ctx;

static void matmul_block(void *arg, int item) {
    const matmul_ctx *a = arg;
    int t0 = item * ROWS, rows = a->T - t0 < ROWS ? a->T - t0 : ROWS;
    av_sgemm(a->out + (size_t)t0 * a->OC, a->inp + (size_t)t0 * a->C, a->w, rows, a->OC, a->C, a->C, a->OC, a->OC, 0,
             1.0f, 0.0f);
}

typedef struct {
    float *out;
    const float *inp, *w;
    int T, C, N, block, trans;
} colblock_ctx;

static void colblock(void *ctx, int item) {
    const colblock_ctx *j = ctx;
    int o0 = item * j->block, n = j->N - o0 < j->block ? j->N - o0 : j->block;
    const float *w0 = j->trans ? j->w + (size_t)o0 * j->C : j->w + o0;
    av_sgemm(j->out + o0, j->inp, w0, j->T, n, j->C, j->C, j->trans ? j->C : j->N, j->N, j->trans, 1.0f, 0.0f);
}

void av_sgemm_colblocks(float *out, const float *inp, const float *w, int T, int C, int N, int block, int trans) {
    colblock_ctx j = {out, inp, w, T, C, N, block, trans};
    av_parallel_for((N + block - 1) / block, colblock, &j);
}

void matmul_blas_forward(float *out, const float *inp, const float *w, int T, int C, int OC) {
    // inp is (T, C), w is (C, OC), out is (T, OC)
    if (n_blocks(T) < 2) { /* one block of rows would be one item on one thread: cut the columns instead */
        av_sgemm_colblocks(out, inp, w, T, C, OC, 256, 0);
        return;
    }
    matmul_ctx a = {out, inp, w, T, C, OC};
    av_parallel_for(n_blocks(T), matmul_block, &a);
}

void av_matmul(float *out, const float *a, const float *b, int M, int K, int N, av_kernel kernel) {
    if (kernel == AV_KERNEL_REFERENCE)
        matmul_forward(out, a, b, M, K, N);
    else
        matmul_blas_forward(out, a, b, M, K, N);
}

/* ----------------------------------------------------------------------------
 * scores and weighted sum: items are (head, block of ROWS query rows) */

typedef struct {
    float *out;
    const float *x, *y; /* scores: q, k; weighted sum: att, v */
    int H, T, D;
    float scale;
    int merged; /* weighted sum: out is (T, C = H·D), head h at columns h·D.., not (H, T, D) */
} head_ctx;

/* Head and query rows of work item `item`: h, rows i0 .. i0 + *rows − 1. */
static int item_rows(int item, int T, int *i0, int *rows) {
    int nb = n_blocks(T);
    *i0 = (item % nb) * ROWS;
    *rows = T - *i0 < ROWS ? T - *i0 : ROWS;
    return item / nb;
}

/* s (rows, T) = q_h rows i0.. (rows, D) · k_h (T, D)ᵀ · scale */
static void scores_rows(float *s, const head_ctx *a, int h, int i0, int rows) {
    int T = a->T, D = a->D;
    av_sgemm(s, a->x + ((size_t)h * T + i0) * D, a->y + (size_t)h * T * D, rows, T, D, D, D, T, 1, a->scale, 0.0f);
}

static void scores_block(void *arg, int item) {
    const head_ctx *a = arg;
    int i0, rows, h = item_rows(item, a->T, &i0, &rows);
    scores_rows(a->out + ((size_t)h * a->T + i0) * a->T, a, h, i0, rows);
}

void scores_blas_forward(float *scores, const float *q, const float *k, int H, int T, int D, double scale) {
    // q, k are (H, T, D); scores is (H, T, T)
    head_ctx a = {scores, q, k, H, T, D, (float)scale, 0};
    av_parallel_for(H * n_blocks(T), scores_block, &a);
}

/* out_h rows i0.. (rows, D) = att rows (rows, T) · v_h (T, D) */
static void weighted_sum_rows(const head_ctx *a, const float *att, int h, int i0, int rows) {
    int T = a->T, D = a->D, ldo = a->merged ? a->H * D : D;
    float *out = a->merged ? a->out + (size_t)i0 * ldo + (size_t)h * D : a->out + ((size_t)h * T + i0) * D;
    av_sgemm(out, att, a->y + (size_t)h * T * D, rows, D, T, T, D, ldo, 0, 1.0f, 0.0f);
}

static void weighted_sum_block(void *arg, int item) {
    const head_ctx *a = arg;
    int i0, rows, h = item_rows(item, a->T, &i0, &rows);
    weighted_sum_rows(a, a->x + ((size_t)h * a->T + i0) * a->T, h, i0, rows);
}

void weighted_sum_blas_forward(float *out, const float *att, const float *v, int H, int T, int D) {
    // att is (H, T, T), v is (H, T, D), out is (H, T, D)
    head_ctx a = {out, att, v, H, T, D, 1.0f, 0};
    av_parallel_for(H * n_blocks(T), weighted_sum_block, &a);
}

/* ----------------------------------------------------------------------------
 * softmax: items are blocks of ROWS rows of the (H·T, T) score matrix */

typedef struct {
    float *att;
    const float *scores;
    const unsigned char *mask; /* (T, T) or NULL */
    int H, T;
    double *worst;   /* (items) largest |Σ_j att − 1| per item */
    int *fully;      /* (items) fully masked rows per item */
} softmax_ctx;

/* One row: the three passes of softmax_forward, exp in float32. Returns
 * |Σ_j a_j − 1|, or −1 if every key is masked (then a is all zeros). */
AV_SIMD_CLONES static double softmax_row(float *a, const float *s, const unsigned char *m, int T) {
    unsigned char any_masked = 0;
    for (int j = 0; m && j < T; j++) any_masked |= m[j];
    if (any_masked) /* masked keys at −∞ */
        for (int j = 0; j < T; j++) a[j] = m[j] ? -INFINITY : s[j];
    else if (a != s)
        memcpy(a, s, sizeof(float) * (size_t)T);
    float maxv = av_max_f(a, T);
    if (maxv == -INFINITY) {
        for (int j = 0; j < T; j++) a[j] = 0.0f;
        return -1.0;
    }
    for (int j = 0; j < T; j++) a[j] = a[j] == -INFINITY ? 0.0f : av_expf(a[j] - maxv);
    float inv = (float)(1.0 / av_sum_d(a, T));
    for (int j = 0; j < T; j++) a[j] *= inv;
    return fabs(av_sum_d(a, T) - 1.0);
}

/* att (rows, T) = softmax of s (rows, T), query rows i0..; returns the
 * fully masked rows, *worst the largest deviation of the others. */
static int softmax_rows(float *att, const float *s, const softmax_ctx *a, int i0, int rows, double *worst) {
    int T = a->T, fully = 0;
    *worst = 0.0;
    for (int r = 0; r < rows; r++) {
        const unsigned char *m = a->mask ? a->mask + (size_t)(i0 + r) * T : NULL;
        double dev = softmax_row(att + (size_t)r * T, s + (size_t)r * T, m, T);
        if (dev < 0) fully++;
        else if (dev > *worst) *worst = dev;
    }
    return fully;
}

/* Rows of one item; returns its fully masked rows, *worst its largest deviation. */
static int softmax_item(const softmax_ctx *a, int item, double *worst) {
    int i0, rows, h = item_rows(item, a->T, &i0, &rows);
    size_t off = ((size_t)h * a->T + i0) * a->T;
    return softmax_rows(a->att + off, a->scores + off, a, i0, rows, worst);
}

static void softmax_block(void *arg, int item) {
    const softmax_ctx *a = arg;
    a->fully[item] = softmax_item(a, item, &a->worst[item]);
}

int softmax_fast_forward(float *att, const float *scores, const unsigned char *mask, int H, int T,
                         double *worst_dev) {
    // scores, att are (H, T, T); mask is (T, T) or NULL
    int items = H * n_blocks(T), fully = 0;
    double worst = 0.0, w;
    softmax_ctx a = {att, scores, mask, H, T, malloc((size_t)items * sizeof(double)), malloc((size_t)items * sizeof(int))};
    if (a.worst && a.fully) {
        av_parallel_for(items, softmax_block, &a);
        for (int it = 0; it < items; it++) { /* max and sum: the same whatever the order */
            fully += a.fully[it];
            if (a.worst[it] > worst) worst = a.worst[it];
        }
    } else { /* out of memory for the per-item results: the items in order, here */
        for (int it = 0; it < items; it++) {
            fully += softmax_item(&a, it, &w);
            if (w > worst) worst = w;
        }
    }
    free(a.worst);
    free(a.fully);
    if (worst_dev) *worst_dev = worst;
    return fully;
}

/* ----------------------------------------------------------------------------
 * scores → softmax → A·V fused per (head, block of ROWS query rows) */

typedef struct {
    head_ctx scores, wsum;
    softmax_ctx softmax;
    double *sum, *m2; /* (items) Σ s and Σ (s − block mean)² of each block's scores */
} fused_ctx;

/* Σ s and M2 = Σ (s − block mean)² of one block's n >= 1 scores, in one pass
 * while they are in cache, shifted by the block's first score K so the sums
 * stay small: M2 = Σ(s − K)² − (Σ(s − K))² / n ("shifted data", Chan et al.
 * 1983). 16 lanes in a fixed order, as av_sum_d. */
AV_SIMD_CLONES static void block_stats(const float *s, size_t n, double *sum, double *m2) {
    double d1[16] = {0}, d2[16] = {0}, shift = s[0];
    size_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) {
            double d = (double)s[j + k] - shift;
            d1[k] += d;
            d2[k] += d * d;
        }
    for (; j < n; j++) d1[0] += (double)s[j] - shift, d2[0] += ((double)s[j] - shift) * ((double)s[j] - shift);
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) d1[k] += d1[k + w], d2[k] += d2[k + w];
    *sum = d1[0] + shift * (double)n;
    *m2 = d2[0] - d1[0] * d1[0] / (double)n;
    if (*m2 < 0) *m2 = 0;
}

/* dst = src (n floats) by non-temporal stores where the CPU has them (x86
 * SSE): the block goes to memory without first being read into the cache,
 * and it is not read again here. Elsewhere a plain copy. */
static void copy_streaming(float *dst, const float *src, size_t n) {
    size_t j = 0;
#if defined(__SSE__)
    for (; j < n && ((uintptr_t)(dst + j) & 15) != 0; j++) dst[j] = src[j];
    for (; j + 4 <= n; j += 4) _mm_stream_ps(dst + j, _mm_loadu_ps(src + j));
    _mm_sfence();
#endif
    memcpy(dst + j, src + j, (n - j) * sizeof(float));
}

/* One item: its scores, then its weights in their place, are made in a
 * scratch block that stays in cache (rows · T floats) and streamed to the
 * (H, T, T) tensors; without scratch memory, made there directly. */
static void fused_block(void *arg, int item) {
    fused_ctx *a = arg;
    int T = a->scores.T, i0, rows, h = item_rows(item, T, &i0, &rows);
    size_t off = ((size_t)h * T + i0) * T, n = (size_t)rows * T;
    float *scratch = malloc(n * sizeof(float)), *att = a->softmax.att + off;
    float *s = scratch ? scratch : a->scores.out + off, *p = scratch ? scratch : att;
    scores_rows(s, &a->scores, h, i0, rows);
    block_stats(s, n, &a->sum[item], &a->m2[item]);
    if (!isfinite(a->sum[item]) || !isfinite(a->m2[item])) { /* float32 overflow: the caller redoes it all */
        a->softmax.fully[item] = 0, a->softmax.worst[item] = 0.0;
        free(scratch);
        return;
    }
    if (scratch) copy_streaming(a->scores.out + off, s, n);
    a->softmax.fully[item] = softmax_rows(p, s, &a->softmax, i0, rows, &a->softmax.worst[item]);
    weighted_sum_rows(&a->wsum, p, h, i0, rows);
    if (scratch) copy_streaming(att, p, n);
    free(scratch);
}

/* mean and variance of all blocks from their (n, Σ, M2), in block order:
 * var = (Σ_b M2_b + Σ_b n_b (mean_b − mean)²) / n. */
static void combine_stats(const double *sum, const double *m2, int H, int T, double *mean, double *var) {
    int nb = n_blocks(T);
    double total = 0.0, n = (double)H * T * T, dev = 0.0;
    for (int it = 0; it < H * nb; it++) total += sum[it];
    *mean = total / n;
    for (int it = 0; it < H * nb; it++) {
        int i0 = (it % nb) * ROWS;
        double n_b = (double)(T - i0 < ROWS ? T - i0 : ROWS) * T, d = sum[it] / n_b - *mean;
        dev += m2[it] + n_b * d * d;
    }
    *var = dev / n;
}

av_status attention_blas_forward(float *scores, float *att, float *out, const float *q, const float *k,
                                 const float *v, const unsigned char *mask, int H, int T, int D, double scale,
                                 av_blas_stats *st) {
    // q, k, v are (H, T, D); out is (T, C = H·D); scores, att are (H, T, T); mask is (T, T) or NULL
    int items = H * n_blocks(T);
    fused_ctx a = {{scores, q, k, H, T, D, (float)scale, 0},
                   {out, att, v, H, T, D, 1.0f, 1},
                   {att, scores, mask, H, T, malloc((size_t)items * sizeof(double)), malloc((size_t)items * sizeof(int))},
                   malloc((size_t)items * sizeof(double)),
                   malloc((size_t)items * sizeof(double))};
    av_status rc = AV_ERUNTIME;
    if (a.softmax.worst && a.softmax.fully && a.sum && a.m2) {
        av_parallel_for(items, fused_block, &a);
        combine_stats(a.sum, a.m2, H, T, &st->mean, &st->var);
        st->fully_masked_rows = 0;
        st->worst_dev = 0.0;
        for (int it = 0; it < items; it++) { /* max and sum: the same whatever the order */
            st->fully_masked_rows += a.softmax.fully[it];
            if (a.softmax.worst[it] > st->worst_dev) st->worst_dev = a.softmax.worst[it];
        }
        rc = AV_OK;
    }
    free(a.softmax.worst), free(a.softmax.fully), free(a.sum), free(a.m2);
    return rc;
}

/* ----------------------------------------------------------------------------
 * mean and variance: two passes, blocks of STAT_BLOCK values per item */
enum { STAT_BLOCK = 1 << 16 };

typedef struct {
    const float *x;
    size_t n;
    int pass;     /* 0: Σx, 1: Σ(x − mean)² */
    double mean;
    double *part; /* (items) the block's sum (pass 1) or sum of squared deviations (pass 2) */
} stats_ctx;

static void stats_block(void *arg, int item) {
    stats_ctx *a = arg;
    size_t i0 = (size_t)item * STAT_BLOCK, i1 = i0 + STAT_BLOCK < a->n ? i0 + STAT_BLOCK : a->n;
    double s = 0.0;
    for (size_t i = i0; i < i1; i++) s += a->pass == 0 ? (double)a->x[i] : ((double)a->x[i] - a->mean) * ((double)a->x[i] - a->mean);
    a->part[item] = s;
}

void stats_parallel_forward(const float *x, size_t n, double *mean, double *var) {
    size_t items = (n + STAT_BLOCK - 1) / STAT_BLOCK;
    stats_ctx a = {x, n, 0, 0.0, items <= (size_t)1 << 30 ? malloc((items ? items : 1) * sizeof(double)) : NULL};
    if (!a.part || n == 0) { /* out of memory (or nothing to sum): the serial two passes */
        free(a.part);
        stats_forward(x, n, mean, var);
        return;
    }
    double sums[2];
    for (int pass = 0; pass < 2; pass++) {
        a.pass = pass;
        av_parallel_for((int)items, stats_block, &a);
        sums[pass] = 0.0;
        for (size_t it = 0; it < items; it++) sums[pass] += a.part[it];
        a.mean = sums[0] / (double)n;
    }
    free(a.part);
    *mean = sums[0] / (double)n;
    *var = sums[1] / (double)n;
}
