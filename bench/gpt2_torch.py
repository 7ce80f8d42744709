#!/usr/bin/python3
"""gpt2_torch.py - the torch side of `make bench` for --model: the same GPT-2
forward as attnviz (every layer's attention weights and hidden states kept,
logits for every position) on the same model.safetensors, on the CPU.

    /usr/bin/python3 bench/gpt2_torch.py DIR ID,ID,... [THREADS]
    /usr/bin/python3 bench/gpt2_torch.py DIR ID,ID,... THREADS generate N

Prints one line of key=value pairs: import_ms (importing torch), load_ms
(mapping the file and making tensors, no copy for F32), forward_ms (median of
5 runs after one warm-up), total_ms (the process so far), threads, top1.
The weights are read with numpy.memmap from the safetensors header (the
`safetensors` package is not needed). Independent of attnviz's code: the
forward follows Hugging Face's GPT2Model (pre-LN, causal mask, gelu_new,
tied unembedding).

With "generate N" it continues the ids greedily by N tokens with a key/value
cache and prints generate_ms (median of 3 runs after a warm-up), tokens and
the ids, for attnviz --generate's comparison.
"""
import json
import os
import warnings
import struct
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402
import torch  # noqa: E402

T_IMPORT = time.perf_counter()


def load(dirname):
    # the mapping is read-only and the forward never writes to it
    warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
    path = os.path.join(dirname, "model.safetensors")
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + n
    kinds = {"F32": np.float32, "F16": np.float16}
    params = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        a = np.frombuffer(mm, dtype=kinds[e["dtype"]], count=(end - b) // np.dtype(kinds[e["dtype"]]).itemsize,
                          offset=base + b).reshape(e["shape"])
        params[name.replace("transformer.", "")] = torch.from_numpy(a.astype(np.float32, copy=False))
    with open(os.path.join(dirname, "config.json")) as f:
        cfg = json.load(f)
    return cfg, params


def forward(cfg, p, ids):
    L, H, C = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    T = ids.shape[0]
    D = C // H
    x = p["wte.weight"][ids] + p["wpe.weight"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    hidden, atts = [x], []
    for l in range(L):
        h = "h.%d." % l
        a = torch.nn.functional.layer_norm(x, (C,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
        qkv = torch.addmm(p[h + "attn.c_attn.bias"], a, p[h + "attn.c_attn.weight"])
        q, k, v = (t.view(T, H, D).transpose(0, 1) for t in qkv.split(C, dim=1))
        s = (q @ k.transpose(1, 2)) / (D ** 0.5)
        s = s.masked_fill(~mask, float("-inf"))
        w = torch.softmax(s, dim=-1)
        y = (w @ v).transpose(0, 1).reshape(T, C)
        x = x + torch.addmm(p[h + "attn.c_proj.bias"], y, p[h + "attn.c_proj.weight"])
        m = torch.nn.functional.layer_norm(x, (C,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
        m = torch.nn.functional.gelu(torch.addmm(p[h + "mlp.c_fc.bias"], m, p[h + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(p[h + "mlp.c_proj.bias"], m, p[h + "mlp.c_proj.weight"])
        hidden.append(x)
        atts.append(w)
    x = torch.nn.functional.layer_norm(x, (C,), p["ln_f.weight"], p["ln_f.bias"], eps)
    return torch.stack(atts), torch.stack(hidden), x @ p["wte.weight"].T


def generate(cfg, p, ids, n):
    """Greedy continuation by n tokens with a key/value cache (as transformers' past_key_values): the input's
    forward fills each layer's keys and values, then each new token runs alone against them. Returns the ids."""
    L, H, C = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    D = C // H
    past = [None] * L
    out, x_ids, pos0 = [], ids, 0
    for _ in range(n):
        T = x_ids.shape[0]
        x = p["wte.weight"][x_ids] + p["wpe.weight"][pos0:pos0 + T]
        for l in range(L):
            h = "h.%d." % l
            a = torch.nn.functional.layer_norm(x, (C,), p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
            qkv = torch.addmm(p[h + "attn.c_attn.bias"], a, p[h + "attn.c_attn.weight"])
            q, k, v = (t.view(T, H, D).transpose(0, 1) for t in qkv.split(C, dim=1))
            if past[l] is not None:
                k, v = torch.cat([past[l][0], k], 1), torch.cat([past[l][1], v], 1)
            past[l] = (k, v)
            s = (q @ k.transpose(1, 2)) / (D ** 0.5)
            if T > 1:  # the input: causal; a single new token sees every cached key
                s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
            y = (torch.softmax(s, dim=-1) @ v).transpose(0, 1).reshape(T, C)
            x = x + torch.addmm(p[h + "attn.c_proj.bias"], y, p[h + "attn.c_proj.weight"])
            m = torch.nn.functional.layer_norm(x, (C,), p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
            m = torch.nn.functional.gelu(torch.addmm(p[h + "mlp.c_fc.bias"], m, p[h + "mlp.c_fc.weight"]),
                                         approximate="tanh")
            x = x + torch.addmm(p[h + "mlp.c_proj.bias"], m, p[h + "mlp.c_proj.weight"])
        x = torch.nn.functional.layer_norm(x[-1:], (C,), p["ln_f.weight"], p["ln_f.bias"], eps)
        nxt = int((x @ p["wte.weight"].T)[0].argmax())
        out.append(nxt)
        pos0 += T
        x_ids = torch.tensor([nxt])
    return out


def main_generate(n):
    """DIR IDS THREADS generate N: greedy n tokens, median of 3 timed runs after a warm-up."""
    dirname, ids = sys.argv[1], torch.tensor([int(i) for i in sys.argv[2].split(",")])
    torch.set_num_threads(int(sys.argv[3]))
    cfg, p = load(dirname)
    times = []
    with torch.no_grad():
        for r in range(4):
            t = time.perf_counter()
            out = generate(cfg, p, ids, n)
            if r:
                times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    print("generate_ms=%.0f tokens=%d ids=%s" % (times[1], n, ",".join(str(i) for i in out)))


def main(forward=forward):
    """forward(cfg, params, ids) -> (attention, hidden, logits); bench/llama_torch.py passes its own."""
    dirname, ids = sys.argv[1], [int(i) for i in sys.argv[2].split(",")]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    torch.set_num_threads(threads)
    t = time.perf_counter()
    cfg, p = load(dirname)
    load_ms = (time.perf_counter() - t) * 1e3
    ids = torch.tensor(ids)
    times, cpu = [], []
    with torch.no_grad():
        for r in range(6):
            t, c = time.perf_counter(), time.process_time()
            att, hid, logits = forward(cfg, p, ids)
            if r:
                times.append((time.perf_counter() - t) * 1e3)
                cpu.append((time.process_time() - c) * 1e3)
    times.sort()
    cpu.sort()
    print("import_ms=%.0f load_ms=%.1f forward_ms=%.1f forward_cpu_ms=%.1f total_ms=%.0f threads=%d top1=%d" % (
        (T_IMPORT - T0) * 1e3, load_ms, times[len(times) // 2], cpu[len(cpu) // 2], (time.perf_counter() - T0) * 1e3,
        threads, int(logits[-1].argmax())))


if __name__ == "__main__":
    if len(sys.argv) > 5 and sys.argv[4] == "generate":
        main_generate(int(sys.argv[5]))
    else:
        main()
