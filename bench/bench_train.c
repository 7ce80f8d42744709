/* bench_train.c - training figures for `make bench` (issue 12). Prints, it
 * does not judge; the goals are printed beside the numbers, with the ratios.
 *
 *   1. training steps per second of the default `--train reverse` model and
 *      batch (2 layers, 4 heads, d_model 64, batch 32, AdamW), median of 5
 *      blocks: attnviz's packed sgemm path on 1 thread and on every core
 *      (its default), its reference loops on 1 thread; beside the same model,
 *      batch and optimiser in torch on the CPU (bench/train_torch.py) in the
 *      same run, with torch's default threads (what a learner gets), 1
 *      thread and 2 threads; and the machine's sgemm rate for scale;
 *   2. each task with its defaults through the real command: wall and CPU
 *      time, held-out sequence accuracy, and the best head's attention on
 *      target at step 0 and at the end;
 *   3. the goals: attnviz (default threads) >= 3x torch (default threads) in
 *      steps/s, also as CPU time per step on 1 thread each (on a busy
 *      machine wall time depends on the other processes; CPU time much
 *      less); the default reverse run <= 60 s wall; the accuracies.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/parallel.h"
#include "nn/train.h"

#include "benchutil.h"

typedef struct {
    double steps_s, cpu_ms; /* median steps/s (wall), median CPU ms per step (all threads) */
    int threads;
} rate;

/* The 1-minute load average as /proc/loadavg writes it, "?" when unreadable. */
static void load_average(char *out, size_t n) {
    bench_load_average(out, n);
    out[strcspn(out, " ")] = 0;
}

/* 5 blocks of `block` steps of the default reverse model (after one block
 * of warm-up) with `kernel` on `threads` threads. */
static rate c_rate(int threads, av_kernel kernel, int block) {
    av_gpt2_config cfg;
    av_gpt2_config_defaults(&cfg);
    cfg.kernel = kernel;
    cfg.n_layer = 2; cfg.n_head = 4; cfg.n_embd = 64; cfg.n_positions = AV_TASK_MAX_T;
    cfg.vocab_size = AV_TOY_VOCAB; cfg.layer_norm_epsilon = 1e-5;
    av_adamw opt = {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9, .weight_decay = 0.01, .max_norm = 1.0,
                    .schedule = AV_SCHED_COSINE, .lr_max = 3e-3, .lr_min = 3e-4, .warmup = 75, .steps = 6 * block,
                    .d_model = 64};
    av_trainer tr;
    av_err err;
    rate out = {0, 0, threads};
    av_set_threads(threads);
    if (av_trainer_init(&tr, &cfg, &opt, 42, &err)) { printf("  %s\n", err.msg); return out; }
    av_rng r;
    av_rng_seed(&r, 42);
    av_task_example batch[32];
    double rates[5], cpu[5], loss;
    for (int k = -1; k < 5; k++) { /* block -1 warms up */
        double t0 = bench_now_ms(), c0 = bench_process_cpu_ms();
        for (int s = 0; s < block; s++) {
            for (int b = 0; b < 32; b++) av_task_sample(&batch[b], AV_TASK_REVERSE, &r);
            if (av_trainer_step(&tr, batch, 32, &loss, &err)) { printf("  %s\n", err.msg); return out; }
        }
        if (k >= 0) { rates[k] = block / ((bench_now_ms() - t0) / 1e3); cpu[k] = (bench_process_cpu_ms() - c0) / block; }
    }
    av_trainer_free(&tr);
    out.steps_s = bench_median(rates, 5);
    out.cpu_ms = bench_median(cpu, 5);
    return out;
}

/* bench/train_torch.py with `threads` (0 = torch's default); echoes its line
 * and reads the threads it used, steps/s and CPU ms/step from it. 0 if torch
 * is not there. */
static int torch_rate(int threads, int steps, rate *out) {
    char cmd[256], line[512] = "";
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 bench/train_torch.py %d 2 4 64 32 %d 2>/dev/null", steps, threads);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) printf("  %s", line);
    int ok = p && pclose(p) == 0;
    const char *t = strstr(line, " thread"), *colon = strchr(line, ':');
    while (t && t > line && t[-1] != ' ') t--;
    ok = ok && t && colon && sscanf(t, "%d", &out->threads) == 1 &&
         sscanf(colon + 1, "%lf steps/s wall, %lf CPU ms/step", &out->steps_s, &out->cpu_ms) == 2;
    if (!ok) printf("  torch: not available (needs /usr/bin/python3 with python3-torch)\n");
    return ok;
}

/* Runs one task with its defaults; *acc is the final held-out accuracy (%),
 * *head the best head's attention on target at the end (-1 if not printed). */
