"""torch_bench.py - the PyTorch side of `make bench` (run only when
/usr/bin/python3 can import torch; CI never needs it).

One multi-head attention layer as attnviz runs it: d_model 512, 8 heads, no
biases, the per-head (H, T, T) weights returned (need_weights=True,
average_attn_weights=False), float32 on the CPU with every core. Prints one
line per T: "torch T=<T> median_ms=<m> runs=<n> threads=<k>".

usage: python3 bench/torch_bench.py T [T ...]
"""
import os
import sys
import time

import torch


def median_ms(fn, runs):
    fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    torch.set_num_threads(os.cpu_count() or 1)
    torch.manual_seed(0)
    # training mode (dropout 0): torch 1.13's eval fast path rejects bias=False
    mha = torch.nn.MultiheadAttention(512, 8, bias=False, batch_first=True).train()
    for arg in sys.argv[1:]:
        T = int(arg)
        x = torch.randn(1, T, 512)
        runs = 7 if T <= 512 else 3

        def forward():
            with torch.no_grad():
                return mha(x, x, x, need_weights=True, average_attn_weights=False)

        ms = median_ms(forward, runs)
        print(f"torch T={T} median_ms={ms:.3f} runs={runs} threads={torch.get_num_threads()}", flush=True)


if __name__ == "__main__":
    main()
