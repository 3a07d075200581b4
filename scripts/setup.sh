#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv.
#
# Idempotent: it does the work only when .venv is missing or pyproject.toml changed
# since the last set-up.  Sourced by scripts/launch.sh and scripts/test.sh.
#
# torch: we install it BEFORE the project, pinned by $PE_TORCH_SPEC (default
# torch==2.13.0).  On our build/CI machines that exact version is a CPU-only wheel
# that pip finds locally; an unpinned "torch" would pull a multi-GB CUDA build.
# Elsewhere the same pin resolves to the ordinary PyPI wheel for the platform.
# The package itself only asks for torch>=2.2, so `pip install pe-explorer`
# keeps working everywhere.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
PY="${PYTHON:-python3}"
VENV="${PE_VENV:-$here/.venv}"
EXTRAS="${PE_EXTRAS-test,bench,package}"
TORCH_SPEC="${PE_TORCH_SPEC:-torch==2.13.0}"
stamp="$VENV/.pe-setup-stamp"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16) $EXTRAS $TORCH_SPEC"

if [ -x "$VENV/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
echo "[setup] creating environment in $VENV (extras: $EXTRAS) ..." >&2
"$PY" -m venv "$VENV"
pipq() {
    # pip's notes about index folders that do not exist on this machine are noise here.
    "$VENV/bin/python" -m pip install --quiet "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}
pipq --upgrade pip
pipq "$TORCH_SPEC"
pipq -e ".[${EXTRAS}]"
echo "$want" > "$stamp"
echo "[setup] done" >&2
