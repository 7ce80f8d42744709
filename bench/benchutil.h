/* benchutil.h - what every `make bench` program shares: a monotonic clock, CPU
 * clocks, the median of a few timings, the load average, a child-process
 * runner (wall, CPU, peak RSS), and the machine's sgemm rate that attnviz's
 * figures are set beside. Header-only (static functions), included by the programs in bench/ only.
 *
 * The sgemm rate is OpenBLAS's cblas_sgemm on (n, n)·(n, n) float32 with
 * `threads` library threads, median of 5 runs, in GFLOP/s (2·n³ operations);
 * also one core's rate in CPU time, for figures taken on a busy machine.
 * attnviz's kernels run OpenBLAS single-threaded and split work themselves, so
 * the library is set back to 1 thread afterwards. */
#ifndef AV_BENCHUTIL_H
#define AV_BENCHUTIL_H

#include <cblas.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* CPU time of this process (every thread) in milliseconds. */
static inline double bench_process_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* User + system CPU time in an rusage (getrusage, wait4), milliseconds. */
static inline double bench_rusage_cpu_ms(const struct rusage *ru) {
    return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
}

/* The first line of /proc/loadavg ("0.52 0.61 0.70 1/230 4242": the 1, 5 and
 * 15-minute averages, ...) into line[0..n) without its newline, "?" when it
 * cannot be read; returns the 1-minute average, -1 when it cannot be read. */
static inline double bench_load_average(char *line, size_t n) {
    FILE *f = fopen("/proc/loadavg", "r");
    double load1 = -1;
    snprintf(line, n, "?");
    if (f && fgets(line, (int)n, f)) {
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "%lf", &load1) != 1) load1 = -1;
    }
    if (f) fclose(f);
    return load1;
}

/* One run of a child process: wall time, its user + system CPU time, its
 * peak resident memory (wait4 rusage), its exit code (-1 when it did not
 * exit normally or could not be waited for). */
typedef struct {
    double wall_ms, cpu_ms;
    long rss_kib;
    int code;
} bench_run;

/* Start argv (stdout to out_file, NULL: /dev/null), wait, and measure it. */
static inline bench_run bench_spawn_wait(char *const argv[], const char *out_file) {
    extern char **environ;
    bench_run r = {0, 0, 0, -1};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return r;
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_file ? out_file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    double t0 = bench_now_ms();
    pid_t pid;
    int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    struct rusage ru;
    if (err != 0 || wait4(pid, &status, 0, &ru) < 0) return r;
    r.wall_ms = bench_now_ms() - t0;
    r.cpu_ms = bench_rusage_cpu_ms(&ru);
    r.rss_kib = ru.ru_maxrss;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

/* The spawner: a small process forked by bench_spawner_start, before the
 * benchmark touches much memory, that starts every child for it. Two
 * reasons. fork copies the caller's page tables, which on a virtual machine
 * costs a large process 5-15 ms per child, time a user's shell does not spend
 * (measured: /bin/true from a process with 300 MiB touched, fork + exec 13.6
 * ms, posix_spawn 2.5 ms). posix_spawn from the large process instead
 * reports the wrong peak memory: its child runs on the parent's memory map
 * until exec, and Linux counts that map's high-water mark as the child's
 * ru_maxrss (every child then "used" the benchmark's own peak). From the
 * small spawner both are right. Requests and answers go through two pipes. */
static int bench_sp_req = -1, bench_sp_resp = -1;

static inline int bench_write_all(int fd, const void *p, size_t n) {
    for (const char *c = p; n > 0;) {
        ssize_t w = write(fd, c, n);
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

static inline int bench_read_all(int fd, void *p, size_t n) {
    for (char *c = p; n > 0;) {
        ssize_t r = read(fd, c, n);
        if (r <= 0) return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

/* A string on fd: its length (size_t, SIZE_MAX for NULL) and its bytes. */
static inline int bench_send_str(int fd, const char *s) {
    size_t n = s ? strlen(s) : SIZE_MAX;
    return bench_write_all(fd, &n, sizeof n) || (s && bench_write_all(fd, s, n)) ? -1 : 0;
}

static inline int bench_recv_str(int fd, char **s) {
    size_t n;
    *s = NULL;
    if (bench_read_all(fd, &n, sizeof n)) return -1;
    if (n == SIZE_MAX) return 0;
    if (!(*s = malloc(n + 1)) || bench_read_all(fd, *s, n)) return -1;
    (*s)[n] = 0;
    return 0;
}

/* Call first in main. If the spawner cannot start, children are started
 * from this process (posix_spawn; the peak memory is then this process's). */
static inline void bench_spawner_start(void) {
    int req[2], resp[2];
    if (pipe(req) || pipe(resp)) return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return;
    if (pid == 0) { /* the spawner: argc, argv, out_file in; a bench_run out; until EOF */
        close(req[1]), close(resp[0]);
        for (;;) {
            size_t argc;
            if (bench_read_all(req[0], &argc, sizeof argc)) _exit(0);
            char **argv = calloc(argc + 1, sizeof *argv), *out = NULL;
            for (size_t k = 0; argv && k < argc; k++)
                if (bench_recv_str(req[0], &argv[k])) _exit(1);
            if (!argv || bench_recv_str(req[0], &out)) _exit(1);
            bench_run r = bench_spawn_wait(argv, out);
            if (bench_write_all(resp[1], &r, sizeof r)) _exit(1);
            for (size_t k = 0; k < argc; k++) free(argv[k]);
            free(argv), free(out);
        }
    }
    close(req[0]), close(resp[1]);
    bench_sp_req = req[1], bench_sp_resp = resp[0];
}

/* Runs argv (argv[0] a path, as execv takes it) with its stdout to out_file
 * (NULL: /dev/null) and waits for it: wall time, CPU time, peak RSS, exit
 * code (-1 when it did not exit normally or could not be started). */
static inline bench_run bench_run_command(char *const argv[], const char *out_file) {
    fflush(stdout);
    if (bench_sp_req < 0) return bench_spawn_wait(argv, out_file);
    bench_run r = {0, 0, 0, -1};
    size_t argc = 0;
    while (argv[argc]) argc++;
    int bad = bench_write_all(bench_sp_req, &argc, sizeof argc);
    for (size_t k = 0; !bad && k < argc; k++) bad = bench_send_str(bench_sp_req, argv[k]);
    if (bad || bench_send_str(bench_sp_req, out_file) || bench_read_all(bench_sp_resp, &r, sizeof r))
        return (bench_run){0, 0, 0, -1};
    return r;
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
