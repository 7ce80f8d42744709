#!/usr/bin/python3
"""gen_assets.py - write the example weights folder assets/weights/identity-d8/.

W_Q, W_K, W_V and W_O are the 8 x 8 identity matrix, float32, saved by numpy's
own np.save (the format attnviz's --weights reads). With them Q = K = V = X
(+ PE) and the output is the context itself, so the attention pattern comes
from the embeddings alone: the README's "check your own implementation" tip.

Run from the repository root: /usr/bin/python3 tests/gen_assets.py
"""
import os

import numpy as np

D_MODEL = 8
out = os.path.join("assets", "weights", "identity-d8")
os.makedirs(out, exist_ok=True)
for name in ("W_Q", "W_K", "W_V", "W_O"):
    np.save(os.path.join(out, name + ".npy"), np.eye(D_MODEL, dtype=np.float32))
print("wrote", out)
