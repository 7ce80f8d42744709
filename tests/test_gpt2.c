/* test_gpt2.c - the GPT-2 model: config.json, the parameter table, the
 * kernels, and the forward pass against tests/gen_gpt2_ref.py.
 *
 * Expected values: the float64 numpy forward in tests/gen_gpt2_ref.py
 * (committed outputs in tests/ref/gpt2/), on checkpoints this test writes
 * with the same deterministic weights (tests/gpt2_fixture.h) and checks to be
 * byte-identical to the script's (sha256). Hand-worked values for LayerNorm
 * and GELU. Tolerance 1e-4 absolute on attention weights, hidden states and
 * logits (the outputs are float32 sums of float32 products accumulated in
 * double; the worst difference is printed).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"
#include "gpt2_fixture.h"

#include "base/utf8.h"
#include "io/npy.h"
#include "nn/gpt2.h"
#include "nn/gpt2_decode.h"

typedef tu_fixture fixture;

/* ------------------------------------------------------------------------- */
/* helpers */

static void read_ids(int *ids, int *T, const char *file) {
    char *txt = tu_slurp_file(src_path(file), NULL);
    assert_non_null(txt);
    int n = 0, off = 0, k;
    while (n < 64 && sscanf(txt + off, "%d%n", &ids[n], &k) == 1) n++, off += k;
    free(txt);
    *T = n;
}

static void copy_file(const char *from, const char *to) {
    size_t len = 0;
    char *buf = tu_slurp_file(from, &len);
    assert_non_null(buf);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
    free(buf);
}

/* The sha256 of path, by the system's sha256sum (coreutils). */
static void sha256_of(char out[65], const char *path) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "sha256sum %s", tu_sh_word(path));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%64s", out), 1);
    pclose(p);
}

/* Write DIR/config.json (the script's) and DIR/model.safetensors for model. */
static void make_model(const char *dir, const char *model, av_st_dtype dtype, const char *prefix, int extras) {
    char path[4200], ref[256];
    snprintf(ref, sizeof ref, "tests/ref/gpt2/%s/config.json", model);
    snprintf(path, sizeof path, "%s/config.json", dir);
    copy_file(src_path(ref), path);
    char *json = tu_slurp_file(path, NULL);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (gf_write_checkpoint(path, &cfg, dtype, prefix, extras, &err)) fail_msg("%s", err.msg);
}

static double worst_diff(const float *got, const float *want, size_t n) {
    double w = 0.0;
    for (size_t i = 0; i < n; i++) w = fmax(w, fabs((double)got[i] - (double)want[i]));
    return w;
}

/* got (n floats) against tests/ref/gpt2/<model>/<file> of that many floats. */
static void expect_close(const float *got, size_t n, const char *model, const char *file) {
    char rel[256];
    snprintf(rel, sizeof rel, "tests/ref/gpt2/%s/%s", model, file);
    av_npy a;
    av_err err = {{0}};
    if (av_npy_read(&a, src_path(rel), &err)) fail_msg("%s", err.msg);
    size_t numel = 1;
    for (int d = 0; d < a.ndim; d++) numel *= a.shape[d];
    assert_int_equal(numel, n);
    double w = worst_diff(got, a.data, n);
    printf("    %-18s %-16s worst |attnviz - numpy| = %.3g\n", model, file, w);
    assert_true(w <= 1e-4);
    av_npy_free(&a);
}

/* Load dir, run the forward on the committed ids, compare with model's refs. */
static void check_forward(const char *dir, const char *model, int real_vocab, av_kernel kernel) {
    av_gpt2 m;
    av_gpt2_acts a;
    av_err err = {{0}};
    int ids[64], T;
    read_ids(ids, &T, real_vocab ? "tests/ref/gpt2/token_ids.txt" : "tests/ref/gpt2/toy_ids.txt");
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    m.cfg.kernel = kernel;
    printf("    kernel %s\n", av_kernel_name(kernel));
    if (av_gpt2_acts_alloc(&a, &m.cfg, T, &err)) fail_msg("%s", err.msg);
    if (av_gpt2_forward(&a, &m.params, &m.cfg, ids, T, &err)) fail_msg("%s", err.msg);
    size_t L = (size_t)m.cfg.n_layer, H = (size_t)m.cfg.n_head, C = (size_t)m.cfg.n_embd, V = (size_t)m.cfg.vocab_size;
    expect_close(a.att, L * H * T * T, model, "attn.npy");
    expect_close(a.hidden, (L + 1) * T * C, model, "hidden.npy");
    if (!real_vocab) {
        expect_close(a.logits, (size_t)T * V, model, "logits.npy");
    } else {
        expect_close(a.logits + (size_t)(T - 1) * V, V, model, "logits_last.npy");
        av_npy cols;
        char rel[256];
        snprintf(rel, sizeof rel, "tests/ref/gpt2/%s/cols.npy", model);
        if (av_npy_read(&cols, src_path(rel), &err)) fail_msg("%s", err.msg);
        size_t K = cols.shape[0];
        float *sel = malloc((size_t)T * K * sizeof(float));
        for (int t = 0; t < T; t++)
            for (size_t k = 0; k < K; k++) sel[t * K + k] = a.logits[(size_t)t * V + (size_t)cols.data[k]];
        expect_close(sel, (size_t)T * K, model, "logits_cols.npy");
        free(sel);
        av_npy_free(&cols);
    }
    av_gpt2_acts_free(&a);
    av_gpt2_free(&m);
}

static const char *sha_line(const char *model) {
    static char line[256];
    char *all = tu_slurp_file(src_path("tests/ref/gpt2/checkpoints.sha256"), NULL);
    assert_non_null(all);
    char key[128];
    snprintf(key, sizeof key, "  %s.safetensors", model);
    char *at = strstr(all, key);
    assert_non_null(at);
    snprintf(line, sizeof line, "%.64s", at - 64);
    free(all);
    return line;
}

/* ------------------------------------------------------------------------- */
/* the reference models */

static const struct {
    const char *model;
    av_st_dtype dtype;
    const char *prefix;
    int extras, real_vocab;
} kModels[] = {
    {"gpt2_f32", AV_ST_F32, "", 0, 1},
    {"gpt2_f16", AV_ST_F16, "transformer.", 1, 1},
    {"toy_sin_post", AV_ST_F32, "", 0, 0},
    {"toy_rope_noscale", AV_ST_F32, "", 0, 0},
    {"toy_ropehalf_post", AV_ST_F32, "", 0, 0},
};

