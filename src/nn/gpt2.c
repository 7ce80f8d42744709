/* gpt2.c - the GPT-2 model: config.json, the parameter table, activations,
 * loading from safetensors, the block kernels and the forward pass (see
 * gpt2.h for the math and the legend L, T, C, H, D, V). Plain reference
 * loops; sums in double, rounded once. */
#include "nn/gpt2.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "io/jsonval.h"
#include "io/safetensors.h"
#include "base/parallel.h"
#include "base/utf8.h"
#include "nn/attention_blas.h"

/* ----------------------------------------------------------------------------
 * config */

void av_gpt2_config_defaults(av_gpt2_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->layer_norm_epsilon = 1e-5;
    cfg->positions = AV_POS_LEARNED;
    cfg->norm = AV_NORM_PRE;
    cfg->scale = 1;
    cfg->rope_base = 10000.0;
    cfg->rope_style = AV_ROPE_INTERLEAVED;
}

/* The name config.json gave a size by: the alias it used (key_n_head ...), or the GPT2Config key. */
#define KEY(c, k) ((c)->key_##k ? (c)->key_##k : #k)

const char *av_gpt2_positions_from(const av_gpt2_config *cfg) {
    return cfg->key_n_positions && strcmp(cfg->key_n_positions, "max_position_embeddings") == 0
               ? "max_position_embeddings in config.json"
               : "n_positions in config.json";
}

const char *av_gpt2_no_scale_why(const av_gpt2_config *cfg) {
    return cfg->scale ? NULL : cfg->no_scale_why[0] ? cfg->no_scale_why : "the model was trained without it";
}

/* av_gpt2_config_check with the errors prefixed by n (the file's path). Each size is named as the file named it:
 * "num_attention_heads": 3 with "hidden_size": 64 said "n_head 3 does not divide n_embd 64", keys the file does
 * not have (a tester's pass). */
static av_status check_config(const av_gpt2_config *c, const char *n, av_err *err) {
    if (c->n_layer < 1 || c->n_layer > AV_GPT2_MAX_LAYERS)
        return av_fail(err, AV_EUSAGE, "%s: %s %d is outside 1..%d", n, KEY(c, n_layer), c->n_layer,
                       AV_GPT2_MAX_LAYERS);
    if (c->n_embd < 1 || c->n_embd > AV_MAX_D_MODEL)
        return av_fail(err, AV_EUSAGE, "%s: %s %d is outside 1..%d", n, KEY(c, n_embd), c->n_embd, AV_MAX_D_MODEL);
    if (c->n_head < 1 || c->n_head > AV_MAX_HEADS)
        return av_fail(err, AV_EUSAGE, "%s: %s %d is outside 1..%d", n, KEY(c, n_head), c->n_head, AV_MAX_HEADS);
    if (c->n_embd % c->n_head)
        return av_fail(err, AV_EUSAGE, "%s: %s %d does not divide %s %d", n, KEY(c, n_head), c->n_head,
                       KEY(c, n_embd), c->n_embd);
    if (c->vocab_size < 1 || c->vocab_size > AV_GPT2_MAX_VOCAB)
        return av_fail(err, AV_EUSAGE, "%s: vocab_size %d is outside 1..%d", n, c->vocab_size, AV_GPT2_MAX_VOCAB);
    if (c->n_positions < 1 || c->n_positions > AV_GPT2_MAX_POSITIONS)
        return av_fail(err, AV_EUSAGE, "%s: %s %d is outside 1..%d", n, KEY(c, n_positions), c->n_positions,
                       AV_GPT2_MAX_POSITIONS);
    char v[32]; /* 1e400 is "a number past 1.797e308", not "inf" */
    if (!(c->layer_norm_epsilon > 0 && c->layer_norm_epsilon < 1))
        return av_fail(err, AV_EUSAGE, "%s: layer_norm_epsilon %s is outside (0, 1)", n,
                       av_num_shown(v, c->layer_norm_epsilon));
    if (c->positions == AV_POS_ROPE && (c->n_embd / c->n_head) % 2)
        return av_fail(err, AV_EUSAGE, "%s: RoPE needs an even d_k; d_k = %s / %s = %d / %d = %d (allowed: "
                       "%s a multiple of 2·%s = %d)", n, KEY(c, n_embd), KEY(c, n_head), c->n_embd, c->n_head,
                       c->n_embd / c->n_head, KEY(c, n_embd), KEY(c, n_head), 2 * c->n_head);
    /* wherever it appears, as transformers validates a config's fields: 0 or -5 with learned positions was
     * accepted silently (a tester's report), and goes into --train's config.json and the figures' metadata */
    if (!(c->rope_base > 1 && isfinite(c->rope_base)))
        return av_fail(err, AV_EUSAGE, "%s: attnviz.rope_base %s must be a finite number greater than 1", n,
                       av_num_shown(v, c->rope_base));
    return AV_OK;
}

av_status av_gpt2_config_check(const av_gpt2_config *c, av_err *err) {
    return check_config(c, "config.json", err);
}

/* What a size key of GPT2Config holds and where the checkpoint shows it, for "add KEY with ...". */
static const char *size_meaning(const char *key) {
    static const char *const m[][2] = {
        {"n_layer", "the number of blocks (h.0 ... h.N-1 in model.safetensors)"},
        {"n_head", "the number of attention heads per block (the weights do not show it; d_k is n_embd / n_head)"},
        {"n_embd", "the model's width (wte.weight's columns)"},
        {"n_positions", "the model's context length (wpe.weight's rows)"},
        {"vocab_size", "the number of token ids (wte.weight's rows)"},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strcmp(key, m[i][0]) == 0) return m[i][1];
    return "its value";
}

/* The words of 'missing key "KEY" (...)' for a size key: attnviz requires the five and says what to write.
 * transformers' GPT2Config has a default for each (GPT-2 small's 12, 12, 768, 1024, 50257), so the old "GPT2Config
 * needs n_layer, ..." was not true (a tester's pass); attnviz takes none, as a wrong guess runs another model. */
#define AV_GPT2_MISSING_WHY                                                                                       \
    "attnviz needs n_layer, n_head, n_embd, n_positions and vocab_size, and guesses none: transformers' "        \
    "GPT2Config would take GPT-2 small's 12, 12, 768, 1024 and 50257, and a wrong guess runs another model"

/* A whole-number key of GPT2Config (io/jsonval.h says what is accepted), whose range check_config
 * checks: 1..max, named in the message for a number past 1e9 too. An absent key is
 * "NAME: missing key \"KEY\" (AV_GPT2_MISSING_WHY); add \"KEY\" with MEANING" (size_meaning). */
static av_status json_int(int *out, const cJSON *root, const char *key, int required, int max, const char *name,
                          av_err *err) {
    if (required && !cJSON_GetObjectItemCaseSensitive(root, key))
        return av_fail(err, AV_EUSAGE, "%s: missing key \"%s\" (" AV_GPT2_MISSING_WHY "); add \"%s\" with %s", name,
                       key, key, size_meaning(key));
    char allowed[32];
    snprintf(allowed, sizeof allowed, "1..%d", max);
    return av_json_int(out, root, key, required, AV_GPT2_MISSING_WHY, allowed, name, err);
}

/* A size key with the name transformers' GPT2Config.attribute_map gives it too; *named is set to alias when it
 * alone was read (NULL otherwise), for later messages (hidden_size is n_embd,
 * num_attention_heads n_head, num_hidden_layers n_layer, max_position_embeddings n_positions): a config.json
 * written with only the alias (by hand, or by a script that used the Llama names) loads in transformers, but said
 * 'missing key "n_layer"' here (a learner's pass). The alias alone is read as the key, in the alias's words (its
 * range too); both with one value are one; both with two values are refused, naming both (transformers would let
 * the alias win). */
