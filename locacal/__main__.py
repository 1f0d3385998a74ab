"""``python -m locacal report ...``: the command line of :mod:`locacal.cli`.

(``python -m locacal.demo`` is the separate demonstration.)
"""

import sys

from locacal.cli import main

if __name__ == "__main__":
    sys.exit(main())
