/* llama.c - the Llama-family model: config.json, the parameter table,
 * loading one or several safetensors files, RMSNorm and SwiGLU, and the
 * forward pass (llama.h has the math and the legend). Products, the attention
 * kernels and the activations struct are gpt2.h's and attention.h's. */
#include "nn/llama.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "io/fileio.h"
#include "io/jsonval.h"
#include "io/safetensors.h"
#include "nn/attention_blas.h"

/* ----------------------------------------------------------------------------
 * config */

/* A whole-number key of a Llama/Qwen2 config.json (io/jsonval.h says what is
 * accepted): *out untouched if absent or null and not required. A number past
 * 1e9 is named against 1..max, the range cfg_check allows (max 0: none, as for
 * bos_token_id; then "a whole number of at most 1e9"). */
static av_status cfg_int(int *out, const cJSON *root, const char *key, int required, int max, const char *name,
                         av_err *err) {
    char allowed[32];
    snprintf(allowed, sizeof allowed, "1..%d", max);
    return av_json_int(out, root, key, required, "a Llama/Qwen2 config.json has it", max ? allowed : NULL, name, err);
}

/* A number key of a Llama/Qwen2 config.json: *out untouched if absent. null is refused, as GPT-2's
 * layer_norm_epsilon null is (nn/gpt2.c): transformers' LlamaConfig and Qwen2Config default a missing key only and
 * keep a null (rms_norm_eps=None, rope_theta=None), on which RMSNorm's `variance + self.variance_epsilon` and RoPE's
 * `base ** (...)` fail with a TypeError; "rope_theta": null ran here at θ 10000 while the trace said "config.json
 * has no rope_theta", and "rms_norm_eps": null at ε 1e-6 without a word (a Llama user's pass). dflt is what a
 * missing key takes, for the message: "NAME: \"KEY\" is null; it must be a number, or the key left out for
 * DFLT (transformers keeps a null and fails on it with a TypeError)". shown is the key as messages name it, NULL
 * for "\"KEY\"" (rope_parameters' "rope_parameters.rope_theta": "\"rope_theta\" is \"x\"" named a top-level key). */
static av_status cfg_num(double *out, const cJSON *root, const char *key, const char *shown, const char *dflt,
                         const char *name, av_err *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!j) return AV_OK;
    if (!cJSON_IsNumber(j)) {
        char quoted[160], must[200];
        snprintf(quoted, sizeof quoted, shown ? "%s" : "\"%s\"", shown ? shown : key);
        snprintf(must, sizeof must, "a number, or the key left out for %s (transformers keeps a null and fails on it "
                 "with a TypeError)", dflt);
        return av_json_wrong_kind(name, quoted, j, cJSON_IsNull(j) ? must : "a number", err);
    }
    *out = j->valuedouble;
    return AV_OK;
}

/* Options of the Hugging Face configs that this forward does not implement. RoPE's settings are in
 * "rope_scaling" (transformers 4) or "rope_parameters" (transformers 5, which writes rope_theta inside it
 * and no top-level rope_theta: a fine-tune saved with it ran silently at θ 10000, a Llama 3 llama3-scaled
 * one without its scaling, a user's report); either must be plain RoPE. */
static av_status cfg_refuse(const cJSON *root, const char *name, av_err *err) {
    static const char *const rope_keys[] = {"rope_scaling", "rope_parameters"};
    for (int k = 0; k < 2; k++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, rope_keys[k]);
        const cJSON *t = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "rope_type") : NULL;
        const cJSON *ty = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "type") : NULL;
        /* Both keys, saying different things: transformers 4's LlamaConfig and Qwen2Config copy "type" over
         * "rope_type" ("BC: if there is a 'type' field, copy it to 'rope_type'"), while transformers 5 keeps
         * "rope_type" (standardize_rope_params: setdefault("rope_type", get("type", "default"))), so {"rope_type":
         * "default", "type": "linear"} is linear scaling in one and plain RoPE in the other. It ran plain RoPE here
         * with no word (a Llama user's pass), then {"type": "default", "rope_type": "yarn"} did (a review of the
         * change): refused, naming both. Equal strings are one setting. */
        int type_wins = t && ty && !(cJSON_IsString(t) && cJSON_IsString(ty) && !strcmp(t->valuestring, ty->valuestring));
        if (type_wins) {
            char a[64], b[64];
            av_json_shown(a, sizeof a, ty);
            av_json_shown(b, sizeof b, t);
            return av_fail(err, AV_EUSAGE, "%s: %s has \"type\" %s and \"rope_type\" %s, which transformers reads "
                           "differently by version (4 takes \"type\", 5 \"rope_type\") (allowed: null, or rope_type "
                           "\"default\" with no other \"type\"; attnviz runs plain RoPE with rope_theta)", name,
                           rope_keys[k], a, b);
        }
        if (!t) t = ty;
        /* {"rope_type": "default"} is plain RoPE in Hugging Face's transformers (ROPE_INIT_FUNCTIONS["default"]
         * takes rope_theta alone), which is what this forward runs: it was refused as "default" is not supported
         * (a reviewer's pass); transformers 5's rope_parameters {"rope_theta": θ} has no rope_type: the default */
        if (cJSON_IsString(t) && strcmp(t->valuestring, "default") == 0) j = NULL;
        const cJSON *e;
        int nested = 0; /* {"full_attention": {...}, ...}: per-layer-type settings, not plain RoPE */
        for (e = k == 1 && cJSON_IsObject(j) ? j->child : NULL; e; e = e->next) nested |= cJSON_IsObject(e);
        if (k == 1 && cJSON_IsObject(j) && !t && !nested) j = NULL;
        if (j && !cJSON_IsNull(j)) {
            char shown[64]; /* its rope_type, or the value itself and what kind it is: a string is not "(object)" */
            const char *kind = cJSON_IsString(t) ? "" : cJSON_IsObject(j) && t ? " (an object whose rope_type is not a string)"
                             : cJSON_IsObject(j) ? " (an object with no rope_type)" : cJSON_IsString(j) ? " (a string)"
                             : cJSON_IsNumber(j) ? " (a number)" : cJSON_IsArray(j) ? " (an array)" : " (a boolean)";
            av_json_shown(shown, sizeof shown, cJSON_IsString(t) ? t : j);
            return av_fail(err, AV_EUSAGE,
                           "%s: %s %s%s is not supported (allowed: null, or rope_type \"default\"; attnviz runs plain "
                           "RoPE with rope_theta)",
                           name, rope_keys[k], shown, kind);
        }
    }
    /* The flags this forward does not implement, read by their truth as Python reads them (transformers'
     * `bias=config.attention_bias`): true is refused, and so is any other true value (1 and "no" add the biases:
     * only true was refused, and 1 ran without them, a Llama user's pass); false, null, 0 and "" are false, the
     * forward attnviz runs (0 was refused too, a breaker's pass) */
    static const char *const flags[] = {"attention_bias", "mlp_bias", "use_sliding_window"};
    for (int k = 0; k < 3; k++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, flags[k]);
        char quoted[32];
        snprintf(quoted, sizeof quoted, "\"%s\"", flags[k]);
        if (cJSON_IsTrue(f)) return av_fail(err, AV_EUSAGE, "%s: %s: true is not supported (allowed: false)", name, quoted);
        if (f && !av_json_falsy(f)) return av_json_wrong_kind(name, quoted, f, "false, null or 0 (a true value is not supported)", err);
    }
    /* partial_rotary_factor: transformers' default RoPE rotates int(head_dim · factor) dimensions of each head
     * (_compute_default_rope_parameters reads it at the top level, transformers 5 inside rope_parameters), and
     * attnviz rotates them all: 0.5 ran full RoPE with no word, other scores than the checkpoint's (a tester's
     * report). layer_types (Qwen2Config, transformers >= 4.53) names each layer's attention: "sliding_attention"
     * is a sliding window, and attnviz runs full causal attention in every layer. A null is no default there:
     * transformers takes 1.0 for a missing key only (getattr(config, "partial_rotary_factor", 1.0), in transformers 5
     * rope_parameters.get(...)) and then fails on int(head_dim * None) with a TypeError; it ran full RoPE here and
     * was listed as allowed (a Llama user's pass), so it is refused as rope_theta's null is. */
    static const char *const prf_in[] = {NULL, "rope_parameters", "rope_scaling"};
    for (int k = 0; k < 3; k++) {
        const cJSON *o = prf_in[k] ? cJSON_GetObjectItemCaseSensitive(root, prf_in[k]) : root;
        const cJSON *f = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "partial_rotary_factor") : NULL;
        if (!f || (cJSON_IsNumber(f) && f->valuedouble == 1.0)) continue;
        char key[64], shown[64];
        snprintf(key, sizeof key, "%s%spartial_rotary_factor", prf_in[k] ? prf_in[k] : "", prf_in[k] ? "." : "");
        if (cJSON_IsNull(f))
            return av_fail(err, AV_EUSAGE, "%s: %s is null; it must be 1, or the key left out for transformers' "
                           "default 1 (transformers keeps a null and fails on int(head_dim · partial_rotary_factor) "
                           "with a TypeError)", name, key);
        av_json_shown(shown, sizeof shown, f);
        return av_fail(err, AV_EUSAGE, "%s: %s %s is not supported: attnviz's RoPE rotates all head_dim dimensions "
                       "of each head (allowed: 1 or absent)", name, key, shown);
    }
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(root, "layer_types"), *e;
    if (lt && !cJSON_IsNull(lt) && !cJSON_IsArray(lt))
        return av_json_wrong_kind(name, "\"layer_types\"", lt, "a list of \"full_attention\", one per layer, or null",
                                  err);
    int i = 0;
    for (e = cJSON_IsArray(lt) ? lt->child : NULL; e; e = e->next, i++) {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "full_attention") == 0) continue;
        char shown[64];
        av_json_shown(shown, sizeof shown, e);
        return av_fail(err, AV_EUSAGE, "%s: layer_types[%d] %s is not supported: attnviz runs full causal attention in "
                       "every layer (allowed: \"full_attention\" for every layer, null or absent)", name, i, shown);
    }
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "hidden_act");
    int silu = !j || (cJSON_IsString(j) && (strcmp(j->valuestring, "silu") == 0 || /* transformers' ACT2FN: the same */
                                            strcmp(j->valuestring, "swish") == 0));
    if (silu) return AV_OK;
    char shown[64];
    av_json_shown(shown, sizeof shown, j);
    return av_fail(err, AV_EUSAGE, "%s: hidden_act is %s; attnviz supports only \"silu\" or \"swish\" (the SwiGLU MLP)", name,
                   shown);
}

