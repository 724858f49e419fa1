"""Frontend, statements: assignments, if/elif/else, break, continue and return from anywhere,
lowered to structured `If` regions (loops: loops.py).

Exits are data: `break`, `continue` and `return` (and `raise`, raising.py) set flags in the
environment (`%brk`, `%cont`, `%ret`, with the returned value in `%retval`), and the
statements after one that may exit run inside `if not exiting`. Merging the environments of
two branches, and the loop-carried values of a loop, then carry the flags like any other
variable.

Definite assignment follows CPython's paths: a path that has certainly left (its environment
holds `%left`, the kinds of exit it took) never reaches a later read, so a name it lacks is
given a placeholder when the branches merge instead of becoming `Undefined`; a name that a
`break` or `continue` leaves the iteration without is recorded for the loop
(`ctx.unset_at_exit`, loops.py).
"""
from __future__ import annotations

import ast

from .. import pytree
from ..ir.builder import Builder
from ..errors import PyadTypeError
from . import dictstate, itemstore, raising, records
from .context import Compound, DynList, PyList, RangeVal, SliceVal, Undefined, is_value, \
    location_of, unify
from .lists import is_list
from .closures import holds_code, is_function
from .context import Lazy
from .deferral import Deferral, loops_per_element
from ..ir.nodes import BOOL, I64, If, Op, Var, is_array, ndim_of

BRK, CONT, RET, RETVAL = "%brk", "%cont", "%ret", "%retval"
FLAGS = (BRK, CONT, RET)
LEFT = "%left"   # present on a path that has certainly left: the exits it took (a frozenset)
EXIT_FLAG = {ast.Break: BRK, ast.Continue: CONT, ast.Return: RET, ast.Raise: RET}


def assigned(stmts: list[ast.stmt]) -> set[str]:
    """Names stored to anywhere in `stmts` (nested blocks included)."""
    out: set[str] = set()
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def exits(stmts: list[ast.stmt], loop_level: bool = True) -> set[str]:
    """Which exit flags `stmts` may set: break/continue of the loop they are in (not of
    nested loops), and return from anywhere."""
    found: set[str] = set()
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            found.add(RET)
        elif isinstance(s, ast.Break) and loop_level:
            found.add(BRK)
        elif isinstance(s, ast.Continue) and loop_level:
            found.add(CONT)
        elif isinstance(s, ast.If):
            found |= exits(s.body, loop_level) | exits(s.orelse, loop_level)
        elif isinstance(s, (ast.For, ast.While)):
            found |= exits(s.body, False) & {RET} | exits(s.orelse, loop_level)
    return found


