"""Values an inner loop computes again in every trip of the loop around it are computed once,
before the nest, into a temporary over the inner loop's counter (scalar expansion):

    for i in range(n):                              for k in range(d):     # first
        for k in range(d):                              t[k] = sqrt(v[k] + e)
            y[i, k] = x[i, k] / sqrt(v[k] + e)  ->  for i in range(n):
                                                        for k in range(d):
                                                            y[i, k] = x[i, k] / t[k]

Broadcasting along an outer axis makes such nests (`(X - mu) / (sd + 1e-3)` with statistics
of shape (1, d) from `keepdims=True`, `x[:, None] / np.exp(s)[None, :]`), and so does a loop
that computes a per-column factor inside its inner loop. LLVM moves out of a loop only what
does not change in it, so the factor stayed in the innermost loop: n * d square roots for d
values.

A value of the inner loop's body is hoisted when
- the inner loop runs whole in every trip of the outer one: it is a statement of the outer
  loop's body (not under an `if`), counts from 0 by 1 to a bound fixed before the outer
  loop, and has no early exit (loops.counts_from_zero);
- it is computed from values fixed before the outer loop, the inner loop's counter and
  other hoisted values, by ops that cannot fail (`_SAFE`) or that check their operands
  (`_CHECKS`: an index against its axis, a divisor against zero), and by loads of arrays
  made before the outer loop that nothing in it writes;
- it changes with the counter, and an op on the way is not cheap (ops.CHEAP): a load or an
  add is as cheap to redo as to read back.
Only a loop that no loop encloses is an outer loop here: the temporaries of a nest inside a
loop would be allocated, and kept until the call returns, once per trip around it.
The temporary is filled only when the outer loop runs (its first test, computed before it:
its condition must be made of ops that cannot fail; otherwise it has no room), so the fill
computes what the outer loop's first trip computes. A load in the fill reads an element
that trip reads: either nothing of the nest before it can fail (the outer body's
statements before the inner loop, the inner body's before the load), or its indices are
checked against the array's own axes in the fill, where the checks run with
boundscheck=False too (the nest may raise before its trips reach a bad index; the fill
must not read past the array). A check that fails in the fill raises the nest's error
(its line), though before the nest's other statements of that trip: where two checks
would fail, the one raised may be the other one, and the fill's IndexError may come where
the nest, compiled with boundscheck=False, raised another error or read past the array.
"""
from __future__ import annotations

from .builder import Builder, NameGen, names_of
from .loops import counts_from_zero, for_range
from .memory import WRITE_OPS, AliasClasses
from .nodes import BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, array_type, \
    defined_in, rename_block, stmt_uses, walk
from .ops import CHEAP, OPS

__all__ = ["hoist_invariant"]

#: ops with no effect that cannot raise or fault: their value is all they do
_SAFE = frozenset(name for name, row in OPS.items()
                  if row.lower[0] in ("inst", "libm", "intrinsic", "cmp", "inline", "const")
                  and not row.effect and not row.memory) | {
    "abs", "max", "min", "neg", "not", "sign", "tofloat", "tobool", "dim"}
#: ops whose only effect is raising when an operand fails a check (IndexError,
#: ZeroDivisionError, OverflowError, ValueError)
_CHECKS = frozenset({"normidx", "wrapidx", "div", "floordiv", "mod", "imul", "toint"})
#: ops that cannot raise, fault or leave the loop (they may write memory)
_QUIET = _SAFE | {"load", "store", "accum"}


def hoist_invariant(func: Func) -> Func:
    """`func` with each nest's values that do not change in the outer loop computed before
    it (see the module docstring)."""
    if not any(isinstance(st, While) and any(isinstance(t, While) for t in st.body.body)
               for st in walk(func.block)):
        return func
    h = _Hoister(func)
    block = h.block(func.block)
    return func if not h.changed else Func(func.name, block, func.filename, func.arg_names)