static av_status cfg_check(const av_llama_config *c, int head_dim, const char *n, av_err *err) {
    if (c->n_layer < 1 || c->n_layer > AV_GPT2_MAX_LAYERS)
        return av_fail(err, AV_EUSAGE, "%s: num_hidden_layers %d is outside 1..%d", n, c->n_layer, AV_GPT2_MAX_LAYERS);
    if (c->n_embd < 1 || c->n_embd > AV_MAX_D_MODEL)
        return av_fail(err, AV_EUSAGE, "%s: hidden_size %d is outside 1..%d", n, c->n_embd, AV_MAX_D_MODEL);
    if (c->n_head < 1 || c->n_head > AV_MAX_HEADS || c->n_embd % c->n_head)
        return av_fail(err, AV_EUSAGE, "%s: num_attention_heads %d must divide hidden_size %d (and be at most %d)", n,
                       c->n_head, c->n_embd, AV_MAX_HEADS);
    if (c->n_kv_head < 1 || c->n_head % c->n_kv_head) {
        char divisors[160] = ""; /* the values allowed, as the other checks give their ranges */
        for (int d = 1, k = 0; d <= c->n_head && k < (int)sizeof divisors - 16; d++)
            if (c->n_head % d == 0) k += snprintf(divisors + k, sizeof divisors - (size_t)k, "%s%d", k ? ", " : "", d);
        return av_fail(err, AV_EUSAGE, "%s: num_key_value_heads %d must divide num_attention_heads %d (allowed: %s)", n,
                       c->n_kv_head, c->n_head, divisors);
    }
    int D = c->n_embd / c->n_head;
    /* transformers would size q_proj by it: attnviz's heads split hidden_size. INT_MIN: no key (or null); 0 is a
     * value, which LlamaConfig keeps (it derives head_dim only when it is None) */
    if (head_dim != INT_MIN && head_dim != D)
        return av_fail(err, AV_EUSAGE, "%s: head_dim %d is not supported: attnviz needs head_dim = hidden_size / "
                       "num_attention_heads = %d / %d = %d (allowed: %d, or no head_dim key)", n, head_dim, c->n_embd,
                       c->n_head, D, D);
    if (D % 2) { /* it said "head_dim 17 must be even and equal hidden_size / num_attention_heads = 17" */
        char sizes[64] = ""; /* the multiples of 2·H around hidden_size within 1..AV_MAX_D_MODEL */
        int lo = c->n_embd - c->n_embd % (2 * c->n_head), hi = lo + 2 * c->n_head;
        if (lo >= 1 && hi <= AV_MAX_D_MODEL) snprintf(sizes, sizeof sizes, ": %d or %d", lo, hi);
        else if (lo >= 1 || hi <= AV_MAX_D_MODEL) snprintf(sizes, sizeof sizes, ": %d", lo >= 1 ? lo : hi);
        return av_fail(err, AV_EUSAGE, "%s: %shead_dim = hidden_size / num_attention_heads = %d / %d = %d is odd; RoPE "
                       "rotates pairs of dimensions, so it must be even (allowed: hidden_size a multiple of "
                       "2·num_attention_heads = %d%s)", n, head_dim != INT_MIN ? "" : "the derived ", c->n_embd, c->n_head, D,
                       2 * c->n_head, sizes);
    }
    if (c->n_inter < 1 || c->n_inter > 16 * AV_MAX_D_MODEL)
        return av_fail(err, AV_EUSAGE, "%s: intermediate_size %d is outside 1..%d", n, c->n_inter, 16 * AV_MAX_D_MODEL);
    if (c->vocab_size < 1 || c->vocab_size > AV_GPT2_MAX_VOCAB)
        return av_fail(err, AV_EUSAGE, "%s: vocab_size %d is outside 1..%d", n, c->vocab_size, AV_GPT2_MAX_VOCAB);
    if (c->max_positions < 1)
        return av_fail(err, AV_EUSAGE, "%s: max_position_embeddings %d must be positive", n, c->max_positions);
    char v[32]; /* 1e400 is "a number past 1.797e308", not "inf" */
    if (!(c->rms_norm_eps > 0 && c->rms_norm_eps < 1))
        return av_fail(err, AV_EUSAGE, "%s: rms_norm_eps %s is outside (0, 1)", n, av_num_shown(v, c->rms_norm_eps));
    if (!(c->rope_theta > 1 && isfinite(c->rope_theta)))
        return av_fail(err, AV_EUSAGE, "%s: %s %s must be a finite number greater than 1", n, /* the key it came from */
                       c->rope_theta_from ? c->rope_theta_from : "rope_theta", av_num_shown(v, c->rope_theta));
    return AV_OK;
}

