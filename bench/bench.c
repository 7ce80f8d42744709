/* bench.c - speed and memory figures for attnviz (`make bench`). Prints, it
 * does not judge: targets belong here, not in timed tests.
 *
 *   1. the attention layer alone (av_model_forward) at several sizes,
 *      median of repeated runs, in milliseconds;
 *   2. the whole command (the demo, and a 200-token paragraph with figures)
 *      as a child process: wall time and peak resident memory (wait4 rusage).
 * The reference point: matplotlib needed 2.8 s and 285 MiB to draw the same
 * 8-head figures in Python (shared/reference/README.md). */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nn/model.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench_forward(int T, int C, int H, av_positions pos, int reps) {
    av_config cfg = {.T = T, .n_real = T, .C = C, .H = H, .positions = pos, .rope_base = 10000, .scale = 1, .seed = 42};
    av_model m;
    av_err err;
    if (av_model_init(&m, &cfg, &err)) { printf("  init failed: %s\n", err.msg); return; }
    char **toks = malloc((size_t)T * sizeof *toks);
    char buf[32];
    for (int t = 0; t < T; t++) { snprintf(buf, sizeof buf, "tok%d", t % 50); toks[t] = strdup(buf); }
    av_model_seed(&m, (const char *const *)toks);
    double times[64];
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        av_model_forward(&m, &err);
        times[r] = now_ms() - t0;
    }
    qsort(times, (size_t)reps, sizeof times[0], cmp);
    printf("  forward  T=%-4d d_model=%-5d heads=%-3d %-10s  median %9.3f ms  (min %.3f, %d runs)\n", T, C, H,
           pos == AV_POS_ROPE ? "rope" : pos == AV_POS_NONE ? "none" : "sinusoidal", times[reps / 2], times[0], reps);
    for (int t = 0; t < T; t++) free(toks[t]);
    free(toks);
    av_model_free(&m);
}

static void bench_command(const char *label, char *const argv[]) {
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        dup2(devnull, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    double ms = now_ms() - t0;
    printf("  command  %-44s %8.1f ms wall, peak RSS %6.1f MiB, exit %d\n", label, ms, ru.ru_maxrss / 1024.0,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv) {
    const char *bin = argc > 1 ? argv[1] : "./attnviz";
    printf("attnviz benchmark (one core; figures vary with the machine)\n");
    printf("the attention layer alone:\n");
    bench_forward(4, 512, 8, AV_POS_SINUSOIDAL, 31);
    bench_forward(4, 512, 8, AV_POS_ROPE, 31);
    bench_forward(64, 512, 8, AV_POS_SINUSOIDAL, 11);
    bench_forward(200, 64, 4, AV_POS_SINUSOIDAL, 11);
    bench_forward(512, 512, 8, AV_POS_SINUSOIDAL, 3);
    bench_forward(512, 4096, 64, AV_POS_NONE, 1);
    printf("the whole command (trace + figures), as a child process:\n");
    char out[] = "/tmp/attnviz_benchXXXXXX";
    if (!mkdtemp(out)) return 1;
    char *demo[] = {(char *)bin, "--heads", "8", "-o", out, "I love deep learning", NULL};
    bench_command("--heads 8 \"I love deep learning\" (9 PNGs)", demo);
    char para[4096] = "";
    for (int i = 0; i < 20; i++) strcat(para, "The model reads every word and weighs the others. ");
    char *big[] = {(char *)bin, "--d-model", "64", "--heads", "4", "-o", out, para, NULL};
    bench_command("200 tokens, d_model 64, 4 heads (5 PNGs)", big);
    char *noplot[] = {(char *)bin, "--heads", "8", "--no-plot", "I love deep learning", NULL};
    bench_command("--heads 8 --no-plot (trace only)", noplot);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd)) {}
    printf("reference: matplotlib drew the 8-head figures in 2.8 s with 285 MiB (shared/reference/README.md)\n");
    return 0;
}