static av_status json_size(int *out, const char **named, const cJSON *root, const char *key, const char *alias,
                           int max, const char *name, av_err *err) {
    *named = NULL;
    if (!cJSON_HasObjectItem(root, alias)) return json_int(out, root, key, 1, max, name, err);
    int a = 0, k = 0;
    av_status s = json_int(&a, root, alias, 1, max, name, err);
    if (!s && (a < 1 || a > max)) /* check_config would name the key, which the file does not have */
        return av_fail(err, AV_EUSAGE, "%s: %s %d is outside 1..%d (GPT2Config's %s)", name, alias, a, max, key);
    if (s || !cJSON_HasObjectItem(root, key)) return s ? s : (*out = a, *named = alias, AV_OK);
    if ((s = json_int(&k, root, key, 1, max, name, err))) return s;
    if (k != a)
        return av_fail(err, AV_EUSAGE, "%s: \"%s\" %d and \"%s\" %d disagree: transformers' GPT2Config reads %s "
                       "as %s, so they name one size; allowed: one of them, or both with the same value", name, key, k,
                       alias, a, alias, key);
    return *out = k, AV_OK;
}

/* n_ctx without n_positions: OpenAI's hparams.json and old configs name the context length so, but transformers'
 * GPT2Config keeps n_ctx as an unused extra and takes n_positions 1024 when it is absent (a wpe.weight of another
 * length then does not load), so it is named, not taken. 'missing key "n_positions"' alone did not mention it (a
 * user's report). */
static av_status check_n_ctx(const cJSON *root, const char *name, av_err *err) {
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "n_ctx");
    if (!ctx || cJSON_GetObjectItemCaseSensitive(root, "n_positions") ||
        cJSON_GetObjectItemCaseSensitive(root, "max_position_embeddings"))
        return AV_OK;
    char shown[64];
    av_json_shown(shown, sizeof shown, ctx);
    return av_fail(err, AV_EUSAGE, "%s: missing key \"n_positions\" (" AV_GPT2_MISSING_WHY "); it has \"n_ctx\": %s, "
                   "an older name of the context length, which transformers' GPT2Config does not read as "
                   "n_positions: add \"n_positions\" with the model's context length (wpe.weight's rows)", name, shown);
}

/* One string choice of the "attnviz" object: index into names, or -1 if absent. */
static av_status json_choice(int *out, const cJSON *obj, const char *key, const char *const *names, int n,
                             const char *allowed, const char *name, av_err *err) {
    *out = -1;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) return AV_OK;
    for (int i = 0; i < n && cJSON_IsString(j); i++)
        if (strcmp(j->valuestring, names[i]) == 0) return (*out = i), AV_OK;
    char shown[64];
    av_json_shown(shown, sizeof shown, j);
    return av_fail(err, AV_EUSAGE, "%s: attnviz.%s %s: expected %s", name, key, shown, allowed);
}

static av_status parse_attnviz(av_gpt2_config *c, const cJSON *a, const char *name, av_err *err) {
    static const char *const pos[] = {"none", "sinusoidal", "rope", "learned"}; /* av_positions order */
    static const char *const norm[] = {"pre", "post"}, *const style[] = {"interleaved", "half"};
    int v;
    av_status s;
    if (!cJSON_IsObject(a)) return av_json_wrong_kind(name, "\"attnviz\"", a, "an object", err);
    if ((s = json_choice(&v, a, "positions", pos, 4, "learned, sinusoidal, rope or none", name, err))) return s;
    if (v >= 0) c->positions = (av_positions)v;
    c->positions_given = v >= 0;
    if ((s = json_choice(&v, a, "norm", norm, 2, "pre or post", name, err))) return s;
    if (v >= 0) c->norm = (av_norm)v;
    if ((s = json_choice(&v, a, "rope_style", style, 2, "interleaved or half", name, err))) return s;
    if (v >= 0) c->rope_style = (av_rope_style)v;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(a, "scale");
    if (j && !cJSON_IsBool(j)) return av_json_wrong_kind(name, "attnviz.scale", j, "true or false", err);
    if (j) c->scale = cJSON_IsTrue(j);
    j = cJSON_GetObjectItemCaseSensitive(a, "rope_base");
    if (j && !cJSON_IsNumber(j)) return av_json_wrong_kind(name, "attnviz.rope_base", j, "a number", err);
    if (j) c->rope_base = j->valuedouble;
    return AV_OK;
}

/* Hugging Face options this forward does not implement must have GPT-2's values. */
static av_status check_unsupported(const cJSON *root, const char *name, av_err *err) {
    /* transformers' ACT2FN names that compute gelu_forward's function, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))),
     * only written another way (transformers/activations.py): gelu_new (NewGELUActivation, GPT-2's);
     * gelu_pytorch_tanh (torch's gelu(approximate="tanh"), the same formula); gelu_fast (FastGELUActivation:
     * tanh(x·0.7978845608·(1 + 0.044715·x²)), √(2/π) to 10 digits, the x factored out); gelu_accurate
     * (AccurateGELUActivation: √(2/π) precomputed). Not "gelu"/"gelu_python" (the exact erf GELU), quick_gelu
     * (x·σ(1.702x)) or gelu_10 (clipped): other functions. gelu_pytorch_tanh was refused as not gelu_new (a
     * user's report). */
    static const char *const tanh_gelu[] = {"gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu_accurate"};
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "activation_function");
    int same = 0;
    for (int i = 0; i < 4 && j && cJSON_IsString(j); i++) same |= strcmp(j->valuestring, tanh_gelu[i]) == 0;
    if (j && !same) {
        char shown[64];
        av_json_shown(shown, sizeof shown, j);
        int erf = cJSON_IsString(j) && (!strcmp(j->valuestring, "gelu") || !strcmp(j->valuestring, "gelu_python"));
        return av_fail(err, AV_EUSAGE, "%s: activation_function is %s%s; attnviz supports only GPT-2's tanh GELU, "
                       "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): \"gelu_new\", or \"gelu_pytorch_tanh\", "
                       "\"gelu_fast\" or \"gelu_accurate\" (transformers' other names for it)", name, shown,
                       erf ? " (the exact GELU, x·Φ(x) with erf: not the same function)" : "");
    }
    /* read by their truth, as GPT-2's code tests them (`if module.scale_attn_by_inverse_layer_idx:` divides layer
     * l's scores by l + 1; `if config.add_cross_attention:` adds cross-attention blocks): only true was refused,
     * and 1 or "yes" ran without them, other weights than transformers' (a GPT-2 user's pass), as Llama's
     * attention_bias 1 did (nn/llama.c); false, null, 0 and "" are false, the forward attnviz runs */
    static const char *const off[] = {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "add_cross_attention"};
    for (int i = 0; i < 3; i++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, off[i]);
        char quoted[48];
        snprintf(quoted, sizeof quoted, "\"%s\"", off[i]);
        if (cJSON_IsTrue(f))
            return av_fail(err, AV_EUSAGE, "%s: \"%s\": true is not supported (GPT-2 has false)", name, off[i]);
        if (f && !av_json_falsy(f))
            return av_json_wrong_kind(name, quoted, f, "false, null or 0 (GPT-2 has false; transformers reads this value "
                                      "as true, which attnviz does not support)", err);
    }
    return AV_OK;
}

/* GPT2Config's scale_attn_weights (true: scores ÷ √d_k, GPT-2's; false: none,
 * which transformers computes too) into c->scale. attnviz.scale says the same
 * thing, so with both present they must agree. Call after parse_attnviz.
 * Another value is read by its truth, its text kept in c->scale_value for the
 * trace: GPT2Config keeps it as given and GPT-2's attention tests it by truth
 * (`if module.scale_attn_weights:` in modeling_gpt2.py's eager_attention_forward,
 * whose weights output_attentions gives), so null, 0 and "" run without ÷√d_k
 * and 1 with it (io/jsonval.h av_json_falsy); null was refused with its value
 * unnamed (a GPT-2 user's pass), and then 0 refused while
 * scale_attn_by_inverse_layer_idx's 0 ran as false (a review of the change). */
