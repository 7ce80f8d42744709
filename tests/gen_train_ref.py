#!/usr/bin/python3
"""gen_train_ref.py - torch autograd gradients for tests/test_gpt2_backward.c.

Run from the source root with Debian's system Python (python3-torch):

    /usr/bin/python3 tests/gen_train_ref.py        # rewrites tests/ref/train/

For every variant in VARIANTS it writes tests/ref/train/<name>.safetensors:
  * every parameter under its GPT-2 checkpoint name (wte.weight, wpe.weight,
    h.N.ln_1.weight, h.N.attn.c_attn.weight (C, 3C) Conv1D (in, out), ...,
    ln_f.bias), float32;
  * "grad.<name>" for each: d loss / d parameter, float32, computed by torch
    autograd in float64 from the float32 weights;
  * "tokens" and "targets" (B, maxT) int32: the batch, padded with -1; target
    t is the id the model must predict after position t, -1 = not scored;
  * "loss" (1,) float32: the mean cross-entropy over every scored position of
    the batch.
and tests/ref/train/variants.txt: one line per variant, "name L C H maxT V
positions norm scale".

Independence: the model below is written from the papers, not from attnviz:
GPT-2 (Radford et al. 2019 §2.3): x0 = wte[tok] + wpe[t]; each block
x += attn(ln_1(x)); x += mlp(ln_2(x)); logits = ln_f(x) wte^T. Post-LN
(Vaswani et al. 2017 §3.1): x = ln_1(x + attn(x)); x = ln_2(x + mlp(x)).
Sinusoidal PE (§3.5) with sin/cos interleaved in even/odd columns. RoPE
(Su et al. 2021, eq. 34): pair (2i, 2i+1) of each head's query and key at
position m turned by m * base^(-2i/D). GELU: the tanh form ("gelu_new").
"""
import json
import os
import struct
import sys

import numpy as np
import torch

OUT = "tests/ref/train"
V = 294  # the toy vocabulary (src/nn/tasks.h AV_TOY_VOCAB)

# name, L, C, H, positions, norm, scale
VARIANTS = [
    ("learned_pre", 2, 16, 2, "learned", "pre", True),
    ("rope_post_noscale", 2, 16, 4, "rope", "post", False),
    ("sinusoidal_pre", 1, 24, 3, "sinusoidal", "pre", True),
]
MAXT = 12
EPS = 1e-5


def layer_names(l):
    p = "h.%d." % l
    return [p + n for n in ("ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                            "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                            "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias")]


def make_params(rng, L, C, positions):
    p = {"wte.weight": rng.normal(0, 0.3, (V, C))}
    if positions == "learned":
        p["wpe.weight"] = rng.normal(0, 0.3, (MAXT, C))
    for l in range(L):
        n = layer_names(l)
        shapes = [(C,), (C,), (C, 3 * C), (3 * C,), (C, C), (C,), (C,), (C,), (C, 4 * C), (4 * C,), (4 * C, C), (C,)]
        for name, shp in zip(n, shapes):
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight"):
                p[name] = 1.0 + rng.normal(0, 0.2, shp)
            elif len(shp) == 1:
                p[name] = rng.normal(0, 0.1, shp)
            else:
                p[name] = rng.normal(0, 1.0 / np.sqrt(shp[0]), shp)
    p["ln_f.weight"] = 1.0 + rng.normal(0, 0.2, (C,))
    p["ln_f.bias"] = rng.normal(0, 0.1, (C,))
    return {k: np.asarray(v, dtype=np.float32) for k, v in p.items()}


def layernorm(x, w, b):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + EPS) * w + b


