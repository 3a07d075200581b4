#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv, for the app alone or for its tests too.
#
#   bash scripts/setup.sh app    the app's runtime: torch (CPU), PySide6, pyqtgraph, numpy, pillow, ...
#   bash scripts/setup.sh test   the same plus the test, benchmark and packaging tools (pytest, ruff, mypy,
#                                transformers and rotary-embedding-torch as references, matplotlib, PyInstaller)
#
# Idempotent: it does the work only when that set is not installed yet or pyproject.toml (or this script)
# changed since; "test" in place satisfies "app".  Called by scripts/launch.sh (app) and scripts/test.sh (test).
#
# torch: installed BEFORE the project, pinned by $PE_TORCH_SPEC (default torch==2.13.0).  On our build and
# CI machines that exact version is a CPU-only wheel that pip finds on disk; an unpinned "torch" would pull a
# multi-GB CUDA build.  Elsewhere set $PE_TORCH_INDEX to PyTorch's CPU index (docs/install.md) to get its CPU
# wheel.  The package itself only asks for torch>=2.2, so a plain `pip install pe-explorer` works everywhere.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
what="${1:-app}"
case "$what" in
    app) extras="" ;;
    test) extras="[test,bench,package]" ;;
    *) echo "usage: bash scripts/setup.sh [app|test]" >&2; exit 2 ;;
esac
PY="${PYTHON:-python3}"
VENV="${PE_VENV:-$here/.venv}"
TORCH_SPEC="${PE_TORCH_SPEC:-torch==2.13.0}"
TORCH_INDEX="${PE_TORCH_INDEX:-}"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16) $TORCH_SPEC $TORCH_INDEX"
stamp() { echo "$VENV/.pe-setup-$1"; }
done_for() { [ -x "$VENV/bin/python" ] && [ -f "$(stamp "$1")" ] && [ "$(cat "$(stamp "$1")")" = "$want" ]; }

if done_for "$what" || { [ "$what" = app ] && done_for test; }; then
    exit 0
fi
t0=$(date +%s)
echo "[setup] setting up $VENV for the ${what} (${TORCH_SPEC}, then pe-explorer${extras}) ..." >&2
"$PY" -m venv "$VENV"
pipq() {
    # pip's notes about index folders that do not exist on this machine are noise here.
    "$VENV/bin/python" -m pip install --quiet "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}
pipq --upgrade pip
if [ -n "$TORCH_INDEX" ]; then pipq "$TORCH_SPEC" --index-url "$TORCH_INDEX"; else pipq "$TORCH_SPEC"; fi
pipq -e ".${extras}"
"$VENV/bin/python" -m compileall -q "$here/explorer" >/dev/null 2>&1 || true  # see launch.sh
echo "$want" > "$(stamp "$what")"
[ "$what" = test ] && echo "$want" > "$(stamp app)"
echo "[setup] done in $(( $(date +%s) - t0 )) s ($(du -sh "$VENV" | cut -f1) in $VENV)" >&2
