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
from ..ir.memory import AliasClasses, written_after
from ..ir.nodes import Block, Func, If, Op, Stmt, Var, While, is_array
from ..ir.ops import OPS
from .activity import is_float_array


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
