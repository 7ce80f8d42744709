/* test_llama_cli.c - `attnviz --model DIR` on Llama and Qwen2 folders end to
 * end: the trace (GQA note, rope-style half, the RoPE shift evidence), the
 * dumps against the numpy reference, the figures, and bad folders.
 *
 * Expected values: tests/gen_llama_ref.py's float64 numpy forward
 * (tests/ref/llama/) on the checkpoints tests/llama_fixture.h writes
 * (byte-identical to the script's, see test_llama.c); the token ids are
 * npm gpt-3-encoder's (tests/ref/gpt2/token_ids.txt) through a GPT-2
 * tokenizer.json (tests/hftok_fixture.h).
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "hftok_fixture.h"
#include "llama_fixture.h"

#include "io/npy.h"
#include "render/pngout.h"

#define SENTENCE "The quick brown fox jumps over the lazy dog."

/* A folder for model (tests/ref/llama/<model>): config.json, the checkpoint, a GPT-2 tokenizer.json. */
static void make_folder(const char *dir, const char *model, av_st_dtype dtype) {
    char rel[256], path[4400];
    snprintf(rel, sizeof rel, "tests/ref/llama/%s/config.json", model);
    char *json = tu_slurp_file(src_path(rel), NULL), *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(json);
    assert_non_null(tok);
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "wb");
    fputs(json, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    f = fopen(path, "wb");
    fputs(tok, f);
    fclose(f);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    if (lf_write_checkpoint(dir, &cfg, dtype, 1, &err)) fail_msg("%s", err.msg);
    free(json);
    free(tok);
}

/* DIR/REL as one shell word, as the tool names a file of a folder (tu_sh_word). */
static const char *sh_in(const char *dir, const char *rel) {
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return tu_sh_word(p);
}

/* "attnviz: error: " and WANT, a message that begins with a file of DIR ("tokenizer.json: ..."), with that file
 * named as the tool names it, one shell word of its whole path: what standard error holds for it. */
static const char *in_folder(const char *dir, const char *want) {
    static char buf[2][9000];
    static int slot;
    char *b = buf[slot++ % 2], file[64];
    size_t n = strcspn(want, ":");
    assert_true(n < sizeof file && want[n] == ':');
    memcpy(file, want, n), file[n] = 0;
    snprintf(b, sizeof buf[0], "attnviz: error: %s%s", sh_in(dir, file), want + n);
    return b;
}

/* f's folder name made and filled with the llama_f32 model (make_folder); its path (tu_in's). */
static const char *new_f32_folder(tu_fixture *f, const char *name) {
    const char *model = tu_in(f, name);
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_f32", AV_ST_F32);
    return model;
}

/* --model model on SENTENCE (--no-plot -q) must exit 2 with standard error want, whole, or only beginning so when
 * prefix; what names the case when it does not. */
static void expect_model_refused(const char *model, const char *want, int prefix, const char *what) {
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 2 || (prefix ? strncmp(r.err, want, strlen(want)) : strcmp(r.err, want)))
        fail_msg("%s: exit %d: %s", what, r.code, r.err);
    tu_free(&r);
}

static double npy_worst(const char *path, const char *ref) {
    av_npy got, want;
    av_err err = {{0}};
    if (av_npy_read(&got, path, &err)) fail_msg("%s", err.msg);
    if (av_npy_read(&want, src_path(ref), &err)) fail_msg("%s", err.msg);
    size_t n = 1, m = 1;
    for (int d = 0; d < want.ndim; d++) n *= want.shape[d];
    for (int d = 0; d < got.ndim; d++) m *= got.shape[d];
    assert_int_equal(n, m);
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)got.data[i] - want.data[i]));
    av_npy_free(&got);
    av_npy_free(&want);
    return worst;
}

/* ------------------------------------------------------------------------- */

static void test_llama_folder_end_to_end(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "m"), *out = tu_in(f, "out"), *dump = tu_in(f, "dump");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_f32", AV_ST_F32);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--dump", dump, "-o", out, "--figures", "model,grid,pe", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    static const char *const must[] = {
        "a Llama forward pass", "[The] [␣quick] [␣brown]", "--rope-style half", "permuted the rows of W_Q and W_K",
        "2 query heads share each of the 2 K/V heads (query 0–1 → K/V 0, query 2–3 → K/V 1)",
        "RoPE evidence on the model's own heads", "worst |ΔS|", "SwiGLU", "lm_head", "the top 5 of 50257"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(r.out, must[i])) fail_msg("the trace lacks \"%s\":\n%s", must[i], r.out);
    double w[3] = {npy_worst(tu_in(f, "dump/attn.npy"), "tests/ref/llama/llama_f32/attn.npy"),
                   npy_worst(tu_in(f, "dump/hidden.npy"), "tests/ref/llama/llama_f32/hidden.npy"), 0};
    if (!strstr(r.out, "ids [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13]")) /* gpt-3-encoder's */
        fail_msg("the token ids differ from the reference encoder's:\n%s", r.out);
    printf("    --model llama_f32: worst |attnviz - numpy| attn %.2g, hidden %.2g\n", w[0], w[1]);
    assert_true(w[0] <= 1e-4 && w[1] <= 1e-4);
    assert_true(file_exists(tu_in(f, "out/model.png")) && file_exists(tu_in(f, "out/layer1.png")));
    assert_true(file_exists(tu_in(f, "out/pe.png")));
    tu_free(&r);
}

/* num_key_value_heads = num_attention_heads (Llama 2 7B's 32 and 32) is plain multi-head attention: the trace
 * said "grouped-query attention: 1 query heads share each of the 4 K/V heads (query 0–0 → K/V 0, ...)", the
 * layer's step "K, V repeated: query head h reads K/V head h/1 (GQA)", and source.txt (the figures' title)
 * "GQA: 1 query heads share each of 4 K/V heads" (a numbers pass). Here 4 query and 4 K/V heads. */
/* tests/ref/llama/llama_f32's config (4 query heads on 2 K/V heads) with num_key_value_heads kv, its weights
 * (lf_write_checkpoint, seeded) and a byte-level tokenizer.json, in the folder f/name; returns its path. */
static const char *llama_with_kv_heads(tu_fixture *f, const char *name, int kv) {
    const char *model = tu_in(f, name);
    assert_int_equal(mkdir(model, 0700), 0);
    char *json = tu_slurp_file(src_path("tests/ref/llama/llama_f32/config.json"), NULL);
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0), path[4400], kv_key[64];
    assert_non_null(json);
    assert_non_null(tok);
    snprintf(path, sizeof path, "%s/config.json", model);
    snprintf(kv_key, sizeof kv_key, "\"num_key_value_heads\": %d", kv);
    assert_int_equal(tu_write_replaced(path, json, "\"num_key_value_heads\": 2", kv_key), 0);
    char *text = tu_slurp_file(path, NULL);
    assert_non_null(text);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, text, strlen(text), "config.json", &err)) fail_msg("%s", err.msg);
    assert_int_equal(cfg.n_kv_head, kv);
    if (lf_write_checkpoint(model, &cfg, AV_ST_F32, 1, &err)) fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(tok, fp);
    fclose(fp);
    free(text);
    free(json);
    free(tok);
    return model;
}

static void test_llama_without_gqa_is_not_called_grouped(void **state) {
    tu_fixture *f = *state;
    const char *model = llama_with_kv_heads(f, "m", 4), *dump = tu_in(f, "dump");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--dump", dump, "--color", "never", "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (strstr(r.out, "GQA") || strstr(r.out, "grouped-query attention:") || strstr(r.out, "share each"))
        fail_msg("multi-head attention called grouped:\n%s", r.out);
    if (!strstr(r.out, "multi-head attention: each of the 4 query heads has its own K/V head"))
        fail_msg("the trace does not say each head has its own K/V head:\n%s", r.out);
    char *src = tu_slurp_file(tu_in(f, "dump/source.txt"), NULL);
    assert_non_null(src);
    if (strstr(src, "GQA") || !strstr(src, "4 heads, each with its own K/V head"))
        fail_msg("source.txt: %s", src);
    free(src);
    tu_free(&r);
}

/* num_key_value_heads = 1 is multi-query attention (Shazeer 2019, "Fast Transformer Decoding"): every query
 * head reads the one K/V head. The trace said "grouped-query attention: 4 query heads share each of the 1 K/V
 * heads (query 0–3 → K/V 0)", its step "reads K/V head h/4 (GQA)", the figures' title "GQA: 4 query heads
 * share each of 1 K/V heads", and --explain "(grouped-query attention: ... shared by query heads 0–3" (a
 * numbers pass). */
static void test_llama_with_one_kv_head_is_multi_query(void **state) {
    tu_fixture *f = *state;
    const char *model = llama_with_kv_heads(f, "m", 1), *dump = tu_in(f, "dump");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--dump", dump, "--color", "never", "--layer", "1",
                "--head", "2", "--explain", "1,0", "a b", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (strstr(r.out, "GQA") || strstr(r.out, "grouped-query attention:") || strstr(r.out, "share each"))
        fail_msg("multi-query attention called grouped:\n%s", r.out);
    static const char *const want[] = {
        "MQA        multi-query attention (Shazeer 2019): all 4 query heads share the one K/V head",
        "reads K/V head 0 (MQA: h/4 = 0), so K, V become (4, 2, 16)",
        "(multi-query attention: k_0 and v_0 are the one K/V head's, shared by all 4 query heads:\n"
        "         K[0…3, 0, :] are the same numbers)"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.out, want[i])) fail_msg("no '%s' in:\n%s", want[i], r.out);
    char *src = tu_slurp_file(tu_in(f, "dump/source.txt"), NULL);
    assert_non_null(src);
    if (strstr(src, "GQA") || !strstr(src, "MQA: 4 query heads share 1 K/V head")) fail_msg("source.txt: %s", src);
    free(src);
    tu_free(&r);
}

/* The figures of a grouped-query model name each head's K/V head: the layer grid said only "head 5" under a
 * title of counts ("GQA: 2 query heads share each of 2 K/V heads"), and layer1_head5 "head 5 of 4", though the
 * README said the titles tell which query heads share each K/V head (a figure-maker's pass). 4 query heads on
 * kv K/V heads; by hand from Hugging Face's repeat_kv (query head h reads K/V head h // (4 / kv)): kv 2 puts
 * heads 0, 1 on K/V 0 and 2, 3 on K/V 1; kv 1 is multi-query; kv 4 is plain multi-head, no sharing to name. */
static void test_figures_name_each_heads_kv_head(void **state) {
    tu_fixture *f = *state;
    static const struct {
        int kv;
        const char *panel[4], *title[4]; /* the grid's panel texts; the head figures' words after "head h of 4" */
    } cases[] = {
        {2, {"head 0 (K/V 0)", "head 1 (K/V 0)", "head 2 (K/V 1)", "head 3 (K/V 1)"},
         {" (K/V head 0, shared by query heads 0–1): ", " (K/V head 0, shared by query heads 0–1): ",
          " (K/V head 1, shared by query heads 2–3): ", " (K/V head 1, shared by query heads 2–3): "}},
        {1, {"head 0", "head 1", "head 2", "head 3"},
         {" (the one K/V head, shared by all 4 query heads): ", " (the one K/V head, shared by all 4 query heads): ",
          " (the one K/V head, shared by all 4 query heads): ", " (the one K/V head, shared by all 4 query heads): "}},
        {4, {"head 0", "head 1", "head 2", "head 3"}, {": ", ": ", ": ", ": "}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char name[32], out[32], path[4400], want[160];
        snprintf(name, sizeof name, "m%d", cases[c].kv);
        snprintf(out, sizeof out, "out%d", cases[c].kv);
        const char *model = llama_with_kv_heads(f, name, cases[c].kv), *dir = tu_in(f, out);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "-q", "-o", dir, "--figures", "grid,heads", "--format", "svg", "a b c",
                    NULL);
        if (r.code != 0) fail_msg("kv %d: exit %d: %s", cases[c].kv, r.code, r.err);
        snprintf(path, sizeof path, "%s/layer1.svg", dir);
        char *grid = tu_slurp_file(path, NULL);
        assert_non_null(grid);
        for (int h = 0; h < 4; h++) {
            snprintf(want, sizeof want, ">%s</text>", cases[c].panel[h]);
            if (!strstr(grid, want)) fail_msg("kv %d: layer1.svg has no panel \"%s\"", cases[c].kv, cases[c].panel[h]);
            snprintf(path, sizeof path, "%s/layer1_head%d.svg", dir, h);
            char *svg = tu_slurp_file(path, NULL);
            assert_non_null(svg);
            snprintf(want, sizeof want, "· layer 1 · head %d of 4%sattention weights · mask: causal</title>", h,
                     cases[c].title[h]);
            if (!strstr(svg, want)) fail_msg("kv %d: layer1_head%d.svg's title lacks \"%s\":\n%.600s", cases[c].kv, h, want, svg);
            free(svg);
        }
        if (cases[c].kv != 2 && strstr(grid, "(K/V ")) fail_msg("kv %d: a panel names a K/V head", cases[c].kv);
        free(grid);
        tu_free(&r);
    }
}

static void test_qwen2_bf16_trace_and_generate(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "q");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "qwen2_bf16", AV_ST_BF16);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", "--generate", "3", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    static const char *const must[] = {"a Qwen2 forward pass", "BF16", "q, k, v have biases (Qwen2)",
                                       "θ = rope_theta = 1000000", "tied to embed_tokens", "layer 0 of 2, step by step",
                                       "generate    greedy, 3 tokens"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(r.out, must[i])) fail_msg("the trace lacks \"%s\":\n%s", must[i], r.out);
    /* each step's shapes end in its result, residual and RMSNorm too (a new user's report: they gave only the input) */
    static const char *const stages[] = {"output", "residual", "RMSNorm"};
    for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++) {
        int lines;
        const char *bad;
        if (tu_stage_lines_lacking(r.out, stages[k], "→ (", &lines, &bad) || lines < 1)
            fail_msg("%d \"%s\" lines; this one lacks its result \"→ (T, C)\": %.120s", lines, stages[k], bad ? bad : "");
    }
    tu_free(&r);
}

/* transformers 5 writes RoPE's settings as "rope_parameters": {"rope_theta": θ, "rope_type": ...} and no
 * top-level rope_theta (LlamaConfig and Qwen2Config have only that field): such a config.json ran at θ 10000,
 * and a llama3-scaled one without its scaling, with no word (a user's report). rope_parameters' rope_theta is
 * the one transformers 5 reads, so the run equals the top-level rope_theta one (the trace names the key); another
 * rope_type is refused. */
static void test_rope_parameters_of_transformers_5(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "p");
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    tu_result r;
    assert_int_equal(tu_write_replaced(path, json, "\"rope_theta\": 10000.0,", "\"rope_theta\": 1000000.0,"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "θ = rope_theta = 1000000"));
    char *top = strdup(r.out);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rope_theta\": 10000.0,",
                                       "\"rope_parameters\": {\"rope_theta\": 1000000.0, \"rope_type\": \"default\"},"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", SENTENCE, NULL);
    if (r.code != 0) fail_msg("rope_parameters: exit %d: %s", r.code, r.err);
    /* the same run, and the trace names the key θ came from: it said "θ = rope_theta = 1000000", a key this
     * config.json does not have (a reader's pass) */
    static const char from[] = "θ = rope_parameters.rope_theta = 1000000", top_from[] = "θ = rope_theta = 1000000";
    char *at = strstr(r.out, from);
    if (!at) fail_msg("the trace lacks \"%s\":\n%s", from, r.out);
    char *same = malloc(strlen(r.out) + 1);
    assert_non_null(same);
    snprintf(same, strlen(r.out) + 1, "%.*s%s%s", (int)(at - r.out), r.out, top_from, at + strlen(from));
    assert_string_equal(same, top);
    free(same);
    free(top);
    tu_free(&r);
    /* neither key: transformers' default θ 10000, and the trace says it is the default */
    assert_int_equal(tu_write_replaced(path, json, "\"rope_theta\": 10000.0,", ""), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    if (r.code != 0) fail_msg("no rope_theta: exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "θ = 10000 (config.json has no rope_theta: transformers' default): attnviz's"));
    assert_null(strstr(r.out, "θ = rope_theta"));
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rope_theta\": 10000.0,",
                                       "\"rope_parameters\": {\"rope_theta\": 500000.0, \"rope_type\": \"llama3\", "
                                       "\"factor\": 32.0, \"original_max_position_embeddings\": 8192},"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    char want[4800];
    snprintf(want, sizeof want, "attnviz: error: %s: rope_parameters \"llama3\" is not supported (allowed: null, or "
             "rope_type \"default\"; attnviz runs plain RoPE with rope_theta)\n", tu_sh_word(path));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("rope_parameters llama3: exit %d: %s", r.code, r.err);
    tu_free(&r);
    free(json);
}

/* "rope_theta": null and "rms_norm_eps": null: transformers' LlamaConfig defaults a missing key only (its
 * __init__ signature: rms_norm_eps=1e-6, rope_theta=10000.0) and keeps a null, on which LlamaRMSNorm's
 * `variance + self.variance_epsilon` and the default RoPE's `base ** (torch.arange(...) / dim)` raise a TypeError.
 * attnviz ran them at θ 10000 (the trace saying "config.json has no rope_theta") and ε 1e-6 with exit 0 (a Llama
 * user's pass); now each is refused naming the key, as GPT-2's layer_norm_epsilon null is. */
static void test_null_settings_are_refused(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "n");
    char path[4400], want[5000];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    static const char *const cases[][3] = { /* from, to, key and default */
        {"\"rope_theta\": 10000.0,", "\"rope_theta\": null,", "\"rope_theta\" is null; it must be a number, or the key "
         "left out for transformers' default 10000"},
        {"\"rms_norm_eps\": 1e-05,", "\"rms_norm_eps\": null,", "\"rms_norm_eps\" is null; it must be a number, or the "
         "key left out for transformers' default 1e-06"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(tu_write_replaced(path, json, cases[i][0], cases[i][1]), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: %s (transformers keeps a null and fails on it with a "
                 "TypeError)\n", tu_sh_word(path), cases[i][2]);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d: %s", cases[i][1], r.code, r.err);
        tu_free(&r);
    }
    free(json);
}

/* A config.json without rms_norm_eps runs at LlamaConfig's default ε 1e-6 (its __init__ signature), and the trace
 * says so, as it says of a default θ: it printed "RMSNorm ε = 1e-06" alone, as if config.json gave it (a Llama
 * user's pass). With the key (llama_f32's 1e-05) the line is unmarked. */
static void test_default_eps_is_marked(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "e");
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "; RMSNorm ε = 1e-05\n")) fail_msg("with rms_norm_eps 1e-05:\n%s", r.out);
    assert_null(strstr(r.out, "transformers' default)\n"));
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rms_norm_eps\": 1e-05,", ""), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    static const char want[] = "; RMSNorm ε = 1e-06 (config.json has no rms_norm_eps: transformers' default)\n";
    if (!strstr(r.out, want)) fail_msg("without rms_norm_eps, the trace lacks \"%s\":\n%s", want, r.out);
    tu_free(&r);
    free(json);
}

/* file (a safetensors file) rewritten with every tensor name's "model." prefix taken off, as a LlamaModel or
 * Qwen2Model (AutoModel's save_pretrained) names them; the header stays a multiple of 8 bytes. */
