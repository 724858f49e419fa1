"""Reference semantics of the scalar primitives: what the op table's `py` functions compute.

The interpreter must compute what native code computes: IEEE results (nan, inf) where
CPython's math module would raise, and 64-bit wrap-around for integers. `pyad/ir/ops.py` names
these functions in its rows."""
from __future__ import annotations

import math
from typing import Callable


def wrap(i: int) -> int:
    return (i + 2**63) % 2**64 - 2**63


def ieee(fn: Callable) -> Callable:
    def run(*xs):
        try:
            return float(fn(*xs))
        except (ValueError, OverflowError):
            import numpy as np  # only on the error path: keeps `import pyad` fast
            with np.errstate(all="ignore"):
                return float(getattr(np, NP_FALLBACK[fn.__name__])(*map(np.float64, xs)))
    return run


NP_FALLBACK = {
    "exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "expm1": "expm1", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
    "pow": "power", "hypot": "hypot", "atan2": "arctan2",
}


def lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def true_div(a: float, b: float) -> float:
    if b == 0.0:
        raise ZeroDivisionError("float division by zero")
    return a / b


def ieee_div(a: float, b: float) -> float:
    if b == 0.0:
        import numpy as np
        with np.errstate(all="ignore"):
            return float(np.float64(a) / np.float64(b))
    return a / b


def floordiv(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return wrap(a // b) if isinstance(a, int) else a // b


def mod(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a % b


OVERFLOW = "integer overflow: the result does not fit in 64 bits (use floats for larger numbers)"


def imul(a: int, b: int) -> int:
    """a * b of ints, OverflowError outside the 64-bit range (CPython's ints do not wrap)."""
    r = a * b
    if not -2**63 <= r < 2**63:
        raise OverflowError(OVERFLOW)
    return r


def ipow(a: int, b: int) -> int:
    if b < 0:
        raise ValueError("negative integer exponent")
    r = a ** b if abs(a) < 2 or b < 64 else 2**64   # |a| >= 2: 2**64 and more overflow
    if not -2**63 <= r < 2**63:
        raise OverflowError(OVERFLOW)
    return r


def toint(x) -> int:
    if isinstance(x, float) and math.isnan(x):
        raise ValueError("cannot convert float NaN to integer")
    if isinstance(x, float) and not (-2.0**63 <= x < 2.0**63):
        raise OverflowError("float too large to convert to a 64-bit integer")
    return int(x)


def cbrt(x: float) -> float:
    return math.cbrt(x)


def fmaximum(a: float, b: float) -> float:
    """NumPy's maximum of two floats as LLVM's `llvm.maximum` computes it: nan if either is
    nan, else the larger, +0.0 counting as larger than -0.0."""
    if a != a or b != b:
        return a if a != a else b
    if a == b:
        return a if math.copysign(1.0, a) > 0.0 else b
    return a if a > b else b


def fminimum(a: float, b: float) -> float:
    """NumPy's minimum of two floats as LLVM's `llvm.minimum` computes it: nan if either is
    nan, else the smaller, -0.0 counting as smaller than +0.0."""
    if a != a or b != b:
        return a if a != a else b
    if a == b:
        return a if math.copysign(1.0, a) < 0.0 else b
    return a if a < b else b


def pyfloat_floor(x: float) -> float:
    return float(math.floor(x)) if math.isfinite(x) else x


def pyfloat_rint(x: float) -> float:
    """x rounded to the nearest integer, ties to even (Python's round, NumPy's rint)."""
    return float(round(x)) if math.isfinite(x) else x


def pyfloat_ceil(x: float) -> float:
    return float(math.ceil(x)) if math.isfinite(x) else x


def digamma(x: float) -> float:
    """psi(x) = d/dx lgamma(x); the same algorithm as pyad_digamma in the C runtime."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    result = 0.0
    if x < 0.0:  # reflection: psi(1-x) - psi(x) = pi / tan(pi x)
        result -= math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (
        1.0 / 132 - f * (691.0 / 32760 - f / 12.0))))))
    return result + math.log(x) - 0.5 / x - series
