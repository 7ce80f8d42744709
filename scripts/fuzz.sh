#!/bin/sh
# fuzz.sh - run the libFuzzer targets over their seed corpora.
#
#   make fuzz FUZZ_SECONDS=N                 build (clang) and run every target N seconds
#   make fuzz FUZZ_SECONDS=0                 replay each seed corpus once (regression only)
#   make fuzz FUZZ_TARGETS="tokenize args"   a subset
#   sh scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]   what make calls
#
# Targets: tokenize (tests/fuzz/fuzz_tokenize.c), args (fuzz_args.c), npy
# (fuzz_npy.c), safetensors (fuzz_safetensors.c), bpe (fuzz_bpe.c: vocab.json/
# merges.txt and encoding), hftok (fuzz_hftok.c: tokenizer.json, encoding and
# decoding). Each reads the committed seeds in tests/fuzz/<target>_corpus/
# and writes the inputs it discovers into BUILD_DIR/work/<target>/ (kept
# between runs, never into the repository). A crash, leak, sanitizer report
# or timeout (> 10 s for one input) stops that target; its input is saved as
# BUILD_DIR/crashes/<target>/crash-<sha1> (or leak-, timeout-, oom-). Copy it
# into tests/fuzz/<target>_corpus/ as a regression seed once fixed.
# Per-target logs: BUILD_DIR/<target>.log. Exit status 1 if any target found
# something, 0 otherwise. The last lines of each log (executions, coverage)
# are printed as a summary.
set -u

BUILD=${1:-build/fuzz}
[ $# -gt 0 ] && shift
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-tokenize args npy safetensors bpe hftok}
SEEDS=tests/fuzz

status=0
for t in $TARGETS; do
    bin=$BUILD/fuzz_$t
    seeds=$SEEDS/${t}_corpus
    if [ ! -x "$bin" ]; then
        echo "fuzz: error: $bin is not built (run: make fuzz)" >&2
        exit 2
    fi
    if [ ! -d "$seeds" ]; then
        echo "fuzz: error: no seed corpus $seeds" >&2
        exit 2
    fi
    work=$BUILD/work/$t
    crashes=$BUILD/crashes/$t
    log=$BUILD/$t.log
    mkdir -p "$work" "$crashes"
    dict=""
    [ -f "$SEEDS/$t.dict" ] && dict="-dict=$SEEDS/$t.dict"
    # leaks are findings too; a sanitizer report aborts the run
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    if [ "$SECONDS_EACH" -eq 0 ]; then
        echo "fuzz: $t: replaying $(ls "$seeds" | wc -l) seeds from $seeds"
        # shellcheck disable=SC2046
        "$bin" -runs=1 $(find "$seeds" -type f | sort) >"$log" 2>&1
        rc=$?
    else
        echo "fuzz: $t: ${SECONDS_EACH}s over $seeds (+ $work), log $log"
        # shellcheck disable=SC2086
        "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$crashes/" $dict "$work" "$seeds" >"$log" 2>&1
        rc=$?
    fi
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz: $t: FINDING (exit $rc); see $log" >&2
        grep -aE "ERROR: |runtime error|SUMMARY|Test unit written|deadly signal|ALARM|LEAK" "$log" | head -n 12 >&2
        ls -l "$crashes" >&2
    else
        if [ "$SECONDS_EACH" -eq 0 ]; then
            echo "fuzz: $t: $(grep -ac "^Executed " "$log") inputs replayed, no findings"
            continue
        fi
        grep -aE "stat::number_of_executed_units|stat::peak_rss_mb" "$log" |
            sed "s/^/fuzz: $t: /"
        cov=$(grep -aEo "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+" "$log" | tail -n 1)
        [ -n "$cov" ] && echo "fuzz: $t: final $cov"
    fi
done
[ $status -eq 0 ] && echo "fuzz: no findings" || echo "fuzz: findings above" >&2
exit $status
