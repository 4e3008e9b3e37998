"""``python -m ragchunk.eval ...``: the same as ``ragchunk eval ...``.

The program is run, not imported: the evaluation library never imports the command line.
"""

import runpy
import sys

if __name__ == "__main__":
    sys.argv[1:1] = ["eval"]
    runpy.run_module("ragchunk", run_name="__main__", alter_sys=True)
