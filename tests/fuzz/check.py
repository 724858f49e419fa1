"""Run one program through CPython (the value), CPython with dual numbers (the gradient),
central finite differences (a check of the dual-number oracle itself) and pyad, and say
how they compare.

Outcomes:
- "ok": pyad's primal, value_and_grad and pullback agree with the oracles;
- "skip": the oracles disagree with each other (a kink or jump within the finite-difference
  step, cancellation) or the program leaves the ranges where a comparison means something
  (a huge or non-finite value): not a verdict on pyad;
- "wrong value", "wrong gradient": pyad disagrees with an oracle that agrees with itself;
- "refused": pyad refused a program of its documented subset (a PyadError);
- "internal error": anything else pyad raised.
A crash of the process is seen by the caller (`tests/fuzz/__main__.py` runs programs in
child processes).
"""
from __future__ import annotations

import importlib.util
import itertools
import math
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import dual

VALUE_RTOL = 1e-9       # pyad vs CPython: strict IEEE, but NumPy sums pairwise
GRAD_RTOL = 1e-7        # pyad vs dual numbers (both exact up to rounding)
FD_RTOL = 2e-4          # finite differences vs dual numbers (truncation error)
FD_STEP = 1e-6
LIMIT = 1e6             # values or gradients above this are not compared (skip)

_counter = itertools.count()
_tmp = Path(tempfile.mkdtemp(prefix="pyad-fuzz-"))


@dataclass
class Outcome:
    kind: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "skip")


def load(source: str):
    """The program as a real module (pyad reads functions' source from their file)."""
    name = f"fuzzprog{next(_counter)}"
    path = _tmp / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _flat(args) -> list[float]:
    """The numbers gradients are taken with respect to: float args, float array elements."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out += [float(v) for v in a.ravel()]
        elif isinstance(a, float):
            out.append(a)
    return out


def _with(args, flat):
    it = iter(flat)
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(np.array([next(it) for _ in range(a.size)]).reshape(a.shape))
        elif isinstance(a, float):
            out.append(next(it))
        else:
            out.append(a)
    return tuple(out)


def dual_gradient(source: str, args) -> tuple[float, np.ndarray]:
    """Value and gradient by forward mode: one run with a tangent per input number."""
    ns = dual.namespace()
    exec(compile(source, "<fuzz-dual>", "exec"), ns)
    n = len(_flat(args))
    k = itertools.count()

    def seed(v):
        t = np.zeros(n)
        t[next(k)] = 1.0
        return dual.Dual(v, t)

    dargs = []
    for a in args:
        if isinstance(a, np.ndarray):
            arr = np.empty(a.shape, dtype=object)
            for i in np.ndindex(a.shape):
                arr[i] = seed(float(a[i]))
            dargs.append(arr)
        elif isinstance(a, float):
            dargs.append(seed(a))
        else:
            dargs.append(a)
    y = ns["f"](*dargs)
    if isinstance(y, dual.Dual):
        g = y.t if isinstance(y.t, np.ndarray) else np.zeros(n)
        return y.v, np.asarray(g, dtype=float) + np.zeros(n)
    return float(y), np.zeros(n)


def fd_gradient(fn, args) -> np.ndarray:
    flat = _flat(args)
    g = np.zeros(len(flat))
    for i, v in enumerate(flat):
        h = FD_STEP * max(1.0, abs(v))
        up, dn = list(flat), list(flat)
        up[i], dn[i] = v + h, v - h
        g[i] = (float(fn(*_with(args, up))) - float(fn(*_with(args, dn)))) / (2 * h)
    return g


def _close(a, b, rtol: float) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(both_nan | (np.abs(a - b) <= rtol * scale)))


def _pyad_grad(args, grads) -> np.ndarray:
    out = []
    for a, g in zip(args, grads):
        if isinstance(a, np.ndarray):
            out += list(np.asarray(g, float).ravel())
        elif isinstance(a, float):
            out.append(float(g))
    return np.array(out)


def run(source: str, args) -> Outcome:
    import pyad
    from pyad.errors import PyadError, PyadInternalError
    try:
        mod = load(source)
    except Exception as exc:  # the generator wrote invalid Python: a tester bug
        return Outcome("generator error", f"{type(exc).__name__}: {exc}")
    try:
        with np.errstate(all="raise"):
            want = float(mod.f(*args))
    except (ArithmeticError, ValueError, FloatingPointError, RecursionError) as exc:
        return Outcome("skip", f"CPython raised {type(exc).__name__}: {exc}")
    except Exception as exc:  # NameError, TypeError, ...: the generator left the subset
        return Outcome("generator error", f"CPython raised {type(exc).__name__}: {exc}")
    if not math.isfinite(want) or abs(want) > LIMIT:
        return Outcome("skip", f"value {want}")
    try:
        dv, dg = dual_gradient(source, args)
    except dual.Unsupported as exc:
        return Outcome("generator error", f"oracle: {exc}")
    except (ArithmeticError, ValueError) as exc:
        return Outcome("skip", f"dual numbers raised {type(exc).__name__}: {exc}")
    if not np.all(np.isfinite(dg)) or np.max(np.abs(dg), initial=0.0) > LIMIT:
        return Outcome("skip", f"gradient {dg}")
    try:
        with np.errstate(all="raise"):
            fd = fd_gradient(mod.f, args)
    except (ArithmeticError, ValueError, FloatingPointError) as exc:
        return Outcome("skip", f"finite differences raised {type(exc).__name__}")
    if not _close(dv, want, VALUE_RTOL):
        return Outcome("generator error", f"oracle value {dv} != CPython {want}")
    if not _close(fd, dg, FD_RTOL):
        return Outcome("skip", "not smooth here: finite differences disagree with the duals")

    try:
        f = pyad.jit_grad(mod.f, argnums="all")
        got = float(f(*args))
        value, grads = f.value_and_grad(*args)
        pb_value, back = f.pullback(*args)
        pb_grads = back(1.0)
    except PyadInternalError as exc:
        return Outcome("internal error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-4)}")
    except PyadError as exc:
        return Outcome("refused", f"{type(exc).__name__}: {exc}")
    except Exception as exc:
        tb = traceback.format_exc(limit=-4)
        return Outcome("internal error", f"{type(exc).__name__}: {exc}\n{tb}")
    for label, v in (("f", got), ("value_and_grad", value), ("pullback", pb_value)):
        if not _close(v, want, VALUE_RTOL):
            return Outcome("wrong value", f"{label}: pyad {v!r}, CPython {want!r}")
    for label, gs in (("value_and_grad", grads), ("pullback", pb_grads)):
        g = _pyad_grad(args, gs)
        if not _close(g, dg, GRAD_RTOL):
            return Outcome("wrong gradient",
                           f"{label}: pyad {np.array2string(g, precision=6)}, "
                           f"duals {np.array2string(dg, precision=6)}, "
                           f"finite differences {np.array2string(fd, precision=6)}")
    return Outcome("ok")
