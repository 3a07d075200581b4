"""``python -m explorer`` does what ``pe-explorer`` does."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl+C while the first modules load: leave as later, no traceback
    print("interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
