#!/bin/sh
# Stress check, not part of `make test` (it is a race, so it is counted, not timed): runs
# `ulimit -v 400000; attnviz --train reverse --steps 3 -q -o NEW/sub` RUNS times in each of JOBS
# concurrent loops, each run killed after 10 s, and prints how many runs ended with each exit code.
# Every run must end with exit 1 at once ("its work buffers ... do not fit under the process's memory
# limit"); a 124 is a run that hung in OpenBLAS's retry loop (nn/attention_blas.c, blas_enter).
#   sh tests/blas_limit_stress.sh [./attnviz] [JOBS=3] [RUNS=25]
bin=${1:-./attnviz} jobs=${2:-3} runs=${3:-25}
out=$(mktemp -d) || exit 1
j=0
while [ "$j" -lt "$jobs" ]; do
    (i=0; while [ "$i" -lt "$runs" ]; do
        d=$(mktemp -d) || exit 1
        (ulimit -v 400000; timeout 10 "$bin" --train reverse --steps 3 -q -o "$d/sub" >/dev/null 2>&1; echo $?)
        rm -rf "$d"; i=$((i + 1))
    done) > "$out/$j" &
    j=$((j + 1))
done
wait
echo "exit code: runs (of $((jobs * runs)))"
cat "$out"/* | sort | uniq -c | awk '{print $2 ": " $1}'
rm -rf "$out"