static av_status parse_scale_attn_weights(av_gpt2_config *c, const cJSON *root, const char *name, av_err *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "scale_attn_weights");
    if (!j) return AV_OK;
    int hf = !av_json_falsy(j);
    char shown[40] = "";
    if (!cJSON_IsBool(j)) av_json_shown(shown, sizeof shown, j);
    const cJSON *mine = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "attnviz"), "scale");
    if (mine && hf != c->scale)
        return av_fail(err, AV_EUSAGE, "%s: \"scale_attn_weights\": %s%s contradicts attnviz.scale %s (both say whether "
                       "the scores are divided by √d_k; give one, or the same value)", name,
                       shown[0] ? shown : hf ? "true" : "false",
                       !shown[0] ? "" : hf ? " (÷√d_k in transformers)" : " (no ÷√d_k in transformers)",
                       c->scale ? "true" : "false");
    c->scale = hf;
    snprintf(c->scale_value, sizeof c->scale_value, "%s", shown);
    c->no_scale_why[0] = 0;
    if (shown[0] && !hf)
        snprintf(c->no_scale_why, sizeof c->no_scale_why, "config.json's scale_attn_weights is %s, which transformers "
                 "reads as false", shown);
    return AV_OK;
}

/* model_type "gpt2", or none: GPT2Config's own model_type, and older GPT-2
 * exports lack the key; or AV_GPT2_ATTNVIZ_TYPE, which attnviz --train writes
 * for variants transformers cannot compute (av_gpt2_config_json). Any other
 * family is refused by name rather than read as GPT-2 (llama and qwen2
 * folders go to nn/llama.h). */
static av_status check_model_type(const cJSON *root, const char *name, av_err *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!j || (cJSON_IsString(j) && (strcmp(j->valuestring, "gpt2") == 0 ||
                                     strcmp(j->valuestring, AV_GPT2_ATTNVIZ_TYPE) == 0)))
        return AV_OK;
    return av_model_type_refused(name, cJSON_IsString(j) ? j->valuestring : NULL, 0, err);
}

/* The model_type and architectures claims against the "attnviz" object (call
 * after parse_attnviz). AV_GPT2_ATTNVIZ_TYPE says "not a Hugging Face GPT-2",
 * which only the object says how: without it the folder would run as a plain
 * Pre-LN GPT-2, so it is an error. model_type "gpt2" or GPT2LMHeadModel with a
 * layout transformers does not compute (Post-LN, no learned positions) is what
 * earlier attnviz versions wrote: a warning in c->warning, since transformers
 * would compute other logits from the same weights. */
static av_status check_type_claims(av_gpt2_config *c, const cJSON *root, const char *name, av_err *err) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "attnviz");
    int attnviz_type = cJSON_IsString(type) && strcmp(type->valuestring, AV_GPT2_ATTNVIZ_TYPE) == 0;
    if (attnviz_type && (!a || (!cJSON_GetObjectItemCaseSensitive(a, "norm") &&
                                !cJSON_GetObjectItemCaseSensitive(a, "positions"))))
        return av_fail(err, AV_EUSAGE, "%s: model_type \"%s\" needs the \"attnviz\" object (norm, positions) that says "
                       "how it differs from GPT-2; without %s the folder would run as a plain Pre-LN GPT-2", name,
                       AV_GPT2_ATTNVIZ_TYPE, a ? "norm or positions in it" : "it");
    int gpt2_type = cJSON_IsString(type) && strcmp(type->valuestring, "gpt2") == 0, gpt2_arch = 0;
    const cJSON *arch;
    cJSON_ArrayForEach(arch, cJSON_GetObjectItemCaseSensitive(root, "architectures"))
        if (cJSON_IsString(arch) && strcmp(arch->valuestring, "GPT2LMHeadModel") == 0) gpt2_arch = 1;
    /* attnviz.scale false without GPT2Config's "scale_attn_weights": false: transformers divides by √d_k
     * (its default), attnviz does not; it ran without a word while Post-LN got the warning (a new user's
     * report, a folder edited to lie) */
    int scale_lie = !c->scale && !cJSON_GetObjectItemCaseSensitive(root, "scale_attn_weights");
    if (!(gpt2_type || gpt2_arch) || (av_gpt2_config_is_hf(c) && !scale_lie)) return AV_OK;
    static const char *const pos[] = {"none", "sinusoidal", "rope", "learned"}; /* av_positions order */
    char keys[160] = "";
    size_t k = 0;
    if (c->norm == AV_NORM_POST) k += (size_t)snprintf(keys + k, sizeof keys - k, "attnviz.norm \"post\"");
    if (c->positions != AV_POS_LEARNED)
        k += (size_t)snprintf(keys + k, sizeof keys - k, "%sattnviz.positions \"%s\"", k ? " and " : "",
                              pos[c->positions]);
    if (scale_lie)
        snprintf(keys + k, sizeof keys - k, "%sattnviz.scale false (without \"scale_attn_weights\": false)",
                 k ? " and " : "");
    char file[201]; /* the start and end of a long name, at whole characters: "%.200s" cut its closing quote off
                     * and split a character at byte 200 */
    av_utf8_cut_middle(name, strlen(name), file, sizeof file);
    snprintf(c->warning, sizeof c->warning,
             "%s: %s claims a Hugging Face GPT-2, but %s is not one: attnviz follows the attnviz object, while "
             "transformers would not (it computes a Pre-LN GPT-2 with learned positions%s)", file,
             gpt2_type ? "model_type \"gpt2\"" : "architectures [\"GPT2LMHeadModel\"]", keys,
             scale_lie ? " and scores ÷ √d_k" : "");
    return AV_OK;
}

av_status av_model_type_refused(const char *name, const char *value, int missing, av_err *err) {
    /* the string as JSON spells it (av_json_shown): "%.40s" cut a value inside a character and printed a \n in it
     * raw, breaking the message's line */
    char shown[48];
    cJSON *j = value ? cJSON_CreateString(value) : NULL;
    if (value) av_json_shown(shown, sizeof shown, j);
    cJSON_Delete(j);
    return av_fail(err, AV_EUSAGE, "%s: model_type %s is not supported (allowed: gpt2, llama, qwen2)", name,
                   value ? shown : missing ? "(missing)" : "(not a string)");
}

av_status av_gpt2_config_parse(av_gpt2_config *c, const char *json, size_t len, const char *name, av_err *err) {
    av_gpt2_config_defaults(c);
    cJSON *root;
    av_status s = av_json_parse_object(&root, json, len, NULL, name, err);
    if (s) return s;
    if ((s = check_model_type(root, name, err)) ||
        (s = json_size(&c->n_layer, &c->key_n_layer, root, "n_layer", "num_hidden_layers", AV_GPT2_MAX_LAYERS, name, err)) ||
        (s = json_size(&c->n_head, &c->key_n_head, root, "n_head", "num_attention_heads", AV_MAX_HEADS, name, err)) ||
        (s = json_size(&c->n_embd, &c->key_n_embd, root, "n_embd", "hidden_size", AV_MAX_D_MODEL, name, err)) ||
        (s = check_n_ctx(root, name, err)) ||
        (s = json_size(&c->n_positions, &c->key_n_positions, root, "n_positions", "max_position_embeddings",
                       AV_GPT2_MAX_POSITIONS, name, err)) ||
        (s = json_int(&c->vocab_size, root, "vocab_size", 1, AV_GPT2_MAX_VOCAB, name, err)) ||
        (s = check_unsupported(root, name, err)))
        goto done;
    /* null: GPT2Config defaults a missing key only and keeps a None, on which nn.LayerNorm's F.layer_norm fails
     * with a TypeError; the message said only "it must be a number", not that leaving the key out gives the
     * default, as Llama's rms_norm_eps null says (nn/llama.c's cfg_num) */
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "layer_norm_epsilon");
    if (j && !cJSON_IsNumber(j)) {
        s = av_json_wrong_kind(name, "\"layer_norm_epsilon\"", j, cJSON_IsNull(j) ? "a number, or the key left out "
                               "for GPT2Config's default 1e-05 (transformers keeps a null and fails on it with a "
                               "TypeError)" : "a number", err);
        goto done;
    }
    if (j) c->layer_norm_epsilon = j->valuedouble;
    c->layer_norm_epsilon_default = !j;
    if ((s = av_json_token_ids(c->eos_ids, &c->n_eos, &c->eos_left, &c->n_eos_left, AV_MAX_EOS, root, "eos_token_id",
                               c->vocab_size, name, err)))
        goto done;
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "attnviz")) && (s = parse_attnviz(c, j, name, err))) goto done;
    if ((s = parse_scale_attn_weights(c, root, name, err))) goto done;
    /* GPT2Config's tie_word_embeddings (default true); false needs lm_head.weight in the checkpoint (load_weights) */
    j = cJSON_GetObjectItemCaseSensitive(root, "tie_word_embeddings");
    if (j && !cJSON_IsBool(j)) {
        s = av_json_wrong_kind(name, "\"tie_word_embeddings\"", j, "true or false", err);
        goto done;
    }
    c->untied = cJSON_IsFalse(j);
    if ((s = check_type_claims(c, root, name, err))) goto done;
    if ((s = check_config(c, name, err))) goto done; /* first: n_embd is in range, so 4·n_embd fits an int */
    /* GPT2Config's n_inner: the MLP width, null meaning 4·n_embd. This forward's MLP is 4·n_embd (GPT-2's),
     * so another width is refused by name rather than read past (the checkpoint's c_fc holds it too) */
    j = cJSON_GetObjectItemCaseSensitive(root, "n_inner");
    if (j && !cJSON_IsNull(j) && !cJSON_IsNumber(j))
        s = av_json_wrong_kind(name, "\"n_inner\"", j, "null or a whole number", err);
    else if (j && !cJSON_IsNull(j) && j->valuedouble != 4.0 * c->n_embd) { /* 2.5 and 1e12 by their value too */
        char shown[32];
        s = av_fail(err, AV_EUSAGE, "%s: n_inner %s is not supported (allowed: null or 4·%s = %d, GPT-2's MLP "
                    "width)", name, av_num_exact(shown, j->valuedouble), KEY(c, n_embd), 4 * c->n_embd);
    }
