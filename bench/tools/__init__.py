"""The tools the benchmark compares, one module each (`bench/tools/<name>_tool.py`).

Every tool module exposes `version() -> str` and `bind(workload, args, cache=False) -> Bound`;
importing it imports the tool's library, so a missing peer raises ImportError there."""
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import numpy as np

# In table order: pyad first, then its peers, then the references.
TOOL_NAMES = ("pyad", "pyad_array", "numba", "jax", "autograd", "torch", "c", "python")

# What the table calls each tool, and its colour in the chart (bench/chart.py).
LABELS = {"pyad": "pyad", "pyad_array": "pyad (array style)", "numba": "Numba (primal)",
          "jax": "JAX jit", "autograd": "autograd", "torch": "PyTorch eager",
          "c": "C -O3 (hand)", "python": "CPython (primal)"}
COLORS = {"pyad": "#d62728", "pyad_array": "#ff9896", "numba": "#7f7f7f", "jax": "#1f77b4",
          "autograd": "#2ca02c", "torch": "#ff7f0e", "c": "#000000", "python": "#bcbd22"}


class NotApplicable(Exception):
    """The tool has no version of this workload (e.g. hand-written C for W2)."""


class CacheUnsupported(Exception):
    """The tool has no on-disk compilation cache (or this version does not expose one)."""


@dataclass
class Bound:
    """One tool bound to one workload and its arguments.

    `primal()` and `vgrad()` run one call each (the timed callables, synchronous: results are
    ready when they return); `unpack(vgrad())` gives (value, gradients of the `wrt`
    arguments as floats or float64 arrays, in order). `tape_bytes()` is pyad's tape size."""

    primal: Callable[[], Any]
    vgrad: Callable[[], Any] | None = None
    unpack: Callable[[Any], tuple[float, tuple]] | None = None
    tape_bytes: Callable[[], int] | None = None


def load(name: str) -> ModuleType:
    """The tool module `name`; ImportError (with the reason) when its library is missing."""
    if name not in TOOL_NAMES:
        raise ValueError(f"unknown tool {name!r} (known: {', '.join(TOOL_NAMES)})")
    return importlib.import_module(f"bench.tools.{name}_tool")


def as_numpy(grads: tuple) -> tuple:
    """Gradients as Python floats (0-d) or float64 NumPy arrays."""
    out = []
    for g in grads:
        a = np.asarray(g, dtype=np.float64)
        out.append(float(a) if a.ndim == 0 else a.copy())
    return tuple(out)
