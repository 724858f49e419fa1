"""Builds bench/c/*.c into one shared library with the system C compiler, once per content.

The library name carries a hash of the sources, the flags and the compiler's version, so a
change to any of them rebuilds; builds land in bench/.build/ (or the directory given)."""
import ctypes
import hashlib
import os
import subprocess
from pathlib import Path

SOURCES = Path(__file__).parent / "c"
BUILD_DIR = Path(__file__).parent / ".build"
# Strict IEEE like pyad's default (no FMA contraction), otherwise the best the compiler does.
FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-shared", "-fPIC"]


def compiler() -> str:
    return os.environ.get("CC", "cc")


def _key(sources: list[Path]) -> str:
    h = hashlib.sha256()
    version = subprocess.run([compiler(), "--version"], capture_output=True, text=True).stdout
    h.update(version.encode())
    h.update(" ".join(FLAGS).encode())
    for src in sources:
        h.update(src.name.encode())
        h.update(src.read_bytes())
    return h.hexdigest()[:16]


def build(out_dir: Path = BUILD_DIR) -> Path:
    """The path of the shared library, compiling it if this content was never built."""
    sources = sorted(SOURCES.glob("*.c"))
    lib = out_dir / f"libbench-{_key(sources)}.so"
    if not lib.exists():
        out_dir.mkdir(parents=True, exist_ok=True)
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        cmd = [compiler(), *FLAGS, "-o", str(tmp), *map(str, sources), "-lm"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {result.stderr.strip()}")
        tmp.replace(lib)
    return lib


def load(out_dir: Path = BUILD_DIR) -> ctypes.CDLL:
    """The built library, loaded with ctypes."""
    return ctypes.CDLL(str(build(out_dir)))
