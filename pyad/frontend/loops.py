"""Frontend, loops: `while` and `for name in range(...)`, lowered to `While` regions with
explicit loop-carried values.

A loop carries every variable it assigns that exists before it, the exit flags its body may
set (control.py) and, for a range loop, its counter. Lowering one is three steps:

1. `carried`: the names the loop carries and their types before it;
2. `widen`: **loop-type widening**, a fixed point. A variable may widen inside the loop
   (`s = 0` then `s += x` makes `s` a float; `return` inside the loop first binds `%retval`
   there), and the loop's params must already have the wider type. So the loop is lowered
   as a trial, its IR thrown away, and each carried type is joined with the type the body
   leaves (`unify`); a name the body binds that must be carried joins the loop. Repeat
   until nothing changes (at most `MAX_WIDENINGS` rounds: types only widen, i64 -> f64);
3. `emit`: the loop lowered once more, with the final types, and appended.

A name first bound inside the loop is unbound after it when the loop may run zero times.
A loop that certainly runs (`while True`, `for` over a literal non-empty range) binds after
it the names bound on every way out of it (the end of an iteration, a `continue` in a range
loop, a `break`): those read after the loop are carried too, from a placeholder that no
path reads.

Steps 2 and 3 lower the condition and the body through the same function, `region`, which
writes into builders of its own and never into the enclosing one.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from .. import pytree
from ..ir.builder import Builder
from . import definite
from .control import BRK, CONT, LEFT, RET, RETVAL, assigned, exits
from ..errors import PyadTypeError
from .context import DynList, PyList, RangeVal, Undefined, is_value, location_of, unify
from .lists import is_list
from .listscan import appends_per_trip, grown_inside, mutated_lists
from ..ir.nodes import BOOL, F64, I64, Block, Var, While, is_array

MAX_WIDENINGS = 4

#: name -> (tuple structure, leaf types) of each loop-carried variable, in carried order
Carried = dict[str, tuple[object, list[str]]]


@dataclass(frozen=True)
class LoopSpec:
    """`while running and cond(env): body` (with a range loop's counter, if any)."""
    node: ast.stmt
    body: list[ast.stmt]
    cond: Callable[[dict], object]
    counter: tuple[str, ast.expr, Var] | None = None   # (env name, loop target, step)
    runs: bool = False                            # certainly runs at least once
    item: Callable[[Var], object] | None = None   # the target's value for a count k
                                                  # (iteration.py); None: the count itself
    trips: Callable[[], Var] | None = None        # emits the trip count (None: unknown)


@dataclass
class Region:
    """A loop's condition block, and its body as lowered (yields not yet added)."""
    cond: Block
    body: Builder
    params: list[Var]
    end: dict          # the environment at the end of the body
    unset_at_exit: dict[str, set[str]]   # names a break or continue leaves without
    bound_at_break: dict                 # names a break leaves bound (a value of each)


class Loops:
    """Loop lowering (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        self.broke = None   # the `break` flag of the loop lowered last (None: it cannot break)

    # ------------------------------------------------------------------ statements
    def test_in_body(self, node: ast.For | ast.While) -> ast.For | ast.While:
        """`node`; or, for `while test: body` whose test binds names (`while (v := x[i]) <
        1.0:`), `while True: if not test: break` then the body, so that the body and the code
        after the loop see what the test bound (a loop's condition yields only its truth). An
        `else:` runs where the test fails, before that `break`; it may not `break` or
        `continue` an enclosing loop then."""
        if not isinstance(node, ast.While) or not any(isinstance(n, ast.NamedExpr)
                                                      for n in ast.walk(node.test)):
            return node
        if any(isinstance(n, (ast.Break, ast.Continue)) for s in node.orelse
               for n in _outside_loops(s)):
            raise self.ctx.error(node.orelse[0], "the `else:` of a `while` loop whose "
                                 "condition assigns (:=) cannot `break` or `continue`",
                                 hint="assign before the loop and at the end of its body")
        stop = ast.If(ast.UnaryOp(ast.Not(), node.test), list(node.orelse) + [ast.Break()], [])
        loop = ast.While(ast.Constant(True), [stop] + list(node.body), [])
        for n in (stop, stop.test, stop.body[-1], loop, loop.test):
            ast.copy_location(n, node.test if n is not loop else node)
        return loop

    def while_stmt(self, node: ast.While) -> None:
        runs = isinstance(node.test, ast.Constant) and bool(node.test.value)
        self.loop(LoopSpec(node, node.body, lambda env: self.lw.logical.condition(node.test),
                           runs=runs))

    def for_stmt(self, node: ast.For) -> None:
        ctx = self.ctx
        it = node.iter = self._reversed_range(node.iter)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id not in ctx.env
                and ctx.resolve_static(it.func).obj is range and not it.keywords
                and 1 <= len(it.args) <= 3 and isinstance(node.target, ast.Name)):
            self.lw.iteration.for_stmt(node)   # any other iterable
            return
        start, stop, step, literal_step = self.range_args(it)

        def cond(env):
            i = env[counter]
            if literal_step is not None:
                return ctx.b.emit("lt" if literal_step > 0 else "gt", i, stop)
            up = ctx.b.gt(step, ctx.b.const(0, I64))
            return ctx.b.select(up, ctx.b.lt(i, stop), ctx.b.gt(i, stop))

        counter = f"%i.{len(ctx.names.taken)}"  # one per loop; the printer drops the number
        ctx.env[counter] = start
        trips = lambda: self.lw.iteration.range_length(RangeVal((start, stop, step)))  # noqa: E731
        self.loop(LoopSpec(node, node.body, cond, (counter, node.target, step),
                           runs=literal_range_runs(it), trips=trips))
        del ctx.env[counter]

    def _is_builtin(self, func: ast.expr, obj) -> bool:
        return isinstance(func, ast.Name) and func.id not in self.ctx.env \
            and self.ctx.resolve_static(func).obj is obj

    def _reversed_range(self, it: ast.expr) -> ast.expr:
        """`reversed(range(b))` as `range(b - 1, -1, -1)` and `reversed(range(a, b))` as
        `range(b - 1, a - 1, -1)` (the same ints, in the same order): a counting-down loop,
        whose plans see the counter itself (reversed() of other sequences counts up and
        indexes from the end)."""
        if not (isinstance(it, ast.Call) and len(it.args) == 1 and not it.keywords
                and self._is_builtin(it.func, reversed)):
            return it
        r = it.args[0]
        if not (isinstance(r, ast.Call) and 1 <= len(r.args) <= 2 and not r.keywords
                and not any(isinstance(a, ast.Starred) for a in r.args)
                and self.ctx.calls_nothing(r)   # its bounds are evaluated in another order
                and self._is_builtin(r.func, range)):
            return it
        at = location_of(it)
        one = ast.Constant(1, **at)
        lo = r.args[0] if len(r.args) == 2 else ast.Constant(0, **at)
        stop = ast.BinOp(lo, ast.Sub(), one, **at)
        return ast.Call(r.func, [ast.BinOp(r.args[-1], ast.Sub(), one, **at), stop,
                                 ast.UnaryOp(ast.USub(), one, **at)], [], **at)

    def range_args(self, it: ast.Call) -> tuple[Var, Var, Var, int | None]:
        """start, stop, step of `range(...)`, and the step if it is a literal (else None);
        a step that may be zero is checked at run time."""
        ctx, ex = self.ctx, self.lw.exprs
        args = []
        for a in it.args:
            v = ex.scalar(ex.expr(a), a)
            if v.type == F64:
                raise ctx.error(a, "range() arguments must be ints, not float",
                                cls=PyadTypeError)
            args.append(ctx.convert(v, I64))
        zero, one = ctx.b.const(0, I64), ctx.b.const(1, I64)
        ctx.literals.update({zero.name: 0, one.name: 1})   # np.zeros(range(2, 4)): known
        start, stop, step = ([zero] + args if len(args) == 1 else args) \
            + ([] if len(args) == 3 else [one])
        literal_step = it.args[2].value if len(it.args) == 3 and isinstance(
            it.args[2], ast.Constant) else (1 if len(it.args) < 3 else None)
        if literal_step is None:
            ctx.b.loc = ctx.src.loc(it)
            ctx.b.emit("raise_if", ctx.b.eq(step, ctx.b.const(0, I64)),
                       attrs=("ValueError", "range() arg 3 must not be zero"))
        elif literal_step == 0:
            raise ctx.error(it.args[2], "range() arg 3 must not be zero")
        return start, stop, step, literal_step

    # ------------------------------------------------------------------ the three steps
    def loop(self, spec: LoopSpec) -> None:
        ctx = self.ctx
        env = ctx.env
        outer = {f: env.pop(f) for f in (BRK, CONT) if f in env}  # flags of an outer loop
        names, stored = self.carried_names(spec)
        for flag in (BRK, RET):
            if flag in names and flag not in env:
                env[flag] = ctx.b.const(False, BOOL)
        carried = self.widen(spec, {n: signature(env[n])
                                    for n in sorted(names) if is_value(env.get(n))})
        line = ctx.src.loc(spec.node).line
        why = {n: f"when the loop at line {line} runs zero times" for n in stored}
        orelse = getattr(spec.node, "orelse", [])
        else_binds = definite.bound_by(orelse) if orelse else frozenset()
        if spec.runs or else_binds != frozenset():
            carried = self.bound_after(spec, carried, stored, why, else_binds)
        self.emit(spec, dict(sorted(carried.items())))
        for n in stored:  # assigned in the loop only: undefined after it
            if n not in carried:
                env[n] = Undefined(n, why[n])
        self.broke = env.pop(BRK, None)   # whether it left by `break` (an `else:` clause)
        env.update(outer)

    def bound_after(self, spec: LoopSpec, carried: Carried, stored: set[str],
                    why: dict[str, str], else_binds) -> Carried:
        """`carried` and the names first bound in the loop which every way out of it binds
        and which are read after it (their placeholders are emitted here: no path reads
        them); `why` gets the path that leaves each other name unbound. The ways out: each
        `break` (the name bound before it in the same iteration), and the end of the loop,
        which runs the `else:` clause (`else_binds`: the names it binds, definite.ALL if it
        never ends normally) or, without one, is the end of the last iteration of a loop
        that certainly runs; `while True` ends only at a `break`."""
        ctx = self.ctx
        read = names_read_outside(ctx.src.tree, spec.node)
        wanted = sorted(n for n in stored - carried.keys() if n in read)
        if not wanted:
            return carried
        trial = self.region(spec, carried)
        line = ctx.src.loc(spec.node).line
        first = assigned([ast.Assign([spec.counter[1]], ast.Constant(0))]) \
            if spec.counter else set()
        breaks = definite.at_breaks(spec.body, frozenset(first))
        has_else = bool(getattr(spec.node, "orelse", None))
        extra = {}
        for n in wanted:
            v, unset = trial.end.get(n), trial.unset_at_exit.get(n, set())
            every_trip = is_value(v) and not unset & {BRK, CONT}
            by_break = breaks is definite.ALL or n in breaks or (is_value(v) and BRK not in unset)
            by_end = else_binds is definite.ALL or n in else_binds if has_else else \
                not spec.counter or every_trip
            like = v if is_value(v) else trial.bound_at_break.get(n)
            if by_break and by_end and like is not None:
                ctx.env[n] = self.lw.stmts.default(n, like)   # never read
                extra[n] = signature(like)
            elif has_else and by_break and not by_end:
                why[n] = f"when the loop at line {line} ends without `break` and its " \
                    "`else:` does not assign it"
            elif BRK in unset or not by_break:
                why[n] = f"when an iteration of the loop at line {line} ends at a `break` " \
                    "before assigning it"
            elif CONT in unset:
                why[n] = f"when an iteration of the loop at line {line} ends at a " \
                    "`continue` before assigning it"
            else:
                why[n] = v.why if isinstance(v, Undefined) else \
                    f"when an iteration of the loop at line {line} skips it"
        return self.widen(spec, {**carried, **extra}) if extra else carried

    def carried_names(self, spec: LoopSpec) -> tuple[set[str], set[str]]:
        """The names the loop may carry (those bound before it will be), and the names its
        body assigns."""
        found = exits(spec.body)
        targets = [ast.Assign([spec.counter[1]], ast.Constant(0))] if spec.counter else []
        stored = assigned(spec.body + targets)
        stored |= {n for n in mutated_lists(spec.body) if is_list(self.ctx.env.get(n))
                   or type(self.ctx.env.get(n)) is tuple   # `t[0].append(v)`, t a tuple
                   or isinstance(self.ctx.env.get(n), pytree.Record)
                   and self.ctx.env[n].kind == "dict"}
        self.refuse_other_holders(spec, stored)
        names = stored | (found - {CONT}) | ({RETVAL} if RET in found else set())
        if spec.counter:
            names.add(spec.counter[0])
        return names, stored

    def refuse_other_holders(self, spec: LoopSpec, stored: set[str]) -> None:
        """A list the loop changes (`l.append(v)`, `l += [v]`, `l[i] = v`) that another name
        also holds (`m = l`, `h = (l, 1.0)`) and the function reads: CPython's other name
        sees the change, pyad's loop carries `l` only, so it is refused."""
        env = self.ctx.env
        lists = {n: env[n] for n in mutated_lists(spec.body)
                 if is_list(env.get(n)) and not n.startswith(".")}  # not extend's own loop
        if not lists:
            return
        read = {n.id for n in ast.walk(self.ctx.src.tree) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}
        for other in sorted(read - stored):
            held = next((n for n, l in lists.items() if _holds(env.get(other), l)), None)
            if held is not None:
                raise self.ctx.error(spec.node, f"this loop changes the list `{held}`, which "
                                     f"`{other}` also holds: CPython's `{other}` would see "
                                     "the change, pyad's would not", cls=PyadTypeError,
                                     hint=f"read the list through `{held}` after the loop, "
                                     f"or rebind `{other}` after it")

    def widen(self, spec: LoopSpec, carried: Carried) -> Carried:
        """Loop-type widening (step 2 of the module docstring): the fixed point of
        `carried` under one trial lowering of the loop. Emits nothing."""
        for _ in range(MAX_WIDENINGS + len(carried)):
            end = self.region(spec, carried).end
            wider = dict(carried)
            for n, v in end.items():
                if not is_value(v):
                    continue
                if n in carried and self.promoted(spec, n, v):
                    wider[n] = signature(self.ctx.env[n])
                elif n in carried:
                    struct, types = carried[n]
                    wider[n] = (struct, [unify(t, x.type)
                                         for t, x in zip(types, pytree.leaves(v))])
                elif n == RETVAL and RETVAL not in self.ctx.env:  # first bound in the loop
                    wider[n] = (pytree.structure(v), [x.type for x in pytree.leaves(v)])
            if wider == carried:
                break
            carried = wider
        return carried

    def promoted(self, spec: LoopSpec, n: str, end) -> bool:
        """Whether the list bound to `n` before the loop had to become a DynList (its length
        changes in the loop: lists.py); if so it is one now, made before the loop."""
        start = self.ctx.env.get(n)
        if not isinstance(start, PyList) or pytree.structure(end) == pytree.structure(start):
            return False
        lists = self.lw.lists
        like = tuple(end) if isinstance(end, PyList) else \
            (Var("_", lists.item_type(end)),) if isinstance(end, DynList) else ()
        k = appends_per_trip(spec.body, n)
        room = None if k is None or spec.trips is None else \
            self.ctx.b.mul(spec.trips(), self.ctx.b.const(k, I64))
        new = lists.dynamic(tuple(start), spec.node, like, room)
        lists.rebind(start, new)
        lists.promotions[id(start)] = (start, new)
        return True

    def changes_kind(self, spec: LoopSpec, n: str, end) -> Exception:
        """The error for a variable the loop gives another structure (or no value)."""
        if self.ctx.env.get(n) == pytree.NONE and is_value(end):   # a `prev = None` sentinel
            return self.ctx.error(spec.node, f"`{n}` is None before the loop and a value "
                                  "after a trip: a variable keeps one kind of value in a loop",
                                  hint=f"give `{n}` a number (or array) before the loop and "
                                  "mark the first trip with a flag (`first = True`), or "
                                  "start the loop one trip later: `prev = x[0]` then "
                                  "`for i in range(1, n):`")
        inner = grown_inside(spec.body, n)
        return self.ctx.error(spec.node, f"`{n}` changes shape or becomes undefined inside "
                              "the loop", hint="a list the loop appends to inside a container "
                              f"(`{n}[...].append(v)`) cannot grow there: build it in a "
                              f"variable and store it into `{n}` after the loop" if inner
                              else "")

    def emit(self, spec: LoopSpec, carried: Carried) -> None:
        """Append the loop with the carried types found by `widen` (step 3)."""
        ctx = self.ctx
        loc = ctx.src.loc(spec.node)
        ctx.b.loc = loc
        for n, (struct, types) in carried.items():
            if n not in ctx.env:  # e.g. %retval, first set inside the loop: starts as zeros
                like = pytree.unflatten(struct, (Var("_", t) for t in types))
                ctx.env[n] = self.lw.stmts.default(n, like)
        inits = [ctx.convert(v, t) for n, (_, types) in carried.items()
                 for v, t in zip(pytree.leaves(ctx.env[n]), types)]
        region = self.region(spec, carried)
        yields = []
        with ctx.emitting(region.body):
            for n, (struct, types) in carried.items():
                v = region.end.get(n)
                if not is_value(v) or pytree.structure(v) != struct:
                    raise self.changes_kind(spec, n, v)
                for x, t in zip(pytree.leaves(v), types):
                    if is_array(x.type) and not is_array(t):
                        raise ctx.error(spec.node, f"`{n}` is a number before the loop and "
                                        f"becomes an array ({x.type}) in it", cls=PyadTypeError,
                                        hint=f"start it as an array of that shape, e.g. "
                                        f"`{n} = np.zeros(...)` or `np.zeros_like(...)`")
                    yields.append(ctx.convert(x, t))
        body = Block(tuple(region.params), tuple(region.body.stmts), tuple(yields))
        outs = [Var(ctx.names.fresh(n.lstrip("%")), t) for n, (_, ts) in carried.items()
                for t in ts]
        assert [o.type for o in outs] == [v.type for v in inits]
        ctx.b.stmts.append(While(tuple(outs), tuple(inits), region.cond, body, loc))
        it = iter(outs)
        for n, (struct, _) in carried.items():
            v = pytree.unflatten(struct, it)
            # room made for this loop's appends is not room for appends after it
            ctx.env[n] = DynList(v, v.owner) if isinstance(v, DynList) else v

    # ------------------------------------------------------------------ one lowering
    def region(self, spec: LoopSpec, carried: Carried) -> Region:
        """The loop's condition and body lowered for `carried`, each into a builder of its
        own, with fresh params bound to the carried names. The enclosing builder and
        environment are left as they were."""
        ctx = self.ctx
        loc = ctx.src.loc(spec.node)
        before = dict(ctx.env)

        def params() -> tuple[list[Var], dict]:
            vs = [Var(ctx.names.fresh(n.lstrip("%")), t) for n, (_, ts) in carried.items()
                  for t in ts]
            it = iter(vs)
            env = dict(before)
            for n, (struct, _) in carried.items():
                env[n] = pytree.unflatten(struct, it)
            return vs, env

        cparams, cenv = params()
        with ctx.scope(cenv), ctx.emitting(Builder(ctx.names, loc)) as cb:
            go = self.condition(spec, carried)
        cond = Block(tuple(cparams), tuple(cb.stmts), (go,))
        bparams, benv = params()
        saved = ctx.unset_at_exit, ctx.bound_at_break
        ctx.unset_at_exit, ctx.bound_at_break = {}, {}
        try:
            with ctx.scope(benv), ctx.emitting(Builder(ctx.names, loc)) as bb:
                self.body(spec, loc)
            return Region(cond, bb, bparams, benv, ctx.unset_at_exit, ctx.bound_at_break)
        finally:
            ctx.unset_at_exit, ctx.bound_at_break = saved

    def condition(self, spec: LoopSpec, carried: Carried) -> Var:
        """Still running (no break, no return) and the user's condition."""
        ctx, ex = self.ctx, self.lw.exprs
        running = [ctx.env[f] for f in (BRK, RET) if f in carried]
        if not running:
            return ex.truth(spec.cond(ctx.env), spec.node)
        stop = running[0] if len(running) == 1 else ctx.b.select(
            running[0], running[0], running[1])
        return ex.branch(stop, lambda: ctx.b.const(False, BOOL),
                         lambda: ex.truth(spec.cond(ctx.env), spec.node), spec.node)

    def body(self, spec: LoopSpec, loc) -> None:
        ctx = self.ctx
        ctx.loop_depth += 1
        try:
            if spec.counter:
                name, target, step = spec.counter
                k = ctx.env[name]
                self.lw.stmts.assign(target, k if spec.item is None else spec.item(k))
                self.lw.stmts.stmts(spec.body)
                ctx.b.loc = loc
                ctx.env[name] = ctx.b.add(ctx.env[name], step)
            else:
                self.lw.stmts.stmts(spec.body)
        finally:
            ctx.loop_depth -= 1
        ctx.env.pop(CONT, None)
        ctx.env.pop(LEFT, None)   # the next iteration starts running again


def signature(v) -> tuple[object, list[str]]:
    """The tuple structure and leaf types of a value (an entry of `Carried`)."""
    return pytree.structure(v), [x.type for x in pytree.leaves(v)]


def literal_range_runs(it: ast.Call) -> bool:
    """Whether `range(...)` has literal int arguments and is not empty."""
    try:
        args = [ast.literal_eval(a) for a in it.args]
    except ValueError:
        return False
    return all(type(a) is int for a in args) and (len(args) < 3 or args[2] != 0) \
        and len(range(*args)) > 0


def names_read_outside(tree: ast.AST, loop: ast.stmt) -> set[str]:
    """The names read anywhere in `tree` but inside `loop`."""
    inside = {id(n) for n in ast.walk(loop)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load) and id(n) not in inside}


def _holds(v, lst) -> bool:
    """Whether the value `v` is, or holds at any depth, the list `lst` (by identity: another
    name for CPython's one list object)."""
    if v is lst:
        return True
    if isinstance(v, pytree.Record):
        return any(_holds(c, lst) for c in v.children)
    return isinstance(v, tuple) and not isinstance(v, DynList) and \
        any(_holds(c, lst) for c in v)


def _outside_loops(node: ast.AST):
    """The nodes of `node` not inside a loop or function nested in it."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            yield from _outside_loops(child)
