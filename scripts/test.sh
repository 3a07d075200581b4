#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite (headless; pytest arguments pass through).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh"
bash "$here/scripts/system-deps.sh"
cd "$here"
exec "$here/.venv/bin/python" -m pytest "$@"