def gelu(x):
    return 0.5 * x * (1 + torch.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def sinusoidal(T, C):
    pe = np.zeros((T, C))
    for t in range(T):
        for c in range(C):
            a = t / 10000 ** ((c - c % 2) / C)
            pe[t, c] = np.cos(a) if c % 2 else np.sin(a)
    return torch.tensor(pe, dtype=torch.float64)


def rope(x, base=10000.0):
    H, T, D = x.shape
    out = x.clone()
    for i in range(D // 2):
        ang = torch.arange(T, dtype=torch.float64) * base ** (-2.0 * i / D)
        c, s = torch.cos(ang)[None, :], torch.sin(ang)[None, :]
        x0, x1 = x[:, :, 2 * i], x[:, :, 2 * i + 1]
        out[:, :, 2 * i] = x0 * c - x1 * s
        out[:, :, 2 * i + 1] = x0 * s + x1 * c
    return out


def attention(x, P, l, C, H, positions, scale):
    T = x.shape[0]
    D = C // H
    n = layer_names(l)
    qkv = x @ P[n[2]] + P[n[3]]
    q, k, v = [qkv[:, i * C:(i + 1) * C].view(T, H, D).transpose(0, 1) for i in range(3)]
    if positions == "rope":
        q, k = rope(q), rope(k)
    s = q @ k.transpose(1, 2)
    if scale:
        s = s / np.sqrt(D)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    a = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
    y = (a @ v).transpose(0, 1).reshape(T, C)
    return y @ P[n[4]] + P[n[5]]


def mlp(x, P, l):
    n = layer_names(l)
    return gelu(x @ P[n[8]] + P[n[9]]) @ P[n[10]] + P[n[11]]


def forward(tokens, P, L, C, H, positions, norm, scale):
    T = len(tokens)
    x = P["wte.weight"][tokens]
    if positions == "learned":
        x = x + P["wpe.weight"][:T]
    elif positions == "sinusoidal":
        x = x + sinusoidal(T, C)
    for l in range(L):
        n = layer_names(l)
        if norm == "pre":
            x = x + attention(layernorm(x, P[n[0]], P[n[1]]), P, l, C, H, positions, scale)
            x = x + mlp(layernorm(x, P[n[6]], P[n[7]]), P, l)
        else:
            x = layernorm(x + attention(x, P, l, C, H, positions, scale), P[n[0]], P[n[1]])
            x = layernorm(x + mlp(x, P, l), P[n[6]], P[n[7]])
    x = layernorm(x, P["ln_f.weight"], P["ln_f.bias"])
    return x @ P["wte.weight"].T


def make_batch(rng):
    """Three sequences of lengths 7, 12, 4; the last half of each is scored."""
    toks, tgts = [], []
    for T in (7, MAXT, 4):
        t = rng.integers(0, V, T)
        g = np.full(T, -1)
        for i in range(T // 2, T - 1):
            g[i] = t[i + 1]
        g[T - 1] = rng.integers(0, V)
        toks.append(t)
        tgts.append(g)
    return toks, tgts


def write_safetensors(path, tensors):
    """The safetensors layout: u64 header length, JSON header, packed data."""
    header, blobs, off = {}, [], 0
    for name, arr in tensors:
        dt = {np.dtype(np.float32): "F32", np.dtype(np.int32): "I32"}[arr.dtype]
        b = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    os.makedirs(OUT, exist_ok=True)
    lines = []
    for vi, (name, L, C, H, positions, norm, scale) in enumerate(VARIANTS):
        rng = np.random.default_rng(1000 + vi)
        p32 = make_params(rng, L, C, positions)
        P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in p32.items()}
        toks, tgts = make_batch(rng)
        n_scored = sum(int((g >= 0).sum()) for g in tgts)
        loss = 0
        for t, g in zip(toks, tgts):
            logits = forward(torch.tensor(t), P, L, C, H, positions, norm, scale)
            sel = torch.tensor(g >= 0)
            loss = loss + torch.nn.functional.cross_entropy(logits[sel], torch.tensor(g[g >= 0]), reduction="sum")
        loss = loss / n_scored
        loss.backward()
        tok_arr = np.full((3, MAXT), -1, dtype=np.int32)
        tgt_arr = np.full((3, MAXT), -1, dtype=np.int32)
        for b, (t, g) in enumerate(zip(toks, tgts)):
            tok_arr[b, :len(t)] = t
            tgt_arr[b, :len(g)] = g
        out = [(k, v) for k, v in p32.items()]
        out += [("grad." + k, P[k].grad.numpy().astype(np.float32)) for k in p32]
        out += [("tokens", tok_arr), ("targets", tgt_arr), ("loss", np.array([loss.item()], dtype=np.float32))]
        write_safetensors(os.path.join(OUT, name + ".safetensors"), out)
        lines.append("%s %d %d %d %d %d %s %s %d" % (name, L, C, H, MAXT, V, positions, norm, int(scale)))
        print("%s: loss %.6f, %d tensors" % (name, loss.item(), len(p32)), file=sys.stderr)
    with open(os.path.join(OUT, "variants.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