static void test_checkpoint_bytes_equal_script(void **state) {
    fixture *f = *state;
    for (size_t i = 0; i < sizeof kModels / sizeof kModels[0]; i++) {
        char dir[4200], path[4300], sum[65];
        snprintf(dir, sizeof dir, "%s/%s", f->dir, kModels[i].model);
        assert_int_equal(mkdir(dir, 0755), 0);
        make_model(dir, kModels[i].model, kModels[i].dtype, kModels[i].prefix, kModels[i].extras);
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        sha256_of(sum, path);
        assert_string_equal(sum, sha_line(kModels[i].model));
    }
}

static void test_forward_matches_numpy(void **state) {
    fixture *f = *state;
    for (size_t i = 0; i < sizeof kModels / sizeof kModels[0]; i++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", f->dir, kModels[i].model);
        assert_int_equal(mkdir(dir, 0755), 0);
        make_model(dir, kModels[i].model, kModels[i].dtype, kModels[i].prefix, kModels[i].extras);
        check_forward(dir, kModels[i].model, kModels[i].real_vocab, AV_KERNEL_REFERENCE);
        check_forward(dir, kModels[i].model, kModels[i].real_vocab, AV_KERNEL_BLAS);
    }
}

/* The same weights under the other prefix / without the extra buffers give
 * the same references: F32 with "transformer.", F16 without. */
static void test_prefix_and_buffers_do_not_matter(void **state) {
    fixture *f = *state;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/f32_prefixed", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    make_model(dir, "gpt2_f32", AV_ST_F32, "transformer.", 1);
    av_gpt2 m;
    av_err err = {{0}};
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.transformer_prefix, 1);
    assert_int_equal(m.has_lm_head, 1);
    assert_string_equal(m.dtype, "F32");
    av_gpt2_free(&m);
    check_forward(dir, "gpt2_f32", 1, AV_KERNEL_REFERENCE);
    snprintf(dir, sizeof dir, "%s/f16_plain", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    make_model(dir, "gpt2_f16", AV_ST_F16, "", 0);
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.transformer_prefix, 0);
    assert_int_equal(m.has_lm_head, 0);
    assert_string_equal(m.dtype, "F16");
    av_gpt2_free(&m);
    check_forward(dir, "gpt2_f16", 1, AV_KERNEL_REFERENCE);
}

/* A tensor of the file that is not GPT-2's is named as the header spells it shown safely: its name may hold a JSON
 * escape, "\n" or "\u202e", which was printed raw, so 'unexpected tensor "x' ended the line and U+202E turned the
 * rest of it around. Expected by hand: the newline as <U+000A> (base/utf8.h av_utf8_escape_controls), the RLO
 * closed by a PDF (U+202C, UAX #9 X9) before the closing quote. The masked_bias buffer (20 bytes) is renamed in
 * place, "x\nxxxxxxxxxxxxxxxxx" (x, the escape, 17 x) and "x\u202exxxxxxxxxxxxx" (x, the escape, 13 x). */
static void test_unexpected_tensor_name_is_shown(void **state) {
    fixture *f = *state;
    static const struct { const char *to, *msg; } cases[] = {
        {"x\\nxxxxxxxxxxxxxxxxx", "unexpected tensor \"x<U+000A>xxxxxxxxxxxxxxxxx\" (not part of a "
                                  "GPT-2 with 2 layers and learned positions)"},
        {"x\\u202exxxxxxxxxxxxx", "unexpected tensor \"x\xE2\x80\xAExxxxxxxxxxxxx\xE2\x80\xAC\" (not "
                                   "part of a GPT-2 with 2 layers and learned positions)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[4200], path[4300], want[4800];
        snprintf(dir, sizeof dir, "%s/named%zu", f->dir, i);
        assert_int_equal(mkdir(dir, 0755), 0);
        make_model(dir, "gpt2_f32", AV_ST_F32, "", 1);
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        assert_int_equal(tu_patch_header(path, "h.0.attn.masked_bias", cases[i].to), 0);
        av_gpt2 m;
        av_err err = {{0}};
        assert_int_equal(av_gpt2_load(&m, dir, &err), AV_EUSAGE);
        snprintf(want, sizeof want, "%s: %s", tu_sh_word(path), cases[i].msg); /* the file as one shell word */
        if (strcmp(err.msg, want)) fail_msg("case %zu: got '%s', want '%s'", i, err.msg, want);
        assert_null(strchr(err.msg, '\n'));
    }
}

/* An lm_head.weight that is not wte (one value changed, in place in the file: the F32 lm_head's last float
 * becomes 1e30, far from any fixture value) is refused, naming both tensors; attnviz runs GPT-2's tied
 * unembedding only, so running it would print another model's logits. The unchanged file loads. */
static void test_lm_head_other_than_wte_is_refused(void **state) {
    fixture *f = *state;
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/untied_values", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    make_model(dir, "gpt2_f32", AV_ST_F32, "transformer.", 1);
    av_gpt2 m;
    av_err err = {{0}};
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_int_equal(m.has_lm_head, 1);
    av_gpt2_free(&m);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    av_safetensors st;
    if (av_safetensors_open(&st, path, &err)) fail_msg("%s", err.msg);
    const av_st_tensor *t = av_safetensors_find(&st, "lm_head.weight");
    assert_non_null(t);
    assert_int_equal(t->dtype, AV_ST_F32);
    off_t at = (off_t)(t->data - st.buf) + (off_t)(t->end - t->begin) - 4;
    av_safetensors_close(&st);
    const float big = 1e30f;
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseeko(fp, at, SEEK_SET), 0);
    assert_int_equal(fwrite(&big, sizeof big, 1, fp), 1);
    assert_int_equal(fclose(fp), 0);
    memset(&err, 0, sizeof err);
    assert_int_equal(av_gpt2_load(&m, dir, &err), AV_EUSAGE);
    char want[4600], st_path[4400];
    snprintf(st_path, sizeof st_path, "%s/model.safetensors", dir);
    snprintf(want, sizeof want, "%s: lm_head.weight differs from wte.weight; only GPT-2's tied unembedding is "
             "supported", tu_sh_word(st_path));
    if (!strstr(err.msg, want))
        fail_msg("message: %s", err.msg);
    /* config.json untying them ("tie_word_embeddings": false, as transformers then loads this lm_head): the key is
     * named, and what attnviz runs; it said only "lm_head.weight differs from wte.weight; ..." */
    snprintf(path, sizeof path, "%s/config.json", dir);
    size_t len = 0;
    char *json = tu_slurp_file(path, &len);
    assert_true(len > 1 && json[0] == '{');
    fp = fopen(path, "wb");
    assert_non_null(fp);
    fprintf(fp, "{\"tie_word_embeddings\": false, %s", json + 1);
    assert_int_equal(fclose(fp), 0);
    free(json);
    memset(&err, 0, sizeof err);
    assert_int_equal(av_gpt2_load(&m, dir, &err), AV_EUSAGE);
    snprintf(want, sizeof want, "%s: config.json's tie_word_embeddings is false and lm_head.weight differs from "
             "wte.weight: an untied output layer, which attnviz does not run; allowed: a GPT-2 whose output layer is "
             "tied to wte, as GPT-2's own checkpoints are (tie_word_embeddings true or absent, GPT2Config's default, "
             "with no lm_head.weight or one equal to wte.weight)", tu_sh_word(st_path));
    if (!strstr(err.msg, want))
        fail_msg("untied message: %s", err.msg);
}

