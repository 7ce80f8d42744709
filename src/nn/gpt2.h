/* gpt2.h - the GPT-2 Transformer: config, parameters with the checkpoint's
 * names, activations that keep every intermediate tensor, and the forward pass
 * (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners",
 * §2.3; the block of Vaswani et al. 2017 §3 with LayerNorm moved to the input
 * of each sub-block and a final LayerNorm). Laid out as karpathy/llm.c's
 * train_gpt2.c: one struct of parameter tensors, one of activations, each
 * field with its shape, and av_gpt2_forward calling the kernels in order, so a
 * backward pass can walk the same fields in reverse.
 *
 * Legend: L layers, T tokens, C = d_model = n_embd, H heads, D = d_k = C/H,
 * V vocabulary size, maxT = n_positions. All buffers are flat row-major
 * float32.
 *
 * One block, pre-LN (GPT-2, the default), x = hidden[l] (T, C):
 *   ln1  = LayerNorm_1(x)
 *   qkv  = ln1·c_attn.w + c_attn.b                  (T, C)·(C, 3C) → (T, 3C)
 *   q, k, v = split into heads; RoPE on q and k when positions = rope
 *   preatt = q·kᵀ·scale, scale = 1/√D (or 1)        (H, T, T), before the mask
 *   att  = softmax(preatt with the causal mask)     (H, T, T)
 *   atty = merge heads of att·v                     (T, C)
 *   attproj = atty·attn.c_proj.w + b                (T, C)
 *   res2 = x + attproj                              residual
 *   ln2  = LayerNorm_2(res2)
 *   fch  = ln2·c_fc.w + b (T, 4C);  fch_gelu = GELU_tanh(fch)
 *   fcproj = fch_gelu·mlp.c_proj.w + b              (T, C)
 *   res3 = res2 + fcproj = hidden[l+1]              residual
 * Post-LN (Vaswani et al. 2017 §3.1, "norm": "post" in config.json), for
 * trained toy models; the attention reads x itself (no LayerNorm before it):
 *   res2 = x + attproj;   ln1 = LayerNorm_1(res2)   (the MLP reads ln1)
 *   res3 = ln1 + fcproj;  ln2 = LayerNorm_2(res3) = hidden[l+1]
 * ln_f is applied after the last block in both modes.
 * Logits = LayerNorm_f(hidden[L])·wteᵀ (T, V): the unembedding is tied to wte.
 *
 * Positions: learned (GPT-2: x0 = wte[token] + wpe[t]), sinusoidal
 * (x0 = wte[token] + PE, attention.h's sinusoidal_forward), rope (x0 =
 * wte[token]; q, k rotated per head, attention.h's rope_forward), or none.
 *
 * Non-goals: batches (one activations struct per sequence), a KV cache
 * (--generate's is nn/gpt2_decode.h, one token at a time),
 * dropout, the backward pass (train helper).
 */
#ifndef AV_GPT2_H
#define AV_GPT2_H

#include <stddef.h>

#include "base/common.h"
#include "nn/attention.h"

/* ---------------------------------------------------------------------------- config */

typedef enum { AV_NORM_PRE, AV_NORM_POST } av_norm;

/* Hyper-parameters from config.json (Hugging Face GPT2Config names), plus the
 * optional "attnviz" object that attnviz's trained toy models write:
 *   "attnviz": {"positions": "learned"|"sinusoidal"|"rope"|"none",
 *               "norm": "pre"|"post", "scale": true|false,
 *               "rope_base": 10000, "rope_style": "interleaved"|"half"}
 * Absent keys take GPT-2's values: learned, pre, scale, 10000, interleaved. */
#define AV_MAX_EOS 64 /* eos_token_id ids kept (Llama 3.1 lists 3; a list of 10 was refused at 8) */

