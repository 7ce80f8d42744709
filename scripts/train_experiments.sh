#!/bin/sh
# train_experiments.sh - the logs behind the chapter's patch rows: every run
# that docs/experiments/README.md lists (the tables of docs/train.md and
# docs/train.zh.md whose rows need a patched build), and the dumps the prose
# quotes about them. Not part of `make train-figures` (a build per patch and
# about 45 trainings: some 30 minutes on 2 cores); run it by hand from a clean
# checkout: sh scripts/train_experiments.sh
#
# For each patch it copies the source tree to a temporary folder, applies the
# patch there, builds ./attnviz, and runs the rows of that patch (seed 42
# unless the options say otherwise), one after another. The induction data's
# "first version" is the code of commit 5aec353, built the same way from git.
# Writes docs/figures/experiments/PATCH.txt: for each run a line
# "== [ENV] attnviz --train TASK OPTIONS", then the run's snapshot lines
# (those that print the attention on target) and, for the runs the chapter
# describes in detail, scripts/chapter_heads.py's rows of one prompt
# (numpy, as make train-figures needs).
set -eu
cd "$(dirname "$0")/.."
top=$PWD
out=docs/figures/experiments
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build NAME: $tmp/NAME, a copy of the tree (or of commit $2) with patch NAME applied, built
build() {
    rm -rf "${tmp:?}/$1"
    mkdir "$tmp/$1"
    if [ -n "${2:-}" ]; then
        git archive "$2" | tar -x -C "$tmp/$1"
    else
        git archive HEAD | tar -x -C "$tmp/$1"
        (cd "$tmp/$1" && git apply "$top/docs/experiments/$1.patch")
    fi
    mkdir -p "$tmp/$1/scripts" # this tree's chapter_heads.py runs this build's attnviz (../attnviz)
    cp scripts/chapter_heads.py "$tmp/$1/scripts/"
    make -s -C "$tmp/$1" -j2 attnviz >"$tmp/build.log" 2>&1 || {
        echo "train_experiments.sh: the build of $1 failed:" >&2
        cat "$tmp/build.log" >&2
        exit 1
    }
}

# run NAME "ENV" TASK OPTIONS...: one training with build NAME, logged to $out/NAME.txt
run() {
    name=$1
    envs=$2
    task=$3
    shift 3
    echo "== ${envs:+$envs }attnviz --train $task${*:+ $*}" >>"$out/$name.txt"
    rm -rf "$tmp/run"
    # $envs is a list of NAME=VALUE words on purpose
    # shellcheck disable=SC2086
    (cd "$tmp" && env $envs "$tmp/$name/attnviz" --train "$task" "$@" -o "$tmp/run") >"$tmp/out" 2>&1 </dev/null || {
        echo "train_experiments.sh: $name: attnviz --train $task $* failed:" >&2
        cat "$tmp/out" >&2
        exit 1
    }
    grep '^step .*attention on target' "$tmp/out" >>"$out/$name.txt"
}

# rows NAME PROMPT: chapter_heads.py's rows of the last run's folder, with build NAME's attnviz
rows() {
    echo "-- rows of \"$2\"" >>"$out/$1.txt"
    /usr/bin/python3 "$tmp/$1/scripts/chapter_heads.py" rows "$tmp/run" "$2" >"$tmp/rows" 2>/dev/null || {
        echo "train_experiments.sh: $1: chapter_heads.py rows \"$2\" failed" >&2
        exit 1
    }
    sed '1d' "$tmp/rows" >>"$out/$1.txt"
}

start() {
    : >"$out/$1.txt"
    build "$@"
}

start digits-end-of-text
run digits-end-of-text "" reverse
rows digits-end-of-text "7 2 9 3 5 0 > 0 5 3 9 2 7"
run digits-end-of-text "" reverse --steps 12000
run digits-end-of-text "" reverse --heads 2

start digits-random-start
run digits-random-start "" reverse
run digits-random-start "" reverse --steps 12000

start sort-distinct-digits
run sort-distinct-digits "" sort
rows sort-distinct-digits "7 2 9 3 5 0 > 0 2 3 5 7"

start attention-only
run attention-only "" reverse
run attention-only "" reverse --heads 2
run attention-only "" reverse --heads 1
run attention-only "" reverse --heads 1 --layers 3
run attention-only "" sort
run attention-only "" sort --layers 1
run attention-only "" sort --layers 1 --heads 1
run attention-only "" sort --layers 1 --heads 1 --steps 16000
rows attention-only "7 2 9 2 5 0 > 0 2 2 5 7"

start supervise-head
run supervise-head "" reverse
run supervise-head "SUPERVISE_UNTIL=1000" reverse
run supervise-head "SUPERVISE_UNTIL=4000" reverse --steps 8000
rows supervise-head "7 2 9 2 5 0 > 0 5 2 9 2 7"
run supervise-head "" sort
run supervise-head "SUPERVISE_UNTIL=4000" sort --steps 8000
rows supervise-head "7 2 9 2 5 0 > 0 2 2 5 7 9"

start head-dropout
run head-dropout "" reverse
run head-dropout "HEAD_DROPOUT=0.1" reverse
run head-dropout "HEAD_DROPOUT=0.25" reverse
rows head-dropout "7 2 9 2 5 0 > 0 5 2 9 2 7"
run head-dropout "HEAD_DROPOUT=0.5" reverse
run head-dropout "HEAD_DROPOUT=0.25 HEAD_DROPOUT_LAYER=0" reverse
run head-dropout "HEAD_DROPOUT=0.5 HEAD_DROPOUT_LAYER=0" reverse
run head-dropout "HEAD_DROPOUT=0.5 HEAD_DROPOUT_LAYER=1" reverse
run head-dropout "HEAD_DROPOUT=0.25" reverse --steps 8000
run head-dropout "ATTN_DROPOUT=0.1" reverse
run head-dropout "ATTN_DROPOUT=0.25" reverse
run head-dropout "ATTN_DROPOUT=0.25" reverse --steps 8000
run head-dropout "RESID_DROPOUT=0.1" reverse
run head-dropout "HEAD_DROPOUT=0.25" sort

start induction-uniform-letters
run induction-uniform-letters "" induction
run induction-uniform-letters "" induction --positions sinusoidal

start induction-gaps-from-2
run induction-gaps-from-2 "" induction

start induction-first-version 5aec353
run induction-first-version "" induction
for seed in 1 2 3 4; do
    run induction-first-version "" induction --seed "$seed"
done