/* The weights line says what the file holds (it said "F32, read in place"
 * for a file whose every second tensor was F16): m.dtype names every
 * dtype among the tensors, m.in_place is 1 only when no tensor was converted
 * or copied. The checkpoint is gpt2_f32's weights with every second tensor
 * written as F16; then the F32 file with its header padded by 2 more spaces
 * (the format allows space padding), so the data begins at byte 8 + N with
 * 8 + N = 2 (mod 4): no float32 of it is 4-byte aligned, and each is copied. */
static void test_dtype_and_in_place_say_what_the_file_holds(void **state) {
    fixture *f = *state;
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/mixed", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    make_model(dir, "gpt2_f32", AV_ST_F32, "", 0); /* config.json; model.safetensors rewritten below */
    char *json = tu_slurp_file(src_path("tests/ref/gpt2/gpt2_f32/config.json"), NULL);
    av_gpt2_config cfg;
    av_err err = {{0}};
    if (av_gpt2_config_parse(&cfg, json, strlen(json), "config.json", &err)) fail_msg("%s", err.msg);
    free(json);
    av_gpt2_params p = {0};
    float *block = NULL;
    assert_int_equal(gf_params(&p, &block, &cfg), 0);
    int n = av_gpt2_num_tensors(&cfg);
    av_gpt2_tensor *tab = calloc((size_t)n, sizeof *tab);
    av_st_write_tensor *w = calloc((size_t)n, sizeof *w);
    assert_non_null(tab);
    assert_non_null(w);
    av_gpt2_tensor_table(tab, &cfg, &p);
    for (int i = 0; i < n; i++)
        w[i] = (av_st_write_tensor){tab[i].name, i % 2 ? AV_ST_F16 : AV_ST_F32, tab[i].ndim,
                                    {tab[i].shape[0], tab[i].shape[1]}, *tab[i].slot};
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (av_safetensors_write(path, w, n, &err)) fail_msg("%s", err.msg);
    free(w);
    free(tab);
    free(block);
    free(p.h);
    av_gpt2 m;
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_string_equal(m.dtype, "F32 and F16");
    assert_int_equal(m.in_place, 0);
    av_gpt2_free(&m);

    make_model(dir, "gpt2_f32", AV_ST_F32, "", 0);
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_string_equal(m.dtype, "F32");
    assert_int_equal(m.in_place, 1);
    av_gpt2_free(&m);

    size_t len = 0;
    unsigned char *buf = (unsigned char *)tu_slurp_file(path, &len);
    assert_non_null(buf);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | buf[i];
    assert_int_equal((8 + hl) % 8, 0); /* the writer pads to 8 */
    unsigned char *moved = malloc(len + 2);
    assert_non_null(moved);
    for (int i = 0; i < 8; i++) moved[i] = (unsigned char)((hl + 2) >> (8 * i));
    memcpy(moved + 8, buf + 8, (size_t)hl);
    memcpy(moved + 8 + hl, "  ", 2);
    memcpy(moved + 8 + hl + 2, buf + 8 + hl, len - 8 - (size_t)hl);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(moved, 1, len + 2, fp), len + 2);
    fclose(fp);
    free(moved);
    free(buf);
    if (av_gpt2_load(&m, dir, &err)) fail_msg("%s", err.msg);
    assert_string_equal(m.dtype, "F32");
    assert_int_equal(m.in_place, 0);
    av_gpt2_free(&m);
    check_forward(dir, "gpt2_f32", 1, AV_KERNEL_REFERENCE); /* the copies hold the same values */
}

/* ------------------------------------------------------------------------- */
/* config.json */

