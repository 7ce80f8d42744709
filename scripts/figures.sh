#!/bin/sh
# figures.sh - regenerate docs/figures/ (the example figures) and the trace
# excerpts in README.md and the tutorials. Run by `make figures`.
#
# The four cases of issue 4 get every figure type (--figures all) as PNG and
# SVG: love/, zh_rope_causal/, padded/, paragraph/; so do an Arabic (right to
# left) and a Hindi (Devanagari) sentence: ar_causal/, hi_causal/. The 200-token paragraph's
# per-head SVGs are left out (each embeds its 200 x 200 map as an image and
# adds little over the PNG; the PNGs, the grid, pe and mask SVGs stay).
# The tutorial-only folders keep just the files README.md and docs/*.md
# show, so the committed set stays small (`du -sh docs/figures`).
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
export PATH
out=docs/figures
mkdir -p "$out"

# Start each case from an empty folder, so figures no longer drawn go away.
fresh() { rm -rf "${out:?}/$1"; }

# The sentences come from assets/sentences.txt (the list the tests and the
# demo use): sentence N is its N-th line that is not a comment.
sentence() { grep -v '^#' assets/sentences.txt | sed -n "$1p"; }
love=$(sentence 1)  # I love deep learning
you=$(sentence 4)   # I love you
zh=$(sentence 7)    # 我爱深度学习

# --- the four cases: every figure type, PNG and SVG
# "I love deep learning", 8 heads (the demo)
fresh love
attnviz -q --heads 8 --figures all --format both -o "$out/love" "$love"
# a Chinese sentence with RoPE and a causal mask
fresh zh_rope_causal
attnviz -q --heads 2 --positions rope --causal --figures all --format both -o "$out/zh_rope_causal" "$zh"
# a padded batch case: key padding mask, plus causal
fresh padded
attnviz -q --heads 2 --pad-to 8 --causal --figures all --format both -o "$out/padded" "$you"
# a real 200-token paragraph (docs/paragraph.txt), 2 heads, default figure settings:
# past 32 tokens the colour range is auto (the 99th percentile), so the structure shows
fresh paragraph
attnviz -q --heads 2 --figures all -o "$out/paragraph" -f docs/paragraph.txt
attnviz -q --heads 2 --figures grid,pe,mask --format svg -o "$out/paragraph" -f docs/paragraph.txt

# --- labels in a right-to-left script and in an Indic script, every figure
# type: shaped (joined Arabic letters, Devanagari conjuncts and vowel signs)
# and in display order, in PNG and SVG
fresh ar_causal
attnviz -q --heads 2 --causal --figures all --format both -o "$out/ar_causal" "أنا أحب التعلم العميق"
fresh hi_causal
attnviz -q --heads 2 --causal --figures all --format both -o "$out/hi_causal" "मुझे डीप लर्निंग से प्यार है"

# --- for the tutorials (only the files they show are kept, below)
for d in zh_heads zh_padded compare8 compare compare8_zh compare_zh; do fresh "$d"; done
attnviz -q --heads 8 -o "$out/zh_heads" "$zh"
attnviz -q --pad-to 8 --causal --d-model 64 -o "$out/zh_padded" "$zh"  # the settings of the table above it
attnviz -q --heads 8 --compare scale -o "$out/compare8" "$love"
attnviz -q --heads 2 --compare positions -o "$out/compare" "$love"

# --- the interactive page (--html) and screenshots of its views, taken in
# chromium by tests/browser/shots.js (offline; fails on any request or error)
fresh html
attnviz -q --heads 4 --no-plot --html -o "$out/html" "I love deep learning"
node tests/browser/shots.js "$out/html/attnviz.html" "$out/html"
attnviz -q --heads 2 --compare scale --no-plot --html -o "$out/html/compare" "I love deep learning"
node tests/browser/shots.js "$out/html/compare/attnviz.html" "$out/html" compare
attnviz -q --heads 4 --no-plot --html -o "$out/html/zh" "我爱深度学习"
node tests/browser/shots.js "$out/html/zh/attnviz.html" "$out/html/zh"
rm -f "$out/html/zh/matrix.png" "$out/html/zh/model.png" # the Chinese tutorial shows head and cell
# a model's page: a toy model trained on reverse (600 steps, about a minute), every layer and head
rm -rf build/toy-reverse
attnviz -q --train reverse --steps 600 -o build/toy-reverse
attnviz -q --model build/toy-reverse --no-plot --html -o "$out/html/toy" "3 1 4 1 5 > 5 1 4 1 3"
node tests/browser/shots.js "$out/html/toy/attnviz.html" "$out/html" model

sh scripts/excerpts.sh README.md docs/tutorial.md docs/tutorial.zh.md

# Prune the tutorial-only folders to what the Markdown files reference.
for d in zh_heads zh_padded compare8 compare compare8_zh compare_zh; do
    [ -d "$out/$d" ] || continue
    for f in "$out/$d"/*; do
        [ -e "$f" ] || continue
        rel=${f#docs/}
        if ! grep -q -F -e "$f" -e "$rel" README.md docs/*.md; then rm -f "$f"; fi
    done
done

# Every SVG must open: well-formed XML, and rsvg renders it without a message.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$out"/*/*.svg; do
    if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$f"; fi
    if command -v rsvg-convert >/dev/null 2>&1; then
        msg=$(rsvg-convert "$f" -o "$tmp/r.png" 2>&1) || { echo "figures.sh: rsvg-convert failed on $f: $msg" >&2; exit 1; }
        [ -z "$msg" ] || { echo "figures.sh: rsvg-convert warns on $f: $msg" >&2; exit 1; }
    fi
done

echo "figures in $out ($(du -sh "$out" | cut -f1)); excerpts refreshed in README.md docs/tutorial.md docs/tutorial.zh.md"