done:
    cJSON_Delete(root);
    return s;
}

int av_gpt2_config_is_hf(const av_gpt2_config *c) {
    return c->positions == AV_POS_LEARNED && c->norm == AV_NORM_PRE;
}

av_status av_gpt2_config_json(char **out, const av_gpt2_config *c, av_err *err) {
    static const char *const pos[] = {"none", "sinusoidal", "rope", "learned"};
    char buf[2048], what[160] = "";
    int k;
    if (av_gpt2_config_is_hf(c)) {
        k = snprintf(buf, sizeof buf, "{\n  \"model_type\": \"gpt2\",\n  \"architectures\": [\"GPT2LMHeadModel\"],\n");
    } else { /* what transformers' GPT2Model would compute differently, and no claim that it can */
        static const char *const pos_what[] = {"no positions (no wpe)", "sinusoidal positions (no wpe)",
                                               "RoPE (no wpe)", ""}; /* av_positions order */
        snprintf(what, sizeof what, "%s%s%s", c->norm == AV_NORM_POST ? "Post-LN" : "",
                 c->norm == AV_NORM_POST && c->positions != AV_POS_LEARNED ? ", " : "", pos_what[c->positions]);
        k = snprintf(buf, sizeof buf,
                     "{\n  \"model_type\": \"%s\",\n  \"architectures\": [\"%s\"],\n"
                     "  \"attnviz_note\": \"not a Hugging Face GPT-2: %s, which transformers' GPT-2 does not compute "
                     "(model_type %s is unknown to transformers on purpose); run this folder with attnviz --model DIR\",\n",
                     AV_GPT2_ATTNVIZ_TYPE, AV_GPT2_ATTNVIZ_ARCH, what, AV_GPT2_ATTNVIZ_TYPE);
    }
    k += snprintf(buf + k, sizeof buf - (size_t)k,
                  "  \"activation_function\": \"gelu_new\",\n  \"n_layer\": %d,\n  \"n_head\": %d,\n"
                  "  \"n_embd\": %d,\n  \"n_positions\": %d,\n  \"n_ctx\": %d,\n  \"vocab_size\": %d,\n"
                  "  \"layer_norm_epsilon\": %.17g",
                  c->n_layer, c->n_head, c->n_embd, c->n_positions, c->n_positions, c->vocab_size, c->layer_norm_epsilon);
    if (!c->scale) /* GPT2Config's own key: transformers computes the unscaled scores too */
        k += snprintf(buf + k, sizeof buf - (size_t)k, ",\n  \"scale_attn_weights\": false");
    if (c->positions != AV_POS_LEARNED || c->norm != AV_NORM_PRE || !c->scale || c->rope_base != 10000.0 ||
        c->rope_style != AV_ROPE_INTERLEAVED)
        k += snprintf(buf + k, sizeof buf - (size_t)k,
                      ",\n  \"attnviz\": {\"positions\": \"%s\", \"norm\": \"%s\", \"scale\": %s, \"rope_base\": %.17g, "
                      "\"rope_style\": \"%s\"}",
                      pos[c->positions], c->norm == AV_NORM_POST ? "post" : "pre", c->scale ? "true" : "false",
                      c->rope_base, c->rope_style == AV_ROPE_HALF ? "half" : "interleaved");
    snprintf(buf + k, sizeof buf - (size_t)k, "\n}\n");
    if (!(*out = strdup(buf))) return av_fail(err, AV_ERUNTIME, "out of memory writing config.json");
    return AV_OK;
}

/* ----------------------------------------------------------------------------
 * the parameter table */

int av_gpt2_num_tensors(const av_gpt2_config *cfg) {
    return 3 + 12 * cfg->n_layer + (cfg->positions == AV_POS_LEARNED); /* wte, ln_f.w, ln_f.b */
}

static void row(av_gpt2_tensor **t, float **slot, size_t a, size_t b, const char *fmt, int l) {
    av_gpt2_tensor *r = (*t)++;
    snprintf(r->name, sizeof r->name, fmt, l);
    r->ndim = b ? 2 : 1;
    r->shape[0] = a;
    r->shape[1] = b;
    r->numel = b ? a * b : a;
    r->slot = slot;
}

void av_gpt2_tensor_table(av_gpt2_tensor *table, const av_gpt2_config *cfg, av_gpt2_params *p) {
    size_t C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size, maxT = (size_t)cfg->n_positions;
    av_gpt2_tensor *t = table;
    row(&t, &p->wte, V, C, "wte.weight", 0);
    if (cfg->positions == AV_POS_LEARNED) row(&t, &p->wpe, maxT, C, "wpe.weight", 0);
    for (int l = 0; l < cfg->n_layer; l++) {
        av_gpt2_layer *h = &p->h[l];
        row(&t, &h->ln_1_w, C, 0, "h.%d.ln_1.weight", l);
        row(&t, &h->ln_1_b, C, 0, "h.%d.ln_1.bias", l);
        row(&t, &h->attn_c_attn_w, C, 3 * C, "h.%d.attn.c_attn.weight", l);
        row(&t, &h->attn_c_attn_b, 3 * C, 0, "h.%d.attn.c_attn.bias", l);
        row(&t, &h->attn_c_proj_w, C, C, "h.%d.attn.c_proj.weight", l);
        row(&t, &h->attn_c_proj_b, C, 0, "h.%d.attn.c_proj.bias", l);
        row(&t, &h->ln_2_w, C, 0, "h.%d.ln_2.weight", l);
        row(&t, &h->ln_2_b, C, 0, "h.%d.ln_2.bias", l);
        row(&t, &h->mlp_c_fc_w, C, 4 * C, "h.%d.mlp.c_fc.weight", l);
        row(&t, &h->mlp_c_fc_b, 4 * C, 0, "h.%d.mlp.c_fc.bias", l);
        row(&t, &h->mlp_c_proj_w, 4 * C, C, "h.%d.mlp.c_proj.weight", l);
        row(&t, &h->mlp_c_proj_b, C, 0, "h.%d.mlp.c_proj.bias", l);
    }
    row(&t, &p->ln_f_w, C, 0, "ln_f.weight", 0);
    row(&t, &p->ln_f_b, C, 0, "ln_f.bias", 0);
}

size_t av_gpt2_num_params(const av_gpt2_config *cfg) {
    size_t C = (size_t)cfg->n_embd, L = (size_t)cfg->n_layer;
    size_t n = (size_t)cfg->vocab_size * C + 2 * C + L * (12 * C * C + 13 * C);
    return n + (cfg->positions == AV_POS_LEARNED ? (size_t)cfg->n_positions * C : 0);
}