static void test_config_parse(void **state) {
    (void)state;
    av_gpt2_config c;
    av_err err = {{0}};
    const char *gpt2 = "{\"n_layer\": 12, \"n_head\": 12, \"n_embd\": 768, \"n_positions\": 1024, \"vocab_size\": 50257,"
                       " \"layer_norm_epsilon\": 1e-05, \"activation_function\": \"gelu_new\", \"n_ctx\": 1024}";
    assert_int_equal(av_gpt2_config_parse(&c, gpt2, strlen(gpt2), "config.json", &err), AV_OK);
    assert_int_equal(c.n_layer, 12);
    assert_int_equal(c.n_embd, 768);
    assert_int_equal(c.positions, AV_POS_LEARNED);
    assert_int_equal(c.positions_given, 0);
    assert_int_equal(c.norm, AV_NORM_PRE);
    assert_int_equal(c.scale, 1);
    const char *toy = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40,"
                      " \"attnviz\": {\"positions\": \"rope\", \"norm\": \"post\", \"scale\": false, \"rope_base\": 500,"
                      " \"rope_style\": \"half\"}}";
    assert_int_equal(av_gpt2_config_parse(&c, toy, strlen(toy), "config.json", &err), AV_OK);
    assert_int_equal(c.positions, AV_POS_ROPE);
    assert_int_equal(c.positions_given, 1);
    assert_int_equal(c.norm, AV_NORM_POST);
    assert_int_equal(c.scale, 0);
    assert_int_equal(c.rope_style, AV_ROPE_HALF);
    assert_true(c.rope_base == 500.0);
    /* scale_attn_weights (GPT2Config's key) alone, or agreeing with attnviz.scale */
    /* another value by its truth: GPT2Config keeps it as given, and GPT-2's attention tests it by truth (`if
     * module.scale_attn_weights:`), so null, 0 and "" divide by nothing and 1 and "yes" by √d_k (Python's bool());
     * null was refused without naming the value (a GPT-2 user's pass), then 0 and "yes" refused while
     * scale_attn_by_inverse_layer_idx's 0 ran as false (a review of the change). The value is kept for the trace. */
    static const struct { const char *json; int scale; const char *value; } hf_scale[] = {
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": false}", 0, ""},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": true}", 1, ""},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": false, \"attnviz\": {\"scale\": false}}", 0, ""},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": null}", 0, "null"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": null, \"attnviz\": {\"scale\": false}}", 0, "null"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": 0}", 0, "0"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": \"\"}", 0, "\"\""},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": 1}", 1, "1"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": \"yes\"}", 1, "\"yes\""},
    };
    for (size_t i = 0; i < sizeof hf_scale / sizeof hf_scale[0]; i++) {
        av_gpt2_config h;
        if (av_gpt2_config_parse(&h, hf_scale[i].json, strlen(hf_scale[i].json), "config.json", &err))
            fail_msg("%s: %s", hf_scale[i].json, err.msg);
        assert_int_equal(h.scale, hf_scale[i].scale);
        assert_string_equal(h.scale_value, hf_scale[i].value);
        const char *why = av_gpt2_no_scale_why(&h);
        char want[160];
        snprintf(want, sizeof want, "config.json's scale_attn_weights is %s, which transformers reads as false",
                 hf_scale[i].value);
        if (h.scale) assert_null(why);
        else assert_string_equal(why, hf_scale[i].value[0] ? want : "the model was trained without it");
    }
    /* the writer's text parses back to the same config */
    char *out;
    assert_int_equal(av_gpt2_config_json(&out, &c, &err), AV_OK);
    av_gpt2_config back;
    assert_int_equal(av_gpt2_config_parse(&back, out, strlen(out), "config.json", &err), AV_OK);
    assert_int_equal(back.positions_given, 1); /* the toy's layout is not GPT-2's, so the writer states it */
    /* c's text has no layer_norm_epsilon (ε is GPT2Config's default, which the trace says); the writer states ε */
    assert_int_equal(c.layer_norm_epsilon_default, 1);
    assert_int_equal(back.layer_norm_epsilon_default, 0);
    c.layer_norm_epsilon_default = 0;
    assert_memory_equal(&back, &c, sizeof c);
    free(out);
}

/* What config.json claims for Hugging Face. Without the scale: GPT2Config's "scale_attn_weights":
 * false, which transformers computes, so model_type gpt2 and GPT2LMHeadModel stay. Post-LN,
 * sinusoidal positions and RoPE (no wpe) transformers' GPT2LMHeadModel does not compute: those
 * claimed GPT2LMHeadModel under model_type gpt2, so AutoModelForCausalLM built it from the folder
 * and computed other logits. Now an architecture and model_type transformers does not know, and a
 * note; every text parses back to the same config. */
