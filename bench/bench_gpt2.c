/* bench_gpt2.c - `make bench`, the --model part: speed and memory of the
 * whole command on a checkpoint with GPT-2 small's shapes, beside torch
 * doing the same forward on the same file in the same run. Prints, does not
 * judge.
 *
 *   1. writes build/bench-gpt2/ once: config.json (12 layers, 12 heads,
 *      d_model 768, 1024 positions, vocabulary 50,257), model.safetensors
 *      (F32, 498 MB, the deterministic weights of tests/gpt2_fixture.h), and
 *      GPT-2's real vocab.json and merges.txt (from tests/data/gpt2/);
 *   2. the machine's sgemm rate (OpenBLAS, one thread), for scale;
 *   3. `attnviz --model DIR SENTENCE` (20 tokens, with the model-view and
 *      layer-grid figures) and the same with --no-plot: median wall time of
 *      5 runs after a warm-up, and peak resident memory (wait4 rusage);
 *   4. bench/gpt2_torch.py on the same folder and ids, if torch imports:
 *      import, load, forward (median of 5) and whole-process times;
 *   5. `attnviz --generate 32` on the GPT-2 folder: the cost of a new token
 *      (the whole command at 32 and at 1 token, median of 3), beside
 *      bench/gpt2_torch.py's greedy loop with a key/value cache, and whether
 *      both pick the same 32 tokens;
 *   6. the same as 3 and 4 for a Llama-family folder with SmolLM-135M's shapes
 *      (build/bench-llama/: 30 layers, hidden 576, 9 query heads, 3 K/V
 *      heads, intermediate 1536, vocabulary 49,152, tied embeddings, F32
 *      weights of tests/llama_fixture.h, a GPT-2 tokenizer.json cut to
 *      49,152 ids) beside bench/llama_torch.py.
 * Usage: bench_gpt2 ./attnviz   (from the source root) */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "gpt2_fixture.h"
#include "hftok_fixture.h"
#include "llama_fixture.h"

#include "nn/attention_blas.h"

#include "benchutil.h"

#define DIR "build/bench-gpt2"
#define LDIR "build/bench-llama"
#define SENTENCE "The quick brown fox jumps over the lazy dog, and then it runs all the way back home to"

