/* test_model_cli.c - `attnviz --model DIR` end to end, and every bad
 * checkpoint or option as a usage error with a clear message.
 *
 * Expected values: the numpy GPT-2 of tests/gen_gpt2_ref.py (tests/ref/gpt2/
 * gpt2_f32: attention maps, hidden states, logits, to 1e-4) on the
 * checkpoint tests/gpt2_fixture.h writes (byte-identical to the script's,
 * see test_gpt2.c); the token ids of tests/ref/gpt2/token_ids.txt, which are
 * npm gpt-3-encoder's for the sentence; the top-5 next tokens are the five
 * largest entries of the script's logits_last.npy. Bad files are written by
 * hand in a table, each with the message it must produce.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "testutil.h"
#include "gpt2_fixture.h"
#include "hftok_fixture.h"

#include "base/utf8.h"
#include "io/fileio.h"
#include "io/npy.h"
#include "render/pngout.h"

#define SENTENCE "The quick brown fox jumps over the lazy dog."

/* ------------------------------------------------------------------------- */
/* helpers */

/* DIR/REL as one shell word, as the tool names a file of a folder (tu_sh_word). */
static const char *sh_in(const char *dir, const char *rel) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return tu_sh_word(p);
}

/* The base under which a test_bad_checkpoints message's path begins: the cases' folder F when MSG starts with
 * DIR's own name ("/case43 has no ..."), else DIR ("/config.json: ..."). */
static const char *shown_base(const char *f, const char *dir, const char *msg) {
    size_t n = strlen(dir) - strlen(f);
    return !strncmp(msg, dir + strlen(f), n) && msg[n] && strchr(": /", msg[n]) ? f : dir;
}

/* MSG as standard error holds it when MSG begins with the end of a path under BASE ("/config.json: ...",
 * "/case43 has no ..."): that path named as the tool names it, one shell word of BASE and the part up to the
 * first ':' or ' '; any other MSG as it is. */
static const char *shown_under(const char *base, const char *msg) {
    static char buf[2][9000];
    static int slot;
    if (msg[0] != '/') return msg;
    char *b = buf[slot++ % 2], path[4400];
    size_t n = strcspn(msg, ": ");
    snprintf(path, sizeof path, "%s%.*s", base, (int)n, msg);
    snprintf(b, sizeof buf[0], "%s%s", tu_sh_word(path), msg + n);
    return b;
}

static void write_text(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static void copy_into(const char *dir, const char *name, const char *from) {
    size_t len = 0;
    char *buf = tu_slurp_file(from, &len);
    assert_non_null(buf);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_text(path, buf, len);
    free(buf);
}

/* A GPT-2 of config.json text json (the fixture's deterministic weights)
 * with the real vocabulary, in dir. */
/* GPT-2's real vocab.json and merges.txt, copied into dir. */
static void copy_real_vocab(const char *dir) {
    char *voc = tu_gpt2_vocab_dir();
    assert_non_null(voc);
    char path[4400];
    snprintf(path, sizeof path, "%s/vocab.json", voc);
    copy_into(dir, "vocab.json", path);
    snprintf(path, sizeof path, "%s/merges.txt", voc);
    copy_into(dir, "merges.txt", path);
    rm_rf(voc);
}

static void make_gpt2(const char *dir, const char *json) {
    copy_real_vocab(dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path, json, strlen(json));
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "", 0, &err)) fail_msg("%s", err.msg);
}

/* The tiny GPT-2 (gpt2_f32 of the script) with the real vocabulary, in dir. */
static void make_tiny(const char *dir) {
    copy_real_vocab(dir);
    copy_into(dir, "config.json", src_path("tests/ref/gpt2/gpt2_f32/config.json"));
    char *json = tu_slurp_file(src_path("tests/ref/gpt2/gpt2_f32/config.json"), NULL);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "", 0, &err)) fail_msg("%s", err.msg);
}

/* got[offset + i] against the reference's i-th value, for every i. */
static void expect_npy_close(const char *path, const char *ref, size_t offset) {
    av_npy got, want;
    av_err err = {{0}};
    if (av_npy_read(&got, path, &err)) fail_msg("%s", err.msg);
    if (av_npy_read(&want, src_path(ref), &err)) fail_msg("%s", err.msg);
    size_t n = 1;
    for (int d = 0; d < want.ndim; d++) n *= want.shape[d];
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        worst = fmax(worst, fabs((double)got.data[offset + i] - want.data[i]));
    }
    printf("    %-12s worst |attnviz - numpy| = %.3g\n", ref + 15, worst);
    assert_true(worst <= 1e-4);
    av_npy_free(&got);
    av_npy_free(&want);
}

/* ------------------------------------------------------------------------- */
/* end to end */

static void test_model_end_to_end(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    const char *dump = tu_in(f, "dump"), *out = tu_in(f, "figs");
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--dump", dump, "-o", out, "--format", "both", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    /* tokens: readable labels, ids as gpt-3-encoder gives them */
    assert_non_null(strstr(r.out, "[The] [␣quick] [␣brown] [␣fox] [␣jumps] [␣over] [␣the] [␣lazy] [␣dog] [.]"));
    assert_non_null(strstr(r.out, "ids [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13]"));
    assert_non_null(strstr(r.out, "(10, 64)·(64, 192) → (10, 192)"));
    assert_non_null(strstr(r.out, "layer 1 of 2, step by step"));
    /* each step's shapes end in its result, residual and ln_2 too (a new user's report: they gave only the input) */
    static const char *const stages[] = {"ln_1", "output", "residual", "ln_2", "MLP"};
    for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++) {
        int lines;
        const char *bad;
        if (tu_stage_lines_lacking(r.out, stages[k], "→ (10, 64)", &lines, &bad) || lines < 1)
            fail_msg("%d \"%s\" lines; this one lacks \"→ (10, 64)\": %.120s", lines, stages[k], bad ? bad : "");
    }
    /* the top 5 are the five largest logits of the numpy reference, in order */
    av_npy last;
    av_err err = {{0}};
    if (av_npy_read(&last, src_path("tests/ref/gpt2/gpt2_f32/logits_last.npy"), &err)) fail_msg("%s", err.msg);
    const char *at = strstr(r.out, "next token");
    assert_non_null(at);
    for (int k = 0; k < 5; k++) {
        size_t best = 0;
        for (size_t v = 1; v < last.shape[0]; v++)
            if (last.data[v] > last.data[best]) best = v;
        last.data[best] = -INFINITY;
        char want[64];
        snprintf(want, sizeof want, "(id %zu)", best);
        const char *hit = strstr(at, want);
        if (!hit) fail_msg("top-%d id %zu not after the previous one in:\n%s", k + 1, best, at);
        at = hit;
    }
    av_npy_free(&last);
    /* the dump */
    expect_npy_close(tu_in(f, "dump/attn.npy"), "tests/ref/gpt2/gpt2_f32/attn.npy", 0);
    expect_npy_close(tu_in(f, "dump/hidden.npy"), "tests/ref/gpt2/gpt2_f32/hidden.npy", 0);
    expect_npy_close(tu_in(f, "dump/logits.npy"), "tests/ref/gpt2/gpt2_f32/logits_last.npy", (size_t)9 * 50257);
    size_t len = 0;
    char *ids = tu_slurp_file(tu_in(f, "dump/token_ids.npy"), &len);
    assert_non_null(strstr(ids + 10, "'descr': '<i4', 'fortran_order': False, 'shape': (10,), }"));
    assert_int_equal(len, 128 + 40);
    const int want_ids[10] = {464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13};
    for (int i = 0; i < 10; i++) {
        const unsigned char *p = (const unsigned char *)ids + 128 + 4 * i;
        assert_int_equal(p[0] | p[1] << 8 | p[2] << 16 | p[3] << 24, want_ids[i]);
    }
    free(ids);
    char *toks = tu_slurp_file(tu_in(f, "dump/tokens.txt"), NULL);
    assert_non_null(strstr(toks, "The\n␣quick\n"));
    free(toks);
    assert_true(file_exists(tu_in(f, "figs/model.png")) && file_exists(tu_in(f, "figs/model.svg")));
    assert_true(file_exists(tu_in(f, "figs/layer1.png")) && file_exists(tu_in(f, "figs/layer1.svg")));
    assert_false(file_exists(tu_in(f, "figs/layer1_head0.png")));
    tu_free(&r);
}

/* Make a GPT-2 folder of L layers and H heads (d_model 64), run its model view as SVG over
 * "3 1 4", and copy the SVG's <title> into title; returns the SVG text (the caller frees it). */
static char *model_view_svg(tu_fixture *f, int L, int H, char *title, size_t cap) {
    char name[32], config[256];
    snprintf(name, sizeof name, "m%dx%d", L, H);
    snprintf(config, sizeof config,
             "{\"model_type\": \"gpt2\", \"n_layer\": %d, \"n_head\": %d, \"n_embd\": 64, "
             "\"n_positions\": 16, \"vocab_size\": 50257}", L, H);
    const char *dir = tu_in(f, name);
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, config);
    tu_result r;
    run_attnviz(&r, NULL, "--model", dir, "-q", "--format", "svg", "--figures", "model", "-o", tu_in(f, "o"),
                "3 1 4", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    char *svg = tu_slurp_file(tu_in(f, "o/model.svg"), NULL);
    assert_non_null(svg);
    const char *t = strstr(svg, "<title>");
    assert_non_null(t);
    const char *t_end = strstr(t, "</title>");
    assert_non_null(t_end);
    snprintf(title, cap, "%.*s", (int)(t_end - t), t);
    printf("    %s\n", title);
    return svg;
}

#if !defined(__SANITIZE_ADDRESS__) /* its two tests are skipped under AddressSanitizer */
/* Make dir a 1-layer, 1-head, d_model 8 GPT-2-layout folder with RoPE (so any length runs), and return the
 * text "a a a ..." of `tokens` tokens (malloc'd): the memory checks' inputs. */
static char *rope_folder_and_words(const char *dir, size_t tokens) {
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, "{\"model_type\": \"attnviz_gpt2\", \"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                   "\"n_positions\": 16, \"vocab_size\": 50257, \"attnviz\": {\"norm\": \"pre\", "
                   "\"positions\": \"rope\"}}");
    size_t n = 2 * tokens - 1; /* "a" and tokens - 1 times " a" */
    char *text = malloc(n + 1);
    assert_non_null(text);
    text[0] = 'a';
    for (size_t i = 1; i < n; i += 2) text[i] = ' ', text[i + 1] = 'a';
    text[n] = 0;
    return text;
}

/* Run each of the n argument rows under a 400 MB address-space limit, so a binary that does not refuse up front
 * fails fast, and check each is refused (exit 2) with the message `expected`. */
static void refused_under_limit(const char *const *const *rows, int n, const char *expected) {
    tu_run_opts ro = {.stdout_fd = -1, .as_limit_kib = 400000};
    for (int k = 0; k < n; k++) {
        tu_result r;
        tu_run_ex(&r, &ro, NULL, 0, rows[k]);
        if (r.code != 2) fail_msg("row %d: exit %d: %s", k, r.code, r.err);
        assert_string_equal(r.err, expected);
        tu_free(&r);
    }
}
#endif

/* --compare scale on a --model holds the model's (L, H, T, T) scores and
 * weights, layer L's copy of them and the two runs compared: 2·L + 6 arrays
 * of 4·H·T² bytes, ⌊√(2^31 / (4·8))⌋ = 8192 tokens at L = 1, H = 1 (11585
 * without it). Only the model's arrays were counted (16384 tokens):
 * `--model DIR --compare scale` on 12,000 tokens ran 19 s and failed "out of
 * memory" (exit 1). The child
 * runs under a 400 MB address-space limit, so a binary that does not refuse
 * fails fast; skipped under AddressSanitizer, which cannot start under it. */
/* safetensors.torch.save_model keeps one name of tensors sharing memory, the first in sorted order, so a tied
 * GPT2LMHeadModel's file holds lm_head.weight and no transformer.wte.weight; transformers loads it (tied). It was
 * refused: 'unexpected tensor "transformer.wpe.weight" (not part of a GPT-2 with 2 layers and learned positions)'.
 * Now it gives the numpy reference's numbers, and the --dump and output of the folder with wte.weight. */
static void test_tied_checkpoint_without_wte(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char *json = tu_slurp_file(src_path("tests/ref/gpt2/gpt2_f32/config.json"), NULL);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    const char *both = tu_in(f, "both"), *head = tu_in(f, "head");
    char path[4400];
    for (int k = 0; k < 2; k++) {
        const char *dir = k ? head : both;
        assert_int_equal(mkdir(dir, 0755), 0);
        static const char *const files[] = {"config.json", "vocab.json", "merges.txt"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", f->dir, files[i]);
            copy_into(dir, files[i], path);
        }
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "transformer.", 1, &err)) fail_msg("%s", err.msg);
    }
    if (gf_rename_tensor(path, "transformer.wte.weight", NULL, &err)) fail_msg("%s", err.msg);
    tu_result a, b;
    run_attnviz(&a, NULL, "--model", both, "--no-plot", "-q", "--generate", "3", "--dump", tu_in(f, "da"), SENTENCE, NULL);
    run_attnviz(&b, NULL, "--model", head, "--no-plot", "-q", "--generate", "3", "--dump", tu_in(f, "db"), SENTENCE, NULL);
    if (a.code != 0 || b.code != 0) fail_msg("exit %d, %d: %s%s", a.code, b.code, a.err, b.err);
    assert_non_null(strstr(b.out, "generate"));
    assert_string_equal(a.out, b.out);
    tu_free(&a);
    tu_free(&b);
    static const char *const npys[] = {"attn.npy", "scores.npy", "hidden.npy", "logits.npy", "token_ids.npy"};
    for (int i = 0; i < 5; i++) {
        size_t la = 0, lb = 0;
        char rel[64];
        snprintf(rel, sizeof rel, "da/%s", npys[i]);
        char *x = tu_slurp_file(tu_in(f, rel), &la);
        snprintf(rel, sizeof rel, "db/%s", npys[i]);
        char *y = tu_slurp_file(tu_in(f, rel), &lb);
        if (!x || !y || la != lb || memcmp(x, y, la)) fail_msg("%s differs from the folder with wte.weight's", npys[i]);
        free(x);
        free(y);
    }
    expect_npy_close(tu_in(f, "db/logits.npy"), "tests/ref/gpt2/gpt2_f32/logits_last.npy", (size_t)9 * 50257);
    expect_npy_close(tu_in(f, "db/attn.npy"), "tests/ref/gpt2/gpt2_f32/attn.npy", 0);
}

static void test_model_compare_counts_its_runs(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "rope");
    char *text = rope_folder_and_words(dir, 8193);
    const char *plain[] = {"-q", "--no-plot", "--model", dir, "--compare", "scale", text, NULL};
    const char *html[] = {"-q", "--no-plot", "--model", dir, "--compare", "scale", "--html", "--html-limit", "1024",
                          "-o", tu_in(f, "o"), text, NULL};
    const char *const *rows[] = {plain, html};
    refused_under_limit(rows, 2, "attnviz: error: 8193 tokens with 1 head need 2.0005 GiB for the (heads, T, T) "
                                 "scores and weights of the model's 1 layer, layer 0's copy and the 2 runs --compare "
                                 "scale holds at once, more than the 2 GiB allowed; drop --compare or give at most "
                                 "8192 tokens at 1 head under --compare scale (11585 without it)\n");
    free(text);
#endif
}

/* A --model run, --no-plot too, holds the model's (L, H, T, T) scores and
 * weights and layer L's copy of them (make_view): 2·L + 2 arrays of 4·H·T²
 * bytes, ⌊√(2^31 / (4·4))⌋ = 11585 tokens at L = 1, H = 1. Only the model's
 * were counted (16384 tokens): `-q --no-plot --model DIR -f` 16,000 tokens
 * ran 21 s and failed "out of memory allocating tensors for T=16000 ..."
 * (exit 1); figures and --generate the same. 400 MB address-space limit, as
 * test_model_compare_counts_its_runs. */
static void test_model_counts_the_layers_copy(void **state) {
#if defined(__SANITIZE_ADDRESS__)
    (void)state;
    skip();
#else
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "rope");
    char *text = rope_folder_and_words(dir, 11586);
    const char *plain[] = {"-q", "--no-plot", "--model", dir, text, NULL};
    const char *figures[] = {"-q", "--model", dir, "-o", tu_in(f, "o"), text, NULL};
    const char *generate[] = {"-q", "--no-plot", "--model", dir, "--generate", "2", text, NULL};
    const char *const *rows[] = {plain, figures, generate};
    refused_under_limit(rows, 3, "attnviz: error: 11586 tokens with 1 head need 2.0003 GiB for the (heads, T, T) "
                                 "scores and weights of the model's 1 layer and layer 0's copy, more than the 2 GiB "
                                 "allowed; give at most 11585 tokens at 1 head (--model keeps every layer's weights, "
                                 "so it cannot run the flash kernel)\n");
    assert_int_equal(access(tu_in(f, "o"), F_OK), -1); /* refused before any file */
    free(text);
#endif
}

/* A Ctrl-C while --generate's progress line shows on a terminal: the line (drawn after a second) had the
 * handler's message replaced by the line-clear, so the run ended with exit 130 and not a word, where in a pipe
 * it said that no file was written and -o was as it was (a learner's pass at a terminal, under script(1)). The
 * line is cleared and the message follows it. A 1-layer RoPE folder with room for 65536 positions, run in a
 * pseudo-terminal; SIGINT once the line shows. */
static void test_generate_interrupted_on_a_terminal_says_so(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "long");
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, "{\"model_type\": \"attnviz_gpt2\", \"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, "
                   "\"n_positions\": 65536, \"vocab_size\": 50257, \"attnviz\": {\"norm\": \"pre\", "
                   "\"positions\": \"rope\"}}");
    char out[4400];
    snprintf(out, sizeof out, "%s", tu_in(f, "o"));
    struct winsize ws = {.ws_row = 24, .ws_col = 200};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("COLUMNS");
        execl(tu_bin(), tu_bin(), "--model", dir, "--generate", "65000", "-o", out, "a b", (char *)NULL);
        _exit(127);
    }
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    assert_non_null(text);
    int st = tu_pty_collect(fd, pid, text, cap, "--generate: token ", SIGINT);
    size_t n = strlen(text);
    if (!strstr(text, "--generate: token ")) fail_msg("no --generate line came: %s", text);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGINT) fail_msg("status %d: %s", st, text);
    const char *msg = strstr(text, "\r\x1b[Kattnviz: interrupted before any file was written: this run wrote none, "
                                   "and -o ");
    if (!msg) fail_msg("no message after the cleared line: ...%s", n > 600 ? text + n - 600 : text);
    assert_int_equal(access(out, F_OK), -1); /* made for the run, holding nothing: removed */
    free(text);
}

/* The model view of a model with one layer and 64 heads: the title once said
 * "rows L0…L0" and the 64 thumbnails made one row 3037 px wide (past the
 * 2400 px bound of figures), with a ~20 px colour bar. Now the title names
 * the one layer, the heads wrap into rows, and the figure stays in bounds. */
/* One dump folder for a single layer's run, then a --model's, then a single layer's again: each dump
 * removes the files only the other kind writes, so the folder never mixes two runs (weights.npy, Q.npy,
 * X.npy of the first sentence stayed beside the model's attn.npy and hidden.npy, and the model's attn.npy,
 * logits.npy beside the next single layer's weights.npy: a tester's report). */
static void test_dump_folder_holds_one_kind_of_run(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    const char *dump = tu_in(f, "dump");
    static const char *const layer_only[] = {"X.npy", "W_Q.npy", "Q.npy", "weights.npy", "context.npy", "mask.npy"};
    static const char *const model_only[] = {"token_ids.npy", "attn.npy", "hidden.npy", "logits.npy"};
    /* what each round removes, named with -q too (a file is never deleted without a word): the single layer's
     * 13 files of a sinusoidal run (tensorio.c dump_files: X, PE, W_Q, W_K, W_V, W_O, Q, K, V, weights,
     * context, output, mask), then the model's 4 of its own (token_ids, attn, hidden, logits); by hand */
    char want[3][600];
    snprintf(want[0], sizeof want[0], "%s", "");
    snprintf(want[1], sizeof want[1], "attnviz: note: removed 13 files of an earlier --dump from %s, so the folder "
             "holds one run: X.npy PE.npy W_Q.npy W_K.npy W_V.npy W_O.npy Q.npy K.npy V.npy weights.npy context.npy "
             "output.npy mask.npy\n", tu_sh_word(dump));
    snprintf(want[2], sizeof want[2], "attnviz: note: removed 4 files of an earlier --dump from %s, so the folder "
             "holds one run: token_ids.npy attn.npy hidden.npy logits.npy\n", tu_sh_word(dump));
    char path[4400];
    tu_result r;
    for (int round = 0; round < 3; round++) {
        int model = round == 1;
        if (model) run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, "--dump", dump, SENTENCE, NULL);
        else run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", dump, "I love you", NULL);
        if (r.code != 0) fail_msg("round %d: exit %d: %s", round, r.code, r.err);
        if (strcmp(r.err, want[round])) fail_msg("round %d: want\n%s\nstderr:\n%s", round, want[round], r.err);
        tu_free(&r);
        for (size_t i = 0; i < sizeof layer_only / sizeof layer_only[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dump, layer_only[i]);
            if ((access(path, F_OK) == 0) == model) fail_msg("round %d (%s): %s %s", round, model ? "--model" : "layer",
                                                              layer_only[i], model ? "stayed" : "missing");
        }
        for (size_t i = 0; i < sizeof model_only / sizeof model_only[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dump, model_only[i]);
            if ((access(path, F_OK) == 0) != model) fail_msg("round %d (%s): %s %s", round, model ? "--model" : "layer",
                                                              model_only[i], model ? "missing" : "stayed");
        }
    }
}

/* Only files an earlier attnviz dump wrote are removed: `--model DIR --dump mine` into the folder of a
 * learner's own weights (X.npy and W_Q.npy written by numpy, no source.txt: the --weights folder of
 * "Checking your own implementation") deleted them without a word, and a single layer's dump did the same to
 * a hand-saved attn.npy or logits.npy (a new user's pass). They stay, byte for byte, and a note names them. */
static void test_dump_keeps_files_no_dump_wrote(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    static const float x[2 * 8] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8};
    const size_t shape[2] = {2, 8};
    av_err err;
    if (av_mkdir_p(tu_in(f, "mine"), &err) || av_mkdir_p(tu_in(f, "own"), &err) || av_npy_write(tu_in(f, "mine/X.npy"), x, 2, shape, &err) ||
        av_npy_write(tu_in(f, "mine/W_Q.npy"), x, 2, shape, &err) || av_npy_write(tu_in(f, "own/attn.npy"), x, 2, shape,
                                                                                &err) ||
        av_npy_write(tu_in(f, "own/logits.npy"), x, 2, shape, &err))
        fail_msg("%s", err.msg);
    size_t n_before = 0, n_after = 0;
    char *before = tu_slurp_file(tu_in(f, "mine/X.npy"), &n_before);
    assert_non_null(before);
    char want[2][600];
    snprintf(want[0], sizeof want[0], "attnviz: note: --dump %s also holds X.npy W_Q.npy, which this run does not "
             "write and no source.txt of an earlier attnviz --dump there accounts for; kept beside this run's files: "
             "remove them, or use another --dump folder\n", tu_sh_word(tu_in(f, "mine")));
    snprintf(want[1], sizeof want[1], "attnviz: note: --dump %s also holds attn.npy logits.npy, which this run does "
             "not write and no source.txt of an earlier attnviz --dump there accounts for; kept beside this run's "
             "files: remove them, or use another --dump folder\n", tu_sh_word(tu_in(f, "own")));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, "--dump", tu_in(f, "mine"), SENTENCE, NULL);
    if (r.code != 0 || strcmp(r.err, want[0])) fail_msg("exit %d: want\n%s\nstderr:\n%s", r.code, want[0], r.err);
    tu_free(&r);
    char *after = tu_slurp_file(tu_in(f, "mine/X.npy"), &n_after);
    if (!after || n_after != n_before || memcmp(after, before, n_before))
        fail_msg("mine/X.npy %s", after ? "changed" : "was removed");
    assert_true(file_exists(tu_in(f, "mine/W_Q.npy")));
    assert_true(file_exists(tu_in(f, "mine/attn.npy"))); /* and the model's own are there */
    free(after);
    free(before);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", tu_in(f, "own"), "I love you", NULL);
    if (r.code != 0 || strcmp(r.err, want[1])) fail_msg("exit %d: want\n%s\nstderr:\n%s", r.code, want[1], r.err);
    tu_free(&r);
    assert_true(file_exists(tu_in(f, "own/attn.npy")));
    assert_true(file_exists(tu_in(f, "own/logits.npy")));
}

/* A weight file a learner changed after a single layer's --dump is theirs (README: "any changed file makes
 * them yours"; --weights DIR then says "weights loaded from DIR"), yet a --model dump into that folder removed
 * it with the rest, since source.txt said a single layer's dump had written the folder (a tester's pass).
 * Here W_Q.npy is replaced by the 8 x 8 identity after `-d 8 --dump ed "I love you"`: the --model dump keeps
 * it byte for byte and names it, and removes the other 12 files the single layer's dump wrote (README's list
 * of them, W_Q.npy left out), unchanged since source.txt gave their CRC-32. */
static void test_dump_keeps_weights_changed_since(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    const char *ed = tu_in(f, "ed");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", ed, "I love you", NULL);
    if (r.code != 0 || r.err[0]) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    float eye[8 * 8] = {0};
    for (int i = 0; i < 8; i++) eye[i * 8 + i] = 1.0f;
    const size_t shape[2] = {8, 8};
    av_err err;
    if (av_npy_write(tu_in(f, "ed/W_Q.npy"), eye, 2, shape, &err)) fail_msg("%s", err.msg);
    size_t n_before = 0, n_after = 0;
    char *before = tu_slurp_file(tu_in(f, "ed/W_Q.npy"), &n_before);
    assert_non_null(before);
    char want[1200];
    snprintf(want, sizeof want, "attnviz: note: removed 12 files of an earlier --dump from %s, so the folder holds "
             "one run: X.npy PE.npy W_K.npy W_V.npy W_O.npy Q.npy K.npy V.npy weights.npy context.npy output.npy "
             "mask.npy\nattnviz: note: --dump %s also holds W_Q.npy, which this run does not write and which changed "
             "since the earlier attnviz --dump there wrote it (its float32 data's CRC-32 is not the one its "
             "source.txt gave); kept beside this run's files: remove it, or use another --dump folder\n", tu_sh_word(ed), tu_sh_word(ed));
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, "--dump", ed, SENTENCE, NULL);
    if (r.code != 0 || strcmp(r.err, want)) fail_msg("exit %d: want\n%s\nstderr:\n%s", r.code, want, r.err);
    tu_free(&r);
    char *after = tu_slurp_file(tu_in(f, "ed/W_Q.npy"), &n_after);
    if (!after || n_after != n_before || memcmp(after, before, n_before))
        fail_msg("ed/W_Q.npy %s", after ? "changed" : "was removed");
    free(after);
    free(before);
    assert_false(file_exists(tu_in(f, "ed/X.npy")));
    assert_false(file_exists(tu_in(f, "ed/W_K.npy")));
    assert_true(file_exists(tu_in(f, "ed/attn.npy")));
}

/* A --model dump says which model made it, as a single layer's dump does in its source.txt: `--model DIR
 * --dump D` wrote tokens.txt and the .npy files only, so D did not say which model (or which step of a
 * trained folder) its attn.npy came from. Its source.txt names the model as the figures do (model.png's
 * Weights) and its layers. */
static void test_model_dump_names_its_model(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--layer", "0", "--figures", "model", "-o", tu_in(f, "o"),
                "--dump", tu_in(f, "dump"), SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *text = tu_slurp_file(tu_in(f, "dump/source.txt"), NULL);
    if (!text) fail_msg("no source.txt in the --model dump");
    av_png_image img;
    av_err err = {{0}};
    if (av_png_read(tu_in(f, "o/model.png"), &img, &err)) fail_msg("%s", err.msg);
    const char *weights = av_png_image_text(&img, "Weights");
    assert_non_null(weights);
    char want[4400];
    snprintf(want, sizeof want, "weights: %s\nlayers: all 2 in attn.npy and scores.npy (L, H, T, T) and hidden.npy "
             "(L+1, T, d_model); --layer 0 is the one", weights);
    if (strncmp(text, want, strlen(want)) != 0) fail_msg("source.txt is '%s', not '%s...'", text, want);
    snprintf(want, sizeof want, "model %s (F32; positions: learned)", f->dir);
    assert_string_equal(weights, want);
    av_png_image_free(&img);
    free(text);
}

/* A GPT-2 folder's figures name its positions as a sinusoidal or RoPE model's do: GPT-2 adds a learned
 * embedding wpe[position] to each token's (Radford et al. 2019, HF GPT2Model: inputs_embeds +
 * position_embeds), and a toy model --train wrote with its default positions is GPT-2's layout too. The
 * titles said "model DIR (F32) · ..." and "trained toy model DIR (attnviz --train reverse, step 2; F32)
 * · ... · mask: causal", no positions at all, where a sinusoidal toy's said "positions: sinusoidal". */
