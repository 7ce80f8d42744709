#!/bin/sh
# figures.sh - regenerate docs/figures/ (the example figures) and the trace
# excerpts in README.md and the tutorials. Run by `make figures`.
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
export PATH
out=docs/figures
mkdir -p "$out"

# "I love deep learning", 8 heads (the demo)
attnviz -q --heads 8 -o "$out/love" "I love deep learning"
# a Chinese sentence with RoPE and a causal mask
attnviz -q --heads 2 --positions rope --causal -o "$out/zh_rope_causal" "我爱深度学习"
# for the Chinese tutorial
attnviz -q --heads 8 -o "$out/zh_heads" "我爱深度学习"
attnviz -q --pad-to 8 --causal -o "$out/zh_padded" "我爱深度学习"
# a padded batch case: key padding mask, plus causal
attnviz -q --heads 2 --pad-to 8 --causal -o "$out/padded" "I love you"
# ablations for the tutorial
attnviz -q --heads 8 --compare scale -o "$out/compare8" "I love deep learning"
attnviz -q --heads 2 --compare positions -o "$out/compare" "I love deep learning"
# a 200-token paragraph
para=""
for w in $(seq 1 20); do para="$para The model reads every word and weighs the others."; done
attnviz -q --d-model 64 --heads 4 -o "$out/paragraph" "$para"

sh scripts/excerpts.sh README.md docs/tutorial.md docs/tutorial.zh.md
echo "figures in $out; excerpts refreshed in README.md docs/tutorial.md docs/tutorial.zh.md"