static int make_folder(void) {
    struct stat sb;
    if (stat(DIR "/model.safetensors", &sb) == 0 && stat(DIR "/merges.txt", &sb) == 0) return 0;
    mkdir("build", 0755);
    mkdir(DIR, 0755);
    av_gpt2_config c;
    av_gpt2_config_defaults(&c);
    c.n_layer = 12, c.n_head = 12, c.n_embd = 768, c.n_positions = 1024, c.vocab_size = 50257;
    av_err err = {{0}};
    char *json = NULL;
    double t0 = bench_now_ms();
    if (av_gpt2_config_json(&json, &c, &err) || gf_write_checkpoint(DIR "/model.safetensors", &c, AV_ST_F32, "", 0, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    FILE *f = fopen(DIR "/config.json", "w");
    fputs(json, f);
    fclose(f);
    free(json);
    if (tu_gunzip("tests/data/gpt2/vocab.json.gz", DIR "/vocab.json") ||
        tu_gunzip("tests/data/gpt2/merges.txt.gz", DIR "/merges.txt")) {
        fprintf(stderr, "bench: cannot decompress tests/data/gpt2/*.gz\n");
        return -1;
    }
    printf("  wrote %s (GPT-2 small shapes, deterministic weights) in %.1f s\n", DIR, (bench_now_ms() - t0) / 1e3);
    return 0;
}

static void bench_command(const char *label, char *const argv[], double *median, double *cpu_median, long *rss) {
    double t[5], c[5];
    long peak = 0;
    bench_run_command(argv, NULL); /* warm-up: the file in the page cache */
    for (int i = 0; i < 5; i++) {
        bench_run r = bench_run_command(argv, NULL);
        if (r.code != 0) {
            printf("  %s: the command failed\n", label);
            return;
        }
        t[i] = r.wall_ms;
        c[i] = r.cpu_ms;
        if (r.rss_kib > peak) peak = r.rss_kib;
    }
    qsort(t, 5, sizeof t[0], bench_cmp);
    qsort(c, 5, sizeof c[0], bench_cmp);
    printf("  attnviz %-20s wall median %5.0f ms (min %.0f, max %.0f; 5 runs), CPU (user+sys) median %.0f ms, "
           "peak RSS %.1f MiB\n", label, t[2], t[0], t[4], c[2], peak / 1024.0);
    *median = t[2];
    *cpu_median = c[2];
    *rss = peak;
}

/* The ids attnviz prints on its "ids [...]" line, as "a,b,c". */
static int top1 = -1; /* attnviz's most probable next token */

static int token_ids(const char *bin, const char *dir, char *ids, size_t n, int *T) {
    char *argv[] = {(char *)bin, "--model", (char *)dir, "--no-plot", SENTENCE, NULL};
    if (bench_run_command(argv, "build/bench-gpt2.trace").code != 0) return -1;
    char *txt = tu_slurp_file("build/bench-gpt2.trace", NULL);
    char *at = txt ? strstr(txt, "ids [") : NULL;
    if (!at) return free(txt), -1;
    char *top = strstr(txt, "1. p = ");
    char *idp = top ? strstr(top, "(id ") : NULL;
    if (idp) top1 = atoi(idp + 4);
    size_t k = 0;
    *T = 1;
    for (at += 5; *at && *at != ']' && k + 1 < n; at++)
        if (*at != ' ') ids[k++] = *at, *T += *at == ',';
    ids[k] = 0;
    free(txt);
    return 0;
}

static void bench_generate(const char *bin, const char *dir, const char *ids);

/* The whole command on dir (with and without figures), memory, and script (torch) on the same ids. */
static int bench_model(const char *bin, const char *dir, const char *script, int L, int H) {
    struct stat sb;
    char path[256];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    stat(path, &sb);
    char ids[1024];
    int T = 0;
    if (token_ids(bin, dir, ids, sizeof ids, &T)) {
        printf("  attnviz --model failed; see build/bench-gpt2.trace\n");
        return 1;
    }
    printf("  sentence: \"%s\" = %d tokens; attnviz's top next token: id %d\n", SENTENCE, T, top1);
    char load[64];
    double load1 = bench_load_average(load, sizeof load);
    if (load1 >= 0)
        printf("  load average now %.2f (1 min) on %ld cores: other processes share the CPU, so CPU time is the steadier number\n",
               load1, sysconf(_SC_NPROCESSORS_ONLN));
    double with_fig = 0, no_fig = 0, cpu_fig = 0, cpu_nofig = 0;
    long rss_fig = 0, rss_nofig = 0;
    char out[512];
    snprintf(out, sizeof out, "%s-out", dir); /* one figure folder per model: a folder holds one run */
    char *a1[] = {(char *)bin, "--model", (char *)dir, "-o", out, SENTENCE, NULL};
    char *a2[] = {(char *)bin, "--model", (char *)dir, "--no-plot", SENTENCE, NULL};
    bench_command("(model view + grid)", a1, &with_fig, &cpu_fig, &rss_fig);
    bench_command("--no-plot", a2, &no_fig, &cpu_nofig, &rss_nofig);
    double file_mib = sb.st_size / 1048576.0, maps_mib = (double)L * H * T * T * 4 / 1048576.0;
    printf("  memory: file %.1f MiB + attention maps (L, H, T, T) %.2f MiB = %.1f MiB; peak RSS %.1f MiB (%s)\n",
           file_mib, maps_mib, file_mib + maps_mib, rss_fig / 1024.0,
           rss_fig / 1024.0 <= file_mib + maps_mib ? "within" : "above");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import torch' 2>/dev/null && /usr/bin/python3 %s %s %s 2", script,
             dir, ids);
    FILE *p = popen(cmd, "r");
    char line[512] = "";
    double t0 = bench_now_ms();
    if (!p || !fgets(line, sizeof line, p)) {
        printf("  torch: not importable with /usr/bin/python3; no comparison\n");
        if (p) pclose(p);
        return 0;
    }
    double wall = bench_now_ms() - t0;
    pclose(p);
    line[strcspn(line, "\n")] = 0;
    double fwd = 0, fwd_cpu = 0;
    char *f = strstr(line, "forward_ms="), *fc = strstr(line, "forward_cpu_ms=");
    if (f) fwd = atof(f + 11);
    if (fc) fwd_cpu = atof(fc + 15);
    printf("  torch   %s (process wall %.0f ms)\n", line, wall);
    printf("  ratio (wall): attnviz whole command, --no-plot, %.0f ms / torch forward alone %.0f ms = %.2f; "
           "/ torch whole process %.0f ms = %.2f\n",
           no_fig, fwd, fwd > 0 ? no_fig / fwd : 0, wall, no_fig / wall);
    printf("  with the figures: %.0f ms / torch forward alone = %.2f\n", with_fig, fwd > 0 ? with_fig / fwd : 0);
    printf("  ratio (CPU time): attnviz whole command %.0f ms (--no-plot) / %.0f ms (figures) vs torch forward alone "
           "%.0f ms = %.2f / %.2f\n", cpu_nofig, cpu_fig, fwd_cpu, fwd_cpu > 0 ? cpu_nofig / fwd_cpu : 0,
           fwd_cpu > 0 ? cpu_fig / fwd_cpu : 0);
    if (strcmp(script, "bench/gpt2_torch.py") == 0) bench_generate(bin, dir, ids);
    return 0;
}

/* --generate N on dir: the whole command's median wall of 3 runs (after a warm-up) at N and at 1 token, so
 * (N − 1) new tokens cost the difference; beside bench/gpt2_torch.py's greedy loop with a key/value cache on the
 * same ids (median of 3), and whether the two pick the same tokens. */
static void bench_generate(const char *bin, const char *dir, const char *ids) {
    enum { N = 32 };
    char n_arg[16], *gen[2][10];
    double med[2];
    for (int k = 0; k < 2; k++) {
        snprintf(n_arg, sizeof n_arg, "%d", k ? 1 : N);
        char *a[] = {(char *)bin, "-q", "--no-plot", "--model", (char *)dir, "--generate", k ? "1" : n_arg,
                     SENTENCE, NULL};
        memcpy(gen[k], a, sizeof a);
        double t[3];
        bench_run_command(gen[k], k ? NULL : "build/bench-gpt2.generate"); /* warm-up; N's output is read below */
        for (int i = 0; i < 3; i++) {
            bench_run r = bench_run_command(gen[k], k ? NULL : "build/bench-gpt2.generate");
            if (r.code != 0) {
                printf("  attnviz --generate: the command failed\n");
                return;
            }
            t[i] = r.wall_ms;
        }
        qsort(t, 3, sizeof t[0], bench_cmp);
        med[k] = t[1];
    }
    double per = (med[0] - med[1]) / (N - 1);
    printf("  attnviz --generate %d: whole command wall median %.0f ms (3 runs), --generate 1 %.0f ms: "
           "%.1f ms a token = %.1f tokens/s (key/value cache)\n", N, med[0], med[1], per, per > 0 ? 1e3 / per : 0);
    char *txt = tu_slurp_file("build/bench-gpt2.generate", NULL), ours[1024] = "";
    char *at = txt ? strstr(txt, "ids:") : NULL;
    if (at) { /* "ids: 1 2 3" as "1,2,3" */
        size_t k = 0;
        for (at += 4; *at == ' '; at++) {}
        for (; *at && *at != '\n' && k + 1 < sizeof ours; at++) ours[k++] = *at == ' ' ? ',' : *at;
        ours[k] = 0;
    }
    free(txt);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import torch' 2>/dev/null && /usr/bin/python3 bench/gpt2_torch.py "
             "%s %s 2 generate %d", dir, ids, N);
    FILE *p = popen(cmd, "r");
    char line[2048] = "";
    if (!p || !fgets(line, sizeof line, p)) {
        printf("  torch: not importable with /usr/bin/python3; no comparison\n");
        if (p) pclose(p);
        return;
    }
    pclose(p);
    line[strcspn(line, "\n")] = 0;
    char *g = strstr(line, "generate_ms="), *tid = strstr(line, "ids=");
    double tms = g ? atof(g + 12) : 0, tper = tms / N;
    printf("  torch   greedy %d tokens with a key/value cache: %.0f ms = %.1f ms a token = %.1f tokens/s\n", N, tms,
           tper, tper > 0 ? 1e3 / tper : 0);
    printf("  ratio: attnviz %.1f ms / torch %.1f ms a token = %.2f; the same %d tokens: %s\n", per, tper,
           tper > 0 ? per / tper : 0, N, tid && ours[0] && strcmp(tid + 4, ours) == 0 ? "yes" : "NO");
}