/* ----------------------------------------------------------------------------
 * activations */

av_status av_acts_check_T(int T, int max_positions, const char *key, av_err *err) {
    int cap = max_positions > 0 && max_positions < AV_MAX_TOKENS ? max_positions : AV_MAX_TOKENS;
    if (T > cap && cap == max_positions)
        return av_fail(err, AV_EUSAGE, "%d tokens is more than the model's %d position%s (%s); allowed: "
                       "1..%d token%s", T, cap, cap == 1 ? "" : "s", key, cap, cap == 1 ? "" : "s");
    if (T < 1 || T > cap)
        return av_fail(err, AV_EUSAGE, "%d tokens is outside the allowed range 1..%d%s", T, cap,
                       T > cap ? " (attnviz's token limit)" : "");
    return AV_OK;
}

av_status av_gpt2_acts_alloc(av_gpt2_acts *a, const av_gpt2_config *cfg, int T, av_err *err) {
    memset(a, 0, sizeof *a);
    /* learned positions stop at wpe's last row; sinusoidal and RoPE have no such limit */
    av_status s = av_acts_check_T(T, cfg->positions == AV_POS_LEARNED ? cfg->n_positions : 0,
                                 av_gpt2_positions_from(cfg), err);
    if (s) return s;
    size_t C = (size_t)cfg->n_embd;
    return av_acts_alloc_sized(a, T, cfg->n_layer, cfg->n_embd, cfg->n_head, 3 * C, 4 * C, 4 * C,
                               (size_t)cfg->vocab_size, err);
}

av_status av_acts_alloc_sized(av_gpt2_acts *a, int T, int nL, int nC, int nH, size_t qkv, size_t fch, size_t act,
                              size_t V, av_err *err) {
    memset(a, 0, sizeof *a);
    size_t L = (size_t)nL, C = (size_t)nC, H = (size_t)nH, t = (size_t)T;
    size_t TC = t * C, LTC = L * TC, LHTT = L * H * t * t, LT = L * t;
    if (LHTT > AV_MAX_WEIGHT_BYTES / (2 * sizeof(float))) { /* preatt + att, every layer */
        size_t most = 1; /* the most tokens that fit: L·H·t² ≤ the limit / 8 */
        while (L * H * (most + 1) * (most + 1) <= AV_MAX_WEIGHT_BYTES / (2 * sizeof(float))) most++;
        char gib[32];
        return av_fail(err, AV_EUSAGE,
                       "%d tokens need %s GiB for the (layers, heads, T, T) = (%zu, %zu, %d, %d) scores and weights, "
                       "more than the %zu GiB allowed; give at most %zu tokens", T,
                       av_gib_over(gib, (double)LHTT * 2 * sizeof(float), (double)AV_MAX_WEIGHT_BYTES), L, H, T, T,
                       AV_MAX_WEIGHT_BYTES >> 30, most);
    }
    a->T = T;
    struct { float **p; size_t n; } bufs[] = {
        {&a->encoded, TC},      {&a->hidden, LTC + TC}, {&a->ln1, LTC},      {&a->ln1_mean, LT},
        {&a->ln1_rstd, LT},     {&a->qkv, LT * qkv},    {&a->qkvh, 3 * LTC}, {&a->preatt, LHTT},
        {&a->att, LHTT},        {&a->atty_h, LTC},      {&a->atty, LTC},     {&a->attproj, LTC},
        {&a->res2, LTC},        {&a->ln2, LTC},         {&a->ln2_mean, LT},  {&a->ln2_rstd, LT},
        {&a->fch, LT * fch},    {&a->fch_gelu, LT * act}, {&a->fcproj, LTC}, {&a->res3, LTC},
        {&a->lnf, TC},          {&a->lnf_mean, t},      {&a->lnf_rstd, t},   {&a->logits, t * V},
    };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (!(*bufs[i].p = av_calloc(bufs[i].n, sizeof(float)))) goto oom;
    if (!(a->mask = av_calloc(t * t, 1))) goto oom;
    return AV_OK;
oom:
    av_gpt2_acts_free(a);
    return av_fail(err, AV_ERUNTIME, "out of memory allocating activations for %d token%s", T, T == 1 ? "" : "s");
}

void av_gpt2_acts_free(av_gpt2_acts *a) {
    float *bufs[] = {a->encoded, a->hidden, a->ln1, a->ln1_mean, a->ln1_rstd, a->qkv, a->qkvh, a->preatt,
                     a->att, a->atty_h, a->atty, a->attproj, a->res2, a->ln2, a->ln2_mean, a->ln2_rstd,
                     a->fch, a->fch_gelu, a->fcproj, a->res3, a->lnf, a->lnf_mean, a->lnf_rstd, a->logits};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(a->mask);
    memset(a, 0, sizeof *a);
}

/* ----------------------------------------------------------------------------
 * kernels */

float gpt2_dot(const float *a, const float *b, int n) {
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) acc[k] += a[i + k] * b[i + k];
    for (; i < n; i++) acc[i & 7] += a[i] * b[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

void gpt2_matmul_forward(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC) {
    // inp is (T, C), w is (C, OC) (Conv1D layout), b is (OC) or NULL, out is (T, OC)
    // Row t of out starts at b and adds inp[t, c]·w[c, :] for c = 0, 1, ...: each
    // out[t, o] sums in increasing c (the same bits every run) and the inner loop
    // over o is element-wise, so the compiler vectorises it. Reference:
    // attention.h's matmul_forward (double sums), checked in tests/test_gpt2_backward.c.
    for (int t = 0; t < T; t++) {
        float *out_t = out + (size_t)t * OC;
        const float *inp_t = inp + (size_t)t * C;
        for (int o = 0; o < OC; o++) out_t[o] = b ? b[o] : 0.0f;
        for (int c = 0; c < C; c++) {
            float x = inp_t[c];
            const float *w_c = w + (size_t)c * OC;
            for (int o = 0; o < OC; o++) out_t[o] += x * w_c[o];
        }
    }
}

void gpt2_unembed_forward(float *logits, const float *inp, const float *wte, int T, int C, int V) {
    // inp is (T, C), wte is (V, C), logits is (T, V): logits[t, v] = inp[t]·wte[v]
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++)
            logits[(size_t)t * V + v] = gpt2_dot(inp + (size_t)t * C, wte + (size_t)v * C, C);
}

void gpt2_matmul(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC, av_kernel kernel) {
    // inp is (T, C), w is (C, OC), b is (OC) or NULL, out is (T, OC)
    if (kernel == AV_KERNEL_REFERENCE) {
        gpt2_matmul_forward(out, inp, w, b, T, C, OC);
        return;
    }
    av_matmul(out, inp, w, T, C, OC, kernel); /* column blocks for short inputs, so both threads work */
    for (int t = 0; b && t < T; t++) {
        float *out_t = out + (size_t)t * OC;
        for (int o = 0; o < OC; o++) out_t[o] += b[o];
    }
}

void gpt2_unembed(float *logits, const float *inp, const float *wte, int T, int C, int V, av_kernel kernel) {
    // inp is (T, C), wte is (V, C), logits is (T, V)
    if (kernel == AV_KERNEL_REFERENCE) {
        gpt2_unembed_forward(logits, inp, wte, T, C, V);
        return;
    }
    av_sgemm_colblocks(logits, inp, wte, T, C, V, 4096, 1);
}

void gpt2_linear(float *out, const float *inp, const float *w, int T, int C, int OC, av_kernel kernel) {
    // inp is (T, C), w is (OC, C), out is (T, OC)
    if (kernel == AV_KERNEL_REFERENCE) gpt2_unembed_forward(out, inp, w, T, C, OC);
    else av_sgemm_colblocks(out, inp, w, T, C, OC, 256, 1);
}

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, int T, int C, double eps) {
    // inp, out are (T, C); w, b are (C); mean, rstd are (T)
    for (int t = 0; t < T; t++) {
        const float *x = inp + (size_t)t * C;
        float *o = out + (size_t)t * C;
        double m = 0.0, v = 0.0;
        for (int c = 0; c < C; c++) m += x[c];
        m /= C;
        for (int c = 0; c < C; c++) v += ((double)x[c] - m) * ((double)x[c] - m);
        double rs = 1.0 / sqrt(v / C + eps);
        for (int c = 0; c < C; c++) o[c] = (float)(((double)x[c] - m) * rs * (double)w[c] + (double)b[c]);
        if (mean) mean[t] = (float)m;
        if (rstd) rstd[t] = (float)rs;
    }
}

