#!/usr/bin/env bash
# Add PE Explorer to the desktop's application menu (Linux: GNOME, KDE, Xfce, ...), or remove it.
#
# usage: install-desktop-entry.sh [--exec COMMAND] [--data-dir DIR] [--uninstall]
#
# It installs, for the current user by default:
#   DIR/applications/pe-explorer.desktop                       the menu entry
#   DIR/icons/hicolor/NxN/apps/pe-explorer.png (16 ... 512)    the icon, every size
#   DIR/icons/hicolor/scalable/apps/pe-explorer.svg
#   DIR/metainfo/io.github.pe_explorer.PEExplorer.metainfo.xml what software centres show
# where DIR is ${XDG_DATA_HOME:-~/.local/share}.  For every user of the machine, run it as root
# with --data-dir /usr/local/share.
#
# The command the entry runs is, in this order: --exec COMMAND; the bundle's pe-explorer when this
# script sits in a PyInstaller bundle; pe-explorer on PATH (pip or pipx install); the source
# checkout's .venv/bin/pe-explorer.  Its full path goes into the entry, because a desktop session's
# PATH often lacks ~/.local/bin.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prog="install-desktop-entry.sh"
APP_ID="io.github.pe_explorer.PEExplorer"
SIZES="16 24 32 48 64 128 256 512"

die() { echo "$prog: error: $*" >&2; exit 2; }

exec_cmd=""
data_dir="${XDG_DATA_HOME:-$HOME/.local/share}"
uninstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --exec) [ $# -ge 2 ] || die "--exec needs a command"; exec_cmd="$2"; shift 2 ;;
        --data-dir) [ $# -ge 2 ] || die "--data-dir needs a folder"; data_dir="$2"; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done

apps="$data_dir/applications"
icons="$data_dir/icons/hicolor"
meta="$data_dir/metainfo"

refresh_caches() {
    # Menus pick up changes by themselves on most desktops; these make it immediate where present.
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$apps" 2>/dev/null || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$icons/index.theme" ]; then
        gtk-update-icon-cache -q -t -f "$icons" 2>/dev/null || true
    fi
}

if [ "$uninstall" = 1 ]; then
    rm -f "$apps/pe-explorer.desktop" "$meta/$APP_ID.metainfo.xml" "$icons/scalable/apps/pe-explorer.svg"
    for s in $SIZES; do rm -f "$icons/${s}x${s}/apps/pe-explorer.png"; done
    refresh_caches
    echo "removed PE Explorer's menu entry and icons from $data_dir"
    exit 0
fi

# -- the command ---------------------------------------------------------------------------------
if [ -z "$exec_cmd" ]; then
    if [ -x "$here/pe-explorer" ] && [ -d "$here/_internal" ]; then
        exec_cmd="$here/pe-explorer"                      # inside the bundle
    elif command -v pe-explorer >/dev/null 2>&1; then
        exec_cmd="$(command -v pe-explorer)"              # pip / pipx
    elif [ -x "$here/../.venv/bin/pe-explorer" ]; then
        exec_cmd="$here/../.venv/bin/pe-explorer"         # a source checkout
    else
        die "cannot find pe-explorer: install it (pipx install pe_explorer-*.whl) or pass --exec COMMAND"
    fi
fi
if [[ "$exec_cmd" != */* ]]; then
    resolved="$(command -v "$exec_cmd" 2>/dev/null)" || die "--exec: $exec_cmd is not on PATH"
    exec_cmd="$resolved"
fi
if [ ! -f "$exec_cmd" ] || [ ! -x "$exec_cmd" ]; then die "--exec: $exec_cmd is not an executable file"; fi
exec_cmd="$(cd "$(dirname "$exec_cmd")" && pwd)/$(basename "$exec_cmd")"
# shellcheck disable=SC1003  # '\' is a lone backslash, as meant
case "$exec_cmd" in
    # These would need the desktop entry spec's escaping rules; no sane install path has them.
    *'"'*|*'`'*|*'$'*|*'\'*|*'%'*|*$'\n'*) die "the path $exec_cmd contains a character a menu entry cannot hold" ;;
esac

# -- the files to install ------------------------------------------------------------------------
desktop_src="$here/linux/pe-explorer.desktop"
meta_src="$here/linux/$APP_ID.metainfo.xml"
[ -f "$desktop_src" ] || die "missing $desktop_src (run this script from the bundle or packaging/)"

icon_src=""
for d in "$here/_internal/explorer/resources/icons" "$here/../resources/icons"; do
    if [ -f "$d/pe-explorer.svg" ]; then icon_src="$d"; break; fi
done
if [ -z "$icon_src" ]; then
    # An installed wheel: ask the command's own Python where its resources are.
    py="$(head -n 1 "$exec_cmd" | sed -n 's/^#![[:space:]]*\([^[:space:]]*python[^[:space:]]*\).*/\1/p')"
    if [ -n "$py" ] && [ -x "$py" ]; then
        icon_src="$("$py" -c 'from explorer.paths import resource_path; print(resource_path("icons"))' 2>/dev/null)" || true
    fi
fi
if [ -z "$icon_src" ] || [ ! -f "$icon_src/pe-explorer.svg" ]; then die "cannot find the app's icons"; fi

# -- install -------------------------------------------------------------------------------------
mkdir -p "$apps" "$meta" "$icons/scalable/apps"
# Always quoted: the entry spec reserves spaces, &, |, ;, (, ) ... outside quotes.
exec_value="\"$exec_cmd\""
tmp="$(mktemp "$apps/.pe-explorer.desktop.XXXXXX")"
sed_escape() { printf '%s' "$1" | sed 's/[&|]/\\&/g'; }  # & and the | delimiter are special to sed
sed -e "s|^Exec=.*|Exec=$(sed_escape "$exec_value")|" -e "s|^TryExec=.*|TryExec=$(sed_escape "$exec_cmd")|" \
    "$desktop_src" > "$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$apps/pe-explorer.desktop"
install -m 644 "$icon_src/pe-explorer.svg" "$icons/scalable/apps/pe-explorer.svg"
for s in $SIZES; do
    if [ -f "$icon_src/pe-explorer-$s.png" ]; then
        mkdir -p "$icons/${s}x${s}/apps"
        install -m 644 "$icon_src/pe-explorer-$s.png" "$icons/${s}x${s}/apps/pe-explorer.png"
    fi
done
if [ -f "$meta_src" ]; then install -m 644 "$meta_src" "$meta/$APP_ID.metainfo.xml"; fi
refresh_caches
echo "installed PE Explorer's menu entry in $apps (runs $exec_cmd)"
