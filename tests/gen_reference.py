#!/usr/bin/python3
"""gen_reference.py - PyTorch reference tensors for tests/test_torch_ref.c.

Run from the source root with Debian's system Python, which has python3-torch
and python3-numpy (the pyenv python3 on PATH has neither):

    /usr/bin/python3 tests/gen_reference.py            # rewrite tests/ref/
    /usr/bin/python3 tests/gen_reference.py --check    # regenerate in a temp folder, compare

(--check is byte-exact; it holds with the same torch/numpy on the same kind of
machine, and a different BLAS may move a float32 last bit elsewhere.)

The outputs are committed under tests/ref/, so `make test` never needs Python.
Generated with torch 1.13 and numpy 1.24; the inputs come from
numpy.random.default_rng(seed), whose stream is stable across numpy versions.

For every configuration in CONFIGS this writes

    tests/ref/<name>/args.txt      attnviz arguments, one per line, sentence last
    tests/ref/<name>/in/X.npy      (T, C) float32, X ~ N(0, 1), <pad> rows included
    tests/ref/<name>/in/W_?.npy    (C, C) float32, W ~ N(0, 1/C), row-vector convention
    tests/ref/<name>/in/attn_mask.npy   (T, T) bool, only for the --attn-mask case
    tests/ref/<name>/in/synth.txt  only for the d_model 512 case, see synth_weight()
    tests/ref/<name>/expect/       tokens.txt, mask.npy (T, T) bool, PE.npy (T, C)
                                   (sinusoidal only), Q/K/V.npy (H, T, D),
                                   scores.npy and weights.npy (H, T, T),
                                   context.npy and output.npy (T, C)

and tests/ref/configs.txt, the list of configuration names. The C test runs

    attnviz --weights tests/ref/<name>/in [--attn-mask .../in/attn_mask.npy] \\
            --dump TMP --no-plot -q $(args.txt)

and compares every dumped tensor with expect/ (and X, W_* with in/).

Independence: nothing here reads attnviz's code or output. The expected values
are computed in float64 by PyTorch, from the papers' formulas:
  * projections with nn.functional.linear and the transposed weight (nn.Linear
    stores W^T: y = x W^T, and attnviz's Q = X W_Q means weight = W_Q^T);
  * heads by view(T, H, D).transpose(0, 1);
  * attention by torch.nn.MultiheadAttention wherever it can express the case
    (in_proj_weight = cat(W_Q^T, W_K^T, W_V^T), out_proj.weight = W_O^T,
    bias=False, attn_mask for causal and user masks, key_padding_mask for
    <pad>), cross-checked against the explicit softmax(Q K^T / sqrt(D)) V;
  * RoPE, which nn.MultiheadAttention cannot express, by RoFormer eq. 34
    (interleaved pairs) and GPT-NeoX's rotate_half (half pairs), then
    torch.softmax on the masked scores.
One rule is attnviz's own and is encoded here by hand: a query row whose keys
are all masked gets all-zero weights and a zero context row (PyTorch gives NaN).

Token lists were checked by running attnviz --dump on each sentence
(tokens.txt); the C test compares them again.
"""
import argparse
import math
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref")

# attnviz's tokenizer output for each sentence (verified with attnviz --dump).
TOKENS = {
    "I love deep learning": ["I", "love", "deep", "learning"],
    "The animal didn't cross the street because it was too tired.": [
        "The", "animal", "didn", "'", "t", "cross", "the", "street", "because", "it", "was",
        "too", "tired", "."],
    "我爱深度学习": ["我", "爱", "深", "度", "学", "习"],
    "注意力机制是Transformer的核心。": [
        "注", "意", "力", "机", "制", "是", "Transformer", "的", "核", "心", "。"],
}
EN4 = "I love deep learning"
EN14 = "The animal didn't cross the street because it was too tired."
ZH6 = "我爱深度学习"
ZH11 = "注意力机制是Transformer的核心。"


