/* llama.h - the Llama-family decoder (Llama 2/3, TinyLlama, SmolLM, Qwen2) as
 * Hugging Face stores it: config.json with model_type "llama" or "qwen2", the
 * weights in model.safetensors or in shards listed by
 * model.safetensors.index.json. The block (Touvron et al. 2023, "LLaMA", §2.2;
 * Hugging Face modeling_llama.py / modeling_qwen2.py):
 *
 *   x = hidden[l] (T, C)
 *   ln1  = RMSNorm(x)·input_layernorm.w          (Zhang & Sennrich 2019)
 *   q = ln1·W_Qᵀ (+b_q)  (T, H·D);  k, v = ln1·W_Kᵀ, ln1·W_Vᵀ (+b) (T, KVH·D)
 *   q, k rotated by RoPE, rotate-half pairing (i, i + D/2), θ = rope_theta
 *   grouped-query attention (Ainslie et al. 2023): query head h reads K/V
 *   head h / (H/KVH), so H/KVH query heads share each K/V head
 *   preatt = q·kᵀ/√D, att = softmax(causal), atty = att·v  (H, T, T), (T, C)
 *   res2 = x + atty·W_Oᵀ
 *   ln2  = RMSNorm(res2)·post_attention_layernorm.w
 *   res3 = res2 + (SiLU(ln2·W_gateᵀ) ⊙ ln2·W_upᵀ)·W_downᵀ  (SwiGLU, Shazeer 2020)
 *   logits = RMSNorm(hidden[L])·norm.w · W_lmᵀ, W_lm = lm_head or embed_tokens (tied)
 *
 * Weights are nn.Linear (out, in): y = x·Wᵀ, unlike GPT-2's Conv1D (in, out).
 * The product is gpt2.h's unembedding kernel (inp (T, C)·wᵀ for w (OC, C)),
 * shared rather than copied.
 *
 * Why rotate-half: Meta's original LLaMA code rotates interleaved pairs
 * (2i, 2i+1). Hugging Face's conversion script permutes the rows of W_Q and
 * W_K so that the cheaper rotate_half layout (i, i + D/2) gives the same
 * scores; every Hugging Face Llama/Qwen2 checkpoint is stored permuted, so
 * attnviz runs them with --rope-style half (attention.h's AV_ROPE_HALF).
 *
 * Activations reuse gpt2.h's av_gpt2_acts (same field names for the trace,
 * the figures and --dump), with these meanings and shapes (I = intermediate
 * size, KVH = K/V heads):
 *   encoded (T, C)  embed_tokens[token] = hidden[0]
 *   hidden (L+1, T, C), ln1, ln2 (L, T, C) RMSNorm outputs, ln1_rstd, ln2_rstd (L, T)
 *   qkv (L, T, (H + 2·KVH)·D) projections [q | k | v] with biases, before RoPE
 *   qkvh (L, 3, H, T, D) q, k, v per head after RoPE, K/V heads repeated to H
 *   preatt, att (L, H, T, T), atty_h (L, H, T, D), atty, attproj, res2 (L, T, C)
 *   fch (L, 2, T, I) gate then up projections; fch_gelu (L, T, I) SiLU(gate)⊙up
 *   fcproj, res3 (L, T, C), lnf (T, C), lnf_rstd (T), logits (T, V)
 *   (ln1_mean, ln2_mean, lnf_mean stay 0: RMSNorm has no mean.)
 *
 * Non-goals: rope_scaling / rope_parameters other than plain RoPE (refused), sliding windows, a KV cache in the
 * activations (--generate's is nn/gpt2_decode.h), batches.
 */
#ifndef AV_LLAMA_H
#define AV_LLAMA_H

#include <stddef.h>

#include "base/common.h"
#include "nn/attention.h"
#include "nn/gpt2.h"

/* ---------------------------------------------------------------------------- config */

typedef enum { AV_LLAMA_LLAMA, AV_LLAMA_QWEN2 } av_llama_type;

/* Hyper-parameters from config.json (Hugging Face LlamaConfig/Qwen2Config
 * names). */
