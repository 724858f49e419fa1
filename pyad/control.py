"""Frontend, statements: assignments, if/elif/else, for-range, while, break, continue and
return from anywhere, lowered to structured `If` and `While` regions.

Exits are data: `break`, `continue` and `return` set flags in the environment (`%brk`,
`%cont`, `%ret`, with the returned value in `%retval`), and the statements after one that
may exit run inside `if not exiting`. Merging the environments of two branches, and the
loop-carried values of a loop, then carry the flags like any other variable. A loop carries
every variable it assigns that exists before it; a variable whose type widens inside the
loop (`s = 0` then `s += x`) is found by lowering the body again with the wider type.
"""
from __future__ import annotations

import ast

from .builder import Builder
from .errors import PyadTypeError
from .ir import BOOL, F64, I64, Block, If, Op, Var, While, is_array, ndim_of

BRK, CONT, RET, RETVAL = "%brk", "%cont", "%ret", "%retval"
FLAGS = (BRK, CONT, RET)


class Undefined:
    """A name assigned on some paths only (reading it is an error, like UnboundLocalError)."""

    def __init__(self, name: str) -> None:
        self.name = name


def _leaves(v) -> list[Var]:
    if isinstance(v, tuple):
        return [x for e in v for x in _leaves(e)]
    return [v]


def _shape(v):
    return tuple(_shape(e) for e in v) if isinstance(v, tuple) else None


def _rebuild(shape, it):
    return tuple(_rebuild(s, it) for s in shape) if isinstance(shape, tuple) else next(it)


def _unify(a: str, b: str) -> str:
    if a == b or is_array(a) or is_array(b):
        return a  # arrays never change type (a mismatch fails in convert, located)
    return F64 if F64 in (a, b) else I64


def _assigned(stmts: list[ast.stmt]) -> set[str]:
    """Names stored to anywhere in `stmts` (nested blocks included)."""
    out: set[str] = set()
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def _exits(stmts: list[ast.stmt], loop_level: bool = True) -> set[str]:
    """Which exit flags `stmts` may set: break/continue of the loop they are in (not of
    nested loops), and return from anywhere."""
    found: set[str] = set()
    for s in stmts:
        if isinstance(s, ast.Return):
            found.add(RET)
        elif isinstance(s, ast.Break) and loop_level:
            found.add(BRK)
        elif isinstance(s, ast.Continue) and loop_level:
            found.add(CONT)
        elif isinstance(s, ast.If):
            found |= _exits(s.body, loop_level) | _exits(s.orelse, loop_level)
        elif isinstance(s, (ast.For, ast.While)):
            found |= _exits(s.body, False) & {RET}
    return found