void gelu_forward(float *out, const float *inp, size_t N) {
    const double s = sqrt(2.0 / M_PI);
    for (size_t i = 0; i < N; i++) {
        double x = inp[i];
        out[i] = (float)(0.5 * x * (1.0 + tanh(s * (x + 0.044715 * x * x * x))));
    }
}

void residual_forward(float *out, const float *a, const float *b, size_t N) {
    for (size_t i = 0; i < N; i++) out[i] = (float)((double)a[i] + (double)b[i]);
}

/* ----------------------------------------------------------------------------
 * forward */

/* Exit 2 naming where x overflowed (attention.h av_overflow_fail; l < 0: no layer's). */
static av_status finite_or_fail(const float *x, size_t n, int l, const char *what, av_err *err) {
    return all_finite(x, n) ? AV_OK : av_overflow_fail(l, what, "; the checkpoint's weights are too large", err);
}

/* hidden[0] = encoded (T, C) = wte[token] + wpe[t] (learned) or + PE (sinusoidal). */
static av_status embed_forward(av_gpt2_acts *a, const av_gpt2_params *p, const av_gpt2_config *cfg,
                               const int *tokens, int T, av_err *err) {
    int C = cfg->n_embd;
    float *pe = a->lnf; /* scratch (T, C): ln_f's output is written only at the end */
    if (cfg->positions == AV_POS_SINUSOIDAL) sinusoidal_forward(pe, T, C);
    for (int t = 0; t < T; t++) {
        if (tokens[t] < 0 || tokens[t] >= cfg->vocab_size)
            return av_fail(err, AV_EUSAGE, "token id %d at position %d is outside the vocabulary 0..%d", tokens[t], t,
                           cfg->vocab_size - 1);
        const float *wte_t = p->wte + (size_t)tokens[t] * C;
        float *x = a->encoded + (size_t)t * C;
        if (cfg->positions == AV_POS_LEARNED) residual_forward(x, wte_t, p->wpe + (size_t)t * C, (size_t)C);
        else if (cfg->positions == AV_POS_SINUSOIDAL) residual_forward(x, wte_t, pe + (size_t)t * C, (size_t)C);
        else memcpy(x, wte_t, (size_t)C * sizeof(float));
    }
    memcpy(a->hidden, a->encoded, (size_t)T * C * sizeof(float));
    return finite_or_fail(a->encoded, (size_t)T * C, -1, "the embedding (wte + positions, before layer 0)", err);
}

/* Causal multi-head self-attention of layer l on inp (T, C) → attproj[l] (T, C). */
static av_status attention_block(av_gpt2_acts *a, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l,
                                 const float *inp, av_err *err) {
    int T = a->T, C = cfg->n_embd, H = cfg->n_head, D = C / H;
    size_t TC = (size_t)T * C, HTT = (size_t)H * T * T;
    float *qkv = a->qkv + 3 * l * TC, *qkvh = a->qkvh + 3 * l * TC;   // (T, 3C), (3, H, T, D)
    float *q = qkvh, *k = qkvh + TC, *v = qkvh + 2 * TC;                 // (H, T, D) each
    float *preatt = a->preatt + l * HTT, *att = a->att + l * HTT;       // (H, T, T)
    float *atty_h = a->atty_h + l * TC, *atty = a->atty + l * TC;
    gpt2_matmul(qkv, inp, w->attn_c_attn_w, w->attn_c_attn_b, T, C, 3 * C, cfg->kernel);
    split_heads_forward(qkvh, qkv, T, 3 * C, 3 * H); /* (T, 3C) as (T, 3H, D) → (3H, T, D) = q, k, v */
    if (cfg->positions == AV_POS_ROPE) {
        rope_forward(q, H, T, D, cfg->rope_style, cfg->rope_base, 0);
        rope_forward(k, H, T, D, cfg->rope_style, cfg->rope_base, 0);
    }
    double scale = cfg->scale ? 1.0 / sqrt((double)D) : 1.0;
    int ref = cfg->kernel == AV_KERNEL_REFERENCE;
    if (ref) scores_forward(preatt, q, k, H, T, D, scale);
    else scores_blas_forward(preatt, q, k, H, T, D, scale);
    av_status s = finite_or_fail(preatt, HTT, l, "the scores q·kᵀ", err);
    if (s) return s;
    if (ref) softmax_forward(att, preatt, a->mask, H, T, NULL);
    else softmax_fast_forward(att, preatt, a->mask, H, T, NULL);
    if (ref) weighted_sum_forward(atty_h, att, v, H, T, D);
    else weighted_sum_blas_forward(atty_h, att, v, H, T, D);
    merge_heads_forward(atty, atty_h, T, C, H);
    gpt2_matmul(a->attproj + l * TC, atty, w->attn_c_proj_w, w->attn_c_proj_b, T, C, C, cfg->kernel);
    return AV_OK;
}

/* MLP of layer l on inp (T, C) → fcproj[l] (T, C): c_fc, GELU, c_proj. */
static void mlp_block(av_gpt2_acts *a, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l, const float *inp) {
    int T = a->T, C = cfg->n_embd;
    size_t TC = (size_t)T * C;
    float *fch = a->fch + 4 * l * TC, *fch_gelu = a->fch_gelu + 4 * l * TC;   // (T, 4C)
    gpt2_matmul(fch, inp, w->mlp_c_fc_w, w->mlp_c_fc_b, T, C, 4 * C, cfg->kernel);
    gelu_forward(fch_gelu, fch, 4 * TC);
    gpt2_matmul(a->fcproj + l * TC, fch_gelu, w->mlp_c_proj_w, w->mlp_c_proj_b, T, 4 * C, C, cfg->kernel);
}

/* One block: hidden[l] → hidden[l+1], pre-LN or post-LN (gpt2.h). */
static av_status block_forward(av_gpt2_acts *a, const av_gpt2_layer *w, const av_gpt2_config *cfg, int l, av_err *err) {
    int T = a->T, C = cfg->n_embd;
    size_t TC = (size_t)T * C, LT = (size_t)l * T;
    double eps = cfg->layer_norm_epsilon;
    const float *x = a->hidden + l * TC;
    float *ln1 = a->ln1 + l * TC, *res2 = a->res2 + l * TC, *ln2 = a->ln2 + l * TC, *res3 = a->res3 + l * TC;
    float *out = a->hidden + (l + 1) * TC;
    av_status s;
    if (cfg->norm == AV_NORM_PRE) {
        layernorm_forward(ln1, a->ln1_mean + LT, a->ln1_rstd + LT, x, w->ln_1_w, w->ln_1_b, T, C, eps);
        if ((s = attention_block(a, w, cfg, l, ln1, err))) return s;
        residual_forward(res2, x, a->attproj + l * TC, TC);
        layernorm_forward(ln2, a->ln2_mean + LT, a->ln2_rstd + LT, res2, w->ln_2_w, w->ln_2_b, T, C, eps);
        mlp_block(a, w, cfg, l, ln2);
        residual_forward(res3, res2, a->fcproj + l * TC, TC);
        memcpy(out, res3, TC * sizeof(float));
    } else {
        if ((s = attention_block(a, w, cfg, l, x, err))) return s;
        residual_forward(res2, x, a->attproj + l * TC, TC);
        layernorm_forward(ln1, a->ln1_mean + LT, a->ln1_rstd + LT, res2, w->ln_1_w, w->ln_1_b, T, C, eps);
        mlp_block(a, w, cfg, l, ln1);
        residual_forward(res3, ln1, a->fcproj + l * TC, TC);
        layernorm_forward(ln2, a->ln2_mean + LT, a->ln2_rstd + LT, res3, w->ln_2_w, w->ln_2_b, T, C, eps);
        memcpy(out, ln2, TC * sizeof(float));
    }
    return finite_or_fail(out, TC, l, "the residual stream", err);
}

