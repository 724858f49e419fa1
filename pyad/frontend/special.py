"""Frontend, the scipy.special functions numerical code calls, for numbers and arrays:

- elementwise rows of the op table under scipy's names (`ROWS`): `erf`, `erfc`, `gammaln`
  (math.lgamma), `expm1`, `log1p`, and `ndtr(x) = erfc(-x / sqrt(2)) / 2`;
- short algorithms written below in the compiled subset, compiled as a helper of the user's
  would be (like prelude.py's NumPy functions): `expit`, `log_expit`, `logit`, `softplus`,
  `logsumexp(a, axis=None, b=None, keepdims=False)`, `softmax(x, axis=None)`, `log_softmax(x,
  axis=None)`, `xlogy`, `xlog1py`, `entr`, `rel_entr`, with scipy's formulas and its values
  at the edges (`logit(1)` is inf, `xlogy(0, y)` is 0 unless y is nan, nan stays nan), but
  no division where scipy divides (a division of numbers raises ZeroDivisionError here, as
  in Python). The gradient of `xlogy(x, y)` is `log(y)`, `x / y` (JAX's), also at x = 0;
  `entr` and `rel_entr` at the boundary x = 0, where the one-sided derivative is infinite,
  have gradient 0 (the branch taken is the constant 0). `logsumexp`'s `return_sign` is
  refused at the call ("unexpected keyword"); an error inside these names the user's call.

A function is recognised as scipy's by identity with the module's attribute when the user's
code has imported scipy.special (pyad never imports scipy)."""
from __future__ import annotations

import ast
import sys
from typing import Any

import numpy as np

from ..errors import PyadTypeError
from ..ir.nodes import F64, Var

#: scipy name -> the op-table spelling applied element by element (with a factor)
ROWS = {"erf": "math.erf", "erfc": "math.erfc", "gammaln": "math.lgamma",
        "expm1": "math.expm1", "log1p": "math.log1p", "ndtr": "math.erfc"}
#: ndtr(x) = 0.5 * erfc(x * -1/sqrt(2)): (scale of the argument, factor of the result)
SCALED = {"ndtr": (-0.7071067811865476, 0.5)}
#: the functions below
NAMES = ("expit", "log_expit", "logit", "softplus", "logsumexp", "softmax", "log_softmax",
         "xlogy", "xlog1py", "entr", "rel_entr")


def name_of(obj: Any) -> str | None:
    """`obj`'s name in scipy.special when it is that module's function of the name and pyad
    has it (ROWS or NAMES), else None."""
    module = sys.modules.get("scipy.special")
    name = getattr(obj, "__name__", None)
    if module is None or name is None or getattr(module, name, None) is not obj:
        return None
    return name if name in ROWS or name in NAMES else None


def row_call(lw, name: str, node: ast.Call):
    """scipy.special.<name>(x) of a row of the op table (ROWS), element by element: a
    number for a number."""
    ctx = lw.ctx
    if node.keywords or len(node.args) != 1:
        raise ctx.error(node, f"scipy.special.{name} takes one argument here",
                        cls=PyadTypeError)
    scale, factor = SCALED.get(name, (None, None))

    def one(x: Var) -> Var:
        b = ctx.b   # the builder of the element loop (or of elementwise's probe)
        if scale is not None:
            x = b.mul(ctx.convert(x, F64), b.const(scale))
        y = lw.functions.apply(ROWS[name], [x], node)
        return y if factor is None else b.mul(b.const(factor), y)
    return lw.arrayops.elementwise(one, [lw.exprs.expr(node.args[0])], node)


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def log_expit(x):
    return -np.logaddexp(0.0, -x)


def logit(x):   # log(x) - log1p(-x): inf at 1 (no division); scipy's 2 atanh(2x - 1) near 1/2
    return np.where((x < 0.3) | (x > 0.65), np.log(x) - np.log1p(-x),
                    2.0 * np.arctanh(2.0 * x - 1.0))


def softplus(x):
    return np.logaddexp(0.0, x)


def logsumexp(a, axis=None, b=None, keepdims=False):
    if b is None:
        return np.logaddexp.reduce(a, axis=axis, keepdims=keepdims)
    m = np.max(a, axis=axis, keepdims=True)   # scipy's: the weights inside the sum
    m = np.where(np.isfinite(m), m, 0.0)
    s = np.sum(b * np.exp(a - m), axis=axis, keepdims=keepdims)
    top = np.max(a, axis=axis, keepdims=keepdims)
    return np.log(s) + np.where(np.isfinite(top), top, 0.0)


def softmax(x, axis=None):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    m = np.max(x, axis=axis, keepdims=True)
    t = x - np.where(np.isfinite(m), m, 0.0)   # a lane of -inf: -inf, not nan (scipy's)
    return t - np.log(np.sum(np.exp(t), axis=axis, keepdims=True))


def xlogy(x, y):   # 0 at x == 0 unless y is nan; the gradient log(y), x / y (JAX's)
    return x * np.log(np.where((x == 0.0) & ((y <= 0.0) | (y == np.inf)), 1.0, y))


def xlog1py(x, y):
    return x * np.log1p(np.where((x == 0.0) & ((y <= -1.0) | (y == np.inf)), 0.0, y))


def entr(x):   # nan stays nan (the last where)
    return np.where(x > 0.0, -x * np.log(x),
                    np.where(x == 0.0, 0.0, np.where(x < 0.0, -np.inf, x)))


def rel_entr(x, y):   # x (log x - log y): no division (inf at y = 0)
    return np.where((x > 0.0) & (y > 0.0), x * (np.log(x) - np.log(y)),
                    np.where((x == 0.0) & (y >= 0.0), 0.0,
                             np.where((x == x) & (y == y), np.inf, x + y)))
