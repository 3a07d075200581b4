#!/usr/bin/env bash
# The Debian packages some tests need, installed only when missing (then as root, with apt-get); with all of
# them present it needs no root and does nothing.  Without root or apt-get the tests that need them skip and
# say why.  Each package and the tests it serves:
set -uo pipefail
declare -A why=(
    [xvfb]="a virtual X server: the real-window tests (tests/test_real_window.py, the layout test under X)"
    [xauth]="xvfb-run's X authority file"
    [libxcb-cursor0]="Qt's xcb platform plugin (real windows) loads it"
    [libxcb-icccm4]="Qt's xcb platform plugin loads it (when it is missing, Qt's message names libxcb-cursor0 only)"
    [libxcb-keysyms1]="Qt's xcb platform plugin loads it (likewise)"
    [desktop-file-utils]="desktop-file-validate checks the menu entry (tests/test_packaging.py)"
    [appstream]="appstreamcli checks the AppStream metadata (tests/test_packaging.py)"
    [librsvg2-bin]="rsvg-convert renders exported SVG outside Qt (tests/test_export_slide.py)"
)
need=()
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
dpkg -s libxcb-cursor0 >/dev/null 2>&1 || need+=(libxcb-cursor0)
dpkg -s libxcb-icccm4 >/dev/null 2>&1 || need+=(libxcb-icccm4)
dpkg -s libxcb-keysyms1 >/dev/null 2>&1 || need+=(libxcb-keysyms1)
command -v desktop-file-validate >/dev/null 2>&1 || need+=(desktop-file-utils)
command -v appstreamcli >/dev/null 2>&1 || need+=(appstream)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
[ ${#need[@]} -eq 0 ] && exit 0
echo "[system-deps] the tests use these Debian packages, which are missing:" >&2
for p in "${need[@]}"; do echo "[system-deps]   $p: ${why[$p]}" >&2; done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[system-deps] not installing them (that needs root and apt-get): the tests that need them will skip." >&2
    echo "[system-deps] To install them: sudo apt-get install ${need[*]}" >&2
    exit 0
fi
echo "[system-deps] installing them with apt-get (as root) ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=120 update -qq >/dev/null 2>&1 || true
apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
    || echo "[system-deps] could not install ${need[*]}; tests that need them will skip" >&2
exit 0
