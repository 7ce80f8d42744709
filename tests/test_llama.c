/* test_llama.c - the Llama/Qwen2 model: config.json, the loader (one file or
 * shards), RMSNorm and SwiGLU, and the forward pass against
 * tests/gen_llama_ref.py.
 *
 * Expected values: the float64 numpy forward in tests/gen_llama_ref.py
 * (committed outputs in tests/ref/llama/), on checkpoints this test writes
 * with the same deterministic weights (tests/llama_fixture.h) and checks to be
 * byte-identical to the script's (sha256). Hand-worked RMSNorm and SwiGLU.
 * Tolerance 1e-4 absolute on attention weights, hidden states and logits
 * (the worst difference is printed). A transposed nn.Linear load is shown to
 * miss the reference by far more than that.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "testutil.h"
#include "llama_fixture.h"

#include "nn/gpt2_decode.h"

#include "io/npy.h"
#include "nn/llama.h"

static const int IDS[] = {464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13}; /* tests/ref/gpt2/token_ids.txt */
enum { NIDS = 10 };

static const struct { const char *name; av_st_dtype dtype; int shards; } MODELS[] = {
    {"llama_f32", AV_ST_F32, 1}, {"llama_bf16", AV_ST_BF16, 2}, {"qwen2_f32", AV_ST_F32, 1}, {"qwen2_bf16", AV_ST_BF16, 1},
};

/* Copy tests/ref/llama/<model>/<file> into dir (0 if the reference has none). */
static int copy_ref(const char *dir, const char *model, const char *file) {
    char rel[256], to[4200];
    snprintf(rel, sizeof rel, "tests/ref/llama/%s/%s", model, file);
    size_t len = 0;
    char *buf = tu_slurp_file(src_path(rel), &len);
    if (!buf) return 0;
    snprintf(to, sizeof to, "%s/%s", dir, file);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(buf);
    return 1;
}

