#!/bin/sh
# check-install.sh - `make install DESTDIR=<tmp> PREFIX=/usr` puts a working
# attnviz there: run from another folder with an empty fontconfig
# configuration (no system font visible), it still draws Latin labels with the
# bundled DejaVu Sans (no "no glyph" warning), and its figure has the same
# pixels as the tree binary's with every system font visible; `man` finds the
# installed page; `make uninstall` removes everything. Run by `make test`
# (BIN names the tree binary: attnviz, or build/san/attnviz with SANITIZE=1).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }

# a staging folder with a space: install and uninstall quote every path (they made a folder in the tree
# and would have removed all of "$tmp/stage")
root="$tmp/stage x"
make --no-print-directory -s install DESTDIR="$root" PREFIX=/usr >/dev/null
[ ! -e "x" ] || fail "make install with DESTDIR='$root' made a folder x in the tree"
mv "$root" "$tmp/root"
bin="$tmp/root/usr/bin/attnviz"
[ -x "$bin" ] || fail "no $bin"
[ -f "$tmp/root/usr/share/man/man1/attnviz.1" ] || fail "no man page"
[ -f "$tmp/root/usr/share/attnviz/fonts/DejaVuSans.ttf" ] || fail "no fonts"
[ -f "$tmp/root/usr/share/attnviz/fonts/LICENSE" ] || fail "no font licence"
# --help names the man page and the conventions file of the installation it runs from ("docs/conventions.md"
# was not installed; "See attnviz(1)" alone was no help where man's path lacks PREFIX/share/man)
[ -f "$tmp/root/usr/share/doc/attnviz/conventions.md" ] || fail "no share/doc/attnviz/conventions.md"
"$bin" --help | tail -n 3 | tr -s ' \n' '  ' | grep -qxF "See attnviz(1), the manual, and for the conventions used: man $tmp/root/usr/share/man/man1/attnviz.1 $tmp/root/usr/share/doc/attnviz/conventions.md " ||
    fail "the installed --help does not name its man page and conventions.md: $("$bin" --help | tail -n 3)"

mkdir -p "$tmp/elsewhere" "$tmp/fc"
cat >"$tmp/fc/empty.conf" <<EOC
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><cachedir>$tmp/fc/cache</cachedir></fontconfig>
EOC
[ -z "$(FONTCONFIG_FILE="$tmp/fc/empty.conf" fc-list 2>/dev/null)" ] || fail "the empty configuration still lists fonts"
(cd "$tmp/elsewhere" && FONTCONFIG_FILE="$tmp/fc/empty.conf" "$bin" -q -o out "I love you" 2>"$tmp/err") ||
    fail "the installed binary failed: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "the installed binary warned: $(cat "$tmp/err")"
[ -s "$tmp/elsewhere/out/head0.png" ] || fail "no figure written"
# The same command with the system's fonts, from the tree: same bytes (the
# command line in the PNG's Description is the same, so every byte compares).
mv "$tmp/elsewhere/out" "$tmp/elsewhere/installed"
tree_bin=$(pwd)/${BIN:-attnviz}
(cd "$tmp/elsewhere" && "$tree_bin" -q -o out "I love you") || fail "the tree binary failed"
cmp -s "$tmp/elsewhere/out/head0.png" "$tmp/elsewhere/installed/head0.png" ||
    fail "Latin labels differ between the bundled fonts alone and the system fonts"

if command -v man >/dev/null 2>&1; then
    MANPATH="$tmp/root/usr/share/man" man -P cat attnviz 2>/dev/null | grep -q -- '--heads' ||
        fail "man attnviz does not show the installed page"
    # troff's own warnings (an unknown special character such as \(pr) are what every reader of a
    # UTF-8 terminal sees; in the C locale (an unset LANG, a container) man draws ASCII, where the
    # page's CJK examples fall back to <U+NNNN> instead of a warning each and a gap in the text.
    for loc in C.UTF-8 C; do
        warn=$(LC_ALL=$loc MANWIDTH=80 man -l -P cat docs/attnviz.1 2>&1 >/dev/null) || fail "LC_ALL=$loc man -l docs/attnviz.1 failed: $warn"
        [ -z "$warn" ] || fail "LC_ALL=$loc man docs/attnviz.1 prints warnings: $warn"
    done
    # the page's sentence of 6 Han characters, read across line breaks
    LC_ALL=C MANWIDTH=80 man -l -P cat docs/attnviz.1 2>/dev/null | tr -s ' \n' '  ' |
        grep -qF '"<U+6211><U+7231><U+6DF1><U+5EA6><U+5B66><U+4E60>" gives 6 tokens' ||
        fail "LC_ALL=C man docs/attnviz.1 drops the Han characters of the example sentence"
fi

mv "$tmp/root" "$root"
touch "$tmp/stage" # a file that an unquoted "rm -rf $tmp/stage x/..." would remove
make --no-print-directory -s uninstall DESTDIR="$root" PREFIX=/usr >/dev/null
left=$(find "$root" -type f | head -n 3)
[ -z "$left" ] || fail "make uninstall left: $left"
[ -f "$tmp/stage" ] || fail "make uninstall with DESTDIR='$root' removed $tmp/stage"
# a packager's CPPFLAGS (Debian's -D_FORTIFY_SOURCE=2) reach every compile line, as CFLAGS do
make --no-print-directory -n -B build/rel/base/common.o SANITIZE= CPPFLAGS=-DAV_PACKAGER_CPPFLAGS 2>/dev/null |
    grep -q -- -DAV_PACKAGER_CPPFLAGS || fail "CPPFLAGS do not reach the compile line"
# The install compiled PREFIX=/usr into the tree binary; build it back.
make --no-print-directory -s "${BIN:-attnviz}" >/dev/null
echo "check-install: make install/uninstall (DESTDIR with a space, PREFIX=/usr), CPPFLAGS, bundled fonts without system fonts, man page, conventions.md: ok"
