"""``python -m ragchunk.eval``: the ``eval`` subcommand on its own."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
