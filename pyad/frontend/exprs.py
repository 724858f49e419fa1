"""Frontend, expressions: constants, names, operators, comparisons, `and`/`or`, `x if c else
y`, tuples and tuple indexing, lowered into the context's builder.

Python semantics are kept: int/int true division gives a float, `//` and `%` round toward
-inf, bools act as ints in arithmetic, and `and`/`or`/`x if c else y`/chained comparisons
short-circuit (each becomes an `If` region computing one value). Arrays are handed to the
array collaborators (arrays.py, arrayops.py), calls to the call collaborators
(functions.py, calls.py).
"""
from __future__ import annotations

import ast
import functools
from typing import Any, Callable

import numpy as np

from ..errors import PyadSyntaxError, PyadTypeError
from . import dictiter, dtypes, float_rules, records
from .context import ARRAY_LIKE, DynList, PyList, RangeVal, SliceVal, Static, Undefined, Value, \
    arith, unify
from .closures import FuncRef, Partial, is_function
from .lists import is_list
from ..ir.nodes import BOOL, F64, I64, Block, If, Var, is_array
from ..pytree import NONE, Record

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
          ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}
CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
          ast.NotEq: "ne"}
LOGICAL_BINOPS = {ast.BitAnd: "logical_and", ast.BitOr: "logical_or",
                  ast.BitXor: "logical_xor"}
_OPERATOR_NAMES = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
                   ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&",
                   ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
                   ast.Invert: "~"}
_CMP_SPELLING = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def _is_tuple(v: Any) -> bool:
    """A plain tuple value (not a list or another Compound): its length is known."""
    return type(v) is tuple


#: int ops whose result is known when compiling if their operands are (CPython's meaning;
#: None where CPython would raise, which then happens at run time, as written)
_FOLDED = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "imul": lambda a, b: a * b,
           "floordiv": lambda a, b: a // b if b else None,
           "mod": lambda a, b: a % b if b else None}


