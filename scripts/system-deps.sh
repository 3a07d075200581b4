#!/usr/bin/env bash
# Debian packages some tests need: a virtual X server and the libraries Qt's xcb plugin loads
# (Qt's own error message wrongly blames libxcb-cursor0; these are what it really needs here),
# desktop-file-validate / appstreamcli for the .desktop and AppStream files, and rsvg-convert (librsvg2-bin)
# to check that exported SVG renders outside Qt as it does in Qt.  Installed only when missing, only as root
# with apt-get; elsewhere the tests that need them skip with a reason.
set -uo pipefail
need=()
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
dpkg -s libxcb-icccm4 >/dev/null 2>&1 || need+=(libxcb-icccm4)
dpkg -s libxcb-keysyms1 >/dev/null 2>&1 || need+=(libxcb-keysyms1)
command -v desktop-file-validate >/dev/null 2>&1 || need+=(desktop-file-utils)
command -v appstreamcli >/dev/null 2>&1 || need+=(appstream)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[system-deps] not installing ${need[*]} (needs root and apt-get); tests that need them will skip" >&2
    exit 0
fi
echo "[system-deps] installing ${need[*]} ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=120 update -qq >/dev/null 2>&1 || true
apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
    || echo "[system-deps] could not install ${need[*]}; tests that need them will skip" >&2
exit 0
