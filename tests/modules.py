"""Test programs written to files and imported (pyad reads a function's source from its
file, so generated programs must be real modules)."""
import importlib.util
from pathlib import Path

import pytest

import pyad


def load_module(path: Path, source: str):
    """Write `source` to `path` and import it as a module named after the file. Bytecode
    cached for an earlier text of the file is deleted first: Python checks it by the file's
    size and mtime in seconds, so a rewrite of the same length within a second would run the
    old code (which pyad then refuses as a changed source)."""
    Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def assert_refused(tmp_path: Path, params: str, expr: str, args: tuple, message: str) -> None:
    """`def f(params): return expr` is refused at compile time with a PyadError matching
    `message`, located at the return statement."""
    with pytest.raises(pyad.PyadError, match=message) as info:
        pyad.jit_grad(returning(tmp_path, params, expr))(*args)
    assert info.value.line == 5, info.value


def returning(tmp_path: Path, params: str, expr: str):
    """`def f(params): return expr` in a module of its own (numpy imported as np); the
    return statement is line 5 of its file."""
    src = f"import numpy as np\n\n\ndef f({params}):\n    return {expr}\n"
    return load_module(tmp_path / "returning.py", src).f
