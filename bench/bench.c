/* bench.c - speed and memory figures for attnviz (`make bench`). Prints, it
 * does not judge: targets belong here, not in timed tests.
 *
 * Every goal of issue 13 is printed beside what it is compared with, measured
 * in the same run:
 *   - the machine's sgemm rate: cblas_sgemm (2048)^3 on every core, median
 *     of 5; "sgemm time" of a run = its floating-point operations / that rate;
 *   - torch 1.13 nn.MultiheadAttention (bench/torch_bench.py), when
 *     /usr/bin/python3 can import torch;
 *   - whole commands as child processes: wall time (median of runs) and peak
 *     resident memory (wait4 rusage).
 * A forward pass of the layer does 8·T·C² (four projections) + 4·T²·C
 * (Q·Kᵀ and A·V over all heads) floating-point operations.
 * The torch-plus-matplotlib figure script is not rerun: its 2.8 s for the
 * demo's figures is quoted from the README.
 * Also GPT-2's byte-level BPE on the real vocabulary (tests/data/gpt2/):
 * load time, a sentence cold (empty word cache) and warm, and the merge
 * kernel (heap) beside GPT-2's plain loop on one long piece. */

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/parallel.h"
#include "nn/attention_blas.h"
#include "nn/model.h"
#include "render/pngout.h"
#include "text/bpe.h"

#include "benchutil.h"

/* ---------------------------------------------------------------------------- the machine's sgemm rate */

static double sgemm_gflops(void) {
    printf("OpenBLAS kernels: %s, %d threads\n", av_blas_core(), av_get_threads());
    return bench_sgemm_gflops(2048, av_get_threads()); /* the library's own threads, for the machine's rate */
}

static double flops_forward(int T, int C) { return 8.0 * T * C * C + 4.0 * (double)T * T * C; }

/* ---------------------------------------------------------------------------- the layer in process */

/* Median wall time of `runs` forwards (ms); *cpu_out (may be NULL) the median CPU time on all threads. */
static double forward_ms(int T, int C, int H, av_kernel kernel, int runs, double *cpu_out) {
    av_config cfg = {.T = T, .n_real = T, .C = C, .H = H, .positions = AV_POS_SINUSOIDAL, .rope_base = 10000,
                     .scale = 1, .kernel = kernel, .seed = 42};
    av_model m;
    av_err err;
    if (av_model_init(&m, &cfg, &err)) {
        printf("  init failed: %s\n", err.msg);
        return -1;
    }
    char **toks = malloc((size_t)T * sizeof *toks);
    for (int t = 0; t < T; t++) {
        toks[t] = malloc(16);
        snprintf(toks[t], 16, "tok%d", t % 997);
    }
    av_model_seed(&m, (const char *const *)toks);
    double t[16], cpu[16];
    for (int r = 0; r < runs && r < 16; r++) {
        double t0 = bench_now_ms(), c0 = bench_process_cpu_ms();
        if (av_model_forward(&m, &err)) printf("  forward failed: %s\n", err.msg);
        t[r] = bench_now_ms() - t0;
        cpu[r] = bench_process_cpu_ms() - c0;
    }
    for (int i = 0; i < T; i++) free(toks[i]);
    free(toks);
    av_model_free(&m);
    int n = runs < 16 ? runs : 16;
    double wall = bench_median(t, n), cpu_med = bench_median(cpu, n);
    if (cpu_out) *cpu_out = cpu_med;
    printf("  T=%d %s: %.1f ms wall, %.1f ms CPU on all threads (medians of %d)\n", T,
           kernel == AV_KERNEL_FLASH ? "flash" : kernel == AV_KERNEL_BLAS ? "blas, weights kept" : "reference", wall,
           cpu_med, n);
    return wall;
}

/* ---------------------------------------------------------------------------- torch, when present */

typedef struct {
    int T;
    double ms;
} torch_row;

/* Runs bench/torch_bench.py for the given T; returns how many rows it read. */
static int torch_times(torch_row *rows, int n) {
    if (system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) return 0;
    char cmd[256] = "/usr/bin/python3 bench/torch_bench.py";
    for (int i = 0; i < n; i++) snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %d", rows[i].T);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    char line[256];
    int got = 0;
    while (fgets(line, sizeof line, p)) {
        int T;
        double ms;
        if (sscanf(line, "torch T=%d median_ms=%lf", &T, &ms) == 2)
            for (int i = 0; i < n; i++)
                if (rows[i].T == T) rows[i].ms = ms, got++;
        fputs(line, stdout);
    }
    pclose(p);
    return got;
}

