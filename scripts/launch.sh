#!/usr/bin/env bash
# Set up the app's runtime (if needed) and launch PE Explorer.  Extra arguments go to the app.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh" app
exec "$here/.venv/bin/pe-explorer" "$@"