static void strip_model_prefix(const char *file) {
    size_t len = 0;
    char *data = tu_slurp_file(file, &len);
    assert_non_null(data);
    uint64_t n = 0;
    memcpy(&n, data, 8);
    char *text = strndup(data + 8, (size_t)n);
    cJSON *head = cJSON_Parse(text), *e;
    assert_non_null(head);
    cJSON_ArrayForEach(e, head)
        if (strncmp(e->string, "model.", 6) == 0) memmove(e->string, e->string + 6, strlen(e->string + 6) + 1);
    char *out = cJSON_PrintUnformatted(head);
    uint64_t m = (strlen(out) + 7) / 8 * 8;
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    fwrite(&m, 8, 1, f);
    fputs(out, f);
    for (size_t i = strlen(out); i < m; i++) fputc(' ', f);
    fwrite(data + 8 + n, 1, len - 8 - (size_t)n, f);
    fclose(f);
    free(out);
    cJSON_Delete(head);
    free(text);
    free(data);
}

/* A LlamaModel / Qwen2Model save (AutoModel) names its tensors "embed_tokens.weight", "layers.0...", "norm.weight":
 * no "model." prefix, no lm_head. transformers loads it into the ForCausalLM by adding the prefix, and a tied one
 * (Qwen2.5-0.5B's, Llama 3.2 1B's) is the same model; it was refused as 'unexpected tensor "embed_tokens.weight"'
 * (a user's report). An untied one has no output layer: refused by name. */
static void test_base_model_save_without_prefix(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "base");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "qwen2_f32", AV_ST_F32);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", "--generate", "3", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    char *whole = strdup(r.out), path[4400];
    tu_free(&r);
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    strip_model_prefix(path);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "--layer", "0", "--generate", "3", SENTENCE, NULL);
    if (r.code != 0) fail_msg("no \"model.\" prefix: exit %d: %s", r.code, r.err);
    assert_string_equal(r.out, whole);
    free(whole);
    tu_free(&r);
    char cfg[4400];
    snprintf(cfg, sizeof cfg, "%s/config.json", model);
    char *json = tu_slurp_file(cfg, NULL);
    assert_int_equal(tu_write_replaced(cfg, json, "\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    char want[4800];
    snprintf(want, sizeof want, "attnviz: error: %s: the tensors have no \"model.\" prefix and there is no "
             "\"lm_head.weight\": a base model without its output layer (LlamaModel, Qwen2Model), and config.json's "
             "tie_word_embeddings is false, so no logits can be computed (transformers would draw a random lm_head); "
             "allowed: a tied one (tie_word_embeddings true), or a LlamaForCausalLM/Qwen2ForCausalLM save\n", tu_sh_word(path));
    if (r.code != 2 || strcmp(r.err, want)) fail_msg("untied: exit %d: %s", r.code, r.err);
    tu_free(&r);
    free(json);
}

static void test_bad_llama_folders(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "b");
    tu_result r;
    char text[300] = "a"; /* 130 tokens, past max_position_embeddings 128 */
    for (int i = 1; i < 130; i++) strcat(text, " a");
    run_attnviz(&r, NULL, "--model", model, "--no-plot", text, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: 130 tokens is more than the model's 128 positions "
                               "(max_position_embeddings in config.json); allowed: 1..128 tokens\n");
    tu_free(&r);
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    /* without max_position_embeddings, transformers' defaults: LlamaConfig 2048, Qwen2Config 32768
     * (configuration_llama.py, configuration_qwen2.py). A Qwen2 folder was held to 2048, and the message
     * named a key config.json does not have. 2049 tokens: " a" is one token of the tokenizer. */
    char *long_text = malloc(2 * 2049);
    assert_non_null(long_text);
    strcpy(long_text, "a");
    for (int i = 1; i < 2049; i++) strcat(long_text + 2 * i - 1, " a");
    assert_int_equal(tu_write_replaced(path, json, "\"max_position_embeddings\": 128,", ""), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", long_text, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: 2049 tokens is more than the model's 2048 positions (config.json has "
                               "no max_position_embeddings; LlamaConfig's default); allowed: 1..2048 tokens\n");
    tu_free(&r);
    /* null: LlamaConfig keeps None (it defaults a missing key only), so "config.json has no
     * max_position_embeddings" was untrue; attnviz still takes the default, and says it of the null */
    assert_int_equal(tu_write_replaced(path, json, "\"max_position_embeddings\": 128,",
                                       "\"max_position_embeddings\": null,"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", long_text, NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: 2049 tokens is more than the model's 2048 positions (config.json's "
                               "max_position_embeddings is null; attnviz takes LlamaConfig's default); allowed: "
                               "1..2048 tokens\n");
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"max_position_embeddings\": 128,", ""), 0);
    const char *qwen = tu_in(f, "bq");
    assert_int_equal(mkdir(qwen, 0700), 0);
    make_folder(qwen, "qwen2_f32", AV_ST_F32);
    char qpath[4400];
    snprintf(qpath, sizeof qpath, "%s/config.json", qwen);
    char *qjson = tu_slurp_file(qpath, NULL);
    assert_int_equal(tu_write_replaced(qpath, qjson, "\"max_position_embeddings\": 128,", ""), 0);
    run_attnviz(&r, NULL, "--model", qwen, "--no-plot", "-q", long_text, NULL);
    if (r.code != 0) fail_msg("Qwen2 without max_position_embeddings, 2049 tokens: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* --generate's stop names the default's source too (it said "the model's max_position_embeddings"):
     * 2040 tokens of the 2048 leave room for 8 of 20 */
    long_text[2 * 2040 - 1] = 0;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "20", long_text, NULL);
    if (r.code != 0 || !strstr(r.out, "stopped after 8 of 20: at most 2048 tokens (config.json has no "
                                      "max_position_embeddings; LlamaConfig's default)"))
        fail_msg("Llama without max_position_embeddings, --generate 20 on 2040 tokens: exit %d: %s%s", r.code, r.out,
                 r.err);
    tu_free(&r);
    /* with the key (128), the stop names it */
    assert_int_equal(tu_write_replaced(path, json, "\"vocab_size\": 50257", "\"vocab_size\": 50257"), 0);
    long_text[2 * 124 - 1] = 0;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "20", long_text, NULL);
    if (r.code != 0 || !strstr(r.out, "stopped after 4 of 20: at most 128 tokens (the model's "
                                      "max_position_embeddings)"))
        fail_msg("Llama with max_position_embeddings 128, --generate 20 on 124 tokens: exit %d: %s%s", r.code, r.out,
                 r.err);
    tu_free(&r);
    /* max_position_embeddings 1 and the one token "a": no room, said in the singular (it said "the input is 1
     * tokens, already the maximum length of 1 positions"), as the stop after one token says "1 token" */
    assert_int_equal(tu_write_replaced(path, json, "\"max_position_embeddings\": 128,", "\"max_position_embeddings\": 1,"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "2", "a", NULL);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attnviz: warning: the input is 1 token, already the maximum length of 1 position (the "
                               "model's max_position_embeddings), so --generate 2 can generate no tokens\n");
    assert_string_equal(r.out, "  generate    no tokens: the input is already at the maximum length of 1 position (the "
                               "model's max_position_embeddings)\n              text: \"a\" (the input, nothing added)\n");
    tu_free(&r);
    free(qjson);
    free(long_text);
    assert_int_equal(tu_write_replaced(path, json, "\"vocab_size\": 50257", "\"vocab_size\": 50257"), 0);
    /* vocab_size 50258 against the checkpoint's (50257, 64) embedding: an nn.Embedding, not an nn.Linear */
    assert_int_equal(tu_write_replaced(path, json, "\"vocab_size\": 50257", "\"vocab_size\": 50258"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "tensor \"model.embed_tokens.weight\" has shape (50257, 64); config.json implies "
                                  "nn.Embedding (vocab_size, hidden_size) = (50258, 64)\n"));
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null",
                                       "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4}"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "rope_scaling \"yarn\" is not supported (allowed: null"));
    tu_free(&r);
    /* no rope_type to name: the value and what kind it is (a string was called "rope_scaling (object)") */
    static const char *const odd[][2] = {{"\"x\"", "\"x\" (a string)"}, {"2", "2 (a number)"},
                                         {"{\"factor\": 4}", "{\"factor\":4} (an object with no rope_type)"}};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        char to[64], want[4800];
        snprintf(to, sizeof to, "\"rope_scaling\": %s", odd[i][0]);
        assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null", to), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: rope_scaling %s is not supported (allowed: null, or rope_type "
                 "\"default\"; attnviz runs plain RoPE with rope_theta)\n", tu_sh_word(path), odd[i][1]);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("rope_scaling %s: exit %d: %s", odd[i][0], r.code, r.err);
        tu_free(&r);
    }
    /* Both keys, saying different things: transformers 4's LlamaConfig.__init__ (and Qwen2Config's) copies "type"
     * over "rope_type" (`if self.rope_scaling is not None and "type" in self.rope_scaling:
     * self.rope_scaling["rope_type"] = self.rope_scaling["type"]`), transformers 5 keeps "rope_type"
     * (standardize_rope_params: setdefault("rope_type", get("type", "default"))), so {"rope_type": "default", "type":
     * "linear", "factor": 2} is linear scaling (positions / 2) in one and plain RoPE in the other, in either key
     * order. attnviz read rope_type, ran plain RoPE and exit 0; then it let "type" decide, and ran {"type":
     * "default", "rope_type": "yarn"} as plain RoPE. Both are refused, naming both keys; both "default" is plain
     * RoPE, and so is rope_parameters' (transformers 5's) pair. */
    static const char *const both[][3] = {
        {"rope_scaling", "{\"rope_type\": \"default\", \"type\": \"linear\", \"factor\": 2.0}", "\"linear\" and \"rope_type\" \"default\""},
        {"rope_scaling", "{\"type\": \"dynamic\", \"rope_type\": \"default\", \"factor\": 2.0}", "\"dynamic\" and \"rope_type\" \"default\""},
        {"rope_scaling", "{\"rope_type\": \"default\", \"type\": null}", "null and \"rope_type\" \"default\""},
        {"rope_scaling", "{\"type\": \"default\", \"rope_type\": \"yarn\"}", "\"default\" and \"rope_type\" \"yarn\""},
        {"rope_parameters", "{\"type\": \"default\", \"rope_type\": \"yarn\", \"factor\": 4.0, \"rope_theta\": 10000.0}",
         "\"default\" and \"rope_type\" \"yarn\""},
        {"rope_scaling", "{\"type\": \"default\", \"rope_type\": \"default\"}", NULL},
        {"rope_parameters", "{\"type\": \"default\", \"rope_type\": \"default\", \"rope_theta\": 10000.0}", NULL}};
    for (size_t i = 0; i < sizeof both / sizeof *both; i++) {
        char to[200], want[4800];
        snprintf(to, sizeof to, "\"%s\": %s", both[i][0], both[i][1]);
        assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null", to), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        if (!both[i][2]) {
            if (r.code != 0) fail_msg("%s %s: exit %d: %s", both[i][0], both[i][1], r.code, r.err);
        } else {
            snprintf(want, sizeof want, "attnviz: error: %s: %s has \"type\" %s, which transformers reads differently "
                     "by version (4 takes \"type\", 5 \"rope_type\") (allowed: null, or rope_type \"default\" with no "
                     "other \"type\"; attnviz runs plain RoPE with rope_theta)\n", tu_sh_word(path), both[i][0],
                     both[i][2]);
            if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s %s: exit %d: %s", both[i][0], both[i][1], r.code, r.err);
        }
        tu_free(&r);
    }
    /* {"rope_type": "default"} is plain RoPE in transformers: the same run, the same trace, as null */
    assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null", "\"rope_scaling\": null"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    char *plain = strdup(r.out);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null",
                                       "\"rope_scaling\": {\"rope_type\": \"default\"}"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    if (r.code != 0) fail_msg("rope_type default: exit %d: %s", r.code, r.err);
    assert_string_equal(r.out, plain);
    free(plain);
    tu_free(&r);
    FILE *fp = fopen(path, "wb");
    fputs(json, fp);
    fclose(fp);
    free(json);
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    fp = fopen(path, "wb");
    fputs("{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}", fp);
    fclose(fp);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "model type WordPiece is not supported (allowed: BPE)"));
    tu_free(&r);
}

/* GPT-2's tokenizer.json (hf_gpt2_tokenizer_json, byte-level) into path, with extra (one added_tokens entry, JSON)
 * after its "<|endoftext|>" (50256). */
static void write_gpt2_tokenizer_adding(const char *path, const char *extra) {
    static const char eot[] = "{\"id\":50256,\"content\":\"<|endoftext|>\",\"special\":true}";
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0), with[512];
    assert_non_null(tok);
    snprintf(with, sizeof with, "%s,%s", eot, extra);
    assert_int_equal(tu_write_replaced(path, tok, eot, with), 0);
    free(tok);
}

/* tokenizer.json against config.json's vocab_size (50257 here): a tokenizer
 * with fewer ids is fine (checkpoints pad vocab_size: here ids 0..49999
 * only), one with an id at or past vocab_size (an added token 50257) is
 * refused, naming that id and the allowed 0..50256, not "they must match". */
static void test_tokenizer_ids_must_fit_vocab_size(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    char *small = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 50000);
    assert_non_null(small);
    FILE *fp = fopen(path, "wb");
    fputs(small, fp);
    fclose(fp);
    free(small);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("a tokenizer smaller than vocab_size: exit %d: %s", r.code, r.err);
    tu_free(&r);
    write_gpt2_tokenizer_adding(path, "{\"id\":50257,\"content\":\"<extra>\",\"special\":true}");
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: %s has token ids up to 50257 (its vocabulary and added tokens), but "
             "config.json's vocab_size is 50257: token id 50257 must fit within vocab_size 50257 (ids 0..50256); a "
             "tokenizer may have fewer tokens than vocab_size, not more\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    tu_free(&r);
    /* an added token far past them (id 100000): named, with its id and the ids the file's 50258 tokens allow
     * (it said "no token has id 50257 (ids must be 0..100000)") */
    write_gpt2_tokenizer_adding(path, "{\"id\":100000,\"content\":\"<extra>\",\"special\":true}");
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: %s: added token \"<extra>\" has id 100000, outside 0..50257: the file "
             "has 50258 tokens (model.vocab and added_tokens), so the ids must be 0..50257, each once (no token has "
             "id 50257)\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    tu_free(&r);
}

/* Added tokens are text, not byte-level spellings (tokenizers' AddedToken): DeepSeek-R1-Distill-Qwen's
 * "<｜begin▁of▁sentence｜>" (U+FF5C, U+2581) was refused, "added_tokens[0]: token ... character U+FF5C is not in
 * the byte-level alphabet", as was one with a space; "<é>" loaded as the bytes '<', 0xE9, '>' (é's byte-level
 * spelling read back). Each is now its UTF-8 bytes: found in the text, labelled and decoded as itself. */
static void test_added_tokens_are_text(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 50000); /* ids 0..49999: the added ones follow */
    assert_non_null(tok);
    assert_int_equal(tu_write_replaced(path, tok, "\"normalizer\":null",
                                       "\"added_tokens\":[{\"id\":50000,\"content\":\"<｜begin▁of▁sentence｜>\","
                                       "\"special\":true},{\"id\":50001,\"content\":\"<x y>\",\"special\":true},"
                                       "{\"id\":50002,\"content\":\"<é>\",\"special\":true}],\"normalizer\":null"), 0);
    free(tok);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "<｜begin▁of▁sentence｜>Hi<x y><é>", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "tokens     [<｜begin▁of▁sentence｜>] [Hi] [<x␣y>] [<é>]\n") ||
        !strstr(r.out, "ids [50000, 17250, 50001, 50002]"))
        fail_msg("%s", r.out);
    tu_free(&r);
}

/* An added token at an id the file already gives another token (a damaged or hand-edited tokenizer.json):
 * "Hi<|im_end|>" ran with exit 0 as "tokens [Hi] [<|endoftext|>]", the token typed shown and run as another.
 * Refused, naming both; GPT-2's "<|endoftext|>", in model.vocab and added_tokens with one id, still loads
 * (test_tokenizer_ids_must_fit_vocab_size). */
static void test_added_token_at_another_tokens_id(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    write_gpt2_tokenizer_adding(path, "{\"id\":50256,\"content\":\"<|im_end|>\",\"special\":true}");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "Hi<|im_end|>", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: %s: added token \"<|im_end|>\" has id 50256, already the id of the "
             "token \"<|endoftext|>\"; each id is one token's (read on, \"<|im_end|>\" would be taken as "
             "\"<|endoftext|>\"): is the file damaged?\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    tu_free(&r);
    /* the same token, as its text where model.vocab has it in the byte-level alphabet: " " is GPT-2's "Ġ" (220),
     * as GPT-NeoX's added "  " is its "ĠĠ"; it loads */
    write_gpt2_tokenizer_adding(path, "{\"id\":220,\"content\":\" \",\"special\":false}");
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "1", "Hi there", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);    /* an added token whose text model.vocab has under another id ("cat", GPT-2's 9246, added at 50000): refused,
     * "token \"cat\" appears twice (ids 9246 and 50000)", where Hugging Face's tokenizers loads it and gives "cat"
     * the vocabulary's id (added_vocabulary.rs add_tokens: token_to_id(content) before a new id; serialization.rs
     * warns "Token 'cat' was expected to have ID '50000' but was given ID '9246'"); 50000 is then no text's */
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 50000);
    assert_non_null(tok);
    assert_int_equal(tu_write_replaced(path, tok, "\"normalizer\":null",
                                       "\"added_tokens\":[{\"id\":50000,\"content\":\"cat\"},{\"id\":50001,"
                                       "\"content\":\"<x>\",\"special\":true}],\"normalizer\":null"), 0);
    free(tok);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "cat<x>cat", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    snprintf(want, sizeof want, "attnviz: note: %s: added token \"cat\" has id 50000, but \"cat\" is already token "
             "9246, so \"cat\" in the text is 9246 and no text is 50000, as Hugging Face's tokenizers read it\n", tu_sh_word(path));
    if (!strstr(r.err, want) || !strstr(r.out, "ids [9246, 50001, 9246]")) fail_msg("%s\n%s", r.err, r.out);
    tu_free(&r);
}

/* path's whole content = text. */
static void put_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* GPT-2's tokenizer.json with WHERE.KEY ("model" or "pre_tokenizer", its ByteLevel) set to value (JSON) into path. */
static void write_gpt2_tokenizer_key(const char *path, const char *where, const char *key, const char *value) {
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    cJSON *root = cJSON_Parse(tok), *obj = cJSON_GetObjectItemCaseSensitive(root, where);
    assert_non_null(obj);
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddItemToObject(obj, key, cJSON_Parse(value));
    char *out = cJSON_PrintUnformatted(root);
    put_file(path, out);
    free(out);
    cJSON_Delete(root);
    free(tok);
}

/* A boolean of tokenizer.json written as a string (a hand-edited file): model.byte_fallback "true" ran with exit 0
 * with no byte fallback (an unknown character unk_token, or refused), and ByteLevel use_regex "false" ran "Hi
 * there" as [17250, 612], GPT-2's pattern applied, where tokenizers refuses the file (serde wants a bool) and
 * use_regex false encodes the whole text as one piece. Refused, naming the key and the value; true/false run. */
