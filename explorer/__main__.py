"""``python -m explorer`` does what ``pe-explorer`` does."""

import sys

from .cli import main

sys.exit(main())