typedef struct {
    av_llama_type type;        /* model_type "llama" or "qwen2" */
    int n_layer;               /* L = num_hidden_layers */
    int n_head;                /* H = num_attention_heads */
    int n_kv_head;             /* KVH = num_key_value_heads (default H); divides H */
    int n_kv_head_default;     /* 0: config.json gives num_key_value_heads; 1: it has none; 2: it is null (KVH = H
                                * then, and a k_proj/v_proj of fewer rows says so) */
    int n_embd;                /* C = hidden_size; D = C / H */
    int n_inter;               /* I = intermediate_size */
    int vocab_size;            /* V */
    int max_positions;         /* max_position_embeddings (default transformers': 2048 llama, 32768 qwen2): the longest input */
    const char *max_positions_from; /* where max_positions came from, for messages: "max_position_embeddings in
                                     * config.json", or the default's source when config.json has none or null
                                     * ("config.json's max_position_embeddings is null; attnviz takes
                                     * LlamaConfig's default") */
    int max_positions_default; /* 1: config.json has no max_position_embeddings or has it null (max_positions_from
                                * names the default) */
    double rms_norm_eps;       /* ε (default 1e-6) */
    int rms_norm_eps_default;  /* 1: config.json has no rms_norm_eps (ε is transformers' default), for the trace */
    double rope_theta;         /* θ (default 10000) */
    const char *rope_theta_from; /* the key θ came from, for the trace: "rope_parameters.rope_theta" or
                                  * "rope_theta"; NULL when config.json has neither (transformers' default 10000) */
    int tie_word_embeddings;   /* 1: logits use embed_tokens (default 0 llama, qwen2 as given) */
    int qkv_bias;              /* 1 for qwen2: q_proj, k_proj, v_proj have biases */
    int bos_token_id;          /* INT_MIN if absent or null; else as given (-1 too: checked where used) */
    int bos_token_id_null;     /* 1: config.json has "bos_token_id": null (not absent), for the messages */
    int eos_ids[AV_MAX_EOS];   /* eos_token_id's ids of the vocabulary (an id or a list, as gpt2.h's) */
    int n_eos;
    int eos_left, n_eos_left;  /* eos_token_id's ids outside the vocabulary, as gpt2.h's */
    av_kernel kernel;          /* not from config.json; reference (default) or blas */
} av_llama_config;

/* Parse config.json text (len bytes) with cJSON. Required: model_type,
 * hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
 * vocab_size. Refused with AV_EUSAGE naming the key: another model_type,
 * hidden_act other than "silu", a rope_scaling or rope_parameters other than
 * null or rope_type "default" (θ: rope_parameters.rope_theta, else rope_theta), head_dim other than
 * C/H, 0 too (only null or no key derives it, as in transformers' LlamaConfig) ("config.json: head_dim 32 is not supported: attnviz needs head_dim =
 * hidden_size / num_attention_heads = 64 / 4 = 16 (allowed: 16, or no head_dim
 * key)"), attention_bias, mlp_bias or use_sliding_window true ("config.json:
 * \"mlp_bias\": true is not supported (allowed: false)") or another value
 * Python reads as true (false, null, 0, "" run), a partial_rotary_factor other than 1 or null, at the top level
 * or in rope_parameters or rope_scaling ("config.json: partial_rotary_factor
 * 0.5 is not supported: attnviz's RoPE rotates all head_dim dimensions of each
 * head (allowed: 1, null or absent)"), a layer_types other than null or a list
 * of "full_attention" ("config.json: layer_types[1] \"sliding_attention\" is
 * not supported: ..."), or of another length than num_hidden_layers
 * ("config.json: layer_types has 1 entry but num_hidden_layers is 2 ..."), KVH not dividing H, odd D
 * ("config.json: the derived head_dim = hidden_size / num_attention_heads =
 * 68 / 4 = 17 is odd; RoPE rotates pairs of dimensions, so it must be even
 * (allowed: hidden_size a multiple of 2·num_attention_heads = 8: 64 or 72)"), sizes
 * past the limits of gpt2.h (AV_GPT2_MAX_*), ε outside (0, 1), θ <= 1,
 * rms_norm_eps, rope_theta or rope_parameters.rope_theta null, which
 * transformers keeps and fails on, where a missing key takes its default
 * ("config.json: \"rope_theta\" is null; it must be a number, or the key left
 * out for transformers' default 10000 (transformers keeps a null and fails on
 * it with a TypeError)"). */
av_status av_llama_config_parse(av_llama_config *cfg, const char *json, size_t len, const char *name, av_err *err);

/* ---------------------------------------------------------------------------- parameters */

typedef struct {
    float *input_layernorm;            /* (C) */
    float *q_proj, *q_bias;            /* (H·D, C), (H·D) or NULL */
    float *k_proj, *k_bias;            /* (KVH·D, C), (KVH·D) or NULL */
    float *v_proj, *v_bias;            /* (KVH·D, C), (KVH·D) or NULL */
    float *o_proj;                     /* (C, H·D) */
    float *post_attention_layernorm;   /* (C) */
    float *gate_proj, *up_proj;        /* (I, C) each */
    float *down_proj;                  /* (C, I) */
} av_llama_layer;

