/* bench.c - speed and memory figures for attnviz (`make bench`). Prints, it
 * does not judge: targets belong here, not in timed tests.
 *
 *   1. the attention layer alone (av_model_forward) at several sizes,
 *      median of repeated runs, in milliseconds;
 *   2. the whole command (the demo, and a 200-token paragraph with figures)
 *      as a child process: wall time and peak resident memory (wait4 rusage);
 *   3. GPT-2's byte-level BPE on the real vocabulary (tests/data/gpt2/):
 *      load time, a sentence cold (empty word cache) and warm, and the merge
 *      kernel (heap) beside GPT-2's plain loop on one long piece.
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
#include "text/bpe.h"

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

/* Median of reps timings of f(b, arg) in ms. */
static double median_ms(int reps, void (*f)(av_bpe *, const char *), av_bpe *b, const char *arg) {
    double t[101];
    if (reps > 101) reps = 101;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        f(b, arg);
        t[r] = now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    return t[reps / 2];
}

static void encode_once(av_bpe *b, const char *s) {
    int32_t *ids;
    size_t n;
    av_err err;
    if (av_bpe_encode(b, s, strlen(s), &ids, &n, &err) == AV_OK) free(ids);
}

static void merge_long(av_bpe *b, const char *kernel) { /* one 4,000-byte piece of letters */
    static int32_t sym[4000];
    size_t n = 4000;
    av_err err;
    unsigned seed = 1;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        sym[i] = av_bpe_find(b, "etaoinshrdlu" + (seed >> 16) % 12, 1);
    }
    if (kernel[0] == 'r') av_bpe_merge_piece_ref(b, sym, &n, &err);
    else av_bpe_merge_piece(b, sym, &n, &err);
}

static void bench_bpe(const char *dir) {
    char cmd[512], v[300], m[300];
    snprintf(cmd, sizeof cmd, "gzip -dc tests/data/gpt2/vocab.json.gz > '%s/vocab.json' && "
             "gzip -dc tests/data/gpt2/merges.txt.gz > '%s/merges.txt'", dir, dir);
    if (system(cmd) != 0) { printf("  (tests/data/gpt2 not found: run from the source tree)\n"); return; }
    snprintf(v, sizeof v, "%s/vocab.json", dir);
    snprintf(m, sizeof m, "%s/merges.txt", dir);
    av_bpe *b;
    av_err err;
    double t0 = now_ms();
    if (av_bpe_load(&b, v, m, &err) != AV_OK) { printf("  load failed: %s\n", err.msg); return; }
    printf("  load vocab.json + merges.txt (50,257 tokens, 50,000 merges)   %9.3f ms\n", now_ms() - t0);
    const char *s = "The animal didn't cross the street because it was too tired.";
    t0 = now_ms();
    encode_once(b, s);
    printf("  encode 62-byte sentence (13 tokens), cold word cache         %9.3f ms\n", now_ms() - t0);
    printf("  the same, warm (median of 101)                               %9.4f ms\n", median_ms(101, encode_once, b, s));
    double ref = median_ms(3, merge_long, b, "ref"), fast = median_ms(3, merge_long, b, "heap");
    printf("  merge one 4,000-byte piece: GPT-2's loop %.3f ms, heap %.3f ms (%.1fx)\n", ref, fast, ref / fast);
    av_bpe_free(b);
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
    printf("GPT-2 byte-level BPE (text/bpe.h) on the real vocabulary:\n");
    bench_bpe(out);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd)) {}
    printf("reference: matplotlib drew the 8-head figures in 2.8 s with 285 MiB (shared/reference/README.md)\n");
    return 0;
}