static void test_tokenizer_flags_must_be_booleans(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const struct {
        const char *where, *key, *value, *msg;
    } bad[] = {
        {"model", "byte_fallback", "\"true\"", "model.byte_fallback is \"true\"; it must be true or false"},
        {"model", "fuse_unk", "1", "model.fuse_unk is 1; it must be true or false"},
        {"pre_tokenizer", "use_regex", "\"false\"", "ByteLevel use_regex is \"false\"; it must be true or false"},
        {"pre_tokenizer", "add_prefix_space", "0", "ByteLevel add_prefix_space is 0; it must be true or false"},
    };
    tu_result r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_gpt2_tokenizer_key(path, bad[i].where, bad[i].key, bad[i].value);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "Hi there", NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: %s", tu_sh_word(path), bad[i].msg);
        if (r.code != 2 || strncmp(r.err, want, strlen(want))) fail_msg("%s: exit %d: %s", bad[i].key, r.code, r.err);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    /* booleans run: byte_fallback false and use_regex true are the fixture's GPT-2, ids of gpt-3-encoder (npm) */
    static const char *const ok[][3] = {{"model", "byte_fallback", "false"}, {"model", "fuse_unk", "null"},
                                        {"pre_tokenizer", "use_regex", "true"}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        write_gpt2_tokenizer_key(path, ok[i][0], ok[i][1], ok[i][2]);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "Hi there", NULL);
        if (r.code != 0 || !strstr(r.out, "ids [17250, 612]")) fail_msg("%s: exit %d: %s%s", ok[i][1], r.code, r.err,
                                                                       r.out);
        tu_free(&r);
    }
}

/* BPE settings that change the ids: model.end_of_word_suffix "</w>" (CLIP's), continuing_subword_prefix "##"
 * and dropout 0.1 were read past, so "Hi there" ran with exit 0 as ids [17250, 612] where Hugging Face's
 * tokenizers looks the symbols up as "Hi</w>"/"##i" or skips merges at random. Refused, naming the setting; ""
 * and null (GPT-2's and Qwen2's files write "" for both, null for dropout) and dropout 0 still run with the ids
 * of gpt-3-encoder (npm) for "Hi there": [17250, 612]. */
static void test_tokenizer_bpe_options_that_change_ids(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const struct {
        const char *key, *value, *msg;
    } bad[] = {
        {"end_of_word_suffix", "\"</w>\"", "model.end_of_word_suffix is \"</w>\": Hugging Face's tokenizers then puts "
         "it behind the last symbol of every word before looking it up"},
        {"continuing_subword_prefix", "\"##\"", "model.continuing_subword_prefix is \"##\": Hugging Face's tokenizers "
         "then puts it in front of every symbol of a word but the first before looking it up"},
        {"dropout", "0.1", "model.dropout is 0.1: Hugging Face's tokenizers then skips merges at random"},
        {"end_of_word_suffix", "7", "model.end_of_word_suffix is 7; it must be a string or null"},
    };
    tu_result r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_gpt2_tokenizer_key(path, "model", bad[i].key, bad[i].value);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "Hi there", NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: %s", tu_sh_word(path), bad[i].msg);
        if (r.code != 2 || strncmp(r.err, want, strlen(want))) fail_msg("%s: exit %d: %s", bad[i].key, r.code, r.err);
        assert_string_equal(r.out, "");
        tu_free(&r);
    }
    static const char *const ok[][2] = {
        {"end_of_word_suffix", "\"\""}, {"continuing_subword_prefix", "null"}, {"dropout", "0"}, {"dropout", "null"}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        write_gpt2_tokenizer_key(path, "model", ok[i][0], ok[i][1]);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "Hi there", NULL);
        if (r.code != 0 || !strstr(r.out, "ids [17250, 612]")) fail_msg("%s %s: exit %d: %s%s", ok[i][0], ok[i][1],
                                                                       r.code, r.err, r.out);
        tu_free(&r);
    }
}


/* tokenizer_config.json gets config.json's JSON checks (jsonval.h
 * av_json_parse_object; the messages are its documented ones) and
 * add_bos_token must be true, false or null: it decides whether a token is
 * put first, so a file that is not read would change the run without a word.
 * add_eos_token true (a token after the text, which attnviz never adds) is
 * refused. Each of these gave exit 0, the file skipped or partly read. */
static void test_tokenizer_config_is_checked(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer_config.json", model);
    static const char *const cases[][2] = {
        {"", "empty file; expected a JSON object"},
        {"[]", "not a JSON object (it is an array)"},
        /* byte 2: where cJSON stopped, a byte past Python's json ("char 1"), as jsonval.h says */
        {"{bad", "not valid JSON near byte 2 of 4; it ends before its closing '}' (truncated?)"},
        {"{\"add_bos_token\": \"yes\"}", "\"add_bos_token\" is \"yes\"; it must be true or false (null or absent: "
                                      "tokenizer.json decides)"},
        {"{\"add_bos_token\": 1}", "\"add_bos_token\" is 1; it must be true or false (null or absent: tokenizer.json "
                                   "decides)"},
        {"{\"add_bos_token\": false, \"add_bos_token\": true}",
         "key \"add_bos_token\" appears twice in one object (Python's json keeps the last, cJSON the first; is the "
         "file damaged?)"},
        /* transformers' LlamaTokenizerFast.update_post_processor makes the template "<s> $A </s>": Hugging Face's
         * ids end with </s>; they were attnviz's without it, exit 0 */
        {"{\"add_bos_token\": true, \"add_eos_token\": true}",
         "\"add_eos_token\" is true: Hugging Face's Llama tokenizer then ends every text with eos_token, and attnviz "
         "puts no token after the text; allowed: false, null or absent (false runs the text as typed)"},
        {"{\"add_eos_token\": \"no\"}", "\"add_eos_token\" is \"no\"; it must be true or false (null or absent: no "
                                      "token after the text)"},
    };
    tu_result r;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        put_file(path, cases[i][0]);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: %s\n", tu_sh_word(path), cases[i][1]);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d: %s", cases[i][0], r.code, r.err);
        tu_free(&r);
    }
    /* add_bos_token null: tokenizer.json decides; add_eos_token false: nothing after the text */
    put_file(path, "{\"add_bos_token\": null, \"add_eos_token\": false, \"model_max_length\": 128}");
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("add_bos_token null: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* add_bos_token true puts config.json's bos_token_id first, so that id must
 * be one of the model's, 0..vocab_size-1 = 0..50256 here (vocab_size 50257),
 * and must be given (Hugging Face's tokenizers refuse add_bos_token without a
 * bos_token). 100000 said "token id 100000 at position 0 is outside the
 * vocabulary 0..50256", naming neither file nor key; -1 and an absent
 * bos_token_id gave exit 0 with no BOS and no word. */
static void test_add_bos_token_needs_a_bos_token_id(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char cfg[4400], tc[4400], want[9000];
    snprintf(cfg, sizeof cfg, "%s/config.json", model);
    snprintf(tc, sizeof tc, "%s/tokenizer_config.json", model);
    put_file(tc, "{\"add_bos_token\": true}");
    char *json = tu_slurp_file(cfg, NULL);
    assert_non_null(json);
    tu_result r;
    static const char *const bad[] = {"100000", "-1", "50257"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char to[64];
        snprintf(to, sizeof to, "\"bos_token_id\": %s", bad[i]);
        assert_int_equal(tu_write_replaced(cfg, json, "\"bos_token_id\": 1", to), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: bos_token_id %s is outside the vocabulary 0..50256 (add_bos_token "
                 "true in %s puts it first)\n", tu_sh_word(cfg), bad[i], tu_sh_word(tc));
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("bos_token_id %s: exit %d: %s", bad[i], r.code, r.err);
        tu_free(&r);
    }
    assert_int_equal(tu_write_replaced(cfg, json, "\"bos_token_id\": 1,", ""), 0);
    snprintf(want, sizeof want, "attnviz: error: %s: add_bos_token is true, but %s has no bos_token_id (the id to put "
             "first) and this file no bos_token; give one, or make add_bos_token false\n", tu_sh_word(tc), tu_sh_word(cfg));
    expect_model_refused(model, want, 0, "no bos_token_id");
    /* "bos_token_id": null is no id either, but the file has the key: it was called missing ("has no
     * bos_token_id"), as was the null beside a bos_token that is no token (a Llama user's pass) */
    assert_int_equal(tu_write_replaced(cfg, json, "\"bos_token_id\": 1,", "\"bos_token_id\": null,"), 0);
    snprintf(want, sizeof want, "attnviz: error: %s: add_bos_token is true, but %s has bos_token_id null (no id to put "
             "first) and this file no bos_token; give one, or make add_bos_token false\n", tu_sh_word(tc), tu_sh_word(cfg));
    expect_model_refused(model, want, 0, "bos_token_id null");
    put_file(tc, "{\"add_bos_token\": true, \"bos_token\": \"<bos>\"}");
    snprintf(want, sizeof want, "attnviz: error: %s: bos_token \"<bos>\" is not a token of tokenizer.json's vocabulary "
             "(add_bos_token true puts it first, and %s has bos_token_id null)\n", tu_sh_word(tc), tu_sh_word(cfg));
    expect_model_refused(model, want, 0, "bos_token_id null, bos_token <bos>");
    put_file(tc, "{\"add_bos_token\": true}");
    assert_int_equal(tu_write_replaced(cfg, json, "\"bos_token_id\": 1,", ""), 0);
    /* no bos_token_id, but the tokenizer's own bos_token, as Hugging Face takes it: GPT-2's vocabulary (the
     * fixture's) has "<|endoftext|>" at id 50256, put first; as a string and as an AddedToken object */
    static const char *const named[] = {"{\"add_bos_token\": true, \"bos_token\": \"<|endoftext|>\"}",
                                        "{\"add_bos_token\": true, \"bos_token\": {\"content\": \"<|endoftext|>\", "
                                        "\"lstrip\": false}}"};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        put_file(tc, named[i]);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
        if (r.code != 0) fail_msg("bos_token %zu: exit %d: %s", i, r.code, r.err);
        if (!strstr(r.out, "ids [50256, ")) fail_msg("bos_token %zu: 50256 not first:\n%.2000s", i, r.out);
        tu_free(&r);
    }
    put_file(tc, "{\"add_bos_token\": true, \"bos_token\": \"<bos>\"}");
    snprintf(want, sizeof want, "attnviz: error: %s: bos_token \"<bos>\" is not a token of tokenizer.json's vocabulary "
             "(add_bos_token true puts it first, and %s has no bos_token_id)\n", tu_sh_word(tc), tu_sh_word(cfg));
    expect_model_refused(model, want, 0, "bos_token <bos>");
    put_file(tc, "{\"add_bos_token\": false}"); /* not put first: not needed */
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("add_bos_token false, no bos_token_id: exit %d: %s", r.code, r.err);
    tu_free(&r);
    free(json);
}

/* A file of the folder that is a symbolic link to nothing is named as one,
 * with the link's target (readlink), not taken as absent: config.json,
 * tokenizer.json and model.safetensors said "--model DIR has no NAME; a
 * GPT-2 model folder holds ...", and tokenizer_config.json was skipped with
 * exit 0 (its add_bos_token unread). */
static void test_dangling_links_are_named(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    static const char *const names[] = {"config.json", "tokenizer.json", "model.safetensors", "tokenizer_config.json"};
    char path[4400], kept[4400], want[9000];
    tu_result r;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", model, names[i]);
        snprintf(kept, sizeof kept, "%s/kept", model);
        int had = rename(path, kept) == 0; /* tokenizer_config.json: none yet */
        assert_int_equal(symlink("no-such-target", path), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s is a symbolic link to no-such-target, which does not "
                 "exist\n", tu_sh_word(path));
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d: %s", names[i], r.code, r.err);
        tu_free(&r);
        assert_int_equal(unlink(path), 0);
        if (had) assert_int_equal(rename(kept, path), 0);
    }
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL); /* every file back */
    if (r.code != 0) fail_msg("the folder restored: exit %d: %s", r.code, r.err);
    tu_free(&r);
}

/* A Llama folder with neither model.safetensors nor its index says so; it
 * said "cannot read 'DIR/model.safetensors.index.json': No such file or
 * directory", naming only the file it tried last. An index that is a link
 * to nothing is named as one. */
static void test_llama_folder_without_weights(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[9000];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, nor a model.safetensors.index.json "
             "naming its shards; a Llama/Qwen2 folder holds config.json, model.safetensors (or its index and shards) "
             "and tokenizer.json\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "no weights");
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", model);
    assert_int_equal(symlink("no-such-index", path), 0);
    snprintf(want, sizeof want, "attnviz: error: %s is a symbolic link to no-such-index, which does not exist\n",
             tu_sh_word(path));
    expect_model_refused(model, want, 0, "dangling index");
}

/* A Llama folder cloned without Git LFS: tokenizer.json or model.safetensors.index.json (with the shards) is the
 * LFS pointer's text. It said "DIR/tokenizer.json: not valid JSON near byte 0 of 134"; the file, Git LFS and the
 * way out are named, as for model.safetensors (test_model_cli). */
static void test_lfs_pointers_are_named(void **state) {
    tu_fixture *f = *state;
    static const char lfs[] = "version https://git-lfs.github.com/spec/v1\n"
                              "oid sha256:248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707\n"
                              "size 548105171\n";
    static const char *const files[] = {"tokenizer.json", "model.safetensors.index.json"};
    for (int i = 0; i < 2; i++) {
        char name[16], path[4400], want[4800];
        snprintf(name, sizeof name, "m%d", i);
        const char *model = new_f32_folder(f, name);
        if (i == 1) { /* the shards' folder: no model.safetensors */
            snprintf(path, sizeof path, "%s/model.safetensors", model);
            assert_int_equal(unlink(path), 0);
        }
        snprintf(path, sizeof path, "%s/%s", model, files[i]);
        FILE *fp = fopen(path, "wb");
        fputs(lfs, fp);
        fclose(fp);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: a Git LFS pointer file (134 bytes of text beginning "
                 "\"version \"), not the file's contents: the model was cloned without Git LFS; run git lfs install "
                 "&& git lfs pull in its folder, or download the file itself (e.g. hf download)\n", tu_sh_word(path));
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s as an LFS pointer: exit %d: %s", files[i], r.code, r.err);
        tu_free(&r);
    }
}

/* A Llama folder whose download of model.safetensors stopped before its last byte names the partial file; it
 * said "--model DIR has no model.safetensors, nor a model.safetensors.index.json naming its shards; ...", as of
 * a folder the weights were never put in. huggingface_hub's name in the folder, and huggingface-cli download
 * --local-dir's in .cache/huggingface/download/ (0.23's NAME.ETAG.incomplete). */
static void test_unfinished_download_is_named(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], to[4400], want[9000];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    snprintf(to, sizeof to, "%s/model.safetensors.incomplete", model);
    assert_int_equal(rename(path, to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, but holds "
             "model.safetensors.incomplete, the partial file of a download that did not finish; run the download "
             "again to finish it (hf download resumes where it stopped)\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "model.safetensors.incomplete");
    static const char *const sub[] = {"/.cache", "/.cache/huggingface", "/.cache/huggingface/download"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s%s", model, sub[k]);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    snprintf(path, sizeof path, "%s%s/model.safetensors.3f9a.incomplete", model, sub[2]);
    assert_int_equal(rename(to, path), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, but holds "
             ".cache/huggingface/download/model.safetensors.3f9a.incomplete, the partial file of a download that did "
             "not finish;", tu_sh_word(model));
    expect_model_refused(model, want, 1, "in .cache");
}

/* A Llama folder with SentencePiece's tokenizer.model in place of
 * tokenizer.json names the file it has and the one line of Python that
 * writes tokenizer.json; it said "--model DIR has no tokenizer.json; a GPT-2
 * model folder holds ...", as of a folder with no tokenizer at all (still
 * said then). */
static void test_llama_folder_with_tokenizer_model_only(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], to[4400], want[9000];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    snprintf(to, sizeof to, "%s/tokenizer.model", model);
    assert_int_equal(rename(path, to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no tokenizer.json, only tokenizer.model (SentencePiece's "
             "protobuf format, which attnviz does not read); write tokenizer.json once, in that folder: python3 -c "
             "\"from transformers import AutoTokenizer; AutoTokenizer.from_pretrained('.').save_pretrained('.')\"\n",
             tu_sh_word(model));
    expect_model_refused(model, want, 0, "tokenizer.model only");
    assert_int_equal(unlink(to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no tokenizer.json; a GPT-2 model folder holds",
             tu_sh_word(model));
    expect_model_refused(model, want, 1, "no tokenizer");
}

/* tokenizer.json's Split keeps the text between its matches (behavior
 * Isolated: each match and each gap is a piece, as tokenizers'
 * SplitDelimiterBehavior says). Worked by hand: "3 1 4 1 5 >" with \d is the
 * matches 3 1 4 1 5 and the gaps ␣ ␣ ␣ ␣ ␣>, ten pieces of one or two bytes,
 * each one GPT-2 token ("Ġ>" is one). It gave [3] [1] [4] [1] [5], the spaces
 * and > dropped without a word; a Split that removes everything (invert true,
 * Removed, a pattern matching nothing) said "the sentence is empty". */
static void test_split_keeps_the_gaps(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const char *pre[] = {
        "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\d\"},\"behavior\":"
        "\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false}]}",
        "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":\"x\"},\"behavior\":"
        "\"Removed\",\"invert\":true},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false}]}"};
    tu_result r;
    for (int i = 0; i < 2; i++) {
        char *tok = hf_gpt2_tokenizer_json(pre[i], 0);
        assert_non_null(tok);
        FILE *fp = fopen(path, "wb");
        fputs(tok, fp);
        fclose(fp);
        free(tok);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "3 1 4 1 5 >", NULL);
        if (i == 0) {
            if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
            if (!strstr(r.out, "[3] [␣] [1] [␣] [4] [␣] [1] [␣] [5] [␣>]")) fail_msg("the tokens:\n%s", r.out);
        } else {
            assert_int_equal(r.code, 2);
            snprintf(want, sizeof want, "attnviz: error: the sentence (11 bytes) gives no tokens: the "
                     "pre-tokenizer of %s removed all of it\n", tu_sh_file_word(model, "tokenizer.json"));
            assert_string_equal(r.err, want);
        }
        tu_free(&r);
    }
}

/* model.ignore_merges true (Llama 3's tokenizer.json, tokenizers 0.19): a
 * piece that is a token is that token, whatever the merges make of it. The
 * GPT-2 merges here lack "Ġqu ick", so " quick" merges only to [␣qu] [ick];
 * with ignore_merges it is the token "Ġquick" (id 2068), as tokenizers'
 * Bpe::tokenize looks the piece up before merging. The flag was not read: the
 * tokens were [␣qu] [ick] either way, the model fed ids it was never
 * trained on without a word. */
static void test_ignore_merges_takes_whole_tokens(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(tok);
    static const char *const flag[] = {"", "\"ignore_merges\":false,", "\"ignore_merges\":true,"};
    for (int i = 0; i < 3; i++) {
        char to[64];
        snprintf(to, sizeof to, "{\"type\":\"BPE\",%s", flag[i]);
        assert_int_equal(tu_write_replaced(path, tok, "\"Ġqu ick\",", ""), 0);
        char *text = tu_slurp_file(path, NULL);
        assert_non_null(text);
        assert_int_equal(tu_write_replaced(path, text, "{\"type\":\"BPE\",", to), 0);
        free(text);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "The quick fox", NULL);
        if (r.code != 0) fail_msg("case %d: exit %d: %s", i, r.code, r.err);
        const char *want = i == 2 ? "[The] [␣quick] [␣fox]" : "[The] [␣qu] [ick] [␣fox]";
        if (!strstr(r.out, want)) fail_msg("case %d: want %s in the tokens:\n%s", i, want, r.out);
        tu_free(&r);
    }
    /* anything but true or false is named */
    assert_int_equal(tu_write_replaced(path, tok, "{\"type\":\"BPE\",", "{\"type\":\"BPE\",\"ignore_merges\":1,"), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "The quick fox", NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, in_folder(model, "tokenizer.json: model.ignore_merges is 1; it must be true or false\n")))
        fail_msg("%s", r.err);
    tu_free(&r);
    free(tok);
}

/* A byte-level tokenizer.json whose merges or vocabulary bpe.c refuses: the
 * message names the file and the entry, as merges.txt's name its line. They
 * named neither: "attnviz: error: \"qqqq\" is not a token of the vocabulary",
 * from a folder of three files and 50000 merges. */
static void test_tokenizer_merge_errors_name_the_file(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(tok);
    static const struct { const char *from, *to, *msg; } cases[] = {
        {"\"merges\":[\"Ġ t\",\"Ġ a\"", "\"merges\":[\"Ġ t\",\"qqqq Ġ\"",
         "model.merges[1]: \"qqqq\" is not a token of the vocabulary"},
        {"\"merges\":[\"Ġ t\",\"Ġ a\"", "\"merges\":[\"Ġ t\",\"Ġ t\"",
         "model.merges[1]: the merge \"Ġ\" \"t\" appears twice (ranks 0 and 1)"},
        {"\"merges\":[\"Ġ t\",\"Ġ a\"", "\"merges\":[\"Ġ t\",\"Ġa\"",
         "model.merges[1] is not \"left right\" (one space) or [\"left\", \"right\"]"},
        {"\"vocab\":{\"!\":0,", "\"vocab\":{\"!\":0,\"qqqq\":0,",
         "model.vocab: token \"qqqq\" has id 0, already the id of another token"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (tu_write_replaced(path, tok, cases[i].from, cases[i].to)) fail_msg("case %zu: no %s", i, cases[i].from);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        assert_int_equal(r.code, 2);
        snprintf(want, sizeof want, "attnviz: error: %s: %s\n", tu_sh_word(path), cases[i].msg);
        assert_string_equal(r.err, want);
        tu_free(&r);
    }
    free(tok);
}

/* A sentencepiece-style tokenizer.json with more merges than its pair table
 * had room for: HF's conversion from sentencepiece lists every pair whose
 * concatenation is a token, so "aab" is made by "a ab" and "aa b" and the
 * merges outnumber the tokens. Here <unk> <s> </s>, the 256 "<0xNN>" bytes,
 * ▁ a b, and every string of a and b of 2..6 letters: 386 tokens, 516 merges
 * (each string once per cut). The table was sized from the tokens (1024
 * slots, at most 512 merges), and merge 512 was refused as "merge 512 names a
 * token the vocabulary lacks", every token it names being there. Worked by
 * hand: "abab aab" → "▁abab▁aab"; a b a b: (a,b) rank 1 twice, then (ab,ab)
 * → abab; a a b: (a,a) rank 0, then (aa,b) → aab; BOS <s> first. */
static void test_sentencepiece_merges_outnumber_tokens(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    size_t cap = 1 << 16, k = 0;
    char *json = malloc(cap), strs[126][8];
    assert_non_null(json);
    int n = 0, id = 0;
    k += (size_t)snprintf(json + k, cap - k, "{\"added_tokens\":[{\"id\":0,\"content\":\"<unk>\",\"special\":true},"
                          "{\"id\":1,\"content\":\"<s>\",\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}],"
                          "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":"
                          "\"\xe2\x96\x81\"},{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":"
                          "\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null,\"post_processor\":{\"type\":\"TemplateProcessing\","
                          "\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\","
                          "\"type_id\":0}}]},\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"byte_fallback\":true,"
                          "\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2");
    for (id = 3; id < 3 + 256; id++) k += (size_t)snprintf(json + k, cap - k, ",\"<0x%02X>\":%d", id - 3, id);
    k += (size_t)snprintf(json + k, cap - k, ",\"\xe2\x96\x81\":%d,\"a\":%d,\"b\":%d", id, id + 1, id + 2);
    id += 3;
    for (int len = 2; len <= 6; len++)
        for (int bits = 0; bits < 1 << len; bits++, n++) {
            for (int c = 0; c < len; c++) strs[n][c] = (bits >> (len - 1 - c)) & 1 ? 'b' : 'a';
            strs[n][len] = 0;
            k += (size_t)snprintf(json + k, cap - k, ",\"%s\":%d", strs[n], id++);
        }
    k += (size_t)snprintf(json + k, cap - k, "},\"merges\":[");
    int merges = 0;
    for (int i = 0; i < n; i++)
        for (int cut = 1; cut < (int)strlen(strs[i]); cut++, merges++)
            k += (size_t)snprintf(json + k, cap - k, "%s\"%.*s %s\"", merges ? "," : "", cut, strs[i], strs[i] + cut);
    k += (size_t)snprintf(json + k, cap - k, "]}}");
    assert_true(k < cap);
    assert_int_equal(id, 386);
    assert_int_equal(merges, 516);
    char path[4400];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
    free(json);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "abab aab", NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "[<s>] [␣] [abab] [␣] [aab]")) fail_msg("the tokens:\n%s", r.out);
    tu_free(&r);
}