/* ---------------------------------------------------------------------------- whole commands */

typedef struct {
    double ms;      /* median wall time */
    double cpu_ms;  /* user + system CPU time of the run with the median wall time */
    double rss_mib; /* peak resident memory of the last run */
    int code;
} cmd_result;

/* Runs of each short command (the classroom command, --no-plot, --version,
 * /bin/true): 21, so that the median moves little when a few runs meet
 * another process on this shared 2-core VM (with 9, two runs of the same
 * binary a minute apart gave 27.7 and 29.3 ms). */
enum { CMD_RUNS_MAX = 32, SHORT_RUNS = 21 };

static cmd_result run_command(char *const argv[], int runs) {
    cmd_result r = {0, 0, 0, -1};
    double t[CMD_RUNS_MAX], cpu[CMD_RUNS_MAX];
    for (int k = 0; k < runs && k < CMD_RUNS_MAX; k++) {
        bench_run b = bench_run_command(argv, NULL);
        t[k] = b.wall_ms;
        cpu[k] = b.cpu_ms;
        r.rss_mib = b.rss_kib / 1024.0;
        r.code = b.code;
    }
    int n = runs < CMD_RUNS_MAX ? runs : CMD_RUNS_MAX, mid = 0;
    double sorted[CMD_RUNS_MAX];
    memcpy(sorted, t, sizeof(double) * (size_t)n);
    r.ms = bench_median(sorted, n);
    for (int k = 0; k < n; k++)
        if (t[k] == r.ms) mid = k;
    r.cpu_ms = cpu[mid];
    return r;
}

/* A text of exactly n_tokens tokens: the words of docs/paragraph.txt (real,
 * varied sentences) with their punctuation dropped, so each word is one
 * token, cycled. */
static char *paragraph_tokens(int n_tokens) {
    FILE *f = fopen("docs/paragraph.txt", "r");
    char base[4096];
    size_t len = f ? fread(base, 1, sizeof base - 1, f) : 0;
    if (f) fclose(f);
    base[len] = 0;
    char *words[512];
    int n_words = 0;
    for (char *w = strtok(base, " \n"); w && n_words < 512; w = strtok(NULL, " \n")) {
        char *o = w;
        for (char *c = w; *c; c++)
            if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')) *o++ = *c;
        *o = 0;
        if (*w && !strchr(w, '\'')) words[n_words++] = w;
    }
    if (!n_words) words[n_words++] = "word";
    size_t cap = (size_t)n_tokens * 16 + 1, at = 0;
    char *s = malloc(cap);
    for (int k = 0; k < n_tokens; k++) at += (size_t)snprintf(s + at, cap - at, "%s%s", k ? " " : "", words[k % n_words]);
    return s;
}

/* Median of reps timings of f(b, arg) in ms. */
static double median_ms(int reps, void (*f)(av_bpe *, const char *), av_bpe *b, const char *arg) {
    double t[101];
    if (reps > 101) reps = 101;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ms();
        f(b, arg);
        t[r] = bench_now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], bench_cmp);
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
    double t0 = bench_now_ms();
    if (av_bpe_load(&b, v, m, &err) != AV_OK) { printf("  load failed: %s\n", err.msg); return; }
    printf("  load vocab.json + merges.txt (50,257 tokens, 50,000 merges)   %9.3f ms\n", bench_now_ms() - t0);
    const char *s = "The animal didn't cross the street because it was too tired.";
    t0 = bench_now_ms();
    encode_once(b, s);
    printf("  encode 62-byte sentence (13 tokens), cold word cache         %9.3f ms\n", bench_now_ms() - t0);
    printf("  the same, warm (median of 101)                               %9.4f ms\n", median_ms(101, encode_once, b, s));
    double ref = median_ms(3, merge_long, b, "ref"), fast = median_ms(3, merge_long, b, "heap");
    printf("  merge one 4,000-byte piece: GPT-2's loop %.3f ms, heap %.3f ms (%.1fx)\n", ref, fast, ref / fast);
    av_bpe_free(b);
}