typedef struct {
    int n_layer;               /* L */
    int n_head;                /* H */
    int n_embd;                /* C = d_model */
    int n_positions;           /* maxT: rows of wpe, and the longest input */
    int vocab_size;            /* V: rows of wte */
    double layer_norm_epsilon; /* ε in LayerNorm, GPT-2: 1e-5 */
    int layer_norm_epsilon_default; /* 1: config.json has no layer_norm_epsilon (ε is GPT2Config's default), for
                                       the trace; 0 otherwise and for a model not read from config.json */
    av_positions positions;    /* AV_POS_LEARNED for GPT-2 */
    int positions_given;       /* 1: config.json's "attnviz" object had "positions" (0: GPT-2's learned
                                  default), for the load's check against wpe.weight */
    av_norm norm;              /* AV_NORM_PRE for GPT-2 */
    int scale;                 /* 1: scores ÷ √D (GPT-2); 0: no scale */
    char scale_value[40];      /* config.json's scale_attn_weights when it is not true or false ("null", "0", "\"\""),
                                  as io/jsonval.h av_json_shown spells it, which transformers reads by truth (scale
                                  0 or 1), for the trace; "" otherwise */
    char no_scale_why[112];    /* with scale 0 and a scale_value: av_gpt2_no_scale_why's words; "" otherwise */
    double rope_base;          /* θ for rope, default 10000 */
    av_rope_style rope_style;  /* pairing for rope, default interleaved */
    int eos_ids[AV_MAX_EOS];   /* config.json's eos_token_id, the ids of the vocabulary it names (an id or
                                  a list): --generate stops after any of them, as Hugging Face's generate
                                  does (GPT-2: 50256, <|endoftext|>); a Llama's are mirrored here */
    int n_eos;                 /* 0: none (absent, null, or no id of the vocabulary) */
    int eos_left, n_eos_left;  /* the first of eos_token_id's ids left out of eos_ids as outside 0..V-1, and
                                  how many different ids were (0: none); --generate's note says it cannot
                                  stop on them */
    int untied;                /* 1: config.json's tie_word_embeddings is false (GPT2Config's default
                                  true), so the checkpoint must hold lm_head.weight (av_gpt2_load) */
    av_kernel kernel;          /* not from config.json: AV_KERNEL_REFERENCE (default, the readable
                                  loops, sums in double) or AV_KERNEL_BLAS (sgemm, float32 sums,
                                  attention_blas.h); AV_KERNEL_FLASH runs as BLAS here, since the
                                  model keeps every (H, T, T) map */
    const char *key_n_layer;   /* the name config.json gave each size by, for messages: NULL for the
                                  GPT2Config key ("n_layer" ...), or the alias read in its place alone
                                  ("num_hidden_layers", "num_attention_heads", "hidden_size",
                                  "max_position_embeddings"); a static string */
    const char *key_n_head, *key_n_embd, *key_n_positions;
    char warning[640];         /* not from config.json as such: "" or what av_gpt2_config_parse found
                                  worth a warning (a Hugging Face GPT-2 claim that the "attnviz"
                                  object contradicts); the caller prints it */
} av_gpt2_config;

/* Limits checked by av_gpt2_config_check (besides AV_MAX_D_MODEL/HEADS). */
#define AV_GPT2_MAX_LAYERS 128
#define AV_GPT2_MAX_VOCAB (1 << 20)
#define AV_GPT2_MAX_POSITIONS (1 << 16)

/* GPT-2's defaults for the fields not in the base config (positions learned,
 * norm pre, scale 1, rope_base 10000, interleaved); sizes are left 0. */
void av_gpt2_config_defaults(av_gpt2_config *cfg);

/* Check sizes against the limits: 1 <= L <= 128, C <= AV_MAX_D_MODEL, H
 * divides C, even D for rope, V and maxT in range, 0 < ε < 1, rope_base a
 * finite number > 1 whatever the positions (unused unless rope). Errors:
 * AV_EUSAGE naming the key and value ("config.json: n_head 5 does not divide
 * n_embd 64"), each size by the name config.json gave it (cfg->key_n_head
 * ...: "num_attention_heads 3 does not divide hidden_size 64"). */