/* A Digits pre_tokenizer without individual_digits true (a run of digits kept as one piece, not implemented) was
 * refused as "pre_tokenizer Digits is not supported (allowed: ByteLevel, Split with ByteLevel, Digits, Metaspace)",
 * naming Digits among the allowed ones; now the message names the setting and its value. */
static void test_digits_setting_is_named(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const struct { const char *digits, *shown; } cases[] = {
        {",\"individual_digits\":false", "false"},
        {"", "absent (false, tokenizers' default)"},
        {",\"individual_digits\":1", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char pre[256];
        snprintf(pre, sizeof pre, "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\"%s},"
                 "{\"type\":\"ByteLevel\",\"add_prefix_space\":false}]}", cases[i].digits);
        char *json = hf_gpt2_tokenizer_json(pre, 0);
        assert_non_null(json);
        assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
        free(json);
        snprintf(want, sizeof want, "attnviz: error: %s: pre_tokenizer Digits with individual_digits %s is not "
                 "supported (allowed: true, each digit its own piece; false, a run of digits as one piece, is not "
                 "implemented)\n", tu_sh_word(path), cases[i].shown);
        expect_model_refused(model, want, 0, cases[i].shown);
    }
}

/* A Metaspace pre-tokenizer read as tokenizers reads it (pre_tokenizers/
 * metaspace.rs): split, true when absent, starts a piece at every "▁" (each
 * merged on its own); the older add_prefix_space false prepends nothing;
 * "always" prepends "▁" only to a segment that does not start with a space.
 * Vocabulary ▁ a b ▁▁ ▁a ▁b, merges (▁,▁) (▁,a) (▁,b). All three were
 * ignored: "a  b" under add_prefix_space false gave [␣a] [␣␣] [b] (tokenizers:
 * "a▁▁b" cut to a, ▁, ▁b), " a" under always gave [␣␣] [a] ("▁a"), without a
 * word; an unknown prepend_scheme ran as "always". */
static void test_metaspace_settings_are_read(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], json[1024];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const struct { const char *meta, *text, *want; } cases[] = {
        {"\"add_prefix_space\":false", "a  b", "tokens     [a] [␣] [␣b]\n"},
        {"\"prepend_scheme\":\"always\",\"split\":true", " a", "tokens     [␣a]\n"},
        /* a text that starts with "▁" itself: metaspace.rs looks after the spaces are replaced, so none is added */
        {"\"prepend_scheme\":\"always\",\"split\":true", "\xe2\x96\x81" "a", "tokens     [␣a]\n"},
        {"\"prepend_scheme\":\"always\",\"split\":false", "a  b", "tokens     [␣a] [␣␣] [b]\n"},
        {"\"prepend_scheme\":\"sometimes\"", "a", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(json, sizeof json, "{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":"
                 "\"\xe2\x96\x81\",%s},\"model\":{\"type\":\"BPE\",\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2,"
                 "\"\xe2\x96\x81\":3,\"a\":4,\"b\":5,\"\xe2\x96\x81\xe2\x96\x81\":6,\"\xe2\x96\x81" "a\":7,"
                 "\"\xe2\x96\x81" "b\":8},\"merges\":[\"\xe2\x96\x81 \xe2\x96\x81\",\"\xe2\x96\x81 a\","
                 "\"\xe2\x96\x81 b\"]}}", cases[i].meta);
        assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", cases[i].text, NULL);
        if (cases[i].want) {
            if (r.code != 0) fail_msg("case %zu: exit %d: %s", i, r.code, r.err);
            if (!strstr(r.out, cases[i].want)) fail_msg("case %zu: want %s in:\n%s", i, cases[i].want, r.out);
        } else {
            assert_int_equal(r.code, 2);
            if (!strstr(r.err, in_folder(model, "tokenizer.json: Metaspace prepend_scheme \"sometimes\" is not supported "
                        "(allowed: \"always\", \"first\", \"never\")\n")))
                fail_msg("case %zu: %s", i, r.err);
        }
        tu_free(&r);
    }
}

/* A character the vocabulary lacks, with no "<0xNN>" token to fall back on, is
 * one <unk> (tokenizers' BPE::merge_word), and a run of them is one <unk> with
 * model.fuse_unk; "a 世界" showed one <unk> per UTF-8 byte, six for two
 * characters (a Llama user's pass). Worked by hand: Metaspace always + split
 * cuts "▁a▁世界" into "▁a" "▁世界"; ▁ is token 3, 世 and 界 are not tokens.
 * A Metaspace replacement or a normalizer other than Llama 2's "▁" ones is
 * refused: they were ignored, and the text cut as if they were "▁". The template's <s> (token 1 of
 * model.vocab) goes first (test_post_processor_sequence_puts_bos_first). */
static void test_unknown_characters_and_unread_settings(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], json[1400];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    static const struct { const char *norm, *meta, *model, *want; } cases[] = {
        {"null", "\"prepend_scheme\":\"always\",\"replacement\":\"\xe2\x96\x81\"", "", "tokens     [<s>] [␣a] [␣] [<unk>] [<unk>]\n             (tokenizer.json, sentencepiece BPE, no byte fallback: an unknown character is unk_token, BOS put first;"},
        {"null", "\"prepend_scheme\":\"always\",\"replacement\":\"\xe2\x96\x81\"", "\"fuse_unk\":true,",
         "tokens     [<s>] [␣a] [␣] [<unk>]\n"},
        {"null", "\"prepend_scheme\":\"always\",\"replacement\":\"_\"", "",
         "tokenizer.json: Metaspace replacement \"_\" is not supported (allowed: \"▁\", U+2581)\n"},
        {"{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},{\"type\":"
         "\"Replace\",\"pattern\":{\"String\":\"o\"},\"content\":\"e\"}]}", NULL, "",
         "tokenizer.json: normalizer Replace with pattern {\"String\":\"o\"} is not supported (allowed: Prepend \"▁\"; "
         "Replace {\"String\": \" \"} with \"▁\", as Llama 2's tokenizer.json has them)\n"},
        {"{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},{\"type\":"
         "\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"_\"}]}", NULL, "",
         "tokenizer.json: normalizer Replace with content \"_\" is not supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char pre[200] = "null";
        if (cases[i].meta) snprintf(pre, sizeof pre, "{\"type\":\"Metaspace\",%s}", cases[i].meta);
        snprintf(json, sizeof json, "{\"normalizer\":%s,\"pre_tokenizer\":%s,\"post_processor\":{\"type\":"
                 "\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":"
                 "{\"id\":\"A\",\"type_id\":0}}]},\"model\":{\"type\":\"BPE\",%s\"unk_token\":\"<unk>\",\"vocab\":{"
                 "\"<unk>\":0,\"<s>\":1,\"</s>\":2,\"\xe2\x96\x81\":3,\"a\":4,\"\xe2\x96\x81" "a\":5},\"merges\":["
                 "\"\xe2\x96\x81 a\"]}}", cases[i].norm, pre, cases[i].model);
        assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "a 世界", NULL);
        if (!strncmp(cases[i].want, "tokens", 6)) {
            if (r.code != 0) fail_msg("case %zu: exit %d: %s", i, r.code, r.err);
            if (!strstr(r.out, cases[i].want)) fail_msg("case %zu: want %s in:\n%s", i, cases[i].want, r.out);
        } else if (r.code != 2 || !strstr(r.err, in_folder(model, cases[i].want))) {
            fail_msg("case %zu: exit %d, want %s in: %s", i, r.code, cases[i].want, r.err);
        }
        tu_free(&r);
    }
    /* model.unk_token not in model.vocab ("<nope>"): tokenizers loads it and fails when a character needs it,
     * Error::UnkTokenOutOfVocabulary "Unk token `<nope>` not found in the vocabulary" (models/bpe/model.rs
     * merge_word, mod.rs); the message said the tokenizer has no unk_token. "a" needs none and runs. */
    snprintf(json, sizeof json, "{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"prepend_scheme\":"
             "\"always\",\"replacement\":\"\xe2\x96\x81\"},\"model\":{\"type\":\"BPE\",\"unk_token\":\"<nope>\","
             "\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2,\"\xe2\x96\x81\":3,\"a\":4,\"\xe2\x96\x81" "a\":5},"
             "\"merges\":[\"\xe2\x96\x81 a\"]}}");
    assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "a", NULL);
    if (r.code != 0) fail_msg("\"a\": exit %d: %s", r.code, r.err);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "a 世界", NULL);
    if (r.code != 2 || !strstr(r.err, "the character \"世\" has no token and no byte fallback, and its unknown token, "
                                      "model.unk_token \"<nope>\", is not a token of model.vocab (Hugging Face's "
                                      "tokenizers fails too: \"Unk token `<nope>` not found in the vocabulary\")"))
        fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* "unk_token": null and no byte fallback: tokenizers' merge_word adds nothing for a character with no token
     * (`if let Some(unk_token) = &self.unk_token`, no else), the character is left out. attnviz refuses; it said
     * "the character at byte 4 has no token ..." for "a\t世" (the tab is byte 1 of the text, byte 4 of "▁a\t世"
     * after the Metaspace "▁") and named neither the character nor the key. Now the tab, escaped, and the key. */
    snprintf(json, sizeof json, "{\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Metaspace\",\"prepend_scheme\":"
             "\"always\",\"replacement\":\"\xe2\x96\x81\"},\"model\":{\"type\":\"BPE\",\"unk_token\":null,"
             "\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2,\"\xe2\x96\x81\":3,\"a\":4,\"\xe2\x96\x81" "a\":5},"
             "\"merges\":[\"\xe2\x96\x81 a\"]}}");
    assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
    static const char *const unknown[][2] = {{"a\t\xe4\xb8\x96", "<U+0009>"}, {"a \xe4\xb8\x96", "\xe4\xb8\x96"}};
    for (size_t i = 0; i < 2; i++) {
        char want[400];
        snprintf(want, sizeof want, "attnviz: error: the character \"%s\" has no token and no byte fallback, and "
                 "model.unk_token is null: Hugging Face's tokenizers leaves such a character out of the ids without a "
                 "word, which attnviz does not do (allowed: text whose characters are tokens of model.vocab)\n",
                 unknown[i][1]);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", unknown[i][0], NULL);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d: %s", unknown[i][0], r.code, r.err);
        tu_free(&r);
    }
}

/* tokenizer.json's post_processor as tokenizers applies it (processors/mod.rs, template.rs): a Sequence runs
 * each processor in turn, so Llama 3's [ByteLevel, TemplateProcessing "<|begin_of_text|>" $A] puts its BOS
 * first. Only a bare TemplateProcessing was read: `--model DIR "a a"` with the Sequence gave [␣a] [␣a], no BOS,
 * so every map lacked the first-token column Hugging Face's ids give (a Llama user's pass). A processor that
 * adds tokens attnviz does not (RobertaProcessing, a special token after the text) is refused, naming it; it
 * was ignored. Worked by hand: Prepend and Replace make "a a" "▁a▁a", the merge "▁ a" makes [▁a] [▁a] (5, 5),
 * and the template's <s> (id 1) goes first. */
static void test_post_processor_sequence_puts_bos_first(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], json[1800];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
#define TEMPLATE(SINGLE) "{\"type\":\"TemplateProcessing\",\"single\":[" SINGLE "],\"pair\":[]}"
#define BOS_S "{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}}"
#define EOS_S "{\"SpecialToken\":{\"id\":\"</s>\",\"type_id\":0}}"
#define TEXT_A "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}"
#define BYTE_LEVEL_PP "{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":false,\"use_regex\":true}"
    static const struct { const char *pp, *want; } cases[] = {
        {"{\"type\":\"Sequence\",\"processors\":[" BYTE_LEVEL_PP "," TEMPLATE(BOS_S "," TEXT_A) "]}",
         "tokens     [<s>] [␣a] [␣a]\n"},
        /* the id from the template's special_tokens, as tokenizers takes it */
        {"{\"type\":\"Sequence\",\"processors\":[{\"type\":\"TemplateProcessing\",\"single\":[" BOS_S "," TEXT_A "],"
         "\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1],\"tokens\":[\"<s>\"]}}}]}",
         "tokens     [<s>] [␣a] [␣a]\n"},
        {TEMPLATE(BOS_S "," TEXT_A), "tokens     [<s>] [␣a] [␣a]\n"},
        {BYTE_LEVEL_PP, "tokens     [␣a] [␣a]\n"},
        {"null", "tokens     [␣a] [␣a]\n"},
        {TEMPLATE(BOS_S "," TEXT_A "," EOS_S),
         "tokenizer.json: post_processor adds the special token \"</s>\" after the text; attnviz puts at most one "
         "special token before the text and none after it (allowed: \"single\" [$A] or [SPECIAL, $A])\n"},
        {"{\"type\":\"Sequence\",\"processors\":[" BYTE_LEVEL_PP ",{\"type\":\"RobertaProcessing\",\"sep\":[\"</s>\",2],"
         "\"cls\":[\"<s>\",1]}]}",
         "tokenizer.json: post_processor.processors[1] \"RobertaProcessing\" is not supported (allowed: null, "
         "ByteLevel, TemplateProcessing, or a Sequence of them)\n"},
        {TEMPLATE("{\"SpecialToken\":{\"id\":\"<bos>\",\"type_id\":0}}," TEXT_A),
         "tokenizer.json: post_processor puts the special token \"<bos>\" first, which is no token of the file "
         "(added_tokens, model.vocab) and has no special_tokens entry\n"},
    };
#undef TEMPLATE
#undef BOS_S
#undef EOS_S
#undef TEXT_A
#undef BYTE_LEVEL_PP
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(json, sizeof json, "{\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\","
                 "\"prepend\":\"\xe2\x96\x81\"},{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":"
                 "\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null,\"post_processor\":%s,\"added_tokens\":[{\"id\":1,"
                 "\"content\":\"<s>\",\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}],\"model\":"
                 "{\"type\":\"BPE\",\"byte_fallback\":false,\"unk_token\":\"<unk>\",\"vocab\":{\"<unk>\":0,\"<s>\":1,"
                 "\"</s>\":2,\"\xe2\x96\x81\":3,\"a\":4,\"\xe2\x96\x81" "a\":5},\"merges\":[\"\xe2\x96\x81 a\"]}}",
                 cases[i].pp);
        assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "a a", NULL);
        if (!strncmp(cases[i].want, "tokens", 6)) {
            if (r.code != 0) fail_msg("case %zu: exit %d: %s", i, r.code, r.err);
            if (!strstr(r.out, cases[i].want)) fail_msg("case %zu: want %s in:\n%s", i, cases[i].want, r.out);
        } else if (r.code != 2 || !strstr(r.err, in_folder(model, cases[i].want))) {
            fail_msg("case %zu: exit %d, want %s in: %s", i, r.code, cases[i].want, r.err);
        }
        tu_free(&r);
    }
}