static av_status cfg_fields(av_llama_config *c, const cJSON *root, int *head_dim, const char *name, av_err *err) {
    av_status s;
    if ((s = cfg_int(&c->n_embd, root, "hidden_size", 1, AV_MAX_D_MODEL, name, err)) ||
        (s = cfg_int(&c->n_layer, root, "num_hidden_layers", 1, AV_GPT2_MAX_LAYERS, name, err)) ||
        (s = cfg_int(&c->n_head, root, "num_attention_heads", 1, AV_MAX_HEADS, name, err)) ||
        (s = cfg_int(&c->n_inter, root, "intermediate_size", 1, 16 * AV_MAX_D_MODEL, name, err)) ||
        (s = cfg_int(&c->vocab_size, root, "vocab_size", 1, AV_GPT2_MAX_VOCAB, name, err)))
        return s;
    c->n_kv_head = c->n_head;
    const cJSON *kv = cJSON_GetObjectItemCaseSensitive(root, "num_key_value_heads");
    c->n_kv_head_default = !kv ? 1 : cJSON_IsNull(kv) ? 2 : 0;
    if ((s = cfg_int(&c->n_kv_head, root, "num_key_value_heads", 0, AV_MAX_HEADS, name, err)) ||
        (s = cfg_int(&c->max_positions, root, "max_position_embeddings", 0, 1000000000, name, err)) ||
        (s = cfg_int(&c->bos_token_id, root, "bos_token_id", 0, 0, name, err)) ||
        (s = cfg_int(head_dim, root, "head_dim", 0, AV_MAX_D_MODEL, name, err)) ||
        (s = cfg_num(&c->rms_norm_eps, root, "rms_norm_eps", NULL, "transformers' default 1e-06", name, err)))
        return s;
    c->rms_norm_eps_default = !cJSON_GetObjectItemCaseSensitive(root, "rms_norm_eps");
    c->bos_token_id_null = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "bos_token_id"));
    /* transformers 5 reads rope_parameters' rope_theta first, the top-level one only when it lacks it: with a
     * number there, a top-level "rope_theta": null is not read (convert_rope_params_to_dict's setdefault keeps the
     * nested one), and was refused here (from a review of the change) */
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(root, "rope_parameters"), *th;
    int nested = cJSON_IsObject(rp) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rp, "rope_theta"));
    if (!nested && (s = cfg_num(&c->rope_theta, root, "rope_theta", NULL, "transformers' default 10000", name, err)))
        return s;
    if (cJSON_IsObject(rp) && (s = cfg_num(&c->rope_theta, rp, "rope_theta", "rope_parameters.rope_theta",
                                            "the top-level rope_theta, else transformers' default 10000", name, err)))
        return s;
    /* the trace names the key: "θ = rope_theta = 500000" was printed for a θ read from rope_parameters, and
     * for transformers' default 10000 of a config.json that has neither key */
    if (cJSON_IsObject(rp) && (th = cJSON_GetObjectItemCaseSensitive(rp, "rope_theta")) && !cJSON_IsNull(th))
        c->rope_theta_from = "rope_parameters.rope_theta";
    else if ((th = cJSON_GetObjectItemCaseSensitive(root, "rope_theta")) && !cJSON_IsNull(th))
        c->rope_theta_from = "rope_theta";
    if ((s = av_json_token_ids(c->eos_ids, &c->n_eos, &c->eos_left, &c->n_eos_left, AV_MAX_EOS, root, "eos_token_id",
                               c->vocab_size, name, err)))
        return s;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "tie_word_embeddings");
    if (j && !cJSON_IsBool(j)) return av_json_wrong_kind(name, "\"tie_word_embeddings\"", j, "true or false", err);
    if (j) c->tie_word_embeddings = cJSON_IsTrue(j);
    return AV_OK;
}

av_status av_llama_config_parse(av_llama_config *c, const char *json, size_t len, const char *name, av_err *err) {
    memset(c, 0, sizeof *c);
    c->max_positions = 2048, c->rms_norm_eps = 1e-6, c->rope_theta = 10000.0, c->bos_token_id = INT_MIN;
    cJSON *root;
    av_status s = av_json_parse_object(&root, json, len, NULL, name, err);
    if (s) return s;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    int head_dim = INT_MIN; /* no head_dim key */
    /* Qwen2Config's default length is 32768, LlamaConfig's 2048 (transformers' configuration_*.py): a Qwen2 config.json
     * without the key was held to 2048, and the message blamed a key the file does not have (a pass's report) */
    c->max_positions_from = "max_position_embeddings in config.json";
    if (cJSON_IsString(mt) && strcmp(mt->valuestring, "qwen2") == 0)
        c->type = AV_LLAMA_QWEN2, c->qkv_bias = 1, c->max_positions = 32768;
    else if (!(cJSON_IsString(mt) && strcmp(mt->valuestring, "llama") == 0))
        s = av_model_type_refused(name, cJSON_IsString(mt) ? mt->valuestring : NULL, !mt, err);
    if (!s && !(s = cfg_refuse(root, name, err)) && !(s = cfg_fields(c, root, &head_dim, name, err)))
        s = cfg_check(c, head_dim, name, err);
    /* layer_types names one attention per layer: transformers' layer type validation refuses a list of another
     * length ("`num_hidden_layers` (2) must be equal to the number of layer types (1)"), and ["full_attention"]
     * or [] for 2 layers ran here with exit 0 (a Qwen2 user's pass) */
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(root, "layer_types");
    if (!s && cJSON_IsArray(lt) && cJSON_GetArraySize(lt) != c->n_layer)
        s = av_fail(err, AV_EUSAGE, "%s: layer_types has %d entr%s but num_hidden_layers is %d (allowed: one "
                    "\"full_attention\" per layer, null or absent)", name, cJSON_GetArraySize(lt),
                    cJSON_GetArraySize(lt) == 1 ? "y" : "ies", c->n_layer);
    const cJSON *mp = cJSON_GetObjectItemCaseSensitive(root, "max_position_embeddings");
    /* null: transformers keeps None and limits no length (its default RoPE does not read the key); attnviz holds
     * the input to the default all the same, and says so: it said "config.json has no max_position_embeddings" of a
     * file that has it null (a Llama user's pass) */
    if ((c->max_positions_default = !mp || cJSON_IsNull(mp)))
        c->max_positions_from = c->type == AV_LLAMA_QWEN2
            ? mp ? "config.json's max_position_embeddings is null; attnviz takes Qwen2Config's default"
                 : "config.json has no max_position_embeddings; Qwen2Config's default"
            : mp ? "config.json's max_position_embeddings is null; attnviz takes LlamaConfig's default"
                 : "config.json has no max_position_embeddings; LlamaConfig's default";
    cJSON_Delete(root);
    return s;
}

/* ----------------------------------------------------------------------------
 * the parameter table */

int av_llama_num_tensors(const av_llama_config *cfg) {
    return 2 + cfg->n_layer * (9 + 3 * cfg->qkv_bias) + !cfg->tie_word_embeddings;
}

static void trow(av_llama_tensor **t, float **slot, size_t a, size_t b, const char *fmt, int l) {
    av_llama_tensor *r = (*t)++;
    snprintf(r->name, sizeof r->name, fmt, l);
    r->ndim = b ? 2 : 1;
    r->shape[0] = a, r->shape[1] = b;
    r->numel = b ? a * b : a;
    r->slot = slot;
}

