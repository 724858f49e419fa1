"""Connecting the reverse sweep to the forward one.

- `substitute`: the forward code with each reversed loop and call replaced by its forward
  version (a loop that counts its trips and pushes, a `callfwd`);
- `export`: values defined inside a branch that the reverse code reads become extra results
  of that branch's If;
- `close`: the backward function gets every forward value it reads: constants re-created,
  values inside branches exported, the rest saved (returned by the forward function);
- `as_run_again`: forward code the reverse sweep runs again on the values the forward sweep
  ran it on (recomputed values, re-run fills, loops and checkpointed segments), whose index
  checks passed then.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder, NameGen
from ..errors import PyadInternalError
from ..ir.nodes import F64, I64, Block, If, Op, Stmt, Var, While, free_vars, is_array, ndim_of, rename_block, walk


@dataclass(frozen=True)
class Prefixed:
    """A statement replaced by a short prologue and a new statement (a loop with its trip
    counter, a `callfwd` with the zero shadows of its inactive array arguments), and what
    follows it (the sums a loop carried, added where they belong: carry.py)."""
    prologue: tuple[Stmt, ...]
    stmt: Stmt
    epilogue: tuple[Stmt, ...] = ()


def substitute(block: Block, subst: dict) -> Block:
    """`block` with each differentiated loop and call replaced by its forward version
    (`subst` maps id(statement) to an Op, a While or a Prefixed)."""
    body: list[Stmt] = []
    for s in block.body:
        if id(s) in subst:
            rep = subst[id(s)]
            body += [*rep.prologue, rep.stmt, *rep.epilogue] if isinstance(rep, Prefixed) \
                else [rep]
        elif isinstance(s, If):
            body.append(If(s.outs, s.cond, substitute(s.then, subst),
                           substitute(s.orelse, subst), s.loc))
        elif isinstance(s, While):
            body.append(While(s.outs, s.inits, s.cond, substitute(s.body, subst), s.loc,
                              s.note))
        else:
            body.append(s)
    return Block(block.params, tuple(body), block.results)


def close(primal: Block, bwd: Block, names: NameGen,
          inputs: set[str]) -> tuple[Block, Block, list[Var]]:
    """Make every primal value the backward block reads available to it: constants are
    re-created, values inside If branches are exported as extra If results, and the rest
    become saved values (returned in order). `inputs` are the bwd's own params (cts).
    Returns (fwd block, bwd block, saved)."""
    needed = {v.name: v for v in free_vars(bwd) if v.name not in inputs}
    consts: dict[str, Op] = {}
    for s in walk(primal):
        if isinstance(s, Op) and s.op == "const" and s.outs[0].name in needed:
            consts[s.outs[0].name] = s
    prologue, mapping = [], {}
    for n, c in consts.items():
        v = Var(names.fresh(n), c.outs[0].type)
        prologue.append(Op((v,), "const", (), c.attrs, c.loc))
        mapping[n] = v
    want = {n for n in needed if n not in consts}
    fwd = export(primal, want, mapping, names)
    bwd = rename_block(Block((), tuple(prologue) + bwd.body, bwd.results), mapping)
    top = {p.name for p in primal.params} | {o.name for s in fwd.body for o in s.outs}
    saved = []
    for n in needed:
        if n in consts:
            continue
        v = mapping.get(n, needed[n])
        if v.name not in top:
            raise PyadInternalError(f"backward pass reads %{n}, which the forward pass lacks")
        saved.append(v)
    return fwd, bwd, saved


def export(block: Block, want: set[str], mapping: dict[str, Var], names: NameGen) -> Block:
    """Rebuild `block` so each wanted name defined inside one of its Ifs is also a result of
    that If (recursively); `mapping` records the outer name of each exported value."""
    body: list[Stmt] = []
    for s in block.body:
        if not isinstance(s, If):
            body.append(s)
            continue
        inner = {o.name: o for blk in (s.then, s.orelse) for st in walk(blk) for o in st.outs}
        exported = [v for n, v in inner.items() if n in want]  # in definition order
        if not exported:
            body.append(s)
            continue
        branches = [_with_exports(export(blk, want, mapping, names), exported, mapping,
                                  names, s) for blk in (s.then, s.orelse)]
        extra = []
        for v in exported:
            out = Var(names.fresh(v.name + ".s"), v.type)
            extra.append(out)
            mapping[v.name] = out
        body.append(If(s.outs + tuple(extra), s.cond, branches[0], branches[1], s.loc))
    return Block(block.params, tuple(body), block.results)


def _with_exports(blk: Block, exported: list[Var], mapping: dict[str, Var], names: NameGen,
                  s: If) -> Block:
    """A branch block yielding `exported` too: its own value where the branch defines it,
    a placeholder (zero, or an empty array) where it does not."""
    sub = Builder(names, s.loc)
    here = {o.name for st in blk.body for o in st.outs}
    ys = []
    for v in exported:
        src = mapping.get(v.name, v)
        if src.name in here:
            ys.append(src)
        elif is_array(v.type):
            zero = sub.const(0, I64)
            ys.append(sub.emit("alloc", *([zero] * ndim_of(v.type)), type=v.type))
        elif v.type == "bool":
            ys.append(sub.const(False, "bool"))
        else:
            ys.append(sub.const(0.0 if v.type == F64 else 0, v.type))
    return Block((), blk.body + tuple(sub.stmts), blk.results + tuple(ys))


def as_run_again(s: Stmt) -> Stmt:
    """`s`, forward code, as the reverse sweep runs it again on the values the forward sweep
    ran it on: each `normidx` passed its bounds check then and becomes `wrapidx`, which
    native code does not check again (a check of an index that does not change inside a
    loop is an exit LLVM does not move out of it: the loop would not vectorize)."""
    if isinstance(s, Op):   # (and an `imul` did not overflow: a `mul` now)
        again = {"normidx": "wrapidx", "imul": "mul"}.get(s.op)
        return Op(s.outs, again, s.args, s.attrs, s.loc) if again else s
    if isinstance(s, If):
        return If(s.outs, s.cond, _run_again(s.then), _run_again(s.orelse), s.loc)
    return While(s.outs, s.inits, _run_again(s.cond), _run_again(s.body), s.loc, s.note)


def _run_again(block: Block) -> Block:
    return Block(block.params, tuple(map(as_run_again, block.body)), block.results)