/* added_tokens' flags read as tokenizers' added_vocabulary.rs reads them
 * (AddedVocabulary::find_matches and extract_and_normalize): lstrip takes the
 * White_Space before the token into it, rstrip the White_Space after it,
 * single_word drops a match with a \w character (Alphabetic, marks, Nd, Pc)
 * right before or after it, and a "normalized": false token is looked for in
 * the raw text, a true one in the NFC'd text as its NFC form. All four were
 * ignored: "hello <|endoftext|>" with lstrip gave [hello] [␣] [<|endoftext|>]
 * where tokenizers gives no [␣]. GPT-2's byte-level tokenizer.json, its
 * <|endoftext|> (id 50256) given the flags; worked by hand:
 *   lstrip, "hello <|endoftext|>": the match is bytes 6..19, the " " at 5 is
 *     White_Space, "o" is not: "hello" is left: [hello] [<|endoftext|>];
 *   lstrip, "hello\t\u3000<|endoftext|>": tab and IDEOGRAPHIC SPACE are
 *     White_Space: the same two tokens;
 *   rstrip, "<|endoftext|>  world": both spaces go, "world" is left:
 *     [<|endoftext|>] [world] (without rstrip GPT-2's \s+(?!\S) made [␣] [␣world]);
 *   single_word, "hello<|endoftext|>": "o" before it is \w, the match is
 *     dropped and the whole is text: [hello] then "<|endoftext|>" as GPT-2's
 *     encoder makes it (27 91 437 1659 5239 91 29: [<] [|] [end] [of] [text] [|] [>]);
 *   single_word, "é<|endoftext|>": é is Alphabetic: dropped too, [é] [<] ...;
 *   single_word, "(<|endoftext|>)": "(" and ")" are no \w: [(] [<|endoftext|>] [)];
 *   all three, "Hi <|endoftext|> there\t<|endoftext|>\t<|endoftext|>\u2000"
 *     (tokenizers' own test_lstrip_unicode_space): " <|endoftext|> " and
 *     "\t<|endoftext|>\t" are tokens; the third finds its tab taken by the
 *     second (lstrip stops where the last match ended) and takes U+2000 EN
 *     QUAD: [Hi] [<|endoftext|>] [there] [<|endoftext|>] [<|endoftext|>];
 *   normalizer NFC, content "e\u0301x" (not NFC), "normalized": false, text
 *     "e\u0301x": found in the raw text: the one id 50256 (shown as the
 *     vocabulary's [<|endoftext|>]); "normalized": true: looked for as "éx"
 *     in the NFC'd text "éx": found, the same. attnviz NFC'd the text and
 *     looked for "e\u0301x": two tokens both times.
 * A flag that is no boolean is named. With Llama 2's Prepend "▁" normalizer a
 * "normalized": true token is looked for as "▁<s>" in the normalized text,
 * which attnviz does not do: the text holding it is refused, naming the token
 * and the flag; "normalized": false is found in the raw text "a <s>", and the
 * piece before it normalized: "▁a▁" is [␣a] [␣], with lstrip "▁a" is [␣a]. */
static void test_added_token_flags(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], flags[200];
    snprintf(path, sizeof path, "%s/tokenizer.json", model);
    char *tok = hf_gpt2_tokenizer_json(HF_BYTE_LEVEL, 0);
    assert_non_null(tok);
    static const struct { const char *flags, *norm, *text, *want; } cases[] = {
        {"\"lstrip\":true", NULL, "hello <|endoftext|>", "tokens     [hello] [<|endoftext|>]\n"},
        {"\"lstrip\":true", NULL, "hello\t\xe3\x80\x80<|endoftext|>", "tokens     [hello] [<|endoftext|>]\n"},
        {"\"rstrip\":true", NULL, "<|endoftext|>  world", "tokens     [<|endoftext|>] [world]\n"},
        {"\"single_word\":true", NULL, "hello<|endoftext|>", "tokens     [hello] [<] [|] [end] [of] [text] [|] [>]\n"},
        {"\"single_word\":true", NULL, "\xc3\xa9<|endoftext|>", "tokens     [é] [<] [|] [end] [of] [text] [|] [>]\n"},
        {"\"single_word\":true", NULL, "(<|endoftext|>)", "tokens     [(] [<|endoftext|>] [)]\n"},
        {"\"normalized\":false", "e\\u0301x", "e\xcc\x81x", "tokens     [e\xcc\x81x]\n"},
        {"\"normalized\":true", "e\\u0301x", "e\xcc\x81x", "tokens     [e\xcc\x81x]\n"},
        {"\"lstrip\":true,\"rstrip\":true,\"single_word\":true", NULL,
         "Hi <|endoftext|> there\t<|endoftext|>\t<|endoftext|>\xe2\x80\x80",
         "tokens     [Hi] [<|endoftext|>] [there] [<|endoftext|>] [<|endoftext|>]\n"},
        {"\"lstrip\":\"yes\"", NULL, "hello", "tokenizer.json: added_tokens[0].lstrip is \"yes\"; it must be true or false\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(flags, sizeof flags, "\"content\":\"%s\",\"special\":true,%s}]",
                 cases[i].norm ? cases[i].norm : "<|endoftext|>", cases[i].flags);
        assert_int_equal(tu_write_replaced(path, tok, "\"content\":\"<|endoftext|>\",\"special\":true}]", flags), 0);
        if (cases[i].norm) {
            char *text = tu_slurp_file(path, NULL);
            assert_non_null(text);
            assert_int_equal(tu_write_replaced(path, text, "\"normalizer\":null", "\"normalizer\":{\"type\":\"NFC\"}"), 0);
            free(text);
            /* id 50256 is the added token's alone: model.vocab's "<|endoftext|>" would hold it too */
            text = tu_slurp_file(path, NULL);
            assert_non_null(text);
            assert_int_equal(tu_write_replaced(path, text, ",\"<|endoftext|>\":50256", ""), 0);
            free(text);
        }
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", cases[i].text, NULL);
        if (strstr(cases[i].want, "tokenizer.json:")) {
            if (r.code != 2 || !strstr(r.err, in_folder(model, cases[i].want))) fail_msg("case %zu: exit %d, want %s in: %s", i, r.code, cases[i].want, r.err);
        } else {
            if (r.code != 0) fail_msg("case %zu: exit %d: %s", i, r.code, r.err);
            if (!strstr(r.out, cases[i].want)) fail_msg("case %zu: want %s in:\n%s", i, cases[i].want, r.out);
        }
        tu_free(&r);
    }
    free(tok);
    /* Llama 2's normalizer: "<s>" normalized true would be "▁<s>"; false is found as it is */
    static const char *const sp_flags[] = {"false", "false,\"lstrip\":true", "true"};
    static const char *const sp_want[] = {"tokens     [␣a] [␣] [<s>]\n", "tokens     [␣a] [<s>]\n", NULL};
    for (int i = 0; i < 3; i++) {
        char json[1400];
        snprintf(json, sizeof json, "{\"added_tokens\":[{\"id\":1,\"content\":\"<s>\",\"special\":true,\"normalized\":%s}],"
                 "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":"
                 "\"\xe2\x96\x81\"},{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"}]},"
                 "\"pre_tokenizer\":null,\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"vocab\":{"
                 "\"<unk>\":0,\"<s>\":1,\"</s>\":2,\"\xe2\x96\x81\":3,\"a\":4,\"\xe2\x96\x81" "a\":5},\"merges\":["
                 "\"\xe2\x96\x81 a\"]}}", sp_flags[i]);
        assert_int_equal(tu_write_replaced(path, json, "{", "{"), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "a <s>", NULL);
        if (sp_want[i]) {
            if (r.code != 0 || !strstr(r.out, sp_want[i])) fail_msg("case %d: exit %d: %s%s", i, r.code, r.out, r.err);
        } else if (r.code != 2 || !strstr(r.err, "attnviz: error: added token \"<s>\" has \"normalized\": true: Hugging "
                                           "Face's tokenizers look for it as \"▁<s>\" in the text after the Prepend \"▁\" "
                                           "normalizer, which attnviz does not do")) {
            fail_msg("exit %d: %s", r.code, r.err);
        }
        tu_free(&r);
    }
}

/* config.json's words a Hugging Face user meets: hidden_act "swish" is
 * transformers' name for SiLU too (ACT2FN) and runs as "silu" does; a
 * num_key_value_heads that cannot divide the heads lists the values that can;
 * an lm_head.weight in a folder whose config ties the embeddings names the key
 * that decides (it said only "not part of the layout config.json implies"). */
static void test_config_words_of_hugging_face(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    assert_non_null(json);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    char *silu = strdup(r.out);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"hidden_act\": \"silu\"", "\"hidden_act\": \"swish\""), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    if (r.code != 0) fail_msg("swish: exit %d: %s", r.code, r.err);
    assert_string_equal(r.out, silu);
    free(silu);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, in_folder(model, "config.json: num_key_value_heads 3 must divide num_attention_heads 4 (allowed: 1, 2, 4)\n")))
        fail_msg("%s", r.err);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    if (!strstr(r.err, in_folder(model, "model.safetensors: tensor \"lm_head.weight\" differs from "
                       "model.embed_tokens.weight, but config.json's tie_word_embeddings is true, so the output layer is model.embed_tokens.weight; set "
                       "it to false to run with this lm_head\n")))
        fail_msg("%s", r.err);
    tu_free(&r);
    free(json);
}

/* qwen2_f32's checkpoint (tied) written again into dir with lm_head.weight added, a copy of
 * model.embed_tokens.weight whose element 5 is changed by bump (0: equal). */
static void add_lm_head(const char *dir, const char *from, float bump) {
    av_llama m;
    av_err err = {{0}};
    if (av_llama_load(&m, from, &err)) fail_msg("%s", err.msg);
    int n = av_llama_num_tensors(&m.cfg);
    av_llama_tensor *tab = calloc((size_t)n, sizeof *tab);
    av_st_write_tensor *w = calloc((size_t)n + 1, sizeof *w);
    size_t VC = (size_t)m.cfg.vocab_size * (size_t)m.cfg.n_embd;
    float *head = malloc(VC * sizeof *head);
    assert_true(tab && w && head);
    av_llama_tensor_table(tab, &m.cfg, &m.params);
    for (int i = 0; i < n; i++)
        w[i] = (av_st_write_tensor){tab[i].name, AV_ST_F32, tab[i].ndim, {tab[i].shape[0], tab[i].shape[1]}, *tab[i].slot};
    memcpy(head, m.params.embed_tokens, VC * sizeof *head);
    head[5] += bump;
    w[n] = (av_st_write_tensor){"lm_head.weight", AV_ST_F32, 2, {(size_t)m.cfg.vocab_size, (size_t)m.cfg.n_embd}, head};
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (av_safetensors_write(path, w, n + 1, &err)) fail_msg("%s", err.msg);
    free(head);
    free(w);
    free(tab);
    av_llama_free(&m);
}

/* A tied model's state dict holds lm_head.weight too (torch.save's pytorch_model.bin, and the save_file of it that
 * attnviz's own advice for a .bin writes); transformers ties them, so it is the same model. It was refused:
 * "model.safetensors: unexpected tensor "lm_head.weight": config.json's tie_word_embeddings is true, ...", exit 2;
 * now it runs with the same output as without it, and one that differs is refused naming the key. */
static void test_tied_lm_head_equal_to_embeddings(void **state) {
    tu_fixture *f = *state;
    const char *plain = tu_in(f, "q"), *both = tu_in(f, "qh");
    assert_int_equal(mkdir(plain, 0700), 0);
    assert_int_equal(mkdir(both, 0700), 0);
    make_folder(plain, "qwen2_f32", AV_ST_F32);
    make_folder(both, "qwen2_f32", AV_ST_F32);
    add_lm_head(both, plain, 0.0f);
    tu_result a, b;
    run_attnviz(&a, NULL, "--model", plain, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    run_attnviz(&b, NULL, "--model", both, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    if (a.code != 0 || b.code != 0) fail_msg("exit %d, %d: %s%s", a.code, b.code, a.err, b.err);
    assert_non_null(strstr(b.out, "generate    greedy, 3 tokens after the input: "));
    assert_string_equal(a.out, b.out);
    tu_free(&a);
    tu_free(&b);
    add_lm_head(both, plain, 0.5f);
    char want[4800];
    snprintf(want, sizeof want, "attnviz: error: %s: tensor \"lm_head.weight\" differs from "
             "model.embed_tokens.weight, but config.json's tie_word_embeddings is true, so the output layer is "
             "model.embed_tokens.weight; set it to false to run with this lm_head\n", sh_in(both, "model.safetensors"));
    expect_model_refused(both, want, 0, "tied, lm_head differs");
}

/* safetensors.torch.save_model keeps one name of tensors sharing memory, the first in sorted order, so a tied
 * model's file holds lm_head.weight and no model.embed_tokens.weight; transformers loads it (tied). It was refused:
 * 'missing tensor "model.embed_tokens.weight" (config.json implies it)'. Now it runs with the output and --dump of
 * the folder with model.embed_tokens.weight. */
static void test_tied_checkpoint_with_lm_head_only(void **state) {
    tu_fixture *f = *state;
    char plain[4200], head[4200], path[4400]; /* tu_in's buffers are reused below */
    snprintf(plain, sizeof plain, "%s", tu_in(f, "q"));
    snprintf(head, sizeof head, "%s", tu_in(f, "qh"));
    assert_int_equal(mkdir(plain, 0700), 0);
    assert_int_equal(mkdir(head, 0700), 0);
    make_folder(plain, "qwen2_f32", AV_ST_F32);
    make_folder(head, "qwen2_f32", AV_ST_F32);
    av_err err = {{0}};
    snprintf(path, sizeof path, "%s/model.safetensors", head);
    if (gf_rename_tensor(path, "model.embed_tokens.weight", "lm_head.weight", &err)) fail_msg("%s", err.msg);
    tu_result a, b;
    run_attnviz(&a, NULL, "--model", plain, "--no-plot", "-q", "--generate", "3", "--dump", tu_in(f, "da"), SENTENCE, NULL);
    run_attnviz(&b, NULL, "--model", head, "--no-plot", "-q", "--generate", "3", "--dump", tu_in(f, "db"), SENTENCE, NULL);
    if (a.code != 0 || b.code != 0) fail_msg("exit %d, %d: %s%s", a.code, b.code, a.err, b.err);
    assert_non_null(strstr(b.out, "generate    greedy, 3 tokens after the input: "));
    assert_string_equal(a.out, b.out);
    tu_free(&a);
    tu_free(&b);
    static const char *const npys[] = {"attn.npy", "hidden.npy", "logits.npy", "token_ids.npy"};
    for (int i = 0; i < 4; i++) {
        size_t la = 0, lb = 0;
        char rel[64];
        snprintf(rel, sizeof rel, "da/%s", npys[i]);
        char *x = tu_slurp_file(tu_in(f, rel), &la);
        snprintf(rel, sizeof rel, "db/%s", npys[i]);
        char *y = tu_slurp_file(tu_in(f, rel), &lb);
        if (!x || !y || la != lb || memcmp(x, y, la)) fail_msg("%s differs from the folder with embed_tokens'", npys[i]);
        free(x);
        free(y);
    }
    /* untied, the embedding is its own tensor: still missing */
    snprintf(path, sizeof path, "%s/config.json", head);
    char *json = tu_slurp_file(path, NULL), *at = strstr(json, "\"tie_word_embeddings\": true");
    assert_non_null(at);
    memcpy(at, "\"tie_word_embeddings\":false", 27); /* as long as the old words */
    FILE *c = fopen(path, "wb");
    fputs(json, c);
    fclose(c);
    free(json);
    char want[4800];
    snprintf(want, sizeof want, "attnviz: error: %s: missing tensor \"model.embed_tokens.weight\"", sh_in(head, "model.safetensors"));
    expect_model_refused(head, want, 1, "untied, lm_head only");
}

/* A Llama folder with PyTorch's weights in place of model.safetensors (torch.save's pytorch_model.bin, or
 * save_pretrained(safe_serialization=False)'s index and shards) names them and gives the one line of Python that
 * writes model.safetensors, as a GPT-2 folder's pytorch_model.bin was told; it said only "--model DIR has no
 * model.safetensors, nor a model.safetensors.index.json naming its shards; a Llama/Qwen2 folder holds ...". */
static void test_pytorch_weights_are_named(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "pt");
    char path[4400], to[4400], want[4800];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    snprintf(to, sizeof to, "%s/pytorch_model.bin", model);
    assert_int_equal(rename(path, to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, only pytorch_model.bin (PyTorch's "
             "pickle format, which attnviz does not read); convert it once, in that folder: python3 -c \"import torch, "
             "safetensors.torch as s; t = torch.load('pytorch_model.bin'); s.save_file({k: v.clone() for k, v in "
             "t.items()}, 'model.safetensors', {'format': 'pt'})\"\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "pytorch_model.bin");
    snprintf(path, sizeof path, "%s/pytorch_model-00001-of-00001.bin", model);
    assert_int_equal(rename(to, path), 0);
    snprintf(path, sizeof path, "%s/pytorch_model.bin.index.json", model);
    static const char index[] = "{\"weight_map\": {\"model.norm.weight\": \"pytorch_model-00001-of-00001.bin\"}}";
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(index, fp);
    fclose(fp);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, only pytorch_model.bin.index.json "
             "and its shards (PyTorch's pickle format, which attnviz does not read); join and convert them once, in "
             "that folder: python3 -c \"import json, torch, safetensors.torch as s; t = {}; [t.update(torch.load(f)) "
             "for f in set(json.load(open('pytorch_model.bin.index.json'))['weight_map'].values())]; "
             "s.save_file({k: v.clone() for k, v in t.items()}, 'model.safetensors', {'format': 'pt'})\"\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "pytorch_model.bin.index.json");
}

/* A checkpoint without lm_head.weight (a tied model's: here Qwen2's fixture) under a config.json that unties it:
 * transformers would draw a random lm_head, so it is refused naming the key that decides (it said only
 * 'missing tensor "lm_head.weight" (config.json implies it)'), as GPT-2 folders are (test_model_cli). */
static void test_untied_config_without_lm_head(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "ut");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "qwen2_f32", AV_ST_F32);
    char path[4400], st[4400], want[4800];
    snprintf(path, sizeof path, "%s/config.json", model);
    snprintf(st, sizeof st, "%s/model.safetensors", model);
    char *json = tu_slurp_file(path, NULL);
    assert_non_null(json);
    assert_int_equal(tu_write_replaced(path, json, "\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false"), 0);
    snprintf(want, sizeof want, "attnviz: error: %s: missing tensor \"lm_head.weight\": config.json's "
             "tie_word_embeddings is false (transformers' default when absent), so the output layer is its own tensor "
             "(transformers would draw a random one); allowed: tie_word_embeddings true to use "
             "model.embed_tokens.weight, or a checkpoint with lm_head.weight\n", tu_sh_word(st));
    expect_model_refused(model, want, 0, "untied, no lm_head");
    free(json);
}

/* head_dim's messages name the keys and the arithmetic: an odd hidden_size / num_attention_heads with no head_dim
 * key said "head_dim 17 must be even and equal hidden_size / num_attention_heads = 17", which reads as a
 * contradiction; now the derived value, why it must be even (RoPE) and the hidden_size values that would do. A
 * head_dim other than the split is refused as such. */
static void test_head_dim_messages_name_the_keys(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "hd");
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    assert_non_null(json);
    static const char *const cases[][2] = {
        {"\"hidden_size\": 68", "the derived head_dim = hidden_size / num_attention_heads = 68 / 4 = 17 is odd; RoPE "
                                 "rotates pairs of dimensions, so it must be even (allowed: hidden_size a multiple of "
                                 "2·num_attention_heads = 8: 64 or 72)"},
        {"\"hidden_size\": 68, \"head_dim\": 17", "head_dim = hidden_size / num_attention_heads = 68 / 4 = 17 is odd; "
                                                "RoPE rotates pairs of dimensions, so it must be even (allowed: "
                                                "hidden_size a multiple of 2·num_attention_heads = 8: 64 or 72)"},
        {"\"hidden_size\": 4", "the derived head_dim = hidden_size / num_attention_heads = 4 / 4 = 1 is odd; RoPE "
                                "rotates pairs of dimensions, so it must be even (allowed: hidden_size a multiple of "
                                "2·num_attention_heads = 8: 8)"},
        {"\"hidden_size\": 64, \"head_dim\": 32", "head_dim 32 is not supported: attnviz needs head_dim = hidden_size / "
                                                "num_attention_heads = 64 / 4 = 16 (allowed: 16, or no head_dim key)"},
        /* head_dim 0 was taken as no key (exit 0, the trace ran with head_dim 16): transformers' LlamaConfig keeps
         * it ("head_dim if head_dim is not None else hidden_size // num_attention_heads"), so LlamaAttention's
         * q_proj would be (4·0, 64) = (0, 64), and these weights' (64, 64) would not load */
        {"\"hidden_size\": 64, \"head_dim\": 0", "head_dim 0 is not supported: attnviz needs head_dim = hidden_size / "
                                               "num_attention_heads = 64 / 4 = 16 (allowed: 16, or no head_dim key)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(tu_write_replaced(path, json, "\"hidden_size\": 64", cases[i][0]), 0);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        char want[4800];
        snprintf(want, sizeof want, "attnviz: error: %s: %s\n", tu_sh_word(path), cases[i][1]);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d: %s", cases[i][0], r.code, r.err);
        tu_free(&r);
    }
    free(json);
}

