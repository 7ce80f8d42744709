#!/bin/sh
# run_tests.sh BUILD BIN - run every cmocka test binary in BUILD/tests and the
# browser tests (tests/browser/test_*.js, node + chromium; they print cmocka's
# "[  PASSED  ] N test(s)." lines), each even if an earlier one failed, then
# print one summary line "N passed, N skipped, N failed". Skipped counts whole
# tests cmocka skipped (skip()) and every part of a test that printed
# "[ SKIPROW  ] <what and why>" (a table row or a check that needs a tool or a
# privilege this machine lacks), so nothing that did not run is reported as
# passed.
BUILD=$1
ATTNVIZ_BIN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
export ATTNVIZ_BIN
ATTNVIZ_SRCDIR=$(pwd)
export ATTNVIZ_SRCDIR
pass=0; skipped=0; fail=0; crashed=""
log=$(mktemp)
for t in "$BUILD"/tests/test_* tests/browser/test_*.js; do
    case $t in
    *.js) run() { node "$1"; } ;;
    *) [ -x "$t" ] || continue; run() { "$1"; } ;;
    esac
    run "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    rows=$(grep -c '^\[ SKIPROW  \]' "$log")
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skipped=$((skipped + ${s:-0} + rows))
    if [ $rc -ne 0 ] && [ -z "$f" ]; then crashed="$crashed $(basename "$t")"; fail=$((fail + 1)); fi
done
rm -f "$log"
[ -n "$crashed" ] && echo "crashed or aborted:$crashed"
echo "$pass passed, $skipped skipped, $fail failed"
[ "$fail" -eq 0 ]
