"""Test programs written to files and imported (pyad reads a function's source from its
file, so generated programs must be real modules)."""
import importlib.util
from pathlib import Path


def load_module(path: Path, source: str):
    """Write `source` to `path` and import it as a module named after the file."""
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
