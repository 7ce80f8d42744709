#!/bin/sh
# train_figures.sh - regenerate docs/figures/train/ and the excerpts of the
# "watch attention learn" chapter (docs/train.md, docs/train.zh.md). Run by
# `make train-figures`; it trains 11 small models (several CPU minutes, run in
# parallel) and then the 40 or so runs of scripts/train_options.sh (the whole
# target took 24 minutes on 2 cores), so it is kept apart from `make
# figures`. The numbers the prose quotes about where heads look come from
# scripts/chapter_heads.py (numpy).
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
# the scale comparison again at the previous default lr, which the chapter
# quotes to show the result depends on it
(cd "$tmp" && attnviz --train reverse --steps 600 --lr 3e-3 --compare scale -o runs/compare_scale_lr3e-3) >"$out/compare_scale_lr3e-3.txt" &
pids="$pids $!"
# one layer with one head, whose rows the chapter reads (its table rows come
# from train_options.sh, which keeps no folder)
for task in reverse sort; do
    (cd "$tmp" && attnviz --train "$task" --layers 1 --heads 1 -o "runs/${task}_1x1") >"$out/${task}_1x1.txt" &
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
attnviz --model runs/reverse --generate 10 --no-plot "3 1 4 1 5 >" >"$top/$out/reverse_generate_10.txt" 2>&1 || true
attnviz --model runs/reverse --generate 1 --no-plot "1 2 3 4 5 6 7 8 9 >" >"$top/$out/reverse_generate_long.txt" 2>&1 || true
attnviz --model runs/induction --generate 1 --no-plot "k q a z m k q a" >"$top/$out/induction_generate.txt" 2>&1 || true
attnviz --model runs/induction --generate 3 --no-plot "a b a" >"$top/$out/induction_generate_short.txt" 2>&1 || true
attnviz --model runs/induction --generate 2 --no-plot "m n a o p m n" >"$top/$out/induction_generate_against.txt" 2>&1 || true
# where the heads look, from --dump's attn.npy (numpy): the reverse model's
# layer-0 heads on 200 prompts, and the induction model's heads on its probe
/usr/bin/python3 "$top/scripts/chapter_heads.py" reverse runs/reverse >"$top/$out/reverse_heads.txt"
/usr/bin/python3 "$top/scripts/chapter_heads.py" induction runs/induction "k q a z m k q a" >"$top/$out/induction_heads.txt"
/usr/bin/python3 "$top/scripts/chapter_heads.py" rows runs/reverse_1x1 "3 1 4 1 5 > 5 1 4 1" >"$top/$out/reverse_1x1_rows.txt"
/usr/bin/python3 "$top/scripts/chapter_heads.py" rows runs/sort_1x1 "7 2 9 2 5 0 > 0 2 2 5 7" >"$top/$out/sort_1x1_rows.txt"
cd "$top"
for what in scale norm; do cp "$tmp/runs/compare_$what/compare_$what.png" "$out/compare_$what.png"; done
# the largest training loss (train.csv: step,lr,loss,...) of each scale
# variant from step 25 on, where the loss has left its start: the swings the
# chapter describes
for d in compare_scale compare_scale_lr3e-3; do
    for v in scale no-scale; do
        awk -F, -v name="$d/$v" 'NR == 2 { s0 = $3 } NR > 1 && $1 >= 25 && $3 > m { m = $3; at = $1 }
            END { printf "%s: loss %.2f at step 0, largest training loss from step 25 on %.2f at step %d\n", name, s0, m, at }' \
            "$tmp/runs/$d/$v/train.csv"
    done
done >"$out/compare_scale_peaks.txt"
# the tables of reverse, sort and induction runs with other shapes and settings (about 40 runs, one after another)
sh scripts/train_options.sh
sh scripts/excerpts.sh docs/train.md docs/train.zh.md
echo "training figures in $out ($(du -sh "$out" | cut -f1)); excerpts refreshed in docs/train.md docs/train.zh.md"