class _Hoister:
    def __init__(self, func: Func) -> None:
        self.defs = {o.name: st for st in walk(func.block) if isinstance(st, Op)
                     for o in st.outs}
        self.classes = AliasClasses(func.block)
        self.names: NameGen = names_of(func)
        self.changed = False

    def block(self, b: Block) -> Block:
        """`b` with its outermost loops' nests hoisted (a loop inside a loop is not an outer
        loop here: its temporaries would be allocated, and kept, once per trip around it)."""
        body: list[Stmt] = []
        for st in b.body:
            if isinstance(st, If):
                st = If(st.outs, st.cond, self.block(st.then), self.block(st.orelse), st.loc)
            elif isinstance(st, While):
                body.extend(self.nest(st))
                continue
            body.append(st)
        return Block(b.params, tuple(body), b.results)

    def nest(self, outer: While) -> list[Stmt]:
        """`outer` with the values its inner loops need not recompute hoisted: the fill
        statements, then the new outer loop (or [outer] unchanged)."""
        if not all(isinstance(st, Op) and st.op in _SAFE | {"load"} for st in outer.cond.body):
            return [outer]
        # values the outer body computes from values fixed before it by ops that cannot
        # fail (`X.shape[1]` written in the loop) are fixed too: the fill computes them first
        early: dict[str, Op] = {}
        inside = defined_in(outer)
        for st in outer.body.body:
            if isinstance(st, Op) and st.op in _SAFE and len(st.outs) == 1 and all(
                    a.name not in inside or a.name in early for a in st.args):
                early[st.outs[0].name] = st
        inside -= early.keys()
        written = {self.alias_class(st.args[0].name) for st in walk(outer.body)
                   if isinstance(st, Op) and st.op in WRITE_OPS}
        allocs: list[Stmt] = []
        fills: list[Stmt] = []
        stmts = list(outer.body.body)
        for pos, st in enumerate(stmts):
            if isinstance(st, While):
                quiet = all(isinstance(s, Op) and s.op in _QUIET for s in stmts[:pos])
                found = self.hoist(st, inside, written, quiet)
                if found is not None:
                    allocs.extend(found[0])
                    fills.extend(found[1])
                    stmts[pos] = found[2]
        if not fills:
            return [outer]
        self.changed = True
        b = Builder(self.names, outer.loc)
        runs = b.inline(outer.cond, list(outer.inits))[0]
        none = b.const(0, I64)
        sized: list[Stmt] = []   # no room when the outer loop does not run
        for st in allocs:
            if isinstance(st, Op) and st.op == "alloc":
                n = Var(self.names.fresh("n"), I64)
                sized.append(Op((n,), "select", (runs, st.args[0], none), (), st.loc))
                st = Op(st.outs, st.op, (n,), st.attrs, st.loc)
            sized.append(st)
        allocs = sized
        guard = If((), runs, Block((), tuple(fills), ()), Block((), (), ()), outer.loc)
        pre = self.copies(early, Block((), tuple(allocs + [guard]), ()))
        new = While(outer.outs, outer.inits, outer.cond,
                    Block(outer.body.params, tuple(stmts), outer.body.results), outer.loc,
                    outer.note, outer.unrolled)
        return b.stmts + list(pre.body) + [new]

    def copies(self, early: dict[str, Op], block: Block) -> Block:
        """`block` after copies of the `early` values it reads (and of those they read),
        reading the copies."""
        needed = {a.name for st in walk(block) for a in stmt_uses(st)} & early.keys()
        for name in reversed(list(early)):   # each op reads only earlier ones
            if name in needed:
                needed.update(a.name for a in early[name].args if a.name in early)
        b, mapping = Builder(self.names), {}
        for name, st in early.items():
            if name in needed:
                b.loc = st.loc
                mapping[name] = b.emit(st.op, *(mapping.get(a.name, a) for a in st.args),
                                       attrs=st.attrs, type=st.outs[0].type)
        return Block((), tuple(b.stmts) + rename_block(block, mapping).body, ())

    def hoist(self, inner: While, inside: set[str], written: set[str],
              quiet: bool) -> tuple[list[Stmt], list[Stmt], While] | None:
        """(the temporaries' allocations, the loop filling them, `inner` reading them), or
        None."""
        counted = counts_from_zero(inner, self.defs)
        if counted is None or counted[1].name in inside:
            return None
        counter = inner.body.params[counted[0]]
        varies, costly, kept = {counter.name}, set(), {counter.name}
        hoisted: list[Op] = []
        for st in inner.body.body:
            if isinstance(st, Op) and self.hoistable(st, inside, written, kept, quiet):
                hoisted.append(st)
                kept.add(st.outs[0].name)
                if any(a.name in varies for a in st.args):
                    varies.add(st.outs[0].name)
                if st.op not in CHEAP or any(a.name in costly for a in st.args):
                    costly.add(st.outs[0].name)
            quiet = quiet and isinstance(st, Op) and st.op in _QUIET
        mine = {id(st) for st in hoisted}
        used = {v.name for v in inner.body.results}
        for st in inner.body.body:   # what the statements left in the loop read
            if id(st) not in mine:
                used.update(a.name for s in walk(Block((), (st,), ())) for a in stmt_uses(s))
        export = [st.outs[0] for st in hoisted if st.outs[0].name in used & varies & costly
                  and st.outs[0].type in (F64, I64)]
        if not export:
            return None
        return self.fill(inner, counter, counted[1], hoisted, export)

    def hoistable(self, st: Op, inside: set[str], written: set[str], kept: set[str],
                  quiet: bool) -> bool:
        if len(st.outs) != 1 or not all(a.name in kept or a.name not in inside
                                        for a in st.args):
            return False
        if st.op == "load":
            array = st.args[0]
            return (quiet or self.checked(st)) and array.name not in inside and \
                self.alias_class(array.name) not in written
        return st.op in _SAFE | _CHECKS

    def alias_class(self, name: str) -> str:
        """The alias class of an array (a temporary made here is its own)."""
        return self.classes.find(name) if name in self.classes.parent else name

    def checked(self, load: Op) -> bool:
        """Whether each index of `load` is checked against the loaded array's axis."""
        for axis, i in enumerate(load.args[1:]):
            check = self.defs.get(i.name)
            size = None if check is None or check.op not in ("normidx", "wrapidx") \
                else self.defs.get(check.args[1].name)
            if size is None or size.op != "dim" or size.args[0] != load.args[0] or \
                    size.attrs[0] != axis:
                return False
        return True

    def fill(self, inner: While, counter: Var, n: Var, hoisted: list[Op],
             export: list[Var]) -> tuple[list[Stmt], list[Stmt], While]:
        a = Builder(self.names, inner.loc)
        size = a.emit("max", n, a.const(0, I64))
        temps = {v.name: a.emit("alloc", size, type=array_type(v.type, 1), hint="hoisted")
                 for v in export}
        b = Builder(self.names, inner.loc)

        def body(bb: Builder, k: Var, _):
            mapping = {counter.name: k}
            for st in hoisted:
                args = [mapping.get(a.name, a) for a in st.args]
                bb.loc = st.loc
                out = mapping[st.outs[0].name] = bb.emit(st.op, *args, attrs=st.attrs,
                                                         type=st.outs[0].type)
                if st.op in ("normidx", "wrapidx"):   # checked with boundscheck=False too:
                    # the fill may reach indices the nest would not (it raised before)
                    bad = bb.select(bb.lt(out, bb.const(0, I64)), bb.const(True, BOOL),
                                    bb.ge(out, args[1]))
                    bb.emit("raise_if", bad, attrs=("IndexError", "index out of bounds"))
            for v in export:
                bb.emit("store", temps[v.name], k, mapping[v.name])
            return []
        for_range(b, size, [], body)
        reads = {v.name: Op((v,), "load", (temps[v.name], counter), (),
                            self.defs[v.name].loc) for v in export}
        stmts = tuple(reads.get(st.outs[0].name, st) if isinstance(st, Op) and st.outs
                      else st for st in inner.body.body)
        return a.stmts, b.stmts, While(inner.outs, inner.inits, inner.cond,
                              Block(inner.body.params, stmts, inner.body.results), inner.loc,
                              inner.note, inner.unrolled)
