"""``python -m explorer`` does what ``pe-explorer`` does."""

import os
import sys

if os.environ.get("PE_EXPLORER_REPORT_START"):  # the signal tests: our first line runs from here on
    print("started", flush=True)
try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl+C while the first modules load: leave as later, no traceback
    print("interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
