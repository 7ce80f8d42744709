#!/bin/sh
# install-deps.sh - install what attnviz needs to build, test and render, when it
# is missing. On Debian/Ubuntu this uses apt-get (as root, or through sudo).
# Elsewhere it names the packages and stops.
#
#   build:  pkg-config, a C compiler, libpng, FreeType, fontconfig
#   tests:  cmocka, xmllint (SVG well-formedness)
#   fonts:  DejaVu Sans (Latin, matplotlib's default face) and Noto CJK (Chinese,
#           Japanese, Korean labels)
set -eu

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have_cmd pkg-config && pkg-config --exists "$1"; }

have_cmd cc || need="$need gcc"
have_cmd make || need="$need make"
have_cmd pkg-config || need="$need pkg-config"
have_pc libpng || need="$need libpng-dev"
have_pc freetype2 || need="$need libfreetype-dev"
have_pc fontconfig || need="$need libfontconfig-dev"
have_pc cmocka || need="$need libcmocka-dev"
have_cmd xmllint || need="$need libxml2-utils"
if ! have_cmd fc-list || [ -z "$(fc-list 'DejaVu Sans' 2>/dev/null)" ]; then need="$need fonts-dejavu-core fontconfig"; fi
if ! have_cmd fc-list || [ -z "$(fc-list :lang=zh-cn 2>/dev/null)" ]; then need="$need fonts-noto-cjk"; fi

[ -z "$need" ] && exit 0

echo "attnviz: installing missing packages:$need"
if ! have_cmd apt-get; then
    echo "attnviz: error: no apt-get here; install the equivalents of:$need" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if have_cmd sudo; then SUDO="sudo"; else
        echo "attnviz: error: need root (or sudo) to install:$need" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need
