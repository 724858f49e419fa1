"""`python -m pyad ...`: the same as the `pyad` command (pyad/cli.py)."""
import sys

from .cli import main

sys.exit(main())
