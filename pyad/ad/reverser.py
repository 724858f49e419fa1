"""The reverse sweep: one `Reverser` per gradient walks the Wengert list backwards.

Each op's adjoint rule comes from the op table; a zero cotangent gives zero contributions
(strong zeros, `strongzero` op) unless the rule's contributions are plain multiples of the
cotangent. Loads and stores go through shadow arrays: the reverse of `v = a[i]` is
`shadow(a)[i] += ct(v)`, the reverse of `a[i] = v` reads `ct(v) = shadow(a)[i]` and clears it.
An `If` is reversed as an `If` on the same condition. A loop is reversed inside its forward
sweep when it only accumulates (fused.py), otherwise with the tape, following its plan
(plan.py, taped.py). Native calls run their callee's backward half (`callbwd`).

The Reverser holds the state every strategy shares: the active values, the shadow of each
active array, the loads that may be repeated, and `subst`, the forward version of each loop
and call it reversed (close.substitute applies it).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from ..ir.builder import Builder, NameGen
from ..errors import PyadInternalError
from ..ir.nodes import BOOL, F64, I64, Block, If, Op, Stmt, Var, While, free_vars, is_array, \
    ndim_of
from ..ir.memory import AliasClasses, final_loads
from ..ir.opt import has_effects
from ..ir.ops import OPS
from . import fused, taped
from .checkpoint import Budget
from .activity import has_reverse_effects, is_float_array
from .close import Prefixed
from .plan import chain_picks


@dataclass
class Reverser:
    names: NameGen
    active: set[str]             # f64 values and f64 arrays that depend on a parameter
    shadow: dict[str, Var]       # the shadow array of each active array
    classes: AliasClasses        # of the primal's arrays
    defs: dict[str, Op]          # every op of the augmented primal, by the names it defines
    rereadable: set[str]         # loads the reverse sweep may repeat (memory.final_loads)
    strong_zeros: bool = True    # a zero cotangent gives zero contributions (strongzero)
    stored: dict[str, Op] = field(default_factory=dict)  # values it may load back (final_stores)
    known: dict[str, float] = field(default_factory=dict)  # cotangents known to be constants
    depth: int = 0               # loops around the statement being reversed
    subst: dict = field(default_factory=dict)  # id(stmt) -> its forward version
    budget: Budget | None = None  # the tape budget taped loops checkpoint under
    written_after: dict[int, frozenset[str]] = field(default_factory=dict)  # by id(loop)
    private: dict[int, frozenset[str]] = field(default_factory=dict)  # by id(loop): ir/private.py
    fused_in: list[While] = field(default_factory=list)  # loops whose trip is being reversed
    written_in_trip: dict = field(default_factory=dict)  # id(loop) -> loops_written_after
    #: fused.py's temporary shadows: only accumulated into while their loop runs (carry.py)
    temporaries: set[str] = field(default_factory=set)
    #: the picks of running extremes (plan.py `chain_picks`): reversed by `chain_adjoint`
    chains: set[str] = field(default_factory=set)

    def is_private(self, s: While, v: Var) -> bool:
        """Whether array `v` is private to the trips of loop `s` (ir/private.py)."""
        return v.name in self.classes.parent \
            and self.classes.find(v.name) in self.private.get(id(s), ())

    def may_refill(self, a: Var) -> bool:
        """Whether the reverse sweep may re-run a fill of array `a` (refill.py). Inside the
        trip of a loop reversed trip by trip (fused.py), the next forward trip runs after
        that reverse and must find memory as the forward left it: only arrays private to
        the loop's trips, which the next trip fills again before reading, may be refilled."""
        return not self.fused_in or self.is_private(self.fused_in[-1], a)

    @contextmanager
    def reversing_trip_of(self, s: While) -> Iterator[None]:
        """Reversing a trip of `s` at its end (fused.py): loads of memory that nothing
        writes later in the trip may be re-read too (the next trip has not run yet)."""
        extra = final_loads(s.body, self.classes) - self.rereadable
        self.fused_in.append(s)
        self.rereadable |= extra
        try:
            yield
        finally:
            self.rereadable -= extra
            self.fused_in.pop()

    # ------------------------------------------------------------------ shared helpers
    @staticmethod
    def accumulate(b: Builder, adj: dict[str, Var], v: Var, contribution: Var) -> None:
        prev = adj.get(v.name)
        adj[v.name] = contribution if prev is None else b.add(prev, contribution)

    @contextmanager
    def inside_loop(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def shadows(self, replacement: dict[str, Var]) -> Iterator[None]:
        """Accumulate into `replacement` arrays instead of some shadows (fused loops)."""
        saved = dict(self.shadow)
        self.shadow.update(replacement)
        try:
            yield
        finally:
            self.shadow.clear()
            self.shadow.update(saved)

    # ------------------------------------------------------------------ the sweep
    def reverse(self, body: tuple[Stmt, ...], adj: dict[str, Var], b: Builder) -> None:
        """Emit into `b` the adjoint of `body`; `adj` maps names to their accumulated
        cotangent and ends up holding the cotangents of the values `body` reads from
        outside."""
        for s in reversed(body):
            if isinstance(s, Op) and s.op in ("load", "store"):
                self._memory(s, adj, b)
            elif isinstance(s, Op) and s.op == "call":
                self._call(s, adj, b)
            elif isinstance(s, Op):
                self._op(s, adj, b)
            elif isinstance(s, If):
                self._if(s, adj, b)
            else:
                self._loop(s, adj, b)

    def _op(self, s: Op, adj: dict[str, Var], b: Builder) -> None:
        """An op of the table by its adjoint rule. The cotangent of an array result is its
        shadow; an array argument's contribution is added into its shadow (`addto`)."""
        out = s.outs[0] if s.outs else None
        if out is not None and is_array(out.type):   # allocs and views: nothing to do
            ct = self.shadow.get(out.name) if OPS[s.op].whole_array else None
        else:
            ct = adj.pop(out.name, None) if out is not None else None
        if ct is None or out.name not in self.active:
            return
        row = OPS[s.op]
        if row.adjoint is None:
            raise PyadInternalError(f"op {s.op} has no adjoint but is on a gradient path")
        b.loc = s.loc
        start = len(b.stmts)
        if s.op == "custom_vjp":
            contribs = _rule_adjoint(b, ct, s)
        else:
            rule = row.chain_adjoint if out.name in self.chains else row.adjoint
            contribs = rule(b, ct, out, *s.args, *((s.attrs,) if row.attr_typed else ()))
        b.stmts[start:] = _by_reciprocals(b.stmts[start:], self.defs, b.names)
        if row.strong_zero and self.strong_zeros:
            contribs = tuple(None if c is None else b.strongzero(ct, c) for c in contribs)
        if s.op == "mul" and self.strong_zeros and out.type == F64:
            # a factor that is exactly 0 makes the product constant in the other one: its
            # contribution is 0 even where the cotangent is inf (sqrt(max(v, 0) * t) at
            # v <= 0; a distance's sqrt of summed squares at a zero difference)
            contribs = tuple(None if c is None else b.strongzero(other, c)
                             for c, other in zip(contribs, s.args[::-1]))
        for a, c in zip(s.args, contribs):
            if c is None or a.name not in self.active:
                continue
            if is_array(a.type):
                b.emit("addto", self.shadow[a.name], c)
            else:
                self.accumulate(b, adj, a, c)

    def _memory(self, s: Op, adj: dict[str, Var], b: Builder) -> None:
        """`v = a[i]`: shadow(a)[i] += ct(v).  `a[i] = v`: ct(v) = shadow(a)[i], and
        shadow(a)[i] = 0 (the overwritten element's adjoint ends here)."""
        a, idx = s.args[0], s.args[1:]
        if s.op == "load":
            ct = adj.pop(s.outs[0].name, None)
            if ct is not None and s.outs[0].name in self.active:
                b.loc = s.loc
                b.emit("accum", self.shadow[a.name], *idx, ct)
            return
        if a.name not in self.active:
            return
        b.loc = s.loc
        sh, idx, v = self.shadow[a.name], idx[:-1], s.args[-1]
        ct = b.emit("load", sh, *idx)
        b.emit("store", sh, *idx, b.const(0.0))
        if v.name in self.active:
            self.accumulate(b, adj, v, ct)

    def _call(self, s: Op, adj: dict[str, Var], b: Builder) -> None:
        """`ys = call f(xs)` with an active argument: the forward sweep runs f's forward half
        (`callfwd`, which pushes f's saved values on the tape) and the reverse sweep its
        backward half (`callbwd`, which pops them), always, even when no cotangent reaches
        ys, so that every push has its pop.

        f64 arrays cross by reference both ways: `callfwd` also takes the shadow of each
        f64 array argument (a zero array for an inactive one), into which f's backward half
        accumulates; `callbwd` takes the cotangent of each f64 result, for an array result
        its shadow here, and returns the cotangents of the f64 arguments."""
        cts = [adj.pop(o.name, None) for o in s.outs if not is_array(o.type)]
        if not any(a.name in self.active for a in s.args):
            return
        b.loc = s.loc
        prologue, shadows = [], []
        for a in s.args:
            if not is_float_array(a.type):
                continue
            if a.name not in self.shadow:  # inactive: f's backward half needs somewhere to add
                dims = [Op((Var(self.names.fresh(), I64),), "dim", (a,), (k,), s.loc)
                        for k in range(ndim_of(a.type))]
                zero = Op((Var(self.names.fresh(a.name + ".d"), a.type),), "alloc",
                          tuple(d.outs[0] for d in dims), ("shadow",), s.loc)
                prologue += [*dims, zero]
                shadows.append(zero.outs[0])
            else:
                shadows.append(self.shadow[a.name])
        fwd = Op(s.outs, "callfwd", s.args + tuple(shadows), s.attrs, s.loc)
        self.subst[id(s)] = Prefixed(tuple(prologue), fwd) if prologue else fwd
        scalar_cts = iter(cts)
        ct_args = []
        for o in s.outs:
            if o.type == F64:
                c = next(scalar_cts)
                ct_args.append(c if c is not None else b.const(0.0))
            elif is_float_array(o.type):
                ct_args.append(self.shadow.get(o.name) or self._zeros_like(o, b))
            elif not is_array(o.type):
                next(scalar_cts)
        floats = [a for a in s.args if a.type == F64]
        grads = tuple(Var(b.names.adjoint(a.name), F64) for a in floats)
        b.stmts.append(Op(grads, "callbwd", tuple(ct_args), s.attrs, s.loc))
        for a, g in zip(floats, grads):
            if a.name in self.active:
                self.accumulate(b, adj, a, g)

    @staticmethod
    def _zeros_like(v: Var, b: Builder) -> Var:
        dims = [b.emit("dim", v, attrs=(k,), type=I64) for k in range(ndim_of(v.type))]
        return b.emit("alloc", *dims, attrs=("shadow",), type=v.type)

    def _if(self, s: If, adj: dict[str, Var], b: Builder) -> None:
        cts = [adj.pop(o.name, None) for o in s.outs]
        if all(c is None for c in cts) and not has_reverse_effects(s, self.active):
            return
        b.loc = s.loc
        branch_adj, branch_code = [], []
        for block in (s.then, s.orelse):
            sub = Builder(b.names, s.loc)
            local: dict[str, Var] = {}
            for o, y, ct in zip(s.outs, block.results, cts):
                if ct is not None and o.name in self.active and y.name in self.active:
                    self.accumulate(sub, local, y, ct)
            self.reverse(block.body, local, sub)
            branch_adj.append(local)
            branch_code.append(sub)
        outer = list(dict.fromkeys([*branch_adj[0], *branch_adj[1]]))  # not by name
        if not outer and not any(has_effects(t) for sub in branch_code for t in sub.stmts):
            return  # nothing flows out and no shadow is updated
        blocks = []
        for local, sub in zip(branch_adj, branch_code):
            ys = tuple(local[n] if n in local else sub.const(0.0) for n in outer)
            blocks.append(Block((), tuple(sub.stmts), ys))
        outs = tuple(Var(b.names.adjoint(n), F64) for n in outer)
        b.stmts.append(If(outs, s.cond, blocks[0], blocks[1], s.loc))
        by_name = {v.name: v for blk in (s.then, s.orelse) for v in free_vars(blk)}
        for n, o in zip(outer, outs):
            self.accumulate(b, adj, by_name[n], o)

    def _loop(self, s: While, adj: dict[str, Var], b: Builder) -> None:
        cts = [adj.pop(o.name, None) for o in s.outs]
        act = [k for k, o in enumerate(s.outs) if o.name in self.active and o.type == F64]
        if all(cts[k] is None for k in act) and not has_reverse_effects(s, self.active):
            return
        self.chains.update(chain_picks(s))
        k = fused.fusable(s, self, cts)
        if k is not None:  # an accumulating loop: reversed inside its forward sweep
            if cts[k] is not None:
                fused.reverse_fused(self, s, k, cts[k], adj, b)
            return
        k = fused.rerunnable(s, self)
        if k is not None:  # one that re-reads all it loads: run again in the reverse sweep
            if cts[k] is not None:
                fused.rerun_in_reverse(self, s, k, cts[k], adj, b)
            return
        taped.reverse_taped(self, s, act, cts, adj, b)


def _by_reciprocals(stmts: list[Stmt], defs: dict[str, Op], names: NameGen) -> list[Stmt]:
    """An adjoint rule's `a / r` with r a square root the primal computed, as `a * (1 / r)`:
    the rules dividing by one r (a quotient's two partials, the square root's own) then
    share one division (LLVM merges the equal `1 / r`; W4's `m / sqrt(d)`: 3 divisions a
    pair -> 2). Safe from an overflow `a / r` would not have: r is 0, inf, nan or in
    [2.2e-162, 1.4e154], so `1 / r` is finite wherever `a / r` is defined, and the special
    values come out the same (a / 0 and a * inf, a / inf and a * 0). Costs one more
    rounding. Not for the primal's own divisions, which keep their bits."""
    out: list[Stmt] = []
    for st in stmts:
        root = defs.get(st.args[1].name) if isinstance(st, Op) and st.op == "fdiv" else None
        if root is None or root.op != "sqrt":
            out.append(st)
            continue
        one, inv = Var(names.fresh(), F64), Var(names.fresh(), F64)
        out += [Op((one,), "const", (), (1.0,), st.loc),
                Op((inv,), "fdiv", (one, st.args[1]), (), st.loc),
                Op(st.outs, "mul", (st.args[0], inv), (), st.loc)]
    return out


def _rule_adjoint(b: Builder, ct: Var, s: Op) -> tuple:
    """The adjoint of `y_k = custom_vjp(y_k, residuals..., args...)`: the rule's backward
    function, inlined, with cotangent `ct` for value leaf k and zero for the others."""
    rule = s.attrs[0]  # a pyad.frontend.custom.Rule
    res, xs = s.args[1:1 + rule.n_res], s.args[1 + rule.n_res:]
    zero = {F64: 0.0, I64: 0, BOOL: False}
    cts = [ct if j == s.attrs[1] else b.const(zero[t], t) for j, t in enumerate(rule.ct_types)]
    grads = b.inline(rule.bwd.block, [*res, *cts])
    return (None,) * (1 + rule.n_res) + tuple(g if x.type == F64 else None
                                               for g, x in zip(grads, xs))