av_status av_gpt2_config_check(const av_gpt2_config *cfg, av_err *err);

/* Where cfg's context length came from, for "more than the model's N
 * positions (...)": "n_positions in config.json", or
 * "max_position_embeddings in config.json" when the file named it so
 * (cfg->key_n_positions). Never NULL; a static string. */
const char *av_gpt2_positions_from(const av_gpt2_config *cfg);

/* Why cfg runs without ÷√d_k, as its trace's scale line says it, for the
 * "no ÷√d_k (...)" of --explain's cell and the --html page: "config.json's
 * scale_attn_weights is null, which transformers reads as false" (or 0, "",
 * ...) when cfg->scale_value is set, else "the model was trained without it";
 * NULL when cfg->scale (scores ÷ √D). cfg's own text or a static string. */
const char *av_gpt2_no_scale_why(const av_gpt2_config *cfg);

/* Parse config.json text (len bytes, need not be NUL-terminated) with cJSON.
 * Required: n_layer, n_head, n_embd, n_positions, vocab_size (whole numbers;
 * the first four also under the names GPT2Config.attribute_map gives them,
 * num_hidden_layers, num_attention_heads, hidden_size,
 * max_position_embeddings: both names with two values are refused, "config.json:
 * \"n_embd\" 64 and \"hidden_size\" 32 disagree ..."; n_ctx, an older name,
 * is not taken for n_positions, as transformers' GPT2Config does not: without
 * n_positions or max_position_embeddings its message names it);
 * optional: model_type (must be "gpt2" or AV_GPT2_ATTNVIZ_TYPE; older GPT-2
 * exports lack it), layer_norm_epsilon (default 1e-5), scale_attn_weights
 * (true or false, GPT2Config's: false = no ÷√d_k), activation_function
 * (gelu_new, or gelu_pytorch_tanh, gelu_fast, gelu_accurate: transformers'
 * names of the same tanh GELU, gelu_forward's; else "config.json:
 * activation_function is \"relu\"; attnviz supports only GPT-2's tanh GELU
 * ..."), eos_token_id (an id, a
 * list of any length, at most AV_MAX_EOS different ids of the vocabulary,
 * or null; as io/jsonval.h av_json_token_ids
 * reads it, with its error), "attnviz" (above; its
 * "scale" and scale_attn_weights, if both given, must agree: "config.json:
 * \"scale_attn_weights\": false contradicts attnviz.scale true ..."),
 * tie_word_embeddings (true or false, GPT2Config's default true; false sets
 * cfg->untied). `name` starts every
 * message. Errors, AV_EUSAGE: av_json_parse_object's ("config.json: not
 * valid JSON near byte 12 of 40; ...", "config.json: not a JSON object (it is an array)"),
 * "config.json: model_type \"mistral\" is not supported (allowed: gpt2,
 * llama, qwen2)", "config.json: missing key \"n_head\" (attnviz needs n_layer,
 * n_head, n_embd, n_positions and vocab_size, and guesses none: ...); add
 * \"n_head\" with the number of attention heads per block ..." (also
 * with "it has \"n_ctx\": 8, ..." for n_ctx in n_positions' place),
 * "config.json: \"n_head\"
 * 4.5 must be a whole number", "config.json: \"n_layer\" 1099511627776 is too
 * large (a whole number of at most 1e9)", "config.json: attnviz.positions \"x\": expected
 * learned, sinusoidal, rope or none", "config.json: model_type \"attnviz_gpt2\"
 * needs the \"attnviz\" object ..." (AV_GPT2_ATTNVIZ_TYPE without it would
 * silently run as a plain GPT-2), and av_gpt2_config_check's.
 * Not an error, but cfg->warning: model_type "gpt2" or architectures
 * ["GPT2LMHeadModel"] together with an "attnviz" object that transformers
 * does not compute (attnviz.norm "post", attnviz.positions other than
 * learned), as folders of earlier attnviz versions have; attnviz follows the
 * "attnviz" object. */
