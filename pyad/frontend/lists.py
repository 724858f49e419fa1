"""Frontend, Python lists: displays, comprehensions, `append`/`extend`/`pop`, indexing, `len`.

A list is a value of one of two kinds, both tuple trees (pytree nodes) so that branches and
loops merge and carry them like any other value:

- `PyList`: a list whose length is known at compile time; its items are values (numbers,
  arrays, tuples, lists). `l.append(v)` makes a new PyList and rebinds every name bound to
  the old one (lists are values here; a list passed to a helper or a closure cannot be
  mutated there: refused, located).
- `DynList`: a list whose length is known at run time: (buf, n), the first n entries of the
  1-D array `buf` are the items (numbers only). A PyList becomes a DynList where its length
  stops being a compile-time fact: appended to in a loop (loops.py widens it), or of a
  different length in the two branches of an `if` (control.py). `append` grows `buf` by
  doubling (a copy, differentiated like any copy).

Comprehensions are lowered by writing them as the statements they mean (`.lc = []; for t in
it: if c: .lc.append(e)`), so loops, widening and AD handle them as they handle the user's
own loops (the sequence builtins too: folds.py). Names starting with `.` are compiler
temporaries (no Python name can collide with them).
"""
from __future__ import annotations

import ast
from typing import Any

from ..errors import PyadTypeError
from .closures import Scope, is_function
from ..pytree import Record
from .context import APPENDED, Compound, DynList, PyList, Value, arith, located, unify
from ..ir.loops import for_each
from ..ir.nodes import BOOL, F64, I64, Block, If, Op, Var, array_type, elem_type, is_array, \
    ndim_of, walk
from .listscan import MUTATORS

_GROWTH = 8   # a DynList's first capacity, and the slack added at each doubling


def is_list(v: Any) -> bool:
    return isinstance(v, (PyList, DynList))


def name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


