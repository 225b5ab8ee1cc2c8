"""``python -m amazons_cli``: the ``amazons`` command."""

import sys

from amazons_cli.main import main

if __name__ == "__main__":  # spawned worker processes import this module again: they must not run the command
    sys.exit(main())
