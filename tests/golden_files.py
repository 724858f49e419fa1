"""Golden files (tests/golden/): a text compared with the file holding its expected form.

Run with PYAD_UPDATE_GOLDEN=1 to rewrite the files instead, then read the diff: a changed
golden file is a changed output (IR, gradient strategy, error message)."""
from __future__ import annotations

import os
import re
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    """`text` equals tests/golden/`name` (rewritten first under PYAD_UPDATE_GOLDEN=1)."""
    path = GOLDEN / name
    if os.environ.get("PYAD_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with PYAD_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def strip_locs(text: str) -> str:
    """Printed IR without its source locations (`!line:col`), so that golden IR does not
    depend on where a test file's lines are."""
    return re.sub(r"  !\d+:\d+", "", text)
