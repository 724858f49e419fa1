"""Every Python spelling of every op row (`OpDef.spell`), checked automatically:

- each `math.*` and `builtins.*` spelling on numbers: value against CPython, gradient against
  finite differences (and the interpreter, through `check_against_python`);
- each `numpy.*` spelling on arrays: values against NumPy, and the gradient of their sum
  against finite differences;
- the README's and docs/arrays.md's lists of supported functions are generated from the
  table (`pyad.frontend.functions.supported_functions()`): they must match it. Regenerate
  them with `PYAD_UPDATE_GOLDEN=1 pytest tests/ir/test_spellings.py`.
"""
from __future__ import annotations

import importlib.util
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.frontend.functions import spelling_form, supported_functions
from pyad.ir.ops import OPS

from ..gradients import check_against_python

ROOT = Path(__file__).resolve().parents[2]


def _spellings(module: str) -> list[tuple[str, object]]:
    return [(s, row) for row in OPS.values() for s in row.spell
            if s.partition(".")[0] == module]


def _arity(row) -> int:
    return len(next(iter(row.sigs)))


def _call_forms(spelling: str, row) -> list[int]:
    """The argument counts to try for a spelling (its forms take several)."""
    form = spelling_form(spelling)
    if form == "fold":
        return [2, 3]
    if form == "hypot":
        return [1, 2, 3]
    if form == "log_base":
        return [1, 2]
    return [_arity(row)]


def _samples(row, n: int) -> list[tuple]:
    """Sample arguments for `n` parameters, from the row's samples (or defaults)."""
    base = list(row.samples) or [(1.5, -2.25), (-3.0, 0.5)]
    out = []
    for s in base:
        s = tuple(s) + (0.75, 1.25, 2.5)[:max(0, n - len(s))]
        out.append(s[:n])
    return out


@pytest.fixture(scope="module")
def spelled(tmp_path_factory):
    """A module with one function per spelling and argument count (pyad reads source)."""
    lines = ["import builtins", "import math", "import numpy as np", ""]
    for module in ("math", "builtins"):
        for spelling, row in _spellings(module):
            for n in _call_forms(spelling, row) if _exists(spelling) else []:
                params = ", ".join(f"x{i}" for i in range(n))
                lines += [f"def {_fname(spelling, n)}({params}):",
                          f"    return {spelling}({params})", ""]
    for spelling, row in _spellings("numpy"):
        n, name = _arity(row), spelling.partition(".")[2]
        params = ", ".join(f"x{i}" for i in range(n))
        lines += [f"def {_fname(spelling, n)}({params}):",
                  f"    return np.{name}({params})", "",
                  f"def {_fname(spelling, n)}_sum({params}):",
                  f"    return np.sum(np.{name}({params}))", ""]
    path = tmp_path_factory.mktemp("spellings") / "spelled.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("spelled", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fname(spelling: str, n: int) -> str:
    return spelling.replace(".", "_") + f"_{n}"


def _exists(spelling: str) -> bool:
    """Whether a spelling exists on this Python (math.cbrt: 3.11+)."""
    module, _, name = spelling.partition(".")
    return module != "math" or hasattr(math, name)


SCALAR = [(s, row, n) for m in ("math", "builtins") for s, row in _spellings(m)
          for n in _call_forms(s, row) if _exists(s)]
ARRAY = [(s, row) for s, row in _spellings("numpy")]


@pytest.mark.parametrize("spelling,row,n", SCALAR, ids=[f"{s}-{n}" for s, _, n in SCALAR])
def test_scalar_spelling(spelling, row, n, spelled):
    fn = getattr(spelled, _fname(spelling, n))
    for args in _samples(row, n):
        if isinstance(fn(*args), float):
            check_against_python(fn, *args, rtol=1e-13)
        else:  # int(x), bool(x), math.floor(x): nothing to differentiate
            got, want = pyad.jit_grad(fn)(*args), fn(*args)
            assert type(got) is type(want) and got == want, args


@pytest.mark.parametrize("spelling,row", ARRAY, ids=[s for s, _ in ARRAY])
def test_numpy_spelling_on_arrays(spelling, row, spelled):
    n = _arity(row)
    samples = _samples(row, n)
    args = [np.array([s[i] for s in samples]) for i in range(n)]
    f = pyad.jit_grad(getattr(spelled, _fname(spelling, n)))
    want = getattr(np, spelling.partition(".")[2])(*args)
    got = f(*args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13)
    check_against_python(getattr(spelled, _fname(spelling, n) + "_sum"), *args, rtol=1e-13)


def test_numpy_spelling_of_numbers_is_a_number(spelled):
    f = pyad.jit_grad(spelled.numpy_arctanh_1)
    assert f(0.5) == pytest.approx(math.atanh(0.5), rel=1e-15)
    assert f.grad(0.5) == pytest.approx(1 / (1 - 0.25), rel=1e-14)


def test_cbrt_at_zero_and_below():
    if not hasattr(math, "cbrt"):
        pytest.skip("math.cbrt needs Python 3.11")
    f = pyad.jit_grad(_cbrt_sum)
    assert f(-8.0) == pytest.approx(-2.0, rel=1e-15)
    assert f.grad(-8.0) == pytest.approx(1 / 12, rel=1e-14)
    assert f.grad(0.0) == math.inf   # the tangent is vertical at 0


def _cbrt_sum(x):
    return math.cbrt(x)


# ----------------------------------------------------------------------------- docs

def render(module: str) -> str:
    """The markdown list of a module's supported functions."""
    names = supported_functions()[module]
    prefix = {"builtins": "", "math": "", "numpy": "np."}[module]
    items = ", ".join(re.sub(r"^(\S+)", lambda m: f"`{prefix}{m.group(1)}`", n) for n in names)
    title = {"builtins": "Builtins", "math": "`math`",
             "numpy": "NumPy, elementwise on arrays and numbers"}[module]
    return f"- {title}: {items}."


def _wrap(text: str, width: int = 96) -> str:
    """`text` wrapped at spaces, continuation lines indented by two (a list item)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = "  " + word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


DOC_BLOCKS = [("README.md", "scalar-functions", ("builtins", "math")),
              ("README.md", "numpy-functions", ("numpy",)),
              ("docs/arrays.md", "numpy-functions", ("numpy",))]


@pytest.mark.parametrize("path,marker,modules", DOC_BLOCKS,
                         ids=[f"{p}:{m}" for p, m, _ in DOC_BLOCKS])
def test_docs_list_the_table(path, marker, modules):
    file = ROOT / path
    text = file.read_text()
    begin, end = f"<!-- begin {marker}: generated from the op table -->", f"<!-- end {marker} -->"
    pattern = re.compile(re.escape(begin) + r"\n(.*?)" + re.escape(end), re.S)
    assert pattern.search(text), f"{path} has no {begin} ... {end} block"
    want = "".join(_wrap(render(m)) + "\n" for m in modules)
    if os.environ.get("PYAD_UPDATE_GOLDEN"):
        text = pattern.sub(lambda _: f"{begin}\n{want}{end}", text)
        file.write_text(text)
    assert pattern.search(text).group(1) == want, \
        f"{path} disagrees with the op table; run PYAD_UPDATE_GOLDEN=1 pytest {__file__}"
