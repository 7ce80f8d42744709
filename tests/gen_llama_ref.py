#!/usr/bin/python3
"""gen_llama_ref.py - reference outputs of tiny Llama and Qwen2 models for tests/test_llama.c.

Run from the source root with Debian's system Python (python3-numpy):

    /usr/bin/python3 tests/gen_llama_ref.py             # rewrite tests/ref/llama/
    /usr/bin/python3 tests/gen_llama_ref.py --check     # regenerate in a temp folder, compare

Weights are not committed (embed_tokens alone is 50257 x 64 x 4 = 12.9 MB).
As in gen_gpt2_ref.py they are a deterministic function (splitmix64 of the
tensor's index in state-dict order and the element's index, weight() below)
that tests/llama_fixture.h computes too, so the C test writes the same
checkpoints and checks them byte-identical (tests/ref/llama/checkpoints.sha256).

Models: 2 layers, hidden_size 64, 4 query heads, 2 key/value heads (d_k 16,
so 2 query heads share each K/V head), intermediate_size 128, the GPT-2
vocabulary size 50257:
  llama_f32   model_type llama, untied lm_head, rope_theta 10000, F32, model.safetensors
  llama_bf16  the same weights stored as BF16 (round to nearest even), in two
              shards model-00001-of-00002.safetensors (embed_tokens and layer 0)
              and model-00002-of-00002.safetensors, with model.safetensors.index.json
  qwen2_f32   model_type qwen2: q/k/v biases, tied embeddings, rope_theta 1e6, F32
  qwen2_bf16  the same as BF16

Independence: nothing here reads attnviz's code. The forward is float64 numpy
written from the published architecture (Touvron et al. 2023 §2.2; Hugging
Face modeling_llama.py / modeling_qwen2.py): RMSNorm x / sqrt(mean(x^2) + eps) * w;
q = x W_q^T + b_q (nn.Linear stores (out, in)); RoPE with rotate_half:
q*cos + rotate_half(q)*sin, rotate_half(x) = cat(-x[D/2:], x[:D/2]), angles
pos * theta^(-2i/D); repeat_kv: query head h uses K/V head h // (H/KVH);
softmax(q k^T / sqrt(D) + causal mask) v; o_proj; residual; RMSNorm;
down(silu(gate(x)) * up(x)); residual; final norm; lm_head (or embed_tokens^T).
hidden[l] is the residual stream before block l, hidden[L] after the last
block and before the final norm.

tests/ref/llama/<model>/ holds config.json (the C test copies it),
model.safetensors.index.json (sharded model), and float32 .npy:
  attn.npy (L, H, T, T), hidden.npy (L+1, T, C), logits_last.npy (V,),
  cols.npy (K,) and logits_cols.npy (T, K): logits of those vocabulary columns.
Token ids: tests/ref/gpt2/token_ids.txt (the GPT-2 ids of "The quick brown fox
jumps over the lazy dog.").
"""
import argparse
import filecmp
import hashlib
import json
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_gpt2_ref import splitmix64_mix as mix, sha256, write_safetensors  # noqa: E402  the same weights function

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "ref", "llama")
IDS = [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13]

BASE = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=128, vocab_size=50257, max_position_embeddings=128, hidden_act="silu")
LLAMA = dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"], rms_norm_eps=1e-5,
             rope_theta=10000.0, rope_scaling=None, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
QWEN2 = dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"], rms_norm_eps=1e-6,
             rope_theta=1000000.0, tie_word_embeddings=True, use_sliding_window=False,
             bos_token_id=50256, eos_token_id=50256)

MODELS = {  # name: (config, dtype, shards)
    "llama_f32": (LLAMA, "F32", 1),
    "llama_bf16": (LLAMA, "BF16", 2),
    "qwen2_f32": (QWEN2, "F32", 1),
    "qwen2_bf16": (QWEN2, "BF16", 1),
}

M64 = (1 << 64) - 1


