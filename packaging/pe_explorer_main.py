"""Entry script for the PyInstaller bundle: ``pe-explorer`` with the same arguments as the console script.

PyInstaller needs a script file; ``explorer/__main__.py`` cannot serve because it uses a relative
import, which only works when run as ``python -m explorer``.
"""

import multiprocessing
import sys

from explorer.cli import main

if __name__ == "__main__":
    # The compute process is started with "spawn": in the bundle that re-runs this executable, and
    # freeze_support() turns that run into the child instead of a second app.
    multiprocessing.freeze_support()
    sys.exit(main())
