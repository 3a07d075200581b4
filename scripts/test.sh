#!/usr/bin/env bash
# Set up (if needed) the app and its test tools, the system packages some tests need, then run the whole test
# suite (headless; pytest arguments pass through).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh" test
bash "$here/scripts/system-deps.sh"
cd "$here"
# One worker per core and one more, whole test files per worker (a file's fixtures and its subprocesses stay
# together): with one per core, the two workers used 53 % and 72 % of a core over a clean-clone run (waits on the
# app's subprocesses and Qt's timers), and a third took that run from 936 s to 895 s.  The suite's long tests (soak,
# bundle, monkey, the walks) run first, beside the rest.  Arguments come after, so "-n 0" runs it in one process.
workers=$(( $("$here/.venv/bin/python" -c "import os; print(len(os.sched_getaffinity(0)))") + 1 ))
exec "$here/.venv/bin/python" -m pytest -n "$workers" --dist loadfile "$@"