def always_returns(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and always_returns(s.body) and always_returns(s.orelse):
            return True
        if isinstance(s, ast.While) and isinstance(s.test, ast.Constant) and s.test.value \
                and BRK not in _exits(s.body):
            return True  # `while True:` left only by return
    return False


class ControlFlow:
    """Statement lowering; mixed into `frontend.Lowering` (which provides expressions)."""

    # ------------------------------------------------------------------ statement lists
    def stmts(self, stmts: list[ast.stmt]) -> None:
        for i, s in enumerate(stmts):
            self.stmt(s)
            if isinstance(s, (ast.Return, ast.Break, ast.Continue)):
                return  # the rest is unreachable
            rest = stmts[i + 1:]
            if rest and _exits([s]) & (set(FLAGS) & self.env.keys()):
                self.if_region(self.still_running(rest[0]), rest, [], rest[0])
                return

    def still_running(self, node: ast.AST) -> Var:
        flags = [self.env[f] for f in FLAGS if isinstance(self.env.get(f), Var)]
        self.b.loc = self.src.loc(node)
        acc = flags[0]
        for f in flags[1:]:
            acc = self.b.select(acc, acc, f)  # acc or f (bools, both already computed)
        return self.b.emit("not", acc)

    def stmt(self, node: ast.stmt) -> None:
        self.b.loc = self.src.loc(node)
        if isinstance(node, ast.Assign):
            mark = self.mark()
            value = self.expr(node.value)
            for target in node.targets:  # `x = y = v`: no target renames v's op
                self.assign(target, value, mark if len(node.targets) == 1 else None)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            mark = self.mark()
            self.assign(node.target, self.expr(node.value), mark)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            self.aug_store(node)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.unsupported(node.target)
            current = self.name(node.target)
            mark = self.mark()
            new = self.binop(node.op, current, self.expr(node.value), node)
            if isinstance(current, Var) and is_array(current.type):
                self.assign_into(current, new, node)  # `a += ...` updates the array in place
            else:
                self.assign(node.target, new, mark)
        elif isinstance(node, ast.If):
            cond = self.truth(self.expr(node.test), node.test)
            self.if_region(cond, node.body, node.orelse, node)
        elif isinstance(node, ast.While):
            self.while_stmt(node)
        elif isinstance(node, ast.For):
            self.for_stmt(node)
        elif isinstance(node, (ast.Break, ast.Continue)):
            if not self.loop_depth:
                word = "break" if isinstance(node, ast.Break) else "continue"
                raise self.src.error(node, f"`{word}` outside a loop")
            self.env[BRK if isinstance(node, ast.Break) else CONT] = self.b.const(True, BOOL)
        elif isinstance(node, ast.Return):
            if node.value is None:
                raise self.src.error(node, "return without a value",
                                     hint="return a number or a tuple of numbers")
            self.env[RETVAL] = self.materialize(self.expr(node.value))
            self.env[RET] = self.b.const(True, BOOL)
        elif isinstance(node, ast.Pass):
            pass
        elif isinstance(node, ast.Expr):
            if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                self.expr(node.value)  # evaluated for its errors; the value is unused
        else:
            raise self.unsupported(node)

    def mark(self) -> tuple[Builder, int]:
        """Where the next statement will go: an assignment may rename only ops emitted after
        its mark (by its own right-hand side), never a value bound to another name."""
        return self.b, len(self.b.stmts)

    def assign(self, target: ast.expr, value, mark: tuple[Builder, int] | None = None) -> None:
        value = self.materialize(value)
        if isinstance(target, ast.Name):
            if isinstance(value, Var) and mark is not None:
                value = self.named(value, target.id, mark)
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, tuple):
                raise self.src.error(target, "cannot unpack a number", cls=PyadTypeError)
            if len(value) != len(target.elts):
                raise self.src.error(target, f"cannot unpack {len(value)} values into "
                                     f"{len(target.elts)} names", cls=PyadTypeError)
            leaves = _leaves(value)
            if len({v.name for v in leaves}) < len(leaves):
                mark = None  # `a, b = p, p`: one value, two names
            for t, v in zip(target.elts, value):
                self.assign(t, v, mark)
        elif isinstance(target, ast.Subscript):
            self.store_target(target, value)
        else:
            raise self.unsupported(target, "assignment target")

    def named(self, v: Var, name: str, mark: tuple[Builder, int]) -> Var:
        """Give the value just computed for `name = ...` a readable SSA name: only the op
        the right-hand side emitted last (`mark` is where it started), so no other binding
        (an inlined helper's parameter, another target) still refers to the old name."""
        last = self.b.stmts[-1] if self.b.stmts else None
        fresh = mark[0] is self.b and len(self.b.stmts) > mark[1]
        if fresh and isinstance(last, Op) and last.outs == (v,) and v.name[0].isdigit():
            new = Var(self.names.fresh(name), v.type)
            self.b.stmts[-1] = Op((new,), last.op, last.args, last.attrs, last.loc)
            return new
        return v

    # ------------------------------------------------------------------ if
    def if_region(self, cond: Var, then: list[ast.stmt], orelse: list[ast.stmt],
                  node: ast.AST) -> None:
        before = dict(self.env)
        envs, builders = [], []
        for stmts in (then, orelse):
            saved_b, saved_env = self.b, self.env
            self.b, self.env = Builder(self.names, saved_b.loc), dict(before)
            try:
                self.stmts(stmts)
                envs.append(self.env)
                builders.append(self.b)
            finally:
                self.b, self.env = saved_b, saved_env
        names = [n for n in {**envs[0], **envs[1]}
                 if envs[0].get(n) is not before.get(n) or envs[1].get(n) is not before.get(n)]
        merged, yields = {}, ([], [])
        for n in names:
            sides = [envs[0].get(n), envs[1].get(n)]
            for k in (0, 1):  # a flag or return value missing on one side gets its default
                if not _is_value(sides[k]) and _is_value(sides[1 - k]) \
                        and n in FLAGS + (RETVAL,):
                    saved, self.b = self.b, builders[k]
                    sides[k] = self.default(n, sides[1 - k])
                    self.b = saved
            if not (_is_value(sides[0]) and _is_value(sides[1])):
                merged[n] = Undefined(n)
                continue
            if _shape(sides[0]) != _shape(sides[1]):
                raise self.src.error(node, f"`{n}` has different tuple shapes in the two "
                                     "branches")
            leaves = list(zip(_leaves(sides[0]), _leaves(sides[1])))
            types = [_unify(a.type, b.type) for a, b in leaves]
            for k in (0, 1):
                yields[k].extend((pair[k], t) for pair, t in zip(leaves, types))
            merged[n] = (_shape(sides[0]), types)
        blocks = [self.finish_region(builders[k], yields[k]) for k in (0, 1)]
        outs = [Var(self.names.fresh(n.lstrip("%")), t)
                for n, m in merged.items() if not isinstance(m, Undefined) for t in m[1]]
        self.b.stmts.append(If(tuple(outs), cond, blocks[0], blocks[1], self.src.loc(node)))
        it = iter(outs)
        for n, m in merged.items():
            self.env[n] = m if isinstance(m, Undefined) else _rebuild(m[0], it)

    def default(self, name: str, like):
        """The value of a flag (False) or of %retval (zeros shaped like `like`) on a path that
        did not set it."""
        if name in FLAGS:
            return self.b.const(False, BOOL)
        if isinstance(like, tuple):
            return tuple(self.default(name, e) for e in like)
        if is_array(like.type):  # a placeholder: an empty array
            zero = self.b.const(0, I64)
            return self.b.emit("alloc", *([zero] * ndim_of(like.type)), type=like.type)
        return self.b.const(0, like.type) if like.type != BOOL else self.b.const(False, BOOL)

    def finish_region(self, b: Builder, results: list[tuple[Var, str]]) -> Block:
        saved, self.b = self.b, b
        try:
            vals = tuple(self.convert(v, t) for v, t in results)
        finally:
            self.b = saved
        return Block((), tuple(b.stmts), vals)

    # ------------------------------------------------------------------ loops
    def while_stmt(self, node: ast.While) -> None:
        if node.orelse:
            raise self.src.error(node.orelse[0], "unsupported syntax: else clause of a loop")
        self.loop(node, node.body, cond=lambda env: self.expr(node.test), counter=None)

    def for_stmt(self, node: ast.For) -> None:
        if node.orelse:
            raise self.src.error(node.orelse[0], "unsupported syntax: else clause of a loop")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and self.resolve_static(it.func).obj is range and not it.keywords
                and 1 <= len(it.args) <= 3):
            raise self.src.error(it, "unsupported loop: only `for name in range(...)` loops "
                                 "are supported", hint="iterate over range(len(...)) or use while")
        if not isinstance(node.target, ast.Name):
            raise self.src.error(node.target, "the loop variable must be a single name")
        args = []
        for a in it.args:
            v = self.scalar(self.expr(a), a)
            if v.type == F64:
                raise self.src.error(a, "range() arguments must be ints, not float",
                                     cls=PyadTypeError)
            args.append(self.convert(v, I64))
        start, stop, step = (([self.b.const(0, I64)] + args) if len(args) == 1 else args) \
            + ([] if len(args) == 3 else [self.b.const(1, I64)])
        literal_step = it.args[2].value if len(it.args) == 3 and isinstance(
            it.args[2], ast.Constant) else (1 if len(it.args) < 3 else None)
        if literal_step is None:
            self.b.loc = self.src.loc(it)
            self.b.emit("raise_if", self.b.eq(step, self.b.const(0, I64)),
                        attrs=("ValueError", "range() arg 3 must not be zero"))
        elif literal_step == 0:
            raise self.src.error(it.args[2], "range() arg 3 must not be zero")

        def cond(env):
            i = env[counter]
            if literal_step is not None:
                return self.b.emit("lt" if literal_step > 0 else "gt", i, stop)
            up = self.b.gt(step, self.b.const(0, I64))
            return self.b.select(up, self.b.lt(i, stop), self.b.gt(i, stop))

        counter = f"%i{len(self.names.taken)}"
        self.env[counter] = start
        self.loop(node, node.body, cond=cond, counter=(counter, node.target.id, step))
        del self.env[counter]

    def loop(self, node: ast.AST, body: list[ast.stmt], cond, counter) -> None:
        """Lower `while running and cond: body` (with the for-range counter, if any)."""
        exits = _exits(body)
        assigned = _assigned(body) | ({counter[1]} if counter else set())
        names = assigned | (exits - {CONT}) | ({RETVAL} if RET in exits else set())
        if counter:
            names.add(counter[0])
        outer = {f: self.env.pop(f) for f in (BRK, CONT) if f in self.env}  # of an outer loop
        for flag in (BRK, RET):
            if flag in names and flag not in self.env:
                self.env[flag] = self.b.const(False, BOOL)
        carried = sorted(n for n in names if _is_value(self.env.get(n)))
        types = {n: [v.type for v in _leaves(self.env[n])] for n in carried}
        for _attempt in range(4):  # widen carried types until the body agrees with them
            trial = self.loop_region(node, body, cond, counter, carried, types, emit=False)
            wider = {n: [_unify(a, b) for a, b in zip(types[n], trial[n])] if n in types
                     else trial[n] for n in trial}
            new = [n for n in trial if n not in carried]
            if wider == types and not new:
                break
            for n in new:  # e.g. %retval, first set inside the loop: starts as zeros
                self.env[n] = self.default(n, self.shape_like(trial[n], trial_shape=n))
                carried.append(n)
            types = wider
        self.loop_region(node, body, cond, counter, sorted(carried), types, emit=True)
        for n in assigned:  # assigned in the loop only: undefined after it
            if n not in carried:
                self.env[n] = Undefined(n)
        self.env.pop(BRK, None)
        self.env.update(outer)

    def shape_like(self, types, trial_shape):
        shape = self._trial_shapes[trial_shape]
        it = iter(types)
        return _rebuild(shape, (Var("_", t) for t in it)) if isinstance(shape, tuple) \
            else Var("_", types[0])

    def loop_region(self, node, body, cond, counter, carried, types, emit: bool):
        loc = self.src.loc(node)
        saved_b, saved_env = self.b, self.env
        before = dict(self.env)
        inits, shapes = [], {}
        self.b.loc = loc
        for n in carried:
            leaves = _leaves(before[n])
            shapes[n] = _shape(before[n])
            inits.extend(self.convert(v, t) for v, t in zip(leaves, types[n]))
        if not emit:
            saved_b.stmts, kept = list(saved_b.stmts), saved_b.stmts  # trial: discard emitted
        flat_types = [v.type for v in inits]

        def params():
            vs = [Var(self.names.fresh(n.lstrip("%")), t) for n in carried for t in types[n]]
            it = iter(vs)
            env = dict(before)
            for n in carried:
                env[n] = _rebuild(shapes[n], it)
            return vs, env

        try:
            # condition block: still running (no break, no return) and the user's condition
            cparams, self.env = params()
            self.b = Builder(self.names, loc)
            running = [self.env[f] for f in (BRK, RET) if f in carried]
            if running:
                stop = running[0] if len(running) == 1 else self.b.select(
                    running[0], running[0], running[1])
                go = self.branch(stop, lambda: self.b.const(False, BOOL),
                                 lambda: self.truth(cond(self.env), node), node)
            else:
                go = self.truth(cond(self.env), node)
            cond_block = Block(tuple(cparams), tuple(self.b.stmts), (go,))
            # body block
            bparams, self.env = params()
            self.b = Builder(self.names, loc)
            self.loop_depth += 1
            if counter:
                name, target, step = counter
                self.env[target] = self.env[name]
                self.stmts(body)
                self.b.loc = loc
                self.env[name] = self.b.add(self.env[name], step)
            else:
                self.stmts(body)
            self.loop_depth -= 1
            self.env.pop(CONT, None)
            end_env = self.env
            if not emit:
                self._trial_shapes = {n: _shape(v) for n, v in end_env.items()}
                return {n: [v.type for v in _leaves(end_env[n])] for n in end_env
                        if _is_value(end_env.get(n)) and (n in carried or n == RETVAL
                                                          and RETVAL not in before)}
            yields = []
            for n in carried:
                v = end_env.get(n)
                if not _is_value(v) or _shape(v) != shapes[n]:
                    raise self.src.error(node, f"`{n}` changes shape or becomes undefined "
                                         "inside the loop")
                yields.extend(self.convert(x, t) for x, t in zip(_leaves(v), types[n]))
            body_block = Block(tuple(bparams), tuple(self.b.stmts), tuple(yields))
        finally:
            self.b, self.env = saved_b, saved_env
            if not emit:
                saved_b.stmts = kept
        outs = [Var(self.names.fresh(n.lstrip("%")), t) for n in carried for t in types[n]]
        self.b.stmts.append(While(tuple(outs), tuple(inits), cond_block, body_block, loc))
        assert [o.type for o in outs] == flat_types
        it = iter(outs)
        for n in carried:
            self.env[n] = _rebuild(shapes[n], it)


def _is_value(v) -> bool:
    return isinstance(v, (Var, tuple))
