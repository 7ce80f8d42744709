#!/usr/bin/python3
"""train_torch.py - the reference point for `make bench`'s training speed:
the same model, batch and optimiser as `attnviz --train reverse` in PyTorch
on the CPU, timed in the same run.

    /usr/bin/python3 bench/train_torch.py STEPS LAYERS HEADS D_MODEL BATCH THREADS

THREADS 0 leaves torch's own default (what a learner gets: torch picks it
from the machine; the line says how many it used).

Model: GPT-2 layout (Radford et al. 2019): token + learned position
embeddings, Pre-LN blocks (causal multi-head attention with biases, tanh-GELU
MLP 4x wide), final LayerNorm, logits through the tied embedding; vocabulary
294 (attnviz's toy vocabulary), n_positions 32. Data: reverse examples
(2..8 digits, "3 1 4 1 5 >" -> " 5 1 4 1 3"), padded to the longest in the
batch, cross-entropy on the answer positions only. Optimiser: AdamW
(betas 0.9, 0.98, eps 1e-9, weight decay 0.01 on the 2-D weights), global
norm clipping at 1.0, cosine schedule with warm-up. The batch is made before
the clock starts, as attnviz's loop makes its own batch inside the step.

Prints one line: the threads, steps/s (wall) and CPU ms per step, medians
of 5 blocks; bench/bench_train.c reads it ("... N thread(s): X steps/s wall,
Y CPU ms/step ...").
"""
import math
import random
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

V, MAXT = 294, 32


class Block(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H = H
        self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = [t.view(B, T, self.H, C // self.H).transpose(1, 2) for t in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.H)
        att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf")).softmax(-1)
        x = x + self.c_proj((att @ v).transpose(1, 2).reshape(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, L, C, H):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(MAXT, C)
        self.h = nn.ModuleList([Block(C, H) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C)
        for n, p in self.named_parameters():  # GPT-2's initialisation, as attnviz's trainer
            if p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * L) if n.endswith("c_proj.weight") or
                                n.endswith("mlp_proj.weight") else 0.02)
            elif n.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.h:
            x = b(x)
        return self.ln_f(x) @ self.wte.weight.T


def reverse_batch(B, rng):
    """Token ids as attnviz's toy vocabulary numbers them: first digit byte id
    '0'+d-33, later digits and '>' the merges 256+d and 266."""
    seqs, tgts = [], []
    for _ in range(B):
        n = rng.randint(2, 8)
        d = [rng.randint(0, 9) for _ in range(n)]
        toks = [15 + d[0]] + [256 + x for x in d[1:]] + [266] + [256 + x for x in reversed(d)]
        t = [-100] * len(toks)
        for k in range(n):
            t[n + k] = toks[n + k + 1]
        seqs.append(toks)
        tgts.append(t)
    T = max(len(s) for s in seqs)
    idx = torch.tensor([s + [0] * (T - len(s)) for s in seqs])
    tgt = torch.tensor([t + [-100] * (T - len(t)) for t in tgts])
    return idx, tgt


def main():
    steps, L, H, C, B, threads = (int(a) for a in sys.argv[1:7])
    if threads > 0:
        torch.set_num_threads(threads)
    used = torch.get_num_threads()
    torch.manual_seed(0)
    rng = random.Random(0)
    model = GPT(L, C, H)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    other = [p for n, p in model.named_parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": other, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 75) * (0.55 + 0.45 * math.cos(math.pi * min(1.0, s / steps))))
    batches = [reverse_batch(B, rng) for _ in range(steps)]
    rates, cpu, block = [], [], max(1, steps // 5)
    for i in range(0, steps - block + 1, block):
        t0, c0 = time.perf_counter(), time.process_time()
        for idx, tgt in batches[i:i + block]:
            loss = F.cross_entropy(model(idx).view(-1, V), tgt.view(-1), ignore_index=-100)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
        rates.append(block / (time.perf_counter() - t0))
        cpu.append((time.process_time() - c0) / block * 1e3)
    print("torch %s, %s %d thread%s: %6.1f steps/s wall, %6.1f CPU ms/step (median of %d blocks of %d steps; "
          "final loss %.3f)" % (torch.__version__.split("+")[0], "default" if threads == 0 else "set to", used,
                                "" if used == 1 else "s", statistics.median(rates), statistics.median(cpu),
                                len(rates), block, loss.item()))


if __name__ == "__main__":
    main()