void av_llama_tensor_table(av_llama_tensor *table, const av_llama_config *cfg, av_llama_params *p) {
    size_t C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size, I = (size_t)cfg->n_inter;
    size_t D = C / (size_t)cfg->n_head, KV = (size_t)cfg->n_kv_head * D;
    av_llama_tensor *t = table;
    trow(&t, &p->embed_tokens, V, C, "model.embed_tokens.weight", 0);
    for (int l = 0; l < cfg->n_layer; l++) {
        av_llama_layer *w = &p->layers[l];
        trow(&t, &w->input_layernorm, C, 0, "model.layers.%d.input_layernorm.weight", l);
        trow(&t, &w->q_proj, C, C, "model.layers.%d.self_attn.q_proj.weight", l);
        if (cfg->qkv_bias) trow(&t, &w->q_bias, C, 0, "model.layers.%d.self_attn.q_proj.bias", l);
        trow(&t, &w->k_proj, KV, C, "model.layers.%d.self_attn.k_proj.weight", l);
        if (cfg->qkv_bias) trow(&t, &w->k_bias, KV, 0, "model.layers.%d.self_attn.k_proj.bias", l);
        trow(&t, &w->v_proj, KV, C, "model.layers.%d.self_attn.v_proj.weight", l);
        if (cfg->qkv_bias) trow(&t, &w->v_bias, KV, 0, "model.layers.%d.self_attn.v_proj.bias", l);
        trow(&t, &w->o_proj, C, C, "model.layers.%d.self_attn.o_proj.weight", l);
        trow(&t, &w->post_attention_layernorm, C, 0, "model.layers.%d.post_attention_layernorm.weight", l);
        trow(&t, &w->gate_proj, I, C, "model.layers.%d.mlp.gate_proj.weight", l);
        trow(&t, &w->up_proj, I, C, "model.layers.%d.mlp.up_proj.weight", l);
        trow(&t, &w->down_proj, C, I, "model.layers.%d.mlp.down_proj.weight", l);
    }
    trow(&t, &p->norm, C, 0, "model.norm.weight", 0);
    if (!cfg->tie_word_embeddings) trow(&t, &p->lm_head, V, C, "lm_head.weight", 0);
    else p->lm_head = NULL; /* set to embed_tokens after loading */
}

/* ----------------------------------------------------------------------------
 * activations */

av_status av_llama_acts_alloc(av_gpt2_acts *a, const av_llama_config *cfg, int T, av_err *err) {
    memset(a, 0, sizeof *a);
    av_status s = av_acts_check_T(T, cfg->max_positions, cfg->max_positions_from, err);
    if (s) return s;
    size_t I = (size_t)cfg->n_inter;
    /* qkv 0: no (T, [q | k | v]) rows; the projections go into heads straight from the scratch */
    return av_acts_alloc_sized(a, T, cfg->n_layer, cfg->n_embd, cfg->n_head, 0, 2 * I, I, (size_t)cfg->vocab_size, err);
}

/* ----------------------------------------------------------------------------
 * kernels */

void rmsnorm_forward(float *out, float *rstd, const float *inp, const float *w, int T, int C, double eps) {
    // inp, out are (T, C); w is (C); rstd is (T) or NULL
    for (int t = 0; t < T; t++) {
        const float *x = inp + (size_t)t * C;
        float *o = out + (size_t)t * C;
        double ss = 0;
        for (int c = 0; c < C; c++) ss += (double)x[c] * x[c];
        double rs = 1.0 / sqrt(ss / C + eps);
        for (int c = 0; c < C; c++) o[c] = (float)((double)x[c] * rs * (double)w[c]);
        if (rstd) rstd[t] = (float)rs;
    }
}

void swiglu_forward(float *out, const float *gate, const float *up, size_t N) {
    for (size_t i = 0; i < N; i++) {
        double g = gate[i];
        out[i] = (float)(g / (1.0 + exp(-g)) * (double)up[i]);
    }
}

void linear_forward(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC, av_kernel kernel) {
    // inp is (T, C), w is (OC, C) (nn.Linear), b is (OC) or NULL, out is (T, OC):
    // the same product as the unembedding logits = inp·wteᵀ, so gpt2.h's kernel runs it
    // (reference loops, or sgemm in fixed blocks of 256 rows of w, spread over threads).
    gpt2_linear(out, inp, w, T, C, OC, kernel);
    for (int t = 0; b && t < T; t++)
        for (int o = 0; o < OC; o++) out[(size_t)t * OC + o] += b[o];
}

/* ----------------------------------------------------------------------------
 * forward */

/* Exit 2 naming where x overflowed (attention.h av_overflow_fail; l < 0: the logits, after the final RMSNorm). */
static av_status overflowed(const float *x, size_t n, int l, const char *what, av_err *err) {
    return all_finite(x, n) ? AV_OK : av_overflow_fail(l, what, "; the checkpoint's weights are too large", err);
}

/* out (H, T, D) = src (KVH, T, D) with head j repeated H/KVH times: query head
 * h reads K/V head h / (H/KVH) (grouped-query attention). */
static void repeat_kv_forward(float *out, const float *src, int H, int KVH, int T, int D) {
    size_t hs = (size_t)T * D;
    for (int h = 0; h < H; h++) memcpy(out + h * hs, src + (size_t)(h / (H / KVH)) * hs, hs * sizeof(float));
}

/* Grouped-query self-attention of layer l on inp (T, C) → attproj[l] (T, C).
 * scratch holds 2·T·(C + 2·KVH·D) floats. */
static av_status attention_block(av_gpt2_acts *a, const av_llama_layer *w, const av_llama_config *cfg, int l,
                                 const float *inp, int pos0, float *scratch, av_err *err) {
    int T = a->T, C = cfg->n_embd, H = cfg->n_head, KVH = cfg->n_kv_head, D = C / H, KVD = KVH * D;
    size_t TC = (size_t)T * C, TK = (size_t)T * KVD, HTT = (size_t)H * T * T, QKV = (size_t)C + 2 * (size_t)KVD;
    float *qkvh = a->qkvh + 3 * l * TC;                                      // (3, H, T, D)
    float *q = qkvh, *k = qkvh + TC, *v = qkvh + 2 * TC;                     // (H, T, D) each
    float *preatt = a->preatt + l * HTT, *att = a->att + l * HTT;           // (H, T, T)
    float *proj = scratch, *heads = scratch + T * QKV;  // (T, C), (T, KVD), (T, KVD); then (H + 2·KVH, T, D)
    int ref = cfg->kernel == AV_KERNEL_REFERENCE;
    linear_forward(proj, inp, w->q_proj, w->q_bias, T, C, C, cfg->kernel);
    linear_forward(proj + TC, inp, w->k_proj, w->k_bias, T, C, KVD, cfg->kernel);
    linear_forward(proj + TC + TK, inp, w->v_proj, w->v_bias, T, C, KVD, cfg->kernel);
    split_heads_forward(q, proj, T, C, H);                         /* (T, C) → (H, T, D) */
    split_heads_forward(heads + TC, proj + TC, T, KVD, KVH);        /* k: (T, KVD) → (KVH, T, D) */
    split_heads_forward(heads + TC + TK, proj + TC + TK, T, KVD, KVH); /* v */
    rope_forward(q, H, T, D, AV_ROPE_HALF, cfg->rope_theta, pos0);
    rope_forward(heads + TC, KVH, T, D, AV_ROPE_HALF, cfg->rope_theta, pos0);
    repeat_kv_forward(k, heads + TC, H, KVH, T, D);
    repeat_kv_forward(v, heads + TC + TK, H, KVH, T, D);
    double scale = 1.0 / sqrt((double)D);
    if (ref) scores_forward(preatt, q, k, H, T, D, scale);
    else scores_blas_forward(preatt, q, k, H, T, D, scale);
    av_status s = overflowed(preatt, HTT, l, "the scores q·kᵀ", err);
    if (s) return s;
    if (ref) softmax_forward(att, preatt, a->mask, H, T, NULL), weighted_sum_forward(a->atty_h + l * TC, att, v, H, T, D);
    else softmax_fast_forward(att, preatt, a->mask, H, T, NULL), weighted_sum_blas_forward(a->atty_h + l * TC, att, v, H, T, D);
    merge_heads_forward(a->atty + l * TC, a->atty_h + l * TC, T, C, H);
    linear_forward(a->attproj + l * TC, a->atty + l * TC, w->o_proj, NULL, T, C, C, cfg->kernel);
    return AV_OK;
}