class Expressions:
    """Expression lowering (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def expr(self, node: ast.expr) -> Value:
        with self.ctx.located(node):
            return self._expr(node)

    def _expr(self, node: ast.expr) -> Value:
        ops = self.lw.arrayops
        match node:
            case ast.Constant():
                return self.constant(node.value, node)
            case ast.Name():
                return self.name(node)
            case ast.Attribute():
                return self.attribute(node)
            case ast.BinOp():
                return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)
            case ast.UnaryOp():
                return self.unaryop(node)
            case ast.BoolOp():
                return self.boolop(node, node.values)
            case ast.Compare():
                return self.comparison(node)
            case ast.IfExp():
                taken = records.static_truth(self.lw, node.test)
                if taken is not None:
                    return self.expr(node.body if taken else node.orelse)
                cond = self.lw.logical.condition(node.test)
                return self.branch(cond, lambda: self.expr(node.body),
                                   lambda: self.expr(node.orelse), node)
            case ast.Call():
                return self.lw.functions.call(node)
            case ast.Tuple():
                return tuple(ops.materialize(self.expr(e)) for e in node.elts)
            case ast.List():
                return self.lw.lists.display(node)
            case ast.ListComp() | ast.GeneratorExp():
                return self.lw.lists.comprehension(node)
            case ast.Lambda():
                return self.lw.closures.define(node)
            case ast.Subscript():
                return self.subscript(node)
            case ast.Dict():
                return records.display(self.lw, node)
            case ast.DictComp():
                return dictiter.comprehension(self.lw, node)
            case ast.NamedExpr():   # `(w := v * v) > 0.5`: bound where CPython binds it
                if self.ctx.conditional:   # the name would be bound whether it runs or not
                    raise self.ctx.error(node, "an assignment expression (:=) in a part of "
                                         "an expression that may not run (after `and` or "
                                         "`or`, in a branch of `a if c else b`, a later "
                                         "link of a chained comparison)", cls=PyadTypeError,
                                         hint="assign it in a statement before the "
                                         "expression")
                value = self.lw.arrayops.materialize(self.expr(node.value))
                self.lw.stmts.assign(node.target, value)
                return value
        raise self.ctx.unsupported(node)

    def comparison(self, node: ast.Compare) -> Value:
        ops = self.lw.arrayops
        if type(node.ops[0]) in (ast.Is, ast.IsNot) and len(node.ops) == 1:
            return self.static_test(node)
        decided = records.string_comparison(self.lw, node)   # compile-time strings
        if decided is not None:
            return self.ctx.b.const(decided, BOOL)
        if type(node.ops[0]) in (ast.In, ast.NotIn) and len(node.ops) == 1 and \
                isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            d = self.expr(node.comparators[0])    # 'key' in d: known when compiling
            if isinstance(d, Record) and d.kind == "dict":
                found = node.left.value in d.fields
                return self.ctx.b.const(found == isinstance(node.ops[0], ast.In), BOOL)
        left = self.expr(node.left)
        if type(node.ops[0]) not in CMPOPS:
            return self.compare(node, self.scalar(left, node.left), 0)  # raises
        right = self.expr(node.comparators[0])
        if type(left) is tuple and type(right) is tuple and len(node.ops) == 1 \
                and type(node.ops[0]) in (ast.Eq, ast.NotEq):   # `x.shape == (n, 3)`
            same = self.tuples_equal(left, right, node)
            return same if isinstance(node.ops[0], ast.Eq) else self.ctx.b.emit("not", same)
        if ops.is_arrayish(left) or ops.is_arrayish(right):
            return ops.compare(node, *self.as_arrays(left, right, node))
        return self.compare(node, self.scalar(left, node.left), 0, right)

    def as_arrays(self, a, b, node: ast.AST) -> tuple:
        """The operands of an operator or comparison with an array: a list or range operand
        made the array NumPy makes of it (`x * [1.0, -1.0]`, `x < range(n)`)."""
        return tuple(self.lw.arrays.array(v, node) if isinstance(v, ARRAY_LIKE) else v
                     for v in (a, b))

    def not_a_sequence(self, node: ast.AST):
        """The error for a slice object used as a sequence (len, items, iteration,
        unpacking): CPython raises TypeError; pyad keeps a slice as its three bounds."""
        return self.ctx.error(node, "a slice object is not a sequence (CPython raises "
                              "TypeError)", cls=PyadTypeError, hint="index with it (a[s]), or "
                              "use range(start, stop, step)")

    def tuples_equal(self, left: tuple, right: tuple, node: ast.AST) -> Var:
        """`left == right` of two tuples, as CPython: the same length and equal items."""
        b = self.ctx.b
        if len(left) != len(right):
            return b.const(False, BOOL)
        same = b.const(True, BOOL)
        for x, y in zip(left, right):
            if type(x) is tuple and type(y) is tuple:
                eq = self.tuples_equal(x, y, node)
            else:
                x, y = self.scalar(x, node), self.scalar(y, node)
                t = unify(x.type, y.type)
                eq = b.emit("eq", self.ctx.convert(x, t), self.ctx.convert(y, t))
            same = b.select(same, eq, b.const(False, BOOL))
        return same

    # ------------------------------------------------------------------ leaves
    def constant(self, value: Any, node: ast.AST) -> Var:
        b = self.ctx.b
        if value is None:   # a compile-time value: `w is None` is decided when compiling
            return NONE
        if isinstance(value, bool):
            v = b.const(value, BOOL)
            self.ctx.literals[v.name] = value   # keepdims=keepdims in a helper stays constant
            return v
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise self.ctx.error(node, "integer constant does not fit in 64 bits")
            v = b.const(value, I64)
            self.ctx.literals[v.name] = value   # an axis passed to a helper stays constant
            return v
        if isinstance(value, float):
            return b.const(value, F64)
        if isinstance(value, str):   # a compile-time value, like None
            return records.string(value)
        raise self.ctx.error(node, f"unsupported constant {value!r} of type "
                             f"{type(value).__name__}", hint="only numbers, bools, None and "
                             "strings are supported")

    def name(self, node: ast.Name) -> Value:
        env = self.ctx.env
        if node.id in env:
            v = env[node.id]
            if isinstance(v, Undefined):
                raise self.ctx.error(node, f"`{node.id}` is not assigned on every path that "
                                     f"reaches this use: it is unassigned {v.why} (CPython would raise "
                                     "UnboundLocalError)",
                                     hint=f"assign `{node.id}` on that path too, or before the "
                                     "if statement or loop")
            return v
        if self.ctx.declares(node.id):  # a local: CPython never reads
            raise self.ctx.error(node, f"`{node.id}` is read before it is assigned on this "
                                 "path (CPython would raise UnboundLocalError)",
                                 hint=f"assign `{node.id}` before this line")
        return self.static_value(self.ctx.resolve_static(node), node)

    def attribute(self, node: ast.Attribute) -> Value:
        info = dtypes.type_info(self.lw, node.value)
        if info is not None:   # np.finfo(x.dtype).eps: a number known when compiling
            value = getattr(info, node.attr, None)
            if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
                raise self.ctx.error(node, f"unsupported attribute `.{node.attr}` of "
                                     f"np.{type(info).__name__}", hint="its numbers (eps, "
                                     "max, min, tiny, ...) are supported")
            return self.constant(value.item() if isinstance(value, np.number) else value, node)
        if self.ctx.is_local(node.value):
            v = self.lw.arrayops.materialize(self.expr(node.value))
            if isinstance(v, Var) and is_array(v.type):
                return self.lw.arrays.attribute(v, node)
            if isinstance(v, Record):
                return records.attribute(self.ctx, v, node)
            raise self.ctx.error(node, f"unsupported attribute access `.{node.attr}` on a "
                                 "value", hint="only attributes of modules (math.pi, "
                                 "math.exp) and arrays (a.shape, a.T) are supported")
        return self.static_value(self.ctx.resolve_static(node), node)

    def static_value(self, s: Static, node: ast.AST) -> Value:
        if isinstance(s.obj, (bool, int, float, str)):   # a string: a compile-time value
            return self.constant(s.obj, node)
        if isinstance(s.obj, functools.partial):
            f = self.static_value(Static(s.obj.func, s.name), node)
            args = tuple(self.static_value(Static(a, s.name), node) for a in s.obj.args)
            kwargs = {k: self.static_value(Static(a, s.name), node)
                      for k, a in s.obj.keywords.items()}
            return Partial(f, args, kwargs)
        if callable(s.obj) and not isinstance(s.obj, type):
            return FuncRef(s)
        if isinstance(s.obj, tuple) and all(isinstance(x, (bool, int, float, str))
                                            for x in s.obj):
            return tuple(self.constant(x, node) for x in s.obj)
        if type(s.obj) is np.ndarray:
            return self.lw.arrays.constant(s.obj, s.name, node)
        tree = records.constant(self, s.obj, s.name, node)  # a dict, namedtuple... of
        # numbers and arrays
        if tree is not None:
            return tree
        raise self.ctx.error(node, f"`{s.name}` ({type(s.obj).__name__}) cannot be used as a "
                             "value in a compiled function",
                             hint="only numbers, bools, NumPy arrays, and tuples, lists, "
                             "dicts (string keys), namedtuples and dataclasses of them are "
                             "values")

    def subscript(self, node: ast.Subscript) -> Value:
        base = self.lw.arrayops.materialize(self.expr(node.value))
        if isinstance(base, Var) and is_array(base.type):
            return self.lw.arrays.index(base, node)
        if is_list(base):
            return self.lw.lists.index(base, node)
        if isinstance(base, RangeVal):
            return self.lw.iteration.range_item(base, node)
        if isinstance(base, Record):
            return records.subscript(self.ctx, base, node)
        if isinstance(base, SliceVal):
            raise self.not_a_sequence(node.value)
        i = constant_int(node.slice)
        if isinstance(base, tuple) and i is not None:
            if not -len(base) <= i < len(base):
                raise self.ctx.error(node, "tuple index out of range", cls=PyadSyntaxError)
            return base[i]
        if isinstance(base, tuple):   # a run-time index or a slice: read as a list is read
            out = self.lw.lists.index(PyList(base, None), node)
            return tuple(out) if isinstance(out, PyList) else out
        raise self.ctx.unsupported(node, "indexing (only a tuple with a constant index)")

    # ------------------------------------------------------------------ operators
    def binop(self, op: ast.operator, a: Value, b: Value, node: ast.AST,
              python: bool = True) -> Var:
        ops = self.lw.arrayops
        for v in (a, b):
            if isinstance(v, Record) and v.kind in ("none", "str"):
                raise records.not_a_number(self.ctx, v, node)
        if _is_tuple(a) or _is_tuple(b) or (is_list(a) or is_list(b)) and not (
                ops.is_arrayish(a) or ops.is_arrayish(b)):
            return self.tuple_binop(op, a, b, node)
        if ops.is_arrayish(a) or ops.is_arrayish(b):
            a, b = self.as_arrays(a, b, node)
        if isinstance(op, ast.MatMult) and (ops.is_arrayish(a) or ops.is_arrayish(b)):
            return self.lw.products.dot(a, b, node, batched=True)
        if type(op) in BINOPS and (ops.is_arrayish(a) or ops.is_arrayish(b)):
            return ops.binop(op, a, b, node)
        if type(op) in LOGICAL_BINOPS:
            return self.bool_operator(LOGICAL_BINOPS[type(op)], _OPERATOR_NAMES[type(op)],
                                      [a, b], node)
        if type(op) not in BINOPS:
            sym = _OPERATOR_NAMES.get(type(op), type(op).__name__)
            raise self.ctx.error(node, f"unsupported operator `{sym}`",
                                 hint="scalars support + - * / // % **")
        a, b = self.scalar(a, node), self.scalar(b, node)
        name = BINOPS[type(op)]
        t = unify(arith(a.type), arith(b.type))
        if name == "div" or (name == "pow" and (t == F64 or self.ctx.literals.get(
                b.name, 0) < 0)):   # 2 ** -3 is Python's float 0.125
            t = F64
        elif name == "pow":
            name = "ipow"
        elif name == "mul" and t == I64:
            name = "imul"   # OverflowError where CPython's int would grow past 64 bits
        convert, bl = self.ctx.convert, self.ctx.b
        if name == "pow" and t == F64 and python:   # CPython raises (IEEE, NumPy: inf)
            float_rules.check_power(bl, convert(a, F64), convert(b, F64))
        if name in ("floordiv", "mod") and t == F64 and not python:   # NumPy: x / 0, nan
            return float_rules.numpy_divmod(bl, name, convert(a, t), convert(b, t))
        out = bl.emit(name, convert(a, t), convert(b, t))
        known = self.ctx.literals
        if t == I64 and a.name in known and b.name in known and name in _FOLDED:
            value = _FOLDED[name](known[a.name], known[b.name])   # None: raises at run time
            if value is not None and -2**63 <= value < 2**63:
                known[out.name] = value   # ints known when compiling stay known (x.ndim - 1)
        return out

    def tuple_binop(self, op: ast.operator, a, b, node: ast.AST) -> tuple:
        """`t1 + t2` and `t * n`, `n * t` (n an int known when compiling) of tuples and of
        lists of known length: the tuple (a new list) CPython makes."""
        seq = lambda v: _is_tuple(v) or isinstance(v, PyList)  # noqa: E731
        if isinstance(op, ast.Add) and seq(a) and seq(b) and type(a) is type(b):
            return a + b if _is_tuple(a) else PyList(tuple(a) + tuple(b), self.ctx)
        if isinstance(op, ast.Mult) and seq(a) != seq(b):
            t, n = (a, b) if seq(a) else (b, a)
            if isinstance(n, Var) and n.type in (I64, BOOL) and n.name in self.ctx.literals:
                out = tuple(t) * max(int(self.ctx.literals[n.name]), 0)
                return out if _is_tuple(t) else PyList(out, self.ctx)
            if isinstance(n, Var) and n.type in (I64, BOOL) and not _is_tuple(t):
                raise self.ctx.error(node, "a list repeated `[v] * n` needs an int n known "
                                     "when compiling", cls=PyadTypeError, hint="for a "
                                     "run-time count write `[v for _ in range(n)]` (or "
                                     "np.full(n, v))")
            if isinstance(n, Var) and n.type in (I64, BOOL):
                raise self.ctx.error(node, "a tuple repeated `t * n` needs an int n known "
                                     "when compiling (a literal, or a helper's parameter "
                                     "given one)", cls=PyadTypeError,
                                     hint="a tuple's length is fixed when compiling; for a "
                                     "run-time count use a list or an array")
        if any(isinstance(v, DynList) for v in (a, b)):
            raise self.ctx.error(node, f"`{_OPERATOR_NAMES[type(op)]}`"
                                 " of a list whose length is known at run time only",
                                 cls=PyadTypeError, hint="grow one list with xs.extend(ys), "
                                 "or use np.concatenate of arrays")
        if isinstance(op, ast.Add) and seq(a) and seq(b):
            raise self.ctx.error(node, "can only concatenate a tuple to a tuple and a list "
                                 "to a list", cls=PyadTypeError)
        kind = "list" if is_list(a) or is_list(b) else "tuple"
        raise self.ctx.error(node, f"a {kind} cannot be used as a number here",
                             cls=PyadTypeError, hint="unpack it first: `a, b = t`, or index "
                             "it: `t[0]` (a tuple or list supports t1 + t2 and t * n, n an "
                             "int)")

    def unaryop(self, node: ast.UnaryOp) -> Var:
        v = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.ctx.b.emit("not", self.truth(v, node.operand))
        if isinstance(node.op, ast.Invert) and self.lw.arrayops.is_arrayish(v):
            return self.bool_operator("logical_not", "~", [v], node)   # ~mask
        if self.lw.arrayops.is_arrayish(v):
            return self.lw.arrayops.unary(node.op, v, node)
        v = self.scalar(v, node)
        if isinstance(node.op, ast.USub):
            out = self.ctx.b.neg(self.ctx.convert(v, arith(v.type)))
            if v.type == I64 and v.name in self.ctx.literals:   # -3, -n: still a literal
                self.ctx.literals[out.name] = -self.ctx.literals[v.name]
            return out
        if isinstance(node.op, ast.UAdd):
            return self.ctx.convert(v, arith(v.type))
        raise self.ctx.error(node, f"unsupported operator `{_OPERATOR_NAMES[type(node.op)]}`"
                             " on a number", hint="`~` takes bool arrays (masks) here, as "
                             "np.logical_not; for a bool write `not v`")

    def bool_operator(self, name: str, sym: str, operands: list, node: ast.AST) -> Value:
        """`m1 & m2`, `m1 | m2`, `m1 ^ m2` of bools and bool arrays, `~m` of a bool array:
        NumPy's logical functions (pyad has no bitwise operations on ints; `~` of a Python
        bool is the int -2, so `~` takes arrays only)."""
        ops = self.lw.arrayops
        for v in operands:
            elem = ops.lift(v).elem if ops.is_arrayish(v) else self.scalar(v, node).type
            if elem != BOOL:
                raise self.ctx.error(node, f"unsupported operator `{sym}` on "
                                     f"{'an int' if elem == I64 else 'a float'}"
                                     f"{' array' if ops.is_arrayish(v) else ''}",
                                     hint=f"pyad supports `{sym}` on bool arrays (masks) "
                                     "and bools only, as np." + name + "; no bitwise "
                                     "operations on ints")
        return self.lw.logical.call(name, node, operands, {})

    def boolop(self, node: ast.BoolOp, values: list[ast.expr]) -> Value:
        """`a and b`: b if a is truthy else a;  `a or b`: a if a is truthy else b."""
        first = self.scalar(self.expr(values[0]), values[0])
        if len(values) == 1:
            return first
        rest = lambda: self.boolop(node, values[1:])  # noqa: E731
        keep = lambda: first  # noqa: E731
        cond = self.truth(first, values[0])
        if isinstance(node.op, ast.And):
            return self.branch(cond, rest, keep, node)
        return self.branch(cond, keep, rest, node)

    def compare(self, node: ast.Compare, left: Var, i: int, right=None) -> Var:
        op = node.ops[i]
        if type(op) not in CMPOPS:
            raise self.ctx.error(node, f"unsupported comparison `{_CMP_SPELLING[type(op)]}`",
                                 hint="compare numbers with <, <=, >, >=, == or !=")
        if right is None:
            right = self.expr(node.comparators[i])
        right = self.scalar(right, node.comparators[i])
        t = unify(left.type, right.type)
        convert = self.ctx.convert
        result = self.ctx.b.emit(CMPOPS[type(op)], convert(left, t), convert(right, t))
        if i + 1 == len(node.ops):
            return result
        return self.branch(result, lambda: self.compare(node, right, i + 1),
                           lambda: self.ctx.b.const(False, BOOL), node)

    def static_test(self, node: ast.Compare) -> Var:
        """`x is None`, `x is not None`: decided at compile time (records.py)."""
        taken = records.static_truth(self.lw, node)
        if taken is None:
            return self.compare(node, self.scalar(self.expr(node.left), node.left), 0)  # raises
        return self.ctx.b.const(taken, BOOL)

    # ------------------------------------------------------------------ regions
    def branch(self, cond: Var, then: Callable[[], Value], orelse: Callable[[], Value],
               node: ast.AST) -> Var:
        """An If region computing one value: `then()` or `orelse()` runs, not both."""
        ctx = self.ctx
        results = []
        ctx.conditional += 1
        try:
            for make in (then, orelse):
                with ctx.emitting(ctx.builder()) as b:
                    results.append((b, self.scalar(make(), node)))
        finally:
            ctx.conditional -= 1
        t = unify(results[0][1].type, results[1][1].type)
        blocks = [self.finish_region(b, [(v, t)]) for b, v in results]
        out = Var(ctx.names.fresh(), t)
        ctx.b.stmts.append(If((out,), cond, blocks[0], blocks[1], ctx.src.loc(node)))
        return out

    def finish_region(self, b, results: list[tuple[Var, str]]) -> Block:
        """The block of the statements emitted into `b`, yielding `results` converted to
        their types."""
        with self.ctx.emitting(b):
            vals = tuple(self.ctx.convert(v, t) for v, t in results)
        return Block((), tuple(b.stmts), vals)

    # ------------------------------------------------------------------ values
    def scalar(self, v: Value, node: ast.AST) -> Var:
        """`v` as one value (an array materialized), refusing a tuple."""
        v = self.lw.arrayops.materialize(v)
        if is_function(v):
            raise self.ctx.error(node, "a function cannot be used as a number here",
                                 hint="call it", cls=PyadTypeError)
        if isinstance(v, tuple):
            what = {RangeVal: "range", SliceVal: "slice", PyList: "list", DynList: "list"}.get(
                type(v), "tuple")
            raise self.ctx.error(node, f"a {what} cannot be used as a number here",
                                 hint="unpack it first: `a, b = t`, or index it: `t[0]`"
                                 + ("; for NumPy's arithmetic on it, np.array(...) it"
                                    if what in ("range", "list") else ""),
                                 cls=PyadTypeError)
        if isinstance(v, Record):
            raise records.not_a_number(self.ctx, v, node)
        return v

    def truth(self, v: Value, node: ast.AST) -> Var:
        if is_list(v):   # a list is true when it is not empty
            return self.ctx.b.gt(self.lw.lists.length(v), self.ctx.b.const(0, I64))
        if isinstance(v, RangeVal):   # so is a range
            return self.ctx.b.gt(self.lw.iteration.range_length(v), self.ctx.b.const(0, I64))
        v = self.scalar(v, node)
        if is_array(v.type):
            raise self.ctx.error(node, "the truth value of an array is ambiguous (NumPy "
                                 "raises ValueError)", cls=PyadTypeError,
                                 hint="use np.any(...) or np.all(...)")
        return v if v.type == BOOL else self.ctx.b.tobool(v)


def constant_int(node: ast.expr) -> int | None:
    """The value of an integer literal such as `2` or `-1`, else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None