av_status av_gpt2_forward(av_gpt2_acts *a, const av_gpt2_params *p, const av_gpt2_config *cfg,
                          const int *tokens, int T, av_err *err) {
    if (T != a->T) return av_fail(err, AV_EUSAGE, "activations are sized for %d token%s, not %d", a->T,
                                   a->T == 1 ? "" : "s", T);
    int C = cfg->n_embd, L = cfg->n_layer;
    av_status s = cfg->kernel == AV_KERNEL_REFERENCE ? AV_OK : av_blas_require(err);
    if (!s) s = embed_forward(a, p, cfg, tokens, T, err);
    if (s) return s;
    mask_forward(a->mask, T, 1, T, NULL);
    for (int l = 0; l < L; l++)
        if ((s = block_forward(a, &p->h[l], cfg, l, err))) return s;
    layernorm_forward(a->lnf, a->lnf_mean, a->lnf_rstd, a->hidden + (size_t)L * T * C, p->ln_f_w, p->ln_f_b, T, C,
                      cfg->layer_norm_epsilon);
    gpt2_unembed(a->logits, a->lnf, p->wte, T, C, cfg->vocab_size, cfg->kernel);
    return finite_or_fail(a->logits, (size_t)T * cfg->vocab_size, -1, "the logits (after the final LayerNorm ln_f)", err);
}

/* ----------------------------------------------------------------------------
 * loading */

typedef struct {
    av_safetensors st;
    float **owned;                     /* converted copies (F16, BF16, unaligned F32) */
    int n_owned;
    unsigned dtypes;                   /* bit (1 << dtype) of each table tensor's dtype */
} store;

/* Tensors a GPT-2 checkpoint may hold besides the table: the tied lm_head and
 * the causal-mask buffers h.N.attn.bias / h.N.attn.masked_bias. */
static int ignorable(const char *name, const char *prefix) {
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) == 0) {
        int l, n = 0;
        const char *rest = name + pl;
        if (sscanf(rest, "h.%d.attn.%n", &l, &n) == 1 && n > 0 && l >= 0 &&
            (strcmp(rest + n, "bias") == 0 || strcmp(rest + n, "masked_bias") == 0))
            return 1;
    }
    return strcmp(name, "lm_head.weight") == 0;
}

/* What a table row is, as Hugging Face's GPT-2 modules name it, for shape errors. */
/* The module a tensor of name is and its shape in config.json's words (the sizes as the file named them, c's
 * key_n_embd ...), into buf of cap bytes. */
static const char *tensor_kind(char *buf, size_t cap, const char *name, const av_gpt2_config *c) {
    if (strcmp(name, "wte.weight") == 0 || strcmp(name, "lm_head.weight") == 0)
        snprintf(buf, cap, "nn.Embedding (vocab_size, %s)", KEY(c, n_embd));
    else if (strcmp(name, "wpe.weight") == 0)
        snprintf(buf, cap, "nn.Embedding (%s, %s)", KEY(c, n_positions), KEY(c, n_embd));
    else if (strstr(name, "ln_")) snprintf(buf, cap, "LayerNorm (%s,)", KEY(c, n_embd));
    else if (strstr(name, ".bias")) snprintf(buf, cap, "Conv1D bias (out,)");
    else snprintf(buf, cap, "Conv1D (in, out)");
    return buf;
}

static av_status load_tensor(store *s, const av_gpt2_tensor *row, const char *prefix, const char *file,
                             const av_gpt2_config *c, av_err *err) {
    char full[AV_GPT2_NAME_MAX + 16];
    snprintf(full, sizeof full, "%s%s", prefix, row->name);
    const av_st_tensor *t = av_safetensors_find(&s->st, full);
    if (!t) return av_fail(err, AV_EUSAGE, "%s: missing tensor \"%s\" (GPT-2 checkpoint names; config.json implies it)", file, full);
    int ok = t->ndim == row->ndim && t->shape[0] == row->shape[0] && (row->ndim == 1 || t->shape[1] == row->shape[1]);
    if (!ok) {
        char got[128], want[64], kind[96];
        av_st_shape_str(got, sizeof got, t->shape, t->ndim);
        av_st_shape_str(want, sizeof want, row->shape, row->ndim);
        /* nanoGPT's c_attn, c_proj and c_fc are nn.Linear, (out, in), under GPT-2's names: said only "has shape
         * (24, 8); config.json implies Conv1D (in, out) = (8, 24)", not that it is the transpose, nor that the
         * square attn.c_proj, whose shape cannot tell, must be transposed too (a learner's pass) */
        int linear = row->ndim == 2 && t->ndim == 2 && t->shape[0] == row->shape[1] && t->shape[1] == row->shape[0] &&
                     strstr(row->name, ".c_");
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has shape %s; config.json implies %s = %s%s", file, full, got,
                       tensor_kind(kind, sizeof kind, row->name, c), want,
                       linear ? ": it is the transpose, an nn.Linear (out, in) weight (as nanoGPT's); transformers' "
                                "GPT-2 stores c_attn, c_proj and c_fc as Conv1D (in, out): transpose each of their "
                                "weights (.t()) when converting, attn.c_proj's too, whose square shape cannot tell"
                              : "");
    }
    const float *f;
    float *owned;
    av_status st = av_safetensors_f32(&f, &owned, &s->st, t, err);
    if (st) return st;
    if (owned) s->owned[s->n_owned++] = owned;
    s->dtypes |= 1u << t->dtype;
    *row->slot = (float *)f; /* read-only when it points into the mapping: the forward never writes params */
    return AV_OK;
}

/* 1 if name is a tensor of the table or ignorable, under prefix. */
static int known_under(const char *name, const av_gpt2_tensor *tab, int n, const char *prefix) {
    size_t pl = strlen(prefix);
    int known = ignorable(name, prefix);
    for (int j = 0; j < n && !known; j++) known = strncmp(name, prefix, pl) == 0 && strcmp(name + pl, tab[j].name) == 0;
    return known;
}

/* Every tensor in the file is in the table (under prefix) or ignorable. A tensor of the table named the other
 * way (with "transformer." in a file whose tensors have none, or the other way round) is named with one that
 * has the prefix's way, as transformers reads a state dict's names all one way: it was called 'unexpected
 * tensor "transformer.h.0.ln_1.weight" (not part of a GPT-2 with 2 layers ...)', which it is part of. A name of
 * the file is quoted as av_utf8_shown_middle shows it: "a\nb" broke the message's line, "a\u202eb" turned it around. */
static av_status check_extra(const store *s, const av_gpt2_tensor *tab, int n, const char *prefix, const char *file,
                             av_err *err) {
    for (int i = 0; i < s->st.n; i++) {
        const char *nm = s->st.tensors[i].name;
        if (known_under(nm, tab, n, prefix)) continue;
        const char *other = prefix[0] ? "" : "transformer.";
        int k = -1; /* a tensor of the file named the prefix's way, to name beside nm */
        for (int j = 0; j < s->st.n && k < 0; j++)
            if (known_under(s->st.tensors[j].name, tab, n, prefix) && strcmp(s->st.tensors[j].name, "lm_head.weight"))
                k = j;
        if (k >= 0 && known_under(nm, tab, n, other) && strcmp(nm, "lm_head.weight")) {
            char twin[AV_GPT2_NAME_MAX + 16]; /* nm named the prefix's way: the file holds both when it is there */
            snprintf(twin, sizeof twin, "%s%s", prefix, nm + strlen(other));
            int both = av_safetensors_find(&s->st, twin) != NULL;
            return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has %s \"transformer.\" prefix, but \"%s\" has %s: "
                           "a GPT-2 checkpoint names its tensors all one way, with the prefix (GPT2LMHeadModel's state "
                           "dict) or without (GPT2Model's), as transformers reads them; %s%s%s", file, nm,
                           prefix[0] ? "no" : "the", s->st.tensors[k].name, prefix[0] ? "it" : "none",
                           both ? "the file holds it as \"" : "rename them one way", both ? twin : "",
                           both ? "\" too: keep one of the two" : "");
        }
        int L = n > 0 ? (n - 2) / 12 : 0;
        return av_fail(err, AV_EUSAGE, "%s: unexpected tensor \"%s\" (not part of a GPT-2 with %d layer%s and %s positions)",
                       file, AV_SHOWN_MIDDLE(nm), L, L == 1 ? "" : "s", tab[1].name[0] == 'w' ? "learned" : "no learned");
    }
    return AV_OK;
}