/* One block: hidden[l] → hidden[l+1] (llama.h). */
static av_status block_forward(av_gpt2_acts *a, const av_llama_layer *w, const av_llama_config *cfg, int l, int pos0,
                               float *scratch, av_err *err) {
    int T = a->T, C = cfg->n_embd, I = cfg->n_inter;
    size_t TC = (size_t)T * C, TI = (size_t)T * I, LT = (size_t)l * T;
    const float *x = a->hidden + l * TC;
    float *ln1 = a->ln1 + l * TC, *res2 = a->res2 + l * TC, *ln2 = a->ln2 + l * TC, *res3 = a->res3 + l * TC;
    float *gate = a->fch + 2 * l * TI, *up = gate + TI, *act = a->fch_gelu + l * TI;
    rmsnorm_forward(ln1, a->ln1_rstd + LT, x, w->input_layernorm, T, C, cfg->rms_norm_eps);
    av_status s = attention_block(a, w, cfg, l, ln1, pos0, scratch, err);
    if (s) return s;
    residual_forward(res2, x, a->attproj + l * TC, TC);
    rmsnorm_forward(ln2, a->ln2_rstd + LT, res2, w->post_attention_layernorm, T, C, cfg->rms_norm_eps);
    linear_forward(gate, ln2, w->gate_proj, NULL, T, C, I, cfg->kernel);
    linear_forward(up, ln2, w->up_proj, NULL, T, C, I, cfg->kernel);
    swiglu_forward(act, gate, up, TI);
    linear_forward(a->fcproj + l * TC, act, w->down_proj, NULL, T, I, C, cfg->kernel);
    residual_forward(res3, res2, a->fcproj + l * TC, TC);
    memcpy(a->hidden + (l + 1) * TC, res3, TC * sizeof(float));
    return overflowed(res3, TC, l, "the residual stream", err);
}

av_status av_llama_forward(av_gpt2_acts *a, const av_llama_params *p, const av_llama_config *cfg, const int *tokens,
                           int T, int pos0, av_err *err) {
    if (T != a->T) return av_fail(err, AV_EUSAGE, "activations are sized for %d token%s, not %d", a->T,
                                   a->T == 1 ? "" : "s", T);
    int C = cfg->n_embd, L = cfg->n_layer;
    av_status s = cfg->kernel == AV_KERNEL_REFERENCE ? AV_OK : av_blas_require(err);
    if (s) return s;
    for (int t = 0; t < T; t++) {
        if (tokens[t] < 0 || tokens[t] >= cfg->vocab_size)
            return av_fail(err, AV_EUSAGE, "token id %d at position %d is outside the vocabulary 0..%d", tokens[t], t,
                           cfg->vocab_size - 1);
        memcpy(a->encoded + (size_t)t * C, p->embed_tokens + (size_t)tokens[t] * C, (size_t)C * sizeof(float));
    }
    memcpy(a->hidden, a->encoded, (size_t)T * C * sizeof(float));
    mask_forward(a->mask, T, 1, T, NULL);
    size_t QKV = (size_t)C + 2 * (size_t)cfg->n_kv_head * (C / cfg->n_head);
    float *scratch = av_calloc(2 * (size_t)T * QKV, sizeof(float));
    if (!scratch) return av_fail(err, AV_ERUNTIME, "out of memory running the forward pass on %d token%s", T,
                               T == 1 ? "" : "s");
    for (int l = 0; l < L && !s; l++) s = block_forward(a, &p->layers[l], cfg, l, pos0, scratch, err);
    free(scratch);
    if (s) return s;
    rmsnorm_forward(a->lnf, a->lnf_rstd, a->hidden + (size_t)L * T * C, p->norm, T, C, cfg->rms_norm_eps);
    linear_forward(a->logits, a->lnf, p->lm_head, NULL, T, C, cfg->vocab_size, cfg->kernel);
    return overflowed(a->logits, (size_t)T * cfg->vocab_size, -1, "the logits (after the final RMSNorm, model.norm)", err);
}

/* ----------------------------------------------------------------------------
 * loading: model.safetensors, or the shards of model.safetensors.index.json */

#define LLAMA_MAX_SHARDS AV_LLAMA_MAX_SHARDS

typedef struct {
    av_safetensors st[LLAMA_MAX_SHARDS];
    int n_st;
    float **owned;                     /* converted copies (F16, BF16, unaligned F32) */
    int n_owned;
    unsigned dtypes;                   /* bit (1 << dtype) of each table tensor's dtype */
} llama_store;

static const av_st_tensor *store_find(const llama_store *s, const char *name, int *shard) {
    for (int i = 0; i < s->n_st; i++) {
        const av_st_tensor *t = av_safetensors_find(&s->st[i], name);
        if (t) return (*shard = i), t;
    }
    return NULL;
}

/* The index and its shards agree (files[i] is shard i's name in the index):
 * every tensor of every shard is listed in weight_map with that shard's
 * file, and every tensor weight_map lists is in the file it names. A
 * disagreement means a broken or hand-edited download, so it is refused
 * (AV_EUSAGE, bad input like a missing shard) naming the tensor (av_utf8_shown_middle) and both files (one shell
 * word each, av_shown_word): a name holding "\n" or U+202E broke or turned around the message's line. */
static av_status check_index(const llama_store *s, const char *const *files, const cJSON *map, const char *index,
                             av_err *err) {
    for (int i = 0; i < s->n_st; i++)
        for (int k = 0; k < s->st[i].n; k++) {
            const char *nm = s->st[i].tensors[k].name;
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(map, nm);
            if (!e)
                return av_fail(err, AV_EUSAGE, "%s: %s holds tensor \"%s\", which weight_map does not list", index,
                               AV_SHOWN_WORD(files[i], 300), AV_SHOWN_MIDDLE(nm));
            if (strcmp(e->valuestring, files[i]) != 0)
                return av_fail(err, AV_EUSAGE, "%s: %s holds tensor \"%s\", which weight_map puts in %s", index,
                               AV_SHOWN_WORD(files[i], 300), AV_SHOWN_MIDDLE(nm), AV_SHOWN_WORD(e->valuestring, 300));
        }
    const cJSON *e;
    cJSON_ArrayForEach(e, map) {
        for (int i = 0; i < s->n_st; i++)
            if (strcmp(e->valuestring, files[i]) == 0 && !av_safetensors_find(&s->st[i], e->string))
                return av_fail(err, AV_EUSAGE, "%s: weight_map puts tensor \"%s\" in %s, but that file has no such "
                               "tensor", index, AV_SHOWN_MIDDLE(e->string), AV_SHOWN_WORD(files[i], 300));
    }
    return AV_OK;
}

/* The files of dir named PREFIX...-of-...SUFFIX (the shards save_pretrained writes), counted, the first in
 * name order in first (NUL-terminated, "" when none). No errors: an unreadable folder has none. */
static int shards_named(const char *dir, const char *prefix, const char *suffix, char first[256]) {
    DIR *d = opendir(dir);
    int n = 0;
    size_t lp = strlen(prefix), ls = strlen(suffix);
    first[0] = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len >= 256 || len < lp + 4 + ls || strncmp(e->d_name, prefix, lp) || !strstr(e->d_name + lp, "-of-") ||
            strcmp(e->d_name + len - ls, suffix))
            continue;
        if (!n++ || strcmp(e->d_name, first) < 0) snprintf(first, 256, "%s", e->d_name);
    }
    if (d) closedir(d);
    return n;
}

