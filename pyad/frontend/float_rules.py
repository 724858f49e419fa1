"""Frontend, where Python's and NumPy's float arithmetic differ from IEEE's: the operations
`exprs.binop` emits around a float `**`, `//` or `%` of numbers (Python's meaning) or of
array elements (NumPy's)."""
from __future__ import annotations

import math

from ..ir.builder import Builder
from ..ir.nodes import BOOL, Var


def check_power(bl: Builder, x: Var, y: Var) -> None:
    """CPython's `0.0 ** y` for a finite y < 0 raises ZeroDivisionError (IEEE and NumPy
    give inf; `0.0 ** -inf` is inf in CPython too)."""
    no = bl.const(False, BOOL)
    negative = bl.select(bl.lt(y, bl.const(0.0)), bl.gt(y, bl.const(-math.inf)), no)
    bad = bl.select(bl.eq(x, bl.const(0.0)), negative, no)
    bl.emit("raise_if", bad, attrs=("ZeroDivisionError",
                                    "0.0 cannot be raised to a negative power"))


def numpy_divmod(bl: Builder, name: str, x: Var, y: Var) -> Var:
    """NumPy's `//` (`name` "floordiv") or `%` ("mod") of float elements: where the divisor
    is 0 no exception, but x / y (inf or nan) for `//` and nan for `%`, as np.floor_divide
    and np.remainder give; elsewhere Python's rounding toward -inf, as for numbers."""
    zero = bl.eq(y, bl.const(0.0))
    r = bl.emit(name, x, bl.select(zero, bl.const(1.0), y))
    at_zero = bl.emit("fdiv", x, y) if name == "floordiv" else bl.const(math.nan)
    return bl.select(zero, at_zero, r)
