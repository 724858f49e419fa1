"""Frontend, the scipy.special functions numerical code calls, for numbers and arrays:

- elementwise rows of the op table under scipy's names (`ROWS`): `erf`, `erfc`, `gammaln`
  (math.lgamma), `expm1`, `log1p`, and `ndtr(x) = erfc(-x / sqrt(2)) / 2`;
- short algorithms written below in the compiled subset, compiled as a helper of the user's
  would be (like prelude.py's NumPy functions): `expit`, `log_expit`, `logit`, `softplus`,
  `logsumexp(a, axis=None, keepdims=False)`, `softmax(x, axis=None)`, `log_softmax(x,
  axis=None)`, `xlogy`, `xlog1py`, `entr`, `rel_entr`, each with scipy's formula (softmax and
  log_softmax the same ops in the same order). The gradient of `xlogy(x, y)`
  is `log(y)`, `x / y` (JAX's), also at x = 0; `entr` and `rel_entr` at the boundary x = 0,
  where the one-sided derivative is infinite, have gradient 0 (the branch taken is the
  constant 0). Arguments scipy has and these do
  not (`logsumexp`'s `b` and `return_sign`) are refused at the call ("unexpected keyword").

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


def logit(x):
    return np.log(x / (1.0 - x))


def softplus(x):
    return np.logaddexp(0.0, x)


def logsumexp(a, axis=None, keepdims=False):
    return np.logaddexp.reduce(a, axis=axis, keepdims=keepdims)


def softmax(x, axis=None):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    m = np.max(x, axis=axis, keepdims=True)
    t = x - np.where(np.isfinite(m), m, 0.0)   # a lane of -inf: -inf, not nan (scipy's)
    return t - np.log(np.sum(np.exp(t), axis=axis, keepdims=True))


def xlogy(x, y):   # 0 at x == 0 even where y == 0; the gradient log(y), x / y (as JAX's)
    return x * np.log(np.where((x == 0.0) & (y == 0.0), 1.0, y))


def xlog1py(x, y):
    return x * np.log1p(np.where((x == 0.0) & (y == -1.0), 0.0, y))


def entr(x):
    return np.where(x > 0.0, -x * np.log(x), np.where(x == 0.0, 0.0, -np.inf))


def rel_entr(x, y):
    return np.where((x > 0.0) & (y > 0.0), x * np.log(x / y),
                    np.where((x == 0.0) & (y >= 0.0), 0.0, np.inf))