int av_llama_shards_present(const char *dir, char first[256]) { return shards_named(dir, "model-", ".safetensors", first); }

av_status av_torch_weights_fail(const char *dir, av_err *err) {
    char path[4200];
    av_path_join(path, sizeof path, dir, "pytorch_model.bin");
    if (access(path, F_OK) == 0)
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, only pytorch_model.bin (PyTorch's pickle "
                       "format, which attnviz does not read); convert it once, in that folder: python3 -c \"import "
                       "torch, safetensors.torch as s; t = torch.load('pytorch_model.bin'); s.save_file({k: v.clone() "
                       "for k, v in t.items()}, 'model.safetensors', {'format': 'pt'})\"", AV_SHOWN_WORD(dir, 120 + 49));
    av_path_join(path, sizeof path, dir, "pytorch_model.bin.index.json");
    if (access(path, F_OK) == 0) /* at whole characters: "%.120s" cut a folder's name inside one */
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, only pytorch_model.bin.index.json and its "
                       "shards (PyTorch's pickle format, which attnviz does not read); join and convert them once, in "
                       "that folder: python3 -c \"import json, torch, safetensors.torch as s; t = {}; "
                       "[t.update(torch.load(f)) for f in set(json.load(open('pytorch_model.bin.index.json'))"
                       "['weight_map'].values())]; s.save_file({k: v.clone() for k, v in t.items()}, "
                       "'model.safetensors', {'format': 'pt'})\"", AV_SHOWN_WORD(dir, 120 + 49));
    /* the shards without their index (copied without it): "has no model.safetensors; a GPT-2 model folder holds
     * ..." named neither them nor the way out (a tester's pass) */
    char first[256];
    int n = shards_named(dir, "pytorch_model-", ".bin", first);
    if (n)
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, only PyTorch shards (%s%s, PyTorch's "
                       "pickle format, which attnviz does not read) and no pytorch_model.bin.index.json; join and "
                       "convert them once, in that folder: python3 -c \"import glob, torch, safetensors.torch as s; "
                       "t = {}; [t.update(torch.load(f)) for f in sorted(glob.glob('pytorch_model-*-of-*.bin'))]; "
                       "s.save_file({k: v.clone() for k, v in t.items()}, 'model.safetensors', {'format': 'pt'})\"",
                       AV_SHOWN_WORD(dir, 120 + 49), AV_SHOWN_WORD(first, 300), n > 1 ? ", ..." : "");
    return AV_OK;
}

/* DIR/model.safetensors.index.json read and parsed into *root (cJSON_Delete it, also after an error), path
 * its path; files[0..*n) the distinct file names of its weight_map, in the order they first appear, pointing
 * into *root. Errors: AV_EUSAGE for no weight_map object, a value that is not a file name in the folder
 * ("PATH: weight_map[\"TENSOR\"] is \"../x/model.safetensors\"; it must be a file name in the folder (no '/',
 * not \".\" or \"..\")": "", ".", ".." and names with a '/'; "..a" is a name in the folder), the value as
 * av_json_shown spells it), or more than LLAMA_MAX_SHARDS files; the reader's and parser's. */
static av_status index_files(const char *dir, cJSON **root, char path[4200], const char *files[LLAMA_MAX_SHARDS],
                             int *n, av_err *err) {
    char *text = NULL;
    size_t len = 0;
    *root = NULL, *n = 0;
    av_path_join(path, 4200, dir, "model.safetensors.index.json");
    int why = access(path, F_OK) == 0 ? 0 : errno;
    av_status st = why ? av_dangling_link(path, err) : AV_OK; /* a link to nothing is named as one */
    char shard[256];
    int shards = !st && why == ENOENT ? av_llama_shards_present(dir, shard) : 0;
    if (shards) /* "nor a model.safetensors.index.json naming its shards" left the user to guess whether they were seen */
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, and its %d shard file%s (%s%s) %s no "
                       "model.safetensors.index.json, the map of which shard holds each tensor; save_pretrained writes "
                       "it with the shards: copy it from where they came from (it is part of the download), or save "
                       "the model again", AV_SHOWN_WORD(dir, 120 + 49), shards, shards == 1 ? "" : "s", AV_SHOWN_WORD(shard, 300),
                       shards == 1 ? "" : ", ...", shards == 1 ? "has" : "have"); /* at whole characters: "%.120s" cut
                                                                                   * a folder's name inside one */
    if (!st && why == ENOENT && (st = av_unfinished_download(dir, "model.safetensors", err))) return st;
    if (!st && why == ENOENT && (st = av_torch_weights_fail(dir, err))) return st; /* it said "has no
                                            * model.safetensors, nor a model.safetensors.index.json ..." only */
    if (!st && why == ENOENT) /* neither file: "cannot read '...index.json'" named only the file tried last */
        return av_fail(err, AV_EUSAGE, "--model %s has no model.safetensors, nor a model.safetensors.index.json naming "
                       "its shards; a Llama/Qwen2 folder holds config.json, model.safetensors (or its index and shards) "
                       "and tokenizer.json", AV_SHOWN_WORD(dir, 1200));
    if (!st) st = av_read_regular_file(path, 64u << 20, &text, &len, err);
    char shown[4200]; /* path as messages name it, one shell word (av_shown_word) */
    av_shown_word(shown, sizeof shown, path);
    if (!st) st = av_json_parse_object(root, text, len, NULL, shown, err);
    free(text);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(*root, "weight_map"), *e;
    if (!st && !cJSON_IsObject(map)) st = av_fail(err, AV_EUSAGE, "%s: no \"weight_map\" object", shown);
    cJSON_ArrayForEach(e, map) {
        if (st) break;
        const char *f = cJSON_IsString(e) ? e->valuestring : "";
        /* "", "." and ".." name no file in the folder and a '/' leaves it; any other name is one: a name that
         * only starts with ".." ("..model-00001-of-00002.safetensors") was refused, and "." taken (the folder
         * itself, read as a shard) (a maintainer's list of known faults) */
        if (!f[0] || strchr(f, '/') || strcmp(f, ".") == 0 || strcmp(f, "..") == 0) { /* the value, as the other
                                                         * refusals name it: "../x/model.safetensors" was not said */
            char key[1720]; /* the tensor's name whole to 199 bytes: AV_SHOWN(e->string, 109) cut it at 60, unmarked */
            snprintf(key, sizeof key, "weight_map[\"%s\"]", AV_SHOWN_MIDDLE(e->string));
            st = av_json_wrong_kind(shown, key, e, "a file name in the folder (no '/', not \".\" or \"..\")", err);
        }
        int seen = 0;
        for (int i = 0; i < *n && !st && !seen; i++) seen = strcmp(files[i], f) == 0;
        if (st || seen) continue;
        if (*n == LLAMA_MAX_SHARDS) st = av_fail(err, AV_EUSAGE, "%s: more than %d shards", shown, LLAMA_MAX_SHARDS);
        else files[(*n)++] = f;
    }
    return st;
}

/* The shard file names of the index's weight_map, each opened once, then
 * checked against the index (check_index). */
