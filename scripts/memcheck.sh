#!/bin/sh
# memcheck.sh - run attnviz under valgrind memcheck: the demo and the error
# paths (bad option, bad UTF-8, bad .npy, unusable output folder, ...).
#
#   sh scripts/memcheck.sh [BIN]      (make memcheck: BIN = ./attnviz)
#
# Each case must exit with its expected code (0, 1 or 2) and valgrind must
# report no invalid access, no uninitialised read and no leak: definitely,
# indirectly or possibly lost blocks are errors (--errors-for-leak-kinds);
# "still reachable" is not (fontconfig and FreeType keep caches for the life
# of the process). Logs: build/memcheck/<case>.log. Exit 1 if any case fails.
set -u

BIN=${1:-./attnviz}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
if ! command -v valgrind >/dev/null 2>&1; then
    echo "memcheck: error: valgrind is not installed (sh scripts/install-deps.sh fuzz)" >&2
    exit 2
fi
[ -x "$BIN" ] || { echo "memcheck: error: $BIN is not built" >&2; exit 2; }

LOGS=$(pwd)/build/memcheck
rm -rf "$LOGS"
mkdir -p "$LOGS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/attnviz_memcheck.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
VG_EXIT=99

pass=0
fail=0
# run NAME EXPECTED_EXIT [ARGS...]  (stdin from $STDIN_FILE if set)
run() {
    name=$1
    want=$2
    shift 2
    log=$LOGS/$name.log
    (cd "$WORK" && valgrind --quiet --error-exitcode=$VG_EXIT --leak-check=full \
        --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
        --track-origins=yes --log-file="$log" "$BIN" "$@" <"${STDIN_FILE:-/dev/null}" >"$LOGS/$name.out" 2>"$LOGS/$name.err")
    rc=$?
    if [ $rc -eq $VG_EXIT ]; then
        echo "memcheck: $name: UNCLEAN (valgrind errors, see $log)"
        sed -n '1,40p' "$log"
        fail=$((fail + 1))
    elif [ $rc -ne "$want" ]; then
        echo "memcheck: $name: exit $rc, expected $want"
        sed -n '1,5p' "$LOGS/$name.err"
        fail=$((fail + 1))
    else
        echo "memcheck: $name: clean (exit $rc)"
        pass=$((pass + 1))
    fi
}

# inputs for the error paths
printf 'abc\000def\n' >"$WORK/nul.txt"
printf 'a regular file\n' >"$WORK/afile"
mkdir -p "$WORK/w_trunc" "$WORK/w_nan" "$WORK/good"
"$BIN" -q --no-plot --d-model 8 --heads 2 --dump "$WORK/good" "I love deep learning" >/dev/null 2>&1 ||
    { echo "memcheck: error: $BIN cannot write a dump" >&2; exit 1; }
head -c 100 "$WORK/good/W_Q.npy" >"$WORK/w_trunc/W_Q.npy"
cp "$WORK/good/W_Q.npy" "$WORK/w_nan/W_Q.npy"
hlen=$(od -An -tu2 -j8 -N2 "$WORK/good/W_Q.npy" | tr -d ' ')
printf '\000\000\300\177' | dd of="$WORK/w_nan/W_Q.npy" bs=1 seek=$((10 + hlen + 20)) conv=notrunc 2>/dev/null
printf 'not a mask' >"$WORK/bad_mask.npy"

run demo 0 --heads 8 "I love deep learning"
run demo_dump_teach 0 --d-model 64 --heads 4 -p rope --causal --pad-to 6 --dump dump -v --explain love,learning \
    --show --compare scale "I love deep learning"
run figures_all_formats 0 --d-model 16 --heads 2 --figures all --format both -o figs "我爱深度学习 😀"
run weights_ok 0 --d-model 8 --heads 2 --weights "$WORK/good" --no-plot "I love deep learning"
STDIN_FILE=$WORK/nul.txt run stdin_nul 2 -f -
run help 0 --help
run bad_option 2 --frobnicate "I love deep learning"
run missing_sentence 2
run bad_heads 2 --heads 7 "I love deep learning"
run bad_utf8 2 "$(printf 'bad \300\257')"
run bad_utf8_file 2 -f "$WORK/nul.txt"
run bad_npy_truncated 2 --d-model 8 --heads 2 --weights "$WORK/w_trunc" "I love deep learning"
run bad_npy_nan 2 --d-model 8 --heads 2 --weights "$WORK/w_nan" "I love deep learning"
run bad_mask 2 --d-model 8 --heads 2 --attn-mask "$WORK/bad_mask.npy" "I love deep learning"
run pad_to_small 2 --pad-to 2 "I love deep learning"
run outdir_is_file 1 --d-model 8 --heads 2 -o "$WORK/afile" "I love deep learning"
run dump_is_file 1 --d-model 8 --heads 2 --dump "$WORK/afile" "I love deep learning"

echo "memcheck: $pass clean, $fail unclean or wrong exit"
[ $fail -eq 0 ]