def always_returns(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            return True
        if isinstance(s, ast.If) and always_returns(s.body) and always_returns(s.orelse):
            return True
        if isinstance(s, ast.While) and isinstance(s.test, ast.Constant) and s.test.value \
                and BRK not in exits(s.body):
            return True  # `while True:` left only by return
        if isinstance(s, (ast.For, ast.While)) and BRK not in exits(s.body) \
                and always_returns(s.orelse):
            return True  # an `else:` that returns, after a loop without `break`
    return False


#: statements never compiled, whatever they contain: reported as themselves, at their own
#: line, before a missing return that they may explain (`try: return f(x)`)
REFUSED_STATEMENTS = (ast.Try, ast.TryStar, ast.Match, ast.With, ast.AsyncWith, ast.AsyncFor)


def refused_statement(stmts: list[ast.stmt]) -> ast.stmt | None:
    """The first statement (in source order) in `stmts` or nested in them that is never
    compiled, or None."""
    found = [n for s in stmts for n in ast.walk(s) if isinstance(n, REFUSED_STATEMENTS)]
    return min(found, key=lambda n: (n.lineno, n.col_offset), default=None)


class Statements:
    """Statement lowering (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        self._deferral: Deferral | None = None
        self._mutable_dicts: dict[str, str] | None = None
        self.deferred: dict[str, ast.stmt] = {}   # name -> the statement that will read it
        self.at: tuple[list[ast.stmt], int] | None = None   # the statement being lowered

    # ------------------------------------------------------------------ statement lists
    def stmts(self, stmts: list[ast.stmt]) -> None:
        """Lower a statement list. The values it defers are its own: a list lowered while
        a statement of another is (a comprehension's statements) neither evaluates nor
        sees the other's."""
        outer = self.deferred, self.at
        self.deferred = {}
        try:
            self._stmts(stmts)
        finally:
            self.deferred, self.at = outer

    def _stmts(self, stmts: list[ast.stmt]) -> None:
        env = self.ctx.env
        for i, s in enumerate(stmts):
            if self.deferred and not self.deferral.pure(s):
                self.flush()
            self.at = (stmts, i)
            self.stmt(s)
            for name in [n for n, c in self.deferred.items() if c is s]:
                del self.deferred[name]     # read: no later statement reads it
                env[name] = Undefined(name, "after its only read")
            if type(s) in EXIT_FLAG:
                env[LEFT] = frozenset({EXIT_FLAG[type(s)]})
            if LEFT in env:
                self.flush()
                return  # the rest is unreachable
            rest = stmts[i + 1:]
            if rest and exits([s]) & (set(FLAGS) & env.keys()):
                self.flush()
                left = frozenset(f for f in FLAGS if isinstance(env.get(f), Var))
                self.if_region(self.still_running(rest[0]), rest, [], rest[0], left)
                return
        self.flush()

    @property
    def mutable_dicts(self) -> dict[str, str]:
        """dictstate.mutable_dicts of this body (computed on the first assignment into a
        dict)."""
        if self._mutable_dicts is None:
            self._mutable_dicts = dictstate.mutable_dicts(self.lw.fdef)
        return self._mutable_dicts

    @property
    def deferral(self) -> Deferral:
        if self._deferral is None:
            self._deferral = Deferral(self.lw.fdef, self.ctx)
        return self._deferral

    def flush(self) -> None:
        """Evaluate the deferred values (deferral.py) here, before memory may change."""
        for name in self.deferred:
            self.ctx.env[name] = self.lw.arrayops.materialize(self.ctx.env[name])
        self.deferred.clear()

    def defer(self, target: ast.expr, value) -> bool:
        """Bind `target = value` leaving the elementwise `value` unevaluated, if the rules
        of deferral.py allow it."""
        if not (isinstance(value, Lazy) and isinstance(target, ast.Name)):
            return False
        stmts, i = self.at
        reader = self.deferral.consumer(target.id, stmts, i)
        if reader is None:
            return False
        if self.deferral.read_count(target.id) > 1 and \
                loops_per_element(self.ctx, value):
            return False    # read twice, it would run its loops twice
        self.ctx.env[target.id] = value
        self.deferred[target.id] = reader
        return True

    def still_running(self, node: ast.AST) -> Var:
        ctx = self.ctx
        flags = [ctx.env[f] for f in FLAGS if isinstance(ctx.env.get(f), Var)]
        ctx.b.loc = ctx.src.loc(node)
        acc = flags[0]
        for f in flags[1:]:
            acc = ctx.b.select(acc, acc, f)  # acc or f (bools, both already computed)
        return ctx.b.emit("not", acc)

    def _return(self, node: ast.Return) -> None:
        ctx = self.ctx
        if node.value is None and ctx.parent is None:
            raise ctx.error(node, "return without a value",
                            hint="return a number or a tuple of numbers")
        value = pytree.NONE if node.value is None else self.lw.exprs.expr(node.value)
        if ctx.parent is None and holds_code(value):   # a helper may return a function
            raise ctx.error(node.value, "a compiled function returns numbers, arrays and "
                            "containers of them, not a function or module",
                            hint="return the values; call the inner function inside (or "
                            "compile it on its own)")
        ctx.env[RETVAL] = self.lw.arrayops.materialize(value)
        ctx.env[RET] = ctx.b.const(True, BOOL)

    def stmt(self, node: ast.stmt) -> None:
        ctx, ex = self.ctx, self.lw.exprs
        ctx.b.loc = ctx.src.loc(node)
        match node:
            case ast.Assign():
                mark = self.mark()
                value = ex.expr(node.value)
                if len(node.targets) == 1 and self.defer(node.targets[0], value):
                    return
                if len(node.targets) > 1:  # `x = y = v`: one array for both names
                    value = self.lw.arrayops.materialize(value)
                for target in node.targets:  # no target renames v's op then
                    self.assign(target, value, mark if len(node.targets) == 1 else None)
            case ast.AnnAssign() if node.value is not None:
                mark = self.mark()
                value = ex.expr(node.value)
                if not self.defer(node.target, value):
                    self.assign(node.target, value, mark)
            case ast.AugAssign():
                self.aug_assign(node)
            case ast.If():
                taken = records.static_truth(self.lw, node.test)  # e.g. `if scale is None:`
                if taken is not None:
                    self.stmts(node.body if taken else node.orelse)
                    return
                self.if_region(self.lw.logical.condition(node.test), node.body, node.orelse, node)
            case ast.While() | ast.For():
                loops, node = self.lw.loops, self.lw.loops.test_in_body(node)  # `(v := ...)`
                loops.broke = None
                (loops.while_stmt if isinstance(node, ast.While) else loops.for_stmt)(node)
                if node.orelse:
                    self.loop_else(node, loops.broke)
            case ast.Break() | ast.Continue():
                if not ctx.loop_depth:
                    word = "break" if isinstance(node, ast.Break) else "continue"
                    raise ctx.error(node, f"`{word}` outside a loop")
                ctx.env[BRK if isinstance(node, ast.Break) else CONT] = ctx.b.const(True, BOOL)
            case ast.Return():
                self._return(node)
            case ast.Raise():   # leaves the function, like a return without a value
                raising.lower_raise(self.lw, node)
                ctx.env[RET] = ctx.b.const(True, BOOL)
            case ast.Assert():
                raising.lower_assert(self.lw, node)
            case ast.FunctionDef():
                ctx.env[node.name] = self.lw.closures.define(node)
            case ast.Pass():
                pass
            case ast.Expr():
                if not (isinstance(node.value, ast.Constant)
                        and isinstance(node.value.value, str)):
                    ex.expr(node.value)  # evaluated for its errors; the value is unused
            case _:
                raise ctx.unsupported(node)

    def loop_else(self, node: ast.For | ast.While, broke) -> None:
        """The `else:` clause of a loop: it runs when the loop ended without `break` (and
        without `return`)."""
        ctx = self.ctx
        flags = [f for f in (broke, ctx.env.get(RET)) if isinstance(f, Var)]
        if not flags:
            self.stmts(node.orelse)
            return
        ctx.b.loc = ctx.src.loc(node.orelse[0])
        left = flags[0] if len(flags) == 1 else ctx.b.select(flags[0], flags[0], flags[1])
        self.if_region(ctx.b.emit("not", left), node.orelse, [], node.orelse[0])

    def aug_assign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Subscript):
            itemstore.aug_store(self.lw, node)
            return
        if not isinstance(node.target, ast.Name):
            raise self.ctx.unsupported(node.target)
        ex = self.lw.exprs
        current = ex.name(node.target)
        if is_list(current) and isinstance(node.op, (ast.Add, ast.Mult)):
            # list.__iadd__ is extend, __imul__ repeats in place: every holder sees it
            lists = self.lw.lists
            lists.check_owner(current, node)
            other = self.lw.arrayops.materialize(ex.expr(node.value))
            if isinstance(node.op, ast.Add):
                lists.extend(current, other, node)
            else:
                lists.rebind(current, ex.binop(node.op, current, other, node))
            return
        mark = self.mark()
        new = ex.binop(node.op, current, ex.expr(node.value), node)
        if isinstance(current, Var) and is_array(current.type):
            self.lw.arrayops.assign_into(current, new, node)  # `a += ...` updates a in place
        else:
            self.assign(node.target, new, mark)

    # ------------------------------------------------------------------ assignment
    def mark(self) -> tuple[Builder, int]:
        """Where the next statement will go: an assignment may rename only ops emitted after
        its mark (by its own right-hand side), never a value bound to another name."""
        return self.ctx.b, len(self.ctx.b.stmts)

    def assign(self, target: ast.expr, value, mark: tuple[Builder, int] | None = None) -> None:
        ctx = self.ctx
        value = self.lw.arrayops.materialize(value)
        if isinstance(target, ast.Name):
            if isinstance(value, Var) and mark is not None:
                value = self.named(value, target.id, mark)
            ctx.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, RangeVal):   # `i, j = range(2)`: its items
                value = self.lw.arrays.array(value, target)
            if isinstance(value, SliceVal):
                raise self.lw.exprs.not_a_sequence(target)
            if any(isinstance(t, ast.Starred) for t in target.elts):
                target, value = self.starred(target, value)
            elif isinstance(value, DynList) or isinstance(value, Var) and is_array(value.type):
                value = self.array_rows(target, value, len(target.elts), 0)
            if not isinstance(value, tuple):
                raise ctx.error(target, "cannot unpack a number", cls=PyadTypeError)
            if len(value) != len(target.elts):
                raise ctx.error(target, f"cannot unpack {len(value)} values into "
                                f"{len(target.elts)} names", cls=PyadTypeError)
            leaves = [v for v in pytree.leaves(value) if isinstance(v, Var)]  # not functions
            if len({v.name for v in leaves}) < len(leaves):
                mark = None  # `a, b = p, p`: one value, two names
            for t, v in zip(target.elts, value):
                self.assign(t, v, mark)
        elif isinstance(target, ast.Subscript):
            itemstore.store(self.lw, target, value)
        else:
            raise ctx.unsupported(target, "assignment target")

    def starred(self, target: ast.Tuple | ast.List, value):
        """`a, *rest, z = value`: the target without the star, and the value regrouped to
        match it (the starred name gets a list of the middle items; of an array, the slice
        of the middle rows, an array where CPython makes a list of rows)."""
        ctx = self.ctx
        stars = [k for k, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
        if len(stars) > 1:
            raise ctx.error(target, "multiple starred expressions in assignment")
        k, n_after = stars[0], len(target.elts) - stars[0] - 1
        elts = list(target.elts)
        elts[k] = elts[k].value
        plain = ast.Tuple(elts, ast.Store(), **location_of(target))
        if isinstance(value, Var) and is_array(value.type):
            return plain, self.array_rows(target, value, len(elts) - 1, n_after, k)
        if isinstance(value, PyList) or isinstance(value, tuple) and not is_list(value):
            items = tuple(value)
            if len(items) < len(elts) - 1:
                raise ctx.error(target, f"not enough values to unpack (expected at least "
                                f"{len(elts) - 1}, got {len(items)})", cls=PyadTypeError)
            middle = PyList(items[k:len(items) - n_after], ctx)
            return plain, (*items[:k], middle, *items[len(items) - n_after:])
        raise ctx.error(target, "starred assignment unpacks a tuple, a list of known length "
                        "or an array here", cls=PyadTypeError)

    def array_rows(self, target: ast.expr, value, count: int, n_after: int,
                   star: int | None = None) -> tuple:
        """The rows of an array (NumPy unpacks an array like a sequence of its rows), or the
        items of a list whose length is known when it runs (no star), unpacked into `count`
        names, checked against its length when it runs: exactly `count` rows, or at least
        `count` with a starred name at position `star`, which gets the slice of the rows
        between the first `star` and the last `n_after`."""
        ctx = self.ctx
        n = value.n if isinstance(value, DynList) else ctx.b.emit("dim", value, attrs=(0,),
                                                                    type=I64)
        want = ctx.b.const(count, I64)
        expected = f"expected at least {count}" if star is not None else f"expected {count}"
        ctx.b.emit("raise_if", ctx.b.lt(n, want),
                   attrs=("ValueError", f"not enough values to unpack ({expected})"))
        if star is None:
            ctx.b.emit("raise_if", ctx.b.lt(want, n),
                       attrs=("ValueError", f"too many values to unpack ({expected})"))
        tmp = ctx.temp("unpack")
        at = lambda i: self.lw.exprs.expr(ast.Subscript(  # noqa: E731
            ast.Name(tmp, ast.Load()), i, ast.Load(), **location_of(target)))
        ctx.env[tmp] = value
        try:
            num = lambda c: ast.Constant(c)  # noqa: E731
            if star is None:
                return tuple(at(num(i)) for i in range(count))
            head = [at(num(i)) for i in range(star)]
            middle = at(ast.Slice(num(star), num(-n_after) if n_after else None, None))
            tail = [at(num(i - n_after)) for i in range(n_after)]
        finally:
            del ctx.env[tmp]
        return (*head, middle, *tail)

    def named(self, v: Var, name: str, mark: tuple[Builder, int]) -> Var:
        """Give the value just computed for `name = ...` a readable SSA name: only the op
        the right-hand side emitted last (`mark` is where it started), so no other binding
        (an inlined helper's parameter, another target) still refers to the old name."""
        b = self.ctx.b
        last = b.stmts[-1] if b.stmts else None
        fresh = mark[0] is b and len(b.stmts) > mark[1]
        if fresh and isinstance(last, Op) and last.outs == (v,) and v.name[0].isdigit():
            new = Var(self.ctx.names.fresh(name), v.type)
            b.stmts[-1] = Op((new,), last.op, last.args, last.attrs, last.loc)
            if v.name in self.ctx.literals:   # `n = 3`: n is the literal 3
                self.ctx.literals[new.name] = self.ctx.literals[v.name]
            return new
        return v

    # ------------------------------------------------------------------ if
    def if_region(self, cond: Var, then: list[ast.stmt], orelse: list[ast.stmt],
                  node: ast.AST, else_left: frozenset = frozenset()) -> None:
        """`if cond: then else: orelse`; `else_left` marks an `orelse` path that has left
        (the `if not exiting` guard of control.py's module docstring)."""
        ctx = self.ctx
        before = dict(ctx.env)
        envs, builders = [], []
        for stmts, left in ((then, frozenset()), (orelse, else_left)):
            start = {**before, LEFT: left} if left else dict(before)
            with ctx.emitting(ctx.builder()) as b, ctx.scope(start) as env:
                self.stmts(stmts)
            envs.append(env)
            builders.append(b)
        lefts = [env.pop(LEFT, frozenset()) for env in envs]
        names = [n for n in {**envs[0], **envs[1]}
                 if envs[0].get(n) is not before.get(n) or envs[1].get(n) is not before.get(n)]
        merged, yields = {}, ([], [])
        for n in names:
            sides = [envs[0].get(n), envs[1].get(n)]
            for k in (0, 1):  # what a `break` leaves it bound to: its type after the loop
                if BRK in lefts[k] and is_value(sides[k]) and n not in FLAGS + (RETVAL,):
                    ctx.bound_at_break.setdefault(n, sides[k])
            for k in (0, 1):  # a path that left, or a flag or return value, gets a default
                if not is_value(sides[k]) and is_value(sides[1 - k]) \
                        and (lefts[k] or n in FLAGS + (RETVAL,)):
                    if n not in FLAGS + (RETVAL,):
                        for flag in lefts[k] & {BRK, CONT}:
                            ctx.unset_at_exit.setdefault(n, set()).add(flag)
                    with ctx.emitting(builders[k]):
                        sides[k] = self.default(n, sides[1 - k])
            if any(is_function(v) for v in sides) and sides[0] is not sides[1]:
                raise ctx.error(node, f"`{n}` is bound to different functions (or to a "
                                "function and a value) on the two paths of this `if`",
                                hint="pyad picks the function to call at compile time: "
                                "call each where it is chosen")
            if not (is_value(sides[0]) and is_value(sides[1])):
                merged[n] = self.unassigned(n, sides, node)
                continue
            if is_list(sides[0]) and is_list(sides[1]) \
                    and pytree.structure(sides[0]) != pytree.structure(sides[1]):
                sides = self.lw.lists.merged(sides, builders, node)
            struct = pytree.structure(sides[0])
            if struct != pytree.structure(sides[1]):
                raise self.unmerged(n, sides, node)
            leaves = list(zip(pytree.leaves(sides[0]), pytree.leaves(sides[1])))
            types = [unify(a.type, b.type) for a, b in leaves]
            for k in (0, 1):
                yields[k].extend((pair[k], t) for pair, t in zip(leaves, types))
            merged[n] = (struct, types)
        blocks = [self.lw.exprs.finish_region(builders[k], yields[k]) for k in (0, 1)]
        outs = [Var(ctx.names.fresh(n.lstrip("%")), t)
                for n, m in merged.items() if not isinstance(m, Undefined) for t in m[1]]
        ctx.b.stmts.append(If(tuple(outs), cond, blocks[0], blocks[1], ctx.src.loc(node)))
        it = iter(outs)
        for n, m in merged.items():
            ctx.env[n] = m if isinstance(m, Undefined) else pytree.unflatten(m[0], it)
        if lefts[0] and lefts[1]:
            ctx.env[LEFT] = lefts[0] | lefts[1]

    def unmerged(self, n: str, sides: list, node: ast.AST):
        """The error for `n` bound to values of different structures on the two paths of
        an `if`."""
        if any(getattr(v, "kind", "") == "str" for v in sides):
            return self.ctx.error(node, f"`{n}` is a different string (or a string and "
                                  "another value) on the two paths of this `if`", hint=(
                                  "strings are compile-time values: choose with a test known "
                                  "when compiling, or use numbers"))
        if all(isinstance(v, SliceVal) for v in sides):
            return self.ctx.error(node, f"`{n}` is a slice whose bounds are None on one path "
                                  "of this `if` and numbers on the other", hint="write the "
                                  "bound out on both paths (0, len(x), 1)", cls=PyadTypeError)
        return self.ctx.error(node, f"`{n}` has different tuple shapes in the two branches")

    def unassigned(self, name: str, sides: list, node: ast.AST) -> Undefined:
        """`name` after an `if` where a path that goes on lacks it: the path that does."""
        for side in sides:
            if isinstance(side, Undefined):
                return side
        line = self.ctx.src.loc(node).line
        return Undefined(name, f"when the `if` at line {line} is "
                         f"{'true' if sides[0] is None else 'false'}")

    def default(self, name: str, like):
        """The value of a flag (False) or of %retval (zeros shaped like `like`) on a path that
        did not set it."""
        b = self.ctx.b
        if name in FLAGS:
            return b.const(False, BOOL)
        if isinstance(like, pytree.Record):   # a dict, namedtuple... (None: itself)
            return like.with_children(self.default(name, e) for e in like.children)
        if isinstance(like, tuple):
            items = tuple(self.default(name, e) for e in like)
            return like.rebuild(items) if isinstance(like, Compound) else items
        if is_array(like.type):  # a placeholder: an empty array
            zero = b.const(0, I64)
            return b.emit("alloc", *([zero] * ndim_of(like.type)), type=like.type)
        return b.const(0, like.type) if like.type != BOOL else b.const(False, BOOL)