/* config.json keys that change the forward pass and that attnviz does not implement are refused, naming the key,
 * its value and what is allowed: partial_rotary_factor 0.5 (transformers' default RoPE then rotates
 * int(head_dim · 0.5) = 8 of the 16 dimensions of each head) ran full RoPE with no word, exit 0, and so did
 * rope_parameters' (transformers 5), a Qwen2 layer_types with a "sliding_attention" layer, and an
 * "attention_bias": 1 that transformers reads as true (a tester's report). The values that mean what attnviz runs
 * (1, "full_attention" for every layer, false) run and give the plain run's output. */
static void test_unimplemented_config_keys_are_refused(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "cfgkeys");
    char path[4400];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    assert_non_null(json);
    static const char *const cases[][2] = {
        {"\"partial_rotary_factor\": 0.5", "partial_rotary_factor 0.5 is not supported: attnviz's RoPE rotates all "
                                           "head_dim dimensions of each head (allowed: 1 or absent)"},
        {"\"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 10000.0, \"partial_rotary_factor\": 0.25}",
         "rope_parameters.partial_rotary_factor 0.25 is not supported: attnviz's RoPE rotates all head_dim dimensions "
         "of each head (allowed: 1 or absent)"},
        {"\"partial_rotary_factor\": \"half\"", "partial_rotary_factor \"half\" is not supported: attnviz's RoPE "
                                              "rotates all head_dim dimensions of each head (allowed: 1 or absent)"},
        /* null is no default: transformers takes 1.0 for a missing key only, then int(head_dim * None) is a
         * TypeError; it ran full RoPE with exit 0 and was listed as allowed (a Llama user's pass) */
        {"\"partial_rotary_factor\": null", "partial_rotary_factor is null; it must be 1, or the key left out for "
                                            "transformers' default 1 (transformers keeps a null and fails on "
                                            "int(head_dim · partial_rotary_factor) with a TypeError)"},
        {"\"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 10000.0, \"partial_rotary_factor\": null}",
         "rope_parameters.partial_rotary_factor is null; it must be 1, or the key left out for transformers' default 1 "
         "(transformers keeps a null and fails on int(head_dim · partial_rotary_factor) with a TypeError)"},
        {"\"layer_types\": [\"full_attention\", \"sliding_attention\"], \"sliding_window\": 4",
         "layer_types[1] \"sliding_attention\" is not supported: attnviz runs full causal attention in every layer "
         "(allowed: \"full_attention\" for every layer, null or absent)"},
        {"\"layer_types\": \"full_attention\"",
         "\"layer_types\" is \"full_attention\"; it must be a list of \"full_attention\", one per layer, or null"},
        /* one entry per layer, as transformers' layer type validation asks: the fixture has num_hidden_layers 2
         * (gen_llama_ref.py), and a list of 1, 0 or 3 ran with exit 0 */
        {"\"layer_types\": [\"full_attention\"]", "layer_types has 1 entry but num_hidden_layers is 2 (allowed: one "
                                                  "\"full_attention\" per layer, null or absent)"},
        {"\"layer_types\": []", "layer_types has 0 entries but num_hidden_layers is 2 (allowed: one \"full_attention\" "
                                "per layer, null or absent)"},
        {"\"layer_types\": [\"full_attention\", \"full_attention\", \"full_attention\"]",
         "layer_types has 3 entries but num_hidden_layers is 2 (allowed: one \"full_attention\" per layer, null or "
         "absent)"},
        {"\"attention_bias\": 1", "\"attention_bias\" is 1; it must be false, null or 0 (a true value is not supported)"},
        {"\"mlp_bias\": \"no\"", "\"mlp_bias\" is \"no\"; it must be false, null or 0 (a true value is not supported)"},
        {"\"mlp_bias\": true", "\"mlp_bias\": true is not supported (allowed: false)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char to[512];
        snprintf(to, sizeof to, "\"rope_scaling\": null, %s", cases[i][0]);
        assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null", to), 0);
        char want[4800];
        snprintf(want, sizeof want, "attnviz: error: %s: %s\n", tu_sh_word(path), cases[i][1]);
        expect_model_refused(model, want, 0, cases[i][0]);
    }
    /* a Qwen2 folder the same: Qwen2Config refuses ["full_attention"] for 2 layers */
    const char *qwen = tu_in(f, "cfgkeys_qwen2");
    assert_int_equal(mkdir(qwen, 0700), 0);
    make_folder(qwen, "qwen2_f32", AV_ST_F32);
    char qpath[4400], qwant[4800];
    snprintf(qpath, sizeof qpath, "%s/config.json", qwen);
    char *qjson = tu_slurp_file(qpath, NULL);
    assert_non_null(qjson);
    assert_int_equal(tu_write_replaced(qpath, qjson, "\"use_sliding_window\": false",
                                       "\"use_sliding_window\": false, \"layer_types\": [\"full_attention\"]"), 0);
    snprintf(qwant, sizeof qwant, "attnviz: error: %s: layer_types has 1 entry but num_hidden_layers is 2 (allowed: "
             "one \"full_attention\" per layer, null or absent)\n", tu_sh_word(qpath));
    expect_model_refused(qwen, qwant, 0, "qwen2 layer_types of 1");
    free(qjson);
    tu_result r;
    assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null", "\"rope_scaling\": null"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    assert_int_equal(r.code, 0);
    char *plain = strdup(r.out);
    tu_free(&r);
    assert_int_equal(tu_write_replaced(path, json, "\"rope_scaling\": null",
                                       "\"rope_scaling\": null, \"partial_rotary_factor\": 1.0, \"attention_bias\": false, "
                                       "\"mlp_bias\": null, \"layer_types\": [\"full_attention\", \"full_attention\"], "
                                       "\"use_sliding_window\": 0"), 0);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "3", SENTENCE, NULL);
    if (r.code != 0) fail_msg("the values attnviz runs: exit %d: %s", r.code, r.err);
    assert_string_equal(r.out, plain);
    tu_free(&r);
    free(plain);
    free(json);
}

/* A grouped-query checkpoint whose config.json lacks num_key_value_heads (or has it null) runs with
 * num_attention_heads K/V heads, transformers' default, so its k_proj has fewer rows than that implies: the
 * message said only "has shape (32, 64); config.json implies nn.Linear (out, in) = (64, 64)" and named no key (a
 * tester's report). It names the key, the default and the line to write: the fixtures have H = 4, C = 64, so
 * head_dim 16, and 2 K/V heads, so k_proj is (2·16, 64) = (32, 64) where 4 K/V heads imply (64, 64). */
static void test_missing_kv_heads_is_named(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *model, *to, *config_says, *default_is; } cases[] = {
        {"llama_f32", "", "has no num_key_value_heads", "transformers' default: one K/V head per query head"},
        {"llama_f32", "\"num_key_value_heads\": null,", "has num_key_value_heads null",
         "transformers' default: one K/V head per query head"},
        {"qwen2_f32", "", "has no num_key_value_heads", "LlamaConfig's default; transformers' Qwen2Config would take 32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[16], path[4400];
        snprintf(name, sizeof name, "kv%zu", i);
        const char *model = tu_in(f, name);
        assert_int_equal(mkdir(model, 0700), 0);
        make_folder(model, cases[i].model, AV_ST_F32);
        snprintf(path, sizeof path, "%s/config.json", model);
        char *json = tu_slurp_file(path, NULL);
        assert_non_null(json);
        assert_int_equal(tu_write_replaced(path, json, "\"num_key_value_heads\": 2,", cases[i].to), 0);
        free(json);
        char want[4800];
        snprintf(want, sizeof want, "attnviz: error: %s: tensor \"model.layers.0.self_attn.k_proj.weight\" "
                 "has shape (32, 64), but config.json %s, so attnviz takes num_attention_heads = 4 K/V heads (%s), which "
                 "implies nn.Linear (out, in) = (64, 64); 32 rows are 2 K/V heads of head_dim 16: write "
                 "\"num_key_value_heads\": 2 in config.json\n", sh_in(model, "model.safetensors"), cases[i].config_says, cases[i].default_is);
        expect_model_refused(model, want, 0, name);
    }
}

/* A config.json that gives a wrong num_key_value_heads got the same message that named no key: "has shape
 * (16, 32); config.json implies nn.Linear (out, in) = (32, 32)" for 4 on a checkpoint of 2 K/V heads (a Llama
 * user's pass). Worked by hand: the fixtures have C = 64 and H = 4, so head_dim = 64 / 4 = 16, and 2 K/V heads,
 * so k_proj is (2·16, 64) = (32, 64); a config.json's 4 implies (4·16, 64) = (64, 64), its 1 (1·16, 64) =
 * (16, 64), and 32 rows / 16 = 2 K/V heads either way. */
static void test_wrong_kv_heads_is_named(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *model; int kv; const char *implies; } cases[] = {
        {"llama_f32", 4, "(64, 64)"}, {"llama_f32", 1, "(16, 64)"}, {"qwen2_f32", 4, "(64, 64)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[16], path[4400], to[64];
        snprintf(name, sizeof name, "kvw%zu", i);
        const char *model = tu_in(f, name);
        assert_int_equal(mkdir(model, 0700), 0);
        make_folder(model, cases[i].model, AV_ST_F32);
        snprintf(path, sizeof path, "%s/config.json", model);
        char *json = tu_slurp_file(path, NULL);
        assert_non_null(json);
        snprintf(to, sizeof to, "\"num_key_value_heads\": %d,", cases[i].kv);
        assert_int_equal(tu_write_replaced(path, json, "\"num_key_value_heads\": 2,", to), 0);
        free(json);
        char want[4800];
        snprintf(want, sizeof want, "attnviz: error: %s: tensor \"model.layers.0.self_attn.k_proj.weight\" "
                 "has shape (32, 64), but config.json's num_key_value_heads %d (K/V heads of head_dim = hidden_size / "
                 "num_attention_heads = 64 / 4 = 16) implies nn.Linear (out, in) = %s; its 32 rows are 2 K/V heads of "
                 "head_dim 16: write \"num_key_value_heads\": 2 in config.json (if num_attention_heads 4 is right)\n",
                 sh_in(model, "model.safetensors"), cases[i].kv, cases[i].implies);
        expect_model_refused(model, want, 0, name);
    }
}

/* --generate stops after config.json's eos_token_id on a Llama too, as
 * Hugging Face's generate does (it went on: only GPT-2 folders stopped). The
 * fixture's config says 2, which the tiny model does not pick; here the id
 * the model picks second is named the end, once as an id and once in a list
 * (Llama 3.1's form), and once last in a list of 12 ids (more than
 * the 8 once kept), and the run stops there. */
static void test_llama_generate_stops_at_eos(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "4", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *line = strstr(r.out, "\n              ids:");
    int id[4];
    if (!line || sscanf(line, "\n              ids: %d %d %d %d", &id[0], &id[1], &id[2], &id[3]) != 4)
        fail_msg("no ids line:\n%s", r.out);
    tu_free(&r);
    int stop = id[0] == id[1] ? 1 : 2; /* the first generated token with the id */
    if (id[1] == 2) skip(); /* the fixture's own eos already: nothing to show */
    char path[4400], to[3][160], want[256];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    assert_non_null(json);
    snprintf(to[0], sizeof to[0], "\"eos_token_id\": %d", id[1]);
    snprintf(to[1], sizeof to[1], "\"eos_token_id\": [50256, %d]", id[1]);
    /* a list of 12 ids of the vocabulary (more than the 8 once kept: refused as "it must be a token id, a list
     * of them, or null", though it is one), the stop id last */
    int k = snprintf(to[2], sizeof to[2], "\"eos_token_id\": [");
    for (int v = 3, n = 0; n < 11; v++)
        if (v != id[0] && v != id[1]) k += snprintf(to[2] + k, sizeof to[2] - (size_t)k, "%d, ", v), n++;
    snprintf(to[2] + k, sizeof to[2] - (size_t)k, "%d]", id[1]);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tu_write_replaced(path, json, "\"eos_token_id\": 2", to[i]), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "4", SENTENCE, NULL);
        if (r.code != 0) fail_msg("%s: exit %d: %s", to[i], r.code, r.err);
        snprintf(want, sizeof want, "greedy, %d token%s after the input", stop, stop == 1 ? "" : "s");
        if (!strstr(r.out, want)) fail_msg("%s: want '%s' in:\n%s", to[i], want, r.out);
        snprintf(want, sizeof want, "(%s %d in config.json), where Hugging Face's generate stops too\n",
                 i ? "one of eos_token_id's ids," : "eos_token_id", id[1]);
        if (!strstr(r.out, want)) fail_msg("%s: want '%s' in:\n%s", to[i], want, r.out);
        tu_free(&r);
    }
    /* an id past the vocabulary (vocab_size 50257: ids 0..50256), in config.json or in the generation_config.json
     * that decides over it, stops nothing and was left out without a word: all 4 tokens, and a note */
    char gen[4400], note[4800];
    snprintf(gen, sizeof gen, "%s/generation_config.json", model);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tu_write_replaced(path, json, "\"eos_token_id\": 2", i ? "\"eos_token_id\": 2" :
                                           "\"eos_token_id\": 50257"), 0);
        FILE *fp = i ? fopen(gen, "w") : NULL;
        if (i) assert_non_null(fp), fputs("{\"eos_token_id\": [50257]}", fp), assert_int_equal(fclose(fp), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", "--generate", "4", SENTENCE, NULL);
        snprintf(note, sizeof note, "attnviz: note: eos_token_id 50257 in %s is outside the vocabulary 0..50256 "
                 "(vocab_size 50257): no token has that id, so --generate cannot stop on it\n",
                 tu_sh_file_word(model, i ? "generation_config.json" : "config.json"));
        if (r.code != 0 || !strstr(r.out, "greedy, 4 tokens after the input") || !strstr(r.err, note))
            fail_msg("left %d: exit %d, stderr '%s'; want '%s'", i, r.code, r.err, note);
        tu_free(&r);
    }
    assert_int_equal(unlink(gen), 0);
    free(json);
}

/* A sharded folder whose index puts a tensor in the other shard: refused as a
 * bad checkpoint (exit 2, like a missing shard), naming the tensor and both
 * files (test_llama.c has every disagreement); the index as written runs. */
static void test_sharded_index_must_match_shards(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "m");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_bf16", AV_ST_BF16);
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(model, &cfg, AV_ST_BF16, 2, &err)) fail_msg("%s", err.msg);
    char *index = tu_slurp_file(src_path("tests/ref/llama/llama_bf16/model.safetensors.index.json"), NULL);
    assert_non_null(index);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", model);
    assert_int_equal(tu_write_replaced(path, index, "{", "{"), 0);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("the index as written: exit %d: %s", r.code, r.err);
    tu_free(&r);
    /* a value that is no file name in the folder: the message named the tensor only, "weight_map[\"...\"] must be
     * a file name in the folder", not the value it refused; now it quotes it, as the other refusals do */
    static const struct {
        const char *to, *shown;
    } outside[] = {
        {"\"../x/model.safetensors\"", "\"../x/model.safetensors\""},
        {"\"/tmp/model-00001-of-00002.safetensors\"", "\"/tmp/model-00001-of-00002.safetensors\""},
        {"\"..\"", "\"..\""},
        {"\".\"", "\".\""}, /* the folder itself: it was read as a shard */
        {"\"\"", "\"\""},
        {"7", "7"},
    };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        char to[200];
        snprintf(to, sizeof to, "\"model.embed_tokens.weight\": %s", outside[i].to);
        assert_int_equal(tu_write_replaced(path, index, "\"model.embed_tokens.weight\": "
                                           "\"model-00001-of-00002.safetensors\"", to), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: weight_map[\"model.embed_tokens.weight\"] is %s; it must be "
                 "a file name in the folder (no '/', not \".\" or \"..\")\n", tu_sh_word(path), outside[i].shown);
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("%s: exit %d, stderr '%s'; want '%s'", to, r.code, r.err, want);
        tu_free(&r);
    }
    /* a key of 70 x (a tensor's name) whose value is refused: AV_SHOWN(key, 109) kept 60 x with no mark; it is
     * shown whole now (utf8.h av_utf8_shown_middle keeps 199 bytes) */
    {
#define X10 "xxxxxxxxxx"
#define X70 X10 X10 X10 X10 X10 X10 X10
        assert_int_equal(tu_write_replaced(path, index, "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\"",
                                           "\"" X70 "\": \"../x\""), 0);
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
        snprintf(want, sizeof want, "attnviz: error: %s: weight_map[\"" X70 "\"] is \"../x\"; it must be a file name in "
                 "the folder (no '/', not \".\" or \"..\")\n", tu_sh_word(path));
#undef X70
#undef X10
        if (r.code != 2 || strcmp(r.err, want)) fail_msg("long key: exit %d, stderr '%s'; want '%s'", r.code, r.err, want);
        tu_free(&r);
    }
    /* a shard whose name only starts with ".." is a file in the folder, as any other name without a '/': it was
     * refused as "not starting with \"..\"". The second shard renamed so, and every one of the index's 11 values
     * naming it (tests/ref/llama/llama_bf16's index), runs as the index as written did */
    char from[4400], renamed[4400];
    snprintf(from, sizeof from, "%s/model-00002-of-00002.safetensors", model);
    snprintf(renamed, sizeof renamed, "%s/..model-00002-of-00002.safetensors", model);
    assert_int_equal(rename(from, renamed), 0);
    size_t len = strlen(index), k = 0;
    char *dotted = malloc(len + 11 * 2 + 1);
    assert_non_null(dotted);
    int values = 0;
    for (const char *p = index; *p;) { /* every "model-00002-of-00002 as "..model-00002-of-00002 */
        if (strncmp(p, "\"model-00002-of-00002", 21) == 0) memcpy(dotted + k, "\"..", 3), k += 3, p++, values++;
        else dotted[k++] = *p++;
    }
    dotted[k] = 0;
    assert_int_equal(values, 11);
    assert_int_equal(tu_write_replaced(path, dotted, "{", "{"), 0);
    free(dotted);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    if (r.code != 0) fail_msg("a shard named ..model-00002-of-00002.safetensors: exit %d: %s", r.code, r.err);
    tu_free(&r);
    assert_int_equal(rename(renamed, from), 0);
    assert_int_equal(tu_write_replaced(path, index, "\"model.layers.0.mlp.up_proj.weight\": \"model-00001-of-00002",
                                       "\"model.layers.0.mlp.up_proj.weight\": \"model-00002-of-00002"), 0);
    free(index);
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: %s: model-00001-of-00002.safetensors holds tensor "
             "\"model.layers.0.mlp.up_proj.weight\", which weight_map puts in model-00002-of-00002.safetensors\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    tu_free(&r);
}