static double bench_task(const char *bin, const char *task, double *acc, double *head) {
    char dir[] = "/tmp/attnviz_bench_trainXXXXXX", cmd[512], line[1024], first[1024] = "", last[1024] = "";
    *acc = -1;
    if (!mkdtemp(dir)) return -1;
    snprintf(cmd, sizeof cmd, "%s --train %s -o %s/m 2>&1", bin, task, dir);
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    double t0 = bench_now_ms();
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        if (strstr(line, "held-out loss")) {
            if (!first[0]) strcpy(first, line);
            strcpy(last, line);
        }
    int st = p ? pclose(p) : -1;
    double wall = (bench_now_ms() - t0) / 1e3;
    getrusage(RUSAGE_CHILDREN, &r1);
    double cpu = (bench_rusage_cpu_ms(&r1) - bench_rusage_cpu_ms(&r0)) / 1e3;
    double b0 = -1, b1 = -1;
    int hl = -1, hh = -1; /* the snapshot line ends "best L<l> H<h> 0.53" */
    const char *a = strstr(last, "accuracy"), *bs = strstr(last, "best "), *f0 = strstr(first, "best ");
    if (a) sscanf(a, "accuracy %lf", acc);
    if (bs) sscanf(bs, "best L%d H%d %lf", &hl, &hh, &b1);
    if (f0) sscanf(f0, "best L%*d H%*d %lf", &b0);
    *head = b1;
    printf("  %-10s exit %d, %5.1f s wall, %5.1f s CPU, held-out accuracy %5.1f %%, best head L%d H%d on target "
           "%.2f at step 0 -> %.2f\n", task, WIFEXITED(st) ? WEXITSTATUS(st) : -1, wall, cpu, *acc, hl, hh, b0, b1);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
    return wall;
}

static const char *verdict(int met) { return met ? "met" : "NOT met"; }

int main(int argc, char **argv) {
    bench_spawner_start(); /* first, while this process is small: benchutil.h */
    const char *bin = argc > 1 ? argv[1] : "./attnviz";
    char load0[32], load1[32];
    load_average(load0, sizeof load0);
    int cores = av_get_threads();
    printf("attnviz training benchmark (1-minute load average at the start: %s, %d cores)\n", load0, cores);
    printf("machine: sgemm 256^3 %.1f GFLOP/s (OpenBLAS, one thread, median of 5)\n", bench_sgemm_gflops(256, 1));
    printf("training steps/s, default reverse model (2 layers, 4 heads, d_model 64, batch 32, AdamW, clipping):\n");
    rate c1 = c_rate(1, AV_KERNEL_BLAS, 20), cn = c_rate(cores, AV_KERNEL_BLAS, 20), cref = c_rate(1, AV_KERNEL_REFERENCE, 10);
    const char *fmt = "  attnviz %-28s %d thread%s %6.1f steps/s wall, %6.1f CPU ms/step (median of 5 blocks of %d steps)\n";
    printf(fmt, "packed sgemm (--train),", 1, ":  ", c1.steps_s, c1.cpu_ms, 20);
    printf(fmt, "packed sgemm (--train),", cores, "s:", cn.steps_s, cn.cpu_ms, 20);
    printf(fmt, "reference loops,", 1, ":  ", cref.steps_s, cref.cpu_ms, 10);
    fflush(stdout);
    rate tdef, t1, t2;
    int have_torch = torch_rate(0, 100, &tdef) && torch_rate(1, 100, &t1) && torch_rate(2, 60, &t2);
    printf("  (torch pads each batch to its longest sequence, as one writes it; attnviz packs the sequences)\n");
    printf("each task with its defaults, the whole command (training, snapshots, figures, GIF):\n");
    fflush(stdout);
    double acc_r, acc_s, acc_i, head_r, head_s, head_i;
    double wall_r = bench_task(bin, "reverse", &acc_r, &head_r);
    bench_task(bin, "sort", &acc_s, &head_s);
    bench_task(bin, "induction", &acc_i, &head_i);
    load_average(load1, sizeof load1);
    printf("goals (load average %s at the start, %s at the end):\n", load0, load1);
    if (have_torch) {
        double r = cn.steps_s / tdef.steps_s, rc = t1.cpu_ms / c1.cpu_ms;
        printf("  steps/s, attnviz (%d threads, its default) / torch (its default, %d thread%s): %.1fx   goal >= 3x: %s\n",
               cores, tdef.threads, tdef.threads == 1 ? "" : "s", r, verdict(r >= 3));
        printf("  the same as CPU time per step, torch / attnviz, 1 thread each: %.1fx (CPU time: less affected by other processes than wall time, not immune)\n", rc);
        printf("  steps/s, attnviz (%d threads) / torch (2 threads): %.1fx\n", cores, cn.steps_s / t2.steps_s);
    }
    printf("  default --train reverse: %.1f s wall   goal <= 60 s on 2 cores: %s\n", wall_r, verdict(wall_r <= 60));
    printf("  held-out sequence accuracy: reverse %.1f %%, sort %.1f %% (goal >= 99 %%: %s, %s); induction %.1f %% "
           "(goal >= 95 %%: %s)\n", acc_r, acc_s, verdict(acc_r >= 99), verdict(acc_s >= 99), acc_i, verdict(acc_i >= 95));
    printf("  the best head's attention on target at the end: reverse %.2f, sort %.2f, induction %.2f (goal >= 0.9: %s, "
           "%s, %s; step 0 on each task's line)\n", head_r, head_s, head_i, verdict(head_r >= 0.9), verdict(head_s >= 0.9),
           verdict(head_i >= 0.9));
    return 0;
}