static void test_config_json_claims_gpt2_only_when_hf_computes_it(void **state) {
    (void)state;
    static const struct {
        av_positions pos;
        av_norm norm;
        int scale, hf;
        const char *note;
    } cases[] = {
        {AV_POS_LEARNED, AV_NORM_PRE, 1, 1, NULL},
        {AV_POS_LEARNED, AV_NORM_PRE, 0, 1, NULL},
        {AV_POS_LEARNED, AV_NORM_POST, 1, 0, "Post-LN"},
        {AV_POS_SINUSOIDAL, AV_NORM_PRE, 1, 0, "sinusoidal positions"},
        {AV_POS_ROPE, AV_NORM_PRE, 0, 0, "RoPE"},
        {AV_POS_ROPE, AV_NORM_POST, 1, 0, "Post-LN, RoPE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        av_gpt2_config c, back;
        av_err err = {{0}};
        char *out;
        av_gpt2_config_defaults(&c);
        c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.n_positions = 32, c.vocab_size = 40;
        c.positions = cases[i].pos, c.norm = cases[i].norm, c.scale = cases[i].scale;
        assert_int_equal(av_gpt2_config_is_hf(&c), cases[i].hf);
        assert_int_equal(av_gpt2_config_json(&out, &c, &err), AV_OK);
        int claims = strstr(out, "\"model_type\": \"gpt2\"") && strstr(out, "\"architectures\": [\"GPT2LMHeadModel\"]");
        if (claims != cases[i].hf || (!cases[i].hf && strstr(out, "GPT2LMHeadModel\"]")))
            fail_msg("case %zu: %s", i, out);
        if (!cases[i].hf) {
            char note[200];
            snprintf(note, sizeof note, "\"attnviz_note\": \"not a Hugging Face GPT-2: %s", cases[i].note);
            if (!strstr(out, "\"model_type\": \"attnviz_gpt2\"") || !strstr(out, "\"architectures\": [\"AttnvizGPT2\"]") ||
                !strstr(out, note))
                fail_msg("case %zu: %s", i, out);
        }
        assert_int_equal(strstr(out, "\"scale_attn_weights\": false") != NULL, !cases[i].scale);
        if (av_gpt2_config_parse(&back, out, strlen(out), "config.json", &err)) fail_msg("case %zu: %s\n%s", i, err.msg, out);
        /* the writer states the positions exactly when it writes the "attnviz" object: not for GPT-2's own layout */
        assert_int_equal(back.positions_given, cases[i].pos != AV_POS_LEARNED || cases[i].norm != AV_NORM_PRE || !cases[i].scale);
        c.positions_given = back.positions_given;
        assert_memory_equal(&back, &c, sizeof c);
        free(out);
    }
}

/* The warning of a config.json that claims GPT-2 but is not one names the file as the caller shows it, here a quoted
 * shell word of 263 bytes: "%.200s" kept its first 200 bytes, which end inside the 64th 深 (10 + 63 · 3 = 199) and
 * lose the closing quote, so the warning was not UTF-8 and opened a quote it never closed. Now the name's start and
 * end are kept at whole characters, the end with "config.json'" whole. */
static void test_claim_warning_names_a_long_file_whole(void **state) {
    (void)state;
    char name[300] = "'/tmp/a b/";
    for (int i = 0; i < 80; i++) strcat(name, "\xE6\xB7\xB1"); /* 深 */
    strcat(name, "/config.json'");
    static const char json[] = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, "
                               "\"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"norm\": \"post\"}}";
    av_gpt2_config c;
    av_err err = {{0}}, u = {{0}};
    assert_int_equal(av_gpt2_config_parse(&c, json, strlen(json), name, &err), AV_OK);
    assert_int_equal(av_utf8_check(c.warning, strlen(c.warning), &u), AV_OK);
    assert_non_null(strstr(c.warning, "\xE6\xB7\xB1/config.json': model_type \"gpt2\" claims a Hugging Face GPT-2, but "
                                      "attnviz.norm \"post\" is not one"));
    assert_true(strncmp(c.warning, "'/tmp/a b/\xE6\xB7\xB1", 13) == 0);
}

/* One key, one limit: n_layer 0 said "outside 1..128" and 1e12 "a whole number of at most 1e9". For each
 * size key of GPT2Config, the range the message gives for 0 is the one it gives for 1e12, -1e12 and 1e400
 * (infinity to cJSON), and the message names the value. */
static void test_config_keys_have_one_limit(void **state) {
    (void)state;
    static const char *const keys[] = {"n_layer", "n_head", "n_embd", "n_positions", "vocab_size"};
    static const char *const values[] = {"1099511627776", "-1099511627776", "1e400"};
    static const char *const shown[] = {"1099511627776", "-1099511627776", "(a number past 1.797e308)"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char json[400], want[200];
        const char *fmt = "{\"n_layer\": %s, \"n_head\": %s, \"n_embd\": %s, \"n_positions\": %s, \"vocab_size\": %s}";
        const char *v[5] = {"2", "2", "16", "32", "40"};
        v[k] = "0";
        snprintf(json, sizeof json, fmt, v[0], v[1], v[2], v[3], v[4]);
        av_gpt2_config c;
        av_err err = {{0}};
        assert_int_equal(av_gpt2_config_parse(&c, json, strlen(json), "config.json", &err), AV_EUSAGE);
        char range[80];
        const char *at = strstr(err.msg, " is outside ");
        if (!at) fail_msg("%s = 0: '%s' names no range", keys[k], err.msg);
        snprintf(range, sizeof range, "%s", at);
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            v[k] = values[i];
            snprintf(json, sizeof json, fmt, v[0], v[1], v[2], v[3], v[4]);
            snprintf(want, sizeof want, "config.json: %s %s%s", keys[k], shown[i], range);
            memset(&err, 0, sizeof err);
            assert_int_equal(av_gpt2_config_parse(&c, json, strlen(json), "config.json", &err), AV_EUSAGE);
            if (strcmp(err.msg, want) != 0) fail_msg("%s = %s: '%s', want '%s'", keys[k], values[i], err.msg, want);
        }
    }
}