static void test_model_titles_name_learned_positions(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    const char *toy = tu_in(f, "toy");
    char toy_dir[4200], want[4400];
    snprintf(toy_dir, sizeof toy_dir, "%s", toy);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o", toy_dir,
                NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    for (int k = 0; k < 2; k++) {
        const char *dir = k ? toy_dir : f->dir;
        run_attnviz(&r, NULL, "-q", "--model", dir, "--layer", "0", "--format", "both", "-o", tu_in(f, "o"),
                    k ? "3 1 4 >" : SENTENCE, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        tu_free(&r);
        if (k) snprintf(want, sizeof want, "trained toy model %s (attnviz --train reverse, step 2; F32; positions: "
                        "learned) · ", toy_dir);
        else snprintf(want, sizeof want, " · model %s (F32; positions: learned) · ", f->dir);
        const char *const figs[] = {"o/model.png", "o/layer0.png"};
        for (int i = 0; i < 2; i++) {
            av_png_image img;
            av_err err;
            assert_int_equal(av_png_read_texts(tu_in(f, figs[i]), &img, &err), AV_OK);
            const char *title = av_png_image_text(&img, "Title");
            if (!title || !strstr(title, want)) fail_msg("%s: Title '%s' lacks '%s'", figs[i], title ? title : "(none)",
                                                          want);
            av_png_image_free(&img);
        }
        char *svg = tu_slurp_file(tu_in(f, "o/model.svg"), NULL);
        assert_non_null(svg);
        if (!strstr(svg, "positions: learned)")) fail_msg("model.svg does not name the positions");
        free(svg);
    }
}

static void test_model_view_of_one_layer(void **state) {
    tu_fixture *f = *state;
    char title[2048];
    char *svg = model_view_svg(f, 1, 64, title, sizeof title);
    assert_null(strstr(title, "L0\xE2\x80\xA6L0"));     /* "L0…L0" */
    assert_null(strstr(title, "H0\xE2\x80\xA6H0"));
    assert_non_null(strstr(title, "the one layer (L0)"));
    assert_non_null(strstr(title, "every head (H0\xE2\x80\xA6H63)"));
    int w = 0, h = 0;
    const char *vb = strstr(svg, "viewBox=\"0 0 ");
    assert_non_null(vb);
    assert_int_equal(sscanf(vb, "viewBox=\"0 0 %d %d", &w, &h), 2);
    printf("    model.svg %d x %d px\n", w, h);
    assert_true(w <= 2400 && h <= 2400);
    free(svg);
}

/* The model view's title says how to read it. It said "rows L0…L1" and "columns H0…H31", which
 * is wrong once a layer's 32 heads wrap over several rows (plot.c's grid_choose): it now gives
 * the reading order, layers top to bottom and heads left to right. */
static void test_model_view_title_gives_the_reading_order(void **state) {
    tu_fixture *f = *state;
    char title[2048];
    char *svg = model_view_svg(f, 2, 32, title, sizeof title);
    assert_null(strstr(title, "rows"));
    assert_null(strstr(title, "columns"));
    assert_non_null(strstr(title, "every layer (L0\xE2\x80\xA6L1, top to bottom)"));
    assert_non_null(strstr(title, "head (H0\xE2\x80\xA6H31, left to right)"));
    free(svg);
}

/* What config.json claims against its "attnviz" object. model_type
 * "attnviz_gpt2" without the object ran silently as a plain Pre-LN GPT-2:
 * now an error naming the file. model_type "gpt2" or GPT2LMHeadModel with a
 * Post-LN or RoPE object (earlier attnviz versions wrote that) runs the
 * object's way with a warning naming both keys, and so does one with
 * attnviz.scale false but no "scale_attn_weights": false (transformers
 * divides by √d_k); a consistent folder warns about nothing. */
static void test_model_type_against_attnviz_object(void **state) {
    tu_fixture *f = *state;
    static const char *base = "\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 50257";
    static const struct {
        const char *name, *claims, *object; /* object "" = no "attnviz" key */
        int code;
        const char *want[3]; /* in stderr; NULL: stderr has no "warning" */
    } cases[] = {
        {"bare", "\"model_type\": \"attnviz_gpt2\", \"architectures\": [\"AttnvizGPT2\"]", "", 2,
         {"/bare/config.json: model_type \"attnviz_gpt2\" needs the \"attnviz\" object (norm, positions)", NULL}},
        {"post", "\"model_type\": \"gpt2\"", "{\"norm\": \"post\"}", 0,
         {"attnviz: warning: ", "/post/config.json: model_type \"gpt2\" claims a Hugging Face GPT-2, but attnviz.norm \"post\"",
          "attnviz follows the attnviz object, while transformers would not"}},
        {"rope", "\"architectures\": [\"GPT2LMHeadModel\"]", "{\"positions\": \"rope\"}", 0,
         {"/rope/config.json: architectures [\"GPT2LMHeadModel\"] claims a Hugging Face GPT-2, but attnviz.positions \"rope\"",
          "attnviz follows the attnviz object, while transformers would not", NULL}},
        {"sin", "\"model_type\": \"gpt2\", \"architectures\": [\"GPT2LMHeadModel\"]",
         "{\"norm\": \"post\", \"positions\": \"sinusoidal\"}", 0,
         {"model_type \"gpt2\" claims a Hugging Face GPT-2, but attnviz.norm \"post\" and attnviz.positions \"sinusoidal\"",
          NULL}},
        {"ok", "\"model_type\": \"attnviz_gpt2\", \"architectures\": [\"AttnvizGPT2\"]", "{\"norm\": \"post\"}", 0, {NULL}},
        /* transformers divides by √d_k unless "scale_attn_weights": false says otherwise; this ran without the
         * warning Post-LN gets (a new user's report, a config.json edited to lie) */
        {"noscale", "\"model_type\": \"gpt2\"", "{\"scale\": false}", 0,
         {"/noscale/config.json: model_type \"gpt2\" claims a Hugging Face GPT-2, but attnviz.scale false (without "
          "\"scale_attn_weights\": false) is not one", "(it computes a Pre-LN GPT-2 with learned positions and scores "
          "\xC3\xB7 \xE2\x88\x9A" "d_k)", NULL}},
        {"hfnoscale", "\"model_type\": \"gpt2\", \"scale_attn_weights\": false", "{\"scale\": false}", 0, {NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *dir = tu_in(f, cases[i].name);
        assert_int_equal(mkdir(dir, 0755), 0);
        char json[1024], valid[1024], path[4400];
        snprintf(json, sizeof json, "{%s, %s%s%s}", cases[i].claims, base, cases[i].object[0] ? ", \"attnviz\": " : "",
                 cases[i].object);
        /* the weights from a config the loader accepts; then the config.json under test */
        snprintf(valid, sizeof valid, "{%s%s%s}", base, cases[i].object[0] ? ", \"attnviz\": " : "", cases[i].object);
        make_gpt2(dir, valid);
        snprintf(path, sizeof path, "%s/config.json", dir);
        write_text(path, json, strlen(json));
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "-q", "hello world", NULL);
        if (r.code != cases[i].code) fail_msg("case %s: exit %d, stderr '%s'", cases[i].name, r.code, r.err);
        if (!cases[i].want[0] && strstr(r.err, "warning")) fail_msg("case %s: unexpected '%s'", cases[i].name, r.err);
        for (int k = 0; k < 3 && cases[i].want[k]; k++)
            if (!strstr(r.err, shown_under(f->dir, cases[i].want[k])))
                fail_msg("case %s: want '%s' in stderr '%s'", cases[i].name, cases[i].want[k], r.err);
        tu_free(&r);
    }
}

/* "scale_attn_weights": null runs as transformers runs it: GPT2Config keeps the None and GPT-2's attention tests
 * it by truth (`if module.scale_attn_weights:` in modeling_gpt2.py), so the scores are not divided by √d_k, the
 * same numbers as "scale_attn_weights": false; the trace says the null was read so. It was refused as
 * "\"scale_attn_weights\" must be true or false", naming no value (a GPT-2 user's pass). */
static void test_scale_attn_weights_null_runs_unscaled(void **state) {
    tu_fixture *f = *state;
    /* 0 and 1 by their truth too, as `if module.scale_attn_weights:` reads them (0 was refused while
     * scale_attn_by_inverse_layer_idx's 0 ran as false: a review of the change) */
    static const char *const value[] = {"false", "null", "true", "0", "1"};
    char *attn[5] = {NULL, NULL, NULL, NULL, NULL};
    size_t len[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        char name[16], json[512], path[4400];
        snprintf(name, sizeof name, "s%d", i);
        const char *dir = tu_in(f, name);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(json, sizeof json, "{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, "
                 "\"n_positions\": 16, \"vocab_size\": 50257, \"scale_attn_weights\": %s}", value[i]);
        make_gpt2(dir, "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 50257}");
        snprintf(path, sizeof path, "%s/config.json", dir);
        write_text(path, json, strlen(json));
        snprintf(name, sizeof name, "h%d", i);
        char out[4400], page[4500];
        snprintf(out, sizeof out, "%s", tu_in(f, name));
        snprintf(page, sizeof page, "%s/attnviz.html", out);
        snprintf(name, sizeof name, "d%d", i);
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "--explain", "1,0", "--html", "-o", out, "--dump",
                    tu_in(f, name), "hello world", NULL);
        if (r.code != 0) fail_msg("scale_attn_weights %s: exit %d: %s", value[i], r.code, r.err);
        static const char *const line[] = {
            "  scale      OFF (the model was trained without ÷√d_k)\n",
            "  scale      OFF (config.json's scale_attn_weights is null, which transformers reads as false: no ÷√d_k)\n",
            "  scale      1/√d_k\n",
            "  scale      OFF (config.json's scale_attn_weights is 0, which transformers reads as false: no ÷√d_k)\n",
            "  scale      1/√d_k (config.json's scale_attn_weights is 1, which transformers reads as true)\n"};
        if (!strstr(r.out, line[i])) fail_msg("scale_attn_weights %s: no '%s' in:\n%s", value[i], line[i], r.out);
        /* --explain's cell and the page's cell view give the trace's reason: for null they said "the model was
         * trained without it", though the trace said the null config value was read as false */
        static const char *const why[] = {"the model was trained without it",
                                          "config.json's scale_attn_weights is null, which transformers reads as false",
                                          NULL, "config.json's scale_attn_weights is 0, which transformers reads as false",
                                          NULL};
        char want[256];
        char *html = tu_slurp_file(page, NULL);
        assert_non_null(html);
        if (why[i]) {
            snprintf(want, sizeof want, "\n  no ÷√d_k (%s): S = q·k in float32", why[i]);
            if (!strstr(r.out, want)) fail_msg("scale_attn_weights %s: no '%s' in:\n%s", value[i], want, r.out);
            snprintf(want, sizeof want, "\"no_scale_why\":\"%s\"", why[i]);
            if (!strstr(html, want)) fail_msg("scale_attn_weights %s: the page has no %s", value[i], want);
        } else {
            assert_non_null(strstr(r.out, "\n  ÷√d_k: "));
            assert_non_null(strstr(html, "\"no_scale_why\":\"\""));
        }
        free(html);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/attn.npy", tu_in(f, name));
        assert_non_null(attn[i] = tu_slurp_file(path, &len[i]));
    }
    assert_true(len[1] == len[0] && memcmp(attn[1], attn[0], len[0]) == 0); /* null: false's weights, to the bit */
    assert_true(len[2] == len[0] && memcmp(attn[2], attn[0], len[0]) != 0); /* and not true's */
    assert_true(len[3] == len[0] && memcmp(attn[3], attn[0], len[0]) == 0); /* 0: false's */
    assert_true(len[4] == len[2] && memcmp(attn[4], attn[2], len[2]) == 0); /* 1: true's */
    for (int i = 0; i < 5; i++) free(attn[i]);
}

/* --layer/--head with --explain, --show and --compare scale on that layer. */
static void test_model_teaching_tools(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--layer", "0", "--head", "2", "--explain", "3,1", "--show",
                "--compare", "scale", "--color", "never", "--html", "-o", tu_in(f, "o"), "--dump", tu_in(f, "d"),
                SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "layer 0 of 2, step by step"));
    /* a --model's headers name the layer as well as the head (head 2 is in every layer) */
    assert_non_null(strstr(r.out, "--explain: layer 0, head 2, query 3 \"␣fox\" → key 1 \"␣quick\""));
    /* the weight explained is the numpy reference's attn[0, 2, 3, 1] */
    av_npy a;
    av_err err = {{0}};
    if (av_npy_read(&a, src_path("tests/ref/gpt2/gpt2_f32/attn.npy"), &err)) fail_msg("%s", err.msg);
    const char *line = strstr(r.out, "A[2, 3, 1] = exp(");
    assert_non_null(line);
    const char *eq = strstr(strstr(line, ") / "), " = "); /* "exp(..) / sum = A" */
    assert_non_null(eq);
    eq++;
    double shown = strtod(eq + 2, NULL), want = a.data[((0 * 4 + 2) * 10 + 3) * 10 + 1];
    printf("    explained A[2, 3, 1] = %.9f, numpy %.9f\n", shown, want);
    assert_non_null(strstr(line, "(= attn.npy[0, 2, 3, 1])")); /* the model's dump names it so */
    assert_non_null(strstr(r.out, "(= scores.npy[0, 2, 3, 1])"));
    assert_true(fabs(shown - want) <= 1e-4);
    av_npy_free(&a);
    assert_non_null(strstr(r.out, "\nlayer 0, head 2 of 4: attention weights (rows = queries, columns = keys)\n"));
    assert_null(strstr(r.out, "head 1 of 4: attention weights"));
    assert_non_null(strstr(r.out, "--compare scale"));
    /* the model's causal mask: row i (of T = 10) sees i + 1 keys, so uniform weights have entropy
     * (ln 1 + ln 2 + ... + ln 10) / 10, not ln 10 */
    double uniform = 0;
    for (int i = 1; i <= 10; i++) uniform += log((double)i);
    char want_u[128];
    snprintf(want_u, sizeof want_u, "uniform over each row's visible keys would be %.3f,", uniform / 10);
    if (!strstr(r.out, want_u)) fail_msg("want '%s' in:\n%s", want_u, r.out);
    assert_null(strstr(r.out, "ln(10)"));
    assert_true(file_exists(tu_in(f, "o/layer0_head2.png")));
    assert_true(file_exists(tu_in(f, "o/compare_scale.png")));
    /* the --compare figure says what it shows like the model's other figures: the
     * sentence and the model (it once had an empty title and Weights, and a seed) */
    av_png_image img;
    if (av_png_read(tu_in(f, "o/compare_scale.png"), &img, &err)) fail_msg("%s", err.msg);
    const char *title = av_png_image_text(&img, "Title"), *weights = av_png_image_text(&img, "Weights");
    const char *desc = av_png_image_text(&img, "Description");
    char want_w[512];
    snprintf(want_w, sizeof want_w, "model %s (F32; positions: learned)", f->dir);
    if (!title || !strstr(title, "“The quick brown fox") || !strstr(title, want_w))
        fail_msg("Title '%s' should quote the sentence and name '%s'", title ? title : "(none)", want_w);
    assert_non_null(weights);
    assert_string_equal(weights, want_w);
    assert_non_null(desc);
    assert_null(strstr(desc, "(seed"));
    av_png_image_free(&img);
    char *page = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL); /* the page of the model run */
    assert_non_null(page);
    assert_non_null(strstr(page, "layer 0 of 2, step by step"));
    free(page);
    tu_free(&r);
}

/* --generate: the greedy continuation equals the numpy reference's. */
/* A GPT-2 config.json without layer_norm_epsilon runs at GPT2Config's default ε 1e-5 (its __init__ signature), and
 * the trace says so, as the Llama trace says of its defaults: "LayerNorm ε = 1e-05" alone read as config.json's (a
 * Llama user's pass, the same line). The tiny model's config.json has the key: its line is unmarked. */
static void test_default_layer_norm_epsilon_is_marked(void **state) {
    tu_fixture *f = *state;
    const char *tiny = tu_in(f, "t"), *bare = tu_in(f, "b");
    assert_int_equal(mkdir(tiny, 0700), 0);
    assert_int_equal(mkdir(bare, 0700), 0);
    make_tiny(tiny);
    make_gpt2(bare, "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 50257}");
    tu_result r;
    run_attnviz(&r, NULL, "--model", tiny, "--no-plot", "I love you", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "; LayerNorm ε = 1e-05; MLP d_ff")) fail_msg("with layer_norm_epsilon:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", bare, "--no-plot", "I love you", NULL);
    assert_int_equal(r.code, 0);
    static const char want[] = "; LayerNorm ε = 1e-05 (config.json has no layer_norm_epsilon: transformers' default); "
                               "MLP d_ff";
    if (!strstr(r.out, want)) fail_msg("without layer_norm_epsilon, the trace lacks \"%s\":\n%s", want, r.out);
    tu_free(&r);
}

static void test_model_generate(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char *want = tu_slurp_file(src_path("tests/ref/gpt2/gpt2_f32/generate8.txt"), NULL);
    want[strcspn(want, "\n")] = 0;
    char line[256];
    snprintf(line, sizeof line, "ids: %s\n", want);
    if (!strstr(r.out, line)) fail_msg("want '%s' in:\n%s", line, r.out);
    assert_non_null(strstr(r.out, "greedy, 8 tokens after the input"));
    /* ids 40284 and 1704 are "ĠRankings" and "idence" in GPT-2's vocab.json (Ġ: a space);
     * the text is quoted so its leading space shows */
    assert_non_null(strstr(r.out, "\n              text: \" Rankings Rankings Rankings Rankings Rankings Rankingsidenceidence\"\n"));
    free(want);
    tu_free(&r);
    /* the model's 64 positions (its config.json's n_positions) end it early after
     * 64 - 2 = 62 tokens ("Hello world" is [Hello] [␣world]), and it says so, on stdout and as a warning */
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "100", "--no-plot", "-q", "Hello world", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "stopped after 62 of 100: at most 64 tokens (the model's n_positions)"));
    assert_string_equal(r.err, "attnviz: warning: --generate 100 stopped after 62 tokens: the sequence reached the "
                               "maximum length of 64 positions (the model's n_positions)\n");
    tu_free(&r);
    /* an input that already fills the 64 positions: nothing to add, a warning as Hugging Face's
     * generate gives, the input printed as it is, exit 0, and nothing written past the ids (the
     * first greedy id was once stored before the check: a heap overflow that make test SANITIZE=1
     * reports) */
    char full[200] = "a";
    for (int i = 1; i < 64; i++) strcat(full, " a"); /* "a" and 63 " a": 64 tokens */
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "1", "--no-plot", "-q", full, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "attnviz: warning: the input is 64 tokens, already the maximum length of 64 positions "
                               "(the model's n_positions), so --generate 1 can generate no tokens\n");
    char want_out[400];
    snprintf(want_out, sizeof want_out, "  generate    no tokens: the input is already at the maximum length of 64 "
             "positions (the model's n_positions)\n              text: \"%s\" (the input, nothing added)\n", full);
    if (strcmp(r.out, want_out)) fail_msg("want '%s' (under -q, no blank line first), not:\n%s", want_out, r.out);
    assert_null(strstr(r.out, "greedy"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--generate", "3", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--generate continues a --model's input; add --model DIR"));
    tu_free(&r);
}

/* A config.json with the names transformers' GPT2Config.attribute_map gives the sizes (hidden_size for n_embd,
 * num_attention_heads, num_hidden_layers, max_position_embeddings) loads in transformers, but `attnviz --model DIR`
 * said 'missing key "n_layer" (GPT2Config needs ...)', exit 2 (a learner's pass). Now the alias is read as the key:
 * the tiny model under those names gives the numpy reference's attention (tests/gen_gpt2_ref.py) and its greedy
 * continuation of "Hello world" (generate8.txt); the two names of one size with two values are refused, naming both. */
static void test_config_alias_names(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", f->dir);
    static const char aliases[] = "{\"model_type\": \"gpt2\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                                  "\"hidden_size\": 64, \"max_position_embeddings\": 64, \"vocab_size\": 50257}";
    write_text(path, aliases, strlen(aliases));
    const char *dump = tu_in(f, "dump");
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--dump", dump, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char got[4400];
    snprintf(got, sizeof got, "%s/attn.npy", dump);
    expect_npy_close(got, "tests/ref/gpt2/gpt2_f32/attn.npy", 0);
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char *want = tu_slurp_file(src_path("tests/ref/gpt2/gpt2_f32/generate8.txt"), NULL);
    want[strcspn(want, "\n")] = 0;
    char line[256];
    snprintf(line, sizeof line, "ids: %s\n", want);
    if (!strstr(r.out, line)) fail_msg("want '%s' in:\n%s", line, r.out);
    free(want);
    tu_free(&r);
    /* one name of each kind mixed, and both names of a size with one value: the same model */
    static const char mixed[] = "{\"n_layer\": 2, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"n_embd\": 64, "
                                "\"n_positions\": 64, \"vocab_size\": 50257}";
    write_text(path, mixed, strlen(mixed));
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--generate", "1", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char clash[] = "{\"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, \"hidden_size\": 32, "
                                "\"n_positions\": 64, \"vocab_size\": 50257}";
    static const char zero[] = "{\"num_hidden_layers\": 0, \"n_head\": 4, \"n_embd\": 64, \"n_positions\": 64, "
                               "\"vocab_size\": 50257}";
    write_text(path, zero, strlen(zero)); /* the range in the file's own word, not "n_layer 0" */
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "Hello world", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, shown_under(f->dir, "/config.json: num_hidden_layers 0 is outside 1..128 (GPT2Config's n_layer)\n")))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
    write_text(path, clash, strlen(clash));
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "Hello world", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, shown_under(f->dir, "/config.json: \"n_embd\" 64 and \"hidden_size\" 32 disagree: transformers' "
                       "GPT2Config reads hidden_size as n_embd, so they name one size; allowed: one of them, or both "
                       "with the same value\n")))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
}

/* Later checks named the GPT2Config key a config.json with only the alias does not have: "num_attention_heads": 3
 * with "hidden_size": 64 gave "n_head 3 does not divide n_embd 64" (a tester's pass). Each message now names a size
 * as the file did: the divisibility (64 = 21·3 + 1), RoPE's even d_k (3 / 1 = 3), the shape config.json implies
 * (kMicro's wte.weight is (8, 4); hidden_size 8 wants (8, 8)) and the length limit (70 tokens, "a" and 69 " a",
 * against max_position_embeddings 64); the file with the GPT2Config keys keeps them. */
static void micro_checkpoint(const char *dir, const char *config);
static void test_config_alias_names_in_messages(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *config, *want;
    } rows[] = {
        {"{\"n_layer\": 1, \"num_attention_heads\": 3, \"hidden_size\": 64, \"n_positions\": 8, \"vocab_size\": 8}",
         "/config.json: num_attention_heads 3 does not divide hidden_size 64\n"},
        {"{\"n_layer\": 1, \"n_head\": 3, \"n_embd\": 64, \"n_positions\": 8, \"vocab_size\": 8}",
         "/config.json: n_head 3 does not divide n_embd 64\n"},
        {"{\"n_layer\": 1, \"num_attention_heads\": 1, \"hidden_size\": 3, \"n_positions\": 8, \"vocab_size\": 8, "
         "\"attnviz\": {\"positions\": \"rope\"}}",
         "/config.json: RoPE needs an even d_k; d_k = hidden_size / num_attention_heads = 3 / 1 = 3 (allowed: "
         "hidden_size a multiple of 2·num_attention_heads = 2)\n"},
        {"{\"n_layer\": 1, \"n_head\": 1, \"hidden_size\": 8, \"n_positions\": 8, \"vocab_size\": 8}",
         "/model.safetensors: tensor \"wte.weight\" has shape (8, 4); config.json implies nn.Embedding (vocab_size, "
         "hidden_size) = (8, 8)\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%zu", i);
        const char *dir = tu_in(f, name);
        assert_int_equal(mkdir(dir, 0755), 0);
        micro_checkpoint(dir, rows[i].config);
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "hello", NULL);
        if (r.code != 2 || !strstr(r.err, shown_under(dir, rows[i].want))) fail_msg("row %zu: exit %d, stderr '%s'; want '%s'", i, r.code,
                                                                   r.err, rows[i].want);
        tu_free(&r);
    }
    make_tiny(f->dir);
    char path[4400], words[200] = "a";
    snprintf(path, sizeof path, "%s/config.json", f->dir);
    static const char aliases[] = "{\"model_type\": \"gpt2\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                                  "\"hidden_size\": 64, \"max_position_embeddings\": 64, \"vocab_size\": 50257}";
    write_text(path, aliases, strlen(aliases));
    for (int k = 1; k < 70; k++) strcat(words, " a");
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", words, NULL);
    if (r.code != 2 || !strstr(r.err, "70 tokens is more than the model's 64 positions (max_position_embeddings in "
                                      "config.json); allowed: 1..64 tokens\n"))
        fail_msg("exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
}

/* A merges.txt cut mid-line, as an interrupted download leaves it, said "line 22832: expected two tokens separated
 * by one space, got 1 byte with 0 spaces" with no hint, where a cut vocab.json says "(truncated?)" (a tester's
 * pass). GPT-2's merges.txt cut at byte 200003: 22831 newlines before it (wc -l), so line 22832 (line 1 is
 * "#version: 0.2") is the 1 byte 0xC4, the start of "Ġprosecut ed"'s "Ġ"; at 200013 that line is cut after its space
 * (11 bytes: Ġ is 2). A bad line that ends with its newline gets no such hint. */
static void test_merges_cut_mid_line_says_truncated(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/merges.txt", f->dir);
    size_t n = 0;
    char *text = tu_slurp_file(path, &n);
    static const char hint[] = " (the last line, with no newline at its end: the file looks truncated, as by an "
                               "interrupted download; fetch it again)\n";
    static const struct {
        size_t keep;
        const char *add, *want;
    } rows[] = {
        {200003, "", ": line 22832: expected two tokens separated by one space, got 1 byte with 0 spaces"},
        {200013, "", ": line 22832: expected two tokens separated by one space, got 11 bytes with 1 space"},
        {200003, "\n", ": line 22832: expected two tokens separated by one space, got 1 byte with 0 spaces\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_true(n > rows[i].keep);
        FILE *fp = fopen(path, "wb");
        assert_non_null(fp);
        fwrite(text, 1, rows[i].keep, fp);
        fputs(rows[i].add, fp);
        assert_int_equal(fclose(fp), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "hello", NULL);
        char want[5000];
        snprintf(want, sizeof want, "%s%s%s", tu_sh_word(path), rows[i].want, rows[i].add[0] ? "" : hint);
        if (r.code != 2 || !strstr(r.err, want)) fail_msg("row %zu: exit %d, stderr '%s'; want '%s'", i, r.code, r.err,
                                                           want);
        tu_free(&r);
    }
    free(text);
}

/* --generate stops after config.json's eos_token_id, as Hugging Face's generate does (GPT-2's <|endoftext|>,
 * 50256): it went on past it, "[<|endoftext|>] [<|endoftext|>] ..." (a learner's pass). Here the tiny model's
 * 7th greedy token, "idence" (id 1704), is named the end: 7 tokens, it the last, and the line says why. */
static void test_generate_stops_at_eos(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char path[4400]; /* tests/ref/gpt2/gpt2_f32/config.json, and its eos_token_id */
    static const char config[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                                 "\"n_positions\": 64, \"vocab_size\": 50257, \"layer_norm_epsilon\": 1e-05, "
                                 "\"eos_token_id\": 1704}";
    snprintf(path, sizeof path, "%s/config.json", f->dir);
    write_text(path, config, sizeof config - 1);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "greedy, 7 tokens after the input") ||
        !strstr(r.out, "\n              text: \" Rankings Rankings Rankings Rankings Rankings Rankingsidence\"\n") ||
        !strstr(r.out, "\n              stopped after 7 of 8: the model generated [idence], its end of text "
                       "(eos_token_id 1704 in config.json), where Hugging Face's generate stops too\n"))
        fail_msg("stdout:\n%s", r.out);
    assert_string_equal(r.err, "");
    tu_free(&r);
    /* a list, as Llama 3.1's config.json and generation_config.json give it: any of its ids stops (the first
     * only was kept); 99999 is no id of the vocabulary and stops nothing */
    static const char list[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                               "\"n_positions\": 64, \"vocab_size\": 50257, \"layer_norm_epsilon\": 1e-05, "
                               "\"eos_token_id\": [99999, 7, 1704]}";
    write_text(path, list, sizeof list - 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("list: exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "\n              stopped after 7 of 8: the model generated [idence], its end of text "
                       "(one of eos_token_id's ids, 1704 in config.json), where Hugging Face's generate stops too\n"))
        fail_msg("list: stdout:\n%s", r.out);
    if (strstr(r.err, "eos_token_id")) fail_msg("list: it stopped, yet a note on 99999: %s", r.err); /* it stopped */
    tu_free(&r);
    /* an id past the vocabulary (vocab_size 50257: ids 0..50256) was left out without a word, and --generate ran
     * its whole length as if the folder named no end (a learner's pass): loaded as transformers loads it, with
     * a note naming the key, the id and the vocabulary; with no --generate, no note (nothing depends on it) */
    static const char past[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                               "\"n_positions\": 64, \"vocab_size\": 50257, \"eos_token_id\": 50257}";
    static const char two[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                              "\"n_positions\": 64, \"vocab_size\": 50257, \"eos_token_id\": [-1, 1704, 60000]}";
    static const struct {
        const char *config, *out, *note;
    } left[] = {
        {past, "greedy, 8 tokens after the input", " is outside the vocabulary 0..50256 (vocab_size 50257): "
         "no token has that id, so --generate cannot stop on it\n"},
        {two, "stopped after 7 of 8", NULL}, /* stopped on 1704: the two left out did not matter */
    };
    char want[4600];
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        write_text(path, left[i].config, strlen(left[i].config));
        run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
        if (r.code != 0 || !strstr(r.out, left[i].out)) fail_msg("left %zu: exit %d: %s%s", i, r.code, r.out, r.err);
        snprintf(want, sizeof want, "attnviz: note: eos_token_id 50257 in %s%s", tu_sh_file_word(f->dir, "config.json"), left[i].note ? left[i].note : "");
        if (left[i].note ? !strstr(r.err, want) : strstr(r.err, "eos_token_id") != NULL)
            fail_msg("left %zu: stderr '%s'; want '%s'", i, r.err, left[i].note ? want : "(no note)");
        tu_free(&r);
    }
    /* several ids left out: the first named and how many more; an id given twice is one id ([60000, 60000] was
     * noted as "ids 60000 and 1 more", a maintainer's list of known faults; [60000, -1, 60000, -1] holds two);
     * "its other ids" when the list also names one of the vocabulary (7) */
    static const struct {
        const char *ids, *note; /* note: stderr whole, after "attnviz: note: " and before "DIR/config.json" */
        const char *rest;       /* and after it */
    } many[] = {
        {"[-1, 7, 60000]", "eos_token_id's ids -1 and 1 more in ", " are outside the vocabulary 0..50256 (vocab_size "
         "50257): no token has those ids, so --generate cannot stop on them; it stops only on eos_token_id's other "
         "ids\n"},
        {"[60000, 60000]", "eos_token_id 60000 in ", " is outside the vocabulary 0..50256 (vocab_size 50257): no token "
         "has that id, so --generate cannot stop on it\n"},
        {"[60000, -1, 60000, -1]", "eos_token_id's ids 60000 and 1 more in ", " are outside the vocabulary 0..50256 "
         "(vocab_size 50257): no token has those ids, so --generate cannot stop on them\n"},
    };
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
        char text[512];
        int n = snprintf(text, sizeof text, "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, "
                         "\"n_embd\": 64, \"n_positions\": 64, \"vocab_size\": 50257, \"eos_token_id\": %s}",
                         many[i].ids);
        write_text(path, text, (size_t)n);
        run_attnviz(&r, NULL, "--model", f->dir, "--generate", "3", "--no-plot", "-q", "Hello world", NULL);
        snprintf(want, sizeof want, "attnviz: note: %s%s%s", many[i].note, tu_sh_file_word(f->dir, "config.json"),
                 many[i].rest);
        if (r.code != 0 || !strstr(r.out, "greedy, 3 tokens") || strcmp(r.err, want))
            fail_msg("%s: exit %d, stderr '%s'; want '%s'", many[i].ids, r.code, r.err, want);
        tu_free(&r);
    }
    write_text(path, past, sizeof past - 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "Hello world", NULL);
    if (r.code != 0 || strstr(r.err, "eos_token_id")) fail_msg("no --generate: exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char bad[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                              "\"n_positions\": 64, \"vocab_size\": 50257, \"eos_token_id\": [1704, \"x\"]}";
    write_text(path, bad, sizeof bad - 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "%s: \"eos_token_id\" is [1704,\"x\"]; it must be a token id, a list of them, or null\n",
             tu_sh_file_word(f->dir, "config.json"));
    if (!strstr(r.err, want)) fail_msg("bad list: %s", r.err);
    tu_free(&r);
    /* generation_config.json, as from_pretrained reads it, decides over config.json (Qwen2.5-Instruct's config
     * says one id, its generation_config.json two): the run went on past the second (a Chinese learner's pass).
     * config.json names no stop here; generation_config.json names 1704 */
    write_text(path, config, sizeof config - 1);
    char gen[4400];
    snprintf(gen, sizeof gen, "%s/generation_config.json", f->dir);
    static const char genc[] = "{\"bos_token_id\": 50256, \"eos_token_id\": [50256, 1704]}";
    static const char nostop[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                                 "\"n_positions\": 64, \"vocab_size\": 50257, \"eos_token_id\": 50256}";
    write_text(path, nostop, sizeof nostop - 1);
    write_text(gen, genc, sizeof genc - 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("generation_config: exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "\n              stopped after 7 of 8: the model generated [idence], its end of text "
                       "(one of eos_token_id's ids, 1704 in generation_config.json), where Hugging Face's generate "
                       "stops too\n"))
        fail_msg("generation_config: stdout:\n%s", r.out);
    tu_free(&r);
    static const char genbad[] = "{\"eos_token_id\": \"</s>\"}";
    write_text(gen, genbad, sizeof genbad - 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "8", "--no-plot", "-q", "Hello world", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "%s: \"eos_token_id\" is \"</s>\"; it must be a token id, a list of them, or null\n",
             tu_sh_file_word(f->dir, "generation_config.json"));
    if (!strstr(r.err, want)) fail_msg("bad generation_config: %s", r.err);
    tu_free(&r);
}

/* --generate with standard output on a full disk (`> /dev/full`): exit 1,
 * and the message names what standard output held. Under -q that is only
 * the continuation (what the same run prints on a writable standard output,
 * checked first: it starts at the "generate" line), so "the trace", as it
 * said, named something the run never wrote; without -q, both. */
static void test_generate_on_full_disk(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "3", "--no-plot", "-q", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    static const char head[] = "  generate    greedy, 3 tokens"; /* no blank line first */
    if (strncmp(r.out, head, sizeof head - 1) != 0) fail_msg("-q --generate printed:\n%s", r.out);
    tu_free(&r);
    static const struct {
        const char *q, *want;
    } cases[] = {
        {"-q", "attnviz: error: cannot write the continuation to standard output: No space left on device\n"},
        {"--no-plot", "attnviz: error: cannot write the trace and the continuation to standard output: No space left "
                      "on device\n"},
    };
    for (int k = 0; k < 2; k++) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0) skip();
        tu_run_opts ro = {NULL, full, 0, NULL, 0};
        const char *args[] = {"--model", f->dir, "--generate", "3", "--no-plot", cases[k].q, "Hello world", NULL};
        tu_run_ex(&r, &ro, NULL, 0, args);
        close(full);
        if (r.code != 1) fail_msg("%s: exit %d: %s", cases[k].q, r.code, r.err);
        assert_string_equal(r.err, cases[k].want);
        tu_free(&r);
    }
}

/* A checkpoint whose vocab_size (8) pads past its tokenizer (vocab.json has 6
 * tokens, ids 0..5), as Qwen2.5's 151936 pads past its 151665 tokens, and
 * whose greedy pick is always a padded id. Worked by hand: ln_f.weight = 0
 * and ln_f.bias = 1 make ln_f's output (1, 1, 1, 1) at every position,
 * whatever the input, so logit v = the sum of wte row v. Rows 0..5 are the
 * fixture's (every entry in (-0.5, 0.5): sums in (-2, 2)); row 6 is all 5
 * (sum 20), row 7 all 10 (sum 40). So the argmax is id 7 at every step, id
 * 6 second, p(7) = 1/(1 + e^-20 + ...) = 1.0000 to 4 places; neither has a
 * token. */
static void make_vocab_rows(const char *dir, const float fill[8]);
static void make_padded_vocab(const char *dir) {
    static const float fill[8] = {0, 0, 0, 0, 0, 0, 5, 10};
    make_vocab_rows(dir, fill);
}

/* make_padded_vocab's checkpoint with wte row v all fill[v] where fill[v] is not 0 (the fixture's rows
 * elsewhere): ln_f's output is (1, 1, 1, 1), so logit v = 4 · fill[v]. fc != 0: layer 0's ln_2 gives (1, 1, 1, 1)
 * too (weight 0, bias 1) and every h.0.mlp.c_fc.weight is fc, c_fc.bias 0, so each of the 16 inputs of GELU is
 * 4 · fc. */
static void make_rows_and_fc(const char *dir, const float fill[8], float fc);
static void make_vocab_rows(const char *dir, const float fill[8]) {
    make_rows_and_fc(dir, fill, 0);
}

static void make_rows_and_fc(const char *dir, const float fill[8], float fc) {
    static const char *cfg_json = "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}";
    static const char *vocab = "{\"h\": 0, \"i\": 1, \"\xc4\xa0\": 2, \"a\": 3, \"b\": 4, \"c\": 5}"; /* Ġ: a space */
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path, cfg_json, strlen(cfg_json));
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    write_text(path, vocab, strlen(vocab));
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    write_text(path, "#version: 0.2\n", 14);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, cfg_json, strlen(cfg_json), "config.json", &err)) fail_msg("%s", err.msg);
    av_gpt2_params p = {0};
    float *block = NULL;
    assert_int_equal(gf_params(&p, &block, &cfg), 0);
    for (int c = 0; c < 4; c++) {
        p.ln_f_w[c] = 0.0f, p.ln_f_b[c] = 1.0f;
        for (int v = 0; v < 8; v++)
            if (fill[v] != 0) p.wte[v * 4 + c] = fill[v];
    }
    for (int c = 0; fc != 0 && c < 4; c++) {
        p.h[0].ln_2_w[c] = 0.0f, p.h[0].ln_2_b[c] = 1.0f;
        for (int j = 0; j < 16; j++) p.h[0].mlp_c_fc_w[c * 16 + j] = fc, p.h[0].mlp_c_fc_b[j] = 0.0f;
    }
    int n = av_gpt2_num_tensors(&cfg);
    av_gpt2_tensor *tab = calloc((size_t)n, sizeof *tab);
    av_st_write_tensor *w = calloc((size_t)n, sizeof *w);
    av_gpt2_tensor_table(tab, &cfg, &p);
    for (int i = 0; i < n; i++)
        w[i] = (av_st_write_tensor){tab[i].name, AV_ST_F32, tab[i].ndim, {tab[i].shape[0], tab[i].shape[1]}, *tab[i].slot};
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (av_safetensors_write(path, w, n, &err)) fail_msg("%s", err.msg);
    free(tab);
    free(w);
    free(block);
    free(p.h);
}

