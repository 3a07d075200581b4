#!/usr/bin/env bash
# Build PE Explorer as a one-folder bundle with PyInstaller: dist/pe-explorer/ (Linux) or
# "dist/PE Explorer.app" (macOS).  Run from anywhere; Windows: see packaging/README.md.
#
# usage: packaging/build.sh [--dist DIR] [--work DIR] [--archive]
#   --dist DIR   where the bundle goes (default: <repo>/dist)
#   --work DIR   PyInstaller's scratch folder (default: <repo>/build/pyinstaller)
#   --archive    also pack the Linux bundle as DIR/pe-explorer-VERSION-linux-ARCH.tar.gz
#
# It uses $PYTHON, else the project's .venv, which must have the app and PyInstaller installed:
#   .venv/bin/python -m pip install -e '.[package]'
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
prog="build.sh"
die() { echo "$prog: error: $*" >&2; exit 2; }

dist="$root/dist"
work="$root/build/pyinstaller"
archive=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dist) [ $# -ge 2 ] || die "--dist needs a folder"; dist="$2"; shift 2 ;;
        --work) [ $# -ge 2 ] || die "--work needs a folder"; work="$2"; shift 2 ;;
        --archive) archive=1; shift ;;
        -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done

if [ -n "${PYTHON:-}" ]; then
    py="$PYTHON"
elif [ -x "$root/.venv/bin/python" ]; then
    py="$root/.venv/bin/python"
else
    py="python3"
fi
"$py" -c "import PyInstaller" 2>/dev/null \
    || die "PyInstaller is not installed for $py; install it with: $py -m pip install -e '${root}[package]'"
version="$("$py" -c "from importlib.metadata import version; print(version('pe-explorer'))" 2>/dev/null)" \
    || die "pe-explorer is not installed for $py (the bundle needs its metadata): $py -m pip install -e '$root'"

start=$(date +%s)
"$py" -m PyInstaller --noconfirm --log-level WARN --distpath "$dist" --workpath "$work" \
    "$here/pe-explorer.spec"
seconds=$(( $(date +%s) - start ))

if [ "$(uname -s)" = "Darwin" ]; then
    bundle="$dist/PE Explorer.app"
else
    bundle="$dist/pe-explorer"
    # What a user needs to add the app to the desktop menu, beside the program.
    install -m 755 "$here/install-desktop-entry.sh" "$bundle/install-desktop-entry.sh"
    mkdir -p "$bundle/linux"
    install -m 644 "$here/linux/"* "$bundle/linux/"
    install -m 644 "$here/bundle-README.txt" "$bundle/README.txt"
fi
echo "built $bundle (pe-explorer $version, $(du -sh "$bundle" | cut -f1)) in ${seconds} s"

if [ "$archive" = 1 ] && [ "$(uname -s)" != "Darwin" ]; then
    tarball="$dist/pe-explorer-$version-linux-$(uname -m).tar.gz"
    tar -C "$dist" -czf "$tarball" pe-explorer
    echo "packed $tarball ($(du -sh "$tarball" | cut -f1))"
fi