static void test_config_errors(void **state) {
    (void)state;
    static const struct {
        const char *json, *msg;
    } cases[] = {
        /* cJSON stops at the end of the text and names its last byte (cJSON_ParseWithLengthOpts) */
        {"{\"n_layer\": 2", "config.json: not valid JSON near byte 12 of 13; it ends before its closing '}' (truncated?)"},
        {"[1, 2]", "config.json: not a JSON object (it is an array)"},
        {"{\"n_layer\": 2} x", "config.json: not valid JSON at byte 15 of 16: text follows the object"}, /* the x */
        {"{\"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "missing key \"n_layer\""},
        {"{\"n_layer\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "missing key \"n_head\""},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32}", "missing key \"vocab_size\""},
        {"{\"n_layer\": 2.5, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "\"n_layer\" 2.5 must be a whole number"},
        {"{\"n_layer\": \"2\", \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "\"n_layer\" is \"2\"; it must be a whole number"},
        /* a whole number past 1e9 is named against n_layer's own range, not "not a whole number" (nor "at most
         * 1e9", a second limit beside 1..128: test_config_keys_have_one_limit) */
        {"{\"n_layer\": 1099511627776, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "config.json: n_layer 1099511627776 is outside 1..128"},
        {"{\"n_layer\": 2, \"n_head\": 5, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "n_head 5 does not divide n_embd 16"},
        {"{\"n_layer\": 0, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "n_layer 0 is outside 1..128"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": -1}", "vocab_size -1 is outside"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"layer_norm_epsilon\": 0}", "layer_norm_epsilon 0 is outside (0, 1)"},
        /* cJSON reads 1e400 as infinity: the message says what the file holds, not "inf" (a tester's report) */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"layer_norm_epsilon\": 1e400}", "layer_norm_epsilon (a number past 1.797e308) is outside (0, 1)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"positions\": \"rope\", \"rope_base\": -1e400}}", "attnviz.rope_base (a number past -1.797e308) must be a finite number greater than 1"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"activation_function\": \"relu\"}", "config.json: activation_function is \"relu\"; attnviz supports only GPT-2's tanh GELU, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): \"gelu_new\", or \"gelu_pytorch_tanh\", \"gelu_fast\" or \"gelu_accurate\" (transformers' other names for it)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"activation_function\": null}", "activation_function is null; attnviz supports only GPT-2's tanh GELU"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"layer_norm_epsilon\": \"1e-5\"}", "\"layer_norm_epsilon\" is \"1e-5\"; it must be a number"},
        /* null is no default (GPT2Config keeps the None; nn.LayerNorm then fails): the message says the key can go */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"layer_norm_epsilon\": null}", "config.json: \"layer_norm_epsilon\" is null; it must be a number, or the key left out for GPT2Config's default 1e-05 (transformers keeps a null and fails on it with a TypeError)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": [1]}", "\"attnviz\" is [1]; it must be an object"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"rope_base\": \"1e4\"}}", "attnviz.rope_base is \"1e4\"; it must be a number"},
        /* refused with learned positions too (the default here): 0 and -5 were accepted silently, checked only for
         * RoPE (a tester's report); the bound is RoPE's θ > 1, as --rope-base's */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"positions\": \"learned\", \"rope_base\": 0}}", "config.json: attnviz.rope_base 0 must be a finite number greater than 1"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"rope_base\": -5}}", "config.json: attnviz.rope_base -5 must be a finite number greater than 1"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"positions\": \"alibi\"}}", "attnviz.positions \"alibi\": expected learned, sinusoidal, rope or none"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"norm\": 1}}", "attnviz.norm 1: expected pre or post"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"scale\": 1}}", "attnviz.scale is 1; it must be true or false"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 18, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"positions\": \"rope\"}}", "RoPE needs an even d_k; d_k = n_embd / n_head = 18 / 2 = 9 (allowed: n_embd a multiple of 2·n_head = 4)"},
        {"{\"model_type\": \"mistral\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "config.json: model_type \"mistral\" is not supported (allowed: gpt2, llama, qwen2)"},
        /* GPT2Config's MLP width: null or 4·n_embd is GPT-2's; another value was ignored (d_ff stayed 4·n_embd) */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": 32}", "config.json: n_inner 32 is not supported (allowed: null or 4·n_embd = 64, GPT-2's MLP width)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": \"64\"}", "\"n_inner\" is \"64\"; it must be null or a whole number"},
        /* every wrong width by its value and the one allowed: 1e12 said "at most 1e9" */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": 1e12}", "config.json: n_inner 1000000000000 is not supported (allowed: null or 4·n_embd = 64, GPT-2's MLP width)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": 64.5}", "config.json: n_inner 64.5 is not supported (allowed: null or 4·n_embd = 64"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": -1e400}", "config.json: n_inner (a number past -1.797e308) is not supported"},
        /* n_embd past its range with an n_inner: 4·n_embd overflowed an int before n_embd was checked */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 1000000000, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": 64}", "config.json: n_embd 1000000000 is outside 1..4096"},
        /* the value as JSON spells it (io/jsonval.h av_json_shown): "%.40s" printed the \n raw, splitting the message
         * in two lines, and cut 39 x's and 深 after the 40th byte, inside 深 (its lead byte alone, U+FFFD to a
         * terminal) with no sign of the cut; by hand: '"' and 39 x's are 40 bytes, the 41st starts 深, so "…" there */
        {"{\"model_type\": \"bert\\nfoo\\\"x\", \"n_layer\": 2}", "config.json: model_type \"bert\\nfoo\\\"x\" is not supported (allowed: gpt2, llama, qwen2)"},
        {"{\"model_type\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\u6df1\", \"n_layer\": 2}", "config.json: model_type \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xE2\x80\xA6 is not supported (allowed: gpt2, llama, qwen2)"},
        {"{\"model_type\": 2, \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "model_type (not a string) is not supported (allowed: gpt2, llama, qwen2)"},
        /* GPT2Config's scale_attn_weights and attnviz.scale say the same thing: a contradiction names both */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": false, \"attnviz\": {\"scale\": true}}", "config.json: \"scale_attn_weights\": false contradicts attnviz.scale true"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": true, \"attnviz\": {\"scale\": false}}", "config.json: \"scale_attn_weights\": true contradicts attnviz.scale false"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": 0, \"attnviz\": {\"scale\": true}}", "config.json: \"scale_attn_weights\": 0 (no \xC3\xB7\xE2\x88\x9A" "d_k in transformers) contradicts attnviz.scale true"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": \"yes\", \"attnviz\": {\"scale\": false}}", "config.json: \"scale_attn_weights\": \"yes\" (\xC3\xB7\xE2\x88\x9A" "d_k in transformers) contradicts attnviz.scale false"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_weights\": null, \"attnviz\": {\"scale\": true}}", "config.json: \"scale_attn_weights\": null (no \xC3\xB7\xE2\x88\x9A" "d_k in transformers) contradicts attnviz.scale true"},
        /* GPT-2's code tests these flags by truth (`if module.scale_attn_by_inverse_layer_idx:` divides layer l's
         * scores by l + 1): 1, "yes" and [0] are true there, and ran here without them (a GPT-2 user's pass) */
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"scale_attn_by_inverse_layer_idx\": 1}", "config.json: \"scale_attn_by_inverse_layer_idx\" is 1; it must be false, null or 0 (GPT-2 has false; transformers reads this value as true, which attnviz does not support)"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"add_cross_attention\": \"yes\"}", "config.json: \"add_cross_attention\" is \"yes\"; it must be false, null or 0"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"reorder_and_upcast_attn\": [0]}", "config.json: \"reorder_and_upcast_attn\" is [0]; it must be false, null or 0"},
        {"{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"add_cross_attention\": true}", "config.json: \"add_cross_attention\": true is not supported (GPT-2 has false)"},
        /* attnviz_gpt2 says "not a Hugging Face GPT-2"; only the object's norm/positions say how (it ran as plain GPT-2) */
        {"{\"model_type\": \"attnviz_gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40}", "config.json: model_type \"attnviz_gpt2\" needs the \"attnviz\" object (norm, positions)"},
        {"{\"model_type\": \"attnviz_gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"attnviz\": {\"task\": \"reverse\"}}", "without norm or positions in it the folder would run as a plain Pre-LN GPT-2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        av_gpt2_config c;
        av_err err = {{0}};
        assert_int_equal(av_gpt2_config_parse(&c, cases[i].json, strlen(cases[i].json), "config.json", &err), AV_EUSAGE);
        if (!strstr(err.msg, cases[i].msg)) fail_msg("case %zu: got '%s', want '%s'", i, err.msg, cases[i].msg);
    }
    /* Hugging Face's gpt2 config.json has "n_inner": null; 4·n_embd written out is the same model */
    static const char *const ok[] = {
        "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": null}",
        "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, \"n_inner\": 64}",
        /* the flags' false values in Python: what GPT-2 runs */
        "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 16, \"n_positions\": 32, \"vocab_size\": 40, "
        "\"scale_attn_by_inverse_layer_idx\": 0, \"reorder_and_upcast_attn\": null, \"add_cross_attention\": \"\"}"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        av_gpt2_config c;
        av_err err = {{0}};
        if (av_gpt2_config_parse(&c, ok[i], strlen(ok[i]), "config.json", &err)) fail_msg("%s: %s", ok[i], err.msg);
    }
}

