"""The shape of an op-table row (`OpDef`) and the markers rows use for adjoints that are
not plain rules. The rows themselves: pyad/ir/ops.py (scalars, memory) and
pyad/ir/array_rows.py (whole-array primitives)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .nodes import BOOL, F64, I64, is_array


VOID = "void"  # the result type of ops without results

# the signatures of scalar rows: argument types -> result type
FF_F = {(F64, F64): F64}
II_I = {(I64, I64): I64}
F_F = {(F64,): F64}
ARITH = {**FF_F, **II_I}
CMP = {(F64, F64): BOOL, (I64, I64): BOOL, (BOOL, BOOL): BOOL}


def STRUCTURAL(b, ct, y, *args):
    """Marker: array memory ops (load, store, views, ...) are differentiated by `pyad.ad`
    itself, which pairs every active array with its shadow (adjoint) array."""
    raise AssertionError("structural ops are differentiated by pyad.ad")


def RULE(b, ct, y, *args):
    """Marker: the adjoint of a `custom_vjp` op is the user's backward rule, inlined by
    `pyad.ad` (it needs the op's attributes)."""
    raise AssertionError("custom rules are differentiated by pyad.ad")


def CALL(b, ct, y, *args):
    """Marker: a `call` op is differentiated by `pyad.ad`, which turns it into a `callfwd`
    (forward sweep) and a `callbwd` (reverse sweep) of the callee's own gradient."""
    raise AssertionError("calls are differentiated by pyad.ad")


def call_sig(ts: tuple) -> None:
    return None  # the callee (attrs[0]) gives the result types: checked by pyad.ir.verify


def rule_sig(ts: tuple) -> str | None:
    return F64 if ts and ts[0] == F64 and not any(is_array(t) for t in ts) else None


def ZERO(b, ct, y, *args):
    """Adjoint of an op that is piecewise constant: no argument receives anything."""
    return (None,) * len(args)


@dataclass(frozen=True)
class OpDef:
    name: str
    sigs: dict
    py: Callable
    adjoint: Callable | None
    lower: tuple
    doc: str
    spell: tuple[str, ...] = ()
    samples: tuple[tuple, ...] = ()
    effect: bool = False   # never removed, merged or reordered (tape traffic, checks)
    memory: str = ""       # "read", "write" or "alloc": array memory traffic (never merged)
    # The AD pass makes a zero cotangent give zero contributions even where the rule's
    # partial derivatives are inf or nan (strong zeros: d/dg exp(-inf / g) is 0, not
    # 0 * inf). False for rules whose contributions are ct times a factor that is finite
    # for every argument (add, neg, max, sin, tanh, erf, ...).
    strong_zero: bool = True
    attr_typed: bool = False   # `sigs(types, attrs)`, `adjoint(b, ct, y, *args, attrs)`
    # A pick (max, min, NumPy's maximum, minimum) in a running extreme `c = max(c, v)` that
    # the loop uses for nothing else: the adjoint sends a tie to the second operand, so the
    # last trip attaining the extreme takes the cotangent and the reverse may test against
    # the loop's final c (pyad/ad/plan.py, `_finals`); `adjoint` splits a tie evenly.
    chain_adjoint: Callable | None = None
    # The adjoint reads the array result `y` (solve, inv, cholesky, eigh): the AD pass keeps
    # an unwritten copy when the result may be written after the op (pyad/ad/snapshot.py).
    reads_result: bool = False
    # The shape of a whole-array result as its arguments' (ir/shapes.py folds `dim` of it):
    # `dims(ndims, attrs)` gives for each result axis (argument position, axis), or the int 1
    # (an axis a sum keeps), from the arguments' numbers of dimensions; None: not known.
    dims: Callable | None = None
    # Test harness only: maps random sample arguments into the row's domain (cholesky:
    # symmetric positive definite matrices).
    domain: Callable | None = None

    @property
    def whole_array(self) -> bool:
        """A whole-array primitive (array_rows.py, linalg_rows.py): the AD pass reads an
        array result's cotangent from its shadow and adds array contributions into shadows."""
        return self.lower[0] in ("loops", "kernel")

    def result_type(self, arg_types: tuple[str, ...], attrs: tuple = ()) -> str | None:
        """The result type for arguments of `arg_types` (None: not a valid call); array
        rows whose result depends on an attribute (a reduction's axes) read `attrs`."""
        if callable(self.sigs):
            return self.sigs(tuple(arg_types), attrs) if self.attr_typed \
                else self.sigs(tuple(arg_types))
        return self.sigs.get(tuple(arg_types))