/* A vocab.json with a "[PAD]" token (made by no merge, as "<|endoftext|>" is not) was refused: "merges.txt ...:
 * token 0 "[PAD]" is made by no merge (merges.txt has 0 merges: truncated, or from another model?)", while Hugging
 * Face's GPT-2 tokenizer loads it. Like "<|endoftext|>", it is only in the vocabulary: the text "[PAD]" is encoded
 * byte by byte (no merges here). Other unreachable tokens are still refused. */
static void test_bracket_specials_need_no_merge(void **state) {
    tu_fixture *f = *state;
    static const char *cfg_json = "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 16, \"vocab_size\": 10}";
    static const char *vocab = "{\"[PAD]\": 0, \"h\": 1, \"i\": 2, \"\xc4\xa0\": 3, \"[\": 4, \"]\": 5, \"P\": 6, "
                               "\"A\": 7, \"D\": 8, \"<|endoftext|>\": 9}"; /* Ġ: a space */
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", f->dir);
    write_text(path, cfg_json, strlen(cfg_json));
    snprintf(path, sizeof path, "%s/vocab.json", f->dir);
    write_text(path, vocab, strlen(vocab));
    snprintf(path, sizeof path, "%s/merges.txt", f->dir);
    write_text(path, "#version: 0.2\n", 14);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, cfg_json, strlen(cfg_json), "config.json", &err)) fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/model.safetensors", f->dir);
    if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "", 0, &err)) fail_msg("%s", err.msg);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi [PAD]", NULL);
    if (r.code != 0 || !strstr(r.out, "  tokens     [h] [i] [␣] [[] [P] [A] [D] []]\n")) /* no merges: bytes */
        fail_msg("exit %d: %s%s", r.code, r.out, r.err);
    tu_free(&r);
    snprintf(path, sizeof path, "%s/vocab.json", f->dir);
    static const char *cut = "{\"[PAD\": 0, \"h\": 1, \"i\": 2}"; /* not a bracketed special */
    write_text(path, cut, strlen(cut));
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    if (r.code != 2 || !strstr(r.err, "token 0 \"[PAD\" is made by no merge (merges.txt has 0 merges"))
        fail_msg("\"[PAD\": exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* An id the model produces but the tokenizer has no token for (vocab_size
 * pads past it) is shown as <id N> wherever ids become text: the top-5 list,
 * the tokens --generate adds (which go on: Hugging Face's generate emits such
 * ids and its decode leaves them out of the text), the --html page's trace.
 * It stopped with "token id 7 at position 0 is outside 0..5", exit 2. */
static void test_generate_ids_past_the_tokenizer(void **state) {
    tu_fixture *f = *state;
    make_padded_vocab(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "3", "--no-plot", "--html", "-o", tu_in(f, "o"), "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "[h] [i]")); /* "hi": ids 0, 1 */
    /* logits 40 and 20 (4 · fill): p = 1 / (1 + e^-20) and e^-20 / (1 + e^-20) = 2.0612e-09, the others about
     * e^-40 below the first; "%.4f" printed that p as 0.0000, so the list is in scientific notation
     * (test_top5_shows_the_ranking) */
    if (!strstr(r.out, "1. p = 1.0000e+00   <id 7>   (id 7)") || !strstr(r.out, "2. p = 2.0612e-09   <id 6>   (id 6)"))
        fail_msg("top 5:\n%s", strstr(r.out, "p = softmax") ? strstr(r.out, "p = softmax") : r.out);
    if (!strstr(r.out, "generate    greedy, 3 tokens after the input: [<id 7>] [<id 7>] [<id 7>]\n"
                       "              ids: 7 7 7\n"
                       "              text: \"\"\n"))
        fail_msg("generate:\n%s", r.out);
    assert_non_null(strstr(r.out, "3 of the 3 generated ids have no token in the tokenizer"));
    char *page = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "1. p = 1.0000e+00   \\u003cid 7\\u003e   (id 7)")); /* the trace, as JSON in the page */
    free(page);
    tu_free(&r);
}

/* An id inside the tokenizer's that no token has: tokenizer.json's added token "h" at id 7, whose text is
 * model.vocab's token 0, leaves 7 to no text (as Hugging Face's tokenizers; a6b47ad), and make_padded_vocab's
 * model picks 7 (logit 40). --generate said "the model's vocab_size 8 is past the tokenizer's ids", but the file's
 * ids are 0..7, as many as vocab_size: the reason was wrong. Worked by hand from the file below. */
static void test_generate_an_added_tokens_orphaned_id(void **state) {
    tu_fixture *f = *state;
    make_padded_vocab(f->dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/vocab.json", f->dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/merges.txt", f->dir);
    assert_int_equal(unlink(path), 0);
    static const char *tok = "{\"added_tokens\":[{\"id\":7,\"content\":\"h\",\"special\":false}],\"normalizer\":null,"
                             "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,"
                             "\"use_regex\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"h\":0,\"i\":1,\"\xc4\xa0\":2,\"a\":3,"
                             "\"b\":4,\"c\":5,\"d\":6},\"merges\":[]}}";
    snprintf(path, sizeof path, "%s/tokenizer.json", f->dir);
    write_text(path, tok, strlen(tok));
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--generate", "2", "--no-plot", "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.err, "added token \"h\" has id 7, but \"h\" is already token 0"));
    if (!strstr(r.out, "generate    greedy, 2 tokens after the input: [<id 7>] [<id 7>]\n"
                       "              ids: 7 7\n"
                       "              text: \"\"\n"
                       "              (2 of the 2 generated ids have no token in the tokenizer, shown <id N>: id 7 is "
                       "within the tokenizer's ids 0..7 but no token's (an added token whose text is an earlier "
                       "token's takes that token's id and leaves its own to no text, as the note on tokenizer.json "
                       "says); the text leaves them out, as Hugging Face's decode does)\n"))
        fail_msg("generate:\n%s", r.out);
    assert_null(strstr(r.out, "past the tokenizer's ids"));
    tu_free(&r);
}

/* The top-5 list ranks by logit: with logits 1000, 200, 100 and 50 for ids 7, 6, 5 and 4 (rows of 250, 50, 25
 * and 12.5; the fixture's rows 0..3 sum to under 2), every p but the first underflows to 0 in double (e^-800),
 * and ranking by p listed ids 0..3 ("h", "i", "Ġ", "a") after id 7, whatever their logits (a lying-checkpoint
 * pass: ln_f.weight of 3e37). Worked by hand: 7, 6, 5 (c), 4 (b). */
static void test_top5_ranks_by_logit_where_p_underflows(void **state) {
    tu_fixture *f = *state;
    static const float fill[8] = {0, 0, 0, 0, 12.5f, 25, 50, 250};
    make_vocab_rows(f->dir, fill);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *want[] = {"1. p = 1.0000   <id 7>   (id 7)", "2. p = 0.0000   <id 6>   (id 6)",
                          "3. p = 0.0000   c   (id 5)", "4. p = 0.0000   b   (id 4)"};
    for (int k = 0; k < 4; k++)
        if (!strstr(r.out, want[k])) fail_msg("no '%s' in:\n%s", want[k], r.out);
    tu_free(&r);
}

/* The top-5 list shows the ranking (a known fault): every p printed "%.4f", so a model whose probabilities are close
 * or small printed them alike ("p = 0.0001" five times on a random tiny model of a large vocabulary, "1. p = 1.0000"
 * over four "p = 0.0000" on a trained toy model). The list now goes to scientific notation with 4 digits after the
 * point, numpy's and PyTorch's form for small probabilities (1.1400e-04), when "%.4f" prints two different p's
 * alike or a p that is not 0 as 0.0000, and stays "%.4f" otherwise. Worked by hand: fill[6] = 10 and fill[7] =
 * 10 + 10 · 2^-20 (float32 steps of 2^-20 there) give logits 40 and 40 + 40 · 2^-20, the rest under 8 (e^-32 of
 * these, below 1e-13), so p_7 = 1 / (1 + e^-Δ) with Δ = 3.8147e-05: 0.5 + Δ/4 = 0.50000954 and p_6 = 0.49999046,
 * "5.0001e-01" and "4.9999e-01" (both 0.5000 in "%.4f"). fill[7] = 12 instead: Δ = 8, p_7 = 1 / (1 + e^-8) =
 * 0.99966465 and p_6 = 0.00033535 "0.9997" and "0.0003", both distinct, but id 3's p (e^-48 over it) prints
 * 0.0000; so scientific too. fill[6] = 0.75, fill[7] = 1: logits 3 and 4 and the fixture's rows under 2 print
 * distinct values above 0.0000 in "%.4f" (the list as before), checked by its having no "e-". */
static void test_top5_shows_the_ranking(void **state) {
    tu_fixture *f = *state;
    static const float close[8] = {0, 0, 0, 0, 0, 0, 10, 10 + 10 * 0x1p-20f};
    make_vocab_rows(f->dir, close);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "1. p = 5.0001e-01   <id 7>   (id 7)\n") || !strstr(r.out, "2. p = 4.9999e-01   <id 6>   (id 6)\n"))
        fail_msg("p_7 0.50000954 and p_6 0.49999046 should read 5.0001e-01 and 4.9999e-01:\n%s",
                 strstr(r.out, "p = softmax") ? strstr(r.out, "p = softmax") : r.out);
    tu_free(&r);
    static const float apart[8] = {0, 0, 0, 0, 0, 0, 10, 12};
    make_vocab_rows(f->dir, apart);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "1. p = 9.9966e-01   <id 7>   (id 7)\n") || !strstr(r.out, "2. p = 3.3535e-04   <id 6>   (id 6)\n")
        || strstr(r.out, "p = 0.0000"))
        fail_msg("p_7 0.99966465 and p_6 0.00033535 should read 9.9966e-01 and 3.3535e-04:\n%s",
                 strstr(r.out, "p = softmax") ? strstr(r.out, "p = softmax") : r.out);
    tu_free(&r);
    static const float plain[8] = {0, 0, 0, 0, 0, 0, 0.75f, 1};
    make_vocab_rows(f->dir, plain);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *list = strstr(r.out, "p = softmax");
    if (!list || !strstr(list, "1. p = 0.") || strstr(list, "e-") || strstr(list, "e+") || strstr(list, "p = 0.0000"))
        fail_msg("an ordinary list should stay in \"%%.4f\":\n%s", list ? list : r.out);
    tu_free(&r);
}

/* A checkpoint whose weights are finite but too large said "attnviz: error: layer 0: the residual stream overflowed
 * float32 (a value became infinite); the checkpoint's weights are too large", naming no folder: a user who ran
 * several (a script over checkpoints, --generate on two) could not tell which one. By hand: every
 * h.0.mlp.c_fc.weight 3e38 makes each GELU input 4 · 3e38 = 1.2e39, past float32's largest 3.4028235e38, so inf,
 * and the block's output (the residual stream of layer 0, nn/gpt2.c's check after each block) is no longer
 * finite; the scores before it are (the fixture's small weights). The message now starts "--model DIR: ". */
static void test_overflow_names_the_folder(void **state) {
    tu_fixture *f = *state;
    static const float fill[8] = {0};
    make_rows_and_fc(f->dir, fill, 3e38f);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hi", NULL);
    char want[4600];
    snprintf(want, sizeof want, "attnviz: error: --model %s: layer 0: the residual stream overflowed float32 (a value "
             "became infinite); the checkpoint's weights are too large\n", tu_sh_word(f->dir));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
}

/* ------------------------------------------------------------------------- */
/* bad checkpoints and options */

/* A micro GPT-2: 1 layer, 1 head, d_model 4, 8 positions, vocabulary 8. */
static const char *kMicro = "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}";

static void micro_checkpoint(const char *dir, const char *config) {
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path, kMicro, strlen(kMicro));
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, kMicro, strlen(kMicro), "c", &err)) fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "", 0, &err)) fail_msg("%s", err.msg);
    if (config) {
        snprintf(path, sizeof path, "%s/config.json", dir);
        write_text(path, config, strlen(config));
    }
}

/* model.safetensors = 8-byte length, hdr, dlen zero bytes. */
static void raw_checkpoint(const char *dir, const char *hdr, size_t dlen, uint64_t lie_len) {
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *fp = fopen(path, "wb");
    uint64_t n = lie_len ? lie_len : strlen(hdr);
    for (int i = 0; i < 8; i++) fputc((int)((n >> (8 * i)) & 0xff), fp);
    fputs(hdr, fp);
    for (size_t i = 0; i < dlen; i++) fputc(0, fp);
    fclose(fp);
}

/* Patch the file: truncate to `keep` bytes, or overwrite bytes at `at`. */
static void truncate_checkpoint(const char *dir, long keep) {
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    assert_int_equal(truncate(path, keep), 0);
}

/* DIR/model.safetensors's header with its first find replaced by repl, of the same length (tu_patch_header). */
static void poke_checkpoint(const char *dir, const char *find, const char *repl) {
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    assert_int_equal(tu_patch_header(path, find, repl), 0);
}

static void nan_in_wte(const char *dir) {
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    size_t len = 0;
    unsigned char *buf = (unsigned char *)tu_slurp_file(path, &len);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | buf[i];
    unsigned char nan[4] = {0x00, 0x00, 0xc0, 0x7f};
    memcpy(buf + 8 + hl + 4 * 5, nan, 4); /* wte is first: element 5 */
    write_text(path, (char *)buf, len);
    free(buf);
}

enum { SETUP_MICRO, SETUP_RAW, SETUP_NONE };

/* attnviz's rule for a missing size of config.json, in the words of the message */
#define MISSING_WHY                                                                                               \
    "attnviz needs n_layer, n_head, n_embd, n_positions and vocab_size, and guesses none: transformers' "        \
    "GPT2Config would take GPT-2 small's 12, 12, 768, 1024 and 50257, and a wrong guess runs another model"

static void test_bad_checkpoints(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *name;
        int code;
        const char *msg;
    } cases[] = {
        {"truncated", 2, "is past the end of the data"},
        {"header length too big", 2, "is larger than the file"},
        {"overlapping offsets", 2, "overlap tensor \"a\""},
        {"unknown dtype", 2, "unknown dtype \"F99\""},
        {"non-JSON header", 2, "header: not valid JSON near byte "},
        {"wrong shape vs config", 2, "tensor \"wte.weight\" has shape (8, 4); config.json implies nn.Embedding (vocab_size, n_embd) = (8, 8)"},
        {"missing tensor", 2, "missing tensor \"h.1.ln_1.weight\""},
        /* config.json's attnviz.positions "rope" against a checkpoint with wpe.weight: the key is named, not the
         * tensor blamed (it said 'unexpected tensor "wpe.weight" (not part of a GPT-2 with 1 layer and no learned
         * positions)') */
        {"unexpected tensor", 2, "/config.json says attnviz.positions \"rope\", but "},
        {"NaN weight", 2, "tensor \"wte.weight\" contains NaN at index 5"},
        {"integer dtype", 2, "tensor \"ln_f.bias\" has dtype I32; expected F32, F16 or BF16"},
        /* a missing size said "(GPT2Config needs n_layer, n_head, n_embd, n_positions, vocab_size)", but GPT2Config
         * has a default for each (transformers' configuration_gpt2.py: vocab_size=50257, n_positions=1024,
         * n_embd=768, n_layer=12, n_head=12): attnviz's own rule is said, and what to write */
        {"config missing key", 2, "/case10/config.json: missing key \"n_embd\" (" MISSING_WHY "); add \"n_embd\" with "
                                  "the model's width (wte.weight's columns)\n"},
        {"config not JSON", 2, "/config.json: not valid JSON near byte 0 of 11\n"}, /* "n_layer = 1": no "(truncated?)" */
        {"config wrong type", 2, "\"n_head\" is \"one\"; it must be a whole number"},
        {"no config.json", 2, "has no config.json; a GPT-2 model folder holds config.json, model.safetensors, vocab.json and merges.txt (or tokenizer.json instead of both); a Llama/Qwen2 folder holds config.json, model.safetensors (or its index and shards) and tokenizer.json"},
        {"no model.safetensors", 2, "has no model.safetensors; a GPT-2 model folder holds"},
        {"empty model.safetensors", 2, "fewer than the 8-byte header length"},
        /* vocab.json's ids are 0..50256, kMicro's vocab_size is 8: what is allowed is said exactly */
        {"vocab larger than the model's", 2, "has 50257 tokens, ids 0..50256, but config.json's vocab_size is 8: token "
                                             "id 50256 must fit within vocab_size 8 (ids 0..7); a tokenizer may have "
                                             "fewer tokens than vocab_size, not more"},
        {"no vocab.json", 2, "has no vocab.json; a GPT-2 model folder holds"},
        {"no merges.txt", 2, "has no merges.txt; a GPT-2 model folder holds"},
        {"empty folder", 2, "has no config.json; a GPT-2 model folder holds"},
        {"no such folder", 2, "(or its index and shards) and tokenizer.json (attnviz never downloads: fetch one once, e.g. "
                             "hf download gpt2 config.json model.safetensors vocab.json merges.txt "
                             "--local-dir gpt2, or train a toy one: attnviz --train reverse -o DIR)"},
        {"a file, not a folder", 2, " is not a folder; a GPT-2 model folder holds"},
        /* a GPT-2 folder whose config.json says model_type "llama" or "qwen2": the key, its value, what the folder
         * holds and what is allowed; it said "has no tokenizer.json; a GPT-2 model folder holds ..." (a learner's
         * pass). A Llama folder without tokenizer.json keeps that message (test_llama_cli). */
        {"GPT-2 weights with model_type llama", 2, "/case22: config.json's model_type is \"llama\", but the folder holds a "
                                                   "GPT-2 (model.safetensors' wte.weight); allowed: \"gpt2\" for this "
                                                   "folder (\"llama\" and \"qwen2\" are for a Llama/Qwen2 folder: "
                                                   "hidden_size, model.embed_tokens.weight, tokenizer.json)\n"},
        {"config check names the folder", 2, "/config.json: n_head 3 does not divide n_embd 4"},
        /* Python's json.dumps writes a float nan or inf as NaN, Infinity, -Infinity (allow_nan=True), which JSON
         * (RFC 8259 §6) does not have: named, at its byte (98 of 102: counted with Python's str.find). It said
         * "not valid JSON near byte 98 of 102" */
        {"config NaN", 2, "/config.json: not valid JSON at byte 98 of 102: NaN is not a JSON number (JSON has no NaN "
                          "or Infinity; Python's json.dumps writes them unless allow_nan=False); write a finite number\n"},
        {"config -Infinity", 2, "/config.json: not valid JSON at byte 98 of 108: -Infinity is not a JSON number"},
        /* one byte of data after the header: "1 byte", not "1 bytes" */
        {"one byte of data", 2, "/model.safetensors: tensor \"a\": data_offsets end 8 is past the end of the data (1 byte; "
                                "file truncated?)\n"},
        /* a folder with PyTorch's pickle or save_pretrained's shards in place of model.safetensors: the file is
         * named and the one line of Python that writes model.safetensors given; it said "has no model.safetensors;
         * a GPT-2 model folder holds ..." */
        {"pytorch_model.bin only", 2, "has no model.safetensors, only pytorch_model.bin (PyTorch's pickle format, "
                                      "which attnviz does not read); convert it once, in that folder: python3 -c "
                                      "\"import torch, safetensors.torch as s; t = torch.load('pytorch_model.bin');"},
        {"sharded GPT-2", 2, "has no model.safetensors but model.safetensors.index.json and shards; a GPT-2 is read "
                             "from one file: join them once, in that folder: python3 -c \"import json, "},
        /* a hand-edited config.json with a comma after its last member or element is told so, at the comma's byte;
         * it said only "not valid JSON near byte 76 of 77" (and of a nested one "...; it ends before its closing
         * '}' (truncated?)", as the file ended in ",") */
        {"config trailing comma", 2, "/config.json: not valid JSON near byte 76 of 77: a ',' at byte 74 before the "
                                     "closing '}' (JSON allows no comma after the last member of an object; remove "
                                     "it)\n"},
        {"config trailing comma in a nested array", 2, "/config.json: not valid JSON near byte 112 of 116: a ',' at byte "
                                                       "111 before the closing ']' (JSON allows no comma after the last "
                                                       "element of an array; remove it)\n"},
        /* tie_word_embeddings false without lm_head.weight ran tied and said "tied to the token embedding", while
         * transformers draws a random lm_head for it: refused, naming the key and the tensor. With lm_head.weight
         * (here equal to wte) it loads: the error is then the missing tokenizer's. A key that is no bool is named.
         * The message offered "or a checkpoint with lm_head.weight", but one that differs from wte.weight is refused
         * ("lm_head.weight differs from wte.weight; only GPT-2's tied unembedding is supported", test_gpt2): the
         * alternative is said as it is allowed. */
        {"untied config without lm_head", 2, "/model.safetensors: config.json's tie_word_embeddings is false, but there "
                                             "is no tensor \"lm_head.weight\" (transformers would draw a random "
                                             "lm_head, so no logits of this model can be computed); allowed: "
                                             "tie_word_embeddings true (or absent, GPT2Config's default) to use "
                                             "wte.weight as the output layer, or a checkpoint whose lm_head.weight "
                                             "equals wte.weight (attnviz runs a GPT-2 only with its output layer tied "
                                             "to wte)\n"},
        {"untied config with lm_head", 2, "has no vocab.json; a GPT-2 model folder holds"},
        {"tie_word_embeddings not a bool", 2, "/config.json: \"tie_word_embeddings\" is \"no\"; it must be true or false"},
        /* save_pretrained's shards without their index: it said "has no model.safetensors; a GPT-2 model folder
         * holds ...", as of a folder with no weights; the shards are counted and named and joined by their names */
        {"sharded GPT-2 without its index", 2, "has no model.safetensors, only 1 shard file "
                                               "(model-00001-of-00001.safetensors) without its "
                                               "model.safetensors.index.json; a GPT-2 is read from one file: join them "
                                               "once, in that folder: python3 -c \"import glob, "},
        {"GPT-2 folder with model_type llama", 2, "/case35: config.json's model_type is \"llama\", but the folder holds a "
                                                  "GPT-2 (config.json's n_layer, n_embd; model.safetensors' wte.weight; "
                                                  "vocab.json and merges.txt); allowed: \"gpt2\" for this folder "
                                                  "(\"llama\" and \"qwen2\" are for a Llama/Qwen2 folder: hidden_size, "
                                                  "model.embed_tokens.weight, tokenizer.json)\n"},
        /* a Post-LN one: what --train writes for it */
        {"Post-LN GPT-2 folder with model_type qwen2", 2, "config.json's model_type is \"qwen2\", but the folder holds a "
                                                          "GPT-2 (config.json's n_layer, n_embd; model.safetensors' "
                                                          "wte.weight); allowed: \"attnviz_gpt2\" for this folder, as "
                                                          "--train writes it for this layout (\"llama\""},
        /* a folder cloned without Git LFS: model.safetensors is the pointer file's text. It said "header length
         * 2336927755350992246 is larger than the file (134 bytes); truncated or not a safetensors file" */
        {"Git LFS pointer", 2, "/model.safetensors: a Git LFS pointer file (134 bytes of text beginning \"version \"), "
                               "not the weights: the model was cloned without Git LFS; run git lfs install && git lfs "
                               "pull in its folder, or download the file itself (e.g. hf download)\n"},
        /* a web page saved in its place: its first bytes are shown */
        {"HTML page", 2, "is larger than the file (38 bytes); truncated or not a safetensors file (the file begins "
                         "with the text \"<!DOCTYP\")\n"},
        /* the pointer in place of a JSON or text file of the folder: named as the weights' is. They said
         * "x1/tokenizer.json: not valid JSON near byte 0 of 134" (config.json, vocab.json, tokenizer.json) and
         * "merges.txt: line 1 ..." */
        {"Git LFS pointer config.json", 2, "/config.json: a Git LFS pointer file (134 bytes of text beginning "
                                           "\"version \"), not the file's contents: the model was cloned without Git "
                                           "LFS; run git lfs install && git lfs pull in its folder, or download the "
                                           "file itself (e.g. hf download)\n"},
        {"Git LFS pointer vocab.json", 2, "/vocab.json: a Git LFS pointer file (134 bytes of text beginning \"version "
                                          "\"), not the file's contents: the model was cloned without Git LFS; run "
                                          "git lfs install && git lfs pull in its folder"},
        {"Git LFS pointer merges.txt", 2, "/merges.txt: a Git LFS pointer file (134 bytes of text beginning \"version "
                                          "\"), not the file's contents: the model was cloned without Git LFS; run "
                                          "git lfs install && git lfs pull in its folder"},
        {"Git LFS pointer tokenizer.json", 2, "/tokenizer.json: a Git LFS pointer file (134 bytes of text beginning "
                                              "\"version \"), not the file's contents: the model was cloned without "
                                              "Git LFS; run git lfs install && git lfs pull in its folder"},
        /* a download that stopped before its last byte: huggingface_hub's partial file, a browser's, and the one
         * huggingface-cli download --local-dir keeps in .cache/huggingface/download/ (HASH.ETAG.incomplete). They
         * said "has no model.safetensors; a GPT-2 model folder holds ...", as of a folder never downloaded into */
        {"unfinished download .incomplete", 2, "/case43 has no model.safetensors, but holds "
                                               "model.safetensors.incomplete, the partial file of a download that did "
                                               "not finish; run the download again to finish it (hf download "
                                               "resumes where it stopped)\n"},
        {"unfinished download .part", 2, "/case44 has no model.safetensors, but holds model.safetensors.part, the "
                                         "partial file of a download that did not finish;"},
        {"unfinished download in .cache", 2, "/case45 has no model.safetensors, but holds "
                                             ".cache/huggingface/download/Gh3kZq2.8c1e0f.incomplete, the partial file "
                                             "of a download that did not finish;"},
        /* save_pretrained(safe_serialization=False)'s shards: it said "has no model.safetensors; a GPT-2 model
         * folder holds ...", as of a folder with no weights; now they are named, with the line that joins them */
        {"sharded pytorch_model.bin", 2, "/case46 has no model.safetensors, only pytorch_model.bin.index.json and its "
                                         "shards (PyTorch's pickle format, which attnviz does not read); join and "
                                         "convert them once, in that folder: python3 -c \"import json, torch, "
                                         "safetensors.torch as s; t = {}; [t.update(torch.load(f)) for f in "
                                         "set(json.load(open('pytorch_model.bin.index.json'))['weight_map'].values())]; "
                                         "s.save_file({k: v.clone() for k, v in t.items()}, 'model.safetensors', "
                                         "{'format': 'pt'})\"\n"},
        /* n_ctx, the older name of the context length, without n_positions: it said only 'missing key
         * "n_positions" (GPT2Config needs ...)'; transformers' GPT2Config does not read n_ctx as n_positions */
        {"config n_ctx without n_positions", 2, "/case47/config.json: missing key \"n_positions\" (" MISSING_WHY "); "
                                                "it has \"n_ctx\": 8, an older name of the context length, which "
                                                "transformers' GPT2Config does not read as n_positions: add "
                                                "\"n_positions\" with the model's context length (wpe.weight's rows)\n"},
        /* the shards without their index: "has no model.safetensors; a GPT-2 model folder holds ..." (a tester's
         * pass) */
        {"pytorch shards without index", 2, "/case48 has no model.safetensors, only PyTorch shards "
                                            "(pytorch_model-00001-of-00002.bin, ..., PyTorch's pickle format, which "
                                            "attnviz does not read) and no pytorch_model.bin.index.json; join and "
                                            "convert them once, in that folder: python3 -c \"import glob, torch, "
                                            "safetensors.torch as s; t = {}; [t.update(torch.load(f)) for f in "
                                            "sorted(glob.glob('pytorch_model-*-of-*.bin'))]; s.save_file({k: v.clone() "
                                            "for k, v in t.items()}, 'model.safetensors', {'format': 'pt'})\"\n"},
        {"config without n_positions", 2, "/case49/config.json: missing key \"n_positions\" (" MISSING_WHY "); add "
                                          "\"n_positions\" with the model's context length (wpe.weight's rows)\n"},
        /* GPT2LMHeadModel's names ("transformer." prefix, as transformer.wte.weight has it) but one tensor without
         * it, as a hand-written conversion leaves it: transformers reads a state dict's names all one way, and
         * the tensor is GPT-2's. It said 'unexpected tensor "h.0.ln_1.weight" (not part of a GPT-2 with 1 layer
         * and learned positions)' (a learner's pass) */
        {"one tensor without the transformer. prefix", 2, "/case50/model.safetensors: tensor \"h.0.ln_1.weight\" has "
                                                          "no \"transformer.\" prefix, but \"transformer.wte.weight\" "
                                                          "has it: a GPT-2 checkpoint names its tensors all one way, "
                                                          "with the prefix (GPT2LMHeadModel's state dict) or without "
                                                          "(GPT2Model's), as transformers reads them; rename them one "
                                                          "way\n"},
        /* c_attn stored as nanoGPT's nn.Linear, (3·n_embd, n_embd) = (12, 4), under GPT-2's name: the transpose is
         * said, and that the square c_proj must be transposed too. It said only "...implies Conv1D (in, out) =
         * (4, 12)" */
        {"c_attn as nn.Linear", 2, "/case51/model.safetensors: tensor \"h.0.attn.c_attn.weight\" has shape (12, 4); "
                                   "config.json implies Conv1D (in, out) = (4, 12): it is the transpose, an nn.Linear "
                                   "(out, in) weight (as nanoGPT's); transformers' GPT-2 stores c_attn, c_proj and "
                                   "c_fc as Conv1D (in, out): transpose each of their weights (.t()) when converting, "
                                   "attn.c_proj's too, whose square shape cannot tell\n"},
        /* a shard of 73 bytes is named whole: AV_SHOWN(shard, 89) kept its first 40 bytes with no mark */
        {"long shard name without its index", 2, "has no model.safetensors, only 1 shard file "
                                                 "(model-00001-of-00001-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.safetensors) "
                                                 "without its model.safetensors.index.json; "},
        /* a tensor's name holding a newline (the JSON escape "\n", 2 bytes in the header for 1) broke the message
         * over two lines: h.0.ln_1.bias (13 bytes) renamed in place to x, "\n" and 10 x */
        {"unexpected tensor with a newline", 2, "/case53/model.safetensors: unexpected tensor \"x<U+000A>xxxxxxxxxx\" "
                                                "(not part of a GPT-2 with 1 layer and learned positions)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/case%zu", f->dir, i);
        assert_int_equal(mkdir(dir, 0755), 0);
        micro_checkpoint(dir, NULL);
        char path[4400];
        switch (i) {
        case 0: truncate_checkpoint(dir, 1300); break; /* the header is 8 + 1176 bytes */
        case 1: raw_checkpoint(dir, "{}", 0, 4096); break;
        case 2: raw_checkpoint(dir, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                                    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, 0); break;
        case 3: poke_checkpoint(dir, "\"dtype\":\"F32\"", "\"dtype\":\"F99\""); break;
        case 4: raw_checkpoint(dir, "{\"a\": [1, 2", 0, 0); break;
        case 5: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 8, \"n_positions\": 8, \"vocab_size\": 8}"); break;
        case 6: micro_checkpoint(dir, "{\"n_layer\": 2, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}"); break;
        case 7: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, \"attnviz\": {\"positions\": \"rope\"}}"); break;
        case 8: nan_in_wte(dir); break;
        case 9: poke_checkpoint(dir, "\"ln_f.bias\":{\"dtype\":\"F32\",\"shape\":[4]", "\"ln_f.bias\":{\"dtype\":\"I32\",\"shape\":[4]"); break;
        case 10: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_positions\": 8, \"vocab_size\": 8}"); break;
        case 11: micro_checkpoint(dir, "n_layer = 1"); break;
        case 12: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": \"one\", \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}"); break;
        case 13: snprintf(path, sizeof path, "%s/config.json", dir); unlink(path); break;
        case 14: snprintf(path, sizeof path, "%s/model.safetensors", dir); unlink(path); break;
        case 15: truncate_checkpoint(dir, 3); break;
        case 16: {
            char *voc = tu_gpt2_vocab_dir();
            snprintf(path, sizeof path, "%s/vocab.json", voc);
            copy_into(dir, "vocab.json", path);
            snprintf(path, sizeof path, "%s/merges.txt", voc);
            copy_into(dir, "merges.txt", path);
            rm_rf(voc);
            break;
        }
        case 18: { /* vocab.json but no merges.txt */
            char *voc = tu_gpt2_vocab_dir();
            snprintf(path, sizeof path, "%s/vocab.json", voc);
            copy_into(dir, "vocab.json", path);
            rm_rf(voc);
            break;
        }
        case 19: rm_rf(strdup(dir)); assert_int_equal(mkdir(dir, 0755), 0); break;
        case 20: rm_rf(strdup(dir)); break;
        case 21: rm_rf(strdup(dir)); write_text(dir, "{}", 2); break;
        case 22: micro_checkpoint(dir, "{\"model_type\": \"llama\"}"); break;
        case 23: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 3, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}"); break;
        case 24: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, "
                                       "\"layer_norm_epsilon\": NaN}"); break;
        case 25: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, "
                                       "\"layer_norm_epsilon\": -Infinity}"); break;
        case 26: raw_checkpoint(dir, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 1, 0); break;
        case 27:
        case 28:
        case 34: {
            char to[4400];
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            snprintf(to, sizeof to, "%s/%s", dir, i == 27 ? "pytorch_model.bin" : "model-00001-of-00001.safetensors");
            assert_int_equal(rename(path, to), 0);
            snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
            static const char index[] = "{\"weight_map\": {\"wte.weight\": \"model-00001-of-00001.safetensors\"}}";
            if (i == 28) write_text(path, index, sizeof index - 1);
            break;
        }
        case 29: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8,\n}"); break;
        case 30: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, "
                                       "\"architectures\": [\"GPT2LMHeadModel\",],\n}"); break;
        case 31: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, "
                                       "\"tie_word_embeddings\": false}"); break;
        case 32: {
            static const char untied[] = "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, "
                                         "\"vocab_size\": 8, \"tie_word_embeddings\": false}";
            av_gpt2_config cfg;
            av_err err = {{0}};
            if (av_gpt2_config_parse(&cfg, kMicro, strlen(kMicro), "c", &err)) fail_msg("%s", err.msg);
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "", 1, &err)) fail_msg("%s", err.msg); /* lm_head = wte */
            snprintf(path, sizeof path, "%s/config.json", dir);
            write_text(path, untied, sizeof untied - 1);
            break;
        }
        case 33: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8, "
                                       "\"tie_word_embeddings\": \"no\"}"); break;
        case 35: {
            micro_checkpoint(dir, "{\"model_type\": \"llama\", \"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, "
                                  "\"n_positions\": 8, \"vocab_size\": 8}");
            char *voc = tu_gpt2_vocab_dir();
            snprintf(path, sizeof path, "%s/vocab.json", voc);
            copy_into(dir, "vocab.json", path);
            snprintf(path, sizeof path, "%s/merges.txt", voc);
            copy_into(dir, "merges.txt", path);
            rm_rf(voc);
            break;
        }
        case 36: micro_checkpoint(dir, "{\"model_type\": \"qwen2\", \"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, "
                                       "\"n_positions\": 8, \"vocab_size\": 8, \"attnviz\": {\"norm\": \"post\"}}"); break;
        case 37:
        case 38: {
            static const char lfs[] = "version https://git-lfs.github.com/spec/v1\n"
                                      "oid sha256:248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707\n"
                                      "size 548105171\n";
            static const char page[] = "<!DOCTYPE html><p>Not Found</p></html>";
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            if (i == 37) write_text(path, lfs, sizeof lfs - 1);
            else write_text(path, page, sizeof page - 1);
            break;
        }
        case 39:
        case 40:
        case 41:
        case 42: { /* the pointer in place of config.json, vocab.json, merges.txt, tokenizer.json */
            static const char lfs[] = "version https://git-lfs.github.com/spec/v1\n"
                                      "oid sha256:248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707\n"
                                      "size 548105171\n";
            static const char *const file[] = {"config.json", "vocab.json", "merges.txt", "tokenizer.json"};
            char *voc = tu_gpt2_vocab_dir();
            for (int k = 1; k <= 2 && i != 42; k++) {
                snprintf(path, sizeof path, "%s/%s", voc, file[k]);
                copy_into(dir, file[k], path);
            }
            rm_rf(voc);
            snprintf(path, sizeof path, "%s/%s", dir, file[i - 39]);
            write_text(path, lfs, sizeof lfs - 1);
            break;
        }
        case 43:
        case 44:
        case 45: { /* model.safetensors renamed to its partial file's name */
            char to[4400];
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            if (i == 45) {
                static const char *const sub[] = {"/.cache", "/.cache/huggingface", "/.cache/huggingface/download"};
                for (int k = 0; k < 3; k++) {
                    snprintf(to, sizeof to, "%s%s", dir, sub[k]);
                    assert_int_equal(mkdir(to, 0755), 0);
                }
                snprintf(to, sizeof to, "%s%s/Gh3kZq2.8c1e0f.incomplete", dir, sub[2]);
            } else snprintf(to, sizeof to, "%s/model.safetensors%s", dir, i == 43 ? ".incomplete" : ".part");
            assert_int_equal(rename(path, to), 0);
            break;
        }
        case 46: { /* model.safetensors as PyTorch's shard, with its index */
            char to[4400];
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            snprintf(to, sizeof to, "%s/pytorch_model-00001-of-00001.bin", dir);
            assert_int_equal(rename(path, to), 0);
            snprintf(path, sizeof path, "%s/pytorch_model.bin.index.json", dir);
            static const char index[] = "{\"weight_map\": {\"wte.weight\": \"pytorch_model-00001-of-00001.bin\"}}";
            write_text(path, index, sizeof index - 1);
            break;
        }
        case 48: { /* model.safetensors as the second of two PyTorch shards, beside the first, no index */
            char to[4400];
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            snprintf(to, sizeof to, "%s/pytorch_model-00002-of-00002.bin", dir);
            assert_int_equal(rename(path, to), 0);
            snprintf(path, sizeof path, "%s/pytorch_model-00001-of-00002.bin", dir);
            write_text(path, "x", 1);
            break;
        }
        case 49: micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"vocab_size\": 8}"); break;
        case 50: { /* the names with "transformer.", one without: the JSON key shortened, spaces after it */
            av_gpt2_config cfg;
            av_err err = {{0}};
            if (av_gpt2_config_parse(&cfg, kMicro, strlen(kMicro), "c", &err)) fail_msg("%s", err.msg);
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            if (gf_write_checkpoint(path, &cfg, AV_ST_F32, "transformer.", 0, &err)) fail_msg("%s", err.msg);
            poke_checkpoint(dir, "\"transformer.h.0.ln_1.weight\"", "\"h.0.ln_1.weight\"            ");
            break;
        }
        case 51: poke_checkpoint(dir, "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[4,12]",
                                 "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[12,4]"); break;
        case 52: {
            char to[4400];
            snprintf(path, sizeof path, "%s/model.safetensors", dir);
            snprintf(to, sizeof to, "%s/model-00001-of-00001-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.safetensors", dir);
            assert_int_equal(rename(path, to), 0);
            break;
        }
        case 53: poke_checkpoint(dir, "\"h.0.ln_1.bias\"", "\"x\\nxxxxxxxxxx\""); break;
        case 47: { /* the weights of kMicro (n_positions 8), the config with n_ctx in its place */
            static const char ctx[] = "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_ctx\": 8, \"vocab_size\": 8}";
            snprintf(path, sizeof path, "%s/config.json", dir);
            write_text(path, ctx, sizeof ctx - 1);
            break;
        }
        }
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "hello", NULL);
        if (r.code != cases[i].code || !strstr(r.err, shown_under(shown_base(f->dir, dir, cases[i].msg), cases[i].msg)) || strncmp(r.err, "attnviz: error: ", 16) != 0)
            fail_msg("case '%s': exit %d, stderr '%s'; want exit %d and '%s'", cases[i].name, r.code, r.err,
                     cases[i].code, cases[i].msg);
        tu_free(&r);
    }
}

