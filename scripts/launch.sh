#!/usr/bin/env bash
# Set up the app's runtime (if needed) and launch PE Explorer.  Extra arguments go to the app.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh" app
# The app's own modules as bytecode, written here because Python may not write it itself (PYTHONDONTWRITEBYTECODE,
# set on some machines, ours included): compiling ~220 modules from source took 0.57 s of every start.  Up to
# date, this only looks at the files (about 60 ms).
"$here/.venv/bin/python" -m compileall -q "$here/explorer" >/dev/null 2>&1 || true
exec "$here/.venv/bin/pe-explorer" "$@"
