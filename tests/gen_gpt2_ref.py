#!/usr/bin/python3
"""gen_gpt2_ref.py - reference outputs of tiny GPT-2 models for tests/test_gpt2.c.

Run from the source root with Debian's system Python (python3-numpy):

    /usr/bin/python3 tests/gen_gpt2_ref.py             # rewrite tests/ref/gpt2/
    /usr/bin/python3 tests/gen_gpt2_ref.py --check     # regenerate in a temp folder, compare

The weights are not committed (the tiny model's wte alone is 50257 x 64 x 4 =
12.9 MB). They are a deterministic function that this script and
tests/test_gpt2.c both compute (splitmix64 of the tensor's index and the
element's index, see weight()), so the C test writes the same checkpoint at
test time with its safetensors writer and checks it is byte-identical to the
file this script wrote (sha256 in tests/ref/gpt2/checkpoints.sha256).

Models (MODELS below):
  gpt2_f32   2 layers, n_embd 64, 4 heads, n_positions 64, the real vocabulary
             (50,257), F32, names without a prefix, only the parameters
  gpt2_f16   the same weights stored as F16 (numpy's round-to-nearest-even),
             names with the "transformer." prefix, plus the causal-mask buffers
             h.N.attn.bias (1, 1, 64, 64) and h.N.attn.masked_bias () and a tied
             lm_head.weight, as GPT2LMHeadModel's state dict holds them
  toy_*      trained-toy variants selected by config.json's "attnviz" object:
             sinusoidal / rope (interleaved, half), post-LN, no scale;
             vocabulary 40, n_embd 16, 2 heads, 2 layers

Independence: nothing here reads attnviz's code. The forward is written in
float64 numpy from the GPT-2 definition (Radford et al. 2019 §2.3; Hugging
Face modeling_gpt2.py: ln_1 -> c_attn -> split heads -> q k^T / sqrt(d_k),
causal mask, softmax -> c_proj -> residual; ln_2 -> c_fc -> gelu_new -> c_proj
-> residual; ln_f; logits = ln_f(x) wte^T), from Vaswani et al. 2017 §3.1 for
post-LN and §3.5 for the sinusoidal encoding, and RoFormer eq. 34 for RoPE
(GPT-NeoX's rotate_half for "half"). hidden[l] is the residual stream before
block l, hidden[L] after the last block and before ln_f (Hugging Face's last
hidden state is after ln_f).

For each model, tests/ref/gpt2/<model>/ holds (float32 .npy, C order):
  config.json          the config the C test writes too
  attn.npy             (L, H, T, T) attention weights
  hidden.npy           (L+1, T, C)
  logits_last.npy      (V,) the last position's logits (the real-vocabulary models)
  logits_cols.npy      (T, K) the logits of columns cols.npy (K,) at every position
  logits.npy           (T, V) all logits (toy models only: V = 40)
  generate8.txt        gpt2_f32 only: the 8 ids a greedy continuation appends to
                       "Hello world" (ids 15496, 995)
and tests/ref/gpt2/token_ids.txt (GPT-2 ids of "The quick brown fox jumps over
the lazy dog." as the npm gpt-3-encoder gives them) and toy_ids.txt.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "ref", "gpt2")

# "The quick brown fox jumps over the lazy dog." with GPT-2's BPE
GPT2_IDS = [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13]
GEN_IDS = [15496, 995]  # "Hello world"
TOY_IDS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 39]

GPT2_CFG = dict(n_layer=2, n_head=4, n_embd=64, n_positions=64, vocab_size=50257)
TOY_CFG = dict(n_layer=2, n_head=2, n_embd=16, n_positions=32, vocab_size=40)

MODELS = {
    # name: (base config, attnviz object or None, dtype, prefix, extras)
    "gpt2_f32": (GPT2_CFG, None, "F32", "", False),
    "gpt2_f16": (GPT2_CFG, None, "F16", "transformer.", True),
    "toy_sin_post": (TOY_CFG, {"positions": "sinusoidal", "norm": "post"}, "F32", "", False),
    "toy_rope_noscale": (TOY_CFG, {"positions": "rope", "scale": False, "rope_base": 100}, "F32", "", False),
    "toy_ropehalf_post": (TOY_CFG, {"positions": "rope", "norm": "post", "rope_style": "half"}, "F32", "", False),
}

M64 = (1 << 64) - 1


# ---------------------------------------------------------------------------- weights

def splitmix64_mix(x):
    """The splitmix64 finalizer on a uint64 numpy array (wrapping arithmetic)."""
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def weight(index, name, numel):
    """Element j of tensor number `index` (0-based, parameter-table order):
        z = mix((index + 1) * 0x9E3779B97F4A7C15 + j)       (mod 2^64)
        u = (z >> 40) / 2^23 - 1                            in [-1, 1)
        value = float32(center + spread * u), in float64 first
    center, spread by kind: LayerNorm weight 1, 0.2; c_attn weight 0, 0.25;
    wte 0, 0.5; everything else 0, 0.1."""
    j = np.arange(numel, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = np.uint64(((index + 1) * 0x9E3779B97F4A7C15) & M64) + j
    u = (splitmix64_mix(x) >> np.uint64(40)).astype(np.float64) / float(1 << 23) - 1.0
    center, spread = 0.0, 0.1
    if name.startswith("ln_") or ".ln_" in name:
        if name.endswith(".weight"):
            center, spread = 1.0, 0.2
    elif name.endswith("c_attn.weight"):
        spread = 0.25
    elif name == "wte.weight":
        spread = 0.5
    return (center + spread * u).astype(np.float32)


def param_table(cfg, positions):
    """(name, shape) in checkpoint order, as av_gpt2_tensor_table."""
    C, V, P = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    t = [("wte.weight", (V, C))]
    if positions == "learned":
        t.append(("wpe.weight", (P, C)))
    for l in range(cfg["n_layer"]):
        h = "h.%d." % l
        t += [(h + "ln_1.weight", (C,)), (h + "ln_1.bias", (C,)),
              (h + "attn.c_attn.weight", (C, 3 * C)), (h + "attn.c_attn.bias", (3 * C,)),
              (h + "attn.c_proj.weight", (C, C)), (h + "attn.c_proj.bias", (C,)),
              (h + "ln_2.weight", (C,)), (h + "ln_2.bias", (C,)),
              (h + "mlp.c_fc.weight", (C, 4 * C)), (h + "mlp.c_fc.bias", (4 * C,)),
              (h + "mlp.c_proj.weight", (4 * C, C)), (h + "mlp.c_proj.bias", (C,))]
    t += [("ln_f.weight", (C,)), ("ln_f.bias", (C,))]
    return t


def make_params(cfg, positions):
    return {name: weight(i, name, int(np.prod(shape))).reshape(shape)
            for i, (name, shape) in enumerate(param_table(cfg, positions))}


# ---------------------------------------------------------------------------- files

def write_safetensors(path, tensors):
    """tensors: list of (name, dtype, float32 array). Compact JSON header in the
    given order, data packed back to back, header padded with spaces to a
    multiple of 8 (the layout av_safetensors_write produces)."""
    parts, off, blobs = [], 0, []
    for name, dtype, a in tensors:
        if dtype == "F32":
            b = a.astype("<f4").tobytes()
        elif dtype == "F16":
            b = a.astype("<f2").tobytes()
        elif dtype == "BF16":  # round to nearest even on the float32 bits (gen_llama_ref.py)
            u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
            b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2").tobytes()
        else:
            raise ValueError(dtype)
        shape = ",".join(str(s) for s in a.shape)
        parts.append('"%s":{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}' % (name, dtype, shape, off, off + len(b)))
        off += len(b)
        blobs.append(b)
    hdr = ("{" + ",".join(parts) + "}").encode()
    hdr += b" " * ((8 - len(hdr) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hdr)))
        f.write(hdr)
        for b in blobs:
            f.write(b)


def checkpoint_tensors(cfg, params, dtype, prefix, extras):
    out = [(prefix + n, dtype, a) for n, a in params.items()]
    if extras:
        P = cfg["n_positions"]
        tril = np.tril(np.ones((P, P), np.float32)).reshape(1, 1, P, P)
        for l in range(cfg["n_layer"]):
            out.append((prefix + "h.%d.attn.bias" % l, "F32", tril))
            out.append((prefix + "h.%d.attn.masked_bias" % l, "F32", np.array(-1e4, np.float32)))
        out.append(("lm_head.weight", dtype, params["wte.weight"]))
    return out


def config_json(cfg, attnviz):
    d = dict(model_type="gpt2", n_layer=cfg["n_layer"], n_head=cfg["n_head"], n_embd=cfg["n_embd"],
             n_positions=cfg["n_positions"], vocab_size=cfg["vocab_size"], layer_norm_epsilon=1e-5)
    if attnviz:
        d["attnviz"] = attnviz
    return json.dumps(d, indent=2) + "\n"


# ---------------------------------------------------------------------------- the forward, float64

def layernorm(x, w, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def gelu_new(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def sinusoidal(T, C):
    pe = np.zeros((T, C))
    for t in range(T):
        for c in range(C):
            ang = t / 10000.0 ** ((c - c % 2) / C)
            pe[t, c] = np.sin(ang) if c % 2 == 0 else np.cos(ang)
    return pe


def rope(x, base, style):
    """x (H, T, D): RoFormer eq. 34 pairs (2i, 2i+1), or rotate_half pairs (i, i + D/2)."""
    H, T, D = x.shape
    out = x.copy()
    for i in range(D // 2):
        ang = np.arange(T)[:, None] * base ** (-2.0 * i / D)
        c, s = np.cos(ang)[:, 0], np.sin(ang)[:, 0]
        i0, i1 = (2 * i, 2 * i + 1) if style == "interleaved" else (i, i + D // 2)
        x0, x1 = x[:, :, i0], x[:, :, i1]
        out[:, :, i0] = x0 * c - x1 * s
        out[:, :, i1] = x0 * s + x1 * c
    return out


def attention(x, p, h, H, a):
    T, C = x.shape
    D = C // H
    qkv = x @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
    q, k, v = (qkv[:, i * C:(i + 1) * C].reshape(T, H, D).transpose(1, 0, 2) for i in range(3))
    if a["positions"] == "rope":
        q, k = rope(q, a["rope_base"], a["rope_style"]), rope(k, a["rope_base"], a["rope_style"])
    s = q @ k.transpose(0, 2, 1) / (np.sqrt(D) if a["scale"] else 1.0)
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    y = (w @ v).transpose(1, 0, 2).reshape(T, C)
    return y @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"], w


def mlp(x, p, h):
    return gelu_new(x @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"]) @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]


def forward(cfg, a, p, ids):
    p = {n: t.astype(np.float64) for n, t in p.items()}
    T = len(ids)
    x = p["wte.weight"][ids]
    if a["positions"] == "learned":
        x = x + p["wpe.weight"][:T]
    elif a["positions"] == "sinusoidal":
        x = x + sinusoidal(T, cfg["n_embd"])
    hidden, atts = [x], []
    for l in range(cfg["n_layer"]):
        h = "h.%d." % l
        if a["norm"] == "pre":
            y, w = attention(layernorm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"]), p, h, cfg["n_head"], a)
            x = x + y
            x = x + mlp(layernorm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"]), p, h)
        else:
            y, w = attention(x, p, h, cfg["n_head"], a)
            x = layernorm(x + y, p[h + "ln_1.weight"], p[h + "ln_1.bias"])
            x = layernorm(x + mlp(x, p, h), p[h + "ln_2.weight"], p[h + "ln_2.bias"])
        hidden.append(x)
        atts.append(w)
    logits = layernorm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T
    return np.stack(atts), np.stack(hidden), logits


# ---------------------------------------------------------------------------- main

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def generate(out):
    os.makedirs(out, exist_ok=True)
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)
    with open(os.path.join(out, "token_ids.txt"), "w") as f:
        f.write(" ".join(map(str, GPT2_IDS)) + "\n")
    with open(os.path.join(out, "toy_ids.txt"), "w") as f:
        f.write(" ".join(map(str, TOY_IDS)) + "\n")
    sums = []
    tmp = tempfile.mkdtemp()
    try:
        for name, (cfg, av, dtype, prefix, extras) in MODELS.items():
            a = dict(positions="learned", norm="pre", scale=True, rope_base=10000.0, rope_style="interleaved")
            a.update(av or {})
            d = os.path.join(out, name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "config.json"), "w") as f:
                f.write(config_json(cfg, av))
            params = make_params(cfg, a["positions"])
            st = os.path.join(tmp, name + ".safetensors")
            write_safetensors(st, checkpoint_tensors(cfg, params, dtype, prefix, extras))
            sums.append("%s  %s.safetensors\n" % (sha256(st), name))
            if dtype == "F16":  # the forward sees what the file holds
                params = {n: t.astype(np.float16).astype(np.float32) for n, t in params.items()}
            ids = GPT2_IDS if cfg is GPT2_CFG else TOY_IDS
            att, hidden, logits = forward(cfg, a, params, ids)
            np.save(os.path.join(d, "attn.npy"), f32(att))
            np.save(os.path.join(d, "hidden.npy"), f32(hidden))
            if name == "gpt2_f32":  # greedy continuation of "Hello world", for --generate
                seq = list(GEN_IDS)
                for _ in range(8):
                    seq.append(int(np.argmax(forward(cfg, a, params, seq)[2][-1])))
                with open(os.path.join(d, "generate8.txt"), "w") as f:
                    f.write(" ".join(map(str, seq[len(GEN_IDS):])) + "\n")
            if cfg is GPT2_CFG:
                cols = np.array(sorted(set(range(0, cfg["vocab_size"], 509)) | set(GPT2_IDS) | {50256}))
                np.save(os.path.join(d, "cols.npy"), f32(cols))
                np.save(os.path.join(d, "logits_cols.npy"), f32(logits[:, cols]))
                np.save(os.path.join(d, "logits_last.npy"), f32(logits[-1]))
            else:
                np.save(os.path.join(d, "logits.npy"), f32(logits))
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(out, "checkpoints.sha256"), "w") as f:
        f.writelines(sums)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="regenerate in a temp folder and compare with tests/ref/gpt2")
    args = ap.parse_args()
    if not args.check:
        generate(REF)
        return 0
    tmp = tempfile.mkdtemp()
    try:
        generate(tmp)
        bad = 0
        for root, _, files in os.walk(tmp):
            for fn in files:
                rel = os.path.relpath(os.path.join(root, fn), tmp)
                with open(os.path.join(tmp, rel), "rb") as a, open(os.path.join(REF, rel), "rb") as b:
                    if a.read() != b.read():
                        print("differs:", rel)
                        bad += 1
        print("ok" if not bad else "%d file(s) differ" % bad)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