av_status av_gpt2_config_parse(av_gpt2_config *cfg, const char *json, size_t len, const char *name,
                               av_err *err);

/* model_type and architectures of the config.json of a model Hugging Face
 * transformers cannot compute (av_gpt2_config_is_hf 0): unknown to
 * transformers on purpose, so AutoModelForCausalLM refuses the folder instead
 * of building GPT2LMHeadModel and computing other logits with its weights.
 * av_gpt2_config_parse accepts the type as it does "gpt2". */
#define AV_GPT2_ATTNVIZ_TYPE "attnviz_gpt2"
#define AV_GPT2_ATTNVIZ_ARCH "AttnvizGPT2"

/* 1 if transformers' GPT2LMHeadModel computes what cfg describes: learned
 * positions (wpe) and Pre-LN; the scale may be off (scale_attn_weights
 * false). Post-LN, sinusoidal positions, RoPE or none give 0. */
int av_gpt2_config_is_hf(const av_gpt2_config *cfg);

/* Write cfg as config.json text into a malloc'd NUL-terminated string
 * (*out, caller frees): the GPT2Config keys; "model_type": "gpt2" and
 * "architectures": ["GPT2LMHeadModel"] when av_gpt2_config_is_hf, else
 * AV_GPT2_ATTNVIZ_TYPE, [AV_GPT2_ATTNVIZ_ARCH] and an "attnviz_note" saying
 * what transformers would compute differently; "scale_attn_weights": false
 * (GPT2Config's key) without the scale; and the "attnviz" object when any of
 * its fields differs from GPT-2's.
 * Errors: AV_ERUNTIME on out of memory. */
av_status av_gpt2_config_json(char **out, const av_gpt2_config *cfg, av_err *err);

/* ---------------------------------------------------------------------------- parameters */

/* One block's parameters. Conv1D weights are stored (in, out) as in the
 * checkpoint, so y = x·w + b needs no transpose. Names are the checkpoint's,
 * after "h.N.". */
typedef struct {
    float *ln_1_w, *ln_1_b;            /* ln_1.weight, ln_1.bias (C) */
    float *attn_c_attn_w;              /* attn.c_attn.weight (C, 3C): [W_Q | W_K | W_V] */
    float *attn_c_attn_b;              /* attn.c_attn.bias (3C) */
    float *attn_c_proj_w;              /* attn.c_proj.weight (C, C): W_O */
    float *attn_c_proj_b;              /* attn.c_proj.bias (C) */
    float *ln_2_w, *ln_2_b;            /* ln_2.weight, ln_2.bias (C) */
    float *mlp_c_fc_w;                 /* mlp.c_fc.weight (C, 4C) */
    float *mlp_c_fc_b;                 /* mlp.c_fc.bias (4C) */
    float *mlp_c_proj_w;               /* mlp.c_proj.weight (4C, C) */
    float *mlp_c_proj_b;               /* mlp.c_proj.bias (C) */
} av_gpt2_layer;

/* Every parameter tensor. The pointers may point into a read-only mmap (F32
 * checkpoints: the forward never writes through them) or into memory the
 * owner allocated (training: one block, and the same struct for gradients). */
typedef struct {
    float *wte;                        /* wte.weight (V, C), also the unembedding */
    float *wpe;                        /* wpe.weight (maxT, C); NULL unless learned */
    av_gpt2_layer *h;                  /* h.0 ... h.{L-1} (L entries, owned by the model) */
    float *ln_f_w, *ln_f_b;            /* ln_f.weight, ln_f.bias (C) */
} av_gpt2_params;

/* One row of the parameter table: checkpoint name (no "transformer."
 * prefix), shape, and the slot in an av_gpt2_params that points to it. */
