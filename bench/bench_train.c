/* bench_train.c - training figures for `make bench` (issue 12). Prints, it
 * does not judge; the goals are printed beside the numbers.
 *
 *   1. training steps per second of the default `--train reverse` model and
 *      batch (2 layers, 4 heads, d_model 64, batch 32, AdamW), on 1 and 2
 *      threads, median of 5 blocks; beside the same model, batch and
 *      optimiser in torch on the CPU (bench/train_torch.py) in the same run,
 *      and the machine's sgemm rate (OpenBLAS, 256x256x256) for scale;
 *   2. each task with its defaults through the real command: wall time,
 *      held-out sequence accuracy, and the best head's attention on target
 *      at step 0 and at the end (goals: reverse and sort >= 99 %, induction
 *      >= 95 %, attention from about 1/T to >= 0.9, reverse <= 60 s).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/parallel.h"
#include "nn/train.h"

#include "benchutil.h"

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Median steps/s (wall) over 5 blocks of `block` steps of the default reverse
 * model; *cpu_ms gets the median CPU milliseconds per step (all threads). */
static double c_steps_per_s(int threads, int block, av_kernel kernel, double *cpu_ms) {
    av_gpt2_config cfg;
    av_gpt2_config_defaults(&cfg);
    cfg.kernel = kernel;
    cfg.n_layer = 2; cfg.n_head = 4; cfg.n_embd = 64; cfg.n_positions = AV_TASK_MAX_T;
    cfg.vocab_size = AV_TOY_VOCAB; cfg.layer_norm_epsilon = 1e-5;
    av_adamw opt = {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9, .weight_decay = 0.01, .max_norm = 1.0,
                    .schedule = AV_SCHED_COSINE, .lr_max = 3e-3, .lr_min = 3e-4, .warmup = 75, .steps = 5 * block,
                    .d_model = 64};
    av_trainer tr;
    av_err err;
    av_set_threads(threads);
    if (av_trainer_init(&tr, &cfg, &opt, 42, &err)) { printf("  %s\n", err.msg); return 0; }
    av_rng r;
    av_rng_seed(&r, 42);
    av_task_example batch[32];
    double rates[5], cpu[5], loss;
    for (int k = -1; k < 5; k++) { /* block -1 warms up */
        double t0 = (bench_now_ms() / 1e3), c0 = cpu_s();
        for (int s = 0; s < block; s++) {
            for (int b = 0; b < 32; b++) av_task_sample(&batch[b], AV_TASK_REVERSE, &r);
            if (av_trainer_step(&tr, batch, 32, &loss, &err)) { printf("  %s\n", err.msg); return 0; }
        }
        if (k >= 0) { rates[k] = block / ((bench_now_ms() / 1e3) - t0); cpu[k] = (cpu_s() - c0) / block * 1e3; }
    }
    av_trainer_free(&tr);
    qsort(rates, 5, sizeof rates[0], bench_cmp);
    qsort(cpu, 5, sizeof cpu[0], bench_cmp);
    *cpu_ms = cpu[2];
    return rates[2];
}

/* Run the command, keep its stdout's last snapshot line and step 0's line. */
static void bench_task(const char *bin, const char *task, const char *goal) {
    char dir[] = "/tmp/attnviz_bench_trainXXXXXX", cmd[512], line[1024], first[1024] = "", last[1024] = "";
    if (!mkdtemp(dir)) return;
    snprintf(cmd, sizeof cmd, "%s --train %s -o %s/m 2>&1", bin, task, dir);
    double t0 = (bench_now_ms() / 1e3);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        if (strstr(line, "held-out loss")) {
            if (!first[0]) strcpy(first, line);
            strcpy(last, line);
        }
    int st = p ? pclose(p) : -1;
    double wall = (bench_now_ms() / 1e3) - t0;
    double acc = -1, b0 = -1, b1 = -1;
    char head[32] = "?";
    const char *a = strstr(last, "accuracy"), *bs = strstr(last, "best "), *f0 = strstr(first, "best ");
    if (a) sscanf(a, "accuracy %lf", &acc);
    if (bs) sscanf(bs, "best %31s %lf", head, &b1);
    if (f0) sscanf(f0, "best %*s %lf", &b0);
    printf("  %-10s exit %d, %6.1f s wall, held-out accuracy %5.1f %%, best head %s on target %.2f at step 0 -> %.2f"
           "  (goal: %s)\n", task, WIFEXITED(st) ? WEXITSTATUS(st) : -1, wall, acc, head, b0, b1, goal);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
}

int main(int argc, char **argv) {
    const char *bin = argc > 1 ? argv[1] : "./attnviz";
    FILE *la = fopen("/proc/loadavg", "r");
    char load[64] = "?";
    if (la) { if (!fgets(load, sizeof load, la)) strcpy(load, "?\n"); fclose(la); }
    printf("attnviz training benchmark (load average now: %s", load);
    printf("machine: sgemm 256^3 %.1f GFLOP/s (OpenBLAS, one thread, median of 5)\n", bench_sgemm_gflops(256, 1));
    printf("training steps/s, default reverse model (2 layers, 4 heads, d_model 64, batch 32, AdamW):\n");
    for (int t = 1; t <= 2; t++) {
        double ms, r = c_steps_per_s(t, 20, AV_KERNEL_BLAS, &ms);
        printf("  attnviz    %d thread%s %6.1f steps/s wall, %6.1f CPU ms/step (median of 5 blocks of 20 steps)\n", t,
               t == 1 ? " " : "s", r, ms);
    }
    fflush(stdout);
    for (int t = 1; t <= 2; t++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 bench/train_torch.py 100 2 4 64 32 %d 2>/dev/null || "
                 "echo 'torch: not available (needs /usr/bin/python3 with python3-torch)'", t);
        printf("  ");
        fflush(stdout);
        if (system(cmd)) {}
    }
    printf("  goal: attnviz >= 3x torch's steps/s (on a busy machine compare the CPU ms/step)\n");
    printf("each task with its defaults, the whole command (training, snapshots, figures, GIF):\n");
    fflush(stdout);
    bench_task(bin, "reverse", ">= 99 %, attention >= 0.9, <= 60 s on 2 cores");
    bench_task(bin, "sort", ">= 99 %, attention >= 0.9");
    bench_task(bin, "induction", ">= 95 %, attention >= 0.9");
    return 0;
}
