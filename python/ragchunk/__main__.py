"""``python -m ragchunk``: the ``ragchunk`` command (:func:`ragchunk.cli.main`)."""

from __future__ import annotations

import sys

from ragchunk.cli import main

if __name__ == "__main__":
    sys.exit(main())
