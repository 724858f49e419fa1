"""Frontend, the builtins that fold a sequence: `sum`, `min`, `max`, `any`, `all`,
`math.fsum`, `math.prod` (keyword `start`, 1 by default), and `list.index`/`list.count`,
over any iterable pyad can loop over (arrays, lists, tuples, ranges, generator expressions;
iteration.py), each lowered as the loop it stands for, written as statements (lists.py
`run_scoped`).
"""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from .context import DynList, PyList, Value
from .lists import name
from ..ir.nodes import I64, Var, is_array, ndim_of


class Folds:
    """Sequence folds (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        self.lists = lw.lists

    def fold(self, fname: str, node: ast.Call) -> Value:
        """sum, min, max, any, all, math.fsum, math.prod of a sequence (module docstring):
        the loop they stand for, over any iterable pyad can loop over."""
        ctx = self.ctx
        start_kw = fname in ("sum", "prod") and [k.arg for k in node.keywords] == ["start"]
        if node.keywords and not start_kw:
            raise ctx.error(node.keywords[0].value, f"{fname}() keyword arguments are not "
                            "supported", cls=PyadTypeError)
        if fname == "prod" and len(node.args) != 1:
            raise ctx.error(node, "math.prod() takes one iterable (and start=)",
                            cls=PyadTypeError)
        args = list(node.args) + [k.value for k in node.keywords]
        if not 1 <= len(args) <= (2 if fname in ("sum", "prod") else 1):
            takes = "1 or 2 arguments" if fname == "sum" else "one iterable"
            raise ctx.error(node, f"{fname}() takes {takes} here", cls=PyadTypeError)
        temp = self.lists.temp
        seq, acc, v = temp("seq"), temp("acc"), temp("v")
        ctx.env[seq] = self.lw.exprs.expr(args[0]) if not isinstance(
            args[0], (ast.ListComp, ast.GeneratorExp)) else self.lists.comprehension(args[0])
        src = ctx.env[seq]
        rows = isinstance(src, DynList) and ndim_of(src.buf.type) > 1 or \
            isinstance(src, Var) and is_array(src.type) and ndim_of(src.type) > 1
        if rows and fname == "sum":
            return self.sum_of_arrays(seq, args, node)
        if rows:
            raise ctx.error(node, f"{fname}() over arrays, from a sequence whose length is "
                            "known at run time only", cls=PyadTypeError,
                            hint=f"use np.{ {'fsum': 'sum'}.get(fname, fname) }"
                            "(np.array(xs), axis=0)")
        loop = lambda body: ast.For(name(v, True), name(seq), body, [])  # noqa: E731
        if fname in ("sum", "fsum", "prod"):
            start = args[1] if len(args) == 2 else ast.Constant(
                {"fsum": 0.0, "prod": 1}.get(fname, 0))
            step = ast.Mult() if fname == "prod" else ast.Add()
            stmts = [ast.Assign([name(acc, True)], start),
                     loop([ast.Assign([name(acc, True)], ast.BinOp(name(acc), step, name(v)))])]
            if fname == "fsum":
                stmts = self.compensated(seq, acc, v)
        elif fname in ("min", "max"):
            first = self.lists.temp("first")
            pick = ast.Call(name(fname), [name(acc), name(v)], [])
            stmts = [ast.Assign([name(acc, True)], ast.Constant(0)),
                     ast.Assign([name(first, True)], ast.Constant(True)),
                     loop([ast.If(name(first), [ast.Assign([name(acc, True)], name(v)),
                                                ast.Assign([name(first, True)],
                                                           ast.Constant(False))],
                                  [ast.Assign([name(acc, True)], pick)])])]
            out, empty = self.lists.run_scoped(stmts, node, (acc, first), set())
            ctx.b.emit("raise_if", empty,
                       attrs=("ValueError", f"{fname}() arg is an empty sequence"))
            ctx.env.pop(seq, None)
            return out
        else:   # any / all
            hit = fname == "any"
            stmts = [ast.Assign([name(acc, True)], ast.Constant(not hit)),
                     loop([ast.If(name(v) if hit else ast.UnaryOp(ast.Not(), name(v)),
                                  [ast.Assign([name(acc, True)], ast.Constant(hit))], [])])]
        out = self.lists.run_scoped(stmts, node, acc, set())
        ctx.env.pop(seq, None)
        return out

    def sum_of_arrays(self, seq: str, args: list[ast.expr], node: ast.Call) -> Value:
        """sum(arrays[, start]) over a sequence of run-time length: `start + a0`, then each
        later item added in order, as CPython adds them. The result is an array, so an empty
        sequence (CPython: `start`) raises ValueError here."""
        ctx, b = self.ctx, self.ctx.b
        src = ctx.env[seq]   # a list of arrays, or an array: its rows
        n = b.emit("dim", src, attrs=(0,), type=I64) if isinstance(src, Var) \
            else self.lists.length(src)
        b.emit("raise_if", b.eq(n, b.const(0, I64)), attrs=(
            "ValueError", "sum() of an empty sequence of arrays (compiled code returns an "
            "array, not the start value)"))
        acc, k = self.lists.temp("acc"), self.lists.temp("k")
        item = lambda i: ast.Subscript(name(seq), i, ast.Load())  # noqa: E731
        start = args[1] if len(args) == 2 else ast.Constant(0)
        stmts = [ast.Assign([name(acc, True)], ast.BinOp(start, ast.Add(), item(
                     ast.Constant(0)))),
                 ast.For(name(k, True), ast.Call(name("range"), [ast.Constant(1), ast.Call(
                     name("len"), [name(seq)], [])], []),
                     [ast.Assign([name(acc, True)], ast.BinOp(name(acc), ast.Add(),
                                                              item(name(k))))], [])]
        out = self.lists.run_scoped(stmts, node, acc, set())
        ctx.env.pop(seq, None)
        return out

    def compensated(self, seq: str, acc: str, v: str) -> list[ast.stmt]:
        """math.fsum as Neumaier's compensated sum of the finite terms (docs/python.md:
        within an ulp or two of the correctly rounded sum that math.fsum returns). As in
        CPython, infinite and nan terms are added apart and their sum is the result
        (ValueError for inf + -inf), and a running sum of finite terms that overflows
        raises OverflowError where it does."""
        c, t = self.lists.temp("c"), self.lists.temp("t")
        special, infinite = self.lists.temp("special"), self.lists.temp("infinite")
        big = ast.Compare(ast.Call(name("abs"), [name(acc)], []), [ast.GtE()],
                          [ast.Call(name("abs"), [name(v)], [])])
        add = lambda a, b: ast.BinOp(a, ast.Add(), b)  # noqa: E731
        sub = lambda a, b: ast.BinOp(a, ast.Sub(), b)  # noqa: E731
        cmp = lambda a, op, b: ast.Compare(a, [op], [b])  # noqa: E731
        zero = ast.Constant(0.0)
        finite = lambda x: cmp(sub(name(x), name(x)), ast.Eq(), zero)  # noqa: E731
        fail = lambda cls, msg: ast.Raise(ast.Call(name(cls), [ast.Constant(msg)], []),  # noqa: E731
                                          None)
        step = [ast.Assign([name(t, True)], add(name(acc), name(v))),
                ast.If(ast.UnaryOp(ast.Not(), finite(t)),
                       [fail("OverflowError", "intermediate overflow in fsum")], []),
                ast.If(big, [ast.AugAssign(name(c, True), ast.Add(),
                                           add(sub(name(acc), name(t)), name(v)))],
                       [ast.AugAssign(name(c, True), ast.Add(),
                                      add(sub(name(v), name(t)), name(acc)))]),
                ast.Assign([name(acc, True)], name(t))]
        apart = [ast.AugAssign(name(special, True), ast.Add(), name(v)),
                 ast.If(cmp(name(v), ast.Eq(), name(v)),
                        [ast.AugAssign(name(infinite, True), ast.Add(), name(v))], [])]
        body = [ast.Assign([name(v, True)], ast.Call(name("float"), [name(v)], [])),
                ast.If(finite(v), step, apart)]
        end = ast.If(cmp(name(special), ast.NotEq(), zero),
                     [ast.If(cmp(name(infinite), ast.NotEq(), name(infinite)),
                             [fail("ValueError", "-inf + inf in fsum")], []),
                      ast.Assign([name(acc, True)], name(special))],
                     [ast.Assign([name(acc, True)], add(name(acc), name(c)))])
        return [ast.Assign([name(x, True)], zero) for x in (acc, c, special, infinite)] + [
            ast.For(name(v, True), name(seq), body, []), end]

    def search(self, lst, v: Value, what: str, node: ast.AST) -> Var:
        """l.index(v) (ValueError when absent) and l.count(v), by a loop over the items."""
        temp = self.lists.temp
        seq, x, acc, k = temp("seq"), temp("x"), temp("acc"), temp("k")
        env = self.ctx.env
        if isinstance(lst, DynList) and ndim_of(lst.buf.type) > 1 \
                or isinstance(lst, PyList) and not all(isinstance(v, Var) and not
                                                       is_array(v.type) for v in lst):
            raise self.ctx.error(node, f"list.{what}() of a list of arrays or tuples",
                                 cls=PyadTypeError, hint="compare the items in a loop")
        if isinstance(lst, PyList):
            lst = self.lists.dynamic(tuple(lst), node)   # a loop that breaks: run at run time
        env[seq], env[x] = lst, v
        if what == "count":
            body = [ast.If(ast.Compare(name(k), [ast.Eq()], [name(x)]),
                           [ast.AugAssign(name(acc, True), ast.Add(), ast.Constant(1))], [])]
            loop = ast.For(name(k, True), name(seq), body, [])
            stmts = [ast.Assign([name(acc, True)], ast.Constant(0)), loop]
        else:
            i = temp("i")
            body = [ast.If(ast.Compare(name(k), [ast.Eq()], [name(x)]),
                           [ast.Assign([name(acc, True)], name(i)), ast.Break()], [])]
            loop = ast.For(ast.Tuple([name(i, True), name(k, True)], ast.Store()),
                           ast.Call(name("enumerate"), [name(seq)], []), body, [])
            stmts = [ast.Assign([name(acc, True)], ast.Constant(-1)), loop]
        out = self.lists.run_scoped(stmts, node, acc, set())
        env.pop(seq, None)
        env.pop(x, None)
        if what == "index":
            b = self.ctx.b
            b.emit("raise_if", b.lt(out, b.const(0, I64)),
                   attrs=("ValueError", "list.index(x): x not in list"))
        return out
