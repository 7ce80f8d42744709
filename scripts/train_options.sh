#!/bin/sh
# train_options.sh - regenerate the table of reverse runs with other shapes
# and optimiser settings in docs/train.md and docs/train.zh.md. Called by
# scripts/train_figures.sh (`make train-figures`); about 30 trainings, run one
# after another (each uses every core), so it takes several minutes.
#
# Each row below is a label (English, then Chinese) and one or more option
# sets separated by ";". Every option set is one `attnviz --train reverse
# OPTIONS -o DIR` (seed 42 unless the options say otherwise); the row prints
# the held-out accuracy and the best head of the last snapshot line of each,
# separated by " / ", so every number in the table comes from a run here.
#
# Writes docs/figures/train/reverse_options.md and reverse_options.zh.md
# (table rows without the header; the chapters include them with a
# <!-- run-md: ... --> block) and reverse_options.txt (the last line of every
# run, for reference).
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
export PATH
out=docs/figures/train
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/en"
: >"$tmp/zh"
: >"$tmp/log"

# label (en) | label (zh) | option sets (backquotes are Markdown, not shell)
# shellcheck disable=SC2016
rows='reverse (defaults: 2 layers, 4 heads, d_model 64, 4000 steps)|reverse（默认：2 层、4 个头、d_model 64、4000 步）|
reverse `--heads 1`||--heads 1
reverse `--heads 2`||--heads 2
reverse `--layers 1`||--layers 1
reverse `--layers 1 --heads 1`||--layers 1 --heads 1
reverse `--heads 1` with `--layers 3` / `--layers 4`|reverse `--heads 1` 配 `--layers 3` / `--layers 4`|--heads 1 --layers 3;--heads 1 --layers 4
reverse `--heads 1` with `--d-model 128` / `--steps 8000`|reverse `--heads 1` 配 `--d-model 128` / `--steps 8000`|--heads 1 --d-model 128;--heads 1 --steps 8000
reverse `--positions rope` with `--heads 1` / `--heads 2`|reverse `--positions rope` 配 `--heads 1` / `--heads 2`|--positions rope --heads 1;--positions rope --heads 2
reverse `--layers 3`||--layers 3
reverse `--positions rope`||--positions rope
reverse `--positions sinusoidal`||--positions sinusoidal
reverse `--d-model 128`||--d-model 128
reverse `--steps 8000`||--steps 8000
reverse `--lr 1e-3` / `2e-3` / `3e-3` / `1e-2`||--lr 1e-3;--lr 2e-3;--lr 3e-3;--lr 1e-2
reverse `--batch 64` / `--batch 128`||--batch 64;--batch 128
reverse `--schedule constant` / `--schedule noam`||--schedule constant;--schedule noam
reverse `--warmup 1000`||--warmup 1000
reverse `--seed 1` / `2` / `3`||--seed 1;--seed 2;--seed 3'

echo "$rows" | while IFS='|' read -r en zh sets; do
    [ -n "$zh" ] || zh=$en
    acc=
    best=
    # one run per option set; an empty set is the defaults
    rest="$sets;"
    while [ -n "$rest" ]; do
        opts=${rest%%;*}
        rest=${rest#*;}
        rm -rf "$tmp/run"
        # $opts is split into words on purpose: it is a list of options
        # shellcheck disable=SC2086
        attnviz --train reverse $opts -o "$tmp/run" >"$tmp/out" 2>&1 || {
            echo "train_options.sh: attnviz --train reverse $opts failed:" >&2
            cat "$tmp/out" >&2
            exit 1
        }
        last=$(grep '^step ' "$tmp/out" | tail -n 1)
        printf '%s\t%s\n' "${opts:-(defaults)}" "$last" >>"$tmp/log"
        a=$(echo "$last" | sed -n 's/.*accuracy *\([0-9.]*\) %.*/\1/p')
        b=$(echo "$last" | sed -n 's/.*best \(L[0-9]* H[0-9]* [0-9.]*\).*/\1/p')
        if [ -z "$a" ] || [ -z "$b" ]; then
            echo "train_options.sh: no accuracy or best head in: $last" >&2
            exit 1
        fi
        acc=${acc:+$acc / }$a
        best=${best:+$best / }$b
    done
    echo "| $en | $acc % | $best |" >>"$tmp/en"
    echo "| $zh | $acc % | $best |" >>"$tmp/zh"
done
cp "$tmp/en" "$out/reverse_options.md"
cp "$tmp/zh" "$out/reverse_options.zh.md"
cp "$tmp/log" "$out/reverse_options.txt"
echo "reverse options table in $out/reverse_options.md ($(wc -l <"$out/reverse_options.md") rows)"
