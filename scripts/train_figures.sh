#!/bin/sh
# train_figures.sh - regenerate docs/figures/train/ and the excerpts of the
# "watch attention learn" chapter (docs/train.md, docs/train.zh.md). Run by
# `make train-figures`; it trains 7 small models (several CPU minutes, run in
# parallel) and then the 30 or so runs of scripts/train_options.sh (about 15
# minutes), so it is kept apart from `make figures`.
#
# Each run's printed output is kept as docs/figures/train/<name>.txt and the
# chapter's <!-- run: ... --> blocks print parts of those files, so
# scripts/excerpts.sh on the chapter is quick and repeatable. Only the files
# the chapter shows are kept (no model.safetensors: `attnviz --train` makes
# it again in seconds).
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
export PATH
out=docs/figures/train
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The runs write runs/<name> inside $tmp, so the printed paths read as the
# chapter's commands do (`-o runs/reverse`), not as a temp folder, and the
# same code gives the same excerpts.
top=$PWD
mkdir "$tmp/runs"

# one default run per task, and the two ablations on reverse (600 steps
# each variant, to keep the chapter's cost down); the runs are independent,
# so they go side by side. A bare `wait` returns 0 whatever the jobs did, so
# each job's pid is kept and waited on: one failed run fails the script.
pids=
for task in reverse sort induction; do
    (cd "$tmp" && attnviz --train "$task" -o "runs/$task") >"$out/$task.txt" &
    pids="$pids $!"
done
for what in scale norm; do
    (cd "$tmp" && attnviz --train reverse --steps 600 --compare "$what" -o "runs/compare_$what") >"$out/compare_$what.txt" &
    pids="$pids $!"
done
failed=0
for pid in $pids; do
    wait "$pid" || failed=1
done
if [ "$failed" -ne 0 ]; then
    echo "train_figures.sh: a training run failed; its output is in $out/" >&2
    exit 1
fi
for task in reverse sort induction; do
    cp "$tmp/runs/$task/filmstrip.png" "$out/${task}_filmstrip.png"
    cp "$tmp/runs/$task/curves.png" "$out/${task}_curves.png"
done
cp "$tmp/runs/reverse/attention.gif" "$out/reverse_attention.gif"
cp "$tmp/runs/reverse/config.json" "$out/reverse_config.json"
# the trained folder runs like any model folder
cd "$tmp"
attnviz --model runs/reverse --generate 5 --no-plot "3 1 4 1 5 >" >"$top/$out/reverse_generate.txt" 2>&1 || true
attnviz --model runs/induction --generate 1 --no-plot "k q a z m k q a" >"$top/$out/induction_generate.txt" 2>&1 || true
attnviz --model runs/induction --generate 3 --no-plot "a b a" >"$top/$out/induction_generate_short.txt" 2>&1 || true
attnviz --model runs/induction --generate 2 --no-plot "m n a o p m n" >"$top/$out/induction_generate_against.txt" 2>&1 || true
cd "$top"
for what in scale norm; do cp "$tmp/runs/compare_$what/compare_$what.png" "$out/compare_$what.png"; done
# the table of reverse runs with other shapes and settings (about 30 runs, one after another)
sh scripts/train_options.sh
sh scripts/excerpts.sh docs/train.md docs/train.zh.md
echo "training figures in $out ($(du -sh "$out" | cut -f1)); excerpts refreshed in docs/train.md docs/train.zh.md"