/* The command a cache folder's message gives to paste was cut to 400 bytes with no sign of it: for a snapshot under
 * 200 a's and 60 深, "run that folder: attnviz --model /tmp/…/深深深/mo TEXT" named a folder that is not there.
 * A word longer than 400 bytes is now cut at a whole character (its closing quote kept) with "..." after it, as
 * the prose's names are (av_shown_word); the shorter cache folder above is given whole. */
static void test_model_hf_cache_long_command_is_marked_cut(void **state) {
    tu_fixture *f = *state;
    char cache[1200], path[4400], want[4600];
    int at = snprintf(cache, sizeof cache, "%s/", f->dir);
    for (int i = 0; i < 200; i++) cache[at++] = 'a';
    cache[at] = 0;
    assert_int_equal(mkdir(cache, 0755), 0);
    strcat(cache, "/");
    for (int i = 0; i < 60; i++) strcat(cache, "\xE6\xB7\xB1"); /* 深 */
    assert_int_equal(mkdir(cache, 0755), 0);
    strcat(cache, "/models--gpt2");
    assert_int_equal(mkdir(cache, 0755), 0);
    snprintf(path, sizeof path, "%s/snapshots", cache);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/snapshots/c0ffee", cache);
    assert_int_equal(mkdir(path, 0755), 0);
    micro_checkpoint(path, NULL);
    const char *full = tu_sh_word(path); /* the whole word, past 400 bytes */
    assert_true(strlen(full) > 400);
    tu_result r;
    run_attnviz(&r, NULL, "--model", cache, "--no-plot", "hello", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "; run that folder: attnviz --model ");
    const char *cmd = strstr(r.err, want);
    if (!cmd) fail_msg("stderr: %s", r.err);
    cmd += strlen(want);
    size_t len = strlen(cmd);
    if (len < 20 || strcmp(cmd + len - 20, "... --no-plot hello\n") != 0)
        fail_msg("the command's word has no \"...\" after its cut: %s", cmd);
    size_t w = (size_t)(strstr(cmd, "... --no-plot hello\n") - cmd), keep = w - (full[0] == '\'');
    av_err u;
    assert_true(w <= 397 && w >= 390); /* near the 400 bytes: a whole 深 (3 bytes) and the quotes' room less */
    assert_int_equal(av_utf8_check(cmd, w, &u), AV_OK);
    assert_memory_equal(cmd, full, keep); /* a start of the whole word */
    if (full[0] == '\'') assert_int_equal(cmd[w - 1], '\'');
    tu_free(&r);
}

/* --model ~/.cache/huggingface/hub/models--gpt2 (the folder from_pretrained leaves): the files are in
 * snapshots/<commit>/, refs/main names the commit. It said "has no config.json; a GPT-2 model folder holds
 * ...", not where they are; now the snapshot refs/main names is given as the folder to run, and a cache
 * folder whose snapshots hold no config.json is called so. */
static void test_model_hf_cache_folder(void **state) {
    tu_fixture *f = *state;
    assert_int_equal(mkdir(tu_in(f, "my hub"), 0755), 0); /* a space: the folder one word in prose and command */
    const char *cache = tu_in(f, "my hub/models--gpt2");
    char path[4400], want[4600];
    snprintf(path, sizeof path, "%s/snapshots", cache);
    assert_int_equal(mkdir(cache, 0755), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    static const char *const snaps[] = {"0000a", "c0ffee"}; /* refs/main names the second: not the first by name */
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/snapshots/%s", cache, snaps[i]);
        assert_int_equal(mkdir(path, 0755), 0);
        micro_checkpoint(path, NULL);
    }
    snprintf(path, sizeof path, "%s/refs", cache);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/refs/main", cache);
    write_text(path, "c0ffee", 6);
    char snap[4400];
    snprintf(snap, sizeof snap, "%s/snapshots/c0ffee", cache);
    tu_result r;
    run_attnviz(&r, NULL, "--model", cache, "--no-plot", "hello", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json: it is a Hugging Face cache folder, which "
             "keeps the model's files in snapshots/<commit>/; run that folder: attnviz --model %s --no-plot hello\n",
             tu_sh_word(cache), tu_sh_word(snap));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* a download that left no config.json in any snapshot */
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/snapshots/%s/config.json", cache, snaps[i]);
        assert_int_equal(unlink(path), 0);
    }
    run_attnviz(&r, NULL, "--model", cache, "--no-plot", "hello", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "has no config.json: it is a Hugging Face cache folder, and none of its snapshots/ folders holds "
                       "config.json (a download that did not finish?); a GPT-2 model folder holds"))
        fail_msg("stderr: %s", r.err);
    tu_free(&r);
}

/* runs/NAME as attnviz writes a path to type: a shell word (quoted if the test folder needs it) */
static const char *in_runs(const char *runs, const char *name) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", runs, name);
    return tu_sh_word(path);
}

/* --model on the folder that holds model folders: after the README's `attnviz --train reverse -o runs/reverse`,
 * `attnviz --model runs "3 1 4 1 5 >"` said "has no config.json; a GPT-2 model folder holds ...", not that
 * runs/reverse is one (a new user's pass). The folders inside that hold config.json are named, in name order
 * (the first four, then how many more), with the first as the command to run; a folder without config.json
 * and a hidden one are not named. The messages are written out here by hand. */
static void test_model_parent_of_model_folders(void **state) {
    tu_fixture *f = *state;
    const char *runs = tu_in(f, "runs");
    char path[4400], want[4800];
    assert_int_equal(mkdir(runs, 0755), 0);
    static const char *const subs[] = {"sort", "reverse", "notes", ".old"}; /* notes: no config.json */
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", runs, subs[i]);
        assert_int_equal(mkdir(path, 0755), 0);
        if (i != 2) micro_checkpoint(path, NULL);
    }
    tu_result r;
    run_attnviz(&r, NULL, "--model", runs, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folders reverse and sort hold a "
             "model each; --model takes the model's own folder: attnviz --model %s --no-plot '3 1 4 1 5 >'\n", tu_sh_word(runs), in_runs(runs, "reverse"));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* one model folder left */
    snprintf(path, sizeof path, "%s/reverse/config.json", runs);
    assert_int_equal(unlink(path), 0);
    run_attnviz(&r, NULL, "--model", runs, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folder sort holds a model; "
             "--model takes the model's own folder: attnviz --model %s --no-plot '3 1 4 1 5 >'\n", tu_sh_word(runs), in_runs(runs, "sort"));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* six: the first four by name, then the count of the rest */
    static const char *const more[] = {"s1", "s2", "s3", "s4", "s5"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", runs, more[i]);
        assert_int_equal(mkdir(path, 0755), 0);
        micro_checkpoint(path, NULL);
    }
    run_attnviz(&r, NULL, "--model", runs, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folders s1, s2, s3, s4 and 2 "
             "more hold a model each; --model takes the model's own folder: attnviz --model %s --no-plot '3 1 4 1 5 >'\n", tu_sh_word(runs),
             in_runs(runs, "s1"));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* names that are not one word to the eye are quoted in the prose as in the command: "its folders a b and
     * it's hold a model each" read as four folders and an open quote. Quoted by hand as GNU ls
     * --quoting-style=shell-escape does: 'a b', 'it'\''s' */
    const char *odd = tu_in(f, "odd");
    assert_int_equal(mkdir(odd, 0755), 0);
    static const char *const names[] = {"a b", "it's"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", odd, names[i]);
        assert_int_equal(mkdir(path, 0755), 0);
        micro_checkpoint(path, NULL);
    }
    run_attnviz(&r, NULL, "--model", odd, "--no-plot", "3 1 4 1 5 >", NULL);
    char first[4400];
    snprintf(first, sizeof first, "%s/a b", odd);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folders 'a b' and 'it'\\''s' "
             "hold a model each; --model takes the model's own folder: attnviz --model %s --no-plot '3 1 4 1 5 >'\n", tu_sh_word(odd),
             tu_sh_word(first));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
}

/* The command that --model's message on a folder of model folders gives to paste said TEXT where the run's input
 * was: after the README's `attnviz --train reverse -o runs/reverse`, `attnviz --model runs "3 1 4 1 5 >"` said
 * "... attnviz --model runs/reverse TEXT", which pasted ran the model on the word TEXT (a new user's pass). It now
 * gives the input: the sentence as one shell word (quoted by hand here as GNU ls --quoting-style=shell-escape
 * does), after "--" when it starts with '-', or -f FILE; TEXT only when no input was given. Each command is run
 * by /bin/bash as printed and must give the tokens that the same input gives on runs/reverse itself. */
static void test_model_parent_command_keeps_the_input(void **state) {
    tu_fixture *f = *state;
    char runs[4000], file[4000], model[4400], file_word[4400], want[9000], cmd[8000], script[8500];
    snprintf(runs, sizeof runs, "%.3900s", tu_in(f, "runs")); /* tu_in's buffers rotate: kept over the loop's calls */
    snprintf(file, sizeof file, "%.3900s", tu_in(f, "in.txt"));
    assert_int_equal(mkdir(runs, 0755), 0);
    snprintf(model, sizeof model, "%s/reverse", runs);
    assert_int_equal(mkdir(model, 0755), 0);
    make_tiny(model);
    write_text(file, "7 8 >\n", 6);
    snprintf(file_word, sizeof file_word, "-f %s", tu_sh_word(file));
    /* 110 bytes, under the 120 repeated, but 'a'$'\001''a'... quotes each pair in 10: cut inside word[520] it
     * pasted back as 103 bytes with no mark (a review of the change); now named, not repeated */
    char ctl[111];
    for (int k = 0; k < 110; k++) ctl[k] = k % 2 ? '\001' : 'a';
    ctl[110] = 0;
    const struct { const char *a, *b, *words; } rows[] = {
        {"3 1 4 1 5 >", NULL, "'3 1 4 1 5 >'"},
        {"--", "-3 1 >", "-- '-3 1 >'"},
        {"it's 3 >", NULL, "'it'\\''s 3 >'"},
        {"-f", file, file_word},
        {NULL, NULL, "TEXT"},
        {ctl, NULL, "SENTENCE"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tu_result r, direct;
        run_attnviz(&r, NULL, "--model", runs, "--no-plot", rows[i].a, rows[i].b, NULL);
        snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folder reverse holds a "
                 "model; --model takes the model's own folder: attnviz --model %s --no-plot %s\n", tu_sh_word(runs),
                 in_runs(runs, "reverse"), rows[i].words);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        tu_free(&r);
        if (!rows[i].a || !strcmp(rows[i].words, "SENTENCE")) continue; /* a placeholder, to fill in */
        /* pasted: the command as printed, the binary for its "attnviz", a dump to compare */
        const char *printed = strstr(want, "attnviz --model ") + strlen("attnviz ");
        snprintf(cmd, sizeof cmd, "%s --no-plot -q --dump %s %.*s", tu_sh_word(tu_bin()), tu_sh_word(tu_in(f, "pasted")),
                 (int)(strlen(printed) - 1), printed);
        snprintf(script, sizeof script, "/bin/bash -c %s", tu_sh_word(cmd));
        if (system(script) != 0) fail_msg("row %zu: the pasted command failed: %s", i, cmd);
        run_attnviz(&direct, NULL, "--model", model, "--no-plot", "-q", "--dump", tu_in(f, "direct"), rows[i].a,
                    rows[i].b, NULL);
        if (direct.code != 0) fail_msg("row %zu: exit %d: %s", i, direct.code, direct.err);
        tu_free(&direct);
        char *got = tu_slurp_file(tu_in(f, "pasted/tokens.txt"), NULL), *exp = tu_slurp_file(tu_in(f, "direct/tokens.txt"), NULL);
        assert_non_null(got);
        assert_non_null(exp);
        assert_string_equal(got, exp);
        free(got);
        free(exp);
    }
}

/* s in single quotes, each ' written '\'', whatever its bytes: the start of a word that goes on in $'...' */
static const char *single_quoted(const char *s) {
    static char buf[2][8400];
    static int slot;
    char *p = buf[slot++ % 2], *w = p;
    *w++ = '\'';
    for (; *s && w + 6 < p + sizeof buf[0]; s++)
        if (*s == '\'') memcpy(w, "'\\''", 4), w += 4;
        else *w++ = *s;
    *w++ = '\'', *w = 0;
    return p;
}

/* A command attnviz tells the user to type names a folder that holds a control character as GNU ls
 * --quoting-style=shell-escape writes it, 'a'$'\r''b', so it pastes back: with mkdir "$(printf 'runs/a\rb')"
 * and a model there, `attnviz --model runs` said "... attnviz --model 'runs/a<U+000D>b' TEXT", which bash
 * reads as a folder named with the 8 characters "<U+000D>". The prose keeps the readable <U+000D>. The words
 * are worked by hand (ls 9.1 prints 'x'$'\r\n\033''y' and 'it'\''s'$'\r''z'), and each command's word is read
 * back by /bin/bash -c and must be the folder's own bytes. */
static void test_suggested_command_pastes_back_a_control_character(void **state) {
    tu_fixture *f = *state;
    const char *runs = tu_in(f, "ctl");
    char path[4400], typo[4400], base[4400], cmd[8600], want[9000], read[4400];
    assert_int_equal(mkdir(runs, 0755), 0);
    snprintf(path, sizeof path, "%s/it's\r\n\033x", runs);
    assert_int_equal(mkdir(path, 0755), 0);
    micro_checkpoint(path, NULL);
    snprintf(base, sizeof base, "%s/it's", runs);
    snprintf(cmd, sizeof cmd, "%s$'\\r\\n\\033''x'", single_quoted(base)); /* '.../it'\''s'$'\r\n\033''x' */
    tu_result r;
    run_attnviz(&r, NULL, "--model", runs, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json, but its folder "
             "'it'\\''s<U+000D><U+000A><U+001B>x' holds a model; --model takes the model's own folder: attnviz --model "
             "%s --no-plot '3 1 4 1 5 >'\n", tu_sh_word(runs), cmd);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    assert_int_equal(tu_bash_reads(read, sizeof read, cmd), 0);
    assert_string_equal(read, path);
    /* the name mistyped: "did you mean" gives the folder to type, the prose the name as typed, to read */
    snprintf(typo, sizeof typo, "%s/it's\r\n\033y", runs);
    run_attnviz(&r, NULL, "--model", typo, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(base, sizeof base, "%s/it's<U+000D><U+000A><U+001B>y", runs);
    snprintf(want, sizeof want, "attnviz: error: --model %s: no such folder (did you mean --model %s, which holds a "
             "model?)\n", single_quoted(base), cmd);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* a --train --compare folder whose variant folder is named with a CR: the command to run one of them */
    const char *cmp = tu_in(f, "cmp\rq");
    assert_int_equal(mkdir(cmp, 0755), 0);
    snprintf(path, sizeof path, "%s/scale", cmp);
    assert_int_equal(mkdir(path, 0755), 0);
    micro_checkpoint(path, NULL);
    run_attnviz(&r, NULL, "--model", cmp, "--no-plot", "3 1 4 1 5 >", NULL);
    snprintf(base, sizeof base, "%s/cmp", f->dir);
    snprintf(cmd, sizeof cmd, "%s$'\\r''q/scale'", single_quoted(base));
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, cmd)) fail_msg("no %s in stderr: %s", cmd, r.err);
    assert_int_equal(tu_bash_reads(read, sizeof read, cmd), 0);
    assert_string_equal(read, path);
    tu_free(&r);
}

/* The PyTorch conversions quote the folder and give a line of Python to paste. In a Hugging Face cache
 * snapshot (huggingface-cli download's hub/models--ORG--NAME/snapshots/COMMIT/, here under the test's own
 * folder: over 100 bytes, as ~/.cache/huggingface/hub/... is) the index and shard messages were cut at
 * av_err's 512 bytes inside that line, so it could not be pasted. Each of the three ends with the line's own
 * end, which is written out here from the messages above. */
static void test_torch_conversion_line_is_whole_in_a_cache_snapshot(void **state) {
    tu_fixture *f = *state;
    char dir[4200], path[4400], to[4400];
    snprintf(dir, sizeof dir, "%s/hub", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    strcat(dir, "/models--openai-community--gpt2");
    assert_int_equal(mkdir(dir, 0755), 0);
    strcat(dir, "/snapshots");
    assert_int_equal(mkdir(dir, 0755), 0);
    strcat(dir, "/607a30d783dfa663caf39e06633721c8d4cfcd7e");
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_true(strlen(dir) > 100);
    micro_checkpoint(dir, NULL);
    static const char *const kinds[] = {"pytorch_model.bin", "pytorch_model.bin.index.json", "shards, no index"};
    static const char end[] = " s.save_file({k: v.clone() for k, v in t.items()}, 'model.safetensors', "
                              "{'format': 'pt'})\"\n";
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    snprintf(to, sizeof to, "%s/pytorch_model.bin", dir);
    assert_int_equal(rename(path, to), 0);
    for (int k = 0; k < 3; k++) {
        if (k == 1) { /* the index and its one shard */
            snprintf(path, sizeof path, "%s/pytorch_model-00001-of-00001.bin", dir);
            assert_int_equal(rename(to, path), 0);
            snprintf(path, sizeof path, "%s/pytorch_model.bin.index.json", dir);
            static const char index[] = "{\"weight_map\": {\"wte.weight\": \"pytorch_model-00001-of-00001.bin\"}}";
            write_text(path, index, sizeof index - 1);
        }
        if (k == 2) { /* two shards without the index */
            assert_int_equal(unlink(path), 0);
            snprintf(path, sizeof path, "%s/pytorch_model-00001-of-00001.bin", dir);
            snprintf(to, sizeof to, "%s/pytorch_model-00002-of-00002.bin", dir);
            assert_int_equal(rename(path, to), 0);
            snprintf(path, sizeof path, "%s/pytorch_model-00001-of-00002.bin", dir);
            write_text(path, "x", 1);
        }
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "hello", NULL);
        size_t n = strlen(r.err), e = strlen(end);
        if (r.code != 2 || !strstr(r.err, tu_sh_word(dir)) || n < e || strcmp(r.err + n - e, end) != 0)
            fail_msg("%s: exit %d, stderr (%zu bytes):\n%s", kinds[k], r.code, n, r.err);
        tu_free(&r);
    }
}

/* --model DIR/ (a folder typed with its trailing slash, as shell completion
 * gives it): the messages name DIR/config.json, not DIR//config.json. */
static void test_model_folder_with_trailing_slash(void **state) {
    tu_fixture *f = *state;
    micro_checkpoint(f->dir, "{\"n_layer\": 1, \"n_head\": 3, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}");
    char typed[4200], want[4400];
    snprintf(typed, sizeof typed, "%s/", f->dir);
    snprintf(want, sizeof want, "attnviz: error: %s: n_head 3 does not divide n_embd 4\n", sh_in(f->dir, "config.json"));
    tu_result r;
    run_attnviz(&r, NULL, "--model", typed, "--no-plot", "hello", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* the trace and the figures' Weights name the folder without the slash too (the trace printed
     * "model DIR/ (trained toy model: ...)"), and --layer's error DIR/config.json, not DIR//config.json */
    const char *toy = tu_in(f, "toy");
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(typed, sizeof typed, "%s//", toy);
    run_attnviz(&r, NULL, "--model", typed, "--format", "png", "-o", tu_in(f, "o"), "3 1 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(want, sizeof want, "  weights    model %s (trained toy model: attnviz --train reverse, step 2)", toy);
    if (!strstr(r.out, want)) fail_msg("want '%s' in:\n%s", want, r.out);
    snprintf(want, sizeof want, "%s/ ", toy);
    assert_null(strstr(r.out, want));
    tu_free(&r);
    av_png_image img;
    av_err err;
    assert_int_equal(av_png_read_texts(tu_in(f, "o/model.png"), &img, &err), AV_OK);
    const char *w = av_png_image_text(&img, "Weights");
    snprintf(want, sizeof want, "trained toy model %s (attnviz --train reverse, step 2;", toy);
    if (!w || strncmp(w, want, strlen(want)) != 0) fail_msg("Weights '%s', want it to start '%s'", w ? w : "(none)", want);
    av_png_image_free(&img);
    run_attnviz(&r, NULL, "--model", typed, "--layer", "9", "--no-plot", "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "from %s)", tu_sh_file_word(toy, "config.json"));
    if (!strstr(r.err, want)) fail_msg("want '%s' in '%s'", want, r.err);
    tu_free(&r);
}

/* The ids after "ids [" in a trace, up to "]" (caller frees). */
static char *trace_ids(const char *out) {
    const char *at = strstr(out, "ids [");
    if (!at) return NULL;
    at += 5;
    return strndup(at, strcspn(at, "]"));
}

/* --model DIR/model.safetensors (the weights file, not its folder) is answered with the folder to give; it said
 * "is not a folder; a GPT-2 model folder holds ..." and named no folder. A file of no model keeps that message.
 * A folder with a space ("my model") is one shell word in the prose as in the command: the prose said
 * "--model /tmp/x/my model/config.json is a file" beside "--model '/tmp/x/my model'" (a maintainer's list). */
static void test_model_file_names_its_folder(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "my model");
    assert_int_equal(mkdir(dir, 0755), 0);
    micro_checkpoint(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 8}");
    static const char *const files[] = {"model.safetensors", "config.json"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char file[4400], want[9000];
        snprintf(file, sizeof file, "%s/%s", dir, files[k]);
        snprintf(want, sizeof want, "attnviz: error: --model %s is a file; --model takes the folder that holds the "
                 "model's files (config.json, the weights, the tokenizer), not one of them: --model %s\n",
                 tu_sh_word(file), tu_sh_word(dir));
        tu_result r;
        run_attnviz(&r, NULL, "--model", file, "--no-plot", "hello", NULL);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        tu_free(&r);
    }
    const char *other = tu_in(f, "notes"); /* not a model's file, in a folder of no model */
    assert_int_equal(mkdir(other, 0755), 0);
    char file[4400];
    snprintf(file, sizeof file, "%s/todo", other);
    write_text(file, "x\n", 2);
    tu_result r;
    run_attnviz(&r, NULL, "--model", file, "--no-plot", "hello", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, " is not a folder; a GPT-2 model folder holds")) fail_msg("%s", r.err);
    tu_free(&r);
}

/* config.json's activation_function names of GPT-2's tanh GELU, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))):
 * gelu_pytorch_tanh, gelu_fast and gelu_accurate run as gelu_new, to the same logits (gelu_pytorch_tanh was
 * refused: "supports only gelu_new"); the exact erf GELU ("gelu") is another function, refused naming it. */
