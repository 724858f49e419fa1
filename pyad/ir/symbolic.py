"""Integer values as functions of one array dimension, compared exactly by sampling.

The sizes a function computes from one dimension n of an array are piecewise-linear
functions of n: the length of `x[1:]` is `max(n, min(1, n)) - min(1, n)`, that of `x[:-1]`
is `max(min(max(n - 1, 0), n), 0)`, a broadcast size is `select(d == 1, e, d)`. Built from
constants, n, `+`, `-`, negation, multiplication by a constant, `min`, `max`, comparisons and
`select`, such a function is linear between breakpoints, and every breakpoint is a crossing
of two linear pieces `a1 n + c1 = a2 n + c2` with integer slopes, so it lies at
`|n| <= |c1 - c2|`. A `Sym` tabulates a value at n = 0, 1, ..., len(POINTS) - 1 and bounds
the constant terms of its pieces (`const`) and its breakpoints (`breaks`). While both bounds
stay at most LIMIT, two values of one symbol that agree on every point are equal for every
n >= 0 (past the last breakpoint of their difference both are linear, and two points of a
line decide it), and a comparison true at every point is always true. Dimensions are the
only symbols: they are never negative.

The two lengths above are equal (both `max(n - 1, 0)`): the broadcasting check of
`x[1:] - x[:-1]` is then known to pass, and the loop over the result indexes both operands
directly. shapes.py uses this for its facts.
"""
from __future__ import annotations

from dataclasses import dataclass

from .ops import OPS

LIMIT = 8   # slice offsets and the 1s of broadcasting; 2 * LIMIT + 4 points
#: the sample points: past 2 * LIMIT + 2 two values within the bounds are linear
POINTS = tuple(range(2 * LIMIT + 4))

_LINEAR = frozenset({"add", "sub", "neg", "mul", "imul", "min", "max", "select", "not",
                     "eq", "ne", "lt", "le", "gt", "ge"})


@dataclass(frozen=True)
class Sym:
    symbol: object          # the dimension it is a function of; None for a constant
    const: int              # bound on the constant terms of its linear pieces
    breaks: int             # bound on its breakpoints
    values: tuple           # its value at each of POINTS

    def constant(self) -> object:
        """The value it has for every n (None if it varies): a constant or a decided
        comparison."""
        first = self.values[0]
        return first if all(v == first for v in self.values) else None


def of_constant(c: int | bool) -> Sym:
    return Sym(None, 0 if isinstance(c, bool) else abs(c), 0, (c,) * len(POINTS))


def of_dimension(symbol: object) -> Sym:
    return Sym(symbol, 0, 0, POINTS)


def combine(op: str, args: list[Sym | None]) -> Sym | None:
    """The Sym of `op` applied to values with these Syms, or None when it is not one of a
    single symbol within the bounds."""
    if op == "floordiv" and len(args) == 2 and args[1] is not None \
            and args[1].symbol is None and args[1].values[0] == 1:
        return args[0]  # a count of a slice with step 1
    if op not in _LINEAR or not args or any(a is None for a in args):
        return None
    symbols = {a.symbol for a in args if a.symbol is not None}
    if len(symbols) != 1:
        return None  # a constant (folded elsewhere) or two dimensions
    breaks = max(a.breaks for a in args)
    if op in ("add", "sub"):
        const = args[0].const + args[1].const
    elif op in ("mul", "imul"):
        k = [a for a in args if a.symbol is None]
        if not k:
            return None  # n * n is not linear
        const = abs(k[0].values[0]) * max(a.const for a in args if a.symbol is not None)
    elif op in ("min", "max") or op in ("eq", "ne", "lt", "le", "gt", "ge"):
        const = max(a.const for a in args)
        breaks = max(breaks, args[0].const + args[1].const)  # where the two cross
    elif op == "select":
        const = max(args[1].const, args[2].const)
    else:  # neg, not
        const = args[0].const
    if const > LIMIT or breaks > LIMIT:
        return None
    fn = OPS[op].py
    try:
        values = tuple(map(fn, *(a.values for a in args)))
    except (ArithmeticError, ValueError):
        return None
    return Sym(symbols.pop(), const, breaks, values)


def equal(a: Sym | None, b: Sym | None) -> bool:
    """Whether two values are equal for every value of their dimension."""
    return a is not None and b is not None and a.symbol == b.symbol \
        and a.symbol is not None and a.values == b.values
