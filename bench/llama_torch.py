#!/usr/bin/python3
"""llama_torch.py - the torch side of `make bench` for a Llama-family --model:
the same forward as attnviz (every layer's attention weights and hidden states
kept, logits for every position) on the same model.safetensors (F32), on the CPU.

    /usr/bin/python3 bench/llama_torch.py DIR ID,ID,... [THREADS]

Prints the line gpt2_torch.py prints (its loader and timing loop are reused).
Independent of attnviz's code: the forward follows Hugging Face's
modeling_llama.py (RMSNorm, q/k/v/o nn.Linear (out, in), RoPE with
rotate_half and rope_theta, repeat_kv for grouped-query attention, causal
softmax, SwiGLU MLP, final norm, lm_head or the tied embedding).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2_torch  # noqa: E402  (imports torch)
import torch  # noqa: E402

F = torch.nn.functional


def forward(cfg, p, ids):
    L, H, C = cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["hidden_size"]
    KVH, eps = cfg.get("num_key_value_heads", H), cfg.get("rms_norm_eps", 1e-6)
    D, T = C // H, ids.shape[0]
    inv = cfg.get("rope_theta", 10000.0) ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1).float(), torch.cat([ang.sin(), ang.sin()], -1).float()

    def rope(x):  # (heads, T, D), rotate_half pairs (i, i + D/2)
        return x * cos + torch.cat([-x[..., D // 2:], x[..., :D // 2]], -1) * sin

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    def lin(x, name):
        return F.linear(x, p[name + ".weight"], p.get(name + ".bias"))

    x = p["model.embed_tokens.weight"][ids]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    hidden, atts = [x], []
    for l in range(L):
        pre = "model.layers.%d." % l
        h = rms(x, p[pre + "input_layernorm.weight"])
        q = rope(lin(h, pre + "self_attn.q_proj").view(T, H, D).transpose(0, 1))
        k = rope(lin(h, pre + "self_attn.k_proj").view(T, KVH, D).transpose(0, 1)).repeat_interleave(H // KVH, 0)
        v = lin(h, pre + "self_attn.v_proj").view(T, KVH, D).transpose(0, 1).repeat_interleave(H // KVH, 0)
        w = torch.softmax((q @ k.transpose(1, 2) / D ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
        x = x + lin((w @ v).transpose(0, 1).reshape(T, C), pre + "self_attn.o_proj")
        h = rms(x, p[pre + "post_attention_layernorm.weight"])
        x = x + lin(F.silu(lin(h, pre + "mlp.gate_proj")) * lin(h, pre + "mlp.up_proj"), pre + "mlp.down_proj")
        hidden.append(x)
        atts.append(w)
    out = p["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else p["lm_head.weight"]
    return torch.stack(atts), torch.stack(hidden), rms(x, p["model.norm.weight"]) @ out.T


if __name__ == "__main__":
    gpt2_torch.main(forward)
