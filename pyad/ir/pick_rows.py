"""The op-table rows of the picks: Python's `max` and `min`, NumPy's `maximum` and `minimum`
(pyad/ir/ops.py holds the table). A pick's cotangent goes to the argument that wins, half to
each on a tie (`adjoint`, as JAX and PyTorch split ties: `np.maximum(z, 0) +
np.log1p(np.exp(-abs(z)))`, the softplus, then has the derivative 1/2 at z = 0, and `max(a,
b) + min(a, b)` the derivatives (1, 1) of a + b); in a running extreme `c = max(c, v)` that
the loop uses for nothing else, to the second argument on a tie (`chain_adjoint`: the last
trip attaining the extreme takes it, so the reverse sweep may read the loop's final c
instead of taping each trip's, pyad/ad/plan.py `_finals`).

NumPy's maximum and minimum of floats (functions.py, form "nan_arith") are one instruction
sequence that loops vectorize as reductions (np.max(a, axis) of a row), where max and a nan
test did not; their value is nan where either argument is, and the cotangent then goes to
the second argument if it is nan."""
from __future__ import annotations

from .nodes import BOOL
from .opdef import ARITH, FF_F, OpDef
from .semantics import fmaximum, fminimum


def _to_second(b, ct, second) -> tuple:
    """All to the second argument where `second`, else all to the first."""
    return b.select(second, b.const(0.0), ct), b.select(second, ct, b.const(0.0))


def _split(b, ct, second, x1, x2) -> tuple:
    """All to the argument that wins (the second where `second`), half to each where the
    two are equal."""
    zero, half = b.const(0.0), b.mul(ct, b.const(0.5))
    tie = b.eq(x1, x2)
    return (b.select(second, zero, b.select(tie, half, ct)),
            b.select(second, ct, b.select(tie, half, zero)))


def _pick(name: str, sigs: dict, py, wins: str, ties: str, nan: bool, lower: tuple,
          doc: str, spell: str) -> OpDef:
    """The row of a pick whose second argument wins where `wins` (`gt`, `lt`) of (x2, x1)
    holds, and in a running extreme where `ties` (`ge`, `le`) does; `nan`: also where x2 is
    nan (NumPy's)."""
    def second(b, x1, x2, test):
        won = getattr(b, test)(x2, x1)
        return b.select(won, b.const(True, BOOL), b.ne(x2, x2)) if nan else won
    return OpDef(name, sigs, py,
                 lambda b, ct, y, x1, x2: _split(b, ct, second(b, x1, x2, wins), x1, x2),
                 lower, doc, spell=(spell,), samples=((1.5, -2.25), (-3.0, 0.5)),
                 strong_zero=False,
                 chain_adjoint=lambda b, ct, y, x1, x2: _to_second(b, ct, second(b, x1, x2, ties)))


PICK_ROWS = [
    _pick("max", ARITH, lambda a, b: b if b > a else a, "gt", "ge", False, ("custom",),
          "max(a, b) as Python computes it: b if b > a else a (ties go to a; the cotangent "
          "half to each)", "builtins.max"),
    _pick("min", ARITH, lambda a, b: b if b < a else a, "lt", "le", False, ("custom",),
          "min(a, b) as Python computes it: b if b < a else a (ties go to a; the cotangent "
          "half to each)", "builtins.min"),
    _pick("fmaximum", FF_F, fmaximum, "gt", "ge", True, ("intrinsic", "llvm.maximum"),
          "NumPy's maximum of floats: nan if either is nan, else the larger (+0.0 above -0.0)",
          "numpy.maximum"),
    _pick("fminimum", FF_F, fminimum, "lt", "le", True, ("intrinsic", "llvm.minimum"),
          "NumPy's minimum of floats: nan if either is nan, else the smaller (-0.0 below "
          "+0.0)", "numpy.minimum"),
]
