"""Loads through row slices of read-only arrays read the array sliced.

    %v = slice %x, %lo, %hi          (x[lo:hi], lo = min(1, dim x) for `x[1:]`)
    %e = load %v, %i, ...      ->    %e = load %x, %i + 1, ...

Array expressions on slices of one array (`x[1:] - x[:-1]`, the stencil `u[2:] - 2 * u[1:-1]
+ u[:-2]`) become loops that load each slice at the same counter. Read through the array
itself, the loads are those of the loop a user writes (`x[i + 1] - x[i]`), and the reverse
sweep treats them alike: one temporary shadow for the array, whose elements the trips
reach at constant offsets of the counter, so that the partial sums of an element are
carried to the next trip (ad/window.py) instead of each slice's adjoint going through a
temporary of its own and a pass adding it into the array's.

A load reads an element of its array (the frontend checks user indices against the view's
own length, and the loops of array expressions run within it), so the slice it reads is
not empty: its start `lo` is below its end, which is at most the array's length `n`. A
start `min(c, n)` with a constant `c >= 0` (how slices clamp their start) is then `c`, and
the load's index is the counter plus a constant.

A load is read so unless a loop around it writes the array (a store, accum or addto into
its alias class, ir/memory.py): the loads and stores of a loop that writes an array keep
going through the one view they share, which the passes about writes (ir/jam.py,
ir/private.py) look for. An array that one loop fills and a later loop reads through
slices (`x = np.tanh(y); np.sum((x[1:] - x[:-1]) ** 2)`) is read through itself.
"""
from __future__ import annotations

from .builder import names_of
from .memory import WRITE_OPS, AliasClasses
from .nodes import I64, Block, Func, If, Op, Stmt, Var, While, walk

__all__ = ["forward_slice_loads"]


def forward_slice_loads(func: Func) -> Func:
    """`func` with each load through a `slice` reading the array sliced, where no loop
    around the load writes it."""
    defs = {o.name: st for st in walk(func.block) if isinstance(st, Op) for o in st.outs}
    slices = {name: st for name, st in defs.items() if st.op == "slice"}
    if not slices:
        return func
    classes = AliasClasses(func.block)
    fresh = names_of(func).fresh

    def written(*blocks: Block) -> frozenset:
        """The alias classes the statements of `blocks` write."""
        return frozenset(classes.find(st.args[0].name) for b in blocks for st in walk(b)
                         if isinstance(st, Op) and st.op in WRITE_OPS)

    def const_start(sl: Op) -> int | None:
        """c when the slice's start is the constant c, or `min(c, dim x, 0)` with c >= 0
        (see above)."""
        d = defs.get(sl.args[1].name)
        if d is not None and d.op == "const" and isinstance(d.attrs[0], int):
            return d.attrs[0]
        if d is None or d.op != "min":
            return None
        for c, n in (d.args, d.args[::-1]):
            cd, nd = defs.get(c.name), defs.get(n.name)
            if cd is not None and cd.op == "const" and isinstance(cd.attrs[0], int) \
                    and cd.attrs[0] >= 0 and nd is not None and nd.op == "dim" \
                    and nd.args[0].name == sl.args[0].name and nd.attrs[0] == 0:
                return cd.attrs[0]
        return None

    def add(out: list[Stmt], a: Var, b: Var, loc) -> Var:
        v = Var(fresh("i"), I64)
        out.append(Op((v,), "add", (a, b), (), loc))
        return v

    def load(st: Op, out: list[Stmt]) -> None:
        array, first, offset = st.args[0], st.args[1], 0
        while array.name in slices:   # a slice of a slice: the offsets add up
            sl = slices[array.name]
            c = const_start(sl)
            if c is None:
                first = add(out, first, sl.args[1], st.loc)
            offset += c or 0
            array = sl.args[0]
        if offset:
            c = Var(fresh("lo"), I64)
            out.append(Op((c,), "const", (), (offset,), st.loc))
            first = add(out, first, c, st.loc)
        out.append(Op(st.outs, "load", (array, first) + st.args[2:], st.attrs, st.loc))

    def block(b: Block, busy: frozenset) -> Block:
        """`b` with its loads forwarded, `busy` the classes the loops around it write."""
        body: list[Stmt] = []
        for st in b.body:
            if isinstance(st, Op) and st.op == "load" and st.args[0].name in slices \
                    and classes.find(st.args[0].name) not in busy:
                load(st, body)
            elif isinstance(st, If):
                body.append(If(st.outs, st.cond, block(st.then, busy),
                               block(st.orelse, busy), st.loc))
            elif isinstance(st, While):
                inner = busy | written(st.cond, st.body)
                body.append(While(st.outs, st.inits, block(st.cond, inner),
                                  block(st.body, inner), st.loc, st.note))
            else:
                body.append(st)
        return Block(b.params, tuple(body), b.results)

    return Func(func.name, block(func.block, frozenset()), func.filename, func.arg_names)