typedef struct {
    float *embed_tokens;               /* model.embed_tokens.weight (V, C) */
    av_llama_layer *layers;            /* model.layers.0 ... L-1 */
    float *norm;                       /* model.norm.weight (C) */
    float *lm_head;                    /* lm_head.weight (V, C), or = embed_tokens when tied */
} av_llama_params;

/* One row of the parameter table: the checkpoint name, its (out, in) shape,
 * where its pointer lives. */
typedef struct {
    char name[64];                     /* "model.layers.3.self_attn.q_proj.weight" */
    int ndim;                          /* 1 or 2 */
    size_t shape[2];
    size_t numel;
    float **slot;
} av_llama_tensor;

/* Number of parameter tensors: 2 + 9·L, + 3·L biases (qwen2), + 1 untied lm_head. */
int av_llama_num_tensors(const av_llama_config *cfg);

/* Fill table (av_llama_num_tensors rows) in Hugging Face state-dict order,
 * slots pointing into p (p->layers must hold L layers). */
void av_llama_tensor_table(av_llama_tensor *table, const av_llama_config *cfg, av_llama_params *p);

/* ---------------------------------------------------------------------------- model */

typedef struct {
    av_llama_config cfg;
    av_llama_params params;
    const char *dtype;                 /* checkpoint dtypes (av_st_dtypes_name): "F32", "F16", "BF16", or a mix
                                          ("F32 and BF16") when its tensors differ */
    int in_place;                      /* 1 if every tensor is read in place from the mapping (F32, 4-byte
                                          aligned); 0 if any was converted or copied */
    int n_shards;                      /* 1 for model.safetensors */
    size_t file_bytes;                 /* total size of the safetensors files */
    void *store;                       /* owner of the tensor memory (opaque) */
} av_llama;

/* Load DIR/config.json and DIR/model.safetensors, or, when that file is
 * absent, DIR/model.safetensors.index.json and the shards its weight_map
 * names. Every table tensor must be present with the (out, in) shape cfg
 * implies; rotary_emb.inv_freq buffers are ignored; any other tensor is an
 * error; lm_head.weight is required unless tie_word_embeddings, its absence
 * named with that key ("model.safetensors: missing tensor \"lm_head.weight\":
 * config.json's tie_word_embeddings is false ..."); with it, an
 * lm_head.weight (a state dict's, which holds both names) must equal
 * model.embed_tokens.weight ("model.safetensors: tensor \"lm_head.weight\"
 * differs from model.embed_tokens.weight, but config.json's
 * tie_word_embeddings is true, ..." otherwise); when tied, a checkpoint with
 * lm_head.weight and no model.embed_tokens.weight (safetensors.torch.save_model's,
 * which keeps one name of shared tensors) uses it as the embedding. A base
 * model's save (LlamaModel, Qwen2Model: names without the "model." prefix,
 * no lm_head.weight) is read as transformers reads it into the ForCausalLM
 * when tied, and refused naming tie_word_embeddings when not. F32 stays
 * mmapped, F16/BF16 are converted. Errors: AV_ERUNTIME for I/O ("cannot read
 * 'DIR/config.json': ..."); AV_EUSAGE naming file and tensor for content
 * (a k_proj or v_proj whose shape is not what a config.json without
 * num_key_value_heads, or with it null, implies names the key: "DIR/model.safetensors:
 * tensor \"model.layers.0.self_attn.k_proj.weight\" has shape (16, 32), but
 * config.json has no num_key_value_heads, so attnviz takes num_attention_heads
 * = 4 K/V heads (...), which implies nn.Linear (out, in) = (32, 32); 16 rows
 * are 2 K/V heads of head_dim 8: write \"num_key_value_heads\": 2 in config.json"),
 * "--model DIR has no model.safetensors, nor a model.safetensors.index.json
 * naming its shards; ..." when neither is there ("..., and its 2 shard files
 * (model-00001-of-00002.safetensors, ...) have no
 * model.safetensors.index.json, ...; save_pretrained writes it with the
 * shards ..." when shard files are), fileio.h av_unfinished_download's
 * "--model DIR has no model.safetensors, but holds
 * model.safetensors.incomplete, ..." for a download that did not finish (of
 * a shard too), "--model DIR: model.safetensors.index.json names the shard
 * model-00002-of-00002.safetensors, which is not in the folder (1 of its 2
 * shards is); the download may be incomplete: ..." for a missing shard,
 * "DIR/model.safetensors.index.json: weight_map[\"TENSOR\"] is
 * \"../x/model.safetensors\"; it must be a file name in the folder (no '/',
 * not \".\" or \"..\")" for a value that names no file in the folder ("",
 * ".", ".." or one with a '/'; "..a" is a file in it), and
 * fileio.h av_dangling_link's "... is a symbolic link to 'T', which does not
 * exist" for any of them. On error *m is zeroed. */
