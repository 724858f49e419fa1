"""The op-table rows of the picks: Python's `max` and `min`, NumPy's `maximum` and `minimum`
(pyad/ir/ops.py holds the table). A pick's cotangent goes to the argument that wins, half to
each on a tie (`adjoint`, as JAX and PyTorch split ties); in a running extreme `c = max(c,
v)` that the loop uses for nothing else, to the second argument on a tie (`chain_adjoint`:
the last trip attaining the extreme takes it, and the reverse sweep reads the loop's final
c instead of taping each trip's, pyad/ad/plan.py `_finals`)."""
from __future__ import annotations

from .nodes import BOOL
from .opdef import ARITH, FF_F, OpDef
from .semantics import fmaximum, fminimum


def _nan_pick(b, ct, second_wins, x2) -> tuple:
    """The cotangents of NumPy's maximum or minimum in a running extreme (`chain_adjoint`):
    all to the second argument where it wins or ties (`second_wins`) or is nan, else all
    to the first."""
    second = b.select(second_wins, b.const(True, BOOL), b.ne(x2, x2))
    return b.select(second, b.const(0.0), ct), b.select(second, ct, b.const(0.0))


def _split(b, ct, second_wins, x1, x2) -> tuple:
    """The cotangents of a pick: all to the argument that wins (the second where
    `second_wins`), half to each where the two are equal, as JAX and PyTorch split ties:
    `np.maximum(z, 0) + np.log1p(np.exp(-abs(z)))`, the softplus, then has the derivative
    1/2 at z = 0, and `max(a, b) + min(a, b)` the derivatives (1, 1) of a + b."""
    zero, half = b.const(0.0), b.mul(ct, b.const(0.5))
    tie = b.eq(x1, x2)
    return (b.select(second_wins, zero, b.select(tie, half, ct)),
            b.select(second_wins, ct, b.select(tie, half, zero)))


def _nan_split(b, ct, second_wins, x1, x2) -> tuple:
    """`_split` for NumPy's maximum or minimum, whose value is nan where either argument
    is: all to the second where it is nan."""
    return _split(b, ct, b.select(second_wins, b.const(True, BOOL), b.ne(x2, x2)), x1, x2)


PICK_ROWS = [
    # Python's max and min: the value ties to a, the cotangent splits evenly (`_split`);
    # in a running `m = max(m, v)` it goes to b on ties, as NumPy's below, so that the
    # reverse needs no tape (ad/plan.py, `_finals`)
    OpDef("max", ARITH, lambda a, b: b if b > a else a,
          lambda b, ct, y, x1, x2: _split(b, ct, b.gt(x2, x1), x1, x2),
          ("custom",), "max(a, b) as Python computes it: b if b > a else a (ties go to a; "
          "the cotangent half to each)",
          spell=("builtins.max",), samples=((1.5, -2.25), (-3.0, 0.5)),
          strong_zero=False,
          chain_adjoint=lambda b, ct, y, x1, x2: (b.select(b.ge(x2, x1), b.const(0.0), ct),
                                                  b.select(b.ge(x2, x1), ct, b.const(0.0)))),
    OpDef("min", ARITH, lambda a, b: b if b < a else a,
          lambda b, ct, y, x1, x2: _split(b, ct, b.lt(x2, x1), x1, x2),
          ("custom",), "min(a, b) as Python computes it: b if b < a else a (ties go to a; "
          "the cotangent half to each)",
          spell=("builtins.min",), samples=((1.5, -2.25), (-3.0, 0.5)),
          strong_zero=False,
          chain_adjoint=lambda b, ct, y, x1, x2: (b.select(b.le(x2, x1), b.const(0.0), ct),
                                                  b.select(b.le(x2, x1), ct, b.const(0.0)))),
    # NumPy's maximum and minimum of floats (functions.py, form "nan_arith"): one instruction
    # sequence that loops vectorize as reductions (np.max(a, axis) of a row), where max and a
    # nan test did not. The cotangent goes to the argument that wins or is nan, half to each
    # on a tie; in a running c = fmaximum(c, v) (np.max of a row) to the second argument
    # where it is as large (ties) or nan: the last winner is then the trip whose v is not
    # below the final c, so reversing the chain needs no c of the trips (ad/plan.py, `finals`)
    OpDef("fmaximum", FF_F, fmaximum,
          lambda b, ct, y, x1, x2: _nan_split(b, ct, b.gt(x2, x1), x1, x2),
          ("intrinsic", "llvm.maximum"), "NumPy's maximum of floats: nan if either is nan, "
          "else the larger (+0.0 above -0.0)", spell=("numpy.maximum",),
          samples=((1.5, -2.25), (-3.0, 0.5)), strong_zero=False,
          chain_adjoint=lambda b, ct, y, x1, x2: _nan_pick(b, ct, b.ge(x2, x1), x2)),
    OpDef("fminimum", FF_F, fminimum,
          lambda b, ct, y, x1, x2: _nan_split(b, ct, b.lt(x2, x1), x1, x2),
          ("intrinsic", "llvm.minimum"), "NumPy's minimum of floats: nan if either is nan, "
          "else the smaller (-0.0 below +0.0)", spell=("numpy.minimum",),
          samples=((1.5, -2.25), (-3.0, 0.5)), strong_zero=False,
          chain_adjoint=lambda b, ct, y, x1, x2: _nan_pick(b, ct, b.le(x2, x1), x2)),
]