#define AV_GPT2_NAME_MAX 48
typedef struct {
    char name[AV_GPT2_NAME_MAX];       /* "wte.weight", "h.3.attn.c_attn.bias", ... */
    int ndim;                          /* 1 or 2 */
    size_t shape[2];                   /* e.g. (C, 3C) */
    size_t numel;                      /* shape[0]·shape[1] (or shape[0]) */
    float **slot;                      /* where the tensor's pointer lives in params */
} av_gpt2_tensor;

/* Number of parameter tensors for cfg: 3 + 12·L, plus 1 (wpe) if learned. */
int av_gpt2_num_tensors(const av_gpt2_config *cfg);

/* Fill table[0 .. av_gpt2_num_tensors(cfg)-1] in checkpoint order (wte, wpe,
 * h.0.ln_1.weight, ..., ln_f.bias), slots pointing into p (p->h must hold L
 * layers). Loaders, writers and optimisers loop over this one table. */
void av_gpt2_tensor_table(av_gpt2_tensor *table, const av_gpt2_config *cfg, av_gpt2_params *p);

/* Total float count of all parameters (for one-block allocation). */
size_t av_gpt2_num_params(const av_gpt2_config *cfg);

/* ---------------------------------------------------------------------------- activations */

/* Everything the forward computes for one sequence of T tokens, kept for the
 * trace, the figures, --dump, and a backward pass. */
typedef struct {
    int T;                             /* tokens this struct was sized for */
    float *encoded;                    /* (T, C) wte[token] (+ wpe[t] or PE), = hidden[0] */
    float *hidden;                     /* (L+1, T, C) residual stream: before each block, after the last (before ln_f) */
    float *ln1;                        /* (L, T, C) LayerNorm_1 output */
    float *ln1_mean, *ln1_rstd;        /* (L, T) its mean and 1/√(var+ε) */
    float *qkv;                        /* (L, T, 3C) input·c_attn.w + b */
    float *qkvh;                       /* (L, 3, H, T, D) q, k, v split into heads; q, k after RoPE */
    float *preatt;                     /* (L, H, T, T) scores q·kᵀ·scale, before the mask */
    float *att;                        /* (L, H, T, T) attention weights (causal; 0 above the diagonal) */
    float *atty_h;                     /* (L, H, T, D) att·v per head */
    float *atty;                       /* (L, T, C) heads merged */
    float *attproj;                    /* (L, T, C) atty·attn.c_proj.w + b */
    float *res2;                       /* (L, T, C) x + attproj */
    float *ln2;                        /* (L, T, C) LayerNorm_2 output */
    float *ln2_mean, *ln2_rstd;        /* (L, T) */
    float *fch;                        /* (L, T, 4C) MLP input·c_fc.w + b */
    float *fch_gelu;                   /* (L, T, 4C) GELU_tanh(fch) */
    float *fcproj;                     /* (L, T, C) fch_gelu·mlp.c_proj.w + b */
    float *res3;                       /* (L, T, C) second residual sum */
    float *lnf;                        /* (T, C) LayerNorm_f(hidden[L]) */
    float *lnf_mean, *lnf_rstd;        /* (T) */
    float *logits;                     /* (T, V) lnf·wteᵀ */
    unsigned char *mask;               /* (T, T) causal mask, 1 = masked (key after query) */
} av_gpt2_acts;

/* Allocate every buffer of a for T tokens under cfg (zeroed). Errors:
 * AV_EUSAGE if T is outside 1..min(n_positions, AV_MAX_TOKENS) (learned
 * positions need T <= n_positions) or sizes overflow; AV_ERUNTIME on OOM. */
av_status av_gpt2_acts_alloc(av_gpt2_acts *a, const av_gpt2_config *cfg, int T, av_err *err);
void av_gpt2_acts_free(av_gpt2_acts *a);

