#!/usr/bin/python3
"""chapter_heads.py reverse DIR [N] [SEED]
chapter_heads.py induction DIR TEXT
chapter_heads.py rows DIR TEXT

Where the heads of a model trained by `attnviz --train` put their weight,
measured through `attnviz --model DIR --dump` (attn.npy is (L, H, T, T),
query rows, key columns). Run by scripts/train_figures.sh on the chapter's
runs/reverse and runs/induction, and (rows) on runs/reverse_1x1 and
runs/sort_1x1 (docs/train.md, "One command", "Sort" and "Induction"); it
prints the numbers the chapter quotes, so the prose describes a file, not a
hand count. Needs python3-numpy (install-deps.sh bench). Runs the attnviz of
the source tree it is in (../attnviz from this script), so that a learner
typing it from the tree gets the tool just built, else the one on PATH.

reverse: the prompts are N (default 200) random reverse examples drawn here from SEED
(default 1; numpy's default_rng, not attnviz's task stream), n = 2 to 8 digits
uniform, each followed by ' >' and its answer but the last digit, e.g. "3 1 4 1 5
> 5 1 4 1". Each digit and '>' is one token, so with the digits at positions
0..n-1 and '>' at n, the query at position p (n <= p <= 2n-1) answers the
digit at 2n-1-p: its target (src/nn/tasks.c).

Printed, for the head of layer 0 with the most weight on target (and then
for every layer-0 head): the mean weight on the target, on '>', on the first
digit when it is not the target, on the digits next to the target (the first
digit apart), on the other digits and on the answer tokens (these add up to
1); the mean of each row's largest weight; and the share of answers whose
row's largest weight is on the target, by prompt length. Then, for every (length, answer index), whether some layer-0 head's
largest weight is on the target in most of those answers.

induction: TEXT is one prompt whose last letter occurred before, e.g. "k q
a z m k q a" (each letter one token). Printed: for each layer-0 head, the
least and the most weight a row from position 1 on puts on the token just
before it (a previous-token head puts nearly all); for each layer-1 head, the
weight the last row puts on the token after the first occurrence of the last
letter (the target; an induction head puts nearly all).

rows: TEXT is a reverse or sort prompt with its answer so far, e.g. "7 2 9 2
5 0 > 0 2 2 5" (each digit and '>' one token). Printed, for every head of
every layer, each row from '>' on (the rows that answer) as its weight on
every key up to it, keys labelled by their token.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    sys.exit("chapter_heads.py: needs numpy, which " + sys.executable + " does not have; run it with /usr/bin/python3 "
             "after 'sh scripts/install-deps.sh bench' (Debian's python3-numpy), or install numpy for this python")


USAGE = ("usage: chapter_heads.py reverse DIR [N] [SEED] | chapter_heads.py induction DIR TEXT"
         " | chapter_heads.py rows DIR TEXT\n")


# the source tree's ./attnviz when it is built, else the one on PATH
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "attnviz")
ATTNVIZ = HERE if os.access(HERE, os.X_OK) else "attnviz"


def dump(folder, text, tmp):
    """attn.npy (L, H, T, T) of TEXT run through the model folder."""
    subprocess.run([ATTNVIZ, "--model", folder, "--dump", tmp, "--no-plot", "-q", text],
                   check=True, stdout=subprocess.DEVNULL)
    return np.load(os.path.join(tmp, "attn.npy"))


def induction(folder, text):
    letters = text.split()
    with tempfile.TemporaryDirectory() as tmp:
        att = dump(folder, text, tmp)
    if att.shape[2] != len(letters) or len(letters) < 2:
        raise SystemExit(f"chapter_heads.py: '{text}' gave {att.shape[2]} tokens, expected {len(letters)} letters")
    first = letters.index(letters[-1])
    if first == len(letters) - 1:
        raise SystemExit(f"chapter_heads.py: the last letter of '{text}' does not occur before")
    T = len(letters)
    print(f'"{text}": {T} tokens; the target of the last row is position {first + 1} ({letters[first + 1]!r})')
    for h in range(att.shape[1]):
        prev = [att[0, h, p, p - 1] for p in range(1, T)]
        print(f"layer 0 head {h}: weight on the token before, rows 1..{T - 1}: {min(prev):.2f} to {max(prev):.2f}")
    for h in range(att.shape[1]):
        print(f"layer 1 head {h}: last row's weight on the target {att[1, h, T - 1, first + 1]:.2f}")
    return 0


def show_rows(folder, text):
    toks = text.split()
    with tempfile.TemporaryDirectory() as tmp:
        att = dump(folder, text, tmp)
    if att.shape[2] != len(toks) or ">" not in toks:
        raise SystemExit(f"chapter_heads.py: '{text}' gave {att.shape[2]} tokens, expected {len(toks)} with a '>'")
    sep = toks.index(">")
    print(f'"{text}": each row from ">" on, as its weight on each key (key:weight)')
    for layer in range(att.shape[0]):
        for h in range(att.shape[1]):
            print(f"layer {layer} head {h}")
            for p in range(sep, len(toks)):
                cells = " ".join(f"{toks[k]}:{att[layer, h, p, k]:.2f}" for k in range(p + 1))
                print(f"  row {p} ({toks[p]}, answers {'the next digit' if p + 1 >= len(toks) else toks[p + 1]}): {cells}")
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "induction" and len(sys.argv) == 4:
        return induction(sys.argv[2], sys.argv[3])
    if len(sys.argv) >= 2 and sys.argv[1] == "rows" and len(sys.argv) == 4:
        return show_rows(sys.argv[2], sys.argv[3])
    if len(sys.argv) < 3 or len(sys.argv) > 5 or sys.argv[1] != "reverse":
        sys.stderr.write(USAGE)
        return 2
    folder = sys.argv[2]
    n_prompts = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rng = np.random.default_rng(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    rows = []  # (n, answer index, attention of layer 0 (H, T) for that query row, p)
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(n_prompts):
            n = int(rng.integers(2, 9))
            digits = [int(d) for d in rng.integers(0, 10, n)]
            # the answer but its last digit: the query rows n..2n-1 are all there
            text = " ".join(map(str, digits)) + " > " + " ".join(map(str, digits[::-1][:-1]))
            att = dump(folder, text, tmp)
            if att.shape[2] != 2 * n:
                raise SystemExit(f"chapter_heads.py: '{text}' gave {att.shape[2]} tokens, expected {2 * n}")
            for p in range(n, 2 * n):
                rows.append((n, p - n, att[0, :, p, :], p))
    H = rows[0][2].shape[0]
    on_target = np.array([[r[2][h, 2 * r[0] - 1 - r[3]] for h in range(H)] for r in rows])
    best = int(on_target.mean(axis=0).argmax())
    print(f"{n_prompts} prompts, {len(rows)} answers; layer-0 heads' mean weight on target:",
          " ".join(f"H{h} {on_target[:, h].mean():.2f}" for h in range(H)))
    for h in [best] + [h for h in range(H) if h != best]:
        parts = {"target": [], "'>'": [], "first digit": [], "next to the target": [], "other digits": [],
                 "answers": []}
        top, right = [], {}
        for n, k, a, p in rows:
            w = a[h]
            t = 2 * n - 1 - p
            parts["target"].append(w[t])
            parts["'>'"].append(w[n])
            parts["first digit"].append(w[0] if t != 0 else 0.0)
            nb = [j for j in (t - 1, t + 1) if 0 < j < n]  # the first digit counts apart
            parts["next to the target"].append(sum(w[j] for j in nb))
            parts["other digits"].append(sum(w[j] for j in range(1, n) if j != t and j not in nb))
            parts["answers"].append(w[n + 1:p + 1].sum())
            top.append(w.max())
            right.setdefault(n, []).append(int(w.argmax()) == t)
        print(f"layer 0 head {h}{' (best)' if h == best else ''}:",
              ", ".join(f"{k} {np.mean(v):.2f}" for k, v in parts.items()),
              f"| largest weight of a row {np.mean(top):.3f}")
        print("  largest weight on target, by prompt length:",
              " ".join(f"{n}: {100 * np.mean(v):.0f} %" for n, v in sorted(right.items())))
    missed = []
    for n in range(2, 9):
        for k in range(n):
            sel = [r for r in rows if r[0] == n and r[1] == k]
            if not sel:
                continue
            ok = any(np.mean([int(r[2][h].argmax()) == 2 * n - 1 - r[3] for r in sel]) > 0.5 for h in range(H))
            if not ok:
                missed.append(f"{n} digits, answer {k + 1}")
    print("(length, answer) pairs where no layer-0 head's largest weight is on the target in most answers:",
          ", ".join(missed) if missed else "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
