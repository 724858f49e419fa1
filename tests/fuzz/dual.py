"""Forward-mode dual numbers: the gradient oracle of the differential tester.

A program is executed by CPython with `math` and `numpy` replaced by the shims below, its
float inputs made `Dual`s (a value and a tangent vector, one component per input number) and
its arrays NumPy object arrays of `Dual`s. One run gives the whole gradient. Nothing here
reads pyad: the derivatives are the textbook ones, written again.

Semantics follow CPython and NumPy (comparisons look at values only; `max(a, b)` is CPython's
builtin and `np.maximum` NumPy's, except that at a tie the tangent is the mean of `a`'s and
`b`'s, and `np.max`'s the last maximum's: pyad's documented choices, README
"Differentiation"; a running maximum `m = max(m, v)` in a loop, whose pyad gradient goes to
the last trip attaining it, agrees except at ties); a shim function that is not written
raises `Unsupported`, so that the generator cannot silently test something the oracle does
not model.
"""
from __future__ import annotations

import builtins
import math as _m
import types

import numpy as _np


class Unsupported(Exception):
    """The program uses something the oracle does not model."""


class Dual:
    __slots__ = ("v", "t")

    def __init__(self, v: float, t) -> None:
        self.v = float(v)
        self.t = t

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def lift(x, n: int) -> "Dual":
        return x if isinstance(x, Dual) else Dual(float(x), _np.zeros(n))

    def _other(self, o):
        if isinstance(o, Dual):
            return o
        if isinstance(o, (bool, int, float)):
            return Dual(float(o), 0.0)
        return None

    def __repr__(self) -> str:
        return f"Dual({self.v!r}, {self.t!r})"

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else Dual(self.v + o.v, self.t + o.t)

    __radd__ = __add__

    def __sub__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else Dual(self.v - o.v, self.t - o.t)

    def __rsub__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else Dual(o.v - self.v, o.t - self.t)

    def __mul__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else Dual(self.v * o.v, self.t * o.v + o.t * self.v)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = self._other(o)
        if o is None:
            return NotImplemented
        q = self.v / o.v  # ZeroDivisionError as in CPython
        return Dual(q, (self.t - q * o.t) / o.v)

    def __rtruediv__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else o.__truediv__(self)

    def __pow__(self, o):
        if isinstance(o, int) and not isinstance(o, bool):
            if o == 0:
                return Dual(1.0, self.t * 0.0)
            return Dual(self.v ** o, self.t * (o * self.v ** (o - 1)))
        o = self._other(o)
        if o is None:
            return NotImplemented
        y = self.v ** o.v
        if isinstance(y, complex):
            raise ValueError("negative base to a fractional power")
        dx = o.v * self.v ** (o.v - 1.0) if self.v != 0.0 or o.v >= 1.0 else 0.0
        dy = y * _m.log(self.v) if self.v > 0.0 else 0.0
        return Dual(y, self.t * dx + o.t * dy)

    def __rpow__(self, o):
        o = self._other(o)
        return NotImplemented if o is None else o.__pow__(self)

    def __mod__(self, o):  # float % number: Python's sign rules; slope 1 between the jumps
        if isinstance(o, Dual) or not isinstance(o, (int, float)):
            raise Unsupported("% by a dual number")
        return Dual(self.v % o, self.t)

    def __floordiv__(self, o):  # piecewise constant
        if isinstance(o, Dual) or not isinstance(o, (int, float)):
            raise Unsupported("// by a dual number")
        return Dual(self.v // o, self.t * 0.0)

    def __neg__(self):
        return Dual(-self.v, -self.t)

    def __pos__(self):
        return self

    def __abs__(self):
        return Dual(abs(self.v), self.t * (1.0 if self.v > 0 else -1.0 if self.v < 0 else 0.0))

    # ------------------------------------------------------------------ comparisons: values only
    def _cmpv(self, o):
        return o.v if isinstance(o, Dual) else o

    def __lt__(self, o): return self.v < self._cmpv(o)
    def __le__(self, o): return self.v <= self._cmpv(o)
    def __gt__(self, o): return self.v > self._cmpv(o)
    def __ge__(self, o): return self.v >= self._cmpv(o)
    def __eq__(self, o): return self.v == self._cmpv(o)
    def __ne__(self, o): return self.v != self._cmpv(o)
    __hash__ = None

    def __bool__(self) -> bool:
        return self.v != 0.0

    def __int__(self) -> int:
        return int(self.v)

    def __float__(self) -> float:
        raise Unsupported("float() of a dual number would drop its tangent")


def _unary(f, df):
    """A math function of one number: f on the value, df(v, fv) the derivative."""
    def fn(x):
        if isinstance(x, Dual):
            fv = f(x.v)
            return Dual(fv, x.t * df(x.v, fv))
        return f(x)
    return fn


MATH_RULES = {
    "sin": lambda v, y: _m.cos(v),
    "cos": lambda v, y: -_m.sin(v),
    "tan": lambda v, y: 1.0 + y * y,
    "exp": lambda v, y: y,
    "expm1": lambda v, y: y + 1.0,
    "log": lambda v, y: 1.0 / v,
    "log1p": lambda v, y: 1.0 / (1.0 + v),
    "log2": lambda v, y: 1.0 / (v * _m.log(2.0)),
    "log10": lambda v, y: 1.0 / (v * _m.log(10.0)),
    "sqrt": lambda v, y: 0.5 / y,
    "tanh": lambda v, y: 1.0 - y * y,
    "sinh": lambda v, y: _m.cosh(v),
    "cosh": lambda v, y: _m.sinh(v),
    "atan": lambda v, y: 1.0 / (1.0 + v * v),
    "asinh": lambda v, y: 1.0 / _m.sqrt(v * v + 1.0),
    "asin": lambda v, y: 1.0 / _m.sqrt(1.0 - v * v),
    "acos": lambda v, y: -1.0 / _m.sqrt(1.0 - v * v),
    "erf": lambda v, y: 2.0 / _m.sqrt(_m.pi) * _m.exp(-v * v),
    "erfc": lambda v, y: -2.0 / _m.sqrt(_m.pi) * _m.exp(-v * v),
    "fabs": lambda v, y: 1.0 if v > 0 else -1.0 if v < 0 else 0.0,
}


def _atan2(y, x):
    if not isinstance(y, Dual) and not isinstance(x, Dual):
        return _m.atan2(y, x)
    n = y.t.shape[0] if isinstance(y, Dual) and hasattr(y.t, "shape") else x.t.shape[0]
    y, x = Dual.lift(y, n), Dual.lift(x, n)
    r = x.v * x.v + y.v * y.v
    return Dual(_m.atan2(y.v, x.v), (y.t * x.v - x.t * y.v) / r)


def _hypot(x, y):
    if not isinstance(y, Dual) and not isinstance(x, Dual):
        return _m.hypot(x, y)
    n = x.t.shape[0] if isinstance(x, Dual) and hasattr(x.t, "shape") else y.t.shape[0]
    x, y = Dual.lift(x, n), Dual.lift(y, n)
    h = _m.hypot(x.v, y.v)
    return Dual(h, (x.t * x.v + y.t * y.v) / h)


def _floor(x):
    return _m.floor(x.v if isinstance(x, Dual) else x)


def _ceil(x):
    return _m.ceil(x.v if isinstance(x, Dual) else x)


def make_math() -> types.ModuleType:
    m = types.ModuleType("math")
    for name, d in MATH_RULES.items():
        setattr(m, name, _unary(getattr(_m, name), d))  # CPython's domain errors
    m.atan2, m.hypot, m.floor, m.ceil = _atan2, _hypot, _floor, _ceil
    m.pi, m.e, m.inf, m.tau = _m.pi, _m.e, _m.inf, _m.tau
    return m


# ---------------------------------------------------------------------------- the numpy shim
def _obj(x) -> _np.ndarray:
    return x if isinstance(x, _np.ndarray) else _np.array(x, dtype=object)


def _elementwise(f):
    """f applied element by element to arrays (object arrays of Duals), or to a number."""
    def fn(*xs):
        if any(isinstance(x, _np.ndarray) for x in xs):
            arrays = _np.broadcast_arrays(*[_obj(x) for x in xs])
            out = _np.empty(arrays[0].shape, dtype=object)
            for idx in _np.ndindex(out.shape):
                out[idx] = f(*(a[idx] for a in arrays))
            return out
        return f(*xs)
    return fn


def _zeros(n, dtype=None):
    if dtype not in (None, float):
        raise Unsupported(f"np.zeros dtype {dtype}")
    out = _np.empty(n, dtype=object)
    out.fill(0.0)
    return out


def _full(n, v):
    out = _np.empty(n, dtype=object)
    out.fill(v)
    return out


def _sum(a, axis=None):
    if axis is not None:
        raise Unsupported("np.sum with axis")
    total = 0.0
    for v in _obj(a).ravel():
        total = total + v
    return total


def _mean(a):
    a = _obj(a)
    return _sum(a) / a.size


def _pick(a, better):
    """np.max / np.min: nan if any element is (NumPy); the element taken, for its tangent,
    is the last one attaining the result, the last nan (pyad's ties)."""
    vals = list(_obj(a).ravel())
    best = vals[0]
    for v in vals[1:]:
        if _isnan(v) or not _isnan(best) and (better(v, best) or v == best):
            best = v
    return best


def _isnan(v) -> bool:
    return _m.isnan(v.v if isinstance(v, Dual) else v)


def _dot(a, b):
    a, b = _obj(a), _obj(b)
    if a.ndim != 1 or b.ndim != 1:
        raise Unsupported("np.dot beyond 1-D")
    if a.shape != b.shape:
        raise ValueError("shapes not aligned")
    total = 0.0
    for x, y in zip(a, b):
        total = total + x * y
    return total


def _tie_split(picked, a, b):
    """`picked` (a or b), with the mean of a's and b's tangents where they are equal
    (pyad's ties, as JAX's)."""
    if (isinstance(a, Dual) or isinstance(b, Dual)) and not _isnan(a) and not _isnan(b) \
            and (a.v if isinstance(a, Dual) else a) == (b.v if isinstance(b, Dual) else b):
        ta, tb = (x.t if isinstance(x, Dual) else 0.0 for x in (a, b))
        return Dual(picked.v if isinstance(picked, Dual) else picked, 0.5 * (ta + tb))
    return picked


def _maximum(a, b):  # NumPy: nan propagates
    return _tie_split(b if (_isnan(b) and not _isnan(a)) or b > a else a, a, b)


def _minimum(a, b):
    return _tie_split(b if (_isnan(b) and not _isnan(a)) or b < a else a, a, b)


def _builtin_pick(real, bigger):
    """CPython's max or min, the tangent of a tie the second argument's."""
    def pick(*args, **kw):
        if len(args) != 2 or kw:
            return real(*args, **kw)
        a, b = args
        return _tie_split(b if (b > a if bigger else b < a) else a, a, b)
    return pick


def _where(c, x, y):
    return _elementwise(lambda cc, xx, yy: xx if cc else yy)(c, x, y)


def make_numpy(math_shim: types.ModuleType) -> types.ModuleType:
    np = types.ModuleType("numpy")
    for name, np_name in [("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("exp", "exp"),
                          ("expm1", "expm1"), ("log", "log"), ("log1p", "log1p"),
                          ("sqrt", "sqrt"), ("tanh", "tanh"), ("sinh", "sinh"),
                          ("cosh", "cosh"), ("atan", "arctan"), ("asinh", "arcsinh"),
                          ("fabs", "fabs")]:
        setattr(np, np_name, _elementwise(getattr(math_shim, name)))
    np.abs = np.absolute = _elementwise(abs)
    np.arctan2 = _elementwise(math_shim.atan2)
    np.hypot = _elementwise(math_shim.hypot)
    np.maximum = _elementwise(_maximum)
    np.minimum = _elementwise(_minimum)
    np.where = _where
    np.zeros = _zeros
    np.ones = lambda n: _full(n, 1.0)
    np.full = _full
    np.zeros_like = lambda a: _zeros(_obj(a).shape)
    np.ones_like = lambda a: _full(_obj(a).shape, 1.0)
    np.sum, np.mean, np.dot = _sum, _mean, _dot
    np.max = np.amax = lambda a: _pick(a, lambda v, b: v > b)
    np.min = np.amin = lambda a: _pick(a, lambda v, b: v < b)
    np.pi, np.e, np.inf = _m.pi, _m.e, _m.inf

    def __getattr__(name):
        raise Unsupported(f"numpy.{name} is not modelled by the dual-number oracle")
    np.__getattr__ = __getattr__
    return np


def namespace() -> dict:
    """Globals for executing a program's source with the shims in place of math and numpy."""
    math_shim = make_math()
    np_shim = make_numpy(math_shim)
    real_import = builtins.__import__

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "math":
            return math_shim
        if name == "numpy":
            return np_shim
        return real_import(name, globals, locals, fromlist, level)

    b = dict(builtins.__dict__)
    b["__import__"] = _import
    b["max"] = _builtin_pick(builtins.max, True)
    b["min"] = _builtin_pick(builtins.min, False)
    return {"__builtins__": b, "__name__": "fuzz_dual"}
