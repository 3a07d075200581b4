#!/usr/bin/env bash
# Set up (if needed) the app and its test tools, the system packages some tests need, then run the whole test
# suite (headless; pytest arguments pass through).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh" test
bash "$here/scripts/system-deps.sh"
cd "$here"
# The app's modules as bytecode (see launch.sh): the suite starts the app in many subprocesses.
"$here/.venv/bin/python" -m compileall -q "$here/explorer" >/dev/null 2>&1 || true
# Two workers per core, whole test files per worker (a file's fixtures and its subprocesses stay together): a
# worker waits on the app's subprocesses and Qt's timers, so one per core left the cores idle a third of the time.
# Clean-clone runs on the 2-core machine: 936 s with two workers and 895 s with three (an earlier tree), 892 s with
# four, which kept both cores busy (1,604 s of CPU in 816 s of tests).  The suite's long tests (soak, bundle, monkey, the walks) run first,
# beside the rest.  Arguments come after, so "-n 0" runs it in one process.
workers=$(( 2 * $("$here/.venv/bin/python" -c "import os; print(len(os.sched_getaffinity(0)))") ))
exec "$here/.venv/bin/python" -m pytest -n "$workers" --dist loadfile "$@"