def cfg(name, seed, sentence, C, H, pos, style="interleaved", causal=False, pad_to=0,
        scale=True, rope_base=10000.0, user_mask=None, synth=False):
    return dict(name=name, seed=seed, sentence=sentence, C=C, H=H, pos=pos, style=style,
                causal=causal, pad_to=pad_to, scale=scale, rope_base=rope_base,
                user_mask=user_mask, synth=synth)


# Names: h<heads>_<positions>[_causal][_pad]_<sentence>; d<C> where it matters.
CONFIGS = [
    cfg("h1_none_en4", 101, EN4, 16, 1, "none"),
    cfg("h2_sin_en4", 102, EN4, 16, 2, "sinusoidal"),
    cfg("h1_sin_noscale_en4", 103, EN4, 16, 1, "sinusoidal", scale=False),
    cfg("h8_sin_causal_en14", 104, EN14, 64, 8, "sinusoidal", causal=True),
    cfg("h2_none_causal_zh6", 105, ZH6, 32, 2, "none", causal=True),
    cfg("h8_ropei_zh6", 106, ZH6, 32, 8, "rope", "interleaved"),
    cfg("h2_ropeh_causal_zh11", 107, ZH11, 32, 2, "rope", "half", causal=True),
    cfg("h1_ropei_base500_causal_en14", 108, EN14, 16, 1, "rope", "interleaved", causal=True,
        rope_base=500.0),
    cfg("h8_ropeh_pad_en14", 109, EN14, 64, 8, "rope", "half", pad_to=16),
    cfg("h2_sin_pad_zh11", 110, ZH11, 32, 2, "sinusoidal", pad_to=14),
    cfg("h8_none_causal_pad_en4", 111, EN4, 16, 8, "none", causal=True, pad_to=7),
    cfg("h2_ropei_causal_pad_zh6", 112, ZH6, 32, 2, "rope", "interleaved", causal=True, pad_to=9),
    # causal plus a user mask that hides key 0 from query 0 (so row 0 has no
    # visible key) and every key from query 3: two fully masked rows.
    cfg("h2_none_causal_usermask_zh6", 113, ZH6, 16, 2, "none", causal=True,
        user_mask=[(0, 0)] + [(3, j) for j in range(6)] + [(5, 1), (5, 4)]),
    cfg("h2_ropeh_usermask_zh6", 114, ZH6, 16, 2, "rope", "half",
        user_mask=[(2, j) for j in range(6)] + [(4, 0), (4, 5)]),
    # the paper's d_model; W_* are synthesised (4 x 1 MiB would not fit the size budget)
    cfg("h8_sin_d512_en4", 115, EN4, 512, 8, "sinusoidal", synth=True),
]

# ---------------------------------------------------------------------------
# inputs


def splitmix64(x):
    """splitmix64 finaliser (Steele, Lea & Flood 2014) on a uint64 array, wrapping mod 2^64."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def synth_weight(salt, C):
    """(C, C) float32 weight that test_torch_ref.c rebuilds bit for bit:
    W.flat[k] = float32((u_k / 2^24 - 0.5) * sqrt(12 / C)),
    u_k = splitmix64((salt << 32) | k) >> 40, an integer in [0, 2^24).
    Uniform with variance 1/C, the same variance as N(0, 1/C). Every step is
    exact or one correctly rounded IEEE double operation, then one rounding
    to float32, so C and numpy agree exactly."""
    k = np.arange(C * C, dtype=np.uint64) | (np.uint64(salt) << np.uint64(32))
    u = (splitmix64(k) >> np.uint64(40)).astype(np.float64)
    return ((u / 16777216.0 - 0.5) * math.sqrt(12.0 / C)).astype(np.float32).reshape(C, C)


SYNTH_SALT = {"W_Q": 1, "W_K": 2, "W_V": 3, "W_O": 4}


def make_inputs(c, T):
    rng = np.random.default_rng(c["seed"])
    C = c["C"]
    X = rng.standard_normal((T, C)).astype(np.float32)
    W = {}
    for n in ("W_Q", "W_K", "W_V", "W_O"):
        if c["synth"]:
            W[n] = synth_weight(SYNTH_SALT[n], C)
        else:
            W[n] = (rng.standard_normal((C, C)) / math.sqrt(C)).astype(np.float32)
    return X, W


# ---------------------------------------------------------------------------
# reference formulas (float64)


def sinusoidal(T, C):
    """Vaswani et al. 2017 §3.5, interleaved: PE(pos, 2i) = sin(pos / 10000^(2i/C)),
    PE(pos, 2i+1) = cos(same), as in the PyTorch tutorial's PositionalEncoding."""
    pos = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    div = torch.exp(torch.arange(0, C, 2, dtype=torch.float64) * (-math.log(10000.0) / C))
    pe = torch.zeros(T, C, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div[: C // 2])
    return pe


def rope_interleaved(x, base):
    """RoFormer (Su et al. 2021) eq. 34 on x (H, T, D) at positions 0..T-1:
    R x = x * [cos m t1, cos m t1, cos m t2, ...] + [-x2, x1, -x4, x3, ...] * [sin m t1, sin m t1, ...],
    t_i = base^(-2(i-1)/D)."""
    H, T, D = x.shape
    theta = base ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)        # (D/2,)
    ang = torch.arange(T, dtype=torch.float64).unsqueeze(1) * theta          # (T, D/2)
    cos = torch.repeat_interleave(torch.cos(ang), 2, dim=-1)                 # (T, D)
    sin = torch.repeat_interleave(torch.sin(ang), 2, dim=-1)
    rot = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).reshape(x.shape)
    return x * cos + rot * sin