class Lists:
    """List lowering (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        #: id(list of fixed length) -> (it, the DynList a loop made of it before running:
        #: loops.py `promoted`), so that `extend` finds the list its loop changed
        self.promotions: dict[int, tuple] = {}

    # ------------------------------------------------------------------ making lists
    def display(self, node: ast.List) -> PyList:
        items = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                raise self.ctx.error(e, "unsupported syntax: starred item in a list",
                                     hint="build the list with + or extend")
            items.append(self.lw.arrayops.materialize(self.lw.exprs.expr(e)))
        return PyList(items, self.ctx)

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp) -> Value:
        """`[elt for t in it if c ...]` as the loop it stands for; the targets do not leak."""
        tmp = self.temp("lc")
        inner: ast.stmt = ast.Expr(ast.Call(ast.Attribute(name(tmp), "append", ast.Load()),
                                            [node.elt], []))
        targets: set[str] = set()
        for gen in reversed(node.generators):
            if gen.is_async:
                raise self.ctx.error(gen.iter, "unsupported syntax: async comprehension")
            for cond in reversed(gen.ifs):
                inner = ast.If(cond, [inner], [])
            inner = ast.For(gen.target, gen.iter, [inner], [])
            targets |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        return self.run_scoped([ast.Assign([name(tmp, True)], ast.List([], ast.Load())),
                                inner], node, tmp, targets)

    def run_scoped(self, stmts: list[ast.stmt], node: ast.AST, result: str | tuple,
                   scoped: set[str]) -> Value:
        """Lower compiler-written `stmts`; the value they leave in `result` (a name, or a
        tuple of names: a tuple of values). The names in `scoped` and the temporaries are
        restored afterwards (comprehension scope)."""
        env = self.ctx.env
        saved = {n: env[n] for n in scoped if n in env}
        before = set(env)
        scope = Scope(scoped)     # what the functions made in it read after it (closures.py)
        self.ctx.scopes.append(scope)
        try:
            self.lw.stmts.stmts(located(stmts, node))
        finally:
            self.ctx.scopes.pop()
        scope.end(env)
        out = tuple(env[r] for r in result) if isinstance(result, tuple) else env[result]
        for n in list(env):
            if n not in before and (n in scoped or n.startswith(".")):
                del env[n]
        env.update(saved)
        return out

    def of_array(self, a: Var, node: ast.Call) -> Value:
        """a.tolist() of a 1-D array: the list of its elements, as `list(a)`."""
        if ndim_of(a.type) != 1:
            raise self.ctx.error(node, f"a.tolist() of a {ndim_of(a.type)}-D array (a list "
                                 "of lists) is not supported", cls=PyadTypeError,
                                 hint="index the array itself (A[i, j]), or iterate over "
                                 "its rows (for row in A)")
        src, item = self.temp("arr"), self.temp("x")
        self.ctx.env[src] = a
        return self.comprehension(ast.copy_location(ast.ListComp(name(item), [
            ast.comprehension(name(item, True), name(src), [], 0)]), node))

    def temp(self, what: str) -> str:
        return self.ctx.temp(what)

    def dynamic(self, items: tuple, node: ast.AST, like: tuple = (),
                room: Var | None = None) -> DynList:
        """A DynList holding `items` (numbers, or arrays of one shape); `like` adds items
        whose types the list must also hold (what a loop will append); `room`, a bound on
        the appends still to come (a loop's trips times its appends per trip), sizes the
        buffer so that a list of numbers needs no capacity check on those appends."""
        ctx = self.ctx
        kinds = tuple(items) + tuple(like)
        ranks = {ndim_of(v.type) if isinstance(v, Var) and is_array(v.type) else 0
                 if isinstance(v, Var) else -1 for v in kinds}
        if any(is_function(v) for v in kinds):
            raise ctx.error(node, "a list of functions needs a length known when compiling, "
                            "and this one's length is known at run time only",
                            cls=PyadTypeError, hint="write a display `[f, g, h]`, or a "
                            "comprehension over a tuple: `[lambda t, k=k: t * k for k in "
                            "(1, 2, 3)]`")
        if -1 in ranks or len(ranks) > 1 or max(ranks, default=0) > 2:
            raise ctx.error(node, "a list whose length changes at run time (appended to in "
                            "a loop, or of different lengths after an `if`) holds numbers, "
                            "or arrays of 1 or 2 dimensions, not a mix and not tuples",
                            cls=PyadTypeError, hint="keep one kind of item in it, or "
                            "preallocate an array with np.zeros((n, ...)) and fill its rows")
        nd = max(ranks, default=0)
        elem = F64
        if kinds:
            t = arith(elem_type(kinds[0].type))
            for v in kinds[1:]:
                t = unify(t, arith(elem_type(v.type)))
            elem = t
        b, arrays = ctx.b, self.lw.arrays
        cap = b.const(max(len(items), _GROWTH), I64)
        first = arrays.dims(items[0]) if nd and items else [b.const(0, I64)] * nd
        buf = b.emit("alloc", cap, *first, type=array_type(elem, nd + 1))
        if nd:   # each item checked against the first one's shape
            out = DynList((buf, b.const(0, I64)), ctx)
            for v in items:
                out = self.appended(out, v, node)
            return out
        if room is not None:
            buf = b.emit("alloc", b.add(room, cap), type=buf.type)
        for k, v in enumerate(items):
            b.emit("store", buf, b.const(k, I64), ctx.convert(v, elem))
        out = DynList((buf, b.const(len(items), I64)), ctx)
        out.room = room is not None
        return out

    def item_type(self, lst: DynList) -> str:
        """The type of the items of a DynList."""
        nd = ndim_of(lst.buf.type)
        return array_type(elem_type(lst.buf.type), nd - 1) if nd > 1 else \
            elem_type(lst.buf.type)

    def item(self, lst: DynList, k: Var) -> Var:
        """Item k (normalized) of a DynList: a number, or a copy of an array row (a later
        append may reuse the row)."""
        b = self.ctx.b
        if ndim_of(lst.buf.type) == 1:
            return b.emit("load", lst.buf, k)
        start = len(b.stmts)
        out = self.lw.arrays.copy_array(b.emit("row", lst.buf, k))
        stores = [s for s in walk(Block((), tuple(b.stmts[start:]), ()))
                  if isinstance(s, Op) and s.op == "store" and s.args[0] is out]
        self.ctx.pinned.extend(stores)
        self.ctx.row_copies[out.name] = (frozenset(map(id, stores)), b.loc)
        return out

    def merged(self, sides: list, builders: list, node: ast.AST) -> list:
        """The two branch values of a list whose lengths differ, as DynLists (each made in
        its branch's builder) that can merge."""
        def items(v) -> tuple:
            return tuple(v) if isinstance(v, PyList) else (Var("_", self.item_type(v)),)
        out = []
        for k in (0, 1):
            v = sides[k]
            if isinstance(v, PyList):
                with self.ctx.emitting(builders[k]):
                    v = self.dynamic(tuple(v), node, items(sides[1 - k]))
            out.append(v)
        return out

    # ------------------------------------------------------------------ mutation
    def check_owner(self, lst, node: ast.AST) -> None:
        if lst.owner is not self.ctx:
            raise self.ctx.error(node, "a list passed in from elsewhere (an argument, or a "
                                 "variable of an enclosing function) cannot be mutated here",
                                 hint="build a new list and return it")

    def rebind(self, old, new) -> None:
        """Every name bound to the list `old`, and every list, tuple or dict holding it (at
        any depth), now holds `new` (lists are values here; in CPython they all see the
        one list change: `r = rows[0]; r[1] = v`, `[[0.0] * 3] * 2`)."""
        env = self.ctx.env
        memo: dict[int, Any] = {}

        def swap(v):
            if v is old:
                return new
            if id(v) in memo:
                return memo[id(v)]
            out = v
            if isinstance(v, tuple) and not isinstance(v, DynList):
                items = [swap(x) for x in v]
                if any(a is not b for a, b in zip(items, v)):
                    out = v.rebuild(items) if isinstance(v, Compound) else tuple(items)
            elif isinstance(v, Record):
                children = [swap(x) for x in v.children]
                if any(a is not b for a, b in zip(children, v.children)):
                    out = v.with_children(children)
            memo[id(v)] = out
            return out
        for k, v in list(env.items()):
            env[k] = swap(v)

    def method_call(self, lst, node: ast.Call) -> Value:
        ctx, ex = self.ctx, self.lw.exprs
        attr = node.func.attr
        if attr not in MUTATORS + ("copy", "index", "count"):
            raise ctx.error(node.func, f"unsupported list method `.{attr}()`", hint=(
                "lists support append, extend, pop, copy, index and count" + (
                    "; write `xs = sorted(xs)`" if attr == "sort" else
                    "; write `xs = xs[::-1]`" if attr == "reverse" else "")))
        if node.keywords:
            raise ctx.error(node.keywords[0].value, f"list.{attr}() takes no keyword "
                            "arguments", cls=PyadTypeError)
        made_here = isinstance(node.func.value, ast.Name) and node.func.value.id[:1] == "."
        if attr in MUTATORS and ctx.conditional and not made_here:
            # a list made before the part would change whether it runs or not (the lists a
            # comprehension in the part fills, the compiler's `.lc`, are made in it)
            raise ctx.error(node, f"`.{attr}()` of a list in a part of an expression that "
                            "may not run (`a if c else b`, `and`, `or`)", cls=PyadTypeError,
                            hint=f"write an `if` statement around the `.{attr}()`")
        args = [self.lw.arrayops.materialize(ex.expr(a)) for a in node.args]
        nargs = {"append": (1,), "extend": (1,), "pop": (0, 1), "copy": (0,),
                 "index": (1,), "count": (1,)}[attr]
        if len(args) not in nargs:
            raise ctx.error(node, f"list.{attr}() takes {' or '.join(map(str, nargs))} "
                            "arguments", cls=PyadTypeError)
        if attr == "copy":
            return lst.rebuild(tuple(lst)) if isinstance(lst, PyList) else \
                self.copied(lst)
        if attr in ("index", "count"):
            return self.lw.folds.search(lst, args[0], attr, node)
        self.check_owner(lst, node)
        if attr == "append":
            v = args[0]
            if isinstance(node.args[0], (ast.List, ast.ListComp)) and (
                    isinstance(v, DynList) or isinstance(v, PyList) and len(v)):
                # a new list (no other name holds it) is appended as an array, which a list
                # of run-time length can hold as a row: `[[f(i, j) for j ...] for i ...]`
                v = self.lw.arrays.array(v, node.args[0])
            self.rebind(lst, self.appended(lst, v, node))
            return ctx.b.const(0, I64)   # None: an expression statement drops it
        if attr == "extend":
            return self.extend(lst, args[0], node)
        return self.pop(lst, args[0] if args else None, node)

    def appended(self, lst, v: Value, node: ast.AST):
        if isinstance(lst, PyList):
            return lst.rebuild(tuple(lst) + (v,))
        ctx, b, arrays = self.ctx, self.ctx.b, self.lw.arrays
        want = self.item_type(lst)
        if not isinstance(v, Var) or is_array(v.type) != is_array(want) or (
                is_array(want) and ndim_of(v.type) != ndim_of(want)):
            got = getattr(v, "type", "a tuple")
            raise ctx.error(node, "this list's length is known at run time only, so its items "
                            f"must all be of one kind ({want}), not {got}",
                            cls=PyadTypeError, hint="preallocate an array with np.zeros((n, "
                            "...)) and fill its rows")
        if elem_type(want) == I64 and elem_type(v.type) == F64:
            raise ctx.error(node, "this list holds ints and its length is known at run time "
                            "only, so it cannot take a float", cls=PyadTypeError,
                            hint="start it with floats, e.g. [0.0] or [float(k)]")
        buf, n = lst.buf, lst.n
        if lst.room:   # sized for every append of the loop being lowered
            b.emit("store", buf, n, ctx.convert(v, elem_type(buf.type)))
            self.stored_copy(b.stmts[-1:], buf, v)
            return lst.rebuild((buf, b.add(n, b.const(1, I64))))
        dims = arrays.dims(buf)
        full = b.ge(n, dims[0])
        vdims = arrays.dims(v) if is_array(v.type) else []
        if vdims:   # items of one shape: a buffer made for another shape is replaced
            same = b.const(True, BOOL)
            for d, e in zip(dims[1:], vdims):
                same = b.select(same, b.eq(d, e), same)
            b.emit("raise_if", b.select(b.gt(n, b.const(0, I64)), b.emit("not", same),
                                        b.const(False, BOOL)),
                   attrs=("ValueError", "the arrays in a list of run-time length must "
                          "all have one shape"))
            full = b.select(full, full, b.emit("not", same))
        with ctx.emitting(ctx.builder()) as grow:
            bigger = grow.add(grow.mul(dims[0], grow.const(2, I64)), grow.const(_GROWTH, I64))
            new = grow.emit("alloc", bigger, *vdims, type=buf.type)
            for_each(grow, [n] + vdims, lambda bb, idx: bb.emit(
                "store", new, *idx, bb.emit("load", buf, *idx)))
        out = Var(ctx.names.fresh("buf"), buf.type)
        self.internal(grow.stmts)   # the growth copies the list's own items
        b.stmts.append(If((out,), full, Block((), tuple(grow.stmts), (new,)),
                          Block((), (), (buf,)), b.loc))
        elem = elem_type(buf.type)
        if vdims:
            def put(bb, idx):
                with ctx.emitting(bb):
                    x = ctx.convert(bb.emit("load", v, *idx), elem)
                bb.emit("store", out, n, *idx, x)
            start = len(b.stmts)
            for_each(b, vdims, put)
            self.stored_copy(b.stmts[start:], out, v)
        else:
            b.emit("store", out, n, ctx.convert(v, elem))
        return DynList((out, b.add(n, b.const(1, I64))), lst.owner)

    def stored_copy(self, stmts: list, buf: Var, v: Var) -> None:
        """The stores among `stmts` (nested ones too) copy the array `v` into the list's
        buffer `buf`, where CPython's list would hold `v` itself: a later write into one
        that a read of the other would see is refused (lower.py, ir/sharing.py)."""
        own = self.internal(stmts)
        if is_array(v.type):
            self.ctx.shared_copies.append((own, buf, v, APPENDED, self.ctx.b.loc))

    def internal(self, stmts: list) -> frozenset[int]:
        """The stores among `stmts` (nested ones too), noted as the lists' own writes
        (appends, growth): not writes of the program's into an appended copy."""
        stores = [s for s in walk(Block((), tuple(stmts), ()))
                  if isinstance(s, Op) and s.op == "store"]
        self.ctx.pinned.extend(stores)
        own = frozenset(map(id, stores))
        self.ctx.list_stores |= own
        return own

    def extend(self, lst, other: Value, node: ast.AST) -> Var:
        if type(other) is tuple or isinstance(other, PyList):   # items known when compiling
            for v in other:
                lst2 = self.appended(lst, v, node)
                self.rebind(lst, lst2)
                lst = lst2
            return self.ctx.b.const(0, I64)
        # `for .e in other: lst.append(.e)`, through a temporary name for each
        src, tmp, item = self.temp("src"), self.temp("ext"), self.temp("e")
        env = self.ctx.env
        env[src], env[tmp] = other, lst
        self.run_scoped([ast.For(name(item, True), name(src), [ast.Expr(ast.Call(
            ast.Attribute(name(tmp), "append", ast.Load()), [name(item)], []))], [])],
            node, tmp, set())
        made = self.promotions.get(id(lst))   # the loop made `lst` a DynList, first
        self.rebind(made[1] if made is not None and made[0] is lst else lst, env.pop(tmp))
        env.pop(src, None)
        return self.ctx.b.const(0, I64)

    def pop(self, lst, index: Var | None, node: ast.AST) -> Value:
        ctx = self.ctx
        if isinstance(lst, PyList):
            k = -1 if index is None else self.constant_index(index, node, "pop")
            if not lst:
                raise ctx.error(node, "pop from empty list", cls=PyadTypeError)
            k = k % len(lst) if -len(lst) <= k < len(lst) else None
            if k is None:
                raise ctx.error(node, "pop index out of range", cls=PyadTypeError)
            self.rebind(lst, lst.rebuild(lst[:k] + lst[k + 1:]))
            return lst[k]
        if index is not None and self.literal(index) != -1:
            raise ctx.error(node, "a list of run-time length supports pop() of its last "
                            "item only", hint="use pop() or pop(-1)")
        b = ctx.b
        b.emit("raise_if", b.le(lst.n, b.const(0, I64)), attrs=("IndexError",
                                                                  "pop from empty list"))
        n = b.sub(lst.n, b.const(1, I64))
        v = self.item(lst, n)
        self.rebind(lst, DynList((lst.buf, n), lst.owner))
        return v

    def copied(self, lst: DynList) -> DynList:
        arr = self.to_array(lst)
        return DynList((arr, self.ctx.b.emit("dim", arr, attrs=(0,), type=I64)), self.ctx)

    # ------------------------------------------------------------------ reading, writing
    def literal(self, v: Var) -> int | None:
        return self.ctx.literals.get(v.name) if isinstance(v, Var) else None

    def constant_index(self, v, node: ast.AST, what: str) -> int:
        k = self.literal(v)
        if k is None:
            raise self.ctx.error(node, f"{what}: the index of a list of fixed length must be "
                                 "an integer literal here", cls=PyadTypeError)
        return k

    def index(self, lst, node: ast.Subscript) -> Value:
        ctx, ex = self.ctx, self.lw.exprs
        if isinstance(node.slice, ast.Slice):
            return self.sliced(lst, node)
        i = ex.scalar(ex.expr(node.slice), node.slice)
        if i.type == F64:
            raise ctx.error(node.slice, "list indices must be integers, not float",
                            cls=PyadTypeError)
        k = self.literal(i)
        if isinstance(lst, PyList) and k is not None:
            if not -len(lst) <= k < len(lst):
                raise ctx.error(node, "list index out of range", cls=PyadTypeError)
            return lst[k]
        if isinstance(lst, PyList):
            lst = self.uniform(lst, node)
        j = ctx.b.emit("normidx", ctx.convert(i, I64), lst.n, attrs=(0,), type=I64)
        return self.item(lst, j)

    def uniform(self, lst: PyList, node: ast.AST) -> DynList:
        """`lst` as a DynList, to index it with a run-time index."""
        kinds = {v.type if isinstance(v, Var) else "tuple" for v in lst}
        if len({is_array(t) for t in kinds}) > 1 or "tuple" in kinds:
            raise self.ctx.error(node, "a list indexed with an index known at run time only "
                                 "must hold numbers, or arrays of one shape",
                                 cls=PyadTypeError, hint="index it with an integer literal")
        return self.dynamic(tuple(lst), node)

    def sliced(self, lst, node: ast.Subscript) -> Value:
        s = node.slice
        if isinstance(lst, PyList):
            parts = []
            for e in (s.lower, s.upper, s.step):
                if e is None:
                    parts.append(None)
                    continue
                v = self.lw.exprs.expr(e)
                k = self.literal(v)
                if k is None:
                    break
                parts.append(k)
            else:
                return lst.rebuild(tuple(lst)[slice(*parts)])
        raise self.ctx.error(node, "slicing a list needs integer-literal bounds on a list "
                             "of fixed length", hint="convert it with np.array(...) and "
                             "slice the array")

    def store(self, lst, target: ast.Subscript, value: Value) -> None:
        ctx, ex = self.ctx, self.lw.exprs
        self.check_owner(lst, target)
        if isinstance(target.slice, ast.Slice):
            raise ctx.error(target, "assigning to a slice of a list is not supported",
                            hint="assign the items one by one")
        i = ex.scalar(ex.expr(target.slice), target.slice)
        k = self.literal(i)
        if isinstance(lst, PyList):
            if k is None:
                new = self.uniform(lst, target)
                self.rebind(lst, new)
                lst = new
            elif not -len(lst) <= k < len(lst):
                raise ctx.error(target, "list assignment index out of range",
                                cls=PyadTypeError)
            else:
                items = list(lst)
                items[k] = self.lw.arrayops.materialize(value)
                self.rebind(lst, lst.rebuild(items))
                return
        if is_array(lst.buf.type) and ndim_of(lst.buf.type) > 1:
            raise ctx.error(target, "assigning an item of a list of arrays whose length is "
                            "known at run time only is not supported",
                            hint="preallocate an array with np.zeros((n, ...)) and assign "
                            "its rows")
        v = ex.scalar(value, target)
        j = ctx.b.emit("normidx", ctx.convert(i, I64), lst.n, attrs=(0,), type=I64)
        ctx.b.emit("store", lst.buf, j, ctx.convert(v, elem_type(lst.buf.type)))

    def length(self, lst) -> Var:
        return self.ctx.b.const(len(lst), I64) if isinstance(lst, PyList) else lst.n

    def to_array(self, lst: DynList) -> Var:
        """A new array holding the items of a DynList (np.array(xs), np.stack(xs))."""
        b = self.ctx.b
        return self.lw.arrays.copy_array(b.emit("slice", lst.buf, b.const(0, I64), lst.n))