/* The folder llama_fixture.h describes, with SmolLM-135M's shapes. */
static int make_llama_folder(void) {
    struct stat sb;
    if (stat(LDIR "/model.safetensors", &sb) == 0 && stat(LDIR "/tokenizer.json", &sb) == 0) return 0;
    mkdir("build", 0755);
    mkdir(LDIR, 0755);
    static const char cfg_json[] =
        "{\"model_type\": \"llama\", \"hidden_size\": 576, \"num_hidden_layers\": 30, \"num_attention_heads\": 9,\n"
        " \"num_key_value_heads\": 3, \"intermediate_size\": 1536, \"vocab_size\": 49152, \"rms_norm_eps\": 1e-05,\n"
        " \"rope_theta\": 10000.0, \"rope_scaling\": null, \"max_position_embeddings\": 2048, \"tie_word_embeddings\": true,\n"
        " \"hidden_act\": \"silu\", \"bos_token_id\": 0}\n";
    av_llama_config c;
    av_err err = {{0}};
    double t0 = bench_now_ms();
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 49152);
    FILE *f = fopen(LDIR "/config.json", "w"), *g = fopen(LDIR "/tokenizer.json", "w");
    int bad = !tok || !f || !g;
    if (!bad) fputs(cfg_json, f), fputs(tok, g);
    if (f) fclose(f);
    if (g) fclose(g);
    free(tok);
    if (bad || av_llama_config_parse(&c, cfg_json, strlen(cfg_json), "config.json", &err) ||
        lf_write_checkpoint(LDIR, &c, AV_ST_F32, 1, &err)) {
        fprintf(stderr, "bench: cannot write %s: %s\n", LDIR, err.msg);
        return -1;
    }
    printf("  wrote %s (SmolLM-135M shapes, deterministic weights) in %.1f s\n", LDIR, (bench_now_ms() - t0) / 1e3);
    return 0;
}

int main(int argc, char **argv) {
    bench_spawner_start(); /* first, while this process is small: benchutil.h */
    const char *bin = argc > 1 ? argv[1] : "./attnviz";
    printf("\n--model on GPT-2 small's shapes (12 layers, d_model 768, 12 heads, vocabulary 50,257)\n");
    if (make_folder()) return 1;
    printf("  machine: %ld cores online; sgemm (OpenBLAS, 1 thread) %.1f GFLOP/s on 1024^3\n",
           sysconf(_SC_NPROCESSORS_ONLN), bench_sgemm_gflops(1024, 1));
    if (bench_model(bin, DIR, "bench/gpt2_torch.py", 12, 12)) return 1;
    printf("\n--model on SmolLM-135M's shapes (llama: 30 layers, hidden 576, 9 query heads sharing 3 K/V heads, "
           "intermediate 1536, vocabulary 49,152); goal: at most 1.5 s wall with the model view\n");
    if (make_llama_folder()) return 1;
    return bench_model(bin, LDIR, "bench/llama_torch.py", 30, 9);
}