/* ------------------------------------------------------------------------- */
/* the table and the kernels */

static void test_tensor_table(void **state) {
    (void)state;
    av_gpt2_config c;
    av_gpt2_config_defaults(&c);
    c.n_layer = 12, c.n_head = 12, c.n_embd = 768, c.n_positions = 1024, c.vocab_size = 50257;
    /* GPT-2 small: 124,439,808 parameters (wte tied), 148 tensors */
    assert_int_equal(av_gpt2_num_tensors(&c), 148);
    assert_int_equal(av_gpt2_num_params(&c), 124439808);
    av_gpt2_params p = {0};
    av_gpt2_layer h[12];
    p.h = h;
    av_gpt2_tensor tab[148];
    av_gpt2_tensor_table(tab, &c, &p);
    assert_string_equal(tab[0].name, "wte.weight");
    assert_string_equal(tab[1].name, "wpe.weight");
    assert_string_equal(tab[4].name, "h.0.attn.c_attn.weight");
    assert_int_equal(tab[4].shape[1], 2304);
    assert_ptr_equal(tab[4].slot, &h[0].attn_c_attn_w);
    assert_string_equal(tab[147].name, "ln_f.bias");
    size_t sum = 0;
    for (int i = 0; i < 148; i++) sum += tab[i].numel;
    assert_int_equal(sum, av_gpt2_num_params(&c));
}

static void test_layernorm_gelu_by_hand(void **state) {
    (void)state;
    /* x = [1, 2, 3, 4]: mean 2.5, var 1.25, rstd = 1/√(1.25 + 1e-5) */
    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 2, 1}, b[4] = {0, 0, 0, 1}, out[4], mean, rstd;
    layernorm_forward(out, &mean, &rstd, x, w, b, 1, 4, 1e-5);
    double rs = 1.0 / sqrt(1.25 + 1e-5);
    assert_float_equal(mean, 2.5, 1e-7);
    assert_float_equal(rstd, rs, 1e-6);
    assert_float_equal(out[0], -1.5 * rs, 1e-6);
    assert_float_equal(out[2], 2 * 0.5 * rs, 1e-6);
    assert_float_equal(out[3], 1.5 * rs + 1, 1e-6);
    /* gelu_new(1) = 0.5·(1 + tanh(√(2/π)·1.044715)) = 0.841192; gelu_new(-1) = -0.158808 */
    float g_in[3] = {1, -1, 0}, g[3];
    gelu_forward(g, g_in, 3);
    assert_float_equal(g[0], 0.841192, 1e-6);
    assert_float_equal(g[1], -0.158808, 1e-6);
    assert_float_equal(g[2], 0.0, 0);
}