static av_status open_shards(llama_store *s, const char *dir, av_err *err) {
    char path[4200], shard[4200];
    cJSON *root;
    const char *files[LLAMA_MAX_SHARDS]; /* shard i's file name, as the index writes it */
    int n;
    av_status st = index_files(dir, &root, path, files, &n, err);
    for (int i = 0; i < n && !st; i++) { /* a shard the index names that is not there: "cannot read '...': No such
                                          * file or directory" did not say who named it, nor why it is missing */
        av_path_join(shard, sizeof shard, dir, files[i]);
        if (access(shard, F_OK) == 0 || errno != ENOENT || (st = av_dangling_link(shard, err))) continue;
        if ((st = av_unfinished_download(dir, files[i], err))) break;
        int have = 0;
        for (int k = 0; k < n; k++) {
            av_path_join(shard, sizeof shard, dir, files[k]);
            have += access(shard, F_OK) == 0;
        }
        st = av_fail(err, AV_EUSAGE, "--model %s: model.safetensors.index.json names the shard %s, which is not in the "
                     "folder (%d of its %d shard%s %s); the download may be incomplete: fetch the missing shard%s (e.g. "
                     "hf download REPO_ID %s --local-dir FOLDER)", AV_SHOWN_WORD(dir, 1200),
                     AV_SHOWN_WORD(files[i], 300), have, n, n == 1 ? "" : "s", have == 1 ? "is" : "are",
                     n - have == 1 ? "" : "s", AV_SHOWN_WORD(files[i], 300));
    }
    for (int i = 0; i < n && !st; i++) {
        av_path_join(shard, sizeof shard, dir, files[i]);
        if (!(st = av_safetensors_open(&s->st[s->n_st], shard, err))) s->n_st++;
    }
    if (!st) st = check_index(s, files, cJSON_GetObjectItemCaseSensitive(root, "weight_map"), AV_SHOWN_WORD(path, 4200), err);
    cJSON_Delete(root);
    return st;
}

int av_llama_shard_files(char (*names)[256], int max, const char *dir) {
    char path[4200];
    av_path_join(path, sizeof path, dir, "model.safetensors");
    if (access(path, F_OK) == 0) return 0; /* load_weights reads model.safetensors alone then */
    cJSON *root;
    const char *files[LLAMA_MAX_SHARDS];
    int n = 0, k = 0;
    av_err err = {{0}};
    if (!index_files(dir, &root, path, files, &n, &err))
        for (int i = 0; i < n && k < max; i++)
            if (strlen(files[i]) < 256) snprintf(names[k++], 256, "%s", files[i]);
    cJSON_Delete(root);
    return k;
}

/* Every tensor of every file is in the table, a rotary_emb.inv_freq buffer, or the lm_head.weight of a tied
 * model (the table lacks it then; check_tied_lm_head compares it with model.embed_tokens.weight). The message
 * quotes a name as av_utf8_shown_middle shows it ("a<U+000A>b"). */
static av_status check_unknown(const llama_store *s, const av_llama_tensor *tab, int n, av_err *err) {
    for (int f = 0; f < s->n_st; f++)
        for (int i = 0; i < s->st[f].n; i++) {
            const char *nm = s->st[f].tensors[i].name;
            int known = strstr(nm, "rotary_emb.inv_freq") != NULL || strcmp(nm, "lm_head.weight") == 0;
            for (int j = 0; j < n && !known; j++) known = strcmp(nm, tab[j].name) == 0;
            if (!known)
                return av_fail(err, AV_EUSAGE, "%s: unexpected tensor \"%s\" (not part of the Llama/Qwen2 layout config.json implies)",
                               s->st[f].name, AV_SHOWN_MIDDLE(nm));
        }
    return AV_OK;
}

/* What a table row is, as Hugging Face's Llama/Qwen2 modules name it, for shape errors. */
static const char *tensor_kind(const char *name) {
    if (strstr(name, "embed_tokens")) return "nn.Embedding (vocab_size, hidden_size)";
    if (strstr(name, "norm.weight")) return "RMSNorm weight (hidden_size,)";
    if (strstr(name, ".bias")) return "nn.Linear bias (out,)";
    return "nn.Linear (out, in)";
}

/* The shape error of a k_proj or v_proj (weight or bias), whose rows are KVH K/V heads of head_dim D = C / H:
 * file the safetensors file, got and want the shapes found and implied ("(16, 32)"). When config.json lacks
 * num_key_value_heads or has it null, KVH defaulted to H: a grouped-query checkpoint then said only "has shape
 * (16, 32); config.json implies nn.Linear (out, in) = (32, 32)", naming no key (a Llama user's pass); so did a
 * config.json that gives a wrong num_key_value_heads (4 for a checkpoint of 2 K/V heads: a Llama user's pass).
 * It names the key, its value or the default taken, and, when the rows are whole K/V heads of head_dim that
 * divide H, the line to write; else that the rows are K/V heads times head_dim, so num_key_value_heads or
 * num_attention_heads is wrong. Always AV_EUSAGE. */
static av_status kv_shape_error(const av_llama_config *c, const char *file, const av_llama_tensor *row,
                                const av_st_tensor *t, const char *got, const char *want, av_err *err) {
    int D = c->n_embd / c->n_head;
    size_t rows = t->shape[0], kvh = rows / (size_t)D;
    int fits = (t->ndim == row->ndim && (row->ndim == 1 || t->shape[1] == row->shape[1])) && rows % (size_t)D == 0 &&
               kvh >= 1 && kvh <= (size_t)c->n_head && kvh != (size_t)c->n_kv_head && c->n_head % (int)kvh == 0;
    char advice[256];
    if (fits && !c->n_kv_head_default) /* the rows cannot tell a wrong num_attention_heads (head_dim) apart */
        snprintf(advice, sizeof advice, "its %zu rows are %zu K/V head%s of head_dim %d: write \"num_key_value_heads\": "
                 "%zu in config.json (if num_attention_heads %d is right)", rows, kvh, kvh == 1 ? "" : "s", D, kvh,
                 c->n_head);
    else if (fits)
        snprintf(advice, sizeof advice, "%zu rows are %zu K/V heads of head_dim %d: write \"num_key_value_heads\": %zu "
                 "in config.json", rows, kvh, D, kvh);
    else
        snprintf(advice, sizeof advice, "write the checkpoint's num_key_value_heads in config.json (its K/V heads "
                 "times head_dim %d rows)", D);
    if (!c->n_kv_head_default)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has shape %s, but config.json's num_key_value_heads %d "
                       "(K/V heads of head_dim = hidden_size / num_attention_heads = %d / %d = %d) implies %s = %s; %s",
                       file, row->name, got, c->n_kv_head, c->n_embd, c->n_head, D, tensor_kind(row->name), want,
                       advice);
    return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has shape %s, but config.json %s, so attnviz takes "
                   "num_attention_heads = %d K/V heads (%s), which implies %s = %s; %s", file, row->name, got,
                   c->n_kv_head_default == 1 ? "has no num_key_value_heads" : "has num_key_value_heads null", c->n_head,
                   c->type == AV_LLAMA_LLAMA || c->n_kv_head_default == 2
                       ? "transformers' default: one K/V head per query head"
                       : "LlamaConfig's default; transformers' Qwen2Config would take 32",
                   tensor_kind(row->name), want, advice);
}

