"""`python -m pyad ...`: the same as the `pyad` command (pyad/aot/cli.py)."""
import sys

from .aot.cli import main

sys.exit(main())