def rope_half(x, base):
    """GPT-NeoX / Hugging Face rotary embedding on x (H, T, D): pairs (i, i + D/2),
    emb = cat(freqs, freqs), x * cos(emb) + rotate_half(x) * sin(emb)."""
    H, T, D = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)      # (T, D/2)
    emb = torch.cat((freqs, freqs), dim=-1)                                   # (T, D)
    x1, x2 = x[..., : D // 2], x[..., D // 2:]
    return x * torch.cos(emb) + torch.cat((-x2, x1), dim=-1) * torch.sin(emb)


def self_check():
    """The formulas above against the hand-computed values in
    tests/data/pitfalls.md (P6, P7) and P1's scale, so a broken
    reference cannot be committed."""
    pe = sinusoidal(2, 8)
    want = [0.841471, 0.540302, 0.099833, 0.995004, 0.010000, 0.999950, 0.001000, 1.000000]
    assert torch.allclose(pe[1], torch.tensor(want, dtype=torch.float64), atol=1e-6), pe[1]
    assert torch.equal(pe[0], torch.tensor([0., 1.] * 4, dtype=torch.float64))
    x = torch.tensor([1., 2., 3., 4.], dtype=torch.float64).repeat(1, 2, 1)  # positions 0, 1
    ri, rh = rope_interleaved(x, 10000.0)[0], rope_half(x, 10000.0)[0]
    assert torch.allclose(ri[1], torch.tensor([-1.142640, 1.922076, 2.959851, 4.029800],
                                              dtype=torch.float64), atol=1e-6), ri
    assert torch.allclose(rh[1], torch.tensor([-1.984111, 1.959901, 2.462378, 4.019800],
                                              dtype=torch.float64), atol=1e-6), rh
    assert torch.equal(ri[0], x[0, 0]) and torch.equal(rh[0], x[0, 0])
    q = torch.tensor([1., 2., 3., 4.], dtype=torch.float64)
    k = torch.tensor([.5, -1., 2., 0.], dtype=torch.float64)
    rq = rope_interleaved(q.repeat(1, 8, 1), 10000.0)[0]
    rk = rope_interleaved(k.repeat(1, 8, 1), 10000.0)[0]
    for m, n in ((3, 1), (7, 5), (2, 0)):
        assert abs(float(rq[m] @ rk[n]) - 4.644436) < 1e-6
    s = torch.tensor([4.0, 0.0], dtype=torch.float64) / math.sqrt(4)        # P1: d_k = 4
    assert torch.allclose(torch.softmax(s, 0), torch.tensor([0.880797, 0.119203],
                                                             dtype=torch.float64), atol=1e-6)


def heads(x, H):
    """(T, C) -> (H, T, D): head h takes columns h*D .. h*D+D-1."""
    T, C = x.shape
    return x.view(T, H, C // H).transpose(0, 1).contiguous()


def reference(c, tokens, n_real, X32, W32, user_mask):
    """All expected tensors (float64 torch) for configuration c."""
    T, C, H = len(tokens), c["C"], c["H"]
    D = C // H
    X = torch.from_numpy(X32).double()
    W = {n: torch.from_numpy(w).double() for n, w in W32.items()}
    out = {}

    # positions
    Xp = X
    if c["pos"] == "sinusoidal":
        out["PE"] = sinusoidal(T, C)
        Xp = X + out["PE"]

    # projections, row-vector W as nn.Linear weight W^T, then the head split
    Q = heads(F.linear(Xp, W["W_Q"].T), H)
    K = heads(F.linear(Xp, W["W_K"].T), H)
    V = heads(F.linear(Xp, W["W_V"].T), H)
    if c["pos"] == "rope":
        rope = rope_interleaved if c["style"] == "interleaved" else rope_half
        Q, K = rope(Q, c["rope_base"]), rope(K, c["rope_base"])
    out["Q"], out["K"], out["V"] = Q, K, V

    # scores before the mask
    scale = 1.0 / math.sqrt(D) if c["scale"] else 1.0
    scores = torch.matmul(Q, K.transpose(-1, -2)) * scale
    out["scores"] = scores

    # masks: True = masked (row = query i, column = key j)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if c["causal"] \
        else torch.zeros(T, T, dtype=torch.bool)
    key_pad = torch.arange(T) >= n_real                                        # (T,)
    user = torch.from_numpy(user_mask) if user_mask is not None else torch.zeros(T, T, dtype=torch.bool)
    mask = causal | user | key_pad.unsqueeze(0)
    out["mask"] = mask
    full = mask.all(dim=1)                                                     # (T,) rows with no key

    # explicit attention: softmax over masked scores, attnviz's zero rule
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    weights[:, full, :] = 0.0
    context = torch.matmul(weights, V).transpose(0, 1).reshape(T, C)
    output = F.linear(context, W["W_O"].T)

    if c["pos"] != "rope":
        # the same layer through nn.MultiheadAttention; --no-scale is expressed
        # by pre-multiplying the query weight by sqrt(D) (MHA always divides by it)
        mha = torch.nn.MultiheadAttention(C, H, bias=False, batch_first=True, dtype=torch.float64)
        mha.eval()
        qs = 1.0 if c["scale"] else math.sqrt(D)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat((W["W_Q"].T * qs, W["W_K"].T, W["W_V"].T), dim=0))
            mha.out_proj.weight.copy_(W["W_O"].T)
            attn_mask = causal | user
            y, a = mha(Xp.unsqueeze(0), Xp.unsqueeze(0), Xp.unsqueeze(0),
                       key_padding_mask=key_pad.unsqueeze(0) if n_real < T else None,
                       attn_mask=attn_mask if attn_mask.any() else None,
                       need_weights=True, average_attn_weights=False)
        y, a = y[0], a[0].clone()
        # PyTorch gives NaN for rows with no visible key; attnviz's rule is zeros
        assert bool(torch.isnan(a[:, full, :]).all()) and not bool(torch.isnan(a[:, ~full, :]).any())
        a[:, full, :] = 0.0
        y = torch.where(full.unsqueeze(1), torch.zeros_like(y), y)
        assert torch.allclose(a, weights, rtol=0, atol=1e-12), (a - weights).abs().max()
        assert torch.allclose(y, output, rtol=0, atol=1e-12), (y - output).abs().max()
        weights, output = a, y
    out["weights"], out["context"], out["output"] = weights, context, output
    for n, t in out.items():
        assert n == "mask" or bool(torch.isfinite(t).all()), n
    return out


# ---------------------------------------------------------------------------
# writing


def args_for(c):
    a = ["--d-model", str(c["C"]), "--heads", str(c["H"]), "--positions", c["pos"]]
    if c["pos"] == "rope":
        a += ["--rope-style", c["style"]]
        if c["rope_base"] != 10000.0:
            a += ["--rope-base", "%g" % c["rope_base"]]
    if c["causal"]:
        a.append("--causal")
    if c["pad_to"]:
        a += ["--pad-to", str(c["pad_to"])]
    if not c["scale"]:
        a.append("--no-scale")
    return a + [c["sentence"]]


def write_config(root, c):
    tokens = list(TOKENS[c["sentence"]])
    n_real = len(tokens)
    if c["pad_to"]:
        assert c["pad_to"] > n_real
        tokens += ["<pad>"] * (c["pad_to"] - n_real)
    T = len(tokens)
    X, W = make_inputs(c, T)
    user_mask = None
    if c["user_mask"] is not None:
        user_mask = np.zeros((T, T), dtype=bool)
        for i, j in c["user_mask"]:
            user_mask[i, j] = True

    d = os.path.join(root, c["name"])
    os.makedirs(os.path.join(d, "in"))
    os.makedirs(os.path.join(d, "expect"))
    with open(os.path.join(d, "args.txt"), "w", encoding="utf-8") as f:
        f.write("".join(a + "\n" for a in args_for(c)))
    np.save(os.path.join(d, "in", "X.npy"), X)
    if c["synth"]:
        with open(os.path.join(d, "in", "synth.txt"), "w") as f:
            f.write("# W_*.npy are not stored: test_torch_ref.c writes them with synth_weight()\n"
                    "# name salt W[0,0] W[C-1,C-1] (float32, 9 digits) sum of all (float64)\n")
            for n, w in W.items():
                f.write("%s %d %.9g %.9g %.17g\n" % (n, SYNTH_SALT[n], w[0, 0], w[-1, -1],
                                                      w.astype(np.float64).sum()))
    else:
        for n, w in W.items():
            np.save(os.path.join(d, "in", n + ".npy"), w)
    if user_mask is not None:
        np.save(os.path.join(d, "in", "attn_mask.npy"), user_mask)

    ref = reference(c, tokens, n_real, X, W, user_mask)
    e = os.path.join(d, "expect")
    with open(os.path.join(e, "tokens.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in tokens))
    np.save(os.path.join(e, "mask.npy"), ref.pop("mask").numpy())
    for n, t in ref.items():
        np.save(os.path.join(e, n + ".npy"), t.numpy().astype(np.float32))
    return T


def generate(root):
    self_check()
    torch.manual_seed(0)  # nothing is drawn from torch; fixed anyway
    os.makedirs(root)
    names = [c["name"] for c in CONFIGS]
    assert len(set(names)) == len(names)
    for c in CONFIGS:
        T = write_config(root, c)
        print("%-30s T=%-2d d_model=%-3d heads=%d" % (c["name"], T, c["C"], c["H"]))
    with open(os.path.join(root, "configs.txt"), "w") as f:
        f.write("".join(n + "\n" for n in names))


def same_tree(a, b):
    """1 if the two folders hold the same files with the same bytes."""
    ok = True
    for base, _, files in os.walk(a):
        for fn in files:
            pa = os.path.join(base, fn)
            pb = os.path.join(b, os.path.relpath(pa, a))
            if not os.path.exists(pb) or open(pa, "rb").read() != open(pb, "rb").read():
                print("differs: %s" % os.path.relpath(pa, a))
                ok = False
    for base, _, files in os.walk(b):
        for fn in files:
            if not os.path.exists(os.path.join(a, os.path.relpath(os.path.join(base, fn), b))):
                print("extra: %s" % os.path.relpath(os.path.join(base, fn), b))
                ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare with tests/ref")
    args = ap.parse_args()
    if args.check:
        tmp = tempfile.mkdtemp()
        try:
            generate(os.path.join(tmp, "ref"))
            ok = same_tree(os.path.join(tmp, "ref"), REF)
        finally:
            shutil.rmtree(tmp)
        print("tests/ref is up to date" if ok else "tests/ref differs from the generator")
        return 0 if ok else 1
    if os.path.exists(REF):
        shutil.rmtree(REF)
    generate(REF)
    return 0


if __name__ == "__main__":
    sys.exit(main())
