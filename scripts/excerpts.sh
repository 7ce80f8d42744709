#!/bin/sh
# excerpts.sh FILE... - refresh the command outputs embedded in Markdown files.
#
# A block written as
#     <!-- run: attnviz --heads 2 "I love you" | head -n 12 -->
#     ```text
#     ...anything...
#     ```
#     <!-- end -->
# gets its body replaced by the real output of the command, run with sh from
# the repository root with ./attnviz first on PATH, NO_COLOR=1 and COLUMNS=80.
# So the README and the tutorials always show what the tool really prints;
# tests/test_docs.c runs every block's command again and fails when a body
# is no longer its output.
# A block opened with <!-- run-md: COMMAND --> instead takes the output as
# Markdown, without the ```text fence (for generated table rows).
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD:$PATH"
NO_COLOR=1
COLUMNS=80
export PATH NO_COLOR COLUMNS
for doc in "$@"; do
    tmp="$doc.tmp.$$"
    awk '
        /^<!-- run: .* -->$/ {
            print
            cmd = $0
            sub(/^<!-- run: /, "", cmd)
            sub(/ -->$/, "", cmd)
            print "```text"
            full = "{ " cmd "; } 2>&1"
            while ((full | getline line) > 0) print line
            close(full)
            print "```"
            skipping = 1
            next
        }
        /^<!-- run-md: .* -->$/ {
            print
            cmd = $0
            sub(/^<!-- run-md: /, "", cmd)
            sub(/ -->$/, "", cmd)
            full = "{ " cmd "; } 2>&1"
            while ((full | getline line) > 0) print line
            close(full)
            skipping = 1
            next
        }
        /^<!-- end -->$/ { skipping = 0 }
        !skipping { print }
    ' "$doc" >"$tmp"
    mv "$tmp" "$doc"
done
