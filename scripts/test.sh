#!/usr/bin/env bash
# Set up (if needed) the app and its test tools, the system packages some tests need, then run the whole test
# suite (headless; pytest arguments pass through).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh" test
bash "$here/scripts/system-deps.sh"
cd "$here"
# One worker per core, whole test files per worker (a file's fixtures and its subprocesses stay together):
# the suite's long tests (soak, bundle, monkey) then run beside the rest instead of after it.
# Arguments come after, so "-n 0" runs it in one process.
exec "$here/.venv/bin/python" -m pytest -n auto --dist loadfile "$@"
