"""Entry script for the PyInstaller bundle: ``pe-explorer`` with the same arguments as the console script.

PyInstaller needs a script file; ``explorer/__main__.py`` cannot serve because it uses a relative
import, which only works when run as ``python -m explorer``.
"""

import sys

from explorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