static void test_forward_rejects_bad_ids_and_lengths(void **state) {
    (void)state;
    av_gpt2_config c;
    av_gpt2_config_defaults(&c);
    c.n_layer = 1, c.n_head = 2, c.n_embd = 8, c.n_positions = 4, c.vocab_size = 10;
    av_gpt2_params p = {0};
    float *block;
    assert_int_equal(gf_params(&p, &block, &c), 0);
    av_gpt2_acts a;
    av_err err = {{0}};
    assert_int_equal(av_gpt2_acts_alloc(&a, &c, 5, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "5 tokens is more than the model's 4 positions (n_positions in config.json); allowed: 1..4 tokens"));
    assert_int_equal(av_gpt2_acts_alloc(&a, &c, 3, &err), AV_OK);
    int ids[3] = {1, 10, 2};
    assert_int_equal(av_gpt2_forward(&a, &p, &c, ids, 3, &err), AV_EUSAGE);
    assert_non_null(strstr(err.msg, "token id 10 at position 1 is outside the vocabulary 0..9"));
    ids[1] = 9;
    assert_int_equal(av_gpt2_forward(&a, &p, &c, ids, 3, &err), AV_OK);
    /* causal: the first query sees only itself */
    assert_float_equal(a.att[0], 1.0, 0);
    assert_float_equal(a.att[1], 0.0, 0);
    /* an overflow after the last block is in the logits, after ln_f, which is no layer's (the message named
     * "layer 0", the last layer; a new user's report); one in wte + wpe comes before layer 0 */
    for (int i = 0; i < c.n_embd; i++) p.ln_f_w[i] = p.ln_f_b[i] = 3e38f;
    assert_int_equal(av_gpt2_forward(&a, &p, &c, ids, 3, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "the logits (after the final LayerNorm ln_f) overflowed float32 (a value became "
                                 "infinite); the checkpoint's weights are too large");
    assert_int_equal(err.overflowed, strlen("the logits (after the final LayerNorm ln_f) overflowed float32"));
    for (int i = 0; i < c.n_embd; i++) p.ln_f_w[i] = 1.0f, p.ln_f_b[i] = 0.0f, p.wte[c.n_embd + i] = p.wpe[i] = 3e38f;
    assert_int_equal(av_gpt2_forward(&a, &p, &c, ids, 3, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "the embedding (wte + positions, before layer 0) overflowed float32 (a value became "
                                 "infinite); the checkpoint's weights are too large");
    assert_true(err.overflowed);
    av_gpt2_acts_free(&a);
    free(block);
    free(p.h);
    /* GPT-2 small's 12 layers × 12 heads at 1400 tokens: 2·144·1400²·4 bytes
     * = 2,257,920,000 = 2.1 GiB > 2 GiB; the most that fit: 144·t² ≤ 2^28,
     * t = 1365 (144·1365² = 268,308,400; 144·1366² = 268,697,664 > 268,435,456) */
    c.n_layer = 12, c.n_head = 12, c.n_embd = 768, c.n_positions = 2048;
    assert_int_equal(av_gpt2_acts_alloc(&a, &c, 1400, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "1400 tokens need 2.1 GiB for the (layers, heads, T, T) = (12, 12, 1400, 1400) "
                                 "scores and weights, more than the 2 GiB allowed; give at most 1365 tokens");
    assert_int_equal(err.overflowed, 0); /* an ordinary error, in the av_err that held the overflow */
}

/* --generate's key/value cache (nn/gpt2_decode.h) against the full forward, which the numpy reference checks:
 * the logits of each token run alone after the cached ones are the full forward's row for that token. Every
 * kind of positions (learned, sinusoidal, RoPE in both pairings, none), Pre-LN and Post-LN, with and without
 * the scale; from an empty cache and from one filled by a forward of the first 4 tokens. The reference kernel
 * gives the same bits (the same per-row loops and sums); BLAS within 2e-5 relative (float32 sums of one row
 * against sgemm's of ten). Then its errors: a full cache, an id outside the vocabulary. */
static void test_decode_cache_is_the_full_forward(void **state) {
    (void)state;
    enum { T = 10, P = 4 };
    static const struct { av_positions pos; av_rope_style style; } kinds[] = {
        {AV_POS_LEARNED, AV_ROPE_INTERLEAVED}, {AV_POS_SINUSOIDAL, AV_ROPE_INTERLEAVED},
        {AV_POS_ROPE, AV_ROPE_INTERLEAVED}, {AV_POS_ROPE, AV_ROPE_HALF}, {AV_POS_NONE, AV_ROPE_INTERLEAVED}};
    int ids[T] = {3, 17, 0, 22, 5, 5, 11, 8, 19, 2};
    int checked = 0;
    for (size_t kd = 0; kd < sizeof kinds / sizeof kinds[0]; kd++)
        for (int variant = 0; variant < 8; variant++) {
            av_gpt2_config c;
            av_gpt2_config_defaults(&c);
            c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.n_positions = 12, c.vocab_size = 23;
            c.positions = kinds[kd].pos, c.rope_style = kinds[kd].style;
            c.norm = variant & 1 ? AV_NORM_POST : AV_NORM_PRE;
            c.scale = !(variant & 2);
            c.kernel = variant & 4 ? AV_KERNEL_BLAS : AV_KERNEL_REFERENCE;
            av_gpt2_params p = {0};
            float *block = NULL;
            assert_int_equal(gf_params(&p, &block, &c), 0);
            av_err err = {{0}};
            av_gpt2_acts full, part;
            assert_int_equal(av_gpt2_acts_alloc(&full, &c, T, &err), AV_OK);
            assert_int_equal(av_gpt2_acts_alloc(&part, &c, P, &err), AV_OK);
            if (av_gpt2_forward(&full, &p, &c, ids, T, &err) || av_gpt2_forward(&part, &p, &c, ids, P, &err))
                fail_msg("%s", err.msg);
            for (int from = 0; from < 2; from++) { /* 0: an empty cache; 1: prefilled with the first P tokens */
                av_gpt2_cache cache;
                assert_int_equal(av_gpt2_cache_alloc(&cache, &c, T, &err), AV_OK);
                int t = 0;
                if (from) av_gpt2_cache_prefill(&cache, &part, &c), t = P;
                assert_int_equal(cache.T, t);
                for (; t < T; t++) {
                    if (av_gpt2_decode(&cache, &p, &c, ids[t], &err)) fail_msg("%s", err.msg);
                    const float *want = full.logits + (size_t)t * c.vocab_size;
                    for (int v = 0; v < c.vocab_size; v++) {
                        double tol = c.kernel == AV_KERNEL_REFERENCE ? 0.0 : 2e-5 * (1.0 + fabs(want[v]));
                        if (!(fabs((double)cache.logits[v] - want[v]) <= tol))
                            fail_msg("positions %s%s, %s, scale %d, %s, %s: token %d, logit %d: %.9g, full forward "
                                     "%.9g", av_positions_name(c.positions),
                                     c.positions == AV_POS_ROPE && c.rope_style == AV_ROPE_HALF ? " (half)" : "",
                                     c.norm == AV_NORM_POST ? "post-LN" : "pre-LN", c.scale,
                                     c.kernel == AV_KERNEL_BLAS ? "BLAS" : "reference",
                                     from ? "prefilled" : "empty cache", t, v, cache.logits[v], want[v]);
                        checked++;
                    }
                }
                assert_int_equal(cache.T, T);
                if (variant == 0 && from == 0) { /* its errors */
                    assert_int_equal(av_gpt2_decode(&cache, &p, &c, 1, &err), AV_EUSAGE);
                    assert_string_equal(err.msg, "the cache holds 10 positions, all of them filled");
                    cache.T = 3;
                    assert_int_equal(av_gpt2_decode(&cache, &p, &c, 23, &err), AV_EUSAGE);
                    assert_string_equal(err.msg, "token id 23 at position 3 is outside the vocabulary 0..22");
                    assert_int_equal(cache.T, 3);
                }
                av_gpt2_cache_free(&cache);
            }
            av_gpt2_acts_free(&full);
            av_gpt2_acts_free(&part);
            free(block);
            free(p.h);
        }
    assert_int_equal(checked, 5 * 8 * (T + (T - P)) * 23);
    /* learned positions: no cache past n_positions */
    av_gpt2_config c;
    av_gpt2_config_defaults(&c);
    c.n_layer = 1, c.n_head = 2, c.n_embd = 8, c.n_positions = 4, c.vocab_size = 10;
    av_gpt2_cache cache;
    av_err err = {{0}};
    assert_int_equal(av_gpt2_cache_alloc(&cache, &c, 5, &err), AV_EUSAGE);
    assert_string_equal(err.msg, "a cache of 5 positions is more than the model's 4 (n_positions)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_checkpoint_bytes_equal_script, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_forward_matches_numpy, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_prefix_and_buffers_do_not_matter, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_lm_head_other_than_wte_is_refused, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_unexpected_tensor_name_is_shown, tu_setup_tmpdir, tu_teardown_tmpdir),
        cmocka_unit_test_setup_teardown(test_dtype_and_in_place_say_what_the_file_holds, tu_setup_tmpdir,
                                        tu_teardown_tmpdir),
        cmocka_unit_test(test_config_parse),
        cmocka_unit_test(test_config_json_claims_gpt2_only_when_hf_computes_it),
        cmocka_unit_test(test_claim_warning_names_a_long_file_whole),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_config_keys_have_one_limit),
        cmocka_unit_test(test_tensor_table),
        cmocka_unit_test(test_layernorm_gelu_by_hand),
        cmocka_unit_test(test_forward_rejects_bad_ids_and_lengths),
        cmocka_unit_test(test_decode_cache_is_the_full_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
