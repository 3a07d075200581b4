"""``python -m explorer`` does what ``pe-explorer`` does."""

import signal

from .interrupts import exit_at_once

# Ctrl+C from here until the app installs its own handlers leaves at once, with no traceback: Python's
# default KeyboardInterrupt can land where no code of ours catches it, or inside an import that swallows
# it (and the app then comes up as if nothing had been pressed).
signal.signal(signal.SIGINT, exit_at_once)

import os  # noqa: E402 - after the handler: the least possible runs before it
import sys  # noqa: E402

if os.environ.get("PE_EXPLORER_REPORT_START"):  # the signal tests: our first line runs from here on
    print("started", flush=True)

from .cli import main  # noqa: E402

sys.exit(main())