static void test_tanh_gelu_names_run_as_gelu_new(void **state) {
    tu_fixture *f = *state;
    static const char *const names[] = {"gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu_accurate", "gelu"};
    av_npy ref = {0};
    for (int k = 0; k < 5; k++) {
        char json[512], dir[4200], dump[4300];
        snprintf(json, sizeof json, "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 4, \"n_embd\": 64, "
                 "\"n_positions\": 64, \"vocab_size\": 50257, \"layer_norm_epsilon\": 1e-05, \"activation_function\": "
                 "\"%s\"}", names[k]);
        snprintf(dir, sizeof dir, "%s/%s", f->dir, names[k]);
        snprintf(dump, sizeof dump, "%s/dump_%s", f->dir, names[k]);
        assert_int_equal(mkdir(dir, 0755), 0);
        if (k < 4) {
            make_gpt2(dir, json);
        } else { /* gelu_new's folder with this config.json (make_gpt2 parses it, and it is refused) */
            static const char *const files[] = {"model.safetensors", "vocab.json", "merges.txt"};
            for (int i = 0; i < 3; i++) {
                char from[4400];
                snprintf(from, sizeof from, "%s/%s/%s", f->dir, names[0], files[i]);
                copy_into(dir, files[i], from);
            }
            char path[4400];
            snprintf(path, sizeof path, "%s/config.json", dir);
            write_text(path, json, strlen(json));
        }
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--model", dir, "--no-plot", "--dump", dump, SENTENCE, NULL);
        if (k == 4) {
            assert_int_equal(r.code, 2);
            if (!strstr(r.err, shown_under(dir, "/config.json: activation_function is \"gelu\" (the exact GELU, x·Φ(x) with "
                                "erf: not the same function); attnviz supports only GPT-2's tanh GELU")))
                fail_msg("%s", r.err);
            tu_free(&r);
            break;
        }
        if (r.code != 0) fail_msg("%s: exit %d: %s", names[k], r.code, r.err);
        tu_free(&r);
        char path[4400];
        snprintf(path, sizeof path, "%s/logits.npy", dump);
        av_npy got;
        av_err err = {{0}};
        if (av_npy_read(&got, path, &err)) fail_msg("%s", err.msg);
        if (k == 0) {
            ref = got;
            expect_npy_close(path, "tests/ref/gpt2/gpt2_f32/logits_last.npy", (size_t)9 * 50257); /* the numpy GPT-2 */
            continue;
        }
        size_t n = (size_t)got.shape[0] * got.shape[1];
        assert_int_equal(got.shape[0], ref.shape[0]);
        assert_int_equal(got.shape[1], ref.shape[1]);
        assert_memory_equal(got.data, ref.data, n * sizeof(float));
        av_npy_free(&got);
    }
    av_npy_free(&ref);
}

/* A GPT-2 folder with tokenizer.json instead of vocab.json and merges.txt (a fast-tokenizer-only save) is read
 * from tokenizer.json, and its ids are those of vocab.json and merges.txt, English, Chinese and emoji (it
 * said "has no vocab.json; a GPT-2 model folder holds ..."); the trace says which file was read. */
static void test_gpt2_folder_with_tokenizer_json_only(void **state) {
    tu_fixture *f = *state;
    const char *files = tu_in(f, "files"), *fast = tu_in(f, "fast");
    assert_int_equal(mkdir(files, 0755), 0);
    assert_int_equal(mkdir(fast, 0755), 0);
    make_tiny(files);
    char from[4400], to[4400];
    for (int i = 0; i < 2; i++) {
        static const char *const name[] = {"config.json", "model.safetensors"};
        snprintf(from, sizeof from, "%s/%s", files, name[i]);
        copy_into(fast, name[i], from);
    }
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    snprintf(to, sizeof to, "%s/tokenizer.json", fast);
    write_text(to, json, strlen(json));
    free(json);
    static const char *const sentences[] = {SENTENCE, "我爱深度学习，你呢？", "🤖 loves 😀👍🏽 and ❤️", "I'm   here: 123,456 don't\tstop!"};
    for (size_t k = 0; k < sizeof sentences / sizeof sentences[0]; k++) {
        tu_result a, b;
        run_attnviz(&a, NULL, "--model", files, "--no-plot", sentences[k], NULL);
        run_attnviz(&b, NULL, "--model", fast, "--no-plot", sentences[k], NULL);
        if (a.code != 0) fail_msg("vocab.json: exit %d: %s", a.code, a.err);
        if (b.code != 0) fail_msg("tokenizer.json: exit %d: %s", b.code, b.err);
        char *ia = trace_ids(a.out), *ib = trace_ids(b.out);
        assert_non_null(ia);
        assert_non_null(ib);
        printf("    %s: [%s]\n", sentences[k], ib);
        if (strcmp(ia, ib)) fail_msg("'%s': vocab.json gives [%s], tokenizer.json [%s]", sentences[k], ia, ib);
        assert_non_null(strstr(b.out, "(tokenizer.json, byte-level BPE: the folder has no vocab.json and merges.txt;"));
        assert_null(strstr(a.out, "tokenizer.json"));
        free(ia);
        free(ib);
        tu_free(&a);
        tu_free(&b);
    }
    /* with neither tokenizer, the message says tokenizer.json would do */
    assert_int_equal(unlink(to), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--model", fast, "--no-plot", "hello", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "has no vocab.json; a GPT-2 model folder holds config.json, model.safetensors, "
                                  "vocab.json and merges.txt (or tokenizer.json instead of both)"));
    tu_free(&r);
}

/* A GPT-2 folder with tokenizer.json only, config.json's "bos_token_id": 50256 and tokenizer_config.json's
 * {"add_bos_token": true} was refused: "GT/config.json has no bos_token_id (the id to put first)", of a file that
 * has it. transformers loads that tokenizer.json as GPT2TokenizerFast, which keeps add_bos_token unused
 * (`self.add_bos_token = kwargs.pop("add_bos_token", False)` in tokenization_gpt2_fast.py, no other use) and reads
 * no add_eos_token, so "the cat" is GPT-2's [1169, 3797] with either key, as without the file; a true
 * add_bos_token is noted. */
static void test_gpt2_fast_tokenizer_does_not_read_add_bos_token(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "GT");
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 50257, "
                   "\"bos_token_id\": 50256}");
    char path[4400];
    for (int i = 0; i < 2; i++) {
        static const char *const name[] = {"vocab.json", "merges.txt"};
        snprintf(path, sizeof path, "%s/%s", dir, name[i]);
        assert_int_equal(unlink(path), 0);
    }
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    write_text(path, json, strlen(json));
    free(json);
    static const char *const cfg[] = {"{\"add_bos_token\": true}", "{\"add_bos_token\": false}",
                                      "{\"add_eos_token\": true}", "{\"add_bos_token\": true, \"bos_token\": \"cat\"}"};
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        write_text(path, cfg[k], strlen(cfg[k]));
        tu_result r;
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "the cat", NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", cfg[k], r.code, r.err);
        char *ids = trace_ids(r.out);
        assert_non_null(ids);
        if (strcmp(ids, "1169, 3797")) fail_msg("%s: ids [%s], not GPT-2's [1169, 3797]", cfg[k], ids);
        free(ids);
        char want[9000];
        snprintf(want, sizeof want, "attnviz: note: %s: add_bos_token is true, but transformers' GPT2TokenizerFast, "
                 "which reads this folder's tokenizer.json, keeps it unused and puts no token first for it "
                 "(tokenizer.json's post_processor decides, and it puts none)\n", sh_in(dir, "tokenizer_config.json"));
        if (strstr(cfg[k], "\"add_bos_token\": true")) assert_string_equal(r.err, want);
        else assert_string_equal(r.err, "");
        tu_free(&r);
    }
}

/* A GPT-2 folder with vocab.json and merges.txt and tokenizer_config.json {"add_bos_token": true}: transformers'
 * AutoTokenizer builds the slow GPT2Tokenizer (tokenization_gpt2.py: bos_token "<|endoftext|>" by default,
 * build_inputs_with_special_tokens puts [bos_token_id] first under add_bos_token) and converts it with
 * GPT2Converter, whose post_processor is TemplateProcessing "<|endoftext|>:0 $A:0" (convert_slow_tokenizer.py).
 * So "the cat" is [50256, 1169, 3797]: bos_token's vocab.json id first, then "the" 1169 and "Ġcat" 3797 as
 * without the file; bos_token {"content": "Ġcat"} (vocab.json's key) puts 3797 first. attnviz read no
 * tokenizer_config.json there and gave [1169, 3797] without a word. The trace marks the BOS as the Llama path
 * does (", BOS put first"), the figure's rows are labelled [<|endoftext|>] [the] [␣cat], and --generate goes on
 * after the three tokens: its lines are those of a folder holding only the tokenizer.json that GPT2Converter
 * writes (the template above, read by hftok.c's post_processor rule). false, null and a file without the key
 * keep the ids and trace of no file. */
static void test_gpt2_vocab_json_reads_add_bos_token(void **state) {
    tu_fixture *f = *state;
    char dir[4200], fast[4200], path[4400];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "GB"));
    snprintf(fast, sizeof fast, "%s", tu_in(f, "GF"));
    static const char cfg_json[] = "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, "
                                   "\"vocab_size\": 50257}";
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, cfg_json);
    tu_result r, plain;
    run_attnviz(&plain, NULL, "--model", dir, "--no-plot", "the cat", NULL);
    assert_int_equal(plain.code, 0);
    static const struct { const char *cfg, *ids; } cases[] = {
        {"{\"add_bos_token\": true}", "50256, 1169, 3797"},
        {"{\"add_bos_token\": true, \"bos_token\": {\"content\": \"Ġcat\", \"special\": true}}", "3797, 1169, 3797"},
        {"{\"add_bos_token\": false}", NULL},
        {"{\"add_bos_token\": null, \"bos_token\": \"<s>\"}", NULL},
        {"{\"model_max_length\": 1024}", NULL},
    };
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_text(path, cases[k].cfg, strlen(cases[k].cfg));
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "the cat", NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", cases[k].cfg, r.code, r.err);
        assert_string_equal(r.err, "");
        if (!cases[k].ids) { /* as without the file, byte for byte */
            assert_string_equal(r.out, plain.out);
            tu_free(&r);
            continue;
        }
        char *ids = trace_ids(r.out);
        assert_non_null(ids);
        if (strcmp(ids, cases[k].ids)) fail_msg("%s: ids [%s], not transformers' [%s]", cases[k].cfg, ids, cases[k].ids);
        free(ids);
        assert_non_null(strstr(r.out, "\n             (GPT-2 byte-level BPE, BOS put first: tokenizer_config.json's "
                                      "add_bos_token; ␣ marks a space that belongs to the token)\n"));
        tu_free(&r);
    }
    tu_free(&plain);
    /* the first token is the figure's first row and column */
    const char *bos = "{\"add_bos_token\": true}";
    write_text(path, bos, strlen(bos));
    run_attnviz(&r, NULL, "--model", dir, "-q", "--format", "svg", "--figures", "grid", "-o", tu_in(f, "o"),
                "the cat", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *svg = tu_slurp_file(tu_in(f, "o/layer0.svg"), NULL);
    assert_non_null(svg);
    const char *a = strstr(svg, "text-anchor=\"end\" fill=\"#222222\">&lt;|endoftext|&gt;</text>");
    const char *b = a ? strstr(a, "text-anchor=\"end\" fill=\"#222222\">the</text>") : NULL;
    const char *c = b ? strstr(b, "text-anchor=\"end\" fill=\"#222222\">␣cat</text>") : NULL;
    if (!c) fail_msg("layer0.svg's rows are not [<|endoftext|>] [the] [␣cat]");
    free(svg);
    /* --generate continues after [<|endoftext|>] [the] [␣cat], as the converted tokenizer.json's folder does */
    run_attnviz(&r, NULL, "--model", dir, "-q", "--no-plot", "--generate", "4", "the cat", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_int_equal(mkdir(fast, 0755), 0);
    make_gpt2(fast, cfg_json);
    for (int i = 0; i < 2; i++) {
        static const char *const name[] = {"vocab.json", "merges.txt"};
        snprintf(path, sizeof path, "%s/%s", fast, name[i]);
        assert_int_equal(unlink(path), 0);
    }
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    cJSON *root = cJSON_Parse(json);
    free(json);
    assert_non_null(root);
    cJSON_AddItemToObject(root, "post_processor", cJSON_Parse(
        "{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<|endoftext|>\",\"type_id\":0}},"
        "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"pair\":[{\"SpecialToken\":{\"id\":\"<|endoftext|>\","
        "\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},{\"Sequence\":{\"id\":\"B\",\"type_id\":1}}],"
        "\"special_tokens\":{\"<|endoftext|>\":{\"id\":\"<|endoftext|>\",\"ids\":[50256],"
        "\"tokens\":[\"<|endoftext|>\"]}}}"));
    json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    snprintf(path, sizeof path, "%s/tokenizer.json", fast);
    write_text(path, json, strlen(json));
    free(json);
    tu_result g;
    run_attnviz(&g, NULL, "--model", fast, "-q", "--no-plot", "--generate", "4", "the cat", NULL);
    if (g.code != 0) fail_msg("exit %d: %s", g.code, g.err);
    assert_non_null(strstr(r.out, "  generate    greedy, "));
    assert_string_equal(r.out, g.out);
    tu_free(&g);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", fast, "--no-plot", "the cat", NULL); /* and that folder's ids are those */
    char *ids = trace_ids(r.out);
    assert_non_null(ids);
    assert_string_equal(ids, "50256, 1169, 3797");
    free(ids);
    tu_free(&r);
    /* refused, naming the file and the value */
    static const struct { const char *cfg, *msg; } bad[] = {
        {"{\"add_bos_token\": \"yes\"}", "\"add_bos_token\" is \"yes\"; it must be true or false (null or absent: no "
                                         "token first)"},
        {"{\"add_bos_token\": true, \"bos_token\": \"<s>\"}", "bos_token \"<s>\" is not a token of %s (add_bos_token "
                                                              "true puts it first)"},
        {"{\"add_bos_token\": true, \"bos_token\": 5}", "\"bos_token\" is 5; it must be a token's text, as "
                                                        "\"<|endoftext|>\" (absent: \"<|endoftext|>\", which "
                                                        "add_bos_token true puts first)"},
    };
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_text(path, bad[k].cfg, strlen(bad[k].cfg));
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "the cat", NULL);
        char msg[9000], want[9400];
        snprintf(msg, sizeof msg, bad[k].msg, sh_in(dir, "vocab.json"));
        snprintf(want, sizeof want, "attnviz: error: %s: %s\n", sh_in(dir, "tokenizer_config.json"), msg);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
}

/* tokenizer_config.json {"add_prefix_space": true} in a GPT-2 folder, read from vocab.json and merges.txt or from
 * tokenizer.json alone: transformers' GPT2TokenizerFast (what AutoTokenizer gives for both) sets it on the
 * ByteLevel pre_tokenizer in __init__ (tokenization_gpt2_fast.py), which then puts a space before a text that
 * does not start with one, so "the cat" is " the cat": "Ġthe" 262, "Ġcat" 3797 in vocab.json. attnviz ran "the
 * cat" as [1169, 3797] without a word. Now refused (exit 2) naming the file and the way out, typing the space,
 * which gives those ids; false runs as without the file. */
static void test_gpt2_add_prefix_space_is_not_ignored(void **state) {
    tu_fixture *f = *state;
    char *dir[2] = {strdup(tu_in(f, "slow")), strdup(tu_in(f, "fast"))}, path[4400];
    assert_true(dir[0] && dir[1]);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(mkdir(dir[d], 0755), 0);
        make_gpt2(dir[d], "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 16, \"vocab_size\": 50257}");
    }
    for (int i = 0; i < 2; i++) { /* the second folder holds tokenizer.json only */
        static const char *const name[] = {"vocab.json", "merges.txt"};
        snprintf(path, sizeof path, "%s/%s", dir[1], name[i]);
        assert_int_equal(unlink(path), 0);
    }
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir[1]);
    write_text(path, json, strlen(json));
    free(json);
    for (int d = 0; d < 2; d++) {
        tu_result r, plain;
        run_attnviz(&plain, NULL, "--model", dir[d], "--no-plot", "the cat", NULL);
        assert_int_equal(plain.code, 0);
        snprintf(path, sizeof path, "%s/tokenizer_config.json", dir[d]);
        write_text(path, "{\"add_prefix_space\": true}", 26);
        run_attnviz(&r, NULL, "--model", dir[d], "--no-plot", "the cat", NULL);
        char want[9000];
        snprintf(want, sizeof want, "attnviz: error: %s: \"add_prefix_space\" is true: transformers' GPT-2 tokenizer "
                 "then puts a space before a text that does not start with one (\"the cat\" is read as \" the cat\"), "
                 "and attnviz runs the text as typed; allowed: false, null or absent (type the space instead: \" the "
                 "cat\")\n", sh_in(dir[d], "tokenizer_config.json"));
        if (r.code != 2) fail_msg("%s: exit %d, not 2: %s", dir[d], r.code, r.out);
        assert_string_equal(r.err, want);
        assert_string_equal(r.out, "");
        tu_free(&r);
        write_text(path, "{\"add_prefix_space\": false}", 27);
        run_attnviz(&r, NULL, "--model", dir[d], "--no-plot", "the cat", NULL);
        assert_int_equal(r.code, 0);
        assert_string_equal(r.out, plain.out);
        tu_free(&r);
        run_attnviz(&r, NULL, "--model", dir[d], "--no-plot", " the cat", NULL); /* the way out: transformers' ids */
        assert_int_equal(r.code, 0);
        char *ids = trace_ids(r.out);
        assert_non_null(ids);
        assert_string_equal(ids, "262, 3797");
        free(ids);
        tu_free(&r);
        tu_free(&plain);
    }
    free(dir[0]);
    free(dir[1]);
}

/* A GPT-2 folder as save_pretrained leaves it after a token was added (tokenizer.add_special_tokens({"pad_token":
 * "<pad>"}), model.resize_token_embeddings(50258)): vocab.json and merges.txt as GPT-2's, added_tokens.json
 * {"<pad>": 50257}, and tokenizer.json holding "<pad>" as an added token. Hugging Face's tokenizer (the fast one
 * from tokenizer.json, and GPT2Tokenizer from vocab.json with added_tokens.json) gives "Hi<pad>" the ids
 * [17250, 50257]: "Hi" is vocab.json's 17250, "<pad>" the added token's id. attnviz read vocab.json and merges.txt
 * only and gave [Hi] [<] [pad] [>] without a word. Now tokenizer.json is read, and the trace says why; a folder
 * without tokenizer.json is refused, naming the file, the token and the line that writes tokenizer.json. */
static void test_added_tokens_json_is_not_ignored(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "padded");
    assert_int_equal(mkdir(dir, 0755), 0);
    make_gpt2(dir, "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 50258}");
    char path[4400];
    snprintf(path, sizeof path, "%s/added_tokens.json", dir);
    write_text(path, "{\"<pad>\": 50257}", 16);
    char *json = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    cJSON *root = cJSON_Parse(json);
    free(json);
    assert_non_null(root);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(root, "added_tokens"),
                         cJSON_Parse("{\"id\":50257,\"content\":\"<pad>\",\"special\":true,\"normalized\":false}"));
    json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    write_text(path, json, strlen(json));
    free(json);
    tu_result r;
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "Hi<pad>", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char *ids = trace_ids(r.out);
    assert_non_null(ids);
    assert_string_equal(ids, "17250, 50257");
    free(ids);
    assert_non_null(strstr(r.out, "  tokens     [Hi] [<pad>]\n             (tokenizer.json, byte-level BPE: it holds "
                                  "the 1 token added_tokens.json adds, which vocab.json and merges.txt do not;"));
    tu_free(&r);
    /* without tokenizer.json: refused, not split into [<] [pad] [>] */
    assert_int_equal(unlink(path), 0);
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "Hi<pad>", NULL);
    char want[9000];
    snprintf(want, sizeof want, "attnviz: error: %s adds 1 token that vocab.json does not hold (\"<pad>\" at id "
             "50257), and the folder has no tokenizer.json, where attnviz reads added tokens from: with vocab.json "
             "and merges.txt alone, \"<pad>\" in the text would be split into other tokens than Hugging Face's "
             "tokenizer gives; write tokenizer.json once, in that folder: python3 -c \"from transformers import "
             "AutoTokenizer; AutoTokenizer.from_pretrained('.').save_pretrained('.')\"\n",
             sh_in(dir, "added_tokens.json"));
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* a token "a" and 25 深 (76 bytes) is shown by its first 60 bytes or fewer at a whole character, "a" and 19 深
     * (58 bytes), and "..." (it was cut at byte 60, inside the 20th 深: from a review of the change) */
    char token[128] = "\"a", seen[128] = "(\"a";
    for (int k = 0; k < 25; k++) strcat(token, "深");
    strcat(token, "\": 50257}");
    char body[160];
    snprintf(body, sizeof body, "{%s", token);
    snprintf(path, sizeof path, "%s/added_tokens.json", dir);
    write_text(path, body, strlen(body));
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "Hi", NULL);
    for (int k = 0; k < 19; k++) strcat(seen, "深");
    strcat(seen, "...\" at id 50257)");
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, seen)) fail_msg("no %s in: %s", seen, r.err);
    tu_free(&r);
    /* ten U+0001 (10 bytes) are 80 bytes as <U+0001> escapes: 9 fit in the 76 bytes before the "...", and the
     * cut is marked (it came out as nine escapes and no mark: from a review of the change) */
    snprintf(body, sizeof body, "{\"%s\": 50257}", "\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001\\u0001");
    write_text(path, body, strlen(body));
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "Hi", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "(\"<U+0001><U+0001><U+0001><U+0001><U+0001><U+0001><U+0001><U+0001><U+0001>...\" at id 50257)"))
        fail_msg("the escaped token's cut is not marked: %s", r.err);
    tu_free(&r);
    /* an added_tokens.json whose token vocab.json holds at that id changes nothing: still vocab.json */
    snprintf(path, sizeof path, "%s/added_tokens.json", dir);
    write_text(path, "{\"<|endoftext|>\": 50256}", 24);
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "Hi<pad>", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "  tokens     [Hi] [<] [pad] [>]\n             (GPT-2 byte-level BPE;"));
    tu_free(&r);
}

/* Input edges on a trained toy model (reverse: tokens [3] [␣1] [␣4] [␣1] [␣5] [␣>] for "3 1 4 1 5 >"),
 * a tester's reports: --explain's multi-token hint finds tokens that carry their space as ␣ ("1 4" is
 * [␣1] [␣4], tokens 1..2; it gave no hint), and -f reads past one UTF-8 byte-order mark (it was kept
 * as the byte tokens [<0xEF>] [<0xBB>] [<0xBF>] and the note blamed U+FEFF). */