static av_status bind_tensor(llama_store *s, const av_llama_config *c, const av_llama_tensor *row, av_err *err) {
    int f = 0;
    const av_st_tensor *t = store_find(s, row->name, &f);
    if (!t && strcmp(row->name, "lm_head.weight") == 0) /* the one a tied model lacks: say which key decides */
        return av_fail(err, AV_EUSAGE, "%s: missing tensor \"lm_head.weight\": config.json's tie_word_embeddings is "
                       "false (transformers' default when absent), so the output layer is its own tensor (transformers "
                       "would draw a random one); allowed: tie_word_embeddings true to use model.embed_tokens.weight, "
                       "or a checkpoint with lm_head.weight", s->st[0].name);
    if (!t) return av_fail(err, AV_EUSAGE, "%s: missing tensor \"%s\" (config.json implies it)", s->st[0].name, row->name);
    if (t->ndim != row->ndim || t->shape[0] != row->shape[0] || (row->ndim == 2 && t->shape[1] != row->shape[1])) {
        char got[128], want[64];
        av_st_shape_str(got, sizeof got, t->shape, t->ndim);
        av_st_shape_str(want, sizeof want, row->shape, row->ndim);
        if (strstr(row->name, ".k_proj.") || strstr(row->name, ".v_proj."))
            return kv_shape_error(c, s->st[f].name, row, t, got, want, err);
        return av_fail(err, AV_EUSAGE, "%s: tensor \"%s\" has shape %s; config.json implies %s = %s", s->st[f].name,
                       row->name, got, tensor_kind(row->name), want);
    }
    const float *v = NULL;
    float *copy = NULL;
    av_status st = av_safetensors_f32(&v, &copy, &s->st[f], t, err);
    if (!st && copy) s->owned[s->n_owned++] = copy;
    if (!st) s->dtypes |= 1u << t->dtype;
    if (!st) *row->slot = (float *)v; /* read-only when mapped: the forward never writes parameters */
    return st;
}

/* The lm_head.weight of a folder whose config.json ties the embeddings: a state dict holds it under both names
 * (torch.save's pytorch_model.bin, and the safetensors.torch.save_file of it that gpt2run.c's advice writes), and
 * transformers ties them, so one equal to embed (V, C) is the same model. It was refused as 'unexpected tensor
 * "lm_head.weight"' (a user converting their own weights), while a GPT-2's tied lm_head loads (nn/gpt2.c). One
 * of another shape or other values names the key that decides. */
static av_status check_tied_lm_head(llama_store *s, const av_llama_config *c, const float *embed, av_err *err) {
    int f = 0;
    const av_st_tensor *t = store_find(s, "lm_head.weight", &f);
    if (!t) return AV_OK;
    int same;
    av_status st = av_safetensors_equal_f32(&same, &s->st[f], t, embed, (size_t)c->vocab_size, (size_t)c->n_embd, err);
    if (st) return st;
    if (!same)
        return av_fail(err, AV_EUSAGE, "%s: tensor \"lm_head.weight\" differs from model.embed_tokens.weight, but "
                       "config.json's tie_word_embeddings is true, so the output layer is model.embed_tokens.weight; "
                       "set it to false to run with this lm_head", s->st[f].name);
    return AV_OK;
}

static av_status load_weights(av_llama *m, llama_store *s, const char *dir, av_err *err) {
    char path[4200];
    av_path_join(path, sizeof path, dir, "model.safetensors");
    av_status st = AV_OK; /* access, not fopen: a FIFO there waited for a writer forever */
    if (access(path, F_OK) == 0) st = av_safetensors_open(&s->st[0], path, err), s->n_st = !st;
    else if (!(st = av_dangling_link(path, err))) st = open_shards(s, dir, err); /* a link to nothing: not "no file" */
    if (st) return st;
    av_path_join(path, sizeof path, dir, "model.safetensors.index.json");
    if (!s->n_st) return av_fail(err, AV_EUSAGE, "%s: weight_map names no file", AV_SHOWN_WORD(path, 4200));
    int n = av_llama_num_tensors(&m->cfg);
    av_llama_tensor *tab = calloc((size_t)n, sizeof *tab);
    if ((s->owned = calloc((size_t)n, sizeof *s->owned)) && tab) {
        av_llama_tensor_table(tab, &m->cfg, &m->params);
        /* A LlamaModel / Qwen2Model (AutoModel's save, architectures ["LlamaModel"]) names its tensors without
         * the ForCausalLM's "model." prefix and has no lm_head: transformers adds the prefix when it loads
         * one into LlamaForCausalLM (base_model_prefix) and ties lm_head to embed_tokens, so a tied one is
         * the same model. It was refused as 'unexpected tensor "embed_tokens.weight"' (a user's report). */
        int f, bare = !store_find(s, "model.embed_tokens.weight", &f) && store_find(s, "embed_tokens.weight", &f) &&
                      !store_find(s, "lm_head.weight", &f);
        for (int i = 0; i < n && bare; i++)
            if (strncmp(tab[i].name, "model.", 6) == 0) memmove(tab[i].name, tab[i].name + 6, strlen(tab[i].name + 6) + 1);
        if (bare && !m->cfg.tie_word_embeddings)
            st = av_fail(err, AV_EUSAGE, "%s: the tensors have no \"model.\" prefix and there is no \"lm_head.weight\": a "
                         "base model without its output layer (LlamaModel, Qwen2Model), and config.json's "
                         "tie_word_embeddings is false, so no logits can be computed (transformers would draw a random "
                         "lm_head); allowed: a tied one (tie_word_embeddings true), or a LlamaForCausalLM/Qwen2ForCausalLM "
                         "save", s->st[0].name);
        /* safetensors.torch.save_model (and anything that keeps one name, the first in sorted order, of tensors
         * sharing memory) writes a tied model's embedding as lm_head.weight alone; transformers loads it, tying
         * them. It was refused as 'missing tensor "model.embed_tokens.weight"' (a user's report). */
        if (!bare && m->cfg.tie_word_embeddings && !store_find(s, tab[0].name, &f) && store_find(s, "lm_head.weight", &f))
            snprintf(tab[0].name, sizeof tab[0].name, "lm_head.weight"); /* row 0 is embed_tokens */
        if (!st) st = check_unknown(s, tab, n, err);
        for (int i = 0; i < n && !st; i++) st = bind_tensor(s, &m->cfg, &tab[i], err);
        if (!st && m->cfg.tie_word_embeddings) st = check_tied_lm_head(s, &m->cfg, m->params.embed_tokens, err);
    } else {
        st = av_fail(err, AV_ERUNTIME, "out of memory loading %s", dir);
    }
    free(tab);
    if (st) return st;
    m->dtype = av_st_dtypes_name(s->dtypes); /* every tensor's: a file may mix F32 and BF16 */
    m->in_place = s->n_owned == 0;
    m->n_shards = s->n_st;
    for (int i = 0; i < s->n_st; i++) m->file_bytes += s->st[i].len;
    if (m->cfg.tie_word_embeddings) m->params.lm_head = m->params.embed_tokens;
    return AV_OK;
}

static void store_free(llama_store *s) {
    for (int i = 0; s && i < s->n_owned + s->n_st; i++) {
        if (i < s->n_owned) free(s->owned[i]);
        else av_safetensors_close(&s->st[i - s->n_owned]);
    }
    if (s) free(s->owned);
    free(s);
}

av_status av_llama_load(av_llama *m, const char *dir, av_err *err) {
    memset(m, 0, sizeof *m);
    char path[4200], *text = NULL;
    size_t len = 0;
    av_path_join(path, sizeof path, dir, "config.json");
    av_status s = av_read_regular_file(path, AV_MAX_INPUT_BYTES, &text, &len, err);
    if (!s) s = av_llama_config_parse(&m->cfg, text, len, AV_SHOWN_WORD(path, 4200), err); /* as messages name it */
    free(text);
    if (!s) {
        m->store = calloc(1, sizeof(llama_store));
        m->params.layers = calloc((size_t)m->cfg.n_layer, sizeof *m->params.layers);
        s = m->store && m->params.layers ? load_weights(m, m->store, dir, err)
                                         : av_fail(err, AV_ERUNTIME, "out of memory loading %s", AV_SHOWN_WORD(dir, 4200));
    }
    if (s) av_llama_free(m);
    return s;
}

void av_llama_free(av_llama *m) {
    store_free(m->store);
    free(m->params.layers);
    memset(m, 0, sizeof *m);
}
