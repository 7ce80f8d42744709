/* parallel.c - av_parallel_for on POSIX threads (see parallel.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

static int n_threads; /* 0 = not chosen yet: the online CPUs */
static _Thread_local int inside_parallel;

void av_set_threads(int n) { n_threads = n < 1 ? 1 : n > AV_MAX_THREADS ? AV_MAX_THREADS : n; }

/* The CPUs this process may run on: its affinity mask (taskset, a container's cpuset), as nproc counts them;
 * the online CPUs when the mask cannot be read. `taskset -c 0 attnviz --kernel blas ...` said "2 threads"
 * and started 2, where nproc says 1 (a pass's report); in a container pinned to 4 CPUs of a 64-CPU host it
 * started 64. */
static long usable_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

int av_get_threads(void) {
    if (n_threads == 0) {
        long cpus = usable_cpus();
        av_set_threads(cpus < 1 ? 1 : (int)(cpus > AV_MAX_THREADS ? AV_MAX_THREADS : cpus));
    }
    return n_threads;
}

typedef struct {
    void (*fn)(void *ctx, int item);
    void *ctx;
    int n_items;
    atomic_int next; /* the next item nobody has taken yet */
} av_job;

static void *worker(void *arg) {
    av_job *job = arg;
    inside_parallel = 1;
    for (int item; (item = atomic_fetch_add(&job->next, 1)) < job->n_items;) job->fn(job->ctx, item);
    inside_parallel = 0;
    return NULL;
}

void av_parallel_for(int n_items, void (*fn)(void *ctx, int item), void *ctx) {
    int want = av_get_threads();
    if (want > n_items) want = n_items;
    if (want <= 1 || inside_parallel) {
        for (int item = 0; item < n_items; item++) fn(ctx, item);
        return;
    }
    av_job job = {.fn = fn, .ctx = ctx, .n_items = n_items};
    atomic_init(&job.next, 0);
    pthread_t tid[AV_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < want; t++) {
        if (pthread_create(&tid[started], NULL, worker, &job) != 0) break;
        started++;
    }
    worker(&job);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}