/* A model folder in dir: the script's config.json (and index), our checkpoint. */
static void build(const char *dir, int m) {
    copy_ref(dir, MODELS[m].name, "config.json");
    copy_ref(dir, MODELS[m].name, "model.safetensors.index.json");
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", dir);
    char *json = tu_slurp_file(path, NULL);
    av_llama_config cfg;
    av_err err = {{0}};
    if (av_llama_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    if (lf_write_checkpoint(dir, &cfg, MODELS[m].dtype, MODELS[m].shards, &err)) fail_msg("%s", err.msg);
}

/* Worst |got − ref| against tests/ref/llama/<model>/<file> (n floats). */
static double ref_diff(const float *got, size_t n, const char *model, const char *file) {
    char rel[256];
    av_npy want;
    av_err err = {{0}};
    snprintf(rel, sizeof rel, "tests/ref/llama/%s/%s", model, file);
    if (av_npy_read(&want, src_path(rel), &err)) fail_msg("%s", err.msg);
    size_t shape[1] = {n};
    av_npy flat = want;
    flat.ndim = 1, flat.shape[0] = 1;
    for (int d = 0; d < want.ndim; d++) flat.shape[0] *= want.shape[d];
    if (av_npy_expect_shape(&flat, rel, 1, shape, &err)) fail_msg("%s", err.msg);
    double worst = 0;
    for (const float *w = want.data; w < want.data + n; w++, got++) worst = fmax(worst, fabs((double)*got - *w));
    av_npy_free(&want);
    return worst;
}

/* Worst difference over attn, hidden, last logits and the logits columns. */
static double forward_diff(const av_llama *m, const char *model, av_kernel kernel, int verbose) {
    av_llama_config cfg = m->cfg;
    cfg.kernel = kernel;
    av_gpt2_acts a;
    av_err err = {{0}};
    if (av_llama_acts_alloc(&a, &cfg, NIDS, &err)) fail_msg("%s", err.msg);
    if (av_llama_forward(&a, &m->params, &cfg, IDS, NIDS, 0, &err)) fail_msg("%s", err.msg);
    size_t L = (size_t)cfg.n_layer, H = (size_t)cfg.n_head, C = (size_t)cfg.n_embd, V = (size_t)cfg.vocab_size, T = NIDS;
    double d[4];
    d[0] = ref_diff(a.att, L * H * T * T, model, "attn.npy");
    d[1] = ref_diff(a.hidden, (L + 1) * T * C, model, "hidden.npy");
    d[2] = ref_diff(a.logits + (T - 1) * V, V, model, "logits_last.npy");
    char rel[256];
    snprintf(rel, sizeof rel, "tests/ref/llama/%s/cols.npy", model);
    av_npy cols;
    if (av_npy_read(&cols, src_path(rel), &err)) fail_msg("%s", err.msg);
    size_t K = cols.shape[0];
    float *sel = malloc(T * K * sizeof(float));
    for (size_t t = 0; t < T; t++)
        for (size_t k = 0; k < K; k++) sel[t * K + k] = a.logits[t * V + (size_t)cols.data[k]];
    d[3] = ref_diff(sel, T * K, model, "logits_cols.npy");
    free(sel);
    av_npy_free(&cols);
    av_gpt2_acts_free(&a);
    if (verbose)
        printf("    %-11s %-9s worst |attnviz - numpy|: attn %.2g, hidden %.2g, logits %.2g / %.2g\n", model,
               av_kernel_name(kernel), d[0], d[1], d[2], d[3]);
    return fmax(fmax(d[0], d[1]), fmax(d[2], d[3]));
}

/* ------------------------------------------------------------------------- */

static void test_checkpoints_equal_script_and_forward_matches_numpy(void **state) {
    tu_fixture *f = *state;
    char *sums = tu_slurp_file(src_path("tests/ref/llama/checkpoints.sha256"), NULL);
    assert_non_null(sums);
    for (int m = 0; m < 4; m++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", f->dir, MODELS[m].name);
        assert_int_equal(mkdir(dir, 0700), 0);
        build(dir, m);
        for (int s = 0; s < MODELS[m].shards; s++) { /* every file's sha256 is the script's */
            char fn[64], path[4400], cmd[4500], line[200];
            if (MODELS[m].shards == 1) snprintf(fn, sizeof fn, "model.safetensors");
            else snprintf(fn, sizeof fn, "model-%05d-of-%05d.safetensors", s + 1, MODELS[m].shards);
            snprintf(path, sizeof path, "%s/%s", dir, fn);
            snprintf(cmd, sizeof cmd, "sha256sum %s", tu_sh_word(path));
            FILE *p = popen(cmd, "r");
            char sum[65] = "";
            assert_int_equal(fscanf(p, "%64s", sum), 1);
            pclose(p);
            snprintf(line, sizeof line, "%s  %s/%s\n", sum, MODELS[m].name, fn);
            if (!strstr(sums, line)) fail_msg("%s/%s differs from the script's checkpoint", MODELS[m].name, fn);
        }
        av_llama model;
        av_err err = {{0}};
        if (av_llama_load(&model, dir, &err)) fail_msg("%s", err.msg);
        assert_int_equal(model.n_shards, MODELS[m].shards);
        assert_string_equal(model.dtype, MODELS[m].dtype == AV_ST_F32 ? "F32" : "BF16");
        assert_true(forward_diff(&model, MODELS[m].name, AV_KERNEL_REFERENCE, 1) <= 1e-4);
        assert_true(forward_diff(&model, MODELS[m].name, AV_KERNEL_BLAS, 1) <= 1e-4);
        av_llama_free(&model);
    }
    free(sums);
}

/* nn.Linear is (out, in): reading q_proj or o_proj (square here, so shapes
 * cannot tell) as (in, out) must miss the reference by far more than 1e-4. */
static void test_transposed_linear_load_fails_reference(void **state) {
    tu_fixture *f = *state;
    build(f->dir, 0);
    av_llama m;
    av_err err = {{0}};
    if (av_llama_load(&m, f->dir, &err)) fail_msg("%s", err.msg);
    int C = m.cfg.n_embd;
    float *tq = malloc((size_t)C * C * sizeof(float)), *to = malloc((size_t)C * C * sizeof(float));
    float *q = m.params.layers[0].q_proj, *o = m.params.layers[1].o_proj;
    for (int i = 0; i < C; i++)
        for (int j = 0; j < C; j++) tq[j * C + i] = q[i * C + j], to[j * C + i] = o[i * C + j];
    m.params.layers[0].q_proj = tq;
    double dq = forward_diff(&m, "llama_f32", AV_KERNEL_REFERENCE, 0);
    m.params.layers[0].q_proj = q;
    m.params.layers[1].o_proj = to;
    double dout = forward_diff(&m, "llama_f32", AV_KERNEL_REFERENCE, 0);
    m.params.layers[1].o_proj = o;
    printf("    transposed q_proj: worst diff %.3g; transposed o_proj: %.3g (tolerance 1e-4)\n", dq, dout);
    assert_true(dq > 1e-2 && dout > 1e-2);
    assert_true(forward_diff(&m, "llama_f32", AV_KERNEL_REFERENCE, 0) <= 1e-4);
    free(tq);
    free(to);
    av_llama_free(&m);
}

/* RoPE makes scores depend on positions only through their difference:
 * shifting every position by k leaves every layer's and head's scores equal
 * up to float error (Su et al. 2021, RoFormer §3.2, eq. 16). */
static void test_rope_shift_keeps_scores(void **state) {
    tu_fixture *f = *state;
    build(f->dir, 2);
    av_llama m;
    av_gpt2_acts a0, ak;
    av_err err = {{0}};
    if (av_llama_load(&m, f->dir, &err)) fail_msg("%s", err.msg);
    assert_int_equal(av_llama_acts_alloc(&a0, &m.cfg, NIDS, &err), AV_OK);
    assert_int_equal(av_llama_acts_alloc(&ak, &m.cfg, NIDS, &err), AV_OK);
    assert_int_equal(av_llama_forward(&a0, &m.params, &m.cfg, IDS, NIDS, 0, &err), AV_OK);
    assert_int_equal(av_llama_forward(&ak, &m.params, &m.cfg, IDS, NIDS, 1000, &err), AV_OK);
    size_t n = (size_t)m.cfg.n_layer * m.cfg.n_head * NIDS * NIDS;
    double worst = 0, qmove = 0;
    for (size_t i = 0; i < n; i++)
        if (a0.mask[i % (NIDS * NIDS)] == 0) worst = fmax(worst, fabs((double)a0.preatt[i] - ak.preatt[i]));
    for (size_t i = 0; i < (size_t)NIDS * m.cfg.n_embd; i++) qmove = fmax(qmove, fabs((double)a0.qkvh[i] - ak.qkvh[i]));
    printf("    shift by 1000: worst |ΔS| = %.3g, while q itself moved by up to %.3g\n", worst, qmove);
    assert_true(worst < 1e-3);
    assert_true(qmove > 0.1); /* the rotation did change q: the equality is not trivial */
    /* GQA: H/KVH = 2 query heads share each K/V head, so k heads 0 and 1 are equal, 1 and 2 are not. */
    size_t TD = (size_t)NIDS * (m.cfg.n_embd / m.cfg.n_head), TC = (size_t)NIDS * m.cfg.n_embd;
    const float *k = a0.qkvh + TC;
    assert_memory_equal(k, k + TD, TD * sizeof(float));
    assert_memory_not_equal(k + TD, k + 2 * TD, TD * sizeof(float));
    /* an overflow after the last layer is in the logits, after model.norm, no layer's (it was named "layer 1") */
    float *norm = m.params.norm, *huge = malloc((size_t)m.cfg.n_embd * sizeof(float)); /* the loaded one is mapped */
    assert_non_null(huge);
    for (int i = 0; i < m.cfg.n_embd; i++) huge[i] = 3e38f;
    m.params.norm = huge;
    assert_int_equal(av_llama_forward(&a0, &m.params, &m.cfg, IDS, NIDS, 0, &err), AV_EUSAGE);
    m.params.norm = norm;
    free(huge);
    assert_string_equal(err.msg, "the logits (after the final RMSNorm, model.norm) overflowed float32 (a value became "
                                 "infinite); the checkpoint's weights are too large");
    av_gpt2_acts_free(&a0);
    av_gpt2_acts_free(&ak);
    av_llama_free(&m);
}

static void test_rmsnorm_swiglu_by_hand(void **state) {
    (void)state;
    /* x = (3, 4): mean(x²) = 12.5, rstd = 1/√12.5; w = (1, 2) → (0.848528, 2.262742) */
    float x[2] = {3, 4}, w[2] = {1, 2}, out[2], rstd;
    rmsnorm_forward(out, &rstd, x, w, 1, 2, 0.0);
    assert_float_equal(out[0], 0.848528f, 1e-6);
    assert_float_equal(out[1], 2.262742f, 1e-6);
    assert_float_equal(rstd, 0.282843f, 1e-6);
    /* SiLU(1)·2 = 2/(1 + e^−1) = 1.462117; SiLU(−2)·1 = −2/(1 + e^2) = −0.238406; SiLU(0)·5 = 0 */
    float g[3] = {1, -2, 0}, u[3] = {2, 1, 5}, y[3];
    swiglu_forward(y, g, u, 3);
    assert_float_equal(y[0], 1.462117f, 1e-6);
    assert_float_equal(y[1], -0.238406f, 1e-6);
    assert_float_equal(y[2], 0.0f, 0);
}

/* Parsing json is a usage error whose message contains msg. */
static void expect_config_error(const char *json, const char *msg) {
    av_llama_config c;
    av_err err = {{0}};
    av_status s = av_llama_config_parse(&c, json, strlen(json), "config.json", &err);
    if (s != AV_EUSAGE || !strstr(err.msg, msg)) fail_msg("%s: status %d, \"%s\" lacks \"%s\"", json, (int)s, err.msg, msg);
}

static void test_config_errors(void **state) {
    (void)state;
    static const struct { const char *json, *msg; } bad[] = {
        {"{\"model_type\":\"mistral\",\"hidden_size\":64}", "model_type \"mistral\" is not supported (allowed: gpt2, llama, qwen2)"},
        {"{\"hidden_size\":64}", "model_type (missing) is not supported (allowed: gpt2, llama, qwen2)"},
        {"{\"model_type\":\"llama\",\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":8}}", "rope_scaling \"llama3\" is not supported"},
        {"{\"model_type\":\"llama\",\"hidden_act\":\"gelu\"}", "config.json: hidden_act is \"gelu\"; attnviz supports only \"silu\" or \"swish\" (the SwiGLU MLP)"},
        {"{\"model_type\":\"llama\",\"hidden_size\":\"64\"}", "\"hidden_size\" is \"64\"; it must be a whole number"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rms_norm_eps\":\"1e-6\"}", "\"rms_norm_eps\" is \"1e-6\"; it must be a number"},
        /* 1e400, read by cJSON as infinity, is named as what the file holds, not "inf" (a tester's report) */
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rms_norm_eps\":1e400}", "rms_norm_eps (a number past 1.797e308) is outside (0, 1)"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_theta\":1e400}", "rope_theta (a number past 1.797e308) must be a finite number greater than 1"},
        /* rope_parameters' rope_theta (transformers 5's) is named so: "\"rope_theta\" is \"x\"" and "rope_theta 0.5
         * must be ..." named the top-level key, which these files do not have (a Llama user's pass) */
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_parameters\":{\"rope_type\":\"default\",\"rope_theta\":\"x\"}}",
         "config.json: rope_parameters.rope_theta is \"x\"; it must be a number"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_parameters\":{\"rope_type\":\"default\",\"rope_theta\":0.5}}",
         "config.json: rope_parameters.rope_theta 0.5 must be a finite number greater than 1"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_theta\":500000,\"rope_parameters\":{\"rope_theta\":null}}",
         "config.json: rope_parameters.rope_theta is null; it must be a number, or the key left out for the top-level "
         "rope_theta, else transformers' default 10000"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_theta\":0.5}",
         "config.json: rope_theta 0.5 must be a finite number greater than 1"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"tie_word_embeddings\":\"yes\"}", "\"tie_word_embeddings\" is \"yes\"; it must be true or false"},
        /* a long value is cut to 40 bytes with "…" */
        {"{\"model_type\":\"llama\",\"hidden_act\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "hidden_act is \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xE2\x80\xA6; attnviz"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64}", "missing key \"num_hidden_layers\""},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"num_key_value_heads\":3,\"intermediate_size\":8,\"vocab_size\":9}", "num_key_value_heads 3 must divide num_attention_heads 4"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"head_dim\":32,\"intermediate_size\":8,\"vocab_size\":9}", "head_dim 32 is not supported: attnviz needs head_dim = hidden_size / num_attention_heads = 64 / 4 = 16 (allowed: 16, or no head_dim key)"},
        {"{\"model_type\":\"llama\",\"attention_bias\":true}", "\"attention_bias\": true is not supported"},
        {"[1]", "not a JSON object"},
        /* cJSON ends a string at \u0000: "llama\u0000x" was read as "llama" */
        {"{\"model_type\":\"llama\\u0000x\"}", "config.json: byte 20: a string holds \\u0000 (a NUL character)"},
        /* named against hidden_size's own range, as 0 is ("at most 1e9" was a second limit) */
        {"{\"model_type\":\"llama\",\"hidden_size\":1e12}", "config.json: hidden_size 1000000000000 is outside 1..4096"},
        {"{\"model_type\":\"llama\",\"hidden_size\":0,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9}", "config.json: hidden_size 0 is outside 1..4096"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
         "\"intermediate_size\":8,\"vocab_size\":9,\"num_key_value_heads\":-1e400}",
         "config.json: num_key_value_heads (a number past -1.797e308) is outside 1..64"},
        {"{\"model_type\":\"llama\",\"hidden_size\":64.5}", "\"hidden_size\" 64.5 must be a whole number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_config_error(bad[i].json, bad[i].msg);
    const char *ok = "{\"model_type\":\"qwen2\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                     "\"num_key_value_heads\":2,\"intermediate_size\":8,\"vocab_size\":9,\"rope_scaling\":null}";
    av_llama_config c;
    av_err err = {{0}};
    assert_int_equal(av_llama_config_parse(&c, ok, strlen(ok), "config.json", &err), AV_OK);
    assert_int_equal(c.qkv_bias, 1);
    assert_int_equal(c.n_kv_head, 2);
    assert_true(c.rope_theta == 10000.0 && c.rms_norm_eps == 1e-6);
    assert_int_equal(av_llama_num_tensors(&c), 2 + 2 * 12 + 1);
    /* a top-level "rope_theta": null beside rope_parameters' number: transformers 5 reads the nested θ first
     * (convert_rope_params_to_dict's setdefault keeps it), so the file runs at 500000; it was refused as
     * "\"rope_theta\" is null ... transformers' default 10000" (a review of the change) */
    const char *nested = "{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                         "\"intermediate_size\":8,\"vocab_size\":9,\"rope_theta\":null,"
                         "\"rope_parameters\":{\"rope_type\":\"default\",\"rope_theta\":500000}}";
    if (av_llama_config_parse(&c, nested, strlen(nested), "config.json", &err) != AV_OK) fail_msg("%s", err.msg);
    assert_true(c.rope_theta == 500000.0);
    assert_string_equal(c.rope_theta_from, "rope_parameters.rope_theta");
}

