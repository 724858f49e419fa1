"""Values and array shapes known at compile time, propagated through branches and loops.

`known(func)` finds, for every value it can, the constant it always holds (scalars) or the
shape it always has (arrays, a `Shape`): constants, `alloc` with constant sizes, `constarray`,
products (`matmul`, `outer`) and copies of arrays of known shapes, `dim` of an array of
known shape (or of a whole-array result, by its row's shape rule `dims`: a keepdims sum's
kept axis is 1, its other axes are its argument's), `row` views of one, `select` with a known condition, a broadcast index into an
axis of length 0 or 1 (`M[:, 0:1]`: index 0, `unit_axis_index`), and every foldable op of
known arguments. A loop's carried value is assumed to keep its initial fact and the body is
re-read until the assumption holds (a fact is dropped when a trip can change it), so the
state of `s = np.array([x, y, z])` updated by `s = s + dt * k` in a loop is known to be
3 long on every trip.

`fold_known(func)` writes what `known` found into the IR: known scalars become `const`
ops, a `select` with a known condition (or two equal choices) becomes the value it picks,
a `dim` the size it is known to equal, `x ** 2` the product `x * x` (the same bits: the
square correctly rounded; of ints `imul`, which raises OverflowError past 64 bits), and a
`raise_if` whose condition is known false goes (the
broadcasting checks of arrays of known shapes, the bounds checks of constant indices). The
scalar replacement of small arrays (pyad/ir/scalarize.py) builds on it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import symbolic
from .nodes import BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, \
    is_array, ndim_of, rename_block, walk
from .ops import OPS


@dataclass(frozen=True)
class Shape:
    """The shape of an array value, known at compile time."""
    dims: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.dims)


_CAST = {F64: float, I64: int, BOOL: bool}
#: ops that may equal one of their operands for every size (`pick_equal_operand`)
_PICKING = frozenset({"min", "max", "select", "add", "sub", "floordiv"})
#: comparisons of two equal integers
_SAME = {"eq": True, "le": True, "ge": True, "ne": False, "lt": False, "gt": False}


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and (a == b or a != a and b != b) and \
        (not isinstance(a, float) or math.copysign(1.0, a) == math.copysign(1.0, b))


class _Analysis:
    def __init__(self) -> None:
        self.facts: dict[str, object] = {}
        self.defs: dict[str, Op] = {}          # value name -> the op that made it
        self.vars: dict[str, Var] = {}
        self.same: dict[str, object] = {}      # value name -> the value it equals (see rep)
        self.syms: dict[str, symbolic.Sym] = {}  # int or bool value -> its function of a dim
        self.trips: dict[str, Var] = {}        # counter of a loop -> its trip count (`counted`)
        self.picks: dict[str, Var] = {}        # value -> an operand of its op it equals
        self.uses: dict[str, list[tuple[Stmt, int]]] = {}  # value -> (statement, position)

    def rep(self, v: Var) -> object:
        """What `v` is known to equal: the name of an earlier value, or ("dim", array name,
        axis) for a dimension; values with the same rep are equal."""
        return self.same.get(v.name, v.name)

    def dim_rep(self, a: Var, k: int) -> object:
        """The rep of `dim a, k`, followed through the op that made `a`: an `alloc`'s size
        operand, a `row` or `transpose` view's array, a `view`'s count operand (1 for a new
        axis: the int 1)."""
        d = self.defs.get(a.name)
        if d is not None and d.op == "alloc":
            return self.rep(d.args[k])
        if d is not None and d.op == "row":
            return self.dim_rep(d.args[0], k + 1)
        if d is not None and d.op == "slice" and k > 0:
            return self.dim_rep(d.args[0], k)
        if d is not None and d.op == "transpose":
            return self.dim_rep(d.args[0], ndim_of(a.type) - 1 - k)
        if d is not None and d.op == "view":
            operands, axis, used = iter(d.args[1:]), 0, 0
            for c in d.attrs[0]:
                if c == "i":
                    next(operands)
                    used += 1
                    continue
                count = None
                if c == "s":
                    _, count, _ = next(operands), next(operands), next(operands)
                    used += 1
                if axis == k:
                    return 1 if c == "n" else self.rep(count)
                axis += 1
            return self.dim_rep(d.args[0], used + k - axis)
        rule = OPS[d.op].dims if d is not None and d.op in OPS else None
        found = rule([ndim_of(v.type) if is_array(v.type) else 0 for v in d.args], d.attrs) \
            if rule is not None else None
        if found is not None:   # a whole-array result: its shape rule (ops.py, `dims`)
            return 1 if found[k] == 1 else self.dim_rep(d.args[found[k][0]], found[k][1])
        return ("dim", a.name, k)

    def get(self, v: Var) -> object:
        return self.facts.get(v.name)

    def put(self, v: Var, fact: object) -> None:
        if fact is None:
            self.facts.pop(v.name, None)
        else:
            self.facts[v.name] = fact

    def block(self, b: Block) -> None:
        for s in b.body:
            self.stmt(s)

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, Op):
            for v in s.args:
                self.vars[v.name] = v
            for o in s.outs:
                self.defs[o.name] = s
                self.vars[o.name] = o
            if len(s.outs) == 1:
                out = s.outs[0]
                self.same.pop(out.name, None)
                self.picks.pop(out.name, None)
                fact = self.op(s)
                sym = self.sym(s, fact) if out.type in (I64, BOOL) else None
                if sym is None:
                    self.syms.pop(out.name, None)
                else:
                    self.syms[out.name] = sym
                    if fact is None and sym.constant() is not None:
                        fact = _CAST[out.type](sym.constant())
                    elif fact is None and s.op in _PICKING and out.name not in self.picks:
                        self.pick_equal_operand(s, sym)
                self.put(out, fact)
            return
        if isinstance(s, If):
            self.block(s.then)
            self.block(s.orelse)
            for o, a, b in zip(s.outs, s.then.results, s.orelse.results):
                self.put(o, self.join(self.get(a), self.get(b)))
            return
        self.counted(s)
        assumed = [self.get(v) for v in s.inits]
        while True:
            for params in (s.cond.params, s.body.params):
                for p, fact in zip(params, assumed):
                    self.put(p, fact)
            self.block(s.cond)
            self.block(s.body)
            after = [self.join(f, self.get(y)) for f, y in zip(assumed, s.body.results)]
            if all(_same_fact(a, b) for a, b in zip(after, assumed)):
                break
            assumed = after
        for o, fact in zip(s.outs, assumed):
            self.put(o, fact)

    def sym(self, s: Op, fact: object) -> symbolic.Sym | None:
        """The value of `s` as a function of one dimension (symbolic.py), if it is one."""
        if isinstance(fact, (bool, int)):
            return symbolic.of_constant(fact)
        if fact is not None:
            return None
        d = self.defs.get(s.args[0].name) if s.op == "dim" else None
        if d is not None and d.op == "slice" and s.attrs[0] == 0:  # hi - lo
            return symbolic.combine("sub", [self.syms.get(d.args[2].name),
                                            self.syms.get(d.args[1].name)])
        if s.op == "dim":  # the size an alloc was given, or a dimension of an argument
            r = self.rep(s.outs[0])
            return self.syms.get(r) if isinstance(r, str) and r in self.syms \
                else symbolic.of_dimension(r)
        return symbolic.combine(s.op, [self.syms.get(a.name) for a in s.args])

    def pick_equal_operand(self, s: Op, sym: symbolic.Sym) -> None:
        """`max(n, min(1, n))` is n: an op equal to one of its operands for every size."""
        for a in s.args:
            if a.type == s.outs[0].type and symbolic.equal(sym, self.syms.get(a.name)):
                self.same[s.outs[0].name] = self.rep(a)
                self.picks[s.outs[0].name] = a
                return

    def equal(self, a: Var, b: Var) -> bool:
        """Whether two ints are known to be equal."""
        return self.rep(a) == self.rep(b) or \
            symbolic.equal(self.syms.get(a.name), self.syms.get(b.name))

    def counted(self, s: While) -> None:
        """Note the counter of loop `s`: a carried int starting at 0, stepping by 1 and tested
        `i < n` against a value n from outside the loop; in the body it is in [0, n)."""
        for p in s.body.params:  # read again on each trip of an enclosing loop: its facts
            self.trips.pop(p.name, None)  # of the initial values may have been dropped
        cond = {o.name: st for st in s.cond.body if isinstance(st, Op) for o in st.outs}
        body = {o.name: st for st in s.body.body if isinstance(st, Op) for o in st.outs}
        test = cond.get(s.cond.results[0].name)
        if test is None or test.op != "lt":
            return
        i, n = test.args
        params = [p.name for p in s.cond.params]
        if i.name not in params or n.name in cond or n.name in params:
            return
        k = params.index(i.name)
        step = body.get(s.body.results[k].name)
        if self.get(s.inits[k]) != 0 or step is None or step.op != "add":
            return
        p = s.body.params[k]
        for a, c in (step.args, step.args[::-1]):
            one = cond.get(c.name) or body.get(c.name) or self.defs.get(c.name)
            known = self.get(c) if one is None or one.op != "const" else one.attrs[0]
            if a is p and known == 1 and not isinstance(known, bool):
                self.trips[p.name] = n
                return

    def index_in_range(self, s: Op) -> bool:
        """`select(d == 1, 0, i)` (a broadcast index) with i a counter below d: i itself
        (when d is 1, i is 0)."""
        rep = self.rep(s.args[2])
        n = self.trips.get(rep) if isinstance(rep, str) else None
        zero = self.get(s.args[1])
        c = self.defs.get(s.args[0].name)
        if n is None or zero != 0 or isinstance(zero, bool) or c is None or c.op != "eq":
            return False
        return any(self.get(one) == 1 and not isinstance(self.get(one), bool)
                   and self.equal(d, n) for d, one in (c.args, c.args[::-1]))

    def unit_axis_index(self, s: Op) -> bool:
        """`select(d == 1, 0, i)` (a broadcast index) where d is at most 1 for every size (the
        length of `M[:, 0:1]`, `min(1, n)`) and the select is only an index into axes of
        length d: 0, since d is 1 whenever an element is read (an axis of length 0 has
        none)."""
        zero, c = self.get(s.args[1]), self.defs.get(s.args[0].name)
        if zero != 0 or isinstance(zero, bool) or c is None or c.op != "eq":
            return False
        for d, one in (c.args, c.args[::-1]):
            sym = self.syms.get(d.name)
            if self.get(one) != 1 or isinstance(self.get(one), bool) or sym is None \
                    or not set(sym.values) <= {0, 1}:
                continue
            return all(isinstance(u, Op) and u.op in ("load", "store", "accum")
                       and 1 <= k <= ndim_of(u.args[0].type)
                       and self.dim_rep(u.args[0], k - 1) == self.rep(d)
                       for u, k in self.uses.get(s.outs[0].name, [(None, 0)]))
        return False

    @staticmethod
    def join(a: object, b: object) -> object:
        return a if a is not None and b is not None and _same_fact(a, b) else None

    def op(self, s: Op) -> object:
        args = [self.get(a) for a in s.args]
        if s.op == "const":
            return s.attrs[0]
        if s.op == "alloc":
            ok = all(isinstance(a, int) and not isinstance(a, bool) for a in args)
            return Shape(tuple(args)) if ok else None
        if s.op == "constarray":
            return Shape(tuple(s.attrs[1:1 + s.attrs[0]]))
        if s.op == "dim":
            if isinstance(args[0], Shape):
                return args[0].dims[s.attrs[0]]
            r = self.dim_rep(s.args[0], s.attrs[0])
            if isinstance(r, int):
                return r
            if r != s.outs[0].name:
                self.same[s.outs[0].name] = r
            return self.facts.get(r) if isinstance(r, str) else None
        if s.op in ("mul", "imul") and s.outs[0].type == I64 and any(
                a == 0 and not isinstance(a, bool) for a in args):
            return 0
        if s.op in _SAME and s.args[0].type == I64 and self.equal(s.args[0], s.args[1]):
            return _SAME[s.op]
        if s.op == "select" and not isinstance(args[0], bool) and \
                self.equal(s.args[1], s.args[2]):
            self.same[s.outs[0].name] = self.rep(s.args[1])
            self.picks[s.outs[0].name] = s.args[1]
            return args[1]
        if s.op == "select" and not isinstance(args[0], bool) and self.unit_axis_index(s):
            return 0
        if s.op == "select" and not isinstance(args[0], bool) and self.index_in_range(s):
            self.same[s.outs[0].name] = self.rep(s.args[2])
            self.picks[s.outs[0].name] = s.args[2]
            return None
        if s.op in ("matmul", "outer", "copy") and all(isinstance(a, Shape) for a in args):
            return _product_shape(s.op, [a.dims for a in args])
        if s.op == "row":   # a[i] of an array of 2 or more dimensions: a view
            ok = isinstance(args[0], Shape) and len(args[0].dims) > 1
            return Shape(args[0].dims[1:]) if ok else None
        if s.op == "select":
            return args[1 if args[0] else 2] if isinstance(args[0], bool) else None
        row = OPS[s.op]
        if any(a is None or isinstance(a, Shape) for a in args) or not args or \
                row.effect or row.memory or row.py is None or s.outs[0].type not in _CAST:
            return None
        try:
            value = row.py(*args, *s.attrs)
        except (ArithmeticError, ValueError, LookupError):
            return None
        if not isinstance(value, (bool, int, float)):
            return None
        return _CAST[s.outs[0].type](value)


def _product_shape(op: str, dims: list[tuple[int, ...]]) -> Shape | None:
    """The shape of `matmul`, `outer` or `copy` of arrays of shapes `dims` (None for a
    product of two vectors, a number, and for inner dimensions that differ)."""
    if op == "copy":
        return Shape(dims[0])
    if op == "outer":
        return Shape((dims[0][0], dims[1][0]))
    a, b = dims
    out = a[:-1] + b[1:]
    return Shape(out) if out and a[-1] == b[0] else None


def _same_fact(a: object, b: object) -> bool:
    """Whether two facts are the same (two unknowns are)."""
    if isinstance(a, Shape) or isinstance(b, Shape):
        return a == b
    return a is None and b is None or a is not None and b is not None and _same(a, b)


def _analyse(func: Func) -> _Analysis:
    an = _Analysis()
    for p in func.params:
        an.vars[p.name] = p
    blocks = [func.block]
    for s in walk(func.block):
        used = s.args if isinstance(s, Op) else (s.cond,) if isinstance(s, If) else s.inits
        for k, v in enumerate(used):
            an.uses.setdefault(v.name, []).append((s, k if isinstance(s, Op) else -1))
        blocks += blocks_of(s)
    for b in blocks:   # values yielded by a block (results, carried values)
        for v in b.results:
            an.uses.setdefault(v.name, []).append((b, -1))
    an.block(func.block)
    return an


def known(func: Func) -> dict[str, object]:
    """Value name -> its constant (a Python number or bool) or its `Shape`."""
    return _analyse(func).facts


def fold_known(func: Func) -> Func:
    """`func` with the facts of `known` written into it (see the module docstring)."""
    an = _analyse(func)
    facts = an.facts
    alias: dict[str, Var] = {}

    def rewrite(block: Block) -> Block:
        body: list[Stmt] = []
        for s in block.body:
            if isinstance(s, If):
                body.append(If(s.outs, s.cond, rewrite(s.then), rewrite(s.orelse), s.loc))
                continue
            if isinstance(s, While):
                body.append(While(s.outs, s.inits, rewrite(s.cond), rewrite(s.body), s.loc,
                                  s.note))
                continue
            if s.op == "raise_if" and facts.get(s.args[0].name) is False:
                continue
            if len(s.outs) == 1 and s.op != "const":
                out = s.outs[0]
                fact = facts.get(out.name)
                if fact is not None and not isinstance(fact, Shape) \
                        and not OPS[s.op].effect and not OPS[s.op].memory:
                    body.append(Op(s.outs, "const", (), (fact,), s.loc))
                    continue
                if s.op == "select" and isinstance(facts.get(s.args[0].name), bool):
                    alias[out.name] = s.args[1 if facts[s.args[0].name] else 2]
                    continue
                if out.name in an.picks:
                    alias[out.name] = an.picks[out.name]
                    continue
                same = an.same.get(out.name)
                if s.op == "dim" and isinstance(same, str):
                    alias[out.name] = an.vars[same]
                    continue
                if s.op == "dim" and isinstance(same, tuple):
                    s = Op(s.outs, "dim", (an.vars[same[1]],), (same[2],), s.loc)
                if s.op in ("mul", "imul") and out.type == I64 and any(
                        facts.get(v.name) == 1 and not isinstance(facts.get(v.name), bool)
                        for v in s.args):   # i * 1 (the other factor; i * 0 is folded)
                    one = 0 if facts.get(s.args[0].name) == 1 else 1
                    alias[out.name] = s.args[1 - one]
                    continue
                if s.op in ("pow", "ipow") and facts.get(s.args[1].name) == 2 and \
                        not isinstance(facts.get(s.args[1].name), bool):
                    s = Op(s.outs, "mul" if s.op == "pow" else "imul", (s.args[0],) * 2, (),
                           s.loc)   # x ** 2 (imul: OverflowError past 64 bits, as ipow)
            body.append(s)
        return Block(block.params, tuple(body), block.results)

    block = rewrite(func.block)
    if alias:
        def resolve(v: Var) -> Var:
            while v.name in alias:
                v = alias[v.name]
            return v
        block = rename_block(block, {k: resolve(v) for k, v in alias.items()})
    return Func(func.name, block, func.filename, func.arg_names)