/* A shard model.safetensors.index.json names but the folder lacks is named with the index that names it, and
 * the download called incomplete; it said "cannot read 'DIR/model-00002-of-00002.safetensors': No such file or
 * directory". A shard whose download stopped (its .incomplete file) is called so. */
static void test_missing_shard_names_the_index(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "m");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_bf16", AV_ST_BF16);
    char path[4400], to[4400], want[9000];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(model, &cfg, AV_ST_BF16, 2, &err)) fail_msg("%s", err.msg);
    char *index = tu_slurp_file(src_path("tests/ref/llama/llama_bf16/model.safetensors.index.json"), NULL);
    assert_non_null(index);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", model);
    assert_int_equal(tu_write_replaced(path, index, "{", "{"), 0);
    free(index);
    snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", model);
    snprintf(to, sizeof to, "%s/model-00002-of-00002.safetensors.incomplete", model);
    assert_int_equal(rename(path, to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model-00002-of-00002.safetensors, but holds "
             "model-00002-of-00002.safetensors.incomplete, the partial file of a download that did not finish; run the "
             "download again to finish it (hf download resumes where it stopped)\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "a partial shard");
    assert_int_equal(unlink(to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s: model.safetensors.index.json names the shard "
             "model-00002-of-00002.safetensors, which is not in the folder (1 of its 2 shards is); the download may be "
             "incomplete: fetch the missing shard (e.g. hf download REPO_ID "
             "model-00002-of-00002.safetensors --local-dir FOLDER)\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "a missing shard");
}

/* A folder with the shards save_pretrained writes but not their index says it found them and that only
 * model.safetensors.index.json is missing: it said "has no model.safetensors, nor a
 * model.safetensors.index.json naming its shards", as of a folder with no weights at all. */
static void test_shards_without_their_index(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "m");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_bf16", AV_ST_BF16);
    char path[4400], want[4800];
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(model, &cfg, AV_ST_BF16, 2, &err)) fail_msg("%s", err.msg);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, and its 2 shard files "
             "(model-00001-of-00002.safetensors, ...) have no model.safetensors.index.json, the map of which shard "
             "holds each tensor; save_pretrained writes it with the shards: copy it from where they came from (it is "
             "part of the download), or save the model again\n", tu_sh_word(model));
    expect_model_refused(model, want, 0, "shards without index");
    snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, and its 1 shard file "
             "(model-00001-of-00002.safetensors) has no model.safetensors.index.json,", tu_sh_word(model));
    expect_model_refused(model, want, 1, "one shard");
    /* a shard's name of 73 bytes, named whole: AV_SHOWN(shard, 89) kept its first 40 bytes with no mark */
    char to[4400];
    snprintf(path, sizeof path, "%s/model-00001-of-00002.safetensors", model);
    snprintf(to, sizeof to, "%s/model-00001-of-00002-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.safetensors", model);
    assert_int_equal(rename(path, to), 0);
    snprintf(want, sizeof want, "attnviz: error: --model %s has no model.safetensors, and its 1 shard file "
             "(model-00001-of-00002-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.safetensors) has no "
             "model.safetensors.index.json,", tu_sh_word(model));
    expect_model_refused(model, want, 1, "long shard name");
}

/* The shards' message cuts a long folder name at a whole character: "--model %.120s" cut a name whose 120th
 * byte is inside '中' between its bytes, so the error held a broken character (shown as U+FFFD). The folder is
 * now one shell word of at most 168 bytes (AV_SHOWN_WORD(dir, 120 + 49)); a path of the fixture's folder, 30
 * 'm' and 60 '中' (180 bytes more) is cut there, whatever TMPDIR is: the word printed is the path's start (in
 * quotes when the path needs them), shorter than the path, and ends after a whole '中' (its 'm' and a multiple
 * of 3 bytes of '中'), with "..." after it to say it was cut (utf8.h av_shown_word). */
static void test_shards_message_cuts_the_folder_at_a_character(void **state) {
    tu_fixture *f = *state;
    char model[4400], path[4600];
    size_t n = (size_t)snprintf(model, sizeof model, "%s/mmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", f->dir);
    for (int i = 0; i < 60; i++) n += (size_t)snprintf(model + n, sizeof model - n, "\xE4\xB8\xAD");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_bf16", AV_ST_BF16);
    snprintf(path, sizeof path, "%s/model.safetensors", model);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(model, &cfg, AV_ST_BF16, 2, &err)) fail_msg("%s", err.msg);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "-q", SENTENCE, NULL);
    const char *lead = "attnviz: error: --model ", *rest = strstr(r.err, " has no model.safetensors, and its 2 shard");
    if (r.code != 2 || strncmp(r.err, lead, strlen(lead)) || !rest) fail_msg("exit %d: %s", r.code, r.err);
    const char *word = r.err + strlen(lead);
    size_t len = (size_t)(rest - word), at = strlen(f->dir) + 31; /* at: the first '中' */
    assert_true(len <= 168); /* AV_SHOWN_WORD(dir, 120 + 49): the word, quotes and '\'' included, in 168 bytes */
    assert_true(len > 3 && strncmp(word + len - 3, "...", 3) == 0); /* and "..." after it says it was cut */
    len -= 3;
    int cut = 0; /* the word is tu_sh_word of the folder cut after a whole '中' (under TMPDIR="/tmp/it's" the
                  * folder's ' is '\'' in the word, so the word is no byte prefix of the folder) */
    char part[4400];
    for (size_t k = at + 3; k < strlen(model) && !cut; k += 3) {
        snprintf(part, sizeof part, "%.*s", (int)k, model);
        const char *w = tu_sh_word(part);
        cut = strlen(w) == len && strncmp(w, word, len) == 0;
    }
    if (!cut) fail_msg("the folder is not cut after a whole character, as one shell word (%zu bytes): %s", len, r.err);
    tu_free(&r);
}

/* A sharded folder as a download leaves it: config.json, tokenizer.json,
 * model-00001-of-00002.safetensors, model-00002-of-00002.safetensors in
 * dtype, and the index (tests/ref/llama/llama_bf16's; the split is the same
 * for every dtype). */
static void make_sharded(const char *dir, av_st_dtype dtype) {
    char path[4400];
    assert_int_equal(mkdir(dir, 0700), 0);
    make_folder(dir, "llama_bf16", dtype);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    assert_int_equal(unlink(path), 0);
    char *json = tu_slurp_file(src_path("tests/ref/llama/llama_bf16/config.json"), NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(dir, &cfg, dtype, 2, &err)) fail_msg("%s", err.msg);
    char *index = tu_slurp_file(src_path("tests/ref/llama/llama_bf16/model.safetensors.index.json"), NULL);
    assert_non_null(index);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    assert_int_equal(tu_write_replaced(path, index, "{", "{"), 0);
    free(index);
}

/* A download that replaces a sharded folder's shards while attnviz reads it
 * (the single file of a folder is test_model_cli's
 * test_model_folder_replaced_while_read): the shards were not among the
 * files noted before and after a load, so shard 1 of one version and shard
 * 2 of the next made one model, exit 0, its trace "F32 and BF16 in 2
 * safetensors files". The shim (tests/shim_swap.c) renames version B's two
 * shards (F32) over version A's (BF16) when shard 2 is opened, shard 1 read
 * by then. Now the load is made again and reads B alone ("F32 in 2"); a
 * folder that changes on every load is exit 1 naming the shard. */
static void test_shards_replaced_while_read(void **state) {
    tu_fixture *f = *state;
    char preload[4300], asan[4300], a_env[4300], b_env[4300];
    if (!tu_shim_env("shim_swap.so", preload, asan)) return;
    char a[4200], b[4200], dir[4200];
    snprintf(a, sizeof a, "%s", tu_in(f, "a"));
    snprintf(b, sizeof b, "%s", tu_in(f, "b"));
    make_sharded(a, AV_ST_BF16);
    make_sharded(b, AV_ST_F32);
    snprintf(a_env, sizeof a_env, "SHIM_SWAP_A=%s", a);
    snprintf(b_env, sizeof b_env, "SHIM_SWAP_B=%s", b);
    const char *on = "SHIM_SWAP_ON=model-00002-of-00002.safetensors";
    const char *names = "SHIM_SWAP_NAMES=model-00001-of-00002.safetensors:model-00002-of-00002.safetensors";
    const char *times[] = {"SHIM_SWAP_TIMES=1", "SHIM_SWAP_TIMES=1000"};
    for (int k = 0; k < 2; k++) {
        snprintf(dir, sizeof dir, "%s", tu_in(f, k ? "dir2" : "dir1"));
        make_sharded(dir, AV_ST_BF16); /* version A again: the first swap brings B, other inodes */
        const char *env[] = {preload, asan, a_env, b_env, on, names, times[k], NULL};
        const char *args[] = {"--model", dir, "--no-plot", SENTENCE, NULL};
        tu_result r;
        tu_runv(&r, NULL, env, args);
        if (k == 0) {
            if (r.code != 0) fail_msg("one swap: exit %d, stderr: %s", r.code, r.err);
            assert_string_equal(r.err, "");
            if (!strstr(r.out, ": F32 in 2 safetensors files"))
                fail_msg("the model is not version B's alone:\n%.2000s", r.out);
        } else {
            char want[4600];
            snprintf(want, sizeof want, "attnviz: error: %s changed while it was being read (its "
                     "model-00001-of-00002.safetensors, on each of 3 tries; is a download writing it?); try again "
                     "when it is done\n", dir);
            if (r.code != 1) print_message("exit %d, stderr: %s\n", r.code, r.err);
            assert_int_equal(r.code, 1);
            assert_string_equal(r.err, want);
        }
        tu_free(&r);
    }
}

/* A model_type attnviz has no forward for is refused by name, not read as
 * GPT-2 ("missing key n_layer"); options the model fixes name no family. */
static void test_unsupported_model_type(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    char path[4400], want[4600];
    snprintf(path, sizeof path, "%s/config.json", model);
    char *json = tu_slurp_file(path, NULL);
    assert_int_equal(tu_write_replaced(path, json, "\"llama\"", "\"mistral\""), 0);
    free(json);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "hi", NULL);
    assert_int_equal(r.code, 2);
    snprintf(want, sizeof want, "attnviz: error: %s: model_type \"mistral\" is not supported (allowed: gpt2, llama, "
             "qwen2)\n", tu_sh_word(path));
    assert_string_equal(r.err, want);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", model, "--causal", "--no-plot", "hi", NULL);
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attnviz: error: --causal cannot be used with --model: the model always uses the causal mask\n");
    tu_free(&r);
}

/* A Llama or Qwen2 folder whose config.json says model_type "gpt2" (or "attnviz_gpt2", or has no model_type,
 * which is read as GPT-2's as older GPT-2 exports lack it) was told 'config.json: missing key "n_layer"
 * (GPT2Config needs ...)' (a learner's pass): the key, its value, what the folder holds and what is allowed,
 * "qwen2" where q_proj has a bias. Another family's model_type keeps its "not supported" message (above). */
static void test_model_type_of_the_other_family(void **state) {
    tu_fixture *f = *state;
    static const struct {
        const char *model, *from, *to, *said, *allowed;
    } rows[] = {
        {"llama_f32", "\"model_type\": \"llama\",", "\"model_type\": \"gpt2\",", "config.json's model_type is \"gpt2\"",
         "\"llama\" for this folder, whose q_proj has no bias as a Llama's"},
        {"llama_f32", "\"model_type\": \"llama\",", "\"model_type\": \"attnviz_gpt2\",",
         "config.json's model_type is \"attnviz_gpt2\"", "\"llama\" for this folder, whose q_proj has no bias as a Llama's"},
        {"llama_f32", "\"model_type\": \"llama\",", "", "config.json has no model_type (read as GPT-2's)",
         "\"llama\" for this folder, whose q_proj has no bias as a Llama's"},
        {"qwen2_f32", "\"model_type\": \"qwen2\",", "", "config.json has no model_type (read as GPT-2's)",
         "\"qwen2\" for this folder, whose q_proj has a bias as a Qwen2's"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char name[16], path[4400], want[9000];
        snprintf(name, sizeof name, "m%zu", i);
        const char *model = tu_in(f, name);
        assert_int_equal(mkdir(model, 0700), 0);
        make_folder(model, rows[i].model, AV_ST_F32);
        snprintf(path, sizeof path, "%s/config.json", model);
        char *json = tu_slurp_file(path, NULL);
        assert_int_equal(tu_write_replaced(path, json, rows[i].from, rows[i].to), 0);
        free(json);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", "hi", NULL);
        snprintf(want, sizeof want, "attnviz: error: --model %s: %s, but the folder holds a Llama/Qwen2 (config.json's "
                 "hidden_size, num_hidden_layers; model.safetensors' model.embed_tokens.weight); allowed: %s (\"gpt2\" "
                 "is for a GPT-2 folder: n_layer, wte.weight)\n", tu_sh_word(model), rows[i].said, rows[i].allowed);
        if (r.code != 2 || strcmp(r.err, want))
            fail_msg("%s with %s: exit %d, stderr '%s'; want exit 2 and '%s'", rows[i].model, rows[i].to[0] ? rows[i].to :
                     "no model_type", r.code, r.err, want);
        tu_free(&r);
    }
}

/* Options the model fixes are refused in the words of the model loaded:
 * --causal names a Llama or a Qwen2 model, never "a GPT-2 model". */
static void test_options_name_the_family(void **state) {
    tu_fixture *f = *state;
    const char *const folders[2] = {"llama_f32", "qwen2_bf16"}, *const family[2] = {"a Llama model", "a Qwen2 model"};
    for (int k = 0; k < 2; k++) {
        const char *model = tu_in(f, folders[k]);
        assert_int_equal(mkdir(model, 0700), 0);
        make_folder(model, folders[k], k ? AV_ST_BF16 : AV_ST_F32);
        char want[128];
        snprintf(want, sizeof want, "attnviz: error: --causal cannot be used with --model: %s always uses the causal "
                 "mask\n", family[k]);
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--causal", "--no-plot", SENTENCE, NULL);
        assert_int_equal(r.code, 2);
        assert_string_equal(r.err, want);
        tu_free(&r);
        run_attnviz(&r, NULL, "--model", model, "--rope-base", "500", "--no-plot", SENTENCE, NULL);
        assert_int_equal(r.code, 2);
        snprintf(want, sizeof want, "--rope-base cannot be used with --model: %s fixes its positions", family[k]);
        assert_non_null(strstr(r.err, want));
        tu_free(&r);
    }
}

/* The PNG Title of out/<file>, owned by the caller. */
static char *png_title(const char *path) {
    av_png_image img;
    av_err e = {{0}};
    if (av_png_read_texts(path, &img, &e)) fail_msg("%s", e.msg);
    const char *t = av_png_image_text(&img, "Title");
    assert_non_null(t);
    char *copy = strdup(t);
    av_png_image_free(&img);
    return copy;
}

/* A Llama's pe.png says what every other figure says: the model, its positions (Hugging Face
 * checkpoints are rotate-half) and the causal mask. Its title read "(null) · positions:  · mask:
 * (null)": the --model figures never filled the parts the single layer's titles share. */
static void test_model_pe_title_names_model_positions_and_mask(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "-q", "-o", tu_in(f, "out"), "--figures", "pe", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *title = png_title(tu_in(f, "out/pe.png"));
    char want[4400];
    snprintf(want, sizeof want, " · model %s (F32", model);
    static const char *const must[] = {"positions: RoPE (half)", "· mask: causal"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(title, must[i])) fail_msg("pe.png's Title lacks '%s':\n%s", must[i], title);
    if (!strstr(title, want)) fail_msg("pe.png's Title lacks '%s':\n%s", want, title);
    if (strstr(title, "(null)")) fail_msg("pe.png's Title says (null):\n%s", title);
    free(title);
}

/* --explain on a Llama layer points at the files --dump writes for a model, scores.npy and attn.npy
 * (L, H, T, T), with the layer first, and the value it prints is the numpy reference's
 * (tests/ref/llama/llama_f32/attn.npy). It named "weights.npy[0, 3, 1]", a single layer's file. Without
 * --dump it names no file. */
static void test_llama_explain_points_at_the_model_dump(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    /* without --dump no file is named: attn.npy and scores.npy were never written (a teacher's pass) */
    run_attnviz(&r, NULL, "--model", model, "-q", "--no-plot", "--layer", "0", "--head", "1", "--explain", "3,1",
                SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "A[1, 3, 1] = exp("));
    if (strstr(r.out, ".npy")) fail_msg("a file named without --dump:\n%s", r.out);
    tu_free(&r);
    run_attnviz(&r, NULL, "--model", model, "-q", "--no-plot", "--layer", "0", "--head", "1", "--explain", "3,1",
                "--dump", tu_in(f, "d"), SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "(= scores.npy[0, 1, 3, 1])"));
    const char *a = strstr(r.out, "A[1, 3, 1] = exp(");
    assert_non_null(a);
    a = strstr(a, ") / ");
    assert_non_null(a);
    double got = 0;
    assert_int_equal(sscanf(strstr(a, " = ") + 3, "%lf", &got), 1);
    assert_non_null(strstr(a, "(= attn.npy[0, 1, 3, 1])"));
    assert_null(strstr(r.out, "weights.npy"));
    av_npy ref;
    av_err err = {{0}};
    if (av_npy_read(&ref, src_path("tests/ref/llama/llama_f32/attn.npy"), &err)) fail_msg("%s", err.msg);
    int T = (int)ref.shape[2]; /* (L, H, T, T) */
    double want = ref.data[((size_t)(0 * 4 + 1) * T + 3) * T + 1];
    printf("    --explain 3,1 layer 0 head 1: %.9g, numpy %.9g\n", got, want);
    assert_true(fabs(got - want) <= 1e-4);
    av_npy_free(&ref);
    tu_free(&r);
}

/* The k line of --explain on a grouped-query layer (4 query heads, 2 K/V heads: Ainslie et al. 2023,
 * Hugging Face's repeat_kv) names the K/V head it reads, h / (H / KVH): query heads 0 and 1 print the
 * same k_1, head 2 another one. It printed K[1, 1, :] with no word that head 1 has no K of its own. */