/* Folder problems: a missing shard, an unexpected tensor, a wrong shape. */
static void test_bad_folders(void **state) {
    tu_fixture *f = *state;
    build(f->dir, 1);
    av_llama m;
    av_err err = {{0}};
    char path[4200], to[4200];
    snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", f->dir);
    snprintf(to, sizeof to, "%s/elsewhere.safetensors", f->dir);
    assert_int_equal(rename(path, to), 0);
    assert_int_equal(av_llama_load(&m, f->dir, &err), AV_EUSAGE); /* a named shard not there: bad input */
    assert_non_null(strstr(err.msg, "model-00002-of-00002.safetensors"));
    assert_int_equal(rename(to, path), 0);
    /* a config with 1 layer: layer 1's tensors are unexpected */
    snprintf(path, sizeof path, "%s/config.json", f->dir);
    char *json = tu_slurp_file(path, NULL), *at = strstr(json, "\"num_hidden_layers\": 2");
    assert_non_null(at);
    at[strlen("\"num_hidden_layers\": ")] = '1';
    FILE *fp = fopen(path, "w");
    fputs(json, fp);
    fclose(fp);
    assert_int_equal(av_llama_load(&m, f->dir, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "unexpected tensor \"model.layers.1."));
    /* intermediate_size 64 instead of 128: gate_proj (128, 64) is not (64, 64) */
    at[strlen("\"num_hidden_layers\": ")] = '2';
    at = strstr(json, "\"intermediate_size\": 128");
    memcpy(at + strlen("\"intermediate_size\": "), " 64", 3);
    fp = fopen(path, "w");
    fputs(json, fp);
    fclose(fp);
    free(json);
    assert_int_equal(av_llama_load(&m, f->dir, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "gate_proj.weight\" has shape (128, 64); config.json implies nn.Linear (out, in) = (64, 64)"));
}

