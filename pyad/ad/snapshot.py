"""Whole-array primitives read their array arguments again in the reverse sweep (the
adjoint of `A @ B` reads A and B). Where an argument's memory may be written after the op
has run (later in the function, or by a later trip of a loop around it), the op is given a
copy instead, made right before it: the reverse sweep then reads what the forward sweep
read. Arguments nothing writes afterwards (the usual case: arrays computed once, function
arguments) are used in place. Likewise for the result of a row whose adjoint reads it
(`reads_result`: x = solve(A, b) then x[0] = 0): the op makes a result of its own, which
nothing writes, and the function's array is a copy of it. A native call (recursion) reads its
array arguments again in its backward half, so it is treated the same way."""
from __future__ import annotations

from ..ir.builder import NameGen
from ..ir.memory import WRITE_OPS, AliasClasses, final_loads, view_root, written_after
from ..ir.nodes import Block, Func, If, Op, Stmt, Var, While, is_array, rename_block, walk
from ..ir.ops import OPS
from ..ir.private import private_arrays
from .activity import is_float_array
from .rerun import loops_written_after


def snapshot_reads(func: Func, names: NameGen) -> Func:
    classes = AliasClasses(func.block)
    unsafe = {}   # id(op) -> the names of the arguments (and result) to copy
    for s, after in written_after(func.block, classes):
        if OPS[s.op].whole_array and OPS[s.op].adjoint is not None or s.op == "call":
            call = s.op == "call"  # its backward half may read any array arg or result
            written = {a.name for a in s.args
                       if (is_float_array(a.type) or call and is_array(a.type))
                       and classes.find(a.name) in after}
            written |= {o.name for o in (s.outs if call else s.outs[:1] if OPS[s.op].reads_result
                                         else ()) if is_array(o.type)
                        and classes.find(o.name) in after}
            if written:
                unsafe[id(s)] = written
    if not unsafe:
        return func
    return Func(func.name, _block(func.block, unsafe, names), func.filename, func.arg_names)


def _block(blk: Block, unsafe: dict[int, set[str]], names: NameGen) -> Block:
    body: list[Stmt] = []
    for s in blk.body:
        if isinstance(s, Op) and id(s) in unsafe:
            args = []
            for a in s.args:
                if a.name in unsafe[id(s)]:
                    copy = Op((Var(names.fresh(a.name + ".copy"), a.type),), "copy", (a,),
                              (), s.loc)
                    body.append(copy)
                    a = copy.outs[0]
                args.append(a)
            kept = tuple(Var(names.fresh(o.name + ".kept"), o.type)
                         if o.name in unsafe[id(s)] else o for o in s.outs)
            body.append(Op(kept, s.op, tuple(args), s.attrs, s.loc))
            body.extend(Op((o,), "copy", (k,), (), s.loc) for o, k in zip(s.outs, kept)
                        if k is not o)
        elif isinstance(s, If):
            body.append(If(s.outs, s.cond, _block(s.then, unsafe, names),
                           _block(s.orelse, unsafe, names), s.loc))
        elif isinstance(s, While):
            body.append(While(s.outs, s.inits, _block(s.cond, unsafe, names),
                              _block(s.body, unsafe, names), s.loc, s.note))
        else:
            body.append(s)
    return Block(blk.params, tuple(body), blk.results)


