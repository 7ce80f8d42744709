/* parallel.h - a parallel for-loop over numbered work items, on POSIX threads.
 *
 * Usage:
 *   static void row_block(void *ctx, int item) { ... work on item ... }
 *   av_parallel_for(n_items, row_block, &ctx);    // returns when all are done
 *
 * Data contract: items must be independent (each writes its own part of the
 * output) and an item's result must not depend on which thread runs it. Then
 * the result is bit-identical whatever the thread count, because the split
 * into items never depends on it: callers cut work into fixed-size items
 * (one head, 64 query rows), and threads only pick the next free item.
 * fn must not call av_parallel_for itself (nested calls run inline).
 *
 * The thread count defaults to the CPUs the process may run on (its
 * affinity mask, as nproc(1) counts them; at most AV_MAX_THREADS);
 * av_set_threads changes it for the process (1 = no extra threads).
 * Non-goals: a thread pool, work stealing, NUMA. Threads are started per
 * call (tens of microseconds), so callers parallelise only loops of at least
 * a few milliseconds.
 */
#ifndef AV_PARALLEL_H
#define AV_PARALLEL_H

#define AV_MAX_THREADS 64

/* Set the number of threads av_parallel_for uses, clamped to 1..AV_MAX_THREADS. */
void av_set_threads(int n);

/* The number of threads av_parallel_for uses. */
int av_get_threads(void);

/* Run fn(ctx, item) for item = 0 .. n_items-1, on up to av_get_threads()
 * threads, the calling thread included. If a thread cannot be started, the
 * threads already running (at least the caller) do all the items. */
void av_parallel_for(int n_items, void (*fn)(void *ctx, int item), void *ctx);

#endif