/* model.safetensors.index.json against its two shards (llama_bf16: embed_tokens and layer 0 in
 * model-00001-of-00002.safetensors, the rest in model-00002-of-00002.safetensors, as
 * llama_fixture.h writes them). Every tensor the index lists must be in the file it names, and
 * every tensor of a shard must be listed with that shard: each edit of the index below loaded
 * before (store_find looked in every shard, whatever the index said). */
static void test_index_disagrees_with_shards(void **state) {
    tu_fixture *f = *state;
    build(f->dir, 1);
    char path[4200], want[4600];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", f->dir);
    char *index = tu_slurp_file(path, NULL);
    assert_non_null(index);
    static const struct { const char *from, *to, *msg; } cases[] = {
        /* listed with the other shard */
        {"\"model.norm.weight\": \"model-00002-of-00002.safetensors\"",
         "\"model.norm.weight\": \"model-00001-of-00002.safetensors\"",
         "model-00002-of-00002.safetensors holds tensor \"model.norm.weight\", which weight_map puts in "
         "model-00001-of-00002.safetensors"},
        /* not listed */
        {",\n    \"lm_head.weight\": \"model-00002-of-00002.safetensors\"", "",
         "model-00002-of-00002.safetensors holds tensor \"lm_head.weight\", which weight_map does not list"},
        /* listed, in no shard */
        {"\"model.norm.weight\":",
         "\"model.extra.weight\": \"model-00002-of-00002.safetensors\",\n    \"model.norm.weight\":",
         "weight_map puts tensor \"model.extra.weight\" in model-00002-of-00002.safetensors, but that file has no "
         "such tensor"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(tu_write_replaced(path, index, cases[k].from, cases[k].to), 0);
        av_llama m;
        av_err err = {{0}};
        av_status st = av_llama_load(&m, f->dir, &err);
        if (st == AV_OK) av_llama_free(&m);
        snprintf(want, sizeof want, "%s: %s", tu_sh_word(path), cases[k].msg);
        if (st != AV_EUSAGE || strcmp(err.msg, want) != 0)
            fail_msg("case %zu: status %d, '%s'; want '%s'", k, (int)st, err.msg, want);
    }
    assert_int_equal(tu_write_replaced(path, index, "{", "{"), 0); /* the index as written: loads */
    av_llama m;
    av_err err = {{0}};
    if (av_llama_load(&m, f->dir, &err)) fail_msg("%s", err.msg);
    av_llama_free(&m);
    free(index);
}

/* A tensor's name from a shard's header or the index's weight_map, which may hold a JSON escape ("\n", "\u202e"),
 * is shown safely in every message that quotes it: it was printed raw, so "\n" broke the line and U+202E turned
 * the rest of it around. llama_bf16's model.norm.weight (17 bytes, in model-00002-of-00002.safetensors) is renamed
 * in place to "mode\nnorm.weight" or "model\u202eweight" (17 bytes each) in the shard, the index or both; a new
 * index key "x\ny" names no tensor. Expected by hand: the newline as <U+000A> (base/utf8.h
 * av_utf8_escape_controls), the RLO closed by a PDF (U+202C, UAX #9 X9) before the closing quote. */
static void test_tensor_names_are_shown(void **state) {
    tu_fixture *f = *state;
    static const struct { const char *to; int shard, index; const char *msg; } cases[] = {
        {"mode\\nnorm.weight", 1, 0, "model-00002-of-00002.safetensors holds tensor \"mode<U+000A>norm.weight\", "
                                     "which weight_map does not list"},
        {"model\\u202eweight", 1, 0, "model-00002-of-00002.safetensors holds tensor \"model\xE2\x80\xAEweight"
                                     "\xE2\x80\xAC\", which weight_map does not list"},
        {"mode\\nnorm.weight", 1, 1, "unexpected tensor \"mode<U+000A>norm.weight\" "
                                     "(not part of the Llama/Qwen2 layout config.json implies)"},
        {"model\\u202eweight", 1, 1, "unexpected tensor \"model\xE2\x80\xAEweight"
                                     "\xE2\x80\xAC\" (not part of the Llama/Qwen2 layout config.json implies)"},
        {"x\\ny\": \"model-00002-of-00002.safetensors\",\n    \"model.norm.weight", 0, 1,
         "weight_map puts tensor \"x<U+000A>y\" in model-00002-of-00002.safetensors, but that file has no such tensor"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char dir[4200], path[4300], shard[4300], want[4800];
        snprintf(dir, sizeof dir, "%s/m%zu", f->dir, k);
        assert_int_equal(mkdir(dir, 0755), 0);
        build(dir, 1);
        snprintf(shard, sizeof shard, "%s/model-00002-of-00002.safetensors", dir);
        if (cases[k].shard) assert_int_equal(tu_patch_header(shard, "model.norm.weight", cases[k].to), 0);
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
        char *index = tu_slurp_file(path, NULL);
        assert_non_null(index);
        if (cases[k].index) assert_int_equal(tu_write_replaced(path, index, "model.norm.weight", cases[k].to), 0);
        free(index);
        av_llama m;
        av_err err = {{0}};
        av_status st = av_llama_load(&m, dir, &err);
        if (st == AV_OK) av_llama_free(&m);
        /* the file that says so as one shell word: the shard for an unexpected tensor, else the index */
        snprintf(want, sizeof want, "%s: %s", tu_sh_word(cases[k].shard && cases[k].index ? shard : path), cases[k].msg);
        if (st != AV_EUSAGE || strcmp(err.msg, want))
            fail_msg("case %zu: status %d, '%s'; want '%s'", k, (int)st, err.msg, want);
        assert_null(strchr(err.msg, '\n'));
    }
}

/* --generate's key/value cache for a Llama-family model (nn/gpt2_decode.h av_llama_decode) against the full
 * forward, which the numpy reference checks: each token run alone after the cached ones gives the full
 * forward's logits row. llama_f32 (grouped-query: 2 query heads a K/V head) and qwen2_f32 (q, k, v biases),
 * from an empty cache and from one filled by a forward of the first 4 ids; the reference kernel bit for bit,
 * BLAS within 2e-5 relative. */
static void test_decode_cache_is_the_full_forward(void **state) {
    tu_fixture *f = *state;
    static const int models[2] = {0, 2};
    int checked = 0;
    for (int mi = 0; mi < 2; mi++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", f->dir, MODELS[models[mi]].name);
        assert_int_equal(mkdir(dir, 0755), 0);
        build(dir, models[mi]);
        av_llama m;
        av_err err = {{0}};
        if (av_llama_load(&m, dir, &err)) fail_msg("%s", err.msg);
        if (mi == 0) assert_true(m.cfg.n_kv_head < m.cfg.n_head);
        for (int kern = 0; kern < 2; kern++) {
            av_llama_config cfg = m.cfg;
            cfg.kernel = kern ? AV_KERNEL_BLAS : AV_KERNEL_REFERENCE;
            av_gpt2_acts full, part;
            assert_int_equal(av_llama_acts_alloc(&full, &cfg, NIDS, &err), AV_OK);
            assert_int_equal(av_llama_acts_alloc(&part, &cfg, 4, &err), AV_OK);
            if (av_llama_forward(&full, &m.params, &cfg, IDS, NIDS, 0, &err) ||
                av_llama_forward(&part, &m.params, &cfg, IDS, 4, 0, &err))
                fail_msg("%s", err.msg);
            for (int from = 0; from < 2; from++) {
                av_gpt2_cache c;
                assert_int_equal(av_llama_cache_alloc(&c, &cfg, NIDS, &err), AV_OK);
                int t = 0;
                if (from) av_llama_cache_prefill(&c, &part, &cfg), t = 4;
                for (; t < NIDS; t++) {
                    if (av_llama_decode(&c, &m.params, &cfg, IDS[t], &err)) fail_msg("%s", err.msg);
                    const float *want = full.logits + (size_t)t * cfg.vocab_size;
                    for (int v = 0; v < cfg.vocab_size; v++, checked++) {
                        double tol = kern ? 2e-5 * (1.0 + fabs(want[v])) : 0.0;
                        if (!(fabs((double)c.logits[v] - want[v]) <= tol))
                            fail_msg("%s, %s, %s: token %d, logit %d: %.9g, full forward %.9g", MODELS[models[mi]].name,
                                     kern ? "BLAS" : "reference", from ? "prefilled" : "empty cache", t, v,
                                     c.logits[v], want[v]);
                    }
                }
                if (kern == 0 && from == 0) {
                    assert_int_equal(av_llama_decode(&c, &m.params, &cfg, 1, &err), AV_EUSAGE);
                    assert_string_equal(err.msg, "the cache holds 10 positions, all of them filled");
                }
                av_gpt2_cache_free(&c);
            }
            av_gpt2_acts_free(&full);
            av_gpt2_acts_free(&part);
        }
        if (mi == 0) {
            av_gpt2_cache c;
            assert_int_equal(av_llama_cache_alloc(&c, &m.cfg, m.cfg.max_positions + 1, &err), AV_EUSAGE);
            char want[160];
            snprintf(want, sizeof want, "a cache of %d positions is more than the model's %d (max_position_embeddings)",
                     m.cfg.max_positions + 1, m.cfg.max_positions);
            if (m.cfg.max_positions + 1 <= AV_MAX_TOKENS) assert_string_equal(err.msg, want);
        }
        av_llama_free(&m);
    }
    assert_true(checked > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_checkpoints_equal_script_and_forward_matches_numpy, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_transposed_linear_load_fails_reference, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_rope_shift_keeps_scores, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test(test_rmsnorm_swiglu_by_hand),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test_setup_teardown(test_bad_folders, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_index_disagrees_with_shards, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_tensor_names_are_shown, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_decode_cache_is_the_full_forward, tu_setup_tmpdir, tu_teardown_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
