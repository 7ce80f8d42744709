#!/bin/sh
# train_options.sh - regenerate the tables of reverse, sort and induction runs
# with other shapes, optimiser settings and seeds in docs/train.md and
# docs/train.zh.md. Called by scripts/train_figures.sh (`make
# train-figures`); about 44 trainings, run one after another (each uses every
# core), so it takes about 20 minutes on 2 cores.
#
# Each row below is a label (English, then Chinese) and one or more option
# sets separated by ";". Every option set is one `attnviz --train TASK
# OPTIONS -o DIR` (seed 42 unless the options say otherwise); the row prints
# the held-out accuracy and the best head of the last snapshot line of each,
# separated by " / ", so every number in the table comes from a run here.
#
# Writes docs/figures/train/TASK_options.md and TASK_options.zh.md for TASK
# reverse, sort and induction (the whole Markdown table, header included, since a
# comment line inside a table would end it; the chapters include them with a
# <!-- run-md: ... --> block) and TASK_options.txt (the last line of every
# run, for reference).
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
export PATH
out=docs/figures/train
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# table TASK: the rows on standard input, one run per option set
table() {
    task=$1
    printf '| task, option | held-out accuracy | best head on target |\n|---|---|---|\n' >"$tmp/en"
    printf '| 任务、选项 | 留出集准确率 | 目标注意力最高的头 |\n|---|---|---|\n' >"$tmp/zh"
    : >"$tmp/log"
    while IFS='|' read -r en zh sets; do
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
            attnviz --train "$task" $opts -o "$tmp/run" >"$tmp/out" 2>&1 </dev/null || {
                echo "train_options.sh: attnviz --train $task $opts failed:" >&2
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
    # a blank line ends the table: GFM would take the <!-- end --> after it for one more row
    echo >>"$tmp/en"
    echo >>"$tmp/zh"
    cp "$tmp/en" "$out/${task}_options.md"
    cp "$tmp/zh" "$out/${task}_options.zh.md"
    cp "$tmp/log" "$out/${task}_options.txt"
    echo "$task options table in $out/${task}_options.md ($(($(wc -l <"$out/${task}_options.md") - 3)) rows)"
}

# label (en) | label (zh) | option sets (backquotes are Markdown, not shell)
table reverse <<'EOF'
reverse (defaults: 2 layers, 4 heads, d_model 64, 4000 steps)|reverse（默认：2 层、4 个头、d_model 64、4000 步）|
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
reverse `--weight-decay 0` / `0.1` (default 0.01)|reverse `--weight-decay 0` / `0.1`（默认 0.01）|--weight-decay 0;--weight-decay 0.1
reverse `--seed 1` / `2` / `3`||--seed 1;--seed 2;--seed 3
reverse `--heads 1` with `--d-model 16` / `--d-model 32`|reverse `--heads 1` 配 `--d-model 16` / `--d-model 32`|--heads 1 --d-model 16;--heads 1 --d-model 32
reverse `--weight-decay 1 --steps 16000`, with `--heads 4` / `--heads 2`|reverse `--weight-decay 1 --steps 16000`，配 `--heads 4` / `--heads 2`|--weight-decay 1 --steps 16000;--weight-decay 1 --steps 16000 --heads 2
EOF
table sort <<'EOF'
sort (defaults: 2 layers, 4 heads, d_model 64, 4000 steps)|sort（默认：2 层、4 个头、d_model 64、4000 步）|
sort `--heads 1` / `--heads 2`||--heads 1;--heads 2
sort `--layers 1 --heads 1`||--layers 1 --heads 1
EOF
table induction <<'EOF'
induction `--seed 1` / `2` / `3` / `4`||--seed 1;--seed 2;--seed 3;--seed 4
EOF
