"""Adjoint contributions to one element, carried through a loop.

A loop reversed inside its forward sweep (fused.py) adds its contributions into adjoint
arrays. A contribution to an element whose index does not change in the loop (`pos[i, 0]`
in the loop over `j` of a pair loop) makes every trip load, add and store that element, and
LLVM cannot keep it in a register: the loop's other contributions to the same array
(`pos[j, 0]`) might reach it, for all it knows. `carry` sums such contributions in a value
the loop carries, from 0.0, and adds the sum into the element after the loop: the same
terms added in another order (as fused loops already do for the scalars they read from
outside), so the result may differ from before in the last bits; it is the same in every
entry point (`f.grad`, `value_and_grad`, `pullback`, the C library), which compile this IR.

The caller says which arrays qualify (fused.py: its temporaries, which nothing views, and
the adjoints of the arrays not private to the loop's trips; the only adjoints such a loop
reads are those of its private arrays, in the reverse of their stores); the loop must use
them for nothing but accumulating, and only accumulations that run once in every trip (at
the top of the body) into arrays made before it, at indices that do not change in the
loop, are carried."""
from __future__ import annotations

from ..ir.builder import Builder, NameGen
from ..ir.loops import invariant_test
from ..ir.nodes import F64, Block, If, Op, Stmt, Var, While, stmt_uses, walk
from .close import as_run_again


def carry(loop: While, temporaries: set[str],
          names: NameGen) -> tuple[list[Op], While, list[Stmt]]:
    """(the zeros the carried sums start from, `loop` carrying them, the accumulations of
    the sums after it); `loop` unchanged and no statements when nothing qualifies.

    An index computed in the loop from values fixed before it (`normidx(i, n)` of an outer
    counter) is computed again after the loop, but only where a sum is not 0.0: the sum
    then comes from a trip, which checked the same index (skipping a sum of 0.0 changes
    at most the sign of a zero element), so the copy is a `wrapidx`."""
    top = {o.name: st for st in loop.body.body if isinstance(st, Op) for o in st.outs}
    invariant = invariant_test(loop)

    # a target the loop makes (the shadow of a row view `for x, y in pts` makes each trip)
    # moves with the trip, and is not there after the loop
    made = {o.name for blk in (loop.cond, loop.body) for st in walk(blk) for o in st.outs}
    accums = [st for st in loop.body.body if isinstance(st, Op) and st.op == "accum"
              and st.args[0].name in temporaries and st.args[0].name not in made
              and all(map(invariant, st.args[1:-1]))]
    if not accums:
        return [], loop, []
    other: set[str] = set()  # arrays the loop uses other than as the target of an accum
    for blk in (loop.cond, loop.body):
        for st in walk(blk):
            used = st.args[1:] if isinstance(st, Op) and st.op == "accum" else stmt_uses(st)
            other.update(v.name for v in used)
        other.update(v.name for v in blk.results)
    groups: dict[tuple[str, ...], list[Op]] = {}
    for st in accums:
        if st.args[0].name not in other:
            groups.setdefault(tuple(a.name for a in st.args[:-1]), []).append(st)
    if not groups:
        return [], loop, []
    moved = {id(st) for ops in groups.values() for st in ops}
    zeros, c_params, b_params, nexts, outs, post, adds = [], [], [], [], [], [], []
    for ops in groups.values():
        zero = Var(names.fresh("acc0"), F64)
        zeros.append(Op((zero,), "const", (), (0.0,), loop.loc))
        c_params.append(Var(names.fresh("acc"), F64))
        acc = Var(names.fresh("acc"), F64)
        b_params.append(acc)
        for st in ops:  # in the order the trip made them
            total = Var(names.fresh("acc"), F64)
            adds.append(Op((total,), "add", (acc, st.args[-1]), (), st.loc))
            acc = total
        nexts.append(acc)
        out = Var(names.fresh("acc"), F64)
        outs.append(out)
        post.extend(add_after(ops[0], out, top, names))
    body = loop.body
    stmts = tuple(st for st in body.body if id(st) not in moved) + tuple(adds)
    new = While(loop.outs + tuple(outs), loop.inits + tuple(z.outs[0] for z in zeros),
                Block(loop.cond.params + tuple(c_params), loop.cond.body, loop.cond.results),
                Block(body.params + tuple(b_params), stmts, body.results + tuple(nexts)),
                loop.loc, loop.note + ("; contributions to elements it does not move summed "
                                       "first",))
    return zeros, new, post


def add_after(accum: Op, total: Var, top: dict[str, Op], names: NameGen,
              prefix: tuple[Op, ...] = ()) -> list[Stmt]:
    """`accum T, idx, total` after the loop: the index values the loop computed are
    computed again (as_run_again), under `if total != 0.0`, after `prefix` (statements
    computing index values of the accum the loop does not have: window.py)."""
    chain: dict[str, Op] = {}

    def need(v: Var) -> None:
        st = top.get(v.name)
        if st is not None and v.name not in chain:
            for a in st.args:
                need(a)
            chain[v.name] = st
    for v in accum.args[1:-1]:
        need(v)
    b = Builder(names, accum.loc)
    done = b.ne(total, b.const(0.0))
    inside = Builder(names, accum.loc)
    inside.stmts.extend(prefix)
    copies: dict[str, Var] = {}
    for st in map(as_run_again, chain.values()):
        outs = tuple(Var(names.fresh(o.name), o.type) for o in st.outs)
        inside.stmts.append(Op(outs, st.op, tuple(copies.get(a.name, a) for a in st.args),
                               st.attrs, st.loc))
        copies.update((o.name, n) for o, n in zip(st.outs, outs))
    inside.stmts.append(Op((), "accum", tuple(copies.get(a.name, a) for a in accum.args[:-1])
                           + (total,), (), accum.loc))
    b.stmts.append(If((), done, Block((), tuple(inside.stmts), ()), Block((), (), ()),
                      accum.loc))
    return b.stmts
