"""Gradient errors against central finite differences on a few coordinates.

The reference is the NumPy spelling of the array-style function (an implementation independent
of every tool's), differentiated with the fourth-order central formula
(8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h, h = STEP max(1, |x_i|). The error of a
gradient is max_i |g_i - fd_i| / max(|fd_i|, 1e-6 max_j |fd_j|) over the sampled coordinates."""
from dataclasses import dataclass

import numpy as np

from bench.workloads import Workload
from bench.xp import NumpyLike

NUMPY = NumpyLike(np)
PER_ARRAY = 3  # coordinates sampled from each differentiated array
STEP = 3e-4  # relative finite-difference step


@dataclass(frozen=True)
class Coordinate:
    """Argument position `arg` and, for an array, the flat element index."""

    arg: int
    flat: int | None


def reference(w: Workload, args: tuple) -> float:
    """The NumPy array-style value at `args`."""
    return float(w.array(NUMPY, *args))


def coordinates(w: Workload, args: tuple) -> list[Coordinate]:
    """Every differentiated scalar, and PER_ARRAY random elements of each differentiated array
    (the first and last element among them)."""
    rng = np.random.default_rng(1)
    out = []
    for i in w.wrt:
        a = args[i]
        if isinstance(a, np.ndarray):
            picks = {0, a.size - 1} | set(rng.integers(0, a.size, PER_ARRAY).tolist())
            out.extend(Coordinate(i, int(k)) for k in sorted(picks)[:PER_ARRAY + 2])
        else:
            out.append(Coordinate(i, None))
    return out


def _shifted(args: tuple, c: Coordinate, delta: float) -> tuple:
    moved = list(args)
    if c.flat is None:
        moved[c.arg] = args[c.arg] + delta
    else:
        a = args[c.arg].copy()
        a.flat[c.flat] += delta
        moved[c.arg] = a
    return tuple(moved)


def _value_at(args: tuple, c: Coordinate) -> float:
    return float(args[c.arg] if c.flat is None else args[c.arg].flat[c.flat])


def finite_differences(w: Workload, args: tuple, coords: list[Coordinate]) -> np.ndarray:
    """The fourth-order central difference quotient at each coordinate."""
    out = []
    for c in coords:
        h = STEP * max(1.0, abs(_value_at(args, c)))
        f = {k: reference(w, _shifted(args, c, k * h)) for k in (-2, -1, 1, 2)}
        out.append((8.0 * (f[1] - f[-1]) - (f[2] - f[-2])) / (12.0 * h))
    return np.array(out)


def pick(grads: tuple, w: Workload, coords: list[Coordinate]) -> np.ndarray:
    """The entries of a gradient tuple (in `w.wrt` order) at the coordinates."""
    by_arg = dict(zip(w.wrt, grads))
    return np.array([float(by_arg[c.arg]) if c.flat is None
                     else float(np.asarray(by_arg[c.arg]).flat[c.flat]) for c in coords])


def max_rel_error(g: np.ndarray, fd: np.ndarray) -> float:
    floor = 1e-6 * float(np.max(np.abs(fd))) if fd.size else 0.0
    denom = np.maximum(np.abs(fd), max(floor, np.finfo(float).tiny))
    return float(np.max(np.abs(g - fd) / denom)) if fd.size else 0.0
