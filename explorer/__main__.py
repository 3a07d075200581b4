"""``python -m explorer`` does what ``pe-explorer`` does."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl+C while the first modules load: leave quietly, as later
    sys.exit(130)

sys.exit(main())