/* config.json's attnviz.positions against wpe.weight, which only learned positions have: a --train folder
 * whose config.json was edited to "rope" was refused as 'unexpected tensor "wpe.weight"', blaming the
 * tensor, not the key that disagrees with it (a learner's pass). Names the key, its value and the file; file
 * is model.safetensors as messages name it (one shell word, av_shown_word). */
static av_status check_positions(const av_gpt2_config *c, const store *s, const char *prefix,
                                 const char *dir, const char *file, av_err *err) {
    static const char *const pos[] = {"none", "sinusoidal", "rope", "learned"}; /* av_positions order */
    char wpe[32], path[4200], config[4200];
    snprintf(wpe, sizeof wpe, "%swpe.weight", prefix);
    int has = av_safetensors_find(&s->st, wpe) != NULL, learned = c->positions == AV_POS_LEARNED;
    if (has == learned || (!has && !c->positions_given)) return AV_OK; /* no key, no wpe: load_tensor's message */
    av_path_join(path, sizeof path, dir, "config.json");
    av_shown_word(config, sizeof config, path); /* one shell word, as file is */
    if (has)
        return av_fail(err, AV_EUSAGE, "%s says attnviz.positions \"%s\", but %s has the tensor \"%s\" (learned "
                       "positions): the two disagree; allowed: \"learned\" with %s, or \"sinusoidal\", \"rope\" or "
                       "\"none\" without it (restore config.json as the model was trained, or train again)",
                       config, pos[c->positions], file, wpe, wpe);
    return av_fail(err, AV_EUSAGE, "%s says attnviz.positions \"learned\", but %s has no tensor \"%s\" (learned "
                   "positions' table): the two disagree; allowed: \"learned\" with %s, or \"sinusoidal\", \"rope\" or "
                   "\"none\" without it (restore config.json as the model was trained, or train again)",
                   config, file, wpe, wpe);
}

/* lm_head.weight, when present, must be (V, C) and equal to wte (tied); when config.json unties it, present
 * (and still equal: a message names tie_word_embeddings false when it differs).
 * Without it transformers builds an untied lm_head with random weights (and warns of the missing key), so the
 * run would compute other logits than that model's while the trace says "tied to the token embedding". */
static av_status check_lm_head(av_gpt2 *m, store *s, const char *file, av_err *err) {
    const av_st_tensor *t = av_safetensors_find(&s->st, "lm_head.weight");
    if (!t && m->cfg.untied)
        return av_fail(err, AV_EUSAGE, "%s: config.json's tie_word_embeddings is false, but there is no tensor "
                       "\"lm_head.weight\" (transformers would draw a random lm_head, so no logits of this model can "
                       "be computed); allowed: tie_word_embeddings true (or absent, GPT2Config's default) to use "
                       "wte.weight as the output layer, or a checkpoint whose lm_head.weight equals wte.weight "
                       "(attnviz runs a GPT-2 only with its output layer tied to wte)", file);
    if (!t) return AV_OK;
    m->has_lm_head = 1;
    size_t V = (size_t)m->cfg.vocab_size, C = (size_t)m->cfg.n_embd;
    if (t->ndim != 2 || t->shape[0] != V || t->shape[1] != C)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"lm_head.weight\" must have shape (%zu, %zu) like wte", file, V, C);
    int tied;
    av_status st = av_safetensors_equal_f32(&tied, &s->st, t, m->params.wte, V, C, err);
    if (st) return st;
    if (!tied && m->cfg.untied) /* the key that unties them is named: it said only "lm_head.weight differs ..." */
        return av_fail(err, AV_EUSAGE, "%s: config.json's tie_word_embeddings is false and lm_head.weight differs "
                       "from wte.weight: an untied output layer, which attnviz does not run; allowed: a GPT-2 whose "
                       "output layer is tied to wte, as GPT-2's own checkpoints are (tie_word_embeddings true or "
                       "absent, GPT2Config's default, with no lm_head.weight or one equal to wte.weight)", file);
    if (!tied)
        return av_fail(err, AV_EUSAGE, "%s: lm_head.weight differs from wte.weight; only GPT-2's tied unembedding is supported", file);
    return AV_OK;
}

/* config.json into cfg. */
static av_status load_config(av_gpt2_config *cfg, const char *dir, av_err *err) {
    char path[4200];
    av_path_join(path, sizeof path, dir, "config.json");
    char *text;
    size_t len;
    av_status s = av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, err);
    if (s) return s;
    s = av_gpt2_config_parse(cfg, text, len, AV_SHOWN_WORD(path, 4200), err); /* as messages name it */
    free(text);
    return s;
}

static av_status load_weights(av_gpt2 *m, store *s, const char *dir, av_err *err) {
    char file[4200], path[4200]; /* path: the file as messages name it, one shell word (av_shown_word) */
    av_path_join(file, sizeof file, dir, "model.safetensors");
    av_shown_word(path, sizeof path, file);
    av_status st = av_safetensors_open(&s->st, file, err);
    if (st) return st;
    m->file_bytes = s->st.len;
    const char *prefix = av_safetensors_find(&s->st, "transformer.wte.weight") ||
                                 av_safetensors_find(&s->st, "transformer.ln_f.weight") ? "transformer." : "";
    m->transformer_prefix = prefix[0] != 0;
    int n = av_gpt2_num_tensors(&m->cfg);
    av_gpt2_tensor *tab = calloc((size_t)n, sizeof *tab);
    s->owned = calloc((size_t)n, sizeof *s->owned);
    if (!tab || !s->owned) {
        free(tab);
        return av_fail(err, AV_ERUNTIME, "out of memory loading %s", path);
    }
    av_gpt2_tensor_table(tab, &m->cfg, &m->params);
    /* safetensors.torch.save_model (and anything that keeps one name, the first in sorted order, of tensors
     * sharing memory) writes a tied model's wte as lm_head.weight alone; transformers loads it, tying them. It
     * was refused as 'unexpected tensor "transformer.wpe.weight"' (a user's report). Row 0 is wte. */
    char wte[32];
    snprintf(wte, sizeof wte, "%swte.weight", prefix);
    int head_only = !m->cfg.untied && !av_safetensors_find(&s->st, wte) && av_safetensors_find(&s->st, "lm_head.weight");
    if (head_only) snprintf(tab[0].name, sizeof tab[0].name, "lm_head.weight");
    st = check_positions(&m->cfg, s, prefix, dir, path, err);
    if (!st) st = check_extra(s, tab, n, prefix, path, err);
    for (int i = 0; i < n && !st; i++) st = load_tensor(s, &tab[i], i == 0 && head_only ? "" : prefix, path, &m->cfg, err);
    if (!st) {
        m->dtype = av_st_dtypes_name(s->dtypes); /* every tensor's: a file may mix F32 and F16 */
        m->in_place = s->n_owned == 0;
        st = check_lm_head(m, s, path, err);
    }
    free(tab);
    return st;
}

av_status av_gpt2_load(av_gpt2 *m, const char *dir, av_err *err) {
    memset(m, 0, sizeof *m);
    av_status s = load_config(&m->cfg, dir, err);
    if (s) return s;
    store *st = calloc(1, sizeof *st);
    m->params.h = calloc((size_t)m->cfg.n_layer, sizeof *m->params.h);
    m->store = st;
    if (!st || !m->params.h) s = av_fail(err, AV_ERUNTIME, "out of memory loading %s", AV_SHOWN_WORD(dir, 4200));
    if (!s) s = load_weights(m, st, dir, err);
    if (s) av_gpt2_free(m);
    return s;
}

void av_gpt2_free(av_gpt2 *m) {
    store *s = m->store;
    if (s) {
        for (int i = 0; i < s->n_owned; i++) free(s->owned[i]);
        free(s->owned);
        av_safetensors_close(&s->st);
        free(s);
    }
    free(m->params.h);
    memset(m, 0, sizeof *m);
}