/* The refusal of a config.json whose model_type no loader reads (name: the
 * file, for the message): value is the JSON string, or NULL when model_type is
 * missing (missing = 1) or not a string. Always returns AV_EUSAGE:
 * 'config.json: model_type "mistral" is not supported (allowed: gpt2, llama, qwen2)', the value as
 * io/jsonval.h av_json_shown spells it (JSON escapes, cut to 40 bytes at a whole character with "…"). */
av_status av_model_type_refused(const char *name, const char *value, int missing, av_err *err);


/* T tokens against a model of max_positions positions (0: no limit of the
 * model's; key: where it comes from, for the message: "n_positions in
 * config.json", or a default's source) and
 * AV_MAX_TOKENS. Errors, AV_EUSAGE: "40 tokens is more than the model's 32
 * positions (n_positions in config.json); allowed: 1..32 tokens", or T
 * outside 1..AV_MAX_TOKENS. */
av_status av_acts_check_T(int T, int max_positions, const char *key, av_err *err);

/* The allocation behind av_gpt2_acts_alloc, for any decoder that fills the
 * same struct (nn/llama.h): T tokens, L layers, C = d_model, H heads, and
 * per token and layer qkv floats for a->qkv, fch for a->fch, act for
 * a->fch_gelu; V logits per token. GPT-2: qkv 3C, fch = act = 4C (Llama: qkv 0,
 * its projections go straight into heads). Errors:
 * AV_EUSAGE when the (L, H, T, T) scores and weights exceed
 * AV_MAX_WEIGHT_BYTES; AV_ERUNTIME on OOM (a is then freed). */
av_status av_acts_alloc_sized(av_gpt2_acts *a, int T, int L, int C, int H, size_t qkv, size_t fch, size_t act,
                              size_t V, av_err *err);

/* ---------------------------------------------------------------------------- model */

/* A loaded model: config, parameters, and what backs them. */
typedef struct {
    av_gpt2_config cfg;
    av_gpt2_params params;
    int transformer_prefix;            /* 1 if the checkpoint's names start with "transformer." */
    int has_lm_head;                   /* 1 if lm_head.weight was present (it must equal wte: tied) */
    const char *dtype;                 /* checkpoint dtypes (av_st_dtypes_name): "F32", "F16", "BF16", or a mix
                                          ("F32 and F16") when its tensors differ */
    int in_place;                      /* 1 if every tensor is read in place from the mapping (F32, 4-byte
                                          aligned); 0 if any was converted or copied */
    size_t file_bytes;                 /* size of model.safetensors */
    void *store;                       /* owner of the tensor memory (opaque) */
} av_gpt2;

/* Load DIR/config.json and DIR/model.safetensors. F32 tensors stay in the
 * read-only mmap (no copy); F16 and BF16 are converted to float32. Every
 * tensor of the table must be present with the shape cfg implies, under the
 * same prefix ("transformer." or none); lm_head.weight, if present, must be
 * (V, C) and is checked to equal wte, and must be present when config.json's
 * tie_word_embeddings is false (cfg.untied: transformers would draw a random
 * lm_head for it, so attnviz's logits would not be that model's: "model.safetensors:
 * config.json's tie_word_embeddings is false, but there is no tensor
 * \"lm_head.weight\" ..."; one that differs from wte there: "model.safetensors:
 * config.json's tie_word_embeddings is false and lm_head.weight differs from
 * wte.weight: an untied output layer, which attnviz does not run; allowed:
 * ..."); when tied, a checkpoint with lm_head.weight and no
 * wte.weight (safetensors.torch.save_model's, which keeps one name of shared
 * tensors) uses lm_head.weight as wte, as transformers does; h.N.attn.bias and h.N.attn.masked_bias
 * (causal-mask buffers) are ignored; any other tensor is an error. wpe.weight
 * must be there exactly when the positions are learned: with attnviz.positions
 * given, a disagreement names it ("DIR/config.json says attnviz.positions
 * \"rope\", but DIR/model.safetensors has the tensor \"wpe.weight\" ..."). Errors:
 * AV_ERUNTIME "cannot read 'DIR/config.json': No such file or directory";
 * AV_EUSAGE for every content problem, naming the file and the tensor
 * ("model.safetensors: tensor \"h.0.attn.c_attn.weight\" has shape (64, 64);
 * config.json implies (64, 192)"). On error *m is zeroed. */