def snapshot_loop_reads(func: Func, names: NameGen) -> Func:
    """Arrays a loop nest reads again and again (a matrix-vector product's vector, read once
    per row) and something writes after the nest are copied right before it, and the nest
    reads the copy: nothing writes the copy, so the reverse sweep re-reads it
    (memory.final_loads), and the tape holds nothing per load; the copies cost one element
    per element of the array each time the nest runs, where the loads cost one per read.

    A nest qualifies for array `v` (defined before it) when a load of `v` sits in a loop
    inside it and cannot be repeated as it is (memory.final_loads), the nest writes no
    memory `v` may share (buffers a loop rotates, `h, hn = hn, h`, are told apart:
    `rotating`), and `v`'s memory is written after it, other than as a scratch array each
    trip of a loop fills before reading (ir/private.py: the AD reverses such trips in
    place)."""
    classes = AliasClasses(func.block)
    defs = {o.name: st for st in walk(func.block) if isinstance(st, Op) for o in st.outs}
    apart = rotating(func.block, defs)
    private = set().union(*private_arrays(func.block, classes).values())  # scratch, refilled
    final = final_loads(func.block, classes)
    copies: dict[int, list[Var]] = {}
    written = loops_written_after(func.block, classes)
    for nest in (s for s in walk(func.block) if isinstance(s, While)):
        after = written[id(nest)]
        inside = {o.name for st in walk(nest.body) for o in st.outs} \
            | {p.name for st in walk(nest.body) if isinstance(st, While)
               for p in st.body.params + st.cond.params} \
            | {p.name for p in nest.body.params + nest.cond.params}
        wanted = []
        for v in _read_in_inner_loops(nest, final):
            if v.name in inside or v in wanted or not is_float_array(v.type) \
                    or classes.find(v.name) not in after or classes.find(v.name) in private:
                continue
            root, c = view_root(v.name, defs), classes.find(v.name)
            ops = [t for t in walk(nest.body) if isinstance(t, Op)]
            if all(view_root(t.args[0].name, defs) in apart.get(root, ()) for t in ops
                   if t.op in WRITE_OPS and classes.find(t.args[0].name) == c) \
                    and not any(t.op == "call" and any(
                        is_array(a.type) and classes.find(a.name) == c for a in t.args)
                        for t in ops):
                wanted.append(v)
        if wanted:
            copies[id(nest)] = wanted
    if not copies:
        return func
    return Func(func.name, _snap_block(func.block, copies, names), func.filename,
                func.arg_names)


def _read_in_inner_loops(nest: While, final: set[str]) -> list[Var]:
    """The arrays loaded in loops inside `nest`'s body by loads the reverse sweep cannot
    simply repeat (not in `final`: memory.final_loads)."""
    return [t.args[0] for s in walk(nest.body) if isinstance(s, While)
            for t in walk(s.body) if isinstance(t, Op) and t.op == "load"
            and t.outs[0].name not in final]


def rotating(block: Block, defs: dict) -> dict[str, set[str]]:
    """{array name: the names of the arrays that are other buffers in every trip}: the
    carried arrays of a loop that hands them on as a permutation of themselves (`h, hn =
    hn, h`; unchanged ones too), started from distinct arrays the function allocates."""
    apart: dict[str, set[str]] = {}
    for loop in (s for s in walk(block) if isinstance(s, While)):
        slots = [k for k, p in enumerate(loop.body.params) if is_float_array(p.type)]
        params = [loop.body.params[k] for k in slots]
        yields = [loop.body.results[k] for k in slots]
        inits = [view_root(loop.inits[k].name, defs) for k in slots]
        fresh = all(defs.get(r) is not None and OPS[defs[r].op].memory == "alloc"
                    for r in inits)
        if len(slots) < 2 or not fresh or len(set(inits)) != len(inits) \
                or sorted(v.name for v in yields) != sorted(p.name for p in params):
            continue
        for p in params:
            apart.setdefault(p.name, set()).update(q.name for q in params if q != p)
    return apart


def _snap_block(blk: Block, copies: dict[int, list[Var]], names: NameGen) -> Block:
    body: list[Stmt] = []
    for s in blk.body:
        if isinstance(s, If):
            s = If(s.outs, s.cond, _snap_block(s.then, copies, names),
                   _snap_block(s.orelse, copies, names), s.loc)
        elif isinstance(s, While):
            inner = While(s.outs, s.inits, _snap_block(s.cond, copies, names),
                          _snap_block(s.body, copies, names), s.loc, s.note, s.unrolled)
            mapping = {}
            for v in copies.get(id(s), ()):
                snap = Op((Var(names.fresh(v.name + ".snap"), v.type),), "copy", (v,), (),
                          s.loc)
                body.append(snap)
                mapping[v.name] = snap.outs[0]
            s = While(s.outs, s.inits, rename_block(inner.cond, mapping),
                      rename_block(inner.body, mapping), s.loc, s.note,
                      s.unrolled) if mapping else inner
        body.append(s)
    return Block(blk.params, tuple(body), blk.results)