/* ---------------------------------------------------------------------------- where the classroom time goes */

static double median3(double a, double b, double c) {
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

/* CPU time (ms, this thread, median of 3) to compress the pixels of the PNGs
 * named in dir/head0.png .. head{H-1}.png and dir/heads.png again: *ours with
 * the tool's own encoder (av_png_encode: libpng around ISA-L's igzip level 1,
 * no filter), *zlib_ms with zlib level 1 over the same filtered rows (what
 * libpng alone does at level 1 without filters: compress2, the reference).
 * The compression share of the classroom command, measured alone on one
 * core. Sets *bytes to the raw RGB bytes compressed; returns -1 if a file
 * cannot be read, else 0. */
static int png_compress_cpu_ms(const char *dir, int H, double *bytes, double *ours, double *zlib_ms) {
    double best[3] = {0, 0, 0}, ref[3] = {0, 0, 0};
    *bytes = 0;
    for (int i = 0; i <= H; i++) {
        char path[512];
        if (i < H) snprintf(path, sizeof path, "%s/head%d.png", dir, i);
        else snprintf(path, sizeof path, "%s/heads.png", dir);
        av_png_image img;
        av_err err;
        if (av_png_read(path, &img, &err)) return -1;
        size_t row = 3 * (size_t)img.width, raw_len = (row + 1) * (size_t)img.height;
        *bytes += 3.0 * img.width * img.height;
        unsigned char *raw = malloc(raw_len);
        uLongf zcap = compressBound((uLong)raw_len);
        unsigned char *zout = malloc(zcap);
        if (!raw || !zout) {
            free(raw);
            free(zout);
            av_png_image_free(&img);
            return -1;
        }
        for (int y = 0; y < img.height; y++) {
            raw[(size_t)y * (row + 1)] = 0; /* filter None */
            memcpy(raw + (size_t)y * (row + 1) + 1, img.rgb + (size_t)y * row, row);
        }
        for (int r = 0; r < 3; r++) {
            unsigned char *png = NULL;
            size_t len = 0;
            double t0 = bench_thread_cpu_ms();
            av_status st = av_png_encode(&png, &len, img.rgb, img.width, img.height, row, NULL, 0, 100, &err);
            best[r] += bench_thread_cpu_ms() - t0;
            free(png);
            uLongf zlen = zcap;
            t0 = bench_thread_cpu_ms();
            int zst = compress2(zout, &zlen, raw, (uLong)raw_len, 1);
            ref[r] += bench_thread_cpu_ms() - t0;
            if (st || zst != Z_OK) {
                free(raw);
                free(zout);
                av_png_image_free(&img);
                return -1;
            }
        }
        free(raw);
        free(zout);
        av_png_image_free(&img);
    }
    *ours = median3(best[0], best[1], best[2]);
    *zlib_ms = median3(ref[0], ref[1], ref[2]);
    return 0;
}

/* The classroom command's floor on this machine, printed under its goal:
 * the same command without figures, and the PNG compression alone. */
static void classroom_floor(const cmd_result *full, const cmd_result *noplot, const cmd_result *version,
                            const cmd_result *empty, double png_cpu, double zlib_cpu, double png_bytes, long cores) {
    printf("\nwhere the classroom command's time goes (same run; not goals):\n");
    printf("  an empty process (/bin/true) %.1f ms wall; attnviz --version (loading its libraries) %.1f ms wall, "
           "%.1f ms CPU\n", empty->ms, version->ms, version->cpu_ms);
    printf("  with figures: %.1f ms wall, %.1f ms CPU; --no-plot (start-up, weights, attention, trace): %.1f ms wall, "
           "%.1f ms CPU\n", full->ms, full->cpu_ms, noplot->ms, noplot->cpu_ms);
    printf("  compressing the 9 PNGs' pixels alone (%.1f MB RGB, one core): %.1f ms CPU with libpng + ISA-L igzip "
           "level 1; zlib level 1 on the same rows %.1f ms CPU (%.1fx)\n",
           png_bytes / 1e6, png_cpu, zlib_cpu, png_cpu > 0 ? zlib_cpu / png_cpu : 0);
    double bound = (noplot->cpu_ms + png_cpu) / (double)cores;
    printf("  lower bound with every core busy and no drawing: (%.1f + %.1f) ms CPU / %ld cores = %.1f ms wall "
           "(goal 30 ms)\n", noplot->cpu_ms, png_cpu, cores, bound);
}

static void goal(const char *what, double got, const char *unit, const char *vs, double ratio, int met) {
    printf("  %-58s %9.1f %-4s %-36s %6.2fx  %s\n", what, got, unit, vs, ratio, met ? "met" : "MISSED");
}

int main(int argc, char **argv) {
    bench_spawner_start(); /* first, while this process is small: benchutil.h */
    const char *bin = argc > 1 ? argv[1] : "./attnviz";
    printf("attnviz benchmark: medians of repeated runs, same machine, same run\n");
    char load[64];
    bench_load_average(load, sizeof load);
    printf("load average at start: %s (on %ld CPUs; other processes slow every wall time below)\n", load,
           sysconf(_SC_NPROCESSORS_ONLN));
    double gf = sgemm_gflops();
    printf("machine sgemm rate: %.1f GFLOP/s (cblas_sgemm 2048^3, every core, median of 5)\n", gf);
    torch_row tr[2] = {{512, 0}, {2048, 0}};
    int have_torch = torch_times(tr, 2) == 2;
    if (!have_torch) printf("torch: not importable by /usr/bin/python3, torch columns skipped\n");

    printf("\nthe attention layer in process (d_model 512, 8 heads, sinusoidal):\n");
    double c2048, c16k;
    double f512 = forward_ms(512, 512, 8, AV_KERNEL_BLAS, 7, NULL);
    double f2048 = forward_ms(2048, 512, 8, AV_KERNEL_BLAS, 3, &c2048);
    double f16k = forward_ms(16384, 512, 8, AV_KERNEL_FLASH, 1, &c16k);
    double ref512 = forward_ms(512, 512, 8, AV_KERNEL_REFERENCE, 1, NULL);
    printf("  (reference kernel T=512: %.1f ms, the readable loops, for scale)\n", ref512);

    printf("\nwhole commands (child processes):\n");
    char out[] = "/tmp/attnviz_benchXXXXXX";
    if (!mkdtemp(out)) return 1;
    char *demo[] = {(char *)bin, "--heads", "8", "-o", out, "I love deep learning", NULL};
    cmd_result rd = run_command(demo, SHORT_RUNS);
    double png_bytes = 0, png_cpu = -1, zlib_cpu = -1;
    int png_ok = png_compress_cpu_ms(out, 8, &png_bytes, &png_cpu, &zlib_cpu) == 0;
    char *demo_noplot[] = {(char *)bin, "--heads", "8", "--no-plot", "I love deep learning", NULL};
    cmd_result rd_noplot = run_command(demo_noplot, SHORT_RUNS);
    char *version[] = {(char *)bin, "--version", NULL}, *empty[] = {"/bin/true", NULL};
    cmd_result rd_version = run_command(version, SHORT_RUNS), rd_true = run_command(empty, SHORT_RUNS);
    char *t2048 = paragraph_tokens(2048), *t16k = paragraph_tokens(16384);
    char *fig2048[] = {(char *)bin, "-q", "--heads", "8", "-o", out, t2048, NULL};
    cmd_result r2048 = run_command(fig2048, 3);
    char *flash16k[] = {(char *)bin, "-q", "--heads", "8", "--kernel", "flash", "--no-plot", t16k, NULL};
    cmd_result r16k = run_command(flash16k, 1);
    printf("  classroom --heads 8 \"I love deep learning\" (9 PNGs): %.1f ms wall, %.1f ms CPU, %.1f MiB, exit %d"
           " (median of %d runs)\n",
           rd.ms, rd.cpu_ms, rd.rss_mib, rd.code, SHORT_RUNS);
    printf("  2048 tokens, 8 heads, default figures: %.1f ms wall, %.1f ms CPU, %.1f MiB, exit %d\n", r2048.ms,
           r2048.cpu_ms, r2048.rss_mib, r2048.code);
    printf("  16384 tokens, 8 heads, --kernel flash --no-plot: %.1f ms wall, %.1f ms CPU, %.1f MiB, exit %d\n", r16k.ms,
           r16k.cpu_ms, r16k.rss_mib, r16k.code);
    printf("\nGPT-2 byte-level BPE (text/bpe.h) on the real vocabulary:\n");
    bench_bpe(out);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd)) {}
    free(t2048), free(t16k);

    char vs[64];
    double s512 = flops_forward(512, 512) / (gf * 1e6), s2048 = flops_forward(2048, 512) / (gf * 1e6);
    double s16k = flops_forward(16384, 512) / (gf * 1e6);
    printf("\n(sgemm time = the layer's floating-point operations / the machine's sgemm rate %.1f GFLOP/s; one forward\n"
           " does 8*T*C^2 (the Q, K, V and output projections, 2*T*C*C each) + 4*T^2*C (Q*K^T and A*V over all heads,\n"
           " 2*T*T*d_k each per head), no mask skipping: T=2048 %.1f GFLOP, T=16384 %.1f GFLOP; exp and softmax not counted)\n",
           gf, flops_forward(2048, 512) / 1e9, flops_forward(16384, 512) / 1e9);
    printf("\ngoals (issue 13)                                              measured      compared with                          ratio\n");
    if (have_torch) {
        snprintf(vs, sizeof vs, "torch %.1f ms", tr[0].ms);
        goal("T=512 weights kept: faster than torch", f512, "ms", vs, tr[0].ms / f512, f512 < tr[0].ms);
        snprintf(vs, sizeof vs, "torch %.1f ms", tr[1].ms);
        goal("T=2048 weights kept: >= 2x faster than torch", f2048, "ms", vs, tr[1].ms / f2048, tr[1].ms / f2048 >= 2);
    }
    snprintf(vs, sizeof vs, "sgemm time %.1f ms", s2048);
    goal("T=2048 weights kept: within 2x of sgemm time", f2048, "ms", vs, f2048 / s2048, f2048 <= 2 * s2048);
    snprintf(vs, sizeof vs, "sgemm time %.1f ms", s16k);
    goal("T=16384 flash (layer): within 2x of sgemm time", f16k, "ms", vs, f16k / s16k, f16k <= 2 * s16k);
    snprintf(vs, sizeof vs, "limit 320 MiB (weights: 8.6 GB)");
    goal("T=16384 flash --no-plot, whole process: peak RSS", r16k.rss_mib, "MiB", vs, r16k.rss_mib / 320,
         r16k.code == 0 && r16k.rss_mib <= 320);
    snprintf(vs, sizeof vs, "limit 30 ms; torch+matplotlib 2.8 s");
    goal("classroom command, 9 PNGs, whole process", rd.ms, "ms", vs, 2800 / rd.ms, rd.code == 0 && rd.ms <= 30);
    snprintf(vs, sizeof vs, "limit 1500 ms");
    goal("T=2048 default figures, whole process", r2048.ms, "ms", vs, r2048.ms / 1500,
         r2048.code == 0 && r2048.ms <= 1500);
    printf("(ratio: torch/attnviz for torch goals, 2800 ms/attnviz for the classroom, attnviz/reference otherwise)\n");
    if (png_ok)
        classroom_floor(&rd, &rd_noplot, &rd_version, &rd_true, png_cpu, zlib_cpu, png_bytes,
                        sysconf(_SC_NPROCESSORS_ONLN));
    double gf1 = bench_sgemm_cpu_gflops(2048);
    printf("\nthe same two sgemm goals in CPU time, which a busy machine changes far less (not a goal, a cross-check):\n"
           "one core's sgemm rate %.1f GFLOP/s of CPU time (1 OpenBLAS thread, 2048^3, median of 5);\n"
           "attnviz's CPU time on all threads vs the CPU time that rate needs for the layer's operations:\n", gf1);
    double k2048 = flops_forward(2048, 512) / (gf1 * 1e6), k16k = flops_forward(16384, 512) / (gf1 * 1e6);
    printf("  T=2048 weights kept: %.1f ms CPU vs %.1f ms CPU of sgemm, %.2fx\n", c2048, k2048, c2048 / k2048);
    printf("  T=16384 flash:       %.1f ms CPU vs %.1f ms CPU of sgemm, %.2fx\n", c16k, k16k, c16k / k16k);
    (void)s512;
    return 0;
}