static char *explain_k_line(const char *model, const char *head, char *note, size_t n) {
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "-q", "--no-plot", "--layer", "0", "--head", head, "--explain", "3,1",
                SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    const char *k = strstr(r.out, "  k_1 = K[");
    assert_non_null(k);
    k = strstr(k, "] = ");
    assert_non_null(k);
    char *line = strndup(k + 4, strcspn(k + 4, "\n"));
    const char *g = strstr(r.out, "grouped-query attention:");
    snprintf(note, n, "%.*s", g ? (int)strcspn(g, ")") : 0, g ? g : "");
    tu_free(&r);
    return line;
}

static void test_llama_explain_names_the_shared_kv_head(void **state) {
    tu_fixture *f = *state;
    const char *model = tu_in(f, "m");
    assert_int_equal(mkdir(model, 0700), 0);
    make_folder(model, "llama_f32", AV_ST_F32); /* num_attention_heads 4, num_key_value_heads 2 */
    char n0[512], n1[512], n2[512];
    char *k0 = explain_k_line(model, "0", n0, sizeof n0), *k1 = explain_k_line(model, "1", n1, sizeof n1),
         *k2 = explain_k_line(model, "2", n2, sizeof n2);
    assert_string_equal(k0, k1);
    assert_string_not_equal(k1, k2);
    assert_non_null(strstr(n1, "K/V head 0's, k_proj/v_proj rows 0…15"));
    assert_non_null(strstr(n1, "shared by query heads 0–1: K[0…1, 1, :] are the same numbers"));
    assert_non_null(strstr(n2, "K/V head 1's, k_proj/v_proj rows 16…31"));
    assert_non_null(strstr(n2, "shared by query heads 2–3"));
    free(k0), free(k1), free(k2);
}

/* --model --compare scale runs layer L (--layer): the table and the figure's title say which layer,
 * as every other --model figure does ("layer 0, head 1 of 4"); they named the head alone. */
static void test_model_compare_scale_names_the_layer(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "-q", "-o", tu_in(f, "out"), "--layer", "0", "--head", "1", "--compare",
                "scale", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    if (!strstr(r.out, "--compare scale: same sentence, layer 0, same input and weights, all 4 heads"))
        fail_msg("the table does not name layer 0:\n%s", r.out);
    tu_free(&r);
    char *title = png_title(tu_in(f, "out/compare_scale.png"));
    if (!strstr(title, "--compare scale: layer 0, head 1 of 4 under each setting"))
        fail_msg("compare_scale.png's Title does not name layer 0:\n%s", title);
    free(title);
}

/* With --model, --show prints layer L's head --head alone (README: "--layer L --head H with
 * --explain Q,K, --show or --compare scale works on one real head"), so --head has an effect and
 * gets no "has no effect ... --show draws every head" warning, which it got with --no-plot. */
static void test_model_show_head_is_not_warned_unused(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "-q", "--no-plot", "--layer", "0", "--head", "2", "--show", SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "head 2 of 4: attention weights"));
    assert_null(strstr(r.out, "head 0 of 4"));
    if (strstr(r.err, "has no effect")) fail_msg("--head warned unused:\n%s", r.err);
    tu_free(&r);
    /* the single layer's --show prints --head alone too (test_cli test_show_prints_the_head_given) */
    run_attnviz(&r, NULL, "--heads", "2", "--d-model", "8", "--head", "1", "--show", "--no-plot", "-q", "a b", NULL);
    assert_int_equal(r.code, 0);
    assert_null(strstr(r.err, "has no effect"));
    assert_non_null(strstr(r.out, "head 1 of 2: attention weights"));
    assert_null(strstr(r.out, "head 0 of 2"));
    tu_free(&r);
}

/* The --html page of a Llama names its normalisation as the trace does (RMSNorm, pre-norm), not
 * GPT-2's "pre-LN" (LayerNorm), which the page's run line said for every --model. */
static void test_llama_page_names_rmsnorm(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "-q", "--no-plot", "--html", "-o", tu_in(f, "out"), SENTENCE, NULL);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    tu_free(&r);
    char *page = tu_slurp_file(tu_in(f, "out/attnviz.html"), NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "mask: causal · pre-norm RMSNorm"));
    assert_null(strstr(page, "pre-LN"));
    free(page);
}

static int columns_of(const char *s, size_t n) { /* every character here is one column: one per UTF-8 lead byte */
    int w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* The positions note and step [1.3] of a Llama trace were broken by hand at about 105 columns, so at an
 * 80-column terminal the note went on raggedly: "(--rope-style interleaved); Hugging", then "Face's conversion
 * permuted the rows of W_Q and W_K so that the cheaper rotate_half gives the", then "cheaper rotate_half gives the"
 * (an 80-column line holding 35 and 29 of its columns), and step [1.3] "on Q and K; K, V repeated: query head h"
 * then "reads K/V head h/2 (GQA) ...". Each sentence is one line now, broken at the terminal's width: in a pipe the
 * note is one line, and on an 80-column pseudo-terminal every line of the note but its last is full, its next
 * line's first word not fitting after it (greedy filling, counted by hand: one column per UTF-8 lead byte). */
static void test_llama_notes_are_broken_at_the_width(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    static const char *const lines[] = {
        "\n             Meta's LLaMA code rotates interleaved pairs (2i, 2i+1) (--rope-style interleaved); Hugging Face's "
        "conversion permuted the rows of W_Q and W_K so that the cheaper rotate_half gives the same scores, so every "
        "Hugging Face Llama/Qwen2 checkpoint is stored for the half layout\n  GQA ",
        "RoPE (half, θ = 10000) on Q and K\n                     K, V repeated: query head h reads K/V head h/2 (GQA), "
        "so K, V become (4, 10, 16)\n"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (r.code != 0 || !strstr(r.out, lines[i])) fail_msg("exit %d; no line\n%s\nin:\n%s", r.code, lines[i], r.out);
    tu_free(&r);
    const char *argv[] = {tu_bin(), "--model", model, "--no-plot", SENTENCE, NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    int status = tu_run_pty(argv, 80, out, TU_CAP + 1);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tu_strip_sgr(out);
    const char *at = strstr(out, "\n             Meta's LLaMA code"), *end = at ? strstr(at, "\n  GQA ") : NULL;
    if (!end) fail_msg("no positions note:\n%s", out);
    int n_lines = 0;
    for (const char *line = at + 1; line < end;) {
        size_t n = strcspn(line, "\n");
        const char *next = line + n + 1;
        if (next < end) {
            size_t lead = strspn(next, " "), word = strcspn(next + lead, " \n");
            if (lead != 13 || columns_of(line, n) + 1 + columns_of(next + lead, word) <= 80)
                fail_msg("the note is not filled to 80 columns: \"%.*s\" then \"%.*s\":\n%s", (int)n, line,
                         (int)strcspn(next, "\n"), next, out);
        }
        n_lines++;
        line = next;
    }
    assert_true(n_lines >= 3);
    free(out);
}

/* A list of one-letter names is not broken at a terminal's width (a teacher's pass): at 80 columns step [1.3] printed
 * "K, V repeated: query head h reads K/V head h/2 (GQA), so K," (21 + 59 = 80 columns) then "V become (4, 10, 16)".
 * By hand: with "K," the line is 80 columns, so the line breaks before "K, V", after "so" (77 columns). At 40 to 80
 * columns no line ends in a capital letter and ',' with the next line going on with a capital letter alone ("K,"
 * then "V"), in step [1.2] ("K, V = h·W_Kᵀ, h·W_Vᵀ") and [1.3] ("K, V → (2, 10, 16)") too. */
static void test_llama_names_k_v_stay_together(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    const char *argv[] = {tu_bin(), "--model", model, "--no-plot", SENTENCE, NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const int widths[] = {80, 70, 60, 50, 40};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        int status = tu_run_pty(argv, widths[k], out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        tu_strip_sgr(out);
        if (widths[k] == 80 &&
            !strstr(out, "\n                     K, V repeated: query head h reads K/V head h/2 (GQA), so\n"
                         "                     K, V become (4, 10, 16)\n"))
            fail_msg("step [1.3] not broken before \"K, V\" at 80 columns:\n%s", out);
        for (const char *line = out; *line;) {
            size_t n = strcspn(line, "\n");
            const char *next = line + n + (line[n] == '\n');
            size_t lead = strspn(next, " ");
            if (n >= 3 && line[n - 3] == ' ' && isupper((unsigned char)line[n - 2]) && line[n - 1] == ',' &&
                isupper((unsigned char)next[lead]) && strchr(" ,\n", next[lead + 1]))
                fail_msg("\"%.*s\" then \"%.*s\" at %d columns:\n%s", (int)n, line, (int)strcspn(next, "\n"), next,
                         widths[k], out);
            line = next;
        }
    }
    free(out);
}

/* The table of layers of a Llama trace kept the old wide columns after the GPT-2 trace's was narrowed (e1e6eb3):
 * its header "layer   rms(x): in → out     on token 0      previous-token head    RoPE shift: worst |ΔS|" was 90
 * columns after its indent of 21 (111 in all, its rows 105), so at an 80-column terminal (a projector's large
 * font) the table was moved to column 0 and narrowed to gaps of 2, and at 60 split in two. It now has the GPT-2
 * trace's columns and note, 8 + 13 + 3 + 13 + 19 = 56 columns after the indent with the rms "0.290 → 0.335" (13),
 * and the RoPE shift of each layer is a table of its own under the RoPE evidence. The numbers are the numpy
 * reference's (tests/gen_llama_ref.py, float64): rms of hidden[l] and hidden[l + 1] (L+1, T, C), the mean of
 * attn[l, h, i, 0] over heads and queries 1..T−1, and the head with the largest mean attn[l, h, i, i − 1]. */
static void test_llama_layers_table_fits_80_columns(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    av_npy hid, att;
    av_err err = {{0}};
    if (av_npy_read(&hid, src_path("tests/ref/llama/llama_f32/hidden.npy"), &err)) fail_msg("%s", err.msg);
    if (av_npy_read(&att, src_path("tests/ref/llama/llama_f32/attn.npy"), &err)) fail_msg("%s", err.msg);
    assert_int_equal(hid.ndim, 3);
    assert_int_equal(att.ndim, 4);
    int L = att.shape[0], H = att.shape[1], T = att.shape[2], C = hid.shape[2];
    assert_int_equal(L, 2);
    char want[2048] = "                     layer   rms: in → out   on token 0   previous-token head\n";
    for (int l = 0; l < L; l++) {
        double rms[2];
        for (int k = 0; k < 2; k++) {
            double acc = 0;
            for (size_t i = 0; i < (size_t)T * C; i++) {
                double x = hid.data[(size_t)(l + k) * T * C + i];
                acc += x * x;
            }
            rms[k] = sqrt(acc / ((double)T * C));
            assert_true(rms[k] >= 0.1 && rms[k] < 1); /* 3 significant digits: "%.3f" */
        }
        double first = 0, best = -1;
        int head = 0;
        for (int h = 0; h < H; h++) {
            double prev = 0;
            for (int i = 1; i < T; i++) {
                first += att.data[(((size_t)l * H + h) * T + i) * T];
                prev += att.data[(((size_t)l * H + h) * T + i) * T + i - 1];
            }
            if (prev / (T - 1) > best) best = prev / (T - 1), head = h;
        }
        char row[256], io[64];
        snprintf(io, sizeof io, "%.3f → %.3f", rms[0], rms[1]);
        snprintf(row, sizeof row, "%21s%-7d %-15s   %-12.2f head %d (%.2f)\n", "", l, io, first / ((double)H * (T - 1)),
                 head, best);
        strcat(want, row);
    }
    strcat(want, "                     (rms: root mean square of the residual stream x, into and out of the layer;\n");
    av_npy_free(&hid);
    av_npy_free(&att);
    tu_result r;
    run_attnviz(&r, NULL, "--model", model, "--no-plot", SENTENCE, NULL);
    if (r.code != 0 || !strstr(r.out, want)) fail_msg("exit %d; no table of layers\n%s\nin:\n%s", r.code, want, r.out);
    /* the RoPE shift's table: layer, worst |ΔS| (float32 rounding, below 1e-5) and its head; the summary's worst is
     * the larger */
    const char *rope = strstr(r.out, "positions 1000…1009:\n                     layer   RoPE shift: worst |ΔS|\n");
    double dS[2] = {-1, -1}, all = -1;
    int wh[2] = {-1, -1}, lay[2] = {-1, -1};
    if (!rope || sscanf(strchr(strchr(rope, '\n') + 1, '\n') + 1, " %d %lf (head %d)\n %d %lf (head %d)", &lay[0], &dS[0],
                        &wh[0], &lay[1], &dS[1], &wh[1]) != 6)
        fail_msg("no table of the RoPE shift under the RoPE evidence:\n%s", r.out);
    const char *worst = strstr(rope, "stay the same: worst |ΔS| = ");
    if (!worst || sscanf(worst + strlen("stay the same: worst |ΔS| = "), "%lf", &all) != 1) fail_msg("%s", r.out);
    for (int l = 0; l < 2; l++)
        if (lay[l] != l || !(dS[l] >= 0 && dS[l] < 1e-5) || wh[l] < 0 || wh[l] >= H || dS[l] > all)
            fail_msg("RoPE shift row %d: layer %d, %g (head %d), worst %g:\n%s", l, lay[l], dS[l], wh[l], all, r.out);
    if (all != fmax(dS[0], dS[1])) fail_msg("the worst |ΔS| %g is not the larger of the rows':\n%s", all, r.out);
    /* the relative-position property is RoFormer's §3.2 (eq. 16, q_mᵀk_n = x_mᵀW_q R^d_{Θ,n−m} W_k x_n; derived in
     * §3.4.1); its §3.4.2 (eq. 34), which the line cited, is the "computational efficient realization" */
    if (!strstr(rope, "leaves only (m − n)·θ_i in q·k (RoFormer §3.2, eq. 16)\n") || strstr(r.out, "§3.4.2"))
        fail_msg("the RoPE evidence should cite RoFormer §3.2, eq. 16:\n%s", rope);
    /* at an 80-column terminal every line fits and the table stays at its indent of 21 (21 + 56 = 77 columns); at
     * 60 it moves left by 77 − 60 = 17, to column 4, its gaps as they were */
    const char *argv[] = {tu_bin(), "--model", model, "--no-plot", SENTENCE, NULL};
    char *out = malloc(TU_CAP + 1);
    assert_non_null(out);
    static const int widths[] = {80, 60};
    for (int k = 0; k < 2; k++) {
        int status = tu_run_pty(argv, widths[k], out, TU_CAP + 1);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        tu_strip_sgr(out);
        for (const char *line = out; *line;) {
            size_t n = strcspn(line, "\n");
            if (columns_of(line, n) > widths[k])
                fail_msg("a line of %d columns on a %d-column terminal:\n%.*s\nin:\n%s", columns_of(line, n), widths[k],
                         (int)n, line, out);
            line += n + (line[n] == '\n');
        }
        char head[160];
        snprintf(head, sizeof head, "\n%*slayer   rms: in → out   on token 0   previous-token head\n%*s0       0.",
                 k ? 4 : 21, "", k ? 4 : 21, "");
        if (!strstr(out, head)) fail_msg("no table of layers at column %d on a %d-column terminal:\n%s", k ? 4 : 21,
                                         widths[k], out);
        if (!tu_same_words(out, r.out)) fail_msg("the terminal's words are not the pipe's:\n%s\n---\n%s", out, r.out);
    }
    free(out);
    tu_free(&r);
    /* one token: both marks are —, and the RoPE shift is in its own table */
    run_attnviz(&r, NULL, "--model", model, "--no-plot", "The", NULL);
    if (r.code != 0 || !strstr(r.out, "   —            —\n") ||
        !strstr(r.out, "(one token: no query has a token before it, so both marks are —)\n"))
        fail_msg("one token: exit %d:\n%s%s", r.code, r.out, r.err);
    tu_free(&r);
}

/* The RoPE evidence's note and step [1.5] count in the singular for one token (a teacher's pass): "hello" is one
 * token, so "the first 1 token run again at positions 1000…1000" and "0 of 1 (query, key) pairs masked" were
 * printed. By hand: T tokens run again from position 1000 (every position shifted by 1000, llamarun.c), the
 * first min(T, 64); the causal mask hides the T(T − 1)/2 pairs j > i of T² (1: 0 of 1; 2: 1 of 4). */
static void test_llama_one_token_is_counted_in_the_singular(void **state) {
    tu_fixture *f = *state;
    const char *model = new_f32_folder(f, "m");
    static const struct {
        const char *text, *note, *mask;
    } cases[] = {
        {"The", "                     RoPE evidence on the model's own heads: the first token runs again at position "
                "1000:\n                     layer   RoPE shift: worst |ΔS|\n",
         "causal: S[i, j] = −∞ for j > i; 0 of 1 (query, key) pair masked\n"},
        {"The quick", "                     RoPE evidence on the model's own heads: the first 2 tokens run again at "
                      "positions 1000…1001:\n",
         "causal: S[i, j] = −∞ for j > i; 1 of 4 (query, key) pairs masked\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tu_result r;
        run_attnviz(&r, NULL, "--model", model, "--no-plot", cases[k].text, NULL);
        if (r.code != 0 || !strstr(r.out, cases[k].note) || !strstr(r.out, cases[k].mask) ||
            strstr(r.out, "1 token run") || strstr(r.out, "1000…1000"))
            fail_msg("%s: exit %d; expected\n%s%s\nin:\n%s%s", cases[k].text, r.code, cases[k].note, cases[k].mask,
                     r.out, r.err);
        tu_free(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_llama_folder_end_to_end, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_one_token_is_counted_in_the_singular, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_names_k_v_stay_together, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_without_gqa_is_not_called_grouped, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_with_one_kv_head_is_multi_query, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_figures_name_each_heads_kv_head, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_qwen2_bf16_trace_and_generate, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_bad_llama_folders, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_rope_parameters_of_transformers_5, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_base_model_save_without_prefix, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tokenizer_ids_must_fit_vocab_size, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_added_tokens_are_text, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_added_token_at_another_tokens_id, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tokenizer_config_is_checked, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_add_bos_token_needs_a_bos_token_id, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dangling_links_are_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_folder_without_weights, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_lfs_pointers_are_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unfinished_download_is_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_folder_with_tokenizer_model_only, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_split_keeps_the_gaps, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_ignore_merges_takes_whole_tokens, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tokenizer_merge_errors_name_the_file, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_sentencepiece_merges_outnumber_tokens, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_digits_setting_is_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_metaspace_settings_are_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_generate_stops_at_eos, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unknown_characters_and_unread_settings, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_post_processor_sequence_puts_bos_first, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_added_token_flags, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_config_words_of_hugging_face, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unimplemented_config_keys_are_refused, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_null_settings_are_refused, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_default_eps_is_marked, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_kv_heads_is_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_wrong_kv_heads_is_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_head_dim_messages_name_the_keys, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_untied_config_without_lm_head, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tied_checkpoint_with_lm_head_only, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tied_lm_head_equal_to_embeddings, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_pytorch_weights_are_named, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_sharded_index_must_match_shards, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_shards_without_their_index, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_missing_shard_names_the_index, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_shards_message_cuts_the_folder_at_a_character, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_shards_replaced_while_read, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_options_name_the_family, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unsupported_model_type, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_type_of_the_other_family, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_pe_title_names_model_positions_and_mask, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_explain_names_the_shared_kv_head, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_explain_points_at_the_model_dump, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_compare_scale_names_the_layer, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_model_show_head_is_not_warned_unused, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_page_names_rmsnorm, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tokenizer_bpe_options_that_change_ids, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tokenizer_flags_must_be_booleans, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_layers_table_fits_80_columns, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_llama_notes_are_broken_at_the_width, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