av_status av_llama_load(av_llama *m, const char *dir, av_err *err);
void av_llama_free(av_llama *m);

#define AV_LLAMA_MAX_SHARDS 64         /* files a model.safetensors.index.json may name */

/* The shard files av_llama_load would read from DIR: the distinct file names
 * of model.safetensors.index.json's weight_map, in the order they first
 * appear, into names[0..) (at most max, each a name in DIR, < 256 bytes).
 * Returns how many; 0 when DIR/model.safetensors exists (it is read alone)
 * or the index is missing or unreadable (av_llama_load says why). For
 * app/gpt2run.c, which notes the files' identities before and after a load
 * to see a folder that changed while it was read. */
int av_llama_shard_files(char (*names)[256], int max, const char *dir);

/* How many files in DIR are named as save_pretrained names the shards of a
 * split model, model-NNNNN-of-NNNNN.safetensors ("model-", then "-of-", then
 * ".safetensors"); first (256 bytes) the first of them by name, "" when
 * none. 0 when DIR cannot be read. For the error of a folder whose shards
 * lack model.safetensors.index.json (here and app/gpt2run.c). No errors. */
int av_llama_shards_present(const char *dir, char first[256]);

/* A folder with PyTorch's pickled weights in place of safetensors, as torch.save and
 * save_pretrained(safe_serialization=False) leave them: DIR/pytorch_model.bin, or
 * DIR/pytorch_model.bin.index.json and its shards, or shards
 * DIR/pytorch_model-00001-of-00002.bin ... without the index. AV_EUSAGE "--model DIR has no
 * model.safetensors, only pytorch_model.bin (PyTorch's pickle format, which
 * attnviz does not read); convert it once, in that folder: python3 -c \"...\""
 * (the shards' case: "only pytorch_model.bin.index.json and its shards ...;
 * join and convert them once ..."; without the index "only PyTorch shards
 * (pytorch_model-00001-of-00002.bin, ...) ... and no
 * pytorch_model.bin.index.json"), the one line writing model.safetensors.
 * AV_OK, err untouched, when neither file is there. For a GPT-2 folder
 * (app/gpt2run.c) and a Llama/Qwen2 one (av_llama_load). */
av_status av_torch_weights_fail(const char *dir, av_err *err);

/* Allocate a (av_gpt2_acts, the meanings above) for T tokens, zeroed.
 * Errors: AV_EUSAGE if T is outside 1..min(max_positions, AV_MAX_TOKENS) or
 * the (L, H, T, T) maps exceed AV_MAX_WEIGHT_BYTES; AV_ERUNTIME on OOM.
 * Free with av_gpt2_acts_free. */
av_status av_llama_acts_alloc(av_gpt2_acts *a, const av_llama_config *cfg, int T, av_err *err);

/* The forward pass on tokens[0..T-1], positions pos0 .. pos0+T-1 (0 for a
 * normal run; the RoPE shift test uses k). Errors: AV_EUSAGE for an id out of
 * range or a value overflowing float32; NaN never escapes. */
av_status av_llama_forward(av_gpt2_acts *a, const av_llama_params *p, const av_llama_config *cfg, const int *tokens,
                           int T, int pos0, av_err *err);

/* ---------------------------------------------------------------------------- kernels */

/* out (T, C) = inp·rstd·w per row, rstd = 1/√(mean(inp²) + eps), sums in
 * double (RMSNorm, Zhang & Sennrich 2019 eq. 4). rstd (T) may be NULL. */
void rmsnorm_forward(float *out, float *rstd, const float *inp, const float *w, int T, int C, double eps);

/* out (N) = SiLU(gate)·up = gate/(1 + e^(−gate))·up (SwiGLU, Shazeer 2020 eq. 6). */
void swiglu_forward(float *out, const float *gate, const float *up, size_t N);

/* out (T, OC) = inp (T, C)·wᵀ + b, w (OC, C) nn.Linear, b (OC) or NULL; kernel as
 * gpt2.h's gpt2_unembed (reference loops or BLAS). */
void linear_forward(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC, av_kernel kernel);

#endif