static void test_toy_model_input_edges(void **state) {
    tu_fixture *f = *state;
    const char *toy = tu_in(f, "toy");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const struct { const char *spec, *says; } spans[] = {
        {"1 4,3", "attnviz: error: --explain query '1 4' is neither a token of the sentence nor an index 0..5 (the "
         "text spans tokens 1..2: [␣1] [␣4]; name one of them)\n"},
        {"0,4 1 5", "attnviz: error: --explain key '4 1 5' is neither a token of the sentence nor an index 0..5 (the "
         "text spans tokens 2..4: [␣4] [␣1] [␣5]; name one of them)\n"},
        {"5 >,0", "attnviz: error: --explain query '5 >' is neither a token of the sentence nor an index 0..5 (the "
         "text spans tokens 4..5: [␣5] [␣>]; name one of them)\n"},
        /* a character the toy's byte-level BPE splits: 我 is U+6211, UTF-8 E6 88 91 (RFC 3629), so "3 1 我 >" is
         * [3] [␣1] [␣] [<0xE6>] [<0x88>] [<0x91>] [␣>]; the error said only "neither a token of the sentence" */
        {"我,0", "attnviz: error: --explain query '我' is neither a token of the sentence nor an index 0..6 (the text "
         "spans tokens 3..5: [<0xE6>] [<0x88>] [<0x91>], which the figures and the page label [我(1/3)] [我(2/3)] "
         "[我(3/3)]; name one of them)\n"},
        {"0,1 我", "attnviz: error: --explain key '1 我' is neither a token of the sentence nor an index 0..6 (the text "
         "spans tokens 1..5: [␣1] [␣] [<0xE6>] [<0x88>] [<0x91>], which the figures and the page label [␣1] [␣] "
         "[我(1/3)] [我(2/3)] [我(3/3)]; name one of them)\n"},
        /* the error alone: a note on how the query 3 was read (the token '3' is index 0) came first */
        /* its e.g. from the model's tokens: 1 and 3 are [␣1] and [␣4], numbers, so indices alone */
        {"3,1,2", "attnviz: error: --explain '3,1,2' has 3 parts; it takes one pair QUERY,KEY (token indices or token "
         "text), e.g. 1,3: run it once for each pair\n"},
        {"3,9", "attnviz: error: --explain key index 9 is outside 0..5 (T = 6 tokens)\n"},
    };
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        run_attnviz(&r, NULL, "--model", toy, "--no-plot", "-q", "--explain", spans[i].spec,
                    strstr(spans[i].spec, "我") ? "3 1 我 >" : "3 1 4 1 5 >", NULL);
        size_t n = strlen(r.err), m = strlen(spans[i].says); /* 我's input is outside the task: a note first */
        if (r.code != 2 || n < m || strcmp(r.err + n - m, spans[i].says) != 0 ||
            (!strstr(spans[i].spec, "我") && n != m))
            fail_msg("--explain '%s': exit %d: %s\nwant: %s", spans[i].spec, r.code, r.err, spans[i].says);
        tu_free(&r);
    }
    const char *bom = tu_in(f, "bom.txt");
    FILE *fp = fopen(bom, "wb");
    assert_non_null(fp);
    fputs("\xEF\xBB\xBF" "3 1 4 1 5 >\n", fp);
    fclose(fp);
    const char *want = "  tokens     [3] [␣1] [␣4] [␣1] [␣5] [␣>]\n";
    for (int in = 0; in < 2; in++) { /* -f FILE, -f - */
        run_attnviz(&r, in ? "\xEF\xBB\xBF" "3 1 4 1 5 >\n" : NULL, "--model", toy, "--no-plot", "-f", in ? "-" : bom,
                    NULL);
        if (r.code != 0 || !strstr(r.out, want) || strstr(r.err, "FEFF") || strstr(r.err, "outside"))
            fail_msg("-f %s with a byte-order mark: exit %d:\n%s%s", in ? "-" : "FILE", r.code, r.out, r.err);
        tu_free(&r);
    }
    /* only one mark goes: a second is the text's, and the note names it */
    run_attnviz(&r, "\xEF\xBB\xBF\xEF\xBB\xBF" "3 1 >", "--model", toy, "--no-plot", "-f", "-", NULL);
    if (r.code != 0 || !strstr(r.out, "  tokens     [<0xEF>] [<0xBB>] [<0xBF>] [3] [␣1] [␣>]\n") ||
        !strstr(r.err, "token 0 [<0xEF>] is the first of 3 bytes of"))
        fail_msg("two marks: exit %d:\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
    /* one token: the layers table's means over queries 1..T−1 were of no query, printed as "1.00" and "head 0 (0.00)";
     * its one (query, key) pair, T² = 1, was "0 of 1 (query, key) pairs masked" */
    run_attnviz(&r, NULL, "--model", toy, "--no-plot", "3", NULL);
    if (r.code != 0 || !strstr(r.out, " —            —\n") || strstr(r.out, "head 0 (0.00)") ||
        !strstr(r.out, "(one token: no query has a token before it, so both marks are —)\n") ||
        !strstr(r.out, "; 0 of 1 (query, key) pair masked\n"))
        fail_msg("one token: exit %d:\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* A --model's figures are titled like the single layer's: the sentence in
 * quotes (or --title) first, then the model; --head draws that head alone
 * without a "no effect" warning; --vmax and --log-scale reach them. */
static void test_model_figures_say_the_sentence(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--head", "1", "--figures", "grid,heads", "--format", "svg",
                "--log-scale", "-o", tu_in(f, "o"), "The quick brown fox", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_string_equal(r.err, "");
    tu_free(&r);
    char want[4400];
    char *svg = tu_slurp_file(tu_in(f, "o/layer1.svg"), NULL);
    /* the <title> is the title as drawn, with --log-scale's note (render/plot.h av_plot_write) */
    snprintf(want, sizeof want, "<title>“The quick brown fox” · model %s (F32; positions: learned) · layer 1: attention weights, all 4 "
             "heads · mask: causal · log colours: no numbers in cells</title>", f->dir);
    if (!strstr(svg, want)) fail_msg("layer1.svg lacks %s", want);
    assert_non_null(strstr(svg, "log\xE2\x82\x81\xE2\x82\x80 attention weight")); /* log₁₀, --log-scale */
    free(svg);
    svg = tu_slurp_file(tu_in(f, "o/layer1_head1.svg"), NULL);
    /* says what it shows, as every other weight figure does (a new user found it missing) */
    snprintf(want, sizeof want, "<title>“The quick brown fox” · model %s (F32; positions: learned) · layer 1 · head 1 of 4: attention "
             "weights · mask: causal · log colours: no numbers in cells</title>", f->dir);
    if (!strstr(svg, want)) fail_msg("layer1_head1.svg lacks %s", want);
    free(svg);
    assert_false(file_exists(tu_in(f, "o/layer1_head0.svg")));
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--title", "Slide 3", "--figures", "model", "--format", "svg", "-o",
                tu_in(f, "t"), "The quick brown fox", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    svg = tu_slurp_file(tu_in(f, "t/model.svg"), NULL);
    snprintf(want, sizeof want, "<title>Slide 3 · model %s (F32; positions: learned) · attention weights of every layer", f->dir);
    if (!strstr(svg, want)) fail_msg("model.svg lacks %s", want);
    free(svg);
}

/* --figures pe on a model without RoPE draws nothing and says why, as the
 * single layer does for --positions none (it was silent: exit 0, an
 * empty folder). Named, pe is an option with no effect: a warning that -q
 * does not hide, as README says of every such option (`--model runs/i
 * --figures pe -q` wrote nothing and said nothing, exit 0: a tester's
 * report; the single layer's `--positions none --figures pe -q` the same).
 * --figures all asks for pe only among the rest: a note, hidden by -q. */
static void test_no_pe_figure_says_why(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--figures", "pe", "-o", tu_in(f, "o"), "3 1 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *learned = "attnviz: warning: no pe figure: the model's positions are learned embeddings (wpe, one "
                          "row of weights per position), not a formula to draw; --model draws pe for RoPE models "
                          "(Llama, Qwen2, and toy models trained with --positions rope)\n";
    assert_string_equal(r.err, learned);
    assert_false(file_exists(tu_in(f, "o/pe.png")));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--figures", "pe", "-o", tu_in(f, "q"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, learned);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--figures", "all", "-o", tu_in(f, "qa"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--positions", "none", "--figures", "pe", "-o", tu_in(f, "qn"), "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: no pe figure: --positions none adds no positional encoding\n");
    assert_false(file_exists(tu_in(f, "qn/pe.png")));
    tu_free(&r);
    /* what the warning says draws pe does: a toy model trained with --positions rope (the warning named only
     * Llama and Qwen2, a new user's pass) */
    const char *rope = tu_in(f, "rope");
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "--positions",
                "rope", "-o", rope, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--model", rope, "--figures", "pe", "-o", tu_in(f, "rp"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    assert_true(file_exists(tu_in(f, "rp/pe.png")));
    tu_free(&r);
    /* a toy model with sinusoidal positions (--train), then the same folder saying positions none */
    const char *toy = tu_in(f, "toy");
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "--positions",
                "sinusoidal", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", toy, "--figures", "all", "-o", tu_in(f, "s"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    /* the command it gives has this run's input: it had none, so pasted it stopped at "no sentence given"
     * (a learner's pass); given as it says, it draws pe.png */
    assert_string_equal(r.err, "attnviz: note: no pe figure: --model draws pe for RoPE models only; this model's "
                               "sinusoidal encoding is the single layer's: attnviz --positions sinusoidal --d-model 16 "
                               "--figures pe '3 1 >'\n");
    assert_false(file_exists(tu_in(f, "s/pe.png")));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--positions", "sinusoidal", "--d-model", "16", "--figures", "pe", "-o",
                tu_in(f, "sp"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_true(file_exists(tu_in(f, "sp/pe.png")));
    tu_free(&r);
    /* a sentence that starts with '-' goes after "--": without it the command given stopped at "unknown option
     * '-1'" (exit 2) */
    char sd[4200], sdp[4200], sdp_pe[4300]; /* not tu_in's: its 8 buffers would take toy's */
    snprintf(sd, sizeof sd, "%s/sd", f->dir);
    snprintf(sdp, sizeof sdp, "%s/sdp", f->dir);
    snprintf(sdp_pe, sizeof sdp_pe, "%s/pe.png", sdp);
    run_attnviz(&r, NULL, "-q", "--model", toy, "--figures", "pe", "-o", sd, "--", "-1 >", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "--figures pe -- '-1 >'\n")) fail_msg("no \"--figures pe -- '-1 >'\" in: %s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--positions", "sinusoidal", "--d-model", "16", "--figures", "pe", "-o", sdp, "--",
                "-1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_true(file_exists(sdp_pe));
    tu_free(&r);
    const char *in = tu_in(f, "in.txt");
    write_text(in, "3 1 >", 5);
    run_attnviz(&r, NULL, "--model", toy, "--figures", "pe", "-o", tu_in(f, "sf"), "-f", in, NULL);
    assert_int_equal(r.code, 0);
    char want[4600];
    snprintf(want, sizeof want, "attnviz: warning: no pe figure: --model draws pe for RoPE models only; this model's "
             "sinusoidal encoding is the single layer's: attnviz --positions sinusoidal --d-model 16 --figures pe -f "
             "%s\n", tu_sh_word(in));
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* from standard input: "-f -" in the command waited for typed input, so the sentence is named */
    char si[4200]; /* not tu_in's, as above */
    snprintf(si, sizeof si, "%s/si", f->dir);
    run_attnviz(&r, "3 1 >", "--model", toy, "--figures", "pe", "-o", si, "-f", "-", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: no pe figure: --model draws pe for RoPE models only; this model's "
                               "sinusoidal encoding is the single layer's: attnviz --positions sinusoidal --d-model 16 "
                               "--figures pe SENTENCE\n");
    tu_free(&r);
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", toy);
    char *json = tu_slurp_file(path, NULL);
    assert_int_equal(tu_write_replaced(path, json, "\"sinusoidal\"", "\"none\""), 0);
    free(json);
    run_attnviz(&r, NULL, "-q", "--model", toy, "--figures", "pe", "-o", tu_in(f, "n"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: no pe figure: the model adds no positional encoding (attnviz.positions "
                               "none in config.json)\n");
    tu_free(&r);
}

/* A run that draws nothing into -o leaves an earlier run's figures there: `--model M -o o "1 2 >"` wrote
 * model.png and layer1.png, then `--model M -o o --figures pe "3 1 4 >"` on that learned-positions model drew
 * no figure and still said "note: removed 2 files of an earlier run" and removed both, leaving the folder
 * empty (a new user's pass); the single layer's --positions none --figures pe did the same to head0.png, and
 * a --dump into -o is no figure either. As GNU tools refuse a no-op that destroys, nothing is removed: the
 * warning alone, and the earlier files stay. A run that draws a figure still removes them. */
static void test_run_that_draws_nothing_keeps_earlier_figures(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    const char *learned = "attnviz: warning: no pe figure: the model's positions are learned embeddings (wpe, one "
                          "row of weights per position), not a formula to draw; --model draws pe for RoPE models "
                          "(Llama, Qwen2, and toy models trained with --positions rope)\n";
    char out[4200], model_png[4300], layer_png[4300];
    snprintf(out, sizeof out, "%s/o", f->dir);
    snprintf(model_png, sizeof model_png, "%s/model.png", out);
    snprintf(layer_png, sizeof layer_png, "%s/layer1.png", out);
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "-o", out, "1 2 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    assert_true(file_exists(model_png) && file_exists(layer_png));
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "-o", out, "--figures", "pe", "3 1 4 >", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, learned);
    tu_free(&r);
    if (!file_exists(model_png) || !file_exists(layer_png)) fail_msg("a run that drew nothing removed model.png");
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "-o", out, "--dump", out, "--figures", "pe", "3 1 4 >", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    if (!file_exists(model_png) || !file_exists(layer_png)) fail_msg("a --dump into -o removed model.png");
    /* the single layer, with nothing to draw for pe */
    char one[4200], head_png[4300];
    snprintf(one, sizeof one, "%s/one", f->dir);
    snprintf(head_png, sizeof head_png, "%s/head0.png", one);
    run_attnviz(&r, NULL, "-q", "-o", one, "a b", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "-o", one, "--positions", "none", "--figures", "pe", "c d", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: no pe figure: --positions none adds no positional encoding\n");
    tu_free(&r);
    if (!file_exists(head_png)) fail_msg("--positions none --figures pe removed head0.png");
    /* a run that draws replaces them, as before */
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "-o", out, "--figures", "model", "3 1 4 >", NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.err, "removed 1 file of an earlier run")) fail_msg("no note of layer1.png removed: %s", r.err);
    tu_free(&r);
    assert_true(file_exists(model_png));
    assert_false(file_exists(layer_png));
}

/* compare_scale.png of a --model names the model's positions once, and never as another kind: on a
 * toy model trained with --positions sinusoidal its title said "positions: sinusoidal" (the model)
 * and then "positions: learned" (the layer's view, whose input already holds the encoding): a
 * figure-maker's report. The same with the folder's config.json saying none. */
static void test_model_compare_scale_names_the_models_positions(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    const char *toy = tu_in(f, "toy");
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--positions",
                "sinusoidal", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char *const kinds[] = {"sinusoidal", "none"};
    for (int k = 0; k < 2; k++) {
        char path[4400], out[16], want[64];
        if (k == 1) {
            snprintf(path, sizeof path, "%s/config.json", toy);
            char *json = tu_slurp_file(path, NULL);
            assert_int_equal(tu_write_replaced(path, json, "\"sinusoidal\"", "\"none\""), 0);
            free(json);
        }
        snprintf(out, sizeof out, "o%d", k);
        run_attnviz(&r, NULL, "-q", "--model", toy, "--compare", "scale", "--format", "svg", "-o", tu_in(f, out),
                    "3 1 >", NULL);
        if (r.code != 0) fail_msg("--compare scale: exit %d: %s", r.code, r.err);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/%s/compare_scale.svg", f->dir, out);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        char *title = strstr(svg, "<title>"), *end = title ? strstr(title, "</title>") : NULL;
        assert_non_null(end);
        *end = 0;
        snprintf(want, sizeof want, "positions: %s", kinds[k]);
        if (!strstr(title, want)) fail_msg("compare_scale.svg's title lacks '%s': %s", want, title);
        int n = 0;
        for (const char *p = strstr(title, "positions: "); p; p = strstr(p + 1, "positions: ")) n++;
        if (n != 1) fail_msg("compare_scale.svg's title names positions %d times: %s", n, title);
        free(svg);
    }
}

/* compare_scale of a --model marks the panel of the setting the model was trained with: on a toy trained
 * with --no-scale (config.json "scale": false) the panels "scaled ÷√d_k" and "no scale" stood as equals, and
 * only the terminal's trace said which the model runs with (a figure-maker's report); the table under it,
 * all that -q prints, marks that row "(own)" too. Each toy's own is named by how it was trained (the
 * --no-scale flag), not read from the program. */
static void test_model_compare_scale_marks_the_models_own(void **state) {
    tu_fixture *f = *state;
    static const char *const own[] = {">scaled ÷√d_k (the model's own)</text>", ">no scale (the model's own)</text>"};
    static const char *const other[] = {">no scale</text>", ">scaled ÷√d_k</text>"};
    for (int ns = 0; ns < 2; ns++) {
        tu_result r;
        char toy[16], out[16], path[4400];
        snprintf(toy, sizeof toy, "toy%d", ns);
        snprintf(out, sizeof out, "o%d", ns);
        if (ns)
            run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2",
                        "--no-scale", "-o", tu_in(f, toy), NULL);
        else
            run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o",
                        tu_in(f, toy), NULL);
        if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
        tu_free(&r);
        run_attnviz(&r, NULL, "-q", "--model", tu_in(f, toy), "--compare", "scale", "--format", "svg", "-o",
                    tu_in(f, out), "3 1 4 1 5 >", NULL);
        if (r.code != 0) fail_msg("--compare scale: exit %d: %s", r.code, r.err);
        /* the table, all -q prints, marks the same row: its rows stood as equals (a new user's report) */
        static const char *const row[] = {"\n  scaled ÷√d_k (own)  ", "\n  no scale (own)  "};
        if (!strstr(r.out, row[ns]) || strstr(r.out, row[!ns]) || !strstr(r.out, "\n  (own: the setting the model runs "
                                                                          "with, from its config.json)\n"))
            fail_msg("%s: the table does not mark '%s' alone:\n%s", ns ? "--no-scale" : "scaled", row[ns], r.out);
        tu_free(&r);
        snprintf(path, sizeof path, "%s/%s/compare_scale.svg", f->dir, out);
        char *svg = tu_slurp_file(path, NULL);
        assert_non_null(svg);
        if (!strstr(svg, own[ns])) fail_msg("%s compare_scale.svg has no panel '%s'", ns ? "--no-scale" : "scaled", own[ns]);
        if (!strstr(svg, other[ns])) fail_msg("%s compare_scale.svg has no panel '%s'", ns ? "--no-scale" : "scaled", other[ns]);
        int n = 0;
        for (const char *p = strstr(svg, "(the model's own)"); p; p = strstr(p + 1, "(the model's own)")) n++;
        if (n != 1) fail_msg("%s compare_scale.svg says \"(the model's own)\" %d times", ns ? "--no-scale" : "scaled", n);
        free(svg);
    }
}

/* --explain on a toy trained with --no-scale says why S = q·k as its trace's scale line does: "no ÷√d_k
 * (--no-scale)" named an option that is an error with --model (a teacher's report). The single layer's
 * --no-scale run still names the option. */
static void test_model_explain_says_trained_without_scale(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--no-scale",
                "-o", tu_in(f, "toy"), NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", tu_in(f, "toy"), "--no-plot", "--explain", "3,1", "3 1 4 >", NULL);
    if (r.code != 0) fail_msg("--explain: exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "  scale      OFF (the model was trained without ÷√d_k)\n") ||
        !strstr(r.out, "\n  no ÷√d_k (the model was trained without it): S = q·k in float32 ") ||
        strstr(r.out, "--no-scale"))
        fail_msg("--explain on a --no-scale toy does not say it was trained so:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-q", "--no-scale", "--explain", "1,0", "a b c", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\n  no ÷√d_k (--no-scale): S = q·k in float32 "));
    tu_free(&r);
}

/* -q hid the trace, and with it the only line saying where --show's and --explain's numbers came from:
 * `attnviz -q --no-plot --show "I love"` printed random weights' maps with nothing saying they were random
 * (a teacher's pass), while the figures say it. Each now opens with the figures' words, for every source:
 * random with its seed, a --weights folder (whole or in part), a --model folder, a trained one. */
static void test_quiet_show_and_explain_say_the_weights(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    const char *random42 = "weights: random weights (untrained, seed 42)\n";
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--show", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, random42, strlen(random42)) != 0)
        fail_msg("-q --show: exit %d, output does not open with %s:\n%s", r.code, random42, r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--explain", "0,1", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, random42, strlen(random42)) != 0)
        fail_msg("-q --explain: exit %d, output does not open with %s:\n%s", r.code, random42, r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--seed", "7", "--show", "--explain", "0,1", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: random weights (untrained, seed 7)\n--explain:", 54) != 0 ||
        strstr(r.out + 1, "weights: random")) /* once, before both */
        fail_msg("-q --seed 7 --show --explain: exit %d:\n%s", r.code, r.out);
    tu_free(&r);
    /* nothing asked for prints nothing still, and without -q the trace's header says it once */
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "I love", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-d", "8", "--show", "I love", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "weights: "));
    assert_non_null(strstr(r.out, "  weights    random weights (untrained, seed 42)"));
    tu_free(&r);
    /* a --dump read back by --weights, then with W_K.npy missing (drawn at random) */
    const char *dump = tu_in(f, "dump");
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--dump", dump, "I love", NULL);
    assert_int_equal(r.code, 0);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-w", dump, "--show", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: weights loaded from ", 29) != 0 ||
        !strstr(r.out, ", as --dump wrote them from random weights (untrained, seed 42)\n"))
        fail_msg("-q -w DUMP --show: exit %d:\n%s", r.code, r.out);
    tu_free(&r);
    char wk[4200];
    snprintf(wk, sizeof wk, "%s/W_K.npy", dump);
    assert_int_equal(unlink(wk), 0);
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "-w", dump, "--explain", "0,1", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: X, W_Q, W_V, W_O loaded from ", 38) != 0 ||
        !strstr(r.out, "; W_K random (untrained, seed 42)\n"))
        fail_msg("-q -w DUMP-without-W_K --explain: exit %d:\n%s", r.code, r.out);
    tu_free(&r);
    /* a model folder, and a folder --train wrote */
    const char *tiny = tu_in(f, "tiny");
    assert_int_equal(mkdir(tiny, 0755), 0);
    make_tiny(tiny);
    run_attnviz(&r, NULL, "--model", tiny, "-q", "--no-plot", "--show", "--head", "0", "hello", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: ", 9) != 0 || !strstr(r.out, tiny) ||
        strstr(r.out, "random"))
        fail_msg("--model tiny -q --show: exit %d:\n%s\n%s", r.code, r.out, r.err);
    tu_free(&r);
    const char *toy = tu_in(f, "toy");
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", toy, "-q", "--no-plot", "--explain", "3,1", "3 1 4 >", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: trained toy model ", 27) != 0 ||
        !strstr(r.out, "(attnviz --train reverse, step 1;"))
        fail_msg("--model toy -q --explain: exit %d:\n%s\n%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* Under -q the --compare table is all the terminal shows, and it did not say whose weights it compared:
 * `attnviz -q --no-plot --compare scale "I love"` printed "--compare scale: same sentence, same X and weights"
 * and the rows of random, untrained weights, where -q --show and --explain start with the "weights:" line.
 * Now the table starts with it too, once when --show comes first, and a --model's names the folder. */
static void test_quiet_compare_says_the_weights(void **state) {
    tu_fixture *f = *state;
    tu_result r;
    static const char *const kinds[] = {"scale", "order", "positions"};
    const char *want = "weights: random weights (untrained, seed 42)\n--compare ";
    for (int k = 0; k < 3; k++) {
        run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--compare", kinds[k], "I love", NULL);
        if (r.code != 0 || strncmp(r.out, want, strlen(want)) != 0)
            fail_msg("-q --compare %s: exit %d, output does not open with the weights line:\n%s", kinds[k], r.code,
                     r.out);
        tu_free(&r);
    }
    run_attnviz(&r, NULL, "-q", "--no-plot", "-d", "8", "--seed", "7", "--show", "--compare", "scale", "I love", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: random weights (untrained, seed 7)\nhead 0 of 1", 55) != 0 ||
        strstr(r.out + 1, "weights: random")) /* once, before both */
        fail_msg("-q --seed 7 --show --compare scale: exit %d:\n%s", r.code, r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--no-plot", "-d", "8", "--compare", "scale", "I love", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.out, "weights: ")); /* without -q the trace's header says it */
    tu_free(&r);
    const char *tiny = tu_in(f, "tiny");
    assert_int_equal(mkdir(tiny, 0755), 0);
    make_tiny(tiny);
    run_attnviz(&r, NULL, "--model", tiny, "-q", "--no-plot", "--compare", "scale", "hello world", NULL);
    if (r.code != 0 || strncmp(r.out, "weights: model ", 15) != 0 || !strstr(r.out, tiny) ||
        !strstr(r.out, ")\n--compare scale: ") || strstr(r.out, "random"))
        fail_msg("--model tiny -q --compare scale: exit %d:\n%s\n%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* A 1-layer GPT-2 (2 heads, d_model 8, n_positions 1024, GPT-2's vocabulary) in f/m, whose folder goes to
 * *model, and the text "a" then 599 × " a": 600 GPT-2 tokens, one per pre-token (ids 64, then 257). Returns
 * the text, to free. */
static char *six_hundred_tokens(tu_fixture *f, const char **model) {
    *model = tu_in(f, "m");
    assert_int_equal(mkdir(*model, 0755), 0);
    make_gpt2(*model, "{\"n_layer\": 1, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 1024, \"vocab_size\": 50257}");
    char *text = malloc(600 * 2 + 1);
    assert_non_null(text);
    strcpy(text, "a");
    for (int i = 1; i < 600; i++) strcat(text, " a");
    return text;
}

/* --model --compare scale --html: the page holds layer L under both settings, so the size check before any file
 * counts two runs, as the single layer's --compare does. 600 tokens ("a" then 599 " a", one GPT-2 token each):
 * one head's 8-bit weights and scores are 2·600² B = 0.69 MiB, and each run's causal mask 600² B = 0.34 MiB
 * (the page stores it, and --html-limit counts it): one run is 1.03 MiB, within --html-limit 2; two are
 * 2.06 MiB, over --html-limit 1 and 2. The run with --compare is refused (exit 2, no file); the same run without
 * --compare writes its page. */
static void test_model_compare_html_counts_both_settings(void **state) {
    tu_fixture *f = *state;
    const char *model;
    char *text = six_hundred_tokens(f, &model);
    tu_result r;
    char page[4400];
    run_attnviz(&r, NULL, "-q", "--model", model, "--compare", "scale", "--html", "--html-limit", "1", "-o",
                tu_in(f, "cmp"), text, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --html: one head of each of the 2 --compare settings (weights and "
                               "scores for 600 tokens, 0.7 MiB at 8 bits each) takes 1.4 MiB, with the (T, T) masks "
                               "it stores (0.69 MiB) 2.06 MiB in all, over the page's 1 MiB; raise --html-limit (up "
                               "to 1024) or use fewer tokens\n");
    snprintf(page, sizeof page, "%s/cmp/attnviz.html", f->dir);
    assert_false(file_exists(page));
    snprintf(page, sizeof page, "%s/cmp/model.png", f->dir);
    assert_false(file_exists(page));
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--model", model, "--compare", "scale", "--html", "--html-limit", "2", "-o",
                tu_in(f, "cmp2"), text, NULL);
    assert_int_equal(r.code, 2);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--model", model, "--html", "--html-limit", "2", "--no-plot", "-o", tu_in(f, "one"),
                text, NULL);
    if (r.code != 0) fail_msg("without --compare: exit %d: %s", r.code, r.err);
    snprintf(page, sizeof page, "%s/one/attnviz.html", f->dir);
    assert_true(file_exists(page));
    tu_free(&r);
    free(text);
}

/* A Chinese sentence on GPT-2's vocabulary runs as byte tokens, and the trace says why under the tokens
 * line (a learner's pass: 14 tokens like [<0xE6><0x88>] [<0x91>] with no word that they are the bytes of
 * a character). gpt-3-encoder gives "我爱深度学习" 14 ids (tests/ref/bpe_ref.json: 22755 239 for 我, E6 88
 * | 91 in UTF-8, U+6211), and none of its six characters is a token of its own; an ASCII sentence has
 * no such line. */
static void test_model_trace_names_byte_tokens_of_a_character(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "我爱深度学习", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "ids [22755, 239, 163, 230, 109, 162, 115, 109, 41753, 99, 27764, 99, 20046, 254]"));
    assert_non_null(strstr(r.out, "\n             [<0xE6><0x88>] [<0x91>] = '我' (U+6211) in UTF-8 bytes; 6 characters "
                                  "here are split so:\n             its vocabulary has no token for the whole character"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "Hello world", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_null(strstr(r.out, "in UTF-8 bytes"));
    tu_free(&r);
}

/* The trace's count of split characters counts the characters a token boundary falls inside, not every
 * character of the run: "剑士" is [<0xE5><0x89>] [<0x91>士] on GPT-2's vocabulary (ids 30298 "åī" = E5 89
 * and 39374 "ĳå£«" = 91 + 士, E5 A3 AB, one of the few GPT-2 tokens that end one character and hold the
 * next), so only 剑 (U+5251, E5 89 91) is split; the trace said "2 characters here are split so", 士 being
 * whole inside its token. "剑士 我爱" splits 剑, 我 and 爱: 3 (it said 4). The character shown is the first
 * split one: "龍啊" is [龍<0xE5>] [<0x95>] [<0x8A>] (token 19049 holds the whole 龍, E9 BE 8D, and 啊's first
 * byte; 啊 is U+554A, E5 95 8A), and the trace named '龍' (U+9F8D), which no token cuts. */
static void test_model_trace_counts_only_split_characters(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "剑士", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "ids [30298, 39374]"));
    assert_non_null(strstr(r.out, "\n             [<0xE5><0x89>] [<0x91>士] = '剑' (U+5251) in UTF-8 bytes:\n"));
    assert_null(strstr(r.out, "characters here are split so"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "剑士 我爱", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "= '剑' (U+5251) in UTF-8 bytes; 3 characters here are split so:\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "龍啊", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\n             [龍<0xE5>] [<0x95>] [<0x8A>] = '啊' (U+554A) in UTF-8 bytes:\n"));
    tu_free(&r);
}

/* The figures and the page label a token that holds part of a character by the character and which of
 * its tokens it is (a Chinese student's report: layer1.png's axes read <0xE6><0x88> <0x91> <0xE7> ...,
 * and no reader could find 爱 in them). By hand from gpt-3-encoder's ids (tests/ref/bpe_ref.json):
 * "我爱" is 22755 239 | 163 230 109, the bytes E6 88 | 91 of 我 (U+6211) and E7 | 88 | B1 of 爱
 * (U+7231), so 我(1/2) 我(2/2) 爱(1/3) 爱(2/3) 爱(3/3); " 深" is [␣<0xE6>] [<0xB7>] [<0xB1>], the space
 * kept in the first part. The trace keeps the byte labels and names the figures' ones under them. */
static void test_model_figures_label_parts_of_a_character(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--format", "svg", "--figures", "grid", "--html", "-o",
                tu_in(f, "o"), "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "[<0xE6><0x88>] [<0x91>] [<0xE7>] [<0x88>] [<0xB1>] [␣<0xE6>] [<0xB7>] [<0xB1>]"));
    assert_non_null(strstr(r.out, "keeps its bytes as tokens;\n             figures and the page label them "
                                  "[我(1/2)] [我(2/2)]\n"));
    char *svg = tu_slurp_file(tu_in(f, "o/layer1.svg"), NULL);
    assert_non_null(svg);
    static const char *const want[] = {">我(1/2)<", ">我(2/2)<", ">爱(1/3)<", ">爱(2/3)<", ">爱(3/3)<",
                                       ">␣深(1/3)<", ">深(2/3)<", ">深(3/3)<"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(svg, want[k])) fail_msg("layer1.svg has no label %s", want[k]);
    assert_null(strstr(svg, "&lt;0xE6&gt;"));
    free(svg);
    char *page = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "\"我(1/2)\",\"我(2/2)\",\"爱(1/3)\",\"爱(2/3)\",\"爱(3/3)\",\"␣深(1/3)\""));
    free(page);
    tu_free(&r);
}

/* compare_scale of a --model labels a part of a character as the other figures do: on a Qwen2 folder,
 * "--compare scale ... 我爱深度学习" drew compare_scale.png's axes as <0xE7><0x88> <0xB1> while
 * layer1.png and the trace said "figures and the page label them [爱(1/2)] [爱(2/2)]" (a Chinese
 * learner's pass). GPT-2 keeps "我爱 深" as [<0xE6><0x88>] [<0x91>] [<0xE7>] [<0x88>] [<0xB1>] [␣<0xE6>]
 * [<0xB7>] [<0xB1>] (by hand above): 我(1/2) 我(2/2) 爱(1/3) 爱(2/3) 爱(3/3) ␣深(1/3) 深(2/3) 深(3/3). */
static void test_model_compare_figure_labels_parts_of_a_character(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "-q", "--compare", "scale", "--format", "svg", "-o", tu_in(f, "o"),
                "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    char *svg = tu_slurp_file(tu_in(f, "o/compare_scale.svg"), NULL);
    assert_non_null(svg);
    static const char *const want[] = {">我(1/2)<", ">我(2/2)<", ">爱(1/3)<", ">爱(2/3)<", ">爱(3/3)<",
                                       ">␣深(1/3)<", ">深(2/3)<", ">深(3/3)<"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(svg, want[k])) fail_msg("compare_scale.svg has no label %s", want[k]);
    assert_null(strstr(svg, "&lt;0xE6&gt;"));
    free(svg);
    tu_free(&r);
}

/* --explain names a token as the figures and the page label a part of a character: GPT-2 keeps "我爱 深"
 * as [<0xE6><0x88>] [<0x91>] [<0xE7>] [<0x88>] [<0xB1>] [␣<0xE6>] [<0xB7>] [<0xB1>] (我 U+6211 = E6 88 91,
 * 爱 U+7231 = E7 88 B1, 深 U+6DF1 = E6 B7 B1), which layer1.png labels 我(1/2) 我(2/2) 爱(1/3) 爱(2/3)
 * 爱(3/3) ␣深(1/3) 深(2/3) 深(3/3). "--explain 爱(3/3),我(1/2)", the axis labels as read, said "'爱(3/3)' is
 * neither a token of the sentence nor an index 0..7"; "深(1/3)" finds ␣深(1/3) as "love" finds ␣love; the
 * error for "爱" names the tokens both ways. */
static void test_model_explain_names_parts_as_figures_do(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "爱(3/3),我(1/2)", "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 4 \"<0xB1>\" → key 0 \"<0xE6><0x88>\""));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "深(1/3),爱(2/3)", "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 5 \"␣<0xE6>\" → key 3 \"<0x88>\""));
    assert_non_null(strstr(r.err, "--explain query '深(1/3)' is the token '␣深(1/3)' (index 5)"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "爱,我", "我爱 深", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --explain query '爱' is neither a token of the sentence nor an index "
                               "0..7 (the text spans tokens 2..4: [<0xE7>] [<0x88>] [<0xB1>], which the figures and "
                               "the page label [爱(1/3)] [爱(2/3)] [爱(3/3)]; name one of them)\n");
    tu_free(&r);
    /* a part label that names no token, "爱(4/3)" (爱 has 3 parts, by hand above), typed as the figures write it or
     * as a Chinese input method does ("（4/3）"): the same help as "爱" alone, where it said only "'爱(4/3)' is
     * neither a token of the sentence nor an index 0..7" */
    static const char *const beyond[] = {"爱(4/3),我", "爱（4/3）,我"};
    for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
        char want[600];
        snprintf(want, sizeof want, "attnviz: error: --explain query '%.*s' is neither a token of the sentence nor an "
                 "index 0..7 (the text '爱' spans tokens 2..4: [<0xE7>] [<0x88>] [<0xB1>], which the figures and the "
                 "page label [爱(1/3)] [爱(2/3)] [爱(3/3)]; name one of them)\n", (int)strcspn(beyond[i], ","), beyond[i]);
        run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", beyond[i], "我爱 深", NULL);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        tu_free(&r);
    }
}

/* --show and --explain name a part of a character as the figures and the page do, not by its bytes: GPT-2's
 * "我爱 深" is [<0xE6><0x88>] [<0x91>] [<0xE7>] [<0x88>] [<0xB1>] [␣<0xE6>] [<0xB7>] [<0xB1>] (我 U+6211 =
 * E6 88 91, 爱 U+7231 = E7 88 B1, 深 U+6DF1 = E6 B7 B1, worked out by hand from RFC 3629), so rows 3 and 1's
 * "<0x88>" and "<0x91>" are 爱(2/3) and 我(2/2), as layer1.png draws them. `--show --explain 爱(2/3),我(2/2)`
 * printed rows "1 <0x91>" and "3 <0x88>", "keys: 0=<0xE6><0x88> 1=<0x91> 2=<0xE7> 3=<0x88> 4=<0xB1> ...", the
 * softmax table's keys the same, and "so key "<0x91>" has weight ...% in query "<0x88>"'s weighted average" (a
 * Chinese-speaking learner's pass: rows 4 and 7, both <0xB1>, are 爱(3/3) and 深(3/3)). */
static void test_model_show_and_explain_name_parts_as_figures_do(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--layer", "0", "--head", "0", "--show", "--explain",
                "爱(2/3),我(2/2)", "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    /* the title keeps the tokens as the trace's tokens line shows them, and says how the figures draw them */
    if (!strstr(r.out, "query 3 \"<0x88>\" → key 1 \"<0x91>\"   (d_k = ") ||
        !strstr(r.out, "; the figures draw them \"爱(2/3)\" → \"我(2/2)\")\n"))
        fail_msg("--explain title:\n%s", r.out);
    const char *want[] = {
        "the whole row 3 of S (query \"爱(2/3)\") and its softmax:\n",
        "      0    我(1/2)  ", "    → 1    我(2/2)  ", "      2    爱(1/3)  ", "      3    爱(2/3)  ",
        "      4    爱(3/3)  ", "      7    深(3/3)  ",
        "so key \"我(2/2)\" has weight ",
        "% in query \"爱(2/3)\"'s weighted average",
        "\n0 我(1/2)  ", "\n1 我(2/2)  ", "\n3 爱(2/3)  ", "\n4 爱(3/3)  ", "\n5 ␣深(1/3) ", "\n7 深(3/3)  ",
        "keys: 0=我(1/2) 1=我(2/2) 2=爱(1/3) 3=爱(2/3) 4=爱(3/3) 5=␣深(1/3) 6=深(2/3)", " 7=深(3/3)\n",
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!strstr(r.out, want[k])) fail_msg("no '%s' in:\n%s", want[k], r.out);
    /* no byte label after the title: the table, the sentence and the heat map draw parts only as the figures do */
    const char *after = strchr(r.out + (strstr(r.out, "--explain:") - r.out), '\n');
    if (strstr(after, "<0x")) fail_msg("a byte label after the --explain title:\n%s", after);
    tu_free(&r);
}

/* --explain reads a part's "(k/n)" as a Chinese input method types it: full-width parentheses and digits,
 * "／", and "、" (its punctuation mode's key for /). "--explain 爱（3/3）,我（1/2）" on "我爱 深", the labels of
 * layer1.png typed with the input method on, said only "'爱（3/3）' is neither a token of the sentence nor
 * an index 0..7" (a Chinese-speaking learner's pass). Tokens as in the test above: 我(1/2) is index 0,
 * 爱(2/3) 3, 爱(3/3) 4, ␣深(1/3) 5. */
static void test_model_explain_parts_typed_by_an_input_method(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "爱（3/3）,我（1/2）", "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 4 \"<0xB1>\" → key 0 \"<0xE6><0x88>\""));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "深（１／３），爱（2、3）", "我爱 深", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 5 \"␣<0xE6>\" → key 3 \"<0x88>\""));
    assert_non_null(strstr(r.err, "--explain query '深（１／３）' is the token '␣深(1/3)' (index 5)"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "爱（4/3）,0", "我爱 深", NULL);
    assert_int_equal(r.code, 2); /* no such part: the error as before */
    assert_non_null(strstr(r.err, "--explain query '爱（4/3）' is neither a token of the sentence"));
    tu_free(&r);
}

/* A character typed for --explain that lies inside a longer token is pointed to that token, as the start
 * of one is: "剑士" on GPT-2's vocabulary is [<0xE5><0x89>] [<0x91>士] (ids 30298 39374; 39374 holds 剑's
 * last byte 0x91 and the whole 士, E5 A3 AB), and "--explain 士,0" said only "'士' is neither a token of
 * the sentence nor an index 0..1" (a Chinese-speaking learner's pass; a tokenizer with Chinese words,
 * [学习], left "习" so too while "学" got "did you mean '学习'"). The token named in the hint is taken
 * when typed. */
static void test_model_explain_character_inside_a_token(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "士,0", "剑士", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --explain query '士' is neither a token of the sentence nor an index "
                               "0..1; did you mean '<0x91>士' (token 1)?\n");
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-q", "--explain", "<0x91>士,0", "剑士", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 1 \"<0x91>士\" → key 0 \"<0xE5><0x89>\""));
    tu_free(&r);
}

/* A file of n GPT-2 tokens, "a" then n − 1 × " a" (one per pre-token), in the fixture's folder. */
static char *long_a_file(tu_fixture *f, int n) {
    char *path = strdup(tu_in(f, "long.txt"));
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputc('a', fp);
    for (int i = 1; i < n; i++) fputs(" a", fp);
    fclose(fp);
    return path;
}

/* More tokens than the model's n_positions: the message says it is the
 * model's limit and which key sets it (was "outside the allowed range
 * 1..64"). "a" then 69 × " a" is 70 GPT-2 tokens (one per pre-token). */
static void test_too_many_tokens_names_n_positions(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char text[160] = "a";
    for (int i = 1; i < 70; i++) strcat(text, " a");
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", text, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: 70 tokens is more than the model's 64 positions (n_positions in "
                               "config.json); allowed: 1..64 tokens\n");
    tu_free(&r);
    /* past attnviz's own 65,536 too, the model's limit is the one to name: it said "the sentence is 70001
     * tokens; at most 65536", as if 60,000 tokens would do (a learner's pass) */
    char *path = long_a_file(f, 70001);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: 70001 tokens is more than the model's 64 positions (n_positions in "
                               "config.json); allowed: 1..64 tokens\n");
    tu_free(&r);
    free(path);
}

