#!/bin/sh
# check-layers.sh - src/ is layered; a file may include only headers of its own
# layer or of the layers below it (src/README.md):
#   base < io < text < nn < render < app, except that render never includes
#   text or nn (figures take plain arrays and labels, not models).
# Prints every include that breaks the rule and exits 1; silent when clean.
cd "$(dirname "$0")/.." || exit 1
allowed() {
    case $1 in
    base) echo "base" ;;
    io) echo "base io" ;;
    text) echo "base io text" ;;
    nn) echo "base io text nn" ;;
    render) echo "base io render" ;;
    app) echo "base io text nn render app" ;;
    esac
}
bad=0
for f in src/*/*.c src/*/*.h; do
    layer=$(basename "$(dirname "$f")")
    ok=$(allowed "$layer")
    if [ -z "$ok" ]; then echo "check-layers: $f is in unknown layer '$layer' (allowed: base io text nn render app)"; bad=1; continue; fi
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        case $inc in
        */*) dep=${inc%%/*} ;;
        *) echo "check-layers: $f includes \"$inc\" without its layer folder (write \"LAYER/$inc\")"; bad=1; continue ;;
        esac
        case " $ok " in
        *" $dep "*) ;;
        *) echo "check-layers: $f (layer $layer) includes \"$inc\" from layer $dep; $layer may include only: $ok"; bad=1 ;;
        esac
    done
done
exit $bad
