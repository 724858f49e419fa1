"""What the `pyad compile` tests share: the repository's C example (examples/c), the C
toolchain (a compiler and binutils; the tests skip without them), running the command as a
subprocess, compiling C and reading a library's symbols."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "c"
CC = shutil.which(os.environ.get("CC", "cc"))
CXX = shutil.which("c++")
NM = shutil.which("nm")

requires_toolchain = pytest.mark.skipif(CC is None or shutil.which("objcopy") is None,
                                        reason="needs a C compiler and binutils")


def pyad_compile(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyad", "compile", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def example_args() -> list[str]:
    lines = (EXAMPLE / "springs.args").read_text().splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


def cc(*args: str) -> None:
    proc = subprocess.run([CC, *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def nm(*args: str) -> list[tuple[str, str]]:
    out = subprocess.run([NM, *args], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[-2]) == 1:
            rows.append((parts[-2], parts[-1]))
    return rows


