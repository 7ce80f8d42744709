#!/bin/sh
# install-deps.sh [run|test|fuzz] - install what attnviz needs, when it is
# missing. On Debian/Ubuntu this uses apt-get, as root or through sudo (the
# script calls sudo itself when it is not root). Elsewhere it names the
# packages to install by hand and stops.
#
# Modes; each includes the ones before it (run < test < fuzz):
#   run   (make demo, make deps; the default) build and run attnviz:
#           pkg-config, a C compiler, make, libpng, FreeType, fontconfig,
#           zlib, ISA-L (igzip, the deflate of PNG image data), OpenBLAS
#           (CBLAS), utf8proc (Unicode properties), cJSON (JSON headers of
#           safetensors, config.json, tokenizer files), PCRE2
#           (GPT-2's pre-tokenizer regex), HarfBuzz, FriBidi and libraqm
#           (shaping and bidi of labels), giflib (animated GIFs); fonts for
#           labels the bundled DejaVu Sans (assets/fonts) lacks: Noto CJK
#           (Chinese, Japanese, Korean) and Symbola (a monochrome outline font
#           with emoji such as U+1F642; colour bitmap emoji fonts such as Noto
#           Color Emoji cannot be drawn by the FreeType outline renderer),
#           Noto core (fonts-noto-core: Devanagari, Bengali, Tamil, Telugu,
#           Kannada, Malayalam, Arabic, Hebrew, Thai, ... labels, shaped by
#           HarfBuzz; checked by its Devanagari face)
#   test  (make test) also cmocka, xmllint (SVG well-formedness),
#           rsvg-convert (renders every SVG figure, proving it opens without
#           errors), chromium, nodejs and npm (tests/browser/ drives chromium
#           headless over attnviz.html with the npm package puppeteer-core,
#           installed there by `npm ci`), hb-view (HarfBuzz's own renderer,
#           libharfbuzz-bin: the reference the shaped labels of
#           tests/test_textlayout.c are compared with), DejaVu Sans as a
#           system font (the plot tests draw without the bundled copy), man
#           (the installed man page is read), strace (injects a Ctrl-C
#           between --train's renames, tests/test_train.c)
#   bench (make bench, make train-figures) run's packages and python3-torch
#           with python3-numpy: bench/*.py time the same attention, GPT-2,
#           Llama and training step in torch on the CPU, the reference every
#           goal is quoted beside, and scripts/chapter_heads.py reads the
#           chapter's --dump with numpy (not part of test or fuzz: the tests
#           read committed reference tensors, so CI needs no torch)
#   fuzz  (make fuzz, make memcheck; CI) also clang with its libFuzzer
#           runtime (libclang-rt-N-dev) and valgrind. gcc's
#           -fsanitize=address,undefined (make test SANITIZE=1) needs nothing
#           extra on Debian.
#
# To add a package: one line in the mode's function below, "check || need".
set -eu

mode=${1:-run}
case $mode in
run | test | fuzz | bench) ;;
*) echo "attnviz: error: install-deps.sh: unknown mode '$mode' (allowed: run, test, fuzz, bench)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "attnviz: error: install-deps.sh takes one mode (run, test, fuzz or bench)" >&2; exit 2; }

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have_cmd pkg-config && pkg-config --exists "$1"; }
have_font() { have_cmd fc-list && [ -n "$(fc-list "$1" 2>/dev/null)" ]; }

run_pkgs() {
    have_cmd cc || need="$need gcc"
    have_cmd make || need="$need make"
    have_cmd pkg-config || need="$need pkg-config"
    have_pc libpng || need="$need libpng-dev"
    have_pc zlib || need="$need zlib1g-dev"
    have_pc libisal || need="$need libisal-dev"
    have_pc freetype2 || need="$need libfreetype-dev"
    have_pc fontconfig || need="$need libfontconfig-dev"
    have_pc openblas || need="$need libopenblas-dev"
    have_pc libutf8proc || need="$need libutf8proc-dev"
    have_pc libcjson || need="$need libcjson-dev"
    have_pc libpcre2-8 || need="$need libpcre2-dev"
    have_pc harfbuzz || need="$need libharfbuzz-dev"
    have_pc fribidi || need="$need libfribidi-dev"
    have_pc raqm || need="$need libraqm-dev"
    [ -f /usr/include/gif_lib.h ] || need="$need libgif-dev"
    have_cmd fc-list || need="$need fontconfig"
    have_font :lang=zh-cn || need="$need fonts-noto-cjk"
    have_font ':outline=true:charset=1f642' || need="$need fonts-symbola"
    have_font 'Noto Sans Devanagari' || need="$need fonts-noto-core"
}

test_pkgs() {
    have_pc cmocka || need="$need libcmocka-dev"
    have_cmd xmllint || need="$need libxml2-utils"
    have_cmd rsvg-convert || need="$need librsvg2-bin"
    have_cmd chromium || need="$need chromium"
    have_cmd node || need="$need nodejs"
    have_cmd npm || need="$need npm"
    have_cmd hb-view || need="$need libharfbuzz-bin"
    have_font 'DejaVu Sans' || need="$need fonts-dejavu-core"
    have_cmd man || need="$need man-db"
    have_cmd strace || need="$need strace"
}

fuzz_pkgs() {
    have_cmd clang || need="$need clang"
    have_cmd valgrind || need="$need valgrind"
}

bench_pkgs() {
    # Debian's python3, the one bench/ runs (a pyenv or venv python3 on the PATH would not see python3-torch)
    have_py() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import $1" >/dev/null 2>&1; }
    have_py torch || need="$need python3-torch"
    have_py numpy || need="$need python3-numpy"
}

run_pkgs
if [ "$mode" = bench ]; then bench_pkgs; mode=run; fi
[ "$mode" = run ] || test_pkgs
[ "$mode" != fuzz ] || fuzz_pkgs

updated=0
apt_install() {
    [ -z "$1" ] && return 0
    echo "attnviz: installing missing packages:$1"
    if ! have_cmd apt-get; then
        echo "attnviz: error: no apt-get here; install the equivalents of:$1" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if have_cmd sudo; then SUDO="sudo"; else
            echo "attnviz: error: need root (or sudo) to install:$1" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    [ $updated -eq 1 ] || $SUDO apt-get update -qq
    updated=1
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $1
}

apt_install "$need"

# libFuzzer ships apart from clang on Debian 12 (libclang-rt-14-dev): link a
# one-line target to find out, and install the runtime for this clang's major
# version when it is missing.
if [ "$mode" = fuzz ]; then
    probe_dir=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe_dir/p.c"
    if ! clang -fsanitize=fuzzer,address,undefined "$probe_dir/p.c" -o "$probe_dir/p" >/dev/null 2>&1; then
        major=$(clang -dumpversion | cut -d. -f1)
        apt_install "libclang-rt-$major-dev"
        if ! clang -fsanitize=fuzzer,address,undefined "$probe_dir/p.c" -o "$probe_dir/p" >/dev/null 2>&1; then
            rm -rf "$probe_dir"
            echo "attnviz: error: clang $major still cannot link -fsanitize=fuzzer (libFuzzer runtime missing)" >&2
            exit 1
        fi
    fi
    rm -rf "$probe_dir"
fi