def weight(index, name, numel):
    """Element j of tensor `index` (state-dict order): u = (mix((index+1)*golden + j) >> 40) / 2^23 - 1,
    value = float32(center + spread*u). (center, spread): norm weights (1, 0.2), embed_tokens (0, 0.5),
    q_proj/k_proj weights (0, 0.25), everything else (0, 0.1)."""
    j = np.arange(numel, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = np.uint64(((index + 1) * 0x9E3779B97F4A7C15) & M64) + j
    u = (mix(x) >> np.uint64(40)).astype(np.float64) / float(1 << 23) - 1.0
    center, spread = 0.0, 0.1
    if name.endswith("norm.weight"):
        center, spread = 1.0, 0.2
    elif name == "model.embed_tokens.weight":
        spread = 0.5
    elif name.endswith("q_proj.weight") or name.endswith("k_proj.weight"):
        spread = 0.25
    return (center + spread * u).astype(np.float32)


def param_table(cfg):
    C, V, I = cfg["hidden_size"], cfg["vocab_size"], cfg["intermediate_size"]
    KV = cfg["num_key_value_heads"] * C // cfg["num_attention_heads"]
    bias = cfg["model_type"] == "qwen2"
    t = [("model.embed_tokens.weight", (V, C))]
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        t.append((p + "input_layernorm.weight", (C,)))
        for n, o in (("q", C), ("k", KV), ("v", KV)):
            t.append((p + "self_attn.%s_proj.weight" % n, (o, C)))
            if bias:
                t.append((p + "self_attn.%s_proj.bias" % n, (o,)))
        t += [(p + "self_attn.o_proj.weight", (C, C)), (p + "post_attention_layernorm.weight", (C,)),
              (p + "mlp.gate_proj.weight", (I, C)), (p + "mlp.up_proj.weight", (I, C)),
              (p + "mlp.down_proj.weight", (C, I))]
    t.append(("model.norm.weight", (C,)))
    if not cfg["tie_word_embeddings"]:
        t.append(("lm_head.weight", (V, C)))
    return t


def to_bf16(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(h):
    return (h.astype(np.uint32) << 16).view(np.float32)


def shard_of(name, shards):
    """Shard 1 of 2: embed_tokens and layer 0; shard 2: the rest."""
    if shards == 1:
        return "model.safetensors"
    first = name == "model.embed_tokens.weight" or name.startswith("model.layers.0.")
    return "model-%05d-of-%05d.safetensors" % (1 if first else 2, shards)


# ---------------------------------------------------------------------------- the forward, float64

def rmsnorm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def rope_half(x, theta, pos0=0):
    H, T, D = x.shape
    inv = theta ** (-np.arange(0, D, 2, dtype=np.float64) / D)
    ang = (pos0 + np.arange(T))[:, None] * inv[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    rot = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1)
    return x * cos + rot * sin


def forward(cfg, p, ids):
    p = {n: t.astype(np.float64) for n, t in p.items()}
    C, H, KVH = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    D, eps, T = C // H, cfg["rms_norm_eps"], len(ids)
    lin = lambda x, n: x @ p[n + ".weight"].T + (p[n + ".bias"] if n + ".bias" in p else 0.0)
    x = p["model.embed_tokens.weight"][ids]
    hidden, atts = [x], []
    for l in range(cfg["num_hidden_layers"]):
        pre = "model.layers.%d." % l
        h = rmsnorm(x, p[pre + "input_layernorm.weight"], eps)
        q = lin(h, pre + "self_attn.q_proj").reshape(T, H, D).transpose(1, 0, 2)
        k = lin(h, pre + "self_attn.k_proj").reshape(T, KVH, D).transpose(1, 0, 2)
        v = lin(h, pre + "self_attn.v_proj").reshape(T, KVH, D).transpose(1, 0, 2)
        q, k = rope_half(q, cfg["rope_theta"]), rope_half(k, cfg["rope_theta"])
        k, v = np.repeat(k, H // KVH, axis=0), np.repeat(v, H // KVH, axis=0)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(D)
        s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
        w = np.exp(s - s.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        y = (w @ v).transpose(1, 0, 2).reshape(T, C)
        x = x + lin(y, pre + "self_attn.o_proj")
        h = rmsnorm(x, p[pre + "post_attention_layernorm.weight"], eps)
        g = lin(h, pre + "mlp.gate_proj")
        x = x + lin(g / (1.0 + np.exp(-g)) * lin(h, pre + "mlp.up_proj"), pre + "mlp.down_proj")
        hidden.append(x)
        atts.append(w)
    out = p["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else p["lm_head.weight"]
    logits = rmsnorm(x, p["model.norm.weight"], eps) @ out.T
    return np.stack(atts), np.stack(hidden), logits


# ---------------------------------------------------------------------------- main

def generate(out):
    os.makedirs(out, exist_ok=True)
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)
    sums = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (cfg, dtype, shards) in MODELS.items():
            d = os.path.join(out, name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "config.json"), "w") as f:
                f.write(json.dumps(cfg, indent=2) + "\n")
            table = param_table(cfg)
            params = {n: weight(i, n, int(np.prod(s))).reshape(s) for i, (n, s) in enumerate(table)}
            files = {}
            for n, _ in table:
                files.setdefault(shard_of(n, shards), []).append((n, dtype, params[n]))
            for fn in sorted(files):
                write_safetensors(os.path.join(tmp, fn), files[fn])
                sums.append("%s  %s/%s\n" % (sha256(os.path.join(tmp, fn)), name, fn))
                os.remove(os.path.join(tmp, fn))
            if shards > 1:
                index = {"metadata": {"total_size": sum(a.size * (4 if dtype == "F32" else 2) for a in params.values())},
                         "weight_map": {n: shard_of(n, shards) for n, _ in table}}
                with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
                    f.write(json.dumps(index, indent=2) + "\n")
            if dtype == "BF16":  # the forward sees what the file holds
                params = {n: from_bf16(to_bf16(t)) for n, t in params.items()}
            att, hidden, logits = forward(cfg, params, IDS)
            cols = np.array(sorted(set(range(0, cfg["vocab_size"], 509)) | set(IDS) | {50256}))
            np.save(os.path.join(d, "attn.npy"), f32(att))
            np.save(os.path.join(d, "hidden.npy"), f32(hidden))
            np.save(os.path.join(d, "cols.npy"), f32(cols))
            np.save(os.path.join(d, "logits_cols.npy"), f32(logits[:, cols]))
            np.save(os.path.join(d, "logits_last.npy"), f32(logits[-1]))
    with open(os.path.join(out, "checkpoints.sha256"), "w") as f:
        f.write("".join(sums))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="regenerate in a temp folder and compare with tests/ref/llama")
    if not ap.parse_args().check:
        generate(REF)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        rels = [os.path.relpath(os.path.join(r, f), tmp) for r, _, fs in os.walk(tmp) for f in fs]
        _, differ, missing = filecmp.cmpfiles(tmp, REF, rels, shallow=False)
        for rel in differ + missing:
            print("differs:", rel)
        print("ok" if not differ + missing else "%d file(s) differ" % len(differ + missing))
        return 1 if differ + missing else 0


if __name__ == "__main__":
    sys.exit(main())