/* A long --model input prints the tokens line and the ids line as the single
 * layer prints its tokens: past 64, the first 48 and the last 8 around
 * "… (n more) …" (a learner's pass: a 3200-token --file printed a 32 KB tokens
 * line and a 19 KB ids line). 600 tokens ("a" then 599 " a": ids 64, 257). */
static void test_model_trace_elides_long_token_lines(void **state) {
    tu_fixture *f = *state;
    const char *model;
    char *text = six_hundred_tokens(f, &model);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", text, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "  tokens     [a] [␣a] [␣a]"));
    assert_non_null(strstr(r.out, "[␣a] … (544 more) … [␣a] [␣a] [␣a] [␣a] [␣a] [␣a] [␣a] [␣a]\n"));
    assert_non_null(strstr(r.out, "ids [64, 257, 257"));
    assert_non_null(strstr(r.out, "257, … (544 more) …, 257, 257, 257, 257, 257, 257, 257, 257]\n"));
    assert_non_null(strstr(r.out, "UTF-8 text → 600 token ids"));
    /* 48 shown before the cut: the 48th label is followed by the cut */
    const char *tok = strstr(r.out, "  tokens     ");
    int shown = 0;
    for (const char *p = tok; p && *p != '\n'; p++) shown += *p == '[';
    assert_int_equal(shown, 56);
    for (const char *line = r.out; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > 1000) fail_msg("a %zu-byte trace line: %.80s", n, line);
        line += n + (end != NULL);
    }
    tu_free(&r);
    free(text);
}

/* A model of 1 layer and 1 head is counted in the singular everywhere
 * (was "1 blocks", "the model has 1 layers"), and a one-file run says
 * "wrote 1 file". The model: attnviz --train with --layers 1 --heads 1. */
/* A one-step toy reverse model (d_model 16, batch 2), trained into dir: the folder the --model tests run. */
static void train_toy(const char *dir) {
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", dir, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A folder --train wrote (config.json's attnviz.task) whose vocab.json and merges.txt are gone, with a
 * tokenizer.json in their place: it said "has no vocab.json; a GPT-2 model folder holds config.json,
 * model.safetensors, vocab.json and merges.txt (or tokenizer.json instead of both); ...", offering the file the
 * folder holds. --model reads a trained toy model by the ids of the vocab.json and merges.txt --train writes
 * (README: "--model of a trained folder ... reads vocab.json"), so tokenizer.json cannot stand in: said so. */
static void test_toy_folder_with_tokenizer_json_only(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "toy");
    train_toy(dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    write_text(path, "{}", 2);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", dir, "3 1 >", NULL);
    char want[4800];
    snprintf(want, sizeof want, "attnviz: error: --model %s has no vocab.json but a tokenizer.json: config.json's "
             "attnviz.task says attnviz --train wrote this folder, and --model reads the task's text by the ids of "
             "the vocab.json and merges.txt --train writes (tokenizer.json cannot stand in for them); restore them "
             "as --train wrote them, or train again\n", tu_sh_word(dir));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A --model folder with a 1,400-byte path and a 1,000-byte --title: every
 * figure's title is whole (it ends with the mask) and valid UTF-8 in the PNG's
 * iTXt Title and the SVG (a 2,048-byte buffer cut it inside a character). */
static void test_long_title_and_long_model_path(void **state) {
    tu_fixture *f = *state;
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", f->dir);
    for (int d = 0; d < 7; d++) {
        size_t n = strlen(dir);
        dir[n++] = '/';
        memset(dir + n, 'd', 199);
        dir[n + 199] = 0;
        assert_int_equal(mkdir(dir, 0755), 0);
    }
    tu_result r;
    train_toy(dir);
    char title[1001];
    for (int i = 0; i < 1000; i += 2) memcpy(title + i, "\xC3\xA9", 2); /* 500 × é */
    title[1000] = 0;
    run_attnviz(&r, NULL, "-q", "--model", dir, "--title", title, "--format", "both", "-o", tu_in(f, "o"), "3 1 >",
                NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *figs[] = {"o/model.png", "o/layer1.png"};
    for (int i = 0; i < 2; i++) {
        av_png_image img;
        av_err err;
        assert_int_equal(av_png_read_texts(tu_in(f, figs[i]), &img, &err), AV_OK);
        const char *t = av_png_image_text(&img, "Title");
        assert_non_null(t);
        assert_int_equal(av_utf8_check(t, strlen(t), &err), AV_OK);
        assert_non_null(strstr(t, dir));
        size_t n = strlen(t);
        assert_true(n > 12 && strcmp(t + n - 12, "mask: causal") == 0);
        av_png_image_free(&img);
    }
    size_t n = 0;
    char *svg = tu_slurp_file(tu_in(f, "o/model.svg"), &n);
    assert_non_null(svg);
    av_err err;
    assert_int_equal(av_utf8_check(svg, n, &err), AV_OK);
    free(svg);
}

static void test_one_layer_model_in_the_singular(void **state) {
    tu_fixture *f = *state;
    const char *toy = tu_in(f, "one");
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--layers", "1", "--heads", "1", "--d-model",
                "16", "--batch", "2", "-o", toy, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", toy, "--figures", "model", "--html", "-o", tu_in(f, "o"), "3 1 >", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "[3] layers        1 block, each (3, 16) → (3, 16)"));
    assert_non_null(strstr(r.out, "\nwrote 2 files:\n"));
    tu_free(&r);
    char *html = tu_slurp_file(tu_in(f, "o/attnviz.html"), NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "1 layer × 1 head, d_model 16"));
    free(html);
    run_attnviz(&r, NULL, "--model", toy, "--figures", "model", "-o", tu_in(f, "p"), "3 1 >", NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\nwrote 1 file:\n"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", toy, "--layer", "1", "--no-plot", "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    char want[4600];
    snprintf(want, sizeof want, "attnviz: error: --layer 1 is outside 0..0: --layer must be 0..L-1 for this model "
             "(L = n_layer = 1 from %s); leave --layer out for the last layer\n", tu_sh_file_word(toy, "config.json"));
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* as typed: "--layer 01" was told "--layer 1 is outside 0..0", a value it was not given (a teacher's report) */
    run_attnviz(&r, NULL, "--model", toy, "--layer", "01", "--no-plot", "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: --layer 01 is outside 0..0: --layer must be 0..L-1 for this model "
             "(L = n_layer = 1 from %s); leave --layer out for the last layer\n", tu_sh_file_word(toy, "config.json"));
    assert_string_equal(r.err, want);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", toy, "--head", "1", "--no-plot", "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "attnviz: error: --head 1 is outside 0..0 (the model has 1 head); heads are numbered "
                           "from 0, so the only head is 0\n"));
    tu_free(&r);
}

/* A NUL byte in a --model's -f file or standard input is GPT-2's byte token <0x00> (id 188), as before the
 * single layer's "is not plain UTF-8 text" refusal came in (a003f79 refused it for --model too, exit 2);
 * text that looks like UTF-16 without a byte-order mark is still refused with the iconv advice. */
static void test_nul_byte_is_a_gpt2_byte_token(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/nul.txt", f->dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite("a\0b\n", 1, 4, fp);
    fclose(fp);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    if (r.code != 0) fail_msg("-f nul.txt: exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "ids [64, 188, 65]"));
    tu_free(&r);
    snprintf(path, sizeof path, "%s/u16.txt", f->dir);
    fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite("I\0 \0l\0o\0v\0e\0", 1, 12, fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "it looks like UTF-16LE text without a byte-order mark"));
    tu_free(&r);
}

/* -f reads line ends as Python's open() reads a text file: a Windows Notepad file (UTF-8 with BOM, CR LF)
 * gave a --model a <0x0D> token (id 201) before every newline, one more token per line than Hugging Face's
 * tokenizer gives the text a Python program reads from that file. Ids: tests/ref/bpe_ref.json's
 * "我爱深度学习" and "你好，世界！" with 198 (↵) between them; "I" 40, "love" 23205 (a lone CR, from -f -). */
static void test_crlf_file_reads_as_text(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/notepad.txt", f->dir);
    write_text(path, "\xEF\xBB\xBF我爱深度学习\r\n你好，世界！\r\n", strlen("\xEF\xBB\xBF我爱深度学习\r\n你好，世界！\r\n"));
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    if (r.code != 0) fail_msg("-f notepad.txt: exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "ids [22755, 239, 163, 230, 109, 162, 115, 109, 41753, 99, 27764, 99, 20046, 254, 198, 19526, 254, "
                       "25001, 121, 171, 120, 234, 10310, 244, 45911, 234, 171, 120, 223]\n"))
        fail_msg("the ids of a CR LF file:\n%s", r.out);
    assert_null(strstr(r.out, "<0x0D>"));
    tu_free(&r);
    run_attnviz(&r, "I\rlove", "--model", f->dir, "--no-plot", "-f", "-", NULL);
    if (r.code != 0) fail_msg("-f - with a lone CR: exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "ids [40, 198, 23205]\n")) fail_msg("the ids of a lone CR:\n%s", r.out);
    tu_free(&r);
}

/* -f drops only the file's final line end, as GNU tools read it (the end of the last line); the line ends
 * before it are text. Every final newline was dropped: "hello\n\n" gave [31373], though the argument
 * $'hello\n' and Hugging Face's tokenizer of that text give [31373, 198]. Ids from vocab.json (the real GPT-2
 * one): "hello" 31373, "Ċ" (\n) 198, "ĊĊ" (\n\n) 628, the merge of two. */
static void test_file_drops_only_its_final_line_end(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    static const struct {
        const char *text, *ids;
    } cases[] = {
        {"hello\n", "ids [31373]\n"},
        {"hello", "ids [31373]\n"},
        {"hello\n\n", "ids [31373, 198]\n"},
        {"hello\r\n\r\n", "ids [31373, 198]\n"},
        {"hello\n\n\n", "ids [31373, 628]\n"},
        {"\n\n", "ids [198]\n"},
    };
    char path[4200];
    snprintf(path, sizeof path, "%s/lines.txt", f->dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, cases[i].text, strlen(cases[i].text));
        tu_result r;
        run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
        if (r.code != 0) fail_msg("case %zu: exit %d: %s", i, r.code, r.err);
        if (!strstr(r.out, cases[i].ids)) fail_msg("case %zu: want %s in:\n%s", i, cases[i].ids, r.out);
        tu_free(&r);
    }
    /* the same text as an argument gives the same ids */
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "hello\n", NULL);
    if (r.code != 0 || !strstr(r.out, "ids [31373, 198]\n")) fail_msg("argument: exit %d:\n%s", r.code, r.out);
    tu_free(&r);
    /* a file of one line end holds no text, as before */
    write_text(path, "\n", 1);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "holds no text (only line breaks)"));
    tu_free(&r);
}

/* --explain with a model's tokens: "quick" finds "␣quick" (GPT-2 labels
 * carry the leading space), and a number that is also a token's text is
 * read as an index, with a note naming the token. */
/* A sentence of spaces only: the single layer (words split at white space) has no
 * token and refuses it (test_badinput whitespace_only), but GPT-2's byte-level BPE
 * encodes every space: "   " is three tokens ␣ ␣ ␣, id 220 each, as gpt-3-encoder
 * gives them (tests/ref/bpe_ref.json, case "   "), so --model runs on them. */
static void test_spaces_only_are_gpt2_tokens(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "   ", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "ids [220, 220, 220]"));
    assert_non_null(strstr(r.out, "[␣] [␣] [␣]"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "the sentence is empty"));
    tu_free(&r);
    /* from a file too: -f refuses a file of white space only for the single layer ("holds no text"), not for a
     * --model, whose tokenizer takes the spaces */
    char path[4200];
    snprintf(path, sizeof path, "%s/spaces.txt", f->dir);
    FILE *sp = fopen(path, "w");
    assert_non_null(sp);
    fputs("   \n", sp);
    fclose(sp);
    run_attnviz(&r, NULL, "--model", f->dir, "--no-plot", "-f", path, NULL);
    if (r.code != 0) fail_msg("-f spaces.txt: exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "ids [220, 220, 220]"));
    tu_free(&r);
}

static void test_explain_finds_tokens_with_their_space(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--no-plot", "--explain", "quick,The", "The quick brown fox", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 1 \"␣quick\" → key 0 \"The\""));
    assert_string_equal(r.err, "attnviz: note: --explain query 'quick' is the token '␣quick' (index 1): the model's "
                               "token carries its leading space as ␣\n");
    tu_free(&r);
    /* "1 0 1": tokens [1] [␣0] [␣1]; "2,1" reads 1 as index 1 ("␣0"), and token "1" is index 0 */
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--no-plot", "--explain", "2,1", "1 0 1", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "query 2 \"␣1\" → key 1 \"␣0\""));
    assert_string_equal(r.err, "attnviz: note: --explain key 1 is read as an index; the token '1' is index 0; the "
                               "token '␣1' is index 2 (pick it by its text: '␣1' or ' 1')\n");
    tu_free(&r);
}

/* A token with its leading space, picked by text: "3 1 4 1 5 >" is [3] [␣1]
 * [␣4] [␣1] [␣5] [␣>] (each digit after a space is GPT-2's "Ġ5", docs/train.md).
 * " 5" (the space typed) and "␣5" (as the label draws it) are the token
 * [␣5], index 4; a bare 5 is index 5, and a note says so and how to pick
 * [␣5]. "1, 3": no token [␣3], so the spaced " 3" is still index 3 (the
 * token [3] is index 0, and the note says so, as for "5"). */
static void test_explain_picks_a_token_by_its_leading_space(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    static const struct { const char *spec, *out, *err; } cases[] = {
        {">,5", "query 5 \"␣>\" → key 5 \"␣>\"",
         "attnviz: note: --explain query '>' is the token '␣>' (index 5): the model's token carries its leading "
         "space as ␣\nattnviz: note: --explain key 5 is read as an index; the token '␣5' is index 4 (pick it by its "
         "text: '␣5' or ' 5')\n"},
        {"␣>, 5", "query 5 \"␣>\" → key 4 \"␣5\"", ""},
        {" >,␣5", "query 5 \"␣>\" → key 4 \"␣5\"", ""},
        {"1, 3", "query 1 \"␣1\" → key 3 \"␣1\"",
         "attnviz: note: --explain key 3 is read as an index; the token '3' is index 0\n"},
        {" 1,2", "query 1 \"␣1\" → key 2 \"␣4\"",
         "attnviz: note: --explain query '␣1' occurs 2 times; using the first (index 1); give an index to pick "
         "another\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--model", f->dir, "--no-plot", "--color", "never", "--explain", cases[k].spec,
                    "3 1 4 1 5 >", NULL);
        if (r.code != 0 || !strstr(r.out, cases[k].out) || strcmp(r.err, cases[k].err) != 0)
            fail_msg("--explain '%s': exit %d\nstdout %s\nstderr '%s'\nwant '%s' and stderr '%s'", cases[k].spec,
                     r.code, r.out, r.err, cases[k].out, cases[k].err);
        tu_free(&r);
    }
    tu_result r0;
    /* no text: the hint is a --model command with a sentence for GPT-2 ("--heads 8 ..." was hinted, which
     * --model refuses; a new user's report) */
    char want[4400], dir[4200];
    snprintf(dir, sizeof dir, "%s", f->dir);
    run_attnviz(&r0, NULL, "--model", dir, NULL);
    snprintf(want, sizeof want, "attnviz: error: no input text given; try: attnviz --model %s \"I love deep learning\", "
             "or -f FILE, or -f - for stdin\n", tu_sh_word(dir));
    if (r0.code != 2 || strcmp(r0.err, want) != 0 || r0.out[0]) fail_msg("exit %d: '%s'", r0.code, r0.err);
    tu_free(&r0);
    /* the command keeps the other options as typed, each "--NAME VALUE" with the value one shell word (`--model
     * DIR -o x` was told to try `attnviz --model DIR "I love deep learning"`, without -o x: a new user's pass);
     * pasted into /bin/sh in a fresh folder it runs and writes 'a b'/model.png */
    run_attnviz(&r0, NULL, "--model", dir, "--layer", "0", "-q", "-o", "a b", NULL);
    snprintf(want, sizeof want, "attnviz: error: no input text given (the last argument, 'a b', is the value of -o: "
             "the text goes after it); try: attnviz --model %s --layer 0 -q -o 'a b' \"I love deep "
             "learning\", or -f FILE, or -f - for stdin\n", tu_sh_word(dir));
    if (r0.code != 2 || strcmp(r0.err, want) != 0) fail_msg("exit %d: '%s'\nwanted '%s'", r0.code, r0.err, want);
    tu_free(&r0);
    char cmd[9000], png[4300];
    snprintf(cmd, sizeof cmd, "cd %s && ", tu_sh_word(tu_in(f, "")));
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s --model %s --layer 0 -q -o 'a b' \"I love "
             "deep learning\"", tu_sh_word(tu_bin()), tu_sh_word(dir));
    assert_int_equal(system(cmd), 0);
    snprintf(png, sizeof png, "%s/a b/model.png", dir);
    assert_true(file_exists(png));
    /* an index past the end gets the same words in its error: "3,1" on "3 1 >" meant the token 3 (a new
     * user's report: the error said only "outside 0..2") */
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--model", f->dir, "--no-plot", "--explain", "3,1", "3 1 >", NULL);
    if (r.code != 2 || strcmp(r.err, "attnviz: error: --explain query index 3 is outside 0..2 (T = 3 tokens); the "
                                     "token '3' is index 0\n") != 0)
        fail_msg("exit %d: '%s'", r.code, r.err);
    tu_free(&r);
}

/* --head picks the head a --model draws alone by default and with --figures heads; with --figures grid or
 * model nothing used it, and nothing said so (a tester's report): a warning now names what takes it (the
 * --html page, which opens on that head, too). */
static void test_head_with_model_figures_without_heads(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    static const char *const figs[] = {"grid", "model", "heads", NULL};
    for (int k = 0; k < 4; k++) {
        tu_result r;
        if (figs[k])
            run_attnviz(&r, NULL, "-q", "--model", f->dir, "--figures", figs[k], "--head", "2", "-o", tu_in(f, "o"),
                        SENTENCE, NULL);
        else
            run_attnviz(&r, NULL, "-q", "--model", f->dir, "--head", "2", "-o", tu_in(f, "o"), SENTENCE, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        int used = !figs[k] || !strcmp(figs[k], "heads");
        const char *w = strstr(r.err, "attnviz: warning: --head 2 has no effect: with --model it picks the head of "
                                      "--explain, --show, the --html page, the --compare figure and --figures heads\n");
        if (used ? strstr(r.err, "no effect") != NULL : !w)
            fail_msg("--figures %s --head 2: stderr was:\n%s", figs[k] ? figs[k] : "(default)", r.err);
        tu_free(&r);
    }
    /* with --no-plot the head figure and the --compare figure that take --head are not drawn: the warning named
     * them as what --head is for, not --no-plot, the cause (`--model DIR --layer 0 --head 2 --compare scale
     * --no-plot`: a maintainer's list of known faults) */
    static const char *const extra[][2] = {{"--compare", "scale"}, {"--figures", "heads"}, {"--layer", "0"}};
    for (int k = 0; k < 3; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, extra[k][0], extra[k][1], "--head", "2",
                    SENTENCE, NULL);
        if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
        if (!strstr(r.err, "attnviz: warning: --head 2 has no effect with --no-plot (no figures are written); it also "
                           "picks the head of --explain, --show and the --html page\n") ||
            strstr(r.err, "the --compare figure"))
            fail_msg("--no-plot %s %s --head 2: stderr was:\n%s", extra[k][0], extra[k][1], r.err);
        tu_free(&r);
    }
}

/* --explain with --generate reads the input's forward pass: an index into the continuation got only "outside
 * 0..T-1", as if the generated tokens did not exist (a tester's report); the error now says why. */
static void test_explain_index_in_the_continuation(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, "--generate", "3", "--explain", "20,0", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, "; --explain reads the input's forward pass, not the --generate tokens (run the continued text "
                       "as the input to explain them)\n"))
        fail_msg("%s", r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", f->dir, "--explain", "20,0", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    assert_null(strstr(r.err, "--generate")); /* no --generate, no word on it */
    tu_free(&r);
}

static void test_options_with_model(void **state) {
    tu_fixture *f = *state;
    make_tiny(f->dir);
    static const struct {
        const char *a, *b, *msg;
    } cases[] = {
        {"--d-model", "64", "--d-model cannot be used with --model: the model fixes d_model"},
        {"--heads", "4", "--heads cannot be used with --model: the model fixes the heads"},
        {"--positions", "rope", "--positions cannot be used with --model: a GPT-2 model fixes its positions"},
        /* 'learned' named --train ("learned position embeddings need --train") though the model has them */
        {"--positions", "learned", "--positions cannot be used with --model: a GPT-2 model fixes its positions"},
        {"--causal", NULL, "--causal cannot be used with --model: a GPT-2 model always uses the causal mask"},
        {"--seed", "7", "--seed cannot be used with --model: nothing is seeded"},
        {"--no-scale", NULL, "--no-scale cannot be used with --model"},
        {"--pad-to", "20", "--pad-to cannot be used with --model"},
        {"--compare", "order", "--compare order cannot be used with --model; allowed: scale"},
        {"--kernel", "flash", "--kernel flash cannot be used with --model"},
        {"--figures", "mean", "--figures mean: with --model the figures are model (layers × heads), grid"},
        {"--layer", "2", "--layer 2 is outside 0..1: --layer must be 0..L-1 for this model (L = n_layer = 2 from "},
        /* no negative indexing; the message is the model's, not the parser's generic range */
        {"--layer", "-1", "--layer -1 is outside 0..1: --layer must be 0..L-1 for this model (L = n_layer = 2 from "},
        {"--layer", "x", "--layer 'x' is not a layer number; allowed: 0..L-1, L the --model's layers"},
        {"--head", "4", "--head 4 is outside 0..3 (the model has 4 heads)"},
        /* said "outside the allowed range 0..63", attnviz's maximum, not the model's 4 heads (a tester's report) */
        {"--head", "-1", "--head -1 is outside 0..3 (the model has 4 heads)"},
        {"--head", "64", "--head 64 is outside 0..3 (the model has 4 heads)"},
        /* the value as typed: "--layer 02" was told "--layer 2 is outside 0..1" (a teacher's report) */
        {"--layer", "02", "--layer 02 is outside 0..1: --layer must be 0..L-1 for this model (L = n_layer = 2 from "},
        {"--layer", "+2", "--layer +2 is outside 0..1: --layer must be 0..L-1 for this model (L = n_layer = 2 from "},
        {"--head", "04", "--head 04 is outside 0..3 (the model has 4 heads)"},
        /* a number past a long, or past ±1000000, was "not a layer number" (a pass over the options' boundaries) */
        {"--layer", "99999999999999999999", "--layer 99999999999999999999 is outside 0..1: --layer must be 0..L-1 for "
                                            "this model (L = n_layer = 2 from "},
        {"--layer", "-1000001", "--layer -1000001 is outside 0..1: --layer must be 0..L-1 for this model"},
    };
    /* with --dpi 200 too, which --no-plot does not use: the error alone, not first "--dpi 200 has no effect
     * with --no-plot" (and "--figures mean has no effect"), a warning about a run that is refused (a learner's
     * pass) */
    for (size_t i = 0; i < 2 * sizeof cases / sizeof cases[0]; i++) {
        size_t j = i / 2;
        const char *dpi = i % 2 ? "--dpi" : NULL;
        tu_result r;
        if (cases[j].b) run_attnviz(&r, NULL, "--model", f->dir, cases[j].a, cases[j].b, "--no-plot", "hi", dpi, "200", NULL);
        else run_attnviz(&r, NULL, "--model", f->dir, cases[j].a, "--no-plot", "hi", dpi, "200", NULL);
        if (r.code != 2 || !strstr(r.err, cases[j].msg) || strstr(r.err, "warning:"))
            fail_msg("%s%s: exit %d, stderr '%s'; want 2 and '%s' alone", cases[j].a, dpi ? " --dpi 200" : "", r.code,
                     r.err, cases[j].msg);
        tu_free(&r);
    }
    tu_result r;
    /* refused, so not also warned about as "no effect without --positions rope" */
    run_attnviz(&r, NULL, "--model", f->dir, "--rope-style", "half", "--no-plot", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_null(strstr(r.err, "warning"));
    tu_free(&r);
    /* refused with --compare scale too: "--no-scale has no effect with --compare scale" came first, then the
     * error that it cannot be used at all (a tester's report) */
    run_attnviz(&r, NULL, "--model", f->dir, "--compare", "scale", "--no-scale", "--no-plot", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--no-scale cannot be used with --model"));
    assert_null(strstr(r.err, "warning"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--layer", "1", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--layer picks a layer of a --model"));
    tu_free(&r);
    run_attnviz(&r, NULL, "--figures", "model", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--figures model draws every layer of a --model; add --model DIR"));
    tu_free(&r);
}

/* --model multiplies by sgemm unless --kernel reference, and then nothing
 * does (not even layer L's view, which ran the blas kernel whatever
 * --kernel said). Without OpenBLAS (tests/shim_noblas.c makes its dlopen
 * fail) the default exits 1 naming libopenblas.so.0 before the weights
 * load; --kernel reference draws the figures. */
static void test_model_reference_needs_no_openblas(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300];
    if (!tu_shim_env("shim_noblas.so", preload, asan)) return;
    const char *env[] = {preload, asan, NULL};
    const char *dir = tu_in(f, "tiny");
    assert_int_equal(mkdir(dir, 0755), 0);
    make_tiny(dir);
    tu_result r;
    const char *blas[] = {"--model", dir, "-q", "--no-plot", "Hello world", NULL};
    tu_runv(&r, NULL, env, blas);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "libopenblas.so.0"));
    assert_non_null(strstr(r.err, "--kernel reference"));
    tu_free(&r);
    const char *ref[] = {"--model", dir, "--kernel", "reference", "-o", tu_in(f, "o"), "Hello world", NULL};
    tu_runv(&r, NULL, env, ref);
    if (r.code != 0) print_message("--kernel reference: exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    assert_int_equal(access(tu_in(f, "o/model.png"), F_OK), 0);
    tu_free(&r);
}

/* A folder in the home folder is named from "~/" in the figures, as the recorded command names it: with
 * HOME=/home/alice, `attnviz --model ~/models/rev -o figs ...` recorded "attnviz --model ~/models/rev ..."
 * in the Description but drew "trained toy model /home/alice/models/rev (...)" in every figure's title and
 * wrote it in the Weights text, the SVG and the --html page (its source line and trace), so the lecture
 * figures published the author's home folder and changed with the machine they were made on; `-w
 * ~/weights` the same ("weights loaded from /home/alice/weights"). */
static void test_home_folder_in_the_titles_is_tilde(void **state) {
    tu_fixture *f = *state;
    char home[4300], env[4400], tiny[4400], w[4400];
    snprintf(home, sizeof home, "%s", tu_in(f, "home"));
    snprintf(env, sizeof env, "HOME=%s", home);
    snprintf(tiny, sizeof tiny, "%s/tiny", home);
    snprintf(w, sizeof w, "%s/w", home);
    assert_int_equal(mkdir(home, 0755), 0);
    assert_int_equal(mkdir(tiny, 0755), 0);
    make_tiny(tiny);
    const char *envs[] = {env, NULL};
    tu_result r;
    const char *model[] = {"--model", tiny, "-q", "--format", "both", "--html", "-o", tu_in(f, "o"), "Hello world",
                           NULL};
    tu_runv(&r, NULL, envs, model);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *dump[] = {"-q", "--no-plot", "--dump", w, "I love you", NULL};
    tu_runv(&r, NULL, NULL, dump);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    const char *weights[] = {"-q", "-w", w, "--format", "both", "--html", "-o", tu_in(f, "w_o"), "I love you", NULL};
    tu_runv(&r, NULL, envs, weights);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char *const figs[][4] = {
        {"o/model.png", "o/model.svg", "o/attnviz.html", "model ~/tiny (F32; positions: learned)"},
        {"w_o/head0.png", "w_o/head0.svg", "w_o/attnviz.html",
         "weights loaded from ~/w, as --dump wrote them from random weights (untrained, seed 42)"}};
    for (int k = 0; k < 2; k++) {
        av_png_image img;
        av_err err;
        if (av_png_read(tu_in(f, figs[k][0]), &img, &err)) fail_msg("%s", err.msg);
        const char *title = av_png_image_text(&img, "Title"), *wt = av_png_image_text(&img, "Weights");
        if (!title || !strstr(title, figs[k][3])) fail_msg("%s: Title '%s' should name '%s'", figs[k][0],
                                                            title ? title : "(none)", figs[k][3]);
        assert_non_null(wt);
        assert_string_equal(wt, figs[k][3]);
        av_png_image_free(&img);
        for (int j = 1; j < 3; j++) {
            char *text = tu_slurp_file(tu_in(f, figs[k][j]), NULL);
            assert_non_null(text);
            const char *at = strstr(text, home);
            if (at) fail_msg("%s holds the home folder %s: ...%.200s", figs[k][j], home, at > text + 80 ? at - 80 : text);
            if (!strstr(text, figs[k][3])) fail_msg("%s does not name '%s'", figs[k][j], figs[k][3]);
            free(text);
        }
    }
}

/* A tester alternated `--train reverse --steps 20` and the same with `--positions rope` into one folder
 * while running --model on it: once in 2,319 loads, exit 2 "model.safetensors: unexpected tensor
 * "wpe.weight" (not part of a GPT-2 with 2 layers and no learned positions)", config.json read from
 * one run and the weights from the next (--train renames its four files one after another). The
 * LD_PRELOAD shim (tests/shim_swap.c) makes that moment happen on every load: when model.safetensors
 * is opened, the other run's four files are renamed in first. A load that saw the folder change must
 * be made again (so once: the second load reads run B alone, whose trace says learned positions, as
 * it was trained), and a folder that changes on every load is a runtime error (exit 1) that says
 * why, never a bad file (exit 2). */
static void test_model_folder_replaced_while_read(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300], a_env[4300], b_env[4300];
    if (!tu_shim_env("shim_swap.so", preload, asan)) return;
    tu_result r;
    char a[4200], b[4200], dir[4200];
    snprintf(a, sizeof a, "%s", tu_in(f, "a"));
    snprintf(b, sizeof b, "%s", tu_in(f, "b"));
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--positions",
                "rope", "-o", a, NULL);
    if (r.code != 0) fail_msg("--train rope: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", b, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    snprintf(a_env, sizeof a_env, "SHIM_SWAP_A=%s", a);
    snprintf(b_env, sizeof b_env, "SHIM_SWAP_B=%s", b);
    const char *names[] = {"config.json", "model.safetensors", "vocab.json", "merges.txt"};
    const char *times[] = {"SHIM_SWAP_TIMES=1", "SHIM_SWAP_TIMES=1000"};
    for (int k = 0; k < 2; k++) {
        char from[4400];
        snprintf(dir, sizeof dir, "%s", tu_in(f, k ? "dir2" : "dir1"));
        assert_int_equal(mkdir(dir, 0755), 0);
        for (int i = 0; i < 4; i++) { /* a copy of run A (RoPE): the first swap brings B, a different inode */
            snprintf(from, sizeof from, "%s/%s", a, names[i]);
            copy_into(dir, names[i], from);
        }
        const char *env[] = {preload, asan, a_env, b_env, times[k], NULL};
        const char *args[] = {"--model", dir, "--no-plot", "3 1 >", NULL};
        tu_runv(&r, NULL, env, args);
        if (k == 0) {
            if (r.code != 0) fail_msg("one swap: exit %d, stderr: %s", r.code, r.err);
            assert_string_equal(r.err, "");
            assert_non_null(strstr(r.out, "positions  learned"));
        } else {
            char want[4600];
            snprintf(want, sizeof want, "attnviz: error: %s changed while it was being read (its config.json, on "
                     "each of 3 tries; is an attnviz --train writing it?); try again when it is done\n", dir);
            assert_int_equal(r.code, 1);
            assert_string_equal(r.err, want);
        }
        tu_free(&r);
    }
}

/* A --train folder whose config.json was edited to other positions than it was trained with: a learned one
 * (with wpe.weight) edited to "rope" was told 'model.safetensors: unexpected tensor "wpe.weight" (not part of
 * a GPT-2 with 2 layers and no learned positions)', blaming the tensor, and a RoPE one edited to "learned"
 * 'missing tensor "wpe.weight" (GPT-2 checkpoint names; config.json implies it)' (a learner's pass). Both
 * name the key, its value and what the weights have, exit 2 as the other config/tensor disagreements.
 * (A RoPE folder edited to "sinusoidal" or "none" has the same tensors, so no file can tell.) */