av_status av_gpt2_load(av_gpt2 *m, const char *dir, av_err *err);
void av_gpt2_free(av_gpt2 *m);

/* Run the forward pass on tokens[0..T-1] (each in 0..V-1), filling a (sized
 * for T by av_gpt2_acts_alloc). params is read only. Errors: AV_EUSAGE for a
 * token id out of range, or a value that overflows float32 ("layer 3: the
 * scores q·kᵀ overflowed float32"; the embedding and the logits, which are no
 * layer's, are named without one); NaN never escapes. */
av_status av_gpt2_forward(av_gpt2_acts *a, const av_gpt2_params *p, const av_gpt2_config *cfg,
                          const int *tokens, int T, av_err *err);

/* ---------------------------------------------------------------------------- kernels */

/* Σ_i a[i]·b[i] over n floats, in float, as 8 interleaved partial sums added
 * in a fixed order ((0+1)+(2+3))+((4+5)+(6+7)): the same bits every run and
 * on every thread count, in a loop the compiler can vectorise. */
float gpt2_dot(const float *a, const float *b, int n);

/* out (T, OC) = inp (T, C)·w (C, OC) + b (OC) (b may be NULL). The one
 * matrix product of the model: Conv1D layout, GPT-2's c_attn, c_proj, c_fc.
 * Reference: attention.h's matmul_forward plus the bias. */
void gpt2_matmul_forward(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC);

/* logits (T, V) = inp (T, C)·wteᵀ, wte (V, C): the tied unembedding, one
 * gpt2_dot per (t, v). */
void gpt2_unembed_forward(float *logits, const float *inp, const float *wte, int T, int C, int V);

/* The forward pass's products by kernel: AV_KERNEL_REFERENCE runs
 * gpt2_matmul_forward / gpt2_unembed_forward above (the loops training uses);
 * any other kernel runs sgemm (attention_blas.h's av_sgemm) in fixed blocks
 * spread over threads (av_matmul's: 256 output columns up to 256 rows, else
 * 256-row items; 4096 vocabulary rows for the logits), so the bits depend on
 * neither the thread count nor the run. Same shapes as above. */
void gpt2_matmul(float *out, const float *inp, const float *w, const float *b, int T, int C, int OC, av_kernel kernel);
void gpt2_unembed(float *logits, const float *inp, const float *wte, int T, int C, int V, av_kernel kernel);

/* out (T, OC) = inp (T, C) · wᵀ for an nn.Linear weight w (OC, C): the same
 * product as gpt2_unembed (its reference loops for AV_KERNEL_REFERENCE), but
 * with sgemm blocks of 256 output rows, so a projection of a few thousand
 * outputs still spreads over the threads (4096-row blocks suit a vocabulary). */
void gpt2_linear(float *out, const float *inp, const float *w, int T, int C, int OC, av_kernel kernel);

/* out (T, C) = (inp − mean)·rstd·w + b per row, rstd = 1/√(var + eps),
 * population variance (Ba et al. 2016). mean, rstd (T) are kept for backward
 * (either may be NULL). */
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, int T, int C, double eps);

/* out (N) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), GPT-2's "gelu_new"
 * (Hendrycks & Gimpel 2016, the tanh approximation). */
void gelu_forward(float *out, const float *inp, size_t N);

/* out (N) = a + b: a residual connection (He et al. 2016). */
void residual_forward(float *out, const float *a, const float *b, size_t N);

#endif