static void test_edited_positions_name_the_key(void **state) {
    tu_fixture *f = *state;
    char learned[4200], rope[4200], path[4400], want[13000];
    snprintf(learned, sizeof learned, "%s", tu_in(f, "learned"));
    snprintf(rope, sizeof rope, "%s", tu_in(f, "rope"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "-o", learned,
                NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--d-model", "16", "--batch", "2", "--positions",
                "rope", "-o", rope, NULL);
    if (r.code != 0) fail_msg("--train rope: exit %d: %s", r.code, r.err);
    tu_free(&r);
    static const char *const allowed = "the two disagree; allowed: \"learned\" with wpe.weight, or \"sinusoidal\", "
                                       "\"rope\" or \"none\" without it (restore config.json as the model was trained, "
                                       "or train again)\n";
    static const char *const kinds[] = {"rope", "sinusoidal", "none", "learned"};
    for (int k = 0; k < 4; k++) {
        const char *dir = k < 3 ? learned : rope;
        snprintf(path, sizeof path, "%s/config.json", dir);
        char *json = tu_slurp_file(path, NULL), to[64];
        assert_non_null(json);
        snprintf(to, sizeof to, "\"positions\":\t\"%s\"", kinds[k]);
        assert_int_equal(tu_write_replaced(path, json, k < 3 ? "\"positions\":\t\"learned\"" : "\"positions\":\t\"rope\"",
                                           to), 0);
        run_attnviz(&r, NULL, "--model", dir, "--no-plot", "3 1 >", NULL);
        if (k < 3)
            snprintf(want, sizeof want, "attnviz: error: %s says attnviz.positions \"%s\", but %s has "
                     "the tensor \"wpe.weight\" (learned positions): %s", tu_sh_word(path), kinds[k], sh_in(dir, "model.safetensors"), allowed);
        else
            snprintf(want, sizeof want, "attnviz: error: %s says attnviz.positions \"learned\", but %s "
                     "has no tensor \"wpe.weight\" (learned positions' table): %s", tu_sh_word(path), sh_in(dir, "model.safetensors"), allowed);
        if (r.code != 2 || strcmp(r.err, want))
            fail_msg("positions edited to \"%s\": exit %d, stderr '%s'; want exit 2 and '%s'", kinds[k], r.code, r.err,
                     want);
        tu_free(&r);
        FILE *fp = fopen(path, "wb"); /* as --train wrote it, for the next edit */
        fputs(json, fp);
        fclose(fp);
        free(json);
    }
}

/* --model on a folder an attnviz --train is writing (made empty before its first step, the model saved
 * after its last): "--model DIR has no config.json; a GPT-2 model folder holds ..." (exit 2) said the
 * folder was the wrong kind (a new user's report, running the README's second command while the first ran).
 * Now exit 1 saying a --train is writing it. The test holds the folder's lock itself, as --train does
 * (flock(LOCK_EX) on the folder); a folder nobody holds keeps the usage error. */
static void test_model_folder_under_training(void **state) {
    tu_fixture *f = *state;
    const char *dir = tu_in(f, "training");
    assert_int_equal(mkdir(dir, 0755), 0);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--model", dir, "--generate", "5", "3 1 4 1 5 >", NULL);
    char want[4400];
    snprintf(want, sizeof want, "attnviz: error: --model %s has no config.json yet: an attnviz --train is writing "
             "this folder now (it holds the folder's lock) and saves its model after the last step; run this again "
             "when that run has ended\n", tu_sh_word(dir));
    if (r.code != 1 || strcmp(r.err, want) != 0) fail_msg("exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
    close(fd);
    run_attnviz(&r, NULL, "--model", dir, "--generate", "5", "3 1 4 1 5 >", NULL);
    if (r.code != 2 || !strstr(r.err, "has no config.json; a GPT-2 model folder holds"))
        fail_msg("unlocked: exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
}

/* --model on a trained folder that a second attnviz --train is writing now (`--train reverse -o runs/reverse
 * --dpi 300` in one terminal, `--model runs/reverse --generate 5 ...` in another): the earlier model was read
 * and its continuation printed without a word, though that run replaces it when it saves its own (a learner's
 * pass). Now a note says so, with -q too; the run goes on (exit 0). The test holds the folder's lock itself,
 * as --train does; a folder nobody holds gets no note. */
static void test_model_trained_folder_under_training(void **state) {
    tu_fixture *f = *state;
    char dir[4200], want[4600];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "2", "--d-model", "16", "--batch", "2", "-o", dir, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", dir, "--generate", "1", "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: note: an attnviz --train is writing %s now; this run reads the model the "
             "folder holds at this moment (reverse, step 2), which that run replaces when it saves its own; run this "
             "again when that run has ended\n", tu_sh_word(dir));
    if (r.code != 0 || !strstr(r.err, want) || !strstr(r.out, "text:"))
        fail_msg("exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
    close(fd);
    run_attnviz(&r, NULL, "-q", "--no-plot", "--model", dir, "--generate", "1", "3 1 >", NULL);
    if (r.code != 0 || strstr(r.err, "is writing")) fail_msg("unlocked: exit %d, stderr '%s'", r.code, r.err);
    tu_free(&r);
}

/* Another program empties model.safetensors while attnviz reads it (`>
 * model.safetensors`, a download tool rewriting it in place): the file is
 * read through mmap, and a read past its new end raised SIGBUS, so attnviz
 * died with "Bus error" (exit 135). The shim (tests/shim_truncate.c)
 * truncates it right after it is mapped. Now: exit 1 naming the file and
 * what happened. */
static void test_model_file_truncated_while_read(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300], trunc_env[4300];
    if (!tu_shim_env("shim_truncate.so", preload, asan)) return;
    tu_result r;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    snprintf(trunc_env, sizeof trunc_env, "SHIM_TRUNCATE=%s/model.safetensors", dir);
    const char *env[] = {preload, asan, trunc_env, NULL};
    const char *args[] = {"--model", dir, "-o", tu_in(f, "o"), "3 1 >", NULL};
    tu_runv(&r, NULL, env, args);
    char want[4600];
    char file[4300];
    snprintf(file, sizeof file, "%s/model.safetensors", dir);
    snprintf(want, sizeof want, "attnviz: error: cannot read %s: it became shorter while it was "
             "being read (another program truncated or rewrote it in place)", tu_sh_word(file));
    if (r.code != 1) print_message("exit %d, stderr: %s\n", r.code, r.err);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(access(tu_in(f, "o"), F_OK), -1); /* nothing written */
    tu_free(&r);
}

/* An -o or --dump that names a file fails before the forward pass with --model, as it does for the single layer
 * (main.c run_model): `--model DIR --generate 2 -o out.txt "3 1 >"` printed the whole trace and the continuation,
 * then "-o: cannot create folder ...". Expected, as the single layer's run (`-o out.txt "3 1 >"`, no --model)
 * behaves: exit 1, the error naming the option and the file, and nothing on standard output. A bad --explain
 * cell is still the usage error (exit 2) it is without --model, before the folder's runtime error. */
static void test_model_unwritable_folder_fails_before_the_work(void **state) {
    tu_fixture *f = *state;
    char dir[4200], file[4200], want[9000];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    snprintf(file, sizeof file, "%s", tu_in(f, "out.txt"));
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fputs("keep\n", fp);
    fclose(fp);
    tu_result r;
    run_attnviz(&r, NULL, "--model", dir, "--generate", "2", "-o", file, "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: -o: cannot create folder %s: ", tu_sh_word(file));
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s exists and is not a folder\n", tu_sh_word(file));
    if (r.code != 1 || strcmp(r.err, want) != 0 || r.out[0])
        print_message("exit %d\nstdout: %s\nstderr: %s\nwanted: %s", r.code, r.out, r.err, want);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    tu_free(&r);
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/d", file);
    run_attnviz(&r, NULL, "--model", dir, "--no-plot", "--dump", sub, "3 1 >", NULL);
    snprintf(want, sizeof want, "attnviz: error: --dump: cannot create folder %s: ", tu_sh_word(sub));
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s exists and is not a folder\n", tu_sh_word(file));
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", dir, "--explain", "zz,3", "-o", file, "3 1 >", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --explain query 'zz' is neither a token of the sentence nor an index 0..2\n");
    tu_free(&r);
    fp = fopen(file, "r");
    char back[16] = "";
    assert_non_null(fp);
    assert_non_null(fgets(back, sizeof back, fp));
    fclose(fp);
    assert_string_equal(back, "keep\n");
}

static int lead_bytes(const char *s, size_t n) {
    int w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* The --model trace at a narrow terminal: its lines were printed whole, so at COLUMNS=60 the weights line
 * ("  weights    model DIR (trained toy model: attnviz --train reverse, step 30): F32, 120960 parameters, read
 * in place from the mmapped file") ran past 130 columns and the terminal broke it into column 0, where the
 * single layer's trace was broken at the terminal's width (a maintainer's list of known faults). On a
 * 60-column pseudo-terminal (COLUMNS unset, colour on), every line is at most 60 columns but the ones left whole
 * on purpose, each a line of the pipe's output: the summary "  T = ..." and the table of layers (21 spaces,
 * then "layer" or a layer's number); the weights line goes on at column 13 (under its text, after
 * "  weights    "), step [1.2]'s at column 21 (after " [1.2] project       "); and the words are the pipe's,
 * in the same order. Columns are counted by hand: every character of this trace is one column wide, so one
 * per UTF-8 lead byte, escapes (ESC [ ... m) taking none. */
static void test_model_trace_fits_a_narrow_terminal(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    const char *argv[] = {tu_bin(), "--model", dir, "--no-plot", "--color", "always", "3 1 4 >", NULL};
    tu_result piped;
    tu_runv(&piped, NULL, NULL, argv + 1);
    if (piped.code != 0) fail_msg("exit %d: %s", piped.code, piped.err);
    tu_strip_sgr(piped.out);
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 60, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tu_strip_sgr(out);
    int weights_on = 0, project_on = 0;
    for (const char *line = out; *line;) {
        size_t n = strcspn(line, "\n");
        if (lead_bytes(line, n) > 60) {
            int whole = strncmp(line, "  T = ", 6) == 0 ||
                        (strspn(line, " ") == 21 && (strncmp(line + 21, "layer ", 6) == 0 || (line[21] >= '0' && line[21] <= '9')));
            char one[1024]; /* the line, with its newline: a line of the pipe's whole */
            snprintf(one, sizeof one, "%.*s\n", (int)n, line);
            const char *at = whole ? strstr(piped.out, one) : NULL;
            if (!at || (at != piped.out && at[-1] != '\n'))
                fail_msg("a line of %d columns on a 60-column terminal:\n%.*s\nin:\n%s", lead_bytes(line, n), (int)n,
                         line, out);
        }
        const char *next = line + n + (line[n] == '\n');
        if (strncmp(line, "  weights    model ", 19) == 0) weights_on = strspn(next, " ") == 13;
        if (strncmp(line, " [1.2] project ", 15) == 0) project_on = strspn(next, " ") == 21;
        line = next;
    }
    /* The table of layers ran past the width whole: its header "layer   rms: in → out     on token 0
     * previous-token head" (58 columns, below) at its indent of 21 ended at column 79, and a 60-column terminal
     * wrapped each row to column 0. It moves left, all its rows together, as far as the width needs: 60 - 58 =
     * 2, its gaps as they were, so row "0" starts under "layer" */
    const char *layers = strstr(out, "\n  layer   rms: in → out     on token 0   previous-token head\n");
    if (!layers || strncmp(strchr(layers + 1, '\n') + 1, "  0       ", 10) != 0)
        fail_msg("no table of layers at column 2 on a 60-column terminal:\n%s", out);
    if (!weights_on) fail_msg("the weights line does not go on at column 13:\n%s", out);
    if (!project_on) fail_msg("step [1.2] does not go on at column 21:\n%s", out);
    if (!tu_same_words(out, piped.out)) fail_msg("the terminal's text is not the pipe's:\n%s\n---\n%s", out, piped.out);
    /* At 80 columns (a projector's large font) every line fits, the sizes line and the table of layers too: the
     * sizes "  T = 4   layers L = 2   d_model = 16   heads H = 4   d_k = 16/4 = 4   vocab V = 294" (83 columns)
     * break at a gap, as the sentence trace's do, and the table's header "layer   rms: in → out     on token 0
     * previous-token head" is 8 + 15 + 3 + 13 + 19 = 58 columns after its indent of 21 (rms "0.0337 → 0.0385" is 15;
     * it was 64: 85 in all) */
    status = tu_run_pty(argv, 80, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tu_strip_sgr(out);
    int sizes_on = 0, header = 0;
    for (const char *line = out; *line;) {
        size_t n = strcspn(line, "\n");
        if (lead_bytes(line, n) > 80)
            fail_msg("a line of %d columns on an 80-column terminal:\n%.*s\nin:\n%s", lead_bytes(line, n), (int)n, line, out);
        const char *next = line + n + (line[n] == '\n');
        if (strncmp(line, "  T = 4   layers L = ", 21) == 0) sizes_on = strncmp(next, "  vocab V = 294\n", 16) == 0;
        if (strstr(line, "layer   rms: in → out     on token 0   previous-token head"))
            header = lead_bytes(line, n) == 21 + 58;
        line = next;
    }
    if (!sizes_on) fail_msg("the sizes line does not go on with \"  vocab V = 294\":\n%s", out);
    if (!header) fail_msg("no table header of 21 + 58 columns:\n%s", out);
    if (!tu_same_words(out, piped.out)) fail_msg("the terminal's text is not the pipe's (80):\n%s\n---\n%s", out, piped.out);
    free(out);
    tu_free(&piped);
}

/* A step's formula wider than the room under its text ran past a narrow terminal: at 40 columns `attnviz --model
 * DIR "3 1 4 >"` (DIR a trained toy folder) printed step [1.1]'s "(x − mean)/√(var + ε)·γ + β per row      (4, 16)
 * → (4, 16)" whole from column 21 to 79, the terminal wrapping it to column 0, as break_in kept the rest of a line
 * whole when its continuation indent took half the width. Worked by hand from the pipe's line: under column 21
 * of 40 the room is 19; "(x − mean)/√(var + ε)·γ" has no space outside its brackets and is 23 columns, so it
 * moves left to end at column 40, after 40 - 23 = 17 spaces; "+ β per row" (11) and "(4, 16) → (4, 16)" (17)
 * go on under column 21. From 40 to 60 columns every line fits (but the table of layers, whose rows stay whole
 * when they cannot fit narrowed, test_model_trace_fits_a_narrow_terminal), and the steps' words are the pipe's. */
static void test_model_trace_moves_a_formula_left_at_a_narrow_terminal(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    const char *argv[] = {tu_bin(), "--model", dir, "--no-plot", "--color", "never", "3 1 4 >", NULL};
    tu_result piped;
    tu_runv(&piped, NULL, NULL, argv + 1);
    if (piped.code != 0) fail_msg("exit %d: %s", piped.code, piped.err);
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    for (int cols = 40; cols <= 60; cols++) {
        int status = tu_run_pty(argv, cols, out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        for (const char *line = out; *line;) {
            size_t n = strcspn(line, "\n");
            int table = strspn(line, " ") == 21 &&
                        (strncmp(line + 21, "layer ", 6) == 0 || (line[21] >= '0' && line[21] <= '9'));
            if (lead_bytes(line, n) > cols && !table)
                fail_msg("a line of %d columns on a %d-column terminal:\n%.*s\nin:\n%s", lead_bytes(line, n), cols,
                         (int)n, line, out);
            line += n + (line[n] == '\n');
        }
        const char *steps = strstr(out, "\n [1.1] "), *piped_steps = strstr(piped.out, "\n [1.1] ");
        if (!steps || !piped_steps || !tu_same_words(steps, piped_steps)) /* (the table of layers goes in blocks) */
            fail_msg("the steps at %d columns are not the pipe's:\n%s\n---\n%s", cols, out, piped.out);
        if (cols == 40 && !strstr(out, "\n [1.1] ln_1          h =\n"
                                       "                 (x − mean)/√(var + ε)·γ\n"
                                       "                     + β per row\n"
                                       "                     (4, 16) → (4, 16)\n"))
            fail_msg("step [1.1] at 40 columns:\n%s", out);
    }
    free(out);
    tu_free(&piped);
}

/* A formula's brackets were broken when the formula fits the terminal moved left: at 40 columns `attnviz --model
 * DIR "3 1 4 >"` printed step [1.11]'s "m = GELU(h·W_fc + b_fc)·W_proj + b_proj" as "GELU(h·W_fc +" then
 * "b_fc)·W_proj" under column 21, and "GELU(u) = 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))" with
 * "tanh(√(2/π)·(u +" then "0.044715·u³)))", a bracket's halves apart where a break outside it fits. Worked by
 * hand from the pipe's line: the room under column 21 of 40 is 19; "GELU(h·W_fc + b_fc)·W_proj" is 26 columns
 * (5 + 5 + 1 + 1 + 1 + 5 + 8), too wide for it but not for the terminal, so it goes whole, moved left to end at
 * column 40 after 40 - 26 = 14 spaces, as step [1.1]'s "(x − mean)/√(var + ε)·γ" does; "+ b_proj" goes on under
 * column 21. "0.5·u·(1 + tanh(…)))" (42) fits no line, so it breaks inside its outer bracket, and
 * "tanh(√(2/π)·(u + 0.044715·u³)))" (31) goes whole after 40 - 31 = 9 spaces. A remark in brackets is not a
 * formula: the weights line's "(trained toy model: attnviz --train reverse, step 1):" still breaks under
 * column 13 at 56 columns ("(trained toy model: attnviz --train", then "reverse, …") rather than moving left. */
static void test_model_trace_keeps_a_formulas_bracket_whole(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    const char *argv[] = {tu_bin(), "--model", dir, "--no-plot", "--color", "never", "3 1 4 >", NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n[1.11] MLP           m =\n"
                     "              GELU(h·W_fc + b_fc)·W_proj\n"
                     "                     + b_proj\n"))
        fail_msg("step [1.11]'s formula at 40 columns:\n%s", out);
    if (!strstr(out, "\n                     0.5·u·(1 +\n"
                     "         tanh(√(2/π)·(u + 0.044715·u³)))\n"))
        fail_msg("step [1.11]'s GELU(u) at 40 columns:\n%s", out);
    status = tu_run_pty(argv, 56, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n             (trained toy model: attnviz --train\n"))
        fail_msg("the weights line's remark at 56 columns:\n%s", out);
    free(out);
}

/* dir (cap bytes) = the fixture's folder toy64, a model that `attnviz --train reverse --steps 1 --batch 2` wrote
 * there (d_model 64, the default), for the narrow-terminal tests below; fails the test if --train fails. */
static void toy64_folder(tu_fixture *f, char *dir, size_t cap) {
    snprintf(dir, cap, "%s", tu_in(f, "toy64"));
    tu_result r;
    run_attnviz(&r, NULL, "-q", "--train", "reverse", "--steps", "1", "--batch", "2", "-o", dir, NULL);
    if (r.code != 0) fail_msg("--train: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A step's text was one word on its label's line: at 40 columns `attnviz --model DIR "3 1 4 1 5 >"` (DIR a toy
 * folder of --train's default d_model 64) printed "   [1] tokenize      UTF-8" and then "text → 6 token ids" under
 * column 21. Worked by hand from the pipe's line: the room under column 21 of 40 is 19; "UTF-8 text → 6 token" is
 * 5 + 1 + 4 + 1 + 1 + 1 + 1 + 1 + 5 = 20 and a count keeps its noun ("6 token"), so the last plain space that fits
 * was after "UTF-8"; the line now ends before the arrow, "UTF-8 text" (10), and "→ 6 token ids" (13) goes on.
 * Step [1.3] left a word alone between two lines of text, "head h takes", "columns", "h·16 … h·16+15": "head h
 * takes columns" is 4 + 1 + 1 + 1 + 5 + 1 + 7 = 20 > 19, and "columns h·16 … h·16+15" (22) does not fit either,
 * whose last word would be a widow; "head h" (6), "takes columns" (13) and "h·16 … h·16+15" (14) each fit. */
static void test_model_trace_keeps_no_word_alone_at_40_columns(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    toy64_folder(f, dir, sizeof dir);
    const char *argv[] = {tu_bin(), "--model", dir, "--no-plot", "--color", "never", "3 1 4 1 5 >", NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\n   [1] tokenize      UTF-8 text\n                     → 6 token ids\n"))
        fail_msg("step [1] at 40 columns:\n%s", out);
    if (!strstr(out, "\n                     head h\n                     takes columns\n"
                     "                     h·16 … h·16+15\n"))
        fail_msg("step [1.3] at 40 columns:\n%s", out);
    free(out);
}

/* --generate's lines ran past a narrow terminal whole: at 40 columns `attnviz --no-plot -q --model DIR --generate
 * 8 "3 1 4 1 5 >"` printed "  generate    greedy, 8 tokens after the input: [␣0] [␣0] ..." (80 columns) and
 * "              ids: 256 256 ..." (50), which the terminal wrapped to column 0. Worked by hand from the pipe's
 * line: "greedy, 8 tokens after the" is 26 columns and ends at 14 + 26 = 40, " input:" would take it to 47, so
 * "input:" and the token labels go on under column 14 (the labels' widths depend on the model, each line at most
 * 40 columns); the words are the pipe's, and the quoted text stays whole on its line (its spaces are the text's:
 * a break would take them). */
static void test_generate_fits_a_narrow_terminal(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    toy64_folder(f, dir, sizeof dir);
    const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--model", dir, "--generate", "8",
                          "3 1 4 1 5 >", NULL};
    tu_result piped;
    tu_runv(&piped, NULL, NULL, argv + 1);
    if (piped.code != 0) fail_msg("exit %d: %s", piped.code, piped.err);
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    static const char first[] = "  generate    greedy, 8 tokens after the\n              input: [";
    if (strncmp(out, first, strlen(first)) != 0)
        fail_msg("the first lines at 40 columns:\n%s", out);
    const char *text = strstr(piped.out, "\n              text: ");
    size_t tn = text ? strcspn(text + 1, "\n") : 0;
    if (!text || !strstr(out, "\n              ids: ")) fail_msg("no ids or text line:\n%s", out);
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)tn + 2, text);
    if (!strstr(out, line)) fail_msg("the text line is not the pipe's, whole:\n%s\n---\n%s", out, piped.out);
    for (const char *l = out; *l;) {
        size_t n = strcspn(l, "\n");
        if (lead_bytes(l, n) > 40 && strncmp(l, "              text: ", 20) != 0 && strncmp(l, "attnviz: ", 9) != 0)
            fail_msg("a line of %d columns at 40:\n%.*s\nin:\n%s", lead_bytes(l, n), (int)n, l, out);
        l += n + (l[n] == '\n');
    }
    char *note = strstr(out, "attnviz: "); /* stderr's notes after it, which the pipe's stdout has not */
    if (note) *note = 0;
    if (!tu_same_words(out, piped.out)) fail_msg("the terminal's words are not the pipe's:\n%s\n---\n%s", out, piped.out);
    free(out);
    tu_free(&piped);
}

/* The same when --generate can add nothing (from a review of the change): with an input already at the model's
 * 32 positions, `attnviz --no-plot -q --model DIR --generate 3` and 32 digits printed at 40 columns 'text: "3 1
 * 4 1 5 9 2 6 5 3' and the rest of the quoted input on two more lines, breaks that took its spaces, while the
 * line above it was wrapped as it should be. The quoted input is the pipe's line, whole. */
static void test_generate_nothing_keeps_the_quoted_input_whole(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    toy64_folder(f, dir, sizeof dir);
    static const char in[] = "3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8 4 6 2 6 4 3 3 8 3 2 7 9 5"; /* 32 tokens */
    const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--model", dir, "--generate", "3", in, NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char line[256];
    snprintf(line, sizeof line, "\n              text: \"%s\" (the input, nothing added)\n", in);
    if (!strstr(out, line)) fail_msg("the quoted input is not whole on its line at 40 columns:\n%s", out);
    if (!strstr(out, "  generate    no tokens: the input is\n")) fail_msg("the line above it is not wrapped:\n%s", out);
    free(out);
}

/* --model --compare scale's table was unreadable at a narrow terminal: at 40 columns `attnviz --no-plot -q --model
 * DIR --compare scale "3 1 4 1 5 >"` printed "  setting            mean max weight", then "mean entropy (nats)"
 * and "max |ΔA| vs first" alone under column 21, and each row broken, "  scaled ÷√d_k (own)          0.4099"
 * then "  1.0965                      —": the name "scaled ÷√d_k (own)" fills the 18-column names' field and one
 * space parted it from the first number's column, so the table's narrowing (2 spaces part its columns) took
 * the names and "mean max weight" for one cell. Worked by hand: the names' column is now 19 wide (18 and a
 * space), then a space, and the last column gives up the one it takes, 2 + 19 + 1 + 15 + 1 + 20 + 1 + 21 = 80
 * as before; the header is "  setting" and 12 + 1 spaces before "mean max weight". At 40 the table goes in
 * blocks, each the names and the columns that fit, every row beginning with its name. */
static void test_model_compare_scale_table_at_a_narrow_terminal(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    const char *argv[] = {tu_bin(), "--no-plot", "-q", "--color", "never", "--model", dir, "--compare", "scale",
                          "3 1 4 1 5 >", NULL};
    tu_result piped;
    tu_runv(&piped, NULL, NULL, argv + 1);
    if (piped.code != 0) fail_msg("exit %d: %s", piped.code, piped.err);
    const char *head = strstr(piped.out, "\n  setting             mean max weight  mean entropy (nats)     max |ΔA| vs "
                                         "first\n");
    if (!head) fail_msg("the table's header into a pipe:\n%s", piped.out);
    head++;
    for (int row = 0; row < 3; row++) { /* the header and the 2 rows, 80 columns each */
        size_t n = strcspn(head, "\n");
        if (lead_bytes(head, n) != 80) /* (every character of the table takes one column) */
            fail_msg("row %d is %d columns, not 80:\n%.*s", row, lead_bytes(head, n), (int)n, head);
        head += n + 1;
    }
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 40, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(out, "\nsetting             mean max weight\nscaled ÷√d_k (own)           0.") ||
        !strstr(out, "\nsetting             max |ΔA| vs first\nscaled ÷√d_k (own)                  —\n"
                     "no scale                       0."))
        fail_msg("the table at 40 columns:\n%s", out);
    for (const char *line = strstr(out, "\nsetting"); line && *line; line += strcspn(line, "\n") + (*line == '\n')) {
        if (*line == '\n') line++;
        if (strncmp(line, "  (own:", 7) == 0) break;
        if (strncmp(line, "setting ", 8) && strncmp(line, "scaled ", 7) && strncmp(line, "no scale ", 9))
            fail_msg("a row of the table at 40 columns does not begin with its name:\n%.*s\nin:\n%s",
                     (int)strcspn(line, "\n"), line, out);
    }
    free(out);
    tu_free(&piped);
}

/* Colour moves no line break: at 40 to 60 columns, each trace (the sentence's, --heads 8, --explain, --compare,
 * --model and --model --explain) in its default colour, the colour escapes taken out, is the same lines as with
 * --color never. At 40 the space after " [1.1] ln_1"'s bold end was a break of its own: the label went alone on
 * its line and "h =" on the next, where --color never gives " [1.1] ln_1          h =" (the step's text at
 * column 21, worked by hand: 1 + "[1.1]" 5 + 1 + "ln_1" 4 + 10 spaces). */
static void test_colour_breaks_lines_as_no_colour_does(void **state) {
    tu_fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", tu_in(f, "toy"));
    train_toy(dir);
    const char *const runs[][8] = {
        {"I love deep learning"},
        {"--heads", "8", "I love deep learning"},
        {"--explain", "love,deep", "I love deep learning"},
        {"--compare", "order", "I love deep learning"},
        {"--compare", "scale", "I love deep learning"},
        {"--pos", "rope", "--causal", "我爱深度学习"},
        {"--model", dir, "3 1 4 >"},
        {"--model", dir, "--explain", "1,2", "3 1 4 >"},
    };
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    char *coloured = malloc(TU_CAP + 1), *plain = malloc(TU_CAP + 1);
    assert_non_null(coloured);
    assert_non_null(plain);
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++)
        for (int cols = 40; cols <= 60; cols += cols < 44 ? 1 : 4) {
            const char *argv[16] = {tu_bin(), "--no-plot"}, *never[16] = {tu_bin(), "--no-plot", "--color", "never"};
            int a = 2, b = 4;
            for (int i = 0; runs[k][i]; i++) argv[a++] = runs[k][i], never[b++] = runs[k][i];
            int status = tu_run_pty(argv, cols, coloured, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            if (!strstr(coloured, "\033[")) fail_msg("no colour on a terminal (run %zu):\n%s", k, coloured);
            tu_strip_sgr(coloured);
            status = tu_run_pty(never, cols, plain, TU_CAP + 1);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            const char *c = coloured, *p = plain;
            for (int line = 1; *c || *p; line++) {
                size_t cn = strcspn(c, "\n"), pn = strcspn(p, "\n");
                if (cn != pn || memcmp(c, p, cn) != 0)
                    fail_msg("%s ... at %d columns, line %d in colour:\n%.*s\nwith --color never:\n%.*s\nin:\n%s",
                             runs[k][0], cols, line, (int)cn, c, (int)pn, p, coloured);
                c += cn + (c[cn] == '\n'), p += pn + (p[pn] == '\n');
            }
            if (k == 6 && cols == 40 && !strstr(coloured, "\n [1.1] ln_1          h =\n"))
                fail_msg("step [1.1] at 40 columns:\n%s", coloured);
        }
    free(coloured);
    free(plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_model_end_to_end, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_moves_a_formula_left_at_a_narrow_terminal, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_colour_breaks_lines_as_no_colour_does, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_keeps_a_formulas_bracket_whole, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_keeps_no_word_alone_at_40_columns, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_nothing_keeps_the_quoted_input_whole, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_fits_a_narrow_terminal, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_scale_table_at_a_narrow_terminal, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_fits_a_narrow_terminal, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tied_checkpoint_without_wte, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_bracket_specials_need_no_merge, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_counts_its_runs, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_counts_the_layers_copy, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_interrupted_on_a_terminal_says_so, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_file_truncated_while_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_folder_under_training, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trained_folder_under_training, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_teaching_tools, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dump_folder_holds_one_kind_of_run, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dump_keeps_files_no_dump_wrote, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dump_keeps_weights_changed_since, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_dump_names_its_model, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_titles_name_learned_positions, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_view_of_one_layer, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_view_title_gives_the_reading_order, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_generate, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_default_layer_norm_epsilon_is_marked, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_config_alias_names, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_config_alias_names_in_messages, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_merges_cut_mid_line_says_truncated, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_stops_at_eos, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_on_full_disk, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_top5_ranks_by_logit_where_p_underflows, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_top5_shows_the_ranking, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_overflow_names_the_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_ids_past_the_tokenizer, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_generate_an_added_tokens_orphaned_id, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_bad_checkpoints, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_hf_cache_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_hf_cache_long_command_is_marked_cut, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_parent_of_model_folders, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_parent_command_keeps_the_input, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_suggested_command_pastes_back_a_control_character, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_torch_conversion_line_is_whole_in_a_cache_snapshot, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_folder_with_trailing_slash, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gpt2_folder_with_tokenizer_json_only, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_added_tokens_json_is_not_ignored, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_file_names_its_folder, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tanh_gelu_names_run_as_gelu_new, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_toy_model_input_edges, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_head_with_model_figures_without_heads, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_explain_index_in_the_continuation, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_options_with_model, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_figures_say_the_sentence, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_explain_finds_tokens_with_their_space, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_explain_picks_a_token_by_its_leading_space, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_spaces_only_are_gpt2_tokens, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_nul_byte_is_a_gpt2_byte_token, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_crlf_file_reads_as_text, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_file_drops_only_its_final_line_end, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_no_pe_figure_says_why, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_run_that_draws_nothing_keeps_earlier_figures, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_scale_names_the_models_positions, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_explain_says_trained_without_scale, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_scale_marks_the_models_own, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_html_counts_both_settings, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_one_layer_model_in_the_singular, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_long_title_and_long_model_path, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_toy_folder_with_tokenizer_json_only, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_too_many_tokens_names_n_positions, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_figures_label_parts_of_a_character, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_figure_labels_parts_of_a_character, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_explain_names_parts_as_figures_do, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_explain_parts_typed_by_an_input_method, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_show_and_explain_name_parts_as_figures_do, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_explain_character_inside_a_token, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_names_byte_tokens_of_a_character, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_counts_only_split_characters, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_trace_elides_long_token_lines, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_type_against_attnviz_object, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_scale_attn_weights_null_runs_unscaled, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gpt2_fast_tokenizer_does_not_read_add_bos_token, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gpt2_vocab_json_reads_add_bos_token, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_gpt2_add_prefix_space_is_not_ignored, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_reference_needs_no_openblas, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_home_folder_in_the_titles_is_tilde, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_unwritable_folder_fails_before_the_work, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_edited_positions_name_the_key, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_folder_replaced_while_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_quiet_show_and_explain_say_the_weights, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_quiet_compare_says_the_weights, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
